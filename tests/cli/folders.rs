//! `svc folders list|show|create`.

use serde_json::{Value, json};

use super::{monthly, setup, setup_with};
use crate::common::this_month;

fn list_prints_a_table_json_and_ndjson() {
    let (_server, api, cli) = setup("basic");
    let folder = monthly(&api);
    let run = cli.run(&["folders", "list"]);
    run.ok();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{run:?}");
    assert!(lines[0].starts_with("ID "), "{run:?}");
    assert!(lines[0].ends_with("  NAME"), "{run:?}");
    assert!(lines[1].ends_with("All Contacts"), "{run:?}");
    assert!(lines[5].starts_with(&folder), "{run:?}");
    // Columns line up: NAME starts at the same place on every line.
    let at = lines[0].find("NAME").unwrap();
    assert!(
        lines
            .iter()
            .skip(1)
            .all(|l| l.len() > at && &l[at - 2..at] == "  ")
    );
    assert!(
        !run.stdout.contains('\x1b'),
        "colour without a terminal: {run:?}"
    );

    let json = cli.run(&["folders", "list", "--json"]).json();
    let items = json["items"].as_array().unwrap();
    assert_eq!(items.len(), 5);
    assert!(json.get("cursor").is_none(), "{json}");
    assert_eq!(items[4]["id"], folder.as_str());
    assert_eq!(items[4]["type"], "monthly");
    // The records are the server's, field for field.
    assert_eq!(
        json["items"],
        api.get("/v1/folders?limit=200").body["items"]
    );

    let nd = cli.run(&["folders", "list", "--ndjson"]);
    nd.ok();
    let lines: Vec<Value> = nd
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines, *items);
}

fn list_filters_by_type_and_refuses_a_bad_type() {
    let (_server, api, cli) = setup("basic");
    let folder = monthly(&api);
    let json = cli
        .run(&["folders", "list", "--type", "monthly", "--json"])
        .json();
    assert_eq!(json["items"].as_array().unwrap().len(), 1);
    assert_eq!(json["items"][0]["id"], folder.as_str());
    let json = cli
        .run(&["--json", "folders", "list", "--type", "category"])
        .json();
    assert_eq!(json["items"].as_array().unwrap().len(), 4);

    let run = cli.run(&["folders", "list", "--type", "bogus"]);
    let message = run.fails(2, "folders list", "validation_error");
    assert!(
        message.contains("activation")
            && message.contains("category")
            && message.contains("monthly"),
        "{message}"
    );
    let env = cli
        .run(&["folders", "list", "--type", "bogus", "--json"])
        .fails_json(2, "folders list", "validation_error");
    assert_eq!(env["status"], Value::Null);
}

