//! `svc logbooks list|connect|set|disconnect`: the account's external logbooks (QRZ), with an
//! elevated key. The provider's API key is read from a hidden prompt or stdin, never from the
//! command line, where shell history and process lists would keep it.

use std::io::{BufRead, IsTerminal};

use clap::{Args, Subcommand, ValueEnum};

use super::output::{self, Cell, Format};
use super::{CliError, Ctx, input};
use svc_client::logbooks::{ChangeLogbook, ConnectLogbook};
use svc_model::{Logbook, Page};

#[derive(Debug, Subcommand)]
pub enum LogbooksCommand {
    /// List the connected logbooks: callsign, state, automatic push and sync, counts
    List,
    /// Connect a QRZ logbook: its API key is read from a hidden prompt or stdin
    Connect(ConnectArgs),
    /// Change a logbook's settings, or give it a new API key (--api-key reads it from stdin)
    Set(SetArgs),
    /// Disconnect a logbook: nothing more goes to it; what is there stays there
    Disconnect(DisconnectArgs),
    /// Read a synced logbook now: contacts logged elsewhere come in (it is read every 5 minutes
    /// anyway)
    Import(DisconnectArgs),
    /// List the contacts the automatic sync could not route, or send one to a book or skip it
    Review(ReviewArgs),
}

