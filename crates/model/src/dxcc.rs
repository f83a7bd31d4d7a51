//! Who a callsign belongs to: its DXCC entity, continent and CQ and ITU zones, as N1MM+ and
//! TLF show them while a call is typed, read from AD1C's country file `cty.csv`
//! (<https://www.country-files.com>).
//!
//! The file has one line per entity:
//! `PREFIX,Name,DXCC,Continent,CQ zone,ITU zone,Lat,Lon,UTC offset,list;` where the list holds
//! prefixes and `=CALL` exact calls separated by spaces, each with optional overrides: `(cq)`,
//! `[itu]`, `<lat/lon>`, `{continent}`, `~utc~`. The primary prefix is only a label (`3D2/r`
//! for Rotuma, whose calls are all `=` entries); the list alone says what matches.
//!
//! A primary prefix starting with `*` (`*IG9` African Italy, `*GM/s` Shetland, `*4U1V`) is an
//! entity of the WAE list only. Its DXCC column already holds its DXCC entity's number (Italy's
//! 248 for IG9), so these lines are kept and read as that entity, under that entity's name:
//! the ADIF `DXCC` of a contact is the DXCC entity's, as N1MM+ logs it, while the line's own
//! continent and zones are where the station is (IG9 is in Africa, CQ 33, not Europe). Where a
//! call is listed both under a WAE line and under its DXCC entity (`=4U1VIC`), the DXCC line's
//! values win.

use std::collections::HashMap;

use super::fields::{Field, Fields};
use super::packed::Packed;

/// The contact fields a callsign's entity gives, [`Dxcc::values`] in this order.
pub const ENTITY_FIELDS: [Field; 5] = [
    Field::Dxcc,
    Field::Country,
    Field::Cont,
    Field::Cqz,
    Field::Ituz,
];

/// AD1C's country file as svc ships it: release 2023-05-02, see `data/cty.LICENSE`.
pub static SHIPPED: &str = include_str!("../data/cty.csv");

/// Trailing parts that say how the station operates, not where: `/P`ortable, `/M`obile,
/// `/A`lternate address, `/B`eacon, `/J`amboree, `/R`over, `/QRP`, `/LH` lighthouse. Some are
/// prefixes too (M is England, B China, R Russia), which is why they are known by name rather
/// than read as a location.
const SUFFIXES: [&str; 9] = ["P", "M", "A", "B", "J", "R", "QRP", "QRPP", "LH"];

/// Maritime and aeronautical mobile: the station is in no DXCC entity.
const NO_ENTITY_SUFFIXES: [&str; 2] = ["MM", "AM"];

/// A continent as ADIF's `CONT` field names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Continent {
    Africa,
    Antarctica,
    Asia,
    Europe,
    NorthAmerica,
    Oceania,
    SouthAmerica,
}

impl Continent {
    pub const ALL: [Continent; 7] = [
        Continent::Africa,
        Continent::Antarctica,
        Continent::Asia,
        Continent::Europe,
        Continent::NorthAmerica,
        Continent::Oceania,
        Continent::SouthAmerica,
    ];

    /// The two-letter code of ADIF and cty.csv: `AF`, `AN`, `AS`, `EU`, `NA`, `OC`, `SA`.
    pub fn as_str(self) -> &'static str {
        match self {
            Continent::Africa => "AF",
            Continent::Antarctica => "AN",
            Continent::Asia => "AS",
            Continent::Europe => "EU",
            Continent::NorthAmerica => "NA",
            Continent::Oceania => "OC",
            Continent::SouthAmerica => "SA",
        }
    }

    /// Reads a two-letter code, upper-case as the files write it.
    pub fn parse(code: &str) -> Option<Continent> {
        Continent::ALL.into_iter().find(|c| c.as_str() == code)
    }
}

