//! Parks: `GET /park/{reference}` and a cache of the answers, `parks.sqlite` in svc's data folder,
//! shared by every account (a park's name is no one's). The cache answers first; an entry older
//! than 30 days is asked for again, and kept when POTA cannot be reached. POTA's list of every
//! park can be read into it too (`import.rs`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{QueryBuilder, Row, Sqlite};

use super::{
    PARK_LOCATION_MAX_CHARS, PARK_NAME_MAX_CHARS, Pota, PotaError, number, text, text_within,
};
use svc_datafiles::schema::{self, SchemaError};
use svc_model::Timestamp;
use svc_model::program::normalize_reference;

/// An entry older than this is asked for again: parks are renamed and moved rarely.
const REFRESH_AFTER_MS: i64 = 30 * 86_400_000;
/// The cache's schema, one SQL file a version (svc_datafiles::schema).
static MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/parks");
/// A park as svc keeps it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Park {
    pub reference: String,
    pub name: String,
    /// POTA's location code(s), e.g. `US-ME` (`locationDesc`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// The Maidenhead locator: six characters where POTA has them, else four.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latitude: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longitude: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ParkSource {
    /// The cache answered: fresh enough, or POTA could not be asked.
    Cache,
    /// POTA answered just now (and the cache keeps it).
    Api,
}

/// A park and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParkAnswer {
    #[serde(flatten)]
    pub park: Park,
    pub source: ParkSource,
    /// When POTA gave it (or the park list holding it was imported).
    pub fetched_at: Timestamp,
    /// Why an old cached entry was not refreshed: POTA was asked and failed.
    #[serde(skip)]
    pub refresh_error: Option<PotaError>,
}

impl ParkAnswer {
    /// Whole days since the park was fetched.
    pub fn age_days(&self, now: Timestamp) -> i64 {
        (now.millis() - self.fetched_at.millis()).max(0) / 86_400_000
    }
}

/// The cache file's name in svc's data folder.
pub const CACHE_FILE: &str = "parks.sqlite";

/// The cache file: `parks.sqlite` in svc's data folder.
pub fn parks_path() -> Result<PathBuf, PotaError> {
    svc_datafiles::user_data_dir()
        .map(|dir| dir.join(CACHE_FILE))
        .ok_or_else(|| {
            PotaError::Cache(
                "no place for the park cache: set HOME (or XDG_DATA_HOME to an absolute path)"
                    .into(),
            )
        })
}

/// A park reference as POTA's API knows it: one park, without the `@location` svc's
/// references may carry.
pub(super) fn park_reference(raw: &str) -> Result<String, PotaError> {
    if raw.contains(',') {
        return Err(PotaError::Invalid(format!(
            "{:?} names several parks; give one, e.g. US-0001",
            svc_model::ids::truncate(raw, 40)
        )));
    }
    let reference =
        normalize_reference("reference", raw).map_err(|e| PotaError::Invalid(e.message))?;
    Ok(match reference.split_once('@') {
        Some((park, _)) => park.to_owned(),
        None => reference,
    })
}

/// POTA's answer for one park: `null` for a reference it does not know.
fn park_from_api(reference: &str, value: &Value) -> Result<Option<Park>, PotaError> {
    if value.is_null() {
        return Ok(None);
    }
    if !value.is_object() {
        return Err(PotaError::Unexpected(format!(
            "POTA's answer for {reference} is not a park; check --pota-api-url"
        )));
    }
    let name = text_within(value, "name", PARK_NAME_MAX_CHARS).ok_or_else(|| {
        PotaError::Unexpected(format!("POTA's answer for {reference} has no name"))
    })?;
    // POTA shows a park by its name and type together (`Acadia National Park`), and its park
    // list and spots give the two as one name: the park's answer gives them apart.
    let name = match text_within(value, "parktypeDesc", PARK_NAME_MAX_CHARS) {
        Some(kind) if !name.to_lowercase().ends_with(&kind.to_lowercase()) => {
            svc_model::text::from_elsewhere(&format!("{name} {kind}"), PARK_NAME_MAX_CHARS)
                .unwrap_or(name)
        }
        _ => name,
    };
    Ok(Some(Park {
        reference: reference.to_owned(),
        name,
        location: text_within(value, "locationDesc", PARK_LOCATION_MAX_CHARS),
        grid: text(value, "grid6").or_else(|| text(value, "grid4")),
        latitude: number(value, "latitude").filter(|l| (-90.0..=90.0).contains(l)),
        longitude: number(value, "longitude").filter(|l| (-180.0..=180.0).contains(l)),
    }))
}

