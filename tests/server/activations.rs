//! Activations (docs/API.md activation rules 1–5), their listing and ending.

use std::sync::{Arc, Barrier};

use serde_json::{Value, json};

use crate::common::{Api, Server, contact, this_month};

fn start(api: &Api, body: Value) -> crate::common::Resp {
    api.post("/v1/activations", body)
}

fn an_activation_is_created_once_per_identity() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let body = json!({ "locationReference": "  us-1234 ", "callsign": "w1aw", "locationName": "Test Park",
                       "startTime": "2026-11-20T14:00:00Z" });
    let first = start(&api, body.clone());
    assert_eq!(first.status, 201, "{}", first.body);
    assert_eq!(first.body["created"], true);
    assert_eq!(first.body["name"], "W1AW@US-1234-20261120");
    assert_eq!(first.body["locationReference"], "US-1234");
    assert_eq!(first.body["locationName"], "Test Park");
    assert_eq!(first.body["type"], "activation");
    assert_eq!(first.body["startTime"], "2026-11-20T14:00:00Z");
    assert!(first.body["endTime"].is_null());
    assert!(first.body["autoFolderKey"].as_str().unwrap().len() > 4);
    let id = first.id();

    // Same program, callsign, reference and UTC day (later that day, other spelling): same folder.
    let again = start(
        &api,
        json!({ "reference": "US-1234", "callsign": "W1AW", "program": "pota", "startTime": "2026-11-20T23:59:00Z" }),
    );
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.body["created"], false);
    assert_eq!(again.id(), id);
    assert_eq!(again.body["autoFolderKey"], first.body["autoFolderKey"]);

    for other in [
        json!({ "locationReference": "US-1234", "callsign": "W1AW", "startTime": "2026-11-21T00:00:00Z" }),
        json!({ "locationReference": "US-1234", "callsign": "W1AW/P", "startTime": "2026-11-20T14:00:00Z" }),
        json!({ "locationReference": "US-1235", "callsign": "W1AW", "startTime": "2026-11-20T14:00:00Z" }),
    ] {
        let r = start(&api, other);
        assert_eq!(r.status, 201, "{}", r.body);
        assert_ne!(r.id(), id);
    }
    assert_eq!(api.folders("activation").len(), 4);
}

fn concurrent_identical_requests_get_one_folder() {
    let s = Server::start_with(&["--burst-limit", "1000"]);
    let api = s.account("W1AW", "basic");
    let n = 16;
    let barrier = Arc::new(Barrier::new(n));
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let api = api.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                let r = start(
                    &api,
                    json!({ "locationReference": "K-0001", "callsign": "W1AW" }),
                );
                (r.status, r.body["created"].as_bool(), r.id())
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let created = results.iter().filter(|(_, c, _)| *c == Some(true)).count();
    assert_eq!(created, 1, "{results:?}");
    assert!(
        results.iter().all(|(_, _, id)| id == &results[0].2),
        "{results:?}"
    );
    assert!(
        results
            .iter()
            .all(|(status, c, _)| (*status == 201) == (*c == Some(true)))
    );
    assert_eq!(api.folders("activation").len(), 1);
}

fn programs_are_checked() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    for (program, needle) in [
        (json!("dx"), "does not support activations"),
        (json!("repeaters"), "does not support activations"),
        (json!("sota"), "not a known program"),
        (json!(""), "empty"),
        (json!("   "), "empty"),
        (json!(7), "must be a string"),
        (json!(["pota"]), "must be a string"),
    ] {
        let r = start(
            &api,
            json!({ "locationReference": "US-1234", "callsign": "W1AW", "programId": program }),
        );
        let msg = r.expect_error(400, "validation_error");
        assert!(msg.contains(needle), "{program}: {msg}");
    }
    let r = start(
        &api,
        json!({ "locationReference": "US-1234", "callsign": "W1AW", "programId": "POTA" }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let r = start(
        &api,
        json!({ "locationReference": "US-1234", "callsign": "W1AW", "programId": "pota", "program": "dx" }),
    );
    r.expect_error(400, "validation_error");
    assert_eq!(api.folders("activation").len(), 1);
}

fn references_and_callsigns_are_checked() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    for reference in [
        "US1234",
        "USAA-1234",
        "-1234",
        "US-",
        "US-12a",
        "",
        "1-1234",
    ] {
        let r = start(
            &api,
            json!({ "locationReference": reference, "callsign": "W1AW" }),
        );
        let msg = r.expect_error(400, "validation_error");
        assert!(msg.contains("US-1234"), "{reference}: {msg}");
    }
    start(&api, json!({ "callsign": "W1AW" })).expect_error(400, "validation_error");
    start(&api, json!({ "locationReference": "US-1234" })).expect_error(400, "validation_error");
    start(
        &api,
        json!({ "locationReference": "US-1234", "callsign": "not a call" }),
    )
    .expect_error(400, "validation_error");
    start(
        &api,
        json!({ "locationReference": "US-1234", "reference": "US-9", "callsign": "W1AW" }),
    )
    .expect_error(400, "validation_error");
    assert_eq!(api.folders("activation").len(), 0);
}

