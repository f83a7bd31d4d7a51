//! `svc outbox list|push|drop`: the journal of contacts logged with no link (`contacts create
//! --queue`, the logbook), shared with the logbook through one file per service and account.

use std::io::IsTerminal;
use std::time::Duration;

use clap::{Args, Subcommand};
use reqwest::Url;
use serde_json::json;

use super::output::{self, Cell, Format};
use super::{Answer, CliError, Ctx, input};
use svc_client::journal::{self, Entry, EntryError, EntryRequest, EntryState, JournalError};
use svc_client::{Client, ClientError};
use svc_model::{ApiKey, Page, Timestamp};

/// Short, so a dead or stalled link shows as down within seconds instead of a minute.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, Subcommand)]
pub enum OutboxCommand {
    /// List what waits to be sent and what the service refused, in the order logged
    List,
    /// Send what waits now, in the order logged; prints what was sent and refused
    Push,
    /// Remove a waiting or refused entry for good: it is never sent
    Drop(DropArgs),
}

impl OutboxCommand {
    pub fn name(&self) -> &'static str {
        match self {
            OutboxCommand::List => "list",
            OutboxCommand::Push => "push",
            OutboxCommand::Drop(_) => "drop",
        }
    }
}

#[derive(Debug, Args)]
pub struct DropArgs {
    /// The entry's id (ent_…), from svc outbox list
    #[arg(value_parser = input::entry_id)]
    id: String,
    /// Drop without asking (needed when stdin is not a terminal)
    #[arg(short, long)]
    yes: bool,
}

impl From<JournalError> for CliError {
    fn from(e: JournalError) -> Self {
        match e {
            JournalError::Storage(m) => CliError::local(m),
            JournalError::Invalid(m) => CliError::input(m),
            JournalError::NotFound(m) => CliError::not_found(m),
        }
    }
}

/// The outbox of this key on this service, and a client with short time-outs to send it. A
/// key used here before finds its journal with no network; a new one asks whoami once for the
/// account's callsign.
pub(super) async fn open(
    ctx: &Ctx,
    base: Url,
    key: &ApiKey,
) -> Result<(journal::Journal, Client), CliError> {
    let client = ctx
        .client_for(base.clone(), key)?
        .with_timeouts(CONNECT_TIMEOUT, ANSWER_TIMEOUT)?;
    if let Some(found) = journal::Journal::find(&base, key).await? {
        return Ok((found, client));
    }
    let me = client.whoami().await.map_err(|e| match e {
        ClientError::Transport { message, .. } => CliError::new(
            "transport_error",
            7,
            format!(
                "no answer from {base} ({message}), and this key has not been used with it on this machine yet, so its outbox is unknown: run svc outbox list once with a link to the service; from then on contacts can be queued with no link"
            ),
        ),
        other => other.into(),
    })?;
    let opened = journal::Journal::open(&base, key, &me.callsign).await?;
    opened.save_whoami(&me).await?;
    Ok((opened, client))
}

pub fn run(ctx: &Ctx, command: OutboxCommand) -> Result<(), CliError> {
    match command {
        OutboxCommand::List => list(ctx),
        OutboxCommand::Push => push(ctx),
        OutboxCommand::Drop(args) => drop_entry(ctx, args),
    }
}

/// What an entry is, in a few words: the callsign, or the folder it makes.
fn what(entry: &Entry) -> String {
    match &entry.request {
        EntryRequest::Contact(c) => c.callsign.clone(),
        EntryRequest::Activation(a) => format!(
            "activation {}@{}",
            a.callsign.trim().to_ascii_uppercase(),
            a.location_reference.trim().to_ascii_uppercase()
        ),
        EntryRequest::Monthly {
            month,
            program_id: None,
        } => format!("monthly log {month}"),
        EntryRequest::Monthly {
            month,
            program_id: Some(program),
        } => format!("{} hunting log {month}", program.to_uppercase()),
    }
}

/// The contact's time on, or the activation's start.
fn when(entry: &Entry) -> String {
    let text = match &entry.request {
        EntryRequest::Contact(c) => Some(c.time_on.as_str()),
        EntryRequest::Activation(a) => a.start_time.as_deref(),
        EntryRequest::Monthly { .. } => None,
    };
    text.and_then(|t| Timestamp::parse("time", t).ok())
        .map_or_else(|| "-".into(), output::time)
}

fn folder(entry: &Entry) -> String {
    match &entry.request {
        EntryRequest::Contact(c) => c.folder_id.clone(),
        _ => entry
            .local_folder_id
            .as_ref()
            .map_or_else(|| "-".into(), |id| format!("makes {id}")),
    }
}

fn list(ctx: &Ctx) -> Result<(), CliError> {
    let base = ctx.api_base()?;
    let key = ctx.key()?;
    let entries = ctx.block_on(async {
        let (journal, _) = open(ctx, base, &key.key).await?;
        Ok(journal.entries().await?)
    })?;
    if entries.is_empty() {
        ctx.info("the outbox is empty: everything logged was sent");
    }
    let page = Page {
        items: entries,
        cursor: None,
    };
    ctx.print_list(&page, |items| table(ctx, items))
}

