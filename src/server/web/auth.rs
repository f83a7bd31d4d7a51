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
use super::{Layout, Nav, Notice, Problem, SIGNIN_LIMIT, respond, see_other};
use crate::model::callsign::normalize_callsign;
use crate::model::ids::random_bytes;
use crate::model::{ErrorCode, Plan, Timestamp};
use crate::server::AppState;
use crate::store::{SigninAttempt, StoreError};

const MIN_PASSWORD_CHARS: usize = 8;
const MAX_PASSWORD_CHARS: usize = 1024;

/// Where a sign-in may lead: our own pages only, never an address from the query.
fn destination(next: &str) -> &'static str {
    match next {
        "/account" => "/account",
        "/logbooks" => "/logbooks",
        _ => "/keys",
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

pub async fn signup_form(Extension(visitor): Extension<Visitor>) -> Response {
    if visitor.account.is_some() {
        return see_other("/keys");
    }
    signup_page(&visitor, "", None, StatusCode::OK)
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

/// Checks a password on a blocking thread (Argon2 takes tens of milliseconds of CPU).
async fn password_matches(password: String, stored: Option<String>) -> bool {
    tokio::task::spawn_blocking(move || {
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
    .unwrap_or(false)
}

async fn hash_password(password: String) -> Result<String, Problem> {
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(password.as_bytes())
            .map(|h| h.to_string())
    })
    .await
    .map_err(|_| Problem::internal())?
    .map_err(|e| {
        tracing::error!(error = %e, "hashing a password failed");
        Problem::internal()
    })
}

/// Starts a session for the account and sends the visitor on to `to`, signed in.
async fn start_session(
    state: &AppState,
    visitor: &Visitor,
    account_id: &str,
    to: &str,
) -> Result<Response, Problem> {
    let session = Secret::generate();
    state
        .store
        .create_session(session.hash(), account_id, Timestamp::now())
        .await?;
    let mut response = see_other(to);
    for cookie in visitor.sign_in_cookies(&session) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    Ok(response)
}

fn minutes(secs: u64) -> String {
    match secs.div_ceil(60) {
        1 => "a minute".to_owned(),
        n => format!("{n} minutes"),
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
    let scopes = [
        format!("callsign:{callsign}"),
        format!("address:{}", visitor.site.client),
    ];
    let now = Timestamp::now();
    if let SigninAttempt::Limited { retry_after_secs } =
        state.store.begin_signin(&scopes, SIGNIN_LIMIT, now).await?
    {
        return Err(Problem::Page {
            status: StatusCode::TOO_MANY_REQUESTS,
            title: "Too many failed sign-ins",
            message: format!(
                "There were {} failed sign-ins for this callsign or from your address within {} minutes, so signing in is paused. Wait {} and try again; nothing else is needed.",
                SIGNIN_LIMIT.max_failures,
                SIGNIN_LIMIT.window_ms / 60_000,
                minutes(retry_after_secs)
            ),
            retry_after: Some(retry_after_secs),
        });
    }
    let (account, stored) = match state.store.account_credentials(&callsign).await? {
        Some((account, hash)) => (Some(account), hash),
        None => (None, None),
    };
    let matches = password_matches(password.to_owned(), stored).await;
    let Some(account) = account.filter(|_| matches) else {
        return Ok(refuse(
            "The callsign or the password is wrong. Check both and try again.",
        ));
    };
    if let Err(e) = state.store.signin_succeeded(&scopes).await {
        tracing::warn!(error = %e, "a successful sign-in stays counted as a failure");
    }
    start_session(&state, visitor, &account.id, next).await
}

/// A model error message as a sentence of a page.
fn capitalized(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

pub async fn signup(State(state): State<AppState>, form: PostForm) -> Result<Response, Problem> {
    let visitor = &form.visitor;
    if visitor.account.is_some() {
        return Ok(see_other("/keys"));
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
    let hash = hash_password(password.to_owned()).await?;
    let account = match state
        .store
        .create_account(&callsign, Plan::Free, Some(&hash))
        .await
    {
        Ok(account) => account,
        Err(StoreError::Api(e)) if e.code == ErrorCode::ValidationError => {
            return Ok(refuse(&format!(
                "There is an account for {callsign} already. Sign in to it, or sign up with your own callsign."
            )));
        }
        Err(e) => return Err(e.into()),
    };
    start_session(&state, visitor, &account.id, "/keys").await
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
        for other in [
            "",
            "/keys",
            "https://evil.example",
            "//evil.example",
            "/account/x",
        ] {
            assert_eq!(destination(other), "/keys", "{other}");
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
            assert!(password_matches("correct horse".into(), Some(real.clone())).await);
            assert!(!password_matches("wrong horse".into(), Some(real)).await);
            assert!(!password_matches("correct horse".into(), None).await);
        });
        assert!(stand_in_hash().starts_with("$argon2id$"));
    }

    #[test]
    fn waits_are_told_in_minutes() {
        assert_eq!(minutes(1), "a minute");
        assert_eq!(minutes(60), "a minute");
        assert_eq!(minutes(61), "2 minutes");
        assert_eq!(minutes(900), "15 minutes");
    }
}
