//! The free-plan cap and the rate limits, all counted in the database.

use crate::common::{Server, contact, this_month};

fn the_free_plan_stops_at_200_native_qsos() {
    let s = Server::start_with(&["--burst-limit", "100000"]);
    let api = s.account("W1AW", "elevated");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let mut last = String::new();
    for i in 0..200 {
        let r = api.post("/v1/contacts", contact(&folder, "K1ABC"));
        assert_eq!(r.status, 201, "contact {i}: {}", r.body);
        last = r.id();
    }
    assert_eq!(api.qso_count(), 200);
    let r = api.post("/v1/contacts", contact(&folder, "K1ABC"));
    let msg = r.expect_error(402, "qso_cap_reached");
    assert!(msg.contains("200"), "{msg}");
    assert_eq!(api.qso_count(), 200);
    assert_eq!(api.folders("monthly")[0]["contactCount"], 200);
    // A deleted contact frees its place.
    assert_eq!(api.delete(&format!("/v1/contacts/{last}")).status, 200);
    assert_eq!(
        api.post("/v1/contacts", contact(&folder, "K1ABC")).status,
        201
    );
    api.post("/v1/contacts", contact(&folder, "K1ABC"))
        .expect_error(402, "qso_cap_reached");
}

fn concurrent_creates_near_the_cap_end_exactly_at_it() {
    let s = Server::start_with(&["--burst-limit", "100000", "--free-plan-cap", "10"]);
    let api = s.account("W1AW", "basic");
    let (month, _) = this_month();
    let folder = api.monthly(&month, None);
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let api = api.clone();
            let folder = folder.clone();
            std::thread::spawn(move || {
                (0..4)
                    .map(|_| api.post("/v1/contacts", contact(&folder, "K1ABC")).status)
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let statuses: Vec<u16> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        10,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 402).count(),
        22,
        "{statuses:?}"
    );
    assert_eq!(api.qso_count(), 10);
    assert_eq!(api.contacts(&folder).len(), 10);
}

fn a_paid_plan_has_no_cap() {
    let s = Server::start_with(&["--free-plan-cap", "2"]);
    let out = s.admin(&["user", "add", "W1AW", "--plan", "paid"]);
    assert!(out.status.success());
    let api = s.new_key("W1AW", "basic");
    assert_eq!(api.whoami()["plan"], "paid");
    let folder = api.monthly(&this_month().0, None);
    for _ in 0..3 {
        assert_eq!(
            api.post("/v1/contacts", contact(&folder, "K1ABC")).status,
            201
        );
    }
    assert_eq!(api.qso_count(), 3);
}

fn the_burst_limit_counts_per_key() {
    let s = Server::start_with(&["--burst-limit", "5"]);
    let api = s.account("W1AW", "basic");
    // Stay inside one minute window: start right after a boundary if close to one.
    let into_minute = (svc::model::Timestamp::now().millis() % 60_000) as u64;
    if into_minute > 50_000 {
        std::thread::sleep(std::time::Duration::from_millis(60_500 - into_minute));
    }
    for _ in 0..5 {
        assert_eq!(api.get("/v1/whoami").status, 200);
    }
    let r = api.get("/v1/whoami");
    r.expect_error(429, "rate_limited");
    assert_eq!(r.body["details"]["reason"], "burst");
    let retry: u64 = r
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    let other_key = s.new_key("W1AW", "basic");
    assert_eq!(
        other_key.get("/v1/whoami").status,
        200,
        "another key has its own burst window"
    );
}

