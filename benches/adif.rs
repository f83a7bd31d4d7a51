//! ADIF benchmark: `svc import adif` of a generated 100,000-record file into a local
//! `svc server start` on SQLite, and `svc export adif --all` of those 100,000 contacts (one
//! streamed `GET /v1/adif`), with the wall time, records per second and the client's peak RSS
//! of each run; once with the burst and budgets raised, once with the service's defaults.
//!
//! Run with `cargo bench --bench adif` (or `-- import`, `-- export`, `-- defaults` for one
//! part). Timings are printed, never asserted.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{BIN, Server, start_server};

const RECORDS: usize = 100_000;
const IMPORT_ROUNDS: usize = 3;
const EXPORT_ROUNDS: usize = 3;
const RAISED: &[&str] = &[
    "--burst-limit",
    "--daily-contact-budget",
    "--lifetime-contact-budget",
];

/// A log as WSJT-X writes it: one record a line, lower-case tags, fields svc does not keep,
/// spread over ten months (so `--auto` files them into ten monthly logs).
fn write_log(path: &Path) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(
        out,
        "WSJT-X ADIF Export\n<adif_ver:5>3.1.0\n<programid:6>WSJT-X\n<EOH>"
    )
    .unwrap();
    for n in 0..RECORDS {
        let month = 1 + n % 10;
        let day = 1 + (n / 10) % 28;
        let second = n / 280;
        let time = format!(
            "{:02}{:02}{:02}",
            (second / 3600) % 24,
            (second / 60) % 60,
            second % 60
        );
        let call = format!("K{}A{}", n % 10, char::from(b'A' + (n % 26) as u8));
        writeln!(
            out,
            "<call:{}>{call} <gridsquare:4>FN42 <mode:3>FT8 <rst_sent:3>-10 <rst_rcvd:3>-12 \
             <qso_date:8>2026{month:02}{day:02} <time_on:6>{time} <band:3>20m <freq:9>14.075123 \
             <station_callsign:6>BENCH1 <my_gridsquare:4>FN31 <tx_pwr:2>50 <eor>",
            call.len()
        )
        .unwrap();
    }
    out.flush().unwrap();
}

/// Runs `svc args` against `server`; returns the wall time and the client's peak RSS (KiB).
// The child is reaped by wait4, which std's Child does not know about.
#[allow(clippy::zombie_processes)]
fn run(server: &Server, args: &[&str]) -> (Duration, i64) {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .env("SVC_NO_KEYRING", "1")
        .env("SVC_API_BASE", &server.url)
        .env("SVC_API_KEY", &server.key)
        .env("XDG_DATA_HOME", server.dir.path())
        .env_remove("DBUS_SESSION_BUS_ADDRESS");
    let started = Instant::now();
    let child = cmd.spawn().expect("spawn svc");
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for this child, which std has not reaped.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = started.elapsed();
    assert_eq!(waited, pid, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "svc {args:?} failed with status {status}"
    );
    (elapsed, usage.ru_maxrss)
}

fn report(label: &str, runs: &[(Duration, i64)]) {
    for (n, (t, rss)) in runs.iter().enumerate() {
        println!(
            "{label} run {}: {:.2} s, {:.0} records/s, client peak RSS {:.1} MiB",
            n + 1,
            t.as_secs_f64(),
            RECORDS as f64 / t.as_secs_f64(),
            *rss as f64 / 1024.0
        );
    }
    let best = runs.iter().map(|(t, _)| *t).min().unwrap();
    println!(
        "{label}: best {:.0} records/s",
        RECORDS as f64 / best.as_secs_f64()
    );
}

/// `svc export adif --all --out FILE` of `server`'s contacts, [`EXPORT_ROUNDS`] times; the
/// file must hold every contact.
fn exports(server: &Server, out: &Path) -> Vec<(Duration, i64)> {
    let runs = (0..EXPORT_ROUNDS)
        .map(|_| {
            let out = out.to_str().unwrap();
            run(
                server,
                &["export", "adif", "--all", "--quiet", "--out", out],
            )
        })
        .collect();
    let written = std::fs::read_to_string(out)
        .unwrap()
        .matches("<EOR>")
        .count();
    assert_eq!(written, RECORDS, "every contact exported");
    runs
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wanted = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let files = tempfile::tempdir().unwrap();
    let log = files.path().join("wsjtx_log.adi");
    write_log(&log);
    let size = std::fs::metadata(&log).unwrap().len();
    println!(
        "{RECORDS} records, {:.1} MiB of ADI",
        size as f64 / (1024.0 * 1024.0)
    );
    let log = log.to_str().unwrap();

    // Each import goes into a fresh service, so every record is new.
    let mut server = None;
    if wanted("import") || wanted("export") {
        let mut runs = Vec::new();
        let rounds = if wanted("import") { IMPORT_ROUNDS } else { 1 };
        for _ in 0..rounds {
            let fresh = start_server("elevated", RAISED);
            runs.push(run(&fresh, &["import", "adif", log, "--auto", "--quiet"]));
            server = Some(fresh);
        }
        if wanted("import") {
            report(
                "import adif --auto (SQLite service on loopback, burst and budgets raised)",
                &runs,
            );
        }
    }
    // The service as it starts with no flags: 600 import batches a minute a key, and a
    // lifetime budget of exactly these 100,000 contacts, which are 200 batches.
    if wanted("defaults") {
        let fresh = start_server("elevated", &[]);
        let runs = vec![run(&fresh, &["import", "adif", log, "--auto", "--quiet"])];
        report(
            "import adif --auto (SQLite service with its default limits)",
            &runs,
        );
        let runs = exports(&fresh, &files.path().join("defaults.adi"));
        report("export adif --all --out FILE (default limits)", &runs);
    }
    if wanted("export")
        && let Some(server) = &server
    {
        let runs = exports(server, &files.path().join("out.adi"));
        report("export adif --all --out FILE", &runs);
    }
}
