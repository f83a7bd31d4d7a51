//! A contact's create on one connection: its columns bound, its folder counted, its
//! duplicate found.

use super::*;

pub(super) type AnyQuery<'q> = sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>;

/// Binds a contact's fields, from `callsign` to `dupe_key` in the column order of `contacts`
/// and then `fields` (JSON, NULL when there are none), as the next parameters of `query`.
pub(super) fn bind_contact<'q>(query: AnyQuery<'q>, c: &'q NewContact) -> AnyQuery<'q> {
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
pub(super) async fn count_in_folder(
    conn: &mut AnyConnection,
    folder_id: &str,
    by: i64,
) -> StoreResult<()> {
    sqlx::query("UPDATE folders SET contact_count = contact_count + $2 WHERE id = $1")
        .bind(folder_id)
        .bind(by)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// The earlier contact that `c` repeats (rule 7), if it has program identity.
pub(super) async fn duplicate_of(
    conn: &mut AnyConnection,
    c: &NewContact,
) -> StoreResult<Option<String>> {
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
pub(super) async fn create_contact_in(
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

/// The contacts' side of [`Store`]: pages of a folder or a category, creates and deletes.
impl SqlStore {
    pub(super) async fn list_contacts(
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

    pub(super) async fn list_contacts_below(
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

    pub(super) async fn create_contact(
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

    pub(super) async fn create_contacts(
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

    pub(super) async fn delete_contact(
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
}
