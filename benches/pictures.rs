//! The pictures of a long log: a `svc server start` (release) on SQLite and on PostgreSQL, with
//! two accounts of 100,000 contacts each with grids across 1,500 squares and eight bands, signed
//! in through the sign-in page: one whose grids are 4-character squares (as FT8 and most
//! contest exchanges give them: 3,000 distinct grid and band pairs), one where every other
//! contact has a 6-character grid of its own (about 51,500 pairs, more than the map draws at
//! their own places); then, for each, the map (`GET /map`: its time and the size of its page and
//! its SVG), the charts (`GET /charts`) and an award (`GET /awards`, which reads every
//! contact, for comparison), each requested in turn after a warm-up.
//!
//! Run with `cargo bench --bench pictures` (both), or `cargo bench --bench pictures -- sqlite`
//! (or `postgres`). PostgreSQL is reached at `SVC_BENCH_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`), where the bench creates a database of its own
//! and drops it after. Timings are printed, never asserted; the targets are a map of at most
//! 300 KB drawn in at most 200 ms.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod common;

use common::{admin_input, drop_postgres_database, fresh_postgres_database, serve};
/// The accounts: callsign, and whether every other contact has a 6-character grid.
const ACCOUNTS: [(&str, bool); 2] = [("BENCH1", false), ("BENCH2", true)];
const PASSWORD: &str = "bench password 1";
/// Contacts in the account, sent in batches of `BATCH`.
const CONTACTS: usize = 100_000;
const BATCH: usize = 500;
/// Distinct 4-character squares and bands the contacts are spread over; half the contacts
/// give a 6-character grid within their square.
const SQUARES: usize = 1_500;
const BANDS: [f64; 8] = [3.573, 7.074, 10.136, 14.074, 18.100, 21.074, 28.074, 50.313];
const WARM_UP: usize = 3;
const REQUESTS: usize = 20;

/// The `n`th contact's grid: one of `SQUARES` squares, every other one with a subsquare when
/// `sixes`.
fn grid(n: usize, sixes: bool) -> String {
    let square = (n * 7919) % SQUARES;
    let (field_lon, field_lat) = (b'A' + (square % 18) as u8, b'A' + (square / 18 % 18) as u8);
    let (sq_lon, sq_lat) = ((square / 324) % 10, (square / 3240 + square) % 10);
    let mut grid = format!(
        "{}{}{sq_lon}{sq_lat}",
        char::from(field_lon),
        char::from(field_lat)
    );
    if sixes && n.is_multiple_of(2) {
        let sub = (n / 2) % 576;
        grid.push(char::from(b'a' + (sub % 24) as u8));
        grid.push(char::from(b'a' + (sub / 24) as u8));
    }
    grid
}

async fn seed(http: &reqwest::Client, base: &str, key: &str, sixes: bool) {
    let month = chrono::Utc::now() - chrono::Duration::days(40);
    let month_text = month.format("%Y-%m").to_string();
    let folder: Value = http
        .post(format!("{base}/v1/folders"))
        .bearer_auth(key)
        .json(&json!({"type": "monthly", "month": month_text}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let folder = folder["id"].as_str().expect("a folder").to_owned();
    for start in (0..CONTACTS).step_by(BATCH) {
        let contacts: Vec<Value> = (start..start + BATCH)
            .map(|n| {
                let mode = ["FT8", "CW", "SSB"][n % 3];
                json!({
                    "folderId": folder,
                    "callsign": format!("K{}A{}", n % 10, char::from(b'A' + (n / 10 % 26) as u8)),
                    "frequency": BANDS[n % BANDS.len()],
                    "mode": mode,
                    "timeOn": format!("{month_text}-{:02}T{:02}:{:02}:00Z", 1 + n % 28, n % 24, n % 60),
                    "gridsquare": grid(n, sixes),
                    "idempotencyKey": format!("pictures-{n}"),
                })
            })
            .collect();
        let r = http
            .post(format!("{base}/v1/contacts/batch"))
            .bearer_auth(key)
            .json(&json!({ "contacts": contacts }))
            .send()
            .await
            .unwrap();
        assert!(
            r.status().is_success(),
            "batch: {}",
            r.text().await.unwrap()
        );
    }
}

/// Each `Set-Cookie` of a response as `name=value`.
fn cookies(response: &reqwest::Response) -> Vec<String> {
    response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok()?.split(';').next().map(str::to_owned))
        .collect()
}

/// Signs in through the page; the cookies of the session.
async fn sign_in(http: &reqwest::Client, base: &str, callsign: &str) -> String {
    let form = http.get(format!("{base}/signin")).send().await.unwrap();
    let mut jar = cookies(&form);
    let page = form.text().await.unwrap();
    let at = page.find("name=\"csrf\" value=\"").expect("a csrf field") + 19;
    let csrf = &page[at..at + page[at..].find('"').unwrap()];
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("csrf", csrf),
            ("callsign", callsign),
            ("password", PASSWORD),
        ])
        .finish();
    let signed_in = http
        .post(format!("{base}/signin"))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("origin", base)
        .header("cookie", jar.join("; "))
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(signed_in.status(), 303, "sign-in");
    jar.extend(cookies(&signed_in));
    jar.join("; ")
}

