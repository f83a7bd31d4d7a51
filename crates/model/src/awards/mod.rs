//! The awards a log is worked toward, reckoned once here for the service, the CLI, MCP and the
//! logbook: DXCC, WAS, WAZ, VUCC and POTA's hunter and activator counts.
//!
//! Every award is a matrix: its rows (an entity, a state, a zone, a grid square, a park), and
//! for each row a mark — `W` worked, `C` confirmed — overall ("mixed"), per band column and
//! per mode class (cw, phone, data: POTA's and ARRL's three, [`PotaMode`]). A column's mark is
//! the award reckoned over that column's contacts alone. The rules other loggers are asked
//! about:
//!
//! - Satellite contacts (`propMode` SAT) are the column `SAT`, never the band they used; they
//!   count for mixed and their mode class.
//! - 60 m is a band column like the others and counts for mixed and its mode class, as ARRL's
//!   mixed and mode DXCC count it; ARRL gives no 60 m band endorsement, which a reader of the
//!   column knows.
//! - A contact with no entity (`dxcc` 0, a /MM or /AM call) counts for no award that needs
//!   one: DXCC and WAS.
//! - A deleted DXCC entity is listed apart ([`Report::deleted`]) and never in a total.
//! - `confirmed` is confirmed by one of the services asked for ([`Service`]), by default LoTW
//!   and paper cards, as ARRL counts.
//! - POTA's activator award has no confirmations: a park is activated (`W`) where 10 valid
//!   contacts were made from it on one UTC day, counted by POTA's rule
//!   ([`ValidContact`], [`POTA_NEEDED`]).

mod entry;
mod query;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::activation::{POTA_NEEDED, ValidContact};
use crate::band::{BAND_NAMES, band_lower_edge, band_name};
use crate::contact::Contact;
use crate::dxcc::Dxcc;
use crate::fields::{Field, Fields, grid};
use crate::mode::PotaMode;
use crate::program::Program;

pub use crate::registry::{ListedEntity, STATES, current_entities, entities, entity, state};
pub use entry::{Entry, Needs, READ, READ_ADIF, READ_BY_EVERY, Reads};
pub use query::{CLASSES, Carried, ModeFilter, Query, SAT, Service, class_name};

/// The entities of WAS: the USA, Alaska and Hawaii.
const WAS_ENTITIES: [u16; 3] = [291, 6, 110];

/// VUCC counts 6 m and up: bands from 50 MHz.
const VUCC_LOWEST_MHZ: f64 = 50.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Award {
    Dxcc,
    Was,
    Waz,
    Vucc,
    PotaHunter,
    PotaActivator,
}

impl Award {
    pub const ALL: [Award; 6] = [
        Award::Dxcc,
        Award::Was,
        Award::Waz,
        Award::Vucc,
        Award::PotaHunter,
        Award::PotaActivator,
    ];

    /// The award's name in the API's path and the CLI.
    pub fn id(self) -> &'static str {
        match self {
            Award::Dxcc => "dxcc",
            Award::Was => "was",
            Award::Waz => "waz",
            Award::Vucc => "vucc",
            Award::PotaHunter => "pota-hunter",
            Award::PotaActivator => "pota-activator",
        }
    }

    pub fn parse(id: &str) -> Option<Award> {
        Award::ALL
            .into_iter()
            .find(|a| a.id().eq_ignore_ascii_case(id.trim()))
    }

    /// What a contact must carry for this award to count it; `None` for DXCC and WAZ, which
    /// take the entity and zone from the call when the contact has none.
    pub fn needs(self) -> Option<Needs> {
        match self {
            Award::Dxcc | Award::Waz => None,
            Award::Was => Some(Needs::State),
            Award::Vucc => Some(Needs::VhfGrid),
            Award::PotaHunter => Some(Needs::Park),
            Award::PotaActivator => Some(Needs::OwnPark),
        }
    }

    /// What the award reads of a contact beside its band, mode, propagation mode and
    /// confirmations; `None` for the activator, which reads each contact (its call and time
    /// make its activations).
    pub fn reads(self) -> Option<Reads> {
        let (fields, call_without, parks): (&'static [Field], _, _) = match self {
            Award::Dxcc => (&[Field::Dxcc], Some(Field::Dxcc), false),
            Award::Was => (&[Field::Dxcc, Field::State], Some(Field::Dxcc), false),
            Award::Waz => (&[Field::Cqz], Some(Field::Cqz), false),
            Award::Vucc => (&[Field::Gridsquare], None, false),
            Award::PotaHunter => (&[], None, true),
            Award::PotaActivator => return None,
        };
        Some(Reads {
            fields,
            call_without,
            parks,
        })
    }

    /// Every award's id, for a message naming them.
    pub fn ids() -> String {
        Award::ALL.map(Award::id).join(", ")
    }

    /// How many rows the award has in all, where there is a fixed list: 340 current DXCC
    /// entities, 50 states, 40 zones.
    fn available(self) -> Option<usize> {
        match self {
            Award::Dxcc => Some(current_entities()),
            Award::Was => Some(STATES.len()),
            Award::Waz => Some(40),
            Award::Vucc | Award::PotaHunter | Award::PotaActivator => None,
        }
    }
}

