//! The radio through rigctld: the client against the stand-in (`tests/common/rigctld.rs`) and
//! against a hostile daemon, the logbook's state as readings come in, and the real `svc` in a
//! pseudo-terminal following the stand-in's radio and sending F and M to it.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use svc::client::rig::{Rig, RigAddress, RigCommand, RigError, RigState};
use svc::tui::app::Dialog;
use svc::tui::components::entry::Field;
use svc::tui::components::rig::{RigLink, RigPanel};
use svc::tui::{Action, App, Effect, update};

use super::state::{form, status};
use super::terminal::{Tui, WELL_FORMED_KEY, hanging_service};
use super::*;
use crate::cli::{Cli, monthly, setup};
use crate::common::block_on;
use crate::common::rigctld::Rigctld;

fn rig_at(daemon: &Rigctld) -> Rig {
    Rig::new(RigAddress::parse(&daemon.address()).unwrap())
}

fn state(hz: u64, mode: &str) -> RigState {
    RigState {
        hz,
        mode: mode.into(),
    }
}

// ---------------------------------------------------------------------------------------
// The client

#[test]
fn the_client_reads_and_sets_the_radio_in_either_form_with_or_without_a_vfo_line() {
    let daemon = Rigctld::start(14_074_000, "PKTUSB");
    block_on(async {
        let mut rig = rig_at(&daemon);
        assert_eq!(rig.read().await, Ok(state(14_074_000, "PKTUSB")));
        daemon.vfo_line(true);
        daemon.tune(7_074_000);
        for _ in 0..3 {
            assert_eq!(rig.read().await, Ok(state(7_074_000, "PKTUSB")));
        }
        rig.send(&RigCommand::SetFrequency(10_136_000))
            .await
            .unwrap();
        rig.send(&RigCommand::SetMode("CW".into())).await.unwrap();
        assert_eq!(rig.read().await, Ok(state(10_136_000, "CW")));

        // A daemon with the plain form only: asked again in it, and from then on.
        daemon.plain_only(true);
        let mut plain = rig_at(&daemon);
        for _ in 0..3 {
            assert_eq!(plain.read().await, Ok(state(10_136_000, "CW")));
        }
        plain
            .send(&RigCommand::SetFrequency(14_074_000))
            .await
            .unwrap();
        plain
            .send(&RigCommand::SetMode("USB".into()))
            .await
            .unwrap();
        assert_eq!(plain.read().await, Ok(state(14_074_000, "USB")));
    });
    assert_eq!(
        daemon.sets(),
        ["F 10136000", "M CW 0", "F 14074000", "M USB 0"]
    );
}

#[test]
fn the_client_recovers_from_a_slow_gone_or_switched_off_radio() {
    let daemon = Rigctld::start(14_074_000, "USB");
    block_on(async {
        let mut rig =
            rig_at(&daemon).with_timeouts(Duration::from_millis(500), Duration::from_millis(300));
        assert!(rig.read().await.is_ok());
        daemon.slow(Duration::from_millis(800));
        assert_eq!(rig.read().await, Err(RigError::Timeout));
        // The late answer of the old connection cannot be taken for the next one's.
        daemon.slow(Duration::ZERO);
        daemon.tune(21_074_000);
        assert_eq!(rig.read().await, Ok(state(21_074_000, "USB")));

        daemon.go_down();
        for _ in 0..2 {
            // Closed, or reset when the daemon's kernel throws the request away.
            let gone = rig.read().await.unwrap_err();
            assert!(
                matches!(gone, RigError::Closed | RigError::Io(_)),
                "{gone:?}"
            );
        }
        daemon.come_back();
        assert_eq!(rig.read().await, Ok(state(21_074_000, "USB")));

        daemon.power(false);
        let off = rig.read().await.unwrap_err();
        assert_eq!(off, RigError::Refused(-20));
        assert!(off.to_string().contains("not powered on"), "{off}");
        daemon.power(true);
        assert_eq!(rig.read().await, Ok(state(21_074_000, "USB")));

        let nowhere = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = nowhere.local_addr().unwrap().to_string();
        drop(nowhere);
        let mut gone = Rig::new(RigAddress::parse(&address).unwrap());
        assert!(matches!(gone.read().await, Err(RigError::Connect(_))));
    });
}

