//! `POST /v1/contacts/batch`: one result per item, in order, each what a single create with the
//! item's `idempotencyKey` would answer; whole-request errors store nothing.

use serde_json::{Value, json};

use crate::common::{Api, Resp, Server, contact, this_month};

/// A contact body with its item key.
fn item(mut body: Value, key: &str) -> Value {
    body["idempotencyKey"] = json!(key);
    body
}

fn send(api: &Api, items: &[Value]) -> Resp {
    api.post("/v1/contacts/batch", json!({ "contacts": items }))
}

/// Sends a batch that must be answered 200; returns its results.
fn batch(api: &Api, items: &[Value]) -> Vec<Value> {
    let r = send(api, items);
    assert_eq!(r.status, 200, "{}", r.body);
    let results = r.body["results"].as_array().expect("results").clone();
    assert_eq!(results.len(), items.len(), "{}", r.body);
    results
}

fn id(result: &Value) -> String {
    result["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no id in {result}"))
        .to_owned()
}

/// Asserts an item's refusal; returns its message.
fn refused(result: &Value, status: u16, code: &str) -> String {
    assert_eq!(result["status"], status, "{result}");
    assert_eq!(result["error"], code, "{result}");
    assert!(result.get("id").is_none(), "{result}");
    assert!(
        result["requestId"].as_str().unwrap().starts_with("req_"),
        "{result}"
    );
    result["message"].as_str().unwrap().to_owned()
}

/// Waits for the next minute when the current one is nearly over, so that the requests of a
/// test that follow stay in one burst window.
fn early_in_a_minute() {
    let into_minute = (svc::model::Timestamp::now().millis() % 60_000) as u64;
    if into_minute > 45_000 {
        std::thread::sleep(std::time::Duration::from_millis(60_500 - into_minute));
    }
}

fn a_mixed_batch_answers_each_item_in_order() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let other = s.account("K9XYZ", "basic");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let others_folder = other.monthly(&month, None);
    let category = api.folder_named("POTA");

    let mut bad_frequency = contact(&folder, "K2ABC");
    bad_frequency["frequency"] = json!(27.185);
    let mut unknown_field = contact(&folder, "K3ABC");
    unknown_field["rst"] = json!("599");
    let mut lower_case = contact(&folder, " k4abc ");
    lower_case["notes"] = json!("second valid one");
    let items = [
        item(contact(&folder, "K1ABC"), "mixed-1"),
        item(bad_frequency, "mixed-2"),
        item(contact(&category, "K1ABC"), "mixed-3"),
        item(contact(&others_folder, "K1ABC"), "mixed-4"),
        contact(&folder, "K1ABC"),
        item(unknown_field, "mixed-6"),
        item(contact(&folder, "K1ABC"), ""),
        item(lower_case, "mixed-8"),
    ];
    let r = send(&api, &items);
    assert_eq!(r.status, 200, "{}", r.body);
    let results = r.body["results"].as_array().unwrap();
    assert_eq!(results.len(), 8);

    assert_eq!(results[0]["status"], 201, "{}", results[0]);
    assert!(id(&results[0]).starts_with("qso_"));
    assert!(results[0].get("replayed").is_none());
    assert!(results[0].get("error").is_none());
    let msg = refused(&results[1], 400, "validation_error");
    assert!(msg.contains("amateur band"), "{msg}");
    assert_eq!(results[1]["details"]["field"], "frequency");
    let msg = refused(&results[2], 400, "validation_error");
    assert!(msg.contains("holds no contacts"), "{msg}");
    assert_eq!(results[2]["details"]["field"], "folderId");
    // Another account's folder is answered as a missing one.
    let msg = refused(&results[3], 404, "not_found");
    assert!(msg.contains(&others_folder), "{msg}");
    let msg = refused(&results[4], 400, "validation_error");
    assert!(msg.contains("idempotencyKey is required"), "{msg}");
    assert_eq!(results[4]["details"]["field"], "idempotencyKey");
    let msg = refused(&results[5], 400, "validation_error");
    assert!(msg.contains("unknown field(s): rst"), "{msg}");
    assert_eq!(results[5]["details"]["field"], "rst");
    refused(&results[6], 400, "validation_error");
    assert_eq!(results[6]["details"]["field"], "idempotencyKey");
    assert_eq!(results[7]["status"], 201, "{}", results[7]);
    assert_ne!(id(&results[7]), id(&results[0]));

    // Every refusal carries the batch's request id.
    let request_id = r.header("x-request-id").unwrap();
    for n in [1, 2, 3, 4, 5, 6] {
        assert_eq!(results[n]["requestId"], request_id, "{}", results[n]);
        assert!(results[n].get("retryAfter").is_none());
    }

    // The two valid items are stored, as single creates would store them.
    assert_eq!(api.qso_count(), 2);
    assert_eq!(other.qso_count(), 0);
    let stored = api.contacts(&folder);
    assert_eq!(stored.len(), 2);
    let k4 = stored.iter().find(|c| c["id"] == id(&results[7])).unwrap();
    assert_eq!(k4["callsign"], "K4ABC");
    assert_eq!(k4["notes"], "second valid one");
    assert_eq!(api.folders("monthly")[0]["contactCount"], 2);
}

