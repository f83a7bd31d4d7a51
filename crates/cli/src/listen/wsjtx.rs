//! WSJT-X's datagrams (JTDX and MSHV speak them too): each sender named once, each QSO Logged
//! logged under `svc_wsjtx::once_key`, a Logged ADIF only when no QSO Logged held its key, and
//! each decoded call coloured in WSJT-X by what working it would bring the log.

use std::net::SocketAddr;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use super::{CliError, Key, Listener, Origin, Source};
use svc_client::Client;
use svc_client::journal::Journal;
use svc_model::dxcc::Dxcc;
use svc_model::needed::Worked;
use svc_model::{ContactInput, Timestamp};
use svc_wsjtx::highlight::{Highlight, Highlighter};
use svc_wsjtx::{Message, QsoLogged};

/// What the decodes are coloured from: the log as the journal holds it (its copy of the
/// service's contacts and the contacts waiting to be sent), so that it works with the link
/// down, and what each WSJT-X was told.
pub(super) struct Colours {
    dxcc: Dxcc,
    worked: Worked,
    highlighter: Highlighter,
}

/// The end of the copy of the whole log from the service, or why it did not happen.
pub(super) type Copied = Result<(), String>;

impl Colours {
    /// The log the journal holds now, and a task that copies the service's whole log into the
    /// journal, answering once it has (the log is read again then).
    pub(super) async fn start(
        journal: &Journal,
        client: Arc<Client>,
    ) -> Result<(Colours, UnboundedReceiver<Copied>), CliError> {
        // The country file shipped in svc: the entity of a call no contact names one for.
        let dxcc = Dxcc::shipped();
        let worked = journal.worked(&dxcc).await?;
        let (tell, copied) = unbounded_channel();
        let copying = journal.clone();
        tokio::spawn(async move {
            let _ = tell.send(copying.copy_whole_log(&client).await);
        });
        let colours = Colours {
            dxcc,
            worked,
            highlighter: Highlighter::default(),
        };
        Ok((colours, copied))
    }

    /// A contact just logged: the calls it makes a dupe (or no longer new) change colour.
    pub(super) fn logged(&mut self, contact: &ContactInput) -> Vec<Highlight> {
        self.worked.add_input(&self.dxcc, contact);
        self.refresh()
    }

    /// Every decoded call judged again against the log, each change to the WSJT-X it is for.
    fn refresh(&mut self) -> Vec<Highlight> {
        let (dxcc, worked, now) = (&self.dxcc, &self.worked, Timestamp::now());
        self.highlighter
            .refresh(|call, band, mode| worked.need(dxcc, call, band, mode, now))
    }

    /// A message of WSJT-X's: the highlights it calls for, back to where it came from.
    fn heard(&mut self, message: &Message, from: SocketAddr) -> Vec<Highlight> {
        let (dxcc, worked, now) = (&self.dxcc, &self.worked, Timestamp::now());
        self.highlighter.heard(message, from, |call, band, mode| {
            worked.need(dxcc, call, band, mode, now)
        })
    }
}

