//! Awards benchmark: `GET /v1/awards/{award}` for each award on a 100,000-contact account, on
//! a `svc server start` with its default limits, SQLite and then PostgreSQL (Debian's, stock).
//! The log is 1,000 days of 100 contacts a day, imported from ADIF as another logger wrote it
//! ([`record`]): 340 entities (some deleted), the 50 states, 40 zones, 3,000 grid squares,
//! eleven bands and three mode classes, LoTW and card confirmations, a park on every fourth
//! contact and an activation every tenth day.
//!
//! On PostgreSQL the awards are asked right after the import and again after `ANALYZE`.
//!
//! Run with `cargo bench --bench awards` (`-- sqlite` or `-- postgres` for one backend).
//! Timings are printed, never asserted; it exits non-zero only if an award comes back wrong.

use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

mod common;

use common::{
    BIN, Server, fresh_postgres_database, postgres_analyze, start_server, start_server_on,
};
use svc::model::awards::{STATES, entities};

const CONTACTS: usize = 100_000;
const RUNS: usize = 7;
const BANDS: [(&str, &str); 11] = [
    ("160m", "1.840"),
    ("80m", "3.573"),
    ("40m", "7.074"),
    ("30m", "10.136"),
    ("20m", "14.074"),
    ("17m", "18.100"),
    ("15m", "21.074"),
    ("12m", "24.915"),
    ("10m", "28.074"),
    ("6m", "50.313"),
    ("2m", "144.174"),
];
const MODES: [&str; 3] = ["FT8", "CW", "SSB"];

/// The `n`th contact as ADIF: a hundred a day, 14.4 minutes apart, from 2024-01-01 on.
fn record(n: usize, codes: &[u16]) -> String {
    const START_MS: i64 = 1_704_067_200_000; // 2024-01-01T00:00:00Z
    let at = START_MS + (n / 100) as i64 * 86_400_000 + (n % 100) as i64 * 864_000;
    let text = svc::model::Timestamp(at).to_string();
    let (date, time) = (text[..10].replace('-', ""), text[11..19].replace(':', ""));
    let call = format!("K{}A{}{}", n % 10, char::from(b'A' + (n % 26) as u8), n % 7);
    let (band, freq) = BANDS[n % BANDS.len()];
    let mode = MODES[(n / 11) % MODES.len()];
    // A third of the log is in the USA, each state in turn, as a US station's log is.
    let dxcc = if n.is_multiple_of(3) {
        291
    } else {
        codes[n % codes.len()]
    };
    let mut out = String::new();
    let mut field = |name: &str, value: &str| {
        out.push_str(&format!("<{name}:{}>{value} ", value.len()));
    };
    field("CALL", &call);
    field("QSO_DATE", &date);
    field("TIME_ON", &time);
    field("BAND", band);
    field("FREQ", freq);
    field("MODE", mode);
    field("STATION_CALLSIGN", "BENCH1");
    field("DXCC", &dxcc.to_string());
    field("CQZ", &(n % 40 + 1).to_string());
    field("GRIDSQUARE", &grid(n));
    if dxcc == 291 {
        field("STATE", STATES[(n / 3) % STATES.len()].0);
    }
    if n.is_multiple_of(5) {
        field("LOTW_QSL_RCVD", "Y");
    }
    if n.is_multiple_of(13) {
        field("QSL_RCVD", "Y");
    }
    if n.is_multiple_of(4) {
        field("SIG", "POTA");
        field("SIG_INFO", &format!("US-{:04}", n % 2000 + 1));
    }
    if (n / 100).is_multiple_of(10) {
        field("MY_SIG", "POTA");
        field("MY_SIG_INFO", &format!("US-{:04}", (n / 1000) % 500 + 1));
    }
    out.push_str("<EOR>\n");
    out
}

/// One of 3,000 grid squares, as 4, 6 or 8 characters.
fn grid(n: usize) -> String {
    let square = n % 3000;
    let field = |i: usize| char::from(b'A' + (i % 18) as u8);
    let mut grid = format!(
        "{}{}{}{}",
        field(square / 100),
        field(square / 1800 + 3),
        (square / 10) % 10,
        square % 10
    );
    match n % 3 {
        0 => {}
        1 => grid.push_str("pr"),
        _ => grid.push_str("pr07"),
    }
    grid
}

