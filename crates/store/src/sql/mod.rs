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
use grouped::{Create, Created, Disk, Groups, Lookup};
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
         location_name, callsign, auto_folder_key, contact_count, created_at, seq"
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
macro_rules! folder_page {
    () => {
        concat!(
            "SELECT ",
            contact_cols!(),
            " FROM contacts WHERE folder_id = $1 AND (time_on < $2 OR (time_on = $2 AND seq < $3)) \
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
              AND (time_on < $2 OR (time_on = $2 AND seq < $3)) \
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
              AND (time_on < $2 OR (time_on = $2 AND seq < $3)) \
              ORDER BY time_on DESC, seq DESC LIMIT $4"
        )
    };
}

// After the SQL macros, which their statements share.
mod accounts;
mod backup;
mod batch;
mod edit;
mod grouped;
mod keys;
mod logbooks;
mod pages;
mod queue;
mod web;

fn decode_err(what: String) -> sqlx::Error {
    sqlx::Error::Decode(what.into())
}

/// The column types the store reads, from rows of either driver it reads with.
trait StoreRow {
    fn text(&self, col: &str) -> Result<String, sqlx::Error>;
    fn opt_text(&self, col: &str) -> Result<Option<String>, sqlx::Error>;
    fn int(&self, col: &str) -> Result<i64, sqlx::Error>;
    fn opt_int(&self, col: &str) -> Result<Option<i64>, sqlx::Error>;
    fn float(&self, col: &str) -> Result<f64, sqlx::Error>;
}

macro_rules! store_row {
    ($($row:ty),*) => {$(
        impl StoreRow for $row {
            fn text(&self, col: &str) -> Result<String, sqlx::Error> {
                self.try_get(col)
            }
            fn opt_text(&self, col: &str) -> Result<Option<String>, sqlx::Error> {
                self.try_get(col)
            }
            fn int(&self, col: &str) -> Result<i64, sqlx::Error> {
                self.try_get(col)
            }
            fn opt_int(&self, col: &str) -> Result<Option<i64>, sqlx::Error> {
                self.try_get(col)
            }
            fn float(&self, col: &str) -> Result<f64, sqlx::Error> {
                self.try_get(col)
            }
        }
    )*};
}

store_row!(AnyRow, SqliteRow);

fn ts(row: &impl StoreRow, col: &str) -> Result<Timestamp, sqlx::Error> {
    Ok(Timestamp(row.int(col)?))
}

fn opt_ts(row: &impl StoreRow, col: &str) -> Result<Option<Timestamp>, sqlx::Error> {
    Ok(row.opt_int(col)?.map(Timestamp))
}

fn folder_row(row: &AnyRow) -> Result<Folder, sqlx::Error> {
    let kind: String = row.try_get("type")?;
    Ok(Folder {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        folder_type: FolderType::parse(&kind)
            .ok_or_else(|| decode_err(format!("folder type {kind:?}")))?,
        parent_id: row.try_get("parent_id")?,
        program_id: row.try_get("program_id")?,
        month: row.try_get("month")?,
        start_time: opt_ts(row, "start_time")?,
        end_time: opt_ts(row, "end_time")?,
        location_reference: row.try_get("location_reference")?,
        location_name: row.try_get("location_name")?,
        callsign: row.try_get("callsign")?,
        auto_folder_key: row.try_get("auto_folder_key")?,
        contact_count: row.try_get("contact_count")?,
        created_at: ts(row, "created_at")?,
    })
}

fn contact_row(row: &impl StoreRow) -> Result<Contact, sqlx::Error> {
    let id = row.text("id")?;
    let duplicate_of = row.opt_text("first_of_key")?.filter(|first| *first != id);
    Ok(Contact {
        id,
        folder_id: row.text("folder_id")?,
        callsign: row.text("callsign")?,
        frequency: row.float("frequency")?,
        band: row.text("band")?,
        mode: row.text("mode")?,
        time_on: ts(row, "time_on")?,
        rst_sent: row.opt_text("rst_sent")?,
        rst_received: row.opt_text("rst_received")?,
        name: row.opt_text("name")?,
        notes: row.opt_text("notes")?,
        sig: row.opt_text("sig")?,
        sig_info: row.opt_text("sig_info")?,
        my_sig: row.opt_text("my_sig")?,
        my_sig_info: row.opt_text("my_sig_info")?,
        activation_id: row.opt_text("activation_id")?,
        station_callsign: row.opt_text("station_callsign")?,
        fields: fields_of(row.opt_text("fields")?.as_deref())?,
        created_at: ts(row, "created_at")?,
        duplicate_of,
        external: Vec::new(),
    })
}

/// A contact's `fields` column: its declared fields and other ADIF fields, as JSON.
fn fields_of(json: Option<&str>) -> Result<svc_model::Fields, sqlx::Error> {
    match json {
        Some(json) => serde_json::from_str(json).map_err(|e| decode_err(e.to_string())),
        None => Ok(svc_model::Fields::default()),
    }
}

/// A contact of a page and its position in the folder's order.
fn page_row(row: &impl StoreRow) -> Result<(Contact, Position), sqlx::Error> {
    let position = Position {
        sort: row.int("time_on")?,
        seq: row.int("seq")?,
    };
    Ok((contact_row(row)?, position))
}

