//! The keys page: generating with the one-time reveal, revoking (own keys only), bad input,
//! and that no response or log line ever holds a key's hash, or its plaintext outside the
//! one reveal.

use sha2::{Digest, Sha256};

use super::{Browser, Page};
use crate::common::Server;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn base64(bytes: &[u8], alphabet: &[u8; 64]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(alphabet[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// Every way a key's SHA-256 could be written out: hex both cases, base64 and base64url (the
/// unpadded forms are prefixes of the padded ones), base32.
fn hash_forms(key: &str) -> Vec<String> {
    let hash = Sha256::digest(key.as_bytes());
    let standard = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let url = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    vec![
        hex(&hash),
        hex(&hash).to_uppercase(),
        base64(&hash, standard),
        base64(&hash, url),
        svc::model::ids::base32(&hash),
        svc::model::ids::base32(&hash).to_lowercase(),
    ]
}

fn assert_absent(haystack: &str, key: &str, what: &str) {
    assert!(!haystack.contains(key), "{what} holds the plaintext key");
    for form in hash_forms(key) {
        assert!(
            !haystack.contains(&form),
            "{what} holds the key's hash as {form}"
        );
    }
}

fn a_key_is_revealed_once_and_works_until_revoked() {
    let server = Server::start();
    let browser = Browser::signed_up(&server, "W1AW");
    let list = browser.get("/keys");
    let (csrf, form) = (list.field("csrf"), list.field("form"));
    let fields = [
        ("csrf", csrf.as_str()),
        ("form", form.as_str()),
        ("name", "shack <PC> & \"friends\""),
        ("tier", "elevated"),
    ];
    let reveal = browser.post("/keys", &fields);
    reveal.expect(200, "This is the only time this key is shown");
    assert_eq!(reveal.header("cache-control"), Some("no-store"));
    let key = reveal.revealed_key().unwrap();
    assert!(svc::model::ApiKey::parse(&key).is_some(), "{key}");
    assert_eq!(
        reveal.body.matches(&key).count(),
        1,
        "shown once, in the dialog"
    );
    assert!(
        reveal.body.contains("<dialog id=\"reveal\""),
        "{}",
        reveal.body
    );
    assert!(reveal.body.contains("<script src=\"/assets/keys.js\""));
    // What the user typed is shown escaped, never as markup.
    assert!(
        reveal
            .body
            .contains("shack &lt;PC&gt; &amp; &quot;friends&quot;")
    );
    assert!(!reveal.body.contains("<PC>"));

    // The key works, with its tier, and the list says it was used.
    let api = server.api(Some(&key));
    assert_eq!(api.whoami()["tier"], "elevated");
    let list = browser.get("/keys");
    assert!(list.revealed_key().is_none());
    assert!(!list.body.contains(&key));
    let keys = list.listed_keys();
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0].1, key[..12]);
    assert!(list.body.contains("elevated") && list.body.contains("Active"));

    // Posting the same form again (a reload, the back button) makes no key and shows none.
    let again = browser.post("/keys", &fields);
    again.expect(409, "This form was sent before");
    assert!(again.revealed_key().is_none());
    assert!(!again.body.contains(&key));
    assert_eq!(browser.get("/keys").listed_keys().len(), 1);

    // Revoke it, through the confirmation page.
    let id = &keys[0].0;
    let confirm = browser.get(&format!("/keys/{id}/revoke"));
    confirm
        .expect(200, "Revoke this key?")
        .expect(200, &key[..12]);
    assert!(!confirm.body.contains(&key));
    let page = browser.post(
        &format!("/keys/{id}/revoke"),
        &[("csrf", &confirm.field("csrf"))],
    );
    assert_eq!(page.location(), format!("/keys?revoked={id}"));
    let list = browser.get(&format!("/keys?revoked={id}"));
    list.expect(200, "is revoked")
        .expect(200, "Revoked")
        .expect(200, "(reason: user)");
    assert!(
        !list.body.contains(&format!("/keys/{id}/revoke")),
        "no revoke link any more"
    );
    let r = api.get("/v1/whoami");
    r.expect_error(401, "key_revoked");
    // The record: revokedAt set, revokedReason user.
    let out = server.admin(&["key", "list", "W1AW", "--json"]);
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed[0]["revokedReason"], "user");
    assert!(listed[0]["revokedAt"].is_string(), "{listed}");

    // Revoking again changes nothing and says so.
    browser
        .submit("/keys", &format!("/keys/{id}/revoke"), &[])
        .expect(409, "was revoked already");
    browser
        .get(&format!("/keys/{id}/revoke"))
        .expect(409, "was revoked already");
}

