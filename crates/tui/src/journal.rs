//! The logbook's side of the offline journal, as plain data: the effects `update` asks of it,
//! their answers, which journal is used, and what stays in it at the end. The runtime's
//! keeper carries the effects out before the next frame is drawn.

use reqwest::Url;
use std::path::PathBuf;
use svc_client::NewActivationRequest;
use svc_client::journal::{Counts, Entry, EntryRequest, EntryState, Logged, Snapshot};
use svc_model::ContactInput;
use svc_model::{ApiKey, Folder, Program};

/// Work on the journal, done before the next frame.
#[derive(Debug, Clone, PartialEq)]
pub enum JournalEffect {
    /// Reads the copy of the account and the entries that wait: at start, with no network.
    Load,
    /// Makes the account's journal, once whoami named the account of a key new here; then
    /// reads it as [`JournalEffect::Load`] does.
    Open {
        callsign: String,
    },
    LogContact(ContactInput),
    /// A contact another program logged (WSJT-X), under the idempotency key that logs it
    /// once however often it is reported. `month`: no log is open, so it goes into that
    /// month's log, found or made (unless the key is held already, when nothing is made).
    /// `echo`: a second report of the same contact (a Logged ADIF after its QSO Logged), whose
    /// being logged already is expected.
    LogContactOnce {
        request: ContactInput,
        key: String,
        month: Option<String>,
        echo: bool,
    },
    /// An activation started now (its start time set), made on the service by the sender.
    LogActivation(NewActivationRequest),
    /// This month's custom log, or a program's hunting log.
    LogMonthly {
        month: String,
        program: Option<Program>,
    },
    /// A refused contact, fixed: waiting again.
    Retry {
        id: String,
        request: ContactInput,
    },
    Discard {
        id: String,
    },
}

/// What the journal had at start.
#[derive(Debug, Clone, Default)]
pub struct JournalCopy {
    pub snapshot: Snapshot,
    /// Waiting and refused entries, in the order logged.
    pub entries: Vec<Entry>,
    pub counts: Counts,
}

/// The answers of [`JournalEffect`]s; failures are the journal's message.
// One per effect, never stored: boxing the copy buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum JournalAnswer {
    Loaded(Result<JournalCopy, String>),
    /// No journal is known for this key on this service: whoami must answer once.
    Missing,
    /// A contact in the journal. `made`: the local folder it was logged into had been made
    /// on the service meanwhile, so the journal logged it into the real one: the local id and
    /// that folder, which the sender's report of it may not have brought yet.
    Logged {
        result: Result<Entry, String>,
        made: Option<(String, Box<Folder>)>,
    },
    /// The answer to [`JournalEffect::LogContactOnce`]: logged now or found logged, the folder
    /// made meanwhile as for [`JournalAnswer::Logged`], and the month's log it went into (with
    /// the entry that makes it, when it was made now).
    LoggedOnce {
        result: Result<Logged, String>,
        made: Option<(String, Box<Folder>)>,
        monthly: Option<(Option<Entry>, Folder)>,
        echo: bool,
    },
    /// The folder to log into: a local one with the entry that makes it, or the real one the
    /// journal already knew.
    FolderLogged(Result<(Option<Entry>, Folder), String>),
    Retried(Result<Entry, String>),
    Discarded {
        id: String,
        result: Result<bool, String>,
    },
}

impl JournalAnswer {
    /// The contact this answer says is now in the journal, with its entry: one typed, or one
    /// WSJT-X logged that was not logged already.
    pub fn contact_logged(&self) -> Option<(&Entry, &ContactInput)> {
        let entry = match self {
            JournalAnswer::Logged {
                result: Ok(entry), ..
            }
            | JournalAnswer::LoggedOnce {
                result: Ok(Logged::New(entry)),
                ..
            } => entry,
            _ => return None,
        };
        match &entry.request {
            EntryRequest::Contact(contact) => Some((entry, contact)),
            _ => None,
        }
    }
}

/// Which journal the logbook uses.
#[derive(Debug, Clone)]
pub enum JournalSource {
    /// The account's, found by the key (no network); made once whoami names the account.
    Account { base: Url, key: ApiKey },
    /// A file of its own (the demo's, beside its database).
    File(PathBuf),
}

/// What stays in the journal when the logbook ends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Left {
    pub contacts: u64,
    /// Activations and monthly logs made with no link, not made on the service yet.
    pub folders: u64,
    pub refused: u64,
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl Left {
    pub fn of(entries: &[Entry]) -> Left {
        let mut left = Left::default();
        for e in entries {
            match (e.state, &e.request) {
                (EntryState::Refused, _) => left.refused += 1,
                (_, EntryRequest::Contact(_)) => left.contacts += 1,
                _ => left.folders += 1,
            }
        }
        left
    }

    /// What the operator is told once the terminal is back, if anything stays.
    pub fn message(&self) -> Option<String> {
        let mut lines = Vec::new();
        let waiting = match (self.contacts, self.folders) {
            (0, 0) => None,
            (0, f) => Some(plural(
                f,
                "folder made with no link waits",
                "folders made with no link wait",
            )),
            (c, 0) => Some(plural(c, "contact waits", "contacts wait")),
            (c, f) => Some(format!(
                "{} (and {} made with no link)",
                plural(c, "contact waits", "contacts wait"),
                plural(f, "folder", "folders")
            )),
        };
        if let Some(waiting) = waiting {
            lines.push(format!(
                "svc: {waiting} in the journal; they go out the next time the logbook runs, or with svc outbox push"
            ));
        }
        if self.refused > 0 {
            lines.push(format!(
                "svc: {} by the service and kept in the journal: fix or discard in the logbook (Contacts pane), or see svc outbox list",
                plural(self.refused, "entry was refused", "entries were refused")
            ));
        }
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_stays_behind_is_told_in_one_message() {
        assert_eq!(Left::default().message(), None);
        let three = Left {
            contacts: 3,
            ..Left::default()
        };
        assert_eq!(
            three.message().unwrap(),
            "svc: 3 contacts wait in the journal; they go out the next time the logbook runs, or with svc outbox push"
        );
        let mixed = Left {
            contacts: 1,
            folders: 1,
            refused: 2,
        };
        let text = mixed.message().unwrap();
        assert!(
            text.contains("1 contact waits (and 1 folder made with no link)"),
            "{text}"
        );
        assert!(text.contains("2 entries were refused"), "{text}");
    }
}
