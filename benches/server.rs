//! Service benchmark: drives the real `svc server start` process over loopback with a fresh
//! SQLite file and prints creates per second at several concurrency levels, the latency of a
//! 200-item contacts page, the server's memory, and a durability check after `kill -9`.
//!
//! Run with `cargo bench --bench server`. Timings are printed, never asserted; the bench exits
//! non-zero only when a contact acknowledged with 201 is missing after the crash.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use chrono::{SecondsFormat, Utc};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sqlx::Connection;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};

const BIN: &str = env!("CARGO_BIN_EXE_svc");
/// The bench account's callsign (a callsign needs a digit, so not plain BENCH).
const ACCOUNT: &str = "BENCH1";
/// Creates sent before the measured runs (connections, caches, the database file's first pages).
const WARM_UP_CREATES: usize = 1_000;
/// Requests in flight for each measured create run.
const IN_FLIGHT: [usize; 4] = [1, 8, 32, 64];
const CREATES_PER_RUN: usize = 10_000;
const PAGE_LIMIT: usize = 200;
const PAGE_WARM_UP: usize = 200;
const PAGE_REQUESTS: usize = 2_000;
/// Requests in flight while the server is killed, and how long they run before the kill.
const CRASH_IN_FLIGHT: usize = 32;
const CRASH_AFTER: Duration = Duration::from_secs(2);
/// Clock ticks per second of /proc/PID/stat (USER_HZ, 100 on Linux).
const USER_HZ: u64 = 100;

/// The running server process.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(db_url: &str, log: &Path) -> Server {
        let log = std::fs::File::create(log).expect("create the server log file");
        let mut child = Command::new(BIN)
            .args([
                "server",
                "start",
                "--bind",
                "127.0.0.1:0",
                "--database",
                db_url,
            ])
            .args(["--burst-limit", "100000000"])
            .args(["--daily-contact-budget", "100000000"])
            .args(["--lifetime-contact-budget", "100000000"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("spawn svc server start");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("server stdout"))
            .read_line(&mut line)
            .expect("read the server's first line");
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line from the server: {line:?}"))
            .to_owned();
        Server { child, url }
    }

    fn pid(&self) -> String {
        self.child.id().to_string()
    }

    /// A `VmRSS`/`VmHWM`-style line of /proc/PID/status, in MB.
    fn memory_mb(&self, field: &str) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .expect("read /proc/PID/status");
        let kb: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.trim().strip_suffix(" kB")?.parse().ok())
            .unwrap_or_else(|| panic!("no {field} in /proc/PID/status"));
        kb / 1024.0
    }
}

impl Drop for Server {
    /// Stops the server when the bench ends early (a panic), so no process is left behind.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// User plus system CPU time a process has used so far (`self` or a pid).
fn cpu_time(pid: &str) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("read /proc/PID/stat");
    // Fields after the parenthesized command name start with field 3; utime and stime are 14, 15.
    let fields: Vec<&str> = stat[stat.rfind(')').expect("stat has a name") + 2..]
        .split_whitespace()
        .collect();
    let ticks: u64 =
        fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    Duration::from_millis(ticks * 1000 / USER_HZ)
}

/// Runs `svc server <args> --database <db_url>` and returns its stdout.
fn admin(db_url: &str, args: &[&str]) -> String {
    let out = Command::new(BIN)
        .arg("server")
        .args(args)
        .args(["--database", db_url])
        .output()
        .expect("run svc server");
    assert!(
        out.status.success(),
        "svc server {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// An HTTP client with the bench account's key.
#[derive(Clone)]
struct Api {
    http: reqwest::Client,
    base: String,
    key: String,
}

impl Api {
    async fn post(&self, path: &str, body: &Value) -> Result<(StatusCode, Value), String> {
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.key)
            .json(body)
            .send()
            .await
            .map_err(|e| format!("POST {path}: {e}"))?;
        let status = response.status();
        let body = response
            .json()
            .await
            .map_err(|e| format!("POST {path}: {e}"))?;
        Ok((status, body))
    }

    async fn create_contact(&self, folder: &str, n: usize) -> Result<String, String> {
        let body = json!({
            "folderId": folder,
            "callsign": format!("W{n}BN"),
            "frequency": 14.074,
            "mode": "FT8",
            "timeOn": Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true),
        });
        match self.post("/v1/contacts", &body).await? {
            (StatusCode::CREATED, body) => body["id"]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("201 without an id: {body}")),
            (status, body) => Err(format!("POST /v1/contacts answered {status}: {body}")),
        }
    }
}

