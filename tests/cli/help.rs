//! Help, version, the `--help-json` manifest, completions, the man page, closed pipes and
//! colour: none of them needs a key or the service.

use std::io::Read;
use std::process::Stdio;

use serde_json::Value;

use super::{Cli, closed_port, setup};

fn offline() -> Cli {
    Cli::new(&closed_port())
}

fn command<'a>(manifest: &'a Value, name: &str) -> &'a Value {
    manifest["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == name)
        .unwrap_or_else(|| panic!("no command {name} in the manifest"))
}

fn flag<'a>(command: &'a Value, name: &str) -> &'a Value {
    command["flags"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no flag {name} in {}", command["name"]))
}

#[test]
fn version_prints_the_package_version() {
    let run = offline().run(&["--version"]);
    run.ok();
    assert_eq!(run.stdout, "svc 0.2.0\n");
    assert_eq!(run.stderr, "");
}

#[test]
fn help_json_walks_the_real_command_tree() {
    let cli = offline();
    let run = cli.run(&["--help-json"]);
    run.ok();
    let m = run.json();
    assert_eq!(m["cli_version"], "0.2.0");
    assert_eq!(m["api_version"], "v1");
    let names: Vec<&str> = m["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    for expected in [
        "tui",
        "demo",
        "auth login",
        "auth set-key",
        "auth status",
        "auth logout",
        "auth panic-revoke",
        "whoami",
        "folders list",
        "folders show",
        "folders create",
        "contacts list",
        "contacts create",
        "contacts delete",
        "activations list",
        "activations create",
        "activations end",
        "outbox list",
        "outbox push",
        "outbox drop",
        "mcp",
        "help",
        "completions",
        "man",
        "server start",
        "server key create",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    let create = command(&m, "contacts create");
    let frequency = flag(create, "--frequency");
    assert_eq!(frequency["type"], "number");
    assert_eq!(frequency["required"], true);
    assert_eq!(flag(create, "--folder")["required"], true);
    assert_eq!(flag(create, "--time-on")["required"], false);
    assert_eq!(flag(create, "--json")["type"], "boolean");
    assert_eq!(flag(create, "--json")["global"], true);
    assert!(!create["examples"].as_array().unwrap().is_empty());
    let limit = flag(command(&m, "contacts list"), "--limit");
    assert_eq!(limit["type"], "integer");
    let program = flag(command(&m, "activations create"), "--program");
    assert_eq!(program["default"], "pota");
    let folder_type = flag(command(&m, "folders list"), "--type");
    assert_eq!(folder_type["type"], "enum");
    assert_eq!(
        folder_type["values"],
        serde_json::json!(["activation", "category", "monthly"])
    );
    let delete = command(&m, "contacts delete");
    assert_eq!(delete["args"][0]["required"], true);
    assert_eq!(flag(create, "--queue")["type"], "boolean");
    assert!(
        create["examples"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e.as_str().unwrap().contains("--queue"))
    );
    let drop = command(&m, "outbox drop");
    assert_eq!(drop["args"][0]["required"], true);
    assert_eq!(flag(drop, "--yes")["type"], "boolean");
    assert!(
        !command(&m, "outbox push")["examples"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert!(
        m["environment"]["XDG_DATA_HOME"]
            .as_str()
            .unwrap()
            .contains("journal")
    );
    let api_base = m["global_flags"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "--api-base")
        .unwrap();
    assert_eq!(api_base["env"], "SVC_API_BASE");
    let codes: Vec<u64> = m["exit_code_details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_u64().unwrap())
        .collect();
    assert_eq!(codes, (0..=8).collect::<Vec<_>>());
    assert_eq!(
        m["exit_code_details"][3]["errors"],
        serde_json::json!(["unauthorized", "key_revoked"])
    );
    assert_eq!(
        m["exit_code_details"][8]["errors"],
        serde_json::json!(["internal"])
    );

    // It reads as the published client's manifest does too: the command line as the name,
    // options by flag, exit codes by name, and the API base.
    assert_eq!(create["name"], "svc contacts create");
    assert_eq!(create["description"], create["about"]);
    let options = create["options"].as_array().unwrap();
    let option = |flag: &str| {
        options
            .iter()
            .find(|o| o["flag"] == flag)
            .unwrap_or_else(|| panic!("no option {flag} in {options:?}"))
    };
    assert_eq!(option("--frequency <frequency>")["required"], true);
    assert_eq!(option("--json")["type"], "boolean");
    for o in options {
        assert!(
            ["boolean", "string"].contains(&o["type"].as_str().unwrap()),
            "{o}"
        );
    }
    // Short forms, where a flag has one, in both shapes: `-y, --yes`.
    for path in ["contacts delete", "outbox drop"] {
        let cmd = command(&m, path);
        assert_eq!(flag(cmd, "--yes")["short"], "-y", "{path}");
        let yes = cmd["options"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["flag"] == "--yes")
            .unwrap_or_else(|| panic!("no option --yes in {path}"));
        assert_eq!(yes["short"], "-y", "{path}");
    }
    assert!(flag(create, "--frequency").get("short").is_none());
    assert!(option("--frequency <frequency>").get("short").is_none());
    assert_eq!(m["exit_codes"]["OK"], 0);
    assert_eq!(m["exit_codes"]["AUTH"], 3);
    assert_eq!(m["exit_codes"]["SERVER"], 8);
    assert_eq!(m["api_base"], cli.base.as_str());

    // Where required flags are missing, and after other flags, it still answers.
    let inner = cli.run(&["contacts", "create", "--help-json"]);
    inner.ok();
    assert_eq!(inner.json(), m);
    cli.run(&["--json", "whoami", "--help-json"]).ok();
}

#[test]
fn help_prints_one_command_or_the_whole_tree() {
    let cli = offline();
    let run = cli.run(&["help", "contacts", "create"]);
    run.ok();
    assert!(run.stdout.contains("Usage: svc contacts create"), "{run:?}");
    assert!(run.stdout.contains("--frequency <MHZ>"), "{run:?}");
    assert!(run.stdout.contains("Examples:"), "{run:?}");
    let root = cli.run(&["help"]);
    root.ok();
    assert!(root.stdout.contains("Usage: svc"), "{root:?}");

    let all = cli.run(&["help", "--all"]);
    all.ok();
    for usage in [
        "Usage: svc auth login",
        "Usage: svc auth set-key",
        "Usage: svc whoami",
        "Usage: svc folders create",
        "Usage: svc contacts delete",
        "Usage: svc activations end",
        "Usage: svc completions",
        "Usage: svc server key revoke",
    ] {
        assert!(all.stdout.contains(usage), "{usage} missing");
    }
    // The global flags once, at the top, and the exit codes and environment once, at the end.
    assert_eq!(all.stdout.matches("--api-base <URL>").count(), 1);
    for reference in ["Exit codes:", "  3  missing", "SVC_API_KEY", "config.json"] {
        assert!(all.stdout.contains(reference), "{reference} missing");
    }
    let missing = cli.run(&["help", "nosuch"]);
    assert!(
        missing
            .fails(2, "help", "validation_error")
            .contains("svc help --all")
    );
    assert!(!all.stdout.contains('\x1b'));
}

#[test]
fn completions_and_the_man_page_come_from_the_tree() {
    let cli = offline();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = cli.run(&["completions", shell]);
        run.ok();
        for word in ["activations", "panic-revoke", "in-progress"] {
            assert!(run.stdout.contains(word), "{shell}: {word} missing");
        }
    }
    cli.run(&["completions", "tcsh"])
        .fails(2, "completions", "validation_error");
    let man = cli.run(&["man"]);
    man.ok();
    assert!(man.stdout.starts_with(".ie"), "{}", &man.stdout[..80]);
    assert!(man.stdout.contains(".TH SVC"), "roff title");
    let sub = cli.run(&["man", "contacts", "create"]);
    sub.ok();
    assert!(sub.stdout.contains(".TH SVC-CONTACTS-CREATE"));
    assert!(sub.stdout.contains("frequency"));
    for page in [&man.stdout, &sub.stdout] {
        for section in [
            ".SH EXAMPLES",
            ".SH \"EXIT STATUS\"",
            ".SH ENVIRONMENT",
            ".SH FILES",
        ] {
            assert!(page.contains(section), "{section} missing");
        }
        assert!(!page.contains("EXTRA"), "a stray EXTRA section");
    }
    // Footed with the program and its version, not the subcommand's name.
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        sub.stdout.contains(&format!("\"svc {version}\"")),
        "{}",
        sub.stdout.lines().find(|l| l.starts_with(".TH")).unwrap()
    );
}

fn a_closed_pipe_is_not_an_error() {
    let (_server, api, cli) = setup("basic");
    for args in [
        &["help", "--all"][..],
        &["folders", "list"],
        &["--help-json"],
    ] {
        let mut child = cli
            .std_command()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Hang up before the answer is written, like `| head -0`.
        drop(child.stdout.take());
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(status.success(), "{args:?}: {status:?} {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}");
    }
    let _ = api;
}

fn output_has_no_colour_when_stdout_is_not_a_terminal() {
    let (_server, api, cli) = setup("basic");
    let _ = api.activation("US-1", "W1AW");
    for args in [
        &["folders", "list"][..],
        &["activations", "list"],
        &["help", "whoami"],
        &["--help"],
    ] {
        let run = cli.run(args);
        run.ok();
        assert!(!run.stdout.contains('\x1b'), "{args:?}: {run:?}");
    }
    cli.set_env("NO_COLOR", "1");
    let run = cli.run(&["activations", "list", "--no-color"]);
    run.ok();
    assert!(!run.stdout.contains('\x1b'));
}

crate::both_backends!(
    a_closed_pipe_is_not_an_error,
    output_has_no_colour_when_stdout_is_not_a_terminal,
);
