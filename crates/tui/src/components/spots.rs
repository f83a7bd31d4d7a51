//! POTA spots in the logbook, as PoLo and HAMRS have them: the hunter's list of activators on
//! the air (Alt-Shift-S), refreshed every 30 s while open and filtered as it is typed at, where
//! Enter starts a contact with the spot; and the activator's own spot (Alt-S), sent once when
//! asked and never kept for later. Their state, keys and drawing.

use std::collections::HashSet;

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Alignment, Constraint, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Clear, Paragraph, Row, Table, Widget, Wrap};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use crate::list::{ListView, Load};
use crate::widgets::{Focus, Theme, Tone, centered, cursor_in, dialog_block, field, hhmm};
use svc_model::band::mhz_text;
use svc_model::program::spot_parks;
use svc_model::{Contact, Folder, Timestamp};
use svc_pota::{NewSpot, Spot};

/// How often an open spot list is read again: POTA's own page refreshes about as often.
pub const REFRESH_MS: i64 = 30_000;

/// The spot list's rows under its title, header and filter line.
pub fn list_height(screen: Rect) -> usize {
    SpotsView::area(screen).height.saturating_sub(5) as usize
}

/// The hunter's spot list.
#[derive(Debug, Clone)]
pub struct SpotList {
    pub load: Load,
    pub spots: Vec<Spot>,
    pub view: ListView,
    /// When the list was last asked for: the next read is due [`REFRESH_MS`] after.
    pub asked_at: Timestamp,
    /// `CALL PARK` of the contacts of the open log made today: a spot of one is marked.
    pub worked: HashSet<String>,
}

/// What a key did in the spot list.
#[derive(Debug, Clone, PartialEq)]
pub enum SpotsKey {
    Close,
    Stay,
    /// Enter on a spot: a contact with it.
    Hunt(Box<Spot>),
}

/// The key a spot is known as worked by.
fn worked_key(call: &str, park: &str) -> String {
    format!(
        "{} {}",
        call.to_ascii_uppercase(),
        park.to_ascii_uppercase()
    )
}

