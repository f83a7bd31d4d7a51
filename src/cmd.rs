//! The top of the command tree: the client commands and `svc server …`, parsed here and handed
//! to their modules.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::cli::{self, CliError, ClientCommand, GlobalArgs, ManualCommand};
use crate::logbook::{LogbookArgs, open_logbook};
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
    /// For `svc` alone, which is the logbook; `svc tui` and `svc demo` take them too.
    #[command(flatten)]
    logbook: LogbookArgs,
    /// None: the logbook, when on a terminal.
    #[command(subcommand)]
    command: Option<Command>,
}

// Parsed once per run: boxing the larger variant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Open the logbook, a terminal UI (also what svc alone does on a terminal)
    Tui(LogbookArgs),
    /// Try svc: a local service on a demo database, a demo account, and the logbook on it
    Demo(LogbookArgs),
    #[command(flatten)]
    Client(ClientCommand),
    /// Serve this logbook's tools to an AI agent over MCP on stdin and stdout
    Mcp(crate::mcp::McpArgs),
    #[command(flatten)]
    Manual(ManualCommand),
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
            None => open_logbook(&cli.global, "svc", cli.logbook),
            Some(Command::Tui(args)) => open_logbook(&cli.global, "tui", args.or(cli.logbook)),
            Some(Command::Demo(args)) => crate::demo::run(&cli.global, args.or(cli.logbook)),
            // Before another command the logbook's flags would be ignored without a word.
            Some(
                Command::Client(_) | Command::Mcp(_) | Command::Manual(_) | Command::Server(_),
            ) if cli.logbook.rig.is_some() => cli::report(
                "svc",
                cli.global.json,
                &CliError::input(
                    "--rig is for the logbook: svc --rig HOST:PORT, svc tui --rig HOST:PORT or svc demo --rig HOST:PORT",
                ),
            ),
            Some(
                Command::Client(_) | Command::Mcp(_) | Command::Manual(_) | Command::Server(_),
            ) if cli.logbook.wsjtx.is_some() => cli::report(
                "svc",
                cli.global.json,
                &CliError::input(
                    "--wsjtx is for the logbook: svc --wsjtx, svc tui --wsjtx or svc demo --wsjtx (svc listen wsjtx logs from WSJT-X with no logbook open)",
                ),
            ),
            Some(
                Command::Client(_) | Command::Mcp(_) | Command::Manual(_) | Command::Server(_),
            ) if cli.logbook.no_highlight || !cli.logbook.broadcast_adif.is_empty() => cli::report(
                "svc",
                cli.global.json,
                &CliError::input(
                    "--no-highlight and --broadcast-adif before a command are the logbook's: svc --wsjtx --no-highlight, svc tui --broadcast-adif ADDR (svc listen takes its own after listen wsjtx, listen n1mm or listen adif)",
                ),
            ),
            Some(Command::Client(command)) => cli::run(&cli.global, command),
            Some(Command::Mcp(args)) => crate::mcp::run(&cli.global, &args),
            Some(Command::Manual(command)) => cli::run_manual(&cli.global, command, &root),
            Some(Command::Server(args)) => crate::server::cmd::run(args),
        },
        Err(e) => cli::usage_error(&e, &root, &args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::help::{EXAMPLES, manifest};

    /// Splits an example like a shell would, for the simple quoting the examples use.
    fn words(example: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut word = String::new();
        let mut quoted = false;
        for c in example.chars() {
            match c {
                '"' => quoted = !quoted,
                ' ' if !quoted => {
                    if !word.is_empty() {
                        out.push(std::mem::take(&mut word));
                    }
                }
                _ => word.push(c),
            }
        }
        if !word.is_empty() {
            out.push(word);
        }
        out
    }

    #[test]
    fn every_example_parses_and_every_leaf_command_has_one() {
        let root = command();
        for (path, examples) in EXAMPLES {
            assert!(!examples.is_empty(), "{path}");
            for example in *examples {
                // Only the svc part of a pipeline, without redirections either way.
                let svc_part = example
                    .split('|')
                    .find(|p| p.trim_start().starts_with("svc"))
                    .unwrap_or_else(|| panic!("no svc in {example}"));
                let svc_part = svc_part.split(['>', '<']).next().unwrap();
                let argv = words(svc_part);
                let parsed = root.clone().try_get_matches_from(&argv);
                assert!(parsed.is_ok(), "{example}: {}", parsed.unwrap_err());
                if !path.is_empty() {
                    assert!(
                        argv.join(" ").starts_with(&format!("svc {path}")),
                        "{example}"
                    );
                }
            }
        }
        let manifest = manifest(&root);
        for command in manifest["commands"].as_array().unwrap() {
            let name = command["path"].as_str().unwrap();
            let leaf = command["subcommands"].as_array().unwrap().is_empty();
            if leaf && !name.starts_with("server") {
                assert!(
                    !command["examples"].as_array().unwrap().is_empty(),
                    "{name} has no example"
                );
            }
        }
    }

    #[test]
    fn the_command_tree_is_consistent() {
        command().debug_assert();
    }
}
