//! WSJT-X in the logbook (`svc --wsjtx`): its Status on the status bar and in the form's
//! who-lines, its logged QSOs logged once into the open log, through the state with datagrams
//! decoded as the runtime decodes them, and through the real `svc` in a pseudo-terminal fed
//! datagrams over loopback UDP. Every datagram is written by the QDataStream writer of
//! svc-wsjtx's tests (from WSJT-X's NetworkMessage.hpp), never by svc's own encoder.

use std::net::UdpSocket;
use std::sync::Arc;
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use svc::model::dxcc::Dxcc;
use svc::model::scp::MasterScp;
use svc::tui::callsigns::Callsigns;
use svc::tui::components::entry::Field;
use svc::tui::components::wsjtx::WsjtxPanel;

use super::state::{form, status};
use super::terminal::Tui;
use super::*;
use crate::cli::listen::highlight::{self, CLEARED, dupe, new_entity};
use crate::cli::listen::qds::{self, Qds};
use crate::cli::{monthly, setup};

pub use crate::cli::listen::{free_udp_port, logged_adif, qso_logged, when_at as when};

/// Status (1) while working `dx` on `hz` in `mode`.
fn status_datagram(hz: u64, mode: &str, dx: &str, transmitting: bool) -> Vec<u8> {
    let mut q = Qds::header(2, 1, "WSJT-X");
    q.put_u64(hz)
        .put_utf8(mode)
        .put_utf8(dx)
        .put_utf8("-12")
        .put_utf8(mode)
        .put_bool(true)
        .put_bool(transmitting)
        .put_bool(false)
        .put_u32(1200)
        .put_u32(1450)
        .put_utf8("W1AW")
        .put_utf8("FN31")
        .put_utf8("");
    q.bytes
}

/// Sends datagrams to the logbook's --wsjtx port, from one socket so they come in order.
pub struct Wsjtx {
    socket: UdpSocket,
    to: String,
}

impl Wsjtx {
    pub fn new(port: u16) -> Wsjtx {
        Wsjtx {
            socket: UdpSocket::bind("127.0.0.1:0").unwrap(),
            to: format!("127.0.0.1:{port}"),
        }
    }

    pub fn send(&self, datagram: &[u8]) {
        self.socket.send_to(datagram, &self.to).unwrap();
    }
}

// ---------------------------------------------------------------------------------------
// The logbook's state

/// What the runtime makes of a datagram.
fn heard(datagram: &[u8]) -> Action {
    Action::Wsjtx(svc::wsjtx::decode(datagram).unwrap())
}

/// The month open (K1ABC worked on 20 m FT8 at 14:01 today), the country file read, and
/// WSJT-X listened for.
fn with_wsjtx() -> App {
    let mut app = month_open();
    app.wsjtx = Some(WsjtxPanel::new("127.0.0.1:2237".parse().unwrap()));
    update(
        &mut app,
        Action::CallsignsLoaded {
            callsigns: Arc::new(Callsigns {
                dxcc: Dxcc::shipped(),
                scp: MasterScp::load("K1ABC\nDL1ABC\n"),
            }),
            warning: None,
        },
    );
    app
}

fn bar(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(120, 24)).unwrap();
    terminal
        .draw(|frame| svc::tui::ui::draw(app, frame))
        .unwrap();
    let screen = terminal.backend().to_string();
    screen.lines().last().unwrap_or_default().to_owned()
}

