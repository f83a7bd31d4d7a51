//! `svc lookup CALL`, `svc lookup connect qrz|hamqth`, `svc lookup disconnect`: who a station
//! is, from the connected callbook (QRZ's XML service or HamQTH), through the cache in the
//! account's journal. The callbook password is read from stdin or a hidden prompt, never
//! from the command line, and written only to the keychain or the 0600 config file.

use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;

use super::input::read_password;
use super::output::Format;
use super::{CliError, Ctx, eprintln_safe};
use svc_client::journal::Journal;
use svc_client::keystore;
use svc_client::lookup::{
    self, Callbook, DEFAULT_HAMQTH_URL, DEFAULT_QRZ_XML_URL, Lookup, LookupError, Place, Service,
    Urls,
};

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, arg_required_else_help = true)]
pub struct LookupArgs {
    #[command(subcommand)]
    pub command: Option<LookupCommand>,
    /// The callsign to look up, e.g. W1AW
    #[arg(value_name = "CALLSIGN")]
    callsign: Option<String>,
    /// Ask the callbook even when the cache holds an answer younger than 30 days
    #[arg(long)]
    refresh: bool,
    #[command(flatten)]
    urls: CallbookUrls,
}

#[derive(Debug, Subcommand)]
pub enum LookupCommand {
    /// Log in to a callbook to check the user name and password, then store them
    Connect(ConnectArgs),
    /// Forget the callbook's user name and password
    Disconnect,
}

impl LookupCommand {
    pub fn name(&self) -> &'static str {
        match self {
            LookupCommand::Connect(_) => "connect",
            LookupCommand::Disconnect => "disconnect",
        }
    }
}

/// Where the callbooks answer; a flag of its own for each, so a test (or a mirror) can stand
/// in for either.
#[derive(Debug, Clone, Args)]
pub struct CallbookUrls {
    /// Address of QRZ's XML service
    #[arg(long, env = "SVC_QRZ_XML_URL", value_name = "URL", default_value = DEFAULT_QRZ_XML_URL)]
    qrz_xml_url: String,
    /// Address of HamQTH's XML service
    #[arg(long, env = "SVC_HAMQTH_URL", value_name = "URL", default_value = DEFAULT_HAMQTH_URL)]
    hamqth_url: String,
}

