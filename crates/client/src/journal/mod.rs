//! The offline journal: one SQLite file per service and account, shared by the logbook and the
//! command line. A contact (or a folder it needs) is committed here, with the
//! `Idempotency-Key` it will be sent with, before anything goes over the network; the sender
//! (`sender.rs`) drains it. The same file keeps a copy of the account (whoami, folders,
//! activations, recent contacts) so the logbook starts and logs with no link.
//!
//! Files live in `$XDG_DATA_HOME/svc/journal/` (else `~/.local/share/svc/journal/`):
//! `<host>_<port>-<CALLSIGN>.db`, and `index.db`, which maps (API base, SHA-256 of the key) to
//! the callsign so a process that knows only its key finds the file with no link. The plaintext
//! key is never written.

mod copy;
mod lookups;
pub mod sender;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{ConnectOptions, Connection, Row, Sqlite, Transaction};

use copy::{add_to_counts, add_to_whoami, copied_folder, copy_contact};
pub use lookups::{Answer, FRESH_FOR};
pub use sender::{PushReport, SenderEvent, push, spawn_sender};

use crate::{NewActivationRequest, idempotency_key};
use svc_datafiles::schema::{self, SchemaError};
use svc_model::ContactInput;
use svc_model::ids::{base32, random_bytes};
use svc_model::time::parse_month;
use svc_model::{
    ActivationInput, ApiKey, Contact, Folder, FolderType, IdKind, NewActivation, NewMonthly,
    Program, Timestamp, Whoami,
};

/// Sent entries are kept this long (the server keeps their idempotency keys as long), so an
/// entry whose answer was lost can still be told apart from a new one.
const KEEP_SENT_MS: i64 = 30 * 86_400_000;
/// How long SQLite waits for another process's write before it gives up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(15);

/// What can go wrong with the journal.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum JournalError {
    /// The file cannot be opened, read or written (permissions, a full disk, a damaged file, a
    /// file from a newer svc).
    #[error("{0}")]
    Storage(String),
    /// A request refused before anything was written; the message says what to give instead.
    #[error("{0}")]
    Invalid(String),
    /// No waiting or refused entry has that id.
    #[error("{0}")]
    NotFound(String),
}

impl From<sqlx::Error> for JournalError {
    fn from(e: sqlx::Error) -> Self {
        JournalError::Storage(format!("the journal cannot be used: {e}"))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryState {
    /// Not stored by the service yet (also while a sender is sending it).
    Waiting,
    /// Stored; `sent_id` is the contact's (or folder's) id.
    Sent,
    /// The service refused it; `error` says why. Kept until the operator fixes or drops it.
    Refused,
}

impl EntryState {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryState::Waiting => "waiting",
            EntryState::Sent => "sent",
            EntryState::Refused => "refused",
        }
    }

    fn parse(text: &str) -> Option<EntryState> {
        [EntryState::Waiting, EntryState::Sent, EntryState::Refused]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// What an entry asks the service for.
// A contact (the whole contact, model::fields) is most entries, and each is made once and
// moved a few times: boxing it would cost an allocation to save bytes nothing holds many of.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", content = "request", rename_all = "lowercase")]
pub enum EntryRequest {
    /// `POST /v1/contacts/batch` (one item); its folder may be a local `loc_…` id until the
    /// folder entry it names is sent.
    Contact(ContactInput),
    /// `POST /v1/activations` (find or create).
    Activation(NewActivationRequest),
    /// `POST /v1/folders` for a monthly log (find or create): the custom one, or a program's
    /// hunting log when `program_id` names the program.
    Monthly {
        month: String,
        program_id: Option<String>,
    },
}

impl EntryRequest {
    fn kind(&self) -> &'static str {
        match self {
            EntryRequest::Contact(_) => "contact",
            EntryRequest::Activation(_) => "activation",
            EntryRequest::Monthly { .. } => "monthly",
        }
    }

    fn body(&self) -> Result<String, JournalError> {
        let value = match self {
            EntryRequest::Contact(c) => serde_json::to_string(c),
            EntryRequest::Activation(a) => serde_json::to_string(a),
            EntryRequest::Monthly {
                month,
                program_id: None,
            } => serde_json::to_string(&serde_json::json!({ "month": month })),
            EntryRequest::Monthly {
                month,
                program_id: Some(program),
            } => {
                serde_json::to_string(&serde_json::json!({ "month": month, "programId": program }))
            }
        };
        value.map_err(|e| JournalError::Invalid(format!("the entry cannot be encoded: {e}")))
    }
}

/// Why the service refused an entry: what its error envelope said.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryError {
    pub status: u16,
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

impl EntryError {
    /// The exit code the command line gives this refusal (the table of `ServerError`).
    pub fn exit_code(&self) -> u8 {
        crate::ServerError {
            error: self.code.clone(),
            message: self.message.clone(),
            details: self.details.clone(),
            request_id: None,
            status: self.status,
            retry_after: None,
        }
        .exit_code()
    }
}

/// One thing logged: a contact, or a folder contacts were logged into before it existed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// `ent_…`
    pub id: String,
    /// The order logged.
    pub seq: i64,
    pub state: EntryState,
    #[serde(flatten)]
    pub request: EntryRequest,
    /// The key it is sent with, every time, for its whole life (a refused entry fixed with
    /// [`Journal::retry`] gets a new one).
    pub idempotency_key: String,
    /// Folder entries: the `loc_…` id contacts use for this folder until it is sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_folder_id: Option<String>,
    pub logged_at: Timestamp,
    /// How many times a sender took it up.
    pub attempts: u32,
    /// The contact's `qso_…` (or the folder's `fld_…`) id once sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sent_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<EntryError>,
}

