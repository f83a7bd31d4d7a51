//! Bad input of every class: each is refused with a 4xx, the right code and a message that names
//! what to fix, and nothing changes (QSO count, folders, contacts, activations).

use serde_json::{Value, json};

use crate::common::{Api, Resp, Server, contact, this_month};

/// A server with one account (elevated key), a custom monthly folder of this month holding two
/// contacts, and one activation in progress.
struct Fx {
    _server: Server,
    api: Api,
    folder: String,
    activation: String,
}

fn setup() -> Fx {
    // Many requests per test: keep the burst limit out of the way.
    let server = Server::start_with(&["--burst-limit", "100000"]);
    let api = server.account("W1AW", "elevated");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    for call in ["K1ABC", "N0CALL"] {
        let r = api.post("/v1/contacts", contact(&folder, call));
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let activation = api.activation("US-1234", "W1AW");
    Fx {
        _server: server,
        api,
        folder,
        activation,
    }
}

impl Fx {
    /// Everything a refused request must leave alone.
    fn state(&self) -> Value {
        let folders = self.api.get("/v1/folders?limit=200");
        assert_eq!(folders.status, 200, "{}", folders.body);
        let activations = self.api.get("/v1/activations?limit=200");
        assert_eq!(activations.status, 200, "{}", activations.body);
        json!({
            "nativeQsoCount": self.api.qso_count(),
            "folders": folders.body["items"],
            "contacts": self.api.contacts(&self.folder),
            "activationContacts": self.api.contacts(&self.activation),
            "activations": activations.body["items"],
        })
    }

    fn assert_unchanged(&self, before: &Value) {
        let after = self.state();
        assert_eq!(&after, before, "a refused request changed the logbook");
    }

    /// A valid contact body for the monthly folder.
    fn body(&self) -> Value {
        contact(&self.folder, "K2XYZ")
    }

    fn end_path(&self) -> String {
        format!("/v1/activations/{}/end", self.activation)
    }

    fn contacts_path(&self) -> String {
        format!("/v1/folders/{}/contacts", self.folder)
    }
}

/// Asserts 400 `validation_error` whose message names `what`; returns the message.
fn refused(r: &Resp, what: &str, context: &str) -> String {
    assert_eq!(r.status, 400, "{context}: {}", r.body);
    let message = r.expect_error(400, "validation_error");
    assert!(
        message.contains(what),
        "{context}: the message should name {what}: {message}"
    );
    message
}

/// Asserts 400 `validation_error` for `field`: named in the message and in `details.field`.
fn refused_field(r: &Resp, field: &str, context: &str) -> String {
    let message = refused(r, field, context);
    assert_eq!(
        r.body["details"]["field"], field,
        "{context}: details.field: {}",
        r.body
    );
    message
}

fn json_ct() -> [(&'static str, &'static str); 1] {
    [("content-type", "application/json")]
}

fn malformed_json_is_refused_and_changes_nothing() {
    let fx = setup();
    let before = fx.state();
    let bad: [&[u8]; 7] = [
        br#"{"folderId": "#,
        b"{'callsign': 'K1ABC'}",
        br#"{"callsign": "K1ABC",}"#,
        br#"{"a": 1}{"b": 2}"#,
        b"{\"callsign\": \"K1\xffABC\"}",
        b"callsign=K1ABC&mode=FT8",
        b"{\"frequency\": 14.074 x}",
    ];
    for raw in bad {
        let context = String::from_utf8_lossy(raw).into_owned();
        for path in [
            "/v1/contacts".to_owned(),
            "/v1/folders".to_owned(),
            "/v1/activations".to_owned(),
            fx.end_path(),
        ] {
            let r = fx.api.raw("POST", &path, raw.to_vec(), &json_ct());
            let message = refused(&r, "JSON", &format!("{path} {context}"));
            assert!(r.body.get("details").is_none_or(Value::is_object));
            assert!(!message.is_empty());
        }
    }
    fx.assert_unchanged(&before);
}

fn a_body_that_is_not_an_object_is_refused() {
    let fx = setup();
    let before = fx.state();
    let good = fx.body();
    for raw in [
        format!("[{good}]"),
        "[]".to_owned(),
        "\"K1ABC\"".to_owned(),
        "42".to_owned(),
        "true".to_owned(),
        "null".to_owned(),
    ] {
        for path in [
            "/v1/contacts".to_owned(),
            "/v1/folders".to_owned(),
            fx.end_path(),
        ] {
            let r = fx
                .api
                .raw("POST", &path, raw.clone().into_bytes(), &json_ct());
            refused(&r, "object", &format!("{path} {raw}"));
        }
    }
    fx.assert_unchanged(&before);
}

fn a_body_without_the_json_content_type_is_refused() {
    let fx = setup();
    let before = fx.state();
    let body = serde_json::to_vec(&fx.body()).unwrap();
    let category = serde_json::to_vec(&json!({"type": "category", "name": "Contests"})).unwrap();
    for ct in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        Some("application/jsonp"),
        Some("text/json"),
        None,
    ] {
        let headers: Vec<(&str, &str)> = ct.map(|c| ("content-type", c)).into_iter().collect();
        let r = fx.api.raw("POST", "/v1/contacts", body.clone(), &headers);
        refused(&r, "Content-Type", &format!("contacts {ct:?}"));
        let r = fx
            .api
            .raw("POST", "/v1/folders", category.clone(), &headers);
        refused(&r, "Content-Type", &format!("folders {ct:?}"));
    }
    fx.assert_unchanged(&before);
    // The same bytes with the JSON type (and a charset parameter) are taken: the refusals were
    // about the type alone.
    let r = fx.api.raw(
        "POST",
        "/v1/contacts",
        body,
        &[("content-type", "application/json; charset=utf-8")],
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(
        fx.api.qso_count(),
        before["nativeQsoCount"].as_i64().unwrap() + 1
    );
}

fn a_body_over_64_kib_is_refused() {
    let fx = setup();
    let before = fx.state();
    // Its own connections: the server may close one after refusing a body it did not read.
    let http = fresh_connections();
    let mut big = fx.body();
    big["notes"] = json!("x".repeat(70 * 1024));
    let over = [
        ("/v1/contacts", big),
        (
            "/v1/folders",
            json!({"type": "category", "name": "Big", "padding": "y".repeat(100 * 1024)}),
        ),
    ];
    for (path, body) in over {
        let bytes = serde_json::to_vec(&body).unwrap();
        let size = bytes.len();
        let r = send_raw(&http, &fx.api, "POST", path, bytes, &json_ct())
            .unwrap_or_else(|| panic!("{path}: no answer to a body of {size} bytes"));
        let message = refused(&r, "64 KiB", &format!("{path} with {size} bytes"));
        assert!(message.contains("body"), "{message}");
    }
    fx.assert_unchanged(&before);
}

fn an_unknown_body_field_is_refused_by_name() {
    let fx = setup();
    let before = fx.state();
    let mut c = fx.body();
    c["remark"] = json!("worked on a new antenna");
    refused_field(&fx.api.post("/v1/contacts", c), "remark", "contact");
    let mut c = fx.body();
    c["freq"] = json!(7.074);
    refused_field(&fx.api.post("/v1/contacts", c), "freq", "contact, misspelt");
    let (month, _) = this_month();
    refused_field(
        &fx.api.post(
            "/v1/folders",
            json!({"type": "monthly", "month": month, "color": "red"}),
        ),
        "color",
        "monthly folder",
    );
    refused_field(
        &fx.api.post(
            "/v1/folders",
            json!({"type": "category", "name": "Contests", "month": month}),
        ),
        "month",
        "category folder with a month",
    );
    refused_field(
        &fx.api.post(
            "/v1/activations",
            json!({"locationReference": "US-5678", "callsign": "W1AW", "parkName": "x"}),
        ),
        "parkName",
        "activation",
    );
    refused_field(
        &fx.api
            .post(&fx.end_path(), json!({"endtime": this_month().1})),
        "endtime",
        "end, misspelt endTime",
    );
    fx.assert_unchanged(&before);
}

fn every_required_contact_field_is_required_in_turn() {
    let fx = setup();
    let before = fx.state();
    for field in ["folderId", "callsign", "frequency", "mode", "timeOn"] {
        let mut missing = fx.body();
        missing.as_object_mut().unwrap().remove(field);
        let message = refused_field(
            &fx.api.post("/v1/contacts", missing),
            field,
            &format!("without {field}"),
        );
        assert!(message.contains("required"), "{field}: {message}");
        let mut null = fx.body();
        null[field] = Value::Null;
        refused_field(
            &fx.api.post("/v1/contacts", null),
            field,
            &format!("{field} null"),
        );
        if field != "frequency" {
            let mut empty = fx.body();
            empty[field] = json!("  ");
            refused_field(
                &fx.api.post("/v1/contacts", empty),
                field,
                &format!("{field} blank"),
            );
        }
    }
    // An empty object names the first missing field rather than failing some other way.
    let r = fx
        .api
        .raw("POST", "/v1/contacts", b"{}".to_vec(), &json_ct());
    let message = r.expect_error(400, "validation_error");
    assert!(message.contains("required"), "{message}");
    fx.assert_unchanged(&before);
}

fn fields_of_the_wrong_json_type_are_refused() {
    let fx = setup();
    let before = fx.state();
    for (field, value, expect) in [
        ("frequency", json!("14.074"), "number"),
        ("frequency", json!(true), "number"),
        ("frequency", json!([14.074]), "number"),
        ("callsign", json!(123), "string"),
        ("callsign", json!(["K1ABC"]), "string"),
        ("mode", json!({"name": "FT8"}), "string"),
        ("timeOn", json!(1_763_800_000), "string"),
        ("folderId", json!(7), "string"),
        ("notes", json!(5), "string"),
        ("name", json!(false), "string"),
        ("rstSent", json!(599), "string"),
        ("sig", json!(1), "string"),
    ] {
        let mut c = fx.body();
        c[field] = value.clone();
        let message = refused_field(
            &fx.api.post("/v1/contacts", c),
            field,
            &format!("{field} = {value}"),
        );
        assert!(message.contains(expect), "{field} = {value}: {message}");
    }
    for (field, value) in [
        ("programId", json!(1)),
        ("programId", json!(true)),
        ("program", json!(["pota"])),
        ("callsign", json!(42)),
        ("locationReference", json!(1234)),
        ("startTime", json!(1_763_800_000)),
    ] {
        let mut a = json!({"locationReference": "US-5678", "callsign": "W1AW"});
        a[field] = value.clone();
        refused_field(
            &fx.api.post("/v1/activations", a),
            field,
            &format!("activation {field} = {value}"),
        );
    }
    let (month, _) = this_month();
    refused_field(
        &fx.api.post(
            "/v1/folders",
            json!({"type": "monthly", "month": month, "programId": 5}),
        ),
        "programId",
        "monthly programId number",
    );
    refused_field(
        &fx.api
            .post("/v1/folders", json!({"type": "monthly", "month": 202611})),
        "month",
        "month number",
    );
    fx.assert_unchanged(&before);
}

fn bad_callsigns_are_refused() {
    let fx = setup();
    let before = fx.state();
    for bad in [
        "??",
        "W1 AW",
        "HELLO",
        "12345",
        "W1AW//P",
        "/W1AW",
        "K1ABC-5",
        "K1ABCDEFGHIJKLMNOPQRS",
        "K1ÅBC",
        "<script>",
    ] {
        let mut c = fx.body();
        c["callsign"] = json!(bad);
        refused_field(
            &fx.api.post("/v1/contacts", c),
            "callsign",
            &format!("callsign {bad:?}"),
        );
        let mut c = fx.body();
        c["stationCallsign"] = json!(bad);
        refused_field(
            &fx.api.post("/v1/contacts", c),
            "stationCallsign",
            &format!("stationCallsign {bad:?}"),
        );
        refused_field(
            &fx.api.post(
                "/v1/activations",
                json!({"locationReference": "US-5678", "callsign": bad}),
            ),
            "callsign",
            &format!("activation callsign {bad:?}"),
        );
    }
    fx.assert_unchanged(&before);
}

fn bad_frequencies_are_refused() {
    let fx = setup();
    let before = fx.state();
    for bad in [
        json!(0),
        json!(0.0),
        json!(-14.074),
        json!(-7074),
        json!(27.185),
        json!(27185),
        json!(5.0),
        json!(1e10),
        json!(1e-9),
    ] {
        let mut c = fx.body();
        c["frequency"] = bad.clone();
        refused_field(
            &fx.api.post("/v1/contacts", c),
            "frequency",
            &format!("frequency {bad}"),
        );
    }
    fx.assert_unchanged(&before);
}

fn bad_modes_are_refused() {
    let fx = setup();
    let before = fx.state();
    for bad in [
        "F T8",
        "FT8!",
        "FT8;DROP",
        "x".repeat(21).as_str(),
        "FT8\u{7}",
        "ΦT8",
    ] {
        let mut c = fx.body();
        c["mode"] = json!(bad);
        refused_field(
            &fx.api.post("/v1/contacts", c),
            "mode",
            &format!("mode {bad:?}"),
        );
    }
    fx.assert_unchanged(&before);
}

fn bad_times_on_are_refused() {
    let fx = setup();
    let before = fx.state();
    let now = svc::model::Timestamp::now();
    let in_three_days = svc::model::Timestamp(now.millis() + 3 * 86_400_000).to_string();
    let plain = now.to_string();
    let without_offset = plain.trim_end_matches('Z').to_owned();
    for (bad, hint) in [
        (without_offset.as_str(), "offset"),
        ("garbage", "ISO 8601"),
        ("2026-13-01T00:00:00Z", "ISO 8601"),
        ("2026-11-31T00:00:00Z", "ISO 8601"),
        ("1763800000", "ISO 8601"),
        ("1800-06-01T12:00:00Z", "1900"),
        ("0001-01-01T00:00:00Z", "1900"),
        (in_three_days.as_str(), "future"),
        ("2100-01-01T00:00:00Z", "future"),
        ("9999-12-31T23:59:59Z", "future"),
    ] {
        let mut c = fx.body();
        c["timeOn"] = json!(bad);
        let message = refused_field(
            &fx.api.post("/v1/contacts", c),
            "timeOn",
            &format!("timeOn {bad:?}"),
        );
        assert!(message.contains(hint), "timeOn {bad:?}: {message}");
    }
    for bad in [
        without_offset.as_str(),
        "garbage",
        "1800-06-01T12:00:00Z",
        "2100-01-01T00:00:00Z",
    ] {
        refused_field(
            &fx.api.post(
                "/v1/activations",
                json!({"locationReference": "US-5678", "callsign": "W1AW", "startTime": bad}),
            ),
            "startTime",
            &format!("activation startTime {bad:?}"),
        );
    }
    fx.assert_unchanged(&before);
}

fn overlong_text_is_refused_and_the_limits_are_exact() {
    let fx = setup();
    let before = fx.state();
    for (field, len) in [
        ("name", 101),
        ("name", 5000),
        ("notes", 2001),
        ("notes", 20_000),
        ("rstSent", 11),
        ("rstReceived", 11),
    ] {
        let mut c = fx.body();
        c[field] = json!("5".repeat(len));
        refused_field(
            &fx.api.post("/v1/contacts", c),
            field,
            &format!("{field} of {len} characters"),
        );
    }
    refused_field(
        &fx.api.post(
            "/v1/folders",
            json!({"type": "category", "name": "c".repeat(101)}),
        ),
        "name",
        "category name of 101 characters",
    );
    fx.assert_unchanged(&before);
    // At the limit (counted in characters, not bytes) the contact is taken.
    let mut c = fx.body();
    c["name"] = json!("é".repeat(100));
    c["notes"] = json!("n".repeat(2000));
    let r = fx.api.post("/v1/contacts", c);
    assert_eq!(r.status, 201, "{}", r.body);
}

fn control_characters_are_refused() {
    let fx = setup();
    let before = fx.state();
    for (field, bad) in [
        ("name", "Hi\u{7}ram"),
        ("name", "Hi\nram"),
        ("name", "Hiram\u{0}"),
        ("notes", "red \u{1b}[31mtext"),
        ("notes", "nul\u{0}byte"),
        ("notes", "del\u{7f}"),
        ("callsign", "K1ABC\u{7}"),
        ("mode", "FT\u{0}8"),
        ("rstSent", "59\u{8}9"),
        ("sigInfo", "US-1\u{1}"),
    ] {
        let mut c = fx.body();
        c[field] = json!(bad);
        if field == "sigInfo" {
            c["sig"] = json!("SOTA");
        }
        refused_field(
            &fx.api.post("/v1/contacts", c),
            field,
            &format!("{field} {bad:?}"),
        );
    }
    refused_field(
        &fx.api.post(
            "/v1/folders",
            json!({"type": "category", "name": "Con\u{1b}tests"}),
        ),
        "name",
        "category name with ESC",
    );
    refused_field(
        &fx.api.post(
            "/v1/activations",
            json!({"locationReference": "US-5678", "callsign": "W1AW", "locationName": "Park\u{7}"}),
        ),
        "locationName",
        "activation locationName with BEL",
    );
    fx.assert_unchanged(&before);
}

const MALFORMED_FOLDER_IDS: [&str; 8] = [
    "xyz",
    "fld_",
    "fld_AAAAAAAAAAAAAAAA",
    "qso_aaaaaaaaaaaaaaaa",
    "fld_aaaaaaaaaaaaaaa1",
    "fld_aaaaaaaaaaaaaaaaa",
    "fld_aaaaaaaaaaaaaaa",
    "FLD_aaaaaaaaaaaaaaaa",
];

fn malformed_folder_ids_are_refused_in_path_and_body() {
    let fx = setup();
    let before = fx.state();
    for bad in MALFORMED_FOLDER_IDS {
        let r = fx.api.get(&format!("/v1/folders/{bad}/contacts"));
        let message = refused_field(&r, "folderId", &format!("GET contacts of {bad}"));
        assert!(message.contains("fld_"), "{message}");
        let mut c = fx.body();
        c["folderId"] = json!(bad);
        refused_field(
            &fx.api.post("/v1/contacts", c),
            "folderId",
            &format!("contact in {bad}"),
        );
        let r = fx
            .api
            .post(&format!("/v1/activations/{bad}/end"), json!({}));
        refused(&r, "fld_", &format!("end {bad}"));
        refused_field(
            &fx.api.post(
                "/v1/folders",
                json!({"type": "category", "name": "Sub", "parentId": bad}),
            ),
            "parentId",
            &format!("category under {bad}"),
        );
        let mut c = fx.body();
        c["activationId"] = json!(bad);
        refused_field(
            &fx.api.post("/v1/contacts", c),
            "activationId",
            &format!("activationId {bad}"),
        );
    }
    // An id that is not even UTF-8 once decoded is refused as bad input, not a server error.
    let r = fx.api.get("/v1/folders/%ff%fe/contacts");
    r.expect_error(400, "validation_error");
    fx.assert_unchanged(&before);
}

fn an_unknown_well_formed_folder_id_is_not_found() {
    let fx = setup();
    let before = fx.state();
    let unknown = "fld_aaaaaaaaaaaaaaaa";
    fx.api
        .get(&format!("/v1/folders/{unknown}/contacts"))
        .expect_error(404, "not_found");
    let mut c = fx.body();
    c["folderId"] = json!(unknown);
    fx.api
        .post("/v1/contacts", c)
        .expect_error(404, "not_found");
    fx.api
        .post(&format!("/v1/activations/{unknown}/end"), json!({}))
        .expect_error(404, "not_found");
    fx.api
        .post(
            "/v1/folders",
            json!({"type": "category", "name": "Sub", "parentId": unknown}),
        )
        .expect_error(404, "not_found");
    fx.assert_unchanged(&before);
}

fn a_malformed_qso_id_on_delete_is_refused() {
    let fx = setup();
    let before = fx.state();
    for bad in [
        "xyz",
        "qso_",
        "qso_AAAAAAAAAAAAAAAA",
        "qso_aaaaaaaaaaaaaaa1",
        "qso_aaaaaaaaaaaaaaaaa",
        "fld_aaaaaaaaaaaaaaaa",
        "%20qso_aaaaaaaaaaaaaaaa",
    ] {
        let r = fx.api.delete(&format!("/v1/contacts/{bad}"));
        let message = refused_field(&r, "qsoId", &format!("DELETE {bad}"));
        assert!(message.contains("qso_"), "{message}");
    }
    fx.api
        .delete("/v1/contacts/qso_aaaaaaaaaaaaaaaa")
        .expect_error(404, "not_found");
    fx.assert_unchanged(&before);
}

fn a_limit_outside_1_to_200_is_refused() {
    let fx = setup();
    let before = fx.state();
    let lists = [
        fx.contacts_path(),
        "/v1/folders".to_owned(),
        "/v1/activations".to_owned(),
    ];
    for list in &lists {
        for bad in [
            "0",
            "201",
            "abc",
            "-1",
            "1.5",
            "",
            "%205",
            "1e2",
            "99999999999999999999",
        ] {
            let r = fx.api.get(&format!("{list}?limit={bad}"));
            refused_field(&r, "limit", &format!("{list}?limit={bad}"));
        }
        for good in ["1", "200"] {
            let r = fx.api.get(&format!("{list}?limit={good}"));
            assert_eq!(r.status, 200, "{list}?limit={good}: {}", r.body);
        }
    }
    fx.assert_unchanged(&before);
}

fn unknown_and_repeated_query_parameters_are_refused() {
    let fx = setup();
    let before = fx.state();
    let contacts = fx.contacts_path();
    for (path, name) in [
        (format!("{contacts}?lmit=5"), "lmit"),
        (format!("{contacts}?Limit=5"), "Limit"),
        (format!("{contacts}?type=monthly"), "type"),
        (format!("{contacts}?limit=5&folder=x"), "folder"),
        ("/v1/folders?types=monthly".to_owned(), "types"),
        ("/v1/folders?inProgress=true".to_owned(), "inProgress"),
        ("/v1/activations?in_progress=true".to_owned(), "in_progress"),
        ("/v1/activations?inprogress=true".to_owned(), "inprogress"),
        ("/v1/activations?type=activation".to_owned(), "type"),
    ] {
        let message = refused_field(&fx.api.get(&path), name, &path);
        assert!(message.contains("unknown"), "{path}: {message}");
    }
    for (path, name) in [
        (format!("{contacts}?limit=5&limit=5"), "limit"),
        (format!("{contacts}?limit=5&limit=6"), "limit"),
        ("/v1/folders?type=monthly&type=monthly".to_owned(), "type"),
        (
            "/v1/activations?inProgress=true&inProgress=false".to_owned(),
            "inProgress",
        ),
    ] {
        let message = refused_field(&fx.api.get(&path), name, &path);
        assert!(message.contains("more than once"), "{path}: {message}");
    }
    fx.assert_unchanged(&before);
}

fn unknown_query_parameters_on_writes_and_whoami_are_refused() {
    // docs/API.md: unknown query input is a validation_error, never a guess. A client that puts
    // `dryRun=true` (or a misplaced body field) in the query of a write must not get a write.
    let fx = setup();
    let qso = fx.api.contacts(&fx.folder)[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let before = fx.state();
    let mut accepted = Vec::new();
    for (method, path, body) in [
        ("GET", "/v1/whoami?verbose=1".to_owned(), None),
        (
            "POST",
            "/v1/contacts?dryRun=true".to_owned(),
            Some(fx.body()),
        ),
        (
            "POST",
            format!("/v1/contacts?folderId={}", fx.activation),
            Some(fx.body()),
        ),
        (
            "POST",
            "/v1/folders?dryRun=true".to_owned(),
            Some(json!({"type": "category", "name": "Contests"})),
        ),
        (
            "POST",
            "/v1/activations?dryRun=true".to_owned(),
            Some(json!({"locationReference": "US-5678", "callsign": "W1AW"})),
        ),
        (
            "POST",
            format!("{}?dryRun=true", fx.end_path()),
            Some(json!({})),
        ),
        ("DELETE", format!("/v1/contacts/{qso}?dryRun=true"), None),
    ] {
        let r = fx.api.send(method, &path, body.as_ref(), &[]);
        if r.status != 400 || r.body["error"] != "validation_error" {
            accepted.push(format!("{method} {path} -> {}", r.status));
        }
    }
    assert!(
        accepted.is_empty(),
        "unknown query parameters were ignored instead of refused: {accepted:#?}"
    );
    fx.assert_unchanged(&before);
}

fn a_bad_folder_type_filter_is_refused() {
    let fx = setup();
    let before = fx.state();
    for bad in [
        "folder",
        "Monthly",
        "",
        "monthly,category",
        "activations",
        "%00",
    ] {
        let path = format!("/v1/folders?type={bad}");
        let message = refused_field(&fx.api.get(&path), "type", &path);
        assert!(message.contains("monthly"), "{path}: {message}");
    }
    fx.assert_unchanged(&before);
}

fn bad_cursors_are_refused() {
    let fx = setup();
    fx.api.activation("US-5678", "W1AW");
    let before = fx.state();
    let cursor_of = |path: &str| -> String {
        let r = fx.api.get(path);
        assert_eq!(r.status, 200, "{}", r.body);
        r.body["cursor"]
            .as_str()
            .unwrap_or_else(|| panic!("{path} gave no cursor: {}", r.body))
            .to_owned()
    };
    let contacts = fx.contacts_path();
    let contacts_cursor = cursor_of(&format!("{contacts}?limit=1"));
    let folders_cursor = cursor_of("/v1/folders?limit=1");
    let activations_cursor = cursor_of("/v1/activations?limit=1");
    // Each works on its own list.
    for (list, cursor) in [
        (contacts.as_str(), &contacts_cursor),
        ("/v1/folders", &folders_cursor),
        ("/v1/activations", &activations_cursor),
    ] {
        let r = fx.api.get(&format!("{list}?cursor={cursor}"));
        assert_eq!(r.status, 200, "{list}: {}", r.body);
    }
    let long = "a".repeat(2000);
    for (list, bad) in [
        (contacts.as_str(), "garbage!"),
        (contacts.as_str(), ""),
        (contacts.as_str(), long.as_str()),
        (contacts.as_str(), folders_cursor.as_str()),
        (contacts.as_str(), activations_cursor.as_str()),
        ("/v1/folders", "garbage"),
        ("/v1/folders", contacts_cursor.as_str()),
        ("/v1/folders", activations_cursor.as_str()),
        ("/v1/activations", "0"),
        ("/v1/activations", folders_cursor.as_str()),
        ("/v1/activations", contacts_cursor.as_str()),
    ] {
        let path = format!("{list}?cursor={bad}");
        refused_field(&fx.api.get(&path), "cursor", &path);
    }
    // A cursor cut short is refused too, not read as some other position.
    let cut = &contacts_cursor[..contacts_cursor.len() - 2];
    refused_field(
        &fx.api.get(&format!("{contacts}?cursor={cut}")),
        "cursor",
        "truncated cursor",
    );
    fx.assert_unchanged(&before);
}

fn a_bad_in_progress_value_is_refused() {
    let fx = setup();
    let before = fx.state();
    for bad in ["yes", "1", "TRUE", "True", "", "true%20", "on"] {
        let path = format!("/v1/activations?inProgress={bad}");
        let message = refused_field(&fx.api.get(&path), "inProgress", &path);
        assert!(message.contains("true or false"), "{path}: {message}");
    }
    for good in ["true", "false"] {
        let r = fx.api.get(&format!("/v1/activations?inProgress={good}"));
        assert_eq!(r.status, 200, "{}", r.body);
    }
    fx.assert_unchanged(&before);
}

fn a_bad_idempotency_key_is_refused_before_anything_is_stored() {
    let fx = setup();
    let before = fx.state();
    let long_300 = "k".repeat(300);
    let long_256 = "k".repeat(256);
    let category = json!({"type": "category", "name": "Contests"});
    let activation = json!({"locationReference": "US-5678", "callsign": "W1AW"});
    for bad in [
        vec![long_300.as_str()],
        vec![long_256.as_str()],
        vec!["café-1"],
        vec!["naïve"],
        vec!["two words"],
        vec!["tab\there"],
        vec!["first", "second"],
        vec!["same", "same"],
    ] {
        let headers: Vec<(&str, &str)> = bad.iter().map(|v| ("Idempotency-Key", *v)).collect();
        for (path, body) in [
            ("/v1/contacts", fx.body()),
            ("/v1/folders", category.clone()),
            ("/v1/activations", activation.clone()),
        ] {
            let r = fx.api.send("POST", path, Some(&body), &headers);
            refused_field(&r, "Idempotency-Key", &format!("{path} with {bad:?}"));
        }
        let r = fx
            .api
            .send("POST", &fx.end_path(), Some(&json!({})), &headers);
        refused_field(&r, "Idempotency-Key", &format!("end with {bad:?}"));
    }
    fx.assert_unchanged(&before);
    // 255 visible ASCII characters are a good key.
    let good = "k".repeat(255);
    let r = fx.api.send(
        "POST",
        "/v1/contacts",
        Some(&fx.body()),
        &[("Idempotency-Key", good.as_str())],
    );
    assert_eq!(r.status, 201, "{}", r.body);
}

fn bad_folder_creations_are_refused_and_no_folder_is_made() {
    let fx = setup();
    let before = fx.state();
    let (month, _) = this_month();
    for (body, field) in [
        (json!({}), "type"),
        (json!({"month": month}), "type"),
        (json!({"type": "weekly", "month": month}), "type"),
        (json!({"type": "", "month": month}), "type"),
        (json!({"type": 5, "month": month}), "type"),
        (json!({"type": "monthly"}), "month"),
        (json!({"type": "monthly", "month": null}), "month"),
        (json!({"type": "monthly", "month": "2026-13"}), "month"),
        (json!({"type": "monthly", "month": "2026-00"}), "month"),
        (json!({"type": "monthly", "month": "2026-1"}), "month"),
        (json!({"type": "monthly", "month": "2026/11"}), "month"),
        (json!({"type": "monthly", "month": "2026-11-01"}), "month"),
        (json!({"type": "monthly", "month": "November"}), "month"),
        (json!({"type": "monthly", "month": ""}), "month"),
        (
            json!({"type": "monthly", "month": month, "programId": "sota"}),
            "programId",
        ),
        (
            json!({"type": "monthly", "month": month, "programId": ""}),
            "programId",
        ),
        (json!({"type": "category"}), "name"),
        (json!({"type": "category", "name": "   "}), "name"),
    ] {
        let r = fx.api.post("/v1/folders", body.clone());
        refused_field(&r, field, &body.to_string());
    }
    let r = fx.api.post("/v1/folders", json!({"type": "activation"}));
    refused(&r, "/v1/activations", "type activation");
    assert_eq!(r.body["details"]["field"], "type", "{}", r.body);
    let r = fx.api.post(
        "/v1/folders",
        json!({"type": "activation", "locationReference": "US-1", "callsign": "W1AW"}),
    );
    refused(&r, "/v1/activations", "type activation with a reference");
    fx.assert_unchanged(&before);
}

fn ending_a_non_activation_or_before_its_start_is_refused() {
    let fx = setup();
    let before = fx.state();
    // A monthly folder and the categories are not activations.
    let r = fx
        .api
        .post(&format!("/v1/activations/{}/end", fx.folder), json!({}));
    let message = r.expect_error(400, "validation_error");
    assert!(message.contains("not an activation"), "{message}");
    for category in fx.api.folders("category") {
        let id = category["id"].as_str().unwrap();
        let r = fx.api.post(&format!("/v1/activations/{id}/end"), json!({}));
        let message = r.expect_error(400, "validation_error");
        assert!(message.contains("not an activation"), "{id}: {message}");
    }
    // The activation started now: an end an hour ago is before its start.
    let start = before["activations"][0]["startTime"]
        .as_str()
        .expect("startTime")
        .to_owned();
    let start_ms = chrono::DateTime::parse_from_rfc3339(&start)
        .unwrap()
        .timestamp_millis();
    let hour_before = svc::model::Timestamp(start_ms - 3_600_000).to_string();
    let second_before = svc::model::Timestamp(start_ms - 1_000).to_string();
    for early in [
        hour_before.as_str(),
        second_before.as_str(),
        "1999-01-01T00:00:00Z",
    ] {
        let r = fx.api.post(&fx.end_path(), json!({ "endTime": early }));
        let message = refused_field(&r, "endTime", &format!("endTime {early}"));
        assert!(message.contains("before"), "{early}: {message}");
    }
    for bad in ["yesterday", "2026-11-22T14:05:00", "2100-01-01T00:00:00Z"] {
        let r = fx.api.post(&fx.end_path(), json!({ "endTime": bad }));
        refused_field(&r, "endTime", &format!("endTime {bad}"));
    }
    let r = fx.api.post(&fx.end_path(), json!({ "endTime": 17 }));
    refused_field(&r, "endTime", "endTime number");
    fx.assert_unchanged(&before);
    assert!(
        before["activations"][0]["endTime"].is_null(),
        "still in progress"
    );
}

/// A client that opens a new connection for every request.
fn fresh_connections() -> reqwest::blocking::Client {
    crate::common::http_builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap()
}

/// Like `Api::raw`, but a transport failure is `None` rather than a panic.
fn send_raw(
    http: &reqwest::blocking::Client,
    api: &Api,
    method: &str,
    path: &str,
    body: Vec<u8>,
    headers: &[(&str, &str)],
) -> Option<Resp> {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut req = http
        .request(method, format!("{}{path}", api.base))
        .body(body);
    if let Some(key) = &api.key {
        req = req.bearer_auth(key);
    }
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let r = req.send().ok()?;
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    let text = r.text().ok()?;
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    };
    Some(Resp {
        status,
        headers,
        body,
    })
}

/// A small deterministic generator, so a failing burst can be replayed.
struct Lcg(u64);

impl Lcg {
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        &items[((self.0 >> 33) as usize) % items.len()]
    }
}

