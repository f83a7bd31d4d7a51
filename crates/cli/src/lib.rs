//! The `svc` command-line client: every command of docs/CLI.md's table, on top of `svc_client`.
//! Results go to stdout, diagnostics to stderr, and each failure maps to one exit code.

pub mod activations;
pub mod auth;
pub mod awards;
pub mod completions;
pub mod confirmations;
pub mod contacts;
pub mod contest;
pub mod export;
pub mod fields;
pub mod folders;
pub mod help;
pub mod import;
pub mod input;
pub mod listen;
pub mod logbooks;
pub mod lookup;
pub mod lotw;
pub mod outbox;
pub mod output;
pub mod parks;
pub mod spots;
pub mod station;
pub mod whoami;

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use reqwest::Url;
use serde_json::{Value, json};

use svc_client::keystore::{self, FoundKey, KeyError};
use svc_client::{self as client, Attempt, Client, ClientError};
use svc_model::text::printable_lines;
use svc_model::{ApiKey, ErrorCode};

pub use output::Format;

/// Flags every client command takes, before or after the subcommand.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Print the result as one JSON object (lists as {items, cursor}); errors as a JSON envelope on stderr
    #[arg(long, global = true, conflicts_with = "ndjson")]
    pub json: bool,
    /// Print a list as one JSON object per line (lists only)
    #[arg(long, global = true)]
    pub ndjson: bool,
    /// Show each HTTP attempt on stderr: method, URL, status, time, retry reason (never the key)
    #[arg(long, global = true, conflicts_with = "quiet")]
    pub verbose: bool,
    /// Print less: no warnings or notes on stderr, and only the id after a change
    #[arg(long, global = true)]
    pub quiet: bool,
    /// Address of the service [default: apiBase of the config file, else http://127.0.0.1:8787]
    #[arg(long, global = true, env = "SVC_API_BASE", value_name = "URL")]
    pub api_base: Option<String>,
    /// Never colour the output (it is off anyway when stdout is not a terminal, or with NO_COLOR)
    #[arg(long, global = true)]
    pub no_color: bool,
}

// Parsed once per run, so the size of its largest variant (contacts create, with every
// declared field's flag) costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum ClientCommand {
    /// Store, check and remove the API key this client uses
    Auth {
        #[command(subcommand)]
        command: auth::AuthCommand,
    },
    /// Show the key's account: callsign, plan, tier and QSO count
    Whoami,
    /// List, show and create folders
    Folders {
        #[command(subcommand)]
        command: folders::FoldersCommand,
    },
    /// List, log and delete contacts (QSOs)
    Contacts {
        #[command(subcommand)]
        command: contacts::ContactsCommand,
    },
    /// List, start and end activations (portable operations, POTA)
    Activations {
        #[command(subcommand)]
        command: activations::ActivationsCommand,
    },
    /// Start, show and end contest logs: exchanges, dupes, score, Cabrillo
    Contest {
        #[command(subcommand)]
        command: contest::ContestCommand,
    },
    /// See and send the outbox: contacts logged with no link, waiting or refused
    Outbox {
        #[command(subcommand)]
        command: outbox::OutboxCommand,
    },
    /// Write contacts out as ADIF for other loggers and POTA, and contest logs as Cabrillo
    Export {
        #[command(subcommand)]
        command: export::ExportCommand,
    },
    /// Read contacts in from another logger's ADIF file
    Import {
        #[command(subcommand)]
        command: import::ImportCommand,
    },
    /// Connect external logbooks (QRZ, Club Log, eQSL) that new contacts are pushed to
    Logbooks {
        #[command(subcommand)]
        command: logbooks::LogbooksCommand,
    },
    /// Your own station's grid, state, county, rig, antenna and power, which fill new contacts
    Station {
        #[command(subcommand)]
        command: station::StationCommand,
    },
    /// Look up who a station is in a callbook (QRZ, HamQTH): name, QTH, grid, country
    Lookup(lookup::LookupArgs),
    /// How far the log is with each QSL service: sent, confirmed, not sent
    Confirmations {
        #[command(subcommand)]
        command: confirmations::ConfirmationsCommand,
    },
    /// Where the log stands with an award: DXCC, WAS, WAZ, VUCC, POTA hunter or activator
    Awards(awards::AwardsArgs),
    /// ARRL's Logbook of The World: download confirmations into the log
    Lotw {
        #[command(subcommand)]
        command: lotw::LotwCommand,
    },
    /// Look up POTA parks by reference, and keep POTA's park list for use with no link
    Parks {
        #[command(subcommand)]
        command: parks::ParksCommand,
    },
    /// Listen for the QSOs another program logs and log them here (WSJT-X, JTDX, MSHV)
    Listen {
        #[command(subcommand)]
        command: listen::ListenCommand,
    },
    /// Spot an activation on POTA: the activator's park, frequency and mode, for hunters
    Spot(spots::SpotArgs),
    /// List the POTA activators on the air now, newest spot first
    Spots(spots::SpotsArgs),
}

