//! Every field of a contact on every surface: the wire type both ways, the service's reading
//! of a body, ADIF out and back in, the `svc contacts` flags and the MCP tool's schema. The
//! fields are the model's two tables (model::seed for the seed's, model::fields for the rest),
//! so a field added to a table and missed by a surface fails here, and a limit a surface
//! writes for itself fails when it differs from the table's.

use serde_json::{Value, json};

use svc::model::fields::{Def, FIELDS, Fields, FieldsPatch, Kind};
use svc::model::seed::{SEED, Seed, snake_case};
use svc::model::{ContactInput, ContactPatch, Timestamp};

use crate::common::{Server, contact, this_month};

/// A value of `def`'s kind that its check takes, in its stored form.
fn sample(def: &Def) -> String {
    let raw = match def.kind {
        Kind::Text(_) | Kind::Lines(_) => "tnx".to_owned(),
        Kind::Upper(_) => "AB-12".to_owned(),
        Kind::Call => "K1ABC".to_owned(),
        Kind::Grid => "FN31pr".to_owned(),
        Kind::Integer(lo, hi) => ((lo + hi) / 2).to_string(),
        Kind::Number(lo, _) => (lo + 5.0).to_string(),
        Kind::Choice(values) => values[0].to_owned(),
        Kind::Date => "2026-11-01".to_owned(),
        Kind::Instant => "2026-11-01T12:30:00Z".to_owned(),
        Kind::Band => "70cm".to_owned(),
    };
    def.check(&raw)
        .unwrap_or_else(|e| panic!("{}: {}", def.wire, e.message))
        .unwrap_or_else(|| panic!("{}: no value", def.wire))
}

fn every_declared_field() -> Fields {
    let mut fields = Fields::default();
    for def in FIELDS {
        fields.set(def.field, Some(sample(def)));
    }
    fields
}

/// A contact with every field of both tables given.
fn full_contact() -> ContactInput {
    ContactInput {
        folder_id: "fld_aaaaaaaaaaaaaaaa".into(),
        callsign: "DL1ABC".into(),
        frequency: 14.074,
        mode: "FT8".into(),
        time_on: "2026-11-01T12:00:00Z".into(),
        rst_sent: Some("-10".into()),
        rst_received: Some("-12".into()),
        name: Some("Hans".into()),
        notes: Some("tnx fer QSO".into()),
        sig: Some("POTA".into()),
        sig_info: Some("DE-0001".into()),
        my_sig: Some("POTA".into()),
        my_sig_info: Some("US-0001".into()),
        station_callsign: Some("W1AW/P".into()),
        activation_id: Some("fld_bbbbbbbbbbbbbbbb".into()),
        fields: every_declared_field(),
        from_file: false,
    }
}

fn keys(value: &Value) -> Vec<&str> {
    value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

#[test]
fn the_wire_type_carries_every_field_both_ways() {
    let full = full_contact();
    let body = serde_json::to_value(&full).unwrap();
    let sent = keys(&body);
    for seed in SEED {
        assert!(sent.contains(&seed.wire), "{} not sent: {body}", seed.wire);
    }
    for def in FIELDS {
        assert!(sent.contains(&def.wire), "{} not sent: {body}", def.wire);
    }
    let back: ContactInput = serde_json::from_value(body).unwrap();
    assert_eq!(back, full);

    // An edit names each field it changes, and sends a cleared one as null.
    let mut values = std::collections::BTreeMap::new();
    for def in FIELDS {
        values.insert(def.field, None);
    }
    let patch = ContactPatch {
        folder_id: Some(full.folder_id.clone()),
        callsign: Some(full.callsign.clone()),
        frequency: Some(full.frequency),
        mode: Some(full.mode.clone()),
        time_on: Some(full.time_on.clone()),
        rst_sent: Some(None),
        rst_received: Some(None),
        name: Some(None),
        notes: Some(None),
        sig: Some(None),
        sig_info: Some(None),
        my_sig: Some(None),
        my_sig_info: Some(None),
        station_callsign: Some(None),
        activation_id: Some(None),
        fields: FieldsPatch {
            values,
            ..FieldsPatch::default()
        },
        entity: None,
    };
    let body = serde_json::to_value(&patch).unwrap();
    for wire in SEED
        .iter()
        .map(|s| s.wire)
        .chain(FIELDS.iter().map(|d| d.wire))
    {
        assert!(body.get(wire).is_some(), "{wire} not in the edit: {body}");
    }
    assert_eq!(body["name"], Value::Null);
}

#[test]
fn the_service_reads_every_field_of_a_contact_body() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    // The POTA hunting log, which takes the worked park the full contact names.
    let folder = api.monthly(&this_month().0, Some("pota"));
    // The refusal of an unknown field lists what the endpoint takes.
    let mut body = contact(&folder, "DL1ABC");
    body["nonsense"] = json!(1);
    for (method, path) in [
        ("POST", "/v1/contacts".to_owned()),
        ("PATCH", "/v1/contacts/qso_aaaaaaaaaaaaaaaa".to_owned()),
    ] {
        let r = api.send(method, &path, Some(&body), &[]);
        assert_eq!(r.status, 400, "{method} {}", r.body);
        let message = r.body["message"].as_str().unwrap();
        let (_, taken) = message
            .split_once("this endpoint takes ")
            .unwrap_or_else(|| panic!("{message}"));
        let taken: Vec<&str> = taken.split(", ").collect();
        for wire in SEED
            .iter()
            .map(|s| s.wire)
            .chain(FIELDS.iter().map(|d| d.wire))
        {
            assert!(
                taken.contains(&wire),
                "{method} does not take {wire}: {message}"
            );
        }
    }
    // And a contact with every field the caller gives comes back with each.
    let mut full = serde_json::to_value(full_contact()).unwrap();
    let object = full.as_object_mut().unwrap();
    object.remove("activationId");
    object.remove("mySig");
    object.remove("mySigInfo");
    full["folderId"] = json!(folder);
    full["timeOn"] = json!(this_month().1);
    let r = api.post("/v1/contacts", full.clone());
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.id();
    let stored = api
        .contacts(&folder)
        .into_iter()
        .find(|c| c["id"] == id)
        .unwrap();
    for key in keys(&full) {
        assert!(stored.get(key).is_some(), "{key} not stored: {stored}");
    }
}

