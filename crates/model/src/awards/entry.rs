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
    /// A `gridsquare` value on a band from 6 m up ([`super::vucc_bands`]) or by satellite
    /// (`propMode` SAT): VUCC, which a log mostly of HF contacts gives few.
    VhfGrid,
    /// A park hunted: `sigInfo` (POTA hunter).
    Park,
    /// A park activated: `mySigInfo` (POTA activator).
    OwnPark,
}

/// The fields every award but the activator reads of a contact beside its band and mode: the
/// propagation mode (a satellite contact's column) and the QSL services' confirmations, with
/// [`READ_ADIF`]'s.
pub const READ_BY_EVERY: [Field; 4] = [
    Field::PropMode,
    Field::LotwQslRcvd,
    Field::EqslQslRcvd,
    Field::QslRcvd,
];

/// What an award reads of a contact beside [`READ_BY_EVERY`], its band and mode, so that a
/// store may hand the award one entry for all the contacts alike in these
/// ([`Entry::read_by`]) rather than every contact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reads {
    /// The fields of [`READ`] it reads.
    pub fields: &'static [Field],
    /// The call, read only for a contact without this field (the entity or the zone the
    /// call gives).
    pub call_without: Option<Field>,
    /// The parks hunted: `sig` and `sigInfo`.
    pub parks: bool,
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

impl Entry {
    /// This entry as it stands for every contact alike in what `reads` reads: what the award
    /// does not read is blanked (the time, the call unless it is read, the parks activated).
    pub fn read_by(&self, reads: &Reads) -> Entry {
        let read = |f: &Field| reads.fields.contains(f) || READ_BY_EVERY.contains(f);
        let mut fields = Fields::of_values(
            READ.iter()
                .filter(|f| read(f))
                .filter_map(|f| Some((*f, self.fields.get(*f)?))),
        );
        fields.adif = self.fields.adif.clone();
        let call = reads
            .call_without
            .is_some_and(|f| self.fields.get(f).is_none());
        Entry {
            callsign: if call {
                self.callsign.clone()
            } else {
                String::new()
            },
            band: self.band.clone(),
            mode: self.mode.clone(),
            time_on: Timestamp(0),
            sig: self.sig.clone().filter(|_| reads.parks),
            sig_info: self.sig_info.clone().filter(|_| reads.parks),
            my_sig: None,
            my_sig_info: None,
            fields,
        }
    }
}
