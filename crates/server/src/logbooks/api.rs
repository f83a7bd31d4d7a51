//! `/v1/logbooks`: connecting, changing and disconnecting external logbooks, and uploading a
//! Club Log book's back log, with an elevated key (docs/API.md, "External logbooks"). A QRZ
//! key is checked with QRZ, sealed with the server's secret and never answered: only its last
//! 4 characters. A Club Log application password or an eQSL password is sealed the same way
//! and never answered at all. The rules are in `connect.rs`; this reads the JSON and words the errors for the API.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde_json::{Value, json};

use super::Logbooks;
use super::clublog::{Account, ClubLogError, CopyKey};
use super::connect::{self, Changes, ClubLogLogin, EqslLogin, LogbookError, ProviderKey};
use crate::AppState;
use crate::error::{ApiResult, Failure};
use crate::extract::{Auth, JsonBody, NoQuery};
use svc_model::{ApiError, ErrorCode, IdKind, Logbook, Review, Timestamp};
use svc_store::ReviewSettled;

const CONNECT_FIELDS: &[&str] = &["provider", "apiKey", "autoPush", "autoSync"];
const CONNECT_CLUBLOG_FIELDS: &[&str] = &[
    "provider", "email", "password", "callsign", "autoPush", "autoSync",
];
const CONNECT_EQSL_FIELDS: &[&str] = &["provider", "user", "password", "autoPush", "autoSync"];
const CHANGE_FIELDS: &[&str] = &["apiKey", "password", "email", "autoPush", "autoSync"];

impl From<LogbookError> for Failure {
    fn from(e: LogbookError) -> Failure {
        Failure(match e {
            LogbookError::UnknownProvider(given) => ApiError::field(
                "provider",
                format!("provider {given:?} is not known; the providers are qrz, clublog and eqsl"),
            ),
            LogbookError::KeyShape => ApiError::field(
                "apiKey",
                "apiKey must be the logbook's API key as QRZ shows it (Logbook → Settings → API key), 8 to 100 visible characters",
            ),
            LogbookError::KeyRefused(message) => ApiError::field("apiKey", message),
            LogbookError::Invalid { field, message } => ApiError::field(field, message),
            LogbookError::NotConfigured(message) => ApiError::field("provider", message),
            LogbookError::Unreachable(message) => ApiError::new(ErrorCode::Internal, message),
            LogbookError::NotFound(id) => ApiError::not_found(format!("logbook {id} not found")),
            LogbookError::Store(e) => return Failure::from(e),
        })
    }
}

/// The service's logbooks part, or the answer that it has none.
fn enabled(state: &AppState) -> Result<Arc<Logbooks>, ApiError> {
    state.logbooks.clone().ok_or_else(|| {
        ApiError::not_found(
            "external logbooks are not enabled on this service: its operator starts it with --secret-file",
        )
    })
}

fn boolean(body: &mut JsonBody, name: &str) -> Result<Option<bool>, ApiError> {
    match body.value(name) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b)),
        Some(other) => Err(ApiError::field(
            name,
            format!(
                "{name} must be true or false, not {}",
                svc_model::program::json_kind(&other)
            ),
        )),
    }
}

fn api_key(body: &mut JsonBody) -> ApiResult<Option<ProviderKey>> {
    match body.string("apiKey")? {
        Some(key) => Ok(Some(ProviderKey::parse(&key)?)),
        None => Ok(None),
    }
}

pub async fn list(State(state): State<AppState>, auth: Auth, _: NoQuery) -> ApiResult<Json<Value>> {
    auth.require_elevated()?;
    enabled(&state)?;
    let items: Vec<Logbook> = state
        .store
        .logbooks(&auth.0.account_id)
        .await?
        .into_iter()
        .map(|r| r.logbook)
        .collect();
    Ok(Json(json!({ "items": items })))
}

pub async fn connect(
    State(state): State<AppState>,
    auth: Auth,
    _: NoQuery,
    mut body: JsonBody,
) -> ApiResult<(StatusCode, Json<Logbook>)> {
    auth.require_elevated()?;
    let logbooks = enabled(&state)?;
    match connect::provider(&body.required_string("provider", "qrz")?)? {
        "clublog" => return connect_clublog(&state, &logbooks, &auth, body).await,
        "eqsl" => return connect_eqsl(&state, &logbooks, &auth, body).await,
        _ => {}
    }
    let key = api_key(&mut body)?.ok_or_else(|| {
        ApiError::field(
            "apiKey",
            "apiKey is required: the logbook's API key from its settings at QRZ",
        )
    })?;
    let auto_push = boolean(&mut body, "autoPush")?.unwrap_or(true);
    let auto_sync = boolean(&mut body, "autoSync")?.unwrap_or(false);
    body.finish(CONNECT_FIELDS)?;
    let record = connect::connect(
        &*state.store,
        &logbooks,
        &auth.0.account_id,
        &key,
        auto_push,
        auto_sync,
    )
    .await?;
    Ok((StatusCode::CREATED, Json(record.logbook)))
}

