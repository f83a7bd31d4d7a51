//! Drawing: pure functions of the state. Each pane and dialog is a widget over a borrowed
//! view of its state (with whether it has focus and the colours in use); [`draw`] lays them
//! out on the frame. Only the rows on screen are built, so a folder of any size draws in the
//! same time.

use crate::model::band::mhz_text;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Layout, Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, BorderType, Borders, Cell, Clear, Paragraph, Row, Table, Widget, Wrap,
};
use tui_input::Input;

use super::app::{
    ActivationsPane, App, ContactsPane, Dialog, FoldersPane, ListView, Load, Meter, POTA_NEEDED,
    Pane, Tone, qso_counter, short_time,
};
use super::form::{ActivationField, ActivationForm, EntryForm, Field, LogKind};
use super::outbox::Mark;
use crate::model::text::obeyed;
use crate::model::{Program, Timestamp};

/// Styles with colour, or (for `--no-color` and `NO_COLOR`) with attributes only.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    fn fg(self, color: Color) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    fn border(self, focused: bool) -> Style {
        if focused {
            self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
        } else {
            Style::new()
        }
    }

    fn selected(self, focused: bool) -> Style {
        if focused {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new().add_modifier(Modifier::BOLD)
        }
    }

    pub fn tone(self, tone: Tone) -> Style {
        match tone {
            Tone::Info => Style::new(),
            Tone::Success => self.fg(Color::Green),
            Tone::Warning => self.fg(Color::Yellow).add_modifier(Modifier::BOLD),
            Tone::Error => self.fg(Color::Red).add_modifier(Modifier::BOLD),
        }
    }

    fn dim(self) -> Style {
        if self.color {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    fn header(self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }
}

/// Where everything goes on a screen of `area`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    /// The band of the folders and activations panes, where the entry form opens.
    pub top: Rect,
    pub folders: Rect,
    pub activations: Rect,
    pub contacts: Rect,
    pub message: Rect,
    pub bar: Rect,
}

/// The screen's parts; `message_rows` is what [`App::message_rows`] says.
pub fn layout(area: Rect, message_rows: u16) -> Areas {
    let [main, message, bar] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(message_rows),
        Constraint::Length(1),
    ])
    .areas(area);
    // Nine rows at 24 lines: room for the entry form over the top band, and ten contacts below.
    let top_height = (main.height * 2 / 5 + 1).clamp(3.min(main.height), 14);
    let [top, contacts] =
        Layout::vertical([Constraint::Length(top_height), Constraint::Min(0)]).areas(main);
    let [folders, activations] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(top);
    Areas {
        top,
        folders,
        activations,
        contacts,
        message,
        bar,
    }
}

/// A pane's state as drawn: the state, whether it has focus, and the theme.
pub struct View<'a, T> {
    pub state: &'a T,
    pub focused: bool,
    pub theme: Theme,
}

impl<T> View<'_, T> {
    /// Draws the pane's border, titled with `title` and the list's filter; returns the inside.
    fn frame(
        &self,
        mut title: Vec<Span<'_>>,
        list: &ListView,
        area: Rect,
        buf: &mut Buffer,
    ) -> Rect {
        // The pane with focus is plain to see without colour too: a thick border and its
        // name in reverse video.
        if self.focused
            && let Some(name) = title.first_mut()
        {
            name.style = name.style.add_modifier(Modifier::REVERSED);
        }
        title.extend(filter_span(list, self.theme));
        let block = Block::new()
            .borders(Borders::ALL)
            .border_type(if self.focused {
                BorderType::Thick
            } else {
                BorderType::Plain
            })
            .border_style(self.theme.border(self.focused))
            .title(Line::from(title));
        let inner = block.inner(area);
        block.render(area, buf);
        inner
    }

    /// Row `i` of the list highlighted when it is the selection.
    fn row_style(&self, i: usize, list: &ListView) -> Style {
        if i == list.selected {
            self.theme.selected(self.focused)
        } else {
            Style::new()
        }
    }
}

/// The title's filter part: `/text` while it is typed, `[text]` while it applies.
fn filter_span(view: &ListView, theme: Theme) -> Option<Span<'static>> {
    match &view.filter_input {
        Some(input) => Some(Span::styled(format!("/{} ", input.value()), theme.header())),
        None if !view.filter.is_empty() => {
            Some(Span::styled(format!("[{}] ", view.filter), theme.header()))
        }
        None => None,
    }
}

