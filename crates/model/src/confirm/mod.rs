//! Confirmations from QSL services (LoTW, eQSL): what a service confirmed, which stored contact
//! it confirms (matched as the service matches QSOs), and what confirming it writes into the
//! contact (docs/API.md, "Confirmations").

mod sent;
mod status;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use sent::*;
pub use status::*;

use crate::callsign::normalize_callsign;
use crate::fields::{Field, Fields};
use crate::mode::{ModeGroup, check_mode};
use crate::{ApiError, Timestamp};

/// The most confirmations one request takes.
pub const MAX_CONFIRMATIONS: usize = 1000;

/// How far apart in time LoTW lets the two sides' records of one QSO be: 30 minutes each way.
/// eQSL's card is matched the same way (its own "Verified" match allows the two logs' times to
/// differ too), so one window serves both services.
pub const LOTW_WINDOW_MS: i64 = 30 * 60 * 1000;

/// A QSL service whose confirmations are written into the contacts they confirm: it decides
/// which fields a confirmation sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QslService {
    /// LoTW's report, sent by the client (`POST /v1/confirmations`).
    Lotw,
    /// eQSL's Inbox, read by the service for a connected eQSL book.
    Eqsl,
}

/// The confirmed details LoTW gives of the worked station (`qso_qsldetail=yes`), written into
/// a contact only where it has none: what the operator typed is never overwritten.
pub const DETAILS: &[Field] = &[
    Field::Dxcc,
    Field::Cqz,
    Field::Ituz,
    Field::State,
    Field::Cnty,
    Field::Gridsquare,
    Field::Iota,
];

/// One QSO a QSL service says it confirmed, or (LoTW) only received from the user, as the
/// client sends it to the service: exactly one of `confirmed_on` and `received_on` is given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Confirmation {
    /// The worked station.
    pub callsign: String,
    pub band: String,
    /// The mode or submode the service has for the QSO; matched by its mode group.
    pub mode: String,
    pub time_on: Timestamp,
    /// Whose QSO it is: the log's station callsign the service holds it under.
    pub station_callsign: String,
    /// `SAT` for a satellite QSO, which matches only a satellite contact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prop_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sat_name: Option<String>,
    /// When the service confirmed it (YYYY-MM-DD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_on: Option<String>,
    /// When LoTW received it from the user's upload (YYYY-MM-DD), for a QSO it holds and has
    /// not confirmed: the contact is at LoTW, waiting for the other station's upload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received_on: Option<String>,
    /// The confirmed details, by wire name ([`DETAILS`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub details: BTreeMap<String, String>,
}

