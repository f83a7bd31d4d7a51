//! `svc whoami`: text lines, the identity record in JSON, the warning near the free-plan cap.

use serde_json::json;

use super::{Cli, monthly, setup, setup_with};
use crate::common::contact;

fn whoami_prints_the_identity_as_text_and_json() {
    let (_server, api, cli) = setup("elevated");
    let run = cli.run(&["whoami"]);
    run.ok();
    assert_eq!(
        run.stdout,
        "Callsign: W1AW\nPlan: free\nTier: elevated\nQSOs: 0 / 200\n"
    );
    assert_eq!(run.stderr, "");

    let run = cli.run(&["whoami", "--json"]);
    run.ok();
    assert_eq!(
        run.json(),
        json!({"callsign": "W1AW", "plan": "free", "tier": "elevated", "nativeQsoCount": 0})
    );
    assert_eq!(run.json(), api.whoami());
    // Global flags work before the subcommand too.
    assert_eq!(cli.run(&["--json", "whoami"]).json(), run.json());
}

fn whoami_warns_from_180_qsos_on() {
    let (_server, api, cli) = setup_with("basic", &["--burst-limit", "100000"]);
    let folder = monthly(&api);
    for i in 0..179 {
        let r = api.post("/v1/contacts", contact(&folder, &format!("K{i}ABC")));
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let run = cli.run(&["whoami"]);
    run.ok();
    assert!(run.stdout.contains("QSOs: 179 / 200\n"), "{run:?}");
    assert!(!run.stderr.contains("warning"), "{run:?}");

    let r = api.post("/v1/contacts", contact(&folder, "K999ABC"));
    assert_eq!(r.status, 201);
    let run = cli.run(&["whoami"]);
    run.ok();
    assert!(run.stdout.contains("QSOs: 180 / 200\n"), "{run:?}");
    assert!(
        run.stderr
            .starts_with("svc: warning: 180 of the free plan's 200 QSOs are used (20 left)"),
        "{run:?}"
    );
    // The JSON result is unchanged by the warning, which stays on stderr.
    let run = cli.run(&["whoami", "--json"]);
    assert_eq!(run.json()["nativeQsoCount"], 180);
    assert!(run.stderr.contains("warning"), "{run:?}");
    let quiet = cli.run(&["whoami", "--quiet"]);
    quiet.ok();
    assert_eq!(quiet.stderr, "");
}

fn a_paid_account_has_no_cap_line() {
    let server = crate::common::Server::start();
    let out = server.admin(&["user", "add", "K2P", "--plan", "paid"]);
    assert!(out.status.success());
    let api = server.new_key("K2P", "basic");
    let cli = Cli::with_key(&server, &api);
    let run = cli.run(&["whoami"]);
    run.ok();
    assert_eq!(
        run.stdout,
        "Callsign: K2P\nPlan: paid\nTier: basic\nQSOs: 0\n"
    );
}

crate::both_backends!(
    whoami_prints_the_identity_as_text_and_json,
    whoami_warns_from_180_qsos_on,
    a_paid_account_has_no_cap_line,
);
