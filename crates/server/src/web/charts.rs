//! Charts of the account's log as inline SVG bar charts: contacts per band, per mode, per
//! month and per hour of the day (UTC), and an activation's rate, contacts per 10 minutes.
//! Each is counted by the database (`Store::contacts_by`, `Store::contacts_in_time`), so a
//! chart costs a few rows however long the log is.

use std::collections::BTreeMap;

use chrono::Datelike;

use askama::Template;
use axum::Extension;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::html::When;
use super::session::Visitor;
use super::svg::{CHART_WIDTH, Chart, band_order};
use super::{Layout, Nav, Problem, respond, sign_in_first};
use crate::AppState;
use svc_model::{FolderType, Timestamp};
use svc_store::{CountBy, StoreError, TimeSlice};

/// Ten minutes, the slice of an activation's rate.
const TEN_MINUTES_MS: i64 = 600_000;
/// An activation's slices drawn with the empty ones between (two days of them); a longer one
/// shows only the slices it has contacts in.
const MAX_RATE_SLICES: i64 = 288;
/// Months drawn with the empty ones between them; a log spanning more shows only the months
/// it has contacts in.
const MAX_MONTHS: usize = 600;
/// Activations offered in the chooser: the newest page of them.
const ACTIVATIONS_OFFERED: u32 = 50;

/// An activation offered in the chooser.
struct Choice {
    id: String,
    label: String,
    chosen: bool,
}

#[derive(Template)]
#[template(path = "charts.html")]
struct ChartsPage<'a> {
    layout: Layout<'a>,
    width: u32,
    charts: Vec<Chart>,
    activations: Vec<Choice>,
    /// The chosen activation's rate.
    rate: Option<Chart>,
}

/// Months `YYYY-MM` from the counts of UTC days, with the months between that have none.
fn months(days: &[(i64, i64)]) -> Vec<(String, i64)> {
    let mut months: BTreeMap<(i32, u32), i64> = BTreeMap::new();
    for &(day, n) in days {
        let date = Timestamp::utc_midnight(day).utc_date();
        *months.entry((date.year(), date.month())).or_default() += n;
    }
    let (Some(&first), Some(&last)) = (months.keys().next(), months.keys().next_back()) else {
        return Vec::new();
    };
    let span = (last.0 - first.0) as usize * 12 + last.1 as usize - first.1 as usize + 1;
    let keys: Vec<(i32, u32)> = if span <= MAX_MONTHS {
        (0..span)
            .map(|i| {
                let m = first.1 as usize - 1 + i;
                (first.0 + (m / 12) as i32, (m % 12) as u32 + 1)
            })
            .collect()
    } else {
        months.keys().copied().collect()
    };
    keys.into_iter()
        .map(|(y, m)| {
            (
                format!("{y:04}-{m:02}"),
                months.get(&(y, m)).copied().unwrap_or(0),
            )
        })
        .collect()
}

/// The 24 hours of the day, `00` to `23`, each with its contacts.
fn hours(counts: &[(i64, i64)]) -> Vec<(String, i64)> {
    (0..24)
        .map(|h| {
            let n = counts
                .iter()
                .filter(|(slice, _)| slice.rem_euclid(24) == h)
                .map(|(_, n)| n)
                .sum();
            (format!("{h:02}"), n)
        })
        .collect()
}

/// Ten-minute slices from the first with contacts to the last, labelled with their UTC start
/// (`HH:MM`, with the date when the activation spans days).
fn rate(slices: &[(i64, i64)]) -> Vec<(String, i64)> {
    let counts: BTreeMap<i64, i64> = slices.iter().copied().collect();
    let (Some(&first), Some(&last)) = (counts.keys().next(), counts.keys().next_back()) else {
        return Vec::new();
    };
    let at = |slice: i64| Timestamp(slice * TEN_MINUTES_MS);
    let dated = at(first).utc_day() != at(last).utc_day();
    let label = |slice: i64| {
        let text = When::minute(at(slice)).shown;
        if dated {
            text
        } else {
            text.get(11..).unwrap_or(&text).to_owned()
        }
    };
    if last - first < MAX_RATE_SLICES {
        (first..=last)
            .map(|s| (label(s), counts.get(&s).copied().unwrap_or(0)))
            .collect()
    } else {
        counts.into_iter().map(|(s, n)| (label(s), n)).collect()
    }
}