impl Pota {
    /// `GET /park/{reference}`: the park, or `None` when POTA knows no park of that reference.
    pub async fn park(&self, reference: &str) -> Result<Option<Park>, PotaError> {
        let reference = park_reference(reference)?;
        let answer = self.get(&["park", &reference]).await?;
        match answer.status {
            200..=299 => park_from_api(&reference, &answer.json()?),
            404 => Ok(None),
            _ => Err(answer.refused()),
        }
    }
}

/// Whether a cached entry fetched at `fetched_at` is still taken as it is at `now`, or asked for
/// again.
pub fn fresh(fetched_at: Timestamp, now: Timestamp) -> bool {
    now.millis() - fetched_at.millis() < REFRESH_AFTER_MS
}

/// Parks by reference: the cache, and POTA behind it.
#[derive(Debug, Clone)]
pub struct Parks {
    pub(super) pool: SqlitePool,
    path: PathBuf,
    pota: Pota,
}

/// The names of the parks of a reference list from the park cache alone, when there is one
/// (nothing is made, nothing is asked of POTA): for an export, which waits for no network.
pub async fn cached_names(references: &str) -> std::collections::HashMap<String, String> {
    let Ok(path) = parks_path() else {
        return Default::default();
    };
    if !path.is_file() {
        return Default::default();
    }
    let Ok(pota) = super::resolve_api_url(None).map(Pota::new) else {
        return Default::default();
    };
    match Parks::open_path(&path, pota).await {
        Ok(parks) => parks.names(references, false).await,
        Err(_) => Default::default(),
    }
}

impl Parks {
    /// Opens (creating) the cache in svc's data folder.
    pub async fn open(pota: Pota) -> Result<Parks, PotaError> {
        Self::open_path(&parks_path()?, pota).await
    }

    pub async fn open_path(path: &Path, pota: Pota) -> Result<Parks, PotaError> {
        let fail = |e: &dyn std::fmt::Display| {
            PotaError::Cache(format!(
                "cannot open the park cache {}: {e}",
                path.display()
            ))
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            make_dir(dir).map_err(|e| fail(&e))?;
        }
        svc_datafiles::private_sqlite_file(path).map_err(|e| fail(&e))?;
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // A cache: a commit lost in a power cut is fetched again, so it need not wait
            // for the disk as the journal does.
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(5));
        let pool = SqlitePoolOptions::new()
            .max_connections(2)
            .connect_with(options)
            .await
            .map_err(|e| fail(&e))?;
        let parks = Parks {
            pool,
            path: path.to_owned(),
            pota,
        };
        parks.migrate().await.map_err(|e| fail(&e))?;
        Ok(parks)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    async fn migrate(&self) -> Result<(), PotaError> {
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        schema::migrate(&mut tx, &MIGRATIONS)
            .await
            .map_err(|e| match e {
                SchemaError::Newer { .. } => PotaError::Cache(format!(
                    "{e}; use that svc, or delete the file (it is only a cache)"
                )),
                e => PotaError::Cache(format!("the park cache cannot be used: {e}")),
            })?;
        tx.commit().await?;
        Ok(())
    }

    /// The cached park and when it was fetched, with no network.
    pub async fn cached(&self, reference: &str) -> Result<Option<(Park, Timestamp)>, PotaError> {
        let reference = park_reference(reference)?;
        Ok(self.cached_all(&[reference]).await?.into_values().next())
    }

