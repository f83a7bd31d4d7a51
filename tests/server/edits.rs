//! `PATCH /v1/contacts/{qsoId}`: a busted call fixed, the folder's rules checked again on the
//! merged contact, `duplicateOf` following the edit (and shown on every listed contact), the
//! refusals, idempotency, and edits racing deletes and each other.

use serde_json::{Value, json};

use crate::common::{Api, Resp, Server, contact, this_month};

fn patch(api: &Api, id: &str, body: Value) -> Resp {
    api.send("PATCH", &format!("/v1/contacts/{id}"), Some(&body), &[])
}

fn listed(api: &Api, folder: &str, id: &str) -> Value {
    api.contacts(folder)
        .into_iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("{id} not listed in {folder}"))
}

/// Sends `body`, expects a 400 on `field`, and checks the contact did not change.
fn refused(api: &Api, folder: &str, id: &str, body: Value, field: &str, says: &str) {
    let before = listed(api, folder, id);
    let r = patch(api, id, body.clone());
    let msg = r.expect_error(400, "validation_error");
    assert_eq!(r.body["details"]["field"], field, "{body}: {}", r.body);
    assert!(msg.contains(says), "{body}: {msg}");
    assert_eq!(
        listed(api, folder, id),
        before,
        "{body} changed the contact"
    );
}

fn a_busted_call_is_fixed_and_the_rest_kept() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    let (month, now) = this_month();
    let folder = api.monthly(&month, None);
    let mut body = contact(&folder, "K1ABD");
    body["rstSent"] = json!("-10");
    body["notes"] = json!("copied badly");
    body["name"] = json!("Ann");
    let id = api.post("/v1/contacts", body).id();
    let before = listed(&api, &folder, &id);

    let r = patch(
        &api,
        &id,
        json!({ "callsign": " k1abc ", "notes": null, "name": "", "rstReceived": "+05" }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let after = listed(&api, &folder, &id);
    assert_eq!(r.body, after, "the answer is the contact as listed");
    assert_eq!(after["callsign"], "K1ABC");
    assert!(
        after["notes"].is_null() && after["name"].is_null(),
        "{after}"
    );
    assert_eq!(after["rstReceived"], "+05");
    for kept in [
        "id",
        "folderId",
        "frequency",
        "band",
        "mode",
        "timeOn",
        "rstSent",
        "createdAt",
    ] {
        assert_eq!(after[kept], before[kept], "{kept}");
    }
    assert!(after["duplicateOf"].is_null(), "{after}");
    assert_eq!(api.qso_count(), 1, "an edit stores nothing new");
    assert_eq!(api.folders("monthly")[0]["contactCount"], 1);

    // A frequency moves the band; a time stays in the folder's month.
    let r = patch(&api, &id, json!({ "frequency": 7074, "timeOn": now }));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        (r.body["frequency"].clone(), r.body["band"].clone()),
        (json!(7.074), json!("40m"))
    );
    refused(
        &api,
        &folder,
        &id,
        json!({ "timeOn": "2020-01-31T23:59:00Z", "notes": "moved" }),
        "timeOn",
        "log it into the 2020-01 folder",
    );
    refused(
        &api,
        &folder,
        &id,
        json!({ "sig": "POTA", "sigInfo": "US-1234" }),
        "sig",
        "custom folder",
    );
    refused(
        &api,
        &folder,
        &id,
        json!({ "frequency": 27.185 }),
        "frequency",
        "not in an amateur band",
    );
    refused(
        &api,
        &folder,
        &id,
        json!({ "sigInfo": "W1/AA-001" }),
        "sigInfo",
        "without sig",
    );
}

