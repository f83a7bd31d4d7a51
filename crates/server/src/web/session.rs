//! Who is asking: the session cookie, the CSRF token of the visitor's forms, and the checks
//! every form post passes before its handler runs.
//!
//! - A session id is 32 bytes from the OS CSPRNG, kept only in an `HttpOnly` cookie; the database
//!   holds its SHA-256 hash, so every server process on the database shares the sessions.
//! - A form's CSRF token is derived from a secret the visitor's cookie holds and no other site
//!   can read: the session id when signed in, else a random pre-session value in a cookie of its
//!   own. A post must carry the token of the cookie it comes with, and an `Origin` (or
//!   `Sec-Fetch-Site`) header, when sent, must name this site.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{FromRequest, Request};
use axum::http::{HeaderMap, HeaderValue, header};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::{Problem, SESSION_LIFETIME, WebConfig};
use crate::AppState;
use svc_model::ids::{base32, random_bytes};
use svc_store::Account;

/// Largest form body a page accepts.
const MAX_FORM_BYTES: usize = 16 * 1024;
/// Characters of a session id or pre-session value: 32 bytes in base32.
const SECRET_CHARS: usize = 52;

/// A secret that a cookie holds: a session id, or a pre-session value.
#[derive(Clone)]
pub struct Secret(String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

impl Secret {
    pub fn generate() -> Secret {
        Secret(base32(&random_bytes::<32>()))
    }

    fn parse(text: &str) -> Option<Secret> {
        (text.len() == SECRET_CHARS && text.bytes().all(|b| matches!(b, b'A'..=b'Z' | b'2'..=b'7')))
            .then(|| Secret(text.to_owned()))
    }

    /// What the database knows of a session id.
    pub fn hash(&self) -> [u8; 32] {
        Sha256::digest(self.0.as_bytes()).into()
    }

    fn csrf_token(&self) -> String {
        let mut hasher = Sha256::new();
        hasher.update(b"svc web form token\n");
        hasher.update(self.0.as_bytes());
        base32(&hasher.finalize())
    }
}

/// Where the request came from as the browser saw it.
#[derive(Debug, Clone)]
pub struct Site {
    /// Served over HTTPS: cookies get `Secure` and the `__Host-` prefix.
    pub secure: bool,
    /// `scheme://host[:port]` of this site, when known.
    origin: Option<String>,
    /// The client's address (an IPv6 client's /64), for the sign-in limits.
    pub client: String,
}

impl Site {
    pub fn of(headers: &HeaderMap, peer: Option<SocketAddr>, config: &WebConfig) -> Site {
        let forwarded_https = headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"));
        let secure = forwarded_https
            || config
                .public_origin
                .as_deref()
                .is_some_and(|o| o.starts_with("https://"));
        let origin = config.public_origin.clone().or_else(|| {
            let host = headers.get(header::HOST)?.to_str().ok()?;
            Some(format!(
                "{}://{}",
                if secure { "https" } else { "http" },
                host.to_ascii_lowercase()
            ))
        });
        let forwarded = config
            .trust_proxy
            .then(|| {
                headers
                    .get_all("x-forwarded-for")
                    .iter()
                    .filter_map(|v| v.to_str().ok())
                    .flat_map(|v| v.split(','))
                    .next_back()
                    .and_then(|last| last.trim().parse::<IpAddr>().ok())
            })
            .flatten();
        let client = match forwarded.or(peer.map(|p| p.ip())) {
            Some(IpAddr::V6(v6)) if v6.to_ipv4_mapped().is_none() => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
            Some(IpAddr::V6(v6)) => v6
                .to_ipv4_mapped()
                .map_or_else(String::new, |v4| v4.to_string()),
            Some(IpAddr::V4(v4)) => v4.to_string(),
            None => "unknown".to_owned(),
        };
        Site {
            secure,
            origin,
            client,
        }
    }

    fn cookie_name(&self, base: &str) -> String {
        if self.secure {
            format!("__Host-{base}")
        } else {
            base.to_owned()
        }
    }

    fn cookie(&self, base: &str, value: &str, max_age_secs: i64) -> HeaderValue {
        let mut cookie = format!(
            "{}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age_secs}",
            self.cookie_name(base)
        );
        if self.secure {
            cookie.push_str("; Secure");
        }
        HeaderValue::from_str(&cookie).unwrap_or_else(|_| HeaderValue::from_static(""))
    }

    /// Refuses a post that a browser says came from another site. `Sec-Fetch-Site`, which no
    /// page can forge, decides when sent; it also vouches for `Origin: null`, which is what a
    /// browser sends on a same-origin form post from a page with `Referrer-Policy: no-referrer`,
    /// as ours are.
    fn check_origin(&self, headers: &HeaderMap) -> Result<(), Problem> {
        if let Some(site) = headers.get("sec-fetch-site") {
            let site = site.to_str().unwrap_or("");
            if site != "same-origin" && site != "none" {
                return Err(Problem::foreign_origin());
            }
        }
        let Some(origin) = headers.get(header::ORIGIN) else {
            return Ok(());
        };
        let vouched = headers.get("sec-fetch-site").is_some();
        let same = match (&self.origin, origin.to_str()) {
            (_, Ok("null")) => vouched,
            (Some(ours), Ok(theirs)) => ours.eq_ignore_ascii_case(theirs.trim_end_matches('/')),
            _ => false,
        };
        if same {
            Ok(())
        } else {
            Err(Problem::foreign_origin())
        }
    }
}

const SESSION_COOKIE: &str = "svc_session";
const PRESESSION_COOKIE: &str = "svc_presession";
const DEVICE_COOKIE: &str = "svc_device";

fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.trim())
}

