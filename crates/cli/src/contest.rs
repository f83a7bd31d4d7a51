//! `svc contest start|list|show|end`: contest logs, and `svc contest contests`, the contests
//! svc knows.

use std::collections::BTreeMap;

use clap::{Args, Subcommand};

use super::folders::print_created;
use super::output::{self, Cell, Format};
use super::{CliError, Ctx, input};
use svc_client::contests::{ContestShown, NewContestRequest};
use svc_model::contest::{Contest, category};
use svc_model::{Folder, Page};

#[derive(Debug, Subcommand)]
pub enum ContestCommand {
    /// Start a contest log, or join this weekend's log of the contest and call (another operator's)
    Start(StartArgs),
    /// List contest logs
    List,
    /// Show a contest log and where it stands: QSOs, dupes, points, multipliers, score
    Show(ShowArgs),
    /// End a contest log (set its end time)
    End(EndArgs),
    /// List the contests svc knows, with what each one's exchange is
    Contests,
}

impl ContestCommand {
    pub fn name(&self) -> &'static str {
        match self {
            ContestCommand::Start(_) => "start",
            ContestCommand::List => "list",
            ContestCommand::Show(_) => "show",
            ContestCommand::End(_) => "end",
            ContestCommand::Contests => "contests",
        }
    }
}

#[derive(Debug, Args)]
pub struct StartArgs {
    /// The contest, e.g. ARRL-FD, CQ-WW-CW, ARRL-SS-CW (svc contest contests lists them)
    #[arg(value_parser = input::text, value_name = "CONTEST")]
    contest: String,
    /// What you send beyond the serial number and report, e.g. "2A CT" for Field Day, "5" for
    /// CQ WW from zone 5; needed to start a log, not to join one
    #[arg(long, value_parser = input::text, value_name = "TEXT")]
    exchange: Option<String>,
    /// The call the log is sent under [default: the account's]
    #[arg(long, value_parser = input::callsign, value_name = "CALL")]
    callsign: Option<String>,
    /// A Cabrillo category, kind=VALUE or the value alone: power=LOW, SINGLE-OP, ASSISTED
    /// (repeat, or separate with commas)
    #[arg(long, value_name = "CATEGORY", value_delimiter = ',')]
    category: Vec<String>,
    #[command(flatten)]
    header: HeaderArgs,
    /// Start, ISO 8601 with offset [default: now]
    #[arg(long, value_parser = input::time, value_name = "ISO")]
    start_time: Option<String>,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The contest log's folder id (fld_…)
    #[arg(value_parser = input::folder_id)]
    id: String,
}

#[derive(Debug, Args)]
pub struct EndArgs {
    /// The contest log's folder id (fld_…)
    #[arg(value_parser = input::folder_id)]
    id: String,
    /// End, ISO 8601 with offset [default: now]
    #[arg(long, value_parser = input::time, value_name = "ISO")]
    end_time: Option<String>,
}

pub fn run(ctx: &Ctx, command: ContestCommand) -> Result<(), CliError> {
    match command {
        ContestCommand::Start(args) => start(ctx, args),
        ContestCommand::List => list(ctx),
        ContestCommand::Show(args) => show(ctx, args),
        ContestCommand::End(args) => end(ctx, args),
        ContestCommand::Contests => contests(ctx),
    }
}

/// The Cabrillo file's header lines as flags: kept by a log as it is started, or given to an
/// export over the log's.
#[derive(Debug, Args)]
pub struct HeaderArgs {
    /// Your name, for the Cabrillo file
    #[arg(long, value_parser = input::text, value_name = "NAME")]
    name: Option<String>,
    /// Your email address, for the Cabrillo file
    #[arg(long, value_parser = input::text, value_name = "EMAIL")]
    email: Option<String>,
    /// Your postal address, for the Cabrillo file (a line each, up to six, separated by \n)
    #[arg(long, value_name = "ADDRESS")]
    address: Option<String>,
    /// Your club, for the Cabrillo file
    #[arg(long, value_parser = input::text, value_name = "CLUB")]
    club: Option<String>,
    /// Where you are, as the contest's Cabrillo LOCATION asks (e.g. your ARRL section)
    #[arg(long, value_parser = input::text, value_name = "LOCATION")]
    location: Option<String>,
}

