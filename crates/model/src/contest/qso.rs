//! A contest contact as the contest sees it: its Cabrillo mode and frequency, and what makes
//! two of them duplicates.

use super::{CabrilloMode, Contest, Dupes};
use crate::mode::{ModeClass, PotaMode, parent};

impl CabrilloMode {
    /// As a QSO line writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            CabrilloMode::CW => "CW",
            CabrilloMode::PH => "PH",
            CabrilloMode::FM => "FM",
            CabrilloMode::RY => "RY",
            CabrilloMode::DG => "DG",
        }
    }

    /// A contact's mode as a Cabrillo QSO line writes it: CW; PH for SSB, AM and digital
    /// voice; FM; RY for RTTY; DG for every other data mode, FT8 and FT4 among them (a log
    /// that says MFSK is one the robots refuse).
    pub fn of(mode: &str) -> CabrilloMode {
        let upper = mode.trim().to_ascii_uppercase();
        let family = parent(&upper).unwrap_or(&upper);
        match ModeClass::of(mode) {
            Some(ModeClass::Cw) => CabrilloMode::CW,
            Some(ModeClass::Phone) if family == "FM" => CabrilloMode::FM,
            Some(ModeClass::Phone | ModeClass::DigitalVoice) => CabrilloMode::PH,
            Some(ModeClass::Data) if family == "RTTY" => CabrilloMode::RY,
            Some(ModeClass::WeakSignal | ModeClass::Data) | None => CabrilloMode::DG,
        }
    }
}

/// Cabrillo's designators of the bands from 6 m up, where a QSO line names the band rather
/// than the frequency.
const DESIGNATORS: &[(&str, &str)] = &[
    ("6m", "50"),
    ("4m", "70"),
    ("2m", "144"),
    ("1.25m", "222"),
    ("70cm", "432"),
    ("33cm", "902"),
    ("23cm", "1.2G"),
    ("13cm", "2.3G"),
    ("9cm", "3.4G"),
    ("6cm", "5.7G"),
    ("3cm", "10G"),
    ("1.25cm", "24G"),
    ("6mm", "47G"),
    ("4mm", "75G"),
    ("2.5mm", "122G"),
    ("2mm", "134G"),
    ("1mm", "241G"),
];

/// A contact's frequency as a Cabrillo QSO line gives it: whole kHz up to 10 m (`14025`), the
/// band's designator from 6 m up (`144`, `1.2G`), whole kHz for a band Cabrillo names none.
pub fn cabrillo_frequency(mhz: f64, band: &str) -> String {
    DESIGNATORS
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(band.trim()))
        .map_or_else(
            // Whole Hz first, so that 14.025 MHz is not 14024.999… kHz.
            || ((mhz * 1_000_000.0).round() as i64 / 1000).to_string(),
            |(_, designator)| (*designator).to_owned(),
        )
}

impl Contest {
    /// What two contacts of this contest share when one is the other's duplicate: the call
    /// and, by the contest's rule, the band and the mode (CW, phone or data, as Field Day
    /// counts them; FM is phone).
    pub fn dupe_key(&self, callsign: &str, band: &str, mode: &str) -> String {
        let call = callsign.trim().to_ascii_uppercase();
        let band = band.trim().to_ascii_lowercase();
        match self.dupes {
            Dupes::Contest => call,
            Dupes::Band => format!("{call}|{band}"),
            Dupes::BandMode => {
                let class = match PotaMode::of(mode) {
                    PotaMode::Cw => "cw",
                    PotaMode::Phone => "phone",
                    PotaMode::Data => "data",
                };
                format!("{call}|{band}|{class}")
            }
        }
    }
}
