//! Authentication and authorization: keys, tiers, revocation, account isolation, and the admin
//! commands that manage accounts and keys.

use serde_json::{Value, json};

use crate::common::{Api, Resp, Server, admin_on, contact, this_month};

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `svc server key list <callsign> --json`, parsed.
fn key_list(server: &Server, callsign: &str) -> Vec<Value> {
    let out = server.admin(&["key", "list", callsign, "--json"]);
    assert!(out.status.success(), "key list: {}", stderr(&out));
    serde_json::from_str::<Value>(&stdout(&out))
        .unwrap_or_else(|e| panic!("key list --json is not JSON ({e}): {}", stdout(&out)))
        .as_array()
        .expect("key list --json is an array")
        .clone()
}

/// The listed record of `key` (matched by its display prefix and tier).
fn record_of(server: &Server, callsign: &str, api: &Api) -> Value {
    let prefix = &api.key()[..12];
    let keys = key_list(server, callsign);
    let matching: Vec<&Value> = keys.iter().filter(|k| k["keyPrefix"] == prefix).collect();
    assert_eq!(matching.len(), 1, "one key with prefix {prefix}: {keys:?}");
    matching[0].clone()
}

fn is_key_shape(s: &str) -> bool {
    s.strip_prefix("svc_live_").is_some_and(|body| {
        body.len() == 24 && body.bytes().all(|b| matches!(b, b'A'..=b'Z' | b'2'..=b'7'))
    })
}

/// The requests every endpoint family gets in the auth checks.
fn probe_all(api: &Api, folder: &str) -> Vec<(String, Resp)> {
    let (month, _) = this_month();
    vec![
        ("GET whoami".into(), api.get("/v1/whoami")),
        ("GET folders".into(), api.get("/v1/folders")),
        (
            "GET contacts".into(),
            api.get(&format!("/v1/folders/{folder}/contacts")),
        ),
        ("GET activations".into(), api.get("/v1/activations")),
        (
            "POST contacts".into(),
            api.post("/v1/contacts", contact(folder, "K1ABC")),
        ),
        (
            "POST folders".into(),
            api.post("/v1/folders", json!({"type": "monthly", "month": month})),
        ),
        (
            "POST activations".into(),
            api.post(
                "/v1/activations",
                json!({"locationReference": "US-1234", "callsign": "W1AW"}),
            ),
        ),
        (
            "POST end".into(),
            api.post(&format!("/v1/activations/{folder}/end"), json!({})),
        ),
        (
            "DELETE contact".into(),
            api.delete("/v1/contacts/qso_aaaaaaaaaaaaaaaa"),
        ),
    ]
}

/// An account with a monthly folder holding one contact; returns (server, api, folder, qso).
fn account_with_contact(tier: &str) -> (Server, Api, String, String) {
    let server = Server::start();
    let api = server.account("W1AW", tier);
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let r = api.post("/v1/contacts", contact(&folder, "K1ABC"));
    assert_eq!(r.status, 201, "{}", r.body);
    let qso = r.id();
    (server, api, folder, qso)
}

fn a_missing_authorization_header_is_unauthorized_everywhere() {
    let (server, owner, folder, _) = account_with_contact("elevated");
    let before = owner.qso_count();
    let anon = server.api(None);
    for (what, r) in probe_all(&anon, &folder) {
        let message = r.expect_error(401, "unauthorized");
        assert!(
            message.contains("Authorization") && message.contains("Bearer"),
            "{what}: the message should say how to send a key: {message}"
        );
    }
    assert_eq!(owner.qso_count(), before);
    assert_eq!(owner.contacts(&folder).len(), 1);
}

fn a_scheme_other_than_bearer_is_unauthorized() {
    let (server, owner, folder, _) = account_with_contact("elevated");
    let key = owner.key().to_owned();
    let anon = server.api(None);
    for value in [
        format!("Basic {key}"),
        format!("Token {key}"),
        format!("Bearer:{key}"),
        format!("Bearer{key}"),
        key.clone(),
        "Bearer".to_owned(),
        "Basic dzFhdzpwYXNzd29yZA==".to_owned(),
    ] {
        for path in [
            "/v1/whoami".to_owned(),
            format!("/v1/folders/{folder}/contacts"),
        ] {
            let r = anon.send("GET", &path, None, &[("authorization", value.as_str())]);
            let message = r.expect_error(401, "unauthorized");
            assert!(message.contains("Bearer"), "{value:?}: {message}");
            assert!(
                !r.body.to_string().contains(&key[12..]),
                "the key is echoed back: {}",
                r.body
            );
        }
    }
    let r = anon.send(
        "POST",
        "/v1/contacts",
        Some(&contact(&folder, "K2XYZ")),
        &[("authorization", format!("Token {key}").as_str())],
    );
    r.expect_error(401, "unauthorized");
    assert_eq!(owner.contacts(&folder).len(), 1);
    // The right scheme with the same key works: the refusals were about the scheme.
    assert_eq!(owner.whoami()["callsign"], "W1AW");
}

