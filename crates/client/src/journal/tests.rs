use std::collections::HashSet;

use super::*;

const FOLDER: &str = "fld_aaaaaaaaaaaaaaaa";

fn contact(folder: &str, callsign: &str) -> ContactInput {
    ContactInput {
        folder_id: folder.into(),
        callsign: callsign.into(),
        frequency: 14.074,
        mode: "FT8".into(),
        time_on: "2026-11-22T14:05:00Z".into(),
        ..ContactInput::default()
    }
}

fn folder(id: &str, folder_type: FolderType) -> Folder {
    Folder {
        id: id.into(),
        name: id.into(),
        folder_type,
        parent_id: Some("fld_rootrootrootroot".into()),
        program_id: None,
        month: None,
        start_time: None,
        end_time: None,
        location_reference: None,
        location_name: None,
        callsign: None,
        auto_folder_key: None,
        contest: None,
        contact_count: 0,
        created_at: Timestamp(0),
    }
}

/// A contact as the service stores it.
fn stored(id: &str, folder: &str, time: &str) -> Contact {
    Contact {
        id: id.into(),
        folder_id: folder.into(),
        callsign: "K1ABC".into(),
        frequency: 14.074,
        band: "20m".into(),
        mode: "FT8".into(),
        time_on: Timestamp::parse("t", time).unwrap(),
        rst_sent: None,
        rst_received: None,
        name: None,
        notes: None,
        sig: None,
        sig_info: None,
        my_sig: None,
        my_sig_info: None,
        activation_id: None,
        station_callsign: None,
        fields: Default::default(),
        created_at: Timestamp(0),
        duplicate_of: None,
        external: Vec::new(),
    }
}

fn whoami(count: i64) -> Whoami {
    Whoami {
        callsign: "W1AW".into(),
        plan: "free".into(),
        tier: svc_model::Tier::Basic,
        native_qso_count: count,
        qso_cap: Some(50),
    }
}

/// A time strictly after every row written so far: what a request made now is asked at.
async fn after_now() -> Timestamp {
    tokio::time::sleep(Duration::from_millis(5)).await;
    Timestamp::now()
}

fn activation_request(start: &str) -> NewActivationRequest {
    NewActivationRequest {
        location_reference: "us-1234".into(),
        callsign: "w1aw".into(),
        program_id: None,
        location_name: Some("Test Park".into()),
        start_time: Some(start.into()),
    }
}

fn refusal(message: &str) -> EntryError {
    EntryError {
        status: 400,
        code: "validation_error".into(),
        message: message.into(),
        details: None,
    }
}

async fn journal() -> (tempfile::TempDir, Journal) {
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::open_path(&dir.path().join("j.db")).await.unwrap();
    (dir, journal)
}

const LONG: Duration = Duration::from_secs(600);

#[tokio::test]
async fn logged_contacts_wait_in_order_and_outlive_the_process() {
    let (dir, journal) = journal().await;
    let mut logged = Vec::new();
    for call in ["K1ABC", "N0CALL", "W9XYZ"] {
        logged.push(journal.log_contact(contact(FOLDER, call)).await.unwrap());
    }
    assert!(logged.iter().all(|e| e.state == EntryState::Waiting));
    assert!(logged.iter().all(|e| is_entry_id(&e.id)));
    let keys: HashSet<_> = logged.iter().map(|e| e.idempotency_key.clone()).collect();
    assert_eq!(keys.len(), 3, "each entry has its own key");
    assert!(logged.windows(2).all(|w| w[0].seq < w[1].seq));
    // A crash: the handle goes away without closing anything.
    drop(journal);
    let reopened = Journal::open_path(&dir.path().join("j.db")).await.unwrap();
    assert_eq!(reopened.entries().await.unwrap(), logged);
    assert_eq!(
        reopened.counts().await.unwrap(),
        Counts {
            waiting: 3,
            refused: 0
        }
    );
    let EntryRequest::Contact(first) = &logged[0].request else {
        panic!()
    };
    assert_eq!(first.time_on, "2026-11-22T14:05:00Z");
}

#[tokio::test]
async fn bad_input_is_refused_and_changes_nothing() {
    let (_dir, journal) = journal().await;
    let mut no_time = contact(FOLDER, "K1ABC");
    no_time.time_on = String::new();
    let mut nan = contact(FOLDER, "K1ABC");
    nan.frequency = f64::NAN;
    let mut no_call = contact(FOLDER, "K1ABC");
    no_call.callsign = " ".into();
    for bad in [
        no_time,
        nan,
        no_call,
        contact("qso_aaaaaaaaaaaaaaaa", "K1ABC"),
        contact("loc_aaaaaaaaaaaaaaaa", "K1ABC"),
    ] {
        let e = journal.log_contact(bad).await.unwrap_err();
        assert!(matches!(e, JournalError::Invalid(_)), "{e:?}");
    }
    let mut no_start = activation_request("2026-11-22T12:00:00Z");
    no_start.start_time = None;
    let mut bad_ref = activation_request("2026-11-22T12:00:00Z");
    bad_ref.location_reference = "park".into();
    let mut hunting = activation_request("2026-11-22T12:00:00Z");
    hunting.program_id = Some("dx".into());
    for bad in [no_start, bad_ref, hunting] {
        let e = journal.log_activation(bad).await.unwrap_err();
        assert!(matches!(e, JournalError::Invalid(_)), "{e:?}");
    }
    assert!(matches!(
        journal.log_monthly("2026-13", None).await,
        Err(JournalError::Invalid(_))
    ));
    assert!(journal.entries().await.unwrap().is_empty());
    assert!(journal.snapshot().await.unwrap().folders.is_empty());
}