fn table(ctx: &Ctx, items: &[Entry]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let rows = items
        .iter()
        .map(|e| {
            vec![
                Cell::from(e.id.as_str()),
                Cell::from(e.state.as_str()),
                Cell::from(what(e)),
                Cell::from(when(e)),
                Cell::from(folder(e)),
                Cell::from(
                    e.error
                        .as_ref()
                        .map_or_else(|| "-".into(), |x| format!("{}: {}", x.code, x.message)),
                ),
            ]
        })
        .collect();
    output::table(
        &["ID", "STATE", "WHAT", "TIME ON", "FOLDER", "ERROR"],
        rows,
        ctx.color,
    )
}

/// A refusal as the command's failure: its code, message and exit code.
fn refusal(entry: &Entry, error: &EntryError, earlier: bool) -> CliError {
    let when = if earlier {
        "was refused earlier"
    } else {
        "was refused"
    };
    CliError {
        error: error.code.clone(),
        message: format!(
            "{} ({}) {when}: {}; fix it in the logbook, or drop it with svc outbox drop {}",
            entry.id,
            what(entry),
            error.message,
            entry.id
        ),
        exit: error.exit_code(),
        answer: Some(Box::new(Answer {
            status: Some(error.status),
            details: error.details.clone(),
            ..Answer::default()
        })),
    }
}

fn push(ctx: &Ctx) -> Result<(), CliError> {
    let base = ctx.api_base()?;
    let key = ctx.key()?;
    let (report, earlier) = ctx.block_on(async {
        let (journal, client) = open(ctx, base, &key.key).await?;
        let report = journal::push(&journal, &client).await?;
        // A refusal left from an earlier push still needs the operator.
        let earlier = journal
            .entries()
            .await?
            .into_iter()
            .find(|e| e.state == EntryState::Refused);
        Ok((report, earlier))
    })?;
    match ctx.format {
        Format::Json => {
            let resolved: Vec<_> = report
                .resolved
                .iter()
                .map(|(local_id, folder)| json!({"localId": local_id, "folder": folder}))
                .collect();
            ctx.print_json(&json!({
                "sent": report.sent,
                "refused": report.refused,
                "resolved": resolved,
                "waiting": report.waiting,
            }))?;
        }
        _ if ctx.quiet => {
            let ids: String = report
                .sent
                .iter()
                .filter_map(|e| e.sent_id.as_ref())
                .map(|id| format!("{id}\n"))
                .collect();
            ctx.out(&ids)?;
        }
        _ => {
            let mut text = String::new();
            for e in &report.sent {
                text.push_str(&format!(
                    "sent     {}  {}  {}  {}\n",
                    e.id,
                    what(e),
                    when(e),
                    e.sent_id.as_deref().unwrap_or("-")
                ));
            }
            for e in &report.refused {
                if let Some(error) = &e.error {
                    text.push_str(&format!(
                        "refused  {}  {}  {}  {}: {}\n",
                        e.id,
                        what(e),
                        when(e),
                        error.code,
                        error.message
                    ));
                }
            }
            text.push_str(&format!(
                "sent {}, refused {}, still waiting {}\n",
                report.sent.len(),
                report.refused.len(),
                report.waiting
            ));
            ctx.out(&text)?;
        }
    }
    if let Some(first) = report.refused.first()
        && let Some(error) = &first.error
    {
        return Err(refusal(first, error, false));
    }
    if let Some(stopped) = report.stopped {
        let link_down = matches!(stopped, ClientError::Transport { .. });
        let mut e = CliError::from(stopped);
        if link_down {
            e.message = format!(
                "{}; {} entr{} wait in the outbox: run svc outbox push again once the link is back",
                e.message,
                report.waiting,
                if report.waiting == 1 { "y" } else { "ies" }
            );
        }
        return Err(e);
    }
    if let Some(old) = earlier
        && let Some(error) = &old.error
    {
        return Err(refusal(&old, error, true));
    }
    if report.waiting > 0 {
        ctx.info(&format!(
            "{} entr{} still wait: another svc (the logbook, or another push) is sending them",
            report.waiting,
            if report.waiting == 1 { "y" } else { "ies" }
        ));
    }
    Ok(())
}

fn drop_entry(ctx: &Ctx, args: DropArgs) -> Result<(), CliError> {
    if !args.yes && !std::io::stdin().is_terminal() {
        return Err(CliError::input(format!(
            "refusing to drop {} without confirmation: stdin is not a terminal; add --yes to drop it (it will never be sent)",
            args.id
        )));
    }
    let base = ctx.api_base()?;
    let key = ctx.key()?;
    let id = args.id;
    ctx.block_on(async {
        let (journal, _) = open(ctx, base, &key.key).await?;
        let gone = || {
            CliError::not_found(format!(
                "no waiting or refused entry {id} in the outbox (it may have been sent; svc outbox list shows what is left)"
            ))
        };
        let entry = journal
            .entry(&id)
            .await?
            .filter(|e| e.state != EntryState::Sent)
            .ok_or_else(gone)?;
        let question = format!(
            "Drop {id} ({}, {}, {})? It will never be sent. [y/N] ",
            what(&entry),
            when(&entry),
            entry.state.as_str()
        );
        if !args.yes && !super::input::confirm(&question)? {
            return Err(CliError::new(
                "cancelled",
                1,
                format!("{id} was not dropped"),
            ));
        }
        if journal.drop_entry(&id).await? {
            Ok(())
        } else {
            Err(gone())
        }
    })?;
    match ctx.format {
        Format::Json => ctx.print_json(&json!({"id": id, "dropped": true})),
        _ if ctx.quiet => ctx.say(&format!("{id}\n")),
        _ => ctx.say(&format!("dropped {id}\n")),
    }
}
