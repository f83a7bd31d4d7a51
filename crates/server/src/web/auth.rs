//! Sign up, sign in and sign out.
//!
//! A failed sign-in says the same for an unknown callsign and a wrong password, and takes the
//! same steps for both (an unknown callsign is checked against a stand-in hash), so neither the
//! page nor its timing tells whether an account exists.

use std::sync::OnceLock;

use argon2::{Argon2, PasswordHasher, PasswordVerifier};
use askama::Template;
use axum::Extension;
use axum::extract::{RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::Response;

use super::session::{PostForm, Secret, Visitor};
use super::{
    Layout, Nav, Notice, Problem, SESSION_LIFETIME, SIGNIN_LIMIT, SIGNUP_LIMIT, respond, see_other,
    server_signup_limit,
};
use crate::AppState;
use crate::hashing;
use svc_model::callsign::normalize_callsign;
use svc_model::ids::{base32, random_bytes};
use svc_model::{ErrorCode, Timestamp};
use svc_store::{CountedAttempt, SigninAttempt, SigninScope, StoreError};

const MIN_PASSWORD_CHARS: usize = 8;
const MAX_PASSWORD_CHARS: usize = 1024;

/// The scope that counts the sign-ups of the whole server.
const SERVER_SIGNUPS: &str = "signup-server";

/// Where a sign-in may lead: our own pages only, never an address from the query.
fn destination(next: &str) -> &'static str {
    match next {
        "/account" => "/account",
        "/activations" => "/activations",
        "/awards" => "/awards",
        "/charts" => "/charts",
        "/logbooks" => "/logbooks",
        "/map" => "/map",
        "/keys" => "/keys",
        _ => "/log",
    }
}

/// The values of the query that the sign-in page understands; anything else is ignored.
fn query_value(query: Option<&str>, name: &str) -> String {
    form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

#[derive(Template)]
#[template(path = "signin.html")]
struct SigninPage<'a> {
    layout: Layout<'a>,
    next: &'static str,
    callsign: &'a str,
}

#[derive(Template)]
#[template(path = "signup.html")]
struct SignupPage<'a> {
    layout: Layout<'a>,
    callsign: &'a str,
}

fn signin_page(
    visitor: &Visitor,
    callsign: &str,
    next: &str,
    notice: Option<Notice>,
    status: StatusCode,
) -> Response {
    let page = SigninPage {
        layout: Layout::new(visitor, "Sign in", Nav::SignIn).notice(notice),
        next: destination(next),
        callsign,
    };
    respond(status, &page)
}

fn signup_page(
    visitor: &Visitor,
    callsign: &str,
    notice: Option<Notice>,
    status: StatusCode,
) -> Response {
    let page = SignupPage {
        layout: Layout::new(visitor, "Create an account", Nav::SignUp).notice(notice),
        callsign,
    };
    respond(status, &page)
}

pub async fn signin_form(
    Extension(visitor): Extension<Visitor>,
    RawQuery(query): RawQuery,
) -> Response {
    let next = query_value(query.as_deref(), "next");
    if visitor.account.is_some() {
        return see_other(destination(&next));
    }
    let notice = match query_value(query.as_deref(), "notice").as_str() {
        "expired" => Some(Notice::Info(
            "Your session has ended. Sign in again to go on.",
        )),
        "signed-out" => Some(Notice::Info("You are signed out.")),
        _ => None,
    };
    signin_page(&visitor, "", &next, notice, StatusCode::OK)
}

pub async fn signup_form(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
) -> Result<Response, Problem> {
    if visitor.account.is_some() {
        return Ok(see_other("/log"));
    }
    if state.web.signups_per_hour == 0 {
        return Err(signups_closed());
    }
    Ok(signup_page(&visitor, "", None, StatusCode::OK))
}

/// What the sign-up page says on a server started with `--signup-limit 0`.
fn signups_closed() -> Problem {
    Problem::Page {
        status: StatusCode::FORBIDDEN,
        title: "Sign-ups are closed",
        message: "This server makes no accounts on its sign-up page. Ask the service's operator for an account; if you have one, sign in.".to_owned(),
        retry_after: None,
    }
}

/// A stand-in hash, made with the same parameters as real ones, that unknown callsigns are
/// checked against.
fn stand_in_hash() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| {
        Argon2::default()
            .hash_password(&random_bytes::<32>())
            .map(|h| h.to_string())
            .unwrap_or_default()
    })
}

