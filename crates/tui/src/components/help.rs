//! The help screen: every key binding, as `?` shows them.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

use crate::widgets::{Theme, centered, dialog_block};

/// Every key binding, as the `?` screen lists them.
pub const BINDINGS: &[(&str, &str)] = &[
    ("Tab / Shift-Tab", "next / previous pane, in screen order"),
    (
        "↑ ↓  PgUp PgDn",
        "move; Home End jump (no log open: j k g G)",
    ),
    ("Enter", "open the folder or activation; fix a ✗ contact"),
    ("/", "filter the list; Enter keeps it, Esc clears it"),
    (
        "letters, digits",
        "with a log open: start a contact with them",
    ),
    ("  Tab ↑ ↓", "next / previous field (Shift-Tab back)"),
    (
        "  typing",
        "replaces a value not typed; ← → Home End edit it",
    ),
    (
        "  Ctrl-U Ctrl-W",
        "clear the field / the word before the cursor",
    ),
    (
        "  Alt-W  Alt-1…9",
        "wipe it (frequency, mode stay) / pick that SCP call",
    ),
    (
        "  Enter  Esc",
        "log it, the form clears / close, its text kept",
    ),
    (
        "Alt + letter",
        "the commands below (no log open: the letter)",
    ),
    ("n", "the entry form, as it was left"),
    ("a  c", "start an activation (also offline) / a contest log"),
    ("e", "edit the contact, or end the activation (after y)"),
    ("d", "delete the contact, or discard a ↑ ✗ one (after y)"),
    ("m", "this month's log: m yours, p POTA, d DX, r Repeaters"),
    ("x", "write the activation's POTA file, or a log as ADIF"),
    (
        "F  Shift-M",
        "send the form's frequency / mode to the radio",
    ),
    (
        "s  Shift-S",
        "spot your activation / POTA spots (Enter logs one)",
    ),
    ("r  v  ?", "refresh from the service / the map / this help"),
    ("q  Ctrl-C", "quit (q asks when work waits); Ctrl-C at once"),
];

pub struct HelpView {
    pub theme: Theme,
}

impl HelpView {
    pub fn area(screen: Rect) -> Rect {
        centered(screen, 72, BINDINGS.len() as u16 + 3)
    }
}

impl Widget for HelpView {
    fn render(self, area: Rect, buf: &mut Buffer) {
        Clear.render(area, buf);
        let block = dialog_block("Keys".into(), self.theme);
        let inner = block.inner(area);
        block.render(area, buf);
        let mut lines: Vec<Line> = BINDINGS
            .iter()
            .map(|(keys, what)| {
                Line::from(vec![
                    Span::styled(format!("{keys:<18}"), self.theme.header()),
                    Span::raw(*what),
                ])
            })
            .collect();
        lines.push(Line::styled(
            "Activations count unique callsign+band+mode per UTC day (10 a day).",
            self.theme.dim(),
        ));
        Paragraph::new(lines).render(inner, buf);
    }
}
