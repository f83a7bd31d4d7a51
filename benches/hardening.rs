//! Public-address benchmark: the memory of a real `svc server start` process (SQLite) while 100
//! sign-ups arrive at once and after, the latency of a valid request while 1,000 idle
//! connections are held open, and another address's latency while one address tries to hold
//! every connection slot.
//!
//! Run with `cargo bench --bench hardening` (all), or `cargo bench --bench hardening -- signups`
//! (or `idle`, `starve`). Figures are printed, never asserted; docs/BENCHMARKS.md records them.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_svc");
const SIGNUPS: usize = 100;
const IDLE_CONNECTIONS: usize = 1_000;
const REQUESTS: usize = 2_000;
const PASSWORD: &str = "correct horse battery";

struct Server {
    child: Child,
    url: String,
    _dir: tempfile::TempDir,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = format!("sqlite://{}", dir.path().join("svc.db").display());
        let log = std::fs::File::create(dir.path().join("server.log")).unwrap();
        let mut child = Command::new(BIN)
            .args([
                "server",
                "start",
                "--bind",
                "127.0.0.1:0",
                "--database",
                &db,
            ])
            .args(["--burst-limit", "1000000"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log))
            .spawn()
            .expect("spawn svc server start");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().trim_start_matches("listening on ").to_owned();
        let add = Command::new(BIN)
            .args(["server", "user", "add", "BENCH1", "--database", &db])
            .output()
            .unwrap();
        assert!(add.status.success());
        Server {
            child,
            url,
            _dir: dir,
        }
    }

    fn key(&self) -> String {
        let db = self.db();
        let out = Command::new(BIN)
            .args(["server", "key", "create", "BENCH1", "--name", "bench"])
            .args(["--tier", "basic", "--database", &db])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    fn db(&self) -> String {
        format!("sqlite://{}", self._dir.path().join("svc.db").display())
    }

    /// Resident memory in MiB, from /proc.
    fn rss_mib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kib: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0);
        kib / 1024.0
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One browser's sign-up from its own address (the server trusts X-Forwarded-For here).
fn sign_up(base: &str, i: usize) -> u16 {
    let http = reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let from = format!("10.{}.{}.1", i / 250, i % 250);
    let form = http
        .get(format!("{base}/signup"))
        .header("x-forwarded-for", &from)
        .send()
        .unwrap();
    let cookie = form
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok()?.split(';').next().map(str::to_owned))
        .collect::<Vec<_>>()
        .join("; ");
    let page = form.text().unwrap();
    let csrf = page
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_default()
        .to_owned();
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("csrf", csrf.as_str()),
            ("callsign", &format!("K{}B{}", i % 10, i)),
            ("password", PASSWORD),
            ("confirm", PASSWORD),
        ])
        .finish();
    http.post(format!("{base}/signup"))
        .header("x-forwarded-for", &from)
        .header("cookie", cookie)
        .header("origin", base)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .map(|r| r.status().as_u16())
        .unwrap_or(0)
}

