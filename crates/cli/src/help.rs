//! `svc help`, `svc man` and `svc --help-json`: all three walk the real clap tree, so they
//! cannot drift from what the parser accepts.

use std::any::TypeId;
use std::ffi::OsString;

use clap::{Arg, ArgAction, Args, Command};
use serde_json::{Value, json};

use super::{CliError, Ctx};
use svc_model::ErrorCode;

/// The API version this client speaks.
pub const API_VERSION: &str = "v1";

#[derive(Debug, Args)]
pub struct HelpArgs {
    /// Print the help of every command, one after another (no pager)
    #[arg(long)]
    all: bool,
    /// The command, e.g. contacts create
    #[arg(value_name = "COMMAND")]
    command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command, e.g. contacts create [default: svc itself]
    #[arg(value_name = "COMMAND")]
    command: Vec<String>,
}

/// Examples per command path, shown in its help and listed in the manifest. Each is parsed by
/// a test, so a renamed flag breaks the build of the docs, not a user's script.
pub const EXAMPLES: &[(&str, &[&str])] = &[
    (
        "",
        &[
            "svc demo",
            "svc auth login",
            "svc whoami --json",
            "svc contacts create --folder fld_6bd4d7ppqfy6hdvp --callsign K1ABC --frequency 14.074 --mode FT8",
        ],
    ),
    (
        "tui",
        &[
            "svc tui",
            "svc tui --no-color --api-base https://logbook.example.org",
            "svc tui --rig localhost:4532",
            "svc tui --rig localhost:4532 --wsjtx",
        ],
    ),
    (
        "demo",
        &[
            "svc demo",
            "svc demo --rig 192.168.1.20",
            "svc demo --wsjtx 127.0.0.1:2238",
        ],
    ),
    (
        "auth login",
        &[
            "svc auth login",
            "svc auth login --api-base https://logbook.example.org",
        ],
    ),
    (
        "auth set-key",
        &[
            "printf '%s\\n' \"$KEY\" | svc auth set-key",
            "svc auth set-key svc_live_ABCDEFGHIJKLMNOPQRSTUVWX",
        ],
    ),
    (
        "auth status",
        &["svc auth status", "svc auth status --json"],
    ),
    ("auth logout", &["svc auth logout"]),
    ("auth panic-revoke", &["svc auth panic-revoke"]),
    ("whoami", &["svc whoami", "svc whoami --json"]),
    (
        "folders list",
        &[
            "svc folders list",
            "svc folders list --type monthly --ndjson",
        ],
    ),
    (
        "folders show",
        &["svc folders show fld_6bd4d7ppqfy6hdvp --json"],
    ),
    (
        "folders create",
        &[
            "svc folders create --type monthly --month 2026-11 --program pota",
            "svc folders create --type monthly --month 2026-11",
            "svc folders create --type category --name \"Field day\"",
        ],
    ),
    (
        "contacts list",
        &[
            "svc contacts list --folder fld_6bd4d7ppqfy6hdvp",
            "svc contacts list --folder fld_6bd4d7ppqfy6hdvp --limit 200 --ndjson",
        ],
    ),
    (
        "contacts create",
        &[
            "svc contacts create --folder fld_6bd4d7ppqfy6hdvp --callsign K1ABC --frequency 14.074 --mode FT8",
            "svc contacts create --folder fld_6bd4d7ppqfy6hdvp --callsign N0CALL --frequency 7.185 --mode SSB --time-on 2026-11-22T14:05:00Z --rst-sent 59 --rst-received 57 --sig POTA --sig-info US-1234 --json",
            "svc contacts create --queue --folder fld_6bd4d7ppqfy6hdvp --callsign K1ABC --frequency 14.074 --mode FT8",
            "svc contacts create --folder fld_2cq6ww4xk7m3abcd --callsign DL1ABC --frequency 14.025 --mode CW --exchange 14",
        ],
    ),
    (
        "contacts edit",
        &[
            "svc contacts edit qso_kig4cpwianj2qdvz --callsign K1ABC",
            "svc contacts edit qso_kig4cpwianj2qdvz --frequency 7.074 --rst-sent 599 --clear notes --json",
        ],
    ),
    (
        "contacts delete",
        &[
            "svc contacts delete qso_kig4cpwianj2qdvz",
            "svc contacts delete qso_kig4cpwianj2qdvz --yes --json",
        ],
    ),
    (
        "activations list",
        &[
            "svc activations list",
            "svc activations list --in-progress --json",
        ],
    ),
    (
        "activations create",
        &[
            "svc activations create --reference US-1234 --callsign W1AW --location-name \"Test Park\"",
        ],
    ),
    (
        "activations add-park",
        &[
            "svc activations add-park fld_6bd4d7ppqfy6hdvp US-5678",
            "svc activations add-park fld_6bd4d7ppqfy6hdvp US-5678,US-9012 --json",
        ],
    ),
    (
        "activations end",
        &[
            "svc activations end fld_6bd4d7ppqfy6hdvp",
            "svc activations end fld_6bd4d7ppqfy6hdvp --end-time 2026-11-22T18:00:00Z",
        ],
    ),
    (
        "activations export",
        &[
            "svc activations export fld_6bd4d7ppqfy6hdvp",
            "svc activations export fld_6bd4d7ppqfy6hdvp --dir ~/pota --json",
        ],
    ),
    (
        "contest start",
        &[
            "svc contest start ARRL-FD --exchange \"2A CT\" --category power=LOW",
            "svc contest start CQ-WW-CW --exchange 5 --category SINGLE-OP,HIGH,ASSISTED --email w1aw@arrl.net",
            "svc contest start ARRL-FD --callsign W1AW --json",
        ],
    ),
    (
        "contest list",
        &["svc contest list", "svc contest list --ndjson"],
    ),
    (
        "contest show",
        &[
            "svc contest show fld_2cq5tl3x7dnp4vwe",
            "svc contest show fld_2cq5tl3x7dnp4vwe --json | jq .standing.score",
        ],
    ),
    (
        "contest end",
        &[
            "svc contest end fld_2cq5tl3x7dnp4vwe",
            "svc contest end fld_2cq5tl3x7dnp4vwe --end-time 2026-06-28T21:00:00Z",
        ],
    ),
    (
        "contest contests",
        &["svc contest contests", "svc contest contests --json"],
    ),
    (
        "export cabrillo",
        &[
            "svc export cabrillo fld_2cq5tl3x7dnp4vwe --out w1aw-fd.log",
            "svc export cabrillo fld_2cq5tl3x7dnp4vwe --category power=QRP --name \"Hiram Maxim\" --email w1aw@arrl.net > w1aw.log",
        ],
    ),
    (
        "export adif",
        &[
            "svc export adif --all --out log.adi",
            "svc export adif --folder fld_xvwtezryill4sy4z --since 2026-11-01 > november.adi",
        ],
    ),
    (
        "import adif",
        &[
            "svc import adif wsjtx_log.adi --auto --dry-run",
            "svc import adif wsjtx_log.adi --auto",
            "svc import adif n1mm.adi --folder fld_xvwtezryill4sy4z --json",
        ],
    ),
    (
        "lookup",
        &[
            "svc lookup W1AW",
            "svc lookup ok1vbr --json",
            "svc lookup W1AW --refresh",
        ],
    ),
    (
        "lookup connect",
        &[
            "svc lookup connect qrz --user W1AW",
            "svc lookup connect hamqth --user ok1vbr --password-stdin < hamqth-password.txt",
        ],
    ),
    ("lookup disconnect", &["svc lookup disconnect"]),
    (
        "confirmations status",
        &[
            "svc confirmations status",
            "svc confirmations status --json | jq '.services[] | select(.service == \"lotw\")'",
        ],
    ),
    (
        "awards",
        &[
            "svc awards dxcc",
            "svc awards was --confirmed-by lotw,card,qrz",
            "svc awards vucc --band SAT",
            "svc awards dxcc --mode cw --json | jq '.totals.mixed'",
        ],
    ),
    (
        "lotw connect",
        &["svc lotw connect --user W1AW --password-stdin < lotw-password.txt"],
    ),
    (
        "lotw sync",
        &[
            "svc lotw sync",
            "svc lotw sync --station-callsign W1AW/P --all",
        ],
    ),
    (
        "lotw upload",
        &[
            "svc lotw upload",
            "svc lotw upload --station-location \"Home QTH\" --json",
        ],
    ),
    ("lotw disconnect", &["svc lotw disconnect"]),
    (
        "mcp",
        &[
            "svc mcp",
            "svc mcp --allow-writes",
            "svc mcp --allow-writes --allow-deletes",
        ],
    ),
    (
        "station set",
        &[
            "svc station set --grid FN42 --state MA --county Middlesex --power 100",
            "svc station set W1XYZ/P --grid FN43 --rig KX2 --antenna \"EFHW 40m\" --power 5 --json",
        ],
    ),
    (
        "station list",
        &["svc station list", "svc station list --json"],
    ),
    ("station delete", &["svc station delete W1XYZ/P"]),
    (
        "logbooks list",
        &["svc logbooks list", "svc logbooks list --json"],
    ),
    (
        "logbooks connect",
        &[
            "svc logbooks connect qrz",
            "svc logbooks connect qrz --auto-push on --json < qrz-key.txt",
            "svc logbooks connect clublog --email op@example.org --callsign W1AW",
            "svc logbooks connect eqsl --user W1AW",
        ],
    ),
    (
        "logbooks set",
        &[
            "svc logbooks set lbk_kig4cpwianj2qdvz --auto-push off",
            "svc logbooks set lbk_kig4cpwianj2qdvz --api-key",
            "svc logbooks set lbk_p2x7dbaq3kr6mzte --password",
        ],
    ),
    (
        "logbooks import",
        &["svc logbooks import lbk_kig4cpwianj2qdvz"],
    ),
    (
        "logbooks upload",
        &["svc logbooks upload lbk_p2x7dbaq3kr6mzte"],
    ),
    (
        "logbooks review",
        &[
            "svc logbooks review",
            "svc logbooks review qso_kig4cpwianj2qdvz --send lbk_kig4cpwianj2qdvz",
            "svc logbooks review qso_kig4cpwianj2qdvz --skip",
        ],
    ),
    (
        "logbooks disconnect",
        &["svc logbooks disconnect lbk_kig4cpwianj2qdvz"],
    ),
    (
        "parks import",
        &[
            "svc parks import all_parks_ext.csv",
            "svc parks import all_parks_ext.csv --json",
        ],
    ),
    (
        "parks show",
        &["svc parks show US-0001", "svc parks show K-0001 --json"],
    ),
    (
        "listen wsjtx",
        &[
            "svc listen wsjtx",
            "svc listen wsjtx --forward 127.0.0.1:2238",
            "svc listen wsjtx --bind 127.0.0.1:2239 --month 2026-11",
            "svc listen wsjtx --folder fld_kig4cpwianj2qdvz --json",
        ],
    ),
    (
        "listen adif",
        &[
            "svc listen adif",
            "svc listen adif --bind 127.0.0.1:2334 --forward 127.0.0.1:2335",
            "svc listen adif --month 2026-11 --json",
        ],
    ),
    (
        "listen n1mm",
        &[
            "svc listen n1mm",
            "svc listen n1mm --folder fld_kig4cpwianj2qdvz",
            "svc listen n1mm --bind 0.0.0.0:12060 --json",
        ],
    ),
    (
        "spot",
        &[
            "svc spot --reference US-0001 --frequency 14.285 --mode SSB",
            "svc spot --reference US-0001 --frequency 7.032 --mode CW --comment \"QRV, 5 W\" --activator W1AW",
            "svc spot --reference US-0001,US-0002 --frequency 14285 --mode SSB",
        ],
    ),
    (
        "spots",
        &[
            "svc spots",
            "svc spots --band 20m --mode cw",
            "svc spots --mode FT8 --json",
        ],
    ),
    (
        "outbox list",
        &["svc outbox list", "svc outbox list --ndjson"],
    ),
    (
        "outbox push",
        &["svc outbox push", "svc outbox push --json"],
    ),
    (
        "outbox drop",
        &[
            "svc outbox drop ent_kig4cpwianj2qdvz",
            "svc outbox drop ent_kig4cpwianj2qdvz --yes --json",
        ],
    ),
    ("help", &["svc help contacts create", "svc help --all"]),
    (
        "completions",
        &["svc completions bash > ~/.local/share/bash-completion/completions/svc"],
    ),
    (
        "man",
        &[
            "svc man | man -l -",
            "svc man contacts create > svc-contacts-create.1",
        ],
    ),
];

