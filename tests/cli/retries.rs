//! Retries: transport failures (3 attempts), `internal` (once), `rate_limited` (once after a
//! short Retry-After), and creates that are retried without ever being logged twice.

use serde_json::json;

use super::{Cli, canned_server, closed_port, lossy_proxy, monthly, setup};

const KEY: &str = "svc_live_ABCDEFGHIJKLMNOPQRSTUVWX";

fn client_for(base: &str) -> Cli {
    let cli = Cli::new(base);
    cli.set_env("SVC_API_KEY", KEY);
    cli.secret(KEY);
    cli
}

fn envelope(error: &str, message: &str) -> String {
    json!({"error": error, "message": message, "requestId": "req_aaaaaaaaaaaaaaaa"}).to_string()
}

fn attempts(stderr: &str) -> usize {
    stderr.matches("svc: attempt ").count()
}

#[test]
fn a_closed_port_exits_7_after_3_attempts() {
    let cli = client_for(&closed_port());
    let run = cli.run(&["whoami", "--verbose"]);
    let message = run.fails(7, "whoami", "transport_error");
    assert!(message.contains("after 3 attempts"), "{message}");
    assert_eq!(attempts(&run.stderr), 3, "{run:?}");
    assert_eq!(run.stderr.matches("retrying in ").count(), 2, "{run:?}");
    assert!(run.stderr.contains("GET http://127.0.0.1:"), "{run:?}");
    assert!(run.stderr.contains("/v1/whoami -> no answer"), "{run:?}");
    let env = cli
        .run(&["whoami", "--json"])
        .fails_json(7, "whoami", "transport_error");
    assert_eq!(env["status"], serde_json::Value::Null);
    // Without --verbose nothing but the error line.
    assert_eq!(cli.run(&["whoami"]).stderr.lines().count(), 1);
}

