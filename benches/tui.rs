//! The logbook's benchmark, in three parts. Timings are printed, never asserted.
//!
//! 1. Frame: one frame of the logbook with 10,000 contacts loaded in the open folder, drawn
//!    in this process on ratatui's TestBackend at 80×24 (and 200×60), the selection at the
//!    top, the middle and the end, with and without a filter; also a Down key through
//!    `update` plus the frame it causes.
//! 2. Keystroke to screen: the release `svc` in a pseudo-terminal against the real
//!    `svc server start` behind a loopback proxy that holds every request for 3 s. Each key
//!    is timed from writing it to the pty until the terminal emulator (vt100) shows its echo,
//!    while requests are in flight: (a) in the folders filter, `r` starting new requests
//!    between rounds; (b) in the entry form's callsign with a folder of 10,000 contacts
//!    paged in, a delete held by the slow service in flight.
//! 3. Memory: VmRSS and VmHWM from /proc of the `svc` of (b), before and after the 10,000
//!    contacts were paged in with End.
//! 4. No link: (a) Enter to a cleared form for 1,000 contacts in a row, in process, with the
//!    real journal on disk and its sender running against a dead address: `update`, the
//!    journal commit, the answer and one frame. (b) Start to the first full frame of the
//!    release `svc` in a pseudo-terminal, with no link and a journal whose copy holds the
//!    account and a folder of 10,000 contacts; then Enter on that folder to its contacts.
//! 5. The radio: the release `svc` in a pseudo-terminal with `--rig` on the rigctld stand-in
//!    of the tests (`tests/common/rigctld.rs`), every request to the service held 3 s.
//!    (a) The knob turned: from the stand-in's answer with the new frequency (written to the
//!    socket) until the emulated screen shows it in the entry form, and from the turn itself
//!    (which waits for the next 500 ms poll). (b) Keys in the entry form's callsign while the
//!    radio is polled, its knob turned every 250 ms, and requests to the service in flight.
//!
//! 6. What is needed: the entry form's line saying what a call would bring the log (`new
//!    one`, `new band`, …), on a log of 100,000 contacts: the summary built, one judgement,
//!    and a key typed into the callsign through `update` with that summary loaded.
//!
//! Run with `cargo bench --bench tui`; `cargo bench --bench tui -- offline` runs part 4 only,
//! `cargo bench --bench tui -- needed` part 6 only,
//! `cargo bench --bench tui -- rig` part 5 only, `cargo bench --bench tui -- memory` parts 2b
//! and 3 (the 10,000-contact folder and memory) only.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use svc::model::{Page, Timestamp};
use svc::tui::app::Options;
use svc::tui::{Action, App, update};

mod common;
#[path = "../tests/common/rigctld.rs"]
mod rigctld;

use common::{BIN, Server, start_server};
const CONTACTS: usize = 10_000;
/// How long the slow service holds each request.
const SLOW: Duration = Duration::from_secs(3);

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn summary(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let n = samples.len();
    println!(
        "{label:<44} n={n:<5} median {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms",
        ms(samples[n / 2]),
        ms(samples[(n * 99 / 100).min(n - 1)]),
        ms(samples[n - 1]),
    );
}

// ---------------------------------------------------------------------------------------
// 1. Frame time

fn key(code: KeyCode) -> Action {
    Action::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// Alt and a letter: a command of the main screen.
fn alt(c: char) -> Action {
    Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT))
}

/// A logbook with a folder of `CONTACTS` contacts open and every page loaded.
fn big_logbook() -> App {
    let now = Timestamp::parse("now", "2026-11-22T14:05:09Z").unwrap();
    let (mut app, _) = App::new(
        Options {
            color: true,
            ..Options::default()
        },
        now,
        (80, 24),
    );
    let folder: svc::model::Folder = serde_json::from_value(json!({
        "id": "fld_benchbenchbench1", "name": "2026-11", "type": "monthly",
        "parentId": null, "month": "2026-11", "contactCount": CONTACTS,
        "createdAt": "2026-11-01T00:00:00Z",
    }))
    .unwrap();
    update(
        &mut app,
        Action::WhoamiLoaded(Ok(serde_json::from_value(json!({
            "callsign": "W1AW", "plan": "free", "tier": "elevated", "nativeQsoCount": 190,
        }))
        .unwrap())),
    );
    update(&mut app, Action::FoldersLoaded(Ok(vec![folder])));
    update(&mut app, Action::ActivationsLoaded(Ok(vec![])));
    update(&mut app, key(KeyCode::Enter));
    let modes = ["FT8", "SSB", "CW", "FT4"];
    let bands = [(14.074, "20m"), (7.074, "40m"), (21.074, "15m")];
    for page in 0..CONTACTS / 100 {
        let items = (0..100)
            .map(|i| {
                let n = page * 100 + i;
                let (mhz, band) = bands[n % bands.len()];
                let minute = 59 - (n / 60) % 60;
                serde_json::from_value(json!({
                    "id": format!("qso_{n:016}"), "folderId": "fld_benchbenchbench1",
                    "callsign": format!("K{}X{}", n % 10, n), "frequency": mhz, "band": band,
                    "mode": modes[n % modes.len()],
                    "timeOn": format!("2026-11-{:02}T{:02}:{minute:02}:00Z", 22 - (n / 1440) % 20, 23 - (n / 60) % 24),
                    "rstSent": "599", "rstReceived": "579", "name": "Operator name",
                    "notes": "a note about the contact that is longer than the column",
                    "createdAt": "2026-11-22T00:00:00Z",
                }))
                .unwrap()
            })
            .collect();
        let last = page + 1 == CONTACTS / 100;
        let generation = app.contacts.generation;
        update(
            &mut app,
            Action::ContactsLoaded {
                folder_id: "fld_benchbenchbench1".into(),
                generation,
                source: svc::tui::action::Source::Service,
                result: Ok(Page {
                    items,
                    cursor: (!last).then(|| format!("c{page}")),
                }),
            },
        );
    }
    assert_eq!(app.contacts.items.len(), CONTACTS);
    // Contacts: the pane before Folders in screen order.
    update(&mut app, key(KeyCode::BackTab));
    assert_eq!(app.focus, svc::tui::app::Pane::Contacts);
    app
}

