//! The QRZ Logbook protocol against the fake QRZ: what each action answers, paging through a
//! book, and each way QRZ can fail, with the key kept out of every error.

use std::time::{Duration, Instant};

use svc::server::logbooks::qrz::{Deleted, Inserted, Qrz, QrzError};

use crate::common::block_on;
use crate::common::qrz::{FakeQrz, Mode};

const KEY: &str = "ABCD-0A0B-1C1D-2E2F";

fn client(fake: &FakeQrz) -> Qrz {
    Qrz::new(fake.url()).expect("a QRZ client")
}

fn with_book() -> FakeQrz {
    let fake = FakeQrz::start();
    fake.add_book(KEY, "W1AW");
    fake
}

/// One contact as ADI text, its fields in this order.
fn adi(fields: &[(&str, &str)]) -> String {
    let mut text = String::new();
    for (name, value) in fields {
        text.push_str(&format!("<{name}:{}>{value} ", value.len()));
    }
    text + "<EOR>"
}

fn contact(call: &str, time_on: &str) -> String {
    adi(&[
        ("STATION_CALLSIGN", "W1AW"),
        ("CALL", call),
        ("QSO_DATE", "20260704"),
        ("TIME_ON", time_on),
        ("BAND", "20m"),
        ("MODE", "FT8"),
    ])
}

fn request(action: &str) -> (String, String) {
    (action.to_owned(), KEY.to_owned())
}

fn assert_hides_key(e: &QrzError) {
    let shown = format!("{e} / {e:?}");
    assert!(!shown.contains(KEY), "the key shows in {shown}");
}

fn new_id(inserted: Inserted) -> String {
    match inserted {
        Inserted::New { log_id } => log_id,
        other => panic!("not a new record: {other:?}"),
    }
}

#[test]
fn status_names_the_book_and_counts_its_records() {
    let fake = with_book();
    block_on(async {
        let qrz = client(&fake);
        let empty = qrz.status(KEY).await.unwrap();
        assert_eq!(empty.callsign, "W1AW");
        assert_eq!(empty.count, Some(0));
        assert!(empty.book_id.is_some());
        qrz.insert(KEY, &contact("K1ABC", "1200")).await.unwrap();
        let book = qrz.status(KEY).await.unwrap();
        assert_eq!(book.count, Some(1));
        assert_eq!(book.book_id, empty.book_id);

        // The fake turns away a program that does not name itself, so the calls above
        // passing means svc sent its User-Agent.
        let anonymous = reqwest::Client::builder()
            .tls_certs_only([])
            .build()
            .unwrap()
            .post(fake.url())
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!("KEY={KEY}&ACTION=STATUS"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(anonymous.contains("User-Agent"), "{anonymous}");
    });
    assert_eq!(
        fake.requests(),
        [
            request("STATUS"),
            request("INSERT"),
            request("STATUS"),
            request("STATUS")
        ]
    );
}

#[test]
fn insert_new_then_duplicate_then_replace() {
    let fake = with_book();
    block_on(async {
        let qrz = client(&fake);
        let log_id = new_id(qrz.insert(KEY, &contact("K1ABC", "1200")).await.unwrap());
        assert_eq!(fake.records(KEY)[0].0, log_id);
        assert_eq!(fake.records(KEY)[0].1.get("CALL"), Some("K1ABC"));

        // The same minute with seconds is the same contact to QRZ.
        let again = qrz.insert(KEY, &contact("K1ABC", "120030")).await;
        assert_eq!(again, Ok(Inserted::Duplicate));
        assert_eq!(fake.records(KEY).len(), 1);

        let changed = adi(&[
            ("STATION_CALLSIGN", "W1AW"),
            ("CALL", "K1ABC"),
            ("QSO_DATE", "20260704"),
            ("TIME_ON", "1200"),
            ("BAND", "20m"),
            ("MODE", "FT8"),
            ("RST_SENT", "-12"),
        ]);
        assert_eq!(
            qrz.replace(KEY, &changed).await,
            Ok(Inserted::Replaced {
                log_id: log_id.clone()
            })
        );
        let records = fake.records(KEY);
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].1.get("RST_SENT"), Some("-12"));

        // Replacing what the book does not have adds it.
        let other = new_id(qrz.replace(KEY, &contact("K2XYZ", "1201")).await.unwrap());
        assert_ne!(other, log_id);
        assert_eq!(fake.records(KEY).len(), 2);
    });
}