/// What a visitor is told when the hashing pool is full.
fn busy() -> Problem {
    Problem::Page {
        status: StatusCode::TOO_MANY_REQUESTS,
        title: "The server is busy",
        message: "Many sign-ins and sign-ups are being checked at this moment. Wait a few seconds and send the form again; nothing was changed.".to_owned(),
        retry_after: Some(BUSY_RETRY_SECS),
    }
}

const BUSY_RETRY_SECS: u64 = 2;

fn refused(refusal: hashing::Refused) -> Problem {
    match refusal {
        hashing::Refused::Busy => busy(),
        hashing::Refused::Failed => Problem::internal(),
    }
}

/// Checks a password on the hashing pool.
async fn password_matches(
    admitted: hashing::Admitted,
    password: String,
    stored: Option<String>,
) -> Result<bool, Problem> {
    admitted
        .run(move || {
            let argon = Argon2::default();
            match stored {
                Some(hash) => argon
                    .verify_password(password.as_bytes(), hash.as_str())
                    .is_ok(),
                None => {
                    let _ = argon.verify_password(password.as_bytes(), stand_in_hash());
                    false
                }
            }
        })
        .await
        .map_err(refused)
}

async fn hash_password(admitted: hashing::Admitted, password: String) -> Result<String, Problem> {
    admitted
        .run(move || {
            Argon2::default()
                .hash_password(password.as_bytes())
                .map(|h| h.to_string())
        })
        .await
        .map_err(refused)?
        .map_err(|e| {
            tracing::error!(error = %e, "hashing a password failed");
            Problem::internal()
        })
}

/// Starts a session for the account and sends the visitor on to `to`, signed in. A browser
/// that was not yet a known device of the account becomes one.
async fn start_session(
    state: &AppState,
    visitor: &Visitor,
    account_id: &str,
    known_device: bool,
    to: &str,
) -> Result<Response, Problem> {
    let session = Secret::generate();
    let now = Timestamp::now();
    state
        .store
        .create_session(session.hash(), account_id, now)
        .await?;
    let mut response = see_other(to);
    for cookie in visitor.sign_in_cookies(&session) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    if !known_device {
        let device = Secret::generate();
        state
            .store
            .remember_device(device.hash(), account_id, now)
            .await?;
        response
            .headers_mut()
            .append(header::SET_COOKIE, visitor.device_cookie(&device));
    }
    Ok(response)
}

/// Whether the visitor's device cookie was set by a sign-in to this account.
async fn is_known_device(
    state: &AppState,
    visitor: &Visitor,
    account_id: Option<&str>,
    now: Timestamp,
) -> Result<bool, Problem> {
    let (Some(device), Some(account_id)) = (&visitor.device, account_id) else {
        return Ok(false);
    };
    let remembered = state
        .store
        .device_account(device.hash(), now, SESSION_LIFETIME)
        .await?;
    Ok(remembered.as_deref() == Some(account_id))
}

/// The counters a sign-in attempt is held to. A known device answers for itself alone, so no
/// one else's failures keep the owner out; otherwise the address counts, and the callsign too,
/// whichever address the attempt comes from, so that fresh addresses cannot add guesses at a
/// callsign.
fn signin_scopes(visitor: &Visitor, callsign: &str, known_device: bool) -> Vec<SigninScope> {
    let scope = |scope: String| SigninScope {
        scope,
        limit: SIGNIN_LIMIT,
    };
    if known_device && let Some(device) = &visitor.device {
        return vec![scope(format!("device:{}", base32(&device.hash())))];
    }
    vec![
        scope(format!("address:{}", visitor.site.client)),
        scope(format!("callsign:{callsign}")),
    ]
}

/// A wait in words: seconds under a minute, else whole minutes (rounded up).
fn how_long(secs: u64) -> String {
    match secs {
        0 | 1 => "a second".to_owned(),
        2..60 => format!("{secs} seconds"),
        _ => match secs.div_ceil(60) {
            1 => "a minute".to_owned(),
            n => format!("{n} minutes"),
        },
    }
}