/// What each exit code means (docs/API.md, "Errors"); the server codes behind each are
/// read from `ErrorCode::exit_code`, the one place that maps them.
const EXIT_CODES: [(u8, &str, &str); 9] = [
    (0, "success", "continue"),
    (
        1,
        "generic failure, or not found",
        "retry once, then surface",
    ),
    (
        2,
        "invalid flags or input, or folder/program rejection",
        "ask for corrected input; do not retry unchanged",
    ),
    (
        3,
        "missing, malformed, expired or revoked key",
        "ask for a new key; no retry",
    ),
    (
        4,
        "rate limited",
        "svc already waited for a short Retry-After and retried once; for lifetime_logbook_budget stop",
    ),
    (
        5,
        "needs an elevated key",
        "surface; suggest an elevated key",
    ),
    (6, "free-plan QSO cap reached", "surface; no retry"),
    (
        7,
        "network or transport failure (DNS, TLS, time-out)",
        "svc already made 3 attempts with backoff",
    ),
    (
        8,
        "server-side failure (5xx)",
        "svc already retried once after a short delay",
    ),
];

fn attach(cmd: Command, path: &[&str], text: String) -> Command {
    match path {
        [] => cmd.after_help(text),
        [first, rest @ ..] => {
            let rest = rest.to_vec();
            cmd.mut_subcommand(*first, move |sub| attach(sub, &rest, text))
        }
    }
}

