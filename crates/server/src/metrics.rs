//! Prometheus metrics, on a listener of their own (`svc server start --metrics-bind`,
//! docs/API.md, "Metrics"): `GET /metrics` in the text exposition format, version 0.0.4. It asks
//! for no key, so it belongs on loopback or a private network, and nothing it says is secret:
//! routes are the router's templates (`/v1/contacts/{qso_id}`), never a request's path, and no
//! key, callsign or address is a label.
//!
//! The registry is written here rather than taken from `prometheus-client` or `metrics`: the
//! service has a dozen series, the format is a page of rules, and the crates would bring a
//! registry, an encoder and their own types for what is a map under a lock and a few atomics.
//! The numbers are the process's: every server in it adds to the same ones.
//!
//! Requests are counted by [`record`], around the whole router, with the route that
//! [`tag_route`] (on the routes themselves) marked the answer with. Connections are counted by
//! the connection loop (`listen.rs`) through [`OpenConnection`] and [`refused`]; the Argon2
//! pool and the logbook queue are read when scraped.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::net::TcpListener;

use super::hashing;
use svc_store::{QueueDepth, Store};

/// The content type of the text exposition format.
const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The route of requests no route matched: a 404, whatever their path.
const UNMATCHED: &str = "unmatched";

/// Upper bounds of the latency buckets, in seconds: from a key lookup in the page cache to
/// a whole-account export, past which a request is simply slow.
const BUCKETS: [f64; 13] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// How long a scrape waits for the database to count the queue; past it the queue's series
/// are left out and the rest is answered, so a database outage does not hide the others.
const QUEUE_READ: Duration = Duration::from_secs(5);

/// The requests of one route and method.
#[derive(Default)]
struct Series {
    statuses: BTreeMap<u16, u64>,
    /// Requests by the first bucket that holds their duration (the last slot: longer than
    /// every bound); made cumulative when written.
    buckets: [u64; BUCKETS.len() + 1],
    /// Seconds, all requests together.
    sum: f64,
}

/// By route template, then method. The labels are bounded: the routes are the router's, the
/// methods [`method_label`]'s, the statuses three digits.
type Requests = BTreeMap<String, BTreeMap<&'static str, Series>>;

static REQUESTS: Mutex<Requests> = Mutex::new(BTreeMap::new());
static CONNECTIONS_OPEN: AtomicU64 = AtomicU64::new(0);
static REFUSED_SERVER: AtomicU64 = AtomicU64::new(0);
static REFUSED_ADDRESS: AtomicU64 = AtomicU64::new(0);

fn requests() -> std::sync::MutexGuard<'static, Requests> {
    REQUESTS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A method as a label: the standard ones by name, any other (a client may send any token)
/// as `other`, so that no client can add series.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        Method::CONNECT => "CONNECT",
        Method::TRACE => "TRACE",
        _ => "other",
    }
}

fn observe(route: &str, method: &'static str, status: u16, elapsed: Duration) {
    let secs = elapsed.as_secs_f64();
    let bucket = BUCKETS
        .iter()
        .position(|bound| secs <= *bound)
        .unwrap_or(BUCKETS.len());
    let mut all = requests();
    // The route's key is allocated once, on its first request.
    if !all.contains_key(route) {
        all.insert(route.to_owned(), BTreeMap::new());
    }
    if let Some(methods) = all.get_mut(route) {
        let series = methods.entry(method).or_default();
        *series.statuses.entry(status).or_insert(0) += 1;
        series.buckets[bucket] += 1;
        series.sum += secs;
    }
}

/// Marks an answer with the route template its request matched. Layered on the routes
/// (`route_layer`), where the router has put `MatchedPath` on the request; [`record`] runs
/// around the routers, before any routing, and reads it from the answer.
pub async fn tag_route(request: Request, next: Next) -> Response {
    let matched = request.extensions().get::<MatchedPath>().cloned();
    let mut response = next.run(request).await;
    if let Some(matched) = matched {
        response.extensions_mut().insert(matched);
    }
    response
}

