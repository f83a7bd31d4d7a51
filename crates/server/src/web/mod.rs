//! The web pages: sign up, sign in and out, the account's log, its activations, its pictures
//! (the map, the award matrices, the charts), its API keys (generate
//! with the one-time reveal, revoke), its external logbooks and the account. Server-rendered
//! HTML from the askama templates in `assets/` (checked when the crate compiles, every value
//! escaped), served by the same router as the API but with their own middleware: HTML error
//! pages instead of the JSON envelope, security headers, and the visitor's session looked up on
//! every request.

mod account;
mod activation;
mod activations;
mod auth;
mod awards;
mod charts;
mod contact;
mod html;
mod keys;
mod log;
mod logbooks;
mod map;
mod rows;
mod session;
mod stations;
mod svg;

use askama::Template;
use axum::Router;
use std::net::SocketAddr;
use svc_model::Plan;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use tower_http::catch_panic::CatchPanicLayer;

use super::AppState;
use crate::error::{RequestId, WebResponse};
use session::Visitor;
use svc_store::{SessionLifetime, SigninLimit, StoreError};

/// A session ends 12 hours after its last request, and 7 days after sign-in in any case.
/// A browser that signed in is a known device of the account for a year.
pub const SESSION_LIFETIME: SessionLifetime = SessionLifetime {
    idle_ms: 12 * 3600 * 1000,
    absolute_ms: 7 * 24 * 3600 * 1000,
    device_ms: 365 * 24 * 3600 * 1000,
};

/// Failed sign-ins per callsign, per client address and per known device (docs/API.md, "Sign-in
/// limits"): in a window of 15 minutes the first 5 are free, then each further attempt waits
/// 1 s, 2 s, 4 s, … after the one before, so that a neighbour behind the same address is held
/// up for seconds rather than locked out, while guessing slows to a few tries a window.
pub const SIGNIN_LIMIT: SigninLimit = SigninLimit {
    max_failures: 5,
    window_ms: 15 * 60 * 1000,
    first_delay_ms: Some(1000),
};

/// Accounts that may be made per client address, and attempts per callsign, in the same window;
/// then none until it ends.
pub const SIGNUP_LIMIT: SigninLimit = SigninLimit {
    max_failures: 10,
    window_ms: SIGNIN_LIMIT.window_ms,
    first_delay_ms: None,
};

/// Accounts the sign-up page makes per hour for the whole server by default (`--signup-limit`).
/// Well above what a club or a hobby service sees, and above what one address may make in an
/// hour (4 windows of 10), so that one address alone cannot close sign-ups for everyone else,
/// while a spread-out flood of accounts stops at 1,440 a day.
pub const DEFAULT_SIGNUPS_PER_HOUR: u32 = 60;

/// The server-wide sign-up limit: `per_hour` accounts in a window of an hour, then none until
/// it ends.
pub fn server_signup_limit(per_hour: u32) -> SigninLimit {
    SigninLimit {
        max_failures: i64::from(per_hour),
        window_ms: SERVER_SIGNUP_WINDOW_MS,
        first_delay_ms: None,
    }
}

const SERVER_SIGNUP_WINDOW_MS: i64 = 60 * 60 * 1000;

/// How long sign-in counters are kept from the start of their window: the longest window of
/// the limits above, so that none is deleted while it still counts.
pub const COUNTERS_KEPT_MS: i64 = SERVER_SIGNUP_WINDOW_MS;
const _: () = assert!(
    COUNTERS_KEPT_MS >= SIGNIN_LIMIT.window_ms && COUNTERS_KEPT_MS >= SIGNUP_LIMIT.window_ms
);

/// How long the reveal dialog shows a new key (docs/API.md, "Web pages").
pub const REVEAL_MS: i64 = 90_000;

/// How the service is reached, for cookies and the origin check of form posts, and what its
/// sign-up page takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebConfig {
    /// `scheme://host[:port]` of `--public-url`; with `https` cookies are always `Secure`.
    pub public_origin: Option<String>,
    /// Take the client address from `X-Forwarded-For` (set only behind a reverse proxy).
    pub trust_proxy: bool,
    /// The plan of an account made on the sign-up page (`--default-plan`).
    pub signup_plan: Plan,
    /// Accounts the sign-up page makes per hour for the whole server (`--signup-limit`); 0
    /// closes it.
    pub signups_per_hour: u32,
}

