//! External logbooks: the connections and the queue of copies (migrations `*_logbooks.sql`).
//! The queue rows are written by triggers in the transaction of the contact's insert or
//! delete; here they are claimed with a lease by the workers of any process and settled.

use super::*;
use std::sync::LazyLock;

use svc_model::{ExternalCopy, Logbook, Review};

/// Marks a contact (`$1`) sent to eQSL on `$2` (`YYYY-MM-DD`): its `fields` JSON gets
/// `eqslQslSent` `Y` and `eqslQslSdate`, in the statement, so that nothing written to the contact
/// meanwhile is lost. The contact repush trigger leaves these two fields out (migrations
/// `*_eqsl.sql`), so this sends the contact to no book again.
static SQLITE_EQSL_SENT: LazyLock<String> = LazyLock::new(|| {
    let (sent, date) = eqsl_sent_fields();
    format!(
        "UPDATE contacts SET fields = json_set(COALESCE(fields, '{{}}'), '$.{sent}', 'Y', \
         '$.{date}', $2) WHERE id = $1"
    )
});
static POSTGRES_EQSL_SENT: LazyLock<String> = LazyLock::new(|| {
    let (sent, date) = eqsl_sent_fields();
    format!(
        "UPDATE contacts SET fields = (COALESCE(fields, '{{}}')::jsonb \
         || jsonb_build_object('{sent}', 'Y', '{date}', CAST($2 AS TEXT)))::text WHERE id = $1"
    )
});

/// The wire names of eQSL's sent flag and date, as the `fields` JSON keys them.
fn eqsl_sent_fields() -> (&'static str, &'static str) {
    (
        svc_model::Field::EqslQslSent.def().wire,
        svc_model::Field::EqslQslSdate.def().wire,
    )
}

/// The columns of a logbook with its counts, for [`logbook_row`].
const LOGBOOK_COLS: &str = "l.id, l.account_id, l.provider, l.callsign, l.key_sealed, \
     l.key_last4, l.email, CAST(CASE WHEN l.auto_push THEN 1 ELSE 0 END AS BIGINT) AS auto_push, \
     CAST(CASE WHEN l.auto_sync THEN 1 ELSE 0 END AS BIGINT) AS auto_sync, l.paused_reason, \
     l.last_error, l.created_at, \
     (SELECT COUNT(*) FROM external_copies c WHERE c.logbook_id = l.id AND c.state = 'waiting') AS waiting, \
     (SELECT COUNT(*) FROM external_copies c WHERE c.logbook_id = l.id AND c.state = 'pushed') AS pushed, \
     (SELECT COUNT(*) FROM external_copies c WHERE c.logbook_id = l.id AND c.state = 'failed') AS failed";

fn logbook_row(row: &AnyRow) -> Result<LogbookRecord, sqlx::Error> {
    let paused_reason: Option<String> = row.try_get("paused_reason")?;
    Ok(LogbookRecord {
        account_id: row.try_get("account_id")?,
        key_sealed: row.try_get("key_sealed")?,
        logbook: Logbook {
            id: row.try_get("id")?,
            provider: row.try_get("provider")?,
            callsign: row.try_get("callsign")?,
            key_last4: row.try_get("key_last4")?,
            email: row.try_get("email")?,
            auto_push: row.try_get::<i64, _>("auto_push")? != 0,
            auto_sync: row.try_get::<i64, _>("auto_sync")? != 0,
            state: if paused_reason.is_some() {
                "paused"
            } else {
                "working"
            }
            .into(),
            paused_reason,
            last_error: row.try_get("last_error")?,
            waiting: row.try_get("waiting")?,
            pushed: row.try_get("pushed")?,
            failed: row.try_get("failed")?,
            created_at: Timestamp(row.try_get("created_at")?),
        },
    })
}

impl SqlStore {
    pub(super) fn postgres(&self) -> bool {
        matches!(self.writes, Writes::Pooled { .. })
    }

    pub(super) async fn find_logbook(
        &self,
        account_id: &str,
        id: &str,
    ) -> StoreResult<Option<LogbookRecord>> {
        let sql =
            format!("SELECT {LOGBOOK_COLS} FROM logbooks l WHERE l.account_id = $1 AND l.id = $2");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(account_id)
            .bind(id)
            .fetch_optional(&self.reader)
            .await?;
        Ok(row.as_ref().map(logbook_row).transpose()?)
    }