fn a_malformed_key_is_unauthorized() {
    let (server, owner, folder, _) = account_with_contact("elevated");
    let key = owner.key().to_owned();
    let body = &key["svc_live_".len()..];
    let malformed = [
        format!("svc_test_{body}"),
        format!("sk_live_{body}"),
        format!("SVC_LIVE_{body}"),
        format!("svc_live{body}"),
        format!("svc_live_{}", &body[..23]),
        format!("{key}A"),
        format!("svc_live_{}", body.to_lowercase()),
        format!("svc_live_{}1", &body[..23]),
        format!("svc_live_{}8", &body[..23]),
        format!("svc_live_{}=", &body[..23]),
        "svc_live_".to_owned(),
        "svc_live_ÄBCDEFGHIJKLMNOPQRSTUVW".to_owned(),
    ];
    for bad in &malformed {
        let api = server.api(Some(bad));
        for (what, r) in probe_all(&api, &folder) {
            let message = r.expect_error(401, "unauthorized");
            assert!(
                message.contains("malformed") || message.contains("svc_live_"),
                "{bad} {what}: {message}"
            );
            assert!(
                !r.body.to_string().contains(&body[3..]),
                "{bad} {what}: the key is echoed back: {}",
                r.body
            );
        }
    }
    assert_eq!(owner.contacts(&folder).len(), 1);
}

fn a_well_formed_unknown_key_is_unauthorized() {
    let (server, owner, folder, _) = account_with_contact("elevated");
    let key = owner.key().to_owned();
    // Same prefix as a real key, different secret: the prefix alone must never authenticate.
    let mut twin = key.clone();
    let last = if key.ends_with('A') { "B" } else { "A" };
    twin.replace_range(key.len() - 1.., last);
    for unknown in [
        "svc_live_AAAAAAAAAAAAAAAAAAAAAAAA".to_owned(),
        "svc_live_ABCDEFGHIJKLMNOPQRSTUVWX".to_owned(),
        twin,
    ] {
        let api = server.api(Some(&unknown));
        for (what, r) in probe_all(&api, &folder) {
            let message = r.expect_error(401, "unauthorized");
            assert!(message.contains("not recognized"), "{what}: {message}");
        }
    }
    assert_eq!(owner.contacts(&folder).len(), 1);
    assert_eq!(owner.folders("monthly").len(), 1);
}

