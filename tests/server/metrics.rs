//! `svc server start --metrics-bind`: Prometheus metrics on a listener of their own, read by
//! the Python `prometheus_client` package's parser (an implementation of the format svc has no
//! part in). Requests are counted by route template and status, the latency histogram adds
//! up, the logbook queue is read from the database, and nothing secret is said.

use std::io::Write;
use std::process::{Command, Stdio};

use serde::Deserialize;
use serde_json::json;

use crate::common::qrz::{FakeQrz, Mode, server};
use crate::common::{Server, contact, eventually, this_month};

/// The virtual environment's python with prometheus_client, or `None` when the test is
/// skipped.
fn prometheus_client() -> Option<std::path::PathBuf> {
    crate::common::python::with(crate::common::python::PROMETHEUS_CLIENT, "the metrics test")
}

/// Parses the exposition text on stdin with prometheus_client and prints its families as JSON.
const PARSE: &str = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
print(json.dumps([
    {"name": f.name, "type": f.type,
     "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]}
    for f in text_string_to_metric_families(sys.stdin.read())
]))
"#;

#[derive(Debug, Deserialize)]
struct Family {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    samples: Vec<Sample>,
}

#[derive(Debug, Deserialize)]
struct Sample {
    name: String,
    labels: std::collections::BTreeMap<String, String>,
    value: f64,
}

/// The families prometheus_client, run by `python`, reads in `text`.
fn parse(python: &std::path::Path, text: &str) -> Vec<Family> {
    let mut child = Command::new(python)
        .args(["-c", PARSE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("run {}: {e}", python.display()));
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(text.as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "prometheus_client did not read the metrics: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The value of the sample `name` whose labels include `labels`, if there is exactly one.
fn value(families: &[Family], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let found: Vec<f64> = families
        .iter()
        .flat_map(|f| &f.samples)
        .filter(|s| {
            s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|s| s.value)
        .collect();
    assert!(found.len() <= 1, "{name} {labels:?} matches {found:?}");
    found.first().copied()
}

fn family<'a>(families: &'a [Family], name: &str) -> &'a Family {
    families
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no family {name} in {families:#?}"))
}

/// The metrics address.
fn metrics_url(server: &Server) -> String {
    server.metrics_url()
}

/// The scrape's text, after checking its status and content type.
fn scrape(url: &str) -> String {
    let r = crate::common::http_client()
        .get(format!("{url}/metrics"))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()["content-type"],
        "text/plain; version=0.0.4; charset=utf-8"
    );
    r.text().unwrap()
}

fn requests_are_counted_by_route_and_status_and_nothing_secret_is_said() {
    let Some(python) = prometheus_client() else {
        return;
    };
    // The process, which prints the metrics' address after its own.
    let s = Server::process_with(&["--metrics-bind", "127.0.0.1:0"]);
    let metrics = metrics_url(&s);
    let api = s.account("W1AW", "basic");
    assert_eq!(api.get("/v1/whoami").status, 200);
    s.api(None)
        .get("/v1/whoami")
        .expect_error(401, "unauthorized");
    api.get("/v1/no/such/endpoint")
        .expect_error(404, "not_found");
    let folder = "fld_qrstuvwxyz234567";
    api.get(&format!("/v1/folders/{folder}/contacts"))
        .expect_error(404, "not_found");

    let text = scrape(&metrics);
    for secret in [api.key(), "W1AW", folder, "127.0.0.1", "no/such"] {
        assert!(!text.contains(secret), "{secret:?} in the metrics:\n{text}");
    }
    let families = parse(&python, &text);
    let requests = |route: &str, method: &str, status: &str| {
        value(
            &families,
            "svc_http_requests_total",
            &[("route", route), ("method", method), ("status", status)],
        )
    };
    assert_eq!(family(&families, "svc_http_requests").kind, "counter");
    assert_eq!(requests("/v1/whoami", "GET", "200"), Some(1.0));
    assert_eq!(requests("/v1/whoami", "GET", "401"), Some(1.0));
    assert_eq!(requests("unmatched", "GET", "404"), Some(1.0));
    assert_eq!(
        requests("/v1/folders/{folder_id}/contacts", "GET", "404"),
        Some(1.0)
    );
    assert_eq!(requests("/v1/whoami", "GET", "404"), None);
    let total: f64 = family(&families, "svc_http_requests")
        .samples
        .iter()
        .map(|s| s.value)
        .sum();
    assert_eq!(total, 4.0, "the scrape is not a request of the service");

    // The histogram of /v1/whoami: cumulative buckets ending in +Inf, which is the count.
    let histogram = family(&families, "svc_http_request_duration_seconds");
    assert_eq!(histogram.kind, "histogram");
    let whoami = |s: &&Sample| s.labels["route"] == "/v1/whoami" && s.labels["method"] == "GET";
    let mut buckets: Vec<(f64, f64)> = histogram
        .samples
        .iter()
        .filter(whoami)
        .filter(|s| s.name.ends_with("_bucket"))
        .map(|s| (s.labels["le"].parse::<f64>().unwrap(), s.value))
        .collect();
    buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert!(buckets.len() > 5, "{buckets:?}");
    assert_eq!(buckets.last().unwrap().0, f64::INFINITY);
    assert!(
        buckets.windows(2).all(|w| w[0].1 <= w[1].1),
        "not cumulative: {buckets:?}"
    );
    let count = |suffix: &str| {
        value(
            &families,
            &format!("svc_http_request_duration_seconds_{suffix}"),
            &[("route", "/v1/whoami"), ("method", "GET")],
        )
        .unwrap()
    };
    assert_eq!(count("count"), 2.0);
    assert_eq!(buckets.last().unwrap().1, count("count"));
    assert!(count("sum") >= 0.0);

    // The rest is there from the start.
    assert!(value(&families, "svc_connections_open", &[]).unwrap() >= 0.0);
    for cap in ["server", "address"] {
        assert_eq!(
            value(&families, "svc_connections_refused_total", &[("cap", cap)]),
            Some(0.0)
        );
    }
    assert_eq!(value(&families, "svc_logbook_queue_jobs", &[]), Some(0.0));
    assert_eq!(
        value(&families, "svc_logbook_queue_oldest_seconds", &[]),
        Some(0.0)
    );
    assert!(value(&families, "svc_argon2_pool_size", &[]).unwrap() >= 1.0);
    assert_eq!(
        value(&families, "svc_argon2_hashes_running", &[]),
        Some(0.0)
    );
    assert!(value(&families, "svc_argon2_hashes_total", &[]).is_some());
    assert_eq!(
        value(
            &families,
            "svc_build_info",
            &[("version", env!("CARGO_PKG_VERSION"))]
        ),
        Some(1.0)
    );

    // The metrics listener answers nothing else; the service does not answer /metrics.
    for path in ["/", "/v1/whoami", "/metrics/x"] {
        let r = crate::common::http_client()
            .get(format!("{metrics}{path}"))
            .send()
            .unwrap();
        assert_eq!(r.status(), 404, "{path}");
    }
    assert_eq!(api.get("/metrics").status, 404);
}

/// The queue's depth and age come from the database: jobs that fail and are tried again stay
/// in it, a deleted contact's copy joins it, and a paused book's jobs are counted apart.
fn the_logbook_queue_is_read_from_the_database() {
    let Some(python) = prometheus_client() else {
        return;
    };
    const KEY: &str = "A1B2-C3D4-E5F6-7788";
    let qrz = FakeQrz::start();
    qrz.add_book(KEY, "W1AW");
    let (s, _secret) = server(&qrz, &["--metrics-bind", "127.0.0.1:0"]);
    let metrics = metrics_url(&s);
    let gauge = |name: &str| value(&parse(&python, &scrape(&metrics)), name, &[]).unwrap();
    let api = s.account("W1AW", "elevated");
    let r = api.post("/v1/logbooks", json!({ "provider": "qrz", "apiKey": KEY }));
    assert_eq!(r.status, 201, "{}", r.body);
    let folder = api.monthly(&this_month().0, None);
    let pushed = api.post("/v1/contacts", contact(&folder, "K1ABC")).id();
    eventually("the first contact in the book", || {
        qrz.records(KEY).len() == 1
    });
    eventually("an empty queue", || gauge("svc_logbook_queue_jobs") == 0.0);

    // The book fails from now on: a new contact waits, and so does the delete of the first.
    // The copy in the book is made to look queued long ago: its delete must start the clock
    // again.
    qrz.set_mode(Mode::ServerError);
    assert_eq!(
        s.exec_sql(
            "UPDATE external_copies SET queued_at = 0 WHERE state = 'pushed'",
            &[]
        ),
        1
    );
    api.post("/v1/contacts", contact(&folder, "K2ABC")).id();
    assert_eq!(api.delete(&format!("/v1/contacts/{pushed}")).status, 200);
    let families = parse(&python, &scrape(&metrics));
    assert_eq!(value(&families, "svc_logbook_queue_jobs", &[]), Some(2.0));
    assert_eq!(
        value(&families, "svc_logbook_queue_paused_jobs", &[]),
        Some(0.0)
    );
    let oldest = value(&families, "svc_logbook_queue_oldest_seconds", &[]).unwrap();
    assert!(
        (0.0..86_400.0).contains(&oldest),
        "queued now, not at 1970: {oldest}"
    );

    // An hour earlier, as the database's clock counts.
    assert_eq!(
        s.exec_sql(
            "UPDATE external_copies SET queued_at = queued_at - 3600000 \
             WHERE state IN ('waiting', 'deleting')",
            &[]
        ),
        2
    );
    assert!(gauge("svc_logbook_queue_oldest_seconds") >= 3600.0);

    // The book refuses the key: its jobs wait for the owner, not the workers.
    qrz.set_mode(Mode::Auth);
    eventually("the paused book's jobs counted apart", || {
        gauge("svc_logbook_queue_paused_jobs") == 2.0
    });
    assert_eq!(gauge("svc_logbook_queue_jobs"), 0.0);
    assert_eq!(gauge("svc_logbook_queue_oldest_seconds"), 0.0);
    assert!(!scrape(&metrics).contains(KEY));
}

crate::both_backends!(
    requests_are_counted_by_route_and_status_and_nothing_secret_is_said,
    the_logbook_queue_is_read_from_the_database,
);

/// Without the flag nothing more is printed, so nothing more listens.
#[test]
fn metrics_are_off_by_default() {
    let mut s = Server::process();
    s.terminate();
    assert_eq!(s.printed(), None);
}

/// Metrics on an address others reach are said at start to be readable by them; on loopback
/// nothing is said.
#[test]
fn metrics_beyond_loopback_are_warned_about() {
    const WARNING: &str = "readable by anyone who can reach this address";
    let open = Server::process_with(&["--metrics-bind", "0.0.0.0:0"]);
    let url = open.metrics_url();
    assert!(url.starts_with("http://0.0.0.0:"), "{url}");
    crate::common::eventually("the start-up lines in the log", || {
        open.logs().contains("svc server started")
    });
    let logs = open.logs();
    let line = logs
        .lines()
        .find(|l| l.contains(WARNING))
        .unwrap_or_else(|| panic!("no warning about the metrics' address:\n{logs}"));
    assert!(line.contains("WARN") && line.contains("0.0.0.0:"), "{line}");

    let private = Server::process_with(&["--metrics-bind", "127.0.0.1:0"]);
    private.metrics_url();
    crate::common::eventually("the start-up lines in the log", || {
        private.logs().contains("svc server started")
    });
    assert!(!private.logs().contains(WARNING), "{}", private.logs());
}
