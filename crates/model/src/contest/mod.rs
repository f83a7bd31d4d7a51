//! Contests as data: each contest svc knows is a file of its own in `data/contests`, which a
//! ham can read and copy (a state QSO party from `serial.toml`): its names (Cabrillo's CONTEST,
//! ADIF's CONTEST_ID), the bands and modes it counts, its exchange and how each field is
//! checked, its duplicate rule, its QSO points and its multipliers. The files are read once,
//! when a contest is first asked for.

mod exchange;
mod lists;
mod log;
mod qso;
mod received;
mod score;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::ApiError;
use crate::band::band_name;

pub use exchange::{Check, ExchangeField};
pub use lists::{FORMER_SECTIONS, PRECEDENCES, PROVINCES, SECTIONS, STATES};
pub use log::{
    CATEGORIES, ContestInput, ContestLog, HEADER, MAX_SERIAL_BLOCK, NewContest, SerialBlock,
    category, default_report, header, identity,
};
pub use qso::cabrillo_frequency;
pub use score::{Brought, Scored, Tally, Whereabouts, wpx_prefix};

/// Each file's name and text, the name written once.
macro_rules! shipped {
    ($($file:literal),* $(,)?) => {
        &[$(($file, include_str!(concat!("../../data/contests/", $file)))),*]
    };
}

/// The contests shipped with svc: each file's name and text.
const SHIPPED: &[(&str, &str)] = shipped![
    "arrl-fd.toml",
    "wfd.toml",
    "cq-ww-cw.toml",
    "cq-ww-ssb.toml",
    "cq-ww-rtty.toml",
    "cq-wpx-cw.toml",
    "cq-wpx-ssb.toml",
    "arrl-dx-cw.toml",
    "arrl-dx-ssb.toml",
    "arrl-ss-cw.toml",
    "arrl-ss-ssb.toml",
    "naqp-cw.toml",
    "naqp-ssb.toml",
    "arrl-10.toml",
    "arrl-rtty.toml",
    "serial.toml",
];

/// Cabrillo's QSO modes: a contest's modes, and a contact's as its QSO line writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
pub enum CabrilloMode {
    CW,
    PH,
    FM,
    RY,
    DG,
}

/// Which contacts with the same station are duplicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dupes {
    /// Once a band (CQ WW, WPX, ARRL DX, NAQP).
    Band,
    /// Once a band and mode (Field Day's CW, phone and data; ARRL 10 m's CW and phone).
    BandMode,
    /// Once in the contest, whatever the band (Sweepstakes).
    Contest,
}

/// How many points a contact scores.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Points {
    /// The same for every contact of a mode.
    ByMode(BTreeMap<CabrilloMode, u32>),
    /// A rule of where the station is.
    Rule(PointsRule),
}

/// The contests' rules of points by where the worked station is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PointsRule {
    /// CQ WW: 0 in one's own entity, 1 on one's continent (2 between North American
    /// entities), 3 on another continent.
    CqWw,
    /// CQ WW RTTY: 1 in one's own entity, 2 on one's continent, 3 on another.
    CqWwRtty,
    /// CQ WPX: 1 in one's own entity; 1 on one's continent (2 between North Americans) and 3
    /// on another, doubled on 160, 80 and 40 m.
    CqWpx,
}

/// What counts as a multiplier, and over what.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Multiplier {
    pub kind: MultiplierKind,
    /// Counted again on each band (`band`), each mode (`mode`), or once (`contest`).
    pub per: Per,
}

/// What a multiplier is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MultiplierKind {
    /// The worked station's CQ zone.
    CqZone,
    /// The worked station's DXCC entity.
    Entity,
    /// A DXCC entity other than the USA and Canada (ARRL DX, whose W and VE stations count
    /// the DX they work, and ARRL 10 m); Alaska and Hawaii are DX.
    DxEntity,
    /// A DXCC entity of North America (NAQP).
    NorthAmericanEntity,
    /// A section received (Sweepstakes).
    Section,
    /// A US state, DC or Canadian province received.
    StateProvince,
    /// The call's WPX prefix.
    Prefix,
    /// Each band and mode worked (Winter Field Day).
    BandMode,
}

/// What a multiplier is counted again over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Per {
    Band,
    Mode,
    Contest,
}