fn time_frames(app: &App, width: u16, height: u16, frames: usize) -> Vec<Duration> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    // A warm-up frame draws everything once; later frames diff against it, as on a terminal.
    terminal.draw(|f| svc::tui::ui::draw(app, f)).unwrap();
    (0..frames)
        .map(|_| {
            let started = Instant::now();
            terminal.draw(|f| svc::tui::ui::draw(app, f)).unwrap();
            started.elapsed()
        })
        .collect()
}

fn frames() {
    println!("\n1. One frame with {CONTACTS} contacts loaded in the open folder (in process)");
    let mut app = big_logbook();
    summary(
        "80x24, selection at the top",
        time_frames(&app, 80, 24, 2000),
    );
    for _ in 0..CONTACTS / 2 {
        update(&mut app, key(KeyCode::Down));
    }
    summary(
        "80x24, selection in the middle",
        time_frames(&app, 80, 24, 2000),
    );
    update(&mut app, key(KeyCode::End));
    summary(
        "80x24, selection at the end",
        time_frames(&app, 80, 24, 2000),
    );
    summary(
        "200x60, selection at the end",
        time_frames(&app, 200, 60, 2000),
    );
    update(&mut app, alt('n'));
    summary("80x24, entry form open", time_frames(&app, 80, 24, 2000));
    update(&mut app, key(KeyCode::Esc));
    // A key through update and the frame it causes, as the event loop does it.
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    update(&mut app, key(KeyCode::Home));
    let keyed: Vec<Duration> = (0..2000)
        .map(|i| {
            let started = Instant::now();
            let code = if i % 2 == 0 {
                KeyCode::Down
            } else {
                KeyCode::Up
            };
            update(&mut app, key(code));
            terminal.draw(|f| svc::tui::ui::draw(&app, f)).unwrap();
            started.elapsed()
        })
        .collect();
    summary("80x24, Down/Up key: update + frame", keyed);
    update(&mut app, key(KeyCode::Char('/')));
    let filtered: Vec<Duration> = ["K", "K1", "K1X", "K1X1"]
        .iter()
        .cycle()
        .take(400)
        .map(|text| {
            let started = Instant::now();
            // Retyping the filter refilters all 10,000 contacts each time.
            for _ in 0..4 {
                update(&mut app, key(KeyCode::Backspace));
            }
            for c in text.chars() {
                update(&mut app, key(KeyCode::Char(c)));
            }
            terminal.draw(|f| svc::tui::ui::draw(&app, f)).unwrap();
            started.elapsed() / (4 + text.len() as u32)
        })
        .collect();
    summary("80x24, a filter key: update + frame (avg)", filtered);
}

// ---------------------------------------------------------------------------------------
// The real service and the real binary

