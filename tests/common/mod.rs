//! Starts what `svc server start` serves on a free loopback port with a fresh database (an
//! SQLite file, or a PostgreSQL database made for the test and dropped after it), and talks
//! HTTP to it: in the test process ([`Server::start`] and the like), or as the real process
//! ([`Server::process`] and the like) where the process is what is tested. A fresh database is
//! a copy of one migrated once per test process ([`Db::migrated`]), or empty ([`Db::fresh`])
//! for the tests of the migrations. A test names its behaviour once; [`both_backends!`] runs it
//! on each backend.

pub mod callbook;
pub mod clublog;
mod cluster;
pub mod eqsl;
pub mod lotw;
pub mod pota;
pub mod python;
pub mod qrz;
pub mod rigctld;
pub mod served;
mod template;

use std::cell::Cell;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use serde_json::{Value, json};

pub const BIN: &str = env!("CARGO_BIN_EXE_svc");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

thread_local! {
    static BACKEND: Cell<Backend> = const { Cell::new(Backend::Sqlite) };
}

/// The backend of the running test.
pub fn backend() -> Backend {
    BACKEND.get()
}

/// Runs `test` with every database it makes on `backend`. Without a PostgreSQL server to use
/// (SVC_TEST_POSTGRES_URL's, or one the tests start with the machine's PostgreSQL), a test on
/// PostgreSQL is skipped after one line that says so, or fails where
/// SVC_TEST_REQUIRE_POSTGRES=1 (as CI sets it).
pub fn on(backend: Backend, test: fn()) {
    if backend == Backend::Postgres
        && std::env::var_os("SVC_TEST_POSTGRES_URL").is_none()
        && let Err(why) = cluster::url()
    {
        if std::env::var("SVC_TEST_REQUIRE_POSTGRES").is_ok_and(|v| v == "1") {
            panic!(
                "the PostgreSQL half of the suite cannot run: {why}; SVC_TEST_REQUIRE_POSTGRES=1 requires it"
            );
        }
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            use std::io::Write;
            // Straight to the process's stderr: eprintln! would be captured and hidden.
            let _ = writeln!(
                std::io::stderr(),
                "skipped: the tests on PostgreSQL (Debian: apt-get install postgresql): {why}"
            );
        });
        return;
    }
    BACKEND.set(backend);
    test();
}

/// Makes a `#[test]` on each backend for every named test function of the module:
/// `sqlite::name` and `postgres::name`.
#[macro_export]
macro_rules! both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(#[test]
            fn $name() {
                $crate::common::on($crate::common::Backend::Sqlite, super::$name)
            })*
        }
        mod postgres {
            $(#[test]
            fn $name() {
                $crate::common::on($crate::common::Backend::Postgres, super::$name)
            })*
        }
    };
}

/// The PostgreSQL server the tests make their databases on: `SVC_TEST_POSTGRES_URL`'s, else
/// one the tests start.
fn postgres_admin_url() -> String {
    std::env::var("SVC_TEST_POSTGRES_URL").unwrap_or_else(|_| {
        cluster::url()
            .unwrap_or_else(|e| panic!("the PostgreSQL half of the suite cannot run: {e}"))
            .to_owned()
    })
}

pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(f)
}

async fn postgres_admin() -> sqlx::PgConnection {
    use sqlx::Connection;
    let url = postgres_admin_url();
    sqlx::PgConnection::connect(&url).await.unwrap_or_else(|e| {
        panic!(
            "PostgreSQL is not reachable at {url} ({e}): the PostgreSQL half of the suite cannot run. \
             Point SVC_TEST_POSTGRES_URL at a server where the user may create databases, or unset \
             it for the tests to start their own."
        )
    })
}

/// A PostgreSQL database of one test, dropped (with its connections) when this is dropped.
struct PgDatabase {
    name: String,
}

impl PgDatabase {
    /// An empty database, or with `template`, a copy of that database.
    fn create(template: Option<&str>) -> (PgDatabase, String) {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "svc_test_{}_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed),
            rand_suffix()
        );
        let create = match template {
            None => format!("CREATE DATABASE {name}"),
            Some(template) => format!("CREATE DATABASE {name} TEMPLATE {template}"),
        };
        block_on(async {
            use sqlx::Executor;
            let mut admin = postgres_admin().await;
            admin
                .execute(sqlx::AssertSqlSafe(create))
                .await
                .expect("create the test database");
        });
        let url = postgres_url_of(&name);
        (PgDatabase { name }, url)
    }
}

