//! Sessions live in the database: they expire after 12 hours idle or 7 days in all, whichever
//! process sees them, and failed sign-ins and sign-ups are counted there per callsign, per
//! address and per known device.

use super::{Browser, PASSWORD};
use crate::common::Server;

fn sessions_expire_when_idle_and_after_seven_days() {
    let server = Server::start();
    let browser = Browser::signed_up(&server, "W1AW");
    browser.get("/keys").expect(200, "Sign out W1AW");

    // Idle for just under 12 hours: still signed in, and the visit counts as use.
    let aged = server.exec_sql(
        "UPDATE web_sessions SET last_seen_at = last_seen_at - 43140000",
        &[],
    );
    assert_eq!(aged, 1);
    browser.get("/account").expect(200, "W1AW");
    assert_eq!(
        server.exec_sql(
            "UPDATE web_sessions SET last_seen_at = last_seen_at - 43140000",
            &[],
        ),
        1
    );
    browser.get("/keys").expect(200, "Sign out W1AW");

    // Idle for more than 12 hours: signed out, and told so.
    server.exec_sql(
        "UPDATE web_sessions SET last_seen_at = last_seen_at - 43200001",
        &[],
    );
    let page = browser.get("/keys");
    assert_eq!(page.location(), "/signin?next=/keys&notice=expired");
    assert!(
        page.set_cookie("svc_session")
            .unwrap()
            .contains("Max-Age=0")
    );
    assert!(browser.session().is_none());
    browser
        .get("/signin?next=/keys&notice=expired")
        .expect(200, "Your session has ended");

    // Seven days after sign-in a session ends however busy it was.
    assert_eq!(browser.sign_in("W1AW", PASSWORD).location(), "/keys");
    browser.get("/keys").expect(200, "Sign out W1AW");
    server.exec_sql(
        "UPDATE web_sessions SET created_at = created_at - 604800001",
        &[],
    );
    assert_eq!(
        browser.get("/account").location(),
        "/signin?next=/account&notice=expired"
    );
    // An expired session's forms send the visitor to sign in, and change nothing.
    assert_eq!(browser.sign_in("W1AW", PASSWORD).location(), "/keys");
    let keys = browser.get("/keys");
    server.exec_sql(
        "UPDATE web_sessions SET last_seen_at = last_seen_at - 43200001",
        &[],
    );
    let page = browser.post(
        "/keys",
        &[
            ("csrf", &keys.field("csrf")),
            ("form", &keys.field("form")),
            ("name", "laptop"),
            ("tier", "basic"),
        ],
    );
    assert_eq!(page.location(), "/signin?notice=expired");
    let out = server.admin(&["key", "list", "W1AW", "--json"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");
}

fn sessions_are_shared_by_every_server_process() {
    let server = Server::start();
    let peer = server.another(&[]);
    let browser = Browser::signed_up(&server, "W1AW");
    // The same cookie at the other process: signed in there too.
    let there = Browser::at(&peer.url, None);
    *there.cookies.borrow_mut() = browser.cookies.borrow().clone();
    there.get("/keys").expect(200, "Sign out W1AW");
    // Signed out at the first, signed out everywhere.
    let page = browser.submit("/keys", "/signout", &[]);
    assert_eq!(page.location(), "/signin?notice=signed-out");
    assert_eq!(
        there.get("/keys").location(),
        "/signin?next=/keys&notice=expired"
    );
}

/// Signs in from a loopback address of its own and returns the status.
fn attempt(base: &str, from: &str, callsign: &str, password: &str) -> super::Page {
    Browser::at(base, Some(from)).sign_in(callsign, password)
}

fn failed_sign_ins_are_limited_without_locking_the_owner_out() {
    let server = Server::start();
    let peer = server.another(&[]);
    // The owner signed up in this browser, which makes it a known device of W1AW.
    let owner = Browser::signed_up(&server, "W1AW");
    assert!(owner.cookies.borrow().contains_key("svc_device"));
    owner.submit("/keys", "/signout", &[]);
    for call in ["K1ABC", "N0CALL"] {
        Browser::signed_up(&server, call);
    }
    // Five failures for W1AW from 127.0.0.2, split between the two processes, which share
    // the counters: each gets the plain answer...
    for (i, base) in [&server.url, &peer.url, &server.url, &peer.url, &server.url]
        .into_iter()
        .enumerate()
    {
        let page = attempt(base, "127.0.0.2", "W1AW", "not the password");
        page.expect(400, "The callsign or the password is wrong.");
        assert!(page.header("retry-after").is_none(), "failure {i}");
    }
    // ...and then 127.0.0.2 is paused, for any callsign, even with the right password.
    let limited = attempt(&peer.url, "127.0.0.2", "K1ABC", PASSWORD);
    limited
        .expect(429, "Too many failed sign-ins")
        .expect(429, "Wait 15 minutes");
    let retry: u64 = limited.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=900).contains(&retry), "{retry}");
    assert!(limited.set_cookie("svc_session").is_none());

    // The first failure of an address counts for the address alone, so 127.0.0.2 gave W1AW
    // four; two more from a second address make five, and W1AW is paused for an address that
    // has failures of its own...
    for _ in 0..2 {
        attempt(&server.url, "127.0.0.3", "W1AW", "not the password")
            .expect(400, "The callsign or the password is wrong.");
    }
    attempt(&server.url, "127.0.0.4", "N0CALL", "not the password")
        .expect(400, "The callsign or the password is wrong.");
    attempt(&server.url, "127.0.0.4", "W1AW", PASSWORD).expect(429, "Too many failed sign-ins");
    // ...but not for a fresh address, and not for the owner's own browser, even from the
    // attacker's paused address.
    assert_eq!(
        attempt(&server.url, "127.0.0.5", "W1AW", PASSWORD).location(),
        "/keys"
    );
    let from_attacker = Browser::at(&server.url, Some("127.0.0.2"));
    *from_attacker.cookies.borrow_mut() = owner.cookies.borrow().clone();
    assert_eq!(from_attacker.sign_in("W1AW", PASSWORD).location(), "/keys");
    // A copied device cookie is no master key: it has failures of its own to use up.
    from_attacker.submit("/keys", "/signout", &[]);
    for _ in 0..5 {
        from_attacker
            .sign_in("W1AW", "not the password")
            .expect(400, "The callsign or the password is wrong.");
    }
    from_attacker
        .sign_in("W1AW", PASSWORD)
        .expect(429, "Too many failed sign-ins");
    // The device cookie belongs to W1AW: for another callsign it counts for nothing.
    let elsewhere = Browser::at(&server.url, Some("127.0.0.6"));
    *elsewhere.cookies.borrow_mut() = owner.cookies.borrow().clone();
    assert_eq!(elsewhere.sign_in("K1ABC", PASSWORD).location(), "/keys");

    // An unknown callsign is counted like a known one, with the same answer.
    for _ in 0..5 {
        attempt(&server.url, "127.0.0.7", "K9ZZZ", "not the password")
            .expect(400, "The callsign or the password is wrong.");
    }
    attempt(&server.url, "127.0.0.7", "K9ZZZ", PASSWORD).expect(429, "Too many failed sign-ins");

    // Successes are not failures: many in a row are all let in.
    for _ in 0..7 {
        assert_eq!(
            attempt(&server.url, "127.0.0.8", "N0CALL", PASSWORD).location(),
            "/keys"
        );
    }

    // Once the window has passed, 127.0.0.2 may sign in again.
    let windows = server.exec_sql(
        "UPDATE signin_attempts SET window_start = window_start - 900000",
        &[],
    );
    assert!(windows >= 3, "{windows}");
    assert_eq!(
        attempt(&server.url, "127.0.0.2", "W1AW", PASSWORD).location(),
        "/keys"
    );
}

