//! The awards' read of a whole log: what `svc_model::awards::Entry` holds of every contact of
//! an account, a chunk at a time in the account's page order (its index), the fields the
//! awards read taken out of the `fields` JSON by the database rather than whole contacts
//! decoded. On SQLite each chunk is one JSON array, as the contacts pages are (`pages.rs`);
//! on PostgreSQL rows of text.

use serde::Deserialize;
use sqlx::Row;

use super::{SqlStore, decode_err};
use crate::{Position, StoreResult};
use svc_model::Timestamp;
use svc_model::awards::{Entry, READ, READ_ADIF};
use svc_model::fields::{Field, Fields};

/// Contacts read at a time: the memory holds one chunk and the award, never the log.
const CHUNK: i64 = 10_000;

/// The fields' values in the order both statements give them after the columns: [`READ`]'s,
/// then [`READ_ADIF`]'s.
const SQLITE_CHUNK: &str = "\
SELECT json_group_array(json_array(time_on, seq, callsign, band, mode, sig, sig_info, my_sig, \
       my_sig_info, \
       CAST(fields ->> '$.dxcc' AS TEXT), CAST(fields ->> '$.state' AS TEXT), \
       CAST(fields ->> '$.cqz' AS TEXT), CAST(fields ->> '$.gridsquare' AS TEXT), \
       CAST(fields ->> '$.propMode' AS TEXT), CAST(fields ->> '$.lotwQslRcvd' AS TEXT), \
       CAST(fields ->> '$.eqslQslRcvd' AS TEXT), CAST(fields ->> '$.qslRcvd' AS TEXT), \
       CAST(fields ->> '$.adif.APP_QRZLOG_STATUS' AS TEXT))) \
FROM (SELECT time_on, seq, callsign, band, mode, sig, sig_info, my_sig, my_sig_info, fields \
      FROM contacts WHERE account_id = $1 \
        AND (time_on < $2 OR (time_on = $2 AND seq < $3)) \
      ORDER BY time_on DESC, seq DESC LIMIT $4)";

const POSTGRES_CHUNK: &str = "\
SELECT time_on, seq, callsign, band, mode, sig, sig_info, my_sig, my_sig_info, \
       f ->> 'dxcc' AS f0, f ->> 'state' AS f1, f ->> 'cqz' AS f2, f ->> 'gridsquare' AS f3, \
       f ->> 'propMode' AS f4, f ->> 'lotwQslRcvd' AS f5, f ->> 'eqslQslRcvd' AS f6, \
       f ->> 'qslRcvd' AS f7, f -> 'adif' ->> 'APP_QRZLOG_STATUS' AS f8 \
FROM (SELECT time_on, seq, callsign, band, mode, sig, sig_info, my_sig, my_sig_info, \
             fields::jsonb AS f \
      FROM contacts WHERE account_id = $1 \
        AND (time_on < $2 OR (time_on = $2 AND seq < $3)) \
      ORDER BY time_on DESC, seq DESC LIMIT $4) page";

/// Values after the columns: one a field of [`READ`] and [`READ_ADIF`].
const VALUES: usize = READ.len() + READ_ADIF.len();

/// One contact of a SQLite chunk, its values in the statement's order (a flat array, which
/// serde reads into the fields in order).
#[derive(Deserialize)]
struct ChunkEntry {
    time_on: i64,
    seq: i64,
    callsign: String,
    band: String,
    mode: String,
    sig: Option<String>,
    sig_info: Option<String>,
    my_sig: Option<String>,
    my_sig_info: Option<String>,
    f0: Option<String>,
    f1: Option<String>,
    f2: Option<String>,
    f3: Option<String>,
    f4: Option<String>,
    f5: Option<String>,
    f6: Option<String>,
    f7: Option<String>,
    f8: Option<String>,
}

