//! The dialog that starts an activation: reference (a two-fer lists its parks), callsign and
//! program, checked with the model's rules. Its state, keys and drawing.

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent};
use ratatui::layout::{Position, Rect};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};
use tui_input::Input;

use crate::widgets::{Focus, Theme, centered, cursor_in, dialog_block, field};
use svc_client::NewActivationRequest;
use svc_model::callsign::normalize_callsign;
use svc_model::program::{normalize_reference_list, parse_program_id};

/// The fields of the activation form, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActivationField {
    Reference,
    Callsign,
    Program,
}

impl ActivationField {
    pub const ALL: [ActivationField; 3] = [
        ActivationField::Reference,
        ActivationField::Callsign,
        ActivationField::Program,
    ];

    pub fn label(self) -> &'static str {
        match self {
            ActivationField::Reference => "Reference",
            ActivationField::Callsign => "Callsign",
            ActivationField::Program => "Program",
        }
    }
}

#[derive(Debug, Clone)]
pub struct ActivationForm {
    pub inputs: Vec<Input>,
    pub focus: ActivationField,
}

impl ActivationForm {
    pub fn new(callsign: &str) -> ActivationForm {
        ActivationForm {
            inputs: vec![
                Input::default(),
                Input::new(callsign.to_owned()),
                Input::new("pota".to_owned()),
            ],
            focus: ActivationField::Reference,
        }
    }

    /// Fills in the activator's callsign if none was typed yet.
    pub fn default_callsign(&mut self, callsign: &str) {
        let field = &mut self.inputs[ActivationField::Callsign as usize];
        if field.value().is_empty() {
            *field = Input::new(callsign.to_owned());
        }
    }

    pub fn value(&self, field: ActivationField) -> &str {
        self.inputs[field as usize].value()
    }

    pub fn input(&self, field: ActivationField) -> &Input {
        &self.inputs[field as usize]
    }

    pub fn next_field(&mut self, back: bool) {
        let n = ActivationField::ALL.len();
        let i = self.focus as usize + if back { n - 1 } else { 1 };
        self.focus = ActivationField::ALL[i % n];
    }

    pub fn edit(&mut self, event: &ratatui::crossterm::event::Event) {
        use tui_input::backend::crossterm::EventHandler;
        self.inputs[self.focus as usize].handle_event(event);
    }

    pub fn request(&self) -> Result<NewActivationRequest, (ActivationField, String)> {
        // A two-fer names its parks with commas (US-0001,US-0002): one activation of each.
        let reference =
            normalize_reference_list("reference", self.value(ActivationField::Reference))
                .map_err(|e| (ActivationField::Reference, e.message))?;
        let callsign = normalize_callsign("callsign", self.value(ActivationField::Callsign))
            .map_err(|e| (ActivationField::Callsign, e.message))?;
        let program = parse_program_id("program", self.value(ActivationField::Program))
            .map_err(|e| (ActivationField::Program, e.message))?;
        if !program.supports_activations() {
            return Err((
                ActivationField::Program,
                format!(
                    "program {} is hunting-only and does not support activations; use pota",
                    program.id()
                ),
            ));
        }
        Ok(NewActivationRequest {
            location_reference: reference,
            callsign,
            program_id: Some(program.id().to_owned()),
            location_name: None,
            start_time: None,
        })
    }
}

/// What a key did in the activation form.
#[derive(Debug, Clone, PartialEq)]
pub enum ActivationKey {
    Cancel,
    Stay,
    /// Enter on a form that checks out.
    Submit(NewActivationRequest),
    /// Enter on a form with a fault: the cursor is on its field, and this says why.
    Fault(String),
}

impl ActivationForm {
    pub fn key(&mut self, key: KeyEvent) -> ActivationKey {
        match key.code {
            KeyCode::Esc => ActivationKey::Cancel,
            KeyCode::Tab | KeyCode::Down => {
                self.next_field(false);
                ActivationKey::Stay
            }
            KeyCode::BackTab | KeyCode::Up => {
                self.next_field(true);
                ActivationKey::Stay
            }
            KeyCode::Enter => match self.request() {
                Ok(request) => ActivationKey::Submit(request),
                Err((field, message)) => {
                    self.focus = field;
                    ActivationKey::Fault(message)
                }
            },
            _ => {
                self.edit(&Event::Key(key));
                ActivationKey::Stay
            }
        }
    }

    /// Where the terminal's cursor goes on a screen of `area`.
    pub fn cursor(&self, area: Rect) -> Position {
        let inner = Block::new()
            .borders(Borders::ALL)
            .inner(ActivationView::area(area));
        let row = self.focus as u16;
        let line = Rect::new(inner.x, inner.y + row, inner.width, 1);
        cursor_in(line, self.input(self.focus))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activation_requests_refuse_hunting_programs() {
        let mut form = ActivationForm::new("W1AW");
        assert_eq!(form.request().unwrap_err().0, ActivationField::Reference);
        form.inputs[0] = Input::new("us-1234".into());
        assert_eq!(form.request().unwrap().location_reference, "US-1234");
        form.inputs[2] = Input::new("dx".into());
        let (field, message) = form.request().unwrap_err();
        assert_eq!(field, ActivationField::Program);
        assert!(message.contains("hunting-only"));
    }
}
