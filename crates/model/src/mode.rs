//! Modes: the ADIF enumerations of modes and submodes, what an operator may log, and each
//! mode's class, which says how its signal reports are written and how a radio works it. The
//! entry form, the rig control, the ADIF mapping and the service all ask here.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::ApiError;
use super::ids::truncate;

/// ADIF's Mode enumeration (3.1.6, without its import-only entries, which are submodes now).
pub const MODES: &[&str] = &[
    "AM",
    "ARDOP",
    "ATV",
    "CHIP",
    "CLO",
    "CONTESTI",
    "CW",
    "DIGITALVOICE",
    "DOMINO",
    "DYNAMIC",
    "FAX",
    "FM",
    "FSK441",
    "FSK",
    "FT8",
    "HELL",
    "ISCAT",
    "JT4",
    "JT6M",
    "JT9",
    "JT44",
    "JT65",
    "MFSK",
    "MSK144",
    "MTONE",
    "MT63",
    "OLIVIA",
    "OPERA",
    "PAC",
    "PAX",
    "PKT",
    "PSK",
    "PSK2K",
    "Q15",
    "QRA64",
    "ROS",
    "RTTY",
    "RTTYM",
    "SSB",
    "SSTV",
    "T10",
    "THOR",
    "THRB",
    "TOR",
    "V4",
    "VOI",
    "WINMOR",
    "WSPR",
];

