//! Every pane and dialog drawn at 80×24 on ratatui's TestBackend, against snapshots committed
//! beside this file (`insta`; with CI=true a missing or different snapshot fails).

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use ratatui::style::Color;
use svc::client::journal::{Counts, SenderEvent};
use svc::tui::journal::JournalAnswer;
use svc::tui::ui;
use svc::tui::{Action, App, update};

use super::*;

fn draw(app: &App, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| ui::draw(app, frame)).unwrap();
    terminal
}

fn screen(app: &App) -> String {
    draw(app, 80, 24).backend().to_string()
}

#[test]
fn before_anything_loaded() {
    insta::assert_snapshot!(screen(&fresh(true)));
}

#[test]
fn folders_activations_and_an_open_folder() {
    insta::assert_snapshot!(screen(&month_open()));
}

#[test]
fn contacts_pane_focused_and_filtered() {
    let mut app = month_open();
    press(&mut app, KeyCode::BackTab);
    press(&mut app, KeyCode::Char('/'));
    typed(&mut app, "ft8");
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn a_filter_that_matches_nothing_says_so_in_the_pane() {
    let mut app = month_open();
    press(&mut app, KeyCode::BackTab);
    press(&mut app, KeyCode::Char('/'));
    typed(&mut app, "zzz9");
    press(&mut app, KeyCode::Enter);
    let screen = screen(&app);
    assert!(screen.contains("Nothing matches \"zzz9\""), "{screen}");
}

#[test]
fn a_duplicate_says_so_in_its_row() {
    let mut app = month_open();
    app.contacts.items[0].duplicate_of = Some("qso_c".into());
    let screen = screen(&app);
    let row = screen
        .lines()
        .find(|l| l.contains(&app.contacts.items[0].callsign))
        .unwrap();
    assert!(row.contains("dupe"), "{screen}");
    assert_eq!(screen.matches("dupe").count(), 1, "{screen}");
}

/// A park-to-park contact shows the other station's park in a Park column, which appears
/// when a contact shown has one; on 80 columns the notes still say `dupe`.
#[test]
fn a_park_to_park_contact_shows_its_park() {
    let mut app = month_open();
    app.contacts.items[0].sig = Some("POTA".into());
    app.contacts.items[0].sig_info = Some("US-4321".into());
    app.contacts.items[1].duplicate_of = Some("qso_c".into());
    let screen = screen(&app);
    assert!(screen.contains(" Park "), "{screen}");
    let row = |call: &str| {
        screen
            .lines()
            .find(|l| l.contains(call))
            .unwrap()
            .to_owned()
    };
    let p2p = row(&app.contacts.items[0].callsign);
    assert!(p2p.contains("US-4321"), "{screen}");
    assert!(
        row(&app.contacts.items[1].callsign).contains("dupe"),
        "{screen}"
    );
}

#[test]
fn without_a_park_in_sight_there_is_no_park_column() {
    let plain = screen(&month_open());
    assert!(!plain.contains(" Park "), "{plain}");
}

#[test]
fn activations_pane_focused() {
    let mut app = month_open();
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Down);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn entry_form_with_a_duplicate_warning() {
    let mut app = month_open();
    alt(&mut app, 'n');
    typed(&mut app, "K1ABC");
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn waiting_and_refused_contacts_offline() {
    let mut app = month_open();
    let mut journal = FakeJournal::default();
    update(&mut app, Action::FoldersLoaded(Err(offline())));
    alt(&mut app, 'n');
    for call in ["K2OFF", "K3OFF", "K4OFF"] {
        typed(&mut app, call);
        journal.press(&mut app, KeyCode::Enter);
    }
    press(&mut app, KeyCode::Esc);
    update(
        &mut app,
        Action::Sender(SenderEvent::Refused(vec![refused(
            journal.made[0].clone(),
            "validation_error",
            "the folder is an ended activation of another day",
        )])),
    );
    update(
        &mut app,
        Action::Sender(SenderEvent::Counts(Counts {
            waiting: 2,
            refused: 1,
        })),
    );
    press(&mut app, KeyCode::BackTab);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn a_refused_contact_in_the_fix_form() {
    let mut app = month_open();
    let mut journal = FakeJournal::default();
    alt(&mut app, 'n');
    typed(&mut app, "K2OFF");
    journal.press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Esc);
    update(
        &mut app,
        Action::Sender(SenderEvent::Refused(vec![refused(
            journal.made[0].clone(),
            "qso_cap_reached",
            "the free plan holds 200 native QSOs",
        )])),
    );
    press(&mut app, KeyCode::BackTab);
    press(&mut app, KeyCode::Home);
    press(&mut app, KeyCode::Enter);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn a_key_new_here_with_no_link() {
    let (mut app, _) = App::new(Default::default(), at(NOW), (80, 24));
    update(&mut app, Action::Journal(JournalAnswer::Missing));
    update(&mut app, Action::WhoamiLoaded(Err(offline())));
    update(&mut app, Action::FoldersLoaded(Err(offline())));
    update(&mut app, Action::ActivationsLoaded(Err(offline())));
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn logging_into_an_ended_activation_asks_first() {
    let mut app = loaded();
    open(&mut app, "W1AW@K-0001-20261115");
    alt(&mut app, 'n');
    typed(&mut app, "K5END");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "7.074");
    press(&mut app, KeyCode::Tab);
    typed(&mut app, "cw");
    press(&mut app, KeyCode::Enter);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn activation_form() {
    let mut app = loaded();
    alt(&mut app, 'a');
    typed(&mut app, "us-56");
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn contest_form() {
    let mut app = loaded();
    alt(&mut app, 'c');
    typed(&mut app, "cq-ww-cw");
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Tab);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn delete_confirmation() {
    let mut app = month_open();
    press(&mut app, KeyCode::BackTab);
    press(&mut app, KeyCode::Down);
    alt(&mut app, 'd');
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn end_confirmation() {
    let mut app = loaded();
    press(&mut app, KeyCode::Tab);
    alt(&mut app, 'e');
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn help_screen() {
    let mut app = loaded();
    press(&mut app, KeyCode::Char('?'));
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn a_revoked_key_and_failed_loads() {
    let mut app = fresh(true);
    let revoked = || {
        server_error(
            "key_revoked",
            401,
            "the API key was revoked; generate a new one in the web app and run svc auth login",
        )
    };
    update(&mut app, Action::FoldersLoaded(Err(offline())));
    update(&mut app, Action::ActivationsLoaded(Err(revoked())));
    update(&mut app, Action::WhoamiLoaded(Err(revoked())));
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn a_larger_terminal() {
    let app = month_open();
    insta::assert_snapshot!(draw(&app, 120, 32).backend().to_string());
}

#[test]
fn a_tiny_terminal_draws_without_panicking() {
    let mut app = month_open();
    alt(&mut app, 'n');
    for (w, h) in [(1, 1), (10, 3), (20, 5), (40, 10), (0, 0)] {
        draw(&app, w, h);
    }
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('?'));
    draw(&app, 20, 5);
}

fn counter_cell(app: &App) -> ratatui::buffer::Cell {
    let terminal = draw(app, 80, 24);
    let buffer = terminal.backend().buffer();
    let text: String = (0..80)
        .map(|x| buffer[(x, 23)].symbol().to_owned())
        .collect();
    let x = text.find("QSOs").expect("the counter is on the status bar") as u16;
    buffer[(x, 23)].clone()
}

#[test]
fn the_counter_turns_to_a_warning_from_180() {
    let mut app = loaded();
    update(&mut app, Action::WhoamiLoaded(Ok(whoami(179))));
    assert_ne!(counter_cell(&app).fg, Color::Yellow);
    update(&mut app, Action::WhoamiLoaded(Ok(whoami(180))));
    assert_eq!(counter_cell(&app).fg, Color::Yellow);
    let bar = draw(&app, 80, 24).backend().to_string();
    assert!(bar.contains("QSOs 180/200"), "{bar}");
}

#[test]
fn no_color_draws_with_attributes_only() {
    let mut app = fresh(false);
    update(&mut app, Action::WhoamiLoaded(Ok(whoami(190))));
    update(&mut app, Action::FoldersLoaded(Ok(folders())));
    update(&mut app, Action::ActivationsLoaded(Err(offline())));
    press(&mut app, KeyCode::Char('?'));
    let terminal = draw(&app, 80, 24);
    for cell in terminal.backend().buffer().content() {
        assert_eq!((cell.fg, cell.bg), (Color::Reset, Color::Reset), "{cell:?}");
    }
    // The same screen with colour does use some.
    let mut colored = fresh(true);
    update(&mut colored, Action::WhoamiLoaded(Ok(whoami(190))));
    let terminal = draw(&colored, 80, 24);
    assert!(
        terminal
            .backend()
            .buffer()
            .content()
            .iter()
            .any(|c| c.fg != Color::Reset)
    );
}

#[test]
fn contacts_show_where_they_went_in_external_logbooks() {
    let mut app = loaded();
    let effects = open(&mut app, "2026-11");
    let Some(Effect::LoadContacts { generation, .. }) = effects.first() else {
        panic!("{effects:?}")
    };
    let copy = |state: &str| svc::model::ExternalCopy {
        logbook_id: "lbk_aaaaaaaaaaaaaaaa".into(),
        state: state.into(),
        log_id: None,
    };
    let mut items = Vec::new();
    for (n, (call, states)) in [
        ("K1PUSH", vec!["pushed"]),
        ("K2WAIT", vec!["pushed", "waiting"]),
        ("K3FAIL", vec!["failed", "pushed"]),
        ("K4NONE", vec![]),
    ]
    .into_iter()
    .enumerate()
    {
        let mut c = contact(
            &format!("qso_{n}"),
            MONTH,
            call,
            14.074,
            "20m",
            "FT8",
            &format!("2026-11-22T13:0{n}:00Z"),
        );
        c.external = states.into_iter().map(copy).collect();
        items.push(c);
    }
    update(
        &mut app,
        Action::ContactsLoaded {
            folder_id: MONTH.into(),
            generation: *generation,
            source: Source::Service,
            result: Ok(svc::model::Page {
                items,
                cursor: None,
            }),
        },
    );
    let screen = screen(&app);
    let row = |call: &str| {
        screen
            .lines()
            .find(|l| l.contains(call))
            .unwrap_or_else(|| panic!("no {call} in\n{screen}"))
            .to_owned()
    };
    assert!(row("K1PUSH").contains("│✓ "), "{screen}");
    assert!(row("K2WAIT").contains("│… "), "{screen}");
    assert!(row("K3FAIL").contains("│! "), "{screen}");
    assert!(row("K4NONE").contains("│  "), "{screen}");
}

/// A name with a right-to-left override and a C1 control from the service: drawn without
/// them, the row's other columns in their places.
#[test]
fn a_servers_bidi_and_control_characters_are_not_drawn() {
    let mut app = month_open();
    app.contacts.items[0].name = Some("Ann\u{202e}kcab\u{9b}31m".into());
    let plain = {
        let mut app = month_open();
        app.contacts.items[0].name = Some("Annkcab31m".into());
        screen(&app)
    };
    let drawn = draw(&app, 120, 32);
    let buffer = drawn.backend().buffer();
    assert!(
        buffer
            .content
            .iter()
            .all(|cell| !cell.symbol().chars().any(svc::model::text::obeyed)),
        "a cell still holds one"
    );
    assert_eq!(screen(&app), plain);
}

/// The newest message is shown whole, over as many lines as it takes at this width, and one
/// that is minutes old says so.
#[test]
fn a_long_message_is_shown_whole_and_an_old_one_says_its_age() {
    let mut app = month_open();
    let long = "refused: K2OFF (kept as ✗ in Contacts: Enter fixes it, Alt-D discards it): \
        validation_error: the folder is an ended activation of another day; open the \
        activation of today or this month's log, then fix the contact there: the-last-word";
    update(
        &mut app,
        Action::Sender(SenderEvent::Failed(
            long.trim_start_matches("refused: ").into(),
        )),
    );
    let text = screen(&app);
    let lines: Vec<&str> = text.lines().collect();
    assert!(app.message_rows(80) >= 3, "{text}");
    assert!(lines[22].contains("the-last-word"), "{text}");
    assert!(!text.contains("min ago"), "{text}");
    update(&mut app, Action::Tick(at("2026-11-22T14:08:30Z")));
    let text = screen(&app);
    assert!(text.contains("the-last-word (3 min ago)"), "{text}");
}

/// The worked station's country, as the service filled it: a column of its own where the pane
/// is wide enough, none on 80 columns, where the notes need the room.
#[test]
fn the_country_shows_where_there_is_room_for_it() {
    use svc::model::fields::Field;
    let mut app = month_open();
    for (c, country) in
        app.contacts
            .items
            .iter_mut()
            .zip(["United States", "United States", "England"])
    {
        c.fields.set(Field::Country, Some(country.into()));
    }
    let wide = draw(&app, 120, 32).backend().to_string();
    let header = wide.lines().find(|l| l.contains("UTC")).unwrap();
    assert!(header.contains("Country"), "{wide}");
    let g4 = wide.lines().find(|l| l.contains("G4ABC")).unwrap();
    assert!(g4.contains("England"), "{wide}");
    let narrow = screen(&app);
    assert!(
        !narrow.contains("Country") && !narrow.contains("England"),
        "{narrow}"
    );
}

/// The form while a call is typed: who it is and the known calls holding it, the log's own
/// first, above the hint line.
#[test]
fn the_form_says_who_the_call_is() {
    use svc::model::dxcc::Dxcc;
    use svc::model::scp::MasterScp;
    use svc::tui::callsigns::Callsigns;
    let mut app = month_open();
    update(
        &mut app,
        Action::CallsignsLoaded {
            callsigns: std::sync::Arc::new(Callsigns {
                dxcc: Dxcc::shipped(),
                scp: MasterScp::load("K1ABD\nK1AB\nJK1ABX\n"),
            }),
            warning: None,
        },
    );
    typed(&mut app, "k1ab");
    insta::assert_snapshot!(screen(&app));
}

/// A park's name, once known: beside its reference in Activations where the pane has room,
/// and in the Contacts title of its activation.
#[test]
fn park_names_show_beside_their_references() {
    let mut app = month_open();
    update(
        &mut app,
        Action::ParkNamed {
            reference: "US-1234".into(),
            name: "Test State Park".into(),
        },
    );
    let wide = draw(&app, 120, 32).backend().to_string();
    let row = wide.lines().find(|l| l.contains("US-1234")).unwrap();
    assert!(row.contains("Test State Park"), "{wide}");
    assert!(
        !screen(&app).contains("Test State Park"),
        "{}",
        screen(&app)
    );
    open(&mut app, "W1AW@US-1234-20261122");
    let narrow = screen(&app);
    assert!(
        narrow.contains("Contacts · W1AW@US-1234-20261122 · Test State Park"),
        "{narrow}"
    );
}
