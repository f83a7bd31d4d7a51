//! `GET /v1/adif`: a folder's, a category's or the account's contacts as one streamed ADIF file,
//! read back with svc's own reader; its window and format; its refusals; and a log larger than
//! the burst limit going out in one request.

use serde_json::{Value, json};
use svc::adif::{Reader, Record};

use crate::common::{Api, Server, contact, this_month};

fn records(text: &str) -> Vec<Record> {
    let all: Result<Vec<Record>, _> = Reader::new(text.as_bytes()).unwrap().collect();
    match all {
        Ok(records) => records,
        // A header alone: svc's reader, made for imports, says there is nothing to import.
        Err(e) if e.message.starts_with("no records") && text.contains("<EOH>") => Vec::new(),
        Err(e) => panic!("{e}: {text}"),
    }
}

fn text(api: &Api, query: &str) -> (String, String) {
    let r = api.send("GET", &format!("/v1/adif{query}"), None, &[]);
    assert_eq!(r.status, 200, "{query}: {}", r.body);
    let kind = r.header("content-type").unwrap_or_default().to_owned();
    match r.body {
        Value::String(s) => (s, kind),
        other => panic!("{query}: not ADIF: {other}"),
    }
}

fn folders_categories_and_the_account_come_out_whole() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    let (month, now) = this_month();
    let mine = api.monthly(&month, None);
    let pota = api.monthly(&month, Some("pota"));
    for call in ["K1ABC", "K2ABC"] {
        let mut body = contact(&mine, call);
        body["gridsquare"] = json!("FN31pr");
        body["name"] = json!("Søren");
        assert_eq!(api.post("/v1/contacts", body).status, 201);
    }
    let mut hunted = contact(&pota, "K3ABC");
    hunted["sig"] = json!("POTA");
    hunted["sigInfo"] = json!("US-0001");
    assert_eq!(api.post("/v1/contacts", hunted).status, 201);

    let (all, kind) = text(&api, "");
    assert!(kind.starts_with("text/plain"), "{kind}");
    let all = records(&all);
    assert_eq!(all.len(), 3);
    let k1 = all.iter().find(|r| r.get("CALL") == Some("K1ABC")).unwrap();
    assert_eq!(k1.get("GRIDSQUARE"), Some("FN31pr"));
    assert_eq!(k1.get("NAME"), Some("Soren"), "ADI is ASCII");
    assert_eq!(k1.get("STATION_CALLSIGN"), Some("W1AW"));

    assert_eq!(
        records(&text(&api, &format!("?folderId={mine}")).0).len(),
        2
    );
    let pota_category = api
        .folders("category")
        .into_iter()
        .find(|f| f["name"] == "POTA")
        .unwrap();
    let below = records(
        &text(
            &api,
            &format!("?folderId={}", pota_category["id"].as_str().unwrap()),
        )
        .0,
    );
    assert_eq!(below.len(), 1);
    assert_eq!(below[0].get("POTA_REF"), Some("US-0001"));

    // A window in time.
    assert!(records(&text(&api, "?since=2999-01-01T00:00:00Z").0).is_empty());
    let empty = "?since=2026-11-02T00:00:00Z&until=2026-11-01T00:00:00Z";
    assert!(records(&text(&api, empty).0).is_empty(), "an empty window");
    assert_eq!(
        records(&text(&api, "?until=2999-01-01T00:00:00Z").0).len(),
        3
    );
    let all_after = format!("?since={}", now.replace('+', "%2B"));
    assert_eq!(
        records(&text(&api, &all_after).0).len(),
        3,
        "since includes its instant"
    );

    // ADX keeps the exact text.
    let (adx, kind) = text(&api, &format!("?folderId={mine}&format=adx"));
    assert!(kind.starts_with("application/xml"), "{kind}");
    let adx = records(&adx);
    assert_eq!(adx.len(), 2);
    assert_eq!(adx[0].get("NAME_INTL"), Some("Søren"));
}

fn bad_requests_are_refused_by_name() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    for (query, field) in [
        ("?format=csv", "format"),
        ("?since=yesterday", "since"),
        ("?folderId=nope", "folderId"),
        ("?colour=red", "colour"),
    ] {
        let r = api.send("GET", &format!("/v1/adif{query}"), None, &[]);
        r.expect_error(400, "validation_error");
        assert_eq!(r.body["details"]["field"], field, "{query}: {}", r.body);
    }
    let r = api.send("GET", "/v1/adif?folderId=fld_aaaaaaaaaaaaaaaa", None, &[]);
    r.expect_error(404, "not_found");
    let mut anonymous = api.clone();
    anonymous.key = None;
    anonymous
        .send("GET", "/v1/adif", None, &[])
        .expect_error(401, "unauthorized");
}

fn a_log_larger_than_the_burst_limit_goes_out_in_one_request() {
    // The folder, three import batches and the export fit in 6; paging 1,200 contacts 200
    // at a time would not.
    let s = Server::start_with(&["--burst-limit", "6", "--free-plan-cap", "100000"]);
    let api = s.account("W1AW", "elevated");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let items: Vec<Value> = (0..1200)
        .map(|i| {
            let mut c = contact(&folder, &format!("K{}AB", i % 10));
            c["idempotencyKey"] = json!(format!("big-{i}"));
            c
        })
        .collect();
    for chunk in items.chunks(500) {
        let r = api.post(
            "/v1/contacts/batch",
            json!({ "contacts": chunk, "import": true }),
        );
        assert_eq!(r.status, 200, "{}", r.body);
    }
    assert_eq!(records(&text(&api, "").0).len(), 1200);
}

crate::both_backends!(
    folders_categories_and_the_account_come_out_whole,
    bad_requests_are_refused_by_name,
    a_log_larger_than_the_burst_limit_goes_out_in_one_request,
);