/// An activation's parks as its row shows them: the park, or a two-fer's first park and how
/// many more (`US-0001+1`); the Contacts title names them all.
pub fn park_label(reference: &str) -> String {
    match reference.split_once(',') {
        Some((first, rest)) => format!("{first}+{}", rest.split(',').count()),
        None => reference.to_owned(),
    }
}

/// The folders pane's inner width from which the folder type has a column of its own.
const FOLDER_TYPE_MIN_WIDTH: u16 = 48;

/// What a pane shows when its filter leaves none of its rows.
fn no_match(view: &ListView) -> Option<String> {
    (view.shown.is_empty() && !view.filter.is_empty()).then(|| {
        format!(
            "Nothing matches {:?}: / starts another filter, Esc clears it.",
            view.filter
        )
    })
}

fn placeholder(area: Rect, buf: &mut Buffer, text: &str, style: Style) {
    Paragraph::new(text.to_owned())
        .style(style)
        .wrap(Wrap { trim: true })
        .render(area, buf);
}

impl Widget for View<'_, FoldersPane> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let pane = self.state;
        let inner = self.frame(vec![Span::raw(" Folders ")], &pane.view, area, buf);
        if pane.items.is_empty() {
            let text = match &pane.load {
                Load::Failed(why) => format!("Folders did not load: {why}"),
                Load::Loaded => "No folders.".to_owned(),
                _ => "Loading folders…".to_owned(),
            };
            placeholder(inner, buf, &text, self.theme.dim());
            return;
        }
        if let Some(text) = no_match(&pane.view) {
            placeholder(inner, buf, &text, self.theme.dim());
            return;
        }
        let height = inner.height as usize;
        // The names come first: an activation's (W1AW@US-1234-20261122) tells its day only at
        // the end, so the type column shows only where both fit.
        let with_type = inner.width >= FOLDER_TYPE_MIN_WIDTH;
        let rows = pane
            .view
            .shown
            .iter()
            .enumerate()
            .skip(pane.view.offset)
            .take(height)
            .map(|(i, row)| {
                let tree = pane.tree[*row];
                let f = &pane.items[tree.index];
                let open = pane.open.as_deref() == Some(f.id.as_str());
                let name = format!(
                    "{}{}{}",
                    if open { "▶" } else { " " },
                    "  ".repeat(tree.depth),
                    f.name
                );
                let style = self.row_style(i, &pane.view);
                let mut cells = vec![Cell::from(name)];
                if with_type {
                    cells.push(Cell::from(f.folder_type.as_str()));
                }
                cells.push(Cell::from(
                    Line::from(f.contact_count.to_string()).alignment(Alignment::Right),
                ));
                Row::new(cells).style(style)
            });
        let widths = if with_type {
            vec![
                Constraint::Fill(1),
                Constraint::Length(10),
                Constraint::Length(5),
            ]
        } else {
            vec![Constraint::Fill(1), Constraint::Length(5)]
        };
        Table::new(rows, widths).render(inner, buf);
    }
}

impl Widget for View<'_, ActivationsPane> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let pane = self.state;
        let inner = self.frame(vec![Span::raw(" Activations ")], &pane.view, area, buf);
        if pane.items.is_empty() {
            let text = match &pane.load {
                Load::Failed(why) => format!("Activations did not load: {why}"),
                Load::Loaded => "No activations: Alt-A starts one.".to_owned(),
                _ => "Loading activations…".to_owned(),
            };
            placeholder(inner, buf, &text, self.theme.dim());
            return;
        }
        if let Some(text) = no_match(&pane.view) {
            placeholder(inner, buf, &text, self.theme.dim());
            return;
        }
        let rows = pane
            .view
            .shown
            .iter()
            .enumerate()
            .skip(pane.view.offset)
            .take(inner.height as usize)
            .map(|(i, index)| {
                let a = &pane.items[*index];
                let state = if a.in_progress() {
                    Span::styled("in progress", self.theme.tone(Tone::Success))
                } else {
                    Span::styled("ended", self.theme.dim())
                };
                let count = match (pane.meter(&a.id), pane.stats.get(&a.id)) {
                    (Some(meter), _) => {
                        let n = meter.today;
                        let tone = if n >= POTA_NEEDED {
                            Tone::Success
                        } else {
                            Tone::Info
                        };
                        Span::styled(format!("{n}/{POTA_NEEDED}"), self.theme.tone(tone))
                    }
                    (None, Some(s)) if s.load == Load::Loading => Span::raw("…"),
                    (None, Some(_)) => Span::raw("?"),
                    (None, None) => Span::raw(""),
                };
                let style = self.row_style(i, &pane.view);
                Row::new(vec![
                    Cell::from(park_label(a.location_reference.as_deref().unwrap_or(""))),
                    Cell::from(a.start_time.map(short_time).unwrap_or_default()),
                    Cell::from(state),
                    Cell::from(Line::from(count).alignment(Alignment::Right)),
                ])
                .style(style)
            });
        // A two-fer's label is a character wider; the column grows only when one is shown.
        let two_fer = pane.view.shown.iter().any(|i| {
            pane.items[*i]
                .location_reference
                .as_deref()
                .is_some_and(|r| r.contains(','))
        });
        Table::new(
            rows,
            [
                Constraint::Length(if two_fer { 9 } else { 8 }),
                Constraint::Length(11),
                Constraint::Length(11),
                Constraint::Fill(1),
            ],
        )
        .render(inner, buf);
    }
}

