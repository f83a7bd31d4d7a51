//! `Idempotency-Key` on creates (docs/API.md): a replay returns the first response and stores
//! nothing new.

use serde_json::json;

use crate::common::{Server, contact, this_month};

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
    let db = s.crash();
    let s2 = Server::start_on(db, &[]);
    let a2 = s2.api(Some(&key_a));
    let replay = a2.send("POST", "/v1/contacts", Some(&body_a), &key);
    assert_eq!(replay.id(), ra.id());
    assert_eq!(replay.body["replayed"], true);
    assert_eq!(a2.qso_count(), 1);
}

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

fn a_create_refused_by_the_store_releases_its_key() {
    // The cap is checked inside the store's transaction, after the key was claimed there:
    // the refusal must take the claim back with it.
    let s = Server::start_with(&["--free-plan-cap", "1"]);
    let api = s.account("W1AW", "elevated");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let first = api.send(
        "POST",
        "/v1/contacts",
        Some(&contact(&folder, "K1ABC")),
        &[("Idempotency-Key", "first")],
    );
    assert_eq!(first.status, 201, "{}", first.body);
    let key = [("Idempotency-Key", "after-the-cap")];
    let body = contact(&folder, "K2ABC");
    api.send("POST", "/v1/contacts", Some(&body), &key)
        .expect_error(402, "qso_cap_reached");
    let r = api.delete(&format!("/v1/contacts/{}", first.id()));
    assert_eq!(r.status, 200, "{}", r.body);
    let r = api.send("POST", "/v1/contacts", Some(&body), &key);
    assert_eq!(r.status, 201, "{}", r.body);
    assert!(r.body.get("replayed").is_none(), "{}", r.body);
    assert_eq!(api.qso_count(), 1);
}

/// Milliseconds in a day, as SQL text both backends read as a 64-bit integer.
const DAY_MS: i64 = 86_400_000;

fn a_key_first_used_days_ago_still_replays() {
    // The offline journal may send an entry again days after its first try (a laptop closed
    // over a weekend): the key must still find the first contact.
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let key = [("Idempotency-Key", "weekend-key")];
    let body = contact(&folder, "K1ABC");
    let first = api.send("POST", "/v1/contacts", Some(&body), &key);
    assert_eq!(first.status, 201, "{}", first.body);
    let aged = s.exec_sql(
        "UPDATE idempotency SET created_at = created_at - 259200000 WHERE key = $1",
        &["weekend-key"],
    );
    assert_eq!(aged, 1);
    assert_eq!(3 * DAY_MS, 259_200_000);
    let again = api.send("POST", "/v1/contacts", Some(&body), &key);
    assert_eq!(again.status, 201, "{}", again.body);
    assert_eq!(again.id(), first.id());
    assert_eq!(again.body["replayed"], true);
    // Another body with the 3-day-old key is still a conflict, not a new contact.
    let r = api.send(
        "POST",
        "/v1/contacts",
        Some(&contact(&folder, "K2ABC")),
        &key,
    );
    let message = r.expect_error(400, "validation_error");
    assert!(message.contains("within the last 30 days"), "{message}");
    assert_eq!(r.body["details"]["field"], "Idempotency-Key");
    assert_eq!(api.qso_count(), 1);
}

fn a_key_older_than_30_days_is_a_new_request() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let key = [("Idempotency-Key", "old-key")];
    let first = api.send(
        "POST",
        "/v1/contacts",
        Some(&contact(&folder, "K1ABC")),
        &key,
    );
    assert_eq!(first.status, 201, "{}", first.body);
    // 30 days and one minute ago.
    let aged = s.exec_sql(
        "UPDATE idempotency SET created_at = created_at - 2592060000 WHERE key = $1",
        &["old-key"],
    );
    assert_eq!(aged, 1);
    assert_eq!(30 * DAY_MS + 60_000, 2_592_060_000);
    // Another body with the expired key is no longer a conflict but a new contact.
    let body = contact(&folder, "K2ABC");
    let second = api.send("POST", "/v1/contacts", Some(&body), &key);
    assert_eq!(second.status, 201, "{}", second.body);
    assert!(second.body.get("replayed").is_none());
    assert_ne!(second.id(), first.id());
    // And the key now replays the second request.
    let again = api.send("POST", "/v1/contacts", Some(&body), &key);
    assert_eq!(again.id(), second.id());
    assert_eq!(again.body["replayed"], true);
    assert_eq!(api.qso_count(), 2);
}

fn expired_keys_are_purged_and_live_ones_kept() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    for key in ["aged", "live", "days-old"] {
        let r = api.send(
            "POST",
            "/v1/contacts",
            Some(&contact(&folder, "K1ABC")),
            &[("Idempotency-Key", key)],
        );
        assert_eq!(r.status, 201, "{}", r.body);
    }
    // 31 days and 29 days ago.
    s.exec_sql(
        "UPDATE idempotency SET created_at = created_at - 2678400000 WHERE key = $1",
        &["aged"],
    );
    s.exec_sql(
        "UPDATE idempotency SET created_at = created_at - 2505600000 WHERE key = $1",
        &["days-old"],
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let purged = runtime.block_on(async {
        let store = svc::store::open(&s.db.url).await.expect("open the store");
        let before = svc::model::Timestamp(
            svc::model::Timestamp::now().millis() - svc::store::IDEMPOTENCY_TTL_MS,
        );
        let first = store.purge_idempotency(before).await.unwrap();
        let second = store.purge_idempotency(before).await.unwrap();
        (first, second)
    });
    assert_eq!(purged, (1, 0));
    // The live keys are kept, the 29-day-old one included.
    for key in ["live", "days-old"] {
        assert_eq!(
            s.exec_sql("UPDATE idempotency SET key = key WHERE key = $1", &[key]),
            1,
            "{key}"
        );
    }
}

crate::both_backends!(
    a_replayed_create_returns_the_first_response_and_stores_nothing,
    a_refused_create_does_not_use_up_its_key,
    keys_belong_to_one_account_and_survive_a_restart,
    activation_and_folder_creates_replay_too,
    a_create_refused_by_the_store_releases_its_key,
    a_key_first_used_days_ago_still_replays,
    a_key_older_than_30_days_is_a_new_request,
    expired_keys_are_purged_and_live_ones_kept,
);
