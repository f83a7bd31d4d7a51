//! Callbook lookups: who a station is (name, QTH, state, grid, country, zones), asked of QRZ's
//! XML service or HamQTH as the call is typed, as other loggers fill them. One callbook is
//! connected at a time (`credentials.rs`); answers are kept in the account's journal
//! (`journal/lookups.rs`, which also looks calls up through it), so a call looked up once is
//! known with no link.
//!
//! A lookup never hangs its caller: the whole of it (a login, the lookup, a login again when
//! the session expired, the lookup again) has [`BUDGET`]. A refused password is never sent
//! again, and it never shows in an error: every message is stripped of it.

mod credentials;
mod hamqth;
mod qrz;
mod xml;

use std::time::Duration;

use reqwest::Url;
use serde::{Deserialize, Serialize};

pub use credentials::{Connected, Forgotten, Place, connected, forget, store};

use svc_model::Timestamp;
use svc_model::callsign::normalize_callsign;

/// Where QRZ's XML service answers.
pub const DEFAULT_QRZ_XML_URL: &str = "https://xmldata.qrz.com/xml/current/";
/// Where HamQTH's XML service answers.
pub const DEFAULT_HAMQTH_URL: &str = "https://www.hamqth.com/xml.php";
/// The longest a lookup (or a login) takes before it gives up: a logger asks while the
/// operator types, and a dead link must not hold the form.
pub const BUDGET: Duration = Duration::from_secs(5);
/// The most of an answer read: a record is a few kB, so more is not a callbook's answer.
const MAX_ANSWER: usize = 256 * 1024;
/// The longest text kept from a field: a name or QTH is a line.
const MAX_TEXT: usize = 100;

/// The callbooks svc can ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Service {
    Qrz,
    Hamqth,
}

impl Service {
    pub const ALL: [Service; 2] = [Service::Qrz, Service::Hamqth];

    /// The name in commands, the config file and `source`: `qrz`, `hamqth`.
    pub fn as_str(self) -> &'static str {
        match self {
            Service::Qrz => "qrz",
            Service::Hamqth => "hamqth",
        }
    }

    pub fn parse(text: &str) -> Option<Service> {
        Self::ALL.into_iter().find(|s| s.as_str() == text.trim())
    }

    /// The name for people: `QRZ`, `HamQTH`.
    pub fn title(self) -> &'static str {
        match self {
            Service::Qrz => "QRZ",
            Service::Hamqth => "HamQTH",
        }
    }
}

/// Where each callbook answers: the real services unless flags or the environment say
/// otherwise.
#[derive(Debug, Clone, PartialEq)]
pub struct Urls {
    pub qrz: Url,
    pub hamqth: Url,
}

impl Urls {
    pub fn of(&self, service: Service) -> &Url {
        match service {
            Service::Qrz => &self.qrz,
            Service::Hamqth => &self.hamqth,
        }
    }
}

impl Default for Urls {
    fn default() -> Self {
        Urls {
            qrz: Url::parse(DEFAULT_QRZ_XML_URL).expect("a valid default URL"),
            hamqth: Url::parse(DEFAULT_HAMQTH_URL).expect("a valid default URL"),
        }
    }
}

/// Checks a callbook address given by the user. The password travels in its query, so
/// plain `http://` is taken only to this machine (a test's stand-in), never across a network.
pub fn parse_url(text: &str) -> Result<Url, String> {
    let url = Url::parse(text.trim()).map_err(|e| {
        format!("{text:?} is not a URL ({e}); give one such as {DEFAULT_QRZ_XML_URL}")
    })?;
    let host = url.host_str().unwrap_or_default();
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    match url.scheme() {
        "https" if !host.is_empty() => Ok(url),
        "http" if loopback => Ok(url),
        "http" => Err(format!(
            "{text:?} is plain http:// to another machine, which would send the callbook password unencrypted; give an https:// address"
        )),
        _ => Err(format!(
            "{text:?} is not an https:// URL; give one such as {DEFAULT_QRZ_XML_URL}"
        )),
    }
}

