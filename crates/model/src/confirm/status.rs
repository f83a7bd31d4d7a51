//! Where a contact and a log stand with the QSL services: the marks of a contact's
//! confirmations, QRZ.com's word on a contact's copy, and the counts `svc confirmations status`
//! shows.

use serde::{Deserialize, Serialize};

use super::Confirmed;
use crate::fields::{Field, Fields};

/// The confirmations a contact has, a letter each, in this order: `L` LoTW, `E` eQSL, `C`
/// QRZ.com's logbook (its `APP_QRZLOG_STATUS` `C`), `Q` a paper card; empty when it has none.
/// The CLI's lists and the logbook's rows show them.
pub fn marks(fields: &Fields) -> String {
    let yes = |field: Field| {
        fields
            .get(field)
            .is_some_and(|v| v.eq_ignore_ascii_case("Y"))
    };
    let qrz = fields
        .adif
        .get(QRZ_STATUS_FIELD)
        .is_some_and(|s| s.trim().eq_ignore_ascii_case("C"));
    [
        (yes(Field::LotwQslRcvd), 'L'),
        (yes(Field::EqslQslRcvd), 'E'),
        (qrz, 'C'),
        (yes(Field::QslRcvd), 'Q'),
    ]
    .into_iter()
    .filter_map(|(has, mark)| has.then_some(mark))
    .collect()
}

/// The `adif` entry that holds QRZ.com's status of the contact's copy in a QRZ logbook, as
/// QRZ writes it in its records: `C` confirmed (both sides logged it there), else `N`.
pub const QRZ_STATUS_FIELD: &str = "APP_QRZLOG_STATUS";

/// The `adif` entry that holds the day QRZ.com confirmed it, as QRZ writes it (YYYYMMDD).
pub const QRZ_QSLDATE_FIELD: &str = "APP_QRZLOG_QSLDATE";

/// QRZ.com's word on a contact's copy, read from a record of the book that holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QrzStatus {
    /// `C` or `N`, upper-case.
    pub status: String,
    /// YYYYMMDD, when QRZ gives one.
    pub qsl_date: Option<String>,
}

impl QrzStatus {
    /// The status a record of a QRZ logbook carries (`APP_QRZLOG_STATUS`, and its
    /// `APP_QRZLOG_QSLDATE`), given a lookup of the record's fields by ADIF name; `None` when
    /// it carries none, or one that is not a single letter.
    pub fn of<'a>(get: impl Fn(&str) -> Option<&'a str>) -> Option<QrzStatus> {
        let status = get(QRZ_STATUS_FIELD)?.trim().to_ascii_uppercase();
        if status.len() != 1 || !status.chars().all(|c| c.is_ascii_alphabetic()) {
            return None;
        }
        let qsl_date = get(QRZ_QSLDATE_FIELD)
            .map(str::trim)
            .filter(|d| d.len() == 8 && d.chars().all(|c| c.is_ascii_digit()))
            .map(str::to_owned);
        Some(QrzStatus { status, qsl_date })
    }

    /// Writes it into a contact's `adif` entries. The date follows the record: one QRZ no
    /// longer gives is dropped, so a contact never dates a confirmation QRZ took back. QRZ's
    /// status is not the card's (`qslRcvd`) nor another service's: nothing else changes.
    pub fn apply(&self, fields: &mut Fields) -> Confirmed {
        let before = (
            fields.adif.get(QRZ_STATUS_FIELD).cloned(),
            fields.adif.get(QRZ_QSLDATE_FIELD).cloned(),
        );
        fields
            .adif
            .insert(QRZ_STATUS_FIELD.to_owned(), self.status.clone());
        match &self.qsl_date {
            Some(date) => {
                fields
                    .adif
                    .insert(QRZ_QSLDATE_FIELD.to_owned(), date.clone());
            }
            None => {
                fields.adif.remove(QRZ_QSLDATE_FIELD);
            }
        }
        let after = (
            fields.adif.get(QRZ_STATUS_FIELD).cloned(),
            fields.adif.get(QRZ_QSLDATE_FIELD).cloned(),
        );
        if before == after {
            Confirmed::Already
        } else {
            Confirmed::Changed
        }
    }
}