impl HeaderArgs {
    /// The lines given, by tag.
    pub fn lines(self) -> BTreeMap<String, String> {
        [
            ("name", self.name),
            ("email", self.email),
            // A shell gives "\n" as two characters: they stand for a new line here.
            ("address", self.address.map(|a| a.replace("\\n", "\n"))),
            ("club", self.club),
            ("location", self.location),
        ]
        .into_iter()
        .filter_map(|(tag, value)| Some((tag.to_owned(), value?)))
        .collect()
    }
}

/// Categories given as flags, checked here so a wrong one is refused before any request.
pub fn categories(given: &[String]) -> Result<BTreeMap<String, String>, CliError> {
    let mut out = BTreeMap::new();
    for one in given.iter().filter(|c| !c.trim().is_empty()) {
        let (kind, value) = category(one).map_err(|e| CliError::input(e.message))?;
        out.insert(kind.to_owned(), value);
    }
    Ok(out)
}

fn start(ctx: &Ctx, args: StartArgs) -> Result<(), CliError> {
    let Some(contest) = Contest::find(&args.contest) else {
        return Err(CliError::input(format!(
            "{:?} is not a contest svc knows; svc contest contests lists them, e.g. ARRL-FD",
            args.contest
        )));
    };
    if let Some(exchange) = &args.exchange {
        contest
            .read_sent(exchange)
            .map_err(|e| CliError::input(format!("--exchange: {}", e.message)))?;
    }
    let mut request = NewContestRequest {
        contest_id: contest.id.clone(),
        callsign: args.callsign.unwrap_or_default(),
        exchange: args.exchange,
        categories: categories(&args.category)?,
        cabrillo: args.header.lines(),
        start_time: args.start_time,
    };
    let client = ctx.client()?;
    let created = ctx.block_on(async {
        if request.callsign.is_empty() {
            request.callsign = client.whoami().await?.callsign;
        }
        Ok(client.start_contest(&request).await?)
    })?;
    print_created(ctx, "contest log", &created)
}

fn list(ctx: &Ctx) -> Result<(), CliError> {
    let client = ctx.client()?;
    let items = ctx.block_on(async { Ok(client.all_contests().await?) })?;
    ctx.info(&format!(
        "{} contest log{}",
        items.len(),
        if items.len() == 1 { "" } else { "s" }
    ));
    ctx.print_list(
        &Page {
            items,
            cursor: None,
        },
        |items| table(ctx, items),
    )
}

fn table(ctx: &Ctx, items: &[Folder]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let rows = items
        .iter()
        .map(|f| {
            let end = match f.end_time {
                Some(t) => Cell::from(output::time(t)),
                None => Cell::green("open"),
            };
            let contest = f.contest.as_ref();
            vec![
                Cell::from(f.id.as_str()),
                Cell::from(contest.map_or("-", |c| c.contest_id.as_str())),
                Cell::from(output::or_dash(&f.callsign)),
                Cell::from(contest.map_or("-", |c| c.exchange.as_str())),
                Cell::from(f.start_time.map_or_else(|| "-".into(), output::time)),
                end,
                Cell::from(f.contact_count.to_string()),
            ]
        })
        .collect();
    output::table(
        &["ID", "CONTEST", "CALL", "SENDS", "START", "END", "CONTACTS"],
        rows,
        ctx.color,
    )
}

fn show(ctx: &Ctx, args: ShowArgs) -> Result<(), CliError> {
    let client = ctx.client()?;
    let shown = ctx.block_on(async { Ok(client.contest(&args.id).await?) })?;
    match ctx.format {
        Format::Json => ctx.print_json(&shown),
        _ if ctx.quiet => ctx.say(&format!("{}\n", shown.folder.id)),
        _ => ctx.say(&describe(&shown)),
    }
}

