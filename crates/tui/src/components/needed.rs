//! What working the call typed would bring the log, as the entry form says it under the
//! fields: `new one`, `new band`, `new mode`, `needed: WAS` after who the call is, and
//! `worked 3 times, last 2026-10-12 20m SSB` on a line of its own. The judging is the model's
//! ([`svc_model::needed::Worked::wanted`]); this only words and draws it.

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use crate::widgets::{Theme, Tone};
use svc_model::needed::{Before, Wanted};

/// What the call would be new for, in the order a DXer reads them.
pub fn words(wanted: &Wanted) -> Vec<String> {
    let mut words = Vec::new();
    if wanted.new_entity {
        words.push("new one".to_owned());
    }
    if wanted.new_band {
        words.push("new band".to_owned());
    }
    if wanted.new_mode {
        words.push("new mode".to_owned());
    }
    if wanted.was.is_some() {
        words.push("needed: WAS".to_owned());
    }
    words
}

/// `worked 3 times, last 2026-10-12 20m SSB`: this callsign in the log.
pub fn before(before: &Before) -> String {
    let times = match before.times {
        1 => "once".to_owned(),
        n => format!("{n} times"),
    };
    let day = before.last.to_string();
    format!(
        "worked {times}, last {} {} {}",
        day.get(..10).unwrap_or(&day),
        before.band,
        before.mode
    )
}

/// The form's lines of who the call is: its entity, the callbook's word dimmed, what it would
/// be new for, then how often this call was worked, when it was.
pub fn who_lines(
    who: Option<&str>,
    callbook: Option<&str>,
    wanted: &Wanted,
    theme: Theme,
) -> Vec<Line<'static>> {
    let mut spans = Vec::new();
    if let Some(who) = who {
        spans.push(Span::raw(who.to_owned()));
    }
    // The callbook's place before the words, so that a line too long for the screen wraps
    // between words, never inside the place.
    if let Some(book) = callbook {
        if !spans.is_empty() {
            spans.push(Span::raw(" · "));
        }
        spans.push(Span::styled(book.to_owned(), theme.dim()));
    }
    // Bold without colour too: what is new is what the operator looks for.
    let new = theme.tone(Tone::Success).add_modifier(Modifier::BOLD);
    for word in words(wanted) {
        if !spans.is_empty() {
            spans.push(Span::raw(" · "));
        }
        spans.push(Span::styled(word, new));
    }
    let mut lines = Vec::new();
    if !spans.is_empty() {
        lines.push(Line::from(spans));
    }
    if let Some(b) = &wanted.before {
        lines.push(Line::from(before(b)));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use svc_model::Timestamp;

    #[test]
    fn what_is_new_follows_who_the_call_is() {
        let wanted = Wanted {
            new_band: true,
            new_mode: true,
            was: Some("ME"),
            before: Some(Before {
                times: 3,
                last: Timestamp::parse("t", "2026-10-12T20:00:00Z").unwrap(),
                band: "20m".into(),
                mode: "SSB".into(),
            }),
            ..Wanted::default()
        };
        let lines = who_lines(
            Some("United States · NA · CQ 5 · ITU 8"),
            Some("Portland, ME (QRZ)"),
            &wanted,
            Theme { color: false },
        );
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(
            text,
            [
                "United States · NA · CQ 5 · ITU 8 · Portland, ME (QRZ) · new band · new mode · needed: WAS",
                "worked 3 times, last 2026-10-12 20m SSB",
            ]
        );
        let new_one = Wanted {
            new_entity: true,
            ..Wanted::default()
        };
        assert_eq!(words(&new_one), ["new one"]);
        assert!(who_lines(None, None, &Wanted::default(), Theme { color: true }).is_empty());
    }
}