/// How many entries wait and how many were refused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub waiting: u64,
    pub refused: u64,
}

/// The copy of the account for starting with no link.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub whoami: Option<Whoami>,
    /// The folder list as last saved, then the folders logged here and not sent yet.
    pub folders: Vec<Folder>,
    /// The activation list as last saved, then the activations logged here and not sent yet.
    pub activations: Vec<Folder>,
    /// Whether the folder list was ever saved: an empty `folders` is then the account's.
    pub folders_saved: bool,
    /// Whether the activation list was ever saved: an empty `activations` is then the
    /// account's (none yet), not a list never read.
    pub activations_saved: bool,
    /// The folder the logbook had open (its real id once a loc_ id was sent).
    pub open_folder: Option<String>,
}

/// Which entries a sender takes up: folders go before the contacts that need them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Claim {
    Folders,
    Contacts,
}

/// What became of an entry a sender took up.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    Sent(String),
    Refused(EntryError),
    /// Not stored this time (rate limited, a server failure): try again after this long.
    Later(Duration),
}

/// The entries a settle changed.
#[derive(Debug, Default)]
pub(crate) struct Settled {
    pub sent: Vec<Entry>,
    pub refused: Vec<Entry>,
}

#[derive(Clone)]
pub struct Journal {
    pool: SqlitePool,
    path: Arc<PathBuf>,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Journal({})", self.path.display())
    }
}

/// The journal folder: `$XDG_DATA_HOME/svc/journal`, else `~/.local/share/svc/journal`.
pub fn journal_dir() -> Result<PathBuf, JournalError> {
    svc_datafiles::user_data_dir()
        .map(|data| data.join("journal"))
        .ok_or_else(|| {
            JournalError::Storage(
                "no place for the journal: set HOME (or XDG_DATA_HOME to an absolute path)".into(),
            )
        })
}

fn now_ms() -> i64 {
    Timestamp::now().millis()
}

fn new_id(prefix: &str) -> String {
    format!(
        "{prefix}{}",
        base32(&random_bytes::<10>()).to_ascii_lowercase()
    )
}

/// A sender's lease owner: `snd_<process id>_<random>`, so another process can tell that the
/// sender holding a lease has died.
fn sender_id() -> String {
    new_id(&format!("snd_{}_", std::process::id()))
}

/// Whether the sender that wrote `owner` (a [`sender_id`]) is known to have ended. Only where
/// `/proc` tells (Linux); elsewhere its lease has to run out. A reused process id only makes
/// the lease run its course, and an entry sent twice is still stored once (its idempotency key).
fn sender_ended(owner: &str) -> bool {
    let pid = owner
        .strip_prefix("snd_")
        .and_then(|rest| rest.split('_').next())
        .and_then(|pid| pid.parse::<u32>().ok());
    match pid {
        Some(pid) if pid != std::process::id() => {
            Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists()
        }
        _ => false,
    }
}

/// Whether `text` has the shape of an entry id (`ent_` and 16 characters a-z, 2-7).
pub fn is_entry_id(text: &str) -> bool {
    has_shape(text, "ent_")
}

/// Whether `text` has the shape of a local folder id (`loc_…`).
pub fn is_local_folder_id(text: &str) -> bool {
    has_shape(text, "loc_")
}

fn has_shape(text: &str, prefix: &str) -> bool {
    text.strip_prefix(prefix).is_some_and(|rest| {
        rest.len() == 16 && rest.bytes().all(|b| matches!(b, b'a'..=b'z' | b'2'..=b'7'))
    })
}

/// Keeps what a file name may hold; anything else becomes `_`.
fn file_safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `<host>_<port>[_<path>]-<CALLSIGN>.db`: one file per service and account.
fn file_name(base: &Url, callsign: &str) -> String {
    let mut name = format!(
        "{}_{}",
        file_safe(base.host_str().unwrap_or("localhost")),
        base.port_or_known_default().unwrap_or(0)
    );
    // Two services behind one host and port differ by their path.
    let path = base.path().trim_matches('/');
    if !path.is_empty() {
        name.push('_');
        name.push_str(&file_safe(path));
    }
    format!(
        "{name}-{}.db",
        file_safe(&callsign.trim().to_ascii_uppercase())
    )
}

