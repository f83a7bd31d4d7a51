//! `svc lotw connect|sync|disconnect`: ARRL's Logbook of The World. The login is the user's
//! own and stays on this machine (keychain, else the 0600 config file); `sync` downloads the
//! confirmations since the last report it wrote, and what LoTW received of the user's
//! uploads since the last such report, checks both whole, and sends them to the service,
//! which writes each into the contact it confirms or LoTW received (`POST
//! /v1/confirmations`). `upload` goes the other way: the contacts not yet at LoTW, signed and
//! uploaded by TQSL with the user's certificate, then marked sent (`POST
//! /v1/confirmations/sent`); how the last upload went is kept on this machine for `svc
//! confirmations status`.

use std::io::IsTerminal;

use clap::{Args, Subcommand};
use serde_json::json;

use super::input::read_password;
use super::output::Format;
use super::{CliError, Ctx, eprintln_safe};
use svc_client::lookup::Place;
use svc_client::lotw::tqsl::{self, TqslError};
use svc_client::lotw::{self, DEFAULT_URL, Lotw, LotwError, Query};
use svc_model::callsign::normalize_callsign;
use svc_model::confirm::{
    ConfirmAnswer, ConfirmState, Confirmation, MAX_CONFIRMATIONS, Sent, SentAnswer,
    lotw_fingerprint, lotw_upload_due,
};
use svc_model::{Contact, ErrorCode, FolderType, Tier};

#[derive(Debug, Subcommand)]
pub enum LotwCommand {
    /// Check a LoTW website login with LoTW, then store it on this machine
    Connect(ConnectArgs),
    /// Download LoTW's new confirmations and mark the contacts they confirm
    Sync(SyncArgs),
    /// Sign and upload the contacts not yet at LoTW through TQSL, then mark them sent
    Upload(UploadArgs),
    /// Forget the LoTW login
    Disconnect,
}

impl LotwCommand {
    pub fn name(&self) -> &'static str {
        match self {
            LotwCommand::Connect(_) => "connect",
            LotwCommand::Sync(_) => "sync",
            LotwCommand::Upload(_) => "upload",
            LotwCommand::Disconnect => "disconnect",
        }
    }
}

/// Where LoTW answers, so a test (or a mirror) can stand in for it.
#[derive(Debug, Clone, Args)]
pub struct LotwUrl {
    /// Address of LoTW's report (lotwreport.adi)
    #[arg(long, env = "SVC_LOTW_URL", value_name = "URL", default_value = DEFAULT_URL)]
    lotw_url: String,
}

impl LotwUrl {
    fn url(&self) -> Result<reqwest::Url, CliError> {
        lotw::parse_url(&self.lotw_url)
            .map_err(|e| CliError::input(format!("--lotw-url (or SVC_LOTW_URL): {e}")))
    }
}

#[derive(Debug, Args)]
pub struct ConnectArgs {
    /// Your LoTW website user name (usually your callsign)
    #[arg(long, value_name = "CALL")]
    user: String,
    /// Read the password from stdin (without it, a hidden prompt on a terminal)
    #[arg(long)]
    password_stdin: bool,
    #[command(flatten)]
    url: LotwUrl,
}

#[derive(Debug, Args)]
pub struct SyncArgs {
    /// Only the QSOs of this station callsign of the LoTW account
    #[arg(long, value_name = "CALL")]
    station_callsign: Option<String>,
    /// Every confirmation again, not only those since the last sync
    #[arg(long)]
    all: bool,
    #[command(flatten)]
    url: LotwUrl,
}

#[derive(Debug, Args)]
pub struct UploadArgs {
    /// TQSL's station location to sign with (default: TQSL's only one)
    #[arg(long, value_name = "NAME")]
    station_location: Option<String>,
}

impl From<TqslError> for CliError {
    fn from(e: TqslError) -> Self {
        let exit = match &e {
            TqslError::Missing(_) | TqslError::Io(_) => 1,
            TqslError::NoLocation(_) => 2,
            // As the service's kinds of failure: LoTW not reached or not answering as it
            // should, 7; a station location TQSL does not have, 2; any other, 1.
            TqslError::Failed { code, .. } => match code {
                Some(3 | 11) => 7,
                Some(10) => 2,
                _ => 1,
            },
        };
        let code = match &e {
            TqslError::Missing(_) => "tqsl_missing",
            TqslError::NoLocation(_) => ErrorCode::ValidationError.as_str(),
            TqslError::Failed { .. } => "tqsl_failed",
            TqslError::Io(_) => "local_error",
        };
        CliError::new(code, exit, e.to_string())
    }
}