/// The stations and parks among `contacts` worked on the UTC day of `now`.
pub fn worked_today<'a>(
    contacts: impl Iterator<Item = &'a Contact>,
    now: Timestamp,
) -> HashSet<String> {
    let today = now.utc_day();
    contacts
        .filter(|c| c.time_on.utc_day() == today)
        .flat_map(|c| {
            c.sig_info
                .as_deref()
                .unwrap_or("")
                .split(',')
                .filter(|p| !p.is_empty())
                .map(|park| worked_key(&c.callsign, park))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn spot_text(s: &Spot) -> String {
    format!(
        "{} {} {} {} {} {}",
        s.activator,
        mhz_text(s.frequency),
        s.band.unwrap_or(""),
        s.mode.as_deref().unwrap_or(""),
        s.reference,
        s.park_name.as_deref().unwrap_or("")
    )
}

impl SpotList {
    pub fn new(now: Timestamp, worked: HashSet<String>) -> SpotList {
        SpotList {
            load: Load::Loading,
            spots: Vec::new(),
            view: ListView::default(),
            asked_at: now,
            worked,
        }
    }

    /// Whether to read the list again now.
    pub fn due(&self, now: Timestamp) -> bool {
        self.load != Load::Loading && now.millis() - self.asked_at.millis() >= REFRESH_MS
    }

    pub fn asked(&mut self, now: Timestamp) {
        self.asked_at = now;
        if self.spots.is_empty() {
            self.load = Load::Loading;
        }
    }

    /// POTA's answer; a failure keeps the spots already shown (and says so).
    pub fn loaded(&mut self, result: Result<Vec<Spot>, String>, height: usize) {
        match result {
            Ok(spots) => {
                let selected = self
                    .view
                    .selected_item()
                    .and_then(|i| self.spots.get(i))
                    .map(|s| (s.activator.clone(), s.reference.clone()));
                self.spots = spots;
                self.load = Load::Loaded;
                self.refilter(height);
                if let Some((call, park)) = selected
                    && let Some(i) = self
                        .spots
                        .iter()
                        .position(|s| s.activator == call && s.reference == park)
                {
                    self.view.select_item(i, height);
                }
            }
            Err(why) => self.load = Load::Failed(why),
        }
    }

    fn refilter(&mut self, height: usize) {
        let texts = self.spots.iter().map(spot_text);
        self.view.refilter(texts, height);
    }

    /// Typing filters (`20m`, `cw`, `US-`, a call), Backspace takes back, Esc clears the
    /// filter and then closes, the arrows move, Enter hunts the selected spot.
    pub fn key(&mut self, key: KeyEvent, height: usize) -> SpotsKey {
        match key.code {
            KeyCode::Esc if self.view.filter.is_empty() => return SpotsKey::Close,
            KeyCode::Esc => self.view.filter.clear(),
            KeyCode::Enter => {
                return match self.view.selected_item().and_then(|i| self.spots.get(i)) {
                    Some(spot) => SpotsKey::Hunt(Box::new(spot.clone())),
                    None => SpotsKey::Stay,
                };
            }
            KeyCode::Backspace => {
                self.view.filter.pop();
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.view.filter.push(c);
            }
            _ => {
                self.view.move_key(&key, height, false);
                return SpotsKey::Stay;
            }
        }
        self.refilter(height);
        SpotsKey::Stay
    }
}

/// The spot list, over most of the screen.
pub struct SpotsView<'a> {
    pub list: &'a SpotList,
    pub theme: Theme,
}

impl SpotsView<'_> {
    pub fn area(screen: Rect) -> Rect {
        centered(screen, 80, screen.height.saturating_sub(2).max(8))
    }
}

impl Widget for SpotsView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let list = self.list;
        Clear.render(area, buf);
        let title = format!(
            "POTA spots · {} of {} · read {} UTC",
            list.view.shown.len(),
            list.spots.len(),
            hhmm(list.asked_at)
        );
        let block = dialog_block(title, self.theme);
        let inner = block.inner(area);
        block.render(area, buf);
        let filter = if list.view.filter.is_empty() {
            Line::styled(
                "type to filter (20m, cw, US-, a call) · ↑ ↓ · Enter log it · Esc close",
                self.theme.dim(),
            )
        } else {
            Line::from(vec![
                Span::raw(format!("filter: {}", list.view.filter)),
                Span::styled(" · Esc clears it", self.theme.dim()),
            ])
        };
        let mut rows_area = inner;
        Paragraph::new(filter).render(Rect { height: 1, ..inner }, buf);
        rows_area.y += 1;
        rows_area.height = rows_area.height.saturating_sub(1);
        let placeholder = match &list.load {
            Load::Loading if list.spots.is_empty() => Some("Reading POTA's spots…".to_owned()),
            Load::Failed(why) if list.spots.is_empty() => {
                Some(format!("The spots did not load: {why}"))
            }
            _ if list.spots.is_empty() => Some("No activator is spotted right now.".to_owned()),
            _ if list.view.shown.is_empty() => Some(format!(
                "No spot matches {:?}; Esc clears the filter.",
                list.view.filter
            )),
            _ => None,
        };
        if let Some(text) = placeholder {
            Paragraph::new(text)
                .style(self.theme.dim())
                .wrap(Wrap { trim: true })
                .render(rows_area, buf);
            return;
        }
        let header = Row::new([
            "",
            "UTC",
            "Activator",
            "MHz",
            "Band",
            "Mode",
            "Park",
            "Name",
        ])
        .style(self.theme.header());
        let height = rows_area.height.saturating_sub(1) as usize;
        let rows = list
            .view
            .shown
            .iter()
            .enumerate()
            .skip(list.view.offset)
            .take(height)
            .map(|(i, index)| {
                let s = &list.spots[*index];
                let worked = list
                    .worked
                    .contains(&worked_key(&s.activator, &s.reference));
                let style = if i == list.view.selected {
                    self.theme.selected(true)
                } else {
                    ratatui::style::Style::default()
                };
                Row::new(vec![
                    if worked {
                        Cell::from(Span::styled("✓", self.theme.tone(Tone::Success)))
                    } else {
                        Cell::from("")
                    },
                    Cell::from(s.spot_time.map(hhmm).unwrap_or_default()),
                    Cell::from(s.activator.clone()),
                    Cell::from(Line::from(mhz_text(s.frequency)).alignment(Alignment::Right)),
                    Cell::from(s.band.unwrap_or("")),
                    Cell::from(s.mode.clone().unwrap_or_default()),
                    Cell::from(s.reference.clone()),
                    Cell::from(s.park_name.clone().unwrap_or_default()),
                ])
                .style(style)
            });
        Table::new(
            rows,
            [
                Constraint::Length(1),
                Constraint::Length(5),
                Constraint::Length(10),
                Constraint::Length(9),
                Constraint::Length(5),
                Constraint::Length(5),
                Constraint::Length(9),
                Constraint::Fill(1),
            ],
        )
        .header(header)
        .render(rows_area, buf);
        if let Load::Failed(why) = &list.load {
            // The list shown is the last one read: say the newest read failed.
            let last = Rect {
                y: inner.bottom().saturating_sub(1),
                height: 1,
                ..inner
            };
            Paragraph::new(Line::styled(
                format!("not read again: {why}"),
                self.theme.tone(Tone::Warning),
            ))
            .render(last, buf);
        }
    }
}

