//! A contact as a row of a page's table of contacts (the log, an activation): the one view of
//! a contact the pages list, drawn by `assets/contacts.html`.

use super::html::When;
use svc_model::Contact;
use svc_model::confirm::marks;

pub(super) struct ContactRow {
    pub id: String,
    pub when: When,
    pub callsign: String,
    pub band: String,
    pub mode: String,
    /// MHz as the log keeps it, without trailing zeros.
    pub frequency: String,
    pub rst_sent: String,
    pub rst_received: String,
    pub park: String,
    pub name: String,
    /// `L`, `E`, `C`, `Q` (the model's marks); empty without any.
    pub confirmed: String,
    pub dupe: bool,
}

impl From<&Contact> for ContactRow {
    fn from(c: &Contact) -> ContactRow {
        ContactRow {
            id: c.id.clone(),
            when: When::minute(c.time_on),
            callsign: c.callsign.clone(),
            band: c.band.clone(),
            mode: c.mode.clone(),
            frequency: c.frequency.to_string(),
            rst_sent: c.rst_sent.clone().unwrap_or_default(),
            rst_received: c.rst_received.clone().unwrap_or_default(),
            park: c.sig_info.clone().unwrap_or_default(),
            name: c.name.clone().unwrap_or_default(),
            confirmed: marks(&c.fields),
            dupe: c.duplicate_of.is_some(),
        }
    }
}
