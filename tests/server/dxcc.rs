//! The service fills a new contact's DXCC entity, continent and zones from its callsign when
//! the contact lacks them, from the shipped country file or a newer one it is given, and
//! again when an edit changes the callsign.

use serde_json::{Value, json};

use crate::common::{Api, Db, Server, admin_on, contact, this_month};

fn entity(c: &Value) -> Value {
    json!([c["dxcc"], c["country"], c["cont"], c["cqz"], c["ituz"]])
}

/// Creates the contact and gives its entity fields as the folder's list shows them (a create
/// answers with the id alone).
fn created(api: &Api, body: Value) -> Value {
    let folder = body["folderId"].as_str().unwrap().to_owned();
    let r = api.post("/v1/contacts", body);
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.id();
    let listed = api.contacts(&folder);
    entity(listed.iter().find(|c| c["id"] == id).unwrap())
}

fn a_new_contact_gets_its_entity_and_zones() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    let folder = api.monthly(&this_month().0, None);
    // The plain call; a portable one in another call area; a Hawaiian call by exception.
    for (call, want) in [
        ("K1ABC", json!([291, "United States", "NA", 5, 8])),
        ("W1AW/6", json!([291, "United States", "NA", 3, 6])),
        ("KH6/W1AW", json!([110, "Hawaii", "OC", 31, 61])),
        (
            "DL1ABC/P",
            json!([230, "Fed. Rep. of Germany", "EU", 14, 28]),
        ),
    ] {
        assert_eq!(created(&api, contact(&folder, call)), want, "{call}");
    }
    // At sea: no entity, nothing filled.
    assert_eq!(
        created(&api, contact(&folder, "W1AW/MM")),
        json!([null, null, null, null, null])
    );
    // What the contact says is kept; the rest of the same entity is filled.
    let mut body = contact(&folder, "K2ABC");
    body["cqz"] = json!(4);
    assert_eq!(
        created(&api, body),
        json!([291, "United States", "NA", 4, 8])
    );
    // Another entity's number (the logger knew better): nothing of ours is mixed in.
    let mut body = contact(&folder, "K3ABC");
    body["dxcc"] = json!(110);
    assert_eq!(created(&api, body), json!([110, null, null, null, null]));
    // As listed, and in a batch from another logger's file.
    let listed = api.contacts(&folder);
    let k1 = listed.iter().find(|c| c["callsign"] == "K1ABC").unwrap();
    assert_eq!(entity(k1), json!([291, "United States", "NA", 5, 8]));
    let mut imported = contact(&folder, "VK2ABC");
    imported["frequency"] = json!(7.074);
    imported["idempotencyKey"] = json!("import-vk2abc");
    let mut ja = contact(&folder, "JA1ABC");
    ja["idempotencyKey"] = json!("import-ja1abc");
    let r = api.post(
        "/v1/contacts/batch",
        json!({"contacts": [imported, ja], "import": true}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let results = r.body["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{}", r.body);
    assert!(results.iter().all(|r| r["status"] == 201), "{}", r.body);
    let listed = api.contacts(&folder);
    let of = |call: &str| entity(listed.iter().find(|c| c["callsign"] == call).unwrap());
    assert_eq!(of("VK2ABC"), json!([150, "Australia", "OC", 30, 59]));
    assert_eq!(of("JA1ABC"), json!([339, "Japan", "AS", 25, 45]));
}

fn an_edited_callsign_takes_its_entity_with_it() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    let folder = api.monthly(&this_month().0, None);
    let edit = |id: &str, body: Value| {
        let r = api.send("PATCH", &format!("/v1/contacts/{id}"), Some(&body), &[]);
        assert_eq!(r.status, 200, "{}", r.body);
        entity(&r.body)
    };
    // A busted call fixed: the other entity's values, not the old call's.
    let id = api.post("/v1/contacts", contact(&folder, "K1ABC")).id();
    assert_eq!(
        edit(&id, json!({"callsign": "VK2ABC"})),
        json!([150, "Australia", "OC", 30, 59])
    );
    // To a call with no entity: the old ones go.
    assert_eq!(
        edit(&id, json!({"callsign": "VK2ABC/MM"})),
        json!([null, null, null, null, null])
    );
    // The edit names an entity field: what it gives wins, the rest is filled; another
    // entity's number leaves the rest empty.
    assert_eq!(
        edit(&id, json!({"callsign": "JA1ABC", "cqz": 26})),
        json!([339, "Japan", "AS", 26, 45])
    );
    assert_eq!(
        edit(&id, json!({"callsign": "K1ABC", "dxcc": 110})),
        json!([110, null, null, null, null])
    );
    // The same call again (a client sending the whole contact back) leaves what the operator
    // set alone.
    let mut body = contact(&folder, "KH6ABC");
    body["ituz"] = json!(62);
    let id = api.post("/v1/contacts", body).id();
    assert_eq!(
        edit(&id, json!({"callsign": "kh6abc", "name": "Al"})),
        json!([110, "Hawaii", "OC", 31, 62])
    );
}

/// A country file of one entity, so a test can tell it from the shipped one.
const TESTLAND: &str = "W,Testland,999,NA,4,7,40.0,-75.0,5.0,W K;\n";

fn a_newer_country_file_is_used_from_the_flag_or_the_data_directory() {
    let db = Db::fresh();
    let given = db.dir.path().join("newer-cty.csv");
    std::fs::write(&given, TESTLAND).unwrap();
    let s = Server::start_on(db, &["--cty", given.to_str().unwrap()]);
    let api = s.account("W1AW", "elevated");
    let folder = api.monthly(&this_month().0, None);
    assert_eq!(
        created(&api, contact(&folder, "K1ABC")),
        json!([999, "Testland", "NA", 4, 7])
    );
    // Not in that file: nothing.
    assert_eq!(
        created(&api, contact(&folder, "DL1ABC")),
        json!([null, null, null, null, null])
    );

    let db = Db::fresh();
    let dir = db.dir.path().join("svc");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("cty.csv"), TESTLAND).unwrap();
    let s = Server::start_on(db, &[]);
    let api = s.account("W1AW", "elevated");
    let folder = api.monthly(&this_month().0, None);
    assert_eq!(
        created(&api, contact(&folder, "W1AW/P")),
        json!([999, "Testland", "NA", 4, 7])
    );
}

/// `svc server start --cty FILE`, which must fail: its stderr.
fn start_fails(db: &Db, file: &std::path::Path) -> String {
    let out = admin_on(
        &db.url,
        &[
            "start",
            "--bind",
            "127.0.0.1:0",
            "--cty",
            file.to_str().unwrap(),
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{stderr}");
    stderr
}

fn a_bad_country_file_stops_the_start_and_says_where() {
    let db = Db::fresh();
    let bad = db.dir.path().join("bad-cty.csv");
    std::fs::write(&bad, format!("{TESTLAND}K,Nowhere,abc,NA,4,7,0,0,0,K;\n")).unwrap();
    let stderr = start_fails(&db, &bad);
    assert!(
        stderr.contains("bad-cty.csv") && stderr.contains("line 2"),
        "{stderr}"
    );
    let stderr = start_fails(&db, &db.dir.path().join("no-such-cty.csv"));
    assert!(
        stderr.contains("cannot read") && stderr.contains("no-such-cty.csv"),
        "{stderr}"
    );
}

crate::both_backends!(
    a_new_contact_gets_its_entity_and_zones,
    an_edited_callsign_takes_its_entity_with_it,
    a_newer_country_file_is_used_from_the_flag_or_the_data_directory,
    a_bad_country_file_stops_the_start_and_says_where,
);
