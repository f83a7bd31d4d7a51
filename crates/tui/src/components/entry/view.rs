//! The entry form drawn: its fields in two columns, then the lines under them (a duplicate,
//! the contest's judgement, who the call is, the partial list, the parks, the keys), and where
//! the terminal's cursor goes.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

use super::{EntryForm, Field, LogKind};
use crate::components::activations::Meter;
use crate::components::contest::ContestLine;
use crate::components::{needed, partials};
use crate::widgets::{Focus, Theme, Tone, cursor_in, dialog_block, field};
use svc_model::Program;
use svc_model::activation::POTA_NEEDED;

/// Where each entry field sits in the form's inner area: two columns of five, down the left
/// then down the right, in Tab order, so that Tab moves the cursor as the eye reads the form.
/// In a contest log (`contest`) the exchange sits beside the call, where Tab takes it next,
/// and the name takes the park's place.
fn entry_field_area(inner: Rect, field: Field, contest: bool) -> Rect {
    let half = inner.width / 2;
    let (column, row) = match field {
        Field::Callsign => (0, 0),
        Field::Exchange => (1, 0),
        Field::Name if contest => (1, 3),
        Field::Frequency => (0, 1),
        Field::Mode => (0, 2),
        Field::RstSent => (0, 3),
        Field::RstReceived => (0, 4),
        Field::Name => (1, 0),
        Field::Grid => (1, 1),
        Field::Notes => (1, 2),
        Field::Park => (1, 3),
        Field::Time => (1, 4),
    };
    let x = inner.x + column * half;
    let width = if column == 0 {
        half.saturating_sub(1)
    } else {
        inner.width - half
    };
    let mut rect = Rect::new(x, inner.y + row, width, 1.min(inner.height));
    if field == Field::Frequency {
        // Room for the band after the number.
        rect.width = rect.width.saturating_sub(6);
    }
    rect.intersection(inner)
}

/// The entry form, drawn over the top band.
pub struct EntryView<'a> {
    pub form: &'a EntryForm,
    /// The valid-contact count when the form logs into an activation: the activations pane
    /// is under the form.
    pub valid: Option<Meter>,
    /// Why the service refused the contact, when the form fixes a refused one.
    pub refusal: Option<&'a str>,
    /// The form changes a stored contact on the service.
    pub editing: bool,
    pub theme: Theme,
}

/// The rows the form's fields take, with its border: the lines under them come after.
const FIELD_ROWS: u16 = 7;

impl EntryView<'_> {
    /// The top band, grown where it is short to the form's fields and the lines under them
    /// (nine rows at the least), as far as the screen goes: in a contest log the judgement,
    /// what is sent, who the call is and the partial list all show on a 24-row terminal.
    /// The last line, what the keys do, is not grown for: a practised operator no longer
    /// needs it, and the contacts below stay in sight.
    pub fn area(&self, top: Rect, screen: Rect) -> Rect {
        let width = top.width.saturating_sub(2).max(1);
        let mut lines = self.lines(width);
        lines.pop();
        let notes: u16 = lines
            .iter()
            .map(|l| {
                u16::try_from(l.width())
                    .unwrap_or(u16::MAX)
                    .div_ceil(width)
                    .max(1)
            })
            .sum();
        let wanted = (FIELD_ROWS + notes).max(9);
        Rect {
            height: top
                .height
                .max(wanted.min(screen.bottom().saturating_sub(top.y))),
            ..top
        }
    }

    /// The lines under the fields, for a form `width` wide inside its border: what is wrong
    /// with the frequency, a duplicate, the contest's judgement and what is sent, who the
    /// call is, the partial list, the parks, and what the keys do.
    fn lines(&self, width: u16) -> Vec<Line<'static>> {
        let form = self.form;
        let mut lines = Vec::new();
        if let Err(why) = &form.band
            && !why.is_empty()
        {
            lines.push(Line::styled(
                format!("⚠ frequency {}: {why}", form.value(Field::Frequency).trim()),
                self.theme.tone(Tone::Warning),
            ));
        }
        if let Some(dupe) = &form.duplicate {
            lines.push(Line::styled(
                format!("⚠ {dupe}"),
                self.theme.tone(Tone::Warning),
            ));
        }
        // The contest's judgement and standing are of the contact being logged: a fix or an
        // edit of one logged before has neither.
        if let Some(contest) = form
            .contest
            .as_ref()
            .filter(|_| self.refusal.is_none() && !self.editing)
        {
            lines.extend(contest.lines(
                form.value(Field::RstSent),
                form.value(Field::Mode),
                self.theme,
            ));
        }
        // Who the call is and what it would bring the log, then the known calls holding it:
        // read while typing, before the hint line, which a practised operator no longer needs.
        lines.extend(needed::who_lines(
            form.who.as_deref(),
            form.callbook.as_deref(),
            &form.wanted,
            self.theme,
        ));
        let band = form.band.as_ref().ok().copied();
        let dupe = |call: &str| {
            form.contest
                .as_ref()
                .is_some_and(|c| c.is_dupe(call, band, form.value(Field::Mode)))
        };
        if let Some(line) = partials::line(&form.partials, dupe, width, self.theme) {
            lines.push(line);
        }
        if let Some(parks) = &form.parks {
            lines.push(Line::from(parks.clone()));
        }
        match self.refusal {
            Some(why) => {
                lines.push(Line::styled(
                    format!("refused: {why}"),
                    self.theme.tone(Tone::Error),
                ));
                lines.push(Line::styled(
                    "Enter sends it again as fixed · Esc leaves it as it was",
                    self.theme.dim(),
                ));
            }
            None if self.editing => lines.push(Line::styled(
                "Enter saves the change on the service · Esc leaves the contact as it was",
                self.theme.dim(),
            )),
            None => lines.push(Line::styled(
                "Tab next field · Shift-Tab back · Enter log · Esc close (the text is kept)",
                self.theme.dim(),
            )),
        }
        lines
    }
}

