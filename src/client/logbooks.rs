//! `/v1/logbooks`: the account's external logbooks (docs/API.md, "External logbooks").

use reqwest::Method;
use serde::{Deserialize, Serialize};

use super::{Client, ClientError, encode};
use crate::model::Logbook;

/// Body of `POST /v1/logbooks`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectLogbook {
    pub provider: String,
    pub api_key: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_push: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_sync: Option<bool>,
}

/// Body of `PATCH /v1/logbooks/{id}`: what changes.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeLogbook {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_push: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_sync: Option<bool>,
}

#[derive(Debug, Clone, Deserialize)]
struct Logbooks {
    items: Vec<Logbook>,
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

    /// `DELETE /v1/logbooks/{id}`
    pub async fn disconnect_logbook(&self, id: &str) -> Result<serde_json::Value, ClientError> {
        self.call(Method::DELETE, self.url(&["logbooks", id]), &[], None)
            .await
    }
}
