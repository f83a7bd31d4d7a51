//! What an award reads of a contact, and nothing more: a log of 100,000 contacts is read for
//! every award asked, and the store reads these columns and fields alone rather than whole
//! contacts.

use crate::confirm::QRZ_STATUS_FIELD;
use crate::contact::Contact;
use crate::fields::{Field, Fields};
use crate::time::Timestamp;

/// The contact fields an award reads ([`Entry::fields`] holds these alone). The store reads
/// just these of a contact's fields; a rule that reads another must add it here.
pub const READ: [Field; 8] = [
    Field::Dxcc,
    Field::State,
    Field::Cqz,
    Field::Gridsquare,
    Field::PropMode,
    Field::LotwQslRcvd,
    Field::EqslQslRcvd,
    Field::QslRcvd,
];

/// The other ADIF fields an award reads: QRZ's confirmation.
pub const READ_ADIF: [&str; 1] = [QRZ_STATUS_FIELD];

/// What a contact must carry for an award to count it at all, so that a store hands the
/// award only such contacts rather than the whole log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// A `state` value (WAS).
    State,
    /// A `gridsquare` value (VUCC).
    Grid,
    /// A park hunted: `sigInfo` (POTA hunter).
    Park,
    /// A park activated: `mySigInfo` (POTA activator).
    OwnPark,
}

/// One contact as an award reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub callsign: String,
    pub band: String,
    pub mode: String,
    pub time_on: Timestamp,
    pub sig: Option<String>,
    pub sig_info: Option<String>,
    pub my_sig: Option<String>,
    pub my_sig_info: Option<String>,
    /// The fields of [`READ`] and [`READ_ADIF`] the contact has, and no others.
    pub fields: Fields,
}

impl From<&Contact> for Entry {
    fn from(c: &Contact) -> Entry {
        let mut fields =
            Fields::of_values(READ.into_iter().filter_map(|f| Some((f, c.fields.get(f)?))));
        for name in READ_ADIF {
            if let Some(value) = c.fields.adif.get(name) {
                fields.adif.insert(name.to_owned(), value.clone());
            }
        }
        Entry {
            callsign: c.callsign.clone(),
            band: c.band.clone(),
            mode: c.mode.clone(),
            time_on: c.time_on,
            sig: c.sig.clone(),
            sig_info: c.sig_info.clone(),
            my_sig: c.my_sig.clone(),
            my_sig_info: c.my_sig_info.clone(),
            fields,
        }
    }
}