/// The visitor of a page: signed in or not, with the secret their forms are bound to.
#[derive(Debug, Clone)]
pub struct Visitor {
    pub account: Option<Account>,
    pub site: Site,
    secret: Secret,
    /// A pre-session value made for this request, to be set as a cookie.
    new_presession: bool,
    /// A session cookie came that no longer names a live session.
    pub session_ended: bool,
    /// The device cookie a browser keeps from an earlier sign-in.
    pub device: Option<Secret>,
}

impl Visitor {
    /// Reads the cookies and looks the session up (which counts as its use).
    pub async fn of(
        state: &AppState,
        headers: &HeaderMap,
        peer: Option<SocketAddr>,
    ) -> Result<Visitor, Problem> {
        let site = Site::of(headers, peer, &state.web);
        let device = cookie(headers, &site.cookie_name(DEVICE_COOKIE)).and_then(Secret::parse);
        let session = cookie(headers, &site.cookie_name(SESSION_COOKIE));
        if let Some(secret) = session.and_then(Secret::parse) {
            let account = state
                .store
                .session(secret.hash(), svc_model::Timestamp::now(), SESSION_LIFETIME)
                .await?;
            if account.is_some() {
                return Ok(Visitor {
                    account,
                    site,
                    secret,
                    new_presession: false,
                    session_ended: false,
                    device,
                });
            }
        }
        // A session cookie that names no live session: expired, signed out, or damaged.
        let session_ended = session.is_some();
        let presession =
            cookie(headers, &site.cookie_name(PRESESSION_COOKIE)).and_then(Secret::parse);
        Ok(Visitor {
            account: None,
            site,
            new_presession: presession.is_none(),
            secret: presession.unwrap_or_else(Secret::generate),
            session_ended,
            device,
        })
    }

    /// A visitor whose session could not be looked up: signed out, with no cookie to set.
    pub fn anonymous(site: Site) -> Visitor {
        Visitor {
            account: None,
            site,
            secret: Secret::generate(),
            new_presession: false,
            session_ended: false,
            device: None,
        }
    }

    /// The token every form of this visitor's pages carries.
    pub fn csrf_token(&self) -> String {
        self.secret.csrf_token()
    }

