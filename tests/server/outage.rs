//! PostgreSQL going away and coming back (a restart, a network cut): requests during the outage
//! fail with `500 internal`, never with a wrong answer, and the server recovers by itself.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{Backend, Db, Outage, Server, contact, on, this_month};

#[test]
fn postgres_requests_fail_as_internal_during_an_outage_and_the_server_recovers() {
    on(Backend::Postgres, || {
        let db = Db::fresh();
        let outage = Outage::proxy_to(db.server_addr());
        let s = Server::start_on(
            db.through(&outage),
            &["--burst-limit", "100000", "--free-plan-cap", "1000000"],
        );
        let api = s.account("W1AW", "elevated");
        let folder = api.monthly(&this_month().0, None);

        // Creates keep coming from several clients while the database goes away and back.
        let acknowledged = Arc::new(Mutex::new(Vec::new()));
        let outcomes = Arc::new(Mutex::new(Vec::new()));
        let running = Arc::new(AtomicBool::new(true));
        let clients: Vec<_> = (0..4)
            .map(|_| {
                let (api, folder) = (api.clone(), folder.clone());
                let (acknowledged, outcomes, running) =
                    (acknowledged.clone(), outcomes.clone(), running.clone());
                std::thread::spawn(move || {
                    while running.load(Ordering::SeqCst) {
                        let r = api.post("/v1/contacts", contact(&folder, "K1ABC"));
                        if r.status == 201 {
                            acknowledged.lock().unwrap().push(r.id());
                        } else {
                            r.expect_error(500, "internal");
                        }
                        outcomes.lock().unwrap().push(r.status);
                    }
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        outage.cut();
        // While it is down, every request is an `internal` error, reads and writes alike.
        for path in [
            "/v1/whoami".to_owned(),
            format!("/v1/folders/{folder}/contacts"),
        ] {
            api.get(&path).expect_error(500, "internal");
        }
        std::thread::sleep(Duration::from_millis(500));
        outage.restore();

        // Back without a restart: the next requests succeed within a few seconds.
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let r = api.get("/v1/whoami");
            if r.status == 200 {
                break;
            }
            r.expect_error(500, "internal");
            assert!(Instant::now() < deadline, "the server did not recover");
            std::thread::sleep(Duration::from_millis(100));
        }
        std::thread::sleep(Duration::from_millis(300));
        running.store(false, Ordering::SeqCst);
        for c in clients {
            c.join().unwrap();
        }
        let outcomes = outcomes.lock().unwrap();
        assert!(outcomes.contains(&500), "the outage was seen: {outcomes:?}");
        assert!(
            outcomes.iter().rev().take(4).any(|s| *s == 201),
            "creates work again: {outcomes:?}"
        );

        // Nothing acknowledged was lost; the folder holds what the count says.
        let stored: Vec<String> = api
            .all_contacts(&folder)
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_owned())
            .collect();
        for id in acknowledged.lock().unwrap().iter() {
            assert!(stored.contains(id), "acknowledged {id} is missing");
        }
        assert_eq!(api.qso_count(), stored.len() as i64);
    });
}

/// `GET /healthz`: 200 while the database answers with this build's schema, 503 while it is
/// away, 200 again when it is back; no key needed, nothing secret said.
#[test]
fn health_follows_the_database() {
    on(Backend::Postgres, || {
        let db = Db::fresh();
        let outage = Outage::proxy_to(db.server_addr());
        let s = Server::start_on(db.through(&outage), &[]);
        let health = s.api(None);
        let r = health.get("/healthz");
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.body["status"], "ok");
        assert_eq!(r.body["database"], "ok");
        assert!(r.body["schema"].as_i64().unwrap() >= 13, "{}", r.body);
        outage.cut();
        let r = health.get("/healthz");
        assert_eq!(r.status, 503, "{}", r.body);
        assert_eq!(
            r.body,
            serde_json::json!({"status": "unavailable", "database": "unreachable"})
        );
        outage.restore();
        let deadline = Instant::now() + Duration::from_secs(30);
        while health.get("/healthz").status != 200 {
            assert!(Instant::now() < deadline, "health did not come back");
            std::thread::sleep(Duration::from_millis(100));
        }
    });
}

/// A database a newer svc migrated further than this build knows: 503, saying so.
#[test]
fn health_says_when_the_schema_is_not_this_builds() {
    on(Backend::Sqlite, || {
        let s = Server::start();
        assert_eq!(s.api(None).get("/healthz").status, 200);
        s.exec_sql(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
             VALUES (9999, 'from a newer svc', 1, X'00', 0)",
            &[],
        );
        let r = s.api(None).get("/healthz");
        assert_eq!(r.status, 503, "{}", r.body);
        assert_eq!(r.body["database"], "ok");
        assert_eq!(r.body["schema"], 9999);
        assert!(r.body["schemaWanted"].as_i64().unwrap() < 9999);
    });
}
