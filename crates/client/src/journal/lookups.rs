//! The callbook's answers kept in the journal (`lookups`, schema 3), so a call looked up once
//! is known with no link, and not asked for again every time it is typed; and lookups through
//! it: an answer younger than [`FRESH_FOR`] is used as it is (QRZ counts lookups, and a
//! station rarely moves within a month); an older one is asked for again, and stands in when
//! the callbook cannot be reached.

use std::time::Duration;

use super::*;
use crate::lookup::{Callbook, Lookup, LookupError};
use svc_model::callsign::normalize_callsign;

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

/// How long a cached answer is used without asking the callbook again.
pub const FRESH_FOR: Duration = Duration::from_secs(30 * 86_400);

/// A lookup and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub lookup: Lookup,
    /// Whether the journal gave it rather than the callbook, just now.
    pub cached: bool,
    /// When the cache stood in for a callbook that could not be reached: why it could not.
    pub unreachable: Option<String>,
}

impl Callbook {
    /// Looks `callsign` up in `journal` first, then with the callbook (always, with
    /// `refresh`), keeping what it answers. With no journal it is [`Callbook::lookup`].
    pub async fn lookup_cached(
        &self,
        journal: Option<&Journal>,
        callsign: &str,
        refresh: bool,
    ) -> Result<Answer, LookupError> {
        let call = normalize_callsign("callsign", callsign)
            .map_err(|e| LookupError::Invalid(e.message))?;
        // A cache that cannot be read is no reason to fail a lookup the callbook can answer.
        let cached = match journal {
            Some(journal) => journal.cached_lookup(&call).await.ok().flatten(),
            None => None,
        };
        if let Some(lookup) = &cached
            && !refresh
            && lookup.age() < FRESH_FOR
        {
            return Ok(Answer {
                lookup: lookup.clone(),
                cached: true,
                unreachable: None,
            });
        }
        match (self.lookup(&call).await, cached) {
            (Ok(lookup), _) => {
                if let Some(journal) = journal {
                    // Not kept is only a lookup more next time.
                    let _ = journal.save_lookup(&lookup).await;
                }
                Ok(Answer {
                    lookup,
                    cached: false,
                    unreachable: None,
                })
            }
            (Err(LookupError::Unavailable(why)), Some(lookup)) => Ok(Answer {
                lookup,
                cached: true,
                unreachable: Some(why),
            }),
            (Err(e), _) => Err(e),
        }
    }
}
