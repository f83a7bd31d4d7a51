//! The typed HTTP client of the `/v1/` API, shared by the command line and the terminal UI:
//! one method per endpoint, retries as docs/CLI.md says, an `Idempotency-Key` on every create and
//! edit.

pub mod config;
pub mod contests;
pub mod error;
pub mod export;
pub mod journal;
pub mod keystore;
pub mod logbooks;
pub mod lookup;
pub mod lotw;
pub mod rig;
pub mod stations;
pub mod types;

use std::time::{Duration, Instant};

use reqwest::header::{AUTHORIZATION, HeaderValue, RETRY_AFTER};
use reqwest::{Method, StatusCode, Url};
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use error::{ClientError, ServerError};
pub use types::{
    BatchItem, BatchRequest, BatchResponse, BatchResult, CreatedContact, Deleted, EditedContact,
    FolderCreated, NewActivationRequest, NewFolderRequest,
};

use svc_model::confirm::{ConfirmAnswer, Confirmation, ConfirmationStatus};
use svc_model::ids::{base32, random_bytes};
use svc_model::text::printable;
use svc_model::{
    ApiKey, Contact, ContactInput, ContactPatch, ErrorBody, ErrorCode, Folder, FolderType,
    PLAN_HEADER, Page, Plan, QSO_CAP_HEADER, Whoami,
};
use svc_outbound::transport_message;

/// How hard the client tries before it reports a failure.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// Attempts in all when the request gets no HTTP answer.
    pub transport_attempts: u32,
    /// First backoff after a transport failure; doubled each time, plus up to 50% jitter.
    pub backoff: Duration,
    /// Wait before the one retry of an `internal` (5xx) answer.
    pub internal_delay: Duration,
    /// The longest `Retry-After` the client waits out for its one retry of `rate_limited`;
    /// longer ones (a daily budget resets at midnight) are reported at once.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            transport_attempts: 3,
            backoff: Duration::from_millis(200),
            internal_delay: Duration::from_millis(500),
            // A burst window is one minute, so its Retry-After is never longer.
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// One HTTP attempt, for `--verbose` and for the TUI's status line.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub number: u32,
    pub method: Method,
    pub url: Url,
    /// The HTTP status, or `None` when there was no answer.
    pub status: Option<u16>,
    /// The error code or transport failure, when the attempt failed.
    pub error: Option<String>,
    pub duration: Duration,
    /// When another attempt follows: after how long and why.
    pub retry: Option<(Duration, String)>,
}

pub type Observer = Box<dyn Fn(&Attempt) + Send + Sync>;

/// The most contacts one `POST /v1/contacts/batch` takes.
pub const MAX_BATCH: usize = 500;

/// Page size used when a list is read to its end: the largest the server gives.
pub const FULL_PAGE: u32 = svc_model::page::MAX_LIMIT;

pub struct Client {
    base: Url,
    auth: HeaderValue,
    http: reqwest::Client,
    policy: RetryPolicy,
    observer: Option<Observer>,
}

