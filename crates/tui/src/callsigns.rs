//! Who the callsign being typed is, for the entry form: its DXCC entity and zones, and the
//! known calls that contain what is typed (super check partial), the log's own first, as
//! N1MM+ shows them while a call is typed.

use svc_model::dxcc::Dxcc;
use svc_model::scp::MasterScp;

/// How many partial matches are looked for: more than a line shows, fewer than would cost.
const PARTIALS: usize = 24;

/// The country file and the super check partial list, read once at start.
pub struct Callsigns {
    pub dxcc: Dxcc,
    pub scp: MasterScp,
}

// The list holds some 85,000 calls: a debug print of the state says how many, not which.
impl std::fmt::Debug for Callsigns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Callsigns({} SCP calls)", self.scp.len())
    }
}

impl Callsigns {
    /// The entity line of `call`: `United States · NA · CQ 5 · ITU 8`, or why it has none
    /// (`maritime mobile: no DXCC entity`); none while the call says nothing yet (fewer than
    /// two characters, no prefix known).
    pub fn who(&self, call: &str) -> Option<String> {
        if call.trim().len() < 2 {
            return None;
        }
        if let Some(kind) = self.dxcc.no_entity(call) {
            return Some(format!("{kind}: no DXCC entity"));
        }
        let e = self.dxcc.resolve(call)?;
        Some(format!(
            "{} · {} · CQ {} · ITU {}",
            e.name,
            e.continent.as_str(),
            e.cq_zone,
            e.itu_zone
        ))
    }

    /// The calls holding `typed`: the call typed in full first when the log or the list has
    /// it (so the operator sees it is a known call, as N1MM's check partial shows it), then
    /// those of `own` (the log's, newest first) before the list's.
    pub fn partials<'a>(
        &'a self,
        own: impl IntoIterator<Item = &'a str>,
        typed: &str,
    ) -> Vec<String> {
        let typed = typed.trim();
        let mut calls: Vec<String> = self
            .scp
            .partial_with(own, typed, PARTIALS)
            .into_iter()
            .map(str::to_ascii_uppercase)
            .collect();
        if let Some(at) = calls.iter().position(|c| c.eq_ignore_ascii_case(typed)) {
            let exact = calls.remove(at);
            calls.insert(0, exact);
        }
        calls
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn callsigns() -> Callsigns {
        Callsigns {
            dxcc: Dxcc::shipped(),
            scp: MasterScp::load("K1ABC\nK1ABD\nW1AW\nK1AB\n"),
        }
    }

    #[test]
    fn the_entity_shows_once_the_call_says_where() {
        let c = callsigns();
        assert_eq!(c.who("k"), None);
        assert_eq!(
            c.who("k1").as_deref(),
            Some("United States · NA · CQ 5 · ITU 8")
        );
        assert_eq!(
            c.who("W1AW/MM").as_deref(),
            Some("maritime mobile: no DXCC entity")
        );
    }

    #[test]
    fn the_exact_call_then_the_logs_own_calls_come_first() {
        let c = callsigns();
        let own = ["k1abx", "N0ABC"];
        assert_eq!(c.partials(own, "1ab"), ["K1ABX", "K1AB", "K1ABC", "K1ABD"]);
        assert_eq!(c.partials(own, "K1AB"), ["K1AB", "K1ABX", "K1ABC", "K1ABD"]);
        assert!(c.partials(own, "k").is_empty());
    }
}
