//! POTA (Parks on the Air) beside the logbook: a park's name for its reference (`parks.rs`, with
//! a cache of its own) and the live activator spots, read and sent (`spots.rs`). POTA's public
//! API needs no key; its address is `https://api.pota.app` unless `--pota-api-url` or
//! `SVC_POTA_API_URL` says otherwise. It sits below the client and the service alike, on
//! `model`, `datafiles` and `outbound` only: the logbook, the commands and the service's pages
//! all name parks from here.
//!
//! Every call is one attempt with a short time-out: the logbook must never hang on POTA, and a
//! spot is never sent again later, by a retry or a queue, since a late spot sends hunters to a
//! frequency the activator has left.

mod import;
mod parks;
mod spots;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use reqwest::{Method, Url};
use serde_json::Value;

pub use import::ImportReport;
pub use parks::{CACHE_FILE, Park, ParkAnswer, ParkSource, Parks, cached_names, fresh, parks_path};
pub use spots::{ModeFilter, NewSpot, Spot, SpotFilter, khz_text};

use svc_model::error::exit_code_for_status;
use svc_outbound::{http_client, transport_message};

/// POTA's own API.
pub const DEFAULT_API_URL: &str = "https://api.pota.app";
/// To open a connection: a dead link shows at once.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// For a whole request, answer included: the logbook waits on it.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);
/// The most of an answer read. The whole spot list is some hundreds of KB on a busy weekend; an
/// answer far beyond that is not POTA's.
const MAX_ANSWER: usize = 8 << 20;

/// What can go wrong with POTA or the park cache.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PotaError {
    /// Input refused before anything was sent (a reference, a frequency, a CSV file).
    #[error("{0}")]
    Invalid(String),
    /// POTA knows no park of that reference.
    #[error("{0}")]
    NotFound(String),
    /// No answer: connection refused, DNS, TLS, time-out.
    #[error("{0}")]
    Transport(String),
    /// POTA answered with an error status.
    #[error("POTA answered {status}: {message}")]
    Refused { status: u16, message: String },
    /// An answer that is not what POTA sends.
    #[error("{0}")]
    Unexpected(String),
    /// The park cache cannot be opened, read or written.
    #[error("{0}")]
    Cache(String),
}

impl PotaError {
    /// The `error` the command line reports it with.
    pub fn code(&self) -> &'static str {
        match self {
            PotaError::Invalid(_) => "validation_error",
            PotaError::NotFound(_) => "not_found",
            PotaError::Transport(_) => "transport_error",
            PotaError::Refused { .. } => "pota_error",
            PotaError::Unexpected(_) => "unexpected_response",
            PotaError::Cache(_) => "local_error",
        }
    }

    /// The exit code, as the service's failures of the same kind have.
    pub fn exit_code(&self) -> u8 {
        match self {
            PotaError::Invalid(_) => 2,
            PotaError::NotFound(_) | PotaError::Cache(_) | PotaError::Unexpected(_) => 1,
            PotaError::Transport(_) => 7,
            // A 4xx is POTA refusing what was sent (a park it does not know, a frequency it
            // will not take): an input to correct, whatever the status says beyond that.
            PotaError::Refused { status, .. } => match status {
                429 | 500..=599 => exit_code_for_status(*status),
                400..=499 => 2,
                _ => 1,
            },
        }
    }

    /// The HTTP status of POTA's answer, when there was one.
    pub fn status(&self) -> Option<u16> {
        match self {
            PotaError::Refused { status, .. } => Some(*status),
            _ => None,
        }
    }
}

impl From<sqlx::Error> for PotaError {
    fn from(e: sqlx::Error) -> Self {
        PotaError::Cache(format!("the park cache cannot be used: {e}"))
    }
}

