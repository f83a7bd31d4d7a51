//! Usage errors and the shapes every failure takes: one stderr line, or the JSON envelope.

use super::{Cli, closed_port, setup};

#[test]
fn usage_errors_exit_2_in_both_shapes() {
    let cli = Cli::new(&closed_port());
    let cases: &[(&[&str], &str, &str)] = &[
        (&["contacts", "create"], "contacts create", "--folder"),
        (
            &["folders", "list", "--typ", "monthly"],
            "folders list",
            "--type",
        ),
        (&["whoami", "extra"], "whoami", "extra"),
        (&["nosuch"], "svc", "nosuch"),
        (&["folders"], "folders", "subcommand"),
        (&["whoami", "--json", "--ndjson"], "whoami", "--ndjson"),
        (&["whoami", "--quiet", "--verbose"], "whoami", "--quiet"),
    ];
    for (args, command, hint) in cases {
        let json = args.contains(&"--json");
        let run = cli.run(args);
        if json {
            let env = run.fails_json(2, command, "validation_error");
            assert!(
                env["message"].as_str().unwrap().contains(hint),
                "{args:?}: {env}"
            );
            continue;
        }
        let message = run.fails(2, command, "validation_error");
        assert!(message.contains(hint), "{args:?}: {message}");
        let env =
            cli.run(&[&args[..], &["--json"]].concat())
                .fails_json(2, command, "validation_error");
        assert!(env["message"].as_str().unwrap().contains(hint), "{env}");
        assert_eq!(env["status"], serde_json::Value::Null);
    }
}

fn ndjson_prints_one_object_on_one_line() {
    let (_server, api, cli) = setup("basic");
    let folder = super::monthly(&api);
    for args in [
        &["whoami", "--ndjson"][..],
        &["folders", "show", &folder, "--ndjson"],
        &["auth", "status", "--ndjson"],
    ] {
        let run = cli.run(args);
        run.ok();
        assert_eq!(run.stdout.lines().count(), 1, "{args:?}: {run:?}");
        let one: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
        assert!(one.is_object(), "{args:?}: {one}");
    }
}

fn a_server_error_carries_its_envelope_fields() {
    let (_server, _api, cli) = setup("basic");
    let run = cli.run(&[
        "contacts",
        "list",
        "--folder",
        "fld_aaaaaaaaaaaaaaaa",
        "--json",
    ]);
    let env = run.fails_json(1, "contacts list", "not_found");
    assert_eq!(env["status"], 404);
    assert_eq!(env["message"], "folder fld_aaaaaaaaaaaaaaaa not found");
    assert!(env["requestId"].as_str().unwrap().starts_with("req_"));
    assert_eq!(run.stderr.lines().count(), 1, "one envelope: {run:?}");
    let text = cli.run(&["contacts", "list", "--folder", "fld_aaaaaaaaaaaaaaaa"]);
    assert_eq!(
        text.stderr,
        "svc: contacts list: not_found: folder fld_aaaaaaaaaaaaaaaa not found\n"
    );
}

crate::both_backends!(
    ndjson_prints_one_object_on_one_line,
    a_server_error_carries_its_envelope_fields,
);
