//! Real files of other loggers (tests/data/adif/corpus, their sources in SOURCES.md) through the
//! real binary and server: each imports as SOURCES.md's table "What each file imports as" says,
//! and import → export → import → export is a fixed point, in ADI and in ADX.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use svc::adif::{Reader, Record};

use super::Cli;
use super::adif::{ROOMY, account, import, lines};

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/adif/corpus")
}

/// A row of the table: file, records, contacts, refused, faults.
struct Row {
    file: String,
    records: u64,
    contacts: u64,
    refused: u64,
    faults: u64,
}

fn table() -> Vec<Row> {
    let text = std::fs::read_to_string(folder().join("SOURCES.md")).unwrap();
    let start = text
        .find("## What each file imports as")
        .expect("SOURCES.md has the table \"What each file imports as\"");
    let rows: Vec<Row> = text[start..]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let n = |i: usize| cells[i].parse::<u64>().unwrap_or_else(|_| panic!("{l}"));
            Row {
                file: cells[1].trim_matches('`').to_owned(),
                records: n(2),
                contacts: n(3),
                refused: n(4),
                faults: n(5),
            }
        })
        .collect();
    // Every file of the folder has its row, and every row its file.
    let files: BTreeSet<String> = std::fs::read_dir(folder())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "SOURCES.md")
        .collect();
    let named: BTreeSet<String> = rows.iter().map(|r| r.file.clone()).collect();
    assert_eq!(files, named, "SOURCES.md's table and the folder differ");
    rows
}

fn export(cli: &Cli, path: &Path, format: &str) -> Vec<Record> {
    cli.run(&[
        "export",
        "adif",
        "--all",
        "--format",
        format,
        "--out",
        path.to_str().unwrap(),
    ])
    .ok();
    let file = std::fs::File::open(path).unwrap();
    Reader::new(std::io::BufReader::new(file))
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            assert!(
                r.problems.is_empty(),
                "svc's own export read with faults: {r:?}"
            );
            r
        })
        .collect()
}

fn every_file_imports_as_documented_and_round_trips() {
    let (_server, _api, cli) = account(ROOMY);
    let mut contacts = 0;
    for row in table() {
        let path = folder().join(&row.file);
        let run = import(&cli, path.to_str().unwrap(), &["--auto", "--json"]);
        let mut summary = run.json();
        let name = &row.file;
        // The refusals are in the summary's text; a failed check shows the counts.
        summary["refused"] = summary["refused"]
            .as_array()
            .map(|r| serde_json::Value::from(r.iter().take(3).cloned().collect::<Vec<_>>()))
            .unwrap_or_default();
        let went =
            summary["imported"].as_u64().unwrap() + summary["alreadyThere"].as_u64().unwrap();
        assert_eq!(summary["records"], row.records, "{name}: {summary}");
        assert_eq!(went, row.contacts, "{name}: {summary}");
        assert_eq!(summary["refusedCount"], row.refused, "{name}: {summary}");
        assert_eq!(
            summary["fieldProblemCount"], row.faults,
            "{name}: {summary}"
        );
        assert_eq!(
            run.code,
            if row.refused == 0 { 0 } else { 2 },
            "{name}: {run:?}"
        );
        contacts += summary["imported"].as_u64().unwrap();
    }

    let dir = tempfile::tempdir().unwrap();
    for format in ["adi", "adx"] {
        let first = export(&cli, &dir.path().join(format!("first.{format}")), format);
        assert_eq!(first.len() as u64, contacts, "{format}");
        let (_other, _other_api, other) = account(ROOMY);
        let path = dir.path().join(format!("first.{format}"));
        let summary = import(&other, path.to_str().unwrap(), &["--auto", "--json"]).json();
        assert_eq!(summary["imported"].as_u64().unwrap(), contacts, "{summary}");
        assert_eq!(summary["refusedCount"], 0, "{summary}");
        let second = export(&other, &dir.path().join(format!("second.{format}")), format);
        let (a, b) = (lines(&first), lines(&second));
        let only_first: Vec<_> = a.difference(&b).take(3).collect();
        let only_second: Vec<_> = b.difference(&a).take(3).collect();
        assert!(
            only_first.is_empty() && only_second.is_empty(),
            "{format}: the second export differs:\n first only: {only_first:#?}\n second only: {only_second:#?}"
        );
    }
}

crate::both_backends!(every_file_imports_as_documented_and_round_trips);
