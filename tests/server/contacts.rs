//! Contact creation rules (docs/API.md contact rules 1–8), listing and deletion.

use serde_json::{Value, json};

use crate::common::{Server, contact, this_month};

fn create(api: &crate::common::Api, body: Value) -> crate::common::Resp {
    api.post("/v1/contacts", body)
}

fn a_contact_is_normalized_stored_and_counted() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let (month, now) = this_month();
    let folder = api.monthly(&month, None);
    let r = create(
        &api,
        json!({
            "folderId": folder, "callsign": " k1abc ", "frequency": 14074, "mode": "ft8", "timeOn": now,
            "rstSent": "-10", "rstReceived": "+05", "name": " Hiram ", "notes": "first\nQSO"
        }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.id();
    assert!(id.starts_with("qso_"));
    assert!(r.body.get("duplicateOf").is_none());
    let items = api.contacts(&folder);
    assert_eq!(items.len(), 1);
    let c = &items[0];
    assert_eq!(c["id"], id.as_str());
    assert_eq!(c["folderId"], folder.as_str());
    assert_eq!(c["callsign"], "K1ABC");
    assert_eq!(c["frequency"], 14.074);
    assert_eq!(c["band"], "20m");
    assert_eq!(c["mode"], "FT8");
    assert_eq!(c["rstSent"], "-10");
    assert_eq!(c["rstReceived"], "+05");
    assert_eq!(c["name"], "Hiram");
    assert_eq!(c["notes"], "first\nQSO");
    assert!(c["sig"].is_null() && c["mySig"].is_null() && c["activationId"].is_null());
    assert_eq!(api.qso_count(), 1);
    let f = api.folders("monthly");
    assert_eq!(f[0]["contactCount"], 1);
}

fn frequencies_are_read_as_mhz_or_converted_from_khz() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    for (given, mhz, band) in [
        (json!(7.074), 7.074, "40m"),
        (json!(7074), 7.074, "40m"),
        (json!(10136), 10.136, "30m"),
        (json!(1296.2), 1296.2, "23cm"),
        (json!(146520), 146.52, "2m"),
    ] {
        let mut body = contact(&folder, "K1ABC");
        body["frequency"] = given.clone();
        let r = create(&api, body);
        assert_eq!(r.status, 201, "{given}: {}", r.body);
        let stored = api
            .contacts(&folder)
            .into_iter()
            .find(|c| c["id"] == r.id().as_str())
            .unwrap();
        assert_eq!(stored["frequency"].as_f64().unwrap(), mhz, "{given}");
        assert_eq!(stored["band"], band, "{given}");
    }
    let mut body = contact(&folder, "K1ABC");
    body["frequency"] = json!(27.185);
    let msg = create(&api, body).expect_error(400, "validation_error");
    assert!(msg.contains("amateur band"), "{msg}");
}

fn the_root_and_category_folders_hold_no_contacts() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    for name in ["All Contacts", "POTA", "DX", "Repeaters"] {
        let folder = api.folder_named(name);
        let msg = create(&api, contact(&folder, "K1ABC")).expect_error(400, "validation_error");
        assert!(msg.contains("holds no contacts"), "{name}: {msg}");
    }
    let cat = api
        .post(
            "/v1/folders",
            json!({ "type": "category", "name": "Contests" }),
        )
        .id();
    create(&api, contact(&cat, "K1ABC")).expect_error(400, "validation_error");
    assert_eq!(api.qso_count(), 0);
}

fn a_monthly_folder_takes_only_its_utc_month() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let folder = api.monthly("2026-10", None);
    let mut body = contact(&folder, "K1ABC");
    // 23:30 on 31 October at UTC-2 is 1 November in UTC.
    body["timeOn"] = json!("2026-10-31T23:30:00-02:00");
    let msg = create(&api, body.clone()).expect_error(400, "validation_error");
    assert!(msg.contains("2026-11"), "{msg}");
    body["timeOn"] = json!("2026-10-31T21:30:00-02:00");
    assert_eq!(create(&api, body).status, 201);
    assert_eq!(api.qso_count(), 1);
}

