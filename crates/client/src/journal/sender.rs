//! Draining the journal: entries go out in the order logged, folders before the contacts that
//! need them, contacts in batches of up to [`MAX_BATCH`]. Each entry is sent with the
//! idempotency key it was logged with, so however often it is sent (a lost answer, two
//! processes, a crash) the service stores it once.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinHandle;

use super::{Claim, Counts, Entry, EntryError, EntryRequest, Journal, JournalError, Outcome};
use crate::{
    BatchItem, BatchResult, Client, ClientError, CreatedContact, MAX_BATCH, NewFolderRequest,
    ServerError,
};
use svc_model::{ErrorCode, Folder, Timestamp};

/// How long a sender holds what it took up: longer than the client's worst case for one
/// request with its own retries (three attempts, a Retry-After of up to a minute), so entries
/// are taken over only from a sender that died.
const LEASE: Duration = Duration::from_secs(180);
/// Folder entries taken up at a time (each is its own request).
const FOLDERS_PER_ROUND: usize = 50;
/// The wait before a rate-limited entry goes again when the service gave no Retry-After.
const RATE_LIMIT_WAIT: Duration = Duration::from_secs(60);
/// The background sender's backoff while the link is down: doubled up to the maximum.
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// How often an idle sender looks for entries another process logged into the same file.
const IDLE_POLL: Duration = Duration::from_secs(15);
/// How long a woken sender waits for more entries before it sends: unnoticed at a keyboard.
const GATHER: Duration = Duration::from_millis(50);
/// The shortest pause between two pushes, so no state of the file can make the sender spin.
const MIN_PAUSE: Duration = Duration::from_millis(250);

/// What one [`push`] did.
#[derive(Debug, Default)]
pub struct PushReport {
    /// Entries stored by the service now (or found stored already: a replay), in order.
    pub sent: Vec<Entry>,
    /// Entries the service refused now, with its error.
    pub refused: Vec<Entry>,
    /// Local folder ids (`loc_…`) and the real folders they became.
    pub resolved: Vec<(String, Folder)>,
    /// Entries still waiting when the push ended (including those another process is sending).
    pub waiting: u64,
    /// HTTP requests made.
    pub requests: u32,
    /// Why entries still wait, when it is the service's or the link's doing: the link failed
    /// (`Transport`), the key was refused, the service was rate limiting or failing.
    pub stopped: Option<ClientError>,
}

impl PushReport {
    /// Whether the push ended because the service could not be reached.
    pub fn link_down(&self) -> bool {
        matches!(self.stopped, Some(ClientError::Transport { .. }))
    }
}

/// Whether a push goes on after a request.
#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Go,
    Stop,
}

/// Sends what waits, in the order logged, until nothing waits that may go now or the link
/// fails: folder entries first (each one's loc_ id becomes the real folder id in every contact
/// that used it), then contacts in batches of up to 500. 4xx answers other than rate_limited
/// refuse the entry (code, message and details kept); rate_limited keeps it waiting until its
/// Retry-After; a transport failure or a 5xx keeps it waiting. Use a client with short
/// time-outs ([`Client::with_timeouts`]) so a dead link is found out within seconds.
pub async fn push(journal: &Journal, client: &Client) -> Result<PushReport, JournalError> {
    // A sender killed mid-push holds its entries until its lease runs out; when its process
    // is known to be gone they are taken back now instead.
    journal.release_dead_senders().await?;
    let owner = super::sender_id();
    let mut report = PushReport::default();
    let drained = drain(journal, client, &owner, &mut report).await;
    // Whatever ended the push, nothing stays held by it: another sender may go on at once.
    let released = journal.release(&owner).await;
    drained?;
    released?;
    report.waiting = journal.counts().await?.waiting;
    Ok(report)
}

