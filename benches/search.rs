//! The log page's search (`GET /log?call=…&park=…`) on an account of 100,000 contacts, on
//! SQLite and on PostgreSQL: the latency of each kind of search, one request at a time, as a
//! signed-in browser asks, with the server's default limits (the seeding's server, before,
//! has the burst limit raised).
//!
//! Run with `cargo bench --bench search` (both backends) or `cargo bench --bench search --
//! sqlite` (or `postgres`). PostgreSQL is a cluster of its own, made with `initdb` and started
//! with `pg_ctl` as the tests start theirs (stock settings), unless `SVC_BENCH_POSTGRES_URL`
//! names a server where the bench may create a database. The contacts are seeded through
//! `POST /v1/contacts/batch` as an import, 500 at a time. Timings are printed, never asserted.
//! `SVC_BENCH_KEEP=1` keeps the SQLite file (its path printed) for a look at the plans.

#[path = "../tests/common/cluster.rs"]
#[allow(dead_code)]
mod cluster;

use std::time::{Duration, Instant};

use reqwest::blocking::Client;
use serde_json::{Value, json};

mod common;

use common::{Running, admin, admin_input, serve};
const ACCOUNT: &str = "BENCH1";
const PASSWORD: &str = "correct horse battery staple";
const CONTACTS: usize = 100_000;
const BATCH: usize = 500;
/// Requests of each search measured, after `WARM_UP` that are not.
const REQUESTS: usize = 200;
const WARM_UP: usize = 20;

/// The account (unlimited, so the seeding meets no budget), its password and a key.
fn account(db: &str) -> String {
    admin_input(
        db,
        &[
            "user",
            "add",
            ACCOUNT,
            "--plan",
            "unlimited",
            "--password-stdin",
        ],
        Some(PASSWORD),
    );
    admin(
        db,
        &[
            "key", "create", ACCOUNT, "--name", "bench", "--tier", "basic",
        ],
    )
}

/// The server on `db`: every limit at its default, or (`seeding`) the burst limit out of the
/// way of the seeding's 120 folders and 200 batches.
fn start(db: &str, seeding: bool) -> Running {
    serve(db, if seeding { &["--burst-limit"] } else { &[] })
}

/// A small deterministic generator (xorshift), so every run seeds the same log.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const PREFIXES: [&str; 12] = [
    "K", "W", "N", "AA", "KD", "VE", "DL", "G", "JA", "F", "I", "EA",
];
/// Bands with their share in a thousand and a frequency in each.
const BANDS: [(&str, usize, f64); 9] = [
    ("20m", 350, 14.074),
    ("40m", 200, 7.074),
    ("30m", 100, 10.136),
    ("17m", 90, 18.1),
    ("15m", 90, 21.074),
    ("80m", 80, 3.573),
    ("10m", 60, 28.074),
    ("12m", 29, 24.915),
    ("6m", 1, 50.313),
];
const MODES: [&str; 10] = [
    "FT8", "FT8", "FT8", "FT8", "FT8", "CW", "CW", "SSB", "SSB", "FT4",
];

/// The seeded log's calls: 20,000 of them, a tenth portable.
fn calls(rng: &mut Rng) -> Vec<String> {
    (0..20_000)
        .map(|_| {
            let prefix = rng.pick(&PREFIXES);
            let letters: String = (0..3)
                .map(|_| char::from(b'A' + rng.below(26) as u8))
                .collect();
            let call = format!("{prefix}{}{letters}", rng.below(10));
            if rng.below(10) == 0 {
                format!("{call}/P")
            } else {
                call
            }
        })
        .collect()
}

