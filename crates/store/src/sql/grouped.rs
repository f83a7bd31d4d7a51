//! PostgreSQL: the contact creates and the key lookups that a server process's requests make
//! at the same moment go to the database together, each kind as one statement per group.
//!
//! A statement's cost on PostgreSQL is mostly its own overhead (parsing the protocol, starting
//! and ending the executor, the transaction, the commit's WAL flush, a context switch), not the
//! rows it touches. A task per kind takes the requests that wait when it is free, up to
//! [`MAX_GROUP`], runs them as one statement and answers each; requests that come meanwhile
//! wait for the next group. Under load the groups grow and the cost per request falls; a lone
//! request runs at once, in a group of one.
//!
//! Groups commit without waiting for the disk, so that the rows a group locks (the account's,
//! which every create of the account takes) are held for its statement alone and the next
//! group, of this process or another, goes on at once. Creates are answered only after a WAL
//! flush that started after their group committed ([`Disk`]); the groups waiting at once share
//! one. A create that no other request waits behind commits synchronously instead, which
//! saves the flush's round trip.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::{AnyPool, Row};
use tokio::sync::{mpsc, oneshot};

use super::writer::BoxFuture;
use super::{Limit, decode_err};
use crate::{IDEMPOTENCY_TTL_MS, IdemRequest, Limits, StoreError, StoreResult};
use svc_model::{NewContact, Timestamp};

/// Requests in one statement at most.
const MAX_GROUP: usize = 128;
const QUEUE: usize = 4096;

/// A request that can share a statement with others of its kind.
pub(super) trait Grouped: Send + Sync + Sized + 'static {
    type Answer: Send + 'static;
    /// Whether this request may join `group`, whose requests share the statement's parameters.
    fn fits(&self, group: &[Self]) -> bool;
    /// Runs `group` as one statement: one answer per request, in the group's order. With
    /// `durable` (asked only of a kind answered after a flush), the statement commits
    /// synchronously, so that its answers need no flush.
    fn run<'a>(
        pool: &'a AnyPool,
        group: &'a [Self],
        durable: bool,
    ) -> BoxFuture<'a, Result<Vec<Self::Answer>, sqlx::Error>>;
}

type Waiting<R> = (R, oneshot::Sender<StoreResult<<R as Grouped>::Answer>>);

/// The queue of one kind of request, served by its own task.
pub(super) struct Groups<R: Grouped> {
    queue: mpsc::Sender<Waiting<R>>,
}

impl<R: Grouped> Groups<R> {
    /// Runs the groups on `pool`, whose connections commit without waiting for the disk; with
    /// `disk`, each group is answered once its commit is on disk.
    pub(super) fn spawn(pool: AnyPool, disk: Option<Arc<Disk>>) -> Self {
        let (queue, waiting) = mpsc::channel(QUEUE);
        tokio::spawn(serve(pool, disk, waiting));
        Groups { queue }
    }

    /// Runs the requests in their order (each group takes them in the order they wait), and
    /// answers them in that order.
    pub(super) async fn run_all(&self, requests: Vec<R>) -> StoreResult<Vec<R::Answer>> {
        let gone = || StoreError::Db(sqlx::Error::PoolClosed);
        let mut waiting = Vec::with_capacity(requests.len());
        for request in requests {
            let (answer, answered) = oneshot::channel();
            self.queue
                .send((request, answer))
                .await
                .map_err(|_| gone())?;
            waiting.push(answered);
        }
        let mut answers = Vec::with_capacity(waiting.len());
        for answered in waiting {
            answers.push(answered.await.map_err(|_| gone())??);
        }
        Ok(answers)
    }

    pub(super) async fn run(&self, request: R) -> StoreResult<R::Answer> {
        let (answer, answered) = oneshot::channel();
        let gone = || StoreError::Db(sqlx::Error::PoolClosed);
        self.queue
            .send((request, answer))
            .await
            .map_err(|_| gone())?;
        answered.await.map_err(|_| gone())?
    }
}

