//! How long the external logbooks' queue is, read at each metrics scrape. Each backend has its
//! statement, alike but for the clock: the age is `queued_at` (set by the triggers of the
//! `*_queue_age.sql` migrations from the database's clock) against that same clock.

use super::*;

/// The jobs waiting (`waiting` and `deleting`) by whether their book is paused, and the age
/// of the oldest of those whose book is not.
const SQLITE: &str = "\
    SELECT \
        COALESCE(SUM(CASE WHEN l.paused_reason IS NULL THEN 1 ELSE 0 END), 0) AS waiting, \
        COALESCE(SUM(CASE WHEN l.paused_reason IS NULL THEN 0 ELSE 1 END), 0) AS paused, \
        COALESCE(CAST(unixepoch('subsec') * 1000 AS INTEGER) \
            - MIN(CASE WHEN l.paused_reason IS NULL THEN c.queued_at END), 0) AS oldest_ms \
    FROM external_copies c JOIN logbooks l ON l.id = c.logbook_id \
    WHERE c.state IN ('waiting', 'deleting')";

const POSTGRES: &str = "\
    SELECT \
        COALESCE(SUM(CASE WHEN l.paused_reason IS NULL THEN 1 ELSE 0 END), 0)::BIGINT AS waiting, \
        COALESCE(SUM(CASE WHEN l.paused_reason IS NULL THEN 0 ELSE 1 END), 0)::BIGINT AS paused, \
        COALESCE((EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT \
            - MIN(CASE WHEN l.paused_reason IS NULL THEN c.queued_at END), 0) AS oldest_ms \
    FROM external_copies c JOIN logbooks l ON l.id = c.logbook_id \
    WHERE c.state IN ('waiting', 'deleting')";

impl SqlStore {
    pub(super) async fn read_queue_depth(&self) -> StoreResult<QueueDepth> {
        let sql = if self.postgres() { POSTGRES } else { SQLITE };
        let row = sqlx::query(sql).fetch_one(&self.reader).await?;
        Ok(QueueDepth {
            waiting: row.try_get("waiting")?,
            paused: row.try_get("paused")?,
            // A clock set back since a job joined would make its age negative.
            oldest_ms: row.try_get::<i64, _>("oldest_ms")?.max(0),
        })
    }
}