/// A text field a connection of `provider` needs; `what` says what it holds.
fn required(
    body: &mut JsonBody,
    provider: &str,
    name: &str,
    what: &str,
) -> Result<String, ApiError> {
    body.string(name)?.ok_or_else(|| {
        ApiError::field(
            name,
            format!("{name} is required to connect {provider}: {what}"),
        )
    })
}

/// `{"provider": "clublog", "email", "password", "callsign"}`: the password is sealed and
/// never answered.
async fn connect_clublog(
    state: &AppState,
    logbooks: &Logbooks,
    auth: &Auth,
    mut body: JsonBody,
) -> ApiResult<(StatusCode, Json<Logbook>)> {
    let mut required = |name: &str, what: &str| required(&mut body, "Club Log", name, what);
    let email = required("email", "the email address of the Club Log account")?;
    let password = required(
        "password",
        "an application password made at Club Log (Settings → App Passwords)",
    )?;
    let callsign = required("callsign", "the callsign of the Club Log log")?;
    let auto_push = boolean(&mut body, "autoPush")?.unwrap_or(true);
    let auto_sync = boolean(&mut body, "autoSync")?.unwrap_or(false);
    body.finish(CONNECT_CLUBLOG_FIELDS)?;
    let login = ClubLogLogin::parse(&email, &password, &callsign)?;
    let record = connect::connect_clublog(
        &*state.store,
        logbooks,
        &auth.0.account_id,
        &login,
        auto_push,
        auto_sync,
    )
    .await?;
    Ok((StatusCode::CREATED, Json(record.logbook)))
}

/// `{"provider": "eqsl", "user", "password"}`: the password is sealed and never answered.
async fn connect_eqsl(
    state: &AppState,
    logbooks: &Logbooks,
    auth: &Auth,
    mut body: JsonBody,
) -> ApiResult<(StatusCode, Json<Logbook>)> {
    let mut required = |name: &str, what: &str| required(&mut body, "eQSL", name, what);
    let user = required("user", "the eQSL.cc user name, the account's callsign")?;
    let password = required("password", "the password of the eQSL.cc account")?;
    let auto_push = boolean(&mut body, "autoPush")?.unwrap_or(true);
    let auto_sync = boolean(&mut body, "autoSync")?.unwrap_or(false);
    body.finish(CONNECT_EQSL_FIELDS)?;
    let login = EqslLogin::parse(&user, &password)?;
    let record = connect::connect_eqsl(
        &*state.store,
        logbooks,
        &auth.0.account_id,
        &login,
        auto_push,
        auto_sync,
    )
    .await?;
    Ok((StatusCode::CREATED, Json(record.logbook)))
}

pub async fn change(
    State(state): State<AppState>,
    auth: Auth,
    _: NoQuery,
    Path(id): Path<String>,
    mut body: JsonBody,
) -> ApiResult<Json<Logbook>> {
    auth.require_elevated()?;
    let logbooks = enabled(&state)?;
    let id = IdKind::Logbook.parse("logbookId", &id)?;
    let key = api_key(&mut body)?;
    let password = body.string("password")?;
    let email = body.string("email")?;
    let changes = Changes {
        key: key.as_ref(),
        password: password.as_deref(),
        email: email.as_deref(),
        auto_push: boolean(&mut body, "autoPush")?,
        auto_sync: boolean(&mut body, "autoSync")?,
    };
    body.finish(CHANGE_FIELDS)?;
    let record =
        connect::change(&*state.store, &logbooks, &auth.0.account_id, &id, changes).await?;
    Ok(Json(record.logbook))
}

pub async fn disconnect(
    State(state): State<AppState>,
    auth: Auth,
    _: NoQuery,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    auth.require_elevated()?;
    enabled(&state)?;
    let id = IdKind::Logbook.parse("logbookId", &id)?;
    connect::disconnect(&*state.store, &auth.0.account_id, &id).await?;
    Ok(Json(json!({ "id": id, "success": true })))
}

