//! The store on SQL, for both backends:
//! - SQLite, embedded: WAL mode, foreign keys on, `synchronous = FULL` so that a committed write
//!   survives a crash. All writes go through one connection owned by the [`writer`] task, which
//!   commits them in groups (SQLite allows one writer at a time, and one `fsync` per group
//!   instead of one per write is what makes creates fast); reads go through a pool of their own.
//! - PostgreSQL, for several server processes on one database: each write is a transaction of
//!   its own on a pooled connection, and the database orders concurrent ones. Contact creates
//!   and key lookups, which every busy request makes, go to the database in [`grouped`]
//!   statements, one per group of requests that wait at the same moment.
//!
//! Every statement is written once for both, in the SQL they share (`$n` placeholders,
//! `ON CONFLICT`, `RETURNING`). Each rule that concurrency could break is a unique index or a
//! conditional write, so it holds across processes as well as across tasks.

mod writer;

use std::collections::HashMap;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde::Serialize;
use serde::de::DeserializeOwned;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions, AnyRow};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePool, SqlitePoolOptions, SqliteRow};
use sqlx::{AnyConnection, AnyPool};
use sqlx::{ConnectOptions, Connection, Executor, Row};
use subtle::ConstantTimeEq;

use super::*;
use contacts::*;
use folders::*;
use grouped::{Create, Created, Disk, Groups, Lookup};
use idempotency::*;
use limits::*;
use rows::*;
use svc_model::{IdKind, Program, RateLimitReason, folder::ROOT_NAME};
use writer::{BoxFuture, Kind, Writer};

pub use backup::{Backup, backup_sqlite};

/// Connections a PostgreSQL store keeps at most in each of its pools, per server process.
const POSTGRES_CONNECTIONS: u32 = 16;

/// The store on SQL: SQLite or PostgreSQL through sqlx's `Any` driver, so that both run the
/// same statements and only the schema (migrations) and the way writes are committed differ.
pub struct SqlStore {
    reader: AnyPool,
    /// SQLite only: contacts pages, the hot read, skip the `Any` layer, whose conversion of
    /// every row and column doubled their cost, and take a whole page per hand-off (see
    /// `pages`).
    pages: Option<SqlitePool>,
    writes: Writes,
    /// Folders as the contact rules read them, by account and id; see `folder_for_contacts`.
    known_folders: Mutex<HashMap<(String, String), Folder>>,
}

/// How much of an SQLite file the contacts pages read through a memory map (the address
/// space, not memory: the kernel's page cache holds the pages either way).
const MMAP_SIZE: u64 = 1 << 30;

/// Folders a process keeps for the contact rules at most; past that it starts over.
const KNOWN_FOLDERS: usize = 4096;

macro_rules! folder_cols {
    () => {
        "id, name, type, parent_id, program_id, month, start_time, end_time, location_reference, \
         location_name, callsign, auto_folder_key, contest, contact_count, created_at, seq"
    };
}

/// A contact's columns from `contacts` (named so, not aliased), with `first_of_key`: the first
/// stored contact of its folder with its duplicate key, which makes `duplicateOf`. It is read
/// with the contact rather than stored, since an edit of any contact of the key can change it.
/// Contacts without a key (most) skip the lookup, which would cost a page an index probe a row.
macro_rules! contact_cols {
    () => {
        "id, folder_id, callsign, frequency, band, mode, time_on, rst_sent, rst_received, name, notes, \
         sig, sig_info, my_sig, my_sig_info, activation_id, station_callsign, fields, created_at, seq, \
         CASE WHEN dupe_key IS NULL THEN NULL ELSE \
           (SELECT d.id FROM contacts d WHERE d.folder_id = contacts.folder_id \
            AND d.dupe_key = contacts.dupe_key ORDER BY d.seq LIMIT 1) END AS first_of_key"
    };
}

macro_rules! key_cols {
    () => {
        "k.id, a.callsign, k.name, k.tier, k.key_prefix, k.created_at, u.last_used_at, k.revoked_at, \
         k.revoked_reason FROM api_keys k JOIN accounts a ON a.id = k.account_id \
         LEFT JOIN key_usage u ON u.key_id = k.id"
    };
}

/// The keys (`k`) with their accounts (`a`), as `authenticate` reads them; the query narrows
/// them by `k.lookup`, the first 8 bytes of the hash.
macro_rules! key_lookup {
    () => {
        "k.id, k.key_prefix, k.key_hash, k.tier, k.revoked_at, a.id AS account_id, a.callsign, \
         a.plan, a.qso_cap, a.disabled_at FROM api_keys k JOIN accounts a ON a.id = k.account_id"
    };
}

