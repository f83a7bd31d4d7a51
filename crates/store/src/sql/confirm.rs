//! Confirmations from QSL services written into the contacts they confirm (`POST
//! /v1/confirmations`). A request's items find their candidates by account and time (the
//! `contacts_account_page` index), the model picks each item's contact, and the changed
//! contacts are written, all in one transaction with the rows locked: an edit racing a
//! confirmation waits for it rather than writing over it. Contacts uploaded to a QSL service
//! are marked sent the same way (`POST /v1/confirmations/sent`), read by id. PostgreSQL is
//! asked once for all the items and written once; SQLite, in the process, once an item: a
//! statement over a JSON list of items left its planner free to scan the account per item.

use std::collections::HashMap;
use std::sync::LazyLock;

use svc_model::confirm::{
    Candidate, Confirmation, ConfirmationStatus, Confirmed, LOTW_RECEIVED_FIELD, LOTW_SENT_FIELD,
    QrzStatus, QslService, SERVICES, Sent, ServiceStatus, apply, apply_lotw_sent, nearness,
};

use super::*;
use crate::{ConfirmOutcome, SentOutcome};

/// The candidates of one item on SQLite: contacts of the account with its call whose time on
/// lies in its window, found by `contacts_account_page`. SQLite runs in the process, so one
/// statement an item costs microseconds; a statement over a JSON list of items left its planner
/// free to scan the account once per item.
const SQLITE_CANDIDATES: &str = "\
    SELECT id, band, mode, time_on, station_callsign, fields FROM contacts \
    WHERE account_id = $1 AND time_on BETWEEN $2 AND $3 AND callsign = $4 \
    ORDER BY seq";

const SQLITE_WRITE: &str = "UPDATE contacts SET fields = $3 WHERE id = $1 AND account_id = $2";

/// The candidates of every item on PostgreSQL, in one round trip: `$2` is `[[call, earliest,
/// latest], …]` in the items' order. Each item's contacts are found by the index and locked
/// (the lateral join keeps the planner from hashing the whole account instead).
const POSTGRES_CANDIDATES: &str = "\
    SELECT CAST(q.ord - 1 AS BIGINT) AS item, c.id, c.band, c.mode, c.time_on, \
        c.station_callsign, c.fields \
    FROM json_array_elements($2::json) WITH ORDINALITY AS q (value, ord) \
    CROSS JOIN LATERAL ( \
        SELECT id, band, mode, time_on, station_callsign, fields, seq FROM contacts \
        WHERE account_id = $1 \
        AND time_on BETWEEN (q.value->>1)::BIGINT AND (q.value->>2)::BIGINT \
        AND callsign = q.value->>0 \
        FOR UPDATE) c \
    ORDER BY item, c.seq";

/// The new `fields` of each changed contact: `$2` is `[[id, fields], …]`.
const POSTGRES_WRITE: &str = "\
    UPDATE contacts c SET fields = u.value->>1 \
    FROM json_array_elements($2::json) u \
    WHERE c.account_id = $1 AND c.id = u.value->>0";

/// Counts the account's contacts by each QSL service's sent and received fields, read out
/// of the `fields` JSON: `field` is how the backend reads a field by its wire name, `adif` an
/// entry of the contact's `adif` map by its name. Columns `contacts`, then `{service}_sent`,
/// `_ignored` and `_confirmed` for each of [`SERVICES`], then `lotw_received`: what LoTW
/// said it received ([`LOTW_RECEIVED_FIELD`]) or confirmed, and `lotw_waiting`: what svc
/// uploaded ([`LOTW_SENT_FIELD`]) and LoTW did not say either of yet.
fn status_sql(field: fn(&str) -> String, adif: fn(&str) -> String) -> String {
    let mut sql = String::from("SELECT COUNT(*) AS contacts");
    for (service, sent, rcvd) in SERVICES {
        let (sent, rcvd) = (field(sent.def().wire), field(rcvd.def().wire));
        sql.push_str(&format!(
            ", COALESCE(SUM(CASE WHEN {sent} = 'Y' THEN 1 ELSE 0 END), 0) AS {service}_sent\
             , COALESCE(SUM(CASE WHEN {sent} = 'I' THEN 1 ELSE 0 END), 0) AS {service}_ignored\
             , COALESCE(SUM(CASE WHEN {rcvd} = 'Y' THEN 1 ELSE 0 END), 0) AS {service}_confirmed"
        ));
    }
    let (received, confirmed, uploaded) = (
        adif(LOTW_RECEIVED_FIELD),
        field(svc_model::fields::Field::LotwQslRcvd.def().wire),
        adif(LOTW_SENT_FIELD),
    );
    sql.push_str(&format!(
        ", COALESCE(SUM(CASE WHEN {received} IS NOT NULL OR {confirmed} = 'Y' THEN 1 ELSE 0 END), 0) AS lotw_received\
         , COALESCE(SUM(CASE WHEN {uploaded} IS NOT NULL AND {received} IS NULL \
             AND COALESCE({confirmed}, '') <> 'Y' THEN 1 ELSE 0 END), 0) AS lotw_waiting"
    ));
    sql.push_str(" FROM contacts WHERE account_id = $1");
    sql
}

