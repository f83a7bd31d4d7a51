//! One activation's page: its parks, activator and times, the valid contacts toward POTA's 10
//! on each UTC day (the model's count), every contact, and the file POTA takes for each park
//! to download, written by `svc_adif::pota` as the client's `svc activations export` writes it.

use std::collections::{HashMap, HashSet};

use askama::Template;
use axum::Extension;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::activations::{DayView, ParkView, day_views, ended, park_views, parks_of, per_day};
use super::html::When;
use super::rows::ContactRow;
use super::session::Visitor;
use super::{Layout, Nav, Problem, respond, sign_in_first};
use crate::AppState;
use svc_adif::{Format, Writer, pota};
use svc_model::activation::{POTA_NEEDED, ValidContact, valid_contacts};
use svc_model::{Contact, Folder, FolderType};
use svc_pota::Park;

/// Contacts read from the store at a time.
const CONTACTS_AT_ONCE: u32 = 1000;

/// A park's POTA file as the page offers it.
struct Download {
    park: String,
    file_name: String,
}

#[derive(Template)]
#[template(path = "activation.html")]
struct ActivationPage<'a> {
    layout: Layout<'a>,
    start: Option<When>,
    end: Option<When>,
    callsign: String,
    parks: Vec<ParkView>,
    days: Vec<DayView>,
    needed: usize,
    id: String,
    downloads: Vec<Download>,
    contacts: Vec<ContactRow>,
    caption: &'static str,
}

/// The account's activation `id` and every contact of it, newest first; a page that says so
/// when the account has no such activation.
async fn activation_of(
    state: &AppState,
    account_id: &str,
    id: &str,
) -> Result<(Folder, Vec<Contact>), Problem> {
    let folder = state
        .store
        .folder(account_id, id)
        .await?
        .filter(|f| f.folder_type == FolderType::Activation)
        .ok_or_else(|| {
            Problem::not_found(
                "Your log has no such activation. Pick one from the Activations page.",
            )
        })?;
    let mut contacts = Vec::with_capacity(usize::try_from(folder.contact_count).unwrap_or(0));
    let mut after = None;
    loop {
        let mut rows = state
            .store
            .list_contacts(&folder.id, after, CONTACTS_AT_ONCE)
            .await?;
        let more = rows.len() > CONTACTS_AT_ONCE as usize;
        rows.truncate(CONTACTS_AT_ONCE as usize);
        after = rows.last().map(|(_, position)| *position);
        contacts.extend(rows.into_iter().map(|(contact, _)| contact));
        if !more {
            break;
        }
    }
    Ok((folder, contacts))
}

async fn parks_known(state: &AppState, folder: &Folder) -> HashMap<String, Park> {
    let references: Vec<&str> = parks_of(folder).collect();
    match &state.parks {
        Some(parks) => parks.known(&references).await,
        None => HashMap::new(),
    }
}

/// `GET /activations/{id}`.
pub async fn show(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
    Path(id): Path<String>,
) -> Result<Response, Problem> {
    let Some(account) = &visitor.account else {
        return Ok(sign_in_first(&visitor, "/activations"));
    };
    let (folder, contacts) = activation_of(&state, &account.id, &id).await?;
    let known = parks_known(&state, &folder).await;
    // A call counts once per band, mode and day, as POTA counts.
    let valid: HashSet<ValidContact> = valid_contacts(&folder, &contacts).collect();
    let days = per_day(valid);
    // A folder without its parks or start has no file; the page says so instead of links.
    let downloads = pota::file_names(&folder)
        .unwrap_or_default()
        .into_iter()
        .map(|(park, file_name)| Download { park, file_name })
        .collect();
    let page = ActivationPage {
        layout: Layout::new(&visitor, "Activation", Nav::Activations),
        start: folder.start_time.map(When::minute),
        end: folder.end_time.map(|end| ended(folder.start_time, end)),
        callsign: folder.callsign.clone().unwrap_or_default(),
        parks: park_views(&folder, &known),
        days: day_views(days),
        needed: POTA_NEEDED,
        id: folder.id.clone(),
        downloads,
        contacts: contacts.iter().map(ContactRow::from).collect(),
        caption: "The activation's contacts",
    };
    Ok(respond(StatusCode::OK, &page))
}

/// `GET /activations/{id}/pota/{park}`: the park's POTA upload file, named as POTA names it.
pub async fn pota_file(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
    Path((id, park)): Path<(String, String)>,
) -> Result<Response, Problem> {
    let Some(account) = &visitor.account else {
        return Ok(sign_in_first(&visitor, "/activations"));
    };
    let (folder, contacts) = activation_of(&state, &account.id, &id).await?;
    let files = pota::files(&folder, &contacts, &account.callsign).map_err(|_| {
        Problem::not_found(
            "This activation has no POTA file: it needs its park and start time. Set them with svc activations update.",
        )
    })?;
    let Some(file) = files.into_iter().find(|f| f.park == park) else {
        return Err(Problem::not_found(
            "This activation has no such park. Use a download link on the activation's page.",
        ));
    };
    let known = parks_known(&state, &folder).await;
    let name = known.get(&file.park).map(|p| p.name.as_str());
    let written = (|| {
        let mut out = Writer::with_comment(
            Vec::new(),
            chrono::Utc::now(),
            Format::Adi,
            &pota::park_comment(&file.park, name),
        )?;
        for record in &file.records {
            out.record(record)?;
        }
        out.finish()
    })();
    let bytes = written.map_err(|e| {
        tracing::error!(error = %e, "an activation's POTA file could not be written");
        Problem::internal()
    })?;
    // The name is made of file-name characters only; one outside ASCII cannot go in a header
    // as it is, and a generic name does as well for the browser's download.
    let file_name = if file.file_name.is_ascii() {
        file.file_name
    } else {
        "activation.adi".to_owned()
    };
    Ok((
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{file_name}\""),
            ),
        ],
        bytes,
    )
        .into_response())
}
