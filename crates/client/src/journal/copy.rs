//! The copy of the account kept in the journal, for starting with no link: whoami, the folder
//! and activation lists, the contacts of the folders read, every contact the service confirms
//! (sent from the journal, edited, deleted) with the counts that follow, and the folder open
//! last. Written as the service answers, read at start.

use super::*;

/// Writes one contact into the copy under its folder, and removes it from under any other
/// (the copy is keyed by folder and id, so an edit that moved it would leave its old row).
/// With `asked_at`, a row of this contact written since then is newer than `contact` and is
/// kept instead.
pub(super) async fn copy_contact(
    tx: &mut Tx<'_>,
    contact: &Contact,
    asked_at: Option<i64>,
    now: i64,
) -> Result<(), JournalError> {
    if let Some(asked_at) = asked_at {
        let newer: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM cached_contacts WHERE id = $1 AND saved_at >= $2)",
        )
        .bind(&contact.id)
        .bind(asked_at)
        .fetch_one(&mut **tx)
        .await?;
        if newer {
            return Ok(());
        }
    }
    sqlx::query("DELETE FROM cached_contacts WHERE id = $1 AND folder_id <> $2")
        .bind(&contact.id)
        .bind(&contact.folder_id)
        .execute(&mut **tx)
        .await?;
    sqlx::query(
        "INSERT INTO cached_contacts (folder_id, id, time_on, contact, saved_at)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (folder_id, id) DO UPDATE SET time_on = $3, contact = $4, saved_at = $5",
    )
    .bind(&contact.folder_id)
    .bind(&contact.id)
    .bind(contact.time_on.millis())
    .bind(encode(contact)?)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The folder a contact has in the copy, if the copy has it.
pub(super) async fn copied_folder(
    tx: &mut Tx<'_>,
    id: &str,
) -> Result<Option<String>, JournalError> {
    Ok(
        sqlx::query_scalar("SELECT folder_id FROM cached_contacts WHERE id = $1 LIMIT 1")
            .bind(id)
            .fetch_optional(&mut **tx)
            .await?,
    )
}

