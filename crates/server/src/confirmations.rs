//! `POST /v1/confirmations`: what a QSL service (LoTW) confirmed, written into the contacts it
//! confirms; `GET /v1/confirmations`: how far the log is with each QSL service. The client
//! downloads the service's report with the user's own login and sends the QSOs here, up to [`MAX_CONFIRMATIONS`] a request; the matching is the model's
//! (`svc_model::confirm`), done in the store in one transaction a request. `POST
//! /v1/confirmations/sent` is the other way: what the user uploaded, marked sent.

use axum::Json;
use axum::extract::{Request, State};
use serde_json::Value;

use super::AppState;
use super::error::ApiResult;
use super::extract::{Auth, Elevated, NoQuery, json_object};
use svc_model::ApiError;
use svc_model::confirm::{
    ConfirmAnswer, ConfirmState, Confirmation, ConfirmationStatus, MAX_CONFIRMATIONS, Sent,
    SentAnswer, SentState,
};
use svc_model::program::json_kind;
use svc_store::{ConfirmOutcome, SentOutcome};

/// Largest accepted body: room for [`MAX_CONFIRMATIONS`] items with every detail.
const MAX_BODY_BYTES: usize = 1024 * 1024;
/// The services whose confirmations the service writes.
const SERVICES: &[&str] = &["lotw"];

/// The `items` of a request for `service`, each read as an `I` and checked by `check` at its
/// place; `what` names an item in messages, `fields` says what one holds.
fn read_items<I: serde::de::DeserializeOwned>(
    mut body: serde_json::Map<String, Value>,
    what: &str,
    fields: &str,
    check: impl Fn(I, usize) -> Result<I, ApiError>,
) -> Result<Vec<I>, ApiError> {
    match body.remove("service") {
        Some(Value::String(s)) if SERVICES.contains(&s.as_str()) => {}
        Some(Value::String(s)) => {
            return Err(ApiError::field(
                "service",
                format!(
                    "service {s:?} is not one whose {what}s this service takes; send {}",
                    SERVICES.join(" or ")
                ),
            ));
        }
        None | Some(Value::Null) => {
            return Err(ApiError::field(
                "service",
                format!("service is required: the QSL service of the {what}s, lotw"),
            ));
        }
        Some(other) => {
            return Err(ApiError::field(
                "service",
                format!(
                    "service must be a string such as \"lotw\", not {}",
                    json_kind(&other)
                ),
            ));
        }
    }
    let items = match body.remove("items") {
        Some(Value::Array(items)) if !items.is_empty() && items.len() <= MAX_CONFIRMATIONS => items,
        Some(Value::Array(items)) => {
            return Err(ApiError::field(
                "items",
                format!(
                    "items holds {} {what}s; send 1 to {MAX_CONFIRMATIONS} a request",
                    items.len()
                ),
            ));
        }
        None | Some(Value::Null) => {
            return Err(ApiError::field(
                "items",
                format!("items is required: an array of {what}s"),
            ));
        }
        Some(other) => {
            return Err(ApiError::field(
                "items",
                format!("items must be an array, not {}", json_kind(&other)),
            ));
        }
    };
    if let Some(name) = body.keys().next() {
        return Err(ApiError::field(
            name,
            format!("{name} is not a field of this request; send service and items"),
        ));
    }
    items
        .into_iter()
        .enumerate()
        .map(|(at, item)| {
            let item = serde_json::from_value::<I>(item).map_err(|e| {
                ApiError::field(
                    &format!("items[{at}]"),
                    format!("items[{at}] is not a {what} ({e}); send {fields}"),
                )
            })?;
            check(item, at)
        })
        .collect()
}

pub async fn create(
    State(state): State<AppState>,
    Elevated(who): Elevated,
    _: NoQuery,
    request: Request,
) -> ApiResult<Json<ConfirmAnswer>> {
    let (_, body) = json_object(request, MAX_BODY_BYTES).await?;
    let items = read_items(
        body,
        "confirmation",
        "callsign, band, mode, timeOn, stationCallsign and confirmedOn (or receivedOn, for a QSO LoTW received and has not confirmed), with propMode, satName and details where known",
        Confirmation::checked,
    )?;
    let outcomes = state
        .store
        .confirm_contacts(
            &who.account_id,
            &who.callsign,
            items,
            svc_model::confirm::QslService::Lotw,
        )
        .await?;
    let mut answer = ConfirmAnswer::default();
    for outcome in outcomes {
        match outcome {
            ConfirmOutcome::Confirmed(id) => answer.push(ConfirmState::Confirmed, Some(id)),
            ConfirmOutcome::Received(id) => answer.push(ConfirmState::Received, Some(id)),
            ConfirmOutcome::Already(id) => answer.push(ConfirmState::Already, Some(id)),
            ConfirmOutcome::Unmatched => answer.push(ConfirmState::Unmatched, None),
        }
    }
    Ok(Json(answer))
}

/// `GET /v1/confirmations`: how many of the account's contacts each QSL service has been
/// sent and has confirmed (any key).
pub async fn status(
    State(state): State<AppState>,
    Auth(who): Auth,
    _: NoQuery,
) -> ApiResult<Json<ConfirmationStatus>> {
    Ok(Json(
        state.store.confirmation_status(&who.account_id).await?,
    ))
}

/// `POST /v1/confirmations/sent`: contacts the user sent to the QSL service (`svc lotw upload`
/// through TQSL), marked sent with what was sent, so that only an edit sends one again.
pub async fn sent(
    State(state): State<AppState>,
    Elevated(who): Elevated,
    _: NoQuery,
    request: Request,
) -> ApiResult<Json<SentAnswer>> {
    let (_, body) = json_object(request, MAX_BODY_BYTES).await?;
    let items = read_items(
        body,
        "sent contact",
        "qsoId, sentOn and fingerprint",
        Sent::checked,
    )?;
    let ids: Vec<String> = items.iter().map(|s| s.qso_id.clone()).collect();
    let outcomes = state.store.mark_sent(&who.account_id, items).await?;
    let mut answer = SentAnswer::default();
    for (outcome, id) in outcomes.into_iter().zip(ids) {
        let state = match outcome {
            SentOutcome::Sent => SentState::Sent,
            SentOutcome::Already => SentState::Already,
            SentOutcome::Missing => SentState::Missing,
        };
        answer.push(state, id);
    }
    Ok(Json(answer))
}
