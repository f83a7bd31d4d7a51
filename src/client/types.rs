//! Request bodies and create responses of the `/v1/` API (docs/API.md), in their wire names.

use serde::{Deserialize, Serialize};

use crate::model::Folder;

fn is_false(b: &bool) -> bool {
    !*b
}

/// Body of `POST /v1/contacts`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewContactRequest {
    pub folder_id: String,
    pub callsign: String,
    /// MHz as the user gave it; the server reads kHz-sized values as kHz.
    pub frequency: f64,
    pub mode: String,
    pub time_on: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rst_sent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rst_received: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sig: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sig_info: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub my_sig: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub my_sig_info: Option<String>,
}

/// Answer of `POST /v1/contacts`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatedContact {
    pub id: String,
    /// The first stored contact this one duplicates (it was stored all the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
    /// True when the server answered a retry of a request it had already carried out.
    #[serde(default, skip_serializing_if = "is_false")]
    pub replayed: bool,
}

/// Answer of `DELETE /v1/contacts/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Deleted {
    pub id: String,
    pub success: bool,
}

/// Body of `POST /v1/folders`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum NewFolderRequest {
    #[serde(rename_all = "camelCase")]
    Monthly {
        month: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        program_id: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    Category {
        name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        parent_id: Option<String>,
    },
}

/// Body of `POST /v1/activations`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewActivationRequest {
    pub location_reference: String,
    pub callsign: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_time: Option<String>,
}

/// Answer of the find-or-create endpoints (`POST /v1/folders`, `POST /v1/activations`): the
/// folder and whether it was made now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FolderCreated {
    #[serde(flatten)]
    pub folder: Folder,
    pub created: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub replayed: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn folder_bodies_use_the_wire_names() {
        let monthly = NewFolderRequest::Monthly {
            month: "2026-11".into(),
            program_id: Some("pota".into()),
        };
        assert_eq!(
            serde_json::to_value(&monthly).unwrap(),
            json!({"type": "monthly", "month": "2026-11", "programId": "pota"})
        );
        let category = NewFolderRequest::Category {
            name: "Field day".into(),
            parent_id: None,
        };
        assert_eq!(
            serde_json::to_value(&category).unwrap(),
            json!({"type": "category", "name": "Field day"})
        );
    }

    #[test]
    fn a_created_folder_reads_the_record_and_created() {
        let body = json!({"autoFolderKey":null,"autoFolderType":"monthly","callsign":null,
            "contactCount":0,"created":false,"createdAt":"2026-11-22T11:28:24.983Z","endTime":null,
            "id":"fld_onuifqzeab5uxzmj","locationName":null,"locationReference":null,
            "month":"2026-11","name":"2026-11","parentId":"fld_tnpun2ykr2hlk7pu","programId":null,
            "startTime":null,"type":"monthly","replayed":true});
        let created: FolderCreated = serde_json::from_value(body).unwrap();
        assert!(!created.created);
        assert!(created.replayed);
        assert_eq!(created.folder.name, "2026-11");
        let back = serde_json::to_value(&created).unwrap();
        assert_eq!(back["created"], false);
        assert_eq!(back["id"], "fld_onuifqzeab5uxzmj");
        assert_eq!(back["type"], "monthly");
    }
}
