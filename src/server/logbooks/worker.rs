//! The worker that sends the queue of external copies: each contact pushed, each deleted one
//! deleted there. It runs in every server process; the database hands each job to one of them
//! at a time (a lease), so nothing is sent twice by two processes and nothing is lost when a
//! process stops mid-job (the lease runs out and another takes it).

use std::sync::Arc;
use std::time::Duration;

use super::Logbooks;
use super::qrz::{Inserted, QrzError};
use crate::adif;
use crate::model::Timestamp;
use crate::store::{ExternalAction, ExternalJob, ExternalOutcome, Store};

/// Jobs taken at a time.
const CLAIM: i64 = 20;
/// Long enough for the provider's slowest answer; a job of a process that died goes again
/// after it.
const LEASE_MS: i64 = 120_000;
/// How often an idle worker looks for work.
const IDLE: Duration = Duration::from_secs(1);
/// The longest wait before a failing job is tried again.
const MAX_RETRY_MS: i64 = 15 * 60 * 1000;

/// Runs until the process ends.
pub async fn run(store: Arc<dyn Store>, logbooks: Arc<Logbooks>) {
    loop {
        let now = Timestamp::now();
        let jobs = match store.claim_external(now, LEASE_MS, CLAIM).await {
            Ok(jobs) => jobs,
            Err(e) => {
                tracing::warn!(error = %e, "external logbooks: cannot read the queue");
                Vec::new()
            }
        };
        let busy = !jobs.is_empty();
        for job in jobs {
            let outcome = send(&logbooks, &job).await;
            if let Err(e) = store
                .settle_external(&job, &outcome, Timestamp::now())
                .await
            {
                tracing::warn!(error = %e, logbook = %job.logbook_id, "external logbooks: cannot record a result");
            }
        }
        if !busy {
            tokio::time::sleep(IDLE).await;
        }
    }
}

/// The wait before try `attempts + 1`: 2 s, doubling, at most 15 minutes.
fn retry_after(attempts: i64) -> Duration {
    let ms = 2_000i64.saturating_mul(1 << attempts.clamp(1, 20).saturating_sub(1));
    Duration::from_millis(ms.min(MAX_RETRY_MS) as u64)
}

async fn send(logbooks: &Logbooks, job: &ExternalJob) -> ExternalOutcome {
    let Some(key) = logbooks.secret.open(&job.logbook_id, &job.key_sealed) else {
        return ExternalOutcome::Paused(
            "the service cannot open this logbook's key (its secret changed); give the key again"
                .into(),
        );
    };
    let answer = match &job.action {
        ExternalAction::Push {
            contact,
            account_callsign,
        } => {
            let record = adif::contact::record_for(contact, account_callsign);
            let text = match adif::record_text(&record) {
                Ok(text) => text,
                Err(e) => return ExternalOutcome::Refused(format!("cannot write its ADIF: {e}")),
            };
            logbooks
                .qrz
                .insert(&key, &text)
                .await
                .map(|inserted| match inserted {
                    Inserted::New { log_id } | Inserted::Replaced { log_id } => {
                        ExternalOutcome::Pushed {
                            log_id: Some(log_id),
                        }
                    }
                    // The book has it already: that is what was wanted.
                    Inserted::Duplicate => ExternalOutcome::Pushed { log_id: None },
                })
        }
        ExternalAction::Delete { log_id } => logbooks
            .qrz
            .delete(&key, std::slice::from_ref(log_id))
            .await
            .map(|_| ExternalOutcome::Deleted),
    };
    match answer {
        Ok(outcome) => outcome,
        Err(QrzError::Auth(reason)) => ExternalOutcome::Paused(format!(
            "QRZ refused the key ({reason}); give a new key to go on"
        )),
        Err(QrzError::Fail(reason)) => match job.action {
            ExternalAction::Push { .. } => ExternalOutcome::Refused(format!("QRZ: {reason}")),
            // A copy QRZ no longer has, or will not delete: nothing more to do here.
            ExternalAction::Delete { .. } => ExternalOutcome::Deleted,
        },
        Err(e @ (QrzError::Transport(_) | QrzError::Malformed(_))) => ExternalOutcome::Retry {
            error: e.to_string(),
            due: Timestamp(
                Timestamp::now().millis() + retry_after(job.attempts).as_millis() as i64,
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_wait_longer_each_time_up_to_fifteen_minutes() {
        assert_eq!(retry_after(1), Duration::from_secs(2));
        assert_eq!(retry_after(2), Duration::from_secs(4));
        assert_eq!(retry_after(5), Duration::from_secs(32));
        assert_eq!(retry_after(40), Duration::from_secs(900));
        assert_eq!(retry_after(0), Duration::from_secs(2));
    }
}
