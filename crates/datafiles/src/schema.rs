//! The schema of svc's own SQLite files on this computer (the outbox journal, the park cache),
//! migrated as the service's database is: by sqlx's migrator, from numbered SQL files each
//! crate embeds (`crates/client/migrations/journal/`, `crates/pota/migrations/parks/`).
//!
//! Files written before kept their version in `PRAGMA user_version`, one version per
//! migration file: their migrations up to that version are marked applied once, without
//! running them. The version is still written after each upgrade, so that an older svc,
//! which reads only it, refuses a file a newer one wrote instead of misreading it.

use sqlx::SqliteConnection;
use sqlx::migrate::{MigrateError, Migrator};

#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// The file was written by a newer svc, whose schema this one does not know.
    #[error("it was written by a newer svc (schema {found}, this one knows {known})")]
    Newer { found: i64, known: i64 },
    #[error("{0}")]
    Migrate(#[from] MigrateError),
    #[error("{0}")]
    Db(#[from] sqlx::Error),
}

/// The schema version `migrator` brings a file to: its last migration's.
pub fn latest(migrator: &Migrator) -> i64 {
    migrator.iter().map(|m| m.version).max().unwrap_or(0)
}

/// Brings the file on `conn` up to `migrator`'s schema. `conn` should be in a transaction
/// that holds the write lock (`BEGIN IMMEDIATE`), so that two processes opening one file at
/// once migrate it one after the other; the migrations then run in savepoints of it.
pub async fn migrate(conn: &mut SqliteConnection, migrator: &Migrator) -> Result<(), SchemaError> {
    let known = latest(migrator);
    let found: i64 = sqlx::query_scalar("PRAGMA user_version")
        .fetch_one(&mut *conn)
        .await?;
    if found > known {
        return Err(SchemaError::Newer { found, known });
    }
    let tracked: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations')",
    )
    .fetch_one(&mut *conn)
    .await?;
    // `run_direct` takes the connection itself, where `run` and `skip` would want to acquire
    // one (which a connection inside a transaction cannot lend for any lifetime).
    if !tracked && found > 0 {
        migrator.run_direct(Some(found), conn, true).await?;
    }
    migrator.run_direct(None, conn, false).await?;
    if found < known {
        // A pragma takes no bound parameters; the number is this build's own.
        let set = format!("PRAGMA user_version = {known}");
        sqlx::query(sqlx::AssertSqlSafe(set))
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}
