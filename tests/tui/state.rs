//! Keys and answers applied to the state, with no terminal: what changes and which requests
//! start.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use svc::client::{CreatedContact, Deleted, FolderCreated};
use svc::model::Page;
use svc::tui::app::{Connection, Dialog, Load, Pane, Tone};
use svc::tui::form::Field;
use svc::tui::{Action, Effect, update};

use super::*;

fn status(app: &svc::tui::App) -> String {
    app.status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default()
}

fn tone(app: &svc::tui::App) -> Option<Tone> {
    app.status.as_ref().map(|s| s.tone)
}

fn entry(app: &svc::tui::App) -> &svc::tui::form::EntryForm {
    assert!(
        matches!(app.dialog, Some(Dialog::Entry)),
        "the entry form is not shown"
    );
    app.entry.as_ref().unwrap()
}

fn created(id: &str) -> Action {
    Action::ContactCreated(Ok(CreatedContact {
        id: id.into(),
        duplicate_of: None,
        replayed: false,
    }))
}

#[test]
fn folders_have_focus_at_start_and_tab_walks_the_panes() {
    let mut app = loaded();
    assert_eq!(app.focus, Pane::Folders);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Contacts);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Activations);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Folders);
    press(&mut app, KeyCode::BackTab);
    assert_eq!(app.focus, Pane::Activations);
}

#[test]
fn the_tree_puts_children_under_their_parent() {
    let app = loaded();
    let rows: Vec<(String, usize)> = app
        .folders
        .tree
        .iter()
        .map(|r| (app.folders.items[r.index].name.clone(), r.depth))
        .collect();
    let names: Vec<(&str, usize)> = rows.iter().map(|(n, d)| (n.as_str(), *d)).collect();
    assert_eq!(
        names,
        [
            ("All Contacts", 0),
            ("POTA", 1),
            ("W1AW@US-1234-20261122", 2),
            ("W1AW@K-0001-20261115", 2),
            ("DX", 1),
            ("2026-11", 1),
        ]
    );
}

#[test]
fn arrows_and_j_k_move_and_enter_opens_the_folder() {
    let mut app = loaded();
    assert_eq!(app.selected_folder().unwrap().name, "All Contacts");
    press(&mut app, KeyCode::Char('j'));
    press(&mut app, KeyCode::Down);
    assert_eq!(app.selected_folder().unwrap().name, "W1AW@US-1234-20261122");
    press(&mut app, KeyCode::Char('k'));
    assert_eq!(app.selected_folder().unwrap().name, "POTA");
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Up);
    assert_eq!(
        app.selected_folder().unwrap().name,
        "All Contacts",
        "stops at the top"
    );
    press(&mut app, KeyCode::End);
    assert_eq!(app.selected_folder().unwrap().name, "2026-11");
    let before = app.in_flight;
    let effects = press(&mut app, KeyCode::Enter);
    assert_eq!(
        effects,
        [Effect::LoadContacts {
            folder_id: MONTH.into(),
            cursor: None,
            generation: 1
        }]
    );
    assert_eq!(app.in_flight, before + 1);
    assert_eq!(app.folders.open.as_deref(), Some(MONTH));
    assert_eq!(app.contacts.load, Load::Loading);
    assert_eq!(app.focus, Pane::Folders);
}

#[test]
fn slash_filters_the_focused_list_and_enter_keeps_it() {
    let mut app = loaded();
    press(&mut app, KeyCode::Char('/'));
    typed(&mut app, "us-12");
    assert_eq!(app.folders.view.shown.len(), 1);
    assert_eq!(app.folders.view.filter, "us-12");
    // Keys go to the filter while it is typed: q is a letter here, not quit.
    typed(&mut app, "q");
    assert!(!app.quit);
    assert!(app.folders.view.shown.is_empty());
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Enter);
    assert!(app.folders.view.filter_input.is_none());
    assert_eq!(app.folders.view.filter, "us-12");
    assert_eq!(app.selected_folder().unwrap().name, "W1AW@US-1234-20261122");
    // Enter now opens the match.
    let effects = press(&mut app, KeyCode::Enter);
    assert!(matches!(&effects[..], [Effect::LoadContacts { folder_id, .. }] if folder_id == PARK));
    // Esc clears the kept filter.
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.folders.view.shown.len(), app.folders.tree.len());
    assert_eq!(
        app.selected_folder().unwrap().name,
        "W1AW@US-1234-20261122",
        "the selection stays on the same folder"
    );
}

