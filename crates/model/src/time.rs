//! Instants as milliseconds since the Unix epoch, shown as ISO 8601 UTC.

use chrono::{DateTime, Datelike, NaiveDate, SecondsFormat, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::ApiError;
use super::ids::truncate;

const DAY_MS: i64 = 86_400_000;
/// How far ahead of the server clock a time may be: a day covers every time zone mix-up
/// and a laptop clock that drifted, and still catches a wrong year.
const MAX_FUTURE_MS: i64 = DAY_MS;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    pub fn now() -> Timestamp {
        Timestamp(Utc::now().timestamp_millis())
    }

    pub fn millis(self) -> i64 {
        self.0
    }

    fn datetime(self) -> DateTime<Utc> {
        DateTime::from_timestamp_millis(self.0).unwrap_or_default()
    }

    /// Parses RFC 3339 (`2026-11-22T14:05:00Z`, or with an offset, converted to UTC).
    /// A time without an offset is refused rather than guessed.
    pub fn parse(field: &str, text: &str) -> Result<Timestamp, ApiError> {
        let parsed = DateTime::parse_from_rfc3339(text.trim()).map_err(|_| {
            ApiError::field(
                field,
                format!(
                    "{field} {:?} is not an ISO 8601 time with a UTC offset; send e.g. 2026-11-22T14:05:00Z",
                    truncate(text, 40)
                ),
            )
        })?;
        Ok(Timestamp(parsed.with_timezone(&Utc).timestamp_millis()))
    }

    /// Parses a client-given time that must be plausible for a contact or activation:
    /// not before 1900 and not more than a day ahead of `now`.
    pub fn parse_plausible(field: &str, text: &str, now: Timestamp) -> Result<Timestamp, ApiError> {
        let t = Self::parse(field, text)?;
        let earliest = NaiveDate::from_ymd_opt(1900, 1, 1)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|d| d.and_utc().timestamp_millis())
            .unwrap_or(i64::MIN);
        if t.0 < earliest {
            return Err(ApiError::field(
                field,
                format!("{field} {text} is before 1900; check the year"),
            ));
        }
        if t.0 > now.0 + MAX_FUTURE_MS {
            return Err(ApiError::field(
                field,
                format!(
                    "{field} {text} is more than a day in the future (server time is {now}); check the date and the UTC offset"
                ),
            ));
        }
        Ok(t)
    }

    pub fn utc_date(self) -> NaiveDate {
        self.datetime().date_naive()
    }

    /// Days since the epoch of the UTC date.
    pub fn utc_day(self) -> i64 {
        self.0.div_euclid(DAY_MS)
    }

    /// The UTC midnight that starts `day` (days since the epoch, as [`Timestamp::utc_day`]
    /// counts them).
    pub fn utc_midnight(day: i64) -> Timestamp {
        Timestamp(day.saturating_mul(DAY_MS))
    }

    /// `YYYY-MM` of the UTC date.
    pub fn utc_month(self) -> String {
        let d = self.utc_date();
        format!("{:04}-{:02}", d.year(), d.month())
    }

    /// `YYYYMMDD` of the UTC date.
    pub fn utc_compact_date(self) -> String {
        self.utc_date().format("%Y%m%d").to_string()
    }

    /// `YYYYMMDDHHMM` of the UTC minute, as eQSL's `RcvdSince` takes a time.
    pub fn utc_date_minute(self) -> String {
        self.datetime().format("%Y%m%d%H%M").to_string()
    }

    /// `YYYY-MM-DD HHMM` of the UTC minute, as a Cabrillo QSO line gives a contact's time.
    pub fn cabrillo(self) -> String {
        self.datetime().format("%Y-%m-%d %H%M").to_string()
    }

    /// Milliseconds until the next UTC midnight.
    pub fn millis_to_next_utc_day(self) -> i64 {
        DAY_MS - self.0.rem_euclid(DAY_MS)
    }
}

impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.datetime().to_rfc3339_opts(SecondsFormat::AutoSi, true))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Timestamp::parse("time", &text).map_err(|e| serde::de::Error::custom(e.message))
    }
}

/// Checks a `YYYY-MM` month.
pub fn parse_month(field: &str, text: &str) -> Result<String, ApiError> {
    let t = text.trim();
    let ok = t.len() == 7
        && t.as_bytes()[4] == b'-'
        && NaiveDate::parse_from_str(&format!("{t}-01"), "%Y-%m-%d").is_ok();
    if ok {
        Ok(t.to_owned())
    } else {
        Err(ApiError::field(
            field,
            format!(
                "{field} {:?} is not a month; send YYYY-MM, e.g. 2026-11",
                truncate(text, 20)
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_utc_and_offsets_and_prints_utc() {
        let t = Timestamp::parse("timeOn", "2026-11-22T14:05:00Z").unwrap();
        assert_eq!(t.to_string(), "2026-11-22T14:05:00Z");
        let t2 = Timestamp::parse("timeOn", "2026-11-22T16:05:00+02:00").unwrap();
        assert_eq!(t, t2);
        let t3 = Timestamp::parse("timeOn", "2026-11-22T14:05:00.250Z").unwrap();
        assert_eq!(t3.to_string(), "2026-11-22T14:05:00.250Z");
        assert_eq!(t.utc_month(), "2026-11");
        assert_eq!(t.utc_compact_date(), "20261122");
    }

    #[test]
    fn a_time_without_offset_or_garbage_is_refused() {
        for bad in [
            "2026-11-22T14:05:00",
            "yesterday",
            "",
            "2026-13-01T00:00:00Z",
        ] {
            let err = Timestamp::parse("timeOn", bad).unwrap_err();
            assert!(
                err.message.contains("2026-11-22T14:05:00Z"),
                "{}",
                err.message
            );
        }
    }

    #[test]
    fn implausible_times_are_refused() {
        let now = Timestamp::parse("now", "2026-11-22T00:00:00Z").unwrap();
        assert!(Timestamp::parse_plausible("timeOn", "1899-12-31T23:59:59Z", now).is_err());
        assert!(Timestamp::parse_plausible("timeOn", "2026-11-23T00:00:00Z", now).is_ok());
        assert!(Timestamp::parse_plausible("timeOn", "2026-11-23T00:00:01Z", now).is_err());
    }

    #[test]
    fn utc_day_arithmetic() {
        let t = Timestamp::parse("t", "2026-11-22T23:59:30Z").unwrap();
        assert_eq!(t.millis_to_next_utc_day(), 30_000);
        let next = Timestamp::parse("t", "2026-11-23T00:00:00Z").unwrap();
        assert_eq!(t.utc_day() + 1, next.utc_day());
        assert_eq!(Timestamp::utc_midnight(next.utc_day()), next);
        assert_eq!(
            Timestamp::utc_midnight(t.utc_day()).utc_date(),
            t.utc_date()
        );
    }

    #[test]
    fn months_are_checked() {
        assert_eq!(parse_month("month", "2026-11").unwrap(), "2026-11");
        for bad in ["2026-13", "2026-1", "26-11", "2026/11", "2026-11-01"] {
            assert!(parse_month("month", bad).is_err(), "{bad}");
        }
    }
}