/// Counts each request by route, method and status, and its time until the answer's head is
/// ready (a streamed body, such as an export's, goes on after).
pub async fn record(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = method_label(request.method());
    let response = next.run(request).await;
    let route = response
        .extensions()
        .get::<MatchedPath>()
        .map_or(UNMATCHED, MatchedPath::as_str);
    observe(route, method, response.status().as_u16(), started.elapsed());
    response
}

/// A connection being served, counted in `svc_connections_open` while this lives (dropped
/// when the connection's task ends, or is aborted at the end of a shutdown).
pub struct OpenConnection(());

impl OpenConnection {
    pub fn count() -> OpenConnection {
        CONNECTIONS_OPEN.fetch_add(1, Ordering::Relaxed);
        OpenConnection(())
    }
}

impl Drop for OpenConnection {
    fn drop(&mut self) {
        CONNECTIONS_OPEN.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The cap a connection was refused by.
#[derive(Debug, Clone, Copy)]
pub enum Cap {
    /// `--max-connections`.
    Server,
    /// `--max-connections-per-address`.
    Address,
}

pub fn refused(cap: Cap) {
    match cap {
        Cap::Server => &REFUSED_SERVER,
        Cap::Address => &REFUSED_ADDRESS,
    }
    .fetch_add(1, Ordering::Relaxed);
}

/// `GET /metrics`, and a 404 for any other path.
pub fn router(store: Arc<dyn Store>) -> Router {
    Router::new()
        .route("/metrics", get(scrape))
        .with_state(store)
}

/// Serves [`router`] on `listener` until the task is aborted. Plain axum, without the main
/// listener's limits and drain: it is for a scraper on a trusted network, and a shutdown
/// aborts it rather than waiting for its connections.
pub async fn serve(listener: TcpListener, store: Arc<dyn Store>) {
    if let Err(error) = axum::serve(listener, router(store)).await {
        tracing::error!(%error, "the metrics listener failed");
    }
}

async fn scrape(State(store): State<Arc<dyn Store>>) -> Response {
    let queue = match tokio::time::timeout(QUEUE_READ, store.queue_depth()).await {
        Ok(Ok(queue)) => Some(queue),
        Ok(Err(error)) => {
            tracing::warn!(%error, "metrics: cannot count the logbook queue");
            None
        }
        Err(_) => {
            tracing::warn!("metrics: the database did not count the logbook queue in time");
            None
        }
    };
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], render(queue)).into_response()
}

/// The exposition text: each family's `# HELP` and `# TYPE`, then its samples.
#[derive(Default)]
struct Text(String);

impl Text {
    fn family(&mut self, name: &str, kind: &str, help: &str) {
        self.0
            .push_str(&format!("# HELP {name} {help}\n# TYPE {name} {kind}\n"));
    }

    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: impl std::fmt::Display) {
        self.0.push_str(name);
        if !labels.is_empty() {
            let labels: Vec<String> = labels
                .iter()
                .map(|(k, v)| format!("{k}=\"{}\"", escape(v)))
                .collect();
            self.0.push_str(&format!("{{{}}}", labels.join(",")));
        }
        self.0.push_str(&format!(" {value}\n"));
    }
}