fn write_log(path: &std::path::Path) {
    let codes: Vec<u16> = entities().iter().map(|e| e.code).take(340).collect();
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(out, "Another logger's export\n<ADIF_VER:5>3.1.4\n<EOH>").unwrap();
    for n in 0..CONTACTS {
        out.write_all(record(n, &codes).as_bytes()).unwrap();
    }
    out.flush().unwrap();
}

fn import(server: &Server, log: &std::path::Path) -> Duration {
    let started = Instant::now();
    let out = Command::new(BIN)
        .args(["import", "adif"])
        .arg(log)
        .args(["--auto", "--quiet"])
        .env("SVC_NO_KEYRING", "1")
        .env("SVC_API_BASE", &server.url)
        .env("SVC_API_KEY", &server.key)
        .env("HOME", server.dir.path())
        .env("XDG_DATA_HOME", server.dir.path())
        .env("XDG_CONFIG_HOME", server.dir.path())
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .output()
        .expect("run svc import");
    assert!(
        out.status.success(),
        "import: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    started.elapsed()
}

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Imports the log, then asks each award. On PostgreSQL (`analyze`, its database's URL) twice:
/// right after the import, with the planner's statistics of the empty table, and after
/// `ANALYZE`, which a stock server's autovacuum runs within a minute of such a load.
fn measure(name: &str, server: &Server, analyze: Option<&str>) -> bool {
    let log = server.dir.path().join("log.adi");
    write_log(&log);
    let took = import(server, &log);
    println!(
        "{name}: {CONTACTS} contacts imported in {:.1} s",
        took.as_secs_f64()
    );
    let Some(url) = analyze else {
        return ask_each(name, server);
    };
    let right = ask_each(&format!("{name}, right after the import"), server);
    postgres_analyze(url);
    ask_each(&format!("{name}, after ANALYZE"), server) && right
}

/// Asks each award [`RUNS`] times and prints the median and the slowest.
fn ask_each(name: &str, server: &Server) -> bool {
    let http = reqwest::blocking::Client::new();
    let mut right = true;
    for award in [
        "dxcc",
        "was",
        "waz",
        "vucc",
        "pota-hunter",
        "pota-activator",
    ] {
        let mut times = Vec::with_capacity(RUNS);
        let mut worked = 0;
        while times.len() < RUNS {
            let started = Instant::now();
            let answer = http
                .get(format!("{}/v1/awards/{award}", server.url))
                .bearer_auth(&server.key)
                .send()
                .expect("ask the service");
            let status = answer.status();
            // The import's requests count against the key's burst limit too: a refusal is
            // waited out, as a client does, and not timed.
            if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
                let wait = answer
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok()?.parse().ok())
                    .unwrap_or(1);
                std::thread::sleep(Duration::from_secs(wait));
                continue;
            }
            let body: serde_json::Value = answer.json().expect("a JSON answer");
            times.push(started.elapsed());
            if !status.is_success() {
                eprintln!("{award}: {status} {body}");
                right = false;
                break;
            }
            worked = body["totals"]["mixed"]["worked"].as_u64().unwrap_or(0);
        }
        if worked == 0 {
            eprintln!("{award}: nothing worked on a log that works it");
            right = false;
        }
        times.sort();
        println!(
            "{name}: {award:<14} {worked:>5} worked; median {:>6.1} ms, max {:>6.1} ms ({RUNS} runs)",
            ms(percentile(&times, 0.5)),
            ms(times[times.len() - 1]),
        );
    }
    right
}

fn main() -> std::process::ExitCode {
    let mut right = true;
    if common::wants("sqlite") {
        let server = start_server("elevated", &[]);
        right &= measure("sqlite", &server, None);
    }
    if common::wants("postgres") {
        let db = fresh_postgres_database("svc_bench_awards");
        let dir = tempfile::tempdir().expect("temp dir");
        let server = start_server_on(dir, &db, "elevated", &[]);
        right &= measure("postgres", &server, Some(&db));
    }
    if right {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
