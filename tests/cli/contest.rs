//! `svc contest start|list|show|end|contests` and `svc export cabrillo`: each Cabrillo file svc
//! writes is read back by PyPI's `cabrillo`, a parser svc has no part in, checked against the
//! specification's header rules, and compared QSO by QSO with the log.

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::{Value, json};

use super::{Cli, setup};
use crate::common::Api;

/// Reads a Cabrillo file with PyPI's `cabrillo`, categories checked against the
/// specification's lists, and prints what it read as JSON.
const READ: &str = r#"
import json, sys
from cabrillo.parser import parse_log_file
log = parse_log_file(sys.argv[1], check_categories=True)
fields = ["callsign", "contest", "claimed_score", "operators", "name", "email", "address",
          "club", "location", "grid_locator", "soapbox", "created_by", "category_operator", "category_assisted",
          "category_band", "category_mode", "category_power", "category_station",
          "category_transmitter"]
out = {f: getattr(log, f) for f in fields}
out["qsos"] = [{"freq": q.freq, "mo": q.mo, "date": q.date.strftime("%Y-%m-%d %H%M"),
                "de_call": q.de_call, "de_exch": q.de_exch, "dx_call": q.dx_call,
                "dx_exch": q.dx_exch, "t": q.t} for q in log.qso]
print(json.dumps(out))
"#;