fn signups() {
    // The server-wide sign-up limit (60 an hour by default) would turn most of the burst away
    // before any hashing, which is what is measured here.
    let server = Server::start(&["--trust-proxy", "--signup-limit", "1000"]);
    std::thread::sleep(Duration::from_millis(500));
    let idle_before = server.rss_mib();
    let started = Instant::now();
    let workers: Vec<_> = (0..SIGNUPS)
        .map(|i| {
            let base = server.url.clone();
            std::thread::spawn(move || sign_up(&base, i))
        })
        .collect();
    let mut peak = 0.0f64;
    while workers.iter().any(|w| !w.is_finished()) {
        peak = peak.max(server.rss_mib());
        std::thread::sleep(Duration::from_millis(20));
    }
    let burst = started.elapsed();
    let statuses: Vec<u16> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    let made = statuses.iter().filter(|s| **s == 303).count();
    let busy = statuses.iter().filter(|s| **s == 429).count();
    let other = SIGNUPS - made - busy;
    let after = server.rss_mib();
    let calm = Instant::now();
    let mut under_30 = None;
    while calm.elapsed() < Duration::from_secs(60) {
        if server.rss_mib() < 30.0 {
            under_30 = Some(calm.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    println!(
        "signups: {SIGNUPS} at once in {:.2} s: {made} made, {busy} told the server is busy (429), {other} other",
        burst.as_secs_f64()
    );
    println!(
        "signups: resident memory {idle_before:.1} MiB before, peak {peak:.1} MiB, {after:.1} MiB when the burst ended, {}",
        match under_30 {
            Some(t) => format!("under 30 MiB {:.1} s later", t.as_secs_f64()),
            None => format!("still {:.1} MiB a minute later", server.rss_mib()),
        }
    );
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1000.0
}

fn requests(base: &str, key: &str) -> String {
    requests_from(base, key, None)
}

/// Times whoami from a loopback address of its own, if given.
fn requests_from(base: &str, key: &str, from: Option<&str>) -> String {
    let mut http = reqwest::blocking::Client::builder();
    if let Some(ip) = from {
        http = http.local_address(ip.parse::<std::net::IpAddr>().unwrap());
    }
    let http = http.build().unwrap();
    for _ in 0..100 {
        http.get(format!("{base}/v1/whoami"))
            .bearer_auth(key)
            .send()
            .unwrap();
    }
    let mut took: Vec<Duration> = (0..REQUESTS)
        .map(|_| {
            let t = Instant::now();
            let r = http
                .get(format!("{base}/v1/whoami"))
                .bearer_auth(key)
                .send()
                .unwrap();
            assert_eq!(r.status(), 200);
            r.bytes().unwrap();
            t.elapsed()
        })
        .collect();
    took.sort();
    format!(
        "p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(&took, 0.50),
        percentile(&took, 0.99),
        percentile(&took, 1.0)
    )
}

fn raise_own_open_files() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed to them.
    unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
        limit.rlim_cur = limit.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
    }
}

fn idle() {
    raise_own_open_files();
    // The idle connections must outlast the measurement: the head time-out is raised for it.
    // The 1,000 idle connections stand for many clients, but all come from the bench's one
    // address: its share of the slots (512 by default) is raised to hold them.
    let server = Server::start(&[
        "--header-timeout",
        "600",
        "--max-connections-per-address",
        "4096",
    ]);
    let key = server.key();
    let base = server.url.clone();
    println!("idle: none held: {}", requests(&base, &key));
    let addr = base.trim_start_matches("http://").to_owned();
    let held: Vec<TcpStream> = (0..IDLE_CONNECTIONS)
        .map(|_| TcpStream::connect(&addr).expect("connect"))
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    println!(
        "idle: {} held: {} (server at {:.1} MiB)",
        held.len(),
        requests(&base, &key),
        server.rss_mib()
    );
}

/// One address (127.0.0.2) opens all 4,096 slots' worth of idle connections, as the probe
/// that starved everyone did; the server holds at most its share (512) and refuses the rest.
/// Then another address (127.0.0.3) times whoami, with the server's default limits.
fn starve() {
    raise_own_open_files();
    // Idle connections that outlast the measurement, as a hog reopening them would.
    let server = Server::start(&["--header-timeout", "600"]);
    let key = server.key();
    let base = server.url.clone();
    let addr: std::net::SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let held: Vec<tokio::net::TcpStream> = runtime.block_on(async {
        let mut held = Vec::new();
        for _ in 0..4_096 {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
            if let Ok(stream) = socket.connect(addr).await {
                held.push(stream);
            }
        }
        held
    });
    std::thread::sleep(Duration::from_millis(500));
    println!(
        "starve: 127.0.0.2 connected {} sockets (its share is 512); 127.0.0.3: {} (server at {:.1} MiB)",
        held.len(),
        requests_from(&base, &key, Some("127.0.0.3")),
        server.rss_mib()
    );
    drop(held);
}

fn main() -> ExitCode {
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let run = |name: &str| wanted.is_empty() || wanted.iter().any(|w| w == name);
    if run("signups") {
        signups();
    }
    if run("idle") {
        idle();
    }
    if run("starve") {
        starve();
    }
    ExitCode::SUCCESS
}
