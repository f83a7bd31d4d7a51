//! The logbooks page against a QRZ-protocol fake: connecting a book, its toggles, a refused
//! key, a paused book and the new key that ends the pause, disconnecting, a service without a
//! secret, and the QRZ key kept out of every page, redirect and log line.

use super::{Browser, Page};
use crate::common::clublog::{self, FakeClubLog};
use crate::common::eqsl::{self, FakeEqsl};
use crate::common::qrz::{FakeQrz, Mode, server_process};
use crate::common::{Server, contact, eventually, this_month};

const QRZ_KEY: &str = "A1B2-C3D4-E5F6-7788";
const NEW_QRZ_KEY: &str = "Z9Y8-X7W6-V5U4-9911";
const REFUSED_KEY: &str = "NOT-A-BOOK-KEY-0000";

/// Connects a book through the form; returns its id.
fn connect(browser: &Browser, key: &str) -> String {
    let page = browser.submit(
        "/logbooks",
        "/logbooks",
        &[("provider", "qrz"), ("apiKey", key), ("autoPush", "true")],
    );
    let location = page.location().to_owned();
    let id = location
        .strip_prefix("/logbooks?connected=")
        .unwrap_or_else(|| panic!("{location}"))
        .to_owned();
    assert!(id.starts_with("lbk_"), "{id}");
    browser
        .get(&location)
        .expect(200, "is connected")
        .expect(200, "…7788");
    id
}

/// Sends one of a logbook's forms from the list.
fn change(browser: &Browser, id: &str, fields: &[(&str, &str)]) -> Page {
    browser.submit("/logbooks", &format!("/logbooks/{id}"), fields)
}

/// The section of the list about the logbook `id`.
fn section(page: &Page, id: &str) -> String {
    let start = page
        .body
        .find(&format!("<section class=\"card logbook\" id=\"{id}\""))
        .unwrap_or_else(|| panic!("no logbook {id} in {}", page.body));
    let end = start + page.body[start..].find("</section>").unwrap();
    page.body[start..end].to_owned()
}

/// No response the browser got and no log line holds any of the keys.
fn assert_no_key(browser: &Browser, server: &Server, keys: &[&str]) {
    let transcript = browser.transcript();
    let logs = server.logs();
    for key in keys {
        assert!(!transcript.contains(key), "a page holds the QRZ key {key}");
        assert!(
            !logs.contains(key),
            "the server's log holds the QRZ key {key}"
        );
    }
}