fn show_follows_the_cursor_through_every_page() {
    let (_server, api, cli) = setup_with("basic", &["--burst-limit", "100000"]);
    // More folders than one page of 200 holds.
    let mut last = String::new();
    for i in 0..205 {
        let r = api.post(
            "/v1/folders",
            json!({"type": "category", "name": format!("cat {i}")}),
        );
        assert_eq!(r.status, 201, "{}", r.body);
        last = r.id();
    }
    let first_page = api.get("/v1/folders?limit=200");
    assert!(first_page.body["cursor"].is_string());
    assert!(
        !first_page.body["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["id"] == last.as_str())
    );

    let run = cli.run(&["folders", "show", &last, "--json"]);
    run.ok();
    assert_eq!(run.json()["id"], last.as_str());
    assert_eq!(run.json()["name"], "cat 204");
    let text = cli.run(&["folders", "show", &last]);
    text.ok();
    assert!(
        text.stdout
            .contains(&format!("ID: {last}\nName: cat 204\nType: category\n")),
        "{text:?}"
    );

    let list = cli.run(&["folders", "list", "--json"]).json();
    assert_eq!(list["items"].as_array().unwrap().len(), 209);
}

fn show_of_an_unknown_folder_exits_1() {
    let (_server, _api, cli) = setup("basic");
    let run = cli.run(&["folders", "show", "fld_aaaaaaaaaaaaaaaa"]);
    assert!(
        run.fails(1, "folders show", "not_found")
            .contains("fld_aaaaaaaaaaaaaaaa")
    );
    let run = cli.run(&["folders", "show", "nope"]);
    assert!(
        run.fails(2, "folders show", "validation_error")
            .contains("fld_")
    );
}

fn create_finds_or_makes_monthly_folders_and_makes_categories() {
    let (_server, api, cli) = setup("basic");
    let (month, _) = this_month();
    let run = cli.run(&[
        "folders",
        "create",
        "--type",
        "monthly",
        "--month",
        &month,
        "--program",
        "pota",
        "--json",
    ]);
    run.ok();
    let made = run.json();
    assert_eq!(made["created"], true);
    assert_eq!(made["name"], format!("POTA {month}"));
    assert_eq!(made["programId"], "pota");
    let id = made["id"].as_str().unwrap().to_owned();
    let again = cli.run(&[
        "folders",
        "create",
        "--type",
        "monthly",
        "--month",
        &month,
        "--program",
        "pota",
    ]);
    again.ok();
    assert_eq!(
        again.stdout,
        format!("found existing folder POTA {month} ({id})\n")
    );
    let quiet = cli.run(&[
        "folders", "create", "--type", "monthly", "--month", &month, "--quiet",
    ]);
    quiet.ok();
    let custom = quiet.stdout.trim();
    assert!(custom.starts_with("fld_") && custom != id, "{quiet:?}");

    let cat = cli.run(&[
        "folders",
        "create",
        "--type",
        "category",
        "--name",
        "Field day",
    ]);
    cat.ok();
    assert!(
        cat.stdout.starts_with("created folder Field day (fld_"),
        "{cat:?}"
    );
    let parent = cat
        .stdout
        .split('(')
        .nth(1)
        .unwrap()
        .trim_end_matches(")\n")
        .to_owned();
    let child = cli.run(&[
        "folders", "create", "--type", "category", "--name", "2026", "--parent", &parent, "--json",
    ]);
    assert_eq!(child.json()["parentId"], parent.as_str());
    assert_eq!(api.folders("category").len(), 6);
}

fn create_checks_its_flags_before_sending_anything() {
    let (_server, api, cli) = setup("basic");
    cli.set_env("SVC_API_BASE", &super::closed_port());
    let cases: &[&[&str]] = &[
        &["folders", "create", "--type", "monthly"],
        &[
            "folders", "create", "--type", "monthly", "--month", "2026-13",
        ],
        &[
            "folders", "create", "--type", "monthly", "--month", "2026-11", "--name", "x",
        ],
        &[
            "folders",
            "create",
            "--type",
            "monthly",
            "--month",
            "2026-11",
            "--program",
            "sota",
        ],
        &["folders", "create", "--type", "category"],
        &[
            "folders", "create", "--type", "category", "--name", "x", "--month", "2026-11",
        ],
        &[
            "folders", "create", "--type", "category", "--name", "x", "--parent", "root",
        ],
        &["folders", "create", "--type", "activation", "--name", "x"],
        &["folders", "create", "--name", "x"],
    ];
    for args in cases {
        let run = cli.run(args);
        let message = run.fails(2, "folders create", "validation_error");
        assert!(message.len() > 20, "{args:?}: {message}");
    }
    assert_eq!(api.folders("category").len(), 4);
    assert_eq!(api.folders("monthly").len(), 0);
}

crate::both_backends!(
    list_prints_a_table_json_and_ndjson,
    list_filters_by_type_and_refuses_a_bad_type,
    show_follows_the_cursor_through_every_page,
    show_of_an_unknown_folder_exits_1,
    create_finds_or_makes_monthly_folders_and_makes_categories,
    create_checks_its_flags_before_sending_anything,
);