fn describe(shown: &ContestShown) -> String {
    let f = &shown.folder;
    let log = f.contest.as_ref();
    let contest = log.and_then(|l| l.contest());
    let mut out = format!(
        "{} ({}): {}, sending {}, {}\n",
        f.name,
        f.id,
        contest.map_or("an unknown contest", |c| c.name.as_str()),
        log.map_or("-", |l| l.exchange.as_str()),
        match f.end_time {
            Some(t) => format!("ended {}", output::time(t)),
            None => "open".to_owned(),
        }
    );
    if let Some(log) = log.filter(|l| !l.categories.is_empty()) {
        let categories: Vec<String> = log
            .categories
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        out.push_str(&format!("categories: {}\n", categories.join(" ")));
    }
    match shown.standing() {
        Some(s) => {
            out.push_str(&format!(
                "QSOs {}  dupes {}  points {}  multipliers {}  claimed score {}\n",
                s.qsos, s.dupes, s.points, s.multipliers, s.score
            ));
            if !s.bands.is_empty() {
                let bands: Vec<String> = s.bands.iter().map(|(b, n)| format!("{b} {n}")).collect();
                out.push_str(&format!("bands: {}\n", bands.join(", ")));
            }
            if !s.operators.is_empty() {
                out.push_str(&format!("operators: {}\n", s.operators.join(" ")));
            }
        }
        None => out.push_str("(the service's standing is not one this svc reads; see --json)\n"),
    }
    out
}

fn end(ctx: &Ctx, args: EndArgs) -> Result<(), CliError> {
    let client = ctx.client()?;
    let folder = ctx.block_on(async {
        Ok(client
            .end_contest(&args.id, args.end_time.as_deref())
            .await?)
    })?;
    match ctx.format {
        Format::Json => ctx.print_json(&folder),
        _ if ctx.quiet => ctx.say(&format!("{}\n", folder.id)),
        _ => {
            let at = folder.end_time.map_or_else(|| "-".into(), output::time);
            ctx.say(&format!(
                "ended contest log {} ({}) at {at}\n",
                folder.name, folder.id
            ))
        }
    }
}

/// One contest as `svc contest contests --json` gives it.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Known<'a> {
    id: &'a str,
    name: &'a str,
    adif: &'a str,
    /// Other names `svc contest start` takes for it.
    aliases: &'a [String],
    /// The received exchange's labels, in order.
    exchange: Vec<&'a str>,
    /// What `--exchange` takes: the sent exchange's labels, in order.
    sends: Vec<&'a str>,
    example: String,
}

fn contests(ctx: &Ctx) -> Result<(), CliError> {
    let known: Vec<Known> = Contest::shipped()
        .iter()
        .map(|c| Known {
            id: &c.id,
            name: &c.name,
            adif: &c.adif,
            aliases: &c.aliases,
            exchange: c.exchange.iter().map(|f| f.label.as_str()).collect(),
            sends: c.sent_fields().map(|f| f.label.as_str()).collect(),
            example: c
                .sent_fields()
                .map(|f| f.example.as_str())
                .collect::<Vec<_>>()
                .join(" "),
        })
        .collect();
    match ctx.format {
        Format::Json => ctx.print_json(&known),
        _ => {
            let rows = known
                .iter()
                .map(|k| {
                    vec![
                        Cell::from(k.id),
                        Cell::from(k.name),
                        Cell::from(k.exchange.join(", ")),
                        Cell::from(if k.example.is_empty() {
                            "-".to_owned()
                        } else {
                            format!("--exchange {:?}", k.example)
                        }),
                    ]
                })
                .collect();
            ctx.say(&output::table(
                &["CONTEST", "NAME", "EXCHANGE RECEIVED", "START WITH"],
                rows,
                ctx.color,
            ))
        }
    }
}
