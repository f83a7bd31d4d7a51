//! The entry form's super check partial line: the known calls holding what is typed, the
//! first nine numbered so that Alt-1 … Alt-9 picks one into the callsign (N1MM+ picks from
//! its Check window with the mouse; a terminal logger needs a key), and in a contest log the
//! calls the contest's rule makes dupes on the form's band and mode marked, as N1MM+ colours
//! them. A picked call goes through the same checks as a typed one.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::{Line, Span};

use crate::widgets::{Theme, Tone};

/// How many of the partial calls a key picks: Alt-1 to Alt-9.
pub const PICKABLE: usize = 9;

/// The index into the partial calls that `key` picks, when it is Alt and a digit 1–9.
pub fn picked(key: &KeyEvent) -> Option<usize> {
    if !key.modifiers.contains(KeyModifiers::ALT) {
        return None;
    }
    match key.code {
        KeyCode::Char(c @ '1'..='9') => Some(usize::from(c as u8 - b'1')),
        _ => None,
    }
}

/// The partial calls on one line, as many as fit `width` whole, after a dim `SCP`: each of
/// the first [`PICKABLE`] after its dim number, and those `dupe` says are dupes marked (in
/// the error colour, with `dupe` after the first of them so the mark reads without colour).
pub fn line(
    partials: &[String],
    dupe: impl Fn(&str) -> bool,
    width: u16,
    theme: Theme,
) -> Option<Line<'static>> {
    if partials.is_empty() {
        return None;
    }
    let mut spans = vec![Span::styled("SCP", theme.dim())];
    let mut used = 3;
    let mut said_dupe = false;
    for (i, call) in partials.iter().enumerate() {
        let number = (i < PICKABLE).then(|| format!(" {}", i + 1));
        let is_dupe = dupe(call);
        let mark = (is_dupe && !said_dupe).then_some(" dupe");
        used += number.as_ref().map_or(0, |n| n.len())
            + 1
            + call.chars().count()
            + mark.map_or(0, str::len);
        if used > usize::from(width) {
            break;
        }
        if let Some(number) = number {
            spans.push(Span::styled(number, theme.dim()));
        }
        if is_dupe {
            spans.push(Span::styled(format!(" {call}"), theme.tone(Tone::Error)));
        } else {
            spans.push(Span::raw(format!(" {call}")));
        }
        if let Some(mark) = mark {
            said_dupe = true;
            spans.push(Span::styled(mark, theme.tone(Tone::Error)));
        }
    }
    Some(Line::from(spans))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: Line) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    fn calls(list: &[&str]) -> Vec<String> {
        list.iter().map(|c| (*c).to_owned()).collect()
    }

    #[test]
    fn the_first_nine_are_numbered_and_dupes_marked_once() {
        let theme = Theme { color: true };
        let list = calls(&["K1ABC", "K1ABD", "W1ABC"]);
        let shown = line(&list, |c| c != "K1ABD", 80, theme).unwrap();
        assert_eq!(text(shown), "SCP 1 K1ABC dupe 2 K1ABD 3 W1ABC");
        let many: Vec<String> = (0..12).map(|i| format!("K{i}AA")).collect();
        let shown = text(line(&many, |_| false, 200, theme).unwrap());
        assert!(shown.contains(" 9 K8AA K9AA K10AA K11AA"), "{shown}");
        assert!(line(&[], |_| false, 80, theme).is_none());
    }

    #[test]
    fn only_whole_calls_fit() {
        let list = calls(&["K1ABC", "K1ABD"]);
        let shown = line(&list, |_| false, 16, Theme { color: true }).unwrap();
        assert_eq!(text(shown), "SCP 1 K1ABC");
    }

    #[test]
    fn alt_and_a_digit_picks() {
        let alt = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT);
        assert_eq!(picked(&alt('1')), Some(0));
        assert_eq!(picked(&alt('9')), Some(8));
        assert_eq!(picked(&alt('0')), None);
        assert_eq!(
            picked(&KeyEvent::new(KeyCode::Char('1'), KeyModifiers::NONE)),
            None
        );
    }
}