/// One contest, as its file declares it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contest {
    /// What `svc contest start` takes, and Cabrillo's CONTEST tag.
    pub id: String,
    pub name: String,
    /// ADIF's CONTEST_ID for its contacts.
    pub adif: String,
    /// Other names it goes by, which `svc contest start` takes too (`FD`).
    #[serde(default)]
    pub aliases: Vec<String>,
    pub modes: Vec<CabrilloMode>,
    /// The bands it counts, as ADIF names them.
    pub bands: Vec<String>,
    pub dupes: Dupes,
    /// The received exchange, in the order it is sent and typed.
    pub exchange: Vec<ExchangeField>,
    pub points: Points,
    #[serde(default)]
    pub multipliers: Vec<Multiplier>,
}

impl Contest {
    /// Reads one contest's file: the TOML, then what TOML cannot say (known bands, an
    /// exchange, examples its checks take), each failure naming the file and what to fix.
    pub fn from_file(name: &str, text: &str) -> Result<Contest, String> {
        let contest: Contest = toml::from_str(text).map_err(|e| format!("{name}: {e}"))?;
        if let Some(band) = contest
            .bands
            .iter()
            .find(|b| band_name(b) != Some(b.as_str()))
        {
            return Err(format!(
                "{name}: {band:?} is not a band as ADIF names one, e.g. 20m"
            ));
        }
        if contest.exchange.is_empty() || contest.modes.is_empty() || contest.bands.is_empty() {
            return Err(format!(
                "{name}: a contest needs its modes, bands and exchange"
            ));
        }
        if let Points::ByMode(points) = &contest.points
            && let Some(mode) = contest.modes.iter().find(|m| !points.contains_key(m))
        {
            return Err(format!("{name}: [points] gives no points for {mode:?}"));
        }
        if let Some(at) = contest.exchange.iter().position(|f| f.optional)
            && contest.exchange[at..].iter().any(|f| !f.optional)
        {
            return Err(format!(
                "{name}: only the exchange's last fields may be optional"
            ));
        }
        for field in &contest.exchange {
            if field.check.is_empty() {
                return Err(format!("{name}: {} has no check", field.label));
            }
            if field.field.is_empty()
                || !field
                    .field
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            {
                return Err(format!(
                    "{name}: {:?} is not an ADIF field name such as SRX",
                    field.field
                ));
            }
            if field.read(&field.example).is_none() {
                return Err(format!(
                    "{name}: the example {:?} of {} is not {}",
                    field.example,
                    field.label,
                    field.expects()
                ));
            }
        }
        Ok(contest)
    }

    /// The contests shipped with svc, in the order of the list of their files. A file that
    /// cannot be read is left out; the tests read each of them.
    pub fn shipped() -> &'static [Contest] {
        static CONTESTS: OnceLock<Vec<Contest>> = OnceLock::new();
        CONTESTS.get_or_init(|| {
            SHIPPED
                .iter()
                .filter_map(|(name, text)| Contest::from_file(name, text).ok())
                .collect()
        })
    }

    /// The shipped contest an id names (its own, or its ADIF CONTEST_ID), in any case.
    pub fn find(id: &str) -> Option<&'static Contest> {
        let id = id.trim();
        Contest::shipped().iter().find(|c| {
            c.id.eq_ignore_ascii_case(id)
                || c.adif.eq_ignore_ascii_case(id)
                || c.aliases.iter().any(|a| a.eq_ignore_ascii_case(id))
        })
    }

    /// A received exchange as typed (`2A CT`) read into its ADIF fields and values, in order;
    /// an error that names the field to fix and what it takes.
    pub fn read_exchange(&self, typed: &str) -> Result<Vec<(&str, String)>, ApiError> {
        let words: Vec<&str> = typed.split_whitespace().collect();
        let required = self.exchange.iter().filter(|f| !f.optional).count();
        if !(required..=self.exchange.len()).contains(&words.len()) {
            let labels: Vec<&str> = self.exchange.iter().map(|f| f.label.as_str()).collect();
            let example: Vec<&str> = self.exchange.iter().map(|f| f.example.as_str()).collect();
            return Err(ApiError::field(
                "exchange",
                format!(
                    "{}'s exchange is {}, a word each, e.g. {:?}; {} words were typed",
                    self.name,
                    labels.join(", "),
                    example.join(" "),
                    words.len()
                ),
            ));
        }
        self.exchange
            .iter()
            .zip(words)
            .map(|(field, word)| {
                field
                    .read(word)
                    .map(|v| (field.field.as_str(), v))
                    .ok_or_else(|| {
                        ApiError::field(
                            "exchange",
                            format!(
                                "the {} {:?} is not {}",
                                field.label,
                                crate::ids::truncate(word, 20),
                                field.expects()
                            ),
                        )
                    })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
