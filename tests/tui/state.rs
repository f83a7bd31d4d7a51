//! Keys and answers applied to the state, with no terminal: what changes and which requests
//! start.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use svc::client::Deleted;
use svc::client::journal::{EntryRequest, SenderEvent};
use svc::model::Page;
use svc::tui::action::Source;
use svc::tui::app::{Dialog, Pane};
use svc::tui::components::entry::Field;
use svc::tui::components::prompts::Prompt;
use svc::tui::components::status::Connection;
use svc::tui::journal::{JournalAnswer, JournalEffect};
use svc::tui::list::Load;
use svc::tui::widgets::Tone;
use svc::tui::{Action, Effect, update};

use super::*;
use svc::tui::components::contacts::Mark;

pub fn status(app: &svc::tui::App) -> String {
    app.status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default()
}

pub fn tone(app: &svc::tui::App) -> Option<Tone> {
    app.status.as_ref().map(|s| s.tone)
}

pub fn form(app: &svc::tui::App) -> &svc::tui::components::entry::EntryForm {
    assert!(
        matches!(app.dialog, Some(Dialog::Entry)),
        "the entry form is not shown"
    );
    app.entry.as_ref().unwrap()
}

#[test]
fn folders_have_focus_at_start_and_tab_walks_the_panes() {
    let mut app = loaded();
    assert_eq!(app.focus, Pane::Folders);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Activations);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Contacts);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Folders);
    press(&mut app, KeyCode::BackTab);
    assert_eq!(app.focus, Pane::Contacts);
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
    assert_eq!(app.folders.selected().unwrap().name, "All Contacts");
    alt(&mut app, 'j');
    press(&mut app, KeyCode::Down);
    assert_eq!(
        app.folders.selected().unwrap().name,
        "W1AW@US-1234-20261122"
    );
    alt(&mut app, 'k');
    assert_eq!(app.folders.selected().unwrap().name, "POTA");
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Up);
    assert_eq!(
        app.folders.selected().unwrap().name,
        "All Contacts",
        "stops at the top"
    );
    press(&mut app, KeyCode::End);
    assert_eq!(app.folders.selected().unwrap().name, "2026-11");
    let before = app.in_flight;
    let effects = press(&mut app, KeyCode::Enter);
    assert_eq!(
        effects,
        [
            Effect::LoadContacts {
                folder_id: MONTH.into(),
                cursor: None,
                generation: 1,
                save_copy: true,
            },
            // Opened again at the next start.
            Effect::SaveOpenFolder {
                folder_id: MONTH.into()
            }
        ]
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
    assert_eq!(
        app.folders.selected().unwrap().name,
        "W1AW@US-1234-20261122"
    );
    // Enter now opens the match.
    let effects = press(&mut app, KeyCode::Enter);
    assert!(
        matches!(&effects[..], [Effect::LoadContacts { folder_id, .. }, Effect::SaveOpenFolder { .. }] if folder_id == PARK)
    );
    // Esc clears the kept filter.
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.folders.view.shown.len(), app.folders.tree.len());
    assert_eq!(
        app.folders.selected().unwrap().name,
        "W1AW@US-1234-20261122",
        "the selection stays on the same folder"
    );
}

#[test]
fn a_second_slash_starts_a_new_filter() {
    let mut app = loaded();
    press(&mut app, KeyCode::Char('/'));
    typed(&mut app, "us-12");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.folders.view.filter, "us-12");
    press(&mut app, KeyCode::Char('/'));
    assert_eq!(app.folders.view.filter, "");
    assert_eq!(app.folders.view.shown.len(), app.folders.tree.len());
    typed(&mut app, "2026-11");
    assert_eq!(app.folders.view.filter, "2026-11");
    assert!(!app.folders.view.shown.is_empty());
}

#[test]
fn refreshing_is_said_until_every_answer_is_in() {
    let mut app = month_open();
    let effects = alt(&mut app, 'r');
    let Some(Effect::LoadContacts { generation, .. }) = effects.last().cloned() else {
        panic!("{effects:?}")
    };
    assert_eq!(status(&app), "refreshing…");
    update(&mut app, Action::WhoamiLoaded(Ok(whoami(12))));
    update(&mut app, Action::FoldersLoaded(Ok(folders())));
    let more = update(&mut app, Action::ActivationsLoaded(Ok(activations())));
    assert_eq!(status(&app), "refreshing…");
    update(
        &mut app,
        Action::ContactsLoaded {
            folder_id: MONTH.into(),
            generation,
            source: Source::Service,
            result: Ok(svc::model::Page {
                items: month_contacts(),
                cursor: None,
            }),
        },
    );
    for effect in more {
        if let Effect::LoadActivationContacts { folder_id } = effect {
            update(
                &mut app,
                Action::ActivationContactsLoaded {
                    folder_id,
                    source: Source::Service,
                    result: Ok(vec![]),
                },
            );
        }
    }
    assert_eq!(app.in_flight, 0);
    assert_eq!(status(&app), "refreshed");
}

