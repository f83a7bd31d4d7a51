use axum::Json;
use axum::extract::State;

use super::AppState;
use super::error::ApiResult;
use super::extract::{Auth, NoQuery};
use crate::model::Whoami;

pub async fn whoami(
    State(state): State<AppState>,
    Auth(who): Auth,
    _: NoQuery,
) -> ApiResult<Json<Whoami>> {
    let count = state.store.native_qso_count(&who.account_id).await?;
    Ok(Json(Whoami {
        callsign: who.callsign,
        plan: who.plan.as_str().to_owned(),
        tier: who.tier,
        native_qso_count: count,
    }))
}
