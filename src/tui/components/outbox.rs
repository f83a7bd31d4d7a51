//! What the journal holds that the service has not stored yet, as the logbook knows it: the
//! waiting and refused entries and their counts (the status bar's), and whether the
//! account's journal is open to log into.

use crate::client::NewContactRequest;
use crate::client::journal::{Counts, Entry, EntryRequest, EntryState, contact_of};
use crate::model::Contact;

/// The journal's entries as last heard of.
#[derive(Debug, Clone, Default)]
pub struct Outbox {
    /// Waiting and refused entries, in the order logged.
    pub entries: Vec<Entry>,
    /// As the journal counts them: they include entries another `svc` logged into the file.
    pub counts: Counts,
}

impl Outbox {
    /// The waiting contacts of a folder, as rows.
    pub fn waiting_in(&self, folder_id: &str) -> Vec<Contact> {
        self.entries
            .iter()
            .filter(|e| e.state == EntryState::Waiting)
            .filter_map(contact_row)
            .filter(|c| c.folder_id == folder_id)
            .collect()
    }

    pub fn request(&self, id: &str) -> Option<&NewContactRequest> {
        self.entries
            .iter()
            .find(|e| e.id == id)
            .and_then(|e| match &e.request {
                EntryRequest::Contact(c) => Some(c),
                _ => None,
            })
    }
}

/// Where the account's journal stands.
#[derive(Debug, Clone, PartialEq)]
pub enum JournalState {
    Opening,
    Open,
    /// This key was never used on this computer: whoami must name the account once.
    Missing,
    Failed(String),
}

impl JournalState {
    /// Why nothing can be logged now, if so.
    pub fn cannot_log(&self) -> Option<String> {
        match self {
            JournalState::Open => None,
            JournalState::Opening => Some("the journal is being opened; try again in a moment".into()),
            JournalState::Missing => Some(
                "nothing can be logged yet: this key is new on this computer, and the logbook must reach the service once to learn its account (it keeps trying; Alt-R tries now)".into(),
            ),
            JournalState::Failed(why) => Some(format!(
                "nothing can be logged: the journal cannot be used ({why})"
            )),
        }
    }
}

/// The row a contact entry stands for, with the entry's id.
pub fn contact_row(entry: &Entry) -> Option<Contact> {
    let EntryRequest::Contact(r) = &entry.request else {
        return None;
    };
    Some(contact_of(r, &entry.id, entry.logged_at))
}

/// Why the service refused an entry: its code and message.
pub fn refusal(entry: &Entry) -> String {
    match &entry.error {
        Some(e) => format!("{}: {}", e.code, e.message),
        None => "refused".into(),
    }
}

pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