/// Adds to the contact counts of folders in the cached lists, as the service counts: a folder
/// counts its own contacts and a container what is below it, so each change goes to the folder
/// and every folder above it, in every list it appears in. Never below 0.
pub(super) async fn add_to_counts(
    tx: &mut Tx<'_>,
    changes: &[(String, i64)],
) -> Result<(), JournalError> {
    if changes.is_empty() {
        return Ok(());
    }
    let rows: Vec<(String, String, String)> =
        sqlx::query_as("SELECT list, id, folder FROM cached_folders")
            .fetch_all(&mut **tx)
            .await?;
    let folders = rows
        .iter()
        .map(|(list, _, folder)| Ok((list.as_str(), decode::<Folder>("folder", folder)?)))
        .collect::<Result<Vec<_>, JournalError>>()?;
    let parents: HashMap<&str, Option<&str>> = folders
        .iter()
        .map(|(_, f)| (f.id.as_str(), f.parent_id.as_deref()))
        .collect();
    let mut by_folder: HashMap<String, i64> = HashMap::new();
    for (folder_id, by) in changes {
        let mut seen = HashSet::new();
        let mut next = Some(folder_id.as_str());
        while let Some(id) = next {
            // A damaged list could make the parents a cycle: each folder is counted once.
            if !seen.insert(id) {
                break;
            }
            *by_folder.entry(id.to_owned()).or_default() += by;
            next = parents.get(id).copied().flatten();
        }
    }
    for (list, mut folder) in folders {
        let Some(by) = by_folder.get(folder.id.as_str()).filter(|by| **by != 0) else {
            continue;
        };
        folder.contact_count = folder.contact_count.saturating_add(*by).max(0);
        sqlx::query("UPDATE cached_folders SET folder = $3 WHERE list = $1 AND id = $2")
            .bind(list)
            .bind(&folder.id)
            .bind(encode(&folder)?)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// Adds to whoami's QSO count in the copy, when there is a whoami; never below 0.
pub(super) async fn add_to_whoami(tx: &mut Tx<'_>, by: i64) -> Result<(), JournalError> {
    if by == 0 {
        return Ok(());
    }
    let saved: Option<String> = sqlx::query_scalar("SELECT value FROM meta WHERE name = 'whoami'")
        .fetch_optional(&mut **tx)
        .await?;
    let Some(saved) = saved else {
        return Ok(());
    };
    let mut me: Whoami = decode("whoami", &saved)?;
    me.native_qso_count = me.native_qso_count.saturating_add(by).max(0);
    sqlx::query("UPDATE meta SET value = $1 WHERE name = 'whoami'")
        .bind(encode(&me)?)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

impl Journal {
    pub async fn save_whoami(&self, me: &Whoami) -> Result<(), JournalError> {
        sqlx::query(
            "INSERT INTO meta (name, value) VALUES ('whoami', $1)
             ON CONFLICT (name) DO UPDATE SET value = $1",
        )
        .bind(encode(me)?)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn save_list(&self, list: &str, folders: &[Folder]) -> Result<(), JournalError> {
        let mut tx = self.write().await?;
        sqlx::query("DELETE FROM cached_folders WHERE list = $1")
            .bind(list)
            .execute(&mut *tx)
            .await?;
        for (position, folder) in folders.iter().enumerate() {
            sqlx::query(
                "INSERT INTO cached_folders (list, position, id, folder) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (list, id) DO UPDATE SET position = $2, folder = $4",
            )
            .bind(list)
            .bind(i64::try_from(position).unwrap_or(i64::MAX))
            .bind(&folder.id)
            .bind(encode(folder)?)
            .execute(&mut *tx)
            .await?;
        }
        // So an empty list reads as the account's, not as one never saved.
        sqlx::query(
            "INSERT INTO meta (name, value) VALUES ('saved:' || $1, $2)
             ON CONFLICT (name) DO UPDATE SET value = $2",
        )
        .bind(list)
        .bind(now_ms().to_string())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Replaces the copy of the folder list.
    pub async fn save_folders(&self, folders: &[Folder]) -> Result<(), JournalError> {
        self.save_list("folders", folders).await
    }

    /// Replaces the copy of the activation list.
    pub async fn save_activations(&self, activations: &[Folder]) -> Result<(), JournalError> {
        self.save_list("activations", activations).await
    }

    /// Saves what the service answered for one folder's contacts, asked for at `asked_at`:
    /// the whole list (`whole`), or a page of the newest. Rows the answer should have held and
    /// does not (deleted or moved on the service) go: any of the folder's for the whole list,
    /// those from the page's oldest time on for a page, so older pages stay. A row written
    /// since `asked_at` (a contact the sender just sent, an edit) is newer than the answer and
    /// is kept.
    pub async fn save_contacts(
        &self,
        folder_id: &str,
        contacts: &[Contact],
        asked_at: Timestamp,
        whole: bool,
    ) -> Result<(), JournalError> {
        let now = now_ms();
        let mut tx = self.write().await?;
        let from = if whole {
            Some(i64::MIN)
        } else {
            contacts.iter().map(|c| c.time_on.millis()).min()
        };
        if let Some(from) = from {
            sqlx::query(
                "DELETE FROM cached_contacts
                 WHERE folder_id = $1 AND saved_at < $2 AND time_on >= $3",
            )
            .bind(folder_id)
            .bind(asked_at.millis())
            .bind(from)
            .execute(&mut *tx)
            .await?;
        }
        for contact in contacts {
            copy_contact(&mut tx, contact, Some(asked_at.millis()), now).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// A contact as the service answered an edit of it: it replaces the copy's (under its
    /// folder only). When the edit moved it, the counts move with it.
    pub async fn remember_contact(&self, contact: &Contact) -> Result<(), JournalError> {
        let mut tx = self.write().await?;
        let before = copied_folder(&mut tx, &contact.id).await?;
        copy_contact(&mut tx, contact, None, now_ms()).await?;
        if let Some(before) = before.filter(|b| *b != contact.folder_id) {
            add_to_counts(&mut tx, &[(before, -1), (contact.folder_id.clone(), 1)]).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// A contact the service deleted: it leaves the copy and the counts of its folder, the
    /// folders above it and whoami.
    pub async fn forget_contact(&self, id: &str) -> Result<(), JournalError> {
        let mut tx = self.write().await?;
        let folder = copied_folder(&mut tx, id).await?;
        sqlx::query("DELETE FROM cached_contacts WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if let Some(folder) = folder {
            add_to_counts(&mut tx, &[(folder, -1)]).await?;
        }
        // The account had it wherever the copy kept it, or did not.
        add_to_whoami(&mut tx, -1).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Remembers the folder the logbook has open (none: no folder), for the next start.
    pub async fn save_open_folder(&self, folder_id: Option<&str>) -> Result<(), JournalError> {
        match folder_id {
            Some(id) => {
                sqlx::query(
                    "INSERT INTO meta (name, value) VALUES ('open_folder', $1)
                     ON CONFLICT (name) DO UPDATE SET value = $1",
                )
                .bind(id)
                .execute(&self.pool)
                .await?
            }
            None => {
                sqlx::query("DELETE FROM meta WHERE name = 'open_folder'")
                    .execute(&self.pool)
                    .await?
            }
        };
        Ok(())
    }

    pub(super) async fn cached_folder_list(
        tx: &mut Tx<'_>,
        list: Option<&str>,
    ) -> Result<Vec<Folder>, JournalError> {
        let rows: Vec<(String,)> = match list {
            Some(list) => {
                sqlx::query_as(
                    "SELECT folder FROM cached_folders WHERE list = $1 ORDER BY position",
                )
                .bind(list)
                .fetch_all(&mut **tx)
                .await?
            }
            None => {
                sqlx::query_as("SELECT folder FROM cached_folders ORDER BY list, position")
                    .fetch_all(&mut **tx)
                    .await?
            }
        };
        rows.iter().map(|(f,)| decode("folder", f)).collect()
    }

    /// The copy of the account, with the folders logged here and not sent yet.
    pub async fn snapshot(&self) -> Result<Snapshot, JournalError> {
        // One read transaction, so the lists and the local folders agree with each other.
        let mut tx = self.pool.begin().await?;
        let whoami: Option<String> =
            sqlx::query_scalar("SELECT value FROM meta WHERE name = 'whoami'")
                .fetch_optional(&mut *tx)
                .await?;
        let mut folders = Self::cached_folder_list(&mut tx, Some("folders")).await?;
        let mut activations = Self::cached_folder_list(&mut tx, Some("activations")).await?;
        let saved: Vec<String> =
            sqlx::query_scalar("SELECT name FROM meta WHERE name LIKE 'saved:%'")
                .fetch_all(&mut *tx)
                .await?;
        // A loc_ id sent since it was saved reads as the real folder's.
        let open_folder: Option<String> = sqlx::query_scalar(
            "SELECT COALESCE(lf.real_id, m.value) FROM meta m
             LEFT JOIN local_folders lf ON lf.id = m.value WHERE m.name = 'open_folder'",
        )
        .fetch_optional(&mut *tx)
        .await?;
        let local: Vec<(String,)> = sqlx::query_as(
            "SELECT lf.folder FROM local_folders lf JOIN entries e ON e.id = lf.entry_id
             WHERE lf.real_id IS NULL AND e.state = 'waiting' ORDER BY e.seq",
        )
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        for (folder,) in &local {
            let folder: Folder = decode("folder", folder)?;
            if folder.folder_type == FolderType::Activation {
                activations.push(folder.clone());
            }
            folders.push(folder);
        }
        Ok(Snapshot {
            whoami: whoami.map(|w| decode("whoami", &w)).transpose()?,
            folders,
            activations,
            folders_saved: saved.iter().any(|n| n == "saved:folders"),
            activations_saved: saved.iter().any(|n| n == "saved:activations"),
            open_folder,
        })
    }

    /// Every contact of the copy, whatever its folder, handed to `each` a page at a time (a
    /// big log is never held whole): what a logger judges a call against with the link down.
    pub async fn each_cached_contact(
        &self,
        mut each: impl FnMut(Contact),
    ) -> Result<(), JournalError> {
        const PAGE: i64 = 1_000;
        // By rowid, the table's own order: each page a seek, not a scan.
        let mut after = 0_i64;
        loop {
            let rows: Vec<(i64, String)> = sqlx::query_as(
                "SELECT rowid, contact FROM cached_contacts WHERE rowid > $1 ORDER BY rowid LIMIT $2",
            )
            .bind(after)
            .bind(PAGE)
            .fetch_all(&self.pool)
            .await?;
            let Some((last, _)) = rows.last() else {
                return Ok(());
            };
            after = *last;
            for (_, contact) in &rows {
                each(decode("contact", contact)?);
            }
        }
    }

    /// The copy of a folder's contacts, newest first (a loc_ id whose folder was sent reads
    /// the real folder's copy).
    pub async fn cached_contacts(
        &self,
        folder_id: &str,
        limit: u32,
    ) -> Result<Vec<Contact>, JournalError> {
        let rows: Vec<(String,)> = sqlx::query_as(
            "SELECT contact FROM cached_contacts
             WHERE folder_id = COALESCE((SELECT real_id FROM local_folders WHERE id = $1), $1)
             ORDER BY time_on DESC, id DESC LIMIT $2",
        )
        .bind(folder_id)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|(c,)| decode("contact", c)).collect()
    }
}