fn a_burst_of_garbage_never_gets_a_server_error() {
    let fx = setup();
    let before = fx.state();
    let key = fx.api.key().to_owned();
    let mut anon = fx.api.clone();
    anon.key = None;
    let folder = fx.folder.clone();
    let activation = fx.activation.clone();
    let long_cursor = format!("/v1/folders?cursor={}", "A".repeat(3000));
    let long_path = format!("/v1/{}", "x/".repeat(500));
    let paths: Vec<String> = vec![
        "/nowhere".into(),
        "/v1".into(),
        "/v1/".into(),
        "/v1/whoami/".into(),
        "/v1//folders".into(),
        "/v1/folders/".into(),
        "/v1/folders//contacts".into(),
        "/v1/folders/%00/contacts".into(),
        "/v1/folders/%ff/contacts".into(),
        format!("/v1/folders/{folder}/contacts?limit=%ff"),
        format!("/v1/folders/{folder}/contacts?cursor=%00%01"),
        format!("/v1/folders/{folder}/contacts?=&&=x"),
        "/v1/folders?type=%E2%80%AE".into(),
        "/v1/folders?%ff=1".into(),
        long_cursor,
        long_path,
        "/v1/contacts".into(),
        "/v1/contacts/%2e%2e".into(),
        "/v1/contacts/qso_%00".into(),
        "/v1/contacts/qso_aaaaaaaaaaaaaaaa/extra".into(),
        "/v1/activations".into(),
        "/v1/activations?inProgress=%00".into(),
        "/v1/activations/x/end".into(),
        // Not the real activation: an empty POST there would end it, which is valid.
        format!("/v1/activations/{activation}/end/x"),
        format!("/v1/activations/{folder}/end"),
        "/v1/whoami?debug=1".into(),
        "/v2/whoami".into(),
        "/admin".into(),
    ];
    let bodies: Vec<Vec<u8>> = vec![
        vec![],
        b"{".to_vec(),
        b"}".to_vec(),
        b"null".to_vec(),
        b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
            .to_vec(),
        "[".repeat(5000).into_bytes(),
        b"{\"folderId\": {\"$ne\": null}}".to_vec(),
        b"{\"callsign\": \"' OR 1=1 --\", \"folderId\": \"fld_aaaaaaaaaaaaaaaa\"}".to_vec(),
        b"{\"type\": \"monthly\", \"month\": \"9999-99\"}".to_vec(),
        b"{\"frequency\": 1e999}".to_vec(),
        b"{\"frequency\": -0.0, \"mode\": \"\"}".to_vec(),
        b"{\"endTime\": \"\\u0000\"}".to_vec(),
        vec![0xff, 0xfe, 0x00, 0x7b],
        vec![0u8; 1024],
        b"{\"a\":".repeat(2000),
        format!("{{\"notes\": \"{}\"}}", "z".repeat(80 * 1024)).into_bytes(),
    ];
    let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"];
    let bad_bearer_unicode = "Bearer svc_live_ÄÄÄ".to_owned();
    let long_bearer = format!("Bearer {}", "A".repeat(8000));
    let auths: Vec<Option<String>> = vec![
        None,
        None,
        None,
        Some(String::new()),
        Some("Bearer".into()),
        Some("Bearer ".into()),
        Some("Basic dzFhdzpwYXNzd29yZA==".into()),
        Some(format!("bearer {key}")),
        Some(format!("Bearer {key} {key}")),
        Some(format!("Bearer {}", key.to_lowercase())),
        Some("Bearer svc_live_AAAAAAAAAAAAAAAAAAAAAAAA".into()),
        Some(bad_bearer_unicode),
        Some(long_bearer),
    ];
    let content_types = [
        None,
        Some("application/json"),
        Some("text/plain"),
        Some("application/json; charset=latin1"),
        Some(";;;"),
    ];
    let idem = [None, None, None, Some(""), Some("ok-key"), Some("ü")];
    let mut rng = Lcg(0x5eed);
    let mut answered = 0;
    // A fresh connection per request: the server may close a connection after a request whose
    // body it did not read, and a pooled connection would then fail the next request at random.
    let http = fresh_connections();
    for i in 0..300 {
        let method = *rng.pick(&methods);
        let path = rng.pick(&paths).clone();
        let body = rng.pick(&bodies).clone();
        let auth = rng.pick(&auths).clone();
        let ct = *rng.pick(&content_types);
        let idem_key = *rng.pick(&idem);
        // Valid-key requests go through the harness's bearer; the rest are sent without it.
        let mut headers: Vec<(&str, &str)> = Vec::new();
        if let Some(a) = auth.as_deref() {
            headers.push(("authorization", a));
        }
        if let Some(c) = ct {
            headers.push(("content-type", c));
        }
        if let Some(k) = idem_key {
            headers.push(("idempotency-key", k));
        }
        let client = if auth.is_none() && i % 2 == 0 {
            &fx.api
        } else {
            &anon
        };
        let Some(r) = send_raw(&http, client, method, &path, body.clone(), &headers) else {
            // The server may answer and close before reading a large body it does not need;
            // the client then fails to write the rest. That is not a server error.
            assert!(
                body.len() > 16 * 1024,
                "#{i} {method} {path}: transport error"
            );
            continue;
        };
        answered += 1;
        let context = format!(
            "#{i} {method} {} auth={:?} ct={ct:?} idem={idem_key:?} body={:?}",
            &path[..path.len().min(80)],
            auth.as_deref().map(|a| &a[..a.len().min(40)]),
            String::from_utf8_lossy(&body[..body.len().min(60)])
        );
        assert!(r.status < 500, "{context}: {} {}", r.status, r.body);
        assert!(
            r.status != 200 || method == "GET" || method == "HEAD",
            "{context}: {}",
            r.body
        );
        let request_id = r.header("x-request-id").map(str::to_owned);
        assert!(
            request_id
                .as_deref()
                .is_some_and(|id| id.starts_with("req_")),
            "{context}: no X-Request-Id"
        );
        if r.status >= 400 && method != "HEAD" {
            assert!(
                r.body["error"].is_string() && r.body["message"].is_string(),
                "{context}: not an envelope: {}",
                r.body
            );
            assert_eq!(
                r.body["requestId"].as_str(),
                request_id.as_deref(),
                "{context}"
            );
        }
    }
    assert!(
        answered >= 250,
        "only {answered} of 300 requests were answered"
    );
    assert_eq!(fx.api.whoami()["callsign"], "W1AW");
    fx.assert_unchanged(&before);
}