#[test]
fn status_shows_on_the_bar_and_drives_the_who_lines_never_the_fields() {
    assert!(
        !bar(&month_open()).contains("WSJT-X"),
        "not listened for: not shown"
    );
    let app = &mut with_wsjtx();
    assert!(bar(app).contains("WSJT-X …"), "{}", bar(app));
    alt(app, 'n');
    let (mhz, mode) = (
        form(app).value(Field::Frequency).to_owned(),
        form(app).value(Field::Mode).to_owned(),
    );
    update(
        app,
        heard(&status_datagram(7_074_000, "FT8", "DL1ABC", true)),
    );
    assert!(
        bar(app).contains("WSJT-X 7.074 FT8 → DL1ABC tx"),
        "{}",
        bar(app)
    );
    assert_eq!(
        form(app).who.as_deref(),
        Some("WSJT-X works DL1ABC: Fed. Rep. of Germany · EU · CQ 14 · ITU 28")
    );
    assert_eq!(form(app).duplicate, None);
    // Worked today on 20 m FT8: a duplicate before the QSO ends.
    update(app, heard(&qds::status().bytes));
    assert!(
        bar(app).contains("WSJT-X 14.074 FT8 → K1ABC"),
        "{}",
        bar(app)
    );
    assert!(!bar(app).contains(" tx"), "{}", bar(app));
    let dupe = form(app).duplicate.clone().unwrap_or_default();
    assert!(
        dupe.contains("WSJT-X works K1ABC, logged 20m FT8 today at 14:01"),
        "{dupe}"
    );
    // rigctld's business: WSJT-X writes nothing into the fields.
    assert_eq!(form(app).value(Field::Frequency), mhz);
    assert_eq!(form(app).value(Field::Mode), mode);
    assert_eq!(form(app).value(Field::Callsign), "");
    // What the operator types wins.
    typed(app, "dl1");
    assert_eq!(
        form(app).who.as_deref(),
        Some("Fed. Rep. of Germany · EU · CQ 14 · ITU 28")
    );
    assert_eq!(form(app).duplicate, None);
    for _ in 0..3 {
        press(app, KeyCode::Backspace);
    }
    assert!(
        form(app)
            .who
            .as_deref()
            .unwrap()
            .starts_with("WSJT-X works K1ABC")
    );
    // Quiet for 30 s: lost, and the who-lines let go of its call.
    let later = Timestamp(app.now.millis() + 31_000);
    update(app, Action::Tick(later));
    assert!(bar(app).contains("WSJT-X lost"), "{}", bar(app));
    assert_eq!(form(app).who, None);
    // A heartbeat: back.
    update(app, heard(&qds::heartbeat().bytes));
    assert!(
        bar(app).contains("WSJT-X 14.074 FT8 → K1ABC"),
        "{}",
        bar(app)
    );
}

#[test]
fn a_logged_qso_goes_into_the_open_log_once_and_the_form_keeps_what_is_typed() {
    let mut app = with_wsjtx();
    let mut journal = FakeJournal::default();
    alt(&mut app, 'n');
    typed(&mut app, "n0xyz");
    let at = when(at("2026-11-22T14:04:00Z"));
    let effects = update(&mut app, heard(&qso_logged("g4abc", &at)));
    let [
        Effect::Journal(JournalEffect::LogContactOnce {
            request,
            key,
            month,
            echo,
        }),
    ] = &effects[..]
    else {
        panic!("{effects:?}")
    };
    assert_eq!(request.folder_id, MONTH);
    assert_eq!(request.callsign, "G4ABC");
    assert_eq!(*month, None);
    assert!(!echo);
    assert!(key.starts_with("wsjtx-"), "{key}");
    // The entity goes with it, as with a typed contact.
    assert_eq!(
        request.fields.get(svc::model::Field::Dxcc),
        Some("223"),
        "{request:?}"
    );
    journal.run(&mut app, effects);
    assert_eq!(status(&app), "WSJT-X logged G4ABC 20m FT8 -12/-07");
    assert_eq!(
        form(&app).value(Field::Callsign),
        "n0xyz",
        "the form is the operator's"
    );
    let rows: Vec<&str> = app
        .contacts
        .items
        .iter()
        .map(|c| c.callsign.as_str())
        .collect();
    assert!(rows.contains(&"G4ABC"), "{rows:?}");
    assert_eq!(app.outbox.entries.len(), 1);

    // Reported again, and as ADIF: nothing new; the ADIF alone says nothing.
    let again = update(&mut app, heard(&qso_logged("G4ABC", &at)));
    journal.run(&mut app, again);
    assert_eq!(status(&app), "WSJT-X: G4ABC 20m FT8 already logged");
    app.status = None;
    let adif = update(&mut app, heard(&logged_adif("G4ABC", &at)));
    journal.run(&mut app, adif);
    assert_eq!(status(&app), "");
    assert_eq!(journal.made.len(), 1, "{:?}", journal.made);
    // A program that sends only ADIF: logged from it.
    let adif = update(&mut app, heard(&logged_adif("K9ADF", &at)));
    journal.run(&mut app, adif);
    assert_eq!(status(&app), "WSJT-X logged K9ADF 20m FT8 -12/-07");
    assert_eq!(journal.made.len(), 2);
}