/// Reads the book now instead of at the next turn (every 5 minutes): contacts logged
/// elsewhere come into the account from a synced QRZ book, confirmations from an eQSL book's
/// Inbox.
pub async fn import(
    State(state): State<AppState>,
    auth: Auth,
    _: NoQuery,
    Path(id): Path<String>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    auth.require_elevated()?;
    enabled(&state)?;
    let id = IdKind::Logbook.parse("logbookId", &id)?;
    let account = &auth.0.account_id;
    let Some(book) = state.store.logbook(account, &id).await? else {
        return Err(LogbookError::NotFound(id).into());
    };
    if book.logbook.provider == "clublog" {
        return Err(ApiError::field(
            "logbookId",
            format!(
                "logbook {id} is a Club Log book, which svc sends to but does not read; POST /v1/logbooks/{id}/upload sends it the contacts stored before it was connected"
            ),
        )
        .into());
    }
    // An eQSL book's Inbox is read whether or not the book is synced: its cards confirm
    // contacts and route none.
    if book.logbook.provider == "qrz" && !book.logbook.auto_sync {
        return Err(ApiError::field(
            "autoSync",
            format!(
                "logbook {id} is not synced, and only synced books are read; turn autoSync on (PATCH /v1/logbooks/{id})"
            ),
        )
        .into());
    }
    if !state.store.request_import(account, &id).await? {
        return Err(LogbookError::NotFound(id).into());
    }
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({ "id": id, "importing": true })),
    ))
}

/// Sends a Club Log book, in one ADIF file, every contact of its callsign stored here that
/// has no copy bound for it (the back log from before it was connected), and records them as
/// pushed once Club Log has taken the file. A 403 pauses the book, as a push's would.
pub async fn upload(
    State(state): State<AppState>,
    auth: Auth,
    _: NoQuery,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    auth.require_elevated()?;
    let logbooks = enabled(&state)?;
    let id = IdKind::Logbook.parse("logbookId", &id)?;
    let account = &auth.0.account_id;
    let Some(book) = state.store.logbook(account, &id).await? else {
        return Err(LogbookError::NotFound(id).into());
    };
    if book.logbook.provider != "clublog" {
        let name = if book.logbook.provider == "eqsl" {
            "an eQSL"
        } else {
            "a QRZ"
        };
        return Err(ApiError::field(
            "logbookId",
            format!(
                "logbook {id} is {name} book: only a Club Log book takes an upload ({name} book gets each contact pushed)"
            ),
        )
        .into());
    }
    let paused = |reason: &str| {
        ApiError::field(
            "logbookId",
            format!("logbook {id} is paused, so nothing is sent to it: {reason}"),
        )
    };
    if let Some(reason) = &book.logbook.paused_reason {
        return Err(paused(reason).into());
    }
    let Some(password) = logbooks.secret.open(&id, &book.key_sealed) else {
        return Err(ApiError::field(
            "password",
            "the service cannot open this logbook's password (its secret changed); give the password again",
        )
        .into());
    };
    let (account_callsign, contacts) = state.store.backlog(account, &id).await?;
    let records: Vec<(String, svc_adif::Record, String)> = contacts
        .iter()
        .filter_map(|contact| {
            let record = svc_adif::contact::record_for(contact, &account_callsign);
            // Every contact's record has a call, date, time and band; one without is not sent.
            let key = CopyKey::of(&record)?.log_id();
            Some((contact.id.clone(), record, key))
        })
        .collect();
    if records.is_empty() {
        return Ok(Json(json!({ "id": id, "uploaded": 0 })));
    }
    // Bound for the book before anything is sent, in the database: an edit or a delete while
    // the file is on its way is kept on the copy, a push of the same contact cannot start,
    // and a process that dies here leaves the copies to the worker when the lease runs out.
    let copies: Vec<(String, String)> = records
        .iter()
        .map(|(contact, _, key)| (contact.clone(), key.clone()))
        .collect();
    let lease = Timestamp(Timestamp::now().millis() + UPLOAD_LEASE_MS);
    let bound = state
        .store
        .reserve_upload(account, &id, &copies, lease)
        .await?;
    if bound.is_empty() {
        // Paused since it was read (the store binds nothing to a paused book), or every
        // contact was bound for it meanwhile.
        let now = state.store.logbook(account, &id).await?;
        if let Some(reason) = now
            .as_ref()
            .and_then(|b| b.logbook.paused_reason.as_deref())
        {
            return Err(paused(reason).into());
        }
        return Ok(Json(json!({ "id": id, "uploaded": 0 })));
    }
    let sending: std::collections::HashSet<&String> = bound.iter().collect();
    let file = match adif_file(records.iter().filter(|(c, _, _)| sending.contains(c))) {
        Ok(file) => file,
        Err(e) => {
            state.store.settle_upload(&id, &bound, false).await?;
            return Err(
                ApiError::new(ErrorCode::Internal, format!("writing the ADIF: {e}")).into(),
            );
        }
    };
    let login = Account {
        email: book.logbook.email.as_deref().unwrap_or_default(),
        password: &password,
        callsign: &book.logbook.callsign,
    };
    let sent = logbooks.clublog.upload_file(&login, &file).await;
    state.store.settle_upload(&id, &bound, sent.is_ok()).await?;
    match sent {
        Ok(said) => {
            let mut answer = json!({ "id": id, "uploaded": bound.len() });
            if !said.is_empty() {
                answer["message"] = Value::String(said);
            }
            Ok(Json(answer))
        }
        Err(ClubLogError::Forbidden(reason)) => {
            let reason = super::worker::clublog_paused_reason(&id, &reason);
            state.store.pause_logbook(&id, &reason).await?;
            Err(ApiError::field("password", reason).into())
        }
        Err(ClubLogError::Rejected(reason)) => Err(ApiError::field(
            "logbookId",
            format!("Club Log rejected the upload: {reason}"),
        )
        .into()),
        Err(e @ ClubLogError::Unavailable(_)) => Err(ApiError::new(
            ErrorCode::Internal,
            format!("{e}; nothing was recorded as sent, try again later"),
        )
        .into()),
    }
}

