//! Sign up, sign in and out, the account page, redirects of signed-out visitors, the pages'
//! headers and cookies, and the API's JSON answers left as they were.

use super::{Browser, PASSWORD};
use crate::common::{Server, contact, this_month};

/// The headers every page carries.
pub fn assert_page_headers(page: &super::Page, what: &str) {
    let csp = page
        .header("content-security-policy")
        .unwrap_or_else(|| panic!("{what}: no CSP"));
    for part in [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "frame-ancestors 'none'",
        "form-action 'self'",
    ] {
        assert!(csp.contains(part), "{what}: CSP {csp:?} lacks {part}");
    }
    assert!(!csp.contains("unsafe-inline"), "{what}: {csp}");
    assert_eq!(
        page.header("x-content-type-options"),
        Some("nosniff"),
        "{what}"
    );
    assert_eq!(
        page.header("referrer-policy"),
        Some("no-referrer"),
        "{what}"
    );
    assert_eq!(page.header("cache-control"), Some("no-store"), "{what}");
    assert!(
        page.header("x-request-id")
            .is_some_and(|id| id.starts_with("req_")),
        "{what}"
    );
}

fn signed_out_visitors_are_sent_to_sign_in() {
    let server = Server::start();
    let owner = Browser::signed_up(&server, "W1AW");
    owner.generate("laptop", "basic");
    let (id, _) = owner.get("/keys").listed_keys().remove(0);

    let visitor = Browser::new(&server);
    for (path, to) in [
        ("/", "/log"),
        ("/keys", "/signin?next=/keys"),
        ("/account", "/signin?next=/account"),
        (&format!("/keys/{id}/revoke") as &str, "/signin?next=/keys"),
    ] {
        let page = visitor.get(path);
        assert_eq!(page.location(), to, "{path}");
        assert!(!page.body.contains("W1AW"), "{path}: {}", page.body);
        assert_page_headers(&page, path);
    }
    // A signed-out form post with a valid (pre-session) token is sent to sign in, and does nothing.
    let signin = visitor.get("/signin");
    let csrf = signin.field("csrf");
    let page = visitor.post(
        "/keys",
        &[
            ("csrf", &csrf),
            ("form", "AAAAAAAAAAAAAAAAAAAAAAAAAA"),
            ("name", "x"),
            ("tier", "basic"),
        ],
    );
    assert_eq!(page.location(), "/signin?next=/keys");
    let page = visitor.post(&format!("/keys/{id}/revoke"), &[("csrf", &csrf)]);
    assert_eq!(page.location(), "/signin?next=/keys");
    let listed = owner.get("/keys");
    assert_eq!(listed.listed_keys().len(), 1, "{}", listed.body);
    assert!(listed.body.contains("Active"), "{}", listed.body);

    // After signing in, the visitor lands where they were going.
    let out = crate::common::admin_on(
        &server.db.url,
        &["user", "add", "K1ABC", "--password-stdin"],
        Some(PASSWORD),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = visitor.get("/signin?next=/account");
    let page = visitor.post(
        "/signin",
        &[
            ("csrf", &page.field("csrf")),
            ("next", &page.field("next")),
            ("callsign", "k1abc"),
            ("password", PASSWORD),
        ],
    );
    assert_eq!(page.location(), "/account");
    visitor.get("/account").expect(200, "K1ABC");
    // A sign-in page asked for an address elsewhere leads to our own page instead.
    let page = visitor.get("/signin?next=https://evil.example/");
    assert_eq!(page.location(), "/log");
}

fn sign_up_sign_in_and_sign_out() {
    let server = Server::start();
    let browser = Browser::new(&server);
    let form = browser.get("/signup");
    form.expect(200, "Create an account");
    assert_page_headers(&form, "/signup");
    let presession = form
        .set_cookie("svc_presession")
        .expect("a pre-session cookie");
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(presession.contains(attribute), "{presession}");
    }
    assert!(!presession.contains("Secure"), "plain HTTP: {presession}");

    let page = browser.sign_up(" w1aw ", PASSWORD);
    assert_eq!(page.location(), "/keys");
    let cookie = page.set_cookie("svc_session").expect("a session cookie");
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(cookie.contains(attribute), "{cookie}");
    }
    let session = browser.session().unwrap();
    assert!(session.len() >= 43, "a session id of 256 bits: {session}");
    assert!(!browser.cookies.borrow().contains_key("svc_presession"));

    let keys = browser.get("/keys");
    keys.expect(200, "Generate a key")
        .expect(200, "No keys yet");
    assert!(keys.body.contains("Sign out W1AW"), "{}", keys.body);
    assert_page_headers(&keys, "/keys");
    // A signed-in visitor asking for the sign-in or sign-up page goes to the log.
    assert_eq!(browser.get("/signin").location(), "/log");
    assert_eq!(browser.get("/signup").location(), "/log");

    // Sign out: the session is gone from the database, so the old cookie no longer works.
    let page = browser.submit("/keys", "/signout", &[]);
    assert_eq!(page.location(), "/signin?notice=signed-out");
    assert!(
        page.set_cookie("svc_session")
            .unwrap()
            .contains("Max-Age=0")
    );
    assert!(browser.session().is_none());
    browser
        .get("/signin?notice=signed-out")
        .expect(200, "You are signed out.");
    browser
        .cookies
        .borrow_mut()
        .insert("svc_session".into(), session);
    let page = browser.get("/keys");
    assert_eq!(page.location(), "/signin?next=/keys&notice=expired");

    // Sign in again; a wrong password and an unknown callsign get the very same answer.
    let wrong = browser.sign_in("W1AW", "not the password");
    wrong.expect(400, "The callsign or the password is wrong.");
    let unknown = browser.sign_in("K9ZZZ", PASSWORD);
    unknown.expect(400, "The callsign or the password is wrong.");
    let strip = |body: &str| {
        body.replace("K9ZZZ", "W1AW")
            .split("name=\"csrf\"")
            .next()
            .unwrap()
            .to_owned()
    };
    assert_eq!(strip(&wrong.body), strip(&unknown.body));
    browser
        .sign_in("W1AW", "")
        .expect(400, "Enter your password.");
    browser
        .sign_in("", PASSWORD)
        .expect(400, "Enter your callsign.");
    browser
        .sign_in("W1 AW", PASSWORD)
        .expect(400, "is not a callsign");
    let page = browser.sign_in("w1aw", PASSWORD);
    assert_eq!(page.location(), "/log");
    browser.get("/keys").expect(200, "Sign out W1AW");
}

