//! Telling WSJT-X who is new, as JTAlert does: each call WSJT-X decodes is judged against the
//! log (a new DXCC entity, a new band for one, a dupe) and coloured in its band activity with
//! Highlight Callsign; when the judgement changes (the QSO is logged, the band changes) the
//! colour changes with it, or is cleared.
//!
//! The judging is the caller's (`svc_model::needed` over the log it holds); what is kept here
//! is what each WSJT-X instance was told, so that only a change is sent, the band and mode
//! its Status last gave, without which a decode cannot be judged, and the address it sends
//! from, where it listens for the highlights. `svc listen wsjtx` and the logbook's `--wsjtx`
//! both colour through it.

use std::collections::HashMap;
use std::net::SocketAddr;

use svc_model::band::band_for_mhz;
use svc_model::callsign::normalize_callsign;
use svc_model::needed::Need;

use super::contact::mode_name;
use super::message::{Decode, Message, Status};
use super::write::{Rgb, highlight_callsign};

/// The most calls kept per WSJT-X instance: more than a busy band gives in a long session.
/// Calls beyond it are not coloured, rather than forgotten with a colour still on them.
pub const MAX_CALLS: usize = 20_000;

/// The colours a judgement shows as, background and foreground; `None` for both clears.
pub fn colours(need: Option<Need>) -> (Option<Rgb>, Option<Rgb>) {
    const fn rgb(red: u8, green: u8, blue: u8) -> Option<Rgb> {
        Some(Rgb { red, green, blue })
    }
    match need {
        // Loud for what a DXer drops everything for, quieter for a band slot, grey for a
        // call the log has today (calling it again would be a dupe).
        Some(Need::NewEntity) => (rgb(0xD0, 0x20, 0x20), rgb(0xFF, 0xFF, 0xFF)),
        Some(Need::NewBand) => (rgb(0xFF, 0xA5, 0x00), rgb(0x00, 0x00, 0x00)),
        Some(Need::Dupe) => (rgb(0xD8, 0xD8, 0xD8), rgb(0x70, 0x70, 0x70)),
        None => (None, None),
    }
}

/// The call a decoded message was sent by: the one after `CQ` (or `QRZ`) and its modifiers
/// (`CQ DX`, `CQ POTA`, `CQ 042`), else the second word (`K1ABC W1AW -12` is W1AW's), its
/// `<…>` of a hashed call taken off. `None` for free text, a hash not resolved (`<...>`), and
/// a Fox's multi-part message.
pub fn caller(message: &str) -> Option<String> {
    if message.contains(';') {
        return None;
    }
    let mut words = message.split_whitespace();
    let first = words.next()?;
    let call = |word: &str| {
        let word = word
            .strip_prefix('<')
            .and_then(|w| w.strip_suffix('>'))
            .unwrap_or(word);
        normalize_callsign("call", word).ok()
    };
    if first.eq_ignore_ascii_case("CQ") || first.eq_ignore_ascii_case("QRZ") {
        // A modifier is letters alone or digits alone; a call has both.
        return words.take(3).find_map(call);
    }
    call(words.next()?)
}

/// What one WSJT-X instance has been told.
#[derive(Debug)]
struct Instance {
    /// Where it sends from, and listens.
    from: SocketAddr,
    /// The band and mode of its last Status.
    slot: Option<(String, String)>,
    /// Each call decoded, and the judgement its colour shows.
    calls: HashMap<String, Option<Need>>,
}

/// A Highlight Callsign datagram and the address of the instance it is for.
pub type Highlight = (SocketAddr, Vec<u8>);

/// The colours given, per WSJT-X instance (by its id).
#[derive(Debug, Default)]
pub struct Highlighter {
    instances: HashMap<String, Instance>,
}

