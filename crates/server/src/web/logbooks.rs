//! The account's external logbooks (QRZ): each book's state and counts, its settings as
//! toggles, a new key, disconnecting, and connecting a book.
//!
//! The rules are the API's (`server::logbooks::connect`); this reads the forms and words the
//! answers for people. A session is the user's own, so the API's elevated-key rule has no
//! counterpart here. A QRZ key comes in a form and goes on only to QRZ and, sealed, to the
//! database: a page that refuses one never shows it again, and no page, redirect or log line
//! holds more of it than its last 4 characters.

use askama::Template;
use axum::Extension;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::html::When;
use super::session::{PostForm, Visitor};
use super::{Layout, Nav, Notice, Problem, respond, see_other, sign_in_first};
use crate::AppState;
use crate::logbooks::Logbooks;
use crate::logbooks::connect::{self, Changes, ClubLogLogin, EqslLogin, LogbookError, ProviderKey};
use svc_model::{IdKind, Logbook, Review};
use svc_store::{Account, LogbookRecord, ReviewSettled};

/// What the page shows of a logbook.
struct LogbookView<'a> {
    id: &'a str,
    provider: &'a str,
    callsign: &'a str,
    last4: &'a str,
    /// A Club Log book's account email, shown instead of any part of its password; `None`
    /// for QRZ.
    email: Option<&'a str>,
    /// An eQSL book, opened by a password like a Club Log one; its user name is its callsign.
    eqsl: bool,
    /// Why it is paused; `None` while it works.
    paused: Option<&'a str>,
    last_error: Option<&'a str>,
    waiting: i64,
    pushed: i64,
    failed: i64,
    auto_push: bool,
    auto_sync: bool,
    created: When,
}

impl<'a> From<&'a Logbook> for LogbookView<'a> {
    fn from(book: &'a Logbook) -> LogbookView<'a> {
        LogbookView {
            id: &book.id,
            provider: match book.provider.as_str() {
                "qrz" => "QRZ.com",
                "clublog" => "Club Log",
                "eqsl" => "eQSL.cc",
                other => other,
            },
            callsign: &book.callsign,
            last4: &book.key_last4,
            email: book.email.as_deref(),
            eqsl: book.provider == "eqsl",
            paused: (book.state == "paused").then(|| {
                book.paused_reason
                    .as_deref()
                    .unwrap_or("no reason was recorded")
            }),
            last_error: book.last_error.as_deref(),
            waiting: book.waiting,
            pushed: book.pushed,
            failed: book.failed,
            auto_push: book.auto_push,
            auto_sync: book.auto_sync,
            created: When::from(book.created_at),
        }
    }
}

/// A contact the automatic sync could not route.
struct ReviewView {
    id: String,
    time: When,
    callsign: String,
    station: String,
    why: &'static str,
}

impl From<&Review> for ReviewView {
    fn from(r: &Review) -> ReviewView {
        ReviewView {
            id: r.id.clone(),
            time: When::from(r.contact.time_on),
            callsign: r.contact.callsign.clone(),
            station: r
                .contact
                .station_callsign
                .clone()
                .unwrap_or_else(|| "your callsign".into()),
            why: if r.reason == "no_book" {
                "no synced logbook has its station callsign"
            } else {
                "several synced logbooks have its station callsign"
            },
        }
    }
}

/// The choices of the connect form; the key is never sent back.
struct ConnectForm {
    auto_push: bool,
    auto_sync: bool,
}

impl ConnectForm {
    /// As the API's defaults: push on, sync off.
    fn blank() -> ConnectForm {
        ConnectForm {
            auto_push: true,
            auto_sync: false,
        }
    }
}

#[derive(Template)]
#[template(path = "logbooks.html")]
struct LogbooksPage<'a> {
    layout: Layout<'a>,
    /// False when the service has no secret: the page says so and has no forms.
    enabled: bool,
    logbooks: Vec<LogbookView<'a>>,
    /// Contacts waiting for the user to pick a logbook or skip them.
    reviews: Vec<ReviewView>,
    form: ConnectForm,
}

#[derive(Template)]
#[template(path = "disconnect.html")]
struct DisconnectPage<'a> {
    layout: Layout<'a>,
    book: LogbookView<'a>,
}

const TITLE: &str = "Online logbooks: QRZ, Club Log, eQSL";