#[test]
fn a_filter_without_match_says_so() {
    let mut app = month_open();
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Char('/'));
    typed(&mut app, "zzz9");
    press(&mut app, KeyCode::Enter);
    assert!(app.contacts.view.shown.is_empty());
    assert!(
        status(&app).contains("nothing matches \"zzz9\""),
        "{}",
        status(&app)
    );
}

#[test]
fn contacts_load_page_by_page_as_the_cursor_moves_down() {
    let mut app = loaded();
    open(&mut app, "2026-11");
    let page = |from: usize, n: usize| -> Vec<svc::model::Contact> {
        (from..from + n)
            .map(|i| {
                contact(
                    &format!("qso_{i:016}"),
                    MONTH,
                    &format!("K{i}AA"),
                    14.074,
                    "20m",
                    "FT8",
                    "2026-11-20T10:00:00Z",
                )
            })
            .collect()
    };
    let effects = update(
        &mut app,
        Action::ContactsLoaded {
            folder_id: MONTH.into(),
            generation: 1,
            result: Ok(Page {
                items: page(0, 100),
                cursor: Some("c1".into()),
            }),
        },
    );
    assert!(effects.is_empty(), "the first screen needs no second page");
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::PageDown);
    assert_eq!(app.contacts.view.selected, 10);
    let effects = press(&mut app, KeyCode::End);
    assert_eq!(
        effects,
        [Effect::LoadContacts {
            folder_id: MONTH.into(),
            cursor: Some("c1".into()),
            generation: 1
        }]
    );
    // Only one page at a time.
    assert!(press(&mut app, KeyCode::Down).is_empty());
    // An answer for an earlier opening of the folder is dropped.
    update(
        &mut app,
        Action::ContactsLoaded {
            folder_id: MONTH.into(),
            generation: 0,
            result: Ok(Page {
                items: page(500, 100),
                cursor: None,
            }),
        },
    );
    assert_eq!(app.contacts.items.len(), 100);
    update(
        &mut app,
        Action::ContactsLoaded {
            folder_id: MONTH.into(),
            generation: 1,
            result: Ok(Page {
                items: page(100, 100),
                cursor: None,
            }),
        },
    );
    assert_eq!(app.contacts.items.len(), 200);
    assert_eq!(app.contacts.cursor, None);
    assert!(
        press(&mut app, KeyCode::End).is_empty(),
        "the last page is in"
    );
    assert_eq!(app.selected_contact().unwrap().callsign, "K199AA");
}

