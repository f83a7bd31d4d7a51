//! `svc import adif`: another logger's ADIF (ADI or ADX) into the account, through
//! `POST /v1/contacts/batch` marked as an import (docs/ADIF-AND-POTA.md, "ADIF").
//!
//! The file is read as a stream and sent 500 records at a time, so memory stays flat however
//! long the log is. Each record's idempotency key derives from its content and its folder:
//! importing the same file again stores nothing new, and an import cut short is finished by
//! running it again.
//!
//! With `--auto`, the files are read once before they are sent, for the parks each activator's
//! QSO was read with: POTA takes a two-fer as one file per park, each with every QSO, and the
//! QSOs of those files, imported together, go once into one activation of all their parks
//! ([`TwoFers`]); imported one at a time, into the activation the first made, which the second
//! gives its park ([`stored`]).

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufReader, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use clap::{Args, Subcommand};
use serde::Serialize;

mod stored;

use super::{Answer, CliError, Ctx, Format, input};
use svc_adif::contact::{Imported, idempotency_key, imported, qso_key};
use svc_adif::{ReadError, Reader};
use svc_client::contests::NewContestRequest;
use svc_client::{
    BatchItem, BatchResult, Client, ClientError, NewActivationRequest, NewFolderRequest,
};
use svc_model::contest::Contest;
use svc_model::filing::{Place, TwoFers};
use svc_model::{ContactInput, ErrorCode, Field, Timestamp};

/// Items per batch: the most `POST /v1/contacts/batch` takes.
const BATCH: usize = 500;
/// Refusals kept to show; past these only their number grows, so memory stays flat.
const SHOWN_REFUSALS: usize = 1000;

#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// Read an ADIF file (ADI or ADX) from another logger into the account
    Adif(AdifArgs),
}

impl ImportCommand {
    pub fn name(&self) -> &'static str {
        match self {
            ImportCommand::Adif(_) => "adif",
        }
    }
}

#[derive(Debug, Args)]
pub struct AdifArgs {
    /// The ADIF files: .adi or .adx, from any logger (a two-fer's files, one per park, together)
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// Put every contact into this folder (fld_…)
    #[arg(long, value_parser = input::folder_id, value_name = "ID", conflicts_with = "auto")]
    folder: Option<String>,
    /// File each contact where an operator would: POTA activations by park and UTC day, the
    /// rest into the monthly log of their UTC month (a program's hunting log when SIG names it)
    #[arg(long)]
    auto: bool,
    /// Read and check the whole file and show where each contact would go; send nothing
    #[arg(long)]
    dry_run: bool,
}

pub fn run(ctx: &Ctx, command: ImportCommand) -> Result<(), CliError> {
    match command {
        ImportCommand::Adif(args) => adif(ctx, args),
    }
}

/// A record that did not go in, and why.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct Refusal {
    /// The file of the record, when the import read several.
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    record: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    callsign: Option<String>,
    error: String,
    message: String,
    #[serde(skip)]
    exit: u8,
}

/// A field of an imported record that was dropped or repaired as it was read.
#[derive(Debug, Clone, Serialize)]
struct FieldNote {
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    record: u64,
    field: String,
    message: String,
}

/// The summary of an import, as `--json` prints it.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct Summary {
    /// The file read; the files, joined by ", ", when there were several.
    file: String,
    dry_run: bool,
    records: u64,
    imported: u64,
    already_there: u64,
    refused_count: u64,
    refused: Vec<Refusal>,
    /// Fields of imported records that the reader could not read as written (a length that
    /// fits nothing): each names its record, the field and what was done.
    field_problem_count: u64,
    field_problems: Vec<FieldNote>,
    /// Fields that could not be kept at all, by name: how many records carried each.
    not_kept: BTreeMap<String, u64>,
    /// Fields svc names whose value is not in svc's form (a GRIDSQUARE of 10 characters, a
    /// COMMENT of several lines), kept as read and written back so, by name.
    kept_as_read: BTreeMap<String, u64>,
    /// What was made of records that did not say it as ADIF does ("TIME_ON taken from
    /// TIME_OFF"), by what: how many records.
    changed: BTreeMap<String, u64>,
    /// Of `already_there`, the records whose contact was there with other details (the same
    /// contact from another logger): the stored one was kept as it was.
    kept_first: u64,
    /// Records with BAND and no FREQ: stored at the band's lower edge.
    band_only: u64,
    /// Records of a QSO read from several parks' files (a two-fer's, one per park): filed into
    /// one activation of all its parks, each QSO once.
    two_fer: u64,
    /// Stored activations given the parks of the import's QSOs, which they held at other
    /// parks (a two-fer's files imported one at a time).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    parks_added: Vec<stored::ParksAdded>,
    /// Where the contacts went (or would go, in a dry run), by folder.
    folders: BTreeMap<String, u64>,
    /// Why the import stopped before the end of the file, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<String>,
}