const LOADING_MORE: &str = "loading… ";

/// The contacts pane's title: the folder, and how many of its contacts are loaded (waiting
/// ones included, refused ones not: they are not in the log).
fn contacts_title(pane: &ContactsPane) -> String {
    let refused = pane
        .marks
        .values()
        .filter(|m| matches!(m, Mark::Refused(_)))
        .count();
    match &pane.folder {
        None => " Contacts ".to_owned(),
        Some(f) => {
            let loaded = pane.items.len() - refused;
            let count = if pane.cursor.is_some() {
                format!("{loaded} of {}", f.contact_count.max(loaded as i64))
            } else {
                loaded.to_string()
            };
            let copy = if pane.from_copy { " (saved copy)" } else { "" };
            format!(" Contacts · {} · {count}{copy} ", f.name)
        }
    }
}

/// The first column: `↑` waits to be sent, `✗` was refused.
/// Mark, UTC, Call, MHz, Band, Mode, S, R, Name, Notes.
const CONTACT_WIDTHS: [Constraint; 10] = [
    Constraint::Length(1),
    Constraint::Length(11),
    Constraint::Length(10),
    Constraint::Length(9),
    Constraint::Length(6),
    Constraint::Length(5),
    Constraint::Length(4),
    Constraint::Length(4),
    Constraint::Length(12),
    Constraint::Fill(1),
];

/// With a Park column (theirs, of a park-to-park contact) after Mode, when a contact shown has
/// one: reports and the name give it room, so the notes (and `dupe`) still show on 80 columns.
const CONTACT_WIDTHS_WITH_PARK: [Constraint; 11] = [
    Constraint::Length(1),
    Constraint::Length(11),
    Constraint::Length(10),
    Constraint::Length(9),
    Constraint::Length(6),
    Constraint::Length(5),
    Constraint::Length(8),
    Constraint::Length(3),
    Constraint::Length(3),
    Constraint::Length(8),
    Constraint::Fill(1),
];

