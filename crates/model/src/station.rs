//! Station profiles: what an account's own station is (its grid, state, county, rig, antenna
//! and power) under one of its station callsigns, and the rule that fills a new contact's
//! MY_* fields from it.
//!
//! A profile's values are contact fields ([`PROFILE_FIELDS`]), named on the wire and checked
//! as the contact fields they fill, so a profile can hold nothing a contact could not.

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::ApiError;
use super::callsign::normalize_callsign;
use super::contact::NewContact;
use super::fields::Field;

/// The contact fields a profile holds, in the order they are listed.
pub const PROFILE_FIELDS: [Field; 6] = [
    Field::MyGridsquare,
    Field::MyState,
    Field::MyCnty,
    Field::MyRig,
    Field::MyAntenna,
    Field::TxPwr,
];

/// One station profile: the station callsign it is for and its values in their stored form
/// (`Def::check`'s).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StationProfile {
    pub callsign: String,
    values: BTreeMap<Field, String>,
}

impl StationProfile {
    /// Reads a profile for `callsign` from a JSON object of contact wire names
    /// (`myGridsquare`, `txPwr`, …): each value is checked as the contact field it fills and
    /// any other name is refused, so the error names what to fix. A profile with no value is
    /// refused: it would fill nothing.
    pub fn read(callsign: &str, body: &Map<String, Value>) -> Result<StationProfile, ApiError> {
        let callsign = normalize_callsign("callsign", callsign)?;
        for name in body.keys() {
            if !PROFILE_FIELDS.iter().any(|f| f.def().wire == name) {
                return Err(ApiError::field(
                    name,
                    format!(
                        "{name} is not a station profile field; a profile takes {}",
                        wire_names()
                    ),
                ));
            }
        }
        let mut values = BTreeMap::new();
        for field in PROFILE_FIELDS {
            let def = field.def();
            let Some(value) = body.get(def.wire) else {
                continue;
            };
            if let Some(text) = def.text_of(value)?
                && let Some(stored) = def.check(&text)?
            {
                values.insert(field, stored);
            }
        }
        if values.is_empty() {
            return Err(ApiError::field(
                "body",
                format!(
                    "the station profile of {callsign} has no value; give at least one of {} (DELETE removes a profile)",
                    wire_names()
                ),
            ));
        }
        Ok(StationProfile { callsign, values })
    }

    pub fn get(&self, field: Field) -> Option<&str> {
        self.values.get(&field).map(String::as_str)
    }

    /// The values as the store keeps them: a JSON object of wire names and stored text.
    pub fn stored(&self) -> String {
        let map: BTreeMap<&str, &str> = self
            .values
            .iter()
            .map(|(f, v)| (f.def().wire, v.as_str()))
            .collect();
        serde_json::to_string(&map).unwrap_or_else(|_| "{}".into())
    }

    /// A profile as the store kept it; a name this build does not hold is skipped, so a
    /// profile written by a newer build still reads.
    pub fn from_stored(callsign: &str, stored: &str) -> StationProfile {
        let map: BTreeMap<String, String> = serde_json::from_str(stored).unwrap_or_default();
        let values = map
            .into_iter()
            .filter_map(|(wire, v)| Some((Field::by_wire(&wire)?, v)))
            .filter(|(f, _)| PROFILE_FIELDS.contains(f))
            .collect();
        StationProfile {
            callsign: callsign.to_owned(),
            values,
        }
    }

    /// The profile a new contact takes: the one of its station callsign, or of `account` (the
    /// account's callsign) when it names none. A station callsign with no profile of its own
    /// takes none: a club's call or a portable one (W1XYZ/P) is elsewhere than the account's
    /// home station, whose grid would be wrong there.
    pub fn for_contact<'a>(
        profiles: &'a [StationProfile],
        contact: &NewContact,
        account: &str,
    ) -> Option<&'a StationProfile> {
        let station = contact
            .station_callsign
            .as_deref()
            .unwrap_or(account)
            .trim();
        profiles
            .iter()
            .find(|p| p.callsign.eq_ignore_ascii_case(station))
    }
}

fn wire_names() -> String {
    PROFILE_FIELDS
        .iter()
        .map(|f| f.def().wire)
        .collect::<Vec<_>>()
        .join(", ")
}

impl NewContact {
    /// Fills each of the profile's fields that the contact lacks from the profile of its
    /// station callsign ([`StationProfile::for_contact`]); what the contact gives (a field, or
    /// the `adif` map's entry of the same ADIF name) is never overwritten. The service applies
    /// it to the contacts logged through it (single and batch creates), not to imports: a file
    /// another logger wrote keeps what it says, and the station may have been elsewhere then.
    pub fn apply_station(&mut self, profiles: &[StationProfile], account: &str) {
        let Some(profile) = StationProfile::for_contact(profiles, self, account) else {
            return;
        };
        for field in PROFILE_FIELDS {
            let given =
                self.fields.get(field).is_some() || self.fields.adif.contains_key(field.def().adif);
            if let (false, Some(value)) = (given, profile.get(field)) {
                self.fields.set(field, Some(value.to_owned()));
            }
        }
    }
}

impl Serialize for StationProfile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = Map::new();
        map.insert("callsign".into(), Value::from(self.callsign.as_str()));
        for (field, value) in &self.values {
            map.insert(field.def().wire.into(), field.def().json(value));
        }
        map.serialize(s)
    }
}

impl<'de> Deserialize<'de> for StationProfile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut map = Map::<String, Value>::deserialize(d)?;
        let callsign = match map.remove("callsign") {
            Some(Value::String(c)) => c,
            _ => return Err(D::Error::custom("a station profile needs its callsign")),
        };
        StationProfile::read(&callsign, &map).map_err(|e| D::Error::custom(e.message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn profile(callsign: &str, body: Value) -> Result<StationProfile, ApiError> {
        StationProfile::read(callsign, body.as_object().unwrap())
    }

    #[test]
    fn values_are_checked_as_contact_fields() {
        let p = profile(
            "k1abc",
            json!({"myGridsquare": "fn42AB", "txPwr": 5, "myState": "ma"}),
        )
        .unwrap();
        assert_eq!(p.callsign, "K1ABC");
        assert_eq!(p.get(Field::MyGridsquare), Some("FN42ab"));
        assert_eq!(p.get(Field::MyState), Some("MA"));
        assert_eq!(p.get(Field::TxPwr), Some("5"));
        let e = profile("K1ABC", json!({"myGridsquare": "ZZ99"})).unwrap_err();
        assert!(e.message.contains("myGridsquare"), "{}", e.message);
        let e = profile("K1ABC", json!({"txPwr": -1})).unwrap_err();
        assert!(e.message.contains("txPwr"), "{}", e.message);
        let e = profile("K1ABC", json!({"gridsquare": "FN42"})).unwrap_err();
        assert!(e.message.contains("gridsquare"), "{}", e.message);
        assert!(profile("K1ABC", json!({})).is_err());
        assert!(profile("not a call", json!({"myState": "MA"})).is_err());
    }

    #[test]
    fn stored_form_reads_back() {
        let p = profile("K1ABC", json!({"myCnty": "Middlesex", "myRig": "KX2"})).unwrap();
        assert_eq!(StationProfile::from_stored("K1ABC", &p.stored()), p);
        let wire = serde_json::to_value(&p).unwrap();
        assert_eq!(serde_json::from_value::<StationProfile>(wire).unwrap(), p);
    }
}