fn sign_ups_are_limited_per_address_and_a_taken_callsign_is_refused() {
    let server = Server::start();
    let peer = server.another(&[]);
    let from = |base: &str| Browser::at(base, Some("127.0.0.2"));
    let sign_up = |browser: &Browser, call: &str| browser.sign_up(call, PASSWORD);
    // Ten accounts from one address, across both processes...
    for i in 0..10 {
        let base = if i % 2 == 0 { &server.url } else { &peer.url };
        let page = sign_up(&from(base), &format!("K{i}SU"));
        assert_eq!(page.location(), "/keys", "sign-up {i}");
    }
    // ...and the eleventh waits, with nothing made.
    sign_up(&from(&server.url), "K10SU").expect(429, "Too many sign-ups");
    assert_eq!(
        server.exec_sql(
            "UPDATE accounts SET plan = plan WHERE callsign = 'K10SU'",
            &[]
        ),
        0
    );
    // Another address may still sign up, but not for a callsign that is taken.
    let other = Browser::at(&server.url, Some("127.0.0.3"));
    sign_up(&other, "K1SU").expect(400, "There is an account for K1SU already");
    assert_eq!(sign_up(&other, "K10SU").location(), "/keys");
}

crate::both_backends!(
    sessions_expire_when_idle_and_after_seven_days,
    sessions_are_shared_by_every_server_process,
    failed_sign_ins_are_limited_without_locking_the_owner_out,
    sign_ups_are_limited_per_address_and_a_taken_callsign_is_refused,
);
