//! API keys: made, listed, found, revoked, and a request's key authenticated against them.

use super::*;

impl SqlStore {
    pub(super) async fn create_key(
        &self,
        account_id: &str,
        name: &str,
        tier: Tier,
        key: &ApiKey,
    ) -> StoreResult<KeyRecord> {
        self.insert_key(account_id, name, tier, key, None)
            .await?
            .ok_or_else(|| StoreError::Db(decode_err("a key without a form was refused".into())))
    }

    pub(super) async fn create_key_from_form(
        &self,
        account_id: &str,
        name: &str,
        tier: Tier,
        key: &ApiKey,
        form_token: &str,
    ) -> StoreResult<Option<KeyRecord>> {
        self.insert_key(account_id, name, tier, key, Some(form_token))
            .await
    }

    pub(super) async fn list_keys(&self, account_id: &str) -> StoreResult<Vec<KeyRecord>> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            key_cols!(),
            " WHERE k.account_id = $1 ORDER BY k.seq"
        ))
        .bind(account_id)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows.iter().map(key_row).collect::<Result<_, _>>()?)
    }

    pub(super) async fn find_keys(&self, id_or_prefix: &str) -> StoreResult<Vec<KeyRecord>> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            key_cols!(),
            " WHERE k.id = $1 OR k.key_prefix = $1 ORDER BY k.seq"
        ))
        .bind(id_or_prefix)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows.iter().map(key_row).collect::<Result<_, _>>()?)
    }

    pub(super) async fn revoke_key(
        &self,
        key_id: &str,
        reason: &str,
        now: Timestamp,
    ) -> StoreResult<bool> {
        let (key_id, reason) = (key_id.to_owned(), reason.to_owned());
        self.write(move |tx| {
            Box::pin(async move {
                let done = sqlx::query(
                    "UPDATE api_keys SET revoked_at = $1, revoked_reason = $2 WHERE id = $3 AND revoked_at IS NULL",
                )
                .bind(now.millis())
                .bind(&reason)
                .bind(&key_id)
                .execute(&mut *tx)
                .await?;
                Ok(done.rows_affected() == 1)
            })
        })
        .await
    }

    pub(super) async fn revoke_account_key(
        &self,
        account_id: &str,
        key_id: &str,
        now: Timestamp,
    ) -> StoreResult<bool> {
        let (account_id, key_id) = (account_id.to_owned(), key_id.to_owned());
        self.write(move |tx| {
            Box::pin(async move {
                let done = sqlx::query(
                    "UPDATE api_keys SET revoked_at = $1, revoked_reason = 'user' \
                     WHERE id = $2 AND account_id = $3 AND revoked_at IS NULL",
                )
                .bind(now.millis())
                .bind(&key_id)
                .bind(&account_id)
                .execute(&mut *tx)
                .await?;
                Ok(done.rows_affected() == 1)
            })
        })
        .await
    }

    pub(super) async fn account_credentials(
        &self,
        callsign: &str,
    ) -> StoreResult<Option<(Account, Option<String>)>> {
        let row = sqlx::query(
            "SELECT id, callsign, plan, qso_cap, native_qso_count, created_at, disabled_at, password_hash FROM accounts WHERE callsign = $1",
        )
        .bind(callsign)
        .fetch_optional(&self.reader)
        .await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some((account_row(&row)?, row.try_get("password_hash")?)))
    }

    pub(super) async fn authenticate(
        &self,
        key: &ApiKey,
        now: Timestamp,
        window_ms: i64,
    ) -> StoreResult<AuthOutcome> {
        let hash = key.hash();
        let window_start = now.millis() - now.millis().rem_euclid(window_ms);
        let rows = match &self.writes {
            // PostgreSQL finds the key and counts the request in one statement, with the other
            // requests of this process that wait at the same moment.
            Writes::Pooled { lookups, .. } => {
                lookups
                    .run(Lookup {
                        lookup: lookup_of(&hash),
                        window_start,
                        now,
                    })
                    .await?
            }
            Writes::Grouped(_) => {
                sqlx::query(concat!(
                    "SELECT found.*, NULL AS window_count FROM (SELECT ",
                    key_lookup!(),
                    " WHERE k.lookup = $1) found"
                ))
                .bind(lookup_of(&hash))
                .fetch_all(&self.reader)
                .await?
            }
        };
        // The index narrows by 8 bytes of the hash; the full hash is compared in constant time.
        let Some(row) = rows.iter().find(|r| {
            r.try_get::<Vec<u8>, _>("key_hash")
                .is_ok_and(|stored| bool::from(stored.ct_eq(&hash[..])))
        }) else {
            return Ok(AuthOutcome::UnknownKey);
        };
        if row.try_get::<Option<i64>, _>("revoked_at")?.is_some() {
            return Ok(AuthOutcome::Revoked);
        }
        if row.try_get::<Option<i64>, _>("disabled_at")?.is_some() {
            return Ok(AuthOutcome::Disabled);
        }
        let tier: String = row.try_get("tier")?;
        let plan: String = row.try_get("plan")?;
        let principal = Principal {
            key_id: row.try_get("id")?,
            key_prefix: row.try_get("key_prefix")?,
            account_id: row.try_get("account_id")?,
            callsign: row.try_get("callsign")?,
            plan: Plan::parse(&plan).ok_or_else(|| decode_err(format!("plan {plan:?}")))?,
            qso_cap: row.try_get("qso_cap")?,
            tier: Tier::parse(&tier).ok_or_else(|| decode_err(format!("tier {tier:?}")))?,
        };
        let window_count = match row.try_get::<Option<i64>, _>("window_count")? {
            Some(count) => count,
            None => {
                let key_id = principal.key_id.clone();
                self.count(move |tx| {
                    Box::pin(async move {
                        let count = sqlx::query_scalar(concat!(
                            "INSERT INTO key_usage (key_id, window_start, count, last_used_at) \
                             VALUES ($1, $2, 1, $3) ON CONFLICT (key_id) DO UPDATE SET ",
                            count_in_window!(),
                            " RETURNING count"
                        ))
                        .bind(&key_id)
                        .bind(window_start)
                        .bind(now.millis())
                        .fetch_one(&mut *tx)
                        .await?;
                        Ok(count)
                    })
                })
                .await?
            }
        };
        Ok(AuthOutcome::Active {
            principal,
            window_count,
        })
    }
}