/// (SUBMODE, MODE): ADIF 3.1.6's Submode enumeration, and FT2, which WSJT-X 3 logs.
pub const SUBMODES: &[(&str, &str)] = &[
    ("8PSK125", "PSK"),
    ("8PSK125F", "PSK"),
    ("8PSK125FL", "PSK"),
    ("8PSK250", "PSK"),
    ("8PSK250F", "PSK"),
    ("8PSK250FL", "PSK"),
    ("8PSK500", "PSK"),
    ("8PSK500F", "PSK"),
    ("8PSK1000", "PSK"),
    ("8PSK1000F", "PSK"),
    ("8PSK1200F", "PSK"),
    ("AMTORFEC", "TOR"),
    ("ASCI", "RTTY"),
    ("C4FM", "DIGITALVOICE"),
    ("CHIP64", "CHIP"),
    ("CHIP128", "CHIP"),
    ("DMR", "DIGITALVOICE"),
    ("DOM-M", "DOMINO"),
    ("DOM4", "DOMINO"),
    ("DOM5", "DOMINO"),
    ("DOM8", "DOMINO"),
    ("DOM11", "DOMINO"),
    ("DOM16", "DOMINO"),
    ("DOM22", "DOMINO"),
    ("DOM44", "DOMINO"),
    ("DOM88", "DOMINO"),
    ("DOMINOEX", "DOMINO"),
    ("DOMINOF", "DOMINO"),
    ("DSTAR", "DIGITALVOICE"),
    ("FMHELL", "HELL"),
    ("FREEDV", "DIGITALVOICE"),
    ("FSK31", "PSK"),
    ("FSKH105", "HELL"),
    ("FSKH245", "HELL"),
    ("FSKHELL", "HELL"),
    ("FSQCALL", "MFSK"),
    ("FST4", "MFSK"),
    ("FST4W", "MFSK"),
    ("FT4", "MFSK"),
    ("GTOR", "TOR"),
    ("HELL80", "HELL"),
    ("HELLX5", "HELL"),
    ("HELLX9", "HELL"),
    ("HFSK", "HELL"),
    ("ISCAT-A", "ISCAT"),
    ("ISCAT-B", "ISCAT"),
    ("JS8", "MFSK"),
    ("JT4A", "JT4"),
    ("JT4B", "JT4"),
    ("JT4C", "JT4"),
    ("JT4D", "JT4"),
    ("JT4E", "JT4"),
    ("JT4F", "JT4"),
    ("JT4G", "JT4"),
    ("JT9-1", "JT9"),
    ("JT9-2", "JT9"),
    ("JT9-5", "JT9"),
    ("JT9-10", "JT9"),
    ("JT9-30", "JT9"),
    ("JT9A", "JT9"),
    ("JT9B", "JT9"),
    ("JT9C", "JT9"),
    ("JT9D", "JT9"),
    ("JT9E", "JT9"),
    ("JT9E FAST", "JT9"),
    ("JT9F", "JT9"),
    ("JT9F FAST", "JT9"),
    ("JT9G", "JT9"),
    ("JT9G FAST", "JT9"),
    ("JT9H", "JT9"),
    ("JT9H FAST", "JT9"),
    ("JT65A", "JT65"),
    ("JT65B", "JT65"),
    ("JT65B2", "JT65"),
    ("JT65C", "JT65"),
    ("JT65C2", "JT65"),
    ("JTMS", "MFSK"),
    ("LSB", "SSB"),
    ("M17", "DIGITALVOICE"),
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
    ("NAVTEX", "TOR"),
    ("OLIVIA 4/125", "OLIVIA"),
    ("OLIVIA 4/250", "OLIVIA"),
    ("OLIVIA 8/250", "OLIVIA"),
    ("OLIVIA 8/500", "OLIVIA"),
    ("OLIVIA 16/500", "OLIVIA"),
    ("OLIVIA 16/1000", "OLIVIA"),
    ("OLIVIA 32/1000", "OLIVIA"),
    ("OPERA-BEACON", "OPERA"),
    ("OPERA-QSO", "OPERA"),
    ("PAC2", "PAC"),
    ("PAC3", "PAC"),
    ("PAC4", "PAC"),
    ("PAX2", "PAX"),
    ("PCW", "CW"),
    ("PSK10", "PSK"),
    ("PSK31", "PSK"),
    ("PSK63", "PSK"),
    ("PSK63F", "PSK"),
    ("PSK63RC10", "PSK"),
    ("PSK63RC20", "PSK"),
    ("PSK63RC32", "PSK"),
    ("PSK63RC4", "PSK"),
    ("PSK63RC5", "PSK"),
    ("PSK125", "PSK"),
    ("PSK125RC10", "PSK"),
    ("PSK125RC12", "PSK"),
    ("PSK125RC16", "PSK"),
    ("PSK125RC4", "PSK"),
    ("PSK125RC5", "PSK"),
    ("PSK250", "PSK"),
    ("PSK250RC2", "PSK"),
    ("PSK250RC3", "PSK"),
    ("PSK250RC5", "PSK"),
    ("PSK250RC6", "PSK"),
    ("PSK250RC7", "PSK"),
    ("PSK500", "PSK"),
    ("PSK500RC2", "PSK"),
    ("PSK500RC3", "PSK"),
    ("PSK500RC4", "PSK"),
    ("PSK800RC2", "PSK"),
    ("PSK1000", "PSK"),
    ("PSK1000RC2", "PSK"),
    ("PSKAM10", "PSK"),
    ("PSKAM31", "PSK"),
    ("PSKAM50", "PSK"),
    ("PSKFEC31", "PSK"),
    ("PSKHELL", "HELL"),
    ("QPSK31", "PSK"),
    ("Q65", "MFSK"),
    ("QPSK63", "PSK"),
    ("QPSK125", "PSK"),
    ("QPSK250", "PSK"),
    ("QPSK500", "PSK"),
    ("QRA64A", "QRA64"),
    ("QRA64B", "QRA64"),
    ("QRA64C", "QRA64"),
    ("QRA64D", "QRA64"),
    ("QRA64E", "QRA64"),
    ("ROS-EME", "ROS"),
    ("ROS-HF", "ROS"),
    ("ROS-MF", "ROS"),
    ("SCAMP_FAST", "FSK"),
    ("SCAMP_OO", "MTONE"),
    ("SCAMP_OO_SLW", "MTONE"),
    ("SCAMP_SLOW", "FSK"),
    ("SCAMP_VSLOW", "FSK"),
    ("SIM31", "PSK"),
    ("SITORB", "TOR"),
    ("SLOWHELL", "HELL"),
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
    ("USB", "SSB"),
    ("VARA HF", "DYNAMIC"),
    ("VARA SATELLITE", "DYNAMIC"),
    ("VARA FM 1200", "DYNAMIC"),
    ("VARA FM 9600", "DYNAMIC"),
    ("FT2", "MFSK"),
];

