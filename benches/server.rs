//! Service benchmark: drives real `svc server start` processes over loopback and prints creates
//! per second at several concurrency levels, the latency of a 200-item contacts page, contacts
//! per second through `POST /v1/contacts/batch`, the servers' memory, and a durability check
//! after `kill -9`. It runs three deployments: SQLite with one process, and PostgreSQL with one
//! and with two processes on one database.
//!
//! Run with `cargo bench --bench server` (all three), or `cargo bench --bench server -- sqlite`
//! (or `postgres-1`, `postgres-2`, `postgres`) for some; naming phases (`creates`, `page`,
//! `batch`, `durability`) runs only those, e.g. `cargo bench --bench server -- sqlite batch`. PostgreSQL is reached at
//! `SVC_BENCH_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`), where the
//! bench creates a database of its own and drops it after. Timings are printed, never asserted;
//! the bench exits non-zero only when a contact acknowledged with 201 is missing after the crash.

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
use sqlx::{Connection, Executor};

const BIN: &str = env!("CARGO_BIN_EXE_svc");
/// The bench account's callsign (a callsign needs a digit, so not plain BENCH).
const ACCOUNT: &str = "BENCH1";
/// Creates sent before the measured runs (connections, caches, the database file's first pages).
const WARM_UP_CREATES: usize = 1_000;
/// Requests in flight for each measured create run.
const IN_FLIGHT: [usize; 4] = [1, 8, 32, 64];
const CREATES_PER_RUN: usize = 10_000;
/// Contacts per measured batch run, sent `POST /v1/contacts/batch` with `BATCH_SIZE` items each.
const BATCH_CONTACTS: usize = 20_000;
const BATCH_SIZE: usize = 500;
/// Batches in flight for each measured batch run.
const BATCH_IN_FLIGHT: [usize; 3] = [1, 2, 4];
/// Contacts sent in batches before the measured batch runs.
const BATCH_WARM_UP: usize = 2_000;
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
    // A process that ended since it was listed used no more CPU.
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return Duration::ZERO;
    };
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

/// An HTTP client with the bench account's key, spreading creates over the server processes.
#[derive(Clone)]
struct Api {
    http: reqwest::Client,
    bases: Vec<String>,
    key: String,
}

impl Api {
    async fn post(&self, path: &str, body: &Value) -> Result<(StatusCode, Value), String> {
        self.post_to(0, path, body).await
    }

    async fn post_to(
        &self,
        process: usize,
        path: &str,
        body: &Value,
    ) -> Result<(StatusCode, Value), String> {
        // Like the svc client, every create carries an idempotency key.
        let idempotency_key = format!("bench-{process}-{:x}", rand_u64());
        let response = self
            .http
            .post(format!("{}{path}", self.bases[process % self.bases.len()]))
            .bearer_auth(&self.key)
            .header("Idempotency-Key", idempotency_key)
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
        match self.post_to(n, "/v1/contacts", &body).await? {
            (StatusCode::CREATED, body) => body["id"]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("201 without an id: {body}")),
            (status, body) => Err(format!("POST /v1/contacts answered {status}: {body}")),
        }
    }
}

impl Api {
    /// `POST /v1/contacts/batch` with `count` contacts numbered from `first`, each with its own
    /// `idempotencyKey`; returns the ids of the items answered 201, or the first item or
    /// request that was not.
    async fn create_batch(
        &self,
        process: usize,
        folder: &str,
        first: usize,
        count: usize,
    ) -> Result<Vec<String>, String> {
        let time_on = Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true);
        let run = rand_u64();
        let items: Vec<Value> = (first..first + count)
            .map(|n| {
                json!({
                    "folderId": folder,
                    "callsign": format!("W{n}BB"),
                    "frequency": 14.074,
                    "mode": "FT8",
                    "timeOn": time_on,
                    "idempotencyKey": format!("bench-batch-{run:x}-{n}"),
                })
            })
            .collect();
        let response = self
            .http
            .post(format!(
                "{}/v1/contacts/batch",
                self.bases[process % self.bases.len()]
            ))
            .bearer_auth(&self.key)
            .json(&json!({ "contacts": items }))
            .send()
            .await
            .map_err(|e| format!("POST /v1/contacts/batch: {e}"))?;
        let status = response.status();
        let body: Value = response
            .json()
            .await
            .map_err(|e| format!("POST /v1/contacts/batch: {e}"))?;
        if status != StatusCode::OK {
            return Err(format!("POST /v1/contacts/batch answered {status}: {body}"));
        }
        let results = body["results"].as_array().cloned().unwrap_or_default();
        if results.len() != count {
            return Err(format!("{} results for {count} items", results.len()));
        }
        results
            .iter()
            .map(|r| match (r["status"].as_u64(), r["id"].as_str()) {
                (Some(201), Some(id)) => Ok(id.to_owned()),
                _ => Err(format!("a batch item was answered {r}")),
            })
            .collect()
    }
}