#[test]
fn delete_takes_ids_the_book_no_longer_has_as_done() {
    let fake = with_book();
    block_on(async {
        let qrz = client(&fake);
        let mut ids = Vec::new();
        for (call, time) in [("K1A", "1200"), ("K1B", "1201"), ("K1C", "1202")] {
            ids.push(new_id(qrz.insert(KEY, &contact(call, time)).await.unwrap()));
        }
        let all = |ids: &[&String]| ids.iter().map(|id| id.to_string()).collect::<Vec<_>>();

        let first_two = all(&[&ids[0], &ids[1]]);
        assert_eq!(
            qrz.delete(KEY, &first_two).await,
            Ok(Deleted {
                deleted: first_two.clone(),
                not_found: vec![]
            })
        );
        assert_eq!(fake.records(KEY).len(), 1);

        assert_eq!(
            qrz.delete(KEY, &all(&[&ids[1], &ids[2]])).await,
            Ok(Deleted {
                deleted: all(&[&ids[2]]),
                not_found: all(&[&ids[1]])
            })
        );
        assert_eq!(fake.records(KEY), []);

        assert_eq!(
            qrz.delete(KEY, &all(&[&ids[0]])).await,
            Ok(Deleted {
                deleted: vec![],
                not_found: all(&[&ids[0]])
            })
        );

        let before = fake.requests().len();
        assert_eq!(
            qrz.delete(KEY, &[]).await,
            Ok(Deleted {
                deleted: vec![],
                not_found: vec![]
            })
        );
        assert_eq!(
            fake.requests().len(),
            before,
            "nothing to delete, nothing sent"
        );
    });
}

#[test]
fn fetch_pages_through_a_book_and_text_round_trips() {
    let fake = with_book();
    let odd_text = [
        (3usize, "NAME", "O'Brien & Sons"),
        (7, "NAME", "Jürgen"),
        (11, "COMMENT", "Tom & Jerry's \"club\" <3 R&D=ok"),
    ];
    block_on(async {
        let qrz = client(&fake);
        let mut inserted = Vec::new();
        for i in 0..25usize {
            let call = format!("K{i}ABC");
            let time = format!("{:02}{:02}", 10 + i / 60, i % 60);
            let mut fields = vec![
                ("STATION_CALLSIGN", "W1AW"),
                ("CALL", call.as_str()),
                ("QSO_DATE", "20260704"),
                ("TIME_ON", time.as_str()),
                ("BAND", "40m"),
                ("MODE", "CW"),
            ];
            if let Some((_, name, value)) = odd_text.iter().find(|(at, _, _)| *at == i) {
                fields.push((*name, *value));
            }
            inserted.push(new_id(qrz.insert(KEY, &adi(&fields)).await.unwrap()));
        }

        let mut fetched = Vec::new();
        let mut sizes = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let page = qrz.fetch(KEY, after.as_deref(), 10, None).await.unwrap();
            if page.records.is_empty() {
                assert_eq!(page.last_log_id, None);
                break;
            }
            sizes.push(page.records.len());
            assert_eq!(
                page.last_log_id.as_deref(),
                page.records.last().map(|(id, _)| id.as_str())
            );
            after = page.last_log_id;
            fetched.extend(page.records);
        }
        assert_eq!(sizes, [10, 10, 5]);
        let ids: Vec<&String> = fetched.iter().map(|(id, _)| id).collect();
        assert_eq!(ids, inserted.iter().collect::<Vec<_>>());
        for (id, record) in &fetched {
            assert_eq!(record.get("APP_QRZLOG_LOGID"), Some(id.as_str()));
        }
        assert_eq!(fetched, fake.records(KEY));
        for (at, name, value) in odd_text {
            assert_eq!(
                fetched[at].1.get(name),
                Some(value),
                "{name} of record {at}"
            );
        }
    });
    let fetches = fake
        .requests()
        .iter()
        .filter(|(action, _)| action == "FETCH")
        .count();
    assert_eq!(fetches, 4, "three pages and the empty one that ends it");
}

