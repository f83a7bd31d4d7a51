//! Club Log as an external logbook, against a stand-in speaking Club Log's documented API
//! (tests/common/clublog.rs): contacts pushed one at a time and deleted there, a duplicate
//! taken as pushed, a rejection shown, a 403 that stops every send of the book at once, a
//! server error retried, an edit replacing the copy, the back log uploaded in one file, and
//! the application password (and the service's API key) kept out of every answer and log.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::clublog::{self, API_KEY, FakeClubLog, Mode};
use crate::common::qrz::FakeQrz;
use crate::common::{Api, contact, eventually, this_month};

const EMAIL: &str = "op@example.org";
const PASSWORD: &str = "app-pass-7Gq2xZ";
const NEW_PASSWORD: &str = "app-pass-second-9Kd";
const QRZ_KEY: &str = "A1B2-C3D4-E5F6-7788";

fn connect(api: &Api, callsign: &str) -> Value {
    let r = api.post(
        "/v1/logbooks",
        json!({ "provider": "clublog", "email": EMAIL, "password": PASSWORD, "callsign": callsign }),
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

/// The contact's copy in the book, as the contact lists it.
fn copy(api: &Api, folder: &str, id: &str) -> Value {
    let listed = api.contacts(folder);
    let c = listed.iter().find(|c| c["id"] == id).unwrap();
    c["external"][0].clone()
}

fn assert_no_secret(text: &str) {
    for secret in [PASSWORD, NEW_PASSWORD, API_KEY] {
        assert!(!text.contains(secret), "a secret in {text}");
    }
}

fn contacts_are_pushed_to_club_log_and_deleted_there() {
    let club = FakeClubLog::start();
    club.add_account(EMAIL, PASSWORD, &["W1AW"]);
    let (server, _secret) = clublog::server(&club, &[]);
    let api = server.account("W1AW", "elevated");
    let book = connect(&api, "w1aw");
    assert_eq!(book["provider"], "clublog");
    assert_eq!(book["callsign"], "W1AW");
    assert_eq!(book["email"], EMAIL);
    assert_eq!(book["keyLast4"], "", "nothing of a password is shown");
    assert_eq!(book["autoPush"], true);
    assert_eq!(book["state"], "working");

    let folder = api.monthly(&this_month().0, None);
    let body = contact(&folder, "K1ABC");
    let at = body["timeOn"].as_str().unwrap().to_owned();
    let first = api.post("/v1/contacts", body).id();
    api.post("/v1/contacts", contact(&folder, "K2XYZ")).id();
    eventually("both in the log", || club.records("W1AW").len() == 2);
    eventually("the counts", || logbook(&api)["pushed"] == 2);
    assert_eq!(club.calls("W1AW"), ["K1ABC", "K2XYZ"]);
    // As the article describes the form: the account, the log, one record, the API key.
    let sent = &club.requests()[0];
    assert_eq!(sent.script, "realtime.php");
    assert_eq!(sent.fields["email"], EMAIL);
    assert_eq!(sent.fields["password"], PASSWORD);
    assert_eq!(sent.fields["callsign"], "W1AW");
    assert_eq!(sent.fields["api"], API_KEY);
    assert_eq!(sent.fields["adif"].matches("<EOR>").count(), 1, "{sent:?}");
    assert_eq!(copy(&api, &folder, &first)["state"], "pushed");

    // Deleted here: deleted there by call, time and band; the other stays.
    assert_eq!(api.delete(&format!("/v1/contacts/{first}")).status, 200);
    eventually("the copy deleted at Club Log", || {
        club.records("W1AW").len() == 1
    });
    assert_eq!(club.calls("W1AW"), ["K2XYZ"]);
    let delete = club
        .requests()
        .into_iter()
        .find(|r| r.script == "delete.php")
        .unwrap();
    assert_eq!(delete.fields["dxcall"], "K1ABC");
    assert_eq!(delete.fields["bandid"], "20", "14.074 MHz is 20 m");
    // YYYY-MM-DD HH:MM:SS, the contact's time on in UTC.
    assert_eq!(
        delete.fields["datetime"],
        at[..19].replace('T', " "),
        "{delete:?}"
    );
    eventually("the queue empty", || logbook(&api)["waiting"] == 0);
}

fn a_duplicate_is_pushed_and_a_rejection_is_shown() {
    let club = FakeClubLog::start();
    club.add_account(EMAIL, PASSWORD, &["W1AW"]);
    let (server, _secret) = clublog::server(&club, &[]);
    let api = server.account("W1AW", "elevated");
    connect(&api, "W1AW");
    let folder = api.monthly(&this_month().0, None);
    let body = contact(&folder, "K1DUP");
    api.post("/v1/contacts", body.clone()).id();
    eventually("the first copy", || club.records("W1AW").len() == 1);
    // The same contact again: Club Log answers "QSO Duplicate", which is pushed too.
    let again = api.post("/v1/contacts", body).id();
    eventually("the duplicate settled", || logbook(&api)["pushed"] == 2);
    assert_eq!(club.records("W1AW").len(), 1);
    assert_eq!(copy(&api, &folder, &again)["state"], "pushed");

    // A 400: failed, with Club Log's words, and not sent again.
    club.set_mode(Mode::Reject("QSO Rejected: invalid claim of DXCC".into()));
    let refused = api.post("/v1/contacts", contact(&folder, "K1BAD")).id();
    eventually("the rejection", || logbook(&api)["failed"] == 1);
    let book = logbook(&api);
    assert!(
        book["lastError"]
            .as_str()
            .unwrap()
            .contains("invalid claim of DXCC"),
        "{book}"
    );
    assert_eq!(
        book["state"], "working",
        "a rejected contact pauses nothing"
    );
    let c = copy(&api, &folder, &refused);
    assert_eq!(c["state"], "failed", "{c}");
    let sent = club.count("realtime.php");
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(
        club.count("realtime.php"),
        sent,
        "a rejected contact is not sent again"
    );
}

fn a_refusal_stops_every_send_of_the_book_at_once() {
    let club = FakeClubLog::start();
    club.add_account(EMAIL, PASSWORD, &["W1AW"]);
    club.add_account("other@example.org", NEW_PASSWORD, &["W1AW"]);
    let (server, _secret) = clublog::server_process(&club, &[]);
    let api = server.account("W1AW", "elevated");
    let id = connect(&api, "W1AW")["id"].as_str().unwrap().to_owned();
    let folder = api.monthly(&this_month().0, None);
    club.set_mode(Mode::Forbidden);
    // Five contacts in one transaction: the worker takes them together.
    let items: Vec<Value> = (0..5)
        .map(|n| {
            let mut c = contact(&folder, &format!("K{n}FOR"));
            c["idempotencyKey"] = json!(format!("forbidden-{n}"));
            c
        })
        .collect();
    let r = api.post("/v1/contacts/batch", json!({ "contacts": items }));
    assert_eq!(r.status, 200, "{}", r.body);
    eventually("the book paused", || logbook(&api)["state"] == "paused");
    let book = logbook(&api);
    let reason = book["pausedReason"].as_str().unwrap();
    assert!(reason.contains("Access denied"), "{book}");
    assert!(reason.contains("application password"), "{book}");
    assert_eq!(book["waiting"], 5, "{book}");
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(
        club.count("realtime.php"),
        1,
        "one refused request, then not one more"
    );

    // A new password (here of another Club Log account) ends the pause: everything goes.
    club.set_mode(Mode::Normal);
    let r = api.send(
        "PATCH",
        &format!("/v1/logbooks/{id}"),
        Some(&json!({ "password": NEW_PASSWORD, "email": "other@example.org" })),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_no_secret(&r.body.to_string());
    assert_eq!(r.body["state"], "working");
    assert_eq!(r.body["email"], "other@example.org");
    eventually("all five in the log", || club.records("W1AW").len() == 5);
    eventually("the counts", || logbook(&api)["pushed"] == 5);

    // The password and the service's key reach no log line.
    assert_no_secret(&server.logs());
}

fn a_server_error_is_retried_until_club_log_takes_it() {
    let club = FakeClubLog::start();
    club.add_account(EMAIL, PASSWORD, &["W1AW"]);
    let (server, _secret) = clublog::server(&club, &[]);
    let api = server.account("W1AW", "elevated");
    connect(&api, "W1AW");
    let folder = api.monthly(&this_month().0, None);
    club.set_mode(Mode::ServerError);
    api.post("/v1/contacts", contact(&folder, "K1OUT")).id();
    eventually("the failure shown", || {
        logbook(&api)["lastError"]
            .as_str()
            .is_some_and(|e| e.contains("500"))
    });
    eventually("tried again", || club.count("realtime.php") >= 2);
    let book = logbook(&api);
    assert_eq!(book["state"], "working", "{book}");
    assert_eq!(book["waiting"], 1, "{book}");
    club.set_mode(Mode::Normal);
    eventually("pushed after the outage", || {
        club.records("W1AW").len() == 1
    });
    eventually("the counts", || logbook(&api)["pushed"] == 1);
    assert!(logbook(&api)["lastError"].is_null(), "{}", logbook(&api));
}

fn an_edited_contact_replaces_its_copy_at_club_log() {
    let club = FakeClubLog::start();
    club.add_account(EMAIL, PASSWORD, &["W1AW"]);
    let (server, _secret) = clublog::server(&club, &[]);
    let api = server.account("W1AW", "elevated");
    connect(&api, "W1AW");
    let folder = api.monthly(&this_month().0, None);
    let busted = api.post("/v1/contacts", contact(&folder, "K1ABD")).id();
    eventually("the first push", || {
        copy(&api, &folder, &busted)["state"] == "pushed"
    });
    let r = api.send(
        "PATCH",
        &format!("/v1/contacts/{busted}"),
        Some(&json!({ "callsign": "K1ABC", "frequency": 7.074 })),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    eventually("the copy replaced", || club.calls("W1AW") == ["K1ABC"]);
    eventually("settled", || {
        copy(&api, &folder, &busted)["state"] == "pushed"
    });
    assert_eq!(club.records("W1AW")[0].get("BAND"), Some("40m"));
}

fn the_back_log_is_uploaded_in_one_file() {
    let club = FakeClubLog::start();
    club.add_account(EMAIL, PASSWORD, &["W1AW"]);
    let (server, _secret) = clublog::server(&club, &[]);
    let api = server.account("W1AW", "elevated");
    let folder = api.monthly(&this_month().0, None);
    // Logged before the book was connected; one of them under another station callsign.
    let old = api.post("/v1/contacts", contact(&folder, "K1OLD")).id();
    api.post("/v1/contacts", contact(&folder, "K2OLD")).id();
    let mut other = contact(&folder, "K3OLD");
    other["stationCallsign"] = json!("W1AW/P");
    api.post("/v1/contacts", other).id();
    let id = connect(&api, "W1AW")["id"].as_str().unwrap().to_owned();
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(club.count("realtime.php"), 0, "connecting sends nothing");

    let r = api.post(&format!("/v1/logbooks/{id}/upload"), json!({}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["uploaded"], 2, "{}", r.body);
    assert_eq!(club.count("putlogs.php"), 1);
    let file = &club.requests()[0];
    assert_eq!(file.fields["clear"], "0");
    assert_eq!(file.fields["callsign"], "W1AW");
    assert_eq!(club.calls("W1AW"), ["K1OLD", "K2OLD"]);
    let book = logbook(&api);
    assert_eq!(book["pushed"], 2, "{book}");
    assert_eq!(copy(&api, &folder, &old)["state"], "pushed");

    // Nothing left to send: no second file.
    let r = api.post(&format!("/v1/logbooks/{id}/upload"), json!({}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["uploaded"], 0);
    assert_eq!(club.count("putlogs.php"), 1);

    // An uploaded contact deleted here is deleted there.
    assert_eq!(api.delete(&format!("/v1/contacts/{old}")).status, 200);
    eventually("deleted at Club Log", || club.calls("W1AW") == ["K2OLD"]);

    // A refused upload records nothing as sent and pauses the book.
    let r = api.send(
        "PATCH",
        &format!("/v1/logbooks/{id}"),
        Some(&json!({ "autoPush": false })),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let mut late = contact(&folder, "K4OLD");
    late["stationCallsign"] = json!("W1AW");
    let late = api.post("/v1/contacts", late).id();
    club.set_mode(Mode::Forbidden);
    let r = api.post(&format!("/v1/logbooks/{id}/upload"), json!({}));
    assert_eq!(r.status, 400, "{}", r.body);
    assert_no_secret(&r.body.to_string());
    assert_eq!(logbook(&api)["state"], "paused");
    assert_eq!(
        copy(&api, &folder, &late),
        Value::Null,
        "not recorded as sent"
    );
}

/// Club Log and QRZ share the queue, but a Club Log that never answers holds up only its own
/// book.
fn a_hung_club_log_delays_only_its_own_book() {
    let club = FakeClubLog::start();
    club.add_account(EMAIL, PASSWORD, &["W1AW"]);
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    let qrz_url = qrz.url().to_string();
    let (server, _secret) = clublog::server(&club, &["--qrz-api-url", &qrz_url]);
    let api = server.account("W1AW", "elevated");
    connect(&api, "W1AW");
    let r = api.post(
        "/v1/logbooks",
        json!({ "provider": "qrz", "apiKey": QRZ_KEY }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    club.set_mode(Mode::Stall);
    let folder = api.monthly(&this_month().0, None);
    api.post("/v1/contacts", contact(&folder, "K1ONE")).id();
    api.post("/v1/contacts", contact(&folder, "K2TWO")).id();
    eventually("both at QRZ", || qrz.records(QRZ_KEY).len() == 2);
    assert_eq!(club.count("realtime.php"), 1, "one request, hanging");
    let books = api.get("/v1/logbooks").body;
    let club_book = books["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["provider"] == "clublog")
        .unwrap()
        .clone();
    assert_eq!(club_book["waiting"], 2, "{books}");
}

/// A contact edited while the upload that carries it is on its way: the copy Club Log takes
/// from the file is replaced by the edited contact afterwards, not recorded as up to date.
fn an_edit_during_an_upload_replaces_the_uploaded_copy() {
    let club = FakeClubLog::start();
    club.add_account(EMAIL, PASSWORD, &["W1AW"]);
    let (server, _secret) = clublog::server(&club, &[]);
    let api = server.account("W1AW", "elevated");
    let folder = api.monthly(&this_month().0, None);
    let old = api.post("/v1/contacts", contact(&folder, "K1ABD")).id();
    let id = connect(&api, "W1AW")["id"].as_str().unwrap().to_owned();
    club.set_mode(Mode::Held);
    std::thread::scope(|s| {
        let upload = s.spawn(|| api.post(&format!("/v1/logbooks/{id}/upload"), json!({})));
        eventually("the file at Club Log", || club.count("putlogs.php") == 1);
        assert_eq!(copy(&api, &folder, &old)["state"], "waiting", "on its way");
        let r = api.send(
            "PATCH",
            &format!("/v1/contacts/{old}"),
            Some(&json!({ "callsign": "K1ABC" })),
            &[],
        );
        assert_eq!(r.status, 200, "{}", r.body);
        club.set_mode(Mode::Normal);
        let r = upload.join().unwrap();
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.body["uploaded"], 1);
    });
    eventually("the edited contact at Club Log instead", || {
        club.calls("W1AW") == ["K1ABC"]
    });
    eventually("settled", || copy(&api, &folder, &old)["state"] == "pushed");
}

fn connecting_club_log_needs_the_servers_api_key() {
    let club = FakeClubLog::start();
    club.add_account(EMAIL, PASSWORD, &["W1AW"]);
    let (server, _secret) = clublog::server_without_api_key(&club);
    let api = server.account("W1AW", "elevated");
    let r = api.post(
        "/v1/logbooks",
        json!({ "provider": "clublog", "email": EMAIL, "password": PASSWORD, "callsign": "W1AW" }),
    );
    let message = r.expect_error(400, "validation_error");
    assert!(message.contains("--clublog-api-key"), "{message}");
    assert_no_secret(&r.body.to_string());
    assert_eq!(api.get("/v1/logbooks").body["items"], json!([]));

    // A login missing a part, or QRZ's key given to Club Log, is refused and keeps nothing.
    let (server, _secret) = clublog::server(&club, &[]);
    let api = server.account("W1AW", "elevated");
    for (body, field) in [
        (
            json!({ "provider": "clublog", "email": EMAIL, "callsign": "W1AW" }),
            "password",
        ),
        (
            json!({ "provider": "clublog", "password": PASSWORD, "callsign": "W1AW" }),
            "email",
        ),
        (
            json!({ "provider": "clublog", "email": "nobody", "password": PASSWORD, "callsign": "W1AW" }),
            "email",
        ),
        (
            json!({ "provider": "clublog", "email": EMAIL, "password": PASSWORD }),
            "callsign",
        ),
        (
            json!({ "provider": "clublog", "email": EMAIL, "password": PASSWORD, "callsign": "W1AW", "apiKey": "A1B2-C3D4-E5F6-7788" }),
            "apiKey",
        ),
    ] {
        let r = api.post("/v1/logbooks", body.clone());
        r.expect_error(400, "validation_error");
        assert_eq!(r.body["details"]["field"], field, "{body}: {}", r.body);
        assert_no_secret(&r.body.to_string());
    }
    assert_eq!(api.get("/v1/logbooks").body["items"], json!([]));
    assert_eq!(club.requests().len(), 0);
}

crate::both_backends!(
    contacts_are_pushed_to_club_log_and_deleted_there,
    a_duplicate_is_pushed_and_a_rejection_is_shown,
    a_refusal_stops_every_send_of_the_book_at_once,
    a_server_error_is_retried_until_club_log_takes_it,
    an_edited_contact_replaces_its_copy_at_club_log,
    the_back_log_is_uploaded_in_one_file,
    a_hung_club_log_delays_only_its_own_book,
    an_edit_during_an_upload_replaces_the_uploaded_copy,
    connecting_club_log_needs_the_servers_api_key,
);