#[test]
fn the_entry_form_logs_a_contact_and_clears_for_the_next() {
    let mut app = month_open();
    press(&mut app, KeyCode::Char('n'));
    let form = entry(&app);
    assert_eq!(form.focus, Field::Callsign);
    // Frequency and mode of the newest contact of the folder; reports follow the mode.
    assert_eq!(form.value(Field::Frequency), "14.074");
    assert_eq!(form.value(Field::Mode), "FT8");
    assert_eq!(form.value(Field::RstSent), "599");
    assert_eq!(form.band, Ok("20m"));
    typed(&mut app, "k9xyz");
    let mut order = vec![entry(&app).focus];
    for _ in 0..8 {
        press(&mut app, KeyCode::Tab);
        order.push(entry(&app).focus);
    }
    assert_eq!(order[..8], Field::ALL);
    assert_eq!(order[8], Field::Callsign, "Tab wraps around");
    press(&mut app, KeyCode::BackTab);
    assert_eq!(entry(&app).focus, Field::Time);
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "7.074");
    let effects = press(&mut app, KeyCode::Enter);
    assert!(effects.is_empty(), "14.0747.074 is no frequency");
    assert_eq!(entry(&app).focus, Field::Frequency);
    assert!(status(&app).contains("frequency"), "{}", status(&app));
    for _ in 0..5 {
        press(&mut app, KeyCode::Backspace);
    }
    press(&mut app, KeyCode::Tab);
    for _ in 0..3 {
        press(&mut app, KeyCode::Backspace);
    }
    typed(&mut app, "ssb");
    assert_eq!(entry(&app).value(Field::RstSent), "59");
    assert_eq!(entry(&app).value(Field::RstReceived), "59");
    for _ in 0..3 {
        press(&mut app, KeyCode::Tab);
    }
    typed(&mut app, "Hiram");
    let before = app.in_flight;
    let effects = press(&mut app, KeyCode::Enter);
    let [
        Effect::CreateContact {
            request,
            idempotency_key,
        },
    ] = &effects[..]
    else {
        panic!("{effects:?}")
    };
    assert_eq!(request.folder_id, MONTH);
    assert_eq!(request.callsign, "K9XYZ");
    assert_eq!(request.frequency, 14.074);
    assert_eq!(request.mode, "SSB");
    assert_eq!(request.rst_sent.as_deref(), Some("59"));
    assert_eq!(request.name.as_deref(), Some("Hiram"));
    assert_eq!(request.time_on, NOW, "time-on is now in UTC");
    assert!(!idempotency_key.is_empty());
    assert_eq!(app.in_flight, before + 1);
    // While it is sent the text stays, and a second Enter sends nothing.
    assert_eq!(entry(&app).value(Field::Callsign), "k9xyz");
    assert!(press(&mut app, KeyCode::Enter).is_empty());
    assert!(status(&app).contains("still logging K9XYZ"));

    update(&mut app, created("qso_new"));
    let form = entry(&app);
    assert_eq!(form.value(Field::Callsign), "");
    assert_eq!(form.value(Field::Name), "");
    assert_eq!(form.focus, Field::Callsign);
    assert_eq!(form.value(Field::Frequency), "14.074", "frequency stays");
    assert_eq!(form.value(Field::Mode), "SSB", "mode stays, as stored");
    assert_eq!(form.value(Field::RstSent), "59");
    assert_eq!(app.in_flight, before);
    assert_eq!(tone(&app), Some(Tone::Success));
    assert!(
        status(&app).contains("logged K9XYZ 20m SSB at 14:05 UTC"),
        "{}",
        status(&app)
    );
    assert_eq!(app.contacts.items[0].id, "qso_new");
    assert_eq!(app.contacts.items.len(), 4);
    assert_eq!(app.me.as_ref().unwrap().native_qso_count, 13);
    assert_eq!(app.contacts.folder.as_ref().unwrap().contact_count, 4);

    press(&mut app, KeyCode::Esc);
    assert!(app.dialog.is_none());
    // The next form keeps frequency and mode of the last contact logged.
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(entry(&app).value(Field::Frequency), "14.074");
}

#[test]
fn a_typed_time_is_used_instead_of_now() {
    let mut app = month_open();
    press(&mut app, KeyCode::Char('n'));
    typed(&mut app, "W2AB");
    press(&mut app, KeyCode::BackTab);
    typed(&mut app, "1350");
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::CreateContact { request, .. }] = &effects[..] else {
        panic!("{effects:?}")
    };
    assert_eq!(request.time_on, "2026-11-22T13:50:00Z");
}