#[tokio::test]
async fn a_claim_takes_the_oldest_and_holds_them_until_the_lease_runs_out() {
    let (_dir, journal) = journal().await;
    for call in ["A1A", "B1B", "C1C"] {
        journal.log_contact(contact(FOLDER, call)).await.unwrap();
    }
    let first = journal
        .claim(Claim::Contacts, 2, Duration::from_millis(300), "one")
        .await
        .unwrap();
    let calls: Vec<_> = first
        .iter()
        .map(|e| match &e.request {
            EntryRequest::Contact(c) => c.callsign.clone(),
            _ => panic!(),
        })
        .collect();
    assert_eq!(calls, ["A1A", "B1B"]);
    assert!(first.iter().all(|e| e.attempts == 1));
    let second = journal
        .claim(Claim::Contacts, 10, LONG, "two")
        .await
        .unwrap();
    assert_eq!(second.len(), 1, "only the one nobody holds");
    assert!(
        journal
            .claim(Claim::Contacts, 10, LONG, "two")
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        journal
            .claim(Claim::Folders, 10, LONG, "two")
            .await
            .unwrap()
            .is_empty(),
        "contacts are not folders"
    );
    // The first sender died: its lease runs out and the entries are taken over.
    tokio::time::sleep(Duration::from_millis(350)).await;
    let taken_over = journal
        .claim(Claim::Contacts, 10, LONG, "three")
        .await
        .unwrap();
    assert_eq!(
        taken_over.iter().map(|e| &e.id).collect::<Vec<_>>(),
        first.iter().map(|e| &e.id).collect::<Vec<_>>()
    );
    assert!(taken_over.iter().all(|e| e.attempts == 2));
    // Still waiting all along.
    assert_eq!(journal.counts().await.unwrap().waiting, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_claimers_on_one_file_never_get_the_same_entry() {
    let (dir, journal) = journal().await;
    for i in 0..120 {
        journal
            .log_contact(contact(FOLDER, &format!("K{i}ABC")))
            .await
            .unwrap();
    }
    // Two handles with their own connections, as two processes would have.
    let other = Journal::open_path(&dir.path().join("j.db")).await.unwrap();
    let run = |j: Journal, owner: &'static str| {
        tokio::spawn(async move {
            let mut got = Vec::new();
            loop {
                let claimed = j.claim(Claim::Contacts, 7, LONG, owner).await.unwrap();
                if claimed.is_empty() {
                    return got;
                }
                got.extend(claimed.into_iter().map(|e| e.id));
                tokio::task::yield_now().await;
            }
        })
    };
    let (a, b) = (run(journal.clone(), "a"), run(other, "b"));
    let (a, b) = (a.await.unwrap(), b.await.unwrap());
    let all: HashSet<_> = a.iter().chain(&b).cloned().collect();
    assert_eq!(all.len(), a.len() + b.len(), "an entry was claimed twice");
    assert_eq!(all.len(), 120);
}

#[tokio::test]
async fn settling_marks_sent_refused_or_later() {
    let (_dir, journal) = journal().await;
    let a = journal.log_contact(contact(FOLDER, "A1A")).await.unwrap();
    let b = journal.log_contact(contact(FOLDER, "B1B")).await.unwrap();
    let c = journal.log_contact(contact(FOLDER, "C1C")).await.unwrap();
    journal
        .claim(Claim::Contacts, 10, LONG, "me")
        .await
        .unwrap();
    let mut details = refusal("the month does not match");
    details.details = Some(serde_json::json!({"field": "timeOn"}));
    let settled = journal
        .settle(
            "me",
            &[
                (a.id.clone(), Outcome::Sent("qso_aaaaaaaaaaaaaaaa".into())),
                (b.id.clone(), Outcome::Refused(details.clone())),
                (c.id.clone(), Outcome::Later(Duration::from_millis(300))),
            ],
        )
        .await
        .unwrap();
    assert_eq!(settled.sent.len(), 1);
    assert_eq!(
        settled.sent[0].sent_id.as_deref(),
        Some("qso_aaaaaaaaaaaaaaaa")
    );
    assert_eq!(settled.sent[0].state, EntryState::Sent);
    assert_eq!(settled.refused[0].error.as_ref(), Some(&details));
    // The sent entry leaves the list but keeps its record (and key).
    let listed = journal.entries().await.unwrap();
    assert_eq!(
        listed.iter().map(|e| &e.id).collect::<Vec<_>>(),
        [&b.id, &c.id]
    );
    assert_eq!(listed[0].state, EntryState::Refused);
    let sent = journal.entry(&a.id).await.unwrap().unwrap();
    assert_eq!(sent.idempotency_key, a.idempotency_key);
    assert_eq!(
        journal.counts().await.unwrap(),
        Counts {
            waiting: 1,
            refused: 1
        }
    );
    // Later: not taken up before its time, then taken up again.
    assert!(
        journal
            .claim(Claim::Contacts, 10, LONG, "me")
            .await
            .unwrap()
            .is_empty()
    );
    assert!(journal.next_due().await.unwrap().unwrap() > Timestamp::now());
    tokio::time::sleep(Duration::from_millis(350)).await;
    let again = journal
        .claim(Claim::Contacts, 10, LONG, "me")
        .await
        .unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].id, c.id);
    assert_eq!(again[0].idempotency_key, c.idempotency_key);
    // A settle for an entry settled already (by a sender whose lease it outlived) changes
    // nothing.
    let late = journal
        .settle(
            "other",
            &[(a.id.clone(), Outcome::Refused(refusal("late")))],
        )
        .await
        .unwrap();
    assert!(late.refused.is_empty());
    assert_eq!(
        journal.entry(&a.id).await.unwrap().unwrap().state,
        EntryState::Sent
    );
}

#[tokio::test]
async fn entries_of_a_sender_whose_process_ended_are_taken_back() {
    let (_dir, journal) = journal().await;
    journal.log_contact(contact(FOLDER, "A1A")).await.unwrap();
    journal.log_contact(contact(FOLDER, "B1B")).await.unwrap();
    // No process has an id this high (Linux caps them at 2^22), so its sender has ended.
    let dead = format!("snd_{}_x", u32::MAX);
    let alive = sender_id();
    assert!(!sender_ended(&alive));
    assert!(!sender_ended("not a sender"));
    journal
        .claim(Claim::Contacts, 1, LONG, &dead)
        .await
        .unwrap();
    journal
        .claim(Claim::Contacts, 1, LONG, &alive)
        .await
        .unwrap();
    journal.release_dead_senders().await.unwrap();
    let freed = journal
        .claim(Claim::Contacts, 10, LONG, "next")
        .await
        .unwrap();
    let expected = usize::from(cfg!(target_os = "linux"));
    assert_eq!(
        freed.len(),
        expected,
        "only the dead sender's entry: {freed:?}"
    );
    if let Some(entry) = freed.first() {
        assert!(
            matches!(&entry.request, EntryRequest::Contact(c) if c.callsign == "A1A"),
            "{entry:?}"
        );
    }
}

