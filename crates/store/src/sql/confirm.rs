//! Confirmations from QSL services written into the contacts they confirm (`POST
//! /v1/confirmations`). A request's items find their candidates in one statement (by account
//! and time, the `contacts_account_page` index), the model picks each item's contact, and the
//! changed contacts are written in one more, all in one transaction with the rows locked: an
//! edit racing a confirmation waits for it rather than writing over it. Contacts uploaded to a
//! QSL service are marked sent the same way (`POST /v1/confirmations/sent`): read by id in one
//! statement, written in one more.

use std::collections::HashMap;

use svc_model::confirm::{
    Candidate, Confirmation, Confirmed, Sent, apply_lotw, apply_lotw_sent, nearness,
};

use super::*;
use crate::{ConfirmOutcome, SentOutcome};

/// The candidates of every item: contacts of the account with the item's call whose time on
/// lies in its window. `$2` is `[[call, earliest, latest], …]` in the items' order.
const SQLITE_CANDIDATES: &str = "\
    SELECT CAST(q.key AS INTEGER) AS item, c.id, c.band, c.mode, c.time_on, c.station_callsign, \
        c.fields \
    FROM json_each($2) q \
    JOIN contacts c ON c.account_id = $1 \
        AND c.time_on BETWEEN json_extract(q.value, '$[1]') AND json_extract(q.value, '$[2]') \
        AND c.callsign = json_extract(q.value, '$[0]') \
    ORDER BY item, c.seq";

const POSTGRES_CANDIDATES: &str = "\
    SELECT CAST(q.ord - 1 AS BIGINT) AS item, c.id, c.band, c.mode, c.time_on, \
        c.station_callsign, c.fields \
    FROM json_array_elements($2::json) WITH ORDINALITY AS q (value, ord) \
    JOIN contacts c ON c.account_id = $1 \
        AND c.time_on BETWEEN (q.value->>1)::BIGINT AND (q.value->>2)::BIGINT \
        AND c.callsign = q.value->>0 \
    ORDER BY item, c.seq \
    FOR UPDATE OF c";

/// The new `fields` of each changed contact: `$2` is `[[id, fields], …]`.
const SQLITE_WRITE: &str = "\
    UPDATE contacts SET fields = \
        (SELECT json_extract(u.value, '$[1]') FROM json_each($2) u \
         WHERE json_extract(u.value, '$[0]') = contacts.id) \
    WHERE account_id = $1 AND id IN (SELECT json_extract(u.value, '$[0]') FROM json_each($2) u)";

const POSTGRES_WRITE: &str = "\
    UPDATE contacts c SET fields = u.value->>1 \
    FROM json_array_elements($2::json) u \
    WHERE c.account_id = $1 AND c.id = u.value->>0";

/// The contacts of the account among `$2`, `[id, …]`, for marking them sent.
const SQLITE_SENT: &str = "\
    SELECT c.id, c.fields FROM contacts c \
    WHERE c.account_id = $1 AND c.id IN (SELECT value FROM json_each($2))";

const POSTGRES_SENT: &str = "\
    SELECT c.id, c.fields FROM contacts c \
    WHERE c.account_id = $1 AND c.id IN (SELECT json_array_elements_text($2::json)) \
    FOR UPDATE OF c";

/// A stored contact read as a candidate.
struct Stored {
    id: String,
    band: String,
    mode: String,
    time_on: Timestamp,
    station_callsign: Option<String>,
    fields: svc_model::Fields,
}

fn encode(value: &serde_json::Value) -> Result<String, sqlx::Error> {
    serde_json::to_string(value).map_err(|e| sqlx::Error::Encode(e.into()))
}