/// How long an upload's copies are held from the worker: Club Log's time for a file, and
/// then some.
const UPLOAD_LEASE_MS: i64 = 10 * 60 * 1000;

/// An ADI file of the records.
fn adif_file<'a>(
    records: impl Iterator<Item = &'a (String, svc_adif::Record, String)>,
) -> std::io::Result<String> {
    let mut writer = svc_adif::Writer::new(Vec::new(), chrono::Utc::now())?;
    for (_, record, _) in records {
        writer.record(record)?;
    }
    String::from_utf8(writer.finish()?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

pub async fn reviews(
    State(state): State<AppState>,
    auth: Auth,
    _: NoQuery,
) -> ApiResult<Json<Value>> {
    auth.require_elevated()?;
    enabled(&state)?;
    let items: Vec<Review> = state.store.reviews(&auth.0.account_id).await?;
    Ok(Json(json!({ "items": items })))
}

/// `{"action": "send", "logbookId": "lbk_…"}` sends the contact to that book; `{"action":
/// "skip"}` leaves it here alone.
pub async fn review(
    State(state): State<AppState>,
    auth: Auth,
    _: NoQuery,
    Path(qso_id): Path<String>,
    mut body: JsonBody,
) -> ApiResult<Json<Value>> {
    auth.require_elevated()?;
    enabled(&state)?;
    let qso_id = IdKind::Contact.parse("qsoId", &qso_id)?;
    let action = body.required_string("action", "send")?;
    let book = body.string("logbookId")?;
    body.finish(&["action", "logbookId"])?;
    let send_to = match (action.trim(), book) {
        ("send", Some(book)) => Some(IdKind::Logbook.parse("logbookId", book.trim())?),
        ("send", None) => {
            return Err(ApiError::field(
                "logbookId",
                "logbookId is required to send: the book the contact goes to (GET /v1/logbooks lists them)",
            )
            .into());
        }
        ("skip", None) => None,
        ("skip", Some(_)) => {
            return Err(ApiError::field(
                "logbookId",
                "skip takes no logbookId: the contact goes to no book",
            )
            .into());
        }
        (other, _) => {
            return Err(ApiError::field(
                "action",
                format!(
                    "action {:?} is not known; use send or skip",
                    svc_model::ids::truncate(other, 20)
                ),
            )
            .into());
        }
    };
    let settled = state
        .store
        .settle_review(
            &auth.0.account_id,
            &qso_id,
            send_to.as_deref(),
            svc_model::Timestamp::now(),
        )
        .await?;
    match settled {
        ReviewSettled::Done => {
            let mut answer = json!({
                "id": qso_id,
                "action": if send_to.is_some() { "send" } else { "skip" },
            });
            // A skip goes to no book: the field is left out, as every field with no value is.
            if let Some(book) = send_to {
                answer["logbookId"] = Value::String(book);
            }
            Ok(Json(answer))
        }
        ReviewSettled::NoReview => Err(ApiError::not_found(format!(
            "no review of contact {qso_id}: it was settled already, or it never needed one"
        ))
        .into()),
        ReviewSettled::NoLogbook => Err(LogbookError::NotFound(send_to.unwrap_or_default()).into()),
    }
}
