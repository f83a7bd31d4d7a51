//! N1MM Logger+'s broadcasts (and those of the programs that speak its protocol).

use svc_n1mm::Broadcast;

use super::{Heard, Key, Source};

/// N1MM Logger+'s broadcasts: a contact logged once under its ID; an edit logged only when
/// the contact is not held; a delete and every other broadcast not acted on.
pub(super) fn read(datagram: &[u8]) -> Vec<Heard> {
    let id = |info: &svc_n1mm::ContactInfo| info.app.clone().unwrap_or_else(|| "N1MM".into());
    let made = |info: svc_n1mm::ContactInfo, edit: bool| match svc_n1mm::contact(&info, "") {
        Ok(contact) => Heard::Contact {
            contact: Box::new(contact),
            key: Key::Fixed(svc_n1mm::once_key(&info)),
            id: id(&info),
            source: Source::N1mm,
            edit,
        },
        Err(e) => Heard::Dropped {
            id: Some(id(&info)),
            message: format!("N1MM+: {e}"),
        },
    };
    let heard = match svc_n1mm::decode(datagram) {
        Err(e) => Heard::Dropped {
            id: None,
            message: format!("N1MM+: {e}"),
        },
        Ok(Broadcast::Contact(info)) => made(info, false),
        Ok(Broadcast::Replace(info)) => made(info, true),
        Ok(Broadcast::Delete {
            id: n1mm_id,
            mut info,
        }) => {
            if info.id.is_none() {
                info.id = n1mm_id;
            }
            Heard::Ignored {
                id: id(&info),
                source: Source::N1mm,
                callsign: info.call.as_deref().map(str::to_ascii_uppercase),
                key: svc_n1mm::once_key(&info),
                message: "N1MM+ deleted this contact; svc does not apply deletes from N1MM+ (delete it in svc if it should go)".into(),
            }
        }
        Ok(Broadcast::Other { root }) => Heard::Status {
            id: "N1MM".into(),
            source: Source::N1mm,
            kind: root,
        },
    };
    vec![heard]
}