#[test]
fn a_filter_without_match_says_so() {
    let mut app = month_open();
    press(&mut app, KeyCode::BackTab);
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
            source: Source::Service,
            result: Ok(Page {
                items: page(0, 100),
                cursor: Some("c1".into()),
            }),
        },
    );
    assert!(effects.is_empty(), "the first screen needs no second page");
    press(&mut app, KeyCode::BackTab);
    press(&mut app, KeyCode::PageDown);
    assert_eq!(app.contacts.view.selected, 10);
    let effects = press(&mut app, KeyCode::End);
    assert_eq!(
        effects,
        [Effect::LoadContacts {
            folder_id: MONTH.into(),
            cursor: Some("c1".into()),
            generation: 1,
            save_copy: false,
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
            source: Source::Service,
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
            source: Source::Service,
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
    assert_eq!(app.contacts.selected().unwrap().callsign, "K199AA");
}

#[test]
fn the_entry_form_logs_a_contact_and_clears_for_the_next() {
    let mut app = month_open();
    let mut journal = FakeJournal::default();
    alt(&mut app, 'n');
    let f = form(&app);
    assert_eq!(f.focus, Field::Callsign);
    // Frequency and mode of the newest contact of the folder; reports follow the mode.
    assert_eq!(f.value(Field::Frequency), "14.074");
    assert_eq!(f.value(Field::Mode), "FT8");
    assert_eq!(
        f.value(Field::RstSent),
        "",
        "FT8's report is measured: none by default"
    );
    assert_eq!(f.band, Ok("20m"));
    typed(&mut app, "k9xyz");
    // Every field the form shows in this log (the exchange is a contest log's alone).
    let shown: Vec<Field> = Field::ALL
        .into_iter()
        .filter(|f| form(&app).shows(*f))
        .collect();
    assert!(!shown.contains(&Field::Exchange));
    let mut order = vec![form(&app).focus];
    for _ in 0..shown.len() {
        press(&mut app, KeyCode::Tab);
        order.push(form(&app).focus);
    }
    assert_eq!(order[..shown.len()], shown);
    assert_eq!(order[shown.len()], Field::Callsign, "Tab wraps around");
    press(&mut app, KeyCode::BackTab);
    assert_eq!(form(&app).focus, Field::Time);
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Tab);
    assert_eq!(form(&app).focus, Field::Frequency);
    assert!(form(&app).replaces_on_type());
    // Reached with Tab, the kept frequency is replaced by what is typed, not added to.
    typed(&mut app, "7.074");
    assert_eq!(form(&app).value(Field::Frequency), "7.074");
    assert_eq!(form(&app).band, Ok("40m"));
    // An arrow starts editing the value instead.
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::BackTab);
    assert_eq!(form(&app).focus, Field::Frequency);
    assert!(
        !form(&app).replaces_on_type(),
        "typed in: it stays as typed"
    );
    for _ in 0..5 {
        press(&mut app, KeyCode::Backspace);
    }
    typed(&mut app, "14.074");
    press(&mut app, KeyCode::Tab);
    for _ in 0..3 {
        press(&mut app, KeyCode::Backspace);
    }
    typed(&mut app, "ssb");
    assert_eq!(form(&app).value(Field::RstSent), "59");
    assert_eq!(form(&app).value(Field::RstReceived), "59");
    for _ in 0..3 {
        press(&mut app, KeyCode::Tab);
    }
    typed(&mut app, "Hiram");
    let before = app.in_flight;
    // Enter asks the journal, and nothing else: the network is the sender's business.
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::Journal(JournalEffect::LogContact(request))] = &effects[..] else {
        panic!("{effects:?}")
    };
    assert_eq!(request.folder_id, MONTH);
    assert_eq!(request.callsign, "K9XYZ");
    assert_eq!(request.frequency, 14.074);
    assert_eq!(request.mode, "SSB");
    assert_eq!(request.rst_sent.as_deref(), Some("59"));
    assert_eq!(request.name.as_deref(), Some("Hiram"));
    assert_eq!(
        request.time_on, NOW,
        "time-on is the moment of Enter, in UTC"
    );
    assert_eq!(
        form(&app).value(Field::Callsign),
        "k9xyz",
        "not cleared before the commit"
    );
    assert!(journal.run(&mut app, effects).is_empty());

    // Committed: the form is cleared at once, link or no link.
    let f = form(&app);
    assert_eq!(f.value(Field::Callsign), "");
    assert_eq!(f.value(Field::Name), "");
    assert_eq!(f.focus, Field::Callsign);
    assert_eq!(f.value(Field::Frequency), "14.074", "frequency stays");
    assert_eq!(
        f.value(Field::Mode),
        "SSB",
        "mode stays, as it will be stored"
    );
    assert_eq!(f.value(Field::RstSent), "59");
    assert_eq!(app.in_flight, before, "nothing was sent from here");
    assert_eq!(tone(&app), Some(Tone::Success));
    let text = status(&app);
    assert!(text.contains("logged K9XYZ 20m SSB at 14:05 UTC"), "{text}");
    // Online: it goes at once, so the message says nothing of waiting.
    assert!(!text.contains("waits"), "{text}");
    // The contact shows among the folder's, newest first, marked as waiting.
    let id = journal.made[0].id.clone();
    assert_eq!(app.contacts.items[0].id, id);
    assert_eq!(app.contacts.items[0].callsign, "K9XYZ");
    assert_eq!(app.contacts.marks.get(&id), Some(&Mark::Waiting));
    assert_eq!(app.contacts.items.len(), 4);
    assert_eq!(app.outbox.counts.waiting, 1);
    assert_eq!(
        app.me.as_ref().unwrap().native_qso_count,
        12,
        "not stored yet"
    );

    // The sender stored it: the same row, now the service's contact.
    update(
        &mut app,
        Action::Sender(SenderEvent::Sent(vec![sent(
            journal.made[0].clone(),
            "qso_new",
        )])),
    );
    update(
        &mut app,
        Action::Sender(SenderEvent::Counts(Default::default())),
    );
    assert_eq!(app.contacts.items[0].id, "qso_new");
    assert!(app.contacts.marks.is_empty());
    assert_eq!(app.contacts.items.len(), 4);
    assert_eq!(app.me.as_ref().unwrap().native_qso_count, 13);
    assert_eq!(app.contacts.folder.as_ref().unwrap().contact_count, 4);
    assert!(app.outbox.entries.is_empty());
    assert_eq!(app.outbox.counts.waiting, 0);

    press(&mut app, KeyCode::Esc);
    assert!(app.dialog.is_none());
    // The next form keeps frequency and mode of the last contact logged.
    alt(&mut app, 'n');
    assert_eq!(form(&app).value(Field::Frequency), "14.074");
}