/// What a batch run did: the ids of the contacts stored, each batch's latency, and the first
/// error.
struct BatchRun {
    ids: Vec<String>,
    latencies: Vec<Duration>,
    elapsed: Duration,
    error: Option<String>,
}

/// Sends `total` contacts in batches of [`BATCH_SIZE`] from `in_flight` concurrent clients;
/// each client stops at its first failure.
async fn batch_run(api: &Api, folder: &str, in_flight: usize, total: usize) -> BatchRun {
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let clients: Vec<_> = (0..in_flight)
        .map(|_| {
            let (api, folder, next) = (api.clone(), folder.to_owned(), next.clone());
            tokio::spawn(async move {
                let (mut ids, mut latencies) = (Vec::new(), Vec::new());
                loop {
                    let first = next.fetch_add(BATCH_SIZE, Ordering::Relaxed);
                    if first >= total {
                        return (ids, latencies, None);
                    }
                    let count = BATCH_SIZE.min(total - first);
                    let sent = Instant::now();
                    match api
                        .create_batch(first / BATCH_SIZE, &folder, first, count)
                        .await
                    {
                        Ok(stored) => {
                            latencies.push(sent.elapsed());
                            ids.extend(stored);
                        }
                        Err(e) => return (ids, latencies, Some(e)),
                    }
                }
            })
        })
        .collect();
    let mut run = BatchRun {
        ids: Vec::new(),
        latencies: Vec::new(),
        elapsed: Duration::ZERO,
        error: None,
    };
    for client in clients {
        let (ids, latencies, failure) = client.await.expect("client task");
        run.ids.extend(ids);
        run.latencies.extend(latencies);
        run.error = run.error.or(failure);
    }
    run.elapsed = started.elapsed();
    run.latencies.sort();
    run
}

fn rand_u64() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(Instant::now())
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
        api.bases[0]
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

/// The contact ids in the database, read with a connection of our own.
async fn stored_contact_ids(db_url: &str) -> HashSet<String> {
    let mut db = sqlx::AnyConnection::connect(db_url)
        .await
        .expect("reopen the database");
    sqlx::query_scalar("SELECT id FROM contacts")
        .fetch_all(&mut db)
        .await
        .expect("read the contact ids")
        .into_iter()
        .collect()
}

/// CPU time used so far by the `postgres` processes of the machine. Another cluster's may end
/// during a run, so a run's share is a saturating difference.
fn postgres_cpu() -> Duration {
    let mut total = Duration::ZERO;
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        let is_postgres = std::fs::read_to_string(format!("/proc/{pid}/comm"))
            .is_ok_and(|comm| comm.trim() == "postgres");
        if is_postgres && pid.bytes().all(|b| b.is_ascii_digit()) {
            total += cpu_time(&pid);
        }
    }
    total
}