impl Highlighter {
    /// A message from an instance at `from`: the highlights it calls for. A Status with a band
    /// or mode other than the last judges every call again; a Decode judges its caller; a Close
    /// forgets the instance. The same id from another address is an instance started anew,
    /// which shows no colours: it is told them again.
    pub fn heard(
        &mut self,
        message: &Message,
        from: SocketAddr,
        mut judge: impl FnMut(&str, &str, &str) -> Option<Need>,
    ) -> Vec<Highlight> {
        let id = message.id();
        if let Message::Close { .. } = message {
            self.instances.remove(id);
            return Vec::new();
        }
        if self.instances.get(id).is_some_and(|i| i.from != from) {
            self.instances.remove(id);
        }
        let instance = self
            .instances
            .entry(id.to_owned())
            .or_insert_with(|| Instance {
                from,
                slot: None,
                calls: HashMap::new(),
            });
        let datagrams = match message {
            Message::Status(status) => status_changed(instance, status, &mut judge),
            Message::Decode(decode) => decoded(instance, decode, &mut judge).into_iter().collect(),
            _ => Vec::new(),
        };
        datagrams.into_iter().map(|d| (from, d)).collect()
    }

    /// The log changed (a QSO logged, the log read again): every call judged again, the
    /// changes to send.
    pub fn refresh(
        &mut self,
        mut judge: impl FnMut(&str, &str, &str) -> Option<Need>,
    ) -> Vec<Highlight> {
        let mut out = Vec::new();
        for (id, instance) in &mut self.instances {
            let from = instance.from;
            out.extend(
                rejudge(id, instance, &mut judge)
                    .into_iter()
                    .map(|d| (from, d)),
            );
        }
        out
    }
}

/// A Status: a band or mode other than the last judges every call again.
fn status_changed(
    instance: &mut Instance,
    status: &Status,
    judge: &mut impl FnMut(&str, &str, &str) -> Option<Need>,
) -> Vec<Vec<u8>> {
    let slot = band_for_mhz(status.dial_frequency as f64 / 1e6)
        .map(|band| (band.to_owned(), mode_name(&status.mode)));
    if slot == instance.slot {
        return Vec::new();
    }
    instance.slot = slot;
    rejudge(&status.id, instance, judge)
}

/// A decode: its caller judged, and coloured if that changes what the instance was told.
fn decoded(
    instance: &mut Instance,
    decode: &Decode,
    judge: &mut impl FnMut(&str, &str, &str) -> Option<Need>,
) -> Option<Vec<u8>> {
    let call = caller(&decode.message)?;
    if !instance.calls.contains_key(&call) && instance.calls.len() >= MAX_CALLS {
        return None;
    }
    let need = match &instance.slot {
        Some((band, mode)) => judge(&call, band, mode),
        // Judged once a Status says the band.
        None => None,
    };
    let told = instance.calls.insert(call.clone(), need).flatten();
    (told != need).then(|| datagram(&decode.id, &call, need))
}

fn rejudge(
    id: &str,
    instance: &mut Instance,
    judge: &mut impl FnMut(&str, &str, &str) -> Option<Need>,
) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (call, told) in &mut instance.calls {
        let need = match &instance.slot {
            Some((band, mode)) => judge(call, band, mode),
            None => None,
        };
        if need != *told {
            *told = need;
            out.push(datagram(id, call, need));
        }
    }
    out
}