fn base_text(base: &Url) -> String {
    base.as_str().trim_end_matches('/').to_owned()
}

fn key_hash(key: &ApiKey) -> String {
    key.hash().iter().map(|b| format!("{b:02x}")).collect()
}

/// Makes the journal folder, private to the user: it holds the operator's log.
fn make_dir(dir: &Path) -> Result<(), JournalError> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(|e| {
        JournalError::Storage(format!(
            "cannot make the journal folder {}: {e}",
            dir.display()
        ))
    })
}

fn options(path: &Path) -> SqliteConnectOptions {
    SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        // WAL lets the logbook read while a sender writes; FULL makes every commit durable
        // before the call returns, which is the whole point of the journal.
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .busy_timeout(BUSY_TIMEOUT)
        // SQLite's own page cache is 2 MB a connection by default, four connections in the
        // logbook's memory once a big log has been copied; the journal's reads are small and
        // indexed, and the system's file cache has the pages anyway.
        .pragma("cache_size", "-256")
}

async fn index_connection(dir: &Path) -> Result<sqlx::SqliteConnection, JournalError> {
    let path = dir.join("index.db");
    svc_datafiles::private_sqlite_file(&path).map_err(|e| {
        JournalError::Storage(format!(
            "cannot open the journal index {}: {e}",
            path.display()
        ))
    })?;
    let mut conn = options(&path).connect().await.map_err(|e| {
        JournalError::Storage(format!(
            "cannot open the journal index {}: {e}",
            path.display()
        ))
    })?;
    sqlx::query(
        "CREATE TABLE IF NOT EXISTS keys (
            api_base TEXT NOT NULL,
            key_sha256 TEXT NOT NULL,
            callsign TEXT NOT NULL,
            used_at INTEGER NOT NULL,
            PRIMARY KEY (api_base, key_sha256)
        )",
    )
    .execute(&mut conn)
    .await?;
    Ok(conn)
}

async fn find_in(dir: &Path, base: &Url, key: &ApiKey) -> Result<Option<Journal>, JournalError> {
    // Looking must not create anything: a key never used here has no journal.
    if !dir.join("index.db").exists() {
        return Ok(None);
    }
    let mut conn = index_connection(dir).await?;
    let callsign: Option<String> =
        sqlx::query_scalar("SELECT callsign FROM keys WHERE api_base = $1 AND key_sha256 = $2")
            .bind(base_text(base))
            .bind(key_hash(key))
            .fetch_optional(&mut conn)
            .await?;
    conn.close().await?;
    match callsign {
        Some(call) => Ok(Some(
            Journal::open_path(&dir.join(file_name(base, &call))).await?,
        )),
        None => Ok(None),
    }
}

async fn open_in(
    dir: &Path,
    base: &Url,
    key: &ApiKey,
    callsign: &str,
) -> Result<Journal, JournalError> {
    let callsign = callsign.trim().to_ascii_uppercase();
    if callsign.is_empty() {
        return Err(JournalError::Invalid(
            "the journal needs the account's callsign".into(),
        ));
    }
    make_dir(dir)?;
    let journal = Journal::open_path(&dir.join(file_name(base, &callsign))).await?;
    let mut conn = index_connection(dir).await?;
    sqlx::query(
        "INSERT INTO keys (api_base, key_sha256, callsign, used_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (api_base, key_sha256) DO UPDATE SET callsign = $3, used_at = $4",
    )
    .bind(base_text(base))
    .bind(key_hash(key))
    .bind(&callsign)
    .bind(now_ms())
    .execute(&mut conn)
    .await?;
    conn.close().await?;
    Ok(journal)
}

/// The journal's schema, one SQL file a version (svc_datafiles::schema).
static MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/journal");

macro_rules! entry_columns {
    () => {
        "seq, id, kind, body, folder_id, local_folder_id, idempotency_key, state, logged_at, \
         attempts, sent_id, error"
    };
}

fn decode<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T, JournalError> {
    serde_json::from_str(text)
        .map_err(|e| JournalError::Storage(format!("the journal's {what} is damaged: {e}")))
}

fn encode<T: Serialize + ?Sized>(value: &T) -> Result<String, JournalError> {
    serde_json::to_string(value)
        .map_err(|e| JournalError::Invalid(format!("cannot encode for the journal: {e}")))
}

