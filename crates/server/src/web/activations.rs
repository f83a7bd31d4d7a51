//! The account's activations, newest first, a page at a time: when, the activator, each park
//! with its name and location, the contacts, and the valid ones toward POTA's 10 on each UTC
//! day (the model's count). Park names come from the park cache only; the ones it lacks are
//! asked of POTA in the background, so that the page never waits on POTA.

use std::collections::{BTreeMap, HashMap, HashSet};

use askama::Template;
use axum::Extension;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::html::When;
use super::session::Visitor;
use super::{Layout, Nav, Problem, respond, sign_in_first};
use crate::AppState;
use crate::extract::CursorKind;
use svc_model::activation::{POTA_NEEDED, ValidContact, valid_contacts};
use svc_model::{Folder, Timestamp};
use svc_pota::Park;
use svc_store::{Store, StoreError};

/// Activations on a page: each costs a read of its contacts.
const PER_PAGE: u32 = 25;
/// Contacts read at a time to count an activation's valid ones.
const CONTACTS_AT_ONCE: u32 = 1000;

/// A park of an activation as the page names it.
pub(super) struct ParkView {
    pub(super) reference: String,
    /// From the park cache; `None` until POTA has been asked.
    pub(super) name: Option<String>,
    /// POTA's location codes: `US-ME`, or several for a park across borders.
    pub(super) locations: Vec<String>,
}

/// The valid contacts of one UTC day.
pub(super) struct DayView {
    /// `YYYY-MM-DD`, shown when the activation has contacts on more than one day.
    pub(super) date: Option<String>,
    pub(super) valid: usize,
    pub(super) reached: bool,
}

struct ActivationView {
    /// The folder's id, for the links to its page and to its rate on the charts page.
    id: String,
    /// `YYYY-MM-DD HH:MM`.
    start: Option<When>,
    /// The time of day when it ended on its start's day, else the date too.
    end: Option<When>,
    callsign: String,
    parks: Vec<ParkView>,
    contacts: i64,
    /// The days with contacts, oldest first; empty without any.
    days: Vec<DayView>,
}

#[derive(Template)]
#[template(path = "activations.html")]
struct ActivationsPage<'a> {
    layout: Layout<'a>,
    activations: Vec<ActivationView>,
    needed: usize,
    /// The next page's query, when there are older activations.
    older: Option<String>,
    first_page: bool,
}

/// The parks of a folder's reference list (`US-0001,US-0002` for a two-fer).
pub(super) fn parks_of(folder: &Folder) -> impl Iterator<Item = &str> {
    folder
        .location_reference
        .as_deref()
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
}

/// The valid contacts of an activation by UTC day (days since the epoch), read a chunk of
/// contacts at a time so that a long activation takes no more memory than its valid set.
async fn valid_by_day(
    store: &dyn Store,
    folder: &Folder,
) -> Result<BTreeMap<i64, usize>, StoreError> {
    let mut valid: HashSet<ValidContact> = HashSet::new();
    let mut after = None;
    if folder.contact_count > 0 {
        loop {
            let mut rows = store
                .list_contacts(&folder.id, after, CONTACTS_AT_ONCE)
                .await?;
            let more = rows.len() > CONTACTS_AT_ONCE as usize;
            rows.truncate(CONTACTS_AT_ONCE as usize);
            valid.extend(valid_contacts(folder, rows.iter().map(|(c, _)| c)));
            match rows.last() {
                Some((_, position)) if more => after = Some(*position),
                _ => break,
            }
        }
    }
    Ok(per_day(valid))
}

/// How many of `valid` fall on each UTC day (days since the epoch).
pub(super) fn per_day(valid: impl IntoIterator<Item = ValidContact>) -> BTreeMap<i64, usize> {
    let mut days = BTreeMap::new();
    for contact in valid {
        *days.entry(contact.day).or_insert(0) += 1;
    }
    days
}

