//! The service's answers: folders, contacts, activations and the account read in, and the
//! outcome of an edit, a delete or an activation's end.

use super::*;

impl App {
    pub(super) fn folders_loaded(
        &mut self,
        result: Result<Vec<Folder>, ClientError>,
    ) -> Vec<Effect> {
        let failure = self.answered(&result);
        match result {
            Ok(items) => {
                let added = self.folders.take_added();
                self.set_folders(with_local(items, &self.folders.items, &added))
            }
            // What the copy showed stays on screen.
            Err(_) if self.folders.load == Load::Loaded => {}
            Err(_) => self.folders.load = Load::Failed(failure.unwrap_or_default()),
        }
        vec![]
    }

    pub(super) fn contacts_loaded(
        &mut self,
        folder_id: String,
        generation: u64,
        source: Source,
        result: Result<Page<Contact>, ClientError>,
    ) -> Vec<Effect> {
        let from_service = source == Source::Service;
        // Only the service's answer is a request answered; the copy's is the journal's.
        let failure = from_service.then(|| self.answered(&result)).flatten();
        if !self.contacts.is_current(&folder_id, generation) {
            return vec![];
        }
        match result {
            Ok(page) => {
                self.contacts.page_loaded(from_service, page);
                self.merge_pending();
                self.check_callsign();
                self.mark_worked_spots();
                if from_service {
                    self.more_contacts()
                } else {
                    vec![]
                }
            }
            Err(_) if from_service => {
                self.contacts.load = Load::Failed(failure.unwrap_or_default());
                vec![]
            }
            Err(_) => vec![],
        }
    }

    pub(super) fn activations_loaded(
        &mut self,
        result: Result<Vec<Folder>, ClientError>,
    ) -> Vec<Effect> {
        let failure = self.answered(&result);
        match result {
            Ok(items) => {
                let added = self.activations.take_added();
                self.set_activations(with_local(items, &self.activations.items, &added))
            }
            Err(_) if self.activations.load == Load::Loaded => vec![],
            Err(_) => {
                self.activations.load = Load::Failed(failure.unwrap_or_default());
                vec![]
            }
        }
    }

    pub(super) fn activation_contacts_loaded(
        &mut self,
        folder_id: String,
        source: Source,
        result: Result<Vec<Contact>, ClientError>,
    ) -> Vec<Effect> {
        let from_service = source == Source::Service;
        // Only the service's answer is a request answered; the copy's is the journal's.
        let failure = from_service.then(|| self.answered(&result)).flatten();
        let waiting = self.outbox.waiting_in(&folder_id);
        let result = result.map_err(|_| failure.unwrap_or_default());
        // The service's answer was older than a change here: it is asked again.
        if self
            .activations
            .contacts_loaded(&folder_id, from_service, result, &waiting)
        {
            return self.load_stats(folder_id);
        }
        vec![]
    }

    pub(super) fn whoami_loaded(&mut self, result: Result<Whoami, ClientError>) -> Vec<Effect> {
        let failure = self.answered(&result);
        match result {
            Ok(me) => {
                // The activation form opened before the account was known.
                if let Some(Dialog::Activation(form)) = &mut self.dialog {
                    form.default_callsign(&me.callsign);
                }
                let callsign = me.callsign.clone();
                self.me = Some(me);
                self.me_load = Load::Loaded;
                if self.journal == JournalState::Missing {
                    self.journal = JournalState::Opening;
                    return vec![Effect::Journal(JournalEffect::Open { callsign })];
                }
                // A contact stored or deleted here since it was asked may be missing from its
                // count (asked before, answered after): asked again, the count comes right.
                if self.count_changes != self.whoami_asked_at {
                    self.me_load = Load::Loading;
                    self.in_flight += 1;
                    return vec![Effect::LoadWhoami];
                }
            }
            Err(_) => {
                self.me_load = Load::Failed(failure.unwrap_or_default());
                self.whoami_retry = Some(self.now);
            }
        }
        vec![]
    }

