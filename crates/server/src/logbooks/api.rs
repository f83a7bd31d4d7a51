//! `/v1/logbooks`: connecting, changing and disconnecting external logbooks, with an elevated
//! key (docs/API.md, "External logbooks"). A provider's API key is checked with the provider,
//! sealed with the server's secret and never answered: only its last 4 characters. The rules
//! are in `connect.rs`; this reads the JSON and words the errors for the API.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde_json::{Value, json};

use super::Logbooks;
use super::connect::{self, Changes, LogbookError, ProviderKey};
use crate::AppState;
use crate::error::{ApiResult, Failure};
use crate::extract::{Auth, JsonBody, NoQuery};
use svc_model::{ApiError, ErrorCode, IdKind, Logbook, Review};
use svc_store::ReviewSettled;

const CONNECT_FIELDS: &[&str] = &["provider", "apiKey", "autoPush", "autoSync"];
const CHANGE_FIELDS: &[&str] = &["apiKey", "autoPush", "autoSync"];

impl From<LogbookError> for Failure {
    fn from(e: LogbookError) -> Failure {
        Failure(match e {
            LogbookError::UnknownProvider(given) => ApiError::field(
                "provider",
                format!("provider {given:?} is not known; the one provider is qrz"),
            ),
            LogbookError::KeyShape => ApiError::field(
                "apiKey",
                "apiKey must be the logbook's API key as QRZ shows it (Logbook → Settings → API key), 8 to 100 visible characters",
            ),
            LogbookError::KeyRefused(message) => ApiError::field("apiKey", message),
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
    connect::provider(&body.required_string("provider", "qrz")?)?;
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
    let changes = Changes {
        key: key.as_ref(),
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
/// elsewhere come into the account. Only a synced book is read.
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
    if !book.logbook.auto_sync {
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
