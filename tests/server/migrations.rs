//! `svc server migrate`: forward-only migrations, from an empty database and from every
//! earlier schema, after which the service works on the migrated database.

use serde_json::json;

use crate::common::{Backend, Db, Server, admin_on, block_on, contact, this_month};

fn migrations_dir() -> std::path::PathBuf {
    let backend = match crate::common::backend() {
        Backend::Sqlite => "sqlite",
        Backend::Postgres => "postgres",
    };
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/store/migrations")
        .join(backend)
}

/// Runs `svc server migrate` twice (the second run has nothing to do), then uses the service.
fn migrate_and_use(db: Db) {
    for run in ["first", "second"] {
        let out = admin_on(&db.url, &["migrate"], None);
        assert!(
            out.status.success(),
            "{run} migrate: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "migrations applied"
        );
    }
    if crate::common::backend() == Backend::Postgres {
        assert_eq!(planner_overrides(&db.url), Vec::<String>::new());
    }
    let s = Server::start_on(db, &[]);
    let api = s.account("W1AW", "elevated");
    let folder = api.monthly(&this_month().0, None);
    let r = api.post("/v1/contacts", contact(&folder, "K1ABC"));
    assert_eq!(r.status, 201, "{}", r.body);
    let r = api.post(
        "/v1/activations",
        json!({ "locationReference": "US-1234", "callsign": "W1AW" }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(api.qso_count(), 1);
    // The web pages' tables: a session, a key from a form, its revocation.
    let browser = crate::web::Browser::signed_up(&s, "K1ABC");
    let (_, key) = browser.generate("laptop", "basic");
    assert_eq!(s.api(Some(&key)).whoami()["callsign"], "K1ABC");
    let (id, _) = browser.get("/keys").listed_keys().remove(0);
    let page = browser.submit("/keys", &format!("/keys/{id}/revoke"), &[]);
    assert_eq!(page.location(), format!("/keys?revoked={id}"));
    s.api(Some(&key))
        .get("/v1/whoami")
        .expect_error(401, "key_revoked");
}

/// The functions of the schema that change a planner setting (`enable_*`) for their calls.
/// Such a setting pushed every grouped create past PostgreSQL's JIT thresholds (a seq scan
/// made to cost 10^10), so that each create took most of a second on a stock server.
fn planner_overrides(url: &str) -> Vec<String> {
    use sqlx::{Connection, Row};
    sqlx::any::install_default_drivers();
    block_on(async {
        let mut conn = sqlx::AnyConnection::connect(url).await.unwrap();
        sqlx::query(
            "SELECT p.proname || ': ' || array_to_string(p.proconfig, ', ') AS f FROM pg_proc p \
             JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' \
             AND array_to_string(p.proconfig, ',') LIKE '%enable\\_%'",
        )
        .fetch_all(&mut conn)
        .await
        .unwrap()
        .iter()
        .map(|r| r.get::<String, _>("f"))
        .collect()
    })
}

fn migrate_builds_the_schema_from_an_empty_database() {
    migrate_and_use(Db::fresh());
}

fn migrator() -> sqlx::migrate::Migrator {
    sqlx::any::install_default_drivers();
    block_on(sqlx::migrate::Migrator::new(migrations_dir())).expect("read the migrations")
}

/// The version just before the migration whose description holds `what`.
fn version_before(migrator: &sqlx::migrate::Migrator, what: &str) -> i64 {
    migrator
        .iter()
        .find(|m| m.description.contains(what))
        .unwrap_or_else(|| panic!("a migration for {what}"))
        .version
        - 1
}

/// A fresh database with the migrations up to `version` only, as an older svc left it; and
/// the URL to connect to it with (a fresh SQLite file is asked to be made).
fn database_at(migrator: &sqlx::migrate::Migrator, version: i64) -> (Db, String) {
    use sqlx::Connection;
    let db = Db::fresh();
    let url = match crate::common::backend() {
        Backend::Sqlite => format!("{}?mode=rwc", db.url),
        Backend::Postgres => db.url.clone(),
    };
    block_on(async {
        let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
        migrator.run_to(version, &mut conn).await.unwrap();
    });
    (db, url)
}

fn migrate_upgrades_every_earlier_schema() {
    let migrator = migrator();
    let versions: Vec<i64> = migrator.iter().map(|m| m.version).collect();
    assert!(!versions.is_empty());
    // Each schema a released version could have left behind: all but the newest migration.
    for &version in &versions[..versions.len() - 1] {
        migrate_and_use(database_at(&migrator, version).0);
    }
}

/// The migration that lets an account be unlimited rebuilds SQLite's accounts table (its
/// plan's CHECK cannot change in place): every account keeps its row, its counters and its
/// keys, and the tables that refer to accounts still do.
fn the_unlimited_plan_migration_keeps_every_account() {
    use sqlx::Connection;
    let migrator = migrator();
    let (db, url) = database_at(&migrator, version_before(&migrator, "unlimited plan"));
    block_on(async {
        let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
        sqlx::query(
            "INSERT INTO accounts (id, callsign, plan, password_hash, native_qso_count, \
             lifetime_created, daily_day, daily_created, created_at) \
             VALUES ('acct_old', 'W1OLD', 'paid', 'hash', 7, 9, 1, 2, 1700000000000)",
        )
        .execute(&mut conn)
        .await
        .unwrap();
        sqlx::query(
            "INSERT INTO api_keys (id, account_id, name, tier, key_prefix, lookup, key_hash, \
             created_at) VALUES ('key_old', 'acct_old', 'shack', 'basic', 'svc_live_OLD', 1, \
             $1, 1700000000000)",
        )
        .bind(vec![0u8; 32])
        .execute(&mut conn)
        .await
        .unwrap();
    });
    let out = admin_on(&db.url, &["migrate"], None);
    assert!(out.status.success(), "{out:?}");

    if crate::common::backend() == Backend::Sqlite {
        block_on(async {
            let mut conn = sqlx::AnyConnection::connect(&db.url).await.unwrap();
            let broken = sqlx::query("PRAGMA foreign_key_check")
                .fetch_all(&mut conn)
                .await
                .unwrap();
            assert!(broken.is_empty(), "every reference to accounts still holds");
        });
    }
    let out = admin_on(&db.url, &["user", "list", "--json"], None);
    let accounts: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(accounts[0]["callsign"], "W1OLD", "{accounts}");
    assert_eq!(accounts[0]["plan"], "paid");
    assert_eq!(accounts[0]["nativeQsoCount"], 7);
    let out = admin_on(&db.url, &["key", "list", "W1OLD", "--json"], None);
    let keys: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(keys[0]["id"], "key_old", "{keys}");

    // The migrated account works: unlimited now, with a new key.
    let out = admin_on(
        &db.url,
        &["user", "set", "W1OLD", "--plan", "unlimited"],
        None,
    );
    assert!(out.status.success(), "{out:?}");
    let s = Server::start_on(db, &[]);
    let out = s.admin(&[
        "key", "create", "W1OLD", "--name", "laptop", "--tier", "elevated",
    ]);
    assert!(out.status.success(), "{out:?}");
    let key = String::from_utf8(out.stdout).unwrap();
    let r = s.api(Some(key.trim())).get("/v1/whoami");
    assert_eq!(r.body["nativeQsoCount"], 7, "{}", r.body);
    assert_eq!(r.header("svc-plan"), Some("unlimited"));
}

/// The migration to sign-in delays keeps a scope that had used up its attempts under the
/// earlier rule (5 failed sign-ins, or 10 sign-ups, in 15 minutes) waiting for its window's
/// end, as it was told, and lets any other try at once.
fn the_sign_in_delays_migration_keeps_used_up_scopes_waiting() {
    use crate::web::{Browser, PASSWORD};
    use sqlx::Connection;
    let migrator = migrator();
    let (db, url) = database_at(&migrator, version_before(&migrator, "signin delays"));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let minute_ago = now - 60_000;
    block_on(async {
        let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
        for (scope, failures) in [
            ("address:127.0.0.2", 5i64),
            ("address:127.0.0.3", 4),
            ("signup-address:127.0.0.4", 10),
        ] {
            sqlx::query(
                "INSERT INTO signin_attempts (scope, window_start, failures) VALUES ($1, $2, $3)",
            )
            .bind(scope)
            .bind(minute_ago)
            .bind(failures)
            .execute(&mut conn)
            .await
            .unwrap();
        }
    });
    let s = Server::start_on(db, &[]);
    let out = admin_on(
        &s.db.url,
        &["user", "add", "W1AW", "--password-stdin"],
        Some(PASSWORD),
    );
    assert!(out.status.success(), "{out:?}");
    let waiting = Browser::at(&s.url, Some("127.0.0.2")).sign_in("W1AW", PASSWORD);
    waiting.expect(429, "Too many failed sign-ins");
    let retry: u64 = waiting.header("retry-after").unwrap().parse().unwrap();
    assert!((60..=840).contains(&retry), "{retry}");
    assert_eq!(
        Browser::at(&s.url, Some("127.0.0.3"))
            .sign_in("W1AW", PASSWORD)
            .location(),
        "/log"
    );
    Browser::at(&s.url, Some("127.0.0.4"))
        .sign_up("K1NEW", PASSWORD)
        .expect(429, "Too many sign-ups");
}

/// The migrations that let a logbook be Club Log's, then eQSL's, rebuild SQLite's logbooks
/// table (its provider's CHECK cannot change in place): every book keeps its row, its copies and what it
/// keeps, nothing that refers to it is cascaded away, and the trigger that queues a new
/// contact for it still does.
fn the_clublog_migration_keeps_every_logbook() {
    use sqlx::Connection;
    let migrator = migrator();
    let (db, url) = database_at(&migrator, version_before(&migrator, "clublog"));
    block_on(async {
        let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
        for sql in [
            "INSERT INTO accounts (id, callsign, plan, password_hash, created_at) \
             VALUES ('acct_old', 'W1OLD', 'paid', 'hash', 1700000000000)",
            "INSERT INTO logbooks (id, account_id, provider, callsign, key_sealed, key_last4, \
             auto_push, auto_sync, paused_reason, created_at) VALUES ('lbk_old', 'acct_old', \
             'qrz', 'W1OLD', $1, '7788', TRUE, FALSE, 'QRZ refused the key', 1700000000000)",
            "INSERT INTO external_copies (contact_id, logbook_id, account_id, state, log_id, \
             due_at, via) VALUES ('qso_old', 'lbk_old', 'acct_old', 'pushed', '42', 0, 'push')",
            "INSERT INTO external_kept (logbook_id, log_id) VALUES ('lbk_old', '41')",
        ] {
            sqlx::query(sql)
                .bind(vec![1u8; 40])
                .execute(&mut conn)
                .await
                .unwrap();
        }
    });
    let out = admin_on(&db.url, &["migrate"], None);
    assert!(out.status.success(), "{out:?}");
    // One runtime for the connection: a PostgreSQL connection lives on the one it was made on.
    block_on(async {
        let mut conn = sqlx::AnyConnection::connect(&db.url).await.unwrap();
        if crate::common::backend() == Backend::Sqlite {
            let broken = sqlx::query("PRAGMA foreign_key_check")
                .fetch_all(&mut conn)
                .await
                .unwrap();
            assert!(broken.is_empty(), "every reference to logbooks still holds");
        }
        let mut count = async |sql: &'static str| -> i64 {
            sqlx::query_scalar(sql).fetch_one(&mut conn).await.unwrap()
        };
        let kept = "SELECT COUNT(*) FROM logbooks WHERE id = 'lbk_old' AND provider = 'qrz' \
             AND key_last4 = '7788' AND paused_reason IS NOT NULL AND email IS NULL";
        assert_eq!(count(kept).await, 1);
        assert_eq!(count("SELECT COUNT(*) FROM external_copies").await, 1);
        assert_eq!(count("SELECT COUNT(*) FROM external_kept").await, 1);

        let book = "INSERT INTO logbooks (id, account_id, provider, callsign, key_sealed, \
             key_last4, auto_push, auto_sync, created_at, email) VALUES ($1, 'acct_old', $2, \
             'W1OLD', $3, '', FALSE, FALSE, 1700000000000, 'op@example.org')";
        let insert = |id: &'static str, provider: &'static str| {
            sqlx::query(book)
                .bind(id)
                .bind(provider)
                .bind(vec![1u8; 40])
        };
        insert("lbk_club", "clublog")
            .execute(&mut conn)
            .await
            .unwrap();
        // eQSL's migration rebuilt the table again, after Club Log's.
        insert("lbk_eqsl", "eqsl").execute(&mut conn).await.unwrap();
        assert!(
            insert("lbk_lotw", "lotw").execute(&mut conn).await.is_err(),
            "the CHECK still refuses other providers"
        );

        // A contact stored now is queued for the migrated book, by the trigger that reads it.
        for sql in [
            "INSERT INTO folders (id, account_id, type, name, created_at) \
             VALUES ('fld_old', 'acct_old', 'monthly', 'November', 1700000000000)",
            "INSERT INTO contacts (id, account_id, folder_id, callsign, frequency, band, mode, \
             time_on, created_at) VALUES ('qso_new', 'acct_old', 'fld_old', 'K1NEW', 14.074, \
             '20m', 'FT8', 1700000000000, 1700000000000)",
        ] {
            sqlx::query(sql).execute(&mut conn).await.unwrap();
        }
        let queued: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM external_copies WHERE logbook_id = 'lbk_old' \
             AND contact_id = 'qso_new' AND state = 'waiting'",
        )
        .fetch_one(&mut conn)
        .await
        .unwrap();
        assert_eq!(queued, 1);
    });
}