fn entry_from_row(row: &SqliteRow) -> Result<Entry, JournalError> {
    let id: String = row.try_get("id")?;
    let kind: String = row.try_get("kind")?;
    let body: String = row.try_get("body")?;
    let what = format!("entry {id}");
    let request = match kind.as_str() {
        "contact" => {
            let mut contact: ContactInput = decode(&what, &body)?;
            // The column wins: a loc_ id is rewritten there when its folder is sent.
            if let Some(folder) = row.try_get::<Option<String>, _>("folder_id")? {
                contact.folder_id = folder;
            }
            EntryRequest::Contact(contact)
        }
        "activation" => EntryRequest::Activation(decode(&what, &body)?),
        "monthly" => {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct Monthly {
                month: String,
                // Journals written before hunting logs hold only custom ones.
                #[serde(default)]
                program_id: Option<String>,
            }
            let m: Monthly = decode(&what, &body)?;
            EntryRequest::Monthly {
                month: m.month,
                program_id: m.program_id,
            }
        }
        other => {
            return Err(JournalError::Storage(format!(
                "the journal's entry {id} has an unknown kind {other:?}"
            )));
        }
    };
    let state: String = row.try_get("state")?;
    let error: Option<String> = row.try_get("error")?;
    Ok(Entry {
        state: EntryState::parse(&state).ok_or_else(|| {
            JournalError::Storage(format!(
                "the journal's entry {id} has an unknown state {state:?}"
            ))
        })?,
        seq: row.try_get("seq")?,
        request,
        idempotency_key: row.try_get("idempotency_key")?,
        local_folder_id: row.try_get("local_folder_id")?,
        logged_at: Timestamp(row.try_get("logged_at")?),
        attempts: u32::try_from(row.try_get::<i64, _>("attempts")?).unwrap_or(u32::MAX),
        sent_id: row.try_get("sent_id")?,
        error: error.map(|e| decode(&what, &e)).transpose()?,
        id,
    })
}

fn entries_from_rows(rows: &[SqliteRow]) -> Result<Vec<Entry>, JournalError> {
    let mut entries = rows
        .iter()
        .map(entry_from_row)
        .collect::<Result<Vec<_>, _>>()?;
    // RETURNING gives rows in no promised order.
    entries.sort_by_key(|e| e.seq);
    Ok(entries)
}

/// Checks what the journal itself relies on; the service checks the rest when it is sent.
fn check_contact(contact: &ContactInput) -> Result<(), JournalError> {
    Timestamp::parse("timeOn", &contact.time_on).map_err(|e| JournalError::Invalid(e.message))?;
    if !contact.frequency.is_finite() || contact.frequency <= 0.0 {
        return Err(JournalError::Invalid(format!(
            "frequency {} is not a positive number of MHz",
            contact.frequency
        )));
    }
    if contact.callsign.trim().is_empty() || contact.mode.trim().is_empty() {
        return Err(JournalError::Invalid(
            "a contact needs a callsign and a mode".into(),
        ));
    }
    if !IdKind::Folder.is_valid(&contact.folder_id) && !is_local_folder_id(&contact.folder_id) {
        return Err(JournalError::Invalid(format!(
            "folder id {:?} is neither a folder (fld_…) nor a folder logged here (loc_…)",
            svc_model::ids::truncate(&contact.folder_id, 40)
        )));
    }
    Ok(())
}

type Tx<'c> = Transaction<'c, Sqlite>;

impl Journal {
    /// The journal this key was last used with on this service, if any (no network).
    pub async fn find(base: &Url, key: &ApiKey) -> Result<Option<Journal>, JournalError> {
        find_in(&journal_dir()?, base, key).await
    }

    /// Opens (creating) the account's journal and remembers the key for [`Journal::find`].
    pub async fn open(base: &Url, key: &ApiKey, callsign: &str) -> Result<Journal, JournalError> {
        open_in(&journal_dir()?, base, key, callsign).await
    }