fn a_batch_sent_again_replays_every_item() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let hunting = api.monthly(&month, Some("pota"));
    let hunted = |call: &str| {
        let mut body = contact(&hunting, call);
        body["sig"] = json!("POTA");
        body["sigInfo"] = json!("US-1234");
        body
    };
    let items: Vec<Value> = (0..6)
        .map(|n| item(hunted(&format!("K{n}ABC")), &format!("again-{n}")))
        .chain([item(hunted("K0ABC"), "again-dupe")])
        .collect();
    let first = batch(&api, &items);
    for result in &first {
        assert_eq!(result["status"], 201, "{result}");
    }
    assert_eq!(first[6]["duplicateOf"], id(&first[0]).as_str());
    assert_eq!(api.qso_count(), 7);

    let again = batch(&api, &items);
    for (a, b) in first.iter().zip(&again) {
        assert_eq!(b["status"], 200, "{b}");
        assert_eq!(b["replayed"], true, "{b}");
        assert_eq!(b["id"], a["id"]);
        assert_eq!(b["duplicateOf"], a["duplicateOf"]);
    }
    assert_eq!(api.qso_count(), 7);
    assert_eq!(api.contacts(&hunting).len(), 7);
    assert_eq!(api.folders("monthly")[0]["contactCount"], 7);
}

fn duplicates_are_flagged_against_earlier_items_and_contacts() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let hunting = api.monthly(&month, Some("pota"));
    let hunted = |call: &str, park: &str| {
        let mut body = contact(&hunting, call);
        body["sig"] = json!("POTA");
        body["sigInfo"] = json!(park);
        body
    };
    let earlier = api.post("/v1/contacts", hunted("K1ABC", "US-1234")).id();
    let results = batch(
        &api,
        &[
            item(hunted("k1abc", "us-1234"), "d-1"),
            item(hunted("K2ABC", "US-1234"), "d-2"),
            item(hunted("K2ABC", "US-1234"), "d-3"),
            item(hunted("K2ABC", "US-5678"), "d-4"),
            item(contact(&hunting, "K2ABC"), "d-5"),
        ],
    );
    assert_eq!(results[0]["duplicateOf"], earlier.as_str());
    assert!(results[1].get("duplicateOf").is_none(), "{}", results[1]);
    assert_eq!(results[2]["duplicateOf"], id(&results[1]).as_str());
    assert!(results[3].get("duplicateOf").is_none(), "{}", results[3]);
    assert!(results[4].get("duplicateOf").is_none(), "{}", results[4]);
    for result in &results {
        assert_eq!(result["status"], 201, "{result}");
    }
    // A single create after the batch sees its items.
    let later = api.post("/v1/contacts", hunted("K2ABC", "US-1234"));
    assert_eq!(later.body["duplicateOf"], id(&results[1]).as_str());
}

