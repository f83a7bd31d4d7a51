//! `svc lotw`: the LoTW stand-in (tests/common/lotw.rs) in place of ARRL's report, the real
//! service on each backend, and the real CLI: the login checked before it is kept, the
//! confirmations matched as LoTW matches QSOs and written into the contacts, only what is
//! new asked for the next time, and a report cut short or miscounted changing nothing.

use serde_json::{Value, json};

use super::{Cli, closed_port, setup};
use crate::both_backends;
use crate::common::Api;
use crate::common::lotw::{FakeLotw, Qsl};

const PASSWORD: &str = "lotw pw&;!42";
const WRONG: &str = "not-the-pw-42";

fn qsl(call: &'static str, mode: &'static str, time: &'static str, matched: &'static str) -> Qsl {
    Qsl {
        owncall: "W1AW",
        call,
        band: "20M",
        mode,
        date: "20261101",
        time,
        matched,
        details: vec![
            ("DXCC", "291"),
            ("STATE", "MA // Massachusetts"),
            ("CNTY", "MA,MIDDLESEX // Middlesex"),
            ("GRIDSQUARE", "FN42"),
            ("CQZ", "5"),
        ],
    }
}

fn prepare(cli: &Cli, fake: &FakeLotw) {
    cli.set_env("SVC_NO_KEYRING", "1");
    cli.set_env("SVC_LOTW_URL", &fake.url());
    cli.secret(PASSWORD);
    cli.secret(WRONG);
}

fn log(
    api: &Api,
    folder: &str,
    call: &str,
    mhz: f64,
    mode: &str,
    at: &str,
    extra: Value,
) -> String {
    let mut body = json!({
        "folderId": folder, "callsign": call, "frequency": mhz, "mode": mode, "timeOn": at,
    });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let r = api.post("/v1/contacts", body);
    assert_eq!(r.status, 201, "{}", r.body);
    r.id()
}

fn contact(api: &Api, folder: &str, id: &str) -> Value {
    api.all_contacts(folder)
        .into_iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("{id} is not in {folder}"))
}

#[test]
fn connect_checks_the_login_first_and_stores_nothing_when_refused() {
    let fake = FakeLotw::start("W1AW", PASSWORD);
    let cli = Cli::new(&closed_port());
    prepare(&cli, &fake);
    let args = ["lotw", "connect", "--user", "W1AW", "--password-stdin"];
    let refused = cli.run_stdin(&args, &format!("{WRONG}\n"));
    let message = refused.fails(3, "lotw connect", "unauthorized");
    assert!(
        message.contains("refused the user name or password"),
        "{message}"
    );
    assert!(message.contains("nothing was stored"), "{message}");
    assert!(!cli.config_file().exists(), "nothing stored");

    let run = cli.run_stdin(&[&args[..], &["--json"]].concat(), &format!("{PASSWORD}\n"));
    assert_eq!(
        run.ok().json(),
        json!({"service": "lotw", "user": "W1AW", "stored": "config"})
    );
    // The check asked for a day's QSLs, with the login as typed.
    let asked = fake.seen().last().unwrap().clone();
    assert_eq!(asked["login"], "W1AW");
    assert_eq!(asked["password"], PASSWORD);
    assert_eq!(asked["qso_query"], "1");
    assert_eq!(asked["qso_qsl"], "yes");
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(cli.config_file()).unwrap()).unwrap();
    assert_eq!(config["lotwUser"], "W1AW");
    assert_eq!(config["lotwPassword"], PASSWORD);

    let run = cli.run(&["lotw", "disconnect"]);
    assert_eq!(
        run.ok().stdout,
        "disconnected from LoTW (W1AW); its password is forgotten\n"
    );
    let message = cli
        .run(&["lotw", "sync"])
        .fails(3, "lotw sync", "unauthorized");
    assert!(message.contains("svc lotw connect"), "{message}");
}