#[test]
fn with_no_log_open_a_logged_qso_goes_into_its_months_log() {
    let mut app = loaded();
    app.wsjtx = Some(WsjtxPanel::new("127.0.0.1:2237".parse().unwrap()));
    let mut journal = FakeJournal::default();
    let at = when(at("2026-11-22T14:04:00Z"));
    let effects = update(&mut app, heard(&qso_logged("G4ABC", &at)));
    let [Effect::Journal(JournalEffect::LogContactOnce { month, .. })] = &effects[..] else {
        panic!("{effects:?}")
    };
    assert_eq!(month.as_deref(), Some("2026-11"));
    journal.run(&mut app, effects);
    let text = status(&app);
    assert!(
        text.starts_with("WSJT-X logged G4ABC 20m FT8 -12/-07 into 2026-11: no log is open"),
        "{text}"
    );
    // The month's log made with no link joins the tree, the contact waits in it.
    let EntryRequest::Contact(logged) = &journal.made[1].request else {
        panic!("{:?}", journal.made)
    };
    assert_eq!(
        app.folders.find(&logged.folder_id).map(|f| f.name.as_str()),
        Some("2026-11")
    );
    // A QSO with a null time on makes no contact: said, nothing logged.
    let mut q = Qds::header(2, 5, "WSJT-X");
    q.put_null_qdatetime()
        .put_utf8("K1ABC")
        .put_utf8("")
        .put_u64(14_074_000)
        .put_utf8("FT8");
    for _ in 0..5 {
        q.put_utf8("");
    }
    q.put_null_qdatetime();
    let effects = update(&mut app, heard(&q.bytes));
    assert!(effects.is_empty(), "{effects:?}");
    assert!(status(&app).contains("no time on"), "{}", status(&app));
}

// ---------------------------------------------------------------------------------------
// svc in a pseudo-terminal

/// `svc --wsjtx 127.0.0.1:PORT` on `cli`'s account with the month's log open, WSJT-X's
/// datagrams ready to send.
fn logbook_hearing(cli: &crate::cli::Cli, args: &[&str]) -> (Tui, Wsjtx) {
    let port = free_udp_port();
    let address = format!("127.0.0.1:{port}");
    let mut all = vec!["--wsjtx", address.as_str()];
    all.extend(args);
    let mut tui = Tui::start(cli, &all, &[]);
    tui.wait_for("WSJT-X …");
    let month = crate::common::this_month().0;
    tui.wait_for(&format!("  {month}  "));
    tui.keys("\x1b[F\r");
    tui.wait_for(&format!("Contacts · {month}"));
    (tui, Wsjtx::new(port))
}

#[test]
fn a_qso_logged_in_wsjtx_is_a_row_at_once_and_stored_once() {
    let (_server, api, cli) = setup("elevated");
    let folder = monthly(&api);
    let (mut tui, wsjtx) = logbook_hearing(&cli, &[]);
    let at = when(Timestamp(Timestamp::now().millis() - 120_000));
    wsjtx.send(&qso_logged("k1abc", &at));
    tui.wait_for("WSJT-X logged K1ABC 20m FT8 -12/-07");
    tui.wait_until("K1ABC's row in Contacts", |s| {
        s.lines()
            .any(|l| l.contains(" K1ABC ") && l.contains("14.0755") && l.contains("-07"))
    });
    // The same QSO again, and as Logged ADIF: already logged, nothing more stored.
    wsjtx.send(&qso_logged("K1ABC", &at));
    tui.wait_for("WSJT-X: K1ABC 20m FT8 already logged");
    wsjtx.send(&logged_adif("K1ABC", &at));
    // Datagrams from one socket come in order: once this shows, the ADIF was acted on.
    wsjtx.send(&status_datagram(14_074_000, "FT8", "W9XYZ", false));
    tui.wait_for("WSJT-X 14.074 FT8 → W9XYZ");
    tui.wait_for("0 waiting");
    tui.wait_for("QSOs 1/200");
    let stored = api.all_contacts(&folder);
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(stored[0]["callsign"], "K1ABC");
    assert_eq!(stored[0]["mode"], "FT8");
    assert_eq!(stored[0]["rstSent"], "-12");
    assert_eq!(stored[0]["rstReceived"], "-07");
    assert_eq!(stored[0]["frequency"], 14.0755);
    // Malformed datagrams are passed over; the logbook goes on hearing.
    wsjtx.send(b"\xad\xbc\xcb\xda\x00\x00\x00\x02\x00\x00\x00\x05\xff");
    wsjtx.send(b"not WSJT-X at all");
    wsjtx.send(&logged_adif("N0ADF", &at));
    tui.wait_for("WSJT-X logged N0ADF 20m FT8 -12/-07");
    tui.wait_for("QSOs 2/200");
    assert_eq!(api.all_contacts(&folder).len(), 2);
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
}

