//! The entry form in its two other uses: fixing a contact the service refused, and editing a
//! stored one (a busted call fixed after the fact), each sending one request once it checks
//! out.

use ratatui::crossterm::event::KeyEvent;

use super::{EntryForm, Field, FormKey, fault, form_key};
use svc_model::fields::Field as Declared;
use svc_model::seed::{self, Seed};
use svc_model::{Contact, ContactInput, ContactPatch, Folder, Timestamp};

/// A stored contact in the entry form, to be changed on the service.
#[derive(Debug, Clone)]
pub struct EditForm {
    pub contact_id: String,
    /// The grid the stored contact has: a grid blanked in the form clears it, and a contact
    /// that had none is sent no change of it.
    pub stored_grid: Option<String>,
    pub form: EntryForm,
}

/// A refused journal entry in the entry form.
#[derive(Debug, Clone)]
pub struct FixForm {
    pub entry_id: String,
    /// Why the service refused it.
    pub refusal: String,
    pub form: EntryForm,
}

impl EditForm {
    /// A stored contact in the form, on its folder when that is known.
    pub fn of(contact: &Contact, folder: Option<&Folder>) -> EditForm {
        let request = contact.input();
        let mut form = EntryForm::from_request(&contact.folder_id, &contact.folder_id, &request);
        if let Some(folder) = folder {
            form.set_folder(folder);
        }
        // A contest contact's exchange as its fields hold it, when it has no SRX_STRING to
        // show (one logged through the API): the form edits it as it was received.
        if let Some(contest) = &form.contest
            && form.value(Field::Exchange).trim().is_empty()
        {
            let words: Vec<String> = svc_model::cabrillo::received(contest.contest, contact)
                .into_iter()
                .map(|(_, v)| v)
                .collect();
            form.set(Field::Exchange, &words.join(" "));
        }
        EditForm {
            contact_id: contact.id.clone(),
            stored_grid: contact.fields.get(Declared::Gridsquare).map(str::to_owned),
            form,
        }
    }
}

impl FixForm {
    /// A refused entry's contact in the form, into `target` (the folder open now, when it
    /// takes contacts: the usual fix for a contact refused by its folder is another folder).
    pub fn of(
        entry_id: String,
        refusal: String,
        request: &ContactInput,
        target: Option<&Folder>,
    ) -> FixForm {
        let mut form = EntryForm::from_request(&request.folder_id, &request.folder_id, request);
        if let Some(folder) = target {
            form.set_folder(folder);
        }
        FixForm {
            entry_id,
            refusal,
            form,
        }
    }
}

/// What a key did in the form of a fix or an edit.
// One per key, moved and dropped at once: boxing the request buys nothing.
#[allow(clippy::large_enum_variant)]
pub enum Done {
    /// Esc: the contact stays as it was.
    Close,
    Stay,
    /// Enter on a form with a fault: which field and why.
    Fault(String),
    /// Enter on a form that checks out.
    Send(ContactInput),
}

/// A key in the form of a fix or an edit, which sends one request when it checks out.
pub fn send_key(form: &mut EntryForm, key: KeyEvent, now: Timestamp) -> Done {
    match form_key(form, key) {
        FormKey::Close => Done::Close,
        FormKey::Submit => match form.request(now) {
            Ok(request) => Done::Send(request),
            Err((field, message)) => Done::Fault(fault(field, &message)),
        },
        FormKey::Edited(_) | FormKey::Stay => Done::Stay,
    }
}

/// The seed's optional fields the form has a line for (the park line is `sigInfo`, with its
/// program as `sig`).
const FORM_SEED: [Seed; 6] = [
    seed::RST_SENT,
    seed::RST_RECEIVED,
    seed::NAME,
    seed::NOTES,
    seed::SIG,
    seed::SIG_INFO,
];

/// Every field of the form, as an edit: an empty optional field clears it on the service.
/// Of the declared fields only the grid has a line in the form, so only the grid is named:
/// the stored contact's others (power, QTH, QSL state, …) stay as they are.
pub fn edit_request(request: ContactInput, stored_grid: Option<&str>) -> ContactPatch {
    let grid = request.fields.get(Declared::Gridsquare).map(str::to_owned);
    let mut patch = ContactPatch::replacing(request, &FORM_SEED);
    if grid.is_some() || stored_grid.is_some() {
        patch.fields.values.insert(Declared::Gridsquare, grid);
    }
    patch
}
