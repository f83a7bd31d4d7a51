//! The `svc` client: the built binary against the real `svc server start` process. Each test
//! gets its own HOME and config folder and a D-Bus address that leads nowhere, so no test can
//! touch the user's keychain or ~/.config; the keychain tests start a private Secret Service.

mod activations;
mod adif;
pub mod adif_io;
mod auth;
mod contacts;
mod contest;
mod corpus;
mod errors;
mod folders;
mod hardening;
mod help;
mod keychain;
// Its QDataStream writer is the logbook's WSJT-X tests' too (tests/tui/wsjtx.rs).
pub mod listen;
mod logbooks;
mod lookup;
mod lotw;
mod outbox;
pub mod pota;
mod retries;
mod station;
mod terminal;
mod whoami;

use std::cell::RefCell;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::common::{Api, Server};

/// The outcome of one `svc` run.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout as one JSON value.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:?}"))
    }

    /// The JSON error envelope: the last line of stderr (--verbose lines may come before it).
    pub fn envelope(&self) -> Value {
        let last = self.stderr.trim_end().lines().last().unwrap_or_default();
        serde_json::from_str(last)
            .unwrap_or_else(|e| panic!("stderr is not one JSON envelope ({e}): {self:?}"))
    }

    pub fn ok(&self) -> &Run {
        assert_eq!(self.code, 0, "{self:?}");
        self
    }

    /// Asserts the exit code and the one-line error shape; returns the message.
    pub fn fails(&self, exit: i32, command: &str, error: &str) -> String {
        assert_eq!(self.code, exit, "{self:?}");
        assert!(
            self.stdout.is_empty(),
            "nothing on stdout on failure: {self:?}"
        );
        // A failure of svc itself (an unknown command) is named once.
        let prefix = if command == "svc" {
            format!("svc: {error}: ")
        } else {
            format!("svc: {command}: {error}: ")
        };
        let line = self
            .stderr
            .lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no line starting {prefix:?}: {self:?}"));
        line[prefix.len()..].to_owned()
    }

    /// Asserts the exit code and the JSON envelope on stderr; returns it.
    pub fn fails_json(&self, exit: i32, command: &str, error: &str) -> Value {
        assert_eq!(self.code, exit, "{self:?}");
        let env = self.envelope();
        assert_eq!(env["command"], command, "{env}");
        assert_eq!(env["error"], error, "{env}");
        assert_eq!(env["exitCode"], exit, "{env}");
        assert!(!env["message"].as_str().unwrap().is_empty(), "{env}");
        for field in ["status", "details", "requestId"] {
            assert!(env.get(field).is_some(), "{field} missing from {env}");
        }
        env
    }
}

/// A user of the client: a private HOME and config folder, an API base, and the secrets that
/// must never show up in anything the client prints.
pub struct Cli {
    pub home: tempfile::TempDir,
    pub base: String,
    env: RefCell<Vec<(String, String)>>,
    secrets: RefCell<Vec<String>>,
}

impl Cli {
    pub fn new(base: &str) -> Cli {
        Cli {
            home: tempfile::tempdir().unwrap(),
            base: base.to_owned(),
            env: RefCell::new(Vec::new()),
            secrets: RefCell::new(Vec::new()),
        }
    }

    /// A client for the server, using `api`'s key through SVC_API_KEY.
    pub fn with_key(server: &Server, api: &Api) -> Cli {
        let cli = Cli::new(&server.url);
        cli.set_env("SVC_API_KEY", api.key());
        cli.secret(api.key());
        cli
    }

    pub fn set_env(&self, name: &str, value: &str) {
        let mut env = self.env.borrow_mut();
        env.retain(|(n, _)| n != name);
        env.push((name.to_owned(), value.to_owned()));
    }

    pub fn unset_env(&self, name: &str) {
        self.env.borrow_mut().retain(|(n, _)| n != name);
    }

    /// Registers a plaintext key that no output may contain.
    pub fn secret(&self, key: &str) {
        self.secrets.borrow_mut().push(key.to_owned());
    }

