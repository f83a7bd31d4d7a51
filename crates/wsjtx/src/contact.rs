//! The contact a logged QSO makes, and the key that makes logging it once safe to repeat.
//!
//! WSJT-X writes the same QSO three ways: QSO Logged, Logged ADIF, and a record of its own log
//! file (wsjtx_log.adi), which an operator may import later. A contact made here therefore
//! holds what svc's ADIF import makes of that record, field for field: COMMENT is the comment
//! field (notes stay the operator's own), the mode is the operator's name for it as the
//! model's table spells it (FT4, not ADIF's MFSK), times are to the second as ADIF writes
//! them, and a value a field refuses is kept as read under its ADIF name. The fields and
//! their checks are the model's table; nothing here names a field the model does not.

use svc_model::band::band_for_mhz;
use svc_model::fields::check_adif_entry;
use svc_model::mode::check_mode;
use svc_model::once::content_key;
use svc_model::{ContactInput, Field, Fields, Timestamp};

use super::message::QsoLogged;
use super::time::TimeError;

/// Why a logged QSO makes no contact.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContactError {
    #[error("QSO Logged has no time on: its Date & Time On is null")]
    NoTimeOn,
    #[error("QSO Logged's Date & Time On: {0}")]
    TimeOn(TimeError),
    #[error("QSO Logged's Date & Time Off: {0}")]
    TimeOff(TimeError),
}

/// The contact `qso` makes in the folder `folder_id`, as the API takes it; the service applies
/// its rules (a frequency in a band, the folder's) when it is sent.
///
/// Callsigns are upper-cased, empty text is an absent value, the frequency is the Tx
/// frequency in MHz, the station callsign is My call (else the operator's), and the other
/// fields go through the model's table: DX grid, My grid, Tx power (a trailing W dropped, as
/// loggers write "100W"), Comments as the comment field, Operator call, the exchanges and the
/// propagation mode. Refused when a time cannot be read: a null time on, a time in a named
/// zone.
pub fn contact(qso: &QsoLogged, folder_id: &str) -> Result<ContactInput, ContactError> {
    let time_on = qso
        .time_on
        .as_ref()
        .ok_or(ContactError::NoTimeOn)?
        .timestamp()
        .map_err(ContactError::TimeOn)?;
    let time_off = match &qso.time_off {
        Some(at) => Some(at.timestamp().map_err(ContactError::TimeOff)?),
        None => None,
    };

    let mut fields = Fields::default();
    if let Some(off) = time_off {
        keep(&mut fields, Field::TimeOff, &to_the_second(off).to_string());
    }
    let power = qso.tx_power.trim();
    let power = match power.strip_suffix(['W', 'w']) {
        Some(watts) if watts.trim().parse::<f64>().is_ok() => watts.trim(),
        _ => power,
    };
    let declared = [
        (Field::Gridsquare, qso.dx_grid.as_str()),
        (Field::MyGridsquare, text(&qso.my_grid)),
        (Field::TxPwr, power),
        (Field::Comment, qso.comments.as_str()),
        (Field::Operator, text(&qso.operator_call)),
        (Field::StxString, text(&qso.exchange_sent)),
        (Field::SrxString, text(&qso.exchange_received)),
        (Field::PropMode, text(&qso.propagation_mode)),
    ];
    for (field, value) in declared {
        keep(&mut fields, field, value);
    }

    let call = |value: &str| present(value).map(str::to_ascii_uppercase);
    Ok(ContactInput {
        folder_id: folder_id.to_owned(),
        callsign: qso.dx_call.trim().to_ascii_uppercase(),
        frequency: mhz(qso.tx_frequency),
        mode: mode_name(&qso.mode),
        time_on: to_the_second(time_on).to_string(),
        rst_sent: present(&qso.report_sent).map(str::to_owned),
        rst_received: present(&qso.report_received).map(str::to_owned),
        name: present(&qso.name).map(str::to_owned),
        station_callsign: call(text(&qso.my_call)).or_else(|| call(text(&qso.operator_call))),
        fields,
        ..ContactInput::default()
    })
}