impl Widget for View<'_, ContactsPane> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let pane = self.state;
        let mut title = vec![Span::raw(contacts_title(pane))];
        if pane.load == Load::Loading && !pane.items.is_empty() {
            title.push(Span::styled(LOADING_MORE, self.theme.dim()));
        }
        let inner = self.frame(title, &pane.view, area, buf);
        if pane.folder.is_none() && pane.items.is_empty() {
            placeholder(
                inner,
                buf,
                "No folder open: select one in Folders and press Enter (m opens this month's log).",
                self.theme.dim(),
            );
            return;
        }
        if pane.items.is_empty() {
            let text = match &pane.load {
                Load::Failed(why) => format!("Contacts did not load: {why}"),
                Load::Loaded | Load::Idle => {
                    "No contacts yet: type a callsign to log one.".to_owned()
                }
                Load::Loading => "Loading contacts…".to_owned(),
            };
            placeholder(inner, buf, &text, self.theme.dim());
            return;
        }
        if let Some(text) = no_match(&pane.view) {
            placeholder(inner, buf, &text, self.theme.dim());
            return;
        }
        let parks = pane
            .view
            .shown
            .iter()
            .any(|&i| pane.items[i].sig_info.is_some());
        let mut titles = vec![
            "", "UTC", "Call", "MHz", "Band", "Mode", "S", "R", "Name", "Notes",
        ];
        if parks {
            titles.insert(6, "Park");
        }
        let header = Row::new(titles).style(self.theme.header());
        let rows = pane
            .view
            .shown
            .iter()
            .enumerate()
            .skip(pane.view.offset)
            .take(inner.height.saturating_sub(1) as usize)
            .map(|(i, index)| {
                let c = &pane.items[*index];
                let style = self.row_style(i, &pane.view);
                let note = first_line(c.notes.as_deref().unwrap_or(""));
                // A duplicate (same call, band, mode, program and UTC day as an earlier one of
                // the folder) says so before its notes.
                let notes = match &c.duplicate_of {
                    Some(_) => Cell::from(Line::from(vec![
                        Span::styled("dupe ", self.theme.tone(Tone::Warning)),
                        Span::raw(note),
                    ])),
                    None => Cell::from(note),
                };
                let (mark, notes) = match pane.marks.get(&c.id) {
                    None => (self.external_mark(c), notes),
                    Some(Mark::Waiting) => (Cell::from("↑"), notes),
                    Some(Mark::Refused(why)) => (
                        Cell::from(Span::styled("✗", self.theme.tone(Tone::Error))),
                        Cell::from(Span::styled(why.as_str(), self.theme.tone(Tone::Error))),
                    ),
                };
                let mut cells = vec![
                    mark,
                    Cell::from(short_time(c.time_on)),
                    Cell::from(c.callsign.as_str()),
                    Cell::from(Line::from(mhz_text(c.frequency)).alignment(Alignment::Right)),
                    Cell::from(c.band.as_str()),
                    Cell::from(c.mode.as_str()),
                    Cell::from(c.rst_sent.as_deref().unwrap_or("")),
                    Cell::from(c.rst_received.as_deref().unwrap_or("")),
                    Cell::from(c.name.as_deref().unwrap_or("")),
                    notes,
                ];
                if parks {
                    cells.insert(6, Cell::from(c.sig_info.as_deref().unwrap_or("")));
                }
                Row::new(cells).style(style)
            });
        let table = if parks {
            Table::new(rows, CONTACT_WIDTHS_WITH_PARK)
        } else {
            Table::new(rows, CONTACT_WIDTHS)
        };
        table.header(header).render(inner, buf);
    }
}

impl View<'_, ContactsPane> {
    /// Where a stored contact went in the account's external logbooks (QRZ): `!` refused by
    /// one, `…` waiting for one, `✓` in all of them; nothing when it goes to none.
    fn external_mark(&self, c: &crate::model::Contact) -> Cell<'static> {
        let states = || c.external.iter().map(|e| e.state.as_str());
        if states().any(|s| s == "failed") {
            Cell::from(Span::styled("!", self.theme.tone(Tone::Error)))
        } else if states().any(|s| s == "waiting") {
            Cell::from(Span::styled("…", self.theme.dim()))
        } else if states().any(|s| s == "pushed") {
            Cell::from(Span::styled("✓", self.theme.tone(Tone::Success)))
        } else {
            Cell::from("")
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// The line under the panes: the last message.
pub struct MessageLine<'a> {
    pub app: &'a App,
    pub theme: Theme,
}

impl Widget for MessageLine<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (text, style) = match &self.app.status {
            // An old message says its age, so it is not read as news.
            Some(s) => match (self.app.now.millis() - s.at.millis()) / 60_000 {
                0 => (s.text.clone(), self.theme.tone(s.tone)),
                minutes => (
                    format!("{} ({minutes} min ago)", s.text),
                    self.theme.tone(s.tone).patch(self.theme.dim()),
                ),
            },
            None => (
                "? help · Tab next pane · Enter open · type a call to log · q quit".to_owned(),
                self.theme.dim(),
            ),
        };
        let lines: Vec<Line> = message_lines(&text, area.width)
            .into_iter()
            .map(Line::raw)
            .collect();
        Paragraph::new(lines).style(style).render(area, buf);
    }
}

/// The message broken into lines of at most `width` characters at spaces (a word longer than
/// a line is cut into pieces): [`App::message_rows`] counts them and the message line draws
/// them, so the two always agree.
pub fn message_lines(text: &str, width: u16) -> Vec<String> {
    let width = usize::from(width.max(1));
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut len = 0;
    for word in text.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        // A word that fits on no line is cut, a line's worth at a time.
        while word.len() > width {
            if len > 0 {
                lines.push(std::mem::take(&mut line));
                len = 0;
            }
            lines.push(word.drain(..width).collect());
        }
        if word.is_empty() {
            continue;
        }
        if len > 0 && len + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
            len = 0;
        }
        if len > 0 {
            line.push(' ');
            len += 1;
        }
        line.extend(word.iter());
        len += word.len();
    }
    if len > 0 || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// The bottom line: account, counter, clock, connection, the journal's counts, the radio,
