//! A contest log's stored contacts as its contest reads them: each one's exchanges, the log's
//! standing (QSOs, points, multipliers, claimed score) and its Cabrillo 3.0 file, as the
//! contest robots take it (WWROF's specification): the header from the log, QSO lines with
//! the frequency in whole kHz up to 10 m and the band's designator above, CW/PH/FM/RY/DG, and
//! both exchanges in full, every word of them.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::ApiError;
use super::contact::Contact;
use super::contest::{
    CabrilloMode, Check, Contest, ContestLog, Scored, Tally, Whereabouts, cabrillo_frequency,
};
use super::dxcc::Continent;
use super::fields::Field;

/// Contacts a refusal names by id at most; it counts the rest.
const NAMED: usize = 5;

/// A contact's value of an exchange field, by its ADIF name: the report and name every
/// contact has, a declared field, or the same name in the `adif` map (a log imported before
/// svc named the field).
fn value_of(c: &Contact, adif: &str) -> Option<String> {
    let value = match adif {
        "RST_RCVD" => c.rst_received.clone(),
        "NAME" => c.name.clone(),
        _ => Field::by_adif(adif)
            .and_then(|f| c.fields.get(f).map(str::to_owned))
            .or_else(|| c.fields.adif.get(adif).cloned()),
    };
    value.filter(|v| !v.trim().is_empty())
}

/// The received exchange of `c`, by ADIF field, as the contest reads each value: the
/// contact's field, or the word of SRX_STRING in its place when a log kept the exchange as one
/// string. A field it lacks is left out, and so is a value the contest does not take.
pub fn received<'c>(contest: &'c Contest, c: &Contact) -> Vec<(&'c str, String)> {
    let typed: Vec<&str> = c
        .fields
        .get(Field::SrxString)
        .map(|s| s.split_whitespace().collect())
        .unwrap_or_default();
    let whole = typed.len() == contest.exchange.len();
    contest
        .exchange
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let value = value_of(c, &f.field)
                .and_then(|v| f.read(&v))
                .or_else(|| whole.then(|| f.read(typed[i])).flatten())?;
            Some((f.field.as_str(), value))
        })
        .collect()
}

/// Where the worked station is, from the entity fields the service filled when it was logged.
pub fn whereabouts(c: &Contact) -> Option<Whereabouts> {
    Some(Whereabouts {
        dxcc: c.fields.get(Field::Dxcc)?.parse().ok()?,
        continent: Continent::parse(c.fields.get(Field::Cont)?)?,
        cq_zone: c.fields.get(Field::Cqz)?.parse().ok()?,
    })
}

/// Where the log stands: what `svc contest show` prints and Cabrillo's CLAIMED-SCORE says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Standing {
    /// Contacts counted: every one but the duplicates.
    pub qsos: u64,
    pub dupes: u64,
    pub points: u64,
    pub multipliers: u64,
    pub score: u64,
    /// Contacts by band, duplicates included.
    pub bands: BTreeMap<String, u64>,
    /// Who made the contacts: their OPERATOR, else the log's callsign.
    pub operators: Vec<String>,
}

/// The standing of a log of `contest` sent under `callsign` at `own`, from its contacts in the
/// order they were made.
pub fn standing(
    contest: &Contest,
    callsign: &str,
    own: Option<Whereabouts>,
    contacts: &[Contact],
) -> Standing {
    let mut tally = Tally::new(contest, own);
    let mut dupes = 0;
    let mut bands = BTreeMap::new();
    let mut operators = BTreeSet::new();
    for c in contacts {
        let received = received(contest, c);
        let brought = tally.add(&Scored {
            callsign: &c.callsign,
            band: &c.band,
            mode: &c.mode,
            received: &received,
            worked: whereabouts(c),
        });
        dupes += u64::from(brought.dupe);
        *bands.entry(c.band.clone()).or_insert(0) += 1;
        operators.insert(operator(c, callsign));
    }
    Standing {
        qsos: tally.qsos(),
        dupes,
        points: tally.points(),
        multipliers: tally.multipliers(),
        score: tally.score(),
        bands,
        operators: operators.into_iter().collect(),
    }
}

