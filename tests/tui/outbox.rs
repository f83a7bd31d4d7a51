//! The journal in the logbook's state, with no terminal: the copy shown at start, waiting and
//! refused contacts, the sender's reports, folders made with no link, and a key the journal
//! has never seen.

use ratatui::crossterm::event::KeyCode;
use svc::client::journal::{Counts, EntryRequest, EntryState, SenderEvent, Snapshot};
use svc::model::Page;
use svc::tui::action::Source;
use svc::tui::app::{Dialog, Pane};
use svc::tui::components::contacts::Mark;
use svc::tui::components::entry::Field;
use svc::tui::components::outbox::JournalState;
use svc::tui::components::prompts::Prompt;
use svc::tui::components::status::Connection;
use svc::tui::journal::{JournalAnswer, JournalCopy, JournalEffect};
use svc::tui::list::Load;
use svc::tui::widgets::Tone;
use svc::tui::{Action, App, Effect, update};

use super::state::{status, tone};
use super::*;

/// The month open with two contacts logged into it through the journal, not sent.
fn two_waiting() -> (App, FakeJournal) {
    let mut app = month_open();
    let mut journal = FakeJournal::default();
    alt(&mut app, 'n');
    for call in ["K2OFF", "K3OFF"] {
        typed(&mut app, call);
        journal.press(&mut app, KeyCode::Enter);
    }
    press(&mut app, KeyCode::Esc);
    (app, journal)
}

fn marks(app: &App) -> Vec<(String, Option<Mark>)> {
    app.contacts
        .items
        .iter()
        .map(|c| (c.callsign.clone(), app.contacts.marks.get(&c.id).cloned()))
        .collect()
}

#[test]
fn the_copy_shows_at_start_and_the_service_replaces_it() {
    let (mut app, effects) = App::new(Options::default(), at(NOW), (80, 24));
    assert_eq!(effects[0], Effect::Journal(JournalEffect::Load));
    let waiting = entry(
        &journal_id("ent_", 7),
        7,
        EntryRequest::Contact(svc::model::ContactInput {
            folder_id: MONTH.into(),
            callsign: "K8WAIT".into(),
            frequency: 7.074,
            mode: "FT8".into(),
            time_on: "2026-11-22T12:00:00Z".into(),
            ..svc::model::ContactInput::default()
        }),
    );
    let copy = JournalCopy {
        snapshot: Snapshot {
            whoami: Some(whoami(40)),
            folders: folders(),
            activations: activations(),
            ..Snapshot::default()
        },
        entries: vec![waiting.clone()],
        counts: Counts {
            waiting: 1,
            refused: 0,
        },
    };
    let effects = update(&mut app, Action::Journal(JournalAnswer::Loaded(Ok(copy))));
    // Shown at once, before the service said anything.
    assert_eq!(app.journal, JournalState::Open);
    assert_eq!(app.connection, Connection::Connecting);
    assert_eq!(app.me.as_ref().unwrap().native_qso_count, 40);
    assert_eq!(app.folders.load, Load::Loaded);
    assert_eq!(app.folders.tree.len(), folders().len());
    assert_eq!(app.outbox.counts.waiting, 1);
    // The running activation's count is asked for (copy first, then the service).
    assert_eq!(
        effects,
        [
            Effect::LoadActivationContacts {
                folder_id: PARK.into()
            },
            // And the parks' names, once.
            Effect::NameParks(vec!["US-1234".into(), "K-0001".into()])
        ]
    );
    // No link: the copy stays on screen.
    update(&mut app, Action::WhoamiLoaded(Err(offline())));
    update(&mut app, Action::FoldersLoaded(Err(offline())));
    assert_eq!(app.connection, Connection::Offline);
    assert_eq!(app.folders.load, Load::Loaded);
    assert_eq!(app.me.as_ref().unwrap().native_qso_count, 40);
    // The month opens from the copy, with the journal's waiting contact among them.
    let effects = open(&mut app, "2026-11");
    let [
        Effect::LoadContacts { generation, .. },
        Effect::SaveOpenFolder { .. },
    ] = effects[..]
    else {
        panic!("{effects:?}")
    };
    assert_eq!(marks(&app), [("K8WAIT".to_owned(), Some(Mark::Waiting))]);
    let contacts_loaded = |source, result| Action::ContactsLoaded {
        folder_id: MONTH.into(),
        generation,
        source,
        result,
    };
    update(
        &mut app,
        contacts_loaded(
            Source::Copy,
            Ok(Page {
                items: month_contacts(),
                cursor: None,
            }),
        ),
    );
    let calls: Vec<String> = app
        .contacts
        .items
        .iter()
        .map(|c| c.callsign.clone())
        .collect();
    assert_eq!(calls, ["K1ABC", "N0XYZ", "K8WAIT", "G4ABC"], "newest first");
    assert!(app.contacts.from_copy);
    update(&mut app, contacts_loaded(Source::Service, Err(offline())));
    assert_eq!(app.contacts.items.len(), 4, "the copy stays");
    assert!(matches!(app.contacts.load, Load::Failed(_)));
    // The link comes back: the service's page replaces the copy, the waiting one stays.
    let fresh = vec![month_contacts()[0].clone()];
    update(
        &mut app,
        contacts_loaded(
            Source::Service,
            Ok(Page {
                items: fresh,
                cursor: None,
            }),
        ),
    );
    assert!(!app.contacts.from_copy);
    let calls: Vec<String> = app
        .contacts
        .items
        .iter()
        .map(|c| c.callsign.clone())
        .collect();
    assert_eq!(calls, ["K1ABC", "K8WAIT"]);
}

