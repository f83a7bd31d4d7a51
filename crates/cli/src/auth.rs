//! `svc auth login|set-key|status|logout|panic-revoke`: the key this client uses. The plaintext
//! key is read from a hidden prompt or stdin and written only to the keychain or the 0600 file.

use std::io::{BufRead, IsTerminal};

use clap::{Args, Subcommand};
use serde_json::json;

use super::output::{self, Format};
use super::{CliError, Ctx, eprintln_safe, whoami};
use svc_client::keystore::{self, Stored};
use svc_model::ApiKey;
use svc_model::key::KeyPrefix;

#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Ask for a key, check it with the service, and store it
    Login,
    /// Store a key without checking it with the service (from the argument or stdin)
    SetKey(SetKeyArgs),
    /// Show which key is used, where it comes from, and its account
    Status,
    /// Remove the stored key from the keychain and the config file (it is not revoked)
    Logout,
    /// Show where to revoke a leaked key (this client cannot revoke keys)
    PanicRevoke,
}

impl AuthCommand {
    pub fn name(&self) -> &'static str {
        match self {
            AuthCommand::Login => "login",
            AuthCommand::SetKey(_) => "set-key",
            AuthCommand::Status => "status",
            AuthCommand::Logout => "logout",
            AuthCommand::PanicRevoke => "panic-revoke",
        }
    }
}

#[derive(Debug, Args)]
pub struct SetKeyArgs {
    /// The key (svc_live_…); leave it out to read it from stdin, which keeps it out of the
    /// shell history and the process list
    key: Option<String>,
}

pub fn run(ctx: &Ctx, command: AuthCommand) -> Result<(), CliError> {
    // The storage commands print text whatever the format (docs/CLI.md, "Output"); --json still shapes
    // their errors.
    match command {
        AuthCommand::Status => status(ctx),
        AuthCommand::Login => login(ctx),
        AuthCommand::SetKey(args) => set_key(ctx, args),
        AuthCommand::Logout => logout(ctx),
        AuthCommand::PanicRevoke => panic_revoke(ctx),
    }
}

/// Reads a key: a hidden prompt on a terminal, else one line of stdin.
fn read_key(prompt: &str) -> Result<String, CliError> {
    let text = if std::io::stdin().is_terminal() {
        rpassword::prompt_password(prompt)
            .map_err(|e| CliError::local(format!("cannot read the key from the terminal: {e}")))?
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| CliError::local(format!("cannot read the key from stdin: {e}")))?;
        line
    };
    Ok(text.trim().to_owned())
}

/// Checks the key's shape without echoing it: an error message must not carry a secret.
fn parse_key(text: &str) -> Result<ApiKey, CliError> {
    if text.is_empty() {
        return Err(CliError::no_key(
            "no key was given; paste the key generated in the web app (svc_live_…)",
        ));
    }
    ApiKey::parse(text).ok_or_else(|| {
        let hint = match KeyPrefix::ALL
            .iter()
            .find(|p| text.starts_with(p.as_str()))
        {
            Some(p) => format!(
                "it starts with {} but the rest is not 24 characters A-Z and 2-7",
                p.as_str()
            ),
            None => "it does not start with svc_live_ or htx_live_".to_owned(),
        };
        CliError::no_key(format!(
            "that is not an svc API key ({hint}); copy the whole key from the web app, or generate a new one"
        ))
    })
}

fn report_stored(ctx: &Ctx, stored: &Stored) -> String {
    match stored {
        Stored::Keychain => "the keychain".into(),
        Stored::Config { path, why } => {
            // Always shown, --quiet or not: the key now sits in a file.
            eprintln_safe(&format!(
                "svc: {}: warning: {why}; the key was stored in {} (mode 0600) instead",
                ctx.command,
                path.display()
            ));
            path.display().to_string()
        }
    }
}