fn another_accounts_key_cannot_be_revoked() {
    let server = Server::start();
    let alice = Browser::signed_up(&server, "W1AW");
    let bob = Browser::signed_up(&server, "K1ABC");
    let (_, bobs_key) = bob.generate("laptop", "basic");
    let (bobs_id, _) = bob.get("/keys").listed_keys().remove(0);
    alice.generate("mine", "basic");

    // Alice sees only her own key, and cannot reach Bob's.
    let list = alice.get("/keys");
    assert_eq!(list.listed_keys().len(), 1);
    assert!(!list.body.contains(&bobs_id));
    alice
        .get(&format!("/keys/{bobs_id}/revoke"))
        .expect(404, "Your account has no key");
    let page = alice.submit("/keys", &format!("/keys/{bobs_id}/revoke"), &[]);
    page.expect(404, "Your account has no key");
    // A key id that does not exist, and something that is not a key id, say the same.
    alice
        .submit("/keys", "/keys/key_aaaaaaaaaaaaaaaa/revoke", &[])
        .expect(404, "Your account has no key");
    alice
        .submit("/keys", "/keys/..%2Fetc/revoke", &[])
        .expect(404, "Your account has no key");

    // Bob's key is untouched.
    assert_eq!(server.api(Some(&bobs_key)).whoami()["callsign"], "K1ABC");
    bob.get("/keys").expect(200, "Active");
    let out = server.admin(&["key", "list", "K1ABC", "--json"]);
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(listed[0]["revokedAt"].is_null(), "{listed}");
}