/// The idempotency key of the contact `qso` makes: [`once_key_for`] its DX call, time on,
/// Tx frequency and mode. A QSO whose time on cannot be read ([`contact`] refuses it) keys
/// without one.
pub fn once_key(qso: &QsoLogged) -> String {
    let time_on = qso.time_on.as_ref().and_then(|at| at.timestamp().ok());
    once_key_for(&qso.dx_call, time_on, mhz(qso.tx_frequency), &qso.mode)
}

/// The idempotency key of a contact WSJT-X logged: "wsjtx-" and the hex SHA-256 of
///
/// - the callsign, trimmed and upper-cased;
/// - the time on, to the second, rounded down (seconds since 1970 UTC; none when unknown);
/// - the band the frequency lies in by the model's band plan (none outside every band);
/// - the mode as the model's table spells it (FT4 whether given as FT4 or ft4).
///
/// To the second because that is what both of WSJT-X's messages carry alike: QSO Logged's
/// time has milliseconds, Logged ADIF's TIME_ON (and wsjtx_log.adi's) drops them, and a QSO
/// sent again (the user logs it again, svc restarts and hears it anew) carries the same time.
/// A key to the minute would merge a station worked twice in a minute on one band; to the
/// millisecond would part QSO Logged from Logged ADIF. The band rather than the frequency,
/// because the two messages write the frequency differently (Hz; MHz as text). Nothing else
/// (reports, grid, comments) enters: the key says which contact it is, not what it says.
pub fn once_key_for(callsign: &str, time_on: Option<Timestamp>, mhz: f64, mode: &str) -> String {
    let seconds = time_on.map(|t| t.millis().div_euclid(1000).to_string());
    let parts = [
        Some(callsign.trim().to_ascii_uppercase()),
        seconds,
        band_for_mhz(mhz).map(str::to_owned),
        Some(mode_name(mode)),
    ];
    content_key("wsjtx-", b"svc-wsjtx-key-1", &parts)
}

/// The key of a contact read from a Logged ADIF (or WSJT-X's log file): [`once_key_for`] of
/// its call, time on, frequency and mode, as the QSO Logged of the same QSO is keyed.
pub fn once_key_of(contact: &ContactInput) -> String {
    let time_on = Timestamp::parse("timeOn", &contact.time_on).ok();
    once_key_for(&contact.callsign, time_on, contact.frequency, &contact.mode)
}

/// A mode as the model's table spells it (`ft4` → FT4, FT4 staying FT4 rather than ADIF's
/// MFSK), else as sent, upper-cased.
pub fn mode_name(mode: &str) -> String {
    check_mode("mode", mode, true).unwrap_or_else(|_| mode.trim().to_ascii_uppercase())
}

/// Hz as MHz.
fn mhz(hz: u64) -> f64 {
    hz as f64 / 1e6
}

/// Text with content, trimmed; empty is absent.
fn present(value: &str) -> Option<&str> {
    Some(value.trim()).filter(|v| !v.is_empty())
}

/// A field older senders leave out, as text: absent is empty.
fn text(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or_default()
}

/// The instant without its milliseconds, as ADIF writes times.
fn to_the_second(at: Timestamp) -> Timestamp {
    Timestamp(at.millis().div_euclid(1000).saturating_mul(1000))
}

/// Sets a declared field from what the QSO said: checked by the field's own rule, or, when
/// the rule refuses it, kept as read under its ADIF name (as an ADIF import keeps it).
fn keep(fields: &mut Fields, field: Field, value: &str) {
    let Some(value) = present(value) else {
        return;
    };
    let def = field.def();
    match def.check(value) {
        Ok(checked) => fields.set(field, checked),
        Err(_) => {
            if let Ok((name, value)) = check_adif_entry(def.adif, value) {
                fields.adif.insert(name, value);
            }
        }
    }
}
