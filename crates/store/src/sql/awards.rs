//! The awards' read of a whole log: what `svc_model::awards::Entry` holds of every contact of
//! an account, a chunk at a time in the account's page order (its index), or one entry for
//! each group of contacts alike in what the award reads ([`grouped`]). The fields the awards
//! read are columns of their own, generated from the `fields` JSON by the database when a
//! contact is written (migrations sqlite/0020 and postgres/0026), so that a read takes them off
//! the rows rather than taking each contact's JSON apart. On SQLite each chunk is one JSON
//! array, as the contacts pages are (`pages.rs`); on PostgreSQL rows of text.

use std::borrow::Cow;

use futures_util::TryStreamExt;
use serde::Deserialize;
use sqlx::Row;

use super::{SqlStore, decode_err};
use crate::{Position, StoreResult};
use svc_model::Timestamp;
use svc_model::awards::{Award, Entry, Needs, READ, READ_ADIF, READ_BY_EVERY, Reads};
use svc_model::fields::{Field, Fields};

/// Contacts read at a time: the memory holds one chunk and the award, never the log. A
/// SQLite chunk is one text of about 100 bytes a contact: at 1,000 it stays under the size
/// glibc maps and unmaps for each allocation, which cost a tenth of a whole log's read in page
/// faults at 10,000.
const CHUNK: i64 = 1_000;

/// The column each field of [`READ`] and then [`READ_ADIF`] is stored in, in their order.
const COLUMNS: [&str; VALUES] = [
    "award_dxcc",
    "award_state",
    "award_cqz",
    "award_grid",
    "award_prop_mode",
    "award_lotw_qsl_rcvd",
    "award_eqsl_qsl_rcvd",
    "award_qsl_rcvd",
    "award_qrz_status",
];

/// What a chunk reads of a contact: its columns, then [`COLUMNS`].
const CONTACT: &str = "time_on, seq, callsign, band, mode, sig, sig_info, my_sig, my_sig_info";

/// The account's (`$1`) contacts before the position (`$2`, `$3`) in page order, at most `$4`,
/// and of those only the ones that carry what the award `needs`.
fn chunk_of(select: &str, needs: Option<Needs>) -> String {
    format!(
        "SELECT {select} FROM contacts WHERE account_id = $1 {} \
           AND time_on <= $2 AND (time_on < $2 OR seq < $3) \
         ORDER BY time_on DESC, seq DESC LIMIT $4",
        carrying(needs)
    )
}

/// The condition that keeps the contacts that carry what an award `needs`.
fn carrying(needs: Option<Needs>) -> &'static str {
    match needs {
        None => "",
        Some(Needs::State) => "AND award_state IS NOT NULL",
        Some(Needs::Grid) => "AND award_grid IS NOT NULL",
        Some(Needs::Park) => "AND sig_info IS NOT NULL",
        Some(Needs::OwnPark) => "AND my_sig_info IS NOT NULL",
    }
}

/// The statement that reads the account's (`$1`) contacts that carry what an award `needs`,
/// one row for all the contacts alike in what it `reads` ([`Entry::read_by`]): the row of a
/// chunk's contact, with what the award does not read NULL (the time 0), the database
/// grouping them. A log of 100,000 contacts is a few thousand such rows for most awards.
fn grouped(reads: &Reads, needs: Option<Needs>) -> String {
    const NONE: &str = "CAST(NULL AS TEXT)";
    let column = |field: &Field| {
        COLUMNS[READ
            .iter()
            .position(|f| f == field)
            .expect("an award reads fields of READ")]
    };
    let call = reads
        .call_without
        .map(|field| format!("CASE WHEN {} IS NULL THEN callsign END", column(&field)));
    let park = |name: &'static str| Some(name).filter(|_| reads.parks);
    // Each read value, or None for a NULL.
    let read: Vec<Option<String>> = [call, Some("band".into()), Some("mode".into())]
        .into_iter()
        .chain([park("sig"), park("sig_info")].map(|p| p.map(str::to_owned)))
        .chain([None, None])
        .chain(READ.iter().map(|field| {
            (reads.fields.contains(field) || READ_BY_EVERY.contains(field))
                .then(|| column(field).to_owned())
        }))
        .chain(COLUMNS[READ.len()..].iter().map(|c| Some((*c).to_owned())))
        .collect();
    // Named, for SQLite's one JSON array of them (`sqlite_grouped`).
    let select: Vec<String> = read
        .iter()
        .enumerate()
        .map(|(at, r)| format!("{} AS c{}", r.as_deref().unwrap_or(NONE), at + 2))
        .collect();
    // By position: the first two are the time and seq, 0 for every group.
    let by: Vec<String> = read
        .iter()
        .enumerate()
        .filter(|(_, r)| r.is_some())
        .map(|(at, _)| (at + 3).to_string())
        .collect();
    format!(
        "SELECT CAST(0 AS BIGINT) AS c0, CAST(0 AS BIGINT) AS c1, {} FROM contacts \
         WHERE account_id = $1 {} GROUP BY {}",
        select.join(", "),
        carrying(needs),
        by.join(", ")
    )
}