#[test]
fn internal_is_retried_once_then_exits_8() {
    let body = envelope(
        "internal",
        "the server failed to handle the request; retry once after a short delay",
    );
    let (url, seen) = canned_server(vec![
        (500, vec![], body.clone()),
        (500, vec![], body.clone()),
    ]);
    let cli = client_for(&url);
    let run = cli.run(&["whoami", "--verbose", "--json"]);
    let env = run.fails_json(8, "whoami", "internal");
    assert_eq!(env["status"], 500);
    assert_eq!(env["requestId"], "req_aaaaaaaaaaaaaaaa");
    assert_eq!(attempts(&run.stderr), 2, "{run:?}");
    assert!(run.stderr.contains("-> 500 internal"), "{run:?}");
    assert!(
        run.stderr
            .contains("retrying in 500 ms: server-side failure"),
        "{run:?}"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    // The key travels in the Authorization header only.
    assert_eq!(
        seen[0].header("authorization").as_deref(),
        Some(&*format!("Bearer {KEY}"))
    );
}

#[test]
fn internal_then_success_exits_0() {
    let (url, _) = canned_server(vec![
        (500, vec![], envelope("internal", "boom")),
        (
            200,
            vec![],
            json!({"callsign": "W1AW", "plan": "free", "tier": "basic", "nativeQsoCount": 3})
                .to_string(),
        ),
    ]);
    let run = client_for(&url).run(&["whoami"]);
    run.ok();
    assert!(run.stdout.contains("QSOs: 3 / 200"), "{run:?}");
}

#[test]
fn a_short_retry_after_is_waited_out_once() {
    let limited = json!({"error": "rate_limited", "message": "too many requests", "details": {"reason": "burst"}, "requestId": "req_bbbbbbbbbbbbbbbb"}).to_string();
    let ok = json!({"callsign": "W1AW", "plan": "free", "tier": "basic", "nativeQsoCount": 0})
        .to_string();
    let (url, seen) = canned_server(vec![
        (429, vec![("Retry-After", "1".into())], limited.clone()),
        (200, vec![], ok),
    ]);
    let run = client_for(&url).run(&["whoami", "--verbose"]);
    run.ok();
    assert!(
        run.stderr
            .contains("retrying in 1000 ms: rate limited, Retry-After 1s"),
        "{run:?}"
    );
    assert_eq!(seen.lock().unwrap().len(), 2);

    // Twice limited: the one retry is spent, exit 4.
    let (url, _) = canned_server(vec![
        (429, vec![("Retry-After", "1".into())], limited.clone()),
        (429, vec![("Retry-After", "1".into())], limited),
    ]);
    let run = client_for(&url).run(&["whoami", "--verbose", "--json"]);
    let env = run.fails_json(4, "whoami", "rate_limited");
    assert_eq!(env["retryAfter"], 1);
    assert_eq!(attempts(&run.stderr), 2);
}

#[test]
fn a_long_retry_after_or_a_lifetime_budget_is_not_waited_for() {
    let limited = |reason: &str| {
        json!({"error": "rate_limited", "message": "limited", "details": {"reason": reason}, "requestId": "req_cccccccccccccccc"}).to_string()
    };
    let (url, seen) = canned_server(vec![(
        429,
        vec![("Retry-After", "3600".into())],
        limited("daily_logbook_budget"),
    )]);
    let run = client_for(&url).run(&["whoami", "--verbose"]);
    run.fails(4, "whoami", "rate_limited");
    assert_eq!(attempts(&run.stderr), 1);
    assert_eq!(seen.lock().unwrap().len(), 1);
    // Even with a Retry-After, the lifetime budget is final.
    let (url, _) = canned_server(vec![(
        429,
        vec![("Retry-After", "1".into())],
        limited("lifetime_logbook_budget"),
    )]);
    let run = client_for(&url).run(&["whoami", "--verbose"]);
    run.fails(4, "whoami", "rate_limited");
    assert_eq!(attempts(&run.stderr), 1);
}

#[test]
fn unknown_codes_fall_back_on_the_http_status() {
    let cases = [(418, 1), (402, 6), (403, 5), (422, 2), (401, 3), (404, 1)];
    for (status, exit) in cases {
        let (url, _) = canned_server(vec![(
            status,
            vec![],
            envelope("brand_new_code", "something new"),
        )]);
        let run = client_for(&url).run(&["whoami", "--json"]);
        let env = run.fails_json(exit, "whoami", "brand_new_code");
        assert_eq!(env["status"], status);
    }
    // A 5xx with an unknown code or a body that is not the envelope is retried like internal.
    let (url, seen) = canned_server(vec![
        (503, vec![], "<html>busy</html>".into()),
        (502, vec![], envelope("upstream_down", "later")),
    ]);
    let run = client_for(&url).run(&["whoami", "--json"]);
    let env = run.fails_json(8, "whoami", "upstream_down");
    assert_eq!(env["status"], 502);
    assert_eq!(seen.lock().unwrap().len(), 2);
    // A success body that is not the record is reported, not trusted.
    let (url, _) = canned_server(vec![(200, vec![], "<html>hello</html>".into())]);
    let run = client_for(&url).run(&["whoami"]);
    assert!(
        run.fails(1, "whoami", "unexpected_response")
            .contains("--api-base")
    );
}

fn a_create_whose_answer_was_lost_is_retried_and_logged_once() {
    let (server, api, _) = setup("basic");
    let folder = monthly(&api);
    let (proxy, seen) = lossy_proxy(&server.url);
    let cli = Cli::with_key(&server, &api);
    cli.set_env("SVC_API_BASE", &proxy);
    let run = cli.run(&[
        "contacts",
        "create",
        "--folder",
        &folder,
        "--callsign",
        "K1ABC",
        "--frequency",
        "14.074",
        "--mode",
        "FT8",
        "--json",
        "--verbose",
    ]);
    run.ok();
    assert_eq!(attempts(&run.stderr), 2, "{run:?}");
    assert!(run.stderr.contains("retrying in"), "{run:?}");
    assert_eq!(run.json()["replayed"], true, "{run:?}");
    let contacts = api.contacts(&folder);
    assert_eq!(contacts.len(), 1, "logged twice: {contacts:?}");
    assert_eq!(contacts[0]["id"], run.json()["id"]);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    let keys: Vec<String> = seen
        .iter()
        .map(|s| s.header("idempotency-key").unwrap())
        .collect();
    assert_eq!(keys[0], keys[1], "one key across the retries");
    assert!(keys[0].len() >= 16);
    // A new create gets a new key.
    drop(seen);
    let direct = Cli::with_key(&server, &api);
    direct
        .run(&[
            "contacts",
            "create",
            "--folder",
            &folder,
            "--callsign",
            "K2ABC",
            "--frequency",
            "14.074",
            "--mode",
            "FT8",
        ])
        .ok();
    assert_eq!(api.contacts(&folder).len(), 2);
}

fn a_delete_whose_answer_was_lost_is_not_repeated() {
    let (server, api, _) = setup("elevated");
    let folder = monthly(&api);
    let id = api
        .post("/v1/contacts", crate::common::contact(&folder, "K1ABC"))
        .id();
    let (proxy, seen) = lossy_proxy(&server.url);
    let cli = Cli::with_key(&server, &api);
    cli.set_env("SVC_API_BASE", &proxy);
    let run = cli.run(&["contacts", "delete", &id, "--yes", "--verbose"]);
    let message = run.fails(7, "contacts delete", "transport_error");
    assert!(message.contains("after 1 attempt"), "{message}");
    assert!(message.contains("may have been deleted"), "{message}");
    assert_eq!(attempts(&run.stderr), 1, "{run:?}");
    assert_eq!(seen.lock().unwrap().len(), 1);
    // The server did delete it: a repeat would have answered not_found.
    assert!(api.contacts(&folder).is_empty());
}

crate::both_backends!(
    a_create_whose_answer_was_lost_is_retried_and_logged_once,
    a_delete_whose_answer_was_lost_is_not_repeated,
);

#[test]
fn an_import_says_when_and_why_it_waits() {
    let limited = json!({"error": "rate_limited", "message": "too many requests", "details": {"reason": "burst"}, "requestId": "req_bbbbbbbbbbbbbbbb"}).to_string();
    let me = json!({"callsign": "W1AW", "plan": "free", "tier": "basic", "nativeQsoCount": 0})
        .to_string();
    let stored = json!({"results": [{"status": 201, "id": "qso_aaaaaaaaaaaaaaaa"}]}).to_string();
    let (url, seen) = canned_server(vec![
        (200, vec![], me),
        (429, vec![("Retry-After", "1".into())], limited),
        (200, vec![], stored),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("one.adi");
    std::fs::write(
        &file,
        "<EOH>\n<CALL:5>K1ABC <QSO_DATE:8>20261101 <TIME_ON:4>1200 <FREQ:5>7.030 <MODE:2>CW <EOR>\n",
    )
    .unwrap();
    let run = client_for(&url).run(&[
        "import",
        "adif",
        file.to_str().unwrap(),
        "--folder",
        "fld_aaaaaaaaaaaaaaaa",
    ]);
    run.ok();
    assert!(
        run.stderr
            .contains("svc: waiting 1 s: rate limited, Retry-After 1s"),
        "{run:?}"
    );
    assert!(run.stdout.contains("imported 1"), "{run:?}");
    assert_eq!(seen.lock().unwrap().len(), 3);
}
