//! What a station heard on the air or typed in the logbook's form would bring the log: for
//! the colours a decode gets in WSJT-X (its HighlightCallsign message) the way JTAlert gives
//! them — a new DXCC entity, a new band for an entity worked before, or a dupe (worked today on
//! this band and mode, which a second contact would only repeat) — and for the entry form's
//! line while a call is typed ([`Wanted`]): a new one, a new band or mode class for the entity,
//! a WAS state not worked, and how often and when this callsign was worked. Reckoned from the
//! contacts the logger holds, so that it answers with the link down, and from the country file,
//! for a call's entity; the entity and state of a contact are the awards' rules
//! ([`contact_entity`], [`was_state`]), so the form and `svc awards` never disagree.

use std::collections::{HashMap, HashSet};

use super::awards::{contact_entity, was_state};
use super::band::band_for_mhz;
use super::contact::{Contact, ContactInput};
use super::dxcc::Dxcc;
use super::fields::{Field, Fields};
use super::mode::PotaMode;
use super::time::Timestamp;

/// What working a call now would be; nothing notable is `None` where it is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// An entity the log has no contact with.
    NewEntity,
    /// An entity worked before, never on this band.
    NewBand,
    /// The call was worked today (UTC) on this band and mode.
    Dupe,
}

/// This callsign in the log: how many contacts, and the newest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Before {
    pub times: u32,
    pub last: Timestamp,
    /// The newest contact's band (lower case, `20m`) and mode, as logged.
    pub band: String,
    pub mode: String,
}

/// What working a call on a band and mode would bring, as the entry form says it while the
/// call is typed ([`Worked::wanted`]). Nothing to say is the default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Wanted {
    /// An entity the log has no contact with (`new one`).
    pub new_entity: bool,
    /// An entity worked before, never on this band.
    pub new_band: bool,
    /// An entity worked before, never in this mode class (CW, phone, data: the awards').
    pub new_mode: bool,
    /// The WAS state the station is in, when no contact of the log counts for it.
    pub was: Option<&'static str>,
    /// This callsign in the log, when it was worked before.
    pub before: Option<Before>,
}

impl Wanted {
    /// Whether there is anything to say.
    pub fn is_empty(&self) -> bool {
        *self == Wanted::default()
    }
}

/// The log as [`Worked::need`] and [`Worked::wanted`] read it: entities, entities by band and
/// by mode class, WAS states, and each callsign's contacts (how many, the newest, and the band,
/// mode and UTC day of each). Every question is a few hash lookups, so it answers within a
/// keystroke on a log of any size; the logbook keeps one all the time it runs, so a contact
/// costs a few bytes in it, its band and mode an index into the few the log has.
#[derive(Debug, Default, Clone)]
pub struct Worked {
    entities: HashSet<u16>,
    entity_bands: HashSet<(u16, u16)>,
    entity_classes: HashSet<(u16, PotaMode)>,
    states: HashSet<&'static str>,
    /// By upper-case callsign.
    calls: HashMap<Box<str>, Calls>,
    /// The log's bands (lower case) and modes (upper case), each once.
    bands: Names,
    modes: Names,
}

/// One callsign's contacts.
#[derive(Debug, Clone)]
struct Calls {
    times: u32,
    last: Timestamp,
    /// The newest contact's band and mode.
    last_band: u16,
    last_mode: u16,
    /// The band, mode and UTC day of each contact, each once.
    days: Vec<(u16, u16, i32)>,
}

/// Names each kept once, known by their index.
#[derive(Debug, Default, Clone)]
struct Names(Vec<Box<str>>);

impl Names {
    fn find(&self, name: &str) -> Option<u16> {
        self.0
            .iter()
            .position(|n| **n == *name)
            .and_then(|i| u16::try_from(i).ok())
    }

    fn index(&mut self, name: &str) -> u16 {
        self.find(name).unwrap_or_else(|| {
            self.0.push(name.into());
            // A log names a few dozen bands and modes, never 65,536.
            u16::try_from(self.0.len() - 1).unwrap_or(u16::MAX)
        })
    }

