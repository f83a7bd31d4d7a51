//! Awards: one reckoning (`svc_model::awards`), so the API, `svc awards --json` and MCP's
//! get_awards give the same numbers for the same log, on either backend.

use serde_json::{Value, json};

use super::{call, connect, fails, ok};
use crate::cli::setup;
use crate::common::{Api, block_on, this_month};
use svc::model::awards::{Award, Query, reckon};

fn log(api: &Api, folder: &str, call: &str, mhz: f64, mode: &str, extra: Value) {
    let mut body = json!({
        "folderId": folder,
        "callsign": call,
        "frequency": mhz,
        "mode": mode,
        "timeOn": this_month().1,
    });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let r = api.post("/v1/contacts", body);
    assert_eq!(r.status, 201, "{}", r.body);
}

/// A log with the cases other loggers count wrong: a portable call, a maritime mobile one, a
/// deleted entity, 60 m, a satellite, confirmations of several services, a two-fer and an
/// activation.
fn seed(api: &Api) {
    let month = this_month().0;
    let own = api.monthly(&month, None);
    log(
        api,
        &own,
        "K1ABC",
        14.025,
        "CW",
        // A grid on HF: no VUCC square.
        json!({ "lotwQslRcvd": "Y", "state": "MA", "gridsquare": "FN42" }),
    );
    log(api, &own, "W1AW/4", 7.2, "SSB", json!({ "state": "NC" }));
    log(api, &own, "W1AW/MM", 14.025, "CW", json!({}));
    log(
        api,
        &own,
        "K4QRZ",
        14.2,
        "SSB",
        json!({ "dxcc": 291, "adif": { "APP_QRZLOG_STATUS": "C" } }),
    );
    log(
        api,
        &own,
        "DL1XYZ",
        5.357,
        "FT8",
        json!({ "eqslQslRcvd": "Y" }),
    );
    log(
        api,
        &own,
        "4W1A",
        14.025,
        "CW",
        json!({ "dxcc": 2, "qslRcvd": "Y" }),
    );
    log(
        api,
        &own,
        "JA1SAT",
        435.0,
        "FM",
        json!({ "propMode": "SAT", "qslRcvd": "Y", "gridsquare": "PM95" }),
    );
    // A satellite contact logged on 10 m (AO-7's mode A downlink): a VUCC square all the same.
    log(
        api,
        &own,
        "JA2SAT",
        29.41,
        "CW",
        json!({ "propMode": "sat", "gridsquare": "PM96" }),
    );
    log(
        api,
        &own,
        "K2VHF",
        146.52,
        "FM",
        json!({ "gridsquare": "FN31pr" }),
    );
    let hunting = api.monthly(&month, Some("pota"));
    log(
        api,
        &hunting,
        "K3P",
        14.285,
        "SSB",
        json!({ "sig": "POTA", "sigInfo": "US-0001,US-0002" }),
    );
    let activation = api.activation("US-1000", "W1AW");
    for n in 0..10 {
        log(
            api,
            &activation,
            &format!("K{n}AA"),
            14.285,
            "SSB",
            json!({}),
        );
    }
}

/// A report without its rows' park names, which come from the service's park cache rather
/// than the model (no names at all where the cache has none).
fn without_park_names(mut report: Value) -> Value {
    if report["award"]
        .as_str()
        .is_some_and(|a| a.starts_with("pota"))
    {
        for row in report["rows"].as_array_mut().unwrap() {
            row.as_object_mut().unwrap().remove("name");
        }
    }
    report
}

