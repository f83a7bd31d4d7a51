//! Idempotency keys: claimed in the transaction of the write they key, answered again on a
//! retry, refused when reused for another request.

use super::*;

/// Claims an idempotency key inside the transaction: `Some(response)` when the same request
/// was answered before (a replay), `None` when this request is the first with the key. The
/// response is stored with the claim when it is known already, else by [`complete`].
pub(super) async fn claim(
    conn: &mut AnyConnection,
    account_id: &str,
    idem: Option<&IdemRequest>,
    now: Timestamp,
    response: Option<&str>,
) -> StoreResult<Option<String>> {
    let Some(idem) = idem else { return Ok(None) };
    // A key older than the TTL is taken over as if it were new.
    let inserted = sqlx::query(
        "INSERT INTO idempotency (account_id, key, fingerprint, response, created_at) \
         VALUES ($1, $2, $3, $6, $4) \
         ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, \
           response = excluded.response, created_at = excluded.created_at \
         WHERE idempotency.created_at < $5",
    )
    .bind(account_id)
    .bind(&idem.key)
    .bind(&idem.fingerprint[..])
    .bind(now.millis())
    .bind(now.millis() - IDEMPOTENCY_TTL_MS)
    .bind(response)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if inserted == 1 {
        return Ok(None);
    }
    answered_before(conn, account_id, idem, now)
        .await?
        .map(Some)
        .ok_or_else(|| StoreError::Db(decode_err("idempotency key vanished".into())))
}

/// The first response to a request with this key, if the key is live; a live key that came
/// with a different request is refused.
pub(super) async fn answered_before(
    conn: &mut AnyConnection,
    account_id: &str,
    idem: &IdemRequest,
    now: Timestamp,
) -> StoreResult<Option<String>> {
    let row = sqlx::query(
        "SELECT fingerprint, response FROM idempotency \
         WHERE account_id = $1 AND key = $2 AND created_at >= $3",
    )
    .bind(account_id)
    .bind(&idem.key)
    .bind(now.millis() - IDEMPOTENCY_TTL_MS)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(row) = row else { return Ok(None) };
    let fingerprint: Vec<u8> = row.try_get("fingerprint")?;
    if fingerprint != idem.fingerprint {
        return Err(key_reused("Idempotency-Key", &idem.key).into());
    }
    let response: Option<String> = row.try_get("response")?;
    response
        .map(Some)
        .ok_or_else(|| StoreError::Db(decode_err("idempotency row without a response".into())))
}

/// The refusal of a live idempotency key sent with a request other than its first; `field`
/// names where the key came: the `Idempotency-Key` header, or a batch item's `idempotencyKey`.
pub(super) fn key_reused(field: &str, key: &str) -> ApiError {
    ApiError::validation(format!(
        "{field} {:?} was used within the last {IDEMPOTENCY_TTL_TEXT} for a different request; send a new key for a new request",
        svc_model::ids::truncate(key, 40)
    ))
    .with_details(serde_json::json!({ "field": field }))
}

pub(super) fn to_json<T: Serialize>(outcome: &T) -> StoreResult<String> {
    serde_json::to_string(outcome).map_err(|e| StoreError::Db(sqlx::Error::Decode(Box::new(e))))
}

pub(super) async fn complete<T: Serialize>(
    conn: &mut AnyConnection,
    account_id: &str,
    idem: Option<&IdemRequest>,
    outcome: &T,
) -> StoreResult<()> {
    if let Some(idem) = idem {
        sqlx::query("UPDATE idempotency SET response = $1 WHERE account_id = $2 AND key = $3")
            .bind(to_json(outcome)?)
            .bind(account_id)
            .bind(&idem.key)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

pub(super) fn replay<T: DeserializeOwned>(json: &str) -> StoreResult<Idem<T>> {
    serde_json::from_str(json)
        .map(Idem::Replayed)
        .map_err(|e| StoreError::Db(sqlx::Error::Decode(Box::new(e))))
}
