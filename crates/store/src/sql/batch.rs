//! Batches of contact creates (`POST /v1/contacts/batch`): every item is the create a single
//! `POST /v1/contacts` with its `Idempotency-Key` would be, and the batch answers what each of
//! those would, as if they came one after another in the batch's order.
//!
//! - SQLite: the whole batch is one job of the writer, so one commit, and its work is a few
//!   round trips over the whole batch (multi-row `VALUES` lists for the contacts, runs of
//!   one-row statements for their keys, JSON arrays read with `json_each` for lookups) instead
//!   of a few per contact. The writer holds the only
//!   write lock, so the batch reads which keys are live, then stores each new key once, with
//!   its answer.
//! - PostgreSQL: the items join the grouped creates of `svc_create_contacts`
//!   ([`super::grouped`]) in the batch's order, like that many single creates waiting at once;
//!   the keys are claimed by one conditional upsert.
//!
//! Either way the database keeps every limit: the account is charged by one conditional
//! update, a key's primary key refuses it twice, and a refusal leaves nothing behind, its key
//! included.
//!
//! A key that repeats in a batch is processed in a later round than its first use, so that it
//! finds the key answered (a replay, or a refusal when the body differs); each round stores
//! each key once.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::grouped::{Create, Created};
use super::*;

/// Where a batch item's key is refused when it was used for another request.
const ITEM_KEY_FIELD: &str = "idempotencyKey";

/// Splits a batch's items (by index) into rounds in which no key repeats: the n-th use of a
/// key goes into round n, so it runs once the earlier uses are stored or refused.
fn rounds(items: &[BatchCreate]) -> Vec<Vec<usize>> {
    let mut uses: HashMap<&str, usize> = HashMap::new();
    let mut rounds: Vec<Vec<usize>> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let n = uses.entry(item.idem.key.as_str()).or_insert(0);
        if rounds.len() <= *n {
            rounds.push(Vec::new());
        }
        rounds[*n].push(i);
        *n += 1;
    }
    rounds
}

/// The live idempotency rows of these keys: their fingerprint and first response.
async fn answered_keys(
    conn: &mut AnyConnection,
    postgres: bool,
    account_id: &str,
    keys: &[&str],
    now: Timestamp,
) -> StoreResult<HashMap<String, (Vec<u8>, Option<String>)>> {
    let sql = if postgres {
        "SELECT key, fingerprint, response FROM idempotency WHERE account_id = $1 \
         AND key IN (SELECT json_array_elements_text($2::json)) AND created_at >= $3"
    } else {
        "SELECT key, fingerprint, response FROM idempotency WHERE account_id = $1 \
         AND key IN (SELECT value FROM json_each($2)) AND created_at >= $3"
    };
    let rows = sqlx::query(sql)
        .bind(account_id)
        .bind(serde_json::to_string(keys).map_err(|e| sqlx::Error::Encode(e.into()))?)
        .bind(now.millis() - IDEMPOTENCY_TTL_MS)
        .fetch_all(&mut *conn)
        .await?;
    let mut found = HashMap::with_capacity(rows.len());
    for row in rows {
        found.insert(
            row.try_get("key")?,
            (row.try_get("fingerprint")?, row.try_get("response")?),
        );
    }
    Ok(found)
}

/// The outcome of an item whose key was live: the first response when it came with the same
/// request, else the refusal.
fn answer_of(
    item: &BatchCreate,
    found: &HashMap<String, (Vec<u8>, Option<String>)>,
) -> StoreResult<BatchOutcome> {
    let Some((fingerprint, response)) = found.get(&item.idem.key) else {
        return Err(decode_err("idempotency key vanished".into()).into());
    };
    if fingerprint[..] != item.idem.fingerprint[..] {
        return Ok(Err(key_reused(ITEM_KEY_FIELD, &item.idem.key)));
    }
    let response = response
        .as_deref()
        .ok_or_else(|| decode_err("idempotency row without a response".into()))?;
    replay(response).map(Ok)
}

