//! A contest exchange's fields and the checks each is read by: what an operator types after
//! the call, one word a field, read liberally (any case, cut numbers left to the operator) and
//! kept as the contest's rules spell it.

use serde::Deserialize;

use super::lists::{FORMER_SECTIONS, PRECEDENCES, PROVINCES, SECTIONS, STATES};

/// How one field of an exchange is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    /// A signal report: `59`, `599`.
    Rst,
    /// A serial number: 1 to 99,999, leading zeros dropped.
    Serial,
    /// An ARRL or RAC section (the former Canadian ones too).
    Section,
    /// A section, or `DX` for a station outside the USA and Canada (Field Day's).
    SectionOrDx,
    /// Field Day's class: transmitters and category A–F, e.g. `2A`.
    FieldDayClass,
    /// Winter Field Day's: transmitters and H (home), I (indoor), O (outdoor) or M (mobile).
    WinterFieldDayClass,
    /// A CQ zone, 1–40.
    CqZone,
    /// Sweepstakes' precedence: Q, A, B, U, M or S.
    Precedence,
    /// Sweepstakes' check: the last two digits of the year first licensed.
    Check,
    /// A US state (or DC) or a Canadian province or territory.
    StateProvince,
    /// Power in watts, or K / KW for a kilowatt.
    Power,
    /// An operator's first name.
    Name,
    /// A DXCC entity's prefix, such as KP4 or XE (NAQP's location outside the USA and Canada).
    Prefix,
}

impl Check {
    /// The value as the contest keeps it, or `None` when it is not one.
    pub fn read(self, raw: &str) -> Option<String> {
        let value = raw.trim().to_ascii_uppercase();
        let digits = |v: &str| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
        let number = |v: &str, low: u32, high: u32| {
            digits(v)
                .then(|| v.parse::<u32>().ok())
                .flatten()
                .filter(|n| (low..=high).contains(n))
        };
        let listed = |list: &[&str]| list.contains(&value.as_str()).then(|| value.clone());
        match self {
            Check::Rst => {
                let b = value.as_bytes();
                ((2..=3).contains(&b.len())
                    && (b'1'..=b'5').contains(&b[0])
                    && b[1..].iter().all(|d| (b'1'..=b'9').contains(d)))
                .then(|| value.clone())
            }
            Check::Serial => number(&value, 1, 99_999).map(|n| n.to_string()),
            Check::Section => listed(SECTIONS).or_else(|| listed(FORMER_SECTIONS)),
            Check::SectionOrDx => Check::Section.read(&value).or_else(|| listed(&["DX"])),
            Check::FieldDayClass => class(&value, b"ABCDEF"),
            Check::WinterFieldDayClass => class(&value, b"HIOM"),
            Check::CqZone => number(&value, 1, 40).map(|n| n.to_string()),
            Check::Precedence => listed(PRECEDENCES),
            Check::Check => (value.len() == 2 && digits(&value)).then(|| value.clone()),
            Check::StateProvince => listed(STATES).or_else(|| listed(PROVINCES)),
            Check::Power => match value.as_str() {
                "K" | "KW" | "1K" | "1KW" => Some("1000".to_owned()),
                v => number(v.strip_suffix('W').unwrap_or(v), 1, 10_000).map(|n| n.to_string()),
            },
            Check::Name => ((1..=12).contains(&value.len())
                && value.bytes().all(|b| b.is_ascii_alphabetic()))
            .then(|| value.clone()),
            Check::Prefix => ((1..=4).contains(&value.len())
                && value.bytes().all(|b| b.is_ascii_alphanumeric())
                && value.bytes().any(|b| b.is_ascii_alphabetic()))
            .then(|| value.clone()),
        }
    }

    /// What the field takes, for a message that says what to type.
    pub fn expects(self) -> &'static str {
        match self {
            Check::Rst => "a signal report such as 59 or 599",
            Check::Serial => "a serial number from 1 to 99999",
            Check::Section => "an ARRL or RAC section such as CT or ONE",
            Check::SectionOrDx => "an ARRL or RAC section such as CT, or DX",
            Check::FieldDayClass => "a Field Day class such as 2A (transmitters, then A to F)",
            Check::WinterFieldDayClass => {
                "a Winter Field Day class such as 1O (transmitters, then H, I, O or M)"
            }
            Check::CqZone => "a CQ zone from 1 to 40",
            Check::Precedence => "a precedence: Q, A, B, U, M or S",
            Check::Check => "the two digits of the year first licensed, such as 72",
            Check::StateProvince => "a US state or Canadian province such as MA or ON",
            Check::Power => "power in watts such as 100, or K for a kilowatt",
            Check::Name => "a first name of up to 12 letters",
            Check::Prefix => "a DXCC prefix such as KP4",
        }
    }
}

/// A Field Day class: 1 to 99 transmitters, then one of `categories`.
fn class(value: &str, categories: &[u8]) -> Option<String> {
    let (count, category) = value.split_at(value.len().checked_sub(1)?);
    let transmitters: u32 = count
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| count.parse().ok())
        .flatten()?;
    ((1..=99).contains(&transmitters) && categories.contains(&category.as_bytes()[0]))
        .then(|| format!("{transmitters}{category}"))
}

/// One field of a contest's exchange, as its file declares it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExchangeField {
    /// The ADIF field the received value is kept in (`CLASS`, `ARRL_SECT`, `SRX`).
    pub field: String,
    /// Its name for an operator, in the form and in messages.
    pub label: String,
    /// The checks it is read by: the first that takes the value (ARRL DX's received field is a
    /// state or province from the USA and Canada, power from elsewhere).
    pub check: Vec<Check>,
    /// A value it takes, shown as a hint and tried by the tests.
    pub example: String,
    /// Whether the sent side is the log's next serial number rather than a fixed value.
    #[serde(default)]
    pub serial: bool,
    /// Whether a station may send none (CQ WW RTTY's state, sent from the USA and Canada
    /// alone); only the exchange's last fields may be.
    #[serde(default)]
    pub optional: bool,
}

impl ExchangeField {
    /// The value as kept, by the first check that takes it.
    pub fn read(&self, raw: &str) -> Option<String> {
        self.check.iter().find_map(|check| check.read(raw))
    }

    /// What the field takes, for a message.
    pub fn expects(&self) -> String {
        self.check
            .iter()
            .map(|check| check.expects())
            .collect::<Vec<_>>()
            .join(", or ")
    }
}
