//! A stand-in for Club Log's API for the tests, built from Club Log's helpdesk articles ("How
//! to upload QSOs in real-time", "How to delete QSOs in real-time", "How to upload logs
//! directly into Club Log"), not from svc's client: `POST /realtime.php` (form: `email`,
//! `password`, `callsign`, `adif` of one record, `api`), `POST /delete.php` (form: `email`,
//! `password`, `callsign`, `dxcall`, `datetime` as `YYYY-MM-DD HH:MM:SS`, `bandid` from the
//! article's list, `api`) and `POST /putlogs.php` (multipart: those fields, `clear` and an ADIF
//! `file`). It answers as the articles say: 200 with a body (`QSO Duplicate` for a contact it
//! has), 400 for a rejected contact, 403 for refused credentials, 404 for a delete that
//! matches nothing, 500 for its own failures. Logs live in memory, served by axum on a free
//! loopback port from a thread and runtime of its own.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use svc::adif::{Reader, Record};
use tokio::net::TcpListener;

use super::Server;

/// The service's API key the stand-in takes, as Club Log's helpdesk would give it.
pub const API_KEY: &str = "svc-test-api-key-0123456789abcdef";

/// How the stand-in answers every request from now on.
#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    Normal,
    /// 400 with this body, as for a contact Club Log's ADIF parser finds bad.
    Reject(String),
    /// 403, as for a password changed at Club Log.
    Forbidden,
    /// 500, as during Club Log's maintenance.
    ServerError,
    /// Reads the request and never answers.
    Stall,
    /// Reads the request and answers it (as `Normal`) once the mode is no longer `Held`.
    Held,
}

/// One request as Club Log saw it: the script, and the form's fields (a file's text under
/// `file`).
#[derive(Debug, Clone)]
pub struct Request {
    pub script: String,
    pub fields: HashMap<String, String>,
}

pub struct FakeClubLog {
    url: reqwest::Url,
    state: Arc<Mutex<Logs>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

struct Account {
    password: String,
    callsigns: Vec<String>,
}

struct Logs {
    mode: Mode,
    /// By email.
    accounts: HashMap<String, Account>,
    /// By callsign: the log's records.
    logs: HashMap<String, Vec<Record>>,
    requests: Vec<Request>,
}

type Shared = Arc<Mutex<Logs>>;

impl FakeClubLog {
    pub fn start() -> FakeClubLog {
        let state: Shared = Arc::new(Mutex::new(Logs {
            mode: Mode::Normal,
            accounts: HashMap::new(),
            logs: HashMap::new(),
            requests: Vec::new(),
        }));
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let app = Router::new()
            .route("/{script}", post(script))
            .with_state(state.clone());
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime for the Club Log stand-in");
            runtime.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind the Club Log stand-in");
                addr_tx
                    .send(listener.local_addr().expect("its address"))
                    .expect("the test waits for the address");
                tokio::select! {
                    _ = std::future::IntoFuture::into_future(axum::serve(listener, app)) => {}
                    _ = stopped => {}
                }
            });
        });
        let addr = addr_rx.recv().expect("the Club Log stand-in started");
        FakeClubLog {
            url: reqwest::Url::parse(&format!("http://{addr}")).expect("a URL"),
            state,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    pub fn url(&self) -> reqwest::Url {
        self.url.clone()
    }

    /// A Club Log account with an application password and the callsigns of its logs.
    pub fn add_account(&self, email: &str, password: &str, callsigns: &[&str]) {
        let mut logs = self.state.lock().unwrap();
        logs.accounts.insert(
            email.to_owned(),
            Account {
                password: password.to_owned(),
                callsigns: callsigns.iter().map(|c| c.to_string()).collect(),
            },
        );
        for call in callsigns {
            logs.logs.entry(call.to_string()).or_default();
        }
    }

    /// The records of the log of `callsign`.
    pub fn records(&self, callsign: &str) -> Vec<Record> {
        let logs = self.state.lock().unwrap();
        logs.logs.get(callsign).cloned().unwrap_or_default()
    }

    /// The calls in the log of `callsign`, sorted.
    pub fn calls(&self, callsign: &str) -> Vec<String> {
        let mut calls: Vec<String> = self
            .records(callsign)
            .iter()
            .filter_map(|r| r.get("CALL").map(str::to_owned))
            .collect();
        calls.sort();
        calls
    }

    pub fn set_mode(&self, mode: Mode) {
        self.state.lock().unwrap().mode = mode;
    }

    /// Every request so far, whatever the mode made of it.
    pub fn requests(&self) -> Vec<Request> {
        self.state.lock().unwrap().requests.clone()
    }

    /// How many requests went to `script` (`realtime.php`, …).
    pub fn count(&self, script: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.script == script)
            .count()
    }
}

