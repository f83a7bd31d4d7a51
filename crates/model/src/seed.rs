//! The seed's fields: the ones a contact has had since the first API (its folder, the worked
//! station, frequency, mode, time, reports, name, notes, the programs' references, the station
//! callsign and the activation), declared once.
//!
//! Each has rules of its own ([`crate::NewContact::validate`]: a park list, a program that
//! must match its folder, a frequency that gives the band) and a column of its own in the
//! store, so they stay out of [`crate::fields::FIELDS`], which every later field joins. This
//! table gives each its names and its limit: the rules, the service's reading of a body, the
//! ADIF mapping, the CLI's flags and the MCP tools' schemas take them from here, and a test
//! (`tests/surfaces.rs`) fails when one of those misses a field of either table.

use super::callsign::MAX_CALLSIGN;

/// One field of the seed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seed {
    /// Its name on the wire (lowerCamelCase); the MCP tools take it in snake_case.
    pub wire: &'static str,
    /// Its ADIF name; empty when ADIF has none (the folder, the activation).
    pub adif: &'static str,
    /// Its `svc contacts create|edit` flag, without the dashes; empty when it has none (the
    /// service sets it, or an import gives it).
    pub flag: &'static str,
    /// The most characters a value may have; 0 for a number, an id or a time, which have
    /// shapes of their own.
    pub max: usize,
    /// Whether a create must give it.
    pub required: bool,
    /// What its flag's value is, in help: `RST`, `CALL`, `ISO`.
    pub placeholder: &'static str,
    /// A line of help, as `svc contacts create --help` shows it.
    pub help: &'static str,
}

pub const FOLDER_ID: Seed = Seed {
    wire: "folderId",
    adif: "",
    flag: "folder",
    max: 0,
    required: true,
    placeholder: "ID",
    help: "The destination folder's id (fld_…): a monthly or activation folder",
};
pub const CALLSIGN: Seed = Seed {
    wire: "callsign",
    adif: "CALL",
    flag: "callsign",
    max: MAX_CALLSIGN,
    required: true,
    placeholder: "CALL",
    help: "The worked station's callsign",
};
pub const FREQUENCY: Seed = Seed {
    wire: "frequency",
    adif: "FREQ",
    flag: "frequency",
    max: 0,
    required: true,
    placeholder: "MHZ",
    help: "Frequency in MHz, e.g. 14.074 (a kHz value such as 14074 is converted by the server)",
};
pub const MODE: Seed = Seed {
    wire: "mode",
    adif: "MODE",
    flag: "mode",
    max: 30,
    required: true,
    placeholder: "MODE",
    help: "Mode, e.g. FT8, SSB, CW",
};
pub const TIME_ON: Seed = Seed {
    wire: "timeOn",
    adif: "TIME_ON",
    flag: "time-on",
    max: 0,
    required: true,
    placeholder: "ISO",
    help: "Start of the contact, ISO 8601 with offset [default: now, UTC]",
};
pub const RST_SENT: Seed = Seed {
    wire: "rstSent",
    adif: "RST_SENT",
    flag: "rst-sent",
    max: 10,
    required: false,
    placeholder: "RST",
    help: "Signal report sent, e.g. 599 or -12",
};
pub const RST_RECEIVED: Seed = Seed {
    wire: "rstReceived",
    adif: "RST_RCVD",
    flag: "rst-received",
    max: 10,
    required: false,
    placeholder: "RST",
    help: "Signal report received",
};
pub const NAME: Seed = Seed {
    wire: "name",
    adif: "NAME",
    flag: "name",
    max: 100,
    required: false,
    placeholder: "NAME",
    help: "The other operator's name",
};
pub const NOTES: Seed = Seed {
    wire: "notes",
    adif: "NOTES",
    flag: "notes",
    max: 2000,
    required: false,
    placeholder: "NOTES",
    help: "Free-text notes",
};
pub const SIG: Seed = Seed {
    wire: "sig",
    adif: "SIG",
    flag: "sig",
    max: 20,
    required: false,
    placeholder: "SIG",
    help: "The worked station's program, e.g. POTA (send it in a hunting folder)",
};
pub const SIG_INFO: Seed = Seed {
    wire: "sigInfo",
    adif: "SIG_INFO",
    flag: "sig-info",
    max: 100,
    required: false,
    placeholder: "INFO",
    help: "The worked station's program reference, e.g. US-1234",
};
pub const MY_SIG: Seed = Seed {
    wire: "mySig",
    adif: "MY_SIG",
    flag: "my-sig",
    max: 20,
    required: false,
    placeholder: "SIG",
    help: "Your own program (in an activation folder, the activation's)",
};
pub const MY_SIG_INFO: Seed = Seed {
    wire: "mySigInfo",
    adif: "MY_SIG_INFO",
    flag: "my-sig-info",
    max: 100,
    required: false,
    placeholder: "INFO",
    help: "Your own program reference",
};
pub const STATION_CALLSIGN: Seed = Seed {
    wire: "stationCallsign",
    adif: "STATION_CALLSIGN",
    flag: "",
    max: MAX_CALLSIGN,
    required: false,
    placeholder: "CALL",
    help: "Your station's callsign when it is not the account's (an import of another station's log); an activation folder sets it to the activator",
};
pub const ACTIVATION_ID: Seed = Seed {
    wire: "activationId",
    adif: "",
    flag: "",
    max: 0,
    required: false,
    placeholder: "ID",
    help: "The activation the contact was logged in: its folder's id, set by the folder",
};

