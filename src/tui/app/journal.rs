//! The flows of the offline journal: what its answers and its background sender's reports
//! change across the panes (the waiting and refused rows, counts, the copy shown at start, the
//! folders made with no link), and the link's state.

use super::{App, Connection, Dialog, Effect, Pane, Tone, describe};
use crate::client::ClientError;
use crate::client::journal::{Entry, EntryRequest, EntryState, SenderEvent};
use crate::model::band::mhz_text;
use crate::model::{ErrorCode, Folder, FolderType};
use crate::tui::components::contacts::Mark;
use crate::tui::components::entry::{EntryForm, Field, FixForm};
use crate::tui::components::folders::holds_contacts;
use crate::tui::components::outbox::{JournalState, Outbox, contact_row, plural, refusal};
use crate::tui::journal::{JournalAnswer, JournalCopy};
use crate::tui::list::Load;
use crate::tui::widgets::hhmm;

/// How long whoami waits before it is asked again while this key's journal is not known.
const WHOAMI_RETRY_MS: i64 = 10_000;

impl App {
    /// Adds `delta` to the contact count of the folder, and of the containers above it (which
    /// count what is below them), wherever they are shown.
    pub(super) fn count_contact(&mut self, folder_id: &str, delta: i64) {
        let counted = self.folders.lineage(folder_id);
        for f in self
            .folders
            .items
            .iter_mut()
            .chain(self.activations.items.iter_mut())
            .chain(self.contacts.folder.iter_mut())
        {
            if counted.contains(&f.id) {
                f.contact_count = (f.contact_count + delta).max(0);
            }
        }
    }

    /// Asks whoami again now and then while this key's journal is not known: the first answer
    /// opens it.
    pub(super) fn ask_whoami_again(&mut self) -> Vec<Effect> {
        let due = self
            .whoami_retry
            .is_some_and(|t| self.now.millis() - t.millis() >= WHOAMI_RETRY_MS);
        // A refused key is not asked again: only a new key helps, and the screen says so.
        let rejected = self.connection == Connection::KeyRejected;
        if self.journal != JournalState::Missing || !due || rejected {
            return vec![];
        }
        self.whoami_retry = None;
        self.me_load = Load::Loading;
        self.in_flight += 1;
        vec![Effect::LoadWhoami]
    }

    /// Enter on a row of the Contacts pane: a refused contact opens to be fixed.
    pub(super) fn open_pending(&mut self) {
        let Some(c) = self.contacts.selected() else {
            return;
        };
        let (id, call) = (c.id.clone(), c.callsign.clone());
        let why = match self.contacts.marks.get(&id) {
            None => return,
            Some(Mark::Waiting) => {
                self.say(
                    Tone::Info,
                    format!(
                        "{call} waits in the journal and goes out by itself once the service can be reached; Alt-D discards it"
                    ),
                );
                return;
            }
            Some(Mark::Refused(why)) => why.clone(),
        };
        let Some(request) = self.outbox.request(&id) else {
            return;
        };
        // Into the folder open now, when it takes contacts: the usual fix for a contact
        // refused by its folder is another folder.
        let target = self
            .contacts
            .folder
            .as_ref()
            .filter(|f| holds_contacts(f))
            .or_else(|| {
                self.folders
                    .items
                    .iter()
                    .find(|f| f.id == request.folder_id)
            })
            .cloned();
        let mut form = EntryForm::from_request(&request.folder_id, &request.folder_id, request);
        if let Some(folder) = &target {
            form.set_folder(folder);
        }
        self.dialog = Some(Dialog::Fix(Box::new(FixForm {
            entry_id: id,
            refusal: why,
            form,
        })));
    }