/// The operator's commands reach the web pages: a disabled account's session ends and its
/// sign-in is refused after a right password; a new password replaces the old one; the
/// sign-up page makes accounts of `--default-plan`.
fn the_operators_commands_reach_the_web_pages() {
    let server = Server::start_with(&["--default-plan", "paid"]);
    let browser = Browser::signed_up(&server, "W1AW");
    let accounts: serde_json::Value =
        serde_json::from_slice(&server.admin(&["user", "list", "--json"]).stdout).unwrap();
    assert_eq!(accounts[0]["plan"], "paid", "{accounts}");
    assert!(server.admin(&["user", "disable", "W1AW"]).status.success());
    assert_eq!(
        browser.get("/keys").location(),
        "/signin?next=/keys&notice=expired"
    );
    browser
        .sign_in("W1AW", "not the password")
        .expect(400, "The callsign or the password is wrong.");
    browser.sign_in("W1AW", PASSWORD).expect(
        400,
        "This account was disabled by the service&#39;s operator.",
    );
    assert!(server.admin(&["user", "enable", "W1AW"]).status.success());
    let out = crate::common::admin_on(
        &server.db.url,
        &["user", "password", "W1AW", "--password-stdin"],
        Some("a brand new password\n"),
    );
    assert!(out.status.success(), "{out:?}");
    browser
        .sign_in("W1AW", PASSWORD)
        .expect(400, "The callsign or the password is wrong.");
    let page = browser.sign_in("W1AW", "a brand new password");
    assert_eq!(page.location(), "/log");
}

fn sign_up_refuses_bad_input_and_changes_nothing() {
    let server = Server::start();
    let browser = Browser::new(&server);
    for (callsign, password, confirm, says) in [
        ("", PASSWORD, PASSWORD, "Enter your callsign"),
        ("HELLO", PASSWORD, PASSWORD, "is not a callsign"),
        ("W1AW", "short", "short", "at least 8 characters"),
        (
            "W1AW",
            PASSWORD,
            "something else",
            "The two passwords differ",
        ),
        (
            "W1AW",
            &"p".repeat(1025),
            &"p".repeat(1025),
            "at most 1024 characters",
        ),
    ] {
        let page = browser.submit(
            "/signup",
            "/signup",
            &[
                ("callsign", callsign),
                ("password", password),
                ("confirm", confirm),
            ],
        );
        page.expect(400, says);
        assert!(browser.session().is_none(), "{says}");
        // What was typed stays in the form, but never a password.
        assert!(!page.body.contains(PASSWORD), "{says}");
    }
    // Nothing was created: the callsign is still free.
    let out = server.admin(&["key", "list", "W1AW"]);
    assert_eq!(out.status.code(), Some(1), "no account W1AW yet");

    let first = Browser::signed_up(&server, "W1AW");
    drop(first);
    let again = Browser::new(&server);
    again
        .sign_up("W1AW", "another password")
        .expect(400, "There is an account for W1AW already");
    assert!(again.session().is_none());
    // The first account's password still works; the second sign-up changed nothing.
    assert_eq!(again.sign_in("W1AW", PASSWORD).location(), "/log");
}