fn a_book_is_connected_toggled_and_disconnected() {
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    let (server, _secret) = server_process(&qrz, &[]);
    let signed_out = Browser::new(&server);
    assert_eq!(
        signed_out.get("/logbooks").location(),
        "/signin?next=/logbooks"
    );
    let browser = Browser::signed_up(&server, "W1AW");
    let empty = browser.get("/logbooks");
    empty
        .expect(200, "No logbooks connected yet")
        .expect(200, "aria-current=\"page\">Online logbooks</a>");
    assert!(empty.body.contains("type=\"password\""), "{}", empty.body);

    let id = connect(&browser, QRZ_KEY);
    let list = browser.get("/logbooks");
    let book = section(&list, &id);
    for says in [
        "QRZ.com logbook of W1AW",
        "<code>…7788</code>",
        "<dd>Working</dd>",
        "0 waiting, 0 pushed, 0 failed",
        "Automatic push: <strong>on</strong>",
        "Automatic sync: <strong>off</strong>",
    ] {
        assert!(book.contains(says), "{says}: {book}");
    }
    // The API, with a key of the same account, sees the same book.
    let api = server.new_key("W1AW", "elevated");
    let listed = api.get("/v1/logbooks").body;
    assert_eq!(listed["items"][0]["id"], id.as_str(), "{listed}");
    assert_eq!(listed["items"][0]["autoPush"], true);

    // Automatic push off, and on again.
    let page = change(&browser, &id, &[("autoPush", "false")]);
    assert_eq!(page.location(), format!("/logbooks?changed={id}"));
    let list = browser.get(page.location());
    list.expect(200, "are saved");
    assert!(section(&list, &id).contains("Automatic push: <strong>off</strong>"));
    assert_eq!(api.get("/v1/logbooks").body["items"][0]["autoPush"], false);
    let page = change(&browser, &id, &[("autoPush", "true")]);
    assert_eq!(page.location(), format!("/logbooks?changed={id}"));
    assert!(
        section(&browser.get("/logbooks"), &id).contains("Automatic push: <strong>on</strong>")
    );
    assert_eq!(api.get("/v1/logbooks").body["items"][0]["autoPush"], true);
    change(&browser, &id, &[("autoSync", "true")]);
    assert_eq!(api.get("/v1/logbooks").body["items"][0]["autoSync"], true);

    // Disconnect, through the confirmation page.
    let confirm = browser.get(&format!("/logbooks/{id}/disconnect"));
    confirm
        .expect(200, "Disconnect this logbook?")
        .expect(200, "Disconnect the logbook of W1AW");
    let page = browser.post(
        &format!("/logbooks/{id}/disconnect"),
        &[("csrf", &confirm.field("csrf"))],
    );
    assert_eq!(page.location(), "/logbooks?disconnected");
    browser
        .get(page.location())
        .expect(200, "is disconnected")
        .expect(200, "No logbooks connected yet");
    assert_eq!(api.get("/v1/logbooks").body["items"], serde_json::json!([]));
    browser
        .submit("/logbooks", &format!("/logbooks/{id}/disconnect"), &[])
        .expect(404, "Your account has no logbook");
    assert_no_key(&browser, &server, &[QRZ_KEY]);
}

fn bad_keys_say_why_and_keep_nothing() {
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    let (server, _secret) = server_process(&qrz, &[]);
    let browser = Browser::signed_up(&server, "W1AW");
    let connect_with = |provider: &str, key: &str| {
        browser.submit(
            "/logbooks",
            "/logbooks",
            &[("provider", provider), ("apiKey", key)],
        )
    };
    for (provider, key, status, says) in [
        (
            "qrz",
            REFUSED_KEY,
            400,
            "QRZ refused this key (invalid api key)",
        ),
        ("qrz", "short", 400, "That is not a logbook API key"),
        ("qrz", "   ", 400, "Paste the logbook&#39;s API key"),
        (
            "lotw",
            QRZ_KEY,
            400,
            "The provider &quot;lotw&quot; is not known",
        ),
        (
            "eqsl",
            QRZ_KEY,
            400,
            "Type the password of the eQSL.cc account.",
        ),
        ("qrz", "<script>x</script>", 400, "QRZ refused this key"),
    ] {
        let page = connect_with(provider, key);
        page.expect(status, says)
            .expect(status, "No logbook was connected.");
        assert!(!page.body.contains("<script>x"), "{}", page.body);
        // The form again, its key field empty, the choices as sent.
        assert!(
            page.body
                .contains("id=\"apiKey\" name=\"apiKey\" type=\"password\" required")
        );
        assert!(
            !page.body.contains("value=\"true\" checked"),
            "{}",
            page.body
        );
    }
    // QRZ does not answer.
    qrz.set_mode(Mode::Drop);
    connect_with("qrz", QRZ_KEY)
        .expect(503, "QRZ could not be asked about the key")
        .expect(503, "No logbook was connected.");
    qrz.set_mode(Mode::Normal);
    browser
        .get("/logbooks")
        .expect(200, "No logbooks connected yet");

    // Another account's logbook cannot be reached, changed or disconnected.
    let id = connect(&browser, QRZ_KEY);
    let other = Browser::signed_up(&server, "K9ZZ");
    other
        .get("/logbooks")
        .expect(200, "No logbooks connected yet");
    change(&other, &id, &[("autoPush", "false")]).expect(404, "Your account has no logbook");
    other
        .get(&format!("/logbooks/{id}/disconnect"))
        .expect(404, "Your account has no logbook");
    other
        .submit("/logbooks", &format!("/logbooks/{id}/disconnect"), &[])
        .expect(404, "Your account has no logbook");
    assert!(
        section(&browser.get("/logbooks"), &id).contains("Automatic push: <strong>on</strong>")
    );
    // A form without the page's token changes nothing.
    browser
        .post(&format!("/logbooks/{id}"), &[("autoPush", "false")])
        .expect(403, "The form was refused");
    assert_no_key(&browser, &server, &[QRZ_KEY, REFUSED_KEY]);
    assert_no_key(&other, &server, &[QRZ_KEY]);
}

