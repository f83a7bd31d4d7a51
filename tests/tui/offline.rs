//! The logbook with no link, in a pseudo-terminal against the real `svc server start`: a
//! loopback link in front of the server that the test cuts (connections refused), stalls
//! (accepted, never answered) or makes deaf (requests reach the server, answers are lost).
//! The journal is per service address, so the logbook always talks to the same link address
//! while the server behind it stops and starts. The journal lives in a temp dir
//! (`XDG_DATA_HOME`).

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::terminal::Tui;
use crate::cli::{Cli, monthly};
use crate::common::{Api, Db, Server, this_month};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// Every connection is closed at once, as with no route to the service.
    Down,
    /// Connections are accepted and never answered.
    Stalled,
    /// Passed through to the server.
    Up(SocketAddr),
    /// Requests reach the server; its answers are thrown away.
    Deaf(SocketAddr),
}

/// A loopback address standing for the service, whose link the test controls.
struct Link {
    url: String,
    mode: Arc<Mutex<Mode>>,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

fn pipe(mut from: TcpStream, mut to: Option<TcpStream>) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 16384];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            if let Some(to) = &mut to
                && to.write_all(&buf[..n]).is_err()
            {
                break;
            }
        }
        if let Some(to) = to {
            let _ = to.shutdown(Shutdown::Both);
        }
    });
}