/// CPU time the hypervisor gave to others while this machine wanted it (steal, all cores).
fn stolen_cpu() -> Duration {
    let ticks: u64 = std::fs::read_to_string("/proc/stat")
        .ok()
        .and_then(|stat| {
            let cpu = stat.lines().next()?.strip_prefix("cpu ")?.to_owned();
            cpu.split_whitespace().nth(7)?.parse().ok()
        })
        .unwrap_or(0);
    Duration::from_millis(ticks * 1000 / USER_HZ)
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

/// One way to run the service.
struct Deployment {
    name: &'static str,
    postgres: bool,
    processes: usize,
}

const DEPLOYMENTS: [Deployment; 3] = [
    Deployment {
        name: "sqlite",
        postgres: false,
        processes: 1,
    },
    Deployment {
        name: "postgres-1",
        postgres: true,
        processes: 1,
    },
    Deployment {
        name: "postgres-2",
        postgres: true,
        processes: 2,
    },
];

/// The headline figures of one deployment; `None` for a phase that did not run.
struct Summary {
    name: &'static str,
    best_rate: Option<f64>,
    batch_rate: Option<f64>,
    page_p99: Option<Duration>,
    idle_rss: f64,
    missing: Option<usize>,
}

/// The parts of a deployment's run; each can be picked by name (the warm-up creates always run).
#[derive(Clone, Copy)]
struct Phases {
    creates: bool,
    page: bool,
    batch: bool,
    durability: bool,
}

impl Phases {
    const NAMES: [&str; 4] = ["creates", "page", "batch", "durability"];

    /// The phases named in `picks`, or all of them when none is.
    fn picked(picks: &[String]) -> Phases {
        let named = |name: &str| picks.iter().any(|p| p == name);
        if !Self::NAMES.iter().any(|n| named(n)) {
            return Phases {
                creates: true,
                page: true,
                batch: true,
                durability: true,
            };
        }
        Phases {
            creates: named("creates"),
            page: named("page"),
            batch: named("batch"),
            durability: named("durability"),
        }
    }
}

const CPU_NOTE: &str = "(CPU is the share of one core over the run's wall time, summed over processes; the machine \
     has 200% on 2 cores; steal is CPU time the hypervisor gave to other machines while this one wanted it)";

fn postgres_admin_url() -> String {
    std::env::var("SVC_BENCH_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// Creates (or drops) the bench's PostgreSQL database; returns its URL.
async fn postgres_database(name: &str, create: bool) -> String {
    let admin_url = postgres_admin_url();
    let mut admin = sqlx::AnyConnection::connect(&admin_url)
        .await
        .unwrap_or_else(|e| panic!("PostgreSQL is not reachable at {admin_url}: {e}"));
    let statement = if create {
        format!("CREATE DATABASE {name}")
    } else {
        format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    };
    admin
        .execute(sqlx::AssertSqlSafe(statement))
        .await
        .expect("create or drop the bench database");
    format!(
        "{}/{name}",
        &admin_url[..admin_url.rfind('/').expect("a database in the URL")]
    )
}

async fn run(deployment: &Deployment, phases: Phases) -> Summary {
    let dir = tempfile::tempdir().expect("temp dir");
    let pg_name = format!("svc_bench_{}", std::process::id());
    let db_url = if deployment.postgres {
        postgres_database(&pg_name, false).await;
        postgres_database(&pg_name, true).await
    } else {
        format!("sqlite://{}", dir.path().join("svc.db").display())
    };
    admin(&db_url, &["user", "add", ACCOUNT, "--plan", "paid"]);
    let key = admin(
        &db_url,
        &[
            "key", "create", ACCOUNT, "--name", "bench", "--tier", "elevated",
        ],
    );
    let mut servers: Vec<Server> = (0..deployment.processes)
        .map(|i| Server::start(&db_url, &dir.path().join(format!("server-{i}.log"))))
        .collect();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let idle_rss = servers[0].memory_mb("VmRSS");

    let api = Api {
        http: reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .expect("HTTP client"),
        bases: servers.iter().map(|s| s.url.clone()).collect(),
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
        "\n=== {}: {} server process(es) on {} ===",
        deployment.name,
        deployment.processes,
        if deployment.postgres {
            "PostgreSQL (fsync on, synchronous_commit on)"
        } else {
            "SQLite (WAL, synchronous=FULL)"
        }
    );
    let mut acknowledged: HashSet<String> = HashSet::new();
    let warm_up = create_run(&api, &folder, 8, WARM_UP_CREATES).await;
    if let Some(e) = warm_up.error {
        panic!("warm-up create failed: {e}");
    }
    acknowledged.extend(warm_up.created.into_iter().map(|(id, _)| id));

    let servers_cpu =
        |servers: &[Server]| -> Duration { servers.iter().map(|s| cpu_time(&s.pid())).sum() };
    let mut best_rate: Option<f64> = None;
    if phases.creates {
        println!(
            "POST /v1/contacts, {CREATES_PER_RUN} creates per run after {WARM_UP_CREATES} warm-up creates"
        );
        println!(
            "{:>9} {:>10} {:>8} {:>8} {:>8} {:>11} {:>11} {:>11} {:>8}",
            "in flight",
            "creates/s",
            "p50 ms",
            "p99 ms",
            "max ms",
            "server CPU",
            "pg CPU",
            "bench CPU",
            "steal"
        );
    }
    for in_flight in IN_FLIGHT.into_iter().filter(|_| phases.creates) {
        let (server_cpu, pg_cpu, bench_cpu, stolen) = (
            servers_cpu(&servers),
            postgres_cpu(),
            cpu_time("self"),
            stolen_cpu(),
        );
        let run = create_run(&api, &folder, in_flight, CREATES_PER_RUN).await;
        if let Some(e) = run.error {
            panic!("create failed with {in_flight} in flight: {e}");
        }
        let share = |d: Duration| 100.0 * d.as_secs_f64() / run.elapsed.as_secs_f64();
        let server_cpu = share(servers_cpu(&servers) - server_cpu);
        let pg_cpu = share(postgres_cpu().saturating_sub(pg_cpu));
        let bench_cpu = share(cpu_time("self") - bench_cpu);
        let stolen = share(stolen_cpu() - stolen);
        let mut latencies: Vec<Duration> = run.created.iter().map(|(_, d)| *d).collect();
        latencies.sort();
        let rate = run.created.len() as f64 / run.elapsed.as_secs_f64();
        best_rate = Some(best_rate.unwrap_or(0.0).max(rate));
        println!(
            "{in_flight:>9} {rate:>10.0} {:>8.2} {:>8.2} {:>8.2} {server_cpu:>10.0}% {pg_cpu:>10.0}% {bench_cpu:>10.0}% {stolen:>7.0}%",
            ms(percentile(&latencies, 0.50)),
            ms(percentile(&latencies, 0.99)),
            ms(*latencies.last().expect("latencies")),
        );
        acknowledged.extend(run.created.into_iter().map(|(id, _)| id));
    }
    if phases.creates {
        println!("{CPU_NOTE}");
    }
    let loaded_rss = servers[0].memory_mb("VmRSS");

    let mut page_p99 = None;
    if phases.page {
        let in_folder = acknowledged.len();
        let pages = page_latencies(&api, &folder).await;
        page_p99 = Some(percentile(&pages, 0.99));
        println!(
            "GET /v1/folders/{{id}}/contacts?limit={PAGE_LIMIT}, {in_folder} contacts in the folder, \
             {PAGE_REQUESTS} sequential requests after {PAGE_WARM_UP} warm-up: \
             p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            ms(percentile(&pages, 0.50)),
            ms(percentile(&pages, 0.99)),
            ms(*pages.last().expect("page latencies"))
        );
    }

    let mut batch_rate: Option<f64> = None;
    if phases.batch {
        let warm_up = batch_run(&api, &folder, 2, BATCH_WARM_UP).await;
        if let Some(e) = warm_up.error {
            panic!("warm-up batch failed: {e}");
        }
        acknowledged.extend(warm_up.ids);
        println!(
            "POST /v1/contacts/batch, {BATCH_CONTACTS} contacts per run in batches of {BATCH_SIZE} \
             after {BATCH_WARM_UP} warm-up contacts; latencies per batch"
        );
        println!(
            "{:>9} {:>11} {:>8} {:>8} {:>8} {:>11} {:>11} {:>11} {:>8}",
            "in flight",
            "contacts/s",
            "p50 ms",
            "p99 ms",
            "max ms",
            "server CPU",
            "pg CPU",
            "bench CPU",
            "steal"
        );
        for in_flight in BATCH_IN_FLIGHT {
            let (server_cpu, pg_cpu, bench_cpu, stolen) = (
                servers_cpu(&servers),
                postgres_cpu(),
                cpu_time("self"),
                stolen_cpu(),
            );
            let run = batch_run(&api, &folder, in_flight, BATCH_CONTACTS).await;
            if let Some(e) = run.error {
                panic!("batch failed with {in_flight} in flight: {e}");
            }
            let share = |d: Duration| 100.0 * d.as_secs_f64() / run.elapsed.as_secs_f64();
            let server_cpu = share(servers_cpu(&servers) - server_cpu);
            let pg_cpu = share(postgres_cpu().saturating_sub(pg_cpu));
            let bench_cpu = share(cpu_time("self") - bench_cpu);
            let stolen = share(stolen_cpu() - stolen);
            let rate = run.ids.len() as f64 / run.elapsed.as_secs_f64();
            batch_rate = Some(batch_rate.unwrap_or(0.0).max(rate));
            println!(
                "{in_flight:>9} {rate:>11.0} {:>8.2} {:>8.2} {:>8.2} {server_cpu:>10.0}% {pg_cpu:>10.0}% {bench_cpu:>10.0}% {stolen:>7.0}%",
                ms(percentile(&run.latencies, 0.50)),
                ms(percentile(&run.latencies, 0.99)),
                ms(*run.latencies.last().expect("latencies")),
            );
            acknowledged.extend(run.ids);
        }
        println!("{CPU_NOTE}");
    }
    let peak_rss = servers[0].memory_mb("VmHWM");
    println!(
        "server memory (first process): VmRSS idle {idle_rss:.1} MB, after the create runs {loaded_rss:.1} MB, VmHWM {peak_rss:.1} MB"
    );

    let mut missing = None;
    if phases.durability {
        // Durability: kill -9 every server while creates are in flight, then read the rows back.
        let (crash, ()) = tokio::join!(
            create_run(&api, &folder, CRASH_IN_FLIGHT, usize::MAX),
            async {
                tokio::time::sleep(CRASH_AFTER).await;
                for server in &mut servers {
                    server.child.kill().expect("kill -9 the server");
                    server.child.wait().expect("reap the server");
                }
            }
        );
        acknowledged.extend(crash.created.iter().map(|(id, _)| id.clone()));
        let stored = stored_contact_ids(&db_url).await;
        let lost = acknowledged.difference(&stored).count();
        println!(
            "durability: kill -9 after {CRASH_AFTER:?} of creates with {CRASH_IN_FLIGHT} in flight \
             ({} acknowledged in that run); {} acknowledged in all, {} rows stored, {lost} missing: {}",
            crash.created.len(),
            acknowledged.len(),
            stored.len(),
            if lost == 0 { "OK" } else { "FAILED" }
        );
        missing = Some(lost);
    }
    if deployment.postgres {
        postgres_database(&pg_name, false).await;
    }
    Summary {
        name: deployment.name,
        best_rate,
        batch_rate,
        page_p99,
        idle_rss,
        missing,
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    sqlx::any::install_default_drivers();
    // `cargo bench` passes `--bench`; any other argument picks deployments by name, or phases.
    let picks: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let phases = Phases::picked(&picks);
    let deployments: Vec<&String> = picks
        .iter()
        .filter(|p| !Phases::NAMES.contains(&p.as_str()))
        .collect();
    println!(
        "svc service benchmark: {} cores, {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model()
    );
    let mut summaries = Vec::new();
    for deployment in DEPLOYMENTS.iter().filter(|d| {
        deployments.is_empty() || deployments.iter().any(|p| d.name.contains(p.as_str()))
    }) {
        summaries.push(run(deployment, phases).await);
    }
    println!(
        "\n{:<12} {:>17} {:>17} {:>14} {:>14} {:>8}",
        "deployment",
        "creates/s (best)",
        "batch contacts/s",
        "page p99 (ms)",
        "idle RSS (MB)",
        "missing"
    );
    let or_dash = |v: Option<String>| v.unwrap_or_else(|| "-".to_owned());
    for s in &summaries {
        println!(
            "{:<12} {:>17} {:>17} {:>14} {:>14.1} {:>8}",
            s.name,
            or_dash(s.best_rate.map(|r| format!("{r:.0}"))),
            or_dash(s.batch_rate.map(|r| format!("{r:.0}"))),
            or_dash(s.page_p99.map(|p| format!("{:.2}", ms(p)))),
            s.idle_rss,
            or_dash(s.missing.map(|m| m.to_string())),
        );
    }
    println!(
        "targets: creates/s >= 3000, batch contacts/s >= 20000 (SQLite), page p99 <= 5 ms, idle RSS <= 20 MB, 0 missing"
    );
    if summaries.iter().all(|s| s.missing.unwrap_or(0) == 0) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