/// The commands that describe svc itself rather than use the service; they read the whole
/// command tree (`svc mcp` and `svc server` included), which only the binary has.
#[derive(Debug, Subcommand)]
pub enum ManualCommand {
    /// Print the help of a command, or of every command with --all
    Help(help::HelpArgs),
    /// Print a shell completion script
    Completions(completions::CompletionsArgs),
    /// Print the manual page (roff) of svc or of one command
    Man(help::ManArgs),
}

impl ClientCommand {
    fn name(&self) -> String {
        match self {
            ClientCommand::Auth { command } => format!("auth {}", command.name()),
            ClientCommand::Whoami => "whoami".into(),
            ClientCommand::Folders { command } => format!("folders {}", command.name()),
            ClientCommand::Contacts { command } => format!("contacts {}", command.name()),
            ClientCommand::Activations { command } => format!("activations {}", command.name()),
            ClientCommand::Contest { command } => format!("contest {}", command.name()),
            ClientCommand::Outbox { command } => format!("outbox {}", command.name()),
            ClientCommand::Export { command } => format!("export {}", command.name()),
            ClientCommand::Import { command } => format!("import {}", command.name()),
            ClientCommand::Logbooks { command } => format!("logbooks {}", command.name()),
            ClientCommand::Station { command } => format!("station {}", command.name()),
            ClientCommand::Lookup(args) => match &args.command {
                Some(command) => format!("lookup {}", command.name()),
                None => "lookup".into(),
            },
            ClientCommand::Confirmations { command } => {
                format!("confirmations {}", command.name())
            }
            ClientCommand::Awards(_) => "awards".into(),
            ClientCommand::Lotw { command } => format!("lotw {}", command.name()),
            ClientCommand::Parks { command } => format!("parks {}", command.name()),
            ClientCommand::Listen { command } => format!("listen {}", command.name()),
            ClientCommand::Spot(_) => "spot".into(),
            ClientCommand::Spots(_) => "spots".into(),
        }
    }
}

/// A failure of a command: what the stderr line or envelope says, and the exit code.
#[derive(Debug, Clone, PartialEq)]
pub struct CliError {
    pub error: String,
    pub message: String,
    pub exit: u8,
    /// What the service's answer added, when there was one.
    pub answer: Option<Box<Answer>>,
}

/// The HTTP side of a failure: kept apart so a `CliError` stays small.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Answer {
    pub status: Option<u16>,
    pub details: Option<Value>,
    pub request_id: Option<String>,
    pub retry_after: Option<u64>,
}

impl CliError {
    pub fn new(error: impl Into<String>, exit: u8, message: impl Into<String>) -> CliError {
        CliError {
            error: error.into(),
            message: message.into(),
            exit,
            answer: None,
        }
    }

    /// Invalid flags or input, found before anything was sent (exit 2).
    pub fn input(message: impl Into<String>) -> CliError {
        let code = ErrorCode::ValidationError;
        CliError::new(code.as_str(), code.exit_code(), message)
    }

    /// No usable key (exit 3).
    pub fn no_key(message: impl Into<String>) -> CliError {
        let code = ErrorCode::Unauthorized;
        CliError::new(code.as_str(), code.exit_code(), message)
    }

    pub fn not_found(message: impl Into<String>) -> CliError {
        let code = ErrorCode::NotFound;
        CliError::new(code.as_str(), code.exit_code(), message)
    }

    /// A failure on this machine (a file, the terminal): exit 1.
    pub fn local(message: impl Into<String>) -> CliError {
        CliError::new("local_error", 1, message)
    }

    /// stdout was closed by its reader (`svc … | head -1`): not a failure.
    fn broken_pipe() -> CliError {
        CliError::new("broken_pipe", 0, "")
    }
}

