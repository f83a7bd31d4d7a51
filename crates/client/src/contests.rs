//! `/v1/contests`: contest logs, their standing and their Cabrillo files (docs/API.md,
//! "Contest logs").

use std::collections::BTreeMap;

use reqwest::Method;
use serde::{Deserialize, Serialize};

use super::{Client, ClientError, FULL_PAGE, encode, page_query, refusal};
use crate::types::FolderCreated;
use svc_model::cabrillo::Standing;
use svc_model::contest::{Contest, SerialBlock};
use svc_model::folder::FolderRole;
use svc_model::{Folder, Page};

/// The body of `POST /v1/contests`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewContestRequest {
    pub contest_id: String,
    pub callsign: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exchange: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub categories: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub cabrillo: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_time: Option<String>,
}

/// A contest log with where it stands: `GET /v1/contests/{id}`.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct ContestShown {
    #[serde(flatten)]
    pub folder: Folder,
    /// As the service counted it; read back as JSON, so a newer service's additions pass.
    pub standing: serde_json::Value,
}

impl ContestShown {
    /// The standing as this client knows it, when the service's reads as one.
    pub fn standing(&self) -> Option<Standing> {
        serde_json::from_value(self.standing.clone()).ok()
    }
}

/// What a Cabrillo file adds to the log: the query of `GET /v1/contests/{id}/cabrillo`.
#[derive(Debug, Clone, Default)]
pub struct CabrilloRequest {
    /// `kind=VALUE` each, or a value alone.
    pub categories: Vec<String>,
    /// Header lines by tag, lower-case (`name`, `email`, `address`, `club`, `location`).
    pub header: BTreeMap<String, String>,
    pub soapbox: Option<String>,
}

impl Client {
    /// `POST /v1/contests`: starts a contest log, or joins that weekend's.
    pub async fn start_contest(
        &self,
        request: &NewContestRequest,
    ) -> Result<FolderCreated, ClientError> {
        self.call(
            Method::POST,
            self.url(&["contests"]),
            &[],
            Some(encode(request)?),
        )
        .await
    }

    /// Every contest log, following the cursor to the last page.
    pub async fn all_contests(&self) -> Result<Vec<Folder>, ClientError> {
        let mut items = Vec::new();
        let mut cursor = None;
        loop {
            let query = page_query(Some(FULL_PAGE), cursor.as_deref());
            let page: Page<Folder> = self
                .call(Method::GET, self.url(&["contests"]), &query, None)
                .await?;
            items.extend(page.items);
            match page.cursor {
                Some(next) => cursor = Some(next),
                None => return Ok(items),
            }
        }
    }

    /// `GET /v1/contests/{id}`
    pub async fn contest(&self, id: &str) -> Result<ContestShown, ClientError> {
        self.call(Method::GET, self.url(&["contests", id]), &[], None)
            .await
    }

    /// The contest of the log `id`, for reading an exchange typed for one of its contacts:
    /// `None` when it is no contest log of this account's, or of a contest this build does
    /// not know.
    pub async fn contest_of(&self, id: &str) -> Result<Option<&'static Contest>, ClientError> {
        match self.contest(id).await {
            Ok(shown) => Ok(match shown.folder.role() {
                Ok(FolderRole::Contest { contest, .. }) => Some(contest),
                _ => None,
            }),
            Err(ClientError::Server(e)) if e.status == 404 => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `POST /v1/contests/{id}/serials`: `count` serial numbers for this station alone.
    pub async fn reserve_serials(&self, id: &str, count: u32) -> Result<SerialBlock, ClientError> {
        let body = serde_json::json!({ "count": count });
        self.call(
            Method::POST,
            self.url(&["contests", id, "serials"]),
            &[],
            Some(encode(&body)?),
        )
        .await
    }

    /// `POST /v1/contests/{id}/end`
    pub async fn end_contest(
        &self,
        id: &str,
        end_time: Option<&str>,
    ) -> Result<Folder, ClientError> {
        self.end_folder("contests", id, end_time).await
    }

    /// `GET /v1/contests/{id}/cabrillo`: the log's Cabrillo file.
    pub async fn cabrillo(
        &self,
        id: &str,
        request: &CabrilloRequest,
    ) -> Result<String, ClientError> {
        let mut query = Vec::new();
        if !request.categories.is_empty() {
            query.push(("categories", request.categories.join(",")));
        }
        for (tag, value) in &request.header {
            if let Some((name, _)) = svc_model::contest::HEADER.iter().find(|(n, _)| n == tag) {
                query.push((*name, value.clone()));
            }
        }
        if let Some(soapbox) = &request.soapbox {
            query.push(("soapbox", soapbox.clone()));
        }
        self.call_with(
            Method::GET,
            self.url(&["contests", id, "cabrillo"]),
            &query,
            None,
            None,
            async |response: reqwest::Response| {
                if !response.status().is_success() {
                    return Err(refusal(response).await);
                }
                response.text().await.map_err(|e| ClientError::Transport {
                    message: format!("the Cabrillo file was cut off: {e}"),
                    attempts: 1,
                })
            },
        )
        .await
    }
}