    pub(super) async fn insert_logbook(
        &self,
        account_id: &str,
        new: &NewLogbook,
        now: Timestamp,
    ) -> StoreResult<LogbookRecord> {
        let (account_id, new) = (account_id.to_owned(), new.clone());
        let id = new.id.clone();
        let owner = account_id.clone();
        self.write(move |tx| {
            Box::pin(async move {
                sqlx::query(
                    "INSERT INTO logbooks (id, account_id, provider, callsign, key_sealed, \
                     key_last4, auto_push, auto_sync, created_at, email) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                )
                .bind(&new.id)
                .bind(&account_id)
                .bind(&new.provider)
                .bind(&new.callsign)
                .bind(&new.key_sealed)
                .bind(&new.key_last4)
                .bind(new.auto_push)
                .bind(new.auto_sync)
                .bind(now.millis())
                .bind(&new.email)
                .execute(&mut *tx)
                .await?;
                Ok(())
            })
        })
        .await?;
        self.find_logbook(&owner, &id)
            .await?
            .ok_or_else(|| decode_err("a logbook vanished after its insert".into()).into())
    }

    pub(super) async fn account_logbooks(
        &self,
        account_id: &str,
    ) -> StoreResult<Vec<LogbookRecord>> {
        let sql =
            format!("SELECT {LOGBOOK_COLS} FROM logbooks l WHERE l.account_id = $1 ORDER BY l.seq");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(account_id)
            .fetch_all(&self.reader)
            .await?;
        Ok(rows.iter().map(logbook_row).collect::<Result<_, _>>()?)
    }

    pub(super) async fn update_logbook(
        &self,
        account_id: &str,
        id: &str,
        change: &LogbookChange,
    ) -> StoreResult<bool> {
        let (account_id, id, change) = (account_id.to_owned(), id.to_owned(), change.clone());
        self.write(move |tx| {
            Box::pin(async move {
                let found = sqlx::query(
                    "UPDATE logbooks SET \
                     auto_push = COALESCE($3, auto_push), auto_sync = COALESCE($4, auto_sync) \
                     WHERE account_id = $1 AND id = $2",
                )
                .bind(&account_id)
                .bind(&id)
                .bind(change.auto_push)
                .bind(change.auto_sync)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if found == 1
                    && let Some(key) = &change.key
                {
                    // A new key ends a pause: what waited goes now.
                    sqlx::query(
                        "UPDATE logbooks SET callsign = $2, key_sealed = $3, key_last4 = $4, \
                         email = COALESCE($5, email), paused_reason = NULL, last_error = NULL \
                         WHERE id = $1",
                    )
                    .bind(&id)
                    .bind(&key.callsign)
                    .bind(&key.key_sealed)
                    .bind(&key.key_last4)
                    .bind(&key.email)
                    .execute(&mut *tx)
                    .await?;
                }
                Ok(found == 1)
            })
        })
        .await
    }

    pub(super) async fn remove_logbook(&self, account_id: &str, id: &str) -> StoreResult<bool> {
        let (account_id, id) = (account_id.to_owned(), id.to_owned());
        self.write(move |tx| {
            Box::pin(async move {
                sqlx::query(
                    "DELETE FROM external_copies WHERE logbook_id = $1 AND account_id = $2",
                )
                .bind(&id)
                .bind(&account_id)
                .execute(&mut *tx)
                .await?;
                let gone = sqlx::query("DELETE FROM logbooks WHERE account_id = $1 AND id = $2")
                    .bind(&account_id)
                    .bind(&id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                Ok(gone == 1)
            })
        })
        .await
    }

    pub(super) async fn all_sealed_keys(&self) -> StoreResult<Vec<(String, Vec<u8>)>> {
        let rows = sqlx::query("SELECT id, key_sealed FROM logbooks ORDER BY seq")
            .fetch_all(&self.reader)
            .await?;
        Ok(rows
            .iter()
            .map(|r| Ok((r.try_get("id")?, r.try_get("key_sealed")?)))
            .collect::<Result<_, sqlx::Error>>()?)
    }

    pub(super) async fn store_sealed_key(&self, id: &str, sealed: &[u8]) -> StoreResult<()> {
        let (id, sealed) = (id.to_owned(), sealed.to_vec());
        self.write(move |tx| {
            Box::pin(async move {
                sqlx::query("UPDATE logbooks SET key_sealed = $2 WHERE id = $1")
                    .bind(&id)
                    .bind(&sealed)
                    .execute(&mut *tx)
                    .await?;
                Ok(())
            })
        })
        .await
    }

    pub(super) async fn claim_jobs(
        &self,
        now: Timestamp,
        lease_ms: i64,
        limit: i64,
        busy: &[String],
    ) -> StoreResult<Vec<ExternalJob>> {
        // Several processes on PostgreSQL: a row another worker holds locked is passed over.
        // The books this process is sending to already, as a JSON array of ids, are passed
        // over too.
        let (lock, busy_ids) = if self.postgres() {
            (
                "FOR UPDATE OF c SKIP LOCKED",
                "SELECT json_array_elements_text($4::json)",
            )
        } else {
            ("", "SELECT value FROM json_each($4)")
        };
        let busy = serde_json::to_string(busy).unwrap_or_else(|_| "[]".into());
        let sql = format!(
            "UPDATE external_copies SET lease_until = $1, attempts = attempts + 1 \
             WHERE (contact_id, logbook_id) IN (\
               SELECT c.contact_id, c.logbook_id FROM external_copies c \
               JOIN logbooks l ON l.id = c.logbook_id \
               WHERE c.state IN ('waiting', 'deleting') AND c.due_at <= $2 \
               AND (c.lease_until IS NULL OR c.lease_until < $2) AND l.paused_reason IS NULL \
               AND c.logbook_id NOT IN ({busy_ids}) \
               ORDER BY c.due_at LIMIT $3 {lock}) \
             RETURNING contact_id, logbook_id, account_id, state, log_id, attempts, via, edits"
        );
        type Claimed = (
            String,
            String,
            String,
            String,
            Option<String>,
            i64,
            String,
            i64,
        );
        let claimed: Vec<Claimed> = self
            .write(move |tx| {
                Box::pin(async move {
                    let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
                        .bind(now.millis() + lease_ms)
                        .bind(now.millis())
                        .bind(limit)
                        .bind(busy)
                        .fetch_all(&mut *tx)
                        .await?;
                    rows.iter()
                        .map(|r| {
                            Ok((
                                r.try_get("contact_id")?,
                                r.try_get("logbook_id")?,
                                r.try_get("account_id")?,
                                r.try_get("state")?,
                                r.try_get("log_id")?,
                                r.try_get("attempts")?,
                                r.try_get("via")?,
                                r.try_get("edits")?,
                            ))
                        })
                        .collect::<Result<_, sqlx::Error>>()
                        .map_err(Into::into)
                })
            })
            .await?;
        let mut jobs = Vec::with_capacity(claimed.len());
        for (contact_id, logbook_id, account_id, state, log_id, attempts, via, edits) in claimed {
            // The provider and what opens the book only: the counts of a full logbook row are
            // not needed here.
            let book = sqlx::query(
                "SELECT provider, key_sealed, callsign, email FROM logbooks WHERE id = $1",
            )
            .bind(&logbook_id)
            .fetch_optional(&self.reader)
            .await?;
            let Some(book) = book else { continue };
            let (provider, key_sealed): (String, Vec<u8>) =
                (book.try_get("provider")?, book.try_get("key_sealed")?);
            let (book_callsign, email): (String, Option<String>) =
                (book.try_get("callsign")?, book.try_get("email")?);
            let action = if state == "deleting" {
                match log_id {
                    Some(log_id) => ExternalAction::Delete { log_id },
                    None => continue,
                }
            } else {
                let row = sqlx::query(concat!(
                    "SELECT ",
                    contact_cols!(),
                    " FROM contacts WHERE id = $1"
                ))
                .bind(&contact_id)
                .fetch_optional(&self.reader)
                .await?;
                // Deleted since it was claimed: its trigger took the row away too.
                let Some(row) = row else { continue };
                let account_callsign: String =
                    sqlx::query_scalar("SELECT callsign FROM accounts WHERE id = $1")
                        .bind(&account_id)
                        .fetch_one(&self.reader)
                        .await?;
                ExternalAction::Push {
                    contact: Box::new(contact_row(&row)?),
                    account_callsign,
                    replacing: (edits > 0).then_some(Replacing { log_id }),
                }
            };
            jobs.push(ExternalJob {
                contact_id,
                logbook_id,
                account_id,
                provider,
                key_sealed,
                book_callsign,
                email,
                via,
                attempts,
                edits,
                action,
            });
        }
        Ok(jobs)
    }

    pub(super) async fn settle_job(
        &self,
        job: &ExternalJob,
        outcome: &ExternalOutcome,
        now: Timestamp,
    ) -> StoreResult<()> {
        let (job, outcome) = (job.clone(), outcome.clone());
        let postgres = self.postgres();
        self.write(move |tx| {
            Box::pin(async move {
                let (contact, book) = (job.contact_id.as_str(), job.logbook_id.as_str());
                match &outcome {
                    ExternalOutcome::Pushed { .. } | ExternalOutcome::SentToEqsl => {
                        let log_id = match &outcome {
                            ExternalOutcome::Pushed { log_id } => log_id.clone(),
                            _ => None,
                        };
                        if matches!(outcome, ExternalOutcome::SentToEqsl) {
                            // Whatever became of the copy here since (the contact edited or
                            // deleted, the book disconnected), eQSL has the contact now.
                            sqlx::query(sqlx::AssertSqlSafe(if postgres {
                                POSTGRES_EQSL_SENT.as_str()
                            } else {
                                SQLITE_EQSL_SENT.as_str()
                            }))
                            .bind(contact)
                            // As every date field is stored (and answered): YYYY-MM-DD.
                            .bind(now.utc_date().to_string())
                            .execute(&mut *tx)
                            .await?;
                        }
                        // Edited while it was on its way: what arrived is out of date, and goes
                        // again as a replacement of the copy just made.
                        let marked = sqlx::query(
                            "UPDATE external_copies SET log_id = $3, lease_until = NULL, \
                             last_error = NULL, \
                             state = CASE WHEN edits = $4 THEN 'pushed' ELSE 'waiting' END, \
                             attempts = CASE WHEN edits = $4 THEN attempts ELSE 0 END, due_at = 0 \
                             WHERE contact_id = $1 AND logbook_id = $2 AND state = 'waiting'",
                        )
                        .bind(contact)
                        .bind(book)
                        .bind(&log_id)
                        .bind(job.edits)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                        if marked == 0
                            && let Some(log_id) = &log_id
                        {
                            // Deleted here while it was on its way: a pushed copy goes there
                            // too, a synced one stays there and is remembered, as the delete
                            // trigger does for copies that had arrived. A replacement that was
                            // on its way has taken the place of the copy the delete trigger
                            // queued for deleting (the job deleted that one first).
                            if job.via == "push" {
                                sqlx::query(
                                    "INSERT INTO external_copies (contact_id, logbook_id, \
                                     account_id, state, log_id, due_at, via) \
                                     SELECT $1, $2, $3, 'deleting', $4, 0, 'push' \
                                     WHERE EXISTS (SELECT 1 FROM logbooks WHERE id = $2) \
                                     AND NOT EXISTS (SELECT 1 FROM contacts WHERE id = $1) \
                                     ON CONFLICT (contact_id, logbook_id) DO UPDATE \
                                     SET log_id = excluded.log_id, attempts = 0, due_at = 0, \
                                     lease_until = NULL WHERE external_copies.state = 'deleting'",
                                )
                                .bind(contact)
                                .bind(book)
                                .bind(&job.account_id)
                                .bind(log_id)
                                .execute(&mut *tx)
                                .await?;
                            } else {
                                sqlx::query(
                                    "INSERT INTO external_kept (logbook_id, log_id) \
                                     SELECT $2, $3 \
                                     WHERE EXISTS (SELECT 1 FROM logbooks WHERE id = $2) \
                                     AND NOT EXISTS (SELECT 1 FROM contacts WHERE id = $1) \
                                     ON CONFLICT (logbook_id, log_id) DO NOTHING",
                                )
                                .bind(contact)
                                .bind(book)
                                .bind(log_id)
                                .execute(&mut *tx)
                                .await?;
                            }
                        }
                        sqlx::query(
                            "UPDATE logbooks SET last_error = NULL \
                             WHERE id = $1 AND last_error IS NOT NULL",
                        )
                        .bind(book)
                        .execute(&mut *tx)
                        .await?;
                    }
                    ExternalOutcome::Deleted => {
                        // Only the copy this job deleted: a replacement that arrived meanwhile
                        // has its own log id, still to be deleted.
                        let deleted = match &job.action {
                            ExternalAction::Delete { log_id } => Some(log_id.as_str()),
                            ExternalAction::Push { .. } => None,
                        };
                        sqlx::query(
                            "DELETE FROM external_copies WHERE contact_id = $1 \
                             AND logbook_id = $2 AND state = 'deleting' AND log_id = $3",
                        )
                        .bind(contact)
                        .bind(book)
                        .bind(deleted)
                        .execute(&mut *tx)
                        .await?;
                    }
                    ExternalOutcome::Refused(reason) => {
                        // A refused replacement had deleted the copy it replaced first, so the
                        // book holds none. An edit made meanwhile may be what the book takes:
                        // it goes again rather than failing.
                        sqlx::query(
                            "UPDATE external_copies SET lease_until = NULL, last_error = $3, \
                             log_id = NULL, \
                             state = CASE WHEN edits = $4 THEN 'failed' ELSE 'waiting' END, \
                             attempts = CASE WHEN edits = $4 THEN attempts ELSE 0 END, due_at = 0 \
                             WHERE contact_id = $1 AND logbook_id = $2 AND state = 'waiting'",
                        )
                        .bind(contact)
                        .bind(book)
                        .bind(reason)
                        .bind(job.edits)
                        .execute(&mut *tx)
                        .await?;
                        set_last_error(tx, book, reason).await?;
                    }
                    ExternalOutcome::Retry { error, due } => {
                        sqlx::query(
                            "UPDATE external_copies SET lease_until = NULL, due_at = $3, \
                             last_error = $4 WHERE contact_id = $1 AND logbook_id = $2 \
                             AND state IN ('waiting', 'deleting')",
                        )
                        .bind(contact)
                        .bind(book)
                        .bind(due.millis())
                        .bind(error)
                        .execute(&mut *tx)
                        .await?;
                        set_last_error(tx, book, error).await?;
                    }
                    ExternalOutcome::Paused(reason) => {
                        // Not the contact's doing: it goes as soon as the book has a key again.
                        sqlx::query(
                            "UPDATE external_copies SET lease_until = NULL, due_at = $3, \
                             attempts = attempts - 1 WHERE contact_id = $1 AND logbook_id = $2",
                        )
                        .bind(contact)
                        .bind(book)
                        .bind(now.millis())
                        .execute(&mut *tx)
                        .await?;
                        sqlx::query(
                            "UPDATE logbooks SET paused_reason = $2, last_error = $2 WHERE id = $1",
                        )
                        .bind(book)
                        .bind(reason)
                        .execute(&mut *tx)
                        .await?;
                    }
                }
                Ok(())
            })
        })
        .await
    }

    pub(super) async fn copies_of(
        &self,
        contact_ids: &[String],
    ) -> StoreResult<Vec<(String, ExternalCopy)>> {
        if contact_ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = if self.postgres() {
            "SELECT contact_id, logbook_id, state, log_id FROM external_copies \
             WHERE contact_id IN (SELECT json_array_elements_text($1::json)) \
             ORDER BY contact_id, logbook_id"
        } else {
            "SELECT contact_id, logbook_id, state, log_id FROM external_copies \
             WHERE contact_id IN (SELECT value FROM json_each($1)) \
             ORDER BY contact_id, logbook_id"
        };
        let ids = serde_json::to_string(contact_ids).map_err(|e| sqlx::Error::Encode(e.into()))?;
        let rows = sqlx::query(sql).bind(ids).fetch_all(&self.reader).await?;
        Ok(rows
            .iter()
            .map(|r| {
                Ok((
                    r.try_get("contact_id")?,
                    ExternalCopy {
                        logbook_id: r.try_get("logbook_id")?,
                        state: r.try_get("state")?,
                        log_id: r.try_get("log_id")?,
                    },
                ))
            })
            .collect::<Result<_, sqlx::Error>>()?)
    }
}

impl SqlStore {
    pub(super) async fn account_reviews(&self, account_id: &str) -> StoreResult<Vec<Review>> {
        let rows = sqlx::query(
            "SELECT contact_id, reason, created_at FROM external_reviews \
             WHERE account_id = $1 ORDER BY created_at, contact_id",
        )
        .bind(account_id)
        .fetch_all(&self.reader)
        .await?;
        let mut reviews = Vec::with_capacity(rows.len());
        for row in rows {
            let id: String = row.try_get("contact_id")?;
            let contact = sqlx::query(concat!(
                "SELECT ",
                contact_cols!(),
                " FROM contacts WHERE id = $1"
            ))
            .bind(&id)
            .fetch_optional(&self.reader)
            .await?;
            // A delete takes its review away in the same transaction; a row read in between
            // is skipped.
            let Some(contact) = contact else { continue };
            reviews.push(Review {
                id,
                reason: row.try_get("reason")?,
                contact: contact_row(&contact)?,
                created_at: Timestamp(row.try_get("created_at")?),
            });
        }
        Ok(reviews)
    }

    pub(super) async fn end_review(
        &self,
        account_id: &str,
        contact_id: &str,
        send_to: Option<&str>,
        now: Timestamp,
    ) -> StoreResult<ReviewSettled> {
        let (account_id, contact_id) = (account_id.to_owned(), contact_id.to_owned());
        let send_to = send_to.map(str::to_owned);
        self.write(move |tx| {
            Box::pin(async move {
                if let Some(book) = &send_to {
                    let known: Option<String> = sqlx::query_scalar(
                        "SELECT id FROM logbooks WHERE id = $1 AND account_id = $2",
                    )
                    .bind(book)
                    .bind(&account_id)
                    .fetch_optional(&mut *tx)
                    .await?;
                    if known.is_none() {
                        return Ok(ReviewSettled::NoLogbook);
                    }
                }
                let ended = sqlx::query(
                    "DELETE FROM external_reviews WHERE contact_id = $1 AND account_id = $2",
                )
                .bind(&contact_id)
                .bind(&account_id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if ended == 0 {
                    return Ok(ReviewSettled::NoReview);
                }
                if let Some(book) = &send_to {
                    sqlx::query(
                        "INSERT INTO external_copies (contact_id, logbook_id, account_id, state, \
                         due_at, via) VALUES ($1, $2, $3, 'waiting', $4, 'sync') \
                         ON CONFLICT (contact_id, logbook_id) DO NOTHING",
                    )
                    .bind(&contact_id)
                    .bind(book)
                    .bind(&account_id)
                    .bind(now.millis())
                    .execute(&mut *tx)
                    .await?;
                }
                Ok(ReviewSettled::Done)
            })
        })
        .await
    }
}

impl SqlStore {
    pub(super) async fn claim_import_job(
        &self,
        now: Timestamp,
        lease_ms: i64,
    ) -> StoreResult<Option<ImportJob>> {
        let lock = if self.postgres() {
            "FOR UPDATE SKIP LOCKED"
        } else {
            ""
        };
        // The claim moves the due time off 0, so that 0 afterwards means an import asked for
        // while this one ran, which its end keeps.
        let sql = format!(
            "UPDATE logbooks SET import_lease = $1, import_due = $2 WHERE id = (\
               SELECT id FROM logbooks WHERE paused_reason IS NULL \
               AND ((auto_sync AND provider = 'qrz') OR provider = 'eqsl') \
               AND import_due <= $2 AND (import_lease IS NULL OR import_lease < $2) \
               ORDER BY import_due LIMIT 1 {lock}) \
             RETURNING id, account_id, provider, callsign AS book_callsign, key_sealed, \
               import_after, status_since, \
               (SELECT callsign FROM accounts WHERE accounts.id = logbooks.account_id) AS callsign"
        );
        self.write(move |tx| {
            Box::pin(async move {
                let row = sqlx::query(sqlx::AssertSqlSafe(sql))
                    .bind(now.millis() + lease_ms)
                    .bind(now.millis())
                    .fetch_optional(&mut *tx)
                    .await?;
                let Some(row) = row else { return Ok(None) };
                Ok(Some(ImportJob {
                    logbook_id: row.try_get("id")?,
                    account_id: row.try_get("account_id")?,
                    provider: row.try_get("provider")?,
                    callsign: row.try_get("callsign")?,
                    book_callsign: row.try_get("book_callsign")?,
                    key_sealed: row.try_get("key_sealed")?,
                    after: row.try_get("import_after")?,
                    status_since: row.try_get("status_since")?,
                }))
            })
        })
        .await
    }

    pub(super) async fn file_page(
        &self,
        job: &ImportJob,
        items: &[FromBook],
        last_log_id: Option<&str>,
        limits: &Limits,
        now: Timestamp,
    ) -> StoreResult<PageImported> {
        let (job, items, limits) = (job.clone(), items.to_vec(), *limits);
        let last = last_log_id.map(str::to_owned);
        self.write(move |tx| {
            Box::pin(async move {
                let (book, account) = (job.logbook_id.as_str(), job.account_id.as_str());
                let mut done = PageImported::default();
                for item in &items {
                    let known: Option<i64> = sqlx::query_scalar(
                        "SELECT 1 FROM external_copies WHERE logbook_id = $1 AND log_id = $2 \
                         UNION ALL SELECT 1 FROM external_kept WHERE logbook_id = $1 AND log_id = $2",
                    )
                    .bind(book)
                    .bind(&item.log_id)
                    .fetch_optional(&mut *tx)
                    .await?;
                    if known.is_some() {
                        done.skipped += 1;
                        continue;
                    }
                    let c = &item.contact;
                    // The same contact logged here and sent there by other means: the
                    // account's contacts of those two minutes (contacts_account_page).
                    let twin: Option<String> = sqlx::query_scalar(
                        "SELECT id FROM contacts WHERE account_id = $1 AND callsign = $2 \
                         AND band = $3 AND mode = $4 AND time_on BETWEEN $5 AND $6 \
                         AND NOT EXISTS (SELECT 1 FROM external_copies x \
                             WHERE x.contact_id = contacts.id AND x.logbook_id = $7 \
                             AND x.log_id IS NOT NULL) \
                         ORDER BY seq LIMIT 1",
                    )
                    .bind(account)
                    .bind(&c.callsign)
                    .bind(c.frequency.band)
                    .bind(&c.mode)
                    .bind(c.time_on.millis() - 60_000)
                    .bind(c.time_on.millis() + 60_000)
                    .bind(book)
                    .fetch_optional(&mut *tx)
                    .await?;
                    let contact_id = match twin {
                        Some(id) => {
                            done.linked += 1;
                            id
                        }
                        None => {
                            if let Some(limit) = charge_import(tx, account, &limits).await? {
                                done.stopped = Some(limit);
                                break;
                            }
                            let id = IdKind::Contact.generate();
                            let insert = sqlx::query(
                                "INSERT INTO contacts (id, account_id, folder_id, callsign, \
                                 frequency, band, mode, time_on, rst_sent, rst_received, name, \
                                 notes, sig, sig_info, my_sig, my_sig_info, activation_id, \
                                 station_callsign, dupe_key, fields, created_at) VALUES ($1, $2, \
                                 $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, \
                                 $17, $18, $19, $20, $21)",
                            )
                            .bind(&id)
                            .bind(account)
                            .bind(&c.folder_id);
                            bind_contact(insert, c)
                                .bind(now.millis())
                                .execute(&mut *tx)
                                .await?;
                            count_in_folder(tx, &c.folder_id, 1).await?;
                            // It came from the book: it is not routed or reviewed again.
                            sqlx::query("DELETE FROM external_reviews WHERE contact_id = $1")
                                .bind(&id)
                                .execute(&mut *tx)
                                .await?;
                            done.created += 1;
                            id
                        }
                    };
                    sqlx::query(
                        "INSERT INTO external_copies (contact_id, logbook_id, account_id, state, \
                         log_id, due_at, via) VALUES ($1, $2, $3, 'pushed', $4, 0, 'import') \
                         ON CONFLICT (contact_id, logbook_id) DO UPDATE SET state = 'pushed', \
                         log_id = excluded.log_id, via = 'import', lease_until = NULL, \
                         last_error = NULL",
                    )
                    .bind(&contact_id)
                    .bind(book)
                    .bind(account)
                    .bind(&item.log_id)
                    .execute(&mut *tx)
                    .await?;
                }
                if done.stopped.is_none() && last.is_some() {
                    sqlx::query("UPDATE logbooks SET import_after = $2 WHERE id = $1")
                        .bind(book)
                        .bind(&last)
                        .execute(&mut *tx)
                        .await?;
                }
                Ok(done)
            })
        })
        .await
    }

    pub(super) async fn end_import(
        &self,
        logbook_id: &str,
        next: Timestamp,
        error: Option<&str>,
    ) -> StoreResult<()> {
        let (id, error) = (logbook_id.to_owned(), error.map(str::to_owned));
        self.write(move |tx| {
            Box::pin(async move {
                sqlx::query(
                    "UPDATE logbooks SET import_lease = NULL, \
                     import_due = CASE WHEN import_due = 0 THEN 0 ELSE $2 END, \
                     last_error = COALESCE($3, last_error) WHERE id = $1",
                )
                .bind(&id)
                .bind(next.millis())
                .bind(&error)
                .execute(&mut *tx)
                .await?;
                Ok(())
            })
        })
        .await
    }

    pub(super) async fn import_now(&self, account_id: &str, id: &str) -> StoreResult<bool> {
        let (account_id, id) = (account_id.to_owned(), id.to_owned());
        self.write(move |tx| {
            Box::pin(async move {
                let found = sqlx::query(
                    "UPDATE logbooks SET import_due = 0 WHERE account_id = $1 AND id = $2",
                )
                .bind(&account_id)
                .bind(&id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                Ok(found == 1)
            })
        })
        .await
    }
}

impl SqlStore {
    pub(super) async fn unsent_of_book(
        &self,
        account_id: &str,
        logbook_id: &str,
    ) -> StoreResult<(String, Vec<Contact>)> {
        let account_callsign: String =
            sqlx::query_scalar("SELECT callsign FROM accounts WHERE id = $1")
                .bind(account_id)
                .fetch_one(&self.reader)
                .await?;
        let rows = sqlx::query(concat!(
            "SELECT ",
            contact_cols!(),
            " FROM contacts WHERE account_id = $1 \
             AND COALESCE(station_callsign, $3) = \
                 (SELECT callsign FROM logbooks WHERE id = $2 AND account_id = $1) \
             AND NOT EXISTS (SELECT 1 FROM external_copies x \
                 WHERE x.contact_id = contacts.id AND x.logbook_id = $2) \
             ORDER BY time_on, seq"
        ))
        .bind(account_id)
        .bind(logbook_id)
        .bind(&account_callsign)
        .fetch_all(&self.reader)
        .await?;
        let contacts = rows
            .iter()
            .map(contact_row)
            .collect::<Result<Vec<_>, _>>()?;
        Ok((account_callsign, contacts))
    }

    pub(super) async fn bind_upload(
        &self,
        account_id: &str,
        logbook_id: &str,
        copies: &[(String, String)],
        lease_until: Timestamp,
    ) -> StoreResult<Vec<String>> {
        let (account_id, book, copies) = (
            account_id.to_owned(),
            logbook_id.to_owned(),
            copies.to_vec(),
        );
        self.write(move |tx| {
            Box::pin(async move {
                let mut bound = Vec::with_capacity(copies.len());
                for (contact_id, log_id) in &copies {
                    // On its way, as a worker's claimed job is: the edit trigger counts an
                    // edit on it, the delete trigger turns it into a delete of `log_id`.
                    let inserted = sqlx::query(
                        "INSERT INTO external_copies (contact_id, logbook_id, account_id, state, \
                         log_id, due_at, lease_until, via) \
                         SELECT $1, $2, $3, 'waiting', $4, 0, $5, 'push' \
                         WHERE EXISTS (SELECT 1 FROM contacts WHERE id = $1 AND account_id = $3) \
                         AND EXISTS (SELECT 1 FROM logbooks WHERE id = $2 AND account_id = $3 \
                             AND paused_reason IS NULL) \
                         ON CONFLICT (contact_id, logbook_id) DO NOTHING",
                    )
                    .bind(contact_id)
                    .bind(&book)
                    .bind(&account_id)
                    .bind(log_id)
                    .bind(lease_until.millis())
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                    if inserted == 1 {
                        bound.push(contact_id.clone());
                    }
                }
                Ok(bound)
            })
        })
        .await
    }

    pub(super) async fn end_upload(
        &self,
        logbook_id: &str,
        contact_ids: &[String],
        taken: bool,
    ) -> StoreResult<()> {
        let (book, ids) = (logbook_id.to_owned(), contact_ids.to_vec());
        self.write(move |tx| {
            Box::pin(async move {
                for contact_id in &ids {
                    let sql = if taken {
                        // As a worker settles a push: an edit made on the way sends the
                        // contact again, as a replacement of the copy just made.
                        "UPDATE external_copies SET lease_until = NULL, last_error = NULL, \
                         state = CASE WHEN edits = 0 THEN 'pushed' ELSE 'waiting' END, \
                         due_at = 0 WHERE contact_id = $1 AND logbook_id = $2 AND state = 'waiting'"
                    } else {
                        // Nothing was sent: neither a push nor a delete of it is owed.
                        "DELETE FROM external_copies WHERE contact_id = $1 AND logbook_id = $2 \
                         AND state IN ('waiting', 'deleting')"
                    };
                    sqlx::query(sql)
                        .bind(contact_id)
                        .bind(&book)
                        .execute(&mut *tx)
                        .await?;
                }
                Ok(())
            })
        })
        .await
    }

    pub(super) async fn store_import_after(
        &self,
        logbook_id: &str,
        after: &str,
    ) -> StoreResult<()> {
        let (book, after) = (logbook_id.to_owned(), after.to_owned());
        self.write(move |tx| {
            Box::pin(async move {
                sqlx::query("UPDATE logbooks SET import_after = $2 WHERE id = $1")
                    .bind(&book)
                    .bind(&after)
                    .execute(&mut *tx)
                    .await?;
                Ok(())
            })
        })
        .await
    }

    pub(super) async fn pause_book(&self, logbook_id: &str, reason: &str) -> StoreResult<()> {
        let (book, reason) = (logbook_id.to_owned(), reason.to_owned());
        self.write(move |tx| {
            Box::pin(async move {
                sqlx::query(
                    "UPDATE logbooks SET paused_reason = $2, last_error = $2 WHERE id = $1",
                )
                .bind(&book)
                .bind(&reason)
                .execute(&mut *tx)
                .await?;
                Ok(())
            })
        })
        .await
    }
}

/// Counts one imported contact against the lifetime budget and the cap (an import uses no
/// daily budget); the refusal's text when a limit is reached.
async fn charge_import(
    tx: &mut AnyConnection,
    account_id: &str,
    limits: &Limits,
) -> StoreResult<Option<String>> {
    let charged = sqlx::query(
        "UPDATE accounts SET lifetime_created = lifetime_created + 1, \
         native_qso_count = native_qso_count + 1 \
         WHERE id = $1 AND (NOT budgeted OR lifetime_created < $2) \
         AND (NOT capped OR native_qso_count < COALESCE(qso_cap, $3))",
    )
    .bind(account_id)
    .bind(limits.lifetime_contact_budget)
    .bind(limits.free_plan_cap)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    Ok((charged != 1).then(|| {
        "the import from QRZ stopped: the account reached its lifetime budget or the free plan's cap".to_owned()
    }))
}

async fn set_last_error(tx: &mut AnyConnection, book: &str, error: &str) -> StoreResult<()> {
    sqlx::query("UPDATE logbooks SET last_error = $2 WHERE id = $1")
        .bind(book)
        .bind(error)
        .execute(&mut *tx)
        .await?;
    Ok(())
}