impl From<ClientError> for CliError {
    fn from(e: ClientError) -> Self {
        let exit = e.exit_code();
        match e {
            ClientError::Transport { message, attempts } => CliError::new(
                "transport_error",
                exit,
                format!(
                    "no answer from the service after {attempts} attempt{} ({message}); check the network and --api-base",
                    if attempts == 1 { "" } else { "s" }
                ),
            ),
            ClientError::Server(s) => CliError {
                answer: Some(Box::new(Answer {
                    status: Some(s.status),
                    details: s.details,
                    request_id: s.request_id,
                    retry_after: s.retry_after,
                })),
                error: s.error,
                message: s.message,
                exit,
            },
            ClientError::Unexpected { status, message } => CliError {
                answer: (status != 0).then(|| {
                    Box::new(Answer {
                        status: Some(status),
                        ..Answer::default()
                    })
                }),
                ..CliError::new("unexpected_response", exit, message)
            },
        }
    }
}

impl From<KeyError> for CliError {
    fn from(e: KeyError) -> Self {
        match &e {
            KeyError::Malformed { .. } => CliError::no_key(e.to_string()),
            KeyError::Config(svc_client::config::ConfigError::TooOpen { .. }) => {
                CliError::no_key(e.to_string())
            }
            KeyError::Config(svc_client::config::ConfigError::Unreadable { .. }) => {
                CliError::input(e.to_string())
            }
            KeyError::Config(_) | KeyError::NoStore(_) => CliError::local(e.to_string()),
        }
    }
}

/// What every command gets: the global flags, resolved once.
/// The commands that print a list, which --ndjson prints one object a line.
const LISTS: [&str; 9] = [
    "folders list",
    "contacts list",
    "activations list",
    "contest list",
    "outbox list",
    "logbooks list",
    "logbooks review",
    "station list",
    "spots",
];

pub struct Ctx {
    pub command: String,
    pub format: Format,
    pub verbose: bool,
    pub quiet: bool,
    pub color: bool,
    api_base: Option<String>,
}

fn env_set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty())
}

impl Ctx {
    pub fn new(global: &GlobalArgs, command: String) -> Ctx {
        let format = if global.json {
            Format::Json
        } else if global.ndjson && LISTS.contains(&command.as_str()) {
            Format::Ndjson
        } else if global.ndjson {
            // One object is one line of JSON already (docs/CLI.md, "Output").
            Format::Json
        } else {
            Format::Text
        };
        Ctx {
            command,
            format,
            verbose: global.verbose,
            quiet: global.quiet,
            color: !global.no_color && !env_set("NO_COLOR") && std::io::stdout().is_terminal(),
            api_base: global.api_base.clone().filter(|s| !s.trim().is_empty()),
        }
    }

    /// The API base: --api-base, else SVC_API_BASE (both read by clap), else the config
    /// file's apiBase, else the local default.
    pub fn api_base(&self) -> Result<Url, CliError> {
        client::resolve_api_base(self.api_base.as_deref()).map_err(CliError::input)
    }

    /// The key in the order of docs/CLI.md, "Keys"; exit 3 when there is none.
    pub fn key(&self) -> Result<FoundKey, CliError> {
        self.key_if_any()?
            .ok_or_else(|| CliError::no_key(keystore::NO_KEY))
    }

    /// The key in the order of docs/CLI.md, "Keys"; `None` when none is configured, for a
    /// command that can do without one.
    pub fn key_if_any(&self) -> Result<Option<FoundKey>, CliError> {
        let mut notes = Vec::new();
        let found = keystore::resolve(&mut notes);
        for note in &notes {
            self.note(note);
        }
        let found = found?;
        if let Some(found) = &found {
            self.note(&format!(
                "using key {}… from {}",
                found.key.prefix(),
                found.source.as_str()
            ));
        }
        Ok(found)
    }

    /// A client with the resolved key.
    pub fn client(&self) -> Result<Client, CliError> {
        let base = self.api_base()?;
        let key = self.key()?;
        self.client_for(base, &key.key)
    }

    pub fn client_for(&self, base: Url, key: &ApiKey) -> Result<Client, CliError> {
        let client = Client::new(base, key)?;
        Ok(if self.verbose {
            client.with_observer(Box::new(log_attempt))
        } else {
            client
        })
    }

