//! The dialog that starts (or joins) a contest log from the logbook, as `svc contest start`
//! does: the contest, the station call, the exchange it sends and its Cabrillo categories,
//! checked with the model's rules before anything is asked of the service. Its state, keys
//! and drawing.

use std::collections::BTreeMap;

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent};
use ratatui::layout::{Position, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};
use tui_input::Input;

use crate::widgets::{Focus, Theme, centered, cursor_in, dialog_block, field};
use svc_client::contests::NewContestRequest;
use svc_model::callsign::normalize_callsign;
use svc_model::contest::{Contest, category};

/// The fields of the contest form, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContestField {
    Contest,
    Callsign,
    Exchange,
    Categories,
}

impl ContestField {
    pub const ALL: [ContestField; 4] = [
        ContestField::Contest,
        ContestField::Callsign,
        ContestField::Exchange,
        ContestField::Categories,
    ];

    pub fn label(self) -> &'static str {
        match self {
            ContestField::Contest => "Contest",
            ContestField::Callsign => "Callsign",
            ContestField::Exchange => "Sends",
            ContestField::Categories => "Category",
        }
    }
}

#[derive(Debug, Clone)]
pub struct ContestForm {
    inputs: Vec<Input>,
    pub focus: ContestField,
}

/// What a key did in the contest form.
#[derive(Debug, Clone)]
pub enum ContestKey {
    Cancel,
    Stay,
    /// Enter on a form that checks out.
    Submit(Box<NewContestRequest>),
    /// Enter on a form with a fault: the cursor is on its field, and this says why.
    Fault(String),
}

impl ContestForm {
    pub fn new(callsign: &str) -> ContestForm {
        ContestForm {
            inputs: vec![
                Input::default(),
                Input::new(callsign.to_owned()),
                Input::default(),
                Input::default(),
            ],
            focus: ContestField::Contest,
        }
    }

    pub fn value(&self, field: ContestField) -> &str {
        self.inputs[field as usize].value()
    }

    fn input(&self, field: ContestField) -> &Input {
        &self.inputs[field as usize]
    }

    /// The contest the first field names, once it names one.
    fn contest(&self) -> Option<&'static Contest> {
        Contest::find(self.value(ContestField::Contest))
    }

    /// The request the form makes, or the field to fix and why.
    pub fn request(&self) -> Result<NewContestRequest, (ContestField, String)> {
        let Some(contest) = self.contest() else {
            let given = self.value(ContestField::Contest).trim();
            let why = if given.is_empty() {
                "name the contest, e.g. ARRL-FD (the known ones are listed below)".to_owned()
            } else {
                format!("{given:?} is not a contest svc knows; the known ones are listed below")
            };
            return Err((ContestField::Contest, why));
        };
        let callsign = normalize_callsign("callsign", self.value(ContestField::Callsign))
            .map_err(|e| (ContestField::Callsign, e.message))?;
        let exchange = self.value(ContestField::Exchange).trim();
        let exchange = if exchange.is_empty() && contest.sent_fields().next().is_some() {
            let example: Vec<&str> = contest.sent_fields().map(|f| f.example.as_str()).collect();
            return Err((
                ContestField::Exchange,
                format!(
                    "type the exchange this station sends, e.g. {:?}",
                    example.join(" ")
                ),
            ));
        } else if exchange.is_empty() {
            None
        } else {
            Some(
                contest
                    .read_sent(exchange)
                    .map_err(|e| (ContestField::Exchange, e.message))?,
            )
        };
        let mut categories = BTreeMap::new();
        for word in self.value(ContestField::Categories).split_whitespace() {
            let (kind, value) =
                category(word).map_err(|e| (ContestField::Categories, e.message))?;
            categories.insert(kind.to_owned(), value);
        }
        Ok(NewContestRequest {
            contest_id: contest.id.clone(),
            callsign,
            exchange,
            categories,
            cabrillo: BTreeMap::new(),
            start_time: None,
        })
    }

    pub fn key(&mut self, key: KeyEvent) -> ContestKey {
        match key.code {
            KeyCode::Esc => ContestKey::Cancel,
            KeyCode::Tab | KeyCode::Down => {
                self.step(1);
                ContestKey::Stay
            }
            KeyCode::BackTab | KeyCode::Up => {
                self.step(ContestField::ALL.len() - 1);
                ContestKey::Stay
            }
            KeyCode::Enter => match self.request() {
                Ok(request) => ContestKey::Submit(Box::new(request)),
                Err((field, message)) => {
                    self.focus = field;
                    ContestKey::Fault(format!("{}: {message}", field.label()))
                }
            },
            _ => {
                use tui_input::backend::crossterm::EventHandler;
                self.inputs[self.focus as usize].handle_event(&Event::Key(key));
                ContestKey::Stay
            }
        }
    }

    fn step(&mut self, by: usize) {
        let n = ContestField::ALL.len();
        self.focus = ContestField::ALL[(self.focus as usize + by) % n];
    }

    /// Where the terminal's cursor goes on a screen of `area`.
    pub fn cursor(&self, area: Rect) -> Position {
        let inner = Block::new()
            .borders(Borders::ALL)
            .inner(ContestView::area(area));
        let row = self.focus as u16;
        cursor_in(
            Rect::new(inner.x, inner.y + row, inner.width, 1),
            self.input(self.focus),
        )
    }
}

