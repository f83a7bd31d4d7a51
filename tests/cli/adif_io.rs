//! svc's ADI as another program reads it: records full of what trips readers up (non-ASCII
//! names, emoji, CJK, multiline notes, program fields, long values) written by
//! `svc::adif::Writer` and read back by the Python package adif-io, an ADIF reader svc has no
//! part in, which must see every field as svc's own reader does; and the ADX export, whose
//! `_INTL` fields give svc's reader the exact text back.

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;
use svc::adif::{Reader, Record, Writer};

/// Reads an ADI file with adif-io and prints its header and records as JSON. The file is read
/// with `newline=""`, because adif-io counts characters of the text it is given, and Python's
/// universal newlines would turn a value's CRLF into one character.
const READ: &str = r#"
import json, sys, adif_io
with open(sys.argv[1], encoding="utf-8", newline="") as f:
    qsos, headers = adif_io.read_from_string(f.read())
print(json.dumps({"headers": dict(headers), "qsos": [dict(q) for q in qsos]}))
"#;

/// The virtual environment's python with adif-io; without it the test is skipped, unless
/// SVC_TEST_REQUIRE_ADIF_IO=1 or SVC_TEST_REQUIRE_PYTHON=1 (as CI sets them) makes that a
/// failure.
fn adif_io() -> Option<std::path::PathBuf> {
    let python = crate::common::python::with(crate::common::python::ADIF_IO, "the adif-io test");
    if python.is_none() && std::env::var("SVC_TEST_REQUIRE_ADIF_IO").is_ok_and(|v| v == "1") {
        panic!("the adif-io test needs adif-io, and SVC_TEST_REQUIRE_ADIF_IO=1 requires it");
    }
    python
}

/// The records of the ADI file at `path` as adif-io reads them, field names upper-case; `None`
/// where adif-io is not there (and not required).
pub fn read_by_adif_io(path: &std::path::Path) -> Option<Vec<BTreeMap<String, String>>> {
    let python = adif_io()?;
    let run = Command::new(&python)
        .args(["-c", READ, path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(run.status.success(), "adif-io failed: {run:?}");
    let theirs: Value = serde_json::from_slice(&run.stdout).unwrap();
    Some(serde_json::from_value(theirs["qsos"].clone()).unwrap())
}

fn record(fields: &[(&str, &str)]) -> Record {
    let mut r = Record::default();
    for (name, value) in fields {
        r.push(name, *value);
    }
    r
}

fn tricky() -> Vec<Record> {
    let long = "Lång text, 日本語 und Grüße 🎉. ".repeat(200);
    vec![
        record(&[
            ("CALL", "OZ1AB"),
            ("QSO_DATE", "20261101"),
            ("TIME_ON", "120000"),
            ("NAME", "Søren Ø"),
            ("QTH", "København"),
            ("COMMENT", "tnx fer QSO 🎉👍"),
        ]),
        record(&[
            ("CALL", "DL1ABC"),
            ("NAME", "Jürgen Groß"),
            ("ADDRESS", "Straße 1\nKöln"),
            ("NOTES", "line one\r\nline two\rline three\n"),
            ("APP_N1MM_EXCHANGE1", "5NN 14"),
            ("APP_LoTW_RXQSL", "2023-01-01 00:00:00"),
        ]),
        record(&[
            ("CALL", "JA1XYZ"),
            ("NAME", "山田 太郎"),
            ("QTH", "東京"),
            ("COMMENT", "<EOR> and <CALL:3> & < > in a value"),
            ("NOTES", &long),
        ]),
        record(&[("CALL", "UA3ABC"), ("NAME", "Сергей"), ("QTH", "Москва")]),
    ]
}

fn as_map(record: &Record) -> BTreeMap<String, String> {
    record.fields.iter().cloned().collect()
}

#[test]
fn adif_io_reads_every_field_as_svc_does() {
    let Some(python) = adif_io() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tricky.adi");
    let mut out = Writer::new(std::fs::File::create(&path).unwrap(), chrono::Utc::now()).unwrap();
    for r in tricky() {
        out.record(&r).unwrap();
    }
    out.finish().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert!(bytes.is_ascii(), "ADI is written in ASCII");

    let reader = Reader::new(bytes.as_slice()).unwrap();
    let header = as_map(reader.header());
    let ours: Vec<Record> = reader.map(Result::unwrap).collect();
    assert_eq!(ours.len(), tricky().len());
    assert!(ours.iter().all(|r| r.problems.is_empty()), "{ours:?}");
    assert_eq!(ours[0].get("NAME"), Some("Soren O"));
    assert_eq!(ours[1].get("NAME"), Some("Jurgen Gross"));
    assert_eq!(
        ours[1].get("NOTES"),
        Some("line one\r\nline two\r\nline three")
    );

    let run = Command::new(&python)
        .args(["-c", READ, path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(run.status.success(), "adif-io failed: {run:?}");
    let theirs: Value = serde_json::from_slice(&run.stdout).unwrap();
    let their_header: BTreeMap<String, String> =
        serde_json::from_value(theirs["headers"].clone()).unwrap();
    assert_eq!(their_header, header);
    assert_eq!(header.get("ADIF_VER").map(String::as_str), Some("3.1.7"));
    let their_records: Vec<BTreeMap<String, String>> =
        serde_json::from_value(theirs["qsos"].clone()).unwrap();
    assert_eq!(their_records.len(), ours.len());
    for (theirs, ours) in their_records.iter().zip(&ours) {
        assert_eq!(theirs, &as_map(ours));
    }
}

/// `svc export adif --format adx`: the same contacts as the ADI export, in ASCII, with the
/// exact text in the `_INTL` fields, which svc's reader gives back.
fn adx_export_keeps_the_exact_text() {
    let server = crate::common::Server::start_with(&[]);
    let api = server.account("W1AW", "elevated");
    let cli = super::Cli::with_key(&server, &api);
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/adif/utf8.adi");
    cli.run(&["import", "adif", file.to_str().unwrap(), "--auto"])
        .ok();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("log.adx");
    cli.run(&[
        "export",
        "adif",
        "--all",
        "--format",
        "adx",
        "--out",
        out.to_str().unwrap(),
    ])
    .ok();
    let bytes = std::fs::read(&out).unwrap();
    assert!(bytes.starts_with(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    let reader = Reader::new(bytes.as_slice()).unwrap();
    assert_eq!(reader.format(), svc::adif::Format::Adx);
    assert_eq!(reader.header().get("ADIF_VER"), Some("3.1.7"));
    let records: Vec<Record> = reader.map(Result::unwrap).collect();
    let jurgen = records
        .iter()
        .find(|r| r.get("CALL") == Some("DL1ABC"))
        .unwrap();
    assert_eq!(jurgen.get("NAME"), Some("Jurgen Oster"));
    assert_eq!(jurgen.get("NAME_INTL"), Some("Jürgen Øster"));
    let run = cli.run(&["export", "adif", "--all", "--format", "xml"]);
    assert_eq!(run.code, 2, "{run:?}");
}

#[test]
fn adx_export() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        adx_export_keeps_the_exact_text,
    );
}
