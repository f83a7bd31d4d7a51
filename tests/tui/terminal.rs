//! The real `svc` binary in a pseudo-terminal (portable-pty), its screen read back through a
//! terminal emulator (vt100), against the real `svc server start` process: keys typed as a
//! person would type them, results checked through the API. No test asserts on timing; the
//! waits only bound how long a test may hang before it fails.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};

use crate::cli::{Cli, monthly, setup};
use crate::common::{contact, this_month};

const ROWS: u16 = 24;
const COLS: u16 = 80;
/// How long a screen may take to show what a test waits for before the test fails.
const PATIENCE: Duration = Duration::from_secs(60);

fn nonzero(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).expect("a terminal size is not zero")
}

/// `svc` running in a pseudo-terminal.
pub struct Tui {
    screen: Arc<Mutex<vt100::Parser>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    master: Box<dyn MasterPty + Send>,
}

/// The terminal modes that matter for giving the terminal back: echo and line editing.
fn line_modes(master: &dyn MasterPty) -> (bool, bool) {
    let fd = master.as_raw_fd().expect("the pty's descriptor");
    // SAFETY: termios is plain data, filled by tcgetattr for a descriptor we own.
    let mut termios: libc::termios = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::tcgetattr(fd, &mut termios) }, 0, "tcgetattr");
    (
        termios.c_lflag & libc::ECHO != 0,
        termios.c_lflag & libc::ICANON != 0,
    )
}