#[tokio::test]
async fn a_released_claim_is_free_at_once() {
    let (_dir, journal) = journal().await;
    journal.log_contact(contact(FOLDER, "A1A")).await.unwrap();
    journal
        .claim(Claim::Contacts, 10, LONG, "me")
        .await
        .unwrap();
    journal.release("someone else").await.unwrap();
    assert!(
        journal
            .claim(Claim::Contacts, 10, LONG, "x")
            .await
            .unwrap()
            .is_empty()
    );
    journal.release("me").await.unwrap();
    assert_eq!(
        journal
            .claim(Claim::Contacts, 10, LONG, "x")
            .await
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn a_fixed_refused_contact_waits_again_with_a_new_key_in_its_place() {
    let (_dir, journal) = journal().await;
    let a = journal.log_contact(contact(FOLDER, "A1A")).await.unwrap();
    let b = journal.log_contact(contact(FOLDER, "B1B")).await.unwrap();
    let e = journal
        .retry(&a.id, contact(FOLDER, "A1B"))
        .await
        .unwrap_err();
    assert!(matches!(e, JournalError::Invalid(_)), "waiting: {e:?}");
    journal
        .claim(Claim::Contacts, 10, LONG, "me")
        .await
        .unwrap();
    journal
        .settle("me", &[(a.id.clone(), Outcome::Refused(refusal("bad")))])
        .await
        .unwrap();
    let fixed = journal.retry(&a.id, contact(FOLDER, "A1B")).await.unwrap();
    assert_eq!(fixed.state, EntryState::Waiting);
    assert_eq!(fixed.seq, a.seq);
    assert_ne!(fixed.idempotency_key, a.idempotency_key);
    assert_eq!(fixed.error, None);
    let EntryRequest::Contact(body) = &fixed.request else {
        panic!()
    };
    assert_eq!(body.callsign, "A1B");
    let order: Vec<_> = journal
        .entries()
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(order, [a.id.clone(), b.id.clone()]);
    assert!(matches!(
        journal
            .retry("ent_aaaaaaaaaaaaaaaa", contact(FOLDER, "A1A"))
            .await,
        Err(JournalError::NotFound(_))
    ));
    let mut bad = contact(FOLDER, "A1A");
    bad.time_on = "yesterday".into();
    assert!(matches!(
        journal.retry(&a.id, bad).await,
        Err(JournalError::Invalid(_))
    ));
}

#[tokio::test]
async fn drop_removes_waiting_and_refused_entries_but_not_one_in_flight() {
    let (_dir, journal) = journal().await;
    let a = journal.log_contact(contact(FOLDER, "A1A")).await.unwrap();
    let b = journal.log_contact(contact(FOLDER, "B1B")).await.unwrap();
    assert!(journal.drop_entry(&a.id).await.unwrap());
    assert!(!journal.drop_entry(&a.id).await.unwrap());
    assert!(!journal.drop_entry("ent_aaaaaaaaaaaaaaaa").await.unwrap());
    journal
        .claim(Claim::Contacts, 10, LONG, "me")
        .await
        .unwrap();
    assert!(matches!(
        journal.drop_entry(&b.id).await,
        Err(JournalError::Invalid(_))
    ));
    journal
        .settle("me", &[(b.id.clone(), Outcome::Refused(refusal("no")))])
        .await
        .unwrap();
    assert!(journal.drop_entry(&b.id).await.unwrap());
    assert!(journal.entries().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_sent_entry_cannot_be_dropped() {
    let (_dir, journal) = journal().await;
    let a = journal.log_contact(contact(FOLDER, "A1A")).await.unwrap();
    journal
        .claim(Claim::Contacts, 10, LONG, "me")
        .await
        .unwrap();
    journal
        .settle("me", &[(a.id.clone(), Outcome::Sent("qso_x".into()))])
        .await
        .unwrap();
    assert!(!journal.drop_entry(&a.id).await.unwrap());
    assert!(journal.entry(&a.id).await.unwrap().is_some());
}

#[tokio::test]
async fn a_local_folder_is_sent_first_and_its_id_replaced_everywhere() {
    let (_dir, journal) = journal().await;
    let (entry, local) = journal.log_monthly("2026-11", None).await.unwrap();
    let entry = entry.unwrap();
    assert!(is_local_folder_id(&local.id));
    assert_eq!(entry.local_folder_id.as_deref(), Some(local.id.as_str()));
    assert_eq!(
        entry.request,
        EntryRequest::Monthly {
            month: "2026-11".into(),
            program_id: None,
        }
    );
    assert_eq!(
        (local.name.as_str(), local.folder_type),
        ("2026-11", FolderType::Monthly)
    );
    // The same month again: the same local folder, no second entry.
    let (again, same) = journal.log_monthly("2026-11", None).await.unwrap();
    assert_eq!(same.id, local.id);
    assert_eq!(again.unwrap().id, entry.id);
    let c = journal
        .log_contact(contact(&local.id, "K1ABC"))
        .await
        .unwrap();
    let other = journal
        .log_contact(contact(FOLDER, "N0CALL"))
        .await
        .unwrap();
    let snapshot = journal.snapshot().await.unwrap();
    assert_eq!(snapshot.folders, vec![local.clone()]);
    assert!(snapshot.activations.is_empty());
    // The contact waits for its folder; the one in a real folder may go.
    let contacts = journal
        .claim(Claim::Contacts, 10, LONG, "me")
        .await
        .unwrap();
    assert_eq!(
        contacts.iter().map(|e| &e.id).collect::<Vec<_>>(),
        [&other.id]
    );
    let folders = journal.claim(Claim::Folders, 10, LONG, "me").await.unwrap();
    assert_eq!(folders.len(), 1);
    let mut real = folder("fld_bbbbbbbbbbbbbbbb", FolderType::Monthly);
    real.month = Some("2026-11".into());
    assert_eq!(journal.made_folder(&local.id).await.unwrap(), None);
    let sent = journal
        .resolve_folder(&entry.id, &real)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(sent.sent_id.as_deref(), Some(real.id.as_str()));
    // Resolving again (another sender) changes nothing.
    assert!(
        journal
            .resolve_folder(&entry.id, &real)
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(
        journal.made_folder(&local.id).await.unwrap(),
        Some(real.clone())
    );
    let waiting = journal.entry(&c.id).await.unwrap().unwrap();
    let EntryRequest::Contact(body) = &waiting.request else {
        panic!()
    };
    assert_eq!(body.folder_id, real.id);
    let next = journal
        .claim(Claim::Contacts, 10, LONG, "me")
        .await
        .unwrap();
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].id, c.id);
    // The cached list holds the real folder now; the local one is gone from it.
    let snapshot = journal.snapshot().await.unwrap();
    assert_eq!(snapshot.folders, vec![real.clone()]);
    // A logbook still holding the loc_ id logs into the real folder.
    let late = journal
        .log_contact(contact(&local.id, "W1AW"))
        .await
        .unwrap();
    let EntryRequest::Contact(body) = &late.request else {
        panic!()
    };
    assert_eq!(body.folder_id, real.id);
    let (none, known) = journal.log_monthly("2026-11", None).await.unwrap();
    assert!(none.is_none());
    assert_eq!(known.id, real.id);
}

#[tokio::test]
async fn a_hunting_log_is_its_own_folder_under_its_program() {
    let (_dir, journal) = journal().await;
    let root = Folder {
        parent_id: None,
        ..folder("fld_rootrootrootroot", FolderType::Category)
    };
    let mut pota = folder("fld_potapotapotapota", FolderType::Category);
    pota.name = "POTA".into();
    pota.program_id = Some("pota".into());
    journal.save_folders(&[root, pota.clone()]).await.unwrap();
    let (entry, hunting) = journal
        .log_monthly("2026-11", Some(Program::Pota))
        .await
        .unwrap();
    assert_eq!(hunting.name, "POTA 2026-11");
    assert_eq!(hunting.program_id.as_deref(), Some("pota"));
    assert_eq!(hunting.parent_id.as_deref(), Some(pota.id.as_str()));
    assert_eq!(
        entry.unwrap().request,
        EntryRequest::Monthly {
            month: "2026-11".into(),
            program_id: Some("pota".into()),
        }
    );
    // The own log of the same month is another folder, under the root.
    let (_, own) = journal.log_monthly("2026-11", None).await.unwrap();
    assert_ne!(own.id, hunting.id);
    assert_eq!(own.parent_id.as_deref(), Some("fld_rootrootrootroot"));
}

#[tokio::test]
async fn an_activation_logged_offline_is_a_local_folder_until_sent() {
    let (_dir, journal) = journal().await;
    let root = Folder {
        parent_id: None,
        ..folder("fld_rootrootrootroot", FolderType::Category)
    };
    let mut pota = folder("fld_potapotapotapota", FolderType::Category);
    pota.name = "POTA".into();
    pota.program_id = Some("pota".into());
    journal.save_folders(&[root, pota.clone()]).await.unwrap();
    let (entry, local) = journal
        .log_activation(activation_request("2026-11-22T12:00:00Z"))
        .await
        .unwrap();
    assert!(entry.is_some());
    assert_eq!(local.name, "W1AW@US-1234-20261122");
    assert_eq!(local.folder_type, FolderType::Activation);
    assert_eq!(local.parent_id.as_deref(), Some(pota.id.as_str()));
    assert_eq!(local.location_reference.as_deref(), Some("US-1234"));
    assert!(local.in_progress());
    // Same identity (same UTC day, other hour, other spelling): the same local folder.
    let mut later = activation_request("2026-11-22T18:00:00Z");
    later.location_reference = "US-1234".into();
    let (_, same) = journal.log_activation(later).await.unwrap();
    assert_eq!(same.id, local.id);
    let snapshot = journal.snapshot().await.unwrap();
    assert_eq!(snapshot.activations, vec![local.clone()]);
    assert_eq!(snapshot.folders.last(), Some(&local));
    // A real folder of that identity, known from the service: no entry needed.
    let mut real = folder("fld_realrealrealreal", FolderType::Activation);
    real.program_id = Some("pota".into());
    real.callsign = Some("W1AW".into());
    real.location_reference = Some("US-4321".into());
    real.start_time = Some(Timestamp::parse("t", "2026-11-21T09:00:00Z").unwrap());
    journal
        .save_activations(std::slice::from_ref(&real))
        .await
        .unwrap();
    let mut known = activation_request("2026-11-21T15:00:00Z");
    known.location_reference = "us-4321".into();
    let (none, found) = journal.log_activation(known).await.unwrap();
    assert!(none.is_none());
    assert_eq!(found, real);
}

#[tokio::test]
async fn contacts_of_a_refused_or_dropped_folder_are_refused_saying_why() {
    let (_dir, journal) = journal().await;
    let (entry, local) = journal
        .log_activation(activation_request("2026-11-22T12:00:00Z"))
        .await
        .unwrap();
    let entry = entry.unwrap();
    let c = journal
        .log_contact(contact(&local.id, "K1ABC"))
        .await
        .unwrap();
    assert!(
        journal.refuse_orphans().await.unwrap().is_empty(),
        "its folder waits"
    );
    journal.claim(Claim::Folders, 10, LONG, "me").await.unwrap();
    journal
        .settle(
            "me",
            &[(entry.id.clone(), Outcome::Refused(refusal("no such park")))],
        )
        .await
        .unwrap();
    let orphans = journal.refuse_orphans().await.unwrap();
    assert_eq!(orphans.len(), 1);
    assert_eq!(orphans[0].id, c.id);
    let message = &orphans[0].error.as_ref().unwrap().message;
    assert!(message.contains("W1AW@US-1234-20261122"), "{message}");
    assert!(message.contains("no such park"), "{message}");
    assert_eq!(orphans[0].error.as_ref().unwrap().exit_code(), 2);
    // The refused folder is not offered as a folder any more.
    assert!(journal.snapshot().await.unwrap().activations.is_empty());
    // Logged again: a new entry for the same local folder.
    let (again, same) = journal
        .log_activation(activation_request("2026-11-22T12:00:00Z"))
        .await
        .unwrap();
    let again = again.unwrap();
    assert_ne!(again.id, entry.id);
    assert_eq!(same.id, local.id);
    let d = journal
        .log_contact(contact(&local.id, "N0CALL"))
        .await
        .unwrap();
    assert!(journal.drop_entry(&again.id).await.unwrap());
    let orphans = journal.refuse_orphans().await.unwrap();
    assert_eq!(orphans.len(), 1);
    assert_eq!(orphans[0].id, d.id);
    assert!(
        orphans[0]
            .error
            .as_ref()
            .unwrap()
            .message
            .contains("dropped")
    );
}

#[tokio::test]
async fn a_crash_mid_send_keeps_the_entries_waiting() {
    let (dir, journal) = journal().await;
    let a = journal.log_contact(contact(FOLDER, "A1A")).await.unwrap();
    journal
        .claim(Claim::Contacts, 10, Duration::from_millis(200), "dead")
        .await
        .unwrap();
    drop(journal);
    let reopened = Journal::open_path(&dir.path().join("j.db")).await.unwrap();
    let listed = reopened.entries().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].state, EntryState::Waiting);
    assert_eq!(listed[0].idempotency_key, a.idempotency_key);
    assert!(
        reopened
            .claim(Claim::Contacts, 10, LONG, "new")
            .await
            .unwrap()
            .is_empty(),
        "held until the dead sender's lease runs out"
    );
    tokio::time::sleep(Duration::from_millis(250)).await;
    let claimed = reopened
        .claim(Claim::Contacts, 10, LONG, "new")
        .await
        .unwrap();
    assert_eq!(claimed[0].idempotency_key, a.idempotency_key);
}

#[tokio::test]
async fn the_copy_of_the_account_is_kept_and_replaced() {
    let (_dir, journal) = journal().await;
    assert_eq!(journal.snapshot().await.unwrap(), Snapshot::default());
    // The cap a server said is kept with the copy, for the counter offline.
    let me = whoami(12);
    journal.save_whoami(&me).await.unwrap();
    let a = folder("fld_aaaaaaaaaaaaaaaa", FolderType::Monthly);
    let b = folder("fld_bbbbbbbbbbbbbbbb", FolderType::Activation);
    journal.save_folders(&[b.clone(), a.clone()]).await.unwrap();
    journal
        .save_activations(std::slice::from_ref(&b))
        .await
        .unwrap();
    let snapshot = journal.snapshot().await.unwrap();
    assert_eq!(snapshot.whoami, Some(me));
    assert_eq!(
        snapshot.folders,
        vec![b.clone(), a.clone()],
        "in the order saved"
    );
    assert_eq!(snapshot.activations, vec![b.clone()]);
    journal
        .save_folders(std::slice::from_ref(&a))
        .await
        .unwrap();
    assert_eq!(journal.snapshot().await.unwrap().folders, vec![a.clone()]);

    let old = stored("qso_aaaaaaaaaaaaaaaa", &a.id, "2026-11-01T10:00:00Z");
    let new = stored("qso_bbbbbbbbbbbbbbbb", &a.id, "2026-11-20T10:00:00Z");
    journal
        .save_contacts(&a.id, &[old.clone(), new.clone()], Timestamp::now(), true)
        .await
        .unwrap();
    assert_eq!(
        journal.cached_contacts(&a.id, 10).await.unwrap(),
        vec![new.clone(), old.clone()]
    );
    assert_eq!(
        journal.cached_contacts(&a.id, 1).await.unwrap(),
        vec![new.clone()]
    );
    journal
        .save_contacts(&a.id, std::slice::from_ref(&old), after_now().await, true)
        .await
        .unwrap();
    assert_eq!(journal.cached_contacts(&a.id, 10).await.unwrap(), vec![old]);
    assert!(journal.cached_contacts(&b.id, 10).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_key_finds_its_journal_without_the_network_and_is_never_stored() {
    let dir = tempfile::tempdir().unwrap();
    let journals = dir.path().join("svc").join("journal");
    let base = Url::parse("http://127.0.0.1:8787").unwrap();
    let key = ApiKey::generate();
    assert!(find_in(&journals, &base, &key).await.unwrap().is_none());
    assert!(!journals.exists(), "looking creates nothing");
    let opened = open_in(&journals, &base, &key, "w1aw/p").await.unwrap();
    assert_eq!(
        opened.path(),
        journals.join("127.0.0.1_8787-W1AW_P.db").as_path()
    );
    opened.log_contact(contact(FOLDER, "K1ABC")).await.unwrap();
    let found = find_in(&journals, &base, &key).await.unwrap().unwrap();
    assert_eq!(found.path(), opened.path());
    assert_eq!(found.entries().await.unwrap().len(), 1);
    // Another key, or the same key on another service: not found.
    assert!(
        find_in(&journals, &base, &ApiKey::generate())
            .await
            .unwrap()
            .is_none()
    );
    let other = Url::parse("https://logbook.example.org/club/").unwrap();
    assert!(find_in(&journals, &other, &key).await.unwrap().is_none());
    let club = open_in(&journals, &other, &key, "W1AW").await.unwrap();
    assert_eq!(
        club.path(),
        journals
            .join("logbook.example.org_443_club-W1AW.db")
            .as_path()
    );
    drop((opened, found, club));
    for entry in std::fs::read_dir(&journals).unwrap() {
        // SQLite removes its -wal and -shm files as the last connection closes.
        let Ok(bytes) = std::fs::read(entry.unwrap().path()) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(&key.expose()[9..]), "the key was written");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&journals).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "the journal folder is private: {mode:o}");
    }
}