/// What kind of signal a mode is, for its reports and the radio.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModeClass {
    /// Analog phone (SSB, AM, FM): reports of readability and strength, `59`; the radio has a
    /// mode of its own for it.
    Phone,
    /// Digital voice (FreeDV, D-STAR, DMR, …): spoken reports, `59`, but no radio mode every
    /// rig selects the same way.
    DigitalVoice,
    /// CW: readability, strength and tone, `599`.
    Cw,
    /// The weak-signal modes (FT8, FT4, JT65, Q65, …): a measured signal-to-noise ratio in
    /// dB, `-12`, never a made-up report.
    WeakSignal,
    /// Every other data mode (RTTY, PSK31, Olivia, …): RST, `599`.
    Data,
}

impl ModeClass {
    /// A mode's class; `None` for a mode svc does not know.
    pub fn of(mode: &str) -> Option<ModeClass> {
        let name = canonical(mode)?;
        let family = parent(name).unwrap_or(name);
        Some(match family {
            "SSB" | "AM" | "FM" => ModeClass::Phone,
            "DIGITALVOICE" => ModeClass::DigitalVoice,
            "CW" => ModeClass::Cw,
            "FT8" | "JT4" | "JT6M" | "JT9" | "JT44" | "JT65" | "MSK144" | "QRA64" | "ISCAT"
            | "FSK441" | "WSPR" | "Q15" => ModeClass::WeakSignal,
            "MFSK"
                if name == "JS8"
                    || name.starts_with("FT")
                    || name.starts_with("Q65")
                    || name.starts_with("FST4")
                    || name == "JTMS" =>
            {
                ModeClass::WeakSignal
            }
            _ => ModeClass::Data,
        })
    }
}

/// POTA's three modes: an activator counts a station once per band in each (docs/LOGBOOK.md,
/// "Activations").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PotaMode {
    Cw,
    /// Phone, digital voice included.
    Phone,
    /// Every data mode; a mode svc does not know is counted here, as most such modes are.
    Data,
}

impl PotaMode {
    pub fn of(mode: &str) -> PotaMode {
        match ModeClass::of(mode) {
            Some(ModeClass::Cw) => PotaMode::Cw,
            Some(ModeClass::Phone | ModeClass::DigitalVoice) => PotaMode::Phone,
            Some(ModeClass::WeakSignal | ModeClass::Data) | None => PotaMode::Data,
        }
    }
}

/// LoTW's mode groups: two records of a QSO match when their modes are in the same group
/// (docs/API.md, "Confirmations").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModeGroup {
    Cw,
    /// Phone, digital voice included.
    Phone,
    /// SSTV, fax and ATV.
    Image,
    /// Every other mode, unknown ones included.
    Data,
}

impl ModeGroup {
    pub fn of(mode: &str) -> ModeGroup {
        let family = canonical(mode).map(|name| parent(name).unwrap_or(name));
        match (family, ModeClass::of(mode)) {
            (Some("SSTV" | "FAX" | "ATV"), _) => ModeGroup::Image,
            (_, Some(ModeClass::Cw)) => ModeGroup::Cw,
            (_, Some(ModeClass::Phone | ModeClass::DigitalVoice)) => ModeGroup::Phone,
            _ => ModeGroup::Data,
        }
    }
}

/// The enumeration's spelling of a mode or submode, found without case or surrounding blanks.
fn canonical(mode: &str) -> Option<&'static str> {
    let mode = mode.trim();
    MODES
        .iter()
        .copied()
        .find(|m| m.eq_ignore_ascii_case(mode))
        .or_else(|| {
            SUBMODES
                .iter()
                .find(|(s, _)| s.eq_ignore_ascii_case(mode))
                .map(|(s, _)| *s)
        })
}

/// [`SUBMODES`] by submode, for [`parent`]: an export asks once a contact, and searching the
/// table's 184 entries cost it more than writing the record.
static PARENTS: LazyLock<HashMap<&'static str, &'static str>> =
    LazyLock::new(|| SUBMODES.iter().copied().collect());