    /// The cached parks of the (checked) `references` and when each was fetched, by
    /// reference, in one read: a page of 500 parks hunted asked the cache 500 times, which
    /// took longer than reckoning the award.
    async fn cached_all(
        &self,
        references: &[String],
    ) -> Result<HashMap<String, (Park, Timestamp)>, PotaError> {
        let rows = sqlx::query(
            "SELECT reference, name, location, grid, latitude, longitude, fetched_at
             FROM parks WHERE reference IN (SELECT value FROM json_each($1))",
        )
        .bind(serde_json::to_string(references).map_err(|e| PotaError::Cache(e.to_string()))?)
        .fetch_all(&self.pool)
        .await?;
        // A cache written before names were cleaned as they came may hold anything POTA sent.
        let clean = |text: Option<String>, max_chars| {
            text.and_then(|t| svc_model::text::from_elsewhere(&t, max_chars))
        };
        rows.into_iter()
            .map(|row| {
                let park = Park {
                    reference: row.try_get("reference")?,
                    name: clean(row.try_get("name")?, PARK_NAME_MAX_CHARS).unwrap_or_default(),
                    location: clean(row.try_get("location")?, PARK_LOCATION_MAX_CHARS),
                    grid: clean(row.try_get("grid")?, PARK_LOCATION_MAX_CHARS),
                    latitude: row.try_get("latitude")?,
                    longitude: row.try_get("longitude")?,
                };
                Ok((
                    park.reference.clone(),
                    (park, Timestamp(row.try_get("fetched_at")?)),
                ))
            })
            .collect()
    }

    /// What the cache holds of each of `references` (the park and when it was fetched, or
    /// nothing), by the reference as given, with no network; a reference that is no park's is
    /// left out.
    pub async fn cached_of(
        &self,
        references: &[&str],
    ) -> Result<HashMap<String, Option<(Park, Timestamp)>>, PotaError> {
        let checked: Vec<(&str, String)> = references
            .iter()
            .filter_map(|&given| Some((given, park_reference(given).ok()?)))
            .collect();
        let wanted: Vec<String> = checked.iter().map(|(_, r)| r.clone()).collect();
        let cached = self.cached_all(&wanted).await?;
        Ok(checked
            .into_iter()
            .map(|(given, reference)| (given.to_owned(), cached.get(&reference).cloned()))
            .collect())
    }

    /// The park: from the cache while its entry is younger than 30 days, else from POTA (and
    /// cached); an old entry when POTA cannot be reached, with the failure beside it.
    pub async fn lookup(&self, reference: &str) -> Result<ParkAnswer, PotaError> {
        let reference = park_reference(reference)?;
        let cached = self.cached(&reference).await?;
        let now = Timestamp::now();
        if let Some((park, fetched_at)) = &cached
            && fresh(*fetched_at, now)
        {
            return Ok(ParkAnswer {
                park: park.clone(),
                source: ParkSource::Cache,
                fetched_at: *fetched_at,
                refresh_error: None,
            });
        }
        match (self.pota.park(&reference).await, cached) {
            (Ok(Some(park)), _) => {
                // The answer stands even when it cannot be kept (a full disk): the next
                // lookup asks POTA again.
                let _ = self.store(std::slice::from_ref(&park), now).await;
                Ok(ParkAnswer {
                    park,
                    source: ParkSource::Api,
                    fetched_at: now,
                    refresh_error: None,
                })
            }
            // POTA's word on a reference is newer than any copy of it.
            (Ok(None), _) => Err(PotaError::NotFound(format!(
                "POTA knows no park {reference}; check the reference (pota.app lists every park)"
            ))),
            (Err(e), Some((park, fetched_at))) => Ok(ParkAnswer {
                park,
                source: ParkSource::Cache,
                fetched_at,
                refresh_error: Some(e),
            }),
            (Err(e), None) => Err(e),
        }
    }

    /// The park's name, for showing beside its reference; `None` when it cannot be had now,
    /// for whatever reason (the reference alone is still right).
    pub async fn name(&self, reference: &str) -> Option<String> {
        self.lookup(reference).await.ok().map(|a| a.park.name)
    }

