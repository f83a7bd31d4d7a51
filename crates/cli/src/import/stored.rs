//! The import's activations beside the ones stored already. POTA takes a two-fer as one file
//! per park, and a ham may import them one at a time: the second file's QSOs are the first
//! one's, at another park. Such QSOs go nowhere new: the stored activation is found (the same
//! activator and UTC day, other parks, every one of the QSOs) and is the two-fer from then on,
//! its parks added through the service ([`Meeting::AtMoreParks`]); a file of a stored two-fer,
//! or the two-fer's files together, imported again find their QSOs there
//! ([`Meeting::Within`]).

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use svc_client::{Client, ClientError, ServerError};
use svc_model::filing::{Meeting, Place, Qso};
use svc_model::{Contact, Folder};

/// Activations asked for a page at a time, newest first.
const PAGE: u32 = 200;

/// Parks added to a stored activation, for the summary.
#[derive(Debug, Clone, Serialize)]
pub(super) struct ParksAdded {
    /// The activation, named as it was before.
    pub(super) activation: String,
    /// The parks added.
    pub(super) parks: String,
    /// Its parks after.
    pub(super) now: String,
}

/// What meeting the stored activations gave, per place of the import: the name of the stored
/// activation that holds its QSOs, or the service's refusal to add its parks to it.
#[derive(Debug, Default)]
pub(super) struct Meetings {
    pub(super) met: HashMap<Place, Result<String, Box<ServerError>>>,
    pub(super) added: Vec<ParksAdded>,
}

/// Finds, for each of the import's activations (`wanted`, with its QSOs), a stored activation
/// of the same activator and UTC day at other parks that holds those QSOs, and adds the
/// import's parks to it where it is the same activation at more parks. Asks the service
/// nothing when the import files into no activation; reads the contacts of a stored activation
/// only when it is of the activator and day of one of the import's under other parks. A
/// failure to add parks is that place's (its records are refused with it); a failure to read
/// stops the import.
pub(super) async fn meet(
    client: &Client,
    wanted: &HashMap<Place, BTreeSet<Qso>>,
) -> Result<Meetings, ClientError> {
    let mut meetings = Meetings::default();
    let days: BTreeSet<&str> = wanted
        .keys()
        .filter_map(|p| match p {
            Place::Activation { day, .. } => Some(day.as_str()),
            Place::Contest { .. } | Place::Monthly { .. } => None,
        })
        .collect();
    let Some(first) = days.first().copied() else {
        return Ok(meetings);
    };
    let stored = activations_since(client, first).await?;
    let mut heard: HashMap<String, BTreeSet<Qso>> = HashMap::new();
    for (place, qsos) in wanted {
        let Place::Activation {
            callsign,
            parks,
            day,
        } = place
        else {
            continue;
        };
        // The activation of these very parks is found by its identity, and its contacts by
        // their keys, unless it is a two-fer, which may have been given its parks from files
        // imported one at a time, under the keys of their records.
        for folder in stored.iter().filter(|f| {
            f.callsign.as_deref() == Some(callsign.as_str())
                && f.start_time.map(|t| t.utc_compact_date()).as_deref() == Some(day.as_str())
                && (f.location_reference.as_deref() != Some(parks.as_str()) || parks.contains(','))
        }) {
            let stored_parks = folder.location_reference.as_deref().unwrap_or_default();
            if !heard.contains_key(&folder.id) {
                let contacts = client.all_contacts(&folder.id).await?;
                heard.insert(
                    folder.id.clone(),
                    contacts.iter().map(Contact::qso).collect(),
                );
            }
            let meeting = Meeting::of(stored_parks, &heard[&folder.id], parks, qsos);
            let met = match meeting {
                None => continue,
                Some(Meeting::Within) => Ok(folder.name.clone()),
                Some(Meeting::AtMoreParks) => match client.add_parks(&folder.id, parks).await {
                    Ok(grown) => {
                        meetings.added.push(ParksAdded {
                            activation: folder.name.clone(),
                            parks: parks.clone(),
                            now: grown.location_reference.clone().unwrap_or_default(),
                        });
                        Ok(grown.name)
                    }
                    Err(ClientError::Server(e)) => Err(e),
                    Err(other) => return Err(other),
                },
            };
            meetings.met.insert(place.clone(), met);
            break;
        }
    }
    Ok(meetings)
}

/// The account's activations that started on `first` (`YYYYMMDD`, UTC) or later: the pages,
/// newest first, up to the first that reaches before it.
async fn activations_since(client: &Client, first: &str) -> Result<Vec<Folder>, ClientError> {
    let mut found = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = client
            .activations(false, Some(PAGE), cursor.as_deref())
            .await?;
        let mut earlier = false;
        for folder in page.items {
            match folder.start_time.map(|t| t.utc_compact_date()) {
                Some(day) if day.as_str() < first => earlier = true,
                _ => found.push(folder),
            }
        }
        match page.cursor {
            Some(next) if !earlier => cursor = Some(next),
            _ => return Ok(found),
        }
    }
}