/// Requests `path` `REQUESTS` times after a warm-up: the latencies, sorted, and the last body.
async fn measure(
    http: &reqwest::Client,
    base: &str,
    jar: &str,
    path: &str,
) -> (Vec<Duration>, String) {
    let mut latencies = Vec::new();
    let mut body = String::new();
    for i in 0..WARM_UP + REQUESTS {
        let started = Instant::now();
        let r = http
            .get(format!("{base}{path}"))
            .header("cookie", jar)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{path}");
        body = r.text().await.unwrap();
        if i >= WARM_UP {
            latencies.push(started.elapsed());
        }
    }
    latencies.sort();
    (latencies, body)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn report(path: &str, latencies: &[Duration], body: &str) {
    println!(
        "GET {path:<24} p50 {:>7.1} ms  max {:>7.1} ms  page {:>7.1} KB",
        ms(latencies[latencies.len() / 2]),
        ms(*latencies.last().unwrap()),
        body.len() as f64 / 1024.0
    );
}

async fn run(postgres: bool) {
    let dir = tempfile::tempdir().expect("temp dir");
    let pg_name = format!("svc_bench_pictures_{}", std::process::id());
    let db_url = if postgres {
        fresh_postgres_database(&pg_name)
    } else {
        format!("sqlite://{}", dir.path().join("svc.db").display())
    };
    let mut keys = Vec::new();
    for (account, _) in ACCOUNTS {
        admin_input(
            &db_url,
            &["user", "add", account, "--plan", "paid", "--password-stdin"],
            Some(PASSWORD),
        );
        keys.push(admin_input(
            &db_url,
            &[
                "key", "create", account, "--name", "bench", "--tier", "elevated",
            ],
            None,
        ));
    }
    let server = serve(
        &db_url,
        &[
            "--burst-limit",
            "--daily-contact-budget",
            "--lifetime-contact-budget",
        ],
    );
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    println!(
        "\n=== {} ===",
        if postgres { "PostgreSQL" } else { "SQLite" }
    );
    for ((account, sixes), key) in ACCOUNTS.into_iter().zip(&keys) {
        let seeding = Instant::now();
        seed(&http, &server.url, key, sixes).await;
        println!(
            "{account}: {CONTACTS} contacts with {} grids in {SQUARES} squares on {} bands stored in {:.1} s",
            if sixes {
                "half 6-character"
            } else {
                "4-character"
            },
            BANDS.len(),
            seeding.elapsed().as_secs_f64()
        );
    }
    for (account, _) in ACCOUNTS {
        println!("{account}:");
        let jar = sign_in(&http, &server.url, account).await;
        let (latencies, body) = measure(&http, &server.url, &jar, "/map").await;
        let svg = &body[body.find("<svg viewBox=\"0 0 360 180\"").expect("the map")..];
        let svg = &svg[..svg.find("</svg>").unwrap() + 6];
        report("/map", &latencies, &body);
        println!(
            "  the map's SVG {:.1} KB: {} points, {} squares shaded{} (targets: <= 300 KB, <= 200 ms)",
            svg.len() as f64 / 1024.0,
            svg.matches("h0").count(),
            svg.matches("h2v1h-2z").count(),
            if body.contains("each point is drawn at its 4-character square") {
                ", points at their squares"
            } else {
                ""
            }
        );
        let (latencies, body) = measure(&http, &server.url, &jar, "/charts").await;
        report("/charts", &latencies, &body);
        let (latencies, body) = measure(&http, &server.url, &jar, "/awards?award=vucc").await;
        report("/awards?award=vucc", &latencies, &body);
    }
    drop(server);
    if postgres {
        drop_postgres_database(&pg_name);
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if common::wants("sqlite") {
        run(false).await;
    }
    if common::wants("postgres") {
        run(true).await;
    }
}