fn key_row(row: &AnyRow) -> Result<KeyRecord, sqlx::Error> {
    let tier: String = row.try_get("tier")?;
    Ok(KeyRecord {
        id: row.try_get("id")?,
        callsign: row.try_get("callsign")?,
        name: row.try_get("name")?,
        tier: Tier::parse(&tier).ok_or_else(|| decode_err(format!("tier {tier:?}")))?,
        key_prefix: row.try_get("key_prefix")?,
        created_at: ts(row, "created_at")?,
        last_used_at: opt_ts(row, "last_used_at")?,
        revoked_at: opt_ts(row, "revoked_at")?,
        revoked_reason: row.try_get("revoked_reason")?,
    })
}

fn account_row(row: &AnyRow) -> Result<Account, sqlx::Error> {
    let plan: String = row.try_get("plan")?;
    Ok(Account {
        id: row.try_get("id")?,
        callsign: row.try_get("callsign")?,
        plan: Plan::parse(&plan).ok_or_else(|| decode_err(format!("plan {plan:?}")))?,
        qso_cap: row.try_get("qso_cap")?,
        native_qso_count: row.try_get("native_qso_count")?,
        created_at: ts(row, "created_at")?,
        disabled_at: row.try_get::<Option<i64>, _>("disabled_at")?.map(Timestamp),
    })
}

fn lookup_of(hash: &[u8; 32]) -> i64 {
    let mut first = [0u8; 8];
    first.copy_from_slice(&hash[..8]);
    i64::from_be_bytes(first)
}

fn root_identity() -> &'static str {
    "v1:root"
}

fn category_identity(program: Program) -> String {
    format!("v1:category:{}", program.id())
}

/// Claims an idempotency key inside the transaction: `Some(response)` when the same request
/// was answered before (a replay), `None` when this request is the first with the key. The
/// response is stored with the claim when it is known already, else by [`complete`].
async fn claim(
    conn: &mut AnyConnection,
    account_id: &str,
    idem: Option<&IdemRequest>,
    now: Timestamp,
    response: Option<&str>,
) -> StoreResult<Option<String>> {
    let Some(idem) = idem else { return Ok(None) };
    // A key older than the TTL is taken over as if it were new.
    let inserted = sqlx::query(
        "INSERT INTO idempotency (account_id, key, fingerprint, response, created_at) \
         VALUES ($1, $2, $3, $6, $4) \
         ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, \
           response = excluded.response, created_at = excluded.created_at \
         WHERE idempotency.created_at < $5",
    )
    .bind(account_id)
    .bind(&idem.key)
    .bind(&idem.fingerprint[..])
    .bind(now.millis())
    .bind(now.millis() - IDEMPOTENCY_TTL_MS)
    .bind(response)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if inserted == 1 {
        return Ok(None);
    }
    answered_before(conn, account_id, idem, now)
        .await?
        .map(Some)
        .ok_or_else(|| StoreError::Db(decode_err("idempotency key vanished".into())))
}

/// The first response to a request with this key, if the key is live; a live key that came
/// with a different request is refused.
async fn answered_before(
    conn: &mut AnyConnection,
    account_id: &str,
    idem: &IdemRequest,
    now: Timestamp,
) -> StoreResult<Option<String>> {
    let row = sqlx::query(
        "SELECT fingerprint, response FROM idempotency \
         WHERE account_id = $1 AND key = $2 AND created_at >= $3",
    )
    .bind(account_id)
    .bind(&idem.key)
    .bind(now.millis() - IDEMPOTENCY_TTL_MS)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(row) = row else { return Ok(None) };
    let fingerprint: Vec<u8> = row.try_get("fingerprint")?;
    if fingerprint != idem.fingerprint {
        return Err(key_reused("Idempotency-Key", &idem.key).into());
    }
    let response: Option<String> = row.try_get("response")?;
    response
        .map(Some)
        .ok_or_else(|| StoreError::Db(decode_err("idempotency row without a response".into())))
}

/// The refusal of a live idempotency key sent with a request other than its first; `field`
/// names where the key came: the `Idempotency-Key` header, or a batch item's `idempotencyKey`.
fn key_reused(field: &str, key: &str) -> ApiError {
    ApiError::validation(format!(
        "{field} {:?} was used within the last {IDEMPOTENCY_TTL_TEXT} for a different request; send a new key for a new request",
        svc_model::ids::truncate(key, 40)
    ))
    .with_details(serde_json::json!({ "field": field }))
}

fn to_json<T: Serialize>(outcome: &T) -> StoreResult<String> {
    serde_json::to_string(outcome).map_err(|e| StoreError::Db(sqlx::Error::Decode(Box::new(e))))
}