    pub(super) fn contact_edited(
        &mut self,
        id: String,
        result: Result<EditedContact, ClientError>,
    ) {
        if self.answered(&result).is_some() {
            return;
        }
        let Ok(edited) = result else { return };
        let c = edited.contact;
        self.say(
            Tone::Success,
            format!("edited {} {} {}", c.callsign, c.band, c.mode),
        );
        if matches!(&self.dialog, Some(Dialog::Edit(e)) if e.contact_id == id) {
            self.dialog = None;
        }
        let height = self.heights().1;
        self.contacts.replace(c, height);
    }

    pub(super) fn contact_deleted(&mut self, id: String, result: Result<Deleted, ClientError>) {
        if self.answered(&result).is_some() {
            return;
        }
        let height = self.heights().1;
        match self.contacts.remove(&id, height) {
            Some(gone) => {
                self.say(
                    Tone::Success,
                    format!("deleted {} {} {}", gone.callsign, gone.band, gone.mode),
                );
                self.count_contact(&gone.folder_id, -1);
            }
            None => self.say(Tone::Success, format!("deleted contact {id}")),
        }
        self.count_changes += 1;
        if let Some(me) = &mut self.me {
            me.native_qso_count = (me.native_qso_count - 1).max(0);
        }
    }

    pub(super) fn activation_ended(&mut self, id: String, result: Result<Folder, ClientError>) {
        if self.answered(&result).is_some() {
            return;
        }
        let Ok(folder) = result else { return };
        self.say(Tone::Success, format!("ended activation {}", folder.name));
        for f in self
            .activations
            .items
            .iter_mut()
            .chain(self.folders.items.iter_mut())
            .chain(self.contacts.folder.iter_mut())
        {
            if f.id == id {
                f.end_time = folder.end_time;
            }
        }
    }

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
}

/// A fresh list from the service, with the folders shown here that it may not know yet: those
/// made with no link, and those `added` since the last list (an answer to a request made
/// before they were, which a slow start's first request is). An added one the list lacks is
/// kept through that one list only, so that one deleted elsewhere goes at the next.
fn with_local(mut items: Vec<Folder>, shown: &[Folder], added: &[String]) -> Vec<Folder> {
    let kept: Vec<Folder> = shown
        .iter()
        .filter(|f| {
            is_local_folder_id(&f.id)
                || (added.contains(&f.id) && !items.iter().any(|i| i.id == f.id))
        })
        .cloned()
        .collect();
    items.extend(kept);
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(id: &str) -> Folder {
        serde_json::from_value(serde_json::json!({
            "id": id, "name": id, "type": "category",
            "contactCount": 0, "createdAt": "2026-11-01T00:00:00Z",
        }))
        .unwrap()
    }

    fn ids(folders: &[Folder]) -> Vec<&str> {
        folders.iter().map(|f| f.id.as_str()).collect()
    }

    /// An activation started while the start's first list was on its way is not lost when
    /// that list, which lacks it, comes (a PTY test saw the pane say "No activations" after
    /// "activation started" on a loaded machine).
    #[test]
    fn a_list_asked_for_before_a_folder_was_added_keeps_it_once() {
        let shown = vec![folder("fld_new"), folder("fld_old")];
        let added = vec!["fld_new".to_owned()];
        let stale = with_local(vec![folder("fld_old")], &shown, &added);
        assert_eq!(ids(&stale), ["fld_old", "fld_new"]);
        // Once in a list, it is the list's.
        let fresh = with_local(vec![folder("fld_new"), folder("fld_old")], &shown, &added);
        assert_eq!(ids(&fresh), ["fld_new", "fld_old"]);
        // Kept through one list only: the next that lacks it (deleted elsewhere) drops it.
        assert_eq!(
            ids(&with_local(vec![folder("fld_old")], &stale, &[])),
            ["fld_old"]
        );
    }
}