    pub(super) fn journal_answer(&mut self, answer: JournalAnswer) -> Vec<Effect> {
        match answer {
            JournalAnswer::Loaded(Ok(copy)) => self.copy_loaded(copy),
            JournalAnswer::Loaded(Err(why)) => {
                self.say(
                    Tone::Error,
                    format!("the journal cannot be used, so nothing can be logged: {why}"),
                );
                self.journal = JournalState::Failed(why);
                vec![]
            }
            JournalAnswer::Missing => {
                self.journal = JournalState::Missing;
                vec![]
            }
            JournalAnswer::Logged(Ok(entry)) => {
                self.contact_logged(entry);
                vec![]
            }
            JournalAnswer::Logged(Err(why)) => {
                self.say(
                    Tone::Error,
                    format!("not logged, the form keeps it: the journal failed: {why}"),
                );
                vec![]
            }
            JournalAnswer::FolderLogged(Ok((entry, folder))) => self.folder_logged(entry, folder),
            JournalAnswer::FolderLogged(Err(why)) => {
                self.say(Tone::Error, format!("not started: {why}"));
                vec![]
            }
            JournalAnswer::Retried(Ok(entry)) => {
                if matches!(self.dialog, Some(Dialog::Fix(_))) {
                    self.dialog = None;
                }
                let call = contact_row(&entry).map(|c| c.callsign).unwrap_or_default();
                if let Some(e) = self.outbox.entries.iter_mut().find(|e| e.id == entry.id) {
                    *e = entry;
                }
                self.outbox.counts.refused = self.outbox.counts.refused.saturating_sub(1);
                self.outbox.counts.waiting += 1;
                self.merge_pending();
                self.say(
                    Tone::Success,
                    format!("{call} fixed; it waits in the journal and goes out by itself"),
                );
                vec![]
            }
            JournalAnswer::Retried(Err(why)) => {
                self.say(Tone::Error, format!("not fixed: {why}"));
                vec![]
            }
            JournalAnswer::Discarded { id, result } => {
                match result {
                    Ok(true) => {
                        if let Some(i) = self.outbox.entries.iter().position(|e| e.id == id) {
                            let gone = self.outbox.entries.remove(i);
                            let counts = &mut self.outbox.counts;
                            match gone.state {
                                EntryState::Refused => {
                                    counts.refused = counts.refused.saturating_sub(1)
                                }
                                _ => counts.waiting = counts.waiting.saturating_sub(1),
                            }
                            let call = contact_row(&gone).map(|c| c.callsign).unwrap_or(id);
                            self.say(Tone::Success, format!("discarded {call}"));
                        }
                        self.merge_pending();
                    }
                    Ok(false) => self.say(
                        Tone::Info,
                        "it was sent meanwhile, so it is in the log now (Alt-D deletes it there)",
                    ),
                    Err(why) => self.say(Tone::Error, format!("not discarded: {why}")),
                }
                vec![]
            }
        }
    }

    /// The journal's copy at start (or once a first whoami opened it): shown until the
    /// service's lists come, and the entries that wait.
    fn copy_loaded(&mut self, copy: JournalCopy) -> Vec<Effect> {
        let JournalCopy {
            snapshot,
            entries,
            counts,
        } = copy;
        // Opened after whoami answered: the service's lists came before there was a journal
        // to keep them in, so they are asked for again to be saved.
        let first_time = self.journal == JournalState::Opening && self.me_load == Load::Loaded;
        self.journal = JournalState::Open;
        self.outbox = Outbox { entries, counts };
        let mut effects = Vec::new();
        if self.me.is_none() {
            self.me = snapshot.whoami;
        }
        // A list saved empty is shown empty: "no activations" is known, not missing.
        if self.folders.load != Load::Loaded
            && (snapshot.folders_saved || !snapshot.folders.is_empty())
        {
            self.set_folders(snapshot.folders);
        }
        if self.activations.load != Load::Loaded
            && (snapshot.activations_saved || !snapshot.activations.is_empty())
        {
            effects.extend(self.set_activations(snapshot.activations));
        }
        // The folder open when the logbook last ran opens again, with its activation.
        if self.contacts.folder.is_none()
            && let Some(id) = &snapshot.open_folder
            && let Some(folder) = self
                .folders
                .items
                .iter()
                .chain(&self.activations.items)
                .find(|f| f.id == *id)
                .cloned()
        {
            self.select_folder(&folder.id);
            self.select_activation(&folder.id);
            effects.extend(self.open_folder(folder));
        }
        self.merge_pending();
        if counts.refused > 0 {
            self.say(
                Tone::Warning,
                format!(
                    "{} refused by the service: Tab to Contacts, Enter on a ✗ row fixes it, Alt-D discards it",
                    plural(counts.refused, "contact was", "contacts were")
                ),
            );
        }
        if first_time {
            let loads = [
                Effect::LoadWhoami,
                Effect::LoadFolders,
                Effect::LoadActivations,
            ];
            self.in_flight += loads.len();
            effects.extend(loads);
        }
        effects
    }