fn query_value(query: Option<&str>, name: &str) -> Option<String> {
    form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.into_owned())
}

pub async fn show(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
    RawQuery(query): RawQuery,
) -> Result<Response, Problem> {
    let Some(account) = &visitor.account else {
        return Ok(sign_in_first(&visitor, "/charts"));
    };
    let chosen = query_value(query.as_deref(), "activation").filter(|id| !id.is_empty());
    let store = state.store.as_ref();
    let mut bands = store.contacts_by(&account.id, CountBy::Band).await?;
    bands.sort_by(|a, b| band_order(&a.0, &b.0));
    let mut modes = store.contacts_by(&account.id, CountBy::Mode).await?;
    modes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let days = store
        .contacts_in_time(&account.id, None, TimeSlice::Day)
        .await?;
    let by_hour = store
        .contacts_in_time(&account.id, None, TimeSlice::HourOfDay)
        .await?;
    let charts = if bands.is_empty() {
        Vec::new()
    } else {
        vec![
            Chart::new("Contacts per band", bands),
            Chart::new("Contacts per mode", modes),
            Chart::new("Contacts per month", months(&days)),
            Chart::new("Contacts per hour of the day (UTC)", hours(&by_hour)),
        ]
    };
    let rate = match &chosen {
        None => None,
        Some(id) => {
            let folder = match store.folder(&account.id, id).await {
                Ok(folder) => folder,
                Err(StoreError::Api(_)) => None,
                Err(e) => return Err(e.into()),
            };
            let Some(folder) = folder.filter(|f| f.folder_type == FolderType::Activation) else {
                return Err(Problem::not_found(
                    "Your log has no such activation. Pick one from the list on the Charts page.",
                ));
            };
            let slices = store
                .contacts_in_time(&account.id, Some(&folder.id), TimeSlice::TenMinutes)
                .await?;
            let name = folder
                .location_reference
                .clone()
                .unwrap_or_else(|| folder.name.clone());
            Some(Chart::new(
                format!("Contacts per 10 minutes at {name}"),
                rate(&slices),
            ))
        }
    };
    let activations = store
        .list_activations(&account.id, None, ACTIVATIONS_OFFERED)
        .await?
        .into_iter()
        .take(ACTIVATIONS_OFFERED as usize)
        .map(|(folder, _)| {
            let start = folder
                .start_time
                .map(|t| When::minute(t).shown)
                .unwrap_or_default();
            let parks = folder.location_reference.as_deref().unwrap_or_default();
            Choice {
                chosen: chosen.as_deref() == Some(folder.id.as_str()),
                label: format!("{start} {parks}").trim().to_owned(),
                id: folder.id,
            }
        })
        .collect();
    let page = ChartsPage {
        layout: Layout::new(&visitor, "Charts", Nav::Charts),
        width: CHART_WIDTH,
        charts,
        activations,
        rate,
    };
    Ok(respond(StatusCode::OK, &page))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(date: &str) -> i64 {
        Timestamp::parse("t", &format!("{date}T12:00:00Z"))
            .unwrap()
            .utc_day()
    }

    #[test]
    fn months_are_summed_and_the_empty_ones_between_shown() {
        let shown = months(&[
            (day("2025-11-02"), 3),
            (day("2025-11-30"), 1),
            (day("2026-01-15"), 2),
        ]);
        assert_eq!(
            shown,
            [
                ("2025-11".to_owned(), 4),
                ("2025-12".to_owned(), 0),
                ("2026-01".to_owned(), 2)
            ]
        );
        assert!(months(&[]).is_empty());
    }

    #[test]
    fn every_hour_is_shown() {
        let shown = hours(&[(0, 2), (23, 5)]);
        assert_eq!(shown.len(), 24);
        assert_eq!(shown[0], ("00".to_owned(), 2));
        assert_eq!(shown[23], ("23".to_owned(), 5));
        assert_eq!(shown[12].1, 0);
    }

    #[test]
    fn a_rate_is_per_ten_minutes_with_the_empty_ones_between() {
        let noon = Timestamp::parse("t", "2025-06-14T12:00:00Z")
            .unwrap()
            .millis()
            / 600_000;
        let shown = rate(&[(noon, 4), (noon + 2, 1)]);
        assert_eq!(
            shown,
            [
                ("12:00".to_owned(), 4),
                ("12:10".to_owned(), 0),
                ("12:20".to_owned(), 1)
            ]
        );
    }
}