#[test]
fn folders_made_with_no_link_stay_until_the_service_has_them() {
    let mut app = loaded();
    let mut journal = FakeJournal::default();
    journal.alt(&mut app, 'a');
    typed(&mut app, "us-9999");
    journal.press(&mut app, KeyCode::Enter);
    let local = journal.made[0].local_folder_id.clone().unwrap();
    alt(&mut app, 'n');
    typed(&mut app, "K2PARK");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "14.285");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "ssb");
    journal.press(&mut app, KeyCode::Enter);
    let EntryRequest::Contact(c) = &journal.made[1].request else {
        panic!()
    };
    assert_eq!(c.folder_id, local, "logged into the local folder");
    update(
        &mut app,
        Action::ActivationContactsLoaded {
            folder_id: local.clone(),
            source: Source::Copy,
            result: Ok(vec![]),
        },
    );
    assert_eq!(app.activations.meter(&local).map(|m| m.today), Some(1));
    // A reload from the service does not know it yet: it stays.
    update(&mut app, Action::FoldersLoaded(Ok(folders())));
    update(&mut app, Action::ActivationsLoaded(Ok(activations())));
    assert!(app.folders.items.iter().any(|f| f.id == local));
    assert!(app.activations.items.iter().any(|f| f.id == local));
    // The sender made it: the real id replaces the local one everywhere.
    let real = activation("fld_real000000000000", "US-9999", NOW, None, 0);
    let effects = update(
        &mut app,
        Action::Sender(SenderEvent::FolderResolved {
            local_id: local.clone(),
            folder: Box::new(real.clone()),
        }),
    );
    // Open in Contacts: read from the service from now on.
    assert!(
        matches!(&effects[..], [Effect::LoadContacts { folder_id, cursor: None, .. }] if *folder_id == real.id),
        "{effects:?}"
    );
    assert!(!app.folders.items.iter().any(|f| f.id == local));
    assert!(app.folders.items.iter().any(|f| f.id == real.id));
    assert_eq!(app.folders.open.as_deref(), Some(real.id.as_str()));
    assert_eq!(app.contacts.folder.as_ref().unwrap().id, real.id);
    assert_eq!(app.entry.as_ref().unwrap().folder_id, real.id);
    assert_eq!(app.activations.meter(&real.id).map(|m| m.today), Some(1));
    let EntryRequest::Contact(c) = &app.outbox.entries[1].request else {
        panic!()
    };
    assert_eq!(c.folder_id, real.id);
    assert_eq!(app.contacts.items[0].folder_id, real.id);
    assert_eq!(app.contacts.marks.len(), 1, "still waiting");
    // Then the contact goes.
    update(
        &mut app,
        Action::Sender(SenderEvent::Sent(vec![
            sent(journal.made[0].clone(), &real.id),
            sent(journal.made[1].clone(), "qso_park"),
        ])),
    );
    assert!(app.outbox.entries.is_empty());
    assert_eq!(app.contacts.items[0].id, "qso_park");
}

