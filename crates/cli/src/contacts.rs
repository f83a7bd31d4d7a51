//! `svc contacts list|create|edit|delete`.

use std::io::IsTerminal;

use clap::{Args, Subcommand};

use super::fields::{self, FieldFlags, SeedFlags};
use super::output::{self, Cell, Format};
use super::{CliError, Ctx, input};
use svc_client::ClientError;
use svc_model::fields::FIELDS;
use svc_model::seed;
use svc_model::{Contact, Timestamp, text};
use svc_model::{ContactInput, ContactPatch};

// Parsed once per run, so the size of a variant costs nothing; `Edit` is boxed only so that
// `ClientCommand`, which holds this enum inline, stays within clippy's bound.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum ContactsCommand {
    /// List a folder's contacts, newest first (one page)
    List(ListArgs),
    /// Log a contact
    Create(CreateArgs),
    /// Correct a logged contact: change the fields given, clear those named by --clear (needs
    /// an elevated key)
    Edit(Box<EditArgs>),
    /// Delete a contact (needs an elevated key)
    Delete(DeleteArgs),
}

impl ContactsCommand {
    pub fn name(&self) -> &'static str {
        match self {
            ContactsCommand::List(_) => "list",
            ContactsCommand::Create(_) => "create",
            ContactsCommand::Edit(_) => "edit",
            ContactsCommand::Delete(_) => "delete",
        }
    }
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// The folder's id (fld_…)
    #[arg(long, value_parser = input::folder_id, value_name = "ID")]
    folder: String,
    /// Contacts per page, 1 to 200 [server default: 50]
    #[arg(long, value_parser = input::limit, value_name = "N")]
    limit: Option<u32>,
    /// Continue after a previous page (its cursor)
    #[arg(long, value_name = "CURSOR")]
    cursor: Option<String>,
}

/// The optional fields of a contact, the same flags for create and edit: the seed's and the
/// common declared ones, each from its table in the model.
#[derive(Debug, Args)]
pub struct OptionalFields {
    #[command(flatten)]
    seed: SeedFlags,
    #[command(flatten)]
    declared: FieldFlags,
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    #[arg(long, help = seed::FOLDER_ID.help, value_parser = input::folder_id, value_name = seed::FOLDER_ID.placeholder)]
    folder: String,
    #[arg(long, help = seed::CALLSIGN.help, value_parser = input::callsign, value_name = seed::CALLSIGN.placeholder)]
    callsign: String,
    #[arg(long, help = seed::FREQUENCY.help, value_parser = input::frequency, value_name = seed::FREQUENCY.placeholder, allow_negative_numbers = true)]
    frequency: f64,
    #[arg(long, help = seed::MODE.help, value_parser = input::text, value_name = seed::MODE.placeholder)]
    mode: String,
    #[arg(long, help = seed::TIME_ON.help, value_parser = input::time, value_name = seed::TIME_ON.placeholder)]
    time_on: Option<String>,
    #[command(flatten)]
    fields: OptionalFields,
    /// In a contest log: the exchange received, as contesters type it (2A CT for Field Day, 14 or 579 14 for CQ WW, whose report may be left out, 12 B 69 IL for Sweepstakes), read by the log's contest into its fields (class, arrlSect, cqz, srx, …) and srxString; the log is read for its contest, so not with --queue
    #[arg(long, value_name = "TEXT", value_parser = input::text, conflicts_with = "queue")]
    exchange: Option<String>,
    /// Only put it in the outbox (no network when this key was used here before) and return
    /// at once with the entry id; svc outbox push sends it
    #[arg(long)]
    queue: bool,
    /// Use this Idempotency-Key for the request and its retries: running the command again
    /// with the same key (after a lost answer, exit 7) answers the first create instead of
    /// storing the contact twice. The outbox keys what --queue holds itself
    #[arg(long, value_parser = input::idempotency_key, value_name = "KEY", conflicts_with = "queue")]
    idempotency_key: Option<String>,
}

#[derive(Debug, Args)]
pub struct EditArgs {
    /// The contact's id (qso_…)
    #[arg(value_parser = input::contact_id)]
    id: String,
    #[arg(long, help = seed::CALLSIGN.help, value_parser = input::callsign, value_name = seed::CALLSIGN.placeholder)]
    callsign: Option<String>,
    #[arg(long, help = seed::FREQUENCY.help, value_parser = input::frequency, value_name = seed::FREQUENCY.placeholder, allow_negative_numbers = true)]
    frequency: Option<f64>,
    #[arg(long, help = seed::MODE.help, value_parser = input::text, value_name = seed::MODE.placeholder)]
    mode: Option<String>,
    /// Start of the contact, ISO 8601 with offset (a monthly folder's contacts stay in its month)
    #[arg(long, value_parser = input::time, value_name = "ISO")]
    time_on: Option<String>,
    #[command(flatten)]
    fields: OptionalFields,
    /// Clear an optional field, named as its flag (e.g. notes, grid); repeat it for several
    #[arg(long, value_name = "FIELD", value_parser = clap::builder::PossibleValuesParser::new(fields::clearable()))]
    clear: Vec<String>,
}