impl Tui {
    /// Starts `svc args` with the user's environment of `cli` (private HOME, the API base
    /// and key it was given) and `extra` variables.
    pub fn start(cli: &Cli, args: &[&str], extra: &[(&str, &str)]) -> Tui {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let std = cli.std_command();
        let mut cmd = CommandBuilder::new(std.get_program());
        cmd.args(args);
        for (k, v) in std.get_envs() {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            }
        }
        // Files the logbook writes (an export) land in the user's private HOME.
        cmd.cwd(cli.home.path());
        cmd.env("TERM", "xterm-256color");
        cmd.env_remove("NO_COLOR");
        for (k, v) in extra {
            cmd.env(k, v);
        }
        let before = line_modes(pty.master.as_ref());
        assert_eq!(before, (true, true), "a fresh pty echoes and edits lines");
        let child = pty.slave.spawn_command(cmd).expect("spawn svc");
        // Only the child holds the terminal's other end now, so its exit ends the output.
        drop(pty.slave);
        let screen = Arc::new(Mutex::new(vt100::Parser::new(
            nonzero(ROWS),
            nonzero(COLS),
            0,
        )));
        let mut reader = pty.master.try_clone_reader().unwrap();
        let feed = screen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                feed.lock().unwrap().process(&buf[..n]);
            }
        });
        let writer = pty.master.take_writer().unwrap();
        Tui {
            screen,
            writer,
            child,
            master: pty.master,
        }
    }

    /// Whether any cell of the screen has a colour of its own.
    pub fn coloured(&self) -> bool {
        let parser = self.screen.lock().unwrap();
        let screen = parser.screen();
        let (rows, cols) = screen.size();
        let (rows, cols) = (rows.get(), cols.get());
        (0..rows).any(|r| {
            (0..cols).any(|c| {
                screen.cell(r, c).is_some_and(|cell| {
                    cell.fgcolor() != vt100::Color::Default
                        || cell.bgcolor() != vt100::Color::Default
                })
            })
        })
    }

    pub fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    /// Waits until the screen shows `text`; returns the screen.
    pub fn wait_for(&self, text: &str) -> String {
        self.wait_until(&format!("the screen to show {text:?}"), |s| {
            s.contains(text)
        })
    }

    pub fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        loop {
            let screen = self.contents();
            if done(&screen) {
                return screen;
            }
            assert!(
                started.elapsed() < PATIENCE,
                "waited {PATIENCE:?} for {what}; the screen shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Types `text` (raw bytes: "\t" is Tab, "\r" Enter, "\x1b[Z" Shift-Tab).
    pub fn keys(&mut self, text: &str) {
        self.writer.write_all(text.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Escape alone, to close the entry form: pauses around it, and the wait for the form
    /// to go, keep it from being read together with the next key (as Alt and that key).
    pub fn close_form(&mut self) -> String {
        std::thread::sleep(Duration::from_millis(100));
        self.keys("\x1b");
        let screen = self.wait_until("the form to close", |s| !s.contains("Log a contact"));
        std::thread::sleep(Duration::from_millis(100));
        screen
    }

    pub fn resize(&self, rows: u16, cols: u16) {
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        self.screen
            .lock()
            .unwrap()
            .set_size(nonzero(rows), nonzero(cols));
    }

    /// Quits with `q`, answering `y` when the logbook asks (contacts wait to go out, or the
    /// form holds text).
    pub fn quit(&mut self) {
        self.keys("\x1bq");
        let started = Instant::now();
        while started.elapsed() < PATIENCE {
            if self.child.try_wait().unwrap().is_some() {
                return;
            }
            if self.contents().contains("Quit?") {
                self.keys("y");
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!(
            "svc neither quit nor asked; the screen shows:\n{}",
            self.contents()
        );
    }

    /// Waits for the process to end; returns its exit code.
    pub fn exit_code(&mut self) -> u32 {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // Let the reader take in the last bytes the process wrote.
                std::thread::sleep(Duration::from_millis(200));
                return status.exit_code();
            }
            assert!(
                started.elapsed() < PATIENCE,
                "svc did not exit; the screen shows:\n{}",
                self.contents()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the process with SIGKILL: no chance to write or clean up anything.
    pub fn kill(&mut self) {
        let pid = self.child.process_id().expect("svc's process id");
        // SAFETY: a plain signal to the child this test started and has not reaped yet.
        assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) }, 0);
        let status = self.child.wait().unwrap();
        assert!(!status.success(), "{status:?}");
    }

    /// Asserts that the terminal is as it was before svc started: the main screen, a visible
    /// cursor, echo and line editing on.
    pub fn assert_restored(&self) {
        let parser = self.screen.lock().unwrap();
        assert!(
            !parser.screen().alternate_screen(),
            "still on the alternate screen"
        );
        assert!(!parser.screen().hide_cursor(), "the cursor is still hidden");
        drop(parser);
        assert_eq!(
            line_modes(self.master.as_ref()),
            (true, true),
            "raw mode was not switched off"
        );
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback server that accepts connections and never answers: a service that hangs.
pub fn hanging_service() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    url
}

pub const WELL_FORMED_KEY: &str = "svc_live_ABCDEFGHIJKLMNOPQRSTUVWX";

fn logs_a_contact_typed_at_the_keyboard() {
    let (_server, api, cli) = setup("elevated");
    let folder = monthly(&api);
    let month = this_month().0;
    let mut tui = Tui::start(&cli, &[], &[]);
    tui.wait_for(&format!("  {month}  "));
    tui.wait_for("QSOs 0/200");
    // Folders have focus: filter to the month, keep the filter, open the match.
    tui.keys("/");
    tui.keys(&month);
    tui.wait_for(&format!("/{month}"));
    tui.keys("\r");
    tui.keys("\r");
    tui.wait_for("No contacts yet");
    tui.keys("\x1bn");
    tui.wait_for("Log a contact");
    // The grid after the name, typed as it comes: the service gets it as hams write it.
    tui.keys("k1abc\t14.074\tft8\t\t\tHiram\tfn31PR\r");
    tui.wait_for("logged K1ABC 20m FT8");
    // The journal's sender stores it in the background; the counter and the journal's
    // count follow.
    let screen = tui.wait_until("the contact stored and nothing waiting", |s| {
        s.contains("QSOs 1/200") && s.contains("0 waiting")
    });
    let stored = api.all_contacts(&folder);
    assert_eq!(stored.len(), 1, "{stored:?}");
    let c = &stored[0];
    assert_eq!(c["callsign"], "K1ABC");
    assert_eq!(c["frequency"], 14.074);
    assert_eq!(c["band"], "20m");
    assert_eq!(c["mode"], "FT8");
    // FT8's report is measured, so none is made up.
    assert!(c["rstSent"].is_null(), "{c}");
    assert!(c["rstReceived"].is_null(), "{c}");
    assert_eq!(c["name"], "Hiram");
    assert_eq!(c["gridsquare"], "FN31pr", "{c}");
    let logged = svc::model::Timestamp::parse("t", c["timeOn"].as_str().unwrap()).unwrap();
    let age = svc::model::Timestamp::now().millis() - logged.millis();
    assert!((0..600_000).contains(&age), "time-on is now: {c}");
    // The form is cleared for the next one, frequency and mode kept, the cursor on callsign.
    assert!(screen.contains("Freq MHz  14.074"), "{screen}");
    assert!(screen.contains("Mode      FT8"), "{screen}");
    assert!(!screen.contains("Callsign  k1abc"), "{screen}");
    assert!(
        screen.contains("Grid      e.g. FN31pr"),
        "the grid goes with the station: {screen}"
    );
    // The same station again: warned while typing, and logged all the same.
    tui.keys("K1ABC");
    tui.wait_for("duplicate: K1ABC 20m FT8");
    tui.keys("\r");
    tui.wait_for("QSOs 2/200");
    assert_eq!(api.all_contacts(&folder).len(), 2);
    let screen = tui.close_form();
    assert!(!screen.contains(&api.key()[9..]), "the key is never shown");
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
    tui.assert_restored();
}

fn starts_an_activation_and_counts_its_contacts() {
    let (_server, api, cli) = setup("elevated");
    let mut tui = Tui::start(&cli, &["tui"], &[]);
    tui.wait_for("QSOs 0/200");
    tui.wait_for("No activations");
    tui.keys("\x1ba");
    tui.wait_for("Start an activation");
    tui.keys("us-1234\r");
    tui.wait_for("activation US-1234 started");
    tui.wait_for("0 waiting");
    let activations = api.get("/v1/activations").body["items"].clone();
    assert_eq!(activations[0]["locationReference"], "US-1234");
    assert_eq!(
        activations[0]["callsign"], "W1AW",
        "the account's callsign by default"
    );
    tui.wait_for("0/10");
    tui.keys("\x1bn");
    tui.wait_for("Log a contact");
    tui.keys("k2aa\t14.285\tssb\r");
    tui.wait_for("logged K2AA 20m SSB");
    tui.wait_for("1/10");
    tui.wait_for("QSOs 1/200");
    let id = activations[0]["id"].as_str().unwrap();
    let stored = api.all_contacts(id);
    assert_eq!(stored[0]["rstSent"], "59", "phone reports are two digits");
    assert_eq!(stored[0]["mySig"], "POTA");
    // Park to park with a two-fer: the callsign, then Shift-Tab twice to the park field.
    tui.keys("k3bb\x1b[Z\x1b[Zus-4321, us-5678\r");
    tui.wait_for("QSOs 3/200");
    tui.wait_for("2/10");
    let stored = api.all_contacts(id);
    let mut p2p: Vec<_> = stored
        .iter()
        .filter(|c| c["callsign"] == "K3BB")
        .map(|c| (c["sig"].clone(), c["sigInfo"].clone()))
        .collect();
    p2p.sort_by_key(|(_, park)| park.to_string());
    assert_eq!(
        p2p,
        [
            (serde_json::json!("POTA"), serde_json::json!("US-4321")),
            (serde_json::json!("POTA"), serde_json::json!("US-5678"))
        ],
        "one contact per park: {stored:?}"
    );
    tui.close_form();
    // Its POTA file, from the activations pane, into the directory the logbook started in.
    tui.keys("\t");
    tui.keys("\x1bx");
    let name = activations[0]["name"].as_str().unwrap();
    let path = cli.home.path().join(format!("{name}.adi"));
    tui.wait_for(&format!("exported 3 contacts to {}", path.display()));
    let file = std::fs::read_to_string(&path).unwrap();
    assert!(file.contains("<CALL:4>K2AA "), "{file}");
    assert!(file.contains("<MY_SIG_INFO:7>US-1234 "), "{file}");
    assert!(file.contains("<SIG_INFO:7>US-5678 "), "{file}");
    // End it, after y.
    tui.keys("\x1be");
    tui.wait_for("End activation US-1234 now?");
    tui.keys("y");
    tui.wait_for("ended activation");
    let activations = api.get("/v1/activations").body["items"].clone();
    assert!(activations[0]["endTime"].is_string(), "{activations}");
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
}

fn delete_with_a_basic_key_shows_the_tier_error() {
    let (_server, api, cli) = setup("basic");
    let folder = monthly(&api);
    api.post("/v1/contacts", contact(&folder, "K1ABC")).id();
    let mut tui = Tui::start(&cli, &[], &[]);
    tui.wait_for("QSOs 1/200");
    tui.wait_for(&format!("  {}  ", this_month().0));
    tui.keys("\x1b[F\r\x1b[Z");
    tui.wait_for("K1ABC");
    tui.keys("\x1bd");
    tui.wait_for("Delete K1ABC");
    tui.keys("y");
    let screen = tui.wait_for("tier_insufficient: ");
    assert!(screen.contains("elevated key"), "{screen}");
    assert_eq!(api.all_contacts(&folder).len(), 1);
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
}

fn a_revoked_key_says_to_log_in_again() {
    let (server, api, cli) = setup("elevated");
    let prefix = &api.key()[..12];
    let out = server.admin(&["key", "revoke", prefix]);
    assert!(out.status.success(), "{out:?}");
    let mut tui = Tui::start(&cli, &[], &[]);
    let screen = tui.wait_for("key_revoked: ");
    assert!(screen.contains("svc auth login"), "{screen}");
    assert!(screen.contains("key rejected"), "{screen}");
    assert!(!screen.contains(&api.key()[9..]), "the key is never shown");
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
    tui.assert_restored();
}

/// `m` then `p`: this month's POTA hunting log is made on the service, under POTA, and a
/// contact logged there lands in it.
fn m_opens_a_programs_hunting_log() {
    let (_server, api, cli) = setup("elevated");
    let month = this_month().0;
    let mut tui = Tui::start(&cli, &[], &[]);
    tui.wait_for("QSOs 0/200");
    tui.keys("\x1bm");
    tui.wait_for("p  POTA hunting");
    tui.keys("p");
    tui.wait_for(&format!("opened the POTA {month} log"));
    tui.keys("\x1bn");
    tui.wait_for("Log a contact");
    // No park: asked, once. No keeps the form; yes logs it, and the next one goes unasked.
    tui.keys("k1abc\t14.074\tft8\r");
    tui.wait_for("No park");
    tui.keys("n");
    tui.wait_for("type the park worked");
    tui.keys("\r");
    tui.wait_for("No park");
    tui.keys("y");
    tui.wait_until("the contact stored and nothing waiting", |s| {
        s.contains("QSOs 1/200") && s.contains("0 waiting")
    });
    tui.keys("k2abc\r");
    tui.wait_until("the second stored, unasked", |s| {
        s.contains("QSOs 2/200") && s.contains("0 waiting") && !s.contains("No park")
    });
    let folders = api.get("/v1/folders?limit=200");
    let hunting = folders.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == format!("POTA {month}"))
        .unwrap_or_else(|| panic!("no POTA {month} folder: {}", folders.body))
        .clone();
    assert_eq!(hunting["programId"], "pota");
    assert_eq!(hunting["type"], "monthly");
    let stored = api.all_contacts(hunting["id"].as_str().unwrap());
    assert_eq!(stored.len(), 2, "{stored:?}");
    tui.close_form();
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
}

/// A busted call fixed after the fact: `e` on the contact, the callsign cleared and typed
/// again, the grid it was logged with blanked, Enter; the service holds the fixed one, and
/// the fields the form has no line for stay as stored.
fn e_edits_a_stored_contact() {
    let (_server, api, cli) = setup("elevated");
    let folder = monthly(&api);
    let mut tui = Tui::start(&cli, &[], &[]);
    tui.wait_for("QSOs 0/200");
    tui.keys("\x1bm");
    tui.keys("m");
    tui.wait_for("opened the");
    tui.keys("\x1bn");
    tui.wait_for("Log a contact");
    tui.keys("k1abx\t14.074\tft8\t\t\t\tfn31\r");
    tui.wait_until("the contact stored", |s| {
        s.contains("QSOs 1/200") && s.contains("0 waiting")
    });
    let id = api.all_contacts(&folder)[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Fields the form has no line for, set elsewhere (`svc contacts edit --tx-pwr 5`).
    let set = api.send(
        "PATCH",
        &format!("/v1/contacts/{id}"),
        Some(&serde_json::json!({"txPwr": 5, "qth": "Boston"})),
        &[],
    );
    assert_eq!(set.status, 200, "{}", set.body);
    tui.close_form();
    tui.keys("\x1b[Z");
    tui.keys("\x1be");
    tui.wait_for("Edit a contact");
    tui.wait_for("K1ABX");
    tui.wait_for("Grid      FN31");
    // Ctrl-U clears the callsign, and the grid six fields on; the rest stays as stored.
    tui.keys("\x15k1abc\t\t\t\t\t\t\x15\r");
    tui.wait_for("edited K1ABC 20m FT8");
    let stored = api.all_contacts(&folder);
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(stored[0]["callsign"], "K1ABC");
    assert_eq!(stored[0]["frequency"], 14.074);
    assert!(stored[0]["gridsquare"].is_null(), "{}", stored[0]);
    assert_eq!(stored[0]["txPwr"], 5.0, "{}", stored[0]);
    assert_eq!(stored[0]["qth"], "Boston", "{}", stored[0]);
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
}

/// A contact the service refuses was counted toward the activation's 10 when it was logged;
/// once refused (✗) it counts no more.
fn a_refused_contact_leaves_the_pota_count() {
    // The free plan's cap refuses the second contact.
    let (_server, _api, cli) = crate::cli::setup_with("elevated", &["--free-plan-cap", "1"]);
    let mut tui = Tui::start(&cli, &["tui"], &[]);
    tui.wait_for("QSOs 0/1");
    tui.wait_for("No activations");
    tui.keys("\x1ba");
    tui.wait_for("Start an activation");
    tui.keys("us-1234\r");
    tui.wait_for("activation US-1234 started");
    tui.wait_for("0 waiting");
    tui.keys("\x1bn");
    tui.wait_for("Log a contact");
    tui.keys("k2aa\t14.285\tssb\r");
    tui.wait_for("1/10 valid");
    tui.keys("k3bb\r");
    tui.wait_for("refused: K3BB");
    tui.wait_until("the meter at 1/10 again", |s| {
        s.contains("1/10 valid") && !s.contains("2/10")
    });
}

/// A two-fer: one activation of two parks, each contact credited to both, the meter the same
/// for both, one POTA file per park.
fn a_two_fer_is_one_activation_of_both_parks() {
    let (_server, api, cli) = setup("elevated");
    let mut tui = Tui::start(&cli, &["tui"], &[]);
    tui.wait_for("QSOs 0/200");
    tui.wait_for("No activations");
    tui.keys("\x1ba");
    tui.wait_for("Start an activation");
    tui.keys("us-0001, us-0002\r");
    tui.wait_for("activation US-0001,US-0002 started");
    tui.wait_for("US-0001+1");
    // The activation is open: a callsign typed starts the contact.
    tui.keys("k1aa\t14.285\tssb\r");
    tui.wait_for("logged K1AA");
    tui.keys("k2bb\r");
    tui.wait_for("logged K2BB");
    tui.wait_for("0 waiting");
    tui.wait_for("2/10");
    let activations = api.get("/v1/activations").body["items"].clone();
    assert_eq!(activations.as_array().unwrap().len(), 1, "{activations}");
    assert_eq!(activations[0]["locationReference"], "US-0001,US-0002");
    let stored = api.all_contacts(activations[0]["id"].as_str().unwrap());
    assert_eq!(stored.len(), 2, "{stored:?}");
    tui.close_form();
    // The selected folder is the activation: its files, one per park.
    tui.keys("\x1bx");
    let screen = tui.wait_for("2 files, one per park");
    let day = activations[0]["name"]
        .as_str()
        .unwrap()
        .rsplit('-')
        .next()
        .unwrap()
        .to_owned();
    for park in ["US-0001", "US-0002"] {
        let path = cli.home.path().join(format!("W1AW@{park}-{day}.adi"));
        let file = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}\n{screen}", path.display()));
        assert!(file.contains(&format!("<MY_SIG_INFO:7>{park} ")), "{file}");
        assert!(
            file.contains("<CALL:4>K1AA ") && file.contains("<CALL:4>K2BB "),
            "{file}"
        );
    }
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
}

crate::both_backends!(
    a_refused_contact_leaves_the_pota_count,
    a_two_fer_is_one_activation_of_both_parks,
    e_edits_a_stored_contact,
    m_opens_a_programs_hunting_log,
    logs_a_contact_typed_at_the_keyboard,
    starts_an_activation_and_counts_its_contacts,
    delete_with_a_basic_key_shows_the_tier_error,
    a_revoked_key_says_to_log_in_again,
);

#[test]
fn keys_are_echoed_while_every_request_hangs() {
    let cli = Cli::new(&hanging_service());
    cli.set_env("SVC_API_KEY", WELL_FORMED_KEY);
    let mut tui = Tui::start(&cli, &[], &[]);
    tui.wait_for("Loading folders…");
    tui.wait_for("3 req");
    tui.keys("/");
    tui.keys("hello");
    tui.wait_for("/hello");
    tui.keys("\r?");
    tui.wait_for("Keys");
    tui.keys("\x1bx");
    tui.wait_until("the help to close", |s| !s.contains("Keys"));
    tui.keys("\x1bn");
    // This key was never used here, and the service does not answer: nothing to log into.
    tui.wait_for("nothing can be logged yet");
    // The screen follows a resize.
    tui.resize(30, 100);
    tui.wait_until("the status bar on the last row of 30", |s| {
        s.lines().nth(29).is_some_and(|l| l.contains(" UTC "))
    });
    // Quitting does not wait for the hanging requests.
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
    tui.assert_restored();
}

#[test]
fn ctrl_c_quits_while_text_is_typed() {
    let cli = Cli::new(&hanging_service());
    cli.set_env("SVC_API_KEY", WELL_FORMED_KEY);
    let mut tui = Tui::start(&cli, &[], &[]);
    tui.wait_for("connecting");
    tui.keys("/");
    tui.keys("q");
    tui.wait_for("/q");
    tui.keys("\x03");
    assert_eq!(tui.exit_code(), 0);
    tui.assert_restored();
}

#[test]
fn no_color_and_the_no_color_variable_draw_without_colour() {
    let cli = Cli::new(&hanging_service());
    cli.set_env("SVC_API_KEY", WELL_FORMED_KEY);
    let no_color = [("NO_COLOR", "1")];
    let runs = [
        (vec![], &[][..], true),
        (vec!["--no-color"], &[][..], false),
        (vec!["tui"], &no_color[..], false),
    ];
    for (args, env, colour) in runs {
        let mut tui = Tui::start(&cli, &args, env);
        // The focused pane's border is coloured when colour is on.
        tui.wait_for("connecting");
        tui.wait_for("Loading folders");
        assert_eq!(
            tui.coloured(),
            colour,
            "{args:?} {env:?}:\n{}",
            tui.contents()
        );
        tui.keys("\x1bq");
        assert_eq!(tui.exit_code(), 0);
    }
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "the key that makes svc panic exists in debug builds only"
)]
fn a_panic_gives_the_terminal_back() {
    let cli = Cli::new(&hanging_service());
    cli.set_env("SVC_API_KEY", WELL_FORMED_KEY);
    // Without a backtrace, so the panic message stays on the 24 rows.
    let env = [("SVC_TUI_TEST_PANIC_KEY", "~"), ("RUST_BACKTRACE", "0")];
    let mut tui = Tui::start(&cli, &[], &env);
    tui.wait_for("connecting");
    tui.keys("~");
    assert_eq!(tui.exit_code(), 101);
    tui.assert_restored();
    let screen = tui.contents();
    assert!(screen.contains("the test panic key"), "{screen}");
}

#[test]
fn without_a_key_it_says_how_to_get_one() {
    let cli = Cli::new(&hanging_service());
    cli.set_env("SVC_NO_KEYRING", "1");
    let mut tui = Tui::start(&cli, &[], &[]);
    assert_eq!(tui.exit_code(), 3);
    let screen = tui.contents();
    assert!(
        screen.contains("svc: tui: unauthorized: no API key: run svc auth login"),
        "{screen}"
    );
}

#[test]
fn without_a_terminal_it_points_at_the_subcommands() {
    let cli = Cli::new(&hanging_service());
    cli.set_env("SVC_API_KEY", WELL_FORMED_KEY);
    let data = tempfile::tempdir().unwrap();
    cli.set_env("XDG_DATA_HOME", data.path().to_str().unwrap());
    for args in [&[][..], &["tui"], &["demo"], &["--no-color"]] {
        let run = cli.run(args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(run.stdout.is_empty(), "{run:?}");
        assert!(run.stderr.contains("needs a terminal"), "{run:?}");
        assert!(run.stderr.contains("svc help"), "{run:?}");
        assert!(!run.stderr.contains("svc: svc:"), "{run:?}");
    }
    assert_eq!(
        std::fs::read_dir(data.path()).unwrap().count(),
        0,
        "the demo made nothing without a terminal"
    );
}

#[test]
fn the_demo_runs_the_service_in_process_and_keeps_its_data() {
    let cli = Cli::new(&hanging_service());
    let data = tempfile::tempdir().unwrap();
    let data_home = data.path().to_str().unwrap().to_owned();
    let env = [
        ("XDG_DATA_HOME", data_home.as_str()),
        ("SVC_NO_KEYRING", "1"),
    ];
    let mut tui = Tui::start(&cli, &["demo"], &env);
    tui.wait_for("demo · N0CALL · elevated · QSOs 0/200");
    let month = this_month().0;
    tui.wait_for(&format!("  {month}  "));
    tui.keys("\x1b[F\r");
    tui.wait_for("No contacts yet");
    tui.keys("\x1bn");
    tui.wait_for("Log a contact");
    tui.keys("k1abc\t7.074\tft8\r");
    tui.wait_for("logged K1ABC 40m FT8");
    tui.wait_for("QSOs 1/200");
    tui.close_form();
    tui.keys("\x1bq");
    assert_eq!(tui.exit_code(), 0);
    tui.assert_restored();
    let path = data.path().join("svc").join("demo.db");
    let screen = tui.contents();
    assert!(
        screen.contains(&format!("the demo logbook is kept in {}", path.display())),
        "{screen}"
    );
    assert!(path.exists());
    // Nothing was written where the client keeps a key.
    assert!(!cli.config_file().exists());
    // A second run finds the contact of the first.
    let mut again = Tui::start(&cli, &["demo"], &env);
    again.wait_for("QSOs 1/200");
    again.keys("\x1bq");
    assert_eq!(again.exit_code(), 0);
}
