//! Between svc's contacts and ADIF records: what an export writes for a contact, and what an
//! import makes of a record another logger wrote.
//!
//! An import does not apply the server's rules (folders, plausible times, reference formats):
//! it only turns a record into the fields the API takes, and says what it could not keep, so
//! that the server stays the one place those rules live.

use std::borrow::Cow;

use chrono::NaiveDate;
use svc_model::once::content_key;

use super::{Record, modes};
use svc_model::band::{band_for_mhz, band_lower_edge};
use svc_model::contact::{check_seed_text, check_worked_reference};
use svc_model::fields::{FIELDS, Kind, MAX_ADIF_ENTRIES, check_adif_entry};
use svc_model::program::normalize_reference_list;
use svc_model::seed::{self, Seed};
use svc_model::{Contact, ContactInput, Field, Fields, Timestamp};

/// The ADIF record for one stored contact: the seed's fields, then every declared field
/// (model::fields) under its ADIF name, then the contact's other ADIF fields as they were read.
///
/// STATION_CALLSIGN is the call on air (the contact's own station callsign, else
/// `account_callsign`); OPERATOR is who operated, written when the contact says so (a club
/// station worked by a member): POTA and LoTW credit the operator. MY_POTA_REF and POTA_REF
/// repeat the POTA references because POTA's upload checker and some loggers read only those.
/// NOTES stay NOTES and COMMENT stays COMMENT.
pub fn record_for(contact: &Contact, account_callsign: &str) -> Record {
    let mut r = Record::default();
    r.fields.reserve(RECORD_FIELDS);
    for (name, value) in fields_for(contact, account_callsign) {
        r.push(name, value.into_owned());
    }
    r
}

/// Room for the fields of a typical contact's record.
const RECORD_FIELDS: usize = 24;

/// A field of a contact's record as [`fields_for`] makes it: the value is borrowed from the
/// contact where the record carries it as stored.
pub type ContactField<'a> = (&'a str, Cow<'a, str>);

/// The fields of [`record_for`]'s record, in its order, empty values left out: what a
/// contact's record holds, said once, for the record and for [`crate::Writer::contact`], which
/// writes them without making a record (an export writes 100,000 contacts, and a string for
/// each name and value of their records was a good part of its time).
pub fn fields_for<'a>(contact: &'a Contact, account_callsign: &'a str) -> Vec<ContactField<'a>> {
    fn push<'a>(r: &mut Vec<ContactField<'a>>, name: &'a str, value: impl Into<Cow<'a, str>>) {
        let value = value.into();
        if !value.is_empty() {
            r.push((name, value));
        }
    }
    fn text(value: &Option<String>) -> &str {
        value.as_deref().unwrap_or_default()
    }
    let mut r = Vec::with_capacity(RECORD_FIELDS);
    push(&mut r, "CALL", contact.callsign.as_str());
    push(&mut r, "QSO_DATE", contact.time_on.utc_compact_date());
    push(&mut r, "TIME_ON", compact_time(contact.time_on));
    let band = &contact.band;
    if band.bytes().any(|b| b.is_ascii_uppercase()) {
        push(&mut r, "BAND", band.to_ascii_lowercase());
    } else {
        push(&mut r, "BAND", band.as_str());
    }
    if !contact.fields.band_only {
        push(&mut r, "FREQ", format_mhz(contact.frequency));
    }
    let (mode, submode) = modes::to_adif(&contact.mode);
    push(&mut r, "MODE", mode);
    push(&mut r, "SUBMODE", submode.unwrap_or_default());
    let optional = [
        ("RST_SENT", &contact.rst_sent),
        ("RST_RCVD", &contact.rst_received),
        ("NAME", &contact.name),
        ("NOTES", &contact.notes),
    ];
    for (name, value) in optional {
        push(&mut r, name, text(value));
    }
    push(
        &mut r,
        "STATION_CALLSIGN",
        contact
            .station_callsign
            .as_deref()
            .unwrap_or(account_callsign),
    );
    let sigs = [
        (
            "MY_SIG",
            "MY_SIG_INFO",
            "MY_POTA_REF",
            &contact.my_sig,
            &contact.my_sig_info,
        ),
        (
            "SIG",
            "SIG_INFO",
            "POTA_REF",
            &contact.sig,
            &contact.sig_info,
        ),
    ];
    for (sig_name, info_name, pota_name, sig, info) in sigs {
        push(&mut r, sig_name, text(sig));
        push(&mut r, info_name, text(info));
        if sig.as_deref().is_some_and(is_pota) {
            push(&mut r, pota_name, text(info));
        }
    }
    for (def, value) in contact.fields.iter() {
        match def.kind {
            Kind::Instant => {
                if let Ok(at) = Timestamp::parse(def.wire, value) {
                    push(&mut r, "QSO_DATE_OFF", at.utc_compact_date());
                    push(&mut r, def.adif, compact_time(at));
                }
            }
            Kind::Date => push(&mut r, def.adif, value.replace('-', "")),
            _ => push(&mut r, def.adif, value),
        }
    }
    // Another ADIF field of the contact's, unless the record has that field already (as
    // [`Record::get`] finds one: any case, a blank value as none).
    for (name, value) in &contact.fields.adif {
        let taken = r
            .iter()
            .any(|(n, v)| n.eq_ignore_ascii_case(name) && !v.trim().is_empty());
        if !taken {
            push(&mut r, name, value.as_str());
        }
    }
    r
}