#[test]
fn a_refused_contact_is_shown_fixed_into_the_open_folder_and_sent_again() {
    let (mut app, mut journal) = two_waiting();
    let first = journal.made[0].clone();
    update(
        &mut app,
        Action::Sender(SenderEvent::Refused(vec![refused(
            first.clone(),
            "validation_error",
            "the contact's UTC month 2026-11 is not the folder's month 2026-10",
        )])),
    );
    update(
        &mut app,
        Action::Sender(SenderEvent::Counts(Counts {
            waiting: 1,
            refused: 1,
        })),
    );
    assert_eq!(tone(&app), Some(Tone::Error));
    let text = status(&app);
    assert!(
        text.starts_with(
            "refused: K2OFF (kept as ✗ in Contacts: Enter fixes it, Alt-D discards it): validation_error: "
        ),
        "{text}"
    );
    // At the top, marked, with the service's message; the other still waits.
    let rows = marks(&app);
    assert_eq!(rows[0].0, "K2OFF");
    let Some(Mark::Refused(why)) = &rows[0].1 else {
        panic!("{rows:?}")
    };
    assert!(
        why.starts_with("validation_error: the contact's UTC month"),
        "{why}"
    );
    assert_eq!(rows[1], ("K3OFF".to_owned(), Some(Mark::Waiting)));
    // Another folder open: the refused one is still on top; the waiting one is not there.
    open(&mut app, "W1AW@US-1234-20261122");
    let rows = marks(&app);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].0, "K2OFF");
    // Enter on it opens it in the form, into the folder open now.
    press(&mut app, KeyCode::BackTab);
    assert_eq!(app.focus, Pane::Contacts);
    press(&mut app, KeyCode::Home);
    press(&mut app, KeyCode::Enter);
    let Some(Dialog::Fix(fix)) = &app.dialog else {
        panic!("{:?}", app.dialog)
    };
    assert_eq!(fix.entry_id, first.id);
    assert_eq!(fix.form.folder_id, PARK);
    assert_eq!(fix.form.value(Field::Callsign), "K2OFF");
    assert_eq!(
        fix.form.value(Field::Time),
        NOW,
        "the time it was logged with"
    );
    // Esc leaves it as it was.
    press(&mut app, KeyCode::Esc);
    assert!(app.dialog.is_none());
    press(&mut app, KeyCode::Enter);
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::Journal(JournalEffect::Retry { id, request })] = &effects[..] else {
        panic!("{effects:?}")
    };
    assert_eq!(*id, first.id);
    assert_eq!(request.folder_id, PARK);
    assert_eq!(request.callsign, "K2OFF");
    assert_eq!(request.time_on, NOW);
    journal.run(&mut app, effects);
    assert!(app.dialog.is_none());
    assert!(status(&app).contains("K2OFF fixed"), "{}", status(&app));
    assert_eq!(
        app.outbox.counts,
        Counts {
            waiting: 2,
            refused: 0
        }
    );
    // Waiting now, in the activation it was fixed into.
    assert_eq!(marks(&app)[0], ("K2OFF".to_owned(), Some(Mark::Waiting)));
    assert_eq!(app.outbox.entries[0].state, EntryState::Waiting);
}