#[test]
fn contacts_typed_with_no_link_all_wait_and_none_replaces_another() {
    let mut app = month_open();
    let mut journal = FakeJournal::default();
    update(&mut app, Action::FoldersLoaded(Err(offline())));
    assert_eq!(app.connection, Connection::Offline);
    alt(&mut app, 'n');
    for call in ["K2OFF", "K3OFF", "K4OFF"] {
        typed(&mut app, call);
        journal.press(&mut app, KeyCode::Enter);
        assert_eq!(form(&app).value(Field::Callsign), "");
    }
    assert_eq!(app.outbox.counts.waiting, 3);
    assert!(
        status(&app).contains("logged K4OFF 20m FT8 at 14:05 UTC; it waits in the journal"),
        "{}",
        status(&app)
    );
    let requests: Vec<String> = journal
        .made
        .iter()
        .map(|e| match &e.request {
            EntryRequest::Contact(c) => c.callsign.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(requests, ["K2OFF", "K3OFF", "K4OFF"]);
    let waiting = app
        .contacts
        .items
        .iter()
        .filter(|c| app.contacts.marks.get(&c.id) == Some(&Mark::Waiting))
        .count();
    assert_eq!(waiting, 3);
    // They are on disk, but wait to go out: q says so, y quits.
    press(&mut app, KeyCode::Esc);
    alt(&mut app, 'q');
    assert!(!app.quit);
    press(&mut app, KeyCode::Char('y'));
    assert!(app.quit);
}

#[test]
fn a_typed_time_is_used_instead_of_now() {
    let mut app = month_open();
    alt(&mut app, 'n');
    typed(&mut app, "W2AB");
    press(&mut app, KeyCode::BackTab);
    typed(&mut app, "1350");
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::Journal(JournalEffect::LogContact(request))] = &effects[..] else {
        panic!("{effects:?}")
    };
    assert_eq!(request.time_on, "2026-11-22T13:50:00Z");
}

#[test]
fn a_time_later_than_now_is_yesterday_and_a_future_time_is_refused() {
    let mut app = month_open();
    let mut journal = FakeJournal::default();
    alt(&mut app, 'n');
    typed(&mut app, "W2AB");
    press(&mut app, KeyCode::BackTab);
    // From paper, after midnight: 23:50 is last night's.
    typed(&mut app, "23:50");
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::Journal(JournalEffect::LogContact(request))] = &effects[..] else {
        panic!("{effects:?}")
    };
    assert_eq!(request.time_on, "2026-11-21T23:50:00Z");
    journal.run(&mut app, effects);
    assert!(
        status(&app).contains("logged W2AB 20m FT8 at 23:50 UTC"),
        "{}",
        status(&app)
    );
    // A whole time still to come is refused, and the form keeps it.
    typed(&mut app, "W3AB");
    press(&mut app, KeyCode::BackTab);
    typed(&mut app, "2026-11-22T15:00:00Z");
    assert!(press(&mut app, KeyCode::Enter).is_empty());
    assert_eq!(tone(&app), Some(Tone::Error));
    assert!(
        status(&app).contains("is in the future"),
        "{}",
        status(&app)
    );
    assert_eq!(form(&app).focus, Field::Time);
    assert_eq!(form(&app).value(Field::Callsign), "W3AB");
    assert_eq!(journal.made.len(), 1);
}

#[test]
fn a_journal_failure_keeps_the_form_and_says_why() {
    let mut app = month_open();
    alt(&mut app, 'n');
    typed(&mut app, "K9XYZ");
    press(&mut app, KeyCode::Enter);
    update(
        &mut app,
        Action::Journal(JournalAnswer::Logged {
            result: Err("disk full".into()),
            made: None,
        }),
    );
    assert_eq!(
        form(&app).value(Field::Callsign),
        "K9XYZ",
        "nothing is lost"
    );
    assert_eq!(tone(&app), Some(Tone::Error));
    assert!(
        status(&app).contains("not logged, the form keeps it"),
        "{}",
        status(&app)
    );
    assert!(status(&app).contains("disk full"), "{}", status(&app));
    assert_eq!(app.outbox.counts.waiting, 0);
}

#[test]
fn an_ended_activation_asks_before_logging_into_it() {
    let mut app = loaded();
    let mut journal = FakeJournal::default();
    open(&mut app, "W1AW@K-0001-20261115");
    alt(&mut app, 'n');
    assert!(
        status(&app).contains("K-0001 has ended"),
        "{}",
        status(&app)
    );
    typed(&mut app, "K5END");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "7.074");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "cw");
    assert!(press(&mut app, KeyCode::Enter).is_empty());
    let Some(Dialog::Prompt(Prompt::Ended { label, .. })) = &app.dialog else {
        panic!("{:?}", app.dialog)
    };
    assert_eq!(label, "K-0001");
    // Any other key: back to the form, nothing logged.
    assert!(alt(&mut app, 'n').is_empty());
    assert_eq!(form(&app).value(Field::Callsign), "K5END");
    assert!(
        status(&app).contains("not logged into K-0001"),
        "{}",
        status(&app)
    );
    assert!(press(&mut app, KeyCode::Enter).is_empty(), "asks again");
    let effects = journal.press(&mut app, KeyCode::Char('y'));
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(journal.made.len(), 1);
    assert_eq!(form(&app).value(Field::Callsign), "");
    // Once said yes to, the next contact into it goes without asking.
    typed(&mut app, "K6END");
    journal.press(&mut app, KeyCode::Enter);
    assert_eq!(journal.made.len(), 2);
    assert!(matches!(app.dialog, Some(Dialog::Entry)));
}

#[test]
fn a_duplicate_is_flagged_while_typing_and_can_still_be_logged() {
    let mut app = month_open();
    alt(&mut app, 'n');
    typed(&mut app, "K1AB");
    assert_eq!(form(&app).duplicate, None);
    typed(&mut app, "c");
    let warning = form(&app).duplicate.clone().expect("a duplicate warning");
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
    assert_eq!(form(&app).duplicate, None);
    for _ in 0..5 {
        press(&mut app, KeyCode::Backspace);
    }
    typed(&mut app, "14.074");
    assert!(form(&app).duplicate.is_some());
    // Yesterday's G4ABC on 15m is no duplicate of today's.
    let effects = press(&mut app, KeyCode::Enter);
    assert!(matches!(
        &effects[..],
        [Effect::Journal(JournalEffect::LogContact(_))]
    ));
    // A waiting contact counts as much as a stored one.
    let mut journal = FakeJournal::default();
    journal.run(&mut app, effects);
    typed(&mut app, "K7NEW");
    assert_eq!(form(&app).duplicate, None);
    journal.press(&mut app, KeyCode::Enter);
    typed(&mut app, "K7NEW");
    let warning = form(&app)
        .duplicate
        .clone()
        .expect("a duplicate of the waiting one");
    assert!(
        warning.contains("K7NEW 20m FT8 logged today at 14:05 UTC"),
        "{warning}"
    );
}