#[allow(clippy::too_many_arguments)]
fn logbooks_page(
    visitor: &Visitor,
    enabled: bool,
    records: &[LogbookRecord],
    reviews: &[Review],
    form: ConnectForm,
    notice: Option<Notice>,
    status: StatusCode,
) -> Response {
    let page = LogbooksPage {
        layout: Layout::new(visitor, TITLE, Nav::Logbooks).notice(notice),
        enabled,
        logbooks: records
            .iter()
            .map(|r| LogbookView::from(&r.logbook))
            .collect(),
        reviews: reviews.iter().map(ReviewView::from).collect(),
        form,
    };
    respond(status, &page)
}

fn not_enabled() -> Problem {
    Problem::not_found(
        "External logbooks are not enabled on this service, so nothing was changed: its operator turns them on by starting it with a secret (--secret-file).",
    )
}

/// The service's logbooks part, for a form post.
fn enabled(state: &AppState) -> Result<&Logbooks, Problem> {
    state.logbooks.as_deref().ok_or_else(not_enabled)
}

fn no_such_logbook(id: &str) -> Problem {
    Problem::not_found(format!(
        "Your account has no logbook {}. Pick the logbook from the list on the logbooks page.",
        svc_model::ids::truncate(id, 40)
    ))
}

/// What went wrong with a form, worded for the page: a status and a message for the form
/// shown again, or a problem that is a page of its own. `unchanged` says what did not happen.
fn refusal(e: LogbookError, unchanged: &str) -> Result<(StatusCode, String), Problem> {
    let (status, message) = match e {
        LogbookError::UnknownProvider(given) => (
            StatusCode::BAD_REQUEST,
            format!("The provider {given:?} is not known: choose QRZ.com, Club Log or eQSL.cc."),
        ),
        LogbookError::KeyShape => (
            StatusCode::BAD_REQUEST,
            "That is not a logbook API key: copy it as QRZ shows it (Logbook → Settings → API key), 8 to 100 visible characters".to_owned(),
        ),
        LogbookError::KeyRefused(message)
        | LogbookError::Invalid { message, .. }
        | LogbookError::NotConfigured(message) => (StatusCode::BAD_REQUEST, message),
        LogbookError::Unreachable(message) => (StatusCode::SERVICE_UNAVAILABLE, message),
        LogbookError::NotFound(id) => return Err(no_such_logbook(&id)),
        LogbookError::Store(e) => return Err(e.into()),
    };
    // The messages end with QRZ's reason, with or without a full stop; the page adds one.
    let message = message.trim_end_matches('.');
    Ok((status, format!("{message}. {unchanged}")))
}

/// A setting sent as `true` or `false` (the toggles), or not sent (left as it is).
fn setting(form: &PostForm, name: &str) -> Result<Option<bool>, Problem> {
    match form.optional(name) {
        None => Ok(None),
        Some("true") => Ok(Some(true)),
        Some("false") => Ok(Some(false)),
        Some(_) => Err(damaged_form()),
    }
}

/// A checkbox of the connect form: ticked sends `true`, unticked sends nothing.
fn checkbox(form: &PostForm, name: &str) -> Result<bool, Problem> {
    Ok(setting(form, name)?.unwrap_or(false))
}

fn damaged_form() -> Problem {
    Problem::bad_request(
        "The form is damaged, so nothing was changed. Reload the logbooks page and send the form from there.",
    )
}

fn signed_in(visitor: &Visitor) -> Option<&Account> {
    visitor.account.as_ref()
}

