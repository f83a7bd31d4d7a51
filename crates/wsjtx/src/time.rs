//! Qt's date-times as WSJT-X sends them, and the instant svc stores.
//!
//! A QDateTime is kept as the datagram carried it (a Julian day, a time of day and how the
//! two are meant) rather than converted while decoding, so that a datagram whose time svc
//! will not read still decodes and the refusal names the time, not the datagram. WSJT-X
//! logs in UTC; JTDX marks the same UTC values as local time, which is why local time is
//! read as UTC here: svc has no way to know a sender's zone, and guessing the receiver's
//! would move every contact of a station whose clock runs on UTC.

use svc_model::Timestamp;

/// The Julian day of 1970-01-01, where svc's timestamps count from.
pub const UNIX_EPOCH_JULIAN_DAY: i64 = 2_440_588;

const DAY_MS: i64 = 86_400_000;

/// A QDateTime as QDataStream (Qt 5.2 and later) writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QDateTime {
    /// The Julian day number: 2440588 is 1970-01-01.
    pub julian_day: i64,
    /// Milliseconds since midnight, below 86,400,000 in a decoded datagram.
    pub ms: u32,
    pub spec: TimeSpec,
}

/// How a QDateTime's day and time are meant (Qt's `Qt::TimeSpec`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeSpec {
    /// Local time of the sender (0). Read as UTC: see the module's note.
    Local,
    /// UTC (1).
    Utc,
    /// This many seconds east of UTC (2).
    Offset(i32),
    /// A named time zone (3), its IANA id.
    Zone(String),
}

/// Why a QDateTime is not an instant svc stores.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeError {
    #[error("the time is given in the time zone {0:?}, which svc does not read; WSJT-X sends UTC")]
    Zone(String),
    #[error("the date lies beyond any instant svc can store")]
    OutOfRange,
}

impl QDateTime {
    /// The instant: local time and UTC read as UTC, an offset applied.
    pub fn timestamp(&self) -> Result<Timestamp, TimeError> {
        let offset_ms = match &self.spec {
            TimeSpec::Local | TimeSpec::Utc => 0,
            TimeSpec::Offset(seconds) => i64::from(*seconds) * 1000,
            TimeSpec::Zone(zone) => return Err(TimeError::Zone(zone.clone())),
        };
        // The fields are public, so a caller may hand in any values: checked arithmetic
        // rather than a panic on overflow.
        self.julian_day
            .checked_sub(UNIX_EPOCH_JULIAN_DAY)
            .and_then(|days| days.checked_mul(DAY_MS))
            .and_then(|ms| ms.checked_add(i64::from(self.ms)))
            .and_then(|ms| ms.checked_sub(offset_ms))
            .map(Timestamp)
            .ok_or(TimeError::OutOfRange)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(julian_day: i64, ms: u32, spec: TimeSpec) -> Result<Timestamp, TimeError> {
        QDateTime {
            julian_day,
            ms,
            spec,
        }
        .timestamp()
    }

    #[test]
    fn the_epoch_and_a_logged_qso() {
        assert_eq!(at(2_440_588, 0, TimeSpec::Utc), Ok(Timestamp(0)));
        let logged = at(2_459_615, 38_400_629, TimeSpec::Utc).unwrap();
        assert_eq!(logged.to_string(), "2022-02-04T10:40:00.629Z");
        assert_eq!(at(2_459_615, 38_400_629, TimeSpec::Local), Ok(logged));
        assert_eq!(
            at(2_440_587, 86_399_000, TimeSpec::Utc),
            Ok(Timestamp(-1000))
        );
    }

    #[test]
    fn an_offset_is_applied_and_a_zone_refused() {
        // 12:00 at UTC+02:00 is 10:00 UTC.
        let two_hours_east = at(2_440_588, 12 * 3_600_000, TimeSpec::Offset(7200)).unwrap();
        assert_eq!(two_hours_east, Timestamp(10 * 3_600_000));
        let west = at(2_440_588, 0, TimeSpec::Offset(-3600)).unwrap();
        assert_eq!(west, Timestamp(3_600_000));
        let err = at(2_440_588, 0, TimeSpec::Zone("Europe/Rome".into())).unwrap_err();
        assert_eq!(err, TimeError::Zone("Europe/Rome".into()));
        assert!(err.to_string().contains("\"Europe/Rome\""), "{err}");
    }

    #[test]
    fn values_past_any_instant_are_refused_not_a_panic() {
        for day in [i64::MIN, i64::MAX, i64::MAX / 1000] {
            assert_eq!(
                at(day, u32::MAX, TimeSpec::Offset(i32::MIN)),
                Err(TimeError::OutOfRange)
            );
        }
    }
}