#[tokio::test]
async fn a_journal_from_a_newer_svc_is_refused() {
    let (dir, journal) = journal().await;
    sqlx::query("PRAGMA user_version = 99")
        .execute(&journal.pool)
        .await
        .unwrap();
    drop(journal);
    let e = Journal::open_path(&dir.path().join("j.db"))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("newer svc"), "{e}");
}

/// The account's copy as the tests below set it up: root > POTA > an activation (in both
/// lists), and a monthly log under the root; each count as the service would give it.
async fn copy_with_counts(journal: &Journal) -> (Folder, Folder, Folder, Folder) {
    let mut root = folder("fld_rootrootrootroot", FolderType::Category);
    root.parent_id = None;
    root.contact_count = 5;
    let mut pota = folder("fld_potapotapotapota", FolderType::Category);
    pota.contact_count = 3;
    let mut park = folder("fld_parkparkparkpark", FolderType::Activation);
    park.parent_id = Some(pota.id.clone());
    park.contact_count = 3;
    let mut monthly = folder("fld_monthmonthmonth2", FolderType::Monthly);
    monthly.contact_count = 2;
    let all = [root.clone(), pota.clone(), park.clone(), monthly.clone()];
    journal.save_folders(&all).await.unwrap();
    journal
        .save_activations(std::slice::from_ref(&park))
        .await
        .unwrap();
    journal.save_whoami(&whoami(5)).await.unwrap();
    (root, pota, park, monthly)
}

