use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use serde_json::Value;

use super::error::ApiResult;
use super::extract::{Auth, CursorKind, Elevated, IdemKey, JsonBody, NoQuery, Params};
use super::{AppState, page};
use svc_model::dxcc::Dxcc;
use svc_model::page::DEFAULT_LIMIT;
use svc_model::seed::{CALLSIGN, FOLDER_ID, FREQUENCY, MODE, SEED, TIME_ON};
use svc_model::{
    ApiError, Contact, ContactInput, ContactPatch, Fields, FieldsPatch, Folder, FolderType, IdKind,
    NewContact, Page, StationProfile, Timestamp,
};
use svc_store::{Idem, IdemRequest, StoreError};

/// Every field a contact body takes, listed once per process: every create reads it.
pub(super) fn body_fields() -> &'static [&'static str] {
    static ALL: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
        let mut all: Vec<&str> = SEED.iter().map(|f| f.wire).collect();
        all.extend(svc_model::fields::FIELDS.iter().map(|d| d.wire));
        all.push("adif");
        all.push("bandOnly");
        all
    });
    &ALL
}

pub(super) fn folder_not_found(id: &str) -> ApiError {
    ApiError::not_found(format!("folder {id} not found"))
}

pub async fn list(
    State(state): State<AppState>,
    Auth(who): Auth,
    Path(folder_id): Path<String>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Page<Contact>>> {
    let folder_id = IdKind::Folder.parse("folderId", &folder_id)?;
    let params = Params::parse(query.as_deref(), &["limit", "cursor"])?;
    let limit = params.limit(DEFAULT_LIMIT)?;
    let after = params.cursor(CursorKind::Contacts)?;
    let Some(folder) = state.store.folder(&who.account_id, &folder_id).await? else {
        return Err(folder_not_found(&folder_id).into());
    };
    // A container holds no contacts of its own: it lists those of the folders below it, and
    // All Contacts (the root) every contact of the account.
    let mut rows = if folder.folder_type == FolderType::Category {
        let below = folder.parent_id.is_some().then_some(folder_id.as_str());
        state
            .store
            .list_contacts_below(&who.account_id, below, after, limit)
            .await?
    } else {
        state.store.list_contacts(&folder_id, after, limit).await?
    };
    if state.logbooks.is_some() {
        // Where each went in the account's external logbooks.
        let ids: Vec<String> = rows.iter().map(|(c, _)| c.id.clone()).collect();
        for (id, copy) in state.store.external_copies(&ids).await? {
            if let Some((c, _)) = rows.iter_mut().find(|(c, _)| c.id == id) {
                c.external.push(copy);
            }
        }
    }
    Ok(Json(page(rows, limit, CursorKind::Contacts)))
}

fn read_input(body: &mut JsonBody) -> Result<ContactInput, ApiError> {
    let mut input = ContactInput {
        folder_id: body.required_string(FOLDER_ID.wire, "fld_…")?,
        callsign: body.required_string(CALLSIGN.wire, "W1AW")?,
        frequency: body.required_number(FREQUENCY.wire, "14.074")?,
        mode: body.required_string(MODE.wire, "FT8")?,
        time_on: body.required_string(TIME_ON.wire, "2026-11-22T14:05:00Z")?,
        ..ContactInput::default()
    };
    for seed in SEED {
        if let Some(slot) = input.text_mut(seed) {
            *slot = body.string(seed.wire)?;
        }
    }
    input.fields = Fields::from_json(|name| body.value(name))?;
    Ok(input)
}

/// Reads a contact body: each field's type and presence, then unknown fields (refused with
/// `known` as the list of what is taken), then the shape of the folder id.
pub(super) fn read_contact(mut body: JsonBody, known: &[&str]) -> Result<ContactInput, ApiError> {
    let mut input = read_input(&mut body)?;
    body.finish(known)?;
    input.folder_id = IdKind::Folder.parse("folderId", &input.folder_id)?;
    Ok(input)
}

/// Applies the rules of the contact's folder, which must be the account's, and fills the
/// DXCC entity and zones the contact lacks from its callsign, and the operator of one made
/// under another call than `account`, the account's callsign
/// ([`NewContact::credit_operator`]), and the MY_* fields it lacks from `stations`, the
/// account's station profiles ([`NewContact::apply_station`]; imports pass none, a file keeping
/// what it says). Every create goes through here.
pub(super) fn check_contact(
    input: &ContactInput,
    folder: Option<&Folder>,
    now: Timestamp,
    dxcc: &Dxcc,
    account: &str,
    stations: &[StationProfile],
) -> Result<NewContact, ApiError> {
    let folder = folder.ok_or_else(|| folder_not_found(&input.folder_id))?;
    let mut contact = NewContact::validate(input, folder, now)?;
    dxcc.fill(&contact.callsign, &mut contact.fields);
    contact.credit_operator(account);
    contact.apply_station(stations, account);
    Ok(contact)
}

pub async fn create(
    State(state): State<AppState>,
    Auth(who): Auth,
    _: NoQuery,
    idem_key: IdemKey,
    body: JsonBody,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let idem = idem_key.request(&body);
    let input = read_contact(body, body_fields())?;
    let folder = state
        .store
        .folder_for_contacts(&who.account_id, &input.folder_id)
        .await?;
    let stations = state.store.stations(&who.account_id).await?;
    let now = Timestamp::now();
    let contact = check_contact(
        &input,
        folder.as_ref(),
        now,
        &state.dxcc,
        &who.callsign,
        &stations,
    )?;
    let (created, replayed) = state
        .store
        .create_contact(&who.account_id, &contact, &state.limits, now, idem.as_ref())
        .await?
        .into_parts();
    let mut response = serde_json::to_value(&created).unwrap_or_default();
    if replayed {
        response["replayed"] = Value::Bool(true);
    }
    Ok((StatusCode::CREATED, Json(response)))
}

/// `DELETE /v1/contacts/{qsoId}`. With an `Idempotency-Key`, a retry after the contact is gone
/// answers the first answer again, so a client whose answer was lost does not read `not_found`
/// as a failure. The body is ignored, so the request is its method and path alone.
pub async fn delete(
    State(state): State<AppState>,
    auth: Auth,
    _: NoQuery,
    Path(qso_id): Path<String>,
    idem_key: IdemKey,
) -> ApiResult<Json<Value>> {
    auth.require_elevated()?;
    let qso_id = IdKind::Contact.parse("qsoId", &qso_id)?;
    let request = JsonBody::new(
        "DELETE",
        &format!("/v1/contacts/{qso_id}"),
        serde_json::Map::new(),
    );
    let idem = idem_key.request(&request);
    let (deleted, replayed) = state
        .store
        .delete_contact(&auth.0.account_id, &qso_id, Timestamp::now(), idem.as_ref())
        .await?
        .into_parts();
    let mut response = serde_json::to_value(&deleted).unwrap_or_default();
    if replayed {
        response["replayed"] = Value::Bool(true);
    }
    Ok(Json(response))
}

/// Reads an edit's body: each field's type, null where it is refused (for fields every contact
/// has), unknown fields, then the shape of a folder or activation id. An edit takes a create's
/// fields.
fn read_patch(mut body: JsonBody) -> Result<ContactPatch, ApiError> {
    let folder_id = match body.patch_string(FOLDER_ID.wire)? {
        Some(None) => {
            return Err(ApiError::field(
                "folderId",
                "folderId cannot be cleared: an edit keeps the contact in its folder; leave folderId out",
            ));
        }
        Some(Some(id)) => Some(id),
        None => None,
    };
    let mut patch = ContactPatch {
        folder_id,
        callsign: body.patch_required_string(CALLSIGN.wire, "W1AW")?,
        frequency: body.patch_number(FREQUENCY.wire, "14.074")?,
        mode: body.patch_required_string(MODE.wire, "FT8")?,
        time_on: body.patch_required_string(TIME_ON.wire, "2026-11-22T14:05:00Z")?,
        ..ContactPatch::default()
    };
    for seed in SEED {
        if let Some(slot) = patch.text_mut(seed) {
            *slot = body.patch_string(seed.wire)?;
        }
    }
    patch.fields = FieldsPatch::from_json(|name| body.raw(name))?;
    let known = body_fields();
    body.finish(known)?;
    if patch.is_empty() {
        return Err(ApiError::validation(format!(
            "the body names no field to change; send one or more of {}",
            known.join(", ")
        )));
    }
    if let Some(id) = &patch.folder_id {
        patch.folder_id = Some(IdKind::Folder.parse("folderId", id)?);
    }
    Ok(patch)
}

/// An edit's body read, checked and applied to the account's contact `qso_id`: the API's
/// `PATCH` and the web's contact form are this one path, with its rules and its messages.
pub(crate) async fn apply_edit(
    state: &AppState,
    account_id: &str,
    qso_id: &str,
    body: JsonBody,
    idem: Option<&IdemRequest>,
) -> Result<Idem<Contact>, StoreError> {
    let mut patch = read_patch(body)?;
    patch.follow_call(&state.dxcc);
    state
        .store
        .edit_contact(account_id, qso_id, &patch, Timestamp::now(), idem)
        .await
}

/// `PATCH /v1/contacts/{qsoId}`: the fields given replace the stored ones (null clears an
/// optional one), and the result must pass the folder's rules as a create would.
pub async fn edit(
    State(state): State<AppState>,
    Elevated(who): Elevated,
    _: NoQuery,
    Path(qso_id): Path<String>,
    idem_key: IdemKey,
    body: JsonBody,
) -> ApiResult<Json<Value>> {
    let qso_id = IdKind::Contact.parse("qsoId", &qso_id)?;
    let idem = idem_key.request(&body);
    let (contact, replayed) = apply_edit(&state, &who.account_id, &qso_id, body, idem.as_ref())
        .await?
        .into_parts();
    let mut response = serde_json::to_value(&contact).unwrap_or_default();
    if replayed {
        response["replayed"] = Value::Bool(true);
    }
    Ok(Json(response))
}