/// What a callbook says of a station. Fields the callbook left out (or sent in a shape a
/// logbook field would refuse, such as a malformed grid) are `None`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lookup {
    /// The call looked up, in upper case.
    pub callsign: String,
    pub name: Option<String>,
    pub qth: Option<String>,
    pub state: Option<String>,
    /// The Maidenhead locator, `FN31pr`.
    pub grid: Option<String>,
    /// The DXCC entity's name.
    pub country: Option<String>,
    /// The DXCC entity's number, as ADIF's `DXCC`.
    pub dxcc: Option<u16>,
    pub cq_zone: Option<u8>,
    pub itu_zone: Option<u8>,
    /// `AF`, `AN`, `AS`, `EU`, `NA`, `OC`, `SA` (HamQTH only: QRZ's record has none).
    pub continent: Option<String>,
    pub source: Service,
    pub fetched_at: Timestamp,
    /// What the callbook said beside the record, e.g. that a subscription is needed for the
    /// whole of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Lookup {
    /// How long ago the callbook gave this answer (zero for a clock set back).
    pub fn age(&self) -> Duration {
        let ms = Timestamp::now()
            .millis()
            .saturating_sub(self.fetched_at.millis());
        Duration::from_millis(u64::try_from(ms).unwrap_or(0))
    }
}

/// A record's fields as the callbook wrote them, before they are checked.
#[derive(Debug, Default, PartialEq)]
struct Record {
    name: Option<String>,
    qth: Option<String>,
    state: Option<String>,
    country: Option<String>,
    grid: Option<String>,
    dxcc: Option<String>,
    cq_zone: Option<String>,
    itu_zone: Option<String>,
    continent: Option<String>,
    note: Option<String>,
}

impl Record {
    fn into_lookup(self, callsign: &str, source: Service) -> Lookup {
        let number = |text: Option<String>, max: u16| {
            text.and_then(|t| t.trim().parse::<u16>().ok())
                .filter(|n| (1..=max).contains(n))
        };
        let zone = |text, max| number(text, max).and_then(|n| u8::try_from(n).ok());
        Lookup {
            callsign: callsign.to_owned(),
            name: line(self.name),
            qth: line(self.qth),
            state: line(self.state),
            grid: self.grid.as_deref().and_then(grid),
            country: line(self.country),
            dxcc: number(self.dxcc, 999),
            cq_zone: zone(self.cq_zone, 40),
            itu_zone: zone(self.itu_zone, 90),
            continent: self
                .continent
                .map(|c| c.trim().to_ascii_uppercase())
                .filter(|c| ["AF", "AN", "AS", "EU", "NA", "OC", "SA"].contains(&c.as_str())),
            source,
            fetched_at: Timestamp::now(),
            note: line(self.note),
        }
    }
}

/// A field as one line of printable text of at most [`MAX_TEXT`] characters, as a logbook's
/// name and QTH take it; `None` when nothing is left.
fn line(text: Option<String>) -> Option<String> {
    let text = text?;
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect();
    let joined: String = words.join(" ").chars().take(MAX_TEXT).collect();
    (!joined.is_empty()).then_some(joined)
}

/// A Maidenhead locator of 2 to 8 characters, written as `FN31pr`; anything else is dropped
/// rather than passed on to a contact, whose grid field would refuse it.
fn grid(text: &str) -> Option<String> {
    let text = text.trim();
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(2) || !(2..=8).contains(&bytes.len()) {
        return None;
    }
    let mut out = String::with_capacity(bytes.len());
    for (i, pair) in bytes.chunks(2).enumerate() {
        let ok = |b: u8| match i {
            0 => (b'A'..=b'R').contains(&b.to_ascii_uppercase()),
            2 => (b'A'..=b'X').contains(&b.to_ascii_uppercase()),
            _ => b.is_ascii_digit(),
        };
        if !pair.iter().all(|&b| ok(b)) {
            return None;
        }
        for &b in pair {
            out.push(if i == 2 {
                b.to_ascii_lowercase()
            } else {
                b.to_ascii_uppercase()
            } as char);
        }
    }
    Some(out)
}

/// A login: the session key and what the callbook said of the account.
#[derive(Debug, Clone, PartialEq)]
struct Session {
    key: String,
    note: Option<String>,
}

/// What a lookup with a session found.
#[derive(Debug, PartialEq)]
enum Reply {
    Found(Box<Record>),
    /// The session ended: log in again.
    Expired,
}