/// SQLite: one round of a batch inside the writer's transaction. Fills `outcomes` for the
/// round's items.
async fn sqlite_round(
    conn: &mut AnyConnection,
    account_id: &str,
    items: &[BatchCreate],
    round: &[usize],
    limits: &Limits,
    now: Timestamp,
    outcomes: &mut [Option<BatchOutcome>],
) -> StoreResult<()> {
    // Keys used before: replays, or refusals of another request. The writer holds the
    // database's only write lock, so what this finds cannot change before the round's keys
    // are stored (and the primary key would refuse a key stored twice).
    let keys: Vec<&str> = round.iter().map(|&i| items[i].idem.key.as_str()).collect();
    let found = answered_keys(&mut *conn, false, account_id, &keys, now).await?;
    let (live, fresh): (Vec<usize>, Vec<usize>) = round
        .iter()
        .partition(|&&i| found.contains_key(&items[i].idem.key));
    for &i in &live {
        outcomes[i] = Some(answer_of(&items[i], &found)?);
    }
    if fresh.is_empty() {
        return Ok(());
    }

    // The limits admit the first `admitted` new contacts, in order; the account is charged
    // for them by one update that checks every limit again.
    let counters = Counters::read(&mut *conn, account_id, now).await?;
    let admitted = counters.room(limits).min(fresh.len() as i64);
    if admitted > 0 {
        let charged = sqlx::query(
            "UPDATE accounts SET lifetime_created = lifetime_created + $2, \
             native_qso_count = native_qso_count + $2, \
             daily_created = CASE WHEN daily_day = $3 THEN daily_created + $7 ELSE $7 END, \
             daily_day = $3 \
             WHERE id = $1 AND (NOT budgeted OR lifetime_created + $2 <= $4) \
             AND (NOT capped OR native_qso_count + $2 <= COALESCE(qso_cap, $5)) \
             AND (NOT budgeted \
                  OR CASE WHEN daily_day = $3 THEN daily_created ELSE 0 END + $7 <= $6)",
        )
        .bind(account_id)
        .bind(admitted)
        .bind(now.utc_day())
        .bind(limits.lifetime_contact_budget)
        .bind(limits.free_plan_cap)
        .bind(limits.daily_contact_budget)
        .bind(if limits.daily_applies { admitted } else { 0 })
        .execute(&mut *conn)
        .await?
        .rows_affected();
        if charged != 1 {
            return Err(
                decode_err("the account's counters changed under the writer".into()).into(),
            );
        }
    }
    let (stored, refused) = fresh.split_at(admitted as usize);
    if !refused.is_empty() {
        let limit = counters.charged(admitted, limits).reached(limits);
        for &i in refused {
            outcomes[i] = Some(Err(limit.api_error(now)));
        }
    }
    if stored.is_empty() {
        return Ok(());
    }

    // Duplicates: the folder's first earlier contact with the same identity, else the first
    // earlier item of the batch stored with it.
    let creates: Vec<Create> = stored
        .iter()
        .map(|&i| Create {
            account_id: account_id.to_owned(),
            id: IdKind::Contact.generate(),
            contact: items[i].contact.clone(),
            idem: Some(items[i].idem.clone()),
            limits: *limits,
            now,
        })
        .collect();
    let wanted: Vec<_> = creates
        .iter()
        .filter_map(|c| Some(json!([c.contact.folder_id, c.contact.dupe_key.as_deref()?])))
        .collect();
    let mut earlier: HashMap<(String, String), Option<String>> = HashMap::new();
    if !wanted.is_empty() {
        let rows = sqlx::query(
            "SELECT j.value ->> 0 AS folder_id, j.value ->> 1 AS dupe_key, \
               (SELECT c.id FROM contacts c WHERE c.folder_id = j.value ->> 0 \
                AND c.dupe_key = j.value ->> 1 ORDER BY c.seq LIMIT 1) AS first \
             FROM json_each($1) j",
        )
        .bind(Value::Array(wanted).to_string())
        .fetch_all(&mut *conn)
        .await?;
        for row in rows {
            earlier.insert(
                (row.try_get("folder_id")?, row.try_get("dupe_key")?),
                row.try_get("first")?,
            );
        }
    }
    let mut answers = Vec::with_capacity(creates.len());
    for create in &creates {
        let duplicate_of = match &create.contact.dupe_key {
            Some(key) => {
                let first = earlier
                    .entry((create.contact.folder_id.clone(), key.clone()))
                    .or_insert(None);
                // The first contact with this identity is the one later ones repeat.
                first.get_or_insert_with(|| create.id.clone());
                first.clone().filter(|id| *id != create.id)
            }
            None => None,
        };
        answers.push(ContactCreated {
            id: create.id.clone(),
            duplicate_of,
        });
    }

    // The contacts, their folders' counts, and the answers the keys replay.
    insert_contacts(&mut *conn, account_id, &creates, now).await?;
    let mut counts: HashMap<&str, i64> = HashMap::new();
    for create in &creates {
        *counts.entry(create.contact.folder_id.as_str()).or_default() += 1;
    }
    for (folder_id, n) in counts {
        count_in_folder(&mut *conn, folder_id, n).await?;
    }
    // Each key with its answer; a key stored before and expired since is taken over.
    let positions: Vec<usize> = (0..creates.len()).collect();
    let mut keys_stored = 0;
    for chunk in chunks(&positions) {
        let sql = statements(
            "INSERT INTO idempotency (account_id, key, fingerprint, response, created_at) \
             VALUES (?, ?, ?, ?, ?) \
             ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, \
               response = excluded.response, created_at = excluded.created_at \
             WHERE idempotency.created_at < ?",
            chunk.len(),
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.as_str()));
        for &n in chunk {
            let idem = creates[n]
                .idem
                .as_ref()
                .ok_or_else(|| decode_err("a batch item without a key".into()))?;
            query = query
                .bind(account_id)
                .bind(&idem.key)
                .bind(&idem.fingerprint[..])
                .bind(to_json(&answers[n])?)
                .bind(now.millis())
                .bind(now.millis() - IDEMPOTENCY_TTL_MS);
        }
        keys_stored += query.execute(&mut *conn).await?.rows_affected();
    }
    if keys_stored != creates.len() as u64 {
        return Err(decode_err("an idempotency key was stored under the writer".into()).into());
    }
    for (&i, answer) in stored.iter().zip(answers) {
        outcomes[i] = Some(Ok(Idem::Fresh(answer)));
    }
    Ok(())
}

