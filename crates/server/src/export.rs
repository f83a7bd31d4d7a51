//! `GET /v1/adif`: a folder's contacts, a category's or the whole account's, as one ADIF file
//! streamed while it is read from the store, so that 100,000 contacts go out in one request
//! (not pages that spend the burst limit) with the server's memory flat.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use tokio::sync::mpsc;

use super::AppState;
use super::contacts::folder_not_found;
use super::error::ApiResult;
use super::extract::{Auth, Params};
use svc_adif::{Format, Writer};
use svc_model::{ApiError, Contact, FolderType, IdKind, Timestamp};
use svc_store::{Position, Store, StoreError, StoreResult};

/// Contacts read from the store at a time: one chunk of the answer.
const CHUNK: u32 = 2000;
/// Chunks written ahead of a slow reader, at most; the store waits for the reader past that.
const AHEAD: usize = 4;
/// Pages read ahead of the writing, at most, besides the one being read.
const PAGES_AHEAD: usize = 1;

type Page = StoreResult<Vec<(Contact, Position)>>;

/// Where the contacts come from.
#[derive(Clone)]
pub(crate) enum Source {
    /// One monthly or activation folder.
    Folder(String),
    /// Every folder below a category; `None` is the whole account.
    Below(Option<String>),
}

fn time_param(params: &Params, name: &str) -> Result<Option<Timestamp>, ApiError> {
    params
        .get(name)
        .map(|t| Timestamp::parse(name, t))
        .transpose()
}

pub async fn adif(
    State(state): State<AppState>,
    Auth(who): Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Response> {
    let params = Params::parse(query.as_deref(), &["folderId", "since", "until", "format"])?;
    let format = match params.get("format") {
        None | Some("adi") => Format::Adi,
        Some("adx") => Format::Adx,
        Some(other) => {
            return Err(ApiError::field(
                "format",
                format!("format {other:?} is not one svc writes; use adi or adx"),
            )
            .into());
        }
    };
    let since = time_param(&params, "since")?;
    let until = time_param(&params, "until")?;
    let source = match params.get("folderId") {
        None => Source::Below(None),
        Some(id) => source_of(&state, &who.account_id, id).await?,
    };

    Ok(stream(
        &state,
        &who.account_id,
        &who.callsign,
        source,
        format,
        since,
        until,
    )?)
}

/// Where the contacts of the account's folder `folder_id` come from: a category's from the
/// folders below it, the root's from the whole account.
pub(crate) async fn source_of(
    state: &AppState,
    account_id: &str,
    folder_id: &str,
) -> Result<Source, StoreError> {
    let id = IdKind::Folder.parse("folderId", folder_id)?;
    let Some(folder) = state.store.folder(account_id, &id).await? else {
        return Err(folder_not_found(&id).into());
    };
    Ok(match (folder.folder_type, folder.parent_id) {
        (FolderType::Category, None) => Source::Below(None),
        (FolderType::Category, Some(_)) => Source::Below(Some(id)),
        _ => Source::Folder(id),
    })
}

/// The account's contacts of `source` with a time-on in `[since, until)` as one ADIF file,
/// streamed: the API's export and the log page's download are this one answer.
pub(crate) fn stream(
    state: &AppState,
    account_id: &str,
    callsign: &str,
    source: Source,
    format: Format,
    since: Option<Timestamp>,
    until: Option<Timestamp>,
) -> Result<Response, ApiError> {
    let writer = Writer::with_format(Vec::new(), chrono::Utc::now(), format)
        .map_err(|_| ApiError::internal())?;
    let (tx, rx) = mpsc::channel::<Result<Bytes, std::io::Error>>(AHEAD);
    let pages = read_pages(state.store.clone(), account_id.to_owned(), source);
    tokio::spawn(write_pages(
        pages,
        writer,
        callsign.to_owned(),
        since,
        until,
        tx,
    ));
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    });
    let (content_type, extension) = match format {
        Format::Adi => ("text/plain; charset=utf-8", "adi"),
        Format::Adx => ("application/xml", "adx"),
    };
    Ok((
        [
            (header::CONTENT_TYPE, content_type.to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!(
                    "attachment; filename=\"{}.{extension}\"",
                    callsign.replace('/', "_")
                ),
            ),
        ],
        Body::from_stream(stream),
    )
        .into_response())
}

/// Reads `source`'s pages in a task of their own, so that the store reads the next page while
/// the last one is written: one after the other, each took about half of an export's time.
/// The task ends after the last page, or when the writing stops taking them.
fn read_pages(store: Arc<dyn Store>, account: String, source: Source) -> mpsc::Receiver<Page> {
    let (tx, rx) = mpsc::channel(PAGES_AHEAD);
    tokio::spawn(async move {
        let mut after = None;
        loop {
            let rows = match &source {
                Source::Folder(id) => store.list_contacts(id, after, CHUNK).await,
                Source::Below(below) => {
                    store
                        .list_contacts_below(&account, below.as_deref(), after, CHUNK)
                        .await
                }
            };
            let next = match &rows {
                Ok(rows) if rows.len() > CHUNK as usize => Some(rows[CHUNK as usize - 1].1),
                _ => None,
            };
            if tx.send(rows).await.is_err() {
                return;
            }
            match next {
                Some(position) => after = Some(position),
                None => return,
            }
        }
    });
    rx
}

/// Writes the contacts of `pages` with a time-on in `[since, until)` to `out`, a chunk a page.
async fn write_pages(
    mut pages: mpsc::Receiver<Page>,
    mut writer: Writer<Vec<u8>>,
    callsign: String,
    since: Option<Timestamp>,
    until: Option<Timestamp>,
    out: mpsc::Sender<Result<Bytes, std::io::Error>>,
) {
    while let Some(rows) = pages.recv().await {
        let rows = match rows {
            Ok(rows) => rows,
            Err(e) => {
                // The status went out with the head: a cut body is how a reader learns.
                tracing::error!(error = %e, "the ADIF export could not read the store");
                let _ = out.send(Err(std::io::Error::other("store failed"))).await;
                return;
            }
        };
        let more = rows.len() > CHUNK as usize;
        let mut older = false;
        for (contact, _) in rows.iter().take(CHUNK as usize) {
            let t = contact.time_on;
            if since.is_some_and(|s| t < s) {
                // Newest first: everything after this is older still.
                older = true;
                break;
            }
            if until.is_some_and(|u| t >= u) {
                continue;
            }
            if let Err(e) = writer.contact(contact, &callsign) {
                tracing::error!(error = %e, "the ADIF export could not write a record");
                let _ = out.send(Err(e)).await;
                return;
            }
        }
        if older || !more {
            break;
        }
        let chunk = Bytes::from(writer.take_written());
        if !chunk.is_empty() && out.send(Ok(chunk)).await.is_err() {
            // The reader went away.
            return;
        }
    }
    let last = writer.finish().map(Bytes::from);
    let _ = out.send(last).await;
}