impl Drop for FakeClubLog {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A server that talks to `clublog` with its API key (and to QRZ nowhere), with a secret of
/// its own (the file lives as long as the returned directory).
pub fn server(clublog: &FakeClubLog, extra: &[&str]) -> (Server, tempfile::TempDir) {
    server_with(clublog, Some(API_KEY), extra, Server::start_with)
}

/// [`server`] as a process of its own, for a test that reads its log.
pub fn server_process(clublog: &FakeClubLog, extra: &[&str]) -> (Server, tempfile::TempDir) {
    server_with(clublog, Some(API_KEY), extra, Server::process_with)
}

/// A server whose operator gave no Club Log API key.
pub fn server_without_api_key(clublog: &FakeClubLog) -> (Server, tempfile::TempDir) {
    server_with(clublog, None, &[], Server::start_with)
}

fn server_with(
    clublog: &FakeClubLog,
    api_key: Option<&str>,
    extra: &[&str],
    start: fn(&[&str]) -> Server,
) -> (Server, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret");
    std::fs::write(&secret, "a test secret that is long enough to seal keys\n").unwrap();
    std::fs::set_permissions(&secret, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let mut flags = vec![
        "--secret-file".to_owned(),
        secret.display().to_string(),
        "--clublog-url".to_owned(),
        clublog.url().to_string(),
    ];
    if let Some(key) = api_key {
        flags.extend(["--clublog-api-key".to_owned(), key.to_owned()]);
    }
    flags.extend(extra.iter().map(|s| s.to_string()));
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    (start(&flags), dir)
}

/// Club Log's band ids for delete.php, from the article: "80 for 3.5MHz and 70 for 432MHz.
/// Valid bands are 160, 80, 60, 40, 30, 20, 17, 15, 12, 10, 6, 4, 2, 70, 23 and 13."
fn band_of_id(id: &str) -> Option<&'static str> {
    Some(match id {
        "160" => "160m",
        "80" => "80m",
        "60" => "60m",
        "40" => "40m",
        "30" => "30m",
        "20" => "20m",
        "17" => "17m",
        "15" => "15m",
        "12" => "12m",
        "10" => "10m",
        "6" => "6m",
        "4" => "4m",
        "2" => "2m",
        "70" => "70cm",
        "23" => "23cm",
        "13" => "13cm",
        _ => return None,
    })
}

fn answer(status: StatusCode, body: &str) -> Response {
    (status, [(CONTENT_TYPE, "text/plain")], body.to_owned()).into_response()
}

async fn script(
    State(state): State<Shared>,
    Path(script): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let content_type = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let fields = if content_type.starts_with("multipart/form-data") {
        match multipart(&content_type, &body) {
            Some(fields) => fields,
            None => return answer(StatusCode::BAD_REQUEST, "Malformed upload"),
        }
    } else {
        form_urlencoded::parse(&body).into_owned().collect()
    };
    let mut mode = {
        let mut logs = state.lock().unwrap();
        logs.requests.push(Request {
            script: script.clone(),
            fields: fields.clone(),
        });
        logs.mode.clone()
    };
    while mode == Mode::Held {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        mode = state.lock().unwrap().mode.clone();
    }
    match mode {
        Mode::Normal => {}
        Mode::Reject(reason) => return answer(StatusCode::BAD_REQUEST, &reason),
        Mode::Forbidden => {
            return answer(StatusCode::FORBIDDEN, "Access denied: invalid password");
        }
        Mode::ServerError => {
            return answer(StatusCode::INTERNAL_SERVER_ERROR, "Internal error");
        }
        Mode::Stall => std::future::pending::<()>().await,
        Mode::Held => unreachable!("waited out above"),
    }
    let field = |name: &str| fields.get(name).map(String::as_str).unwrap_or_default();
    let mut logs = state.lock().unwrap();
    let allowed = field("api") == API_KEY
        && logs.accounts.get(field("email")).is_some_and(|a| {
            a.password == field("password") && a.callsigns.iter().any(|c| c == field("callsign"))
        });
    if !allowed {
        return answer(StatusCode::FORBIDDEN, "Access denied");
    }
    let log = logs.logs.entry(field("callsign").to_owned()).or_default();
    match script.as_str() {
        "realtime.php" => {
            let mut reader = match Reader::new(field("adif").as_bytes()) {
                Ok(reader) => reader,
                Err(e) => return answer(StatusCode::BAD_REQUEST, &e.to_string()),
            };
            // "Exactly one ADIF record … Any additional records are ignored."
            let Some(Ok(record)) = reader.next() else {
                return answer(StatusCode::BAD_REQUEST, "QSO Rejected: no ADIF record");
            };
            add(log, record)
        }
        "putlogs.php" => {
            if field("clear") != "0" {
                return answer(StatusCode::BAD_REQUEST, "this stand-in merges only");
            }
            let Ok(reader) = Reader::new(field("file").as_bytes()) else {
                return answer(StatusCode::BAD_REQUEST, "Not an ADIF file");
            };
            let mut count = 0;
            for record in reader {
                let Ok(record) = record else {
                    return answer(StatusCode::BAD_REQUEST, "Not an ADIF file");
                };
                add(log, record);
                count += 1;
            }
            answer(StatusCode::OK, &format!("Upload queued: {count} QSOs"))
        }
        "delete.php" => {
            let Some(band) = band_of_id(field("bandid")) else {
                return answer(StatusCode::BAD_REQUEST, "Invalid band");
            };
            let datetime = field("datetime");
            let before = log.len();
            log.retain(|r| {
                let at = format!(
                    "{} {}",
                    date_text(r.get("QSO_DATE").unwrap_or_default()),
                    time_text(r.get("TIME_ON").unwrap_or_default())
                );
                !(r.get("CALL")
                    .is_some_and(|c| c.eq_ignore_ascii_case(field("dxcall")))
                    && at == datetime
                    && r.get("BAND").is_some_and(|b| b.eq_ignore_ascii_case(band)))
            });
            if log.len() < before {
                answer(StatusCode::OK, "QSO Deleted")
            } else {
                answer(StatusCode::NOT_FOUND, "QSO Not Deleted")
            }
        }
        _ => answer(StatusCode::NOT_FOUND, "Not Found"),
    }
}

/// Stores a record unless the log has it (same call, date, time and band): Club Log's 200
/// "QSO Duplicate".
fn add(log: &mut Vec<Record>, record: Record) -> Response {
    let Some(call) = record.get("CALL") else {
        return answer(StatusCode::BAD_REQUEST, "QSO Rejected: no callsign");
    };
    let same = |r: &Record| {
        r.get("CALL").is_some_and(|c| c.eq_ignore_ascii_case(call))
            && ["QSO_DATE", "TIME_ON", "BAND"].iter().all(|name| {
                r.get(name).map(str::to_ascii_lowercase)
                    == record.get(name).map(str::to_ascii_lowercase)
            })
    };
    if log.iter().any(same) {
        return answer(StatusCode::OK, "QSO Duplicate");
    }
    log.push(record);
    answer(StatusCode::OK, "QSO OK")
}

fn date_text(date: &str) -> String {
    if date.len() == 8 && date.is_ascii() {
        format!("{}-{}-{}", &date[..4], &date[4..6], &date[6..])
    } else {
        date.to_owned()
    }
}

fn time_text(time: &str) -> String {
    let time = format!("{time:0<6}");
    if time.len() == 6 && time.is_ascii() {
        format!("{}:{}:{}", &time[..2], &time[2..4], &time[4..])
    } else {
        time
    }
}

/// The fields of a `multipart/form-data` body (RFC 7578), by name; a file's content as text.
pub(super) fn multipart(content_type: &str, body: &[u8]) -> Option<HashMap<String, String>> {
    let boundary = content_type
        .split(';')
        .find_map(|p| p.trim().strip_prefix("boundary="))?
        .trim_matches('"');
    let body = std::str::from_utf8(body).ok()?;
    let delimiter = format!("--{boundary}");
    let mut fields = HashMap::new();
    let mut parts = body.split(delimiter.as_str());
    // Before the first delimiter: the preamble.
    parts.next()?;
    let mut closed = false;
    for part in parts {
        if part.starts_with("--") {
            closed = true;
            break;
        }
        let part = part.strip_prefix("\r\n")?;
        let (head, content) = part.split_once("\r\n\r\n")?;
        let content = content.strip_suffix("\r\n")?;
        let name = head
            .lines()
            .find(|l| l.to_ascii_lowercase().starts_with("content-disposition:"))?
            .split(';')
            .find_map(|p| p.trim().strip_prefix("name="))?
            .trim_matches('"');
        fields.insert(name.to_owned(), content.to_owned());
    }
    closed.then_some(fields)
}