/// `svc help …` covers every level, so the per-group `help` subcommands clap would add are
/// left out (they would also clutter the manifest).
fn without_help_subcommands(cmd: Command) -> Command {
    let names: Vec<String> = cmd
        .get_subcommands()
        .filter(|s| s.has_subcommands())
        .map(|s| s.get_name().to_owned())
        .collect();
    let mut cmd = cmd.disable_help_subcommand(true);
    for name in names {
        cmd = cmd.mut_subcommand(name, without_help_subcommands);
    }
    cmd
}

/// Adds the examples to each command's help, and the `--help-json` flag (read from argv before
/// parsing, so it works where required flags are missing).
pub fn decorate(cmd: Command) -> Command {
    let mut cmd = without_help_subcommands(cmd);
    for (path, examples) in EXAMPLES {
        let text = format!("Examples:\n  {}", examples.join("\n  "));
        let parts: Vec<&str> = path.split_whitespace().collect();
        cmd = attach(cmd, &parts, text);
    }
    cmd.arg(
        Arg::new("help_json")
            .long("help-json")
            .global(true)
            .action(ArgAction::SetTrue)
            .help("Print a JSON manifest of every command, flag and exit code, then exit"),
    )
}

/// Whether argv asks for the manifest (before any `--`).
pub fn wants_help_json(args: &[OsString]) -> bool {
    args.iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--help-json")
}