#[test]
fn a_failed_create_keeps_the_form_and_a_retry_reuses_the_key() {
    let mut app = month_open();
    press(&mut app, KeyCode::Char('n'));
    typed(&mut app, "K9XYZ");
    let first = press(&mut app, KeyCode::Enter);
    update(&mut app, Action::ContactCreated(Err(offline())));
    let form = entry(&app);
    assert_eq!(form.value(Field::Callsign), "K9XYZ", "nothing is lost");
    assert!(form.sending.is_none() && form.failed.is_some());
    assert_eq!(app.connection, Connection::Offline);
    assert_eq!(tone(&app), Some(Tone::Error));
    assert!(
        status(&app).contains("not logged, the form keeps it"),
        "{}",
        status(&app)
    );
    assert!(
        status(&app).contains("connection refused"),
        "{}",
        status(&app)
    );
    // A minute later the same text is sent as the same request with the same key: if the
    // first one was stored and only its answer lost, the service replays it.
    update(&mut app, Action::Tick(at("2026-11-22T14:06:30Z")));
    let again = press(&mut app, KeyCode::Enter);
    assert_eq!(first, again);
    update(
        &mut app,
        Action::ContactCreated(Err(server_error("internal", 500, "database failure"))),
    );
    assert!(
        status(&app).contains("internal: database failure"),
        "{}",
        status(&app)
    );
    // Changed text is a new contact: a new request and key.
    press(&mut app, KeyCode::Backspace);
    let changed = press(&mut app, KeyCode::Enter);
    assert_ne!(first, changed);
    let [Effect::CreateContact { request, .. }] = &changed[..] else {
        panic!("{changed:?}")
    };
    assert_eq!(request.callsign, "K9XY");
    assert_eq!(request.time_on, "2026-11-22T14:06:30Z");
}

#[test]
fn closing_the_form_while_sending_keeps_a_failed_contact() {
    let mut app = month_open();
    press(&mut app, KeyCode::Char('n'));
    typed(&mut app, "K9XYZ");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Esc);
    update(
        &mut app,
        Action::ContactCreated(Err(server_error(
            "qso_cap_reached",
            402,
            "the free plan holds 200 native QSOs",
        ))),
    );
    assert!(status(&app).contains("(n shows it)"), "{}", status(&app));
    assert!(status(&app).contains("qso_cap_reached"), "{}", status(&app));
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(entry(&app).value(Field::Callsign), "K9XYZ");
}

#[test]
fn a_duplicate_is_flagged_while_typing_and_can_still_be_logged() {
    let mut app = month_open();
    press(&mut app, KeyCode::Char('n'));
    typed(&mut app, "K1AB");
    assert_eq!(entry(&app).duplicate, None);
    typed(&mut app, "c");
    let warning = entry(&app).duplicate.clone().expect("a duplicate warning");
    assert!(
        warning.contains("K1ABC 20m FT8 logged today at 14:01 UTC"),
        "{warning}"
    );
    // Another band is no duplicate.
    press(&mut app, KeyCode::Tab);
    for _ in 0..6 {
        press(&mut app, KeyCode::Backspace);
    }
    typed(&mut app, "7.074");
    assert_eq!(entry(&app).duplicate, None);
    for _ in 0..5 {
        press(&mut app, KeyCode::Backspace);
    }
    typed(&mut app, "14.074");
    assert!(entry(&app).duplicate.is_some());
    // Yesterday's G4ABC on 15m is no duplicate of today's.
    let effects = press(&mut app, KeyCode::Enter);
    assert!(matches!(&effects[..], [Effect::CreateContact { .. }]));
}

#[test]
fn bad_input_gets_a_message_and_nothing_is_sent() {
    let mut app = month_open();
    press(&mut app, KeyCode::Char('n'));
    typed(&mut app, "K1 AB");
    assert!(press(&mut app, KeyCode::Enter).is_empty());
    assert!(
        status(&app).contains("is not a callsign"),
        "{}",
        status(&app)
    );
    assert_eq!(tone(&app), Some(Tone::Error));
    for _ in 0..5 {
        press(&mut app, KeyCode::Backspace);
    }
    typed(&mut app, "K1AB");
    press(&mut app, KeyCode::Tab);
    for _ in 0..6 {
        press(&mut app, KeyCode::Backspace);
    }
    typed(&mut app, "27.185");
    assert!(press(&mut app, KeyCode::Enter).is_empty());
    assert!(
        status(&app).contains("not in an amateur band"),
        "{}",
        status(&app)
    );
    assert_eq!(entry(&app).band, Err("not in a band".to_owned()));
}

