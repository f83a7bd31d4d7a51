//! Request bodies and create responses of the `/v1/` API (docs/API.md), in their wire names.

use serde::{Deserialize, Serialize};

use svc_model::text::printable;

use svc_model::{Contact, ContactInput, Folder};

fn is_false(b: &bool) -> bool {
    !*b
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

/// Answer of `PATCH /v1/contacts/{id}`: the contact as it is after the edit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EditedContact {
    #[serde(flatten)]
    pub contact: Contact,
    /// True when the server answered a retry of an edit it had already carried out.
    #[serde(default, skip_serializing_if = "is_false")]
    pub replayed: bool,
}

/// Answer of `DELETE /v1/contacts/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Deleted {
    pub id: String,
    pub success: bool,
    /// True when the server answered a retry of a delete it had already carried out.
    #[serde(default, skip_serializing_if = "is_false")]
    pub replayed: bool,
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

/// Body of `POST /v1/activations` (kept as JSON by the offline journal too).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

/// One contact of `POST /v1/contacts/batch`: the body of a single create and the
/// `Idempotency-Key` it would carry, so a batch sent again replays item by item.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchItem {
    #[serde(flatten)]
    pub contact: ContactInput,
    pub idempotency_key: String,
}

/// Body of `POST /v1/contacts/batch`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BatchRequest<'a> {
    pub contacts: &'a [BatchItem],
    /// Contacts brought over from another logbook: the batch is one request in the burst
    /// window and does not use the daily budget (docs/API.md, "Imports").
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub import: bool,
}

/// Answer of `POST /v1/contacts/batch`: one result per item, in the order sent.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct BatchResponse {
    pub results: Vec<BatchResult>,
}

/// One item's result: `201` stored now, `200` an idempotent replay, else the error envelope
/// fields a single create would have answered with that status.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchResult {
    pub status: u16,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub duplicate_of: Option<String>,
    #[serde(default)]
    pub replayed: bool,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub details: Option<serde_json::Value>,
    /// Seconds, for a `rate_limited` item that may be sent again later.
    #[serde(default)]
    pub retry_after: Option<u64>,
    /// The batch request's id, on failed items.
    #[serde(default)]
    pub request_id: Option<String>,
}

impl BatchResult {
    /// The item as a single create's outcome.
    // The error is what a single create answers, unboxed like the rest of the client's.
    #[allow(clippy::result_large_err)]
    pub fn into_result(self) -> Result<CreatedContact, crate::ServerError> {
        match (self.status, self.id) {
            (200..=299, Some(id)) => Ok(CreatedContact {
                id,
                duplicate_of: self.duplicate_of,
                replayed: self.replayed || self.status == 200,
            }),
            (status, _) => Err(crate::ServerError {
                error: printable(&self.error.unwrap_or_else(|| "internal".into())),
                message: printable(
                    &self
                        .message
                        .unwrap_or_else(|| format!("the item was answered with HTTP {status}")),
                ),
                details: self.details,
                request_id: self.request_id,
                status,
                retry_after: self.retry_after,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn batch_items_flatten_the_contact_and_results_read_as_single_creates() {
        let item = BatchItem {
            contact: ContactInput {
                folder_id: "fld_a".into(),
                callsign: "K1ABC".into(),
                frequency: 14.074,
                mode: "FT8".into(),
                time_on: "2026-11-22T14:05:00Z".into(),
                ..ContactInput::default()
            },
            idempotency_key: "k1".into(),
        };
        let body = serde_json::to_value(BatchRequest {
            contacts: std::slice::from_ref(&item),
            import: false,
        })
        .unwrap();
        assert_eq!(body["contacts"][0]["callsign"], "K1ABC");
        assert_eq!(body["contacts"][0]["idempotencyKey"], "k1");
        let answer: BatchResponse = serde_json::from_value(json!({"results": [
            {"status": 201, "id": "qso_a", "duplicateOf": "qso_b"},
            {"status": 200, "id": "qso_c", "replayed": true},
            {"status": 429, "error": "rate_limited", "message": "slow down",
             "details": {"reason": "burst"}, "retryAfter": 7, "requestId": "req_x"}
        ]}))
        .unwrap();
        let mut results = answer.results.into_iter().map(BatchResult::into_result);
        let first = results.next().unwrap().unwrap();
        assert_eq!((first.id.as_str(), first.replayed), ("qso_a", false));
        assert_eq!(first.duplicate_of.as_deref(), Some("qso_b"));
        assert!(results.next().unwrap().unwrap().replayed);
        let refused = results.next().unwrap().unwrap_err();
        assert_eq!(refused.reason(), Some("burst"));
        assert_eq!(refused.retry_after, Some(7));
        assert_eq!(refused.request_id.as_deref(), Some("req_x"));
        assert_eq!(refused.exit_code(), 4);
    }

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