    pub fn config_dir(&self) -> PathBuf {
        self.home.path().join("config")
    }

    /// Where this user's outbox journals live.
    pub fn data_dir(&self) -> PathBuf {
        self.home.path().join("data")
    }

    pub fn config_file(&self) -> PathBuf {
        self.config_dir().join("svc").join("config.json")
    }

    pub fn command(&self) -> assert_cmd::Command {
        let mut cmd = assert_cmd::Command::from_std(self.std_command());
        cmd.timeout(Duration::from_secs(120));
        cmd
    }

    /// The `svc` command with this user's environment, for tests that need the running child.
    pub fn std_command(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin!("svc"));
        for name in [
            "SVC_API_KEY",
            "SVC_NO_KEYRING",
            "NO_COLOR",
            "DISPLAY",
            "WAYLAND_DISPLAY",
            "SVC_DATABASE_URL",
            "SVC_CTY",
            "SVC_SCP",
        ] {
            cmd.env_remove(name);
        }
        cmd.env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.config_dir())
            .env("XDG_DATA_HOME", self.data_dir())
            .env("XDG_RUNTIME_DIR", self.home.path())
            .env("SVC_API_BASE", &self.base)
            // Nothing listens on loopback's discard port: a test reaches POTA's stand-in when
            // it names one, and never the real POTA.
            .env("SVC_POTA_API_URL", "http://127.0.0.1:9")
            // A bus that does not exist: no keychain unless a test starts its own.
            .env(
                "DBUS_SESSION_BUS_ADDRESS",
                format!("unix:path={}/no-bus", self.home.path().display()),
            );
        for (k, v) in self.env.borrow().iter() {
            cmd.env(k, v);
        }
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Run {
        self.run_stdin(args, "")
    }

    pub fn run_stdin(&self, args: &[&str], stdin: &str) -> Run {
        let config_before = std::fs::read(self.config_file()).ok();
        let out = self
            .command()
            .args(args)
            .write_stdin(stdin)
            .output()
            .unwrap();
        let run = Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        self.check_no_leak(&run);
        let stores = matches!(
            args,
            ["auth", ..] | ["lookup" | "lotw", "connect" | "disconnect", ..]
        );
        if !stores {
            // Only the commands that store a secret may write the config file.
            assert_eq!(
                std::fs::read(self.config_file()).ok(),
                config_before,
                "{args:?} changed the config file"
            );
        }
        self.check_files();
        run
    }

    /// No file under HOME but the config file may hold a key.
    fn check_files(&self) {
        let mut dirs = vec![self.home.path().to_owned()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path != self.config_file() {
                    let bytes = std::fs::read(&path).unwrap_or_default();
                    let text = String::from_utf8_lossy(&bytes);
                    for secret in self.secrets.borrow().iter() {
                        assert!(
                            !text.contains(secret.as_str()),
                            "the key was written to {}",
                            path.display()
                        );
                    }
                }
            }
        }
    }

    fn check_no_leak(&self, run: &Run) {
        for secret in self.secrets.borrow().iter() {
            assert!(
                !run.stdout.contains(secret.as_str()) && !run.stderr.contains(secret.as_str()),
                "the plaintext key leaked into the output: {run:?}"
            );
            // The 24-character secret part alone must not appear either.
            let body = secret.strip_prefix("svc_live_").unwrap_or(secret);
            assert!(
                !run.stdout.contains(body) && !run.stderr.contains(body),
                "the key's secret part leaked: {run:?}"
            );
        }
    }
}

/// A server and an account with a key of `tier` on it, and a client using that key.
pub fn setup(tier: &str) -> (Server, Api, Cli) {
    setup_with(tier, &[])
}

pub fn setup_with(tier: &str, flags: &[&str]) -> (Server, Api, Cli) {
    let server = Server::start_with(flags);
    let api = server.account("W1AW", tier);
    let cli = Cli::with_key(&server, &api);
    (server, api, cli)
}

/// The id of a fresh custom monthly folder of the current UTC month.
pub fn monthly(api: &Api) -> String {
    api.monthly(&crate::common::this_month().0, None)
}

