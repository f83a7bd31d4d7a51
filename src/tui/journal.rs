//! The logbook's side of the offline journal: the effects `update` asks of it and their
//! answers (plain data), and the [`Keeper`] that carries them out in the run loop. The loop
//! awaits each one before it draws again, so a cleared form on screen means the contact is
//! committed to disk; a local commit takes about a millisecond. The keeper also runs the
//! journal's background sender, whose reports come back as actions.

use std::path::PathBuf;
use std::sync::Arc;

use reqwest::Url;
use tokio::sync::Notify;
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinHandle;

use super::app::Action;
use crate::client::journal::{
    Counts, Entry, EntryRequest, EntryState, Journal, SenderEvent, Snapshot, spawn_sender,
};
use crate::client::{Client, NewActivationRequest, NewContactRequest};
use crate::model::{ApiKey, Folder, Program};

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
    LogContact(NewContactRequest),
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
        request: NewContactRequest,
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
    Logged(Result<Entry, String>),
    /// The folder to log into: a local one with the entry that makes it, or the real one the
    /// journal already knew.
    FolderLogged(Result<(Option<Entry>, Folder), String>),
    Retried(Result<Entry, String>),
    Discarded {
        id: String,
        result: Result<bool, String>,
    },
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
    fn of(entries: &[Entry]) -> Left {
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

/// The run loop's journal and its sender.
pub struct Keeper {
    source: JournalSource,
    journal: Option<Journal>,
    client: Arc<Client>,
    wake: Arc<Notify>,
    events: UnboundedSender<SenderEvent>,
    sender: Option<JoinHandle<()>>,
}

impl Keeper {
    /// `client` is the sender's; `events` is where its reports go.
    pub fn new(
        source: JournalSource,
        client: Arc<Client>,
        events: UnboundedSender<SenderEvent>,
    ) -> Keeper {
        Keeper {
            source,
            journal: None,
            client,
            wake: Arc::new(Notify::new()),
            events,
            sender: None,
        }
    }

    pub fn journal(&self) -> Option<&Journal> {
        self.journal.as_ref()
    }

    fn start(&mut self, journal: Journal) {
        self.sender = Some(spawn_sender(
            journal.clone(),
            self.client.clone(),
            self.wake.clone(),
            self.events.clone(),
        ));
        self.journal = Some(journal);
    }

    /// Carries out one effect; the answer goes to `update` before the next frame.
    pub async fn perform(&mut self, effect: JournalEffect) -> Action {
        let answer = match effect {
            JournalEffect::Load => self.load().await,
            JournalEffect::Open { callsign } => {
                if self.journal.is_none() {
                    let opened = match &self.source {
                        JournalSource::Account { base, key } => {
                            Journal::open(base, key, &callsign).await
                        }
                        JournalSource::File(path) => Journal::open_path(path).await,
                    };
                    match opened {
                        Ok(journal) => self.start(journal),
                        Err(e) => {
                            return Action::Journal(JournalAnswer::Loaded(Err(e.to_string())));
                        }
                    }
                }
                self.load().await
            }
            effect => {
                let Some(journal) = self.journal.clone() else {
                    return Action::Journal(unavailable(effect));
                };
                let answer = write(&journal, effect).await;
                // A new entry goes out at once when the link is up.
                self.wake.notify_one();
                answer
            }
        };
        Action::Journal(answer)
    }

    async fn load(&mut self) -> JournalAnswer {
        if self.journal.is_none() {
            let found = match &self.source {
                JournalSource::Account { base, key } => Journal::find(base, key).await,
                JournalSource::File(path) => Journal::open_path(path).await.map(Some),
            };
            match found {
                Ok(Some(journal)) => self.start(journal),
                Ok(None) => return JournalAnswer::Missing,
                Err(e) => return JournalAnswer::Loaded(Err(e.to_string())),
            }
        }
        let Some(journal) = &self.journal else {
            return JournalAnswer::Missing;
        };
        let read = async {
            Ok::<_, crate::client::journal::JournalError>(JournalCopy {
                snapshot: journal.snapshot().await?,
                entries: journal.entries().await?,
                counts: journal.counts().await?,
            })
        };
        JournalAnswer::Loaded(read.await.map_err(|e| e.to_string()))
    }

    /// Stops the sender and says what stays in the journal. Stopping it mid-send loses
    /// nothing: an entry it took up is sent again later with the same idempotency key.
    pub async fn close(self) -> Left {
        if let Some(sender) = self.sender {
            sender.abort();
        }
        match &self.journal {
            Some(journal) => journal
                .entries()
                .await
                .map(|entries| Left::of(&entries))
                .unwrap_or_default(),
            None => Left::default(),
        }
    }
}

async fn write(journal: &Journal, effect: JournalEffect) -> JournalAnswer {
    let text = |e: crate::client::journal::JournalError| e.to_string();
    match effect {
        JournalEffect::LogContact(request) => {
            JournalAnswer::Logged(journal.log_contact(request).await.map_err(text))
        }
        JournalEffect::LogActivation(request) => {
            JournalAnswer::FolderLogged(journal.log_activation(request).await.map_err(text))
        }
        JournalEffect::LogMonthly { month, program } => {
            JournalAnswer::FolderLogged(journal.log_monthly(&month, program).await.map_err(text))
        }
        JournalEffect::Retry { id, request } => {
            JournalAnswer::Retried(journal.retry(&id, request).await.map_err(text))
        }
        JournalEffect::Discard { id } => {
            let result = journal.drop_entry(&id).await.map_err(text);
            JournalAnswer::Discarded { id, result }
        }
        JournalEffect::Load | JournalEffect::Open { .. } => JournalAnswer::Missing,
    }
}

/// The answer to an effect when no journal is open (`update` does not ask then; this keeps
/// a late key from being lost silently all the same).
fn unavailable(effect: JournalEffect) -> JournalAnswer {
    let why = "no journal is open".to_owned();
    match effect {
        JournalEffect::Load | JournalEffect::Open { .. } => JournalAnswer::Missing,
        JournalEffect::LogContact(_) => JournalAnswer::Logged(Err(why)),
        JournalEffect::LogActivation(_) | JournalEffect::LogMonthly { .. } => {
            JournalAnswer::FolderLogged(Err(why))
        }
        JournalEffect::Retry { .. } => JournalAnswer::Retried(Err(why)),
        JournalEffect::Discard { id } => JournalAnswer::Discarded {
            id,
            result: Err(why),
        },
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