/// Every field of the seed, in the order a contact is written.
pub const SEED: &[Seed] = &[
    FOLDER_ID,
    CALLSIGN,
    FREQUENCY,
    MODE,
    TIME_ON,
    RST_SENT,
    RST_RECEIVED,
    NAME,
    NOTES,
    SIG,
    SIG_INFO,
    MY_SIG,
    MY_SIG_INFO,
    STATION_CALLSIGN,
    ACTIVATION_ID,
];

/// The optional fields a person gives when logging (those with a flag; the station callsign
/// and the activation come from imports and folders): the CLI's flags, the MCP tool's inputs.
pub fn optional_given() -> impl Iterator<Item = &'static Seed> {
    SEED.iter().filter(|s| !s.required && !s.flag.is_empty())
}

/// `rstReceived` as the MCP tools name it: `rst_received`.
pub fn snake_case(wire: &str) -> String {
    let mut out = String::with_capacity(wire.len() + 4);
    for c in wire.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields::{FIELDS, SEED_ADIF};

    #[test]
    fn the_seed_and_the_declared_fields_share_no_name() {
        for seed in SEED {
            assert!(
                FIELDS
                    .iter()
                    .all(|d| d.wire != seed.wire && d.flag != seed.flag),
                "{}",
                seed.wire
            );
            // What the seed writes, the adif map may not hold.
            assert!(
                seed.adif.is_empty() || SEED_ADIF.contains(&seed.adif),
                "{}",
                seed.adif
            );
        }
    }

    /// Every optional field but the frequency is text, and each has its slot in both types.
    #[test]
    fn every_optional_field_has_its_slot() {
        let mut input = crate::ContactInput::default();
        let mut patch = crate::ContactPatch::default();
        for seed in SEED {
            assert_eq!(
                input.text_mut(seed).is_some(),
                !seed.required,
                "{}",
                seed.wire
            );
            assert_eq!(
                patch.text_mut(seed).is_some(),
                !seed.required,
                "{}",
                seed.wire
            );
        }
    }

    #[test]
    fn snake_case_is_the_mcp_tools_spelling() {
        assert_eq!(snake_case("rstReceived"), "rst_received");
        assert_eq!(snake_case("folderId"), "folder_id");
        assert_eq!(snake_case("name"), "name");
    }
}
