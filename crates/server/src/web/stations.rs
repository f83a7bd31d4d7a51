//! The account page's station profiles: the account's own station (grid, state, county, rig,
//! antenna, power) under each station callsign, which fill the MY_* fields of the contacts
//! logged under it. Set and removed as `PUT` and `DELETE /v1/stations/{callsign}` do, through
//! the same model rules and messages (`StationProfile::read`).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value};

use super::account::{Fill, account_page};
use super::auth::capitalized;
use super::session::PostForm;
use super::{Notice, Problem, see_other, sign_in_first};
use crate::AppState;
use svc_model::callsign::normalize_callsign;
use svc_model::fields::Kind;
use svc_model::station::PROFILE_FIELDS;
use svc_model::{StationProfile, Timestamp};

/// A profile field as the form shows it: its wire name (the input's name), what it is, and the
/// value to fill in.
pub(super) struct ProfileInput {
    pub wire: &'static str,
    pub label: &'static str,
    pub value: String,
}

/// The form's fields, filled from `value` (a profile's, or what was typed).
pub(super) fn inputs(value: impl Fn(&'static str) -> String) -> Vec<ProfileInput> {
    PROFILE_FIELDS
        .iter()
        .map(|f| {
            let def = f.def();
            ProfileInput {
                wire: def.wire,
                label: def.help,
                value: value(def.wire),
            }
        })
        .collect()
}

/// `POST /account/stations`: sets the profile of the form's callsign, replacing it whole; an
/// emptied field is left out of it.
pub async fn put(State(state): State<AppState>, form: PostForm) -> Result<Response, Problem> {
    let visitor = &form.visitor;
    let Some(account) = &visitor.account else {
        return Ok(sign_in_first(visitor, "/account"));
    };
    let mut values = Map::new();
    for field in PROFILE_FIELDS {
        let def = field.def();
        let typed = form.field(def.wire).trim();
        if typed.is_empty() {
            continue;
        }
        // A number field takes a JSON number on the wire; text that is not one goes as it
        // was typed, for the model's message to name.
        let value = match (def.kind, typed.parse::<f64>()) {
            (Kind::Number(..), Ok(n)) => serde_json::Number::from_f64(n)
                .map_or_else(|| Value::String(typed.into()), Value::Number),
            _ => Value::String(typed.into()),
        };
        values.insert(def.wire.into(), value);
    }
    let profile = match StationProfile::read(form.field("callsign"), &values) {
        Ok(profile) => profile,
        Err(e) => {
            let message = format!("{} Nothing was changed.", capitalized(&e.message));
            return account_page(
                &state,
                visitor,
                account,
                Fill::Typed(&form),
                Some(Notice::Error(message)),
                StatusCode::BAD_REQUEST,
            )
            .await;
        }
    };
    state
        .store
        .put_station(&account.id, &profile, Timestamp::now())
        .await?;
    Ok(see_other("/account?notice=station-saved"))
}

/// `POST /account/stations/delete`, the form's `callsign` the profile's (a portable call's `/`
/// would not do in a path).
pub async fn delete(State(state): State<AppState>, form: PostForm) -> Result<Response, Problem> {
    let visitor = &form.visitor;
    let Some(account) = &visitor.account else {
        return Ok(sign_in_first(visitor, "/account"));
    };
    let callsign =
        normalize_callsign("callsign", form.field("callsign")).map_err(|_| no_such_profile())?;
    if !state.store.delete_station(&account.id, &callsign).await? {
        return Err(no_such_profile());
    }
    Ok(see_other("/account?notice=station-deleted"))
}

fn no_such_profile() -> Problem {
    Problem::not_found("Your account has no such station profile. Open Account from the menu.")
}
