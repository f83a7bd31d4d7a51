//! `svc contacts list|create|edit|delete`, and the exit codes their server errors map to.

use serde_json::{Value, json};

use super::{Cli, monthly, setup, setup_with};
use crate::common::contact;

fn create_sends_every_flag_and_defaults_time_on_to_now() {
    let (_server, api, cli) = setup("basic");
    let folder = monthly(&api);
    let before = svc::model::Timestamp::now();
    let run = cli.run(&[
        "contacts",
        "create",
        "--folder",
        &folder,
        "--callsign",
        "k1abc",
        "--frequency",
        "14074",
        "--mode",
        "ft8",
        "--rst-sent",
        "-12",
        "--rst-received",
        "+03",
        "--name",
        "Ann",
        "--notes",
        "first QSO",
        "--sig",
        "SOTA",
        "--sig-info",
        "W1/AA-001",
        "--json",
    ]);
    run.ok();
    let id = run.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(run.json(), json!({"id": id}));
    let stored = &api.contacts(&folder)[0];
    assert_eq!(stored["id"], id.as_str());
    assert_eq!(stored["callsign"], "K1ABC");
    assert_eq!(stored["frequency"], 14.074);
    assert_eq!(stored["band"], "20m");
    assert_eq!(stored["mode"], "FT8");
    assert_eq!(stored["rstSent"], "-12");
    assert_eq!(stored["rstReceived"], "+03");
    assert_eq!(stored["name"], "Ann");
    assert_eq!(stored["notes"], "first QSO");
    assert_eq!(stored["sig"], "SOTA");
    assert_eq!(stored["sigInfo"], "W1/AA-001");
    let time_on = svc::model::Timestamp::parse("t", stored["timeOn"].as_str().unwrap()).unwrap();
    let after = svc::model::Timestamp::now();
    assert!(before <= time_on && time_on <= after, "{time_on} not now");

    let text = cli.run(&[
        "contacts",
        "create",
        "--folder",
        &folder,
        "--callsign",
        "N0CALL",
        "--frequency",
        "7.074",
        "--mode",
        "FT8",
        "--time-on",
        &format!("{}", after),
    ]);
    text.ok();
    assert!(text.stdout.starts_with("created contact qso_"), "{text:?}");
    assert_eq!(api.qso_count(), 2);
}

fn a_duplicate_is_stored_and_flagged() {
    let (_server, api, cli) = setup("basic");
    let (month, _) = crate::common::this_month();
    let folder = api.monthly(&month, Some("pota"));
    let args = [
        "contacts",
        "create",
        "--folder",
        &folder,
        "--callsign",
        "K1ABC",
        "--frequency",
        "14.074",
        "--mode",
        "FT8",
        "--sig",
        "POTA",
        "--sig-info",
        "US-0001",
    ];
    let first = cli.run(&[&args[..], &["--json"]].concat());
    first.ok();
    let first_id = first.json()["id"].as_str().unwrap().to_owned();
    assert!(first.json().get("duplicateOf").is_none());
    let second = cli.run(&[&args[..], &["--json"]].concat());
    second.ok();
    assert_eq!(second.json()["duplicateOf"], first_id.as_str());
    let third = cli.run(&args);
    third.ok();
    assert!(
        third.stdout.starts_with("created contact qso_"),
        "{third:?}"
    );
    assert!(
        third.stderr.contains("warning") && third.stderr.contains(&first_id),
        "{third:?}"
    );
    assert_eq!(api.contacts(&folder).len(), 3);
}

