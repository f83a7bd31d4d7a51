//! The HTTP service: the `/v1/` API. One function, [`serve`], starts it on a listener until a
//! shutdown future completes, for `svc server start`, the demo and the tests alike.

pub mod cmd;
pub mod error;
pub mod extract;

mod activations;
mod contacts;
mod folders;
mod whoami;

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::routing::{delete, get, post};
use tower_http::catch_panic::CatchPanicLayer;

use crate::model::{ApiError, Page};
use crate::store::{Limits, Position, Store};
use error::Failure;
use extract::CursorKind;

#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub limits: Limits,
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
        .route("/v1/whoami", get(whoami::whoami))
        .route("/v1/folders", get(folders::list).post(folders::create))
        .route("/v1/folders/{folder_id}/contacts", get(contacts::list))
        .route("/v1/contacts", post(contacts::create))
        .route("/v1/contacts/{qso_id}", delete(contacts::delete))
        .route(
            "/v1/activations",
            get(activations::list).post(activations::create),
        )
        .route("/v1/activations/{folder_id}/end", post(activations::end))
}

/// Adds what every response needs: the error envelope and request id, and panic recovery.
pub fn with_middleware(router: Router<AppState>, state: AppState) -> Router {
    let api = router.fallback(no_route).with_state(state);
    // Wrapping the whole router as one service (rather than each route) lets the middleware
    // see the router's own answers too, such as a wrong method with its Allow header.
    Router::new()
        .fallback_service(api)
        .layer(CatchPanicLayer::custom(error::panic_response))
        .layer(axum::middleware::from_fn(error::envelope))
}

pub fn app(state: AppState) -> Router {
    with_middleware(routes(), state)
}

/// How often idempotency keys past their 24 hours are deleted.
const PURGE_EVERY: std::time::Duration = std::time::Duration::from_secs(3600);

/// Serves the API on `listener` until `shutdown` completes, then finishes the requests in flight.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let purge = tokio::spawn(purge_expired_keys(state.store.clone()));
    let served = axum::serve(listener, app(state))
        .with_graceful_shutdown(shutdown)
        .await;
    purge.abort();
    served
}

/// Keeps the idempotency table from growing without end; replays never depend on it, because
/// the store takes an expired key over as new whether or not it was purged yet.
async fn purge_expired_keys(store: Arc<dyn Store>) {
    let mut every = tokio::time::interval(PURGE_EVERY);
    loop {
        every.tick().await;
        let before = crate::model::Timestamp(
            crate::model::Timestamp::now().millis() - crate::store::IDEMPOTENCY_TTL_MS,
        );
        match store.purge_idempotency(before).await {
            Ok(purged) => tracing::debug!(purged, "expired idempotency keys deleted"),
            Err(error) => tracing::warn!(%error, "deleting expired idempotency keys failed"),
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
