//! The folder model of docs/API.md: root, categories, monthly folders, paging.

use std::sync::{Arc, Barrier};

use serde_json::json;

use crate::common::Server;

fn a_new_account_has_the_root_and_program_categories() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let folders = api.folders("category");
    assert_eq!(folders.len(), 4);
    let root = &folders[0];
    assert_eq!(root["name"], "All Contacts");
    assert_eq!(root["type"], "category");
    assert_eq!(root["autoFolderType"], "category");
    assert!(root["parentId"].is_null());
    for (folder, (name, program)) in
        folders[1..]
            .iter()
            .zip([("POTA", "pota"), ("DX", "dx"), ("Repeaters", "repeaters")])
    {
        assert_eq!(folder["name"], name);
        assert_eq!(folder["programId"], program);
        assert_eq!(folder["parentId"], root["id"]);
    }
    assert!(api.folders("monthly").is_empty());
    assert!(api.folders("activation").is_empty());
}

fn monthly_folders_are_found_or_created() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let custom = api.post(
        "/v1/folders",
        json!({ "type": "monthly", "month": "2026-11" }),
    );
    assert_eq!(custom.status, 201, "{}", custom.body);
    assert_eq!(custom.body["created"], true);
    assert_eq!(custom.body["month"], "2026-11");
    assert!(custom.body["programId"].is_null());
    assert!(custom.body["autoFolderKey"].is_null());
    assert_eq!(
        custom.body["parentId"],
        api.folder_named("All Contacts").as_str()
    );
    let again = api.post(
        "/v1/folders",
        json!({ "type": "monthly", "month": " 2026-11 " }),
    );
    assert_eq!(again.status, 200);
    assert_eq!(again.body["created"], false);
    assert_eq!(again.id(), custom.id());

    let hunting = api.post(
        "/v1/folders",
        json!({ "type": "monthly", "month": "2026-11", "programId": "pota" }),
    );
    assert_eq!(hunting.status, 201);
    assert_ne!(hunting.id(), custom.id());
    assert_eq!(hunting.body["programId"], "pota");
    assert_eq!(hunting.body["name"], "POTA 2026-11");
    assert_eq!(hunting.body["parentId"], api.folder_named("POTA").as_str());
    assert!(hunting.body["autoFolderKey"].is_string());
    let dx = api.post(
        "/v1/folders",
        json!({ "type": "monthly", "month": "2026-11", "programId": "dx" }),
    );
    assert_eq!(dx.body["parentId"], api.folder_named("DX").as_str());
    assert_eq!(api.folders("monthly").len(), 3);
}