/// The subcommand path named by argv (`contacts create`), as far as it goes; `svc` when none.
pub fn command_path(root: &Command, args: &[OsString]) -> String {
    let mut cmd = root;
    let mut path = Vec::new();
    for arg in args.iter().skip(1) {
        let Some(word) = arg.to_str() else { break };
        if word.starts_with('-') {
            continue;
        }
        match cmd.find_subcommand(word) {
            Some(sub) => {
                path.push(sub.get_name().to_owned());
                cmd = sub;
            }
            None => break,
        }
    }
    if path.is_empty() {
        "svc".into()
    } else {
        path.join(" ")
    }
}

fn value_type(arg: &Arg) -> (&'static str, Vec<String>) {
    if matches!(arg.get_action(), ArgAction::SetTrue | ArgAction::SetFalse) {
        return ("boolean", vec![]);
    }
    if matches!(arg.get_action(), ArgAction::Count) {
        return ("count", vec![]);
    }
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| v.get_name().to_owned())
        .collect();
    if !values.is_empty() {
        return ("enum", values);
    }
    let id = arg.get_value_parser().type_id();
    let kind = if id == TypeId::of::<f64>() {
        "number"
    } else if [
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<i64>(),
        TypeId::of::<usize>(),
    ]
    .iter()
    .any(|t| id == *t)
    {
        "integer"
    } else {
        "string"
    };
    (kind, vec![])
}

