//! The callbook's answers kept in the journal (`lookups`, schema 3), so a call looked up once
//! is known with no link, and not asked for again every time it is typed.

use super::*;
use crate::lookup::Lookup;

impl Journal {
    /// The answer kept for `callsign` (as typed, in any case), whatever its age:
    /// [`Lookup::age`] tells it.
    pub async fn cached_lookup(&self, callsign: &str) -> Result<Option<Lookup>, JournalError> {
        let call = callsign.trim().to_ascii_uppercase();
        let answer: Option<String> =
            sqlx::query_scalar("SELECT answer FROM lookups WHERE callsign = $1")
                .bind(&call)
                .fetch_optional(&self.pool)
                .await?;
        answer
            .map(|text| decode(&format!("lookup of {call}"), &text))
            .transpose()
    }

    /// Keeps `lookup` as the answer for its callsign, unless one fetched later is kept already
    /// (another process looked the call up meanwhile).
    pub async fn save_lookup(&self, lookup: &Lookup) -> Result<(), JournalError> {
        sqlx::query(
            "INSERT INTO lookups (callsign, answer, fetched_at) VALUES ($1, $2, $3)
             ON CONFLICT (callsign) DO UPDATE SET answer = $2, fetched_at = $3
             WHERE lookups.fetched_at <= $3",
        )
        .bind(lookup.callsign.trim().to_ascii_uppercase())
        .bind(encode(lookup)?)
        .bind(lookup.fetched_at.millis())
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
