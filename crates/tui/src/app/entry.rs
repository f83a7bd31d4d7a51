//! The entry form's flows: opening it on the open log, who the call is while it is typed
//! (the country file, what it would bring the log, the callbook, the parks named), logging,
//! and the edit form.

use super::*;
use crate::components::entry::LogKind;

impl App {
    /// The entry form on the open folder, as it was left; it opens on the callsign.
    pub(super) fn open_entry(&mut self) -> Vec<Effect> {
        if let Some(why) = self.journal.cannot_log() {
            self.say(Tone::Warning, why);
            return vec![];
        }
        let Some(folder) = self.contacts.folder.clone() else {
            self.say(
                Tone::Warning,
                "open a folder first: select it in Folders and press Enter (m makes this month's log)",
            );
            return vec![];
        };
        if !holds_contacts(&folder) {
            let what = if folder.parent_id.is_none() && folder.name == ROOT_NAME {
                "the root container"
            } else {
                "a category folder"
            };
            self.say(
                Tone::Warning,
                format!(
                    "{} is {what} and holds no contacts; open a monthly or activation folder (m makes this month's log)",
                    folder.name
                ),
            );
            return vec![];
        }
        let (frequency, mode) = self
            .last_frequency_mode
            .clone()
            .or_else(|| {
                self.contacts
                    .items
                    .first()
                    .map(|c| (mhz_text(c.frequency), c.mode.clone()))
            })
            .unwrap_or_default();
        match &mut self.entry {
            // The form reopens on the callsign, whatever field was last used: what is typed
            // next is a call far more often than anything else.
            Some(form) if form.folder_id == folder.id => form.focus = Field::Callsign,
            // Typed text follows the user to the newly opened folder.
            Some(form) => {
                form.set_folder(&folder);
                form.focus = Field::Callsign;
            }
            None => {
                let mut form = EntryForm::new(&folder.id, &folder.name, &frequency, &mode);
                form.set_folder(&folder);
                self.entry = Some(form);
                self.follow_rig();
            }
        }
        if let Some(label) = self.ended_activation(&folder.id) {
            self.say(
                Tone::Warning,
                format!("{label} has ended; Enter asks before logging into it"),
            );
        }
        self.dialog = Some(Dialog::Entry);
        self.check_callsign();
        let mut effects = self.more_contacts();
        effects.extend(self.ask_serials());
        effects.extend(self.name_form_parks());
        effects
    }

    /// The entry form's duplicate warning, from the contacts of its folder when it is open,
    /// and who the call is. With no call typed, the call WSJT-X is working stands in, so the
    /// operator sees who it is before the QSO ends; what is typed wins.
    pub(super) fn check_callsign(&mut self) {
        let Some(form) = &self.entry else { return };
        let same_folder = self
            .contacts
            .folder
            .as_ref()
            .is_some_and(|f| f.id == form.folder_id);
        let typed = form.value(Field::Callsign).trim().to_owned();
        let dx = self
            .wsjtx
            .as_ref()
            .filter(|_| typed.is_empty())
            .and_then(|w| Some((w, w.dx_call(self.now)?)));
        let duplicate = match &dx {
            Some((wsjtx, call)) => same_folder
                .then(|| wsjtx.duplicate(self.contacts.logged(), self.now))
                .flatten()
                .map(|c| {
                    format!(
                        "duplicate: WSJT-X works {call}, logged {} {} today at {} UTC",
                        c.band,
                        c.mode,
                        hhmm(c.time_on)
                    )
                }),
            None => same_folder
                .then(|| form.find_duplicate(self.contacts.logged(), self.now))
                .flatten()
                .map(|c| {
                    format!(
                        "duplicate: {} {} {} logged today at {} UTC; Enter logs it anyway",
                        c.callsign,
                        c.band,
                        c.mode,
                        hhmm(c.time_on)
                    )
                }),
        };
        // Who the call is: the entity, and the calls holding what is typed, the log's first.
        let call = dx
            .as_ref()
            .map_or(typed.as_str(), |(_, call)| call.as_str());
        let (who, partials) = match &self.callsigns {
            Some(c) => (
                c.who(call),
                c.partials(self.contacts.logged().map(|c| c.callsign.as_str()), call),
            ),
            None => (None, Vec::new()),
        };
        let wanted = self.wanted(call, dx.is_none());
        let who = match &dx {
            Some((_, call)) => who.map(|who| format!("WSJT-X works {call}: {who}")),
            None => who,
        };
        if let Some(form) = &mut self.entry {
            form.duplicate = duplicate;
            form.who = who;
            form.partials = partials;
            form.wanted = wanted;
        }
        self.judge_for_contest(same_folder);
    }

    /// Alt-1 … Alt-9: a call of the form's partial list put on its callsign, and judged as a
    /// typed one (the day's or the contest's dupe check, who it is, the callbook).
    pub(super) fn pick_partial(&mut self, i: usize) -> Vec<Effect> {
        let Some(form) = &mut self.entry else {
            return vec![];
        };
        if form.pick_partial(i).is_none() {
            self.say(
                Tone::Warning,
                format!("the partial list has no call {}", i + 1),
            );
            return vec![];
        }
        self.check_callsign();
        self.ask_callbook(false)
    }