impl Default for WebConfig {
    fn default() -> WebConfig {
        WebConfig {
            public_origin: None,
            trust_proxy: false,
            signup_plan: Plan::default(),
            signups_per_hour: DEFAULT_SIGNUPS_PER_HOUR,
        }
    }
}

impl WebConfig {
    /// Reads `--public-url`: an `http` or `https` URL with a host and no path.
    pub fn with_public_url(mut self, url: &str) -> Result<WebConfig, String> {
        let bad = |why: &str| {
            format!(
                "--public-url {url:?} {why}; give the address users open, e.g. https://log.example.org"
            )
        };
        let parsed = reqwest::Url::parse(url).map_err(|e| bad(&format!("is not a URL ({e})")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(bad("must start with http:// or https://"));
        }
        if parsed.host_str().is_none() {
            return Err(bad("has no host"));
        }
        if parsed.path() != "/" || parsed.query().is_some() || parsed.fragment().is_some() {
            return Err(bad(
                "must not have a path, query or fragment: the pages are at its root",
            ));
        }
        self.public_origin = Some(parsed.origin().ascii_serialization());
        Ok(self)
    }
}

/// The pages and their assets, with the state they need.
pub fn pages(state: AppState) -> Router {
    let pages = Router::new()
        // Someone who opens the service's address in a browser wants their log.
        .route("/", get(|| async { see_other("/log") }))
        .route("/signup", get(auth::signup_form).post(auth::signup))
        .route("/signin", get(auth::signin_form).post(auth::signin))
        .route("/signout", axum::routing::post(auth::signout))
        .route("/keys", get(keys::list).post(keys::generate))
        .route(
            "/keys/{key_id}/revoke",
            get(keys::confirm_revoke).post(keys::revoke),
        )
        .route("/logbooks", get(logbooks::list).post(logbooks::connect))
        .route(
            "/logbooks/{logbook_id}",
            axum::routing::post(logbooks::change),
        )
        .route(
            "/logbooks/review/{qso_id}",
            axum::routing::post(logbooks::review),
        )
        .route(
            "/logbooks/{logbook_id}/disconnect",
            get(logbooks::confirm_disconnect).post(logbooks::disconnect),
        )
        .route("/log", get(log::list))
        .route("/log/export", get(log::export))
        .route("/log/{qso_id}", get(contact::show).post(contact::edit))
        .route(
            "/log/{qso_id}/delete",
            get(contact::confirm_delete).post(contact::delete),
        )
        .route("/activations", get(activations::list))
        .route("/activations/{folder_id}", get(activation::show))
        .route(
            "/activations/{folder_id}/pota/{park}",
            get(activation::pota_file),
        )
        .route("/map", get(map::show))
        .route("/awards", get(awards::show))
        .route("/charts", get(charts::show))
        .route("/account", get(account::show))
        .route("/account/stations", axum::routing::post(stations::put))
        .route(
            "/account/stations/delete",
            axum::routing::post(stations::delete),
        )
        .layer(CatchPanicLayer::custom(|_| {
            Problem::internal().into_response()
        }))
        .layer(axum::middleware::from_fn_with_state(state.clone(), visit));
    let assets = Router::new()
        .route("/assets/web.css", get(stylesheet))
        .route("/assets/keys.js", get(script))
        .layer(axum::middleware::from_fn(asset_headers));
    pages.merge(assets).with_state(state)
}

/// What went wrong on a page: an error page with a status and a message that says what to do,
/// or a session that has ended, which sends the visitor to sign in.
#[derive(Debug, Clone)]
pub enum Problem {
    Page {
        status: StatusCode,
        title: &'static str,
        message: String,
        retry_after: Option<u64>,
    },
    SessionEnded,
}

impl Problem {
    fn page(status: StatusCode, title: &'static str, message: impl Into<String>) -> Problem {
        Problem::Page {
            status,
            title,
            message: message.into(),
            retry_after: None,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Problem {
        Problem::page(
            StatusCode::BAD_REQUEST,
            "The request was not understood",
            message,
        )
    }

    pub fn not_found(message: impl Into<String>) -> Problem {
        Problem::page(StatusCode::NOT_FOUND, "Not found", message)
    }

    pub fn foreign_origin() -> Problem {
        Problem::page(
            StatusCode::FORBIDDEN,
            "The form was refused",
            "The form was sent from another site, so it was refused and nothing was changed. Open this site's own page and send the form from there.",
        )
    }

    pub fn bad_token() -> Problem {
        Problem::page(
            StatusCode::FORBIDDEN,
            "The form was refused",
            "The form has expired or did not come from this site's own page, so nothing was changed. Go back, reload the page and send the form again (signing in needs cookies to be allowed for this site).",
        )
    }

    pub fn internal() -> Problem {
        Problem::page(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Something went wrong",
            "The server could not finish this request. Try again in a moment; if it keeps happening, tell the service's operator the request id below.",
        )
    }
}

impl From<StoreError> for Problem {
    fn from(e: StoreError) -> Problem {
        match e {
            StoreError::Api(e) => Problem::bad_request(e.message),
            StoreError::Db(e) => {
                tracing::error!(error = %e, "database failure");
                Problem::internal()
            }
        }
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        match self {
            Problem::SessionEnded => see_other("/signin?notice=expired"),
            Problem::Page { status, .. } => {
                let mut response = status.into_response();
                response.extensions_mut().insert(self);
                response
            }
        }
    }
}

/// `303 See Other` to a path of ours: after a form post, the browser GETs it.
pub fn see_other(path: &str) -> Response {
    Redirect::to(path).into_response()
}

/// Sends a signed-out visitor to sign in, and back to `next` after.
pub fn sign_in_first(visitor: &Visitor, next: &str) -> Response {
    let ended = if visitor.session_ended {
        "&notice=expired"
    } else {
        ""
    };
    see_other(&format!("/signin?next={next}{ended}"))
}

/// A one-line message at the top of a page (`notice.html`).
#[derive(Debug, Clone)]
pub enum Notice {
    Info(&'static str),
    /// What was wrong with what was sent, and what to do.
    Error(String),
    KeyGenerated {
        name: String,
        prefix: String,
        tier: &'static str,
    },
    KeyRevoked {
        name: String,
        prefix: String,
    },
    /// `provider` as the page names it; `key` what names the book's login: `key …7788` for
    /// QRZ, `account op@example.org` for Club Log (nothing of a password is ever shown).
    LogbookConnected {
        provider: &'static str,
        callsign: String,
        key: String,
    },
    LogbookChanged {
        provider: &'static str,
        callsign: String,
        key: String,
    },
}

/// Which navigation link names the page shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nav {
    Log,
    Activations,
    Map,
    Awards,
    Charts,
    Keys,
    Logbooks,
    Account,
    SignIn,
    SignUp,
    None,
}

/// What `layout.html` shows around every page's content; each page's template struct has one
/// as `layout`.
pub struct Layout<'a> {
    title: &'static str,
    nav: Nav,
    /// The signed-in visitor's, for the sign-out button.
    callsign: Option<&'a str>,
    /// The token of every form on the page, the sign-out button's too.
    csrf: String,
    notice: Option<Notice>,
}

impl<'a> Layout<'a> {
    pub fn new(visitor: &'a Visitor, title: &'static str, nav: Nav) -> Layout<'a> {
        Layout {
            title,
            nav,
            callsign: visitor.account.as_ref().map(|a| a.callsign.as_str()),
            csrf: visitor.csrf_token(),
            notice: None,
        }
    }

