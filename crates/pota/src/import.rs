//! Reading POTA's list of every park (`all_parks_ext.csv`, from pota.app) into the park cache,
//! for a logbook with no link at all: tens of thousands of parks, in one transaction, in
//! batches of one statement each.

use serde::Serialize;

use super::parks::{Park, Parks, insert, park_reference};
use super::{PARK_LOCATION_MAX_CHARS, PARK_NAME_MAX_CHARS, PotaError};
use svc_model::Timestamp;

/// Parks a statement of an import inserts: 7 values each stays far below SQLite's limit of
/// bound values, and 80,000 parks take some 160 statements.
const BATCH: usize = 500;
/// Bad rows of an import that are described; the rest are only counted.
const MAX_PROBLEMS: usize = 20;

/// What an import of the park list did.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ImportReport {
    pub imported: u64,
    pub skipped: u64,
    /// The first bad rows: their number (the header is row 1) and why.
    #[serde(skip)]
    pub problems: Vec<(u64, String)>,
}

impl Parks {
    /// Reads POTA's park list (`all_parks_ext.csv`: a header line naming at least `reference`
    /// and `name`, then one park a line) into the cache, in one transaction. A row that is not
    /// a park is counted and described, not fatal; a file without those columns is refused.
    pub async fn import_csv(&self, reader: impl std::io::Read) -> Result<ImportReport, PotaError> {
        let mut csv = csv::ReaderBuilder::new()
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(reader);
        let headers = csv
            .headers()
            .map_err(|e| PotaError::Invalid(format!("the file cannot be read as CSV: {e}")))?
            .clone();
        let columns = Columns::find(&headers)?;
        let now = Timestamp::now();
        let mut report = ImportReport::default();
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        let mut batch = Vec::with_capacity(BATCH);
        let mut record = csv::StringRecord::new();
        loop {
            // Rows, not lines, are counted: the reader's line count is off by one in a file
            // of CRLF lines, and a quoted field may hold a line break.
            let row = csv.position().record() + 1;
            match csv.read_record(&mut record) {
                Ok(false) => break,
                Ok(true) => match columns.park(&record) {
                    Ok(park) => batch.push(park),
                    Err(reason) => report.skip(row, reason),
                },
                // An I/O failure ends the reading; anything else is one bad row.
                Err(e) if matches!(e.kind(), csv::ErrorKind::Io(_)) => {
                    return Err(PotaError::Invalid(format!("the file cannot be read: {e}")));
                }
                Err(e) => report.skip(row, format!("not a CSV row ({e})")),
            }
            if batch.len() == BATCH {
                insert(&mut tx, &batch, now).await?;
                report.imported += batch.len() as u64;
                batch.clear();
            }
        }
        insert(&mut tx, &batch, now).await?;
        report.imported += batch.len() as u64;
        tx.commit().await?;
        Ok(report)
    }
}

impl ImportReport {
    fn skip(&mut self, row: u64, reason: String) {
        self.skipped += 1;
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push((row, reason));
        }
    }
}

/// Where the park list's columns are, found by name (any case, any order, a byte-order mark
/// before the first), so a list with more or fewer columns reads as well.
struct Columns {
    reference: usize,
    name: usize,
    location: Option<usize>,
    grid: Option<usize>,
    latitude: Option<usize>,
    longitude: Option<usize>,
}

impl Columns {
    fn find(headers: &csv::StringRecord) -> Result<Columns, PotaError> {
        let index = |name: &str| {
            headers.iter().position(|h| {
                h.trim_start_matches('\u{feff}')
                    .trim()
                    .eq_ignore_ascii_case(name)
            })
        };
        match (index("reference"), index("name")) {
            (Some(reference), Some(name)) => Ok(Columns {
                reference,
                name,
                location: index("locationDesc"),
                grid: index("grid").or_else(|| index("grid6")),
                latitude: index("latitude"),
                longitude: index("longitude"),
            }),
            _ => Err(PotaError::Invalid(
                "the file has no \"reference\" and \"name\" columns, so it is not POTA's park list; download https://pota.app/all_parks_ext.csv"
                    .into(),
            )),
        }
    }