async fn complete<T: Serialize>(
    conn: &mut AnyConnection,
    account_id: &str,
    idem: Option<&IdemRequest>,
    outcome: &T,
) -> StoreResult<()> {
    if let Some(idem) = idem {
        sqlx::query("UPDATE idempotency SET response = $1 WHERE account_id = $2 AND key = $3")
            .bind(to_json(outcome)?)
            .bind(account_id)
            .bind(&idem.key)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

fn replay<T: DeserializeOwned>(json: &str) -> StoreResult<Idem<T>> {
    serde_json::from_str(json)
        .map(Idem::Replayed)
        .map_err(|e| StoreError::Db(sqlx::Error::Decode(Box::new(e))))
}

async fn folder_by_identity(
    conn: &mut AnyConnection,
    account_id: &str,
    identity: &str,
) -> StoreResult<Option<Folder>> {
    let row = sqlx::query(concat!(
        "SELECT ",
        folder_cols!(),
        " FROM folders WHERE account_id = $1 AND identity_key = $2"
    ))
    .bind(account_id)
    .bind(identity)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(row.as_ref().map(folder_row).transpose()?)
}

/// An automatic folder to find or create by its identity.
struct IdentifiedFolder<'a> {
    parent_identity: &'a str,
    folder_type: FolderType,
    name: &'a str,
    program: Option<Program>,
    month: Option<&'a str>,
    activation: Option<&'a NewActivation>,
    auto_folder_key: Option<&'a str>,
    identity_key: &'a str,
}

/// Inserts an automatic folder unless one with its identity exists: `(folder, created)`.
async fn find_or_insert_folder(
    conn: &mut AnyConnection,
    account_id: &str,
    f: IdentifiedFolder<'_>,
    now: Timestamp,
) -> StoreResult<(Folder, bool)> {
    let parent = folder_by_identity(conn, account_id, f.parent_identity)
        .await?
        .ok_or_else(|| {
            StoreError::Db(decode_err(format!(
                "account has no folder {}",
                f.parent_identity
            )))
        })?;
    let activation = f.activation;
    let inserted = sqlx::query(concat!(
        "INSERT INTO folders (id, account_id, parent_id, type, name, program_id, month, start_time, \
         location_reference, location_name, callsign, auto_folder_key, identity_key, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) \
         ON CONFLICT (account_id, identity_key) DO NOTHING RETURNING ",
        folder_cols!()
    ))
    .bind(IdKind::Folder.generate())
    .bind(account_id)
    .bind(&parent.id)
    .bind(f.folder_type.as_str())
    .bind(f.name)
    .bind(f.program.map(Program::id))
    .bind(f.month)
    .bind(activation.map(|a| a.start_time.millis()))
    .bind(activation.map(|a| a.reference.as_str()))
    .bind(activation.and_then(|a| a.location_name.as_deref()))
    .bind(activation.map(|a| a.callsign.as_str()))
    .bind(f.auto_folder_key)
    .bind(f.identity_key)
    .bind(now.millis())
    .fetch_optional(&mut *conn)
    .await?;
    match inserted {
        Some(row) => Ok((folder_row(&row)?, true)),
        None => {
            let existing = folder_by_identity(conn, account_id, f.identity_key)
                .await?
                .ok_or_else(|| {
                    StoreError::Db(decode_err(format!("folder {} vanished", f.identity_key)))
                })?;
            Ok((existing, false))
        }
    }
}

/// Each backend's schema migrations, embedded once: run at open, and compared by the health
/// check with what a database holds.
static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

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
         WHERE id = $1 AND (plan = 'unlimited' OR lifetime_created < $2) \
         AND (plan <> 'free' OR native_qso_count < COALESCE(qso_cap, $3)) \
         AND (plan = 'unlimited' OR ((daily_day <> $4 OR daily_created < $5) AND $5 > 0))"
    };
}

/// The limits a create can hit, in the order they are reported when several are
/// (docs/API.md, "Rate limits and the free-plan cap").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limit {
    Lifetime,
    Daily,
    /// The account's cap, with its native QSO count, which a client shows beside it.
    Cap {
        cap: i64,
        current: i64,
    },
}

impl Limit {
    fn api_error(self, now: Timestamp) -> ApiError {
        match self {
            Limit::Lifetime => ApiError::rate_limited(RateLimitReason::LifetimeLogbookBudget, None),
            Limit::Cap { cap, current } => ApiError::new(
                svc_model::ErrorCode::QsoCapReached,
                format!(
                    "the free plan holds {cap} native QSOs and this account has reached that; delete contacts or upgrade the plan"
                ),
            )
            // `limit` repeats `cap` for the published 0.2.0 client, which reads that name.
            .with_details(serde_json::json!({
                "cap": cap,
                "limit": cap,
                "current": current,
            })),
            Limit::Daily => {
                let wait = (now.millis_to_next_utc_day() + 999) / 1000;
                ApiError::rate_limited(RateLimitReason::DailyLogbookBudget, Some(wait as u64))
            }
        }
    }

    fn error(self, now: Timestamp) -> StoreError {
        self.api_error(now).into()
    }
}

/// An account's counters as the limits read them, for the UTC day of the read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Counters {
    lifetime_created: i64,
    plan: Plan,
    /// The account's own cap, which replaces the server's.
    own_cap: Option<i64>,
    native_qso_count: i64,
    /// Contacts created on the day of the read.
    today_created: i64,
}

impl Counters {
    async fn read(
        conn: &mut AnyConnection,
        account_id: &str,
        now: Timestamp,
    ) -> Result<Counters, sqlx::Error> {
        let row = sqlx::query(
            "SELECT lifetime_created, plan, qso_cap, native_qso_count, daily_day, daily_created \
             FROM accounts WHERE id = $1",
        )
        .bind(account_id)
        .fetch_one(&mut *conn)
        .await?;
        let plan: String = row.try_get("plan")?;
        let today_created = if row.try_get::<i64, _>("daily_day")? == now.utc_day() {
            row.try_get("daily_created")?
        } else {
            0
        };
        Ok(Counters {
            lifetime_created: row.try_get("lifetime_created")?,
            plan: Plan::parse(&plan).ok_or_else(|| decode_err(format!("plan {plan:?}")))?,
            own_cap: row.try_get("qso_cap")?,
            native_qso_count: row.try_get("native_qso_count")?,
            today_created,
        })
    }