impl CallbookUrls {
    pub fn urls(&self) -> Result<Urls, CliError> {
        let parse = |flag: &str, text: &str| {
            lookup::parse_url(text).map_err(|e| CliError::input(format!("{flag}: {e}")))
        };
        Ok(Urls {
            qrz: parse("--qrz-xml-url (or SVC_QRZ_XML_URL)", &self.qrz_xml_url)?,
            hamqth: parse("--hamqth-url (or SVC_HAMQTH_URL)", &self.hamqth_url)?,
        })
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ServiceArg {
    Qrz,
    Hamqth,
}

impl From<ServiceArg> for Service {
    fn from(s: ServiceArg) -> Service {
        match s {
            ServiceArg::Qrz => Service::Qrz,
            ServiceArg::Hamqth => Service::Hamqth,
        }
    }
}

#[derive(Debug, Args)]
pub struct ConnectArgs {
    /// The callbook: qrz (an XML subscription gives whole records) or hamqth (free)
    #[arg(value_enum)]
    service: ServiceArg,
    /// The callbook user name (QRZ: your callsign)
    #[arg(long, value_name = "NAME")]
    user: String,
    /// Read the password from stdin (without it, a hidden prompt on a terminal)
    #[arg(long)]
    password_stdin: bool,
    #[command(flatten)]
    urls: CallbookUrls,
}

impl From<LookupError> for CliError {
    fn from(e: LookupError) -> Self {
        use svc_model::ErrorCode;
        let (code, exit) = match &e {
            LookupError::NotConnected(_) | LookupError::Refused(_) => {
                let code = ErrorCode::Unauthorized;
                (code.as_str(), code.exit_code())
            }
            LookupError::Invalid(_) => {
                let code = ErrorCode::ValidationError;
                (code.as_str(), code.exit_code())
            }
            LookupError::NotFound(_) => {
                let code = ErrorCode::NotFound;
                (code.as_str(), code.exit_code())
            }
            // As any answer that says no for a reason of its own: a generic failure.
            LookupError::Service(_) => ("callbook_error", 1),
            // The exit code of no answer from the service.
            LookupError::Unavailable(_) => ("transport_error", 7),
            LookupError::Store(_) => ("local_error", 1),
        };
        CliError::new(code, exit, e.to_string())
    }
}

pub fn run(ctx: &Ctx, args: LookupArgs) -> Result<(), CliError> {
    match args.command {
        Some(LookupCommand::Connect(connect_args)) => connect(ctx, connect_args),
        Some(LookupCommand::Disconnect) => disconnect(ctx),
        None => {
            // clap shows the help when neither is given (arg_required_else_help).
            let call = args.callsign.unwrap_or_default();
            look_up(ctx, &call, args.refresh, &args.urls)
        }
    }
}

/// The journal of the key in use, if it has one here: the cache. Looking for it needs no
/// network, and a lookup goes on without it.
async fn cache(ctx: &Ctx) -> Option<Journal> {
    let base = ctx.api_base().ok()?;
    let mut notes = Vec::new();
    let found = keystore::resolve(&mut notes).ok().flatten();
    let journal = match found {
        Some(found) => Journal::find(&base, &found.key).await.ok().flatten(),
        None => None,
    };
    if journal.is_none() {
        ctx.note(
            "no journal of this key here: the answer is not cached (svc outbox list makes it once)",
        );
    }
    journal
}

/// An age for people: `just now`, `5 minutes ago`, `12 days ago`.
fn age(d: Duration) -> String {
    let (n, unit) = match d.as_secs() {
        s if s < 120 => return "just now".into(),
        s if s < 7200 => (s / 60, "minutes"),
        s if s < 2 * 86_400 => (s / 3600, "hours"),
        s => (s / 86_400, "days"),
    };
    format!("{n} {unit} ago")
}

fn look_up(ctx: &Ctx, call: &str, refresh: bool, urls: &CallbookUrls) -> Result<(), CliError> {
    let urls = urls.urls()?;
    let callbook = Callbook::configured(&urls)?;
    ctx.note(&format!(
        "callbook: {} as {}",
        callbook.service().title(),
        callbook.user()
    ));
    let answer = ctx.block_on(async {
        let journal = cache(ctx).await;
        Ok(callbook
            .lookup_cached(journal.as_ref(), call, refresh)
            .await?)
    })?;
    let l = &answer.lookup;
    let title = l.source.title();
    if let Some(why) = &answer.unreachable {
        ctx.warn(&format!(
            "{why}; this is {title}'s answer from the cache, {}",
            age(l.age())
        ));
    } else if answer.cached {
        ctx.info(&format!(
            "{title}'s answer from the cache, {} (--refresh asks again)",
            age(l.age())
        ));
    }
    if let Some(note) = &l.note {
        ctx.warn(note);
    }
    match ctx.format {
        Format::Json | Format::Ndjson => ctx.print_json(l),
        Format::Text => ctx.say(&text(l)),
    }
}

/// A few aligned lines: the fields the callbook gave, then where they came from.
fn text(l: &Lookup) -> String {
    let number = |n: Option<u16>| n.map(|n| n.to_string());
    let pairs = [
        ("Callsign", Some(l.callsign.clone())),
        ("Name", l.name.clone()),
        ("QTH", l.qth.clone()),
        ("State", l.state.clone()),
        ("Country", l.country.clone()),
        ("Grid", l.grid.clone()),
        ("DXCC", number(l.dxcc)),
        ("CQ zone", number(l.cq_zone.map(u16::from))),
        ("ITU zone", number(l.itu_zone.map(u16::from))),
        ("Continent", l.continent.clone()),
        (
            "Source",
            Some(format!(
                "{}, {}",
                l.source.title(),
                super::output::time(l.fetched_at)
            )),
        ),
    ];
    pairs
        .iter()
        .filter_map(|(label, value)| value.as_ref().map(|v| format!("{label:<10} {v}\n")))
        .collect()
}

fn connect(ctx: &Ctx, args: ConnectArgs) -> Result<(), CliError> {
    let service = Service::from(args.service);
    let user = args.user.trim();
    if user.is_empty() || user.chars().any(char::is_control) {
        return Err(CliError::input(
            "--user is the callbook user name (for QRZ, your callsign)",
        ));
    }
    let urls = args.urls.urls()?;
    let password = read_password(service.title(), args.password_stdin)?;
    let callbook = Callbook::new(service, urls.of(service).clone(), user, password.clone())?;
    let said = ctx.block_on(async {
        callbook.login().await.map_err(|e| match e {
            LookupError::Refused(m) => {
                CliError::from(LookupError::Refused(format!("{m}; nothing was stored")))
            }
            other => other.into(),
        })
    })?;
    let (stored, place) = match lookup::store(service, user, &password)? {
        Place::Keychain => ("keychain", "the keychain".to_owned()),
        Place::Config { path, why } => {
            // Always shown, --quiet or not: the password now sits in a file.
            eprintln_safe(&format!(
                "svc: {}: warning: {why}; the password was stored in {} (mode 0600) instead",
                ctx.command,
                path.display()
            ));
            ("config", path.display().to_string())
        }
    };
    match ctx.format {
        Format::Text => ctx.say(&format!(
            "connected to {} as {user}{}; the password is stored in {place}\n",
            service.title(),
            said.as_ref()
                .map_or_else(String::new, |s| format!(" ({s})"))
        )),
        _ => ctx.print_json(&json!({
            "service": service.as_str(),
            "user": user,
            "stored": stored,
            "note": said,
        })),
    }
}

fn disconnect(ctx: &Ctx) -> Result<(), CliError> {
    let forgotten = lookup::forget()?;
    if let Some(e) = &forgotten.keychain_error {
        ctx.warn(&format!("the keychain could not be cleared: {e}"));
    }
    match (ctx.format, &forgotten.connected) {
        (Format::Text, Some(c)) => ctx.say(&format!(
            "disconnected from {} ({}); its password is forgotten\n",
            c.service.title(),
            c.user
        )),
        (Format::Text, None) => ctx.say("no callbook was connected\n"),
        (_, connected) => ctx.print_json(&json!({
            "service": connected.as_ref().map(|c| c.service.as_str()),
            "user": connected.as_ref().map(|c| c.user.as_str()),
        })),
    }
}