async fn drain(
    journal: &Journal,
    client: &Client,
    owner: &str,
    report: &mut PushReport,
) -> Result<(), JournalError> {
    // Falls back on one request per contact for a service that has no batch endpoint.
    let mut batches = true;
    loop {
        let folders = journal
            .claim(Claim::Folders, FOLDERS_PER_ROUND, LEASE, owner)
            .await?;
        let took_folders = !folders.is_empty();
        for entry in folders {
            if send_folder(journal, client, owner, entry, report).await? == Flow::Stop {
                return Ok(());
            }
        }
        report.refused.extend(journal.refuse_orphans().await?);
        let contacts = journal
            .claim(Claim::Contacts, MAX_BATCH, LEASE, owner)
            .await?;
        if contacts.is_empty() {
            if took_folders {
                // Their contacts may be free to go now.
                continue;
            }
            return Ok(());
        }
        let flow = if batches {
            send_batch(journal, client, owner, &contacts, report, &mut batches).await?
        } else {
            send_singly(journal, client, owner, &contacts, report).await?
        };
        if flow == Flow::Stop {
            return Ok(());
        }
    }
}

/// Whether the service refused for the key's rate (its burst or a contact budget).
fn rate_limited(e: &ServerError) -> bool {
    e.code() == Some(ErrorCode::RateLimited) || e.status == 429
}

/// How long a rate-limited or failing entry waits before it goes again.
fn later(e: &ServerError, attempts: u32) -> Duration {
    if rate_limited(e) {
        e.retry_after
            .map_or(RATE_LIMIT_WAIT, Duration::from_secs)
            .max(Duration::from_secs(1))
    } else {
        Duration::from_secs(2u64.saturating_pow(attempts.min(8)).min(300))
    }
}

/// What one item's answer means for its entry.
fn outcome(result: Result<CreatedContact, ServerError>, attempts: u32) -> Outcome {
    match result {
        Ok(created) => Outcome::Sent(created.id),
        Err(e) if rate_limited(&e) => Outcome::Later(later(&e, attempts)),
        Err(e) if (400..500).contains(&e.status) => Outcome::Refused(EntryError {
            status: e.status,
            code: e.error,
            message: e.message,
            details: e.details,
        }),
        Err(e) => Outcome::Later(later(&e, attempts)),
    }
}

/// Whether an error is about the request as a whole (the link, the key, an answer that cannot
/// be read) rather than the entry: then the entry stays waiting and the push stops.
fn stops(e: &ClientError) -> bool {
    match e {
        ClientError::Transport { .. } | ClientError::Unexpected { .. } => true,
        ClientError::Server(s) => {
            s.status == 401
                || matches!(
                    s.code(),
                    Some(ErrorCode::Unauthorized | ErrorCode::KeyRevoked)
                )
        }
    }
}

/// Settles what was decided and adds it to the report; an entry that stays waiting names why.
async fn settle(
    journal: &Journal,
    owner: &str,
    outcomes: Vec<(String, Outcome)>,
    held: Option<ServerError>,
    report: &mut PushReport,
) -> Result<(), JournalError> {
    if outcomes.is_empty() {
        return Ok(());
    }
    let settled = journal.settle(owner, &outcomes).await?;
    report.sent.extend(settled.sent);
    report.refused.extend(settled.refused);
    if let Some(e) = held
        && report.stopped.is_none()
    {
        report.stopped = Some(ClientError::Server(Box::new(e)));
    }
    Ok(())
}

async fn send_folder(
    journal: &Journal,
    client: &Client,
    owner: &str,
    entry: Entry,
    report: &mut PushReport,
) -> Result<Flow, JournalError> {
    let key = &entry.idempotency_key;
    let result = match &entry.request {
        EntryRequest::Activation(request) => client.create_activation_keyed(request, key).await,
        EntryRequest::Monthly { month, program_id } => {
            let request = NewFolderRequest::Monthly {
                month: month.clone(),
                program_id: program_id.clone(),
            };
            client.create_folder_keyed(&request, key).await
        }
        // Folder claims never return contacts.
        EntryRequest::Contact(_) => return Ok(Flow::Go),
    };
    report.requests += 1;
    match result {
        Ok(created) => {
            if let Some(sent) = journal.resolve_folder(&entry.id, &created.folder).await? {
                if let Some(local_id) = &sent.local_folder_id {
                    report.resolved.push((local_id.clone(), created.folder));
                }
                report.sent.push(sent);
            }
            Ok(Flow::Go)
        }
        Err(e) if stops(&e) => {
            report.stopped = Some(e);
            Ok(Flow::Stop)
        }
        Err(ClientError::Server(e)) => {
            let decided = outcome(Err((*e).clone()), entry.attempts);
            let held = matches!(decided, Outcome::Later(_)).then_some(*e);
            settle(journal, owner, vec![(entry.id, decided)], held, report).await?;
            Ok(Flow::Go)
        }
        // `stops` covers every other kind of error.
        Err(_) => Ok(Flow::Stop),
    }
}