/// Checks an API base given by the user: an `http://` or `https://` URL.
pub fn parse_api_base(text: &str) -> Result<Url, String> {
    let text = text.trim();
    let url = Url::parse(text).map_err(|e| {
        format!("{text:?} is not a URL ({e}); give one such as http://127.0.0.1:8787")
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!(
            "{text:?} is not an http:// or https:// URL; give one such as https://logbook.example.org"
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "{text:?} has a query or fragment; give the base address only, e.g. http://127.0.0.1:8787"
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        // They would go to the server as Basic credentials beside the key; not echoed.
        return Err(
            "the API base holds a user name or password (user:pw@host); give the address alone: the key is the only credential svc sends"
                .into(),
        );
    }
    // The client adds /v1 itself: a base copied with it would ask for /v1/v1/….
    let mut url = url;
    let path = url.path().trim_end_matches('/').to_owned();
    if let Some(base) = path.strip_suffix("/v1") {
        url.set_path(if base.is_empty() { "/" } else { base });
    }
    Ok(url)
}

/// The API base in docs/CLI.md's order: `flag` (`--api-base`, or `SVC_API_BASE` which clap
/// reads into it), else `apiBase` of the config file, else the local default. The error says
/// which of them was wrong.
pub fn resolve_api_base(flag: Option<&str>) -> Result<Url, String> {
    let (text, from) = match flag.map(str::trim).filter(|s| !s.is_empty()) {
        Some(b) => (b.to_owned(), "--api-base (or SVC_API_BASE)"),
        None => match keystore::configured_api_base().map_err(|e| e.to_string())? {
            Some(b) => (b, "apiBase in the config file"),
            None => (config::DEFAULT_API_BASE.to_owned(), "the default"),
        },
    };
    parse_api_base(&text).map_err(|e| format!("{from}: {e}"))
}

fn jitter(max: Duration) -> Duration {
    let [a, b] = random_bytes::<2>();
    max.mul_f64(f64::from(u16::from_le_bytes([a, b])) / f64::from(u16::MAX))
}

/// A fresh `Idempotency-Key`: 128 random bits in base32.
pub fn idempotency_key() -> String {
    base32(&random_bytes::<16>())
}

fn http_client(
    base: &Url,
    connect: Duration,
    answer: Duration,
) -> Result<reqwest::Client, ClientError> {
    svc_outbound::http_client(base, connect, answer).map_err(|message| ClientError::Transport {
        message,
        attempts: 0,
    })
}

impl Client {
    pub fn new(base: Url, key: &ApiKey) -> Result<Client, ClientError> {
        let mut auth =
            HeaderValue::from_str(&format!("Bearer {}", key.expose())).map_err(|_| {
                ClientError::Unexpected {
                    status: 0,
                    message: "the API key cannot be sent in a header".into(),
                }
            })?;
        // Keeps the key out of reqwest's Debug output of the request.
        auth.set_sensitive(true);
        let http = http_client(&base, Duration::from_secs(10), Duration::from_secs(60))?;
        Ok(Client {
            base,
            auth,
            http,
            policy: RetryPolicy::default(),
            observer: None,
        })
    }

    /// A client that gives up on a dead or stalled link sooner: `connect` to open a
    /// connection, `answer` for a whole request. The offline journal's sender and the logbook
    /// use it, so a link that accepts and never answers shows as offline within seconds.
    pub fn with_timeouts(
        mut self,
        connect: Duration,
        answer: Duration,
    ) -> Result<Client, ClientError> {
        self.http = http_client(&self.base, connect, answer)?;
        Ok(self)
    }

    pub fn with_policy(mut self, policy: RetryPolicy) -> Client {
        self.policy = policy;
        self
    }

    pub fn base(&self) -> &Url {
        &self.base
    }

    pub fn with_observer(mut self, observer: Observer) -> Client {
        self.observer = Some(observer);
        self
    }

    /// Whether the service can be reached within `within`: any HTTP answer to `/healthz`,
    /// an error status included, means the link works. The logbook asks it every few seconds,
    /// so a link that stalls shows as offline long before a slow request gives up.
    pub async fn reachable(&self, within: Duration) -> Result<(), ClientError> {
        let mut url = self.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty();
            path.push("healthz");
        }
        match self.http.get(url).timeout(within).send().await {
            Ok(_) => Ok(()),
            Err(e) => Err(ClientError::Transport {
                message: transport_message(&e),
                attempts: 1,
            }),
        }
    }

    fn url(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty();
            path.push("v1");
            path.extend(segments);
        }
        url
    }

    /// Sends one logical request, retrying as the policy says, and reads a 2xx body as `T`.
    async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        url: Url,
        query: &[(&str, String)],
        body: Option<Vec<u8>>,
    ) -> Result<T, ClientError> {
        // One key for every attempt of this create or edit, so a retry can never store a
        // contact twice, nor undo an edit made in between by sending the first one again.
        let idempotency = (method == Method::POST || method == Method::PATCH).then(idempotency_key);
        self.call_keyed(method, url, query, body, idempotency).await
    }

    async fn call_keyed<T: DeserializeOwned>(
        &self,
        method: Method,
        url: Url,
        query: &[(&str, String)],
        body: Option<Vec<u8>>,
        idempotency: Option<String>,
    ) -> Result<T, ClientError> {
        self.call_with(method, url, query, body, idempotency, read::<T>)
            .await
    }

    /// A request with its retries, its answer read by `read_answer` (the JSON of the
    /// answer, or for a download the response itself once its status is known).
    async fn call_with<T>(
        &self,
        method: Method,
        url: Url,
        query: &[(&str, String)],
        body: Option<Vec<u8>>,
        idempotency: Option<String>,
        read_answer: impl AsyncFn(reqwest::Response) -> Result<T, ClientError>,
    ) -> Result<T, ClientError> {
        let mut number = 0;
        let mut transport_failures = 0;
        let mut retried_internal = false;
        let mut retried_rate_limit = false;
        loop {
            number += 1;
            let started = Instant::now();
            let mut request = self
                .http
                .request(method.clone(), url.clone())
                .header(AUTHORIZATION, self.auth.clone());
            if !query.is_empty() {
                request = request.query(query);
            }
            if let Some(key) = &idempotency {
                request = request.header("Idempotency-Key", key);
            }
            if let Some(json) = &body {
                request = request
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(json.clone());
            }
            // Whether the request surely never reached the server (the connection failed).
            let mut unsent = false;
            let (status, result) = match request.send().await {
                Ok(response) => (
                    Some(response.status().as_u16()),
                    read_answer(response).await,
                ),
                Err(e) => {
                    unsent = e.is_connect();
                    let err = ClientError::Transport {
                        message: transport_message(&e),
                        attempts: 0,
                    };
                    (None, Err(err))
                }
            };
            let duration = started.elapsed();
            let mut retry = None;
            if let Err(err) = &result {
                match err {
                    ClientError::Transport { .. } => {
                        transport_failures += 1;
                        // GETs are safe to repeat and creates carry an Idempotency-Key, but a
                        // DELETE that may have been carried out would answer not_found again,
                        // unless it too carries a key the service answers again.
                        let repeatable =
                            method != Method::DELETE || unsent || idempotency.is_some();
                        if repeatable && transport_failures < self.policy.transport_attempts {
                            let base = self.policy.backoff * 2u32.pow(transport_failures - 1);
                            retry = Some((base + jitter(base / 2), "transport failure".into()));
                        }
                    }
                    e if e.exit_code() == ErrorCode::Internal.exit_code() && !retried_internal => {
                        retried_internal = true;
                        retry = Some((self.policy.internal_delay, "server-side failure".into()));
                    }
                    ClientError::Server(e)
                        if e.code() == Some(ErrorCode::RateLimited) && !retried_rate_limit =>
                    {
                        let wait = e.retry_after.map(Duration::from_secs);
                        let resettable = e.reason() != Some("lifetime_logbook_budget");
                        if let Some(wait) = wait
                            && resettable
                            && wait <= self.policy.max_retry_after
                        {
                            retried_rate_limit = true;
                            retry = Some((
                                wait,
                                format!("rate limited, Retry-After {}s", wait.as_secs()),
                            ));
                        }
                    }
                    _ => {}
                }
            }
            if let Some(observe) = &self.observer {
                let error = match &result {
                    Ok(_) => None,
                    Err(ClientError::Server(e)) => Some(e.error.clone()),
                    Err(e) => Some(e.to_string()),
                };
                observe(&Attempt {
                    number,
                    method: method.clone(),
                    url: url.clone(),
                    status,
                    error,
                    duration,
                    retry: retry.clone(),
                });
            }
            match retry {
                Some((wait, _)) => tokio::time::sleep(wait).await,
                None => {
                    return result.map_err(|e| match e {
                        ClientError::Transport { message, .. } => ClientError::Transport {
                            message,
                            attempts: transport_failures,
                        },
                        other => other,
                    });
                }
            }
        }
    }

    /// `GET /v1/whoami`, with the plan's name and the cap its headers give (svc's service
    /// says them; the published one does not).
    pub async fn whoami(&self) -> Result<Whoami, ClientError> {
        let read_whoami = async |response: reqwest::Response| {
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            };
            let plan = header(PLAN_HEADER).and_then(|p| Plan::parse(&p));
            let cap = header(QSO_CAP_HEADER).and_then(|c| c.parse::<i64>().ok());
            let mut me: Whoami = read(response).await?;
            // The header refines the record's plan, never contradicts it.
            if let Some(plan) = plan.filter(|p| p.published() == me.plan) {
                me.plan = plan.as_str().to_owned();
            }
            me.qso_cap = cap.filter(|&c| c >= 0);
            Ok(me)
        };
        self.call_with(
            Method::GET,
            self.url(&["whoami"]),
            &[],
            None,
            None,
            read_whoami,
        )
        .await
    }

    /// `GET /v1/folders`, one page.
    pub async fn folders(
        &self,
        folder_type: Option<FolderType>,
        limit: Option<u32>,
        cursor: Option<&str>,
    ) -> Result<Page<Folder>, ClientError> {
        let mut query = page_query(limit, cursor);
        if let Some(t) = folder_type {
            query.push(("type", t.as_str().to_owned()));
        }
        self.call(Method::GET, self.url(&["folders"]), &query, None)
            .await
    }

    /// Every folder, following the cursor to the last page.
    pub async fn all_folders(
        &self,
        folder_type: Option<FolderType>,
    ) -> Result<Vec<Folder>, ClientError> {
        let mut items = Vec::new();
        let mut cursor = None;
        loop {
            let page = self
                .folders(folder_type, Some(FULL_PAGE), cursor.as_deref())
                .await?;
            items.extend(page.items);
            match page.cursor {
                Some(next) => cursor = Some(next),
                None => return Ok(items),
            }
        }
    }

    /// `POST /v1/folders`
    pub async fn create_folder(
        &self,
        request: &NewFolderRequest,
    ) -> Result<FolderCreated, ClientError> {
        self.call(
            Method::POST,
            self.url(&["folders"]),
            &[],
            Some(encode(request)?),
        )
        .await
    }

    /// `POST /v1/folders` with the caller's `Idempotency-Key`: the offline journal sends a
    /// folder it logged with the key it gave it then, however late.
    pub async fn create_folder_keyed(
        &self,
        request: &NewFolderRequest,
        idempotency_key: &str,
    ) -> Result<FolderCreated, ClientError> {
        self.call_keyed(
            Method::POST,
            self.url(&["folders"]),
            &[],
            Some(encode(request)?),
            Some(idempotency_key.to_owned()),
        )
        .await
    }

    /// `GET /v1/folders/{id}/contacts`, one page.
    pub async fn contacts(
        &self,
        folder_id: &str,
        limit: Option<u32>,
        cursor: Option<&str>,
    ) -> Result<Page<Contact>, ClientError> {
        let query = page_query(limit, cursor);
        self.call(
            Method::GET,
            self.url(&["folders", folder_id, "contacts"]),
            &query,
            None,
        )
        .await
    }

    /// `GET /v1/adif`: a folder's contacts (a category's, or with `None` the whole
    /// account's) as one ADIF file, streamed; the response is read as it comes.
    pub async fn adif(
        &self,
        folder_id: Option<&str>,
        since: Option<svc_model::Timestamp>,
        until: Option<svc_model::Timestamp>,
        format: svc_adif::Format,
    ) -> Result<reqwest::Response, ClientError> {
        let mut query = Vec::new();
        if let Some(id) = folder_id {
            query.push(("folderId", id.to_owned()));
        }
        for (name, at) in [("since", since), ("until", until)] {
            if let Some(at) = at {
                query.push((name, at.to_string()));
            }
        }
        let format = match format {
            svc_adif::Format::Adi => "adi",
            svc_adif::Format::Adx => "adx",
        };
        query.push(("format", format.to_owned()));
        self.call_with(
            Method::GET,
            self.url(&["adif"]),
            &query,
            None,
            None,
            streamed,
        )
        .await
    }

    /// Every contact of a folder, newest first, following the cursor to the last page.
    pub async fn all_contacts(&self, folder_id: &str) -> Result<Vec<Contact>, ClientError> {
        let mut items = Vec::new();
        let mut cursor = None;
        loop {
            let page = self
                .contacts(folder_id, Some(FULL_PAGE), cursor.as_deref())
                .await?;
            items.extend(page.items);
            match page.cursor {
                Some(next) => cursor = Some(next),
                None => return Ok(items),
            }
        }
    }

    /// `POST /v1/contacts`
    pub async fn create_contact(
        &self,
        request: &ContactInput,
    ) -> Result<CreatedContact, ClientError> {
        self.call(
            Method::POST,
            self.url(&["contacts"]),
            &[],
            Some(encode(request)?),
        )
        .await
    }

    /// `POST /v1/contacts` with the caller's `Idempotency-Key`: sending the same request
    /// again with the same key after a failure that may have hidden a success (the answer
    /// was lost) can never store the contact twice.
    pub async fn create_contact_keyed(
        &self,
        request: &ContactInput,
        idempotency_key: &str,
    ) -> Result<CreatedContact, ClientError> {
        self.call_keyed(
            Method::POST,
            self.url(&["contacts"]),
            &[],
            Some(encode(request)?),
            Some(idempotency_key.to_owned()),
        )
        .await
    }

    /// `POST /v1/contacts/batch`: up to [`MAX_BATCH`] contacts, one result per item in order.
    /// Each item carries its own `Idempotency-Key`, so the whole batch is safe to send again.
    /// `import` marks contacts brought over from another logbook.
    pub async fn create_contacts_batch(
        &self,
        items: &[BatchItem],
        import: bool,
    ) -> Result<Vec<BatchResult>, ClientError> {
        let body = encode(&BatchRequest {
            contacts: items,
            import,
        })?;
        let response: BatchResponse = self
            .call_keyed(
                Method::POST,
                self.url(&["contacts", "batch"]),
                &[],
                Some(body),
                None,
            )
            .await?;
        Ok(response.results)
    }

    /// `GET /v1/confirmations`: how far the account's contacts are with each QSL service.
    pub async fn confirmation_status(&self) -> Result<ConfirmationStatus, ClientError> {
        self.call(Method::GET, self.url(&["confirmations"]), &[], None)
            .await
    }

    /// `GET /v1/awards/{award}`: where the account's log stands with an award.
    pub async fn award(
        &self,
        award: svc_model::awards::Award,
        query: &svc_model::awards::Query,
    ) -> Result<svc_model::awards::Report, ClientError> {
        self.call(
            Method::GET,
            self.url(&["awards", award.id()]),
            &query.params(),
            None,
        )
        .await
    }

    /// `POST /v1/confirmations` (elevated key): up to
    /// [`svc_model::confirm::MAX_CONFIRMATIONS`] QSOs a QSL
    /// service confirmed, written into the contacts they confirm. Sending them again is safe:
    /// a contact that already says so answers `already`.
    pub async fn confirm(
        &self,
        service: &str,
        items: &[Confirmation],
    ) -> Result<ConfirmAnswer, ClientError> {
        let body = encode(&serde_json::json!({ "service": service, "items": items }))?;
        self.call_keyed(
            Method::POST,
            self.url(&["confirmations"]),
            &[],
            Some(body),
            None,
        )
        .await
    }

    /// `POST /v1/confirmations/sent` (elevated key): up to
    /// [`svc_model::confirm::MAX_CONFIRMATIONS`] contacts the user sent to a QSL service, marked
    /// sent. Sending them again is safe: a contact that already says so answers `already`.
    pub async fn mark_sent(
        &self,
        service: &str,
        items: &[svc_model::confirm::Sent],
    ) -> Result<svc_model::confirm::SentAnswer, ClientError> {
        let body = encode(&serde_json::json!({ "service": service, "items": items }))?;
        self.call_keyed(
            Method::POST,
            self.url(&["confirmations", "sent"]),
            &[],
            Some(body),
            None,
        )
        .await
    }

    /// `PATCH /v1/contacts/{id}` (elevated key): changes the fields the request names.
    pub async fn edit_contact(
        &self,
        id: &str,
        request: &ContactPatch,
    ) -> Result<EditedContact, ClientError> {
        self.call(
            Method::PATCH,
            self.url(&["contacts", id]),
            &[],
            Some(encode(request)?),
        )
        .await
    }

    /// `DELETE /v1/contacts/{id}`
    pub async fn delete_contact(&self, id: &str) -> Result<Deleted, ClientError> {
        self.call(Method::DELETE, self.url(&["contacts", id]), &[], None)
            .await
    }

    /// `DELETE /v1/contacts/{id}` with the caller's `Idempotency-Key`: a retry (this one's, or
    /// the caller's after a lost answer) gets the first answer again, not `not_found`.
    pub async fn delete_contact_keyed(
        &self,
        id: &str,
        idempotency_key: &str,
    ) -> Result<Deleted, ClientError> {
        self.call_keyed(
            Method::DELETE,
            self.url(&["contacts", id]),
            &[],
            None,
            Some(idempotency_key.to_owned()),
        )
        .await
    }

    /// `GET /v1/activations`, one page. With `in_progress` the limit bounds the folders
    /// scanned, so a page may be empty and still have a cursor.
    pub async fn activations(
        &self,
        in_progress: bool,
        limit: Option<u32>,
        cursor: Option<&str>,
    ) -> Result<Page<Folder>, ClientError> {
        let mut query = page_query(limit, cursor);
        if in_progress {
            query.push(("inProgress", "true".to_owned()));
        }
        self.call(Method::GET, self.url(&["activations"]), &query, None)
            .await
    }

    /// Every activation (or every one in progress), following the cursor through empty pages.
    pub async fn all_activations(&self, in_progress: bool) -> Result<Vec<Folder>, ClientError> {
        let mut items = Vec::new();
        let mut cursor = None;
        loop {
            let page = self
                .activations(in_progress, Some(FULL_PAGE), cursor.as_deref())
                .await?;
            items.extend(page.items);
            match page.cursor {
                Some(next) => cursor = Some(next),
                None => return Ok(items),
            }
        }
    }

    /// `POST /v1/activations`
    pub async fn create_activation(
        &self,
        request: &NewActivationRequest,
    ) -> Result<FolderCreated, ClientError> {
        self.call(
            Method::POST,
            self.url(&["activations"]),
            &[],
            Some(encode(request)?),
        )
        .await
    }

    /// `POST /v1/activations` with the caller's `Idempotency-Key` (see
    /// [`Client::create_folder_keyed`]).
    pub async fn create_activation_keyed(
        &self,
        request: &NewActivationRequest,
        idempotency_key: &str,
    ) -> Result<FolderCreated, ClientError> {
        self.call_keyed(
            Method::POST,
            self.url(&["activations"]),
            &[],
            Some(encode(request)?),
            Some(idempotency_key.to_owned()),
        )
        .await
    }

    /// `POST /v1/activations/{id}/parks`: the activation at these parks too.
    pub async fn add_parks(&self, id: &str, parks: &str) -> Result<Folder, ClientError> {
        let body = serde_json::json!({ "locationReference": parks });
        self.call(
            Method::POST,
            self.url(&["activations", id, "parks"]),
            &[],
            Some(encode(&body)?),
        )
        .await
    }

    /// `POST /v1/activations/{id}/end`
    pub async fn end_activation(
        &self,
        id: &str,
        end_time: Option<&str>,
    ) -> Result<Folder, ClientError> {
        self.end_folder("activations", id, end_time).await
    }

    /// `POST /v1/{resource}/{id}/end`: an activation or a contest log ended, now or at
    /// `end_time`.
    async fn end_folder(
        &self,
        resource: &str,
        id: &str,
        end_time: Option<&str>,
    ) -> Result<Folder, ClientError> {
        let body = serde_json::json!({ "endTime": end_time });
        self.call(
            Method::POST,
            self.url(&[resource, id, "end"]),
            &[],
            Some(encode(&body)?),
        )
        .await
    }
}

