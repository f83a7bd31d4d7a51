//! The QRZ.com Logbook API, client side: one form-encoded POST per action (`STATUS`,
//! `INSERT`, `DELETE`, `FETCH`), each answered by `NAME=value` pairs joined by `&`.
//!
//! The replies are read with these rules, from QRZ's API guide and the replies other clients
//! report:
//!
//! - Pairs come in any order and are read by name. A reply is split only at an `&` that starts
//!   a new upper-case `NAME=`, because the `ADIF` of a `FETCH` is HTML-entity-encoded
//!   (`&lt;CALL:5&gt;O&#39;Brien &amp; Sons`) and splitting at every `&` would cut it apart.
//! - Values other than `ADIF` are percent-decoded (`+` is a space), since the guide calls the
//!   reply URL-encoded. `ADIF` is not: QRZ sends it entity-encoded rather than percent-encoded,
//!   and percent-decoding it would turn a `+` or `%` in a comment into something else.
//! - The guide puts `STATUS`'s book in `DATA`, whose value is itself `NAME=value` pairs
//!   joined by `&`. Sent unencoded, those `&`s split the reply, so the book's fields are
//!   looked for both in `DATA` (percent- or entity-encoded or not) and among the reply's own
//!   pairs.
//!
//! The access key is a secret of the user's: it is passed with each call, never stored here,
//! and taken out of every error message in case QRZ echoes it back.

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use reqwest::Url;
use reqwest::header::CONTENT_TYPE;

use svc_adif::{Reader, Record, unescape};

/// Where QRZ serves the API.
pub const DEFAULT_API_URL: &str = "https://logbook.qrz.com/api";

/// How long to wait for a connection to QRZ.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one call may take in all. A `FETCH` of a few hundred records takes QRZ seconds.
const TOTAL_TIMEOUT: Duration = Duration::from_secs(30);
/// How much of an unreadable reply an error quotes.
const PREVIEW: usize = 60;

/// A client of the QRZ Logbook API at one address. Cheap to clone: clones share connections.
#[derive(Clone)]
pub struct Qrz {
    http: reqwest::Client,
    api_url: Url,
}

impl fmt::Debug for Qrz {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Qrz")
            .field("api_url", &self.api_url.as_str())
            .finish_non_exhaustive()
    }
}

/// A logbook as `STATUS` describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Book {
    pub callsign: String,
    pub count: Option<u64>,
    pub book_id: Option<String>,
}

/// What became of one contact sent with `INSERT`.
#[derive(Debug, Clone, PartialEq)]
pub enum Inserted {
    New {
        log_id: String,
    },
    /// The book had the contact already and it was overwritten (only when replacing).
    Replaced {
        log_id: String,
    },
    /// The book has the contact already and QRZ kept its own copy.
    Duplicate,
}

/// What a `DELETE` did with each log id asked for, in the order asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Deleted {
    pub deleted: Vec<String>,
    /// Ids the book does not have (any more): for a caller that wanted them gone, done too.
    pub not_found: Vec<String>,
}

/// One page of a book, in log id order.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Each record with its log id (its `APP_QRZLOG_LOGID`).
    pub records: Vec<(String, Record)>,
    /// The last log id of the page, to fetch the next page after; `None` for an empty page.
    pub last_log_id: Option<String>,
}

/// Why a call did not succeed, by what the caller should do about it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum QrzError {
    /// The key was refused (wrong, revoked, or no subscription): stop using it until the
    /// user gives another one. The text is QRZ's reason.
    #[error("QRZ refused the logbook key: {0}")]
    Auth(String),
    /// QRZ refused this request; the text is its `REASON`. Sending it again will not help.
    #[error("QRZ refused the request: {0}")]
    Fail(String),
    /// No answer: refused, timed out, dropped, or a server error. Try again later.
    #[error("QRZ is unavailable: {0}")]
    Transport(String),
    /// An answer that is not a QRZ reply we can read.
    #[error("QRZ's reply cannot be read: {0}")]
    Malformed(String),
}