impl Confirmation {
    /// Checks one item of a request, naming it by its place (`items[3].band`), and gives it
    /// in its stored form.
    pub fn checked(mut self, at: usize) -> Result<Confirmation, ApiError> {
        let name = |field: &str| format!("items[{at}].{field}");
        self.callsign = normalize_callsign(&name("callsign"), &self.callsign)?;
        self.station_callsign =
            normalize_callsign(&name("stationCallsign"), &self.station_callsign)?;
        self.band = super::band::band_name(&self.band)
            .map(str::to_owned)
            .ok_or_else(|| {
                ApiError::field(
                    &name("band"),
                    format!(
                        "{} {:?} is not an ADIF band; write one such as 20m or 70cm",
                        name("band"),
                        self.band
                    ),
                )
            })?;
        // As an import keeps it: LoTW holds what another logger may have uploaded.
        self.mode = check_mode(&name("mode"), &self.mode, true)?;
        // A field's own check names the field; the item's place names it here.
        let placed =
            |at: String| move |e: ApiError| ApiError::field(&at, format!("{at}: {}", e.message));
        self.prop_mode = match self.prop_mode {
            Some(p) => Field::PropMode
                .def()
                .check(&p)
                .map_err(placed(name("propMode")))?,
            None => None,
        };
        self.sat_name = match self.sat_name {
            Some(s) => Field::SatName
                .def()
                .check(&s)
                .map_err(placed(name("satName")))?,
            None => None,
        };
        let date = |wire: &str, value: Option<String>| match value {
            None => Ok(None),
            Some(value) => Field::LotwQslRdate
                .def()
                .check(&value)
                .ok()
                .flatten()
                .map(Some)
                .ok_or_else(|| {
                    ApiError::field(
                        &name(wire),
                        format!("{} {value:?} is not a date; write YYYY-MM-DD", name(wire)),
                    )
                }),
        };
        self.confirmed_on = date("confirmedOn", self.confirmed_on)?;
        self.received_on = date("receivedOn", self.received_on)?;
        match (&self.confirmed_on, &self.received_on) {
            (None, None) => {
                return Err(ApiError::field(
                    &name("confirmedOn"),
                    format!(
                        "{} has neither confirmedOn nor receivedOn; send confirmedOn (YYYY-MM-DD) for a QSO the service confirmed, or receivedOn for one LoTW only received",
                        at_name(at)
                    ),
                ));
            }
            (Some(_), Some(_)) => {
                return Err(ApiError::field(
                    &name("receivedOn"),
                    format!(
                        "{} has both confirmedOn and receivedOn; a confirmed QSO is sent with confirmedOn alone",
                        at_name(at)
                    ),
                ));
            }
            _ => {}
        }
        let mut details = BTreeMap::new();
        for (wire, value) in self.details {
            let field = DETAILS
                .iter()
                .copied()
                .find(|f| f.def().wire == wire)
                .ok_or_else(|| {
                    let known: Vec<&str> = DETAILS.iter().map(|f| f.def().wire).collect();
                    ApiError::field(
                        &name("details"),
                        format!(
                            "{} names {wire:?}, which is not a confirmed detail; use {}",
                            name("details"),
                            known.join(", ")
                        ),
                    )
                })?;
            let checked = field.def().check(&value);
            if let Some(value) = checked.map_err(placed(name(&format!("details.{wire}"))))? {
                details.insert(wire, value);
            }
        }
        self.details = details;
        Ok(self)
    }

    /// The earliest and latest `time_on` a stored contact may have to be this QSO.
    pub fn window(&self) -> (i64, i64) {
        let at = self.time_on.millis();
        (
            at.saturating_sub(LOTW_WINDOW_MS),
            at.saturating_add(LOTW_WINDOW_MS),
        )
    }
}

/// How an item of a request is named in messages.
fn at_name(at: usize) -> String {
    format!("items[{at}]")
}

/// The answer to a confirmations request: the counts, and one item per confirmation sent,
/// in its order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfirmAnswer {
    pub confirmed: usize,
    /// Items with `receivedOn` newly written as received.
    pub received: usize,
    pub already: usize,
    pub unmatched: usize,
    pub items: Vec<ConfirmItem>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfirmItem {
    pub state: ConfirmState,
    /// The contact confirmed; absent when none matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qso_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConfirmState {
    /// Newly confirmed, or it gained confirmed details.
    Confirmed,
    /// Newly marked received by LoTW (an item with `receivedOn`).
    Received,
    /// The contact already said all of it.
    Already,
    /// No contact of the log is this QSO.
    Unmatched,
}

impl ConfirmAnswer {
    /// Adds one item's outcome.
    pub fn push(&mut self, state: ConfirmState, qso_id: Option<String>) {
        match state {
            ConfirmState::Confirmed => self.confirmed += 1,
            ConfirmState::Received => self.received += 1,
            ConfirmState::Already => self.already += 1,
            ConfirmState::Unmatched => self.unmatched += 1,
        }
        self.items.push(ConfirmItem { state, qso_id });
    }
}

/// What is compared of a stored contact whose call and time are already within the window.
pub struct Candidate<'a> {
    pub band: &'a str,
    pub mode: &'a str,
    pub time_on: Timestamp,
    /// The contact's own station callsign, else the account's.
    pub station_callsign: &'a str,
    pub fields: &'a Fields,
}

