//! `svc import adif`, `svc export adif` and `svc activations export` through the real binary
//! against the real server: the corpus of other loggers' files under tests/data/adif goes in,
//! comes out, goes into a fresh account and comes out the same; POTA's upload file; bad files.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use svc::adif::{Reader, Record};

use super::{Cli, Run};
use crate::common::{Api, Server};

pub(super) const ROOMY: &[&str] = &[
    "--burst-limit",
    "100000",
    "--daily-contact-budget",
    "100000",
    "--free-plan-cap",
    "100000",
];

/// The files other loggers write that every record of goes in.
const READABLE: &[&str] = &[
    "wsjtx.adi",
    "n1mm.adi",
    "qrz.adi",
    "log.adx",
    "lowercase.adi",
    "utf8.adi",
    "noheader.adi",
    "p2p.adi",
];

fn corpus(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/adif")
        .join(name)
        .display()
        .to_string()
}

pub(super) fn account(flags: &[&str]) -> (Server, Api, Cli) {
    let server = Server::start_with(flags);
    let api = server.account("W1AW", "elevated");
    let cli = Cli::with_key(&server, &api);
    (server, api, cli)
}

/// The records of an ADIF file, checked field by field against an independent reading of its
/// length counts: each `<NAME:N>` is followed by exactly N bytes and then a blank or a tag.
fn records(path: &Path) -> Vec<Record> {
    let bytes = std::fs::read(path).unwrap();
    let text = String::from_utf8(bytes.clone()).expect("the export is UTF-8");
    assert!(!text.starts_with('<'), "the header must not begin with <");
    let mut at = 0;
    while let Some(open) = text[at..].find('<') {
        let tag_start = at + open;
        let close = tag_start + text[tag_start..].find('>').unwrap();
        let tag = &text[tag_start + 1..close];
        at = close + 1;
        if let Some((_, len)) = tag.split_once(':') {
            let len: usize = len.split(':').next().unwrap().parse().unwrap();
            let after = bytes.get(at + len).copied();
            assert!(
                matches!(after, Some(b' ' | b'<' | b'\n')),
                "the length of <{tag}> does not end its value: {:?}",
                String::from_utf8_lossy(&bytes[at..(at + len + 5).min(bytes.len())])
            );
            at += len;
        }
    }
    let reader = Reader::new(std::io::BufReader::new(std::fs::File::open(path).unwrap())).unwrap();
    assert_eq!(reader.header().get("PROGRAMID"), Some("svc"));
    assert_eq!(reader.header().get("ADIF_VER"), Some("3.1.7"));
    assert!(reader.header().get("CREATED_TIMESTAMP").is_some());
    reader.map(|r| r.unwrap()).collect()
}

/// Records as comparable text, one line each, fields sorted.
pub(super) fn lines(records: &[Record]) -> BTreeSet<String> {
    records
        .iter()
        .map(|r| {
            let mut fields: Vec<String> =
                r.fields.iter().map(|(n, v)| format!("{n}={v}")).collect();
            fields.sort();
            fields.join(" ")
        })
        .collect()
}

pub(super) fn import(cli: &Cli, file: &str, flags: &[&str]) -> Run {
    let mut args = vec!["import", "adif", file];
    args.extend_from_slice(flags);
    cli.run(&args)
}

