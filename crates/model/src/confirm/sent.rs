//! What LoTW has of a contact: sent, with what was signed (so that an edit after the upload is
//! told from none), and received, as `svc lotw upload` and `svc lotw sync` record them.

use serde::{Deserialize, Serialize};

use super::Confirmed;
use crate::fields::{Field, Fields};
use crate::once::content_key;
use crate::{ApiError, Contact, IdKind};

/// The `adif` entry of a contact that says when LoTW received it (YYYY-MM-DD), from a
/// download of what LoTW received (`svc lotw sync`): sent and received is at LoTW, sent alone
/// may still be on its way. A later upload of an edited contact removes it.
pub const LOTW_RECEIVED_FIELD: &str = "APP_SVC_LOTW_RCVD";

/// The `adif` entry of a contact that holds what was uploaded to LoTW: [`lotw_fingerprint`]
/// of the contact as TQSL signed it, so that an edit after the upload is told from none.
pub const LOTW_SENT_FIELD: &str = "APP_SVC_LOTW_SENT";

/// How many hex digits a fingerprint has: 64 bits, plenty to tell one contact's versions apart.
const FINGERPRINT_LEN: usize = 16;

/// A short hash of what TQSL signs of a contact, and LoTW matches on: the worked call, the
/// time on (to the second, as the upload file has it), the band, the mode (its MODE and
/// SUBMODE follow from it), the propagation mode, the satellite and the station callsign (the
/// contact's, else `account_callsign`). The station's location is TQSL's, not the contact's.
pub fn lotw_fingerprint(contact: &Contact, account_callsign: &str) -> String {
    let upper = |s: &str| s.trim().to_ascii_uppercase();
    let parts = [
        Some(upper(&contact.callsign)),
        Some(contact.time_on.millis().div_euclid(1000).to_string()),
        Some(contact.band.trim().to_ascii_lowercase()),
        Some(upper(&contact.mode)),
        contact.fields.get(Field::PropMode).map(upper),
        contact.fields.get(Field::SatName).map(upper),
        Some(upper(
            contact
                .station_callsign
                .as_deref()
                .unwrap_or(account_callsign),
        )),
    ];
    let mut key = content_key("", b"lotw-sent-1", &parts);
    key.truncate(FINGERPRINT_LEN);
    key
}

/// Whether a contact goes in the next LoTW upload: not when its `lotwQslSent` is `I` (the
/// operator said never); when it is not `Y`; and when it is `Y` but what was uploaded (its
/// [`LOTW_SENT_FIELD`]) is not what the contact says now, an edit after the upload. A contact
/// marked `Y` with no fingerprint went to LoTW another way (another logger, a confirmation):
/// it stays as it is.
pub fn lotw_upload_due(contact: &Contact, account_callsign: &str) -> bool {
    match contact.fields.get(Field::LotwQslSent) {
        Some(s) if s.eq_ignore_ascii_case("I") => false,
        Some(s) if s.eq_ignore_ascii_case("Y") => contact
            .fields
            .adif
            .get(LOTW_SENT_FIELD)
            .is_some_and(|sent| *sent != lotw_fingerprint(contact, account_callsign)),
        _ => true,
    }
}

/// One contact a QSL service now holds because the user sent it there (`POST
/// /v1/confirmations/sent`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Sent {
    pub qso_id: String,
    /// When it was sent (YYYY-MM-DD).
    pub sent_on: String,
    /// [`lotw_fingerprint`] of the contact as it was sent.
    pub fingerprint: String,
}

impl Sent {
    /// Checks one item of a request, naming it by its place (`items[3].sentOn`), and gives it
    /// in its stored form.
    pub fn checked(mut self, at: usize) -> Result<Sent, ApiError> {
        let name = |field: &str| format!("items[{at}].{field}");
        self.qso_id = IdKind::Contact.parse(&name("qsoId"), &self.qso_id)?;
        self.sent_on = Field::LotwQslSdate
            .def()
            .check(&self.sent_on)
            .ok()
            .flatten()
            .ok_or_else(|| {
                ApiError::field(
                    &name("sentOn"),
                    format!(
                        "{} {:?} is not a date; write YYYY-MM-DD",
                        name("sentOn"),
                        self.sent_on
                    ),
                )
            })?;
        // Exactly as [`lotw_fingerprint`] writes them, so that a comparison with one is exact.
        if self.fingerprint.len() != FINGERPRINT_LEN
            || !self
                .fingerprint
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        {
            return Err(ApiError::field(
                &name("fingerprint"),
                format!(
                    "{} {:?} is not a fingerprint: {FINGERPRINT_LEN} lower-case hex digits, as svc lotw upload computes them",
                    name("fingerprint"),
                    crate::ids::truncate(&self.fingerprint, 40)
                ),
            ));
        }
        Ok(self)
    }
}

