//! WSJT-X's datagrams: one task owns the --wsjtx socket, hands every message but the decodes
//! to the app, and colours each call WSJT-X decodes (Highlight Callsign, back to the address
//! the instance sends from) by what working it would bring the log, as `svc listen wsjtx`
//! does. The colouring lives in this task, not in the app: decodes come by the dozen every
//! period and the screen shows none of them, so an action each would redraw it for nothing.
//! What the judging needs is fed to the task: the log the journal holds, each time the app
//! has it read (at start, and again once the service's whole log is copied in), the country
//! file once it is read, and each contact as it is logged.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::UdpSocket;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use crate::action::Action;
use crate::callsigns::Callsigns;
use svc_client::journal::Entry;
use svc_model::needed::{Need, Worked};
use svc_model::{ContactInput, Timestamp};
use svc_wsjtx::Message;
use svc_wsjtx::highlight::{Highlight, Highlighter};

/// The largest UDP datagram.
const MAX_DATAGRAM: usize = 65_536;

/// What the colouring task is fed.
pub enum Fed {
    /// The log the journal holds, as the app had it read: the judge from now on.
    Worked(Box<Worked>),
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
}

impl Feed {
    pub fn new(to: UnboundedSender<Fed>) -> Feed {
        Feed { to: Some(to) }
    }

    /// What of an action the colouring needs: the country file read, the log read from the
    /// journal, a contact logged.
    pub fn action(&self, action: &Action) {
        let Some(to) = &self.to else {
            return;
        };
        // The task ends only with the logbook: a send that fails has no one to tell.
        if let Action::CallsignsLoaded { callsigns, .. } = action {
            let _ = to.send(Fed::Callsigns(callsigns.clone()));
        } else if let Action::WorkedRead(Ok(worked)) = action {
            let _ = to.send(Fed::Worked(worked.clone()));
        } else if let Some((_, contact)) = logged(action) {
            let _ = to.send(Fed::Logged(Box::new(contact.clone())));
        }
    }
}

/// The contact an action says is now in the journal, with its entry: one typed, or one
/// WSJT-X logged that was not logged already.
pub fn logged(action: &Action) -> Option<(&Entry, &ContactInput)> {
    match action {
        Action::Journal(answer) => answer.contact_logged(),
        _ => None,
    }
}

/// The log as the journal holds it, and what each WSJT-X instance was told.
#[derive(Default)]
struct Colours {
    callsigns: Option<Arc<Callsigns>>,
    /// The log as the app last had it read, with the contacts logged since; until it comes
    /// no call is coloured.
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

    /// What the task is fed, and the changes of colour it makes.
    fn fed(&mut self, fed: Fed) -> Out {
        match fed {
            Fed::Worked(worked) => self.worked = Some(*worked),
            Fed::Callsigns(callsigns) => self.callsigns = Some(callsigns),
            Fed::Logged(contact) => {
                let (Some(callsigns), Some(worked)) = (&self.callsigns, &mut self.worked) else {
                    // Not read yet: it is in the journal, and read with the rest.
                    return Vec::new();
                };
                worked.add_input(&callsigns.dxcc, &contact);
            }
        }
        self.refresh()
    }
}

/// Turns each datagram WSJT-X sends to `socket` into an [`Action::Wsjtx`] until the logbook
/// closes, and with `fed` (not --no-highlight) colours its decodes. One that is not WSJT-X's,
/// or is malformed, is dropped: whatever sends to the port, nothing it sends can stop the
/// logbook.
pub async fn hear_wsjtx(
    socket: UdpSocket,
    mut fed: Option<UnboundedReceiver<Fed>>,
    tx: UnboundedSender<Action>,
) {
    let mut buffer = vec![0u8; MAX_DATAGRAM];
    let mut colours = Colours::default();
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
            Some(item) = async { fed.as_mut()?.recv().await } => colours.fed(item),
            // The socket's error, and nothing else to wait for.
            else => continue,
        };
        // A send that fails (WSJT-X gone, the buffer full) loses a colour, not a contact.
        for (to, datagram) in out {
            let _ = socket.send_to(&datagram, to).await;
        }
    }
}
