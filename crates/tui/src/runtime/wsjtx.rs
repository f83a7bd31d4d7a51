//! WSJT-X's datagrams: one task owns the --wsjtx socket, hands every message but the decodes
//! to the app, and colours each call WSJT-X decodes (Highlight Callsign, back to the address
//! the instance sends from) by what working it would bring the log, as `svc listen wsjtx`
//! does. The colouring lives in this task, not in the app: decodes come by the dozen every
//! period and the screen shows none of them, so an action each would redraw it for nothing.
//! What the judging needs is fed to the task: the journal once it is open, the country file
//! once it is read, and each contact as it is logged.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::UdpSocket;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::task::JoinSet;

use crate::action::Action;
use crate::callsigns::Callsigns;
use crate::journal::JournalAnswer;
use svc_client::Client;
use svc_client::journal::{Entry, EntryRequest, Journal, Logged};
use svc_model::needed::{Need, Worked};
use svc_model::{ContactInput, Timestamp};
use svc_wsjtx::Message;
use svc_wsjtx::highlight::{Highlight, Highlighter};

/// The largest UDP datagram.
const MAX_DATAGRAM: usize = 65_536;

/// What the colouring task is fed.
pub enum Fed {
    /// The journal is open: the log it holds is the judge, read now and again once the
    /// service's whole log is copied into it.
    Journal(Journal),
    /// The country file the logbook read (the user's cty.csv or the shipped one).
    Callsigns(Arc<Callsigns>),
    /// A contact just logged, typed or WSJT-X's, now in the journal.
    Logged(Box<ContactInput>),
}

/// What the run loop feeds the colouring task: nothing without --wsjtx, or with
/// --no-highlight.
#[derive(Default)]
pub struct Feed {
    to: Option<UnboundedSender<Fed>>,
    journal_sent: bool,
}

impl Feed {
    pub fn new(to: UnboundedSender<Fed>) -> Feed {
        Feed {
            to: Some(to),
            journal_sent: false,
        }
    }

    /// The journal, the first time it is open.
    pub fn journal(&mut self, journal: Option<&Journal>) {
        if let (Some(to), Some(journal), false) = (&self.to, journal, self.journal_sent) {
            self.journal_sent = to.send(Fed::Journal(journal.clone())).is_ok();
        }
    }

    /// What of an action the colouring needs: the country file read, a contact logged.
    pub fn action(&self, action: &Action) {
        let Some(to) = &self.to else {
            return;
        };
        // The task ends only with the logbook: a send that fails has no one to tell.
        if let Action::CallsignsLoaded { callsigns, .. } = action {
            let _ = to.send(Fed::Callsigns(callsigns.clone()));
        } else if let Some((_, contact)) = logged(action) {
            let _ = to.send(Fed::Logged(Box::new(contact.clone())));
        }
    }
}

/// The contact an action says is now in the journal, with its entry: one typed, or one
/// WSJT-X logged that was not logged already.
pub fn logged(action: &Action) -> Option<(&Entry, &ContactInput)> {
    let entry = match action {
        Action::Journal(JournalAnswer::Logged {
            result: Ok(entry), ..
        })
        | Action::Journal(JournalAnswer::LoggedOnce {
            result: Ok(Logged::New(entry)),
            ..
        }) => entry,
        _ => return None,
    };
    match &entry.request {
        EntryRequest::Contact(contact) => Some((entry, contact)),
        _ => None,
    }
}

/// The log as the journal holds it, and what each WSJT-X instance was told.
#[derive(Default)]
struct Colours {
    journal: Option<Journal>,
    callsigns: Option<Arc<Callsigns>>,
    /// Read once both the journal and the country file are there; until then no call is
    /// coloured.
    worked: Option<Worked>,
    highlighter: Highlighter,
}

/// Highlight Callsign datagrams, each with where it goes.
type Out = Vec<Highlight>;

/// The judge of a call on a band and mode now, against `worked`: none while the log is not
/// read yet.
fn judge<'a>(
    callsigns: Option<&'a Callsigns>,
    worked: Option<&'a Worked>,
) -> impl FnMut(&str, &str, &str) -> Option<Need> + 'a {
    let now = Timestamp::now();
    move |call, band, mode| match (callsigns, worked) {
        (Some(callsigns), Some(worked)) => worked.need(&callsigns.dxcc, call, band, mode, now),
        _ => None,
    }
}

