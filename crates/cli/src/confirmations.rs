//! `svc confirmations status`: how far the log is with each QSL service: what LoTW, eQSL and
//! the paper cards were sent and confirmed (the contacts' own fields, counted by the service),
//! and where the external logbooks (QRZ.com) stand with what was pushed to them.

use clap::Subcommand;
use serde_json::json;

use super::output::{self, Cell, Format};
use super::{CliError, Ctx};
use svc_client::ClientError;
use svc_model::ErrorCode;
use svc_model::confirm::ServiceStatus;

#[derive(Debug, Subcommand)]
pub enum ConfirmationsCommand {
    /// Per QSL service: contacts sent, confirmed, not sent; and the external logbooks
    Status,
}

impl ConfirmationsCommand {
    pub fn name(&self) -> &'static str {
        match self {
            ConfirmationsCommand::Status => "status",
        }
    }
}

pub fn run(ctx: &Ctx, command: ConfirmationsCommand) -> Result<(), CliError> {
    match command {
        ConfirmationsCommand::Status => status(ctx),
    }
}

fn title(service: &str) -> &str {
    match service {
        "lotw" => "LoTW",
        "eqsl" => "eQSL",
        "card" => "QSL card",
        other => other,
    }
}

fn status(ctx: &Ctx) -> Result<(), CliError> {
    let client = ctx.client()?;
    let (status, logbooks) = ctx.block_on(async {
        let status = client.confirmation_status().await?;
        // The external logbooks need an elevated key and a service that keeps their keys;
        // without either there are none to show, which is no failure of this command.
        let logbooks = match client.logbooks().await {
            Ok(logbooks) => logbooks,
            Err(ClientError::Server(e))
                if matches!(
                    e.code(),
                    Some(ErrorCode::NotFound | ErrorCode::TierInsufficient)
                ) =>
            {
                ctx.note(&format!("external logbooks not shown: {}", e.message));
                Vec::new()
            }
            Err(e) => return Err(e.into()),
        };
        Ok((status, logbooks))
    })?;
    match ctx.format {
        Format::Text => {
            let row = |s: &ServiceStatus| {
                vec![
                    Cell::from(title(&s.service)),
                    Cell::from(s.sent.to_string()),
                    Cell::from(s.confirmed.to_string()),
                    Cell::from(s.unsent.to_string()),
                    Cell::from(s.ignored.to_string()),
                ]
            };
            let mut text = format!("{} contacts\n", status.contacts);
            text.push_str(&output::table(
                &["SERVICE", "SENT", "CONFIRMED", "NOT SENT", "IGNORED"],
                status.services.iter().map(row).collect(),
                ctx.color,
            ));
            for book in &logbooks {
                let mut line = format!(
                    "{} logbook of {}: {} in the book, {} waiting, {} refused",
                    if book.provider == "qrz" {
                        "QRZ.com"
                    } else {
                        book.provider.as_str()
                    },
                    book.callsign,
                    book.pushed,
                    book.waiting,
                    book.failed
                );
                if let Some(why) = &book.paused_reason {
                    line.push_str(&format!("; paused: {why}"));
                } else if let Some(error) = &book.last_error {
                    line.push_str(&format!("; last error: {error}"));
                }
                text.push_str(&line);
                text.push('\n');
            }
            ctx.say(&text)
        }
        _ => ctx.print_json(&json!({
            "contacts": status.contacts,
            "services": status.services,
            "logbooks": logbooks,
        })),
    }
}
