//! A stand-in for eQSL.cc's upload for the tests, built from eQSL's "Real-time logging software
//! interface" (qslcard/ImportADIF.txt) and the answers programs that use it quote, not from
//! svc's client: `POST /qslcard/ImportADIF.cfm` (multipart: `EQSL_USER`, `EQSL_PSWD` and the
//! ADIF file as `Filename`), answered with HTTP 200 and an HTML page carrying eQSL's words:
//! `Result: 1 out of 1 records added` for a record taken; `Warning: Y=… M=… D=… CALL BAND MODE
//! Bad record: Duplicate` then `Result: 0 out of 1 records added` for one it has (same call,
//! date, time to the minute, band and mode); `Error: No match on eQSL_User/eQSL_Pswd` for a
//! refused login; a `Bad record:` warning for a rejected one. A 500 stands for its failures.
//! And the Inbox, from eQSL's "Inbox downloading procedure" (qslcard/DownloadInBox.txt):
//! `GET /qslcard/DownloadInBox.cfm?UserName=…&Password=…&RcvdSince=YYYYMMDDHHMM` answers a page
//! saying "Your ADIF log file has been built" with a link to the `.adi` file it wrote under
//! `/downloadedfiles/` (the cards received on or after `RcvdSince`), or `You have no log
//! entries`, or `Error: No such Username/Password found`; `GET /downloadedfiles/{file}` serves
//! the file. The mode only changes uploads.
//! Accounts and their records live in memory, served by axum on a free loopback port from a
//! thread and runtime of its own.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use svc::adif::{Reader, Record};
use tokio::net::TcpListener;

use super::Server;
use super::clublog::multipart;

/// How the stand-in answers every upload from now on.
#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    Normal,
    /// A `Bad record:` warning with this reason, as for a record eQSL will not take.
    Reject(String),
    /// 500, as during eQSL's maintenance.
    ServerError,
    /// `Error: No match on eQSL_User/eQSL_Pswd`, whatever the login, as after a password
    /// changed at eQSL between two uploads (the Inbox, read earlier, took the login).
    LoginRefused,
}

/// One upload as eQSL saw it: the form's fields (the file's text under `Filename`).
pub type Request = HashMap<String, String>;