async fn serve<R: Grouped>(
    pool: AnyPool,
    disk: Option<Arc<Disk>>,
    mut waiting: mpsc::Receiver<Waiting<R>>,
) {
    // Requests that did not fit the last group, oldest first; they open the next one.
    let mut held: VecDeque<Waiting<R>> = VecDeque::new();
    loop {
        let first = match held.pop_front() {
            Some(first) => first,
            None => match waiting.recv().await {
                Some(first) => first,
                None => return,
            },
        };
        let (mut group, mut answers) = (vec![first.0], vec![first.1]);
        let mut later = VecDeque::new();
        let mut place = |(request, answer): Waiting<R>| {
            if group.len() < MAX_GROUP && request.fits(&group) {
                group.push(request);
                answers.push(answer);
            } else {
                later.push_back((request, answer));
            }
        };
        held.drain(..).for_each(&mut place);
        while let Ok(next) = waiting.try_recv() {
            place(next);
        }
        held = later;
        // A create alone commits synchronously rather than flushing afterwards: one round
        // trip instead of two. Its locks (the account's row) are then held through the flush
        // and the next group waits for it, so only when no other request waits: requests that
        // do are better run while a flush does, and share it.
        let durable = disk.is_some() && group.len() == 1 && held.is_empty() && waiting.is_empty();
        match R::run(&pool, &group, durable).await {
            Ok(answered) if answered.len() == answers.len() => {
                match disk.as_ref().filter(|_| !durable) {
                    None => answer_all(answers, answered),
                    // The next group runs while this one waits for the disk.
                    Some(disk) => {
                        let disk = disk.clone();
                        tokio::spawn(async move {
                            match disk.flushed().await {
                                Ok(()) => answer_all(answers, answered),
                                Err(e) => fail_all(answers, &e),
                            }
                        });
                    }
                }
            }
            Ok(_) => fail_all(
                answers,
                &decode_err("a group's answers do not match it".into()),
            ),
            Err(e) => fail_all(answers, &e),
        }
    }
}

fn answer_all<A>(answers: Vec<oneshot::Sender<StoreResult<A>>>, answered: Vec<A>) {
    for (answer, value) in answers.into_iter().zip(answered) {
        let _ = answer.send(Ok(value));
    }
}

/// Makes commits durable: a transaction that writes a WAL record and commits synchronously
/// flushes the WAL up to its commit, and so every commit before it too.
pub(super) struct Disk {
    /// Connections that commit synchronously.
    pool: AnyPool,
    flushes: Flusher,
}

impl Disk {
    pub(super) fn new(pool: AnyPool) -> Self {
        Disk {
            pool,
            flushes: Flusher::default(),
        }
    }

    /// Returns once everything committed before the call is on disk.
    async fn flushed(&self) -> Result<(), sqlx::Error> {
        self.flushes
            .wait(async {
                sqlx::query("SELECT 1 FROM pg_logical_emit_message(true, 'svc', 'flush')")
                    .execute(&self.pool)
                    .await
                    .map(drop)
            })
            .await
    }
}

/// Shares flushes among the callers that wait at once: any flush that starts after a caller
/// committed makes its commit durable, so a caller waits for the first such flush instead of
/// running its own.
#[derive(Default)]
struct Flusher {
    /// Flushes started so far; only changed with `done` held, so they run one at a time.
    started: AtomicU64,
    /// The number of the last flush that succeeded.
    done: tokio::sync::Mutex<u64>,
}

impl Flusher {
    /// Returns once a flush that started after the call has succeeded; `flush` is run only
    /// when none has.
    async fn wait<F>(&self, flush: F) -> Result<(), sqlx::Error>
    where
        F: Future<Output = Result<(), sqlx::Error>>,
    {
        // Flushes numbered above this one start after the call, so after the caller's commit.
        let needed = self.started.load(Ordering::Acquire) + 1;
        let mut done = self.done.lock().await;
        if *done >= needed {
            return Ok(());
        }
        let number = self.started.fetch_add(1, Ordering::AcqRel) + 1;
        flush.await?;
        *done = number;
        Ok(())
    }
}

/// Answers every request of a failed group with the failure; each request answers `internal`.
fn fail_all<A>(answers: Vec<oneshot::Sender<StoreResult<A>>>, error: &sqlx::Error) {
    for answer in answers {
        let error = std::io::Error::other(format!("a grouped statement failed: {error}"));
        let _ = answer.send(Err(StoreError::Db(sqlx::Error::Io(error))));
    }
}

