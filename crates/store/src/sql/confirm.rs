//! Confirmations from QSL services written into the contacts they confirm (`POST
//! /v1/confirmations`). A request's items find their candidates in one statement (by account
//! and time, the `contacts_account_page` index), the model picks each item's contact, and the
//! changed contacts are written in one more, all in one transaction with the rows locked: an
//! edit racing a confirmation waits for it rather than writing over it.

use std::collections::HashMap;

use std::sync::LazyLock;

use svc_model::confirm::{
    Candidate, Confirmation, ConfirmationStatus, Confirmed, QslService, SERVICES, ServiceStatus,
    apply, nearness,
};

use super::*;
use crate::ConfirmOutcome;

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

/// Counts the account's contacts by each QSL service's sent and received fields, read out
/// of the `fields` JSON: `{0}` is how the backend reads a field by its wire name. Columns
/// `contacts`, then `{service}_sent`, `_ignored` and `_confirmed` for each of [`SERVICES`].
fn status_sql(field: fn(&str) -> String) -> String {
    let mut sql = String::from("SELECT COUNT(*) AS contacts");
    for (service, sent, rcvd) in SERVICES {
        let (sent, rcvd) = (field(sent.def().wire), field(rcvd.def().wire));
        sql.push_str(&format!(
            ", COALESCE(SUM(CASE WHEN {sent} = 'Y' THEN 1 ELSE 0 END), 0) AS {service}_sent\
             , COALESCE(SUM(CASE WHEN {sent} = 'I' THEN 1 ELSE 0 END), 0) AS {service}_ignored\
             , COALESCE(SUM(CASE WHEN {rcvd} = 'Y' THEN 1 ELSE 0 END), 0) AS {service}_confirmed"
        ));
    }
    sql.push_str(" FROM contacts WHERE account_id = $1");
    sql
}

static SQLITE_STATUS: LazyLock<String> =
    LazyLock::new(|| status_sql(|wire| format!("json_extract(fields, '$.{wire}')")));
static POSTGRES_STATUS: LazyLock<String> =
    LazyLock::new(|| status_sql(|wire| format!("(fields::json ->> '{wire}')")));

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

impl SqlStore {
    pub(super) async fn read_confirmation_status(
        &self,
        account_id: &str,
    ) -> StoreResult<ConfirmationStatus> {
        let sql = if self.postgres() {
            POSTGRES_STATUS.as_str()
        } else {
            SQLITE_STATUS.as_str()
        };
        let row = sqlx::query(sql)
            .bind(account_id)
            .fetch_one(&self.reader)
            .await?;
        let contacts = row.int("contacts")?;
        let mut services = Vec::with_capacity(SERVICES.len());
        for (service, _, _) in SERVICES {
            let count = |what: &str| row.int(&format!("{service}_{what}"));
            let (sent, ignored) = (count("sent")?, count("ignored")?);
            services.push(ServiceStatus {
                service: (*service).to_owned(),
                sent,
                confirmed: count("confirmed")?,
                ignored,
                unsent: contacts - sent - ignored,
            });
        }
        Ok(ConfirmationStatus { contacts, services })
    }

    pub(super) async fn write_confirmations(
        &self,
        account_id: &str,
        account_callsign: &str,
        items: Vec<Confirmation>,
        service: QslService,
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
                            match apply(service, &mut s.fields, confirmation) {
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
                if !writes.is_empty() {
                    sqlx::query(if postgres {
                        POSTGRES_WRITE
                    } else {
                        SQLITE_WRITE
                    })
                    .bind(&account_id)
                    .bind(encode(&serde_json::Value::Array(writes))?)
                    .execute(&mut *tx)
                    .await?;
                }
                Ok(outcomes)
            })
        })
        .await
    }
}