fn bad_input_exits_2_before_anything_is_sent() {
    let (_server, api, cli) = setup("basic");
    let folder = monthly(&api);
    let offline = Cli::with_key(&_server, &api);
    offline.set_env("SVC_API_BASE", &super::closed_port());
    let base = [
        "contacts",
        "create",
        "--folder",
        folder.as_str(),
        "--callsign",
        "K1ABC",
        "--mode",
        "FT8",
    ];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        ([&base[..], &["--frequency", "abc"]].concat(), "e.g. 14.074"),
        ([&base[..], &["--frequency", "-3"]].concat(), "e.g. 14.074"),
        ([&base[..], &["--frequency", "0"]].concat(), "e.g. 14.074"),
        (
            [
                &base[..],
                &["--frequency", "14.074", "--time-on", "yesterday"],
            ]
            .concat(),
            "2026-11-22T14:05:00Z",
        ),
        (
            [
                &base[..],
                &["--frequency", "14.074", "--time-on", "2026-11-22T14:05:00"],
            ]
            .concat(),
            "UTC offset",
        ),
        (
            vec![
                "contacts",
                "create",
                "--folder",
                "fld_x",
                "--callsign",
                "K1ABC",
                "--mode",
                "FT8",
                "--frequency",
                "14.074",
            ],
            "fld_",
        ),
        (
            vec![
                "contacts",
                "create",
                "--folder",
                folder.as_str(),
                "--callsign",
                "K1ABC",
                "--frequency",
                "14.074",
            ],
            "--mode",
        ),
        (
            vec![
                "contacts",
                "create",
                "--folder",
                folder.as_str(),
                "--callsign",
                "!!",
                "--mode",
                "FT8",
                "--frequency",
                "14.074",
            ],
            "callsign",
        ),
        (
            vec![
                "contacts",
                "create",
                "--callsign",
                "K1ABC",
                "--mode",
                "FT8",
                "--frequency",
                "14.074",
            ],
            "--folder",
        ),
        (vec!["contacts", "list"], "--folder"),
        (
            vec![
                "contacts",
                "list",
                "--folder",
                folder.as_str(),
                "--limit",
                "0",
            ],
            "1 to 200",
        ),
        (
            vec![
                "contacts",
                "list",
                "--folder",
                folder.as_str(),
                "--limit",
                "201",
            ],
            "1 to 200",
        ),
        (
            vec![
                "contacts",
                "list",
                "--folder",
                folder.as_str(),
                "--limit",
                "ten",
            ],
            "1 to 200",
        ),
        (vec!["contacts", "delete", "qso_bad", "--yes"], "qso_"),
        (
            vec!["contacts", "create", "--folder", folder.as_str(), "--bogus"],
            "--bogus",
        ),
    ];
    for (args, hint) in cases {
        let command = format!("contacts {}", args[1]);
        let run = offline.run(&args);
        let message = run.fails(2, &command, "validation_error");
        assert!(message.contains(hint), "{args:?}: {message}");
        assert!(
            message.contains(&format!("svc help {command}")),
            "{message}"
        );
        let env = offline.run(&[&args[..], &["--json"]].concat()).fails_json(
            2,
            &command,
            "validation_error",
        );
        assert!(env["message"].as_str().unwrap().contains(hint), "{env}");
    }
    // The server refuses what only it can check, also with exit 2.
    let run = cli.run(&[&base[..], &["--frequency", "27.185"]].concat());
    let env_run = cli.run(&[&base[..], &["--frequency", "27.185", "--json"]].concat());
    assert!(
        run.fails(2, "contacts create", "validation_error")
            .contains("amateur band")
    );
    let env = env_run.fails_json(2, "contacts create", "validation_error");
    assert_eq!(env["status"], 400);
    assert_eq!(env["details"], json!({"field": "frequency"}));
    assert_eq!(api.qso_count(), 0);
}

fn list_pages_with_limit_and_cursor() {
    let (_server, api, cli) = setup("basic");
    let folder = monthly(&api);
    for i in 0..5 {
        assert_eq!(
            api.post("/v1/contacts", contact(&folder, &format!("K{i}AA")))
                .status,
            201
        );
    }
    let first = cli.run(&[
        "contacts", "list", "--folder", &folder, "--limit", "2", "--json",
    ]);
    first.ok();
    let page = first.json();
    assert_eq!(page["items"].as_array().unwrap().len(), 2);
    let cursor = page["cursor"].as_str().unwrap().to_owned();
    let mut seen: Vec<Value> = page["items"].as_array().unwrap().clone();

    let text = cli.run(&[
        "contacts", "list", "--folder", &folder, "--limit", "2", "--cursor", &cursor,
    ]);
    text.ok();
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{text:?}");
    assert!(lines[0].starts_with("TIME ON "), "{text:?}");
    assert!(
        lines[1].contains(" UTC  ") && lines[1].contains("14.074  20m   FT8"),
        "{text:?}"
    );
    assert!(
        text.stderr.contains("--cursor "),
        "the next page is named: {text:?}"
    );

    let nd = cli.run(&[
        "contacts", "list", "--folder", &folder, "--limit", "2", "--cursor", &cursor, "--ndjson",
    ]);
    nd.ok();
    let items: Vec<Value> = nd
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        nd.stderr.contains("--cursor "),
        "NDJSON names the next page too: {nd:?}"
    );
    assert_eq!(items.len(), 2);
    seen.extend(items);
    let next = cli
        .run(&[
            "contacts", "list", "--folder", &folder, "--limit", "2", "--cursor", &cursor, "--json",
        ])
        .json();
    let last = cli
        .run(&[
            "contacts",
            "list",
            "--folder",
            &folder,
            "--cursor",
            next["cursor"].as_str().unwrap(),
            "--json",
        ])
        .json();
    assert!(last.get("cursor").is_none(), "{last}");
    seen.extend(last["items"].as_array().unwrap().iter().cloned());
    let mut ids: Vec<&str> = seen.iter().map(|c| c["id"].as_str().unwrap()).collect();
    ids.dedup();
    assert_eq!(ids.len(), 5);
    assert_eq!(seen, api.contacts(&folder));

    let run = cli.run(&["contacts", "list", "--folder", "fld_aaaaaaaaaaaaaaaa"]);
    assert!(
        run.fails(1, "contacts list", "not_found")
            .contains("fld_aaaaaaaaaaaaaaaa")
    );
}