/// The MODE a submode is filed under (`FT4` → `MFSK`); `None` for a mode, or an unknown name.
pub fn parent(submode: &str) -> Option<&'static str> {
    let submode = submode.trim();
    // The table is upper-case; stored modes are too, so the copy is rarely made.
    if submode.bytes().any(|b| b.is_ascii_lowercase()) {
        PARENTS.get(submode.to_ascii_uppercase().as_str()).copied()
    } else {
        PARENTS.get(submode).copied()
    }
}

/// Whether ADIF knows `mode` as a mode or a submode.
pub fn is_known(mode: &str) -> bool {
    canonical(mode).is_some()
}

/// A mode as the service stores it: an ADIF mode or submode (`FT8`, `USB`, `OLIVIA 8/250`),
/// upper-cased. `lenient` (an import) also keeps a name ADIF does not know, as another logger
/// wrote it, when it is a plain token of at most 30 letters, digits, blanks, `-` and `/`.
pub fn check_mode(field: &str, raw: &str, lenient: bool) -> Result<String, ApiError> {
    let mode = raw.trim();
    if mode.is_empty() {
        return Err(ApiError::field(
            field,
            format!("{field} is required, e.g. FT8, SSB or CW"),
        ));
    }
    if let Some(known) = canonical(mode) {
        return Ok(known.to_owned());
    }
    let plain = mode.chars().count() <= super::seed::MODE.max
        && mode
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b' ' | b'-' | b'/'));
    if lenient && plain {
        return Ok(mode.to_ascii_uppercase());
    }
    Err(ApiError::field(
        field,
        format!(
            "{field} {:?} is not an ADIF mode or submode; send one of the ADIF Mode and Submode enumerations, e.g. FT8, FT4, SSB, USB, CW, RTTY, PSK31 or OLIVIA 8/250",
            truncate(mode, 30)
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_and_submodes_are_known_in_any_case() {
        for (given, stored) in [
            ("ft8", "FT8"),
            (" usb ", "USB"),
            ("olivia 8/250", "OLIVIA 8/250"),
            ("VARA HF", "VARA HF"),
            ("jt9e fast", "JT9E FAST"),
            ("FT2", "FT2"),
            ("FreeDV", "FREEDV"),
        ] {
            assert_eq!(check_mode("mode", given, false).unwrap(), stored, "{given}");
        }
        let err = check_mode("mode", "XYZMODE", false).unwrap_err();
        assert_eq!(err.details.unwrap()["field"], "mode");
        assert!(err.message.contains("not an ADIF mode"), "{}", err.message);
        assert_eq!(check_mode("mode", "xyzmode", true).unwrap(), "XYZMODE");
        assert!(check_mode("mode", "<b>", true).is_err());
        assert!(check_mode("mode", " ", true).is_err());
    }

    #[test]
    fn classes_say_how_reports_go() {
        for (mode, class) in [
            ("SSB", ModeClass::Phone),
            ("LSB", ModeClass::Phone),
            ("FM", ModeClass::Phone),
            ("FREEDV", ModeClass::DigitalVoice),
            ("DMR", ModeClass::DigitalVoice),
            ("CW", ModeClass::Cw),
            ("FT8", ModeClass::WeakSignal),
            ("FT4", ModeClass::WeakSignal),
            ("FT2", ModeClass::WeakSignal),
            ("JS8", ModeClass::WeakSignal),
            ("Q65", ModeClass::WeakSignal),
            ("JT65B", ModeClass::WeakSignal),
            ("RTTY", ModeClass::Data),
            ("PSK31", ModeClass::Data),
            ("MFSK16", ModeClass::Data),
        ] {
            assert_eq!(ModeClass::of(mode), Some(class), "{mode}");
        }
        assert_eq!(ModeClass::of("NEWMODE"), None);
    }

    #[test]
    fn every_submode_has_a_mode_of_the_table() {
        for (sub, mode) in SUBMODES {
            assert!(MODES.contains(mode), "{sub} → {mode}");
        }
    }
}