#[test]
fn n_needs_a_folder_that_holds_contacts() {
    let mut app = loaded();
    press(&mut app, KeyCode::Char('n'));
    assert!(app.dialog.is_none());
    assert!(
        status(&app).contains("open a folder first"),
        "{}",
        status(&app)
    );
    open(&mut app, "POTA");
    press(&mut app, KeyCode::Char('n'));
    assert!(app.dialog.is_none());
    assert!(
        status(&app).contains("POTA is a category folder"),
        "{}",
        status(&app)
    );
    let effects = press(&mut app, KeyCode::Char('m'));
    assert_eq!(
        effects,
        [Effect::CreateMonthly {
            month: "2026-11".into()
        }]
    );
}

#[test]
fn delete_asks_first_and_shows_the_tier_error_plainly() {
    let mut app = month_open();
    press(&mut app, KeyCode::Char('d'));
    assert!(app.dialog.is_none(), "d works in the contacts pane");
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Char('d'));
    assert!(matches!(&app.dialog, Some(Dialog::ConfirmDelete { id, .. }) if id == "qso_a"));
    assert!(press(&mut app, KeyCode::Char('n')).is_empty());
    assert!(app.dialog.is_none());
    assert_eq!(app.contacts.items.len(), 3);
    press(&mut app, KeyCode::Char('d'));
    let effects = press(&mut app, KeyCode::Char('y'));
    assert_eq!(effects, [Effect::DeleteContact { id: "qso_a".into() }]);
    update(
        &mut app,
        Action::ContactDeleted {
            id: "qso_a".into(),
            result: Err(server_error(
                "tier_insufficient",
                403,
                "deleting a contact needs an elevated key",
            )),
        },
    );
    let text = status(&app);
    assert!(
        text.starts_with("tier_insufficient: deleting a contact needs an elevated key"),
        "{text}"
    );
    assert!(text.contains("elevated key"), "{text}");
    assert_eq!(app.contacts.items.len(), 3, "nothing is removed");
    assert_eq!(app.connection, Connection::Online, "the service answered");

    press(&mut app, KeyCode::Char('d'));
    press(&mut app, KeyCode::Char('y'));
    update(
        &mut app,
        Action::ContactDeleted {
            id: "qso_a".into(),
            result: Ok(Deleted {
                id: "qso_a".into(),
                success: true,
            }),
        },
    );
    assert_eq!(app.contacts.items.len(), 2);
    assert_eq!(app.me.as_ref().unwrap().native_qso_count, 11);
    assert!(status(&app).contains("deleted K1ABC"), "{}", status(&app));
}

#[test]
fn a_revoked_key_says_what_to_do() {
    let mut app = fresh(true);
    update(
        &mut app,
        Action::WhoamiLoaded(Err(server_error(
            "key_revoked",
            401,
            "the API key was revoked; generate a new one in the web app and run svc auth login",
        ))),
    );
    assert_eq!(app.connection, Connection::KeyRejected);
    assert!(status(&app).starts_with("key_revoked: the API key was revoked"));
    assert!(status(&app).contains("svc auth login"));
    // A later success of another request does not hide that the key is refused.
    update(&mut app, Action::FoldersLoaded(Ok(folders())));
    assert_eq!(app.connection, Connection::KeyRejected);
}