    fn contact_logged(&mut self, entry: Entry) {
        let Some(row) = contact_row(&entry) else {
            return;
        };
        if let Some(form) = &mut self.entry {
            form.clear_for_next();
            // As the service will store them: 14074 becomes 14.074, ft8 becomes FT8.
            form.set(Field::Frequency, &mhz_text(row.frequency));
            form.set(Field::Mode, &row.mode);
        }
        self.last_frequency_mode = Some((mhz_text(row.frequency), row.mode.clone()));
        self.mode_used(&row.mode);
        // The next contact's frequency and mode come from the radio again.
        self.follow_rig();
        let mut text = format!(
            "logged {} {} {} at {} UTC",
            row.callsign,
            row.band,
            row.mode,
            hhmm(row.time_on)
        );
        if self.connection != Connection::Online {
            text.push_str("; it waits in the journal and goes out once the link is back");
        }
        self.say(Tone::Success, text);
        self.activations.count(&row);
        self.outbox.entries.push(entry);
        self.outbox.counts.waiting += 1;
        self.merge_pending();
        self.check_duplicate();
    }

    pub(super) fn folder_logged(&mut self, entry: Option<Entry>, folder: Folder) -> Vec<Effect> {
        // The same folder logged again gives the entry already waiting for it.
        if let Some(entry) = entry
            && !self.outbox.entries.iter().any(|e| e.id == entry.id)
        {
            self.outbox.entries.push(entry);
            self.outbox.counts.waiting += 1;
        }
        if matches!(self.dialog, Some(Dialog::Activation(_))) {
            self.dialog = None;
        }
        if !self.folders.items.iter().any(|f| f.id == folder.id) {
            let mut items = self.folders.items.clone();
            items.push(folder.clone());
            self.set_folders(items);
        }
        let mut effects = Vec::new();
        if folder.folder_type == FolderType::Activation {
            let reference = folder.location_reference.clone().unwrap_or_default();
            let known = self.activations.items.iter().any(|a| a.id == folder.id);
            match &folder.end_time {
                // The service answers an activation of today that was ended with that folder,
                // as it is: one activation per park and UTC day, and nothing reopens it.
                Some(ended) => self.say(
                    Tone::Warning,
                    format!(
                        "activation {reference} of today was ended at {}: opened as it is ({}); logging into it asks first",
                        ended.to_string().get(11..16).unwrap_or("?"),
                        folder.name
                    ),
                ),
                None if known => self.say(
                    Tone::Info,
                    format!(
                        "activation {reference} is in progress: {}; type a callsign to log into it",
                        folder.name
                    ),
                ),
                None => self.say(
                    Tone::Success,
                    format!(
                        "activation {reference} started: {}; type a callsign to log into it",
                        folder.name
                    ),
                ),
            }
            if !self.activations.items.iter().any(|a| a.id == folder.id) {
                // Newest first, as the service lists them; only its count is new to ask for.
                let selected = self.activations.selected().map(|a| a.id.clone());
                self.activations.items.insert(0, folder.clone());
                self.refilter(Pane::Activations);
                if let Some(id) = selected {
                    self.select_activation(&id);
                }
                effects.extend(self.load_stats(folder.id.clone()));
            }
        } else {
            self.say(
                Tone::Success,
                format!(
                    "opened the {} log; type a callsign to log a contact",
                    folder.name
                ),
            );
        }
        self.select_folder(&folder.id);
        effects.extend(self.open_folder(folder));
        effects
    }

