//! A contest log: the folder one station logs one contest into (`svc contest start`), with
//! the exchange it sends, its Cabrillo categories and the header lines its Cabrillo file
//! carries. It is the station's one log of that contest that weekend, so a second operator
//! who starts the same contest under the same call joins it, and next year's is another.

use std::collections::BTreeMap;

use chrono::Datelike;
use serde::{Deserialize, Serialize};

use super::{CabrilloMode, Check, Contest};
use crate::ApiError;
use crate::callsign::normalize_callsign;
use crate::text::single_line;
use crate::time::Timestamp;

/// Cabrillo 3's categories, as `categories` names them (the tag's name after `CATEGORY-`,
/// lower-case), with the values each takes.
pub const CATEGORIES: &[(&str, &[&str])] = &[
    ("operator", &["SINGLE-OP", "MULTI-OP", "CHECKLOG"]),
    ("assisted", &["ASSISTED", "NON-ASSISTED"]),
    (
        "band",
        &[
            "ALL",
            "160M",
            "80M",
            "40M",
            "20M",
            "15M",
            "10M",
            "6M",
            "4M",
            "2M",
            "222",
            "432",
            "902",
            "1.2G",
            "2.3G",
            "3.4G",
            "5.7G",
            "10G",
            "24G",
            "47G",
            "75G",
            "122G",
            "134G",
            "241G",
            "LIGHT",
            "VHF-3-BAND",
            "VHF-FM-ONLY",
        ],
    ),
    ("mode", &["CW", "DIGI", "FM", "RTTY", "SSB", "MIXED"]),
    ("power", &["HIGH", "LOW", "QRP"]),
    (
        "station",
        &[
            "DISTRIBUTED",
            "FIXED",
            "MOBILE",
            "PORTABLE",
            "ROVER",
            "ROVER-LIMITED",
            "ROVER-UNLIMITED",
            "EXPEDITION",
            "HQ",
            "SCHOOL",
            "EXPLORER",
        ],
    ),
    (
        "transmitter",
        &["ONE", "TWO", "LIMITED", "UNLIMITED", "SWL"],
    ),
    (
        "overlay",
        &[
            "CLASSIC",
            "ROOKIE",
            "TB-WIRES",
            "YOUTH",
            "NOVICE-TECH",
            "YL",
        ],
    ),
    ("time", &["6-HOURS", "8-HOURS", "12-HOURS", "24-HOURS"]),
];

/// The header lines of the Cabrillo file a log keeps for its operator (the tag, lower-case),
/// each one line of at most the length given; `address` may hold up to six lines.
pub const HEADER: &[(&str, usize)] = &[
    ("name", 75),
    ("email", 100),
    ("address", 270),
    ("club", 75),
    ("location", 20),
];

/// What a contest log is, beyond a folder: the contest, what it sends, its categories and
/// header. Its wire form is the contest folder's `contestId`, `exchange`, `categories` and
/// `cabrillo`, and it is stored as that JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContestLog {
    /// The shipped contest's id, Cabrillo's CONTEST (`ARRL-FD`).
    pub contest_id: String,
    /// The exchange sent, as the contest's fields read it (`2A CT`): its serial number and
    /// signal report are each contact's own, so they are not in it.
    pub exchange: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub categories: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cabrillo: BTreeMap<String, String>,
}

impl ContestLog {
    /// The contest it is a log of; `None` for a contest this build no longer ships.
    pub fn contest(&self) -> Option<&'static Contest> {
        Contest::find(&self.contest_id)
    }
}

/// Serial numbers a station took from its contest log (`POST /v1/contests/{id}/serials`):
/// `first` to `last`, each sent by this station alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SerialBlock {
    pub first: u32,
    pub last: u32,
}

/// The most serial numbers one request takes: enough for an hour at a big station's rate with
/// the link down, and few enough that a station that never uses them leaves no wide gap.
pub const MAX_SERIAL_BLOCK: u32 = 500;