/// A contact create, for `svc_create_contacts` (crates/store/migrations/postgres/0004), or alone for
/// `svc_create_contact` (0018).
pub(super) struct Create {
    pub account_id: String,
    pub id: String,
    pub contact: NewContact,
    pub idem: Option<IdemRequest>,
    pub limits: Limits,
    pub now: Timestamp,
}

/// What became of a create.
pub(super) enum Created {
    Stored {
        duplicate_of: Option<String>,
    },
    /// Its idempotency key is live: the same request replays, another is refused.
    Answered,
    Refused(Limit),
}

/// A create as `svc_create_contacts` reads it (the type `svc_new_contact`).
#[derive(Serialize)]
struct Item<'a> {
    item: usize,
    account_id: &'a str,
    id: &'a str,
    folder_id: &'a str,
    idem_key: Option<&'a str>,
    /// `bytea` in its text form.
    fingerprint: Option<String>,
    callsign: &'a str,
    frequency: f64,
    band: &'a str,
    mode: &'a str,
    time_on: i64,
    rst_sent: Option<&'a str>,
    rst_received: Option<&'a str>,
    name: Option<&'a str>,
    notes: Option<&'a str>,
    sig: Option<&'a str>,
    sig_info: Option<&'a str>,
    my_sig: Option<&'a str>,
    my_sig_info: Option<&'a str>,
    activation_id: Option<&'a str>,
    station_callsign: Option<&'a str>,
    dupe_key: Option<&'a str>,
    fields: Option<String>,
    created_at: i64,
}

impl Create {
    fn item(&self, item: usize) -> Item<'_> {
        let c = &self.contact;
        Item {
            item,
            account_id: &self.account_id,
            id: &self.id,
            folder_id: &c.folder_id,
            idem_key: self.idem.as_ref().map(|i| i.key.as_str()),
            fingerprint: self.idem.as_ref().map(|i| {
                let hex: String = i.fingerprint.iter().map(|b| format!("{b:02x}")).collect();
                format!("\\x{hex}")
            }),
            callsign: &c.callsign,
            frequency: c.frequency.mhz,
            band: c.frequency.band,
            mode: &c.mode,
            time_on: c.time_on.millis(),
            rst_sent: c.rst_sent.as_deref(),
            rst_received: c.rst_received.as_deref(),
            name: c.name.as_deref(),
            notes: c.notes.as_deref(),
            sig: c.sig.as_deref(),
            sig_info: c.sig_info.as_deref(),
            my_sig: c.my_sig.as_deref(),
            my_sig_info: c.my_sig_info.as_deref(),
            activation_id: c.activation_id.as_deref(),
            station_callsign: c.station_callsign.as_deref(),
            dupe_key: c.dupe_key.as_deref(),
            fields: super::fields_json(&c.fields),
            created_at: self.now.millis(),
        }
    }
}

/// Creates as the JSON array `svc_create_contacts` reads (and the SQLite batch, likewise).
pub(super) fn items_json(creates: &[Create]) -> Result<String, sqlx::Error> {
    let items: Vec<Item> = creates.iter().enumerate().map(|(n, c)| c.item(n)).collect();
    serde_json::to_string(&items).map_err(|e| sqlx::Error::Encode(e.into()))
}

impl Grouped for Create {
    type Answer = Created;

    fn fits(&self, group: &[Self]) -> bool {
        let first = &group[0];
        // The function claims each idempotency key once; a repeat waits for the next group,
        // where it finds the key answered.
        let repeats = |other: &Create| {
            other.account_id == self.account_id
                && other.idem.is_some()
                && other.idem.as_ref().map(|i| &i.key) == self.idem.as_ref().map(|i| &i.key)
        };
        first.limits == self.limits
            && first.now.utc_day() == self.now.utc_day()
            && !group.iter().any(repeats)
    }