    /// Opens (creating) the journal in this file.
    pub async fn open_path(path: &Path) -> Result<Journal, JournalError> {
        let fail = |e: &dyn std::fmt::Display| {
            JournalError::Storage(format!("cannot open the journal {}: {e}", path.display()))
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            make_dir(dir)?;
        }
        svc_datafiles::private_sqlite_file(path).map_err(|e| fail(&e))?;
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options(path))
            .await
            .map_err(|e| fail(&e))?;
        let journal = Journal {
            pool,
            path: Arc::new(path.to_owned()),
        };
        journal.migrate().await.map_err(|e| fail(&e))?;
        Ok(journal)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A write transaction that holds SQLite's write lock from its first statement, so a
    /// read-then-write inside it can never be overtaken by another process's write (which in
    /// WAL mode would fail with a busy snapshot instead of waiting).
    async fn write(&self) -> Result<Tx<'static>, JournalError> {
        Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?)
    }

    async fn migrate(&self) -> Result<(), JournalError> {
        let mut tx = self.write().await?;
        schema::migrate(&mut tx, &MIGRATIONS)
            .await
            .map_err(|e| match e {
                SchemaError::Newer { .. } => {
                    JournalError::Storage(format!("{e}; use that svc, or move the file away"))
                }
                e => JournalError::Storage(format!("the journal cannot be used: {e}")),
            })?;
        sqlx::query("DELETE FROM entries WHERE state = 'sent' AND sent_at < $1")
            .bind(now_ms() - KEEP_SENT_MS)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn insert_entry(
        tx: &mut Tx<'_>,
        request: &EntryRequest,
        folder_id: Option<&str>,
        local_folder_id: Option<&str>,
    ) -> Result<Entry, JournalError> {
        Self::insert_keyed(tx, request, folder_id, local_folder_id, &idempotency_key()).await
    }

    async fn insert_keyed(
        tx: &mut Tx<'_>,
        request: &EntryRequest,
        folder_id: Option<&str>,
        local_folder_id: Option<&str>,
        key: &str,
    ) -> Result<Entry, JournalError> {
        let row = sqlx::query(concat!(
            "INSERT INTO entries (id, kind, body, folder_id, local_folder_id, idempotency_key, \
             state, logged_at) VALUES ($1, $2, $3, $4, $5, $6, 'waiting', $7) RETURNING ",
            entry_columns!()
        ))
        .bind(new_id("ent_"))
        .bind(request.kind())
        .bind(request.body()?)
        .bind(folder_id)
        .bind(local_folder_id)
        .bind(key)
        .bind(now_ms())
        .fetch_one(&mut **tx)
        .await?;
        entry_from_row(&row)
    }

    /// A contact's folder as it should be sent: a loc_ id whose folder was sent becomes the
    /// real id; an unknown loc_ id is refused.
    async fn folder_for_contact(tx: &mut Tx<'_>, folder_id: &str) -> Result<String, JournalError> {
        if !is_local_folder_id(folder_id) {
            return Ok(folder_id.to_owned());
        }
        let real: Option<Option<String>> =
            sqlx::query_scalar("SELECT real_id FROM local_folders WHERE id = $1")
                .bind(folder_id)
                .fetch_optional(&mut **tx)
                .await?;
        match real {
            Some(Some(real)) => Ok(real),
            Some(None) => Ok(folder_id.to_owned()),
            None => Err(JournalError::Invalid(format!(
                "{folder_id} is not a folder logged in this journal; pick a folder from the list"
            ))),
        }
    }

    /// Logs a contact: committed durably, with the key it will be sent with, before this
    /// returns. `contact.time_on` must be set (the time Enter was pressed, or the time typed);
    /// `contact.folder_id` is a real `fld_…` id or a `loc_…` id from `log_activation` /
    /// `log_monthly`.
    pub async fn log_contact(&self, mut contact: ContactInput) -> Result<Entry, JournalError> {
        check_contact(&contact)?;
        let mut tx = self.write().await?;
        contact.folder_id = Self::folder_for_contact(&mut tx, &contact.folder_id).await?;
        let folder_id = contact.folder_id.clone();
        let entry = Self::insert_entry(
            &mut tx,
            &EntryRequest::Contact(contact),
            Some(&folder_id),
            None,
        )
        .await?;
        tx.commit().await?;
        Ok(entry)
    }

    /// The folder the sender made on the service for the local folder `local_id`, once it has
    /// (contacts logged into `local_id` since then are logged into it).
    pub async fn made_folder(&self, local_id: &str) -> Result<Option<Folder>, JournalError> {
        let folder: Option<String> = sqlx::query_scalar(
            "SELECT folder FROM local_folders WHERE id = $1 AND real_id IS NOT NULL",
        )
        .bind(local_id)
        .fetch_optional(&self.pool)
        .await?;
        folder.map(|f| decode("folder", &f)).transpose()
    }

    /// Logs an activation to find or create on the service. Gives the folder to log contacts
    /// into: a local one (`loc_…`, usable as a folder id until the entry is sent) with the
    /// waiting entry that makes it, or, when this journal already knows a real folder of that
    /// identity (program, callsign, reference, UTC start day), that folder and no entry. The
    /// same identity logged twice gives the same local folder. `start_time` must be set.
    pub async fn log_activation(
        &self,
        request: NewActivationRequest,
    ) -> Result<(Option<Entry>, Folder), JournalError> {
        let Some(start_time) = request.start_time.clone() else {
            return Err(JournalError::Invalid(
                "an activation logged offline needs its start time".into(),
            ));
        };
        let program = match request.program_id.as_deref() {
            None => None,
            Some(id) => Some(Program::from_id(id.trim()).ok_or_else(|| {
                JournalError::Invalid(format!(
                    "program {:?} is not known; use pota",
                    svc_model::ids::truncate(id, 20)
                ))
            })?),
        };
        let now = Timestamp::now();
        let activation = NewActivation::validate(
            &ActivationInput {
                reference: Some(request.location_reference.clone()),
                callsign: Some(request.callsign.clone()),
                program,
                location_name: request.location_name.clone(),
                start_time: Some(start_time),
            },
            now,
        )
        .map_err(|e| JournalError::Invalid(e.message))?;
        let identity = format!(
            "activation:{}:{}:{}:{}",
            activation.program.id(),
            activation.callsign,
            activation.reference,
            activation.start_time.utc_day()
        );
        let matches = |f: &Folder| {
            f.folder_type == FolderType::Activation
                && f.program_id.as_deref() == Some(activation.program.id())
                && f.callsign.as_deref() == Some(activation.callsign.as_str())
                && f.location_reference.as_deref() == Some(activation.reference.as_str())
                && f.start_time.map(Timestamp::utc_day) == Some(activation.start_time.utc_day())
        };
        let category = |f: &Folder| {
            f.folder_type == FolderType::Category
                && f.parent_id.is_some()
                && (f.program_id.as_deref() == Some(activation.program.id())
                    || f.name == activation.program.category_name())
        };
        let local = |id: String, parent_id: Option<String>| Folder {
            id,
            name: activation.name.clone(),
            folder_type: FolderType::Activation,
            parent_id,
            program_id: Some(activation.program.id().to_owned()),
            month: None,
            start_time: Some(activation.start_time),
            end_time: None,
            location_reference: Some(activation.reference.clone()),
            location_name: activation.location_name.clone(),
            callsign: Some(activation.callsign.clone()),
            auto_folder_key: None,
            contest: None,
            contact_count: 0,
            created_at: now,
        };
        self.log_folder(
            EntryRequest::Activation(request),
            &identity,
            matches,
            category,
            local,
        )
        .await
    }

    /// Logs a monthly log (`YYYY-MM`) to find or create on the service: the custom one, or
    /// `program`'s hunting log. Like [`Journal::log_activation`], it gives a local folder and
    /// its entry, or the real folder already known and no entry.
    pub async fn log_monthly(
        &self,
        month: &str,
        program: Option<Program>,
    ) -> Result<(Option<Entry>, Folder), JournalError> {
        let month = parse_month("month", month).map_err(|e| JournalError::Invalid(e.message))?;
        let monthly = NewMonthly::new(program, month.clone());
        let program_id = program.map(|p| p.id().to_owned());
        let now = Timestamp::now();
        let matches = |f: &Folder| {
            f.folder_type == FolderType::Monthly
                && f.program_id == program_id
                && f.month.as_deref() == Some(month.as_str())
        };
        // A custom log sits under the root, a hunting log under its program's category.
        let parent = |f: &Folder| {
            f.folder_type == FolderType::Category
                && match &program_id {
                    None => f.parent_id.is_none(),
                    Some(id) => f.program_id.as_ref() == Some(id),
                }
        };
        let local = |id: String, parent_id: Option<String>| Folder {
            id,
            name: monthly.name.clone(),
            folder_type: FolderType::Monthly,
            parent_id,
            program_id: program_id.clone(),
            month: Some(month.clone()),
            start_time: None,
            end_time: None,
            location_reference: None,
            location_name: None,
            callsign: None,
            auto_folder_key: None,
            contest: None,
            contact_count: 0,
            created_at: now,
        };
        self.log_folder(
            EntryRequest::Monthly {
                month: month.clone(),
                program_id: program_id.clone(),
            },
            &monthly.identity_key,
            matches,
            parent,
            local,
        )
        .await
    }

    async fn log_folder(
        &self,
        request: EntryRequest,
        identity: &str,
        matches: impl Fn(&Folder) -> bool,
        parent: impl Fn(&Folder) -> bool,
        local: impl Fn(String, Option<String>) -> Folder,
    ) -> Result<(Option<Entry>, Folder), JournalError> {
        let mut tx = self.write().await?;
        let known: Option<(String, String, String, Option<String>)> = sqlx::query_as(
            "SELECT id, entry_id, folder, real_id FROM local_folders WHERE identity = $1",
        )
        .bind(identity)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some((_, _, folder, Some(_))) = &known {
            return Ok((None, decode("folder", folder)?));
        }
        let cached = Self::cached_folder_list(&mut tx, None).await?;
        if let Some(real) = cached.iter().find(|f| matches(f)) {
            return Ok((None, real.clone()));
        }
        if let Some((local_id, entry_id, folder, None)) = &known {
            let waiting = sqlx::query(concat!(
                "SELECT ",
                entry_columns!(),
                " FROM entries WHERE id = $1 AND state = 'waiting'"
            ))
            .bind(entry_id)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(row) = waiting {
                return Ok((Some(entry_from_row(&row)?), decode("folder", folder)?));
            }
            // Its entry was refused or dropped: a new entry stands for the same local folder,
            // so contacts still waiting on it go out once this one is sent.
            let entry = Self::insert_entry(&mut tx, &request, None, Some(local_id)).await?;
            sqlx::query("UPDATE local_folders SET entry_id = $1 WHERE id = $2")
                .bind(&entry.id)
                .bind(local_id)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            return Ok((Some(entry), decode("folder", folder)?));
        }
        let parent_id = cached.iter().find(|f| parent(f)).map(|f| f.id.clone());
        let folder = local(new_id("loc_"), parent_id);
        let entry = Self::insert_entry(&mut tx, &request, None, Some(&folder.id)).await?;
        sqlx::query(
            "INSERT INTO local_folders (id, entry_id, identity, folder) VALUES ($1, $2, $3, $4)",
        )
        .bind(&folder.id)
        .bind(&entry.id)
        .bind(identity)
        .bind(encode(&folder)?)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok((Some(entry), folder))
    }

    /// Waiting and refused entries, in the order logged.
    pub async fn entries(&self) -> Result<Vec<Entry>, JournalError> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            entry_columns!(),
            " FROM entries WHERE state IN ('waiting', 'refused') ORDER BY seq"
        ))
        .fetch_all(&self.pool)
        .await?;
        entries_from_rows(&rows)
    }

    /// One entry, whatever its state (sent ones are kept for 30 days).
    pub async fn entry(&self, id: &str) -> Result<Option<Entry>, JournalError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            entry_columns!(),
            " FROM entries WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(entry_from_row).transpose()
    }

    pub async fn counts(&self) -> Result<Counts, JournalError> {
        let (waiting, refused): (i64, i64) = sqlx::query_as(
            "SELECT COALESCE(SUM(state = 'waiting'), 0), COALESCE(SUM(state = 'refused'), 0)
             FROM entries WHERE state IN ('waiting', 'refused')",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(Counts {
            waiting: waiting.try_into().unwrap_or(0),
            refused: refused.try_into().unwrap_or(0),
        })
    }

    /// A refused contact fixed by the operator: waiting again with the new body and a new
    /// idempotency key (the old one is bound to the refused body), in the same place in the
    /// order.
    pub async fn retry(&self, id: &str, contact: ContactInput) -> Result<Entry, JournalError> {
        check_contact(&contact)?;
        let mut tx = self.write().await?;
        let current =
            sqlx::query_as::<_, (String, String)>("SELECT kind, state FROM entries WHERE id = $1")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
        match current {
            None => return Err(JournalError::NotFound(format!("no entry {id}"))),
            Some((kind, _)) if kind != "contact" => {
                return Err(JournalError::Invalid(format!(
                    "{id} is a folder entry; only a contact can be fixed and sent again (drop the folder entry and log it anew)"
                )));
            }
            Some((_, state)) if state != "refused" => {
                return Err(JournalError::Invalid(format!(
                    "{id} is {state}, not refused: only a refused contact can be fixed"
                )));
            }
            Some(_) => {}
        }
        let mut contact = contact;
        contact.folder_id = Self::folder_for_contact(&mut tx, &contact.folder_id).await?;
        let row = sqlx::query(concat!(
            "UPDATE entries SET body = $2, folder_id = $3, idempotency_key = $4, \
             state = 'waiting', error = NULL, attempts = 0, not_before = NULL, \
             lease_owner = NULL, lease_until = NULL WHERE id = $1 RETURNING ",
            entry_columns!()
        ))
        .bind(id)
        .bind(encode(&contact)?)
        .bind(&contact.folder_id)
        .bind(idempotency_key())
        .fetch_one(&mut *tx)
        .await?;
        let entry = entry_from_row(&row)?;
        tx.commit().await?;
        Ok(entry)
    }

    /// Removes a waiting or refused entry; false when there is none (or it was sent
    /// meanwhile). An entry a sender has in flight cannot be dropped: it may be stored by now.
    pub async fn drop_entry(&self, id: &str) -> Result<bool, JournalError> {
        let mut tx = self.write().await?;
        let lease: Option<Option<i64>> = sqlx::query_scalar(
            "SELECT lease_until FROM entries WHERE id = $1 AND state IN ('waiting', 'refused')",
        )
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?;
        match lease {
            None => return Ok(false),
            Some(Some(until)) if until > now_ms() => {
                return Err(JournalError::Invalid(format!(
                    "{id} is being sent right now, so it may be stored already; look again in a few seconds"
                )));
            }
            Some(_) => {}
        }
        sqlx::query("DELETE FROM entries WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Gives back the entries held by senders whose process has ended (see [`sender_ended`]).
    pub(crate) async fn release_dead_senders(&self) -> Result<(), JournalError> {
        let owners: Vec<String> = sqlx::query_scalar(
            "SELECT DISTINCT lease_owner FROM entries \
             WHERE state = 'waiting' AND lease_owner IS NOT NULL AND lease_until > $1",
        )
        .bind(now_ms())
        .fetch_all(&self.pool)
        .await?;
        for owner in owners.iter().filter(|o| sender_ended(o)) {
            self.release(owner).await?;
        }
        Ok(())
    }

    /// Gives back every entry this owner still holds, untouched (the link went down).
    pub(crate) async fn release(&self, owner: &str) -> Result<(), JournalError> {
        sqlx::query(
            "UPDATE entries SET lease_owner = NULL, lease_until = NULL
             WHERE lease_owner = $1 AND state = 'waiting'",
        )
        .bind(owner)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// A folder entry was sent: in one transaction the entry is sent, every entry that used
    /// its loc_ id uses the real id, and the real folder joins the cached lists. Gives the
    /// sent entry, or `None` when another sender settled it first.
    pub(crate) async fn resolve_folder(
        &self,
        entry_id: &str,
        folder: &Folder,
    ) -> Result<Option<Entry>, JournalError> {
        let mut tx = self.write().await?;
        let row = sqlx::query(concat!(
            "UPDATE entries SET state = 'sent', sent_id = $2, sent_at = $3, error = NULL, \
             lease_owner = NULL, lease_until = NULL, not_before = NULL \
             WHERE id = $1 AND state = 'waiting' RETURNING ",
            entry_columns!()
        ))
        .bind(entry_id)
        .bind(&folder.id)
        .bind(now_ms())
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let entry = entry_from_row(&row)?;
        if let Some(local_id) = &entry.local_folder_id {
            sqlx::query("UPDATE local_folders SET real_id = $2, folder = $3 WHERE id = $1")
                .bind(local_id)
                .bind(&folder.id)
                .bind(encode(folder)?)
                .execute(&mut *tx)
                .await?;
            sqlx::query("UPDATE entries SET folder_id = $2 WHERE folder_id = $1")
                .bind(local_id)
                .bind(&folder.id)
                .execute(&mut *tx)
                .await?;
        }
        let mut lists = vec!["folders"];
        if folder.folder_type == FolderType::Activation {
            lists.push("activations");
        }
        for list in lists {
            sqlx::query(
                "INSERT INTO cached_folders (list, position, id, folder)
                 VALUES ($1, (SELECT COALESCE(MAX(position), -1) + 1 FROM cached_folders
                              WHERE list = $1), $2, $3)
                 ON CONFLICT (list, id) DO UPDATE SET folder = $3",
            )
            .bind(list)
            .bind(&folder.id)
            .bind(encode(folder)?)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(Some(entry))
    }

    /// Contacts waiting on a local folder whose entry was refused or dropped can never be sent
    /// as they are: they are refused, saying why, so the operator can log them into another
    /// folder ([`Journal::retry`]) or drop them.
    pub(crate) async fn refuse_orphans(&self) -> Result<Vec<Entry>, JournalError> {
        let mut tx = self.write().await?;
        let orphans: Vec<(String, String, String, Option<String>)> = sqlx::query_as(
            "SELECT e.id, lf.id, lf.folder, fe.error FROM entries e
             JOIN local_folders lf ON lf.id = e.folder_id
             LEFT JOIN entries fe ON fe.id = lf.entry_id
             WHERE e.state = 'waiting' AND e.kind = 'contact' AND lf.real_id IS NULL
               AND (fe.id IS NULL OR fe.state <> 'waiting')",
        )
        .fetch_all(&mut *tx)
        .await?;
        let mut refused = Vec::new();
        for (id, local_id, folder, folder_error) in orphans {
            let folder: Folder = decode("folder", &folder)?;
            let why = match folder_error {
                Some(e) => {
                    let e: EntryError = decode("folder error", &e)?;
                    format!("the service refused it: {}: {}", e.code, e.message)
                }
                None => "its entry was dropped".to_owned(),
            };
            let error = EntryError {
                status: 400,
                code: svc_model::ErrorCode::ValidationError.as_str().to_owned(),
                message: format!(
                    "its folder {} ({local_id}) was never made, {why}; log the contact into another folder, or drop it",
                    folder.name
                ),
                details: Some(serde_json::json!({ "folderId": local_id })),
            };
            let row = sqlx::query(concat!(
                "UPDATE entries SET state = 'refused', error = $2, lease_owner = NULL, \
                 lease_until = NULL WHERE id = $1 RETURNING ",
                entry_columns!()
            ))
            .bind(&id)
            .bind(encode(&error)?)
            .fetch_one(&mut *tx)
            .await?;
            refused.push(entry_from_row(&row)?);
        }
        tx.commit().await?;
        refused.sort_by_key(|e| e.seq);
        Ok(refused)
    }

    /// When the next waiting entry may be taken up (its retry time, or when another sender's
    /// lease on it runs out); `None` when nothing waits. Contacts waiting for their folder are
    /// due with it.
    pub(crate) async fn next_due(&self) -> Result<Option<Timestamp>, JournalError> {
        let due: Option<i64> = sqlx::query_scalar(
            "SELECT MIN(MAX(COALESCE(not_before, 0), COALESCE(lease_until, 0)))
             FROM entries WHERE state = 'waiting'
               AND NOT (kind = 'contact' AND folder_id LIKE 'loc\\_%' ESCAPE '\\')",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(due.map(Timestamp))
    }
}

mod keyed;
pub use keyed::Logged;
mod lease;
mod worked;

#[cfg(test)]
mod tests;
