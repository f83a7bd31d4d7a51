//! `svc parks import|show`: POTA parks by reference, from the park cache or from POTA. Neither
//! needs a key or the service.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::output::{self, Format};
use super::{Answer, CliError, Ctx, input};
use svc_model::Timestamp;
use svc_pota::{self as pota, ParkAnswer, ParkSource, Parks, Pota, PotaError};

#[derive(Debug, Subcommand)]
pub enum ParksCommand {
    /// Read POTA's park list (all_parks_ext.csv from pota.app) into the park cache, so parks
    /// have names with no link
    Import(ImportArgs),
    /// Show a park: its name, location and grid, from the park cache or POTA
    Show(ShowArgs),
}

impl ParksCommand {
    pub fn name(&self) -> &'static str {
        match self {
            ParksCommand::Import(_) => "import",
            ParksCommand::Show(_) => "show",
        }
    }
}

/// The flag of every command that talks to POTA.
#[derive(Debug, Clone, Args)]
pub struct PotaArgs {
    /// Address of POTA's API [default: https://api.pota.app]
    #[arg(long, env = "SVC_POTA_API_URL", value_name = "URL")]
    pota_api_url: Option<String>,
}

impl PotaArgs {
    pub fn client(&self, ctx: &Ctx) -> Result<Pota, CliError> {
        let url = pota::resolve_api_url(self.pota_api_url.as_deref())?;
        ctx.note(&format!("POTA at {url}: one attempt, 5 s at most"));
        Ok(Pota::new(url))
    }
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The park list: CSV with a header line naming at least reference and name
    #[arg(value_name = "FILE")]
    file: PathBuf,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The park, e.g. US-0001
    #[arg(value_parser = input::park, value_name = "REF")]
    reference: String,
    #[command(flatten)]
    pota: PotaArgs,
}

impl From<PotaError> for CliError {
    fn from(e: PotaError) -> Self {
        CliError {
            error: e.code().into(),
            message: e.to_string(),
            exit: e.exit_code(),
            answer: e.status().map(|status| {
                Box::new(Answer {
                    status: Some(status),
                    ..Answer::default()
                })
            }),
        }
    }
}

pub fn run(ctx: &Ctx, command: ParksCommand) -> Result<(), CliError> {
    match command {
        ParksCommand::Import(args) => import(ctx, args),
        ParksCommand::Show(args) => show(ctx, args),
    }
}

fn import(ctx: &Ctx, args: ImportArgs) -> Result<(), CliError> {
    let file = std::fs::File::open(&args.file)
        .map_err(|e| CliError::input(format!("cannot read {}: {e}", args.file.display())))?;
    // The import asks POTA nothing; the cache is opened with POTA's own address.
    let pota = Pota::new(pota::resolve_api_url(None)?);
    let report = ctx.block_on(async {
        let parks = Parks::open(pota).await?;
        parks
            .import_csv(std::io::BufReader::new(file))
            .await
            .map_err(|e| match e {
                PotaError::Invalid(m) => CliError::input(format!("{}: {m}", args.file.display())),
                other => other.into(),
            })
    })?;
    for (row, reason) in &report.problems {
        ctx.info(&format!("row {row}: {reason}"));
    }
    if report.skipped > report.problems.len() as u64 {
        ctx.info(&format!(
            "… and {} more rows that are not parks",
            report.skipped - report.problems.len() as u64
        ));
    }
    match ctx.format {
        Format::Json => ctx.print_json(&report),
        _ => ctx.say(&format!(
            "imported {} parks, skipped {} rows\n",
            report.imported, report.skipped
        )),
    }
}

fn show(ctx: &Ctx, args: ShowArgs) -> Result<(), CliError> {
    let pota = args.pota.client(ctx)?;
    let answer = ctx.block_on(async {
        let parks = Parks::open(pota).await?;
        Ok(parks.lookup(&args.reference).await?)
    })?;
    let now = Timestamp::now();
    if let Some(e) = &answer.refresh_error {
        ctx.warn(&format!(
            "{e}; showing the park as cached {}",
            age(answer.age_days(now))
        ));
    }
    match ctx.format {
        Format::Json => ctx.print_json(&answer),
        _ => ctx.out(&text(&answer, now)),
    }
}

fn age(days: i64) -> String {
    match days {
        0 => "today".into(),
        1 => "1 day ago".into(),
        n => format!("{n} days ago"),
    }
}

fn text(answer: &ParkAnswer, now: Timestamp) -> String {
    let park = &answer.park;
    let mut lines = vec![
        ("Reference", park.reference.clone()),
        ("Name", park.name.clone()),
        ("Location", output::or_dash(&park.location)),
        ("Grid", output::or_dash(&park.grid)),
    ];
    if let (Some(lat), Some(lon)) = (park.latitude, park.longitude) {
        lines.push(("Position", format!("{lat}, {lon}")));
    }
    let source = match answer.source {
        ParkSource::Api => "POTA",
        ParkSource::Cache => "cache",
    };
    lines.push((
        "Source",
        format!(
            "{source}, fetched {} ({})",
            output::time(answer.fetched_at),
            age(answer.age_days(now))
        ),
    ));
    output::fields(&lines)
}