/// How near a candidate is to the confirmation: `None` when LoTW would not match them (band,
/// mode group, station, satellite or time differ); otherwise lower is nearer: the same mode
/// before the same group, then the nearest in time.
pub fn nearness(candidate: &Candidate, confirmation: &Confirmation) -> Option<(bool, i64)> {
    let apart = (candidate.time_on.millis() - confirmation.time_on.millis()).abs();
    let sat = |p: Option<&str>| p.is_some_and(|p| p.eq_ignore_ascii_case("SAT"));
    let same = candidate.band.eq_ignore_ascii_case(&confirmation.band)
        && ModeGroup::of(candidate.mode) == ModeGroup::of(&confirmation.mode)
        && candidate
            .station_callsign
            .eq_ignore_ascii_case(&confirmation.station_callsign)
        && apart <= LOTW_WINDOW_MS
        && sat(candidate.fields.get(Field::PropMode)) == sat(confirmation.prop_mode.as_deref())
        && match (candidate.fields.get(Field::SatName), &confirmation.sat_name) {
            (Some(ours), Some(theirs)) => ours.eq_ignore_ascii_case(theirs),
            _ => true,
        };
    same.then(|| {
        let exact = candidate.mode.eq_ignore_ascii_case(&confirmation.mode);
        (!exact, apart)
    })
}

/// What confirming a contact came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirmed {
    /// Newly confirmed, or details filled in: the contact changed.
    Changed,
    /// Newly marked received by LoTW: the contact changed.
    Received,
    /// It already said all of this.
    Already,
}

/// Writes a confirmation into a contact's fields. LoTW's: LOTW_QSL_RCVD `Y` with its date,
/// LOTW_QSL_SENT `Y` (LoTW holds the QSO, whoever sent it), and each confirmed detail the
/// contact lacks. eQSL's: EQSL_QSL_RCVD `Y` with its date only: a card arrives in the Inbox
/// whether or not this log was sent to eQSL, and its details are the sender's word alone.
/// An item LoTW only received (no `confirmed_on`): LOTW_QSL_SENT `Y` and the day as
/// [`LOTW_RECEIVED_FIELD`]; never LOTW_QSL_RCVD, and nothing at all on a contact already
/// confirmed, which says more.
pub fn apply(service: QslService, fields: &mut Fields, confirmation: &Confirmation) -> Confirmed {
    let confirmed_on = match (
        service,
        &confirmation.confirmed_on,
        &confirmation.received_on,
    ) {
        (QslService::Eqsl, Some(on), _) => return apply_eqsl(fields, on),
        (QslService::Lotw, None, Some(on)) => return apply_lotw_received(fields, on),
        (QslService::Lotw, Some(on), _) => on,
        // `checked` lets no item through without a date, and eQSL's cards are all confirmed.
        _ => return Confirmed::Already,
    };
    let mut changed = false;
    let mut set = |fields: &mut Fields, field: Field, value: &str| {
        if fields.get(field) != Some(value) {
            fields.set(field, Some(value.to_owned()));
            changed = true;
        }
    };
    set(fields, Field::LotwQslRcvd, "Y");
    set(fields, Field::LotwQslRdate, confirmed_on);
    if fields.get(Field::LotwQslSent) != Some("Y") {
        set(fields, Field::LotwQslSent, "Y");
    }
    for (wire, value) in &confirmation.details {
        if let Some(field) = Field::by_wire(wire)
            && fields.get(field).is_none()
        {
            set(fields, field, value);
        }
    }
    if changed {
        Confirmed::Changed
    } else {
        Confirmed::Already
    }
}

fn apply_eqsl(fields: &mut Fields, confirmed_on: &str) -> Confirmed {
    let before = fields.clone();
    fields.set(Field::EqslQslRcvd, Some("Y".to_owned()));
    fields.set(Field::EqslQslRdate, Some(confirmed_on.to_owned()));
    if *fields == before {
        Confirmed::Already
    } else {
        Confirmed::Changed
    }
}

