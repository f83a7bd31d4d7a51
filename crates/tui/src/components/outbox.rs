//! What the journal holds that the service has not stored yet, as the logbook knows it: the
//! waiting and refused entries and their counts (the status bar's), and whether the
//! account's journal is open to log into.

use svc_client::journal::{Counts, Entry, EntryRequest, EntryState};
use svc_model::Contact;
use svc_model::ContactInput;

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

    /// An entry the journal took (a contact, or a folder made with no link); the same folder
    /// logged again gives the entry already there.
    pub fn add(&mut self, entry: Entry) {
        if !self.entries.iter().any(|e| e.id == entry.id) {
            self.entries.push(entry);
            self.counts.waiting += 1;
        }
    }

    /// The journal's counts, as the sender reported them after a push. The report was
    /// counted before it came: an entry logged here meanwhile is not in it, so it never
    /// shows fewer than the entries known here.
    pub fn counted(&mut self, counts: Counts) {
        let known = |state: EntryState| self.entries.iter().filter(|e| e.state == state).count();
        self.counts = Counts {
            waiting: counts.waiting.max(known(EntryState::Waiting) as u64),
            refused: counts.refused.max(known(EntryState::Refused) as u64),
        };
    }

    /// A refused entry, fixed: waiting again. Gives its callsign.
    pub fn retried(&mut self, entry: Entry) -> String {
        let call = contact_row(&entry).map(|c| c.callsign).unwrap_or_default();
        if let Some(e) = self.entries.iter_mut().find(|e| e.id == entry.id) {
            *e = entry;
        }
        self.counts.refused = self.counts.refused.saturating_sub(1);
        self.counts.waiting += 1;
        call
    }

    /// An entry dropped from the journal; gives its callsign (else its id) when it was here.
    pub fn discarded(&mut self, id: &str) -> Option<String> {
        let i = self.entries.iter().position(|e| e.id == id)?;
        let gone = self.entries.remove(i);
        match gone.state {
            EntryState::Refused => self.counts.refused = self.counts.refused.saturating_sub(1),
            _ => self.counts.waiting = self.counts.waiting.saturating_sub(1),
        }
        Some(contact_row(&gone).map_or_else(|| id.to_owned(), |c| c.callsign))
    }

    /// The sender stored an entry. The journal's own counts follow in a report; until then
    /// the bar must not show a stored contact as waiting.
    pub fn sent(&mut self, entry: &Entry) {
        self.counts.waiting = self.counts.waiting.saturating_sub(1);
        self.entries.retain(|e| e.id != entry.id);
    }

    /// The service refused an entry: it stays, marked. Gives what to tell the operator.
    pub fn refused(&mut self, entry: Entry) -> String {
        let why = refusal(&entry);
        self.counts.waiting = self.counts.waiting.saturating_sub(1);
        self.counts.refused += 1;
        let what = match &entry.request {
            EntryRequest::Contact(c) => c.callsign.clone(),
            EntryRequest::Activation(a) => format!("activation {}", a.location_reference),
            EntryRequest::Monthly {
                month,
                program_id: None,
            } => format!("the {month} log"),
            EntryRequest::Monthly {
                month,
                program_id: Some(program),
            } => format!("the {} {month} log", program.to_uppercase()),
        };
        // What to do comes before the service's message, which may be long.
        let fix = if matches!(entry.request, EntryRequest::Contact(_)) {
            " (kept as ✗ in Contacts: Enter fixes it, Alt-D discards it)"
        } else {
            " (the contacts logged into it are kept as refused too)"
        };
        match self.entries.iter_mut().find(|e| e.id == entry.id) {
            Some(e) => *e = entry,
            None => self.entries.push(entry),
        }
        format!("refused: {what}{fix}: {why}")
    }

    /// A folder made with no link exists on the service now: its contacts go there.
    pub fn resolve(&mut self, local_id: &str, real_id: &str) {
        for e in &mut self.entries {
            if let EntryRequest::Contact(c) = &mut e.request
                && c.folder_id == local_id
            {
                c.folder_id = real_id.to_owned();
            }
        }
    }

    pub fn request(&self, id: &str) -> Option<&ContactInput> {
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
    Some(r.pending(&entry.id, entry.logged_at))
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
