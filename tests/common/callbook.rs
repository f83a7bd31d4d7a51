//! A stand-in for the two callbooks' XML services, for the lookup tests: QRZ's at
//! `/xml/current/` and HamQTH's at `/xml.php`, served by axum on a free loopback port from a
//! thread and runtime of its own. It answers as the real ones do (QRZ's XML interface spec,
//! HamQTH's XML interface): sessions from a login, records of a few known calls, each error
//! in the words the services use, a partial record with a message for a QRZ account without
//! a subscription; and switches that make sessions expire and the service stall.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::served::Served;

/// A callbook as the stand-in serves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Book {
    Qrz,
    Hamqth,
}

/// One request as the stand-in saw it: which callbook, and its query's pairs.
#[derive(Debug, Clone)]
pub struct Seen {
    pub book: Book,
    pub params: HashMap<String, String>,
}

pub struct FakeCallbook {
    base: String,
    state: Arc<Mutex<Books>>,
    _served: Served,
}

#[derive(Default)]
struct Books {
    /// User name → (password, has an XML subscription).
    users: HashMap<String, (String, bool)>,
    sessions: HashMap<String, Session>,
    /// How many lookups a session answers before it expires (unlimited when `None`).
    session_lookups: Option<usize>,
    /// The next session given out has expired by its first lookup.
    expire_next: bool,
    stall: bool,
    seen: Vec<Seen>,
    issued: u64,
}

struct Session {
    user: String,
    lookups: usize,
    expired: bool,
}

type Shared = Arc<Mutex<Books>>;

/// A station the stand-in knows, with the fields both callbooks give.
struct Station {
    call: &'static str,
    fname: &'static str,
    name: &'static str,
    nick: &'static str,
    city: &'static str,
    state: &'static str,
    country: &'static str,
    grid: &'static str,
    dxcc: u16,
    cq: u8,
    itu: u8,
    continent: &'static str,
}

const STATIONS: [Station; 2] = [
    Station {
        call: "W1AW",
        fname: "Hiram Percy",
        name: "Maxim",
        nick: "Hiram",
        city: "Newington",
        state: "CT",
        country: "United States",
        grid: "FN31pr",
        dxcc: 291,
        cq: 5,
        itu: 8,
        continent: "NA",
    },
    Station {
        call: "OK1VBR",
        fname: "Petr",
        name: "Hlozek",
        nick: "Petr",
        city: "Neratovice",
        state: "",
        country: "Czech Republic",
        grid: "jo70gg",
        dxcc: 503,
        cq: 15,
        itu: 28,
        continent: "EU",
    },
];

impl FakeCallbook {
    pub fn start() -> FakeCallbook {
        let state: Shared = Arc::default();
        let app = Router::new()
            .route("/xml/current/", get(qrz))
            .route("/xml.php", get(hamqth))
            .with_state(state.clone());
        let served = Served::start(app, "the fake callbook");
        FakeCallbook {
            base: format!("http://{}", served.addr),
            state,
            _served: served,
        }
    }

    pub fn qrz_url(&self) -> String {
        format!("{}/xml/current/", self.base)
    }

    pub fn hamqth_url(&self) -> String {
        format!("{}/xml.php", self.base)
    }

    /// An account both callbooks know; `subscriber`: QRZ gives it whole records.
    pub fn add_user(&self, user: &str, password: &str, subscriber: bool) {
        self.state
            .lock()
            .unwrap()
            .users
            .insert(user.to_owned(), (password.to_owned(), subscriber));
    }

    /// From now on each session answers `lookups` lookups, then says it expired.
    pub fn expire_sessions_after(&self, lookups: usize) {
        self.state.lock().unwrap().session_lookups = Some(lookups);
    }

    /// The next session given out says it expired at its first lookup.
    pub fn expire_next_session(&self) {
        self.state.lock().unwrap().expire_next = true;
    }

    /// From now on every request is read and never answered.
    pub fn stall(&self) {
        self.state.lock().unwrap().stall = true;
    }

