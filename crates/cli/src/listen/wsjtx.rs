//! WSJT-X's datagrams (JTDX and MSHV speak them too): each sender named once, each QSO Logged
//! logged under `svc_wsjtx::once_key`, a Logged ADIF only when no QSO Logged held its key.

use serde_json::{Value, json};

use super::{CliError, Key, Listener, Origin, Source};
use svc_model::Timestamp;
use svc_wsjtx::{Message, QsoLogged};

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
                    let time_on = Timestamp::parse("timeOn", &contact.time_on).ok();
                    let key = svc_wsjtx::once_key_for(
                        &contact.callsign,
                        time_on,
                        contact.frequency,
                        &contact.mode,
                    );
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
}
