//! Where a contact read from another program's log is filed: the rule of `svc import adif
//! --auto` and of the imports from an external logbook (docs/CLI.md, "svc import adif").

use std::collections::{BTreeSet, HashMap};

use super::contest::{Contest, identity};
use super::mode::PotaMode;
use super::program::{Program, normalize_reference_list};
use super::time::Timestamp;

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
    /// The contest log of `contest` (its id) sent under `callsign`, of the contest weekend
    /// its `identity` names (`svc_model::contest::identity`).
    Contest {
        contest: String,
        callsign: String,
        identity: String,
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
    /// Its CONTEST_ID.
    pub contest_id: Option<&'a str>,
}

impl Place {
    /// A POTA activation by activator, park and UTC day when the record says it was made from
    /// a park (`MY_SIG` POTA with its `MY_SIG_INFO`) and the activator is known (its
    /// `STATION_CALLSIGN`, else `account`, the importing account's callsign); else the monthly
    /// log of its UTC month, the program's hunting log when `SIG` names POTA, DX or REPEATER.
    /// Between the two, a contest's record (a `CONTEST_ID` of a contest svc knows) goes to
    /// the contest log of its station and contest weekend: an activation's contest QSO (Field
    /// Day from a park) stays the activation's, which POTA counts.
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
        if let Some(contest) = c.contest_id.and_then(Contest::find)
            && let Some(callsign) = c.station_callsign.or(account)
            && let Ok(at) = Timestamp::parse("timeOn", c.time_on)
        {
            let callsign = callsign.trim().to_ascii_uppercase();
            return Place::Contest {
                identity: identity(contest, &callsign, at),
                contest: contest.id.clone(),
                callsign,
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
            Place::Contest {
                contest, callsign, ..
            } => format!("{callsign}'s {contest} log"),
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
    /// Every activator's record noted, for [`TwoFers::activations`].
    noted: Vec<Noted>,
}

/// An activator's record as [`TwoFers::note`] keeps it.
#[derive(Debug)]
struct Noted {
    key: String,
    time_on: String,
    station_callsign: Option<String>,
    /// Its parks as the record lists them, in one spelling, and how many there are.
    parks: String,
    own: usize,
    qso: Qso,
}

impl TwoFers {
    /// Notes the parks a record of the QSO `key` (`qso`, as the record would be stored) was
    /// made at, when it is an activator's record (`MY_SIG` POTA with its parks, as
    /// [`Place::of`] reads it).
    pub fn note(&mut self, key: String, c: &Filed, qso: Qso) {
        if let Some(own) = own_parks(c) {
            let parks = c
                .my_sig_info
                .and_then(|p| normalize_reference_list("mySigInfo", p).ok())
                .unwrap_or_default();
            self.noted.push(Noted {
                key: key.clone(),
                time_on: c.time_on.to_owned(),
                station_callsign: c.station_callsign.map(str::to_owned),
                parks,
                own: own.len(),
                qso,
            });
            self.parks.entry(key).or_default().extend(own);
        }
    }

    /// The parks of the QSO `key` when its records named more than this one, `c`, does: the
    /// two-fer's list, each park once, sorted, so that the files give one list whatever order
    /// they are read in; `None` when `c` names every park the QSO was read with.
    pub fn parks(&self, key: &str, c: &Filed) -> Option<String> {
        self.more_than(key, own_parks(c)?.len())
    }

    fn more_than(&self, key: &str, own: usize) -> Option<String> {
        let all = self.parks.get(key)?;
        (all.len() > own).then(|| all.iter().cloned().collect::<Vec<_>>().join(","))
    }

    /// The activations the noted records go to (each with the parks [`TwoFers::parks`] gives
    /// it, filed by [`Place::of`] with `account` as the activator a record does not name),
    /// and the QSOs of each.
    pub fn activations(&self, account: &str) -> HashMap<Place, BTreeSet<Qso>> {
        let mut places: HashMap<Place, BTreeSet<Qso>> = HashMap::new();
        for n in &self.noted {
            let parks = self
                .more_than(&n.key, n.own)
                .unwrap_or_else(|| n.parks.clone());
            let filed = Filed {
                time_on: &n.time_on,
                my_sig: Some("POTA"),
                my_sig_info: Some(&parks),
                station_callsign: n.station_callsign.as_deref(),
                sig: None,
                contest_id: None,
            };
            places
                .entry(Place::of(&filed, Some(account)))
                .or_default()
                .insert(n.qso.clone());
        }
        places
    }
}

/// The parks of an activator's record, each once, in the record's order; `None` for another
/// record, or one whose parks are no park references (it is filed as it is, and refused as it
/// is).
fn own_parks(c: &Filed) -> Option<Vec<String>> {
    if !c
        .my_sig
        .is_some_and(|s| s.trim().eq_ignore_ascii_case("POTA"))
    {
        return None;
    }
    let list = normalize_reference_list("mySigInfo", c.my_sig_info?).ok()?;
    let mut parks: Vec<String> = Vec::new();
    for park in list.split(',') {
        if !parks.iter().any(|p| p == park) {
            parks.push(park.to_owned());
        }
    }
    Some(parks)
}

/// One QSO of an activation, told from its others whatever park it was logged at: the worked
/// callsign, band, POTA's mode (CW, phone or data, so that a logger's spelling of a mode
/// matters not) and minute.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Qso {
    callsign: String,
    band: String,
    mode: PotaMode,
    minute: i64,
}

impl Qso {
    /// The QSO with `callsign` on `band` in `mode` at `time_on` ([`Contact::qso`](crate::Contact::qso)
    /// of a stored contact).
    pub fn new(callsign: &str, band: &str, mode: &str, time_on: Timestamp) -> Qso {
        Qso {
            callsign: callsign.trim().to_ascii_uppercase(),
            band: band.to_ascii_lowercase(),
            mode: PotaMode::of(mode),
            minute: time_on.millis().div_euclid(60_000),
        }
    }
}

/// How the QSOs an import files into an activation of `parks` meet an activation of the same
/// activator and day stored under other parks (`stored_parks`, holding `stored`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meeting {
    /// The stored activation holds every one of the QSOs and is at every one of the parks:
    /// they are there already (a two-fer's file imported again after the two-fer).
    Within,
    /// The stored activation holds these very QSOs, no more, and none of the parks: it is the
    /// same activation at more parks, which are added to it (a two-fer's files imported one
    /// at a time).
    AtMoreParks,
}

