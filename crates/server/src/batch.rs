//! `POST /v1/contacts/batch`: up to [`MAX_ITEMS`] contacts in one request, each item the body
//! of a single `POST /v1/contacts` plus its `idempotencyKey`, each answered as that single
//! create would be, in order. A bad item never sinks the others.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Extension, Request, State};
use serde::Serialize;
use serde_json::{Map, Value};

use super::AppState;
use super::contacts::{body_fields, check_contact, read_contact};
use super::error::ApiResult;
use super::error::RequestId;
use super::extract::{
    Auth, IdemKey, JsonBody, MAX_BODY_BYTES, NoQuery, burst_allowance, burst_refusal, fingerprint,
    import_allowance, json_object, size_text, valid_idempotency_key,
};
use svc_model::ids::truncate;
use svc_model::program::json_kind;
use svc_model::{ApiError, Folder, Timestamp};
use svc_store::{BatchCreate, BatchOutcome, IdemRequest};

/// The most contacts one batch takes.
pub const MAX_ITEMS: usize = 500;
/// Largest accepted batch body: room for [`MAX_ITEMS`] items with every field at its longest.
pub const MAX_BATCH_BODY_BYTES: usize = 8 * 1024 * 1024;
/// The key of an item, in place of the `Idempotency-Key` header of a single create.
const KEY_FIELD: &str = "idempotencyKey";

/// What a single create's body takes, and the item's key.
fn item_fields() -> Vec<&'static str> {
    let mut fields = body_fields().to_vec();
    fields.push(KEY_FIELD);
    fields
}

/// A batch body: `{"contacts": [ {…}, … ], "import": bool}` with 1 to [`MAX_ITEMS`] objects.
struct Body {
    items: Vec<Map<String, Value>>,
    /// Contacts brought over from another logbook (docs/API.md, "Imports").
    import: bool,
}

fn read_body(mut body: Map<String, Value>) -> Result<Body, ApiError> {
    let contacts = body.remove("contacts").filter(|v| !v.is_null());
    let import = match body.remove("import") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::Bool(true)) => true,
        Some(other) => {
            return Err(ApiError::field(
                "import",
                format!(
                    "import must be true or false, not {}; send true for contacts imported from another logbook",
                    json_kind(&other)
                ),
            ));
        }
    };
    if let Some(unknown) = body.keys().min() {
        return Err(ApiError::field(
            &truncate(unknown, 40),
            format!(
                "unknown field {:?}; this endpoint takes contacts, an array of contacts, and import",
                truncate(unknown, 40)
            ),
        ));
    }
    let items = match contacts {
        None => {
            return Err(ApiError::field(
                "contacts",
                format!(
                    "contacts is required: an array of 1 to {MAX_ITEMS} contacts, each the body of POST /v1/contacts with its idempotencyKey"
                ),
            ));
        }
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(ApiError::field(
                "contacts",
                format!(
                    "contacts must be an array of contacts, not {}",
                    json_kind(&other)
                ),
            ));
        }
    };
    if items.is_empty() {
        return Err(ApiError::field(
            "contacts",
            "contacts is empty; send 1 to 500 contacts",
        ));
    }
    if items.len() > MAX_ITEMS {
        return Err(ApiError::field(
            "contacts",
            format!(
                "contacts holds {} items and a batch takes at most {MAX_ITEMS}; split it into several batches",
                items.len()
            ),
        ));
    }
    let items = items
        .into_iter()
        .enumerate()
        .map(|(n, item)| match item {
            Value::Object(fields) => Ok(fields),
            other => Err(ApiError::field(
                "contacts",
                format!(
                    "contacts[{n}] must be a JSON object (a contact), not {}",
                    json_kind(&other)
                ),
            )),
        })
        .collect::<Result<_, _>>()?;
    Ok(Body { items, import })
}

/// An item's key and the single create it stands for, checked in the order a single create
/// is: the key (the header's place), the size, then the body.
fn read_item(
    mut fields: Map<String, Value>,
    known: &[&str],
) -> Result<(IdemRequest, svc_model::ContactInput), ApiError> {
    let key = match fields.remove(KEY_FIELD).filter(|v| !v.is_null()) {
        None => {
            return Err(ApiError::field(
                KEY_FIELD,
                "idempotencyKey is required on every item of a batch: 1 to 255 visible ASCII characters (a UUID is a good choice), new for each new contact",
            ));
        }
        Some(Value::String(key)) if valid_idempotency_key(&key) => key,
        Some(_) => {
            return Err(ApiError::field(
                KEY_FIELD,
                "idempotencyKey must be a string of 1 to 255 visible ASCII characters (a UUID is a good choice)",
            ));
        }
    };
    let (fingerprint, size) = fingerprint("POST", "/v1/contacts", &fields);
    if size > MAX_BODY_BYTES {
        return Err(ApiError::validation(format!(
            "the item is larger than {}, the most a POST /v1/contacts body may be; send a smaller contact",
            size_text(MAX_BODY_BYTES)
        )));
    }
    let input = read_contact(JsonBody::fingerprinted(fields, fingerprint), known)?;
    Ok((IdemRequest { key, fingerprint }, input))
}