/// What a create run did: each acknowledged contact with its latency, and the first error.
struct Run {
    created: Vec<(String, Duration)>,
    elapsed: Duration,
    error: Option<String>,
}

/// Creates up to `total` contacts from `in_flight` concurrent clients; each client stops at its
/// first failure.
async fn create_run(api: &Api, folder: &str, in_flight: usize, total: usize) -> Run {
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let clients: Vec<_> = (0..in_flight)
        .map(|_| {
            let (api, folder, next) = (api.clone(), folder.to_owned(), next.clone());
            tokio::spawn(async move {
                let mut created = Vec::new();
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= total {
                        return (created, None);
                    }
                    let sent = Instant::now();
                    match api.create_contact(&folder, n).await {
                        Ok(id) => created.push((id, sent.elapsed())),
                        Err(e) => return (created, Some(e)),
                    }
                }
            })
        })
        .collect();
    let (mut created, mut error) = (Vec::new(), None);
    for client in clients {
        let (done, failure) = client.await.expect("client task");
        created.extend(done);
        error = error.or(failure);
    }
    Run {
        created,
        elapsed: started.elapsed(),
        error,
    }
}

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Times sequential `GET /v1/folders/{id}/contacts?limit=200` requests to the full response body.
async fn page_latencies(api: &Api, folder: &str) -> Vec<Duration> {
    let url = format!(
        "{}/v1/folders/{folder}/contacts?limit={PAGE_LIMIT}",
        api.base
    );
    let mut latencies = Vec::with_capacity(PAGE_REQUESTS);
    for i in 0..PAGE_WARM_UP + PAGE_REQUESTS {
        let sent = Instant::now();
        let response = api
            .http
            .get(&url)
            .bearer_auth(&api.key)
            .send()
            .await
            .expect("GET contacts page");
        let status = response.status();
        let body = response.bytes().await.expect("read the contacts page");
        let elapsed = sent.elapsed();
        let page: Value = serde_json::from_slice(&body).expect("contacts page is JSON");
        let items = page["items"].as_array().map_or(0, Vec::len);
        assert!(
            status == StatusCode::OK && items == PAGE_LIMIT,
            "GET contacts page answered {status} with {items} items: {page}"
        );
        if i >= PAGE_WARM_UP {
            latencies.push(elapsed);
        }
    }
    latencies.sort();
    latencies
}

