//! WSJT-X: what it logs goes into the open log through the journal, once however often it is
//! reported; what it is doing shows on the status bar, and the call it works in the entry
//! form's who-lines. Its Status never writes into the form's fields: a radio followed through
//! rigctld does that, and two writers would fight over them.

use super::*;
use crate::components::wsjtx::{adif_contacts, describe, named};
use svc_client::journal::Logged;
use svc_model::ContactInput;
use svc_wsjtx::Message;

impl App {
    /// A message from WSJT-X.
    pub(super) fn wsjtx_heard(&mut self, message: Message) -> Vec<Effect> {
        let now = self.now;
        let Some(panel) = &mut self.wsjtx else {
            return vec![];
        };
        let anew = panel.hear(&message, now);
        let address = panel.address;
        if anew {
            self.say(
                Tone::Info,
                format!(
                    "hearing {} on UDP {address}: the QSOs it logs are logged here",
                    message.id()
                ),
            );
        }
        match message {
            // The who-lines follow the call it works (or stop, once it works none).
            Message::Status(_) | Message::Close { .. } => {
                self.check_callsign();
                vec![]
            }
            Message::QsoLogged(qso) => match svc_wsjtx::contact(&qso, "") {
                Ok(contact) => {
                    let key = svc_wsjtx::once_key(&qso);
                    self.log_once(contact, key, false)
                }
                Err(why) => {
                    self.say(
                        Tone::Warning,
                        format!(
                            "WSJT-X logged {} and svc cannot: {why}; it is in WSJT-X's own log",
                            qso.dx_call.trim()
                        ),
                    );
                    vec![]
                }
            },
            // The same QSO again as ADIF, for the programs that send only this.
            Message::LoggedAdif { adif, .. } => adif_contacts(&adif)
                .into_iter()
                .flat_map(|(contact, key)| self.log_once(contact, key, true))
                .collect(),
            _ => vec![],
        }
    }

    /// A contact WSJT-X logged, to the journal under `key`: into the open log, else into its
    /// month's log.
    fn log_once(&mut self, mut request: ContactInput, key: String, echo: bool) -> Vec<Effect> {
        if let Some(why) = self.journal.cannot_log() {
            self.say(
                Tone::Warning,
                format!(
                    "WSJT-X logged {} and svc cannot yet: {why}; it is in WSJT-X's own log",
                    describe(&request)
                ),
            );
            return vec![];
        }
        // The entity, the operator and the transmitter go with it, as with a typed contact.
        if let Some(callsigns) = &self.callsigns {
            callsigns.dxcc.fill(&request.callsign, &mut request.fields);
        }
        self.options.stamp_station(&mut request);
        let month = match self.contacts.folder.as_ref().filter(|f| holds_contacts(f)) {
            Some(folder) => {
                request.folder_id = folder.id.clone();
                None
            }
            // A monthly log holds its month's contacts: the QSO's month, as svc listen logs it.
            None => Some(
                Timestamp::parse("timeOn", &request.time_on)
                    .map(|t| t.utc_month())
                    .unwrap_or_else(|_| self.now.utc_month()),
            ),
        };
        vec![Effect::Journal(JournalEffect::LogContactOnce {
            request,
            key,
            month,
            echo,
        })]
    }

    /// What the journal did with a contact WSJT-X logged.
    pub(super) fn logged_once(
        &mut self,
        result: Result<Logged, String>,
        made: Option<(String, Box<Folder>)>,
        monthly: Option<(Option<Entry>, Folder)>,
        echo: bool,
    ) -> Vec<Effect> {
        let mut effects = Vec::new();
        let into = monthly.as_ref().map(|(_, folder)| folder.name.clone());
        if let Some((entry, folder)) = monthly {
            if let Some(entry) = entry {
                self.outbox.add(entry);
            }
            let side = self.heights().0;
            self.folders.add(&folder, side);
        }
        if let Some((local_id, folder)) = made {
            effects.extend(self.folder_resolved(&local_id, *folder));
        }
        let logged = match result {
            Ok(logged) => logged,
            Err(why) => {
                self.say(
                    Tone::Error,
                    format!(
                        "WSJT-X's QSO is not logged here: the journal failed: {why}; it is in WSJT-X's own log"
                    ),
                );
                return effects;
            }
        };
        let svc_client::journal::EntryRequest::Contact(contact) = &logged.entry().request else {
            return effects;
        };
        let (what, which) = (describe(contact), named(contact));
        match logged {
            Logged::New(entry) => {
                let Some(row) = contact_row(&entry) else {
                    return effects;
                };
                let mut text = format!("WSJT-X logged {what}");
                if let Some(name) = into {
                    text.push_str(&format!(" into {name}: no log is open"));
                }
                if self.connection != Connection::Online {
                    text.push_str("; it waits in the journal and goes out once the link is back");
                }
                self.say(Tone::Success, text);
                // The form is the operator's: it keeps what is typed there.
                self.shown_logged(&row, entry);
            }
            // A Logged ADIF follows every QSO Logged when both are on: nothing to say.
            Logged::Already(_) if echo => {}
            Logged::Already(_) => self.say(Tone::Info, format!("WSJT-X: {which} already logged")),
        }
        effects
    }
}