#[test]
fn bad_input_gets_a_message_and_nothing_is_sent() {
    let mut app = month_open();
    alt(&mut app, 'n');
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
    assert_eq!(form(&app).band, Err("not in an amateur band".to_owned()));
}

#[test]
fn n_needs_a_folder_that_holds_contacts() {
    let mut app = loaded();
    alt(&mut app, 'n');
    assert!(app.dialog.is_none());
    assert!(
        status(&app).contains("open a folder first"),
        "{}",
        status(&app)
    );
    open(&mut app, "POTA");
    alt(&mut app, 'n');
    assert!(app.dialog.is_none());
    assert!(
        status(&app).contains("POTA is a category folder"),
        "{}",
        status(&app)
    );
    // m asks which of this month's logs: m the own one, p d r a program's hunting log.
    assert!(alt(&mut app, 'm').is_empty());
    assert!(matches!(app.dialog, Some(Dialog::Prompt(Prompt::Month))));
    let effects = press(&mut app, KeyCode::Char('m'));
    assert_eq!(
        effects,
        [Effect::Journal(JournalEffect::LogMonthly {
            month: "2026-11".into(),
            program: None,
        })]
    );
    alt(&mut app, 'm');
    let effects = press(&mut app, KeyCode::Char('p'));
    assert_eq!(
        effects,
        [Effect::Journal(JournalEffect::LogMonthly {
            month: "2026-11".into(),
            program: Some(svc::model::Program::Pota),
        })]
    );
    alt(&mut app, 'm');
    assert!(press(&mut app, KeyCode::Esc).is_empty());
    assert!(app.dialog.is_none());
}

#[test]
fn delete_asks_first_and_shows_the_tier_error_plainly() {
    let mut app = month_open();
    alt(&mut app, 'd');
    assert!(app.dialog.is_none(), "d works in the contacts pane");
    press(&mut app, KeyCode::BackTab);
    alt(&mut app, 'd');
    assert!(
        matches!(&app.dialog, Some(Dialog::Prompt(Prompt::Delete { id, .. })) if id == "qso_a")
    );
    assert!(alt(&mut app, 'n').is_empty());
    assert!(app.dialog.is_none());
    assert_eq!(app.contacts.items.len(), 3);
    alt(&mut app, 'd');
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

    alt(&mut app, 'd');
    press(&mut app, KeyCode::Char('y'));
    update(
        &mut app,
        Action::ContactDeleted {
            id: "qso_a".into(),
            result: Ok(Deleted {
                id: "qso_a".into(),
                success: true,
                replayed: false,
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
    alt(&mut app, 'a');
    let Some(Dialog::Activation(form)) = &app.dialog else {
        panic!("no activation form")
    };
    assert_eq!(
        form.value(svc::tui::components::activation::ActivationField::Callsign),
        "W1AW"
    );
    assert_eq!(
        form.value(svc::tui::components::activation::ActivationField::Program),
        "pota"
    );
    typed(&mut app, "us-5678");
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::Journal(JournalEffect::LogActivation(request))] = &effects[..] else {
        panic!("{effects:?}")
    };
    assert_eq!(request.location_reference, "US-5678");
    assert_eq!(request.callsign, "W1AW");
    assert_eq!(request.program_id.as_deref(), Some("pota"));
    assert_eq!(
        request.start_time.as_deref(),
        Some(NOW),
        "it starts when Enter is pressed, whenever the service hears of it"
    );
    let mut journal = FakeJournal::default();
    let effects = journal.run(&mut app, effects);
    let local = journal.made[0].local_folder_id.clone().unwrap();
    assert!(local.starts_with("loc_"), "{local}");
    assert!(app.dialog.is_none());
    assert!(
        status(&app).contains("activation US-5678 started"),
        "{}",
        status(&app)
    );
    // Open in Contacts at once, counted from the journal alone: nothing to ask the service.
    assert_eq!(app.contacts.folder.as_ref().unwrap().id, local);
    assert_eq!(app.folders.open.as_deref(), Some(local.as_str()));
    assert!(effects.contains(&Effect::LoadActivationContacts {
        folder_id: local.clone()
    }));
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::LoadContacts { folder_id, .. } if *folder_id == local))
    );
    // The new park's name is asked for, once.
    assert!(effects.contains(&Effect::NameParks(vec!["US-5678".into()])));
    assert_eq!(effects.len(), 4, "{effects:?}");
    assert_eq!(app.outbox.counts.waiting, 1);
    assert!(app.activations.items.iter().any(|a| a.id == local));

    // End the running one at US-1234, after y.
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Activations);
    assert_eq!(app.activations.selected().unwrap().id, PARK);
    alt(&mut app, 'e');
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
    assert!(!app.activations.selected().unwrap().in_progress());
    alt(&mut app, 'e');
    assert!(app.dialog.is_none());
    assert!(status(&app).contains("has ended already"));
}

#[test]
fn an_activation_made_here_is_counted_again_when_the_service_names_it_first() {
    // The count of an activation started here is asked of the journal by its local id; when
    // the sender makes it on the service before that answer comes, the answer names an id
    // the pane no longer has. The count must then be asked again by the service's id, not
    // left loading for ever.
    let mut app = loaded();
    alt(&mut app, 'a');
    typed(&mut app, "us-5678");
    let effects = press(&mut app, KeyCode::Enter);
    let mut journal = FakeJournal::default();
    let effects = journal.run(&mut app, effects);
    let local = journal.made[0].local_folder_id.clone().unwrap();
    assert!(effects.contains(&Effect::LoadActivationContacts {
        folder_id: local.clone()
    }));
    let real = "fld_cccccccccccccccc";
    let made = activation(real, "US-5678", NOW, None, 0);
    let effects = update(
        &mut app,
        Action::Sender(SenderEvent::FolderResolved {
            local_id: local.clone(),
            folder: Box::new(made),
        }),
    );
    assert!(
        effects.contains(&Effect::LoadActivationContacts {
            folder_id: real.into()
        }),
        "{effects:?}"
    );
    // The journal's late answer for the local id changes nothing; the service's counts.
    update(
        &mut app,
        Action::ActivationContactsLoaded {
            folder_id: local,
            source: Source::Copy,
            result: Ok(vec![]),
        },
    );
    assert_eq!(app.activations.stats[real].load, Load::Loading);
    update(
        &mut app,
        Action::ActivationContactsLoaded {
            folder_id: real.into(),
            source: Source::Service,
            result: Ok(vec![]),
        },
    );
    assert_eq!(app.activations.stats[real].load, Load::Loaded);
}