/// requests in flight.
pub struct StatusBar<'a> {
    pub app: &'a App,
    pub theme: Theme,
}

fn clock(t: Timestamp) -> String {
    let s = t.to_string();
    format!("{} UTC", s.get(11..19).unwrap_or(""))
}

/// Parts of the status bar that give way, in this order, when the screen is too narrow for
/// everything: the plan (the QSO counter shows the free plan's cap anyway), the request
/// counter, the tier. The counts of waiting and refused contacts never do.
const DROPPABLE: [&str; 3] = ["plan", "req", "tier"];

impl Widget for StatusBar<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let base = Style::new().add_modifier(Modifier::REVERSED);
        // (name, span): the names say which parts may be dropped.
        let mut parts: Vec<(&str, Span)> = Vec::new();
        if let Some(label) = &app.options.label {
            parts.push((
                "",
                Span::styled(label.clone(), base.add_modifier(Modifier::BOLD)),
            ));
        }
        match &app.me {
            Some(me) => {
                let (counter, warn) = qso_counter(me);
                let counter_style = if warn {
                    base.patch(self.theme.tone(Tone::Warning))
                } else {
                    base
                };
                parts.push((
                    "",
                    Span::styled(me.callsign.clone(), base.add_modifier(Modifier::BOLD)),
                ));
                parts.push(("plan", Span::styled(me.plan.clone(), base)));
                parts.push(("tier", Span::styled(me.tier.as_str(), base)));
                parts.push(("", Span::styled(counter, counter_style)));
            }
            None => parts.push((
                "",
                Span::styled(
                    match app.me_load {
                        Load::Failed(_) => "account unknown",
                        _ => "account…",
                    },
                    base,
                ),
            )),
        }
        parts.push(("", Span::styled(clock(app.now), base)));
        let (connection, tone) = match app.connection {
            super::app::Connection::Connecting => ("connecting", Tone::Info),
            super::app::Connection::Online => ("online", Tone::Info),
            super::app::Connection::Offline => ("offline", Tone::Error),
            super::app::Connection::KeyRejected => ("key rejected", Tone::Error),
        };
        parts.push((
            "",
            Span::styled(connection, base.patch(self.theme.tone(tone))),
        ));
        let counts = app.outbox.counts;
        let waiting_style = if counts.waiting > 0 {
            base.add_modifier(Modifier::BOLD)
        } else {
            base
        };
        parts.push((
            "",
            Span::styled(format!("{} waiting", counts.waiting), waiting_style),
        ));
        if counts.refused > 0 {
            parts.push((
                "",
                Span::styled(
                    format!("{} refused", counts.refused),
                    base.patch(self.theme.tone(Tone::Error)),
                ),
            ));
        }
        if let Some((label, lost)) = app.rig_label() {
            let style = if lost {
                base.patch(self.theme.tone(Tone::Error))
            } else {
                base
            };
            parts.push(("", Span::styled(label, style)));
        }
        if app.in_flight > 0 {
            parts.push(("req", Span::styled(format!("{} req", app.in_flight), base)));
        }
        // A space at each end and " · " between the parts.
        let width = |parts: &[(&str, Span)]| -> usize {
            parts.iter().map(|(_, s)| s.width() + 3).sum::<usize>() - 1
        };
        for name in DROPPABLE {
            if width(&parts) <= area.width as usize {
                break;
            }
            parts.retain(|(n, _)| *n != name);
        }
        let mut spans = vec![Span::styled(" ", base)];
        for (i, (_, span)) in parts.into_iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled(" · ", base));
            }
            spans.push(span);
        }
        spans.push(Span::styled(" ", base));
        Paragraph::new(Line::from(spans))
            .style(base)
            .render(area, buf);
    }
}

/// A box in the middle of `area`, at most `width` × `height`.
fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn dialog_block(title: String, theme: Theme) -> Block<'static> {
    // A dialog has the keys: drawn as a focused pane is.
    Block::new()
        .borders(Borders::ALL)
        .border_type(BorderType::Thick)
        .border_style(theme.border(true))
        .title(Line::from(format!(" {title} ")))
}

/// One input field: its label, then the text scrolled so the cursor shows.
/// How a field is drawn: with the focus or not, and whether typing replaces its value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Focus {
    No,
    Yes,
    /// Focused, and the first character typed replaces the value (shown in reverse).
    Replacing,
}

