//! The error envelope: unknown routes, wrong methods, request ids on every error, and a handler
//! panic answered with `internal` while the process keeps serving.

use std::collections::HashSet;

use crate::common::{Resp, Server, contact, this_month};

/// Asserts the envelope's shape beyond `expect_error`: JSON content type and only the known keys.
fn envelope(r: &Resp, status: u16, code: &str) -> String {
    let message = r.expect_error(status, code);
    assert!(
        r.header("content-type")
            .is_some_and(|ct| ct.starts_with("application/json")),
        "{code}: content-type {:?}",
        r.header("content-type")
    );
    for key in r.body.as_object().expect("an object").keys() {
        assert!(
            ["error", "message", "details", "requestId"].contains(&key.as_str()),
            "{code}: unexpected envelope field {key}: {}",
            r.body
        );
    }
    if let Some(details) = r.body.get("details") {
        assert!(details.is_object(), "{code}: details {details}");
    }
    message
}

fn an_unknown_route_is_a_not_found_envelope() {
    let server = Server::start();
    let api = server.account("W1AW", "elevated");
    let anon = server.api(None);
    for client in [&api, &anon] {
        for (method, path) in [
            ("GET", "/v1"),
            ("GET", "/v1/nope"),
            ("GET", "/v2/whoami"),
            ("GET", "/v1/whoami/extra"),
            ("GET", "/v1/contacts/qso_aaaaaaaaaaaaaaaa/notes"),
            ("POST", "/v1/qsos"),
            ("DELETE", "/v1/folders/fld_aaaaaaaaaaaaaaaa"),
            ("GET", "/favicon.ico"),
        ] {
            let r = client.send(method, path, None, &[]);
            let message = envelope(&r, 404, "not_found");
            assert!(
                message.contains(path),
                "{method} {path}: the message should name the path: {message}"
            );
        }
    }
    // An unknown route with a body is still just not_found, and stores nothing.
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let r = api.post("/v1/contact", contact(&folder, "K1ABC"));
    envelope(&r, 404, "not_found");
    assert_eq!(api.qso_count(), 0);
}

fn a_wrong_method_is_not_found_with_an_allow_header() {
    let server = Server::start();
    let api = server.account("W1AW", "elevated");
    let folder = "fld_aaaaaaaaaaaaaaaa";
    let contacts = format!("/v1/folders/{folder}/contacts");
    let end = format!("/v1/activations/{folder}/end");
    for (method, path, allowed, refused) in [
        (
            "PUT",
            "/v1/whoami",
            &["GET"][..],
            &["POST", "PUT", "DELETE"][..],
        ),
        ("POST", "/v1/whoami", &["GET"], &["POST"]),
        ("DELETE", "/v1/whoami", &["GET"], &["DELETE"]),
        (
            "PATCH",
            "/v1/folders",
            &["GET", "POST"],
            &["PATCH", "DELETE"],
        ),
        ("DELETE", "/v1/folders", &["GET", "POST"], &["DELETE"]),
        ("POST", contacts.as_str(), &["GET"], &["POST"]),
        ("GET", "/v1/contacts", &["POST"], &["GET", "DELETE"]),
        (
            "GET",
            "/v1/contacts/qso_aaaaaaaaaaaaaaaa",
            &["DELETE", "PATCH"],
            &["GET", "POST"],
        ),
        ("PUT", "/v1/activations", &["GET", "POST"], &["PUT"]),
        ("GET", end.as_str(), &["POST"], &["GET", "DELETE"]),
    ] {
        for client in [&api, &server.api(None)] {
            let r = client.send(method, path, None, &[]);
            let message = envelope(&r, 404, "not_found");
            let allow = r
                .header("allow")
                .unwrap_or_else(|| panic!("{method} {path}: no Allow header: {:?}", r.headers));
            let listed: HashSet<String> = allow
                .split(',')
                .map(|m| m.trim().to_ascii_uppercase())
                .collect();
            for m in allowed {
                assert!(
                    listed.contains(*m),
                    "{method} {path}: Allow {allow:?} lacks {m}"
                );
                assert!(message.contains(m), "{method} {path}: {message}");
            }
            for m in refused {
                assert!(
                    !listed.contains(*m),
                    "{method} {path}: Allow {allow:?} has {m}"
                );
            }
            assert!(message.contains(path), "{method} {path}: {message}");
        }
    }
    // The wrong method did nothing.
    assert_eq!(api.qso_count(), 0);
}