fn list_all(api: &Api, query: &str) -> (Vec<String>, usize) {
    let mut ids = Vec::new();
    let mut empty_pages = 0;
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/v1/activations?{query}&cursor={c}"),
            None => format!("/v1/activations?{query}"),
        };
        let r = api.get(&path);
        assert_eq!(r.status, 200, "{}", r.body);
        let items = r.body["items"].as_array().unwrap();
        if items.is_empty() {
            empty_pages += 1;
        }
        ids.extend(items.iter().map(|f| f["id"].as_str().unwrap().to_owned()));
        match r.body["cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => return (ids, empty_pages),
        }
    }
}

fn the_in_progress_list_scans_a_bounded_number_of_folders() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let mut ids = Vec::new();
    for (i, day) in ["2026-11-05", "2026-11-04", "2026-11-03", "2026-11-02"]
        .iter()
        .enumerate()
    {
        let r = start(
            &api,
            json!({ "locationReference": format!("US-{}", i + 1), "callsign": "W1AW", "startTime": format!("{day}T10:00:00Z") }),
        );
        ids.push(r.id());
    }
    // The two in the middle are ended, so a scan of one folder per page finds nothing twice.
    for id in &ids[1..3] {
        let r = api.post(&format!("/v1/activations/{id}/end"), json!({}));
        assert_eq!(r.status, 200, "{}", r.body);
        assert!(r.body["endTime"].is_string());
    }
    let (in_progress, empty_pages) = list_all(&api, "inProgress=true&limit=1");
    assert_eq!(in_progress, vec![ids[0].clone(), ids[3].clone()]);
    assert_eq!(
        empty_pages, 2,
        "pages may be empty while a cursor is still returned"
    );
    let (all, _) = list_all(&api, "limit=3");
    assert_eq!(all, ids, "newest start first, every activation once");
    let (all_false, _) = list_all(&api, "inProgress=false");
    assert_eq!(all_false, ids);
    let first = api.get("/v1/activations?inProgress=true");
    let items = first.body["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert!(items.iter().all(|f| f["endTime"].is_null()
        && f["startTime"].is_string()
        && f["locationReference"].is_string()));
}

fn ending_an_activation() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let r = start(
        &api,
        json!({ "locationReference": "US-1", "callsign": "W1AW", "startTime": "2026-11-20T10:00:00Z" }),
    );
    let id = r.id();
    let early = api.post(
        &format!("/v1/activations/{id}/end"),
        json!({ "endTime": "2026-11-20T09:00:00Z" }),
    );
    assert!(
        early
            .expect_error(400, "validation_error")
            .contains("before")
    );
    let ended = api.post(
        &format!("/v1/activations/{id}/end"),
        json!({ "endTime": "2026-11-20T12:30:00Z" }),
    );
    assert_eq!(ended.status, 200, "{}", ended.body);
    assert_eq!(ended.body["endTime"], "2026-11-20T12:30:00Z");
    assert_eq!(ended.body["id"], id.as_str());
    let twice = api.post(&format!("/v1/activations/{id}/end"), json!({}));
    assert!(
        twice
            .expect_error(400, "validation_error")
            .contains("ended already")
    );
    let folder = api.folder_named("POTA");
    api.post(&format!("/v1/activations/{folder}/end"), json!({}))
        .expect_error(400, "validation_error");
    api.post("/v1/activations/fld_aaaaaaaaaaaaaaaa/end", json!({}))
        .expect_error(404, "not_found");
    // An ended activation is still the folder its identity names.
    let again = start(
        &api,
        json!({ "locationReference": "US-1", "callsign": "W1AW", "startTime": "2026-11-20T15:00:00Z" }),
    );
    assert_eq!(again.status, 200);
    assert_eq!(again.id(), id);
    assert_eq!(again.body["endTime"], "2026-11-20T12:30:00Z");
}