#[test]
fn a_waiting_or_refused_contact_is_discarded_only_after_y() {
    let (mut app, mut journal) = two_waiting();
    press(&mut app, KeyCode::BackTab);
    press(&mut app, KeyCode::Home);
    assert_eq!(app.contacts.selected().unwrap().callsign, "K3OFF");
    // Enter on a waiting one says what happens to it.
    press(&mut app, KeyCode::Enter);
    assert!(app.dialog.is_none());
    assert!(
        status(&app).contains("K3OFF waits in the journal"),
        "{}",
        status(&app)
    );
    alt(&mut app, 'd');
    assert!(matches!(
        app.dialog,
        Some(Dialog::Prompt(Prompt::Discard { .. }))
    ));
    assert!(journal.alt(&mut app, 'x').is_empty());
    assert!(status(&app).contains("kept K3OFF"), "{}", status(&app));
    assert_eq!(app.outbox.entries.len(), 2);
    alt(&mut app, 'd');
    let effects = press(&mut app, KeyCode::Char('y'));
    assert_eq!(
        effects,
        [Effect::Journal(JournalEffect::Discard {
            id: journal.made[1].id.clone()
        })]
    );
    journal.run(&mut app, effects);
    assert!(status(&app).contains("discarded K3OFF"), "{}", status(&app));
    assert_eq!(app.outbox.entries.len(), 1);
    assert_eq!(app.outbox.counts.waiting, 1);
    assert!(!app.contacts.items.iter().any(|c| c.callsign == "K3OFF"));
    // A stored contact is deleted, as before, not discarded.
    press(&mut app, KeyCode::End);
    alt(&mut app, 'd');
    assert!(matches!(
        app.dialog,
        Some(Dialog::Prompt(Prompt::Delete { .. }))
    ));
}

#[test]
fn the_sender_tells_the_link_state_and_a_returning_link_reloads() {
    let (mut app, _) = two_waiting();
    update(
        &mut app,
        Action::Sender(SenderEvent::Offline("refused".into())),
    );
    assert_eq!(app.connection, Connection::Offline);
    let effects = update(&mut app, Action::Sender(SenderEvent::Online));
    assert_eq!(app.connection, Connection::Online);
    assert_eq!(
        effects[..3],
        [
            Effect::LoadWhoami,
            Effect::LoadFolders,
            Effect::LoadActivations
        ]
    );
    assert!(matches!(&effects[3], Effect::LoadContacts { folder_id, .. } if folder_id == MONTH));
    // What waits goes at once, not at the end of the sender's back-off (up to 30 s).
    assert_eq!(effects.last(), Some(&Effect::SendNow));
    // Online again without having been offline: nothing to reload.
    assert!(update(&mut app, Action::Sender(SenderEvent::Online)).is_empty());
    // The logbook's own check of the link sees it back first, as often as not.
    update(
        &mut app,
        Action::Sender(SenderEvent::Offline("refused".into())),
    );
    let effects = update(&mut app, Action::LinkProbed(Ok(())));
    assert_eq!(app.connection, Connection::Online);
    assert_eq!(effects.last(), Some(&Effect::SendNow));
    // A refused key holds everything back, and says so.
    update(
        &mut app,
        Action::Sender(SenderEvent::Held(server_error(
            "key_revoked",
            401,
            "the API key was revoked",
        ))),
    );
    assert_eq!(app.connection, Connection::KeyRejected);
    let text = status(&app);
    assert!(
        text.contains("2 contacts wait in the journal: key_revoked"),
        "{text}"
    );
    assert!(text.contains("svc auth login"), "{text}");
}

