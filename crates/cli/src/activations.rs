//! `svc activations list|create|add-park|end|export`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::folders::print_created;
use super::output::{self, Cell, Format};
use super::{CliError, Ctx, input};
use svc_client::NewActivationRequest;
use svc_client::export;
use svc_model::{Folder, Page};

#[derive(Debug, Subcommand)]
pub enum ActivationsCommand {
    /// List activations, newest first (every page)
    List(ListArgs),
    /// Find or start the activation of a park today (or on --start-time's UTC day)
    Create(CreateArgs),
    /// Add a park to an activation (a two-fer found out on the air): its contacts count for it too
    AddPark(AddParkArgs),
    /// End an activation
    End(EndArgs),
    /// Write an activation's POTA upload file, CALL@PARK-YYYYMMDD.adi, and print its path
    Export(ExportArgs),
}

impl ActivationsCommand {
    pub fn name(&self) -> &'static str {
        match self {
            ActivationsCommand::List(_) => "list",
            ActivationsCommand::Create(_) => "create",
            ActivationsCommand::AddPark(_) => "add-park",
            ActivationsCommand::End(_) => "end",
            ActivationsCommand::Export(_) => "export",
        }
    }
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only activations that have not ended
    #[arg(long)]
    in_progress: bool,
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The park reference, e.g. US-1234; a two-fer names its parks, US-1234,US-5678
    #[arg(long, value_parser = input::reference, value_name = "REF")]
    reference: String,
    /// The activator's callsign
    #[arg(long, value_parser = input::callsign, value_name = "CALL")]
    callsign: String,
    /// The program; only pota supports activations
    #[arg(long, default_value = "pota", value_parser = input::text, value_name = "ID")]
    program: String,
    /// A label for the place, e.g. "Test Park"
    #[arg(long, value_parser = input::text, value_name = "NAME")]
    location_name: Option<String>,
    /// Start, ISO 8601 with offset [default: now]
    #[arg(long, value_parser = input::time, value_name = "ISO")]
    start_time: Option<String>,
    /// Use this Idempotency-Key for the request and its retries: running the command again
    /// with the same key answers the first request again
    #[arg(long, value_parser = input::idempotency_key, value_name = "KEY")]
    idempotency_key: Option<String>,
}

#[derive(Debug, Args)]
pub struct AddParkArgs {
    /// The activation's folder id (fld_…)
    #[arg(value_parser = input::folder_id)]
    id: String,
    /// The park to add, e.g. US-5678, or several: US-5678,US-9012
    #[arg(value_parser = input::reference, value_name = "REF")]
    reference: String,
}

#[derive(Debug, Args)]
pub struct EndArgs {
    /// The activation's folder id (fld_…)
    #[arg(value_parser = input::folder_id)]
    id: String,
    /// End, ISO 8601 with offset [default: now]
    #[arg(long, value_parser = input::time, value_name = "ISO")]
    end_time: Option<String>,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The activation's folder id (fld_…)
    #[arg(value_parser = input::folder_id)]
    id: String,
    /// The directory the file goes into
    #[arg(long, value_name = "DIR", default_value = ".")]
    dir: PathBuf,
}

pub fn run(ctx: &Ctx, command: ActivationsCommand) -> Result<(), CliError> {
    match command {
        ActivationsCommand::List(args) => list(ctx, args),
        ActivationsCommand::Create(args) => create(ctx, args),
        ActivationsCommand::AddPark(args) => add_park(ctx, args),
        ActivationsCommand::End(args) => end(ctx, args),
        ActivationsCommand::Export(args) => export(ctx, args),
    }
}

fn list(ctx: &Ctx, args: ListArgs) -> Result<(), CliError> {
    let client = ctx.client()?;
    // With --in-progress a page may be empty and still have a cursor: read them all first.
    let items = ctx.block_on(async { Ok(client.all_activations(args.in_progress).await?) })?;
    let what = if args.in_progress {
        "in progress"
    } else {
        "in all"
    };
    ctx.info(&format!(
        "{} activation{} {what}",
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
                None => Cell::green("in progress"),
            };
            vec![
                Cell::from(f.id.as_str()),
                Cell::from(output::or_dash(&f.location_reference)),
                Cell::from(f.start_time.map_or_else(|| "-".into(), output::time)),
                end,
                Cell::from(f.contact_count.to_string()),
                Cell::from(f.name.as_str()),
            ]
        })
        .collect();
    output::table(
        &["ID", "REFERENCE", "START", "END", "CONTACTS", "NAME"],
        rows,
        ctx.color,
    )
}

