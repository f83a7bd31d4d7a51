//! The log as the journal holds it, for judging what working a call would bring (a new
//! entity, a new band, a dupe): its copy of the service's contacts and the contacts waiting
//! to be sent, so that it works with the link down; and the copy of the whole log from the
//! service, so that the judging is against every folder, not only those this machine showed.
//! `svc listen wsjtx` and the logbook's `--wsjtx` colour WSJT-X's decodes from it.

use super::*;
use crate::Client;
use svc_model::dxcc::Dxcc;
use svc_model::needed::Worked;

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
    /// service could not be read or the journal not written.
    pub async fn copy_whole_log(&self, client: &Client) -> Result<(), String> {
        let asked_at = Timestamp::now();
        let folders = client.all_folders(None).await.map_err(|e| e.to_string())?;
        for folder in folders {
            let contacts = client
                .all_contacts(&folder.id)
                .await
                .map_err(|e| e.to_string())?;
            self.save_contacts(&folder.id, &contacts, asked_at, true)
                .await
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}
