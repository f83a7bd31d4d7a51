//! The whole contact over the API: the fields beyond the seed's (model::fields) and the `adif`
//! map go in on a create, a batch and an edit, come back typed in every list, are checked
//! with errors that name the field, and an edit of them leaves the rest alone.

use serde_json::{Value, json};

use crate::common::{Api, Server, contact, this_month};

fn listed(api: &Api, folder: &str, id: &str) -> Value {
    api.contacts(folder)
        .into_iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("{id} not listed in {folder}"))
}

fn every_field_goes_in_and_comes_back() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    let (month, now) = this_month();
    let folder = api.monthly(&month, None);
    let mut body = contact(&folder, "DL1ABC");
    let extra = json!({
        "gridsquare": "jo31LK", "myGridsquare": "FN31", "txPwr": 100, "rxPwr": "5.5",
        "timeOff": now, "operator": "k1abc", "comment": "tnx fer QSO", "qth": "Köln",
        "state": "nw", "cqz": 14, "ituz": "28", "cont": "eu", "dxcc": 230,
        "sotaRef": "dl/al-001", "satName": "ao-91", "propMode": "sat", "freqRx": 435.25,
        "bandRx": "70CM", "contestId": "CQ-WW-CW", "stx": 12, "srx": 345,
        "qslSent": "y", "qslSdate": "20261101", "lotwQslRcvd": "V",
        "myRig": "IC-705", "myAntenna": "EFHW",
        "adif": { "app_n1mm_id": "abc-1", "MY_VUCC_GRIDS": "FN31,FN32" },
    });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    body["notes"] = json!("line one\r\nline two");
    let r = api.post("/v1/contacts", body);
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.id();
    let c = listed(&api, &folder, &id);
    let expected = json!({
        "gridsquare": "JO31lk", "myGridsquare": "FN31", "txPwr": 100.0, "rxPwr": 5.5,
        "operator": "K1ABC", "comment": "tnx fer QSO", "qth": "Köln", "state": "NW",
        "cqz": 14, "ituz": 28, "cont": "EU", "dxcc": 230, "sotaRef": "DL/AL-001",
        "satName": "AO-91", "propMode": "SAT", "freqRx": 435.25, "bandRx": "70cm",
        "contestId": "CQ-WW-CW", "stx": 12, "srx": 345, "qslSent": "Y",
        "qslSdate": "2026-11-01", "lotwQslRcvd": "V", "myRig": "IC-705", "myAntenna": "EFHW",
        "adif": { "APP_N1MM_ID": "abc-1", "MY_VUCC_GRIDS": "FN31,FN32" },
    });
    for (k, v) in expected.as_object().unwrap() {
        assert_eq!(&c[k], v, "{k}: {c}");
    }
    assert!(c["timeOff"].is_string(), "{c}");
    assert_eq!(c["notes"], "line one\r\nline two", "CRLF kept in notes");

    // An edit sets, clears and merges; the rest stays.
    let r = api.send(
        "PATCH",
        &format!("/v1/contacts/{id}"),
        Some(&json!({
            "gridsquare": "JO31", "qth": null, "txPwr": 5,
            "adif": { "APP_N1MM_ID": null, "APP_X_Y": "z" },
        })),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let after = listed(&api, &folder, &id);
    assert_eq!(r.body, after);
    assert_eq!(after["gridsquare"], "JO31");
    assert!(after.get("qth").is_none(), "{after}");
    assert_eq!(after["txPwr"], 5.0);
    assert_eq!(
        after["adif"],
        json!({ "MY_VUCC_GRIDS": "FN31,FN32", "APP_X_Y": "z" })
    );
    for kept in ["callsign", "comment", "cqz", "timeOff", "notes", "operator"] {
        assert_eq!(after[kept], c[kept], "{kept}");
    }

    // A band-only contact stays so until an edit gives its frequency.
    let mut body = contact(&folder, "K3ABC");
    body["frequency"] = json!(7.0);
    body["bandOnly"] = json!(true);
    let id = api.post("/v1/contacts", body).id();
    assert_eq!(listed(&api, &folder, &id)["bandOnly"], true);
    let r = api.send(
        "PATCH",
        &format!("/v1/contacts/{id}"),
        Some(&json!({ "name": "Al" })),
        &[],
    );
    assert_eq!(r.body["bandOnly"], true, "{}", r.body);
    let r = api.send(
        "PATCH",
        &format!("/v1/contacts/{id}"),
        Some(&json!({ "frequency": 7.074 })),
        &[],
    );
    assert!(r.body.get("bandOnly").is_none(), "{}", r.body);

    // A batch carries them too.
    let mut item = contact(&folder, "K2ABC");
    item["idempotencyKey"] = json!("fields-batch-1");
    item["gridsquare"] = json!("EM12");
    item["adif"] = json!({ "APP_A_B": "1" });
    let r = api.post("/v1/contacts/batch", json!({ "contacts": [item] }));
    assert_eq!(r.status, 200, "{}", r.body);
    let id = r.body["results"][0]["id"].as_str().unwrap().to_owned();
    let c = listed(&api, &folder, &id);
    assert_eq!(c["gridsquare"], "EM12");
    assert_eq!(c["adif"]["APP_A_B"], "1");
}

fn bad_fields_are_refused_by_name_and_store_nothing() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let cases = [
        (json!({ "gridsquare": "FN3" }), "gridsquare", "locator"),
        (json!({ "gridsquare": 31 }), "gridsquare", "string"),
        (json!({ "cqz": 41 }), "cqz", "1 to 40"),
        (json!({ "txPwr": -1 }), "txPwr", "number"),
        (json!({ "cont": "XX" }), "cont", "NA, SA"),
        (json!({ "qslSdate": "2026-02-30" }), "qslSdate", "date"),
        (json!({ "bandRx": "11m" }), "bandRx", "band"),
        (json!({ "operator": "??" }), "operator", "callsign"),
        (json!({ "adif": { "CALL": "W1AW" } }), "adif", "callsign"),
        (json!({ "adif": { "BAD NAME": "x" } }), "adif", "field name"),
        (json!({ "adif": "x" }), "adif", "object"),
        (json!({ "bandOnly": "yes" }), "bandOnly", "true or false"),
        (
            json!({ "gridsquare": "FN31", "adif": { "GRIDSQUARE": "FN31" } }),
            "adif",
            "also given",
        ),
    ];
    for (extra, field, says) in cases {
        let mut body = contact(&folder, "K1ABC");
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        let r = api.post("/v1/contacts", body);
        let msg = r.expect_error(400, "validation_error");
        assert_eq!(r.body["details"]["field"], field, "{extra}: {}", r.body);
        assert!(msg.contains(says), "{extra}: {msg}");
    }
    let r = api.post(
        "/v1/contacts",
        json!({ "folderId": folder, "callsign": "K1ABC", "frequency": 14.074, "mode": "FT8",
                "timeOn": this_month().1, "gridSquare": "FN31" }),
    );
    let msg = r.expect_error(400, "validation_error");
    assert!(msg.contains("unknown field(s): gridSquare"), "{msg}");
    assert_eq!(api.qso_count(), 0);
}

crate::both_backends!(
    every_field_goes_in_and_comes_back,
    bad_fields_are_refused_by_name_and_store_nothing,
);