#[test]
fn a_refused_key_is_auth() {
    let fake = with_book();
    block_on(async {
        let qrz = client(&fake);
        let unknown = "WXYZ-9999-8888-7777";
        let e = qrz.status(unknown).await.unwrap_err();
        assert!(matches!(e, QrzError::Auth(_)), "{e:?}");
        assert!(!format!("{e} {e:?}").contains(unknown), "{e}");

        fake.set_mode(Mode::Auth);
        let e = qrz
            .insert(KEY, &contact("K1ABC", "1200"))
            .await
            .unwrap_err();
        assert!(matches!(e, QrzError::Auth(_)), "{e:?}");
        assert_hides_key(&e);
    });
}

#[test]
fn a_refusal_is_fail_with_the_reason() {
    let fake = with_book();
    block_on(async {
        let qrz = client(&fake);
        let reason = "QSO date is outside the logbook's date range";
        fake.set_mode(Mode::Fail(reason.into()));
        let e = qrz
            .insert(KEY, &contact("K1ABC", "1200"))
            .await
            .unwrap_err();
        assert_eq!(e, QrzError::Fail(reason.into()));
        assert!(e.to_string().contains(reason), "{e}");

        // Should QRZ quote the key back, it does not get through.
        fake.set_mode(Mode::Fail(format!("key {KEY} is not valid")));
        let e = qrz.status(KEY).await.unwrap_err();
        assert!(matches!(e, QrzError::Fail(_)), "{e:?}");
        assert_hides_key(&e);

        // Malformed input of ours is a refusal too, not a transport problem.
        fake.set_mode(Mode::Normal);
        let e = qrz.insert(KEY, "<CALL:5>K1ABC").await.unwrap_err();
        assert!(matches!(e, QrzError::Fail(_)), "{e:?}");
    });
}

#[test]
fn no_answer_is_transport_and_the_client_recovers() {
    let fake = with_book();
    block_on(async {
        let qrz = client(&fake)
            .with_timeouts(Duration::from_millis(500), Duration::from_secs(1))
            .unwrap();
        for mode in [Mode::Stall, Mode::Drop, Mode::ServerError] {
            fake.set_mode(mode.clone());
            let before = fake.requests().len();
            let started = Instant::now();
            let e = qrz
                .insert(KEY, &contact("K1ABC", "1200"))
                .await
                .unwrap_err();
            assert!(matches!(e, QrzError::Transport(_)), "{mode:?}: {e:?}");
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "{mode:?} took {:?}",
                started.elapsed()
            );
            assert_hides_key(&e);
            assert_eq!(
                fake.requests().len(),
                before + 1,
                "{mode:?}: sent once, never again by itself"
            );
        }
        assert_eq!(fake.records(KEY), [], "nothing was stored on the way");

        fake.set_mode(Mode::Normal);
        new_id(qrz.insert(KEY, &contact("K1ABC", "1200")).await.unwrap());
    });
}

#[test]
fn nothing_listening_is_transport() {
    let fake = FakeQrz::start();
    let url = fake.url();
    drop(fake);
    block_on(async {
        let qrz = Qrz::new(url).unwrap();
        let e = qrz.status(KEY).await.unwrap_err();
        assert!(matches!(e, QrzError::Transport(_)), "{e:?}");
        assert_hides_key(&e);
        assert!(!format!("{qrz:?}").contains(KEY));
    });
}