impl Link {
    fn new(mode: Mode) -> Link {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let mode = Arc::new(Mutex::new(mode));
        let open: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let (m, o) = (mode.clone(), open.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let now = *m.lock().unwrap();
                let upstream = match now {
                    Mode::Down => {
                        let _ = client.shutdown(Shutdown::Both);
                        continue;
                    }
                    Mode::Stalled => {
                        o.lock().unwrap().push(client);
                        continue;
                    }
                    Mode::Up(addr) | Mode::Deaf(addr) => addr,
                };
                let Ok(server) = TcpStream::connect(upstream) else {
                    continue;
                };
                let answers = (now == Mode::Up(upstream)).then(|| client.try_clone().unwrap());
                pipe(
                    client.try_clone().unwrap(),
                    Some(server.try_clone().unwrap()),
                );
                pipe(server.try_clone().unwrap(), answers);
                o.lock().unwrap().extend([client, server]);
            }
        });
        Link { url, mode, open }
    }

    /// Changes the link; connections open under the old one are cut.
    fn set(&self, mode: Mode) {
        *self.mode.lock().unwrap() = mode;
        for stream in self.open.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

fn addr(server: &Server) -> SocketAddr {
    server.url.strip_prefix("http://").unwrap().parse().unwrap()
}

/// The user's environment for the logbook through `link`, with the journal in a temp dir.
fn cli_through(link: &Link, api: &Api) -> Cli {
    let cli = Cli::new(&link.url);
    cli.set_env("SVC_API_KEY", api.key());
    let data = cli.home.path().join("data");
    cli.set_env("XDG_DATA_HOME", data.to_str().unwrap());
    cli
}

/// Runs the logbook once with the link up, so its journal knows the account and keeps a copy
/// of the folders, and quits.
fn first_run(cli: &Cli) {
    let mut tui = Tui::start(cli, &[], &[]);
    tui.wait_for("online");
    tui.wait_for("QSOs 0/200");
    tui.wait_for("No activations");
    tui.wait_for(&format!("  {}  ", this_month().0));
    // The account's journal is made once whoami answers; the lists are then read again to
    // be kept in it. Nothing in flight: all of it is in the copy.
    tui.wait_until("no requests in flight", |s| {
        s.lines().last().is_some_and(|l| !l.contains(" req"))
    });
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
}

/// Opens the month's folder (the last in the tree) and the entry form.
fn open_month_form(tui: &mut Tui) {
    tui.wait_for(&format!("  {}  ", this_month().0));
    tui.keys("\x1b[F\r");
    tui.wait_until("the month open in Contacts", |s| {
        s.contains(&format!("Contacts · {}", this_month().0))
    });
    tui.keys("\x1bn");
    tui.wait_for("Log a contact");
}

/// Types a callsign and Enter; waits until the form is cleared for the next one.
fn log(tui: &mut Tui, typed: &str, call: &str) {
    tui.keys(typed);
    tui.keys("\r");
    // The status line says `logged CALL`, but a read timing out at that moment may say its
    // failure over it: the row in Contacts and the cleared form are what stay.
    let call_typed = typed.split('\t').next().unwrap();
    tui.wait_until(&format!("{call} in Contacts and the form cleared"), |s| {
        s.lines()
            .any(|l| l.contains(&format!(" {call} ")) && !l.contains("Callsign"))
            && !s.contains(&format!("Callsign  {call_typed}"))
    });
}

fn time_on(c: &Value) -> svc::model::Timestamp {
    svc::model::Timestamp::parse("t", c["timeOn"].as_str().unwrap()).unwrap()
}

#[test]
fn twenty_contacts_logged_with_the_server_stopped_are_stored_once_with_their_times() {
    let server = Server::start();
    let api = server.account("W1AW", "elevated");
    let folder = monthly(&api);
    let link = Link::new(Mode::Up(addr(&server)));
    let cli = cli_through(&link, &api);
    first_run(&cli);

    // The server stops; the logbook starts from its journal's copy.
    let db: Db = server.crash();
    link.set(Mode::Down);
    let mut tui = Tui::start(&cli, &[], &[]);
    tui.wait_for("offline");
    open_month_form(&mut tui);
    let started = svc::model::Timestamp::now();
    let calls: Vec<String> = (1..=20).map(|i| format!("K{i}OFF")).collect();
    for (i, call) in calls.iter().enumerate() {
        let typed = if i == 0 {
            format!("{}\t14.074\tft8", call.to_lowercase())
        } else {
            call.to_lowercase()
        };
        log(&mut tui, &typed, call);
    }
    let ended = svc::model::Timestamp::now();
    tui.wait_for("20 waiting");
    tui.close_form();
    // Quitting says what stays, once the terminal is back.
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
    tui.assert_restored();
    let screen = tui.contents();
    assert!(
        screen.contains("svc: 20 contacts wait in the journal; they go out the next time the logbook runs, or with svc outbox push"),
        "{screen}"
    );

    // The server comes back, on another port behind the same address.
    let server = Server::start_on(db, &[]);
    link.set(Mode::Up(addr(&server)));
    let pushed = cli.run(&["outbox", "push"]);
    assert_eq!(pushed.code, 0, "{pushed:?}");
    let api = server.api(Some(api.key()));
    let stored = api.all_contacts(&folder);
    let mut names: Vec<String> = stored
        .iter()
        .map(|c| c["callsign"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    let mut expected = calls.clone();
    expected.sort();
    assert_eq!(names, expected, "each of the 20 once");
    // Their times are those of the Enter keys, before the server was back; in typing order.
    let mut by_time = stored.clone();
    by_time.sort_by_key(time_on);
    let order: Vec<&str> = by_time
        .iter()
        .map(|c| c["callsign"].as_str().unwrap())
        .collect();
    assert_eq!(order, calls.iter().map(String::as_str).collect::<Vec<_>>());
    for c in &stored {
        let t = time_on(c);
        assert!(
            t >= svc::model::Timestamp(started.millis() - 1000) && t <= ended,
            "{c}"
        );
        assert_eq!(c["frequency"], 14.074);
        assert_eq!(c["mode"], "FT8");
    }
    // Nothing more waits: a second push sends nothing, and stores nothing twice.
    let again = cli.run(&["outbox", "push"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(api.all_contacts(&folder).len(), 20);
}

#[test]
fn a_stalled_link_shows_offline_within_seconds_and_contacts_go_when_it_returns() {
    let server = Server::start();
    let api = server.account("W1AW", "elevated");
    let folder = monthly(&api);
    let link = Link::new(Mode::Up(addr(&server)));
    let cli = cli_through(&link, &api);
    first_run(&cli);

    link.set(Mode::Stalled);
    let started = Instant::now();
    let mut tui = Tui::start(&cli, &[], &[]);
    open_month_form(&mut tui);
    // The copy shows while the reads hang; then the short time-out calls it.
    tui.wait_for("offline");
    let took = started.elapsed();
    // A bound on the old failure (minutes, with `online` on screen), not a timing measure.
    assert!(took < Duration::from_secs(20), "offline after {took:?}");
    log(&mut tui, "k2off\t14.074\tft8", "K2OFF");
    log(&mut tui, "k3off", "K3OFF");
    log(&mut tui, "k4off", "K4OFF");
    tui.keys("K5TYPED");
    tui.wait_for("3 waiting");
    // The link returns while the logbook is open: they go by themselves.
    link.set(Mode::Up(addr(&server)));
    tui.wait_for("0 waiting");
    tui.wait_for("online");
    let stored = api.all_contacts(&folder);
    let mut names: Vec<&str> = stored
        .iter()
        .map(|c| c["callsign"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["K2OFF", "K3OFF", "K4OFF"]);
    // What was being typed meanwhile is in the form, untouched by the sending.
    tui.wait_for("Callsign  K5TYPED");
    tui.close_form();
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
    assert!(!tui.contents().contains("wait in the journal"));
}

#[test]
fn a_qso_wsjtx_logs_with_the_service_down_waits_and_goes_once_it_is_up() {
    use super::wsjtx::{Wsjtx, free_udp_port, logged_adif, qso_logged, when};
    let server = Server::start();
    let api = server.account("W1AW", "elevated");
    let folder = monthly(&api);
    let link = Link::new(Mode::Up(addr(&server)));
    let cli = cli_through(&link, &api);
    first_run(&cli);

    link.set(Mode::Down);
    let port = free_udp_port();
    let address = format!("127.0.0.1:{port}");
    let mut tui = Tui::start(&cli, &["--wsjtx", &address], &[]);
    tui.wait_for("offline");
    tui.wait_for(&format!("  {}  ", this_month().0));
    tui.keys("\x1b[F\r");
    tui.wait_for(&format!("Contacts · {}", this_month().0));
    let wsjtx = Wsjtx::new(port);
    let at = when(svc::model::Timestamp(
        svc::model::Timestamp::now().millis() - 60_000,
    ));
    wsjtx.send(&qso_logged("K1OFF", &at));
    wsjtx.send(&logged_adif("K1OFF", &at));
    tui.wait_for("WSJT-X logged K1OFF 20m FT8 -12/-07; it waits in the journal");
    tui.wait_for("1 waiting");
    tui.wait_until("K1OFF's row marked waiting", |s| {
        s.lines().any(|l| l.contains("↑") && l.contains(" K1OFF "))
    });
    assert!(api.all_contacts(&folder).is_empty());
    // The service is back while the logbook is open: it goes by itself, once.
    link.set(Mode::Up(addr(&server)));
    tui.wait_for("0 waiting");
    tui.wait_for("online");
    let stored = api.all_contacts(&folder);
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(stored[0]["callsign"], "K1OFF");
    // Reported again now the link is up: held in the journal, not sent twice.
    wsjtx.send(&qso_logged("K1OFF", &at));
    tui.wait_for("WSJT-X: K1OFF 20m FT8 already logged");
    assert_eq!(api.all_contacts(&folder).len(), 1);
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
}

#[test]
fn sigkill_after_enter_loses_nothing_and_stores_nothing_twice() {
    let server = Server::start();
    let api = server.account("W1AW", "elevated");
    let folder = monthly(&api);
    let link = Link::new(Mode::Up(addr(&server)));
    let cli = cli_through(&link, &api);
    first_run(&cli);

    let mut tui = Tui::start(&cli, &[], &[]);
    open_month_form(&mut tui);
    // The service stores what it gets, and its answers never come back.
    link.set(Mode::Deaf(addr(&server)));
    log(&mut tui, "k9kil\t7.074\tcw", "K9KIL");
    tui.wait_for("1 waiting");
    let deadline = Instant::now() + Duration::from_secs(60);
    while api.all_contacts(&folder).is_empty() {
        assert!(Instant::now() < deadline, "the sender never sent it");
        std::thread::sleep(Duration::from_millis(50));
    }
    tui.kill();

    link.set(Mode::Up(addr(&server)));
    let pushed = cli.run(&["outbox", "push"]);
    assert_eq!(pushed.code, 0, "{pushed:?}");
    let stored = api.all_contacts(&folder);
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(stored[0]["callsign"], "K9KIL");
    assert_eq!(stored[0]["mode"], "CW");
    // The killed sender's hold on the entry ended with its process: the push sent it again
    // under the same key, and the service answered with the contact it had stored.
    let listed = cli.run(&["outbox", "list", "--json"]);
    assert_eq!(listed.code, 0, "{listed:?}");
    let items: Value = serde_json::from_str(&listed.stdout).unwrap();
    assert_eq!(items["items"].as_array().unwrap().len(), 0, "{listed:?}");
}

#[test]
fn a_cold_start_with_no_link_logs_into_a_new_activation_made_when_the_link_returns() {
    let server = Server::start();
    let api = server.account("W1AW", "elevated");
    monthly(&api);
    let link = Link::new(Mode::Up(addr(&server)));
    let cli = cli_through(&link, &api);
    first_run(&cli);

    link.set(Mode::Down);
    let mut tui = Tui::start(&cli, &[], &[]);
    // The copy of the account, at once.
    tui.wait_for("W1AW · free · elevated");
    tui.wait_for("offline");
    let before = svc::model::Timestamp::now();
    tui.keys("\x1ba");
    tui.wait_for("Start an activation");
    tui.keys("us-4567\r");
    tui.wait_for("activation US-4567 started");
    tui.keys("\x1bn");
    tui.wait_for("Log a contact → W1AW@US-4567-");
    log(&mut tui, "k2aa\t14.285\tssb", "K2AA");
    log(&mut tui, "k3bb", "K3BB");
    tui.wait_for("2/10 valid");
    tui.wait_for("3 waiting");

    link.set(Mode::Up(addr(&server)));
    tui.wait_for("0 waiting");
    let activations = api.get("/v1/activations").body["items"].clone();
    let made = activations
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["locationReference"] == "US-4567")
        .unwrap_or_else(|| panic!("{activations}"))
        .clone();
    assert_eq!(made["callsign"], "W1AW");
    let start = svc::model::Timestamp::parse("t", made["startTime"].as_str().unwrap()).unwrap();
    assert!(start.millis() >= before.millis() - 1000, "{made}");
    let stored = api.all_contacts(made["id"].as_str().unwrap());
    let mut names: Vec<&str> = stored
        .iter()
        .map(|c| c["callsign"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["K2AA", "K3BB"], "in the activation made for them");
    assert!(stored.iter().all(|c| c["mySig"] == "POTA"), "{stored:?}");
    tui.close_form();
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
}

#[test]
fn a_key_new_here_with_no_link_says_why_nothing_can_be_logged() {
    let link = Link::new(Mode::Down);
    let cli = Cli::new(&link.url);
    cli.set_env("SVC_API_KEY", "svc_live_ABCDEFGHIJKLMNOPQRSTUVWX");
    let data = cli.home.path().join("data");
    cli.set_env("XDG_DATA_HOME", data.to_str().unwrap());
    let mut tui = Tui::start(&cli, &[], &[]);
    tui.wait_for("this key is new on this computer");
    tui.wait_for("offline");
    tui.keys("\x1bn");
    tui.wait_for("nothing can be logged yet");
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
    // No journal was made for an account nobody named.
    let journals = std::fs::read_dir(data.join("svc").join("journal"))
        .map(|d| {
            d.flatten()
                .filter(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    name.ends_with(".db") && name != "index.db"
                })
                .count()
        })
        .unwrap_or(0);
    assert_eq!(journals, 0);
}

/// The copy is the log: everything the service stored while the logbook ran shows after a
/// restart with no link (the activation reopened, its contacts, the POTA count, the QSO count,
/// duplicate warnings), and a list that was empty shows empty rather than failed.
#[test]
fn a_cold_start_with_no_link_shows_everything_stored_before() {
    let server = Server::start();
    let api = server.account("W1AW", "elevated");
    monthly(&api);
    let link = Link::new(Mode::Up(addr(&server)));
    let cli = cli_through(&link, &api);
    first_run(&cli);

    // No activations yet: with no link that is known, not a failure.
    link.set(Mode::Down);
    let mut tui = Tui::start(&cli, &[], &[]);
    tui.wait_for("offline");
    let screen = tui.wait_for("No activations");
    assert!(!screen.contains("did not load"), "{screen}");
    tui.quit();
    assert_eq!(tui.exit_code(), 0);

    // Online: an activation and three contacts, all stored.
    link.set(Mode::Up(addr(&server)));
    let mut tui = Tui::start(&cli, &[], &[]);
    tui.wait_for("online");
    tui.keys("\x1ba");
    tui.wait_for("Start an activation");
    tui.keys("us-1234\r");
    tui.wait_for("activation US-1234 started");
    // The activation is open: typing a callsign starts the contact.
    log(&mut tui, "k1aa\t14.285\tssb", "K1AA");
    log(&mut tui, "k2bb", "K2BB");
    log(&mut tui, "k3cc", "K3CC");
    tui.wait_for("0 waiting");
    tui.wait_for("QSOs 3/200");
    tui.close_form();
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
    let activations = api.get("/v1/activations").body["items"].clone();
    let name = activations[0]["name"].as_str().unwrap().to_owned();
    assert_eq!(
        api.all_contacts(activations[0]["id"].as_str().unwrap())
            .len(),
        3
    );

    // The server stops; the logbook starts again from its journal alone.
    let _db: Db = server.crash();
    link.set(Mode::Down);
    let mut tui = Tui::start(&cli, &[], &[]);
    tui.wait_for("offline");
    tui.wait_for(&format!("Contacts · {name} · 3"));
    tui.wait_until("the three contacts", |s| {
        ["K1AA", "K2BB", "K3CC"].iter().all(|c| s.contains(c))
    });
    // The count is made from the copy too, in the background.
    let screen = tui.wait_for("3/10");
    assert!(screen.contains("QSOs 3/200"), "{screen}");
    assert!(screen.contains("0 waiting"), "{screen}");
    // A stored call is a duplicate, on the band and mode of the newest contact.
    tui.keys("k2bb");
    tui.wait_for("duplicate: K2BB 20m SSB");
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
}

/// A logbook that was online and idle notices a link that stalls: nothing else asks the
/// service then, so without its own check it would say `online` for as long as it runs.
#[test]
fn an_idle_logbook_shows_a_stalled_link_as_offline_and_back() {
    let server = Server::start();
    let api = server.account("W1AW", "elevated");
    monthly(&api);
    let link = Link::new(Mode::Up(addr(&server)));
    let cli = cli_through(&link, &api);
    first_run(&cli);
    let mut tui = Tui::start(&cli, &[], &[]);
    tui.wait_for("online");
    tui.wait_until("no requests in flight", |s| {
        s.lines().last().is_some_and(|l| !l.contains(" req"))
    });
    link.set(Mode::Stalled);
    tui.wait_for("offline");
    link.set(Mode::Up(addr(&server)));
    tui.wait_for("the service answers again");
    tui.wait_for("online");
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
}