/// [`grouped`] on SQLite: one JSON array of the groups' arrays, as a chunk is.
fn sqlite_grouped(reads: &Reads, needs: Option<Needs>) -> String {
    let columns: Vec<String> = (0..9 + VALUES).map(|c| format!("c{c}")).collect();
    format!(
        "SELECT json_group_array(json_array({})) FROM ({}) grouped",
        columns.join(", "),
        grouped(reads, needs)
    )
}

/// A chunk's statement on SQLite: one JSON array of the contacts' arrays.
fn sqlite_chunk(needs: Option<Needs>) -> String {
    let read = format!("{CONTACT}, {}", COLUMNS.join(", "));
    format!(
        "SELECT json_group_array(json_array({read})) FROM ({}) page",
        chunk_of(&read, needs)
    )
}

/// A chunk's statement on PostgreSQL: a row a contact.
fn postgres_chunk(needs: Option<Needs>) -> String {
    chunk_of(&format!("{CONTACT}, {}", COLUMNS.join(", ")), needs)
}

/// Values after the columns: one a field of [`READ`] and [`READ_ADIF`].
const VALUES: usize = READ.len() + READ_ADIF.len();

/// One contact of a SQLite chunk, its values in the statement's order (a flat array, which
/// serde reads into the fields in order); the values borrowed from the chunk's text where
/// they hold no escape, since most contacts' are read only to be looked at once.
#[derive(Deserialize)]
struct ChunkEntry<'a> {
    time_on: i64,
    seq: i64,
    /// `None` in a group that does not read it.
    callsign: Option<String>,
    band: String,
    mode: String,
    sig: Option<String>,
    sig_info: Option<String>,
    my_sig: Option<String>,
    my_sig_info: Option<String>,
    #[serde(borrow)]
    f0: Option<Cow<'a, str>>,
    #[serde(borrow)]
    f1: Option<Cow<'a, str>>,
    #[serde(borrow)]
    f2: Option<Cow<'a, str>>,
    #[serde(borrow)]
    f3: Option<Cow<'a, str>>,
    #[serde(borrow)]
    f4: Option<Cow<'a, str>>,
    #[serde(borrow)]
    f5: Option<Cow<'a, str>>,
    #[serde(borrow)]
    f6: Option<Cow<'a, str>>,
    #[serde(borrow)]
    f7: Option<Cow<'a, str>>,
    #[serde(borrow)]
    f8: Option<Cow<'a, str>>,
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
    values: &[Option<&str>; VALUES],
) -> Entry {
    let (read, adif) = values.split_at(READ.len());
    let mut fields = Fields::of_values(
        READ.iter()
            .zip(read)
            .filter_map(|(field, value): (&Field, _)| Some((*field, (*value)?))),
    );
    for (name, value) in READ_ADIF.iter().zip(adif) {
        if let Some(value) = value {
            fields.adif.insert((*name).to_owned(), (*value).to_owned());
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

/// Hands `each` the entry of each contact (or group) of a SQLite JSON array of them; gives
/// each one's position in page order.
fn hand_out(text: &str, each: &mut (dyn FnMut(Entry) + Send)) -> StoreResult<Vec<(i64, i64)>> {
    let rows: Vec<ChunkEntry> =
        serde_json::from_str(text).map_err(|e| decode_err(format!("an awards chunk: {e}")))?;
    let mut positions = Vec::with_capacity(rows.len());
    for row in rows {
        positions.push((row.time_on, row.seq));
        let values = [
            &row.f0, &row.f1, &row.f2, &row.f3, &row.f4, &row.f5, &row.f6, &row.f7, &row.f8,
        ]
        .map(|v| v.as_deref());
        each(entry(
            row.time_on,
            row.callsign.unwrap_or_default(),
            row.band,
            row.mode,
            row.sig,
            row.sig_info,
            row.my_sig,
            row.my_sig_info,
            &values,
        ));
    }
    Ok(positions)
}

/// The entry of a PostgreSQL row of a chunk or of [`grouped`], which have the same shape.
fn row_entry(row: &sqlx::any::AnyRow) -> StoreResult<Entry> {
    let mut values: [Option<&str>; VALUES] = Default::default();
    for (i, value) in values.iter_mut().enumerate() {
        *value = row.try_get(9 + i)?;
    }
    Ok(entry(
        row.try_get(0)?,
        // NULL in a group that does not read it.
        row.try_get::<Option<String>, _>(2)?.unwrap_or_default(),
        row.try_get(3)?,
        row.try_get(4)?,
        row.try_get(5)?,
        row.try_get(6)?,
        row.try_get(7)?,
        row.try_get(8)?,
        &values,
    ))
}

impl SqlStore {
    pub(super) async fn award_entries(
        &self,
        account_id: &str,
        award: Award,
        each: &mut (dyn FnMut(Entry) + Send),
    ) -> StoreResult<()> {
        let needs = award.needs();
        // PostgreSQL groups by hashing, whatever the values. SQLite sorts, so it groups only
        // by few values (entities, states, zones): grids and parks have nearly as many as a
        // log has contacts, and grouping by them cost a sort to save few rows (VUCC went from
        // 0.4 to 0.7 s, the hunter's from 0.2 to 0.4 s, on a 100,000-contact log).
        let reads = award
            .reads()
            .filter(|r| self.postgres() || (!r.parks && !r.fields.contains(&Field::Gridsquare)));
        if let (Some(reads), Some(pages)) = (reads, &self.pages) {
            let all: String =
                sqlx::query_scalar(sqlx::AssertSqlSafe(sqlite_grouped(&reads, needs)))
                    .bind(account_id)
                    .fetch_one(pages)
                    .await?;
            hand_out(&all, each)?;
            return Ok(());
        }
        if let Some(reads) = reads {
            let sql = grouped(&reads, needs);
            let mut rows = sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                .bind(account_id)
                .fetch(&self.reader);
            while let Some(row) = rows.try_next().await? {
                each(row_entry(&row)?);
            }
            return Ok(());
        }
        let sql = match self.pages {
            Some(_) => sqlite_chunk(needs),
            None => postgres_chunk(needs),
        };
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
                    let chunk: String = sqlx::query_scalar(sqlx::AssertSqlSafe(sql.as_str()))
                        .bind(account_id)
                        .bind(after.sort)
                        .bind(after.seq)
                        .bind(CHUNK)
                        .fetch_one(pages)
                        .await?;
                    for (time_on, seq) in hand_out(&chunk, each)? {
                        read += 1;
                        last = last.min((time_on, seq));
                    }
                }
                None => {
                    let rows = sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
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
                        each(row_entry(&row)?);
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

    /// Each migration generates each column of [`COLUMNS`] from the field of [`READ`] (then
    /// [`READ_ADIF`]) in the same place, as [`entry`] takes them.
    #[test]
    fn the_columns_hold_what_the_awards_read_in_order() {
        let wires: Vec<String> = READ
            .iter()
            .map(|f| f.def().wire.to_owned())
            .chain(READ_ADIF.iter().map(|name| (*name).to_owned()))
            .collect();
        let sqlite = include_str!("../../migrations/sqlite/0020_award_columns.sql");
        let postgres = include_str!("../../migrations/postgres/0026_award_columns.sql");
        for (column, wire) in COLUMNS.iter().zip(&wires) {
            let adif = READ_ADIF.contains(&wire.as_str());
            for (sql, needle) in [
                (
                    sqlite,
                    if adif {
                        format!("'$.adif.{wire}'")
                    } else {
                        format!("'$.{wire}'")
                    },
                ),
                (
                    postgres,
                    if adif {
                        format!("-> 'adif' ->> '{wire}'")
                    } else {
                        format!("->> '{wire}'")
                    },
                ),
            ] {
                let at = sql
                    .find(&format!(" {column} TEXT"))
                    .unwrap_or_else(|| panic!("{column} in {sql}"));
                let generated = &sql[at..at + sql[at..].find("STORED").unwrap()];
                assert!(generated.contains(&needle), "{needle} in {generated}");
            }
        }
    }
}
