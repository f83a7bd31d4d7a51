//! The two lines at the bottom: the newest message, whole, and the status bar (account, QSO
//! counter, clock, connection, the journal's counts, the radio, requests in flight); what a
//! message is, and how a failure is said.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::list::Load;
use crate::widgets::{Theme, Tone, message_lines};
use svc_client::ClientError;
use svc_client::export::Exported;
use svc_client::journal::Counts;
use svc_model::{ErrorCode, Timestamp, Whoami};

/// What the message line says of an export: where the file went (each file of a two-fer,
/// one per park, since each is to upload), or why there is none.
pub fn exported(name: &str, result: Result<Exported, String>) -> (Tone, String) {
    match result {
        Ok(done) => {
            let path = done
                .path
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            let records = if done.records == done.contacts {
                String::new()
            } else {
                format!(" as {} records", done.records)
            };
            let contacts = match done.contacts {
                1 => "1 contact".to_owned(),
                n => format!("{n} contacts"),
            };
            let to = if done.files.len() > 1 {
                let paths: Vec<String> = done
                    .files
                    .iter()
                    .map(|f| f.path.display().to_string())
                    .collect();
                format!("{} files, one per park: {}", paths.len(), paths.join(", "))
            } else {
                path
            };
            (
                Tone::Success,
                format!("exported {contacts}{records} to {to}"),
            )
        }
        Err(why) => (Tone::Error, format!("{name} not exported: {why}")),
    }
}

/// The most rows the message line takes, so the panes keep their room at 24 lines.
pub const MESSAGE_ROWS: usize = 4;

#[derive(Debug, Clone, PartialEq)]
pub enum Connection {
    Connecting,
    Online,
    Offline,
    KeyRejected,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    pub text: String,
    pub tone: Tone,
    /// When it was said: an old message says how old it is.
    pub at: Timestamp,
}

/// Rows the message line takes: as many as the newest message needs to be read whole at this
/// width (up to [`MESSAGE_ROWS`]), so an error's reason is never cut off.
pub fn message_rows(status: Option<&Status>, width: u16) -> u16 {
    match status {
        Some(s) => message_lines(&s.text, width).len().clamp(1, MESSAGE_ROWS) as u16,
        None => 1,
    }
}

/// A failure as the status line says it: the server's code and message, and what to do.
pub fn describe(e: &ClientError) -> String {
    match e {
        ClientError::Transport { message, attempts } => format!(
            "no answer from the service after {attempts} attempt{} ({message}); check the network, then press r",
            if *attempts == 1 { "" } else { "s" }
        ),
        ClientError::Server(s) => {
            let hint = match s.code() {
                Some(ErrorCode::Unauthorized | ErrorCode::KeyRevoked) => {
                    "; run svc auth login with a working key, then start svc again"
                }
                Some(ErrorCode::TierInsufficient) => "; then run svc auth login with it",
                _ => "",
            };
            // The service's own message may say it already.
            let hint = if s.message.contains("svc auth login") {
                ""
            } else {
                hint
            };
            format!("{}: {}{hint}", s.error, s.message)
        }
        ClientError::Unexpected { message, .. } => format!("unexpected_response: {message}"),
    }
}

pub fn is_key_error(e: &ClientError) -> bool {
    matches!(e, ClientError::Server(s)
        if matches!(s.code(), Some(ErrorCode::Unauthorized | ErrorCode::KeyRevoked)))
}

/// The QSO counter of the status bar and whether it is in the warning range.
pub fn qso_counter(me: &Whoami) -> (String, bool) {
    match me.cap() {
        Some(cap) => (format!("QSOs {}/{cap}", me.native_qso_count), me.near_cap()),
        None => (format!("QSOs {}", me.native_qso_count), false),
    }
}

/// The line under the panes: the last message.
pub struct MessageLine<'a> {
    pub status: Option<&'a Status>,
    pub now: Timestamp,
    pub theme: Theme,
}

