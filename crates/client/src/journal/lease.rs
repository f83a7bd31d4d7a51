//! The sender's side of the journal: entries taken up under a lease and settled with what the
//! service answered. Neither needs the disk at once (a lease or a settle the power takes costs
//! a contact sent again under its key, which the service replays), so they commit without the
//! fsync and in short transactions, and a contact logged meanwhile waits less for them.

use super::*;

/// Entries a sender settles in one transaction.
const SETTLE_CHUNK: usize = 16;

impl Journal {
    /// `work` in a write transaction whose commit need not be on disk when it returns: a
    /// sender's lease or what it settled, where a commit the power takes costs a contact sent
    /// again under its key, which the service replays. Without the fsync of `synchronous =
    /// FULL` the transaction is short, and a contact logged meanwhile waits less for it; the
    /// next durable commit writes it out too. The connection goes back to the pool only with
    /// FULL again.
    async fn write_relaxed<T>(
        &self,
        work: impl AsyncFnOnce(&mut Tx<'_>) -> Result<T, JournalError>,
    ) -> Result<T, JournalError> {
        let mut conn = self.pool.acquire().await?;
        sqlx::query("PRAGMA synchronous = NORMAL")
            .execute(&mut *conn)
            .await?;
        let result = async {
            let mut tx = (*conn).begin_with("BEGIN IMMEDIATE").await?;
            let value = work(&mut tx).await?;
            tx.commit().await?;
            Ok(value)
        }
        .await;
        if sqlx::query("PRAGMA synchronous = FULL")
            .execute(&mut *conn)
            .await
            .is_err()
        {
            conn.close_on_drop();
        }
        result
    }

    /// Takes up to `limit` entries for sending, oldest first, in one statement: an entry is
    /// taken by one sender at a time (another process included) until it is settled or the
    /// lease runs out (a sender that died). Contacts still waiting for their folder are left.
    pub(crate) async fn claim(
        &self,
        what: Claim,
        limit: usize,
        lease: Duration,
        owner: &str,
    ) -> Result<Vec<Entry>, JournalError> {
        let now = now_ms();
        let until = now.saturating_add(i64::try_from(lease.as_millis()).unwrap_or(i64::MAX));
        let sql = match what {
            Claim::Folders => concat!(
                "UPDATE entries SET lease_owner = $1, lease_until = $2, attempts = attempts + 1 \
                 WHERE seq IN (SELECT seq FROM entries WHERE state = 'waiting' \
                 AND kind <> 'contact' AND (lease_until IS NULL OR lease_until <= $3) \
                 AND (not_before IS NULL OR not_before <= $3) ORDER BY seq LIMIT $4) RETURNING ",
                entry_columns!()
            ),
            Claim::Contacts => concat!(
                "UPDATE entries SET lease_owner = $1, lease_until = $2, attempts = attempts + 1 \
                 WHERE seq IN (SELECT seq FROM entries WHERE state = 'waiting' \
                 AND kind = 'contact' AND folder_id NOT LIKE 'loc\\_%' ESCAPE '\\' \
                 AND (lease_until IS NULL OR lease_until <= $3) \
                 AND (not_before IS NULL OR not_before <= $3) ORDER BY seq LIMIT $4) RETURNING ",
                entry_columns!()
            ),
        };
        let rows = self
            .write_relaxed(async |tx| {
                Ok(sqlx::query(sql)
                    .bind(owner)
                    .bind(until)
                    .bind(now)
                    .bind(i64::try_from(limit).unwrap_or(i64::MAX))
                    .fetch_all(&mut **tx)
                    .await?)
            })
            .await?;
        entries_from_rows(&rows)
    }

    /// Records what became of entries this owner took up, in one transaction. An entry that
    /// is no longer waiting (settled by another sender whose lease it outlived) is left as it is.
    /// A sent contact joins the copy, with the service's id, and is counted in its folder, the
    /// folders above it and whoami, so the copy is the log even before it is read back.
    pub(crate) async fn settle(
        &self,
        owner: &str,
        outcomes: &[(String, Outcome)],
    ) -> Result<Settled, JournalError> {
        let mut settled = Settled::default();
        // A few entries a transaction: a contact logged meanwhile waits for one short commit,
        // not for a whole batch's. Each entry is settled on its own, so a sender stopped
        // between two leaves the rest to its lease.
        for chunk in outcomes.chunks(SETTLE_CHUNK) {
            let part = self.settle_chunk(owner, chunk).await?;
            settled.sent.extend(part.sent);
            settled.refused.extend(part.refused);
        }
        Ok(settled)
    }

    async fn settle_chunk(
        &self,
        owner: &str,
        outcomes: &[(String, Outcome)],
    ) -> Result<Settled, JournalError> {
        let now = now_ms();
        self.write_relaxed(async |tx| {
            let mut settled = Settled::default();
            let mut counted = Vec::new();
            for (id, outcome) in outcomes {
                match outcome {
                    Outcome::Sent(sent_id) => {
                        let row = sqlx::query(concat!(
                            "UPDATE entries SET state = 'sent', sent_id = $2, sent_at = $3, \
                         error = NULL, lease_owner = NULL, lease_until = NULL, not_before = NULL \
                         WHERE id = $1 AND state = 'waiting' RETURNING ",
                            entry_columns!()
                        ))
                        .bind(id)
                        .bind(sent_id)
                        .bind(now)
                        .fetch_optional(&mut **tx)
                        .await?;
                        if let Some(row) = row {
                            let entry = entry_from_row(&row)?;
                            if let EntryRequest::Contact(request) = &entry.request {
                                let contact = request.pending(sent_id, entry.logged_at);
                                // A contact the copy has already (its answer was lost and it was
                                // read back before this replay) is not counted twice.
                                if copied_folder(tx, sent_id).await?.is_none() {
                                    counted.push((contact.folder_id.clone(), 1));
                                }
                                copy_contact(tx, &contact, None, now).await?;
                            }
                            settled.sent.push(entry);
                        }
                    }
                    Outcome::Refused(error) => {
                        let row = sqlx::query(concat!(
                            "UPDATE entries SET state = 'refused', error = $2, lease_owner = NULL, \
                         lease_until = NULL, not_before = NULL \
                         WHERE id = $1 AND state = 'waiting' RETURNING ",
                            entry_columns!()
                        ))
                        .bind(id)
                        .bind(encode(error)?)
                        .fetch_optional(&mut **tx)
                        .await?;
                        if let Some(row) = row {
                            settled.refused.push(entry_from_row(&row)?);
                        }
                    }
                    Outcome::Later(wait) => {
                        sqlx::query(
                        "UPDATE entries SET lease_owner = NULL, lease_until = NULL, not_before = $3
                         WHERE id = $1 AND state = 'waiting' AND lease_owner = $2",
                    )
                    .bind(id)
                    .bind(owner)
                    .bind(now.saturating_add(i64::try_from(wait.as_millis()).unwrap_or(i64::MAX)))
                    .execute(&mut **tx)
                    .await?;
                    }
                }
            }
            add_to_counts(tx, &counted).await?;
            add_to_whoami(tx, i64::try_from(counted.len()).unwrap_or(i64::MAX)).await?;
            Ok(settled)
        })
        .await
    }
}