fn export_all(cli: &Cli, dir: &Path, name: &str) -> PathBuf {
    let out = dir.join(name);
    let run = cli.run(&[
        "export",
        "adif",
        "--all",
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    run.ok();
    assert_eq!(run.json()["path"], out.to_str().unwrap());
    out
}

fn corpus_goes_in_comes_out_and_goes_into_a_fresh_account_the_same() {
    let (_server, api, cli) = account(ROOMY);
    let mut expected = 0;
    for name in READABLE {
        let run = import(&cli, &corpus(name), &["--auto", "--json"]);
        run.ok();
        let summary = run.json();
        assert_eq!(summary["refusedCount"], 0, "{name}: {summary}");
        let records = summary["records"].as_u64().unwrap();
        let went =
            summary["imported"].as_u64().unwrap() + summary["alreadyThere"].as_u64().unwrap();
        assert_eq!(went, records, "{name}: {summary}");
        expected += summary["imported"].as_u64().unwrap();
    }
    assert_eq!(api.qso_count() as u64, expected);

    // What each file became.
    let dir = tempfile::tempdir().unwrap();
    let first = records(&export_all(&cli, dir.path(), "first.adi"));
    assert_eq!(first.len() as u64, expected);
    let find = |call: &str| {
        first
            .iter()
            .find(|r| r.get("CALL") == Some(call))
            .unwrap_or_else(|| panic!("no {call} in the export"))
    };
    let jurgen = find("DL1ABC");
    // ADI holds ASCII only, so that byte- and character-counting readers agree; the exact
    // text goes out in ADX (below).
    assert_eq!(jurgen.get("NAME"), Some("Jurgen Oster"));
    assert_eq!(jurgen.get("MODE"), Some("SSB"));
    let ft4 = find("JA1XYZ");
    assert!(
        first.iter().any(|r| r.get("CALL") == Some("JA1XYZ")
            && r.get("MODE") == Some("MFSK")
            && r.get("SUBMODE") == Some("FT4")),
        "{ft4:?}"
    );
    let p2p = find("K2PTP");
    assert_eq!(p2p.get("MY_SIG"), Some("POTA"));
    assert_eq!(p2p.get("MY_SIG_INFO"), Some("US-1234"));
    assert_eq!(p2p.get("SIG_INFO"), Some("US-0001,US-0002"));
    let activations = api.folders("activation");
    assert_eq!(activations.len(), 1, "{activations:?}");
    assert_eq!(activations[0]["name"], "W1AW@US-1234-20261107");

    // The same files again store nothing new.
    for name in READABLE {
        let summary = import(&cli, &corpus(name), &["--auto", "--json"]).json();
        assert_eq!(summary["imported"], 0, "{name}: {summary}");
    }
    assert_eq!(api.qso_count() as u64, expected);

    // The export into a fresh account of another service, and out again: the same records.
    let (_other, other_api, other) = account(ROOMY);
    let path = dir.path().join("first.adi");
    let summary = import(&other, path.to_str().unwrap(), &["--auto", "--json"]).json();
    assert_eq!(summary["imported"].as_u64().unwrap(), expected, "{summary}");
    assert_eq!(other_api.qso_count() as u64, expected);
    let second = records(&export_all(&other, dir.path(), "second.adi"));
    assert_eq!(lines(&first), lines(&second));

    // ADX keeps the exact text: out of the first account and into a third, every name as it
    // was read.
    let adx = dir.path().join("first.adx");
    cli.run(&[
        "export",
        "adif",
        "--all",
        "--format",
        "adx",
        "--out",
        adx.to_str().unwrap(),
    ])
    .ok();
    let (_third, third_api, third) = account(ROOMY);
    let summary = import(&third, adx.to_str().unwrap(), &["--auto", "--json"]).json();
    assert_eq!(summary["imported"].as_u64().unwrap(), expected, "{summary}");
    let names: BTreeSet<String> = third_api
        .folders("monthly")
        .iter()
        .flat_map(|f| third_api.contacts(f["id"].as_str().unwrap()))
        .filter_map(|c| c["name"].as_str().map(str::to_owned))
        .collect();
    assert!(names.contains("Jürgen Øster"), "{names:?}");
    assert!(names.contains("Zoë"), "{names:?}");
}

fn activation_export_writes_pota_s_file() {
    let (_server, api, cli) = account(ROOMY);
    let yesterday = svc::model::Timestamp(svc::model::Timestamp::now().millis() - 86_400_000);
    let day = yesterday.utc_date();
    let start = format!("{}T23:00:00Z", day.format("%Y-%m-%d"));
    let r = api.post(
        "/v1/activations",
        json!({ "locationReference": "us-1234", "callsign": "k1abc/p", "startTime": start }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let activation = r.id();
    let next_day = day.succ_opt().unwrap().format("%Y-%m-%d");
    for (call, time, sig) in [
        (
            "N0AA",
            format!("{}T23:10:00Z", day.format("%Y-%m-%d")),
            None,
        ),
        (
            "K2PTP",
            format!("{}T23:20:00Z", day.format("%Y-%m-%d")),
            Some("US-0001, us-0002"),
        ),
        ("W9XYZ", format!("{next_day}T00:30:00Z"), None),
    ] {
        let mut body = json!({
            "folderId": activation, "callsign": call, "frequency": 14.062,
            "mode": "CW", "timeOn": time,
        });
        if let Some(parks) = sig {
            body["sig"] = json!("POTA");
            body["sigInfo"] = json!(parks);
        }
        assert_eq!(api.post("/v1/contacts", body.clone()).status, 201, "{body}");
    }
    let dir = tempfile::tempdir().unwrap();
    let run = cli.run(&[
        "activations",
        "export",
        &activation,
        "--dir",
        dir.path().to_str().unwrap(),
    ]);
    run.ok();
    let name = format!("K1ABC_P@US-1234-{}.adi", day.format("%Y%m%d"));
    let path = dir.path().join(&name);
    assert_eq!(run.stdout.trim(), path.to_str().unwrap(), "{run:?}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.lines().next().unwrap().contains("svc"), "{text}");
    // The header says which park: its name too once the park cache knows it.
    assert_eq!(text.lines().nth(1), Some("POTA US-1234"), "{text}");
    let again = tempfile::tempdir().unwrap();
    let list = again.path().join("all_parks_ext.csv");
    std::fs::write(
        &list,
        "\"reference\",\"name\",\"locationDesc\"\n\"US-1234\",\"Parc <des> Érables\",\"US-VT\"\n",
    )
    .unwrap();
    cli.run(&["parks", "import", list.to_str().unwrap()]).ok();
    cli.run(&[
        "activations",
        "export",
        &activation,
        "--dir",
        again.path().to_str().unwrap(),
    ])
    .ok();
    let text = std::fs::read_to_string(again.path().join(&name)).unwrap();
    assert_eq!(
        text.lines().nth(1),
        Some("POTA US-1234 Parc (des) Erables"),
        "{text}"
    );
    let got = records(&path);
    // Three contacts over two UTC days; the park-to-park one is one record per park.
    assert_eq!(got.len(), 4, "{text}");
    for r in &got {
        assert_eq!(r.get("STATION_CALLSIGN"), Some("K1ABC/P"), "{r:?}");
        assert_eq!(r.get("MY_SIG"), Some("POTA"), "{r:?}");
        assert_eq!(r.get("MY_SIG_INFO"), Some("US-1234"), "{r:?}");
        assert_eq!(r.get("MY_POTA_REF"), Some("US-1234"), "{r:?}");
        assert_eq!(r.get("BAND"), Some("20m"), "{r:?}");
    }
    let parks: BTreeSet<_> = got
        .iter()
        .filter(|r| r.get("CALL") == Some("K2PTP"))
        .map(|r| {
            (
                r.get("SIG_INFO").unwrap().to_owned(),
                r.get("POTA_REF").unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        parks,
        BTreeSet::from([
            ("US-0001".to_owned(), "US-0001".to_owned()),
            ("US-0002".to_owned(), "US-0002".to_owned())
        ])
    );
    let days: BTreeSet<_> = got
        .iter()
        .map(|r| r.get("QSO_DATE").unwrap().to_owned())
        .collect();
    assert_eq!(days.len(), 2, "both UTC days: {days:?}");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(
        leftovers.len(),
        1,
        "no temporary file is left: {leftovers:?}"
    );

    let json = cli
        .run(&[
            "activations",
            "export",
            &activation,
            "--dir",
            dir.path().to_str().unwrap(),
            "--json",
        ])
        .json();
    assert_eq!(
        json,
        json!({ "path": path.to_str().unwrap(), "contacts": 3, "records": 4 })
    );

    // A monthly folder is no activation; a missing one is not found.
    let monthly = api.monthly(&crate::common::this_month().0, None);
    let msg = cli.run(&["activations", "export", &monthly]).fails(
        2,
        "activations export",
        "validation_error",
    );
    assert!(msg.contains("svc export adif --folder"), "{msg}");
    cli.run(&["activations", "export", "fld_aaaaaaaaaaaaaaaa"])
        .fails(1, "activations export", "not_found");
}

fn export_takes_a_folder_and_a_window_of_days() {
    let (_server, api, cli) = account(ROOMY);
    import(&cli, &corpus("wsjtx.adi"), &["--auto"]).ok();
    let folder = api.folder_named("2026-11");
    // Stdout, one folder, 1 November only.
    let run = cli.run(&[
        "export",
        "adif",
        "--folder",
        &folder,
        "--until",
        "2026-11-01",
    ]);
    run.ok();
    let calls: BTreeSet<String> = Reader::new(run.stdout.as_bytes())
        .unwrap()
        .map(|r| r.unwrap().get("CALL").unwrap().to_owned())
        .collect();
    assert_eq!(
        calls,
        BTreeSet::from(["JA1XYZ".into(), "K1ABC".into(), "W9XYZ".into()])
    );
    let run = cli.run(&["export", "adif", "--all", "--since", "2026-11-02T00:00:00Z"]);
    run.ok();
    assert_eq!(run.stdout.matches("<EOR>").count(), 1, "{}", run.stdout);

    let msg = cli.run(&["export", "adif", "--all", "--json"]).fails_json(
        2,
        "export adif",
        "validation_error",
    );
    assert!(msg["message"].as_str().unwrap().contains("--out"), "{msg}");
    let msg = cli
        .run(&[
            "export",
            "adif",
            "--all",
            "--since",
            "2026-11-05",
            "--until",
            "2026-11-01",
        ])
        .fails(2, "export adif", "validation_error");
    assert!(msg.contains("--until"), "{msg}");
    cli.run(&["export", "adif"])
        .fails(2, "export adif", "validation_error");
    cli.run(&["export", "adif", "--all", "--since", "yesterday"])
        .fails(2, "export adif", "validation_error");
}

fn bad_files_say_which_record_and_store_nothing_of_it() {
    let (_server, api, cli) = account(ROOMY);
    for (name, record, says) in [
        ("truncated.adi", 3, "no <EOR>"),
        (
            "wrong_length.adi",
            4,
            "CALL: length 8 runs into the next tag",
        ),
        ("no_length.adi", 2, "has no length"),
    ] {
        let before = api.qso_count();
        let run = import(&cli, &corpus(name), &["--auto", "--json"]);
        let envelope = run.fails_json(2, "import adif", "validation_error");
        let summary = run.json();
        let first = &summary["refused"][0];
        assert_eq!(first["record"], record, "{name}: {summary}");
        assert!(
            first["message"].as_str().unwrap().contains(says),
            "{name}: {summary}"
        );
        assert!(
            envelope["message"]
                .as_str()
                .unwrap()
                .contains(&format!("record {record}")),
            "{envelope}"
        );
        // The readable records went in, the unreadable ones did not.
        let readable =
            summary["records"].as_u64().unwrap() - summary["refusedCount"].as_u64().unwrap();
        assert_eq!(
            summary["imported"].as_u64().unwrap(),
            readable,
            "{name}: {summary}"
        );
        assert_eq!((api.qso_count() - before) as u64, readable, "{name}");
    }
    let before = api.qso_count();
    for (name, says) in [("junk.bin", "not an ADIF file"), ("empty.adi", "empty")] {
        let msg =
            import(&cli, &corpus(name), &["--auto"]).fails(2, "import adif", "validation_error");
        assert!(msg.contains(says), "{name}: {msg}");
    }
    let msg = import(&cli, "/nonexistent/log.adi", &["--auto"]).fails(
        2,
        "import adif",
        "validation_error",
    );
    assert!(msg.contains("cannot read"), "{msg}");
    let msg = import(&cli, &corpus("wsjtx.adi"), &[]).fails(2, "import adif", "validation_error");
    assert!(msg.contains("--auto"), "{msg}");
    assert_eq!(api.qso_count(), before);

    // --folder: a monthly log takes its own month only; the others are refused by the service.
    let october = api.monthly("2026-10", None);
    let run = import(
        &cli,
        &corpus("wsjtx.adi"),
        &["--folder", &october, "--json"],
    );
    run.fails_json(2, "import adif", "validation_error");
    let summary = run.json();
    assert_eq!(summary["refusedCount"], 4, "{summary}");
    assert!(
        summary["refused"][0]["message"]
            .as_str()
            .unwrap()
            .contains("2026-11"),
        "{summary}"
    );
    assert_eq!(api.qso_count(), before);
}

/// A generated file of about 50 MB with one bad record in the middle, read in a dry run: the
/// record is named and the client's memory stays far below the file's size.
fn a_fifty_megabyte_file_is_read_with_flat_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.adi");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(file, "generated\n<EOH>").unwrap();
    let mut n = 0;
    let mut written = 0;
    while written < 50 * 1024 * 1024 {
        n += 1;
        let line = if n == 100_000 {
            "<CALL>K1BAD <QSO_DATE:8>20261101 <TIME_ON:4>1200 <FREQ:6>14.074 <MODE:3>FT8 <EOR>\n"
                .to_owned()
        } else {
            let notes = "x".repeat(80);
            let time = format!("{:02}{:02}{:02}", (n / 3600) % 24, (n / 60) % 60, n % 60);
            format!(
                "<CALL:5>K1ABC <QSO_DATE:8>20261101 <TIME_ON:6>{time} <BAND:3>20m <FREQ:6>14.074 <MODE:3>FT8 <COMMENT:80>{notes} <EOR>\n"
            )
        };
        file.write_all(line.as_bytes()).unwrap();
        written += line.len();
    }
    file.flush().unwrap();
    drop(file);

    let cli = Cli::new("http://127.0.0.1:9");
    let mut child = cli
        .std_command()
        .args([
            "import",
            "adif",
            path.to_str().unwrap(),
            "--dry-run",
            "--json",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0u64;
    let output = loop {
        if let Ok(text) = std::fs::read_to_string(&status)
            && let Some(line) = text.lines().find(|l| l.starts_with("VmHWM:"))
        {
            let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
            peak_kb = peak_kb.max(kb);
        }
        if child.try_wait().unwrap().is_some() {
            break child.wait_with_output().unwrap();
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["records"], n, "{summary}");
    assert_eq!(summary["refusedCount"], 1, "{summary}");
    assert_eq!(summary["refused"][0]["record"], 100_000, "{summary}");
    assert_eq!(
        summary["folders"]["monthly log 2026-11"],
        n - 1,
        "{summary}"
    );
    assert!(peak_kb > 0, "the peak was read");
    assert!(
        peak_kb < 48 * 1024,
        "peak memory {peak_kb} kB for a 50 MB file"
    );
}

fn the_free_plan_cap_stops_an_import_and_says_how_many_went_in() {
    let (_server, api, cli) = account(&["--free-plan-cap", "5"]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("eight.adi");
    let mut text = String::from("eight\n<EOH>\n");
    for n in 0..8 {
        text.push_str(&format!(
            "<CALL:5>K{n}CAP <QSO_DATE:8>20261101 <TIME_ON:6>1200{n:02} <FREQ:6>14.074 <MODE:3>FT8 <EOR>\n"
        ));
    }
    std::fs::write(&path, text).unwrap();
    let run = import(&cli, path.to_str().unwrap(), &["--auto", "--json"]);
    let envelope = run.fails_json(6, "import adif", "qso_cap_reached");
    assert!(
        envelope["message"]
            .as_str()
            .unwrap()
            .contains("after 5 contacts went in"),
        "{envelope}"
    );
    let summary = run.json();
    assert_eq!(summary["imported"], 5, "{summary}");
    assert_eq!(summary["refused"][0]["record"], 6, "{summary}");
    assert_eq!(api.qso_count(), 5);
}

/// Files as sloppy loggers write them lose no contact (files written for the tests after what
/// those loggers write): a `<` that starts no tag between fields (RUMlog, World Radio League),
/// records in Windows-1252 and in UTF-8 in one file (DXKeeper), control characters in values
/// (Ham Radio Deluxe's ADX), which cost their field alone, named in the summary.
fn sloppy_files_lose_no_contact() {
    let (_server, api, cli) = account(ROOMY);
    for (name, records) in [
        ("stray_lt.adi", 5),
        ("dxkeeper_mixed.adi", 3),
        ("hrd_control.adx", 3),
    ] {
        let run = import(&cli, &corpus(name), &["--auto", "--json"]);
        run.ok();
        let summary = run.json();
        assert_eq!(summary["records"], records, "{name}: {summary}");
        assert_eq!(summary["imported"], records, "{name}: {summary}");
        assert_eq!(summary["refusedCount"], 0, "{name}: {summary}");
        assert_eq!(summary["fieldProblemCount"], 0, "{name}: {summary}");
        let not_kept = if name == "hrd_control.adx" {
            json!({"NAME": 2, "QTH": 1, "RST_SENT": 1})
        } else {
            json!({})
        };
        assert_eq!(summary["notKept"], not_kept, "{name}: {summary}");
    }
    assert_eq!(api.qso_count(), 11);
    let run = import(&cli, &corpus("hrd_control.adx"), &["--auto", "--dry-run"]);
    run.ok();
    assert!(
        run.stdout
            .contains("not kept (records that had them): NAME (2), QTH (1), RST_SENT (1)"),
        "{run:?}"
    );

    // The service's own copy, as each contact was stored: the exact text (an ADI export
    // writes ASCII).
    let stored: Vec<Value> = api
        .folders("monthly")
        .iter()
        .flat_map(|f| api.contacts(f["id"].as_str().unwrap()))
        .collect();
    let field = |call: &str, name: &str| {
        let c = stored
            .iter()
            .find(|c| c["callsign"] == call)
            .unwrap_or_else(|| panic!("{call} was not stored: {stored:?}"));
        c[name].as_str().map(str::to_owned)
    };
    assert_eq!(field("DL1AB", "name").as_deref(), Some("Müller"));
    assert_eq!(field("DL2CD", "name").as_deref(), Some("Müller"));
    assert_eq!(field("DL1AB", "qth").as_deref(), Some("Köln"));
    assert_eq!(field("DL2CD", "qth").as_deref(), Some("Köln"));
    assert_eq!(field("EI1AB", "name").as_deref(), Some("O\u{2019}Brien"));
    assert_eq!(field("M6MAU", "comment").as_deref(), Some("great op!"));
    assert_eq!(field("OR75USL", "rstSent").as_deref(), Some("59"));
    assert_eq!(field("DL1ABC", "name"), None);
    assert_eq!(field("DL1ABC", "qth"), None);
    assert_eq!(field("DL1ABC", "rstSent").as_deref(), Some("59"));
    assert_eq!(field("SP5ABC", "rstSent"), None);
    assert_eq!(field("G4ABC", "name").as_deref(), Some("Dave"));
}

fn a_dry_run_shows_where_each_contact_would_go_and_sends_nothing() {
    let (_server, api, cli) = account(ROOMY);
    let run = import(&cli, &corpus("p2p.adi"), &["--auto", "--dry-run"]);
    run.ok();
    assert!(
        run.stdout
            .contains("dry run: 2 records read, 2 would be imported"),
        "{run:?}"
    );
    assert!(
        run.stdout.contains("activation W1AW@US-1234-20261107"),
        "{run:?}"
    );
    let run = import(&cli, &corpus("lowercase.adi"), &["--auto", "--dry-run"]);
    run.ok();
    assert!(run.stdout.contains("POTA hunting log 2026-11"), "{run:?}");
    assert!(
        run.stdout.contains("1 record has BAND and no FREQ"),
        "{run:?}"
    );
    assert_eq!(api.qso_count(), 0);
    assert!(api.folders("activation").is_empty());
}

crate::both_backends!(
    corpus_goes_in_comes_out_and_goes_into_a_fresh_account_the_same,
    a_two_fer_gets_one_pota_file_per_park,
    a_two_fer_s_files_import_back_as_one_two_fer,
);

/// A two-fer activation (US-1234,US-5678) writes one file per park, every contact in each,
/// that park as MY_SIG_INFO; and a two-fer from a file is filed into one such activation.
fn a_two_fer_gets_one_pota_file_per_park() {
    let (_server, api, cli) = account(ROOMY);
    let yesterday = svc::model::Timestamp(svc::model::Timestamp::now().millis() - 86_400_000);
    let day = yesterday.utc_date().format("%Y%m%d").to_string();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("twofer.adi");
    std::fs::write(
        &file,
        format!(
            "<EOH>\n<CALL:5>K1ABC <QSO_DATE:8>{day} <TIME_ON:4>1200 <FREQ:6>14.062 <MODE:2>CW <STATION_CALLSIGN:4>W1AW <MY_SIG:4>POTA <MY_SIG_INFO:16>us-1234, US-5678 <EOR>\n<CALL:5>K2ABC <QSO_DATE:8>{day} <TIME_ON:4>1205 <FREQ:6>14.062 <MODE:2>CW <STATION_CALLSIGN:4>W1AW <MY_SIG:4>POTA <MY_SIG_INFO:15>US-1234,US-5678 <EOR>\n"
        ),
    )
    .unwrap();
    let summary = import(&cli, file.to_str().unwrap(), &["--auto", "--json"]).json();
    assert_eq!(summary["imported"], 2, "{summary}");
    let activations = api.folders("activation");
    assert_eq!(activations.len(), 1, "{activations:?}");
    assert_eq!(activations[0]["locationReference"], "US-1234,US-5678");
    let id = activations[0]["id"].as_str().unwrap();
    let out = tempfile::tempdir().unwrap();
    let run = cli.run(&[
        "activations",
        "export",
        id,
        "--dir",
        out.path().to_str().unwrap(),
        "--json",
    ]);
    run.ok();
    let answer = run.json();
    assert_eq!(answer["contacts"], 2, "{answer}");
    assert_eq!(answer["records"], 4, "{answer}");
    let files = answer["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{answer}");
    for (file, park) in files.iter().zip(["US-1234", "US-5678"]) {
        assert_eq!(file["park"], park);
        let path = PathBuf::from(file["path"].as_str().unwrap());
        assert_eq!(
            path.file_name().unwrap().to_str().unwrap(),
            format!("W1AW@{park}-{day}.adi")
        );
        let got = records(&path);
        assert_eq!(got.len(), 2);
        for r in &got {
            assert_eq!(r.get("MY_SIG_INFO"), Some(park), "{r:?}");
            assert_eq!(r.get("MY_POTA_REF"), Some(park), "{r:?}");
        }
    }
}

#[test]
fn activation_export() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        activation_export_writes_pota_s_file,
    );
}

#[test]
fn export_window() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        export_takes_a_folder_and_a_window_of_days,
    );
}

#[test]
fn bad_files() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        bad_files_say_which_record_and_store_nothing_of_it,
    );
}

#[test]
fn fifty_megabytes() {
    a_fifty_megabyte_file_is_read_with_flat_memory();
}

#[test]
fn free_plan_cap() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        the_free_plan_cap_stops_an_import_and_says_how_many_went_in,
    );
}

#[test]
fn sloppy_files() {
    crate::common::on(crate::common::Backend::Sqlite, sloppy_files_lose_no_contact);
}

#[test]
fn dry_run() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        a_dry_run_shows_where_each_contact_would_go_and_sends_nothing,
    );
}