    /// The session id of a signed-in visitor.
    pub fn session(&self) -> Option<&Secret> {
        self.account.as_ref().map(|_| &self.secret)
    }

    /// The cookies this visit sets unless the handler set its own: a new pre-session value,
    /// or the removal of a session cookie that no longer works.
    pub fn cookies(&self) -> Vec<HeaderValue> {
        let mut out = Vec::new();
        if self.new_presession {
            out.push(self.site.cookie(
                PRESESSION_COOKIE,
                &self.secret.0,
                SESSION_LIFETIME.idle_ms / 1000,
            ));
        }
        if self.session_ended {
            out.push(self.site.cookie(SESSION_COOKIE, "", 0));
        }
        out
    }

    /// The cookies that sign `session` in: the session cookie, and the pre-session one dropped.
    pub fn sign_in_cookies(&self, session: &Secret) -> [HeaderValue; 2] {
        [
            self.site.cookie(
                SESSION_COOKIE,
                &session.0,
                SESSION_LIFETIME.absolute_ms / 1000,
            ),
            self.site.cookie(PRESESSION_COOKIE, "", 0),
        ]
    }

    /// The cookie that marks this browser as a known device of the account it signed in to.
    pub fn device_cookie(&self, device: &Secret) -> HeaderValue {
        self.site
            .cookie(DEVICE_COOKIE, &device.0, SESSION_LIFETIME.device_ms / 1000)
    }

    pub fn sign_out_cookie(&self) -> HeaderValue {
        self.site.cookie(SESSION_COOKIE, "", 0)
    }
}

/// Whether a response already sets a cookie of this name, so the visit leaves it alone.
pub fn sets_cookie(headers: &HeaderMap, value: &HeaderValue) -> bool {
    let name = value
        .to_str()
        .ok()
        .and_then(|v| v.split_once('='))
        .map(|(n, _)| n);
    headers.get_all(header::SET_COOKIE).iter().any(|v| {
        v.to_str()
            .ok()
            .and_then(|v| v.split_once('='))
            .map(|(n, _)| n)
            == name
    })
}

/// A form post that passed the checks: from this site, with the visitor's token.
pub struct PostForm {
    pub visitor: Visitor,
    fields: Vec<(String, String)>,
}

impl FromRequest<AppState> for PostForm {
    type Rejection = Problem;

    async fn from_request(request: Request, _state: &AppState) -> Result<Self, Problem> {
        let visitor = request
            .extensions()
            .get::<Visitor>()
            .cloned()
            .ok_or_else(Problem::internal)?;
        visitor.site.check_origin(request.headers())?;
        let content_type = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let mime = content_type.split(';').next().unwrap_or("").trim();
        if !mime.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
            return Err(Problem::bad_request(
                "This address takes a form sent from its own page. Go back, reload the page and send the form from there.",
            ));
        }
        let bytes = axum::body::to_bytes(request.into_body(), MAX_FORM_BYTES)
            .await
            .map_err(|_| {
                Problem::bad_request(format!(
                    "The form is larger than {} KiB. Shorten what you typed and send it again.",
                    MAX_FORM_BYTES / 1024
                ))
            })?;
        let mut fields: Vec<(String, String)> = Vec::new();
        for (name, value) in form_urlencoded::parse(&bytes) {
            if fields.iter().any(|(n, _)| *n == name) {
                return Err(Problem::bad_request(format!(
                    "The form sent the field {:?} twice. Reload the page and send the form again.",
                    svc_model::ids::truncate(&name, 40)
                )));
            }
            fields.push((name.into_owned(), value.into_owned()));
        }
        let form = PostForm { visitor, fields };
        let token = form.field("csrf");
        let expected = form.visitor.csrf_token();
        if bool::from(token.as_bytes().ct_eq(expected.as_bytes())) {
            Ok(form)
        } else if form.visitor.session_ended {
            Err(Problem::SessionEnded)
        } else {
            Err(Problem::bad_token())
        }
    }
}

