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
    assert_eq!(
        stdout(&out),
        "W1AW: plan paid (was plan free, the server's cap)\n"
    );
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

/// Plans as a club's operator sets them: the free plan's cap (the server's, or the account's
/// own), paid (no cap, the budgets) and unlimited (neither); whoami says the cap in a header
/// beside the published record, and `svc whoami` shows it.
fn plans_set_caps_and_lift_budgets() {
    let server = Server::start_with(&[
        "--free-plan-cap",
        "3",
        "--daily-contact-budget",
        "5",
        "--lifetime-contact-budget",
        "6",
    ]);
    let api = server.account("W1AW", "elevated");
    let cli = crate::cli::Cli::with_key(&server, &api);
    let folder = api.monthly(&this_month().0, None);
    let mut n = 0;
    let mut create = || {
        n += 1;
        api.post("/v1/contacts", contact(&folder, &format!("K{n}ABC")))
    };

    // The server's cap: whoami's header says it, the record stays the published one.
    let r = api.get("/v1/whoami");
    assert_eq!(r.header("svc-qso-cap"), Some("3"));
    assert_eq!(r.header("svc-plan"), Some("free"));
    for _ in 0..3 {
        assert_eq!(create().status, 201);
    }
    let refused = create();
    refused.expect_error(402, "qso_cap_reached");
    assert_eq!(refused.body["details"]["cap"], 3, "{}", refused.body);
    let run = cli.run(&["whoami"]);
    run.ok();
    assert!(run.stdout.contains("QSOs: 3 / 3\n"), "{run:?}");
    assert!(
        run.stderr.contains("3 of the free plan's 3 QSOs"),
        "{run:?}"
    );

    // The account's own cap replaces the server's.
    let out = server.admin(&["user", "set", "W1AW", "--cap", "4"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "W1AW: plan free, cap 4 (was plan free, the server's cap)\n"
    );
    assert!(
        stderr(&out).contains("svc::audit") && stderr(&out).contains("W1AW: plan free, cap 4"),
        "the change has its audit line: {}",
        stderr(&out)
    );
    assert_eq!(listed(&server)[0]["qsoCap"], 4);
    assert_eq!(api.get("/v1/whoami").header("svc-qso-cap"), Some("4"));
    assert_eq!(create().status, 201);
    let refused = create();
    refused.expect_error(402, "qso_cap_reached");
    assert_eq!(refused.body["details"]["cap"], 4, "{}", refused.body);

    // A cap on a plan that has none is refused and changes nothing.
    let out = server.admin(&["user", "set", "W1AW", "--plan", "paid", "--cap", "10"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the paid plan has no cap; --cap applies to the free plan"),
        "{}",
        stderr(&out)
    );
    assert_eq!(listed(&server)[0]["plan"], "free");

    // Paid: no cap, but the day's budget (5 contacts) stops the sixth of the day.
    let out = server.admin(&["user", "set", "W1AW", "--plan", "paid"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        listed(&server)[0].get("qsoCap").is_none(),
        "a plan with no cap keeps none"
    );
    assert_eq!(create().status, 201);
    create().expect_error(429, "rate_limited");

    // Unlimited: no cap, no budgets; published clients read `paid`, svc reads the header.
    let out = server.admin(&["user", "set", "W1AW", "--plan", "unlimited"]);
    assert!(out.status.success(), "{}", stderr(&out));
    for _ in 0..3 {
        let r = create();
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let items: Vec<Value> = ["N1AAA", "N1BBB"]
        .iter()
        .map(|call| {
            let mut item = contact(&folder, call);
            item["idempotencyKey"] = format!("plan-{call}").into();
            item
        })
        .collect();
    let r = api.post(
        "/v1/contacts/batch",
        serde_json::json!({ "contacts": items }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    for result in r.body["results"].as_array().expect("results") {
        assert_eq!(result["status"], 201, "{}", r.body);
    }
    assert_eq!(
        api.qso_count(),
        10,
        "past the cap, the day's and the lifetime's budgets"
    );
    let r = api.get("/v1/whoami");
    assert_eq!(r.body["plan"], "paid", "{}", r.body);
    assert_eq!(r.header("svc-plan"), Some("unlimited"));
    assert_eq!(r.header("svc-qso-cap"), None);
    let run = cli.run(&["whoami"]);
    run.ok();
    assert!(run.stdout.contains("Plan: unlimited\n"), "{run:?}");
    assert!(run.stdout.contains("QSOs: 10\n"), "{run:?}");
    let run = cli.run(&["whoami", "--json"]);
    assert_eq!(run.json()["plan"], "paid", "the published record: {run:?}");
    assert_eq!(listed(&server)[0]["plan"], "unlimited");

    // Back to free with nothing else: the server's cap again.
    let out = server.admin(&["user", "set", "W1AW", "--plan", "free"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(api.get("/v1/whoami").header("svc-qso-cap"), Some("3"));
    // Past the cap and the lifetime budget both, the budget is said first, as documented.
    let refused = create();
    refused.expect_error(429, "rate_limited");
    assert_eq!(refused.body["details"]["reason"], "lifetime_logbook_budget");
}

crate::both_backends!(
    accounts_are_listed_changed_disabled_and_enabled,
    plans_set_caps_and_lift_budgets,
);
