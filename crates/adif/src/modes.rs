//! Modes as operators name them and as ADIF files them.
//!
//! An operator logs "FT4" or "USB"; ADIF files those as a SUBMODE under a broader MODE
//! (`MFSK`/`FT4`, `SSB`/`USB`), and consumers such as LoTW reject a submode written as the
//! mode. svc keeps the operator's name and translates at the file boundary; the tables are
//! the model's (model::mode).

use svc_model::mode::parent;

/// The ADIF MODE and SUBMODE for a mode as an operator writes it ("FT4" → ("MFSK",
/// Some("FT4")), "USB" → ("SSB", Some("USB")), "FT8" → ("FT8", None), "SSB" → ("SSB",
/// None)); case-insensitive input, upper-case output; an unknown mode goes out as MODE as
/// given, since refusing it would lose the contact from the export.
pub fn to_adif(mode: &str) -> (String, Option<String>) {
    let mode = mode.trim().to_ascii_uppercase();
    match parent(&mode) {
        Some(parent) => (parent.to_owned(), Some(mode)),
        None => (mode, None),
    }
}

/// Back: the mode the operator knows. The SUBMODE when there is one, known to the table or
/// not (it is always the more specific name), else the MODE: ("MFSK", Some("FT4")) → "FT4";
/// ("SSB", None) → "SSB"; ("SSB", Some("USB")) → "USB".
pub fn from_adif(mode: &str, submode: Option<&str>) -> String {
    submode
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or(mode.trim())
        .to_ascii_uppercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use svc_model::mode::SUBMODES;

    #[test]
    fn operator_modes_go_out_as_adif() {
        let cases: &[(&str, &str, Option<&str>)] = &[
            ("FT4", "MFSK", Some("FT4")),
            ("ft4", "MFSK", Some("FT4")),
            ("USB", "SSB", Some("USB")),
            ("lsb", "SSB", Some("LSB")),
            ("FT8", "FT8", None),
            ("SSB", "SSB", None),
            ("CW", "CW", None),
            ("JT65", "JT65", None),
            ("Q65", "MFSK", Some("Q65")),
            ("JS8", "MFSK", Some("JS8")),
            ("FST4W", "MFSK", Some("FST4W")),
            ("PSK31", "PSK", Some("PSK31")),
            ("DMR", "DIGITALVOICE", Some("DMR")),
            ("dstar", "DIGITALVOICE", Some("DSTAR")),
            ("Olivia 8/250", "OLIVIA", Some("OLIVIA 8/250")),
            (" rtty ", "RTTY", None),
            ("NEWMODE", "NEWMODE", None),
        ];
        for &(given, mode, sub) in cases {
            assert_eq!(
                to_adif(given),
                (mode.to_owned(), sub.map(str::to_owned)),
                "{given}"
            );
        }
    }

    #[test]
    fn adif_modes_come_back_as_operators_name_them() {
        assert_eq!(from_adif("MFSK", Some("FT4")), "FT4");
        assert_eq!(from_adif("SSB", None), "SSB");
        assert_eq!(from_adif("SSB", Some("USB")), "USB");
        assert_eq!(from_adif("mfsk", Some("unknown9")), "UNKNOWN9");
        assert_eq!(from_adif("ft8", Some(" ")), "FT8");
    }

    #[test]
    fn every_table_entry_round_trips() {
        for (sub, parent) in SUBMODES {
            let (mode, submode) = to_adif(sub);
            assert_eq!(mode, *parent);
            assert_eq!(from_adif(&mode, submode.as_deref()), *sub);
        }
    }
}
