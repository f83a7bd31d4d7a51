//! `/v1/logbooks`: connecting, changing and disconnecting external logbooks, with an elevated
//! key (docs/API.md, "External logbooks"). A provider's API key is checked with the provider,
//! sealed with the server's secret and never answered: only its last 4 characters.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde_json::{Value, json};

use super::Logbooks;
use super::qrz::QrzError;
use crate::model::{ApiError, IdKind, Logbook, Review};
use crate::server::AppState;
use crate::server::error::ApiResult;
use crate::server::extract::{Auth, JsonBody, NoQuery};
use crate::store::{LogbookChange, LogbookKey, NewLogbook, ReviewSettled};

const CONNECT_FIELDS: &[&str] = &["provider", "apiKey", "autoPush", "autoSync"];
const CHANGE_FIELDS: &[&str] = &["apiKey", "autoPush", "autoSync"];

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
                crate::model::program::json_kind(&other)
            ),
        )),
    }
}

/// A provider's API key as given: trimmed, one line of visible characters.
fn api_key(body: &mut JsonBody) -> Result<Option<String>, ApiError> {
    let Some(key) = body.string("apiKey")? else {
        return Ok(None);
    };
    let key = key.trim().to_owned();
    if key.len() < 8 || key.len() > 100 || !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(ApiError::field(
            "apiKey",
            "apiKey must be the logbook's API key as QRZ shows it (Logbook → Settings → API key), 8 to 100 visible characters",
        ));
    }
    Ok(Some(key))
}

fn last4(key: &str) -> String {
    key[key.len().saturating_sub(4)..].to_owned()
}

/// Asks QRZ whose book the key opens.
async fn book_callsign(logbooks: &Logbooks, key: &str) -> Result<String, ApiError> {
    match logbooks.qrz.status(key).await {
        // Stored as contacts' station callsigns are, so the sync can match them.
        Ok(book) => Ok(book.callsign.trim().to_ascii_uppercase()),
        Err(QrzError::Auth(reason)) => Err(ApiError::field(
            "apiKey",
            format!(
                "QRZ refused this key ({reason}); copy the API key from the logbook's settings at QRZ (a Logbook API key needs a QRZ subscription)"
            ),
        )),
        Err(QrzError::Fail(reason)) => Err(ApiError::field(
            "apiKey",
            format!("QRZ did not accept the key: {reason}"),
        )),
        Err(e @ (QrzError::Transport(_) | QrzError::Malformed(_))) => Err(ApiError::new(
            crate::model::ErrorCode::Internal,
            format!("QRZ could not be asked about the key ({e}); try again in a moment"),
        )),
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
    let provider = body.required_string("provider", "qrz")?;
    if !provider.trim().eq_ignore_ascii_case("qrz") {
        return Err(ApiError::field(
            "provider",
            format!(
                "provider {:?} is not known; the one provider is qrz",
                crate::model::ids::truncate(&provider, 20)
            ),
        )
        .into());
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
    let callsign = book_callsign(&logbooks, &key).await?;
    let id = IdKind::Logbook.generate();
    let new = NewLogbook {
        key_sealed: logbooks.secret.seal(&id, &key),
        key_last4: last4(&key),
        id,
        provider: "qrz".into(),
        callsign,
        auto_push,
        auto_sync,
    };
    let record = state
        .store
        .create_logbook(&auth.0.account_id, &new, crate::model::Timestamp::now())
        .await?;
    Ok((StatusCode::CREATED, Json(record.logbook)))
}

fn not_found(id: &str) -> ApiError {
    ApiError::not_found(format!("logbook {id} not found"))
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
    let auto_push = boolean(&mut body, "autoPush")?;
    let auto_sync = boolean(&mut body, "autoSync")?;
    body.finish(CHANGE_FIELDS)?;
    let account = &auth.0.account_id;
    if state.store.logbook(account, &id).await?.is_none() {
        return Err(not_found(&id).into());
    }
    let key = match key {
        Some(key) => Some(LogbookKey {
            callsign: book_callsign(&logbooks, &key).await?,
            key_sealed: logbooks.secret.seal(&id, &key),
            key_last4: last4(&key),
        }),
        None => None,
    };
    let change = LogbookChange {
        auto_push,
        auto_sync,
        key,
    };
    if !state.store.change_logbook(account, &id, &change).await? {
        return Err(not_found(&id).into());
    }
    let record = state
        .store
        .logbook(account, &id)
        .await?
        .ok_or_else(|| not_found(&id))?;
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
    if !state.store.delete_logbook(&auth.0.account_id, &id).await? {
        return Err(not_found(&id).into());
    }
    Ok(Json(json!({ "id": id, "success": true })))
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
                    crate::model::ids::truncate(other, 20)
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
            crate::model::Timestamp::now(),
        )
        .await?;
    match settled {
        ReviewSettled::Done => Ok(Json(json!({
            "id": qso_id,
            "action": if send_to.is_some() { "send" } else { "skip" },
            "logbookId": send_to,
        }))),
        ReviewSettled::NoReview => Err(ApiError::not_found(format!(
            "no review of contact {qso_id}: it was settled already, or it never needed one"
        ))
        .into()),
        ReviewSettled::NoLogbook => Err(not_found(send_to.as_deref().unwrap_or_default()).into()),
    }
}