/// The contact count of each folder of the copy, by list.
async fn counts_of(journal: &Journal) -> (Vec<(String, i64)>, Vec<(String, i64)>, i64) {
    let snapshot = journal.snapshot().await.unwrap();
    let counts = |list: &[Folder]| {
        list.iter()
            .map(|f| (f.id.clone(), f.contact_count))
            .collect::<Vec<_>>()
    };
    (
        counts(&snapshot.folders),
        counts(&snapshot.activations),
        snapshot.whoami.unwrap().native_qso_count,
    )
}

fn counted(pairs: &[(&Folder, i64)]) -> Vec<(String, i64)> {
    pairs.iter().map(|(f, n)| (f.id.clone(), *n)).collect()
}

#[tokio::test]
async fn a_sent_contact_joins_the_copy_with_its_id_and_is_counted_up_the_tree() {
    let (_dir, journal) = journal().await;
    let (root, pota, park, monthly) = copy_with_counts(&journal).await;
    let mut request = contact(&park.id, "K1ABC");
    request.mode = "ft8".into();
    request.notes = Some("first of the day".into());
    let a = journal.log_contact(request.clone()).await.unwrap();
    let b = journal
        .log_contact(contact(&monthly.id, "N0CALL"))
        .await
        .unwrap();
    // A folder the copy does not know (made on another computer): the row still goes in.
    let elsewhere = "fld_elsewhereelsewhe";
    let c = journal
        .log_contact(contact(elsewhere, "W9XYZ"))
        .await
        .unwrap();
    journal
        .claim(Claim::Contacts, 10, LONG, "me")
        .await
        .unwrap();
    journal
        .settle(
            "me",
            &[
                (a.id.clone(), Outcome::Sent("qso_aaaaaaaaaaaaaaaa".into())),
                (b.id.clone(), Outcome::Refused(refusal("no"))),
                (c.id.clone(), Outcome::Sent("qso_cccccccccccccccc".into())),
            ],
        )
        .await
        .unwrap();
    let copied = journal.cached_contacts(&park.id, 10).await.unwrap();
    assert_eq!(
        copied,
        vec![request.pending("qso_aaaaaaaaaaaaaaaa", a.logged_at)]
    );
    assert_eq!(copied[0].mode, "FT8");
    assert_eq!(copied[0].band, "20m");
    assert_eq!(copied[0].notes.as_deref(), Some("first of the day"));
    assert_eq!(
        journal.cached_contacts(elsewhere, 10).await.unwrap()[0].id,
        "qso_cccccccccccccccc"
    );
    // The refused one adds nothing.
    assert!(
        journal
            .cached_contacts(&monthly.id, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let (folders, activations, qsos) = counts_of(&journal).await;
    assert_eq!(
        folders,
        counted(&[(&root, 6), (&pota, 4), (&park, 4), (&monthly, 2)])
    );
    assert_eq!(activations, counted(&[(&park, 4)]));
    assert_eq!(qsos, 7, "both sent contacts are the account's");
}

#[tokio::test]
async fn a_save_keeps_what_was_written_since_it_was_asked_for() {
    let (_dir, journal) = journal().await;
    let old = stored("qso_oldoldoldoldoldo", FOLDER, "2026-11-01T10:00:00Z");
    let mid = stored("qso_midmidmidmidmidm", FOLDER, "2026-11-10T10:00:00Z");
    let gone = stored("qso_gonegonegonegone", FOLDER, "2026-11-15T10:00:00Z");
    journal
        .save_contacts(
            FOLDER,
            &[gone.clone(), mid.clone(), old.clone()],
            Timestamp::now(),
            true,
        )
        .await
        .unwrap();
    let asked_at = after_now().await;
    // The sender stores a contact while the first page is on its way.
    let sent = journal.log_contact(contact(FOLDER, "W1AW")).await.unwrap();
    journal
        .claim(Claim::Contacts, 10, LONG, "me")
        .await
        .unwrap();
    journal
        .settle(
            "me",
            &[(
                sent.id.clone(),
                Outcome::Sent("qso_sentsentsentsent".into()),
            )],
        )
        .await
        .unwrap();
    // A first page that is not the whole list: `gone` was deleted on the service, `old` is
    // older than the page.
    journal
        .save_contacts(FOLDER, std::slice::from_ref(&mid), asked_at, false)
        .await
        .unwrap();
    let ids = |contacts: Vec<Contact>| contacts.into_iter().map(|c| c.id).collect::<Vec<_>>();
    assert_eq!(
        ids(journal.cached_contacts(FOLDER, 10).await.unwrap()),
        [
            "qso_sentsentsentsent",
            "qso_midmidmidmidmidm",
            "qso_oldoldoldoldoldo"
        ]
    );
    // An edit confirmed after the request is newer than the answer.
    let asked_at = after_now().await;
    let mut edited = mid.clone();
    edited.notes = Some("edited".into());
    journal.remember_contact(&edited).await.unwrap();
    journal
        .save_contacts(FOLDER, std::slice::from_ref(&mid), asked_at, true)
        .await
        .unwrap();
    assert_eq!(
        journal.cached_contacts(FOLDER, 10).await.unwrap(),
        vec![edited]
    );
    // Asked for after all that, the whole list replaces everything.
    journal
        .save_contacts(FOLDER, std::slice::from_ref(&old), after_now().await, true)
        .await
        .unwrap();
    assert_eq!(
        journal.cached_contacts(FOLDER, 10).await.unwrap(),
        vec![old]
    );
}

#[tokio::test]
async fn a_version_1_journal_is_brought_up_to_date_and_keeps_its_copy() {
    let (dir, journal) = journal().await;
    let kept = stored("qso_keptkeptkeptkept", FOLDER, "2026-11-01T10:00:00Z");
    journal
        .save_contacts(FOLDER, std::slice::from_ref(&kept), Timestamp::now(), true)
        .await
        .unwrap();
    let waiting = journal.log_contact(contact(FOLDER, "K1ABC")).await.unwrap();
    // What a version-1 svc wrote: no saved_at, no lookups.
    for statement in [
        "ALTER TABLE cached_contacts DROP COLUMN saved_at",
        "DROP TABLE lookups",
        "DROP TABLE _sqlx_migrations",
    ] {
        sqlx::query(statement).execute(&journal.pool).await.unwrap();
    }
    sqlx::query("PRAGMA user_version = 1")
        .execute(&journal.pool)
        .await
        .unwrap();
    journal.pool.close().await;
    let reopened = Journal::open_path(&dir.path().join("j.db")).await.unwrap();
    let version: i64 = sqlx::query_scalar("PRAGMA user_version")
        .fetch_one(&reopened.pool)
        .await
        .unwrap();
    assert_eq!(version, schema::latest(&MIGRATIONS));
    assert_eq!(
        reopened.cached_contacts(FOLDER, 10).await.unwrap(),
        vec![kept]
    );
    assert_eq!(reopened.entries().await.unwrap(), vec![waiting]);
    // Its rows count as written long ago: any answer replaces them.
    reopened
        .save_contacts(FOLDER, &[], Timestamp::now(), true)
        .await
        .unwrap();
    assert!(
        reopened
            .cached_contacts(FOLDER, 10)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn an_empty_list_saved_is_told_from_a_list_never_saved() {
    let (dir, journal) = journal().await;
    let snapshot = journal.snapshot().await.unwrap();
    assert!(!snapshot.folders_saved && !snapshot.activations_saved);
    journal.save_activations(&[]).await.unwrap();
    drop(journal);
    let snapshot = Journal::open_path(&dir.path().join("j.db"))
        .await
        .unwrap()
        .snapshot()
        .await
        .unwrap();
    assert!(snapshot.activations_saved);
    assert!(snapshot.activations.is_empty());
    assert!(!snapshot.folders_saved, "only the list saved");
}

#[tokio::test]
async fn the_open_folder_is_remembered_and_follows_its_folder_once_sent() {
    let (_dir, journal) = journal().await;
    assert_eq!(journal.snapshot().await.unwrap().open_folder, None);
    journal.save_open_folder(Some(FOLDER)).await.unwrap();
    assert_eq!(
        journal.snapshot().await.unwrap().open_folder.as_deref(),
        Some(FOLDER)
    );
    let (entry, local) = journal.log_monthly("2026-11", None).await.unwrap();
    journal.save_open_folder(Some(&local.id)).await.unwrap();
    assert_eq!(
        journal.snapshot().await.unwrap().open_folder.as_deref(),
        Some(local.id.as_str())
    );
    journal.claim(Claim::Folders, 10, LONG, "me").await.unwrap();
    let mut real = folder("fld_bbbbbbbbbbbbbbbb", FolderType::Monthly);
    real.month = Some("2026-11".into());
    journal
        .resolve_folder(&entry.unwrap().id, &real)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        journal.snapshot().await.unwrap().open_folder.as_deref(),
        Some(real.id.as_str())
    );
    journal.save_open_folder(None).await.unwrap();
    assert_eq!(journal.snapshot().await.unwrap().open_folder, None);
}

#[tokio::test]
async fn an_edit_or_a_delete_the_service_confirmed_changes_the_copy_and_its_counts() {
    let (_dir, journal) = journal().await;
    let (root, pota, park, monthly) = copy_with_counts(&journal).await;
    let in_park = stored("qso_parkparkparkpark", &park.id, "2026-11-01T10:00:00Z");
    let in_monthly = stored("qso_monthmonthmonthm", &monthly.id, "2026-11-02T10:00:00Z");
    journal
        .save_contacts(
            &park.id,
            std::slice::from_ref(&in_park),
            Timestamp::now(),
            true,
        )
        .await
        .unwrap();
    journal
        .save_contacts(
            &monthly.id,
            std::slice::from_ref(&in_monthly),
            Timestamp::now(),
            true,
        )
        .await
        .unwrap();
    // An edit in place: the row changes, no count does.
    let mut noted = in_park.clone();
    noted.notes = Some("73".into());
    journal.remember_contact(&noted).await.unwrap();
    assert_eq!(
        journal.cached_contacts(&park.id, 10).await.unwrap(),
        vec![noted.clone()]
    );
    assert_eq!(
        counts_of(&journal).await.0,
        counted(&[(&root, 5), (&pota, 3), (&park, 3), (&monthly, 2)])
    );
    // Moved to the monthly log: its old row goes and the counts move with it.
    let mut moved = noted.clone();
    moved.folder_id = monthly.id.clone();
    journal.remember_contact(&moved).await.unwrap();
    assert!(
        journal
            .cached_contacts(&park.id, 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        journal.cached_contacts(&monthly.id, 10).await.unwrap(),
        vec![in_monthly.clone(), moved.clone()]
    );
    let (folders, activations, qsos) = counts_of(&journal).await;
    assert_eq!(
        folders,
        counted(&[(&root, 5), (&pota, 2), (&park, 2), (&monthly, 3)])
    );
    assert_eq!(activations, counted(&[(&park, 2)]));
    assert_eq!(qsos, 5);
    journal.forget_contact(&in_monthly.id).await.unwrap();
    assert_eq!(
        journal.cached_contacts(&monthly.id, 10).await.unwrap(),
        vec![moved]
    );
    let (folders, _, qsos) = counts_of(&journal).await;
    assert_eq!(
        folders,
        counted(&[(&root, 4), (&pota, 2), (&park, 2), (&monthly, 2)])
    );
    assert_eq!(qsos, 4);
}

#[tokio::test]
async fn counts_stop_at_zero_and_at_a_cycle_of_parents() {
    let (_dir, journal) = journal().await;
    // A damaged list: two folders each the other's parent.
    let mut a = folder("fld_aaaaaaaaaaaaaaaa", FolderType::Category);
    a.parent_id = Some("fld_bbbbbbbbbbbbbbbb".into());
    a.contact_count = 2;
    let mut b = folder("fld_bbbbbbbbbbbbbbbb", FolderType::Monthly);
    b.parent_id = Some(a.id.clone());
    journal.save_folders(&[a.clone(), b.clone()]).await.unwrap();
    journal.save_whoami(&whoami(0)).await.unwrap();
    let contact = stored("qso_cccccccccccccccc", &b.id, "2026-11-01T10:00:00Z");
    journal
        .save_contacts(
            &b.id,
            std::slice::from_ref(&contact),
            Timestamp::now(),
            true,
        )
        .await
        .unwrap();
    journal.forget_contact(&contact.id).await.unwrap();
    assert!(journal.cached_contacts(&b.id, 10).await.unwrap().is_empty());
    let (folders, _, qsos) = counts_of(&journal).await;
    assert_eq!(folders, counted(&[(&a, 1), (&b, 0)]), "each counted once");
    assert_eq!(qsos, 0);
}

fn lookup_of(call: &str, name: &str, fetched_at: i64) -> crate::lookup::Lookup {
    crate::lookup::Lookup {
        callsign: call.into(),
        name: Some(name.into()),
        qth: Some("Newington".into()),
        state: Some("CT".into()),
        grid: Some("FN31pr".into()),
        country: Some("United States".into()),
        dxcc: Some(291),
        cq_zone: Some(5),
        itu_zone: Some(8),
        continent: None,
        source: crate::lookup::Service::Qrz,
        fetched_at: Timestamp(fetched_at),
        note: None,
    }
}

#[tokio::test]
async fn lookups_are_kept_by_call_and_an_older_answer_never_replaces_a_newer() {
    let (dir, journal) = journal().await;
    assert_eq!(journal.cached_lookup("W1AW").await.unwrap(), None);
    let first = lookup_of("W1AW", "Hiram", 1_000);
    journal.save_lookup(&first).await.unwrap();
    assert_eq!(
        journal.cached_lookup(" w1aw ").await.unwrap(),
        Some(first.clone())
    );
    let newer = lookup_of("W1AW", "Hiram Percy Maxim", 2_000);
    journal.save_lookup(&newer).await.unwrap();
    // Another process's slower lookup, finished after: it must not win.
    journal.save_lookup(&first).await.unwrap();
    drop(journal);
    let reopened = Journal::open_path(&dir.path().join("j.db")).await.unwrap();
    assert_eq!(reopened.cached_lookup("W1AW").await.unwrap(), Some(newer));
    assert_eq!(reopened.cached_lookup("K1ABC").await.unwrap(), None);
}

#[tokio::test]
async fn a_version_2_journal_gets_the_lookups_table() {
    let (dir, journal) = journal().await;
    let waiting = journal.log_contact(contact(FOLDER, "K1ABC")).await.unwrap();
    // What a version-2 svc wrote: no lookups.
    for statement in ["DROP TABLE lookups", "DROP TABLE _sqlx_migrations"] {
        sqlx::query(statement).execute(&journal.pool).await.unwrap();
    }
    sqlx::query("PRAGMA user_version = 2")
        .execute(&journal.pool)
        .await
        .unwrap();
    journal.pool.close().await;
    let reopened = Journal::open_path(&dir.path().join("j.db")).await.unwrap();
    let version: i64 = sqlx::query_scalar("PRAGMA user_version")
        .fetch_one(&reopened.pool)
        .await
        .unwrap();
    assert_eq!(version, schema::latest(&MIGRATIONS));
    assert_eq!(reopened.entries().await.unwrap(), vec![waiting]);
    let kept = lookup_of("OK1VBR", "Petr", 5_000);
    reopened.save_lookup(&kept).await.unwrap();
    assert_eq!(reopened.cached_lookup("ok1vbr").await.unwrap(), Some(kept));
}

#[tokio::test]
async fn the_copy_finds_a_contact_by_its_id_without_a_scan_in_old_files_too() {
    let (dir, journal) = journal().await;
    // A file of version 3, written before the index.
    for statement in [
        "DROP INDEX cached_contacts_by_id",
        "DELETE FROM _sqlx_migrations WHERE version = 4",
        "PRAGMA user_version = 3",
    ] {
        sqlx::query(statement).execute(&journal.pool).await.unwrap();
    }
    journal.pool.close().await;
    let reopened = Journal::open_path(&dir.path().join("j.db")).await.unwrap();
    for statement in [
        "SELECT folder_id FROM cached_contacts WHERE id = 'c' LIMIT 1",
        "DELETE FROM cached_contacts WHERE id = 'c' AND folder_id <> 'f'",
        "DELETE FROM cached_contacts WHERE id = 'c'",
    ] {
        let plan: Vec<(i64, i64, i64, String)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "EXPLAIN QUERY PLAN {statement}"
        )))
        .fetch_all(&reopened.pool)
        .await
        .unwrap();
        assert!(
            plan.iter().all(|(.., step)| !step.starts_with("SCAN")),
            "{statement}: {plan:?}"
        );
    }
    let version: i64 = sqlx::query_scalar("PRAGMA user_version")
        .fetch_one(&reopened.pool)
        .await
        .unwrap();
    assert_eq!(version, schema::latest(&MIGRATIONS));
}

#[tokio::test]
async fn a_contact_logged_once_under_a_key_is_found_again_by_it() {
    let (dir, journal) = journal().await;
    let key = "wsjtx-0123456789abcdef";
    let first = match journal
        .log_contact_once(contact(FOLDER, "K1ABC"), key)
        .await
        .unwrap()
    {
        Logged::New(entry) => entry,
        other => panic!("not logged anew: {other:?}"),
    };
    assert_eq!(first.idempotency_key, key);
    assert_eq!(first.state, EntryState::Waiting);

    // The same key again, with another body (a re-send that says more): nothing is written.
    let mut again = contact(FOLDER, "K1ABC");
    again.rst_sent = Some("-12".into());
    assert_eq!(
        journal.log_contact_once(again, key).await.unwrap(),
        Logged::Already(first.clone())
    );
    assert_eq!(journal.entries().await.unwrap(), vec![first.clone()]);
    assert_eq!(
        journal.logged_under(key).await.unwrap(),
        Some(first.clone())
    );
    assert_eq!(journal.logged_under("wsjtx-other").await.unwrap(), None);

    // Another key is another contact; a key held by a sent entry is still held, after a
    // reopen too.
    let other = journal
        .log_contact_once(contact(FOLDER, "W1AW"), "wsjtx-other")
        .await
        .unwrap();
    assert!(matches!(other, Logged::New(_)), "{other:?}");
    sqlx::query("UPDATE entries SET state = 'sent', sent_id = 'qso_x', sent_at = $1 WHERE id = $2")
        .bind(now_ms())
        .bind(&first.id)
        .execute(&journal.pool)
        .await
        .unwrap();
    journal.pool.close().await;
    let reopened = Journal::open_path(&dir.path().join("j.db")).await.unwrap();
    let held = reopened
        .log_contact_once(contact(FOLDER, "K1ABC"), key)
        .await
        .unwrap();
    assert!(
        matches!(&held, Logged::Already(e) if e.id == first.id && e.state == EntryState::Sent),
        "{held:?}"
    );
    assert_eq!(reopened.entries().await.unwrap().len(), 1);

    // A key the service would refuse is refused before anything is written.
    for bad in ["", "a key", &"k".repeat(256)] {
        assert!(matches!(
            reopened
                .log_contact_once(contact(FOLDER, "K1ABC"), bad)
                .await,
            Err(JournalError::Invalid(_))
        ));
    }
}

#[tokio::test]
async fn a_sender_commits_lazily_and_leaves_every_connection_durable() {
    let (_dir, journal) = journal().await;
    let a = journal.log_contact(contact(FOLDER, "A1A")).await.unwrap();
    journal
        .claim(Claim::Contacts, 10, LONG, "me")
        .await
        .unwrap();
    journal
        .settle(
            "me",
            &[(a.id.clone(), Outcome::Sent("qso_aaaaaaaaaaaaaaaa".into()))],
        )
        .await
        .unwrap();
    // Every connection of the pool, held at once so that each is a different one: a contact
    // logged on any of them is committed with FULL, on disk when its log returns.
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut conn = journal.pool.acquire().await.unwrap();
        let level: i64 = sqlx::query_scalar("PRAGMA synchronous")
            .fetch_one(&mut *conn)
            .await
            .unwrap();
        assert_eq!(level, 2, "synchronous = FULL on every connection");
        held.push(conn);
    }
    drop(held);
    assert_eq!(
        journal.entry(&a.id).await.unwrap().unwrap().state,
        EntryState::Sent
    );
}
