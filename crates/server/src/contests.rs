//! Contest logs: `POST /v1/contests` starts one or joins that weekend's, `GET /v1/contests`
//! lists them, `GET /v1/contests/{id}` gives a log with its standing, `…/end` ends it and
//! `…/cabrillo` writes its Cabrillo file.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::contacts::folder_not_found;
use super::error::ApiResult;
use super::extract::{Auth, CursorKind, IdemKey, JsonBody, NoQuery, Params};
use super::folders::{self, folder_response};
use super::{AppState, page};
use svc_model::cabrillo::{self, Extra};
use svc_model::contest::{
    Contest, ContestInput, MAX_SERIAL_BLOCK, NewContest, Whereabouts, category,
};
use svc_model::folder::FolderRole;
use svc_model::page::MAX_LIMIT;
use svc_model::{ApiError, Contact, Folder, FolderType, IdKind, Page, Timestamp};

/// Contacts read from the store at a time, for a log's standing and Cabrillo file.
const CHUNK: u32 = 2000;

/// `GET /v1/contests`: the contest logs, oldest first.
pub async fn list(
    State(state): State<AppState>,
    Auth(who): Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Page<Folder>>> {
    let params = Params::parse(query.as_deref(), &["limit", "cursor"])?;
    let limit = params.limit(MAX_LIMIT)?;
    let after = params.cursor(CursorKind::Folders)?;
    let rows = state
        .store
        .list_folders(&who.account_id, Some(FolderType::Contest), after, limit)
        .await?;
    Ok(Json(page(rows, limit, CursorKind::Folders)))
}

/// An object of strings, e.g. `categories`, as `name=value` pairs or as a map.
fn strings(
    body: &mut JsonBody,
    name: &str,
    example: &str,
) -> Result<Vec<(String, String)>, ApiError> {
    match body.value(name) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .into_iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k, s)),
                _ => Err(ApiError::field(
                    name,
                    format!("{name}.{k} must be a string, e.g. {example}"),
                )),
            })
            .collect(),
        Some(_) => Err(ApiError::field(
            name,
            format!("{name} must be an object of strings, e.g. {example}"),
        )),
    }
}

/// `POST /v1/contests`: starts a contest log, or joins that weekend's log of the contest and call.
pub async fn create(
    State(state): State<AppState>,
    Auth(who): Auth,
    _: NoQuery,
    idem_key: IdemKey,
    mut body: JsonBody,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let input = ContestInput {
        contest_id: body.string("contestId")?,
        callsign: body.string("callsign")?,
        exchange: body.string("exchange")?,
        categories: strings(&mut body, "categories", r#"{"power": "LOW"}"#)?
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect(),
        cabrillo: strings(&mut body, "cabrillo", r#"{"name": "Hiram Maxim"}"#)?
            .into_iter()
            .collect(),
        start_time: body.string("startTime")?,
    };
    let idem = idem_key.request(&body);
    body.finish(&[
        "contestId",
        "callsign",
        "exchange",
        "categories",
        "cabrillo",
        "startTime",
    ])?;
    let now = Timestamp::now();
    let contest = NewContest::validate(&input, now)?;
    let (outcome, replayed) = state
        .store
        .find_or_create_contest(&who.account_id, &contest, now, idem.as_ref())
        .await?
        .into_parts();
    Ok(folder_response(outcome, replayed))
}

/// `POST /v1/contests/{id}/end`: sets `endTime` (now, or `endTime` of the body).
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
        FolderType::Contest,
        idem_key,
        body,
    )
    .await
}

/// `POST /v1/contests/{id}/serials`: `count` serial numbers for one station, which no other
/// station is given; the station sends them in order, its link up or down.
pub async fn serials(
    State(state): State<AppState>,
    Auth(who): Auth,
    _: NoQuery,
    Path(folder_id): Path<String>,
    idem_key: IdemKey,
    mut body: JsonBody,
) -> ApiResult<Json<Value>> {
    let folder_id = IdKind::Folder.parse("folderId", &folder_id)?;
    let count = body.required_number("count", "20")?;
    if count.fract() != 0.0 || !(1.0..=f64::from(MAX_SERIAL_BLOCK)).contains(&count) {
        return Err(ApiError::field(
            "count",
            format!("count {count} is not a whole number from 1 to {MAX_SERIAL_BLOCK}; ask for a block such as 20"),
        )
        .into());
    }
    let idem = idem_key.request(&body);
    body.finish(&["count"])?;
    let (block, replayed) = state
        .store
        .reserve_serials(
            &who.account_id,
            &folder_id,
            count as u32,
            Timestamp::now(),
            idem.as_ref(),
        )
        .await?
        .into_parts();
    let mut response = serde_json::to_value(block).unwrap_or_default();
    if replayed {
        response["replayed"] = Value::Bool(true);
    }
    Ok(Json(response))
}