    /// Runs the network part of a command on a single-threaded runtime, made only for
    /// commands that talk to the service.
    pub fn block_on<T>(
        &self,
        work: impl Future<Output = Result<T, CliError>>,
    ) -> Result<T, CliError> {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| CliError::local(format!("cannot start the async runtime: {e}")))?
            .block_on(work)
    }

    /// As [`Ctx::block_on`], with two worker threads beside it, for a command whose spawned
    /// tasks must go on while it works on this thread (an import reads its file while the
    /// service stores the batch before; `svc listen` logs a QSO while its sender sends).
    pub fn block_on_with_workers<T>(
        &self,
        work: impl Future<Output = Result<T, CliError>>,
    ) -> Result<T, CliError> {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| CliError::local(format!("cannot start the async runtime: {e}")))?
            .block_on(work)
    }

    /// Writes the result to stdout in one piece; a closed pipe ends the command quietly.
    pub fn out(&self, text: &str) -> Result<(), CliError> {
        let mut stdout = std::io::stdout().lock();
        match stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
        {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(CliError::broken_pipe()),
            Err(e) => Err(CliError::local(format!("cannot write to stdout: {e}"))),
        }
    }

    /// Text for people that may hold the service's words (names, ids, messages): written with
    /// their control characters shown as `�` (docs/CLI.md, "Output").
    pub fn say(&self, text: &str) -> Result<(), CliError> {
        self.out(&printable_lines(text))
    }

    /// A warning on stderr, unless --quiet.
    pub fn warn(&self, message: &str) {
        if !self.quiet {
            eprintln_safe(&format!("svc: warning: {}", printable_lines(message)));
        }
    }

    /// A note on stderr for people, unless --quiet or a JSON format.
    pub fn info(&self, message: &str) {
        if !self.quiet && self.format == Format::Text {
            eprintln_safe(&format!("svc: {}", printable_lines(message)));
        }
    }

    /// A detail shown with --verbose only.
    pub fn note(&self, message: &str) {
        if self.verbose {
            eprintln_safe(&format!("svc: {}", printable_lines(message)));
        }
    }
}

/// Writes a prompt to stderr without a newline.
pub fn eprint_safe(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{text}");
    let _ = err.flush();
}

/// Writes one line to stderr, ignoring a closed stderr (nothing better can be done).
pub fn eprintln_safe(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}

/// `--verbose`'s line for one attempt of a request, on stderr.
pub(crate) fn log_attempt(a: &Attempt) {
    let outcome = match (a.status, &a.error) {
        (Some(status), None) => status.to_string(),
        (Some(status), Some(error)) => format!("{status} {error}"),
        (None, Some(error)) => format!("no answer: {error}"),
        (None, None) => "no answer".into(),
    };
    let mut line = format!(
        "svc: attempt {}: {} {} -> {outcome} ({} ms)",
        a.number,
        a.method,
        a.url,
        a.duration.as_millis()
    );
    if let Some((wait, reason)) = &a.retry {
        line.push_str(&format!("; retrying in {} ms: {reason}", wait.as_millis()));
    }
    eprintln_safe(&line);
}

/// Runs a parsed client command and turns its outcome into the exit code. `root` is the whole
/// command tree, which help, man pages and completions describe.
pub fn run(global: &GlobalArgs, command: ClientCommand) -> ExitCode {
    run_with(global, command.name(), |ctx| match command {
        ClientCommand::Auth { command } => auth::run(ctx, command),
        ClientCommand::Whoami => whoami::run(ctx),
        ClientCommand::Folders { command } => folders::run(ctx, command),
        ClientCommand::Contacts { command } => contacts::run(ctx, command),
        ClientCommand::Activations { command } => activations::run(ctx, command),
        ClientCommand::Contest { command } => contest::run(ctx, command),
        ClientCommand::Outbox { command } => outbox::run(ctx, command),
        ClientCommand::Export { command } => export::run(ctx, command),
        ClientCommand::Import { command } => import::run(ctx, command),
        ClientCommand::Logbooks { command } => logbooks::run(ctx, command),
        ClientCommand::Station { command } => station::run(ctx, command),
        ClientCommand::Lookup(args) => lookup::run(ctx, args),
        ClientCommand::Confirmations { command } => confirmations::run(ctx, command),
        ClientCommand::Awards(args) => awards::run(ctx, args),
        ClientCommand::Lotw { command } => lotw::run(ctx, command),
        ClientCommand::Parks { command } => parks::run(ctx, command),
        ClientCommand::Listen { command } => listen::run(ctx, command),
        ClientCommand::Spot(args) => spots::spot(ctx, args),
        ClientCommand::Spots(args) => spots::list(ctx, args),
    })
}