fn login(ctx: &Ctx) -> Result<(), CliError> {
    let base = ctx.api_base()?;
    let base_text = base.to_string();
    let key = parse_key(&read_key("API key (input hidden): ")?)?;
    let client = ctx.client_for(base, &key)?;
    let me = ctx.block_on(async { Ok(client.whoami().await?) })?;
    let stored = keystore::store(&key)?;
    let place = report_stored(ctx, &stored);
    // The key was checked against the address --api-base gave: the next commands go there
    // too. One from SVC_API_BASE stays the environment's to give.
    let from_env = std::env::var("SVC_API_BASE").ok();
    let saved = match &ctx.api_base {
        Some(flag) if from_env.as_deref().map(str::trim) != Some(flag.trim()) => {
            let path = keystore::store_api_base(base_text.trim_end_matches('/'))?;
            format!("; the API base {base_text} is saved in {}", path.display())
        }
        _ => String::new(),
    };
    ctx.say(&format!(
        "logged in as {} ({} key {}…), stored in {place}{saved}\n",
        me.callsign,
        me.tier.as_str(),
        key.prefix()
    ))?;
    whoami::warn_near_cap(ctx, &me);
    Ok(())
}

fn set_key(ctx: &Ctx, args: SetKeyArgs) -> Result<(), CliError> {
    let text = match args.key {
        Some(k) => k.trim().to_owned(),
        None => read_key("API key (input hidden): ")?,
    };
    let key = parse_key(&text)?;
    let stored = keystore::store(&key)?;
    let place = report_stored(ctx, &stored);
    ctx.say(&format!(
        "stored key {}… in {place} (not checked with the service: svc auth status does that)\n",
        key.prefix()
    ))
}

fn status(ctx: &Ctx) -> Result<(), CliError> {
    let base = ctx.api_base()?;
    let Some(found) = resolve_optional(ctx)? else {
        if ctx.format == Format::Json {
            ctx.print_json(&json!({"source": "none", "keyPrefix": null, "whoami": null}))?;
        }
        return Err(CliError::no_key(
            "not logged in: run svc auth login (or set SVC_API_KEY)",
        ));
    };
    let client = ctx.client_for(base, &found.key)?;
    let me = ctx.block_on(async { Ok(client.whoami().await?) })?;
    whoami::warn_near_cap(ctx, &me);
    let prefix = found.key.prefix();
    match ctx.format {
        Format::Json => ctx.print_json(&json!({
            "source": found.source.as_str(),
            "keyPrefix": prefix,
            "whoami": me.published(),
        })),
        _ => {
            let mut pairs = vec![
                ("Source", found.source.as_str().to_owned()),
                ("Key", format!("{prefix}…")),
            ];
            pairs.extend(whoami::lines(&me));
            ctx.out(&output::fields(&pairs))
        }
    }
}

fn resolve_optional(ctx: &Ctx) -> Result<Option<keystore::FoundKey>, CliError> {
    let mut notes = Vec::new();
    let found = keystore::resolve(&mut notes);
    for note in &notes {
        ctx.note(note);
    }
    Ok(found?)
}

fn logout(ctx: &Ctx) -> Result<(), CliError> {
    let removed = keystore::remove()?;
    let mut places = Vec::new();
    if removed.keychain {
        places.push("the keychain".to_owned());
    }
    if let Some(path) = &removed.config {
        places.push(path.display().to_string());
    }
    if let Some(e) = &removed.keychain_error {
        ctx.warn(&format!("the keychain could not be checked: {e}"));
    }
    let line = if places.is_empty() {
        "no stored API key to remove".to_owned()
    } else {
        format!(
            "removed the API key from {}; it still works on the server until it is revoked (svc auth panic-revoke tells where)",
            places.join(" and ")
        )
    };
    ctx.say(&format!("{line}\n"))?;
    if std::env::var_os(keystore::ENV_KEY).is_some_and(|v| !v.is_empty()) {
        ctx.warn("SVC_API_KEY is set in this environment and still provides a key; unset it too");
    }
    Ok(())
}

fn panic_revoke(ctx: &Ctx) -> Result<(), CliError> {
    let mut url = ctx.api_base()?;
    if let Ok(mut path) = url.path_segments_mut() {
        path.pop_if_empty().push("keys");
    }
    ctx.say(&format!(
        "svc cannot revoke keys: revoking needs a signed-in session of the web app.\n\
         1. Revoke the key now at {url} (sign in, find it by its prefix, revoke).\n\
         2. Run svc auth logout here to remove the stored copy.\n\
         3. Generate a new key there and run svc auth login.\n"
    ))
}
