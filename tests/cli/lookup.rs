//! `svc lookup`: the callbooks' stand-in (tests/common/callbook.rs) in place of QRZ's and
//! HamQTH's XML services, the password kept with SVC_NO_KEYRING=1 in the config file, and
//! never shown anywhere else.

use serde_json::Value;
use svc::client::lookup::{Callbook, LookupError, Password, Service};

use super::{Cli, closed_port, setup};
use crate::common::block_on;
use crate::common::callbook::{Book, FakeCallbook};

const PASSWORD: &str = "s3cret pw&;!";
const WRONG: &str = "not-the-pw-42";

/// A user with no key (a callbook needs none) pointed at the stand-in.
fn user(fake: &FakeCallbook) -> Cli {
    let cli = Cli::new(&closed_port());
    prepare(&cli, fake);
    cli
}

fn prepare(cli: &Cli, fake: &FakeCallbook) {
    cli.set_env("SVC_NO_KEYRING", "1");
    cli.set_env("SVC_QRZ_XML_URL", &fake.qrz_url());
    cli.set_env("SVC_HAMQTH_URL", &fake.hamqth_url());
    cli.secret(PASSWORD);
    cli.secret(WRONG);
}

fn connect(cli: &Cli, service: &str, user: &str) {
    let args = [
        "lookup",
        "connect",
        service,
        "--user",
        user,
        "--password-stdin",
    ];
    cli.run_stdin(&args, &format!("{PASSWORD}\n")).ok();
}

/// The lookups (not the logins) the stand-in answered for `book`.
fn lookups(fake: &FakeCallbook, book: Book) -> usize {
    let session = match book {
        Book::Qrz => "s",
        Book::Hamqth => "id",
    };
    fake.seen()
        .iter()
        .filter(|s| s.book == book && s.params.contains_key(session))
        .count()
}

#[test]
fn connect_checks_the_login_first_and_stores_nothing_when_refused() {
    let fake = FakeCallbook::start();
    fake.add_user("W1AW", PASSWORD, true);
    let cli = user(&fake);
    let args = [
        "lookup",
        "connect",
        "qrz",
        "--user",
        "W1AW",
        "--password-stdin",
    ];
    let refused = cli.run_stdin(&args, &format!("{WRONG}\n"));
    let message = refused.fails(3, "lookup connect", "unauthorized");
    assert!(message.contains("Username/password incorrect"), "{message}");
    assert!(message.contains("nothing was stored"), "{message}");
    assert!(!cli.config_file().exists(), "nothing stored");
    let with_json = [&args[..], &["--json"][..]].concat();
    let envelope = cli.run_stdin(&with_json, &format!("{WRONG}\n"));
    envelope.fails_json(3, "lookup connect", "unauthorized");
    assert_eq!(fake.logins(Book::Qrz), 2, "one login each, never retried");

    let run = cli.run_stdin(&args, &format!("{PASSWORD}\n"));
    run.ok();
    assert!(
        run.stdout.starts_with(
            "connected to QRZ as W1AW (QRZ XML subscription until Wed Jan 13 13:59:00 2027); the password is stored in "
        ),
        "{run:?}"
    );
    assert!(
        run.stderr.contains("SVC_NO_KEYRING=1 is set"),
        "where it went is said: {run:?}"
    );
    // The stand-in got it as typed, with svc's name, in a query of its own.
    let login = &fake.seen()[2].params;
    assert_eq!(login["username"], "W1AW");
    assert_eq!(login["password"], PASSWORD);
    assert_eq!(login["agent"], "svc-0.2.0");

    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(cli.config_file())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(cli.config_file()).unwrap()).unwrap();
    assert_eq!(config["callbook"], "qrz");
    assert_eq!(config["callbookUser"], "W1AW");
    assert_eq!(config["callbookPassword"], PASSWORD);

    // Connecting HamQTH replaces QRZ: one callbook at a time.
    let run = cli.run_stdin(
        &[
            "lookup",
            "connect",
            "hamqth",
            "--user",
            "W1AW",
            "--password-stdin",
            "--json",
        ],
        PASSWORD,
    );
    let answer = run.ok().json();
    assert_eq!(
        answer,
        serde_json::json!({"service": "hamqth", "user": "W1AW", "stored": "config", "note": null})
    );
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(cli.config_file()).unwrap()).unwrap();
    assert_eq!(config["callbook"], "hamqth");

    let run = cli.run(&["lookup", "disconnect"]);
    run.ok();
    assert_eq!(
        run.stdout,
        "disconnected from HamQTH (W1AW); its password is forgotten\n"
    );
    assert!(!cli.config_file().exists(), "nothing else was in it");
    let message = cli
        .run(&["lookup", "W1AW"])
        .fails(3, "lookup", "unauthorized");
    assert!(message.contains("svc lookup connect"), "{message}");
    assert_eq!(
        cli.run(&["lookup", "disconnect"]).ok().stdout,
        "no callbook was connected\n"
    );
}

