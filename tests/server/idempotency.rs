//! `Idempotency-Key` on creates (PRODUCT.md): a replay returns the first response and stores
//! nothing new.

use serde_json::json;

use crate::common::{Server, contact, this_month};

#[test]
fn a_replayed_create_returns_the_first_response_and_stores_nothing() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let body = contact(&folder, "K1ABC");
    let key = [("Idempotency-Key", "3f1c2a9e-first")];
    let first = api.send("POST", "/v1/contacts", Some(&body), &key);
    assert_eq!(first.status, 201, "{}", first.body);
    assert!(first.body.get("replayed").is_none());
    let again = api.send("POST", "/v1/contacts", Some(&body), &key);
    assert_eq!(again.status, 201);
    assert_eq!(again.id(), first.id());
    assert_eq!(again.body["replayed"], true);
    assert_eq!(api.qso_count(), 1);
    assert_eq!(api.contacts(&folder).len(), 1);

    // The same key with another body is refused and changes nothing.
    let other = contact(&folder, "K2ABC");
    let r = api.send("POST", "/v1/contacts", Some(&other), &key);
    assert!(
        r.expect_error(400, "validation_error")
            .contains("Idempotency-Key")
    );
    assert_eq!(api.qso_count(), 1);

    // Another key is another contact.
    let third = api.send(
        "POST",
        "/v1/contacts",
        Some(&body),
        &[("Idempotency-Key", "second")],
    );
    assert_ne!(third.id(), first.id());
    assert_eq!(api.qso_count(), 2);
}

#[test]
fn a_refused_create_does_not_use_up_its_key() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let mut bad = contact(&folder, "K1ABC");
    bad["frequency"] = json!(27.185);
    let key = [("Idempotency-Key", "retry-me")];
    api.send("POST", "/v1/contacts", Some(&bad), &key)
        .expect_error(400, "validation_error");
    let good = contact(&folder, "K1ABC");
    let r = api.send("POST", "/v1/contacts", Some(&good), &key);
    assert_eq!(r.status, 201, "{}", r.body);
    assert!(r.body.get("replayed").is_none());
}

#[test]
fn keys_belong_to_one_account_and_survive_a_restart() {
    let s = Server::start();
    let a = s.account("W1AW", "basic");
    let b = s.account("K1ABC", "basic");
    let (month, _) = this_month();
    let fa = a.monthly(&month, None);
    let fb = b.monthly(&month, None);
    let key = [("Idempotency-Key", "shared-key")];
    let body_a = contact(&fa, "N0CALL");
    let ra = a.send("POST", "/v1/contacts", Some(&body_a), &key);
    let rb = b.send("POST", "/v1/contacts", Some(&contact(&fb, "N0CALL")), &key);
    assert_eq!((ra.status, rb.status), (201, 201));
    assert_ne!(ra.id(), rb.id());

    let key_a = a.key().to_owned();
    let (dir, db) = s.crash();
    let s2 = Server::start_on(dir, db, &[]);
    let a2 = s2.api(Some(&key_a));
    let replay = a2.send("POST", "/v1/contacts", Some(&body_a), &key);
    assert_eq!(replay.id(), ra.id());
    assert_eq!(replay.body["replayed"], true);
    assert_eq!(a2.qso_count(), 1);
}

#[test]
fn activation_and_folder_creates_replay_too() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let key = [("Idempotency-Key", "act-1")];
    let body = json!({ "locationReference": "US-1234", "callsign": "W1AW" });
    let first = api.send("POST", "/v1/activations", Some(&body), &key);
    assert_eq!(
        (first.status, first.body["created"].as_bool()),
        (201, Some(true))
    );
    let again = api.send("POST", "/v1/activations", Some(&body), &key);
    assert_eq!(
        (again.status, again.body["created"].as_bool()),
        (201, Some(true)),
        "the first response, replayed"
    );
    assert_eq!(again.body["replayed"], true);
    assert_eq!(again.id(), first.id());
    // The same key on another endpoint is a different request.
    let r = api.send(
        "POST",
        "/v1/folders",
        Some(&json!({ "type": "monthly", "month": "2026-11" })),
        &key,
    );
    r.expect_error(400, "validation_error");
    let cat = json!({ "type": "category", "name": "Contests" });
    let c1 = api.send(
        "POST",
        "/v1/folders",
        Some(&cat),
        &[("Idempotency-Key", "cat")],
    );
    let c2 = api.send(
        "POST",
        "/v1/folders",
        Some(&cat),
        &[("Idempotency-Key", "cat")],
    );
    assert_eq!(c1.id(), c2.id());
    assert_eq!(api.folders("category").len(), 5);
}