fn field(
    area: Rect,
    buf: &mut Buffer,
    label: &str,
    input: &Input,
    focus: Focus,
    theme: Theme,
    hint: &str,
) {
    let focused = focus != Focus::No;
    let label_style = if focused {
        theme.header()
    } else {
        Style::new()
    };
    let label_width = 9.min(area.width);
    Paragraph::new(label.to_owned()).style(label_style).render(
        Rect {
            width: label_width,
            ..area
        },
        buf,
    );
    let text_area = input_area(area);
    let mut style = Style::new().add_modifier(Modifier::UNDERLINED);
    if focused {
        style = style.add_modifier(Modifier::BOLD);
    }
    if focus == Focus::Replacing {
        style = style.add_modifier(Modifier::REVERSED);
    }
    if input.value().is_empty() && !hint.is_empty() {
        Paragraph::new(hint.to_owned())
            .style(theme.dim().add_modifier(Modifier::UNDERLINED))
            .render(text_area, buf);
        return;
    }
    let scroll = input.visual_scroll(text_area.width.saturating_sub(1) as usize) as u16;
    Paragraph::new(input.value().to_owned())
        .style(style)
        .scroll((0, scroll))
        .render(text_area, buf);
}

/// Where a field's text goes, right of its label.
fn input_area(area: Rect) -> Rect {
    let skip = 10.min(area.width);
    Rect {
        x: area.x + skip,
        width: area.width - skip,
        ..area
    }
}

fn cursor_in(area: Rect, input: &Input) -> Position {
    let text = input_area(area);
    let width = text.width.saturating_sub(1) as usize;
    let x = input.visual_cursor() - input.visual_scroll(width);
    Position::new(
        text.x + (x as u16).min(text.width.saturating_sub(1)),
        text.y,
    )
}

/// Where each entry field sits in the form's inner area: two columns of five, down the left
/// then down the right, in Tab order, so that Tab moves the cursor as the eye reads the form.
fn entry_field_area(inner: Rect, field: Field) -> Rect {
    let half = inner.width / 2;
    let (column, row) = match field {
        Field::Callsign => (0, 0),
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

impl EntryView<'_> {
    /// The top band, grown to the form's nine rows where the screen is short.
    pub fn area(top: Rect, screen: Rect) -> Rect {
        Rect {
            height: top.height.max(9.min(screen.bottom().saturating_sub(top.y))),
            ..top
        }
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
        for f in Field::ALL {
            let hint = match (f, form.kind) {
                (Field::Time, _) => "now",
                (Field::Grid, _) => "e.g. FN31pr",
                (Field::Park, LogKind::Activation) => "theirs: park to park, e.g. US-1234",
                (Field::Park, LogKind::Hunting(Program::Pota)) => "e.g. US-1234, US-5678",
                (Field::Park, LogKind::Hunting(_)) => "reference",
                (Field::Park, LogKind::Custom) => "(program logs only)",
                _ => "",
            };
            field(
                entry_field_area(inner, f),
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
        let freq = entry_field_area(inner, Field::Frequency);
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

/// The activation form, in the middle of the screen.
pub struct ActivationView<'a> {
    pub form: &'a ActivationForm,
    pub theme: Theme,
}

impl ActivationView<'_> {
    pub fn area(screen: Rect) -> Rect {
        centered(screen, 60, 8)
    }
}

impl Widget for ActivationView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        Clear.render(area, buf);
        let block = dialog_block("Start an activation".into(), self.theme);
        let inner = block.inner(area);
        block.render(area, buf);
        for (row, f) in ActivationField::ALL.into_iter().enumerate() {
            let hint = match f {
                ActivationField::Reference => "e.g. US-1234",
                _ => "",
            };
            field(
                Rect::new(inner.x, inner.y + row as u16, inner.width, 1).intersection(inner),
                buf,
                f.label(),
                self.form.input(f),
                if self.form.focus == f {
                    Focus::Yes
                } else {
                    Focus::No
                },
                self.theme,
                hint,
            );
        }
        Paragraph::new("Tab next field · Enter start (now) · Esc cancel")
            .style(self.theme.dim())
            .wrap(Wrap { trim: true })
            .render(
                Rect::new(
                    inner.x,
                    inner.y + 4,
                    inner.width,
                    inner.height.saturating_sub(4),
                )
                .intersection(inner),
                buf,
            );
    }
}

/// A yes/no question.
pub struct ConfirmView<'a> {
    pub title: &'a str,
    pub question: String,
    pub theme: Theme,
}

