//! Edits of stored contacts (`PATCH /v1/contacts/{qsoId}`). The contact is read, checked and
//! written in one transaction with its row locked, so an edit racing another edit or a delete
//! never works from a stale copy, and never brings a deleted contact back. Sending the edit
//! on to external logbooks is the `contacts_repush` trigger's (migrations `*_contact_edits.sql`).

use super::*;

async fn stored_contact(
    conn: &mut AnyConnection,
    account_id: &str,
    contact_id: &str,
) -> Result<Option<Contact>, sqlx::Error> {
    let row = sqlx::query(concat!(
        "SELECT ",
        contact_cols!(),
        " FROM contacts WHERE id = $1 AND account_id = $2"
    ))
    .bind(contact_id)
    .bind(account_id)
    .fetch_optional(&mut *conn)
    .await?;
    row.as_ref().map(contact_row).transpose()
}

impl SqlStore {
    /// The contact as an edit would find it, read outside any edit (the web's contact page).
    pub(super) async fn contact(
        &self,
        account_id: &str,
        contact_id: &str,
    ) -> StoreResult<Option<Contact>> {
        let mut conn = self.reader.acquire().await?;
        Ok(stored_contact(&mut conn, account_id, contact_id).await?)
    }

    pub(super) async fn update_contact(
        &self,
        account_id: &str,
        contact_id: &str,
        patch: &ContactPatch,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<Contact>> {
        // SQLite has one writer, which this transaction is; PostgreSQL's concurrent ones wait
        // for the row's lock.
        let lock = self.postgres();
        let (account_id, contact_id) = (account_id.to_owned(), contact_id.to_owned());
        let (patch, idem) = (patch.clone(), idem.cloned());
        self.write(move |tx| {
            Box::pin(async move {
                let (account_id, contact_id) = (account_id.as_str(), contact_id.as_str());
                let idem = idem.as_ref();
                if let Some(previous) = claim(&mut *tx, account_id, idem, now, None).await? {
                    return replay(&previous);
                }
                let not_found = || ApiError::not_found(format!("contact {contact_id} not found"));
                if lock {
                    sqlx::query(
                        "SELECT id FROM contacts WHERE id = $1 AND account_id = $2 FOR UPDATE",
                    )
                    .bind(contact_id)
                    .bind(account_id)
                    .fetch_optional(&mut *tx)
                    .await?
                    .ok_or_else(not_found)?;
                }
                let stored = stored_contact(tx, account_id, contact_id)
                    .await?
                    .ok_or_else(not_found)?;
                let row = sqlx::query(concat!(
                    "SELECT ",
                    folder_cols!(),
                    " FROM folders WHERE id = $1 AND account_id = $2"
                ))
                .bind(&stored.folder_id)
                .bind(account_id)
                .fetch_one(&mut *tx)
                .await?;
                let edited = patch.apply(&stored, &folder_row(&row)?, now)?;
                let update = sqlx::query(
                    "UPDATE contacts SET callsign = $3, frequency = $4, band = $5, mode = $6, \
                     time_on = $7, rst_sent = $8, rst_received = $9, name = $10, notes = $11, \
                     sig = $12, sig_info = $13, my_sig = $14, my_sig_info = $15, \
                     activation_id = $16, station_callsign = $17, dupe_key = $18, fields = $19 \
                     WHERE id = $1 AND account_id = $2",
                )
                .bind(contact_id)
                .bind(account_id);
                bind_contact(update, &edited).execute(&mut *tx).await?;
                let contact = stored_contact(tx, account_id, contact_id)
                    .await?
                    .ok_or_else(|| decode_err("an edited contact vanished".into()))?;
                complete(&mut *tx, account_id, idem, &contact).await?;
                Ok(Idem::Fresh(contact))
            })
        })
        .await
    }
}