fn keys_are_shared_with_single_creates() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let body = contact(&folder, "K1ABC");

    // First used by a single create, then sent in a batch.
    let single = api.send(
        "POST",
        "/v1/contacts",
        Some(&body),
        &[("Idempotency-Key", "shared-1")],
    );
    assert_eq!(single.status, 201, "{}", single.body);
    // First used in a batch, then by a single create.
    let results = batch(
        &api,
        &[
            item(body.clone(), "shared-1"),
            item(body.clone(), "shared-2"),
        ],
    );
    assert_eq!(results[0]["status"], 200, "{}", results[0]);
    assert_eq!(results[0]["replayed"], true);
    assert_eq!(id(&results[0]), single.id());
    assert_eq!(results[1]["status"], 201, "{}", results[1]);
    let later = api.send(
        "POST",
        "/v1/contacts",
        Some(&body),
        &[("Idempotency-Key", "shared-2")],
    );
    assert_eq!(later.status, 201, "{}", later.body);
    assert_eq!(later.body["replayed"], true);
    assert_eq!(later.id(), id(&results[1]));
    assert_eq!(api.qso_count(), 2);

    // A key used for another contact is refused, in a batch and alone.
    let other = contact(&folder, "K2ABC");
    let results = batch(&api, &[item(other.clone(), "shared-2")]);
    let msg = refused(&results[0], 400, "validation_error");
    assert!(msg.contains("within the last 30 days"), "{msg}");
    assert_eq!(results[0]["details"]["field"], "idempotencyKey");
    api.send(
        "POST",
        "/v1/contacts",
        Some(&other),
        &[("Idempotency-Key", "shared-1")],
    )
    .expect_error(400, "validation_error");
    assert_eq!(api.qso_count(), 2);

    // A key another account used is this account's own.
    let b = s.account("K9XYZ", "basic");
    let b_folder = b.monthly(&month, None);
    let results = batch(&b, &[item(contact(&b_folder, "K1ABC"), "shared-1")]);
    assert_eq!(results[0]["status"], 201, "{}", results[0]);
    assert_ne!(id(&results[0]), single.id());
}

fn the_same_key_twice_in_a_batch_replays_the_first_item() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let body = contact(&folder, "K1ABC");
    let mut invalid = contact(&folder, "K5ABC");
    invalid["mode"] = json!("");
    let results = batch(
        &api,
        &[
            item(body.clone(), "twice"),
            item(contact(&folder, "K2ABC"), "other"),
            item(body.clone(), "twice"),
            item(contact(&folder, "K3ABC"), "twice"),
            // A refused item stores nothing, so its key is free for the next item.
            item(invalid, "fixed"),
            item(contact(&folder, "K5ABC"), "fixed"),
        ],
    );
    assert_eq!(results[0]["status"], 201, "{}", results[0]);
    assert_eq!(results[1]["status"], 201, "{}", results[1]);
    assert_eq!(results[2]["status"], 200, "{}", results[2]);
    assert_eq!(results[2]["replayed"], true);
    assert_eq!(id(&results[2]), id(&results[0]));
    let msg = refused(&results[3], 400, "validation_error");
    assert!(msg.contains("\"twice\""), "{msg}");
    refused(&results[4], 400, "validation_error");
    assert_eq!(results[5]["status"], 201, "{}", results[5]);
    assert!(results[5].get("replayed").is_none());
    assert_eq!(api.qso_count(), 3);
}