impl Summary {
    fn field_problem(
        &mut self,
        file: Option<String>,
        record: u64,
        problem: &svc_adif::FieldProblem,
    ) {
        self.field_problem_count += 1;
        if self.field_problems.len() < SHOWN_REFUSALS {
            self.field_problems.push(FieldNote {
                file,
                record,
                field: problem.field.clone(),
                message: problem.message.clone(),
            });
        }
    }

    fn refuse(&mut self, refusal: Refusal) {
        self.refused_count += 1;
        if self.refused.len() < SHOWN_REFUSALS {
            self.refused.push(refusal);
        }
    }
}

/// A record on its way: its place in the file, what it became, and its folder.
struct Pending {
    file: Option<String>,
    record: u64,
    item: BatchItem,
    folder: String,
}

/// Counts the bytes read, for the progress bar.
struct Counting<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

fn adif(ctx: &Ctx, args: AdifArgs) -> Result<(), CliError> {
    if args.folder.is_none() && !args.auto && !args.dry_run {
        return Err(CliError::input(
            "say where the contacts go: --folder <id> puts them all into one folder, --auto files each where an operator would (activations by park and day, monthly logs by month)",
        ));
    }
    // Every file is opened before anything is sent, so that a missing one stops the import
    // before it begins; the bar counts the bytes of them all.
    let read = Arc::new(AtomicU64::new(0));
    let mut readers = Vec::with_capacity(args.files.len());
    let mut size = 0;
    for path in &args.files {
        let (reader, bytes) = open(path, read.clone())?;
        size += bytes;
        readers.push((path.display().to_string(), reader));
    }
    let several = readers.len() > 1;
    let two_fers = match &args.folder {
        None => two_fers(&args.files)?,
        Some(_) => TwoFers::default(),
    };
    let bar = progress(ctx, size);
    let client = if args.dry_run {
        None
    } else {
        Some(Arc::new(
            ctx.client()?.with_observer(waits(ctx, bar.clone())),
        ))
    };
    let mut summary = Summary {
        file: readers
            .iter()
            .map(|(name, _)| name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        dry_run: args.dry_run,
        ..Summary::default()
    };
    let result = ctx.block_on_with_workers(async {
        let account = match &client {
            Some(c) => Some(c.whoami().await?.callsign),
            None => None,
        };
        // A dry run asks the service nothing, so it files as the rule says alone.
        let meetings = match (&client, &account, &args.folder) {
            (Some(client), Some(account), None) => {
                stored::meet(client, &two_fers.activations(account)).await?
            }
            _ => stored::Meetings::default(),
        };
        let mut importer = Importer {
            client: client.clone(),
            in_flight: None,
            account,
            folder: args.folder.clone(),
            places: HashMap::new(),
            no_log: Default::default(),
            two_fers,
            met: meetings.met,
            file: None,
            pending: Vec::with_capacity(BATCH),
            summary: &mut summary,
        };
        importer.summary.parks_added = meetings.added;
        for (name, reader) in readers {
            importer.file = several.then_some(name);
            let outcome = importer.run(reader, || {
                if let Some(bar) = &bar {
                    bar.set_position(read.load(Ordering::Relaxed));
                }
            });
            outcome.await?;
        }
        Ok(())
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let stopped = result.err();
    if let Some(e) = &stopped {
        summary.stopped = Some(e.message.clone());
    }
    print_summary(ctx, &summary)?;
    if let Some(e) = stopped {
        return Err(e);
    }
    match summary.refused.first() {
        None => Ok(()),
        Some(first) => Err(CliError::new(
            first.error.clone(),
            first.exit,
            format!(
                "{} of {} records were not imported; the first: record {}: {}",
                summary.refused_count, summary.records, first.record, first.message
            ),
        )),
    }
}

type FileReader = Reader<BufReader<Counting<File>>>;

/// The file as a stream of records, which adds the bytes it reads to `read`, and its size.
fn open(path: &Path, read: Arc<AtomicU64>) -> Result<(FileReader, u64), CliError> {
    let file = File::open(path)
        .map_err(|e| CliError::input(format!("cannot read {}: {e}", path.display())))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let counting = Counting { inner: file, read };
    let reader = Reader::new(BufReader::with_capacity(64 * 1024, counting))
        .map_err(|e| CliError::input(format!("{}: {e}", path.display())))?;
    Ok((reader, size))
}

/// The parks each activator's QSO is read with over all the files ([`TwoFers`]), from a first
/// reading of them before anything is filed: a two-fer's QSOs are in one file per park. A
/// record that cannot be read is left to the import, which says why.
fn two_fers(files: &[PathBuf]) -> Result<TwoFers, CliError> {
    let mut two = TwoFers::default();
    for path in files {
        let (reader, _) = open(path, Arc::default())?;
        for record in reader.flatten() {
            // Only an activator's record names its park; the others need no closer reading.
            if record.get("MY_SIG").is_none() && record.get("MY_POTA_REF").is_none() {
                continue;
            }
            if let Ok(c) = imported(&record) {
                let qso = c.contact.pending("", Timestamp(0)).qso();
                two.note(qso_key(&c), &c.contact.filed(), qso);
            }
        }
    }
    Ok(two)
}

/// Says when the import waits for the service (a limit with its Retry-After, a failure tried
/// again) and why: in the progress bar, else as a note on stderr, so a long import never
/// seems stuck. `--verbose` still logs every attempt.
fn waits(ctx: &Ctx, bar: Option<indicatif::ProgressBar>) -> svc_client::Observer {
    let verbose = ctx.verbose;
    let notes = ctx.format == Format::Text && !ctx.quiet;
    Box::new(move |attempt| {
        if verbose {
            super::log_attempt(attempt);
        }
        let waiting = attempt
            .retry
            .as_ref()
            .map(|(wait, why)| format!("waiting {:.0} s: {why}", wait.as_secs_f64().ceil()));
        match (&bar, waiting) {
            (Some(bar), waiting) => bar.set_message(waiting.unwrap_or_default()),
            (None, Some(waiting)) if notes && !verbose => {
                super::eprintln_safe(&format!("svc: {waiting}"));
            }
            (None, _) => {}
        }
    })
}

/// A progress bar on stderr for people: not with --json, --quiet or a stderr that is not a
/// terminal, and not for small files, which are done before it would show.
fn progress(ctx: &Ctx, size: u64) -> Option<indicatif::ProgressBar> {
    if ctx.format != Format::Text || ctx.quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    if size < 256 * 1024 {
        return None;
    }
    let bar = indicatif::ProgressBar::new(size);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} importing {bytes}/{total_bytes} [{bar:30}] {eta} left {msg}",
        )
        .ok()?
        .progress_chars("=> "),
    );
    Some(bar)
}