fn page_query(limit: Option<u32>, cursor: Option<&str>) -> Vec<(&'static str, String)> {
    let mut query = Vec::new();
    if let Some(limit) = limit {
        query.push(("limit", limit.to_string()));
    }
    if let Some(cursor) = cursor {
        query.push(("cursor", cursor.to_owned()));
    }
    query
}

/// Reads an answer: a 2xx body as `T`, anything else as the error envelope.
async fn read<T: DeserializeOwned>(response: reqwest::Response) -> Result<T, ClientError> {
    let status = response.status();
    if !status.is_success() {
        return Err(refusal(response).await);
    }
    let bytes = bounded(response).await?;
    serde_json::from_slice(&bytes).map_err(|e| unexpected(status, &bytes, &e))
}

/// The most an answer of the service is read into memory: more than its largest, a page of 200
/// contacts each as large as a create's 64 KiB body lets it be (13 MiB). A download is
/// streamed, not read whole.
pub const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;

/// An answer's body, refused once it passes [`MAX_ANSWER_BYTES`]: a server that is not svc, or
/// a broken one, cannot make the client hold gigabytes.
async fn bounded(mut response: reqwest::Response) -> Result<Vec<u8>, ClientError> {
    let status = response.status();
    let too_big = || ClientError::Unexpected {
        status: status.as_u16(),
        message: format!(
            "the server's answer is larger than {} MiB, far more than any answer of an svc service; it was not read further: check --api-base points at an svc service",
            MAX_ANSWER_BYTES / (1024 * 1024)
        ),
    };
    if response
        .content_length()
        .is_some_and(|n| n > MAX_ANSWER_BYTES as u64)
    {
        return Err(too_big());
    }
    // Copied into blocks of a fixed size and joined once at the end: a body grown by doubling
    // leaves the smaller copies behind in the allocator, up to twice its size again.
    const BLOCK: usize = 1024 * 1024;
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    let mut size = 0;
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                size += chunk.len();
                if size > MAX_ANSWER_BYTES {
                    return Err(too_big());
                }
                let mut rest = &chunk[..];
                while !rest.is_empty() {
                    if blocks.last().is_none_or(|b| b.len() == BLOCK) {
                        // Only the pages written to are taken from the system.
                        blocks.push(Vec::with_capacity(BLOCK));
                    }
                    if let Some(block) = blocks.last_mut() {
                        let n = rest.len().min(BLOCK - block.len());
                        block.extend_from_slice(&rest[..n]);
                        rest = &rest[n..];
                    }
                }
            }
            Ok(None) => return Ok(blocks.concat()),
            Err(e) => {
                return Err(ClientError::Transport {
                    message: transport_message(&e),
                    attempts: 0,
                });
            }
        }
    }
}