/// The entry of a contact's columns and its values of [`READ`] and [`READ_ADIF`].
#[allow(clippy::too_many_arguments)]
fn entry(
    time_on: i64,
    callsign: String,
    band: String,
    mode: String,
    sig: Option<String>,
    sig_info: Option<String>,
    my_sig: Option<String>,
    my_sig_info: Option<String>,
    values: &[Option<String>; VALUES],
) -> Entry {
    let (read, adif) = values.split_at(READ.len());
    let mut fields = Fields::of_values(
        READ.iter()
            .zip(read)
            .filter_map(|(field, value): (&Field, _)| Some((*field, value.as_deref()?))),
    );
    for (name, value) in READ_ADIF.iter().zip(adif) {
        if let Some(value) = value {
            fields.adif.insert((*name).to_owned(), value.clone());
        }
    }
    Entry {
        callsign,
        band,
        mode,
        time_on: Timestamp(time_on),
        sig,
        sig_info,
        my_sig,
        my_sig_info,
        fields,
    }
}

impl SqlStore {
    pub(super) async fn award_entries(
        &self,
        account_id: &str,
        each: &mut (dyn FnMut(Entry) + Send),
    ) -> StoreResult<()> {
        let mut after = Position {
            sort: i64::MAX,
            seq: i64::MAX,
        };
        loop {
            let mut read = 0;
            // The chunk's last position in page order: the least (time_on, seq) it held.
            let mut last = (after.sort, after.seq);
            match &self.pages {
                Some(pages) => {
                    let chunk: String = sqlx::query_scalar(SQLITE_CHUNK)
                        .bind(account_id)
                        .bind(after.sort)
                        .bind(after.seq)
                        .bind(CHUNK)
                        .fetch_one(pages)
                        .await?;
                    let rows: Vec<ChunkEntry> = serde_json::from_str(&chunk)
                        .map_err(|e| decode_err(format!("an awards chunk: {e}")))?;
                    for row in rows {
                        read += 1;
                        last = last.min((row.time_on, row.seq));
                        let values = [
                            row.f0, row.f1, row.f2, row.f3, row.f4, row.f5, row.f6, row.f7, row.f8,
                        ];
                        each(entry(
                            row.time_on,
                            row.callsign,
                            row.band,
                            row.mode,
                            row.sig,
                            row.sig_info,
                            row.my_sig,
                            row.my_sig_info,
                            &values,
                        ));
                    }
                }
                None => {
                    let rows = sqlx::query(POSTGRES_CHUNK)
                        .bind(account_id)
                        .bind(after.sort)
                        .bind(after.seq)
                        .bind(CHUNK)
                        .fetch_all(&self.reader)
                        .await?;
                    for row in rows {
                        read += 1;
                        let (time_on, seq): (i64, i64) = (row.try_get(0)?, row.try_get(1)?);
                        last = last.min((time_on, seq));
                        let mut values: [Option<String>; VALUES] = Default::default();
                        for (i, value) in values.iter_mut().enumerate() {
                            *value = row.try_get(9 + i)?;
                        }
                        each(entry(
                            time_on,
                            row.try_get(2)?,
                            row.try_get(3)?,
                            row.try_get(4)?,
                            row.try_get(5)?,
                            row.try_get(6)?,
                            row.try_get(7)?,
                            row.try_get(8)?,
                            &values,
                        ));
                    }
                }
            }
            if read < CHUNK {
                return Ok(());
            }
            after = Position {
                sort: last.0,
                seq: last.1,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each statement reads every field the awards read, in [`READ`]'s order then
    /// [`READ_ADIF`]'s, as [`entry`] takes them.
    #[test]
    fn both_statements_read_what_the_awards_read_in_order() {
        let wires: Vec<String> = READ
            .iter()
            .map(|f| f.def().wire.to_owned())
            .chain(READ_ADIF.iter().map(|name| (*name).to_owned()))
            .collect();
        for (sql, pattern) in [(SQLITE_CHUNK, "'$.{}'"), (POSTGRES_CHUNK, "'{}'")] {
            let mut at = 0;
            for wire in &wires {
                let adif = READ_ADIF.contains(&wire.as_str());
                let needle = if adif {
                    wire.clone()
                } else {
                    pattern.replace("{}", wire)
                };
                let found = sql[at..]
                    .find(&needle)
                    .unwrap_or_else(|| panic!("{needle} after byte {at} of {sql}"));
                at += found + needle.len();
            }
        }
    }
}
