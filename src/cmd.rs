//! The top of the command tree: the client commands and `svc server …`, parsed here and handed
//! to their modules.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::cli::{self, ClientCommand, GlobalArgs};
use crate::server::cmd::ServerArgs;

#[derive(Debug, Parser)]
#[command(
    name = "svc",
    version,
    about = "A logbook for amateur-radio contacts",
    propagate_version = true,
    disable_help_subcommand = true
)]
pub struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    /// None: the logbook, when on a terminal.
    #[command(subcommand)]
    command: Option<Command>,
}

// Parsed once per run: boxing the larger variant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Open the logbook, a terminal UI (also what svc alone does on a terminal)
    Tui,
    /// Try svc: a local service on a demo database, a demo account, and the logbook on it
    Demo,
    #[command(flatten)]
    Client(ClientCommand),
    /// Run the logging service and manage its accounts and keys
    Server(ServerArgs),
}

/// The whole command tree, with examples and `--help-json`: what help, the manifest,
/// completions and man pages are made from.
pub fn command() -> clap::Command {
    cli::help::decorate(Cli::command())
}

pub fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let mut root = command();
    if cli::help::wants_help_json(&args) {
        return cli::print_manifest(&root);
    }
    let parsed = root
        .try_get_matches_from_mut(&args)
        .and_then(|m| Cli::from_arg_matches(&m));
    match parsed {
        Ok(cli) => match cli.command {
            None => open_logbook(&cli.global, "svc"),
            Some(Command::Tui) => open_logbook(&cli.global, "tui"),
            Some(Command::Demo) => crate::demo::run(&cli.global),
            Some(Command::Client(command)) => cli::run(cli.global, command, &root),
            Some(Command::Server(args)) => crate::server::cmd::run(args),
        },
        Err(e) => cli::usage_error(&e, &root, &args),
    }
}

/// `svc` and `svc tui`: the logbook with the key and API base the commands use.
fn open_logbook(global: &GlobalArgs, command: &str) -> ExitCode {
    if !crate::tui::on_terminal() {
        return crate::tui::not_a_terminal(command);
    }
    let ctx = cli::Ctx::new(global, "tui".into());
    // Not ctx.client(): its --verbose lines on stderr would scribble over the screen.
    let link = ctx.api_base().and_then(|base| {
        let found = ctx.key()?;
        let journal = crate::tui::JournalSource::Account {
            base: base.clone(),
            key: found.key.clone(),
        };
        Ok(crate::tui::Link::new(base, &found.key, journal)?)
    });
    match link {
        Ok(link) => crate::tui::run_blocking(
            link,
            crate::tui::Options {
                color: ctx.color,
                label: None,
            },
        ),
        Err(e) => cli::report("tui", false, &e),
    }
}
