//! What the panes and dialogs draw with: the theme, the screen's layout, a pane's frame and
//! rows, dialog boxes and input fields, and the text helpers they share. Pure drawing.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph, Widget, Wrap};
use tui_input::Input;

use super::list::{ListView, Load};
use svc_model::Timestamp;

/// How a message reads: its colour, or its weight without colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Info,
    Success,
    Warning,
    Error,
}

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

    pub fn border(self, focused: bool) -> Style {
        if focused {
            self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
        } else {
            Style::new()
        }
    }

    pub fn selected(self, focused: bool) -> Style {
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

    pub fn dim(self) -> Style {
        if self.color {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    pub fn header(self) -> Style {
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

/// The screen's parts; `message_rows` is how many rows the newest message needs (see
/// [`message_rows`](super::components::status::message_rows)).
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
    pub fn frame(
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

    /// What a list pane shows in place of rows: how its loading stands while it has no items
    /// (`what` names them, `none` says there are none), or that its filter matches nothing.
    /// Whether it drew one.
    pub fn placeholder(
        &self,
        list: &ListView,
        (empty, load): (bool, &Load),
        (what, none): (&str, &str),
        inner: Rect,
        buf: &mut Buffer,
    ) -> bool {
        let text = if empty {
            match load {
                Load::Failed(why) => format!("{what} did not load: {why}"),
                Load::Loaded => none.to_owned(),
                _ => format!("Loading {}…", what.to_lowercase()),
            }
        } else {
            match no_match(list) {
                Some(text) => text,
                None => return false,
            }
        };
        placeholder(inner, buf, &text, self.theme.dim());
        true
    }

    /// Row `i` of the list highlighted when it is the selection.
    pub fn row_style(&self, i: usize, list: &ListView) -> Style {
        if i == list.selected {
            self.theme.selected(self.focused)
        } else {
            Style::new()
        }
    }
}

/// The title's filter part: `/text` while it is typed, `[text]` while it applies.
pub fn filter_span(view: &ListView, theme: Theme) -> Option<Span<'static>> {
    match &view.filter_input {
        Some(input) => Some(Span::styled(format!("/{} ", input.value()), theme.header())),
        None if !view.filter.is_empty() => {
            Some(Span::styled(format!("[{}] ", view.filter), theme.header()))
        }
        None => None,
    }
}

/// What a pane shows when its filter leaves none of its rows.
pub fn no_match(view: &ListView) -> Option<String> {
    (view.shown.is_empty() && !view.filter.is_empty()).then(|| {
        format!(
            "Nothing matches {:?}: / starts another filter, Esc clears it.",
            view.filter
        )
    })
}

pub fn placeholder(area: Rect, buf: &mut Buffer, text: &str, style: Style) {
    Paragraph::new(text.to_owned())
        .style(style)
        .wrap(Wrap { trim: true })
        .render(area, buf);
}

/// A box in the middle of `area`, at most `width` × `height`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

pub fn dialog_block(title: String, theme: Theme) -> Block<'static> {
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
pub enum Focus {
    No,
    Yes,
    /// Focused, and the first character typed replaces the value (shown in reverse).
    Replacing,
}

pub fn field(
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
pub fn input_area(area: Rect) -> Rect {
    let skip = 10.min(area.width);
    Rect {
        x: area.x + skip,
        width: area.width - skip,
        ..area
    }
}

pub fn cursor_in(area: Rect, input: &Input) -> Position {
    let text = input_area(area);
    let width = text.width.saturating_sub(1) as usize;
    let x = input.visual_cursor() - input.visual_scroll(width);
    Position::new(
        text.x + (x as u16).min(text.width.saturating_sub(1)),
        text.y,
    )
}

/// The message broken into lines of at most `width` characters at spaces (a word longer than
/// a line is cut into pieces): the message line counts them for its height and draws
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

/// Rows of the panes for a terminal of `size`: (folders and activations, contacts).
pub fn list_heights(size: (u16, u16), message_rows: u16) -> (usize, usize) {
    let screen = Rect::new(0, 0, size.0, size.1);
    let areas = layout(screen, message_rows);
    (
        areas.folders.height.saturating_sub(2) as usize,
        areas.contacts.height.saturating_sub(3) as usize,
    )
}

/// `HH:MM` of the UTC time.
pub fn hhmm(t: Timestamp) -> String {
    let s = t.to_string();
    s.get(11..16).unwrap_or("").to_owned()
}

/// `MM-DD HH:MM` of the UTC time.
pub fn short_time(t: Timestamp) -> String {
    let s = t.to_string();
    format!(
        "{} {}",
        s.get(5..10).unwrap_or(""),
        s.get(11..16).unwrap_or("")
    )
}