#[test]
fn adif_writes_every_field_and_reads_it_back() {
    let sent = full_contact();
    let mut contact = sent.pending("qso_aaaaaaaaaaaaaaaa", Timestamp::now());
    contact.station_callsign = sent.station_callsign.clone();
    let record = svc::adif::contact::record_for(&contact, "W1AW");
    let names: Vec<&str> = record.fields.iter().map(|(n, _)| n.as_str()).collect();
    for seed in SEED.iter().filter(|s| !s.adif.is_empty()) {
        assert!(
            names.contains(&seed.adif),
            "{} not written: {names:?}",
            seed.adif
        );
    }
    for def in FIELDS {
        assert!(
            names.contains(&def.adif),
            "{} not written: {names:?}",
            def.adif
        );
    }
    let read = svc::adif::contact::imported(&record).unwrap().contact;
    let expected = ContactInput {
        folder_id: String::new(),
        activation_id: None,
        from_file: true,
        ..sent
    };
    assert_eq!(read, expected);
}

/// The long flags of `svc contacts <name>`, with their help.
fn flags(name: &str) -> Vec<(String, String)> {
    let root = svc::cmd::command();
    let contacts = root.find_subcommand("contacts").unwrap();
    let command = contacts.find_subcommand(name).unwrap();
    command
        .get_arguments()
        .filter_map(|a| {
            let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
            a.get_long().map(|l| (l.to_owned(), help))
        })
        .collect()
}

/// The seed's fields a person gives: those with a flag.
fn given() -> impl Iterator<Item = &'static Seed> {
    SEED.iter().filter(|s| !s.flag.is_empty())
}

#[test]
fn svc_contacts_has_a_flag_for_every_field_a_person_gives() {
    let create = flags("create");
    for seed in given() {
        let help = create.iter().find(|(l, _)| l == seed.flag);
        assert_eq!(
            help.map(|(_, h)| h.as_str()),
            Some(seed.help),
            "create --{}",
            seed.flag
        );
    }
    let edit = flags("edit");
    // An edit keeps the contact in its folder.
    for seed in given().filter(|s| s.wire != "folderId") {
        assert!(
            edit.iter().any(|(l, _)| l == seed.flag),
            "edit --{}",
            seed.flag
        );
    }
    for def in FIELDS.iter().filter(|d| d.common) {
        for (name, taken) in [("create", &create), ("edit", &edit)] {
            assert!(
                taken.iter().any(|(l, _)| l == def.flag),
                "{name} --{}",
                def.flag
            );
        }
    }
    // `--clear` takes every optional one.
    let clearable = svc::cli::fields::clearable();
    for seed in given().filter(|s| !s.required) {
        assert!(clearable.contains(&seed.flag), "--clear {}", seed.flag);
    }
}

#[test]
fn the_mcp_tool_takes_every_field_a_person_gives_with_the_tables_limits() {
    let tool = svc::mcp::tools::describe("create_contact").unwrap();
    let schema = serde_json::to_value(&tool.input_schema).unwrap();
    let properties = &schema["properties"];
    for seed in given() {
        let name = snake_case(seed.wire);
        let property = properties
            .get(&name)
            .unwrap_or_else(|| panic!("create_contact has no {name}: {properties}"));
        if seed.max > 0 {
            assert_eq!(property["maxLength"], seed.max, "{name}");
        }
    }
    for def in FIELDS.iter().filter(|d| d.common) {
        let name = def.adif.to_ascii_lowercase();
        let property = properties
            .get(&name)
            .unwrap_or_else(|| panic!("create_contact has no {name}: {properties}"));
        if let Kind::Text(max) | Kind::Lines(max) | Kind::Upper(max) = def.kind {
            assert_eq!(property["maxLength"], max, "{name}");
        }
    }
}