fn items(contacts: &[Entry]) -> Vec<BatchItem> {
    contacts
        .iter()
        .filter_map(|e| match &e.request {
            EntryRequest::Contact(contact) => Some(BatchItem {
                contact: contact.clone(),
                idempotency_key: e.idempotency_key.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// Whether the service has no `POST /v1/contacts/batch` (an older release).
fn no_batch_endpoint(e: &ClientError) -> bool {
    let status = match e {
        ClientError::Server(s) => s.status,
        ClientError::Unexpected { status, .. } => *status,
        ClientError::Transport { .. } => return false,
    };
    matches!(status, 404 | 405)
}

/// Whether the service refused the batch as a whole for what it holds (not for the key or the
/// link): sending the contacts one by one then finds the one at fault.
fn batch_refused(e: &ClientError) -> bool {
    matches!(e, ClientError::Server(s) if matches!(s.status, 400 | 413 | 422))
}

async fn send_batch(
    journal: &Journal,
    client: &Client,
    owner: &str,
    contacts: &[Entry],
    report: &mut PushReport,
    batches: &mut bool,
) -> Result<Flow, JournalError> {
    let items = items(contacts);
    report.requests += 1;
    match client.create_contacts_batch(&items, false).await {
        Ok(results) if results.len() == contacts.len() => {
            let mut held = None;
            let outcomes = contacts
                .iter()
                .zip(results)
                .map(|(entry, result)| {
                    let result = BatchResult::into_result(result);
                    let decided = outcome(result.clone(), entry.attempts);
                    if let (Outcome::Later(_), Err(e)) = (&decided, result)
                        && held.is_none()
                    {
                        held = Some(e);
                    }
                    (entry.id.clone(), decided)
                })
                .collect();
            // Items refused for the key's rate: the next request would be refused whole.
            let flow = if held.as_ref().is_some_and(rate_limited) {
                Flow::Stop
            } else {
                Flow::Go
            };
            settle(journal, owner, outcomes, held, report).await?;
            Ok(flow)
        }
        Ok(results) => {
            report.stopped = Some(ClientError::Unexpected {
                status: 200,
                message: format!(
                    "the service answered {} results for a batch of {} contacts; nothing was marked sent",
                    results.len(),
                    contacts.len()
                ),
            });
            Ok(Flow::Stop)
        }
        Err(e) if no_batch_endpoint(&e) => {
            *batches = false;
            send_singly(journal, client, owner, contacts, report).await
        }
        Err(e) if batch_refused(&e) => send_singly(journal, client, owner, contacts, report).await,
        Err(ClientError::Server(e)) if rate_limited(&e) => {
            let wait = later(&e, 0);
            let outcomes = contacts
                .iter()
                .map(|entry| (entry.id.clone(), Outcome::Later(wait)))
                .collect();
            settle(journal, owner, outcomes, Some(*e), report).await?;
            // Whatever else waits would only be refused too, and each refusal counts against
            // the key: nothing more goes until the service's wait is over.
            Ok(Flow::Stop)
        }
        Err(e) => {
            report.stopped = Some(e);
            Ok(Flow::Stop)
        }
    }
}

/// One `POST /v1/contacts` per contact, each with its entry's key.
async fn send_singly(
    journal: &Journal,
    client: &Client,
    owner: &str,
    contacts: &[Entry],
    report: &mut PushReport,
) -> Result<Flow, JournalError> {
    let mut outcomes = Vec::new();
    let mut held: Option<ServerError> = None;
    let mut flow = Flow::Go;
    for (entry, item) in contacts.iter().zip(items(contacts)) {
        // Rate limited: the rest wait as long as the service said, unsent.
        if let Some(e) = held.as_ref().filter(|e| rate_limited(e)) {
            outcomes.push((entry.id.clone(), Outcome::Later(later(e, 0))));
            flow = Flow::Stop;
            continue;
        }
        report.requests += 1;
        match client
            .create_contact_keyed(&item.contact, &item.idempotency_key)
            .await
        {
            Ok(created) => outcomes.push((entry.id.clone(), Outcome::Sent(created.id))),
            Err(e) if stops(&e) => {
                report.stopped = Some(e);
                flow = Flow::Stop;
                break;
            }
            Err(ClientError::Server(e)) => {
                let decided = outcome(Err((*e).clone()), entry.attempts);
                if matches!(decided, Outcome::Later(_)) && held.is_none() {
                    held = Some(*e);
                }
                outcomes.push((entry.id.clone(), decided));
            }
            Err(_) => {
                flow = Flow::Stop;
                break;
            }
        }
    }
    settle(journal, owner, outcomes, held, report).await?;
    Ok(flow)
}

/// What the background sender tells the logbook.
#[derive(Debug, Clone)]
pub enum SenderEvent {
    /// Entries stored by the service, in order (folder entries included).
    Sent(Vec<Entry>),
    /// Entries the service refused; they stay in the journal until fixed or dropped.
    Refused(Vec<Entry>),
    /// A request went through after the link was down (or at the first push that sent).
    Online,
    /// The service could not be reached; entries wait and the sender tries again by itself.
    Offline(String),
    /// Entries wait because of the service's answer: a refused key, rate limiting, a failure.
    Held(ClientError),
    /// A folder logged with no link was made: every entry and the cached lists use its real id.
    FolderResolved {
        local_id: String,
        folder: Box<Folder>,
    },
    /// How many entries wait and were refused, after every push.
    Counts(Counts),
    /// The journal file itself failed (a full disk, permissions); the sender tries again.
    Failed(String),
}

async fn link_is_back(client: &Client) -> bool {
    !matches!(client.whoami().await, Err(ClientError::Transport { .. }))
}

/// The background sender: pushes, then sleeps until the next entry is due, waking at once on
/// `wake.notify_one()` (call it after logging an entry). While the link is down (or the service
/// refuses the key, or fails) it tries again after 1 s, doubling up to 30 s. It reports through
/// `events` and ends when the receiver is dropped.
pub fn spawn_sender(
    journal: Journal,
    client: Arc<Client>,
    wake: Arc<Notify>,
    events: UnboundedSender<SenderEvent>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut backoff = FIRST_BACKOFF;
        let mut online: Option<bool> = None;
        // Until when the service asked for quiet (rate limited).
        let mut quiet_until: Option<tokio::time::Instant> = None;
        loop {
            let mut said = Vec::new();
            let pause = match push(&journal, &client).await {
                Ok(report) => {
                    // The link's state first, then what went through it.
                    if let Some(ClientError::Transport { message, .. }) = &report.stopped {
                        if online != Some(false) {
                            online = Some(false);
                            said.push(SenderEvent::Offline(message.clone()));
                        }
                    } else if report.requests > 0 && online != Some(true) {
                        online = Some(true);
                        said.push(SenderEvent::Online);
                    }
                    for (local_id, folder) in report.resolved {
                        said.push(SenderEvent::FolderResolved {
                            local_id,
                            folder: Box::new(folder),
                        });
                    }
                    if !report.sent.is_empty() {
                        said.push(SenderEvent::Sent(report.sent));
                    }
                    if !report.refused.is_empty() {
                        said.push(SenderEvent::Refused(report.refused));
                    }
                    let pause = match report.stopped {
                        Some(ClientError::Transport { .. }) => Some(backoff),
                        Some(ClientError::Server(e)) if rate_limited(&e) => {
                            // The service's own wait, which no new entry shortens: a burst of
                            // contacts would otherwise send a refused request each.
                            let wait = later(&e, 0);
                            quiet_until = Some(tokio::time::Instant::now() + wait);
                            said.push(SenderEvent::Held(ClientError::Server(e)));
                            Some(wait)
                        }
                        Some(held) => {
                            said.push(SenderEvent::Held(held));
                            Some(backoff)
                        }
                        None => None,
                    };
                    match journal.counts().await {
                        Ok(counts) => said.push(SenderEvent::Counts(counts)),
                        Err(e) => said.push(SenderEvent::Failed(e.to_string())),
                    }
                    match pause {
                        Some(pause) => {
                            backoff = (backoff * 2).min(MAX_BACKOFF);
                            pause
                        }
                        None => {
                            backoff = FIRST_BACKOFF;
                            until_due(&journal).await
                        }
                    }
                }
                Err(e) => {
                    said.push(SenderEvent::Failed(e.to_string()));
                    let pause = backoff;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                    pause
                }
            };
            for event in said {
                if events.send(event).is_err() {
                    return;
                }
            }
            let due = tokio::time::Instant::now() + pause.max(MIN_PAUSE);
            loop {
                tokio::select! {
                    () = wake.notified(), if quiet_until.is_none_or(|t| t <= tokio::time::Instant::now()) => {
                        // While the link is down a new entry first asks whether it is back (a
                        // GET that writes nothing), so logging with no link costs the journal
                        // one commit per contact, not three (the entry, a claim, its release).
                        if online != Some(false) || link_is_back(&client).await {
                            // What else is logged meanwhile goes in the same request: a burst
                            // (WSJT-X, N1MM+, an import by hand) makes a few pushes, not one
                            // per contact, each with journal commits of its own that the next
                            // contact's log would wait on.
                            tokio::time::sleep(GATHER).await;
                            break;
                        }
                    }
                    () = tokio::time::sleep_until(due) => break,
                    () = events.closed() => return,
                }
            }
        }
    })
}

/// How long until the next waiting entry is due, at most [`IDLE_POLL`].
async fn until_due(journal: &Journal) -> Duration {
    match journal.next_due().await {
        Ok(Some(due)) => {
            let ms = due.millis().saturating_sub(Timestamp::now().millis());
            Duration::from_millis(u64::try_from(ms).unwrap_or(0)).min(IDLE_POLL)
        }
        _ => IDLE_POLL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(status: u16, code: &str, retry_after: Option<u64>) -> ServerError {
        ServerError {
            error: code.into(),
            message: "m".into(),
            details: Some(serde_json::json!({"field": "x"})),
            request_id: None,
            status,
            retry_after,
        }
    }

    #[test]
    fn answers_decide_each_entry() {
        let created = CreatedContact {
            id: "qso_a".into(),
            duplicate_of: None,
            replayed: true,
        };
        assert_eq!(outcome(Ok(created), 1), Outcome::Sent("qso_a".into()));
        let refused = outcome(Err(error(400, "validation_error", None)), 1);
        let Outcome::Refused(e) = refused else {
            panic!("{refused:?}")
        };
        assert_eq!((e.status, e.code.as_str()), (400, "validation_error"));
        assert_eq!(e.details, Some(serde_json::json!({"field": "x"})));
        assert_eq!(e.exit_code(), 2);
        assert!(matches!(
            outcome(Err(error(402, "qso_cap_reached", None)), 1),
            Outcome::Refused(_)
        ));
        assert_eq!(
            outcome(Err(error(429, "rate_limited", Some(7))), 1),
            Outcome::Later(Duration::from_secs(7))
        );
        assert_eq!(
            outcome(Err(error(429, "rate_limited", None)), 1),
            Outcome::Later(RATE_LIMIT_WAIT)
        );
        assert_eq!(
            outcome(Err(error(500, "internal", None)), 3),
            Outcome::Later(Duration::from_secs(8))
        );
        assert_eq!(
            outcome(Err(error(503, "internal", None)), 40),
            Outcome::Later(Duration::from_secs(256))
        );
    }

    #[test]
    fn only_request_wide_failures_stop_a_push() {
        let transport = ClientError::Transport {
            message: "refused".into(),
            attempts: 3,
        };
        assert!(stops(&transport));
        assert!(stops(&ClientError::Server(Box::new(error(
            401,
            "key_revoked",
            None
        )))));
        assert!(!stops(&ClientError::Server(Box::new(error(
            400,
            "validation_error",
            None
        )))));
        assert!(no_batch_endpoint(&ClientError::Unexpected {
            status: 405,
            message: String::new()
        }));
        assert!(!no_batch_endpoint(&transport));
        assert!(batch_refused(&ClientError::Server(Box::new(error(
            413,
            "validation_error",
            None
        )))));
    }
}
