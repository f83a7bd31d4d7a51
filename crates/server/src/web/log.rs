//! The account's log: every contact of every folder, newest first, a page at a time, read by
//! the database a page at a time (the API's listing of All Contacts), and the whole log as an
//! ADI or ADX file through the API's streaming export.

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
use svc_model::page::MAX_LIMIT;
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
    first_page: bool,
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
    let cursor = query_value(query.as_deref(), "cursor");
    let after = match &cursor {
        None => None,
        Some(text) => Some(CursorKind::Contacts.decode(text).map_err(|_| {
            Problem::bad_request(
                "This page of the log is not one the log gave out. Open Log from the menu to start from the newest contact.",
            )
        })?),
    };
    let rows = state
        .store
        .list_contacts_below(&account.id, None, after, PER_PAGE)
        .await?;
    let page = crate::page(rows, PER_PAGE, CursorKind::Contacts);
    let older = page.cursor.map(|c| {
        form_urlencoded::Serializer::new(String::new())
            .append_pair("cursor", &c)
            .finish()
    });
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
        first_page: cursor.is_none(),
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
