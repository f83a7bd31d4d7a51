//! `svc export adif`: contacts out as ADIF 3.1.7 (ADI, or ADX with `--format adx`), to stdout
//! or a file, in one request (`GET /v1/adif`) whose answer is copied as it comes, so that
//! memory stays flat and the burst limit is spent once (docs/ADIF-AND-POTA.md, "ADIF").

use std::io::{BufRead, BufWriter, IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::{CliError, Ctx, input};
use svc_adif::{self as adif, Format};
use svc_client::contests::CabrilloRequest;
use svc_client::export::{self, ExportError, Exported};
use svc_model::Timestamp;

#[derive(Debug, Subcommand)]
pub enum ExportCommand {
    /// Write contacts as ADIF 3.1 (ADI or ADX) for other loggers, LoTW, QRZ and POTA
    Adif(AdifArgs),
    /// Write a contest log as a Cabrillo 3.0 file for the contest's log checkers
    Cabrillo(CabrilloArgs),
}

impl ExportCommand {
    pub fn name(&self) -> &'static str {
        match self {
            ExportCommand::Adif(_) => "adif",
            ExportCommand::Cabrillo(_) => "cabrillo",
        }
    }
}

#[derive(Debug, Args)]
pub struct AdifArgs {
    /// The folder to export (fld_…)
    #[arg(long, value_parser = input::folder_id, value_name = "ID", required_unless_present = "all", conflicts_with = "all")]
    folder: Option<String>,
    /// Export every folder that holds contacts
    #[arg(long)]
    all: bool,
    /// Write to FILE instead of stdout (FILE appears whole or not at all)
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Only contacts from this UTC day (2026-11-01) or time (ISO 8601) on
    #[arg(long, value_parser = input::since, value_name = "DATE")]
    since: Option<Timestamp>,
    /// Only contacts up to this UTC day, included, or before this time
    #[arg(long, value_parser = input::until, value_name = "DATE")]
    until: Option<Timestamp>,
    /// adi: tagged text in ASCII, which every logger reads; adx: XML that also keeps
    /// non-ASCII names and comments exactly (in _INTL fields)
    #[arg(long, value_enum, default_value_t = ExportFormat::Adi)]
    format: ExportFormat,
}

#[derive(Debug, Args)]
pub struct CabrilloArgs {
    /// The contest log (fld_…), as svc contest list gives it
    #[arg(value_parser = input::folder_id, value_name = "ID")]
    id: String,
    /// Write to FILE instead of stdout (FILE appears whole or not at all)
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// A Cabrillo category over the log's, kind=VALUE or the value alone: power=LOW, QRP,
    /// MULTI-OP (repeat, or separate with commas)
    #[arg(long, value_name = "CATEGORY", value_delimiter = ',')]
    category: Vec<String>,
    /// The header lines, over the log's
    #[command(flatten)]
    header: super::contest::HeaderArgs,
    /// A comment for the log checkers (SOAPBOX)
    #[arg(long, value_name = "TEXT")]
    soapbox: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Adi,
    Adx,
}

impl From<ExportFormat> for adif::Format {
    fn from(f: ExportFormat) -> Self {
        match f {
            ExportFormat::Adi => adif::Format::Adi,
            ExportFormat::Adx => adif::Format::Adx,
        }
    }
}

impl From<ExportError> for CliError {
    fn from(e: ExportError) -> Self {
        match e {
            ExportError::Client(e) => e.into(),
            ExportError::Write(e) => CliError::local(format!("cannot write the ADIF: {e}")),
            ExportError::Io(m) => CliError::local(m),
            ExportError::Refused(m) => CliError::input(m),
        }
    }
}

pub fn run(ctx: &Ctx, command: ExportCommand) -> Result<(), CliError> {
    match command {
        ExportCommand::Adif(args) => adif(ctx, args),
        ExportCommand::Cabrillo(args) => cabrillo(ctx, args),
    }
}