/// A row's mark in one column: worked, or worked and confirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Mark {
    W,
    C,
}

/// Worked and confirmed rows of one column.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Count {
    pub worked: u32,
    pub confirmed: u32,
}

impl Count {
    fn add(&mut self, mark: Mark) {
        self.worked += 1;
        if mark == Mark::C {
            self.confirmed += 1;
        }
    }
}

/// One row: what it is, and its marks; a column it has no mark in is absent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    /// The entity's number, the state's code, the zone, the grid square, the park reference.
    pub key: String,
    /// The entity's or the state's name; a park's where the service knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub mixed: Mark,
    /// By band column ([`Report::columns`]).
    pub bands: BTreeMap<String, Mark>,
    /// By mode class: `cw`, `phone`, `data`.
    pub modes: BTreeMap<String, Mark>,
}

/// The rows' marks counted, overall and by column.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub mixed: Count,
    pub bands: BTreeMap<String, Count>,
    pub modes: BTreeMap<String, Count>,
}

/// Rows counted apart from the award's: DXCC's deleted entities.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Apart {
    pub rows: Vec<Row>,
    pub totals: Totals,
}

/// Where a log stands with one award (`GET /v1/awards/{award}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub award: Award,
    /// The band column asked for, if one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band: Option<String>,
    /// The mode class or mode asked for, if one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    pub confirmed_by: Vec<Service>,
    /// How many rows the award has in all, where it has a fixed list (DXCC's current
    /// entities, the 50 states, the 40 zones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available: Option<usize>,
    /// The band columns the rows have marks in, low to high, then `SAT`.
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
    pub totals: Totals,
    /// DXCC's deleted entities worked, apart from the rows and totals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleted: Option<Apart>,
}

/// A row's marks as they are taken in.
#[derive(Debug, Default)]
struct Marks {
    mixed: Option<Mark>,
    bands: HashMap<String, Mark>,
    modes: HashMap<PotaMode, Mark>,
}

impl Marks {
    fn add(&mut self, column: &str, class: PotaMode, mark: Mark) {
        // None < W < C: a row keeps its best mark in each column.
        self.mixed = self.mixed.max(Some(mark));
        match self.bands.get_mut(column) {
            Some(band) => *band = (*band).max(mark),
            None => {
                self.bands.insert(column.to_owned(), mark);
            }
        }
        let mode = self.modes.entry(class).or_insert(mark);
        *mode = (*mode).max(mark);
    }
}

/// One award reckoned as contacts are read, so that a log of any size is read once, a page
/// at a time: [`Tally::add`] each, then [`Tally::finish`].
pub struct Tally<'d> {
    award: Award,
    query: Query,
    dxcc: &'d Dxcc,
    rows: HashMap<String, Marks>,
    deleted: HashMap<String, Marks>,
    /// The activator's: each park's valid contacts by UTC day, with the band column of each.
    activations: HashMap<(String, i64), HashMap<ValidContact, String>>,
}

