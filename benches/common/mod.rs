//! What the benches share: the release `svc`, and a `svc server start` of it on a fresh SQLite
//! file with one paid account and a key.

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

/// Starts the service for account `BENCH1` (paid) with a key of `tier`. Each limit named in
/// `raised` (e.g. `--burst-limit`) is set out of the way; the others keep their defaults.
pub fn start_server(tier: &str, raised: &[&str]) -> Server {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = format!("sqlite://{}", dir.path().join("svc.db").display());
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