/// A label value as the format quotes it.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn render(queue: Option<QueueDepth>) -> String {
    let mut text = Text::default();
    text.family(
        "svc_build_info",
        "gauge",
        "The running build, by version; always 1.",
    );
    text.sample(
        "svc_build_info",
        &[("version", env!("CARGO_PKG_VERSION"))],
        1,
    );
    render_requests(&mut text);

    text.family(
        "svc_connections_open",
        "gauge",
        "Client connections being served now (the main listener's).",
    );
    text.sample(
        "svc_connections_open",
        &[],
        CONNECTIONS_OPEN.load(Ordering::Relaxed),
    );
    text.family(
        "svc_connections_refused_total",
        "counter",
        "Connections answered 429 and closed, by the cap they met: server (--max-connections) or address (--max-connections-per-address).",
    );
    for (cap, count) in [("server", &REFUSED_SERVER), ("address", &REFUSED_ADDRESS)] {
        text.sample(
            "svc_connections_refused_total",
            &[("cap", cap)],
            count.load(Ordering::Relaxed),
        );
    }

    let pool = hashing::usage();
    text.family(
        "svc_argon2_pool_size",
        "gauge",
        "Password hashes the pool runs at once (one per core).",
    );
    text.sample("svc_argon2_pool_size", &[], pool.size);
    text.family(
        "svc_argon2_hashes_running",
        "gauge",
        "Password hashes and checks running now.",
    );
    text.sample("svc_argon2_hashes_running", &[], pool.running);
    text.family(
        "svc_argon2_hashes_waiting",
        "gauge",
        "Password hashes and checks admitted and waiting for a core.",
    );
    text.sample("svc_argon2_hashes_waiting", &[], pool.waiting);
    text.family(
        "svc_argon2_hashes_total",
        "counter",
        "Password hashes and checks finished.",
    );
    text.sample("svc_argon2_hashes_total", &[], pool.done);
    text.family(
        "svc_argon2_refused_total",
        "counter",
        "Password hashes and checks refused because the pool was full (answered 429).",
    );
    text.sample("svc_argon2_refused_total", &[], pool.refused);

    if let Some(queue) = queue {
        text.family(
            "svc_logbook_queue_jobs",
            "gauge",
            "Pushes and deletes waiting for external logbooks that are not paused.",
        );
        text.sample("svc_logbook_queue_jobs", &[], queue.waiting);
        text.family(
            "svc_logbook_queue_paused_jobs",
            "gauge",
            "Pushes and deletes held by paused logbooks until their owners give a new key.",
        );
        text.sample("svc_logbook_queue_paused_jobs", &[], queue.paused);
        text.family(
            "svc_logbook_queue_oldest_seconds",
            "gauge",
            "How long the oldest job of svc_logbook_queue_jobs has waited; 0 when none waits.",
        );
        text.sample(
            "svc_logbook_queue_oldest_seconds",
            &[],
            queue.oldest_ms as f64 / 1000.0,
        );
    }
    text.0
}

fn render_requests(text: &mut Text) {
    let all = requests();
    text.family(
        "svc_http_requests_total",
        "counter",
        "Requests answered, by route template, method and status.",
    );
    for (route, methods) in all.iter() {
        for (method, series) in methods {
            for (status, count) in &series.statuses {
                let status = status.to_string();
                text.sample(
                    "svc_http_requests_total",
                    &[("route", route), ("method", method), ("status", &status)],
                    count,
                );
            }
        }
    }
    text.family(
        "svc_http_request_duration_seconds",
        "histogram",
        "Time from a request's arrival to its answer's head, by route template and method.",
    );
    for (route, methods) in all.iter() {
        for (method, series) in methods {
            let mut cumulative = 0;
            for (slot, count) in series.buckets.iter().enumerate() {
                cumulative += count;
                let le = BUCKETS
                    .get(slot)
                    .map_or_else(|| "+Inf".to_owned(), f64::to_string);
                text.sample(
                    "svc_http_request_duration_seconds_bucket",
                    &[("route", route), ("method", method), ("le", &le)],
                    cumulative,
                );
            }
            let labels = [("route", route.as_str()), ("method", method)];
            text.sample("svc_http_request_duration_seconds_sum", &labels, series.sum);
            text.sample(
                "svc_http_request_duration_seconds_count",
                &labels,
                cumulative,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_outside_the_standard_ones_share_one_label() {
        assert_eq!(method_label(&Method::PATCH), "PATCH");
        assert_eq!(method_label(&Method::TRACE), "TRACE");
        let odd = Method::from_bytes(b"BREW").unwrap();
        assert_eq!(method_label(&odd), "other");
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape(r#"a\b"c"#), r#"a\\b\"c"#);
        assert_eq!(escape("a\nb"), "a\\nb");
    }
}