/// Adds the requests of the inserted row (`excluded`) to its key's count in their burst window
/// (`excluded.window_start`): a new window starts the count again.
macro_rules! count_in_window {
    () => {
        "count = CASE WHEN key_usage.window_start = excluded.window_start \
           THEN key_usage.count + excluded.count ELSE excluded.count END, \
         window_start = excluded.window_start, last_used_at = excluded.last_used_at"
    };
}

/// A folder's page of contacts: `$1` the folder, after the position (`$2`, `$3`), `$4` rows.
///
/// Every page after a position says so as `time_on <= $2` and then the tie on `seq`: the first
/// is a range the index seeks to, where one `OR` of the two had both databases walk the index
/// from the newest contact to the position, so that reading a whole log a page at a time took
/// time in the square of its length.
macro_rules! folder_page {
    () => {
        concat!(
            "SELECT ",
            contact_cols!(),
            " FROM contacts WHERE folder_id = $1 AND time_on <= $2 AND (time_on < $2 OR seq < $3) \
              ORDER BY time_on DESC, seq DESC LIMIT $4"
        )
    };
}

/// The account's (`$1`) page of contacts, after the position (`$2`, `$3`), `$4` rows.
macro_rules! account_page {
    () => {
        concat!(
            "SELECT ",
            contact_cols!(),
            " FROM contacts WHERE account_id = $1 \
              AND time_on <= $2 AND (time_on < $2 OR seq < $3) \
              ORDER BY time_on DESC, seq DESC LIMIT $4"
        )
    };
}

/// The page of contacts of every folder below the category `$5`, as `account_page!`.
macro_rules! category_page {
    () => {
        concat!(
            "WITH RECURSIVE below (id) AS ( \
               SELECT id FROM folders WHERE parent_id = $5 AND account_id = $1 \
               UNION ALL \
               SELECT folders.id FROM folders JOIN below ON folders.parent_id = below.id) \
             SELECT ",
            contact_cols!(),
            " FROM contacts WHERE account_id = $1 AND folder_id IN (SELECT id FROM below) \
              AND time_on <= $2 AND (time_on < $2 OR seq < $3) \
              ORDER BY time_on DESC, seq DESC LIMIT $4"
        )
    };
}

// After the SQL macros, which their statements share.
/// Charges one contact to the account's counters if every limit of its plan allows it
/// ([`Plan`]): the lifetime budget (`$2`), the free plan's cap (the account's own, else the
/// server's `$3`) and the budget (`$5`) of the UTC day `$4`. All three are checked on the row
/// as it is once locked, in one conditional update, so concurrent creates from any process end
/// exactly at a limit, and a refusal changes nothing.
macro_rules! charge_account {
    () => {
        "UPDATE accounts SET lifetime_created = lifetime_created + 1, \
         native_qso_count = native_qso_count + 1, \
         daily_created = CASE WHEN daily_day = $4 THEN daily_created + 1 ELSE 1 END, \
         daily_day = $4 \
         WHERE id = $1 AND (NOT budgeted OR lifetime_created < $2) \
         AND (NOT capped OR native_qso_count < COALESCE(qso_cap, $3)) \
         AND (NOT budgeted OR ((daily_day <> $4 OR daily_created < $5) AND $5 > 0))"
    };
}

mod accounts;
mod awards;
mod backup;
mod batch;
mod confirm;
mod contacts;
mod contests;
mod edit;
mod folders;
mod functions;
mod grouped;
mod idempotency;
mod keys;
mod limits;
mod logbooks;
mod pages;
mod pictures;
mod queue;
mod rows;
mod search;
mod stations;
mod web;

fn lookup_of(hash: &[u8; 32]) -> i64 {
    let mut first = [0u8; 8];
    first.copy_from_slice(&hash[..8]);
    i64::from_be_bytes(first)
}

/// Each backend's schema migrations, embedded once: run at open, and compared by the health
/// check with what a database holds.
static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// Settings every SQLite connection needs; WAL mode itself is kept in the file.
const SQLITE_CONNECTION: &str = "PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 10000;";

/// How a backend writes.
enum Writes {
    /// SQLite: the one write connection, committing in groups.
    Grouped(Writer),
    /// PostgreSQL: a transaction per write on a pooled connection; the server orders them.
    /// Contact creates and key lookups, the writes of every busy request, go in groups.
    Pooled {
        pool: AnyPool,
        creates: Groups<Create>,
        lookups: Groups<Lookup>,
    },
}

