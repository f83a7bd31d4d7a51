//! `GET /healthz`: whether this process can serve, for a load balancer, systemd or a monitor.
//! No key is needed and nothing secret is said: the database answers, and its schema is the
//! one this build migrates to.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::AppState;
use super::error::WebResponse;

pub async fn healthz(State(state): State<AppState>) -> Response {
    let (status, body) = match state.store.schema_version().await {
        Ok((found, wanted)) if found == wanted => (
            StatusCode::OK,
            json!({"status": "ok", "database": "ok", "schema": found}),
        ),
        Ok((found, wanted)) => (
            StatusCode::SERVICE_UNAVAILABLE,
            json!({"status": "unavailable", "database": "ok", "schema": found, "schemaWanted": wanted}),
        ),
        Err(e) => {
            tracing::warn!(error = %e, "health: the database does not answer");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                json!({"status": "unavailable", "database": "unreachable"}),
            )
        }
    };
    // Its own answer, also when it is 503: the API's error envelope leaves it as it is.
    let mut response = (status, Json(body)).into_response();
    response.extensions_mut().insert(WebResponse);
    response
}