/// The URL of database `name` on the tests' PostgreSQL server.
fn postgres_url_of(name: &str) -> String {
    let base = postgres_admin_url();
    format!(
        "{}/{name}",
        &base[..base.rfind('/').expect("a database in the URL")]
    )
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        let name = self.name.clone();
        block_on(async move {
            use sqlx::Executor;
            let mut admin = postgres_admin().await;
            let _ = admin
                .execute(sqlx::AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                )))
                .await;
        });
    }
}

/// A test's database, and a folder for the server logs (and the SQLite file).
pub struct Db {
    pub url: String,
    pub dir: tempfile::TempDir,
    _postgres: Option<PgDatabase>,
}

impl Db {
    /// A fresh, empty database on the backend of the running test: the server migrates it
    /// when it starts (for the tests of the migrations, and of what a first start makes).
    pub fn fresh() -> Db {
        let dir = tempfile::tempdir().expect("temp dir");
        match BACKEND.get() {
            Backend::Sqlite => Db {
                url: format!("sqlite://{}", dir.path().join("svc.db").display()),
                dir,
                _postgres: None,
            },
            Backend::Postgres => {
                let (database, url) = PgDatabase::create(None);
                Db {
                    url,
                    dir,
                    _postgres: Some(database),
                }
            }
        }
    }

    /// A fresh database on the backend of the running test with every migration applied:
    /// a copy of one that `svc server migrate` made once for the whole test process (an
    /// SQLite file, a PostgreSQL template database), as a first start would leave it.
    pub fn migrated() -> Db {
        let dir = tempfile::tempdir().expect("temp dir");
        match BACKEND.get() {
            Backend::Sqlite => {
                let path = dir.path().join("svc.db");
                template::write_sqlite(&path);
                Db {
                    url: format!("sqlite://{}", path.display()),
                    dir,
                    _postgres: None,
                }
            }
            Backend::Postgres => {
                let (database, url) = PgDatabase::create(Some(template::postgres()));
                Db {
                    url,
                    dir,
                    _postgres: Some(database),
                }
            }
        }
    }

    /// The folder `svc server start` takes for its data directory (`$XDG_DATA_HOME/svc` with
    /// `XDG_DATA_HOME` set to the test's folder): a country file a developer keeps in theirs
    /// must not change what a test sees.
    pub fn data_dir(&self) -> std::path::PathBuf {
        self.dir.path().join("svc")
    }
}

/// A test's server: `svc server start` in the test process ([`Server::start`] and the
/// like), or as a process of its own ([`Server::process`] and the like) for the tests of what
/// only a process has: its log, its stdout, signals, its exit, its open-files limit, its
/// environment. An in-process server refuses those with a panic that says so.
pub struct Server {
    pub url: String,
    /// How it runs; dropped (the server stopped) before its database.
    running: Running,
    pub db: Db,
}

enum Running {
    InProcess(InProcess),
    Process {
        process: Process,
        /// The lines the process prints on stdout after its address (the metrics' address
        /// first, with --metrics-bind).
        stdout: mpsc::Receiver<String>,
    },
}

