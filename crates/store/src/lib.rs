//! One storage interface for the service. Invariants that concurrent requests could break (the
//! QSO cap, budgets, activation identity, idempotency keys) are enforced inside the database by
//! unique constraints, conditional updates and transactions, never by read-then-write in Rust.

mod sql;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use svc_model::{
    ApiError, ApiKey, Contact, ContactPatch, ExternalCopy, Folder, FolderType, Logbook,
    NewActivation, NewContact, NewContest, NewMonthly, Plan, Review, Tier, Timestamp,
};

pub use sql::{Backup, SqlStore};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A rule the database enforced (cap, budget, identity, idempotency) or a missing resource.
    #[error(transparent)]
    Api(#[from] ApiError),
    /// The database failed; the request answers `internal`.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
}

impl From<sqlx::migrate::MigrateError> for StoreError {
    fn from(e: sqlx::migrate::MigrateError) -> Self {
        StoreError::Db(sqlx::Error::Migrate(Box::new(e)))
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

/// How long an `Idempotency-Key` answers with its first response: 30 days, because the
/// client's offline journal may send an entry again days after its first try (a laptop closed
/// over a weekend, an answer lost on the way), and the key must still find the first contact.
pub const IDEMPOTENCY_TTL_MS: i64 = 30 * 24 * 3600 * 1000;

/// [`IDEMPOTENCY_TTL_MS`] in words, for messages.
pub const IDEMPOTENCY_TTL_TEXT: &str = "30 days";

/// The service's limits (docs/SERVER.md, "Trying the service").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub burst_per_minute: u32,
    /// Import batches (`POST /v1/contacts/batch` with `import: true`) per key per minute,
    /// counted apart from the burst limit: a file of 100,000 contacts is 200 of them.
    pub import_batches_per_minute: u32,
    pub daily_contact_budget: i64,
    pub lifetime_contact_budget: i64,
    pub free_plan_cap: i64,
    /// Whether the creates count toward the daily budget: contacts logged do, contacts
    /// imported from another logbook do not (docs/API.md, "Imports").
    pub daily_applies: bool,
}

impl Limits {
    /// The limits of an import: the lifetime budget and the cap, not the daily budget.
    pub fn for_import(self) -> Limits {
        Limits {
            daily_applies: false,
            ..self
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            burst_per_minute: 120,
            import_batches_per_minute: 600,
            daily_contact_budget: 1000,
            lifetime_contact_budget: 100_000,
            free_plan_cap: svc_model::FREE_PLAN_CAP,
            daily_applies: true,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    pub id: String,
    pub callsign: String,
    pub plan: Plan,
    /// The account's own cap on native QSOs, set by its operator; `None`: the server's.
    pub qso_cap: Option<i64>,
    pub native_qso_count: i64,
    pub created_at: Timestamp,
    /// When the service's operator disabled it; `None` while it may be used.
    pub disabled_at: Option<Timestamp>,
}

/// A key as listed: never its plaintext or hash.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyRecord {
    pub id: String,
    pub callsign: String,
    pub name: String,
    pub tier: Tier,
    pub key_prefix: String,
    pub created_at: Timestamp,
    pub last_used_at: Option<Timestamp>,
    pub revoked_at: Option<Timestamp>,
    pub revoked_reason: Option<String>,
}

/// Who a request's key belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct Principal {
    pub key_id: String,
    pub key_prefix: String,
    pub account_id: String,
    pub callsign: String,
    pub plan: Plan,
    /// The account's own cap on native QSOs; `None`: the server's.
    pub qso_cap: Option<i64>,
    pub tier: Tier,
}

/// What one confirmation came to, by the contact's id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfirmOutcome {
    /// The contact is confirmed now, or gained confirmed details.
    Confirmed(String),
    /// The contact is marked received by LoTW now (an item with `received_on`).
    Received(String),
    /// The contact already said all of it.
    Already(String),
    /// No contact of the log is this QSO.
    Unmatched,
}

/// What marking one contact sent to a QSL service came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SentOutcome {
    /// Marked sent now, or with what was sent this time.
    Sent,
    /// The contact already said all of it.
    Already,
    /// The account has no contact of that id.
    Missing,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AuthOutcome {
    UnknownKey,
    Revoked,
    /// A live key of an account its operator disabled.
    Disabled,
    /// A live key, with the number of requests it made in the current burst window.
    Active {
        principal: Principal,
        window_count: i64,
    },
}

/// An `Idempotency-Key` and a fingerprint of the request it came with.
#[derive(Debug, Clone, PartialEq)]
pub struct IdemRequest {
    pub key: String,
    pub fingerprint: [u8; 32],
}

/// A create's outcome: done now, or the stored first outcome of the same idempotent request.
#[derive(Debug, Clone, PartialEq)]
pub enum Idem<T> {
    Fresh(T),
    Replayed(T),
}