#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// The contact's id (qso_…)
    #[arg(value_parser = input::contact_id)]
    id: String,
    /// Delete without asking (needed when stdin is not a terminal)
    #[arg(short, long)]
    yes: bool,
    /// Use this Idempotency-Key for the request and its retries, so that running the command
    /// again with the same key answers the first delete instead of "not found"
    #[arg(long, value_parser = input::idempotency_key, value_name = "KEY")]
    idempotency_key: Option<String>,
}

pub fn run(ctx: &Ctx, command: ContactsCommand) -> Result<(), CliError> {
    match command {
        ContactsCommand::List(args) => list(ctx, args),
        ContactsCommand::Create(args) => create(ctx, args),
        ContactsCommand::Edit(args) => edit(ctx, *args),
        ContactsCommand::Delete(args) => delete(ctx, args),
    }
}

fn list(ctx: &Ctx, args: ListArgs) -> Result<(), CliError> {
    let client = ctx.client()?;
    let page = ctx.block_on(async {
        Ok(client
            .contacts(&args.folder, args.limit, args.cursor.as_deref())
            .await?)
    })?;
    if page.items.is_empty() {
        ctx.info("no contacts");
    }
    // JSON carries the cursor itself; text and NDJSON name it on stderr.
    if let Some(cursor) = &page.cursor
        && ctx.format != Format::Json
        && !ctx.quiet
    {
        super::eprintln_safe(&format!(
            "svc: more contacts follow: add --cursor {cursor} for the next page"
        ));
    }
    ctx.print_list(&page, |items| table(ctx, items))
}

/// `-` for a contact with no confirmation.
fn or_dash_text(marks: String) -> String {
    if marks.is_empty() { "-".into() } else { marks }
}

fn table(ctx: &Ctx, items: &[Contact]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let rows = items
        .iter()
        .map(|c| {
            vec![
                Cell::from(output::time(c.time_on)),
                Cell::from(c.callsign.as_str()),
                Cell::from(c.frequency.to_string()),
                Cell::from(c.band.as_str()),
                Cell::from(c.mode.as_str()),
                Cell::from(output::or_dash(&c.rst_sent)),
                Cell::from(output::or_dash(&c.rst_received)),
                Cell::from(or_dash_text(svc_model::confirm::marks(&c.fields))),
                Cell::from(c.id.as_str()),
            ]
        })
        .collect();
    output::table(
        &[
            "TIME ON", "CALLSIGN", "MHZ", "BAND", "MODE", "SENT", "RCVD", "QSL", "ID",
        ],
        rows,
        ctx.color,
    )
}

/// Checked before sending, since notes far over the limit would make the request too large for
/// the service to say which field is wrong.
fn check_notes(notes: &str) -> Result<(), CliError> {
    text::multi_line(seed::NOTES.wire, notes, seed::NOTES.max)
        .map(|_| ())
        .map_err(|e| CliError::input(format!("--notes: {}", e.message)))
}

fn create(ctx: &Ctx, args: CreateArgs) -> Result<(), CliError> {
    let mut request = ContactInput {
        folder_id: args.folder,
        callsign: args.callsign,
        frequency: args.frequency,
        mode: args.mode,
        time_on: args.time_on.unwrap_or_else(|| Timestamp::now().to_string()),
        ..ContactInput::default()
    };
    for (seed, value) in args.fields.seed.0 {
        if let Some(slot) = request.text_mut(&seed) {
            *slot = Some(value);
        }
    }
    for (field, value) in args.fields.declared.0 {
        request.fields.set(field, Some(value));
    }
    if let Some(notes) = &request.notes {
        check_notes(notes)?;
    }
    if args.queue {
        return queue(ctx, request);
    }
    let client = ctx.client()?;
    let created = ctx.block_on(async {
        if let Some(typed) = &args.exchange {
            put_exchange(&client, typed, &mut request).await?;
        }
        Ok(match &args.idempotency_key {
            Some(key) => client.create_contact_keyed(&request, key).await?,
            None => client.create_contact(&request).await?,
        })
    })?;
    if let Some(first) = &created.duplicate_of
        && ctx.format == Format::Text
    {
        ctx.warn(&format!(
            "{} duplicates {first} in this folder (same callsign, band, mode, program and UTC day); it was stored all the same: delete one with svc contacts delete if it is a mistake",
            created.id
        ));
    }
    match ctx.format {
        Format::Json => ctx.print_json(&created),
        _ if ctx.quiet => ctx.say(&format!("{}\n", created.id)),
        _ => ctx.say(&format!("created contact {}\n", created.id)),
    }
}

/// `--exchange`: the received exchange read by the contest of the log the contact goes to.
async fn put_exchange(
    client: &svc_client::Client,
    typed: &str,
    request: &mut ContactInput,
) -> Result<(), CliError> {
    let Some(contest) = client.contest_of(&request.folder_id).await? else {
        return Err(CliError::not_found(format!(
            "--exchange is for a contact of a contest log, and {} is no contest log of yours (or of a contest this svc does not know); drop --exchange, or log into the contest log (svc contest list)",
            request.folder_id
        )));
    };
    svc_model::received::put_received(contest, typed, request)
        .map_err(|e| CliError::input(format!("--exchange: {}", e.message)))
}