#[test]
fn a_qrz_record_prints_as_lines_and_as_json() {
    let fake = FakeCallbook::start();
    fake.add_user("W1AW", PASSWORD, true);
    let cli = user(&fake);
    connect(&cli, "qrz", "W1AW");
    let run = cli.run(&["lookup", "w1aw"]);
    run.ok();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[..9],
        [
            "Callsign   W1AW",
            "Name       Hiram Percy Maxim",
            "QTH        Newington",
            "State      CT",
            "Country    United States",
            "Grid       FN31pr",
            "DXCC       291",
            "CQ zone    5",
            "ITU zone   8",
        ],
        "{run:?}"
    );
    assert!(lines[9].starts_with("Source     QRZ, 20"), "{run:?}");
    assert!(lines[9].ends_with(" UTC"), "{run:?}");
    assert_eq!(lines.len(), 10, "{run:?}");

    let l = cli.run(&["lookup", "W1AW", "--json"]).ok().json();
    assert_eq!(l["callsign"], "W1AW");
    assert_eq!(l["name"], "Hiram Percy Maxim");
    assert_eq!(l["qth"], "Newington");
    assert_eq!(l["state"], "CT");
    assert_eq!(l["grid"], "FN31pr");
    assert_eq!(l["country"], "United States");
    assert_eq!(l["dxcc"], 291);
    assert_eq!(l["cqZone"], 5);
    assert_eq!(l["ituZone"], 8);
    assert_eq!(l["continent"], Value::Null, "QRZ names none");
    assert_eq!(l["source"], "qrz");
    let fetched = svc::model::Timestamp::parse("fetchedAt", l["fetchedAt"].as_str().unwrap());
    assert!(fetched.is_ok(), "{l}");
    assert_eq!(l.as_object().unwrap().len(), 12, "{l}");
    // Each process logs in once and asks once; the session key goes with the lookup.
    let asked = fake.seen().last().unwrap().params.clone();
    assert_eq!(asked["callsign"], "W1AW");
    assert!(!asked.contains_key("password"));
}

#[test]
fn a_hamqth_record_has_the_same_shape() {
    let fake = FakeCallbook::start();
    fake.add_user("ok1vbr", PASSWORD, false);
    let cli = user(&fake);
    connect(&cli, "hamqth", "ok1vbr");
    let l = cli.run(&["lookup", "OK1VBR", "--json"]).ok().json();
    for (field, want) in [
        ("callsign", serde_json::json!("OK1VBR")),
        ("name", serde_json::json!("Petr")),
        ("qth", serde_json::json!("Neratovice")),
        ("state", Value::Null),
        ("grid", serde_json::json!("JO70gg")),
        ("country", serde_json::json!("Czech Republic")),
        ("dxcc", serde_json::json!(503)),
        ("cqZone", serde_json::json!(15)),
        ("ituZone", serde_json::json!(28)),
        ("continent", serde_json::json!("EU")),
        ("source", serde_json::json!("hamqth")),
    ] {
        assert_eq!(l[field], want, "{field} in {l}");
    }
    let asked = fake.seen().last().unwrap().params.clone();
    assert_eq!(asked["prg"], "svc");
    assert_eq!(asked["callsign"], "OK1VBR");
}

#[test]
fn an_unknown_call_is_not_found_and_a_bad_one_is_refused() {
    let fake = FakeCallbook::start();
    fake.add_user("W1AW", PASSWORD, true);
    let cli = user(&fake);
    for service in ["qrz", "hamqth"] {
        connect(&cli, service, "W1AW");
        let message = cli
            .run(&["lookup", "W1XYZ"])
            .fails(1, "lookup", "not_found");
        assert!(message.contains("no record"), "{message}");
        cli.run(&["lookup", "W1XYZ", "--json"])
            .fails_json(1, "lookup", "not_found");
    }
    let before = fake.seen().len();
    cli.run(&["lookup", "no/such call"])
        .fails(2, "lookup", "validation_error");
    assert_eq!(fake.seen().len(), before, "nothing sent");
    cli.run(&["lookup", "W1AW", "--qrz-xml-url", "http://qrz.example.org/"])
        .fails(2, "lookup", "validation_error");
}

