//! Sessions live in the database: they expire after 12 hours idle or 7 days in all, whichever
//! process sees them, and failed sign-ins and sign-ups are counted there per callsign, per
//! address and per known device, and sign-ups for the whole server.

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
    assert_eq!(browser.sign_in("W1AW", PASSWORD).location(), "/log");
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
    assert_eq!(browser.sign_in("W1AW", PASSWORD).location(), "/log");
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

/// Signs in from a loopback address of its own.
fn attempt(base: &str, from: &str, callsign: &str, password: &str) -> super::Page {
    Browser::at(base, Some(from)).sign_in(callsign, password)
}

const WRONG: &str = "The callsign or the password is wrong.";

/// The seconds of the page's `Retry-After`.
fn retry_after(page: &super::Page) -> u64 {
    page.header("retry-after")
        .expect("a Retry-After header")
        .parse()
        .unwrap()
}

/// Whether the scope's counter holds `failures` (the statement changes nothing).
fn failures_of(server: &Server, scope: &'static str, failures: &'static str) -> bool {
    server.exec_sql(
        "UPDATE signin_attempts SET failures = failures WHERE scope = $1 AND failures = CAST($2 AS INTEGER)",
        &[scope, failures],
    ) == 1
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Makes `n` failed attempts with `fail` (given each one's number); returns the times (ms)
/// just before and just after the last, between which its wait was set.
fn timed_failures(n: usize, mut fail: impl FnMut(usize)) -> (i64, i64) {
    let (mut t0, mut t1) = (0, 0);
    for i in 0..n {
        t0 = now_ms();
        fail(i);
        t1 = now_ms();
    }
    (t0, t1)
}

/// Checks that the scopes matching `scope` (an SQL LIKE pattern) were told to wait `delay_ms`
/// after an attempt made between `t0` and `t1` (ms), and moves that wait 30 s on: whether the
/// next request is refused then does not depend on how soon the machine sends it.
fn hold(server: &Server, scope: &'static str, delay_ms: i64, t0: i64, t1: i64) {
    let (low, high) = ((t0 + delay_ms).to_string(), (t1 + delay_ms).to_string());
    assert_eq!(
        server.exec_sql(
            "UPDATE signin_attempts SET next_at = next_at + 30000 WHERE scope LIKE $1 \
             AND next_at BETWEEN CAST($2 AS BIGINT) AND CAST($3 AS BIGINT)",
            &[scope, &low, &high],
        ),
        1,
        "{scope} waits {delay_ms} ms from its last attempt"
    );
}

fn a_shared_address_delays_a_neighbour_by_seconds_instead_of_locking_it_out() {
    let server = Server::start();
    let peer = server.another(&[]);
    for call in ["W1AW", "K1ABC", "N0CALL"] {
        Browser::signed_up(&server, call);
    }
    // Five wrong passwords for W1AW from 127.0.0.2 (a club's NAT), split between the two
    // processes, which share the counters: each gets the plain answer...
    let bases = [&server.url, &peer.url, &server.url, &peer.url, &server.url];
    let (t0, t1) = timed_failures(bases.len(), |i| {
        let page = attempt(bases[i], "127.0.0.2", "W1AW", "not the password");
        page.expect(400, WRONG);
        assert!(page.header("retry-after").is_none(), "failure {i}");
    });
    // ...and then a neighbour behind the same address, with another account's right password,
    // is held up for a second, not for the rest of the window (the second held 30 s on, so
    // that the check does not race the clock).
    hold(&server, "address:127.0.0.2", 1000, t0, t1);
    let delayed = attempt(&peer.url, "127.0.0.2", "K1ABC", PASSWORD);
    delayed
        .expect(429, "Too many failed sign-ins")
        .expect(429, "second");
    assert!((1..=31).contains(&retry_after(&delayed)), "{delayed:?}");
    assert!(delayed.set_cookie("svc_session").is_none());
    // Once the wait has passed (its stored time moved back), the neighbour signs in...
    assert_eq!(
        server.exec_sql(
            "UPDATE signin_attempts SET next_at = next_at - 32000 WHERE scope = 'address:127.0.0.2'",
            &[],
        ),
        1
    );
    assert_eq!(
        attempt(&server.url, "127.0.0.2", "K1ABC", PASSWORD).location(),
        "/log"
    );
    // ...and, a success being no failure, the address's count and wait are as before it: the
    // next neighbour does not wait (after a sixth failure it would, 2 s).
    assert!(failures_of(&server, "address:127.0.0.2", "5"));
    assert_eq!(
        attempt(&peer.url, "127.0.0.2", "N0CALL", PASSWORD).location(),
        "/log"
    );
    assert!(failures_of(&server, "address:127.0.0.2", "5"));
}

fn fresh_addresses_cannot_multiply_guesses_at_a_callsign() {
    let server = Server::start();
    // The owner signed up in this browser, which makes it a known device of W1AW.
    let owner = Browser::signed_up(&server, "W1AW");
    assert!(owner.cookies.borrow().contains_key("svc_device"));
    owner.submit("/keys", "/signout", &[]);
    Browser::signed_up(&server, "K1ABC");
    // Five fresh addresses use up the callsign's five free failures, one each...
    let (t0, t1) = timed_failures(5, |i| {
        attempt(
            &server.url,
            &format!("127.0.0.{}", 10 + i),
            "W1AW",
            "not the password",
        )
        .expect(400, WRONG);
    });
    // ...so a sixth fresh address is held to the callsign's delay, even with the right password.
    hold(&server, "callsign:W1AW", 1000, t0, t1);
    let held = attempt(&server.url, "127.0.0.15", "W1AW", PASSWORD);
    held.expect(429, "Too many failed sign-ins");
    assert!((1..=31).contains(&retry_after(&held)), "{held:?}");
    // Each further guess doubles the wait, whichever address it comes from: five more, each
    // made once the wait has passed (moved back), make it 32 s...
    for i in 16..21 {
        assert_eq!(
            server.exec_sql(
                "UPDATE signin_attempts SET next_at = 0 WHERE scope = 'callsign:W1AW'",
                &[],
            ),
            1
        );
        attempt(
            &server.url,
            &format!("127.0.0.{i}"),
            "W1AW",
            "not the password",
        )
        .expect(400, WRONG);
    }
    assert!(failures_of(&server, "callsign:W1AW", "10"));
    // ...so twenty fresh addresses in a row get no guess at all: each is told to wait, and
    // nothing is counted.
    for i in 30..50 {
        let page = attempt(&server.url, &format!("127.0.0.{i}"), "W1AW", "a guess");
        page.expect(429, "Too many failed sign-ins");
        assert!((1..=32).contains(&retry_after(&page)), "{page:?}");
    }
    assert!(failures_of(&server, "callsign:W1AW", "10"));

    // The owner's browser, a known device of W1AW, answers for itself alone: it gets in while
    // the callsign waits, even from an address that guessed.
    let from_guesser = Browser::at(&server.url, Some("127.0.0.16"));
    *from_guesser.cookies.borrow_mut() = owner.cookies.borrow().clone();
    assert_eq!(from_guesser.sign_in("W1AW", PASSWORD).location(), "/log");
    assert!(failures_of(&server, "callsign:W1AW", "10"));
    // A copied device cookie is no master key: it has failures of its own to use up.
    from_guesser.submit("/keys", "/signout", &[]);
    let (t0, t1) = timed_failures(5, |_| {
        from_guesser
            .sign_in("W1AW", "not the password")
            .expect(400, WRONG);
    });
    hold(&server, "device:%", 1000, t0, t1);
    from_guesser
        .sign_in("W1AW", PASSWORD)
        .expect(429, "Too many failed sign-ins");
    // The device cookie belongs to W1AW: for another callsign it counts for nothing.
    let elsewhere = Browser::at(&server.url, Some("127.0.0.6"));
    *elsewhere.cookies.borrow_mut() = owner.cookies.borrow().clone();
    assert_eq!(elsewhere.sign_in("K1ABC", PASSWORD).location(), "/log");

    // An unknown callsign is counted like a known one, with the same answer.
    let (t0, t1) = timed_failures(5, |i| {
        attempt(
            &server.url,
            &format!("127.0.0.{}", 60 + i),
            "K9ZZZ",
            "not the password",
        )
        .expect(400, WRONG);
    });
    hold(&server, "callsign:K9ZZZ", 1000, t0, t1);
    attempt(&server.url, "127.0.0.65", "K9ZZZ", PASSWORD).expect(429, "Too many failed sign-ins");

    // Successes are not failures: many in a row are all let in.
    for _ in 0..7 {
        assert_eq!(
            attempt(&server.url, "127.0.0.8", "K1ABC", PASSWORD).location(),
            "/log"
        );
    }

    // Once the window has passed (every stored time moved back 15 minutes), the count starts
    // again and W1AW signs in from anywhere.
    let windows = server.exec_sql(
        "UPDATE signin_attempts SET window_start = window_start - 900000, next_at = next_at - 900000",
        &[],
    );
    assert!(windows >= 3, "{windows}");
    assert_eq!(
        attempt(&server.url, "127.0.0.30", "W1AW", PASSWORD).location(),
        "/log"
    );
    assert!(failures_of(&server, "callsign:W1AW", "0"));
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
    // ...and the eleventh waits for the window's end, with nothing made.
    let refused = sign_up(&from(&server.url), "K10SU");
    refused
        .expect(429, "Too many sign-ups")
        .expect(429, "from your address");
    assert!((1..=900).contains(&retry_after(&refused)), "{refused:?}");
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

fn the_server_wide_sign_up_limit_holds_across_processes() {
    let server = Server::start_with(&["--signup-limit", "4"]);
    let peer = server.another(&["--signup-limit", "4"]);
    // Eight sign-ups at once from eight addresses, half at each process: the two processes
    // count in one database, so four accounts are made and four are refused.
    let pages: Vec<super::Page> = std::thread::scope(|scope| {
        let sign_ups: Vec<_> = (0..8)
            .map(|i| {
                let base = if i % 2 == 0 { &server.url } else { &peer.url };
                scope.spawn(move || {
                    Browser::at(base, Some(&format!("127.0.0.{}", 10 + i)))
                        .sign_up(&format!("K{i}SV"), PASSWORD)
                })
            })
            .collect();
        sign_ups.into_iter().map(|t| t.join().unwrap()).collect()
    });
    let made = pages.iter().filter(|p| p.status == 303).count();
    assert_eq!(made, 4, "{pages:?}");
    for page in pages.iter().filter(|p| p.status != 303) {
        page.expect(429, "Too many sign-ups on this server");
        assert!((1..=3600).contains(&retry_after(page)), "{page:?}");
    }
    assert_eq!(
        server.exec_sql(
            "UPDATE accounts SET plan = plan WHERE callsign LIKE 'K_SV'",
            &[]
        ),
        4
    );
    // The limit is the whole server's: a new address and a new callsign wait too, at either
    // process, and nothing is made.
    Browser::at(&peer.url, Some("127.0.0.30"))
        .sign_up("N0NEW", PASSWORD)
        .expect(429, "Too many sign-ups on this server");
    assert_eq!(
        server.exec_sql(
            "UPDATE accounts SET plan = plan WHERE callsign = 'N0NEW'",
            &[]
        ),
        0
    );
    // An hour later (the window moved back) sign-ups open again.
    assert_eq!(
        server.exec_sql(
            "UPDATE signin_attempts SET window_start = window_start - 3600000, \
             next_at = next_at - 3600000 WHERE scope = 'signup-server'",
            &[],
        ),
        1
    );
    assert_eq!(
        Browser::at(&server.url, Some("127.0.0.30"))
            .sign_up("N0NEW", PASSWORD)
            .location(),
        "/keys"
    );
}

fn a_sign_up_limit_of_zero_closes_the_sign_up_page() {
    let server = Server::start_with(&["--signup-limit", "0"]);
    let browser = Browser::new(&server);
    browser
        .get("/signup")
        .expect(403, "Sign-ups are closed")
        .expect(403, "for an account");
    // A form posted anyway (with a valid token, from the sign-in page) makes nothing.
    browser
        .submit(
            "/signin",
            "/signup",
            &[
                ("callsign", "W1AW"),
                ("password", PASSWORD),
                ("confirm", PASSWORD),
            ],
        )
        .expect(403, "Sign-ups are closed");
    assert_eq!(server.exec_sql("UPDATE accounts SET plan = plan", &[]), 0);
    // An account the operator made still signs in.
    let out = crate::common::admin_on(
        &server.db.url,
        &["user", "add", "W1AW", "--password-stdin"],
        Some(PASSWORD),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(browser.sign_in("W1AW", PASSWORD).location(), "/log");
}

crate::both_backends!(
    sessions_expire_when_idle_and_after_seven_days,
    sessions_are_shared_by_every_server_process,
    a_shared_address_delays_a_neighbour_by_seconds_instead_of_locking_it_out,
    fresh_addresses_cannot_multiply_guesses_at_a_callsign,
    sign_ups_are_limited_per_address_and_a_taken_callsign_is_refused,
    the_server_wide_sign_up_limit_holds_across_processes,
    a_sign_up_limit_of_zero_closes_the_sign_up_page,
);
