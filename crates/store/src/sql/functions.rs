//! PostgreSQL's functions (the grouped and the lone create, the external logbooks' triggers),
//! each kept whole in one file, `crates/store/functions/postgres.sql`, and run after the
//! migrations when it is newer than what the database has. Until migration 0019 each change
//! of a function was a migration that copied it whole; now a change is an edit of the file
//! and a bump of [`FUNCTIONS_VERSION`].

use super::*;

/// The version of `functions/postgres.sql`: bump it with every change of the file, so that
/// each database runs it once more. A test pins the file's contents to this number.
const FUNCTIONS_VERSION: i64 = 2;
const FUNCTIONS: &str = include_str!("../../functions/postgres.sql");
/// The advisory lock under which one process at a time compares and runs the file: any
/// number, the same in every build (`svc_fn` in ASCII).
const FUNCTIONS_LOCK: i64 = 0x7376_635f_666e;

/// Runs the functions file unless the database has its version or a newer one (a newer
/// build's server already ran its own, which this older one must not undo).
pub(super) async fn install_functions(pool: &AnyPool) -> StoreResult<()> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(FUNCTIONS_LOCK)
        .execute(&mut *tx)
        .await?;
    let installed: Option<i64> = sqlx::query_scalar("SELECT MAX(version) FROM svc_functions")
        .fetch_one(&mut *tx)
        .await?;
    if installed.is_none_or(|v| v < FUNCTIONS_VERSION) {
        sqlx::raw_sql(FUNCTIONS).execute(&mut *tx).await?;
        sqlx::query("DELETE FROM svc_functions")
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO svc_functions (version) VALUES ($1)")
            .bind(FUNCTIONS_VERSION)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    /// The file as version [`FUNCTIONS_VERSION`] has it. A change of the file without a new
    /// version would reach no database that ran the old one.
    #[test]
    fn the_functions_file_is_the_version_it_says() {
        let pinned = (
            2,
            "31e4a5b51d53f3549130d2219f1fbc21e117d31d419cb61e5e3c5197467c9443",
        );
        let hash: String = Sha256::digest(FUNCTIONS.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            (FUNCTIONS_VERSION, hash.as_str()),
            pinned,
            "functions/postgres.sql changed: bump FUNCTIONS_VERSION and pin the new hash here"
        );
    }
}