/// A request to start (or join) a contest log, unchecked: `POST /v1/contests`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContestInput {
    pub contest_id: Option<String>,
    pub callsign: Option<String>,
    pub exchange: Option<String>,
    /// Categories as given: `power=LOW`, or a value alone (`LOW`), which names its category.
    pub categories: Vec<String>,
    pub cabrillo: BTreeMap<String, String>,
    pub start_time: Option<String>,
}

/// A checked request to start or join a contest log.
#[derive(Debug, Clone, PartialEq)]
pub struct NewContest {
    pub contest: &'static Contest,
    pub callsign: String,
    /// The sent exchange, when one was given; a log is made only with one, and joined with
    /// one only when it is the log's.
    pub exchange: Option<String>,
    pub categories: BTreeMap<String, String>,
    pub cabrillo: BTreeMap<String, String>,
    pub start_time: Timestamp,
    pub name: String,
    /// Unique per account: one log per contest, callsign and contest weekend.
    pub identity_key: String,
}

impl NewContest {
    pub fn validate(input: &ContestInput, now: Timestamp) -> Result<NewContest, ApiError> {
        let id = input.contest_id.as_deref().unwrap_or_default();
        let contest = match id.trim() {
            "" => {
                return Err(ApiError::field(
                    "contestId",
                    format!("contestId is required: one of {}", known_ids()),
                ));
            }
            id => Contest::find(id).ok_or_else(|| {
                ApiError::field(
                    "contestId",
                    format!(
                        "contest {:?} is not one svc knows; use one of {}",
                        crate::ids::truncate(id, 40),
                        known_ids()
                    ),
                )
            })?,
        };
        let callsign = input.callsign.as_deref().ok_or_else(|| {
            ApiError::field(
                "callsign",
                "callsign is required: the call the log is sent under, e.g. W1AW",
            )
        })?;
        let callsign = normalize_callsign("callsign", callsign)?;
        let exchange = match input.exchange.as_deref().map(str::trim) {
            // A contest of reports and serial numbers alone sends nothing the log keeps.
            None | Some("") if contest.sent_fields().next().is_none() => Some(String::new()),
            None | Some("") => None,
            Some(typed) => Some(contest.read_sent(typed)?),
        };
        let start_time = match &input.start_time {
            Some(t) => Timestamp::parse_plausible("startTime", t, now)?,
            None => now,
        };
        let mut categories = BTreeMap::new();
        for given in &input.categories {
            let (kind, value) = category(given)?;
            if let Some(before) = categories.insert(kind.to_owned(), value.clone())
                && before != value
            {
                return Err(ApiError::field(
                    "categories",
                    format!("category {kind} is given twice, {before} and {value}; give it once"),
                ));
            }
        }
        let cabrillo = header(&input.cabrillo)?;
        Ok(NewContest {
            name: format!("{callsign} {} {}", contest.id, start_time.utc_date()),
            identity_key: identity(contest, &callsign, start_time),
            contest,
            callsign,
            exchange,
            categories,
            cabrillo,
            start_time,
        })
    }

    /// The log as a new folder keeps it; `None` without an exchange, which a new log needs.
    pub fn log(&self) -> Option<ContestLog> {
        Some(ContestLog {
            contest_id: self.contest.id.clone(),
            exchange: self.exchange.clone()?,
            categories: self.categories.clone(),
            cabrillo: self.cabrillo.clone(),
        })
    }

    /// Why a request with no exchange cannot make a log.
    pub fn no_exchange(&self) -> ApiError {
        let example: Vec<&str> = self
            .contest
            .sent_fields()
            .map(|f| f.example.as_str())
            .collect();
        ApiError::field(
            "exchange",
            format!(
                "exchange is required to start a log of {}: what you send, e.g. {:?}",
                self.contest.name,
                example.join(" ")
            ),
        )
    }