impl Widget for ConfirmView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        Clear.render(area, buf);
        let block = dialog_block(self.title.to_owned(), self.theme);
        let inner = block.inner(area);
        block.render(area, buf);
        Paragraph::new(vec![
            Line::from(self.question),
            Line::raw(""),
            Line::styled("y: yes · any other key: no", self.theme.dim()),
        ])
        .wrap(Wrap { trim: true })
        .render(inner, buf);
    }
}

/// The choice `m` offers: this month's custom log or a program's hunting log.
pub struct MonthView {
    pub month: String,
    pub theme: Theme,
}

impl Widget for MonthView {
    fn render(self, area: Rect, buf: &mut Buffer) {
        Clear.render(area, buf);
        let block = dialog_block(format!("This month's log · {}", self.month), self.theme);
        let inner = block.inner(area);
        block.render(area, buf);
        Paragraph::new(vec![
            Line::from(format!("m  the {} log (your own)", self.month)),
            Line::from("p  POTA hunting · d  DX · r  Repeaters"),
            Line::raw(""),
            Line::styled("any other key: cancel", self.theme.dim()),
        ])
        .render(inner, buf);
    }
}

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
    ("  Alt-W", "wipe the contact; frequency and mode stay"),
    (
        "  Enter  Esc",
        "log it, the form clears / close, its text kept",
    ),
    (
        "Alt + letter",
        "the commands below (no log open: the letter)",
    ),
    ("n", "the entry form, as it was left"),
    ("a", "start an activation (a two-fer too), also offline"),
    ("e", "edit the contact, or end the activation (after y)"),
    ("d", "delete the contact, or discard a ↑ ✗ one (after y)"),
    ("m", "this month's log: m yours, p POTA, d DX, r Repeaters"),
    ("x", "write the activation's POTA file, or a log as ADIF"),
    (
        "F  Shift-M",
        "send the form's frequency / mode to the radio",
    ),
    ("r  ?", "refresh everything from the service / this help"),
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

/// Draws the whole screen, and puts the terminal's cursor where text is being typed.
pub fn draw(app: &App, frame: &mut Frame) {
    let area = frame.area();
    let theme = Theme {
        color: app.options.color,
    };
    let areas = layout(area, app.message_rows(area.width));
    // While a dialog is open it has the keys, and no pane shows focus.
    let focus = app.dialog.is_none().then_some(app.focus);
    frame.render_widget(
        View {
            state: &app.folders,
            focused: focus == Some(Pane::Folders),
            theme,
        },
        areas.folders,
    );
    frame.render_widget(
        View {
            state: &app.activations,
            focused: focus == Some(Pane::Activations),
            theme,
        },
        areas.activations,
    );
    frame.render_widget(
        View {
            state: &app.contacts,
            focused: focus == Some(Pane::Contacts),
            theme,
        },
        areas.contacts,
    );
    if app.contacts.folder.is_none()
        && app.contacts.items.is_empty()
        && let Some(why) = app.journal.cannot_log()
    {
        // In place of "no folder open": there is nothing to open yet, and this says why.
        let inner = Block::new().borders(Borders::ALL).inner(areas.contacts);
        Clear.render(inner, frame.buffer_mut());
        placeholder(inner, frame.buffer_mut(), &why, theme.tone(Tone::Warning));
    }
    frame.render_widget(MessageLine { app, theme }, areas.message);
    frame.render_widget(StatusBar { app, theme }, areas.bar);
    if let Some(position) = cursor(app, area) {
        frame.set_cursor_position(position);
    }
    match &app.dialog {
        None => {}
        Some(Dialog::Entry) => {
            if let Some(form) = &app.entry {
                let valid = app.meter(&form.folder_id);
                frame.render_widget(
                    EntryView {
                        form,
                        valid,
                        refusal: None,
                        editing: false,
                        theme,
                    },
                    EntryView::area(areas.top, area),
                );
            }
        }
        Some(Dialog::Fix(fix)) => frame.render_widget(
            EntryView {
                form: &fix.form,
                valid: app.meter(&fix.form.folder_id),
                refusal: Some(&fix.refusal),
                editing: false,
                theme,
            },
            EntryView::area(areas.top, area),
        ),
        Some(Dialog::Edit(edit)) => frame.render_widget(
            EntryView {
                form: &edit.form,
                valid: None,
                refusal: None,
                editing: true,
                theme,
            },
            EntryView::area(areas.top, area),
        ),
        Some(Dialog::ConfirmEnded { label, .. }) => frame.render_widget(
            ConfirmView {
                title: "Activation ended",
                question: format!(
                    "Activation {label} has ended. Log this contact into it all the same?"
                ),
                theme,
            },
            centered(area, 56, 7),
        ),
        Some(Dialog::ConfirmDiscard { label, .. }) => frame.render_widget(
            ConfirmView {
                title: "Discard contact",
                question: format!(
                    "Discard {label}? It is not in the log, and it goes from the journal for good."
                ),
                theme,
            },
            centered(area, 56, 7),
        ),
        Some(Dialog::Activation(form)) => {
            frame.render_widget(ActivationView { form, theme }, ActivationView::area(area));
        }
        Some(Dialog::ConfirmDelete { label, .. }) => frame.render_widget(
            ConfirmView {
                title: "Delete contact",
                question: format!("Delete {label}? This cannot be undone."),
                theme,
            },
            centered(area, 56, 6),
        ),
        Some(Dialog::ConfirmEnd { label, .. }) => frame.render_widget(
            ConfirmView {
                title: "End activation",
                question: format!("End activation {label} now?"),
                theme,
            },
            centered(area, 56, 6),
        ),
        Some(Dialog::ConfirmQuit { question }) => frame.render_widget(
            ConfirmView {
                title: "Quit",
                question: question.clone(),
                theme,
            },
            centered(area, 64, 7),
        ),
        Some(Dialog::ChooseMonth) => frame.render_widget(
            MonthView {
                month: app.now.utc_month(),
                theme,
            },
            centered(area, 56, 7),
        ),
        Some(Dialog::Help) => frame.render_widget(HelpView { theme }, HelpView::area(area)),
    }
    obey_nothing(frame.buffer_mut());
}

