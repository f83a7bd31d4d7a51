//! Starts the real `svc server start` process on a free loopback port with a fresh SQLite file,
//! and talks HTTP to it.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

pub const BIN: &str = env!("CARGO_BIN_EXE_svc");

pub struct Server {
    pub url: String,
    pub db_url: String,
    pub dir: tempfile::TempDir,
    child: Child,
}

impl Server {
    pub fn start() -> Server {
        Self::start_with(&[])
    }

    /// Starts the server with extra `server start` flags, e.g. `["--burst-limit", "5"]`.
    pub fn start_with(extra: &[&str]) -> Server {
        let dir = tempfile::tempdir().expect("temp dir");
        let db_url = format!("sqlite://{}", dir.path().join("svc.db").display());
        Self::start_on(dir, db_url, extra)
    }

    /// Starts a server on an existing database (for a restart or a second process).
    pub fn start_on(dir: tempfile::TempDir, db_url: String, extra: &[&str]) -> Server {
        let stderr =
            std::fs::File::create(dir.path().join(format!("server-{}.log", rand_suffix())))
                .unwrap();
        let mut child = Command::new(BIN)
            .args([
                "server",
                "start",
                "--bind",
                "127.0.0.1:0",
                "--database",
                &db_url,
            ])
            .args(extra)
            .env_remove("SVC_DATABASE_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr))
            .spawn()
            .expect("spawn svc server start");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("server printed its address");
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line from the server: {line:?}"))
            .to_owned();
        Server {
            url,
            db_url,
            dir,
            child,
        }
    }

    /// Runs `svc server <args> --database <this db>`.
    pub fn admin(&self, args: &[&str]) -> Output {
        admin_on(&self.db_url, args, None)
    }

    /// Creates an account (free plan) and returns a key of the tier.
    pub fn account(&self, callsign: &str, tier: &str) -> Api {
        let out = self.admin(&["user", "add", callsign]);
        assert!(
            out.status.success(),
            "user add: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        self.new_key(callsign, tier)
    }

    pub fn new_key(&self, callsign: &str, tier: &str) -> Api {
        let out = self.admin(&["key", "create", callsign, "--name", "test", "--tier", tier]);
        assert!(
            out.status.success(),
            "key create: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let key = String::from_utf8(out.stdout).unwrap().trim().to_owned();
        self.api(Some(&key))
    }

    pub fn api(&self, key: Option<&str>) -> Api {
        Api {
            base: self.url.clone(),
            key: key.map(str::to_owned),
            http: reqwest::blocking::Client::new(),
        }
    }

    /// Everything the server logged so far.
    pub fn logs(&self) -> String {
        let mut all = String::new();
        for entry in std::fs::read_dir(self.dir.path()).unwrap().flatten() {
            if entry.file_name().to_string_lossy().ends_with(".log") {
                all.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
            }
        }
        all
    }

    pub fn db_path(&self) -> PathBuf {
        PathBuf::from(self.db_url.trim_start_matches("sqlite://"))
    }

    /// Kills the process at once (no graceful shutdown) and hands back the database.
    pub fn crash(mut self) -> (tempfile::TempDir, String) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let dir = std::mem::replace(&mut self.dir, tempfile::tempdir().unwrap());
        (dir, self.db_url.clone())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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
    /// Runs one SQL statement on the database file directly, to set up what the API cannot
    /// make (a damaged row); returns the rows changed.
    pub fn exec_sql(&self, sql: &'static str, args: &[&str]) -> u64 {
        use sqlx::Connection;
        let path = self.db_path();
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async move {
                let mut conn =
                    sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
                        .await
                        .unwrap();
                let mut q = sqlx::query(sql);
                for a in &args {
                    q = q.bind(a.as_str());
                }
                q.execute(&mut conn).await.unwrap().rows_affected()
            })
    }
}
