//! A search of a log: which contacts a question picks (a callsign's start, a park, a grid's
//! start, a band, a mode, UTC days, confirmed or not), read once from a query string and
//! checked here, so that the page that asks and the store that answers share one reading.
//!
//! - The callsign is matched from its first character as logged: `K1` takes K1ABC and the
//!   portable K1ABC/P and K1ABC/QRP (a suffix never hides a call); a prefix designator is part
//!   of the call as logged, so VE3/K1ABC is found by `VE3/` or `VE3/K1`.
//! - The park is one reference, matched against each park of the contact's worked references
//!   (`sigInfo`) and its own activation's (`mySigInfo`): a two-fer's `US-0001,US-0002` is found
//!   by either. A location after `@` is not part of the question (`VE-5082` finds
//!   `VE-5082@CA-AB`).
//! - The grid is the start of the worked station's locator (`gridsquare`), in any case.
//! - The days are UTC and both included.
//! - Confirmed is what ARRL counts ([`CONFIRMING`]: LoTW or a paper card received), the
//!   awards' own default, read by [`Service::carried`].

use chrono::NaiveDate;

use crate::ApiError;
use crate::awards::Service;
use crate::band::band_name;
use crate::callsign::MAX_CALLSIGN;
use crate::ids::truncate;
use crate::program::normalize_reference;

/// The confirmations that make a contact confirmed for a search: those ARRL counts for DXCC
/// and WAS, as the awards count them by default.
pub const CONFIRMING: [Service; 2] = Service::DEFAULT;

/// The longest value a search parameter takes; longer ones are refused unread.
pub const MAX_VALUE: usize = 40;

/// The query string's parameter names, in the order a search is written back.
pub const PARAMS: [&str; 8] = [
    "call",
    "park",
    "grid",
    "band",
    "mode",
    "from",
    "to",
    "confirmed",
];

/// Which contacts a search picks; every part absent picks every contact.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContactFilter {
    /// The start of the call, upper-case letters, digits and `/`.
    pub callsign: Option<String>,
    /// One park reference, upper-case, without a location.
    pub park: Option<String>,
    /// The start of a locator, cased as the log keeps locators (`FN31pr`).
    pub grid: Option<String>,
    /// A band as ADIF names it (`20m`).
    pub band: Option<&'static str>,
    /// A mode as the log keeps it, upper-case.
    pub mode: Option<String>,
    /// The first UTC day, as typed (`2025-06-14`).
    pub from: Option<NaiveDate>,
    /// The last UTC day, included.
    pub to: Option<NaiveDate>,
    /// Confirmed ([`CONFIRMING`]) or not.
    pub confirmed: Option<bool>,
}

fn bad(field: &str, message: String) -> ApiError {
    ApiError::field(field, message)
}

/// The first and the following UTC midnight of `day`, in milliseconds.
fn midnight(day: NaiveDate) -> i64 {
    day.and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc().timestamp_millis())
        .unwrap_or_default()
}

impl ContactFilter {
    /// Reads a search from a query string's pairs. Names it does not know (the page's own
    /// `cursor`) are left alone; a blank value is no question; a name given twice takes its
    /// last value, as a form sends one.
    pub fn from_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<ContactFilter, ApiError> {
        let mut filter = ContactFilter::default();
        for (name, value) in pairs {
            if !PARAMS.contains(&name) {
                continue;
            }
            if value.chars().count() > MAX_VALUE {
                return Err(bad(
                    name,
                    format!("{name}: at most {MAX_VALUE} characters; shorten it"),
                ));
            }
            let value = value.trim();
            if value.is_empty() {
                filter.set_none(name);
                continue;
            }
            match name {
                "call" => filter.callsign = Some(call_prefix(value)?),
                "park" => filter.park = Some(park(value)?),
                "grid" => filter.grid = Some(grid_prefix(value)?),
                "band" => {
                    filter.band = Some(band_name(value).ok_or_else(|| {
                        bad(
                            "band",
                            format!(
                                "band {:?} is not a band; pick one from the list, e.g. 20m",
                                truncate(value, 20)
                            ),
                        )
                    })?)
                }
                "mode" => filter.mode = Some(mode(value)?),
                "from" => filter.from = Some(day("from", value)?),
                "to" => filter.to = Some(day("to", value)?),
                _ => {
                    filter.confirmed = Some(match value.to_ascii_lowercase().as_str() {
                        "yes" => true,
                        "no" => false,
                        _ => {
                            return Err(bad(
                                "confirmed",
                                format!(
                                    "confirmed {:?} is neither yes nor no; leave it blank for every contact",
                                    truncate(value, 20)
                                ),
                            ));
                        }
                    })
                }
            }
        }
        if let (Some(from), Some(to)) = (filter.from, filter.to)
            && from > to
        {
            return Err(bad(
                "to",
                format!("to ({to}) is before from ({from}); give the earlier day first"),
            ));
        }
        Ok(filter)
    }