impl Widget for MessageLine<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (text, style) = match self.status {
            // An old message says its age, so it is not read as news.
            Some(s) => match (self.now.millis() - s.at.millis()) / 60_000 {
                0 => (s.text.clone(), self.theme.tone(s.tone)),
                minutes => (
                    format!("{} ({minutes} min ago)", s.text),
                    self.theme.tone(s.tone).patch(self.theme.dim()),
                ),
            },
            None => (
                "? help · Tab next pane · Enter open · type a call to log · Alt-Q quit".to_owned(),
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

/// The bottom line: account, counter, clock, connection, the journal's counts, the radio,
/// WSJT-X, requests in flight.
pub struct StatusBar<'a> {
    /// How the logbook was started (`demo`).
    pub label: Option<&'a str>,
    pub me: Option<&'a Whoami>,
    pub me_load: &'a Load,
    pub now: Timestamp,
    pub connection: &'a Connection,
    pub counts: Counts,
    /// The radio's part, and whether it is a failure.
    pub rig: Option<(String, bool)>,
    /// WSJT-X's part, and whether it is a failure.
    pub wsjtx: Option<(String, bool)>,
    /// The open contest log's rate and claimed score, while the form logs into one.
    pub contest: Option<String>,
    pub in_flight: usize,
    pub theme: Theme,
}

fn clock(t: Timestamp, seconds: bool) -> String {
    let s = t.to_string();
    let end = if seconds { 19 } else { 16 };
    format!("{} UTC", s.get(11..end).unwrap_or(""))
}

/// Parts of the status bar that give way, in this order, when the screen is too narrow for
/// everything: the plan (the QSO counter shows the free plan's cap anyway), the request
/// counter, the tier, the clock's seconds (the clock stays), the account's callsign (the
/// operator knows it; the radio's and WSJT-X's parts, last on the line, then still fit 80
/// columns). The counts of waiting and refused contacts never do.
const DROPPABLE: [&str; 5] = ["plan", "req", "tier", "seconds", "account"];
// The contest's rate and score stay: a contester reads them as often as the clock.

impl Widget for StatusBar<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let base = Style::new().add_modifier(Modifier::REVERSED);
        // (name, span): the names say which parts may be dropped.
        let mut parts: Vec<(&str, Span)> = Vec::new();
        if let Some(label) = self.label {
            parts.push((
                "",
                Span::styled(label.to_owned(), base.add_modifier(Modifier::BOLD)),
            ));
        }
        match self.me {
            Some(me) => {
                let (counter, warn) = qso_counter(me);
                let counter_style = if warn {
                    base.patch(self.theme.tone(Tone::Warning))
                } else {
                    base
                };
                parts.push((
                    "account",
                    Span::styled(me.callsign.clone(), base.add_modifier(Modifier::BOLD)),
                ));
                parts.push(("plan", Span::styled(me.plan.clone(), base)));
                parts.push(("tier", Span::styled(me.tier.as_str(), base)));
                parts.push(("", Span::styled(counter, counter_style)));
            }
            None => parts.push((
                "",
                Span::styled(
                    match self.me_load {
                        Load::Failed(_) => "account unknown",
                        _ => "account…",
                    },
                    base,
                ),
            )),
        }
        if let Some(contest) = self.contest {
            parts.push(("", Span::styled(contest, base.add_modifier(Modifier::BOLD))));
        }
        parts.push(("seconds", Span::styled(clock(self.now, true), base)));
        let (connection, tone) = match self.connection {
            Connection::Connecting => ("connecting", Tone::Info),
            Connection::Online => ("online", Tone::Info),
            Connection::Offline => ("offline", Tone::Error),
            Connection::KeyRejected => ("key rejected", Tone::Error),
        };
        parts.push((
            "",
            Span::styled(connection, base.patch(self.theme.tone(tone))),
        ));
        let counts = self.counts;
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
        for (label, lost) in [self.rig, self.wsjtx].into_iter().flatten() {
            let style = if lost {
                base.patch(self.theme.tone(Tone::Error))
            } else {
                base
            };
            parts.push(("", Span::styled(label, style)));
        }
        if self.in_flight > 0 {
            parts.push(("req", Span::styled(format!("{} req", self.in_flight), base)));
        }
        // A space at each end and " · " between the parts.
        let width = |parts: &[(&str, Span)]| -> usize {
            parts.iter().map(|(_, s)| s.width() + 3).sum::<usize>() - 1
        };
        for name in DROPPABLE {
            if width(&parts) <= area.width as usize {
                break;
            }
            if name == "seconds" {
                for (n, span) in &mut parts {
                    if *n == name {
                        *n = "";
                        *span = Span::styled(clock(self.now, false), base);
                    }
                }
            } else {
                parts.retain(|(n, _)| *n != name);
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_say_what_to_do_once() {
        let server = |code: &str, message: &str| {
            ClientError::Server(Box::new(svc_client::ServerError {
                error: code.into(),
                message: message.into(),
                details: None,
                request_id: None,
                status: 401,
                retry_after: None,
            }))
        };
        let text = describe(&server("unauthorized", "the API key is not recognized"));
        assert_eq!(
            text,
            "unauthorized: the API key is not recognized; run svc auth login with a working key, then start svc again"
        );
        let text = describe(&server("key_revoked", "revoked; run svc auth login"));
        assert_eq!(text.matches("svc auth login").count(), 1, "{text}");
        let text = describe(&ClientError::Transport {
            message: "timed out".into(),
            attempts: 1,
        });
        assert!(text.starts_with("no answer from the service after 1 attempt (timed out)"));
    }
}