static SQLITE_STATUS: LazyLock<String> = LazyLock::new(|| {
    status_sql(
        |wire| format!("json_extract(fields, '$.{wire}')"),
        |name| format!("json_extract(fields, '$.adif.{name}')"),
    )
});
static POSTGRES_STATUS: LazyLock<String> = LazyLock::new(|| {
    status_sql(
        |wire| format!("(fields::json ->> '{wire}')"),
        |name| format!("(fields::json -> 'adif' ->> '{name}')"),
    )
});

/// A contact of the account, by id, for marking it sent.
const SQLITE_SENT: &str = "SELECT id, fields FROM contacts WHERE id = $2 AND account_id = $1";

/// The contacts of the account among `$2`, `[id, …]`, for marking them sent.
const POSTGRES_SENT: &str = "\
    SELECT c.id, c.fields FROM contacts c \
    WHERE c.account_id = $1 AND c.id IN (SELECT json_array_elements_text($2::json)) \
    FOR UPDATE OF c";

/// The contact of the account whose copy in a book has a log id: `$1` the book, `$2` the log
/// id, `$3` the account.
const SQLITE_COPY: &str = "\
    SELECT c.id, c.fields FROM external_copies x JOIN contacts c ON c.id = x.contact_id \
    WHERE x.logbook_id = $1 AND x.log_id = $2 AND c.account_id = $3";

/// As [`SQLITE_COPY`], the contact locked until the status is written.
const POSTGRES_COPY: &str = "\
    SELECT c.id, c.fields FROM external_copies x JOIN contacts c ON c.id = x.contact_id \
    WHERE x.logbook_id = $1 AND x.log_id = $2 AND c.account_id = $3 \
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