/// Where a callsign's station is: what a logger shows beside the call and logs as ADIF
/// `DXCC`, `COUNTRY`, `CONT`, `CQZ` and `ITUZ`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entity<'a> {
    /// ADIF's DXCC entity number (291 United States, 1 Canada).
    pub dxcc: u16,
    /// The DXCC entity's name as the country file writes it.
    pub name: &'a str,
    pub continent: Continent,
    pub cq_zone: u8,
    pub itu_zone: u8,
    /// Where the country file puts the entity (its centre, or its capital), for the map and
    /// a bearing when the station's own grid is not known: latitude north and longitude east
    /// positive, in degrees.
    pub lat: f64,
    pub lon: f64,
}

/// The entity of one line: number and DXCC name (a WAE line's is its DXCC entity's).
#[derive(Debug)]
struct Row {
    dxcc: u16,
    name: String,
    /// The line's place, longitude east positive (the file writes west positive).
    lat: f32,
    lon: f32,
}

/// What a listed prefix or call gives: its line, with the line's continent and zones after the
/// entry's own overrides.
#[derive(Debug, Clone, Copy)]
struct Hit {
    /// Some 400 lines: a `u16` keeps a hit at 6 bytes.
    row: u16,
    continent: Continent,
    cq_zone: u8,
    itu_zone: u8,
}

/// Texts and what each gives, sorted by text. The country file has some 27,000 prefixes and
/// calls, and the logbook keeps them all the time it runs: packed, half a megabyte, four times
/// that as a map of owned strings; a lookup is a binary search of 15 steps, well under a
/// microsecond.
#[derive(Debug, Default)]
struct Table(Packed<Hit>);

impl Table {
    /// The table of `pairs`; of a text given more than once, its first hit is kept.
    fn new(mut pairs: Vec<(&str, Hit)>) -> Table {
        // A stable sort keeps equal texts in the order given, and dedup keeps the first.
        pairs.sort_by(|a, b| a.0.cmp(b.0));
        pairs.dedup_by(|later, first| later.0 == first.0);
        Table(Packed::new(pairs))
    }

    fn get(&self, key: &str) -> Option<Hit> {
        let i = self.0.search(|text, _| text.cmp(key)).ok()?;
        Some(self.0.get(i).1)
    }

    fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
}

/// A country file read into packed tables, built once.
#[derive(Debug)]
pub struct Dxcc {
    rows: Vec<Row>,
    /// Prefixes (`KH6`, `VE3`): a call matches the longest one it starts with.
    prefixes: Table,
    /// `=` calls, matched whole before any prefix.
    calls: Table,
    /// The length of the longest prefix, where the longest-prefix search starts.
    longest_prefix: usize,
}

/// One line as read, before its entries go into the maps.
struct Line<'t> {
    number: usize,
    wae: bool,
    dxcc: u16,
    name: &'t str,
    lat: f32,
    lon: f32,
    /// (text, exact, overrides applied)
    entries: Vec<(String, bool, Hit)>,
}

impl Dxcc {
    /// The country file shipped in the binary (AD1C's, release 2023-05-02). It is parsed on each
    /// call, a few milliseconds: build it once and keep it.
    pub fn shipped() -> Dxcc {
        // The shipped file is fixed at build time and the tests load it.
        Dxcc::load(SHIPPED).expect("the shipped cty.csv parses")
    }