    fn set_none(&mut self, name: &str) {
        match name {
            "call" => self.callsign = None,
            "park" => self.park = None,
            "grid" => self.grid = None,
            "band" => self.band = None,
            "mode" => self.mode = None,
            "from" => self.from = None,
            "to" => self.to = None,
            _ => self.confirmed = None,
        }
    }

    /// Whether the search asks nothing: every contact.
    pub fn is_empty(&self) -> bool {
        *self == ContactFilter::default()
    }

    /// The search as query pairs, in [`PARAMS`]' order, the parts asked only: what a link to
    /// the search (its next page) carries.
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs = Vec::new();
        let mut push = |name: &'static str, value: Option<String>| {
            if let Some(value) = value {
                pairs.push((name, value));
            }
        };
        push("call", self.callsign.clone());
        push("park", self.park.clone());
        push("grid", self.grid.clone());
        push("band", self.band.map(str::to_owned));
        push("mode", self.mode.clone());
        push("from", self.from.map(|d| d.to_string()));
        push("to", self.to.map(|d| d.to_string()));
        push(
            "confirmed",
            self.confirmed
                .map(|c| if c { "yes" } else { "no" }.to_owned()),
        );
        pairs
    }

    /// The first millisecond of the `from` day.
    pub fn from_millis(&self) -> Option<i64> {
        self.from.map(midnight)
    }

    /// The first millisecond after the `to` day.
    pub fn until_millis(&self) -> Option<i64> {
        self.to.map(|d| d.succ_opt().map_or(i64::MAX, midnight))
    }
}

/// Whether a contact's fields say it is confirmed as a search means it ([`CONFIRMING`]).
pub fn confirmed(fields: &crate::Fields) -> bool {
    CONFIRMING.iter().any(|s| s.confirms(fields))
}

/// The start of a call: letters, digits and `/`, upper-cased.
fn call_prefix(value: &str) -> Result<String, ApiError> {
    let call = value.to_ascii_uppercase();
    if call.len() <= MAX_CALLSIGN && call.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'/') {
        Ok(call)
    } else {
        Err(bad(
            "call",
            format!(
                "call {:?} is not the start of a callsign: letters, digits and /, at most {MAX_CALLSIGN}, e.g. K1 or VE3/K1ABC",
                truncate(value, 30)
            ),
        ))
    }
}

/// One park reference, its location (`@CA-AB`) dropped.
fn park(value: &str) -> Result<String, ApiError> {
    if value.contains(',') {
        return Err(bad(
            "park",
            "park: one reference at a time, e.g. US-0001; a two-fer is found by either of its parks"
                .to_owned(),
        ));
    }
    let reference = normalize_reference("park", value)?;
    Ok(match reference.split_once('@') {
        Some((park, _)) => park.to_owned(),
        None => reference,
    })
}

/// The start of a Maidenhead locator, 1 to 8 characters, cased as the log keeps them.
fn grid_prefix(value: &str) -> Result<String, ApiError> {
    let mut out = String::with_capacity(value.len());
    for (i, c) in value.bytes().enumerate() {
        let c = match i {
            0 | 1 => Some(c.to_ascii_uppercase()).filter(|c| (b'A'..=b'R').contains(c)),
            2 | 3 | 6 | 7 => Some(c).filter(u8::is_ascii_digit),
            4 | 5 => Some(c.to_ascii_lowercase()).filter(|c| (b'a'..=b'x').contains(c)),
            _ => None,
        };
        match c {
            Some(c) => out.push(char::from(c)),
            None => {
                return Err(bad(
                    "grid",
                    format!(
                        "grid {:?} is not the start of a Maidenhead locator: two letters A to R, two digits, two letters A to X, two digits, e.g. FN or FN31pr",
                        truncate(value, 20)
                    ),
                ));
            }
        }
    }
    Ok(out)
}