/// The journal is looked for on disk while whoami goes to the service: a fast service can answer
/// first, and its account then opens the journal when the journal is found missing (the CI run
/// of 2026-11-28 waited a minute on "this key is new on this computer" with the service online).
#[test]
fn a_key_new_here_opens_its_journal_when_whoami_answered_first() {
    let (mut app, _) = App::new(Options::default(), at(NOW), (80, 24));
    assert!(update(&mut app, Action::WhoamiLoaded(Ok(whoami(3)))).is_empty());
    let effects = update(&mut app, Action::Journal(JournalAnswer::Missing));
    assert_eq!(
        effects,
        [Effect::Journal(JournalEffect::Open {
            callsign: "W1AW".into()
        })]
    );
    assert_eq!(app.journal, JournalState::Opening);
    let mut journal = FakeJournal::default();
    journal.run(&mut app, effects);
    assert_eq!(app.journal, JournalState::Open);
}

#[test]
fn a_key_new_here_needs_the_service_once() {
    let (mut app, _) = App::new(Options::default(), at(NOW), (80, 24));
    update(&mut app, Action::Journal(JournalAnswer::Missing));
    assert_eq!(app.journal, JournalState::Missing);
    update(&mut app, Action::WhoamiLoaded(Err(offline())));
    update(&mut app, Action::FoldersLoaded(Err(offline())));
    for key in ['n', 'a', 'm'] {
        assert!(press(&mut app, KeyCode::Char(key)).is_empty());
        assert!(app.dialog.is_none());
        assert!(
            status(&app).contains("this key is new on this computer"),
            "{key}: {}",
            status(&app)
        );
    }
    // Asked again after ten seconds, not on every tick.
    assert!(update(&mut app, Action::Tick(at("2026-11-22T14:05:15Z"))).is_empty());
    let effects = update(&mut app, Action::Tick(at("2026-11-22T14:05:20Z")));
    assert_eq!(effects, [Effect::LoadWhoami]);
    assert!(update(&mut app, Action::Tick(at("2026-11-22T14:05:40Z"))).is_empty());
    // The first answer names the account: its journal is made, then the lists are asked for
    // again so they are kept in it.
    let effects = update(&mut app, Action::WhoamiLoaded(Ok(whoami(3))));
    assert_eq!(
        effects,
        [Effect::Journal(JournalEffect::Open {
            callsign: "W1AW".into()
        })]
    );
    let mut journal = FakeJournal::default();
    let effects = journal.run(&mut app, effects);
    assert_eq!(app.journal, JournalState::Open);
    assert_eq!(
        effects,
        [
            Effect::LoadWhoami,
            Effect::LoadFolders,
            Effect::LoadActivations
        ]
    );
    update(&mut app, Action::FoldersLoaded(Ok(folders())));
    journal.alt(&mut app, 'm');
    let effects = journal.press(&mut app, KeyCode::Char('m'));
    assert!(
        matches!(
            &effects[..],
            [Effect::LoadContacts { .. }, Effect::SaveOpenFolder { .. }]
        ),
        "{effects:?}"
    );
    assert!(
        status(&app).contains("opened the 2026-11 log"),
        "{}",
        status(&app)
    );
    assert_eq!(app.outbox.counts.waiting, 1);
    // Again: the same log, not a second one.
    journal.alt(&mut app, 'm');
    journal.press(&mut app, KeyCode::Char('m'));
    assert_eq!(app.outbox.counts.waiting, 1);
    assert_eq!(app.outbox.entries.len(), 1);
}

#[test]
fn a_journal_that_cannot_open_says_so_and_logs_nothing() {
    let (mut app, _) = App::new(Options::default(), at(NOW), (80, 24));
    update(
        &mut app,
        Action::Journal(JournalAnswer::Loaded(Err("permission denied".into()))),
    );
    assert!(matches!(app.journal, JournalState::Failed(_)));
    assert!(
        status(&app).contains("permission denied"),
        "{}",
        status(&app)
    );
    update(&mut app, Action::FoldersLoaded(Ok(folders())));
    open(&mut app, "2026-11");
    assert!(alt(&mut app, 'n').is_empty());
    assert!(app.dialog.is_none());
    assert!(
        status(&app).contains("nothing can be logged: the journal cannot be used"),
        "{}",
        status(&app)
    );
}

