//! Lookups through the account's journal: an answer younger than [`FRESH_FOR`] is used as it
//! is (QRZ counts lookups, and a station rarely moves within a month); an older one is asked
//! for again, and stands in when the callbook cannot be reached.

use std::time::Duration;

use super::{Callbook, Lookup, LookupError};
use crate::journal::Journal;
use svc_model::callsign::normalize_callsign;

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
