//! The wire shape published clients read: an optional field with no value is absent, never
//! null (the 0.2.0 client's output schemas refuse null); `qsoCount` beside `contactCount`;
//! a replayed delete; the cap's details; and whole pages of folders and activations.

use serde_json::{Value, json};

use crate::common::qrz::{FakeQrz, server};
use crate::common::{Resp, Server, contact, this_month};

const QRZ_KEY: &str = "A1B2-C3D4-E5F6-7788";

/// The JSON path of the first null in `value`, if there is one.
fn first_null(value: &Value, path: &str) -> Option<String> {
    match value {
        Value::Null => Some(path.to_owned()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(n, v)| first_null(v, &format!("{path}[{n}]"))),
        Value::Object(fields) => fields
            .iter()
            .find_map(|(k, v)| first_null(v, &format!("{path}.{k}"))),
        _ => None,
    }
}

/// Checks that the answer succeeded with `status` and holds no null; returns its body.
fn no_null(what: &str, r: Resp, status: u16) -> Value {
    assert_eq!(r.status, status, "{what}: {}", r.body);
    assert!(r.body.is_object(), "{what}: {}", r.body);
    if let Some(path) = first_null(&r.body, "$") {
        panic!("{what}: null at {path} in {}", r.body);
    }
    r.body
}

fn items(body: &Value) -> &Vec<Value> {
    body["items"].as_array().unwrap()
}