/// One contact of the log: the `n`th of five years ending in 2025, newest last.
fn contact(rng: &mut Rng, calls: &[String], n: usize, folders: &Folders) -> Value {
    const FIVE_YEARS_S: i64 = 5 * 365 * 86_400;
    const START: i64 = 1_577_836_800; // 2020-01-01
    let at = START + FIVE_YEARS_S * n as i64 / CONTACTS as i64;
    let time = chrono::DateTime::from_timestamp(at, 0).unwrap();
    let month = time.format("%Y-%m").to_string();
    let mut roll = rng.below(1000);
    let (_, _, mhz) = *BANDS
        .iter()
        .find(|(_, share, _)| {
            let hit = roll < *share;
            roll = roll.saturating_sub(*share);
            hit
        })
        .unwrap_or(&BANDS[0]);
    let mode = *rng.pick(&MODES);
    let hunted = rng.below(5) == 0;
    let mut body = json!({
        "folderId": if hunted { &folders.pota[&month] } else { &folders.plain[&month] },
        "callsign": rng.pick(calls),
        "frequency": mhz,
        "mode": mode,
        "timeOn": time.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        "idempotencyKey": format!("search-bench-{n}"),
    });
    if hunted {
        let park = format!("US-{:04}", rng.below(2000) + 1);
        body["sig"] = json!("POTA");
        body["sigInfo"] = json!(if rng.below(10) == 0 {
            format!("{park},US-{:04}", rng.below(2000) + 1)
        } else {
            park
        });
    }
    if rng.below(10) < 7 {
        let field = |rng: &mut Rng| char::from(b'A' + rng.below(18) as u8);
        let grid = format!(
            "{}{}{}{}",
            field(rng),
            field(rng),
            rng.below(10),
            rng.below(10)
        );
        body["gridsquare"] = json!(grid);
    }
    match rng.below(100) {
        0..30 => body["lotwQslRcvd"] = json!("Y"),
        30..35 => body["qslRcvd"] = json!("Y"),
        35..45 => body["eqslQslRcvd"] = json!("Y"),
        _ => {}
    }
    body
}

/// The monthly folders of the five years, plain and POTA's.
struct Folders {
    plain: std::collections::HashMap<String, String>,
    pota: std::collections::HashMap<String, String>,
}

fn post(http: &Client, url: &str, key: &str, body: &Value) -> Value {
    let r = http
        .post(url)
        .bearer_auth(key)
        .json(body)
        .send()
        .expect("the server answers");
    let status = r.status();
    let body: Value = r.json().unwrap_or(Value::Null);
    assert!(status.is_success(), "{url}: {status} {body}");
    body
}

fn seed(base: &str, key: &str) {
    let http = Client::builder()
        .timeout(Duration::from_secs(300))
        .build()
        .unwrap();
    let mut folders = Folders {
        plain: Default::default(),
        pota: Default::default(),
    };
    for year in 2020..2025 {
        for month in 1..=12 {
            let month = format!("{year}-{month:02}");
            for (program, map) in [
                (None, &mut folders.plain),
                (Some("pota"), &mut folders.pota),
            ] {
                let mut body = json!({ "type": "monthly", "month": month });
                if let Some(p) = program {
                    body["programId"] = json!(p);
                }
                let made = post(&http, &format!("{base}/v1/folders"), key, &body);
                map.insert(month.clone(), made["id"].as_str().unwrap().to_owned());
            }
        }
    }
    let mut rng = Rng(0x5eed_cafe_f00d_d00d);
    let calls = calls(&mut rng);
    let started = Instant::now();
    for first in (0..CONTACTS).step_by(BATCH) {
        let contacts: Vec<Value> = (first..first + BATCH)
            .map(|n| contact(&mut rng, &calls, n, &folders))
            .collect();
        let answer = post(
            &http,
            &format!("{base}/v1/contacts/batch"),
            key,
            &json!({ "contacts": contacts, "import": true }),
        );
        for result in answer["results"].as_array().unwrap() {
            assert_eq!(result["status"], 201, "{result}");
        }
    }
    println!(
        "seeded {CONTACTS} contacts in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// A signed-in browser: its session cookie.
fn sign_in(base: &str) -> (Client, String) {
    let http = Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let cookies = |r: &reqwest::blocking::Response| {
        r.headers()
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok()?.split(';').next().map(str::to_owned))
            .collect::<Vec<_>>()
    };
    let form = http.get(format!("{base}/signin")).send().unwrap();
    let jar = cookies(&form).join("; ");
    let page = form.text().unwrap();
    let csrf = page
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("a CSRF token")
        .to_owned();
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("csrf", csrf.as_str()),
            ("next", "/log"),
            ("callsign", ACCOUNT),
            ("password", PASSWORD),
        ])
        .finish();
    let signed = http
        .post(format!("{base}/signin"))
        .header("cookie", &jar)
        .header("origin", base)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .unwrap();
    assert_eq!(signed.status().as_u16(), 303, "sign-in");
    let mut all = cookies(&signed);
    all.extend(jar.split("; ").map(str::to_owned));
    // The session cookie set by the sign-in comes first, and wins over the visitor's.
    let mut seen = std::collections::HashSet::new();
    all.retain(|c| seen.insert(c.split('=').next().unwrap_or_default().to_owned()));
    (http, all.join("; "))
}

