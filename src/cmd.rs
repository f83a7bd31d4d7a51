//! The top of the command tree: the binary parses here and hands each part to its module.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::server::cmd::ServerArgs;

#[derive(Debug, Parser)]
#[command(
    name = "svc",
    version,
    about = "A logbook for amateur-radio contacts",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the logging service and manage its accounts and keys
    Server(ServerArgs),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Server(args) => crate::server::cmd::run(args),
    }
}
