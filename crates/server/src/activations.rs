use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use serde_json::Value;

use super::error::ApiResult;
use super::extract::{Auth, CursorKind, Elevated, IdemKey, JsonBody, NoQuery, Params};
use super::folders::{self, folder_response};
use super::{AppState, page};
use svc_model::page::MAX_LIMIT;
use svc_model::program::parse_program_value;
use svc_model::{ActivationInput, Folder, FolderType, IdKind, NewActivation, Page, Timestamp};

/// `GET /v1/activations[?inProgress=true]`. With the filter, `limit` bounds the folders scanned,
/// so a page may hold fewer items than `limit`, or none, and still carry a cursor.
pub async fn list(
    State(state): State<AppState>,
    Auth(who): Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Page<Folder>>> {
    let params = Params::parse(query.as_deref(), &["inProgress", "limit", "cursor"])?;
    let in_progress = params.boolean("inProgress")?.unwrap_or(false);
    let limit = params.limit(MAX_LIMIT)?;
    let after = params.cursor(CursorKind::Activations)?;
    let rows = state
        .store
        .list_activations(&who.account_id, after, limit)
        .await?;
    let mut scanned = page(rows, limit, CursorKind::Activations);
    if in_progress {
        scanned.items.retain(Folder::in_progress);
    }
    Ok(Json(scanned))
}

pub async fn create(
    State(state): State<AppState>,
    Auth(who): Auth,
    _: NoQuery,
    idem_key: IdemKey,
    mut body: JsonBody,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let input = ActivationInput {
        reference: body.string_or_alias("locationReference", "reference")?,
        callsign: body.string("callsign")?,
        program: {
            let main = body.value("programId");
            let alias = body.value("program");
            let program = parse_program_value("programId", main.as_ref())?;
            let alias_program = parse_program_value("program", alias.as_ref())?;
            if program.is_some() && alias_program.is_some() && program != alias_program {
                return Err(svc_model::ApiError::field(
                    "programId",
                    "programId and program name the same field but differ; send one of them",
                )
                .into());
            }
            program.or(alias_program)
        },
        location_name: body.string("locationName")?,
        start_time: body.string("startTime")?,
    };
    let idem = idem_key.request(&body);
    body.finish(&[
        "locationReference",
        "reference",
        "callsign",
        "programId",
        "program",
        "locationName",
        "startTime",
    ])?;
    let now = Timestamp::now();
    let activation = NewActivation::validate(&input, now)?;
    let (outcome, replayed) = state
        .store
        .find_or_create_activation(&who.account_id, &activation, now, idem.as_ref())
        .await?
        .into_parts();
    Ok(folder_response(outcome, replayed))
}

/// `POST /v1/activations/{id}/end`: sets `endTime` (now, or `endTime` of the body).
pub async fn end(
    State(state): State<AppState>,
    Auth(who): Auth,
    _: NoQuery,
    Path(folder_id): Path<String>,
    idem_key: IdemKey,
    body: JsonBody,
) -> ApiResult<Json<Value>> {
    folders::end(
        &state,
        &who.account_id,
        &folder_id,
        FolderType::Activation,
        idem_key,
        body,
    )
    .await
}

/// `POST /v1/activations/{id}/parks`: the activation at more parks (a two-fer found out on
/// the air, or a two-fer's files imported one at a time). It rewrites every contact of the
/// activation, so it takes an elevated key, as an edit does.
pub async fn add_parks(
    State(state): State<AppState>,
    Elevated(who): Elevated,
    _: NoQuery,
    Path(folder_id): Path<String>,
    idem_key: IdemKey,
    mut body: JsonBody,
) -> ApiResult<Json<Value>> {
    let folder_id = IdKind::Folder.parse("folderId", &folder_id)?;
    let added = body
        .string_or_alias("locationReference", "reference")?
        .ok_or_else(|| {
            svc_model::ApiError::field(
                "locationReference",
                "locationReference is required: the park or parks to add, e.g. US-5678",
            )
        })?;
    let idem = idem_key.request(&body);
    body.finish(&["locationReference", "reference"])?;
    let (folder, replayed) = state
        .store
        .add_parks(
            &who.account_id,
            &folder_id,
            &added,
            Timestamp::now(),
            idem.as_ref(),
        )
        .await?
        .into_parts();
    Ok(folders::changed_folder(&folder, replayed))
}