fn operator(c: &Contact, callsign: &str) -> String {
    c.fields
        .get(Field::Operator)
        .map(str::to_owned)
        .or_else(|| c.fields.adif.get("OPERATOR").cloned())
        .unwrap_or_else(|| callsign.to_owned())
}

/// What a Cabrillo file needs beyond the log: what the request adds or overrides, and who
/// writes it.
#[derive(Debug, Clone, Default)]
pub struct Extra {
    /// Categories as given to the export (`power=LOW`), over the log's.
    pub categories: BTreeMap<String, String>,
    /// Header lines as given to the export (`name`, `email`…), over the log's.
    pub cabrillo: BTreeMap<String, String>,
    pub soapbox: Vec<String>,
    /// CREATED-BY: the program and its version.
    pub created_by: String,
    /// GRID-LOCATOR: the station's Maidenhead square (4 or 6 characters), as the station
    /// profile of the log's call gives it.
    pub grid_locator: Option<String>,
}

/// The log's Cabrillo file: `contacts` in any order (they are written by time), the log's
/// categories with what `extra` gives over them, and those the log shows (operator, band,
/// mode) worked out when not given. Refused, saying what to give, without CATEGORY-POWER, and
/// when a contact lacks part of an exchange (a robot would refuse the file).
pub fn write(
    contest: &Contest,
    log: &ContestLog,
    callsign: &str,
    own: Option<Whereabouts>,
    contacts: &mut [Contact],
    extra: &Extra,
) -> Result<String, ApiError> {
    contacts.sort_by(|a, b| a.time_on.cmp(&b.time_on).then(a.id.cmp(&b.id)));
    let standing = standing(contest, callsign, own, contacts);
    let mut categories = log.categories.clone();
    categories.extend(extra.categories.clone());
    // Two transmitters are a multi-operator station's (multi-two), whoever logged.
    let transmitter = category_transmitter(contacts);
    let derived = [
        (
            "operator",
            if standing.operators.len() > 1 || transmitter == "TWO" {
                "MULTI-OP"
            } else {
                "SINGLE-OP"
            }
            .to_owned(),
        ),
        ("band", category_band(contacts)),
        ("mode", category_mode(contacts)),
        ("transmitter", transmitter),
    ];
    for (kind, value) in derived {
        categories.entry(kind.to_owned()).or_insert(value);
    }
    if !categories.contains_key("power") {
        return Err(ApiError::field(
            "categories",
            "Cabrillo's CATEGORY-POWER is not known: give the power category, HIGH, LOW or QRP (svc export cabrillo --category power=LOW), or start the log with it",
        ));
    }
    // A two-transmitter log says on each QSO line which transmitter made it (0 or 1).
    let two = categories.get("transmitter").map(String::as_str) == Some("TWO");
    if two {
        transmitter_ids(contacts)?;
    }
    let mut lines = Vec::with_capacity(contacts.len());
    let mut incomplete = Vec::new();
    for c in contacts.iter() {
        match qso_line(contest, log, callsign, c, two) {
            Some(line) => lines.push(line),
            None => incomplete.push(c),
        }
    }
    if let Some(first) = incomplete.first() {
        let labels: Vec<&str> = contest.exchange.iter().map(|f| f.label.as_str()).collect();
        return Err(ApiError::field(
            "contacts",
            format!(
                "{} of {} {} part of an exchange, which a contest robot refuses: {}; {}'s exchange is {} each way (the serial number sent is stx); edit them, e.g. {} first",
                if incomplete.len() == 1 {
                    "1 contact".to_owned()
                } else {
                    format!("{} contacts", incomplete.len())
                },
                log.contest_id,
                if incomplete.len() == 1 {
                    "lacks"
                } else {
                    "lack"
                },
                named(&incomplete),
                contest.name,
                labels.join(", "),
                first.id
            ),
        ));
    }

    let mut out = String::with_capacity(200 + lines.iter().map(|l| l.len() + 2).sum::<usize>());
    let mut tag = |name: &str, value: &str| {
        let _ = if value.is_empty() {
            write!(out, "{name}:\r\n")
        } else {
            write!(out, "{name}: {value}\r\n")
        };
    };
    tag("START-OF-LOG", "3.0");
    tag("CALLSIGN", callsign);
    tag("CONTEST", &contest.id);
    for (kind, _) in super::contest::CATEGORIES {
        if let Some(value) = categories.get(*kind) {
            tag(&format!("CATEGORY-{}", kind.to_ascii_uppercase()), value);
        }
    }
    tag("CLAIMED-SCORE", &standing.score.to_string());
    tag("OPERATORS", &standing.operators.join(" "));
    let mut header = log.cabrillo.clone();
    header.extend(extra.cabrillo.clone());
    // LOCATION, where ARRL's robots look for a W or VE station's section (DX elsewhere): the
    // section the log sends says it, unless the log or the request gives another.
    if !header.contains_key("location")
        && let Some(section) = sent_section(contest, log)
    {
        header.insert("location".to_owned(), section);
    }
    for (name, _) in super::contest::HEADER {
        let Some(value) = header.get(*name) else {
            continue;
        };
        for line in value.lines() {
            tag(&name.to_ascii_uppercase(), line);
        }
    }
    if let Some(grid) = &extra.grid_locator {
        tag("GRID-LOCATOR", grid);
    }
    for line in &extra.soapbox {
        tag("SOAPBOX", line);
    }
    tag("CREATED-BY", &extra.created_by);
    for line in &lines {
        tag("QSO", line);
    }
    tag("END-OF-LOG", "");
    Ok(out)
}

