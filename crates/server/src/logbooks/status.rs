//! QRZ.com's confirmed status read back into the contacts of a synced QRZ book (docs/API.md,
//! "Imports"). QRZ marks a QSO confirmed (`APP_QRZLOG_STATUS` `C`) when the other station logs
//! it too, long after the record was read; an import reads only the records after the last one
//! it read, so the records changed since a day (`MODSINCE`) are read again for their status.

use svc_adif::Record;
use svc_model::Timestamp;
use svc_model::confirm::QrzStatus;
use svc_store::{ImportJob, Store};

use super::qrz::Qrz;

/// Records a read asks for at a time.
const PAGE: u32 = 100;

/// The status each record of a page carries, by log id.
pub fn of_page(records: &[(String, Record)]) -> Vec<(String, QrzStatus)> {
    records
        .iter()
        .filter_map(|(log_id, record)| {
            QrzStatus::of(|name| record.get(name)).map(|status| (log_id.clone(), status))
        })
        .collect()
}

/// Reads the book's records changed since its status mark and writes their status into the
/// contacts they are copies of; the mark then moves to the day the import `began` (MODSINCE
/// counts whole days, so the day is read again next time, and a status read twice changes
/// nothing). A book read whole for the first time by this import has its statuses already.
pub async fn refresh(
    store: &dyn Store,
    qrz: &Qrz,
    key: &str,
    job: &ImportJob,
    began: Timestamp,
) -> Result<u64, String> {
    let today = began.utc_date().format("%Y-%m-%d").to_string();
    if job.status_since.is_none() && job.after.is_none() {
        return store
            .book_statuses(job, &[], Some(&today))
            .await
            .map_err(|e| e.to_string());
    }
    let mut after: Option<String> = None;
    let mut changed = 0;
    loop {
        // Without a mark (a book read before svc read statuses), the whole book, once.
        let page = qrz
            .fetch(key, after.as_deref(), PAGE, job.status_since.as_deref())
            .await
            .map_err(|e| format!("reading QRZ's confirmations: {e}"))?;
        let full = page.records.len() as u32 >= PAGE;
        let moved = (!full).then_some(today.as_str());
        changed += store
            .book_statuses(job, &of_page(&page.records), moved)
            .await
            .map_err(|e| e.to_string())?;
        match page.last_log_id {
            Some(last) if full => after = Some(last),
            _ => return Ok(changed),
        }
    }
}
