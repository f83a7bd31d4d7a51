//! `/v1/logbooks`: the account's external logbooks (docs/API.md, "External logbooks").

use reqwest::Method;
use serde::{Deserialize, Serialize};

use super::{Client, ClientError, encode};
use svc_model::{Logbook, Review};

/// Body of `POST /v1/logbooks`: QRZ's `api_key`, Club Log's `email`, `password` and
/// `callsign`, or eQSL's `user` and `password`.
#[derive(Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectLogbook {
    pub provider: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callsign: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_push: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_sync: Option<bool>,
}

// The key and the password are secrets of the user's: `Debug` names the request only.
impl std::fmt::Debug for ConnectLogbook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectLogbook")
            .field("provider", &self.provider)
            .field("email", &self.email)
            .field("callsign", &self.callsign)
            .field("user", &self.user)
            .finish_non_exhaustive()
    }
}

/// Body of `PATCH /v1/logbooks/{id}`: what changes.
#[derive(Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeLogbook {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_push: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_sync: Option<bool>,
}

impl std::fmt::Debug for ChangeLogbook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChangeLogbook")
            .field("email", &self.email)
            .field("auto_push", &self.auto_push)
            .field("auto_sync", &self.auto_sync)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, Deserialize)]
struct Logbooks {
    items: Vec<Logbook>,
}

#[derive(Debug, Clone, Deserialize)]
struct Reviews {
    items: Vec<Review>,
}

impl Client {
    /// `GET /v1/logbooks` (an elevated key).
    pub async fn logbooks(&self) -> Result<Vec<Logbook>, ClientError> {
        let list: Logbooks = self
            .call(Method::GET, self.url(&["logbooks"]), &[], None)
            .await?;
        Ok(list.items)
    }

    /// `POST /v1/logbooks`: the service checks the key with the provider before it keeps it.
    pub async fn connect_logbook(&self, request: &ConnectLogbook) -> Result<Logbook, ClientError> {
        self.call(
            Method::POST,
            self.url(&["logbooks"]),
            &[],
            Some(encode(request)?),
        )
        .await
    }

    /// `PATCH /v1/logbooks/{id}`
    pub async fn change_logbook(
        &self,
        id: &str,
        change: &ChangeLogbook,
    ) -> Result<Logbook, ClientError> {
        self.call(
            Method::PATCH,
            self.url(&["logbooks", id]),
            &[],
            Some(encode(change)?),
        )
        .await
    }

    /// `POST /v1/logbooks/{id}/import`: the service reads the synced book now.
    pub async fn import_logbook(&self, id: &str) -> Result<serde_json::Value, ClientError> {
        self.call(
            Method::POST,
            self.url(&["logbooks", id, "import"]),
            &[],
            Some(b"{}".to_vec()),
        )
        .await
    }

    /// `POST /v1/logbooks/{id}/upload`: the service sends a Club Log book the contacts of
    /// its callsign stored before it was connected, in one file.
    pub async fn upload_logbook(&self, id: &str) -> Result<serde_json::Value, ClientError> {
        self.call(
            Method::POST,
            self.url(&["logbooks", id, "upload"]),
            &[],
            Some(b"{}".to_vec()),
        )
        .await
    }

    /// `GET /v1/logbooks/review`
    pub async fn reviews(&self) -> Result<Vec<Review>, ClientError> {
        let list: Reviews = self
            .call(Method::GET, self.url(&["logbooks", "review"]), &[], None)
            .await?;
        Ok(list.items)
    }

    /// `POST /v1/logbooks/review/{qsoId}`: send the contact to `send_to`, or skip it (None).
    pub async fn settle_review(
        &self,
        qso_id: &str,
        send_to: Option<&str>,
    ) -> Result<serde_json::Value, ClientError> {
        let body = match send_to {
            Some(book) => serde_json::json!({ "action": "send", "logbookId": book }),
            None => serde_json::json!({ "action": "skip" }),
        };
        self.call(
            Method::POST,
            self.url(&["logbooks", "review", qso_id]),
            &[],
            Some(encode(&body)?),
        )
        .await
    }

    /// `DELETE /v1/logbooks/{id}`
    pub async fn disconnect_logbook(&self, id: &str) -> Result<serde_json::Value, ClientError> {
        self.call(Method::DELETE, self.url(&["logbooks", id]), &[], None)
            .await
    }
}