    /// The names of the parks of a reference list (`US-0001,US-0002`), by reference, as far as
    /// they can be had: from the cache alone, or (`ask_pota`) from POTA too.
    pub async fn names(
        &self,
        references: &str,
        ask_pota: bool,
    ) -> std::collections::HashMap<String, String> {
        let mut names = std::collections::HashMap::new();
        for park in references
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            let name = if ask_pota {
                self.name(park).await
            } else {
                self.cached(park).await.ok().flatten().map(|(p, _)| p.name)
            };
            if let Some(name) = name {
                names.insert(park.to_owned(), name);
            }
        }
        names
    }

    /// Writes parks, replacing earlier entries of their references, in one statement.
    async fn store(&self, parks: &[Park], at: Timestamp) -> Result<(), PotaError> {
        let mut conn = self.pool.acquire().await?;
        insert(&mut conn, parks, at).await
    }
}
pub(super) async fn insert(
    conn: &mut sqlx::SqliteConnection,
    parks: &[Park],
    at: Timestamp,
) -> Result<(), PotaError> {
    if parks.is_empty() {
        return Ok(());
    }
    let mut query: QueryBuilder<Sqlite> = QueryBuilder::new(
        "INSERT INTO parks (reference, name, location, grid, latitude, longitude, fetched_at) ",
    );
    query.push_values(parks, |mut row, park| {
        row.push_bind(&park.reference)
            .push_bind(&park.name)
            .push_bind(&park.location)
            .push_bind(&park.grid)
            .push_bind(park.latitude)
            .push_bind(park.longitude)
            .push_bind(at.millis());
    });
    query.push(
        " ON CONFLICT (reference) DO UPDATE SET name = excluded.name, location = excluded.location,
          grid = excluded.grid, latitude = excluded.latitude, longitude = excluded.longitude,
          fetched_at = excluded.fetched_at",
    );
    query.build().execute(&mut *conn).await?;
    Ok(())
}