/// The QSL services whose state is the contact's own fields: the service's name, its sent
/// field and its received field. `svc confirmations status` counts each.
pub const SERVICES: &[(&str, Field, Field)] = &[
    ("lotw", Field::LotwQslSent, Field::LotwQslRcvd),
    ("eqsl", Field::EqslQslSent, Field::EqslQslRcvd),
    ("card", Field::QslSent, Field::QslRcvd),
];

/// How far the account's contacts are with each QSL service (`GET /v1/confirmations`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfirmationStatus {
    /// The account's contacts.
    pub contacts: i64,
    pub services: Vec<ServiceStatus>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceStatus {
    /// `lotw`, `eqsl` or `card` ([`SERVICES`]).
    pub service: String,
    /// Sent: the sent field is `Y`.
    pub sent: i64,
    /// LoTW only: the contacts LoTW says it holds, received ([`LOTW_RECEIVED_FIELD`]) or
    /// confirmed. Sent and not received is still on its way (or was lost).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received: Option<i64>,
    /// LoTW only: uploaded by `svc lotw upload` ([`LOTW_SENT_FIELD`]) and neither received
    /// nor confirmed yet: waiting for LoTW to process the upload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<i64>,
    /// Confirmed: the received field is `Y`.
    pub confirmed: i64,
    /// Marked not to be sent: the sent field is `I`.
    pub ignored: i64,
    /// Neither sent nor ignored: what an upload would send.
    pub unsent: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_contact_s_marks_name_each_confirmation() {
        let mut fields = Fields::default();
        assert_eq!(marks(&fields), "");
        fields.set(Field::QslRcvd, Some("Y".into()));
        fields.set(Field::LotwQslRcvd, Some("Y".into()));
        fields.set(Field::EqslQslRcvd, Some("R".into()));
        assert_eq!(marks(&fields), "LQ");
        fields.adif.insert("APP_QRZLOG_STATUS".into(), "C".into());
        fields.set(Field::EqslQslRcvd, Some("Y".into()));
        assert_eq!(marks(&fields), "LECQ");
    }

    #[test]
    fn qrzs_status_is_read_from_its_record_and_written_where_marks_read_it() {
        let record = |status: &'static str, date: Option<&'static str>| {
            move |name: &str| match name {
                QRZ_STATUS_FIELD => Some(status),
                QRZ_QSLDATE_FIELD => date,
                _ => None,
            }
        };
        let confirmed = QrzStatus::of(record(" c ", Some("20261103"))).unwrap();
        assert_eq!(confirmed.status, "C");
        let mut fields = Fields::default();
        assert_eq!(confirmed.apply(&mut fields), Confirmed::Changed);
        assert_eq!(marks(&fields), "C");
        assert_eq!(
            fields.adif.get(QRZ_QSLDATE_FIELD).map(String::as_str),
            Some("20261103")
        );
        assert_eq!(confirmed.apply(&mut fields), Confirmed::Already);
        // Taken back: the mark and the date go.
        let taken_back = QrzStatus::of(record("N", None)).unwrap();
        assert_eq!(taken_back.apply(&mut fields), Confirmed::Changed);
        assert_eq!(marks(&fields), "");
        assert!(!fields.adif.contains_key(QRZ_QSLDATE_FIELD));
        // Nothing QRZ would write is no status at all; a malformed date is none.
        assert_eq!(QrzStatus::of(record("", None)), None);
        assert_eq!(QrzStatus::of(record("CONFIRMED", None)), None);
        assert_eq!(
            QrzStatus::of(record("C", Some("2026-11-03")))
                .unwrap()
                .qsl_date,
            None
        );
    }
}