impl Widget for EntryView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let form = self.form;
        Clear.render(area, buf);
        let what = match (self.refusal, self.editing) {
            (Some(_), _) => "Fix a refused contact",
            (None, true) => "Edit a contact",
            (None, false) => "Log a contact",
        };
        let title = match self.valid {
            Some(m) if m.total > m.today => format!(
                "{what} → {} · {}/{POTA_NEEDED} valid today, {} in all",
                form.folder_name, m.today, m.total
            ),
            Some(m) => format!(
                "{what} → {} · {}/{POTA_NEEDED} valid",
                form.folder_name, m.today
            ),
            None => format!("{what} → {}", form.folder_name),
        };
        let block = dialog_block(title, self.theme);
        let inner = block.inner(area);
        block.render(area, buf);
        let example = form
            .contest
            .as_ref()
            .map_or_else(String::new, ContestLine::hint);
        for f in Field::ALL.into_iter().filter(|f| form.shows(*f)) {
            let hint = match (f, form.kind) {
                (Field::Time, _) => "now",
                (Field::Exchange, _) => example.as_str(),
                (Field::Grid, _) => "e.g. FN31pr",
                (Field::Park, LogKind::Activation) => "theirs: park to park, e.g. US-1234",
                (Field::Park, LogKind::Hunting(Program::Pota)) => "e.g. US-1234, US-5678",
                (Field::Park, LogKind::Hunting(_)) => "reference",
                (Field::Park, LogKind::Custom | LogKind::Contest) => "(program logs only)",
                _ => "",
            };
            field(
                entry_field_area(inner, f, form.contest.is_some()),
                buf,
                f.label(),
                form.input(f),
                match (form.focus == f, form.replaces_on_type()) {
                    (false, _) => Focus::No,
                    (true, false) => Focus::Yes,
                    (true, true) => Focus::Replacing,
                },
                self.theme,
                hint,
            );
        }
        let freq = entry_field_area(inner, Field::Frequency, form.contest.is_some());
        // The band fits beside the number; why there is none goes on a line of its own, whole.
        let band = match &form.band {
            Ok(band) => Span::raw(format!(" {band}")),
            Err(why) if why.is_empty() => Span::raw(""),
            Err(_) => Span::styled(" ✗", self.theme.tone(Tone::Warning)),
        };
        Paragraph::new(Line::from(band)).render(
            Rect::new(freq.right(), freq.y, 6, 1).intersection(inner),
            buf,
        );
        let lines = self.lines(inner.width);
        let notes = Rect::new(
            inner.x,
            inner.y + 5,
            inner.width,
            inner.height.saturating_sub(5),
        );
        Paragraph::new(lines)
            .wrap(Wrap { trim: true })
            .render(notes.intersection(inner), buf);
    }
}

/// Where the terminal's cursor goes while the form is open on a screen of `area`, its top
/// band `top`.
pub fn cursor(form: &EntryForm, top: Rect, area: Rect) -> ratatui::layout::Position {
    // The fields are at the top of the form, however far down it reaches.
    let rows = Rect {
        height: top
            .height
            .max(FIELD_ROWS.min(area.bottom().saturating_sub(top.y))),
        ..top
    };
    let inner = Block::new().borders(Borders::ALL).inner(rows);
    cursor_in(
        entry_field_area(inner, form.focus, form.contest.is_some()),
        form.input(form.focus),
    )
}