impl<'d> Tally<'d> {
    pub fn new(award: Award, query: Query, dxcc: &'d Dxcc) -> Tally<'d> {
        Tally {
            award,
            query,
            dxcc,
            rows: HashMap::new(),
            deleted: HashMap::new(),
            activations: HashMap::new(),
        }
    }

    pub fn add(&mut self, contact: &Entry) {
        let column = column(contact);
        if self.query.band.as_deref().is_some_and(|b| b != column) {
            return;
        }
        if self
            .query
            .mode
            .as_ref()
            .is_some_and(|m| !m.takes(&contact.mode))
        {
            return;
        }
        let class = PotaMode::of(&contact.mode);
        let mark = if self
            .query
            .confirmed_by
            .iter()
            .any(|s| s.confirms(&contact.fields))
        {
            Mark::C
        } else {
            Mark::W
        };
        match self.award {
            Award::Dxcc => {
                let Some(listed) = self.entity(contact).and_then(entity) else {
                    return;
                };
                let rows = if listed.deleted {
                    &mut self.deleted
                } else {
                    &mut self.rows
                };
                take(rows, &listed.code.to_string(), &column, class, mark);
            }
            Award::Was => {
                let entity = self.entity(contact);
                if let Some(code) = was_state(entity, contact.fields.get(Field::State)) {
                    take(&mut self.rows, code, &column, class, mark);
                }
            }
            Award::Waz => {
                let zone = match contact.fields.get(Field::Cqz) {
                    Some(zone) => zone.parse::<u8>().ok(),
                    None => self.dxcc.resolve(&contact.callsign).map(|e| e.cq_zone),
                };
                if let Some(zone) = zone.filter(|z| (1..=40).contains(z)) {
                    take(&mut self.rows, &zone.to_string(), &column, class, mark);
                }
            }
            Award::Vucc => {
                let vhf = column == SAT || vucc_band(&column);
                let square = contact
                    .fields
                    .get(Field::Gridsquare)
                    .and_then(grid)
                    .filter(|g| g.len() >= 4)
                    .map(|g| g[..4].to_owned());
                if let (true, Some(square)) = (vhf, square) {
                    take(&mut self.rows, &square, &column, class, mark);
                }
            }
            Award::PotaHunter => {
                for park in parks(contact.sig.as_deref(), contact.sig_info.as_deref()) {
                    take(&mut self.rows, &park, &column, class, mark);
                }
            }
            Award::PotaActivator => {
                for park in parks(contact.my_sig.as_deref(), contact.my_sig_info.as_deref()) {
                    let valid = ValidContact::new(
                        contact.time_on,
                        &contact.callsign,
                        &contact.band,
                        &contact.mode,
                    );
                    self.activations
                        .entry((park, valid.day))
                        .or_default()
                        .entry(valid)
                        .or_insert_with(|| column.clone().into_owned());
                }
            }
        }
    }

    fn entity(&self, contact: &Entry) -> Option<u16> {
        contact_entity(self.dxcc, &contact.fields, &contact.callsign)
    }

    pub fn finish(mut self) -> Report {
        for ((park, _), valid) in std::mem::take(&mut self.activations) {
            // A column's mark is its own contacts reaching POTA's count on the day.
            let marks = self.rows.entry(park).or_default();
            if valid.len() >= POTA_NEEDED {
                marks.mixed = Some(Mark::W);
            }
            let mut bands: HashMap<&str, usize> = HashMap::new();
            let mut modes: HashMap<PotaMode, usize> = HashMap::new();
            for (contact, column) in &valid {
                *bands.entry(column).or_default() += 1;
                *modes.entry(contact.mode).or_default() += 1;
            }
            for (column, n) in bands {
                if n >= POTA_NEEDED {
                    marks.bands.insert(column.to_owned(), Mark::W);
                }
            }
            for (class, n) in modes {
                if n >= POTA_NEEDED {
                    marks.modes.insert(class, Mark::W);
                }
            }
        }
        // A park with contacts but no activation day is no row.
        self.rows.retain(|_, marks| marks.mixed.is_some());
        let award = self.award;
        let (rows, totals) = rows_of(award, self.rows);
        let deleted = (award == Award::Dxcc).then(|| {
            let (rows, totals) = rows_of(award, self.deleted);
            Apart { rows, totals }
        });
        let mut seen: HashSet<&str> = rows
            .iter()
            .flat_map(|r| r.bands.keys())
            .map(String::as_str)
            .collect();
        if let Some(apart) = &deleted {
            seen.extend(
                apart
                    .rows
                    .iter()
                    .flat_map(|r| r.bands.keys())
                    .map(String::as_str),
            );
        }
        let columns = BAND_NAMES
            .into_iter()
            .chain([SAT])
            .filter(|c| seen.contains(c))
            .map(str::to_owned)
            .collect();
        Report {
            award,
            band: self.query.band.clone(),
            mode: self.query.mode.as_ref().map(ModeFilter::name),
            confirmed_by: self.query.confirmed_by.clone(),
            available: award.available(),
            columns,
            rows,
            totals,
            deleted,
        }
    }
}

/// Whether VUCC counts a band column: 6 m and up.
fn vucc_band(column: &str) -> bool {
    band_lower_edge(column).is_some_and(|mhz| mhz >= VUCC_LOWEST_MHZ)
}

/// The bands VUCC counts, as ADIF names them; a satellite contact counts on any band.
pub fn vucc_bands() -> impl Iterator<Item = &'static str> {
    BAND_NAMES.into_iter().filter(|band| vucc_band(band))
}

