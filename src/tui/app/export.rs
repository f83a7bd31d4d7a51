//! Alt-X: the selected activation's POTA files, or a log as ADIF, written into the working
//! directory, and what the message line says of it.

use super::{App, Effect, Pane, Tone};
use crate::client::export::Exported;
use crate::client::journal::is_local_folder_id;
use crate::model::FolderType;

impl App {
    pub(super) fn export_key(&mut self) -> Vec<Effect> {
        let folder = match self.focus {
            Pane::Activations => self.activations.selected().cloned(),
            // Categories hold no contacts: the open folder, if any, is meant then.
            Pane::Folders => self
                .folders
                .selected()
                .filter(|f| f.folder_type != FolderType::Category)
                .or(self.contacts.folder.as_ref())
                .cloned(),
            Pane::Contacts => self.contacts.folder.clone(),
        };
        let Some(folder) = folder else {
            self.say(
                Tone::Warning,
                "Alt-X exports: select an activation or a log, or open a folder first",
            );
            return vec![];
        };
        if is_local_folder_id(&folder.id) {
            self.say(
                Tone::Warning,
                format!(
                    "{} is not on the service yet; Alt-X exports it once the journal has sent it",
                    folder.name
                ),
            );
            return vec![];
        }
        let Some(callsign) = self.me.as_ref().map(|me| me.callsign.clone()) else {
            self.say(Tone::Warning, "the account has not loaded yet; try x again");
            return vec![];
        };
        self.say(Tone::Info, format!("exporting {}…", folder.name));
        vec![Effect::Export { folder, callsign }]
    }

    pub(super) fn exported(&mut self, name: &str, result: Result<Exported, String>) {
        match result {
            Ok(done) => {
                let path = done
                    .path
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                let records = if done.records == done.contacts {
                    String::new()
                } else {
                    format!(" as {} records", done.records)
                };
                let contacts = match done.contacts {
                    1 => "1 contact".to_owned(),
                    n => format!("{n} contacts"),
                };
                // A two-fer's files, one per park: name them all, since each is to upload.
                let to = if done.files.len() > 1 {
                    let paths: Vec<String> = done
                        .files
                        .iter()
                        .map(|f| f.path.display().to_string())
                        .collect();
                    format!("{} files, one per park: {}", paths.len(), paths.join(", "))
                } else {
                    path
                };
                self.say(
                    Tone::Success,
                    format!("exported {contacts}{records} to {to}"),
                );
            }
            Err(why) => self.say(Tone::Error, format!("{name} not exported: {why}")),
        }
    }
}