fn the_account_page_shows_callsign_plan_and_count_of_200() {
    let server = Server::start();
    let browser = Browser::signed_up(&server, "W1AW");
    let page = browser.get("/account");
    page.expect(200, "W1AW")
        .expect(200, "free")
        .expect(200, "0 of 200");
    assert_page_headers(&page, "/account");

    // A key from the keys page logs contacts; the page counts them.
    let (_, key) = browser.generate("laptop", "basic");
    let api = server.api(Some(&key));
    let folder = api.monthly(&this_month().0, None);
    for call in ["K1ABC", "K2XYZ"] {
        let r = api.post("/v1/contacts", contact(&folder, call));
        assert_eq!(r.status, 201, "{}", r.body);
    }
    browser.get("/account").expect(200, "2 of 200");
    // The cap shown is the server's own.
    let capped = Server::start_with(&["--free-plan-cap", "50"]);
    Browser::signed_up(&capped, "K1ABC")
        .get("/account")
        .expect(200, "0 of 50");
}

fn the_api_keeps_its_json_answers_and_pages_their_html() {
    let server = Server::start();
    let browser = Browser::signed_up(&server, "W1AW");
    // Unknown /v1/ routes and wrong methods there are JSON envelopes, signed in or not.
    let api = server.api(None);
    let r = api.get("/v1/keys");
    r.expect_error(404, "not_found");
    let r = api.send("POST", "/v1/whoami", None, &[]);
    r.expect_error(404, "not_found");
    // A page with a wrong method is an HTML page that says so, with the page's headers.
    let page = browser.post_with("/account", &[], &[]);
    page.expect(405, "cannot be used with POST");
    assert_page_headers(&page, "POST /account");
    let page = Browser::new(&server).get("/signout");
    page.expect(405, "cannot be used with GET");
    // The assets are ours, with a type that browsers will not second-guess.
    let css = browser.get("/assets/web.css");
    assert_eq!(css.status, 200);
    assert!(css.header("content-type").unwrap().starts_with("text/css"));
    assert_eq!(css.header("x-content-type-options"), Some("nosniff"));
    let js = browser.get("/assets/keys.js");
    assert_eq!(js.status, 200);
    assert!(
        js.header("content-type")
            .unwrap()
            .starts_with("text/javascript")
    );
    assert!(js.body.contains("showModal"));
    // Pages load nothing from other hosts.
    browser.generate("laptop", "elevated");
    let signed_out = Browser::new(&server);
    for (who, path) in [
        (&browser, "/keys"),
        (&browser, "/account"),
        (&signed_out, "/signin"),
        (&signed_out, "/signup"),
    ] {
        let page = who.get(path);
        assert_eq!(page.status, 200, "{path}");
        for attribute in ["src=\"", "href=\""] {
            for at in page
                .body
                .match_indices(attribute)
                .map(|(i, _)| i + attribute.len())
            {
                let target = &page.body[at..];
                assert!(
                    target.starts_with('/') || target.starts_with('#'),
                    "{path}: {}",
                    &target[..target.find('"').unwrap()]
                );
            }
        }
    }
}

fn cookies_are_secure_over_https() {
    // Behind a TLS proxy that says so:
    let server = Server::start();
    let browser = Browser::new(&server);
    let page = browser.get_with("/signin", &[("x-forwarded-proto", "https")]);
    let cookie = page
        .set_cookie("__Host-svc_presession")
        .expect("a __Host- cookie");
    assert!(cookie.contains("; Secure"), "{cookie}");
    assert!(page.set_cookie("svc_presession").is_none());

    // With an https public URL, every cookie is Secure, and posts must come from that origin.
    let public = Server::start_with(&["--public-url", "https://log.example.org"]);
    let browser = Browser::new(&public);
    let form = browser.get("/signup");
    let cookie = form
        .set_cookie("__Host-svc_presession")
        .expect("a __Host- cookie");
    assert!(cookie.contains("; Secure"), "{cookie}");
    let fields = [
        ("csrf", form.field("csrf")),
        ("callsign", "W1AW".to_owned()),
        ("password", PASSWORD.to_owned()),
        ("confirm", PASSWORD.to_owned()),
    ];
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // Its own address as seen by the test is not the public origin: refused.
    browser
        .post("/signup", &fields)
        .expect(403, "sent from another site");
    let page = browser.post_with("/signup", &fields, &[("origin", "https://log.example.org")]);
    assert_eq!(page.location(), "/keys", "{}", page.body);
    let cookie = page
        .set_cookie("__Host-svc_session")
        .expect("a session cookie");
    assert!(
        cookie.contains("; Secure") && cookie.contains("HttpOnly"),
        "{cookie}"
    );

    // A malformed public URL stops the server before it starts.
    let out = std::process::Command::new(crate::common::BIN)
        .args([
            "server",
            "start",
            "--bind",
            "127.0.0.1:0",
            "--public-url",
            "log.example.org/svc",
        ])
        .args(["--database", &public.db.url])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--public-url"), "{stderr}");
}

crate::both_backends!(
    the_operators_commands_reach_the_web_pages,
    signed_out_visitors_are_sent_to_sign_in,
    sign_up_sign_in_and_sign_out,
    sign_up_refuses_bad_input_and_changes_nothing,
    the_account_page_shows_callsign_plan_and_count_of_200,
    the_api_keeps_its_json_answers_and_pages_their_html,
    cookies_are_secure_over_https,
);