fn every_error_carries_its_request_id_in_body_and_header() {
    let server = Server::start_with(&["--free-plan-cap", "1"]);
    let elevated = server.account("W1AW", "elevated");
    let basic = server.new_key("W1AW", "basic");
    let revoked = server.new_key("W1AW", "basic");
    let prefix = revoked.key()[..12].to_owned();
    let out = server.admin(&["key", "revoke", &prefix]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (month, _) = this_month();
    let folder = elevated.monthly(&month, None);
    let first = elevated.post("/v1/contacts", contact(&folder, "K1ABC"));
    assert_eq!(first.status, 201, "{}", first.body);

    let mut errors: Vec<(&str, Resp)> = vec![
        ("validation_error", elevated.get("/v1/folders?limit=0")),
        (
            "validation_error",
            elevated.raw(
                "POST",
                "/v1/contacts",
                b"{".to_vec(),
                &[("content-type", "application/json")],
            ),
        ),
        ("unauthorized", server.api(None).get("/v1/whoami")),
        (
            "unauthorized",
            server.api(Some("svc_live_x")).get("/v1/folders"),
        ),
        ("key_revoked", revoked.get("/v1/whoami")),
        (
            "tier_insufficient",
            basic.delete(&format!("/v1/contacts/{}", first.id())),
        ),
        ("not_found", elevated.get("/v1/nowhere")),
        ("not_found", elevated.send("PUT", "/v1/whoami", None, &[])),
        (
            "not_found",
            elevated.delete("/v1/contacts/qso_aaaaaaaaaaaaaaaa"),
        ),
        (
            "qso_cap_reached",
            elevated.post("/v1/contacts", contact(&folder, "K2XYZ")),
        ),
    ];
    // A burst limit of 1 per minute: the second request of a key within the minute is limited.
    let limited = Server::start_with(&["--burst-limit", "1"]);
    let api = limited.account("W1AW", "basic");
    let mut last = api.get("/v1/whoami");
    for _ in 0..3 {
        if last.status == 429 {
            break;
        }
        last = api.get("/v1/whoami");
    }
    errors.push(("rate_limited", last));

    let statuses = [
        ("validation_error", 400),
        ("unauthorized", 401),
        ("key_revoked", 401),
        ("qso_cap_reached", 402),
        ("tier_insufficient", 403),
        ("not_found", 404),
        ("rate_limited", 429),
    ];
    let mut ids = HashSet::new();
    for (code, r) in &errors {
        let status = statuses.iter().find(|(c, _)| c == code).unwrap().1;
        envelope(r, status, code);
        let id = r.body["requestId"].as_str().unwrap();
        assert_eq!(r.header("x-request-id"), Some(id), "{code}");
        assert!(ids.insert(id.to_owned()), "request id {id} used twice");
    }
    let limited = &errors.last().unwrap().1;
    assert_eq!(
        limited.body["details"]["reason"], "burst",
        "{}",
        limited.body
    );
    assert!(
        limited
            .header("retry-after")
            .and_then(|v| v.parse::<u64>().ok())
            .is_some_and(|s| (1..=60).contains(&s)),
        "Retry-After in seconds: {:?}",
        limited.header("retry-after")
    );
    assert_eq!(
        errors
            .iter()
            .find(|(c, _)| *c == "tier_insufficient")
            .unwrap()
            .1
            .body["details"]["required"],
        "elevated"
    );

    // Successes carry a request id too, each its own.
    let ok = elevated.get("/v1/whoami");
    assert_eq!(ok.status, 200);
    let id = ok
        .header("x-request-id")
        .expect("X-Request-Id on a success");
    assert!(id.starts_with("req_"), "{id}");
    assert!(ids.insert(id.to_owned()));
    assert!(ok.body.get("requestId").is_none(), "{}", ok.body);
}

/// A handler that always panics, as a bug in a real handler would.
async fn boom() -> &'static str {
    panic!("boom")
}

fn a_handler_panic_is_an_internal_envelope_and_the_server_keeps_serving() {
    let db = crate::common::Db::fresh();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (addr, server) = runtime.block_on(async {
        let store = svc::store::open(&db.url).await.expect("open the store");
        let state = svc::server::AppState {
            store,
            limits: Default::default(),
            web: Default::default(),
            logbooks: None,
            dxcc: std::sync::Arc::new(svc::model::dxcc::Dxcc::shipped()),
            parks: None,
        };
        let app = svc::server::with_middleware(
            svc::server::routes().route("/v1/boom", axum::routing::get(boom)),
            state,
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move { axum::serve(listener, app).await });
        (addr, server)
    });
    let base = format!("http://{addr}");
    let http = crate::common::http_client();
    let get = |path: &str| {
        let r = http.get(format!("{base}{path}")).send().expect("request");
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        let text = r.text().unwrap();
        let body = serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text));
        Resp {
            status,
            headers,
            body,
        }
    };

    let mut ids = HashSet::new();
    for _ in 0..3 {
        let r = get("/v1/boom");
        let message = envelope(&r, 500, "internal");
        assert!(!message.contains("boom"), "the panic text leaks: {message}");
        assert!(ids.insert(r.body["requestId"].as_str().unwrap().to_owned()));
        // Between panics the server still answers ordinary requests through the same middleware.
        let r = get("/v1/whoami");
        envelope(&r, 401, "unauthorized");
        let r = get("/v1/nowhere");
        envelope(&r, 404, "not_found");
    }
    assert!(!server.is_finished(), "the server task ended");
    assert_eq!(
        get("/v1/whoami").status,
        401,
        "still serving after the panics"
    );
    server.abort();
    runtime.shutdown_background();
}

crate::both_backends!(
    an_unknown_route_is_a_not_found_envelope,
    a_wrong_method_is_not_found_with_an_allow_header,
    every_error_carries_its_request_id_in_body_and_header,
    a_handler_panic_is_an_internal_envelope_and_the_server_keeps_serving,
);