/// The contact ids in the database file, read with a connection of our own.
async fn stored_contact_ids(db_path: &Path) -> HashSet<String> {
    let mut db = SqliteConnection::connect_with(&SqliteConnectOptions::new().filename(db_path))
        .await
        .expect("reopen the database");
    sqlx::query_scalar("SELECT id FROM contacts")
        .fetch_all(&mut db)
        .await
        .expect("read the contact ids")
        .into_iter()
        .collect()
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines().find_map(|l| {
                Some(
                    l.strip_prefix("model name")?
                        .split_once(':')?
                        .1
                        .trim()
                        .to_owned(),
                )
            })
        })
        .unwrap_or_else(|| "unknown CPU".to_owned())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let dir = tempfile::tempdir().expect("temp dir");
    let db_path = dir.path().join("svc.db");
    let db_url = format!("sqlite://{}", db_path.display());
    admin(&db_url, &["user", "add", ACCOUNT, "--plan", "paid"]);
    let key = admin(
        &db_url,
        &[
            "key", "create", ACCOUNT, "--name", "bench", "--tier", "elevated",
        ],
    );
    let mut server = Server::start(&db_url, &dir.path().join("server.log"));
    tokio::time::sleep(Duration::from_millis(200)).await;
    let idle_rss = server.memory_mb("VmRSS");

    let api = Api {
        http: reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .expect("HTTP client"),
        base: server.url.clone(),
        key: key.trim().to_owned(),
    };
    let month = Utc::now().format("%Y-%m").to_string();
    let (status, folder) = api
        .post("/v1/folders", &json!({"type": "monthly", "month": month}))
        .await
        .expect("POST /v1/folders");
    assert!(
        status.is_success(),
        "POST /v1/folders answered {status}: {folder}"
    );
    let folder = folder["id"].as_str().expect("folder id").to_owned();

    println!(
        "svc service benchmark: {} cores, {}; database {} (WAL, synchronous=FULL)",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model(),
        db_path.display()
    );
    let mut acknowledged: HashSet<String> = HashSet::new();
    let warm_up = create_run(&api, &folder, 8, WARM_UP_CREATES).await;
    if let Some(e) = warm_up.error {
        panic!("warm-up create failed: {e}");
    }
    acknowledged.extend(warm_up.created.into_iter().map(|(id, _)| id));

    println!(
        "\nPOST /v1/contacts, {CREATES_PER_RUN} creates per run after {WARM_UP_CREATES} warm-up creates"
    );
    println!(
        "{:>9} {:>10} {:>8} {:>8} {:>8} {:>11} {:>11}",
        "in flight", "creates/s", "p50 ms", "p99 ms", "max ms", "server CPU", "bench CPU"
    );
    let mut best_rate: f64 = 0.0;
    for in_flight in IN_FLIGHT {
        let (server_cpu, bench_cpu) = (cpu_time(&server.pid()), cpu_time("self"));
        let run = create_run(&api, &folder, in_flight, CREATES_PER_RUN).await;
        if let Some(e) = run.error {
            panic!("create failed with {in_flight} in flight: {e}");
        }
        let server_cpu = cpu_time(&server.pid()) - server_cpu;
        let bench_cpu = cpu_time("self") - bench_cpu;
        let mut latencies: Vec<Duration> = run.created.iter().map(|(_, d)| *d).collect();
        latencies.sort();
        let rate = run.created.len() as f64 / run.elapsed.as_secs_f64();
        best_rate = best_rate.max(rate);
        println!(
            "{in_flight:>9} {rate:>10.0} {:>8.2} {:>8.2} {:>8.2} {:>10.0}% {:>10.0}%",
            ms(percentile(&latencies, 0.50)),
            ms(percentile(&latencies, 0.99)),
            ms(*latencies.last().expect("latencies")),
            100.0 * server_cpu.as_secs_f64() / run.elapsed.as_secs_f64(),
            100.0 * bench_cpu.as_secs_f64() / run.elapsed.as_secs_f64(),
        );
        acknowledged.extend(run.created.into_iter().map(|(id, _)| id));
    }
    println!(
        "(CPU is the share of one core over the run's wall time; the machine has 200% on 2 cores)"
    );
    let loaded_rss = server.memory_mb("VmRSS");

    let in_folder = acknowledged.len();
    let pages = page_latencies(&api, &folder).await;
    println!(
        "\nGET /v1/folders/{{id}}/contacts?limit={PAGE_LIMIT}, {in_folder} contacts in the folder, \
         {PAGE_REQUESTS} sequential requests after {PAGE_WARM_UP} warm-up"
    );
    println!(
        "p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        ms(percentile(&pages, 0.50)),
        ms(percentile(&pages, 0.99)),
        ms(*pages.last().expect("page latencies"))
    );
    let peak_rss = server.memory_mb("VmHWM");

    println!(
        "\nserver memory: VmRSS idle {idle_rss:.1} MB, after the create load {loaded_rss:.1} MB, VmHWM {peak_rss:.1} MB"
    );

    println!("\n{:<48} {:>10} {:>10}", "figure", "measured", "target");
    println!(
        "{:<48} {:>10.0} {:>10}",
        "creates/s, best of 1/8/32/64 in flight", best_rate, ">= 3000"
    );
    println!(
        "{:<48} {:>10.2} {:>10}",
        "contacts page p99 (ms), 200 items",
        ms(percentile(&pages, 0.99)),
        "<= 5"
    );
    println!("{:<48} {:>10.1} {:>10}", "idle RSS (MB)", idle_rss, "<= 20");
    println!(
        "{:<48} {:>10.1} {:>10}",
        "RSS after the create load (MB)", loaded_rss, "-"
    );
    println!(
        "{:<48} {:>10.1} {:>10}",
        "peak RSS, VmHWM (MB)", peak_rss, "-"
    );

    // Durability: kill -9 the server while creates are in flight, then read the file back.
    let (crash, ()) = tokio::join!(
        create_run(&api, &folder, CRASH_IN_FLIGHT, usize::MAX),
        async {
            tokio::time::sleep(CRASH_AFTER).await;
            server.child.kill().expect("kill -9 the server");
            server.child.wait().expect("reap the server");
        }
    );
    println!(
        "\ndurability: kill -9 after {CRASH_AFTER:?} of creates with {CRASH_IN_FLIGHT} in flight; \
         {} acknowledged in that run, whose clients then stopped on: {}",
        crash.created.len(),
        crash.error.as_deref().unwrap_or("nothing")
    );
    acknowledged.extend(crash.created.into_iter().map(|(id, _)| id));
    let stored = stored_contact_ids(&db_path).await;
    let missing = acknowledged.difference(&stored).count();
    println!(
        "{} contacts acknowledged with 201 in all, {} rows in the reopened database, \
         {missing} acknowledged contacts missing: {}",
        acknowledged.len(),
        stored.len(),
        if missing == 0 { "OK" } else { "FAILED" }
    );
    if missing == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