/// Hamlib's own rigctld with its dummy radio (`-m 1`), on a free port, `--vfo` or not; `None`
/// after saying why when it is not installed (a failure where SVC_TEST_REQUIRE_RIGCTLD=1, as
/// CI sets it).
fn real_rigctld(vfo: bool) -> Option<(std::process::Child, String)> {
    if !std::path::Path::new("/usr/bin/rigctld").is_file() {
        let why = "Hamlib's rigctld is not installed (Debian's libhamlib-utils)";
        if std::env::var("SVC_TEST_REQUIRE_RIGCTLD").is_ok_and(|v| v == "1") {
            panic!("{why}, and SVC_TEST_REQUIRE_RIGCTLD=1 requires it");
        }
        eprintln!("SKIPPED: {why}; the client is not tried against it");
        return None;
    }
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut command = std::process::Command::new("/usr/bin/rigctld");
    command.args(["-m", "1", "-T", "127.0.0.1", "-t", &port.to_string()]);
    if vfo {
        command.arg("--vfo");
    }
    let child = command
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let address = format!("127.0.0.1:{port}");
    Some((child, address))
}

/// The real rigctld, plain and with `--vfo` (which waits forever for a command without its
/// VFO argument): `\chk_vfo` tells the client which it is, and it reads and tunes both.
#[test]
fn the_client_reads_and_tunes_hamlibs_rigctld_with_and_without_vfo() {
    for vfo in [false, true] {
        let Some((mut daemon, address)) = real_rigctld(vfo) else {
            return;
        };
        block_on(async {
            let mut rig = Rig::new(RigAddress::parse(&address).unwrap());
            // The daemon may take a moment to serve once it listens; a failed read is tried
            // again on a fresh connection, as the logbook does.
            let mut first = rig.read().await;
            for _ in 0..200 {
                if first.is_ok() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
                first = rig.read().await;
            }
            // The dummy radio starts at 145 MHz FM.
            assert_eq!(first, Ok(state(145_000_000, "FM")), "--vfo {vfo}");
            rig.send(&RigCommand::SetFrequency(14_074_000))
                .await
                .unwrap();
            rig.send(&RigCommand::SetMode("PKTUSB".into()))
                .await
                .unwrap();
            for _ in 0..3 {
                assert_eq!(
                    rig.read().await,
                    Ok(state(14_074_000, "PKTUSB")),
                    "--vfo {vfo}"
                );
            }
            // A new connection asks again.
            let mut again = Rig::new(RigAddress::parse(&address).unwrap());
            assert_eq!(again.read().await, Ok(state(14_074_000, "PKTUSB")));
        });
        let _ = daemon.kill();
        let _ = daemon.wait();
    }
}

/// A daemon that answers every line it reads with `reply`.
fn hostile(reply: &'static [u8]) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut buf = [0u8; 256];
                while let Ok(n) = stream.read(&mut buf) {
                    if n == 0 || stream.write_all(reply).is_err() {
                        break;
                    }
                }
            });
        }
    });
    address
}

#[test]
fn a_hostile_daemon_gets_errors_never_a_panic() {
    let long = "9".repeat(10_000) + "\n";
    let long: &'static [u8] = Box::leak(long.into_bytes().into_boxed_slice());
    let endless: &'static [u8] = Box::leak(
        format!("get_freq:\n{}", "VFO: VFOA\n".repeat(100))
            .into_bytes()
            .into_boxed_slice(),
    );
    let replies: [&'static [u8]; 10] = [
        long,
        endless,
        b"\xff\xfe\xfd\n",
        b"RPRT zero\n",
        b"1e400\n",
        b"-7074000\n",
        b"get_freq:\nFrequency: 14074000\n",
        b"14074000\n\x1b[2J\x1b]0;pwned\x07\n",
        b"get_freq:\nFrequency: 14074000\nRPRT 0\nget_mode:\nMode: USB\nPassband: wide\nRPRT 0\n",
        b"",
    ];
    block_on(async {
        for reply in replies {
            let address = hostile(reply);
            let mut rig = Rig::new(RigAddress::parse(&address).unwrap())
                .with_timeouts(Duration::from_millis(500), Duration::from_millis(300));
            let result = rig.read().await;
            let error = result.expect_err("garbage is no reading");
            let text = error.to_string();
            assert!(
                !text.contains('\u{1b}') && !text.contains('\u{7}') && text.len() < 200,
                "{text:?}"
            );
        }
    });
}

