//! The HTTP service: the `/v1/` API and the web pages. One function, [`serve`], starts it on a
//! listener until a shutdown future completes, for `svc server start`, the demo and the tests
//! alike.

pub mod admin;
pub mod cmd;
pub mod error;
pub mod extract;
pub mod hashing;
pub mod listen;
pub mod logbooks;
pub mod metrics;
pub mod parks;

pub mod web;

mod activations;
mod awards;
mod batch;
mod confirmations;
mod contacts;
mod contests;
mod export;
mod folders;
mod health;
mod stations;
mod users;
mod whoami;

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::routing::{delete, get, patch, post, put};
use tower_http::catch_panic::CatchPanicLayer;

use error::Failure;
use extract::CursorKind;
use svc_model::{ApiError, Page};
use svc_store::{Limits, Position, Store};

#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub limits: Limits,
    pub web: web::WebConfig,
    /// External logbooks, when the service has a secret to keep their keys with.
    pub logbooks: Option<Arc<logbooks::Logbooks>>,
    /// The country file, which fills a new contact's DXCC entity and zones.
    pub dxcc: Arc<svc_model::dxcc::Dxcc>,
    /// The park cache the pages name parks from; without one they show references alone.
    pub parks: Option<Arc<parks::ParkNames>>,
}

async fn no_route(method: axum::http::Method, uri: axum::http::Uri) -> Failure {
    Failure(ApiError::not_found(format!(
        "no such endpoint: {method} {}; see docs/API.md for the endpoints",
        uri.path()
    )))
}

/// The API routes without middleware; [`with_middleware`] wraps them.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(health::healthz))
        .route("/v1/whoami", get(whoami::whoami))
        .route("/v1/folders", get(folders::list).post(folders::create))
        .route("/v1/folders/{folder_id}/contacts", get(contacts::list))
        .route("/v1/contacts", post(contacts::create))
        .route("/v1/contacts/batch", post(batch::create))
        .route(
            "/v1/confirmations",
            get(confirmations::status).post(confirmations::create),
        )
        .route("/v1/confirmations/sent", post(confirmations::sent))
        .route("/v1/adif", get(export::adif))
        .route("/v1/awards/{award}", get(awards::award))
        .route(
            "/v1/contacts/{qso_id}",
            delete(contacts::delete).patch(contacts::edit),
        )
        .route(
            "/v1/activations",
            get(activations::list).post(activations::create),
        )
        .route("/v1/activations/{folder_id}/end", post(activations::end))
        .route("/v1/contests", get(contests::list).post(contests::create))
        .route("/v1/contests/{folder_id}", get(contests::show))
        .route("/v1/contests/{folder_id}/end", post(contests::end))
        .route("/v1/contests/{folder_id}/serials", post(contests::serials))
        .route("/v1/contests/{folder_id}/cabrillo", get(contests::cabrillo))
        .route(
            "/v1/activations/{folder_id}/parks",
            post(activations::add_parks),
        )
        .route(
            "/v1/logbooks",
            get(logbooks::api::list).post(logbooks::api::connect),
        )
        .route("/v1/stations", get(stations::list))
        .route(
            "/v1/stations/{callsign}",
            put(stations::put).delete(stations::delete),
        )
        .route("/v1/logbooks/review", get(logbooks::api::reviews))
        .route(
            "/v1/logbooks/{logbook_id}/import",
            post(logbooks::api::import),
        )
        .route(
            "/v1/logbooks/{logbook_id}/upload",
            post(logbooks::api::upload),
        )
        .route("/v1/logbooks/review/{qso_id}", post(logbooks::api::review))
        .route(
            "/v1/logbooks/{logbook_id}",
            patch(logbooks::api::change).delete(logbooks::api::disconnect),
        )
}

/// Adds the web pages and what every response needs: the request id and log line, the error
/// envelope (for all but the pages, which answer in HTML), panic recovery, and the request
/// metrics.
pub fn with_middleware(router: Router<AppState>, state: AppState) -> Router {
    let tag_route = || axum::middleware::from_fn(metrics::tag_route);
    let pages = web::pages(state.clone()).route_layer(tag_route());
    let api = router
        .route_layer(tag_route())
        .fallback(no_route)
        .with_state(state);
    // Wrapping the whole router as one service (rather than each route) lets the middleware
    // see the router's own answers too, such as a wrong method with its Allow header.
    pages
        .fallback_service(api)
        .layer(CatchPanicLayer::custom(error::panic_response))
        .layer(axum::middleware::from_fn(error::envelope))
        .layer(axum::middleware::from_fn(metrics::record))
}

pub fn app(state: AppState) -> Router {
    with_middleware(routes(), state)
}

/// How often idempotency keys past their 30 days, and expired sessions, are deleted.
const PURGE_EVERY: std::time::Duration = std::time::Duration::from_secs(3600);

/// Serves the API on `listener` until `shutdown` completes, then finishes the requests in flight
/// for at most `connections.drain`.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    connections: listen::Connections,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let purge = tokio::spawn(purge_expired(state.store.clone()));
    let worker = state.logbooks.clone().map(|l| {
        tokio::spawn(logbooks::worker::run(
            state.store.clone(),
            l,
            state.limits,
            state.dxcc.clone(),
        ))
    });
    let served = listen::serve(listener, app(state), connections, shutdown).await;
    purge.abort();
    if let Some(worker) = worker {
        worker.abort();
    }
    served
}

/// Keeps the idempotency, session and sign-in tables from growing without end; nothing depends
/// on it, because every reader checks the age of what it reads whether or not it was purged.
async fn purge_expired(store: Arc<dyn Store>) {
    let mut every = tokio::time::interval(PURGE_EVERY);
    loop {
        every.tick().await;
        let now = svc_model::Timestamp::now();
        let before = svc_model::Timestamp(now.millis() - svc_store::IDEMPOTENCY_TTL_MS);
        match store.purge_idempotency(before).await {
            Ok(purged) => tracing::debug!(purged, "expired idempotency keys deleted"),
            Err(error) => tracing::warn!(%error, "deleting expired idempotency keys failed"),
        }
        match store
            .purge_web(now, web::SESSION_LIFETIME, web::COUNTERS_KEPT_MS)
            .await
        {
            Ok(purged) => tracing::debug!(purged, "expired sessions and sign-in counters deleted"),
            Err(error) => tracing::warn!(%error, "deleting expired sessions failed"),
        }
    }
}

/// Turns `limit + 1` rows into a page: the extra row says another page exists.
fn page<T>(mut rows: Vec<(T, Position)>, limit: u32, kind: CursorKind) -> Page<T> {
    let more = rows.len() > limit as usize;
    rows.truncate(limit as usize);
    let cursor = if more {
        rows.last().map(|(_, p)| kind.encode(*p))
    } else {
        None
    };
    Page {
        items: rows.into_iter().map(|(t, _)| t).collect(),
        cursor,
    }
}
