//! `svc listen wsjtx` benchmark: the release binary listening on loopback UDP, logging into
//! its outbox and sending to a real `svc server start` on SQLite, fed QSO Logged datagrams
//! written here from WSJT-X's NetworkMessage.hpp layout.
//!
//! - Latency: one datagram at a time, from `send_to` to its `logged` event on stdout, which
//!   svc prints once the contact is committed to the outbox on disk (an upper bound of the
//!   datagram-to-disk time: it adds the pipe and this process's reading).
//! - Burst: 1,000 datagrams a second for 10 seconds, each a different QSO, with every fifth
//!   sent twice; every QSO must be logged exactly once (the repeats reported as duplicates),
//!   in the outbox and, once the sender has delivered them, on the service.
//! - Memory: the listener's resident set (VmRSS) idle after start, and its peak (VmHWM).
//!
//! Run with `cargo bench --bench listen`. Timings are printed, never asserted; it exits
//! non-zero only if a QSO is lost or logged twice. The service's burst limit and daily budget
//! are raised: at their defaults a key stores at most 120 contacts a minute (a batch counts
//! each item) and 1,000 a day, so the 11,000 would take the service 92 minutes and 11 days to
//! take in; the listener, which is what is measured, logs them the same either way.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::net::UdpSocket;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;

use common::{BIN, start_server};

const LATENCY_RUNS: usize = 1_000;
const RATE: u64 = 1_000;
const SECONDS: u64 = 10;
/// 1970-01-01 as a Julian day.
const UNIX_EPOCH_JULIAN_DAY: i64 = 2_440_588;

/// QSO Logged (5), schema 2, as WSJT-X 2.6 writes it: `call` in FT8 on 20 m at `at_ms` (ms
/// since the epoch), from NetworkMessage.hpp's table.
fn qso_logged(call: &str, at_ms: i64) -> Vec<u8> {
    fn u32(out: &mut Vec<u8>, v: u32) {
        out.extend_from_slice(&v.to_be_bytes());
    }
    fn utf8(out: &mut Vec<u8>, text: &str) {
        u32(out, text.len() as u32);
        out.extend_from_slice(text.as_bytes());
    }
    // QDateTime: Julian day (qint64), ms since midnight (quint32), timespec 1 (UTC).
    fn datetime(out: &mut Vec<u8>, at_ms: i64) {
        let day = at_ms.div_euclid(86_400_000) + UNIX_EPOCH_JULIAN_DAY;
        out.extend_from_slice(&day.to_be_bytes());
        u32(out, at_ms.rem_euclid(86_400_000) as u32);
        out.push(1);
    }
    let mut out = Vec::with_capacity(200);
    u32(&mut out, 0xADBC_CBDA);
    u32(&mut out, 2);
    u32(&mut out, 5);
    utf8(&mut out, "WSJT-X");
    datetime(&mut out, at_ms + 60_000);
    utf8(&mut out, call);
    utf8(&mut out, "FN42");
    out.extend_from_slice(&14_075_500u64.to_be_bytes());
    for text in ["FT8", "-12", "-07", "100", "", ""] {
        utf8(&mut out, text);
    }
    datetime(&mut out, at_ms);
    for text in ["BENCH1", "BENCH1", "FN31", "", "", ""] {
        utf8(&mut out, text);
    }
    out
}

/// A distinct call for QSO `i`.
fn call(i: usize) -> String {
    let letters = |mut n: usize| {
        let mut s = String::new();
        for _ in 0..3 {
            s.push((b'A' + (n % 26) as u8) as char);
            n /= 26;
        }
        s
    };
    format!("K{}{}", i / 17_576 % 10, letters(i))
}

/// `svc listen wsjtx --json` and its events, each with the instant it was read.
struct Listener {
    child: Child,
    events: Receiver<(Instant, Value)>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Listener {
    fn next(&self, kind: &str, within: Duration) -> Option<(Instant, Value)> {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let (at, event) = self.events.recv_timeout(left).ok()?;
            if event["event"] == kind {
                return Some((at, event));
            }
        }
    }

    /// A line of /proc/PID/status, in MB.
    fn memory(&self, field: &str) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|rest| {
                rest.trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<f64>()
                    .ok()
            })
            .map_or(f64::NAN, |kb| kb / 1024.0)
    }
}

fn percentile(sorted: &[Duration], p: usize) -> f64 {
    let i = (sorted.len() * p / 100).min(sorted.len() - 1);
    sorted[i].as_secs_f64() * 1000.0
}

