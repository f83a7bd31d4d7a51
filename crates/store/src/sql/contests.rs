//! Contest logs: started or joined by their identity (one log per contest, callsign and
//! contest weekend, a unique key), and their serial numbers handed out in blocks. They end as
//! activations do (`folders.rs`).

use super::*;
use svc_model::contest::SerialBlock;

impl SqlStore {
    pub(super) async fn find_or_create_contest(
        &self,
        account_id: &str,
        c: &NewContest,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<FolderCreated>> {
        let (account_id, c, idem) = (account_id.to_owned(), c.clone(), idem.cloned());
        self.write(move |tx| {
            Box::pin(async move {
                let (account_id, c, idem) = (account_id.as_str(), &c, idem.as_ref());
                if let Some(previous) = claim(&mut *tx, account_id, idem, now, None).await? {
                    return replay(&previous);
                }
                let (folder, created) = match c.log() {
                    Some(log) => {
                        let root = folder_by_identity(&mut *tx, account_id, root_identity())
                            .await?
                            .ok_or_else(|| {
                                StoreError::Db(decode_err("account has no root folder".into()))
                            })?;
                        let log = serde_json::to_string(&log)
                            .map_err(|e| StoreError::Db(decode_err(e.to_string())))?;
                        // Two stations starting the same contest at once make one log: the
                        // second insert finds the identity taken, and joins.
                        let inserted = sqlx::query(concat!(
                            "INSERT INTO folders (id, account_id, parent_id, type, name, start_time, \
                             callsign, identity_key, contest, created_at) \
                             VALUES ($1, $2, $3, 'contest', $4, $5, $6, $7, $8, $9) \
                             ON CONFLICT (account_id, identity_key) DO NOTHING RETURNING ",
                            folder_cols!()
                        ))
                        .bind(IdKind::Folder.generate())
                        .bind(account_id)
                        .bind(&root.id)
                        .bind(&c.name)
                        .bind(c.start_time.millis())
                        .bind(&c.callsign)
                        .bind(&c.identity_key)
                        .bind(log)
                        .bind(now.millis())
                        .fetch_optional(&mut *tx)
                        .await?;
                        match inserted {
                            Some(row) => (folder_row(&row)?, true),
                            None => (existing_log(&mut *tx, account_id, c).await?, false),
                        }
                    }
                    None => match folder_by_identity(&mut *tx, account_id, &c.identity_key).await? {
                        Some(folder) => (folder, false),
                        None => return Err(c.no_exchange().into()),
                    },
                };
                if !created {
                    let log = folder.contest.as_ref().ok_or_else(|| {
                        StoreError::Db(decode_err(format!("contest log {} has no contest", folder.id)))
                    })?;
                    c.check_join(&folder.name, log)?;
                }
                let outcome = FolderCreated { folder, created };
                complete(&mut *tx, account_id, idem, &outcome).await?;
                Ok(Idem::Fresh(outcome))
            })
        })
        .await
    }

    pub(super) async fn reserve_serials(
        &self,
        account_id: &str,
        folder_id: &str,
        count: u32,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<SerialBlock>> {
        // One statement takes the block, after every number the log has handed out or its
        // contacts have sent (a log imported with its serial numbers): two stations asking at
        // once get blocks one after the other, since the row is written by one at a time.
        let update = if self.postgres() {
            "UPDATE folders SET next_serial = GREATEST(next_serial, COALESCE((SELECT MAX((c.fields::jsonb ->> 'stx')::bigint) \
             FROM contacts c WHERE c.folder_id = $1), 0) + 1) + $3 \
             WHERE id = $1 AND account_id = $2 AND type = 'contest' RETURNING next_serial"
        } else {
            "UPDATE folders SET next_serial = MAX(next_serial, COALESCE((SELECT MAX(CAST(c.fields ->> '$.stx' AS INTEGER)) \
             FROM contacts c WHERE c.folder_id = $1), 0) + 1) + $3 \
             WHERE id = $1 AND account_id = $2 AND type = 'contest' RETURNING next_serial"
        };
        let (account_id, folder_id, idem) =
            (account_id.to_owned(), folder_id.to_owned(), idem.cloned());
        self.write(move |tx| {
            Box::pin(async move {
                let (account_id, folder_id, idem) =
                    (account_id.as_str(), folder_id.as_str(), idem.as_ref());
                if let Some(previous) = claim(&mut *tx, account_id, idem, now, None).await? {
                    return replay(&previous);
                }
                let next: Option<i64> = sqlx::query_scalar(update)
                    .bind(folder_id)
                    .bind(account_id)
                    .bind(i64::from(count))
                    .fetch_optional(&mut *tx)
                    .await?;
                let Some(next) = next else {
                    let folder = account_folder(&mut *tx, account_id, folder_id).await?;
                    return Err(ApiError::field(
                        "folderId",
                        format!(
                            "folder {} ({}) is a {} folder, not a contest log; serial numbers come from a contest log",
                            folder.name,
                            folder.id,
                            folder.folder_type.as_str()
                        ),
                    )
                    .into());
                };
                let block = SerialBlock {
                    first: u32::try_from(next - i64::from(count)).unwrap_or(u32::MAX),
                    last: u32::try_from(next - 1).unwrap_or(u32::MAX),
                };
                complete(&mut *tx, account_id, idem, &block).await?;
                Ok(Idem::Fresh(block))
            })
        })
        .await
    }
}

/// The log a start found there already.
async fn existing_log(
    conn: &mut AnyConnection,
    account_id: &str,
    c: &NewContest,
) -> StoreResult<Folder> {
    folder_by_identity(conn, account_id, &c.identity_key)
        .await?
        .ok_or_else(|| {
            StoreError::Db(decode_err(format!(
                "contest log {} vanished",
                c.identity_key
            )))
        })
}