fn describe_arg(arg: &Arg) -> Value {
    let (kind, values) = value_type(arg);
    let default: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    let name = match arg.get_long() {
        Some(long) => format!("--{long}"),
        None => arg
            .get_value_names()
            .and_then(|n| n.first())
            .map_or_else(|| arg.get_id().to_string(), |n| format!("<{n}>")),
    };
    let mut record = json!({
        "name": name,
        "type": kind,
        "required": arg.is_required_set(),
        "default": default.first(),
        "description": arg.get_help().map(|h| h.to_string()).unwrap_or_default(),
        "global": arg.is_global_set(),
    });
    if let Some(short) = arg.get_short() {
        record["short"] = json!(format!("-{short}"));
    }
    if let Some(env) = arg.get_env() {
        record["env"] = json!(env.to_string_lossy());
    }
    if !values.is_empty() {
        record["values"] = json!(values);
    }
    if arg.is_positional() && matches!(arg.get_action(), ArgAction::Append) {
        record["multiple"] = json!(true);
    }
    record
}

fn examples_of(path: &str) -> Vec<&'static str> {
    EXAMPLES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, e)| e.to_vec())
        .unwrap_or_default()
}

/// Subcommands in the order help shows them.
fn shown_subcommands(cmd: &Command) -> Vec<&Command> {
    let mut subs: Vec<&Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).collect();
    subs.sort_by_key(|s| s.get_display_order());
    subs
}

fn walk(cmd: &Command, path: &mut Vec<String>, out: &mut Vec<Value>) {
    for sub in shown_subcommands(cmd) {
        path.push(sub.get_name().to_owned());
        let name = path.join(" ");
        let visible = |a: &&Arg| {
            !a.is_hide_set()
                && !matches!(
                    a.get_action(),
                    ArgAction::Help | ArgAction::HelpLong | ArgAction::Version
                )
        };
        let flags: Vec<Value> = sub
            .get_arguments()
            .filter(visible)
            .filter(|a| !a.is_positional())
            .map(describe_arg)
            .collect();
        let args: Vec<Value> = sub
            .get_positionals()
            .filter(visible)
            .map(describe_arg)
            .collect();
        let subcommands: Vec<&str> = shown_subcommands(sub)
            .into_iter()
            .map(Command::get_name)
            .collect();
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        // The published client's manifest shape beside ours (docs/CLI.md, "The --help-json
        // manifest"): the whole command line as the name, a description, and options by flag.
        let options: Vec<Value> = flags.iter().map(published_option).collect();
        out.push(json!({
            "name": format!("svc {name}"),
            "path": name,
            "about": about,
            "description": about,
            "args": args,
            "flags": flags,
            "options": options,
            "subcommands": subcommands,
            "examples": examples_of(&name),
        }));
        walk(sub, path, out);
        path.pop();
    }
}