impl From<LotwError> for CliError {
    fn from(e: LotwError) -> Self {
        let (code, exit) = match &e {
            LotwError::NotConnected(_) | LotwError::Refused(_) => {
                let code = ErrorCode::Unauthorized;
                (code.as_str(), code.exit_code())
            }
            // The report came cut short or miscounted: as no answer, to be tried again.
            LotwError::Incomplete(_) => ("lotw_incomplete", 7),
            LotwError::Unavailable(_) => ("transport_error", 7),
            LotwError::Store(_) => ("local_error", 1),
        };
        CliError::new(code, exit, e.to_string())
    }
}

pub fn run(ctx: &Ctx, command: LotwCommand) -> Result<(), CliError> {
    match command {
        LotwCommand::Connect(args) => connect(ctx, args),
        LotwCommand::Sync(args) => sync(ctx, args),
        LotwCommand::Upload(args) => upload(ctx, args),
        LotwCommand::Disconnect => disconnect(ctx),
    }
}

fn connect(ctx: &Ctx, args: ConnectArgs) -> Result<(), CliError> {
    let user = args.user.trim();
    if user.is_empty() || user.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(CliError::input(
            "--user is your LoTW website user name, usually your callsign, e.g. --user W1AW",
        ));
    }
    let url = args.url.url()?;
    let password = read_password("LoTW", args.password_stdin)?;
    let lotw = Lotw::new(url, user, password.clone())?;
    // A report of what LoTW confirmed from today on is small, and proves the login.
    let today = svc_model::Timestamp::now().utc_date().to_string();
    ctx.block_on(async {
        lotw.report(
            &Query {
                since: Some(today),
                owncall: None,
                received: false,
            },
            |_| {},
        )
        .await
        .map_err(|e| match e {
            LotwError::Refused(m) => {
                CliError::from(LotwError::Refused(format!("{m}; nothing was stored")))
            }
            other => other.into(),
        })
    })?;
    let (stored, place) = match lotw::store_login(user, &password)? {
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
            "connected to LoTW as {user}; the password is stored in {place}\n"
        )),
        _ => ctx.print_json(&json!({"service": "lotw", "user": user, "stored": stored})),
    }
}

fn disconnect(ctx: &Ctx) -> Result<(), CliError> {
    let user = lotw::forget_login()?;
    match (ctx.format, &user) {
        (Format::Text, Some(user)) => ctx.say(&format!(
            "disconnected from LoTW ({user}); its password is forgotten\n"
        )),
        (Format::Text, None) => ctx.say("no LoTW login was stored\n"),
        (_, user) => ctx.print_json(&json!({"service": "lotw", "user": user})),
    }
}

/// How many of the confirmations that match no contact `sync` lists as text.
const UNMATCHED_SHOWN: usize = 20;

/// A confirmation LoTW has and the log does not, for the list `sync` prints.
fn unmatched_line(c: &Confirmation) -> String {
    format!(
        "{}  {:<10} {:<5} {:<6} as {}",
        c.time_on,
        c.callsign,
        c.band.to_lowercase(),
        c.mode,
        c.station_callsign
    )
}

/// What one report's items came to at the service, and those that match no contact.
async fn send_items(
    client: &svc_client::Client,
    report: &lotw::report::Report,
    what: &str,
    progress: bool,
) -> Result<(ConfirmAnswer, Vec<Confirmation>), CliError> {
    let total = report.confirmations.len();
    let mut answer = ConfirmAnswer::default();
    let mut unmatched = Vec::new();
    for chunk in report.confirmations.chunks(MAX_CONFIRMATIONS) {
        let part = client.confirm("lotw", chunk).await?;
        for (item, c) in part.items.iter().zip(chunk) {
            answer.push(item.state, item.qso_id.clone());
            if item.state == ConfirmState::Unmatched {
                unmatched.push(c.clone());
            }
        }
        if progress && total > MAX_CONFIRMATIONS {
            eprint!(
                "\rsvc: lotw sync: {} of {total} {what} written",
                answer.items.len()
            );
        }
    }
    if progress && total > MAX_CONFIRMATIONS {
        eprintln!();
    }
    Ok((answer, unmatched))
}