pub(super) fn day_views(days: BTreeMap<i64, usize>) -> Vec<DayView> {
    let dated = days.len() > 1;
    days.into_iter()
        .map(|(day, valid)| DayView {
            date: dated.then(|| Timestamp::utc_midnight(day).utc_date().to_string()),
            valid,
            reached: valid >= POTA_NEEDED,
        })
        .collect()
}

pub(super) fn ended(start: Option<Timestamp>, end: Timestamp) -> When {
    if start.is_some_and(|start| start.utc_day() == end.utc_day()) {
        When::clock(end)
    } else {
        When::minute(end)
    }
}

pub(super) fn park_views(folder: &Folder, known: &HashMap<String, Park>) -> Vec<ParkView> {
    parks_of(folder)
        .map(|reference| {
            let park = known.get(reference);
            ParkView {
                reference: reference.to_owned(),
                name: park.map(|p| p.name.clone()),
                locations: park
                    .and_then(|p| p.location.as_deref())
                    .unwrap_or_default()
                    .split(',')
                    .map(str::trim)
                    .filter(|code| !code.is_empty())
                    .map(str::to_owned)
                    .collect(),
            }
        })
        .collect()
}

pub async fn list(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
    RawQuery(query): RawQuery,
) -> Result<Response, Problem> {
    let Some(account) = &visitor.account else {
        return Ok(sign_in_first(&visitor, "/activations"));
    };
    let cursor = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(name, _)| name == "cursor")
        .map(|(_, value)| value.into_owned());
    let after = match &cursor {
        None => None,
        Some(text) => Some(CursorKind::Activations.decode(text).map_err(|_| {
            Problem::bad_request(
                "This page of activations is not one the list gave out. Open Activations from the menu to start from the newest.",
            )
        })?),
    };
    let rows = state
        .store
        .list_activations(&account.id, after, PER_PAGE)
        .await?;
    let page = crate::page(rows, PER_PAGE, CursorKind::Activations);
    let mut references: Vec<&str> = page.items.iter().flat_map(parks_of).collect();
    references.sort_unstable();
    references.dedup();
    let known = match &state.parks {
        Some(parks) => parks.known(&references).await,
        None => HashMap::new(),
    };
    let mut activations = Vec::with_capacity(page.items.len());
    for folder in &page.items {
        let days = valid_by_day(state.store.as_ref(), folder).await?;
        activations.push(ActivationView {
            id: folder.id.clone(),
            start: folder.start_time.map(When::minute),
            end: folder.end_time.map(|end| ended(folder.start_time, end)),
            callsign: folder.callsign.clone().unwrap_or_default(),
            parks: park_views(folder, &known),
            contacts: folder.contact_count,
            days: day_views(days),
        });
    }
    let older = page.cursor.map(|c| {
        form_urlencoded::Serializer::new(String::new())
            .append_pair("cursor", &c)
            .finish()
    });
    let page = ActivationsPage {
        layout: Layout::new(&visitor, "Activations", Nav::Activations),
        activations,
        needed: POTA_NEEDED,
        older,
        first_page: cursor.is_none(),
    };
    Ok(respond(StatusCode::OK, &page))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_dated_only_when_there_are_several() {
        let day = Timestamp::parse("t", "2026-11-22T12:00:00Z")
            .unwrap()
            .utc_day();
        let one = day_views(BTreeMap::from([(day, 10)]));
        assert_eq!(one.len(), 1);
        assert_eq!(
            (one[0].date.as_deref(), one[0].valid, one[0].reached),
            (None, 10, true)
        );
        let two = day_views(BTreeMap::from([(day, 12), (day + 1, 3)]));
        let shown: Vec<_> = two
            .iter()
            .map(|d| (d.date.as_deref(), d.valid, d.reached))
            .collect();
        assert_eq!(
            shown,
            [
                (Some("2026-11-22"), 12, true),
                (Some("2026-11-23"), 3, false)
            ]
        );
    }
}