/// A flag as the published manifest lists it: `--type <type>`, its description, whether it is
/// required and its type; and its short form (`-y`) when it has one.
fn published_option(flag: &Value) -> Value {
    let name = flag["name"].as_str().unwrap_or_default();
    let flag_text = match flag["type"].as_str() {
        Some("boolean" | "count") | None => name.to_owned(),
        Some(_) => format!("{name} <{}>", name.trim_start_matches('-')),
    };
    // The published manifest knows two types: a switch, or a value given as text.
    let kind = if flag["type"] == "boolean" {
        "boolean"
    } else {
        "string"
    };
    let mut option = json!({
        "flag": flag_text,
        "description": flag["description"],
        "required": flag["required"],
        "type": kind,
    });
    // A key of its own, beside `flag`, so that programs that read `flag` as the long form
    // read it as before.
    if let Some(short) = flag.get("short") {
        option["short"] = short.clone();
    }
    option
}

/// The exit codes by name, as the published manifest maps them.
const EXIT_CODE_NAMES: [(&str, u8); 9] = [
    ("OK", 0),
    ("GENERIC", 1),
    ("INVALID_USAGE", 2),
    ("AUTH", 3),
    ("RATE_LIMITED", 4),
    ("TIER_INSUFFICIENT", 5),
    ("QSO_CAP_REACHED", 6),
    ("NETWORK", 7),
    ("SERVER", 8),
];

/// The `--help-json` manifest.
pub fn manifest(root: &Command) -> Value {
    let mut root = root.clone();
    root.build();
    let mut commands = Vec::new();
    walk(&root, &mut Vec::new(), &mut commands);
    let global_flags: Vec<Value> = root
        .get_arguments()
        .filter(|a| a.is_global_set())
        .map(describe_arg)
        .collect();
    let exit_codes: Vec<Value> = EXIT_CODES
        .iter()
        .map(|(exit, meaning, handling)| {
            let errors: Vec<&str> = ErrorCode::ALL
                .iter()
                .filter(|c| c.exit_code() == *exit)
                .map(|c| c.as_str())
                .collect();
            json!({"code": exit, "meaning": meaning, "errors": errors, "handling": handling})
        })
        .collect();
    let exit_code_names: serde_json::Map<String, Value> = EXIT_CODE_NAMES
        .iter()
        .map(|(name, code)| ((*name).to_owned(), json!(code)))
        .collect();
    // Where the commands would go now (SVC_API_BASE, the config file, the default); one that
    // does not resolve (commands would refuse it) is left as the default.
    let from_env = std::env::var("SVC_API_BASE").ok();
    let api_base = svc_client::resolve_api_base(from_env.as_deref())
        .map(|u| u.to_string())
        .unwrap_or_else(|_| svc_client::config::DEFAULT_API_BASE.to_owned());
    let api_base = api_base.trim_end_matches('/');
    json!({
        "name": root.get_name(),
        "about": root.get_about().map(|a| a.to_string()).unwrap_or_default(),
        "cli_version": env!("CARGO_PKG_VERSION"),
        "api_version": API_VERSION,
        "api_base": api_base,
        "global_flags": global_flags,
        "commands": commands,
        "examples": examples_of(""),
        "exit_codes": exit_code_names,
        "exit_code_details": exit_codes,
        "environment": {
            "SVC_API_KEY": "the API key; wins over the keychain and the config file",
            "SVC_API_BASE": "the service's address, like --api-base",
            "SVC_NO_KEYRING": "1: never use the OS keychain (the key and the callbook password live in the config file)",
            "SVC_QRZ_XML_URL": "QRZ's XML service for svc lookup and svc mcp, like --qrz-xml-url",
            "SVC_HAMQTH_URL": "HamQTH's XML service for svc lookup and svc mcp, like --hamqth-url",
            "NO_COLOR": "set: no colour",
            "XDG_CONFIG_HOME": "the config file is $XDG_CONFIG_HOME/svc/config.json (else ~/.config/svc/config.json)",
            "XDG_DATA_HOME": "the outbox (one journal file per service and account) is in $XDG_DATA_HOME/svc/journal/ (else ~/.local/share/svc/journal/), the park cache is $XDG_DATA_HOME/svc/parks.sqlite",
            "SVC_POTA_API_URL": "POTA's API address, like --pota-api-url (default https://api.pota.app)",
            "SVC_CTY": "the logbook's country file, like svc tui --cty",
            "SVC_SCP": "the logbook's super check partial list, like svc tui --scp",
        },
        "errors": {
            "text": "svc: <command>: <error>: <message> (one line on stderr)",
            "json": "{command, error, message, exitCode, status, details, requestId} on stderr with --json",
        },
    })
}

