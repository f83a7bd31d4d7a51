//! The contact a broadcast makes, and the key that makes storing it once safe to repeat.
//!
//! N1MM Logger+ also exports its log as ADIF, and an operator may import that file after
//! a contest whose contacts svc already heard on the network. A contact made here therefore
//! holds what svc's ADIF import makes of N1MM's own record, field for field: COMMENT is the
//! comment field (notes stay the operator's own), the mode is as the model's table spells
//! it (N1MM's USB and LSB are ADIF submodes, kept), a band without a frequency is the band's
//! lower edge marked `bandOnly`, and the contest's elements go where N1MM's export puts them
//! (CONTEST_ID, STX, SRX, CQZ, FREQ_RX, APP_N1MM_ID, …). The fields and their checks are the
//! model's table; an element with no field there rides in the `adif` map under the ADIF
//! name N1MM's export gives it, and one with no such name stays in [`ContactInfo`] only.
//!
//! N1MM writes `0` for a serial, zone or check it does not have, and names its general
//! logging `DX` where a contest's name would be: both are read as absent, so that a casual
//! contact carries no contest.

use svc_model::band::{band_for_mhz, band_lower_edge};
use svc_model::fields::{check_adif_entry, number_text};
use svc_model::mode::check_mode;
use svc_model::once::content_key;
use svc_model::{ContactInput, Field, Fields, Timestamp};

use super::decode::ContactInfo;

/// Why a broadcast contact makes no contact.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContactError {
    #[error("the contact has no call")]
    NoCall,
    #[error("the contact has no timestamp")]
    NoTimestamp,
    #[error("timestamp {0:?} is not a UTC time like 2020-01-17 16:43:38")]
    Timestamp(String),
    #[error("the contact has no mode")]
    NoMode,
    #[error("mode {0:?} is not a mode svc can keep")]
    Mode(String),
    #[error("the contact has no frequency: no txfreq, rxfreq or band svc knows")]
    NoFrequency,
}