impl LogbooksCommand {
    pub fn name(&self) -> &'static str {
        match self {
            LogbooksCommand::List => "list",
            LogbooksCommand::Connect(_) => "connect",
            LogbooksCommand::Set(_) => "set",
            LogbooksCommand::Disconnect(_) => "disconnect",
            LogbooksCommand::Import(_) => "import",
            LogbooksCommand::Review(_) => "review",
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ProviderArg {
    Qrz,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Switch {
    On,
    Off,
}

impl From<Switch> for bool {
    fn from(s: Switch) -> bool {
        matches!(s, Switch::On)
    }
}

#[derive(Debug, Args)]
pub struct ConnectArgs {
    /// The logbook's provider
    #[arg(value_enum, default_value = "qrz")]
    provider: ProviderArg,
    /// Push each new contact to the book [default: on]
    #[arg(long, value_enum, value_name = "on|off")]
    auto_push: Option<Switch>,
    /// Route new contacts to the book of their station callsign [default: off]
    #[arg(long, value_enum, value_name = "on|off")]
    auto_sync: Option<Switch>,
}

#[derive(Debug, Args)]
pub struct SetArgs {
    /// The logbook's id (lbk_…), from svc logbooks list
    #[arg(value_parser = input::logbook_id)]
    id: String,
    #[arg(long, value_enum, value_name = "on|off")]
    auto_push: Option<Switch>,
    #[arg(long, value_enum, value_name = "on|off")]
    auto_sync: Option<Switch>,
    /// Give the book a new API key (read from a hidden prompt or stdin); ends a pause
    #[arg(long)]
    api_key: bool,
}

#[derive(Debug, Args)]
pub struct DisconnectArgs {
    /// The logbook's id (lbk_…)
    #[arg(value_parser = input::logbook_id)]
    id: String,
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// A contact waiting for review (qso_…); without it, the list
    #[arg(value_parser = input::contact_id, requires = "decision")]
    qso_id: Option<String>,
    /// Send the contact to this logbook (lbk_…)
    #[arg(long, value_parser = input::logbook_id, value_name = "LBK_ID", group = "decision")]
    send: Option<String>,
    /// Leave the contact here only
    #[arg(long, group = "decision", requires = "qso_id")]
    skip: bool,
}

pub fn run(ctx: &Ctx, command: LogbooksCommand) -> Result<(), CliError> {
    match command {
        LogbooksCommand::List => list(ctx),
        LogbooksCommand::Connect(args) => connect(ctx, args),
        LogbooksCommand::Set(args) => set(ctx, args),
        LogbooksCommand::Disconnect(args) => disconnect(ctx, args),
        LogbooksCommand::Import(args) => import(ctx, args),
        LogbooksCommand::Review(args) => review(ctx, args),
    }
}

/// The provider's key: a hidden prompt on a terminal, else one line of stdin.
fn read_provider_key() -> Result<String, CliError> {
    let text = if std::io::stdin().is_terminal() {
        rpassword::prompt_password("QRZ logbook API key (Logbook → Settings at qrz.com): ")
            .map_err(|e| CliError::local(format!("cannot read the key from the terminal: {e}")))?
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| CliError::local(format!("cannot read the key from stdin: {e}")))?;
        line
    };
    let key = text.trim().to_owned();
    if key.is_empty() {
        return Err(CliError::input(
            "no key was given: paste the logbook's API key, or pipe it on stdin",
        ));
    }
    Ok(key)
}

fn list(ctx: &Ctx) -> Result<(), CliError> {
    let client = ctx.client()?;
    let items = ctx.block_on(async { Ok(client.logbooks().await?) })?;
    if items.is_empty() {
        ctx.info("no logbook is connected; svc logbooks connect qrz connects one");
    }
    ctx.print_list(
        &Page {
            items,
            cursor: None,
        },
        |items| table(ctx, items),
    )
}

fn on_off(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

fn table(ctx: &Ctx, items: &[Logbook]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let rows = items
        .iter()
        .map(|l| {
            let state = if l.state == "working" {
                Cell::green("working")
            } else {
                Cell::from(format!(
                    "paused: {}",
                    l.paused_reason.as_deref().unwrap_or("-")
                ))
            };
            vec![
                Cell::from(l.id.as_str()),
                Cell::from(l.provider.as_str()),
                Cell::from(l.callsign.as_str()),
                Cell::from(format!("…{}", l.key_last4)),
                state,
                Cell::from(on_off(l.auto_push)),
                Cell::from(on_off(l.auto_sync)),
                Cell::from(format!("{}/{}/{}", l.waiting, l.pushed, l.failed)),
                Cell::from(output::or_dash(&l.last_error)),
            ]
        })
        .collect();
    output::table(
        &[
            "ID",
            "PROVIDER",
            "CALLSIGN",
            "KEY",
            "STATE",
            "PUSH",
            "SYNC",
            "WAITING/PUSHED/FAILED",
            "LAST ERROR",
        ],
        rows,
        ctx.color,
    )
}

fn show(ctx: &Ctx, verb: &str, l: &Logbook) -> Result<(), CliError> {
    match ctx.format {
        Format::Json => ctx.print_json(l),
        _ if ctx.quiet => ctx.say(&format!("{}\n", l.id)),
        _ => ctx.say(&format!(
            "{verb} the {} logbook of {} ({}, key …{}): automatic push {}, automatic sync {}\n",
            l.provider.to_ascii_uppercase(),
            l.callsign,
            l.id,
            l.key_last4,
            on_off(l.auto_push),
            on_off(l.auto_sync)
        )),
    }
}

fn connect(ctx: &Ctx, args: ConnectArgs) -> Result<(), CliError> {
    let client = ctx.client()?;
    let ProviderArg::Qrz = args.provider;
    let request = ConnectLogbook {
        provider: "qrz".into(),
        api_key: read_provider_key()?,
        auto_push: args.auto_push.map(bool::from),
        auto_sync: args.auto_sync.map(bool::from),
    };
    let logbook = ctx.block_on(async { Ok(client.connect_logbook(&request).await?) })?;
    show(ctx, "connected", &logbook)
}

fn set(ctx: &Ctx, args: SetArgs) -> Result<(), CliError> {
    if !args.api_key && args.auto_push.is_none() && args.auto_sync.is_none() {
        return Err(CliError::input(
            "nothing to change: give --auto-push on|off, --auto-sync on|off or --api-key",
        ));
    }
    let client = ctx.client()?;
    let change = ChangeLogbook {
        api_key: if args.api_key {
            Some(read_provider_key()?)
        } else {
            None
        },
        auto_push: args.auto_push.map(bool::from),
        auto_sync: args.auto_sync.map(bool::from),
    };
    let logbook = ctx.block_on(async { Ok(client.change_logbook(&args.id, &change).await?) })?;
    show(ctx, "changed", &logbook)
}

fn disconnect(ctx: &Ctx, args: DisconnectArgs) -> Result<(), CliError> {
    let client = ctx.client()?;
    let answer = ctx.block_on(async { Ok(client.disconnect_logbook(&args.id).await?) })?;
    match ctx.format {
        Format::Json => ctx.print_json(&answer),
        _ => ctx.say(&format!(
            "disconnected logbook {}; its contacts stay in the book\n",
            args.id
        )),
    }
}

fn import(ctx: &Ctx, args: DisconnectArgs) -> Result<(), CliError> {
    let client = ctx.client()?;
    let answer = ctx.block_on(async { Ok(client.import_logbook(&args.id).await?) })?;
    match ctx.format {
        Format::Json => ctx.print_json(&answer),
        _ => ctx.say(&format!(
            "reading logbook {} now; contacts logged elsewhere come in within moments\n",
            args.id
        )),
    }
}

fn review(ctx: &Ctx, args: ReviewArgs) -> Result<(), CliError> {
    let client = ctx.client()?;
    let Some(qso_id) = args.qso_id else {
        let items = ctx.block_on(async { Ok(client.reviews().await?) })?;
        if items.is_empty() {
            ctx.info("nothing waits for review");
        }
        return ctx.print_list(
            &Page {
                items,
                cursor: None,
            },
            |items| {
                if items.is_empty() {
                    return String::new();
                }
                let rows = items
                    .iter()
                    .map(|r| {
                        vec![
                            Cell::from(r.id.as_str()),
                            Cell::from(output::time(r.contact.time_on)),
                            Cell::from(r.contact.callsign.as_str()),
                            Cell::from(output::or_dash(&r.contact.station_callsign)),
                            Cell::from(match r.reason.as_str() {
                                "no_book" => "no synced book has its station callsign",
                                _ => "several synced books have its station callsign",
                            }),
                        ]
                    })
                    .collect();
                output::table(
                    &["CONTACT", "TIME", "CALL", "STATION", "WHY"],
                    rows,
                    ctx.color,
                )
            },
        );
    };
    let send = args.send.as_deref();
    let answer = ctx.block_on(async { Ok(client.settle_review(&qso_id, send).await?) })?;
    match (ctx.format, send) {
        // The list's --ndjson: one object, one line.
        (Format::Json | Format::Ndjson, _) => ctx.print_json(&answer),
        (_, Some(book)) => ctx.say(&format!("{qso_id} goes to logbook {book}\n")),
        (_, None) => ctx.say(&format!("{qso_id} stays here only\n")),
    }
}
