//! A contest log's claimed score, as its contest counts it: each contact's QSO points by the
//! contest's rule, its multipliers counted once over the band, mode or contest, and a
//! duplicate counting nothing. The logbook's status bar, its `new mult` and Cabrillo's
//! CLAIMED-SCORE all come from one [`Tally`].

use std::collections::HashSet;

use super::{CabrilloMode, Check, Contest, MultiplierKind, Per, Points, PointsRule};
use crate::dxcc::{Continent, Entity};

/// The DXCC entities of the USA (291) and Canada (1), which ARRL's DX multipliers leave out.
const W_AND_VE: [u16; 2] = [291, 1];

/// Where a station is, as points and multipliers read it: its DXCC entity, continent and CQ
/// zone, from the country file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Whereabouts {
    pub dxcc: u16,
    pub continent: Continent,
    pub cq_zone: u8,
}

impl From<Entity<'_>> for Whereabouts {
    fn from(e: Entity<'_>) -> Whereabouts {
        Whereabouts {
            dxcc: e.dxcc,
            continent: e.continent,
            cq_zone: e.cq_zone,
        }
    }
}

/// One contact of the contest, as the score reads it.
#[derive(Debug, Clone, Copy)]
pub struct Scored<'a> {
    pub callsign: &'a str,
    pub band: &'a str,
    pub mode: &'a str,
    /// The received exchange, by ADIF field ([`Contest::read_exchange`]'s answer).
    pub received: &'a [(&'a str, String)],
    /// Where the worked station is, when the country file knows its call.
    pub worked: Option<Whereabouts>,
}

/// What one contact brings the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Brought {
    /// It repeats a contact of the log by the contest's rule, and counts nothing.
    pub dupe: bool,
    pub points: u32,
    /// The multipliers it is the first of, as an operator reads them (`zone 5 on 20m`).
    pub new_mults: Vec<String>,
}

/// The contacts of one contest log so far, and what they count.
#[derive(Debug, Clone)]
pub struct Tally<'c> {
    contest: &'c Contest,
    own: Option<Whereabouts>,
    dupes: HashSet<String>,
    mults: HashSet<String>,
    qsos: u64,
    points: u64,
}

