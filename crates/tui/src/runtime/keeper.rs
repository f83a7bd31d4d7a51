//! The journal in the run loop: the [`Keeper`] carries out each [`JournalEffect`] before the
//! next frame is drawn, so a cleared form on screen means the contact is committed to disk (a
//! local commit takes about a millisecond), and runs the journal's background sender, whose
//! reports come back as actions.

use std::sync::Arc;

use tokio::sync::Notify;
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinHandle;

use crate::action::Action;
use crate::journal::{JournalAnswer, JournalCopy, JournalEffect, JournalSource, Left};
use svc_client::Client;
use svc_client::journal::{
    Entry, EntryRequest, Journal, Logged, SenderEvent, is_local_folder_id, spawn_sender,
};
use svc_model::Folder;

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

    /// Wakes the sender: while the link was down it asks first whether the service answers,
    /// then sends what waits.
    pub fn send_now(&self) {
        self.wake.notify_one();
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
            Ok::<_, svc_client::journal::JournalError>(JournalCopy {
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
    let text = |e: svc_client::journal::JournalError| e.to_string();
    match effect {
        JournalEffect::LogContact(request) => {
            let asked = request.folder_id.clone();
            let result = journal.log_contact(request).await.map_err(text);
            let made = made_meanwhile(journal, &asked, result.as_ref().ok()).await;
            JournalAnswer::Logged { result, made }
        }
        JournalEffect::LogContactOnce {
            mut request,
            key,
            month,
            echo,
        } => {
            let answer = |result, made, monthly| JournalAnswer::LoggedOnce {
                result,
                made,
                monthly,
                echo,
            };
            let mut monthly = None;
            if let Some(month) = month {
                // A contact logged already makes no month's log.
                match journal.logged_under(&key).await {
                    Ok(Some(held)) => return answer(Ok(Logged::Already(held)), None, None),
                    Ok(None) => {}
                    Err(e) => return answer(Err(text(e)), None, None),
                }
                match journal.log_monthly(&month, None).await {
                    Ok((entry, folder)) => {
                        request.folder_id = folder.id.clone();
                        monthly = Some((entry, folder));
                    }
                    Err(e) => return answer(Err(text(e)), None, None),
                }
            }
            let asked = request.folder_id.clone();
            let result = journal.log_contact_once(request, &key).await.map_err(text);
            let logged = match &result {
                Ok(Logged::New(entry)) => Some(entry),
                _ => None,
            };
            let made = made_meanwhile(journal, &asked, logged).await;
            answer(result, made, monthly)
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

/// The folder the sender made of the local one `asked` meanwhile, when `logged` went into it
/// instead: the logbook learns of it here, before the contact, or the contact would be of a
/// folder it does not know yet.
async fn made_meanwhile(
    journal: &Journal,
    asked: &str,
    logged: Option<&Entry>,
) -> Option<(String, Box<Folder>)> {
    let Some(Entry {
        request: EntryRequest::Contact(c),
        ..
    }) = logged
    else {
        return None;
    };
    if !is_local_folder_id(asked) || c.folder_id == asked {
        return None;
    }
    let folder = journal.made_folder(asked).await.ok().flatten()?;
    Some((asked.to_owned(), Box::new(folder)))
}

/// The answer to an effect when no journal is open (`update` does not ask then; this keeps
/// a late key from being lost silently all the same).
fn unavailable(effect: JournalEffect) -> JournalAnswer {
    let why = "no journal is open".to_owned();
    match effect {
        JournalEffect::Load | JournalEffect::Open { .. } => JournalAnswer::Missing,
        JournalEffect::LogContact(_) => JournalAnswer::Logged {
            result: Err(why),
            made: None,
        },
        JournalEffect::LogContactOnce { echo, .. } => JournalAnswer::LoggedOnce {
            result: Err(why),
            made: None,
            monthly: None,
            echo,
        },
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