// ---------------------------------------------------------------------------------------
// The logbook's state

/// The month open, with a radio at `localhost`.
fn with_rig() -> App {
    let mut app = month_open();
    app.rig = Some(RigPanel::new(RigAddress::parse("localhost").unwrap()));
    app
}

fn read(app: &mut App, hz: u64, mode: &str) -> Vec<Effect> {
    update(app, Action::RigRead(Ok(state(hz, mode))))
}

fn bar(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal
        .draw(|frame| svc::tui::ui::draw(app, frame))
        .unwrap();
    let screen = terminal.backend().to_string();
    screen.lines().last().unwrap_or_default().to_owned()
}

/// Replaces the text of the focused field, as the operator does.
fn type_over(app: &mut App, text: &str) {
    for _ in 0..12 {
        press(app, KeyCode::Backspace);
    }
    typed(app, text);
}

#[test]
fn the_form_follows_the_radio_until_typed_over_and_again_once_logged() {
    let mut app = with_rig();
    let mut journal = FakeJournal::default();
    assert!(bar(&app).contains("rig …"), "{}", bar(&app));
    // The month's newest data mode is FT8: the radio's PKTUSB stands for it.
    read(&mut app, 14_074_000, "PKTUSB");
    assert!(bar(&app).contains("rig 14.074 FT8"), "{}", bar(&app));
    alt(&mut app, 'n');
    assert_eq!(form(&app).value(Field::Frequency), "14.074");
    assert_eq!(form(&app).value(Field::Mode), "FT8");
    read(&mut app, 7_185_000, "LSB");
    assert_eq!(form(&app).value(Field::Frequency), "7.185");
    assert_eq!(form(&app).band, Ok("40m"));
    assert_eq!(form(&app).value(Field::Mode), "SSB");
    assert_eq!(
        form(&app).value(Field::RstSent),
        "59",
        "reports follow the mode"
    );

    // Typed over: the frequency stays, the mode still follows.
    press(&mut app, KeyCode::Tab);
    type_over(&mut app, "7.1905");
    read(&mut app, 7_200_000, "CW");
    assert_eq!(form(&app).value(Field::Frequency), "7.1905");
    assert_eq!(form(&app).value(Field::Mode), "CW");
    assert!(bar(&app).contains("rig 7.200 CW"), "{}", bar(&app));

    press(&mut app, KeyCode::BackTab);
    typed(&mut app, "k1abc");
    journal.press(&mut app, KeyCode::Enter);
    let EntryRequest::Contact(logged) = &journal.made[0].request else {
        panic!("{:?}", journal.made)
    };
    assert_eq!((logged.frequency, logged.mode.as_str()), (7.1905, "CW"));
    // Logged: the next contact's frequency is the radio's again.
    assert_eq!(form(&app).value(Field::Frequency), "7.200");
    read(&mut app, 7_030_000, "CW");
    assert_eq!(form(&app).value(Field::Frequency), "7.030");
}