/// Finds a subcommand by its path of names.
fn find<'a>(root: &'a Command, path: &[String]) -> Result<&'a Command, CliError> {
    let mut cmd = root;
    for name in path {
        cmd = cmd.find_subcommand(name).ok_or_else(|| {
            CliError::input(format!(
                "no command {:?}; svc help --all lists every command",
                path.join(" ")
            ))
        })?;
    }
    Ok(cmd)
}

/// The environment variables the client reads, and what for.
const ENVIRONMENT: [(&str, &str); 11] = [
    (
        "SVC_API_KEY",
        "the API key; wins over the OS keychain and the config file",
    ),
    (
        "SVC_API_BASE",
        "the service's address when --api-base is not given; wins over the config file",
    ),
    ("SVC_NO_KEYRING", "1: do not use the OS keychain"),
    (
        "SVC_QRZ_XML_URL",
        "QRZ's XML service when --qrz-xml-url is not given (svc lookup, svc mcp)",
    ),
    (
        "SVC_HAMQTH_URL",
        "HamQTH's XML service when --hamqth-url is not given (svc lookup, svc mcp)",
    ),
    ("NO_COLOR", "set: never colour the output"),
    (
        "XDG_CONFIG_HOME",
        "where svc/config.json is (default ~/.config)",
    ),
    (
        "XDG_DATA_HOME",
        "where the outbox journals are, in svc/journal/, and the park cache, svc/parks.sqlite (default ~/.local/share)",
    ),
    (
        "SVC_POTA_API_URL",
        "POTA's API address when --pota-api-url is not given (default https://api.pota.app)",
    ),
    (
        "SVC_CTY",
        "the logbook's country file when --cty is not given (else cty.csv in $XDG_DATA_HOME/svc/, else the shipped copy)",
    ),
    (
        "SVC_SCP",
        "the logbook's super check partial list when --scp is not given (else MASTER.SCP in $XDG_DATA_HOME/svc/, else the shipped copy)",
    ),
];

/// The files the client reads and writes.
const FILES: [(&str, &str); 3] = [
    (
        "$XDG_CONFIG_HOME/svc/config.json",
        "apiBase, the connected callbook, and the key and callbook password where the keychain cannot hold them (mode 0600, refused if others may read or change it)",
    ),
    (
        "$XDG_DATA_HOME/svc/journal/",
        "the outbox: one SQLite journal per service and account, every contact on disk before it is sent; also the callbook's answers",
    ),
    (
        "$XDG_DATA_HOME/svc/parks.sqlite",
        "the park cache: POTA's answers and an imported park list, for every account; safe to delete",
    ),
];

/// Exit codes, environment and files, as plain text: once at the end of `svc help --all`.
fn reference_text() -> String {
    let mut text = String::from("Exit codes:\n");
    for (code, meaning, _) in EXIT_CODES {
        text.push_str(&format!("  {code}  {meaning}\n"));
    }
    text.push_str("\nEnvironment:\n");
    for (name, meaning) in ENVIRONMENT {
        text.push_str(&format!("  {name:<16} {meaning}\n"));
    }
    text.push_str("\nFiles:\n");
    for (path, meaning) in FILES {
        text.push_str(&format!("  {path}\n      {meaning}\n"));
    }
    text
}