fn no_answer_holds_a_null() {
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    let (s, _secret) = server(&qrz, &["--burst-limit", "100000"]);
    let api = s.account("W1AW", "elevated");
    let (month, time) = this_month();

    no_null("whoami", api.get("/v1/whoami"), 200);
    let custom = no_null(
        "custom monthly",
        api.post("/v1/folders", json!({ "type": "monthly", "month": month })),
        201,
    );
    for absent in [
        "programId",
        "startTime",
        "endTime",
        "locationName",
        "callsign",
    ] {
        assert!(custom.get(absent).is_none(), "{absent}: {custom}");
    }
    let custom = custom["id"].as_str().unwrap().to_owned();
    let key = [("Idempotency-Key", "wire-hunting")];
    let hunting = json!({ "type": "monthly", "month": month, "programId": "pota" });
    no_null(
        "hunting monthly",
        api.send("POST", "/v1/folders", Some(&hunting), &key),
        201,
    );
    let replay = no_null(
        "replayed folder",
        api.send("POST", "/v1/folders", Some(&hunting), &key),
        201,
    );
    assert_eq!(replay["replayed"], true);
    no_null(
        "category",
        api.post(
            "/v1/folders",
            json!({ "type": "category", "name": "Contests" }),
        ),
        201,
    );
    let activation = no_null(
        "activation",
        api.post(
            "/v1/activations",
            json!({ "locationReference": "US-1234", "callsign": "W1AW" }),
        ),
        201,
    );
    assert!(activation.get("locationName").is_none(), "{activation}");
    assert!(activation.get("endTime").is_none(), "{activation}");
    let activation = activation["id"].as_str().unwrap().to_owned();

    let created = no_null(
        "contact",
        api.post("/v1/contacts", contact(&custom, "K1ABC")),
        201,
    );
    let first = created["id"].as_str().unwrap().to_owned();
    let in_activation = json!({
        "folderId": activation,
        "callsign": "K2ABC",
        "frequency": 14.074,
        "mode": "FT8",
        "timeOn": time,
    });
    let dupe = no_null(
        "duplicate in an activation",
        api.post("/v1/contacts", in_activation.clone()),
        201,
    );
    assert!(dupe.get("duplicateOf").is_none(), "{dupe}");
    let dupe = no_null(
        "duplicate in an activation",
        api.post("/v1/contacts", in_activation),
        201,
    );
    assert!(dupe["duplicateOf"].is_string(), "{dupe}");
    let mut item = contact(&custom, "K3ABC");
    item["idempotencyKey"] = json!("wire-batch");
    let batch = json!({ "contacts": [item, { "folderId": custom }] });
    let answer = no_null("batch", api.post("/v1/contacts/batch", batch.clone()), 200);
    assert_eq!(answer["results"][0]["status"], 201, "{answer}");
    assert_eq!(answer["results"][1]["status"], 400, "{answer}");
    no_null("replayed batch", api.post("/v1/contacts/batch", batch), 200);

    let edited = no_null(
        "edit",
        api.send(
            "PATCH",
            &format!("/v1/contacts/{first}"),
            Some(&json!({ "notes": "loud", "name": null })),
            &[],
        ),
        200,
    );
    assert_eq!(edited["notes"], "loud");
    let edited = no_null(
        "edit clearing",
        api.send(
            "PATCH",
            &format!("/v1/contacts/{first}"),
            Some(&json!({ "notes": null })),
            &[],
        ),
        200,
    );
    assert!(edited.get("notes").is_none(), "{edited}");

    let root = api.folder_named("All Contacts");
    for (what, folder) in [
        ("monthly", &custom),
        ("activation", &activation),
        ("root", &root),
    ] {
        let page = no_null(
            what,
            api.get(&format!("/v1/folders/{folder}/contacts")),
            200,
        );
        assert!(!items(&page).is_empty(), "{what}: {page}");
        for c in items(&page) {
            assert!(c.get("rstSent").is_none(), "{what}: {c}");
        }
    }
    let folders = no_null("folders", api.get("/v1/folders"), 200);
    for kind in ["category", "monthly", "activation"] {
        assert!(
            items(&folders).iter().any(|f| f["type"] == kind),
            "{kind}: {folders}"
        );
    }
    let root = items(&folders).iter().find(|f| f["id"] == root).unwrap();
    assert!(root.get("parentId").is_none(), "{root}");
    no_null("activations", api.get("/v1/activations"), 200);
    no_null(
        "activations in progress",
        api.get("/v1/activations?inProgress=true"),
        200,
    );
    no_null(
        "end",
        api.post(&format!("/v1/activations/{activation}/end"), json!({})),
        200,
    );
    no_null("delete", api.delete(&format!("/v1/contacts/{first}")), 200);

    let book = no_null(
        "logbook",
        api.post(
            "/v1/logbooks",
            json!({ "provider": "qrz", "apiKey": QRZ_KEY }),
        ),
        201,
    );
    assert!(book.get("pausedReason").is_none(), "{book}");
    no_null("logbooks", api.get("/v1/logbooks"), 200);
    no_null(
        "contacts with their copies",
        api.get(&format!("/v1/folders/{custom}/contacts")),
        200,
    );
    no_null("reviews", api.get("/v1/logbooks/review"), 200);

    let missing = no_null(
        "not found",
        api.get("/v1/folders/fld_aaaaaaaaaaaaaaaa/contacts"),
        404,
    );
    assert!(missing.get("details").is_none(), "{missing}");
}

fn folders_carry_qso_count_beside_contact_count() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let folder = api.monthly(&month, Some("pota"));
    for n in 0..3 {
        let r = api.post("/v1/contacts", contact(&folder, &format!("K{n}ABC")));
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let folders = api.folders("monthly");
    let monthly = folders.iter().find(|f| f["id"] == folder).unwrap();
    assert_eq!(monthly["contactCount"], 3);
    assert_eq!(monthly["qsoCount"], 3);
    for f in api.get("/v1/folders").body["items"].as_array().unwrap() {
        assert_eq!(f["qsoCount"], f["contactCount"], "{f}");
    }
    let found = api.post(
        "/v1/folders",
        json!({ "type": "monthly", "month": month, "programId": "pota" }),
    );
    assert_eq!(found.status, 200, "{}", found.body);
    assert_eq!(found.body["qsoCount"], found.body["contactCount"]);
}

