//! `/v1/stations`: the account's station profiles, which fill the MY_* fields of the contacts
//! logged under their callsigns (`NewContact::apply_station`). Any key reads them; changes
//! need an elevated key, as every change to the account's settings does.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde_json::{Map, Value, json};

use super::AppState;
use super::error::ApiResult;
use super::extract::{Auth, JsonBody, NoQuery};
use svc_model::callsign::normalize_callsign;
use svc_model::station::PROFILE_FIELDS;
use svc_model::{ApiError, StationProfile, Timestamp};

pub async fn list(
    State(state): State<AppState>,
    Auth(who): Auth,
    _: NoQuery,
) -> ApiResult<Json<Value>> {
    let items = state.store.stations(&who.account_id).await?;
    Ok(Json(json!({ "items": items })))
}

/// `PUT /v1/stations/{callsign}`: creates the profile or replaces it whole (a field left out is
/// no longer in it); 201 when created, 200 when replaced.
pub async fn put(
    State(state): State<AppState>,
    auth: Auth,
    _: NoQuery,
    Path(callsign): Path<String>,
    mut body: JsonBody,
) -> ApiResult<(StatusCode, Json<StationProfile>)> {
    auth.require_elevated()?;
    let mut values = Map::new();
    for field in PROFILE_FIELDS {
        if let Some(v) = body.value(field.def().wire) {
            values.insert(field.def().wire.into(), v);
        }
    }
    let known: Vec<&str> = PROFILE_FIELDS.iter().map(|f| f.def().wire).collect();
    body.finish(&known)?;
    let profile = StationProfile::read(&callsign, &values)?;
    let created = state
        .store
        .put_station(&auth.0.account_id, &profile, Timestamp::now())
        .await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(profile)))
}

pub async fn delete(
    State(state): State<AppState>,
    auth: Auth,
    _: NoQuery,
    Path(callsign): Path<String>,
) -> ApiResult<Json<Value>> {
    auth.require_elevated()?;
    let callsign = normalize_callsign("callsign", &callsign)?;
    if !state
        .store
        .delete_station(&auth.0.account_id, &callsign)
        .await?
    {
        return Err(ApiError::not_found(format!(
            "no station profile for {callsign}; svc station list shows the account's profiles"
        ))
        .into());
    }
    Ok(Json(json!({ "callsign": callsign, "deleted": true })))
}