/// The service the `svc server start` command serves ([`svc::server::cmd::serve_flags`]),
/// from a runtime of its own in the test process, as the command's own runtime. Dropped, the
/// runtime goes at once with every connection and task, as a killed process would.
struct InProcess {
    runtime: tokio::runtime::Handle,
    store: Arc<dyn svc::store::Store>,
    metrics: Option<std::net::SocketAddr>,
    kill: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl InProcess {
    /// Runs `f` on the server's runtime (its store's connections belong to it).
    fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.runtime.block_on(f)
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        if let Some(kill) = self.kill.take() {
            let _ = kill.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A server process, killed when dropped so that no test leaves one behind.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Server {
    /// The server, in the test process, on a fresh migrated database.
    pub fn start() -> Server {
        Self::start_with(&[])
    }

    /// Starts the server with extra `server start` flags, e.g. `["--burst-limit", "5"]`.
    pub fn start_with(extra: &[&str]) -> Server {
        Self::start_on(Db::migrated(), extra)
    }

    /// Starts a server on an existing database (for a restart, or on an empty database that
    /// it migrates).
    pub fn start_on(db: Db, extra: &[&str]) -> Server {
        // The process is started without SVC_CTY; the test process cannot drop it for one
        // server alone.
        if std::env::var_os("SVC_CTY").is_some() {
            return Self::process_on(db, extra);
        }
        let (url, running) = serve_in_process(&db, extra);
        Server { url, running, db }
    }

    /// The real `svc server start` process on a fresh migrated database.
    pub fn process() -> Server {
        Self::process_with(&[])
    }

    /// The real process with extra `server start` flags.
    pub fn process_with(extra: &[&str]) -> Server {
        Self::process_on(Db::migrated(), extra)
    }

    /// The real process on an existing database (for a restart or a second process).
    pub fn process_on(db: Db, extra: &[&str]) -> Server {
        let (url, process, stdout) = spawn_server(&db, extra);
        Server {
            url,
            running: Running::Process { process, stdout },
            db,
        }
    }

    /// Starts the process with its open-files limit set to `soft` (of `hard`) before it runs.
    pub fn start_with_open_files(extra: &[&str], soft: u64, hard: u64) -> Server {
        let db = Db::migrated();
        let (url, process, stdout) = spawn_server_with(&db, extra, Some((soft, hard)), &[]);
        Server {
            url,
            running: Running::Process { process, stdout },
            db,
        }
    }

    /// Starts the process on `db` with settings in its environment, as a unit's
    /// EnvironmentFile gives them (the database and the address are the test's).
    pub fn start_with_env(db: Db, env: &[(String, String)]) -> Server {
        let (url, process, stdout) = spawn_server_with(&db, &[], None, env);
        Server {
            url,
            running: Running::Process { process, stdout },
            db,
        }
    }

    /// Starts another server process on this one's database.
    pub fn another(&self, extra: &[&str]) -> Peer {
        let (url, process, _) = spawn_server(&self.db, extra);
        Peer {
            url,
            _process: process,
        }
    }

    /// Runs `svc server <args> --database <this db>`.
    pub fn admin(&self, args: &[&str]) -> Output {
        admin_on(&self.db.url, args, None)
    }

    /// Creates an account (free plan) and returns a key of the tier: what `svc server user
    /// add CALLSIGN` and `svc server key create CALLSIGN --name test --tier TIER` do, through
    /// the store (the tests of those commands run them).
    pub fn account(&self, callsign: &str, tier: &str) -> Api {
        let given = callsign.to_owned();
        self.with_store(|store| async move {
            let callsign = svc::model::callsign::normalize_callsign("callsign", &given)
                .expect("a valid callsign");
            store
                .create_account(&callsign, svc::model::Plan::Free, None)
                .await
                .unwrap_or_else(|e| panic!("user add {callsign}: {e}"));
        });
        self.new_key(callsign, tier)
    }

    /// A new key of the tier for the account, as `svc server key create CALLSIGN --name test
    /// --tier TIER` makes it.
    pub fn new_key(&self, callsign: &str, tier: &str) -> Api {
        let tier = match tier {
            "basic" => svc::model::Tier::Basic,
            "elevated" => svc::model::Tier::Elevated,
            other => panic!("no tier {other}"),
        };
        let callsign = callsign.to_owned();
        let key = self.with_store(|store| async move {
            let callsign = svc::model::callsign::normalize_callsign("callsign", &callsign)
                .expect("a valid callsign");
            let account = store
                .account_by_callsign(&callsign)
                .await
                .expect("read the account")
                .unwrap_or_else(|| panic!("key create: no account {callsign}"));
            let key = svc::model::ApiKey::generate_with(svc::model::key::KeyPrefix::Svc);
            store
                .create_key(&account.id, "test", tier, &key)
                .await
                .unwrap_or_else(|e| panic!("key create {callsign}: {e}"));
            key.expose().to_owned()
        });
        self.api(Some(&key))
    }

    /// Runs `f` with the server's store: an in-process server's own, else the database
    /// opened here.
    fn with_store<F, R>(&self, f: impl FnOnce(Arc<dyn svc::store::Store>) -> F) -> R
    where
        F: std::future::Future<Output = R>,
    {
        match &self.running {
            Running::InProcess(server) => server.block_on(f(server.store.clone())),
            Running::Process { .. } => {
                let url = self.db.url.clone();
                block_on(async move {
                    let store = svc::store::open(&url)
                        .await
                        .unwrap_or_else(|e| panic!("open {url}: {e}"));
                    f(store).await
                })
            }
        }
    }

    pub fn api(&self, key: Option<&str>) -> Api {
        api_at(&self.url, key)
    }

    /// The process, or a panic naming the test's need: `what` only a process has.
    fn process_for(&self, what: &str) -> &Process {
        match &self.running {
            Running::Process { process, .. } => process,
            Running::InProcess(_) => panic!(
                "{what}: this server runs in the test process; start it with \
                 Server::process, process_with or process_on"
            ),
        }
    }

    /// Everything the server process logged so far.
    pub fn logs(&self) -> String {
        self.process_for("Server::logs (the process's log)");
        let mut all = String::new();
        for entry in std::fs::read_dir(self.db.dir.path()).unwrap().flatten() {
            if entry.file_name().to_string_lossy().ends_with(".log") {
                all.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
            }
        }
        all
    }

    /// The next line the process printed on stdout after its address (waiting up to a
    /// minute for it), or None when it has exited without printing another.
    pub fn printed(&self) -> Option<String> {
        self.process_for("Server::printed (the process's stdout)");
        let Running::Process { stdout, .. } = &self.running else {
            unreachable!()
        };
        match stdout.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => Some(line),
            Err(mpsc::RecvTimeoutError::Disconnected) => None,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                panic!("the server printed nothing more on stdout in a minute")
            }
        }
    }

    /// The metrics' address (started with `--metrics-bind`): the line the process printed
    /// after its own address, or the in-process server's.
    pub fn metrics_url(&self) -> String {
        match &self.running {
            Running::InProcess(server) => format!(
                "http://{}",
                server
                    .metrics
                    .expect("a server started with --metrics-bind")
            ),
            Running::Process { .. } => {
                let line = self.printed().expect("the metrics address on stdout");
                line.strip_prefix("metrics listening on ")
                    .unwrap_or_else(|| panic!("unexpected second line from the server: {line:?}"))
                    .to_owned()
            }
        }
    }

    pub fn pid(&self) -> u32 {
        self.process_for("Server::pid").0.id()
    }

    /// Sends SIGTERM and waits (up to a minute) for the process to exit; returns how it exited
    /// and how long it took.
    pub fn terminate(&mut self) -> (std::process::ExitStatus, Duration) {
        let pid = self.pid();
        let Running::Process { process, .. } = &mut self.running else {
            unreachable!()
        };
        let started = std::time::Instant::now();
        // SAFETY: kill only sends a signal to our own child process.
        assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) }, 0);
        loop {
            if let Some(status) = process.0.try_wait().unwrap() {
                return (status, started.elapsed());
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the server did not exit within a minute of SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops the server at once (no graceful shutdown: the process is killed, an in-process
    /// server's runtime dropped with every connection and task) and hands back the database.
    pub fn crash(self) -> Db {
        drop(self.running);
        self.db
    }
}

/// Another server process on a test's database; stopped when dropped.
pub struct Peer {
    pub url: String,
    _process: Process,
}

impl Peer {
    pub fn api(&self, key: Option<&str>) -> Api {
        api_at(&self.url, key)
    }
}

fn api_at(base: &str, key: Option<&str>) -> Api {
    Api {
        base: base.to_owned(),
        key: key.map(str::to_owned),
        http: http_client(),
    }
}

/// An HTTP client for the tests' servers, all plain HTTP on loopback: without the system's
/// certificate store, which every client would read again.
pub fn http_client() -> reqwest::blocking::Client {
    http_builder().build().expect("an HTTP client")
}

/// [`http_client`]'s builder, for a client with more settings.
pub fn http_builder() -> reqwest::blocking::ClientBuilder {
    reqwest::blocking::Client::builder().tls_certs_only([])
}

/// Serves what `svc server start --bind 127.0.0.1:0 --database <db> <extra>` serves, from a
/// runtime of its own in the test process, with the process's settings: the test's data
/// directory, and no real POTA unless `extra` names one.
fn serve_in_process(db: &Db, extra: &[&str]) -> (String, Running) {
    let mut flags: Vec<String> = ["--bind", "127.0.0.1:0", "--database", &db.url]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect();
    // As the process's SVC_POTA_API_URL: nothing listens on loopback's discard port.
    if !extra.iter().any(|flag| flag.starts_with("--pota-api-url")) {
        flags.extend(["--pota-api-url".to_owned(), "http://127.0.0.1:9".to_owned()]);
    }
    let data_dir = db.data_dir();
    let (ready_tx, ready_rx) = mpsc::channel();
    let (kill, killed) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        // A runtime like the command's own: multi-threaded, a worker per core, the service's
        // future on this thread.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("a runtime for the server");
        let handle = runtime.handle().clone();
        let failed = ready_tx.clone();
        runtime.block_on(async move {
            let serve = svc::server::cmd::serve_flags(
                flags,
                &data_dir,
                move |ready| {
                    let _ = ready_tx.send(Ok((ready, handle)));
                },
                std::future::pending(),
            );
            tokio::select! {
                served = serve => {
                    if let Err(e) = served {
                        let _ = failed.send(Err(e));
                    }
                }
                _ = killed => {}
            }
        });
        // Every task and connection goes at once.
        runtime.shutdown_background();
    });
    let (ready, runtime) = match ready_rx.recv_timeout(Duration::from_secs(60)) {
        Ok(Ok(ready)) => ready,
        Ok(Err(e)) => panic!("the server did not start: {e}"),
        Err(_) => panic!("the server did not start within a minute"),
    };
    (
        format!("http://{}", ready.addr),
        Running::InProcess(InProcess {
            runtime,
            store: ready.store,
            metrics: ready.metrics,
            kill: Some(kill),
            thread: Some(thread),
        }),
    )
}