fn delete_needs_yes_without_a_terminal_and_deletes_nothing_without_it() {
    let (_server, api, cli) = setup("elevated");
    let folder = monthly(&api);
    let id = api.post("/v1/contacts", contact(&folder, "K1ABC")).id();
    // stdin is a pipe here, not a terminal.
    let run = cli.run_stdin(&["contacts", "delete", &id], "y\n");
    let message = run.fails(2, "contacts delete", "validation_error");
    assert!(message.contains("--yes"), "{message}");
    assert_eq!(api.contacts(&folder).len(), 1);

    let run = cli.run(&["contacts", "delete", &id, "--yes", "--json"]);
    run.ok();
    assert_eq!(run.json(), json!({"id": id, "success": true}));
    assert_eq!(api.contacts(&folder).len(), 0);

    let again = cli.run(&["contacts", "delete", &id, "--yes"]);
    assert!(again.fails(1, "contacts delete", "not_found").contains(&id));
    let other = api.post("/v1/contacts", contact(&folder, "K2ABC")).id();
    let text = cli.run(&["contacts", "delete", &other, "--yes"]);
    text.ok();
    assert_eq!(text.stdout, format!("deleted contact {other}\n"));
}

fn delete_with_a_basic_key_exits_5() {
    let (_server, api, cli) = setup("basic");
    let folder = monthly(&api);
    let id = api.post("/v1/contacts", contact(&folder, "K1ABC")).id();
    let run = cli.run(&["contacts", "delete", &id, "--yes"]);
    assert!(
        run.fails(5, "contacts delete", "tier_insufficient")
            .contains("elevated")
    );
    let env = cli
        .run(&["contacts", "delete", &id, "--yes", "--json"])
        .fails_json(5, "contacts delete", "tier_insufficient");
    assert_eq!(env["status"], 403);
    assert_eq!(env["details"], json!({"required": "elevated"}));
    assert_eq!(api.contacts(&folder).len(), 1);
}

fn the_free_plan_cap_exits_6() {
    let (_server, api, cli) = setup_with("basic", &["--free-plan-cap", "1"]);
    let folder = monthly(&api);
    let args = [
        "contacts",
        "create",
        "--folder",
        folder.as_str(),
        "--callsign",
        "K1ABC",
        "--frequency",
        "14.074",
        "--mode",
        "FT8",
    ];
    cli.run(&args).ok();
    let run = cli.run(&args);
    run.fails(6, "contacts create", "qso_cap_reached");
    let env = cli.run(&[&args[..], &["--json"]].concat()).fails_json(
        6,
        "contacts create",
        "qso_cap_reached",
    );
    assert_eq!(env["status"], 402);
    assert_eq!(env["details"]["cap"], 1);
    assert_eq!(api.qso_count(), 1);
}

fn a_spent_daily_budget_exits_4_without_waiting_for_midnight() {
    let (_server, api, cli) = setup_with("basic", &["--daily-contact-budget", "1"]);
    let folder = monthly(&api);
    let args = [
        "contacts",
        "create",
        "--folder",
        folder.as_str(),
        "--callsign",
        "K1ABC",
        "--frequency",
        "14.074",
        "--mode",
        "FT8",
    ];
    cli.run(&args).ok();
    let run = cli.run(&[&args[..], &["--json", "--verbose"]].concat());
    if run.code == 0 {
        // Within the last minute of the UTC day the wait is short enough to take, and the
        // new day's budget lets the one retry through.
        assert!(run.stderr.contains("rate limited, Retry-After"), "{run:?}");
        return;
    }
    let env = run.fails_json(4, "contacts create", "rate_limited");
    assert_eq!(env["status"], 429);
    assert_eq!(env["details"]["reason"], "daily_logbook_budget");
    let wait = env["retryAfter"].as_u64().unwrap();
    assert!(wait > 60, "{env}");
    // Too long to wait out: reported at once, after one attempt.
    assert_eq!(run.stderr.matches("svc: attempt ").count(), 1, "{run:?}");
    assert_eq!(api.qso_count(), 1);
}