/// One item's result as the batch answers it: `status` first, then what a single create would
/// have answered with that status.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemResult {
    status: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    duplicate_of: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    replayed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_after: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    request_id: Option<String>,
}

/// The answer of a batch.
#[derive(Debug, Serialize)]
pub struct BatchAnswer {
    results: Vec<ItemResult>,
}

impl ItemResult {
    fn of(outcome: BatchOutcome, request_id: &str) -> ItemResult {
        match outcome {
            Ok(idem) => {
                let (created, replayed) = idem.into_parts();
                ItemResult {
                    status: if replayed { 200 } else { 201 },
                    id: Some(created.id),
                    duplicate_of: created.duplicate_of,
                    replayed,
                    ..ItemResult::default()
                }
            }
            Err(e) => ItemResult {
                status: e.code.http_status(),
                error: Some(e.code.as_str()),
                message: Some(e.message),
                details: e.details,
                retry_after: e.retry_after,
                request_id: Some(request_id.to_owned()),
                ..ItemResult::default()
            },
        }
    }
}

pub async fn create(
    State(state): State<AppState>,
    Auth(who): Auth,
    _: NoQuery,
    idem_key: IdemKey,
    Extension(RequestId(request_id)): Extension<RequestId>,
    request: Request,
) -> ApiResult<Json<BatchAnswer>> {
    if idem_key.0.is_some() {
        return Err(ApiError::field(
            "Idempotency-Key",
            "POST /v1/contacts/batch takes no Idempotency-Key header: put a key on each item as idempotencyKey, which makes the whole batch safe to send again",
        )
        .into());
    }
    let (_, body) = json_object(request, MAX_BATCH_BODY_BYTES).await?;
    let Body { items, import } = read_body(body)?;
    let now = Timestamp::now();
    // A batch of logged contacts counts as one request per item in its key's burst window; the
    // request itself was counted (as the first item) when its key was checked. An import is
    // one request of the import limit instead: its size is bounded by the batch, and its
    // contacts by the lifetime budget.
    let (allowed, limits) = if import {
        import_allowance(&state, &who, now).await?;
        (items.len(), state.limits.for_import())
    } else {
        let allowed = 1 + burst_allowance(&state, &who, items.len() - 1, now).await?;
        (allowed, state.limits)
    };

    // A logged batch takes the station profiles; an import keeps what its file says.
    let stations = if import {
        Vec::new()
    } else {
        state.store.stations(&who.account_id).await?
    };
    let known = item_fields();
    let mut folders: HashMap<String, Option<Folder>> = HashMap::new();
    let mut outcomes: Vec<Option<BatchOutcome>> = Vec::with_capacity(items.len());
    let mut creates: Vec<BatchCreate> = Vec::new();
    let mut places: Vec<usize> = Vec::new();
    for (n, fields) in items.into_iter().enumerate() {
        if n >= allowed {
            outcomes.push(Some(Err(burst_refusal(now))));
            continue;
        }
        let checked = match read_item(fields, &known) {
            Ok((idem, mut input)) => {
                // An import's contacts come from files, whose FREQ is MHz whatever its size
                // (10368.1 is a 3 cm contact, not 10.368 MHz) and whose modes are kept as the
                // logger wrote them.
                input.from_file = import;
                let folder = match folders.get(&input.folder_id) {
                    Some(folder) => folder.clone(),
                    None => {
                        let folder = state
                            .store
                            .folder_for_contacts(&who.account_id, &input.folder_id)
                            .await?;
                        folders.insert(input.folder_id.clone(), folder.clone());
                        folder
                    }
                };
                check_contact(
                    &input,
                    folder.as_ref(),
                    now,
                    &state.dxcc,
                    &who.callsign,
                    &stations,
                )
                .map(|contact| (idem, contact))
            }
            Err(e) => Err(e),
        };
        match checked {
            Ok((idem, contact)) => {
                places.push(n);
                creates.push(BatchCreate { contact, idem });
                outcomes.push(None);
            }
            Err(e) => outcomes.push(Some(Err(e))),
        }
    }
    let stored = state
        .store
        .create_contacts(&who.account_id, &creates, &limits, now)
        .await?;
    for (n, outcome) in places.into_iter().zip(stored) {
        outcomes[n] = Some(outcome);
    }
    let results = outcomes
        .into_iter()
        .map(|o| {
            o.map(|o| ItemResult::of(o, &request_id))
                .ok_or_else(ApiError::internal)
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(Json(BatchAnswer { results }))
}