/// Starts `svc server start` on a free loopback port; returns its address, its process and
/// the lines it prints on stdout after the address.
fn spawn_server(db: &Db, extra: &[&str]) -> (String, Process, mpsc::Receiver<String>) {
    spawn_server_with(db, extra, None, &[])
}

fn spawn_server_with(
    db: &Db,
    extra: &[&str],
    open_files: Option<(u64, u64)>,
    env: &[(String, String)],
) -> (String, Process, mpsc::Receiver<String>) {
    let stderr =
        std::fs::File::create(db.dir.path().join(format!("server-{}.log", rand_suffix()))).unwrap();
    let mut command = Command::new(BIN);
    if let Some((soft, hard)) = open_files {
        use std::os::unix::process::CommandExt;
        // SAFETY: setrlimit is async-signal-safe and touches only the child's own limits.
        unsafe {
            command.pre_exec(move || {
                let limit = libc::rlimit {
                    rlim_cur: soft,
                    rlim_max: hard,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
    }
    let mut child = command
        .args([
            "server",
            "start",
            "--bind",
            "127.0.0.1:0",
            "--database",
            &db.url,
        ])
        .args(extra)
        .env_remove("SVC_DATABASE_URL")
        .env_remove("SVC_CTY")
        // No test reaches the real POTA: nothing listens on loopback's discard port, and a
        // test with the stand-in names it with --pota-api-url.
        .env("SVC_POTA_API_URL", "http://127.0.0.1:9")
        // The data directory is the test's own: a country file a developer keeps in theirs
        // must not change what a test sees.
        .env("XDG_DATA_HOME", db.dir.path())
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(stderr))
        .spawn()
        .expect("spawn svc server start");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    // Every line, until the process exits or no one reads them.
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let line = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("server printed its address");
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line from the server: {line:?}"))
        .to_owned();
    (url, Process(child), rx)
}

fn rand_suffix() -> String {
    format!(
        "{:x}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

pub fn admin_on(db_url: &str, args: &[&str], stdin: Option<&str>) -> Output {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .arg("server")
        .args(args)
        .args(["--database", db_url])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn svc server");
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap()
}

/// A response: status, headers and the JSON body (Null when empty).
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Asserts the error envelope and its code; returns the message.
    pub fn expect_error(&self, status: u16, code: &str) -> String {
        assert_eq!(self.status, status, "body: {}", self.body);
        assert_eq!(self.body["error"], code, "body: {}", self.body);
        let message = self.body["message"].as_str().expect("message").to_owned();
        assert!(!message.is_empty());
        let request_id = self.body["requestId"].as_str().expect("requestId");
        assert!(request_id.starts_with("req_"), "{request_id}");
        assert_eq!(self.header("x-request-id"), Some(request_id));
        message
    }

    pub fn id(&self) -> String {
        self.body["id"]
            .as_str()
            .unwrap_or_else(|| panic!("no id in {}", self.body))
            .to_owned()
    }
}

#[derive(Clone)]
pub struct Api {
    pub base: String,
    pub key: Option<String>,
    http: reqwest::blocking::Client,
}

impl Api {
    pub fn key(&self) -> &str {
        self.key.as_deref().unwrap()
    }

    pub fn send(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Resp {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut req = self.http.request(method, format!("{}{path}", self.base));
        if let Some(key) = &self.key {
            req = req.bearer_auth(key);
        }
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        if let Some(b) = body {
            req = req.json(b);
        }
        into_resp(req.send().expect("request"))
    }

    pub fn raw(&self, method: &str, path: &str, body: Vec<u8>, headers: &[(&str, &str)]) -> Resp {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.base))
            .body(body);
        if let Some(key) = &self.key {
            req = req.bearer_auth(key);
        }
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        into_resp(req.send().expect("request"))
    }

    pub fn get(&self, path: &str) -> Resp {
        self.send("GET", path, None, &[])
    }

    pub fn post(&self, path: &str, body: Value) -> Resp {
        self.send("POST", path, Some(&body), &[])
    }

    pub fn delete(&self, path: &str) -> Resp {
        self.send("DELETE", path, None, &[])
    }

    pub fn folders(&self, kind: &str) -> Vec<Value> {
        let r = self.get(&format!("/v1/folders?type={kind}&limit=200"));
        assert_eq!(r.status, 200, "{}", r.body);
        r.body["items"].as_array().unwrap().clone()
    }

    /// The id of the folder with this name.
    pub fn folder_named(&self, name: &str) -> String {
        let r = self.get("/v1/folders?limit=200");
        r.body["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("no folder {name} in {}", r.body))["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    pub fn monthly(&self, month: &str, program: Option<&str>) -> String {
        let mut body = json!({ "type": "monthly", "month": month });
        if let Some(p) = program {
            body["programId"] = json!(p);
        }
        let r = self.post("/v1/folders", body);
        assert!(r.status == 201 || r.status == 200, "{}", r.body);
        r.id()
    }

    pub fn activation(&self, reference: &str, callsign: &str) -> String {
        let r = self.post(
            "/v1/activations",
            json!({ "locationReference": reference, "callsign": callsign }),
        );
        assert!(r.status == 201 || r.status == 200, "{}", r.body);
        r.id()
    }

    pub fn whoami(&self) -> Value {
        let r = self.get("/v1/whoami");
        assert_eq!(r.status, 200, "{}", r.body);
        r.body
    }

    pub fn qso_count(&self) -> i64 {
        self.whoami()["nativeQsoCount"].as_i64().unwrap()
    }

    /// Every contact of the folder, following the cursor.
    pub fn all_contacts(&self, folder: &str) -> Vec<Value> {
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let path = match &cursor {
                Some(c) => format!("/v1/folders/{folder}/contacts?limit=200&cursor={c}"),
                None => format!("/v1/folders/{folder}/contacts?limit=200"),
            };
            let page = self.get(&path);
            assert_eq!(page.status, 200, "{}", page.body);
            all.extend(page.body["items"].as_array().unwrap().iter().cloned());
            cursor = page.body["cursor"].as_str().map(str::to_owned);
            if cursor.is_none() {
                return all;
            }
        }
    }

    pub fn contacts(&self, folder: &str) -> Vec<Value> {
        let r = self.get(&format!("/v1/folders/{folder}/contacts?limit=200"));
        assert_eq!(r.status, 200, "{}", r.body);
        r.body["items"].as_array().unwrap().clone()
    }
}

fn into_resp(r: reqwest::blocking::Response) -> Resp {
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    let text = r.text().unwrap_or_default();
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    };
    Resp {
        status,
        headers,
        body,
    }
}

/// Waits until `done` holds, for at most 30 s (the logbook worker looks for work every second
/// and retries after 2 s, doubling).
pub fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let started = std::time::Instant::now();
    while !done() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "waited 30 s for {what}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The current UTC month and a time in it, so contacts fit a monthly folder made now.
pub fn this_month() -> (String, String) {
    let now = svc::model::Timestamp::now();
    (now.utc_month(), now.to_string())
}

/// A valid contact body for `folder`, timed now.
pub fn contact(folder: &str, callsign: &str) -> Value {
    json!({
        "folderId": folder,
        "callsign": callsign,
        "frequency": 14.074,
        "mode": "FT8",
        "timeOn": this_month().1,
    })
}

impl Server {
    /// Runs one SQL statement on the database directly, to set up what the API cannot make
    /// (a damaged row, an aged one); returns the rows changed.
    pub fn exec_sql(&self, sql: &'static str, args: &[&str]) -> u64 {
        use sqlx::Connection;
        sqlx::any::install_default_drivers();
        let url = self.db.url.clone();
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        block_on(async move {
            let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
            let mut q = sqlx::query(sql);
            for a in &args {
                q = q.bind(a.as_str());
            }
            q.execute(&mut conn).await.unwrap().rows_affected()
        })
    }
}

/// A TCP proxy to PostgreSQL that a test can cut and restore, as if the database restarted:
/// cutting closes every connection through it and refuses new ones until restored.
pub struct Outage {
    pub addr: std::net::SocketAddr,
    up: std::sync::Arc<std::sync::atomic::AtomicBool>,
    open: std::sync::Arc<std::sync::Mutex<Vec<std::net::TcpStream>>>,
}

impl Outage {
    pub fn proxy_to(upstream: std::net::SocketAddr) -> Outage {
        use std::net::{Shutdown, TcpListener, TcpStream};
        use std::sync::atomic::AtomicBool;
        use std::sync::{Arc, Mutex};
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let addr = listener.local_addr().unwrap();
        let up = Arc::new(AtomicBool::new(true));
        let open: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let (up2, open2) = (up.clone(), open.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                if !up2.load(Ordering::SeqCst) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(upstream) else {
                    continue;
                };
                let mut tracked = open2.lock().unwrap();
                for (mut from, mut to) in [
                    (client.try_clone().unwrap(), server.try_clone().unwrap()),
                    (server.try_clone().unwrap(), client.try_clone().unwrap()),
                ] {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(Shutdown::Both);
                    });
                }
                tracked.extend([client, server]);
            }
        });
        Outage { addr, up, open }
    }

    /// The database goes away: open connections break, new ones are refused.
    pub fn cut(&self) {
        self.up.store(false, Ordering::SeqCst);
        for stream in self.open.lock().unwrap().drain(..) {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
    }

    pub fn restore(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}

impl Db {
    /// The same database reached through `outage`'s proxy.
    pub fn through(mut self, outage: &Outage) -> Db {
        let url = reqwest::Url::parse(&self.url).expect("a database URL");
        let mut proxied = url.clone();
        proxied.set_ip_host(outage.addr.ip()).unwrap();
        proxied.set_port(Some(outage.addr.port())).unwrap();
        self.url = proxied.to_string();
        self
    }

    /// Where the database's server listens.
    pub fn server_addr(&self) -> std::net::SocketAddr {
        use std::net::ToSocketAddrs;
        let url = reqwest::Url::parse(&self.url).expect("a database URL");
        (url.host_str().unwrap(), url.port().unwrap_or(5432))
            .to_socket_addrs()
            .unwrap()
            .next()
            .unwrap()
    }
}