#[test]
fn the_activation_form_gets_the_callsign_when_the_account_comes_in() {
    let mut app = fresh(true);
    alt(&mut app, 'a');
    update(&mut app, Action::WhoamiLoaded(Ok(whoami(0))));
    let Some(Dialog::Activation(form)) = &app.dialog else {
        panic!("no activation form")
    };
    assert_eq!(
        form.value(svc::tui::components::activation::ActivationField::Callsign),
        "W1AW"
    );
}

#[test]
fn the_valid_count_is_unique_call_band_mode_per_utc_day() {
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
            source: Source::Service,
            result: Ok(contacts.clone()),
        },
    );
    // Three on the start day, the day the clock is on; the one past midnight counts for the
    // next day.
    let meter = |app: &svc::tui::App| app.activations.meter(PARK).unwrap();
    assert_eq!(meter(&app).today, 3);
    assert_eq!(meter(&app).total, 4);
    // A contact logged into the activation counts at once.
    let effects = press(&mut app, KeyCode::Tab);
    assert!(effects.is_empty());
    press(&mut app, KeyCode::Enter);
    alt(&mut app, 'n');
    typed(&mut app, "K4CC");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "14.285");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "SSB");
    let mut journal = FakeJournal::default();
    journal.press(&mut app, KeyCode::Enter);
    assert_eq!(meter(&app).today, 4, "a waiting contact counts at once");
    // A fresh count (from the copy or the service) that does not know it yet still has it.
    update(
        &mut app,
        Action::ActivationContactsLoaded {
            folder_id: PARK.into(),
            source: Source::Copy,
            result: Ok(contacts.clone()),
        },
    );
    assert_eq!(meter(&app).today, 4);
    // Once sent, it is counted once.
    update(
        &mut app,
        Action::Sender(SenderEvent::Sent(vec![sent(
            journal.made[0].clone(),
            "qso_6",
        )])),
    );
    assert_eq!(meter(&app).today, 4);
    assert_eq!(meter(&app).total, 5);
    // Asked again (the list reloaded): an answer read before the sender stored it (the copy,
    // or the service itself) comes after the journal stopped calling it waiting; it still
    // counts, until an answer of the service shows it.
    let effects = update(&mut app, Action::ActivationsLoaded(Ok(activations())));
    assert!(effects.contains(&Effect::LoadActivationContacts {
        folder_id: PARK.into()
    }));
    for source in [Source::Copy, Source::Service] {
        update(
            &mut app,
            Action::ActivationContactsLoaded {
                folder_id: PARK.into(),
                source,
                result: Ok(contacts.clone()),
            },
        );
        assert_eq!(meter(&app).today, 4, "{source:?}");
    }
    let mut stored = contacts.clone();
    stored.push(same("qso_6", "K4CC", "20m", "SSB", NOW));
    update(
        &mut app,
        Action::ActivationContactsLoaded {
            folder_id: PARK.into(),
            source: Source::Service,
            result: Ok(stored),
        },
    );
    assert_eq!(meter(&app).today, 4);
    assert!(
        app.activations.stats[PARK].logged.is_empty(),
        "shown by the service"
    );
    // Past midnight the activation in progress starts again toward 10, on the new day.
    update(&mut app, Action::Tick(at("2026-11-23T00:30:00Z")));
    assert_eq!(meter(&app).today, 1);
    assert_eq!(meter(&app).total, 5);
}

#[test]
fn q_and_ctrl_c_quit_but_q_is_a_letter_in_the_form() {
    let mut app = month_open();
    alt(&mut app, 'n');
    typed(&mut app, "q");
    assert!(!app.quit);
    assert_eq!(form(&app).value(Field::Callsign), "q");
    update(
        &mut app,
        Action::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
    );
    assert!(app.quit);
    let mut app = loaded();
    press(&mut app, KeyCode::Char('?'));
    assert!(matches!(app.dialog, Some(Dialog::Help)));
    alt(&mut app, 'x');
    assert!(app.dialog.is_none(), "any key closes the help");
    alt(&mut app, 'q');
    assert!(app.quit);
}

/// With a log open, a callsign typed with the form closed goes into the form, whatever pane
/// has focus: letters are no commands then (Alt and the letter is), and q does not quit.
#[test]
fn a_callsign_typed_with_the_form_closed_starts_a_contact() {
    for focus in [Pane::Folders, Pane::Activations, Pane::Contacts] {
        let mut app = month_open();
        while app.focus != focus {
            press(&mut app, KeyCode::Tab);
        }
        let selected = app.folders.view.selected;
        typed(&mut app, "kq4abc");
        assert!(!app.quit, "{focus:?}");
        assert_eq!(form(&app).value(Field::Callsign), "kq4abc", "{focus:?}");
        assert_eq!(form(&app).focus, Field::Callsign);
        assert_eq!(app.folders.view.selected, selected, "k moved nothing");
        // Esc hides it; typing again goes on where it was.
        press(&mut app, KeyCode::Esc);
        typed(&mut app, "d");
        assert_eq!(form(&app).value(Field::Callsign), "kq4abcd");
    }
    // A digit starts one too, and Alt and a letter is still the command.
    let mut app = month_open();
    typed(&mut app, "9a1a");
    assert_eq!(form(&app).value(Field::Callsign), "9a1a");
    press(&mut app, KeyCode::Esc);
    alt(&mut app, 'm');
    assert!(matches!(app.dialog, Some(Dialog::Prompt(Prompt::Month))));
    // With no log open there is nothing to type into: the plain letters are the commands.
    let mut app = loaded();
    press(&mut app, KeyCode::Char('m'));
    assert!(matches!(app.dialog, Some(Dialog::Prompt(Prompt::Month))));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(app.folders.view.selected, 1);
    press(&mut app, KeyCode::Char('q'));
    assert!(app.quit, "nothing to lose: q quits");
}