    fn park(&self, record: &csv::StringRecord) -> Result<Park, String> {
        let field = |i: Option<usize>| {
            i.and_then(|i| record.get(i))
                .map(str::trim)
                .filter(|s| !s.is_empty())
        };
        let raw = field(Some(self.reference)).ok_or("no reference")?;
        let reference = park_reference(raw).map_err(|_| {
            format!(
                "{:?} is not a park reference",
                svc_model::ids::truncate(raw, 30)
            )
        })?;
        // The park list is POTA's words too: kept as its API's answers are.
        let shown = |i: Option<usize>, max_chars| {
            field(i).and_then(|s| svc_model::text::from_elsewhere(s, max_chars))
        };
        let name = shown(Some(self.name), PARK_NAME_MAX_CHARS)
            .ok_or_else(|| format!("{reference} has no name"))?;
        let coordinate = |i, limit: f64| {
            field(i)
                .and_then(|s| s.parse::<f64>().ok())
                .filter(|v| v.is_finite() && v.abs() <= limit)
        };
        Ok(Park {
            reference,
            name,
            location: shown(self.location, PARK_LOCATION_MAX_CHARS),
            grid: shown(self.grid, PARK_LOCATION_MAX_CHARS),
            latitude: coordinate(self.latitude, 90.0),
            longitude: coordinate(self.longitude, 180.0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ParkSource;
    use crate::parks::tests::{block_on, fresh_now, offline};

    #[test]
    fn the_park_list_is_read_with_its_quirks() {
        let dir = tempfile::tempdir().unwrap();
        let csv = concat!(
            "\u{feff}\"reference\",\"name\",\"active\",\"entityId\",\"locationDesc\",\"latitude\",\"longitude\",\"grid\",\"extra\"\r\n",
            "\"US-0001\",\"Acadia National Park\",\"1\",\"291\",\"US-ME\",\"44.31\",\"-68.2034\",\"FN54vh\",\"x\"\r\n",
            "\"US-0002\",\"Alagnak, \"\"Wild\"\" River\",\"1\",\"6\",\"US-AK\",\"\",\"\",\"BO19sc\"\r\n",
            "\"BAD\",\"Not a park\",\"1\",\"1\",\"US-AK\",\"1\",\"2\",\"AA00aa\"\r\n",
            "\"US-0003\",\"\",\"1\",\"1\",\"US-AK\",\"1\",\"2\",\"AA00aa\"\r\n",
            "\"DE-0123\",\"Short row\"\r\n",
            "\r\n",
        );
        block_on(async {
            let parks = Parks::open_path(&dir.path().join("svc/parks.sqlite"), offline())
                .await
                .unwrap();
            let report = parks.import_csv(csv.as_bytes()).await.unwrap();
            assert_eq!((report.imported, report.skipped), (3, 2), "{report:?}");
            assert_eq!(report.problems[0].0, 4);
            assert!(
                report.problems[0]
                    .1
                    .contains("\"BAD\" is not a park reference")
            );
            assert!(report.problems[1].1.contains("US-0003 has no name"));
            let (acadia, at) = parks.cached("us-0001").await.unwrap().unwrap();
            assert_eq!(acadia.name, "Acadia National Park");
            assert_eq!(acadia.grid.as_deref(), Some("FN54vh"));
            assert_eq!(acadia.longitude, Some(-68.2034));
            assert!(fresh_now(at));
            let (alagnak, _) = parks.cached("US-0002").await.unwrap().unwrap();
            assert_eq!(alagnak.name, "Alagnak, \"Wild\" River");
            assert_eq!((alagnak.latitude, alagnak.longitude), (None, None));
            let (short, _) = parks.cached("DE-0123").await.unwrap().unwrap();
            assert_eq!((short.location, short.grid), (None, None));
            // Fresh entries answer with no network at all.
            let answer = parks.lookup("US-0001").await.unwrap();
            assert_eq!(answer.source, ParkSource::Cache);
            assert_eq!(
                parks.name("US-0002").await.as_deref(),
                Some("Alagnak, \"Wild\" River")
            );
            // Unknown, with POTA unreachable: the failure, and no name.
            assert_eq!(parks.lookup("US-0009").await.unwrap_err().exit_code(), 7);
            assert_eq!(parks.name("US-0009").await, None);

            // A second import replaces what the first wrote.
            let again = "reference,name\nUS-0001,Acadia NP\n";
            assert_eq!(
                parks.import_csv(again.as_bytes()).await.unwrap().imported,
                1
            );
            assert_eq!(
                parks.cached("US-0001").await.unwrap().unwrap().0.name,
                "Acadia NP"
            );
        });
    }

    #[test]
    fn a_file_that_is_not_the_park_list_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        block_on(async {
            let parks = Parks::open_path(&dir.path().join("parks.sqlite"), offline())
                .await
                .unwrap();
            for text in [
                "",
                "callsign,frequency\nW1AW,14.074\n",
                "reference\nUS-0001\n",
            ] {
                let e = parks.import_csv(text.as_bytes()).await.unwrap_err();
                assert_eq!(e.exit_code(), 2, "{text:?}");
                assert!(e.to_string().contains("\"reference\" and \"name\""), "{e}");
            }
        });
    }

    #[test]
    fn many_parks_go_in_batches_in_one_transaction() {
        let dir = tempfile::tempdir().unwrap();
        let mut csv = String::from("reference,name,locationDesc,latitude,longitude,grid\n");
        for n in 0..(BATCH * 3 + 7) {
            csv.push_str(&format!("US-{n:05},Park {n},US-ME,44.0,-68.0,FN54\n"));
        }
        block_on(async {
            let parks = Parks::open_path(&dir.path().join("parks.sqlite"), offline())
                .await
                .unwrap();
            let report = parks.import_csv(csv.as_bytes()).await.unwrap();
            assert_eq!(
                (report.imported, report.skipped),
                ((BATCH * 3 + 7) as u64, 0)
            );
            let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM parks")
                .fetch_one(&parks.pool)
                .await
                .unwrap();
            assert_eq!(count, (BATCH * 3 + 7) as i64);
        });
    }
}