    /// The account's cap, if its plan has one.
    fn cap(&self, limits: &Limits) -> Option<i64> {
        self.plan.cap(self.own_cap, limits.free_plan_cap)
    }

    /// Whether the day's budget counts these creates for this account.
    fn daily_applies(&self, limits: &Limits) -> bool {
        limits.daily_applies && self.plan.budgeted()
    }

    /// How many more contacts every limit admits (0 when one is reached).
    fn room(&self, limits: &Limits) -> i64 {
        let cap = self
            .cap(limits)
            .map_or(i64::MAX, |cap| cap - self.native_qso_count);
        let daily = if self.daily_applies(limits) {
            limits.daily_contact_budget - self.today_created
        } else {
            i64::MAX
        };
        let lifetime = if self.plan.budgeted() {
            limits.lifetime_contact_budget - self.lifetime_created
        } else {
            i64::MAX
        };
        lifetime.min(cap).min(daily).max(0)
    }

    /// The counters once `n` more contacts are charged.
    fn charged(self, n: i64, limits: &Limits) -> Counters {
        Counters {
            lifetime_created: self.lifetime_created + n,
            native_qso_count: self.native_qso_count + n,
            today_created: self.today_created + if limits.daily_applies { n } else { 0 },
            ..self
        }
    }

    /// The first limit that admits no more contacts.
    fn reached(&self, limits: &Limits) -> Limit {
        let cap = self.cap(limits);
        if self.plan.budgeted() && self.lifetime_created >= limits.lifetime_contact_budget {
            Limit::Lifetime
        } else if self.daily_applies(limits) && self.today_created >= limits.daily_contact_budget {
            Limit::Daily
        } else if let Some(cap) = cap.filter(|&cap| self.native_qso_count >= cap) {
            Limit::Cap {
                cap,
                current: self.native_qso_count,
            }
        } else {
            // No limit is reached: the charge was refused for a reason the counters no
            // longer show (another create took the last place); the day's budget is the one
            // that resets.
            Limit::Daily
        }
    }
}

/// The error for a create that [`charge_account!`] refused: the first limit the account's
/// counters have reached.
async fn limit_reached(
    conn: &mut AnyConnection,
    account_id: &str,
    limits: &Limits,
    now: Timestamp,
) -> StoreError {
    match Counters::read(conn, account_id, now).await {
        Ok(counters) => counters.reached(limits).error(now),
        Err(e) => StoreError::Db(e),
    }
}

/// Charges one contact to the account's limits, or refuses it with the limit it hits.
async fn admit(
    conn: &mut AnyConnection,
    account_id: &str,
    limits: &Limits,
    now: Timestamp,
) -> StoreResult<()> {
    let charged = sqlx::query(charge_account!())
        .bind(account_id)
        .bind(limits.lifetime_contact_budget)
        .bind(limits.free_plan_cap)
        .bind(now.utc_day())
        .bind(limits.daily_contact_budget)
        .execute(&mut *conn)
        .await?
        .rows_affected();
    if charged == 1 {
        Ok(())
    } else {
        Err(limit_reached(conn, account_id, limits, now).await)
    }
}

type AnyQuery<'q> = sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>;

/// Binds a contact's fields, from `callsign` to `dupe_key` in the column order of `contacts`
/// and then `fields` (JSON, NULL when there are none), as the next parameters of `query`.
fn bind_contact<'q>(query: AnyQuery<'q>, c: &'q NewContact) -> AnyQuery<'q> {
    query
        .bind(&c.callsign)
        .bind(c.frequency.mhz)
        .bind(c.frequency.band)
        .bind(&c.mode)
        .bind(c.time_on.millis())
        .bind(&c.rst_sent)
        .bind(&c.rst_received)
        .bind(&c.name)
        .bind(&c.notes)
        .bind(&c.sig)
        .bind(&c.sig_info)
        .bind(&c.my_sig)
        .bind(&c.my_sig_info)
        .bind(&c.activation_id)
        .bind(&c.station_callsign)
        .bind(&c.dupe_key)
        .bind(fields_json(&c.fields))
}

/// The declared fields and `adif` map of a contact as the `fields` column holds them.
pub(super) fn fields_json(fields: &svc_model::Fields) -> Option<String> {
    (!fields.is_empty()).then(|| serde_json::to_string(fields).unwrap_or_default())
}

