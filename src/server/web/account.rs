//! The account page: callsign, plan and the native QSO count against the free plan's cap.

use axum::Extension;
use axum::extract::State;
use axum::response::Response;

use super::html::{Html, render, time};
use super::session::Visitor;
use super::{Nav, Page, sign_in_first};
use crate::model::Plan;
use crate::server::AppState;

pub async fn show(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
) -> Response {
    let Some(account) = &visitor.account else {
        return sign_in_first(&visitor, "/account");
    };
    let count = match account.plan {
        Plan::Free => format!(
            "{} of {}",
            account.native_qso_count, state.limits.free_plan_cap
        ),
        Plan::Paid => format!("{} (the paid plan has no cap)", account.native_qso_count),
    };
    let content = render(
        include_str!("../../../assets/account.html"),
        &[
            ("callsign", Html::text(&account.callsign)),
            ("plan", Html::text(account.plan.as_str())),
            ("count", Html::text(&count)),
            ("created", time(account.created_at)),
        ],
    );
    Page::new("Your account", Nav::Account, content).render(&visitor)
}