/// A mode as the log keeps one: ADIF's, or a plain name another logger wrote.
fn mode(value: &str) -> Result<String, ApiError> {
    crate::mode::check_mode("mode", value, true).map_err(|_| {
        bad(
            "mode",
            format!(
                "mode {:?} is not a mode: letters, digits, blanks, - and /, e.g. FT8, SSB or CW",
                truncate(value, 30)
            ),
        )
    })
}

fn day(field: &str, value: &str) -> Result<NaiveDate, ApiError> {
    NaiveDate::parse_from_str(value, "%Y-%m-%d")
        .ok()
        .filter(|d| (1900..=9999).contains(&chrono::Datelike::year(d)))
        .ok_or_else(|| {
            bad(
                field,
                format!(
                    "{field} {:?} is not a UTC day; write it as year-month-day, e.g. 2025-06-14",
                    truncate(value, 20)
                ),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> Result<ContactFilter, ApiError> {
        ContactFilter::from_pairs(pairs.iter().copied())
    }

    #[test]
    fn a_search_is_read_normalized_and_written_back() {
        let f = read(&[
            ("call", " k1ab "),
            ("park", "us-0001@us-ma"),
            ("grid", "fn31PR"),
            ("band", "20M"),
            ("mode", "ft8"),
            ("from", "2025-06-01"),
            ("to", "2025-06-14"),
            ("confirmed", "Yes"),
            ("cursor", "whatever"),
        ])
        .unwrap();
        assert_eq!(f.callsign.as_deref(), Some("K1AB"));
        assert_eq!(f.park.as_deref(), Some("US-0001"));
        assert_eq!(f.grid.as_deref(), Some("FN31pr"));
        assert_eq!(f.band, Some("20m"));
        assert_eq!(f.mode.as_deref(), Some("FT8"));
        assert_eq!(f.confirmed, Some(true));
        assert_eq!(f.from_millis(), Some(1_748_736_000_000));
        // The whole of the last day, to its next midnight.
        assert_eq!(f.until_millis(), Some(1_749_945_600_000));
        let pairs = f.pairs();
        let back: Vec<(&str, &str)> = pairs.iter().map(|(n, v)| (*n, v.as_str())).collect();
        assert_eq!(read(&back).unwrap(), f);
        assert_eq!(back[0], ("call", "K1AB"));
        assert!(read(&[("call", ""), ("band", " ")]).unwrap().is_empty());
    }

    #[test]
    fn bad_values_are_refused_with_what_to_fix() {
        for (name, value, says) in [
            ("call", "K1<b>", "not the start of a callsign"),
            ("park", "US-0001,US-0002", "one reference at a time"),
            ("park", "Yellowstone", "not a park reference"),
            ("grid", "FN3a", "not the start of a Maidenhead locator"),
            ("grid", "SS", "not the start of a Maidenhead locator"),
            ("band", "21m", "not a band"),
            ("mode", "FT8!", "not a mode"),
            ("from", "14/06/2025", "year-month-day"),
            ("to", "2025-02-30", "year-month-day"),
            ("confirmed", "maybe", "neither yes nor no"),
            ("call", &"K".repeat(41), "at most 40 characters"),
        ] {
            let e = read(&[(name, value)]).unwrap_err();
            assert!(e.message.contains(says), "{name}={value}: {}", e.message);
            assert_eq!(e.details.unwrap()["field"], name);
        }
        let e = read(&[("from", "2025-06-14"), ("to", "2025-06-01")]).unwrap_err();
        assert!(e.message.contains("before from"), "{}", e.message);
    }

    #[test]
    fn confirmed_is_lotw_or_a_card_as_the_awards_count() {
        let mut fields = crate::Fields::default();
        assert!(!confirmed(&fields));
        fields.set(crate::Field::EqslQslRcvd, Some("Y".into()));
        assert!(!confirmed(&fields), "eQSL is not what ARRL counts");
        fields.set(crate::Field::QslRcvd, Some("y".into()));
        assert!(confirmed(&fields));
        let mut lotw = crate::Fields::default();
        lotw.set(crate::Field::LotwQslRcvd, Some("Y".into()));
        assert!(confirmed(&lotw));
    }
}