    fn run<'a>(
        pool: &'a AnyPool,
        group: &'a [Self],
        durable: bool,
    ) -> BoxFuture<'a, Result<Vec<Created>, sqlx::Error>> {
        Box::pin(async move {
            let items = items_json(group)?;
            let (first, limits) = (&group[0], &group[0].limits);
            // A create alone is planned as statements on one row each, which costs a fraction
            // of planning the group's statements (crates/store/migrations/postgres/0018).
            let call = if group.len() == 1 {
                "SELECT item, outcome, duplicate_of \
                 FROM svc_create_contact($1::json, $2, $3, $4, $5, $6, $7, $8)"
            } else {
                "SELECT item, outcome, duplicate_of \
                 FROM svc_create_contacts($1::json, $2, $3, $4, $5, $6, $7)"
            };
            let query = sqlx::query(call)
                .bind(items)
                .bind(first.now.utc_day())
                .bind(first.now.millis() - IDEMPOTENCY_TTL_MS)
                .bind(limits.lifetime_contact_budget)
                .bind(limits.free_plan_cap)
                .bind(limits.daily_contact_budget)
                .bind(limits.daily_applies);
            let query = if group.len() == 1 {
                query.bind(durable)
            } else {
                query
            };
            let rows = query.fetch_all(pool).await?;
            let mut answers: Vec<Option<Created>> = group.iter().map(|_| None).collect();
            for row in rows {
                let item: i32 = row.try_get("item")?;
                let n = usize::try_from(item)
                    .ok()
                    .filter(|&n| n < group.len())
                    .ok_or_else(|| decode_err(format!("create item {item}")))?;
                let outcome: String = row.try_get("outcome")?;
                let created = match outcome.as_str() {
                    "stored" => Created::Stored {
                        duplicate_of: row.try_get("duplicate_of")?,
                    },
                    "answered" => Created::Answered,
                    "lifetime" => Created::Refused(Limit::Lifetime),
                    // The function names the limit only; the count the refusal shows is read
                    // after it, which a refusal (rare, and final for the account) can afford.
                    "cap" => {
                        let (own, current): (Option<i64>, i64) = sqlx::query_as(
                            "SELECT qso_cap, native_qso_count FROM accounts WHERE id = $1",
                        )
                        .bind(&group[n].account_id)
                        .fetch_one(pool)
                        .await?;
                        Created::Refused(Limit::Cap {
                            cap: own.unwrap_or(limits.free_plan_cap),
                            current,
                        })
                    }
                    "daily" => Created::Refused(Limit::Daily),
                    other => return Err(decode_err(format!("create outcome {other:?}"))),
                };
                answers[n] = Some(created);
            }
            answers
                .into_iter()
                .map(|a| a.ok_or_else(|| decode_err("a create without an outcome".into())))
                .collect()
        })
    }
}

/// A request's key lookup, which also counts the request in its key's burst window.
pub(super) struct Lookup {
    /// The first 8 bytes of the key's hash.
    pub lookup: i64,
    pub window_start: i64,
    pub now: Timestamp,
}

impl Grouped for Lookup {
    /// The keys with that lookup, with their accounts and, when live, the request's count in
    /// its burst window (`window_count`).
    type Answer = Vec<AnyRow>;

    fn fits(&self, group: &[Self]) -> bool {
        group[0].window_start == self.window_start
    }