impl<T> Idem<T> {
    pub fn into_parts(self) -> (T, bool) {
        match self {
            Idem::Fresh(t) => (t, false),
            Idem::Replayed(t) => (t, true),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContactCreated {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
}

/// One contact of a batch, checked by its folder's rules, with its item's idempotency key.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchCreate {
    pub contact: NewContact,
    pub idem: IdemRequest,
}

/// A logbook connection as stored: what the API shows, and what only the server may read.
#[derive(Debug, Clone, PartialEq)]
pub struct LogbookRecord {
    pub logbook: Logbook,
    pub account_id: String,
    pub key_sealed: Vec<u8>,
}

/// A logbook to connect; its key already checked with the provider and sealed.
#[derive(Debug, Clone, PartialEq)]
pub struct NewLogbook {
    pub id: String,
    pub provider: String,
    pub callsign: String,
    pub key_sealed: Vec<u8>,
    pub key_last4: String,
    /// Club Log's account email; `None` for QRZ.
    pub email: Option<String>,
    pub auto_push: bool,
    pub auto_sync: bool,
}

/// A new key for a logbook: the provider's answer about it, sealed. It ends a pause.
#[derive(Debug, Clone, PartialEq)]
pub struct LogbookKey {
    pub callsign: String,
    pub key_sealed: Vec<u8>,
    pub key_last4: String,
    /// A Club Log book's new account email; `None` keeps the one it has.
    pub email: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct LogbookChange {
    pub auto_push: Option<bool>,
    pub auto_sync: Option<bool>,
    pub key: Option<LogbookKey>,
}

/// A synced logbook to import from.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportJob {
    pub logbook_id: String,
    pub account_id: String,
    /// `qrz`, whose book is read for contacts, or `eqsl`, whose Inbox is read for
    /// confirmations.
    pub provider: String,
    /// The account's callsign: the activator of a record that names no station callsign.
    pub callsign: String,
    /// The book's callsign: an eQSL book's user name, whose QSOs its Inbox confirms.
    pub book_callsign: String,
    pub key_sealed: Vec<u8>,
    /// Where the next read starts: QRZ's last log id read (the next page starts after it), or
    /// eQSL's `RcvdSince` (YYYYMMDDHHMM: cards received on or after it).
    pub after: Option<String>,
    /// A QRZ book's status mark: the day (YYYY-MM-DD) from which its records changed since
    /// are read again for their confirmed status (`MODSINCE`); `None` before the first read.
    pub status_since: Option<String>,
}

/// One record read from a book, made a contact of its folder.
#[derive(Debug, Clone, PartialEq)]
pub struct FromBook {
    pub log_id: String,
    pub contact: NewContact,
}

/// What a page of an import did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageImported {
    pub created: u64,
    /// Matched a contact here (same call, band, mode and time within a minute).
    pub linked: u64,
    /// From here, deleted here, or imported before.
    pub skipped: u64,
    /// A limit stopped the page before its end.
    pub stopped: Option<String>,
}

/// How a review ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewSettled {
    Done,
    /// The account has no review of that contact.
    NoReview,
    /// The account has no logbook of that id.
    NoLogbook,
}

/// What a worker does for one external copy.
#[derive(Debug, Clone, PartialEq)]
pub enum ExternalAction {
    /// Send the contact; `account_callsign` is the operator for its ADIF record.
    Push {
        contact: Box<Contact>,
        account_callsign: String,
        /// Set when the contact was edited after a copy of it went to the book (or while one
        /// was on its way): the copy is replaced rather than added to.
        replacing: Option<Replacing>,
    },
    /// Delete the book's copy `log_id`: the contact was deleted here.
    Delete { log_id: String },
}

/// The book's copy an edited contact replaces.
#[derive(Debug, Clone, PartialEq)]
pub struct Replacing {
    /// The copy's log id in the book, when known; unknown when the book said it had the
    /// contact already and kept its own copy.
    pub log_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ExternalJob {
    pub contact_id: String,
    pub logbook_id: String,
    pub account_id: String,
    pub provider: String,
    pub key_sealed: Vec<u8>,
    /// The book's callsign (Club Log names the log by it) and a Club Log book's account email.
    pub book_callsign: String,
    pub email: Option<String>,
    /// `push`, `sync` or `import`: what a delete here does to the book's copy.
    pub via: String,
    /// Tries so far, this one included.
    pub attempts: i64,
    /// Edits of the contact counted on the copy when the job was taken: one more by the time
    /// it is settled means the contact changed while it was on its way, and it goes again.
    pub edits: i64,
    pub action: ExternalAction,
}

/// The external logbooks' queue at a glance, for the metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueueDepth {
    /// Jobs waiting to be sent to, or deleted from, books that are not paused.
    pub waiting: i64,
    /// Jobs held by paused books until their owners give a new key: counted apart, since
    /// they wait for a person, not for the workers.
    pub paused: i64,
    /// How long the oldest of `waiting` has been in the queue, in milliseconds; 0 when none
    /// waits.
    pub oldest_ms: i64,
}