crate::both_backends!(
    malformed_json_is_refused_and_changes_nothing,
    a_body_that_is_not_an_object_is_refused,
    a_body_without_the_json_content_type_is_refused,
    a_body_over_64_kib_is_refused,
    an_unknown_body_field_is_refused_by_name,
    every_required_contact_field_is_required_in_turn,
    fields_of_the_wrong_json_type_are_refused,
    bad_callsigns_are_refused,
    bad_frequencies_are_refused,
    bad_modes_are_refused,
    bad_times_on_are_refused,
    overlong_text_is_refused_and_the_limits_are_exact,
    control_characters_are_refused,
    malformed_folder_ids_are_refused_in_path_and_body,
    an_unknown_well_formed_folder_id_is_not_found,
    a_malformed_qso_id_on_delete_is_refused,
    a_limit_outside_1_to_200_is_refused,
    unknown_and_repeated_query_parameters_are_refused,
    unknown_query_parameters_on_writes_and_whoami_are_refused,
    a_bad_folder_type_filter_is_refused,
    bad_cursors_are_refused,
    a_bad_in_progress_value_is_refused,
    a_bad_idempotency_key_is_refused_before_anything_is_stored,
    bad_folder_creations_are_refused_and_no_folder_is_made,
    ending_a_non_activation_or_before_its_start_is_refused,
    a_burst_of_garbage_never_gets_a_server_error,
);
