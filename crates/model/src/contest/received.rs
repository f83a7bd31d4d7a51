//! The received exchange as an operator types it (the logbook's Exchange field, `svc contacts
//! create --exchange`), where the report may be left out, as contesters type it.

use super::{CabrilloMode, Check, Contest, default_report};
use crate::ApiError;

impl Contest {
    /// The received exchange as typed in `mode`, read into its ADIF fields. The report may be
    /// left out: the mode's 599 (59 on phone) stands in for it when fewer words than the
    /// exchange needs came, or when the first is no report (`5 MA` in CQ WW RTTY); `14` alone
    /// in CQ WW is the zone, not a report of 14.
    pub fn read_typed(&self, typed: &str, mode: &str) -> Result<Vec<(&str, String)>, ApiError> {
        let words: Vec<&str> = typed.split_whitespace().collect();
        let required = self.exchange.iter().filter(|f| !f.optional).count();
        let leaves_out_report = self.exchange.first().is_some_and(|f| {
            f.check.contains(&Check::Rst)
                && (words.len() < required || words.first().is_none_or(|w| f.read(w).is_none()))
        });
        if leaves_out_report {
            let report = default_report(CabrilloMode::of(mode));
            self.read_exchange(&format!("{report} {typed}"))
        } else {
            self.read_exchange(typed)
        }
    }
}
