//! The journal and its sender: what the journal answers, its copy of the account read at
//! start, contacts and folders logged with no link, the sender's reports, and the link.

use super::*;

impl App {
    /// Enter on a row of the Contacts pane: a refused contact opens to be fixed, a waiting one
    /// says what becomes of it.
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
        let target = self
            .contacts
            .folder
            .as_ref()
            .filter(|f| holds_contacts(f))
            .or_else(|| self.folders.find(&request.folder_id));
        let fix = FixForm::of(id, why, request, target);
        self.dialog = Some(Dialog::Fix(Box::new(fix)));
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
                // Whoami may have answered before the journal was looked for: its account opens
                // the journal now, as whoami's answer would have had it come second.
                if self.me_load == Load::Loaded
                    && let Some(me) = &self.me
                {
                    self.journal = JournalState::Opening;
                    let callsign = me.callsign.clone();
                    return vec![Effect::Journal(JournalEffect::Open { callsign })];
                }
                self.journal = JournalState::Missing;
                vec![]
            }
            JournalAnswer::Logged {
                result: Ok(entry),
                made,
            } => {
                // The folder first: the contact is of it.
                let effects = match made {
                    Some((local_id, folder)) => self.folder_resolved(&local_id, *folder),
                    None => vec![],
                };
                self.contact_logged(entry);
                let mut effects = effects;
                effects.extend(self.ask_serials());
                effects
            }
            JournalAnswer::Logged {
                result: Err(why), ..
            } => {
                self.say(
                    Tone::Error,
                    format!("not logged, the form keeps it: the journal failed: {why}"),
                );
                vec![]
            }
            JournalAnswer::LoggedOnce {
                result,
                made,
                monthly,
                echo,
            } => self.logged_once(result, made, monthly, echo),
            JournalAnswer::FolderLogged(Ok((entry, folder))) => self.folder_logged(entry, folder),
            JournalAnswer::FolderLogged(Err(why)) => {
                self.say(Tone::Error, format!("not started: {why}"));
                vec![]
            }
            JournalAnswer::Retried(Ok(entry)) => {
                if matches!(self.dialog, Some(Dialog::Fix(_))) {
                    self.dialog = None;
                }
                let call = self.outbox.retried(entry);
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
                        if let Some(call) = self.outbox.discarded(&id) {
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
    /// service's lists come, the folder open last time opened again, and the entries that wait.
    pub(super) fn copy_loaded(&mut self, copy: JournalCopy) -> Vec<Effect> {
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
        if self.contacts.folder.is_none()
            && let Some(id) = &snapshot.open_folder
            && let Some(folder) = self
                .folders
                .find(id)
                .or_else(|| self.activations.find(id))
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

    /// A contact is in the journal: the form clears for the next, the row and the counts
    /// show it at once.
    pub(super) fn contact_logged(&mut self, entry: Entry) {
        let Some(row) = contact_row(&entry) else {
            return;
        };
        if let Some(form) = &mut self.entry {
            form.logged(&row);
        }
        self.shown_logged(&row, entry);
        // The next contact's frequency and mode come from the radio again (in the data mode
        // just logged, for its PKTUSB).
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
    }

    /// A contact newly in the journal, typed or another program's: its row, the counts, the
    /// activation's count and the duplicate check take it in.
    pub(super) fn shown_logged(&mut self, row: &Contact, entry: Entry) {
        self.last_frequency_mode = Some((mhz_text(row.frequency), row.mode.clone()));
        if let Some(rig) = &mut self.rig {
            rig.mode_used(&row.mode);
        }
        self.activations.count(row);
        self.outbox.add(entry);
        self.merge_pending();
        self.check_callsign();
    }

    /// A folder to log into, from the journal (made with no link, or known) or found in the
    /// activations list: it joins the lists and opens.
    pub(super) fn folder_logged(&mut self, entry: Option<Entry>, folder: Folder) -> Vec<Effect> {
        if let Some(entry) = entry {
            self.outbox.add(entry);
        }
        if matches!(self.dialog, Some(Dialog::Activation(_))) {
            self.dialog = None;
        }
        let side = self.heights().0;
        self.folders.add(&folder, side);
        let mut effects = Vec::new();
        if folder.folder_type == FolderType::Activation {
            let reference = folder.location_reference.clone().unwrap_or_default();
            let known = self.activations.find(&folder.id).is_some();
            match &folder.end_time {
                // The service answers an activation of today that was ended with that folder,
                // as it is: one activation per park and UTC day, and nothing reopens it.
                Some(ended) => self.say(
                    Tone::Warning,
                    format!(
                        "activation {reference} of today was ended at {}: opened as it is ({}); logging into it asks first",
                        hhmm(*ended),
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
            if !known {
                // Only its count and its parks' names are new to ask for.
                self.activations.add(folder.clone(), side);
                effects.extend(self.load_stats(folder.id.clone()));
                effects.extend(self.name_parks());
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
        let hunting = folder.folder_type == FolderType::Monthly
            && folder.program_id.as_deref() == Some(Program::Pota.id());
        self.select_folder(&folder.id);
        effects.extend(self.open_folder(folder));
        if hunting && let Some(spot) = self.hunt.take() {
            effects.extend(self.hunt_in(spot));
        }
        effects
    }

    pub(super) fn sender_event(&mut self, event: SenderEvent) -> Vec<Effect> {
        match event {
            SenderEvent::Sent(entries) => {
                let counted = self.count_changes;
                for entry in entries {
                    self.entry_sent(entry);
                }
                self.merge_pending();
                // The count as it stands now is the one a later start with no link shows.
                match &self.me {
                    Some(me) if self.count_changes != counted => {
                        vec![Effect::RememberWhoami(me.clone())]
                    }
                    _ => vec![],
                }
            }
            SenderEvent::Refused(entries) => {
                let mut last = None;
                let mut recount = Vec::new();
                for entry in entries {
                    if let Some(row) = contact_row(&entry)
                        && self.activations.refused(&row)
                        && !recount.contains(&row.folder_id)
                    {
                        recount.push(row.folder_id);
                    }
                    last = Some(self.outbox.refused(entry));
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
                if is_key_error(&e) {
                    self.connection = Connection::KeyRejected;
                }
                let waiting = plural(self.outbox.counts.waiting, "contact", "contacts");
                self.say(
                    Tone::Error,
                    format!("{waiting} wait in the journal: {}", describe(&e)),
                );
                vec![]
            }
            SenderEvent::FolderResolved { local_id, folder } => {
                self.folder_resolved(&local_id, *folder)
            }
            SenderEvent::Counts(counts) => {
                self.outbox.counted(counts);
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
    pub(super) fn back_online(&mut self) -> Vec<Effect> {
        self.connection = Connection::Online;
        self.say(
            Tone::Info,
            "the service answers again: reloading, and what waits goes out",
        );
        let mut effects = vec![
            Effect::LoadWhoami,
            Effect::LoadFolders,
            Effect::LoadActivations,
        ];
        self.in_flight += effects.len();
        if let Some(folder) = self.contacts.folder.clone() {
            effects.extend(self.open_folder(folder));
        }
        effects.push(Effect::SendNow);
        effects
    }

    /// The sender stored an entry: a waiting row keeps its place as the service's contact,
    /// and the counts take it in.
    pub(super) fn entry_sent(&mut self, entry: Entry) {
        self.outbox.sent(&entry);
        let (Some(row), Some(qso)) = (contact_row(&entry), entry.sent_id) else {
            return;
        };
        self.contacts.stored(&entry.id, qso);
        self.count_contact(&row.folder_id, 1);
        self.count_changes += 1;
        if let Some(me) = &mut self.me {
            me.native_qso_count += 1;
        }
    }

    /// A folder logged with no link exists on the service now: its real id replaces the
    /// local one everywhere. Open in Contacts, it is read from the service from now on.
    pub(super) fn folder_resolved(&mut self, local_id: &str, folder: Folder) -> Vec<Effect> {
        let side = self.heights().0;
        self.folders.resolve(local_id, &folder, side);
        let mut effects = if self.activations.resolve(local_id, &folder, side) {
            self.load_stats(folder.id.clone())
        } else {
            vec![]
        };
        let fixing = self.dialog.iter_mut().filter_map(|d| match d {
            Dialog::Fix(fix) => Some(&mut fix.form),
            _ => None,
        });
        for form in self.entry.iter_mut().chain(fixing) {
            form.resolve(local_id, &folder);
        }
        self.outbox.resolve(local_id, &folder.id);
        if let Some(effect) = self.contacts.resolve(local_id, &folder) {
            self.in_flight += 1;
            effects.push(effect);
        }
        effects
    }
}
