//! The awards' read of a whole log: what `svc_model::awards::Entry` holds of every contact of
//! an account, a chunk at a time in the account's page order (its index), or one entry for
//! each group of contacts alike in what the award reads ([`grouped`]). The fields the awards
//! read are columns of their own, generated from the `fields` JSON by the database when a
//! contact is written (migrations sqlite/0020 and postgres/0026), so that a read takes them off
//! the rows rather than taking each contact's JSON apart. Each chunk, and the groups, come as
//! one JSON array the database writes ([`as_json`]), as SQLite's contacts pages do (`pages.rs`).

use std::borrow::Cow;

use serde::Deserialize;

use super::{SqlStore, decode_err};
use crate::StoreResult;
use svc_model::Timestamp;
use svc_model::awards::{
    Award, Entry, Needs, READ, READ_ADIF, READ_BY_EVERY, Reads, SAT, vucc_bands,
};
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
fn carrying(needs: Option<Needs>) -> String {
    match needs {
        None => String::new(),
        Some(Needs::State) => "AND award_state IS NOT NULL".into(),
        // A contact's band is stored as ADIF names it (the band of its frequency); the
        // propagation mode as it came, which the model reads without case.
        Some(Needs::VhfGrid) => format!(
            "AND award_grid IS NOT NULL AND (band IN ({}) OR upper(award_prop_mode) = '{SAT}')",
            vucc_bands()
                .map(|band| format!("'{band}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Some(Needs::Park) => "AND sig_info IS NOT NULL".into(),
        Some(Needs::OwnPark) => "AND my_sig_info IS NOT NULL".into(),
    }
}

/// The statement that reads the account's (`$1`) contacts that carry what an award `needs`,
/// one row for all the contacts alike in what it `reads` ([`Entry::read_by`]): the row of a
/// chunk's contact, with what the award does not read NULL (the time 0), the database
/// grouping them. A log of 100,000 contacts is a few thousand such rows for most awards, and
/// fewer than it has contacts for all.
///
/// Gives the columns of the entries, in [`ChunkEntry`]'s order, and the statement.
fn grouped(reads: &Reads, needs: Option<Needs>) -> (String, String) {
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
    // The columns of an entry, by position: the time and seq (0 for every group), then each
    // read value by the name the statement gives it, or NULL.
    let columns: Vec<String> = [
        "CAST(0 AS BIGINT)".to_owned(),
        "CAST(0 AS BIGINT)".to_owned(),
    ]
    .into_iter()
    .chain(read.iter().enumerate().map(|(at, r)| match r {
        Some(_) => format!("c{}", at + 2),
        None => "CAST(NULL AS TEXT)".to_owned(),
    }))
    .collect();
    // The read values alone, the award's own first: the fewer and the sooner told apart, the
    // cheaper SQLite's comparisons of a contact with the groups.
    let mut select: Vec<(bool, String)> = read
        .iter()
        .enumerate()
        .filter_map(|(at, r)| {
            let r = r.as_deref()?;
            let own = reads.fields.iter().any(|f| r == column(f));
            Some((!own, format!("{r} AS c{}", at + 2)))
        })
        .collect();
    select.sort_by_key(|(later, _)| *later);
    let select: Vec<String> = select.into_iter().map(|(_, s)| s).collect();
    // DISTINCT rather than GROUP BY, since no group's size is read: SQLite then keeps the
    // groups in a B-tree as it reads rather than sorting every contact (DXCC on 100,000
    // contacts, 145 ms grouped, 77 ms distinct); PostgreSQL hashes either.
    let sql = format!(
        "SELECT DISTINCT {} FROM contacts WHERE account_id = $1 {}",
        select.join(", "),
        carrying(needs),
    );
    (columns.join(", "), sql)
}

/// A statement's rows (`columns` of `sql`) as one JSON array of arrays, which the database
/// writes and [`hand_out`] reads: one value for sqlx to carry rather than a row a contact or
/// group, each of which it hands from its worker thread and decodes a column at a time.
fn as_json(columns: &str, sql: &str, postgres: bool) -> String {
    if postgres {
        format!(
            "SELECT COALESCE(json_agg(json_build_array({columns})), '[]')::text FROM ({sql}) rows"
        )
    } else {
        format!("SELECT json_group_array(json_array({columns})) FROM ({sql}) rows")
    }
}

/// Values after the columns: one a field of [`READ`] and [`READ_ADIF`].
const VALUES: usize = READ.len() + READ_ADIF.len();

/// One contact (or group) of a chunk, its values in the statement's order (a flat array, which
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

/// Hands `each` the entry of each contact (or group) of a JSON array of them ([`as_json`])
/// as it reads it, so that no more than the text is held however many there are; gives how
/// many it read and the least position in page order among them.
fn hand_out(text: &str, each: &mut (dyn FnMut(Entry) + Send)) -> StoreResult<Handed> {
    let mut reader = serde_json::Deserializer::from_str(text);
    let handed = serde::Deserializer::deserialize_seq(&mut reader, Rows { each })
        .and_then(|handed| reader.end().map(|()| handed))
        .map_err(|e| decode_err(format!("an awards chunk: {e}")))?;
    Ok(handed)
}

/// How many entries [`hand_out`] read, and the least (time_on, seq) of them.
type Handed = (i64, Option<(i64, i64)>);

/// [`hand_out`]'s reading of the array, an element at a time.
struct Rows<'e> {
    each: &'e mut (dyn FnMut(Entry) + Send),
}

impl<'de> serde::de::Visitor<'de> for Rows<'_> {
    type Value = Handed;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of contacts' arrays")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut rows: A) -> Result<Handed, A::Error> {
        let (mut read, mut least) = (0, None);
        while let Some(row) = rows.next_element::<ChunkEntry<'de>>()? {
            read += 1;
            let at = (row.time_on, row.seq);
            least = Some(least.map_or(at, |l: (i64, i64)| l.min(at)));
            let values = [
                &row.f0, &row.f1, &row.f2, &row.f3, &row.f4, &row.f5, &row.f6, &row.f7, &row.f8,
            ]
            .map(|v| v.as_deref());
            (self.each)(entry(
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
        Ok((read, least))
    }
}

impl SqlStore {
    pub(super) async fn award_entries(
        &self,
        account_id: &str,
        award: Award,
        each: &mut (dyn FnMut(Entry) + Send),
    ) -> StoreResult<()> {
        let needs = award.needs();
        if let Some(reads) = award.reads() {
            let (columns, grouped) = grouped(&reads, needs);
            if self.pages.is_none() {
                let sql = as_json(&columns, &grouped, true);
                hand_out(&self.one_text(&sql, account_id, &[]).await?, each)?;
                return Ok(());
            }
            // SQLite reads and groups on one core: the account's contacts in two halves (by
            // the parity of their seq, which every index holds, so a half's contacts alone are
            // read), one on each of the pages' two connections at once. A group both halves
            // have is handed on twice, which a tally takes as it takes two contacts alike.
            // DXCC's statement on 100,000 contacts: 79 ms whole, 47 ms a half.
            let half = as_json(&columns, &format!("{grouped} AND seq % 2 = $2"), false);
            let (even, odd) = futures_util::future::try_join(
                self.one_text(&half, account_id, &[0]),
                self.one_text(&half, account_id, &[1]),
            )
            .await?;
            hand_out(&even, each)?;
            hand_out(&odd, each)?;
            return Ok(());
        }
        let read = format!("{CONTACT}, {}", COLUMNS.join(", "));
        let sql = as_json(&read, &chunk_of(&read, needs), self.postgres());
        let mut after = (i64::MAX, i64::MAX);
        loop {
            let chunk = self
                .one_text(&sql, account_id, &[after.0, after.1, CHUNK])
                .await?;
            // The chunk's last position in page order: the least (time_on, seq) it held.
            let (read, Some(last)) = hand_out(&chunk, each)? else {
                return Ok(());
            };
            if read < CHUNK {
                return Ok(());
            }
            after = last;
        }
    }

    /// The one text the awards' `sql` answers for the account and the numbers bound after
    /// it: on SQLite through the pages' pool.
    async fn one_text(&self, sql: &str, account_id: &str, numbers: &[i64]) -> StoreResult<String> {
        let sql = sqlx::AssertSqlSafe(sql);
        Ok(match &self.pages {
            Some(pages) => {
                let mut query = sqlx::query_scalar(sql).bind(account_id);
                for n in numbers {
                    query = query.bind(*n);
                }
                query.fetch_one(pages).await?
            }
            None => {
                let mut query = sqlx::query_scalar(sql).bind(account_id);
                for n in numbers {
                    query = query.bind(*n);
                }
                query.fetch_one(&self.reader).await?
            }
        })
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