/// How a job ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ExternalOutcome {
    /// In the book (`log_id` unknown when the book said it had it already).
    Pushed { log_id: Option<String> },
    /// Taken by eQSL (added, or a duplicate of one it has), which gives its copies no id: in
    /// the book, and the contact's `eqslQslSent` is `Y` and its `eqslQslSdate` the day it was
    /// settled, written in the transaction that settles the copy.
    SentToEqsl,
    /// Deleted there, or gone there already.
    Deleted,
    /// The book refused the contact; it stays failed with the reason.
    Refused(String),
    /// No answer or a failure there: tried again at `due`.
    Retry { error: String, due: Timestamp },
    /// The book refused the key: the logbook pauses and the job waits for a new key.
    Paused(String),
}

/// What became of one contact of a batch: stored now, replayed, or refused by a rule the
/// database enforces (a limit, a key used for another request).
pub type BatchOutcome = Result<Idem<ContactCreated>, ApiError>;

/// The answer of a delete, kept as an idempotent request's first response so that a retry
/// after the contact is gone answers it again rather than `not_found`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContactDeleted {
    pub id: String,
    pub success: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FolderCreated {
    #[serde(flatten)]
    pub folder: Folder,
    pub created: bool,
}

/// How long a web session lives: `idle_ms` after its last request, `absolute_ms` in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLifetime {
    pub idle_ms: i64,
    pub absolute_ms: i64,
    /// How long a browser that signed in is remembered as the account's known device.
    pub device_ms: i64,
}

/// How many attempts one scope (a client address, a callsign, a known device, the server's
/// sign-ups) may make in a window, and how long it waits after them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SigninLimit {
    /// Attempts counted in a window before the scope has to wait.
    pub max_failures: i64,
    /// How long a window lasts from its first counted attempt; then the count starts again.
    pub window_ms: i64,
    /// The wait after the last free attempt, doubled with each further one; `None`: no
    /// further attempt until the window ends.
    pub first_delay_ms: Option<i64>,
}

impl SigninLimit {
    /// How long a scope waits, from an attempt that made its count `failures`, before the next:
    /// not at all while the count is below `max_failures`, then `first_delay_ms` doubled with
    /// each failure beyond (1 s, 2 s, 4 s, …), or for good without a `first_delay_ms`. It
    /// saturates at `i64::MAX`; [`SigninLimit::wait_until`] ends it with the window.
    pub fn delay_ms(&self, failures: i64) -> i64 {
        let beyond = failures.saturating_sub(self.max_failures);
        if beyond < 0 {
            return 0;
        }
        match self.first_delay_ms {
            Some(first) => u32::try_from(beyond)
                .ok()
                .and_then(|beyond| 2i64.checked_pow(beyond))
                .map_or(i64::MAX, |factor| first.saturating_mul(factor)),
            None => i64::MAX,
        }
    }

    /// Until when a scope waits after an attempt at `at` that made its count `failures` in the
    /// window that started at `window_start`: [`SigninLimit::delay_ms`] from the attempt, and
    /// never past the window's end, when the count starts again. `None`: it need not wait.
    pub fn wait_until(&self, failures: i64, window_start: i64, at: i64) -> Option<i64> {
        let delay = self.delay_ms(failures);
        let window_end = window_start.saturating_add(self.window_ms);
        (delay > 0).then(|| at.saturating_add(delay).min(window_end))
    }
}

/// A scope an attempt counts in (`address:…`, `callsign:…`, …), with the limit it is held to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigninScope {
    pub scope: String,
    pub limit: SigninLimit,
}

/// Whether a sign-in (or sign-up) may be tried now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SigninAttempt {
    /// Counted as a failure of every scope until [`Store::signin_succeeded`] takes it back.
    Allowed(CountedAttempt),
    /// A scope has to wait, so nothing was counted: `scope` is the index of the one that waits
    /// longest, `retry_after_secs` how long.
    Limited { scope: usize, retry_after_secs: u64 },
}

/// An attempt as [`Store::begin_signin`] counted it: each scope with the time it set the
/// scope's next attempt to (0: no wait), so that taking it back undoes its wait unless a later
/// attempt has set another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountedAttempt {
    pub next_at: Vec<(String, i64)>,
}

/// A position in a keyset-paged list: the sort value and the row sequence of the last item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub sort: i64,
    pub seq: i64,
}

/// How many of an account's contacts were made with one grid on one band: a point of the web
/// page's map. `grid` is as stored (the `gridsquare` field, else the GRIDSQUARE an ADIF file
/// gave that svc could not check, such as a 10-character locator), upper case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridCount {
    pub grid: String,
    pub band: String,
    pub contacts: i64,
}

/// What the contacts of an account are counted by for a chart ([`Store::contacts_by`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountBy {
    Band,
    Mode,
}

/// Slices of time the contacts are counted in ([`Store::contacts_in_time`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeSlice {
    /// UTC days since the epoch (a chart by month sums them).
    Day,
    /// The UTC hour of the day, 0 to 23.
    HourOfDay,
    /// Ten minutes since the epoch: an activation's rate.
    TenMinutes,
}

