//! Group commit for SQLite: one task owns the single write connection and runs every write as a job
//! inside a shared transaction, so one `fsync` makes a whole group of writes durable.
//!
//! The durable job that opens a transaction runs bare: when it fails, the transaction is rolled
//! back, which undoes its writes alone. Each later durable job of the group runs under a
//! savepoint of its own, so that when it fails its writes are rolled back and the rest of the
//! group goes on. (A savepoint costs a copy of every page the job changes, made before it
//! changes it: for a batch of 500 contacts, hundreds of pages.) A durable job's caller is
//! answered only after the group's `COMMIT` returned, so an acknowledged write survives a crash.
//!
//! A counter job (one statement, such as the burst window) is answered as soon as its statement
//! ran; losing it to a crash costs a request count, never data. So a transaction opened by a
//! counter commits without waiting for the disk (`synchronous = NORMAL`; the next durable
//! commit's `fsync` takes it along), and stays open a while (see `COUNTER_LINGER`) for the
//! counts of other requests. A durable job that finds it holding counts alone commits them
//! first, and so opens a transaction of its own.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use sqlx::AnyConnection;
use sqlx::{Connection, Executor};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::super::{StoreError, StoreResult};

pub type BoxFuture<'c, T> = Pin<Box<dyn Future<Output = T> + Send + 'c>>;

/// Jobs taken into one transaction at most.
const MAX_GROUP: usize = 256;
/// How long a group stays open while it holds counters alone: a durable job that comes along
/// commits it, else it commits when this has passed since it opened. Reads count their key's
/// burst window but write nothing else, so a stream of reads pays one commit per period
/// instead of one every few requests, and a read rarely waits behind a commit.
const COUNTER_LINGER: Duration = Duration::from_millis(200);
const QUEUE: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Answered after the commit; rolled back alone on failure.
    Durable,
    /// One statement, answered when it ran.
    Counter,
}

/// Answers a job that waits for its group's commit, with the commit's outcome.
type CommitAnswer = Box<dyn FnOnce(Result<(), String>) + Send>;

/// What the writer does once a job ran.
enum Ran {
    /// A counter, answered already.
    Counted,
    /// Refused by a rule, answered already; its writes are undone.
    Refused,
    /// The database failed, answered already. Some failures end the transaction itself, so
    /// the whole group is given up rather than trusted.
    Broken(String),
    /// Succeeded; to be answered with the commit's outcome.
    AwaitingCommit(CommitAnswer),
}

trait Job: Send {
    fn kind(&self) -> Kind;
    fn run<'c>(self: Box<Self>, conn: &'c mut AnyConnection) -> BoxFuture<'c, Ran>;
    fn fail(self: Box<Self>, error: StoreError);
}

struct TypedJob<T, F> {
    kind: Kind,
    work: F,
    answer: oneshot::Sender<StoreResult<T>>,
}

impl<T, F> Job for TypedJob<T, F>
where
    T: Send + 'static,
    F: for<'c> FnOnce(&'c mut AnyConnection) -> BoxFuture<'c, StoreResult<T>> + Send + 'static,
{
    fn kind(&self) -> Kind {
        self.kind
    }

    fn run<'c>(self: Box<Self>, conn: &'c mut AnyConnection) -> BoxFuture<'c, Ran> {
        let TypedJob { kind, work, answer } = *self;
        Box::pin(async move {
            match (work(conn).await, kind) {
                (Ok(value), Kind::Durable) => Ran::AwaitingCommit(Box::new(move |commit| {
                    let _ = answer.send(commit.map(|()| value).map_err(commit_failed));
                })),
                (Ok(value), Kind::Counter) => {
                    let _ = answer.send(Ok(value));
                    Ran::Counted
                }
                (Err(e), _) => {
                    let ran = match &e {
                        StoreError::Api(_) => Ran::Refused,
                        StoreError::Db(db) => Ran::Broken(db.to_string()),
                    };
                    let _ = answer.send(Err(e));
                    ran
                }
            }
        })
    }

    fn fail(self: Box<Self>, error: StoreError) {
        let _ = self.answer.send(Err(error));
    }
}

fn commit_failed(message: String) -> StoreError {
    StoreError::Db(sqlx::Error::Protocol(format!(
        "the write was rolled back: {message}"
    )))
}

