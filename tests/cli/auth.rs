//! `svc auth …` and key resolution without a keychain: SVC_API_KEY, the config-file fallback,
//! its permissions, and what logout and panic-revoke do (and do not do).

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use super::{Cli, setup};
use crate::common::Server;

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A client with no key in its environment, keychain skipped.
fn keyless(server: &Server, key: &str) -> Cli {
    let cli = Cli::new(&server.url);
    cli.secret(key);
    cli.set_env("SVC_NO_KEYRING", "1");
    cli
}

fn set_key_from_stdin_falls_back_to_a_private_file_and_status_reads_it() {
    let (server, api, _) = setup("elevated");
    let cli = keyless(&server, api.key());

    let run = cli.run_stdin(&["auth", "set-key"], &format!("{}\n", api.key()));
    run.ok();
    let prefix = &api.key()[..12];
    assert!(
        run.stdout.starts_with(&format!("stored key {prefix}… in ")),
        "{run:?}"
    );
    let file = cli.config_file();
    assert!(
        run.stderr.contains("warning: SVC_NO_KEYRING=1 is set")
            && run.stderr.contains(&file.display().to_string()),
        "{run:?}"
    );
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(file.parent().unwrap()), 0o700);
    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(stored, json!({"apiKey": api.key()}));

    let status = cli.run(&["auth", "status", "--json"]);
    status.ok();
    assert_eq!(
        status.json(),
        json!({"source": "config", "keyPrefix": prefix,
               "whoami": {"callsign": "W1AW", "plan": "free", "tier": "elevated", "nativeQsoCount": 0}})
    );
    let text = cli.run(&["auth", "status"]);
    text.ok();
    assert_eq!(
        text.stdout,
        format!(
            "Source: config\nKey: {prefix}…\nCallsign: W1AW\nPlan: free\nTier: elevated\nQSOs: 0 / 200\n"
        )
    );
}

fn set_key_takes_an_argument_and_overwrites_the_previous_key() {
    let (server, api, _) = setup("elevated");
    let second = server.new_key("W1AW", "basic");
    let cli = keyless(&server, api.key());
    cli.secret(second.key());
    cli.run(&["auth", "set-key", api.key()]).ok();
    cli.run(&["auth", "set-key", second.key()]).ok();
    let status = cli.run(&["auth", "status", "--json"]);
    assert_eq!(status.json()["keyPrefix"], &second.key()[..12]);
    assert_eq!(status.json()["whoami"]["tier"], "basic");
}

fn set_key_checks_the_shape_locally_and_stores_nothing_bad() {
    let server = Server::start();
    let cli = keyless(&server, "svc_live_ABCDEFGHIJKLMNOPQRSTUVWX");
    // Nothing listens there: a network call would fail with exit 7, not 3.
    cli.set_env("SVC_API_BASE", &super::closed_port());
    for bad in [
        "svc_test_ABCDEFGHIJKLMNOPQRSTUVWX",
        "svc_live_abcdefghijklmnopqrstuvwx",
        "svc_live_SHORT",
        "hunter2",
    ] {
        let run = cli.run(&["auth", "set-key", bad]);
        let message = run.fails(3, "auth set-key", "unauthorized");
        assert!(message.contains("svc_live_"), "{message}");
        assert!(!run.stderr.contains(bad), "the bad key is echoed: {run:?}");
        let run = cli.run_stdin(&["auth", "set-key"], bad);
        run.fails(3, "auth set-key", "unauthorized");
    }
    let empty = cli.run_stdin(&["auth", "set-key"], "\n");
    assert!(
        empty
            .fails(3, "auth set-key", "unauthorized")
            .contains("no key was given")
    );
    assert!(!cli.config_file().exists(), "a bad key was stored");
}

