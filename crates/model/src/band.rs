//! The band plan (ADIF's band table) and how a frequency is read: MHz, or kHz converted to MHz.

use super::ApiError;

/// (name, lower edge MHz, upper edge MHz), the amateur allocations of ADIF 3.1.
const BANDS: &[(&str, f64, f64)] = &[
    ("2190m", 0.1357, 0.1378),
    ("630m", 0.472, 0.479),
    ("560m", 0.501, 0.504),
    ("160m", 1.8, 2.0),
    ("80m", 3.5, 4.0),
    ("60m", 5.06, 5.45),
    ("40m", 7.0, 7.3),
    ("30m", 10.1, 10.15),
    ("20m", 14.0, 14.35),
    ("17m", 18.068, 18.168),
    ("15m", 21.0, 21.45),
    ("12m", 24.89, 24.99),
    ("10m", 28.0, 29.7),
    ("8m", 40.0, 45.0),
    ("6m", 50.0, 54.0),
    ("5m", 54.000001, 69.9),
    ("4m", 70.0, 71.0),
    ("2m", 144.0, 148.0),
    ("1.25m", 222.0, 225.0),
    ("70cm", 420.0, 450.0),
    ("33cm", 902.0, 928.0),
    ("23cm", 1240.0, 1300.0),
    ("13cm", 2300.0, 2450.0),
    ("9cm", 3300.0, 3500.0),
    ("6cm", 5650.0, 5925.0),
    ("3cm", 10000.0, 10500.0),
    ("1.25cm", 24000.0, 24250.0),
    ("6mm", 47000.0, 47200.0),
    ("4mm", 75500.0, 81000.0),
    ("2.5mm", 119980.0, 123000.0),
    ("2mm", 134000.0, 149000.0),
    ("1mm", 241000.0, 250000.0),
    ("submm", 300000.0, 7500000.0),
];

/// Every band's name, low to high.
pub const BAND_NAMES: [&str; BANDS.len()] = {
    let mut names = [""; BANDS.len()];
    let mut i = 0;
    while i < BANDS.len() {
        names[i] = BANDS[i].0;
        i += 1;
    }
    names
};

/// The band a frequency in MHz lies in.
/// MHz as loggers show them: to the kHz at least (`14.030`, `7.000`), with the digits below a
/// kHz only when there are some (`14.0745`), never trailing zeros past the kHz.
pub fn mhz_text(mhz: f64) -> String {
    let text = format!("{mhz:.6}");
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
    let fraction = fraction.trim_end_matches('0');
    format!("{whole}.{fraction:0<3}")
}

pub fn band_for_mhz(mhz: f64) -> Option<&'static str> {
    BANDS
        .iter()
        .find(|(_, lo, hi)| (*lo..=*hi).contains(&mhz))
        .map(|(name, _, _)| *name)
}

/// A band's name as ADIF spells it, found without case or surrounding blanks (`20M` → `20m`).
pub fn band_name(name: &str) -> Option<&'static str> {
    BANDS
        .iter()
        .find(|(band, _, _)| band.eq_ignore_ascii_case(name.trim()))
        .map(|(band, _, _)| *band)
}

/// The lower edge in MHz of a band named as ADIF names it ("20m", case-insensitive), for
/// contacts whose log recorded the band but not the frequency.
pub fn band_lower_edge(name: &str) -> Option<f64> {
    BANDS
        .iter()
        .find(|(band, _, _)| band.eq_ignore_ascii_case(name.trim()))
        .map(|(_, lo, _)| *lo)
}

/// A frequency as stored: MHz and its band.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frequency {
    pub mhz: f64,
    pub band: &'static str,
}

/// Reads a client-given frequency. The value is taken as MHz when it lies in an amateur band;
/// as kHz (and divided by 1000) when that reading lies in a band. Where both readings lie in a
/// band (3500, 10100–10150 and 144000–148000) the kHz reading wins: 10136 is the 30 m FT8
/// frequency far more often than a 3 cm one. A value in no band either way is refused.
pub fn read_frequency(field: &str, value: f64) -> Result<Frequency, ApiError> {
    if !value.is_finite() || value <= 0.0 {
        return Err(ApiError::field(
            field,
            format!("{field} must be a positive number of MHz, e.g. 14.074"),
        ));
    }
    let as_khz = value / 1000.0;
    if let Some(band) = band_for_mhz(as_khz) {
        return Ok(Frequency { mhz: as_khz, band });
    }
    if let Some(band) = band_for_mhz(value) {
        return Ok(Frequency { mhz: value, band });
    }
    Err(ApiError::field(
        field,
        format!(
            "{field} {value} is not in an amateur band, read either as MHz or as kHz; send MHz, e.g. 14.074"
        ),
    ))
}

/// Reads a frequency that is MHz whatever its size, as ADIF's FREQ is.
pub fn read_mhz(field: &str, value: f64) -> Result<Frequency, ApiError> {
    match band_for_mhz(value) {
        Some(band) if value.is_finite() => Ok(Frequency { mhz: value, band }),
        _ => Err(ApiError::field(
            field,
            format!(
                "{field} {value} MHz is not in an amateur band; check the frequency, e.g. 14.074"
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn megahertz_are_shown_to_the_khz_at_least() {
        assert_eq!(mhz_text(14.03), "14.030");
        assert_eq!(mhz_text(14.074), "14.074");
        assert_eq!(mhz_text(7.0), "7.000");
        assert_eq!(mhz_text(14.0745), "14.0745");
        assert_eq!(mhz_text(10368.1), "10368.100");
        assert_eq!(mhz_text(0.1375), "0.1375");
    }

    fn read(v: f64) -> (f64, &'static str) {
        let f = read_frequency("frequency", v).unwrap();
        (f.mhz, f.band)
    }

    #[test]
    fn mhz_values_stay_mhz() {
        assert_eq!(read(14.074), (14.074, "20m"));
        assert_eq!(read(7.2), (7.2, "40m"));
        assert_eq!(read(146.52), (146.52, "2m"));
        assert_eq!(read(1296.1), (1296.1, "23cm"));
        assert_eq!(read(10368.1), (10368.1, "3cm"));
        assert_eq!(read(0.1375), (0.1375, "2190m"));
    }

    #[test]
    fn khz_values_are_converted() {
        assert_eq!(read(14074.0), (14.074, "20m"));
        assert_eq!(read(7074.0), (7.074, "40m"));
        assert_eq!(read(146520.0), (146.52, "2m"));
        assert_eq!(read(1840.0), (1.84, "160m"));
    }

    #[test]
    fn ambiguous_values_read_as_khz() {
        assert_eq!(read(10136.0), (10.136, "30m"));
        assert_eq!(read(3500.0), (3.5, "80m"));
        assert_eq!(read(144300.0), (144.3, "2m"));
    }

    #[test]
    fn adif_band_names_give_lower_edges() {
        assert_eq!(band_lower_edge("20m"), Some(14.0));
        assert_eq!(band_lower_edge(" 70CM "), Some(420.0));
        assert_eq!(band_lower_edge("11m"), None);
        for (name, lo, _) in BANDS {
            assert_eq!(read(*lo).1, *name, "a band's lower edge reads as that band");
        }
    }

    #[test]
    fn values_in_no_band_are_refused() {
        for bad in [
            0.0,
            -14.074,
            27.185,
            1407.0,
            13.0,
            f64::NAN,
            f64::INFINITY,
            1e300,
        ] {
            assert!(read_frequency("frequency", bad).is_err(), "{bad}");
        }
    }
}