fn the_folder_rules_hold_in_hunting_and_activation_folders() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    let (month, _) = this_month();
    let hunting = api.monthly(&month, Some("pota"));
    let mut body = contact(&hunting, "K1ABC");
    body["sig"] = json!("POTA");
    body["sigInfo"] = json!("US-1234");
    let hunted = api.post("/v1/contacts", body).id();
    refused(
        &api,
        &hunting,
        &hunted,
        json!({ "sig": "DX" }),
        "sig",
        "hunting log",
    );
    refused(
        &api,
        &hunting,
        &hunted,
        json!({ "sig": null }),
        "sigInfo",
        "without sig",
    );
    refused(
        &api,
        &hunting,
        &hunted,
        json!({ "mySig": "POTA", "mySigInfo": "US-1" }),
        "mySig",
        "marks an activation",
    );
    let r = patch(&api, &hunted, json!({ "sigInfo": "us-1, US-0002" }));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["sigInfo"], "US-1,US-0002");

    let act = api.activation("US-1234", "W1AW");
    let activated = api.post("/v1/contacts", contact(&act, "K2ABC")).id();
    for field in ["mySig", "mySigInfo", "stationCallsign", "activationId"] {
        refused(
            &api,
            &act,
            &activated,
            json!({ field: null }),
            field,
            "cannot be cleared",
        );
    }
    refused(
        &api,
        &act,
        &activated,
        json!({ "stationCallsign": "N0CALL" }),
        "stationCallsign",
        "its activator is W1AW",
    );
    refused(
        &api,
        &act,
        &activated,
        json!({ "mySigInfo": "US-9999" }),
        "mySigInfo",
        "its reference is US-1234",
    );
    refused(
        &api,
        &act,
        &activated,
        json!({ "folderId": hunting }),
        "folderId",
        "cannot be changed",
    );
    let r = patch(
        &api,
        &activated,
        json!({ "folderId": act, "mySig": "pota", "stationCallsign": "w1aw", "callsign": "K2ABD", "sig": "POTA", "sigInfo": "US-0005" }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["callsign"], "K2ABD");
    assert_eq!(r.body["mySigInfo"], "US-1234");
    assert_eq!(r.body["activationId"], act.as_str());
    assert_eq!(r.body["stationCallsign"], "W1AW");
    assert_eq!(r.body["sigInfo"], "US-0005");
}

fn duplicate_of_follows_edits_both_ways_and_every_list_shows_it() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    let (month, _) = this_month();
    let folder = api.monthly(&month, Some("pota"));
    let hunted = |call: &str| {
        let mut body = contact(&folder, call);
        body["sig"] = json!("POTA");
        body["sigInfo"] = json!("US-1234");
        body
    };
    let a = api.post("/v1/contacts", hunted("K1ABC")).id();
    let b = api.post("/v1/contacts", hunted("K2ABC")).id();
    let c = api.post("/v1/contacts", hunted("K1ABC"));
    assert_eq!(c.body["duplicateOf"], a.as_str());
    let c = c.id();
    let dup = |id: &str| listed(&api, &folder, id)["duplicateOf"].clone();
    // Listed, as the create answered: the key is absent (never null) when unique.
    assert_eq!(dup(&c), json!(a));
    for id in [&a, &b] {
        let item = listed(&api, &folder, id);
        assert!(item.get("duplicateOf").is_none(), "{item}");
    }

    // Made a duplicate by an edit, then made unique again.
    let r = patch(&api, &b, json!({ "callsign": "k1abc" }));
    assert_eq!(r.body["duplicateOf"], a.as_str(), "{}", r.body);
    assert_eq!(dup(&b), json!(a));
    let r = patch(&api, &b, json!({ "callsign": "K2ABC" }));
    assert!(r.body["duplicateOf"].is_null(), "{}", r.body);
    assert!(dup(&b).is_null());

    // The first of the key edited away: the next stored one is the first now.
    let r = patch(&api, &a, json!({ "mode": "CW" }));
    assert!(r.body["duplicateOf"].is_null(), "{}", r.body);
    assert!(dup(&c).is_null(), "c is the first K1ABC FT8 contact now");
    let r = patch(&api, &a, json!({ "mode": "FT8" }));
    assert!(
        r.body["duplicateOf"].is_null(),
        "a was stored first: {}",
        r.body
    );
    assert_eq!(dup(&c), json!(a));

    // The client's list carries it too.
    let page: svc::model::Page<svc::model::Contact> =
        serde_json::from_value(api.get(&format!("/v1/folders/{folder}/contacts")).body).unwrap();
    let listed_c = page.items.iter().find(|x| x.id == c).unwrap();
    assert_eq!(listed_c.duplicate_of.as_deref(), Some(a.as_str()));
}