struct Importer<'a> {
    /// None in a dry run: nothing is sent.
    client: Option<Arc<Client>>,
    /// The batch the service stores while the next one is read, and its answer to come.
    in_flight: Option<InFlight>,
    account: Option<String>,
    folder: Option<String>,
    /// Folders found or made for `--auto`, or why one could not be.
    places: HashMap<Place, Result<(String, String), Refusal>>,
    /// Contest logs the file cannot start (its records do not say what the station sent):
    /// their records go to their monthly logs.
    no_log: std::collections::HashSet<Place>,
    /// The parks of each activator's QSO over all the files, for `--auto`.
    two_fers: TwoFers,
    /// The import's activations whose QSOs a stored activation at other parks holds: its
    /// name, or why its parks could not be added to it ([`stored`]).
    met: HashMap<Place, Result<String, Box<svc_client::ServerError>>>,
    /// The file being read, when there are several: named beside its records' numbers.
    file: Option<String>,
    pending: Vec<Pending>,
    summary: &'a mut Summary,
}

type InFlight = (
    Vec<Pending>,
    tokio::task::JoinHandle<Result<Vec<BatchResult>, ClientError>>,
);

impl Importer<'_> {
    async fn run<R: std::io::BufRead>(
        &mut self,
        reader: Reader<R>,
        tick: impl FnMut(),
    ) -> Result<(), CliError> {
        let outcome = self.read_all(reader, tick).await;
        if outcome.is_err() {
            // What the batch in flight stored is counted before the import says how far it got.
            let _ = self.settle().await;
        }
        outcome
    }

    async fn read_all<R: std::io::BufRead>(
        &mut self,
        reader: Reader<R>,
        mut tick: impl FnMut(),
    ) -> Result<(), CliError> {
        let mut last = 0;
        for next in reader {
            match next {
                Ok(record) => {
                    let number = last + 1;
                    last = number;
                    self.summary.records += 1;
                    let callsign = record.get("CALL").map(str::to_owned);
                    match imported(&record) {
                        Ok(contact) => {
                            for problem in &record.problems {
                                self.summary
                                    .field_problem(self.file.clone(), number, problem);
                            }
                            self.take(number, contact).await?
                        }
                        // What the reader could not read is often why: say it too.
                        Err(message) => self.summary.refuse(Refusal {
                            file: self.file.clone(),
                            record: number,
                            callsign,
                            error: ErrorCode::ValidationError.as_str().into(),
                            message: std::iter::once(message)
                                .chain(record.problems.iter().map(|p| p.message.clone()))
                                .collect::<Vec<_>>()
                                .join("; "),
                            exit: ErrorCode::ValidationError.exit_code(),
                        }),
                    }
                }
                Err(ReadError {
                    record, message, ..
                }) => {
                    last = last.max(record);
                    self.summary.records += 1;
                    // The summary names the record itself.
                    let message = message
                        .strip_prefix(&format!("record {record}: "))
                        .map_or(message.clone(), str::to_owned);
                    self.summary.refuse(Refusal {
                        file: self.file.clone(),
                        record,
                        callsign: None,
                        error: ErrorCode::ValidationError.as_str().into(),
                        message,
                        exit: ErrorCode::ValidationError.exit_code(),
                    });
                }
            }
            if self.pending.len() >= BATCH {
                self.send().await?;
                tick();
            }
        }
        self.send().await?;
        self.settle().await?;
        tick();
        Ok(())
    }

    /// A readable record: counted, filed, and queued for the next batch.
    async fn take(&mut self, record: u64, mut contact: Imported) -> Result<(), CliError> {
        for name in &contact.dropped {
            *self.summary.not_kept.entry(name.clone()).or_default() += 1;
        }
        for name in &contact.kept_as_read {
            *self.summary.kept_as_read.entry(name.clone()).or_default() += 1;
        }
        for what in &contact.changed {
            *self.summary.changed.entry(what.clone()).or_default() += 1;
        }
        if contact.band_only {
            self.summary.band_only += 1;
        }
        // A QSO of a two-fer's files is the two-fer's, whichever park's file this record came
        // from: one activation of all the parks, and one key, so that the QSO's record in the
        // next park's file is the same contact, there already.
        if self.folder.is_none()
            && let Some(parks) = self
                .two_fers
                .parks(&qso_key(&contact), &contact.contact.filed())
        {
            contact.contact.my_sig_info = Some(parks);
            self.summary.two_fer += 1;
        }
        let (folder, name) = match self.folder.clone() {
            Some(id) => (id.clone(), id),
            None => {
                let mut place = place(&contact.contact, self.account.as_deref());
                if self.no_log.contains(&place) {
                    place = monthly_place(&contact.contact);
                }
                if let Some(met) = self.met.get(&place) {
                    match met {
                        Ok(name) => {
                            self.summary.already_there += 1;
                            *self.summary.folders.entry(name.clone()).or_default() += 1;
                        }
                        Err(e) => self.summary.refuse(Refusal {
                            file: self.file.clone(),
                            record,
                            callsign: Some(contact.contact.callsign.clone()),
                            error: e.error.clone(),
                            message: format!(
                                "the same QSOs are stored at other parks, and this park could not be added to them: {}",
                                e.message
                            ),
                            exit: e.exit_code(),
                        }),
                    }
                    return Ok(());
                }
                match self.place_of(record, &contact.contact, place).await? {
                    Ok(found) => found,
                    Err(refusal) => {
                        self.summary.refuse(refusal);
                        return Ok(());
                    }
                }
            }
        };
        if self.client.is_none() {
            *self.summary.folders.entry(name).or_default() += 1;
            return Ok(());
        }
        let key = format!("{}:{folder}", idempotency_key(&contact));
        self.pending.push(Pending {
            file: self.file.clone(),
            record,
            folder: name,
            item: BatchItem {
                contact: ContactInput {
                    folder_id: folder,
                    ..contact.contact
                },
                idempotency_key: key,
            },
        });
        Ok(())
    }

    /// The folder of a contact with `--auto`, at `place`: found or made once per place. `Err`
    /// for a failure that stops the import; `Ok(Err)` refuses this record alone.
    async fn place_of(
        &mut self,
        record: u64,
        c: &ContactInput,
        place: Place,
    ) -> Result<Result<(String, String), Refusal>, CliError> {
        if let Some(known) = self.places.get(&place) {
            return Ok(known.clone().map_err(|r| Refusal {
                file: self.file.clone(),
                record,
                callsign: Some(c.callsign.clone()),
                ..r
            }));
        }
        let Some(client) = self.client.clone() else {
            // A dry run makes no folders: the place's name stands for it.
            let name = place.describe();
            self.places.insert(place, Ok((name.clone(), name.clone())));
            return Ok(Ok((name.clone(), name)));
        };
        let made = match &place {
            Place::Activation {
                callsign, parks, ..
            } => {
                client
                    .create_activation(&NewActivationRequest {
                        location_reference: parks.clone(),
                        callsign: callsign.clone(),
                        program_id: Some("pota".into()),
                        location_name: None,
                        start_time: Some(c.time_on.clone()),
                    })
                    .await
            }
            Place::Contest {
                contest, callsign, ..
            } => {
                let exchange = Contest::find(contest).and_then(|found| {
                    found.log_exchange(c.fields.get(Field::StxString).unwrap_or_default())
                });
                let started = client
                    .start_contest(&NewContestRequest {
                        contest_id: contest.clone(),
                        callsign: callsign.clone(),
                        exchange,
                        start_time: Some(c.time_on.clone()),
                        ..NewContestRequest::default()
                    })
                    .await;
                match started {
                    // A contest's file that does not say what the station sent makes no new
                    // log (its exchange is not known): its records go to their monthly logs,
                    // CONTEST_ID and all, rather than out of the account.
                    Err(ClientError::Server(e)) if e.field() == Some("exchange") => {
                        self.no_log.insert(place);
                        return Box::pin(self.place_of(record, c, monthly_place(c))).await;
                    }
                    other => other,
                }
            }
            Place::Monthly { month, program } => {
                client
                    .create_folder(&NewFolderRequest::Monthly {
                        month: month.clone(),
                        program_id: program.map(|p| p.id().to_owned()),
                    })
                    .await
            }
        };
        let found = match made {
            Ok(created) => Ok((created.folder.id.clone(), created.folder.name.clone())),
            // The place itself was refused (a malformed park reference): its records are.
            Err(ClientError::Server(e)) if e.exit_code() == 2 || e.status == 404 => Err(Refusal {
                file: self.file.clone(),
                record,
                callsign: Some(c.callsign.clone()),
                error: e.error.clone(),
                message: format!("{}: {}", place.describe(), e.message),
                exit: e.exit_code(),
            }),
            Err(other) => return Err(self.stop(other)),
        };
        self.places.insert(place, found.clone());
        Ok(found)
    }

    /// Sends what is queued as one import batch, once the batch before it is answered and
    /// counted: the service stores one batch at a time from this import, in the file's order,
    /// while the next is read from the file.
    async fn send(&mut self) -> Result<(), CliError> {
        let Some(client) = self.client.clone() else {
            return Ok(());
        };
        self.settle().await?;
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let items: Vec<BatchItem> = pending.iter().map(|p| p.item.clone()).collect();
        let answer = tokio::spawn(async move { client.create_contacts_batch(&items, true).await });
        self.in_flight = Some((pending, answer));
        Ok(())
    }

    /// Waits for the batch in flight, if any, and counts each item's result.
    async fn settle(&mut self) -> Result<(), CliError> {
        let Some((pending, answer)) = self.in_flight.take() else {
            return Ok(());
        };
        let results = match answer.await {
            Ok(Ok(results)) => results,
            Ok(Err(e)) => return Err(self.stop(e)),
            Err(e) => {
                return Err(CliError::local(format!(
                    "the import's sender stopped ({e}); run the same import again to finish, nothing is stored twice"
                )));
            }
        };
        let mut cap = None;
        for (p, result) in pending.into_iter().zip(results) {
            self.counted(p, result, &mut cap);
        }
        match cap {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn counted(&mut self, p: Pending, result: BatchResult, stop: &mut Option<CliError>) {
        match result.into_result() {
            Ok(created) => {
                if created.replayed {
                    self.summary.already_there += 1;
                } else {
                    self.summary.imported += 1;
                }
                *self.summary.folders.entry(p.folder).or_default() += 1;
            }
            // The key is the contact's (its callsign, time, frequency, mode, references,
            // reports, name and notes): the same contact as another logger wrote it, with
            // other details (a grid, a power), is there already, and the first one is kept.
            Err(e)
                if e.code() == Some(ErrorCode::ValidationError)
                    && e.details.as_ref().and_then(|d| d.get("field"))
                        == Some(&serde_json::Value::from("idempotencyKey")) =>
            {
                self.summary.already_there += 1;
                self.summary.kept_first += 1;
                *self.summary.folders.entry(p.folder).or_default() += 1;
            }
            Err(e) => {
                let code = e.code();
                let exit = e.exit_code();
                // The cap and the lifetime budget refuse every later record too: stop there.
                let ends = code == Some(ErrorCode::QsoCapReached)
                    || (code == Some(ErrorCode::RateLimited) && e.retry_after.is_none());
                if ends && stop.is_none() {
                    *stop = Some(CliError {
                        error: e.error.clone(),
                        exit,
                        message: format!(
                            "{}; the import stopped at record {} after {} contacts went in ({} were there already)",
                            e.message, p.record, self.summary.imported, self.summary.already_there
                        ),
                        answer: Some(Box::new(Answer {
                            status: Some(e.status),
                            details: e.details.clone(),
                            request_id: e.request_id.clone(),
                            retry_after: e.retry_after,
                        })),
                    });
                }
                self.summary.refuse(Refusal {
                    file: p.file,
                    record: p.record,
                    callsign: Some(p.item.contact.callsign),
                    error: e.error,
                    message: e.message,
                    exit,
                });
            }
        }
    }

    /// A failure that ends the import (no link, a bad key, the service failing): says how far
    /// it got and that running it again finishes it.
    fn stop(&self, e: ClientError) -> CliError {
        let mut error = CliError::from(e);
        error.message = format!(
            "{}; {} contacts went in before it stopped: run the same import again to finish, nothing is stored twice",
            error.message, self.summary.imported
        );
        error
    }
}

/// Where `--auto` files a contact: the model's rule. A dry run, which asks the service
/// nothing, names the activator it does not know.
/// Where `c` goes when its contest has no log to go to: its monthly log.
fn monthly_place(c: &ContactInput) -> Place {
    Place::of(
        &svc_model::filing::Filed {
            contest_id: None,
            ..c.filed()
        },
        None,
    )
}

fn place(c: &ContactInput, account: Option<&str>) -> Place {
    Place::of(&c.filed(), account.or(Some("your callsign")))
}

/// The file a record is in, before its number, when the import read several.
fn in_file(file: Option<&str>) -> String {
    file.map(|f| format!("{f} ")).unwrap_or_default()
}

fn print_summary(ctx: &Ctx, s: &Summary) -> Result<(), CliError> {
    if ctx.format == Format::Json {
        return ctx.print_json(s);
    }
    let mut out = String::new();
    if s.dry_run {
        out.push_str(&format!(
            "dry run: {} records read, {} would be imported, {} refused; nothing was sent\n",
            s.records,
            s.folders.values().sum::<u64>(),
            s.refused_count
        ));
    } else {
        out.push_str(&format!(
            "imported {}, already there {}, refused {} ({} records in {})\n",
            s.imported, s.already_there, s.refused_count, s.records, s.file
        ));
    }
    for (folder, n) in &s.folders {
        out.push_str(&format!("  {n:>6}  {folder}\n"));
    }
    if !s.refused.is_empty() {
        out.push_str("refused:\n");
        for r in &s.refused {
            out.push_str(&format!(
                "  {}record {}  {}  {}: {}\n",
                in_file(r.file.as_deref()),
                r.record,
                r.callsign.as_deref().unwrap_or("-"),
                r.error,
                r.message
            ));
        }
        let unshown = s.refused_count - s.refused.len() as u64;
        if unshown > 0 {
            out.push_str(&format!("  … and {unshown} more\n"));
        }
    }
    let counts = |fields: &BTreeMap<String, u64>| {
        fields
            .iter()
            .map(|(name, n)| format!("{name} ({n})"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !s.field_problems.is_empty() {
        out.push_str("fields read with a fault (the rest of each record went in):\n");
        for p in &s.field_problems {
            out.push_str(&format!(
                "  {}record {}  {}\n",
                in_file(p.file.as_deref()),
                p.record,
                p.message
            ));
        }
        let unshown = s.field_problem_count - s.field_problems.len() as u64;
        if unshown > 0 {
            out.push_str(&format!("  … and {unshown} more\n"));
        }
    }
    if !s.changed.is_empty() {
        out.push_str(&format!("changed: {}\n", counts(&s.changed)));
    }
    if !s.kept_as_read.is_empty() {
        out.push_str(&format!(
            "kept as read, not in svc's form (written back as they were): {}\n",
            counts(&s.kept_as_read)
        ));
    }
    if !s.not_kept.is_empty() {
        out.push_str(&format!(
            "not kept (records that had them): {}\n",
            counts(&s.not_kept)
        ));
    }
    if s.kept_first > 0 {
        out.push_str(&format!(
            "{} already there with other details (the same contact from another logger): the stored one was kept\n",
            s.kept_first
        ));
    }
    if s.band_only > 0 {
        let (n, had) = if s.band_only == 1 {
            ("1 record".to_owned(), "has")
        } else {
            (format!("{} records", s.band_only), "have")
        };
        out.push_str(&format!(
            "{n} {had} BAND and no FREQ: stored as band-only, at the band's lower edge (20m as 14.000 MHz), and exported with BAND alone\n"
        ));
    }
    if s.two_fer > 0 {
        out.push_str(&format!(
            "{} records of QSOs read with several parks (a two-fer's files, one per park): filed into one activation of all the parks, each QSO once\n",
            s.two_fer
        ));
    }
    for added in &s.parks_added {
        out.push_str(&format!(
            "activation {} held these QSOs already: it is at {} now (its contacts count for every park)\n",
            added.activation, added.now
        ));
    }
    if let Some(why) = &s.stopped {
        out.push_str(&format!("stopped: {why}\n"));
    }
    ctx.say(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contact(time_on: &str) -> ContactInput {
        ContactInput {
            callsign: "K1ABC".into(),
            frequency: 14.074,
            mode: "FT8".into(),
            time_on: time_on.into(),
            ..ContactInput::default()
        }
    }

    #[test]
    fn auto_files_activations_by_park_and_day_and_the_rest_by_month() {
        let mut c = contact("2026-11-01T23:59:00Z");
        assert_eq!(
            place(&c, Some("W1AW")),
            Place::Monthly {
                month: "2026-11".into(),
                program: None
            }
        );
        c.sig = Some("pota".into());
        assert_eq!(
            place(&c, Some("W1AW")).describe(),
            "POTA hunting log 2026-11"
        );
        c.sig = Some("SOTA".into());
        assert_eq!(place(&c, Some("W1AW")).describe(), "monthly log 2026-11");
        c.my_sig = Some("POTA".into());
        c.my_sig_info = Some("us-1234".into());
        assert_eq!(
            place(&c, Some("W1AW")).describe(),
            "activation W1AW@US-1234-20261101"
        );
        c.station_callsign = Some("k1abc/p".into());
        assert_eq!(
            place(&c, Some("W1AW")).describe(),
            "activation K1ABC/P@US-1234-20261101"
        );
    }
}
