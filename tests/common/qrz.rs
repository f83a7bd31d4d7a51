//! A fake QRZ.com Logbook API (`POST /api`) for the tests: logbooks in memory, served by axum
//! on a free loopback port from a thread and runtime of its own, with switches that make it
//! fail the ways the real one can. It answers as QRZ does: pairs joined by `&`, a duplicate as
//! a FAIL whose reason says so, an empty FETCH as `RESULT=FAIL&COUNT=0`, FETCH's ADIF
//! HTML-entity-encoded, STATUS's book in `DATA` sent unencoded.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::Form;
use axum::Router;
use axum::extract::State;
use axum::extract::connect_info::{ConnectInfo, Connected};
use axum::http::header::{CONTENT_TYPE, USER_AGENT};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::serve::IncomingStream;
use svc::adif::{Reader, Record};

use super::Server;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// How the fake answers every request from now on.
#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    /// As QRZ does when all is well.
    Normal,
    /// `RESULT=FAIL` with this reason.
    Fail(String),
    /// `RESULT=AUTH`, as for a revoked key or a lapsed subscription.
    Auth,
    /// Reads the request and never answers.
    Stall,
    /// Answers as in `Normal`, this long after the request came.
    Slow(std::time::Duration),
    /// Reads the request and closes the connection without a reply.
    Drop,
    /// HTTP 500.
    ServerError,
}

pub struct FakeQrz {
    url: reqwest::Url,
    state: Arc<Mutex<Books>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

struct Books {
    mode: Mode,
    /// Keys whose requests are read and never answered, whatever the mode.
    stalled: std::collections::HashSet<String>,
    /// FETCH requests wait, unanswered, while this is set (an import held mid-read).
    fetches_held: bool,
    by_key: HashMap<String, Book>,
    requests: Vec<(String, String)>,
    fetches: Vec<String>,
    /// Log ids are QRZ-wide, not per book, as QRZ's are.
    next_log_id: u64,
    next_book_id: u64,
}

struct Book {
    callsign: String,
    book_id: u64,
    /// By log id; each record holds its id as `APP_QRZLOG_LOGID`, as QRZ hands them out.
    records: BTreeMap<u64, Record>,
    /// The UTC day (YYYY-MM-DD) each record last changed, which `MODSINCE` selects by.
    modified: BTreeMap<u64, String>,
}

/// Today, as QRZ dates a record's last change.
fn today() -> String {
    chrono::Utc::now().format("%Y-%m-%d").to_string()
}

type Shared = Arc<Mutex<Books>>;

impl FakeQrz {
    pub fn start() -> FakeQrz {
        let state: Shared = Arc::new(Mutex::new(Books {
            mode: Mode::Normal,
            stalled: Default::default(),
            fetches_held: false,
            by_key: HashMap::new(),
            requests: Vec::new(),
            fetches: Vec::new(),
            next_log_id: 1_300_000_001,
            next_book_id: 400_001,
        }));
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let app = Router::new()
            .route("/api", post(api))
            .with_state(state.clone());
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime for the fake QRZ");
            runtime.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind the fake QRZ");
                addr_tx
                    .send(listener.local_addr().expect("its address"))
                    .expect("the test waits for the address");
                let serve = axum::serve(
                    Connections(listener),
                    app.into_make_service_with_connect_info::<Connection>(),
                );
                tokio::select! {
                    _ = std::future::IntoFuture::into_future(serve) => {}
                    _ = stopped => {}
                }
            });
            // The runtime goes here, and with it every connection, a stalled one included.
        });
        let addr = addr_rx.recv().expect("the fake QRZ started");
        FakeQrz {
            url: reqwest::Url::parse(&format!("http://{addr}/api")).expect("a URL"),
            state,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// From now on the book of `key` reads each request and never answers (the others go on
    /// as the mode says).
    pub fn stall_book(&self, key: &str) {
        self.state.lock().unwrap().stalled.insert(key.to_owned());
    }

    /// From now on each FETCH waits, unanswered, until `release_fetches`.
    pub fn hold_fetches(&self) {
        self.state.lock().unwrap().fetches_held = true;
    }

    /// The FETCHes held wait no longer, and the next ones are answered at once.
    pub fn release_fetches(&self) {
        self.state.lock().unwrap().fetches_held = false;
    }

    pub fn url(&self) -> reqwest::Url {
        self.url.clone()
    }

    /// A new, empty book that `key` opens.
    pub fn add_book(&self, key: &str, callsign: &str) {
        let mut books = self.state.lock().unwrap();
        let book_id = books.next_book_id;
        books.next_book_id += 1;
        books.by_key.insert(
            key.to_owned(),
            Book {
                callsign: callsign.to_owned(),
                book_id,
                records: BTreeMap::new(),
                modified: BTreeMap::new(),
            },
        );
    }

    /// The book's records with their log ids, in log id order.
    pub fn records(&self, key: &str) -> Vec<(String, Record)> {
        let books = self.state.lock().unwrap();
        let book = books.by_key.get(key).expect("a book of that key");
        book.records
            .iter()
            .map(|(id, record)| (id.to_string(), record.clone()))
            .collect()
    }

    /// The other station logged the record's QSO too: QRZ marks it confirmed
    /// (`APP_QRZLOG_STATUS` `C`, `APP_QRZLOG_QSLDATE` the day, YYYYMMDD), a change of today.
    pub fn confirm(&self, key: &str, log_id: &str, day: &str) {
        let mut books = self.state.lock().unwrap();
        let book = books.by_key.get_mut(key).expect("a book of that key");
        let id: u64 = log_id.parse().expect("a log id");
        let record = book.records.get_mut(&id).expect("a record of that id");
        record.set("APP_QRZLOG_STATUS", "C".to_owned());
        record.set("APP_QRZLOG_QSLDATE", day.to_owned());
        book.modified.insert(id, today());
    }

    /// Dates the record's last change `day` (YYYY-MM-DD), as if it were made then.
    pub fn set_modified(&self, key: &str, log_id: &str, day: &str) {
        let mut books = self.state.lock().unwrap();
        let book = books.by_key.get_mut(key).expect("a book of that key");
        let id: u64 = log_id.parse().expect("a log id");
        book.modified.insert(id, day.to_owned());
    }

    /// The `OPTION` of every FETCH so far, in order.
    pub fn fetch_options(&self) -> Vec<String> {
        self.state.lock().unwrap().fetches.clone()
    }

    pub fn set_mode(&self, mode: Mode) {
        self.state.lock().unwrap().mode = mode;
    }

    /// Every request so far, as (ACTION, KEY), whatever the mode made of it.
    pub fn requests(&self) -> Vec<(String, String)> {
        self.state.lock().unwrap().requests.clone()
    }
}