fn bad_edits_are_refused_and_change_nothing() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let id = api.post("/v1/contacts", contact(&folder, "K1ABC")).id();
    for (body, field, says) in [
        (json!({ "callsign": null }), "callsign", "cannot be cleared"),
        (
            json!({ "frequency": null }),
            "frequency",
            "cannot be cleared",
        ),
        (json!({ "mode": null }), "mode", "cannot be cleared"),
        (json!({ "timeOn": null }), "timeOn", "cannot be cleared"),
        (json!({ "folderId": null }), "folderId", "cannot be cleared"),
        (
            json!({ "frequency": "14.074" }),
            "frequency",
            "must be a number",
        ),
        (json!({ "callsign": 5 }), "callsign", "must be a string"),
        (
            json!({ "notes": ["x"] }),
            "notes",
            "must be a string or null",
        ),
        (
            json!({ "callsign": "K1ABD", "colour": "red" }),
            "colour",
            "unknown field",
        ),
        (json!({ "folderId": "nope" }), "folderId", "folderId"),
        (json!({ "mode": " " }), "mode", "mode is required"),
        (json!({ "name": "a\nb" }), "name", "name"),
    ] {
        refused(&api, &folder, &id, body, field, says);
    }
    let before = listed(&api, &folder, &id);
    let msg = patch(&api, &id, json!({})).expect_error(400, "validation_error");
    assert!(msg.contains("names no field to change"), "{msg}");
    let r = api.raw(
        "PATCH",
        &format!("/v1/contacts/{id}"),
        b"callsign=K1ABD".to_vec(),
        &[("content-type", "application/x-www-form-urlencoded")],
    );
    assert!(
        r.expect_error(400, "validation_error")
            .contains("application/json")
    );
    let r = patch(&api, "qso_bad", json!({ "callsign": "K1ABD" }));
    r.expect_error(400, "validation_error");
    assert_eq!(r.body["details"]["field"], "qsoId");
    let msg = patch(&api, "qso_aaaaaaaaaaaaaaaa", json!({ "callsign": "K1ABD" }))
        .expect_error(404, "not_found");
    assert_eq!(msg, "contact qso_aaaaaaaaaaaaaaaa not found");
    let r = api.send(
        "PATCH",
        &format!("/v1/contacts/{id}?dryRun=true"),
        Some(&json!({ "callsign": "K1ABD" })),
        &[],
    );
    r.expect_error(400, "validation_error");

    // Another account's contact is not found; a basic key is refused before anything is read.
    let other = s.account("K9ZZ", "elevated");
    let msg = patch(&other, &id, json!({ "callsign": "K1ABD" })).expect_error(404, "not_found");
    assert!(msg.contains(&id), "{msg}");
    let basic = s.new_key("W1AW", "basic");
    for (path, body) in [
        (format!("/v1/contacts/{id}"), json!({ "callsign": "K1ABD" })),
        ("/v1/contacts/qso_bad".to_owned(), json!({ "colour": 1 })),
    ] {
        let r = basic.send("PATCH", &path, Some(&body), &[]);
        r.expect_error(403, "tier_insufficient");
        assert_eq!(r.body["details"]["required"], "elevated");
    }
    assert_eq!(listed(&api, &folder, &id), before);
}