/// Text for a roff body: backslashes escaped, and no line taken for a request.
fn roff_text(text: &str) -> String {
    text.replace('\\', "\\e")
        .lines()
        .map(|line| {
            if line.starts_with('.') || line.starts_with('\'') {
                format!("\\&{line}")
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The sections a man page has beyond clap's: its examples, exit status, environment, files.
fn man_sections(path: &str) -> String {
    let mut roff = String::new();
    let examples = examples_of(path);
    if !examples.is_empty() {
        roff.push_str(".SH EXAMPLES\n.nf\n");
        roff.push_str(&roff_text(&examples.join("\n")));
        roff.push_str("\n.fi\n");
    }
    roff.push_str(".SH \"EXIT STATUS\"\n");
    for (code, meaning, _) in EXIT_CODES {
        roff.push_str(&format!(".TP\n{code}\n{}\n", roff_text(meaning)));
    }
    roff.push_str(".SH ENVIRONMENT\n");
    for (name, meaning) in ENVIRONMENT {
        roff.push_str(&format!(".TP\n{name}\n{}\n", roff_text(meaning)));
    }
    roff.push_str(".SH FILES\n");
    for (file, meaning) in FILES {
        roff.push_str(&format!(
            ".TP\n{}\n{}\n",
            roff_text(file),
            roff_text(meaning)
        ));
    }
    roff
}

/// A command as `svc help --all` shows it below the top: the global flags, which the top
/// lists once, are left out.
fn without_globals(cmd: Command) -> Command {
    cmd.mut_args(|arg| {
        if arg.is_global_set() {
            arg.hide(true)
        } else {
            arg
        }
    })
}

fn render(cmd: &mut Command, color: bool) -> String {
    let help = cmd.render_long_help();
    if color {
        help.ansi().to_string()
    } else {
        help.to_string()
    }
}

fn built(root: &Command) -> Command {
    let mut root = root.clone();
    root.build();
    root
}

pub fn run_help(ctx: &Ctx, args: &HelpArgs, root: &Command) -> Result<(), CliError> {
    let root = built(root);
    if args.all {
        if !args.command.is_empty() {
            return Err(CliError::input(
                "svc help --all prints every command; leave out the command name",
            ));
        }
        let mut text = String::new();
        let mut stack = vec![(String::from("svc"), root)];
        while let Some((name, mut cmd)) = stack.pop() {
            text.push_str(&format!(
                "{}\n{name}\n{}\n\n",
                "=".repeat(72),
                "=".repeat(72)
            ));
            text.push_str(&render(&mut cmd, ctx.color));
            text.push('\n');
            let subs: Vec<Command> = shown_subcommands(&cmd).into_iter().cloned().collect();
            for sub in subs.into_iter().rev() {
                stack.push((format!("{name} {}", sub.get_name()), without_globals(sub)));
            }
        }
        text.push_str(&format!(
            "{}\nExit codes, environment and files\n{}\n\n",
            "=".repeat(72),
            "=".repeat(72)
        ));
        text.push_str(&reference_text());
        return ctx.out(&text);
    }
    let mut cmd = find(&root, &args.command)?.clone();
    ctx.out(&render(&mut cmd, ctx.color))
}

pub fn run_man(ctx: &Ctx, args: &ManArgs, root: &Command) -> Result<(), CliError> {
    let root = built(root);
    let cmd = find(&root, &args.command)?.clone();
    let title = if args.command.is_empty() {
        "svc".to_owned()
    } else {
        format!("svc-{}", args.command.join("-"))
    };
    let version = cmd
        .get_version()
        .or(root.get_version())
        .unwrap_or_default()
        .to_owned();
    // The examples go into EXAMPLES below, not into the EXTRA section clap_mangen would make.
    let cmd = cmd.after_help("").after_long_help("");
    let man = clap_mangen::Man::new(cmd)
        .title(title.to_uppercase())
        .source(format!("svc {version}"))
        .manual("svc manual");
    let mut roff = Vec::new();
    let rendered = (|| {
        man.render_title(&mut roff)?;
        man.render_name_section(&mut roff)?;
        man.render_synopsis_section(&mut roff)?;
        man.render_description_section(&mut roff)?;
        man.render_options_section(&mut roff)?;
        man.render_subcommands_section(&mut roff)
    })();
    rendered.map_err(|e| CliError::local(format!("cannot render the man page: {e}")))?;
    let mut page = String::from_utf8_lossy(&roff).into_owned();
    page.push_str(&man_sections(&args.command.join(" ")));
    ctx.out(&page)
}
