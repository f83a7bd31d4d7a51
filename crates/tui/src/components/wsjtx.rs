//! WSJT-X (JTDX, MSHV) heard over UDP: what its Status says it is doing, for the status bar
//! and the entry form's who-lines, whether it is still there, and the contacts its QSO
//! Logged and Logged ADIF messages make, each with the key that logs it once. The runtime
//! listens and hands each message over; the flow that logs them is the app's.

use std::net::SocketAddr;

use svc_model::band::band_for_mhz;
use svc_model::contact::dupe_key;
use svc_model::{Contact, ContactInput, Timestamp};
use svc_wsjtx::{Message, Status};

use crate::components::rig::hz_text;

/// WSJT-X sends a heartbeat every 15 s: two missed, and it is taken as gone.
pub const LOST_AFTER_MS: i64 = 30_000;

/// WSJT-X as the logbook hears it.
#[derive(Debug, Clone)]
pub struct WsjtxPanel {
    /// Where the logbook listens.
    pub address: SocketAddr,
    /// Its last Status.
    pub status: Option<Status>,
    /// When it was last heard from, if ever since it started or closed.
    pub heard: Option<Timestamp>,
}

impl WsjtxPanel {
    pub fn new(address: SocketAddr) -> WsjtxPanel {
        WsjtxPanel {
            address,
            status: None,
            heard: None,
        }
    }

    /// Whether it was heard and has not been for [`LOST_AFTER_MS`].
    pub fn lost(&self, now: Timestamp) -> bool {
        self.heard
            .is_some_and(|at| now.millis() - at.millis() > LOST_AFTER_MS)
    }

    /// A message came at `now`: its Status kept, a Close forgets it. Whether it is heard
    /// anew (first, or after it was lost or closed), which is said once.
    pub fn hear(&mut self, message: &Message, now: Timestamp) -> bool {
        if let Message::Close { .. } = message {
            self.status = None;
            self.heard = None;
            return false;
        }
        let anew = self.heard.is_none() || self.lost(now);
        self.heard = Some(now);
        if let Message::Status(status) = message {
            self.status = Some(status.clone());
        }
        anew
    }

    /// The status bar's part, and whether it is a failure: `WSJT-X 14.074 FT8 → K1ABC` (`tx`
    /// after it while transmitting), `WSJT-X lost`, or `WSJT-X …` before it is heard.
    pub fn label(&self, now: Timestamp) -> (String, bool) {
        if self.lost(now) {
            return ("WSJT-X lost".to_owned(), true);
        }
        let Some(s) = self.status.as_ref().filter(|_| self.heard.is_some()) else {
            let text = if self.heard.is_some() {
                "WSJT-X"
            } else {
                "WSJT-X …"
            };
            return (text.to_owned(), false);
        };
        let mut text = format!("WSJT-X {} {}", hz_text(s.dial_frequency), s.mode.trim());
        let dx = s.dx_call.trim();
        if !dx.is_empty() {
            text.push_str(&format!(" → {}", dx.to_ascii_uppercase()));
        }
        if s.transmitting {
            text.push_str(" tx");
        }
        (text, false)
    }

    /// The call WSJT-X is working, while it is heard.
    pub fn dx_call(&self, now: Timestamp) -> Option<String> {
        if self.lost(now) {
            return None;
        }
        let call = self.status.as_ref()?.dx_call.trim();
        (!call.is_empty()).then(|| call.to_ascii_uppercase())
    }

    /// The contact of `contacts` that working the DX call now would duplicate: the service's
    /// duplicate key of that call on WSJT-X's band and mode today.
    pub fn duplicate<'a>(
        &self,
        contacts: impl IntoIterator<Item = &'a Contact>,
        now: Timestamp,
    ) -> Option<&'a Contact> {
        let call = self.dx_call(now)?;
        let status = self.status.as_ref()?;
        let band = band_for_mhz(status.dial_frequency as f64 / 1e6)?;
        let mode = svc_wsjtx::mode_name(&status.mode);
        let key = dupe_key(&call, band, &mode, None, None, now);
        contacts
            .into_iter()
            .filter(|c| c.callsign.eq_ignore_ascii_case(&call))
            .find(|c| c.dupe_key() == key)
    }
}

