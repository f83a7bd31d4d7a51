//! The park names the pages show: the park cache (`svc_pota::Parks`, a file in this
//! machine's data directory), read without waiting on anything else, and POTA asked in the
//! background for the parks it lacks, so that a page never waits on POTA and a later view of it
//! shows what came.
//!
//! The asking is bounded whatever the page views: a few requests at a time and a few dozen
//! waiting at most (a park beyond that is asked for by a later view), one attempt each with the
//! POTA client's short time-outs, and a park whose asking failed is not asked for again for a
//! while. Several processes on one database each keep their own cache: it is only a cache.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use svc_model::Timestamp;
use svc_pota::{Park, Parks, fresh};

/// Requests to POTA at once, from one process.
const AT_ONCE: usize = 4;
/// Parks waiting to be asked for, or being asked for, at most.
const MAX_PENDING: usize = 64;
/// How long a park whose asking failed (no answer, an error, a reference POTA does not know)
/// is left alone: page views in the meantime show its reference alone.
const QUIET_AFTER_FAILURE: Duration = Duration::from_secs(600);
/// Parks remembered as pending or failed, at most, so that the memory stays bounded whatever
/// references accounts log.
const MAX_REMEMBERED: usize = 4096;

enum Asking {
    Pending,
    Failed(Instant),
}

/// The park cache and its asking in the background.
pub struct ParkNames {
    parks: Parks,
    asking: Mutex<HashMap<String, Asking>>,
    permits: Semaphore,
}

impl ParkNames {
    pub fn new(parks: Parks) -> Arc<ParkNames> {
        Arc::new(ParkNames {
            parks,
            asking: Mutex::new(HashMap::new()),
            permits: Semaphore::new(AT_ONCE),
        })
    }

    /// The cached parks among `references` (one park each, as a folder lists them), by
    /// reference. A park not cached, or cached long ago, is asked of POTA in the background.
    pub async fn known(self: &Arc<Self>, references: &[&str]) -> HashMap<String, Park> {
        let now = Timestamp::now();
        let cached = match self.parks.cached_of(references).await {
            Ok(cached) => cached,
            // The references alone are still right. Parks the cache cannot be read for are
            // not asked for, as they could not be kept.
            Err(error) => {
                tracing::warn!(%error, "the park cache cannot be read; pages show references alone");
                return HashMap::new();
            }
        };
        let mut known = HashMap::new();
        let mut wanted = Vec::new();
        for &reference in references {
            match cached.get(reference) {
                Some(Some((park, fetched_at))) => {
                    if !fresh(*fetched_at, now) {
                        wanted.push(reference);
                    }
                    known.insert(reference.to_owned(), park.clone());
                }
                Some(None) => wanted.push(reference),
                // Not one park's reference (the service checks them, so an old row's): shown
                // as it is, and never asked for.
                None => {}
            }
        }
        self.ask(&wanted);
        known
    }

    /// Starts asking POTA for the parks not asked for already, within the bounds.
    fn ask(self: &Arc<Self>, references: &[&str]) {
        if references.is_empty() {
            return;
        }
        let mut asking = self.asking.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        asking.retain(|_, state| match state {
            Asking::Pending => true,
            Asking::Failed(at) => now.duration_since(*at) < QUIET_AFTER_FAILURE,
        });
        let mut pending = asking
            .values()
            .filter(|s| matches!(s, Asking::Pending))
            .count();
        for &reference in references {
            if pending >= MAX_PENDING || asking.len() >= MAX_REMEMBERED {
                break;
            }
            if asking.contains_key(reference) {
                continue;
            }
            asking.insert(reference.to_owned(), Asking::Pending);
            pending += 1;
            tokio::spawn(Arc::clone(self).fetch(reference.to_owned()));
        }
    }

    /// One attempt at a park, when a permit is free; the cache keeps what POTA answers.
    async fn fetch(self: Arc<Self>, reference: String) {
        // The semaphore is never closed; should it be, the park stays pending and unasked.
        let Ok(_permit) = self.permits.acquire().await else {
            return;
        };
        let failure = match self.parks.lookup(&reference).await {
            Ok(answer) => answer.refresh_error,
            Err(error) => Some(error),
        };
        let mut asking = self.asking.lock().unwrap_or_else(PoisonError::into_inner);
        match failure {
            None => {
                asking.remove(&reference);
            }
            Some(error) => {
                tracing::info!(%error, reference, "no park from POTA; asked again later");
                asking.insert(reference, Asking::Failed(Instant::now()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn names_on(dir: &std::path::Path, pota: &str) -> Arc<ParkNames> {
        let pota = svc_pota::Pota::new(reqwest::Url::parse(pota).unwrap());
        ParkNames::new(
            Parks::open_path(&dir.join("parks.sqlite"), pota)
                .await
                .unwrap(),
        )
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    fn failed(names: &ParkNames, reference: &str) -> bool {
        matches!(
            names.asking.lock().unwrap().get(reference),
            Some(Asking::Failed(_))
        )
    }

    #[test]
    fn a_park_that_failed_is_left_alone_then_asked_again() {
        let dir = tempfile::tempdir().unwrap();
        runtime().block_on(async {
            // Nothing listens on the discard port of loopback: every asking fails at once.
            let names = names_on(dir.path(), "http://127.0.0.1:9").await;
            assert!(names.known(&["US-0001"]).await.is_empty());
            for _ in 0..500 {
                if failed(&names, "US-0001") {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            assert!(failed(&names, "US-0001"));
            // Another view does not ask again while the failure is recent.
            names.known(&["US-0001"]).await;
            assert!(failed(&names, "US-0001"));
            // Once it is old, it is asked for again (a machine up for less than the quiet
            // time cannot make an old one).
            if let Some(at) = Instant::now().checked_sub(QUIET_AFTER_FAILURE * 2) {
                names
                    .asking
                    .lock()
                    .unwrap()
                    .insert("US-0001".into(), Asking::Failed(at));
                // On a current-thread runtime no fetch runs before this returns.
                names.known(&["US-0001"]).await;
                assert!(matches!(
                    names.asking.lock().unwrap().get("US-0001"),
                    Some(Asking::Pending)
                ));
            }
        });
    }

    #[test]
    fn the_asking_is_bounded() {
        let dir = tempfile::tempdir().unwrap();
        runtime().block_on(async {
            let names = names_on(dir.path(), "http://127.0.0.1:9").await;
            let many: Vec<String> = (1..=MAX_PENDING * 3).map(|n| format!("US-{n}")).collect();
            let many: Vec<&str> = many.iter().map(String::as_str).collect();
            // On a current-thread runtime no fetch runs before this returns.
            names.known(&many).await;
            let asking = names.asking.lock().unwrap();
            assert_eq!(asking.len(), MAX_PENDING);
        });
    }
}
