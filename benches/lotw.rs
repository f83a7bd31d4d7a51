//! LoTW benchmark: `svc lotw sync` against a 100,000-contact log on a `svc server start`
//! (SQLite, then PostgreSQL; the service's default limits), fed by a LoTW stand-in on
//! loopback: a first sync
//! of 20,000 confirmations, then an incremental one of the 25 LoTW matched since. The log is
//! 1,000 days of 100 contacts a day ([`contact`]). Prints the
//! wall time of each and the client's peak RSS; exits non-zero only if a confirmation is not
//! written as it should be.
//!
//! Run with `cargo bench --bench lotw`, or one backend: `cargo bench --bench lotw -- sqlite`
//! (or `postgres`: the local server as Debian installs it, or `SVC_BENCH_POSTGRES_URL`).
//! Timings are printed, never asserted.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;

use common::{
    BIN, Server, drop_postgres_database, fresh_postgres_database, postgres_analyze, start_server,
    start_server_on,
};

const CONTACTS: usize = 100_000;
/// Every fifth contact is confirmed by the first report.
const CONFIRMED: usize = 20_000;
const LATER: usize = 25;
const PASSWORD: &str = "bench-pw";
const FIRST_LAST_QSL: &str = "2026-11-20 00:00:00";

/// The `n`th contact of the log: its call, and when it was made as ADIF writes it (QSO_DATE,
/// TIME_ON). A hundred a day, 14.4 minutes apart, from 2024-01-01 on (1,000 days): a
/// ±30-minute window around a QSO holds four or five contacts, as in a log built over years.
fn contact(n: usize) -> (String, String, String) {
    const START_MS: i64 = 1_704_067_200_000; // 2024-01-01T00:00:00Z
    let at = START_MS + (n / 100) as i64 * 86_400_000 + (n % 100) as i64 * 864_000;
    let text = svc::model::Timestamp(at).to_string(); // 2024-01-01T00:14:24Z
    let date = text[..10].replace('-', "");
    let time = text[11..19].replace(':', "");
    let call = format!("K{}A{}{}", n % 10, char::from(b'A' + (n % 26) as u8), n % 7);
    (call, date, time)
}

/// The log as WSJT-X writes it, for `svc import adif --auto`.
fn write_log(path: &std::path::Path) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(out, "WSJT-X ADIF Export\n<adif_ver:5>3.1.0\n<EOH>").unwrap();
    for n in 0..CONTACTS {
        let (call, date, time) = contact(n);
        writeln!(
            out,
            "<call:{}>{call} <mode:3>FT8 <qso_date:8>{date} <time_on:6>{time} \
             <band:3>20m <freq:9>14.075123 <station_callsign:6>BENCH1 <eor>",
            call.len()
        )
        .unwrap();
    }
    out.flush().unwrap();
}

fn field(name: &str, value: &str) -> String {
    format!("<{name}:{}>{value}\n", value.len())
}

/// A report as ARRL's documentation of lotwreport.adi describes it, of the contacts `ns`,
/// matched at `matched`.
fn report(ns: impl Iterator<Item = usize>, matched: &str) -> Vec<u8> {
    let mut records = String::new();
    let mut count = 0;
    for n in ns {
        let (call, date, time) = contact(n);
        records.push('\n');
        records.push_str(&field("APP_LoTW_OWNCALL", "BENCH1"));
        records.push_str(&field("STATION_CALLSIGN", "BENCH1"));
        records.push_str(&field("CALL", &call));
        records.push_str(&field("BAND", "20M"));
        records.push_str(&field("MODE", "FT8"));
        records.push_str(&format!("<QSO_DATE:8>{date} // QSO Date\n"));
        records.push_str(&format!("<TIME_ON:6>{time} // Time\n"));
        records.push_str(&field("QSL_RCVD", "Y"));
        records.push_str(&field("QSLRDATE", &matched[..10].replace('-', "")));
        records.push_str(&field("DXCC", "291"));
        records.push_str(&field("STATE", "MA"));
        records.push_str(&field("GRIDSQUARE", "FN42"));
        records.push_str("<eor>\n");
        count += 1;
    }
    let mut text = String::from("ARRL Logbook of the World Status Report\n");
    text.push_str(&field("PROGRAMID", "LoTW"));
    text.push_str(&field("APP_LoTW_LASTQSL", matched));
    text.push_str(&field("APP_LoTW_NUMREC", &count.to_string()));
    text.push_str("<eoh>\n");
    text.push_str(&records);
    text.push_str("\n<APP_LoTW_EOF>\n");
    text.into_bytes()
}