fn an_edit_replays_with_its_idempotency_key() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let id = api.post("/v1/contacts", contact(&folder, "K1ABD")).id();
    let path = format!("/v1/contacts/{id}");
    let send =
        |body: Value, key: &str| api.send("PATCH", &path, Some(&body), &[("Idempotency-Key", key)]);

    // A refused edit keeps no key: the corrected one may use it.
    send(json!({ "frequency": 27.185 }), "edit-1").expect_error(400, "validation_error");
    let first = send(json!({ "callsign": "K1ABC", "notes": "fixed" }), "edit-1");
    assert_eq!(first.status, 200, "{}", first.body);
    assert!(first.body.get("replayed").is_none());
    // Edited again since: the replay is the first answer, and changes nothing.
    assert_eq!(patch(&api, &id, json!({ "notes": "later" })).status, 200);
    let again = send(json!({ "notes": "fixed", "callsign": "K1ABC" }), "edit-1");
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.body["replayed"], true);
    let mut first_body = again.body.clone();
    first_body.as_object_mut().unwrap().remove("replayed");
    assert_eq!(first_body, first.body);
    assert_eq!(listed(&api, &folder, &id)["notes"], "later");

    let r = send(json!({ "callsign": "K1ABE" }), "edit-1");
    let msg = r.expect_error(400, "validation_error");
    assert!(msg.contains("different request"), "{msg}");
    assert_eq!(r.body["details"]["field"], "Idempotency-Key");
    // A key is the account's, whatever the endpoint: a create's key is another request.
    let created = api.send(
        "POST",
        "/v1/contacts",
        Some(&contact(&folder, "K2ABC")),
        &[("Idempotency-Key", "shared-1")],
    );
    assert_eq!(created.status, 201);
    send(json!({ "callsign": "K1ABE" }), "shared-1").expect_error(400, "validation_error");
    send(json!({ "callsign": "K1ABE" }), "bad key").expect_error(400, "validation_error");
    assert_eq!(listed(&api, &folder, &id)["callsign"], "K1ABC");
}

fn edits_racing_deletes_and_each_other_lose_nothing_and_revive_nothing() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    for round in 0..12 {
        let id = api.post("/v1/contacts", contact(&folder, "K1ABC")).id();
        let (edit, delete) = std::thread::scope(|scope| {
            let edit = scope
                .spawn(|| patch(&api, &id, json!({ "notes": format!("round {round}") })).status);
            let delete = scope.spawn(|| api.delete(&format!("/v1/contacts/{id}")).status);
            (edit.join().unwrap(), delete.join().unwrap())
        });
        assert_eq!(delete, 200, "round {round}");
        assert!(edit == 200 || edit == 404, "round {round}: {edit}");
        assert!(
            !api.contacts(&folder).iter().any(|c| c["id"] == id.as_str()),
            "round {round}: the deleted contact is back"
        );
        assert_eq!(patch(&api, &id, json!({ "notes": "again" })).status, 404);
    }
    assert_eq!(api.qso_count(), 0);
    assert_eq!(api.folders("monthly")[0]["contactCount"], 0);

    // Two edits of different fields at once: each lands, neither undoes the other.
    for round in 0..6 {
        let id = api.post("/v1/contacts", contact(&folder, "K1ABC")).id();
        std::thread::scope(|scope| {
            let name =
                scope.spawn(|| patch(&api, &id, json!({ "name": format!("Ann {round}") })).status);
            let notes = scope
                .spawn(|| patch(&api, &id, json!({ "notes": format!("note {round}") })).status);
            assert_eq!((name.join().unwrap(), notes.join().unwrap()), (200, 200));
        });
        let c = listed(&api, &folder, &id);
        assert_eq!(c["name"], format!("Ann {round}"), "{c}");
        assert_eq!(c["notes"], format!("note {round}"), "{c}");
    }
}

crate::both_backends!(
    a_busted_call_is_fixed_and_the_rest_kept,
    the_folder_rules_hold_in_hunting_and_activation_folders,
    duplicate_of_follows_edits_both_ways_and_every_list_shows_it,
    bad_edits_are_refused_and_change_nothing,
    an_edit_replays_with_its_idempotency_key,
    edits_racing_deletes_and_each_other_lose_nothing_and_revive_nothing,
);
