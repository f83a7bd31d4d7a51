use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue};

use super::AppState;
use super::error::ApiResult;
use super::extract::{Auth, NoQuery};
use svc_model::{PLAN_HEADER, QSO_CAP_HEADER, Whoami};

/// The identity record as published clients read it, and beside it, in headers their schemas
/// cannot refuse, the plan's own name and the account's cap.
pub async fn whoami(
    State(state): State<AppState>,
    Auth(who): Auth,
    _: NoQuery,
) -> ApiResult<(HeaderMap, Json<Whoami>)> {
    let count = state.store.native_qso_count(&who.account_id).await?;
    let mut headers = HeaderMap::new();
    headers.insert(PLAN_HEADER, HeaderValue::from_static(who.plan.as_str()));
    if let Some(cap) = who.plan.cap(who.qso_cap, state.limits.free_plan_cap) {
        headers.insert(QSO_CAP_HEADER, cap.into());
    }
    Ok((
        headers,
        Json(Whoami {
            callsign: who.callsign,
            plan: who.plan.published().to_owned(),
            tier: who.tier,
            native_qso_count: count,
            qso_cap: None,
        }),
    ))
}