fn a_paused_book_says_why_until_a_new_key_is_given() {
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    qrz.add_book(NEW_QRZ_KEY, "W1AW");
    let (server, _secret) = server_process(&qrz, &[]);
    let browser = Browser::signed_up(&server, "W1AW");
    let id = connect(&browser, QRZ_KEY);

    // QRZ refuses the key when the worker pushes a new contact: the book pauses.
    qrz.set_mode(Mode::Auth);
    let api = server.new_key("W1AW", "basic");
    let folder = api.monthly(&this_month().0, None);
    api.post("/v1/contacts", contact(&folder, "K1AUTH")).id();
    eventually("the pause", || {
        section(&browser.get("/logbooks"), &id).contains("Paused")
    });
    let book = section(&browser.get("/logbooks"), &id);
    for says in [
        "<strong>Paused:</strong> QRZ refused the key (invalid api key)",
        "<span class=\"paused\">Paused</span>",
        "1 waiting, 0 pushed, 0 failed",
        "and ends the pause",
    ] {
        assert!(book.contains(says), "{says}: {book}");
    }

    // A key QRZ refuses is not taken; a good one ends the pause and the contact goes.
    change(&browser, &id, &[("apiKey", NEW_QRZ_KEY)])
        .expect(400, "QRZ refused this key")
        .expect(400, "Nothing was changed.");
    change(&browser, &id, &[("apiKey", "")]).expect(400, "Paste the new API key");
    qrz.set_mode(Mode::Normal);
    let page = change(&browser, &id, &[("apiKey", NEW_QRZ_KEY)]);
    assert_eq!(page.location(), format!("/logbooks?changed={id}"));
    browser.get(page.location()).expect(200, "…9911");
    eventually("the waiting contact pushed", || {
        qrz.records(NEW_QRZ_KEY).len() == 1
    });
    eventually("the counts", || {
        section(&browser.get("/logbooks"), &id).contains("0 waiting, 1 pushed, 0 failed")
    });
    let book = section(&browser.get("/logbooks"), &id);
    assert!(book.contains("<dd>Working</dd>"), "{book}");
    assert!(!book.contains("Paused"), "{book}");
    assert_no_key(&browser, &server, &[QRZ_KEY, NEW_QRZ_KEY]);
}

