//! Activations (docs/API.md activation rules 1–6), their listing, parks added and ending.

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

/// A park added to an activation (a two-fer found out on the air): its reference, name and
/// identity, and every contact's mySigInfo, change at once; contacts logged after carry the
/// new list; what it has already changes nothing; a wrong request changes nothing.
fn a_park_added_to_an_activation_reaches_every_contact() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    let basic = s.new_key("W1AW", "basic");
    let r = start(
        &api,
        json!({ "locationReference": "US-1234", "callsign": "W1AW", "startTime": "2026-11-20T14:00:00Z" }),
    );
    let id = r.id();
    let at = |call: &str, time: &str| {
        json!({ "folderId": id, "callsign": call, "frequency": 14.062, "mode": "CW",
                "timeOn": format!("2026-11-20T{time}Z") })
    };
    for (call, time) in [("K1ABC", "14:05:00"), ("K2ABC", "14:06:00")] {
        assert_eq!(api.post("/v1/contacts", at(call, time)).status, 201);
    }
    let parks = |id: &str| -> Vec<Value> {
        api.all_contacts(id)
            .iter()
            .map(|c| c["mySigInfo"].clone())
            .collect()
    };
    let path = format!("/v1/activations/{id}/parks");

    // A basic key may not: it rewrites contacts, as an edit does.
    basic
        .post(&path, json!({ "locationReference": "US-5678" }))
        .expect_error(403, "tier_insufficient");
    for (body, says) in [
        (json!({}), "locationReference is required"),
        (
            json!({ "locationReference": "US5678" }),
            "not a park reference",
        ),
        (
            json!({ "locationReference": "US-5678", "parks": 1 }),
            "parks",
        ),
    ] {
        let r = api.post(&path, body.clone());
        assert!(
            r.expect_error(400, "validation_error").contains(says),
            "{body}: {}",
            r.body
        );
    }
    let monthly = api.monthly("2026-11", None);
    let r = api.post(
        &format!("/v1/activations/{monthly}/parks"),
        json!({ "locationReference": "US-5678" }),
    );
    assert!(
        r.expect_error(400, "validation_error")
            .contains("not an activation")
    );
    api.post(
        "/v1/activations/fld_aaaaaaaaaaaaaaaa/parks",
        json!({ "locationReference": "US-5678" }),
    )
    .expect_error(404, "not_found");
    assert_eq!(parks(&id), vec![json!("US-1234"); 2]);

    let grown = api.send(
        "POST",
        &path,
        Some(&json!({ "reference": " us-5678 " })),
        &[("Idempotency-Key", "add-5678")],
    );
    assert_eq!(grown.status, 200, "{}", grown.body);
    assert_eq!(grown.body["id"], id.as_str());
    assert_eq!(grown.body["locationReference"], "US-1234,US-5678");
    assert_eq!(grown.body["name"], "W1AW@US-1234,US-5678-20261120");
    assert_eq!(
        grown.body["autoFolderKey"],
        "v1:activation:pota:W1AW:US-1234,US-5678:20261120"
    );
    assert_eq!(grown.body["contactCount"], 2);
    assert_eq!(parks(&id), vec![json!("US-1234,US-5678"); 2]);
    let replay = api.send(
        "POST",
        &path,
        Some(&json!({ "reference": " us-5678 " })),
        &[("Idempotency-Key", "add-5678")],
    );
    assert_eq!(replay.body["replayed"], true, "{}", replay.body);
    // What it has already: the activation as it is.
    let again = api.post(&path, json!({ "locationReference": "US-5678,US-1234" }));
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.body["locationReference"], "US-1234,US-5678");
    // The two-fer's identity finds it; a contact logged now carries both parks, and one
    // that names the single park it had is refused.
    let found = start(
        &api,
        json!({ "locationReference": "US-1234,US-5678", "callsign": "W1AW", "startTime": "2026-11-20T18:00:00Z" }),
    );
    assert_eq!(found.status, 200, "{}", found.body);
    assert_eq!(found.id(), id);
    assert_eq!(
        api.post("/v1/contacts", at("K3ABC", "14:07:00")).status,
        201
    );
    let mut stale = at("K4ABC", "14:08:00");
    stale["mySig"] = json!("POTA");
    stale["mySigInfo"] = json!("US-1234");
    let r = api.post("/v1/contacts", stale);
    assert!(
        r.expect_error(400, "validation_error")
            .contains("US-1234,US-5678")
    );
    assert_eq!(parks(&id), vec![json!("US-1234,US-5678"); 3]);

    // A contact checked against the activation as it was and stored after the park came
    // (another process's request, under way as the park was added) takes the parks it has.
    s.exec_sql(
        "INSERT INTO contacts (id, account_id, folder_id, callsign, frequency, band, mode, \
         time_on, my_sig, my_sig_info, activation_id, station_callsign, created_at) \
         SELECT 'qso_zzzzzzzzzzzzzzzz', account_id, folder_id, 'K9ZZZ', frequency, band, mode, \
         time_on + 60000, my_sig, 'US-1234', activation_id, station_callsign, created_at \
         FROM contacts WHERE callsign = 'K1ABC'",
        &[],
    );
    let late = api
        .all_contacts(&id)
        .into_iter()
        .find(|c| c["callsign"] == "K9ZZZ")
        .expect("the late contact");
    assert_eq!(late["mySigInfo"], "US-1234,US-5678", "{late}");

    // Another activation that day holds the identity the parks would give: refused, and
    // nothing changes.
    let other = start(
        &api,
        json!({ "locationReference": "US-9012", "callsign": "W1AW", "startTime": "2026-11-20T19:00:00Z" }),
    )
    .id();
    let three = start(
        &api,
        json!({ "locationReference": "US-9012,US-3456", "callsign": "W1AW", "startTime": "2026-11-20T19:00:00Z" }),
    );
    assert_eq!(three.status, 201, "{}", three.body);
    let r = api.post(
        &format!("/v1/activations/{other}/parks"),
        json!({ "locationReference": "US-3456" }),
    );
    assert!(
        r.expect_error(400, "validation_error")
            .contains("W1AW@US-9012,US-3456-20261120 exists already"),
        "{}",
        r.body
    );
    assert_eq!(r.body["details"]["field"], "locationReference");
    let kept = api.get("/v1/activations?limit=200");
    let kept = kept.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == other.as_str())
        .cloned()
        .unwrap();
    assert_eq!(kept["locationReference"], "US-9012");
}

crate::both_backends!(
    a_park_added_to_an_activation_reaches_every_contact,
    a_club_call_credits_the_member_as_operator,
    an_activation_is_created_once_per_identity,
    concurrent_identical_requests_get_one_folder,
    programs_are_checked,
    references_and_callsigns_are_checked,
    the_in_progress_list_scans_a_bounded_number_of_folders,
    ending_an_activation,
);