#[test]
fn pktusb_is_the_data_mode_last_worked() {
    let mut app = with_rig();
    let mut journal = FakeJournal::default();
    read(&mut app, 14_080_000, "PKTUSB");
    alt(&mut app, 'n');
    assert_eq!(form(&app).value(Field::Mode), "FT8");
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Tab);
    type_over(&mut app, "ft4");
    read(&mut app, 14_080_000, "PKTUSB");
    assert_eq!(form(&app).value(Field::Mode), "ft4", "typed over, it stays");
    while form(&app).focus != Field::Callsign {
        press(&mut app, KeyCode::Tab);
    }
    typed(&mut app, "k2aa");
    journal.press(&mut app, KeyCode::Enter);
    assert_eq!(form(&app).value(Field::Mode), "FT4");
    assert!(bar(&app).contains("rig 14.080 FT4"), "{}", bar(&app));
    // Sideband is SSB whatever the data mode.
    read(&mut app, 14_285_000, "USB");
    assert_eq!(form(&app).value(Field::Mode), "SSB");
}

#[test]
fn f_and_m_send_the_forms_frequency_and_mode_and_the_form_follows_again() {
    let mut app = month_open();
    assert!(alt(&mut app, 'F').is_empty());
    assert!(status(&app).contains("--rig HOST:PORT"), "{}", status(&app));
    let mut app = with_rig();
    assert!(alt(&mut app, 'M').is_empty());
    assert!(
        status(&app).contains("type it in the entry form"),
        "{}",
        status(&app)
    );

    read(&mut app, 14_074_000, "USB");
    alt(&mut app, 'n');
    press(&mut app, KeyCode::Tab);
    type_over(&mut app, "7185");
    press(&mut app, KeyCode::Tab);
    type_over(&mut app, "ssb");
    // Alt-F works from the form, where a plain F is text.
    let effects = alt(&mut app, 'F');
    assert_eq!(effects, [Effect::Rig(RigCommand::SetFrequency(7_185_000))]);
    assert!(matches!(app.dialog, Some(Dialog::Entry)));
    press(&mut app, KeyCode::Esc);
    let effects = alt(&mut app, 'F');
    assert_eq!(effects, [Effect::Rig(RigCommand::SetFrequency(7_185_000))]);
    assert!(status(&app).contains("7.185 MHz"), "{}", status(&app));
    // Lower sideband below 10 MHz.
    let effects = alt(&mut app, 'M');
    assert_eq!(effects, [Effect::Rig(RigCommand::SetMode("LSB".into()))]);

    update(
        &mut app,
        Action::RigSent {
            command: RigCommand::SetMode("LSB".into()),
            result: Err("rigctld: command rejected by the radio (RPRT -9)".into()),
        },
    );
    assert!(
        status(&app).contains("did not take LSB"),
        "{}",
        status(&app)
    );
    let entry = app.entry.as_ref().unwrap();
    assert!(entry.typed(Field::Frequency) && entry.typed(Field::Mode));
    update(
        &mut app,
        Action::RigSent {
            command: RigCommand::SetFrequency(7_185_000),
            result: Ok(()),
        },
    );
    assert_eq!(status(&app), "the radio is on 7.185 MHz");
    let entry = app.entry.as_ref().unwrap();
    assert!(
        !entry.typed(Field::Frequency),
        "the radio is where the form says"
    );
    assert!(entry.typed(Field::Mode), "LSB was not taken");
    // Tuned away on the radio: the form follows again.
    read(&mut app, 7_188_000, "USB");
    let entry = app.entry.as_ref().unwrap();
    assert_eq!(entry.value(Field::Frequency), "7.188");
    assert_eq!(entry.value(Field::Mode), "ssb");

    // A data mode goes as PKTUSB, and PKTUSB reads as that mode from then on.
    alt(&mut app, 'n');
    app.entry.as_mut().unwrap().focus = Field::Mode;
    type_over(&mut app, "js8");
    press(&mut app, KeyCode::Esc);
    let effects = alt(&mut app, 'M');
    assert_eq!(effects, [Effect::Rig(RigCommand::SetMode("PKTUSB".into()))]);
    read(&mut app, 7_078_000, "PKTUSB");
    assert!(bar(&app).contains("rig 7.078 JS8"), "{}", bar(&app));
    // A frequency in no band is not sent.
    alt(&mut app, 'n');
    app.entry.as_mut().unwrap().focus = Field::Frequency;
    type_over(&mut app, "27.185");
    press(&mut app, KeyCode::Esc);
    assert!(alt(&mut app, 'F').is_empty());
    assert!(
        status(&app).contains("not in an amateur band"),
        "{}",
        status(&app)
    );
}