/// The contacts a Logged ADIF holds, each with its key: [`svc_wsjtx::once_key_of`], as the
/// QSO Logged of the same QSO keys it, so the two are logged once. Records that make no
/// contact are passed over: WSJT-X keeps its own log, and its QSO Logged is the one relied on.
pub fn adif_contacts(adif: &str) -> Vec<(ContactInput, String)> {
    let Ok(reader) = svc_adif::Reader::new(adif.as_bytes()) else {
        return Vec::new();
    };
    reader
        .filter_map(|record| record.ok())
        .filter_map(|record| svc_adif::contact::imported(&record).ok())
        .map(|imported| {
            let key = svc_wsjtx::once_key_of(&imported.contact);
            (imported.contact, key)
        })
        .collect()
}

/// `K1ABC 20m FT8`: which contact WSJT-X logged.
pub fn named(contact: &ContactInput) -> String {
    format!(
        "{} {} {}",
        contact.callsign,
        band_for_mhz(contact.frequency).unwrap_or("?"),
        contact.mode
    )
}

/// `K1ABC 20m FT8 -12/-07`: a contact WSJT-X logged, with its reports.
pub fn describe(contact: &ContactInput) -> String {
    let report = |r: &Option<String>| r.clone().unwrap_or_else(|| "-".to_owned());
    format!(
        "{} {}/{}",
        named(contact),
        report(&contact.rst_sent),
        report(&contact.rst_received)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(hz: u64, mode: &str, dx: &str, tx: bool) -> Message {
        Message::Status(Status {
            id: "WSJT-X".into(),
            dial_frequency: hz,
            mode: mode.into(),
            dx_call: dx.into(),
            tx_mode: mode.into(),
            tx_enabled: tx,
            transmitting: tx,
            rx_df: 1500,
            tx_df: 1500,
            de_call: "W1AW".into(),
            de_grid: "FN31".into(),
            ..Status::default()
        })
    }

    #[test]
    fn the_label_says_what_wsjtx_does_and_when_it_is_gone() {
        let t0 = Timestamp(1_000_000);
        let mut panel = WsjtxPanel::new("127.0.0.1:2237".parse().unwrap());
        assert_eq!(panel.label(t0), ("WSJT-X …".to_owned(), false));
        assert!(panel.hear(&status(14_074_000, "FT8", "k1abc", false), t0));
        assert_eq!(
            panel.label(t0).0,
            "WSJT-X 14.074 FT8 → K1ABC",
            "the DX call upper-cased"
        );
        assert_eq!(panel.dx_call(t0).as_deref(), Some("K1ABC"));
        let t1 = Timestamp(t0.millis() + 15_000);
        assert!(!panel.hear(&status(7_074_000, "FT4", "", true), t1));
        assert_eq!(panel.label(t1).0, "WSJT-X 7.074 FT4 tx");
        assert_eq!(panel.dx_call(t1), None);
        let late = Timestamp(t1.millis() + LOST_AFTER_MS + 1);
        assert_eq!(panel.label(late), ("WSJT-X lost".to_owned(), true));
        assert!(panel.hear(&status(7_074_000, "FT4", "G4ABC", false), late));
        panel.hear(
            &Message::Close {
                id: "WSJT-X".into(),
            },
            late,
        );
        assert_eq!(panel.label(late).0, "WSJT-X …");
        assert_eq!(panel.dx_call(late), None);
    }

    #[test]
    fn a_logged_adif_keys_as_its_qso_logged_and_bad_text_makes_nothing() {
        let adif = "<adif_ver:5>3.1.0 <EOH>\n<call:5>K1ABC <mode:3>FT8 <qso_date:8>20261122 \
                    <time_on:6>140100 <freq:7>14.0755 <rst_sent:3>-12 <rst_rcvd:3>-07 <EOR>";
        let contacts = adif_contacts(adif);
        assert_eq!(contacts.len(), 1);
        let (contact, key) = &contacts[0];
        assert_eq!(describe(contact), "K1ABC 20m FT8 -12/-07");
        let at = Timestamp::parse("t", "2026-11-22T14:01:00.250Z").ok();
        assert_eq!(
            *key,
            svc_wsjtx::once_key_for("k1abc", at, 14.0755, "ft8"),
            "to the second, the band and the mode's name"
        );
        assert!(adif_contacts("<call:5>K1").is_empty());
        assert!(adif_contacts("<eoh>").is_empty());
    }
}
