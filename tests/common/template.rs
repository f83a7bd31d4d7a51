//! The migrated database every test's fresh one is copied from: `svc server migrate` runs once
//! per test process and backend, rather than once per test. SQLite: the migrated file, kept in
//! memory and written out for each test. PostgreSQL: a template database on the tests' server,
//! which `CREATE DATABASE … TEMPLATE` copies; nothing ever connects to it after the migration
//! (PostgreSQL copies no database with open connections). It goes with the cluster the tests
//! start; on a server of `SVC_TEST_POSTGRES_URL` a watchdog drops it once the test process is
//! gone, however it ended.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use super::{admin_on, block_on, postgres_admin, postgres_url_of, rand_suffix};

/// Writes a migrated SQLite database to `path` (a new file, the owner's alone as the server
/// makes it).
pub fn write_sqlite(path: &Path) {
    static TEMPLATE: OnceLock<Vec<u8>> = OnceLock::new();
    let bytes = TEMPLATE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("template.db");
        let url = format!("sqlite://{}", file.display());
        migrate(&url);
        // Everything in the file itself, none of it left in the write-ahead log.
        block_on(async {
            use sqlx::{Connection, Executor};
            let mut conn = sqlx::SqliteConnection::connect(&url)
                .await
                .expect("open the migrated template");
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                .await
                .expect("checkpoint the migrated template");
            conn.close().await.expect("close the migrated template");
        });
        std::fs::read(&file).expect("read the migrated template")
    });
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .and_then(|mut file| file.write_all(bytes))
        .unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// The name of the migrated template database on the tests' PostgreSQL server.
pub fn postgres() -> &'static str {
    static TEMPLATE: OnceLock<String> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let name = format!("svc_test_template_{}_{}", std::process::id(), rand_suffix());
        if std::env::var_os("SVC_TEST_POSTGRES_URL").is_some() {
            drop_when_the_tests_end(&name);
        }
        block_on(async {
            use sqlx::Executor;
            postgres_admin()
                .await
                .execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                .await
                .expect("create the template database");
        });
        migrate(&postgres_url_of(&name));
        name
    })
}

fn migrate(url: &str) {
    let out = admin_on(url, &["migrate"], None);
    assert!(
        out.status.success(),
        "svc server migrate of the template: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The environment variable that tells [`drop_the_postgres_template_when_the_tests_end`] which
/// database to drop.
const DROP: &str = "SVC_TEST_DROP_TEMPLATE";

/// Starts this test binary again to run only [`drop_the_postgres_template_when_the_tests_end`]
/// for `name`, which waits for the end of a pipe only the kernel closes: when this process
/// exits. In its own process group, so that a Ctrl-C of the tests does not stop it first.
fn drop_when_the_tests_end(name: &str) {
    static WATCHDOGS: Mutex<Vec<ChildStdin>> = Mutex::new(Vec::new());
    let this = std::env::current_exe().expect("the test binary's path");
    let watchdog = Command::new(this)
        .args([
            "--exact",
            "common::template::drop_the_postgres_template_when_the_tests_end",
            "--ignored",
            "--test-threads=1",
            "--quiet",
        ])
        .env(DROP, name)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("start the template's watchdog")
        .stdin
        .take()
        .expect("the watchdog's stdin");
    WATCHDOGS.lock().unwrap().push(watchdog);
}

/// Not a test: the watchdog [`drop_when_the_tests_end`] starts, which drops the template
/// database once the test process that made it is gone. Run any other way, it does nothing.
#[test]
#[ignore = "the tests start it themselves, to drop their PostgreSQL template when they end"]
fn drop_the_postgres_template_when_the_tests_end() {
    let Ok(name) = std::env::var(DROP) else {
        return;
    };
    let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
    block_on(async {
        use sqlx::Executor;
        let _ = postgres_admin()
            .await
            .execute(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
            )))
            .await;
    });
}