/// Rows one round trip to the SQLite connection writes at most: a power of two, so that a
/// batch of any size needs few round trips and only a few statement texts (each prepared
/// once, and kept).
const MAX_ROWS: usize = 64;

/// Splits `all` into runs of a power of two, at most [`MAX_ROWS`], largest first.
fn chunks<T>(all: &[T]) -> Vec<&[T]> {
    let mut runs = Vec::new();
    let mut rest = all;
    while !rest.is_empty() {
        let (run, tail) = rest.split_at(MAX_ROWS.min(1 << rest.len().ilog2()));
        runs.push(run);
        rest = tail;
    }
    runs
}

/// `n` copies of the one-row statement `sql`, run in one round trip to the connection.
///
/// One row a statement, because inside a transaction SQLite copies every page a statement
/// of several rows changes (into its statement journal) before changing it, so that the
/// statement alone can be undone; a statement of one row needs no such copy. A failed
/// statement fails the whole job, which is undone as one anyway.
fn statements(sql: &str, n: usize) -> String {
    vec![sql; n].join(";\n")
}

/// SQLite: inserts the contacts with bound values, a power of two a statement. (Reading them
/// from one JSON array with `json_each` cost SQLite a parse of the row's object for each
/// column: half the writer's time.)
///
/// Several rows a statement, unlike the keys: the trigger that queues each new contact for
/// its logbooks makes even a one-row insert copy the pages it changes into a statement
/// journal (see [`statements`]), and a statement of many rows copies each page once for all
/// of them. (One row a statement: 7.0–7.6 s of the service's CPU for the bench's import;
/// 64 rows: 6.0–6.3 s.)
async fn insert_contacts(
    conn: &mut AnyConnection,
    account_id: &str,
    creates: &[Create],
    now: Timestamp,
) -> StoreResult<()> {
    for chunk in chunks(creates) {
        let sql = format!(
            "INSERT INTO contacts (id, account_id, folder_id, callsign, frequency, band, mode, \
             time_on, rst_sent, rst_received, name, notes, sig, sig_info, my_sig, my_sig_info, \
             activation_id, station_callsign, dupe_key, fields, created_at) VALUES {}",
            vec![format!("({})", ["?"; 21].join(", ")); chunk.len()].join(", ")
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.as_str()));
        for create in chunk {
            query = query
                .bind(&create.id)
                .bind(account_id)
                .bind(&create.contact.folder_id);
            query = bind_contact(query, &create.contact).bind(now.millis());
        }
        query.execute(&mut *conn).await?;
    }
    Ok(())
}