/// A contact's DXCC entity: its own `dxcc` field, else its call's; `None` for none (0, a
/// /MM or /AM call), which counts for no award that needs one.
pub fn contact_entity(dxcc: &Dxcc, fields: &Fields, callsign: &str) -> Option<u16> {
    match fields.get(Field::Dxcc) {
        Some(code) => code.parse().ok(),
        None => dxcc.resolve(callsign).map(|e| e.dxcc),
    }
    .filter(|&code| code != 0)
}

/// The WAS state a contact in `entity` with the `state` value counts for: one of the 50 (DC
/// as Maryland), and only in the USA, Alaska or Hawaii.
pub fn was_state(entity: Option<u16>, state_value: Option<&str>) -> Option<&'static str> {
    if !entity.is_some_and(|e| WAS_ENTITIES.contains(&e)) {
        return None;
    }
    state(state_value?).map(|(code, _)| code)
}

/// The award of `contacts`, read at once.
pub fn reckon<'a>(
    award: Award,
    query: Query,
    dxcc: &Dxcc,
    contacts: impl IntoIterator<Item = &'a Contact>,
) -> Report {
    let mut tally = Tally::new(award, query, dxcc);
    for contact in contacts {
        tally.add(&Entry::from(contact));
    }
    tally.finish()
}

/// A contact's band column: `SAT` for a satellite contact, else its band as ADIF names it.
fn column(contact: &Entry) -> Cow<'static, str> {
    if contact
        .fields
        .get(Field::PropMode)
        .is_some_and(|p| p.eq_ignore_ascii_case(SAT))
    {
        Cow::Borrowed(SAT)
    } else {
        band_name(&contact.band).map_or_else(
            || Cow::Owned(contact.band.to_ascii_lowercase()),
            Cow::Borrowed,
        )
    }
}

/// The parks a `sig`/`sigInfo` pair names: POTA's, each of a two-fer's list.
pub fn parks(sig: Option<&str>, info: Option<&str>) -> Vec<String> {
    match (sig.and_then(Program::from_sig), info) {
        (Some(Program::Pota), Some(info)) => info
            .split(',')
            .map(|p| p.trim().to_ascii_uppercase())
            .filter(|p| !p.is_empty())
            .collect(),
        _ => Vec::new(),
    }
}

fn take(rows: &mut HashMap<String, Marks>, key: &str, column: &str, class: PotaMode, mark: Mark) {
    // Looked up before it is owned: nearly every contact adds to a row already there.
    match rows.get_mut(key) {
        Some(marks) => marks.add(column, class, mark),
        None => rows
            .entry(key.to_owned())
            .or_default()
            .add(column, class, mark),
    }
}

/// The rows in the award's order, named, and their totals.
fn rows_of(award: Award, marks: HashMap<String, Marks>) -> (Vec<Row>, Totals) {
    let mut totals = Totals::default();
    let mut rows: Vec<Row> = marks
        .into_iter()
        .filter_map(|(key, marks)| {
            let mixed = marks.mixed?;
            totals.mixed.add(mixed);
            for (column, mark) in &marks.bands {
                totals.bands.entry(column.clone()).or_default().add(*mark);
            }
            for (class, mark) in &marks.modes {
                totals
                    .modes
                    .entry(class_name(*class).to_owned())
                    .or_default()
                    .add(*mark);
            }
            let name = match award {
                Award::Dxcc => key.parse().ok().and_then(entity).map(|e| e.name.to_owned()),
                Award::Was => state(&key).map(|(_, name)| name.to_owned()),
                _ => None,
            };
            Some(Row {
                key,
                name,
                mixed,
                bands: marks.bands.into_iter().collect(),
                modes: marks
                    .modes
                    .into_iter()
                    .map(|(c, m)| (class_name(c).to_owned(), m))
                    .collect(),
            })
        })
        .collect();
    // Entities by name as ARRL lists them, zones by number, the rest by key.
    match award {
        Award::Dxcc => rows.sort_by(|a, b| a.name.cmp(&b.name).then(a.key.cmp(&b.key))),
        Award::Waz => rows.sort_by_key(|r| r.key.parse::<u8>().unwrap_or(u8::MAX)),
        _ => rows.sort_by(|a, b| a.key.cmp(&b.key)),
    }
    (rows, totals)
}

#[cfg(test)]
mod tests;
