//! `svc folders list|show|create`.

use clap::{Args, Subcommand, ValueEnum};

use super::output::{self, Cell, Format};
use super::{CliError, Ctx, input};
use svc_client::{FolderCreated, NewFolderRequest};
use svc_model::{Folder, FolderType, Page};

#[derive(Debug, Subcommand)]
pub enum FoldersCommand {
    /// List the account's folders (every page)
    List(ListArgs),
    /// Show one folder's metadata
    Show(ShowArgs),
    /// Find or create a monthly folder, or create a category
    Create(CreateArgs),
}

impl FoldersCommand {
    pub fn name(&self) -> &'static str {
        match self {
            FoldersCommand::List(_) => "list",
            FoldersCommand::Show(_) => "show",
            FoldersCommand::Create(_) => "create",
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum TypeArg {
    Activation,
    Category,
    Monthly,
}

impl From<TypeArg> for FolderType {
    fn from(t: TypeArg) -> FolderType {
        match t {
            TypeArg::Activation => FolderType::Activation,
            TypeArg::Category => FolderType::Category,
            TypeArg::Monthly => FolderType::Monthly,
        }
    }
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only folders of this type
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    folder_type: Option<TypeArg>,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The folder's id (fld_…)
    #[arg(value_parser = input::folder_id)]
    id: String,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum NewTypeArg {
    Monthly,
    Category,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ProgramArg {
    Pota,
    Dx,
    Repeaters,
}

impl ProgramArg {
    fn id(self) -> &'static str {
        match self {
            ProgramArg::Pota => "pota",
            ProgramArg::Dx => "dx",
            ProgramArg::Repeaters => "repeaters",
        }
    }
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// What to make: a monthly log (found if it exists) or a category
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    folder_type: NewTypeArg,
    /// Monthly: the UTC month, YYYY-MM
    #[arg(long, value_parser = input::month, value_name = "YYYY-MM")]
    month: Option<String>,
    /// Monthly: the program whose hunting log this is (none: a custom monthly log)
    #[arg(long, value_enum)]
    program: Option<ProgramArg>,
    /// Category: its name
    #[arg(long, value_parser = input::text)]
    name: Option<String>,
    /// Category: the parent category's id (default: All Contacts)
    #[arg(long, value_parser = input::folder_id, value_name = "ID")]
    parent: Option<String>,
}

pub fn run(ctx: &Ctx, command: FoldersCommand) -> Result<(), CliError> {
    match command {
        FoldersCommand::List(args) => list(ctx, args),
        FoldersCommand::Show(args) => show(ctx, args),
        FoldersCommand::Create(args) => create(ctx, args),
    }
}

fn list(ctx: &Ctx, args: ListArgs) -> Result<(), CliError> {
    let client = ctx.client()?;
    let folder_type = args.folder_type.map(FolderType::from);
    let items = ctx.block_on(async { Ok(client.all_folders(folder_type).await?) })?;
    if items.is_empty() {
        ctx.info("no folders");
    }
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
            vec![
                Cell::from(f.id.as_str()),
                Cell::from(f.folder_type.as_str()),
                Cell::from(output::or_dash(&f.program_id)),
                Cell::from(f.contact_count.to_string()),
                Cell::from(f.name.as_str()),
            ]
        })
        .collect();
    output::table(
        &["ID", "TYPE", "PROGRAM", "CONTACTS", "NAME"],
        rows,
        ctx.color,
    )
}

fn show(ctx: &Ctx, args: ShowArgs) -> Result<(), CliError> {
    let client = ctx.client()?;
    let folders = ctx.block_on(async { Ok(client.all_folders(None).await?) })?;
    let folder = folders
        .into_iter()
        .find(|f| f.id == args.id)
        .ok_or_else(|| {
            CliError::not_found(format!(
                "folder {} not found; svc folders list shows the account's folders",
                args.id
            ))
        })?;
    match ctx.format {
        Format::Json => ctx.print_json(&folder),
        _ => ctx.out(&details(&folder)),
    }
}

/// Every field of a folder that applies, one per line.
pub fn details(f: &Folder) -> String {
    let mut pairs = vec![
        ("ID", f.id.clone()),
        ("Name", f.name.clone()),
        ("Type", f.folder_type.as_str().to_owned()),
    ];
    let optional = [
        ("Parent", &f.parent_id),
        ("Program", &f.program_id),
        ("Month", &f.month),
        ("Reference", &f.location_reference),
        ("Location", &f.location_name),
        ("Callsign", &f.callsign),
    ];
    for (label, value) in optional {
        if let Some(v) = value {
            pairs.push((label, v.clone()));
        }
    }
    if let Some(start) = f.start_time {
        pairs.push(("Start", output::time(start)));
        pairs.push((
            "End",
            f.end_time
                .map_or_else(|| "in progress".to_owned(), output::time),
        ));
    }
    pairs.push(("Contacts", f.contact_count.to_string()));
    pairs.push(("Created", output::time(f.created_at)));
    output::fields(&pairs)
}

fn create(ctx: &Ctx, args: CreateArgs) -> Result<(), CliError> {
    let request = match args.folder_type {
        NewTypeArg::Monthly => {
            if args.name.is_some() || args.parent.is_some() {
                return Err(CliError::input(
                    "--name and --parent are for --type category; a monthly folder takes --month and --program",
                ));
            }
            let month = args.month.ok_or_else(|| {
                CliError::input("--type monthly needs --month YYYY-MM, e.g. --month 2026-11")
            })?;
            NewFolderRequest::Monthly {
                month,
                program_id: args.program.map(|p| p.id().to_owned()),
            }
        }
        NewTypeArg::Category => {
            if args.month.is_some() || args.program.is_some() {
                return Err(CliError::input(
                    "--month and --program are for --type monthly; a category takes --name and --parent",
                ));
            }
            let name = args.name.ok_or_else(|| {
                CliError::input("--type category needs --name, e.g. --name \"Field day\"")
            })?;
            NewFolderRequest::Category {
                name,
                parent_id: args.parent,
            }
        }
    };
    let client = ctx.client()?;
    let created = ctx.block_on(async { Ok(client.create_folder(&request).await?) })?;
    print_created(ctx, "folder", &created)
}

/// The answer of a find-or-create: the record in JSON, one line for people.
pub fn print_created(ctx: &Ctx, noun: &str, created: &FolderCreated) -> Result<(), CliError> {
    let f = &created.folder;
    match ctx.format {
        Format::Json => ctx.print_json(created),
        _ if ctx.quiet => ctx.say(&format!("{}\n", f.id)),
        _ => {
            let verb = if created.created {
                "created"
            } else {
                "found existing"
            };
            ctx.say(&format!("{verb} {noun} {} ({})\n", f.name, f.id))
        }
    }
}