/// The contact `info` makes in the folder `folder_id`, as the API takes it; the service
/// applies its rules (a frequency in a band, the folder's) when it is sent.
///
/// The call and station call (`mycall`) are upper-cased; the time on is `timestamp`, UTC, to
/// the second; the frequency is `txfreq` in MHz, else `rxfreq`, else the lower edge of
/// `band` with `bandOnly` set; the mode is `mode` as the model's table spells it (USB stays
/// USB, as ADIF's import keeps it). `snt`/`rcv` are the reports and `name` the name; through
/// the model's table go `comment` (COMMENT), `gridsquare`, `power` (TX_PWR, a trailing W
/// dropped), `operator`, `qth`, `continent` (CONT), `wpxprefix` (PFX), `contestname`
/// (CONTEST_ID), `sntnr`/`rcvnr` (STX/SRX), `zone` (CQZ, ITUZ in the IARU contest) and
/// `rxfreq` (FREQ_RX). Into the `adif` map go `section` (ARRL_SECT), `prec` (PRECEDENCE),
/// `ck` (CHECK), `exchange1` (APP_N1MM_EXCHANGE1), `ID` (APP_N1MM_ID), `IsClaimedQso`
/// (APP_N1MM_CLAIMEDQSO) and `radionr` (APP_N1MM_RADIO_NR). A value a field's check refuses
/// is kept as read under its ADIF name, as an ADIF import keeps it.
pub fn contact(info: &ContactInfo, folder_id: &str) -> Result<ContactInput, ContactError> {
    let callsign = present(&info.call)
        .ok_or(ContactError::NoCall)?
        .to_ascii_uppercase();
    let timestamp = present(&info.timestamp).ok_or(ContactError::NoTimestamp)?;
    let time_on = utc(timestamp).ok_or_else(|| ContactError::Timestamp(clip(timestamp)))?;
    let mode = present(&info.mode).ok_or(ContactError::NoMode)?;
    let mode = check_mode("mode", mode, true).map_err(|_| ContactError::Mode(clip(mode)))?;

    let tx = tens_of_hz(&info.txfreq);
    let rx = tens_of_hz(&info.rxfreq);
    let (frequency, band_only) = match (tx, rx) {
        (Some(mhz), _) | (None, Some(mhz)) => (mhz, false),
        (None, None) => {
            let band = present(&info.band)
                .and_then(band_name)
                .ok_or(ContactError::NoFrequency)?;
            let edge = band_lower_edge(band).ok_or(ContactError::NoFrequency)?;
            (edge, true)
        }
    };

    let mut fields = Fields::default();
    let power = present(&info.power).map(|p| match p.strip_suffix(['W', 'w']) {
        Some(watts) if watts.trim().parse::<f64>().is_ok() => watts.trim(),
        _ => p,
    });
    let zone_field = match present(&info.contestname) {
        Some(contest) if contest.to_ascii_uppercase().starts_with("IARU") => Field::Ituz,
        _ => Field::Cqz,
    };
    let contest = present(&info.contestname)
        .filter(|c| !GENERAL_LOGS.contains(&c.to_ascii_uppercase().as_str()));
    let rx_text = rx.map(number_text);
    let declared = [
        (Field::Comment, present(&info.comment)),
        (Field::Gridsquare, present(&info.gridsquare)),
        (Field::TxPwr, power),
        (Field::Operator, present(&info.operator)),
        (Field::Qth, present(&info.qth)),
        (Field::Cont, present(&info.continent)),
        (Field::Pfx, present(&info.wpxprefix)),
        (Field::ContestId, contest),
        (Field::Stx, nonzero(&info.sntnr)),
        (Field::Srx, nonzero(&info.rcvnr)),
        (zone_field, nonzero(&info.zone)),
        (Field::FreqRx, rx_text.as_deref()),
    ];
    for (field, value) in declared {
        if let Some(value) = value {
            keep(&mut fields, field, value);
        }
    }
    let other = [
        ("ARRL_SECT", present(&info.section)),
        ("PRECEDENCE", present(&info.prec)),
        ("CHECK", nonzero(&info.ck)),
        ("APP_N1MM_EXCHANGE1", present(&info.exchange1)),
        ("APP_N1MM_ID", present(&info.id)),
        ("APP_N1MM_CLAIMEDQSO", present(&info.is_claimed_qso)),
        ("APP_N1MM_RADIO_NR", present(&info.radionr)),
    ];
    for (name, value) in other {
        if let Some(Ok((name, value))) = value.map(|v| check_adif_entry(name, v)) {
            fields.adif.insert(name, value);
        }
    }
    fields.band_only = band_only;

    Ok(ContactInput {
        folder_id: folder_id.to_owned(),
        callsign,
        frequency,
        mode,
        time_on: time_on.to_string(),
        rst_sent: present(&info.snt).map(str::to_owned),
        rst_received: present(&info.rcv).map(str::to_owned),
        name: present(&info.name).map(str::to_owned),
        station_callsign: present(&info.mycall).map(str::to_ascii_uppercase),
        fields,
        ..ContactInput::default()
    })
}

/// N1MM's names for its logs that are no contest: general logging.
const GENERAL_LOGS: &[&str] = &["DX", "GENERAL"];

/// The idempotency key of the contact `info` makes, and of its later edits and deletion:
/// "n1mm-" and the hex SHA-256 of
///
/// - N1MM's `ID` for the contact, trimmed and lower-cased, when the datagram has one;
/// - else the call (trimmed, upper-cased), the timestamp (as the instant it names, to the
///   second, when it can be read; else as written, trimmed), the band (as written, trimmed)
///   and the mode (as the model's table spells it).
///
/// The ID first, because N1MM makes it once per contact and sends it again unchanged: in
/// the copies a networked computer passes on (`IsOriginal` False), in a datagram sent twice,
/// in a `<contactreplace>` after an edit that changed the call or time, and in a
/// `<contactdelete>`, so the key of a delete names the contact to delete. Without an ID
/// (older N1MM, other senders) the contact is what it says: the same call, time, band and
/// mode are the same contact, and nothing else (reports, exchange) enters, so a resent
/// datagram keys alike. The two kinds hash apart, and a version leads each, so that a change
/// of what the key covers cannot collide with older keys.
pub fn once_key(info: &ContactInfo) -> String {
    match present(&info.id) {
        Some(id) => content_key("n1mm-", b"svc-n1mm-id-1", &[Some(id.to_ascii_lowercase())]),
        None => {
            let timestamp = present(&info.timestamp);
            let seconds = timestamp
                .and_then(utc)
                .map(|t| t.millis().div_euclid(1000).to_string());
            let mode = present(&info.mode)
                .map(|m| check_mode("mode", m, true).unwrap_or_else(|_| m.to_ascii_uppercase()));
            content_key(
                "n1mm-",
                b"svc-n1mm-content-1",
                &[
                    present(&info.call).map(str::to_ascii_uppercase),
                    seconds.or(timestamp.map(str::to_owned)),
                    present(&info.band).map(str::to_owned),
                    mode,
                ],
            )
        }
    }
}

