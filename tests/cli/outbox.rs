//! `svc contacts create --queue` and `svc outbox list|push|drop` against the real server: what
//! is queued with no link goes out once the link is back, exactly once, however often and by
//! however many processes it is pushed.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use svc::client::journal::{Counts, Entry, EntryState, Journal, SenderEvent, push, spawn_sender};
use svc::client::{Client, NewActivationRequest};
use svc::model::ContactInput;
use svc::model::{ApiKey, Timestamp};
use tokio::sync::Notify;
use tokio::sync::mpsc::UnboundedReceiver;

use super::{Cli, canned_server, closed_port, setup_with};
use crate::common::{Api, Outage, Server, block_on};

/// Limits out of the way: these tests send hundreds of contacts in seconds.
const ROOMY: &[&str] = &[
    "--burst-limit",
    "100000",
    "--daily-contact-budget",
    "100000",
    "--free-plan-cap",
    "100000",
];

/// The journal file of W1AW on the service the client talks to.
fn journal_path(cli: &Cli) -> PathBuf {
    let base = reqwest::Url::parse(&cli.base).unwrap();
    cli.data_dir().join("svc").join("journal").join(format!(
        "{}_{}-W1AW.db",
        base.host_str().unwrap(),
        base.port().unwrap()
    ))
}

/// `count` times, a minute ago and a second apart, and a monthly folder of their month.
fn times_and_folder(api: &Api, count: usize) -> (Vec<String>, String) {
    let start = Timestamp::now().millis() - 60_000;
    let times: Vec<String> = (0..count)
        .map(|i| Timestamp(start + (1000 * i as i64) % 50_000).to_string())
        .collect();
    let month = Timestamp(start).utc_month();
    (times, api.monthly(&month, None))
}

fn queue(cli: &Cli, folder: &str, callsign: &str, time_on: &str) -> String {
    let run = cli.run(&[
        "contacts",
        "create",
        "--queue",
        "--folder",
        folder,
        "--callsign",
        callsign,
        "--frequency",
        "14.074",
        "--mode",
        "FT8",
        "--time-on",
        time_on,
    ]);
    run.ok();
    let id = run
        .stdout
        .strip_prefix("queued contact ")
        .and_then(|rest| rest.strip_suffix(" (svc outbox push sends it)\n"))
        .unwrap_or_else(|| panic!("{run:?}"));
    id.to_owned()
}