#[test]
fn wsjtxs_status_shows_on_the_status_bar_and_its_call_under_the_form() {
    let (_server, api, cli) = setup("elevated");
    monthly(&api);
    let (mut tui, wsjtx) = logbook_hearing(&cli, &["tui"]);
    wsjtx.send(&qds::status().bytes);
    tui.wait_for("WSJT-X 14.074 FT8 → K1ABC");
    tui.keys("\x1bn");
    tui.wait_for("Log a contact");
    tui.wait_for("WSJT-X works K1ABC: United States · NA · CQ 5 · ITU 8");
    wsjtx.send(&status_datagram(7_074_000, "FT4", "DL1ABC", true));
    tui.wait_for("WSJT-X 7.074 FT4 → DL1ABC tx");
    tui.wait_for("WSJT-X works DL1ABC: Fed. Rep. of Germany");
    let screen = tui.wait_for("Callsign  ");
    assert!(!screen.contains("Callsign  DL1ABC"), "{screen}");
    tui.close_form();
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
}

/// The next ADIF record a --broadcast-adif listener gets, upper-cased.
fn next_record(tracker: &UdpSocket) -> String {
    let mut buffer = [0u8; 4096];
    let (n, _) = tracker
        .recv_from(&mut buffer)
        .expect("a record within 30 s");
    String::from_utf8(buffer[..n].to_vec())
        .unwrap()
        .to_ascii_uppercase()
}

