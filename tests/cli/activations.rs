//! `svc activations list|create|add-park|end`.

use serde_json::json;

use super::{Cli, setup, setup_with};

fn create_finds_or_makes_the_activation() {
    let (_server, api, cli) = setup("basic");
    let run = cli.run(&[
        "activations",
        "create",
        "--reference",
        " us-1234 ",
        "--callsign",
        "w1aw",
        "--location-name",
        "Test Park",
        "--json",
    ]);
    run.ok();
    let made = run.json();
    assert_eq!(made["created"], true);
    assert_eq!(made["locationReference"], "US-1234");
    assert_eq!(made["locationName"], "Test Park");
    assert_eq!(made["type"], "activation");
    let id = made["id"].as_str().unwrap().to_owned();
    let name = made["name"].as_str().unwrap().to_owned();
    assert!(name.starts_with("W1AW@US-1234-"), "{name}");
    let again = cli.run(&[
        "activations",
        "create",
        "--reference",
        "US-1234",
        "--callsign",
        "W1AW",
    ]);
    again.ok();
    assert_eq!(
        again.stdout,
        format!("found existing activation {name} ({id})\n")
    );
    let json_again = cli.run(&[
        "activations",
        "create",
        "--reference",
        "US-1234",
        "--callsign",
        "W1AW",
        "--json",
    ]);
    assert_eq!(json_again.json()["created"], false);
    assert_eq!(json_again.json()["id"], id.as_str());
    let other = cli.run(&[
        "activations",
        "create",
        "--reference",
        "US-5",
        "--callsign",
        "W1AW",
        "--start-time",
        "2026-01-02T03:04:05Z",
    ]);
    other.ok();
    assert!(
        other
            .stdout
            .starts_with("created activation W1AW@US-5-20260102 (fld_"),
        "{other:?}"
    );
    assert_eq!(api.folders("activation").len(), 2);
}

fn create_refuses_bad_input_locally_and_hunting_programs_on_the_server() {
    let (server, api, cli) = setup("basic");
    let offline = Cli::with_key(&server, &api);
    offline.set_env("SVC_API_BASE", &super::closed_port());
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "activations",
                "create",
                "--reference",
                "US1234",
                "--callsign",
                "W1AW",
            ],
            "e.g. US-1234",
        ),
        (
            &["activations", "create", "--callsign", "W1AW"],
            "--reference",
        ),
        (
            &["activations", "create", "--reference", "US-1"],
            "--callsign",
        ),
        (
            &[
                "activations",
                "create",
                "--reference",
                "US-1",
                "--callsign",
                "W1AW",
                "--start-time",
                "noon",
            ],
            "2026-11-22T14:05:00Z",
        ),
        (&["activations", "end", "fld_1"], "fld_"),
        (
            &[
                "activations",
                "end",
                "fld_aaaaaaaaaaaaaaaa",
                "--end-time",
                "later",
            ],
            "UTC offset",
        ),
    ];
    for (args, hint) in cases {
        let command = format!("activations {}", args[1]);
        let message = offline.run(args).fails(2, &command, "validation_error");
        assert!(message.contains(hint), "{args:?}: {message}");
    }
    let run = cli.run(&[
        "activations",
        "create",
        "--reference",
        "US-1",
        "--callsign",
        "W1AW",
        "--program",
        "dx",
    ]);
    assert!(
        run.fails(2, "activations create", "validation_error")
            .contains("does not support activations")
    );
    assert_eq!(api.folders("activation").len(), 0);
}

fn end_ends_once() {
    let (_server, api, cli) = setup("basic");
    let id = api.activation("US-1234", "W1AW");
    let run = cli.run(&["activations", "end", &id, "--json"]);
    run.ok();
    assert_eq!(run.json()["id"], id.as_str());
    assert!(run.json()["endTime"].is_string());
    let again = cli.run(&["activations", "end", &id]);
    assert!(
        again
            .fails(2, "activations end", "validation_error")
            .contains("ended already")
    );
    let other = api.activation("US-5", "W1AW");
    let text = cli.run(&[
        "activations",
        "end",
        &other,
        "--end-time",
        &svc::model::Timestamp::now().to_string(),
    ]);
    text.ok();
    assert!(
        text.stdout.starts_with("ended activation W1AW@US-5-"),
        "{text:?}"
    );
    let missing = cli.run(&["activations", "end", "fld_aaaaaaaaaaaaaaaa"]);
    missing.fails(1, "activations end", "not_found");
}

