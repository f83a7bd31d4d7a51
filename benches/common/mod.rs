//! What the benches share: the release `svc`, and a `svc server start` of it on a fresh SQLite
//! file or PostgreSQL database with one paid account and a key.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_svc");

/// One `svc server …` admin command on `db`; its stdout, trimmed.
pub fn admin(db: &str, args: &[&str]) -> String {
    let out = Command::new(BIN)
        .arg("server")
        .args(args)
        .args(["--database", db])
        .output()
        .expect("run svc server");
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
    pub child: Child,
    pub url: String,
    pub key: String,
    // Held for the database's life; not every bench keeps files of its own there.
    #[allow(dead_code)]
    pub dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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
#[allow(dead_code)] // Not every bench runs on PostgreSQL.
pub fn postgres_admin_url() -> String {
    std::env::var("SVC_BENCH_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// A fresh, empty PostgreSQL database `name` (dropped first if a run left it); its URL.
#[allow(dead_code)]
pub fn fresh_postgres_database(name: &str) -> String {
    let admin_url = postgres_admin_url();
    for statement in [
        format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        format!("CREATE DATABASE {name}"),
    ] {
        let out = Command::new("psql")
            .args([admin_url.as_str(), "-qc", &statement])
            .output()
            .expect("run psql (PostgreSQL's client)");
        assert!(
            out.status.success(),
            "{statement} at {admin_url}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    format!(
        "{}/{name}",
        &admin_url[..admin_url.rfind('/').expect("a database in the URL")]
    )
}

/// [`start_server`] on the database `db`; `dir` is the bench's folder for its own files.
pub fn start_server_on(dir: tempfile::TempDir, db: &str, tier: &str, raised: &[&str]) -> Server {
    let db = db.to_owned();
    admin(&db, &["user", "add", "BENCH1", "--plan", "paid"]);
    let key = admin(
        &db,
        &["key", "create", "BENCH1", "--name", "bench", "--tier", tier],
    );
    let mut command = Command::new(BIN);
    command.args([
        "server",
        "start",
        "--bind",
        "127.0.0.1:0",
        "--database",
        &db,
    ]);
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
    Server {
        child,
        url,
        key,
        dir,
    }
}