/// A park reference list of the account's contacts (`sigInfo` or `mySigInfo`, as stored,
/// `US-0001,US-0002` for a two-fer) and how many contacts give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParkCount {
    /// `mySig`/`mySigInfo`: the account's own park (activated), else the other station's (hunted).
    pub own: bool,
    pub sig: String,
    pub references: String,
    pub contacts: i64,
}

#[async_trait]
pub trait Store: Send + Sync + 'static {
    // Accounts and keys, for the admin commands and the web pages.
    async fn create_account(
        &self,
        callsign: &str,
        plan: Plan,
        password_hash: Option<&str>,
    ) -> StoreResult<Account>;
    async fn account_by_callsign(&self, callsign: &str) -> StoreResult<Option<Account>>;
    /// The newest schema migration applied to the database, and the newest this build has.
    async fn schema_version(&self) -> StoreResult<(i64, i64)>;
    /// Every account, in callsign order.
    async fn list_accounts(&self) -> StoreResult<Vec<Account>>;
    /// Sets the account's plan and its own cap (`None`: the server's; only a plan with a cap
    /// has one).
    async fn set_plan(&self, account_id: &str, plan: Plan, qso_cap: Option<i64>)
    -> StoreResult<()>;
    /// Disables the account (`Some`: since when) or enables it (`None`); a disabled account's
    /// web sessions end.
    async fn set_disabled(&self, account_id: &str, at: Option<Timestamp>) -> StoreResult<()>;
    /// Sets the web password's hash and ends the account's web sessions.
    async fn set_password(&self, account_id: &str, password_hash: &str) -> StoreResult<()>;
    async fn create_key(
        &self,
        account_id: &str,
        name: &str,
        tier: Tier,
        key: &ApiKey,
    ) -> StoreResult<KeyRecord>;
    async fn list_keys(&self, account_id: &str) -> StoreResult<Vec<KeyRecord>>;
    /// Keys whose id is `id_or_prefix`, or whose `keyPrefix` is.
    async fn find_keys(&self, id_or_prefix: &str) -> StoreResult<Vec<KeyRecord>>;
    /// Revokes a live key; false when it was revoked already or does not exist.
    async fn revoke_key(&self, key_id: &str, reason: &str, now: Timestamp) -> StoreResult<bool>;

    // The web pages: keys made and revoked by the signed-in owner, sessions, sign-in limits.
    /// Makes a key from a form whose one-time `form_token` it records; `None` when a key was
    /// made from that form already (the same form posted again).
    async fn create_key_from_form(
        &self,
        account_id: &str,
        name: &str,
        tier: Tier,
        key: &ApiKey,
        form_token: &str,
    ) -> StoreResult<Option<KeyRecord>>;
    /// Revokes a live key of this account with the reason `user`; false when the account has
    /// no such live key (another account's key included).
    async fn revoke_account_key(
        &self,
        account_id: &str,
        key_id: &str,
        now: Timestamp,
    ) -> StoreResult<bool>;
    /// The account and its password hash (none when it was made without a password).
    async fn account_credentials(
        &self,
        callsign: &str,
    ) -> StoreResult<Option<(Account, Option<String>)>>;
    async fn create_session(
        &self,
        token_hash: [u8; 32],
        account_id: &str,
        now: Timestamp,
    ) -> StoreResult<()>;
    /// The account of the live session with this hash, which counts as used now; `None` when
    /// there is none or it has expired.
    async fn session(
        &self,
        token_hash: [u8; 32],
        now: Timestamp,
        lifetime: SessionLifetime,
    ) -> StoreResult<Option<Account>>;
    async fn delete_session(&self, token_hash: [u8; 32]) -> StoreResult<()>;
    /// Counts a sign-in attempt as a failure of each scope, unless one of them has to wait
    /// (its next attempt is later than `now`), in which case nothing is counted.
    async fn begin_signin(
        &self,
        scopes: &[SigninScope],
        now: Timestamp,
    ) -> StoreResult<SigninAttempt>;
    /// Takes back the failures [`Store::begin_signin`] counted, for an attempt that succeeded.
    async fn signin_succeeded(&self, counted: &CountedAttempt) -> StoreResult<()>;
    /// Remembers a browser (the hash of its device cookie) that signed in to the account.
    async fn remember_device(
        &self,
        token_hash: [u8; 32],
        account_id: &str,
        now: Timestamp,
    ) -> StoreResult<()>;
    /// The account a device cookie was remembered for, while it is remembered.
    async fn device_account(
        &self,
        token_hash: [u8; 32],
        now: Timestamp,
        lifetime: SessionLifetime,
    ) -> StoreResult<Option<String>>;
    /// Deletes expired sessions, sign-in counters whose window started `counters_ms` ago or
    /// more (the longest window of any limit) and devices remembered too long; returns how many.
    async fn purge_web(
        &self,
        now: Timestamp,
        lifetime: SessionLifetime,
        counters_ms: i64,
    ) -> StoreResult<u64>;

    /// Looks a key up by its hash and counts this request in its burst window.
    async fn authenticate(
        &self,
        key: &ApiKey,
        now: Timestamp,
        window_ms: i64,
    ) -> StoreResult<AuthOutcome>;

    async fn native_qso_count(&self, account_id: &str) -> StoreResult<i64>;
    async fn folder(&self, account_id: &str, folder_id: &str) -> StoreResult<Option<Folder>>;
    /// The folder for the contact rules. A monthly log or category, whose type, name, month
    /// and program never change once it exists (folders are never deleted), may come from this
    /// process's memory, with a stale `contact_count`; an activation, whose parks may grow
    /// ([`Store::add_parks`]) in another process, is read each time.
    async fn folder_for_contacts(
        &self,
        account_id: &str,
        folder_id: &str,
    ) -> StoreResult<Option<Folder>>;
    /// Folders in creation order after `after`, at most `limit` + 1 (the extra one says more exist).
    async fn list_folders(
        &self,
        account_id: &str,
        folder_type: Option<FolderType>,
        after: Option<Position>,
        limit: u32,
    ) -> StoreResult<Vec<(Folder, Position)>>;
    /// A folder's contacts, newest `timeOn` first, after `after`, at most `limit` + 1.
    async fn list_contacts(
        &self,
        folder_id: &str,
        after: Option<Position>,
        limit: u32,
    ) -> StoreResult<Vec<(Contact, Position)>>;
    /// The contacts of every folder below the category `folder_id`, or of the whole account
    /// for `None` (the root), newest `timeOn` first, after `after`, at most `limit` + 1.
    async fn list_contacts_below(
        &self,
        account_id: &str,
        folder_id: Option<&str>,
        after: Option<Position>,
        limit: u32,
    ) -> StoreResult<Vec<(Contact, Position)>>;
    /// The account's contacts that `filter` picks (the log page's search), newest `timeOn`
    /// first, after `after`, at most `limit` + 1; positions as [`Store::list_contacts_below`]'s.
    async fn search_contacts(
        &self,
        account_id: &str,
        filter: &svc_model::search::ContactFilter,
        after: Option<Position>,
        limit: u32,
    ) -> StoreResult<Vec<(Contact, Position)>>;
    /// One contact of the account by its id; `None` when the account has no such contact (a
    /// deleted one, or another account's).
    async fn contact(&self, account_id: &str, contact_id: &str) -> StoreResult<Option<Contact>>;
    /// What `award` reads of every contact of the account (`svc_model::awards::Entry`) that
    /// carries what it needs (`Award::needs`), handed to `each` one by one in no order an
    /// award depends on, a chunk at a time, or one entry for all the contacts alike in what
    /// it reads (`Award::reads`, `Entry::read_by`).
    async fn award_entries(
        &self,
        account_id: &str,
        award: svc_model::awards::Award,
        each: &mut (dyn FnMut(svc_model::awards::Entry) + Send),
    ) -> StoreResult<()>;
    /// How many contacts the folders below each category of the account hold.
    async fn category_counts(&self, account_id: &str) -> StoreResult<Vec<(String, i64)>>;
    /// The account's contacts counted by grid and band, one row per distinct pair (the
    /// database groups them: a log of any size is a few rows per grid worked); contacts with
    /// no grid are not counted.
    async fn grid_counts(&self, account_id: &str) -> StoreResult<Vec<GridCount>>;
    /// The account's contacts counted by band or by mode.
    async fn contacts_by(&self, account_id: &str, by: CountBy) -> StoreResult<Vec<(String, i64)>>;
    /// The contacts of the account, or of its folder `folder_id`, counted by slice of time:
    /// `(slice, contacts)`, the slice's number as [`TimeSlice`] says.
    async fn contacts_in_time(
        &self,
        account_id: &str,
        folder_id: Option<&str>,
        slice: TimeSlice,
    ) -> StoreResult<Vec<(i64, i64)>>;
    /// The park reference lists of the account's contacts, hunted and activated.
    async fn park_counts(&self, account_id: &str) -> StoreResult<Vec<ParkCount>>;
    /// Activation folders, newest start first, after `after`, at most `limit` + 1.
    async fn list_activations(
        &self,
        account_id: &str,
        after: Option<Position>,
        limit: u32,
    ) -> StoreResult<Vec<(Folder, Position)>>;

    async fn create_contact(
        &self,
        account_id: &str,
        contact: &NewContact,
        limits: &Limits,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<ContactCreated>>;
    /// Creates the account's contacts in the order given, each as [`Store::create_contact`]
    /// would on its own with its idempotency key: a key used before replays (a key repeated in
    /// the batch replays its first item), the limits admit the contacts in order while they
    /// leave room, and a duplicate is flagged against earlier contacts and earlier items. One
    /// outcome per item, in order; `Err` only when the database failed.
    async fn create_contacts(
        &self,
        account_id: &str,
        items: &[BatchCreate],
        limits: &Limits,
        now: Timestamp,
    ) -> StoreResult<Vec<BatchOutcome>>;
    /// Counts `n` more requests of the key in its burst window of `window_ms` (as
    /// [`Store::authenticate`] counts one); returns the window's count after them.
    /// Moves a request of `key_id` already counted in its burst window into its import
    /// window, for an import batch; returns the import window's count with it.
    async fn count_import(&self, key_id: &str, now: Timestamp, window_ms: i64) -> StoreResult<i64>;
    async fn count_requests(
        &self,
        key_id: &str,
        n: i64,
        now: Timestamp,
        window_ms: i64,
    ) -> StoreResult<i64>;
    /// Deletes the account's contact; one that is not there (deleted, or another account's) is
    /// `not_found`, unless the same idempotent request deleted it, which replays that answer.
    async fn delete_contact(
        &self,
        account_id: &str,
        contact_id: &str,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<ContactDeleted>>;
    /// Edits the account's contact in one transaction: the row is locked, `patch` is applied
    /// to it and checked by its folder's rules ([`ContactPatch::apply`]), and the result is
    /// written over it. A contact that is not there (deleted, or another account's) is
    /// `not_found`: an edit never makes a contact again. A replay answers the contact as the
    /// first request answered it.
    async fn edit_contact(
        &self,
        account_id: &str,
        contact_id: &str,
        patch: &ContactPatch,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<Contact>>;
    /// Writes a QSL service's confirmations into the account's contacts, in one transaction:
    /// each item confirms the contact `svc_model::confirm::nearness` ranks nearest, if any, as
    /// `svc_model::confirm::apply` writes the service's confirmation.
    /// `account_callsign` stands for the station callsign of contacts without one.
    async fn confirm_contacts(
        &self,
        account_id: &str,
        account_callsign: &str,
        items: Vec<svc_model::confirm::Confirmation>,
        service: svc_model::confirm::QslService,
    ) -> StoreResult<Vec<ConfirmOutcome>>;
    /// Marks the account's contacts uploaded to LoTW (`svc_model::confirm::apply_lotw_sent`),
    /// in one transaction; an outcome per item, in order.
    async fn mark_sent(
        &self,
        account_id: &str,
        items: Vec<svc_model::confirm::Sent>,
    ) -> StoreResult<Vec<SentOutcome>>;

    /// How far the account's contacts are with each QSL service.
    async fn confirmation_status(
        &self,
        account_id: &str,
    ) -> StoreResult<svc_model::confirm::ConfirmationStatus>;

    /// Connects an external logbook to the account.
    async fn create_logbook(
        &self,
        account_id: &str,
        new: &NewLogbook,
        now: Timestamp,
    ) -> StoreResult<LogbookRecord>;
    async fn logbook(&self, account_id: &str, id: &str) -> StoreResult<Option<LogbookRecord>>;
    /// The account's logbooks, oldest first, with their counts.
    async fn logbooks(&self, account_id: &str) -> StoreResult<Vec<LogbookRecord>>;
    /// Changes a logbook of the account; false when it has none with that id.
    async fn change_logbook(
        &self,
        account_id: &str,
        id: &str,
        change: &LogbookChange,
    ) -> StoreResult<bool>;
    /// Disconnects a logbook: what waited for it is forgotten, its copies stay in the book.
    async fn delete_logbook(&self, account_id: &str, id: &str) -> StoreResult<bool>;
    /// Every logbook's sealed key, to seal them again under a new server secret.
    async fn sealed_keys(&self) -> StoreResult<Vec<(String, Vec<u8>)>>;
    async fn reseal_key(&self, id: &str, sealed: &[u8]) -> StoreResult<()>;
    /// Takes up to `limit` due pushes and deletes for `lease_ms`, for one worker of any
    /// process; a job taken by one is not taken by another until its lease runs out.
    /// Leases up to `limit` due jobs, the most overdue first, of books not in `busy`.
    async fn claim_external(
        &self,
        now: Timestamp,
        lease_ms: i64,
        limit: i64,
        busy: &[String],
    ) -> StoreResult<Vec<ExternalJob>>;
    /// How many jobs the queue holds and how long the oldest has waited (metrics).
    async fn queue_depth(&self) -> StoreResult<QueueDepth>;
    async fn settle_external(
        &self,
        job: &ExternalJob,
        outcome: &ExternalOutcome,
        now: Timestamp,
    ) -> StoreResult<()>;
    /// Takes one logbook whose import is due, for `lease_ms`, for one process: a synced QRZ
    /// book, or any eQSL book (its Inbox holds confirmations, which route no contact).
    async fn claim_import(&self, now: Timestamp, lease_ms: i64) -> StoreResult<Option<ImportJob>>;
    /// Files one page read from the book, in one transaction: each record the book had from
    /// here, or that was deleted here, is skipped; one matching a contact here is linked to
    /// it; the others are stored. The import goes on after `last_log_id` next time.
    async fn import_page(
        &self,
        job: &ImportJob,
        items: &[FromBook],
        last_log_id: Option<&str>,
        limits: &Limits,
        now: Timestamp,
    ) -> StoreResult<PageImported>;
    /// Ends an import: the lease goes, the next one is due at `next` (or at once, when an
    /// import was asked for while this one ran: it may have read the book before what the
    /// user wanted read), `error` is shown.
    async fn finish_import(
        &self,
        logbook_id: &str,
        next: Timestamp,
        error: Option<&str>,
    ) -> StoreResult<()>;
    /// Writes QRZ's status of the book's records, by log id, into the contacts they are copies
    /// of (`svc_model::confirm::QrzStatus::apply`), in one transaction; a log id no copy has
    /// is the import's business, not this. With `since`, the book's status mark moves there.
    /// How many contacts changed.
    async fn book_statuses(
        &self,
        job: &ImportJob,
        statuses: &[(String, svc_model::confirm::QrzStatus)],
        since: Option<&str>,
    ) -> StoreResult<u64>;
    /// Records where the next read of the book starts (an eQSL book's `RcvdSince`), once what
    /// was read is written.
    async fn set_import_after(&self, logbook_id: &str, after: &str) -> StoreResult<()>;
    /// Makes the logbook's import due now; false when the account has no such logbook.
    async fn request_import(&self, account_id: &str, id: &str) -> StoreResult<bool>;
    /// The account's contacts of the book's callsign (their station callsign, else the
    /// account's) that have no copy bound for the book yet, oldest first, with the account's
    /// callsign: what an upload of the back log sends.
    async fn backlog(
        &self,
        account_id: &str,
        logbook_id: &str,
    ) -> StoreResult<(String, Vec<Contact>)>;
    /// Binds contacts for the book before an upload sends them, each with its copy's log id:
    /// a copy on its way (`waiting`, leased until `lease_until` so no worker sends it too). An
    /// edit while the upload is under way is counted on it as on any copy on its way. The
    /// contacts bound: one deleted meanwhile, or bound for the book already, is not, and
    /// nothing is while the book is paused.
    async fn reserve_upload(
        &self,
        account_id: &str,
        logbook_id: &str,
        copies: &[(String, String)],
        lease_until: Timestamp,
    ) -> StoreResult<Vec<String>>;
    /// Ends an upload of the contacts [`Store::reserve_upload`] bound. Taken: each is pushed,
    /// or, edited meanwhile, goes again as a replacement. Not taken: they are unbound, as if
    /// never sent.
    async fn settle_upload(
        &self,
        logbook_id: &str,
        contact_ids: &[String],
        taken: bool,
    ) -> StoreResult<()>;
    /// Pauses the book: nothing goes to it until a new key is given; `reason` says why.
    async fn pause_logbook(&self, logbook_id: &str, reason: &str) -> StoreResult<()>;
    /// The account's contacts waiting for review, oldest first.
    async fn reviews(&self, account_id: &str) -> StoreResult<Vec<Review>>;
    /// Ends a review: the contact goes to `send_to` (a book of the account), or nowhere.
    async fn settle_review(
        &self,
        account_id: &str,
        contact_id: &str,
        send_to: Option<&str>,
        now: Timestamp,
    ) -> StoreResult<ReviewSettled>;
    /// Where these contacts went, by contact id.
    async fn external_copies(
        &self,
        contact_ids: &[String],
    ) -> StoreResult<Vec<(String, ExternalCopy)>>;
    async fn find_or_create_activation(
        &self,
        account_id: &str,
        activation: &NewActivation,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<FolderCreated>>;
    async fn find_or_create_monthly(
        &self,
        account_id: &str,
        monthly: &NewMonthly,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<FolderCreated>>;
    async fn create_category(
        &self,
        account_id: &str,
        name: &str,
        parent_id: Option<&str>,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<FolderCreated>>;
    /// Ends an activation or a contest log (`kind`): sets its `endTime`, once
    /// (`POST /v1/activations/{id}/end`, `POST /v1/contests/{id}/end`).
    async fn end_folder(
        &self,
        account_id: &str,
        folder_id: &str,
        kind: FolderType,
        end_time: Timestamp,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<Folder>>;
    /// Starts a contest log, or joins the one of its contest, callsign and weekend
    /// (`POST /v1/contests`).
    async fn find_or_create_contest(
        &self,
        account_id: &str,
        contest: &NewContest,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<FolderCreated>>;
    /// Takes `count` serial numbers of a contest log for one station
    /// (`POST /v1/contests/{id}/serials`): after every number handed out or sent before.
    async fn reserve_serials(
        &self,
        account_id: &str,
        folder_id: &str,
        count: u32,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<svc_model::contest::SerialBlock>>;
    /// Adds the parks of `added` (a park or a comma list) to an activation
    /// (`POST /v1/activations/{id}/parks`): its reference, name and identity, and every one of
    /// its contacts' `my_sig_info`, in one transaction; the folder as it is after.
    async fn add_parks(
        &self,
        account_id: &str,
        folder_id: &str,
        added: &str,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<Folder>>;
    /// Forgets the idempotency keys first used before `before`; returns how many.
    async fn purge_idempotency(&self, before: Timestamp) -> StoreResult<u64>;
    /// The account's station profiles, by callsign.
    async fn stations(&self, account_id: &str) -> StoreResult<Vec<svc_model::StationProfile>>;
    /// Creates or replaces a station profile; `true` when it was created.
    async fn put_station(
        &self,
        account_id: &str,
        profile: &svc_model::StationProfile,
        now: Timestamp,
    ) -> StoreResult<bool>;
    /// Removes a station profile; `false` when there was none.
    async fn delete_station(&self, account_id: &str, callsign: &str) -> StoreResult<bool>;
}

/// Opens the store a database URL names: `postgres://…` (or `postgresql://…`), or SQLite as
/// `sqlite://PATH`, `sqlite:PATH` or a plain path.
pub async fn open(url: &str) -> StoreResult<std::sync::Arc<dyn Store>> {
    let store = match Database::of(url)? {
        Database::Postgres(url) => SqlStore::open_postgres(url).await?,
        Database::Sqlite(path) => SqlStore::open_sqlite(path).await?,
    };
    Ok(std::sync::Arc::new(store))
}

/// The database a URL names.
enum Database<'a> {
    Sqlite(&'a std::path::Path),
    Postgres(&'a str),
}

impl<'a> Database<'a> {
    fn of(url: &'a str) -> StoreResult<Database<'a>> {
        // Anything else with a scheme would be taken for a file path (`mysql:` as a folder).
        if let Some((scheme, _)) = url.split_once("://")
            && !matches!(scheme, "sqlite" | "postgres" | "postgresql")
        {
            return Err(StoreError::Api(ApiError::validation(format!(
                "--database: {:?} is not a database this service can use; give sqlite://PATH (one file) or postgres://USER@HOST:PORT/DB",
                svc_model::ids::truncate(scheme, 20)
            ))));
        }
        Ok(
            if url.starts_with("postgres://") || url.starts_with("postgresql://") {
                Database::Postgres(url)
            } else {
                let path = url
                    .strip_prefix("sqlite://")
                    .or_else(|| url.strip_prefix("sqlite:"))
                    .unwrap_or(url);
                Database::Sqlite(std::path::Path::new(path))
            },
        )
    }
}

/// Copies the SQLite database a URL names to `to` while servers may write to it
/// ([`sql::backup_sqlite`]). PostgreSQL has its own tool, which the refusal names.
pub async fn backup(url: &str, to: &std::path::Path) -> StoreResult<Backup> {
    match Database::of(url)? {
        Database::Sqlite(path) => sql::backup_sqlite(path, to).await,
        Database::Postgres(_) => Err(StoreError::Api(ApiError::validation(
            "svc server backup copies an SQLite database; back up PostgreSQL with pg_dump \
             (docs/DEPLOY.md, \"Backups\")",
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIGNIN: SigninLimit = SigninLimit {
        max_failures: 5,
        window_ms: 900_000,
        first_delay_ms: Some(1000),
    };

    #[test]
    fn the_first_failures_are_free_then_the_delay_doubles() {
        for failures in 0..5 {
            assert_eq!(SIGNIN.delay_ms(failures), 0, "{failures}");
        }
        let delays: Vec<i64> = (5..10).map(|n| SIGNIN.delay_ms(n)).collect();
        assert_eq!(delays, [1000, 2000, 4000, 8000, 16_000]);
    }

    #[test]
    fn the_delay_never_overflows() {
        for failures in [62, 63, 64, 1000, i64::MAX] {
            assert_eq!(SIGNIN.delay_ms(failures), i64::MAX, "{failures}");
        }
        assert_eq!(SIGNIN.delay_ms(i64::MIN), 0);
    }

    #[test]
    fn the_wait_is_counted_from_the_attempt_and_ends_with_the_window() {
        let start = 1_000_000;
        // Within the free failures: no wait.
        assert_eq!(SIGNIN.wait_until(4, start, start + 5000), None);
        // The fifth failure: a second after it, then 4 s after the seventh.
        assert_eq!(
            SIGNIN.wait_until(5, start, start + 5000),
            Some(start + 6000)
        );
        assert_eq!(
            SIGNIN.wait_until(7, start, start + 5000),
            Some(start + 9000)
        );
        // Never past the window's end, however many failures.
        assert_eq!(
            SIGNIN.wait_until(12, start, start + 800_000),
            Some(start + 900_000)
        );
        assert_eq!(SIGNIN.wait_until(200, start, start), Some(start + 900_000));
    }

    #[test]
    fn a_limit_without_a_delay_waits_for_the_window_s_end() {
        let wall = SigninLimit {
            max_failures: 10,
            window_ms: 3_600_000,
            first_delay_ms: None,
        };
        assert_eq!(wall.wait_until(9, 0, 60_000), None);
        assert_eq!(wall.wait_until(10, 0, 60_000), Some(3_600_000));
    }
}