impl QrzError {
    /// The same error with `key` blotted out of its text: QRZ may quote what it was sent.
    fn redact(self, key: &str) -> QrzError {
        let key = key.trim();
        if key.is_empty() {
            return self;
        }
        let hide = |text: String| text.replace(key, "***");
        match self {
            QrzError::Auth(t) => QrzError::Auth(hide(t)),
            QrzError::Fail(t) => QrzError::Fail(hide(t)),
            QrzError::Transport(t) => QrzError::Transport(hide(t)),
            QrzError::Malformed(t) => QrzError::Malformed(hide(t)),
        }
    }
}

type Reply = HashMap<String, String>;

fn http_client(
    api_url: &Url,
    connect: Duration,
    total: Duration,
) -> Result<reqwest::Client, QrzError> {
    let mut builder = reqwest::Client::builder()
        // QRZ asks every program to name itself and its version, and limits those that don't.
        .user_agent(concat!("svc/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(connect)
        .timeout(total)
        // A redirect means the address is wrong: report it rather than post the key elsewhere.
        .redirect(reqwest::redirect::Policy::none());
    if api_url.scheme() == "http" {
        // Only a test's fake QRZ speaks plain HTTP; skip loading the system's CA store for it.
        builder = builder.tls_certs_only([]);
    }
    builder
        .build()
        .map_err(|e| QrzError::Transport(format!("cannot set up HTTP: {}", cause(&e))))
}

/// What went wrong on the wire, in words: reqwest's own Display says only "error sending
/// request", and the cause that tells what happened is the innermost one.
pub(super) fn cause(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        return "no answer in time".into();
    }
    let mut innermost: &dyn std::error::Error = e;
    while let Some(source) = innermost.source() {
        innermost = source;
    }
    innermost.to_string()
}

impl Qrz {
    pub fn new(api_url: Url) -> Result<Qrz, QrzError> {
        let http = http_client(&api_url, CONNECT_TIMEOUT, TOTAL_TIMEOUT)?;
        Ok(Qrz { http, api_url })
    }

    /// The same client with other time limits: `connect` to open a connection, `total` for
    /// a whole call.
    pub fn with_timeouts(self, connect: Duration, total: Duration) -> Result<Qrz, QrzError> {
        let http = http_client(&self.api_url, connect, total)?;
        Ok(Qrz { http, ..self })
    }

    /// The book's owner callsign and record count.
    pub async fn status(&self, key: &str) -> Result<Book, QrzError> {
        let reply = self.call(key, &[("ACTION", "STATUS")]).await;
        reply.and_then(|r| book(&r)).map_err(|e| e.redact(key))
    }

    /// One contact (one ADI record, as text `<CALL:5>K1ABC ... <EOR>`). A contact the book
    /// has already is left as it is there: [`Inserted::Duplicate`].
    pub async fn insert(&self, key: &str, adif: &str) -> Result<Inserted, QrzError> {
        self.put(key, adif, false).await
    }

    /// One contact that overwrites the book's copy of it if there is one
    /// ([`Inserted::Replaced`]). QRZ then drops the copy's confirmation until it matches the
    /// other station's record again, so this is for contacts the user changed.
    pub async fn replace(&self, key: &str, adif: &str) -> Result<Inserted, QrzError> {
        self.put(key, adif, true).await
    }

    async fn put(&self, key: &str, adif: &str, replace: bool) -> Result<Inserted, QrzError> {
        let mut fields = vec![("ACTION", "INSERT"), ("ADIF", adif)];
        if replace {
            fields.push(("OPTION", "REPLACE"));
        }
        let reply = self.call(key, &fields).await;
        reply.and_then(|r| inserted(&r)).map_err(|e| e.redact(key))
    }

    /// Deletes records by log id. Ids the book does not have are not an error: they are
    /// gone, which is what the caller wanted.
    pub async fn delete(&self, key: &str, log_ids: &[String]) -> Result<Deleted, QrzError> {
        if log_ids.is_empty() {
            return Ok(Deleted {
                deleted: Vec::new(),
                not_found: Vec::new(),
            });
        }
        let ids = log_ids.join(",");
        let reply = self
            .call(key, &[("ACTION", "DELETE"), ("LOGIDS", &ids)])
            .await;
        reply
            .and_then(|r| deleted(&r, log_ids))
            .map_err(|e| e.redact(key))
    }

    /// One page of the book after `after_log_id` (None: from the start), at most `max` records;
    /// with `modified_since` (YYYY-MM-DD), only the records changed on or after that day
    /// (`MODSINCE`), as a confirmation changes a record's status.
    pub async fn fetch(
        &self,
        key: &str,
        after_log_id: Option<&str>,
        max: u32,
        modified_since: Option<&str>,
    ) -> Result<Page, QrzError> {
        // The guide says AFTERLOGID selects ids >= the one given, and suggests passing the last
        // id plus one; but if QRZ ever selects strictly after it, that would skip the next
        // record for good. Asking from the last id itself, for one record more, and dropping
        // that id if it comes back, is right either way.
        let mut option = match after_log_id {
            Some(after) => format!("MAX:{},AFTERLOGID:{after}", max.saturating_add(1)),
            None => format!("MAX:{max},AFTERLOGID:0"),
        };
        if let Some(day) = modified_since {
            option.push_str(&format!(",MODSINCE:{day}"));
        }
        option.push_str(",TYPE:ADIF");
        let reply = self
            .call(key, &[("ACTION", "FETCH"), ("OPTION", &option)])
            .await;
        reply
            .and_then(|r| page(&r, after_log_id, max))
            .map_err(|e| e.redact(key))
    }

    /// Posts one action and reads the reply's pairs; a refused key is an error whatever the
    /// action. The errors may still hold the key: callers redact them.
    async fn call(&self, key: &str, fields: &[(&str, &str)]) -> Result<Reply, QrzError> {
        // The serializer is not Send: it is gone before the first await.
        let body = {
            let mut form = form_urlencoded::Serializer::new(String::new());
            form.append_pair("KEY", key);
            for (name, value) in fields {
                form.append_pair(name, value);
            }
            form.finish()
        };
        let response = self
            .http
            .post(self.api_url.clone())
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .map_err(|e| QrzError::Transport(cause(&e)))?;
        let status = response.status();
        if status.is_server_error()
            || status == reqwest::StatusCode::TOO_MANY_REQUESTS
            || status == reqwest::StatusCode::REQUEST_TIMEOUT
        {
            return Err(QrzError::Transport(format!("HTTP {status}")));
        }
        if !status.is_success() {
            return Err(QrzError::Malformed(format!("HTTP {status}")));
        }
        let body = response
            .text()
            .await
            .map_err(|e| QrzError::Transport(cause(&e)))?;
        let reply = parse_reply(&body)?;
        if result(&reply) == "AUTH" {
            return Err(QrzError::Auth(reason(&reply).unwrap_or_else(|| {
                "the key is wrong or has no subscription".into()
            })));
        }
        Ok(reply)
    }
}

/// The reply's pairs, split only where a new NAME= starts.
pub fn parse_reply(body: &str) -> Result<HashMap<String, String>, QrzError> {
    let body = body.trim();
    if body.is_empty() {
        return Err(QrzError::Malformed("the reply is empty".into()));
    }
    let pairs = split_pairs(body)
        .ok_or_else(|| QrzError::Malformed(format!("not NAME=value pairs: {:?}", preview(body))))?;
    let mut reply = HashMap::new();
    for (name, value) in pairs {
        let value = if name == "ADIF" {
            adif_text(value)
        } else {
            percent_decode(value)
        };
        // The first of a repeated name counts, as QRZ puts its own fields first.
        reply.entry(name.to_owned()).or_insert(value);
    }
    if !reply.contains_key("RESULT") {
        return Err(QrzError::Malformed(format!(
            "no RESULT in {:?}",
            preview(body)
        )));
    }
    Ok(reply)
}

/// `text` as its `NAME=value` pairs, split at each `&` that is followed by `NAME=`; `None`
/// when it does not begin with a pair.
fn split_pairs(text: &str) -> Option<Vec<(&str, &str)>> {
    if !starts_pair(text) {
        return None;
    }
    let mut pairs = Vec::new();
    let mut start = 0;
    for (amp, _) in text.match_indices('&') {
        if starts_pair(&text[amp + 1..]) {
            pairs.push(&text[start..amp]);
            start = amp + 1;
        }
    }
    pairs.push(&text[start..]);
    pairs.into_iter().map(|pair| pair.split_once('=')).collect()
}

/// Whether `text` begins with a reply field name (upper-case letters and `_`) and `=`.
fn starts_pair(text: &str) -> bool {
    let name = text
        .bytes()
        .take_while(|b| b.is_ascii_uppercase() || *b == b'_')
        .count();
    name > 0 && text.as_bytes().get(name) == Some(&b'=')
}

/// The ADI text of an `ADIF` value: entity-decoded when it is entity-encoded, that is when an
/// `&lt;` comes before any `<` (the rule the ADIF reader applies to an escaped file). ADI sent
/// with plain tags is left alone, since decoding it would change the values' byte counts.
fn adif_text(value: &str) -> String {
    let escaped = value
        .find("&lt;")
        .is_some_and(|at| value.find('<').is_none_or(|lt| at < lt));
    if escaped {
        unescape(value)
    } else {
        value.to_owned()
    }
}

/// Decodes `+` and `%XX`; a `%` that starts no escape stays as it is.
fn percent_decode(value: &str) -> String {
    if !value.contains(['%', '+']) {
        return value.to_owned();
    }
    let hex = |b: Option<&u8>| b.and_then(|b| char::from(*b).to_digit(16));
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b'%' => match (hex(bytes.get(i + 1)), hex(bytes.get(i + 2))) {
                (Some(high), Some(low)) => {
                    // Two hex digits make at most 0xFF, so the cast keeps every bit.
                    out.push((high * 16 + low) as u8);
                    i += 3;
                }
                _ => {
                    out.push(b'%');
                    i += 1;
                }
            },
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn preview(text: &str) -> String {
    match text.char_indices().nth(PREVIEW) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The reply's RESULT, upper-cased.
fn result(reply: &Reply) -> String {
    reply
        .get("RESULT")
        .map(|r| r.trim().to_ascii_uppercase())
        .unwrap_or_default()
}

/// The reply's REASON, unless absent or blank.
fn reason(reply: &Reply) -> Option<String> {
    field(reply, "REASON").map(str::to_owned)
}

fn field<'a>(reply: &'a Reply, name: &str) -> Option<&'a str> {
    reply.get(name).map(|v| v.trim()).filter(|v| !v.is_empty())
}

fn fail(reply: &Reply) -> QrzError {
    QrzError::Fail(reason(reply).unwrap_or_else(|| "no reason given".into()))
}

fn unexpected(reply: &Reply) -> QrzError {
    QrzError::Malformed(format!("unknown RESULT {:?}", result(reply)))
}

fn book(reply: &Reply) -> Result<Book, QrzError> {
    match result(reply).as_str() {
        "OK" => {}
        "FAIL" => return Err(fail(reply)),
        _ => return Err(unexpected(reply)),
    }
    let data = reply.get("DATA").map(|d| unescape(d)).unwrap_or_default();
    let nested: Reply = split_pairs(data.trim())
        .unwrap_or_default()
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect();
    // DATA first, being where the guide puts the book; the reply's own pairs hold the rest of
    // it when DATA was sent unencoded and its `&`s split the reply.
    let get = |name: &str| field(&nested, name).or_else(|| field(reply, name));
    let callsign = get("CALLSIGN")
        .or_else(|| get("OWNER"))
        .ok_or_else(|| QrzError::Malformed("the STATUS reply names no CALLSIGN".into()))?;
    Ok(Book {
        callsign: callsign.to_owned(),
        count: get("COUNT").and_then(|c| c.parse().ok()),
        book_id: get("BOOKID").map(str::to_owned),
    })
}

fn inserted(reply: &Reply) -> Result<Inserted, QrzError> {
    let log_id = || {
        field(reply, "LOGID")
            .map(str::to_owned)
            .ok_or_else(|| QrzError::Malformed("the INSERT reply has no LOGID".into()))
    };
    match result(reply).as_str() {
        "OK" => Ok(Inserted::New { log_id: log_id()? }),
        "REPLACE" => Ok(Inserted::Replaced { log_id: log_id()? }),
        "FAIL" if reason(reply).is_some_and(|r| r.to_ascii_lowercase().contains("duplicate")) => {
            Ok(Inserted::Duplicate)
        }
        "FAIL" => Err(fail(reply)),
        _ => Err(unexpected(reply)),
    }
}

fn deleted(reply: &Reply, asked: &[String]) -> Result<Deleted, QrzError> {
    let not_found: Vec<String> = match result(reply).as_str() {
        "OK" => Vec::new(),
        // PARTIAL lists the ids that were not found.
        "PARTIAL" => {
            let missing: Vec<&str> = field(reply, "LOGIDS")
                .unwrap_or_default()
                .split(',')
                .map(str::trim)
                .collect();
            asked
                .iter()
                .filter(|id| missing.contains(&id.as_str()))
                .cloned()
                .collect()
        }
        // FAIL with nothing deleted is how the guide says "none of them found".
        "FAIL" if field(reply, "COUNT") == Some("0") => asked.to_vec(),
        "FAIL" => return Err(fail(reply)),
        _ => return Err(unexpected(reply)),
    };
    let deleted = asked
        .iter()
        .filter(|id| !not_found.contains(id))
        .cloned()
        .collect();
    Ok(Deleted { deleted, not_found })
}

fn page(reply: &Reply, after: Option<&str>, max: u32) -> Result<Page, QrzError> {
    let empty = Page {
        records: Vec::new(),
        last_log_id: None,
    };
    match result(reply).as_str() {
        "OK" => {}
        // QRZ answers a FETCH that matches nothing this way, not with OK.
        "FAIL" if reason(reply).is_none() && field(reply, "COUNT") == Some("0") => {
            return Ok(empty);
        }
        "FAIL" => return Err(fail(reply)),
        _ => return Err(unexpected(reply)),
    }
    let Some(adif) = field(reply, "ADIF") else {
        return Ok(empty);
    };
    let reader =
        Reader::new(adif.as_bytes()).map_err(|e| QrzError::Malformed(format!("its ADIF: {e}")))?;
    let mut records = Vec::new();
    for item in reader {
        let record = item.map_err(|e| QrzError::Malformed(format!("its ADIF: {e}")))?;
        let log_id = record
            .get("APP_QRZLOG_LOGID")
            .ok_or_else(|| QrzError::Malformed("a fetched record has no APP_QRZLOG_LOGID".into()))?
            .to_owned();
        if Some(log_id.as_str()) != after {
            records.push((log_id, record));
        }
    }
    // Log ids are integers of any length: shorter is smaller. Sorted before the page is cut
    // to `max`, so that what is cut off comes after the page's last id and is fetched next.
    records.sort_by(|(a, _), (b, _)| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    records.truncate(usize::try_from(max).unwrap_or(usize::MAX));
    let last_log_id = records.last().map(|(id, _)| id.clone());
    Ok(Page {
        records,
        last_log_id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(body: &str) -> Reply {
        parse_reply(body).unwrap_or_else(|e| panic!("{body:?}: {e}"))
    }

    #[test]
    fn pairs_are_read_by_name_in_any_order() {
        let a = parsed("RESULT=OK&LOGID=130877825&COUNT=1");
        let b = parsed("COUNT=1&LOGID=130877825&RESULT=OK\r\n");
        assert_eq!(a, b);
        assert_eq!(a["LOGID"], "130877825");
        assert_eq!(
            inserted(&a),
            Ok(Inserted::New {
                log_id: "130877825".into()
            })
        );
        assert_eq!(
            inserted(&parsed("LOGID=7&RESULT=REPLACE&COUNT=1")),
            Ok(Inserted::Replaced { log_id: "7".into() })
        );
        assert!(matches!(
            inserted(&parsed("RESULT=OK&COUNT=1")),
            Err(QrzError::Malformed(_))
        ));
    }

    #[test]
    fn entity_encoded_adif_is_split_only_at_a_new_name() {
        let body = "RESULT=OK&COUNT=2&ADIF=&lt;call:5&gt;K1ABC&lt;name:14&gt;O&#39;Brien &amp; Sons\
                    &lt;comment:11&gt;R&amp;D=A&lt;3 &quot;x&quot;&lt;app_qrzlog_logid:2&gt;11&lt;eor&gt;\n\
                    &lt;call:4&gt;DL1X&lt;name:7&gt;J&#252;rgen&lt;app_qrzlog_logid:2&gt;12&lt;eor&gt;\n\
                    &LOGIDS=11,12";
        let reply = parsed(body);
        assert_eq!(reply["COUNT"], "2");
        assert_eq!(reply["LOGIDS"], "11,12");
        assert!(reply["ADIF"].starts_with("<call:5>K1ABC<name:14>O'Brien & Sons"));

        let page = page(&reply, None, 10).unwrap();
        let ids: Vec<&str> = page.records.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["11", "12"]);
        assert_eq!(page.last_log_id.as_deref(), Some("12"));
        let first = &page.records[0].1;
        assert_eq!(first.get("NAME"), Some("O'Brien & Sons"));
        assert_eq!(first.get("COMMENT"), Some("R&D=A<3 \"x\""));
        assert_eq!(page.records[1].1.get("NAME"), Some("Jürgen"));
    }

    #[test]
    fn adif_with_plain_tags_keeps_its_entities() {
        let reply =
            parsed("RESULT=OK&ADIF=<call:5>K1ABC<notes:8>&amp;+%2<app_qrzlog_logid:1>3<eor>");
        let page = page(&reply, None, 10).unwrap();
        assert_eq!(page.records[0].1.get("NOTES"), Some("&amp;+%2"));
    }

    #[test]
    fn values_are_percent_decoded_except_adif() {
        let reply = parsed("RESULT=FAIL&REASON=bad+date%3A+20991301%zz%&EXTENDED=");
        assert_eq!(reply["REASON"], "bad date: 20991301%zz%");
        assert_eq!(reply["EXTENDED"], "");
        assert_eq!(
            inserted(&reply),
            Err(QrzError::Fail("bad date: 20991301%zz%".into()))
        );
        assert_eq!(percent_decode("J%C3%BCrgen"), "Jürgen");
    }

    #[test]
    fn a_duplicate_is_not_a_failure() {
        let reply = parsed("RESULT=FAIL&REASON=Unable to add QSO to database: duplicate&EXTENDED=");
        assert_eq!(inserted(&reply), Ok(Inserted::Duplicate));
        let reply = parsed("RESULT=FAIL&REASON=Unable+to+add+QSO%3A+Duplicate&COUNT=0");
        assert_eq!(inserted(&reply), Ok(Inserted::Duplicate));
    }

    #[test]
    fn auth_and_missing_result() {
        let reply = parsed("STATUS=AUTH&RESULT=AUTH&REASON=invalid api key");
        assert_eq!(result(&reply), "AUTH");
        assert_eq!(reason(&reply).as_deref(), Some("invalid api key"));
        for body in [
            "LOGID=1&COUNT=1",
            "",
            "  \n",
            "<html><body>Service Unavailable</body></html>",
            "result=ok",
        ] {
            assert!(
                matches!(parse_reply(body), Err(QrzError::Malformed(_))),
                "{body:?}"
            );
        }
    }

    #[test]
    fn status_is_read_from_data_or_from_the_pairs() {
        let expected = Book {
            callsign: "K1ABC".into(),
            count: Some(14),
            book_id: Some("99".into()),
        };
        for body in [
            // DATA sent as is: its `&`s split the reply.
            "RESULT=OK&DATA=CALLSIGN=K1ABC&BOOKID=99&COUNT=14&CONFIRMED=3&DXCC_COUNT=5",
            // DATA percent-encoded whole, and RESULT last.
            "DATA=CALLSIGN%3DK1ABC%26BOOKID%3D99%26COUNT%3D14%26OWNER%3DK1ABC&RESULT=OK",
            // DATA entity-encoded, and a COUNT of its own outside.
            "RESULT=OK&COUNT=1&DATA=CALLSIGN=K1ABC&amp;BOOKID=99&amp;COUNT=14",
            // No DATA at all; the owner's call when the book's is missing.
            "RESULT=OK&OWNER=K1ABC&BOOKID=99&COUNT=14&START_DATE=2020-01-01",
        ] {
            assert_eq!(book(&parsed(body)), Ok(expected.clone()), "{body}");
        }
        assert!(matches!(
            book(&parsed("RESULT=OK&COUNT=3")),
            Err(QrzError::Malformed(_))
        ));
        assert_eq!(
            book(&parsed("RESULT=FAIL&REASON=invalid+key")),
            Err(QrzError::Fail("invalid key".into()))
        );
    }

    #[test]
    fn delete_replies() {
        let asked: Vec<String> = ["1", "2", "3"].map(String::from).to_vec();
        assert_eq!(
            deleted(&parsed("RESULT=OK&COUNT=3"), &asked),
            Ok(Deleted {
                deleted: asked.clone(),
                not_found: Vec::new()
            })
        );
        assert_eq!(
            deleted(&parsed("RESULT=PARTIAL&COUNT=1&LOGIDS=3,1"), &asked),
            Ok(Deleted {
                deleted: vec!["2".into()],
                not_found: vec!["1".into(), "3".into()]
            })
        );
        assert_eq!(
            deleted(&parsed("RESULT=FAIL&COUNT=0&REASON=not+found"), &asked),
            Ok(Deleted {
                deleted: Vec::new(),
                not_found: asked.clone()
            })
        );
        assert_eq!(
            deleted(&parsed("RESULT=FAIL&REASON=invalid LOGIDS"), &asked),
            Err(QrzError::Fail("invalid LOGIDS".into()))
        );
    }

    #[test]
    fn fetch_pages_drop_the_overlap_and_stay_in_order() {
        let record = |id: &str| {
            format!(
                "&lt;call:4&gt;K1AB&lt;app_qrzlog_logid:{}&gt;{id}&lt;eor&gt;",
                id.len()
            )
        };
        let adif: String = ["100", "99", "101", "102"].map(record).concat();
        let reply = parsed(&format!("RESULT=OK&COUNT=4&ADIF={adif}"));
        let page = page(&reply, Some("99"), 2).unwrap();
        let ids: Vec<&str> = page.records.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["100", "101"]);
        assert_eq!(page.last_log_id.as_deref(), Some("101"));

        let empty = super::page(&parsed("RESULT=FAIL&COUNT=0"), Some("5"), 10).unwrap();
        assert_eq!(empty.records, []);
        assert_eq!(empty.last_log_id, None);
        assert_eq!(
            super::page(&parsed("RESULT=FAIL&COUNT=0&REASON=bad option"), None, 10),
            Err(QrzError::Fail("bad option".into()))
        );
        let no_id = parsed("RESULT=OK&ADIF=&lt;call:4&gt;K1AB&lt;eor&gt;");
        assert!(matches!(
            super::page(&no_id, None, 10),
            Err(QrzError::Malformed(_))
        ));
    }

    #[test]
    fn errors_never_show_the_key() {
        let key = "ABCD-0A0B-1C1D-2E2F";
        let e = QrzError::Fail(format!("invalid key {key}")).redact(key);
        assert_eq!(e, QrzError::Fail("invalid key ***".into()));
        assert!(!format!("{e} {e:?}").contains(key));
    }
}
