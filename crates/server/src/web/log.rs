//! The account's log: every contact of every folder, newest first, a page at a time, read by
//! the database a page at a time (the API's listing of All Contacts), a search of it (the
//! model's [`ContactFilter`], answered by the database a page at a time too), and the whole
//! log as an ADI or ADX file through the API's streaming export.

use askama::Template;
use axum::Extension;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::rows::ContactRow;
use super::session::Visitor;
use super::{Layout, Nav, Notice, Problem, respond, sign_in_first};
use crate::AppState;
use crate::export::{Source, source_of, stream};
use crate::extract::CursorKind;
use svc_adif::Format;
use svc_model::band::BAND_NAMES;
use svc_model::page::MAX_LIMIT;
use svc_model::search::{ContactFilter, MAX_VALUE, PARAMS};
use svc_store::StoreError;

/// Contacts on a page.
const PER_PAGE: u32 = 50;

#[derive(Template)]
#[template(path = "log.html")]
struct LogPage<'a> {
    layout: Layout<'a>,
    contacts: Vec<ContactRow>,
    /// The folders a download may take, `(id, name)`: the account's first page of them.
    folders: Vec<(String, String)>,
    /// The next page's query, when there are older contacts.
    older: Option<String>,
    /// The first page's query: the search alone, empty without one.
    newest: String,
    first_page: bool,
    search: SearchForm,
}

/// The search form's values as typed (each cut to what a search takes), for the form to show.
#[derive(Default)]
struct SearchForm {
    call: String,
    park: String,
    grid: String,
    band: String,
    mode: String,
    from: String,
    to: String,
    confirmed: String,
    /// Whether anything was asked: the page lists matches, not the whole log.
    asked: bool,
}

impl SearchForm {
    fn of(query: Option<&str>) -> SearchForm {
        let mut form = SearchForm::default();
        for (name, value) in form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
            let value: String = value.chars().take(MAX_VALUE).collect();
            form.asked |= PARAMS.contains(&name.as_ref()) && !value.trim().is_empty();
            let slot = match name.as_ref() {
                "call" => &mut form.call,
                "park" => &mut form.park,
                "grid" => &mut form.grid,
                "band" => &mut form.band,
                "mode" => &mut form.mode,
                "from" => &mut form.from,
                "to" => &mut form.to,
                "confirmed" => &mut form.confirmed,
                _ => continue,
            };
            *slot = value;
        }
        form
    }

    fn bands(&self) -> &'static [&'static str] {
        &BAND_NAMES
    }

    fn band_is(&self, band: &str) -> bool {
        self.band.eq_ignore_ascii_case(band)
    }
}

/// The search of a query string: the pairs are read once by the model.
fn filter_of(query: Option<&str>) -> Result<ContactFilter, String> {
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .map(|(n, v)| (n.into_owned(), v.into_owned()))
        .collect();
    ContactFilter::from_pairs(pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())))
        .map_err(|e| e.message)
}

/// A query string of the search's pairs, then `extra`.
fn search_query(filter: &ContactFilter, extra: Option<(&str, &str)>) -> String {
    let mut query = form_urlencoded::Serializer::new(String::new());
    for (name, value) in filter.pairs() {
        query.append_pair(name, &value);
    }
    if let Some((name, value)) = extra {
        query.append_pair(name, value);
    }
    query.finish()
}

fn query_value(query: Option<&str>, name: &str) -> Option<String> {
    form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.into_owned())
}

pub async fn list(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
    RawQuery(query): RawQuery,
) -> Result<Response, Problem> {
    let Some(account) = &visitor.account else {
        return Ok(sign_in_first(&visitor, "/log"));
    };
    let search = SearchForm::of(query.as_deref());
    let filter = match filter_of(query.as_deref()) {
        Ok(filter) => filter,
        Err(message) => {
            // The form again with what was typed and what to fix; nothing is looked up.
            let page = LogPage {
                layout: Layout::new(&visitor, "Log", Nav::Log).notice(Some(Notice::Error(
                    format!("{message}. Change the search and try again."),
                ))),
                contacts: Vec::new(),
                folders: Vec::new(),
                older: None,
                newest: String::new(),
                first_page: true,
                search,
            };
            return Ok(respond(StatusCode::BAD_REQUEST, &page));
        }
    };
    let cursor = query_value(query.as_deref(), "cursor");
    let after = match &cursor {
        None => None,
        Some(text) => Some(CursorKind::Contacts.decode(text).map_err(|_| {
            Problem::bad_request(
                "This page of the log is not one the log gave out. Open Log from the menu to start from the newest contact.",
            )
        })?),
    };
    let rows = if filter.is_empty() {
        state
            .store
            .list_contacts_below(&account.id, None, after, PER_PAGE)
            .await?
    } else {
        state
            .store
            .search_contacts(&account.id, &filter, after, PER_PAGE)
            .await?
    };
    let page = crate::page(rows, PER_PAGE, CursorKind::Contacts);
    let older = page
        .cursor
        .map(|c| search_query(&filter, Some(("cursor", &c))));
    // One page of folders, as the API lists them: a log with more lists its first ones.
    let folders = state
        .store
        .list_folders(&account.id, None, None, MAX_LIMIT)
        .await?
        .into_iter()
        .take(MAX_LIMIT as usize)
        .filter(|(f, _)| f.parent_id.is_some())
        .map(|(f, _)| (f.id, f.name))
        .collect();
    let deleted = query_value(query.as_deref(), "notice").is_some_and(|n| n == "deleted");
    let notice = deleted.then_some(Notice::Info("The contact is deleted."));
    let page = LogPage {
        layout: Layout::new(&visitor, "Log", Nav::Log).notice(notice),
        contacts: page.items.iter().map(ContactRow::from).collect(),
        folders,
        older,
        newest: search_query(&filter, None),
        first_page: cursor.is_none(),
        search,
    };
    Ok(respond(StatusCode::OK, &page))
}

/// `GET /log/export?format=adi|adx[&folderId=…]`: the whole log or a folder's contacts as one
/// file, the bytes `GET /v1/adif` sends.
pub async fn export(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
    RawQuery(query): RawQuery,
) -> Result<Response, Problem> {
    let Some(account) = &visitor.account else {
        return Ok(sign_in_first(&visitor, "/log"));
    };
    let format = match query_value(query.as_deref(), "format").as_deref() {
        None | Some("adi") => Format::Adi,
        Some("adx") => Format::Adx,
        Some(_) => {
            return Err(Problem::bad_request(
                "The log downloads as adi or adx only. Use a download link on the Log page.",
            ));
        }
    };
    let source = match query_value(query.as_deref(), "folderId").as_deref() {
        None | Some("") => Source::Below(None),
        Some(id) => match source_of(&state, &account.id, id).await {
            Ok(source) => source,
            Err(StoreError::Api(_)) => {
                return Err(Problem::not_found(
                    "Your log has no such folder. Pick one from the list on the Log page.",
                ));
            }
            Err(e) => return Err(e.into()),
        },
    };
    stream(
        &state,
        &account.id,
        &account.callsign,
        source,
        format,
        None,
        None,
    )
    .map_err(|e| {
        tracing::error!(error = %e.message, "the log's download could not start");
        Problem::internal()
    })
}
