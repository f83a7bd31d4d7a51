//! `GET /v1/awards/{award}`: where the account's log stands with an award (DXCC, WAS, WAZ,
//! VUCC, POTA hunter and activator), reckoned by `svc_model::awards` from every contact of the
//! account, read a page at a time so that the memory holds the award and one page, never the
//! log.

use axum::Json;
use axum::extract::{Path, RawQuery, State};

use super::AppState;
use super::error::ApiResult;
use super::extract::{Auth, Params};
use svc_model::ApiError;
use svc_model::awards::{Award, Query, Report, Tally};
use svc_store::StoreError;

/// Contacts read from the store at a time.
const PAGE: u32 = 5000;

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
    let mut after = None;
    loop {
        let rows = state
            .store
            .list_contacts_below(account_id, None, after, PAGE)
            .await?;
        for (contact, _) in rows.iter().take(PAGE as usize) {
            tally.add(contact);
        }
        if rows.len() <= PAGE as usize {
            break;
        }
        after = Some(rows[PAGE as usize - 1].1);
    }
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