impl PostForm {
    /// A field's value; a field that was not sent is empty.
    pub fn field(&self, name: &str) -> &str {
        self.optional(name).unwrap_or("")
    }

    /// A field's value, or `None` when the form did not send it (an unticked checkbox, or a
    /// form that leaves that setting as it is).
    pub fn optional(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(headers: &[(&str, &str)], config: &WebConfig) -> Site {
        let mut map = HeaderMap::new();
        for (k, v) in headers {
            map.append(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        Site::of(&map, Some("192.0.2.7:5555".parse().unwrap()), config)
    }

    #[test]
    fn https_is_told_by_the_proxy_or_the_public_url() {
        let plain = WebConfig::default();
        assert!(!site(&[("host", "localhost:8787")], &plain).secure);
        assert!(site(&[("x-forwarded-proto", "https")], &plain).secure);
        let public = WebConfig {
            public_origin: Some("https://log.example.org".into()),
            ..WebConfig::default()
        };
        let s = site(&[("host", "10.0.0.1:8787")], &public);
        assert!(s.secure);
        assert_eq!(s.cookie_name("svc_session"), "__Host-svc_session");
        let cookie = s.cookie("svc_session", "X", 60);
        let cookie = cookie.to_str().unwrap();
        assert!(
            cookie.contains("; Secure") && cookie.contains("HttpOnly"),
            "{cookie}"
        );
    }

    #[test]
    fn origins_of_other_sites_are_refused() {
        let config = WebConfig::default();
        let s = site(&[("host", "localhost:8787")], &config);
        let check = |headers: &[(&str, &str)]| {
            let mut map = HeaderMap::new();
            for (k, v) in headers {
                map.append(
                    axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                    HeaderValue::from_str(v).unwrap(),
                );
            }
            s.check_origin(&map).is_ok()
        };
        assert!(check(&[]));
        assert!(check(&[("origin", "http://localhost:8787")]));
        assert!(check(&[("sec-fetch-site", "same-origin")]));
        assert!(!check(&[("origin", "http://evil.example")]));
        assert!(!check(&[("origin", "https://localhost:8787")]));
        assert!(!check(&[("origin", "null")]));
        assert!(check(&[
            ("origin", "null"),
            ("sec-fetch-site", "same-origin")
        ]));
        assert!(!check(&[
            ("origin", "null"),
            ("sec-fetch-site", "cross-site")
        ]));
        assert!(!check(&[
            ("origin", "http://evil.example"),
            ("sec-fetch-site", "same-origin")
        ]));
        assert!(!check(&[("sec-fetch-site", "cross-site")]));
        assert!(!check(&[("sec-fetch-site", "same-site")]));
    }

    #[test]
    fn the_client_address_is_the_peer_unless_a_trusted_proxy_names_it() {
        let plain = WebConfig::default();
        assert_eq!(
            site(&[("x-forwarded-for", "203.0.113.9")], &plain).client,
            "192.0.2.7"
        );
        let proxied = WebConfig {
            trust_proxy: true,
            ..WebConfig::default()
        };
        assert_eq!(
            site(&[("x-forwarded-for", "10.1.1.1, 203.0.113.9")], &proxied).client,
            "203.0.113.9"
        );
        assert_eq!(
            site(&[("x-forwarded-for", "2001:db8:1:2:3:4:5:6")], &proxied).client,
            "2001:db8:1:2::/64"
        );
    }

    #[test]
    fn tokens_are_bound_to_their_secret_and_never_the_secret_itself() {
        let a = Secret::generate();
        let b = Secret::generate();
        assert_ne!(a.csrf_token(), b.csrf_token());
        assert_eq!(a.csrf_token(), a.csrf_token());
        assert_ne!(a.csrf_token(), a.0);
        assert!(Secret::parse(&a.0).is_some());
        assert!(Secret::parse("short").is_none());
        assert!(!format!("{a:?}").contains(&a.0));
    }
}
