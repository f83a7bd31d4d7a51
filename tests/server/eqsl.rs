//! eQSL.cc as an external logbook, against a stand-in speaking eQSL's documented upload
//! (tests/common/eqsl.rs): each new contact uploaded once and marked sent to eQSL (eqslQslSent
//! Y with its date) as it settles, a duplicate taken as sent, a rejection shown, a refused
//! login that pauses the book, a server error retried, a delete or an edit that sends nothing
//! (eQSL can neither delete nor replace), and the password kept out of every answer and log.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::eqsl::{self, FakeEqsl, Mode};
use crate::common::qrz::{self, FakeQrz};
use crate::common::{Api, contact, eventually, this_month};

const PASSWORD: &str = "eqsl-pass-4Rt8wQ";
const NEW_PASSWORD: &str = "eqsl-pass-second-2Lp";

fn connect(api: &Api, user: &str, password: &str) -> Value {
    let r = api.post(
        "/v1/logbooks",
        json!({ "provider": "eqsl", "user": user, "password": password }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_no_secret(&r.body.to_string());
    r.body
}

fn logbook(api: &Api) -> Value {
    let r = api.get("/v1/logbooks");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_no_secret(&r.body.to_string());
    r.body["items"][0].clone()
}

/// The contact as the service lists it.
fn stored(api: &Api, folder: &str, id: &str) -> Value {
    let listed = api.contacts(folder);
    listed.iter().find(|c| c["id"] == id).unwrap().clone()
}

fn assert_no_secret(text: &str) {
    for secret in [PASSWORD, NEW_PASSWORD] {
        assert!(!text.contains(secret), "a secret in {text}");
    }
}

/// Today's UTC date as a contact's date fields are answered: `YYYY-MM-DD`.
fn today() -> String {
    chrono::Utc::now().format("%Y-%m-%d").to_string()
}

fn contacts_are_uploaded_once_and_marked_sent() {
    let eqsl = FakeEqsl::start();
    eqsl.add_account("W1AW", PASSWORD);
    let (server, _secret) = eqsl::server(&eqsl);
    let api = server.account("W1AW", "elevated");
    let book = connect(&api, "w1aw", PASSWORD);
    assert_eq!(book["provider"], "eqsl");
    assert_eq!(
        book["callsign"], "W1AW",
        "the user name, as eQSL names accounts"
    );
    assert_eq!(book["keyLast4"], "", "nothing of a password is shown");
    assert_eq!(book["autoPush"], true);
    assert_eq!(book["state"], "working");

    let folder = api.monthly(&this_month().0, None);
    let first = api.post("/v1/contacts", contact(&folder, "K1ABC")).id();
    eventually("uploaded", || eqsl.calls("W1AW") == ["K1ABC"]);
    eventually("settled", || logbook(&api)["pushed"] == 1);
    // As the document describes the form: the login, and a file with a header and one record.
    let sent = &eqsl.requests()[0];
    assert_eq!(sent["EQSL_USER"], "W1AW");
    assert_eq!(sent["EQSL_PSWD"], PASSWORD);
    assert!(sent["Filename"].contains("<EOH>"), "{sent:?}");
    assert_eq!(sent["Filename"].matches("<EOR>").count(), 1, "{sent:?}");
    let c = stored(&api, &folder, &first);
    assert_eq!(c["external"][0]["state"], "pushed", "{c}");
    assert_eq!(c["eqslQslSent"], "Y", "{c}");
    assert_eq!(c["eqslQslSdate"], today(), "{c}");

    // Marking it sent is no edit: it is not sent again. An edit is not sent either (eQSL
    // cannot replace), nor is a delete (eQSL cannot delete): its copy there stays.
    let r = api.send(
        "PATCH",
        &format!("/v1/contacts/{first}"),
        Some(&json!({ "name": "Hiram" })),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    eventually("the edit settled", || {
        stored(&api, &folder, &first)["external"][0]["state"] == "pushed"
    });
    assert_eq!(api.delete(&format!("/v1/contacts/{first}")).status, 200);
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(eqsl.requests().len(), 1, "one upload, nothing more");
    assert_eq!(eqsl.calls("W1AW"), ["K1ABC"]);
    eventually("the queue empty", || logbook(&api)["waiting"] == 0);
}

fn a_duplicate_is_sent_and_a_rejection_is_shown() {
    let eqsl = FakeEqsl::start();
    eqsl.add_account("W1AW", PASSWORD);
    let (server, _secret) = eqsl::server(&eqsl);
    let api = server.account("W1AW", "elevated");
    connect(&api, "W1AW", PASSWORD);
    let folder = api.monthly(&this_month().0, None);
    let body = contact(&folder, "K1DUP");
    api.post("/v1/contacts", body.clone()).id();
    eventually("the first copy", || eqsl.calls("W1AW").len() == 1);
    // The same contact again: eQSL answers "Bad record: Duplicate", which is sent too.
    let again = api.post("/v1/contacts", body).id();
    eventually("the duplicate settled", || logbook(&api)["pushed"] == 2);
    assert_eq!(eqsl.requests().len(), 2);
    assert_eq!(eqsl.calls("W1AW").len(), 1);
    let c = stored(&api, &folder, &again);
    assert_eq!(c["external"][0]["state"], "pushed", "{c}");
    assert_eq!(c["eqslQslSent"], "Y", "{c}");

    // A bad record: failed, with eQSL's words, not marked sent and not sent again.
    eqsl.set_mode(Mode::Reject("Invalid mode".into()));
    let refused = api.post("/v1/contacts", contact(&folder, "K1BAD")).id();
    eventually("the rejection", || logbook(&api)["failed"] == 1);
    let book = logbook(&api);
    let error = book["lastError"].as_str().unwrap();
    assert!(error.contains("Bad record: Invalid mode"), "{book}");
    assert!(
        error.contains("K1BAD"),
        "eQSL's line names the record: {book}"
    );
    assert_eq!(
        book["state"], "working",
        "a rejected contact pauses nothing"
    );
    let c = stored(&api, &folder, &refused);
    assert_eq!(c["external"][0]["state"], "failed", "{c}");
    assert!(c["eqslQslSent"].is_null(), "{c}");
    let sent = eqsl.requests().len();
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(
        eqsl.requests().len(),
        sent,
        "a rejected contact is not sent again"
    );
}

fn a_refused_login_pauses_the_book_until_a_new_password() {
    let eqsl = FakeEqsl::start();
    eqsl.add_account("W1AW", PASSWORD);
    let (server, _secret) = eqsl::server_process(&eqsl);
    let api = server.account("W1AW", "elevated");
    let id = connect(&api, "W1AW", PASSWORD)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    eventually("the Inbox read", || eqsl.reads().len() == 1);
    // The password changed at eQSL: its uploads refuse the login from now on.
    eqsl.set_mode(Mode::LoginRefused);
    let folder = api.monthly(&this_month().0, None);
    let items: Vec<Value> = (0..3)
        .map(|n| {
            let mut c = contact(&folder, &format!("K{n}PSW"));
            c["idempotencyKey"] = json!(format!("refused-{n}"));
            c
        })
        .collect();
    let r = api.post("/v1/contacts/batch", json!({ "contacts": items }));
    assert_eq!(r.status, 200, "{}", r.body);
    eventually("the book paused", || logbook(&api)["state"] == "paused");
    let book = logbook(&api);
    let reason = book["pausedReason"].as_str().unwrap();
    assert!(
        reason.contains("No match on eQSL_User/eQSL_Pswd"),
        "eQSL's words: {book}"
    );
    assert!(reason.contains("password"), "{book}");
    assert_eq!(book["waiting"], 3, "{book}");
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(
        eqsl.requests().len(),
        1,
        "one refused request, then not one more"
    );

    // The password given again ends the pause: everything goes.
    eqsl.set_mode(Mode::Normal);
    let r = api.send(
        "PATCH",
        &format!("/v1/logbooks/{id}"),
        Some(&json!({ "password": PASSWORD })),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_no_secret(&r.body.to_string());
    assert_eq!(r.body["state"], "working");
    eventually("all three uploaded", || eqsl.calls("W1AW").len() == 3);
    eventually("the counts", || logbook(&api)["pushed"] == 3);

    // An eQSL book takes a password, not a QRZ key or a Club Log email.
    let r = api.send(
        "PATCH",
        &format!("/v1/logbooks/{id}"),
        Some(&json!({ "apiKey": "A1B2-C3D4-E5F6-7788" })),
        &[],
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.body["details"]["field"], "apiKey", "{}", r.body);

    // Neither password reaches a log line.
    assert_no_secret(&server.logs());
}

fn a_server_error_is_retried_until_eqsl_takes_it() {
    let eqsl = FakeEqsl::start();
    eqsl.add_account("W1AW", PASSWORD);
    let (server, _secret) = eqsl::server(&eqsl);
    let api = server.account("W1AW", "elevated");
    connect(&api, "W1AW", PASSWORD);
    let folder = api.monthly(&this_month().0, None);
    eqsl.set_mode(Mode::ServerError);
    let id = api.post("/v1/contacts", contact(&folder, "K1OUT")).id();
    eventually("the failure shown", || {
        logbook(&api)["lastError"]
            .as_str()
            .is_some_and(|e| e.contains("500"))
    });
    eventually("tried again", || eqsl.requests().len() >= 2);
    let book = logbook(&api);
    assert_eq!(book["state"], "working", "{book}");
    assert_eq!(book["waiting"], 1, "{book}");
    assert!(stored(&api, &folder, &id)["eqslQslSent"].is_null());
    eqsl.set_mode(Mode::Normal);
    eventually("uploaded after the outage", || {
        eqsl.calls("W1AW") == ["K1OUT"]
    });
    eventually("the counts", || logbook(&api)["pushed"] == 1);
    assert!(logbook(&api)["lastError"].is_null(), "{}", logbook(&api));
    assert_eq!(stored(&api, &folder, &id)["eqslQslSent"], "Y");
}

/// Marking a contact sent to eQSL writes its fields, but it is no edit: a QRZ book beside
/// gets the contact once, not again as a replacement. A real edit goes to QRZ and not to eQSL.
fn marking_a_contact_sent_sends_it_to_no_other_book() {
    const QRZ_KEY: &str = "A1B2-C3D4-E5F6-7788";
    let eqsl = FakeEqsl::start();
    eqsl.add_account("W1AW", PASSWORD);
    let book = FakeQrz::start();
    book.add_book(QRZ_KEY, "W1AW");
    let url = eqsl.url().to_string();
    let (server, _secret) = qrz::server(&book, &["--eqsl-url", &url]);
    let api = server.account("W1AW", "elevated");
    connect(&api, "W1AW", PASSWORD);
    let r = api.post(
        "/v1/logbooks",
        json!({ "provider": "qrz", "apiKey": QRZ_KEY }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let folder = api.monthly(&this_month().0, None);
    let id = api.post("/v1/contacts", contact(&folder, "K1TWO")).id();
    eventually("marked sent to eQSL", || {
        stored(&api, &folder, &id)["eqslQslSent"] == "Y"
    });
    let inserts = |book: &FakeQrz| {
        book.requests()
            .iter()
            .filter(|(action, _)| action == "INSERT")
            .count()
    };
    eventually("in the QRZ book", || book.records(QRZ_KEY).len() == 1);
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(inserts(&book), 1, "{:?}", book.requests());
    let c = stored(&api, &folder, &id);
    let states: Vec<&Value> = c["external"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| &x["state"])
        .collect();
    assert_eq!(states, [&json!("pushed"), &json!("pushed")], "{c}");

    // An edit: QRZ's copy is replaced, eQSL is sent nothing.
    let r = api.send(
        "PATCH",
        &format!("/v1/contacts/{id}"),
        Some(&json!({ "name": "Hiram" })),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    eventually("replaced at QRZ", || inserts(&book) == 2);
    eventually("settled", || logbook(&api)["waiting"] == 0);
    assert_eq!(
        eqsl.requests().len(),
        1,
        "eQSL cannot replace: nothing sent"
    );
}

/// A card for the contact, as eQSL's Inbox file writes one: the sender, the QSO's date and
/// time to the minute, band, mode and the day eQSL received it.
fn card_for(contact: &Value, band: &str) -> Vec<(&'static str, String)> {
    let at = contact["timeOn"].as_str().unwrap();
    vec![
        ("CALL", contact["callsign"].as_str().unwrap().to_owned()),
        ("QSO_DATE", at[..10].replace('-', "")),
        ("TIME_ON", at[11..16].replace(':', "")),
        ("BAND", band.to_owned()),
        ("MODE", "FT8".to_owned()),
        ("RST_SENT", "-10".to_owned()),
        ("QSL_SENT", "Y".to_owned()),
        ("QSL_SENT_VIA", "E".to_owned()),
        ("QSLRDATE", "20261103".to_owned()),
    ]
}

fn cards_in_the_inbox_confirm_their_contacts() {
    let eqsl = FakeEqsl::start();
    eqsl.add_account("W1AW", PASSWORD);
    let (server, _secret) = eqsl::server(&eqsl);
    let api = server.account("W1AW", "elevated");
    // Not pushed to: only the Inbox marks these contacts.
    let r = api.post(
        "/v1/logbooks",
        json!({ "provider": "eqsl", "user": "W1AW", "password": PASSWORD, "autoPush": false }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.body["id"].as_str().unwrap().to_owned();
    // The Inbox is read once the book is connected, the whole of it.
    eventually("the first read", || eqsl.reads().len() == 1);
    assert_eq!(eqsl.reads()[0], "", "no RcvdSince the first time");
    eventually("read", || logbook(&api)["lastError"].is_null());

    let folder = api.monthly(&this_month().0, None);
    let body = contact(&folder, "K1ABC");
    let confirmed = api.post("/v1/contacts", body.clone()).id();
    let other_band = api.post("/v1/contacts", contact(&folder, "K2XYZ")).id();
    let old = api.post("/v1/contacts", contact(&folder, "K3OLD")).id();
    let now = chrono::Utc::now().format("%Y%m%d%H%M").to_string();
    let owned = |card: Vec<(&'static str, String)>| card;
    let cards = [
        (now.as_str(), owned(card_for(&body, "20M"))),
        // Worked on 20 m, the card says 40 m: eQSL's match fails, so does svc's.
        (
            now.as_str(),
            owned(card_for(&contact(&folder, "K2XYZ"), "40M")),
        ),
        // Received before the last read began: RcvdSince leaves it out.
        (
            "200001010000",
            owned(card_for(&contact(&folder, "K3OLD"), "20M")),
        ),
        // From a station not in the log.
        (
            now.as_str(),
            owned(card_for(&contact(&folder, "K9NOT"), "20M")),
        ),
    ];
    for (received, card) in &cards {
        let fields: Vec<(&str, &str)> = card.iter().map(|(k, v)| (*k, v.as_str())).collect();
        eqsl.add_card("W1AW", received, &fields);
    }
    let r = api.post(&format!("/v1/logbooks/{id}/import"), json!({}));
    assert_eq!(r.status, 202, "{}", r.body);
    eventually("confirmed", || {
        stored(&api, &folder, &confirmed)["eqslQslRcvd"] == "Y"
    });
    let c = stored(&api, &folder, &confirmed);
    assert_eq!(c["eqslQslRdate"], "2026-11-03", "eQSL's QSLRDATE: {c}");
    assert!(
        c["eqslQslSent"].is_null(),
        "a card says nothing of an upload: {c}"
    );
    assert!(c["lotwQslRcvd"].is_null(), "{c}");
    for id in [&other_band, &old] {
        let c = stored(&api, &folder, id);
        assert!(c["eqslQslRcvd"].is_null(), "{c}");
    }
    let reads = eqsl.reads();
    assert_eq!(reads.len(), 2, "{reads:?}");
    assert_eq!(reads[1].len(), 12, "RcvdSince is YYYYMMDDHHMM: {reads:?}");
    assert!(reads[1].as_str() <= now.as_str(), "{reads:?}");
    assert!(logbook(&api)["lastError"].is_null(), "{}", logbook(&api));
}

/// A refused login on the Inbox pauses the book as a refused upload does.
fn a_refused_inbox_login_pauses_the_book() {
    let eqsl = FakeEqsl::start();
    eqsl.add_account("W1AW", NEW_PASSWORD);
    let (server, _secret) = eqsl::server(&eqsl);
    let api = server.account("W1AW", "elevated");
    connect(&api, "W1AW", PASSWORD);
    eventually("the book paused", || logbook(&api)["state"] == "paused");
    let book = logbook(&api);
    let reason = book["pausedReason"].as_str().unwrap();
    assert!(reason.contains("No such Username/Password found"), "{book}");
    assert_no_secret(&book.to_string());
    assert_eq!(eqsl.reads().len(), 1, "{:?}", eqsl.reads());
}

fn connecting_eqsl_checks_the_user_and_password() {
    let eqsl = FakeEqsl::start();
    let (server, _secret) = eqsl::server(&eqsl);
    let api = server.account("W1AW", "elevated");
    for (body, field) in [
        (json!({ "provider": "eqsl", "password": PASSWORD }), "user"),
        (json!({ "provider": "eqsl", "user": "W1AW" }), "password"),
        (
            json!({ "provider": "eqsl", "user": "not a call", "password": PASSWORD }),
            "user",
        ),
        (
            json!({ "provider": "eqsl", "user": "W1AW", "password": PASSWORD, "email": "a@b.c" }),
            "email",
        ),
    ] {
        let r = api.post("/v1/logbooks", body.clone());
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        assert_eq!(r.body["details"]["field"], field, "{body}: {}", r.body);
        assert_no_secret(&r.body.to_string());
    }
    assert_eq!(api.get("/v1/logbooks").body["items"], json!([]));
}

crate::both_backends!(
    contacts_are_uploaded_once_and_marked_sent,
    a_duplicate_is_sent_and_a_rejection_is_shown,
    a_refused_login_pauses_the_book_until_a_new_password,
    a_server_error_is_retried_until_eqsl_takes_it,
    connecting_eqsl_checks_the_user_and_password,
    marking_a_contact_sent_sends_it_to_no_other_book,
    cards_in_the_inbox_confirm_their_contacts,
    a_refused_inbox_login_pauses_the_book,
);