fn main() -> ExitCode {
    let server = start_server("basic", &["--burst-limit", "--daily-contact-budget"]);
    let home = server.dir.path().join("home");
    let port = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let bind = format!("127.0.0.1:{port}");
    let mut child = Command::new(BIN)
        .args(["listen", "wsjtx", "--json", "--bind", &bind])
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("SVC_NO_KEYRING", "1")
        .env("SVC_API_KEY", &server.key)
        .env("SVC_API_BASE", &server.url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start svc listen");
    let stdout = child.stdout.take().unwrap();
    let (tx, events) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let at = Instant::now();
            let Ok(event) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if tx.send((at, event)).is_err() {
                break;
            }
        }
    });
    let listener = Listener { child, events };
    if listener
        .next("listening", Duration::from_secs(30))
        .is_none()
    {
        eprintln!("svc listen did not start");
        return ExitCode::FAILURE;
    }
    std::thread::sleep(Duration::from_secs(1));
    println!("svc listen wsjtx ({BIN}), logging to svc server on SQLite over loopback");
    println!("idle after start: RSS {:.1} MB", listener.memory("VmRSS:"));
    let wsjtx = UdpSocket::bind("127.0.0.1:0").unwrap();
    let base = svc::model::Timestamp::now().millis() / 1000 * 1000 - 3_600_000;
    let mut failed = false;

    // Latency: one at a time.
    let mut times = Vec::with_capacity(LATENCY_RUNS);
    for i in 0..LATENCY_RUNS {
        let datagram = qso_logged(&call(i), base + i as i64 * 1000);
        let sent = Instant::now();
        wsjtx.send_to(&datagram, &bind).unwrap();
        match listener.next("logged", Duration::from_secs(10)) {
            Some((at, _)) => times.push(at - sent),
            None => {
                eprintln!("QSO {i} was not logged within 10 s");
                return ExitCode::FAILURE;
            }
        }
    }
    times.sort();
    println!(
        "datagram to outbox on disk, {LATENCY_RUNS} one at a time: p50 {:.2} ms  p90 {:.2} ms  p99 {:.2} ms  max {:.2} ms",
        percentile(&times, 50),
        percentile(&times, 90),
        percentile(&times, 99),
        times.last().unwrap().as_secs_f64() * 1000.0
    );

    // Burst: RATE a second for SECONDS, paced against the clock; every fifth sent twice.
    let count = (RATE * SECONDS) as usize;
    let first = LATENCY_RUNS;
    let started = Instant::now();
    let mut sends = 0usize;
    for n in 0..count {
        let due = started + Duration::from_micros(n as u64 * 1_000_000 / RATE);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let i = first + n;
        let datagram = qso_logged(&call(i), base + i as i64 * 1000);
        wsjtx.send_to(&datagram, &bind).unwrap();
        sends += 1;
        if n % 5 == 0 {
            wsjtx.send_to(&datagram, &bind).unwrap();
            sends += 1;
        }
    }
    let sending = started.elapsed();
    let mut logged = HashSet::new();
    let mut twice = 0usize;
    let mut duplicates = 0usize;
    let mut last = started;
    while logged.len() + duplicates < sends {
        let Ok((at, event)) = listener.events.recv_timeout(Duration::from_secs(30)) else {
            break;
        };
        match event["event"].as_str() {
            Some("logged") => {
                last = at;
                if !logged.insert(event["callsign"].as_str().unwrap_or_default().to_owned()) {
                    twice += 1;
                }
            }
            Some("duplicate") => {
                last = at;
                duplicates += 1;
            }
            _ => {}
        }
    }
    let lost = count - logged.len();
    println!(
        "burst: {count} QSOs ({sends} datagrams) sent in {:.2} s; {} logged in {:.2} s ({:.0}/s), {duplicates} repeats reported as duplicates, {lost} lost, {twice} logged twice",
        sending.as_secs_f64(),
        logged.len(),
        (last - started).as_secs_f64(),
        logged.len() as f64 / (last - started).as_secs_f64()
    );
    println!(
        "peak RSS over the run: {:.1} MB (now {:.1} MB)",
        listener.memory("VmHWM:"),
        listener.memory("VmRSS:")
    );
    if lost != 0 || twice != 0 || duplicates != count / 5 {
        failed = true;
    }

    // Delivered: the service holds each QSO once.
    let want = (LATENCY_RUNS + count) as i64;
    let client = reqwest::blocking::Client::new();
    // -1, after saying why, when the service does not answer with a count.
    let stored = || -> i64 {
        let answer = client
            .get(format!("{}/v1/whoami", server.url))
            .bearer_auth(&server.key)
            .send()
            .and_then(|r| r.json::<Value>());
        match answer {
            Ok(whoami) => whoami["nativeQsoCount"].as_i64().unwrap_or_else(|| {
                eprintln!("whoami: {whoami}");
                -1
            }),
            Err(e) => {
                eprintln!("whoami: {e}");
                -1
            }
        }
    };
    let waiting = Instant::now();
    // Asked every 2 s: the listener's sender uses the same key, under the default limit of
    // 120 requests a minute.
    while stored() < want && waiting.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_secs(2));
    }
    let on_service = stored();
    println!(
        "on the service: {on_service} of {want} ({:.1} s after the last was logged)",
        waiting.elapsed().as_secs_f64()
    );
    if on_service != want {
        failed = true;
    }
    drop(listener);
    drop(server);
    if failed {
        eprintln!("a QSO was lost or logged twice");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