    /// The names of the POTA parks typed in the form, as far as they are known; the others
    /// are asked for once each. A reference counts once it has POTA's four digits, so that
    /// `US-0`, `US-00` and `US-000` on the way to `US-0001` ask POTA nothing.
    pub(super) fn name_form_parks(&mut self) -> Vec<Effect> {
        let Some(form) = &mut self.entry else {
            return vec![];
        };
        if form.kind.program() != Some(Program::Pota) {
            return vec![];
        }
        let mut ask = Vec::new();
        let mut named = Vec::new();
        for park in form.value(Field::Park).split(',') {
            let Ok(park) = normalize_reference("park", park) else {
                continue;
            };
            let digits = park.split(['-', '@']).nth(1).map_or(0, str::len);
            if digits < 4 {
                continue;
            }
            match self.activations.park_names.get(&park) {
                Some(name) => named.push(format!("{park} {name}")),
                None if self.parks_asked.insert(park.clone()) => ask.push(park),
                None => {}
            }
        }
        form.parks = (!named.is_empty()).then(|| named.join(" · "));
        if ask.is_empty() {
            vec![]
        } else {
            vec![Effect::NameParks(ask)]
        }
    }

    /// The label of the folder `id` when it is an activation that has ended.
    pub(super) fn ended_activation(&self, id: &str) -> Option<String> {
        self.activations
            .find(id)
            .or_else(|| self.folders.find(id))
            .filter(|f| f.folder_type == FolderType::Activation && !f.in_progress())
            .map(|f| {
                f.location_reference
                    .clone()
                    .unwrap_or_else(|| f.name.clone())
            })
    }

    /// Checks the form and hands the contact to the journal. An ended activation is asked
    /// about once per form and folder: logging into it from paper afterwards is common, and a
    /// question on every contact would be noise.
    pub(super) fn submit_entry(&mut self) -> Vec<Effect> {
        let now = self.now;
        let ended = self.entry.as_ref().and_then(|f| {
            self.ended_activation(&f.folder_id)
                .map(|l| (f.folder_id.clone(), l))
        });
        let Some(form) = &mut self.entry else {
            return vec![];
        };
        let mut requests = match form.requests(now) {
            Ok(requests) => requests,
            Err((field, message)) => {
                self.say(Tone::Error, fault(field, &message));
                return vec![];
            }
        };
        // The entity the form showed goes with the contact, as loggers log it: its row says
        // the country at once, with no link too, and the service keeps what it is sent.
        if let Some(callsigns) = &self.callsigns {
            for request in &mut requests {
                callsigns.dxcc.fill(&request.callsign, &mut request.fields);
            }
        }
        for request in &mut requests {
            self.options.stamp_station(request);
        }
        if let Some((folder_id, label)) = ended
            && form.ended_ok.as_deref() != Some(folder_id.as_str())
        {
            self.dialog = Some(Dialog::Prompt(Prompt::Ended { label }));
            return vec![];
        }
        // A hunter's contact counts for POTA with the park worked: one without it is asked
        // about, once per form and log, as a forgotten park is the usual reason.
        let parks_counted =
            matches!(form.kind, LogKind::Hunting(program) if program.supports_activations());
        if parks_counted
            && requests.iter().all(|r| r.sig_info.is_none())
            && form.no_park_ok.as_deref() != Some(form.folder_id.as_str())
        {
            self.dialog = Some(Dialog::Prompt(Prompt::NoPark {
                label: form.folder_name.clone(),
            }));
            return vec![];
        }
        requests
            .into_iter()
            .map(|request| Effect::Journal(JournalEffect::LogContact(request)))
            .collect()
    }

    /// The answer to a question the form's Enter asked (an ended activation, a missing park):
    /// yes marks the form with `agreed`, so it is not asked again for this form and log, and
    /// logs the contact; anything else goes back to the form, saying `kept`.
    pub(super) fn log_anyway(
        &mut self,
        yes: bool,
        kept: String,
        agreed: impl FnOnce(&mut EntryForm),
    ) -> Vec<Effect> {
        self.dialog = Some(Dialog::Entry);
        if !yes {
            self.say(Tone::Info, kept);
            return vec![];
        }
        if let Some(form) = &mut self.entry {
            agreed(form);
        }
        self.submit_entry()
    }

    /// Alt-E in Contacts: the selected stored contact in the form, to be changed on the
    /// service.
    pub(super) fn open_edit(&mut self) -> Vec<Effect> {
        let Some(contact) = self.contacts.selected().cloned() else {
            self.say(Tone::Warning, "no contact selected");
            return vec![];
        };
        if self.contacts.marks.contains_key(&contact.id) {
            self.say(
                Tone::Warning,
                "this contact is still in the journal: Enter on a ✗ one fixes it, a ↑ one goes out as it is",
            );
            return vec![];
        }
        if self.connection == Connection::Offline {
            self.say(
                Tone::Warning,
                "editing a stored contact needs the service: wait for the link (Alt-R tries now)",
            );
            return vec![];
        }
        let folder = self
            .folders
            .find(&contact.folder_id)
            .or(self.contacts.folder.as_ref())
            .filter(|f| f.id == contact.folder_id);
        let edit = EditForm::of(&contact, folder);
        self.dialog = Some(Dialog::Edit(Box::new(edit)));
        vec![]
    }

    /// Asks the callbook about the call on the form, once per call, when it is complete: at
    /// once when the operator has moved on to another field, else (`tick`) once a second has
    /// passed without a key. The answer fills in what was not typed; typing never waits.
    pub(super) fn ask_callbook(&mut self, tick: bool) -> Vec<Effect> {
        if self.options.callbook.is_none() || !matches!(self.dialog, Some(Dialog::Entry)) {
            return vec![];
        }
        let paused = tick && self.now.millis() - self.last_key.millis() >= 1000;
        let Some(form) = &mut self.entry else {
            return vec![];
        };
        let call = form.value(Field::Callsign).trim().to_ascii_uppercase();
        let settled = form.focus != Field::Callsign || paused;
        if !settled || !complete_call(&call) || form.asked.as_deref() == Some(call.as_str()) {
            return vec![];
        }
        form.asked = Some(call.clone());
        vec![Effect::LookUp { call }]
    }
}