    pub(super) fn sender_event(&mut self, event: SenderEvent) -> Vec<Effect> {
        match event {
            SenderEvent::Sent(entries) => {
                for entry in entries {
                    self.entry_sent(entry);
                }
                self.merge_pending();
                vec![]
            }
            SenderEvent::Refused(entries) => {
                let mut last = None;
                let mut recount = Vec::new();
                for entry in entries {
                    if let EntryRequest::Contact(c) = &entry.request
                        && self.activations.stats.contains_key(&c.folder_id)
                        && !recount.contains(&c.folder_id)
                    {
                        recount.push(c.folder_id.clone());
                    }
                    last = Some(self.entry_refused(entry));
                }
                self.merge_pending();
                if let Some(text) = last {
                    self.say(Tone::Error, text);
                }
                // A refused contact was counted toward its activation when it was logged: the
                // count is made again from what is stored and what still waits.
                recount
                    .into_iter()
                    .flat_map(|id| self.load_stats(id))
                    .collect()
            }
            SenderEvent::Online => match self.connection {
                // Back from a dead link: what the screen shows may be old.
                Connection::Offline => self.back_online(),
                Connection::KeyRejected => vec![],
                _ => {
                    self.connection = Connection::Online;
                    vec![]
                }
            },
            SenderEvent::Offline(_) => {
                if self.connection != Connection::KeyRejected {
                    self.connection = Connection::Offline;
                }
                vec![]
            }
            SenderEvent::Held(e) => {
                self.sender_held(&e);
                vec![]
            }
            SenderEvent::FolderResolved { local_id, folder } => {
                self.folder_resolved(&local_id, *folder)
            }
            SenderEvent::Counts(counts) => {
                self.outbox.counts = counts;
                vec![]
            }
            SenderEvent::Failed(why) => {
                self.say(Tone::Error, format!("the journal failed: {why}"));
                vec![]
            }
        }
    }

    /// The runtime's check of the link: a stalled link shows `offline` within seconds, and
    /// one that is back is used at once.
    pub(super) fn link_probed(&mut self, result: Result<(), ClientError>) -> Vec<Effect> {
        match (result, &self.connection) {
            (_, Connection::KeyRejected) => vec![],
            (Err(_), _) => {
                self.connection = Connection::Offline;
                vec![]
            }
            (Ok(()), Connection::Offline) => self.back_online(),
            // Connecting stays until the first answer says what the key is worth.
            (Ok(()), _) => vec![],
        }
    }

    /// The link is back after it was down: said, and what the screen shows is read again.
    fn back_online(&mut self) -> Vec<Effect> {
        self.connection = Connection::Online;
        self.say(
            Tone::Info,
            "the service answers again: reloading, and what waits goes out",
        );
        self.reload()
    }

    /// Loads what the screen shows again, without a message.
    fn reload(&mut self) -> Vec<Effect> {
        let mut effects = vec![
            Effect::LoadWhoami,
            Effect::LoadFolders,
            Effect::LoadActivations,
        ];
        self.in_flight += effects.len();
        if let Some(folder) = self.contacts.folder.clone() {
            effects.extend(self.open_folder(folder));
        }
        effects
    }

    fn sender_held(&mut self, e: &ClientError) {
        let key = matches!(e, ClientError::Server(s)
            if matches!(s.code(), Some(ErrorCode::Unauthorized | ErrorCode::KeyRevoked)));
        if key {
            self.connection = Connection::KeyRejected;
        }
        self.say(
            Tone::Error,
            format!(
                "{} wait in the journal: {}",
                plural(self.outbox.counts.waiting, "contact", "contacts"),
                describe(e)
            ),
        );
    }