fn an_activation_folder_fills_the_program_fields_and_refuses_contradictions() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let act = api.activation("us-1234", "w1aw");
    let r = create(&api, contact(&act, "K1ABC"));
    assert_eq!(r.status, 201, "{}", r.body);
    let c = &api.contacts(&act)[0];
    assert_eq!(c["mySig"], "POTA");
    assert_eq!(c["mySigInfo"], "US-1234");
    assert_eq!(c["activationId"], act.as_str());
    assert_eq!(c["stationCallsign"], "W1AW");

    let mut same = contact(&act, "K2ABC");
    same["mySig"] = json!("pota");
    same["mySigInfo"] = json!(" us-1234");
    same["activationId"] = json!(act);
    same["stationCallsign"] = json!("w1aw");
    assert_eq!(create(&api, same).status, 201);

    for (field, value) in [
        ("mySig", json!("SOTA")),
        ("mySigInfo", json!("US-9999")),
        ("activationId", json!("fld_aaaaaaaaaaaaaaaa")),
        ("stationCallsign", json!("N0CALL")),
    ] {
        let mut body = contact(&act, "K3ABC");
        body[field] = value;
        if field == "mySigInfo" {
            body["mySig"] = json!("POTA");
        }
        let r = create(&api, body);
        let msg = r.expect_error(400, "validation_error");
        assert_eq!(r.body["details"]["field"], field, "{msg}");
        assert!(msg.contains("contradicts"), "{msg}");
    }
    assert_eq!(api.qso_count(), 2);
}

fn a_malformed_activation_folder_is_refused_not_guessed() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let act = api.activation("US-1234", "W1AW");
    assert_eq!(
        s.exec_sql(
            "UPDATE folders SET location_reference = 'PARK 7' WHERE id = $1",
            &[&act]
        ),
        1
    );
    let msg = create(&api, contact(&act, "K1ABC")).expect_error(400, "validation_error");
    assert!(msg.contains("malformed"), "{msg}");
    // The same identity asked for again is refused rather than adopted or overwritten.
    let r = api.post(
        "/v1/activations",
        json!({ "locationReference": "US-1234", "callsign": "W1AW" }),
    );
    let msg = r.expect_error(400, "validation_error");
    assert!(msg.contains("refused"), "{msg}");

    let other = api.activation("US-5678", "W1AW");
    s.exec_sql(
        "UPDATE folders SET program_id = 'dx' WHERE id = $1",
        &[&other],
    );
    create(&api, contact(&other, "K1ABC")).expect_error(400, "validation_error");
    assert_eq!(api.qso_count(), 0);
}

fn a_custom_folder_refuses_program_tagged_contacts() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    for (field, info_field, value) in [
        ("sig", "sigInfo", "POTA"),
        ("sig", "sigInfo", "dx"),
        ("sig", "sigInfo", "REPEATER"),
        ("mySig", "mySigInfo", "POTA"),
    ] {
        let mut body = contact(&folder, "K1ABC");
        body[field] = json!(value);
        body[info_field] = json!("US-1234");
        let r = create(&api, body);
        let msg = r.expect_error(400, "validation_error");
        assert!(msg.contains("program's own folder"), "{msg}");
    }
    let mut sota = contact(&folder, "K1ABC");
    sota["sig"] = json!("SOTA");
    sota["sigInfo"] = json!("W1/HA-001");
    assert_eq!(create(&api, sota).status, 201);
    assert_eq!(api.qso_count(), 1);
}