/// The file as `cabrillo` reads it; `None` where the package is not there (and not required).
fn read_by_cabrillo(path: &std::path::Path) -> Option<Value> {
    let python = crate::common::python::with(crate::common::python::CABRILLO, "the Cabrillo test")?;
    let run = Command::new(&python)
        .args(["-c", READ, path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "cabrillo refused the file: {}\n{}",
        String::from_utf8_lossy(&run.stderr),
        std::fs::read_to_string(path).unwrap()
    );
    Some(serde_json::from_slice(&run.stdout).unwrap())
}

/// The header rules of Cabrillo 3.0 a reader relies on: START-OF-LOG: 3.0 first and
/// END-OF-LOG last, every line `TAG: value` ending in CR LF, the tags the specification names,
/// CONTEST and CALLSIGN once, QSO lines after the header and in time order.
fn check_rules(text: &str) {
    const TAGS: &[&str] = &[
        "START-OF-LOG",
        "CALLSIGN",
        "CONTEST",
        "CATEGORY-OPERATOR",
        "CATEGORY-ASSISTED",
        "CATEGORY-BAND",
        "CATEGORY-MODE",
        "CATEGORY-POWER",
        "CATEGORY-STATION",
        "CATEGORY-TRANSMITTER",
        "CATEGORY-OVERLAY",
        "CATEGORY-TIME",
        "CLAIMED-SCORE",
        "OPERATORS",
        "NAME",
        "EMAIL",
        "ADDRESS",
        "CLUB",
        "LOCATION",
        "GRID-LOCATOR",
        "SOAPBOX",
        "CREATED-BY",
        "QSO",
        "END-OF-LOG",
    ];
    assert!(text.ends_with("END-OF-LOG:\r\n"), "{text}");
    let lines: Vec<&str> = text.split_terminator("\r\n").collect();
    assert_eq!(lines[0], "START-OF-LOG: 3.0");
    assert!(
        !text.replace("\r\n", "").contains('\n'),
        "a bare LF: {text:?}"
    );
    let mut seen_qso = false;
    let mut last_time = String::new();
    for line in &lines {
        let (tag, value) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("no tag: {line}"));
        assert!(TAGS.contains(&tag), "{tag} is no Cabrillo 3.0 tag");
        if tag == "QSO" {
            seen_qso = true;
            let words: Vec<&str> = value.split_whitespace().collect();
            let time = format!("{} {}", words[2], words[3]);
            assert!(time >= last_time, "out of order: {line}");
            last_time = time;
            // HF in whole kHz; from 6 m up the band's designator.
            assert!(
                words[0].parse::<u32>().is_ok() || words[0].ends_with('G'),
                "{line}"
            );
            assert!(["CW", "PH", "FM", "RY", "DG"].contains(&words[1]), "{line}");
        } else {
            assert!(
                !seen_qso || tag == "END-OF-LOG",
                "{tag} after the QSO lines"
            );
        }
    }
    for once in ["CONTEST", "CALLSIGN", "CLAIMED-SCORE"] {
        let n = lines
            .iter()
            .filter(|l| l.starts_with(&format!("{once}:")))
            .count();
        assert_eq!(n, 1, "{once}");
    }
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

/// Exports `folder` with `flags`, checks the file, and gives what `cabrillo` read (or
/// `None` without it) and the text.
fn export(cli: &Cli, folder: &str, flags: &[&str]) -> (Option<Value>, String) {
    let path = cli.home.path().join(format!("{folder}.log"));
    let mut args = vec![
        "export",
        "cabrillo",
        folder,
        "--out",
        path.to_str().unwrap(),
        "--json",
    ];
    args.extend(flags);
    let run = cli.run(&args);
    run.ok();
    let text = std::fs::read_to_string(&path).unwrap();
    let qsos = text.lines().filter(|l| l.starts_with("QSO:")).count();
    assert_eq!(run.json()["qsos"], qsos);
    check_rules(&text);
    (read_by_cabrillo(&path), text)
}

fn field_day_goes_out_as_cabrillo() {
    let (_server, api, cli) = setup("basic");
    // FD, as hams call it (the contest's alias).
    let started = cli.run(&[
        "contest",
        "start",
        "fd",
        "--exchange",
        "2a ct",
        "--category",
        "low",
        "--name",
        "Hiram Maxim",
        "--email",
        "w1aw@arrl.net",
        "--address",
        "225 Main St\\nNewington CT 06111",
        "--json",
    ]);
    started.ok();
    let made = started.json();
    assert_eq!(made["created"], true);
    assert_eq!(made["contestId"], "ARRL-FD");
    assert_eq!(made["callsign"], "W1AW", "the account's call by default");
    let fd = made["id"].as_str().unwrap().to_owned();
    // A second operator joins the open log rather than making another.
    let joined = cli.run(&["contest", "start", "ARRL-FIELD-DAY"]);
    joined.ok();
    assert!(
        joined
            .stdout
            .starts_with("found existing contest log W1AW ARRL-FD"),
        "{}",
        joined.stdout
    );

    let contacts = [
        (
            "K1ABC",
            14.025,
            "CW",
            "2026-06-27T18:01:00Z",
            "3A",
            "EMA",
            None,
        ),
        (
            "N2XYZ",
            7.185,
            "SSB",
            "2026-06-27T18:03:00Z",
            "1D",
            "ENY",
            Some("K1OPR"),
        ),
        (
            "VE3AAA",
            14.074,
            "FT8",
            "2026-06-27T18:02:00Z",
            "2A",
            "ONS",
            None,
        ),
        (
            "K1ABC",
            14.030,
            "CW",
            "2026-06-27T18:04:00Z",
            "3A",
            "EMA",
            None,
        ),
        (
            "W6ZZ",
            146.52,
            "FM",
            "2026-06-27T19:00:00Z",
            "1E",
            "SCV",
            Some("K1OPR"),
        ),
        (
            "DL1ABC",
            28.020,
            "CW",
            "2026-06-27T20:00:00Z",
            "1A",
            "DX",
            None,
        ),
    ];
    for (call, mhz, mode, at, class, sect, op) in contacts {
        let mut extra = json!({"class": class, "arrlSect": sect});
        if let Some(op) = op {
            extra["operator"] = json!(op);
        }
        log(&api, &fd, call, mhz, mode, at, extra);
    }
    let shown = cli.run(&["contest", "show", &fd, "--json"]);
    shown.ok();
    let standing = shown.json()["standing"].clone();
    // Six contacts, one a dupe (K1ABC CW on 20 m again); CW and data 2, phone and FM 1.
    assert_eq!(standing["qsos"], 5, "{standing}");
    assert_eq!(standing["dupes"], 1);
    assert_eq!(standing["score"], 2 + 1 + 2 + 1 + 2);
    let text_show = cli.run(&["contest", "show", &fd]);
    text_show.ok();
    assert!(
        text_show.stdout.contains("claimed score 8"),
        "{}",
        text_show.stdout
    );
    assert!(
        text_show.stdout.contains("operators: K1OPR W1AW"),
        "{}",
        text_show.stdout
    );

    let (read, text) = export(&cli, &fd, &["--soapbox", "Fun on the generator"]);
    assert!(text.contains("QSO:   144 FM 2026-06-27 1900"), "{text}");
    let Some(read) = read else { return };
    assert_eq!(read["callsign"], "W1AW");
    assert_eq!(read["contest"], "ARRL-FD");
    assert_eq!(read["claimed_score"], standing["score"]);
    assert_eq!(read["operators"], json!(["K1OPR", "W1AW"]));
    assert_eq!(read["category_operator"], "MULTI-OP");
    assert_eq!(read["category_power"], "LOW");
    assert_eq!(read["category_band"], "ALL");
    assert_eq!(read["category_mode"], "MIXED");
    assert_eq!(read["name"], "Hiram Maxim");
    assert_eq!(read["email"], "w1aw@arrl.net");
    assert_eq!(
        read["address"],
        json!(["225 Main St", "Newington CT 06111"])
    );
    assert_eq!(read["soapbox"], json!(["Fun on the generator"]));
    assert_eq!(read["location"], "CT", "the section the log sends");
    assert!(read["created_by"].as_str().unwrap().starts_with("svc "));
    // QSO by QSO against the log, in time order: every one, the dupe too.
    let mut stored = api.all_contacts(&fd);
    stored.sort_by(|a, b| a["timeOn"].as_str().cmp(&b["timeOn"].as_str()));
    let qsos = read["qsos"].as_array().unwrap();
    assert_eq!(qsos.len(), stored.len());
    for (q, c) in qsos.iter().zip(&stored) {
        assert_eq!(q["dx_call"], c["callsign"]);
        assert_eq!(q["de_call"], "W1AW");
        assert_eq!(q["de_exch"], json!(["2A", "CT"]));
        assert_eq!(q["dx_exch"], json!([c["class"], c["arrlSect"]]));
        let time_on = c["timeOn"].as_str().unwrap();
        assert_eq!(
            q["date"],
            format!(
                "{} {}{}",
                &time_on[..10],
                &time_on[11..13],
                &time_on[14..16]
            )
        );
        let mhz = c["frequency"].as_f64().unwrap();
        let expected_freq = if mhz > 30.0 {
            "144".to_owned()
        } else {
            format!("{}", (mhz * 1000.0).round())
        };
        assert_eq!(q["freq"], expected_freq.as_str(), "{c}");
        let mode = match c["mode"].as_str().unwrap() {
            "CW" => "CW",
            "SSB" => "PH",
            "FM" => "FM",
            _ => "DG",
        };
        assert_eq!(q["mo"], mode, "FT8 is DG, never MFSK");
        assert_eq!(q["t"], Value::Null);
    }
}

fn serials_zones_and_what_is_missing() {
    let (_server, api, cli) = setup("basic");
    // Sweepstakes: the serial number sent is each contact's, the rest the log's.
    let ss = cli.run(&[
        "contest",
        "start",
        "ARRL-SS-CW",
        "--exchange",
        "A 72 CT",
        "--category",
        "power=HIGH",
        "--json",
    ]);
    ss.ok();
    let ss = ss.json()["id"].as_str().unwrap().to_owned();
    log(
        &api,
        &ss,
        "K9ZO",
        14.030,
        "CW",
        "2026-11-07T21:00:00Z",
        json!({"stx": 1, "srx": 12, "precedence": "B", "check": "69", "arrlSect": "IL"}),
    );
    // An imported log that kept the received exchange as one string reads as well.
    log(
        &api,
        &ss,
        "N6XX",
        7.040,
        "CW",
        "2026-11-07T21:05:00Z",
        json!({"stx": 2, "srxString": "140 U 88 SCV"}),
    );
    // A section given for the file wins over the one the log sends.
    let (read, _) = export(&cli, &ss, &["--location", "ENY"]);
    if let Some(read) = read {
        assert_eq!(read["location"], "ENY");
        let q = read["qsos"].as_array().unwrap();
        assert_eq!(q[0]["de_exch"], json!(["1", "A", "72", "CT"]));
        assert_eq!(q[0]["dx_exch"], json!(["12", "B", "69", "IL"]));
        assert_eq!(q[1]["de_exch"], json!(["2", "A", "72", "CT"]));
        assert_eq!(q[1]["dx_exch"], json!(["140", "U", "88", "SCV"]));
        assert_eq!(read["category_band"], "ALL");
        assert_eq!(read["category_mode"], "CW");
        assert_eq!(
            read["claimed_score"],
            2 * 2 * 2,
            "two QSOs of 2 points, two sections"
        );
    }
    // A contact with no serial sent is named, not written as 000.
    let lacking = log(
        &api,
        &ss,
        "K0AAA",
        14.035,
        "CW",
        "2026-11-07T21:10:00Z",
        json!({"srx": 3, "precedence": "Q", "check": "01", "arrlSect": "MN"}),
    );
    let refused = cli.run(&["export", "cabrillo", &ss]);
    let message = refused.fails(2, "export cabrillo", "validation_error");
    assert!(
        message.contains(&lacking) && message.contains("1 contact of ARRL-SS-CW"),
        "{message}"
    );

    // CQ WW on one band: the zone received is the contact's CQZ; the report its own.
    let ww = cli.run(&["contest", "start", "CQ-WW-CW", "--exchange", "5", "--json"]);
    let ww = ww.json()["id"].as_str().unwrap().to_owned();
    log(
        &api,
        &ww,
        "DL1ABC",
        14.025,
        "CW",
        "2026-11-28T00:01:00Z",
        json!({"rstSent": "579", "rstReceived": "599", "cqz": 14}),
    );
    log(
        &api,
        &ww,
        "JA1XYZ",
        14.026,
        "CW",
        "2026-11-28T00:02:00Z",
        json!({"rstReceived": "599", "cqz": 25}),
    );
    // Without a power category, the file is refused, saying how to give one.
    let refused = cli.run(&["export", "cabrillo", &ww]);
    let message = refused.fails(2, "export cabrillo", "validation_error");
    assert!(message.contains("--category power=LOW"), "{message}");
    let (read, _) = export(&cli, &ww, &["--category", "QRP,ASSISTED"]);
    if let Some(read) = read {
        assert_eq!(read["category_band"], "20M");
        assert_eq!(read["category_mode"], "CW");
        assert_eq!(read["category_power"], "QRP");
        assert_eq!(read["category_assisted"], "ASSISTED");
        assert!(read["location"].is_null(), "CQ WW sends no section");
        assert!(read["grid_locator"].is_null(), "no station profile here");
        let q = read["qsos"].as_array().unwrap();
        assert_eq!(q[0]["de_exch"], json!(["579", "5"]));
        assert_eq!(q[0]["dx_exch"], json!(["599", "14"]));
        assert_eq!(q[1]["de_exch"], json!(["599", "5"]));
        assert_eq!(q[1]["dx_exch"], json!(["599", "25"]));
    }

    // The list, an end, and bad input that changes nothing.
    let listed = cli.run(&["contest", "list", "--json"]);
    listed.ok();
    assert_eq!(listed.json()["items"].as_array().unwrap().len(), 2);
    let ended = cli.run(&["contest", "end", &ww]);
    ended.ok();
    assert!(
        ended.stdout.starts_with("ended contest log W1AW CQ-WW-CW"),
        "{}",
        ended.stdout
    );
    let bad = cli.run(&["contest", "start", "ARRL-FD", "--exchange", "2Z CT"]);
    let message = bad.fails(2, "contest start", "validation_error");
    assert!(message.contains("class \"2Z\""), "{message}");
    let bad = cli.run(&["contest", "start", "FIELD-DAY", "--exchange", "2A CT"]);
    bad.fails(2, "contest start", "validation_error");
    let bad = cli.run(&[
        "contest",
        "start",
        "ARRL-FD",
        "--exchange",
        "2A CT",
        "--category",
        "power=MEDIUM",
    ]);
    let message = bad.fails(2, "contest start", "validation_error");
    assert!(message.contains("HIGH, LOW, QRP"), "{message}");
    assert_eq!(api.folders("contest").len(), 2);
    let known = cli.run(&["contest", "contests", "--json"]);
    let known: BTreeMap<String, Value> = known
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["id"].as_str().unwrap().to_owned(), c.clone()))
        .collect();
    assert_eq!(known["ARRL-FD"]["example"], "2A CT");
    assert_eq!(known["ARRL-FD"]["aliases"], json!(["FD"]));
    assert_eq!(
        known["ARRL-SS-CW"]["sends"],
        json!(["precedence", "check", "section"])
    );
}