pub async fn signin(State(state): State<AppState>, form: PostForm) -> Result<Response, Problem> {
    let visitor = &form.visitor;
    let next = destination(form.field("next"));
    if visitor.account.is_some() {
        return Ok(see_other(next));
    }
    let entered = form.field("callsign");
    let refuse = |message: &str| {
        signin_page(
            visitor,
            entered,
            next,
            Some(Notice::Error(message.to_owned())),
            StatusCode::BAD_REQUEST,
        )
    };
    if entered.trim().is_empty() {
        return Ok(refuse("Enter your callsign."));
    }
    let callsign = match normalize_callsign("callsign", entered) {
        Ok(c) => c,
        Err(e) => return Ok(refuse(&capitalized(&e.message))),
    };
    let password = form.field("password");
    if password.is_empty() {
        return Ok(refuse("Enter your password."));
    }
    let now = Timestamp::now();
    let (account, stored) = match state.store.account_credentials(&callsign).await? {
        Some((account, hash)) => (Some(account), hash),
        None => (None, None),
    };
    let known_device = is_known_device(
        &state,
        visitor,
        account.as_ref().map(|a| a.id.as_str()),
        now,
    )
    .await?;
    let scopes = signin_scopes(visitor, &callsign, known_device);
    // A place to check the password in first: an attempt the pool is too busy for is no
    // failure, and counted nowhere.
    let admitted = hashing::admit().map_err(refused)?;
    let counted = match state.store.begin_signin(&scopes, now).await? {
        SigninAttempt::Allowed(counted) => counted,
        SigninAttempt::Limited {
            retry_after_secs, ..
        } => {
            return Err(Problem::Page {
                status: StatusCode::TOO_MANY_REQUESTS,
                title: "Too many failed sign-ins",
                message: format!(
                    "Sign-ins for this callsign or from your address have failed several times, so each further try has to wait, a little longer each time (never more than {} minutes). Wait {} and try again; a browser you signed in with before is let in meanwhile.",
                    SIGNIN_LIMIT.window_ms / 60_000,
                    how_long(retry_after_secs)
                ),
                retry_after: Some(retry_after_secs),
            });
        }
    };
    let matches = match password_matches(admitted, password.to_owned(), stored).await {
        Ok(matches) => matches,
        Err(problem) => {
            // Not checked, so not a failure.
            forgive(&state, &counted).await;
            return Err(problem);
        }
    };
    let Some(account) = account.filter(|_| matches) else {
        return Ok(refuse(
            "The callsign or the password is wrong. Check both and try again.",
        ));
    };
    forgive(&state, &counted).await;
    // Said only to whoever knows the password.
    if account.disabled_at.is_some() {
        return Ok(refuse(
            "This account was disabled by the service's operator. Ask them to enable it.",
        ));
    }
    start_session(&state, visitor, &account.id, known_device, next).await
}

/// Takes back an attempt counted as a failure that was not one.
async fn forgive(state: &AppState, counted: &CountedAttempt) {
    if let Err(e) = state.store.signin_succeeded(counted).await {
        tracing::warn!(error = %e, "a sign-in attempt stays counted as a failure");
    }
}

