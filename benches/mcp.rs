//! `svc mcp` start-up benchmark: spawns the release binary again and again, sends `initialize`
//! and `tools/list` over stdio and times the run from the spawn to the tools/list answer, then
//! reads the process's resident memory from /proc before closing its stdin. Start-up needs no
//! service (the key is only resolved), so none is started.
//!
//! Run with `cargo bench --bench mcp`. Timings are printed, never asserted.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_svc");
const RUNS: usize = 200;
const WARM_UP: usize = 20;

const REQUESTS: &str = concat!(
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    "\n",
);

/// Time to the tools/list answer, and VmRSS and VmHWM (KiB) right after it.
fn run_once(home: &std::path::Path) -> (Duration, u64, u64) {
    let started = Instant::now();
    let mut child = Command::new(BIN)
        .args(["mcp", "--allow-writes", "--allow-deletes"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home)
        .env("SVC_NO_KEYRING", "1")
        .env("SVC_API_KEY", "svc_live_ABCDEFGHIJKLMNOPQRSTUVWX")
        .env("SVC_API_BASE", "http://127.0.0.1:9")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .spawn()
        .expect("spawn svc mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(REQUESTS.as_bytes()).expect("send");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let tools = loop {
        let line = lines.next().expect("an answer").expect("read");
        if line.starts_with(r#"{"jsonrpc":"2.0","id":2,"#) {
            break line;
        }
    };
    let elapsed = started.elapsed();
    assert!(tools.contains("delete_contact"), "{tools}");
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap_or(0)
    };
    let (rss, hwm) = (field("VmRSS:"), field("VmHWM:"));
    drop(stdin);
    let exit = child.wait().expect("wait");
    assert!(exit.success(), "svc mcp ended with {exit}");
    (elapsed, rss, hwm)
}

fn main() {
    let home = tempfile::tempdir().expect("a home");
    for _ in 0..WARM_UP {
        run_once(home.path());
    }
    let mut times = Vec::with_capacity(RUNS);
    let (mut rss, mut hwm) = (0, 0);
    for _ in 0..RUNS {
        let (t, r, h) = run_once(home.path());
        times.push(t);
        rss = rss.max(r);
        hwm = hwm.max(h);
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "svc mcp, spawn to tools/list answer ({RUNS} runs): median {:.2} ms, p90 {:.2} ms, max {:.2} ms",
        ms(times[RUNS / 2]),
        ms(times[RUNS * 9 / 10]),
        ms(times[RUNS - 1]),
    );
    println!(
        "svc mcp, resident memory after tools/list: VmRSS max {:.1} MB, VmHWM max {:.1} MB",
        rss as f64 / 1024.0,
        hwm as f64 / 1024.0,
    );
}