fn concurrent_monthly_requests_get_one_folder() {
    let s = Server::start_with(&["--burst-limit", "1000"]);
    let api = s.account("W1AW", "basic");
    let n = 12;
    let barrier = Arc::new(Barrier::new(n));
    let ids: Vec<String> = (0..n)
        .map(|_| {
            let api = api.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                api.post(
                    "/v1/folders",
                    json!({ "type": "monthly", "month": "2026-09", "programId": "pota" }),
                )
                .id()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect();
    assert!(ids.iter().all(|id| id == &ids[0]));
    assert_eq!(api.folders("monthly").len(), 1);
}

fn categories_nest_only_under_categories() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let top = api.post(
        "/v1/folders",
        json!({ "type": "category", "name": " Contests " }),
    );
    assert_eq!(top.status, 201, "{}", top.body);
    assert_eq!(top.body["name"], "Contests");
    assert_eq!(
        top.body["parentId"],
        api.folder_named("All Contacts").as_str()
    );
    let sub = api.post(
        "/v1/folders",
        json!({ "type": "category", "name": "CQ WW", "parentId": top.id() }),
    );
    assert_eq!(sub.status, 201);
    assert_eq!(sub.body["parentId"], top.id().as_str());
    let month = api.monthly("2026-11", None);
    let r = api.post(
        "/v1/folders",
        json!({ "type": "category", "name": "x", "parentId": month }),
    );
    assert!(r.expect_error(400, "validation_error").contains("category"));
    let other = s.account("K1ABC", "basic");
    let foreign = other.folder_named("All Contacts");
    api.post(
        "/v1/folders",
        json!({ "type": "category", "name": "x", "parentId": foreign }),
    )
    .expect_error(404, "not_found");
    api.post("/v1/folders", json!({ "type": "category" }))
        .expect_error(400, "validation_error");
    api.post("/v1/folders", json!({ "type": "activation" }))
        .expect_error(400, "validation_error");
    assert_eq!(api.folders("category").len(), 6);
}

fn folders_page_through_a_cursor() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    for m in 1..=6 {
        api.monthly(&format!("2026-{m:02}"), None);
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &cursor {
            Some(c) => format!("/v1/folders?limit=3&cursor={c}"),
            None => "/v1/folders?limit=3".to_owned(),
        };
        let r = api.get(&path);
        pages += 1;
        let items = r.body["items"].as_array().unwrap();
        assert!(items.len() <= 3);
        seen.extend(items.iter().map(|f| f["id"].as_str().unwrap().to_owned()));
        match r.body["cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(seen.len(), 10);
    assert_eq!(pages, 4);
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 10);
    let monthly = api.get("/v1/folders?type=monthly&limit=4");
    assert_eq!(monthly.body["items"].as_array().unwrap().len(), 4);
    let rest = api.get(&format!(
        "/v1/folders?type=monthly&limit=4&cursor={}",
        monthly.body["cursor"].as_str().unwrap()
    ));
    assert_eq!(rest.body["items"].as_array().unwrap().len(), 2);
    assert!(rest.body.get("cursor").is_none());
}

fn containers_list_the_contacts_below_them_and_count_them() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    let (month, time) = crate::common::this_month();
    let custom = api
        .post("/v1/folders", json!({ "type": "monthly", "month": month }))
        .id();
    let hunting = api
        .post(
            "/v1/folders",
            json!({ "type": "monthly", "month": month, "programId": "pota" }),
        )
        .id();
    let park = api
        .post(
            "/v1/activations",
            json!({ "locationReference": "US-1234", "callsign": "W1AW" }),
        )
        .id();
    let log = |folder: &str, call: &str, minute: u32, extra: serde_json::Value| {
        let time_on = format!("{}{minute:02}{}", &time[..14], &time[16..]);
        let mut body = json!({ "folderId": folder, "callsign": call, "frequency": 14.074,
                               "mode": "FT8", "timeOn": time_on });
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let r = api.post("/v1/contacts", body);
        assert_eq!(r.status, 201, "{}", r.body);
        r.id()
    };
    let a = log(&custom, "K1AAA", 0, json!({}));
    let b = log(&custom, "K1BBB", 1, json!({}));
    let c = log(
        &hunting,
        "K1CCC",
        2,
        json!({ "sig": "POTA", "sigInfo": "US-0001" }),
    );
    let d = log(&park, "K1DDD", 3, json!({}));
    let categories = api.folders("category");
    let id_of = |name: &str| {
        categories.iter().find(|f| f["name"] == name).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let ids = |items: Vec<serde_json::Value>| -> Vec<String> {
        items
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_owned())
            .collect()
    };
    // All Contacts: every contact of the account, newest first, through the cursor.
    let root = id_of("All Contacts");
    let first = api.get(&format!("/v1/folders/{root}/contacts?limit=3"));
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(first.body["items"].as_array().unwrap().len(), 3);
    assert!(first.body["cursor"].is_string());
    assert_eq!(ids(api.all_contacts(&root)), [d.clone(), c.clone(), b, a]);
    // POTA: its hunting log and its activations; DX: nothing yet.
    assert_eq!(ids(api.all_contacts(&id_of("POTA"))), [d, c]);
    assert!(api.all_contacts(&id_of("DX")).is_empty());
    // And the counts add up.
    let count = |name: &str| {
        categories.iter().find(|f| f["name"] == name).unwrap()["contactCount"]
            .as_i64()
            .unwrap()
    };
    assert_eq!(count("All Contacts"), 4);
    assert_eq!(count("POTA"), 2);
    assert_eq!(count("DX"), 0);
    // A container still takes no contact of its own.
    let refused = api.post(
        "/v1/contacts",
        json!({ "folderId": root, "callsign": "K1EEE", "frequency": 14.074, "mode": "FT8",
                "timeOn": time }),
    );
    refused.expect_error(400, "validation_error");
}

crate::both_backends!(
    containers_list_the_contacts_below_them_and_count_them,
    a_new_account_has_the_root_and_program_categories,
    monthly_folders_are_found_or_created,
    concurrent_monthly_requests_get_one_folder,
    categories_nest_only_under_categories,
    folders_page_through_a_cursor,
);
