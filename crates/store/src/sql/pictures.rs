//! The web pages' pictures of a log (the map, the charts) counted by the database: each a
//! `GROUP BY` over the account's contacts, so that a page reads a few rows per grid, band or
//! hour however long the log is, never the contacts themselves.

use super::*;

/// The grid of a contact (`$1` the account) and its band: the checked `gridsquare` field, else
/// the GRIDSQUARE an ADIF file gave that svc kept as read (a 10-character locator, or one that
/// is not a locator at all, which the map lists rather than plots). On SQLite each half is
/// counted off an index of its own (migration 0019) without reading a contact's JSON; the case
/// and spaces are made alike in `grid_counts`, which would cost the index.
const SQLITE_GRIDS: &str = "\
    SELECT json_extract(fields, '$.gridsquare') AS grid, band, COUNT(*) AS contacts \
    FROM contacts \
    WHERE account_id = $1 AND json_extract(fields, '$.gridsquare') IS NOT NULL \
    GROUP BY 1, 2 \
    UNION ALL \
    SELECT json_extract(fields, '$.adif.GRIDSQUARE'), band, COUNT(*) \
    FROM contacts \
    WHERE account_id = $1 AND json_extract(fields, '$.adif.GRIDSQUARE') IS NOT NULL \
      AND json_extract(fields, '$.gridsquare') IS NULL \
    GROUP BY 1, 2";

const POSTGRES_GRIDS: &str = "\
    SELECT grid, band, COUNT(*) AS contacts FROM ( \
      SELECT UPPER(TRIM(COALESCE(fields::json ->> 'gridsquare', \
                                 fields::json -> 'adif' ->> 'GRIDSQUARE'))) AS grid, band \
      FROM contacts WHERE account_id = $1 AND fields IS NOT NULL) AS gridded \
    WHERE grid IS NOT NULL AND grid <> '' \
    GROUP BY grid, band";

/// The account's (`$1`) contacts by band; the same SQL on both backends.
const BY_BAND: &str =
    "SELECT band, COUNT(*) AS contacts FROM contacts WHERE account_id = $1 GROUP BY band";

/// The account's (`$1`) contacts by mode.
const BY_MODE: &str =
    "SELECT mode, COUNT(*) AS contacts FROM contacts WHERE account_id = $1 GROUP BY mode";

/// The account's (`$1`) contacts by slice of time: `time_on` (milliseconds since the epoch,
/// UTC) divided by the slice's length `$2`, then, for a time of day, the remainder of `$3`
/// slices (a day's 24 hours); integer arithmetic on both backends.
const IN_TIME: &str = "\
    SELECT (time_on / $2) % $3 AS slice, COUNT(*) AS contacts FROM contacts \
    WHERE account_id = $1 GROUP BY 1";

/// [`IN_TIME`] for the contacts of one folder (`$4`) of the account.
const FOLDER_IN_TIME: &str = "\
    SELECT (time_on / $2) % $3 AS slice, COUNT(*) AS contacts FROM contacts \
    WHERE account_id = $1 AND folder_id = $4 GROUP BY 1";

/// A row of [`PARKS`]: sig, sig_info, my_sig, my_sig_info, contacts.
type ParkRow = (String, Option<String>, String, Option<String>, i64);

/// The park reference lists of the account's (`$1`) contacts: the other station's (`sig`,
/// hunted) and the account's own (`my_sig`, activated), each with its contacts.
const PARKS: &str = "\
    SELECT COALESCE(sig, '') AS sig, sig_info, COALESCE(my_sig, '') AS my_sig, my_sig_info, \
           COUNT(*) AS contacts \
    FROM contacts \
    WHERE account_id = $1 AND (sig_info IS NOT NULL OR my_sig_info IS NOT NULL) \
    GROUP BY 1, 2, 3, 4";

/// Far more slices than any log spans: a remainder that changes nothing.
const NO_WRAP: i64 = i64::MAX;

impl SqlStore {
    pub(super) async fn grid_counts(&self, account_id: &str) -> StoreResult<Vec<GridCount>> {
        let sql = if self.postgres() {
            POSTGRES_GRIDS
        } else {
            SQLITE_GRIDS
        };
        let rows: Vec<(String, String, i64)> = sqlx::query_as(sql)
            .bind(account_id)
            .fetch_all(&self.reader)
            .await?;
        // `fn31pr` and `FN31PR ` are one grid, as an upper-case key.
        let mut counts: std::collections::BTreeMap<(String, String), i64> = Default::default();
        for (grid, band, contacts) in rows {
            let grid = grid.trim().to_ascii_uppercase();
            if !grid.is_empty() {
                *counts.entry((grid, band)).or_default() += contacts;
            }
        }
        Ok(counts
            .into_iter()
            .map(|((grid, band), contacts)| GridCount {
                grid,
                band,
                contacts,
            })
            .collect())
    }

    pub(super) async fn contacts_by(
        &self,
        account_id: &str,
        by: CountBy,
    ) -> StoreResult<Vec<(String, i64)>> {
        let sql = match by {
            CountBy::Band => BY_BAND,
            CountBy::Mode => BY_MODE,
        };
        Ok(sqlx::query_as(sql)
            .bind(account_id)
            .fetch_all(&self.reader)
            .await?)
    }

    pub(super) async fn contacts_in_time(
        &self,
        account_id: &str,
        folder_id: Option<&str>,
        slice: TimeSlice,
    ) -> StoreResult<Vec<(i64, i64)>> {
        let (length_ms, wrap) = match slice {
            TimeSlice::Day => (86_400_000_i64, NO_WRAP),
            TimeSlice::HourOfDay => (3_600_000, 24),
            TimeSlice::TenMinutes => (600_000, NO_WRAP),
        };
        let query = match folder_id {
            None => sqlx::query_as(IN_TIME),
            Some(_) => sqlx::query_as(FOLDER_IN_TIME),
        }
        .bind(account_id)
        .bind(length_ms)
        .bind(wrap);
        let query = match folder_id {
            Some(folder) => query.bind(folder),
            None => query,
        };
        Ok(query.fetch_all(&self.reader).await?)
    }

    pub(super) async fn park_counts(&self, account_id: &str) -> StoreResult<Vec<ParkCount>> {
        // One read of the contacts with a park, off contacts_search_park alone (its condition is
        // the statement's), split here into the parks hunted and the parks activated.
        let rows: Vec<ParkRow> = sqlx::query_as(PARKS)
            .bind(account_id)
            .fetch_all(&self.reader)
            .await?;
        let mut counts: std::collections::BTreeMap<(bool, String, String), i64> =
            Default::default();
        for (sig, sig_info, my_sig, my_sig_info, contacts) in rows {
            for (own, sig, references) in [(false, sig, sig_info), (true, my_sig, my_sig_info)] {
                if let Some(references) = references {
                    *counts.entry((own, sig, references)).or_default() += contacts;
                }
            }
        }
        Ok(counts
            .into_iter()
            .map(|((own, sig, references), contacts)| ParkCount {
                own,
                sig,
                references,
                contacts,
            })
            .collect())
    }
}