fn a_revoked_key_gets_key_revoked_and_the_list_shows_the_revocation() {
    let (server, doomed, folder, qso) = account_with_contact("elevated");
    let survivor = server.new_key("W1AW", "basic");
    let by_prefix = server.new_key("W1AW", "elevated");
    assert_eq!(doomed.whoami()["tier"], "elevated");

    let record = record_of(&server, "W1AW", &doomed);
    assert!(record["revokedAt"].is_null(), "{record}");
    assert!(record["revokedReason"].is_null(), "{record}");
    let id = record["id"].as_str().expect("key id").to_owned();
    assert!(id.starts_with("key_"), "{id}");

    let started = svc::model::Timestamp::now().to_string();
    let out = server.admin(&["key", "revoke", &id]);
    assert!(out.status.success(), "key revoke: {}", stderr(&out));
    assert!(stdout(&out).contains(&id), "{}", stdout(&out));
    let finished = svc::model::Timestamp::now().to_string();

    for (what, r) in probe_all(&doomed, &folder) {
        let message = r.expect_error(401, "key_revoked");
        assert!(message.contains("revoked"), "{what}: {message}");
    }
    // Revocation beats the tier check: the DELETE of a real contact is refused as revoked.
    doomed
        .delete(&format!("/v1/contacts/{qso}"))
        .expect_error(401, "key_revoked");
    assert_eq!(survivor.contacts(&folder).len(), 1, "nothing was deleted");

    let record = record_of(&server, "W1AW", &doomed);
    let revoked_at = record["revokedAt"].as_str().expect("revokedAt is set");
    let revoked_ms = chrono::DateTime::parse_from_rfc3339(revoked_at)
        .expect("revokedAt is ISO 8601")
        .timestamp_millis();
    let ms = |t: &str| {
        chrono::DateTime::parse_from_rfc3339(t)
            .unwrap()
            .timestamp_millis()
    };
    assert!(
        ms(&started) - 1000 <= revoked_ms && revoked_ms <= ms(&finished) + 1000,
        "revokedAt {revoked_at} not between {started} and {finished}"
    );
    assert_eq!(record["revokedReason"], "user", "{record}");

    // Other keys of the account are untouched.
    assert_eq!(survivor.whoami()["tier"], "basic");
    assert!(record_of(&server, "W1AW", &survivor)["revokedAt"].is_null());

    // Revoking by the displayed prefix works too.
    let prefix = record_of(&server, "W1AW", &by_prefix)["keyPrefix"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(prefix, &by_prefix.key()[..12]);
    let out = server.admin(&["key", "revoke", &prefix]);
    assert!(out.status.success(), "revoke by prefix: {}", stderr(&out));
    by_prefix.get("/v1/whoami").expect_error(401, "key_revoked");
    assert!(record_of(&server, "W1AW", &by_prefix)["revokedAt"].is_string());

    // Revoking again is refused, and changes nothing.
    let out = server.admin(&["key", "revoke", &id]);
    assert!(!out.status.success(), "second revoke: {}", stdout(&out));
    assert!(stderr(&out).contains("already"), "{}", stderr(&out));
    assert_eq!(
        record_of(&server, "W1AW", &doomed)["revokedAt"].as_str(),
        Some(revoked_at)
    );
}

fn a_basic_key_reads_and_creates_but_cannot_delete() {
    let server = Server::start();
    let basic = server.account("W1AW", "basic");
    let (month, _) = this_month();
    // Create: a folder, an activation, contacts.
    let folder = basic.monthly(&month, None);
    let activation = basic.activation("US-1234", "W1AW");
    let r = basic.post("/v1/contacts", contact(&folder, "K1ABC"));
    assert_eq!(r.status, 201, "{}", r.body);
    let qso = r.id();
    let r = basic.post("/v1/contacts", contact(&activation, "K2XYZ"));
    assert_eq!(r.status, 201, "{}", r.body);
    // Read.
    assert_eq!(basic.whoami()["tier"], "basic");
    assert_eq!(basic.contacts(&folder).len(), 1);
    assert_eq!(basic.get("/v1/activations").status, 200);
    assert_eq!(basic.qso_count(), 2);

    let r = basic.delete(&format!("/v1/contacts/{qso}"));
    let message = r.expect_error(403, "tier_insufficient");
    assert_eq!(r.body["details"]["required"], "elevated", "{}", r.body);
    assert!(message.contains("elevated"), "{message}");
    // A missing contact gets the same answer: the tier check does not disclose existence.
    let r = basic.delete("/v1/contacts/qso_aaaaaaaaaaaaaaaa");
    r.expect_error(403, "tier_insufficient");
    assert_eq!(r.body["details"]["required"], "elevated");

    let items = basic.contacts(&folder);
    assert_eq!(items.len(), 1, "the contact still exists");
    assert_eq!(items[0]["id"], qso.as_str());
    assert_eq!(basic.qso_count(), 2);
    assert_eq!(basic.folders("monthly")[0]["contactCount"], 1);

    // An elevated key of the same account may delete it.
    let elevated = server.new_key("W1AW", "elevated");
    let r = elevated.delete(&format!("/v1/contacts/{qso}"));
    assert_eq!(r.status, 200, "{}", r.body);
}

fn an_elevated_key_deletes_a_contact() {
    let (_server, api, folder, qso) = account_with_contact("elevated");
    let r = api.post("/v1/contacts", contact(&folder, "K2XYZ"));
    assert_eq!(r.status, 201, "{}", r.body);
    let keep = r.id();
    assert_eq!(api.qso_count(), 2);

    let r = api.delete(&format!("/v1/contacts/{qso}"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body, json!({"id": qso, "success": true}));
    assert!(
        r.header("x-request-id")
            .is_some_and(|id| id.starts_with("req_")),
        "{:?}",
        r.headers
    );

    let items = api.contacts(&folder);
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["id"], keep.as_str());
    assert_eq!(api.qso_count(), 1);
    assert_eq!(api.folders("monthly")[0]["contactCount"], 1);

    // Gone: a second delete is not_found, and nothing else changes.
    api.delete(&format!("/v1/contacts/{qso}"))
        .expect_error(404, "not_found");
    assert_eq!(api.qso_count(), 1);
}

/// The body without its request id, with `ids` replaced by a placeholder.
fn normalized(r: &Resp, ids: &[&str]) -> String {
    let mut body = r.body.clone();
    body.as_object_mut().unwrap().remove("requestId");
    let mut text = body.to_string();
    for id in ids {
        text = text.replace(id, "<id>");
    }
    text
}

fn another_accounts_contact_and_a_missing_one_look_the_same() {
    let (server, owner, folder, qso) = account_with_contact("elevated");
    let other = server.account("K1ABC", "elevated");
    let missing = "qso_aaaaaaaaaaaaaaaa";

    let foreign = other.delete(&format!("/v1/contacts/{qso}"));
    foreign.expect_error(404, "not_found");
    let absent = other.delete(&format!("/v1/contacts/{missing}"));
    absent.expect_error(404, "not_found");
    assert_eq!(
        normalized(&foreign, &[&qso, missing]),
        normalized(&absent, &[&qso, missing])
    );
    assert_ne!(foreign.body["requestId"], absent.body["requestId"]);
    assert_eq!(
        foreign.header("content-type"),
        absent.header("content-type")
    );
    assert_eq!(foreign.header("allow"), absent.header("allow"));

    // The same for the contacts of another account's folder and of a missing folder.
    let unknown_folder = "fld_aaaaaaaaaaaaaaaa";
    let foreign = other.get(&format!("/v1/folders/{folder}/contacts"));
    foreign.expect_error(404, "not_found");
    let absent = other.get(&format!("/v1/folders/{unknown_folder}/contacts"));
    absent.expect_error(404, "not_found");
    assert_eq!(
        normalized(&foreign, &[&folder, unknown_folder]),
        normalized(&absent, &[&folder, unknown_folder])
    );

    // The owner's contact survived the attempt.
    let items = owner.contacts(&folder);
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["id"], qso.as_str());
    assert_eq!(owner.qso_count(), 1);
}