    /// Reads a `cty.csv`. A malformed line is refused with its line number and what is wrong
    /// with it, as a file another program wrote is best fixed by its user.
    pub fn load(text: &str) -> Result<Dxcc, String> {
        let mut lines = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let number = index + 1;
            lines.push(
                parse_line(number, lines.len(), line)
                    .map_err(|e| format!("cty.csv line {number}: {e}"))?,
            );
        }
        if lines.is_empty() {
            return Err("cty.csv holds no entity line".into());
        }
        let dxcc_names: HashMap<u16, &str> = lines
            .iter()
            .filter(|l| !l.wae)
            .map(|l| (l.dxcc, l.name))
            .collect();
        let mut rows = Vec::with_capacity(lines.len());
        for line in &lines {
            let name = if line.wae {
                dxcc_names.get(&line.dxcc).copied().ok_or_else(|| {
                    format!(
                        "cty.csv line {}: the WAE entity {} counts for DXCC {}, which no line names",
                        line.number, line.name, line.dxcc
                    )
                })?
            } else {
                line.name
            };
            rows.push(Row {
                dxcc: line.dxcc,
                name: name.to_owned(),
                lat: line.lat,
                lon: line.lon,
            });
        }
        // DXCC lines first, so that a call listed under a WAE line as well keeps its DXCC
        // line's values; within each kind the first listing wins.
        let (mut prefixes, mut calls) = (Vec::new(), Vec::new());
        let mut longest_prefix = 0;
        for wae in [false, true] {
            for line in lines.iter().filter(|l| l.wae == wae) {
                for (text, exact, hit) in &line.entries {
                    if *exact {
                        calls.push((text.as_str(), *hit));
                    } else {
                        longest_prefix = longest_prefix.max(text.len());
                        prefixes.push((text.as_str(), *hit));
                    }
                }
            }
        }
        let dxcc = Dxcc {
            rows,
            prefixes: Table::new(prefixes),
            calls: Table::new(calls),
            longest_prefix,
        };
        Ok(dxcc)
    }

    /// Fills the entity fields a contact lacks (ADIF `DXCC`, `COUNTRY`, `CONT`, `CQZ`,
    /// `ITUZ`) from its callsign, as loggers do when a contact is logged. What the contact
    /// carries wins: a field given is kept; and when its `DXCC` names another entity than
    /// the call's (a logger that knew better, a file read with a newer country list), nothing
    /// is filled, so no contact mixes two entities' values. Gives whether anything was filled.
    pub fn fill(&self, callsign: &str, fields: &mut Fields) -> bool {
        let Some(values) = self.values(callsign) else {
            return false;
        };
        if let Some(given) = fields.get(Field::Dxcc)
            && given != values[0].1
        {
            return false;
        }
        let mut filled = false;
        for (field, value) in values {
            if fields.get(field).is_none() {
                fields.set(field, Some(value));
                filled = true;
            }
        }
        filled
    }

    /// The values of [`ENTITY_FIELDS`] for a callsign, in that order; `None` where the call
    /// has no entity (see [`Dxcc::resolve`]).
    pub fn values(&self, callsign: &str) -> Option<[(Field, String); 5]> {
        let entity = self.resolve(callsign)?;
        Some([
            (Field::Dxcc, entity.dxcc.to_string()),
            (Field::Country, entity.name.to_owned()),
            (Field::Cont, entity.continent.as_str().to_owned()),
            (Field::Cqz, entity.cq_zone.to_string()),
            (Field::Ituz, entity.itu_zone.to_string()),
        ])
    }

    /// What a call with no entity is when it is a station at sea or in the air (`W1AW/MM`
    /// `maritime mobile`, `/AM` `aeronautical mobile`, after any operating suffixes), so that
    /// the logbook says why it shows none; `None` for every other call, and for an `=` call the
    /// file lists with its entity (`N2NL/MM`).
    pub fn no_entity(&self, call: &str) -> Option<&'static str> {
        if self.resolve(call).is_some() {
            return None;
        }
        let call = call.trim().to_ascii_uppercase();
        for part in call.rsplit('/').filter(|p| !p.is_empty()) {
            match part {
                "MM" => return Some("maritime mobile"),
                "AM" => return Some("aeronautical mobile"),
                p if SUFFIXES.contains(&p)
                    || (p.len() == 1 && p.as_bytes()[0].is_ascii_digit()) => {}
                _ => return None,
            }
        }
        None
    }

    /// The entity of a callsign as typed (any case, with a portable prefix or suffix), or
    /// `None` for maritime and aeronautical mobile stations (`/MM`, `/AM`), for text that is
    /// not a callsign and for calls no line matches.
    ///
    /// An `=` call listed in the file wins over everything (`=N2NL/MM` is listed, as is
    /// `=K6HI` under Hawaii). Otherwise trailing operating suffixes are dropped (`/P`, `/M`,
    /// `/QRP`, `/LH`…) and a single-digit suffix moves the call to that call area
    /// (`UA9ABC/1` is read as `UA1ABC`, European Russia; `W1AW/6` as `W6AW`, USA in CQ zone
    /// 3). Of two parts left (`KH6/W1AW`, `W1AW/KH6`), the location is the part that is a
    /// listed prefix itself, else the shorter; of equals, the first, as CEPT's T/R 61-01
    /// writes the prefix first. A single call is looked up as `=` call, then by its longest
    /// listed prefix.
    pub fn resolve(&self, call: &str) -> Option<Entity<'_>> {
        let call = call.trim().to_ascii_uppercase();
        if !call.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'/') {
            return None;
        }
        if let Some(hit) = self.calls.get(&call) {
            return Some(self.entity(hit));
        }
        // Empty parts are what a call being typed has (`W1AW/`): nothing yet.
        let mut parts: Vec<&str> = call.split('/').filter(|p| !p.is_empty()).collect();
        let mut area = None;
        while let [_, .., last] = parts[..] {
            if NO_ENTITY_SUFFIXES.contains(&last) {
                return None;
            }
            if let [digit] = last.as_bytes()
                && digit.is_ascii_digit()
            {
                // The rightmost digit is the area the station is in now.
                area = area.or(Some(*digit));
            } else if !SUFFIXES.contains(&last) {
                break;
            }
            parts.pop();
        }
        let hit = match parts[..] {
            [] => None,
            [base] => match area {
                Some(digit) => self.longest_prefix(&in_area(base, digit)),
                None => self.calls.get(base).or_else(|| self.longest_prefix(base)),
            },
            _ => {
                let listed = parts
                    .iter()
                    .filter(|p| self.prefixes.contains_key(p))
                    .min_by_key(|p| p.len());
                let location = listed.or_else(|| parts.iter().min_by_key(|p| p.len()))?;
                self.longest_prefix(location)
            }
        };
        hit.map(|hit| self.entity(hit))
    }

    fn longest_prefix(&self, text: &str) -> Option<Hit> {
        (1..=text.len().min(self.longest_prefix))
            .rev()
            .find_map(|n| self.prefixes.get(&text[..n]))
    }

    fn entity(&self, hit: Hit) -> Entity<'_> {
        let row = &self.rows[usize::from(hit.row)];
        Entity {
            dxcc: row.dxcc,
            name: &row.name,
            continent: hit.continent,
            cq_zone: hit.cq_zone,
            itu_zone: hit.itu_zone,
            lat: f64::from(row.lat),
            lon: f64::from(row.lon),
        }
    }
}

