//! Sessions live in the database: they expire after 12 hours idle or 7 days in all, whichever
//! process sees them, and failed sign-ins are counted there per callsign and per address.

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

fn failed_sign_ins_are_limited_per_callsign_and_per_address() {
    let server = Server::start();
    let peer = server.another(&[]);
    for call in ["W1AW", "K1ABC", "N0CALL"] {
        Browser::signed_up(&server, call);
    }
    // Five failures for W1AW from 127.0.0.2, split between the two processes, which share
    // the counters: the first four get the plain answer...
    for (i, base) in [&server.url, &peer.url, &server.url, &peer.url, &server.url]
        .into_iter()
        .enumerate()
    {
        let page = attempt(base, "127.0.0.2", "W1AW", "not the password");
        page.expect(400, "The callsign or the password is wrong.");
        assert!(page.header("retry-after").is_none(), "failure {i}");
    }
    // ...and then W1AW is paused, even with the right password, from any address:
    let limited = attempt(&server.url, "127.0.0.3", "W1AW", PASSWORD);
    limited
        .expect(429, "Too many failed sign-ins")
        .expect(429, "Wait 15 minutes");
    let retry: u64 = limited.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=900).contains(&retry), "{retry}");
    assert!(limited.set_cookie("svc_session").is_none());
    attempt(&peer.url, "127.0.0.3", "W1AW", PASSWORD).expect(429, "Too many failed sign-ins");
    // ...and so is 127.0.0.2, for any callsign.
    attempt(&server.url, "127.0.0.2", "K1ABC", PASSWORD).expect(429, "Too many failed sign-ins");
    // Another callsign from another address is not affected.
    assert_eq!(
        attempt(&server.url, "127.0.0.3", "K1ABC", PASSWORD).location(),
        "/keys"
    );

    // An unknown callsign is counted like a known one, with the same answer.
    for _ in 0..5 {
        attempt(&server.url, "127.0.0.4", "K9ZZZ", PASSWORD)
            .expect(400, "The callsign or the password is wrong.");
    }
    attempt(&server.url, "127.0.0.5", "K9ZZZ", PASSWORD).expect(429, "Too many failed sign-ins");

    // Successes are not failures: many in a row are all let in.
    for _ in 0..7 {
        assert_eq!(
            attempt(&server.url, "127.0.0.6", "N0CALL", PASSWORD).location(),
            "/keys"
        );
    }

    // Once the window has passed, W1AW may sign in again.
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

crate::both_backends!(
    sessions_expire_when_idle_and_after_seven_days,
    sessions_are_shared_by_every_server_process,
    failed_sign_ins_are_limited_per_callsign_and_per_address,
);