    /// Every request so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }

    /// How many logins `book` was asked for.
    pub fn logins(&self, book: Book) -> usize {
        let login = match book {
            Book::Qrz => "username",
            Book::Hamqth => "u",
        };
        self.seen()
            .iter()
            .filter(|s| s.book == book && s.params.contains_key(login))
            .count()
    }
}

/// A query's pairs: QRZ takes `;` between them as well as `&`.
fn params(query: Option<String>) -> HashMap<String, String> {
    let query = query.unwrap_or_default().replace(';', "&");
    form_urlencoded::parse(query.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn xml(body: String) -> Response {
    ([(CONTENT_TYPE, "text/xml; charset=utf-8")], body).into_response()
}

/// Logs in: the session's key, or `None` for a wrong user name or password.
fn login(books: &mut Books, user: &str, password: &str) -> Option<(String, bool)> {
    let (known, subscriber) = books.users.get(user)?.clone();
    if known != password {
        return None;
    }
    books.issued += 1;
    let key = format!("{:040x}", books.issued * 0x9e37_79b9);
    let expired = std::mem::take(&mut books.expire_next);
    books.sessions.insert(
        key.clone(),
        Session {
            user: user.to_owned(),
            lookups: 0,
            expired,
        },
    );
    Some((key, subscriber))
}

/// What a lookup with session `key` finds: the user's subscription and the station, or the
/// reason it finds nothing.
enum Asked {
    Station(bool, &'static Station),
    NoSession,
    NotFound,
}

fn find(books: &mut Books, key: &str, call: &str) -> Asked {
    let limit = books.session_lookups;
    let Some(session) = books.sessions.get_mut(key) else {
        return Asked::NoSession;
    };
    if session.expired || limit.is_some_and(|n| session.lookups >= n) {
        session.expired = true;
        return Asked::NoSession;
    }
    session.lookups += 1;
    let subscriber = books
        .users
        .get(&session.user)
        .is_some_and(|(_, subscriber)| *subscriber);
    match STATIONS.iter().find(|s| s.call.eq_ignore_ascii_case(call)) {
        Some(station) => Asked::Station(subscriber, station),
        None => Asked::NotFound,
    }
}

/// Takes the request down; whether the service is to stall.
fn note(state: &Shared, book: Book, params: &HashMap<String, String>) -> bool {
    let mut books = state.lock().unwrap();
    books.seen.push(Seen {
        book,
        params: params.clone(),
    });
    books.stall
}

const GMTIME: &str = "<GMTime>Sun Nov 22 14:05:00 2026</GMTime>";

fn qrz_session(inner: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="utf-8" ?>
<QRZDatabase version="1.34" xmlns="http://xmldata.qrz.com">
<Session>
{inner}
{GMTIME}
</Session>
</QRZDatabase>
"#
    )
}

async fn qrz(State(state): State<Shared>, RawQuery(query): RawQuery) -> Response {
    let params = params(query);
    if note(&state, Book::Qrz, &params) {
        std::future::pending::<()>().await;
    }
    let param = |name: &str| params.get(name).map(String::as_str).unwrap_or_default();
    let mut books = state.lock().unwrap();
    if params.contains_key("username") {
        return xml(
            match login(&mut books, param("username"), param("password")) {
                Some((key, subscriber)) => qrz_session(&format!(
                    "<Key>{key}</Key>\n<Count>12</Count>\n<SubExp>{}</SubExp>",
                    if subscriber {
                        "Wed Jan 13 13:59:00 2027"
                    } else {
                        "non-subscriber"
                    }
                )),
                None => qrz_session("<Error>Username/password incorrect </Error>"),
            },
        );
    }
    let call = param("callsign").to_ascii_uppercase();
    xml(match find(&mut books, param("s"), &call) {
        Asked::NoSession if books.sessions.contains_key(param("s")) => {
            qrz_session("<Error>Session Timeout</Error>")
        }
        Asked::NoSession => qrz_session("<Error>Invalid session key</Error>"),
        Asked::NotFound => qrz_session(&format!(
            "<Error>Not found: {call}</Error>\n<Key>{}</Key>",
            param("s")
        )),
        Asked::Station(true, s) => format!(
            r#"<?xml version="1.0" encoding="utf-8" ?>
<QRZDatabase version="1.34" xmlns="http://xmldata.qrz.com">
<Callsign>
<call>{}</call>
<aliases>{}/P</aliases>
<dxcc>{}</dxcc>
<fname>{}</fname>
<name>{}</name>
<addr1>225 Main St</addr1>
<addr2>{}</addr2>
<state>{}</state>
<country>{}</country>
<lat>41.714775</lat>
<lon>-72.727260</lon>
<grid>{}</grid>
<land>{}</land>
<cqzone>{}</cqzone>
<ituzone>{}</ituzone>
<email>station@example.org</email>
</Callsign>
<Session>
<Key>{}</Key>
<Count>13</Count>
<SubExp>Wed Jan 13 13:59:00 2027</SubExp>
{GMTIME}
</Session>
</QRZDatabase>
"#,
            s.call,
            s.call,
            s.dxcc,
            s.fname,
            s.name,
            s.city,
            s.state,
            s.country,
            s.grid,
            s.country,
            s.cq,
            s.itu,
            param("s")
        ),
        // Without a subscription QRZ gives the name, city and country only, and says so.
        Asked::Station(false, s) => format!(
            r#"<?xml version="1.0" encoding="utf-8" ?>
<QRZDatabase version="1.34" xmlns="http://xmldata.qrz.com">
<Callsign>
<call>{}</call>
<fname>{}</fname>
<name>{}</name>
<addr2>{}</addr2>
<country>{}</country>
</Callsign>
<Session>
<Key>{}</Key>
<Count>13</Count>
<SubExp>non-subscriber</SubExp>
<Message>A subscription is required to access the complete record.</Message>
{GMTIME}
</Session>
</QRZDatabase>
"#,
            s.call,
            s.fname,
            s.name,
            s.city,
            s.country,
            param("s")
        ),
    })
}

fn hamqth_session(inner: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<HamQTH version="2.8" xmlns="https://www.hamqth.com">
<session>
{inner}
</session>
</HamQTH>
"#
    )
}

async fn hamqth(State(state): State<Shared>, RawQuery(query): RawQuery) -> Response {
    let params = params(query);
    if note(&state, Book::Hamqth, &params) {
        std::future::pending::<()>().await;
    }
    let param = |name: &str| params.get(name).map(String::as_str).unwrap_or_default();
    let mut books = state.lock().unwrap();
    if params.contains_key("u") {
        return xml(match login(&mut books, param("u"), param("p")) {
            Some((key, _)) => hamqth_session(&format!("<session_id>{key}</session_id>")),
            None => hamqth_session("<error>Wrong user name or password</error>"),
        });
    }
    xml(match find(&mut books, param("id"), param("callsign")) {
        Asked::NoSession => hamqth_session("<error>Session does not exist or expired</error>"),
        Asked::NotFound => hamqth_session("<error>Callsign not found</error>"),
        Asked::Station(_, s) => format!(
            r#"<?xml version="1.0"?>
<HamQTH version="2.8" xmlns="https://www.hamqth.com">
<search>
<callsign>{}</callsign>
<nick>{}</nick>
<qth>{}</qth>
<country>{}</country>
<adif>{}</adif>
<itu>{}</itu>
<cq>{}</cq>
<grid>{}</grid>
<adr_name>{} {}</adr_name>
<adr_city>{}</adr_city>
<us_state>{}</us_state>
<continent>{}</continent>
</search>
</HamQTH>
"#,
            s.call.to_ascii_lowercase(),
            s.nick,
            s.city,
            s.country,
            s.dxcc,
            s.itu,
            s.cq,
            s.grid.to_ascii_lowercase(),
            s.fname,
            s.name,
            s.city,
            s.state,
            s.continent
        ),
    })
}