/// HHMMSS of an instant, UTC.
fn compact_time(at: Timestamp) -> String {
    let seconds = at.millis().div_euclid(1000).rem_euclid(86_400);
    format!(
        "{:02}{:02}{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// For POTA's upload file: one record per worked park. POTA credits a park-to-park contact
/// with two or more parks (SIG_INFO "US-0001,US-0002") only when each park has its own record,
/// so such a contact becomes one record per park, SIG_INFO and POTA_REF naming that park;
/// every other contact is one record.
pub fn records_per_park(contact: &Contact, account_callsign: &str) -> Vec<Record> {
    let parks: Vec<&str> = match (&contact.sig, &contact.sig_info) {
        (Some(sig), Some(info)) if is_pota(sig) => info
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect(),
        _ => Vec::new(),
    };
    if parks.len() < 2 {
        return vec![record_for(contact, account_callsign)];
    }
    parks
        .into_iter()
        .map(|park| {
            let mut one = contact.clone();
            one.sig_info = Some(park.to_owned());
            record_for(&one, account_callsign)
        })
        .collect()
}

/// What an imported record becomes: a new contact, as the API takes it, with no folder yet
/// (the importer files it), and what the import summary says of the record.
///
/// Of the contact: the frequency is MHz, as ADIF's FREQ always is, whatever its size; the
/// mode is the operator's name for it ([`modes::from_adif`]); the time-on RFC 3339 UTC; the
/// name NAME_INTL (the exact text an ADX file carries), else NAME, and the notes NOTES_INTL,
/// else NOTES; SIG and SIG_INFO, where a record with POTA_REF but no SIG is a POTA contact,
/// and MY_SIG and MY_SIG_INFO, where one with MY_POTA_REF but no MY_SIG is a POTA
/// activation; the station callsign STATION_CALLSIGN, else OPERATOR (who, with no station
/// named, was on the air); the declared fields the record has, checked, and every other field
/// of the record in the `adif` map, as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub contact: ContactInput,
    /// True when the record had BAND but no usable FREQ (absent or 0): the frequency is then
    /// the band's lower edge, which puts the contact in the right band.
    pub band_only: bool,
    /// Declared fields whose value is not what svc's field takes (a GRIDSQUARE of 10
    /// characters, a COMMENT of several lines): kept as read in `adif` and written back so,
    /// named here for the import summary.
    pub kept_as_read: Vec<String>,
    /// What was made of a record that did not say it as ADIF does, for the import summary:
    /// "TIME_ON taken from TIME_OFF" (LogHX writes no TIME_ON), "SIG POTA added to a park's
    /// SIG_INFO" (HAMRS's park-to-park contacts).
    pub changed: Vec<String>,
    /// The names of the record's fields that could not be kept at all (a reference without
    /// its program, a POTA_REF that contradicts SIG_INFO, a field name or value ADIF cannot
    /// carry, a value the contact's own field refuses: a NAME or RST_SENT with a control
    /// character), for the import summary; the contact is made without them. A field that
    /// only repeats a kept value (a POTA_REF equal to the SIG_INFO, NAME beside NAME_INTL) is
    /// not listed.
    pub dropped: Vec<String>,
}

/// Reads one record; an `Err` says what to fix: a missing CALL, QSO_DATE, TIME_ON or MODE, a
/// date or time that is not one, neither FREQ nor BAND, a FREQ that is not a number of MHz,
/// a BAND unknown to the band plan. TIME_ON may be HHMM (seconds 0) or HHMMSS. Does not apply
/// the server's folder rules.
pub fn imported(record: &Record) -> Result<Imported, String> {
    let mut fields = Taken {
        record,
        used: Vec::new(),
    };
    let callsign = fields
        .take(&["CALL"])
        .ok_or(
            "CALL is missing; every record needs the worked station's callsign, e.g. <CALL:5>K1ABC",
        )?
        .to_ascii_uppercase();
    let date = fields
        .take(&["QSO_DATE"])
        .ok_or("QSO_DATE is missing; ADIF writes the UTC date as <QSO_DATE:8>20261101")?;
    let mut changed = Vec::new();
    // LogHX writes TIME_OFF and no TIME_ON: the end of a contact of a minute or two is a
    // better time for it than none.
    let time = match fields.peek(&["TIME_ON"]) {
        Some(_) => fields.take(&["TIME_ON"]),
        None if fields.peek(&["TIME_OFF"]).is_some()
            && fields.peek(&["QSO_DATE_OFF"]).is_none() =>
        {
            changed.push("TIME_ON taken from TIME_OFF".to_owned());
            fields.peek(&["TIME_OFF"])
        }
        None => None,
    }
    .ok_or(
        "TIME_ON is missing; ADIF writes the UTC time as <TIME_ON:6>120030 or <TIME_ON:4>1200",
    )?;
    let time_on = instant("QSO_DATE", &date, "TIME_ON", &time)?;
    let mode = fields
        .take(&["MODE"])
        .ok_or("MODE is missing; ADIF writes e.g. <MODE:3>FT8 or <MODE:2>CW")?;
    let submode = fields.take(&["SUBMODE"]);
    let mode = modes::from_adif(&mode, submode.as_deref());

    let freq = match fields.take(&["FREQ"]) {
        Some(text) => {
            let mhz: f64 = text.parse().map_err(|_| {
                format!("FREQ {text:?} is not a number of MHz; ADIF writes e.g. <FREQ:6>14.074")
            })?;
            if !mhz.is_finite() || mhz < 0.0 {
                return Err(format!(
                    "FREQ {text:?} is not a frequency; ADIF writes MHz, e.g. <FREQ:6>14.074"
                ));
            }
            // Some loggers write 0 for "unknown"; the band, if given, says more.
            (mhz > 0.0).then_some(mhz)
        }
        None => None,
    };
    let band = fields.take(&["BAND"]);
    // FREQ is MHz. A value in no band that is one in Hz or kHz (Cloudlog once wrote 14074000)
    // is read so, and the summary says so.
    let freq = freq.map(|mhz| {
        if band_for_mhz(mhz).is_some() {
            return mhz;
        }
        for (divisor, unit) in [(1e6, "Hz"), (1e3, "kHz")] {
            if band_for_mhz(mhz / divisor).is_some() {
                changed.push(format!("FREQ in {unit} read as MHz"));
                return mhz / divisor;
            }
        }
        mhz
    });
    let (frequency, band_only) = match (freq, band) {
        (Some(mhz), _) => (mhz, false),
        (None, Some(band)) => {
            let edge = band_lower_edge(&band).ok_or_else(|| {
                format!(
                    "BAND {band:?} is not a band svc knows; ADIF names bands like 20m, 2m or 70cm"
                )
            })?;
            (edge, true)
        }
        (None, None) => {
            return Err("neither FREQ nor BAND is given; add the frequency in MHz, e.g. <FREQ:6>14.074, or the band, e.g. <BAND:3>20m".into());
        }
    };

    let mut dropped: Vec<String> = Vec::new();
    let d = &mut dropped;
    let rst_sent = usable(seed::RST_SENT, fields.take(&["RST_SENT"]), d);
    let rst_received = usable(seed::RST_RECEIVED, fields.take(&["RST_RCVD"]), d);
    let name = usable(seed::NAME, fields.take(&["NAME_INTL", "NAME"]), d);
    let notes = usable(seed::NOTES, fields.take(&["NOTES_INTL", "NOTES"]), d);
    let (my_sig, my_sig_info) = fields.sig("MY_SIG", "MY_SIG_INFO", "MY_POTA_REF");
    let (mut sig, sig_info) = fields.sig("SIG", "SIG_INFO", "POTA_REF");
    // HAMRS writes a park-to-park contact's park as SIG_INFO without SIG: in a POTA
    // activation, a SIG_INFO that is a park list is the other activator's park.
    if sig.is_none()
        && my_sig.as_deref().is_some_and(is_pota)
        && let Some(info) = fields.peek(&["SIG_INFO"])
        && normalize_reference_list("SIG_INFO", &info).is_ok()
    {
        sig = Some("POTA".to_owned());
        changed.push("SIG POTA added to a park's SIG_INFO".to_owned());
    }
    let sig_info = match (&sig, sig_info) {
        (Some(_), None) => fields.take(&["SIG_INFO"]),
        (_, info) => info,
    };
    let d = &mut dropped;
    let (sig, sig_info) = usable_program((seed::SIG, sig), (seed::SIG_INFO, sig_info), d);
    // A POTA contact whose worked park is no park reference (or is missing) would be refused
    // whole: it keeps the rest, without the program and the park.
    let (sig, sig_info) = match check_worked_reference(sig.as_deref(), sig_info.as_deref()) {
        Ok(_) => (sig, sig_info),
        Err(_) => {
            d.push(seed::SIG.adif.to_owned());
            if sig_info.is_some() {
                d.push(seed::SIG_INFO.adif.to_owned());
            }
            (None, None)
        }
    };
    let (my_sig, my_sig_info) =
        usable_program((seed::MY_SIG, my_sig), (seed::MY_SIG_INFO, my_sig_info), d);
    let station_callsign = usable(
        seed::STATION_CALLSIGN,
        fields
            .peek(&["STATION_CALLSIGN", "OPERATOR"])
            .map(|c| c.to_ascii_uppercase()),
        d,
    );
    fields.used.push("STATION_CALLSIGN".into());

    let has_intl = record.fields.iter().any(|(n, _)| n.ends_with("_INTL"));
    let mut kept = Fields::default();
    let mut kept_as_read = Vec::new();
    for def in FIELDS {
        if def.kind == Kind::Instant {
            // Time-off is two ADIF fields; without a date of its own it is on the day of
            // time-on, or the next when it would come before time-on (a contact across
            // midnight).
            let Some(time) = fields.take(&[def.adif]) else {
                fields.used.push("QSO_DATE_OFF".into());
                continue;
            };
            let off_date = fields.take(&["QSO_DATE_OFF"]);
            let at = instant(
                "QSO_DATE_OFF",
                off_date.as_deref().unwrap_or(&date),
                def.adif,
                &time,
            )
            .ok()
            .and_then(|t| Timestamp::parse(def.wire, &t).ok())
            .map(
                |t| match (&off_date, Timestamp::parse("timeOn", &time_on)) {
                    (None, Ok(on)) if t.millis() < on.millis() => {
                        Timestamp(t.millis() + 86_400_000)
                    }
                    _ => t,
                },
            );
            match at {
                Some(t) => kept.set(def.field, Some(t.to_string())),
                None => {
                    dropped.push(def.adif.to_owned());
                    if off_date.is_some() {
                        dropped.push("QSO_DATE_OFF".to_owned());
                    }
                }
            }
            continue;
        }
        // Only an ADX file carries _INTL fields: a plain record is not searched for them.
        let intl = has_intl.then(|| format!("{}_INTL", def.adif));
        let names: &[&str] = match &intl {
            Some(intl) => &[intl.as_str(), def.adif],
            None => &[def.adif],
        };
        let Some(mut raw) = fields.take(names) else {
            continue;
        };
        // Power as loggers write it: "50W", "6w".
        if matches!(def.field, Field::TxPwr | Field::RxPwr)
            && let Some(watts) = raw.trim().strip_suffix(['W', 'w'])
            && watts.trim().parse::<f64>().is_ok()
        {
            raw = watts.trim().to_owned();
        }
        match def.check(&raw) {
            Ok(value) => kept.set(def.field, value),
            Err(_) => match check_adif_entry(def.adif, &raw) {
                Ok((name, value)) => {
                    kept.adif.insert(name, value);
                    kept_as_read.push(def.adif.to_owned());
                }
                Err(_) => dropped.push(def.adif.to_owned()),
            },
        }
    }

    for (name, value) in &record.fields {
        let name = name.to_ascii_uppercase();
        if value.trim().is_empty() || fields.used.contains(&name) || dropped.contains(&name) {
            continue;
        }
        if kept.adif.len() < MAX_ADIF_ENTRIES
            && !kept.adif.contains_key(&name)
            && let Ok((name, value)) = check_adif_entry(&name, value)
        {
            kept.adif.insert(name, value);
        } else {
            dropped.push(name);
        }
    }

    kept.band_only = band_only;
    Ok(Imported {
        contact: ContactInput {
            folder_id: String::new(),
            callsign,
            frequency,
            mode,
            time_on,
            rst_sent,
            rst_received,
            name,
            notes,
            sig,
            sig_info,
            my_sig,
            my_sig_info,
            station_callsign,
            activation_id: None,
            fields: kept,
            from_file: true,
        },
        band_only,
        kept_as_read,
        changed,
        dropped,
    })
}

/// `value` when its field of the contact takes it on its own; else `None`, and the field's ADIF
/// name in `dropped`. A value the field refuses (a NAME with a control character of a logger's
/// mojibake, a report with a space) so costs that field, not the contact, which the service
/// would refuse whole. The value is kept as read, as the idempotency key has always taken it.
fn usable(field: Seed, value: Option<String>, dropped: &mut Vec<String>) -> Option<String> {
    let value = value?;
    if check_seed_text(field, &value).is_ok() {
        Some(value)
    } else {
        dropped.push(field.adif.to_owned());
        None
    }
}

/// [`usable`] for a program and its reference, which go or stay together: the service
/// refuses a reference without its program, and a program without the reference it needs.
fn usable_program(
    program: (Seed, Option<String>),
    reference: (Seed, Option<String>),
    dropped: &mut Vec<String>,
) -> (Option<String>, Option<String>) {
    let fits = |(field, value): &(Seed, Option<String>)| {
        value
            .as_deref()
            .is_none_or(|v| check_seed_text(*field, v).is_ok())
    };
    if fits(&program) && fits(&reference) {
        return (program.1, reference.1);
    }
    for (field, value) in [program, reference] {
        if value.is_some() {
            dropped.push(field.adif.to_owned());
        }
    }
    (None, None)
}

/// A stable idempotency key for the contact a record makes: "adif-" and the hex SHA-256 of
/// its normalised fields. The fields are the ones that make the contact, after [`imported`]
/// normalised them (time in RFC 3339, mode as the operator names it), with callsigns and
/// references upper-cased and the frequency written in shortest form, so that re-importing a
/// file, or the same contact exported by another logger with other field order, case or
/// number format, gives the same key and the server stores the contact once.
pub fn idempotency_key(imported: &Imported) -> String {
    content("adif-", &imported.contact, true)
}

/// What tells the QSO a record stands for from others whatever park of the activator's the
/// record names: [`idempotency_key`]'s parts without `MY_SIG_INFO`, so that the records of one
/// QSO in a two-fer's files (one per park, as POTA takes them) meet
/// ([`svc_model::filing::TwoFers`]). Never sent: no contact is stored under it.
pub fn qso_key(imported: &Imported) -> String {
    content("qso-", &imported.contact, false)
}

/// The hash of the contact's parts that [`idempotency_key`] names, its own parks with them
/// when `parks`.
fn content(prefix: &str, imported: &ContactInput, parks: bool) -> String {
    let upper = |v: &Option<String>| v.as_deref().map(str::to_ascii_uppercase);
    let references = |v: &Option<String>| {
        v.as_deref().map(|s| {
            s.split(',')
                .map(|p| p.trim().to_ascii_uppercase())
                .collect::<Vec<_>>()
                .join(",")
        })
    };
    let parts = [
        Some(imported.callsign.to_ascii_uppercase()),
        Some(imported.time_on.clone()),
        Some(format_mhz(imported.frequency)),
        Some(imported.mode.to_ascii_uppercase()),
        upper(&imported.station_callsign),
        upper(&imported.sig),
        references(&imported.sig_info),
        upper(&imported.my_sig),
        references(&imported.my_sig_info).filter(|_| parks),
        imported.rst_sent.clone(),
        imported.rst_received.clone(),
        imported.name.clone(),
        // What the first keys covered as notes: COMMENT, else NOTES, so that a file imported
        // before the two were kept apart still gives the keys it gave then.
        imported
            .fields
            .get(Field::Comment)
            .map(str::to_owned)
            .or_else(|| imported.notes.clone()),
    ];
    content_key(prefix, b"svc-adif-key-1", &parts)
}

/// MHz with at most six decimals (1 Hz) and no trailing zeros: "14.074", "7".
fn format_mhz(mhz: f64) -> String {
    let text = format!("{mhz:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    text.to_owned()
}

fn is_pota(sig: &str) -> bool {
    sig.trim().eq_ignore_ascii_case("POTA")
}

/// RFC 3339 UTC from ADIF's YYYYMMDD and HHMM or HHMMSS, the fields named for the error.
fn instant(date_name: &str, date: &str, time_name: &str, time: &str) -> Result<String, String> {
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let day = (date.len() == 8 && digits(date))
        .then(|| NaiveDate::parse_from_str(date, "%Y%m%d").ok())
        .flatten()
        .ok_or_else(|| {
            format!("{date_name} {date:?} is not a date; ADIF writes YYYYMMDD, e.g. 20261101")
        })?;
    let hms = match (time.len(), digits(time)) {
        (4, true) => Some((&time[..2], &time[2..4], "00")),
        (6, true) => Some((&time[..2], &time[2..4], &time[4..6])),
        _ => None,
    };
    let at = hms
        .and_then(|(h, m, s)| Some((h.parse().ok()?, m.parse().ok()?, s.parse().ok()?)))
        .and_then(|(h, m, s)| day.and_hms_opt(h, m, s))
        .ok_or_else(|| {
            format!(
                "{time_name} {time:?} is not a time of day; ADIF writes UTC HHMMSS or HHMM, e.g. 120030"
            )
        })?;
    Ok(at.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// A record's fields, and which of them went into the contact.
struct Taken<'a> {
    record: &'a Record,
    used: Vec<String>,
}

impl Taken<'_> {
    /// The value of the first of `names` the record has, which counts as used; the others
    /// count as used too when they only repeat that value.
    fn take(&mut self, names: &[&str]) -> Option<String> {
        let (chosen, value) = names
            .iter()
            .find_map(|n| self.record.get(n).map(|v| (*n, v.to_owned())))?;
        for n in names {
            let repeats = self
                .record
                .get(n)
                .is_some_and(|v| v.eq_ignore_ascii_case(&value));
            // The plain field beside an _INTL one is its ASCII spelling (ADX writes both):
            // nothing of it is lost when the exact text is kept.
            let ascii_of_chosen = chosen.strip_suffix("_INTL") == Some(*n);
            if *n == chosen || repeats || ascii_of_chosen {
                self.used.push((*n).to_owned());
            }
        }
        Some(value)
    }

    /// The value of the first of `names` the record has, without using it up.
    fn peek(&self, names: &[&str]) -> Option<String> {
        names
            .iter()
            .find_map(|n| self.record.get(n).map(str::to_owned))
    }

    /// A program and its reference: SIG/SIG_INFO, or the POTA-specific field alone. A
    /// reference without a program is not kept: the API refuses it, and the rest of the
    /// contact is worth importing.
    fn sig(&mut self, sig: &str, info: &str, pota: &str) -> (Option<String>, Option<String>) {
        match self.take(&[sig]) {
            Some(s) if is_pota(&s) => {
                let reference = self.take(&[info, pota]);
                (Some(s), reference)
            }
            Some(s) => {
                let reference = self.take(&[info]);
                (Some(s), reference)
            }
            None => match self.take(&[pota]) {
                Some(reference) => (Some("POTA".to_owned()), Some(reference)),
                None => (None, None),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reader;
    use std::path::PathBuf;
    use svc_model::Timestamp;

    fn contact() -> Contact {
        Contact {
            id: "qso_aaaaaaaaaaaaaaaa".into(),
            folder_id: "fld_aaaaaaaaaaaaaaaa".into(),
            callsign: "K2PTP".into(),
            frequency: 14.074,
            band: "20m".into(),
            mode: "FT4".into(),
            time_on: Timestamp::parse("t", "2026-11-07T15:10:05Z").unwrap(),
            rst_sent: Some("-10".into()),
            rst_received: Some("-12".into()),
            name: Some("Jürgen".into()),
            notes: Some("two\nlines".into()),
            sig: Some("pota".into()),
            sig_info: Some("US-0001, US-0002".into()),
            my_sig: Some("POTA".into()),
            my_sig_info: Some("US-1234".into()),
            activation_id: Some("fld_bbbbbbbbbbbbbbbb".into()),
            station_callsign: None,
            fields: {
                let mut f = Fields::default();
                f.set(Field::Gridsquare, Some("FN31pr".into()));
                f.set(Field::TxPwr, Some("5".into()));
                f.set(Field::TimeOff, Some("2026-11-07T15:11:05Z".into()));
                f.set(Field::Operator, Some("K1ABC".into()));
                f.set(Field::Comment, Some("tnx".into()));
                f.set(Field::QslSdate, Some("2026-11-08".into()));
                f.adif.insert("APP_N1MM_ID".into(), "x1".into());
                f
            },
            created_at: Timestamp(0),
            duplicate_of: None,
            external: Vec::new(),
        }
    }

    fn corpus(name: &str) -> Vec<Record> {
        // The files other loggers wrote, kept at the workspace's root for the integration
        // tests too.
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/adif")
            .join(name);
        let bytes = std::fs::read(&path).unwrap();
        Reader::new(bytes.as_slice())
            .unwrap()
            .filter_map(Result::ok)
            .collect()
    }

    fn imports(name: &str) -> Vec<Imported> {
        corpus(name)
            .iter()
            .map(|r| imported(r).unwrap_or_else(|e| panic!("{name}: {e}")))
            .collect()
    }

    #[test]
    fn a_contact_as_adif() {
        let r = record_for(&contact(), "W1AW");
        let expected = [
            ("CALL", "K2PTP"),
            ("QSO_DATE", "20261107"),
            ("TIME_ON", "151005"),
            ("BAND", "20m"),
            ("FREQ", "14.074"),
            ("MODE", "MFSK"),
            ("SUBMODE", "FT4"),
            ("RST_SENT", "-10"),
            ("RST_RCVD", "-12"),
            ("NAME", "Jürgen"),
            ("NOTES", "two\nlines"),
            ("STATION_CALLSIGN", "W1AW"),
            ("MY_SIG", "POTA"),
            ("MY_SIG_INFO", "US-1234"),
            ("MY_POTA_REF", "US-1234"),
            ("SIG", "pota"),
            ("SIG_INFO", "US-0001, US-0002"),
            ("POTA_REF", "US-0001, US-0002"),
            ("GRIDSQUARE", "FN31pr"),
            ("TX_PWR", "5"),
            ("QSO_DATE_OFF", "20261107"),
            ("TIME_OFF", "151105"),
            ("OPERATOR", "K1ABC"),
            ("COMMENT", "tnx"),
            ("QSLSDATE", "20261108"),
            ("APP_N1MM_ID", "x1"),
        ];
        let got: Vec<(&str, &str)> = r
            .fields
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        assert_eq!(got, expected);

        let mut club = contact();
        club.station_callsign = Some("W1AW/P".into());
        club.sig = None;
        club.sig_info = None;
        club.mode = "SSB".into();
        club.frequency = 7.0;
        club.fields = Fields::default();
        let r = record_for(&club, "K1ABC");
        assert_eq!(r.get("STATION_CALLSIGN"), Some("W1AW/P"));
        assert_eq!(r.get("OPERATOR"), None, "only when the contact names one");
        assert_eq!(r.get("SUBMODE"), None);
        assert_eq!(r.get("FREQ"), Some("7"));
        assert_eq!(r.get("POTA_REF"), None);
    }

    #[test]
    fn a_contact_written_in_place_is_its_record() {
        let mut odd = contact();
        odd.band = "20M".into();
        odd.fields.band_only = true;
        // Names the record has already (one in another case), a blank one, an `_INTL` one.
        for (name, value) in [
            ("gridsquare", "FN42"),
            ("CALL", "K9XYZ"),
            ("APP_BLANK", " "),
            ("QTH_INTL", "Zürich"),
        ] {
            odd.fields.adif.insert(name.into(), value.into());
        }
        let created = chrono::DateTime::from_timestamp(0, 0).unwrap();
        for format in [crate::Format::Adi, crate::Format::Adx] {
            for c in [contact(), odd.clone()] {
                let mut made = crate::Writer::with_format(Vec::new(), created, format).unwrap();
                made.record(&record_for(&c, "W1AW")).unwrap();
                let mut in_place = crate::Writer::with_format(Vec::new(), created, format).unwrap();
                in_place.contact(&c, "W1AW").unwrap();
                let (made, in_place) = (made.finish().unwrap(), in_place.finish().unwrap());
                assert_eq!(
                    String::from_utf8(in_place).unwrap(),
                    String::from_utf8(made).unwrap(),
                    "{format:?}"
                );
            }
        }
        let odd = record_for(&odd, "W1AW");
        assert_eq!(odd.get("BAND"), Some("20m"));
        assert_eq!(odd.get("CALL"), Some("K2PTP"));
        assert_eq!(odd.get("APP_BLANK"), None);
        assert_eq!(odd.get("QTH_INTL"), Some("Zürich"));
    }

    #[test]
    fn park_to_park_splits_per_park() {
        let records = records_per_park(&contact(), "W1AW");
        assert_eq!(records.len(), 2);
        for (r, park) in records.iter().zip(["US-0001", "US-0002"]) {
            assert_eq!(r.get("SIG_INFO"), Some(park));
            assert_eq!(r.get("POTA_REF"), Some(park));
            assert_eq!(r.get("MY_POTA_REF"), Some("US-1234"));
            assert_eq!(r.get("CALL"), Some("K2PTP"));
        }
        let mut single = contact();
        single.sig_info = Some("US-0001".into());
        assert_eq!(records_per_park(&single, "W1AW").len(), 1);
        let mut other = contact();
        other.sig = Some("WWFF".into());
        other.sig_info = Some("KFF-0001,KFF-0002".into());
        let records = records_per_park(&other, "W1AW");
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].get("SIG_INFO"), Some("KFF-0001,KFF-0002"));
    }

    #[test]
    fn an_exported_contact_imports_as_itself() {
        let c = contact();
        let i = imported(&record_for(&c, "W1AW")).unwrap();
        assert_eq!(i.contact.callsign, c.callsign);
        assert_eq!(i.contact.frequency, c.frequency);
        assert!(!i.band_only);
        assert_eq!(i.contact.mode, "FT4");
        assert_eq!(i.contact.time_on, c.time_on.to_string());
        assert_eq!(i.contact.name, c.name);
        assert_eq!(i.contact.notes, c.notes);
        assert_eq!(i.contact.sig_info, c.sig_info);
        assert_eq!(i.contact.my_sig_info, c.my_sig_info);
        assert_eq!(i.contact.station_callsign.as_deref(), Some("W1AW"));
        assert_eq!(
            i.contact.fields, c.fields,
            "every declared field and the adif map"
        );
        assert!(i.dropped.is_empty(), "{:?}", i.dropped);
        assert!(i.kept_as_read.is_empty(), "{:?}", i.kept_as_read);
    }

    #[test]
    fn wsjtx_records() {
        let all = imports("wsjtx.adi");
        assert_eq!(all.len(), 4);
        let first = &all[0];
        assert_eq!(first.contact.callsign, "K1ABC");
        assert_eq!(first.contact.frequency, 14.075123);
        assert_eq!(first.contact.mode, "FT8");
        assert_eq!(first.contact.time_on, "2026-11-01T12:00:30Z");
        assert_eq!(first.contact.rst_sent.as_deref(), Some("-10"));
        assert_eq!(first.contact.rst_received.as_deref(), Some("-12"));
        assert_eq!(first.contact.station_callsign.as_deref(), Some("W1AW"));
        assert!(first.dropped.is_empty(), "{:?}", first.dropped);
        let f = &first.contact.fields;
        assert_eq!(f.get(Field::Gridsquare), Some("FN42"));
        assert!(f.get(Field::MyGridsquare).is_some());
        assert!(f.get(Field::TxPwr).is_some());
        assert!(
            f.get(Field::TimeOff)
                .is_some_and(|t| t >= first.contact.time_on.as_str())
        );
        assert_eq!(all[2].contact.mode, "FT4");
        assert_eq!(
            all[3].contact.fields.get(Field::Comment),
            Some("FT8  Sent: -18  Rcvd: -20")
        );
    }

    #[test]
    fn n1mm_records() {
        let all = imports("n1mm.adi");
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].contact.frequency, 7.025);
        assert_eq!(all[0].contact.mode, "CW");
        assert_eq!(all[0].contact.time_on, "2026-11-21T00:03:12Z");
        assert_eq!(all[0].contact.station_callsign.as_deref(), Some("W1AW"));
        assert!(all[0].dropped.is_empty(), "{:?}", all[0].dropped);
        let f = &all[0].contact.fields;
        for field in [
            Field::TimeOff,
            Field::ContestId,
            Field::FreqRx,
            Field::Cqz,
            Field::Stx,
            Field::Srx,
        ] {
            assert!(f.get(field).is_some(), "{field:?}");
        }
        assert_eq!(
            f.adif.keys().map(String::as_str).collect::<Vec<_>>(),
            [
                "APP_N1MM_CLAIMEDQSO",
                "APP_N1MM_EXCHANGE1",
                "APP_N1MM_ID",
                "APP_N1MM_RADIO_NR"
            ]
        );
        assert_eq!(all[2].contact.frequency, 14.0251);
    }

    #[test]
    fn qrz_records() {
        let all = imports("qrz.adi");
        assert_eq!(all.len(), 3);
        assert_eq!(all[1].contact.mode, "LSB");
        assert_eq!(all[1].contact.time_on, "2026-11-02T22:10:00Z");
        assert_eq!(
            all[1].contact.fields.get(Field::Comment),
            Some("Tom & Jerry's \"club\" <3")
        );
        assert_eq!(all[2].contact.name.as_deref(), Some("Zoë"));
        assert!(all[0].contact.fields.adif.contains_key("APP_QRZLOG_LOGID"));
        assert!(all[0].dropped.is_empty(), "{:?}", all[0].dropped);
    }

    #[test]
    fn adx_records() {
        let all = imports("log.adx");
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].contact.callsign, "K1ABC");
        assert!(all[0].dropped.is_empty(), "{:?}", all[0].dropped);
        assert!(
            all[0]
                .contact
                .fields
                .adif
                .contains_key("APP_MONOLOG_COMPRESSION")
        );
        assert!(all[0].contact.fields.adif.contains_key("EPC"));
        assert_eq!(all[1].contact.mode, "USB");
        assert_eq!(all[1].contact.time_on, "2026-11-03T09:15:00Z");
        let text = |i: &Imported| {
            i.contact
                .fields
                .get(Field::Comment)
                .map(str::to_owned)
                .or(i.contact.notes.clone())
        };
        assert_eq!(text(&all[1]).as_deref(), Some("Fish & <chips>"));
        assert_eq!(text(&all[2]).as_deref(), Some("raw <cdata> & text"));
        assert_eq!(all[2].contact.station_callsign, None);
    }

    #[test]
    fn lower_case_records_with_hhmm_and_band_only() {
        let all = imports("lowercase.adi");
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].contact.time_on, "2026-11-03T14:05:00Z");
        assert_eq!(all[0].contact.mode, "USB");
        let band_only = &all[1];
        assert!(band_only.band_only);
        assert_eq!(band_only.contact.frequency, 7.0);
        assert_eq!(band_only.contact.sig.as_deref(), Some("POTA"));
        assert_eq!(band_only.contact.sig_info.as_deref(), Some("US-2345"));
        assert_eq!(band_only.contact.station_callsign.as_deref(), Some("W1AW"));
        assert!(band_only.dropped.is_empty(), "{:?}", band_only.dropped);
        let text = all[2]
            .contact
            .fields
            .get(Field::Comment)
            .map(str::to_owned)
            .or_else(|| all[2].contact.fields.adif.get("COMMENT").cloned())
            .or(all[2].contact.notes.clone());
        assert_eq!(text.as_deref(), Some("simplex\nfrom the car"));
        assert_eq!(all[2].contact.frequency, 146.52);
    }

    #[test]
    fn other_corpus_records() {
        let utf8 = imports("utf8.adi");
        assert_eq!(utf8[0].contact.name.as_deref(), Some("Jürgen Øster"));
        assert!(utf8[0].dropped.is_empty(), "{:?}", utf8[0].dropped);
        assert_eq!(imports("noheader.adi").len(), 3);
        let p2p = imports("p2p.adi");
        assert_eq!(p2p[0].contact.sig.as_deref(), Some("POTA"));
        assert_eq!(p2p[0].contact.sig_info.as_deref(), Some("US-0001,US-0002"));
        assert_eq!(p2p[0].contact.my_sig_info.as_deref(), Some("US-1234"));
        assert!(p2p[0].dropped.is_empty(), "{:?}", p2p[0].dropped);
        assert_eq!(p2p[1].contact.sig, None);
        assert_eq!(p2p[1].contact.my_sig.as_deref(), Some("POTA"));
        // Records read, and of those the ones that make a contact: in wrong_length.adi one
        // record's CALL runs into the next tag and is lost, in no_length.adi one has no length.
        for (name, read, good) in [
            ("truncated.adi", 2, 2),
            ("wrong_length.adi", 6, 5),
            ("no_length.adi", 3, 2),
        ] {
            let records = corpus(name);
            assert_eq!(records.len(), read, "{name}");
            let made = records.iter().filter(|r| imported(r).is_ok()).count();
            assert_eq!(made, good, "{name}");
        }
    }

    #[test]
    fn the_same_contact_from_two_loggers_has_one_key() {
        let wsjtx = imports("wsjtx.adi");
        let adx = imports("log.adx");
        assert_eq!(idempotency_key(&wsjtx[0]), idempotency_key(&adx[0]));
        assert_ne!(idempotency_key(&wsjtx[0]), idempotency_key(&wsjtx[1]));
        let key = idempotency_key(&wsjtx[0]);
        assert!(key.starts_with("adif-") && key.len() == 69);
        assert!(key.bytes().all(|b| b.is_ascii_graphic()));
        let mut changed = wsjtx[0].clone();
        changed.contact.notes = Some(String::new());
        assert_ne!(idempotency_key(&changed), key, "empty is not absent");
    }

    #[test]
    fn a_qso_in_two_parks_files_has_one_qso_key() {
        let at = |park: &str, call: &str| {
            imported(&record(&[
                ("CALL", call),
                ("QSO_DATE", "20261101"),
                ("TIME_ON", "1200"),
                ("MODE", "CW"),
                ("FREQ", "7.03"),
                ("STATION_CALLSIGN", "K1CLB"),
                ("MY_SIG", "POTA"),
                ("MY_SIG_INFO", park),
                ("MY_POTA_REF", park),
            ]))
            .unwrap()
        };
        let (a, b) = (at("US-1234", "N0AA"), at("US-5678", "N0AA"));
        assert_eq!(qso_key(&a), qso_key(&b));
        assert!(qso_key(&a).starts_with("qso-"));
        assert_ne!(idempotency_key(&a), idempotency_key(&b));
        assert_ne!(qso_key(&a), qso_key(&at("US-1234", "N0AB")));
    }

    fn record(fields: &[(&str, &str)]) -> Record {
        let mut r = Record::default();
        for (n, v) in fields {
            r.push(n, *v);
        }
        r
    }

    #[test]
    fn bad_records_say_what_to_fix() {
        let base = [
            ("CALL", "K1ABC"),
            ("QSO_DATE", "20261101"),
            ("TIME_ON", "1200"),
            ("MODE", "CW"),
            ("FREQ", "7.03"),
        ];
        let with = |name: &str, value: &str| {
            let mut fields: Vec<(&str, &str)> =
                base.iter().copied().filter(|(n, _)| *n != name).collect();
            fields.push((name, value));
            record(&fields)
        };
        let cases = [
            (with("CALL", ""), "CALL is missing"),
            (with("QSO_DATE", ""), "QSO_DATE is missing"),
            (with("TIME_ON", ""), "TIME_ON is missing"),
            (with("MODE", ""), "MODE is missing"),
            (
                with("QSO_DATE", "2026-11-01"),
                "QSO_DATE \"2026-11-01\" is not a date",
            ),
            (with("QSO_DATE", "20261131"), "is not a date"),
            (with("TIME_ON", "2460"), "TIME_ON \"2460\" is not a time"),
            (with("TIME_ON", "12:00"), "is not a time"),
            (with("TIME_ON", "12005"), "is not a time"),
            (with("FREQ", "7,03"), "FREQ \"7,03\" is not a number"),
            (with("FREQ", "-7"), "is not a frequency"),
            (with("FREQ", ""), "neither FREQ nor BAND"),
        ];
        for (r, expected) in cases {
            let e = imported(&r).unwrap_err();
            assert!(e.contains(expected), "{e}");
        }
        let mut r = with("FREQ", "0");
        r.push("BAND", "11m");
        assert!(imported(&r).unwrap_err().contains("BAND \"11m\""));
        let mut r = with("FREQ", "0");
        r.push("BAND", "30M");
        let i = imported(&r).unwrap();
        assert!(i.band_only);
        assert_eq!(i.contact.frequency, 10.1);
    }

    #[test]
    fn a_reference_without_a_program_is_dropped() {
        let r = record(&[
            ("CALL", "K1ABC"),
            ("QSO_DATE", "20261101"),
            ("TIME_ON", "120000"),
            ("MODE", "CW"),
            ("FREQ", "7.03"),
            ("SIG_INFO", "US-0001"),
            ("SIG", "WWFF"),
            ("POTA_REF", "US-0002"),
            ("COMMENT", "a"),
            ("NOTES", "b"),
            ("OPERATOR", "K1ABC"),
        ]);
        let i = imported(&r).unwrap();
        assert_eq!(i.contact.sig.as_deref(), Some("WWFF"));
        assert_eq!(i.contact.sig_info.as_deref(), Some("US-0001"));
        assert_eq!(i.contact.fields.get(Field::Comment), Some("a"));
        assert_eq!(i.contact.notes.as_deref(), Some("b"), "NOTES stay NOTES");
        assert_eq!(i.contact.station_callsign.as_deref(), Some("K1ABC"));
        assert_eq!(i.contact.fields.get(Field::Operator), Some("K1ABC"));
        assert_eq!(i.dropped, ["POTA_REF"]);
        let r = record(&[
            ("CALL", "K1ABC"),
            ("QSO_DATE", "20261101"),
            ("TIME_ON", "120000"),
            ("MODE", "CW"),
            ("FREQ", "7.03"),
            ("MY_SIG_INFO", "US-0001"),
        ]);
        let i = imported(&r).unwrap();
        assert_eq!((i.contact.my_sig, i.contact.my_sig_info), (None, None));
        assert_eq!(i.dropped, ["MY_SIG_INFO"]);
    }

    #[test]
    fn an_unusable_value_costs_its_field_not_the_contact() {
        // Control characters as Ham Radio Deluxe's ADX carries them from a logger's mojibake,
        // in fields of the contact's own, of the declared table and of the adif map.
        let r = record(&[
            ("CALL", "DL1ABC"),
            ("QSO_DATE", "20261101"),
            ("TIME_ON", "120000"),
            ("MODE", "SSB"),
            ("FREQ", "14.2"),
            ("NAME", "J\u{1}rgen"),
            ("RST_SENT", "5 9"),
            ("RST_RCVD", "57"),
            ("NOTES", "line one\r\nline\ttwo"),
            ("SIG", "WW\u{7f}FF"),
            ("SIG_INFO", "DLFF-0001"),
            ("STATION_CALLSIGN", "W1AW\u{2}"),
            ("QTH", "K\u{1b}ln"),
            ("APP_HRD_MEMO", "a\u{0}b"),
            ("GRIDSQUARE", "JO30"),
        ]);
        let i = imported(&r).unwrap();
        assert_eq!(i.contact.callsign, "DL1ABC");
        assert_eq!(i.contact.name, None);
        assert_eq!(i.contact.rst_sent, None);
        assert_eq!(i.contact.rst_received.as_deref(), Some("57"));
        // Tabs and line breaks are no fault.
        assert_eq!(i.contact.notes.as_deref(), Some("line one\r\nline\ttwo"));
        assert_eq!((i.contact.sig, i.contact.sig_info), (None, None));
        assert_eq!(i.contact.station_callsign, None);
        assert_eq!(i.contact.fields.get(Field::Qth), None);
        assert_eq!(i.contact.fields.get(Field::Gridsquare), Some("JO30"));
        assert!(!i.contact.fields.adif.contains_key("APP_HRD_MEMO"));
        assert_eq!(
            i.dropped,
            [
                "RST_SENT",
                "NAME",
                "SIG",
                "SIG_INFO",
                "STATION_CALLSIGN",
                "QTH",
                "APP_HRD_MEMO"
            ]
        );
        // Each dropped value is one the service refuses on its own.
        for (field, raw) in [(seed::NAME, "J\u{1}rgen"), (seed::RST_SENT, "5 9")] {
            assert!(check_seed_text(field, raw).is_err(), "{raw:?}");
        }
        // A reference that breaks its rule takes its program with it: the service refuses a
        // program that needs a reference without one. A POTA contact's park must be one.
        let mut r = r.clone();
        r.set("SIG", "POTA");
        for (info, kept) in [
            ("US-0001\u{3}", None),
            ("the park by the lake", None),
            ("us-0001, US-0002", Some("us-0001, US-0002")),
        ] {
            r.set("SIG_INFO", info);
            let i = imported(&r).unwrap();
            let dropped: Vec<&str> = i.dropped.iter().map(String::as_str).collect();
            if kept.is_some() {
                assert_eq!(i.contact.sig.as_deref(), Some("POTA"), "{info}");
                assert_eq!(dropped[..2], ["RST_SENT", "NAME"], "{info}");
                assert_ne!(dropped[2], "SIG", "{info}");
            } else {
                assert_eq!(i.contact.sig, None, "{info}");
                assert_eq!(
                    dropped[..4],
                    ["RST_SENT", "NAME", "SIG", "SIG_INFO"],
                    "{info}"
                );
            }
            assert_eq!(i.contact.sig_info.as_deref(), kept, "{info}");
        }
    }
}