/// A two-fer's POTA files (one per park, every QSO in each) imported together into a fresh
/// account: one activation of both parks, each QSO once; the same files again, in either
/// order, change nothing.
fn a_two_fer_s_files_import_back_as_one_two_fer() {
    let (_server, api, cli) = account(ROOMY);
    let yesterday = svc::model::Timestamp(svc::model::Timestamp::now().millis() - 86_400_000);
    let date = yesterday.utc_date().format("%Y-%m-%d").to_string();
    let r = api.post(
        "/v1/activations",
        json!({ "locationReference": "US-5678,US-1234", "callsign": "W1AW", "startTime": format!("{date}T12:00:00Z") }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let activation = r.id();
    for (call, time, worked) in [
        ("N0AA", "12:10:00", None),
        ("K2PTP", "12:20:00", Some("US-0001")),
        ("W9XYZ", "12:30:00", None),
    ] {
        let mut body = json!({
            "folderId": activation, "callsign": call, "frequency": 14.062,
            "mode": "CW", "timeOn": format!("{date}T{time}Z"),
        });
        if let Some(park) = worked {
            body["sig"] = json!("POTA");
            body["sigInfo"] = json!(park);
        }
        assert_eq!(api.post("/v1/contacts", body.clone()).status, 201, "{body}");
    }
    let out = tempfile::tempdir().unwrap();
    let answer = cli
        .run(&[
            "activations",
            "export",
            &activation,
            "--dir",
            out.path().to_str().unwrap(),
            "--json",
        ])
        .json();
    let path_of = |answer: &Value, park: &str| {
        let files = answer["files"].as_array().unwrap();
        assert_eq!(files.len(), 2, "{answer}");
        let file = files.iter().find(|f| f["park"] == park).unwrap();
        file["path"].as_str().unwrap().to_owned()
    };
    let files = [path_of(&answer, "US-1234"), path_of(&answer, "US-5678")];
    let one_file = lines(&records(Path::new(&files[0])));

    let (_other, other_api, other) = account(ROOMY);
    let run = other.run(&["import", "adif", &files[0], &files[1], "--auto", "--json"]);
    run.ok();
    let summary = run.json();
    assert_eq!(summary["imported"], 3, "{summary}");
    assert_eq!(summary["alreadyThere"], 3, "{summary}");
    assert_eq!(summary["twoFer"], 6, "{summary}");
    let activations = other_api.folders("activation");
    assert_eq!(activations.len(), 1, "{activations:?}");
    assert_eq!(activations[0]["locationReference"], "US-1234,US-5678");
    let id = activations[0]["id"].as_str().unwrap();
    let contacts = other_api.all_contacts(id);
    let calls: BTreeSet<&str> = contacts
        .iter()
        .map(|c| c["callsign"].as_str().unwrap())
        .collect();
    assert_eq!(contacts.len(), 3, "{contacts:?}");
    assert_eq!(calls, BTreeSet::from(["N0AA", "K2PTP", "W9XYZ"]));
    assert!(
        contacts.iter().all(|c| c["mySigInfo"] == "US-1234,US-5678"),
        "{contacts:?}"
    );
    assert_eq!(other_api.qso_count(), 3);

    // Again, and the other way round: nothing new.
    for order in [[&files[0], &files[1]], [&files[1], &files[0]]] {
        let summary = other
            .run(&["import", "adif", order[0], order[1], "--auto", "--json"])
            .json();
        assert_eq!(summary["imported"], 0, "{summary}");
        assert_eq!(summary["alreadyThere"], 6, "{summary}");
    }
    assert_eq!(other_api.folders("activation").len(), 1);
    assert_eq!(other_api.qso_count(), 3);

    // Into a third account one file at a time, as a ham who imports each file as it comes:
    // the first makes the activation of its park, the second finds its QSOs there and adds
    // its park; each again, or both, store nothing.
    let (_third, third_api, third) = account(ROOMY);
    let first = third
        .run(&["import", "adif", &files[0], "--auto", "--json"])
        .json();
    assert_eq!(first["imported"], 3, "{first}");
    let second = third.run(&["import", "adif", &files[1], "--auto"]);
    second.ok();
    assert!(
        second.stdout.contains(&format!(
            "activation W1AW@US-1234-{}",
            date.replace('-', "")
        )),
        "{second:?}"
    );
    assert!(
        second.stdout.contains("it is at US-1234,US-5678 now"),
        "{second:?}"
    );
    assert!(
        second.stdout.contains("imported 0, already there 3"),
        "{second:?}"
    );
    let activations = third_api.folders("activation");
    assert_eq!(activations.len(), 1, "{activations:?}");
    assert_eq!(activations[0]["locationReference"], "US-1234,US-5678");
    let contacts = third_api.all_contacts(activations[0]["id"].as_str().unwrap());
    assert_eq!(contacts.len(), 3, "{contacts:?}");
    assert!(
        contacts.iter().all(|c| c["mySigInfo"] == "US-1234,US-5678"),
        "{contacts:?}"
    );
    for run in [
        vec![files[1].as_str()],
        vec![files[0].as_str()],
        vec![files[0].as_str(), files[1].as_str()],
    ] {
        let mut args = vec!["import", "adif"];
        args.extend(&run);
        args.extend(["--auto", "--json"]);
        let summary = third.run(&args).json();
        assert_eq!(summary["imported"], 0, "{run:?}: {summary}");
        assert_eq!(summary["alreadyThere"], 3 * run.len(), "{run:?}: {summary}");
        assert!(summary.get("parksAdded").is_none(), "{summary}");
    }
    assert_eq!(third_api.folders("activation").len(), 1);
    assert_eq!(third_api.qso_count(), 3);

    // Its export is the two files that went in.
    let again = tempfile::tempdir().unwrap();
    let answer = other
        .run(&[
            "activations",
            "export",
            id,
            "--dir",
            again.path().to_str().unwrap(),
            "--json",
        ])
        .json();
    let first = path_of(&answer, "US-1234");
    assert_eq!(lines(&records(Path::new(&first))), one_file);
}

/// An ADX file's entities beyond XML's own (`&xxe;`, however a DOCTYPE declares it) are never
/// expanded nor kept as text: the field they stand in is dropped and named in the summary,
/// and the contact is made from the rest.
#[test]
fn an_adx_entity_of_its_own_costs_its_field_named_in_the_summary() {
    let (_server, api, cli) = account(ROOMY);
    let yesterday = svc::model::Timestamp(svc::model::Timestamp::now().millis() - 86_400_000);
    let day = yesterday.utc_date().format("%Y%m%d").to_string();
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "TOPSECRET").unwrap();
    let file = dir.path().join("entities.adx");
    std::fs::write(
        &file,
        format!(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE ADX [\n  <!ENTITY xxe SYSTEM \"file://{}\">\n  <!ENTITY town \"Boston\">\n]>\n<ADX><HEADER><ADIF_VER>3.1.4</ADIF_VER></HEADER><RECORDS>\n<RECORD><CALL>K1ABC</CALL><QSO_DATE>{day}</QSO_DATE><TIME_ON>1200</TIME_ON><FREQ>14.074</FREQ><MODE>FT8</MODE><NAME>&xxe;</NAME><QTH>near &town;</QTH><COMMENT>caf&#233; &amp; bar</COMMENT></RECORD>\n</RECORDS></ADX>\n",
            secret.display()
        ),
    )
    .unwrap();
    let run = import(&cli, file.to_str().unwrap(), &["--auto", "--json"]);
    run.ok();
    let summary = run.json();
    assert_eq!(summary["imported"], 1, "{summary}");
    assert_eq!(summary["fieldProblemCount"], 2, "{summary}");
    let problems = summary["fieldProblems"].as_array().unwrap();
    for (problem, field, entity) in [
        (&problems[0], "NAME", "&xxe;"),
        (&problems[1], "QTH", "&town;"),
    ] {
        assert_eq!(problem["field"], field, "{summary}");
        let message = problem["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("{field}: {entity} is not an entity ADX defines")),
            "{message}"
        );
        assert!(message.contains("the field was dropped"), "{message}");
    }
    let run = import(&cli, file.to_str().unwrap(), &["--auto", "--dry-run"]);
    run.ok();
    assert!(
        run.stdout.contains("&xxe;") || run.stderr.contains("&xxe;"),
        "{run:?}"
    );

    let stored: Vec<Value> = api
        .folders("monthly")
        .iter()
        .flat_map(|f| api.contacts(f["id"].as_str().unwrap()))
        .collect();
    assert_eq!(stored.len(), 1, "{stored:?}");
    let contact = &stored[0];
    assert_eq!(contact["name"], Value::Null, "{contact}");
    assert_eq!(contact["qth"], Value::Null, "{contact}");
    assert_eq!(contact["comment"], "café & bar", "{contact}");
    let text = contact.to_string();
    assert!(
        !text.contains("TOPSECRET") && !text.contains("xxe") && !text.contains("town"),
        "{text}"
    );
}