impl<'c> Tally<'c> {
    /// An empty log of `contest` kept at `own` (the station's own entity, which the CQ
    /// contests' points read; `None` when its call is not in the country file).
    pub fn new(contest: &'c Contest, own: Option<Whereabouts>) -> Tally<'c> {
        Tally {
            contest,
            own,
            dupes: HashSet::new(),
            mults: HashSet::new(),
            qsos: 0,
            points: 0,
        }
    }

    /// What `c` would bring the log, without adding it: the form's dupe and `new mult`.
    pub fn judge(&self, c: &Scored) -> Brought {
        if self
            .dupes
            .contains(&self.contest.dupe_key(c.callsign, c.band, c.mode))
        {
            return Brought {
                dupe: true,
                points: 0,
                new_mults: Vec::new(),
            };
        }
        let new_mults = self
            .mults_of(c)
            .into_iter()
            .filter(|m| !self.mults.contains(m))
            .collect();
        Brought {
            dupe: false,
            points: self.points_of(c),
            new_mults,
        }
    }

    /// Adds `c` to the log; what it brought.
    pub fn add(&mut self, c: &Scored) -> Brought {
        let brought = self.judge(c);
        if !brought.dupe {
            self.dupes
                .insert(self.contest.dupe_key(c.callsign, c.band, c.mode));
            self.mults.extend(brought.new_mults.iter().cloned());
            self.qsos += 1;
            self.points += u64::from(brought.points);
        }
        brought
    }

    /// The contacts counted: every one but the duplicates.
    pub fn qsos(&self) -> u64 {
        self.qsos
    }

    pub fn points(&self) -> u64 {
        self.points
    }

    pub fn multipliers(&self) -> u64 {
        self.mults.len() as u64
    }

    /// The claimed score: the points times the multipliers, or the points alone in a contest
    /// that has none (Field Day, whose power multiplier and bonus points are the station's).
    pub fn score(&self) -> u64 {
        if self.contest.multipliers.is_empty() {
            self.points
        } else {
            self.points * self.multipliers()
        }
    }

    /// The contact's QSO points by the contest's rule; a station the country file does not
    /// place counts as if on another continent under the CQ rules, as their log checkers
    /// credit a station they cannot place no less.
    fn points_of(&self, c: &Scored) -> u32 {
        let rule = match &self.contest.points {
            Points::ByMode(by_mode) => {
                return by_mode.get(&CabrilloMode::of(c.mode)).copied().unwrap_or(0);
            }
            Points::Rule(rule) => *rule,
        };
        let (own, worked) = match (self.own, c.worked) {
            (Some(own), Some(worked)) => (own, worked),
            _ => (
                Whereabouts {
                    dxcc: 0,
                    continent: Continent::Antarctica,
                    cq_zone: 0,
                },
                Whereabouts {
                    dxcc: 1,
                    continent: Continent::Africa,
                    cq_zone: 0,
                },
            ),
        };
        let same_entity = own.dxcc == worked.dxcc;
        let same_continent = own.continent == worked.continent;
        let north_american = same_continent && own.continent == Continent::NorthAmerica;
        match rule {
            PointsRule::CqWw if same_entity => 0,
            PointsRule::CqWw if north_american => 2,
            PointsRule::CqWw if same_continent => 1,
            PointsRule::CqWw => 3,
            PointsRule::CqWwRtty if same_entity => 1,
            PointsRule::CqWwRtty if same_continent => 2,
            PointsRule::CqWwRtty => 3,
            PointsRule::CqWpx => {
                let points = if same_entity {
                    1
                } else if north_american {
                    2
                } else if same_continent {
                    1
                } else {
                    3
                };
                let low = ["160m", "80m", "40m"]
                    .iter()
                    .any(|b| b.eq_ignore_ascii_case(c.band.trim()));
                if low { points * 2 } else { points }
            }
        }
    }

    /// The multipliers `c` counts toward, each named with what it is counted over.
    fn mults_of(&self, c: &Scored) -> Vec<String> {
        let received = |check: Check| {
            self.contest
                .exchange
                .iter()
                .filter(|f| f.check.contains(&check))
                .find_map(|f| {
                    let value = c.received.iter().find(|(name, _)| *name == f.field)?;
                    check.read(&value.1)
                })
        };
        let mut mults = Vec::new();
        for m in &self.contest.multipliers {
            let value = match m.kind {
                MultiplierKind::CqZone => received(Check::CqZone)
                    .or_else(|| c.worked.map(|w| w.cq_zone.to_string()))
                    .map(|z| format!("zone {z}")),
                MultiplierKind::Entity => c.worked.map(|w| entity(w.dxcc)),
                MultiplierKind::DxEntity => c
                    .worked
                    .filter(|w| !W_AND_VE.contains(&w.dxcc))
                    .map(|w| entity(w.dxcc)),
                MultiplierKind::NorthAmericanEntity => c
                    .worked
                    .filter(|w| w.continent == Continent::NorthAmerica)
                    .map(|w| entity(w.dxcc)),
                MultiplierKind::Section => received(Check::Section)
                    .or_else(|| received(Check::SectionOrDx).filter(|s| s != "DX"))
                    .map(|s| format!("section {s}")),
                MultiplierKind::StateProvince => {
                    received(Check::StateProvince).map(|s| format!("state {s}"))
                }
                MultiplierKind::Prefix => wpx_prefix(c.callsign).map(|p| format!("prefix {p}")),
                MultiplierKind::BandMode => Some(format!(
                    "band {} {}",
                    c.band.trim().to_ascii_lowercase(),
                    CabrilloMode::of(c.mode).as_str()
                )),
            };
            let Some(value) = value else { continue };
            mults.push(match m.per {
                Per::Contest => value,
                Per::Band => format!("{value} on {}", c.band.trim().to_ascii_lowercase()),
                Per::Mode => format!("{value} on {}", CabrilloMode::of(c.mode).as_str()),
            });
        }
        mults
    }
}

/// An entity multiplier as an operator reads it: the entity's name in ADIF's list, else its
/// number.
fn entity(dxcc: u16) -> String {
    crate::registry::entity(dxcc).map_or_else(|| format!("entity {dxcc}"), |e| e.name.to_owned())
}

/// The call's prefix as CQ WPX counts it: the letters and digits up to and including the
/// first run of digits after a letter (`W1`, `WD8`, `9A1`, `LY1000`, `3DA0`); a portable
/// designator is the prefix instead (`N8BJQ/KH9` is `KH9`; `OH2AAA/7` is `OH7`), one without
/// a digit taking a 0 after it (`PA/N8BJQ` is `PA0`), as does a call without one (`XEFTJW`
/// is `XE0`). /P, /M, /MM, /AM, /QRP and the licence classes are no prefix. `None` for no call.
pub fn wpx_prefix(callsign: &str) -> Option<String> {
    const NOT_PREFIXES: &[&str] = &["P", "M", "MM", "AM", "QRP", "A", "E", "J", "B", "R"];
    let call = callsign.trim().to_ascii_uppercase();
    let parts: Vec<&str> = call
        .split('/')
        .filter(|p| !p.is_empty() && !NOT_PREFIXES.contains(p))
        .collect();
    if parts.is_empty() || !call.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'/') {
        return None;
    }
    let (home, portable) = match parts[..] {
        [one] => (one, None),
        [a, b] if b.len() == 1 && b.as_bytes()[0].is_ascii_digit() => {
            // A call area moved to: the home prefix's digits become it.
            let prefix = own_prefix(a);
            let letters = prefix.trim_end_matches(|c: char| c.is_ascii_digit());
            return Some(format!("{letters}{b}"));
        }
        // Of two parts the designator is the shorter; of equals, the first, as CEPT writes it.
        [a, b] if b.len() < a.len() => (a, Some(b)),
        [a, b] => (b, Some(a)),
        _ => return None,
    };
    Some(own_prefix(portable.unwrap_or(home)))
}

/// The prefix of one call or designator, as [`wpx_prefix`] says.
fn own_prefix(call: &str) -> String {
    let bytes = call.as_bytes();
    let start = (1..bytes.len())
        .find(|&i| bytes[i].is_ascii_digit() && bytes[..i].iter().any(u8::is_ascii_alphabetic));
    match start {
        Some(i) => {
            let end = (i..bytes.len())
                .find(|&j| !bytes[j].is_ascii_digit())
                .unwrap_or(bytes.len());
            call[..end].to_owned()
        }
        None => format!("{}0", &call[..call.len().min(2)]),
    }
}