/// A page read after the sender stored a waiting contact (the copy holds what the service
/// confirmed) shows it before the sender's report comes: the report leaves one row, not two.
#[test]
fn a_contact_stored_before_its_report_shows_once() {
    let (mut app, journal) = two_waiting();
    let k2 = journal.made[0].clone();
    let generation = app.contacts.generation;
    let mut page = month_contacts();
    page.insert(
        0,
        contact(
            "qso_k2off",
            MONTH,
            "K2OFF",
            14.074,
            "20m",
            "FT8",
            "2026-11-22T14:05:00Z",
        ),
    );
    update(
        &mut app,
        Action::ContactsLoaded {
            folder_id: MONTH.into(),
            generation,
            source: Source::Copy,
            result: Ok(Page {
                items: page,
                cursor: None,
            }),
        },
    );
    let k2_rows = |app: &App| {
        app.contacts
            .items
            .iter()
            .filter(|c| c.callsign == "K2OFF")
            .count()
    };
    assert_eq!(
        k2_rows(&app),
        2,
        "the waiting row and the copy's, until the report"
    );
    update(
        &mut app,
        Action::Sender(SenderEvent::Sent(vec![sent(k2, "qso_k2off")])),
    );
    assert_eq!(k2_rows(&app), 1);
    assert_eq!(
        marks(&app),
        [
            ("K3OFF".to_owned(), Some(Mark::Waiting)),
            ("K2OFF".to_owned(), None),
            ("K1ABC".to_owned(), None),
            ("N0XYZ".to_owned(), None),
            ("G4ABC".to_owned(), None),
        ]
    );
}

/// The order a pseudo-terminal run showed: an activation started, and a contact logged into
/// it just after the sender made it on the service, before the sender's report of that came.
/// The journal logs the contact into the real folder and says so; the logbook takes the
/// folder first, so the contact is shown and counted, and the pages asked for then (older
/// than the contacts) lose neither.
#[test]
fn a_contact_logged_as_its_activation_is_made_is_shown_and_counted() {
    let mut app = loaded();
    let mut journal = FakeJournal::default();
    journal.alt(&mut app, 'a');
    typed(&mut app, "us-0001, us-0002");
    let effects = journal.press(&mut app, KeyCode::Enter);
    let local = journal.made[0].local_folder_id.clone().unwrap();
    let generation = effects
        .iter()
        .find_map(|e| match e {
            Effect::LoadContacts { generation, .. } => Some(*generation),
            _ => None,
        })
        .unwrap();
    let page = |folder: &str, source| Action::ContactsLoaded {
        folder_id: folder.into(),
        generation,
        source,
        result: Ok(Page {
            items: vec![],
            cursor: None,
        }),
    };
    update(&mut app, page(&local, Source::Copy));
    update(
        &mut app,
        Action::ActivationContactsLoaded {
            folder_id: local.clone(),
            source: Source::Copy,
            result: Ok(vec![]),
        },
    );
    typed(&mut app, "k1aa");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "14.285");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "ssb");
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::Journal(JournalEffect::LogContact(request))] = &effects[..] else {
        panic!("{effects:?}")
    };
    assert_eq!(request.folder_id, local);
    let real = activation("fld_real000000000000", "US-0001,US-0002", NOW, None, 0);
    let mut k1 = request.clone();
    k1.folder_id = real.id.clone();
    let k1 = entry(&journal_id("ent_", 90), 90, EntryRequest::Contact(k1));
    let effects = update(
        &mut app,
        Action::Journal(JournalAnswer::Logged {
            result: Ok(k1.clone()),
            made: Some((local.clone(), Box::new(real.clone()))),
        }),
    );
    assert!(
        matches!(&effects[..], [Effect::LoadContacts { folder_id, cursor: None, .. }] if *folder_id == real.id),
        "{effects:?}"
    );
    assert_eq!(app.contacts.folder.as_ref().unwrap().id, real.id);
    assert_eq!(marks(&app), [("K1AA".to_owned(), Some(Mark::Waiting))]);
    assert_eq!(app.activations.meter(&real.id).map(|m| m.today), Some(1));
    // The sender's own report of the folder comes after: nothing more to do.
    let effects = update(
        &mut app,
        Action::Sender(SenderEvent::FolderResolved {
            local_id: local.clone(),
            folder: Box::new(real.clone()),
        }),
    );
    assert!(effects.is_empty(), "{effects:?}");
    update(
        &mut app,
        Action::Sender(SenderEvent::Sent(vec![sent(
            journal.made[0].clone(),
            &real.id,
        )])),
    );
    update(&mut app, page(&real.id, Source::Copy));
    typed(&mut app, "k2bb");
    journal.press(&mut app, KeyCode::Enter);
    update(&mut app, page(&real.id, Source::Service));
    update(
        &mut app,
        Action::Sender(SenderEvent::Sent(vec![
            sent(k1, "qso_k1aa"),
            sent(journal.made[1].clone(), "qso_k2bb"),
        ])),
    );
    assert_eq!(
        marks(&app),
        [("K2BB".to_owned(), None), ("K1AA".to_owned(), None)]
    );
    assert_eq!(app.activations.meter(&real.id).map(|m| m.today), Some(2));
}