pub struct FakeEqsl {
    url: reqwest::Url,
    state: Arc<Mutex<Accounts>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

struct Accounts {
    mode: Mode,
    /// By user name: the password.
    passwords: HashMap<String, String>,
    /// By user name: the records uploaded.
    records: HashMap<String, Vec<Record>>,
    requests: Vec<Request>,
    /// By user name: the cards others sent.
    inbox: HashMap<String, Vec<Card>>,
    /// The Inbox files built, by name.
    files: HashMap<String, String>,
    /// The `RcvdSince` of each Inbox read (empty when none was given).
    reads: Vec<String>,
}

type Shared = Arc<Mutex<Accounts>>;

/// A card in an Inbox: the minute eQSL received it (YYYYMMDDHHMM) and its ADIF fields.
type Card = (String, Vec<(String, String)>);

impl FakeEqsl {
    pub fn start() -> FakeEqsl {
        let state: Shared = Arc::new(Mutex::new(Accounts {
            mode: Mode::Normal,
            passwords: HashMap::new(),
            records: HashMap::new(),
            requests: Vec::new(),
            inbox: HashMap::new(),
            files: HashMap::new(),
            reads: Vec::new(),
        }));
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let app = Router::new()
            .route("/qslcard/ImportADIF.cfm", post(import))
            .route("/qslcard/DownloadInBox.cfm", get(inbox))
            .route("/downloadedfiles/{file}", get(file))
            .with_state(state.clone());
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime for the eQSL stand-in");
            runtime.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind the eQSL stand-in");
                addr_tx
                    .send(listener.local_addr().expect("its address"))
                    .expect("the test waits for the address");
                tokio::select! {
                    _ = std::future::IntoFuture::into_future(axum::serve(listener, app)) => {}
                    _ = stopped => {}
                }
            });
        });
        let addr = addr_rx.recv().expect("the eQSL stand-in started");
        FakeEqsl {
            url: reqwest::Url::parse(&format!("http://{addr}")).expect("a URL"),
            state,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    pub fn url(&self) -> reqwest::Url {
        self.url.clone()
    }

    /// An eQSL account: its user name (a callsign) and password.
    pub fn add_account(&self, user: &str, password: &str) {
        let mut accounts = self.state.lock().unwrap();
        accounts
            .passwords
            .insert(user.to_owned(), password.to_owned());
        accounts.records.entry(user.to_owned()).or_default();
    }

    /// The calls uploaded to the account `user`, in the order they came.
    pub fn calls(&self, user: &str) -> Vec<String> {
        let accounts = self.state.lock().unwrap();
        accounts
            .records
            .get(user)
            .map(|records| {
                records
                    .iter()
                    .filter_map(|r| r.get("CALL").map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn set_mode(&self, mode: Mode) {
        self.state.lock().unwrap().mode = mode;
    }

    /// A card in the Inbox of `user`, received at `received` (YYYYMMDDHHMM), with its ADIF
    /// fields as eQSL writes them (CALL the sender, QSO_DATE, TIME_ON, BAND, MODE, …).
    pub fn add_card(&self, user: &str, received: &str, fields: &[(&str, &str)]) {
        let card = fields
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        self.state
            .lock()
            .unwrap()
            .inbox
            .entry(user.to_owned())
            .or_default()
            .push((received.to_owned(), card));
    }

    /// The `RcvdSince` of each Inbox read so far (empty when none was given).
    pub fn reads(&self) -> Vec<String> {
        self.state.lock().unwrap().reads.clone()
    }

    /// Every upload so far, whatever the mode made of it.
    pub fn requests(&self) -> Vec<Request> {
        self.state.lock().unwrap().requests.clone()
    }
}

impl Drop for FakeEqsl {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A server that uploads to `eqsl` (and to QRZ and Club Log nowhere), with a secret of its own
/// (the file lives as long as the returned directory).
pub fn server(eqsl: &FakeEqsl) -> (Server, tempfile::TempDir) {
    server_with(eqsl, Server::start_with)
}

/// [`server`] as a process of its own, for a test that reads its log.
pub fn server_process(eqsl: &FakeEqsl) -> (Server, tempfile::TempDir) {
    server_with(eqsl, Server::process_with)
}

fn server_with(eqsl: &FakeEqsl, start: fn(&[&str]) -> Server) -> (Server, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret");
    std::fs::write(&secret, "a test secret that is long enough to seal keys\n").unwrap();
    std::fs::set_permissions(&secret, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let url = eqsl.url().to_string();
    let flags = [
        "--secret-file",
        &secret.display().to_string(),
        "--eqsl-url",
        &url,
    ];
    (start(&flags), dir)
}

/// eQSL's answer: an HTML page around its lines.
fn page(status: StatusCode, lines: &[String]) -> Response {
    let body = format!(
        "<HTML>\r\n<HEAD><TITLE>eQSL.cc ImportADIF</TITLE></HEAD>\r\n<BODY>\r\n{}\r\n</BODY>\r\n</HTML>\r\n",
        lines
            .iter()
            .map(|l| format!("{l}<BR>"))
            .collect::<Vec<_>>()
            .join("\r\n")
    );
    (status, [(CONTENT_TYPE, "text/html")], body).into_response()
}

/// eQSL's warning line for a record: `Y=2013 M=08 D=11 F6ARS 15M JT65 Bad record: <reason>`.
fn warning(record: &Record, reason: &str) -> String {
    let date = record.get("QSO_DATE").unwrap_or_default();
    let (y, m, d) = if date.len() == 8 && date.is_ascii() {
        (&date[..4], &date[4..6], &date[6..])
    } else {
        ("", "", "")
    };
    let field = |name: &str| record.get(name).unwrap_or_default().to_ascii_uppercase();
    format!(
        "Warning: Y={y} M={m} D={d} {} {} {} Bad record: {reason}",
        field("CALL"),
        field("BAND"),
        field("MODE")
    )
}

async fn inbox(
    State(state): State<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let field = |name: &str| query.get(name).map(String::as_str).unwrap_or_default();
    let mut accounts = state.lock().unwrap();
    accounts.reads.push(field("RcvdSince").to_owned());
    let user = field("UserName").to_ascii_uppercase();
    if accounts.passwords.get(&user).map(String::as_str) != Some(field("Password")) {
        return page(
            StatusCode::OK,
            &["<H3>Error: No such Username/Password found</H3>".into()],
        );
    }
    let since = field("RcvdSince");
    let cards: Vec<&Vec<(String, String)>> = accounts
        .inbox
        .get(&user)
        .map(|cards| {
            cards
                .iter()
                .filter(|(received, _)| received.as_str() >= since)
                .map(|(_, card)| card)
                .collect()
        })
        .unwrap_or_default();
    if cards.is_empty() {
        return page(StatusCode::OK, &["<H3>You have no log entries</H3>".into()]);
    }
    let mut adif = String::from("Received eQSLs for the stand-in\r\n<PROGRAMID:4>eQSL<EOH>\r\n");
    for card in cards {
        for (name, value) in card {
            adif.push_str(&format!("<{name}:{}>{value}", value.len()));
        }
        adif.push_str("<EOR>\r\n");
    }
    let name = format!("{user}{}.adi", accounts.files.len());
    accounts.files.insert(name.clone(), adif);
    page(
        StatusCode::OK,
        &[
            "<H3>Your ADIF log file has been built</H3>".into(),
            format!("<A HREF=\"../downloadedfiles/{name}\">.ADI file</A>"),
        ],
    )
}

async fn file(State(state): State<Shared>, Path(name): Path<String>) -> Response {
    match state.lock().unwrap().files.get(&name) {
        Some(adif) => (StatusCode::OK, adif.clone()).into_response(),
        None => (StatusCode::NOT_FOUND, "Not Found").into_response(),
    }
}

async fn import(State(state): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let content_type = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let Some(fields) = multipart(&content_type, &body) else {
        return page(StatusCode::OK, &["Error: No ADIF file was uploaded".into()]);
    };
    let mut accounts = state.lock().unwrap();
    accounts.requests.push(fields.clone());
    match accounts.mode.clone() {
        Mode::ServerError => {
            return page(
                StatusCode::INTERNAL_SERVER_ERROR,
                &["The server is down for maintenance".into()],
            );
        }
        Mode::LoginRefused => {
            return page(
                StatusCode::OK,
                &["Error: No match on eQSL_User/eQSL_Pswd".into()],
            );
        }
        Mode::Normal | Mode::Reject(_) => {}
    }
    let field = |name: &str| fields.get(name).map(String::as_str).unwrap_or_default();
    let user = field("EQSL_USER").to_ascii_uppercase();
    if accounts.passwords.get(&user).map(String::as_str) != Some(field("EQSL_PSWD")) {
        return page(
            StatusCode::OK,
            &["Error: No match on eQSL_User/eQSL_Pswd".into()],
        );
    }
    let Ok(reader) = Reader::new(field("Filename").as_bytes()) else {
        return page(StatusCode::OK, &["Result: 0 out of 0 records added".into()]);
    };
    let records: Vec<Record> = reader.filter_map(Result::ok).collect();
    let total = records.len();
    let mut lines = Vec::new();
    let mut added = 0;
    let reject = match &accounts.mode {
        Mode::Reject(reason) => Some(reason.clone()),
        _ => None,
    };
    let log = accounts.records.entry(user).or_default();
    for record in records {
        if let Some(reason) = &reject {
            lines.push(warning(&record, reason));
            continue;
        }
        let same = |r: &Record| {
            ["CALL", "QSO_DATE", "BAND", "MODE"].iter().all(|name| {
                r.get(name).map(str::to_ascii_uppercase)
                    == record.get(name).map(str::to_ascii_uppercase)
            }) && r.get("TIME_ON").map(|t| t.get(..4)) == record.get("TIME_ON").map(|t| t.get(..4))
        };
        if log.iter().any(same) {
            lines.push(warning(&record, "Duplicate"));
            continue;
        }
        log.push(record);
        added += 1;
    }
    lines.push(format!("Result: {added} out of {total} records added"));
    page(StatusCode::OK, &lines)
}