fn keys_never_see_another_accounts_folders() {
    let server = Server::start();
    let a = server.account("W1AW", "elevated");
    let b = server.account("K1ABC", "elevated");
    let (month, _) = this_month();
    let a_monthly = a.monthly(&month, None);
    let a_hunting = a.monthly(&month, Some("pota"));
    let a_activation = a.activation("US-1234", "W1AW");
    let r = a.post(
        "/v1/folders",
        json!({"type": "category", "name": "Contests"}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let a_category = r.id();
    for f in [&a_monthly, &a_activation] {
        let r = a.post("/v1/contacts", contact(f, "N0CALL"));
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let a_all: Vec<String> = a.get("/v1/folders?limit=200").body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(a_all.len() >= 8, "{a_all:?}");
    assert!(a_all.contains(&a_category), "{a_all:?}");

    // B's lists hold none of A's folders.
    let b_folders = b.get("/v1/folders?limit=200");
    assert_eq!(b_folders.status, 200);
    for f in b_folders.body["items"].as_array().unwrap() {
        let id = f["id"].as_str().unwrap();
        assert!(!a_all.iter().any(|a_id| a_id == id), "B sees {f}");
    }
    let b_activations = b.get("/v1/activations?limit=200");
    assert_eq!(
        b_activations.body["items"],
        json!([]),
        "{}",
        b_activations.body
    );

    // Every one of A's folders is not_found for B, for reading and for writing.
    for id in &a_all {
        b.get(&format!("/v1/folders/{id}/contacts"))
            .expect_error(404, "not_found");
        b.post("/v1/contacts", contact(id, "K2XYZ"))
            .expect_error(404, "not_found");
        b.post(&format!("/v1/activations/{id}/end"), json!({}))
            .expect_error(404, "not_found");
        b.post(
            "/v1/folders",
            json!({"type": "category", "name": "Mine", "parentId": id}),
        )
        .expect_error(404, "not_found");
    }
    // The same month and park for B are B's own folders, not A's.
    assert_ne!(b.monthly(&month, None), a_monthly);
    assert_ne!(b.monthly(&month, Some("pota")), a_hunting);
    assert_ne!(b.activation("US-1234", "W1AW"), a_activation);

    // A is untouched: the activation still runs, the contacts are there, counts are separate.
    assert_eq!(a.contacts(&a_monthly).len(), 1);
    assert_eq!(a.contacts(&a_activation).len(), 1);
    let running = a.get("/v1/activations?inProgress=true");
    assert_eq!(running.body["items"][0]["id"], a_activation.as_str());
    assert_eq!(a.qso_count(), 2);
    assert_eq!(b.qso_count(), 0);
    assert_eq!(b.whoami()["callsign"], "K1ABC");
}

fn whoami_has_exactly_the_identity_fields() {
    let server = Server::start();
    let out = server.admin(&["user", "add", "k1abc"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let basic = server.new_key("k1abc", "basic");
    let elevated = server.new_key("K1ABC", "elevated");

    let r = basic.get("/v1/whoami");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.header("content-type")
            .is_some_and(|ct| ct.starts_with("application/json")),
        "{:?}",
        r.headers
    );
    assert_eq!(
        r.body,
        json!({"callsign": "K1ABC", "plan": "free", "tier": "basic", "nativeQsoCount": 0})
    );
    assert_eq!(
        elevated.whoami(),
        json!({"callsign": "K1ABC", "plan": "free", "tier": "elevated", "nativeQsoCount": 0})
    );

    let (month, _) = this_month();
    let folder = basic.monthly(&month, None);
    let r = basic.post("/v1/contacts", contact(&folder, "W1AW"));
    assert_eq!(r.status, 201, "{}", r.body);
    let me = elevated.whoami();
    assert_eq!(me["nativeQsoCount"], 1, "{me}");
    assert!(me["nativeQsoCount"].is_i64(), "an integer: {me}");
    let keys: Vec<&String> = me.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 4, "{me}");
    let r = elevated.delete(&format!("/v1/contacts/{}", r.id()));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(basic.whoami()["nativeQsoCount"], 0);
}

fn the_plaintext_key_is_never_logged_nor_listed() {
    let server = Server::process();
    let api = server.account("W1AW", "elevated");
    let revoked = server.new_key("W1AW", "basic");
    let secrets: Vec<String> = [api.key(), revoked.key()]
        .iter()
        .map(|k| k["svc_live_".len() + 3..].to_owned())
        .collect();

    // Successful, failing, revoked and unknown-key traffic.
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let r = api.post("/v1/contacts", contact(&folder, "K1ABC"));
    assert_eq!(r.status, 201);
    api.get("/v1/folders?limit=0");
    api.get("/v1/nowhere");
    revoked.whoami();
    let id = record_of(&server, "W1AW", &revoked)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(server.admin(&["key", "revoke", &id]).status.success());
    revoked.get("/v1/whoami").expect_error(401, "key_revoked");
    let unknown = "svc_live_QQQQQQQQQQQQQQQQQQQQQQQQ";
    server
        .api(Some(unknown))
        .get("/v1/whoami")
        .expect_error(401, "unauthorized");
    let malformed = "svc_live_qqqqqqqqqqqqqqqqqqqqqqqq";
    server
        .api(Some(malformed))
        .get("/v1/whoami")
        .expect_error(401, "unauthorized");

    let logs = server.logs();
    assert!(
        logs.contains("/v1/whoami"),
        "the server logs requests (else this test proves nothing): {logs}"
    );
    for secret in secrets
        .iter()
        .map(String::as_str)
        .chain([&unknown[12..], &malformed[12..]])
    {
        assert!(
            !logs.contains(secret),
            "a key's secret part {secret} is in the server log"
        );
    }
    assert!(
        !logs.contains("Bearer svc_live_"),
        "an Authorization header is logged"
    );

    let text = server.admin(&["key", "list", "W1AW"]);
    assert!(text.status.success(), "{}", stderr(&text));
    let json_out = server.admin(&["key", "list", "W1AW", "--json"]);
    assert!(json_out.status.success(), "{}", stderr(&json_out));
    for out in [&text, &json_out] {
        let all = format!("{}{}", stdout(out), stderr(out));
        assert!(
            all.contains(&api.key()[..12]),
            "the prefix is listed: {all}"
        );
        for secret in &secrets {
            assert!(
                !all.contains(secret.as_str()),
                "key list shows a secret: {all}"
            );
        }
    }
    let listed: Value = serde_json::from_str(&stdout(&json_out)).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 2);
    for record in listed.as_array().unwrap() {
        for field in record.as_object().unwrap().keys() {
            let lower = field.to_ascii_lowercase();
            assert!(
                !lower.contains("hash")
                    && !lower.contains("secret")
                    && !lower.contains("plaintext"),
                "key list --json has a field {field}: {record}"
            );
            assert_ne!(field, "key", "{record}");
        }
        for value in record.as_object().unwrap().values() {
            if let Some(s) = value.as_str() {
                // A SHA-256 in hex or base64 would be 64 or 44 characters.
                assert!(s.len() < 40, "a long value in key list: {record}");
            }
        }
    }
}

fn key_create_prints_exactly_one_line_with_the_key() {
    let server = Server::start();
    let out = server.admin(&["user", "add", "W1AW"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut seen = Vec::new();
    for tier in ["basic", "elevated"] {
        let out = server.admin(&["key", "create", "W1AW", "--name", "laptop", "--tier", tier]);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        assert!(text.ends_with('\n'), "{text:?}");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1, "exactly one line: {text:?}");
        assert!(
            is_key_shape(lines[0]),
            "^svc_live_[A-Z2-7]{{24}}$: {:?}",
            lines[0]
        );
        assert!(
            !stderr(&out).contains(lines[0]),
            "the key is also on stderr"
        );
        // The printed key works, with the tier asked for.
        let api = server.api(Some(lines[0]));
        assert_eq!(api.whoami()["tier"], tier);
        seen.push(lines[0].to_owned());
    }
    assert_ne!(seen[0], seen[1]);
    let listed = key_list(&server, "W1AW");
    assert_eq!(listed.len(), 2);
    for record in &listed {
        assert_eq!(record["name"], "laptop");
        assert_eq!(record["callsign"], "W1AW");
    }
}

fn admin_commands_fail_with_the_documented_exit_codes() {
    let server = Server::start();
    let out = server.admin(&["user", "add", "W1AW"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("W1AW"), "{}", stdout(&out));

    // The same account twice (also in another case): 2, the account is kept as it was.
    for again in ["W1AW", "w1aw"] {
        let out = server.admin(&["user", "add", again]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "user add {again}: {}",
            stderr(&out)
        );
        assert!(stderr(&out).contains("exists"), "{}", stderr(&out));
    }
    let api = server.new_key("W1AW", "basic");
    assert_eq!(api.whoami()["callsign"], "W1AW");
    assert_eq!(
        api.folders("category").len(),
        4,
        "one root and three program categories"
    );

    // A key for a missing account: 1, naming the command that makes the account.
    let out = server.admin(&["key", "create", "K1ABC", "--name", "x", "--tier", "basic"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("svc server user add"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty(), "no key printed: {}", stdout(&out));

    // Revoking an unknown key: 1.
    for unknown in ["svc_live_ZZZ", "key_aaaaaaaaaaaaaaaa", "nothing"] {
        let out = server.admin(&["key", "revoke", unknown]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "revoke {unknown}: {}",
            stderr(&out)
        );
        assert!(!stderr(&out).is_empty());
    }
    assert!(key_list(&server, "W1AW")[0]["revokedAt"].is_null());

    // A short password from stdin: 2, and no account is made.
    let out = admin_on(
        &server.db.url,
        &["user", "add", "K1ABC", "--password-stdin"],
        Some("short\n"),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("password"), "{}", stderr(&out));
    let out = server.admin(&["key", "create", "K1ABC", "--name", "x", "--tier", "basic"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the account was not made: {}",
        stdout(&out)
    );
    // A long enough one is taken.
    let out = admin_on(
        &server.db.url,
        &["user", "add", "K1ABC", "--password-stdin"],
        Some("correct horse battery staple\n"),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("horse") && !stderr(&out).contains("horse"));

    // A bad callsign: 2.
    let out = server.admin(&["user", "add", "not a call"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

crate::both_backends!(
    a_missing_authorization_header_is_unauthorized_everywhere,
    a_scheme_other_than_bearer_is_unauthorized,
    a_malformed_key_is_unauthorized,
    a_well_formed_unknown_key_is_unauthorized,
    a_revoked_key_gets_key_revoked_and_the_list_shows_the_revocation,
    a_basic_key_reads_and_creates_but_cannot_delete,
    an_elevated_key_deletes_a_contact,
    another_accounts_contact_and_a_missing_one_look_the_same,
    keys_never_see_another_accounts_folders,
    whoami_has_exactly_the_identity_fields,
    the_plaintext_key_is_never_logged_nor_listed,
    key_create_prints_exactly_one_line_with_the_key,
    admin_commands_fail_with_the_documented_exit_codes,
);