/// A server that talks to `qrz`, with a secret of its own (the file lives as long as the
/// returned directory).
pub fn server(qrz: &FakeQrz, extra: &[&str]) -> (Server, tempfile::TempDir) {
    server_with(qrz, extra, Server::start_with)
}

/// [`server`] as a process of its own, for a test that reads its log.
pub fn server_process(qrz: &FakeQrz, extra: &[&str]) -> (Server, tempfile::TempDir) {
    server_with(qrz, extra, Server::process_with)
}

fn server_with(
    qrz: &FakeQrz,
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
        "--qrz-api-url".to_owned(),
        qrz.url().to_string(),
    ];
    flags.extend(extra.iter().map(|s| s.to_string()));
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    (start(&flags), dir)
}

impl Drop for FakeQrz {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn api(
    State(state): State<Shared>,
    ConnectInfo(connection): ConnectInfo<Connection>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let param = |name: &str| form.get(name).map(String::as_str).unwrap_or_default();
    let (mode, stalled) = {
        let mut books = state.lock().unwrap();
        books
            .requests
            .push((param("ACTION").to_owned(), param("KEY").to_owned()));
        (books.mode.clone(), books.stalled.contains(param("KEY")))
    };
    if stalled {
        std::future::pending::<()>().await;
    }
    match mode {
        Mode::Normal => {}
        Mode::Fail(reason) => return reply(format!("RESULT=FAIL&REASON={reason}")),
        Mode::Auth => return reply("RESULT=AUTH&REASON=invalid api key".into()),
        Mode::Stall => std::future::pending::<()>().await,
        Mode::Slow(wait) => tokio::time::sleep(wait).await,
        Mode::Drop => {
            connection.cut();
            return StatusCode::OK.into_response();
        }
        Mode::ServerError => {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                "<html><body>Internal Server Error</body></html>",
            )
                .into_response();
        }
    }
    // QRZ limits programs that do not name themselves; svc must always do so.
    let agent = headers.get(USER_AGENT).and_then(|v| v.to_str().ok());
    if agent != Some(concat!("svc/", env!("CARGO_PKG_VERSION"))) {
        return reply("RESULT=FAIL&REASON=name your program in the User-Agent".into());
    }
    // QRZ refuses a request with a parameter it does not know.
    if let Some(name) = form
        .keys()
        .find(|n| !["KEY", "ACTION", "ADIF", "OPTION", "LOGIDS"].contains(&n.as_str()))
    {
        return reply(format!("RESULT=FAIL&REASON=unknown parameter {name}"));
    }
    let answer = answer(&state, param);
    // A held FETCH has read the book as it was when it came, and answers later.
    while param("ACTION") == "FETCH" && state.lock().unwrap().fetches_held {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    reply(answer)
}

/// The body of the answer to an authenticated request of the book whose key it names.
fn answer<'a>(state: &Shared, param: impl Fn(&str) -> &'a str) -> String {
    let mut books = state.lock().unwrap();
    let books = &mut *books;
    let Some(book) = books.by_key.get_mut(param("KEY")) else {
        return "STATUS=AUTH&RESULT=AUTH&REASON=invalid api key".into();
    };
    match param("ACTION") {
        "STATUS" => format!(
            "RESULT=OK&DATA=CALLSIGN={}&BOOKID={}&COUNT={}&CONFIRMED=0&DXCC_COUNT=0&OWNER={}",
            book.callsign,
            book.book_id,
            book.records.len(),
            book.callsign
        ),
        "INSERT" => insert(
            book,
            &mut books.next_log_id,
            param("ADIF"),
            param("OPTION") == "REPLACE",
        ),
        "DELETE" => delete(book, param("LOGIDS")),
        "FETCH" => {
            books.fetches.push(param("OPTION").to_owned());
            fetch(book, param("OPTION"))
        }
        other => format!("RESULT=FAIL&REASON=unknown action {other}"),
    }
}