/// A club's call (K1CLB) activated by the member W1XYZ: each contact names W1XYZ as its
/// operator, so that POTA and LoTW credit the member; the member's own activation names none,
/// and an operator the contact names is kept. Single creates, batches and imports alike.
fn a_club_call_credits_the_member_as_operator() {
    let s = Server::start();
    let api = s.account("W1XYZ", "basic");
    let club = api.activation("US-1234", "K1CLB");
    let own = api.activation("US-1234", "W1XYZ");
    // A create answers its id; the contact as stored says who operated.
    let operator = |body: Value| {
        let folder = body["folderId"].as_str().unwrap().to_owned();
        let r = api.post("/v1/contacts", body);
        assert_eq!(r.status, 201, "{}", r.body);
        let id = r.id();
        let stored = api
            .all_contacts(&folder)
            .into_iter()
            .find(|c| c["id"] == id);
        stored.expect("the contact stored")["operator"].clone()
    };
    assert_eq!(operator(contact(&club, "K1ABC")), "W1XYZ");
    assert_eq!(operator(contact(&own, "K1ABC")), Value::Null);
    let mut guest = contact(&club, "K2ABC");
    guest["operator"] = json!("k2op");
    assert_eq!(operator(guest), "K2OP");
    // A station callsign of another call in the monthly log, and an import's batch: the same.
    let (month, _) = this_month();
    let monthly = api.monthly(&month, None);
    let mut club_station = contact(&monthly, "K3ABC");
    club_station["stationCallsign"] = json!("K1CLB");
    assert_eq!(operator(club_station), "W1XYZ");
    assert_eq!(operator(contact(&monthly, "K3ABC")), Value::Null);
    let batch = api.post(
        "/v1/contacts/batch",
        json!({ "contacts": [
            { "idempotencyKey": "club-1", "folderId": club, "callsign": "K6ABC", "frequency": 14.074, "mode": "FT8", "timeOn": this_month().1 },
            { "idempotencyKey": "club-2", "folderId": club, "callsign": "K4ABC", "frequency": 14.074, "mode": "FT8", "timeOn": this_month().1, "adif": { "OPERATOR": "K2OP (guest)" } },
            { "idempotencyKey": "club-3", "folderId": own, "callsign": "K7ABC", "frequency": 14.074, "mode": "FT8", "timeOn": this_month().1 },
        ], "import": true }),
    );
    assert_eq!(batch.status, 200, "{}", batch.body);
    let by_call = |folder: &str, call: &str| {
        api.all_contacts(folder)
            .into_iter()
            .find(|c| c["callsign"] == call)
            .unwrap_or_else(|| panic!("no {call}"))
    };
    assert_eq!(by_call(&club, "K6ABC")["operator"], "W1XYZ");
    let kept = by_call(&club, "K4ABC");
    assert_eq!(kept["operator"], Value::Null, "{kept}");
    assert_eq!(kept["adif"]["OPERATOR"], "K2OP (guest)");
    assert_eq!(by_call(&own, "K7ABC")["operator"], Value::Null);
    // The club activation's ADIF credits the member.
    let adif = api.send("GET", &format!("/v1/adif?folderId={club}"), None, &[]);
    let Value::String(text) = adif.body else {
        panic!("not ADIF: {}", adif.body)
    };
    assert!(text.contains("<STATION_CALLSIGN:5>K1CLB"), "{text}");
    assert_eq!(text.matches("<OPERATOR:5>W1XYZ").count(), 2, "{text}");
}

crate::both_backends!(
    a_club_call_credits_the_member_as_operator,
    an_activation_is_created_once_per_identity,
    concurrent_identical_requests_get_one_folder,
    programs_are_checked,
    references_and_callsigns_are_checked,
    the_in_progress_list_scans_a_bounded_number_of_folders,
    ending_an_activation,
);