fn contacts_waiting_for_review_are_sent_or_kept_from_the_page() {
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    let (server, _secret) = server_process(&qrz, &[]);
    let browser = Browser::signed_up(&server, "W1AW");
    let page = browser.submit(
        "/logbooks",
        "/logbooks",
        &[
            ("provider", "qrz"),
            ("apiKey", QRZ_KEY),
            ("autoSync", "true"),
        ],
    );
    let id = page
        .location()
        .strip_prefix("/logbooks?connected=")
        .unwrap()
        .to_owned();
    let api = server.new_key("W1AW", "elevated");
    let folder = api.monthly(&this_month().0, None);
    let mut ids = Vec::new();
    for call in ["K1ONE", "K2TWO"] {
        let mut c = contact(&folder, call);
        c["stationCallsign"] = serde_json::json!("N0NE");
        ids.push(api.post("/v1/contacts", c).id());
    }
    let page = browser.get("/logbooks");
    page.expect(200, "Waiting for review")
        .expect(200, "no synced logbook has its station callsign")
        .expect(200, "K1ONE")
        .expect(200, "N0NE");
    let form = format!("/logbooks/review/{}", ids[0]);
    let sent = browser.submit(
        "/logbooks",
        &form,
        &[("action", "send"), ("logbookId", id.as_str())],
    );
    assert_eq!(sent.location(), "/logbooks?sent");
    browser
        .get(sent.location())
        .expect(200, "The contact goes to the logbook you chose");
    let kept = browser.submit(
        "/logbooks",
        &format!("/logbooks/review/{}", ids[1]),
        &[("action", "skip")],
    );
    assert_eq!(kept.location(), "/logbooks?skipped");
    let page = browser.get("/logbooks");
    assert!(!page.body.contains("Waiting for review"), "{}", page.body);
    browser
        .submit("/logbooks", &form, &[("action", "skip")])
        .expect(404, "does not wait for review");
    browser
        .submit("/logbooks", &form, &[("action", "maybe")])
        .expect(400, "The form is damaged");
    eventually("the reviewed contact in the book", || {
        qrz.records(QRZ_KEY).len() == 1
    });
    assert_eq!(qrz.records(QRZ_KEY)[0].1.get("CALL"), Some("K1ONE"));
    assert_no_key(&browser, &server, &[QRZ_KEY]);
}

fn without_a_secret_logbooks_are_not_enabled() {
    let server = Server::process();
    let browser = Browser::signed_up(&server, "W1AW");
    let page = browser.get("/logbooks");
    page.expect(200, "External logbooks are not enabled on this service");
    assert!(!page.body.contains("action=\"/logbooks"), "{}", page.body);
    assert!(!page.body.contains("name=\"apiKey\""), "{}", page.body);
    browser
        .submit(
            "/logbooks",
            "/logbooks",
            &[("provider", "qrz"), ("apiKey", QRZ_KEY)],
        )
        .expect(404, "not enabled on this service");
    assert_no_key(&browser, &server, &[QRZ_KEY]);
}

/// A Club Log log from the page: connected with its email, callsign and application password,
/// shown by its account's email (never by any of the password), paused by a 403 and given the
/// password again.
fn a_club_log_log_is_connected_paused_and_given_its_password_again() {
    const PASSWORD: &str = "web-app-pass-3Hn7";
    let club = FakeClubLog::start();
    club.add_account("op@example.org", PASSWORD, &["W1AW"]);
    let (server, _secret) = clublog::server_process(&club, &[]);
    let browser = Browser::signed_up(&server, "W1AW");
    let page = browser.submit(
        "/logbooks",
        "/logbooks",
        &[
            ("provider", "clublog"),
            ("email", "op@example.org"),
            ("callsign", "W1AW"),
            ("password", "  "),
        ],
    );
    page.expect(400, "Type an application password made at Club Log");
    let page = browser.submit(
        "/logbooks",
        "/logbooks",
        &[
            ("provider", "clublog"),
            ("email", "op@example.org"),
            ("callsign", "w1aw"),
            ("password", PASSWORD),
            ("autoPush", "true"),
        ],
    );
    let location = page.location().to_owned();
    let id = location
        .strip_prefix("/logbooks?connected=")
        .unwrap_or_else(|| panic!("{location}"))
        .to_owned();
    browser.get(&location).expect(
        200,
        "The Club Log logbook of <strong>W1AW</strong> (account op@example.org) is connected",
    );
    let book = section(&browser.get("/logbooks"), &id);
    for says in [
        "Club Log logbook of W1AW",
        "<dt>Account</dt><dd>op@example.org</dd>",
        "name=\"password\"",
        "<dd>Working</dd>",
    ] {
        assert!(book.contains(says), "{says}: {book}");
    }
    assert!(!book.contains("name=\"apiKey\""), "{book}");

    // A 403 pauses it; the password again ends the pause, and the contact goes.
    club.set_mode(crate::common::clublog::Mode::Forbidden);
    let api = server.new_key("W1AW", "elevated");
    let folder = api.monthly(&this_month().0, None);
    api.post("/v1/contacts", contact(&folder, "K1WEB")).id();
    eventually("the book paused", || {
        section(&browser.get("/logbooks"), &id).contains("Paused:")
    });
    assert!(section(&browser.get("/logbooks"), &id).contains("its application password again"));
    club.set_mode(crate::common::clublog::Mode::Normal);
    let page = change(&browser, &id, &[("password", PASSWORD)]);
    assert_eq!(page.location(), format!("/logbooks?changed={id}"));
    browser.get(page.location()).expect(200, "are saved");
    eventually("the contact at Club Log", || {
        club.calls("W1AW") == ["K1WEB"]
    });
    assert_no_key(&browser, &server, &[PASSWORD, clublog::API_KEY]);
}