/// An address on which nothing listens.
pub fn closed_port() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}

/// One HTTP request as a tiny test server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub head: String,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    }
}

/// Reads one HTTP/1.1 request (head and Content-Length body) from a connection.
fn read_request(stream: &mut BufReader<TcpStream>) -> Option<(String, Vec<u8>)> {
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if stream.read_line(&mut line).ok()? == 0 {
            return None;
        }
        head.push_str(&line);
        if line == "\r\n" {
            break;
        }
    }
    let length = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0; length];
    stream.read_exact(&mut body).ok()?;
    Some((head, body))
}

/// A canned answer: status, extra headers, body.
pub type Canned = (u16, Vec<(&'static str, String)>, String);

/// A loopback HTTP server that answers each request with the next canned response (status,
/// extra headers, body), one request per connection, and records what it saw. It stands in
/// only for answers the real server cannot be made to give (a 500, a short Retry-After).
pub fn canned_server(responses: Vec<Canned>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    std::thread::spawn(move || {
        for (status, headers, body) in responses {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let mut reader = BufReader::new(stream);
            let Some((head, _)) = read_request(&mut reader) else {
                return;
            };
            record.lock().unwrap().push(Seen { head });
            let mut stream = reader.into_inner();
            let mut response = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                response.push_str(&format!("{k}: {v}\r\n"));
            }
            response.push_str("\r\n");
            response.push_str(&body);
            let _ = stream.write_all(response.as_bytes());
        }
    });
    (url, seen)
}

/// A loopback proxy in front of the real server that passes the first request on but drops
/// its connection before the answer comes back (the server has done the work; the client sees
/// a transport failure), then forwards later requests normally.
pub fn lossy_proxy(upstream: &str) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let upstream = upstream.trim_start_matches("http://").to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    std::thread::spawn(move || {
        for (n, conn) in listener.incoming().enumerate() {
            let Ok(client) = conn else { return };
            let upstream = upstream.clone();
            let record = record.clone();
            std::thread::spawn(move || {
                // One request per connection: the client's request asks for nothing else,
                // and the upstream answer closes it.
                let mut reader = BufReader::new(client);
                let Some((head, body)) = read_request(&mut reader) else {
                    return;
                };
                record.lock().unwrap().push(Seen { head: head.clone() });
                let mut up = TcpStream::connect(&upstream).unwrap();
                let head = head.replacen("\r\n\r\n", "\r\nConnection: close\r\n\r\n", 1);
                up.write_all(head.as_bytes()).unwrap();
                up.write_all(&body).unwrap();
                let mut answer = Vec::new();
                let _ = up.read_to_end(&mut answer);
                if n > 0 {
                    // The first answer is dropped: the server stored it, the client never hears.
                    let _ = reader.get_mut().write_all(&answer);
                }
            });
        }
    });
    (url, seen)
}

/// Runs `cmd` to its end: its exit code, its peak resident memory in KiB and what it wrote to
/// stderr. A process's peak counts the image it was forked from until its exec: spawned from
/// this test binary (tens of MB while the whole suite runs) it would measure the suite. So a
/// small Python process starts it and reads its peak (`RUSAGE_CHILDREN`) instead.
pub fn run_measured(cmd: std::process::Command) -> (Option<i32>, i64, String) {
    const SCRIPT: &str = "import resource, subprocess, sys\n\
r = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)\n\
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n";
    let mut wrapped = std::process::Command::new("python3");
    wrapped
        .arg("-c")
        .arg(SCRIPT)
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (name, value) in cmd.get_envs() {
        match value {
            Some(value) => wrapped.env(name, value),
            None => wrapped.env_remove(name),
        };
    }
    let out = wrapped.output().expect("python3 runs the measured command");
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut fields = report.split_whitespace();
    let code = fields.next().and_then(|c| c.parse::<i32>().ok());
    let peak = fields.next().and_then(|p| p.parse::<i64>().ok());
    (
        code.filter(|c| *c >= 0),
        peak.unwrap_or_else(|| panic!("no peak from the wrapper: {report:?} {out:?}")),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