/// The activator's own spot: what is sent, and a comment typed.
#[derive(Debug, Clone)]
pub struct SpotForm {
    pub spot: NewSpot,
    pub comment: Input,
}

/// What a key did in the spot form.
#[derive(Debug, Clone, PartialEq)]
pub enum SpotKey {
    Cancel,
    Stay,
    Send(NewSpot),
}

impl SpotForm {
    pub fn new(spot: NewSpot) -> SpotForm {
        SpotForm {
            spot,
            comment: Input::default(),
        }
    }

    /// The spot of `activation` on `frequency` (MHz) and `mode`; its activator the
    /// activation's callsign, else `account`. A spot names one park: a two-fer's others go in
    /// the comment, as activators write it. Why there is none, when the form lacks what a spot
    /// needs.
    pub fn of_activation(
        activation: &Folder,
        frequency: &str,
        mode: &str,
        account: Option<&str>,
    ) -> Result<SpotForm, String> {
        let Ok(mhz) = frequency.trim().parse::<f64>() else {
            return Err(
                "no frequency to spot: type it in the form (Alt-N), or follow the radio (--rig)"
                    .into(),
            );
        };
        let mode = mode.trim();
        if mode.is_empty() {
            return Err("no mode to spot: type it in the form (Alt-N)".into());
        }
        let reference = activation.location_reference.as_deref().unwrap_or("");
        let (park, others) = spot_parks(reference, None);
        let activator = activation
            .callsign
            .as_deref()
            .or(account)
            .unwrap_or_default()
            .to_owned();
        let mut form = SpotForm::new(NewSpot {
            spotter: activator.clone(),
            activator,
            frequency: mhz,
            reference: park,
            mode: mode.to_owned(),
            comments: None,
        });
        if let Some(others) = others {
            form.comment = Input::new(others);
        }
        Ok(form)
    }

    pub fn key(&mut self, key: KeyEvent) -> SpotKey {
        match key.code {
            KeyCode::Esc => SpotKey::Cancel,
            KeyCode::Enter => {
                let mut spot = self.spot.clone();
                let comment = self.comment.value().trim();
                spot.comments = (!comment.is_empty()).then(|| comment.to_owned());
                SpotKey::Send(spot)
            }
            _ => {
                self.comment.handle_event(&Event::Key(key));
                SpotKey::Stay
            }
        }
    }