/// The searches measured, by name: each kind of part alone, some together, and a second page.
const SEARCHES: [(&str, &str); 14] = [
    ("the whole log (no search)", ""),
    ("call, a few contacts", "call=K1AB"),
    ("call, thousands", "call=W"),
    ("call, one station", "call=DL5XYZ"),
    ("park, a few contacts", "park=US-1234"),
    ("grid, a few contacts", "grid=FN31"),
    ("grid, thousands", "grid=F"),
    ("band, rare (6m, 0.1%)", "band=6m"),
    ("mode", "mode=CW"),
    ("one week", "from=2023-03-01&to=2023-03-07"),
    ("not confirmed", "confirmed=no"),
    ("confirmed, a rare band", "band=6m&confirmed=yes"),
    (
        "call, band, mode, confirmed",
        "call=K&band=20m&mode=FT8&confirmed=yes",
    ),
    (
        "park and a year",
        "park=US-0042&from=2022-01-01&to=2022-12-31",
    ),
];

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1000.0
}

fn measure(base: &str, backend: &str) {
    let (http, cookie) = sign_in(base);
    let get = |query: &str| {
        let r = http
            .get(format!("{base}/log?{query}"))
            .header("cookie", &cookie)
            .send()
            .unwrap();
        let status = r.status().as_u16();
        let body = r.text().unwrap();
        assert_eq!(status, 200, "{query}: {body}");
        body
    };
    let mut everything = Vec::new();
    for (name, query) in SEARCHES {
        let body = get(query);
        let rows = body.matches("data-label=\"Call\" class=\"call\"").count();
        for _ in 0..WARM_UP {
            get(query);
        }
        let mut times = Vec::with_capacity(REQUESTS);
        for _ in 0..REQUESTS {
            let t = Instant::now();
            get(query);
            times.push(t.elapsed());
        }
        times.sort();
        everything.extend_from_slice(&times);
        println!(
            "{backend}: {name:<30} {rows:>2} rows  p50 {:>6.2} ms  p99 {:>6.2} ms  max {:>6.2} ms",
            percentile(&times, 0.50),
            percentile(&times, 0.99),
            percentile(&times, 1.0)
        );
    }
    // A second page of a search, by the cursor its first page gave.
    let first = get("band=20m&mode=FT8");
    let at = first
        .find("href=\"/log?band=20m&amp;mode=FT8&amp;cursor=")
        .unwrap()
        + 6;
    let older = first[at..at + first[at..].find('"').unwrap()].replace("&amp;", "&");
    let query = older.trim_start_matches("/log?").to_owned();
    let mut times = Vec::with_capacity(REQUESTS);
    for _ in 0..REQUESTS {
        let t = Instant::now();
        get(&query);
        times.push(t.elapsed());
    }
    times.sort();
    everything.extend_from_slice(&times);
    println!(
        "{backend}: {:<30}    rows  p50 {:>6.2} ms  p99 {:>6.2} ms  max {:>6.2} ms",
        "band and mode, second page",
        percentile(&times, 0.50),
        percentile(&times, 0.99),
        percentile(&times, 1.0)
    );
    everything.sort();
    println!(
        "{backend}: all {} searches: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        everything.len(),
        percentile(&everything, 0.50),
        percentile(&everything, 0.99),
        percentile(&everything, 1.0)
    );
}

fn run(backend: &str, db: &str) {
    let key = account(db);
    let seeder = start(db, true);
    seed(&seeder.url, &key);
    drop(seeder);
    let server = start(db, false);
    measure(&server.url, backend);
}

fn postgres_database() -> (String, String) {
    let admin_url = match std::env::var("SVC_BENCH_POSTGRES_URL") {
        Ok(url) => url,
        Err(_) => cluster::url()
            .unwrap_or_else(|e| panic!("no PostgreSQL for the bench: {e}"))
            .to_owned(),
    };
    let name = format!("svc_search_bench_{}", std::process::id());
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            use sqlx::{Connection, Executor};
            let mut conn = sqlx::PgConnection::connect(&admin_url).await.unwrap();
            conn.execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                .await
                .unwrap();
        });
    let base = &admin_url[..admin_url.rfind('/').unwrap()];
    (format!("{base}/{name}"), admin_url)
}

fn main() {
    if common::wants("sqlite") {
        let dir = tempfile::tempdir().unwrap();
        let db = format!("sqlite://{}", dir.path().join("svc.db").display());
        run("sqlite", &db);
        // For a look at the plans afterwards (`sqlite3 … 'EXPLAIN QUERY PLAN …'`).
        if std::env::var_os("SVC_BENCH_KEEP").is_some() {
            println!("kept {}", dir.keep().join("svc.db").display());
        }
    }
    if common::wants("postgres") {
        let (db, _) = postgres_database();
        run("postgres", &db);
    }
}