#[test]
fn a_lost_radio_is_told_once_and_its_return_too() {
    let mut app = with_rig();
    read(&mut app, 14_074_000, "USB");
    update(
        &mut app,
        Action::RigRead(Err("rigctld closed the connection".into())),
    );
    assert!(bar(&app).contains("rig lost"), "{}", bar(&app));
    assert!(
        status(&app).starts_with("rig lost: rigctld closed the connection at localhost:4532"),
        "{}",
        status(&app)
    );
    assert!(matches!(app.rig.as_ref().unwrap().link, RigLink::Lost(_)));
    // Keys go on as ever, and a second failure is not told again.
    press(&mut app, KeyCode::Char('/'));
    typed(&mut app, "k1");
    press(&mut app, KeyCode::Enter);
    let before = status(&app);
    update(
        &mut app,
        Action::RigRead(Err("cannot connect to rigctld (refused)".into())),
    );
    assert_eq!(status(&app), before);
    read(&mut app, 14_074_000, "USB");
    assert_eq!(status(&app), "rig 14.074 SSB: the radio answers again");
    assert!(bar(&app).contains("rig 14.074 SSB"), "{}", bar(&app));
}

// ---------------------------------------------------------------------------------------
// svc in a pseudo-terminal

/// `svc args` with the month of `api`'s account opened and the entry form shown.
fn logbook_with_form(cli: &Cli, args: &[&str], wait: &str) -> Tui {
    let month = crate::common::this_month().0;
    let mut tui = Tui::start(cli, args, &[]);
    tui.wait_for(wait);
    tui.wait_for(&format!("  {month}  "));
    tui.keys("\x1b[F\r");
    tui.wait_for(&format!("Contacts · {month}"));
    tui.keys("\x1bn");
    tui.wait_for("Log a contact");
    tui
}

/// Backspaces enough to empty a field of the form.
const ERASE: &str = "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f";

#[test]
fn the_form_follows_the_radio_in_a_terminal_until_typed_over() {
    let daemon = Rigctld::start(14_074_000, "PKTUSB");
    daemon.vfo_line(true);
    let (_server, api, cli) = setup("elevated");
    let folder = monthly(&api);
    let rig = daemon.address();
    let mut tui = logbook_with_form(&cli, &["--rig", &rig], "rig 14.074 FT8");
    tui.wait_for("Freq MHz  14.074");
    tui.wait_for("Mode      FT8");
    daemon.tune(7_185_000);
    daemon.set_mode("LSB");
    tui.wait_until("the form on the radio's frequency and mode", |s| {
        s.contains("Freq MHz  7.185") && s.contains("40m") && s.contains("Mode      SSB")
    });
    // Typed over, the frequency stays as typed while the radio moves on.
    tui.keys("\t");
    tui.keys(ERASE);
    tui.keys("7.1905");
    tui.wait_for("Freq MHz  7.1905");
    daemon.tune(7_200_000);
    daemon.set_mode("CW");
    let screen = tui.wait_for("rig 7.200 CW");
    assert!(screen.contains("Freq MHz  7.1905"), "{screen}");
    tui.wait_for("Mode      CW");
    tui.keys("\x1b[Z");
    tui.keys("k1abc\r");
    tui.wait_for("logged K1ABC 40m CW");
    // The next contact follows the radio again.
    tui.wait_for("Freq MHz  7.200 ");
    tui.wait_for("QSOs 1/200");
    let stored = api.all_contacts(&folder);
    assert_eq!(stored[0]["frequency"], 7.1905, "{stored:?}");
    assert_eq!(stored[0]["mode"], "CW");
    tui.close_form();
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
}