/// Makes svc's data folder, private to the user as the journal's is (they share it).
fn make_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use serde_json::json;

    pub(crate) fn offline() -> Pota {
        // Nothing listens on the discard port of loopback: these tests never reach POTA.
        Pota::new(reqwest::Url::parse("http://127.0.0.1:9").unwrap())
    }

    pub(crate) fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn references_are_one_park_without_its_location() {
        assert_eq!(park_reference(" us-0001 ").unwrap(), "US-0001");
        assert_eq!(park_reference("VE-5082@CA-AB").unwrap(), "VE-5082");
        assert!(
            park_reference("US-1,US-2")
                .unwrap_err()
                .to_string()
                .contains("several")
        );
        assert_eq!(park_reference("US0001").unwrap_err().exit_code(), 2);
    }

    #[test]
    fn api_answers_are_read_liberally() {
        let acadia = json!({
            "parkId": 1234, "reference": "US-0001", "name": "Acadia", "latitude": 44.31,
            "longitude": "-68.2", "grid4": "FN54", "grid6": "FN54vh",
            "parktypeDesc": "National Park", "locationDesc": "US-ME", "active": 1
        });
        assert_eq!(
            park_from_api("US-0001", &acadia).unwrap(),
            Some(Park {
                reference: "US-0001".into(),
                name: "Acadia National Park".into(),
                location: Some("US-ME".into()),
                grid: Some("FN54vh".into()),
                latitude: Some(44.31),
                longitude: Some(-68.2),
            })
        );
        // A name that says its type already is not given it twice.
        let named = json!({"name": "Baxter State Park", "parktypeDesc": "State Park"});
        let park = park_from_api("US-0002", &named).unwrap().unwrap();
        assert_eq!(park.name, "Baxter State Park");
        let sparse = json!({"name": "Somewhere", "grid4": "FN54", "grid6": "", "latitude": 200});
        let park = park_from_api("K-0001", &sparse).unwrap().unwrap();
        assert_eq!(park.grid.as_deref(), Some("FN54"));
        assert_eq!(
            (park.location, park.latitude, park.longitude),
            (None, None, None)
        );
        assert_eq!(park_from_api("K-0001", &Value::Null).unwrap(), None);
        assert!(park_from_api("K-0001", &json!([])).is_err());
        assert!(park_from_api("K-0001", &json!({"reference": "K-0001"})).is_err());
    }

    /// The cache read for many parks at once gives each reference as it was given: what is
    /// cached, nothing for a park not cached, and no entry for what is no park's reference.
    #[test]
    fn many_parks_are_read_from_the_cache_at_once() {
        let dir = tempfile::tempdir().unwrap();
        block_on(async {
            let parks = Parks::open_path(&dir.path().join("parks.sqlite"), offline())
                .await
                .unwrap();
            let acadia = Park {
                reference: "US-0001".into(),
                name: "Acadia National Park".into(),
                location: Some("US-ME".into()),
                grid: None,
                latitude: None,
                longitude: None,
            };
            parks
                .store(std::slice::from_ref(&acadia), Timestamp(5))
                .await
                .unwrap();
            let read = parks
                .cached_of(&["US-0001", "us-0001", "US-0002", "US-1,US-2"])
                .await
                .unwrap();
            assert_eq!(read.len(), 3, "{read:?}");
            assert_eq!(read["US-0001"], Some((acadia.clone(), Timestamp(5))));
            assert_eq!(read["us-0001"], Some((acadia, Timestamp(5))));
            assert_eq!(read["US-0002"], None);
        });
    }

    /// Whether an entry fetched at `at` is fresh now.
    pub(crate) fn fresh_now(at: Timestamp) -> bool {
        fresh(at, Timestamp::now())
    }

    #[test]
    fn entries_are_fresh_for_30_days() {
        let day = 86_400_000;
        let now = Timestamp(1_800_000_000_000);
        assert!(fresh(Timestamp(now.millis() - 29 * day), now));
        assert!(!fresh(Timestamp(now.millis() - 30 * day), now));
        // A clock set back makes an entry look new, not broken.
        assert!(fresh(Timestamp(now.millis() + day), now));
    }

    /// A cache an svc wrote before the migrator (its version in `user_version` alone) keeps its
    /// parks, and its one migration is marked applied rather than run again.
    #[test]
    fn a_cache_written_before_the_migrator_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("parks.sqlite");
        block_on(async {
            let old = SqlitePoolOptions::new()
                .connect_with(
                    sqlx::sqlite::SqliteConnectOptions::new()
                        .filename(&path)
                        .create_if_missing(true),
                )
                .await
                .unwrap();
            for statement in [
                "CREATE TABLE parks (reference TEXT PRIMARY KEY, name TEXT NOT NULL, location TEXT, \
                 grid TEXT, latitude REAL, longitude REAL, fetched_at INTEGER NOT NULL)",
                "INSERT INTO parks VALUES ('US-0001', 'Acadia National Park', 'US-ME', 'FN54', \
                 44.3, -68.2, 1)",
                "PRAGMA user_version = 1",
            ] {
                sqlx::query(statement).execute(&old).await.unwrap();
            }
            old.close().await;
            let parks = Parks::open_path(&path, offline()).await.unwrap();
            let (park, _) = parks.cached("US-0001").await.unwrap().unwrap();
            assert_eq!(park.name, "Acadia National Park");
            let applied: Vec<i64> = sqlx::query_scalar("SELECT version FROM _sqlx_migrations")
                .fetch_all(&parks.pool)
                .await
                .unwrap();
            assert_eq!(applied, [1]);
        });
    }

    #[test]
    fn a_cache_of_a_newer_svc_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("parks.sqlite");
        block_on(async {
            let parks = Parks::open_path(&path, offline()).await.unwrap();
            sqlx::query("PRAGMA user_version = 99")
                .execute(&parks.pool)
                .await
                .unwrap();
            parks.pool.close().await;
            let e = Parks::open_path(&path, offline()).await.unwrap_err();
            assert!(e.to_string().contains("newer svc"), "{e}");
        });
    }
}