    /// Where the terminal's cursor goes on a screen of `area`: in the comment.
    pub fn cursor(&self, area: Rect) -> Position {
        let inner = Block::new()
            .borders(Borders::ALL)
            .inner(SpotFormView::area(area));
        cursor_in(
            Rect::new(inner.x, inner.y + 1, inner.width, 1),
            &self.comment,
        )
    }
}

/// The spot form, in the middle of the screen.
pub struct SpotFormView<'a> {
    pub form: &'a SpotForm,
    pub theme: Theme,
}

impl SpotFormView<'_> {
    pub fn area(screen: Rect) -> Rect {
        centered(screen, 64, 6)
    }
}

impl Widget for SpotFormView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        Clear.render(area, buf);
        let s = &self.form.spot;
        let block = dialog_block(
            format!(
                "Spot {} at {} on {} {}",
                s.activator,
                s.reference,
                mhz_text(s.frequency),
                s.mode
            ),
            self.theme,
        );
        let inner = block.inner(area);
        block.render(area, buf);
        Paragraph::new(Line::styled(
            "on POTA's spot page and in every hunter's logger, now:",
            self.theme.dim(),
        ))
        .render(Rect { height: 1, ..inner }, buf);
        field(
            Rect::new(inner.x, inner.y + 1, inner.width, 1).intersection(inner),
            buf,
            "Comment",
            &self.form.comment,
            Focus::Yes,
            self.theme,
            "e.g. QRT at 15z",
        );
        Paragraph::new("Enter spot it (sent once, never later) · Esc cancel")
            .style(self.theme.dim())
            .wrap(Wrap { trim: true })
            .render(
                Rect::new(inner.x, inner.y + 3, inner.width, 1).intersection(inner),
                buf,
            );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spot(call: &str, mhz: f64, mode: &str, park: &str) -> Spot {
        Spot {
            activator: call.into(),
            frequency: mhz,
            band: svc_model::band::band_for_mhz(mhz),
            mode: Some(mode.into()),
            reference: park.into(),
            park_name: None,
            location: None,
            spot_time: None,
            spotter: None,
            comments: None,
            id: None,
        }
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn typing_filters_and_enter_hunts_the_selected_spot() {
        let now = Timestamp::parse("t", "2026-11-27T12:00:00Z").unwrap();
        let mut list = SpotList::new(now, HashSet::new());
        list.loaded(
            Ok(vec![
                spot("K1ABC", 14.285, "SSB", "US-0001"),
                spot("N0XYZ", 7.032, "CW", "US-0002"),
                spot("W9AAA", 14.062, "CW", "US-0003"),
            ]),
            10,
        );
        assert_eq!(list.view.shown, [0, 1, 2]);
        for c in "20m cw".chars() {
            list.key(key(KeyCode::Char(c)), 10);
        }
        assert_eq!(list.view.shown, [2]);
        assert_eq!(
            list.key(key(KeyCode::Enter), 10),
            SpotsKey::Hunt(Box::new(spot("W9AAA", 14.062, "CW", "US-0003")))
        );
        assert_eq!(list.key(key(KeyCode::Esc), 10), SpotsKey::Stay);
        assert_eq!(list.view.shown, [0, 1, 2]);
        assert_eq!(list.key(key(KeyCode::Esc), 10), SpotsKey::Close);
        // A refresh keeps the spot selected where it moved to.
        list.key(key(KeyCode::Down), 10);
        list.loaded(
            Ok(vec![
                spot("AA1AA", 21.3, "SSB", "US-0009"),
                spot("K1ABC", 14.285, "SSB", "US-0001"),
                spot("N0XYZ", 7.032, "CW", "US-0002"),
            ]),
            10,
        );
        assert_eq!(list.view.selected_item(), Some(2));
        assert!(!list.due(now));
        assert!(list.due(Timestamp(now.millis() + REFRESH_MS)));
    }
}
