//! `svc lotw`: the LoTW stand-in (tests/common/lotw.rs) in place of ARRL's report, the real
//! service on each backend, and the real CLI: the login checked before it is kept, the
//! confirmations matched as LoTW matches QSOs and written into the contacts, only what is
//! new asked for the next time, and a report cut short or miscounted changing nothing.

use serde_json::{Value, json};

use super::{Cli, closed_port, setup};
use crate::both_backends;
use crate::common::Api;
use crate::common::lotw::{FakeLotw, Qsl, Received};

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
    // Confirmed is received too; nothing was uploaded through svc, so nothing waits.
    assert_eq!(
        status["services"][0],
        json!({"service": "lotw", "sent": 3, "received": 3, "waiting": 0, "confirmed": 3,
               "ignored": 0, "unsent": 1, "lastUploadFailedAt": null, "lastUploadError": null,
               "lastUploadNotSent": null})
    );
    assert!(
        status["services"][1].get("received").is_none(),
        "only LoTW says what it received: {status}"
    );
    assert_eq!(status["services"][2]["service"], "card");
    assert_eq!(status["services"][2]["unsent"], 4);
    let text = cli.run(&["confirmations", "status"]).ok().stdout.clone();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "4 contacts", "{text}");
    assert!(lines[1].starts_with("SERVICE"), "{text}");
    let lotw: Vec<&str> = lines[2].split_whitespace().collect();
    assert_eq!(lotw, ["LoTW", "3", "3", "3", "1", "0"], "{text}");
    let eqsl: Vec<&str> = lines[3].split_whitespace().collect();
    assert_eq!(eqsl, ["eQSL", "0", "-", "0", "4", "0"], "{text}");
    assert!(!text.contains("not yet received"), "{text}");
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
        json!({"confirmed": 0, "received": 0, "already": 0, "unmatched": 1,
               "items": [{"state": "unmatched"}]})
    );
    // An item LoTW only received has receivedOn instead of confirmedOn: one of the two.
    let mut received = item.clone();
    received.as_object_mut().unwrap().remove("confirmedOn");
    received["receivedOn"] = json!("2026-11-02");
    let ok = api.post(
        "/v1/confirmations",
        json!({"service": "lotw", "items": [received.clone()]}),
    );
    assert_eq!(ok.status, 200, "{}", ok.body);
    let mut neither = received.clone();
    neither.as_object_mut().unwrap().remove("receivedOn");
    let mut both = received.clone();
    both["confirmedOn"] = json!("2026-11-03");
    let mut late = received.clone();
    late["receivedOn"] = json!("2026-11-31");
    let mut unknown = received.clone();
    unknown["qslRcvd"] = json!("N");
    for (bad, words) in [
        (neither, "items[1] has neither confirmedOn nor receivedOn"),
        (both, "items[1] has both confirmedOn and receivedOn"),
        (late, "items[1].receivedOn \"2026-11-31\" is not a date"),
        (unknown, "qslRcvd"),
    ] {
        let r = api.post(
            "/v1/confirmations",
            json!({"service": "lotw", "items": [received.clone(), bad]}),
        );
        let message = r.expect_error(400, "validation_error");
        assert!(message.contains(words), "{message}");
    }
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
    // As text, a long list is cut after 20 lines.
    let text = cli.run(&["lotw", "sync", "--all"]).ok().stdout.clone();
    assert_eq!(text.lines().count(), 1 + 20 + 1, "{text}");
    assert!(
        text.ends_with("  … and 1971 more (--json lists them all)\n"),
        "{text}"
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

/// A stand-in `tqsl`, first on PATH: it keeps its arguments, its environment and a copy of
/// the file it was given, says on stderr what `say` holds and exits with the code `exit` holds (both files
/// of its folder, so that a test changes them between runs).
struct FakeTqsl {
    dir: tempfile::TempDir,
}

impl FakeTqsl {
    fn install(cli: &Cli) -> FakeTqsl {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        let script = format!(
            "#!/bin/sh\n\
             n=$(ls {d}/runs 2>/dev/null | wc -l)\n\
             mkdir -p {d}/runs/$n\n\
             for a in \"$@\"; do printf '%s\\n' \"$a\" >> {d}/runs/$n/args; last=\"$a\"; done\n\
             cp \"$last\" {d}/runs/$n/file\n\
             env > {d}/runs/$n/env\n\
             cat {d}/say >&2\n\
             exit $(cat {d}/exit)\n"
        );
        let program = dir.path().join("tqsl");
        std::fs::write(&program, script).unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let fake = FakeTqsl { dir };
        fake.answer(0, "Final Status: Success(0)\n");
        cli.set_env(
            "PATH",
            &format!("{}:/usr/bin:/bin", fake.dir.path().display()),
        );
        fake
    }

    /// The next runs exit `code` after saying `say`.
    fn answer(&self, code: i32, say: &str) {
        std::fs::write(self.dir.path().join("exit"), code.to_string()).unwrap();
        std::fs::write(self.dir.path().join("say"), say).unwrap();
    }

    fn runs(&self) -> usize {
        std::fs::read_dir(self.dir.path().join("runs")).map_or(0, |d| d.count())
    }

    /// The last run's arguments and the ADIF file it was given.
    fn last(&self) -> (Vec<String>, String) {
        let run = self
            .dir
            .path()
            .join("runs")
            .join((self.runs() - 1).to_string());
        let args = std::fs::read_to_string(run.join("args")).unwrap();
        (
            args.lines().map(str::to_owned).collect(),
            std::fs::read_to_string(run.join("file")).unwrap(),
        )
    }
}

/// TQSL's station locations, as TQSL keeps them in ~/.tqsl/station_data.
fn station_locations(cli: &Cli, names: &[&str]) {
    let dir = cli.home.path().join(".tqsl");
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<StationDataFile>\n");
    for name in names {
        text.push_str(&format!(
            "  <StationData name=\"{name}\">\n    <CALL>W1AW</CALL>\n    <DXCC>291</DXCC>\n    <GRIDSQUARE>FN31</GRIDSQUARE>\n  </StationData>\n"
        ));
    }
    text.push_str("</StationDataFile>\n");
    std::fs::write(dir.join("station_data"), text).unwrap();
}

/// The records of an ADI file, each its fields by upper-case name, read here by the ADIF
/// specification's `<NAME:LENGTH>` rule (not with svc's reader): what follows `<EOH>`, split
/// at `<EOR>`.
fn adi_records(text: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let lower = text.to_ascii_lowercase();
    let body = &text[lower.find("<eoh>").expect("an ADI header") + 5..];
    let mut records = Vec::new();
    let mut record = std::collections::BTreeMap::new();
    let mut rest = body;
    while let Some(open) = rest.find('<') {
        let close = open + rest[open..].find('>').unwrap();
        let tag = &rest[open + 1..close];
        if tag.eq_ignore_ascii_case("eor") {
            records.push(std::mem::take(&mut record));
            rest = &rest[close + 1..];
            continue;
        }
        let mut parts = tag.split(':');
        let name = parts.next().unwrap().to_ascii_uppercase();
        let len: usize = parts.next().unwrap().parse().unwrap();
        let value = &rest[close + 1..close + 1 + len];
        record.insert(name, value.to_owned());
        rest = &rest[close + 1 + len..];
    }
    assert!(record.is_empty(), "a record without <EOR>: {record:?}");
    records
}

fn today() -> String {
    svc::model::Timestamp::now().utc_date().to_string()
}

fn upload_sends_only_what_lotw_lacks_and_marks_it_sent() {
    let (_server, api, cli) = setup("elevated");
    let tqsl = FakeTqsl::install(&cli);
    let folder = api.monthly("2026-11", None);
    let ft8 = log(
        &api,
        &folder,
        "K1ABC",
        14.074,
        "FT8",
        "2026-11-01T12:00:30Z",
        json!({"name": "Bob", "myGridsquare": "FN42"}),
    );
    let usb = log(
        &api,
        &folder,
        "DL1AB",
        14.250,
        "USB",
        "2026-11-01T13:48:00Z",
        json!({}),
    );
    let sat = log(
        &api,
        &folder,
        "G4XYZ",
        145.900,
        "FM",
        "2026-11-02T09:15:00Z",
        json!({"propMode": "SAT", "satName": "AO-91", "bandRx": "70cm", "freqRx": 435.250}),
    );
    // Never to LoTW, and already there by another way: neither goes.
    let ignored = log(
        &api,
        &folder,
        "JA1ZZZ",
        14.074,
        "FT8",
        "2026-11-03T10:00:00Z",
        json!({"lotwQslSent": "I"}),
    );
    let elsewhere = log(
        &api,
        &folder,
        "VK2AA",
        14.074,
        "FT8",
        "2026-11-03T11:00:00Z",
        json!({"lotwQslSent": "Y"}),
    );

    // Without a station location named, and TQSL holding none or several: say to name one.
    let message = cli
        .run(&["lotw", "upload"])
        .fails(2, "lotw upload", "validation_error");
    assert!(message.contains("--station-location"), "{message}");
    station_locations(&cli, &["Home", "Portable"]);
    let message = cli
        .run(&["lotw", "upload"])
        .fails(2, "lotw upload", "validation_error");
    assert!(message.contains("Home, Portable"), "{message}");
    assert_eq!(tqsl.runs(), 0, "TQSL was not run");
    // TQSL's only station location is the default.
    station_locations(&cli, &["Home"]);

    let first = cli.run(&["lotw", "upload", "--json"]).ok().json();
    assert_eq!(
        first,
        json!({"service": "lotw", "stationLocation": "Home", "uploaded": 3, "tqslStatus": 0,
               "marked": 3, "already": 0, "missing": 0})
    );
    let (args, file) = tqsl.last();
    let env = std::fs::read_to_string(tqsl.dir.path().join("runs/0/env")).unwrap();
    assert!(!env.contains("SVC_API_KEY"), "TQSL is not given svc's key");
    assert_eq!(
        args[..7],
        ["-q", "-d", "-u", "-a", "compliant", "-l", "Home"],
        "{args:?}"
    );
    let records = adi_records(&file);
    let calls: Vec<&str> = records.iter().map(|r| r["CALL"].as_str()).collect();
    assert_eq!(calls, ["K1ABC", "DL1AB", "G4XYZ"], "oldest first: {file}");
    let r = &records[0];
    assert_eq!(
        (
            r["QSO_DATE"].as_str(),
            r["TIME_ON"].as_str(),
            r["BAND"].as_str(),
            r["MODE"].as_str()
        ),
        ("20261101", "120030", "20m", "FT8")
    );
    assert_eq!(r["STATION_CALLSIGN"], "W1AW");
    assert!(
        !r.contains_key("NAME") && !r.contains_key("MY_GRIDSQUARE"),
        "only what TQSL signs; the station is TQSL's: {r:?}"
    );
    assert_eq!(
        (records[1]["MODE"].as_str(), records[1]["SUBMODE"].as_str()),
        ("SSB", "USB")
    );
    let s = &records[2];
    assert_eq!(
        (
            s["PROP_MODE"].as_str(),
            s["SAT_NAME"].as_str(),
            s["BAND"].as_str(),
            s["BAND_RX"].as_str()
        ),
        ("SAT", "AO-91", "2m", "70cm")
    );
    for id in [&ft8, &usb, &sat] {
        let c = contact(&api, &folder, id);
        assert_eq!(c["lotwQslSent"], "Y", "{c}");
        assert_eq!(c["lotwQslSdate"], today(), "{c}");
        assert!(c["adif"]["APP_SVC_LOTW_SENT"].is_string(), "{c}");
    }
    assert_eq!(contact(&api, &folder, &ignored)["lotwQslSent"], "I");
    assert!(contact(&api, &folder, &elsewhere).get("adif").is_none());

    // Nothing unchanged is sent again: TQSL is not even run.
    let again = cli.run(&["lotw", "upload"]);
    assert_eq!(
        again.ok().stdout,
        "LoTW: nothing to upload; every contact is at LoTW\n"
    );
    assert_eq!(tqsl.runs(), 1);

    // An edit of what TQSL signs sends the contact again; one of anything else does not.
    let edit = |id: &str, body: Value| {
        let r = api.raw(
            "PATCH",
            &format!("/v1/contacts/{id}"),
            body.to_string().into_bytes(),
            &[("Content-Type", "application/json")],
        );
        assert_eq!(r.status, 200, "{}", r.body);
    };
    edit(&ft8, json!({"timeOn": "2026-11-01T12:01:30Z"}));
    edit(&usb, json!({"name": "Hans", "comment": "tnx"}));
    let text = cli.run(&["lotw", "upload", "--station-location", "Home"]);
    assert_eq!(
        text.ok().stdout,
        "LoTW: 1 contacts uploaded through TQSL (station location Home), 1 marked sent\n"
    );
    let records = adi_records(&tqsl.last().1);
    assert_eq!(records.len(), 1);
    assert_eq!(
        (records[0]["CALL"].as_str(), records[0]["TIME_ON"].as_str()),
        ("K1ABC", "120130")
    );
}

fn upload_marks_nothing_when_tqsl_fails() {
    let (server, api, cli) = setup("elevated");
    let tqsl = FakeTqsl::install(&cli);
    station_locations(&cli, &["Home"]);
    let folder = api.monthly("2026-11", None);
    let id = log(
        &api,
        &folder,
        "K1ABC",
        14.074,
        "FT8",
        "2026-11-01T12:00:30Z",
        json!({}),
    );
    let unsent = || contact(&api, &folder, &id).get("lotwQslSent").is_none();
    for (code, exit, words) in [
        (1, 1, "cancelled"),
        (2, 1, "rejected by LoTW"),
        (3, 7, "unexpected response"),
        (4, 1, "TQSL error"),
        (5, 1, "TQSL library error"),
        (6, 1, "unable to open the input file"),
        (7, 1, "unable to open the output file"),
        (10, 2, "command syntax error"),
        (11, 7, "LoTW connection error"),
        (42, 1, "not one of TQSL's exit codes"),
    ] {
        tqsl.answer(code, &format!("Final Status: Whatever({code})\n"));
        let message = cli
            .run(&["lotw", "upload"])
            .fails(exit, "lotw upload", "tqsl_failed");
        assert!(
            message.contains(&format!("exit code {code}, {words}")),
            "{code}: {message}"
        );
        assert!(message.contains("nothing was marked sent"), "{message}");
        assert!(unsent(), "{code} marked nothing");
    }
    // A success TQSL's own words deny: LoTW not reached, or no certificate to sign with.
    tqsl.answer(0, "Final Status: LoTW Connection Failed(11)\n");
    let message = cli
        .run(&["lotw", "upload"])
        .fails(7, "lotw upload", "tqsl_failed");
    assert!(message.contains("exit code 11"), "{message}");
    tqsl.answer(
        8,
        "There are no valid callsign certificates for callsign W1AW in entity UNITED STATES OF AMERICA.\nSigning aborted.\nNo records to upload\nFinal Status: No QSOs written(8)\n",
    );
    let message = cli
        .run(&["lotw", "upload"])
        .fails(1, "lotw upload", "tqsl_failed");
    assert!(message.contains("signing aborted"), "{message}");
    assert!(
        message.contains("no valid callsign certificates"),
        "TQSL's words are quoted: {message}"
    );
    assert!(unsent());
    let runs = tqsl.runs();

    // The last failure, with why, is where the log's state is shown.
    let status = cli.run(&["confirmations", "status", "--json"]).ok().json();
    let lotw = &status["services"][0];
    assert_eq!(lotw["service"], "lotw");
    let error = lotw["lastUploadError"].as_str().unwrap();
    assert!(
        error.contains("TQSL exited 8") && error.contains("signing aborted"),
        "{status}"
    );
    assert_eq!(lotw["lastUploadNotSent"], 1, "{status}");
    let at = lotw["lastUploadFailedAt"].as_str().unwrap();
    assert!(at.starts_with(&today()) && at.ends_with('Z'), "{at}");
    let text = cli.run(&["confirmations", "status"]).ok().stdout.clone();
    let line = text
        .lines()
        .find(|l| l.starts_with("LoTW: last upload failed "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains(" UTC: TQSL exited 8") && line.ends_with("(1 contacts not sent)"),
        "{line}"
    );

    // 8 (every QSO was at LoTW already) and 9 (some were): LoTW has them all.
    tqsl.answer(
        8,
        "No records to upload\nFinal Status: No QSOs written(8)\n",
    );
    let done = cli.run(&["lotw", "upload", "--json"]).ok().json();
    assert_eq!(
        (done["tqslStatus"].clone(), done["marked"].clone()),
        (json!(8), json!(1)),
        "{done}"
    );
    assert!(!unsent());
    // An upload that went through clears the failure.
    let status = cli.run(&["confirmations", "status", "--json"]).ok().json();
    assert_eq!(status["services"][0]["lastUploadError"], json!(null));
    let text = cli.run(&["confirmations", "status"]).ok().stdout.clone();
    assert!(!text.contains("last upload failed"), "{text}");
    let other = log(
        &api,
        &folder,
        "DL1AB",
        14.074,
        "FT8",
        "2026-11-01T13:00:00Z",
        json!({}),
    );
    tqsl.answer(9, "Final Status: Some QSOs suppressed(9)\n");
    let text = cli.run(&["lotw", "upload"]);
    assert!(
        text.ok().stdout.contains("some QSOs were already uploaded"),
        "{text:?}"
    );
    assert_eq!(contact(&api, &folder, &other)["lotwQslSent"], "Y");
    assert_eq!(tqsl.runs(), runs + 2);

    // A basic key cannot mark them sent: found out before TQSL uploads anything.
    let basic = Cli::with_key(&server, &server.new_key("W1AW", "basic"));
    basic.set_env(
        "PATH",
        &format!("{}:/usr/bin:/bin", tqsl.dir.path().display()),
    );
    station_locations(&basic, &["Home"]);
    log(
        &api,
        &folder,
        "G4XYZ",
        14.074,
        "FT8",
        "2026-11-01T14:00:00Z",
        json!({}),
    );
    let message = basic
        .run(&["lotw", "upload"])
        .fails(5, "lotw upload", "tier_insufficient");
    assert!(message.contains("nothing was uploaded"), "{message}");
    assert_eq!(tqsl.runs(), runs + 2, "TQSL was not run");

    // Without TQSL: how to get it, and nothing asked of anyone.
    let empty = tempfile::tempdir().unwrap();
    cli.set_env("PATH", &empty.path().display().to_string());
    let message = cli
        .run(&["lotw", "upload"])
        .fails(1, "lotw upload", "tqsl_missing");
    assert!(message.contains("apt install trustedqsl"), "{message}");
    assert!(
        message.contains("https://www.arrl.org/tqsl-download"),
        "{message}"
    );
}

fn the_service_marks_contacts_sent_once() {
    let (server, api, _cli) = setup("elevated");
    let folder = api.monthly("2026-11", None);
    let id = log(
        &api,
        &folder,
        "K1ABC",
        14.074,
        "FT8",
        "2026-11-01T12:00:30Z",
        json!({}),
    );
    let item = json!({"qsoId": id, "sentOn": "2026-11-02", "fingerprint": "0123456789abcdef"});
    let gone = json!({"qsoId": "qso_aaaaaaaaaaaaaaaa", "sentOn": "2026-11-02", "fingerprint": "0123456789abcdef"});
    let body = json!({"service": "lotw", "items": [item.clone(), gone]});
    let r = api.post("/v1/confirmations/sent", body.clone());
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.body,
        json!({"sent": 1, "already": 0, "missing": 1, "items": [
            {"state": "sent", "qsoId": id}, {"state": "missing", "qsoId": "qso_aaaaaaaaaaaaaaaa"}]})
    );
    let c = contact(&api, &folder, &id);
    assert_eq!(
        (
            &c["lotwQslSent"],
            &c["lotwQslSdate"],
            &c["adif"]["APP_SVC_LOTW_SENT"]
        ),
        (
            &json!("Y"),
            &json!("2026-11-02"),
            &json!("0123456789abcdef")
        )
    );
    let r = api.post("/v1/confirmations/sent", body);
    assert_eq!(r.body["already"], 1, "{}", r.body);

    let mut bad = item.clone();
    bad["fingerprint"] = json!("xyz");
    let r = api.post(
        "/v1/confirmations/sent",
        json!({"service": "lotw", "items": [item.clone(), bad]}),
    );
    assert!(
        r.expect_error(400, "validation_error")
            .contains("items[1].fingerprint")
    );
    let r = api.post(
        "/v1/confirmations/sent",
        json!({"service": "lotw", "items": []}),
    );
    assert!(
        r.expect_error(400, "validation_error")
            .contains("1 to 1000")
    );
    let r = api.post(
        "/v1/confirmations/sent",
        json!({"service": "lotw", "items": [item], "more": 1}),
    );
    assert!(r.expect_error(400, "validation_error").contains("more"));
    let basic = server.new_key("W1AW", "basic");
    let r = basic.post(
        "/v1/confirmations/sent",
        json!({"service": "lotw", "items": [{"qsoId": id, "sentOn": "2026-11-02", "fingerprint": "0123456789abcdef"}]}),
    );
    r.expect_error(403, "tier_insufficient");
}

/// Debian's real `tqsl` (trustedqsl), with no certificate: it needs a display even in batch
/// mode, so it gets GTK's Broadway backend (`broadwayd` of libgtk-3-bin, on a Unix socket in
/// the test's own folder: no X server, no TCP port), and proxies that go nowhere in case it
/// reached out. Where either is missing the test says so and passes, unless
/// SVC_TEST_REQUIRE_TQSL=1 (as CI sets it).
struct Broadway {
    child: std::process::Child,
}

impl Broadway {
    fn start(cli: &Cli) -> Option<Broadway> {
        for (program, package) in [
            ("/usr/bin/tqsl", "trustedqsl"),
            ("/usr/bin/broadwayd", "libgtk-3-bin"),
        ] {
            if !std::path::Path::new(program).is_file() {
                let why = format!("{program} is not installed (Debian's {package})");
                if std::env::var("SVC_TEST_REQUIRE_TQSL").is_ok_and(|v| v == "1") {
                    panic!("{why}, and SVC_TEST_REQUIRE_TQSL=1 requires it");
                }
                eprintln!("SKIPPED: {why}; svc lotw upload is not tried with the real TQSL");
                return None;
            }
        }
        let run = cli.home.path().join("run");
        std::fs::create_dir_all(&run).unwrap();
        let mut child = std::process::Command::new("/usr/bin/broadwayd")
            .arg("--unixsocket")
            .arg(run.join("http.sock"))
            .arg(":5")
            .env("XDG_RUNTIME_DIR", &run)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // It says "Listening on …" once display :5 takes clients (an abstract socket, named
        // after XDG_RUNTIME_DIR, so no file to wait for).
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        assert!(line.starts_with("Listening on"), "broadwayd said {line:?}");
        cli.set_env("XDG_RUNTIME_DIR", &run.display().to_string());
        cli.set_env("GDK_BACKEND", "broadway");
        cli.set_env("BROADWAY_DISPLAY", ":5");
        cli.set_env("PATH", "/usr/bin:/bin");
        for proxy in ["http_proxy", "https_proxy", "HTTPS_PROXY", "ALL_PROXY"] {
            cli.set_env(proxy, "http://127.0.0.1:9");
        }
        // svc's own client honours them too: the service is on loopback.
        for none in ["no_proxy", "NO_PROXY"] {
            cli.set_env(none, "127.0.0.1,localhost");
        }
        Some(Broadway { child })
    }
}

impl Drop for Broadway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn the_real_tqsl_uploads_nothing_without_a_location_or_certificate() {
    let (_server, api, cli) = setup("elevated");
    let Some(_display) = Broadway::start(&cli) else {
        return;
    };
    let folder = api.monthly("2026-11", None);
    let id = log(
        &api,
        &folder,
        "K1ABC",
        14.074,
        "FT8",
        "2026-11-01T12:00:30Z",
        json!({}),
    );
    // A station location TQSL does not have: its command syntax error, 10.
    let message = cli
        .run(&["lotw", "upload", "--station-location", "Nowhere"])
        .fails(2, "lotw upload", "tqsl_failed");
    assert!(message.contains("exit code 10"), "{message}");
    assert!(
        message.contains("station location could not be found"),
        "{message}"
    );
    // One it has, with no certificate for its callsign: TQSL aborts the signing and exits 8,
    // as for an upload of QSOs all at LoTW already; its words tell the two apart.
    station_locations(&cli, &["Home"]);
    let message = cli
        .run(&["lotw", "upload"])
        .fails(1, "lotw upload", "tqsl_failed");
    assert!(message.contains("TQSL exited 8"), "{message}");
    assert!(message.contains("signing aborted"), "{message}");
    assert!(contact(&api, &folder, &id).get("lotwQslSent").is_none());
}

fn received(call: &'static str, time: &'static str, rx: &str, matched: Option<&str>) -> Received {
    Received {
        owncall: "W1AW",
        call,
        band: "20M",
        mode: "FT8",
        date: "20261101",
        time,
        rx: rx.to_owned(),
        matched: matched.map(str::to_owned),
    }
}

fn sync_marks_what_lotw_received_of_an_upload() {
    let (_server, api, cli) = setup("elevated");
    let fake = FakeLotw::start("W1AW", PASSWORD);
    prepare(&cli, &fake);
    let tqsl = FakeTqsl::install(&cli);
    station_locations(&cli, &["Home"]);
    let folder = api.monthly("2026-11", None);
    let at = |time: &str| format!("2026-11-01T{time}Z");
    let k1abc = log(
        &api,
        &folder,
        "K1ABC",
        14.074,
        "FT8",
        &at("12:00:30"),
        json!({}),
    );
    let dl1ab = log(
        &api,
        &folder,
        "DL1AB",
        14.074,
        "FT8",
        &at("13:00:00"),
        json!({}),
    );
    let g4xyz = log(
        &api,
        &folder,
        "G4XYZ",
        14.074,
        "FT8",
        &at("14:00:00"),
        json!({}),
    );
    cli.run_stdin(
        &["lotw", "connect", "--user", "W1AW", "--password-stdin"],
        PASSWORD,
    )
    .ok();

    // Before svc uploaded anything there is nothing LoTW received to ask for.
    let run = cli.run(&["lotw", "sync", "--json", "--verbose"]);
    assert!(
        run.stderr.contains("not asking LoTW what it received"),
        "{run:?}"
    );
    assert_eq!(run.ok().json()["received"], json!(null));
    assert!(fake.seen().iter().all(|q| q["qso_qsl"] == "yes"));

    let uploaded = cli.run(&["lotw", "upload", "--json"]).ok().json();
    assert_eq!(uploaded["uploaded"], 3, "{uploaded}");
    assert_eq!(tqsl.runs(), 1);
    let lotw_status = || {
        let status = cli.run(&["confirmations", "status", "--json"]).ok().json();
        let s = &status["services"][0];
        (
            s["sent"].clone(),
            s["received"].clone(),
            s["waiting"].clone(),
            s["confirmed"].clone(),
        )
    };
    assert_eq!(lotw_status(), (json!(3), json!(0), json!(3), json!(0)));

    // LoTW received two: one waits for the other station, one is confirmed already.
    let day = today();
    fake.receive(received(
        "K1ABC",
        "120030",
        &format!("{day} 10:00:00"),
        None,
    ));
    fake.receive(received(
        "DL1AB",
        "130000",
        &format!("{day} 10:05:00"),
        Some(&format!("{day} 11:00:00")),
    ));
    let rcvd = |id: &str| contact(&api, &folder, id)["adif"]["APP_SVC_LOTW_RCVD"].clone();

    // A report of what LoTW received cut short changes nothing, the confirmations' neither.
    fake.cut_next_received();
    let message = cli
        .run(&["lotw", "sync"])
        .fails(7, "lotw sync", "lotw_incomplete");
    assert!(message.contains("<APP_LoTW_EOF>"), "{message}");
    let asked = fake.seen().last().unwrap().clone();
    assert_eq!(
        (asked["qso_qsl"].as_str(), asked["qso_qsorxsince"].as_str()),
        ("no", day.as_str()),
        "from the day of the first upload: {asked:?}"
    );
    assert_eq!(rcvd(&k1abc), json!(null));
    assert!(contact(&api, &folder, &dl1ab).get("lotwQslRcvd").is_none());
    assert_eq!(lotw_status(), (json!(3), json!(0), json!(3), json!(0)));

    let sync = cli.run(&["lotw", "sync", "--json"]).ok().json();
    let r = &sync["received"];
    assert_eq!(
        (&r["read"], &r["received"], &r["confirmed"], &r["already"]),
        (&json!(2), &json!(1), &json!(1), &json!(0)),
        "{sync}"
    );
    assert_eq!(r["since"], day.as_str());
    assert_eq!(r["lastQsoRx"], format!("{day} 10:05:00"));
    assert_eq!(rcvd(&k1abc), json!(day));
    let k = contact(&api, &folder, &k1abc);
    assert_eq!(k["lotwQslSent"], "Y");
    assert!(
        k.get("lotwQslRcvd").is_none(),
        "received is not confirmed: {k}"
    );
    let d = contact(&api, &folder, &dl1ab);
    assert_eq!(
        (&d["lotwQslRcvd"], &d["lotwQslRdate"]),
        (&json!("Y"), &json!(day))
    );
    assert_eq!(rcvd(&g4xyz), json!(null));
    assert_eq!(lotw_status(), (json!(3), json!(2), json!(1), json!(1)));
    let text = cli.run(&["confirmations", "status"]).ok().stdout.clone();
    assert!(
        text.contains("LoTW: 1 uploaded and not yet received by LoTW"),
        "{text}"
    );

    // The mark moved with the whole report: the next sync asks from its last receipt.
    fake.receive(received(
        "G4XYZ",
        "140000",
        &format!("{day} 12:00:00"),
        None,
    ));
    let text = cli.run(&["lotw", "sync"]).ok().stdout.clone();
    assert_eq!(
        fake.seen().last().unwrap()["qso_qsorxsince"],
        format!("{day} 10:05:00")
    );
    assert!(
        text.contains(
            "LoTW: 2 QSOs it received read, 1 newly received, 0 newly confirmed, 1 already, 0 match no contact\n"
        ),
        "{text}"
    );
    assert_eq!(rcvd(&g4xyz), json!(day));
    assert_eq!(lotw_status(), (json!(3), json!(3), json!(0), json!(1)));

    // An edit of what TQSL signs, uploaded again, waits for LoTW to receive it again.
    let r = api.raw(
        "PATCH",
        &format!("/v1/contacts/{k1abc}"),
        json!({"timeOn": at("12:01:30")}).to_string().into_bytes(),
        &[("Content-Type", "application/json")],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    cli.run(&["lotw", "upload"]).ok();
    assert_eq!(rcvd(&k1abc), json!(null));
    assert_eq!(lotw_status(), (json!(3), json!(2), json!(1), json!(1)));
}

both_backends!(
    sync_marks_what_lotw_received_of_an_upload,
    a_real_report_confirms_what_is_in_the_log,
    sync_confirms_the_contacts_lotw_matches,
    the_service_refuses_a_bad_confirmation_and_a_basic_key,
    upload_sends_only_what_lotw_lacks_and_marks_it_sent,
    upload_marks_nothing_when_tqsl_fails,
    the_service_marks_contacts_sent_once,
    the_real_tqsl_uploads_nothing_without_a_location_or_certificate
);