#[test]
fn f_and_m_reach_a_plain_form_rigctld() {
    let daemon = Rigctld::start(14_074_000, "USB");
    daemon.plain_only(true);
    daemon.vfo_line(true);
    let (_server, api, cli) = setup("elevated");
    monthly(&api);
    let rig = daemon.address();
    let mut tui = logbook_with_form(&cli, &["tui", "--rig", &rig], "rig 14.074 SSB");
    tui.keys("\t");
    tui.keys(ERASE);
    tui.keys("21.074\t");
    tui.keys(ERASE);
    tui.keys("ft4");
    tui.wait_for("Mode      ft4");
    tui.close_form();
    tui.keys("\x1bF");
    tui.wait_for("the radio is on 21.074 MHz");
    tui.wait_for("rig 21.074 SSB");
    tui.keys("\x1bM");
    tui.wait_for("the radio is in PKTUSB");
    tui.wait_for("rig 21.074 FT4");
    assert_eq!(daemon.sets(), ["F 21074000", "M PKTUSB 0"]);
    assert_eq!(daemon.reading(), (21_074_000, "PKTUSB".to_owned()));
    // Where the radio went is where the form stays: it follows the knob again.
    daemon.tune(21_076_500);
    tui.keys("\x1bn");
    tui.wait_for("Freq MHz  21.0765");
    tui.close_form();
    tui.keys("?");
    tui.wait_for("F  Shift-M        send the form's frequency / mode to the radio");
    tui.keys("\x1bx");
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
}

#[test]
fn rig_lost_when_rigctld_goes_and_back_when_it_returns_typing_all_along() {
    let daemon = Rigctld::start(14_074_000, "USB");
    // A service that answers, so that no message of its own takes the rig's place.
    let (_server, _api, cli) = setup("elevated");
    // From the config file this time.
    let config = cli.config_file();
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, format!(r#"{{"rig": "{}"}}"#, daemon.address())).unwrap();
    let mut tui = Tui::start(&cli, &[], &[]);
    tui.wait_for("rig 14.074 SSB");
    daemon.slow(Duration::from_millis(400));
    tui.keys("/");
    tui.keys("slow");
    tui.wait_for("/slow");
    daemon.go_down();
    tui.wait_for("rig lost: ");
    tui.keys("er");
    tui.wait_for("/slower");
    daemon.slow(Duration::ZERO);
    daemon.tune(3_573_000);
    daemon.come_back();
    tui.wait_for("rig 3.573 SSB");
    tui.wait_for("the radio answers again");
    daemon.power(false);
    tui.wait_for("the radio is not powered on");
    tui.wait_for("rig lost");
    tui.keys("\x03");
    assert_eq!(tui.exit_code(), 0);
    tui.assert_restored();
}

#[test]
fn a_bad_rig_address_is_refused_before_the_screen_opens() {
    let cli = Cli::new(&hanging_service());
    cli.set_env("SVC_API_KEY", WELL_FORMED_KEY);
    let mut tui = Tui::start(&cli, &["--rig", "http://shack:4532"], &[]);
    assert_eq!(tui.exit_code(), 2);
    let screen = tui.contents();
    assert!(screen.contains("--rig: the rig address"), "{screen}");
    assert!(screen.contains("is not a URL"), "{screen}");
    let config = cli.config_file();
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, r#"{"rig": "shack:99999"}"#).unwrap();
    let mut tui = Tui::start(&cli, &["tui"], &[]);
    assert_eq!(tui.exit_code(), 2);
    let screen = tui.contents();
    assert!(
        screen.contains("rig in the config file: the rig port"),
        "{screen}"
    );
    let data = tempfile::tempdir().unwrap();
    let env = [("XDG_DATA_HOME", data.path().to_str().unwrap())];
    let mut tui = Tui::start(&cli, &["demo", "--rig", "shack:0"], &env);
    assert_eq!(tui.exit_code(), 2);
    let screen = tui.contents();
    assert!(
        screen.contains("svc: demo: validation_error: --rig: the rig port"),
        "{screen}"
    );
    assert_eq!(
        std::fs::read_dir(data.path()).unwrap().count(),
        0,
        "the demo made nothing"
    );
    // Before another command it would do nothing: refused, and nothing is sent.
    let run = cli.run(&["--rig", "localhost", "whoami"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("--rig is for the logbook"), "{run:?}");
}
