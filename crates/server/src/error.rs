//! Every non-2xx response of the API carries the envelope `{error, message, details?, requestId}`.
//! Handlers return `ApiError`; the `envelope` middleware renders it with the request id, gives
//! bare framework responses (unknown route, wrong method, rejected extractor, panic) the same
//! shape, and logs one line per request. The web pages' responses, marked as such, keep their
//! HTML and get only the request id and the log line.

use std::time::Instant;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tracing::Instrument;

use svc_model::{ApiError, ErrorBody, ErrorCode, IdKind};
use svc_store::StoreError;

/// The id this middleware gives each request, in the request's extensions for the handlers
/// (a web page shows it on its error page, a batch in each item's error).
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// Marks a response as a web page's (or another that is not the API's), which the error
/// envelope leaves as it is.
#[derive(Debug, Clone, Copy)]
pub struct WebResponse;

/// Handler results.
pub type ApiResult<T> = Result<T, Failure>;

/// An `ApiError` on its way out of a handler.
#[derive(Debug)]
pub struct Failure(pub ApiError);

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Self {
        Failure(e)
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Api(e) => Failure(e),
            StoreError::Db(e) => {
                tracing::error!(error = %e, "database failure");
                Failure(ApiError::internal())
            }
        }
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.0.code.http_status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = status.into_response();
        if let Some(secs) = self.0.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response.extensions_mut().insert(self.0);
        response
    }
}

fn fallback_error(
    status: StatusCode,
    response: &Response,
    text: String,
    method: &str,
    path: &str,
) -> ApiError {
    match status {
        StatusCode::NOT_FOUND => ApiError::not_found(format!("no such endpoint: {method} {path}")),
        StatusCode::METHOD_NOT_ALLOWED => {
            let allowed = response
                .headers()
                .get(header::ALLOW)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_owned();
            ApiError::not_found(format!(
                "no such endpoint: {method} {path}; {path} takes {allowed}"
            ))
        }
        s if s.is_server_error() => ApiError::internal(),
        _ => ApiError::validation(if text.is_empty() {
            format!("the request was refused ({status})")
        } else {
            text
        }),
    }
}

pub async fn envelope(mut request: Request, next: Next) -> Response {
    let started = Instant::now();
    let request_id = IdKind::Request.generate();
    let method = request.method().to_string();
    let path = request.uri().path().to_owned();
    let span = tracing::info_span!("request", id = %request_id, key = tracing::field::Empty);
    request
        .extensions_mut()
        .insert(RequestId(request_id.clone()));

    let mut response = next.run(request).instrument(span.clone()).await;
    let status = response.status();
    // The web pages answer in HTML, their errors included.
    let page = response.extensions().get::<WebResponse>().is_some();

    let error = match response.extensions_mut().remove::<ApiError>() {
        Some(e) => Some(e),
        None if !page && !status.is_success() && !status.is_redirection() => {
            let body = std::mem::replace(response.body_mut(), Body::empty());
            let text = axum::body::to_bytes(body, 4096)
                .await
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            Some(fallback_error(status, &response, text, &method, &path))
        }
        None => None,
    };

    if let Some(error) = &error {
        let body = ErrorBody {
            error: error.code.as_str().to_owned(),
            message: error.message.clone(),
            details: error.details.clone(),
            request_id: request_id.clone(),
        };
        let status = StatusCode::from_u16(error.code.http_status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        *response.status_mut() = status;
        *response.body_mut() = Body::from(serde_json::to_vec(&body).unwrap_or_default());
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        response.headers_mut().remove(header::CONTENT_LENGTH);
    }
    if let Ok(v) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("x-request-id", v);
    }

    let _entered = span.enter();
    let elapsed_us = started.elapsed().as_micros() as u64;
    match &error {
        Some(e) if e.code == ErrorCode::Internal => {
            tracing::error!(%method, %path, status = response.status().as_u16(), error = %e.code, elapsed_us, "request failed")
        }
        Some(e) => {
            tracing::info!(%method, %path, status = response.status().as_u16(), error = %e.code, elapsed_us, "request")
        }
        None => {
            tracing::info!(%method, %path, status = response.status().as_u16(), elapsed_us, "request")
        }
    }
    response
}

/// Answers a handler panic with `internal`; the process keeps serving.
pub fn panic_response(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let detail = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    tracing::error!(panic = %detail, "handler panicked");
    Failure(ApiError::internal()).into_response()
}
