//! Contacts logged under a key their caller chose (a QSO a radio program reported, keyed by
//! what it says), so that the same contact reported again is found as logged instead of
//! logged twice; the file's unique index on the key (migration 0005) keeps it so.

use super::*;

/// What [`Journal::log_contact_once`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum Logged {
    /// Logged now: the new entry, waiting.
    New(Entry),
    /// Nothing written: this entry already holds the key (in whatever state it is now).
    Already(Entry),
}

impl Logged {
    /// The entry logged now or found.
    pub fn entry(&self) -> &Entry {
        match self {
            Logged::New(entry) | Logged::Already(entry) => entry,
        }
    }
}

impl Journal {
    /// Logs a contact under the idempotency key `key`, chosen by the caller so that the same
    /// contact reported again (a program that re-sends what it logged, svc started anew and
    /// hearing it again) keys alike: when an entry of this journal already holds `key`
    /// (waiting, refused, or sent within the 30 days sent entries are kept), nothing is
    /// written and that entry is answered as [`Logged::Already`]. Else as
    /// [`Journal::log_contact`], committed durably before this returns. The key is sent as the
    /// contact's `Idempotency-Key`: 1 to 255 visible ASCII characters.
    pub async fn log_contact_once(
        &self,
        mut contact: ContactInput,
        key: &str,
    ) -> Result<Logged, JournalError> {
        if key.is_empty() || key.len() > 255 || !key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(JournalError::Invalid(format!(
                "idempotency key {:?} is not 1 to 255 visible ASCII characters",
                svc_model::ids::truncate(key, 40)
            )));
        }
        check_contact(&contact)?;
        // The write lock is held from the first statement, so the look-up and the insert are
        // one step for every other process on this file.
        let mut tx = self.write().await?;
        if let Some(held) = Self::entry_keyed(&mut tx, key).await? {
            return Ok(Logged::Already(held));
        }
        contact.folder_id = Self::folder_for_contact(&mut tx, &contact.folder_id).await?;
        let folder_id = contact.folder_id.clone();
        let entry = Self::insert_keyed(
            &mut tx,
            &EntryRequest::Contact(contact),
            Some(&folder_id),
            None,
            key,
        )
        .await?;
        tx.commit().await?;
        Ok(Logged::New(entry))
    }

    /// The entry logged under the idempotency key `key`, whatever its state, if this journal
    /// still holds one.
    pub async fn logged_under(&self, key: &str) -> Result<Option<Entry>, JournalError> {
        let mut conn = self.pool.acquire().await?;
        Self::entry_keyed(&mut conn, key).await
    }

    async fn entry_keyed(
        conn: &mut sqlx::SqliteConnection,
        key: &str,
    ) -> Result<Option<Entry>, JournalError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            entry_columns!(),
            " FROM entries WHERE idempotency_key = $1 ORDER BY seq LIMIT 1"
        ))
        .bind(key)
        .fetch_optional(conn)
        .await?;
        row.as_ref().map(entry_from_row).transpose()
    }
}