    fn name(&self, index: u16) -> &str {
        self.0.get(usize::from(index)).map_or("", |n| n)
    }
}

impl Worked {
    /// The log of `contacts`, each contact's entity its own `dxcc` field, else its call's.
    pub fn of<'a>(dxcc: &Dxcc, contacts: impl IntoIterator<Item = &'a Contact>) -> Worked {
        let mut worked = Worked::default();
        for contact in contacts {
            worked.add(dxcc, contact);
        }
        worked
    }

    /// Takes one more contact in: one just logged.
    pub fn add(&mut self, dxcc: &Dxcc, contact: &Contact) {
        self.add_one(
            dxcc,
            &contact.fields,
            &contact.callsign,
            &contact.band,
            &contact.mode,
            contact.time_on,
        );
    }

    /// Takes in a contact logged and not yet stored (one waiting to be sent), as the service
    /// will store it; one it would refuse (no band, no time) counts for nothing.
    pub fn add_input(&mut self, dxcc: &Dxcc, contact: &ContactInput) {
        let (Some(band), Ok(time_on)) = (
            band_for_mhz(contact.frequency),
            Timestamp::parse("timeOn", &contact.time_on),
        ) else {
            return;
        };
        self.add_one(
            dxcc,
            &contact.fields,
            &contact.callsign,
            band,
            &contact.mode,
            time_on,
        );
    }

    fn add_one(
        &mut self,
        dxcc: &Dxcc,
        fields: &Fields,
        callsign: &str,
        band: &str,
        mode: &str,
        time_on: Timestamp,
    ) {
        let entity = contact_entity(dxcc, fields, callsign);
        let band = self.bands.index(&band.to_ascii_lowercase());
        let mode_name = mode.trim().to_ascii_uppercase();
        let mode = self.modes.index(&mode_name);
        // Entity 0 is "none" (a maritime mobile): no award counts it.
        if let Some(entity) = entity {
            self.entities.insert(entity);
            self.entity_bands.insert((entity, band));
            self.entity_classes
                .insert((entity, PotaMode::of(&mode_name)));
        }
        if let Some(state) = was_state(entity, fields.get(Field::State)) {
            self.states.insert(state);
        }
        let call = callsign.trim().to_ascii_uppercase();
        let day = utc_day(time_on);
        match self.calls.get_mut(call.as_str()) {
            Some(calls) => {
                calls.times += 1;
                if time_on >= calls.last {
                    calls.last = time_on;
                    calls.last_band = band;
                    calls.last_mode = mode;
                }
                if !calls.days.contains(&(band, mode, day)) {
                    calls.days.push((band, mode, day));
                }
            }
            None => {
                self.calls.insert(
                    call.into(),
                    Calls {
                        times: 1,
                        last: time_on,
                        last_band: band,
                        last_mode: mode,
                        days: vec![(band, mode, day)],
                    },
                );
            }
        }
    }

    /// What working `call` on `band` in `mode` at `now` would be. A dupe comes first: a
    /// second contact today adds nothing, whatever the entity. A call the country file does
    /// not place is no new entity.
    pub fn need(
        &self,
        dxcc: &Dxcc,
        call: &str,
        band: &str,
        mode: &str,
        now: Timestamp,
    ) -> Option<Need> {
        let band = self.bands.find(&band.to_ascii_lowercase());
        let mode = self.modes.find(&mode.trim().to_ascii_uppercase());
        let calls = self.calls.get(call.trim().to_ascii_uppercase().as_str());
        if let (Some(calls), Some(band), Some(mode)) = (calls, band, mode)
            && calls.days.contains(&(band, mode, utc_day(now)))
        {
            return Some(Need::Dupe);
        }
        let entity = dxcc.resolve(call)?.dxcc;
        if entity == 0 {
            None
        } else if !self.entities.contains(&entity) {
            Some(Need::NewEntity)
        } else if !band.is_some_and(|b| self.entity_bands.contains(&(entity, b))) {
            Some(Need::NewBand)
        } else {
            None
        }
    }

    /// What working `call` would bring the log, for the entry form: on `band` (none while the
    /// frequency is in no band) in `mode` (none while it is empty), the station in the US
    /// `state` when the form or the callbook knows it. A new one says neither new band nor
    /// new mode, which it is too. A call the country file does not place, or places in no
    /// entity, is new for nothing but its own count.
    pub fn wanted(
        &self,
        dxcc: &Dxcc,
        call: &str,
        band: Option<&str>,
        mode: &str,
        state: Option<&str>,
    ) -> Wanted {
        let call = call.trim().to_ascii_uppercase();
        let mut wanted = Wanted {
            before: self.calls.get(call.as_str()).map(|c| Before {
                times: c.times,
                last: c.last,
                band: self.bands.name(c.last_band).to_owned(),
                mode: self.modes.name(c.last_mode).to_owned(),
            }),
            ..Wanted::default()
        };
        let Some(entity) = dxcc.resolve(&call).map(|e| e.dxcc).filter(|&e| e != 0) else {
            return wanted;
        };
        wanted.new_entity = !self.entities.contains(&entity);
        if !wanted.new_entity {
            // A band the log never names is new for every entity.
            wanted.new_band = band.is_some_and(|b| {
                !self
                    .bands
                    .find(&b.to_ascii_lowercase())
                    .is_some_and(|b| self.entity_bands.contains(&(entity, b)))
            });
            let mode = mode.trim();
            wanted.new_mode =
                !mode.is_empty() && !self.entity_classes.contains(&(entity, PotaMode::of(mode)));
        }
        wanted.was = was_state(Some(entity), state).filter(|s| !self.states.contains(s));
        wanted
    }
}