/// Checks an address given for POTA's API: an `http://` or `https://` URL with a host and no
/// query, fragment or credentials.
pub fn parse_api_url(text: &str) -> Result<Url, String> {
    let text = text.trim();
    let url = Url::parse(text)
        .map_err(|e| format!("{text:?} is not a URL ({e}); give one such as {DEFAULT_API_URL}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!(
            "{text:?} is not an http:// or https:// URL; give one such as {DEFAULT_API_URL}"
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "{text:?} has a query or fragment; give the base address only, e.g. {DEFAULT_API_URL}"
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        // POTA's public API takes no credentials; whatever they are, they are not echoed.
        return Err(
            "the POTA address holds a user name or password (user:pw@host); give the address alone"
                .into(),
        );
    }
    Ok(url)
}

/// POTA's address: `flag` (`--pota-api-url`, or `SVC_POTA_API_URL` which clap reads into it),
/// else POTA's own.
pub fn resolve_api_url(flag: Option<&str>) -> Result<Url, PotaError> {
    match flag.map(str::trim).filter(|s| !s.is_empty()) {
        Some(text) => parse_api_url(text)
            .map_err(|e| PotaError::Invalid(format!("--pota-api-url (or SVC_POTA_API_URL): {e}"))),
        None => parse_api_url(DEFAULT_API_URL).map_err(PotaError::Invalid),
    }
}

/// An answer POTA gave: its status and body.
struct Answer {
    status: u16,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Result<Value, PotaError> {
        serde_json::from_slice(&self.body).map_err(|_| {
            PotaError::Unexpected(format!(
                "POTA's answer is not JSON ({}); check --pota-api-url",
                excerpt(&self.body)
            ))
        })
    }

    fn refused(&self) -> PotaError {
        PotaError::Refused {
            status: self.status,
            message: excerpt(&self.body),
        }
    }
}

/// No answer: whether the request surely never left (the connection could not be made), and
/// why.
struct NoAnswer {
    unsent: bool,
    cause: String,
}

/// The client of POTA's API.
#[derive(Clone)]
pub struct Pota {
    base: Url,
    /// Set up at the first request: for HTTPS that reads the system's certificates, time and
    /// memory that a logbook which never asks POTA need not spend at start.
    http: Arc<OnceLock<Result<reqwest::Client, String>>>,
}

impl std::fmt::Debug for Pota {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pota({})", self.base)
    }
}

impl Pota {
    pub fn new(base: Url) -> Pota {
        Pota {
            base,
            http: Arc::default(),
        }
    }

    pub fn base(&self) -> &Url {
        &self.base
    }

    fn url(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty();
            path.extend(segments);
        }
        url
    }

    /// One attempt, never repeated.
    async fn send(
        &self,
        method: Method,
        url: Url,
        json: Option<Vec<u8>>,
    ) -> Result<Answer, NoAnswer> {
        let http = self
            .http
            .get_or_init(|| http_client(&self.base, CONNECT_TIMEOUT, ANSWER_TIMEOUT))
            .as_ref()
            .map_err(|cause| NoAnswer {
                unsent: true,
                cause: cause.clone(),
            })?;
        let mut request = http
            .request(method, url)
            .header(reqwest::header::ACCEPT, "application/json");
        if let Some(body) = json {
            request = request
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body);
        }
        let no_answer = |e: reqwest::Error| NoAnswer {
            unsent: e.is_connect(),
            cause: transport_message(&e),
        };
        let mut response = request.send().await.map_err(no_answer)?;
        let status = response.status().as_u16();
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(no_answer)? {
            if body.len() + chunk.len() > MAX_ANSWER {
                return Err(NoAnswer {
                    unsent: false,
                    cause: format!("the answer is larger than {} MB", MAX_ANSWER >> 20),
                });
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Answer { status, body })
    }

    /// A GET whose failure to answer is reported as such.
    async fn get(&self, segments: &[&str]) -> Result<Answer, PotaError> {
        self.send(Method::GET, self.url(segments), None)
            .await
            .map_err(|e| {
                PotaError::Transport(format!(
                    "no answer from POTA at {} ({}); check the network and --pota-api-url",
                    self.base, e.cause
                ))
            })
    }
}

/// A short, one-line piece of an answer for a message.
fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let line: String = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(160)
        .collect();
    if line.is_empty() {
        "an empty answer".into()
    } else {
        line
    }
}

