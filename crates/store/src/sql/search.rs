//! A search of the account's contacts (the log page's): the model's [`ContactFilter`] as one
//! `SELECT`, newest `timeOn` first and a page at a time by the same position as the account's
//! pages, so a search pages by keyset too.
//!
//! Each part of the filter is a condition the database can answer from an index
//! (`…_contact_search.sql`): the start of a call and of a grid are ranges over an index by
//! account and call, and by account and the `fields` JSON's `gridsquare`; a band and a mode
//! are read newest first from indexes by account and each; a park off a partial index of the
//! contacts with one; a day range is a range of `contacts_account_page`. Confirmed or not is
//! read off the rows as the page walks them, newest first, and stops at a page's worth.
//!
//! PostgreSQL picks among those by its statistics. SQLite has none of a value's share (its
//! planner takes the time order of `contacts_account_page` over any range, and walked a log of
//! 100,000 for a call it holds twice), so it is told which index to read: [`sqlite_index`].
//!
//! The statement is put together from the parts asked; each backend's expressions are spelled
//! out in its own [`Dialect`], as its migration spells the index they must match.

use svc_model::awards::Carried;
use svc_model::search::{CONFIRMING, ContactFilter};

use super::*;

/// How one backend spells the expressions a search reads. An indexed expression is written
/// exactly as the index's migration writes it, or the planner does not see the index.
struct Dialect {
    /// The call as `contacts_search_call` orders it: byte order on both.
    call: &'static str,
    /// The worked station's locator as `contacts_search_grid` holds it.
    grid: &'static str,
    /// A declared field of `fields` by its wire name, as text.
    field: fn(&str) -> String,
    /// An entry of the `fields` JSON's `adif` map, as text.
    adif: fn(&str) -> String,
}

const SQLITE: Dialect = Dialect {
    call: "callsign",
    grid: "json_extract(fields, '$.gridsquare')",
    field: |wire| format!("json_extract(fields, '$.{wire}')"),
    adif: |name| format!("json_extract(fields, '$.adif.{name}')"),
};

const POSTGRES: Dialect = Dialect {
    // The database's own collation may sort by words (en_US): a prefix is a range only in C.
    call: "(callsign COLLATE \"C\")",
    grid: "((fields::json ->> 'gridsquare') COLLATE \"C\")",
    field: |wire| format!("(fields::json ->> '{wire}')"),
    adif: |name| format!("(fields::json -> 'adif' ->> '{name}')"),
};

/// The byte after every character a call or a locator holds (`A`–`Z`, `a`–`x`, digits, `/`):
/// a prefix `p` is the range `p` ≤ value < `p~`.
const PAST: char = '~';

/// A value bound to the statement.
enum Bind {
    Text(String),
    Int(i64),
}

/// The index SQLite reads for a search, the narrowest part first: a call or a grid of two
/// characters or more (a log holds a few hundredths of its contacts under `K1` or `FN`, and a
/// few under `K1ABC`, sorted in well under a millisecond), then a park, a band, a mode. A call
/// or grid of one character (`K`, a fifth of a log in the US) is left to the time order, which
/// finds a page of them in the first few hundred contacts.
fn sqlite_index(filter: &ContactFilter) -> Option<&'static str> {
    let narrow = |prefix: &Option<String>| prefix.as_ref().is_some_and(|p| p.len() >= 2);
    if narrow(&filter.callsign) {
        Some("contacts_search_call")
    } else if narrow(&filter.grid) {
        Some("contacts_search_grid")
    } else if filter.park.is_some() {
        Some("contacts_search_park")
    } else if filter.band.is_some() {
        Some("contacts_search_band")
    } else if filter.mode.is_some() {
        Some("contacts_search_mode")
    } else {
        None
    }
}