/// A call moved to another call area: its last digit replaced (`W1AW`, 6 → `W6AW`). A call
/// with no digit stays as it is.
fn in_area(call: &str, digit: u8) -> String {
    match call.rfind(|c: char| c.is_ascii_digit()) {
        Some(i) => format!("{}{}{}", &call[..i], char::from(digit), &call[i + 1..]),
        None => call.to_owned(),
    }
}

fn parse_line(number: usize, row: usize, line: &str) -> Result<Line<'_>, String> {
    let fields: Vec<&str> = line.splitn(10, ',').collect();
    let [primary, name, dxcc, continent, cq, itu, lat, lon, utc, list] = fields[..] else {
        return Err(format!(
            "{} fields where 10 are expected (prefix, name, DXCC number, continent, CQ zone, ITU zone, latitude, longitude, UTC offset, prefix list)",
            fields.len()
        ));
    };
    let (wae, primary) = match primary.strip_prefix('*') {
        Some(rest) => (true, rest),
        None => (false, primary),
    };
    if primary.is_empty() || name.is_empty() {
        return Err("the prefix and the name must not be empty".into());
    }
    let dxcc: u16 = dxcc
        .parse()
        .map_err(|_| format!("DXCC number {dxcc:?} is not a number"))?;
    let continent = read_continent(continent)?;
    let cq_zone = read_zone("CQ", cq, 40)?;
    let itu_zone = read_zone("ITU", itu, 90)?;
    let mut numbers = [0f32; 3];
    for (n, (what, value)) in [("latitude", lat), ("longitude", lon), ("UTC offset", utc)]
        .into_iter()
        .enumerate()
    {
        numbers[n] = value
            .trim()
            .parse::<f32>()
            .map_err(|_| format!("{what} {value:?} is not a number"))?;
    }
    let [lat, west, _] = numbers;
    let list = list
        .strip_suffix(';')
        .ok_or("the prefix list does not end with ';'")?;
    let base = Hit {
        row: u16::try_from(row).map_err(|_| "more than 65,535 entity lines")?,
        continent,
        cq_zone,
        itu_zone,
    };
    let entries = list
        .split_whitespace()
        .map(|item| read_entry(item, base).map_err(|e| format!("{primary}: entry {item:?}: {e}")))
        .collect::<Result<_, _>>()?;
    Ok(Line {
        number,
        wae,
        dxcc,
        name,
        lat,
        lon: -west,
        entries,
    })
}