fn datagram(id: &str, call: &str, need: Option<Need>) -> Vec<u8> {
    let (background, foreground) = colours(need);
    // Every decode of the call, not only the last period's: the judgement is the call's.
    highlight_callsign(id, call, background, foreground, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caller_of_each_kind_of_message() {
        for (message, want) in [
            ("CQ K1ABC FN42", Some("K1ABC")),
            ("CQ DX K1ABC FN42", Some("K1ABC")),
            ("CQ POTA W1AW/P FN31", Some("W1AW/P")),
            ("CQ 042 K1ABC FN42", Some("K1ABC")),
            ("QRZ K1ABC", Some("K1ABC")),
            ("K1ABC W1AW FN31", Some("W1AW")),
            ("K1ABC W1AW -12", Some("W1AW")),
            ("K1ABC <PJ4/W1AW> RR73", Some("PJ4/W1AW")),
            ("w1aw k1abc r-05", Some("K1ABC")),
            ("K1ABC <...> RR73", None),
            ("TNX BOB 73 GL", None),
            ("K1ABC RR73; W1AW <KH1/KH7Z> -12", None),
            ("", None),
            ("CQ", None),
        ] {
            assert_eq!(caller(message).as_deref(), want, "{message:?}");
        }
    }

    fn status(id: &str, hz: u64, mode: &str) -> Status {
        Status {
            id: id.into(),
            dial_frequency: hz,
            mode: mode.into(),
            ..Status::default()
        }
    }

    fn decode(id: &str, message: &str) -> Decode {
        Decode {
            id: id.into(),
            new: true,
            time: Some(0),
            snr: -10,
            delta_time: 0.1,
            delta_frequency: 1200,
            mode: "~".into(),
            message: message.into(),
            low_confidence: None,
            off_air: None,
        }
    }

    /// A log in which JA1ZZZ is new on 20 m FT8 only, and K1ABC a dupe on 20 m FT8.
    fn judge(call: &str, band: &str, mode: &str) -> Option<Need> {
        match (call, band, mode) {
            ("JA1ZZZ", "20m", "FT8") => Some(Need::NewEntity),
            ("K1ABC", "20m", "FT8") => Some(Need::Dupe),
            _ => None,
        }
    }

    const WSJTX: &str = "127.0.0.1:50001";
    const RESTARTED: &str = "127.0.0.1:50002";

    fn told(need: Option<Need>, call: &str) -> Highlight {
        let (background, foreground) = colours(need);
        (
            WSJTX.parse().unwrap(),
            highlight_callsign("WSJT-X", call, background, foreground, false),
        )
    }

    fn heard(h: &mut Highlighter, message: Message) -> Vec<Highlight> {
        let mut out = h.heard(&message, WSJTX.parse().unwrap(), judge);
        out.sort();
        out
    }

    #[test]
    fn a_call_is_coloured_once_and_cleared_when_it_stops_being_new() {
        let mut h = Highlighter::default();
        let cq = |text: &str| Message::Decode(decode("WSJT-X", text));
        let on = |hz| Message::Status(status("WSJT-X", hz, "FT8"));
        // No Status yet: no band to judge in; the calls wait for one.
        assert!(heard(&mut h, cq("CQ JA1ZZZ PM95")).is_empty());
        assert!(heard(&mut h, cq("CQ W9XYZ EN52")).is_empty());
        assert_eq!(
            heard(&mut h, on(14_074_000)),
            vec![told(Some(Need::NewEntity), "JA1ZZZ")]
        );
        // The same Status again, and the same decode again: nothing new to tell.
        assert!(heard(&mut h, on(14_074_000)).is_empty());
        assert!(heard(&mut h, cq("CQ JA1ZZZ PM95")).is_empty());
        assert_eq!(
            heard(&mut h, cq("W9XYZ K1ABC -12")),
            vec![told(Some(Need::Dupe), "K1ABC")]
        );
        // To 40 m: neither is notable there, both colours cleared.
        let mut want = vec![told(None, "JA1ZZZ"), told(None, "K1ABC")];
        want.sort();
        assert_eq!(heard(&mut h, on(7_074_000)), want);
        // Back on 20 m, then JA1ZZZ is worked: the log's change clears its colour.
        assert_eq!(heard(&mut h, on(14_074_000)).len(), 2);
        let worked = |call: &str, band: &str, mode: &str| match call {
            "JA1ZZZ" => None,
            _ => judge(call, band, mode),
        };
        assert_eq!(h.refresh(worked), vec![told(None, "JA1ZZZ")]);
        assert!(h.refresh(worked).is_empty());
        // Started anew (another address): told its colours again, there.
        let again = h.heard(&cq("W9XYZ K1ABC -12"), RESTARTED.parse().unwrap(), judge);
        assert!(again.is_empty(), "no Status yet from the new instance");
        let again = h.heard(&on(14_074_000), RESTARTED.parse().unwrap(), judge);
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].0, RESTARTED.parse().unwrap());
        // A closed instance is forgotten.
        let close = Message::Close {
            id: "WSJT-X".into(),
        };
        assert!(
            h.heard(&close, RESTARTED.parse().unwrap(), judge)
                .is_empty()
        );
        assert!(h.refresh(judge).is_empty());
    }
}