fn sync(ctx: &Ctx, args: SyncArgs) -> Result<(), CliError> {
    let url = args.url.url()?;
    let owncall = args
        .station_callsign
        .as_deref()
        .map(|c| normalize_callsign("--station-callsign", c))
        .transpose()
        .map_err(|e| CliError::input(e.message))?;
    let lotw = Lotw::stored(url)?;
    let client = ctx.client()?;
    let progress = std::io::stderr().is_terminal() && !ctx.quiet;
    ctx.block_on(async {
        // Where the last sync of this login, account and station reached: two accounts on
        // one machine never skip each other's confirmations.
        let account = client.whoami().await?.callsign;
        let scope = format!(
            "{} {account} {}",
            lotw.user(),
            owncall.as_deref().unwrap_or("*")
        );
        let mut marks = lotw::scope_marks(&scope)?;
        let since = if args.all {
            None
        } else {
            marks.last_qsl.clone()
        };
        // What LoTW received is asked for from the first upload through svc on: before it,
        // svc sent LoTW nothing to wait for.
        let first_upload = lotw::upload_marks(&account)?.first_on;
        let rx_since = match (args.all, &marks.last_qsorx) {
            (false, Some(last)) => Some(last.clone()),
            _ => first_upload,
        };
        ctx.note(&match &since {
            Some(since) => format!("asking LoTW ({}) for confirmations since {since}", lotw.user()),
            None => format!(
                "asking LoTW ({}) for every confirmation; a first download of a big log can take LoTW minutes",
                lotw.user()
            ),
        });
        let download = |query: Query| {
            let lotw = &lotw;
            async move {
                let report = lotw
                    .report(&query, |bytes| {
                        if progress {
                            eprint!("\rsvc: lotw sync: {} kB from LoTW", bytes / 1024);
                        }
                    })
                    .await;
                if progress {
                    eprintln!();
                }
                report
            }
        };
        let report = download(Query {
            since: since.clone(),
            owncall: owncall.clone(),
            received: false,
        })
        .await?;
        // Both reports are read whole before either is written: one cut short changes
        // nothing, and the next sync asks for both again from where they were.
        let received = match &rx_since {
            Some(rx_since) => {
                ctx.note(&format!(
                    "asking LoTW ({}) for the QSOs it received since {rx_since}",
                    lotw.user()
                ));
                Some(
                    download(Query {
                        since: Some(rx_since.clone()),
                        owncall: owncall.clone(),
                        received: true,
                    })
                    .await?,
                )
            }
            None => {
                ctx.note(
                    "not asking LoTW what it received: svc lotw upload has sent it nothing from this machine for this account yet",
                );
                None
            }
        };
        for why in &report.skipped {
            ctx.warn(&format!("LoTW's report: {why}; skipped"));
        }
        for why in received.iter().flat_map(|r| &r.skipped) {
            ctx.warn(&format!("LoTW's report of what it received: {why}; skipped"));
        }
        let total = report.confirmations.len();
        let (answer, unmatched) = send_items(&client, &report, "confirmations", progress).await?;
        let received_answer = match &received {
            Some(received) => Some(send_items(&client, received, "received QSOs", progress).await?),
            None => None,
        };
        // Only a report written whole moves its mark: a sync cut short starts where this
        // one did, and what it wrote answers `already` the next time.
        let before = marks.clone();
        if let Some(last) = &report.last_qsl {
            marks.last_qsl = Some(last.clone());
        }
        if let Some(last) = received.as_ref().and_then(|r| r.last_qsorx.as_ref()) {
            marks.last_qsorx = Some(last.clone());
        }
        if marks != before {
            lotw::set_scope_marks(&scope, &marks)?;
        }
        let items: Vec<_> = unmatched
            .iter()
            .map(|c| serde_json::to_value(c).unwrap_or_default())
            .collect();
        match ctx.format {
            Format::Text => {
                let mut text = format!(
                    "LoTW: {total} confirmations read, {} newly confirmed, {} already, {} match no contact\n",
                    answer.confirmed, answer.already, answer.unmatched
                );
                // A first sync of a log begun here may list years of QSOs from before it:
                // the first few say what they are, --json has them all.
                for c in unmatched.iter().take(UNMATCHED_SHOWN) {
                    text.push_str(&format!("  not in the log: {}\n", unmatched_line(c)));
                }
                if unmatched.len() > UNMATCHED_SHOWN {
                    text.push_str(&format!(
                        "  … and {} more (--json lists them all)\n",
                        unmatched.len() - UNMATCHED_SHOWN
                    ));
                }
                if let (Some(received), Some((rx, _))) = (&received, &received_answer) {
                    text.push_str(&format!(
                        "LoTW: {} QSOs it received read, {} newly received, {} newly confirmed, {} already, {} match no contact\n",
                        received.confirmations.len(),
                        rx.received,
                        rx.confirmed,
                        rx.already,
                        rx.unmatched
                    ));
                }
                ctx.say(&text)
            }
            _ => ctx.print_json(&json!({
                "service": "lotw",
                "read": total,
                "confirmed": answer.confirmed,
                "already": answer.already,
                "unmatched": items,
                "skipped": report.skipped,
                "since": since,
                "lastQsl": report.last_qsl,
                // Null when not asked for: nothing was uploaded through svc yet.
                "received": received.as_ref().zip(received_answer.as_ref()).map(|(r, (rx, unmatched))| json!({
                    "read": r.confirmations.len(),
                    "received": rx.received,
                    "confirmed": rx.confirmed,
                    "already": rx.already,
                    "unmatched": unmatched,
                    "skipped": r.skipped,
                    "since": rx_since,
                    "lastQsoRx": r.last_qsorx,
                })),
            })),
        }
    })
}

