//! The account page: callsign, plan and the native QSO count against the free plan's cap.

use askama::Template;
use axum::Extension;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;

use super::html::When;
use super::session::Visitor;
use super::{Layout, Nav, respond, sign_in_first};
use crate::AppState;

#[derive(Template)]
#[template(path = "account.html")]
struct AccountPage<'a> {
    layout: Layout<'a>,
    callsign: &'a str,
    plan: &'static str,
    count: String,
    created: When,
}

pub async fn show(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
) -> Response {
    let Some(account) = &visitor.account else {
        return sign_in_first(&visitor, "/account");
    };
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
    let page = AccountPage {
        layout: Layout::new(&visitor, "Your account", Nav::Account),
        callsign: &account.callsign,
        plan: account.plan.as_str(),
        count,
        created: When::from(account.created_at),
    };
    respond(StatusCode::OK, &page)
}