impl Meeting {
    /// How `qsos` at `parks` meet the stored activation, if they are its; `None` when they
    /// are another activation's (some QSO it lacks, or a park list that overlaps its own
    /// without being within it), or there are none.
    pub fn of(
        stored_parks: &str,
        stored: &BTreeSet<Qso>,
        parks: &str,
        qsos: &BTreeSet<Qso>,
    ) -> Option<Meeting> {
        if qsos.is_empty() || !qsos.is_subset(stored) {
            return None;
        }
        let set = |list: &str| list.split(',').map(str::to_owned).collect::<BTreeSet<_>>();
        let (stored_parks, parks) = (set(stored_parks), set(parks));
        if parks.is_subset(&stored_parks) {
            Some(Meeting::Within)
        } else if parks.is_disjoint(&stored_parks) && qsos.len() == stored.len() {
            Some(Meeting::AtMoreParks)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Contact, ContactInput};

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
    fn a_contest_record_goes_to_its_contest_log_of_the_weekend() {
        let fd = Filed {
            contest_id: Some("ARRL-FIELD-DAY"),
            station_callsign: Some("w1aw"),
            ..filed("2026-06-28T20:00:00Z")
        };
        let place = Place::of(&fd, Some("K1ABC"));
        assert_eq!(
            place,
            Place::Contest {
                contest: "ARRL-FD".into(),
                callsign: "W1AW".into(),
                identity: "v1:contest:ARRL-FD:W1AW:20260624".into(),
            }
        );
        assert_eq!(place.describe(), "W1AW's ARRL-FD log");
        // Saturday's record is the same log; last year's another.
        let saturday = Filed {
            time_on: "2026-06-27T18:00:00Z",
            ..fd
        };
        assert_eq!(Place::of(&saturday, None), place);
        let last_year = Filed {
            time_on: "2025-06-28T18:00:00Z",
            ..fd
        };
        assert_ne!(Place::of(&last_year, None), place);
        // A contest svc does not know is filed by its month, and a park's QSO by its park.
        let unknown = Filed {
            contest_id: Some("NY-QSO-PARTY"),
            ..fd
        };
        assert!(matches!(Place::of(&unknown, None), Place::Monthly { .. }));
        let from_a_park = Filed {
            my_sig: Some("POTA"),
            my_sig_info: Some("US-1234"),
            ..fd
        };
        assert!(matches!(
            Place::of(&from_a_park, None),
            Place::Activation { .. }
        ));
    }

    /// A contact of `call` at `time_on` on 20 m CW, as stored.
    fn heard(call: &str, time_on: &str) -> Contact {
        ContactInput {
            callsign: call.into(),
            frequency: 14.062,
            mode: "cw".into(),
            time_on: time_on.into(),
            ..Default::default()
        }
        .pending("c", crate::Timestamp(0))
    }

    #[test]
    fn one_qso_read_with_two_parks_is_a_two_fer() {
        let at = |park| Filed {
            my_sig: Some("POTA"),
            my_sig_info: Some(park),
            station_callsign: Some("w1aw"),
            ..filed("2026-11-22T14:05:00Z")
        };
        let q = |call| heard(call, "2026-11-22T14:05:00Z");
        let mut two = TwoFers::default();
        // Each park's file holds the QSO; the second file is read first here.
        two.note("q1".into(), &at("us-5678"), q("N0AA").qso());
        two.note("q1".into(), &at("US-1234"), q("N0AA").qso());
        two.note("q2".into(), &at("US-1234"), q("N0AB").qso());
        two.note("q3".into(), &at("US-1234,US-5678"), q("N0AC").qso());
        // A hunter's record and an unreadable park are no activator's.
        two.note("q4".into(), &filed("2026-11-22T14:05:00Z"), q("N0AD").qso());
        two.note("q5".into(), &at("nonsense"), q("N0AE").qso());
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

        // The activations they go to, each with its QSOs: the two-fer's twice-read QSO once.
        let places = two.activations("K1ABC");
        let place = |parks: &str| Place::Activation {
            callsign: "W1AW".into(),
            parks: parks.into(),
            day: "20261122".into(),
        };
        assert_eq!(places.len(), 2, "{places:?}");
        assert_eq!(
            places[&place("US-1234,US-5678")],
            BTreeSet::from([q("N0AA").qso(), q("N0AC").qso()])
        );
        assert_eq!(places[&place("US-1234")], BTreeSet::from([q("N0AB").qso()]));
    }

    #[test]
    fn a_qso_is_its_call_band_mode_and_minute() {
        let a = heard("n0aa", "2026-11-22T14:05:10Z");
        assert_eq!(a.qso(), heard("N0AA ", "2026-11-22T14:05:59Z").qso());
        assert_ne!(a.qso(), heard("N0AA", "2026-11-22T14:06:00Z").qso());
        assert_ne!(a.qso(), heard("N0AB", "2026-11-22T14:05:10Z").qso());
        let mut on_40 = a.clone();
        on_40.band = "40m".into();
        assert_ne!(a.qso(), on_40.qso());
    }

    #[test]
    fn an_imports_qsos_meet_a_stored_activation_at_other_parks() {
        let qsos = |calls: &[&str]| {
            calls
                .iter()
                .map(|c| heard(c, "2026-11-22T14:05:00Z").qso())
                .collect::<BTreeSet<_>>()
        };
        let stored = qsos(&["N0AA", "N0AB"]);
        // The other park's file of the same QSOs: the activation is at that park too.
        assert_eq!(
            Meeting::of("US-1234", &stored, "US-5678", &stored),
            Some(Meeting::AtMoreParks)
        );
        // One park's file of a stored two-fer, whole or in part: there already.
        assert_eq!(
            Meeting::of("US-1234,US-5678", &stored, "US-5678", &qsos(&["N0AB"])),
            Some(Meeting::Within)
        );
        assert_eq!(
            Meeting::of("US-5678,US-1234", &stored, "US-1234,US-5678", &stored),
            Some(Meeting::Within)
        );
        // A QSO it lacks, fewer QSOs than it holds at a new park, a list overlapping its
        // own, or nothing: another activation.
        assert_eq!(
            Meeting::of("US-1234", &stored, "US-5678", &qsos(&["N0AA", "N0AC"])),
            None
        );
        assert_eq!(
            Meeting::of("US-1234", &stored, "US-5678", &qsos(&["N0AA"])),
            None
        );
        assert_eq!(
            Meeting::of("US-1234", &stored, "US-1234,US-5678", &stored),
            None
        );
        assert_eq!(
            Meeting::of("US-1234", &stored, "US-5678", &BTreeSet::new()),
            None
        );
    }
}