/// The account's contacts due for LoTW (`svc_model::confirm::lotw_upload_due`), oldest first:
/// the All Contacts folder read page by page, 200 contacts a request, keeping only those.
async fn due_contacts(
    client: &svc_client::Client,
    account: &str,
) -> Result<Vec<Contact>, CliError> {
    let folders = client.all_folders(None).await?;
    let Some(root) = folders
        .iter()
        .find(|f| f.folder_type == FolderType::Category && f.parent_id.is_none())
    else {
        return Ok(Vec::new());
    };
    let mut due = Vec::new();
    let mut cursor = None;
    loop {
        let page = client
            .contacts(&root.id, Some(svc_client::FULL_PAGE), cursor.as_deref())
            .await?;
        due.extend(
            page.items
                .into_iter()
                .filter(|c| lotw_upload_due(c, account)),
        );
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    due.sort_by_key(|c| c.time_on);
    Ok(due)
}

fn upload(ctx: &Ctx, args: UploadArgs) -> Result<(), CliError> {
    // TQSL and its station location first: nothing is asked of the service without them.
    let program = tqsl::find()?;
    let location = match args.station_location.as_deref().map(str::trim) {
        Some("") => {
            return Err(CliError::input(
                "--station-location names one of TQSL's station locations, e.g. --station-location Home",
            ));
        }
        Some(name) => name.to_owned(),
        None => tqsl::default_location()?,
    };
    let client = ctx.client()?;
    let (account, due) = ctx.block_on(async {
        let me = client.whoami().await?;
        // Marking them sent needs an elevated key: found out before TQSL uploads anything.
        if me.tier != Tier::Elevated {
            let code = ErrorCode::TierInsufficient;
            return Err(CliError::new(
                code.as_str(),
                code.exit_code(),
                "svc lotw upload marks the contacts it uploads sent, which needs an elevated key; nothing was uploaded",
            ));
        }
        let due = due_contacts(&client, &me.callsign).await?;
        Ok((me.callsign, due))
    })?;
    let report = |uploaded: usize, status: Option<i32>, answer: &SentAnswer| match ctx.format {
        Format::Text => {
            let mut text = if uploaded == 0 {
                "LoTW: nothing to upload; every contact is at LoTW\n".to_owned()
            } else {
                format!(
                    "LoTW: {uploaded} contacts uploaded through TQSL (station location {location}), {} marked sent\n",
                    answer.sent + answer.already
                )
            };
            if let Some(code @ (8 | 9)) = status {
                text.push_str(&format!("  TQSL: {}\n", tqsl::meaning(code)));
            }
            if answer.missing > 0 {
                text.push_str(&format!(
                    "  {} were deleted from the log meanwhile\n",
                    answer.missing
                ));
            }
            ctx.say(&text)
        }
        _ => ctx.print_json(&json!({
            "service": "lotw",
            "stationLocation": location,
            "uploaded": uploaded,
            "tqslStatus": status,
            "marked": answer.sent,
            "already": answer.already,
            "missing": answer.missing,
        })),
    };
    if due.is_empty() {
        return report(0, None, &SentAnswer::default());
    }
    // What was signed, fixed before TQSL runs: an edit meanwhile makes the contact due again.
    let sent_on = svc_model::Timestamp::now().utc_date().to_string();
    let items: Vec<Sent> = due
        .iter()
        .map(|c| Sent {
            qso_id: c.id.clone(),
            sent_on: sent_on.clone(),
            fingerprint: lotw_fingerprint(c, &account),
        })
        .collect();
    ctx.info(&format!(
        "lotw upload: signing and uploading {} contacts with TQSL, station location {location}",
        due.len()
    ));
    // Kept for svc confirmations status: an upload run unattended fails unseen otherwise.
    let uploaded = match tqsl::sign_and_upload(&program, &location, &due, &account) {
        Ok(uploaded) => {
            lotw::record_upload(&account, &sent_on, None)?;
            uploaded
        }
        Err(e) => {
            let failure = lotw::UploadFailure {
                at: svc_model::Timestamp::now().to_string(),
                error: e.to_string(),
                not_sent: due.len(),
            };
            if let Err(record) = lotw::record_upload(&account, &sent_on, Some(failure)) {
                ctx.warn(&format!(
                    "the failure is not kept for svc confirmations status: {record}"
                ));
            }
            return Err(e.into());
        }
    };
    let answer = ctx.block_on(async {
        let mut answer = SentAnswer::default();
        for chunk in items.chunks(MAX_CONFIRMATIONS) {
            let part = client.mark_sent("lotw", chunk).await?;
            for item in part.items {
                answer.push(item.state, item.qso_id);
            }
        }
        Ok(answer)
    })?;
    report(due.len(), Some(uploaded.code), &answer)
}