fn a_retried_delete_answers_its_first_answer() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    let folder = api.monthly(&this_month().0, None);
    let id = api.post("/v1/contacts", contact(&folder, "K1ABC")).id();
    let kept = api.post("/v1/contacts", contact(&folder, "K2ABC")).id();
    let path = format!("/v1/contacts/{id}");
    let key = [("Idempotency-Key", "delete-once")];

    let first = api.send("DELETE", &path, None, &key);
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(first.body, json!({ "id": id, "success": true }));
    let again = api.send("DELETE", &path, None, &key);
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(
        again.body,
        json!({ "id": id, "success": true, "replayed": true })
    );
    assert_eq!(api.qso_count(), 1);

    // Without the key, or with another, the contact is simply not there.
    api.delete(&path).expect_error(404, "not_found");
    api.send("DELETE", &path, None, &[("Idempotency-Key", "another")])
        .expect_error(404, "not_found");
    // A refused delete stored nothing: its key is free for the next request.
    let r = api.send(
        "DELETE",
        &format!("/v1/contacts/{kept}"),
        None,
        &[("Idempotency-Key", "another")],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.get("replayed").is_none(), "{}", r.body);

    // The key names the first delete: on another contact it is refused.
    let other = api.post("/v1/contacts", contact(&folder, "K3ABC")).id();
    let msg = api
        .send("DELETE", &format!("/v1/contacts/{other}"), None, &key)
        .expect_error(400, "validation_error");
    assert!(msg.contains("Idempotency-Key"), "{msg}");
    assert_eq!(api.qso_count(), 1);
}

fn the_cap_refusal_names_the_cap_and_the_count() {
    let s = Server::start_with(&["--free-plan-cap", "2"]);
    let api = s.account("W1AW", "basic");
    let folder = api.monthly(&this_month().0, None);
    for call in ["K1ABC", "K2ABC"] {
        assert_eq!(api.post("/v1/contacts", contact(&folder, call)).status, 201);
    }
    let r = api.post("/v1/contacts", contact(&folder, "K3ABC"));
    r.expect_error(402, "qso_cap_reached");
    assert_eq!(
        r.body["details"],
        json!({ "cap": 2, "limit": 2, "current": 2 })
    );
    let mut item = contact(&folder, "K4ABC");
    item["idempotencyKey"] = json!("over-the-cap");
    let r = api.post("/v1/contacts/batch", json!({ "contacts": [item] }));
    assert_eq!(r.status, 200, "{}", r.body);
    let result = &r.body["results"][0];
    assert_eq!(result["error"], "qso_cap_reached", "{result}");
    assert_eq!(
        result["details"],
        json!({ "cap": 2, "limit": 2, "current": 2 })
    );
}

fn one_default_page_holds_an_ordinary_accounts_folders() {
    let s = Server::start_with(&["--burst-limit", "100000"]);
    let api = s.account("W1AW", "basic");
    for n in 0..60 {
        let r = api.post(
            "/v1/folders",
            json!({ "type": "category", "name": format!("Category {n}") }),
        );
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let page = api.get("/v1/folders");
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(items(&page.body).len() > 60, "{}", page.body);
    assert!(page.body.get("cursor").is_none(), "{}", page.body);

    for n in 0..55 {
        api.activation(&format!("US-{}", 1000 + n), "W1AW");
    }
    let page = api.get("/v1/activations");
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(items(&page.body).len(), 55);
    assert!(page.body.get("cursor").is_none(), "{}", page.body);

    // Contacts keep their default page of 50.
    let folder = api.monthly(&this_month().0, None);
    let batch: Vec<Value> = (0..51)
        .map(|n| {
            let mut c = contact(&folder, &format!("K{n}ABC"));
            c["idempotencyKey"] = json!(format!("page-{n}"));
            c
        })
        .collect();
    let r = api.post("/v1/contacts/batch", json!({ "contacts": batch }));
    assert_eq!(r.status, 200, "{}", r.body);
    let page = api.get(&format!("/v1/folders/{folder}/contacts"));
    assert_eq!(items(&page.body).len(), 50);
    assert!(page.body["cursor"].is_string(), "{}", page.body);
}

crate::both_backends!(
    no_answer_holds_a_null,
    folders_carry_qso_count_beside_contact_count,
    a_retried_delete_answers_its_first_answer,
    the_cap_refusal_names_the_cap_and_the_count,
    one_default_page_holds_an_ordinary_accounts_folders,
);
