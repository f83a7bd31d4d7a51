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
    #[command(subcommand)]
    command: Command,
}

// Parsed once per run: boxing the larger variant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
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
            Command::Client(command) => cli::run(cli.global, command, &root),
            Command::Server(args) => crate::server::cmd::run(args),
        },
        Err(e) => cli::usage_error(&e, &root, &args),
    }
}