/// One ADIF field as the specification writes it: `<NAME:length>value`.
/// A multi-two station: each QSO line ends with the transmitter that made it (0 or 1), as
/// the logbooks of its two transmitters (`svc --transmitter`) or `svc contacts edit
/// --transmitter` mark the contacts; a contact with none is named, not written without it.
#[test]
fn a_multi_two_log_names_each_qso_s_transmitter() {
    let (_server, api, cli) = setup("elevated");
    let started = cli.run(&[
        "contest",
        "start",
        "CQ-WW-CW",
        "--exchange",
        "5",
        "--category",
        "HIGH",
        "--json",
    ]);
    started.ok();
    let log_id = started.json()["id"].as_str().unwrap().to_owned();
    let zone = |t: Option<i64>, cqz: i64| {
        let mut v = json!({"rstReceived": "599", "cqz": cqz, "operator": "K1ABC"});
        if let Some(t) = t {
            v["transmitter"] = json!(t);
        }
        v
    };
    log(
        &api,
        &log_id,
        "DL1ABC",
        14.025,
        "CW",
        "2026-11-28T00:01:00Z",
        zone(Some(0), 14),
    );
    log(
        &api,
        &log_id,
        "JA1XYZ",
        21.026,
        "CW",
        "2026-11-28T00:02:00Z",
        zone(Some(1), 25),
    );
    let lacking = log(
        &api,
        &log_id,
        "VK2AAA",
        21.030,
        "CW",
        "2026-11-28T00:03:00Z",
        zone(None, 30),
    );
    // Two transmitters seen: the log is TWO, and the contact with none is named.
    let refused = cli.run(&["export", "cabrillo", &log_id]);
    let message = refused.fails(2, "export cabrillo", "validation_error");
    assert!(
        message.contains(&lacking) && message.contains("--transmitter 0"),
        "{message}"
    );
    // The CLI marks it; a transmitter that is neither 0 nor 1 is refused and changes nothing.
    let bad = cli.run(&["contacts", "edit", &lacking, "--transmitter", "2"]);
    bad.fails(2, "contacts edit", "validation_error");
    cli.run(&["contacts", "edit", &lacking, "--transmitter", "1"])
        .ok();
    // The station profile of the log's call gives GRID-LOCATOR.
    cli.run(&["station", "set", "--grid", "FN31pr"]).ok();
    let (read, text) = export(&cli, &log_id, &[]);
    assert!(text.contains("CATEGORY-TRANSMITTER: TWO\r\n"), "{text}");
    assert!(text.contains("GRID-LOCATOR: FN31pr\r\n"), "{text}");
    if let Some(read) = read {
        assert_eq!(read["category_transmitter"], "TWO");
        // `cabrillo` reads header values in upper case; the file keeps the locator's own.
        assert_eq!(read["grid_locator"], "FN31PR", "the station profile's");
        assert_eq!(
            read["category_operator"], "MULTI-OP",
            "two transmitters are a multi-op station's, one operator logging or not"
        );
        let t: Vec<&Value> = read["qsos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| &q["t"])
            .collect();
        assert_eq!(t, [&json!(0), &json!(1), &json!(1)], "{text}");
        let q = &read["qsos"][0];
        assert_eq!(
            q["dx_exch"],
            json!(["599", "14"]),
            "the id is no part of the exchange"
        );
    }
    // Said to be one transmitter, the lines carry none.
    let (read, text) = export(&cli, &log_id, &["--category", "transmitter=ONE"]);
    assert!(text.contains("CATEGORY-TRANSMITTER: ONE\r\n"), "{text}");
    if let Some(read) = read {
        assert!(
            read["qsos"]
                .as_array()
                .unwrap()
                .iter()
                .all(|q| q["t"].is_null()),
            "{text}"
        );
    }
    // ADIF carries it as svc's own application field.
    let adif = cli.run(&["export", "adif", "--folder", &log_id]);
    adif.ok();
    assert!(
        adif.stdout.contains("<APP_SVC_TRANSMITTER:1>1"),
        "{}",
        adif.stdout
    );
}

/// `svc contacts create --exchange`: the exchange as contesters type it, read by the log's
/// contest into the contact's fields; what does not read, or a folder that is no contest log,
/// is refused and nothing stored.
#[test]
fn contacts_create_takes_a_contest_exchange() {
    let (_server, api, cli) = setup("elevated");
    let started = cli.run(&["contest", "start", "CQ-WW-CW", "--exchange", "5", "--json"]);
    started.ok();
    let log_id = started.json()["id"].as_str().unwrap().to_owned();
    let create = |folder: &str, call: &str, exchange: &str| {
        cli.run(&[
            "contacts",
            "create",
            "--folder",
            folder,
            "--callsign",
            call,
            "--frequency",
            "14.025",
            "--mode",
            "CW",
            "--exchange",
            exchange,
            "--json",
        ])
    };
    // The report left out, as typed in the logbook: CQ WW's 599 stands in.
    let made = create(&log_id, "DL1ABC", "14");
    made.ok();
    let id = made.json()["id"].as_str().unwrap().to_owned();
    let stored = api.all_contacts(&log_id);
    let c = stored.iter().find(|c| c["id"] == id.as_str()).unwrap();
    assert_eq!(c["cqz"], 14, "{c}");
    assert_eq!(c["rstReceived"], "599", "{c}");
    assert_eq!(c["srxString"], "599 14", "{c}");
    assert_eq!(c["contestId"], "CQ-WW-CW", "{c}");
    assert_eq!(c["stxString"], "599 5", "{c}");
    create(&log_id, "JA1XYZ", "579 25").ok();
    // A zone CQ WW does not have: refused, saying what it takes; nothing stored.
    let bad = create(&log_id, "VK2AAA", "99");
    let error = bad.fails_json(2, "contacts create", "validation_error");
    let message = error["message"].as_str().unwrap();
    assert!(message.starts_with("--exchange: the zone"), "{message}");
    // Not a contest log: said so, nothing stored.
    let month = crate::cli::monthly(&api);
    let bad = create(&month, "K1ABC", "14");
    let error = bad.fails_json(2, "contacts create", "validation_error");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("is a monthly folder, not a contest log"),
        "{message}"
    );
    let bad = create("fld_aaaaaaaaaaaaaaaa", "K1ABC", "14");
    let error = bad.fails_json(1, "contacts create", "not_found");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("no contest log of yours"), "{message}");
    assert!(api.all_contacts(&month).is_empty());
    assert_eq!(api.all_contacts(&log_id).len(), 2);
    // The log is read for its contest, which the outbox cannot do.
    let run = cli.run(&[
        "contacts",
        "create",
        "--queue",
        "--folder",
        &log_id,
        "--callsign",
        "K1ABC",
        "--frequency",
        "14.025",
        "--mode",
        "CW",
        "--exchange",
        "5",
    ]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("--queue"), "{run:?}");
}

