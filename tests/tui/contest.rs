//! The logbook in a contest log, in a pseudo-terminal against the real service: the
//! exchange typed after the call, the contest's own dupes and multipliers as the call is
//! typed, the serial number sent, the rate and score in the status bar, and what the service
//! stores.

use std::collections::BTreeMap;

use serde_json::json;

use super::terminal::Tui;
use crate::cli::setup;

/// Starts a log of `contest` sending `exchange` and opens it in the logbook, the form on it.
fn opened(
    contest: &str,
    exchange: &str,
) -> (
    crate::common::Server,
    crate::common::Api,
    crate::cli::Cli,
    Tui,
    String,
) {
    let (server, api, cli) = setup("elevated");
    let r = api.post(
        "/v1/contests",
        json!({"contestId": contest, "callsign": "W1AW", "exchange": exchange}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.id();
    let name = r.body["name"].as_str().unwrap().to_owned();
    let mut tui = Tui::start(&cli, &[], &[]);
    tui.wait_for(&name);
    // Folders have focus: filter to the log and open it.
    tui.keys("/");
    tui.keys(contest);
    tui.wait_for(&format!("/{contest}"));
    tui.keys("\r");
    tui.keys("\r");
    tui.wait_for("No contacts yet");
    tui.keys("\x1bn");
    tui.wait_for("Log a contact");
    (server, api, cli, tui, id)
}

/// The number before `call` on the form's partial (SCP) line, which Alt and it picks.
fn picking_number(screen: &str, call: &str) -> char {
    let line = screen
        .lines()
        .find(|l| l.contains("SCP "))
        .unwrap_or_else(|| panic!("no SCP line: {screen}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == call).unwrap();
    let number = words[at - 1];
    assert!(number.len() == 1 && number != "0", "{line}");
    number.chars().next().unwrap()
}

#[test]
fn field_day_is_logged_call_exchange_enter() {
    let (_server, api, _cli, mut tui, id) = opened("ARRL-FD", "2A CT");
    // Tab goes from the call to the exchange, as contesters expect; the exchange field
    // shows what it takes.
    let screen = tui.wait_for("Exchange  e.g. 2A CT");
    assert!(screen.contains("sending 2A CT"), "{screen}");
    tui.keys("k1abc\t3a ema\t14.025\tcw\r");
    tui.wait_for("logged K1ABC 20m CW");
    tui.wait_until("the contact stored", |s| {
        s.contains("0 waiting") && s.contains("2 pts")
    });
    // The same call on CW again on 20 m is a dupe by Field Day's rule (a band and mode);
    // on 40 m, or on phone, it is not.
    tui.keys("K1ABC");
    tui.wait_for("DUPE K1ABC 20m");
    tui.keys("\t3A EMA\t7.030");
    let screen = tui.wait_for("2 points");
    assert!(!screen.contains("DUPE"), "{screen}");
    tui.keys("\r");
    tui.wait_until("the second stored", |s| {
        s.contains("QSOs 2/") && s.contains("0 waiting") && s.contains("4 pts")
    });
    // An exchange Field Day does not read is refused, saying what it takes, and nothing goes.
    tui.keys("N2XYZ\t2G ENY\r");
    tui.wait_for("class \"2G\"");
    let stored = api.all_contacts(&id);
    assert_eq!(stored.len(), 2, "{stored:?}");
    for c in &stored {
        assert_eq!(c["class"], "3A", "{c}");
        assert_eq!(c["arrlSect"], "EMA", "{c}");
        assert_eq!(c["contestId"], "ARRL-FIELD-DAY", "{c}");
        assert_eq!(c["stxString"], "2A CT", "{c}");
        assert_eq!(c["srxString"], "3A EMA", "{c}");
    }
    tui.close_form();
    tui.keys("\x1bq");
    tui.wait_for("N2XYZ is typed in the form and not logged");
    tui.keys("y");
    assert_eq!(tui.exit_code(), 0);
}

#[test]
fn cq_ww_judges_zones_and_entities_and_serials_count_on() {
    let (_server, api, _cli, mut tui, id) = opened("CQ-WW-CW", "5");
    // The report is left out as contesters type it; the zone and entity are new mults.
    tui.keys("dl1abc\t14\t14.025\tcw");
    tui.wait_for("new mult: zone 14 on 20m");
    tui.keys("\r");
    tui.wait_until("the contact stored", |s| {
        s.contains("0 waiting") && s.contains("pts")
    });
    // Again on 20 m is a dupe, whatever the mode: the partial list marks it as part of the
    // call is typed, and the call picked from the list (Alt and its number) is judged as a
    // typed one.
    tui.keys("DL1AB");
    // The whole of what was typed, and its partial list (not one of a shorter prefix).
    let screen = tui.wait_until("DL1AB's partial list", |s| {
        s.contains("Callsign  DL1AB ") && s.contains("DL1ABC dupe")
    });
    assert!(!screen.contains("DUPE DL1ABC"), "{screen}");
    let number = picking_number(&screen, "DL1ABC");
    tui.keys(&format!("\x1b{number}"));
    tui.wait_for("DUPE DL1ABC 20m");
    // On 15 m both mults are new again.
    tui.keys("\t14\t21.025");
    tui.wait_for("new mult: zone 14 on 15m");
    tui.keys("\r");
    tui.wait_for("logged DL1ABC 15m CW");
    tui.wait_until("the second stored", |s| {
        s.contains("QSOs 2/") && s.contains("0 waiting")
    });
    let stored = api.all_contacts(&id);
    assert_eq!(stored.len(), 2, "{stored:?}");
    for c in &stored {
        assert_eq!(c["cqz"], 14, "{c}");
        assert_eq!(c["rstReceived"], "599", "{c}");
        assert_eq!(c["stxString"], "599 5", "{c}");
    }
    let shown = api.get(&format!("/v1/contests/{id}"));
    assert_eq!(shown.body["standing"]["qsos"], 2, "{}", shown.body);
    tui.close_form();
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
}

#[test]
fn sweepstakes_sends_the_next_serial_number() {
    let (_server, api, _cli, mut tui, id) = opened("ARRL-SS-CW", "A 72 CT");
    tui.wait_for("sending 1 A 72 CT");
    tui.keys("k9zo\t12 b 69 il\t14.030\tcw\r");
    tui.wait_for("sending 2 A 72 CT");
    // Once in the contest: K9ZO on 40 m is a dupe.
    tui.keys("K9ZO");
    tui.wait_for("DUPE K9ZO");
    tui.keys("\t12 B 69 IL\t7.030\r");
    tui.wait_for("sending 3 A 72 CT");
    tui.wait_until("both stored", |s| {
        s.contains("QSOs 2/") && s.contains("0 waiting")
    });
    let mut sent: Vec<i64> = api
        .all_contacts(&id)
        .iter()
        .map(|c| c["stx"].as_i64().unwrap())
        .collect();
    sent.sort();
    assert_eq!(sent, [1, 2], "no serial twice");
    tui.close_form();
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
}

/// Two logbooks on one Sweepstakes log, the second through a link that is cut and restored:
/// each sends serial numbers of its own blocks, none twice, the cut one too, and the first
/// sees the second's QSO in its dupe check once it is stored, with no key pressed.
fn two_stations_on_one_log_never_send_a_serial_twice() {
    let (server, api, cli) = setup("elevated");
    let r = api.post(
        "/v1/contests",
        json!({"contestId": "ARRL-SS-CW", "callsign": "W1AW", "exchange": "A 72 CT"}),
    );
    let id = r.id();
    let addr = reqwest::Url::parse(&server.url).unwrap();
    let link = crate::common::Outage::proxy_to(
        format!("{}:{}", addr.host_str().unwrap(), addr.port().unwrap())
            .parse()
            .unwrap(),
    );
    let other = crate::cli::Cli::new(&format!("http://{}", link.addr));
    other.set_env("SVC_API_KEY", api.key());
    other.secret(api.key());
    let open = |cli: &crate::cli::Cli, args: &[&str]| {
        let mut tui = Tui::start(cli, args, &[]);
        tui.wait_for("ARRL-SS-CW");
        tui.keys("/");
        tui.keys("ARRL-SS-CW");
        tui.wait_for("/ARRL-SS-CW");
        tui.keys("\r");
        tui.keys("\r");
        tui.wait_for("No contacts yet");
        tui.keys("\x1bn");
        tui.wait_for("Log a contact");
        tui
    };
    // A multi-two station: each logbook marks its contacts with its transmitter.
    let mut a = open(&cli, &["--transmitter", "0"]);
    a.wait_for("sending 1 A 72 CT");
    // The second logbook is worked by a member of the club: its contacts name him.
    let mut b = open(&other, &["--operator", "k1opr", "--transmitter", "1"]);
    // The second station's block follows the first's.
    b.wait_for(&format!(
        "sending {} A 72 CT",
        1 + svc::tui::components::contest::BLOCK
    ));
    a.keys("k9zo\t12 b 69 il\t14.030\tcw\r");
    a.wait_for("sending 2 A 72 CT");
    // The second station's link goes: it logs on from its block, and the QSO waits.
    link.cut();
    b.keys("n6xx\t140 u 88 scv\t7.030\tcw\r");
    b.wait_for(&format!(
        "sending {} A 72 CT",
        2 + svc::tui::components::contest::BLOCK
    ));
    a.keys("w0aaa\t3 q 01 mn\t21.030\tcw\r");
    a.wait_for("sending 3 A 72 CT");
    link.restore();
    crate::common::eventually("the three stored", || api.all_contacts(&id).len() == 3);
    let mut sent: Vec<i64> = api
        .all_contacts(&id)
        .iter()
        .map(|c| c["stx"].as_i64().unwrap())
        .collect();
    sent.sort();
    let block = i64::from(svc::tui::components::contest::BLOCK);
    assert_eq!(sent, [1, 2, block + 1], "no serial twice");
    let operators: Vec<(String, Option<String>)> = api
        .all_contacts(&id)
        .iter()
        .map(|c| {
            (
                c["callsign"].as_str().unwrap().to_owned(),
                c["operator"].as_str().map(str::to_owned),
            )
        })
        .collect();
    assert!(
        operators.contains(&("N6XX".to_owned(), Some("K1OPR".to_owned())))
            && operators.contains(&("K9ZO".to_owned(), None)),
        "{operators:?}"
    );
    let transmitters: BTreeMap<String, i64> = api
        .all_contacts(&id)
        .iter()
        .map(|c| {
            (
                c["callsign"].as_str().unwrap().to_owned(),
                c["transmitter"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        transmitters,
        BTreeMap::from([("K9ZO".into(), 0), ("N6XX".into(), 1), ("W0AAA".into(), 0)])
    );
    let shown = api.get(&format!("/v1/contests/{id}"));
    assert_eq!(
        shown.body["standing"]["operators"],
        json!(["K1OPR", "W1AW"])
    );
    // The first station's form reads the log again every couple of seconds: the second's
    // QSO reaches its list and its dupe check with no key pressed.
    a.wait_for("N6XX");
    a.keys("N6XX");
    a.wait_for("DUPE N6XX");
    // Deleted by the second station (a busted call): it leaves the first's list and dupe
    // check as well, with no key pressed.
    let n6xx = api
        .all_contacts(&id)
        .into_iter()
        .find(|c| c["callsign"] == "N6XX")
        .unwrap();
    let gone = api.delete(&format!("/v1/contacts/{}", n6xx["id"].as_str().unwrap()));
    assert_eq!(gone.status, 200, "{}", gone.body);
    let screen = a.wait_until("the deleted QSO gone from the dupe check", |s| {
        !s.contains("DUPE N6XX")
    });
    assert!(
        !screen
            .lines()
            .any(|l| l.starts_with("│ ") && l.contains("N6XX")),
        "the row went too: {screen}"
    );
    a.close_form();
    a.keys("\x1bq");
    a.wait_for("N6XX is typed in the form and not logged");
    a.keys("y");
    assert_eq!(a.exit_code(), 0);
    b.close_form();
    b.keys("\x1bq");
    assert_eq!(b.exit_code(), 0);
}

crate::both_backends!(two_stations_on_one_log_never_send_a_serial_twice);

#[test]
fn a_contest_log_is_started_from_the_logbook_and_joined_again() {
    let (_server, api, cli) = setup("elevated");
    let mut tui = Tui::start(&cli, &[], &[]);
    tui.wait_for("QSOs 0/");
    // With no log open the plain letter opens the dialog; it lists the contests it knows.
    tui.keys("c");
    let screen = tui.wait_for("Start or join a contest log");
    assert!(screen.contains("ARRL-FD"), "{screen}");
    // A contest svc does not know, and an exchange the contest does not read, are refused
    // on their fields, saying what to fix; nothing is asked of the service.
    tui.keys("fieldday\r");
    tui.wait_for("\"fieldday\" is not a contest svc knows");
    tui.keys("\x15arrl-fd");
    tui.wait_for("ARRL Field Day (ARRL-FD) · each QSO takes class section");
    tui.keys("\t\t2g ct\r");
    tui.wait_for("Sends: the class \"2g\" is not a Field Day class");
    tui.keys("\x152a ct\tlow single-op\r");
    tui.wait_for("contest log W1AW ARRL-FD");
    tui.wait_for("started; type a callsign to log into it");
    // The log is open and its form a contest form: call, exchange, Enter.
    tui.keys("k1abc");
    tui.wait_for("sending 2A CT");
    tui.keys("\t3a ema\t14.025\tcw\r");
    tui.wait_for("logged K1ABC 20m CW");
    tui.wait_until("the contact stored", |s| s.contains("0 waiting"));
    let logs = api.get("/v1/contests");
    let items = logs.body["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{}", logs.body);
    let log = &items[0];
    assert_eq!(log["contestId"], "ARRL-FD", "{log}");
    assert_eq!(log["exchange"], "2A CT", "{log}");
    assert_eq!(log["categories"]["power"], "LOW", "{log}");
    assert_eq!(log["categories"]["operator"], "SINGLE-OP", "{log}");
    let id = log["id"].as_str().unwrap();
    let stored = api.all_contacts(id);
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(stored[0]["srxString"], "3A EMA", "{stored:?}");
    // Started again this weekend, it is the same log, joined.
    tui.close_form();
    tui.keys("\x1bc");
    tui.wait_for("Start or join a contest log");
    tui.keys("arrl-fd\t\t2a ct\r");
    tui.wait_for("joined; type a callsign to log into it");
    assert_eq!(
        api.get("/v1/contests").body["items"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
}

#[test]
fn a_transmitter_other_than_0_or_1_is_refused_before_the_screen_opens() {
    let (_server, _api, cli) = setup("elevated");
    let mut tui = Tui::start(&cli, &["--transmitter", "2"], &[]);
    assert_eq!(tui.exit_code(), 2);
    let screen = tui.contents();
    assert!(screen.contains("--transmitter"), "{screen}");
    assert!(
        screen.contains("0..=1") || screen.contains("0 or 1"),
        "{screen}"
    );
}