/// The statement of a search and its values, `$1` the account, `$2` and `$3` the position,
/// `$4` the rows; `index` the one the database is told to read, if any.
fn statement(d: &Dialect, filter: &ContactFilter, index: Option<&str>) -> (String, Vec<Bind>) {
    let mut binds: Vec<Bind> = Vec::new();
    let mut next = |b: Bind| {
        binds.push(b);
        format!("${}", binds.len() + 4)
    };
    let mut and: Vec<String> = Vec::new();
    if let Some(call) = &filter.callsign {
        let (from, past) = (
            next(Bind::Text(call.clone())),
            next(Bind::Text(format!("{call}{PAST}"))),
        );
        and.push(format!("{c} >= {from} AND {c} < {past}", c = d.call));
    }
    if let Some(park) = &filter.park {
        // Each list as `,US-0001,US-0002,`, a location split off as an item of its own, so a
        // park is one item between commas.
        let like = next(Bind::Text(format!("%,{park},%")));
        // The first line is contacts_search_park's condition, which lets the index be read.
        and.push(format!(
            "(sig_info IS NOT NULL OR my_sig_info IS NOT NULL) \
             AND (',' || replace(sig_info, '@', ',@') || ',' LIKE {like} \
             OR ',' || replace(my_sig_info, '@', ',@') || ',' LIKE {like})"
        ));
    }
    if let Some(grid) = &filter.grid {
        let (from, past) = (
            next(Bind::Text(grid.clone())),
            next(Bind::Text(format!("{grid}{PAST}"))),
        );
        and.push(format!("{g} >= {from} AND {g} < {past}", g = d.grid));
    }
    if let Some(band) = filter.band {
        and.push(format!("band = {}", next(Bind::Text(band.to_owned()))));
    }
    if let Some(mode) = &filter.mode {
        and.push(format!("mode = {}", next(Bind::Text(mode.clone()))));
    }
    if let Some(from) = filter.from_millis() {
        and.push(format!("time_on >= {}", next(Bind::Int(from))));
    }
    if let Some(until) = filter.until_millis() {
        and.push(format!("time_on < {}", next(Bind::Int(until))));
    }
    if let Some(wanted) = filter.confirmed {
        let confirmed = confirmed_sql(d);
        and.push(if wanted {
            confirmed
        } else {
            format!("NOT {confirmed}")
        });
    }
    let indexed = index
        .map(|i| format!(" INDEXED BY {i}"))
        .unwrap_or_default();
    let mut sql = format!(
        "SELECT {} FROM contacts{indexed} WHERE account_id = $1 \
         AND time_on <= $2 AND (time_on < $2 OR seq < $3)",
        contact_cols!()
    );
    for condition in and {
        sql.push_str(" AND ");
        sql.push_str(&condition);
    }
    sql.push_str(" ORDER BY time_on DESC, seq DESC LIMIT $4");
    (sql, binds)
}

/// Whether a contact is confirmed as a search means it ([`CONFIRMING`]), never NULL.
fn confirmed_sql(d: &Dialect) -> String {
    let any: Vec<String> = CONFIRMING
        .iter()
        .map(|service| match service.carried() {
            Carried::Field(field, yes) => {
                format!(
                    "COALESCE(upper({}) = '{yes}', FALSE)",
                    (d.field)(field.def().wire)
                )
            }
            Carried::Adif(name, yes) => {
                format!("COALESCE(upper(trim({})) = '{yes}', FALSE)", (d.adif)(name))
            }
        })
        .collect();
    format!("({})", any.join(" OR "))
}

impl SqlStore {
    pub(super) async fn search_contacts(
        &self,
        account_id: &str,
        filter: &ContactFilter,
        after: Option<Position>,
        limit: u32,
    ) -> StoreResult<Vec<(Contact, Position)>> {
        let after = after.unwrap_or(Position {
            sort: i64::MAX,
            seq: i64::MAX,
        });
        let rows = match &self.pages {
            Some(pages) => {
                let (sql, binds) = statement(&SQLITE, filter, sqlite_index(filter));
                let sql = pages::json_page_of(&sql);
                // Only the parts' fixed SQL is written in; every value is bound.
                let mut query = sqlx::query_scalar::<_, String>(sqlx::AssertSqlSafe(sql.as_str()))
                    .bind(account_id)
                    .bind(after.sort)
                    .bind(after.seq)
                    .bind(i64::from(limit) + 1);
                for b in binds {
                    query = match b {
                        Bind::Text(t) => query.bind(t),
                        Bind::Int(i) => query.bind(i),
                    };
                }
                pages::contacts(&query.fetch_one(pages).await?)
            }
            None => {
                let (sql, binds) = statement(&POSTGRES, filter, None);
                let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                    .bind(account_id)
                    .bind(after.sort)
                    .bind(after.seq)
                    .bind(i64::from(limit) + 1);
                for b in binds {
                    query = match b {
                        Bind::Text(t) => query.bind(t),
                        Bind::Int(i) => query.bind(i),
                    };
                }
                query
                    .fetch_all(&self.reader)
                    .await?
                    .iter()
                    .map(page_row)
                    .collect()
            }
        };
        Ok(rows?)
    }
}