#[test]
fn decodes_are_coloured_in_wsjtx_and_each_contact_logged_is_broadcast() {
    let (_server, api, cli) = setup("elevated");
    monthly(&api);
    // K1ABC worked today on 20 m FT8, in a log the logbook never opens: judged from the copy
    // of the whole log the logbook makes at start.
    let hunting = api.monthly(&crate::common::this_month().0, Some("pota"));
    let stored = api.post("/v1/contacts", crate::common::contact(&hunting, "K1ABC"));
    assert_eq!(stored.status, 201, "{}", stored.body);
    let tracker = UdpSocket::bind("127.0.0.1:0").unwrap();
    tracker
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let to = tracker.local_addr().unwrap().to_string();
    let (mut tui, hearing) = logbook_hearing(&cli, &["--broadcast-adif", &to]);
    let mut wsjtx = highlight::Wsjtx::new(&hearing.to);
    wsjtx.send(&highlight::status(14_074_000));
    for message in [
        "CQ JA1ZZZ PM95",
        "CQ K1ABC FN42",
        "CQ K2XYZ FN20",
        "JA1ZZZ DL1ABC JO62",
    ] {
        wsjtx.send(&highlight::decode(message));
    }
    // JA and DL never worked; K1ABC worked today here; K2XYZ's entity (the USA) on 20 m.
    wsjtx.shows(&[
        ("JA1ZZZ", new_entity()),
        ("DL1ABC", new_entity()),
        ("K1ABC", dupe()),
        ("K2XYZ", CLEARED),
    ]);
    tui.wait_for("WSJT-X 14.074 FT8");

    // JA1ZZZ typed into the logbook: a dupe now, and sent as ADIF with the account's call.
    let today = crate::common::this_month().1[..10].replace('-', "");
    tui.keys("\x1bn");
    tui.wait_for("Log a contact");
    tui.keys("ja1zzz\t14.074\tft8\r");
    tui.wait_for("logged JA1ZZZ 20m FT8");
    wsjtx.shows(&[("JA1ZZZ", dupe()), ("DL1ABC", new_entity())]);
    let typed = next_record(&tracker);
    for field in [
        "<CALL:6>JA1ZZZ".to_owned(),
        "<MODE:3>FT8".to_owned(),
        format!("<QSO_DATE:8>{today}"),
        "<STATION_CALLSIGN:4>W1AW".to_owned(),
    ] {
        assert!(typed.contains(&field), "{field} not in {typed:?}");
    }
    assert_eq!(typed.matches("<EOR>").count(), 1, "one record a datagram");
    tui.close_form();

    // DL1ABC logged in WSJT-X: a dupe too, and sent.
    let at = when(Timestamp::now());
    wsjtx.send(&qso_logged("DL1ABC", &at));
    tui.wait_for("WSJT-X logged DL1ABC 20m FT8");
    wsjtx.shows(&[("DL1ABC", dupe())]);
    let logged = next_record(&tracker);
    for field in [
        "<CALL:6>DL1ABC".to_owned(),
        "<MODE:3>FT8".to_owned(),
        format!("<QSO_DATE:8>{}", at.date),
    ] {
        assert!(logged.contains(&field), "{field} not in {logged:?}");
    }
    assert_eq!(logged.matches("<EOR>").count(), 1, "one record a datagram");
    // Reported again: logged nothing, sent nothing.
    wsjtx.send(&qso_logged("DL1ABC", &at));
    tui.wait_for("WSJT-X: DL1ABC 20m FT8 already logged");
    tracker
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    let mut buffer = [0u8; 4096];
    assert!(
        tracker.recv_from(&mut buffer).is_err(),
        "a duplicate was broadcast"
    );

    // WSJT-X started anew (the same id from another address) is told its colours again.
    let mut restarted = highlight::Wsjtx::new(&hearing.to);
    restarted.send(&highlight::status(14_074_000));
    restarted.send(&highlight::decode("CQ JA1ZZZ PM95"));
    restarted.send(&highlight::decode("CQ VK2ABC QF56"));
    restarted.shows(&[("JA1ZZZ", dupe()), ("VK2ABC", new_entity())]);
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
}

#[test]
fn no_highlight_colours_nothing() {
    let (_server, api, cli) = setup("elevated");
    monthly(&api);
    let (mut tui, hearing) = logbook_hearing(&cli, &["--no-highlight"]);
    let wsjtx = UdpSocket::bind("127.0.0.1:0").unwrap();
    wsjtx
        .send_to(&highlight::decode("CQ JA1ZZZ PM95"), &hearing.to)
        .unwrap();
    wsjtx
        .send_to(&highlight::status(14_074_000), &hearing.to)
        .unwrap();
    // In order from one socket: once the Status shows, the decode was heard.
    tui.wait_for("WSJT-X 14.074 FT8");
    wsjtx
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    let mut buffer = [0u8; 2048];
    assert!(
        wsjtx.recv_from(&mut buffer).is_err(),
        "a datagram came back with --no-highlight"
    );
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
}

#[test]
fn a_wsjtx_port_taken_is_refused_before_the_screen_opens() {
    let (_server, _api, cli) = setup("elevated");
    let taken = UdpSocket::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let mut tui = Tui::start(&cli, &["--wsjtx", &address], &[]);
    assert_eq!(tui.exit_code(), 1);
    let screen = tui.contents();
    assert!(
        screen.contains(&format!(
            "cannot listen for WSJT-X on UDP {address}: the port is taken"
        )),
        "{screen}"
    );
    assert!(screen.contains("GridTracker, JTAlert"), "{screen}");
    assert!(
        screen.contains("pick another port with --wsjtx"),
        "{screen}"
    );
    // Before another command it would do nothing: refused.
    let run = cli.run(&["--wsjtx", "127.0.0.1:2237", "whoami"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("--wsjtx is for the logbook"), "{run:?}");
}