/// Writes the changed contacts' `fields`, `(id, fields)`: on PostgreSQL in one statement, on
/// SQLite one an id.
async fn write_fields(
    tx: &mut sqlx::AnyConnection,
    postgres: bool,
    account_id: &str,
    writes: Vec<(String, Option<String>)>,
) -> Result<(), sqlx::Error> {
    if writes.is_empty() {
        return Ok(());
    }
    if postgres {
        let writes: Vec<serde_json::Value> = writes
            .into_iter()
            .map(|(id, fields)| serde_json::json!([id, fields]))
            .collect();
        sqlx::query(POSTGRES_WRITE)
            .bind(account_id)
            .bind(encode(&serde_json::Value::Array(writes))?)
            .execute(&mut *tx)
            .await?;
    } else {
        for (id, fields) in writes {
            sqlx::query(SQLITE_WRITE)
                .bind(id)
                .bind(account_id)
                .bind(fields)
                .execute(&mut *tx)
                .await?;
        }
    }
    Ok(())
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
                received: match *service {
                    "lotw" => Some(row.int("lotw_received")?),
                    _ => None,
                },
                waiting: match *service {
                    "lotw" => Some(row.int("lotw_waiting")?),
                    _ => None,
                },
                confirmed: count("confirmed")?,
                ignored,
                unsent: contacts - sent - ignored,
            });
        }
        Ok(ConfirmationStatus { contacts, services })
    }

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
                let rows = if postgres {
                    let ids: Vec<serde_json::Value> =
                        items.iter().map(|s| s.qso_id.clone().into()).collect();
                    sqlx::query(POSTGRES_SENT)
                        .bind(&account_id)
                        .bind(encode(&serde_json::Value::Array(ids))?)
                        .fetch_all(&mut *tx)
                        .await?
                } else {
                    let mut rows = Vec::with_capacity(items.len());
                    for sent in &items {
                        rows.extend(
                            sqlx::query(SQLITE_SENT)
                                .bind(&account_id)
                                .bind(&sent.qso_id)
                                .fetch_optional(&mut *tx)
                                .await?,
                        );
                    }
                    rows
                };
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
                            Confirmed::Changed | Confirmed::Received => {
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
                    .map(|(id, (fields, _))| (id.clone(), super::contacts::fields_json(fields)))
                    .collect();
                write_fields(&mut *tx, postgres, &account_id, writes).await?;
                Ok(outcomes)
            })
        })
        .await
    }

    /// Writes QRZ's status of a page of the book's records into the contacts whose copies
    /// they are: a statement a record (a page is at most a hundred), each contact written only
    /// when its status changed, and the mark moved, in one transaction.
    pub(super) async fn write_book_statuses(
        &self,
        job: &ImportJob,
        statuses: &[(String, QrzStatus)],
        since: Option<&str>,
    ) -> StoreResult<u64> {
        let postgres = self.postgres();
        let sql = if postgres { POSTGRES_COPY } else { SQLITE_COPY };
        let (job, statuses) = (job.clone(), statuses.to_vec());
        let since = since.map(str::to_owned);
        self.write(move |tx| {
            Box::pin(async move {
                let mut writes = Vec::new();
                for (log_id, status) in &statuses {
                    let row = sqlx::query(sql)
                        .bind(&job.logbook_id)
                        .bind(log_id)
                        .bind(&job.account_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                    let Some(row) = row else { continue };
                    let mut fields = fields_of(row.opt_text("fields")?.as_deref())?;
                    if status.apply(&mut fields) == Confirmed::Changed {
                        writes.push((row.text("id")?, super::contacts::fields_json(&fields)));
                    }
                }
                let changed = writes.len() as u64;
                write_fields(&mut *tx, postgres, &job.account_id, writes).await?;
                if let Some(since) = &since {
                    sqlx::query("UPDATE logbooks SET status_since = $2 WHERE id = $1")
                        .bind(&job.logbook_id)
                        .bind(since)
                        .execute(&mut *tx)
                        .await?;
                }
                Ok(changed)
            })
        })
        .await
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
                // Each item's candidates, by index into `stored`, where a contact that is a
                // candidate of several items is read once.
                let mut candidates: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
                let mut stored: Vec<Stored> = Vec::new();
                let mut known: HashMap<String, usize> = HashMap::new();
                let mut take = |item: usize, row: &AnyRow| -> Result<(), sqlx::Error> {
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
                    Ok(())
                };
                if postgres {
                    let wanted: Vec<serde_json::Value> = items
                        .iter()
                        .map(|c| {
                            let (earliest, latest) = c.window();
                            serde_json::json!([c.callsign, earliest, latest])
                        })
                        .collect();
                    let rows = sqlx::query(POSTGRES_CANDIDATES)
                        .bind(&account_id)
                        .bind(encode(&serde_json::Value::Array(wanted))?)
                        .fetch_all(&mut *tx)
                        .await?;
                    for row in &rows {
                        let item = usize::try_from(row.int("item")?)
                            .ok()
                            .filter(|i| *i < items.len())
                            .ok_or_else(|| decode_err("a candidate of no item".into()))?;
                        take(item, row)?;
                    }
                } else {
                    for (item, c) in items.iter().enumerate() {
                        let (earliest, latest) = c.window();
                        let rows = sqlx::query(SQLITE_CANDIDATES)
                            .bind(&account_id)
                            .bind(earliest)
                            .bind(latest)
                            .bind(&c.callsign)
                            .fetch_all(&mut *tx)
                            .await?;
                        for row in &rows {
                            take(item, row)?;
                        }
                    }
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
                                Confirmed::Received => {
                                    changed[at] = true;
                                    ConfirmOutcome::Received(s.id.clone())
                                }
                                Confirmed::Already => ConfirmOutcome::Already(s.id.clone()),
                            }
                        }
                    });
                }
                let writes = stored
                    .iter()
                    .zip(&changed)
                    .filter(|(_, changed)| **changed)
                    .map(|(s, _)| (s.id.clone(), super::contacts::fields_json(&s.fields)))
                    .collect();
                write_fields(&mut *tx, postgres, &account_id, writes).await?;
                Ok(outcomes)
            })
        })
        .await
    }
}
