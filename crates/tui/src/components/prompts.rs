//! The questions the logbook asks before doing what cannot be undone, or what a single key
//! would do by mistake (`y` answers yes, any other key no), and the choice of this month's
//! log. Each asks, answers and draws itself.

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

use crate::widgets::{Theme, centered, dialog_block};
use svc_model::Program;

#[derive(Debug, Clone, PartialEq)]
pub enum Prompt {
    /// The entry form's folder is an activation that has ended: y logs into it all the same.
    /// The folder is the form's own: it is renamed under the prompt when a folder made with
    /// no link reaches the service, so the prompt does not hold its id.
    Ended {
        label: String,
    },
    /// A contact with no park bound for a hunting log of a program with parks (POTA): y
    /// logs it without one.
    NoPark {
        label: String,
    },
    /// Removes a waiting or refused contact from the journal.
    Discard {
        id: String,
        label: String,
    },
    Delete {
        id: String,
        label: String,
    },
    End {
        id: String,
        label: String,
    },
    /// A quit with work in hand (a half-typed contact, entries waiting to go out): y quits.
    Quit {
        question: String,
    },
    /// Which of this month's logs to open: the custom one or a program's hunting log.
    Month,
}

/// The answer to a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Yes,
    No,
    /// This month's log: `None` the own one, else a program's hunting log.
    Month(Option<Program>),
}

impl Prompt {
    /// What `key` answers.
    pub fn answer(&self, key: &KeyEvent) -> Answer {
        match self {
            Prompt::Month => match key.code {
                KeyCode::Char('m') | KeyCode::Enter => Answer::Month(None),
                KeyCode::Char('p') => Answer::Month(Some(Program::Pota)),
                KeyCode::Char('d') => Answer::Month(Some(Program::Dx)),
                KeyCode::Char('r') => Answer::Month(Some(Program::Repeaters)),
                _ => Answer::No,
            },
            _ if key.code == KeyCode::Char('y') => Answer::Yes,
            _ => Answer::No,
        }
    }

    /// Draws the question in the middle of `area`; `month` is this month (`2026-11`).
    pub fn render(&self, month: String, theme: Theme, area: Rect, buf: &mut Buffer) {
        let confirm = |title, question: String, width, height, buf: &mut Buffer| {
            ConfirmView {
                title,
                question,
                theme,
            }
            .render(centered(area, width, height), buf);
        };
        match self {
            Prompt::Ended { label, .. } => confirm(
                "Activation ended",
                format!("Activation {label} has ended. Log this contact into it all the same?"),
                56,
                7,
                buf,
            ),
            Prompt::NoPark { label, .. } => confirm(
                "No park",
                format!(
                    "{label} is a hunting log: a contact counts there with the park worked. Log it without a park all the same?"
                ),
                56,
                8,
                buf,
            ),
            Prompt::Discard { label, .. } => confirm(
                "Discard contact",
                format!(
                    "Discard {label}? It is not in the log, and it goes from the journal for good."
                ),
                56,
                7,
                buf,
            ),
            Prompt::Delete { label, .. } => confirm(
                "Delete contact",
                format!("Delete {label}? This cannot be undone."),
                56,
                6,
                buf,
            ),
            Prompt::End { label, .. } => confirm(
                "End activation",
                format!("End activation {label} now?"),
                56,
                6,
                buf,
            ),
            Prompt::Quit { question } => confirm("Quit", question.clone(), 64, 7, buf),
            Prompt::Month => MonthView { month, theme }.render(centered(area, 56, 7), buf),
        }
    }
}

/// A yes/no question.
struct ConfirmView<'a> {
    title: &'a str,
    question: String,
    theme: Theme,
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
struct MonthView {
    month: String,
    theme: Theme,
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