fn queued_contacts_go_out_once_the_link_is_back() {
    let server = Server::start_with(ROOMY);
    let api = server.account("W1AW", "basic");
    let addr = reqwest::Url::parse(&server.url).unwrap();
    let link = Outage::proxy_to(
        format!("{}:{}", addr.host_str().unwrap(), addr.port().unwrap())
            .parse()
            .unwrap(),
    );
    let cli = Cli::new(&format!("http://{}", link.addr));
    cli.set_env("SVC_API_KEY", api.key());
    cli.secret(api.key());
    // Once with a link: the client learns whose outbox this key fills.
    let first = cli.run(&["outbox", "list"]);
    first.ok();
    assert_eq!(first.stdout, "");
    assert!(first.stderr.contains("the outbox is empty"), "{first:?}");

    let (times, folder) = times_and_folder(&api, 20);
    link.cut();
    let mut queued = HashMap::new();
    for (i, time) in times.iter().enumerate() {
        let call = format!("K{i}ABC");
        queued.insert(
            call.clone(),
            (queue(&cli, &folder, &call, time), time.clone()),
        );
    }
    let json = cli.run(&[
        "contacts",
        "create",
        "--queue",
        "--folder",
        &folder,
        "--callsign",
        "N0CALL",
        "--frequency",
        "7.074",
        "--mode",
        "FT8",
        "--time-on",
        &times[0],
        "--json",
    ]);
    json.ok();
    let id = json.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(
        json.json(),
        serde_json::json!({"id": id, "state": "waiting"})
    );
    queued.insert("N0CALL".into(), (id, times[0].clone()));

    let listed = cli.run(&["outbox", "list", "--json"]);
    listed.ok();
    let items = listed.json()["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 21);
    assert!(listed.json().get("cursor").is_none());
    let first = &items[0];
    assert_eq!(first["id"], queued["K0ABC"].0.as_str());
    assert_eq!(first["state"], "waiting");
    assert_eq!(first["kind"], "contact");
    assert_eq!(first["request"]["callsign"], "K0ABC");
    assert_eq!(first["request"]["folderId"], folder.as_str());
    assert!(first["idempotencyKey"].as_str().unwrap().len() >= 16);
    let ndjson = cli.run(&["outbox", "list", "--ndjson"]);
    ndjson.ok();
    assert_eq!(ndjson.stdout.lines().count(), 21);
    let text = cli.run(&["outbox", "list"]);
    text.ok();
    let header = text.stdout.lines().next().unwrap();
    for column in ["ID", "STATE", "WHAT", "TIME ON", "FOLDER", "ERROR"] {
        assert!(header.contains(column), "{header}");
    }
    assert!(text.stdout.contains("K19ABC"), "{text:?}");

    // Still no link: everything stays waiting, exit 7.
    let down = cli.run(&["outbox", "push"]);
    assert_eq!(down.code, 7, "{down:?}");
    assert!(
        down.stderr.contains("21 entries wait in the outbox"),
        "{down:?}"
    );
    assert_eq!(api.all_contacts(&folder).len(), 0);

    link.restore();
    let up = cli.run(&["outbox", "push"]);
    up.ok();
    assert!(
        up.stdout.ends_with("sent 21, refused 0, still waiting 0\n"),
        "{up:?}"
    );
    let stored = api.all_contacts(&folder);
    assert_eq!(stored.len(), 21);
    let mut seen = HashSet::new();
    for contact in &stored {
        let call = contact["callsign"].as_str().unwrap();
        assert!(seen.insert(call.to_owned()), "{call} stored twice");
        let (_, time) = &queued[call];
        assert_eq!(
            Timestamp::parse("t", contact["timeOn"].as_str().unwrap()).unwrap(),
            Timestamp::parse("t", time).unwrap(),
            "{call} keeps the time it was logged with"
        );
    }
    // Pushing again sends nothing and doubles nothing.
    let again = cli.run(&["outbox", "push", "--json"]);
    again.ok();
    assert_eq!(
        again.json(),
        serde_json::json!({"sent": [], "refused": [], "resolved": [], "waiting": 0})
    );
    assert_eq!(api.all_contacts(&folder).len(), 21);
    assert_eq!(
        cli.run(&["outbox", "list", "--json"]).json()["items"],
        Value::Array(vec![])
    );
}

fn a_refused_entry_stays_until_dropped() {
    let (_server, api, cli) = setup_with("basic", &[]);
    let (times, folder) = times_and_folder(&api, 1);
    let good = queue(&cli, &folder, "K1ABC", &times[0]);
    // A month the folder is not for: the service refuses it.
    let wrong_month = Timestamp(Timestamp::now().millis() - 62 * 86_400_000).to_string();
    let bad = queue(&cli, &folder, "N0CALL", &wrong_month);
    let run = cli.run(&["outbox", "push"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stdout.contains(&format!("sent     {good}")), "{run:?}");
    assert!(run.stdout.contains(&format!("refused  {bad}")), "{run:?}");
    assert!(
        run.stdout.ends_with("sent 1, refused 1, still waiting 0\n"),
        "{run:?}"
    );
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("svc: outbox push: validation_error: "))
        .unwrap_or_else(|| panic!("{run:?}"));
    assert!(
        line.contains(&bad) && line.contains("svc outbox drop"),
        "{line}"
    );
    assert_eq!(api.all_contacts(&folder).len(), 1);

    let listed = cli.run(&["outbox", "list", "--json"]).json();
    let items = listed["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["id"], bad.as_str());
    assert_eq!(items[0]["state"], "refused");
    assert_eq!(items[0]["error"]["code"], "validation_error");
    assert_eq!(items[0]["error"]["status"], 400);
    assert!(!items[0]["error"]["message"].as_str().unwrap().is_empty());
    let text = cli.run(&["outbox", "list"]);
    assert!(text.stdout.contains("refused"), "{text:?}");
    assert!(text.stdout.contains("validation_error: "), "{text:?}");

    // Still refused on the next push: the exit code keeps saying so, in JSON too.
    let json = cli.run(&["outbox", "push", "--json"]);
    let envelope = json.fails_json(2, "outbox push", "validation_error");
    assert_eq!(envelope["status"], 400);
    assert_eq!(json.json()["waiting"], 0);

    let unconfirmed = cli.run(&["outbox", "drop", &bad]);
    let message = unconfirmed.fails(2, "outbox drop", "validation_error");
    assert!(message.contains("--yes"), "{message}");
    assert_eq!(
        cli.run(&["outbox", "list", "--json"]).json()["items"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let malformed = cli.run(&["outbox", "drop", "qso_aaaaaaaaaaaaaaaa", "--yes"]);
    assert!(
        malformed
            .fails(2, "outbox drop", "validation_error")
            .contains("ent_")
    );
    let dropped = cli.run(&["outbox", "drop", &bad, "--yes", "--json"]);
    dropped.ok();
    assert_eq!(
        dropped.json(),
        serde_json::json!({"id": bad, "dropped": true})
    );
    let gone = cli.run(&["outbox", "drop", &bad, "--yes"]);
    gone.fails(1, "outbox drop", "not_found");
    let sent = cli.run(&["outbox", "drop", &good, "--yes"]);
    sent.fails(1, "outbox drop", "not_found");
    cli.run(&["outbox", "push"]).ok();
    assert_eq!(api.all_contacts(&folder).len(), 1);
}

fn contact_request(folder: &str, callsign: &str) -> ContactInput {
    ContactInput {
        folder_id: folder.to_owned(),
        callsign: callsign.to_owned(),
        frequency: 14.074,
        mode: "FT8".into(),
        time_on: Timestamp::now().to_string(),
        ..ContactInput::default()
    }
}

/// Logs a contact per time into the journal file directly (as the logbook would).
fn log_many(cli: &Cli, folder: &str, times: &[String]) {
    let path = journal_path(cli);
    block_on(async {
        let journal = Journal::open_path(&path).await.unwrap();
        for (i, time) in times.iter().enumerate() {
            let mut contact = contact_request(folder, &format!("K{i}AA"));
            contact.time_on = time.clone();
            journal.log_contact(contact).await.unwrap();
        }
    });
}

fn two_pushes_at_once_store_each_contact_once() {
    let (_server, api, cli) = setup_with("basic", ROOMY);
    cli.run(&["outbox", "list"]).ok();
    let (times, folder) = times_and_folder(&api, 700);
    log_many(&cli, &folder, &times);
    let children: Vec<_> = (0..2)
        .map(|_| {
            cli.std_command()
                .args(["outbox", "push", "--json"])
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut sent = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{out:?}");
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        sent += report["sent"].as_array().unwrap().len();
    }
    assert_eq!(sent, 700, "each entry sent by one push");
    let stored = api.all_contacts(&folder);
    assert_eq!(stored.len(), 700);
    let calls: HashSet<_> = stored.iter().map(|c| c["callsign"].clone()).collect();
    assert_eq!(calls.len(), 700, "a contact was stored twice");
    assert_eq!(api.qso_count(), 700);
}

fn an_entry_whose_answer_was_lost_is_replayed_not_doubled() {
    let (_server, api, cli) = setup_with("basic", &[]);
    let (times, folder) = times_and_folder(&api, 2);
    let a = queue(&cli, &folder, "K1ABC", &times[0]);
    queue(&cli, &folder, "N0CALL", &times[1]);
    cli.run(&["outbox", "push"]).ok();
    let stored = api.all_contacts(&folder);
    assert_eq!(stored.len(), 2);
    let first_id = stored.iter().find(|c| c["callsign"] == "K1ABC").unwrap()["id"].clone();
    // As if the service stored it but the answer never came: the journal still has it waiting.
    let path = journal_path(&cli);
    block_on(async {
        use sqlx::Connection;
        let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        let changed = sqlx::query(
            "UPDATE entries SET state = 'waiting', sent_id = NULL, sent_at = NULL WHERE id = $1",
        )
        .bind(&a)
        .execute(&mut conn)
        .await
        .unwrap();
        assert_eq!(changed.rows_affected(), 1);
    });
    let list = cli.run(&["outbox", "list", "--json"]).json();
    assert_eq!(list["items"][0]["id"], a.as_str());
    let replay = cli.run(&["outbox", "push", "--json"]);
    replay.ok();
    let report = replay.json();
    assert_eq!(report["sent"][0]["id"], a.as_str());
    assert_eq!(report["sent"][0]["sentId"], first_id);
    assert_eq!(
        api.all_contacts(&folder).len(),
        2,
        "replayed, not stored again"
    );
    assert_eq!(api.qso_count(), 2);
}

fn folders_logged_with_no_link_are_made_before_their_contacts() {
    let (server, api, cli) = setup_with("basic", &[]);
    cli.run(&["outbox", "list"]).ok();
    let path = journal_path(&cli);
    let key = ApiKey::parse(api.key()).unwrap();
    let base = reqwest::Url::parse(&server.url).unwrap();
    let now = Timestamp::now();
    let contact = |folder: &str, call: &str| ContactInput {
        time_on: now.to_string(),
        ..contact_request(folder, call)
    };
    let (activation, monthly) = block_on(async {
        let journal = Journal::open_path(&path).await.unwrap();
        let (entry, activation) = journal
            .log_activation(NewActivationRequest {
                location_reference: "US-1234".into(),
                callsign: "W1AW".into(),
                program_id: None,
                location_name: None,
                start_time: Some(now.to_string()),
            })
            .await
            .unwrap();
        assert!(entry.is_some());
        journal
            .log_contact(contact(&activation.id, "K1ABC"))
            .await
            .unwrap();
        let (_, monthly) = journal.log_monthly(&now.utc_month(), None).await.unwrap();
        journal
            .log_contact(contact(&monthly.id, "N0CALL"))
            .await
            .unwrap();
        let client = Client::new(base, &key).unwrap();
        let report = push(&journal, &client).await.unwrap();
        assert_eq!(report.sent.len(), 4, "{report:?}");
        assert!(report.refused.is_empty(), "{report:?}");
        assert_eq!(report.waiting, 0);
        assert_eq!(report.resolved.len(), 2);
        assert_eq!(
            report.requests, 3,
            "two folders, then one batch: {report:?}"
        );
        let real = |local: &str| {
            report
                .resolved
                .iter()
                .find(|(id, _)| id == local)
                .map(|(_, f)| f.id.clone())
                .unwrap()
        };
        let snapshot = journal.snapshot().await.unwrap();
        assert!(snapshot.folders.iter().all(|f| f.id.starts_with("fld_")));
        (real(&activation.id), real(&monthly.id))
    });
    let in_activation = api.all_contacts(&activation);
    assert_eq!(in_activation.len(), 1);
    assert_eq!(in_activation[0]["callsign"], "K1ABC");
    assert_eq!(in_activation[0]["mySig"], "POTA");
    assert_eq!(in_activation[0]["mySigInfo"], "US-1234");
    assert_eq!(api.all_contacts(&monthly)[0]["callsign"], "N0CALL");
}

/// A journal in a temp folder with `calls` logged into one folder.
fn journal_with(calls: &[&str]) -> (tempfile::TempDir, Journal, Vec<Entry>) {
    let dir = tempfile::tempdir().unwrap();
    let (journal, entries) = block_on(async {
        let journal = Journal::open_path(&dir.path().join("j.db")).await.unwrap();
        let mut entries = Vec::new();
        for call in calls {
            let mut contact = contact_request("fld_aaaaaaaaaaaaaaaa", call);
            contact.time_on = "2026-11-22T14:05:00Z".into();
            entries.push(journal.log_contact(contact).await.unwrap());
        }
        (journal, entries)
    });
    (dir, journal, entries)
}

fn canned_client(url: &str) -> Client {
    Client::new(reqwest::Url::parse(url).unwrap(), &ApiKey::generate()).unwrap()
}

// The sender against answers the real server cannot be made to give on demand.

#[test]
fn each_item_of_a_batch_is_settled_by_its_own_answer() {
    let (_dir, journal, entries) = journal_with(&["A1A", "B1B", "C1C"]);
    let body = serde_json::json!({"results": [
        {"status": 201, "id": "qso_a"},
        {"status": 429, "error": "rate_limited", "message": "slow down",
         "details": {"reason": "daily_logbook_budget"}, "retryAfter": 30, "requestId": "req_x"},
        {"status": 400, "error": "validation_error", "message": "bad month",
         "details": {"field": "timeOn"}, "requestId": "req_x"}
    ]});
    let (url, seen) = canned_server(vec![(200, vec![], body.to_string())]);
    let client = canned_client(&url);
    let report = block_on(push(&journal, &client)).unwrap();
    assert_eq!(report.requests, 1);
    assert_eq!(report.sent.len(), 1);
    assert_eq!(report.sent[0].id, entries[0].id);
    assert_eq!(report.sent[0].sent_id.as_deref(), Some("qso_a"));
    assert_eq!(report.refused.len(), 1);
    let error = report.refused[0].error.as_ref().unwrap();
    assert_eq!(
        (error.status, error.code.as_str()),
        (400, "validation_error")
    );
    assert_eq!(error.message, "bad month");
    assert_eq!(error.details, Some(serde_json::json!({"field": "timeOn"})));
    assert_eq!(report.waiting, 1);
    assert_eq!(
        report.stopped.as_ref().unwrap().exit_code(),
        4,
        "{report:?}"
    );
    assert!(
        seen.lock().unwrap()[0]
            .head
            .starts_with("POST /v1/contacts/batch ")
    );
    // The rate-limited one waits for its Retry-After: nothing is sent before then.
    let again = block_on(push(&journal, &client)).unwrap();
    assert_eq!(again.requests, 0);
    assert_eq!(again.waiting, 1);
    let left = block_on(journal.entries()).unwrap();
    assert_eq!(
        left.iter().map(|e| e.state.as_str()).collect::<Vec<_>>(),
        ["waiting", "refused"]
    );
    assert_eq!(left[0].idempotency_key, entries[1].idempotency_key);
}

#[test]
fn a_service_without_batches_gets_one_keyed_create_per_contact() {
    let (_dir, journal, entries) = journal_with(&["A1A", "B1B"]);
    let not_found = r#"{"error":"not_found","message":"no such route","requestId":"req_1"}"#;
    let (url, seen) = canned_server(vec![
        (404, vec![], not_found.into()),
        (201, vec![], r#"{"id":"qso_a"}"#.into()),
        (201, vec![], r#"{"id":"qso_b"}"#.into()),
    ]);
    let report = block_on(push(&journal, &canned_client(&url))).unwrap();
    assert_eq!(report.requests, 3);
    assert_eq!(
        report
            .sent
            .iter()
            .map(|e| e.sent_id.clone().unwrap())
            .collect::<Vec<_>>(),
        ["qso_a", "qso_b"]
    );
    assert!(report.stopped.is_none());
    let seen = seen.lock().unwrap();
    assert!(
        seen[0].head.starts_with("POST /v1/contacts/batch "),
        "{:?}",
        seen[0]
    );
    for (request, entry) in seen[1..].iter().zip(&entries) {
        assert!(
            request.head.starts_with("POST /v1/contacts "),
            "{request:?}"
        );
        assert_eq!(
            request.header("idempotency-key").as_deref(),
            Some(entry.idempotency_key.as_str())
        );
    }
}

#[test]
fn a_refused_key_or_a_dead_link_keeps_everything_waiting() {
    let (_dir, journal, entries) = journal_with(&["A1A", "B1B"]);
    let revoked = r#"{"error":"key_revoked","message":"revoked","requestId":"req_1"}"#;
    let (url, _) = canned_server(vec![(401, vec![], revoked.into())]);
    let report = block_on(push(&journal, &canned_client(&url))).unwrap();
    assert_eq!(report.stopped.as_ref().unwrap().exit_code(), 3);
    assert!(report.sent.is_empty() && report.refused.is_empty());
    assert_eq!(report.waiting, 2);
    // Given back at once: the next push takes them up again (and finds no link).
    let dead = canned_client(&closed_port());
    let report = block_on(push(&journal, &dead)).unwrap();
    assert_eq!(report.requests, 1);
    assert!(report.link_down(), "{report:?}");
    assert_eq!(report.waiting, 2);
    let left = block_on(journal.entries()).unwrap();
    assert_eq!(left.len(), 2);
    assert!(left.iter().all(|e| e.state == EntryState::Waiting));
    assert_eq!(left[0].idempotency_key, entries[0].idempotency_key);
    assert_eq!(left[0].attempts, 2);
}

/// Waits for the next event the sender reports, up to 20 s.
async fn next_event(events: &mut UnboundedReceiver<SenderEvent>) -> SenderEvent {
    tokio::time::timeout(Duration::from_secs(20), events.recv())
        .await
        .expect("an event within 20 s")
        .expect("the sender runs")
}

#[test]
fn the_background_sender_notices_the_link_coming_back_by_itself() {
    crate::common::on(crate::common::Backend::Sqlite, || {
        let server = Server::start();
        let api = server.account("W1AW", "basic");
        let addr = reqwest::Url::parse(&server.url).unwrap();
        let link = Outage::proxy_to(
            format!("{}:{}", addr.host_str().unwrap(), addr.port().unwrap())
                .parse()
                .unwrap(),
        );
        let folder = api.monthly(&Timestamp::now().utc_month(), None);
        let (_dir, journal, _) = journal_with(&[]);
        let key = ApiKey::parse(api.key()).unwrap();
        link.cut();
        block_on(async {
            let client = Client::new(format!("http://{}", link.addr).parse().unwrap(), &key)
                .unwrap()
                .with_timeouts(Duration::from_secs(3), Duration::from_secs(10))
                .unwrap();
            let wake = Arc::new(Notify::new());
            let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
            let sender = spawn_sender(journal.clone(), Arc::new(client), wake.clone(), tx);
            // Nothing waits: it only counts.
            assert!(matches!(
                next_event(&mut events).await,
                SenderEvent::Counts(Counts {
                    waiting: 0,
                    refused: 0
                })
            ));
            let entry = journal
                .log_contact(contact_request(&folder, "K1ABC"))
                .await
                .unwrap();
            wake.notify_one();
            match next_event(&mut events).await {
                SenderEvent::Offline(why) => assert!(!why.is_empty()),
                other => panic!("{other:?}"),
            }
            assert!(matches!(
                next_event(&mut events).await,
                SenderEvent::Counts(Counts { waiting: 1, .. })
            ));
            link.restore();
            // No wake: the sender tries again by itself.
            let mut sent = None;
            let mut online = false;
            while sent.is_none() {
                match next_event(&mut events).await {
                    SenderEvent::Sent(entries) => sent = Some(entries),
                    SenderEvent::Online => online = true,
                    SenderEvent::Counts(_) => {}
                    other => panic!("{other:?}"),
                }
            }
            assert!(
                online,
                "online is reported before the first push after the outage"
            );
            let sent = sent.unwrap();
            assert_eq!(sent.len(), 1);
            assert_eq!(sent[0].id, entry.id);
            assert!(matches!(
                next_event(&mut events).await,
                SenderEvent::Counts(Counts {
                    waiting: 0,
                    refused: 0
                })
            ));
            // Dropping the receiver ends it.
            drop(events);
            wake.notify_one();
            tokio::time::timeout(Duration::from_secs(5), sender)
                .await
                .expect("the sender ends without its receiver")
                .unwrap();
        });
        assert_eq!(api.all_contacts(&folder).len(), 1);
    });
}

#[test]
fn an_unknown_key_with_no_link_cannot_queue() {
    let cli = Cli::new(&closed_port());
    let key = ApiKey::generate();
    cli.set_env("SVC_API_KEY", key.expose());
    cli.secret(key.expose());
    let run = cli.run(&[
        "contacts",
        "create",
        "--queue",
        "--folder",
        "fld_aaaaaaaaaaaaaaaa",
        "--callsign",
        "K1ABC",
        "--frequency",
        "14.074",
        "--mode",
        "FT8",
    ]);
    let message = run.fails(7, "contacts create", "transport_error");
    assert!(
        message.contains("run svc outbox list once with a link"),
        "{message}"
    );
    let list = cli.run(&["outbox", "list", "--json"]);
    list.fails_json(7, "outbox list", "transport_error");
    assert!(
        !cli.data_dir()
            .join("svc")
            .join("journal")
            .join("index.db")
            .exists()
    );
}

crate::both_backends!(
    queued_contacts_go_out_once_the_link_is_back,
    a_refused_entry_stays_until_dropped,
    two_pushes_at_once_store_each_contact_once,
    an_entry_whose_answer_was_lost_is_replayed_not_doubled,
    folders_logged_with_no_link_are_made_before_their_contacts,
);
