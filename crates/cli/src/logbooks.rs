//! `svc logbooks list|connect|set|disconnect|import|upload|review`: the account's external
//! logbooks (QRZ, Club Log, eQSL), with an elevated key. QRZ's API key and Club Log's
//! application password or eQSL's password are read from a hidden prompt or stdin, never from the command line, where shell
//! history and process lists would keep them.

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
    /// Connect a QRZ logbook (its API key is read from a hidden prompt or stdin), a Club Log
    /// log (--email and --callsign; its application password is read the same way) or an eQSL
    /// account (--user; its password is read the same way)
    Connect(ConnectArgs),
    /// Change a logbook's settings, or give it a new API key or Club Log or eQSL password
    /// (--api-key, --password read it from a hidden prompt or stdin)
    Set(SetArgs),
    /// Disconnect a logbook: nothing more goes to it; what is there stays there
    Disconnect(DisconnectArgs),
    /// Read a synced QRZ logbook now (contacts logged elsewhere come in), or an eQSL book's
    /// Inbox (its cards confirm contacts); both are read every 5 minutes anyway
    Import(DisconnectArgs),
    /// Send a Club Log logbook, in one file, the contacts of its callsign stored before it was
    /// connected
    Upload(DisconnectArgs),
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
            LogbooksCommand::Upload(_) => "upload",
            LogbooksCommand::Review(_) => "review",
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ProviderArg {
    Qrz,
    Clublog,
    Eqsl,
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
    /// Club Log: the email address of the Club Log account
    #[arg(long, value_name = "EMAIL")]
    email: Option<String>,
    /// Club Log: the callsign of the log
    #[arg(long, value_name = "CALL")]
    callsign: Option<String>,
    /// eQSL: the eQSL.cc user name (the account's callsign)
    #[arg(long, value_name = "USER")]
    user: Option<String>,
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
    /// Give a QRZ book a new API key (read from a hidden prompt or stdin); ends a pause
    #[arg(long, conflicts_with = "password")]
    api_key: bool,
    /// Give a Club Log book its application password, or an eQSL book its password, again or
    /// a new one (read from a hidden prompt or stdin); ends a pause
    #[arg(long)]
    password: bool,
    /// With --password: the Club Log account's new email address
    #[arg(long, value_name = "EMAIL", requires = "password")]
    email: Option<String>,
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
        LogbooksCommand::Upload(args) => upload(ctx, args),
        LogbooksCommand::Review(args) => review(ctx, args),
    }
}

/// QRZ's key: a hidden prompt on a terminal, else one line of stdin.
fn read_provider_key() -> Result<String, CliError> {
    read_secret(
        "QRZ logbook API key (Logbook → Settings at qrz.com): ",
        "the key",
        "paste the logbook's API key",
    )
}

/// eQSL's password, as QRZ's key is read.
fn read_eqsl_password() -> Result<String, CliError> {
    read_secret(
        "eQSL.cc password: ",
        "the password",
        "type the password of the eQSL.cc account",
    )
}

/// A Club Log or eQSL book's password, for `set`, which does not know the book's provider.
fn read_book_password() -> Result<String, CliError> {
    read_secret(
        "Password (Club Log: an application password; eQSL: the account's password): ",
        "the password",
        "type the book's password",
    )
}

/// Club Log's application password, as QRZ's key is read.
fn read_clublog_password() -> Result<String, CliError> {
    read_secret(
        "Club Log application password (Settings → App Passwords at clublog.org): ",
        "the password",
        "type an application password made at Club Log",
    )
}

/// A secret: a hidden prompt on a terminal, else the first line of stdin.
fn read_secret(prompt: &str, what: &str, how: &str) -> Result<String, CliError> {
    let text = if std::io::stdin().is_terminal() {
        rpassword::prompt_password(prompt)
            .map_err(|e| CliError::local(format!("cannot read {what} from the terminal: {e}")))?
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| CliError::local(format!("cannot read {what} from stdin: {e}")))?;
        line
    };
    let secret = text.trim().to_owned();
    if secret.is_empty() {
        return Err(CliError::input(format!(
            "no {} was given: {how}, or pipe it on stdin",
            what.trim_start_matches("the ")
        )));
    }
    Ok(secret)
}

/// What names the book's key: the last 4 characters of QRZ's key, Club Log's account email
/// (nothing of a password is shown).
fn key_text(l: &Logbook) -> String {
    match &l.email {
        Some(email) => email.clone(),
        // An eQSL book's user name is its callsign, shown beside; nothing of its password is.
        None if l.provider == "eqsl" => format!("user {}", l.callsign),
        None => format!("…{}", l.key_last4),
    }
}