/// At a terminal, `svc export cabrillo` asks for the power category a log does not give
/// (only the station can say it) and writes the file with the answer; a wrong answer is
/// refused, saying what it takes, and writes nothing.
#[test]
fn export_cabrillo_asks_a_terminal_for_the_power_category() {
    let (_server, api, cli) = setup("elevated");
    let started = cli.run(&[
        "contest",
        "start",
        "ARRL-FD",
        "--exchange",
        "2A CT",
        "--json",
    ]);
    started.ok();
    let log_id = started.json()["id"].as_str().unwrap().to_owned();
    log(
        &api,
        &log_id,
        "K1ABC",
        14.025,
        "CW",
        "2026-06-27T18:01:00Z",
        json!({"srxString": "3A EMA"}),
    );
    let path = cli.home.path().join("fd.log");
    let args = [
        "export",
        "cabrillo",
        log_id.as_str(),
        "--out",
        path.to_str().unwrap(),
    ];
    let mut term = crate::tui::terminal::Tui::start(&cli, &args, &[]);
    term.wait_for("Power category (HIGH, LOW or QRP):");
    term.keys("medium\r");
    assert_eq!(term.exit_code(), 2);
    assert!(
        term.contents().contains("HIGH, LOW, QRP"),
        "{}",
        term.contents()
    );
    assert!(!path.exists());
    let mut term = crate::tui::terminal::Tui::start(&cli, &args, &[]);
    term.wait_for("Power category (HIGH, LOW or QRP):");
    term.keys("low\r");
    assert_eq!(term.exit_code(), 0, "{}", term.contents());
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("CATEGORY-POWER: LOW\r\n"), "{text}");
    check_rules(&text);
}