/// SQLite: a whole batch, as one job of the writer.
pub(super) async fn sqlite_batch(
    conn: &mut AnyConnection,
    account_id: &str,
    items: &[BatchCreate],
    limits: &Limits,
    now: Timestamp,
) -> StoreResult<Vec<BatchOutcome>> {
    let mut outcomes: Vec<Option<BatchOutcome>> = items.iter().map(|_| None).collect();
    for round in rounds(items) {
        sqlite_round(
            &mut *conn,
            account_id,
            items,
            &round,
            limits,
            now,
            &mut outcomes,
        )
        .await?;
    }
    finish(outcomes)
}

fn finish(outcomes: Vec<Option<BatchOutcome>>) -> StoreResult<Vec<BatchOutcome>> {
    outcomes
        .into_iter()
        .map(|o| o.ok_or_else(|| decode_err("a batch item without an outcome".into()).into()))
        .collect()
}

/// PostgreSQL: the items go to the grouped creates in the batch's order, each round's after
/// the last one's are answered.
pub(super) async fn postgres_batch(
    creates: &Groups<Create>,
    reader: &AnyPool,
    account_id: &str,
    items: &[BatchCreate],
    limits: &Limits,
    now: Timestamp,
) -> StoreResult<Vec<BatchOutcome>> {
    let mut outcomes: Vec<Option<BatchOutcome>> = items.iter().map(|_| None).collect();
    for round in rounds(items) {
        let requests: Vec<Create> = round
            .iter()
            .map(|&i| Create {
                account_id: account_id.to_owned(),
                id: IdKind::Contact.generate(),
                contact: items[i].contact.clone(),
                idem: Some(items[i].idem.clone()),
                limits: *limits,
                now,
            })
            .collect();
        let ids: Vec<String> = requests.iter().map(|r| r.id.clone()).collect();
        let created = creates.run_all(requests).await?;
        let mut live = Vec::new();
        for ((&i, id), created) in round.iter().zip(ids).zip(created) {
            outcomes[i] = match created {
                Created::Stored { duplicate_of } => {
                    Some(Ok(Idem::Fresh(ContactCreated { id, duplicate_of })))
                }
                Created::Refused(limit) => Some(Err(limit.api_error(now))),
                Created::Answered => {
                    live.push(i);
                    None
                }
            };
        }
        if !live.is_empty() {
            let keys: Vec<&str> = live.iter().map(|&i| items[i].idem.key.as_str()).collect();
            let mut conn = reader.acquire().await?;
            let found = answered_keys(&mut conn, true, account_id, &keys, now).await?;
            for &i in &live {
                outcomes[i] = Some(answer_of(&items[i], &found)?);
            }
        }
    }
    finish(outcomes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use svc_model::band::Frequency;

    fn item(key: &str) -> BatchCreate {
        BatchCreate {
            contact: NewContact {
                folder_id: "fld_a".into(),
                callsign: "K1ABC".into(),
                frequency: Frequency {
                    mhz: 14.074,
                    band: "20m",
                },
                mode: "FT8".into(),
                time_on: Timestamp(0),
                rst_sent: None,
                rst_received: None,
                name: None,
                notes: None,
                sig: None,
                sig_info: None,
                my_sig: None,
                my_sig_info: None,
                station_callsign: None,
                activation_id: None,
                fields: Default::default(),
                dupe_key: None,
            },
            idem: IdemRequest {
                key: key.into(),
                fingerprint: [0; 32],
            },
        }
    }

    #[test]
    fn chunks_are_powers_of_two_largest_first() {
        let all: Vec<usize> = (0..500).collect();
        let sizes: Vec<usize> = chunks(&all).iter().map(|c| c.len()).collect();
        assert_eq!(sizes, vec![64, 64, 64, 64, 64, 64, 64, 32, 16, 4]);
        assert_eq!(chunks(&all).concat(), all);
        assert_eq!(chunks(&all[..1]).len(), 1);
        assert!(chunks::<usize>(&[]).is_empty());
    }

    #[test]
    fn a_repeated_key_goes_into_a_later_round() {
        let items: Vec<_> = ["a", "b", "a", "c", "a", "b"].map(item).into();
        assert_eq!(rounds(&items), vec![vec![0, 1, 3], vec![2, 5], vec![4]]);
        assert_eq!(rounds(&items[..1]), vec![vec![0]]);
    }
}
