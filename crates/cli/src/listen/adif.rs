//! Plain ADIF, one or more records a datagram (WSJT-X's secondary UDP server, JS8Call, …).

use super::{Heard, Key, Source};

/// Plain ADIF: every record of the datagram, keyed as `svc import adif` keys it.
pub(super) fn read(datagram: &[u8]) -> Vec<Heard> {
    let dropped = |message: String| Heard::Dropped {
        id: None,
        message: format!("ADIF: {message}"),
    };
    let reader = match svc_adif::Reader::new(datagram) {
        Ok(reader) => reader,
        Err(e) => return vec![dropped(e.to_string())],
    };
    let id = reader
        .header()
        .get("PROGRAMID")
        .unwrap_or("ADIF")
        .to_owned();
    let mut heard: Vec<Heard> = reader
        .map(|record| {
            match record
                .map_err(|e| e.to_string())
                .and_then(|r| svc_adif::contact::imported(&r))
            {
                Ok(imported) => Heard::Contact {
                    key: Key::InFolder(svc_adif::contact::idempotency_key(&imported)),
                    contact: Box::new(imported.contact),
                    id: id.clone(),
                    source: Source::Adif,
                    edit: false,
                },
                Err(message) => dropped(message),
            }
        })
        .collect();
    if heard.is_empty() {
        heard.push(dropped("no record in the datagram".into()));
    }
    heard
}
