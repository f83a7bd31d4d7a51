//! `svc server backup`: a consistent copy of an SQLite database, taken while servers write to
//! it. `VACUUM INTO` reads one snapshot of the file (a read transaction of the WAL) and writes
//! it compacted to a new file, which is a database a server can be started on as it is.

use super::*;

/// What a backup holds, as the command reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backup {
    pub accounts: i64,
    pub contacts: i64,
    /// The newest migration the copy has.
    pub schema: i64,
    pub bytes: u64,
}

/// Copies the SQLite database at `from` to `to`, a file that must not exist yet: it is made
/// the owner's alone (it holds password hashes and sealed keys) before a byte is written, and
/// removed again if the copy fails. The copy is checked (`PRAGMA integrity_check`) before it
/// is reported.
pub async fn backup_sqlite(from: &Path, to: &Path) -> StoreResult<Backup> {
    if !from.is_file() {
        return Err(ApiError::not_found(format!(
            "no SQLite database at {}; give the --database the server uses",
            from.display()
        ))
        .into());
    }
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(to)
    {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(ApiError::field(
                "to",
                format!(
                    "{} exists; a backup never overwrites a file: give a new name",
                    to.display()
                ),
            )
            .into());
        }
        Err(e) => {
            return Err(
                ApiError::field("to", format!("cannot create {}: {e}", to.display())).into(),
            );
        }
    }
    let copied = copy(from, to).await;
    if copied.is_err() {
        let _ = std::fs::remove_file(to);
    }
    copied
}

async fn copy(from: &Path, to: &Path) -> StoreResult<Backup> {
    let options = SqliteConnectOptions::new()
        .filename(from)
        .create_if_missing(false)
        .busy_timeout(Duration::from_secs(10));
    let mut source = options.connect().await?;
    sqlx::query("VACUUM INTO $1")
        .bind(to.to_string_lossy().into_owned())
        .execute(&mut source)
        .await?;
    source.close().await?;

    let mut copy = SqliteConnectOptions::new()
        .filename(to)
        .read_only(true)
        .connect()
        .await?;
    let integrity: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&mut copy)
        .await?;
    if integrity != "ok" {
        return Err(decode_err(format!("the copy failed its integrity check: {integrity}")).into());
    }
    let (accounts, contacts, schema): (i64, i64, Option<i64>) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM accounts), (SELECT count(*) FROM contacts), \
         (SELECT MAX(version) FROM _sqlx_migrations WHERE success)",
    )
    .fetch_one(&mut copy)
    .await?;
    copy.close().await?;
    let bytes = std::fs::metadata(to)
        .map_err(|e| StoreError::Db(sqlx::Error::Io(e)))?
        .len();
    Ok(Backup {
        accounts,
        contacts,
        schema: schema.unwrap_or(0),
        bytes,
    })
}