fn reply(body: String) -> Response {
    ([(CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response()
}

fn insert(book: &mut Book, next_log_id: &mut u64, adif: &str, replace: bool) -> String {
    let mut record = match one_record(adif) {
        Ok(record) => record,
        Err(reason) => return format!("RESULT=FAIL&REASON={reason}"),
    };
    let found = book
        .records
        .iter()
        .find(|(_, kept)| same_contact(kept, &record))
        .map(|(id, _)| *id);
    let (log_id, result) = match (found, replace) {
        (Some(_), false) => {
            return "RESULT=FAIL&REASON=Unable to add QSO to database: duplicate&EXTENDED=".into();
        }
        (Some(id), true) => (id, "REPLACE"),
        (None, _) => {
            let id = *next_log_id;
            *next_log_id += 1;
            (id, "OK")
        }
    };
    record.set("APP_QRZLOG_LOGID", log_id.to_string());
    book.records.insert(log_id, record);
    book.modified.insert(log_id, today());
    format!("RESULT={result}&LOGID={log_id}&COUNT=1")
}

fn one_record(adif: &str) -> Result<Record, String> {
    let mut reader = Reader::new(adif.as_bytes()).map_err(|e| e.to_string())?;
    let record = reader
        .next()
        .ok_or("no QSO in ADIF")?
        .map_err(|e| e.to_string())?;
    if reader.next().is_some() {
        return Err("one QSO at a time".into());
    }
    if record.get("CALL").is_none() {
        return Err("missing call".into());
    }
    Ok(record)
}

/// QRZ's duplicate rule: the same station, date, minute, band and mode.
fn same_contact(a: &Record, b: &Record) -> bool {
    let minute = |r: &Record| {
        r.get("TIME_ON")
            .map(|t| t.chars().take(4).collect::<String>())
    };
    let upper = |r: &Record, name: &str| r.get(name).map(str::to_ascii_uppercase);
    ["CALL", "QSO_DATE", "BAND", "MODE"]
        .iter()
        .all(|name| upper(a, name) == upper(b, name))
        && minute(a) == minute(b)
}

fn delete(book: &mut Book, log_ids: &str) -> String {
    let mut gone = 0;
    let mut missing = Vec::new();
    for id in log_ids.split(',') {
        let removed = id
            .trim()
            .parse::<u64>()
            .ok()
            .and_then(|n| book.records.remove(&n));
        match removed {
            Some(_) => gone += 1,
            None => missing.push(id),
        }
    }
    match (gone, missing.is_empty()) {
        (_, true) => format!("RESULT=OK&COUNT={gone}"),
        (0, false) => "RESULT=FAIL&COUNT=0&REASON=no matching records".into(),
        _ => format!("RESULT=PARTIAL&COUNT={gone}&LOGIDS={}", missing.join(",")),
    }
}

/// FETCH with `MAX:n,AFTERLOGID:n,MODSINCE:YYYY-MM-DD,TYPE:ADIF`: the records whose log id is at
/// least AFTERLOGID, as the guide describes it, changed on or after MODSINCE's day, at most
/// MAX of them; COUNT is all that match.
fn fetch(book: &Book, option: &str) -> String {
    let mut max = usize::MAX;
    let mut after = 0;
    let mut since: Option<String> = None;
    for part in option.split(',') {
        match part.split_once(':') {
            Some(("MAX", n)) => match n.parse() {
                Ok(n) => max = n,
                Err(_) => return format!("RESULT=FAIL&REASON=bad MAX {n}"),
            },
            Some(("AFTERLOGID", n)) => match n.parse() {
                Ok(n) => after = n,
                Err(_) => return format!("RESULT=FAIL&REASON=bad AFTERLOGID {n}"),
            },
            Some(("MODSINCE", day))
                if day.len() == 10
                    && chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").is_ok() =>
            {
                since = Some(day.to_owned())
            }
            Some(("TYPE", "ADIF")) => {}
            _ => return format!("RESULT=FAIL&REASON=unsupported option {part}"),
        }
    }
    let matching: Vec<(&u64, &Record)> = book
        .records
        .range(after..)
        .filter(|(id, _)| match &since {
            Some(day) => book.modified.get(id).is_some_and(|changed| changed >= day),
            None => true,
        })
        .collect();
    if matching.is_empty() {
        return "RESULT=FAIL&COUNT=0".into();
    }
    let page = &matching[..max.min(matching.len())];
    let log_ids: Vec<String> = page.iter().map(|(id, _)| id.to_string()).collect();
    let adif: String = page.iter().map(|(_, record)| adi(record)).collect();
    format!(
        "RESULT=OK&COUNT={}&LOGIDS={}&ADIF={}",
        matching.len(),
        log_ids.join(","),
        entities(&adif)
    )
}

/// One record as QRZ writes it: lower-case tags, lengths in bytes.
fn adi(record: &Record) -> String {
    let mut out = String::new();
    for (name, value) in &record.fields {
        out.push_str(&format!(
            "<{}:{}>{value}",
            name.to_ascii_lowercase(),
            value.len()
        ));
    }
    out.push_str("<eor>\n");
    out
}

fn entities(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// A listener whose connections a handler can cut, so that a request can go unanswered
/// with its connection closed, as when QRZ's side drops it.
struct Connections(TcpListener);

/// The switch of one connection, handed to the handler as its connect info.
#[derive(Debug, Clone, Default)]
struct Connection(Arc<AtomicBool>);

impl Connection {
    fn cut(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

impl axum::serve::Listener for Connections {
    type Io = Cuttable;
    type Addr = Connection;

    async fn accept(&mut self) -> (Cuttable, Connection) {
        loop {
            if let Ok((stream, _)) = self.0.accept().await {
                let connection = Connection::default();
                let io = Cuttable {
                    stream,
                    cut: connection.0.clone(),
                };
                return (io, connection);
            }
        }
    }

    fn local_addr(&self) -> io::Result<Connection> {
        Ok(Connection::default())
    }
}

impl Connected<IncomingStream<'_, Connections>> for Connection {
    fn connect_info(stream: IncomingStream<'_, Connections>) -> Self {
        stream.remote_addr().clone()
    }
}

/// A TCP stream that fails every read and write once cut, which makes the server drop it.
struct Cuttable {
    stream: TcpStream,
    cut: Arc<AtomicBool>,
}

impl Cuttable {
    fn check(&self) -> io::Result<()> {
        if self.cut.load(Ordering::SeqCst) {
            Err(io::ErrorKind::ConnectionAborted.into())
        } else {
            Ok(())
        }
    }
}

impl AsyncRead for Cuttable {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.check()?;
        Pin::new(&mut this.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Cuttable {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.check()?;
        Pin::new(&mut this.stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}