    pub fn notice(mut self, notice: Option<Notice>) -> Layout<'a> {
        self.notice = notice;
        self
    }
}

/// A page to send, with this status.
pub fn respond(status: StatusCode, page: &impl Template) -> Response {
    match page.render() {
        Ok(body) => (
            status,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            body,
        )
            .into_response(),
        // Only a value whose Display fails can fail a render, and none of ours does; should
        // one, the visit shows the error page instead of half a page.
        Err(e) => {
            tracing::error!(error = %e, "a page could not be rendered");
            Problem::internal().into_response()
        }
    }
}

/// Every page request: find the visitor, run the page, render a problem as an error page,
/// set the visit's cookies and the security headers.
async fn visit(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let request_id = request
        .extensions()
        .get::<RequestId>()
        .map(|r| r.0.clone())
        .unwrap_or_default();
    let method = request.method().clone();
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0);
    // A copy, because the request (its body) cannot be held across the lookup.
    let headers = request.headers().clone();
    let visitor = match Visitor::of(&state, &headers, peer).await {
        Ok(v) => v,
        Err(problem) => {
            let site = session::Site::of(&headers, peer, &state.web);
            let anonymous = Visitor::anonymous(site);
            return finish(problem_page(problem, &anonymous, &request_id), None);
        }
    };
    request.extensions_mut().insert(visitor.clone());
    let mut response = next.run(request).await;
    if let Some(problem) = response.extensions_mut().remove::<Problem>() {
        response = problem_page(problem, &visitor, &request_id);
    } else if response.status() == StatusCode::METHOD_NOT_ALLOWED {
        response = problem_page(
            Problem::page(
                StatusCode::METHOD_NOT_ALLOWED,
                "Not available",
                format!(
                    "This page cannot be used with {method}. Open it with a link or send its form."
                ),
            ),
            &visitor,
            &request_id,
        );
    } else if (response.status().is_client_error() || response.status().is_server_error())
        && !is_html(&response)
    {
        let status = response.status();
        response = problem_page(
            Problem::page(
                status,
                "The request was not understood",
                format!("The request could not be handled ({status}). Go back and try again."),
            ),
            &visitor,
            &request_id,
        );
    }
    finish(response, Some(&visitor))
}

