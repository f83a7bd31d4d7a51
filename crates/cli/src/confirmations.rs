//! `svc confirmations status`: how far the log is with each QSL service: what LoTW, eQSL and
//! the paper cards were sent and confirmed, and what LoTW received (the contacts' own fields,
//! counted by the service); how the last `svc lotw upload` from this machine went (kept on
//! this machine, as TQSL runs here); and where the external logbooks (QRZ.com, Club Log,
//! eQSL) stand with what was pushed to them.

use clap::Subcommand;
use serde_json::json;

use super::output::{self, Cell, Format};
use super::{CliError, Ctx};
use svc_client::ClientError;
use svc_client::lotw;
use svc_model::ErrorCode;
use svc_model::confirm::ServiceStatus;

#[derive(Debug, Subcommand)]
pub enum ConfirmationsCommand {
    /// Per QSL service: contacts sent, received, confirmed, not sent; LoTW's last failed upload; the external logbooks
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

/// A moment kept as RFC 3339 (`2026-11-28T19:40:12Z`), to the minute: `2026-11-28 19:40 UTC`.
fn when(at: &str) -> String {
    match at.get(..16) {
        Some(minute) if at.ends_with('Z') => format!("{} UTC", minute.replacen('T', " ", 1)),
        _ => at.to_owned(),
    }
}

fn status(ctx: &Ctx) -> Result<(), CliError> {
    let client = ctx.client()?;
    let (status, logbooks, uploads) = ctx.block_on(async {
        let status = client.confirmation_status().await?;
        let account = client.whoami().await?.callsign;
        // The marks file is this machine's; one it cannot read leaves the failure unshown,
        // never the counts.
        let uploads = lotw::upload_marks(&account).unwrap_or_else(|e| {
            ctx.warn(&format!("the last LoTW upload's outcome is not shown: {e}"));
            lotw::UploadMarks::default()
        });
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
        Ok((status, logbooks, uploads))
    })?;
    let failed = uploads.failed.as_ref();
    match ctx.format {
        Format::Text => {
            let row = |s: &ServiceStatus| {
                vec![
                    Cell::from(title(&s.service)),
                    Cell::from(s.sent.to_string()),
                    Cell::from(s.received.map_or("-".into(), |n| n.to_string())),
                    Cell::from(s.confirmed.to_string()),
                    Cell::from(s.unsent.to_string()),
                    Cell::from(s.ignored.to_string()),
                ]
            };
            let mut text = format!("{} contacts\n", status.contacts);
            text.push_str(&output::table(
                &[
                    "SERVICE",
                    "SENT",
                    "RECEIVED",
                    "CONFIRMED",
                    "NOT SENT",
                    "IGNORED",
                ],
                status.services.iter().map(row).collect(),
                ctx.color,
            ));
            if let Some(waiting) = status
                .services
                .iter()
                .find_map(|s| s.waiting)
                .filter(|n| *n > 0)
            {
                text.push_str(&format!(
                    "LoTW: {waiting} uploaded and not yet received by LoTW (svc lotw sync asks LoTW)\n"
                ));
            }
            if let Some(failed) = failed {
                text.push_str(&format!(
                    "LoTW: last upload failed {}: {} ({} contacts not sent)\n",
                    when(&failed.at),
                    failed.error,
                    failed.not_sent
                ));
            }
            for book in &logbooks {
                let mut line = format!(
                    "{} logbook of {}: {} in the book, {} waiting, {} refused",
                    if book.provider == "qrz" {
                        "QRZ.com".to_owned()
                    } else {
                        super::logbooks::provider_name(&book.provider)
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
        _ => {
            let mut services = serde_json::to_value(&status.services).unwrap_or_default();
            if let Some(lotw) = services
                .as_array_mut()
                .and_then(|s| s.iter_mut().find(|s| s["service"] == "lotw"))
            {
                lotw["lastUploadFailedAt"] = json!(failed.map(|f| &f.at));
                lotw["lastUploadError"] = json!(failed.map(|f| &f.error));
                lotw["lastUploadNotSent"] = json!(failed.map(|f| f.not_sent));
            }
            ctx.print_json(&json!({
                "contacts": status.contacts,
                "services": services,
                "logbooks": logbooks,
            }))
        }
    }
}
