//! `svc station set|list|delete` and `/v1/stations`: a station profile fills the MY_* fields
//! of the contacts logged under its callsign, and the activation's POTA file carries them.

use serde_json::{Value, json};

use super::{Cli, setup};

/// The contact `id` of `folder` as the service lists it.
fn stored(api: &crate::common::Api, folder: &str, id: &str) -> Value {
    let page = api.get(&format!("/v1/folders/{folder}/contacts?limit=200"));
    assert_eq!(page.status, 200, "{}", page.body);
    page.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("{id} not in {}", page.body))
        .clone()
}

/// Logs a contact through the API and gives it back as stored.
fn logged(api: &crate::common::Api, body: Value) -> Value {
    let r = api.post("/v1/contacts", body.clone());
    assert_eq!(r.status, 201, "{body}: {}", r.body);
    stored(api, body["folderId"].as_str().unwrap(), &r.id())
}

fn a_profile_fills_new_contacts_and_the_pota_file() {
    let (_server, api, cli) = setup("elevated");
    let run = cli.run(&[
        "station",
        "set",
        "--grid",
        "fn42",
        "--state",
        "ma",
        "--county",
        "Middlesex",
        "--power",
        "100",
        "--json",
    ]);
    run.ok();
    assert_eq!(
        run.json(),
        json!({"callsign": "W1AW", "myGridsquare": "FN42", "myState": "MA",
               "myCnty": "Middlesex", "txPwr": 100.0})
    );
    let list = cli.run(&["station", "list", "--json"]);
    list.ok();
    assert_eq!(list.json()["items"][0]["myState"], "MA", "{list:?}");

    let r = api.post(
        "/v1/activations",
        json!({ "locationReference": "US-1234", "callsign": "W1AW" }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let activation = r.id();
    let now = svc::model::Timestamp::now().to_string();
    let filled = logged(
        &api,
        json!({"folderId": activation, "callsign": "N0AA", "frequency": 14.062,
               "mode": "CW", "timeOn": now}),
    );
    assert_eq!(filled["myGridsquare"], "FN42", "{filled}");
    assert_eq!(filled["myState"], "MA", "{filled}");
    assert_eq!(filled["myCnty"], "Middlesex", "{filled}");
    assert_eq!(filled["txPwr"], 100.0, "{filled}");
    // What the contact gives is kept.
    let own = logged(
        &api,
        json!({"folderId": activation, "callsign": "K2ABC", "frequency": 7.030,
               "mode": "CW", "timeOn": now, "myGridsquare": "FN31pr", "txPwr": 5}),
    );
    assert_eq!(own["myGridsquare"], "FN31pr", "{own}");
    assert_eq!(own["txPwr"], 5.0, "{own}");
    assert_eq!(own["myState"], "MA", "{own}");
    // A logged batch takes the profile; an import keeps what its file says.
    for (import, expected) in [(false, json!("FN42")), (true, Value::Null)] {
        let r = api.post(
            "/v1/contacts/batch",
            json!({"import": import, "contacts": [{"folderId": activation,
                "callsign": if import { "W9IMP" } else { "W9LOG" }, "frequency": 14.062,
                "mode": "CW", "timeOn": now, "idempotencyKey": format!("station-{import}")}]}),
        );
        assert_eq!(r.status, 200, "{}", r.body);
        let id = r.body["results"][0]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("{}", r.body))
            .to_owned();
        let contact = stored(&api, &activation, &id);
        assert_eq!(
            contact["myGridsquare"], expected,
            "import {import}: {contact}"
        );
    }

    let dir = tempfile::tempdir().unwrap();
    let run = cli.run(&[
        "activations",
        "export",
        &activation,
        "--dir",
        dir.path().to_str().unwrap(),
    ]);
    run.ok();
    let text = std::fs::read_to_string(run.stdout.trim()).unwrap();
    let n0aa = text
        .split("<EOR>")
        .find(|r| r.contains("<CALL:4>N0AA"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(n0aa.contains("<MY_GRIDSQUARE:4>FN42"), "{n0aa}");
    assert!(n0aa.contains("<MY_STATE:2>MA"), "{n0aa}");
    let k2abc = text
        .split("<EOR>")
        .find(|r| r.contains("<CALL:5>K2ABC"))
        .unwrap();
    assert!(k2abc.contains("<MY_GRIDSQUARE:6>FN31pr"), "{k2abc}");

    let gone = cli.run(&["station", "delete", "w1aw"]);
    gone.ok();
    let after = logged(
        &api,
        json!({"folderId": activation, "callsign": "N0BB", "frequency": 14.062,
               "mode": "CW", "timeOn": now}),
    );
    assert!(after.get("myGridsquare").is_none(), "{after}");
    cli.run(&["station", "delete", "W1AW"])
        .fails(1, "station delete", "not_found");
}

fn bad_values_and_basic_keys_change_nothing() {
    let (server, api, cli) = setup("elevated");
    cli.run(&["station", "set", "--grid", "FN42", "--state", "MA"])
        .ok();
    let before = api.get("/v1/stations").body;
    let msg =
        cli.run(&["station", "set", "--grid", "ZZ99"])
            .fails(2, "station set", "validation_error");
    assert!(
        msg.contains("--grid") && msg.contains("Maidenhead"),
        "{msg}"
    );
    let msg =
        cli.run(&["station", "set", "--power=-3"])
            .fails(2, "station set", "validation_error");
    assert!(msg.contains("--power"), "{msg}");
    cli.run(&["station", "set"])
        .fails(2, "station set", "validation_error");
    for (body, field) in [
        (json!({"myGridsquare": "nowhere"}), "myGridsquare"),
        (json!({"myState": "MA", "txPwr": "lots"}), "txPwr"),
        (json!({"myState": "MA", "gridsquare": "FN42"}), "gridsquare"),
        (json!({}), "body"),
    ] {
        let r = api.send("PUT", "/v1/stations/W1AW", Some(&body), &[]);
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        assert_eq!(r.body["details"]["field"], field, "{}", r.body);
    }
    let r = api.send(
        "PUT",
        "/v1/stations/not%20a%20call",
        Some(&json!({"myState": "MA"})),
        &[],
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(api.get("/v1/stations").body, before);

    // A basic key reads, and is refused changes.
    let basic_api = server.account("K1BAS", "basic");
    let basic = Cli::with_key(&server, &basic_api);
    basic.run(&["station", "list"]).ok();
    basic
        .run(&["station", "set", "--grid", "FN42"])
        .fails(5, "station set", "tier_insufficient");
    let r = basic_api.send(
        "PUT",
        "/v1/stations/K1BAS",
        Some(&json!({"myState": "MA"})),
        &[],
    );
    assert_eq!(r.status, 403, "{}", r.body);
    let r = basic_api.delete("/v1/stations/K1BAS");
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(basic_api.get("/v1/stations").body, json!({"items": []}));
}

crate::both_backends!(
    a_profile_fills_new_contacts_and_the_pota_file,
    bad_values_and_basic_keys_change_nothing,
);