/// Runs help, completions or a man page of `root`, the whole command tree.
pub fn run_manual(global: &GlobalArgs, command: ManualCommand, root: &clap::Command) -> ExitCode {
    let name = match command {
        ManualCommand::Help(_) => "help",
        ManualCommand::Completions(_) => "completions",
        ManualCommand::Man(_) => "man",
    };
    run_with(global, name.into(), |ctx| match command {
        ManualCommand::Help(args) => help::run_help(ctx, &args, root),
        ManualCommand::Completions(args) => completions::run(ctx, &args, root),
        ManualCommand::Man(args) => help::run_man(ctx, &args, root),
    })
}

/// Runs the command named `name` with the context the global flags give, and turns its
/// outcome into the exit code: a failure is reported on stderr, as a line or the JSON envelope.
pub fn run_with(
    global: &GlobalArgs,
    name: String,
    command: impl FnOnce(&Ctx) -> Result<(), CliError>,
) -> ExitCode {
    let ctx = Ctx::new(global, name);
    match command(&ctx) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report(&ctx.command, ctx.format == Format::Json, &e),
    }
}

/// Prints a failure on stderr (one line, or the JSON envelope) and gives its exit code.
pub fn report(command: &str, json: bool, e: &CliError) -> ExitCode {
    if e.exit == 0 {
        return ExitCode::SUCCESS;
    }
    if json {
        let answer = e.answer.as_deref().cloned().unwrap_or_default();
        let mut envelope = json!({
            "command": command,
            "error": e.error,
            "message": e.message,
            "exitCode": e.exit,
            "status": answer.status,
            "details": answer.details,
            "requestId": answer.request_id,
        });
        if let Some(seconds) = answer.retry_after {
            envelope["retryAfter"] = json!(seconds);
        }
        eprintln_safe(&svc_model::text::json_for_terminal(&envelope.to_string()));
    } else {
        let prefix = if command == "svc" {
            "svc".to_owned()
        } else {
            format!("svc: {command}")
        };
        eprintln_safe(&format!("{prefix}: {}: {}", e.error, e.message));
    }
    ExitCode::from(e.exit)
}

/// Prints the `--help-json` manifest.
pub fn print_manifest(root: &clap::Command) -> ExitCode {
    let text = format!("{}\n", help::manifest(root));
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln_safe(&format!("svc: cannot write to stdout: {e}"));
            ExitCode::FAILURE
        }
        _ => ExitCode::SUCCESS,
    }
}

/// Reports a command line clap refused: help and version go to stdout with exit 0, anything
/// else is a usage error (exit 2) in the same shapes as every other failure.
pub fn usage_error(e: &clap::Error, root: &clap::Command, args: &[OsString]) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let text = e.render();
            let rendered = if std::io::stdout().is_terminal() && !env_set("NO_COLOR") {
                text.ansi().to_string()
            } else {
                text.to_string()
            };
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(rendered.as_bytes());
            let _ = stdout.flush();
            ExitCode::SUCCESS
        }
        _ => {
            let command = help::command_path(root, args);
            let json = args
                .iter()
                .take_while(|a| *a != "--")
                .any(|a| a == "--json");
            if !json && e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                // `svc folders` alone: show what it takes.
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "{}", e.render());
            }
            let message = clap_message(e, &command);
            report(&command, json, &CliError::input(message))
        }
    }
}

/// clap's error as one line: the text before the usage block, without the `error:` label,
/// and printable: clap quotes the value refused, which may be what a terminal would obey.
fn clap_message(e: &clap::Error, command: &str) -> String {
    let text = e.render().to_string();
    let head = text.split("\nUsage:").next().unwrap_or(&text);
    let mut parts: Vec<String> = head
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .map(str::to_owned)
        .collect();
    if let Some(first) = parts.first_mut()
        && let Some(rest) = first.strip_prefix("error: ")
    {
        *first = rest.to_owned();
    }
    let help = if command == "svc" {
        "svc help".to_owned()
    } else {
        format!("svc help {command}")
    };
    svc_model::text::printable(&format!("{} (see {help})", parts.join(" ")))
}
