//! Signal reports: how a mode's are written (59, 599, -12), checked and defaulted. One rule
//! for every front end: the logbook's form fills and checks reports with it.

use crate::mode::ModeClass;

/// How a mode's signal reports are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report {
    /// Phone: readability and strength, `59`.
    Rs,
    /// CW and the keyboard data modes: readability, strength and tone, `599`.
    Rst,
    /// The weak-signal modes (FT8, FT4, …): the signal-to-noise ratio in dB, `-12`, `+05`.
    Db,
}

impl Report {
    /// The report a mode takes, from its class (model::mode); RST for a mode svc does not know.
    pub fn of(mode: &str) -> Option<Report> {
        if mode.trim().is_empty() {
            return None;
        }
        Some(match ModeClass::of(mode) {
            Some(ModeClass::Phone | ModeClass::DigitalVoice) => Report::Rs,
            Some(ModeClass::WeakSignal) => Report::Db,
            Some(ModeClass::Cw | ModeClass::Data) | None => Report::Rst,
        })
    }

    /// Checks a report typed for this kind; the error says what to type.
    pub fn check(self, value: &str) -> Result<(), String> {
        let digits = |text: &str, first: &str, rest: &str| {
            let mut bytes = text.bytes();
            bytes.next().is_some_and(|b| first.as_bytes().contains(&b))
                && bytes.all(|b| rest.as_bytes().contains(&b))
        };
        let ok = match self {
            Report::Rs => value.len() == 2 && digits(value, "12345", "123456789"),
            Report::Rst => value.len() == 3 && digits(value, "12345", "123456789"),
            Report::Db => {
                let number = value.strip_prefix(['+', '-']).unwrap_or(value);
                (1..=2).contains(&number.len())
                    && number.bytes().all(|b| b.is_ascii_digit())
                    && number.parse::<u8>().is_ok_and(|n| n <= 50)
            }
        };
        if ok {
            return Ok(());
        }
        Err(match self {
            Report::Rs => format!("{value:?} is not a phone report: two digits, e.g. 59 or 57"),
            Report::Rst => format!("{value:?} is not an RST report: three digits, e.g. 599 or 579"),
            Report::Db => format!("{value:?} is not a report in dB: e.g. -12 or +05 (-50 to +50)"),
        })
    }
}

/// Phone modes get a two-digit report (59), CW and the keyboard data modes three digits (599);
/// the weak-signal modes none, since their report is measured, not given.
pub fn default_rst(mode: &str) -> &'static str {
    match Report::of(mode) {
        None | Some(Report::Db) => "",
        Some(Report::Rs) => "59",
        Some(Report::Rst) => "599",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_are_checked_for_the_mode() {
        assert_eq!(Report::of("ssb"), Some(Report::Rs));
        assert_eq!(Report::of("CW"), Some(Report::Rst));
        assert_eq!(Report::of("FT8"), Some(Report::Db));
        assert_eq!(Report::of(""), None);
        for ok in ["59", "57", "11"] {
            assert!(Report::Rs.check(ok).is_ok(), "{ok}");
        }
        for bad in ["599", "5", "69", "50", "5a"] {
            assert!(Report::Rs.check(bad).is_err(), "{bad}");
        }
        for ok in ["599", "579", "339"] {
            assert!(Report::Rst.check(ok).is_ok(), "{ok}");
        }
        for bad in ["59", "5999", "699", "-12"] {
            assert!(Report::Rst.check(bad).is_err(), "{bad}");
        }
        for ok in ["-12", "+05", "0", "-3", "+50"] {
            assert!(Report::Db.check(ok).is_ok(), "{ok}");
        }
        for bad in ["599", "-51", "--1", "+", "12dB"] {
            assert!(Report::Db.check(bad).is_err(), "{bad}");
        }
    }
}