fn a_hunting_folder_checks_sig_and_reports_duplicates() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let folder = api.monthly(&month, Some("pota"));
    let hunted = |call: &str, park: &str| {
        let mut body = contact(&folder, call);
        body["sig"] = json!("POTA");
        body["sigInfo"] = json!(park);
        body
    };
    let first = create(&api, hunted("K1ABC", "US-1234"));
    assert_eq!(first.status, 201);
    assert!(first.body.get("duplicateOf").is_none());
    let second = create(&api, hunted("k1abc", "us-1234"));
    assert_eq!(second.status, 201, "a duplicate is still stored");
    assert_eq!(second.body["duplicateOf"], first.id().as_str());
    // Another park, band or mode is another contact.
    assert!(
        create(&api, hunted("K1ABC", "US-9999"))
            .body
            .get("duplicateOf")
            .is_none()
    );
    let mut other_band = hunted("K1ABC", "US-1234");
    other_band["frequency"] = json!(7.074);
    assert!(create(&api, other_band).body.get("duplicateOf").is_none());
    let mut other_mode = hunted("K1ABC", "US-1234");
    other_mode["mode"] = json!("CW");
    assert!(create(&api, other_mode).body.get("duplicateOf").is_none());
    // Without program identity, duplicate detection does not see the contact.
    assert!(
        create(&api, contact(&folder, "K1ABC"))
            .body
            .get("duplicateOf")
            .is_none()
    );
    assert!(
        create(&api, contact(&folder, "K1ABC"))
            .body
            .get("duplicateOf")
            .is_none()
    );
    assert_eq!(api.contacts(&folder).len(), 7);

    let mut wrong = hunted("K1ABC", "US-1234");
    wrong["sig"] = json!("DX");
    let msg = create(&api, wrong).expect_error(400, "validation_error");
    assert!(msg.contains("hunting"), "{msg}");
    let mut no_park = contact(&folder, "K1ABC");
    no_park["sig"] = json!("POTA");
    create(&api, no_park).expect_error(400, "validation_error");
    let mut bad_park = hunted("K1ABC", "park");
    bad_park["sigInfo"] = json!("park");
    create(&api, bad_park).expect_error(400, "validation_error");
    assert_eq!(api.qso_count(), 7);
}

fn an_activation_reports_duplicates_of_the_same_day() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let act = api.activation("US-1234", "W1AW");
    let first = create(&api, contact(&act, "K1ABC")).id();
    let again = create(&api, contact(&act, "K1ABC"));
    assert_eq!(again.body["duplicateOf"], first.as_str());
    let mut other_band = contact(&act, "K1ABC");
    other_band["frequency"] = json!(7.2);
    other_band["mode"] = json!("SSB");
    assert!(create(&api, other_band).body.get("duplicateOf").is_none());
}