/// The most of a park's name kept from POTA (the park list's longest is under 100), so that an
/// answer cannot fill the pages, the terminal or the cache.
pub const PARK_NAME_MAX_CHARS: usize = 200;
/// The most of a park's location codes kept (`US-ME`, or a few for a park across borders).
pub const PARK_LOCATION_MAX_CHARS: usize = 100;
/// The most of any other text field of POTA's answers: a spot's comment is the longest, and
/// svc sends at most this many.
const TEXT_MAX_CHARS: usize = svc_model::text::SPOT_COMMENT_MAX_CHARS;

/// A field as text: a string or a number written out, made fit to keep and show
/// ([`svc_model::text::from_elsewhere`]: no control or reordering characters, at most
/// [`TEXT_MAX_CHARS`]); `None` when absent or blank. POTA writes some numbers as strings and
/// some strings as numbers.
fn text(value: &Value, key: &str) -> Option<String> {
    text_within(value, key, TEXT_MAX_CHARS)
}

/// [`text`] of at most `max_chars`.
fn text_within(value: &Value, key: &str, max_chars: usize) -> Option<String> {
    match value.get(key)? {
        Value::String(s) => svc_model::text::from_elsewhere(s, max_chars),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A field as a finite number, whether POTA sent it as a number or as a string.
fn number(value: &Value, key: &str) -> Option<f64> {
    match value.get(key)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .filter(|n: &f64| n.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn addresses_are_checked_and_the_default_is_potas() {
        assert_eq!(
            resolve_api_url(None).unwrap().as_str(),
            "https://api.pota.app/"
        );
        assert_eq!(
            resolve_api_url(Some("  ")).unwrap().as_str(),
            "https://api.pota.app/"
        );
        assert_eq!(
            resolve_api_url(Some("http://127.0.0.1:9/pota"))
                .unwrap()
                .as_str(),
            "http://127.0.0.1:9/pota"
        );
        for bad in [
            "api.pota.app",
            "ftp://api.pota.app",
            "https://a/?x=1",
            "https://u:p@a",
        ] {
            let e = resolve_api_url(Some(bad)).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{bad}");
            assert!(e.to_string().starts_with("--pota-api-url"), "{e}");
            assert!(!e.to_string().contains(":p@"), "{e}");
        }
    }

    #[test]
    fn paths_go_under_the_base() {
        let pota = Pota::new(Url::parse("http://127.0.0.1:9/pota/").unwrap());
        assert_eq!(
            pota.url(&["park", "US-0001"]).as_str(),
            "http://127.0.0.1:9/pota/park/US-0001"
        );
    }

    #[test]
    fn fields_are_read_whether_strings_or_numbers() {
        let v = json!({"a": " 14285.5 ", "b": 7074, "c": "", "d": null, "e": "x", "f": [1]});
        assert_eq!(number(&v, "a"), Some(14285.5));
        assert_eq!(number(&v, "b"), Some(7074.0));
        assert_eq!(number(&v, "c"), None);
        assert_eq!(number(&v, "e"), None);
        assert_eq!(text(&v, "b").as_deref(), Some("7074"));
        assert_eq!(text(&v, "c"), None);
        assert_eq!(text(&v, "d"), None);
        assert_eq!(text(&v, "f"), None);
        assert_eq!(text(&v, "missing"), None);
    }

    #[test]
    fn exit_codes_follow_the_services() {
        let refused = |status| PotaError::Refused {
            status,
            message: String::new(),
        };
        assert_eq!(refused(400).exit_code(), 2);
        assert_eq!(refused(403).exit_code(), 2);
        assert_eq!(refused(429).exit_code(), 4);
        assert_eq!(refused(503).exit_code(), 8);
        assert_eq!(refused(302).exit_code(), 1);
        assert_eq!(PotaError::Transport(String::new()).exit_code(), 7);
        assert_eq!(PotaError::NotFound(String::new()).exit_code(), 1);
        assert_eq!(excerpt(b"  <html>\n  oops </html> "), "<html> oops </html>");
        assert_eq!(excerpt(b""), "an empty answer");
    }
}