/// The contest form, in the middle of the screen.
pub struct ContestView<'a> {
    pub form: &'a ContestForm,
    pub theme: Theme,
}

impl ContestView<'_> {
    pub fn area(screen: Rect) -> Rect {
        centered(screen, 72, 10)
    }
}

impl Widget for ContestView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        Clear.render(area, buf);
        let block = dialog_block("Start or join a contest log".into(), self.theme);
        let inner = block.inner(area);
        block.render(area, buf);
        let contest = self.form.contest();
        let sends = contest.map(|c| {
            let example: Vec<&str> = c.sent_fields().map(|f| f.example.as_str()).collect();
            format!("e.g. {}", example.join(" "))
        });
        for (row, f) in ContestField::ALL.into_iter().enumerate() {
            let hint = match f {
                ContestField::Contest => "e.g. ARRL-FD",
                ContestField::Exchange => sends.as_deref().unwrap_or(""),
                ContestField::Categories => "e.g. LOW SINGLE-OP (optional)",
                ContestField::Callsign => "",
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
        // The contest named, with what its QSOs take; until one is, the ones svc knows.
        let about = match contest {
            Some(c) => {
                let received: Vec<&str> = c.exchange.iter().map(|f| f.label.as_str()).collect();
                format!(
                    "{} ({}) · each QSO takes {}",
                    c.name,
                    c.id,
                    received.join(" ")
                )
            }
            None => {
                let ids: Vec<&str> = Contest::shipped().iter().map(|c| c.id.as_str()).collect();
                format!("contests: {}", ids.join(" "))
            }
        };
        let lines = vec![
            Line::raw(about),
            Line::styled(
                "Tab next field · Enter start or join this weekend's log · Esc cancel",
                self.theme.dim(),
            ),
        ];
        Paragraph::new(lines).wrap(Wrap { trim: true }).render(
            Rect::new(
                inner.x,
                inner.y + 5,
                inner.width,
                inner.height.saturating_sub(5),
            )
            .intersection(inner),
            buf,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(form: &mut ContestForm, field: ContestField, text: &str) {
        form.inputs[field as usize] = Input::new(text.to_owned());
    }

    #[test]
    fn a_contest_request_is_checked_field_by_field() {
        let mut form = ContestForm::new("W1AW");
        assert_eq!(form.request().unwrap_err().0, ContestField::Contest);
        typed(&mut form, ContestField::Contest, "fieldday");
        assert_eq!(form.request().unwrap_err().0, ContestField::Contest);
        typed(&mut form, ContestField::Contest, "arrl-fd");
        let (field, why) = form.request().unwrap_err();
        assert_eq!(field, ContestField::Exchange);
        assert!(why.contains("2A CT"), "{why}");
        typed(&mut form, ContestField::Exchange, "2g ct");
        assert_eq!(form.request().unwrap_err().0, ContestField::Exchange);
        typed(&mut form, ContestField::Exchange, "2a ct");
        typed(&mut form, ContestField::Categories, "low bogus");
        assert_eq!(form.request().unwrap_err().0, ContestField::Categories);
        typed(&mut form, ContestField::Categories, "low single-op");
        let request = form.request().unwrap();
        assert_eq!(request.contest_id, "ARRL-FD");
        assert_eq!(request.callsign, "W1AW");
        assert_eq!(request.exchange.as_deref(), Some("2A CT"));
        assert_eq!(request.categories["power"], "LOW");
        assert_eq!(request.categories["operator"], "SINGLE-OP");
    }
}