/// The answer to a sent request: the counts, and one item per item sent, in its order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SentAnswer {
    pub sent: usize,
    pub already: usize,
    pub missing: usize,
    pub items: Vec<SentItem>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SentItem {
    pub state: SentState,
    pub qso_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SentState {
    /// Newly marked sent, or marked with what was sent this time.
    Sent,
    /// The contact said all of it already.
    Already,
    /// No contact of the account has that id (deleted since it was listed).
    Missing,
}

impl SentAnswer {
    /// Adds one item's outcome.
    pub fn push(&mut self, state: SentState, qso_id: String) {
        match state {
            SentState::Sent => self.sent += 1,
            SentState::Already => self.already += 1,
            SentState::Missing => self.missing += 1,
        }
        self.items.push(SentItem { state, qso_id });
    }
}

/// Writes an upload to LoTW into a contact's fields: LOTW_QSL_SENT `Y`, LOTW_QSLSDATE, and
/// what was uploaded as [`LOTW_SENT_FIELD`]. Another version than the one LoTW said it
/// received is not received yet: [`LOTW_RECEIVED_FIELD`] goes.
pub fn apply_lotw_sent(fields: &mut Fields, sent: &Sent) -> Confirmed {
    let before = fields.clone();
    if fields.adif.get(LOTW_SENT_FIELD) != Some(&sent.fingerprint) {
        fields.adif.remove(LOTW_RECEIVED_FIELD);
    }
    fields.set(Field::LotwQslSent, Some("Y".to_owned()));
    fields.set(Field::LotwQslSdate, Some(sent.sent_on.clone()));
    fields
        .adif
        .insert(LOTW_SENT_FIELD.to_owned(), sent.fingerprint.clone());
    if *fields == before {
        Confirmed::Already
    } else {
        Confirmed::Changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uploaded() -> Contact {
        serde_json::from_value(serde_json::json!({
            "id": "qso_aaaaaaaaaaaaaaaa", "folderId": "fld_aaaaaaaaaaaaaaaa",
            "callsign": "K1ABC", "frequency": 14.074, "band": "20m", "mode": "FT8",
            "timeOn": "2026-11-01T12:00:30Z", "createdAt": "2026-11-01T12:00:31Z",
        }))
        .unwrap()
    }

    #[test]
    fn an_upload_is_due_until_sent_and_again_after_an_edit_of_what_tqsl_signs() {
        let mut c = uploaded();
        assert!(lotw_upload_due(&c, "W1AW"));
        let fingerprint = lotw_fingerprint(&c, "W1AW");
        assert_eq!(fingerprint.len(), 16);
        let sent = Sent {
            qso_id: c.id.clone(),
            sent_on: "20261102".into(),
            fingerprint: fingerprint.clone(),
        }
        .checked(0)
        .unwrap();
        assert_eq!(sent.sent_on, "2026-11-02");
        assert_eq!(apply_lotw_sent(&mut c.fields, &sent), Confirmed::Changed);
        assert_eq!(apply_lotw_sent(&mut c.fields, &sent), Confirmed::Already);
        assert_eq!(c.fields.get(Field::LotwQslSent), Some("Y"));
        assert_eq!(c.fields.get(Field::LotwQslSdate), Some("2026-11-02"));
        assert!(!lotw_upload_due(&c, "W1AW"));
        // What TQSL does not sign changes nothing; what it signs makes the upload due again.
        c.fields.set(Field::Comment, Some("tnx".into()));
        c.name = Some("Bob".into());
        assert!(!lotw_upload_due(&c, "W1AW"));
        assert!(lotw_upload_due(&c, "W1AW/P"), "another station callsign");
        let mut edited = c.clone();
        edited.mode = "FT4".into();
        assert!(lotw_upload_due(&edited, "W1AW"));
        let mut edited = c.clone();
        edited.fields.set(Field::PropMode, Some("SAT".into()));
        assert!(lotw_upload_due(&edited, "W1AW"));
        // Sent another way (no fingerprint) or never to be sent: left alone.
        let mut other = uploaded();
        other.fields.set(Field::LotwQslSent, Some("Y".into()));
        assert!(!lotw_upload_due(&other, "W1AW"));
        other.fields.set(Field::LotwQslSent, Some("I".into()));
        assert!(!lotw_upload_due(&other, "W1AW"));
        other.fields.set(Field::LotwQslSent, Some("N".into()));
        assert!(lotw_upload_due(&other, "W1AW"));
    }

    #[test]
    fn a_sent_item_is_checked() {
        let item = |id: &str, on: &str, fp: &str| Sent {
            qso_id: id.into(),
            sent_on: on.into(),
            fingerprint: fp.into(),
        };
        let id = "qso_aaaaaaaaaaaaaaaa";
        let fp = "0123456789abcdef";
        assert!(item(id, "2026-11-02", fp).checked(0).is_ok());
        for (bad, field) in [
            (
                item("fld_aaaaaaaaaaaaaaaa", "2026-11-02", fp),
                "items[2].qsoId",
            ),
            (item(id, "yesterday", fp), "items[2].sentOn"),
            (
                item(id, "2026-11-02", "0123456789ABCDEF"),
                "items[2].fingerprint",
            ),
            (item(id, "2026-11-02", "0123"), "items[2].fingerprint"),
        ] {
            let e = bad.checked(2).unwrap_err();
            assert!(e.message.contains(field), "{}", e.message);
        }
    }
}