pub async fn list(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
    RawQuery(query): RawQuery,
) -> Result<Response, Problem> {
    let Some(account) = signed_in(&visitor) else {
        return Ok(sign_in_first(&visitor, "/logbooks"));
    };
    if state.logbooks.is_none() {
        return Ok(logbooks_page(
            &visitor,
            false,
            &[],
            &[],
            ConnectForm::blank(),
            None,
            StatusCode::OK,
        ));
    }
    let records = state.store.logbooks(&account.id).await?;
    // After a form: name the logbook, if it is this account's (the id comes from the query).
    let mut notice = None;
    for (name, value) in form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        let named = || {
            records
                .iter()
                .map(|r| &r.logbook)
                .find(|b| b.id == value)
                .map(|b| {
                    let (provider, key) = match &b.email {
                        Some(email) => ("Club Log", format!("account {email}")),
                        None if b.provider == "eqsl" => ("eQSL", format!("user {}", b.callsign)),
                        None => ("QRZ", format!("key …{}", b.key_last4)),
                    };
                    (provider, b.callsign.clone(), key)
                })
        };
        notice = match name.as_ref() {
            "connected" => named().map(|(provider, callsign, key)| Notice::LogbookConnected {
                provider,
                callsign,
                key,
            }),
            "changed" => named().map(|(provider, callsign, key)| Notice::LogbookChanged {
                provider,
                callsign,
                key,
            }),
            "disconnected" => Some(Notice::Info(
                "The logbook is disconnected: new contacts no longer go there, and the contacts already in it stay there.",
            )),
            "sent" => Some(Notice::Info("The contact goes to the logbook you chose.")),
            "skipped" => Some(Notice::Info(
                "The contact stays here only; it goes to no logbook.",
            )),
            _ => continue,
        };
    }
    Ok(logbooks_page(
        &visitor,
        true,
        &records,
        &state.store.reviews(&account.id).await?,
        ConnectForm::blank(),
        notice,
        StatusCode::OK,
    ))
}

pub async fn connect(State(state): State<AppState>, form: PostForm) -> Result<Response, Problem> {
    let visitor = &form.visitor;
    let Some(account) = signed_in(visitor) else {
        return Ok(sign_in_first(visitor, "/logbooks"));
    };
    let logbooks = enabled(&state)?;
    let chosen = ConnectForm {
        auto_push: checkbox(&form, "autoPush")?,
        auto_sync: checkbox(&form, "autoSync")?,
    };
    let unchanged = "No logbook was connected.";
    let provider = form.field("provider").trim().to_ascii_lowercase();
    let (clublog, eqsl) = (provider == "clublog", provider == "eqsl");
    let (status, message) = if clublog && form.field("password").trim().is_empty() {
        (
            StatusCode::BAD_REQUEST,
            format!(
                "Type an application password made at Club Log (Settings → App Passwords). {unchanged}"
            ),
        )
    } else if eqsl && form.field("password").trim().is_empty() {
        (
            StatusCode::BAD_REQUEST,
            format!("Type the password of the eQSL.cc account. {unchanged}"),
        )
    } else if !clublog && !eqsl && form.field("apiKey").trim().is_empty() {
        (
            StatusCode::BAD_REQUEST,
            format!(
                "Paste the logbook's API key from QRZ (Logbook → Settings → API key). {unchanged}"
            ),
        )
    } else {
        match connect_from(&state, logbooks, account, &form, &chosen).await {
            Ok(record) => {
                return Ok(see_other(&format!(
                    "/logbooks?connected={}",
                    record.logbook.id
                )));
            }
            Err(e) => refusal(e, unchanged)?,
        }
    };
    let records = state.store.logbooks(&account.id).await?;
    Ok(logbooks_page(
        visitor,
        true,
        &records,
        &state.store.reviews(&account.id).await?,
        chosen,
        Some(Notice::Error(message)),
        status,
    ))
}

async fn connect_from(
    state: &AppState,
    logbooks: &Logbooks,
    account: &Account,
    form: &PostForm,
    chosen: &ConnectForm,
) -> Result<LogbookRecord, LogbookError> {
    let provider = connect::provider(form.field("provider"))?;
    if provider == "eqsl" {
        let login = EqslLogin::parse(form.field("user"), form.field("password"))?;
        return connect::connect_eqsl(
            &*state.store,
            logbooks,
            &account.id,
            &login,
            chosen.auto_push,
            chosen.auto_sync,
        )
        .await;
    }
    if provider == "clublog" {
        let login = ClubLogLogin::parse(
            form.field("email"),
            form.field("password"),
            form.field("callsign"),
        )?;
        return connect::connect_clublog(
            &*state.store,
            logbooks,
            &account.id,
            &login,
            chosen.auto_push,
            chosen.auto_sync,
        )
        .await;
    }
    let key = ProviderKey::parse(form.field("apiKey"))?;
    connect::connect(
        &*state.store,
        logbooks,
        &account.id,
        &key,
        chosen.auto_push,
        chosen.auto_sync,
    )
    .await
}