impl Listener<'_> {
    /// The first message of a sender names it once; with --json every message is a status
    /// event.
    fn hear(&mut self, id: &str, version: Option<&str>, status: Value) -> Result<(), CliError> {
        let first = self.heard.insert(id.to_owned());
        if self.json() {
            let mut event = json!({ "event": "status", "id": id, "first": first });
            if let (Value::Object(event), Value::Object(status)) = (&mut event, status) {
                event.extend(status);
            }
            return self.event(&event);
        }
        if first {
            let line = match version {
                Some(version) if !version.is_empty() => format!("hearing WSJT-X {id} {version}\n"),
                _ => format!("hearing WSJT-X {id}\n"),
            };
            return self.ctx.say(&line);
        }
        Ok(())
    }

    /// WSJT-X's datagrams: its senders named once, its QSOs logged.
    pub(super) async fn wsjtx(&mut self, datagram: &[u8], from: Origin) -> Result<(), CliError> {
        let message = match svc_wsjtx::decode(datagram) {
            Ok(message) => message,
            Err(e) => return self.dropped(from, None, &e.to_string()),
        };
        // What the programs behind svc (--forward) send back to an instance goes where it
        // sends from.
        match &message {
            Message::Close { id } => self.senders.remove(id),
            other => self.senders.insert(other.id().to_owned(), from.from),
        };
        if let Some(colours) = &mut self.colours {
            self.outgoing.extend(colours.heard(&message, from.from));
        }
        match message {
            Message::QsoLogged(qso) => {
                if !self.heard.contains(&qso.id) {
                    self.hear(&qso.id, None, json!({ "kind": "qso logged" }))?;
                }
                self.qso_logged(&qso, from).await
            }
            Message::LoggedAdif { id, adif } => {
                if !self.heard.contains(&id) {
                    self.hear(&id, None, json!({ "kind": "logged adif" }))?;
                }
                self.logged_adif(&id, &adif, from).await
            }
            Message::Heartbeat(h) => self.hear(
                &h.id,
                h.version.as_deref(),
                json!({
                    "kind": "heartbeat",
                    "maxSchema": h.max_schema,
                    "version": h.version,
                    "revision": h.revision,
                }),
            ),
            Message::Status(s) => self.hear(
                &s.id,
                None,
                json!({
                    "kind": "status",
                    "dialFrequency": s.dial_frequency,
                    "mode": s.mode,
                    "dxCall": s.dx_call,
                    "transmitting": s.transmitting,
                    "decoding": s.decoding,
                }),
            ),
            Message::Decode(d) => self.hear(
                &d.id,
                None,
                json!({
                    "kind": "decode",
                    "snr": d.snr,
                    "mode": d.mode,
                    "message": d.message,
                }),
            ),
            Message::Clear { id, .. } => self.hear(&id, None, json!({ "kind": "clear" })),
            Message::Close { id } => self.hear(&id, None, json!({ "kind": "close" })),
            Message::Other { kind, id } => {
                self.hear(&id, None, json!({ "kind": "other", "type": kind }))
            }
        }
    }

    async fn qso_logged(&mut self, qso: &QsoLogged, from: Origin) -> Result<(), CliError> {
        let key = svc_wsjtx::once_key(qso);
        match svc_wsjtx::contact(qso, "") {
            Ok(contact) => {
                self.log(
                    contact,
                    Key::Fixed(key),
                    &qso.id,
                    Source::QsoLogged,
                    from,
                    false,
                )
                .await
            }
            Err(e) => self.dropped(from, Some(&qso.id), &e.to_string()),
        }
    }

    async fn logged_adif(&mut self, id: &str, adif: &str, from: Origin) -> Result<(), CliError> {
        let reader = match svc_adif::Reader::new(adif.as_bytes()) {
            Ok(reader) => reader,
            Err(e) => {
                return self.dropped(from, Some(id), &format!("Logged ADIF: {e}"));
            }
        };
        for record in reader {
            let imported = match record {
                Ok(record) => svc_adif::contact::imported(&record),
                Err(e) => Err(e.to_string()),
            };
            match imported {
                Ok(imported) => {
                    let contact = imported.contact;
                    let key = svc_wsjtx::once_key_of(&contact);
                    self.log(
                        contact,
                        Key::Fixed(key),
                        id,
                        Source::LoggedAdif,
                        from,
                        false,
                    )
                    .await?;
                }
                Err(message) => {
                    self.dropped(from, Some(id), &format!("Logged ADIF: {message}"))?;
                }
            }
        }
        Ok(())
    }

    /// The service's whole log is in the journal now (or could not be had): the decodes are
    /// judged again against it.
    pub(super) async fn log_copied(&mut self, copied: Copied) -> Result<(), CliError> {
        if self.colours.is_none() {
            return Ok(());
        }
        // Not copied (the link is down, or went during the copy): the journal's copy as it
        // was stays the judge, and the sender says the link is down.
        if copied.is_err() {
            return Ok(());
        }
        let journal = self.journal.clone();
        let Some(colours) = &mut self.colours else {
            return Ok(());
        };
        colours.worked = journal.worked(&colours.dxcc).await?;
        self.outgoing.extend(colours.refresh());
        // The copy held each folder's contacts in turn.
        svc_client::give_back_freed_memory();
        Ok(())
    }

    /// A datagram a program behind svc (--forward) sent back, as to WSJT-X (a reply to a CQ, a
    /// highlight): passed on, unchanged, to the instance it names, from the address WSJT-X
    /// sends to, where it listens.
    pub(super) fn answered(&mut self, datagram: &[u8]) {
        let Some(id) = svc_wsjtx::decode(datagram).ok().map(|m| m.id().to_owned()) else {
            return;
        };
        if let Some(to) = self.senders.get(&id) {
            self.outgoing.push((*to, datagram.to_vec()));
        }
    }
}
