//! Where a contact read from another program's log is filed: the rule of `svc import adif
//! --auto` and of the imports from an external logbook (docs/CLI.md, "svc import adif").

use std::collections::{BTreeSet, HashMap};

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

/// The parks each QSO of an activator was read with, over every record of an import. POTA
/// takes a two-fer (one activation of several parks at once) as one file per park, each with
/// every QSO and that park's `MY_SIG_INFO`: the same QSO read with US-1234 from one file and
/// with US-5678 from the other was made at both parks at once, and is one contact of the
/// two-fer `US-1234,US-5678`. A QSO is told by what its record says apart from its own park
/// (the importer's key for it), so the records of one activator's QSO meet, and no others.
#[derive(Debug, Default)]
pub struct TwoFers {
    parks: HashMap<String, BTreeSet<String>>,
}

impl TwoFers {
    /// Notes the parks a record of the QSO `qso` was made at, when it is an activator's record
    /// (`MY_SIG` POTA with its parks, as [`Place::of`] reads it).
    pub fn note(&mut self, qso: String, c: &Filed) {
        if let Some(own) = own_parks(c) {
            self.parks.entry(qso).or_default().extend(own);
        }
    }

    /// The parks of the QSO `qso` when its records named more than this one, `c`, does: the
    /// two-fer's list, each park once, sorted, so that the files give one list whatever order
    /// they are read in; `None` when `c` names every park the QSO was read with.
    pub fn parks(&self, qso: &str, c: &Filed) -> Option<String> {
        let own = own_parks(c)?;
        let all = self.parks.get(qso)?;
        (all.len() > own.len()).then(|| all.iter().cloned().collect::<Vec<_>>().join(","))
    }
}

/// The parks of an activator's record, each once; `None` for another record, or one whose
/// parks are no park references (it is filed as it is, and refused as it is).
fn own_parks(c: &Filed) -> Option<BTreeSet<String>> {
    if !c
        .my_sig
        .is_some_and(|s| s.trim().eq_ignore_ascii_case("POTA"))
    {
        return None;
    }
    let list = normalize_reference_list("mySigInfo", c.my_sig_info?).ok()?;
    Some(list.split(',').map(str::to_owned).collect())
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

    #[test]
    fn one_qso_read_with_two_parks_is_a_two_fer() {
        let at = |park| Filed {
            my_sig: Some("POTA"),
            my_sig_info: Some(park),
            ..filed("2026-11-22T14:05:00Z")
        };
        let mut two = TwoFers::default();
        // Each park's file holds the QSO; the second file is read first here.
        two.note("q1".into(), &at("us-5678"));
        two.note("q1".into(), &at("US-1234"));
        two.note("q2".into(), &at("US-1234"));
        two.note("q3".into(), &at("US-1234,US-5678"));
        // A hunter's record and an unreadable park are no activator's.
        two.note("q4".into(), &filed("2026-11-22T14:05:00Z"));
        two.note("q5".into(), &at("nonsense"));
        assert_eq!(
            two.parks("q1", &at("US-1234")).as_deref(),
            Some("US-1234,US-5678")
        );
        assert_eq!(
            two.parks("q1", &at("US-5678")).as_deref(),
            Some("US-1234,US-5678")
        );
        // A QSO read at one park, or from one record that names the two-fer: as it is.
        assert_eq!(two.parks("q2", &at("US-1234")), None);
        assert_eq!(two.parks("q3", &at("US-5678,US-1234")), None);
        assert_eq!(two.parks("q4", &filed("2026-11-22T14:05:00Z")), None);
        assert_eq!(two.parks("q5", &at("nonsense")), None);
        assert_eq!(two.parks("unknown", &at("US-1234")), None);
    }
}