fn bad_key_forms_say_what_to_fix_and_make_nothing() {
    let server = Server::start();
    let browser = Browser::signed_up(&server, "W1AW");
    let long = "n".repeat(101);
    for (name, tier, says) in [
        ("", "basic", "Give the key a name"),
        ("   ", "elevated", "Give the key a name"),
        (long.as_str(), "basic", "longer than 100 characters"),
        ("two\nlines", "basic", "one line"),
        ("laptop", "", "Choose a tier"),
        ("laptop", "admin", "Choose a tier"),
    ] {
        let list = browser.get("/keys");
        let page = browser.post(
            "/keys",
            &[
                ("csrf", &list.field("csrf")),
                ("form", &list.field("form")),
                ("name", name),
                ("tier", tier),
            ],
        );
        page.expect(400, says).expect(400, "No key was made");
        assert!(page.revealed_key().is_none(), "{says}");
        // The form keeps what was typed, to be corrected.
        if !name.trim().is_empty() && !name.contains('\n') {
            assert_eq!(page.field("name"), name, "{says}");
        }
    }
    // A missing or damaged one-time token.
    for token in ["", "short", "aaaaaaaaaaaaaaaaaaaaaaaaaa"] {
        let list = browser.get("/keys");
        browser
            .post(
                "/keys",
                &[
                    ("csrf", &list.field("csrf")),
                    ("form", token),
                    ("name", "laptop"),
                    ("tier", "basic"),
                ],
            )
            .expect(400, "Reload the keys page");
    }
    assert!(browser.get("/keys").listed_keys().is_empty());
    let out = server.admin(&["key", "list", "W1AW", "--json"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");
}

fn no_response_or_log_holds_a_key_hash_or_a_plaintext_outside_its_reveal() {
    let server = Server::process();
    let browser = Browser::signed_up(&server, "W1AW");
    let mut keys = Vec::new();
    let mut reveals: Vec<Page> = Vec::new();
    for (name, tier) in [
        ("laptop", "basic"),
        ("shack", "elevated"),
        ("phone", "basic"),
    ] {
        let (page, key) = browser.generate(name, tier);
        keys.push(key);
        reveals.push(page);
    }
    // A key made by the operator too, whose plaintext no page ever had.
    let admin_key = server.new_key("W1AW", "basic").key().to_owned();
    let before = browser.transcript();

    // Every page and answer after the reveals: lists, confirmations, errors, the API.
    let listed = browser.get("/keys").listed_keys();
    assert_eq!(listed.len(), 4);
    for key in keys.iter().chain([&admin_key]) {
        server.api(Some(key)).whoami();
    }
    for (id, _) in &listed {
        browser.get(&format!("/keys/{id}/revoke"));
    }
    browser.submit("/keys", &format!("/keys/{}/revoke", listed[0].0), &[]);
    browser.submit("/keys", &format!("/keys/{}/revoke", listed[0].0), &[]);
    browser.get(&format!("/keys?revoked={}", listed[0].0));
    browser.get("/account");
    browser.get("/keys/key_aaaaaaaaaaaaaaaa/revoke");
    browser.post("/keys", &[("csrf", "forged")]);
    browser.get("/keys");
    let after = browser.transcript();
    let later = &after[before.len()..];
    let logs = server.logs();
    for key in keys.iter().chain([&admin_key]) {
        assert_absent(later, key, "a page after the reveal");
        assert_absent(&logs, key, "the server log");
    }
    // Each reveal holds its own key and no other, and no hash at all.
    for (i, reveal) in reveals.iter().enumerate() {
        for (j, key) in keys.iter().enumerate().chain([(usize::MAX, &admin_key)]) {
            let text = format!("{:?}\n{}", reveal.headers, reveal.body);
            for form in hash_forms(key) {
                assert!(!text.contains(&form), "reveal {i} holds a hash of key {j}");
            }
            assert_eq!(text.contains(key.as_str()), i == j, "reveal {i}, key {j}");
        }
    }
    // The session id stays in the cookie: never in a page or the log.
    let session = browser.session().unwrap();
    assert!(!logs.contains(&session), "the log holds the session id");
    let bodies: String = reveals.iter().map(|p| p.body.as_str()).collect::<String>() + later;
    assert!(!bodies.contains(&session), "a page holds the session id");
}

/// Keys of the shape the published Hamtrax client stores (`htx_live_…`): made on the keys page
/// and by `svc server key create --prefix htx`, and taken by the API and by svc's own client.
fn hamtrax_shaped_keys_are_made_and_work() {
    let server = Server::start();
    let browser = Browser::signed_up(&server, "W1AW");
    let list = browser.get("/keys");
    let page = browser.post(
        "/keys",
        &[
            ("csrf", list.field("csrf").as_str()),
            ("form", list.field("form").as_str()),
            ("name", "hamtrax"),
            ("tier", "basic"),
            ("prefix", "htx"),
        ],
    );
    page.expect(200, "This is the only time this key is shown");
    let key = page.revealed_key().unwrap();
    assert!(key.starts_with("htx_live_"), "{key}");
    let api = server.api(Some(&key));
    assert_eq!(api.whoami()["callsign"], "W1AW");
    assert!(browser.get("/keys").body.contains(&key[..12]));

    let out = server.admin(&[
        "key", "create", "W1AW", "--name", "cli", "--tier", "elevated", "--prefix", "htx",
    ]);
    assert!(out.status.success(), "{out:?}");
    let key = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    assert!(key.starts_with("htx_live_"), "{key}");
    let cli = crate::cli::Cli::new(&server.url);
    cli.set_env("SVC_NO_KEYRING", "1");
    cli.run_stdin(&["auth", "login"], &format!("{key}\n")).ok();
    assert!(cli.run(&["whoami"]).ok().stdout.contains("W1AW"));
    let out = server.admin(&["key", "revoke", &key[..12]]);
    assert!(out.status.success(), "{out:?}");
    server
        .api(Some(&key))
        .get("/v1/whoami")
        .expect_error(401, "key_revoked");
}

crate::both_backends!(
    a_key_is_revealed_once_and_works_until_revoked,
    hamtrax_shaped_keys_are_made_and_work,
    another_accounts_key_cannot_be_revoked,
    bad_key_forms_say_what_to_fix_and_make_nothing,
    no_response_or_log_holds_a_key_hash_or_a_plaintext_outside_its_reveal,
);