fn apply_lotw_received(fields: &mut Fields, received_on: &str) -> Confirmed {
    if fields
        .get(Field::LotwQslRcvd)
        .is_some_and(|r| r.eq_ignore_ascii_case("Y"))
    {
        return Confirmed::Already;
    }
    let before = fields.clone();
    if fields.get(Field::LotwQslSent) != Some("Y") {
        fields.set(Field::LotwQslSent, Some("Y".to_owned()));
    }
    fields
        .adif
        .insert(LOTW_RECEIVED_FIELD.to_owned(), received_on.to_owned());
    if *fields == before {
        Confirmed::Already
    } else {
        Confirmed::Received
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn confirmation() -> Confirmation {
        Confirmation {
            callsign: "k1abc".into(),
            band: "20M".into(),
            mode: "ft8".into(),
            time_on: Timestamp::parse("timeOn", "2026-11-01T12:00:30Z").unwrap(),
            station_callsign: "w9xx".into(),
            prop_mode: None,
            sat_name: None,
            confirmed_on: Some("20261102".into()),
            received_on: None,
            details: [("dxcc", "291"), ("state", "ma"), ("gridsquare", "FN42")]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        }
        .checked(0)
        .unwrap()
    }

    fn candidate<'a>(fields: &'a Fields, mode: &'a str, at: &str) -> Candidate<'a> {
        Candidate {
            band: "20m",
            mode,
            time_on: Timestamp::parse("timeOn", at).unwrap(),
            station_callsign: "W9XX",
            fields,
        }
    }

    #[test]
    fn an_item_is_checked_into_its_stored_form() {
        let c = confirmation();
        assert_eq!(
            (c.callsign.as_str(), c.band.as_str(), c.mode.as_str()),
            ("K1ABC", "20m", "FT8")
        );
        assert_eq!(c.confirmed_on.as_deref(), Some("2026-11-02"));
        assert_eq!(c.details.get("state").map(String::as_str), Some("MA"));
        let mut bad = confirmation();
        bad.band = "21m".into();
        let e = bad.checked(4).unwrap_err();
        assert!(e.message.contains("items[4].band"), "{}", e.message);
        let mut bad = confirmation();
        bad.details.insert("name".into(), "Bob".into());
        assert!(
            bad.checked(0)
                .unwrap_err()
                .message
                .contains("not a confirmed detail")
        );
    }

    #[test]
    fn an_item_has_one_date_confirmed_or_received() {
        let mut received = confirmation();
        received.confirmed_on = None;
        received.received_on = Some("20261103".into());
        let received = received.checked(0).unwrap();
        assert_eq!(received.received_on.as_deref(), Some("2026-11-03"));
        let mut neither = received.clone();
        neither.received_on = None;
        let e = neither.checked(3).unwrap_err();
        assert!(e.message.contains("items[3] has neither"), "{}", e.message);
        let mut both = received.clone();
        both.confirmed_on = Some("2026-11-04".into());
        let e = both.checked(3).unwrap_err();
        assert!(e.message.contains("items[3] has both"), "{}", e.message);
        let mut bad = received;
        bad.received_on = Some("soon".into());
        let e = bad.checked(3).unwrap_err();
        assert!(e.message.contains("items[3].receivedOn"), "{}", e.message);
    }

    #[test]
    fn received_marks_sent_and_its_day_until_confirmed_or_sent_again() {
        let mut received = confirmation();
        received.confirmed_on = None;
        received.received_on = Some("2026-11-03".into());
        let mut fields = Fields::default();
        assert_eq!(
            apply(QslService::Lotw, &mut fields, &received),
            Confirmed::Received
        );
        assert_eq!(fields.get(Field::LotwQslSent), Some("Y"));
        assert_eq!(fields.get(Field::LotwQslRcvd), None);
        assert_eq!(fields.get(Field::Dxcc), None, "nothing confirmed");
        assert_eq!(
            fields.adif.get(LOTW_RECEIVED_FIELD).map(String::as_str),
            Some("2026-11-03")
        );
        assert_eq!(
            apply(QslService::Lotw, &mut fields, &received),
            Confirmed::Already
        );
        // An upload of another version is not received yet; the same version again is.
        let sent = |fingerprint: &str| Sent {
            qso_id: "qso_aaaaaaaaaaaaaaaa".into(),
            sent_on: "2026-11-02".into(),
            fingerprint: fingerprint.into(),
        };
        apply_lotw_sent(&mut fields, &sent("0123456789abcdef"));
        assert!(!fields.adif.contains_key(LOTW_RECEIVED_FIELD));
        apply(QslService::Lotw, &mut fields, &received);
        apply_lotw_sent(&mut fields, &sent("0123456789abcdef"));
        assert!(fields.adif.contains_key(LOTW_RECEIVED_FIELD));
        // A confirmed contact says more than received: left as it is.
        let mut confirmed = Fields::default();
        apply(QslService::Lotw, &mut confirmed, &confirmation());
        assert_eq!(
            apply(QslService::Lotw, &mut confirmed, &received),
            Confirmed::Already
        );
        assert!(!confirmed.adif.contains_key(LOTW_RECEIVED_FIELD));
    }

    #[test]
    fn lotw_matches_band_mode_group_station_and_thirty_minutes() {
        let c = confirmation();
        let fields = Fields::default();
        assert_eq!(
            nearness(&candidate(&fields, "FT8", "2026-11-01T12:00:00Z"), &c),
            Some((false, 30_000))
        );
        // Another data mode is the same group, but ranks behind the same mode.
        assert_eq!(
            nearness(&candidate(&fields, "FT4", "2026-11-01T12:00:30Z"), &c),
            Some((true, 0))
        );
        assert_eq!(
            nearness(&candidate(&fields, "SSB", "2026-11-01T12:00:30Z"), &c),
            None
        );
        assert_eq!(
            nearness(&candidate(&fields, "FT8", "2026-11-01T12:31:00Z"), &c),
            None
        );
        let mut other = candidate(&fields, "FT8", "2026-11-01T12:00:30Z");
        other.station_callsign = "W9XX/4";
        assert_eq!(nearness(&other, &c), None);
        let mut other = candidate(&fields, "FT8", "2026-11-01T12:00:30Z");
        other.band = "40m";
        assert_eq!(nearness(&other, &c), None);
    }

    #[test]
    fn lotw_s_mode_groups() {
        use ModeGroup::*;
        for (mode, group) in [
            ("USB", Phone),
            ("SSB", Phone),
            ("FM", Phone),
            ("DIGITALVOICE", Phone),
            ("CW", Cw),
            ("FT8", Data),
            ("FT4", Data),
            ("RTTY", Data),
            ("SSTV", Image),
            ("NOT-A-MODE", Data),
        ] {
            assert_eq!(ModeGroup::of(mode), group, "{mode}");
        }
    }

    #[test]
    fn a_satellite_qso_matches_only_a_satellite_contact() {
        let mut c = confirmation();
        c.prop_mode = Some("SAT".into());
        c.sat_name = Some("AO-91".into());
        let plain = Fields::default();
        assert_eq!(
            nearness(&candidate(&plain, "FT8", "2026-11-01T12:00:30Z"), &c),
            None
        );
        let mut sat = Fields::default();
        sat.set(Field::PropMode, Some("SAT".into()));
        sat.set(Field::SatName, Some("AO-91".into()));
        assert!(nearness(&candidate(&sat, "FT8", "2026-11-01T12:00:30Z"), &c).is_some());
        sat.set(Field::SatName, Some("SO-50".into()));
        assert_eq!(
            nearness(&candidate(&sat, "FT8", "2026-11-01T12:00:30Z"), &c),
            None
        );
    }

    #[test]
    fn confirming_fills_only_what_is_missing_and_twice_changes_nothing() {
        let c = confirmation();
        let mut fields = Fields::default();
        fields.set(Field::State, Some("NH".into()));
        assert_eq!(apply(QslService::Lotw, &mut fields, &c), Confirmed::Changed);
        assert_eq!(fields.get(Field::LotwQslRcvd), Some("Y"));
        assert_eq!(fields.get(Field::LotwQslSent), Some("Y"));
        assert_eq!(fields.get(Field::LotwQslRdate), Some("2026-11-02"));
        assert_eq!(fields.get(Field::Dxcc), Some("291"));
        assert_eq!(
            fields.get(Field::State),
            Some("NH"),
            "the operator's state stays"
        );
        assert_eq!(apply(QslService::Lotw, &mut fields, &c), Confirmed::Already);
    }

    #[test]
    fn an_eqsl_card_sets_eqsls_received_fields_only() {
        let c = confirmation();
        let mut fields = Fields::default();
        assert_eq!(apply(QslService::Eqsl, &mut fields, &c), Confirmed::Changed);
        assert_eq!(fields.get(Field::EqslQslRcvd), Some("Y"));
        assert_eq!(fields.get(Field::EqslQslRdate), Some("2026-11-02"));
        for untouched in [
            Field::EqslQslSent,
            Field::LotwQslRcvd,
            Field::Dxcc,
            Field::State,
        ] {
            assert_eq!(fields.get(untouched), None, "{untouched:?}");
        }
        assert_eq!(apply(QslService::Eqsl, &mut fields, &c), Confirmed::Already);
    }
}