/// One form of a logbook: a toggle (`autoPush` or `autoSync`, `true` or `false`), a new QRZ
/// key (`apiKey`) or a Club Log password (`password`).
pub async fn change(
    State(state): State<AppState>,
    Path(id): Path<String>,
    form: PostForm,
) -> Result<Response, Problem> {
    let visitor = &form.visitor;
    let Some(account) = signed_in(visitor) else {
        return Ok(sign_in_first(visitor, "/logbooks"));
    };
    let logbooks = enabled(&state)?;
    if !IdKind::Logbook.is_valid(&id) {
        return Err(no_such_logbook(&id));
    }
    let given = form.optional("apiKey");
    let password = form.optional("password");
    let auto_push = setting(&form, "autoPush")?;
    let auto_sync = setting(&form, "autoSync")?;
    if given.is_none() && password.is_none() && auto_push.is_none() && auto_sync.is_none() {
        return Err(damaged_form());
    }
    let unchanged = "Nothing was changed.";
    let (status, message) = if given.is_some_and(|key| key.trim().is_empty()) {
        (
            StatusCode::BAD_REQUEST,
            format!("Paste the new API key from QRZ (Logbook → Settings → API key). {unchanged}"),
        )
    } else if password.is_some_and(|p| p.trim().is_empty()) {
        (
            StatusCode::BAD_REQUEST,
            format!(
                "Type the application password made at Club Log (Settings → App Passwords). {unchanged}"
            ),
        )
    } else {
        let given = Given {
            key: given,
            password,
            auto_push,
            auto_sync,
        };
        let changed = change_from(&state, logbooks, account, &id, given);
        match changed.await {
            Ok(record) => {
                return Ok(see_other(&format!(
                    "/logbooks?changed={}",
                    record.logbook.id
                )));
            }
            Err(e) => refusal(e, unchanged)?,
        }
    };
    let records = state.store.logbooks(&account.id).await?;
    Ok(logbooks_page(
        visitor,
        true,
        &records,
        &state.store.reviews(&account.id).await?,
        ConnectForm::blank(),
        Some(Notice::Error(message)),
        status,
    ))
}

/// What one of a logbook's forms sent.
struct Given<'a> {
    key: Option<&'a str>,
    password: Option<&'a str>,
    auto_push: Option<bool>,
    auto_sync: Option<bool>,
}

async fn change_from(
    state: &AppState,
    logbooks: &Logbooks,
    account: &Account,
    id: &str,
    given: Given<'_>,
) -> Result<LogbookRecord, LogbookError> {
    let key = given.key.map(ProviderKey::parse).transpose()?;
    let changes = Changes {
        key: key.as_ref(),
        password: given.password,
        email: None,
        auto_push: given.auto_push,
        auto_sync: given.auto_sync,
    };
    connect::change(&*state.store, logbooks, &account.id, id, changes).await
}

pub async fn confirm_disconnect(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
    Path(id): Path<String>,
) -> Result<Response, Problem> {
    let Some(account) = signed_in(&visitor) else {
        return Ok(sign_in_first(&visitor, "/logbooks"));
    };
    enabled(&state)?;
    if !IdKind::Logbook.is_valid(&id) {
        return Err(no_such_logbook(&id));
    }
    let record = state
        .store
        .logbook(&account.id, &id)
        .await?
        .ok_or_else(|| no_such_logbook(&id))?;
    let page = DisconnectPage {
        layout: Layout::new(&visitor, "Disconnect this logbook?", Nav::Logbooks),
        book: LogbookView::from(&record.logbook),
    };
    Ok(respond(StatusCode::OK, &page))
}

pub async fn disconnect(
    State(state): State<AppState>,
    Path(id): Path<String>,
    form: PostForm,
) -> Result<Response, Problem> {
    let visitor = &form.visitor;
    let Some(account) = signed_in(visitor) else {
        return Ok(sign_in_first(visitor, "/logbooks"));
    };
    enabled(&state)?;
    if !IdKind::Logbook.is_valid(&id) {
        return Err(no_such_logbook(&id));
    }
    match connect::disconnect(&*state.store, &account.id, &id).await {
        Ok(()) => Ok(see_other("/logbooks?disconnected")),
        Err(LogbookError::Store(e)) => Err(e.into()),
        Err(_) => Err(no_such_logbook(&id)),
    }
}