/// Writes the changed contacts' `fields`, `[(id, fields)]`, in one statement.
async fn write_fields(
    tx: &mut sqlx::AnyConnection,
    postgres: bool,
    account_id: &str,
    writes: Vec<serde_json::Value>,
) -> Result<(), sqlx::Error> {
    if writes.is_empty() {
        return Ok(());
    }
    sqlx::query(if postgres {
        POSTGRES_WRITE
    } else {
        SQLITE_WRITE
    })
    .bind(account_id)
    .bind(encode(&serde_json::Value::Array(writes))?)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

impl SqlStore {
    /// Marks contacts sent to LoTW: one statement reads (and on PostgreSQL locks) them, the
    /// model writes each, one more stores the changed ones, in one transaction. An id twice
    /// answers `already` the second time.
    pub(super) async fn write_sent(
        &self,
        account_id: &str,
        items: Vec<Sent>,
    ) -> StoreResult<Vec<SentOutcome>> {
        let postgres = self.postgres();
        let account_id = account_id.to_owned();
        self.write(move |tx| {
            Box::pin(async move {
                let ids: Vec<serde_json::Value> =
                    items.iter().map(|s| s.qso_id.clone().into()).collect();
                let rows = sqlx::query(if postgres { POSTGRES_SENT } else { SQLITE_SENT })
                    .bind(&account_id)
                    .bind(encode(&serde_json::Value::Array(ids))?)
                    .fetch_all(&mut *tx)
                    .await?;
                let mut stored: HashMap<String, (svc_model::Fields, bool)> = HashMap::new();
                for row in &rows {
                    let fields = fields_of(row.opt_text("fields")?.as_deref())?;
                    stored.insert(row.text("id")?, (fields, false));
                }
                let outcomes = items
                    .iter()
                    .map(|sent| match stored.get_mut(&sent.qso_id) {
                        None => SentOutcome::Missing,
                        Some((fields, changed)) => match apply_lotw_sent(fields, sent) {
                            Confirmed::Changed => {
                                *changed = true;
                                SentOutcome::Sent
                            }
                            Confirmed::Already => SentOutcome::Already,
                        },
                    })
                    .collect();
                let writes = stored
                    .iter()
                    .filter(|(_, (_, changed))| *changed)
                    .map(|(id, (fields, _))| {
                        serde_json::json!([id, super::contacts::fields_json(fields)])
                    })
                    .collect();
                write_fields(&mut *tx, postgres, &account_id, writes).await?;
                Ok(outcomes)
            })
        })
        .await
    }

    pub(super) async fn write_confirmations(
        &self,
        account_id: &str,
        account_callsign: &str,
        items: Vec<Confirmation>,
    ) -> StoreResult<Vec<ConfirmOutcome>> {
        let postgres = self.postgres();
        let (account_id, account_callsign) = (account_id.to_owned(), account_callsign.to_owned());
        self.write(move |tx| {
            Box::pin(async move {
                let wanted: Vec<serde_json::Value> = items
                    .iter()
                    .map(|c| {
                        let (earliest, latest) = c.window();
                        serde_json::json!([c.callsign, earliest, latest])
                    })
                    .collect();
                let rows = sqlx::query(if postgres {
                    POSTGRES_CANDIDATES
                } else {
                    SQLITE_CANDIDATES
                })
                .bind(&account_id)
                .bind(encode(&serde_json::Value::Array(wanted))?)
                .fetch_all(&mut *tx)
                .await?;
                let mut candidates: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
                let mut stored: Vec<Stored> = Vec::new();
                let mut known: HashMap<String, usize> = HashMap::new();
                for row in &rows {
                    let item = usize::try_from(row.int("item")?)
                        .ok()
                        .filter(|i| *i < items.len())
                        .ok_or_else(|| decode_err("a candidate of no item".into()))?;
                    let id = row.text("id")?;
                    let at = match known.get(&id) {
                        Some(at) => *at,
                        None => {
                            stored.push(Stored {
                                id: id.clone(),
                                band: row.text("band")?,
                                mode: row.text("mode")?,
                                time_on: ts(row, "time_on")?,
                                station_callsign: row.opt_text("station_callsign")?,
                                fields: fields_of(row.opt_text("fields")?.as_deref())?,
                            });
                            known.insert(id, stored.len() - 1);
                            stored.len() - 1
                        }
                    };
                    candidates[item].push(at);
                }
                let mut changed = vec![false; stored.len()];
                let mut outcomes = Vec::with_capacity(items.len());
                for (item, confirmation) in items.iter().enumerate() {
                    let best = candidates[item]
                        .iter()
                        .filter_map(|&at| {
                            let s = &stored[at];
                            let candidate = Candidate {
                                band: &s.band,
                                mode: &s.mode,
                                time_on: s.time_on,
                                station_callsign: s
                                    .station_callsign
                                    .as_deref()
                                    .unwrap_or(&account_callsign),
                                fields: &s.fields,
                            };
                            nearness(&candidate, confirmation).map(|n| (n, at))
                        })
                        .min_by_key(|(n, _)| *n)
                        .map(|(_, at)| at);
                    outcomes.push(match best {
                        None => ConfirmOutcome::Unmatched,
                        Some(at) => {
                            let s = &mut stored[at];
                            match apply_lotw(&mut s.fields, confirmation) {
                                Confirmed::Changed => {
                                    changed[at] = true;
                                    ConfirmOutcome::Confirmed(s.id.clone())
                                }
                                Confirmed::Already => ConfirmOutcome::Already(s.id.clone()),
                            }
                        }
                    });
                }
                let writes: Vec<serde_json::Value> = stored
                    .iter()
                    .zip(&changed)
                    .filter(|(_, changed)| **changed)
                    .map(|(s, _)| {
                        serde_json::json!([s.id, super::contacts::fields_json(&s.fields)])
                    })
                    .collect();
                write_fields(&mut *tx, postgres, &account_id, writes).await?;
                Ok(outcomes)
            })
        })
        .await
    }
}