fn a_batch_that_crosses_the_free_plan_cap_stores_the_items_before_it() {
    let s = Server::start_with(&["--free-plan-cap", "5"]);
    let api = s.account("W1AW", "elevated");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    for n in 0..2 {
        let r = api.post("/v1/contacts", contact(&folder, &format!("K{n}AAA")));
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let items: Vec<Value> = (0..6)
        .map(|n| item(contact(&folder, &format!("K{n}ABC")), &format!("cap-{n}")))
        .collect();
    let results = batch(&api, &items);
    for result in &results[..3] {
        assert_eq!(result["status"], 201, "{result}");
    }
    for result in &results[3..] {
        let msg = refused(result, 402, "qso_cap_reached");
        assert!(msg.contains('5'), "{msg}");
        assert_eq!(result["details"]["cap"], 5);
        assert!(result.get("retryAfter").is_none());
    }
    assert_eq!(api.qso_count(), 5);
    assert_eq!(api.contacts(&folder).len(), 5);

    // The refused items left their keys free: once there is room, the same batch stores them.
    let r = api.delete(&format!("/v1/contacts/{}", id(&results[0])));
    assert_eq!(r.status, 200, "{}", r.body);
    let again = batch(&api, &items);
    for n in 0..3 {
        assert_eq!(again[n]["status"], 200, "{}", again[n]);
        assert_eq!(again[n]["id"], results[n]["id"]);
    }
    assert_eq!(again[3]["status"], 201, "{}", again[3]);
    assert!(again[3].get("replayed").is_none());
    refused(&again[4], 402, "qso_cap_reached");
    refused(&again[5], 402, "qso_cap_reached");
    assert_eq!(api.qso_count(), 5);
}

fn concurrent_batches_near_the_cap_end_exactly_at_it() {
    let s = Server::start_with(&["--burst-limit", "100000", "--free-plan-cap", "10"]);
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let senders: Vec<_> = (0..4)
        .map(|t| {
            let (api, folder) = (api.clone(), folder.clone());
            std::thread::spawn(move || {
                let items: Vec<Value> = (0..5)
                    .map(|n| item(contact(&folder, "K1ABC"), &format!("race-{t}-{n}")))
                    .collect();
                let single = api.send(
                    "POST",
                    "/v1/contacts",
                    Some(&contact(&folder, "K2ABC")),
                    &[("Idempotency-Key", &format!("race-single-{t}"))],
                );
                let mut statuses = vec![single.status];
                statuses.extend(
                    batch(&api, &items)
                        .iter()
                        .map(|r| r["status"].as_u64().unwrap() as u16),
                );
                statuses
            })
        })
        .collect();
    let statuses: Vec<u16> = senders
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        10,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 402).count(),
        14,
        "{statuses:?}"
    );
    assert_eq!(api.qso_count(), 10);
    assert_eq!(api.contacts(&folder).len(), 10);
    assert_eq!(api.folders("monthly")[0]["contactCount"], 10);
}

fn the_daily_and_lifetime_budgets_hold_for_each_item() {
    let s = Server::start_with(&["--daily-contact-budget", "3"]);
    let api = s.account("W1AW", "basic");
    let folder = api.monthly(&this_month().0, None);
    assert_eq!(
        api.post("/v1/contacts", contact(&folder, "K1AAA")).status,
        201
    );
    let items: Vec<Value> = (0..4)
        .map(|n| item(contact(&folder, &format!("K{n}ABC")), &format!("day-{n}")))
        .collect();
    let results = batch(&api, &items);
    assert_eq!(results[0]["status"], 201, "{}", results[0]);
    assert_eq!(results[1]["status"], 201, "{}", results[1]);
    for result in &results[2..] {
        refused(result, 429, "rate_limited");
        assert_eq!(result["details"]["reason"], "daily_logbook_budget");
        let retry = result["retryAfter"].as_u64().expect("retryAfter");
        assert!((1..=86_400).contains(&retry), "{retry}");
    }
    assert_eq!(api.qso_count(), 3);

    let s = Server::start_with(&["--lifetime-contact-budget", "2"]);
    let api = s.account("W1AW", "elevated");
    let folder = api.monthly(&this_month().0, None);
    let first = api.post("/v1/contacts", contact(&folder, "K1AAA")).id();
    assert_eq!(api.delete(&format!("/v1/contacts/{first}")).status, 200);
    let items: Vec<Value> = (0..3)
        .map(|n| item(contact(&folder, &format!("K{n}ABC")), &format!("life-{n}")))
        .collect();
    let results = batch(&api, &items);
    assert_eq!(results[0]["status"], 201, "{}", results[0]);
    for result in &results[1..] {
        let msg = refused(result, 429, "rate_limited");
        assert!(msg.contains("support"), "{msg}");
        assert_eq!(result["details"]["reason"], "lifetime_logbook_budget");
        assert!(result.get("retryAfter").is_none(), "{result}");
    }
    assert_eq!(api.qso_count(), 1);
}

