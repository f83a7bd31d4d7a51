//! `svc server user list|set|disable|enable|password`: the operator looks after accounts
//! against the database the service uses, on both backends.

use serde_json::Value;

use crate::common::{Server, admin_on, contact, this_month};

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn listed(server: &Server) -> Vec<Value> {
    let out = server.admin(&["user", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

fn accounts_are_listed_changed_disabled_and_enabled() {
    let server = Server::start();
    let api = server.account("W1AW", "elevated");
    server.account("K2ABC", "basic");
    let folder = api.monthly(&this_month().0, None);
    assert_eq!(
        api.post("/v1/contacts", contact(&folder, "K9XYZ")).status,
        201
    );

    let accounts = listed(&server);
    let calls: Vec<&str> = accounts
        .iter()
        .map(|a| a["callsign"].as_str().unwrap())
        .collect();
    assert_eq!(calls, ["K2ABC", "W1AW"]);
    assert_eq!(accounts[1]["plan"], "free");
    assert_eq!(accounts[1]["nativeQsoCount"], 1);
    assert!(accounts[1].get("disabledAt").is_none(), "{}", accounts[1]);
    let text = stdout(&server.admin(&["user", "list"]));
    assert!(text.starts_with("CALLSIGN"), "{text}");
    assert!(text.contains("W1AW"), "{text}");

    // A plan the operator sets is the account's at once.
    let out = server.admin(&["user", "set", "w1aw", "--plan", "paid"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "W1AW: plan paid (was free)\n");
    assert_eq!(api.whoami()["plan"], "paid");

    // Disabled: its keys are refused, saying why; the data stays.
    let out = server.admin(&["user", "disable", "W1AW"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let r = api.get("/v1/whoami");
    let message = r.expect_error(401, "unauthorized");
    assert!(
        message.contains("disabled by the service's operator"),
        "{message}"
    );
    assert!(listed(&server)[1]["disabledAt"].is_string());
    let out = server.admin(&["user", "enable", "W1AW"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(api.get("/v1/whoami").status, 200);
    assert_eq!(api.qso_count(), 1, "nothing was deleted");

    // A new web password; a short one is refused and changes nothing.
    let out = admin_on(
        &server.db.url,
        &["user", "password", "W1AW", "--password-stdin"],
        Some("short\n"),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("at least 8 characters"),
        "{}",
        stderr(&out)
    );
    let out = admin_on(
        &server.db.url,
        &["user", "password", "W1AW", "--password-stdin"],
        Some("a long enough password\n"),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("web sessions ended"),
        "{}",
        stdout(&out)
    );

    // An account that does not exist is named, with how to make it.
    let out = server.admin(&["user", "disable", "N0NE"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no account N0NE; create it with svc server user add N0NE"),
        "{}",
        stderr(&out)
    );
}

crate::both_backends!(accounts_are_listed_changed_disabled_and_enabled);