/// The LoTW stand-in: the first report for a download from the start, the later one for a
/// download since the first's APP_LoTW_LASTQSL.
fn serve_lotw(first: Vec<u8>, later: Vec<u8>) -> (String, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let (first, later) = (Arc::new(first), Arc::new(later));
    let app = axum::Router::new().route(
        "/lotwreport.adi",
        axum::routing::get(move |axum::extract::RawQuery(q): axum::extract::RawQuery| {
            let (first, later) = (first.clone(), later.clone());
            async move {
                let q = q.unwrap_or_default();
                if q.contains("qso_qslsince=2026-11-20") {
                    later.as_ref().clone()
                } else if q.contains("qso_qslsince=1900") {
                    first.as_ref().clone()
                } else {
                    // `svc lotw connect` checks the login with today's QSLs: none.
                    report(std::iter::empty(), FIRST_LAST_QSL)
                }
            }
        }),
    );
    runtime.spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/lotwreport.adi"), runtime)
}

/// `svc args` with the bench's environment; stdout, the wall time and the peak RSS (KiB).
// The child is reaped by wait4, which std's Child does not know about.
#[allow(clippy::zombie_processes)]
fn run(server: &Server, lotw: &str, args: &[&str], stdin: &str) -> (String, Duration, i64) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .env("SVC_NO_KEYRING", "1")
        .env("SVC_API_BASE", &server.url)
        .env("SVC_API_KEY", &server.key)
        .env("SVC_LOTW_URL", lotw)
        .env("HOME", server.dir.path())
        .env("XDG_DATA_HOME", server.dir.path())
        .env("XDG_CONFIG_HOME", server.dir.path())
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .spawn()
        .expect("spawn svc");
    let started = Instant::now();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut text).unwrap();
        text
    });
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for this child, which std has not reaped.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = started.elapsed();
    assert_eq!(waited, pid, "wait4 failed");
    let out = reader.join().unwrap();
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "svc {args:?} failed with status {status}: {out}"
    );
    (out, elapsed, usage.ru_maxrss)
}

fn main() -> std::process::ExitCode {
    let mut right = true;
    if common::wants("sqlite") {
        right &= measure("sqlite", &start_server("elevated", &[]), None);
    }
    if common::wants("postgres") {
        let db = fresh_postgres_database("svc_bench_lotw");
        let dir = tempfile::tempdir().expect("temp dir");
        let server = start_server_on(dir, &db, "elevated", &[]);
        right &= measure("postgres", &server, Some(&db));
        drop(server);
        drop_postgres_database("svc_bench_lotw");
    }
    if right {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}

/// Imports the log into `server` (on `backend`; `postgres`, its URL, is analyzed after the
/// import as a stock server's autovacuum would), then times the two syncs; `false` when a
/// sync did not confirm exactly what it should.
fn measure(backend: &str, server: &Server, postgres: Option<&str>) -> bool {
    let log = server.dir.path().join("wsjtx_log.adi");
    write_log(&log);
    let started = Instant::now();
    let log = log.to_str().unwrap();
    run(
        server,
        "",
        &["import", "adif", log, "--auto", "--quiet"],
        "",
    );
    println!(
        "{backend}: {CONTACTS} contacts imported in {:.1} s (default limits)",
        started.elapsed().as_secs_f64()
    );
    if let Some(url) = postgres {
        postgres_analyze(url);
    }
    let first = report((0..CONTACTS).step_by(5), FIRST_LAST_QSL);
    let later = report((1..CONTACTS).step_by(5).take(LATER), "2026-11-25 12:00:00");
    println!(
        "first report {CONFIRMED} QSLs, {:.1} MiB; later report {LATER} QSLs",
        first.len() as f64 / (1024.0 * 1024.0)
    );
    let (lotw, _runtime) = serve_lotw(first, later);
    run(
        server,
        &lotw,
        &["lotw", "connect", "--user", "BENCH1", "--password-stdin"],
        PASSWORD,
    );
    for (label, want) in [("first sync", CONFIRMED), ("incremental sync", LATER)] {
        let (out, took, rss) = run(server, &lotw, &["lotw", "sync", "--json"], "");
        let answer: serde_json::Value = serde_json::from_str(&out).expect("sync's JSON");
        let confirmed = answer["confirmed"].as_u64().unwrap_or(0) as usize;
        println!(
            "{backend} {label}: {} QSLs read, {confirmed} confirmed, in {:.2} s; client peak RSS {:.1} MiB",
            answer["read"],
            took.as_secs_f64(),
            rss as f64 / 1024.0
        );
        if confirmed != want {
            eprintln!("{backend} {label}: {confirmed} confirmed, {want} expected: {answer}");
            return false;
        }
    }
    true
}