/// `contacts create --queue`: the contact is committed to the outbox, time and all, and
/// nothing is sent.
fn queue(ctx: &Ctx, request: ContactInput) -> Result<(), CliError> {
    let base = ctx.api_base()?;
    let key = ctx.key()?;
    let entry = ctx.block_on(async {
        let (journal, _) = super::outbox::open(ctx, base, &key.key).await?;
        Ok(journal.log_contact(request).await?)
    })?;
    match ctx.format {
        Format::Json => ctx.print_json(&serde_json::json!({
            "id": entry.id,
            "state": entry.state,
        })),
        _ if ctx.quiet => ctx.say(&format!("{}\n", entry.id)),
        _ => ctx.say(&format!(
            "queued contact {} (svc outbox push sends it)\n",
            entry.id
        )),
    }
}

/// One optional field of an edit: set to the flag's value, cleared by `--clear`, or left as it
/// is; both at once contradict each other.
fn change(
    value: Option<String>,
    clear: &[String],
    flag: &str,
) -> Result<Option<Option<String>>, CliError> {
    match (value, clear.iter().any(|c| c == flag)) {
        (Some(_), true) => Err(CliError::input(format!(
            "--{flag} and --clear {flag} contradict each other; give one of them"
        ))),
        (Some(v), false) => Ok(Some(Some(v))),
        (None, true) => Ok(Some(None)),
        (None, false) => Ok(None),
    }
}

fn edit(ctx: &Ctx, args: EditArgs) -> Result<(), CliError> {
    let clear = &args.clear;
    let f = args.fields;
    let mut request = ContactPatch {
        callsign: args.callsign,
        frequency: args.frequency,
        mode: args.mode,
        time_on: args.time_on,
        ..ContactPatch::default()
    };
    for seed in seed::optional_given() {
        let given = f.seed.get(seed).map(str::to_owned);
        if let Some(slot) = request.text_mut(seed) {
            *slot = change(given, clear, seed.flag)?;
        }
    }
    for def in FIELDS.iter().filter(|d| d.common) {
        let given = f.declared.get(def.field).map(str::to_owned);
        if let Some(value) = change(given, clear, def.flag)? {
            request.fields.values.insert(def.field, value);
        }
    }
    if request.is_empty() {
        return Err(CliError::input(
            "nothing to change: give the fields to correct (--callsign, --frequency, --mode, --time-on, --notes, --grid, … as svc contacts edit --help lists them) or --clear FIELD",
        ));
    }
    if let Some(Some(notes)) = &request.notes {
        check_notes(notes)?;
    }
    let client = ctx.client()?;
    let edited = ctx.block_on(async { Ok(client.edit_contact(&args.id, &request).await?) })?;
    let contact = &edited.contact;
    if let Some(first) = &contact.duplicate_of
        && ctx.format == Format::Text
    {
        ctx.warn(&format!(
            "{} now duplicates {first} in this folder (same callsign, band, mode, program and UTC day); the edit was stored all the same",
            contact.id
        ));
    }
    match ctx.format {
        Format::Json => ctx.print_json(&edited),
        _ if ctx.quiet => ctx.say(&format!("{}\n", contact.id)),
        _ => ctx.say(&format!("edited contact {}\n", contact.id)),
    }
}

fn delete(ctx: &Ctx, args: DeleteArgs) -> Result<(), CliError> {
    if !args.yes && !std::io::stdin().is_terminal() {
        return Err(CliError::input(format!(
            "refusing to delete {} without confirmation: stdin is not a terminal; add --yes to delete it",
            args.id
        )));
    }
    let client = ctx.client()?;
    if !args.yes && !super::input::confirm(&format!("Delete contact {}? [y/N] ", args.id))? {
        return Err(CliError::new(
            "cancelled",
            1,
            format!("{} was not deleted", args.id),
        ));
    }
    let deleted = ctx.block_on(async {
        let result = match &args.idempotency_key {
            Some(key) => client.delete_contact_keyed(&args.id, key).await,
            None => client.delete_contact(&args.id).await,
        };
        result.map_err(|e| {
            let unanswered = matches!(e, ClientError::Transport { .. });
            let mut err = CliError::from(e);
            if unanswered && args.idempotency_key.is_some() {
                err.message.push_str(
                    "; run the same command again with the same --idempotency-key: the service answers a delete it already made",
                );
            } else if unanswered {
                // Not retried, so the user must look before asking again.
                err.message.push_str(&format!(
                    "; {} may have been deleted all the same: look with svc contacts list before trying again",
                    args.id
                ));
            }
            err
        })
    })?;
    match ctx.format {
        Format::Json => ctx.print_json(&deleted),
        _ if ctx.quiet => ctx.say(&format!("{}\n", deleted.id)),
        _ => ctx.say(&format!("deleted contact {}\n", deleted.id)),
    }
}
