//! `GET /v1/awards/{award}`: where the account's log stands with an award (DXCC, WAS, WAZ,
//! VUCC, POTA hunter and activator), reckoned by `svc_model::awards` from every contact of the
//! account, as the store reads what the awards read of them (`Store::award_entries`) a chunk
//! at a time, so that the memory holds the award and one chunk, never the log.

use axum::Json;
use axum::extract::{Path, RawQuery, State};

use super::AppState;
use super::error::ApiResult;
use super::extract::{Auth, Params};
use svc_model::ApiError;
use svc_model::awards::{Award, Query, Report, Tally};
use svc_store::StoreError;

pub async fn award(
    State(state): State<AppState>,
    Auth(who): Auth,
    Path(award): Path<String>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Report>> {
    let Some(award) = Award::parse(&award) else {
        return Err(ApiError::not_found(format!(
            "no award {:?}; the awards are {}",
            svc_model::ids::truncate(&award, 40),
            Award::ids()
        ))
        .into());
    };
    let params = Params::parse(query.as_deref(), &["band", "mode", "confirmedBy"])?;
    let query = Query::parse(
        params.get("band"),
        params.get("mode"),
        params.get("confirmedBy"),
    )?;
    Ok(Json(report(&state, &who.account_id, award, query).await?))
}

/// The account's report for one award: the API's and the awards page's, so both show the same
/// numbers for the same log.
pub async fn report(
    state: &AppState,
    account_id: &str,
    award: Award,
    query: Query,
) -> Result<Report, StoreError> {
    let mut tally = Tally::new(award, query, &state.dxcc);
    state
        .store
        .award_entries(account_id, award, &mut |entry| tally.add(&entry))
        .await?;
    let mut report = tally.finish();
    if matches!(award, Award::PotaHunter | Award::PotaActivator)
        && let Some(parks) = &state.parks
    {
        let references: Vec<&str> = report.rows.iter().map(|r| r.key.as_str()).collect();
        let known = parks.known(&references).await;
        for row in &mut report.rows {
            row.name = known.get(&row.key).map(|park| park.name.clone());
        }
    }
    Ok(report)
}