fn a_spent_lifetime_budget_exits_4_and_is_never_retried() {
    let (_server, api, cli) = setup_with("basic", &["--lifetime-contact-budget", "1"]);
    let folder = monthly(&api);
    let args = [
        "contacts",
        "create",
        "--folder",
        folder.as_str(),
        "--callsign",
        "K1ABC",
        "--frequency",
        "14.074",
        "--mode",
        "FT8",
    ];
    cli.run(&args).ok();
    let run = cli.run(&[&args[..], &["--verbose"]].concat());
    run.fails(4, "contacts create", "rate_limited");
    assert_eq!(run.stderr.matches("svc: attempt ").count(), 1, "{run:?}");
    assert!(!run.stderr.contains("retrying"), "{run:?}");
}

fn edit_changes_clears_and_answers_like_create() {
    let (server, api, cli) = setup("elevated");
    let (month, _) = crate::common::this_month();
    let folder = api.monthly(&month, Some("pota"));
    let hunted = |call: &str| {
        let mut body = contact(&folder, call);
        body["sig"] = json!("POTA");
        body["sigInfo"] = json!("US-0001");
        body["notes"] = json!("copied badly");
        body["name"] = json!("Ann");
        body
    };
    let first = api.post("/v1/contacts", hunted("K1ABC")).id();
    let busted = api.post("/v1/contacts", hunted("K1ABD")).id();

    let run = cli.run(&[
        "contacts",
        "edit",
        &busted,
        "--callsign",
        "k1abc",
        "--clear",
        "notes",
        "--clear",
        "name",
        "--rst-sent",
        "-12",
        "--json",
    ]);
    run.ok();
    let edited = run.json();
    assert_eq!(edited["id"], busted.as_str());
    assert_eq!(edited["callsign"], "K1ABC");
    assert!(
        edited["notes"].is_null() && edited["name"].is_null(),
        "{edited}"
    );
    assert_eq!(edited["rstSent"], "-12");
    assert_eq!(edited["sigInfo"], "US-0001");
    assert_eq!(edited["duplicateOf"], first.as_str());
    assert!(edited.get("replayed").is_none(), "{edited}");
    let listed = api.contacts(&folder);
    let stored = listed.iter().find(|c| c["id"] == busted.as_str()).unwrap();
    assert_eq!(stored, &edited);
    // The list carries duplicateOf on a duplicate, and leaves it out (never null) elsewhere.
    let list = cli.run(&["contacts", "list", "--folder", &folder, "--json"]);
    list.ok();
    let items = list.json()["items"].as_array().unwrap().clone();
    let by_id = |id: &str| items.iter().find(|c| c["id"] == id).unwrap().clone();
    assert_eq!(by_id(&busted)["duplicateOf"], first.as_str());
    assert!(by_id(&first).get("duplicateOf").is_none(), "{items:?}");

    // Text: the id, and a warning when the edit made a duplicate.
    let text = cli.run(&["contacts", "edit", &busted, "--mode", "cw"]);
    text.ok();
    assert_eq!(text.stdout, format!("edited contact {busted}\n"));
    assert!(!text.stderr.contains("warning"), "{text:?}");
    let text = cli.run(&[
        "contacts",
        "edit",
        &busted,
        "--mode",
        "FT8",
        "--frequency",
        "14074",
    ]);
    text.ok();
    assert!(
        text.stderr.contains("warning") && text.stderr.contains(&first),
        "{text:?}"
    );
    let quiet = cli.run(&["contacts", "edit", &busted, "--notes", "fixed", "--quiet"]);
    quiet.ok();
    assert_eq!(quiet.stdout, format!("{busted}\n"));
    assert!(quiet.stderr.is_empty(), "{quiet:?}");

    // Refused before anything is sent: nothing to change, a contradiction, bad values.
    let before = api.contacts(&folder);
    let bad: [&[&str]; 5] = [
        &[],
        &["--notes", "x", "--clear", "notes"],
        &["--clear", "callsign"],
        &["--frequency", "abc"],
        &["--time-on", "2026-11-22 14:05"],
    ];
    for flags in bad {
        let run = cli.run(&[&["contacts", "edit", busted.as_str()], flags].concat());
        assert_eq!(run.code, 2, "{flags:?}: {run:?}");
    }
    let message =
        cli.run(&["contacts", "edit", &busted])
            .fails(2, "contacts edit", "validation_error");
    assert!(message.contains("nothing to change"), "{message}");
    let message = cli
        .run(&[
            "contacts", "edit", &busted, "--name", "Bo", "--clear", "name",
        ])
        .fails(2, "contacts edit", "validation_error");
    assert!(message.contains("contradict"), "{message}");
    // Refused by the service: the folder's rules, an unknown contact, a basic key.
    let message = cli
        .run(&[
            "contacts",
            "edit",
            &busted,
            "--time-on",
            "2020-01-15T12:00:00Z",
        ])
        .fails(2, "contacts edit", "validation_error");
    assert!(message.contains("2020-01"), "{message}");
    let env = cli
        .run(&["contacts", "edit", &busted, "--sig", "DX", "--json"])
        .fails_json(2, "contacts edit", "validation_error");
    assert_eq!(env["details"], json!({"field": "sig"}));
    let gone = "qso_aaaaaaaaaaaaaaaa";
    let message = cli
        .run(&["contacts", "edit", gone, "--callsign", "K1ABC"])
        .fails(1, "contacts edit", "not_found");
    assert!(message.contains(gone), "{message}");
    let basic = Cli::with_key(&server, &server.new_key("W1AW", "basic"));
    let env = basic
        .run(&["contacts", "edit", &busted, "--callsign", "K1ABC", "--json"])
        .fails_json(5, "contacts edit", "tier_insufficient");
    assert_eq!(env["details"], json!({"required": "elevated"}));
    assert_eq!(api.contacts(&folder), before, "no refusal changed anything");
}