    /// Whether `existing`, the log this request found, is one it may join: a request that
    /// names an exchange must name the log's.
    pub fn check_join(&self, name: &str, existing: &ContestLog) -> Result<(), ApiError> {
        match &self.exchange {
            Some(sent) if *sent != existing.exchange => Err(ApiError::field(
                "exchange",
                format!(
                    "{name} is this contest's log under this call, and sends {:?}, not {sent:?}: join it with its exchange (or none)",
                    existing.exchange
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// The identity of the log of `contest` under `callsign` started at `start`: one a contest
/// weekend, the week from Wednesday to Tuesday (UTC) around it, which holds every contest's
/// Friday-to-Monday whichever day an operator starts or joins, and parts one year's log from
/// the next.
pub fn identity(contest: &Contest, callsign: &str, start: Timestamp) -> String {
    let date = start.utc_date();
    let since_wednesday = (date.weekday().num_days_from_monday() + 5) % 7;
    let wednesday = date - chrono::Days::new(u64::from(since_wednesday));
    format!(
        "v1:contest:{}:{callsign}:{}",
        contest.id,
        wednesday.format("%Y%m%d")
    )
}

fn known_ids() -> String {
    Contest::shipped()
        .iter()
        .map(|c| c.id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A category as given (`power=low`, `LOW`): its kind and its value as Cabrillo spells it.
pub fn category(given: &str) -> Result<(&'static str, String), ApiError> {
    let given = given.trim();
    let (kind, value) = match given.split_once('=') {
        Some((kind, value)) => (Some(kind.trim().to_ascii_lowercase()), value.trim()),
        None => (None, given),
    };
    let value = value.to_ascii_uppercase();
    let found = CATEGORIES.iter().find(|(name, values)| match &kind {
        Some(kind) => kind.trim_start_matches("category-") == *name,
        None => values.contains(&value.as_str()),
    });
    match found {
        Some((name, values)) if values.contains(&value.as_str()) => Ok((name, value)),
        Some((name, values)) => Err(ApiError::field(
            "categories",
            format!(
                "category {name} {value:?} is not one of {}",
                values.join(", ")
            ),
        )),
        None => Err(ApiError::field(
            "categories",
            format!(
                "category {:?} names no Cabrillo category; give kind=value, the kind one of {}, e.g. power=LOW",
                crate::ids::truncate(given, 40),
                CATEGORIES
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// Cabrillo header lines as given (`name`, `email`, … in any case), checked: the ones with a
/// value, by their tag as [`HEADER`] names it.
pub fn header(given: &BTreeMap<String, String>) -> Result<BTreeMap<String, String>, ApiError> {
    let mut checked = BTreeMap::new();
    for (tag, value) in given {
        let tag = tag.trim().to_ascii_lowercase();
        let Some((name, max)) = HEADER.iter().find(|(name, _)| *name == tag) else {
            return Err(ApiError::field(
                "cabrillo",
                format!(
                    "cabrillo: {:?} is not a header line a log keeps; it keeps {}",
                    crate::ids::truncate(&tag, 30),
                    HEADER
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        };
        if let Some(value) = header_value(name, value, *max)? {
            checked.insert((*name).to_owned(), value);
        }
    }
    Ok(checked)
}

/// One header value: one line (`address` up to six), at most `max` characters; blank is none.
fn header_value(tag: &str, value: &str, max: usize) -> Result<Option<String>, ApiError> {
    let field = format!("cabrillo.{tag}");
    if tag == "address" {
        let lines: Vec<&str> = value
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        if lines.len() > 6 || lines.iter().any(|l| l.chars().count() > 45) {
            return Err(ApiError::field(
                &field,
                "cabrillo address takes up to six lines of up to 45 characters each",
            ));
        }
        for line in &lines {
            single_line(&field, line, 45)?;
        }
        return Ok((!lines.is_empty()).then(|| lines.join("\n")));
    }
    single_line(&field, value, max)
}

impl Contest {
    /// The fields of the exchange the log sends as it was started with: all but the serial
    /// number and the signal report, which are each contact's own.
    pub fn sent_fields(&self) -> impl Iterator<Item = &super::ExchangeField> {
        self.exchange
            .iter()
            .filter(|f| !f.serial && !f.check.contains(&Check::Rst))
    }

    /// The exchange a log sends as typed (`2a ct`), read by its fields (`2A CT`).
    pub fn read_sent(&self, typed: &str) -> Result<String, ApiError> {
        let fields: Vec<_> = self.sent_fields().collect();
        let words: Vec<&str> = typed.split_whitespace().collect();
        let required = fields.iter().filter(|f| !f.optional).count();
        let example: Vec<&str> = fields.iter().map(|f| f.example.as_str()).collect();
        let labels: Vec<&str> = fields.iter().map(|f| f.label.as_str()).collect();
        if !(required..=fields.len()).contains(&words.len()) {
            return Err(ApiError::field(
                "exchange",
                format!(
                    "the exchange a {} log sends is {}, a word each, e.g. {:?} (the serial number and report are each contact's); {} words were given",
                    self.name,
                    if labels.is_empty() {
                        "nothing more".to_owned()
                    } else {
                        labels.join(", ")
                    },
                    example.join(" "),
                    words.len()
                ),
            ));
        }
        let mut read = Vec::new();
        for (field, word) in fields.iter().zip(words) {
            read.push(field.read(word).ok_or_else(|| {
                ApiError::field(
                    "exchange",
                    format!(
                        "the {} {:?} is not {}",
                        field.label,
                        crate::ids::truncate(word, 20),
                        field.expects()
                    ),
                )
            })?);
        }
        Ok(read.join(" "))
    }

    /// The log's exchange from one contact's whole sent exchange as another program kept it
    /// (STX_STRING: `599 5`, `1 A 72 CT`): its words but the serial number and the report,
    /// read as [`Contest::read_sent`] reads them; `None` when they are not this contest's.
    pub fn log_exchange(&self, sent: &str) -> Option<String> {
        let words: Vec<&str> = sent.split_whitespace().collect();
        let required = self.exchange.iter().filter(|f| !f.optional).count();
        if !(required..=self.exchange.len()).contains(&words.len()) {
            return None;
        }
        let kept: Vec<&str> = self
            .exchange
            .iter()
            .zip(&words)
            .filter(|(f, _)| !f.serial && !f.check.contains(&Check::Rst))
            .map(|(_, w)| *w)
            .collect();
        self.read_sent(&kept.join(" ")).ok()
    }

    /// The whole exchange one contact sent, word by word in the contest's order: the log's
    /// exchange, with the contact's serial number and report (599, or 59 on phone, when it
    /// has none) where the contest has them. `None` when a serial number is wanted and
    /// there is none.
    pub fn sent_exchange(
        &self,
        log_exchange: &str,
        serial: Option<&str>,
        rst_sent: Option<&str>,
        mode: &str,
    ) -> Option<String> {
        let mut fixed = log_exchange.split_whitespace();
        let mut words = Vec::new();
        for field in &self.exchange {
            if field.serial {
                words.push(serial?.to_owned());
            } else if field.check.contains(&Check::Rst) {
                words.push(rst_sent.map_or_else(
                    || default_report(CabrilloMode::of(mode)).to_owned(),
                    str::to_owned,
                ));
            } else if let Some(word) = fixed.next() {
                words.push(word.to_owned());
            } else if field.optional {
                // Cabrillo's lines keep as many sent words as received ones: an optional field
                // not sent is DX, as CQ WW RTTY's rules write a state from outside W/VE.
                words.push("DX".to_owned());
            }
        }
        Some(words.join(" "))
    }
}

/// The report a contact sends when none was logged: 59 on phone, 599 otherwise.
pub fn default_report(mode: CabrilloMode) -> &'static str {
    match mode {
        CabrilloMode::PH | CabrilloMode::FM => "59",
        _ => "599",
    }
}
