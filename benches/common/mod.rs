//! What the benches share: the release `svc`, and a `svc server start` of it on a fresh SQLite
//! file or PostgreSQL database with one paid account and a key.

// Each bench is a crate of its own and uses a part of what they share.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_svc");

/// Whether the bench is to run on `backend` (`sqlite`, `postgres`): its arguments name it, or
/// name no backend at all. cargo bench passes `--bench`, which names none.
pub fn wants(backend: &str) -> bool {
    let picks: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    picks.is_empty() || picks.iter().any(|p| p == backend)
}

/// One `svc server …` admin command on `db`; its stdout, trimmed.
pub fn admin(db: &str, args: &[&str]) -> String {
    admin_input(db, args, None)
}

/// [`admin`] with `input` as a line on its stdin (a `--password-stdin` password).
pub fn admin_input(db: &str, args: &[&str], input: Option<&str>) -> String {
    let mut child = Command::new(BIN)
        .arg("server")
        .args(args)
        .args(["--database", db])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run svc server");
    let mut stdin = child.stdin.take().expect("the command's stdin");
    if let Some(text) = input {
        writeln!(stdin, "{text}").expect("write the command's input");
    }
    drop(stdin);
    let out = child.wait_with_output().expect("run svc server");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A running service, stopped when dropped; `dir` holds its database and is free for the
/// bench's own files.
pub struct Server {
    /// Stops the server when dropped; the journal bench reads its process too.
    pub service: Running,
    pub url: String,
    pub key: String,
    /// Held for the database's life; not every bench keeps files of its own there.
    pub dir: tempfile::TempDir,
}

/// Starts the service on a fresh SQLite file for account `BENCH1` (paid) with a key of
/// `tier`. Each limit named in `raised` (e.g. `--burst-limit`) is set out of the way; the
/// others keep their defaults.
pub fn start_server(tier: &str, raised: &[&str]) -> Server {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = format!("sqlite://{}", dir.path().join("svc.db").display());
    start_server_on(dir, &db, tier, raised)
}

/// The PostgreSQL server the benches use, as Debian installs it: `SVC_BENCH_POSTGRES_URL`,
/// else the local one as its `postgres` user.
pub fn postgres_admin_url() -> String {
    std::env::var("SVC_BENCH_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// A fresh, empty PostgreSQL database `name` (dropped first if a run left it); its URL.
pub fn fresh_postgres_database(name: &str) -> String {
    drop_postgres_database(name);
    postgres_admin(&format!("CREATE DATABASE {name}"));
    let admin_url = postgres_admin_url();
    format!(
        "{}/{name}",
        &admin_url[..admin_url.rfind('/').expect("a database in the URL")]
    )
}

/// Brings the planner's statistics of the database at `url` up to date, as autovacuum does
/// on a stock server within a minute of a bulk load (some machines run with it off).
pub fn postgres_analyze(url: &str) {
    let out = Command::new("psql")
        .args([url, "-qc", "ANALYZE"])
        .output()
        .expect("run psql (PostgreSQL's client)");
    assert!(
        out.status.success(),
        "ANALYZE at {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Drops the PostgreSQL database `name` if it is there.
pub fn drop_postgres_database(name: &str) {
    postgres_admin(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
}

/// Runs `statement` on the PostgreSQL server as its admin, with psql.
fn postgres_admin(statement: &str) {
    let admin_url = postgres_admin_url();
    let out = Command::new("psql")
        .args([admin_url.as_str(), "-qc", statement])
        .output()
        .expect("run psql (PostgreSQL's client)");
    assert!(
        out.status.success(),
        "{statement} at {admin_url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A running `svc server start`, stopped when dropped.
pub struct Running {
    pub child: Child,
    pub url: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `svc server start` on `db`, each limit named in `raised` set out of the way and the others
/// at their defaults.
pub fn serve(db: &str, raised: &[&str]) -> Running {
    let mut command = Command::new(BIN);
    command.args(["server", "start", "--bind", "127.0.0.1:0", "--database", db]);
    for limit in raised {
        command.args([limit, "100000000"]);
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the server");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("server address");
    let url = line.trim().trim_start_matches("listening on ").to_owned();
    Running { child, url }
}

/// [`start_server`] on the database `db`; `dir` is the bench's folder for its own files.
pub fn start_server_on(dir: tempfile::TempDir, db: &str, tier: &str, raised: &[&str]) -> Server {
    let db = db.to_owned();
    admin(&db, &["user", "add", "BENCH1", "--plan", "paid"]);
    let key = admin(
        &db,
        &["key", "create", "BENCH1", "--name", "bench", "--tier", tier],
    );
    let service = serve(&db, raised);
    Server {
        url: service.url.clone(),
        service,
        key,
        dir,
    }
}
