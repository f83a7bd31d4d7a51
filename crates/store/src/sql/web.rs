//! What the web pages keep: sessions, sign-in attempts and their delays, remembered devices,
//! and purging what has expired.

use super::*;

impl SqlStore {
    pub(super) async fn create_session(
        &self,
        token_hash: [u8; 32],
        account_id: &str,
        now: Timestamp,
    ) -> StoreResult<()> {
        let account_id = account_id.to_owned();
        self.write(move |tx| {
            Box::pin(async move {
                sqlx::query(
                    "INSERT INTO web_sessions (token_hash, account_id, created_at, last_seen_at) \
                     VALUES ($1, $2, $3, $3)",
                )
                .bind(&token_hash[..])
                .bind(&account_id)
                .bind(now.millis())
                .execute(&mut *tx)
                .await?;
                Ok(())
            })
        })
        .await
    }

    pub(super) async fn session(
        &self,
        token_hash: [u8; 32],
        now: Timestamp,
        lifetime: SessionLifetime,
    ) -> StoreResult<Option<Account>> {
        // Checked and touched in one conditional update, so that a session past either limit
        // is never extended, whichever process sees it.
        let account_id: Option<String> = self
            .count(move |tx| {
                Box::pin(async move {
                    Ok(sqlx::query_scalar(
                        "UPDATE web_sessions SET last_seen_at = $1 \
                         WHERE token_hash = $2 AND last_seen_at > $3 AND created_at > $4 \
                         RETURNING account_id",
                    )
                    .bind(now.millis())
                    .bind(&token_hash[..])
                    .bind(now.millis() - lifetime.idle_ms)
                    .bind(now.millis() - lifetime.absolute_ms)
                    .fetch_optional(&mut *tx)
                    .await?)
                })
            })
            .await?;
        let Some(account_id) = account_id else {
            return Ok(None);
        };
        let row = sqlx::query(
            "SELECT id, callsign, plan, qso_cap, native_qso_count, created_at, disabled_at FROM accounts WHERE id = $1",
        )
        .bind(&account_id)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.as_ref().map(account_row).transpose()?)
    }

    pub(super) async fn delete_session(&self, token_hash: [u8; 32]) -> StoreResult<()> {
        self.write(move |tx| {
            Box::pin(async move {
                sqlx::query("DELETE FROM web_sessions WHERE token_hash = $1")
                    .bind(&token_hash[..])
                    .execute(&mut *tx)
                    .await?;
                Ok(())
            })
        })
        .await
    }

    pub(super) async fn begin_signin(
        &self,
        scopes: &[SigninScope],
        now: Timestamp,
    ) -> StoreResult<SigninAttempt> {
        let scopes = scopes.to_vec();
        let attempt = self
            .write(move |tx| {
                Box::pin(async move {
                    let mut counted = Vec::with_capacity(scopes.len());
                    // The scope that waits longest, and how long (ms).
                    let mut waits: Option<(usize, i64)> = None;
                    for (i, SigninScope { scope, limit }) in scopes.iter().enumerate() {
                        // One conditional upsert per scope: a scope whose next attempt is
                        // still to come refuses, a window that has run out starts again. It
                        // locks the row (PostgreSQL; SQLite has one writer) until the commit,
                        // so the wait set from its count below is in place before any other
                        // attempt, of this process or another, reads the row.
                        let row = sqlx::query(
                            "INSERT INTO signin_attempts (scope, window_start, failures, next_at) \
                             VALUES ($1, $2, 1, 0) \
                             ON CONFLICT (scope) DO UPDATE SET \
                               failures = CASE WHEN signin_attempts.window_start <= $3 THEN 1 \
                                 ELSE signin_attempts.failures + 1 END, \
                               window_start = CASE WHEN signin_attempts.window_start <= $3 \
                                 THEN excluded.window_start ELSE signin_attempts.window_start END \
                             WHERE signin_attempts.next_at <= $2 \
                             RETURNING failures, window_start",
                        )
                        .bind(scope)
                        .bind(now.millis())
                        .bind(now.millis() - limit.window_ms)
                        .fetch_optional(&mut *tx)
                        .await?;
                        match row {
                            Some(row) => {
                                let failures: i64 = row.try_get("failures")?;
                                let window_start: i64 = row.try_get("window_start")?;
                                let next_at = limit
                                    .wait_until(failures, window_start, now.millis())
                                    .unwrap_or(0);
                                sqlx::query(
                                    "UPDATE signin_attempts SET next_at = $1 WHERE scope = $2",
                                )
                                .bind(next_at)
                                .bind(scope)
                                .execute(&mut *tx)
                                .await?;
                                counted.push((scope.clone(), next_at));
                            }
                            None => {
                                let next_at: Option<i64> = sqlx::query_scalar(
                                    "SELECT next_at FROM signin_attempts WHERE scope = $1",
                                )
                                .bind(scope)
                                .fetch_optional(&mut *tx)
                                .await?;
                                // At most a window: an attempt that took its time before
                                // the window's first (another process's, or one that waited
                                // for the writer) is not told more.
                                let wait = next_at
                                    .map_or(0, |at| at - now.millis())
                                    .clamp(0, limit.window_ms);
                                if waits.is_none_or(|(_, longest)| wait > longest) {
                                    waits = Some((i, wait));
                                }
                            }
                        }
                    }
                    if let Some((scope, wait_ms)) = waits {
                        // Refused as a rule, so the scopes counted are rolled back with it.
                        let mut refused = ApiError::new(
                            svc_model::ErrorCode::RateLimited,
                            "too many failed sign-ins",
                        )
                        .with_details(serde_json::json!({ "scope": scope }));
                        refused.retry_after = Some((wait_ms as u64).div_ceil(1000));
                        return Err(StoreError::Api(refused));
                    }
                    Ok(CountedAttempt { next_at: counted })
                })
            })
            .await;
        match attempt {
            Ok(counted) => Ok(SigninAttempt::Allowed(counted)),
            Err(StoreError::Api(e)) if e.code == svc_model::ErrorCode::RateLimited => {
                let scope = e
                    .details
                    .as_ref()
                    .and_then(|d| d["scope"].as_u64())
                    .and_then(|i| usize::try_from(i).ok())
                    .unwrap_or(0);
                Ok(SigninAttempt::Limited {
                    scope,
                    retry_after_secs: e.retry_after.unwrap_or(1).max(1),
                })
            }
            Err(e) => Err(e),
        }
    }

    pub(super) async fn signin_succeeded(&self, counted: &CountedAttempt) -> StoreResult<()> {
        let next_at = counted.next_at.clone();
        self.write(move |tx| {
            Box::pin(async move {
                for (scope, set) in &next_at {
                    // The wait this attempt set goes too (the scope could try when it came);
                    // a wait a later attempt set stays.
                    sqlx::query(
                        "UPDATE signin_attempts SET failures = failures - 1, \
                           next_at = CASE WHEN next_at = $2 THEN 0 ELSE next_at END \
                         WHERE scope = $1 AND failures > 0",
                    )
                    .bind(scope)
                    .bind(*set)
                    .execute(&mut *tx)
                    .await?;
                }
                Ok(())
            })
        })
        .await
    }

    pub(super) async fn remember_device(
        &self,
        token_hash: [u8; 32],
        account_id: &str,
        now: Timestamp,
    ) -> StoreResult<()> {
        let account_id = account_id.to_owned();
        self.write(move |tx| {
            Box::pin(async move {
                sqlx::query(
                    "INSERT INTO known_devices (token_hash, account_id, created_at) \
                     VALUES ($1, $2, $3) ON CONFLICT (token_hash) DO NOTHING",
                )
                .bind(&token_hash[..])
                .bind(&account_id)
                .bind(now.millis())
                .execute(&mut *tx)
                .await?;
                Ok(())
            })
        })
        .await
    }

    pub(super) async fn device_account(
        &self,
        token_hash: [u8; 32],
        now: Timestamp,
        lifetime: SessionLifetime,
    ) -> StoreResult<Option<String>> {
        Ok(sqlx::query_scalar(
            "SELECT account_id FROM known_devices WHERE token_hash = $1 AND created_at > $2",
        )
        .bind(&token_hash[..])
        .bind(now.millis() - lifetime.device_ms)
        .fetch_optional(&self.reader)
        .await?)
    }

    pub(super) async fn purge_web(
        &self,
        now: Timestamp,
        lifetime: SessionLifetime,
        counters_ms: i64,
    ) -> StoreResult<u64> {
        self.write(move |tx| {
            Box::pin(async move {
                let sessions = sqlx::query(
                    "DELETE FROM web_sessions WHERE last_seen_at <= $1 OR created_at <= $2",
                )
                .bind(now.millis() - lifetime.idle_ms)
                .bind(now.millis() - lifetime.absolute_ms)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                let counters = sqlx::query("DELETE FROM signin_attempts WHERE window_start <= $1")
                    .bind(now.millis() - counters_ms)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                let devices = sqlx::query("DELETE FROM known_devices WHERE created_at <= $1")
                    .bind(now.millis() - lifetime.device_ms)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                Ok(sessions + counters + devices)
            })
        })
        .await
    }
}