/// A download: the response to read as it comes, once its status says it is one.
async fn streamed(response: reqwest::Response) -> Result<reqwest::Response, ClientError> {
    if response.status().is_success() {
        Ok(response)
    } else {
        Err(refusal(response).await)
    }
}

/// The error an answer that is not a success stands for: the service's envelope, or what
/// came instead of one.
async fn refusal(response: reqwest::Response) -> ClientError {
    let status = response.status();
    let retry_after = response
        .headers()
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let request_id = response
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let bytes = match bounded(response).await {
        Ok(bytes) => bytes,
        Err(e) => return e,
    };
    match serde_json::from_slice::<ErrorBody>(&bytes) {
        Ok(body) => ClientError::Server(Box::new(ServerError {
            error: printable(&body.error),
            message: printable(&body.message),
            details: body.details,
            request_id: Some(printable(&body.request_id))
                .filter(|s| !s.is_empty())
                .or(request_id.map(|id| printable(&id))),
            status: status.as_u16(),
            retry_after,
        })),
        Err(e) => unexpected(status, &bytes, &e),
    }
}

fn unexpected(status: StatusCode, body: &[u8], e: &serde_json::Error) -> ClientError {
    let snippet: String = String::from_utf8_lossy(body)
        .chars()
        .take(80)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    ClientError::Unexpected {
        status: status.as_u16(),
        message: format!(
            "the server answered HTTP {status} with a body this client cannot read ({e}): {snippet:?}; check --api-base points at an svc service"
        ),
    }
}

fn encode<B: Serialize>(body: &B) -> Result<Vec<u8>, ClientError> {
    serde_json::to_vec(body).map_err(|e| ClientError::Unexpected {
        status: 0,
        message: format!("cannot encode the request: {e}"),
    })
}

/// Gives the system back the heap a long-running command freed (glibc keeps freed pages for
/// the process otherwise): after a start-up that read big things once, so that what runs for
/// days holds only what it uses.
pub fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the heap to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}