fn list(ctx: &Ctx) -> Result<(), CliError> {
    let client = ctx.client()?;
    let items = ctx.block_on(async { Ok(client.logbooks().await?) })?;
    if items.is_empty() {
        ctx.info(
            "no logbook is connected; svc logbooks connect qrz (or clublog --email E --callsign C, or eqsl --user U) connects one",
        );
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
                Cell::from(key_text(l)),
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
            "{verb} the {} logbook of {} ({}, {}): automatic push {}, automatic sync {}\n",
            provider_name(&l.provider),
            l.callsign,
            l.id,
            match &l.email {
                Some(email) => format!("account {email}"),
                None if l.provider == "eqsl" => format!("eQSL user {}", l.callsign),
                None => format!("key …{}", l.key_last4),
            },
            on_off(l.auto_push),
            on_off(l.auto_sync)
        )),
    }
}

pub(crate) fn provider_name(provider: &str) -> String {
    match provider {
        "clublog" => "Club Log".into(),
        "eqsl" => "eQSL".into(),
        other => other.to_ascii_uppercase(),
    }
}

fn connect(ctx: &Ctx, args: ConnectArgs) -> Result<(), CliError> {
    let request = match args.provider {
        ProviderArg::Qrz => {
            if args.email.is_some() || args.callsign.is_some() || args.user.is_some() {
                return Err(CliError::input(
                    "--email and --callsign are Club Log's, --user eQSL's: a QRZ book is opened by its API key alone",
                ));
            }
            ConnectLogbook {
                provider: "qrz".into(),
                api_key: Some(read_provider_key()?),
                ..ConnectLogbook::default()
            }
        }
        ProviderArg::Clublog => {
            if args.user.is_some() {
                return Err(CliError::input(
                    "--user is eQSL's: a Club Log log is named by --email and --callsign",
                ));
            }
            let (Some(email), Some(callsign)) = (args.email, args.callsign) else {
                return Err(CliError::input(
                    "Club Log needs --email (the Club Log account's) and --callsign (the log's)",
                ));
            };
            ConnectLogbook {
                provider: "clublog".into(),
                email: Some(email),
                callsign: Some(callsign),
                password: Some(read_clublog_password()?),
                ..ConnectLogbook::default()
            }
        }
        ProviderArg::Eqsl => {
            if args.email.is_some() || args.callsign.is_some() {
                return Err(CliError::input(
                    "--email and --callsign are Club Log's: an eQSL account is named by --user, its callsign",
                ));
            }
            let Some(user) = args.user else {
                return Err(CliError::input(
                    "eQSL needs --user: the eQSL.cc user name, which is the account's callsign",
                ));
            };
            ConnectLogbook {
                provider: "eqsl".into(),
                user: Some(user),
                password: Some(read_eqsl_password()?),
                ..ConnectLogbook::default()
            }
        }
    };
    let request = ConnectLogbook {
        auto_push: args.auto_push.map(bool::from),
        auto_sync: args.auto_sync.map(bool::from),
        ..request
    };
    let client = ctx.client()?;
    let logbook = ctx.block_on(async { Ok(client.connect_logbook(&request).await?) })?;
    show(ctx, "connected", &logbook)
}

fn set(ctx: &Ctx, args: SetArgs) -> Result<(), CliError> {
    if !args.api_key && !args.password && args.auto_push.is_none() && args.auto_sync.is_none() {
        return Err(CliError::input(
            "nothing to change: give --auto-push on|off, --auto-sync on|off, --api-key (QRZ) or --password (Club Log, eQSL)",
        ));
    }
    let client = ctx.client()?;
    let change = ChangeLogbook {
        api_key: if args.api_key {
            Some(read_provider_key()?)
        } else {
            None
        },
        password: if args.password {
            Some(read_book_password()?)
        } else {
            None
        },
        email: args.email,
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
            "reading logbook {} now; what it holds (contacts logged elsewhere, or an eQSL Inbox's confirmations) comes in within moments\n",
            args.id
        )),
    }
}

fn upload(ctx: &Ctx, args: DisconnectArgs) -> Result<(), CliError> {
    let client = ctx.client()?;
    let answer = ctx.block_on(async { Ok(client.upload_logbook(&args.id).await?) })?;
    match ctx.format {
        Format::Json => ctx.print_json(&answer),
        _ => {
            let sent = answer["uploaded"].as_u64().unwrap_or(0);
            if sent == 0 {
                ctx.say(&format!(
                    "nothing to upload: every contact of logbook {}'s callsign is there or on its way\n",
                    args.id
                ))
            } else {
                ctx.say(&format!(
                    "uploaded {sent} contacts to logbook {}; Club Log reads the file within minutes\n",
                    args.id
                ))
            }
        }
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