/// N1MM's timestamp, `2020-01-17 16:43:38` in UTC, as an instant to the second. Also read:
/// a `T` between date and time, a trailing `Z`, a fraction of a second (dropped), no seconds.
fn utc(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    let text = text.strip_suffix(['Z', 'z']).unwrap_or(text);
    let (date, time) = text.split_once([' ', 'T', 't'])?;
    let date: Vec<&str> = date.split('-').collect();
    let time = time.trim();
    let time = time.split_once('.').map_or(time, |(whole, _)| whole);
    let time: Vec<&str> = time.split(':').collect();
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let [y, mo, d] = date[..] else { return None };
    let (h, mi, s) = match time[..] {
        [h, mi] => (h, mi, "00"),
        [h, mi, s] => (h, mi, s),
        _ => return None,
    };
    let pad = |s: &str| {
        if s.len() == 1 {
            format!("0{s}")
        } else {
            s.to_owned()
        }
    };
    let (mo, d, h, mi, s) = (pad(mo), pad(d), pad(h), pad(mi), pad(s));
    if !digits(y, 4) || [&mo, &d, &h, &mi, &s].iter().any(|p| !digits(p, 2)) {
        return None;
    }
    let at = Timestamp::parse("timeOn", &format!("{y}-{mo}-{d}T{h}:{mi}:{s}Z")).ok()?;
    Some(Timestamp(at.millis().div_euclid(1000).saturating_mul(1000)))
}

/// A frequency in N1MM's tens of Hz, as MHz; none when absent, zero or not a number.
fn tens_of_hz(value: &Option<String>) -> Option<f64> {
    let tens = present(value)?.replace(',', ".").parse::<f64>().ok()?;
    Some(tens / 100_000.0).filter(|mhz| mhz.is_finite() && *mhz > 0.0)
}

/// The ADIF band N1MM's `band` names: MHz as N1MM writes it ("3.5", "14", "10" for 30 m,
/// with a comma in some locales), an ADIF band name ("20m"), or metres as a bare number
/// (QARTest's "160").
fn band_name(band: &str) -> Option<&'static str> {
    let exact = svc_model::band::BAND_NAMES
        .iter()
        .find(|name| name.eq_ignore_ascii_case(band));
    if let Some(name) = exact {
        return Some(name);
    }
    let mhz = band
        .replace(',', ".")
        .parse::<f64>()
        .ok()
        .filter(|m| m.is_finite() && *m > 0.0)?;
    if let Some(name) = band_for_mhz(mhz) {
        return Some(name);
    }
    // N1MM names a band by round MHz a little below it: 10 is 10.1, 5 is 5.06, 24 is 24.89.
    let near = svc_model::band::BAND_NAMES
        .iter()
        .find(|name| band_lower_edge(name).is_some_and(|edge| edge >= mhz && edge <= mhz * 1.1));
    if let Some(name) = near {
        return Some(name);
    }
    let metres = format!("{band}m");
    svc_model::band::BAND_NAMES
        .iter()
        .find(|name| name.eq_ignore_ascii_case(&metres))
        .copied()
}

/// Text with content; empty is absent (the decoder trims already, a caller's struct may not).
fn present(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

/// A number N1MM writes as `0` when it has none: absent then. Only that text: a
/// Sweepstakes check of `00` is a year.
fn nonzero(value: &Option<String>) -> Option<&str> {
    present(value).filter(|v| *v != "0")
}

/// At most 40 characters of a value, for an error message.
fn clip(text: &str) -> String {
    text.chars().take(40).collect()
}

/// Sets a declared field: checked by the field's own rule, or, when the rule refuses it,
/// kept as read under its ADIF name (as an ADIF import keeps it).
fn keep(fields: &mut Fields, field: Field, value: &str) {
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