#[test]
fn r_refreshes_everything_and_requests_are_counted() {
    let mut app = month_open();
    assert_eq!(app.in_flight, 0);
    let effects = alt(&mut app, 'r');
    assert_eq!(
        effects,
        [
            Effect::LoadWhoami,
            Effect::LoadFolders,
            Effect::LoadActivations,
            Effect::LoadContacts {
                folder_id: MONTH.into(),
                cursor: None,
                generation: 2,
                save_copy: true,
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
            source: Source::Service,
            result: Ok(Page {
                items: many,
                cursor: None,
            }),
        },
    );
    press(&mut app, KeyCode::BackTab);
    for _ in 0..30 {
        press(&mut app, KeyCode::Down);
    }
    let (_, rows) = svc::tui::widgets::list_heights(app.size, app.message_rows(app.size.0));
    assert!(app.contacts.view.offset + rows > 30 && app.contacts.view.offset <= 30);
    update(&mut app, Action::Resize(100, 12));
    let (_, rows) = svc::tui::widgets::list_heights(app.size, app.message_rows(app.size.0));
    assert!(rows < 10, "{rows}");
    assert!(
        app.contacts.view.offset <= 30 && app.contacts.view.offset + rows > 30,
        "offset {} rows {rows}",
        app.contacts.view.offset
    );
}

#[test]
fn x_exports_the_selected_log_or_activation_and_says_where_it_went() {
    let mut app = loaded();
    // A category holds no contacts, and nothing is open yet.
    assert_eq!(alt(&mut app, 'x'), []);
    assert_eq!(tone(&app), Some(Tone::Warning));
    assert!(
        status(&app).contains("select an activation or a log"),
        "{}",
        status(&app)
    );
    press(&mut app, KeyCode::End);
    let effects = alt(&mut app, 'x');
    let [Effect::Export { folder, callsign }] = &effects[..] else {
        panic!("{effects:?}")
    };
    assert_eq!(
        (folder.name.as_str(), callsign.as_str()),
        ("2026-11", "W1AW")
    );
    assert!(
        status(&app).contains("exporting 2026-11"),
        "{}",
        status(&app)
    );
    update(
        &mut app,
        Action::Exported {
            name: "2026-11".into(),
            result: Ok(svc::client::export::Exported {
                path: Some("/home/ham/2026-11.adi".into()),
                contacts: 1,
                records: 1,
                files: Vec::new(),
            }),
        },
    );
    assert_eq!(status(&app), "exported 1 contact to /home/ham/2026-11.adi");
    assert_eq!(tone(&app), Some(Tone::Success));

    // In Activations: the selected activation, as its POTA file.
    while app.focus != Pane::Activations {
        press(&mut app, KeyCode::Tab);
    }
    let effects = alt(&mut app, 'x');
    let [Effect::Export { folder, .. }] = &effects[..] else {
        panic!("{effects:?}")
    };
    assert_eq!(folder.id, PARK);
    update(
        &mut app,
        Action::Exported {
            name: folder.name.clone(),
            result: Err("cannot write /ro/x.adi: read-only file system".into()),
        },
    );
    assert_eq!(tone(&app), Some(Tone::Error));
    assert!(
        status(&app).contains("not exported: cannot write"),
        "{}",
        status(&app)
    );
}

#[test]
fn an_activation_of_today_that_was_ended_is_not_said_to_be_started() {
    let mut app = loaded();
    let ended = activation(
        "fld_endedtodayaaaa",
        "US-4321",
        "2026-11-22T09:00:00Z",
        Some("2026-11-22T11:30:00Z"),
        3,
    );
    update(
        &mut app,
        Action::Journal(JournalAnswer::FolderLogged(Ok((None, ended)))),
    );
    let said = status(&app);
    assert!(said.contains("was ended at 11:30"), "{said}");
    assert!(!said.contains("started"), "{said}");
    assert_eq!(
        app.contacts.folder.as_ref().unwrap().id,
        "fld_endedtodayaaaa"
    );
}

#[test]
fn a_starts_nothing_new_for_a_park_already_activated_today() {
    let mut app = loaded();
    // In progress: opened, not logged again.
    alt(&mut app, 'a');
    typed(&mut app, "us-1234");
    let effects = press(&mut app, KeyCode::Enter);
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::Journal(JournalEffect::LogActivation(_)))),
        "{effects:?}"
    );
    assert!(app.dialog.is_none());
    assert_eq!(app.contacts.folder.as_ref().unwrap().id, PARK);
    assert!(status(&app).contains("is in progress"), "{}", status(&app));
    // Ended earlier today: opened as ended, with a word that it is.
    let ended: Vec<_> = activations()
        .into_iter()
        .map(|mut a| {
            if a.id == PARK {
                a.end_time = Some(at("2026-11-22T13:40:00Z"));
            }
            a
        })
        .collect();
    update(&mut app, Action::ActivationsLoaded(Ok(ended)));
    alt(&mut app, 'a');
    typed(&mut app, "US-1234");
    let effects = press(&mut app, KeyCode::Enter);
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::Journal(JournalEffect::LogActivation(_)))),
        "{effects:?}"
    );
    assert!(
        status(&app).contains("was ended at 13:40"),
        "{}",
        status(&app)
    );
    assert_eq!(app.contacts.folder.as_ref().unwrap().id, PARK);
}

#[test]
fn a_logged_contact_counts_in_the_containers_above_its_folder_too() {
    let mut app = month_open();
    let count = |app: &svc::tui::App, id: &str| {
        app.folders
            .items
            .iter()
            .find(|f| f.id == id)
            .unwrap()
            .contact_count
    };
    let (root, month) = (count(&app, ROOT), count(&app, MONTH));
    // The form keeps the last frequency and mode: the callsign is all there is to type.
    alt(&mut app, 'n');
    typed(&mut app, "K4CC");
    let mut journal = FakeJournal::default();
    journal.press(&mut app, KeyCode::Enter);
    // Counted once the service has it.
    update(
        &mut app,
        Action::Sender(SenderEvent::Sent(vec![sent(
            journal.made[0].clone(),
            "qso_k4cc",
        )])),
    );
    assert_eq!(count(&app, MONTH), month + 1);
    assert_eq!(count(&app, ROOT), root + 1);
    assert_eq!(count(&app, POTA), 0, "not a container above it");
}