#[test]
fn an_expired_session_is_replaced_by_one_new_login() {
    let fake = FakeCallbook::start();
    fake.add_user("W1AW", PASSWORD, true);
    let cli = user(&fake);
    connect(&cli, "qrz", "W1AW");
    fake.expire_next_session();
    let l = cli.run(&["lookup", "W1AW", "--json"]).ok().json();
    assert_eq!(l["name"], "Hiram Percy Maxim");
    // The connect's login, the lookup's, and one more after "Session Timeout".
    assert_eq!(fake.logins(Book::Qrz), 3);
    assert_eq!(lookups(&fake, Book::Qrz), 2);

    // A session that expires at once every time is given up on after the one new login.
    fake.expire_sessions_after(0);
    let message = cli
        .run(&["lookup", "W1AW"])
        .fails(1, "lookup", "callbook_error");
    assert!(message.contains("expired again"), "{message}");
    assert_eq!(fake.logins(Book::Qrz), 5);
}

#[test]
fn a_callbook_kept_open_logs_in_again_as_its_sessions_expire() {
    let fake = FakeCallbook::start();
    fake.add_user("ok1vbr", PASSWORD, true);
    fake.expire_sessions_after(2);
    let url = reqwest::Url::parse(&fake.hamqth_url()).unwrap();
    let callbook = Callbook::new(Service::Hamqth, url, "ok1vbr", Password::new(PASSWORD)).unwrap();
    block_on(async {
        for _ in 0..5 {
            let l = callbook.lookup("ok1vbr").await.unwrap();
            assert_eq!(l.name.as_deref(), Some("Petr"));
            assert_eq!(l.source, Service::Hamqth);
        }
        assert_eq!(
            callbook.lookup("W1XYZ").await.map(|_| ()),
            Err(LookupError::NotFound(
                "HamQTH has no record: Callsign not found".into()
            ))
        );
    });
    // Lookups 1-2, 3-4, 5 and the unknown call: three sessions.
    assert_eq!(fake.logins(Book::Hamqth), 3);
    assert_eq!(lookups(&fake, Book::Hamqth), 8);

    let wrong = Callbook::new(
        Service::Hamqth,
        reqwest::Url::parse(&fake.hamqth_url()).unwrap(),
        "ok1vbr",
        Password::new(WRONG),
    )
    .unwrap();
    let e = block_on(wrong.lookup("ok1vbr")).unwrap_err();
    assert!(matches!(e, LookupError::Refused(_)), "{e:?}");
    assert!(!e.to_string().contains(WRONG));
    assert_eq!(
        fake.logins(Book::Hamqth),
        4,
        "a refused password is not sent again"
    );
}

#[test]
fn a_record_without_a_subscription_is_kept_and_said_to_be_partial() {
    let fake = FakeCallbook::start();
    fake.add_user("W1AW", PASSWORD, false);
    let cli = user(&fake);
    let run = cli.run_stdin(
        &[
            "lookup",
            "connect",
            "qrz",
            "--user",
            "W1AW",
            "--password-stdin",
        ],
        PASSWORD,
    );
    assert!(
        run.ok().stdout.contains("no XML subscription"),
        "said at once: {run:?}"
    );
    let run = cli.run(&["lookup", "W1AW"]);
    run.ok();
    assert!(
        run.stdout.contains("Name       Hiram Percy Maxim\n"),
        "{run:?}"
    );
    assert!(run.stdout.contains("Country    United States\n"), "{run:?}");
    assert!(!run.stdout.contains("Grid"), "{run:?}");
    assert!(
        run.stderr.contains(
            "warning: QRZ says: A subscription is required to access the complete record."
        ),
        "{run:?}"
    );
    let l = cli.run(&["lookup", "W1AW", "--json"]).ok().json();
    assert_eq!(l["grid"], Value::Null);
    assert!(
        l["note"]
            .as_str()
            .unwrap()
            .contains("subscription is required"),
        "{l}"
    );
}

#[test]
fn a_stalled_callbook_gives_up_within_the_budget() {
    let fake = FakeCallbook::start();
    fake.add_user("W1AW", PASSWORD, true);
    let cli = user(&fake);
    connect(&cli, "qrz", "W1AW");
    fake.stall();
    let message = cli
        .run(&["lookup", "W1AW"])
        .fails(7, "lookup", "transport_error");
    assert!(
        message.contains("no answer from QRZ within 5 s"),
        "{message}"
    );
}

/// The journal file of the account (not the index).
fn journal_file(cli: &Cli) -> std::path::PathBuf {
    std::fs::read_dir(cli.data_dir().join("svc").join("journal"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "db") && !p.ends_with("index.db"))
        .expect("a journal")
}