/// A model error message as a sentence of a page.
pub(super) fn capitalized(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

pub async fn signup(State(state): State<AppState>, form: PostForm) -> Result<Response, Problem> {
    let visitor = &form.visitor;
    if visitor.account.is_some() {
        return Ok(see_other("/log"));
    }
    if state.web.signups_per_hour == 0 {
        return Err(signups_closed());
    }
    let entered = form.field("callsign");
    let refuse = |message: &str| {
        signup_page(
            visitor,
            entered,
            Some(Notice::Error(message.to_owned())),
            StatusCode::BAD_REQUEST,
        )
    };
    if entered.trim().is_empty() {
        return Ok(refuse("Enter your callsign, e.g. W1AW."));
    }
    let callsign = match normalize_callsign("callsign", entered) {
        Ok(c) => c,
        Err(e) => return Ok(refuse(&capitalized(&e.message))),
    };
    let password = form.field("password");
    let length = password.chars().count();
    if length < MIN_PASSWORD_CHARS {
        return Ok(refuse(&format!(
            "The password must have at least {MIN_PASSWORD_CHARS} characters; choose a longer one."
        )));
    }
    if length > MAX_PASSWORD_CHARS {
        return Ok(refuse(&format!(
            "The password must have at most {MAX_PASSWORD_CHARS} characters; choose a shorter one."
        )));
    }
    if form.field("confirm") != password {
        return Ok(refuse(
            "The two passwords differ. Type the same password in both fields.",
        ));
    }
    // A taken callsign is refused before any hashing, and attempts are counted before it.
    let taken = || {
        refuse(&format!(
            "There is an account for {callsign} already. Sign in to it, or sign up with your own callsign."
        ))
    };
    if state.store.account_by_callsign(&callsign).await?.is_some() {
        return Ok(taken());
    }
    // A place to hash the password in first: a sign-up the pool is too busy for is turned
    // away before it counts against any limit, the server's hourly budget included.
    let admitted = hashing::admit().map_err(refused)?;
    // Counted per address and per callsign, and for the whole server, in one transaction: a
    // sign-up refused by one counts in none.
    let scopes = [
        SigninScope {
            scope: format!("signup-address:{}", visitor.site.client),
            limit: SIGNUP_LIMIT,
        },
        SigninScope {
            scope: format!("signup-callsign:{callsign}"),
            limit: SIGNUP_LIMIT,
        },
        SigninScope {
            scope: SERVER_SIGNUPS.to_owned(),
            limit: server_signup_limit(state.web.signups_per_hour),
        },
    ];
    let counted = match state.store.begin_signin(&scopes, Timestamp::now()).await? {
        SigninAttempt::Allowed(counted) => counted,
        SigninAttempt::Limited {
            scope,
            retry_after_secs,
        } => {
            let message = if scopes.get(scope).map(|s| s.scope.as_str()) == Some(SERVER_SIGNUPS) {
                format!(
                    "Too many sign-ups on this server: it makes {} accounts an hour at most, from everyone together. Wait {} and try again.",
                    state.web.signups_per_hour,
                    how_long(retry_after_secs)
                )
            } else {
                format!(
                    "There were {} sign-ups from your address or for this callsign within {} minutes. Wait {} and try again.",
                    SIGNUP_LIMIT.max_failures,
                    SIGNUP_LIMIT.window_ms / 60_000,
                    how_long(retry_after_secs)
                )
            };
            return Err(Problem::Page {
                status: StatusCode::TOO_MANY_REQUESTS,
                title: "Too many sign-ups",
                message,
                retry_after: Some(retry_after_secs),
            });
        }
    };
    let hash = match hash_password(admitted, password.to_owned()).await {
        Ok(hash) => hash,
        Err(problem) => {
            forgive(&state, &counted).await;
            return Err(problem);
        }
    };
    let account = match state
        .store
        .create_account(&callsign, state.web.signup_plan, Some(&hash))
        .await
    {
        Ok(account) => account,
        Err(StoreError::Api(e)) if e.code == ErrorCode::ValidationError => return Ok(taken()),
        Err(e) => return Err(e.into()),
    };
    start_session(&state, visitor, &account.id, false, "/keys").await
}

pub async fn signout(State(state): State<AppState>, form: PostForm) -> Result<Response, Problem> {
    let Some(session) = form.visitor.session() else {
        return Ok(see_other("/signin"));
    };
    state.store.delete_session(session.hash()).await?;
    let mut response = see_other("/signin?notice=signed-out");
    response
        .headers_mut()
        .append(header::SET_COOKIE, form.visitor.sign_out_cookie());
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_in_leads_only_to_our_pages() {
        assert_eq!(destination("/account"), "/account");
        assert_eq!(destination("/activations"), "/activations");
        assert_eq!(destination("/keys"), "/keys");
        assert_eq!(destination("/map"), "/map");
        assert_eq!(destination("/awards"), "/awards");
        assert_eq!(destination("/charts"), "/charts");
        for other in [
            "",
            "/log",
            "https://evil.example",
            "//evil.example",
            "/account/x",
        ] {
            assert_eq!(destination(other), "/log", "{other}");
        }
    }

    #[test]
    fn an_unknown_account_is_checked_against_the_stand_in() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let real = Argon2::default()
            .hash_password(b"correct horse")
            .unwrap()
            .to_string();
        runtime.block_on(async {
            let check = |password: &str, stored: Option<String>| {
                password_matches(hashing::admit().unwrap(), password.to_owned(), stored)
            };
            assert!(check("correct horse", Some(real.clone())).await.unwrap());
            assert!(!check("wrong horse", Some(real)).await.unwrap());
            assert!(!check("correct horse", None).await.unwrap());
        });
        assert!(stand_in_hash().starts_with("$argon2id$"));
    }

    #[test]
    fn waits_are_told_in_seconds_then_minutes() {
        assert_eq!(how_long(1), "a second");
        assert_eq!(how_long(2), "2 seconds");
        assert_eq!(how_long(59), "59 seconds");
        assert_eq!(how_long(60), "a minute");
        assert_eq!(how_long(61), "2 minutes");
        assert_eq!(how_long(900), "15 minutes");
    }
}
