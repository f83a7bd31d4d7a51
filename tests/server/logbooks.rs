//! External logbooks against a QRZ-protocol fake: `/v1/logbooks`, contacts pushed when they
//! are created and deleted there when they are deleted here, duplicates, an outage, a refused
//! key, two server processes, and the provider's key kept out of every answer and log.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::qrz::{FakeQrz, Mode, server, server_process};
use crate::common::{Api, Server, contact, eventually, this_month};

const QRZ_KEY: &str = "A1B2-C3D4-E5F6-7788";
const NEW_QRZ_KEY: &str = "Z9Y8-X7W6-V5U4-9911";

fn connect(api: &Api, key: &str) -> Value {
    let r = api.post("/v1/logbooks", json!({ "provider": "qrz", "apiKey": key }));
    assert_eq!(r.status, 201, "{}", r.body);
    r.body
}

fn logbook(api: &Api) -> Value {
    let r = api.get("/v1/logbooks");
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["items"][0].clone()
}

fn inserts(qrz: &FakeQrz) -> usize {
    qrz.requests().iter().filter(|(a, _)| a == "INSERT").count()
}

fn contacts_are_pushed_when_created_and_deleted_there_when_deleted() {
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    let (server, _secret) = server_process(&qrz, &["--burst-limit", "100000"]);
    let api = server.account("W1AW", "elevated");
    let book = connect(&api, QRZ_KEY);
    assert_eq!(book["callsign"], "W1AW");
    assert_eq!(book["keyLast4"], "7788");
    assert_eq!(book["autoPush"], true);
    assert_eq!(book["autoSync"], false);
    assert_eq!(book["state"], "working");
    let id = book["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("lbk_"), "{book}");

    let folder = api.monthly(&this_month().0, None);
    let first = api.post("/v1/contacts", contact(&folder, "K1ABC")).id();
    let items: Vec<Value> = (0..3)
        .map(|n| {
            let mut c = contact(&folder, &format!("K{n}XYZ"));
            c["idempotencyKey"] = json!(format!("push-{n}"));
            c
        })
        .collect();
    let r = api.post("/v1/contacts/batch", json!({ "contacts": items }));
    assert_eq!(r.status, 200, "{}", r.body);
    eventually("four contacts in the book", || {
        qrz.records(QRZ_KEY).len() == 4
    });
    let calls: Vec<String> = qrz
        .records(QRZ_KEY)
        .iter()
        .map(|(_, r)| r.get("CALL").unwrap().to_owned())
        .collect();
    assert!(calls.contains(&"K1ABC".to_owned()), "{calls:?}");
    eventually("the counts", || logbook(&api)["pushed"] == 4);
    assert_eq!(logbook(&api)["waiting"], 0);

    // Each contact says where it went.
    let listed = api.contacts(&folder);
    let k1 = listed.iter().find(|c| c["id"] == first.as_str()).unwrap();
    let external = &k1["external"][0];
    assert_eq!(external["logbookId"], id.as_str(), "{k1}");
    assert_eq!(external["state"], "pushed", "{k1}");
    let log_id = external["logId"].as_str().unwrap().to_owned();
    assert!(
        qrz.records(QRZ_KEY).iter().any(|(l, _)| *l == log_id),
        "{log_id}"
    );

    // Deleted here: deleted there, the others stay.
    assert_eq!(api.delete(&format!("/v1/contacts/{first}")).status, 200);
    eventually("the copy deleted at QRZ", || {
        qrz.records(QRZ_KEY).len() == 3
    });
    assert!(!qrz.records(QRZ_KEY).iter().any(|(l, _)| *l == log_id));
    assert_eq!(inserts(&qrz), 4, "each contact sent once");

    // Off: new contacts stay here.
    let r = api.send(
        "PATCH",
        &format!("/v1/logbooks/{id}"),
        Some(&json!({ "autoPush": false })),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["autoPush"], false);
    api.post("/v1/contacts", contact(&folder, "K9OFF")).id();
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(qrz.records(QRZ_KEY).len(), 3);

    // Disconnected: gone from the list; the book keeps its copies.
    let r = api.delete(&format!("/v1/logbooks/{id}"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["success"], true);
    assert_eq!(api.get("/v1/logbooks").body["items"], json!([]));
    assert_eq!(qrz.records(QRZ_KEY).len(), 3);
    api.delete(&format!("/v1/logbooks/{id}"))
        .expect_error(404, "not_found");
    assert_no_key(&server, &[QRZ_KEY]);
}

/// The provider's key appears in no log line (and, through the checks above, in no answer).
fn assert_no_key(server: &Server, keys: &[&str]) {
    let logs = server.logs();
    for key in keys {
        assert!(!logs.contains(key), "a QRZ key in the server's log");
    }
}

fn a_duplicate_counts_as_pushed_and_a_refusal_is_kept() {
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    let (server, _secret) = server(&qrz, &[]);
    let api = server.account("W1AW", "elevated");
    connect(&api, QRZ_KEY);
    let folder = api.monthly(&this_month().0, None);
    let body = contact(&folder, "K1DUP");
    api.post("/v1/contacts", body.clone()).id();
    eventually("the first copy", || qrz.records(QRZ_KEY).len() == 1);
    // The same contact logged again here: QRZ says duplicate, which counts as pushed.
    let again = api.post("/v1/contacts", body).id();
    eventually("the duplicate settled", || logbook(&api)["pushed"] == 2);
    assert_eq!(qrz.records(QRZ_KEY).len(), 1);
    let listed = api.contacts(&folder);
    let dup = listed.iter().find(|c| c["id"] == again.as_str()).unwrap();
    assert_eq!(dup["external"][0]["state"], "pushed", "{dup}");
    assert!(dup["external"][0].get("logId").is_none(), "{dup}");

    // A refusal that is not a duplicate: failed, with QRZ's reason, not tried again.
    qrz.set_mode(Mode::Fail("invalid band for frequency".into()));
    let refused = api.post("/v1/contacts", contact(&folder, "K1BAD")).id();
    eventually("the refusal", || logbook(&api)["failed"] == 1);
    let book = logbook(&api);
    assert!(
        book["lastError"]
            .as_str()
            .unwrap()
            .contains("invalid band for frequency"),
        "{book}"
    );
    let listed = api.contacts(&folder);
    let bad = listed.iter().find(|c| c["id"] == refused.as_str()).unwrap();
    assert_eq!(bad["external"][0]["state"], "failed", "{bad}");
    let sent = inserts(&qrz);
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(inserts(&qrz), sent, "a refused contact is not sent again");
}

fn an_outage_loses_nothing_and_sends_nothing_twice() {
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    let (server, _secret) = server(&qrz, &[]);
    let api = server.account("W1AW", "elevated");
    connect(&api, QRZ_KEY);
    let folder = api.monthly(&this_month().0, None);
    qrz.set_mode(Mode::Drop);
    for call in ["K1OUT", "K2OUT"] {
        let started = Instant::now();
        api.post("/v1/contacts", contact(&folder, call)).id();
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "a create never waits for QRZ"
        );
    }
    eventually("the failure shown", || {
        logbook(&api)["lastError"].is_string()
    });
    assert_eq!(logbook(&api)["waiting"], 2);
    assert_eq!(logbook(&api)["state"], "working");
    qrz.set_mode(Mode::ServerError);
    std::thread::sleep(Duration::from_millis(1500));
    qrz.set_mode(Mode::Normal);
    eventually("both pushed after the outage", || {
        qrz.records(QRZ_KEY).len() == 2
    });
    eventually("the counts", || logbook(&api)["pushed"] == 2);
    assert!(logbook(&api)["lastError"].is_null(), "{}", logbook(&api));
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(qrz.records(QRZ_KEY).len(), 2, "nothing twice");
}

fn a_refused_key_pauses_the_logbook_until_a_new_one_is_given() {
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    qrz.add_book(NEW_QRZ_KEY, "W1AW");
    let (server, _secret) = server_process(&qrz, &[]);
    let api = server.account("W1AW", "elevated");
    let id = connect(&api, QRZ_KEY)["id"].as_str().unwrap().to_owned();
    let folder = api.monthly(&this_month().0, None);
    qrz.set_mode(Mode::Auth);
    let waiting = api.post("/v1/contacts", contact(&folder, "K1AUTH")).id();
    eventually("the pause", || logbook(&api)["state"] == "paused");
    let book = logbook(&api);
    assert!(
        book["pausedReason"]
            .as_str()
            .unwrap()
            .contains("QRZ refused the key"),
        "{book}"
    );
    assert_eq!(book["waiting"], 1);
    let asked = qrz.requests().len();
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(
        qrz.requests().len(),
        asked,
        "a paused logbook is left alone"
    );

    // A key QRZ refuses is not taken; a good one ends the pause and the contact goes.
    let r = api.send(
        "PATCH",
        &format!("/v1/logbooks/{id}"),
        Some(&json!({ "apiKey": NEW_QRZ_KEY })),
        &[],
    );
    let msg = r.expect_error(400, "validation_error");
    assert!(msg.contains("QRZ refused this key"), "{msg}");
    qrz.set_mode(Mode::Normal);
    let r = api.send(
        "PATCH",
        &format!("/v1/logbooks/{id}"),
        Some(&json!({ "apiKey": NEW_QRZ_KEY })),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["state"], "working");
    assert_eq!(r.body["keyLast4"], "9911");
    // QRZ holds the record before the worker has written down its answer: the state is
    // waited for, not read once (a loaded machine showed the gap).
    eventually("the waiting contact pushed", || {
        qrz.records(NEW_QRZ_KEY).len() == 1
            && api
                .contacts(&folder)
                .iter()
                .any(|c| c["id"] == waiting.as_str() && c["external"][0]["state"] == "pushed")
    });
    assert_no_key(&server, &[QRZ_KEY, NEW_QRZ_KEY]);
}

fn bad_connections_are_refused_and_keep_nothing() {
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    let (server, _secret) = server_process(&qrz, &[]);
    let api = server.account("W1AW", "elevated");
    let path = "/v1/logbooks";
    for (body, field, says) in [
        (json!({ "provider": "qrz" }), "apiKey", "apiKey is required"),
        (
            json!({ "provider": "lotw", "apiKey": QRZ_KEY }),
            "provider",
            "not known",
        ),
        (
            json!({ "provider": "qrz", "apiKey": "short" }),
            "apiKey",
            "8 to 100",
        ),
        (
            json!({ "provider": "qrz", "apiKey": "NOT-A-BOOK-KEY-0000" }),
            "apiKey",
            "QRZ refused this key",
        ),
        (
            json!({ "provider": "qrz", "apiKey": QRZ_KEY, "autoPush": "yes" }),
            "autoPush",
            "true or false",
        ),
    ] {
        let r = api.post(path, body.clone());
        let msg = r.expect_error(400, "validation_error");
        assert!(msg.contains(says), "{body}: {msg}");
        assert_eq!(r.body["details"]["field"], field, "{body}: {}", r.body);
        assert!(!r.body.to_string().contains(QRZ_KEY), "{}", r.body);
    }
    let r = api.post(
        path,
        json!({ "provider": "qrz", "apiKey": QRZ_KEY, "colour": "red" }),
    );
    assert!(r.expect_error(400, "validation_error").contains("colour"));
    assert_eq!(api.get(path).body["items"], json!([]));

    // Logbooks need an elevated key.
    let basic = server.new_key("W1AW", "basic");
    let r = basic.get(path);
    r.expect_error(403, "tier_insufficient");
    basic
        .post(path, json!({ "provider": "qrz", "apiKey": QRZ_KEY }))
        .expect_error(403, "tier_insufficient");

    // Another account's logbook is not found.
    let id = connect(&api, QRZ_KEY)["id"].as_str().unwrap().to_owned();
    let other = server.account("K9ZZ", "elevated");
    other
        .delete(&format!("/v1/logbooks/{id}"))
        .expect_error(404, "not_found");
    other
        .send(
            "PATCH",
            &format!("/v1/logbooks/{id}"),
            Some(&json!({ "autoPush": false })),
            &[],
        )
        .expect_error(404, "not_found");
    let listed = api.get(path);
    assert!(
        !listed.body.to_string().contains(QRZ_KEY),
        "{}",
        listed.body
    );
    assert_no_key(&server, &[QRZ_KEY]);

    // Without a secret the service keeps no keys: logbooks are off.
    let plain = Server::start();
    let api = plain.account("W1AW", "elevated");
    let msg = api.get(path).expect_error(404, "not_found");
    assert!(msg.contains("--secret-file"), "{msg}");
}

/// Two processes on one PostgreSQL database share the queue: each contact is sent once.
fn two_processes_push_each_contact_once() {
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    let (server, secret) = server(&qrz, &["--burst-limit", "100000"]);
    let flags = [
        "--secret-file".to_owned(),
        secret.path().join("secret").display().to_string(),
        "--qrz-api-url".to_owned(),
        qrz.url().to_string(),
        "--burst-limit".to_owned(),
        "100000".to_owned(),
    ];
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let peer = server.another(&flags);
    let api = server.account("W1AW", "elevated");
    let peer_api = peer.api(Some(api.key()));
    connect(&api, QRZ_KEY);
    let folder = api.monthly(&this_month().0, None);
    for n in 0..20 {
        let via = if n % 2 == 0 { &api } else { &peer_api };
        via.post(
            "/v1/contacts",
            contact(&folder, &format!("K{}P{n}", n % 10)),
        )
        .id();
    }
    eventually("twenty contacts in the book", || {
        qrz.records(QRZ_KEY).len() == 20
    });
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(qrz.records(QRZ_KEY).len(), 20);
    assert_eq!(inserts(&qrz), 20, "each contact sent by one process once");
}

fn connect_synced(api: &Api, key: &str) -> String {
    let r = api.post(
        "/v1/logbooks",
        json!({ "provider": "qrz", "apiKey": key, "autoPush": false, "autoSync": true }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.body["autoSync"], true);
    r.body["id"].as_str().unwrap().to_owned()
}

fn with_station(folder: &str, call: &str, station: &str) -> Value {
    let mut c = contact(folder, call);
    c["stationCallsign"] = json!(station);
    c
}

fn sync_routes_by_station_callsign_and_the_rest_waits_for_review() {
    const CLUB_KEY: &str = "C1UB-0000-1111-2222";
    const CLUB_TOO: &str = "C1UB-3333-4444-5555";
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    qrz.add_book(CLUB_KEY, "K1CLUB");
    let (server, _secret) = server(&qrz, &["--burst-limit", "100000"]);
    let api = server.account("W1AW", "elevated");
    let own = connect_synced(&api, QRZ_KEY);
    let club = connect_synced(&api, CLUB_KEY);
    let folder = api.monthly(&this_month().0, None);
    // No station callsign: the account's own book. The club's call: the club's book.
    let mine = api.post("/v1/contacts", contact(&folder, "K1MINE")).id();
    api.post("/v1/contacts", with_station(&folder, "K1CLB", "K1CLUB"))
        .id();
    // A station no book has: review.
    let lost = api
        .post("/v1/contacts", with_station(&folder, "K1LOST", "N0NE"))
        .id();
    eventually("both routed", || {
        qrz.records(QRZ_KEY).len() == 1 && qrz.records(CLUB_KEY).len() == 1
    });
    assert_eq!(
        qrz.records(CLUB_KEY)[0].1.get("CALL"),
        Some("K1CLB"),
        "routed by station callsign"
    );
    // A second book of the club's call: the next club contact cannot be routed.
    qrz.add_book(CLUB_TOO, "K1CLUB");
    connect_synced(&api, CLUB_TOO);
    let twice = api
        .post("/v1/contacts", with_station(&folder, "K2CLB", "K1CLUB"))
        .id();
    let r = api.get("/v1/logbooks/review");
    assert_eq!(r.status, 200, "{}", r.body);
    let items = r.body["items"].as_array().unwrap().clone();
    let reasons: Vec<(String, String)> = items
        .iter()
        .map(|i| {
            (
                i["id"].as_str().unwrap().to_owned(),
                i["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        reasons,
        vec![
            (lost.clone(), "no_book".to_owned()),
            (twice.clone(), "several_books".to_owned())
        ]
    );
    assert_eq!(items[0]["contact"]["callsign"], "K1LOST");

    // Bad answers change nothing.
    let path = |id: &str| format!("/v1/logbooks/review/{id}");
    for (body, field) in [
        (json!({ "action": "maybe" }), "action"),
        (json!({ "action": "send" }), "logbookId"),
        (json!({ "action": "skip", "logbookId": own }), "logbookId"),
        (
            json!({ "action": "send", "logbookId": "lbk_x" }),
            "logbookId",
        ),
    ] {
        let r = api.post(&path(&lost), body.clone());
        r.expect_error(400, "validation_error");
        assert_eq!(r.body["details"]["field"], field, "{body}: {}", r.body);
    }
    api.post(
        &path(&lost),
        json!({ "action": "send", "logbookId": "lbk_aaaaaaaaaaaaaaaa" }),
    )
    .expect_error(404, "not_found");
    // Sent to the club's book by hand; the other skipped.
    let r = api.post(&path(&lost), json!({ "action": "send", "logbookId": club }));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["action"], "send");
    let r = api.post(&path(&twice), json!({ "action": "skip" }));
    assert_eq!(r.status, 200, "{}", r.body);
    api.post(&path(&twice), json!({ "action": "skip" }))
        .expect_error(404, "not_found");
    eventually("the reviewed contact in the club's book", || {
        qrz.records(CLUB_KEY).len() == 2
    });
    assert_eq!(api.get("/v1/logbooks/review").body["items"], json!([]));
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        qrz.records(CLUB_TOO).is_empty(),
        "the skipped contact went nowhere"
    );

    // A delete here leaves the synced copy there.
    eventually("the copy's log id known", || {
        api.contacts(&folder)
            .iter()
            .any(|c| c["id"] == mine.as_str() && c["external"][0]["state"] == "pushed")
    });
    assert_eq!(api.delete(&format!("/v1/contacts/{mine}")).status, 200);
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(qrz.records(QRZ_KEY).len(), 1, "the book keeps it");
    assert!(
        !qrz.requests().iter().any(|(a, _)| a == "DELETE"),
        "nothing deleted at QRZ"
    );
}

/// Puts a contact into the fake book as another logger would have (through QRZ's API).
fn logged_at_qrz(qrz: &FakeQrz, key: &str, call: &str, time: &str) {
    let record = format!(
        "<CALL:{}>{call} <QSO_DATE:8>{} <TIME_ON:6>{} <BAND:3>20m <FREQ:6>14.074 <MODE:3>FT8 <STATION_CALLSIGN:4>W1AW <EOR>",
        call.len(),
        &time[..8],
        &time[8..]
    );
    insert_at_qrz(qrz, key, &record);
}

/// Puts one ADIF record into the fake book of `key`, through QRZ's API.
fn insert_at_qrz(qrz: &FakeQrz, key: &str, record: &str) {
    let client = svc::server::logbooks::qrz::Qrz::new(qrz.url()).unwrap();
    crate::common::block_on(client.insert(key, record)).unwrap();
}

fn a_synced_book_is_imported_and_a_contact_deleted_here_never_comes_back() {
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    let (server, _secret) = server(&qrz, &["--burst-limit", "100000"]);
    let api = server.account("W1AW", "elevated");
    // A day early in this month, so every contact of the test is in the past.
    let (month, _) = this_month();
    let day = month.replace('-', "") + "01";
    // Logged here and, by other means, at QRZ: linked, not doubled.
    let folder = api.monthly(&month, None);
    let mut here = contact(&folder, "K0HERE");
    here["timeOn"] = json!(format!("{month}-01T00:00:20Z"));
    here["frequency"] = json!(14.074);
    here["mode"] = json!("FT8");
    let here_id = api.post("/v1/contacts", here).id();
    logged_at_qrz(&qrz, QRZ_KEY, "K0HERE", &format!("{day}000000"));
    // 129 more: two pages of 100.
    for n in 1..130 {
        let time = format!("{day}{:02}{:02}{:02}", n / 3600, (n / 60) % 60, n % 60);
        logged_at_qrz(&qrz, QRZ_KEY, &format!("K{}Q{n}", n % 10), &time);
    }
    let inserted = inserts(&qrz);
    let r = api.post(
        "/v1/logbooks",
        json!({ "provider": "qrz", "apiKey": QRZ_KEY, "autoPush": false, "autoSync": true }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.body["id"].as_str().unwrap().to_owned();
    let r = api.post(&format!("/v1/logbooks/{id}/import"), json!({}));
    assert_eq!(r.status, 202, "{}", r.body);
    assert_eq!(r.body["importing"], true);
    eventually("130 contacts here", || api.qso_count() == 130);
    let all = api.all_contacts(&folder);
    assert_eq!(all.len(), 130, "into this month's log");
    let linked = all.iter().find(|c| c["id"] == here_id.as_str()).unwrap();
    assert_eq!(linked["external"][0]["state"], "pushed", "{linked}");
    assert!(linked["external"][0]["logId"].is_string(), "{linked}");
    let imported = all.iter().find(|c| c["callsign"] == "K7Q77").unwrap();
    assert_eq!(
        imported["external"][0]["logbookId"],
        id.as_str(),
        "{imported}"
    );
    assert_eq!(imported["timeOn"], format!("{month}-01T00:01:17Z"));
    // Filled from the callsign as a contact logged here is.
    assert_eq!(imported["country"], "United States", "{imported}");
    assert_eq!(imported["cqz"], 3, "{imported}");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(inserts(&qrz), inserted, "nothing imported is sent back");
    assert_eq!(qrz.records(QRZ_KEY).len(), 130);

    // Deleted here: kept at QRZ, and a new import does not bring it back; a new QSO at QRZ
    // comes in.
    let gone = imported["id"].as_str().unwrap();
    assert_eq!(api.delete(&format!("/v1/contacts/{gone}")).status, 200);
    logged_at_qrz(&qrz, QRZ_KEY, "K9NEW", &format!("{day}030000"));
    let r = api.post(&format!("/v1/logbooks/{id}/import"), json!({}));
    assert_eq!(r.status, 202, "{}", r.body);
    eventually("the new one imported", || {
        api.all_contacts(&folder)
            .iter()
            .any(|c| c["callsign"] == "K9NEW")
    });
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(api.qso_count(), 130, "the deleted one stays deleted");
    assert_eq!(qrz.records(QRZ_KEY).len(), 131, "QRZ keeps its copy");
    let again = api.post(&format!("/v1/logbooks/{id}/import"), json!({}));
    assert_eq!(again.status, 202);
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(api.qso_count(), 130, "nothing twice");

    // Only synced books are read.
    let r = api.send(
        "PATCH",
        &format!("/v1/logbooks/{id}"),
        Some(&json!({ "autoSync": false })),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = api.post(&format!("/v1/logbooks/{id}/import"), json!({}));
    let msg = r.expect_error(400, "validation_error");
    assert!(msg.contains("turn autoSync on"), "{msg}");
    api.post("/v1/logbooks/lbk_aaaaaaaaaaaaaaaa/import", json!({}))
        .expect_error(404, "not_found");
}

/// An import asked for while one is reading the book is not lost: the read under way may have
/// passed what the user wants read, so another follows it at once rather than at the next
/// automatic import, minutes later.
fn an_import_asked_for_during_one_follows_it() {
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    qrz.hold_fetches();
    let (server, _secret) = server(&qrz, &["--burst-limit", "100000"]);
    let api = server.account("W1AW", "elevated");
    let folder = api.monthly(&this_month().0, None);
    let id = connect_synced(&api, QRZ_KEY);
    let fetches = || qrz.requests().iter().filter(|(a, _)| a == "FETCH").count();
    // The first, automatic import is reading the book.
    eventually("the first import's read", || fetches() == 1);
    let day = this_month().0.replace('-', "") + "01";
    logged_at_qrz(&qrz, QRZ_KEY, "K1LATE", &format!("{day}000000"));
    let r = api.post(&format!("/v1/logbooks/{id}/import"), json!({}));
    assert_eq!(r.status, 202, "{}", r.body);
    // The held read answers with the book as it was when it came: without K1LATE.
    qrz.release_fetches();
    eventually("K1LATE imported by the import asked for", || {
        fetches() >= 2
            && api
                .all_contacts(&folder)
                .iter()
                .any(|c| c["callsign"] == "K1LATE")
    });
}

/// A book that never answers holds up its own contacts only: another account's contacts go
/// out to their book at once, though the hung book's queue is longer than a claim.
fn a_hung_book_delays_only_itself() {
    const OTHER_KEY: &str = "B1B2-C3D4-E5F6-9900";
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    qrz.add_book(OTHER_KEY, "K9OK");
    let (server, _secret) = server(&qrz, &["--burst-limit", "100000"]);
    let hung = server.account("W1AW", "elevated");
    let healthy = server.account("K9OK", "elevated");
    connect(&hung, QRZ_KEY);
    connect(&healthy, OTHER_KEY);
    qrz.stall_book(QRZ_KEY);
    let month = this_month().0;
    let folder = hung.monthly(&month, None);
    let items: Vec<Value> = (0..30)
        .map(|n| {
            let mut c = contact(&folder, &format!("K{}H{n}", n % 10));
            c["idempotencyKey"] = json!(format!("hung-{n}"));
            c
        })
        .collect();
    let r = hung.post("/v1/contacts/batch", json!({ "contacts": items }));
    assert_eq!(r.status, 200, "{}", r.body);
    // The hung book's first request is out, and its queue waits behind it.
    eventually("the hung book asked", || {
        qrz.requests()
            .iter()
            .any(|(action, key)| action == "INSERT" && key == QRZ_KEY)
    });
    let other = healthy.monthly(&month, None);
    for call in ["K1OK", "K2OK", "K3OK"] {
        healthy.post("/v1/contacts", contact(&other, call)).id();
    }
    // A bound on the old failure (minutes: the hung book's 20 claimed jobs went first, 30 s
    // each), not a timing measure.
    let started = std::time::Instant::now();
    while qrz.records(OTHER_KEY).len() < 3 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the healthy book got {} of 3 in 10 s",
            qrz.records(OTHER_KEY).len()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(qrz.records(QRZ_KEY).is_empty());
    // One request at a time to the hung book.
    let asked = qrz
        .requests()
        .iter()
        .filter(|(action, key)| action == "INSERT" && key == QRZ_KEY)
        .count();
    assert_eq!(asked, 1);
}

/// Puts an activator's contact into the fake book: made at `parks` by `station`.
fn activated_at_qrz(qrz: &FakeQrz, call: &str, time: &str, parks: &str, station: &str) {
    let record = format!(
        "<CALL:{}>{call} <QSO_DATE:8>{} <TIME_ON:6>{} <BAND:3>20m <FREQ:6>14.062 <MODE:2>CW \
         <MY_SIG:4>POTA <MY_SIG_INFO:{}>{parks} <STATION_CALLSIGN:{}>{station} <EOR>",
        call.len(),
        &time[..8],
        &time[8..],
        parks.len(),
        station.len(),
    );
    insert_at_qrz(qrz, QRZ_KEY, &record);
}

/// A book's records are filed as `svc import adif --auto` files a file's: an activator's into
/// its activation (a two-fer's into one), a bad park's into its monthly log, the rest by month.
fn a_books_activator_records_go_to_their_activations() {
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    let (server, _secret) = server(&qrz, &["--burst-limit", "100000"]);
    let api = server.account("W1AW", "elevated");
    let (month, _) = this_month();
    let day = month.replace('-', "") + "01";
    activated_at_qrz(&qrz, "K1HNT", &format!("{day}120000"), "US-1234", "W1AW");
    activated_at_qrz(&qrz, "K2HNT", &format!("{day}120100"), "US-1234", "W1AW");
    activated_at_qrz(
        &qrz,
        "K3HNT",
        &format!("{day}130000"),
        "us-0001, us-0002",
        "W1AW/P",
    );
    activated_at_qrz(&qrz, "K4HNT", &format!("{day}140000"), "NOT A PARK", "W1AW");
    logged_at_qrz(&qrz, QRZ_KEY, "K5HNT", &format!("{day}150000"));
    let r = api.post(
        "/v1/logbooks",
        json!({ "provider": "qrz", "apiKey": QRZ_KEY, "autoPush": false, "autoSync": true }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.body["id"].as_str().unwrap().to_owned();
    assert_eq!(
        api.post(&format!("/v1/logbooks/{id}/import"), json!({}))
            .status,
        202
    );
    eventually("5 contacts here", || api.qso_count() == 5);
    let calls = |folder: &str| -> Vec<String> {
        let mut calls: Vec<String> = api
            .all_contacts(folder)
            .iter()
            .map(|c| c["callsign"].as_str().unwrap().to_owned())
            .collect();
        calls.sort();
        calls
    };
    let one = api.folder_named(&format!("W1AW@US-1234-{day}"));
    assert_eq!(calls(&one), ["K1HNT", "K2HNT"]);
    let stored = &api.all_contacts(&one)[0];
    assert_eq!(stored["mySigInfo"], "US-1234", "{stored}");
    assert_eq!(stored["activationId"], one.as_str(), "{stored}");
    let two = api.folder_named(&format!("W1AW/P@US-0001,US-0002-{day}"));
    assert_eq!(calls(&two), ["K3HNT"]);
    let monthly = api.monthly(&month, None);
    assert_eq!(calls(&monthly), ["K4HNT", "K5HNT"]);
}

/// The copy of `id` in the book, as the list shows it.
fn copy(api: &Api, folder: &str, id: &str) -> Value {
    let listed = api.contacts(folder);
    let c = listed.iter().find(|c| c["id"] == id).unwrap();
    c["external"][0].clone()
}

fn calls(qrz: &FakeQrz) -> Vec<String> {
    qrz.records(QRZ_KEY)
        .iter()
        .map(|(_, r)| r.get("CALL").unwrap().to_owned())
        .collect()
}

fn an_edited_contact_replaces_its_copy_in_the_book() {
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    let (server, _secret) = server(&qrz, &["--burst-limit", "100000"]);
    let api = server.account("W1AW", "elevated");
    connect(&api, QRZ_KEY);
    let folder = api.monthly(&this_month().0, None);
    let edit = |id: &str, body: Value| {
        let r = api.send("PATCH", &format!("/v1/contacts/{id}"), Some(&body), &[]);
        assert_eq!(r.status, 200, "{}", r.body);
    };

    // A busted call pushed, then fixed here: fixed there, not added beside the busted one.
    let busted = api.post("/v1/contacts", contact(&folder, "K1ABD")).id();
    eventually("the first push", || {
        copy(&api, &folder, &busted)["state"] == "pushed"
    });
    let first_log_id = copy(&api, &folder, &busted)["logId"].clone();
    edit(&busted, json!({ "callsign": "K1ABC", "notes": "fixed" }));
    assert_eq!(
        copy(&api, &folder, &busted)["state"],
        "waiting",
        "queued in the edit's transaction"
    );
    eventually("the copy replaced", || {
        copy(&api, &folder, &busted)["state"] == "pushed"
    });
    assert_eq!(calls(&qrz), ["K1ABC"]);
    let records = qrz.records(QRZ_KEY);
    assert_eq!(
        records[0].1.get("NOTES"),
        Some("fixed"),
        "{:?}",
        records[0].1
    );
    let now_log_id = copy(&api, &folder, &busted)["logId"].clone();
    assert_ne!(now_log_id, first_log_id);
    assert_eq!(json!(records[0].0), now_log_id);

    // An edit that changes nothing of the contact sends nothing.
    let asked = qrz.requests().len();
    edit(&busted, json!({ "callsign": "k1abc" }));
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(qrz.requests().len(), asked, "nothing to send");

    // A copy the book refused goes again after an edit, which may be what it wanted.
    qrz.set_mode(Mode::Fail("invalid call".into()));
    let refused = api.post("/v1/contacts", contact(&folder, "K2ABD")).id();
    eventually("the refusal", || {
        copy(&api, &folder, &refused)["state"] == "failed"
    });
    qrz.set_mode(Mode::Normal);
    edit(&refused, json!({ "callsign": "K2ABC" }));
    eventually("the fixed contact pushed", || {
        copy(&api, &folder, &refused)["state"] == "pushed"
    });
    assert_eq!(calls(&qrz), ["K1ABC", "K2ABC"]);

    // Edited while its push is on its way: the book ends up with the edit.
    qrz.set_mode(Mode::Slow(Duration::from_millis(1500)));
    let inserts_before = inserts(&qrz);
    let moving = api.post("/v1/contacts", contact(&folder, "K3ABD")).id();
    eventually("the push on its way", || inserts(&qrz) > inserts_before);
    edit(&moving, json!({ "callsign": "K3ABC" }));
    qrz.set_mode(Mode::Normal);
    eventually("the edit replaced what arrived", || {
        calls(&qrz) == ["K1ABC", "K2ABC", "K3ABC"]
            && copy(&api, &folder, &moving)["state"] == "pushed"
    });

    // Deleted while its replacement waits: the book's copy is deleted too.
    qrz.set_mode(Mode::Drop);
    edit(&busted, json!({ "notes": "edited once more" }));
    eventually("the replacement failing", || {
        copy(&api, &folder, &busted)["state"] == "waiting" && logbook(&api)["lastError"].is_string()
    });
    assert_eq!(api.delete(&format!("/v1/contacts/{busted}")).status, 200);
    qrz.set_mode(Mode::Normal);
    eventually("the copy deleted there", || {
        calls(&qrz) == ["K2ABC", "K3ABC"]
    });
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        calls(&qrz),
        ["K2ABC", "K3ABC"],
        "nothing sent after the delete"
    );
}

/// QRZ's confirmed status comes home: on the first read of a synced book for the copies sent
/// from here, and later for the records changed since the last read (MODSINCE), without
/// sending anything back to the book.
fn qrzs_confirmations_are_read_into_the_contacts_and_send_nothing_back() {
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    let (server, _secret) = server(&qrz, &["--burst-limit", "100000"]);
    let api = server.account("W1AW", "elevated");
    let (month, _) = this_month();
    let day = month.replace('-', "") + "01";
    let folder = api.monthly(&month, None);
    let r = api.post(
        "/v1/logbooks",
        json!({ "provider": "qrz", "apiKey": QRZ_KEY, "autoPush": true, "autoSync": true }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.body["id"].as_str().unwrap().to_owned();
    let import = || {
        let r = api.post(&format!("/v1/logbooks/{id}/import"), json!({}));
        assert_eq!(r.status, 202, "{}", r.body);
    };
    let mut sent = contact(&folder, "K1SENT");
    sent["timeOn"] = json!(format!("{month}-01T00:10:00Z"));
    let sent = api.post("/v1/contacts", sent).id();
    eventually("the push", || {
        copy(&api, &folder, &sent)["state"] == "pushed"
    });
    let sent_log_id = copy(&api, &folder, &sent)["logId"]
        .as_str()
        .unwrap()
        .to_owned();
    // Confirmed before the book was first read: the first read brings it.
    qrz.confirm(QRZ_KEY, &sent_log_id, &day);
    logged_at_qrz(&qrz, QRZ_KEY, "K2ELSE", &format!("{day}002000"));
    logged_at_qrz(&qrz, QRZ_KEY, "K3OLD", &format!("{day}003000"));
    let pushes = inserts(&qrz);
    import();
    let status = |call: &str| {
        let all = api.all_contacts(&folder);
        let c = all.iter().find(|c| c["callsign"] == call).unwrap().clone();
        c["adif"]["APP_QRZLOG_STATUS"].clone()
    };
    eventually("K1SENT confirmed and the others imported", || {
        api.qso_count() == 3 && status("K1SENT") == "C"
    });
    assert!(status("K2ELSE").is_null());
    let all = api.all_contacts(&folder);
    let k1 = all.iter().find(|c| c["callsign"] == "K1SENT").unwrap();
    assert_eq!(k1["adif"]["APP_QRZLOG_QSLDATE"], day.as_str(), "{k1}");

    // Confirmed after: the next import reads what changed since its day, and only that.
    let records = qrz.records(QRZ_KEY);
    let log_id = |call: &str| {
        records
            .iter()
            .find(|(_, r)| r.get("CALL") == Some(call))
            .unwrap()
            .0
            .clone()
    };
    qrz.confirm(QRZ_KEY, &log_id("K2ELSE"), &day);
    qrz.confirm(QRZ_KEY, &log_id("K3OLD"), &day);
    qrz.set_modified(QRZ_KEY, &log_id("K3OLD"), "2020-01-01");
    import();
    eventually("K2ELSE confirmed", || status("K2ELSE") == "C");
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert!(
        qrz.fetch_options()
            .iter()
            .any(|o| o.contains(&format!("MODSINCE:{today}"))),
        "{:?}",
        qrz.fetch_options()
    );
    // Read in the same page as K2ELSE's, had it been asked for.
    assert!(
        status("K3OLD").is_null(),
        "a record changed before the mark is not read again"
    );
    // Nor is LoTW's confirmation, with its details: where a contact was confirmed is the
    // contact's record, not an edit of what QRZ holds.
    let r = api.post(
        "/v1/confirmations",
        json!({ "service": "lotw", "items": [{
            "callsign": "K1SENT", "band": "20m", "mode": "FT8",
            "timeOn": format!("{month}-01T00:10:00Z"), "stationCallsign": "W1AW",
            "confirmedOn": "2026-11-02",
        }]}),
    );
    assert_eq!(r.body["confirmed"], 1, "{}", r.body);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        inserts(&qrz),
        pushes,
        "QSL states (QRZ's, LoTW's) are not sent back to QRZ"
    );
    assert_eq!(copy(&api, &folder, &sent)["state"], "pushed");
    // The mark shows in the contact list's confirmations.
    let k2 = api.all_contacts(&folder);
    let k2 = k2.iter().find(|c| c["callsign"] == "K2ELSE").unwrap();
    assert_eq!(
        copy(&api, &folder, k2["id"].as_str().unwrap())["state"],
        "pushed"
    );
}

crate::both_backends!(
    qrzs_confirmations_are_read_into_the_contacts_and_send_nothing_back,
    a_synced_book_is_imported_and_a_contact_deleted_here_never_comes_back,
    an_import_asked_for_during_one_follows_it,
    a_books_activator_records_go_to_their_activations,
    a_hung_book_delays_only_itself,
    sync_routes_by_station_callsign_and_the_rest_waits_for_review,
    contacts_are_pushed_when_created_and_deleted_there_when_deleted,
    a_duplicate_counts_as_pushed_and_a_refusal_is_kept,
    an_outage_loses_nothing_and_sends_nothing_twice,
    a_refused_key_pauses_the_logbook_until_a_new_one_is_given,
    bad_connections_are_refused_and_keep_nothing,
    two_processes_push_each_contact_once,
    an_edited_contact_replaces_its_copy_in_the_book,
);
