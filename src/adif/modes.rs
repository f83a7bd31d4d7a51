//! Modes as operators name them and as ADIF files them.
//!
//! An operator logs "FT4" or "USB"; ADIF files those as a SUBMODE under a broader MODE
//! (`MFSK`/`FT4`, `SSB`/`USB`), and consumers such as LoTW reject a submode written as the
//! mode. svc keeps the operator's name and translates at the file boundary.

/// (SUBMODE, MODE) from the ADIF 3.1.5 submode enumeration, for the submodes an operator is
/// likely to log. Modes that are ADIF modes themselves (FT8, CW, JT65, ...) need no entry.
const SUBMODES: &[(&str, &str)] = &[
    ("USB", "SSB"),
    ("LSB", "SSB"),
    ("PCW", "CW"),
    ("ASCI", "RTTY"),
    ("FT4", "MFSK"),
    ("FST4", "MFSK"),
    ("FST4W", "MFSK"),
    ("JS8", "MFSK"),
    ("Q65", "MFSK"),
    ("JTMS", "MFSK"),
    ("FSQCALL", "MFSK"),
    ("MFSK4", "MFSK"),
    ("MFSK8", "MFSK"),
    ("MFSK11", "MFSK"),
    ("MFSK16", "MFSK"),
    ("MFSK22", "MFSK"),
    ("MFSK31", "MFSK"),
    ("MFSK32", "MFSK"),
    ("MFSK64", "MFSK"),
    ("MFSK64L", "MFSK"),
    ("MFSK128", "MFSK"),
    ("MFSK128L", "MFSK"),
    ("PSK31", "PSK"),
    ("PSK63", "PSK"),
    ("PSK63F", "PSK"),
    ("PSK125", "PSK"),
    ("PSK250", "PSK"),
    ("PSK500", "PSK"),
    ("PSK1000", "PSK"),
    ("PSK10", "PSK"),
    ("QPSK31", "PSK"),
    ("QPSK63", "PSK"),
    ("QPSK125", "PSK"),
    ("QPSK250", "PSK"),
    ("QPSK500", "PSK"),
    ("8PSK125", "PSK"),
    ("8PSK250", "PSK"),
    ("8PSK500", "PSK"),
    ("8PSK1000", "PSK"),
    ("FSK31", "PSK"),
    ("SIM31", "PSK"),
    ("PSKFEC31", "PSK"),
    ("C4FM", "DIGITALVOICE"),
    ("DMR", "DIGITALVOICE"),
    ("DSTAR", "DIGITALVOICE"),
    ("FREEDV", "DIGITALVOICE"),
    ("M17", "DIGITALVOICE"),
    ("OLIVIA 4/125", "OLIVIA"),
    ("OLIVIA 4/250", "OLIVIA"),
    ("OLIVIA 8/250", "OLIVIA"),
    ("OLIVIA 8/500", "OLIVIA"),
    ("OLIVIA 16/500", "OLIVIA"),
    ("OLIVIA 16/1000", "OLIVIA"),
    ("OLIVIA 32/1000", "OLIVIA"),
    ("JT65A", "JT65"),
    ("JT65B", "JT65"),
    ("JT65B2", "JT65"),
    ("JT65C", "JT65"),
    ("JT65C2", "JT65"),
    ("JT9A", "JT9"),
    ("JT9B", "JT9"),
    ("JT9C", "JT9"),
    ("JT9D", "JT9"),
    ("JT9E", "JT9"),
    ("JT9F", "JT9"),
    ("JT9G", "JT9"),
    ("JT9H", "JT9"),
    ("JT9-1", "JT9"),
    ("JT9-2", "JT9"),
    ("JT9-5", "JT9"),
    ("JT9-10", "JT9"),
    ("JT9-30", "JT9"),
    ("JT4A", "JT4"),
    ("JT4B", "JT4"),
    ("JT4C", "JT4"),
    ("JT4D", "JT4"),
    ("JT4E", "JT4"),
    ("JT4F", "JT4"),
    ("JT4G", "JT4"),
    ("QRA64A", "QRA64"),
    ("QRA64B", "QRA64"),
    ("QRA64C", "QRA64"),
    ("QRA64D", "QRA64"),
    ("QRA64E", "QRA64"),
    ("ISCAT-A", "ISCAT"),
    ("ISCAT-B", "ISCAT"),
    ("DOMINOEX", "DOMINO"),
    ("DOMINOF", "DOMINO"),
    ("DOM-M", "DOMINO"),
    ("DOM4", "DOMINO"),
    ("DOM5", "DOMINO"),
    ("DOM8", "DOMINO"),
    ("DOM11", "DOMINO"),
    ("DOM16", "DOMINO"),
    ("DOM22", "DOMINO"),
    ("DOM44", "DOMINO"),
    ("DOM88", "DOMINO"),
    ("THOR-M", "THOR"),
    ("THOR4", "THOR"),
    ("THOR5", "THOR"),
    ("THOR8", "THOR"),
    ("THOR11", "THOR"),
    ("THOR16", "THOR"),
    ("THOR22", "THOR"),
    ("THOR25X4", "THOR"),
    ("THOR50X1", "THOR"),
    ("THOR50X2", "THOR"),
    ("THOR100", "THOR"),
    ("THRBX", "THRB"),
    ("THRBX1", "THRB"),
    ("THRBX2", "THRB"),
    ("THRBX4", "THRB"),
    ("THROB1", "THRB"),
    ("THROB2", "THRB"),
    ("THROB4", "THRB"),
    ("FMHELL", "HELL"),
    ("FSKHELL", "HELL"),
    ("HELL80", "HELL"),
    ("HELLX5", "HELL"),
    ("HELLX9", "HELL"),
    ("HFSK", "HELL"),
    ("PSKHELL", "HELL"),
    ("SLOWHELL", "HELL"),
    ("AMTORFEC", "TOR"),
    ("GTOR", "TOR"),
    ("NAVTEX", "TOR"),
    ("SITORB", "TOR"),
    ("CHIP64", "CHIP"),
    ("CHIP128", "CHIP"),
    ("PAC2", "PAC"),
    ("PAC3", "PAC"),
    ("PAC4", "PAC"),
    ("PAX2", "PAX"),
    ("OPERA-BEACON", "OPERA"),
    ("OPERA-QSO", "OPERA"),
    ("ROS-EME", "ROS"),
    ("ROS-HF", "ROS"),
    ("ROS-MF", "ROS"),
    ("VARA HF", "DYNAMIC"),
    ("VARA FM 1200", "DYNAMIC"),
    ("VARA FM 9600", "DYNAMIC"),
    ("VARA SATELLITE", "DYNAMIC"),
];

/// The ADIF MODE and SUBMODE for a mode as an operator writes it ("FT4" → ("MFSK",
/// Some("FT4")), "USB" → ("SSB", Some("USB")), "FT8" → ("FT8", None), "SSB" → ("SSB",
/// None)); case-insensitive input, upper-case output; an unknown mode goes out as MODE as
/// given, since refusing it would lose the contact from the export.
pub fn to_adif(mode: &str) -> (String, Option<String>) {
    let mode = mode.trim().to_ascii_uppercase();
    match SUBMODES.iter().find(|(sub, _)| *sub == mode) {
        Some((sub, parent)) => ((*parent).to_owned(), Some((*sub).to_owned())),
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
