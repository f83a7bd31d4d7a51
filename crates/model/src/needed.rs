//! What a station heard on the air would bring the log, for the colours a decode gets in
//! WSJT-X (its HighlightCallsign message) the way JTAlert gives them: a new DXCC entity, a new
//! band for an entity worked before, or a dupe (worked today on this band and mode, which a
//! second contact would only repeat). Reckoned from the contacts the logger holds, so that it
//! answers with the link down, and from the country file, for a call's entity.

use std::collections::HashSet;

use super::band::band_for_mhz;
use super::contact::{Contact, ContactInput};
use super::dxcc::Dxcc;
use super::fields::{Field, Fields};
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

/// The log as [`Worked::need`] reads it: entities, entities by band, and today's contacts.
#[derive(Debug, Default, Clone)]
pub struct Worked {
    entities: HashSet<u16>,
    entity_bands: HashSet<(u16, String)>,
    /// Upper-case call, band, mode and UTC day of each contact.
    days: HashSet<(String, String, String, i64)>,
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
        let entity = fields
            .get(Field::Dxcc)
            .and_then(|n| n.parse().ok())
            .or_else(|| dxcc.resolve(callsign).map(|e| e.dxcc));
        let band = band.to_ascii_lowercase();
        // Entity 0 is "none" (a maritime mobile): no award counts it.
        if let Some(entity) = entity.filter(|&n| n != 0) {
            self.entities.insert(entity);
            self.entity_bands.insert((entity, band.clone()));
        }
        self.days.insert((
            callsign.trim().to_ascii_uppercase(),
            band,
            mode.trim().to_ascii_uppercase(),
            time_on.utc_day(),
        ));
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
        let band = band.to_ascii_lowercase();
        let today = (
            call.trim().to_ascii_uppercase(),
            band.clone(),
            mode.to_ascii_uppercase(),
            now.utc_day(),
        );
        if self.days.contains(&today) {
            return Some(Need::Dupe);
        }
        let entity = dxcc.resolve(call)?.dxcc;
        if entity == 0 {
            None
        } else if !self.entities.contains(&entity) {
            Some(Need::NewEntity)
        } else if !self.entity_bands.contains(&(entity, band)) {
            Some(Need::NewBand)
        } else {
            None
        }
    }
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
