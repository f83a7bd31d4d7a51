//! The log as the journal holds it, for judging what working a call would bring (a new
//! entity, a new band, a dupe): its copy of the service's contacts and the contacts waiting
//! to be sent, so that it works with the link down; and the copy of the whole log from the
//! service, so that the judging is against every folder, not only those this machine showed.
//! `svc listen wsjtx` and the logbook's `--wsjtx` colour WSJT-X's decodes from it.

use super::*;
use crate::{Client, FULL_PAGE};
use svc_model::dxcc::Dxcc;
use svc_model::needed::Worked;

/// Pages of contacts a copy of the whole log asks for at once, before it paces itself: a log
/// of a few thousand contacts is copied in a moment.
const COPY_AT_ONCE: u32 = 20;
/// The pause before each later page: one request a second is half the service's default burst
/// limit (120 a minute, per key), leaving the rest to the contacts being logged.
const COPY_PACE: std::time::Duration = std::time::Duration::from_secs(1);

impl Journal {
    /// The log the journal holds: its copy of the service's contacts, and those waiting to go.
    pub async fn worked(&self, dxcc: &Dxcc) -> Result<Worked, JournalError> {
        let mut worked = Worked::default();
        self.each_cached_contact(|contact| worked.add(dxcc, &contact))
            .await?;
        for entry in self.entries().await? {
            if let (EntryState::Waiting, EntryRequest::Contact(contact)) =
                (entry.state, &entry.request)
            {
                worked.add_input(dxcc, contact);
            }
        }
        Ok(worked)
    }

    /// Copies every folder's contacts from the service into the journal; why not, when the
    /// service could not be read or the journal not written. A long log is copied at a pace
    /// ([`COPY_AT_ONCE`], [`COPY_PACE`]), so that the copy never spends the key's burst limit
    /// the contacts logged meanwhile need.
    pub async fn copy_whole_log(&self, client: &Client) -> Result<(), String> {
        let asked_at = Timestamp::now();
        let folders = client.all_folders(None).await.map_err(|e| e.to_string())?;
        let mut requests = 0;
        for folder in folders {
            let mut cursor = None;
            loop {
                requests += 1;
                if requests > COPY_AT_ONCE {
                    tokio::time::sleep(COPY_PACE).await;
                }
                let page = client
                    .contacts(&folder.id, Some(FULL_PAGE), cursor.as_deref())
                    .await
                    .map_err(|e| e.to_string())?;
                // A page at a time, newest first, so that memory holds one page: each replaces
                // what the copy held of its time range and after, the last the whole folder's
                // rest (what the service no longer has).
                let last = page.cursor.is_none();
                self.save_contacts(&folder.id, &page.items, asked_at, last)
                    .await
                    .map_err(|e| e.to_string())?;
                match page.cursor {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
            }
        }
        Ok(())
    }
}