    fn run<'a>(
        pool: &'a AnyPool,
        group: &'a [Self],
        _durable: bool,
    ) -> BoxFuture<'a, Result<Vec<Vec<AnyRow>>, sqlx::Error>> {
        Box::pin(async move {
            // A lookup alone reads its key by the index and counts it once: the group's
            // statement gives the same rows but costs more to plan (0.20 against 0.14 ms).
            if let [alone] = group {
                let rows = sqlx::query(concat!(
                    "WITH found AS (SELECT 1::bigint AS item, ",
                    key_lookup!(),
                    " WHERE k.lookup = $1 \
                     ), counted AS ( \
                       INSERT INTO key_usage (key_id, window_start, count, last_used_at) \
                       SELECT f.id, $2, 1, $3 FROM found f WHERE f.revoked_at IS NULL ORDER BY f.id \
                       ON CONFLICT (key_id) DO UPDATE SET ",
                    count_in_window!(),
                    " RETURNING key_id, count \
                     ) \
                     SELECT f.*, c.count AS window_count \
                     FROM found f LEFT JOIN counted c ON c.key_id = f.id"
                ))
                .bind(alone.lookup)
                .bind(alone.window_start)
                .bind(alone.now.millis())
                .fetch_all(pool)
                .await?;
                return Ok(vec![rows]);
            }
            let lookups: Vec<String> = group.iter().map(|l| l.lookup.to_string()).collect();
            let now = group
                .iter()
                .map(|l| l.now.millis())
                .max()
                .unwrap_or_default();
            // A key counts all its requests of the group at once; each request's count is its
            // place among them.
            let rows = sqlx::query(concat!(
                "WITH wanted AS ( \
                   SELECT r.lookup, r.item \
                   FROM unnest($1::text::bigint[]) WITH ORDINALITY AS r (lookup, item) \
                 ), found AS ( \
                   SELECT w.item, ",
                key_lookup!(),
                " JOIN wanted w ON w.lookup = k.lookup \
                 ), uses AS ( \
                   SELECT f.id, count(*) AS n FROM found f WHERE f.revoked_at IS NULL GROUP BY f.id \
                 ), counted AS ( \
                   INSERT INTO key_usage (key_id, window_start, count, last_used_at) \
                   SELECT u.id, $2, u.n, $3 FROM uses u ORDER BY u.id \
                   ON CONFLICT (key_id) DO UPDATE SET ",
                count_in_window!(),
                " RETURNING key_id, count \
                 ) \
                 SELECT f.*, c.count - u.n \
                   + row_number() OVER (PARTITION BY f.id ORDER BY f.item) AS window_count \
                 FROM found f LEFT JOIN uses u ON u.id = f.id LEFT JOIN counted c ON c.key_id = f.id"
            ))
            .bind(format!("{{{}}}", lookups.join(",")))
            .bind(group[0].window_start)
            .bind(now)
            .fetch_all(pool)
            .await?;
            let mut answers: Vec<Vec<AnyRow>> = group.iter().map(|_| Vec::new()).collect();
            for row in rows {
                let item: i64 = row.try_get("item")?;
                let slot = usize::try_from(item - 1)
                    .ok()
                    .and_then(|item| answers.get_mut(item))
                    .ok_or_else(|| decode_err(format!("lookup item {item}")))?;
                slot.push(row);
            }
            Ok(answers)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    /// A flush that counts its runs and finishes when `release` fires.
    async fn flush(runs: &AtomicUsize, release: oneshot::Receiver<()>) -> Result<(), sqlx::Error> {
        runs.fetch_add(1, Ordering::SeqCst);
        release
            .await
            .map_err(|_| decode_err("flush abandoned".into()))
    }

    async fn quick_flush(runs: &AtomicUsize) -> Result<(), sqlx::Error> {
        let (go, release) = oneshot::channel();
        go.send(()).ok();
        flush(runs, release).await
    }

    #[tokio::test]
    async fn a_wait_after_a_flush_finished_runs_its_own() {
        let (flusher, runs) = (Flusher::default(), AtomicUsize::new(0));
        flusher.wait(quick_flush(&runs)).await.unwrap();
        flusher.wait(quick_flush(&runs)).await.unwrap();
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn waits_during_a_flush_share_the_next_one() {
        let flusher = Arc::new(Flusher::default());
        let runs = Arc::new(AtomicUsize::new(0));
        let (first_go, first_release) = oneshot::channel();
        let first = {
            let (flusher, runs) = (flusher.clone(), runs.clone());
            tokio::spawn(async move { flusher.wait(flush(&runs, first_release)).await })
        };
        while runs.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        // These committed while the first flush ran, which may not cover them.
        let waiters: Vec<_> = (0..10)
            .map(|_| {
                let (flusher, runs) = (flusher.clone(), runs.clone());
                tokio::spawn(async move { flusher.wait(quick_flush(&runs)).await })
            })
            .collect();
        tokio::task::yield_now().await;
        first_go.send(()).unwrap();
        first.await.unwrap().unwrap();
        for waiter in waiters {
            waiter.await.unwrap().unwrap();
        }
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_failed_flush_fails_its_caller_and_the_next_wait_flushes_again() {
        let (flusher, runs) = (Flusher::default(), AtomicUsize::new(0));
        let (abandon, release) = oneshot::channel::<()>();
        drop(abandon);
        assert!(flusher.wait(flush(&runs, release)).await.is_err());
        flusher.wait(quick_flush(&runs)).await.unwrap();
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }
}
