//! What working the call on the form would bring the log (a new one, a new band or mode, a
//! WAS state, how often it was worked), judged by the model's [`Worked`] against the log the
//! journal holds: read from it in the background once the journal is open and the country
//! file read, again once the service's whole log is copied into it, and kept up to date with
//! each contact logged here, so that every keystroke is a few lookups, link or no link.

use super::*;
use crate::action::Shared;
use svc_model::fields::Field as Declared;
use svc_model::needed::{Wanted, Worked};

/// How long a copy of the whole log that failed waits before it is tried again.
const COPY_RETRY_MS: i64 = 60_000;

/// Where the copy of the service's whole log into the journal stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WholeLog {
    #[default]
    NotYet,
    Copying,
    Copied,
    /// It failed at this time; tried again a minute later, while the link is up.
    Failed(Timestamp),
}

/// The log as the form judges calls against, and how its reading stands.
#[derive(Debug, Default)]
pub struct Judge {
    pub worked: Option<Worked>,
    /// Contacts logged here and copies finished, each of which a read under way may miss.
    changes: u64,
    /// While a read is under way: `changes` when it was asked.
    asked: Option<u64>,
    /// The contacts logged here while a read was under way, which it may not hold: added to
    /// what it gives, so that the form never judges against a log without them (a call just
    /// logged said "new one" until the read after came).
    logged_in_read: Vec<svc_model::contact::ContactInput>,
    pub whole_log: WholeLog,
}

impl App {
    /// Asks for the log the journal holds to be read the first time it can be: once the
    /// journal is open and the country file read. Later the judge is kept up to date as
    /// contacts are logged ([`App::took_logged`]), and read again only after a whole-log copy
    /// or a read that may have missed a contact, not on every answer of the journal.
    pub(super) fn ask_worked(&mut self) -> Vec<Effect> {
        if self.judge.worked.is_some() {
            return vec![];
        }
        self.read_worked()
    }

    /// Asks for the log the journal holds to be read, unless a read is under way or the
    /// journal or the country file is not there yet.
    fn read_worked(&mut self) -> Vec<Effect> {
        if self.judge.asked.is_some() || self.journal != JournalState::Open {
            return vec![];
        }
        let Some(callsigns) = &self.callsigns else {
            return vec![];
        };
        self.judge.asked = Some(self.judge.changes);
        vec![Effect::ReadWorked(Shared(callsigns.clone()))]
    }

    /// The log read: the judge from now on, with the contacts logged while it was read added
    /// (it may lack them). It is read again then, as after a copy finished while it was
    /// read, so that a contact it held already is not counted twice for long.
    pub(super) fn worked_read(&mut self, result: Result<Box<Worked>, String>) -> Vec<Effect> {
        let asked = self.judge.asked.take();
        // One that cannot be read leaves the judge as it was: the form says less, nothing
        // fails.
        let logged = std::mem::take(&mut self.judge.logged_in_read);
        if let Ok(mut worked) = result {
            if let Some(callsigns) = &self.callsigns {
                for contact in &logged {
                    worked.add_input(&callsigns.dxcc, contact);
                }
            }
            self.judge.worked = Some(*worked);
        }
        self.check_callsign();
        if asked.is_some_and(|at| at != self.judge.changes) {
            return self.read_worked();
        }
        vec![]
    }

    /// The service's whole log copied into the journal: read again, now judged against
    /// every folder, not only those this computer showed.
    pub(super) fn whole_log_copied(&mut self, result: Result<(), String>) -> Vec<Effect> {
        self.judge.whole_log = match result {
            Ok(()) => WholeLog::Copied,
            Err(_) => WholeLog::Failed(self.now),
        };
        if self.judge.whole_log != WholeLog::Copied {
            return vec![];
        }
        self.judge.changes += 1;
        self.read_worked()
    }

    /// The copy of the whole log, once the log was read and while the service answers (and
    /// a minute after one failed).
    pub(super) fn copy_whole_log(&mut self) -> Vec<Effect> {
        let due = match self.judge.whole_log {
            WholeLog::NotYet => true,
            WholeLog::Failed(at) => self.now.millis() - at.millis() >= COPY_RETRY_MS,
            WholeLog::Copying | WholeLog::Copied => false,
        };
        if !due || self.judge.worked.is_none() || self.connection != Connection::Online {
            return vec![];
        }
        self.judge.whole_log = WholeLog::Copying;
        vec![Effect::CopyWholeLog]
    }

    /// A contact the journal now holds counts at once: the next call typed is judged with it.
    pub(super) fn took_logged(&mut self, answer: &JournalAnswer) {
        let contact = match answer {
            JournalAnswer::Retried(Ok(entry)) => match &entry.request {
                svc_client::journal::EntryRequest::Contact(contact) => Some(contact),
                _ => None,
            },
            answer => answer.contact_logged().map(|(_, contact)| contact),
        };
        let Some(contact) = contact else {
            return;
        };
        self.judge.changes += 1;
        if self.judge.asked.is_some() {
            self.judge.logged_in_read.push(contact.clone());
        }
        if let (Some(worked), Some(callsigns)) = (&mut self.judge.worked, &self.callsigns) {
            worked.add_input(&callsigns.dxcc, contact);
        }
    }

    /// What working `call` would bring the log, on the form's band and mode; `typed` when it
    /// is the form's own call, whose state the callbook may have given.
    pub(super) fn wanted(&self, call: &str, typed: bool) -> Wanted {
        let (Some(worked), Some(callsigns), Some(form)) =
            (&self.judge.worked, &self.callsigns, &self.entry)
        else {
            return Wanted::default();
        };
        // As the entity line: a call says nothing before its second character.
        if call.trim().len() < 2 {
            return Wanted::default();
        }
        let band = form.band.as_ref().ok().copied();
        let state = typed.then(|| form.carried(Declared::State)).flatten();
        worked.wanted(&callsigns.dxcc, call, band, form.value(Field::Mode), state)
    }
}