#[test]
fn activations_start_count_and_end() {
    let mut app = loaded();
    let stats = &app.activations.stats[PARK];
    assert_eq!(stats.load, Load::Loaded);
    assert_eq!(stats.valid.len(), 2);
    press(&mut app, KeyCode::Char('a'));
    let Some(Dialog::Activation(form)) = &app.dialog else {
        panic!("no activation form")
    };
    assert_eq!(
        form.value(svc::tui::form::ActivationField::Callsign),
        "W1AW"
    );
    assert_eq!(form.value(svc::tui::form::ActivationField::Program), "pota");
    typed(&mut app, "us-5678");
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::CreateActivation(request)] = &effects[..] else {
        panic!("{effects:?}")
    };
    assert_eq!(request.location_reference, "US-5678");
    assert_eq!(request.callsign, "W1AW");
    assert_eq!(request.program_id.as_deref(), Some("pota"));
    let new = activation("fld_new0000000000000", "US-5678", NOW, None, 0);
    let effects = update(
        &mut app,
        Action::ActivationCreated(Ok(FolderCreated {
            folder: new.clone(),
            created: true,
            replayed: false,
        })),
    );
    assert_eq!(effects[..2], [Effect::LoadFolders, Effect::LoadActivations]);
    assert!(matches!(&effects[2], Effect::LoadContacts { folder_id, .. } if *folder_id == new.id));
    assert!(app.dialog.is_none());
    assert!(
        status(&app).contains("activation US-5678 started"),
        "{}",
        status(&app)
    );

    // End the running one at US-1234, after y.
    press(&mut app, KeyCode::BackTab);
    assert_eq!(app.focus, Pane::Activations);
    assert_eq!(app.selected_activation().unwrap().id, PARK);
    press(&mut app, KeyCode::Char('e'));
    let effects = press(&mut app, KeyCode::Char('y'));
    assert_eq!(effects, [Effect::EndActivation { id: PARK.into() }]);
    let ended = activation(PARK, "US-1234", "2026-11-22T13:00:00Z", Some(NOW), 2);
    update(
        &mut app,
        Action::ActivationEnded {
            id: PARK.into(),
            result: Ok(ended),
        },
    );
    assert!(!app.selected_activation().unwrap().in_progress());
    press(&mut app, KeyCode::Char('e'));
    assert!(app.dialog.is_none());
    assert!(status(&app).contains("has ended already"));
}

#[test]
fn the_activation_form_gets_the_callsign_when_the_account_comes_in() {
    let mut app = fresh(true);
    press(&mut app, KeyCode::Char('a'));
    update(&mut app, Action::WhoamiLoaded(Ok(whoami(0))));
    let Some(Dialog::Activation(form)) = &app.dialog else {
        panic!("no activation form")
    };
    assert_eq!(
        form.value(svc::tui::form::ActivationField::Callsign),
        "W1AW"
    );
}

#[test]
fn the_valid_count_is_unique_call_band_mode_on_the_start_day() {
    let mut app = loaded();
    let same = |id: &str, call: &str, band: &str, mode: &str, time: &str| {
        contact(
            id,
            PARK,
            call,
            if band == "20m" { 14.285 } else { 7.2 },
            band,
            mode,
            time,
        )
    };
    let contacts = vec![
        same("qso_1", "K2AA", "20m", "SSB", "2026-11-22T13:10:00Z"),
        same("qso_2", "K2AA", "20m", "SSB", "2026-11-22T13:11:00Z"),
        same("qso_3", "K2AA", "40m", "SSB", "2026-11-22T13:12:00Z"),
        same("qso_4", "K2AA", "20m", "CW", "2026-11-22T13:13:00Z"),
        same("qso_5", "K3BB", "20m", "SSB", "2026-11-23T00:10:00Z"),
    ];
    update(
        &mut app,
        Action::ActivationContactsLoaded {
            folder_id: PARK.into(),
            result: Ok(contacts),
        },
    );
    assert_eq!(app.activations.stats[PARK].valid.len(), 3);
    // A contact logged into the activation counts at once.
    let effects = press(&mut app, KeyCode::BackTab);
    assert!(effects.is_empty());
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('n'));
    typed(&mut app, "K4CC");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "14.285");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "SSB");
    press(&mut app, KeyCode::Enter);
    update(&mut app, created("qso_6"));
    assert_eq!(app.activations.stats[PARK].valid.len(), 4);
}