/// The sender counts the journal after a push and reports it later: a report counted before
/// a contact was logged here does not say that contact is not waiting.
#[test]
fn a_count_made_before_a_contact_was_logged_does_not_hide_it() {
    let (mut app, journal) = two_waiting();
    assert_eq!(app.outbox.counts.waiting, 2);
    update(
        &mut app,
        Action::Sender(SenderEvent::Counts(Counts {
            waiting: 0,
            refused: 0,
        })),
    );
    assert_eq!(app.outbox.counts.waiting, 2, "both still wait");
    update(
        &mut app,
        Action::Sender(SenderEvent::Sent(vec![sent(
            journal.made[0].clone(),
            "qso_k2off",
        )])),
    );
    assert_eq!(app.outbox.counts.waiting, 1);
    // Another `svc` logged into the same journal: its entries count too.
    update(
        &mut app,
        Action::Sender(SenderEvent::Counts(Counts {
            waiting: 3,
            refused: 0,
        })),
    );
    assert_eq!(app.outbox.counts.waiting, 3);
}

#[test]
fn a_count_asked_before_a_contact_went_and_answered_after_is_asked_again() {
    let (mut app, journal) = two_waiting();
    let before = app.me.as_ref().unwrap().native_qso_count;
    update(
        &mut app,
        Action::Sender(SenderEvent::Offline("refused".into())),
    );
    // The link returns: whoami is asked; then a contact goes before its answer comes.
    let effects = update(&mut app, Action::Sender(SenderEvent::Online));
    assert!(effects.contains(&Effect::LoadWhoami), "{effects:?}");
    update(
        &mut app,
        Action::Sender(SenderEvent::Sent(vec![sent(
            journal.made[0].clone(),
            "qso_sent_meanwhile",
        )])),
    );
    assert_eq!(app.me.as_ref().unwrap().native_qso_count, before + 1);
    // The answer was made before the service stored it: taken, and asked again.
    let effects = update(&mut app, Action::WhoamiLoaded(Ok(whoami(before))));
    assert_eq!(effects, vec![Effect::LoadWhoami]);
    // The second answer holds it, and is the last.
    let effects = update(&mut app, Action::WhoamiLoaded(Ok(whoami(before + 1))));
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(app.me.as_ref().unwrap().native_qso_count, before + 1);
}