/// Moves a folder's contact count with a contact stored in it or deleted from it, in the same
/// transaction, so the count cannot drift.
async fn count_in_folder(conn: &mut AnyConnection, folder_id: &str, by: i64) -> StoreResult<()> {
    sqlx::query("UPDATE folders SET contact_count = contact_count + $2 WHERE id = $1")
        .bind(folder_id)
        .bind(by)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// The earlier contact that `c` repeats (rule 7), if it has program identity.
async fn duplicate_of(conn: &mut AnyConnection, c: &NewContact) -> StoreResult<Option<String>> {
    let Some(key) = &c.dupe_key else {
        return Ok(None);
    };
    Ok(sqlx::query_scalar(
        "SELECT id FROM contacts WHERE folder_id = $1 AND dupe_key = $2 ORDER BY seq LIMIT 1",
    )
    .bind(&c.folder_id)
    .bind(key)
    .fetch_optional(&mut *conn)
    .await?)
}

/// Creates a contact inside a transaction: claim the key, count the limits, store it.
async fn create_contact_in(
    conn: &mut AnyConnection,
    account_id: &str,
    c: &NewContact,
    limits: &Limits,
    now: Timestamp,
    idem: Option<&IdemRequest>,
) -> StoreResult<Idem<ContactCreated>> {
    // The answer is known before anything is written, so the key is claimed with it.
    let created = ContactCreated {
        id: IdKind::Contact.generate(),
        duplicate_of: duplicate_of(&mut *conn, c).await?,
    };
    let response = idem.map(|_| to_json(&created)).transpose()?;
    if let Some(previous) = claim(&mut *conn, account_id, idem, now, response.as_deref()).await? {
        return replay(&previous);
    }
    admit(&mut *conn, account_id, limits, now).await?;
    // One round trip to the writer's thread for both statements, which share the parameters.
    let insert = sqlx::query(
        "INSERT INTO contacts (id, account_id, folder_id, callsign, frequency, band, mode, time_on, \
         rst_sent, rst_received, name, notes, sig, sig_info, my_sig, my_sig_info, activation_id, \
         station_callsign, dupe_key, fields, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21); \
         UPDATE folders SET contact_count = contact_count + 1 WHERE id = $3",
    )
    .bind(&created.id)
    .bind(account_id)
    .bind(&c.folder_id);
    bind_contact(insert, c)
        .bind(now.millis())
        .execute(&mut *conn)
        .await?;
    Ok(Idem::Fresh(created))
}

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
                "INSERT INTO accounts (id, callsign, plan, password_hash, created_at) VALUES ($1, $2, $3, $4, $5) \
                 ON CONFLICT (callsign) DO NOTHING \
                 RETURNING id, callsign, plan, qso_cap, native_qso_count, created_at, disabled_at",
            )
            .bind(IdKind::Account.generate())
            .bind(callsign)
            .bind(plan.as_str())
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
        let row = sqlx::query(concat!(
            "SELECT ",
            folder_cols!(),
            " FROM folders WHERE id = $1 AND account_id = $2"
        ))
        .bind(folder_id)
        .bind(account_id)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.as_ref().map(folder_row).transpose()?)
    }

    async fn folder_for_contacts(
        &self,
        account_id: &str,
        folder_id: &str,
    ) -> StoreResult<Option<Folder>> {
        let key = (account_id.to_owned(), folder_id.to_owned());
        if let Some(folder) = self.known_folders().get(&key) {
            return Ok(Some(folder.clone()));
        }
        let folder = self.folder(account_id, folder_id).await?;
        if let Some(folder) = &folder {
            let mut known = self.known_folders();
            if known.len() >= KNOWN_FOLDERS {
                known.clear();
            }
            known.insert(key, folder.clone());
        }
        Ok(folder)
    }

    async fn list_folders(
        &self,
        account_id: &str,
        folder_type: Option<FolderType>,
        after: Option<Position>,
        limit: u32,
    ) -> StoreResult<Vec<(Folder, Position)>> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            folder_cols!(),
            " FROM folders WHERE account_id = $1 AND ($2 IS NULL OR type = $2) AND seq > $3 ORDER BY seq LIMIT $4"
        ))
        .bind(account_id)
        .bind(folder_type.map(FolderType::as_str))
        .bind(after.map_or(0, |p| p.seq))
        .bind(i64::from(limit) + 1)
        .fetch_all(&self.reader)
        .await?;
        rows.iter()
            .map(|r| {
                let seq: i64 = r.try_get("seq")?;
                Ok((folder_row(r)?, Position { sort: seq, seq }))
            })
            .collect()
    }

    async fn list_contacts(
        &self,
        folder_id: &str,
        after: Option<Position>,
        limit: u32,
    ) -> StoreResult<Vec<(Contact, Position)>> {
        let after = after.unwrap_or(Position {
            sort: i64::MAX,
            seq: i64::MAX,
        });
        let rows = match &self.pages {
            Some(pages) => pages::contacts(
                &sqlx::query_scalar::<_, String>(pages::json_page!(folder_page!()))
                    .bind(folder_id)
                    .bind(after.sort)
                    .bind(after.seq)
                    .bind(i64::from(limit) + 1)
                    .fetch_one(pages)
                    .await?,
            ),
            None => sqlx::query(folder_page!())
                .bind(folder_id)
                .bind(after.sort)
                .bind(after.seq)
                .bind(i64::from(limit) + 1)
                .fetch_all(&self.reader)
                .await?
                .iter()
                .map(page_row)
                .collect(),
        };
        Ok(rows?)
    }

    async fn list_contacts_below(
        &self,
        account_id: &str,
        folder_id: Option<&str>,
        after: Option<Position>,
        limit: u32,
    ) -> StoreResult<Vec<(Contact, Position)>> {
        let after = after.unwrap_or(Position {
            sort: i64::MAX,
            seq: i64::MAX,
        });
        let rows = match (&self.pages, folder_id) {
            (Some(pages), None) => pages::contacts(
                &sqlx::query_scalar::<_, String>(pages::json_page!(account_page!()))
                    .bind(account_id)
                    .bind(after.sort)
                    .bind(after.seq)
                    .bind(i64::from(limit) + 1)
                    .fetch_one(pages)
                    .await?,
            ),
            (Some(pages), Some(category)) => pages::contacts(
                &sqlx::query_scalar::<_, String>(pages::json_page!(category_page!()))
                    .bind(account_id)
                    .bind(after.sort)
                    .bind(after.seq)
                    .bind(i64::from(limit) + 1)
                    .bind(category)
                    .fetch_one(pages)
                    .await?,
            ),
            (None, None) => sqlx::query(account_page!())
                .bind(account_id)
                .bind(after.sort)
                .bind(after.seq)
                .bind(i64::from(limit) + 1)
                .fetch_all(&self.reader)
                .await?
                .iter()
                .map(page_row)
                .collect(),
            (None, Some(category)) => sqlx::query(category_page!())
                .bind(account_id)
                .bind(after.sort)
                .bind(after.seq)
                .bind(i64::from(limit) + 1)
                .bind(category)
                .fetch_all(&self.reader)
                .await?
                .iter()
                .map(page_row)
                .collect(),
        };
        Ok(rows?)
    }

    async fn category_counts(&self, account_id: &str) -> StoreResult<Vec<(String, i64)>> {
        // Each category paired with every folder below it, then the leaves' own counts summed.
        Ok(sqlx::query_as(
            "WITH RECURSIVE below (top, id) AS ( \
               SELECT id, id FROM folders WHERE account_id = $1 AND type = 'category' \
               UNION ALL \
               SELECT below.top, folders.id FROM folders JOIN below ON folders.parent_id = below.id) \
             SELECT below.top, CAST(COALESCE(SUM(folders.contact_count), 0) AS BIGINT) \
             FROM below JOIN folders ON folders.id = below.id AND folders.type <> 'category' \
             GROUP BY below.top",
        )
        .bind(account_id)
        .fetch_all(&self.reader)
        .await?)
    }

    async fn list_activations(
        &self,
        account_id: &str,
        after: Option<Position>,
        limit: u32,
    ) -> StoreResult<Vec<(Folder, Position)>> {
        let after = after.unwrap_or(Position {
            sort: i64::MAX,
            seq: i64::MAX,
        });
        let rows = sqlx::query(concat!(
            "SELECT ",
            folder_cols!(),
            " FROM folders WHERE account_id = $1 AND type = 'activation' \
              AND (start_time < $2 OR (start_time = $2 AND seq < $3)) \
              ORDER BY start_time DESC, seq DESC LIMIT $4"
        ))
        .bind(account_id)
        .bind(after.sort)
        .bind(after.seq)
        .bind(i64::from(limit) + 1)
        .fetch_all(&self.reader)
        .await?;
        rows.iter()
            .map(|r| {
                let pos = Position {
                    sort: r.try_get("start_time")?,
                    seq: r.try_get("seq")?,
                };
                Ok((folder_row(r)?, pos))
            })
            .collect()
    }

    async fn create_contact(
        &self,
        account_id: &str,
        c: &NewContact,
        limits: &Limits,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<ContactCreated>> {
        match &self.writes {
            Writes::Grouped(writer) => {
                let (account_id, c, limits) = (account_id.to_owned(), c.clone(), *limits);
                let idem = idem.cloned();
                writer
                    .run(Kind::Durable, move |tx| {
                        Box::pin(async move {
                            create_contact_in(tx, &account_id, &c, &limits, now, idem.as_ref())
                                .await
                        })
                    })
                    .await
            }
            Writes::Pooled { creates, .. } => {
                let id = IdKind::Contact.generate();
                let create = Create {
                    account_id: account_id.to_owned(),
                    id: id.clone(),
                    contact: c.clone(),
                    idem: idem.cloned(),
                    limits: *limits,
                    now,
                };
                match creates.run(create).await? {
                    Created::Stored { duplicate_of } => {
                        Ok(Idem::Fresh(ContactCreated { id, duplicate_of }))
                    }
                    Created::Answered => {
                        let idem = idem.ok_or_else(|| decode_err("no key, yet answered".into()))?;
                        let mut conn = self.reader.acquire().await?;
                        match answered_before(&mut conn, account_id, idem, now).await? {
                            Some(previous) => replay(&previous),
                            None => Err(decode_err("idempotency key vanished".into()).into()),
                        }
                    }
                    Created::Refused(limit) => Err(limit.error(now)),
                }
            }
        }
    }

    async fn create_contacts(
        &self,
        account_id: &str,
        items: &[BatchCreate],
        limits: &Limits,
        now: Timestamp,
    ) -> StoreResult<Vec<BatchOutcome>> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        match &self.writes {
            Writes::Grouped(writer) => {
                let (account_id, items, limits) = (account_id.to_owned(), items.to_vec(), *limits);
                writer
                    .run(Kind::Durable, move |tx| {
                        Box::pin(async move {
                            batch::sqlite_batch(tx, &account_id, &items, &limits, now).await
                        })
                    })
                    .await
            }
            Writes::Pooled { creates, .. } => {
                batch::postgres_batch(creates, &self.reader, account_id, items, limits, now).await
            }
        }
    }

    async fn count_import(&self, key_id: &str, now: Timestamp, window_ms: i64) -> StoreResult<i64> {
        let window_start = now.millis() - now.millis().rem_euclid(window_ms);
        let key_id = key_id.to_owned();
        self.count(move |tx| {
            Box::pin(async move {
                // The burst window gives the request back only when it is still the window
                // that counted it.
                let count = sqlx::query_scalar(
                    "UPDATE key_usage SET \
                       count = CASE WHEN window_start = $2 THEN count - 1 ELSE count END, \
                       import_count = CASE WHEN import_window_start = $2 \
                         THEN import_count + 1 ELSE 1 END, \
                       import_window_start = $2 \
                     WHERE key_id = $1 RETURNING import_count",
                )
                .bind(&key_id)
                .bind(window_start)
                .fetch_optional(&mut *tx)
                .await?;
                Ok(count.unwrap_or(1))
            })
        })
        .await
    }

    async fn count_requests(
        &self,
        key_id: &str,
        n: i64,
        now: Timestamp,
        window_ms: i64,
    ) -> StoreResult<i64> {
        let window_start = now.millis() - now.millis().rem_euclid(window_ms);
        let key_id = key_id.to_owned();
        self.count(move |tx| {
            Box::pin(async move {
                let count = sqlx::query_scalar(concat!(
                    "INSERT INTO key_usage (key_id, window_start, count, last_used_at) \
                     VALUES ($1, $2, $3, $4) ON CONFLICT (key_id) DO UPDATE SET ",
                    count_in_window!(),
                    " RETURNING count"
                ))
                .bind(&key_id)
                .bind(window_start)
                .bind(n)
                .bind(now.millis())
                .fetch_one(&mut *tx)
                .await?;
                Ok(count)
            })
        })
        .await
    }

    async fn delete_contact(
        &self,
        account_id: &str,
        contact_id: &str,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<ContactDeleted>> {
        let (account_id, contact_id) = (account_id.to_owned(), contact_id.to_owned());
        let idem = idem.cloned();
        self.write(move |tx| {
            Box::pin(async move {
                let (account_id, contact_id) = (account_id.as_str(), contact_id.as_str());
                let idem = idem.as_ref();
                if let Some(previous) = claim(&mut *tx, account_id, idem, now, None).await? {
                    return replay(&previous);
                }
                let folder: Option<String> = sqlx::query_scalar(
                    "DELETE FROM contacts WHERE id = $1 AND account_id = $2 RETURNING folder_id",
                )
                .bind(contact_id)
                .bind(account_id)
                .fetch_optional(&mut *tx)
                .await?;
                let Some(folder) = folder else {
                    return Err(
                        ApiError::not_found(format!("contact {contact_id} not found")).into(),
                    );
                };
                // The account's row before the folder's, as a create takes them, so that a
                // delete and a create of one account never wait on each other in a cycle.
                sqlx::query(
                    "UPDATE accounts SET native_qso_count = native_qso_count - 1 WHERE id = $1",
                )
                .bind(account_id)
                .execute(&mut *tx)
                .await?;
                count_in_folder(tx, &folder, -1).await?;
                let deleted = ContactDeleted {
                    id: contact_id.to_owned(),
                    success: true,
                };
                complete(&mut *tx, account_id, idem, &deleted).await?;
                Ok(Idem::Fresh(deleted))
            })
        })
        .await
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
        let (account_id, a, idem) = (account_id.to_owned(), a.clone(), idem.cloned());
        self.write(move |tx| {
            Box::pin(async move {
                let (account_id, a, idem) = (account_id.as_str(), &a, idem.as_ref());
                if let Some(previous) = claim(&mut *tx, account_id, idem, now, None).await? {
                    return replay(&previous);
                }
                let spec = IdentifiedFolder {
                    parent_identity: &category_identity(a.program),
                    folder_type: FolderType::Activation,
                    name: &a.name,
                    program: Some(a.program),
                    month: None,
                    activation: Some(a),
                    auto_folder_key: Some(&a.auto_folder_key),
                    identity_key: &a.auto_folder_key,
                };
                let (folder, created) =
                    find_or_insert_folder(&mut *tx, account_id, spec, now).await?;
                if !created {
                    a.check_existing(&folder)?;
                }
                let outcome = FolderCreated { folder, created };
                complete(&mut *tx, account_id, idem, &outcome).await?;
                Ok(Idem::Fresh(outcome))
            })
        })
        .await
    }

    async fn find_or_create_monthly(
        &self,
        account_id: &str,
        m: &NewMonthly,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<FolderCreated>> {
        let (account_id, m, idem) = (account_id.to_owned(), m.clone(), idem.cloned());
        self.write(move |tx| {
            Box::pin(async move {
                let (account_id, m, idem) = (account_id.as_str(), &m, idem.as_ref());
            if let Some(previous) = claim(&mut *tx, account_id, idem, now, None).await? {
                return replay(&previous);
            }
            let parent = match m.program {
                Some(p) => category_identity(p),
                None => root_identity().to_owned(),
            };
            let spec = IdentifiedFolder {
                parent_identity: &parent,
                folder_type: FolderType::Monthly,
                name: &m.name,
                program: m.program,
                month: Some(&m.month),
                activation: None,
                auto_folder_key: m.auto_folder_key.as_deref(),
                identity_key: &m.identity_key,
            };
            let (folder, created) = find_or_insert_folder(&mut *tx, account_id, spec, now).await?;
            if !created
                && (folder.folder_type != FolderType::Monthly
                    || folder.month.as_deref() != Some(m.month.as_str()))
            {
                return Err(ApiError::field(
                    "month",
                    format!(
                        "an existing folder {} ({}) holds this monthly folder's identity but does not match it; it is refused rather than adopted",
                        folder.id, folder.name
                    ),
                )
                .into());
            }
            let outcome = FolderCreated { folder, created };
            complete(&mut *tx, account_id, idem, &outcome).await?;
            Ok(Idem::Fresh(outcome))
            })
        })
        .await
    }

    async fn create_category(
        &self,
        account_id: &str,
        name: &str,
        parent_id: Option<&str>,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<FolderCreated>> {
        let (account_id, name, idem) = (account_id.to_owned(), name.to_owned(), idem.cloned());
        let parent_id = parent_id.map(str::to_owned);
        self.write(move |tx| {
            Box::pin(async move {
                let (account_id, name, idem) = (account_id.as_str(), name.as_str(), idem.as_ref());
                let parent_id = parent_id.as_deref();
            if let Some(previous) = claim(&mut *tx, account_id, idem, now, None).await? {
                return replay(&previous);
            }
            let parent = match parent_id {
                Some(id) => {
                    let row = sqlx::query(concat!(
                        "SELECT ",
                        folder_cols!(),
                        " FROM folders WHERE id = $1 AND account_id = $2"
                    ))
                    .bind(id)
                    .bind(account_id)
                    .fetch_optional(&mut *tx)
                    .await?
                    .ok_or_else(|| ApiError::not_found(format!("folder {id} not found")))?;
                    folder_row(&row)?
                }
                None => folder_by_identity(&mut *tx, account_id, root_identity())
                    .await?
                    .ok_or_else(|| StoreError::Db(decode_err("account has no root folder".into())))?,
            };
            if parent.folder_type != FolderType::Category {
                return Err(ApiError::field(
                    "parentId",
                    format!(
                        "folder {} ({}) is a {} folder; a category can only sit under All Contacts or another category",
                        parent.id,
                        parent.name,
                        parent.folder_type.as_str()
                    ),
                )
                .into());
            }
            let row = sqlx::query(concat!(
                "INSERT INTO folders (id, account_id, parent_id, type, name, created_at) \
                 VALUES ($1, $2, $3, 'category', $4, $5) RETURNING ",
                folder_cols!()
            ))
            .bind(IdKind::Folder.generate())
            .bind(account_id)
            .bind(&parent.id)
            .bind(name)
            .bind(now.millis())
            .fetch_one(&mut *tx)
            .await?;
            let outcome = FolderCreated {
                folder: folder_row(&row)?,
                created: true,
            };
            complete(&mut *tx, account_id, idem, &outcome).await?;
            Ok(Idem::Fresh(outcome))
            })
        })
        .await
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

    async fn end_activation(
        &self,
        account_id: &str,
        folder_id: &str,
        end_time: Timestamp,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<Folder>> {
        let (account_id, folder_id, idem) =
            (account_id.to_owned(), folder_id.to_owned(), idem.cloned());
        self.write(move |tx| {
            Box::pin(async move {
                let (account_id, folder_id, idem) = (account_id.as_str(), folder_id.as_str(), idem.as_ref());
            if let Some(previous) = claim(&mut *tx, account_id, idem, now, None).await? {
                return replay(&previous);
            }
            let row = sqlx::query(concat!(
                "UPDATE folders SET end_time = $1 WHERE id = $2 AND account_id = $3 AND type = 'activation' \
                 AND end_time IS NULL AND start_time <= $1 RETURNING ",
                folder_cols!()
            ))
            .bind(end_time.millis())
            .bind(folder_id)
            .bind(account_id)
            .fetch_optional(&mut *tx)
            .await?;
            let Some(row) = row else {
                // Nothing changed: say why, from the row as it is.
                let row = sqlx::query(concat!(
                    "SELECT ",
                    folder_cols!(),
                    " FROM folders WHERE id = $1 AND account_id = $2"
                ))
                .bind(folder_id)
                .bind(account_id)
                .fetch_optional(&mut *tx)
                .await?
                .ok_or_else(|| ApiError::not_found(format!("folder {folder_id} not found")))?;
                let folder = folder_row(&row)?;
                let message = match (folder.folder_type, folder.end_time, folder.start_time) {
                    (FolderType::Activation, Some(ended), _) => {
                        format!("activation {} ended already at {ended}", folder.name)
                    }
                    (FolderType::Activation, None, Some(start)) => format!(
                        "endTime {end_time} is before the activation's start {start}; send a later endTime"
                    ),
                    _ => format!(
                        "folder {} is a {} folder, not an activation",
                        folder.name,
                        folder.folder_type.as_str()
                    ),
                };
                return Err(ApiError::field("endTime", message).into());
            };
            let folder = folder_row(&row)?;
            complete(&mut *tx, account_id, idem, &folder).await?;
            Ok(Idem::Fresh(folder))
            })
        })
        .await
    }
}