fn f(name: &str, value: &str) -> String {
    format!("<{name}:{}>{value}", value.len())
}

/// A record of a contest logger's file, as ADIF 3.1 defines its contest fields.
fn record(
    call: &str,
    date: &str,
    time: &str,
    band: &str,
    freq: &str,
    mode: &str,
    rest: &[(&str, &str)],
) -> String {
    let mut out = [
        f("CALL", call),
        f("QSO_DATE", date),
        f("TIME_ON", time),
        f("BAND", band),
        f("FREQ", freq),
        f("MODE", mode),
    ]
    .join(" ");
    for (name, value) in rest {
        out.push(' ');
        out.push_str(&f(name, value));
    }
    out + " <EOR>\n"
}

fn a_contest_s_adif_comes_in_as_its_log_and_goes_out_whole() {
    let (_server, api, cli) = setup("basic");
    let fd = [
        ("CONTEST_ID", "ARRL-FIELD-DAY"),
        ("STATION_CALLSIGN", "W1AW"),
        ("STX_STRING", "2A CT"),
    ];
    let mut text = String::from("A contest logger's export\n<ADIF_VER:5>3.1.4 <EOH>\n");
    for (call, time, class, sect) in [
        ("K1ABC", "180100", "3A", "EMA"),
        ("N2XYZ", "180300", "1D", "ENY"),
    ] {
        let mut rest = fd.to_vec();
        rest.extend([("CLASS", class), ("ARRL_SECT", sect), ("OPERATOR", "K1OPR")]);
        text.push_str(&record(
            call, "20250628", time, "20m", "14.025", "CW", &rest,
        ));
    }
    // A contest's record that does not say what the station sent: its month's log.
    text.push_str(&record(
        "W9ZZZ",
        "20250809",
        "120000",
        "40m",
        "7.030",
        "CW",
        &[("CONTEST_ID", "NAQP-CW"), ("NAME", "BOB"), ("STATE", "IL")],
    ));
    let path = cli.home.path().join("contest.adi");
    std::fs::write(&path, text).unwrap();
    let run = cli.run(&["import", "adif", path.to_str().unwrap(), "--auto", "--json"]);
    run.ok();
    let summary = run.json();
    assert_eq!(summary["imported"], 3, "{summary}");
    let logs = api.folders("contest");
    assert_eq!(logs.len(), 1, "{logs:?}");
    let log = &logs[0];
    assert_eq!(log["contestId"], "ARRL-FD");
    assert_eq!(log["exchange"], "2A CT");
    assert_eq!(log["callsign"], "W1AW");
    assert_eq!(log["contactCount"], 2);
    let monthly = api.monthly("2025-08", None);
    assert_eq!(api.all_contacts(&monthly).len(), 1);
    // Imported again, it is all there already: the log is the weekend's one.
    let again = cli.run(&["import", "adif", path.to_str().unwrap(), "--auto", "--json"]);
    again.ok();
    assert_eq!(again.json()["imported"], 0, "{}", again.stdout);
    assert_eq!(api.folders("contest").len(), 1);

    // Out as ADIF, every contest field goes with it, as an independent reader reads them.
    let id = log["id"].as_str().unwrap();
    let out = cli.home.path().join("out.adi");
    cli.run(&[
        "export",
        "adif",
        "--folder",
        id,
        "--out",
        out.to_str().unwrap(),
    ])
    .ok();
    if let Some(read) = super::adif_io::read_by_adif_io(&out) {
        assert_eq!(read.len(), 2);
        let k1abc = read.iter().find(|r| r["CALL"] == "K1ABC").unwrap();
        for (name, value) in [
            ("CONTEST_ID", "ARRL-FIELD-DAY"),
            ("STX_STRING", "2A CT"),
            ("CLASS", "3A"),
            ("ARRL_SECT", "EMA"),
            ("OPERATOR", "K1OPR"),
            ("STATION_CALLSIGN", "W1AW"),
        ] {
            assert_eq!(
                k1abc.get(name).map(String::as_str),
                Some(value),
                "{name}: {k1abc:?}"
            );
        }
    }
    // And as Cabrillo, with the operator the file named.
    let (read, _) = export(&cli, id, &["--category", "LOW"]);
    if let Some(read) = read {
        assert_eq!(read["operators"], json!(["K1OPR"]));
        assert_eq!(read["qsos"][0]["dx_exch"], json!(["3A", "EMA"]));
        assert_eq!(read["qsos"][1]["dx_call"], "N2XYZ");
    }
}

crate::both_backends!(
    field_day_goes_out_as_cabrillo,
    serials_zones_and_what_is_missing,
    a_contest_s_adif_comes_in_as_its_log_and_goes_out_whole,
);