fn a_batch_counts_one_request_per_item_in_the_burst_window() {
    let s = Server::start_with(&["--burst-limit", "5"]);
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    early_in_a_minute();
    // A key of its own, so the window holds the batch alone.
    let sender = s.new_key("W1AW", "basic");
    let mut items: Vec<Value> = (0..7)
        .map(|n| item(contact(&folder, &format!("K{n}ABC")), &format!("burst-{n}")))
        .collect();
    // Past the limit an item is refused for the burst before its body is read.
    items.push(json!({ "not": "a contact" }));
    let results = batch(&sender, &items);
    for result in &results[..5] {
        assert_eq!(result["status"], 201, "{result}");
    }
    for result in &results[5..] {
        refused(result, 429, "rate_limited");
        assert_eq!(result["details"]["reason"], "burst");
        let retry = result["retryAfter"].as_u64().expect("retryAfter");
        assert!((1..=60).contains(&retry), "{retry}");
    }
    assert_eq!(api.qso_count(), 5);

    // The window is full: the next batch is refused whole, like any request.
    let r = send(&sender, &items[5..7]);
    r.expect_error(429, "rate_limited");
    assert_eq!(r.body["details"]["reason"], "burst");
    assert!(r.header("retry-after").is_some());
    assert_eq!(api.qso_count(), 5);
}

/// An import (`"import": true`) is one request in the burst window and does not use the daily
/// budget; the lifetime budget holds as for any create.
fn an_import_counts_once_for_the_burst_and_not_toward_the_daily_budget() {
    let s = Server::start_with(&[
        "--burst-limit",
        "7",
        "--daily-contact-budget",
        "3",
        "--lifetime-contact-budget",
        "12",
    ]);
    let api = s.account("W1AW", "basic");
    let folder = api.monthly(&this_month().0, None);
    for call in ["K1AAA", "K2AAA"] {
        assert_eq!(api.post("/v1/contacts", contact(&folder, call)).status, 201);
    }
    early_in_a_minute();
    let importer = s.new_key("W1AW", "basic");
    let import = |items: &[Value]| {
        let r = importer.post(
            "/v1/contacts/batch",
            json!({ "contacts": items, "import": true }),
        );
        assert_eq!(r.status, 200, "{}", r.body);
        r.body["results"].as_array().unwrap().clone()
    };
    // Eight items: past the burst limit of 7 and the daily budget of 3, all stored.
    let items: Vec<Value> = (0..8)
        .map(|n| item(contact(&folder, &format!("K{n}IMP")), &format!("imp-{n}")))
        .collect();
    for result in import(&items) {
        assert_eq!(result["status"], 201, "{result}");
    }
    assert_eq!(api.qso_count(), 10);
    // The day's budget is as the two logged contacts left it: one more may be logged.
    let logger = s.new_key("W1AW", "basic");
    assert_eq!(
        logger
            .post("/v1/contacts", contact(&folder, "K3AAA"))
            .status,
        201
    );
    let r = logger.post("/v1/contacts", contact(&folder, "K4AAA"));
    r.expect_error(429, "rate_limited");
    assert_eq!(r.body["details"]["reason"], "daily_logbook_budget");
    // The lifetime budget (12) admits one more import and refuses the next.
    let items: Vec<Value> = (8..10)
        .map(|n| item(contact(&folder, &format!("K{n}IMP")), &format!("imp-{n}")))
        .collect();
    let results = import(&items);
    assert_eq!(results[0]["status"], 201, "{}", results[0]);
    refused(&results[1], 429, "rate_limited");
    assert_eq!(results[1]["details"]["reason"], "lifetime_logbook_budget");
    assert_eq!(api.qso_count(), 12);
    // Sent again, an import replays.
    let again = import(&items[..1]);
    assert_eq!(again[0]["replayed"], true, "{}", again[0]);

    let r = importer.post(
        "/v1/contacts/batch",
        json!({ "contacts": [item(contact(&folder, "K9IMP"), "imp-9")], "import": "yes" }),
    );
    let msg = r.expect_error(400, "validation_error");
    assert!(msg.contains("import must be true or false"), "{msg}");
    assert_eq!(r.body["details"]["field"], "import");
    assert_eq!(api.qso_count(), 12);
}

