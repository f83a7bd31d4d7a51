use axum::Json;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use serde_json::Value;

use super::error::ApiResult;
use super::extract::{Auth, CursorKind, IdemKey, JsonBody, NoQuery, Params};
use super::{AppState, page};
use svc_model::folder::category_name;
use svc_model::page::MAX_LIMIT;
use svc_model::program::parse_program_value;
use svc_model::time::parse_month;
use svc_model::{ApiError, Folder, FolderType, IdKind, NewMonthly, Page, Timestamp};
use svc_store::FolderCreated;

pub async fn list(
    State(state): State<AppState>,
    Auth(who): Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Page<Folder>>> {
    let params = Params::parse(query.as_deref(), &["type", "limit", "cursor"])?;
    let folder_type = params
        .get("type")
        .map(|t| {
            FolderType::parse(t).ok_or_else(|| {
                ApiError::field(
                    "type",
                    format!("type {t:?} is not a folder type; use activation, category, contest or monthly"),
                )
            })
        })
        .transpose()?;
    let limit = params.limit(MAX_LIMIT)?;
    let after = params.cursor(CursorKind::Folders)?;
    let mut rows = state
        .store
        .list_folders(&who.account_id, folder_type, after, limit)
        .await?;
    // A container counts the contacts of the folders below it, so the counts add up.
    if rows
        .iter()
        .any(|(f, _)| f.folder_type == FolderType::Category)
    {
        let counts = state.store.category_counts(&who.account_id).await?;
        for (folder, _) in rows
            .iter_mut()
            .filter(|(f, _)| f.folder_type == FolderType::Category)
        {
            folder.contact_count = counts
                .iter()
                .find(|(id, _)| *id == folder.id)
                .map_or(0, |(_, n)| *n);
        }
    }
    Ok(Json(page(rows, limit, CursorKind::Folders)))
}

/// Body of a created or found folder, with `replayed` on an idempotent replay.
pub fn folder_response(outcome: FolderCreated, replayed: bool) -> (StatusCode, Json<Value>) {
    let status = if outcome.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let mut body = serde_json::to_value(&outcome).unwrap_or_default();
    if replayed {
        body["replayed"] = Value::Bool(true);
    }
    (status, Json(body))
}

/// `POST /v1/folders`: find or create a monthly folder, or create a category.
pub async fn create(
    State(state): State<AppState>,
    Auth(who): Auth,
    _: NoQuery,
    idem_key: IdemKey,
    mut body: JsonBody,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let kind = body.required_string("type", "monthly")?;
    let idem = idem_key.request(&body);
    let now = Timestamp::now();
    let outcome = match FolderType::parse(kind.trim()) {
        Some(FolderType::Monthly) => {
            let month = body.required_string("month", "2026-11")?;
            let month = parse_month("month", &month)?;
            let program = parse_program_value("programId", body.value("programId").as_ref())?;
            body.finish(&["type", "month", "programId"])?;
            let monthly = NewMonthly::new(program, month);
            state
                .store
                .find_or_create_monthly(&who.account_id, &monthly, now, idem.as_ref())
                .await?
        }
        Some(FolderType::Category) => {
            let name = category_name(&body.required_string("name", "Contests")?)?;
            let parent = body
                .string("parentId")?
                .map(|p| IdKind::Folder.parse("parentId", &p))
                .transpose()?;
            body.finish(&["type", "name", "parentId"])?;
            state
                .store
                .create_category(
                    &who.account_id,
                    &name,
                    parent.as_deref(),
                    now,
                    idem.as_ref(),
                )
                .await?
        }
        Some(FolderType::Activation) => {
            return Err(ApiError::field(
                "type",
                "activation folders are made by POST /v1/activations; POST /v1/folders makes monthly and category folders",
            )
            .into());
        }
        Some(FolderType::Contest) => {
            return Err(ApiError::field(
                "type",
                "contest logs are made by POST /v1/contests; POST /v1/folders makes monthly and category folders",
            )
            .into());
        }
        None => {
            return Err(ApiError::field(
                "type",
                format!("type {kind:?} is not a folder type; use monthly or category"),
            )
            .into());
        }
    };
    let (outcome, replayed) = outcome.into_parts();
    Ok(folder_response(outcome, replayed))
}

/// `POST /v1/activations/{id}/end` and `POST /v1/contests/{id}/end`: sets the folder's
/// `endTime` (now, or `endTime` of the body); the folder after, with `replayed` on a replay.
pub async fn end(
    state: &AppState,
    account_id: &str,
    folder_id: &str,
    kind: FolderType,
    idem_key: IdemKey,
    mut body: JsonBody,
) -> ApiResult<Json<Value>> {
    let folder_id = IdKind::Folder.parse("folderId", folder_id)?;
    let now = Timestamp::now();
    let end_time = match body.string("endTime")? {
        Some(t) => Timestamp::parse_plausible("endTime", &t, now)?,
        None => now,
    };
    let idem = idem_key.request(&body);
    body.finish(&["endTime"])?;
    let (folder, replayed) = state
        .store
        .end_folder(account_id, &folder_id, kind, end_time, now, idem.as_ref())
        .await?
        .into_parts();
    Ok(changed_folder(&folder, replayed))
}

/// A folder after a change (an end, parks added): its Folder record, with `replayed` on a
/// replay.
pub fn changed_folder(folder: &Folder, replayed: bool) -> Json<Value> {
    let mut response = serde_json::to_value(folder).unwrap_or_default();
    if replayed {
        response["replayed"] = Value::Bool(true);
    }
    Json(response)
}