/// `add-park`: the activation at more parks, every contact with it; a basic key, a bad park
/// and a missing activation are refused with their exit codes.
fn add_park_makes_a_two_fer() {
    let (server, api, cli) = setup("elevated");
    let id = api.activation("US-1234", "W1AW");
    assert_eq!(
        api.post("/v1/contacts", crate::common::contact(&id, "K1ABC"))
            .status,
        201
    );
    let bad = cli.run(&["activations", "add-park", &id, "US5678"]);
    assert_eq!(bad.code, 2, "{bad:?}");
    assert!(bad.stderr.contains("not a park reference"), "{bad:?}");
    let basic = Cli::with_key(&server, &server.new_key("W1AW", "basic"));
    basic
        .run(&["activations", "add-park", &id, "US-5678"])
        .fails(5, "activations add-park", "tier_insufficient");
    cli.run(&["activations", "add-park", "fld_aaaaaaaaaaaaaaaa", "US-5678"])
        .fails(1, "activations add-park", "not_found");
    let run = cli.run(&["activations", "add-park", &id, "us-5678"]);
    run.ok();
    assert!(
        run.stdout.starts_with("activation W1AW@US-1234,US-5678-"),
        "{run:?}"
    );
    assert!(
        run.stdout
            .contains("is at US-1234,US-5678: each of its 1 contacts"),
        "{run:?}"
    );
    assert_eq!(api.all_contacts(&id)[0]["mySigInfo"], "US-1234,US-5678");
    let json = cli
        .run(&["activations", "add-park", &id, "US-9012", "--json"])
        .json();
    assert_eq!(json["locationReference"], "US-1234,US-5678,US-9012");
    assert_eq!(json["id"], id.as_str());
}

fn list_in_progress_follows_the_cursor_through_empty_pages() {
    let (_server, api, cli) = setup_with("basic", &["--burst-limit", "100000"]);
    // Three old activations in progress, then 250 newer ones that ended: newest first, the
    // first scanned page of 200 holds no activation in progress.
    let mut open = Vec::new();
    for i in 0..3 {
        let r = api.post(
            "/v1/activations",
            json!({"locationReference": format!("K-{i}"), "callsign": "W1AW",
                   "startTime": format!("2020-01-0{}T00:00:00Z", i + 1)}),
        );
        assert_eq!(r.status, 201, "{}", r.body);
        open.push(r.id());
    }
    for i in 0..250 {
        let id = api.activation(&format!("US-{i}"), "W1AW");
        assert_eq!(
            api.post(&format!("/v1/activations/{id}/end"), json!({}))
                .status,
            200
        );
    }
    let first = api.get("/v1/activations?inProgress=true&limit=200");
    assert_eq!(
        first.body["items"].as_array().unwrap().len(),
        0,
        "{}",
        first.body
    );
    assert!(first.body["cursor"].is_string());

    let run = cli.run(&["activations", "list", "--in-progress", "--json"]);
    run.ok();
    let items = run.json()["items"].as_array().unwrap().clone();
    let ids: Vec<&str> = items.iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        open.iter().rev().map(String::as_str).collect::<Vec<_>>()
    );
    assert!(run.json().get("cursor").is_none());

    let nd = cli.run(&["activations", "list", "--in-progress", "--ndjson"]);
    nd.ok();
    assert_eq!(nd.stdout.lines().count(), 3);
    let text = cli.run(&["activations", "list", "--in-progress"]);
    text.ok();
    assert_eq!(text.stdout.lines().count(), 4, "{text:?}");
    assert!(
        text.stdout
            .lines()
            .skip(1)
            .all(|l| l.contains("in progress")),
        "{text:?}"
    );
    assert_eq!(text.stderr, "svc: 3 activations in progress\n");

    let all = cli.run(&["activations", "list", "--json"]);
    assert_eq!(all.json()["items"].as_array().unwrap().len(), 253);
}

crate::both_backends!(
    add_park_makes_a_two_fer,
    create_finds_or_makes_the_activation,
    create_refuses_bad_input_locally_and_hunting_programs_on_the_server,
    end_ends_once,
    list_in_progress_follows_the_cursor_through_empty_pages,
);
