//! An activation as the file POTA takes for upload, for every side that offers it (the CLI,
//! the logbook, MCP, the web pages): its name, `CALL@PARK-YYYYMMDD.adi`, and its records:
//! every contact over all its UTC days, the activator as `STATION_CALLSIGN`, `MY_SIG` POTA and
//! the park as `MY_SIG_INFO`, and one record per worked park of a park-to-park contact. A
//! two-fer has one file per park, each with every contact, since POTA credits a park from its
//! own file.

use super::Record;
use svc_model::{Contact, Folder, FolderType};

/// One park's upload file of an activation, before it is written.
#[derive(Debug, Clone, PartialEq)]
pub struct ParkFile {
    pub park: String,
    pub file_name: String,
    pub records: Vec<Record>,
}

/// Each park of an activation with its upload file's name: one for a single park, one per
/// park of a two-fer. The error says why a folder has none, and what exports it instead.
pub fn file_names(folder: &Folder) -> Result<Vec<(String, String)>, String> {
    let not_pota = || {
        format!(
            "{} ({}) is a {} folder, not an activation: POTA's upload file is made from an activation; svc export adif --folder {} exports any folder",
            folder.name,
            folder.id,
            folder.folder_type.as_str(),
            folder.id
        )
    };
    if folder.folder_type != FolderType::Activation {
        return Err(not_pota());
    }
    match (
        &folder.callsign,
        &folder.location_reference,
        folder.start_time,
    ) {
        (Some(call), Some(parks), Some(start)) if !parks.trim().is_empty() => Ok(parks
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|park| {
                // What the service sends names a file in the user's directory: only
                // characters of a plain file name pass (a park `/../x` would climb out).
                let name = format!(
                    "{}@{}-{}.adi",
                    file_safe(call),
                    file_safe(park),
                    start.utc_compact_date()
                );
                (park.to_owned(), name)
            })
            .collect()),
        _ => Err(not_pota()),
    }
}

/// A file name for any folder's export: an activation's POTA file name (its first park's),
/// else the folder's name with what a file name cannot hold as `_`.
pub fn folder_file_name(folder: &Folder) -> String {
    match file_names(folder) {
        Ok(mut names) => names.swap_remove(0).1,
        Err(_) => format!("{}.adi", file_safe(&folder.name)),
    }
}

/// The header line of a park's POTA file: `POTA US-0001 Acadia National Park` (the name when
/// it is known).
pub fn park_comment(park: &str, name: Option<&str>) -> String {
    match name {
        Some(name) => format!("POTA {park} {name}"),
        None => format!("POTA {park}"),
    }
}

/// The files of the activation `folder` from its `contacts`, oldest first as POTA lists them;
/// the activator is the folder's callsign, else `account_callsign`.
pub fn files(
    folder: &Folder,
    contacts: &[Contact],
    account_callsign: &str,
) -> Result<Vec<ParkFile>, String> {
    let activator = folder.callsign.as_deref().unwrap_or(account_callsign);
    let mut ordered: Vec<&Contact> = contacts.iter().collect();
    ordered.sort_by_key(|c| c.time_on);
    Ok(file_names(folder)?
        .into_iter()
        .map(|(park, file_name)| {
            let mut records = Vec::new();
            for contact in &ordered {
                for mut record in super::contact::records_per_park(contact, activator) {
                    record.set("STATION_CALLSIGN", activator);
                    record.set("MY_SIG", "POTA");
                    record.set("MY_SIG_INFO", &park);
                    record.set("MY_POTA_REF", &park);
                    records.push(record);
                }
            }
            ParkFile {
                park,
                file_name,
                records,
            }
        })
        .collect())
}

/// `text` as part of a file name: letters, digits, `-`, `@` and `.` kept, anything else
/// (a path separator, a control character) as `_`.
fn file_safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '@' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_name_from_the_service_stays_in_its_directory() {
        // As the service sends it, with a name and references a hostile server might.
        let mut folder: Folder = serde_json::from_value(serde_json::json!({
            "id": "fld_aaaaaaaaaaaaaaaa",
            "name": "x",
            "type": "activation",
            "parentId": "fld_bbbbbbbbbbbbbbbb",
            "callsign": "W1AW/P",
            "locationReference": "US-1234,/../../etc/x,US-5678",
            "startTime": "2026-11-22T10:00:00Z",
            "contactCount": 0,
            "createdAt": "2026-11-22T10:00:00Z",
        }))
        .unwrap();
        let names: Vec<String> = file_names(&folder)
            .unwrap()
            .into_iter()
            .map(|(_, name)| name)
            .collect();
        assert_eq!(
            names,
            [
                "W1AW_P@US-1234-20261122.adi",
                "W1AW_P@_.._.._etc_x-20261122.adi",
                "W1AW_P@US-5678-20261122.adi"
            ]
        );
        folder.folder_type = FolderType::Monthly;
        folder.name = "../2026-11".into();
        assert_eq!(folder_file_name(&folder), ".._2026-11.adi");
    }
}