fn create(ctx: &Ctx, args: CreateArgs) -> Result<(), CliError> {
    let request = NewActivationRequest {
        location_reference: args.reference,
        callsign: args.callsign,
        program_id: Some(args.program),
        location_name: args.location_name,
        start_time: args.start_time,
    };
    let client = ctx.client()?;
    let created = ctx.block_on(async {
        Ok(match &args.idempotency_key {
            Some(key) => client.create_activation_keyed(&request, key).await?,
            None => client.create_activation(&request).await?,
        })
    })?;
    print_created(ctx, "activation", &created)
}

fn add_park(ctx: &Ctx, args: AddParkArgs) -> Result<(), CliError> {
    let client = ctx.client()?;
    let folder = ctx.block_on(async { Ok(client.add_parks(&args.id, &args.reference).await?) })?;
    match ctx.format {
        Format::Json => ctx.print_json(&folder),
        _ if ctx.quiet => ctx.say(&format!("{}\n", folder.id)),
        _ => ctx.say(&format!(
            "activation {} ({}) is at {}: each of its {} contacts counts for every park\n",
            folder.name,
            folder.id,
            folder.location_reference.as_deref().unwrap_or_default(),
            folder.contact_count
        )),
    }
}

fn end(ctx: &Ctx, args: EndArgs) -> Result<(), CliError> {
    let client = ctx.client()?;
    let folder = ctx.block_on(async {
        Ok(client
            .end_activation(&args.id, args.end_time.as_deref())
            .await?)
    })?;
    match ctx.format {
        Format::Json => ctx.print_json(&folder),
        _ if ctx.quiet => ctx.say(&format!("{}\n", folder.id)),
        _ => {
            let at = folder.end_time.map_or_else(|| "-".into(), output::time);
            ctx.say(&format!(
                "ended activation {} ({}) at {at}\n",
                folder.name, folder.id
            ))
        }
    }
}

fn export(ctx: &Ctx, args: ExportArgs) -> Result<(), CliError> {
    if !args.dir.is_dir() {
        return Err(CliError::input(format!(
            "--dir {} is not a directory; give an existing directory",
            args.dir.display()
        )));
    }
    let client = ctx.client()?;
    let exported = ctx.block_on(async {
        let folder = client
            .all_folders(None)
            .await?
            .into_iter()
            .find(|f| f.id == args.id)
            .ok_or_else(|| {
                CliError::not_found(format!(
                    "activation {} not found; svc activations list shows the account's activations",
                    args.id
                ))
            })?;
        // The activation names its activator; the account is the fallback of a damaged one.
        let me = match &folder.callsign {
            Some(call) => call.clone(),
            None => client.whoami().await?.callsign,
        };
        // The parks' names for the files' headers, from the park cache alone: an export
        // waits for no network it does not need.
        let names = match &folder.location_reference {
            Some(references) => svc_pota::cached_names(references).await,
            None => Default::default(),
        };
        Ok(export::activation_file(&client, &folder, &me, &names, &args.dir).await?)
    })?;
    // A two-fer has one file per park; each path on a line of its own.
    let paths: Vec<_> = if exported.files.is_empty() {
        exported.path.iter().cloned().collect()
    } else {
        exported.files.iter().map(|f| f.path.clone()).collect()
    };
    match ctx.format {
        Format::Json => ctx.print_json(&exported),
        _ => {
            ctx.info(&format!(
                "{} contacts, {} records for POTA",
                exported.contacts, exported.records
            ));
            let lines: String = paths.iter().map(|p| format!("{}\n", p.display())).collect();
            ctx.say(&lines)
        }
    }
}