fn login_checks_the_key_with_whoami_before_storing_it() {
    let (server, api, _) = setup("basic");
    let cli = keyless(&server, api.key());

    let unknown = "svc_live_ABCDEFGHIJKLMNOPQRSTUVWX";
    cli.secret(unknown);
    let run = cli.run_stdin(&["auth", "login"], unknown);
    let message = run.fails(3, "auth login", "unauthorized");
    assert!(message.contains("not recognized"), "{message}");
    assert!(!cli.config_file().exists());

    let run = cli.run_stdin(&["auth", "login"], &format!("{}\n", api.key()));
    run.ok();
    assert!(
        run.stdout.starts_with(&format!(
            "logged in as W1AW (basic key {}…), stored in ",
            &api.key()[..12]
        )),
        "{run:?}"
    );
    assert!(run.stderr.contains("warning"), "{run:?}");
    cli.run(&["whoami"]).ok();
    assert!(
        !std::fs::read_to_string(cli.config_file())
            .unwrap()
            .contains("apiBase"),
        "the environment's SVC_API_BASE is not written down"
    );

    // A login with --api-base keeps the address: the next command talks to it with no flag.
    let elsewhere = keyless(&server, api.key());
    elsewhere.set_env("SVC_API_BASE", "");
    let base = server.url.trim_end_matches('/');
    let run = elsewhere.run_stdin(
        &["auth", "login", "--api-base", base],
        &format!("{}\n", api.key()),
    );
    run.ok();
    assert!(
        run.stdout
            .contains(&format!("the API base {base}/ is saved in")),
        "{run:?}"
    );
    let config = std::fs::read_to_string(elsewhere.config_file()).unwrap();
    assert!(
        config.contains(&format!("\"apiBase\": \"{base}\"")),
        "{config}"
    );
    assert!(elsewhere.run(&["whoami"]).ok().stdout.contains("W1AW"));
}

fn a_revoked_key_exits_3_everywhere() {
    let (server, api, cli) = setup("elevated");
    let out = server.admin(&["key", "revoke", &api.key()[..12]]);
    assert!(out.status.success());
    let run = cli.run(&["whoami"]);
    let message = run.fails(3, "whoami", "key_revoked");
    assert!(message.contains("revoked"), "{message}");
    let env = cli
        .run(&["folders", "list", "--json"])
        .fails_json(3, "folders list", "key_revoked");
    assert_eq!(env["status"], 401);
    assert!(env["requestId"].as_str().unwrap().starts_with("req_"));
    let login = keyless(&server, api.key()).run_stdin(&["auth", "login"], api.key());
    login.fails(3, "auth login", "key_revoked");
}

fn without_a_key_commands_exit_3_and_status_names_login() {
    let server = Server::start();
    let cli = Cli::new(&server.url);
    let run = cli.run(&["whoami"]);
    let message = run.fails(3, "whoami", "unauthorized");
    assert!(message.contains("svc auth login"), "{message}");

    let run = cli.run(&["auth", "status"]);
    assert!(
        run.fails(3, "auth status", "unauthorized")
            .contains("svc auth login")
    );
    let run = cli.run(&["auth", "status", "--json"]);
    assert_eq!(run.code, 3);
    assert_eq!(
        run.json(),
        json!({"source": "none", "keyPrefix": null, "whoami": null})
    );
    let env = run.envelope();
    assert!(
        env["message"].as_str().unwrap().contains("svc auth login"),
        "{env}"
    );
}

#[test]
fn a_malformed_svc_api_key_exits_3_without_a_request() {
    let cli = Cli::new(&super::closed_port());
    let bad = "svc_live_ABCDEFGHIJKLMNOPQRSTUVW1";
    cli.secret(bad);
    cli.set_env("SVC_API_KEY", bad);
    let run = cli.run(&["whoami", "--verbose"]);
    assert!(
        run.fails(3, "whoami", "unauthorized")
            .contains("SVC_API_KEY")
    );
    assert!(
        !run.stderr.contains("attempt"),
        "a request was made: {run:?}"
    );
}

fn the_environment_wins_over_the_config_file() {
    let (server, api, _) = setup("elevated");
    let basic = server.new_key("W1AW", "basic");
    let cli = keyless(&server, api.key());
    cli.secret(basic.key());
    cli.run(&["auth", "set-key", basic.key()]).ok();
    cli.set_env("SVC_API_KEY", api.key());
    let status = cli.run(&["auth", "status", "--json"]);
    assert_eq!(status.json()["source"], "env");
    assert_eq!(status.json()["whoami"]["tier"], "elevated");
}

fn a_readable_key_file_is_refused_with_the_fix() {
    let (server, api, _) = setup("elevated");
    let cli = keyless(&server, api.key());
    cli.run(&["auth", "set-key", api.key()]).ok();
    let file = cli.config_file();
    let before = std::fs::read(&file).unwrap();
    for loose in [0o644, 0o640, 0o604] {
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(loose)).unwrap();
        let run = cli.run(&["whoami", "--verbose"]);
        let message = run.fails(3, "whoami", "unauthorized");
        assert!(
            message.contains(&format!("chmod 600 {}", file.display())),
            "{message}"
        );
        assert!(
            !run.stderr.contains("attempt"),
            "a request was made: {run:?}"
        );
        assert_eq!(mode(&file), loose, "the mode was changed");
        assert_eq!(
            std::fs::read(&file).unwrap(),
            before,
            "the file was changed"
        );
    }
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    cli.run(&["whoami"]).ok();
}