fn sync_confirms_the_contacts_lotw_matches() {
    let (_server, api, cli) = setup("elevated");
    let fake = FakeLotw::start("W1AW", PASSWORD);
    prepare(&cli, &fake);
    let folder = api.monthly("2026-11", None);
    let ft8 = log(
        &api,
        &folder,
        "K1ABC",
        14.074,
        "FT8",
        "2026-11-01T12:00:30Z",
        json!({"state": "NH"}),
    );
    // Logged as USB twelve minutes before LoTW's SSB: the same mode group, within the window.
    let ssb = log(
        &api,
        &folder,
        "DL1AB",
        14.250,
        "USB",
        "2026-11-01T13:48:00Z",
        json!({}),
    );
    // The same call an hour later on FT8: not the QSO LoTW confirms.
    let later = log(
        &api,
        &folder,
        "K1ABC",
        14.074,
        "FT8",
        "2026-11-01T13:01:00Z",
        json!({}),
    );
    // CW for a confirmation of phone: no match.
    let cw = log(
        &api,
        &folder,
        "G4XYZ",
        14.030,
        "CW",
        "2026-11-01T14:00:00Z",
        json!({}),
    );

    fake.add(qsl("K1ABC", "FT8", "120030", "2026-11-02 08:00:00"));
    fake.add(qsl("DL1AB", "SSB", "140000", "2026-11-03 09:30:00"));
    fake.add(qsl("G4XYZ", "SSB", "140000", "2026-11-03 10:00:00"));
    fake.add(qsl("JA1ZZZ", "FT8", "150000", "2026-11-04 11:00:00"));
    cli.run_stdin(
        &["lotw", "connect", "--user", "W1AW", "--password-stdin"],
        PASSWORD,
    )
    .ok();

    let first = cli.run(&["lotw", "sync", "--json"]).ok().json();
    assert_eq!(first["read"], 4, "{first}");
    assert_eq!(first["confirmed"], 2, "{first}");
    assert_eq!(first["already"], 0, "{first}");
    let unmatched: Vec<&str> = first["unmatched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["callsign"].as_str().unwrap())
        .collect();
    assert_eq!(unmatched, ["G4XYZ", "JA1ZZZ"], "{first}");
    assert_eq!(first["lastQsl"], "2026-11-04 11:00:00");
    assert_eq!(fake.seen().last().unwrap()["qso_qslsince"], "1900-01-01");

    let c = contact(&api, &folder, &ft8);
    assert_eq!(c["lotwQslRcvd"], "Y", "{c}");
    assert_eq!(c["lotwQslSent"], "Y", "{c}");
    assert_eq!(c["lotwQslRdate"], "2026-11-02", "{c}");
    assert_eq!(c["state"], "NH", "what the operator typed stays: {c}");
    assert_eq!(
        c["cnty"], "MA,MIDDLESEX",
        "the remark is not part of it: {c}"
    );
    assert_eq!(c["gridsquare"], "FN42", "{c}");
    assert!(
        c.get("qslRcvd").is_none(),
        "LoTW's QSL_RCVD is not a card: {c}"
    );
    assert_eq!(contact(&api, &folder, &ssb)["lotwQslRcvd"], "Y");
    for id in [&later, &cw] {
        let c = contact(&api, &folder, id);
        assert!(c.get("lotwQslRcvd").is_none(), "{c}");
    }

    // The next sync asks only for what LoTW matched since the last report.
    let text = cli.run(&["lotw", "sync"]);
    assert_eq!(
        fake.seen().last().unwrap()["qso_qslsince"],
        "2026-11-04 11:00:00"
    );
    assert!(
        text.ok().stdout.starts_with(
            "LoTW: 1 confirmations read, 0 newly confirmed, 0 already, 1 match no contact\n"
        ),
        "{text:?}"
    );

    // A report cut short, or whose count is not its records', changes nothing and keeps the
    // mark where it was.
    fake.add(qsl("K1ABC", "FT8", "130100", "2026-11-05 12:00:00"));
    fake.cut_next();
    let message = cli
        .run(&["lotw", "sync"])
        .fails(7, "lotw sync", "lotw_incomplete");
    assert!(message.contains("<APP_LoTW_EOF>"), "{message}");
    assert!(contact(&api, &folder, &later).get("lotwQslRcvd").is_none());
    fake.miscount_next();
    let message = cli
        .run(&["lotw", "sync"])
        .fails(7, "lotw sync", "lotw_incomplete");
    assert!(message.contains("records but"), "{message}");
    assert!(contact(&api, &folder, &later).get("lotwQslRcvd").is_none());
    assert_eq!(
        fake.seen().last().unwrap()["qso_qslsince"],
        "2026-11-04 11:00:00",
        "the mark did not move"
    );
    let done = cli.run(&["lotw", "sync", "--json"]).ok().json();
    assert_eq!(done["confirmed"], 1, "{done}");
    assert_eq!(contact(&api, &folder, &later)["lotwQslRdate"], "2026-11-05");

    // Every confirmation again: what is there answers `already`.
    let again = cli.run(&["lotw", "sync", "--all", "--json"]).ok().json();
    assert_eq!(
        (again["confirmed"].clone(), again["already"].clone()),
        (json!(0), json!(3)),
        "{again}"
    );

    // Where the log stands: three of four contacts at LoTW and confirmed, none elsewhere.
    let status = cli.run(&["confirmations", "status", "--json"]).ok().json();
    assert_eq!(status["contacts"], 4, "{status}");
    assert_eq!(
        status["services"][0],
        json!({"service": "lotw", "sent": 3, "confirmed": 3, "ignored": 0, "unsent": 1})
    );
    assert_eq!(status["services"][2]["service"], "card");
    assert_eq!(status["services"][2]["unsent"], 4);
    let text = cli.run(&["confirmations", "status"]).ok().stdout.clone();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "4 contacts", "{text}");
    assert!(lines[1].starts_with("SERVICE"), "{text}");
    let lotw: Vec<&str> = lines[2].split_whitespace().collect();
    assert_eq!(lotw, ["LoTW", "3", "3", "1", "0"], "{text}");
}