/// An eQSL account from the page: connected with its user name and password, shown by its user
/// name (never by any of the password), paused by a refused login and given the password again.
fn an_eqsl_account_is_connected_paused_and_given_its_password_again() {
    const PASSWORD: &str = "web-eqsl-pass-8Vb2";
    const WRONG: &str = "web-eqsl-wrong-5Mc1";
    let fake = FakeEqsl::start();
    fake.add_account("W1AW", PASSWORD);
    let (server, _secret) = eqsl::server_process(&fake);
    let browser = Browser::signed_up(&server, "W1AW");
    let page = browser.submit(
        "/logbooks",
        "/logbooks",
        &[
            ("provider", "eqsl"),
            ("user", "w1aw"),
            ("password", WRONG),
            ("autoPush", "true"),
        ],
    );
    let location = page.location().to_owned();
    let id = location
        .strip_prefix("/logbooks?connected=")
        .unwrap_or_else(|| panic!("{location}"))
        .to_owned();
    browser.get(&location).expect(
        200,
        "The eQSL logbook of <strong>W1AW</strong> (user W1AW) is connected",
    );
    let book = section(&browser.get("/logbooks"), &id);
    for says in [
        "eQSL.cc logbook of W1AW",
        "<dt>eQSL user</dt><dd>W1AW</dd>",
        "name=\"password\"",
        "<dd>Working</dd>",
    ] {
        assert!(book.contains(says), "{says}: {book}");
    }
    assert!(!book.contains("name=\"apiKey\""), "{book}");

    // The wrong password pauses it at the first upload; the right one ends the pause.
    let api = server.new_key("W1AW", "elevated");
    let folder = api.monthly(&this_month().0, None);
    api.post("/v1/contacts", contact(&folder, "K1WEB")).id();
    eventually("the book paused", || {
        section(&browser.get("/logbooks"), &id).contains("Paused:")
    });
    assert!(section(&browser.get("/logbooks"), &id).contains("its eQSL password again"));
    let page = change(&browser, &id, &[("password", PASSWORD)]);
    assert_eq!(page.location(), format!("/logbooks?changed={id}"));
    eventually("the contact at eQSL", || fake.calls("W1AW") == ["K1WEB"]);
    assert_no_key(&browser, &server, &[PASSWORD, WRONG]);
}

crate::both_backends!(
    an_eqsl_account_is_connected_paused_and_given_its_password_again,
    contacts_waiting_for_review_are_sent_or_kept_from_the_page,
    a_book_is_connected_toggled_and_disconnected,
    bad_keys_say_why_and_keep_nothing,
    a_paused_book_says_why_until_a_new_key_is_given,
    without_a_secret_logbooks_are_not_enabled,
    a_club_log_log_is_connected_paused_and_given_its_password_again,
);