impl Colours {
    /// A message of WSJT-X's: the highlights it calls for, back to where it came from.
    fn heard(&mut self, message: &Message, from: SocketAddr) -> Out {
        let judge = judge(self.callsigns.as_deref(), self.worked.as_ref());
        self.highlighter.heard(message, from, judge)
    }

    /// Every decoded call judged again against the log, each change to the instance it is for.
    fn refresh(&mut self) -> Out {
        let judge = judge(self.callsigns.as_deref(), self.worked.as_ref());
        self.highlighter.refresh(judge)
    }

    /// The log read from the journal again, and the changes it makes. One that cannot be read
    /// leaves the judge as it was (no colours at all, at first).
    async fn reread(&mut self) -> Out {
        let (Some(journal), Some(callsigns)) = (&self.journal, &self.callsigns) else {
            return Vec::new();
        };
        if let Ok(worked) = journal.worked(&callsigns.dxcc).await {
            self.worked = Some(worked);
        }
        self.refresh()
    }

    /// What the task is fed; the first time both the journal and the country file are there,
    /// the log is read and the service's whole log copied into the journal on `copies`.
    async fn fed(&mut self, fed: Fed, client: &Arc<Client>, copies: &mut JoinSet<Copied>) -> Out {
        match fed {
            Fed::Journal(journal) => self.journal = Some(journal),
            Fed::Callsigns(callsigns) => self.callsigns = Some(callsigns),
            Fed::Logged(contact) => {
                let (Some(callsigns), Some(worked)) = (&self.callsigns, &mut self.worked) else {
                    // Not read yet: it is in the journal, and read with the rest.
                    return Vec::new();
                };
                worked.add_input(&callsigns.dxcc, &contact);
                return self.refresh();
            }
        }
        if self.worked.is_some() {
            return Vec::new();
        }
        let out = self.reread().await;
        if let Some(journal) = self.journal.clone().filter(|_| self.worked.is_some()) {
            let client = client.clone();
            copies.spawn(async move { journal.copy_whole_log(&client).await });
        }
        out
    }
}

/// The end of the copy of the whole log from the service, or why it did not happen.
type Copied = Result<(), String>;

/// Turns each datagram WSJT-X sends to `socket` into an [`Action::Wsjtx`] until the logbook
/// closes, and with `fed` (not --no-highlight) colours its decodes. One that is not WSJT-X's,
/// or is malformed, is dropped: whatever sends to the port, nothing it sends can stop the
/// logbook.
pub async fn hear_wsjtx(
    socket: UdpSocket,
    mut fed: Option<UnboundedReceiver<Fed>>,
    client: Arc<Client>,
    tx: UnboundedSender<Action>,
) {
    let mut buffer = vec![0u8; MAX_DATAGRAM];
    let mut colours = Colours::default();
    // Dropped with this task when the logbook closes, which stops a copy still running.
    let mut copies = JoinSet::new();
    loop {
        let out = tokio::select! {
            // An error here is an ICMP report of an earlier send, or a datagram larger than
            // the buffer: nothing to act on.
            Ok((length, from)) = socket.recv_from(&mut buffer) => {
                let Ok(message) = svc_wsjtx::decode(&buffer[..length]) else {
                    continue;
                };
                let out = if fed.is_some() {
                    colours.heard(&message, from)
                } else {
                    Vec::new()
                };
                // Decodes come by the dozen each period and the logbook shows none of them.
                if !matches!(message, Message::Decode(_))
                    && tx.send(Action::Wsjtx(message)).is_err()
                {
                    return;
                }
                out
            }
            Some(item) = async { fed.as_mut()?.recv().await } => {
                colours.fed(item, &client, &mut copies).await
            }
            Some(copied) = copies.join_next(), if !copies.is_empty() => {
                // Not copied (the link is down, or went during the copy): the journal's copy
                // as it was stays the judge.
                match copied {
                    Ok(Ok(())) => colours.reread().await,
                    _ => Vec::new(),
                }
            }
            // The socket's error, and nothing else to wait for.
            else => continue,
        };
        // A send that fails (WSJT-X gone, the buffer full) loses a colour, not a contact.
        for (to, datagram) in out {
            let _ = socket.send_to(&datagram, to).await;
        }
    }
}