#[test]
fn q_and_ctrl_c_quit_but_q_is_a_letter_in_the_form() {
    let mut app = month_open();
    press(&mut app, KeyCode::Char('n'));
    typed(&mut app, "q");
    assert!(!app.quit);
    assert_eq!(entry(&app).value(Field::Callsign), "q");
    update(
        &mut app,
        Action::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
    );
    assert!(app.quit);
    let mut app = loaded();
    press(&mut app, KeyCode::Char('?'));
    assert!(matches!(app.dialog, Some(Dialog::Help)));
    press(&mut app, KeyCode::Char('x'));
    assert!(app.dialog.is_none(), "any key closes the help");
    press(&mut app, KeyCode::Char('q'));
    assert!(app.quit);
}

#[test]
fn quitting_with_a_contact_not_yet_logged_asks_first() {
    let mut app = month_open();
    press(&mut app, KeyCode::Char('n'));
    typed(&mut app, "K9XYZ");
    press(&mut app, KeyCode::Enter);
    let ctrl_c = || Action::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    update(&mut app, ctrl_c());
    assert!(!app.quit, "the contact is still being sent");
    assert!(
        status(&app).contains("K9XYZ is not logged yet"),
        "{}",
        status(&app)
    );
    // Any other key disarms it.
    press(&mut app, KeyCode::Char('x'));
    update(&mut app, ctrl_c());
    assert!(!app.quit);
    update(&mut app, ctrl_c());
    assert!(app.quit, "a second quit key quits anyway");

    // A failed one too, and q outside the form; once logged, q quits at once.
    let mut app = month_open();
    press(&mut app, KeyCode::Char('n'));
    typed(&mut app, "K9XYZ");
    press(&mut app, KeyCode::Enter);
    update(&mut app, Action::ContactCreated(Err(offline())));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('q'));
    assert!(!app.quit);
    press(&mut app, KeyCode::Char('n'));
    press(&mut app, KeyCode::Enter);
    update(&mut app, created("qso_k9xyz"));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('q'));
    assert!(app.quit);
}

#[test]
fn r_refreshes_everything_and_requests_are_counted() {
    let mut app = month_open();
    assert_eq!(app.in_flight, 0);
    let effects = press(&mut app, KeyCode::Char('r'));
    assert_eq!(
        effects,
        [
            Effect::LoadWhoami,
            Effect::LoadFolders,
            Effect::LoadActivations,
            Effect::LoadContacts {
                folder_id: MONTH.into(),
                cursor: None,
                generation: 2
            }
        ]
    );
    assert_eq!(app.in_flight, 4);
    update(&mut app, Action::WhoamiLoaded(Err(offline())));
    assert_eq!(app.in_flight, 3);
    assert_eq!(app.connection, Connection::Offline);
    assert!(status(&app).contains("no answer from the service after 3 attempts"));
    update(&mut app, Action::FoldersLoaded(Ok(folders())));
    assert_eq!(app.connection, Connection::Online);
    assert_eq!(app.in_flight, 2);
}

#[test]
fn a_resize_keeps_the_selection_on_screen() {
    let mut app = loaded();
    open(&mut app, "2026-11");
    let many: Vec<_> = (0..50)
        .map(|i| {
            contact(
                &format!("qso_{i:016}"),
                MONTH,
                "K1ABC",
                14.074,
                "20m",
                "FT8",
                "2026-11-20T10:00:00Z",
            )
        })
        .collect();
    update(
        &mut app,
        Action::ContactsLoaded {
            folder_id: MONTH.into(),
            generation: 1,
            result: Ok(Page {
                items: many,
                cursor: None,
            }),
        },
    );
    press(&mut app, KeyCode::Tab);
    for _ in 0..30 {
        press(&mut app, KeyCode::Down);
    }
    let (_, rows) = svc::tui::app::list_heights(app.size, app.message_rows(app.size.0));
    assert!(app.contacts.view.offset + rows > 30 && app.contacts.view.offset <= 30);
    update(&mut app, Action::Resize(100, 12));
    let (_, rows) = svc::tui::app::list_heights(app.size, app.message_rows(app.size.0));
    assert!(rows < 10, "{rows}");
    assert!(
        app.contacts.view.offset <= 30 && app.contacts.view.offset + rows > 30,
        "offset {} rows {rows}",
        app.contacts.view.offset
    );
}