/// A UTC day as the log keeps it: days since 1970 fit an `i32` for millions of years.
fn utc_day(t: Timestamp) -> i32 {
    i32::try_from(t.utc_day()).unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contact(call: &str, band: &str, mode: &str, at: &str) -> Contact {
        Contact {
            id: "qso_aaaaaaaaaaaaaaaa".into(),
            folder_id: "fld_aaaaaaaaaaaaaaaa".into(),
            callsign: call.into(),
            frequency: 14.074,
            band: band.into(),
            mode: mode.into(),
            time_on: Timestamp::parse("t", at).unwrap(),
            rst_sent: None,
            rst_received: None,
            name: None,
            notes: None,
            sig: None,
            sig_info: None,
            my_sig: None,
            my_sig_info: None,
            activation_id: None,
            station_callsign: None,
            fields: Fields::default(),
            created_at: Timestamp(0),
            duplicate_of: None,
            external: Vec::new(),
        }
    }

    #[test]
    fn a_call_is_a_dupe_a_new_entity_a_new_band_or_nothing() {
        let dxcc = Dxcc::shipped();
        let worked = Worked::of(
            &dxcc,
            &[
                contact("K1ABC", "20m", "FT8", "2026-11-28T10:00:00Z"),
                contact("DL1XYZ", "40m", "FT8", "2026-11-27T10:00:00Z"),
            ],
        );
        let now = Timestamp::parse("t", "2026-11-28T12:00:00Z").unwrap();
        let need = |call, band, mode| worked.need(&dxcc, call, band, mode, now);
        assert_eq!(need("k1abc", "20M", "ft8"), Some(Need::Dupe));
        // Another mode, another band, another day: no dupe; the entity was worked on 20 m.
        assert_eq!(need("K1ABC", "20m", "FT4"), None);
        assert_eq!(need("K1ABC", "40m", "FT8"), Some(Need::NewBand));
        assert_eq!(need("DL1XYZ", "40m", "FT8"), None, "yesterday's");
        assert_eq!(need("DL2AA", "20m", "FT8"), Some(Need::NewBand));
        assert_eq!(need("JA1ZZZ", "20m", "FT8"), Some(Need::NewEntity));
        assert_eq!(need("Q0Q", "20m", "FT8"), None, "placed nowhere");
    }

    #[test]
    fn a_contact_counts_for_the_entity_it_names() {
        let dxcc = Dxcc::shipped();
        // Logged as Alaska (DXCC 6) from a call that reads as the USA.
        let mut alaska = contact("W1AW", "20m", "FT8", "2026-11-01T10:00:00Z");
        alaska.fields.set(Field::Dxcc, Some("6".into()));
        let mut worked = Worked::of(&dxcc, [&alaska]);
        let now = Timestamp::parse("t", "2026-11-28T12:00:00Z").unwrap();
        assert_eq!(
            worked.need(&dxcc, "KL7AA", "20m", "FT8", now),
            None,
            "Alaska worked on 20 m"
        );
        assert_eq!(
            worked.need(&dxcc, "K2AA", "20m", "FT8", now),
            Some(Need::NewEntity)
        );
        worked.add(
            &dxcc,
            &contact("K2AA", "20m", "FT8", "2026-11-28T12:00:00Z"),
        );
        assert_eq!(
            worked.need(&dxcc, "K2AA", "20m", "FT8", now),
            Some(Need::Dupe)
        );
        assert_eq!(worked.need(&dxcc, "K3AA", "20m", "FT8", now), None);
    }

    fn in_state(mut c: Contact, state: &str) -> Contact {
        c.fields.set(Field::State, Some(state.into()));
        c
    }

    #[test]
    fn a_call_is_a_new_one_a_new_band_or_a_new_mode_for_its_entity() {
        let dxcc = Dxcc::shipped();
        let worked = Worked::of(
            &dxcc,
            &[
                contact("K1ABC", "20m", "FT8", "2026-11-28T10:00:00Z"),
                contact("DL1XYZ", "40m", "CW", "2026-11-27T10:00:00Z"),
            ],
        );
        let wanted = |call, band, mode| worked.wanted(&dxcc, call, band, mode, None);
        let new_one = wanted("JA1ZZZ", Some("20m"), "SSB");
        assert!(new_one.new_entity, "{new_one:?}");
        // A new one is new on every band and mode too, and says only that.
        assert!(!new_one.new_band && !new_one.new_mode, "{new_one:?}");
        let band = wanted("DL2AA", Some("20M"), "CW");
        assert!(
            band.new_band && !band.new_mode && !band.new_entity,
            "{band:?}"
        );
        // FT4 is the same class as FT8 (data); SSB is not.
        let mode = wanted("W2AA", Some("20m"), "ft4");
        assert!(mode.is_empty(), "{mode:?}");
        let mode = wanted("W2AA", Some("20m"), "SSB");
        assert!(mode.new_mode && !mode.new_band, "{mode:?}");
        let both = wanted("N3AA", Some("40m"), "CW");
        assert!(both.new_band && both.new_mode, "{both:?}");
        // No band (a frequency in none) and no mode yet: nothing new but the entity.
        assert!(wanted("W2AA", None, "").is_empty());
        assert!(wanted("JA1ZZZ", None, "").new_entity);
        // A call placed nowhere, a maritime mobile: no entity to be new.
        assert!(wanted("Q0Q", Some("20m"), "FT8").is_empty());
        assert!(wanted("W1AW/MM", Some("20m"), "FT8").is_empty());
    }

    #[test]
    fn a_state_not_worked_is_needed_for_was() {
        let dxcc = Dxcc::shipped();
        let mut ct = in_state(contact("W1AW", "20m", "SSB", "2026-11-01T10:00:00Z"), "CT");
        // Washington DC counts as Maryland, as ARRL counts it.
        let dc = in_state(contact("K3DC", "20m", "SSB", "2026-11-01T11:00:00Z"), "DC");
        // A state value on a contact outside the USA counts for nothing.
        let ve = in_state(contact("VE3AA", "20m", "SSB", "2026-11-01T12:00:00Z"), "ME");
        let mut worked = Worked::of(&dxcc, [&ct, &dc, &ve]);
        let was = |w: &Worked, call, state| w.wanted(&dxcc, call, Some("20m"), "SSB", state).was;
        assert_eq!(was(&worked, "K1ABC", Some("ct")), None, "worked");
        assert_eq!(was(&worked, "K3ABC", Some("MD")), None, "DC is Maryland");
        assert_eq!(was(&worked, "K1ABC", Some("ME")), Some("ME"));
        assert_eq!(
            was(&worked, "KL7AA", Some("AK")),
            Some("AK"),
            "Alaska counts"
        );
        assert_eq!(was(&worked, "K1ABC", None), None, "no state known");
        assert_eq!(was(&worked, "K1ABC", Some("XX")), None, "no state");
        assert_eq!(was(&worked, "VE3AB", Some("ON")), None, "not the USA");
        // Logged as Canada by its entity field, from a call that reads as the USA: its state
        // counts for nothing; logged in the USA, it counts.
        ct.callsign = "W1AX".into();
        ct.fields.set(Field::State, Some("ME".into()));
        ct.fields.set(Field::Dxcc, Some("1".into()));
        worked.add(&dxcc, &ct);
        assert_eq!(was(&worked, "K1ABC", Some("ME")), Some("ME"), "Canada's ME");
        ct.fields.set(Field::Dxcc, None);
        worked.add(&dxcc, &ct);
        assert_eq!(was(&worked, "K1ABC", Some("ME")), None);
    }

    #[test]
    fn a_call_worked_before_says_how_often_and_when_last() {
        let dxcc = Dxcc::shipped();
        let worked = Worked::of(
            &dxcc,
            &[
                contact("K1ABC", "40m", "CW", "2026-10-12T20:00:00Z"),
                contact("k1abc", "20m", "SSB", "2026-10-12T21:00:00Z"),
                contact("K1ABC", "15m", "FT8", "2026-09-01T10:00:00Z"),
                contact("K1ABC/P", "20m", "SSB", "2026-11-01T10:00:00Z"),
            ],
        );
        let before = worked
            .wanted(&dxcc, " k1abc ", Some("20m"), "SSB", None)
            .before
            .unwrap();
        assert_eq!(before.times, 3);
        assert_eq!(before.last.to_string(), "2026-10-12T21:00:00Z");
        assert_eq!((before.band.as_str(), before.mode.as_str()), ("20m", "SSB"));
        assert_eq!(
            worked
                .wanted(&dxcc, "K1ABC/P", None, "", None)
                .before
                .map(|b| b.times),
            Some(1),
            "a portable call is a call of its own"
        );
        assert_eq!(worked.wanted(&dxcc, "K1ABD", None, "", None).before, None);
    }

    #[test]
    fn a_contact_waiting_to_be_sent_counts_as_one_stored() {
        let dxcc = Dxcc::shipped();
        let waiting: ContactInput = serde_json::from_value(serde_json::json!({
            "folderId": "fld_aaaaaaaaaaaaaaaa",
            "callsign": "ja1zzz",
            "frequency": 14.074,
            "mode": "FT8",
            "timeOn": "2026-11-28T11:59:00Z",
        }))
        .unwrap();
        let mut worked = Worked::default();
        let now = Timestamp::parse("t", "2026-11-28T12:00:00Z").unwrap();
        assert_eq!(
            worked.need(&dxcc, "JA1ZZZ", "20m", "FT8", now),
            Some(Need::NewEntity)
        );
        worked.add_input(&dxcc, &waiting);
        assert_eq!(
            worked.need(&dxcc, "JA1ZZZ", "20m", "FT8", now),
            Some(Need::Dupe)
        );
        assert_eq!(
            worked.need(&dxcc, "JA2AAA", "40m", "FT8", now),
            Some(Need::NewBand)
        );
        // One the service would refuse (no band at this frequency) counts for nothing.
        let mut nowhere = waiting.clone();
        nowhere.callsign = "VK2AA".into();
        nowhere.frequency = 1234.5;
        worked.add_input(&dxcc, &nowhere);
        assert_eq!(
            worked.need(&dxcc, "VK3AA", "20m", "FT8", now),
            Some(Need::NewEntity)
        );
    }
}