fn a_broken_config_file_exits_2_and_names_the_fix() {
    let server = Server::start();
    let cli = keyless(&server, "svc_live_ABCDEFGHIJKLMNOPQRSTUVWX");
    let file = cli.config_file();
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    for bad in ["{not json", "[]", r#"{"apiBase": 5}"#] {
        std::fs::write(&file, bad).unwrap();
        // The env var gives a base, so only the key lookup reads the file.
        let run = cli.run(&["whoami"]);
        let message = run.fails(2, "whoami", "validation_error");
        assert!(message.contains("or delete it"), "{bad}: {message}");
        assert!(message.contains(&file.display().to_string()), "{message}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), bad);
    }
}

fn the_api_base_comes_from_the_flag_then_the_env_then_the_config_file() {
    let (server, api, _) = setup("elevated");
    let cli = keyless(&server, api.key());
    cli.set_env("SVC_API_KEY", api.key());
    let closed = super::closed_port();
    // Config file only.
    cli.unset_env("SVC_API_BASE");
    let file = cli.config_file();
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, format!(r#"{{"apiBase": "{}"}}"#, server.url)).unwrap();
    cli.run(&["whoami"]).ok();
    // The env var beats the file.
    cli.set_env("SVC_API_BASE", &closed);
    cli.run(&["whoami"]).fails(7, "whoami", "transport_error");
    // The flag beats the env var.
    cli.run(&["whoami", "--api-base", &server.url]).ok();
    // A bad base is refused before any request.
    let run = cli.run(&["whoami", "--api-base", "ftp://example.org"]);
    assert!(
        run.fails(2, "whoami", "validation_error")
            .contains("http://")
    );
}

fn logout_removes_the_stored_key_but_does_not_revoke_it() {
    let (server, api, _) = setup("elevated");
    let cli = keyless(&server, api.key());
    let file = cli.config_file();
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, format!(r#"{{"apiBase": "{}"}}"#, server.url)).unwrap();
    cli.run(&["auth", "set-key", api.key()]).ok();
    let run = cli.run(&["auth", "logout"]);
    run.ok();
    assert!(
        run.stdout.starts_with("removed the API key from "),
        "{run:?}"
    );
    assert!(run.stdout.contains(&file.display().to_string()), "{run:?}");
    // Other settings stay; the key is gone.
    let left: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(left, json!({"apiBase": server.url}));
    cli.run(&["auth", "status"])
        .fails(3, "auth status", "unauthorized");
    let again = cli.run(&["auth", "logout"]);
    again.ok();
    assert_eq!(again.stdout, "no stored API key to remove\n");
    // The server still accepts the key.
    assert_eq!(api.get("/v1/whoami").status, 200);
}

fn panic_revoke_says_where_to_revoke_and_revokes_nothing() {
    let (server, api, cli) = setup("elevated");
    let run = cli.run(&["auth", "panic-revoke"]);
    run.ok();
    assert!(
        run.stdout.contains(&format!("{}/keys", server.url)),
        "{run:?}"
    );
    assert!(run.stdout.contains("cannot revoke"), "{run:?}");
    assert_eq!(api.get("/v1/whoami").status, 200);
    // It needs no key and no service.
    let offline = Cli::new(&super::closed_port());
    let run = offline.run(&[
        "auth",
        "panic-revoke",
        "--api-base",
        "https://logbook.example.org/base/",
    ]);
    run.ok();
    assert!(
        run.stdout.contains("https://logbook.example.org/base/keys"),
        "{run:?}"
    );
}

crate::both_backends!(
    set_key_from_stdin_falls_back_to_a_private_file_and_status_reads_it,
    set_key_takes_an_argument_and_overwrites_the_previous_key,
    set_key_checks_the_shape_locally_and_stores_nothing_bad,
    login_checks_the_key_with_whoami_before_storing_it,
    a_revoked_key_exits_3_everywhere,
    without_a_key_commands_exit_3_and_status_names_login,
    the_environment_wins_over_the_config_file,
    a_readable_key_file_is_refused_with_the_fix,
    a_broken_config_file_exits_2_and_names_the_fix,
    the_api_base_comes_from_the_flag_then_the_env_then_the_config_file,
    logout_removes_the_stored_key_but_does_not_revoke_it,
    panic_revoke_says_where_to_revoke_and_revokes_nothing,
);