/// A page of ours, as opposed to a bare status from the framework (a rejected extractor).
fn is_html(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/html"))
}

#[derive(Template)]
#[template(path = "problem.html")]
struct ProblemPage<'a> {
    layout: Layout<'a>,
    message: &'a str,
    request_id: &'a str,
}

fn problem_page(problem: Problem, visitor: &Visitor, request_id: &str) -> Response {
    let Problem::Page {
        status,
        title,
        message,
        retry_after,
    } = problem
    else {
        return problem.into_response();
    };
    let page = ProblemPage {
        layout: Layout::new(visitor, title, Nav::None),
        message: &message,
        request_id,
    };
    let mut response = respond(status, &page);
    if let Some(secs) = retry_after {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    response
}

/// What pages must not allow: scripts, styles or frames from elsewhere, inline script.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self'; connect-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

fn finish(mut response: Response, visitor: Option<&Visitor>) -> Response {
    if let Some(visitor) = visitor {
        for cookie in visitor.cookies() {
            if !session::sets_cookie(response.headers(), &cookie) {
                response.headers_mut().append(header::SET_COOKIE, cookie);
            }
        }
    }
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    // Pages carry session data (and once a new key): no cache may keep them.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response.extensions_mut().insert(WebResponse);
    response
}

async fn asset_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // Small files that change with the server: a cache asks again each time.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response.extensions_mut().insert(WebResponse);
    response
}

async fn stylesheet() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        include_str!("../../assets/web.css"),
    )
}

async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("../../assets/keys.js"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_public_url_must_be_an_origin() {
        let ok = WebConfig::default()
            .with_public_url("https://Log.Example.org/")
            .unwrap();
        assert_eq!(ok.public_origin.as_deref(), Some("https://log.example.org"));
        let port = WebConfig::default()
            .with_public_url("http://127.0.0.1:8080")
            .unwrap();
        assert_eq!(port.public_origin.as_deref(), Some("http://127.0.0.1:8080"));
        for bad in [
            "log.example.org",
            "ftp://x.org",
            "https://x.org/svc",
            "https://x.org/?a=1",
            "",
        ] {
            let e = WebConfig::default().with_public_url(bad).unwrap_err();
            assert!(e.contains("https://log.example.org"), "{bad}: {e}");
        }
    }
}
