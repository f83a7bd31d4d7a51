//! Where a contact read from another program's log is filed: the rule of `svc import adif
//! --auto` and of the imports from an external logbook (docs/CLI.md, "svc import adif").

use super::program::{Program, normalize_reference_list};

/// The folder a read contact belongs in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Place {
    /// A POTA activation by `callsign` of `parks` (a two-fer's list in one spelling) on the UTC
    /// day `day` (`YYYYMMDD`).
    Activation {
        callsign: String,
        parks: String,
        day: String,
    },
    /// The monthly log of `month` (`YYYY-MM`): a program's hunting log, else the own one.
    Monthly {
        month: String,
        program: Option<Program>,
    },
}

/// What the rule reads of a contact, as the record wrote it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Filed<'a> {
    /// The time-on, ISO 8601 in UTC (`2026-11-22T14:05:00Z`).
    pub time_on: &'a str,
    pub sig: Option<&'a str>,
    pub my_sig: Option<&'a str>,
    pub my_sig_info: Option<&'a str>,
    pub station_callsign: Option<&'a str>,
}

impl Place {
    /// A POTA activation by activator, park and UTC day when the record says it was made from
    /// a park (`MY_SIG` POTA with its `MY_SIG_INFO`) and the activator is known (its
    /// `STATION_CALLSIGN`, else `account`, the importing account's callsign); else the monthly
    /// log of its UTC month, the program's hunting log when `SIG` names POTA, DX or REPEATER.
    pub fn of(c: &Filed, account: Option<&str>) -> Place {
        let day = c.time_on.get(..10).unwrap_or(c.time_on);
        if c.my_sig.is_some_and(|s| s.eq_ignore_ascii_case("POTA"))
            && let Some(parks) = c.my_sig_info
            && let Some(callsign) = c.station_callsign.or(account)
        {
            return Place::Activation {
                callsign: callsign.trim().to_ascii_uppercase(),
                // A two-fer's list in one spelling (US-1234,US-5678), so that its contacts from
                // files that space it otherwise go to one activation.
                parks: normalize_reference_list("mySigInfo", parks)
                    .unwrap_or_else(|_| parks.trim().to_ascii_uppercase()),
                day: day.replace('-', ""),
            };
        }
        Place::Monthly {
            month: day.get(..7).unwrap_or(day).to_owned(),
            program: c.sig.and_then(Program::from_sig),
        }
    }

    /// The place as a person reads it, in messages and a dry run's summary.
    pub fn describe(&self) -> String {
        match self {
            Place::Activation {
                callsign,
                parks,
                day,
            } => format!("activation {callsign}@{parks}-{day}"),
            Place::Monthly {
                month,
                program: Some(p),
            } => format!("{} hunting log {month}", p.id().to_ascii_uppercase()),
            Place::Monthly {
                month,
                program: None,
            } => format!("monthly log {month}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filed(time_on: &str) -> Filed<'_> {
        Filed {
            time_on,
            ..Default::default()
        }
    }

    #[test]
    fn an_activators_record_goes_to_its_activation_by_day() {
        let c = Filed {
            my_sig: Some("pota"),
            my_sig_info: Some("us-1234, US-5678"),
            station_callsign: Some("w1aw"),
            ..filed("2026-11-22T23:59:00Z")
        };
        assert_eq!(
            Place::of(&c, Some("K1ABC")),
            Place::Activation {
                callsign: "W1AW".into(),
                parks: "US-1234,US-5678".into(),
                day: "20261122".into(),
            }
        );
        // Without a station callsign the importing account activated.
        let own = Filed {
            station_callsign: None,
            ..c
        };
        assert!(matches!(
            Place::of(&own, Some("K1ABC")),
            Place::Activation { callsign, .. } if callsign == "K1ABC"
        ));
        // With no activator known it is filed by its month.
        assert_eq!(
            Place::of(&own, None),
            Place::Monthly {
                month: "2026-11".into(),
                program: None
            }
        );
    }

    #[test]
    fn a_hunters_record_goes_to_its_programs_monthly_log() {
        let hunted = Filed {
            sig: Some("POTA"),
            ..filed("2026-03-01T00:00:00Z")
        };
        let place = Place::of(&hunted, Some("K1ABC"));
        assert_eq!(
            place,
            Place::Monthly {
                month: "2026-03".into(),
                program: Some(Program::Pota)
            }
        );
        assert_eq!(place.describe(), "POTA hunting log 2026-03");
        // Another program's SIG (SOTA) or none: the own monthly log.
        let sota = Filed {
            sig: Some("SOTA"),
            ..filed("2026-03-01T00:00:00Z")
        };
        assert_eq!(
            Place::of(&sota, None).describe(),
            "monthly log 2026-03".to_owned()
        );
        // A MY_SIG of another program is no activation.
        let wwff = Filed {
            my_sig: Some("WWFF"),
            my_sig_info: Some("KFF-0001"),
            ..filed("2026-03-01T00:00:00Z")
        };
        assert!(matches!(
            Place::of(&wwff, Some("K1ABC")),
            Place::Monthly { .. }
        ));
    }
}
