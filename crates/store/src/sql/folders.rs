//! The automatic folders found or made by their identity (the root, a program's category,
//! a month's log, an activation), so that two creates at once make one folder.

use super::*;

pub(super) fn root_identity() -> &'static str {
    "v1:root"
}

pub(super) fn category_identity(program: Program) -> String {
    format!("v1:category:{}", program.id())
}

pub(super) async fn folder_by_identity(
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
pub(super) struct IdentifiedFolder<'a> {
    pub(super) parent_identity: &'a str,
    pub(super) folder_type: FolderType,
    pub(super) name: &'a str,
    pub(super) program: Option<Program>,
    pub(super) month: Option<&'a str>,
    pub(super) activation: Option<&'a NewActivation>,
    pub(super) auto_folder_key: Option<&'a str>,
    pub(super) identity_key: &'a str,
}

/// Inserts an automatic folder unless one with its identity exists: `(folder, created)`.
pub(super) async fn find_or_insert_folder(
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

/// The account's folder `folder_id`, read in a write's transaction: `404` when it is not one.
pub(super) async fn account_folder(
    conn: &mut AnyConnection,
    account_id: &str,
    folder_id: &str,
) -> StoreResult<Folder> {
    let row = sqlx::query(concat!(
        "SELECT ",
        folder_cols!(),
        " FROM folders WHERE id = $1 AND account_id = $2"
    ))
    .bind(folder_id)
    .bind(account_id)
    .fetch_optional(&mut *conn)
    .await?
    .ok_or_else(|| ApiError::not_found(format!("folder {folder_id} not found")))?;
    Ok(folder_row(&row)?)
}

/// The folders' side of [`Store`]: reads, lists, the automatic folders and categories.
impl SqlStore {
    pub(super) async fn folder(
        &self,
        account_id: &str,
        folder_id: &str,
    ) -> StoreResult<Option<Folder>> {
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

    pub(super) async fn folder_for_contacts(
        &self,
        account_id: &str,
        folder_id: &str,
    ) -> StoreResult<Option<Folder>> {
        let key = (account_id.to_owned(), folder_id.to_owned());
        if let Some(folder) = self.known_folders().get(&key) {
            return Ok(Some(folder.clone()));
        }
        let folder = self.folder(account_id, folder_id).await?;
        if let Some(folder) = folder
            .as_ref()
            .filter(|f| !matches!(f.folder_type, FolderType::Activation | FolderType::Contest))
        {
            let mut known = self.known_folders();
            if known.len() >= KNOWN_FOLDERS {
                known.clear();
            }
            known.insert(key, folder.clone());
        }
        Ok(folder)
    }

    pub(super) async fn list_folders(
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

    pub(super) async fn category_counts(
        &self,
        account_id: &str,
    ) -> StoreResult<Vec<(String, i64)>> {
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

    pub(super) async fn list_activations(
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

    pub(super) async fn find_or_create_activation(
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

    pub(super) async fn find_or_create_monthly(
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

    pub(super) async fn create_category(
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

    /// Ends an activation or a contest log (`kind`): sets its `end_time`, once, not before its
    /// start.
    pub(super) async fn end_folder(
        &self,
        account_id: &str,
        folder_id: &str,
        kind: FolderType,
        end_time: Timestamp,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<Folder>> {
        let (account_id, folder_id, idem) =
            (account_id.to_owned(), folder_id.to_owned(), idem.cloned());
        let noun = match kind {
            FolderType::Contest => "contest log",
            _ => "activation",
        };
        self.write(move |tx| {
            Box::pin(async move {
                let (account_id, folder_id, idem) = (account_id.as_str(), folder_id.as_str(), idem.as_ref());
                if let Some(previous) = claim(&mut *tx, account_id, idem, now, None).await? {
                    return replay(&previous);
                }
                let row = sqlx::query(concat!(
                    "UPDATE folders SET end_time = $1 WHERE id = $2 AND account_id = $3 AND type = $4 \
                     AND end_time IS NULL AND start_time <= $1 RETURNING ",
                    folder_cols!()
                ))
                .bind(end_time.millis())
                .bind(folder_id)
                .bind(account_id)
                .bind(kind.as_str())
                .fetch_optional(&mut *tx)
                .await?;
                let Some(row) = row else {
                    // Nothing changed: say why, from the row as it is.
                    let folder = account_folder(&mut *tx, account_id, folder_id).await?;
                    let message = match (folder.folder_type == kind, folder.end_time, folder.start_time) {
                        (true, Some(ended), _) => {
                            format!("{noun} {} ended already at {ended}", folder.name)
                        }
                        (true, None, Some(start)) => format!(
                            "endTime {end_time} is before the {noun}'s start {start}; send a later endTime"
                        ),
                        _ => format!(
                            "folder {} is a {} folder, not {} {noun}",
                            folder.name,
                            folder.folder_type.as_str(),
                            if kind == FolderType::Activation { "an" } else { "a" }
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

    pub(super) async fn add_parks(
        &self,
        account_id: &str,
        folder_id: &str,
        added: &str,
        now: Timestamp,
        idem: Option<&IdemRequest>,
    ) -> StoreResult<Idem<Folder>> {
        // PostgreSQL's writers run at once: the folder's row is locked FOR UPDATE, which waits
        // for the contacts being stored into it (their trigger holds it FOR KEY SHARE) and
        // makes the ones after wait for the new parks (migrations `*_activation_parks.sql`).
        // SQLite's one writer is this transaction.
        let select = if self.postgres() {
            concat!(
                "SELECT ",
                folder_cols!(),
                " FROM folders WHERE id = $1 AND account_id = $2 FOR UPDATE"
            )
        } else {
            concat!(
                "SELECT ",
                folder_cols!(),
                " FROM folders WHERE id = $1 AND account_id = $2"
            )
        };
        let (account_id, folder_id) = (account_id.to_owned(), folder_id.to_owned());
        let (added, idem) = (added.to_owned(), idem.cloned());
        self.write(move |tx| {
            Box::pin(async move {
                let (account_id, folder_id) = (account_id.as_str(), folder_id.as_str());
                let idem = idem.as_ref();
                if let Some(previous) = claim(&mut *tx, account_id, idem, now, None).await? {
                    return replay(&previous);
                }
                let row = sqlx::query(select)
                    .bind(folder_id)
                    .bind(account_id)
                    .fetch_optional(&mut *tx)
                    .await?
                    .ok_or_else(|| ApiError::not_found(format!("folder {folder_id} not found")))?;
                let folder = folder_row(&row)?;
                let Some(grown) = NewActivation::with_parks(&folder, &added)? else {
                    complete(&mut *tx, account_id, idem, &folder).await?;
                    return Ok(Idem::Fresh(folder));
                };
                // The identity is a unique key: an activation already at these parks that day
                // keeps it, and this one stays as it was.
                let row = sqlx::query(concat!(
                    "UPDATE folders SET location_reference = $3, name = $4, auto_folder_key = $5, \
                     identity_key = $5 WHERE id = $1 AND account_id = $2 RETURNING ",
                    folder_cols!()
                ))
                .bind(folder_id)
                .bind(account_id)
                .bind(&grown.reference)
                .bind(&grown.name)
                .bind(&grown.auto_folder_key)
                .fetch_one(&mut *tx)
                .await
                .map_err(|e| match &e {
                    sqlx::Error::Database(db)
                        if db.kind() == sqlx::error::ErrorKind::UniqueViolation =>
                    {
                        StoreError::Api(ApiError::field(
                            "locationReference",
                            format!(
                                "activation {} exists already: it is the activation at these parks that day, so log into it rather than adding its parks to {}",
                                grown.name, folder.name
                            ),
                        ))
                    }
                    _ => StoreError::Db(e),
                })?;
                sqlx::query(
                    "UPDATE contacts SET my_sig_info = $3 \
                     WHERE folder_id = $1 AND account_id = $2 AND activation_id IS NOT NULL",
                )
                .bind(folder_id)
                .bind(account_id)
                .bind(&grown.reference)
                .execute(&mut *tx)
                .await?;
                let folder = folder_row(&row)?;
                complete(&mut *tx, account_id, idem, &folder).await?;
                Ok(Idem::Fresh(folder))
            })
        })
        .await
    }
}
