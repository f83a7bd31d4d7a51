//! The account page: callsign, plan and the native QSO count against the free plan's cap, and
//! the station profiles (`stations.rs` takes their forms).

use askama::Template;
use axum::Extension;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::html::When;
use super::session::{PostForm, Visitor};
use super::stations::{ProfileInput, inputs};
use super::{Layout, Nav, Notice, Problem, respond, sign_in_first};
use crate::AppState;
use svc_model::StationProfile;
use svc_model::fields::Field;
use svc_model::station::PROFILE_FIELDS;
use svc_store::Account;

/// A stored profile as a row: its callsign and each field's value, in the form's order.
struct ProfileRow {
    callsign: String,
    values: Vec<String>,
}

#[derive(Template)]
#[template(path = "account.html")]
struct AccountPage<'a> {
    layout: Layout<'a>,
    callsign: &'a str,
    plan: &'static str,
    count: String,
    created: When,
    profiles: Vec<ProfileRow>,
    /// The profile fields' labels, the table's columns.
    labels: Vec<&'static str>,
    /// The form: the callsign and each field as typed (or blank, the account's callsign).
    station: String,
    inputs: Vec<ProfileInput>,
}

pub async fn show(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
    RawQuery(query): RawQuery,
) -> Result<Response, Problem> {
    let Some(account) = &visitor.account else {
        return Ok(sign_in_first(&visitor, "/account"));
    };
    let query = query.unwrap_or_default();
    let value = |name: &str| {
        form_urlencoded::parse(query.as_bytes())
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.into_owned())
    };
    let notice = value("notice").and_then(|v| match v.as_str() {
            "station-saved" => Some(Notice::Info(
                "The station profile is saved: contacts logged under its callsign from now on take its values.",
            )),
            "station-deleted" => Some(Notice::Info(
                "The station profile is removed; contacts logged before keep their values.",
            )),
            _ => None,
        });
    let fill = match value("station") {
        Some(callsign) => Fill::Profile(callsign),
        None => Fill::Blank,
    };
    account_page(&state, &visitor, account, fill, notice, StatusCode::OK).await
}

/// What the profile form holds when the page is shown.
pub(super) enum Fill<'a> {
    /// The account's callsign and nothing else.
    Blank,
    /// A stored profile to change (`?station=CALL` from its row's link).
    Profile(String),
    /// What a refused form sent, to fix.
    Typed(&'a PostForm),
}

/// The page, with the profile form filled as `fill` says.
pub(super) async fn account_page(
    state: &AppState,
    visitor: &Visitor,
    account: &Account,
    fill: Fill<'_>,
    notice: Option<Notice>,
    status: StatusCode,
) -> Result<Response, Problem> {
    let count = match account
        .plan
        .cap(account.qso_cap, state.limits.free_plan_cap)
    {
        Some(cap) => format!("{} of {cap}", account.native_qso_count),
        None => format!(
            "{} (the {} plan has no cap)",
            account.native_qso_count,
            account.plan.as_str()
        ),
    };
    let stored = state.store.stations(&account.id).await?;
    let (station, inputs) = match &fill {
        Fill::Typed(form) => (
            form.field("callsign").to_owned(),
            inputs(|wire| form.field(wire).to_owned()),
        ),
        Fill::Profile(callsign) => match stored
            .iter()
            .find(|p| p.callsign.eq_ignore_ascii_case(callsign.trim()))
        {
            Some(profile) => (
                profile.callsign.clone(),
                inputs(|wire| value_of(profile, wire)),
            ),
            None => (account.callsign.clone(), inputs(|_| String::new())),
        },
        Fill::Blank => (account.callsign.clone(), inputs(|_| String::new())),
    };
    let profiles = stored
        .into_iter()
        .map(|p| ProfileRow {
            values: PROFILE_FIELDS
                .iter()
                .map(|f| p.get(*f).unwrap_or_default().to_owned())
                .collect(),
            callsign: p.callsign,
        })
        .collect();
    let page = AccountPage {
        layout: Layout::new(visitor, "Your account", Nav::Account).notice(notice),
        callsign: &account.callsign,
        plan: account.plan.as_str(),
        count,
        created: When::from(account.created_at),
        profiles,
        labels: PROFILE_FIELDS.iter().map(|f| f.def().help).collect(),
        station,
        inputs,
    };
    Ok(respond(status, &page))
}

fn value_of(profile: &StationProfile, wire: &str) -> String {
    Field::by_wire(wire)
        .and_then(|f| profile.get(f))
        .unwrap_or_default()
        .to_owned()
}