#[test]
fn a_park_to_park_contact_with_two_parks_is_two_contacts() {
    let mut app = loaded();
    open(&mut app, "W1AW@US-1234-20261122");
    alt(&mut app, 'n');
    typed(&mut app, "K4CC");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "14.285");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "SSB");
    for _ in 0..6 {
        press(&mut app, KeyCode::Tab);
    }
    assert_eq!(form(&app).focus, Field::Park);
    typed(&mut app, "us-4321, US-5678,us-4321");
    let effects = press(&mut app, KeyCode::Enter);
    let parks: Vec<_> = effects
        .iter()
        .map(|e| match e {
            Effect::Journal(JournalEffect::LogContact(r)) => {
                assert_eq!(r.callsign, "K4CC");
                assert_eq!(r.sig.as_deref(), Some("POTA"));
                r.sig_info.clone().unwrap()
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        parks,
        ["US-4321", "US-5678"],
        "one contact per park, each once"
    );
    // The service's duplicate key: the same station from one of those parks is a duplicate,
    // from another park it is a new park-to-park contact.
    let mut journal = FakeJournal::default();
    journal.run(&mut app, effects);
    typed(&mut app, "K4CC");
    for _ in 0..8 {
        press(&mut app, KeyCode::Tab);
    }
    assert_eq!(form(&app).focus, Field::Park);
    typed(&mut app, "US-9999");
    assert_eq!(form(&app).duplicate, None);
    for _ in 0..7 {
        press(&mut app, KeyCode::Backspace);
    }
    typed(&mut app, "US-9999,us-5678");
    let warning = form(&app).duplicate.clone().expect("a duplicate");
    assert!(warning.contains("K4CC 20m SSB"), "{warning}");
}

#[test]
fn a_park_in_the_own_log_is_refused_with_where_it_goes() {
    let mut app = month_open();
    alt(&mut app, 'n');
    typed(&mut app, "K4CC");
    press(&mut app, KeyCode::BackTab);
    press(&mut app, KeyCode::BackTab);
    assert_eq!(form(&app).focus, Field::Park);
    typed(&mut app, "US-4321");
    assert!(press(&mut app, KeyCode::Enter).is_empty());
    assert_eq!(form(&app).focus, Field::Park);
    assert!(
        status(&app).contains("POTA hunting log"),
        "{}",
        status(&app)
    );
    // A bad park in a POTA log names the field and the shape.
    let mut app = loaded();
    open(&mut app, "W1AW@US-1234-20261122");
    alt(&mut app, 'n');
    typed(&mut app, "K4CC");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "14.285");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "SSB");
    press(&mut app, KeyCode::BackTab);
    press(&mut app, KeyCode::BackTab);
    press(&mut app, KeyCode::BackTab);
    press(&mut app, KeyCode::BackTab);
    typed(&mut app, "US1234");
    assert!(press(&mut app, KeyCode::Enter).is_empty());
    assert!(
        status(&app).contains("not a park reference"),
        "{}",
        status(&app)
    );
}

/// `e` on a stored contact: its grid shows in the form, and the edit names the grid alone of
/// the declared fields, so the stored contact's others stay as they are.
#[test]
fn an_edit_sends_the_grid_change_and_leaves_the_other_fields_alone() {
    use svc::model::fields::Field as Declared;
    let mut app = month_open();
    press(&mut app, KeyCode::BackTab);
    assert_eq!(app.focus, Pane::Contacts);
    // The phone contact: its reports pass the form's checks as stored.
    while app.contacts.selected().unwrap().callsign != "N0XYZ" {
        press(&mut app, KeyCode::Down);
    }
    let id = app.contacts.selected().unwrap().id.clone();
    let stored = app.contacts.items.iter_mut().find(|c| c.id == id).unwrap();
    stored
        .fields
        .set(Declared::Gridsquare, Some("FN31pr".into()));
    stored.fields.set(Declared::TxPwr, Some("5".into()));
    let edit = |app: &mut svc::tui::App, keys: &dyn Fn(&mut svc::tui::App)| {
        alt(app, 'e');
        let Some(Dialog::Edit(edit)) = &app.dialog else {
            panic!("no edit form: {}", status(app))
        };
        let grid = edit.form.value(Field::Grid).to_owned();
        keys(app);
        let effects = press(app, KeyCode::Enter);
        let [Effect::EditContact { request, .. }] = &effects[..] else {
            panic!("{effects:?}")
        };
        (grid, serde_json::to_value(request).unwrap())
    };
    let to_grid = |app: &mut svc::tui::App| {
        while !matches!(&app.dialog, Some(Dialog::Edit(e)) if e.form.focus == Field::Grid) {
            press(app, KeyCode::Tab);
        }
    };

    // Unchanged: the grid is sent as it is, and nothing else of the declared fields.
    let (shown, body) = edit(&mut app, &|_| {});
    assert_eq!(shown, "FN31pr");
    assert_eq!(body["gridsquare"], "FN31pr", "{body}");
    assert!(body.get("txPwr").is_none(), "{body}");
    app.dialog = None;

    // Blanked: the stored grid is cleared (null), the power still not named.
    let (_, body) = edit(&mut app, &|app| {
        to_grid(app);
        update(
            app,
            Action::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)),
        );
    });
    assert!(
        body["gridsquare"].is_null() && body.get("gridsquare").is_some(),
        "{body}"
    );
    assert!(body.get("txPwr").is_none(), "{body}");
    app.dialog = None;

    // A contact that had no grid and still has none is sent no grid at all.
    let stored = app.contacts.items.iter_mut().find(|c| c.id == id).unwrap();
    stored.fields.set(Declared::Gridsquare, None);
    let (shown, body) = edit(&mut app, &|_| {});
    assert_eq!(shown, "");
    assert!(body.get("gridsquare").is_none(), "{body}");
    app.dialog = None;

    // A bad grid is refused in the form, on its field, with the model's message.
    alt(&mut app, 'e');
    to_grid(&mut app);
    typed(&mut app, "fn3");
    assert!(press(&mut app, KeyCode::Enter).is_empty());
    let Some(Dialog::Edit(edit)) = &app.dialog else {
        panic!("the form closed")
    };
    assert_eq!(edit.form.focus, Field::Grid);
    assert_eq!(tone(&app), Some(Tone::Error));
    assert!(
        status(&app).contains("not a Maidenhead locator"),
        "{}",
        status(&app)
    );
}