/// Why a lookup or login failed, by what the caller should do about it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LookupError {
    /// No callbook is connected (or its password is gone): `svc lookup connect`.
    #[error("{0}")]
    NotConnected(String),
    /// What was typed is not a callsign.
    #[error("{0}")]
    Invalid(String),
    /// The callbook has no record of the call.
    #[error("{0}")]
    NotFound(String),
    /// The callbook refused the user name or password. It is not tried again.
    #[error("{0}")]
    Refused(String),
    /// The callbook refused the request for another reason it gave (an account suspended,
    /// a daily limit).
    #[error("{0}")]
    Service(String),
    /// No usable answer: no connection, no answer within the budget, an HTTP error, or an
    /// answer that is not the callbook's XML (a captive portal's page). A cached answer
    /// may stand in.
    #[error("{0}")]
    Unavailable(String),
    /// The key store or the config file could not be read or written.
    #[error("{0}")]
    Store(String),
}

impl LookupError {
    /// The same error with `secret` (and its URL-encoded form) blotted out of its text: a
    /// service may quote what it was sent.
    fn redact(self, secret: &str) -> LookupError {
        if secret.is_empty() {
            return self;
        }
        let hide = hider(secret);
        match self {
            LookupError::NotConnected(m) => LookupError::NotConnected(hide(m)),
            LookupError::Invalid(m) => LookupError::Invalid(hide(m)),
            LookupError::NotFound(m) => LookupError::NotFound(hide(m)),
            LookupError::Refused(m) => LookupError::Refused(hide(m)),
            LookupError::Service(m) => LookupError::Service(hide(m)),
            LookupError::Unavailable(m) => LookupError::Unavailable(hide(m)),
            LookupError::Store(m) => LookupError::Store(hide(m)),
        }
    }
}

/// What blots `secret` (and its URL-encoded form) out of a text: a service may quote what it
/// was sent, the URL of a failed request included.
pub(crate) fn hider(secret: &str) -> impl Fn(String) -> String {
    let secret = secret.to_owned();
    let encoded: String = form_urlencoded::byte_serialize(secret.as_bytes()).collect();
    // A form writes a space as `+`, a URL's path or another encoder as `%20`.
    let percent = encoded.replace('+', "%20");
    move |text: String| {
        text.replace(&secret, "***")
            .replace(&encoded, "***")
            .replace(&percent, "***")
    }
}

/// A callbook password: kept out of `Debug` output, so no log or panic message shows it.
#[derive(Clone, PartialEq)]
pub struct Password(String);

impl Password {
    pub fn new(text: impl Into<String>) -> Password {
        Password(text.into())
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(***)")
    }
}

/// A connected callbook: its address, the user's login, and the session of the last login,
/// kept for the next lookups until the callbook says it expired. Share one (an `Arc`) among
/// the lookups of a session, so they log in once.
pub struct Callbook {
    service: Service,
    url: Url,
    user: String,
    password: Password,
    http: reqwest::Client,
    budget: Duration,
    session: tokio::sync::Mutex<Option<String>>,
}

impl std::fmt::Debug for Callbook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Callbook")
            .field("service", &self.service)
            .field("url", &self.url.as_str())
            .field("user", &self.user)
            .finish_non_exhaustive()
    }
}

/// What went wrong on the wire, in words: reqwest's own Display says only "error sending
/// request", and the cause that tells what happened is the innermost one (which, unlike the
/// outer ones, never holds the URL and the password in its query).
fn cause(e: &reqwest::Error) -> String {
    let mut innermost: &dyn std::error::Error = e;
    while let Some(source) = innermost.source() {
        innermost = source;
    }
    innermost.to_string()
}

