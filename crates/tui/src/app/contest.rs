//! The logbook in a contest log: starting or joining one from its dialog, the contest's own
//! judgement of the call in the entry form, serial numbers in blocks for this station, and
//! reading the log again for the contacts other logbooks store in it.

use super::*;

impl App {
    /// A key in the contest dialog: Enter asks the service to start the log (or join the one
    /// of this contest, call and weekend), with the dialog kept until it answers.
    pub(super) fn contest_form_key(
        &mut self,
        mut form: Box<ContestForm>,
        key: KeyEvent,
    ) -> Vec<Effect> {
        match form.key(key) {
            ContestKey::Cancel => vec![],
            ContestKey::Stay => {
                self.dialog = Some(Dialog::Contest(form));
                vec![]
            }
            ContestKey::Fault(message) => {
                self.say(Tone::Error, message);
                self.dialog = Some(Dialog::Contest(form));
                vec![]
            }
            // A contest log is one on the service for every station logging into it: it is
            // started there, not in the journal, so that two logbooks never make two.
            ContestKey::Submit(_) if self.connection == Connection::Offline => {
                self.say(
                    Tone::Warning,
                    "a contest log is started on the service, which cannot be reached now; try again once the link is back",
                );
                self.dialog = Some(Dialog::Contest(form));
                vec![]
            }
            ContestKey::Submit(mut request) => {
                request.start_time = Some(self.now.to_string());
                self.say(
                    Tone::Info,
                    format!("starting the {} log…", request.contest_id),
                );
                self.in_flight += 1;
                self.dialog = Some(Dialog::Contest(form));
                vec![Effect::StartContest(request)]
            }
        }
    }

    /// The service's answer to the contest dialog: the log opened, ready for a call; or why
    /// not, with the dialog still open to fix it.
    pub(super) fn contest_started(
        &mut self,
        result: Result<svc_client::FolderCreated, ClientError>,
    ) -> Vec<Effect> {
        let failure = self.answered(&result);
        match result {
            Ok(created) => {
                if matches!(self.dialog, Some(Dialog::Contest(_))) {
                    self.dialog = None;
                }
                let folder = created.folder;
                let how = if created.created { "started" } else { "joined" };
                let name = folder.name.clone();
                let mut effects = self.folder_logged(None, folder);
                self.say(
                    Tone::Success,
                    format!("contest log {name} {how}; type a callsign to log into it"),
                );
                effects.push(Effect::LoadFolders);
                self.in_flight += 1;
                effects
            }
            Err(_) => {
                self.say(
                    Tone::Error,
                    format!(
                        "the contest log was not started: {}",
                        failure.unwrap_or_default()
                    ),
                );
                vec![]
            }
        }
    }

    /// In a contest log the contest's own rule judges the call, over the whole log, in place
    /// of the day's dupe check: a dupe, or the points and new multipliers it brings; and the
    /// log's rate, score and next serial number are counted again when its contacts changed.
    pub(super) fn judge_for_contest(&mut self, same_folder: bool) {
        let Some(form) = &mut self.entry else { return };
        if form.contest.is_none() {
            return;
        }
        form.duplicate = None;
        let call = form.value(Field::Callsign).trim().to_owned();
        let mode = form.value(Field::Mode).to_owned();
        let typed = form.value(Field::Exchange).to_owned();
        let band = form.band.as_ref().ok().copied();
        let Some(contest) = &mut form.contest else {
            return;
        };
        if !same_folder {
            contest.judge("", None, "", "", None);
            return;
        }
        let dxcc = self.callsigns.as_ref().map(|c| &c.dxcc);
        let logged: Vec<&svc_model::Contact> = self.contacts.logged().collect();
        contest.refresh(&logged, dxcc, self.now);
        let worked = dxcc
            .and_then(|d| d.resolve(&call))
            .map(svc_model::contest::Whereabouts::from);
        contest.judge(&call, band, &mode, &typed, worked);
    }

    /// With the form open on a contest log and the link up, the log's newest contacts are
    /// read again every couple of seconds: other logbooks' QSOs reach this one's dupe check
    /// and score without a key.
    pub(super) fn poll_contest(&mut self) -> Vec<Effect> {
        if !matches!(self.dialog, Some(Dialog::Entry)) || self.connection != Connection::Online {
            return vec![];
        }
        let open = self.contacts.folder.as_ref().map(|f| f.id.clone());
        let Some(form) = &mut self.entry else {
            return vec![];
        };
        if open.as_deref() != Some(form.folder_id.as_str()) {
            return vec![];
        }
        let folder_id = form.folder_id.clone();
        let now = self.now;
        if form.contest.as_mut().is_some_and(|c| c.poll_due(now)) {
            vec![Effect::PollContacts { folder_id }]
        } else {
            vec![]
        }
    }

    /// The answer to [`App::poll_contest`]: what other logbooks stored joins the list and the
    /// form's judgement, and what they deleted leaves them. A failed read says nothing: the
    /// next one comes in two seconds, and the link's state shows in the status bar.
    pub(super) fn contest_polled(
        &mut self,
        folder_id: &str,
        result: Result<Page<svc_model::Contact>, svc_client::ClientError>,
    ) -> Vec<Effect> {
        if let Some(contest) = self.entry.as_mut().and_then(|f| f.contest.as_mut()) {
            contest.polling = false;
        }
        if let Ok(page) = result
            && self.contacts.take_new(folder_id, page) > 0
        {
            self.refilter(Pane::Contacts);
            self.check_callsign();
        }
        vec![]
    }

    /// A block of serial numbers for this station when the form's contest log numbers its
    /// contacts and few of its own are left.
    pub(super) fn ask_serials(&mut self) -> Vec<Effect> {
        let Some(form) = &mut self.entry else {
            return vec![];
        };
        let folder_id = form.folder_id.clone();
        match &mut form.contest {
            Some(contest) if contest.wants_block() => {
                contest.asking = true;
                self.in_flight += 1;
                vec![Effect::ReserveSerials {
                    folder_id,
                    count: crate::components::contest::BLOCK,
                }]
            }
            _ => vec![],
        }
    }

    /// The service's answer to [`App::ask_serials`]: the block joins the form's, or the form
    /// numbers on from the log and says so (a station with the link down).
    pub(super) fn serials_reserved(
        &mut self,
        folder_id: &str,
        result: Result<svc_model::contest::SerialBlock, svc_client::ClientError>,
    ) -> Vec<Effect> {
        self.answered(&result);
        let Some(contest) = self
            .entry
            .as_mut()
            .filter(|f| f.folder_id == folder_id)
            .and_then(|f| f.contest.as_mut())
        else {
            return vec![];
        };
        match result {
            Ok(block) => contest.take_block(block),
            Err(e) => {
                contest.asking = false;
                if contest.numbering_alone() {
                    self.say(
                        Tone::Warning,
                        format!(
                            "serial numbers: no block from the service ({}); this station numbers on from the log's highest, which another station may send too",
                            describe(&e)
                        ),
                    );
                }
            }
        }
        vec![]
    }
}
