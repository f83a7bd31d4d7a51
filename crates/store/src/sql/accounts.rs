//! What the service's operator changes of an account (`svc server user …`), and the schema
//! version the health check compares.

use super::*;

impl SqlStore {
    /// The newest migration applied to the database, and the newest this build has.
    pub(super) async fn migrated_version(&self) -> StoreResult<(i64, i64)> {
        let found: Option<i64> =
            sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations WHERE success")
                .fetch_one(&self.reader)
                .await?;
        let migrations = if self.postgres() {
            &POSTGRES_MIGRATIONS
        } else {
            &SQLITE_MIGRATIONS
        };
        let wanted = migrations.iter().map(|m| m.version).max().unwrap_or(0);
        Ok((found.unwrap_or(0), wanted))
    }

    pub(super) async fn all_accounts(&self) -> StoreResult<Vec<Account>> {
        let rows = sqlx::query(
            "SELECT id, callsign, plan, qso_cap, native_qso_count, created_at, disabled_at FROM accounts \
             ORDER BY callsign",
        )
        .fetch_all(&self.reader)
        .await?;
        Ok(rows
            .iter()
            .map(account_row)
            .collect::<Result<_, sqlx::Error>>()?)
    }

    pub(super) async fn change_plan(
        &self,
        account_id: &str,
        plan: Plan,
        qso_cap: Option<i64>,
    ) -> StoreResult<()> {
        let account_id = account_id.to_owned();
        // A plan with no cap keeps none, so a return to the free plan starts from the
        // server's cap unless a cap is given with it.
        let qso_cap = qso_cap.filter(|_| plan.capped());
        self.write(move |tx| {
            Box::pin(async move {
                sqlx::query(
                    "UPDATE accounts SET plan = $1, capped = $2, budgeted = $3, qso_cap = $4 \
                     WHERE id = $5",
                )
                .bind(plan.as_str())
                .bind(plan.capped())
                .bind(plan.budgeted())
                .bind(qso_cap)
                .bind(&account_id)
                .execute(&mut *tx)
                .await?;
                Ok(())
            })
        })
        .await
    }

    /// Disables (`Some`) or enables (`None`) the account; disabling ends its web sessions.
    pub(super) async fn change_disabled(
        &self,
        account_id: &str,
        at: Option<Timestamp>,
    ) -> StoreResult<()> {
        let account_id = account_id.to_owned();
        self.write(move |tx| {
            Box::pin(async move {
                sqlx::query("UPDATE accounts SET disabled_at = $1 WHERE id = $2")
                    .bind(at.map(|t| t.millis()))
                    .bind(&account_id)
                    .execute(&mut *tx)
                    .await?;
                if at.is_some() {
                    end_sessions(tx, &account_id).await?;
                }
                Ok(())
            })
        })
        .await
    }

    /// A new web password; the sessions signed in with the old one end.
    pub(super) async fn change_password(
        &self,
        account_id: &str,
        password_hash: &str,
    ) -> StoreResult<()> {
        let (account_id, hash) = (account_id.to_owned(), password_hash.to_owned());
        self.write(move |tx| {
            Box::pin(async move {
                sqlx::query("UPDATE accounts SET password_hash = $1 WHERE id = $2")
                    .bind(&hash)
                    .bind(&account_id)
                    .execute(&mut *tx)
                    .await?;
                end_sessions(tx, &account_id).await
            })
        })
        .await
    }
}

async fn end_sessions(tx: &mut AnyConnection, account_id: &str) -> StoreResult<()> {
    sqlx::query("DELETE FROM web_sessions WHERE account_id = $1")
        .bind(account_id)
        .execute(&mut *tx)
        .await?;
    Ok(())
}