/// The handle the store writes through; the task ends when the last handle is dropped.
#[derive(Clone)]
pub struct Writer {
    jobs: mpsc::Sender<Box<dyn Job>>,
}

impl Writer {
    pub fn spawn(conn: AnyConnection) -> Writer {
        let (jobs, queue) = mpsc::channel(QUEUE);
        tokio::spawn(write_loop(conn, queue));
        Writer { jobs }
    }

    /// Runs `work` on the write connection inside the current group's transaction.
    pub async fn run<T, F>(&self, kind: Kind, work: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(&'c mut AnyConnection) -> BoxFuture<'c, StoreResult<T>> + Send + 'static,
    {
        let (answer, answered) = oneshot::channel();
        let job = Box::new(TypedJob { kind, work, answer });
        if self.jobs.send(job).await.is_err() {
            return Err(stopped());
        }
        answered.await.unwrap_or_else(|_| Err(stopped()))
    }
}

fn stopped() -> StoreError {
    StoreError::Db(sqlx::Error::WorkerCrashed)
}

/// The open group: whether a transaction is open and who waits for its commit.
struct Group {
    open: bool,
    /// When the open transaction began.
    opened_at: Instant,
    /// The last durable job's savepoint, not released yet: the release rides along with the
    /// next job's savepoint or the commit, which saves a round trip to the connection's thread.
    savepoint: bool,
    waiting: Vec<CommitAnswer>,
}

impl Group {
    /// Ends the transaction and answers everyone waiting for it.
    async fn commit(&mut self, conn: &mut AnyConnection) {
        if !self.open {
            return;
        }
        let outcome = conn.execute("COMMIT").await.map(|_| ());
        if outcome.is_err() {
            let _ = conn.execute("ROLLBACK").await;
        }
        self.finish(outcome.map_err(|e| e.to_string()));
    }

    /// Gives the whole group up after the transaction itself failed.
    async fn abort(&mut self, conn: &mut AnyConnection, error: String) {
        tracing::error!(%error, "write group rolled back");
        let _ = conn.execute("ROLLBACK").await;
        self.finish(Err(error));
    }

    fn finish(&mut self, outcome: Result<(), String>) {
        for answer in self.waiting.drain(..) {
            answer(outcome.clone());
        }
        self.open = false;
        self.savepoint = false;
    }

    async fn run(&mut self, conn: &mut AnyConnection, job: Box<dyn Job>) {
        let kind = job.kind();
        // SQLite changes `synchronous` only between transactions: a group opened by a counter
        // commits without waiting for the disk, since a lost count costs no data, and the
        // next durable commit's `fsync` makes it durable too.
        let opening = match (kind, self.open, self.savepoint) {
            (Kind::Counter, false, _) => "PRAGMA synchronous = NORMAL; BEGIN IMMEDIATE",
            (Kind::Counter, true, _) => "",
            (Kind::Durable, false, _) => "PRAGMA synchronous = FULL; BEGIN IMMEDIATE",
            // Counters alone so far: they go first, so that this job's transaction is its own.
            (Kind::Durable, true, _) if self.waiting.is_empty() => {
                "COMMIT; PRAGMA synchronous = FULL; BEGIN IMMEDIATE"
            }
            (Kind::Durable, true, false) => "SAVEPOINT job",
            (Kind::Durable, true, true) => "RELEASE job; SAVEPOINT job",
        };
        let begins = opening.ends_with("BEGIN IMMEDIATE");
        // A durable job in a transaction of its own runs bare, with no savepoint.
        let bare = kind == Kind::Durable && begins;
        if !opening.is_empty() {
            if let Err(e) = conn.execute(opening).await {
                let message = e.to_string();
                job.fail(StoreError::Db(e));
                // Whatever part of `opening` ran is undone with the group.
                self.abort(conn, message).await;
                return;
            }
            if begins {
                self.opened_at = Instant::now();
            }
            self.open = true;
            self.savepoint = false;
        }
        let closed = match job.run(conn).await {
            Ran::Counted => Ok(()),
            Ran::Refused if kind == Kind::Counter => Ok(()),
            Ran::Refused if bare => {
                let rolled_back = conn.execute("ROLLBACK").await.map(drop);
                self.open = false;
                rolled_back
            }
            Ran::Refused => conn.execute("ROLLBACK TO job; RELEASE job").await.map(drop),
            Ran::Broken(message) => return self.abort(conn, message).await,
            Ran::AwaitingCommit(answer) => {
                self.waiting.push(answer);
                self.savepoint = !bare;
                Ok(())
            }
        };
        if let Err(e) = closed {
            self.abort(conn, e.to_string()).await;
        }
    }
}

async fn write_loop(mut conn: AnyConnection, mut queue: mpsc::Receiver<Box<dyn Job>>) {
    let mut group = Group {
        open: false,
        opened_at: Instant::now(),
        savepoint: false,
        waiting: Vec::new(),
    };
    loop {
        let next = if group.open {
            match tokio::time::timeout_at(group.opened_at + COUNTER_LINGER, queue.recv()).await {
                Ok(next) => next,
                Err(_) => {
                    group.commit(&mut conn).await;
                    continue;
                }
            }
        } else {
            queue.recv().await
        };
        let Some(job) = next else { break };
        group.run(&mut conn, job).await;
        let mut taken = 1;
        while taken < MAX_GROUP {
            let Ok(job) = queue.try_recv() else { break };
            group.run(&mut conn, job).await;
            taken += 1;
        }
        if !group.waiting.is_empty() {
            group.commit(&mut conn).await;
        }
    }
    group.commit(&mut conn).await;
    let _ = conn.close().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use svc_model::ApiError;

    /// A durable job inserting `v` into `t`, refused after its write when `refuse`.
    fn insert(writer: &Writer, v: i64, refuse: bool) -> impl Future<Output = StoreResult<()>> {
        writer.run(Kind::Durable, move |conn| {
            Box::pin(async move {
                sqlx::query("INSERT INTO t (v) VALUES ($1)")
                    .bind(v)
                    .execute(&mut *conn)
                    .await?;
                if refuse {
                    return Err(ApiError::field("v", "refused after writing").into());
                }
                Ok(())
            })
        })
    }

    fn count(writer: &Writer) -> impl Future<Output = StoreResult<()>> {
        writer.run(Kind::Counter, |conn| {
            Box::pin(async move {
                sqlx::query("UPDATE n SET n = n + 1")
                    .execute(&mut *conn)
                    .await?;
                Ok(())
            })
        })
    }

    async fn values(writer: &Writer) -> (Vec<i64>, i64) {
        writer
            .run(Kind::Durable, |conn| {
                Box::pin(async move {
                    let t = sqlx::query_scalar("SELECT v FROM t ORDER BY v")
                        .fetch_all(&mut *conn)
                        .await?;
                    let n = sqlx::query_scalar("SELECT n FROM n")
                        .fetch_one(&mut *conn)
                        .await?;
                    Ok((t, n))
                })
            })
            .await
            .unwrap()
    }

    // Jobs sent in one `join!` reach the writer before it runs, so they share a group: the
    // first durable job of each transaction runs bare, the later ones under savepoints.
    #[tokio::test]
    async fn a_refused_job_undoes_its_own_writes_alone() {
        sqlx::any::install_default_drivers();
        let mut conn = AnyConnection::connect("sqlite::memory:").await.unwrap();
        conn.execute("CREATE TABLE t (v INTEGER NOT NULL); CREATE TABLE n (n INTEGER NOT NULL); INSERT INTO n VALUES (0)")
            .await
            .unwrap();
        let writer = Writer::spawn(conn);

        // Bare and refused, then two under savepoints, one refused.
        let (a, b, c, d) = tokio::join!(
            insert(&writer, 1, true),
            insert(&writer, 2, false),
            insert(&writer, 3, true),
            insert(&writer, 4, false),
        );
        assert!(matches!(a, Err(StoreError::Api(_))) && matches!(c, Err(StoreError::Api(_))));
        assert!(b.is_ok() && d.is_ok(), "{b:?} {d:?}");
        assert_eq!(values(&writer).await, (vec![2, 4], 0));

        // Counts first: committed before the durable jobs, which still each stand alone.
        let (a, b, c, d) = tokio::join!(
            count(&writer),
            insert(&writer, 5, true),
            insert(&writer, 6, false),
            count(&writer),
        );
        assert!(a.is_ok() && matches!(b, Err(StoreError::Api(_))) && c.is_ok() && d.is_ok());
        assert_eq!(values(&writer).await, (vec![2, 4, 6], 2));
    }
}
