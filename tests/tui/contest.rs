//! The logbook in a contest log, in a pseudo-terminal against the real service: the
//! exchange typed after the call, the contest's own dupes and multipliers as the call is
//! typed, the serial number sent, the rate and score in the status bar, and what the service
//! stores.

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
    // Again on 20 m is a dupe, whatever the mode; on 15 m both mults are new again.
    tui.keys("DL1ABC");
    tui.wait_for("DUPE DL1ABC 20m");
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
    let mut a = open(&cli, &[]);
    a.wait_for("sending 1 A 72 CT");
    // The second logbook is worked by a member of the club: its contacts name him.
    let mut b = open(&other, &["--operator", "k1opr"]);
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