/// A Maidenhead locator as Cabrillo's GRID-LOCATOR takes it: its square and subsquare
/// (`FN31pr`), or its square alone (`FN31`); `None` for a locator of neither.
pub fn grid_locator(locator: &str) -> Option<String> {
    let locator = locator.trim();
    let square = super::locator::square(locator)?;
    let sub = locator
        .get(4..6)
        .filter(|s| s.bytes().all(|b| b.is_ascii_alphabetic()));
    Some(match sub {
        Some(sub) => format!("{square}{}", sub.to_ascii_lowercase()),
        None => square,
    })
}

/// The section (or `DX`) in the exchange the log sends, when its contest sends one.
fn sent_section(contest: &Contest, log: &ContestLog) -> Option<String> {
    contest
        .sent_fields()
        .zip(log.exchange.split_whitespace())
        .find(|(f, _)| {
            f.check
                .iter()
                .any(|c| matches!(c, Check::Section | Check::SectionOrDx))
        })
        .map(|(_, word)| word.to_owned())
}

/// The contacts a refusal names, the first [`NAMED`] of them: `qso_… (K1ABC 2026-06-27T…)`,
/// then how many more.
fn named(contacts: &[&Contact]) -> String {
    let mut text = contacts
        .iter()
        .take(NAMED)
        .map(|c| format!("{} ({} {})", c.id, c.callsign, c.time_on))
        .collect::<Vec<_>>()
        .join(", ");
    let more = contacts.len().saturating_sub(NAMED);
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    text
}

/// Refused, naming them, when contacts of a two-transmitter log lack their transmitter id.
fn transmitter_ids(contacts: &[Contact]) -> Result<(), ApiError> {
    let lacking: Vec<&Contact> = contacts
        .iter()
        .filter(|c| c.fields.get(Field::Transmitter).is_none())
        .collect();
    let Some(first) = lacking.first() else {
        return Ok(());
    };
    Err(ApiError::field(
        "contacts",
        format!(
            "a CATEGORY-TRANSMITTER TWO log names the transmitter (0 or 1) of each QSO, and {} of its contacts have none: {}; log from each transmitter's logbook with svc --transmitter 0 or 1, or set it on them, e.g. svc contacts edit {} --transmitter 0",
            lacking.len(),
            named(&lacking),
            first.id
        ),
    ))
}