/// One entry of a line's list: `VE3(4)[4]`, `=K6HI`, with the line's values as `base`.
fn read_entry(item: &str, base: Hit) -> Result<(String, bool, Hit), String> {
    let (exact, item) = match item.strip_prefix('=') {
        Some(rest) => (true, rest),
        None => (false, item),
    };
    let end = item.find(['(', '[', '<', '{', '~']).unwrap_or(item.len());
    let (text, mut overrides) = item.split_at(end);
    if text.is_empty()
        || !text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || (exact && b == b'/'))
    {
        return Err("a prefix is letters and digits, an = call may hold '/'".into());
    }
    let mut hit = base;
    while let Some(open) = overrides.chars().next() {
        let close = match open {
            '(' => ')',
            '[' => ']',
            '<' => '>',
            '{' => '}',
            '~' => '~',
            other => return Err(format!("{other:?} is not an override")),
        };
        let rest = &overrides[1..];
        let end = rest
            .find(close)
            .ok_or_else(|| format!("{open:?} is not closed by {close:?}"))?;
        let value = &rest[..end];
        match open {
            '(' => hit.cq_zone = read_zone("CQ", value, 40)?,
            '[' => hit.itu_zone = read_zone("ITU", value, 90)?,
            '{' => hit.continent = read_continent(value)?,
            // Coordinates and UTC offsets are not shown: checked only for their shape.
            _ => {
                if !value.split('/').all(|n| n.parse::<f64>().is_ok()) {
                    return Err(format!("{value:?} is not a number"));
                }
            }
        }
        overrides = &rest[end + 1..];
    }
    Ok((text.to_ascii_uppercase(), exact, hit))
}

fn read_continent(code: &str) -> Result<Continent, String> {
    Continent::parse(code)
        .ok_or_else(|| format!("continent {code:?} is not one of AF, AN, AS, EU, NA, OC, SA"))
}