/// Takes out of the drawn screen every character a terminal would obey rather than show (a
/// server's U+202E reversing the rest of a row, a C1 control starting an escape sequence).
/// They have no width, so each rides in the cell before it; the cells keep their places.
fn obey_nothing(buf: &mut Buffer) {
    for cell in buf.content.iter_mut() {
        if cell.symbol().chars().any(obeyed) {
            let kept: String = cell.symbol().chars().filter(|c| !obeyed(*c)).collect();
            cell.set_symbol(if kept.is_empty() { " " } else { &kept });
        }
    }
}

/// Where the terminal's cursor belongs: in the field or filter being typed, else hidden.
pub fn cursor(app: &App, area: Rect) -> Option<Position> {
    let areas = layout(area, app.message_rows(area.width));
    match &app.dialog {
        Some(Dialog::Entry | Dialog::Fix(_) | Dialog::Edit(_)) => {
            let form = match &app.dialog {
                Some(Dialog::Fix(fix)) => &fix.form,
                Some(Dialog::Edit(edit)) => &edit.form,
                _ => app.entry.as_ref()?,
            };
            let inner = Block::new()
                .borders(Borders::ALL)
                .inner(EntryView::area(areas.top, area));
            Some(cursor_in(
                entry_field_area(inner, form.focus),
                form.input(form.focus),
            ))
        }
        Some(Dialog::Activation(form)) => {
            let inner = Block::new()
                .borders(Borders::ALL)
                .inner(ActivationView::area(area));
            let row = form.focus as u16;
            let line = Rect::new(inner.x, inner.y + row, inner.width, 1);
            Some(cursor_in(line, form.input(form.focus)))
        }
        Some(_) => None,
        None => {
            let (view, pane_area, title) = match app.focus {
                Pane::Folders => (&app.folders.view, areas.folders, " Folders ".len()),
                Pane::Activations => (
                    &app.activations.view,
                    areas.activations,
                    " Activations ".len(),
                ),
                Pane::Contacts => {
                    let pane = &app.contacts;
                    let mut len = contacts_title(pane).chars().count();
                    if pane.load == Load::Loading && !pane.items.is_empty() {
                        len += LOADING_MORE.chars().count();
                    }
                    (&pane.view, areas.contacts, len)
                }
            };
            let input = view.filter_input.as_ref()?;
            let x = pane_area.x as usize + 1 + title + 1 + input.visual_cursor();
            let max = pane_area.right().saturating_sub(2) as usize;
            Some(Position::new(x.min(max) as u16, pane_area.y))
        }
    }
}
