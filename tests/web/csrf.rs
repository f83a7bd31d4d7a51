//! Every form post needs the token of the visitor's own page and, when the browser names one,
//! this site's origin; a refusal is a 403 page and changes nothing.

use super::{Browser, PASSWORD, Page};
use crate::common::Server;

const FOREIGN: &str = "http://evil.example";

/// Posts `fields` to `action` in each way a forged form would come, and asserts each is refused.
/// `good` is the visitor's real token.
fn assert_refused(
    browser: &Browser,
    action: &str,
    good: &str,
    fields: &[(&str, &str)],
    stranger: &str,
) {
    fn with<'a>(fields: &[(&'a str, &'a str)], csrf: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
        let mut all = fields.to_vec();
        if let Some(token) = csrf {
            all.push(("csrf", token));
        }
        all
    }
    let own = browser.base.clone();
    let wrong = "A".repeat(52);
    type Fields<'a> = Vec<(&'a str, &'a str)>;
    let attempts: Vec<(&str, Fields, Fields)> = vec![
        (
            "no token",
            with(fields, None),
            vec![("origin", own.as_str())],
        ),
        (
            "an empty token",
            with(fields, Some("")),
            vec![("origin", own.as_str())],
        ),
        (
            "a wrong token",
            with(fields, Some(&wrong)),
            vec![("origin", own.as_str())],
        ),
        (
            "another visitor's token",
            with(fields, Some(stranger)),
            vec![("origin", own.as_str())],
        ),
        ("no token and no origin", with(fields, None), vec![]),
        (
            "a foreign origin",
            with(fields, Some(good)),
            vec![("origin", FOREIGN)],
        ),
        (
            "the null origin",
            with(fields, Some(good)),
            vec![("origin", "null")],
        ),
        (
            "a cross-site fetch",
            with(fields, Some(good)),
            vec![("sec-fetch-site", "cross-site")],
        ),
        (
            "a same-site fetch from a sibling host",
            with(fields, Some(good)),
            vec![("origin", own.as_str()), ("sec-fetch-site", "same-site")],
        ),
    ];
    for (what, fields, headers) in attempts {
        let page: Page = browser.post_with(action, &fields, &headers);
        page.expect(403, "nothing was changed");
        assert!(
            page.body.contains("The form was refused"),
            "{action}, {what}"
        );
        assert!(
            page.set_cookie("svc_session").is_none(),
            "{action}, {what}: {:?}",
            page.headers
        );
    }
}

fn signed_out_forms_need_their_token_and_origin() {
    let server = Server::start();
    let stranger = Browser::new(&server).get("/signin").field("csrf");
    let visitor = Browser::new(&server);
    let good = visitor.get("/signup").field("csrf");
    assert_ne!(good, stranger, "each visitor has a token of their own");
    let fields = [
        ("callsign", "W1AW"),
        ("password", PASSWORD),
        ("confirm", PASSWORD),
    ];
    assert_refused(&visitor, "/signup", &good, &fields, &stranger);
    // Nothing was created.
    assert_eq!(
        server.admin(&["key", "list", "W1AW"]).status.code(),
        Some(1)
    );
    assert!(visitor.session().is_none());

    // The same form with its token and origin works.
    let mut ok = fields.to_vec();
    ok.push(("csrf", &good));
    assert_eq!(visitor.post("/signup", &ok).location(), "/keys");

    // Sign in too, from a signed-out visitor.
    let other = Browser::new(&server);
    let good = other.get("/signin").field("csrf");
    let fields = [("callsign", "W1AW"), ("password", PASSWORD)];
    assert_refused(&other, "/signin", &good, &fields, &stranger);
    assert!(other.session().is_none());
    // A refused sign-in was not counted as a failed one: five real failures still pass.
    for _ in 0..4 {
        other
            .sign_in("W1AW", "not the password")
            .expect(400, "wrong");
    }
    assert_eq!(other.sign_in("W1AW", PASSWORD).location(), "/log");
}

fn signed_in_forms_need_their_sessions_token_and_origin() {
    let server = Server::start();
    let owner = Browser::signed_up(&server, "W1AW");
    let stranger = Browser::signed_up(&server, "K1ABC")
        .get("/keys")
        .field("csrf");
    let keys = owner.get("/keys");
    let good = keys.field("csrf");
    let form = keys.field("form");

    // Generate: refused forms make no key.
    let fields = [
        ("form", form.as_str()),
        ("name", "laptop"),
        ("tier", "elevated"),
    ];
    assert_refused(&owner, "/keys", &good, &fields, &stranger);
    assert!(owner.get("/keys").listed_keys().is_empty());

    // Revoke: refused forms leave the key working.
    let (_, key) = owner.generate("laptop", "elevated");
    let (id, _) = owner.get("/keys").listed_keys().remove(0);
    let action = format!("/keys/{id}/revoke");
    assert_refused(&owner, &action, &good, &[], &stranger);
    assert_eq!(server.api(Some(&key)).whoami()["callsign"], "W1AW");
    owner.get("/keys").expect(200, "Active");

    // Sign out: refused forms leave the session signed in.
    assert_refused(&owner, "/signout", &good, &[], &stranger);
    owner.get("/keys").expect(200, "Sign out W1AW");

    // A token belongs to its session: after signing out and in again the old one is refused.
    assert_eq!(
        owner.post("/signout", &[("csrf", &good)]).location(),
        "/signin?notice=signed-out"
    );
    assert_eq!(owner.sign_in("W1AW", PASSWORD).location(), "/log");
    let old = owner.post(&action, &[("csrf", &good)]);
    old.expect(403, "nothing was changed");
    assert_eq!(server.api(Some(&key)).whoami()["callsign"], "W1AW");
    // With the new session's token the revocation goes through.
    let page = owner.submit(&format!("/keys/{id}/revoke"), &action, &[]);
    assert_eq!(page.location(), format!("/keys?revoked={id}"));
}

fn forms_must_be_forms() {
    let server = Server::start();
    let owner = Browser::signed_up(&server, "W1AW");
    let csrf = owner.get("/keys").field("csrf");
    // JSON, or no body type at all, to a page's form address.
    let http = crate::common::http_builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let cookie = format!("svc_session={}", owner.session().unwrap());
    let r = http
        .post(format!("{}/keys", server.url))
        .header("cookie", &cookie)
        .header("content-type", "application/json")
        .body(format!(
            "{{\"csrf\":\"{csrf}\",\"name\":\"x\",\"tier\":\"basic\"}}"
        ))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    assert!(
        r.text()
            .unwrap()
            .contains("takes a form sent from its own page")
    );
    // A form larger than the pages take.
    let big = "x".repeat(20_000);
    let page = owner.post("/keys", &[("csrf", &csrf), ("name", &big)]);
    page.expect(400, "larger than 16 KiB");
    // A field sent twice.
    let page = owner.post_with(
        "/keys",
        &[("csrf", &csrf), ("tier", "basic"), ("tier", "elevated")],
        &[("origin", &server.url)],
    );
    page.expect(400, "sent the field &quot;tier&quot; twice");
    assert!(owner.get("/keys").listed_keys().is_empty());
}

crate::both_backends!(
    signed_out_forms_need_their_token_and_origin,
    signed_in_forms_need_their_sessions_token_and_origin,
    forms_must_be_forms,
);