/// The one text value `sql` reads.
async fn text(conn: &mut sqlx::AnyConnection, sql: &'static str) -> String {
    sqlx::query_scalar(sql).fetch_one(conn).await.unwrap()
}

/// The migration that stores the awards' and the map's inputs as columns rebuilds SQLite's
/// contacts table (a stored generated column cannot be added in place): every contact keeps
/// its row, the columns hold what its `fields` say, and the triggers that queue a contact for
/// an external logbook, made again with the table, still do, on both backends.
fn the_award_columns_migration_keeps_every_contact_and_its_triggers() {
    use sqlx::{Connection, Row};
    let migrator = migrator();
    let (db, url) = database_at(&migrator, version_before(&migrator, "award columns"));
    block_on(async {
        let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
        for sql in [
            "INSERT INTO accounts (id, callsign, plan, password_hash, created_at) \
             VALUES ('acct_old', 'W1OLD', 'paid', 'hash', 1700000000000)",
            "INSERT INTO folders (id, account_id, type, name, created_at) \
             VALUES ('fld_old', 'acct_old', 'monthly', 'November', 1700000000000)",
            "INSERT INTO logbooks (id, account_id, provider, callsign, key_sealed, key_last4, \
             auto_push, auto_sync, created_at) VALUES ('lbk_old', 'acct_old', 'qrz', 'W1OLD', \
             $1, '7788', TRUE, FALSE, 1700000000000)",
        ] {
            sqlx::query(sql)
                .bind(vec![1u8; 40])
                .execute(&mut conn)
                .await
                .unwrap();
        }
        for (id, call, fields) in [
            (
                "qso_dx",
                "DL1ABC",
                r#"{"dxcc":"230","cqz":"14","gridsquare":"jo62qm","lotwQslRcvd":"Y","propMode":"SAT"}"#,
            ),
            (
                "qso_kept",
                "K1KEPT",
                r#"{"state":"MA","adif":{"GRIDSQUARE":" fn31pr12ab ","APP_QRZLOG_STATUS":"C"}}"#,
            ),
        ] {
            sqlx::query(
                "INSERT INTO contacts (id, account_id, folder_id, callsign, frequency, band, \
                 mode, time_on, created_at, fields) VALUES ($1, 'acct_old', 'fld_old', $2, \
                 14.074, '20m', 'FT8', 1700000000000, 1700000000000, $3)",
            )
            .bind(id)
            .bind(call)
            .bind(fields)
            .execute(&mut conn)
            .await
            .unwrap();
        }
        // Sent to the book: an edit queues it again, a delete sends the delete.
        sqlx::query(
            "UPDATE external_copies SET state = 'pushed', log_id = '42' \
             WHERE contact_id = 'qso_dx'",
        )
        .execute(&mut conn)
        .await
        .unwrap();
    });
    let out = admin_on(&db.url, &["migrate"], None);
    assert!(out.status.success(), "{out:?}");
    block_on(async {
        let mut conn = sqlx::AnyConnection::connect(&db.url).await.unwrap();
        let columns = "SELECT id, award_dxcc, award_state, award_cqz, award_grid, \
             award_prop_mode, award_lotw_qsl_rcvd, award_qrz_status, map_grid \
             FROM contacts ORDER BY id";
        let read = |row: sqlx::any::AnyRow| -> Vec<Option<String>> {
            (0..9).map(|i| row.try_get(i).unwrap()).collect()
        };
        let rows: Vec<Vec<Option<String>>> = sqlx::query(columns)
            .fetch_all(&mut conn)
            .await
            .unwrap()
            .into_iter()
            .map(read)
            .collect();
        let some = |v: &str| Some(v.to_owned());
        assert_eq!(
            rows,
            vec![
                vec![
                    some("qso_dx"),
                    some("230"),
                    None,
                    some("14"),
                    some("jo62qm"),
                    some("SAT"),
                    some("Y"),
                    None,
                    some("JO62QM"),
                ],
                vec![
                    some("qso_kept"),
                    None,
                    some("MA"),
                    None,
                    None,
                    None,
                    None,
                    some("C"),
                    some("FN31PR12AB"),
                ],
            ]
        );
        if crate::common::backend() == Backend::Sqlite {
            let broken = sqlx::query("PRAGMA foreign_key_check")
                .fetch_all(&mut conn)
                .await
                .unwrap();
            assert!(
                broken.is_empty(),
                "every reference from contacts still holds"
            );
        }
        // An edit changes the columns with the fields, and queues the sent copy again.
        sqlx::query(
            "UPDATE contacts SET fields = '{\"dxcc\":\"291\",\"gridsquare\":\"FN42\"}' \
             WHERE id = 'qso_dx'",
        )
        .execute(&mut conn)
        .await
        .unwrap();
        let row = sqlx::query(
            "SELECT award_dxcc, map_grid, award_lotw_qsl_rcvd FROM contacts WHERE id = 'qso_dx'",
        )
        .fetch_one(&mut conn)
        .await
        .unwrap();
        let values: Vec<Option<String>> = (0..3).map(|i| row.try_get(i).unwrap()).collect();
        assert_eq!(values, vec![Some("291".into()), Some("FN42".into()), None]);
        let state = "SELECT state FROM external_copies WHERE contact_id = 'qso_dx'";
        assert_eq!(text(&mut conn, state).await, "waiting");
        sqlx::query("UPDATE external_copies SET state = 'pushed' WHERE contact_id = 'qso_dx'")
            .execute(&mut conn)
            .await
            .unwrap();
        sqlx::query("DELETE FROM contacts WHERE id = 'qso_dx'")
            .execute(&mut conn)
            .await
            .unwrap();
        assert_eq!(text(&mut conn, state).await, "deleting");
        // A contact stored now is queued for the book by the insert trigger.
        sqlx::query(
            "INSERT INTO contacts (id, account_id, folder_id, callsign, frequency, band, mode, \
             time_on, created_at) VALUES ('qso_new', 'acct_old', 'fld_old', 'K1NEW', 14.074, \
             '20m', 'FT8', 1700000000000, 1700000000000)",
        )
        .execute(&mut conn)
        .await
        .unwrap();
        let queued = "SELECT state FROM external_copies WHERE contact_id = 'qso_new'";
        assert_eq!(text(&mut conn, queued).await, "waiting");
    });
}