/// Import batches are counted by the import limit, apart from the burst limit: a key imports
/// past its burst limit and still has its requests for logging; past the import limit the
/// batch is refused whole and stores nothing.
fn import_batches_have_a_limit_of_their_own() {
    let s = Server::start_with(&["--burst-limit", "2", "--import-limit", "3"]);
    let api = s.account("W1AW", "basic");
    let folder = api.monthly(&this_month().0, None);
    let importer = s.new_key("W1AW", "basic");
    early_in_a_minute();
    let import = |n: usize| {
        importer.post(
            "/v1/contacts/batch",
            json!({ "contacts": [item(contact(&folder, &format!("K{n}LIM")), &format!("lim-{n}"))], "import": true }),
        )
    };
    for n in 0..3 {
        let r = import(n);
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.body["results"][0]["status"], 201, "{}", r.body);
    }
    let r = import(3);
    r.expect_error(429, "rate_limited");
    assert_eq!(r.body["details"]["reason"], "burst");
    assert!(r.header("retry-after").is_some());
    assert_eq!(api.qso_count(), 3, "the refused batch stored nothing");
    // The burst window of the importing key is as free as before the import.
    for _ in 0..2 {
        assert_eq!(importer.get("/v1/whoami").status, 200);
    }
    importer.get("/v1/whoami").expect_error(429, "rate_limited");
}

fn whole_request_errors_store_nothing() {
    let s = Server::start_with(&["--burst-limit", "100000", "--free-plan-cap", "1000"]);
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let good = item(contact(&folder, "K1ABC"), "whole-1");
    let path = "/v1/contacts/batch";

    s.api(None)
        .post(path, json!({ "contacts": [good.clone()] }))
        .expect_error(401, "unauthorized");
    let json_type = [("Content-Type", "application/json")];
    let msg = api
        .raw("POST", path, b"{\"contacts\": [".to_vec(), &json_type)
        .expect_error(400, "validation_error");
    assert!(msg.contains("not valid JSON"), "{msg}");
    api.raw(
        "POST",
        path,
        b"contacts".to_vec(),
        &[("Content-Type", "text/plain")],
    )
    .expect_error(400, "validation_error");
    api.raw("POST", path, b"[]".to_vec(), &json_type)
        .expect_error(400, "validation_error");
    for (body, says) in [
        (json!({}), "contacts is required"),
        (json!({ "contacts": good.clone() }), "must be an array"),
        (json!({ "contacts": [] }), "empty"),
        (json!({ "contacts": [good.clone(), 5] }), "contacts[1]"),
        (
            json!({ "contacts": [good.clone()], "dryRun": true }),
            "dryRun",
        ),
    ] {
        let r = api.post(path, body.clone());
        let msg = r.expect_error(400, "validation_error");
        assert!(msg.contains(says), "{body}: {msg}");
        assert!(r.body["details"]["field"].is_string(), "{}", r.body);
    }
    let r = api.send(
        "POST",
        path,
        Some(&json!({ "contacts": [good.clone()] })),
        &[("Idempotency-Key", "whole")],
    );
    let msg = r.expect_error(400, "validation_error");
    assert!(msg.contains("idempotencyKey"), "{msg}");
    assert_eq!(r.body["details"]["field"], "Idempotency-Key");
    api.post(
        &format!("{path}?dryRun=true"),
        json!({ "contacts": [good.clone()] }),
    )
    .expect_error(400, "validation_error");

    let many: Vec<Value> = (0..501)
        .map(|n| item(contact(&folder, "K1ABC"), &format!("many-{n}")))
        .collect();
    let msg = send(&api, &many).expect_error(400, "validation_error");
    assert!(msg.contains("at most 500"), "{msg}");
    assert_eq!(api.qso_count(), 0);

    // 500 is the most, and is taken.
    let results = batch(&api, &many[..500]);
    assert!(results.iter().all(|r| r["status"] == 201));
    assert_eq!(api.qso_count(), 500);
    assert_eq!(api.all_contacts(&folder).len(), 500);
}

crate::both_backends!(
    a_mixed_batch_answers_each_item_in_order,
    a_batch_sent_again_replays_every_item,
    duplicates_are_flagged_against_earlier_items_and_contacts,
    keys_are_shared_with_single_creates,
    the_same_key_twice_in_a_batch_replays_the_first_item,
    a_batch_that_crosses_the_free_plan_cap_stores_the_items_before_it,
    concurrent_batches_near_the_cap_end_exactly_at_it,
    the_daily_and_lifetime_budgets_hold_for_each_item,
    a_batch_counts_one_request_per_item_in_the_burst_window,
    an_import_counts_once_for_the_burst_and_not_toward_the_daily_budget,
    import_batches_have_a_limit_of_their_own,
    whole_request_errors_store_nothing,
);