/// Makes this month's folder and fills it with `n` contacts; returns its name.
fn fill(server: &Server, n: usize) -> String {
    let http = reqwest::blocking::Client::new();
    let now = Timestamp::now();
    let month = now.utc_month();
    let folder: serde_json::Value = http
        .post(format!("{}/v1/folders", server.url))
        .bearer_auth(&server.key)
        .json(&json!({"type": "monthly", "month": month}))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let id = folder["id"].as_str().unwrap().to_owned();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let (http, url, key, id) = (
                http.clone(),
                server.url.clone(),
                server.key.clone(),
                id.clone(),
            );
            let time = now.to_string();
            std::thread::spawn(move || {
                for i in (t..n).step_by(4) {
                    let r = http
                        .post(format!("{url}/v1/contacts"))
                        .bearer_auth(&key)
                        .json(
                            &json!({"folderId": id, "callsign": format!("K{}X{i}", i % 10),
                            "frequency": 14.074, "mode": "FT8", "timeOn": time,
                            "rstSent": "599", "rstReceived": "579", "name": "Operator name",
                            "notes": "a note about the contact that is longer than the column"}),
                        )
                        .send()
                        .unwrap();
                    assert_eq!(r.status().as_u16(), 201, "{}", r.text().unwrap_or_default());
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    month
}

/// A loopback proxy that holds each request for `delay` milliseconds (read when the request
/// comes in) before passing it on.
fn slow_proxy(upstream: &str, delay: Arc<AtomicU64>) -> String {
    let upstream = upstream.trim_start_matches("http://").to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let upstream = upstream.clone();
            let delay = Duration::from_millis(delay.load(Ordering::SeqCst));
            std::thread::spawn(move || {
                let mut reader = BufReader::new(client);
                let mut head = String::new();
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    head.push_str(&line);
                    if line == "\r\n" {
                        break;
                    }
                }
                let length = head
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                std::thread::sleep(delay);
                let Ok(mut up) = TcpStream::connect(&upstream) else {
                    return;
                };
                // One request per connection, both ways: the answer then ends at EOF.
                let head = head.replacen("\r\n\r\n", "\r\nConnection: close\r\n\r\n", 1);
                let _ = up.write_all(head.as_bytes());
                let _ = up.write_all(&body);
                let mut answer = Vec::new();
                let _ = up.read_to_end(&mut answer);
                let _ = reader.get_mut().write_all(&answer);
            });
        }
    });
    url
}

