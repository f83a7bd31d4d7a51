//! The award matrices of the account's log: one award at a time (DXCC, WAS, WAZ, VUCC, POTA
//! hunter and activator), filtered by band and mode as `GET /v1/awards/{award}` is, and
//! reckoned by the same code (`crate::awards::report`), so the page and the API give the same
//! numbers for the same log.

use askama::Template;
use axum::Extension;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::session::Visitor;
use super::{Layout, Nav, Problem, respond, sign_in_first};
use crate::AppState;
use svc_model::awards::{Award, CLASSES, Count, Mark, Query, Report, SAT, Service, class_name};
use svc_model::band::BAND_NAMES;

/// An option of a selector.
struct Choice {
    value: String,
    label: String,
    chosen: bool,
}

/// A total as the page shows it.
struct Total {
    column: String,
    worked: u32,
    confirmed: u32,
}

/// A row of the matrix: its key and name, then its mark in each column (`W`, `C` or blank).
struct RowView {
    key: String,
    name: String,
    mixed: &'static str,
    bands: Vec<&'static str>,
    modes: Vec<&'static str>,
}

#[derive(Template)]
#[template(path = "awards.html")]
struct AwardsPage<'a> {
    layout: Layout<'a>,
    awards: Vec<Choice>,
    bands: Vec<Choice>,
    modes: Vec<Choice>,
    /// The services whose confirmations count, ticked as the report counted them.
    services: Vec<Choice>,
    award_name: &'static str,
    row_name: &'static str,
    available: Option<usize>,
    mixed: Total,
    band_totals: Vec<Total>,
    mode_totals: Vec<Total>,
    columns: Vec<String>,
    classes: Vec<&'static str>,
    rows: Vec<RowView>,
    deleted: Option<Total>,
    confirmed_by: String,
    /// A band or mode was asked for.
    filtered: bool,
}

fn name_of(award: Award) -> (&'static str, &'static str) {
    match award {
        Award::Dxcc => ("DXCC", "Entity"),
        Award::Was => ("Worked All States", "State"),
        Award::Waz => ("Worked All Zones", "CQ zone"),
        Award::Vucc => ("VUCC", "Grid square"),
        Award::PotaHunter => ("POTA hunter", "Park"),
        Award::PotaActivator => ("POTA activator", "Park"),
    }
}

fn mark(mark: Option<&Mark>) -> &'static str {
    match mark {
        Some(Mark::C) => "C",
        Some(Mark::W) => "W",
        None => "",
    }
}

fn total(column: &str, count: Option<&Count>) -> Total {
    let count = count.copied().unwrap_or_default();
    Total {
        column: column.to_owned(),
        worked: count.worked,
        confirmed: count.confirmed,
    }
}

/// A confirming service as the page names it.
fn service_label(service: Service) -> &'static str {
    match service {
        Service::Lotw => "LoTW",
        Service::Eqsl => "eQSL",
        Service::Card => "paper card",
        Service::Qrz => "QRZ.com",
    }
}

fn query_value(query: Option<&str>, name: &str) -> Option<String> {
    form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.into_owned())
        .filter(|v| !v.trim().is_empty())
}

fn choices(values: impl IntoIterator<Item = (String, String)>, chosen: &str) -> Vec<Choice> {
    values
        .into_iter()
        .map(|(value, label)| Choice {
            chosen: value.eq_ignore_ascii_case(chosen),
            value,
            label,
        })
        .collect()
}

pub async fn show(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
    RawQuery(query): RawQuery,
) -> Result<Response, Problem> {
    let Some(account) = &visitor.account else {
        return Ok(sign_in_first(&visitor, "/awards"));
    };
    let raw = query.as_deref();
    let award = match query_value(raw, "award") {
        None => Award::Dxcc,
        Some(id) => Award::parse(&id).ok_or_else(|| {
            Problem::bad_request(format!(
                "There is no award {:?}. Pick one of {} from the list.",
                svc_model::ids::truncate(&id, 40),
                Award::ids()
            ))
        })?,
    };
    let (band, mode) = (query_value(raw, "band"), query_value(raw, "mode"));
    // One box a service: each ticked one is a `confirmedBy` of its own; none ticked is the
    // API's default, LoTW and paper cards.
    let ticked: Vec<String> = form_urlencoded::parse(raw.unwrap_or_default().as_bytes())
        .filter(|(n, _)| n == "confirmedBy")
        .map(|(_, v)| v.into_owned())
        .collect();
    let confirmed_by = (!ticked.is_empty()).then(|| ticked.join(","));
    let asked = Query::parse(band.as_deref(), mode.as_deref(), confirmed_by.as_deref())
        .map_err(|e| Problem::bad_request(format!("{} Pick one from the list.", e.message)))?;
    let report: Report = crate::awards::report(&state, &account.id, award, asked.clone()).await?;
    let (award_name, row_name) = name_of(award);
    let classes: Vec<&'static str> = CLASSES.into_iter().map(class_name).collect();
    let rows = report
        .rows
        .iter()
        .map(|row| RowView {
            key: row.key.clone(),
            name: row.name.clone().unwrap_or_default(),
            mixed: mark(Some(&row.mixed)),
            bands: report
                .columns
                .iter()
                .map(|c| mark(row.bands.get(c)))
                .collect(),
            modes: classes.iter().map(|c| mark(row.modes.get(*c))).collect(),
        })
        .collect();
    let awards = choices(
        Award::ALL.map(|a| (a.id().to_owned(), name_of(a).0.to_owned())),
        award.id(),
    );
    let chosen_band = asked.band.clone().unwrap_or_default();
    let bands = choices(
        std::iter::once((String::new(), "Every band".to_owned()))
            .chain(BAND_NAMES.iter().map(|b| (b.to_string(), b.to_string())))
            .chain(std::iter::once((SAT.to_owned(), "Satellite".to_owned()))),
        &chosen_band,
    );
    let chosen_mode = asked.mode.as_ref().map(|m| m.name()).unwrap_or_default();
    let modes = choices(
        std::iter::once((String::new(), "Every mode".to_owned()))
            .chain(classes.iter().map(|c| (c.to_string(), c.to_uppercase())))
            .chain(
                // A single mode asked for in the address is kept as a choice of its own.
                (!chosen_mode.is_empty() && !classes.contains(&chosen_mode.as_str()))
                    .then(|| (chosen_mode.clone(), chosen_mode.clone())),
            ),
        &chosen_mode,
    );
    let services = Service::ALL
        .into_iter()
        .map(|service| Choice {
            value: service.id().to_owned(),
            label: service_label(service).to_owned(),
            chosen: report.confirmed_by.contains(&service),
        })
        .collect();
    let filtered = asked.band.is_some() || asked.mode.is_some();
    let page = AwardsPage {
        filtered,
        layout: Layout::new(&visitor, "Awards", Nav::Awards),
        awards,
        bands,
        modes,
        services,
        award_name,
        row_name,
        available: report.available,
        mixed: total("mixed", Some(&report.totals.mixed)),
        band_totals: report
            .columns
            .iter()
            .map(|c| total(c, report.totals.bands.get(c)))
            .collect(),
        mode_totals: classes
            .iter()
            .map(|c| total(c, report.totals.modes.get(*c)))
            .collect(),
        columns: report.columns.clone(),
        classes,
        rows,
        deleted: report
            .deleted
            .as_ref()
            .map(|d| total("deleted", Some(&d.totals.mixed))),
        confirmed_by: report
            .confirmed_by
            .iter()
            .map(|s| service_label(*s))
            .collect::<Vec<_>>()
            .join(", "),
    };
    Ok(respond(StatusCode::OK, &page))
}