crate::both_backends!(
    the_award_columns_migration_keeps_every_contact_and_its_triggers,
    migrate_builds_the_schema_from_an_empty_database,
    the_clublog_migration_keeps_every_logbook,
    migrate_upgrades_every_earlier_schema,
    the_unlimited_plan_migration_keeps_every_account,
    the_sign_in_delays_migration_keeps_used_up_scopes_waiting,
);

/// A new SQLite database, its directory and the files SQLite makes beside it are the
/// owner's alone: they hold password hashes and sealed keys.
#[test]
fn a_new_sqlite_database_is_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let file = data.join("svc.db");
    let out = admin_on(&format!("sqlite://{}", file.display()), &["migrate"], None);
    assert!(out.status.success(), "{out:?}");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&data), 0o700);
    for entry in std::fs::read_dir(&data).unwrap() {
        let path = entry.unwrap().path();
        assert_eq!(mode(&path), 0o600, "{}", path.display());
    }
}

/// A database of a kind the service does not use is named, not taken for a file path.
#[test]
fn an_unknown_database_scheme_is_refused_and_makes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin!("svc"))
        .args(["server", "migrate", "--database", "mysql://x/db"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("sqlite://PATH"), "{stderr}");
    assert!(stderr.contains("postgres://"), "{stderr}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing made in the working directory"
    );
}