/// The release `svc` in a pseudo-terminal, its screen kept by vt100.
struct Pty {
    screen: Arc<Mutex<vt100::Parser>>,
    /// One message per chunk of output, after the screen took it in.
    changed: Receiver<()>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Pty {
    fn start(base: &str, key: &str, home: &std::path::Path, args: &[&str]) -> Pty {
        Pty::start_wide(base, key, home, args, 80)
    }

    /// `svc args` on a terminal of 24 rows and `cols` columns.
    fn start_wide(base: &str, key: &str, home: &std::path::Path, args: &[&str], cols: u16) -> Pty {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: 24,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut cmd = CommandBuilder::new(BIN);
        cmd.args(args);
        cmd.env("SVC_API_BASE", base);
        cmd.env("SVC_API_KEY", key);
        cmd.env("HOME", home);
        cmd.env("XDG_CONFIG_HOME", home.join("config"));
        cmd.env("XDG_DATA_HOME", home.join("data"));
        cmd.env("TERM", "xterm-256color");
        cmd.env_remove("NO_COLOR");
        let child = pty.slave.spawn_command(cmd).unwrap();
        drop(pty.slave);
        let size = std::num::NonZeroU16::new;
        let screen = Arc::new(Mutex::new(vt100::Parser::new(
            size(24).unwrap(),
            size(cols).unwrap(),
            0,
        )));
        let (tx, changed) = channel();
        let mut reader = pty.master.try_clone_reader().unwrap();
        let feed = screen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 16384];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                feed.lock().unwrap().process(&buf[..n]);
                if tx.send(()).is_err() {
                    break;
                }
            }
        });
        let writer = pty.master.take_writer().unwrap();
        Pty {
            screen,
            changed,
            writer,
            child,
            _master: pty.master,
        }
    }

    fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    fn keys(&mut self, text: &str) {
        self.writer.write_all(text.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Waits (at most a minute) until the screen satisfies `done`; returns the screen.
    fn wait(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let screen = self.contents();
            if done(&screen) {
                return screen;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no {what} on the screen:\n{screen}");
            let _ = self
                .changed
                .recv_timeout(left.min(Duration::from_millis(50)));
        }
    }

    /// Writes `key` and returns how long until the screen satisfies `done`.
    fn time_key(&mut self, key: &str, done: impl Fn(&str) -> bool) -> Duration {
        while self.changed.try_recv().is_ok() {}
        let started = Instant::now();
        self.keys(key);
        loop {
            if done(&self.contents()) {
                return started.elapsed();
            }
            self.changed
                .recv_timeout(Duration::from_secs(10))
                .expect("the screen did not change within 10 s");
        }
    }

    fn pid(&self) -> u32 {
        self.child.process_id().expect("a pid")
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The requests in flight that the status bar shows.
fn in_flight(screen: &str) -> usize {
    screen
        .lines()
        .last()
        .and_then(|l| l.split(" · ").last())
        .and_then(|s| s.trim().strip_suffix(" req"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

// ---------------------------------------------------------------------------------------
// 2. Keystroke to screen while the service is slow

/// Times 10 letters and then 10 Backspaces, each until the screen shows the text that
/// `shown` makes of what is typed so far; returns the times and how many keys went out
/// while the status bar counted requests in flight.
fn type_and_erase(pty: &mut Pty, shown: impl Fn(&str) -> String) -> (Vec<Duration>, usize) {
    let letters = "k1x1abcdef";
    let mut times = Vec::new();
    let mut busy = 0;
    for i in 1..=letters.len() {
        let want = shown(&letters[..i]);
        times.push(pty.time_key(&letters[i - 1..i], |s| s.contains(&want)));
        busy += usize::from(in_flight(&pty.contents()) > 0);
    }
    for i in (0..letters.len()).rev() {
        let want = shown(&letters[..i]);
        times.push(pty.time_key("\x7f", |s| s.contains(&want)));
        busy += usize::from(in_flight(&pty.contents()) > 0);
    }
    (times, busy)
}

fn keystrokes(server: &Server, home: &std::path::Path) {
    println!(
        "\n2a. Keystroke to screen, svc in a pty, every request held {} s by a loopback proxy",
        SLOW.as_secs()
    );
    let delay = Arc::new(AtomicU64::new(SLOW.as_millis() as u64));
    let slow = slow_proxy(&server.url, delay);
    let mut pty = Pty::start(&slow, &server.key, home, &[]);
    pty.wait("the status bar", |s| s.contains(" req"));
    let mut all = Vec::new();
    let mut busy = 0;
    for round in 0..15 {
        // Enter keeps the (empty) filter and closes it; r starts new slow requests.
        if round > 0 {
            pty.keys("\r");
            pty.wait("the filter closed", |s| !s.contains(" Folders / "));
            pty.keys("\x1br");
            pty.wait("requests in flight", |s| in_flight(s) > 0);
        }
        pty.keys("/");
        pty.wait("an open filter", |s| s.contains(" Folders / "));
        let (times, b) = type_and_erase(&mut pty, |t| format!(" Folders /{t} "));
        all.extend(times);
        busy += b;
    }
    let n = all.len();
    summary("a key in the folders filter", all);
    println!("keys sent while requests were in flight: {busy} of {n}");
    pty.keys("\r\x1bq");
    let _ = pty.child.wait();
}

// ---------------------------------------------------------------------------------------
// 2b and 3. The folder of 10,000 contacts paged in: memory, and keys in the entry form

fn status_kb(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn big_folder(server: &Server, month: &str, home: &std::path::Path) {
    println!(
        "\n2b. The folder of {CONTACTS} contacts paged in on the real server, then every request \
         held {} s: keys in the entry form's callsign (each runs the duplicate check over {CONTACTS})",
        SLOW.as_secs()
    );
    // No delay while the pages come in; the slow service starts after.
    let delay = Arc::new(AtomicU64::new(0));
    let proxy = slow_proxy(&server.url, delay.clone());
    let mut pty = Pty::start(&proxy, &server.key, home, &[]);
    pty.wait("the folder", |s| s.contains(month) && in_flight(s) == 0);
    let pid = pty.pid();
    std::thread::sleep(Duration::from_millis(300));
    let idle = status_kb(pid, "VmRSS:");
    // The month is the last folder: End selects it, Enter opens it, Shift-Tab goes to the
    // contacts (the pane before Folders, in screen order).
    pty.keys("\x1b[F\r\x1b[Z");
    let all = format!("· {month} · {CONTACTS} ");
    let started = Instant::now();
    while !pty.contents().contains(&all) {
        pty.keys("\x1b[F");
        let _ = pty.changed.recv_timeout(Duration::from_millis(100));
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "not every page came in:\n{}",
            pty.contents()
        );
    }
    let paging = started.elapsed();
    std::thread::sleep(Duration::from_millis(300));
    let loaded = status_kb(pid, "VmRSS:");
    // The svc binary's own pages are most of what is file-backed: shared with the page cache,
    // and as many as the kernel maps around each page touched.
    let (anon, file) = (status_kb(pid, "RssAnon:"), status_kb(pid, "RssFile:"));

    delay.store(SLOW.as_millis() as u64, Ordering::SeqCst);
    let mut times = Vec::new();
    let mut busy = 0;
    for round in 0..10 {
        if round > 0 {
            // Esc alone (a pause on each side, so it is not read as Alt-d).
            std::thread::sleep(Duration::from_millis(150));
            pty.keys("\x1b");
            pty.wait("the form closed", |s| !s.contains("Log a contact"));
            std::thread::sleep(Duration::from_millis(150));
        }
        // A delete that the slow service holds for seconds: a request in flight.
        pty.keys("\x1bd");
        pty.wait("the question", |s| s.contains("Delete contact"));
        pty.keys("y");
        pty.wait("the delete in flight", |s| in_flight(s) > 0);
        pty.keys("\x1bn");
        pty.wait("the entry form", |s| s.contains("Log a contact"));
        let (t, b) = type_and_erase(&mut pty, |t| format!("Callsign  {t} "));
        times.extend(t);
        busy += b;
    }
    let n = times.len();
    summary("a key in the callsign field", times);
    println!("keys sent while requests were in flight: {busy} of {n}");

    println!("\n3. Memory of that svc (VmRSS, VmHWM from /proc)");
    let line = |label: &str, kb: u64| println!("{label:<44} {:>6.1} MB", kb as f64 / 1024.0);
    line("VmRSS after start, folders loaded", idle);
    line(&format!("VmRSS with {CONTACTS} contacts paged in"), loaded);
    line("  of it RssAnon (the heap, stacks)", anon);
    line("  of it RssFile (the binary, libraries)", file);
    line("VmRSS after the typing above", status_kb(pid, "VmRSS:"));
    line("VmHWM (peak)", status_kb(pid, "VmHWM:"));
    println!(
        "paging all {CONTACTS} in with End (100 per page): {:.1} s",
        paging.as_secs_f64()
    );
    pty.keys("\x03");
    let _ = pty.child.wait();
}

// ---------------------------------------------------------------------------------------
// 4. No link

/// An address where nothing listens: every request fails at once, as with no route.
fn dead_address() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    url
}

const MONTH_ID: &str = "fld_aaaabbbbccccdddd";

fn month_folder(month: &str, count: usize) -> svc::model::Folder {
    serde_json::from_value(json!({
        "id": MONTH_ID, "name": month, "type": "monthly", "parentId": null,
        "month": month, "contactCount": count, "createdAt": "2026-11-01T00:00:00Z",
    }))
    .unwrap()
}

fn enter_offline() {
    use svc::tui::journal::{JournalEffect, JournalSource};
    use svc::tui::runtime::keeper::Keeper;
    println!(
        "\n4a. Enter to a cleared form, no link, 1,000 contacts: update + journal commit (fsync) + answer + frame (in process)"
    );
    let dir = tempfile::tempdir().unwrap();
    let runtime = svc::tui::runtime("bench").unwrap();
    let times = runtime.block_on(async {
        let api_key = svc::model::ApiKey::generate();
        let base = svc::client::parse_api_base(&dead_address()).unwrap();
        let source = JournalSource::File(dir.path().join("journal.db"));
        let link = svc::tui::Link::new(base, &api_key, source.clone()).unwrap();
        let (events, _kept) = tokio::sync::mpsc::unbounded_channel();
        let mut keeper = Keeper::new(source, std::sync::Arc::new(link.sender), events);
        let now = Timestamp::now();
        let (mut app, effects) = App::new(Options::default(), now, (80, 24));
        let mut commits = Vec::new();
        let mut run = async |app: &mut App, effects: Vec<svc::tui::Effect>| {
            let mut work: std::collections::VecDeque<_> = effects.into();
            while let Some(effect) = work.pop_front() {
                if let svc::tui::Effect::Journal(effect) = effect {
                    let started = Instant::now();
                    let answer = keeper.perform(effect).await;
                    commits.push(started.elapsed());
                    work.extend(update(app, answer));
                }
            }
        };
        run(&mut app, effects).await;
        update(
            &mut app,
            Action::FoldersLoaded(Ok(vec![month_folder(&now.utc_month(), 0)])),
        );
        update(&mut app, key(KeyCode::Enter));
        update(&mut app, alt('n'));
        for c in "\t14.074\tft8".chars() {
            let code = if c == '\t' {
                KeyCode::Tab
            } else {
                KeyCode::Char(c)
            };
            update(&mut app, key(code));
        }
        update(&mut app, key(KeyCode::BackTab));
        update(&mut app, key(KeyCode::BackTab));
        let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
        let mut times = Vec::new();
        for i in 0..1000 {
            for c in format!("K{i}OFF").chars() {
                update(&mut app, key(KeyCode::Char(c)));
            }
            let started = Instant::now();
            let effects = update(&mut app, key(KeyCode::Enter));
            assert!(
                matches!(
                    &effects[..],
                    [svc::tui::Effect::Journal(JournalEffect::LogContact(_))]
                ),
                "{effects:?} {:?}",
                app.status
            );
            run(&mut app, effects).await;
            terminal.draw(|f| svc::tui::ui::draw(&app, f)).unwrap();
            times.push(started.elapsed());
            let form = app.entry.as_ref().unwrap();
            assert_eq!(form.value(svc::tui::components::entry::Field::Callsign), "");
        }
        assert_eq!(app.outbox.counts.waiting, 1000);
        // The first is the journal's load at start.
        let commits = commits.split_off(1);
        (times, commits)
    });
    let (times, commits) = times;
    summary("Enter to cleared form, link down", times);
    summary("  of which the journal commit", commits);
}

/// A journal for `key` on `base` in `data`, its copy holding the account and a folder of
/// `CONTACTS` contacts.
/// Forgets the folder open when svc last ran, in the journal of `base` and `key`.
fn forget_open_folder(base: &str, key: &svc::model::ApiKey) {
    let runtime = svc::tui::runtime("bench").unwrap();
    runtime.block_on(async {
        let base = svc::client::parse_api_base(base).unwrap();
        let journal = svc::client::journal::Journal::find(&base, key)
            .await
            .unwrap()
            .expect("the journal made for the bench");
        journal.save_open_folder(None).await.unwrap();
    });
}

fn journal_copy(data: &std::path::Path, base: &str, key: &svc::model::ApiKey, month: &str) {
    // Before any thread of this process reads the environment: the journal finds its folder
    // there, as svc will.
    unsafe { std::env::set_var("XDG_DATA_HOME", data) };
    let runtime = svc::tui::runtime("bench").unwrap();
    runtime.block_on(async {
        let base = svc::client::parse_api_base(base).unwrap();
        let journal = svc::client::journal::Journal::open(&base, key, "W1AW")
            .await
            .unwrap();
        journal
            .save_whoami(
                &serde_json::from_value(json!({
                    "callsign": "W1AW", "plan": "free", "tier": "elevated", "nativeQsoCount": 150,
                }))
                .unwrap(),
            )
            .await
            .unwrap();
        journal
            .save_folders(&[month_folder(month, CONTACTS)])
            .await
            .unwrap();
        journal.save_activations(&[]).await.unwrap();
        let contacts: Vec<svc::model::Contact> = (0..CONTACTS)
            .map(|n| {
                serde_json::from_value(json!({
                    "id": format!("qso_{n:016}"), "folderId": MONTH_ID,
                    "callsign": format!("K{}X{n}", n % 10), "frequency": 14.074, "band": "20m",
                    "mode": "FT8", "timeOn": format!("{month}-01T{:02}:{:02}:00Z", (n / 60) % 24, n % 60),
                    "rstSent": "599", "rstReceived": "579", "createdAt": format!("{month}-01T00:00:00Z"),
                }))
                .unwrap()
            })
            .collect();
        journal
            .save_contacts(MONTH_ID, &contacts, Timestamp::now(), true)
            .await
            .unwrap();
    });
}

fn start_offline(home: &std::path::Path) {
    println!(
        "\n4b. Start to first full frame, release svc in a pty, no link, a copy of {CONTACTS} contacts"
    );
    let month = Timestamp::now().utc_month();
    let key = svc::model::ApiKey::generate();
    let dead = dead_address();
    journal_copy(&home.join("data"), &dead, &key, &month);
    let mut first = Vec::new();
    let mut opened = Vec::new();
    for _ in 0..20 {
        let started = Instant::now();
        let mut pty = Pty::start(&dead, key.expose(), home, &[]);
        pty.wait("the copy", |s| {
            s.contains("W1AW · free · elevated · QSOs 150/200") && s.contains(&month)
        });
        first.push(started.elapsed());
        // The newest 1,000 of the copy (its read limit); the service cannot be reached.
        let shown = format!("Contacts · {month} · 1000 (saved copy)");
        let took = pty.time_key("\x1b[F\r", |s| s.contains(&shown));
        opened.push(took);
        pty.keys("\x1bq");
        let _ = pty.child.wait();
        // The folder open at the end opens again at the next start: forgotten here, so that
        // each round starts as the first.
        forget_open_folder(&dead, &key);
    }
    summary("start to the first full frame", first);
    summary("Enter on the folder to its contacts (copy)", opened);
    // The folder open when svc last ran opens again at start, from the copy.
    let mut reopened = Vec::new();
    for round in 0..6 {
        let started = Instant::now();
        let mut pty = Pty::start(&dead, key.expose(), home, &[]);
        if round == 0 {
            pty.wait("the copy", |s| s.contains(&month));
            pty.keys("\x1b[F\r");
        }
        let shown = format!("Contacts · {month} · 1000 (saved copy)");
        pty.wait("the folder open", |s| s.contains(&shown));
        if round > 0 {
            reopened.push(started.elapsed());
        }
        pty.keys("\x1bq");
        let _ = pty.child.wait();
    }
    summary("start to the reopened folder's contacts (copy)", reopened);
}

// ---------------------------------------------------------------------------------------
// 5. The radio

fn radio(home: &std::path::Path) {
    println!(
        "\n5. svc --rig on the rigctld stand-in (polled every 500 ms), every service request held {} s",
        SLOW.as_secs()
    );
    let server = start_server("elevated", &[]);
    let month = fill(&server, 0);
    let slow = slow_proxy(
        &server.url,
        Arc::new(AtomicU64::new(SLOW.as_millis() as u64)),
    );
    let daemon = Arc::new(rigctld::Rigctld::start(14_074_000, "PKTUSB"));
    let rig = daemon.address();
    // 100 columns: at 80, the rig's part of the status bar leaves no room for the request
    // counter that tells keys typed with requests in flight.
    let mut pty = Pty::start_wide(&slow, &server.key, home, &["--rig", &rig], 100);
    pty.wait("the radio and the folder", |s| {
        s.contains("rig 14.074 FT8") && s.contains(&month)
    });
    pty.keys("\x1b[F\r");
    pty.wait("the month open", |s| {
        s.contains(&format!("Contacts · {month}"))
    });
    pty.keys("\x1bn");
    pty.wait("the entry form", |s| s.contains("Freq MHz  14.074"));

    let mut answered = Vec::new();
    let mut turned = Vec::new();
    for i in 1..=40u64 {
        let hz = 14_074_000 + i * 500;
        let shown = format!("Freq MHz  {} ", svc::model::band::mhz_text(hz as f64 / 1e6));
        // Anywhere in the poll's 500 ms, not always just after the poll that showed the last.
        std::thread::sleep(Duration::from_millis(i * 137 % 500));
        while pty.changed.try_recv().is_ok() {}
        let turn = Instant::now();
        daemon.tune(hz);
        let on_screen = loop {
            if pty.contents().contains(&shown) {
                break Instant::now();
            }
            pty.changed
                .recv_timeout(Duration::from_secs(10))
                .expect("the screen did not change within 10 s");
        };
        let served = daemon
            .served_at(hz)
            .expect("the stand-in gave the frequency");
        answered.push(on_screen.saturating_duration_since(served));
        turned.push(on_screen - turn);
    }
    summary("rig answer to the frequency on screen", answered);
    summary("knob turned to the frequency on screen", turned);

    // The knob keeps turning, and each answer of the radio takes 30 ms, as over a CAT port.
    daemon.slow(Duration::from_millis(30));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let knob = {
        let (daemon, stop) = (daemon.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut hz = 14_080_000;
            while !stop.load(Ordering::SeqCst) {
                hz = if hz >= 14_090_000 {
                    14_080_000
                } else {
                    hz + 100
                };
                daemon.tune(hz);
                std::thread::sleep(Duration::from_millis(250));
            }
        })
    };
    let mut times = Vec::new();
    let mut busy = 0;
    for _ in 0..10 {
        // Esc alone (a pause on each side, so it is not read as Alt and the next key), then
        // r for three slow requests, then the form again.
        std::thread::sleep(Duration::from_millis(150));
        pty.keys("\x1b");
        pty.wait("the form closed", |s| !s.contains("Log a contact"));
        std::thread::sleep(Duration::from_millis(150));
        pty.keys("\x1br");
        pty.wait("requests in flight", |s| in_flight(s) > 0);
        pty.keys("\x1bn");
        pty.wait("the entry form", |s| s.contains("Log a contact"));
        let (t, b) = type_and_erase(&mut pty, |t| format!("Callsign  {t} "));
        times.extend(t);
        busy += b;
    }
    stop.store(true, Ordering::SeqCst);
    let _ = knob.join();
    let n = times.len();
    summary("a key in the callsign, radio polled", times);
    println!("keys sent while requests were in flight: {busy} of {n}");
    pty.keys("\x03");
    let _ = pty.child.wait();
}

// ---------------------------------------------------------------------------------------
// 6. What is needed: the entry form's line while a call is typed, on a log of 100,000

/// Contacts of the log the form's needed-line judges against.
const NEEDED_LOG: usize = 100_000;

/// A log of `n` contacts over some 300 entities' prefixes, 8 bands, 4 modes and the 50
/// states, as the journal would hold a big one, with the parts `Worked` reads.
fn needed_log(n: usize) -> Vec<svc::model::Contact> {
    let prefixes = [
        "K", "W", "N", "VE", "DL", "G", "F", "I", "EA", "JA", "VK", "ZL", "PY", "LU", "UA", "SP",
        "OK", "HA", "YO", "LZ", "SV", "OH", "SM", "LA", "OZ", "PA", "ON", "HB9", "OE", "CT", "EI",
        "GM", "GW", "TF", "ZS", "5B", "4X", "A6", "HS", "BV", "BY", "HL", "DU", "9M2", "YB", "VU",
        "AP", "CE", "CX", "HK", "YV", "XE", "TI", "HI", "KP4", "KH6", "KL7",
    ];
    let bands = [
        (1.840, "160m"),
        (3.573, "80m"),
        (7.074, "40m"),
        (10.136, "30m"),
        (14.074, "20m"),
        (18.100, "17m"),
        (21.074, "15m"),
        (28.074, "10m"),
    ];
    let modes = ["FT8", "SSB", "CW", "FT4"];
    let states = svc::model::awards::STATES;
    (0..n)
        .map(|i| {
            let (mhz, band) = bands[i % bands.len()];
            let prefix = prefixes[i % prefixes.len()];
            let mut fields = svc::model::Fields::default();
            if matches!(prefix, "K" | "W" | "N") {
                let (code, _) = states[i % states.len()];
                fields.set(svc::model::Field::State, Some(code.to_owned()));
            }
            svc::model::Contact {
                id: format!("qso_{i:016}"),
                folder_id: "fld_benchbenchbench1".into(),
                callsign: format!("{prefix}{}X{}", i % 10, i / 10 % 5000),
                frequency: mhz,
                band: band.into(),
                mode: modes[i / 7 % modes.len()].into(),
                time_on: Timestamp(1_780_000_000_000 + i as i64 * 60_000),
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
                fields,
                created_at: Timestamp(0),
                duplicate_of: None,
                external: Vec::new(),
            }
        })
        .collect()
}

/// The entry form's needed-line on a log of 100,000 contacts: the summary built from it once
/// (what the journal's read does after its SQL), the model's judgement of one call, and a
/// key typed into the callsign through `update`, which judges the call again (with the
/// entity, the super check partial and the duplicate check of the open folder of 10,000).
fn needed() {
    use svc::model::needed::Worked;
    println!("\n== 6. What is needed: the form's line on a log of {NEEDED_LOG} contacts ==");
    let log = needed_log(NEEDED_LOG);
    let dxcc = svc::model::dxcc::Dxcc::shipped();
    let mut built = Vec::new();
    let mut worked = Worked::default();
    for _ in 0..5 {
        let started = Instant::now();
        worked = Worked::of(&dxcc, &log);
        built.push(started.elapsed());
    }
    summary("Worked::of, 100,000 contacts", built);
    let calls = [
        "JA1ABC", "K1X123", "VK2", "DL5X77", "ZD8ZZ", "W3X4999", "KH6X1",
    ];
    let mut judged = Vec::new();
    for round in 0..2000 {
        let call = calls[round % calls.len()];
        let started = Instant::now();
        let wanted = worked.wanted(&dxcc, call, Some("40m"), "SSB", Some("ME"));
        judged.push(started.elapsed());
        std::hint::black_box(wanted);
    }
    summary("Worked::wanted, one call", judged);
    // The logbook with the open folder of 10,000, the country file and the list shipped, and
    // the 100,000-contact summary as the journal's read answers it.
    let mut app = big_logbook();
    let callsigns = std::sync::Arc::new(svc::tui::callsigns::Callsigns {
        dxcc: svc::model::dxcc::Dxcc::shipped(),
        scp: svc::model::scp::MasterScp::shipped(),
    });
    update(
        &mut app,
        Action::CallsignsLoaded {
            callsigns,
            warning: None,
        },
    );
    update(&mut app, Action::WorkedRead(Ok(Box::new(worked))));
    // As if the journal had answered: the form opens only on an open journal.
    app.journal = svc::tui::components::outbox::JournalState::Open;
    update(&mut app, alt('n'));
    assert!(app.entry.is_some(), "the form is open");
    let mut keys = Vec::new();
    for round in 0..200 {
        let call = calls[round % calls.len()];
        for c in call.chars() {
            let started = Instant::now();
            update(&mut app, key(KeyCode::Char(c)));
            keys.push(started.elapsed());
        }
        for _ in call.chars() {
            let started = Instant::now();
            update(&mut app, key(KeyCode::Backspace));
            keys.push(started.elapsed());
        }
    }
    let form = app.entry.as_ref().unwrap();
    assert!(form.who.is_none(), "the callsign is erased");
    summary("a key in the callsign, update()", keys);
    for c in "zd8zz".chars() {
        update(&mut app, key(KeyCode::Char(c)));
    }
    let form = app.entry.as_ref().unwrap();
    // Ascension Island is none of the log's entities.
    assert!(form.wanted.new_entity, "{:?}", form.wanted);
}

fn main() -> ExitCode {
    let home = tempfile::tempdir().unwrap();
    let only = std::env::args()
        .find(|a| a == "offline" || a == "rig" || a == "frames" || a == "memory" || a == "needed");
    if only.as_deref() == Some("needed") {
        needed();
        return ExitCode::SUCCESS;
    }
    if only.as_deref() == Some("rig") {
        radio(home.path());
        return ExitCode::SUCCESS;
    }
    if only.as_deref() == Some("frames") {
        frames();
        return ExitCode::SUCCESS;
    }
    if only.as_deref() == Some("memory") {
        let server = start_server("elevated", &["--burst-limit", "--daily-contact-budget"]);
        let month = fill(&server, CONTACTS);
        big_folder(&server, &month, home.path());
        return ExitCode::SUCCESS;
    }
    // First: it sets the environment, which is safe only before other threads start.
    start_offline(home.path());
    enter_offline();
    if only.is_some() {
        return ExitCode::SUCCESS;
    }
    frames();
    needed();
    let server = start_server("elevated", &["--burst-limit", "--daily-contact-budget"]);
    let seeding = Instant::now();
    let month = fill(&server, CONTACTS);
    println!(
        "\n(seeded {CONTACTS} contacts over HTTP in {:.1} s)",
        seeding.elapsed().as_secs_f64()
    );
    keystrokes(&server, home.path());
    big_folder(&server, &month, home.path());
    radio(home.path());
    ExitCode::SUCCESS
}