fn the_daily_budget_is_per_account_and_survives_a_restart() {
    let s = Server::start_with(&["--daily-contact-budget", "2"]);
    let api = s.account("W1AW", "basic");
    let folder = api.monthly(&this_month().0, None);
    for _ in 0..2 {
        assert_eq!(
            api.post("/v1/contacts", contact(&folder, "K1ABC")).status,
            201
        );
    }
    let second_key = s.new_key("W1AW", "basic");
    let r = second_key.post("/v1/contacts", contact(&folder, "K1ABC"));
    r.expect_error(429, "rate_limited");
    assert_eq!(r.body["details"]["reason"], "daily_logbook_budget");
    let retry: u64 = r
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .unwrap();
    assert!((1..=86_400).contains(&retry), "{retry}");
    assert_eq!(api.qso_count(), 2);

    let key = api.key().to_owned();
    let db = s.crash();
    let s2 = Server::start_on(db, &["--daily-contact-budget", "2"]);
    let r = s2
        .api(Some(&key))
        .post("/v1/contacts", contact(&folder, "K1ABC"));
    assert_eq!(
        r.body["details"]["reason"], "daily_logbook_budget",
        "{}",
        r.body
    );
}

/// A free account at its cap with the day's budget spent too is told of the day's budget
/// first (429 with Retry-After), as the documented order says: lifetime, day, cap. A batch
/// item is answered the same.
fn the_days_budget_is_reported_before_the_cap() {
    let s = Server::start_with(&["--daily-contact-budget", "2", "--free-plan-cap", "2"]);
    let api = s.account("W1AW", "basic");
    let folder = api.monthly(&this_month().0, None);
    for call in ["K1ABC", "K2ABC"] {
        assert_eq!(api.post("/v1/contacts", contact(&folder, call)).status, 201);
    }
    let r = api.post("/v1/contacts", contact(&folder, "K3ABC"));
    r.expect_error(429, "rate_limited");
    assert_eq!(
        r.body["details"]["reason"], "daily_logbook_budget",
        "{}",
        r.body
    );
    assert!(r.header("retry-after").is_some());
    let mut item = contact(&folder, "K4ABC");
    item["idempotencyKey"] = serde_json::json!("order-1");
    let r = api.post(
        "/v1/contacts/batch",
        serde_json::json!({ "contacts": [item] }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let result = &r.body["results"][0];
    assert_eq!(result["status"], 429, "{result}");
    assert_eq!(
        result["details"]["reason"], "daily_logbook_budget",
        "{result}"
    );
    // An import does not use the day's budget: the cap is what stops it.
    let mut item = contact(&folder, "K5ABC");
    item["idempotencyKey"] = serde_json::json!("order-2");
    let r = api.post(
        "/v1/contacts/batch",
        serde_json::json!({ "contacts": [item], "import": true }),
    );
    assert_eq!(r.body["results"][0]["status"], 402, "{}", r.body);
}

fn the_lifetime_budget_is_not_resettable() {
    let s = Server::start_with(&["--lifetime-contact-budget", "2"]);
    let api = s.account("W1AW", "elevated");
    let folder = api.monthly(&this_month().0, None);
    let first = api.post("/v1/contacts", contact(&folder, "K1ABC")).id();
    api.post("/v1/contacts", contact(&folder, "K1ABC"));
    assert_eq!(api.delete(&format!("/v1/contacts/{first}")).status, 200);
    let r = api.post("/v1/contacts", contact(&folder, "K1ABC"));
    let msg = r.expect_error(429, "rate_limited");
    assert_eq!(r.body["details"]["reason"], "lifetime_logbook_budget");
    assert!(
        r.header("retry-after").is_none(),
        "not resettable, so no Retry-After"
    );
    assert!(msg.contains("support"), "{msg}");
    assert_eq!(api.qso_count(), 1);
    // Reads still work.
    assert_eq!(api.get("/v1/folders").status, 200);
}

crate::both_backends!(
    the_free_plan_stops_at_200_native_qsos,
    concurrent_creates_near_the_cap_end_exactly_at_it,
    a_paid_plan_has_no_cap,
    the_burst_limit_counts_per_key,
    the_daily_budget_is_per_account_and_survives_a_restart,
    the_lifetime_budget_is_not_resettable,
    the_days_budget_is_reported_before_the_cap,
);