/// The review queue's form: `action` `send` with the chosen `logbookId`, or `skip`.
pub async fn review(
    State(state): State<AppState>,
    Path(qso_id): Path<String>,
    form: PostForm,
) -> Result<Response, Problem> {
    let visitor = &form.visitor;
    let Some(account) = signed_in(visitor) else {
        return Ok(sign_in_first(visitor, "/logbooks"));
    };
    enabled(&state)?;
    let no_review = || {
        Problem::not_found(
            "That contact does not wait for review (it was settled already). Reload the logbooks page.",
        )
    };
    if !IdKind::Contact.is_valid(&qso_id) {
        return Err(no_review());
    }
    let send_to = match form.field("action") {
        "send" => Some(form.field("logbookId")),
        "skip" => None,
        _ => return Err(damaged_form()),
    };
    if send_to.is_some_and(|id| !IdKind::Logbook.is_valid(id)) {
        return Err(damaged_form());
    }
    let settled = state
        .store
        .settle_review(&account.id, &qso_id, send_to, svc_model::Timestamp::now())
        .await?;
    match settled {
        ReviewSettled::Done if send_to.is_some() => Ok(see_other("/logbooks?sent")),
        ReviewSettled::Done => Ok(see_other("/logbooks?skipped")),
        ReviewSettled::NoReview => Err(no_review()),
        ReviewSettled::NoLogbook => Err(no_such_logbook(send_to.unwrap_or_default())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use svc_model::Timestamp;

    /// Every part of the page, with markup in every value a user, QRZ or the database gives it.
    #[test]
    fn the_logbooks_page_shows_every_value_as_text() {
        let typed = "<b>\"x' & y";
        let working = Logbook {
            id: "lbk_aaaaaaaaaaaaaaaa".into(),
            provider: "qrz".into(),
            callsign: typed.into(),
            key_last4: typed.into(),
            email: None,
            auto_push: true,
            auto_sync: false,
            state: "working".into(),
            paused_reason: None,
            last_error: Some(typed.into()),
            waiting: 1,
            pushed: 2,
            failed: 3,
            created_at: Timestamp(1_763_820_300_123),
        };
        let paused = Logbook {
            id: "lbk_bbbbbbbbbbbbbbbb".into(),
            state: "paused".into(),
            paused_reason: Some(typed.into()),
            last_error: None,
            auto_push: false,
            ..working.clone()
        };
        let books = [working, paused];
        let page = LogbooksPage {
            layout: Layout {
                title: TITLE,
                nav: Nav::Logbooks,
                callsign: Some("W1AW"),
                csrf: "token".into(),
                notice: Some(Notice::LogbookConnected {
                    provider: "QRZ",
                    callsign: typed.into(),
                    key: typed.into(),
                }),
            },
            enabled: true,
            logbooks: books.iter().map(LogbookView::from).collect(),
            reviews: Vec::new(),
            form: ConnectForm::blank(),
        };
        let html = page.render().unwrap();
        assert!(!html.contains("<b>"), "{html}");
        for syntax in ["{{", "}}", "{%", "%}"] {
            assert!(!html.contains(syntax), "{syntax} in {html}");
        }
        let escaped = "&lt;b&gt;&quot;x&#39; &amp; y";
        // The notice's callsign and key; of each book the callsign in the heading, the two
        // toggles, the sync's hint, the key's button and the disconnect link, and the key in
        // the facts and the key's hint; the last error, the pause's reason.
        assert_eq!(html.matches(escaped).count(), 2 + 2 * 8 + 2, "{html}");
        assert!(html.contains("Paused:</strong> &lt;b&gt;"), "{html}");
        assert!(html.contains("name=\"autoPush\" value=\"false\""), "{html}");
        assert!(html.contains("name=\"autoPush\" value=\"true\""), "{html}");
        assert!(html.contains("action=\"/logbooks\""), "{html}");
        assert!(html.contains("href=\"/logbooks/lbk_bbbbbbbbbbbbbbbb/disconnect\""));

        let off = LogbooksPage {
            enabled: false,
            logbooks: Vec::new(),
            ..page
        };
        let html = off.render().unwrap();
        assert!(html.contains("not enabled on this service"), "{html}");
        assert!(!html.contains("action=\"/logbooks"), "{html}");
    }
}