/// Enter on a form with a fault names the field and why, and leaves the cursor where the
/// operator is typing; the form reopens on the callsign, whatever field was used last.
#[test]
fn a_fault_is_named_where_the_cursor_stays_and_the_form_reopens_on_the_call() {
    let mut app = month_open();
    alt(&mut app, 'n');
    typed(&mut app, "k9xyz");
    press(&mut app, KeyCode::Tab);
    assert_eq!(form(&app).focus, Field::Frequency);
    typed(&mut app, "abc");
    // On to the notes, where Enter is pressed.
    while form(&app).focus != Field::Notes {
        press(&mut app, KeyCode::Tab);
    }
    let effects = press(&mut app, KeyCode::Enter);
    assert!(effects.is_empty(), "nothing is logged: {effects:?}");
    assert_eq!(form(&app).focus, Field::Notes, "the cursor stays");
    assert!(status(&app).starts_with("Freq MHz: "), "{}", status(&app));
    // Closed on the notes, reopened on the callsign, the text kept.
    press(&mut app, KeyCode::Esc);
    alt(&mut app, 'n');
    assert_eq!(form(&app).focus, Field::Callsign);
    assert_eq!(form(&app).value(Field::Callsign), "k9xyz");
}

/// `q` does not drop a half-typed contact nor leave contacts waiting without a word: it asks,
/// `y` quits, any other key stays; with nothing in hand it quits at once, and Ctrl-C always.
#[test]
fn q_asks_before_leaving_work_in_hand() {
    let mut app = month_open();
    alt(&mut app, 'n');
    typed(&mut app, "kq4abc");
    press(&mut app, KeyCode::Esc);
    alt(&mut app, 'q');
    assert!(
        !app.quit,
        "a half-typed contact is not dropped on one letter"
    );
    let Some(Dialog::Prompt(Prompt::Quit { question })) = &app.dialog else {
        panic!("{:?}", app.dialog)
    };
    assert!(question.contains("kq4abc is typed"), "{question}");
    alt(&mut app, 'n');
    assert!(!app.quit && app.dialog.is_none());
    alt(&mut app, 'q');
    press(&mut app, KeyCode::Char('y'));
    assert!(app.quit);

    let mut empty = month_open();
    alt(&mut empty, 'q');
    assert!(empty.quit, "nothing in hand: q quits");

    let mut interrupted = month_open();
    alt(&mut interrupted, 'n');
    typed(&mut interrupted, "k1abc");
    update(
        &mut interrupted,
        Action::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
    );
    assert!(interrupted.quit, "Ctrl-C is meant");
}

/// Alt-W wipes the contact being typed, as in N1MM+: the frequency and mode stay.
#[test]
fn alt_w_wipes_the_contact_being_typed() {
    let mut app = month_open();
    alt(&mut app, 'n');
    typed(&mut app, "k9xyz");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "7.074");
    while form(&app).focus != Field::Notes {
        press(&mut app, KeyCode::Tab);
    }
    typed(&mut app, "a note");
    update(
        &mut app,
        Action::Key(KeyEvent::new(KeyCode::Char('w'), KeyModifiers::ALT)),
    );
    let f = form(&app);
    assert_eq!(f.value(Field::Callsign), "");
    assert_eq!(f.value(Field::Notes), "");
    assert_eq!(f.value(Field::Frequency), "7.074");
    assert_eq!(f.focus, Field::Callsign);
    assert!(status(&app).contains("cleared"), "{}", status(&app));
}

/// The spot list marks the parks worked today in the open log from the contacts it has when
/// it opens, and again when the log's page comes in after (the log read again when the link
/// came back, under load in the CI run of 2026-11-28).
#[test]
fn the_spot_list_marks_what_the_log_shows_when_its_page_comes_after() {
    let mut app = loaded();
    let effects = open(&mut app, "2026-11");
    let Some(Effect::LoadContacts { generation, .. }) = effects.first() else {
        panic!("{effects:?}")
    };
    let generation = *generation;
    update(&mut app, Action::Tick(at("2026-11-22T15:00:00Z")));
    let effects = alt(&mut app, 'S');
    assert!(effects.contains(&Effect::LoadSpots), "{effects:?}");
    let worked = |app: &svc::tui::App| match &app.dialog {
        Some(Dialog::Spots(list)) => list.worked.clone(),
        other => panic!("{other:?}"),
    };
    assert!(worked(&app).is_empty());
    let mut hunted = contact(
        "qso_h",
        MONTH,
        "W1AW",
        14.285,
        "20m",
        "SSB",
        "2026-11-22T12:00:00Z",
    );
    hunted.sig = Some("POTA".into());
    hunted.sig_info = Some("US-0001".into());
    update(
        &mut app,
        Action::ContactsLoaded {
            folder_id: MONTH.into(),
            generation,
            source: Source::Service,
            result: Ok(Page {
                items: vec![hunted],
                cursor: None,
            }),
        },
    );
    assert_eq!(
        worked(&app).into_iter().collect::<Vec<_>>(),
        ["W1AW US-0001"]
    );
}

/// A contact logged again in an activation says `dupe` on its row at once, while it waits to
/// be sent, as the service will say when it stores it.
#[test]
fn a_dupe_says_so_on_its_row_as_soon_as_it_is_logged() {
    let mut app = loaded();
    let mut journal = FakeJournal::default();
    open(&mut app, "W1AW@US-1234-20261122");
    alt(&mut app, 'n');
    for _ in 0..2 {
        typed(&mut app, "K4DD");
        press(&mut app, KeyCode::Tab);
        typed(&mut app, "14.285");
        press(&mut app, KeyCode::Tab);
        typed(&mut app, "SSB");
        journal.press(&mut app, KeyCode::Enter);
    }
    assert_eq!(journal.made.len(), 2, "{}", status(&app));
    let rows: Vec<_> = app
        .contacts
        .items
        .iter()
        .filter(|c| c.callsign == "K4DD")
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    let first = journal.made[0].id.clone();
    let dupes: Vec<_> = rows.iter().filter_map(|c| c.duplicate_of.clone()).collect();
    assert_eq!(dupes, [first], "the second is the dupe of the first");
}