/// `--idempotency-key` makes a run again answer the first create instead of storing a second
/// contact; `-y` is `--yes`.
fn a_given_idempotency_key_makes_a_rerun_answer_the_first() {
    let (_server, api, cli) = setup("elevated");
    let folder = monthly(&api);
    let (_, time_on) = crate::common::this_month();
    let create = |key: &str| {
        cli.run(&[
            "contacts",
            "create",
            "--folder",
            &folder,
            "--callsign",
            "K1ABC",
            "--frequency",
            "14.074",
            "--mode",
            "FT8",
            "--time-on",
            &time_on,
            "--idempotency-key",
            key,
            "--json",
        ])
    };
    let first = create("run-1f0c7a8e");
    first.ok();
    let again = create("run-1f0c7a8e");
    again.ok();
    assert_eq!(again.json()["id"], first.json()["id"]);
    assert_eq!(again.json()["replayed"], true);
    assert_eq!(api.contacts(&folder).len(), 1);
    let bad = cli.run(&[
        "contacts",
        "create",
        "--folder",
        &folder,
        "--callsign",
        "K1ABC",
        "--frequency",
        "14.074",
        "--mode",
        "FT8",
        "--idempotency-key",
        "has space",
    ]);
    assert!(
        bad.fails(2, "contacts create", "validation_error")
            .contains("idempotency key")
    );
    let activation = |key: &str| {
        cli.run(&[
            "activations",
            "create",
            "--reference",
            "US-1234",
            "--callsign",
            "W1AW",
            "--idempotency-key",
            key,
            "--json",
        ])
    };
    let started = activation("act-77aa");
    started.ok();
    let replayed = activation("act-77aa");
    replayed.ok();
    assert_eq!(replayed.json()["id"], started.json()["id"]);
    assert_eq!(replayed.json()["replayed"], true);
    let id = first.json()["id"].as_str().unwrap().to_owned();
    cli.run(&["contacts", "delete", &id, "-y"]).ok();
    assert!(api.contacts(&folder).is_empty());
}

crate::both_backends!(
    a_given_idempotency_key_makes_a_rerun_answer_the_first,
    create_sends_every_flag_and_defaults_time_on_to_now,
    a_duplicate_is_stored_and_flagged,
    bad_input_exits_2_before_anything_is_sent,
    list_pages_with_limit_and_cursor,
    delete_needs_yes_without_a_terminal_and_deletes_nothing_without_it,
    delete_with_a_basic_key_exits_5,
    edit_changes_clears_and_answers_like_create,
    the_free_plan_cap_exits_6,
    a_spent_daily_budget_exits_4_without_waiting_for_midnight,
    a_spent_lifetime_budget_exits_4_and_is_never_retried,
);