/// Makes the cached answer for `call` `days` old, as if fetched then.
fn age_cached(cli: &Cli, call: &str, days: i64) {
    use sqlx::Connection;
    let then = svc::model::Timestamp(svc::model::Timestamp::now().millis() - days * 86_400_000);
    let url = format!("sqlite://{}", journal_file(cli).display());
    block_on(async {
        let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
        let changed = sqlx::query(
            "UPDATE lookups SET answer = json_set(answer, '$.fetchedAt', $1), fetched_at = $2 WHERE callsign = $3",
        )
        .bind(then.to_string())
        .bind(then.millis())
        .bind(call)
        .execute(&mut conn)
        .await
        .unwrap()
        .rows_affected();
        assert_eq!(changed, 1);
    });
}

#[test]
fn the_journal_caches_answers_and_stands_in_when_the_callbook_is_gone() {
    let (_server, _api, cli) = setup("basic");
    let fake = FakeCallbook::start();
    fake.add_user("W1AW", PASSWORD, true);
    prepare(&cli, &fake);
    // The key's journal, made once with the service.
    cli.run(&["outbox", "list"]).ok();
    connect(&cli, "qrz", "W1AW");

    let first = cli.run(&["lookup", "W1AW"]);
    first.ok();
    assert!(!first.stderr.contains("cache"), "{first:?}");
    assert_eq!(lookups(&fake, Book::Qrz), 1);
    let again = cli.run(&["lookup", "W1AW"]);
    assert_eq!(again.ok().stdout, first.stdout);
    assert!(
        again
            .stderr
            .contains("QRZ's answer from the cache, just now"),
        "{again:?}"
    );
    assert_eq!(
        lookups(&fake, Book::Qrz),
        1,
        "a fresh answer is not asked for"
    );
    cli.run(&["lookup", "W1AW", "--refresh"]).ok();
    assert_eq!(lookups(&fake, Book::Qrz), 2, "--refresh asks");

    // An answer older than 30 days is asked for again when the callbook answers.
    age_cached(&cli, "W1AW", 40);
    let refreshed = cli.run(&["lookup", "W1AW", "--json"]).ok().json();
    assert_eq!(lookups(&fake, Book::Qrz), 3);
    let fetched = svc::model::Timestamp::parse("t", refreshed["fetchedAt"].as_str().unwrap());
    assert!(
        svc::model::Timestamp::now().millis() - fetched.unwrap().millis() < 3_600_000,
        "the new answer is kept"
    );

    // With the callbook gone, the old answer stands in, and says how old it is.
    age_cached(&cli, "W1AW", 40);
    drop(fake);
    let offline = cli.run(&["lookup", "W1AW"]);
    let fields = |text: &str| text[..text.find("Source").unwrap()].to_owned();
    assert_eq!(fields(&offline.ok().stdout), fields(&first.stdout));
    assert!(
        offline.stderr.contains("QRZ cannot be reached")
            && offline
                .stderr
                .contains("this is QRZ's answer from the cache, 40 days ago"),
        "{offline:?}"
    );
    let json = cli.run(&["lookup", "W1AW", "--json"]);
    assert_eq!(json.ok().json()["name"], "Hiram Percy Maxim");
    assert!(json.stderr.contains("40 days ago"), "said with --json too");
    // A call never looked up has nothing to stand in.
    cli.run(&["lookup", "OK1VBR"])
        .fails(7, "lookup", "transport_error");
}

#[test]
fn the_password_shows_nowhere_but_the_key_store() {
    let fake = FakeCallbook::start();
    fake.add_user("W1AW", PASSWORD, true);
    let cli = user(&fake);
    // Every run checks its stdout and stderr, and every file under HOME but the config file,
    // for the password (Cli::secret): these add --verbose and failures to the runs above.
    let args = [
        "lookup",
        "connect",
        "qrz",
        "--user",
        "W1AW",
        "--password-stdin",
        "--verbose",
    ];
    cli.run_stdin(&args, WRONG)
        .fails(3, "lookup connect", "unauthorized");
    cli.run_stdin(&args, PASSWORD).ok();
    cli.run(&["lookup", "W1AW", "--verbose"]).ok();
    cli.run(&["lookup", "W1XYZ", "--verbose", "--json"])
        .fails_json(1, "lookup", "not_found");
    fake.stall();
    cli.run(&["lookup", "W1AW", "--verbose"])
        .fails(7, "lookup", "transport_error");
    let config = std::fs::read_to_string(cli.config_file()).unwrap();
    assert!(
        config.contains(PASSWORD),
        "kept in the 0600 file (no keychain)"
    );
}