fn the_service_refuses_a_bad_confirmation_and_a_basic_key() {
    let (server, api, _cli) = setup("elevated");
    let item = json!({
        "callsign": "K1ABC", "band": "20m", "mode": "FT8", "timeOn": "2026-11-01T12:00:30Z",
        "stationCallsign": "W1AW", "confirmedOn": "2026-11-02",
    });
    let ok = api.post(
        "/v1/confirmations",
        json!({"service": "lotw", "items": [item.clone()]}),
    );
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert_eq!(
        ok.body,
        json!({"confirmed": 0, "already": 0, "unmatched": 1, "items": [{"state": "unmatched"}]})
    );
    let mut bad = item.clone();
    bad["band"] = json!("21m");
    let r = api.post(
        "/v1/confirmations",
        json!({"service": "lotw", "items": [item.clone(), bad]}),
    );
    let message = r.expect_error(400, "validation_error");
    assert!(message.contains("items[1].band"), "{message}");
    let r = api.post(
        "/v1/confirmations",
        json!({"service": "eqsl", "items": [item.clone()]}),
    );
    assert!(r.expect_error(400, "validation_error").contains("lotw"));
    let r = api.post("/v1/confirmations", json!({"service": "lotw", "items": []}));
    assert!(
        r.expect_error(400, "validation_error")
            .contains("1 to 1000")
    );
    let basic = server.new_key("W1AW", "basic");
    let r = basic.post(
        "/v1/confirmations",
        json!({"service": "lotw", "items": [item]}),
    );
    r.expect_error(403, "tier_insufficient");
}

/// A real report, as LoTW wrote it in 2013 (tests/data/lotw/SOURCES.md), confirms the
/// contacts of it that are in the log.
fn a_real_report_confirms_what_is_in_the_log() {
    let server = crate::common::Server::start();
    let api = server.account("2E0SQL", "elevated");
    let cli = Cli::with_key(&server, &api);
    let fake = FakeLotw::start("2e0sql", PASSWORD);
    prepare(&cli, &fake);
    let report = std::fs::read("tests/data/lotw/lotwreport_Cloudlog.adi").unwrap();
    fake.serve_file(report);
    let january = api.monthly("2012-01", None);
    let march = api.monthly("2012-03", None);
    let g7vjr = log(
        &api,
        &january,
        "G7VJR",
        3.525,
        "CW",
        "2012-01-08T14:52:06Z",
        json!({}),
    );
    // USB in the log, SSB at LoTW, two minutes apart.
    let ly7a = log(
        &api,
        &march,
        "LY7A",
        14.200,
        "USB",
        "2012-03-17T16:09:00Z",
        json!({}),
    );
    cli.run_stdin(
        &["lotw", "connect", "--user", "2e0sql", "--password-stdin"],
        PASSWORD,
    )
    .ok();
    let sync = cli.run(&["lotw", "sync", "--json"]).ok().json();
    assert_eq!(sync["read"], 1993, "every record of it");
    assert_eq!(sync["confirmed"], 2, "{}", sync["confirmed"]);
    assert_eq!(sync["unmatched"].as_array().unwrap().len(), 1991);
    assert_eq!(sync["skipped"], json!([]));
    assert_eq!(sync["lastQsl"], "2013-02-14 19:40:58");
    let c = contact(&api, &january, &g7vjr);
    assert_eq!(
        (
            &c["lotwQslRcvd"],
            &c["lotwQslRdate"],
            &c["gridsquare"],
            &c["dxcc"]
        ),
        (
            &json!("Y"),
            &json!("2013-02-14"),
            &json!("JO02af"),
            &json!(223)
        ),
        "{c}"
    );
    let c = contact(&api, &march, &ly7a);
    assert_eq!(
        (&c["lotwQslRcvd"], &c["cqz"]),
        (&json!("Y"), &json!(15)),
        "{c}"
    );
}

/// Real reports that came cut short or miscounted (tests/data/adif/corpus/SOURCES.md) are
/// refused whole.
#[test]
fn real_reports_cut_short_or_miscounted_are_refused() {
    use svc::client::lotw::{LotwError, report};
    let corpus = "tests/data/adif/corpus";
    let cut = std::fs::read(format!("{corpus}/lotw_2013_Cloudlog.adi")).unwrap();
    assert!(matches!(report::read(&cut), Err(LotwError::Incomplete(_))));
    let short = std::fs::read(format!("{corpus}/lotw_ham-js-libs.adi")).unwrap();
    assert!(matches!(
        report::read(&short),
        Err(LotwError::Incomplete(_))
    ));
    let whole = std::fs::read("tests/data/lotw/lotwreport_Cloudlog.adi").unwrap();
    let read = report::read(&whole).unwrap();
    assert_eq!(read.confirmations.len(), 1993);
    assert!(
        read.confirmations
            .iter()
            .all(|c| c.station_callsign == "2E0SQL")
    );
}

both_backends!(
    a_real_report_confirms_what_is_in_the_log,
    sync_confirms_the_contacts_lotw_matches,
    the_service_refuses_a_bad_confirmation_and_a_basic_key
);