fn the_api_the_cli_and_mcp_give_the_same_numbers() {
    let (_server, api, cli) = setup("basic");
    seed(&api);
    let asked = [
        ("dxcc", "", vec![]),
        ("dxcc", "confirmedBy=eqsl", vec!["--confirmed-by", "eqsl"]),
        ("dxcc", "band=sat", vec!["--band", "sat"]),
        ("was", "mode=cw", vec!["--mode", "cw"]),
        ("waz", "", vec![]),
        ("vucc", "", vec![]),
        ("pota-hunter", "", vec![]),
        ("pota-activator", "", vec![]),
        ("dxcc", "confirmedBy=qrz", vec!["--confirmed-by", "qrz"]),
    ];
    let mut answers = Vec::new();
    for (award, query, flags) in &asked {
        let r = api.get(&format!("/v1/awards/{award}?{query}"));
        assert_eq!(r.status, 200, "{}", r.body);
        let mut args = vec!["awards", award, "--json"];
        args.extend(flags.iter().copied());
        let from_cli = cli.run(&args).ok().json();
        assert_eq!(from_cli, r.body, "svc {args:?}");
        answers.push(r.body);
    }
    block_on(async {
        let session = connect(&cli, &[]).await;
        for ((award, _, flags), answer) in asked.iter().zip(&answers) {
            let mut input = json!({ "award": award });
            for pair in flags.chunks(2) {
                match pair[0] {
                    "--confirmed-by" => input["confirmed_by"] = json!([pair[1]]),
                    flag => input[flag.trim_start_matches("--")] = json!(pair[1]),
                }
            }
            let from_mcp = ok(&call(&session, "get_awards", input.clone()).await);
            assert_eq!(&from_mcp, answer, "get_awards {input}");
        }
        // Bad input is refused alike, naming what to fix.
        fails(
            &call(
                &session,
                "get_awards",
                json!({ "award": "dxcc", "band": "21m" }),
            )
            .await,
            "validation_error",
        );
        fails(
            &call(&session, "get_awards", json!({ "award": "wae" })).await,
            "validation_error",
        );
        session.cancel().await.unwrap();
    });
    // The service reads only what the awards read of each contact; the model's reckoning of
    // the whole contacts, as the API lists them, must come out the same.
    let mut contacts: Vec<svc::model::Contact> = Vec::new();
    for folder in api.get("/v1/folders?limit=200").body["items"]
        .as_array()
        .unwrap()
    {
        if folder["type"] != "category" {
            for contact in api.all_contacts(folder["id"].as_str().unwrap()) {
                contacts.push(serde_json::from_value(contact).unwrap());
            }
        }
    }
    let dxcc = svc::model::dxcc::Dxcc::shipped();
    for ((award, query, _), answer) in asked.iter().zip(&answers) {
        let param = |name: &str| {
            query
                .split('&')
                .find_map(|pair| pair.strip_prefix(&format!("{name}=")[..]))
        };
        let parsed = Query::parse(param("band"), param("mode"), param("confirmedBy")).unwrap();
        let award = Award::parse(award).unwrap();
        let reckoned = serde_json::to_value(reckon(award, parsed, &dxcc, &contacts)).unwrap();
        assert_eq!(
            reckoned,
            without_park_names(answer.clone()),
            "{award:?} {query}"
        );
    }
    let totals = |i: usize| answers[i]["totals"]["mixed"].clone();
    // The USA (W1AW/4 with it), Germany on 60 m, Japan by satellite; not the /MM.
    assert_eq!(totals(0), json!({ "worked": 3, "confirmed": 2 }));
    assert_eq!(answers[0]["available"], 340);
    assert_eq!(
        answers[0]["columns"],
        json!(["60m", "40m", "20m", "2m", "SAT"])
    );
    assert_eq!(
        answers[0]["deleted"]["rows"][0]["name"], "ABU AIL IS.",
        "deleted entities apart, never in the total"
    );
    assert_eq!(totals(1), json!({ "worked": 3, "confirmed": 1 }), "eQSL");
    assert_eq!(answers[2]["rows"][0]["bands"], json!({ "SAT": "C" }));
    assert_eq!(
        totals(3),
        json!({ "worked": 1, "confirmed": 1 }),
        "MA by CW"
    );
    assert_eq!(answers[5]["rows"][0]["key"], "FN31");
    assert_eq!(answers[5]["rows"][1]["bands"], json!({ "SAT": "C" }));
    assert_eq!(answers[5]["rows"][2]["key"], "PM96");
    assert_eq!(answers[5]["rows"].as_array().unwrap().len(), 3, "no FN42");
    assert_eq!(
        totals(6),
        json!({ "worked": 2, "confirmed": 0 }),
        "a two-fer"
    );
    assert_eq!(answers[7]["rows"][0]["key"], "US-1000");
    assert_eq!(totals(8), json!({ "worked": 3, "confirmed": 1 }), "QRZ");

    // The API names the field to fix; an award it does not know is not found.
    let r = api.get("/v1/awards/dxcc?band=21m");
    assert_eq!(
        (r.status, &r.body["details"]["field"]),
        (400, &json!("band"))
    );
    let r = api.get("/v1/awards/dxcc?confirmedBy=lotw,clublog");
    assert_eq!(r.body["details"]["field"], "confirmedBy");
    assert!(r.body["message"].as_str().unwrap().contains("Club Log"));
    let r = api.get("/v1/awards/dxcc?since=2020");
    assert_eq!(
        (r.status, &r.body["details"]["field"]),
        (400, &json!("since"))
    );
    assert_eq!(api.get("/v1/awards/wae").status, 404);
    let run = cli.run(&["awards", "dxcc", "--band", "21m"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("21m"), "{run:?}");
    // The text shows the matrix and its totals.
    let text = cli.run(&["awards", "dxcc"]).ok().stdout.clone();
    assert!(
        text.starts_with("DXCC: 3 worked, 2 confirmed of 340"),
        "{text}"
    );
    assert!(text.contains("UNITED STATES OF AMERICA"), "{text}");
    assert!(
        text.contains("deleted entities, counted apart: 1 worked, 1 confirmed"),
        "{text}"
    );
}

crate::both_backends!(the_api_the_cli_and_mcp_give_the_same_numbers);