/// One QSO line after `QSO: `, its columns aligned as the specification's examples are,
/// ending with the transmitter id when `two` (a two-transmitter log); `None` when the
/// contact lacks part of an exchange.
fn qso_line(
    contest: &Contest,
    log: &ContestLog,
    callsign: &str,
    c: &Contact,
    two: bool,
) -> Option<String> {
    let mode = CabrilloMode::of(&c.mode);
    let sent: Vec<String> = match c.fields.get(Field::StxString) {
        Some(sent) if sent.split_whitespace().count() == contest.exchange.len() => {
            sent.split_whitespace().map(str::to_owned).collect()
        }
        _ => contest
            .sent_exchange(
                &log.exchange,
                c.fields.get(Field::Stx),
                c.rst_sent.as_deref(),
                &c.mode,
            )?
            .split_whitespace()
            .map(str::to_owned)
            .collect(),
    };
    let by_field = received(contest, c);
    let mut rcvd = Vec::with_capacity(contest.exchange.len());
    for field in &contest.exchange {
        match by_field.iter().find(|(name, _)| *name == field.field) {
            Some((_, v)) => rcvd.push(v.clone()),
            None if field.optional => rcvd.push("DX".to_owned()),
            None => return None,
        }
    }
    if sent.len() != rcvd.len() {
        return None;
    }
    let mut line = format!(
        "{:>5} {} {} {:<13} {} {:<13} {}",
        cabrillo_frequency(c.frequency, &c.band),
        mode.as_str(),
        c.time_on.cabrillo(),
        callsign,
        sent.join(" "),
        c.callsign,
        rcvd.join(" ")
    );
    if two {
        line.push(' ');
        line.push_str(c.fields.get(Field::Transmitter)?);
    }
    Some(line)
}

/// CATEGORY-TRANSMITTER as the contacts show it: TWO when they name two transmitters, else
/// ONE.
fn category_transmitter(contacts: &[Contact]) -> String {
    let mut ids = contacts
        .iter()
        .filter_map(|c| c.fields.get(Field::Transmitter));
    let first = ids.next();
    if first.is_some_and(|first| ids.any(|id| id != first)) {
        "TWO".to_owned()
    } else {
        "ONE".to_owned()
    }
}

/// CATEGORY-BAND for a log of one band Cabrillo names (`20M`, `2M`, `432`), else ALL.
fn category_band(contacts: &[Contact]) -> String {
    let bands: BTreeSet<&str> = contacts.iter().map(|c| c.band.as_str()).collect();
    let named = match bands.iter().next() {
        Some(band) if bands.len() == 1 => {
            let upper = band.to_ascii_uppercase();
            // Up to 2 m in metres, as the bands are named; above, by the QSO lines' designator.
            if upper.ends_with('M')
                && !upper.ends_with("CM")
                && !upper.ends_with("MM")
                && upper != "1.25M"
            {
                upper
            } else {
                cabrillo_frequency(0.0, band)
            }
        }
        _ => return "ALL".to_owned(),
    };
    let known = super::contest::CATEGORIES
        .iter()
        .find(|(kind, _)| *kind == "band")
        .is_some_and(|(_, values)| values.contains(&named.as_str()));
    if known { named } else { "ALL".to_owned() }
}

/// CATEGORY-MODE for the modes the log holds: one of them, or MIXED.
fn category_mode(contacts: &[Contact]) -> String {
    let modes: BTreeSet<CabrilloMode> =
        contacts.iter().map(|c| CabrilloMode::of(&c.mode)).collect();
    match modes.iter().next() {
        Some(mode) if modes.len() == 1 => match mode {
            CabrilloMode::CW => "CW",
            CabrilloMode::PH => "SSB",
            CabrilloMode::FM => "FM",
            CabrilloMode::RY => "RTTY",
            CabrilloMode::DG => "DIGI",
        },
        _ => "MIXED",
    }
    .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_locator_is_a_square_or_a_subsquare() {
        assert_eq!(grid_locator("FN31pr").as_deref(), Some("FN31pr"));
        assert_eq!(grid_locator(" fn31PR ").as_deref(), Some("FN31pr"));
        assert_eq!(grid_locator("FN31pr45").as_deref(), Some("FN31pr"));
        assert_eq!(grid_locator("fn31").as_deref(), Some("FN31"));
        assert_eq!(grid_locator("FN"), None);
        assert_eq!(grid_locator("K1ABC"), None);
    }
}