impl Callbook {
    pub fn new(
        service: Service,
        url: Url,
        user: &str,
        password: Password,
    ) -> Result<Callbook, LookupError> {
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!("svc/", env!("CARGO_PKG_VERSION")))
            // A redirect means the address is wrong: report it rather than send the
            // password on to wherever it points.
            .redirect(reqwest::redirect::Policy::none());
        if url.scheme() == "http" {
            // Only a test's stand-in speaks plain HTTP; skip loading the system's CA store.
            builder = builder.tls_certs_only([]);
        }
        let http = builder
            .build()
            .map_err(|e| LookupError::Unavailable(format!("cannot set up HTTP: {}", cause(&e))))?;
        Ok(Callbook {
            service,
            url,
            user: user.trim().to_owned(),
            password,
            http,
            budget: BUDGET,
            session: tokio::sync::Mutex::new(None),
        })
    }

    /// The connected callbook, at its address in `urls`; `NotConnected` when there is none.
    pub fn configured(urls: &Urls) -> Result<Callbook, LookupError> {
        let found = credentials::connected()?.ok_or_else(|| {
            LookupError::NotConnected(
                "no callbook is connected: run svc lookup connect qrz|hamqth --user NAME --password-stdin".into(),
            )
        })?;
        let password = credentials::password(&found)?;
        Callbook::new(
            found.service,
            urls.of(found.service).clone(),
            &found.user,
            password,
        )
    }

    /// The same callbook with another time limit for each lookup (or login), all of it.
    pub fn with_budget(mut self, budget: Duration) -> Callbook {
        self.budget = budget;
        self
    }

    pub fn service(&self) -> Service {
        self.service
    }

    pub fn user(&self) -> &str {
        &self.user
    }

    /// Logs in, which checks the user name and password; the session is kept for lookups.
    /// Gives what the callbook said of the account (QRZ: the subscription).
    pub async fn login(&self) -> Result<Option<String>, LookupError> {
        let work = async {
            let session = self.new_session().await?;
            *self.session.lock().await = Some(session.key);
            Ok(session.note)
        };
        self.within(work).await
    }

    /// Looks `callsign` up. A session the callbook says expired is replaced by one new login
    /// and the lookup made again, once.
    pub async fn lookup(&self, callsign: &str) -> Result<Lookup, LookupError> {
        let call = normalize_callsign("callsign", callsign)
            .map_err(|e| LookupError::Invalid(e.message))?;
        let work = async {
            for _ in 0..2 {
                let known = self.session.lock().await.clone();
                let key = match known {
                    Some(key) => key,
                    None => {
                        let key = self.new_session().await?.key;
                        *self.session.lock().await = Some(key.clone());
                        key
                    }
                };
                let text = match self.service {
                    Service::Qrz => self.get(&qrz::lookup_query(&key, &call)).await?,
                    Service::Hamqth => self.get(&hamqth::lookup_query(&key, &call)).await?,
                };
                let reply = match self.service {
                    Service::Qrz => qrz::read_lookup(&text)?,
                    Service::Hamqth => hamqth::read_lookup(&text)?,
                };
                match reply {
                    Reply::Found(record) => return Ok(record.into_lookup(&call, self.service)),
                    Reply::Expired => *self.session.lock().await = None,
                }
            }
            Err(LookupError::Service(format!(
                "{} said the session expired again right after a new login; try again later",
                self.service.title()
            )))
        };
        self.within(work).await
    }

    /// Runs `work` within the budget, its error stripped of the password.
    async fn within<T>(
        &self,
        work: impl Future<Output = Result<T, LookupError>>,
    ) -> Result<T, LookupError> {
        let outcome = tokio::time::timeout(self.budget, work)
            .await
            .unwrap_or_else(|_| {
                Err(LookupError::Unavailable(format!(
                    "no answer from {} within {} s",
                    self.service.title(),
                    self.budget.as_secs_f32()
                )))
            });
        outcome.map_err(|e| e.redact(self.password.expose()))
    }

    async fn new_session(&self) -> Result<Session, LookupError> {
        let (user, password) = (self.user.as_str(), self.password.expose());
        match self.service {
            Service::Qrz => qrz::read_login(&self.get(&qrz::login_query(user, password)).await?),
            Service::Hamqth => {
                hamqth::read_login(&self.get(&hamqth::login_query(user, password)).await?)
            }
        }
    }

    /// One GET with `query` added to the callbook's address; the answer's text.
    async fn get(&self, query: &[(&str, &str)]) -> Result<String, LookupError> {
        let name = self.service.title();
        let mut response = self
            .http
            .get(self.url.clone())
            .query(query)
            .send()
            .await
            .map_err(|e| {
                LookupError::Unavailable(format!("{name} cannot be reached: {}", cause(&e)))
            })?;
        let status = response.status();
        if !status.is_success() {
            return Err(LookupError::Unavailable(format!(
                "{name} answered HTTP {status}; check its address (--{}-url)",
                match self.service {
                    Service::Qrz => "qrz-xml",
                    Service::Hamqth => "hamqth",
                }
            )));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| {
            LookupError::Unavailable(format!("{name}'s answer broke off: {}", cause(&e)))
        })? {
            if body.len() + chunk.len() > MAX_ANSWER {
                return Err(LookupError::Unavailable(format!(
                    "{name}'s answer is larger than {} kB, which no record is",
                    MAX_ANSWER / 1024
                )));
            }
            body.extend_from_slice(&chunk);
        }
        // Both declare UTF-8; a Latin-1 answer from an older server is read as such rather
        // than refused.
        Ok(match String::from_utf8(body) {
            Ok(text) => text,
            Err(e) => encoding_rs::WINDOWS_1252
                .decode(e.as_bytes())
                .0
                .into_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_cleaned_as_a_logbook_takes_them() {
        let record = Record {
            name: Some("  Hiram\n\tPercy   Maxim\u{7} ".into()),
            qth: Some("x".repeat(300)),
            state: Some("   ".into()),
            country: None,
            grid: Some("fn31PR".into()),
            dxcc: Some("291".into()),
            cq_zone: Some("5".into()),
            itu_zone: Some("91".into()),
            continent: Some("na".into()),
            note: None,
        };
        let l = record.into_lookup("W1AW", Service::Qrz);
        assert_eq!(l.name.as_deref(), Some("Hiram Percy Maxim"));
        assert_eq!(l.qth.as_ref().map(String::len), Some(MAX_TEXT));
        assert_eq!(l.state, None);
        assert_eq!(l.grid.as_deref(), Some("FN31pr"));
        assert_eq!(l.dxcc, Some(291));
        assert_eq!(l.cq_zone, Some(5));
        assert_eq!(l.itu_zone, None, "ITU zones end at 90");
        assert_eq!(l.continent.as_deref(), Some("NA"));
        assert!(l.age() < Duration::from_secs(60));
    }

    #[test]
    fn only_real_locators_are_kept() {
        for (text, want) in [
            ("FN31pr", Some("FN31pr")),
            ("jo70gg", Some("JO70gg")),
            ("FN31", Some("FN31")),
            ("FN", Some("FN")),
            ("FN31pr12", Some("FN31pr12")),
            ("ZZ99", None),
            ("FN3", None),
            ("FN31py", None),
            ("", None),
            ("FN31pr12xx", None),
        ] {
            assert_eq!(grid(text).as_deref(), want, "{text}");
        }
    }

    #[test]
    fn the_json_shape_is_camel_case_with_every_field() {
        let l = Record::default().into_lookup("W1AW", Service::Hamqth);
        let v = serde_json::to_value(&l).unwrap();
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "callsign",
                "continent",
                "country",
                "cqZone",
                "dxcc",
                "fetchedAt",
                "grid",
                "ituZone",
                "name",
                "qth",
                "source",
                "state"
            ]
        );
        assert_eq!(v["source"], "hamqth");
        let back: Lookup = serde_json::from_value(v).unwrap();
        assert_eq!(back, l);
    }

    #[test]
    fn only_https_or_this_machine_is_taken() {
        assert!(parse_url(DEFAULT_QRZ_XML_URL).is_ok());
        assert!(parse_url("http://127.0.0.1:8080/xml/current/").is_ok());
        assert!(parse_url("http://localhost/xml.php").is_ok());
        assert!(parse_url("http://[::1]:9/").is_ok());
        let e = parse_url("http://xmldata.qrz.com/xml/current/").unwrap_err();
        assert!(e.contains("unencrypted"), "{e}");
        assert!(parse_url("ftp://example.org/").is_err());
        assert!(parse_url("not a url").is_err());
    }

    #[test]
    fn errors_never_carry_the_password() {
        let e =
            LookupError::Service("QRZ answered: bad password p@ss w0rd&x (p%40ss+w0rd%26x)".into())
                .redact("p@ss w0rd&x");
        assert_eq!(e.to_string(), "QRZ answered: bad password *** (***)");
        assert_eq!(format!("{:?}", Password::new("hunter2")), "Password(***)");
    }
}