fn contacts_page_newest_first_and_stay_stable_under_inserts() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let folder = api.monthly("2026-10", None);
    let mut ids = Vec::new();
    for day in 1..=5 {
        let mut body = contact(&folder, "K1ABC");
        body["timeOn"] = json!(format!("2026-10-{day:02}T12:00:00Z"));
        ids.push(create(&api, body).id());
    }
    ids.reverse();
    let page1 = api.get(&format!("/v1/folders/{folder}/contacts?limit=2"));
    let cursor1 = page1.body["cursor"].as_str().unwrap().to_owned();
    // An insert between pages, older than everything seen, must not shift the next page.
    let mut late = contact(&folder, "K2ABC");
    late["timeOn"] = json!("2026-10-04T00:00:00Z");
    let late_id = create(&api, late).id();
    let page2 = api.get(&format!(
        "/v1/folders/{folder}/contacts?limit=2&cursor={cursor1}"
    ));
    let cursor2 = page2.body["cursor"].as_str().unwrap().to_owned();
    let page3 = api.get(&format!(
        "/v1/folders/{folder}/contacts?limit=2&cursor={cursor2}"
    ));
    let seen: Vec<String> = [&page1, &page2, &page3]
        .iter()
        .flat_map(|p| {
            p.body["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["id"].as_str().unwrap().to_owned())
        })
        .collect();
    let mut want = ids.clone();
    want.insert(2, late_id);
    let page4 = page3.body["cursor"]
        .as_str()
        .map(|c| api.get(&format!("/v1/folders/{folder}/contacts?limit=2&cursor={c}")));
    let mut all = seen.clone();
    if let Some(p) = &page4 {
        all.extend(
            p.body["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["id"].as_str().unwrap().to_owned()),
        );
        assert!(p.body.get("cursor").is_none(), "last page has no cursor");
    }
    assert_eq!(&all[..2], &ids[..2], "first page newest first");
    assert_eq!(all, want, "every contact exactly once, newest first");
    let default_page = api.get(&format!("/v1/folders/{folder}/contacts"));
    assert_eq!(default_page.body["items"].as_array().unwrap().len(), 6);
    assert!(default_page.body.get("cursor").is_none());
}

fn deleting_a_contact_frees_its_count() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let id = create(&api, contact(&folder, "K1ABC")).id();
    create(&api, contact(&folder, "K2ABC")).id();
    assert_eq!(api.qso_count(), 2);
    let r = api.delete(&format!("/v1/contacts/{id}"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body, json!({ "id": id, "success": true }));
    assert_eq!(api.qso_count(), 1);
    assert_eq!(api.contacts(&folder).len(), 1);
    assert_eq!(api.folders("monthly")[0]["contactCount"], 1);
    api.delete(&format!("/v1/contacts/{id}"))
        .expect_error(404, "not_found");
}

fn acknowledged_contacts_survive_a_kill_during_concurrent_creates() {
    // Writes are committed in groups: a 201 must only ever follow the group's commit.
    let limits = ["--burst-limit", "100000", "--free-plan-cap", "100000"];
    let s = Server::process_with(&limits);
    let api = s.account("W1AW", "elevated");
    let folder = api.monthly(&this_month().0, None);
    let acknowledged = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let clients: Vec<_> = (0..8)
        .map(|_| {
            let (api, folder, acknowledged) = (api.clone(), folder.clone(), acknowledged.clone());
            std::thread::spawn(move || {
                loop {
                    let sent = crate::common::http_client()
                        .post(format!("{}/v1/contacts", api.base))
                        .bearer_auth(api.key())
                        .json(&contact(&folder, "K1ABC"))
                        .send();
                    match sent {
                        Ok(r) if r.status() == 201 => {
                            let body: Value = r.json().expect("a JSON body");
                            let id = body["id"].as_str().expect("an id").to_owned();
                            acknowledged.lock().unwrap().push(id);
                        }
                        // The server is gone (or answered while dying): this client is done.
                        _ => return,
                    }
                }
            })
        })
        .collect();
    while acknowledged.lock().unwrap().len() < 300 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let key = api.key().to_owned();
    let db = s.crash();
    for client in clients {
        client.join().unwrap();
    }
    let s = Server::start_on(db, &limits);
    let api = s.api(Some(&key));
    let stored: std::collections::HashSet<String> = api
        .all_contacts(&folder)
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect();
    let acknowledged = acknowledged.lock().unwrap();
    let missing: Vec<_> = acknowledged
        .iter()
        .filter(|id| !stored.contains(*id))
        .collect();
    assert!(
        missing.is_empty(),
        "{} of {} acknowledged contacts were lost: {missing:?}",
        missing.len(),
        acknowledged.len()
    );
    assert_eq!(api.qso_count(), stored.len() as i64);
}

crate::both_backends!(
    a_contact_is_normalized_stored_and_counted,
    frequencies_are_read_as_mhz_or_converted_from_khz,
    the_root_and_category_folders_hold_no_contacts,
    a_monthly_folder_takes_only_its_utc_month,
    an_activation_folder_fills_the_program_fields_and_refuses_contradictions,
    a_malformed_activation_folder_is_refused_not_guessed,
    a_custom_folder_refuses_program_tagged_contacts,
    a_hunting_folder_checks_sig_and_reports_duplicates,
    an_activation_reports_duplicates_of_the_same_day,
    contacts_page_newest_first_and_stay_stable_under_inserts,
    deleting_a_contact_frees_its_count,
    acknowledged_contacts_survive_a_kill_during_concurrent_creates,
);