    fn entry_sent(&mut self, entry: Entry) {
        // The journal's own counts follow the event; until then the bar must not show a
        // stored contact as waiting.
        self.outbox.counts.waiting = self.outbox.counts.waiting.saturating_sub(1);
        self.outbox.entries.retain(|e| e.id != entry.id);
        let Some(row) = contact_row(&entry) else {
            return;
        };
        let Some(qso) = entry.sent_id else {
            return;
        };
        // The row keeps its place; it is the service's contact now.
        if self.contacts.marks.remove(&entry.id).is_some()
            && let Some(c) = self.contacts.items.iter_mut().find(|c| c.id == entry.id)
        {
            c.id = qso;
        }
        self.count_contact(&row.folder_id, 1);
        if let Some(me) = &mut self.me {
            me.native_qso_count += 1;
        }
    }

    /// Records a refusal; returns what to tell the operator.
    fn entry_refused(&mut self, entry: Entry) -> String {
        let why = refusal(&entry);
        let counts = &mut self.outbox.counts;
        counts.waiting = counts.waiting.saturating_sub(1);
        counts.refused += 1;
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
        match self.outbox.entries.iter_mut().find(|e| e.id == entry.id) {
            Some(e) => *e = entry,
            None => self.outbox.entries.push(entry),
        }
        format!("refused: {what}{fix}: {why}")
    }

    /// A folder logged with no link exists on the service now: its real id replaces the
    /// local one everywhere. Open in Contacts, it is read from the service from now on.
    fn folder_resolved(&mut self, local_id: &str, folder: Folder) -> Vec<Effect> {
        let open = self
            .contacts
            .folder
            .as_ref()
            .is_some_and(|f| f.id == local_id);
        let swap = |items: &[Folder]| -> Vec<Folder> {
            let known = items.iter().any(|f| f.id == folder.id);
            items
                .iter()
                .filter(|f| !(known && f.id == local_id))
                .map(|f| {
                    if f.id == local_id {
                        folder.clone()
                    } else {
                        f.clone()
                    }
                })
                .collect()
        };
        let folders = swap(&self.folders.items);
        if self.folders.open.as_deref() == Some(local_id) {
            self.folders.open = Some(folder.id.clone());
        }
        if self
            .contacts
            .folder
            .as_ref()
            .is_some_and(|f| f.id == local_id)
        {
            self.contacts.folder = Some(folder.clone());
        }
        self.set_folders(folders);
        let activations = swap(&self.activations.items);
        if let Some(stats) = self.activations.stats.remove(local_id) {
            self.activations.stats.insert(folder.id.clone(), stats);
        }
        // Not set_activations: the stats were moved, so nothing new is asked for.
        let selected = self.activations.selected().map(|a| {
            if a.id == local_id {
                folder.id.clone()
            } else {
                a.id.clone()
            }
        });
        self.activations.items = activations;
        self.refilter(Pane::Activations);
        if let Some(id) = selected {
            self.select_activation(&id);
        }
        let forms = self
            .entry
            .iter_mut()
            .chain(self.dialog.iter_mut().filter_map(|d| match d {
                Dialog::Fix(fix) => Some(&mut fix.form),
                _ => None,
            }));
        for form in forms {
            if form.folder_id == local_id {
                form.folder_id = folder.id.clone();
                form.folder_name = folder.name.clone();
            }
        }
        for e in &mut self.outbox.entries {
            if let EntryRequest::Contact(c) = &mut e.request
                && c.folder_id == local_id
            {
                c.folder_id = folder.id.clone();
            }
        }
        for c in &mut self.contacts.items {
            if c.folder_id == local_id {
                c.folder_id = folder.id.clone();
            }
        }
        if !open {
            return vec![];
        }
        // The rows shown stay until the service's page replaces them.
        self.contacts.from_copy = true;
        self.contacts.load = Load::Loading;
        self.in_flight += 1;
        vec![Effect::LoadContacts {
            folder_id: folder.id.clone(),
            cursor: None,
            generation: self.contacts.generation,
            save_copy: folder.folder_type != FolderType::Activation,
        }]
    }
}