impl SqlStore {
    fn known_folders(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), Folder>> {
        // The map holds only copies of rows; one left half-updated by a panic is still right.
        self.known_folders
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Opens (creating if needed) an SQLite file and runs its migrations.
    pub async fn open_sqlite(path: &Path) -> StoreResult<SqlStore> {
        sqlx::any::install_default_drivers();
        let io = |e| StoreError::Db(sqlx::Error::Io(e));
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(io)?;
        }
        // The file holds password hashes and sealed keys: a new one is the owner's alone
        // (SQLite makes its -wal and -shm files with the same mode). An existing file keeps
        // the mode its owner gave it.
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)
            .map_err(io)?;
        let file = SqliteConnectOptions::new().filename(path);
        let url = |file: SqliteConnectOptions| AnyConnectOptions::from_url(&file.to_url_lossy());
        let mut writer =
            AnyConnection::connect_with(&url(file.clone().create_if_missing(true))?).await?;
        // FULL: a commit is on disk before its writes are acknowledged.
        // The writer's page cache holds the indexes a large import probes on every insert
        // (SQLite's default of 2 MiB read them again from the file a batch at a time); it
        // grows only as pages are used. A checkpoint every 8,192 pages (32 MiB of WAL) rather
        // than 1,000 copies an index page rewritten by many batches into the file once.
        writer
            .execute(
                "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA cache_size = -16384; \
                 PRAGMA wal_autocheckpoint = 8192;",
            )
            .await?;
        writer.execute(SQLITE_CONNECTION).await?;
        SQLITE_MIGRATIONS.run(&mut writer).await?;
        let reader = AnyPoolOptions::new()
            .max_connections(4)
            .after_connect(|conn, _| {
                Box::pin(async move { conn.execute(SQLITE_CONNECTION).await.map(drop) })
            })
            .connect_with(url(file.clone().read_only(true))?)
            .await?;
        let pages = SqlitePoolOptions::new()
            .max_connections(2)
            .connect_with(
                file.read_only(true)
                    .busy_timeout(Duration::from_secs(10))
                    // A whole account's pages in time order visit the table's pages in no
                    // order: read through a map of the file rather than a copy of each page
                    // per visit, which was most of an export's system time.
                    .pragma("mmap_size", MMAP_SIZE.to_string()),
            )
            .await?;
        Ok(SqlStore {
            reader,
            pages: Some(pages),
            writes: Writes::Grouped(Writer::spawn(writer)),
            known_folders: Mutex::default(),
        })
    }

    /// Connects to a PostgreSQL database and runs its migrations.
    pub async fn open_postgres(url: &str) -> StoreResult<SqlStore> {
        sqlx::any::install_default_drivers();
        let pool = AnyPoolOptions::new()
            .max_connections(POSTGRES_CONNECTIONS)
            // While the database is away, a request fails in seconds rather than waiting for it.
            .acquire_timeout(Duration::from_secs(5))
            .test_before_acquire(false)
            .after_connect(|conn, _| {
                Box::pin(async move {
                    conn.execute("SET plan_cache_mode = force_generic_plan")
                        .await
                        .map(drop)
                })
            })
            .connect(url)
            .await?;
        POSTGRES_MIGRATIONS.run(&pool).await?;
        functions::install_functions(&pool).await?;
        // Groups run on connections of their own, one group of each kind at a time. They
        // commit without waiting for the disk: creates wait for it afterwards (a create alone
        // commits synchronously instead, see grouped.rs), and a burst count lost to a crash
        // costs a request's worth of a limit, never data. Their statements are planned at
        // each call, for the tables as they are then: a plan kept from when the tables were
        // small would scan them whole as they grow. No planner setting is overridden
        // (crates/store/migrations/postgres/0012 says why).
        let grouped = AnyPoolOptions::new()
            .max_connections(2)
            .acquire_timeout(Duration::from_secs(5))
            .test_before_acquire(false)
            .after_connect(|conn, _| {
                Box::pin(async move {
                    conn.execute(
                        "SET synchronous_commit = off; SET plan_cache_mode = force_custom_plan",
                    )
                    .await
                    .map(drop)
                })
            })
            .connect(url)
            .await?;
        Ok(SqlStore {
            reader: pool.clone(),
            pages: None,
            writes: Writes::Pooled {
                creates: Groups::spawn(grouped.clone(), Some(Arc::new(Disk::new(pool.clone())))),
                lookups: Groups::spawn(grouped, None),
                pool,
            },
            known_folders: Mutex::default(),
        })
    }

    /// Stores a key; `None` when `form_token` was used for a key of the account already (the
    /// unique index decides, so two posts of one form at once make one key).
    async fn insert_key(
        &self,
        account_id: &str,
        name: &str,
        tier: Tier,
        key: &ApiKey,
        form_token: Option<&str>,
    ) -> StoreResult<Option<KeyRecord>> {
        let id = IdKind::Key.generate();
        let hash = key.hash();
        let (account_id, name, prefix) = (account_id.to_owned(), name.to_owned(), key.prefix());
        let form_token = form_token.map(str::to_owned);
        self.write(move |tx| {
            Box::pin(async move {
                let inserted = sqlx::query(
                    "INSERT INTO api_keys (id, account_id, name, tier, key_prefix, lookup, key_hash, created_at, form_token) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
                     ON CONFLICT (account_id, form_token) DO NOTHING",
                )
                .bind(&id)
                .bind(&account_id)
                .bind(&name)
                .bind(tier.as_str())
                .bind(&prefix)
                .bind(lookup_of(&hash))
                .bind(&hash[..])
                .bind(Timestamp::now().millis())
                .bind(form_token.as_deref())
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if inserted == 0 {
                    return Ok(None);
                }
                let row = sqlx::query(concat!("SELECT ", key_cols!(), " WHERE k.id = $1"))
                    .bind(&id)
                    .fetch_one(&mut *tx)
                    .await?;
                Ok(Some(key_row(&row)?))
            })
        })
        .await
    }

    /// Runs a durable write in a transaction: the writer's group on SQLite, its own on
    /// PostgreSQL. A failed write leaves nothing behind either way.
    async fn write<T, F>(&self, work: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(&'c mut AnyConnection) -> BoxFuture<'c, StoreResult<T>> + Send + 'static,
    {
        match &self.writes {
            Writes::Grouped(writer) => writer.run(Kind::Durable, work).await,
            Writes::Pooled { pool, .. } => {
                let mut tx = pool.begin().await?;
                let value = work(&mut tx).await?;
                tx.commit().await?;
                Ok(value)
            }
        }
    }

    /// Runs one statement that counts something: answered without waiting for a commit of its
    /// own on SQLite, in autocommit on PostgreSQL.
    async fn count<T, F>(&self, work: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(&'c mut AnyConnection) -> BoxFuture<'c, StoreResult<T>> + Send + 'static,
    {
        match &self.writes {
            Writes::Grouped(writer) => writer.run(Kind::Counter, work).await,
            Writes::Pooled { pool, .. } => work(&mut *pool.acquire().await?).await,
        }
    }
}

// The keys' methods are written in keys.rs and the web pages' in web.rs, as SqlStore's own
// methods of the same names; the trait's call them by path (`SqlStore::create_key`), which
// names the inherent method, so that each concern's SQL reads on its own.
#[async_trait]
impl Store for SqlStore {
    async fn create_account(
        &self,
        callsign: &str,
        plan: Plan,
        password_hash: Option<&str>,
    ) -> StoreResult<Account> {
        let now = Timestamp::now();
        let callsign = callsign.to_owned();
        let password_hash = password_hash.map(str::to_owned);
        self.write(move |tx| {
            Box::pin(async move {
                let callsign = callsign.as_str();
                let password_hash = password_hash.as_deref();
            let row = sqlx::query(
                "INSERT INTO accounts (id, callsign, plan, capped, budgeted, password_hash, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7) \
                 ON CONFLICT (callsign) DO NOTHING \
                 RETURNING id, callsign, plan, qso_cap, native_qso_count, created_at, disabled_at",
            )
            .bind(IdKind::Account.generate())
            .bind(callsign)
            .bind(plan.as_str())
            .bind(plan.capped())
            .bind(plan.budgeted())
            .bind(password_hash)
            .bind(now.millis())
            .fetch_optional(&mut *tx)
            .await?
            .ok_or_else(|| ApiError::field("callsign", format!("an account for {callsign} exists already")))?;
            let account = account_row(&row)?;
            let root_id = IdKind::Folder.generate();
            sqlx::query(
                "INSERT INTO folders (id, account_id, type, name, identity_key, created_at) VALUES ($1, $2, 'category', $3, $4, $5)",
            )
            .bind(&root_id)
            .bind(&account.id)
            .bind(ROOT_NAME)
            .bind(root_identity())
            .bind(now.millis())
            .execute(&mut *tx)
            .await?;
            for program in Program::ALL {
                let identity = category_identity(program);
                sqlx::query(
                    "INSERT INTO folders (id, account_id, parent_id, type, name, program_id, auto_folder_key, identity_key, created_at) \
                     VALUES ($1, $2, $3, 'category', $4, $5, $6, $6, $7)",
                )
                .bind(IdKind::Folder.generate())
                .bind(&account.id)
                .bind(&root_id)
                .bind(program.category_name())
                .bind(program.id())
                .bind(&identity)
                .bind(now.millis())
                .execute(&mut *tx)
                .await?;
            }
            Ok(account)
            })
        })
        .await
    }

    async fn account_by_callsign(&self, callsign: &str) -> StoreResult<Option<Account>> {
        let row = sqlx::query("SELECT id, callsign, plan, qso_cap, native_qso_count, created_at, disabled_at FROM accounts WHERE callsign = $1")
            .bind(callsign)
            .fetch_optional(&self.reader)
            .await?;
        Ok(row.as_ref().map(account_row).transpose()?)
    }

    async fn schema_version(&self) -> StoreResult<(i64, i64)> {
        self.migrated_version().await
    }

    async fn list_accounts(&self) -> StoreResult<Vec<Account>> {
        self.all_accounts().await
    }

    async fn set_plan(
        &self,
        account_id: &str,
        plan: Plan,
        qso_cap: Option<i64>,
    ) -> StoreResult<()> {
        self.change_plan(account_id, plan, qso_cap).await
    }

    async fn set_disabled(&self, account_id: &str, at: Option<Timestamp>) -> StoreResult<()> {
        self.change_disabled(account_id, at).await
    }

    async fn set_password(&self, account_id: &str, password_hash: &str) -> StoreResult<()> {
        self.change_password(account_id, password_hash).await
    }

    async fn create_key(
        &self,
        account_id: &str,
        name: &str,
        tier: Tier,
        key: &ApiKey,
    ) -> StoreResult<KeyRecord> {
        SqlStore::create_key(self, account_id, name, tier, key).await
    }

    async fn create_key_from_form(
        &self,
        account_id: &str,
        name: &str,
        tier: Tier,
        key: &ApiKey,
        form_token: &str,
    ) -> StoreResult<Option<KeyRecord>> {
        SqlStore::create_key_from_form(self, account_id, name, tier, key, form_token).await
    }

    async fn list_keys(&self, account_id: &str) -> StoreResult<Vec<KeyRecord>> {
        SqlStore::list_keys(self, account_id).await
    }

    async fn find_keys(&self, id_or_prefix: &str) -> StoreResult<Vec<KeyRecord>> {
        SqlStore::find_keys(self, id_or_prefix).await
    }

    async fn revoke_key(&self, key_id: &str, reason: &str, now: Timestamp) -> StoreResult<bool> {
        SqlStore::revoke_key(self, key_id, reason, now).await
    }

    async fn revoke_account_key(
        &self,
        account_id: &str,
        key_id: &str,
        now: Timestamp,
    ) -> StoreResult<bool> {
        SqlStore::revoke_account_key(self, account_id, key_id, now).await
    }

    async fn account_credentials(
        &self,
        callsign: &str,
    ) -> StoreResult<Option<(Account, Option<String>)>> {
        SqlStore::account_credentials(self, callsign).await
    }

    async fn create_session(
        &self,
        token_hash: [u8; 32],
        account_id: &str,
        now: Timestamp,
    ) -> StoreResult<()> {
        SqlStore::create_session(self, token_hash, account_id, now).await
    }

    async fn session(
        &self,
        token_hash: [u8; 32],
        now: Timestamp,
        lifetime: SessionLifetime,
    ) -> StoreResult<Option<Account>> {
        SqlStore::session(self, token_hash, now, lifetime).await
    }

    async fn delete_session(&self, token_hash: [u8; 32]) -> StoreResult<()> {
        SqlStore::delete_session(self, token_hash).await
    }

    async fn begin_signin(
        &self,
        scopes: &[SigninScope],
        now: Timestamp,
    ) -> StoreResult<SigninAttempt> {
        SqlStore::begin_signin(self, scopes, now).await
    }

    async fn signin_succeeded(&self, counted: &CountedAttempt) -> StoreResult<()> {
        SqlStore::signin_succeeded(self, counted).await
    }

    async fn remember_device(
        &self,
        token_hash: [u8; 32],
        account_id: &str,
        now: Timestamp,
    ) -> StoreResult<()> {
        SqlStore::remember_device(self, token_hash, account_id, now).await
    }

    async fn device_account(
        &self,
        token_hash: [u8; 32],
        now: Timestamp,
        lifetime: SessionLifetime,
    ) -> StoreResult<Option<String>> {
        SqlStore::device_account(self, token_hash, now, lifetime).await
    }

    async fn purge_web(
        &self,
        now: Timestamp,
        lifetime: SessionLifetime,
        counters_ms: i64,
    ) -> StoreResult<u64> {
        SqlStore::purge_web(self, now, lifetime, counters_ms).await
    }

    async fn authenticate(
        &self,
        key: &ApiKey,
        now: Timestamp,
        window_ms: i64,
    ) -> StoreResult<AuthOutcome> {
        SqlStore::authenticate(self, key, now, window_ms).await
    }

    async fn native_qso_count(&self, account_id: &str) -> StoreResult<i64> {
        Ok(
            sqlx::query_scalar("SELECT native_qso_count FROM accounts WHERE id = $1")
                .bind(account_id)
                .fetch_one(&self.reader)
                .await?,
        )
    }

    async fn folder(&self, account_id: &str, folder_id: &str) -> StoreResult<Option<Folder>> {
        SqlStore::folder(self, account_id, folder_id).await
    }

    async fn folder_for_contacts(
        &self,
        account_id: &str,
        folder_id: &str,
    ) -> StoreResult<Option<Folder>> {
        SqlStore::folder_for_contacts(self, account_id, folder_id).await
    }

    async fn list_folders(
        &self,
        account_id: &str,
        folder_type: Option<FolderType>,
        after: Option<Position>,
        limit: u32,
    ) -> StoreResult<Vec<(Folder, Position)>> {
        SqlStore::list_folders(self, account_id, folder_type, after, limit).await
    }

    async fn list_contacts(
        &self,
        folder_id: &str,
        after: Option<Position>,
        limit: u32,
    ) -> StoreResult<Vec<(Contact, Position)>> {
        SqlStore::list_contacts(self, folder_id, after, limit).await
    }

    async fn list_contacts_below(
        &self,
        account_id: &str,
        folder_id: Option<&str>,
        after: Option<Position>,
        limit: u32,
    ) -> StoreResult<Vec<(Contact, Position)>> {
        SqlStore::list_contacts_below(self, account_id, folder_id, after, limit).await
    }

    async fn search_contacts(
        &self,
        account_id: &str,
        filter: &svc_model::search::ContactFilter,
        after: Option<Position>,
        limit: u32,
    ) -> StoreResult<Vec<(Contact, Position)>> {
        SqlStore::search_contacts(self, account_id, filter, after, limit).await
    }

    async fn contact(&self, account_id: &str, contact_id: &str) -> StoreResult<Option<Contact>> {
        SqlStore::contact(self, account_id, contact_id).await
    }

    async fn award_entries(
        &self,
        account_id: &str,
        award: svc_model::awards::Award,
        each: &mut (dyn FnMut(svc_model::awards::Entry) + Send),
    ) -> StoreResult<()> {
        SqlStore::award_entries(self, account_id, award, each).await
    }

    async fn category_counts(&self, account_id: &str) -> StoreResult<Vec<(String, i64)>> {
        SqlStore::category_counts(self, account_id).await
    }

    async fn list_activations(
        &self,
        account_id: &str,
        after: Option<Position>,
        limit: u32,
    ) -> StoreResult<Vec<(Folder, Position)>> {
        SqlStore::list_activations(self, account_id, after, limit).await
    }

    async fn grid_counts(&self, account_id: &str) -> StoreResult<Vec<GridCount>> {
        SqlStore::grid_counts(self, account_id).await
    }

    async fn contacts_by(&self, account_id: &str, by: CountBy) -> StoreResult<Vec<(String, i64)>> {
        SqlStore::contacts_by(self, account_id, by).await
    }

    async fn contacts_in_time(
        &self,
        account_id: &str,
        folder_id: Option<&str>,
        slice: TimeSlice,
    ) -> StoreResult<Vec<(i64, i64)>> {
        SqlStore::contacts_in_time(self, account_id, folder_id, slice).await
    }

    async fn park_counts(&self, account_id: &str) -> StoreResult<Vec<ParkCount>> {
        SqlStore::park_counts(self, account_id).await
    }

    async fn create_contact(
        &self,
        account_id: &str,
        c: &NewContact,
        limits: &Limits,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<ContactCreated>> {
        SqlStore::create_contact(self, account_id, c, limits, now, idem).await
    }

    async fn create_contacts(
        &self,
        account_id: &str,
        items: &[BatchCreate],
        limits: &Limits,
        now: Timestamp,
    ) -> StoreResult<Vec<BatchOutcome>> {
        SqlStore::create_contacts(self, account_id, items, limits, now).await
    }

    async fn count_import(&self, key_id: &str, now: Timestamp, window_ms: i64) -> StoreResult<i64> {
        SqlStore::count_import(self, key_id, now, window_ms).await
    }

    async fn count_requests(
        &self,
        key_id: &str,
        n: i64,
        now: Timestamp,
        window_ms: i64,
    ) -> StoreResult<i64> {
        SqlStore::count_requests(self, key_id, n, now, window_ms).await
    }

    async fn delete_contact(
        &self,
        account_id: &str,
        contact_id: &str,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<ContactDeleted>> {
        SqlStore::delete_contact(self, account_id, contact_id, now, idem).await
    }

    async fn edit_contact(
        &self,
        account_id: &str,
        contact_id: &str,
        patch: &ContactPatch,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<Contact>> {
        self.update_contact(account_id, contact_id, patch, now, idem)
            .await
    }

    async fn confirm_contacts(
        &self,
        account_id: &str,
        account_callsign: &str,
        items: Vec<svc_model::confirm::Confirmation>,
        service: svc_model::confirm::QslService,
    ) -> StoreResult<Vec<ConfirmOutcome>> {
        self.write_confirmations(account_id, account_callsign, items, service)
            .await
    }

    async fn confirmation_status(
        &self,
        account_id: &str,
    ) -> StoreResult<svc_model::confirm::ConfirmationStatus> {
        self.read_confirmation_status(account_id).await
    }

    async fn mark_sent(
        &self,
        account_id: &str,
        items: Vec<svc_model::confirm::Sent>,
    ) -> StoreResult<Vec<SentOutcome>> {
        self.write_sent(account_id, items).await
    }

    async fn book_statuses(
        &self,
        job: &ImportJob,
        statuses: &[(String, svc_model::confirm::QrzStatus)],
        since: Option<&str>,
    ) -> StoreResult<u64> {
        self.write_book_statuses(job, statuses, since).await
    }

    async fn create_logbook(
        &self,
        account_id: &str,
        new: &NewLogbook,
        now: Timestamp,
    ) -> StoreResult<LogbookRecord> {
        self.insert_logbook(account_id, new, now).await
    }

    async fn logbook(&self, account_id: &str, id: &str) -> StoreResult<Option<LogbookRecord>> {
        self.find_logbook(account_id, id).await
    }

    async fn logbooks(&self, account_id: &str) -> StoreResult<Vec<LogbookRecord>> {
        self.account_logbooks(account_id).await
    }

    async fn change_logbook(
        &self,
        account_id: &str,
        id: &str,
        change: &LogbookChange,
    ) -> StoreResult<bool> {
        self.update_logbook(account_id, id, change).await
    }

    async fn delete_logbook(&self, account_id: &str, id: &str) -> StoreResult<bool> {
        self.remove_logbook(account_id, id).await
    }

    async fn sealed_keys(&self) -> StoreResult<Vec<(String, Vec<u8>)>> {
        self.all_sealed_keys().await
    }

    async fn reseal_key(&self, id: &str, sealed: &[u8]) -> StoreResult<()> {
        self.store_sealed_key(id, sealed).await
    }

    async fn backlog(
        &self,
        account_id: &str,
        logbook_id: &str,
    ) -> StoreResult<(String, Vec<Contact>)> {
        self.unsent_of_book(account_id, logbook_id).await
    }

    async fn reserve_upload(
        &self,
        account_id: &str,
        logbook_id: &str,
        copies: &[(String, String)],
        lease_until: Timestamp,
    ) -> StoreResult<Vec<String>> {
        self.bind_upload(account_id, logbook_id, copies, lease_until)
            .await
    }

    async fn settle_upload(
        &self,
        logbook_id: &str,
        contact_ids: &[String],
        taken: bool,
    ) -> StoreResult<()> {
        self.end_upload(logbook_id, contact_ids, taken).await
    }

    async fn set_import_after(&self, logbook_id: &str, after: &str) -> StoreResult<()> {
        self.store_import_after(logbook_id, after).await
    }

    async fn pause_logbook(&self, logbook_id: &str, reason: &str) -> StoreResult<()> {
        self.pause_book(logbook_id, reason).await
    }

    async fn claim_external(
        &self,
        now: Timestamp,
        lease_ms: i64,
        limit: i64,
        busy: &[String],
    ) -> StoreResult<Vec<ExternalJob>> {
        self.claim_jobs(now, lease_ms, limit, busy).await
    }

    async fn queue_depth(&self) -> StoreResult<QueueDepth> {
        self.read_queue_depth().await
    }

    async fn settle_external(
        &self,
        job: &ExternalJob,
        outcome: &ExternalOutcome,
        now: Timestamp,
    ) -> StoreResult<()> {
        self.settle_job(job, outcome, now).await
    }

    async fn external_copies(
        &self,
        contact_ids: &[String],
    ) -> StoreResult<Vec<(String, ExternalCopy)>> {
        self.copies_of(contact_ids).await
    }

    async fn claim_import(&self, now: Timestamp, lease_ms: i64) -> StoreResult<Option<ImportJob>> {
        self.claim_import_job(now, lease_ms).await
    }

    async fn import_page(
        &self,
        job: &ImportJob,
        items: &[FromBook],
        last_log_id: Option<&str>,
        limits: &Limits,
        now: Timestamp,
    ) -> StoreResult<PageImported> {
        self.file_page(job, items, last_log_id, limits, now).await
    }

    async fn finish_import(
        &self,
        logbook_id: &str,
        next: Timestamp,
        error: Option<&str>,
    ) -> StoreResult<()> {
        self.end_import(logbook_id, next, error).await
    }

    async fn request_import(&self, account_id: &str, id: &str) -> StoreResult<bool> {
        self.import_now(account_id, id).await
    }

    async fn reviews(&self, account_id: &str) -> StoreResult<Vec<Review>> {
        self.account_reviews(account_id).await
    }

    async fn settle_review(
        &self,
        account_id: &str,
        contact_id: &str,
        send_to: Option<&str>,
        now: Timestamp,
    ) -> StoreResult<ReviewSettled> {
        self.end_review(account_id, contact_id, send_to, now).await
    }

    async fn find_or_create_activation(
        &self,
        account_id: &str,
        a: &NewActivation,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<FolderCreated>> {
        SqlStore::find_or_create_activation(self, account_id, a, now, idem).await
    }

    async fn find_or_create_monthly(
        &self,
        account_id: &str,
        m: &NewMonthly,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<FolderCreated>> {
        SqlStore::find_or_create_monthly(self, account_id, m, now, idem).await
    }

    async fn create_category(
        &self,
        account_id: &str,
        name: &str,
        parent_id: Option<&str>,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<FolderCreated>> {
        SqlStore::create_category(self, account_id, name, parent_id, now, idem).await
    }

    async fn purge_idempotency(&self, before: Timestamp) -> StoreResult<u64> {
        self.write(move |tx| {
            Box::pin(async move {
                let purged = sqlx::query("DELETE FROM idempotency WHERE created_at < $1")
                    .bind(before.millis())
                    .execute(&mut *tx)
                    .await?;
                Ok(purged.rows_affected())
            })
        })
        .await
    }

    async fn end_folder(
        &self,
        account_id: &str,
        folder_id: &str,
        kind: FolderType,
        end_time: Timestamp,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<Folder>> {
        SqlStore::end_folder(self, account_id, folder_id, kind, end_time, now, idem).await
    }

    async fn find_or_create_contest(
        &self,
        account_id: &str,
        contest: &NewContest,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<FolderCreated>> {
        SqlStore::find_or_create_contest(self, account_id, contest, now, idem).await
    }

    async fn reserve_serials(
        &self,
        account_id: &str,
        folder_id: &str,
        count: u32,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<svc_model::contest::SerialBlock>> {
        SqlStore::reserve_serials(self, account_id, folder_id, count, now, idem).await
    }

    async fn add_parks(
        &self,
        account_id: &str,
        folder_id: &str,
        added: &str,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<Folder>> {
        SqlStore::add_parks(self, account_id, folder_id, added, now, idem).await
    }

    async fn stations(&self, account_id: &str) -> StoreResult<Vec<svc_model::StationProfile>> {
        self.account_stations(account_id).await
    }

    async fn put_station(
        &self,
        account_id: &str,
        profile: &svc_model::StationProfile,
        now: Timestamp,
    ) -> StoreResult<bool> {
        SqlStore::put_station(self, account_id, profile, now).await
    }

    async fn delete_station(&self, account_id: &str, callsign: &str) -> StoreResult<bool> {
        self.remove_station(account_id, callsign).await
    }
}