fn adif(ctx: &Ctx, args: AdifArgs) -> Result<(), CliError> {
    if ctx.format == super::Format::Json && args.out.is_none() {
        return Err(CliError::input(
            "--json needs --out FILE: without it stdout carries the ADIF itself",
        ));
    }
    if let (Some(since), Some(until)) = (args.since, args.until)
        && until <= since
    {
        return Err(CliError::input(
            "--until is not after --since; give a later --until",
        ));
    }
    let client = ctx.client()?;
    let format: Format = args.format.into();
    // One request: the service streams the whole file as it reads it.
    let work = async {
        let response = client
            .adif(args.folder.as_deref(), args.since, args.until, format)
            .await?;
        match &args.out {
            None => {
                let stdout = std::io::stdout();
                let mut out = BufWriter::new(stdout.lock());
                let records = export::download(response, format, &mut out)
                    .await
                    .map_err(|e| match e {
                        ExportError::Write(e) => stdout_error(e),
                        other => other.into(),
                    })?;
                out.flush().map_err(stdout_error)?;
                Ok::<_, CliError>(Exported {
                    path: None,
                    contacts: records,
                    records,
                    files: Vec::new(),
                })
            }
            Some(path) => Ok(export::download_to_file(response, format, path).await?),
        }
    };
    let exported = ctx.block_on(work)?;
    match (&exported.path, ctx.format) {
        (Some(_), super::Format::Json) => ctx.print_json(&exported),
        (Some(path), _) => {
            ctx.info(&format!(
                "exported {} contacts to {}",
                exported.contacts,
                path.display()
            ));
            Ok(())
        }
        (None, _) => {
            ctx.info(&format!("exported {} contacts", exported.contacts));
            Ok(())
        }
    }
}

/// What `svc export cabrillo --out F --json` prints.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct CabrilloWritten {
    path: PathBuf,
    qsos: usize,
}

fn cabrillo(ctx: &Ctx, args: CabrilloArgs) -> Result<(), CliError> {
    if ctx.format == super::Format::Json && args.out.is_none() {
        return Err(CliError::input(
            "--json needs --out FILE: without it stdout carries the Cabrillo file itself",
        ));
    }
    let mut request = CabrilloRequest {
        categories: super::contest::categories(&args.category)?
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect(),
        header: args.header.lines(),
        soapbox: args.soapbox.map(|s| s.replace("\\n", "\n")),
    };
    let client = ctx.client()?;
    let first = ctx.block_on(async { Ok(client.cabrillo(&args.id, &request).await) })?;
    let text = match first {
        // The one thing only the station can say: at a terminal it is asked for, and the
        // file asked for again with it; a script gets the error, which says how to give it.
        Err(svc_client::ClientError::Server(e))
            if e.field() == Some("categories")
                && e.message.contains("CATEGORY-POWER")
                && ctx.format == super::Format::Text
                && std::io::stdin().is_terminal()
                && std::io::stderr().is_terminal() =>
        {
            request.categories.push(ask_power()?);
            ctx.block_on(async { Ok(client.cabrillo(&args.id, &request).await?) })?
        }
        first => first?,
    };
    let qsos = text.lines().filter(|l| l.starts_with("QSO:")).count();
    match &args.out {
        None => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            out.write_all(text.as_bytes()).map_err(stdout_error)?;
            out.flush().map_err(stdout_error)?;
            ctx.info(&format!("exported {qsos} QSOs"));
            Ok(())
        }
        Some(path) => {
            ctx.block_on(async { Ok(export::text_to_file(path, &text).await?) })?;
            match ctx.format {
                super::Format::Json => ctx.print_json(&CabrilloWritten {
                    path: path.clone(),
                    qsos,
                }),
                _ => {
                    ctx.info(&format!("exported {qsos} QSOs to {}", path.display()));
                    Ok(())
                }
            }
        }
    }
}

/// CATEGORY-POWER, asked for on the terminal: `power=VALUE` as the model reads it.
fn ask_power() -> Result<String, CliError> {
    super::eprint_safe(
        "svc: the log does not say its power category, which Cabrillo's CATEGORY-POWER needs.\nPower category (HIGH, LOW or QRP): ",
    );
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| CliError::local(format!("cannot read the answer: {e}")))?;
    let answer = answer.trim();
    if answer.is_empty() {
        return Err(CliError::input(
            "no power category was given: give --category power=LOW (HIGH, LOW or QRP)",
        ));
    }
    let (_, value) = svc_model::contest::category(&format!("power={answer}"))
        .map_err(|e| CliError::input(e.message))?;
    Ok(format!("power={value}"))
}

/// A failed write to stdout: its reader went away (`svc export adif … | head`), which is not
/// a failure, or stdout itself failed.
fn stdout_error(e: std::io::Error) -> CliError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        CliError::broken_pipe()
    } else {
        CliError::local(format!("cannot write to stdout: {e}"))
    }
}