fn read_zone(kind: &str, text: &str, max: u8) -> Result<u8, String> {
    text.parse()
        .ok()
        .filter(|zone| (1..=max).contains(zone))
        .ok_or_else(|| format!("{kind} zone {text:?} is not a number from 1 to {max}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (call, DXCC, name, continent, CQ zone, ITU zone), each checked against
    /// data/cty.csv's lines.
    const KNOWN: &[(&str, u16, &str, &str, u8, u8)] = &[
        // K: W prefix, no override for area 1.
        ("W1AW", 291, "United States", "NA", 5, 8),
        ("K1ABC", 291, "United States", "NA", 5, 8),
        ("w1aw", 291, "United States", "NA", 5, 8),
        (" W1AW ", 291, "United States", "NA", 5, 8),
        // K: W0(4)[7], W6(3)[6].
        ("W0ABC", 291, "United States", "NA", 4, 7),
        ("W6ABC", 291, "United States", "NA", 3, 6),
        // VE: VE3(4)[4], VE7(3)[2], VE2[4] (ITU only).
        ("VE3XYZ", 1, "Canada", "NA", 4, 4),
        ("VE7ABC", 1, "Canada", "NA", 3, 2),
        ("VE2ABC", 1, "Canada", "NA", 5, 4),
        ("KH6/W1AW", 110, "Hawaii", "OC", 31, 61),
        ("W1AW/KH6", 110, "Hawaii", "OC", 31, 61),
        ("kh6/w1aw/p", 110, "Hawaii", "OC", 31, 61),
        ("KH6ABC", 110, "Hawaii", "OC", 31, 61),
        ("KL7ABC", 6, "Alaska", "NA", 1, 1),
        ("VP2EAB", 12, "Anguilla", "NA", 8, 11),
        ("VP2MAB", 96, "Montserrat", "NA", 8, 11),
        ("W1AW/VP2E", 12, "Anguilla", "NA", 8, 11),
        ("3D2ABC", 176, "Fiji", "OC", 32, 56),
        // Rotuma and Conway Reef have only = calls (3D2/r, 3D2/c are labels).
        ("3D2R", 460, "Rotuma Island", "OC", 32, 56),
        ("3D2VB/R", 460, "Rotuma Island", "OC", 32, 56),
        ("3D2CR", 489, "Conway Reef", "OC", 32, 56),
        // CE0Y: CE0 and XR0 are Easter Island's prefixes.
        ("CE0YAA", 47, "Easter Island", "SA", 12, 63),
        ("XR0YD", 47, "Easter Island", "SA", 12, 63),
        ("EA8ABC", 29, "Canary Islands", "AF", 33, 36),
        ("EA6ABC", 21, "Balearic Islands", "EU", 14, 37),
        ("EA6", 21, "Balearic Islands", "EU", 14, 37),
        ("EA1ABC", 281, "Spain", "EU", 14, 37),
        ("4U1UN", 289, "United Nations HQ", "NA", 5, 8),
        // 4U1I is a DXCC line (not *): =4U1ITU.
        ("4U1ITU", 117, "ITU HQ", "EU", 14, 28),
        // =4U1VIC is under *4U1V and under OE: Austria's DXCC.
        ("4U1VIC", 206, "Austria", "EU", 15, 28),
        ("G4ABC", 223, "England", "EU", 14, 27),
        ("2E0ABC", 223, "England", "EU", 14, 27),
        ("M0ABC", 223, "England", "EU", 14, 27),
        ("GM3ABC", 279, "Scotland", "EU", 14, 27),
        ("M/W1AW", 223, "England", "EU", 14, 27),
        // *IG9 African Italy: Italy's DXCC, the line's own continent and zones.
        ("IG9ABC", 248, "Italy", "AF", 33, 37),
        ("IT9ABC", 248, "Italy", "EU", 15, 28),
        ("I1ABC", 248, "Italy", "EU", 15, 28),
        // *GM/s Shetland: =2M0BDR, Scotland's DXCC.
        ("2M0BDR", 279, "Scotland", "EU", 14, 27),
        ("W1AW/P", 291, "United States", "NA", 5, 8),
        ("W1AW/M", 291, "United States", "NA", 5, 8),
        ("W1AW/QRP", 291, "United States", "NA", 5, 8),
        ("W1AW/A", 291, "United States", "NA", 5, 8),
        ("W1AW/", 291, "United States", "NA", 5, 8),
        // A digit moves the call area: W6(3)[6], W0(4)[7].
        ("W1AW/6", 291, "United States", "NA", 3, 6),
        ("W1AW/0/P", 291, "United States", "NA", 4, 7),
        ("UA9ABC/1", 54, "European Russia", "EU", 16, 29),
        ("UA9ABC", 15, "Asiatic Russia", "AS", 17, 30),
        // UA2: RA2 is Kaliningrad.
        ("RA9ABC/2", 126, "Kaliningrad", "EU", 15, 29),
        // UA9: UA0Y(23)[32] overrides Asiatic Russia's 17 and 30.
        ("UA0YAB", 15, "Asiatic Russia", "AS", 23, 32),
        // = calls listed under another entity than their prefix's.
        ("K6HI", 110, "Hawaii", "OC", 31, 61),
        ("K6HI/P", 110, "Hawaii", "OC", 31, 61),
        ("W9ITU", 6, "Alaska", "NA", 1, 1),
        ("W1AW/KG4", 105, "Guantanamo Bay", "NA", 8, 11),
        // = calls beat /MM and /AM: =N2NL/MM(7) and =NQ4I/AM under K.
        ("N2NL/MM", 291, "United States", "NA", 7, 8),
        ("NQ4I/AM", 291, "United States", "NA", 5, 8),
        // =7O2A(37)[48] under Yemen.
        ("7O2A", 492, "Yemen", "AS", 37, 48),
    ];

    #[test]
    fn known_calls_resolve_to_their_entities() {
        let dxcc = Dxcc::shipped();
        for &(call, number, name, continent, cq, itu) in KNOWN {
            let entity = dxcc.resolve(call).unwrap_or_else(|| panic!("{call}: none"));
            assert_eq!(
                (
                    entity.dxcc,
                    entity.name,
                    entity.continent.as_str(),
                    entity.cq_zone,
                    entity.itu_zone
                ),
                (number, name, continent, cq, itu),
                "{call}"
            );
        }
    }

    #[test]
    fn an_entity_is_placed_east_positive_as_maps_are() {
        let dxcc = Dxcc::shipped();
        // The file writes longitude west positive: Japan's -138.38 is east.
        let japan = dxcc.resolve("JA1ABC").unwrap();
        assert_eq!((japan.lat, japan.lon), (36.4f32.into(), 138.38f32.into()));
        let usa = dxcc.resolve("K1ABC").unwrap();
        assert!(usa.lon < -90.0 && usa.lat > 30.0, "{usa:?}");
    }

    #[test]
    fn fill_adds_what_is_absent_and_keeps_what_is_given() {
        let dxcc = Dxcc::shipped();
        let mut fields = Fields::default();
        assert!(dxcc.fill("W1AW/6", &mut fields));
        let got: Vec<_> = [
            Field::Dxcc,
            Field::Country,
            Field::Cont,
            Field::Cqz,
            Field::Ituz,
        ]
        .map(|f| fields.get(f).unwrap_or("-"))
        .to_vec();
        assert_eq!(got, ["291", "United States", "NA", "3", "6"]);
        // A zone the contact has stays; the rest of the same entity is filled.
        let mut fields = Fields::default();
        fields.set(Field::Cqz, Some("4".into()));
        fields.set(Field::Dxcc, Some("291".into()));
        assert!(dxcc.fill("W1AW", &mut fields));
        assert_eq!(fields.get(Field::Cqz), Some("4"));
        assert_eq!(fields.get(Field::Cont), Some("NA"));
        // Another entity's number: nothing of ours is mixed in.
        let mut fields = Fields::default();
        fields.set(Field::Dxcc, Some("110".into()));
        assert!(!dxcc.fill("W1AW", &mut fields));
        assert_eq!(fields.get(Field::Country), None);
        // Nothing known: nothing filled.
        let mut fields = Fields::default();
        assert!(!dxcc.fill("W1AW/MM", &mut fields));
        assert_eq!(dxcc.no_entity("w1aw/mm"), Some("maritime mobile"));
        assert_eq!(dxcc.no_entity("W1AW/AM/P"), Some("aeronautical mobile"));
        assert_eq!(dxcc.no_entity("N2NL/MM"), None, "listed with its entity");
        assert_eq!(dxcc.no_entity("W1AW/P"), None);
        assert_eq!(dxcc.no_entity("MM"), None, "a call, not a suffix");
        assert!(fields.is_empty());
        // All there already: nothing to do.
        let mut full = Fields::default();
        dxcc.fill("G4ABC", &mut full);
        assert!(!dxcc.fill("G4ABC", &mut full.clone()));
    }

    #[test]
    fn mobile_at_sea_or_in_the_air_and_garbage_have_no_entity() {
        let dxcc = Dxcc::shipped();
        for call in [
            "W1AW/MM",
            "W1AW/AM",
            "w1aw/mm",
            "KH6/W1AW/MM",
            "W1AW/MM/P",
            "",
            "   ",
            "/",
            "//",
            "???",
            "W1AW-5",
            "W1 AW",
            "日本",
            "%",
            "P/M",
        ] {
            assert_eq!(dxcc.resolve(call), None, "{call:?}");
        }
    }

    #[test]
    fn long_and_odd_input_does_not_panic() {
        let dxcc = Dxcc::shipped();
        for call in [
            "W".repeat(500),
            "/1".repeat(100),
            "9/".repeat(100),
            "0".into(),
        ] {
            let _ = dxcc.resolve(&call);
        }
    }

    #[test]
    fn a_small_file_with_overrides_and_a_wae_line() {
        let dxcc = Dxcc::load(concat!(
            "K,United States,291,NA,5,8,37.60,91.87,5.0,K W K6(3)[6] =W1XX{OC}<1.0/2.0>~-3.0~;\n",
            "\n",
            "*KH9,Test WAE,291,OC,31,65,19.28,-166.63,-12.0,KH9(30);\r\n",
        ))
        .unwrap();
        let w1xx = dxcc.resolve("W1XX").unwrap();
        assert_eq!((w1xx.continent, w1xx.cq_zone), (Continent::Oceania, 5));
        assert_eq!(dxcc.resolve("K6AB").unwrap().cq_zone, 3);
        let wae = dxcc.resolve("KH9AB").unwrap();
        assert_eq!(
            (wae.dxcc, wae.name, wae.cq_zone),
            (291, "United States", 30)
        );
        assert_eq!(dxcc.resolve("XX1AB"), None);
    }

    #[test]
    fn a_malformed_file_is_refused_with_its_line() {
        let good = "K,United States,291,NA,5,8,37.60,91.87,5.0,K W;\n";
        for (bad, says) in [
            ("K,United States,291,NA,5,8;", "6 fields"),
            ("K,United States,x,NA,5,8,1,2,3,K;", "DXCC number \"x\""),
            ("K,United States,291,XX,5,8,1,2,3,K;", "continent \"XX\""),
            ("K,United States,291,NA,41,8,1,2,3,K;", "CQ zone \"41\""),
            ("K,United States,291,NA,5,0,1,2,3,K;", "ITU zone \"0\""),
            ("K,United States,291,NA,5,8,north,2,3,K;", "latitude"),
            (
                "K,United States,291,NA,5,8,1,2,3,K W",
                "does not end with ';'",
            ),
            ("K,United States,291,NA,5,8,1,2,3,K(5;", "not closed"),
            ("K,United States,291,NA,5,8,1,2,3,K(99);", "CQ zone \"99\""),
            (
                "K,United States,291,NA,5,8,1,2,3,K{XY};",
                "continent \"XY\"",
            ),
            (
                "K,United States,291,NA,5,8,1,2,3,K/P;",
                "letters and digits",
            ),
            ("*KH9,Test,999,OC,31,65,1,2,3,KH9;", "DXCC 999"),
        ] {
            let err = Dxcc::load(&format!("{good}\n{bad}\n")).unwrap_err();
            assert!(err.starts_with("cty.csv line 3: "), "{bad}: {err}");
            assert!(err.contains(says), "{bad}: {err}");
        }
        assert!(Dxcc::load("\n\n").unwrap_err().contains("no entity"));
    }
}