/// A contest log of the account, its contest and its contacts in the order they were made.
struct Log {
    folder: Folder,
    contest: &'static Contest,
    callsign: String,
    own: Option<Whereabouts>,
    contacts: Vec<Contact>,
}

async fn read_log(state: &AppState, account_id: &str, folder_id: &str) -> ApiResult<Log> {
    let folder_id = IdKind::Folder.parse("folderId", folder_id)?;
    let folder = state
        .store
        .folder(account_id, &folder_id)
        .await?
        .ok_or_else(|| folder_not_found(&folder_id))?;
    let FolderRole::Contest {
        contest, callsign, ..
    } = folder.role()?
    else {
        return Err(ApiError::field(
            "folderId",
            format!(
                "folder {} ({}) is a {} folder, not a contest log",
                folder.name,
                folder.id,
                folder.folder_type.as_str()
            ),
        )
        .into());
    };
    let mut contacts = Vec::new();
    let mut after = None;
    loop {
        let rows = state.store.list_contacts(&folder.id, after, CHUNK).await?;
        let more = rows.len() > CHUNK as usize;
        after = rows.get(CHUNK as usize - 1).map(|(_, p)| *p);
        contacts.extend(rows.into_iter().take(CHUNK as usize).map(|(c, _)| c));
        if !more {
            break;
        }
    }
    contacts.sort_by(|a, b| a.time_on.cmp(&b.time_on).then(a.id.cmp(&b.id)));
    let own = state.dxcc.resolve(&callsign).map(Whereabouts::from);
    Ok(Log {
        folder,
        contest,
        callsign,
        own,
        contacts,
    })
}

/// `GET /v1/contests/{id}`: the log's Folder record with `standing`: QSOs, duplicates,
/// points, multipliers, claimed score, contacts by band and the operators.
pub async fn show(
    State(state): State<AppState>,
    Auth(who): Auth,
    _: NoQuery,
    Path(folder_id): Path<String>,
) -> ApiResult<Json<Value>> {
    let log = read_log(&state, &who.account_id, &folder_id).await?;
    let standing = cabrillo::standing(log.contest, &log.callsign, log.own, &log.contacts);
    let mut response = serde_json::to_value(&log.folder).unwrap_or_default();
    response["standing"] = serde_json::to_value(standing).unwrap_or_default();
    Ok(Json(response))
}

/// `GET /v1/contests/{id}/cabrillo`: the log as a Cabrillo 3.0 file. `categories`
/// (`power=LOW,assisted=NON-ASSISTED`), `name`, `email`, `address`, `club`, `location` and
/// `soapbox` add to or override what the log keeps for this file.
pub async fn cabrillo(
    State(state): State<AppState>,
    Auth(who): Auth,
    Path(folder_id): Path<String>,
    RawQuery(query): RawQuery,
) -> ApiResult<Response> {
    let mut allowed = vec!["categories", "soapbox"];
    allowed.extend(svc_model::contest::HEADER.iter().map(|(name, _)| *name));
    let params = Params::parse(query.as_deref(), &allowed)?;
    let mut extra = Extra {
        created_by: format!("svc {}", env!("CARGO_PKG_VERSION")),
        ..Extra::default()
    };
    if let Some(given) = params.get("categories") {
        for one in given.split(',').filter(|c| !c.trim().is_empty()) {
            let (kind, value) = category(one)?;
            extra.categories.insert(kind.to_owned(), value);
        }
    }
    let given: BTreeMap<String, String> = svc_model::contest::HEADER
        .iter()
        .filter_map(|(name, _)| Some(((*name).to_owned(), params.get(name)?.to_owned())))
        .collect();
    // Checked as a log's header is when it is started.
    extra.cabrillo = svc_model::contest::header(&given)?;
    if let Some(soapbox) =
        svc_model::text::multi_line("soapbox", params.get("soapbox").unwrap_or_default(), 2000)?
    {
        extra.soapbox = soapbox
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect();
    }
    let mut log = read_log(&state, &who.account_id, &folder_id).await?;
    let stored = log.folder.contest.clone().ok_or_else(ApiError::internal)?;
    // The station profile of the log's call gives the station's grid square.
    extra.grid_locator = state
        .store
        .stations(&who.account_id)
        .await?
        .into_iter()
        .find(|p| p.callsign == log.callsign)
        .and_then(|p| p.get(svc_model::Field::MyGridsquare).map(str::to_owned))
        .and_then(|grid| svc_model::cabrillo::grid_locator(&grid));
    let text = cabrillo::write(
        log.contest,
        &stored,
        &log.callsign,
        log.own,
        &mut log.contacts,
        &extra,
    )?;
    let file = format!("{}-{}.log", log.callsign.replace('/', "_"), log.contest.id);
    Ok((
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{file}\""),
            ),
        ],
        text,
    )
        .into_response())
}
