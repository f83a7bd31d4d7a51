//! `svc listen wsjtx`: the built binary listening on loopback UDP, fed datagrams written by the
//! QDataStream writer of svc-wsjtx's tests (from WSJT-X's NetworkMessage.hpp), logging
//! into the real service through its outbox. `svc listen adif` and `svc listen n1mm` the same
//! way, fed ADIF and N1MM Logger+'s XML written here as text.
//!
//! On SQLite only: what is tested is the client (its socket, journal and events); the service
//! stores a contact the same way on either backend, as the server's own tests check.

// The svc-wsjtx tests' QDataStream writer, written from NetworkMessage.hpp, not svc's encoder;
// these tests and the logbook's (tests/tui/wsjtx.rs) use part of it.
#[allow(dead_code)]
#[path = "../../../crates/wsjtx/tests/protocol/qds.rs"]
pub mod qds;

// svc-n1mm's captured datagrams; this test uses one.
#[allow(dead_code)]
#[path = "../../../crates/n1mm/tests/n1mm/fixtures.rs"]
mod n1mm_fixtures;

pub mod highlight;
mod peers;

use std::io::{BufRead, BufReader};
use std::net::UdpSocket;
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Cli, monthly, setup};
use crate::common::{contact, eventually};
use qds::{Qds, Spec};

/// How long any one event may take to show.
const DEADLINE: Duration = Duration::from_secs(30);
/// The Julian day of 1970-01-01.
const UNIX_EPOCH_JULIAN_DAY: i64 = 2_440_588;

/// A loopback UDP port free at the time of asking.
pub fn free_udp_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `svc listen wsjtx … --json` running, its stdout read line by line as JSON events.
struct Listening {
    child: Child,
    events: Receiver<Value>,
    /// Every event read so far, for failure messages.
    seen: Vec<Value>,
}

impl Listening {
    fn start(cli: &Cli, args: &[&str]) -> Listening {
        Listening::start_on(cli, "wsjtx", args)
    }

    /// `svc listen PROTOCOL … --json`, once it says it listens.
    fn start_on(cli: &Cli, protocol: &str, args: &[&str]) -> Listening {
        let mut listening = Listening::spawn_on(cli, protocol, &["--json"], args);
        listening.next_event("listening");
        listening
    }

    /// Without --json: stdout's lines come as JSON strings, and it is ready once stderr says
    /// it listens.
    fn start_text(cli: &Cli, args: &[&str]) -> Listening {
        let mut listening = Listening::spawn(cli, &[], args);
        let stderr = BufReader::new(listening.child.stderr.take().unwrap());
        let mut lines = stderr.lines();
        let first = lines.next().unwrap().unwrap();
        assert!(
            first.starts_with("svc: listening for WSJT-X on UDP "),
            "{first}"
        );
        std::thread::spawn(move || for _ in lines {});
        listening
    }

    fn spawn(cli: &Cli, format: &[&str], args: &[&str]) -> Listening {
        Listening::spawn_on(cli, "wsjtx", format, args)
    }

    fn spawn_on(cli: &Cli, protocol: &str, format: &[&str], args: &[&str]) -> Listening {
        let mut child = cli
            .std_command()
            .args(["listen", protocol])
            .args(format)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let json = !format.is_empty();
        let (tx, events) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let event = if json {
                    serde_json::from_str(&line)
                        .unwrap_or_else(|e| panic!("not one JSON event per line ({e}): {line:?}"))
                } else {
                    Value::String(line)
                };
                if tx.send(event).is_err() {
                    break;
                }
            }
        });
        if json {
            // Its stderr is read so that it never blocks on a full pipe.
            let stderr = child.stderr.take().unwrap();
            std::thread::spawn(move || for _ in BufReader::new(stderr).lines() {});
        }
        Listening {
            child,
            events,
            seen: Vec::new(),
        }
    }

    /// The next line of text output.
    fn next_line(&mut self) -> String {
        match self.events.recv_timeout(DEADLINE) {
            Ok(Value::String(line)) => line,
            other => panic!("no line within {DEADLINE:?}: {other:?}"),
        }
    }

    /// The next event that is not a sender's report (sent, online), which come when they come;
    /// it must be of kind `event`.
    fn next_event(&mut self, event: &str) -> Value {
        let started = Instant::now();
        loop {
            let left = DEADLINE.saturating_sub(started.elapsed());
            match self.events.recv_timeout(left) {
                Ok(got) => {
                    self.seen.push(got.clone());
                    if matches!(got["event"].as_str(), Some("sent" | "online")) {
                        continue;
                    }
                    assert_eq!(got["event"], event, "events so far: {:#?}", self.seen);
                    return got;
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "no {event} event within {DEADLINE:?}; so far: {:#?}",
                        self.seen
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("svc ended before a {event} event; so far: {:#?}", self.seen)
                }
            }
        }
    }

    /// The next event of kind `event`, the status events before it passed over.
    fn next_after_status(&mut self, event: &str) -> Value {
        let started = Instant::now();
        loop {
            match self
                .events
                .recv_timeout(DEADLINE.saturating_sub(started.elapsed()))
            {
                Ok(got) if matches!(got["event"].as_str(), Some("status" | "sent" | "online")) => {
                    self.seen.push(got);
                }
                Ok(got) => {
                    self.seen.push(got.clone());
                    assert_eq!(got["event"], event, "events so far: {:#?}", self.seen);
                    return got;
                }
                Err(e) => panic!(
                    "no {event} event within {DEADLINE:?} ({e}): {:#?}",
                    self.seen
                ),
            }
        }
    }

    /// SIGTERM, then the exit code.
    fn terminate(mut self) -> i32 {
        let pid = self.child.id() as libc::pid_t;
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().unwrap_or(-1);
            }
            assert!(
                started.elapsed() < DEADLINE,
                "svc listen did not end within {DEADLINE:?} of SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A QSO's time on (whole seconds, plus the milliseconds QSO Logged carries and Logged ADIF
/// drops): its Julian day and ms after midnight, and its ADIF date and time.
pub struct When {
    pub day: i64,
    pub ms: u32,
    pub date: String,
    pub time: String,
}

/// A QSO `seconds_ago`.
fn when(seconds_ago: i64) -> When {
    let now = svc::model::Timestamp::now().millis();
    when_at(svc::model::Timestamp((now / 1000 - seconds_ago) * 1000))
}

/// A QSO at `at`'s whole second.
pub fn when_at(at: svc::model::Timestamp) -> When {
    let at = at.millis() / 1000 * 1000 + 250;
    // 2026-11-28T13:01:05.250Z
    let text = svc::model::Timestamp(at).to_string();
    When {
        day: at.div_euclid(86_400_000) + UNIX_EPOCH_JULIAN_DAY,
        ms: at.rem_euclid(86_400_000) as u32,
        date: text[..10].replace('-', ""),
        time: text[11..19].replace(':', ""),
    }
}

/// QSO Logged (5), schema 2, as WSJT-X 2.6 sends it: `call` worked in FT8 on 20 m.
pub fn qso_logged(call: &str, at: &When) -> Vec<u8> {
    qso_logged_with(call, at, "", "")
}

/// QSO Logged (5) with the exchanges sent and received, as WSJT-X's Field Day and RTTY
/// Roundup modes fill them.
pub fn qso_logged_with(call: &str, at: &When, sent: &str, received: &str) -> Vec<u8> {
    // Time off a minute after time on, on the next UTC day when that crosses midnight.
    let off = i64::from(at.ms) + 60_000;
    let mut q = Qds::header(2, 5, "WSJT-X");
    q.put_qdatetime(
        at.day + off.div_euclid(86_400_000),
        off.rem_euclid(86_400_000) as u32,
        Spec::Utc,
    )
    .put_utf8(call)
    .put_utf8("FN42")
    .put_u64(14_075_500)
    .put_utf8("FT8")
    .put_utf8("-12")
    .put_utf8("-07")
    .put_utf8("100")
    .put_utf8("")
    .put_utf8("")
    .put_qdatetime(at.day, at.ms, Spec::Utc)
    .put_utf8("W1AW")
    .put_utf8("W1AW")
    .put_utf8("FN31")
    .put_utf8(sent)
    .put_utf8(received)
    .put_utf8("");
    q.bytes
}

/// Logged ADIF (12): the same QSO as WSJT-X writes it, header and one record.
pub fn logged_adif(call: &str, at: &When) -> Vec<u8> {
    let field = |name: &str, value: &str| format!("<{name}:{}>{value} ", value.len());
    let record = [
        field("call", call),
        field("gridsquare", "FN42"),
        field("mode", "FT8"),
        field("rst_sent", "-12"),
        field("rst_rcvd", "-07"),
        field("qso_date", &at.date),
        field("time_on", &at.time),
        field("band", "20m"),
        field("freq", "14.0755"),
        field("station_callsign", "W1AW"),
        field("my_gridsquare", "FN31"),
    ]
    .concat();
    let text = format!("\n<adif_ver:5>3.1.0\n<programid:6>WSJT-X\n<EOH>\n{record}<EOR>");
    let mut q = Qds::header(2, 12, "WSJT-X");
    q.put_utf8(&text);
    q.bytes
}

fn the_same_qso_reported_three_ways_is_stored_once_and_everything_is_forwarded() {
    let (_server, api, cli) = setup("basic");
    let port = free_udp_port();
    let forward = UdpSocket::bind("127.0.0.1:0").unwrap();
    forward
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let bind = format!("127.0.0.1:{port}");
    let forward_to = forward.local_addr().unwrap().to_string();
    let mut listen = Listening::start(&cli, &["--bind", &bind, "--forward", &forward_to]);
    let wsjtx = UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut sent: Vec<Vec<u8>> = Vec::new();
    let mut send = |datagram: Vec<u8>| {
        wsjtx.send_to(&datagram, &bind).unwrap();
        sent.push(datagram);
    };

    // A heartbeat names the sender, once.
    let mut heartbeat = Qds::header(3, 0, "WSJT-X");
    heartbeat.put_u32(3).put_utf8("2.6.1").put_utf8("3a5bc9");
    send(heartbeat.bytes.clone());
    let status = listen.next_event("status");
    assert_eq!(status["kind"], "heartbeat");
    assert_eq!(status["id"], "WSJT-X");
    assert_eq!(status["version"], "2.6.1");
    assert_eq!(status["first"], true);

    // QSO Logged, then WSJT-X's Logged ADIF of the same QSO, then QSO Logged again.
    let at = when(120);
    send(qso_logged("K1ABC", &at));
    let logged = listen.next_event("logged");
    assert_eq!(logged["source"], "QSO Logged");
    assert_eq!(logged["callsign"], "K1ABC");
    assert_eq!(logged["band"], "20m");
    assert_eq!(logged["mode"], "FT8");
    assert_eq!(logged["rstSent"], "-12");
    assert_eq!(logged["rstReceived"], "-07");
    let key = logged["idempotencyKey"].as_str().unwrap().to_owned();
    assert!(key.starts_with("wsjtx-"), "{logged}");
    send(logged_adif("K1ABC", &at));
    let duplicate = listen.next_event("duplicate");
    assert_eq!(duplicate["source"], "Logged ADIF");
    assert_eq!(duplicate["entry"], logged["entry"]);
    assert_eq!(duplicate["idempotencyKey"], key.as_str());
    send(qso_logged("K1ABC", &at));
    let again = listen.next_event("duplicate");
    assert_eq!(again["source"], "QSO Logged");
    assert_eq!(again["entry"], logged["entry"]);

    // A program that sends only Logged ADIF has its QSOs logged from it.
    let other = when(60);
    send(logged_adif("N0CALL", &other));
    let from_adif = listen.next_event("logged");
    assert_eq!(from_adif["source"], "Logged ADIF");
    assert_eq!(from_adif["callsign"], "N0CALL");
    assert_eq!(from_adif["band"], "20m");

    // Malformed datagrams are dropped with the decoder's words, and logged as nothing.
    let mut truncated = qso_logged("W9XYZ", &when(30));
    truncated.truncate(60);
    send(truncated);
    let dropped = listen.next_event("dropped");
    assert!(
        dropped["message"]
            .as_str()
            .unwrap()
            .starts_with("QSO Logged: truncated in field"),
        "{dropped}"
    );
    // A QSO Logged that decodes but makes no contact (a null time on) is dropped too.
    let mut no_time = Qds::header(2, 5, "WSJT-X");
    no_time
        .put_null_qdatetime()
        .put_utf8("W9XYZ")
        .put_utf8("")
        .put_u64(14_075_500)
        .put_utf8("FT8");
    for _ in 0..5 {
        no_time.put_utf8("");
    }
    no_time.put_null_qdatetime();
    send(no_time.bytes);
    let dropped = listen.next_event("dropped");
    assert_eq!(dropped["id"], "WSJT-X");
    assert!(
        dropped["message"].as_str().unwrap().contains("no time on"),
        "{dropped}"
    );
    send(b"GET / HTTP/1.1\r\n\r\n".to_vec());
    let dropped = listen.next_event("dropped");
    assert!(
        dropped["message"]
            .as_str()
            .unwrap()
            .contains("not a WSJT-X datagram"),
        "{dropped}"
    );

    // The service stores each QSO once.
    let folder = logged["folderId"].as_str().unwrap().to_owned();
    let month_folder = api.monthly(&crate::common::this_month().0, None);
    let stored = || {
        let mut calls: Vec<String> = api
            .all_contacts(&month_folder)
            .iter()
            .map(|c| c["callsign"].as_str().unwrap().to_owned())
            .collect();
        calls.sort();
        calls
    };
    eventually("both QSOs stored", || stored().len() >= 2);
    assert_eq!(stored(), ["K1ABC", "N0CALL"], "logged into {folder}");

    // Every datagram went on to the forward address, unchanged and in order.
    let mut buffer = vec![0u8; 65_536];
    for expected in &sent {
        let (length, _) = forward.recv_from(&mut buffer).unwrap();
        assert_eq!(&buffer[..length], expected.as_slice());
    }

    // SIGTERM ends it cleanly.
    assert_eq!(listen.terminate(), 0);
    assert_eq!(stored(), ["K1ABC", "N0CALL"]);
    assert_eq!(api.qso_count(), 2);

    // Started again, it holds the key: the same QSO heard anew is a duplicate.
    let mut listen = Listening::start(&cli, &["--bind", &bind]);
    wsjtx.send_to(&qso_logged("K1ABC", &at), &bind).unwrap();
    let again = listen.next_event("status");
    assert_eq!(again["kind"], "qso logged");
    let again = listen.next_event("duplicate");
    assert_eq!(again["idempotencyKey"], key.as_str());
    assert_eq!(listen.terminate(), 0);
    assert_eq!(api.qso_count(), 2);
}

/// WSJT-X in its Field Day mode, logging into a Field Day log: the exchange it received is
/// read into the contest's fields, and the contest's dupe rule holds.
fn a_field_day_qso_from_wsjtx_lands_in_the_contest_log_with_its_exchange() {
    let (_server, api, cli) = setup("basic");
    let log = api.post(
        "/v1/contests",
        serde_json::json!({"contestId": "ARRL-FD", "callsign": "W1AW", "exchange": "2A CT"}),
    );
    assert_eq!(log.status, 201, "{}", log.body);
    let id = log.id();
    let port = free_udp_port();
    let bind = format!("127.0.0.1:{port}");
    let mut listen = Listening::start(&cli, &["--bind", &bind, "--folder", &id]);
    let wsjtx = UdpSocket::bind("127.0.0.1:0").unwrap();
    wsjtx
        .send_to(
            &qso_logged_with("K1ABC", &when(120), "2A CT", "3A EMA"),
            &bind,
        )
        .unwrap();
    // The first message from this WSJT-X names it.
    listen.next_event("status");
    listen.next_event("logged");
    // The same station on the same band and mode a minute later is a dupe by Field Day's
    // rule, and still stored.
    wsjtx
        .send_to(
            &qso_logged_with("K1ABC", &when(60), "2A CT", "3A EMA"),
            &bind,
        )
        .unwrap();
    listen.next_event("logged");
    eventually("both stored", || api.all_contacts(&id).len() == 2);
    let stored = api.all_contacts(&id);
    for c in &stored {
        assert_eq!(c["class"], "3A", "{c}");
        assert_eq!(c["arrlSect"], "EMA", "{c}");
        assert_eq!(c["contestId"], "ARRL-FIELD-DAY", "{c}");
        assert_eq!(c["stxString"], "2A CT", "{c}");
    }
    assert_eq!(
        stored
            .iter()
            .filter(|c| c["duplicateOf"].is_string())
            .count(),
        1,
        "{stored:?}"
    );
    let shown = api.get(&format!("/v1/contests/{id}"));
    assert_eq!(shown.body["standing"]["qsos"], 1, "{}", shown.body);
    assert_eq!(shown.body["standing"]["points"], 2, "FT8 is data: 2 points");
    assert_eq!(listen.terminate(), 0);
}

fn text_mode_prints_a_line_per_qso_and_names_the_sender_once() {
    let (_server, api, cli) = setup("basic");
    let bind = format!("127.0.0.1:{}", free_udp_port());
    let mut listen = Listening::start_text(&cli, &["--bind", &bind]);
    let wsjtx = UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut heartbeat = Qds::header(3, 0, "WSJT-X");
    heartbeat.put_u32(3).put_utf8("2.6.1").put_utf8("3a5bc9");
    let at = when(90);
    for datagram in [
        heartbeat.bytes.clone(),
        heartbeat.bytes,
        qso_logged("K1ABC", &at),
        logged_adif("K1ABC", &at),
        b"junk".to_vec(),
    ] {
        wsjtx.send_to(&datagram, &bind).unwrap();
    }
    assert_eq!(listen.next_line(), "hearing WSJT-X WSJT-X 2.6.1");
    assert_eq!(listen.next_line(), "logged K1ABC 20m FT8 -12/-07 (WSJT-X)");
    assert_eq!(
        listen.next_line(),
        "duplicate K1ABC 20m FT8 (already logged)"
    );
    let dropped = listen.next_line();
    assert!(
        dropped.starts_with("dropped a datagram from 127.0.0.1:"),
        "{dropped}"
    );
    eventually("K1ABC stored", || api.qso_count() == 1);
    assert_eq!(listen.terminate(), 0);
}

fn a_port_taken_is_named_with_what_to_do() {
    let (_server, _api, cli) = setup("basic");
    let taken = UdpSocket::bind("127.0.0.1:0").unwrap();
    let bind = taken.local_addr().unwrap().to_string();
    let run = cli.run(&["listen", "wsjtx", "--bind", &bind]);
    let message = run.fails(1, "listen wsjtx", "local_error");
    assert!(message.contains(&bind), "{message}");
    assert!(message.contains("--bind"), "{message}");
    // This test's process holds it: named, where the system says (Linux).
    if cfg!(target_os = "linux") {
        assert!(message.contains("the port is taken by main-"), "{message}");
        assert!(
            message.contains(&format!("(pid {})", std::process::id())),
            "{message}"
        );
    }
}

/// One ADIF record of an FT8 QSO on 20 m, as JS8Call or WSJT-X's secondary UDP server
/// writes it.
fn adif_record(call: &str, at: &When) -> String {
    let field = |name: &str, value: &str| format!("<{name}:{}>{value} ", value.len());
    let fields = [
        field("CALL", call),
        field("GRIDSQUARE", "FN42"),
        field("MODE", "FT8"),
        field("RST_SENT", "-10"),
        field("RST_RCVD", "-15"),
        field("QSO_DATE", &at.date),
        field("TIME_ON", &at.time),
        field("BAND", "20m"),
        field("FREQ", "14.074"),
        field("STATION_CALLSIGN", "W1AW"),
    ]
    .concat();
    format!("{fields}<EOR>\n")
}

fn adif_records_are_logged_once_under_the_import_key() {
    let (_server, api, cli) = setup("basic");
    let bind = format!("127.0.0.1:{}", free_udp_port());
    let mut listen = Listening::start_on(&cli, "adif", &["--bind", &bind]);
    let sender = UdpSocket::bind("127.0.0.1:0").unwrap();
    let send = |text: &str| {
        sender.send_to(text.as_bytes(), &bind).unwrap();
    };

    // One record, no header, logged under the ADIF import's key and its folder.
    let at = when(120);
    let one = adif_record("K1ABC", &at);
    send(&one);
    let logged = listen.next_event("logged");
    assert_eq!(logged["source"], "ADIF");
    assert_eq!(logged["callsign"], "K1ABC");
    assert_eq!(logged["band"], "20m");
    assert_eq!(logged["mode"], "FT8");
    assert_eq!(logged["rstSent"], "-10");
    let key = logged["idempotencyKey"].as_str().unwrap().to_owned();
    let folder = logged["folderId"].as_str().unwrap().to_owned();
    assert!(folder.starts_with("fld_"), "{logged}");
    assert!(key.starts_with("adif-"), "{logged}");
    assert!(key.ends_with(&format!(":{folder}")), "{logged}");

    // The same record again is a duplicate.
    send(&one);
    let duplicate = listen.next_event("duplicate");
    assert_eq!(duplicate["source"], "ADIF");
    assert_eq!(duplicate["entry"], logged["entry"]);
    assert_eq!(duplicate["idempotencyKey"], key.as_str());

    // A datagram of two records, with a header, logs both.
    let two = format!(
        "JS8Call log\n<ADIF_VER:5>3.1.0 <PROGRAMID:7>JS8Call <EOH>\n{}{}",
        adif_record("N0CALL", &when(90)),
        adif_record("W9XYZ", &when(60)),
    );
    send(&two);
    let first = listen.next_event("logged");
    assert_eq!(first["callsign"], "N0CALL");
    assert_eq!(first["id"], "JS8Call");
    let second = listen.next_event("logged");
    assert_eq!(second["callsign"], "W9XYZ");

    // Garbage, and a record that makes no contact, are dropped.
    send("hello, this is not ADIF");
    let dropped = listen.next_event("dropped");
    assert!(
        dropped["message"].as_str().unwrap().starts_with("ADIF: "),
        "{dropped}"
    );
    send("<CALL:5>K2XYZ <MODE:3>FT8 <EOR>");
    let dropped = listen.next_event("dropped");
    assert!(
        dropped["message"].as_str().unwrap().contains("QSO_DATE"),
        "{dropped}"
    );

    // The service stores each once.
    let stored = || {
        let mut calls: Vec<String> = api
            .all_contacts(&folder)
            .iter()
            .map(|c| c["callsign"].as_str().unwrap().to_owned())
            .collect();
        calls.sort();
        calls
    };
    eventually("the three records stored", || stored().len() >= 3);
    assert_eq!(stored(), ["K1ABC", "N0CALL", "W9XYZ"]);
    assert_eq!(listen.terminate(), 0);
    assert_eq!(api.qso_count(), 3);
}

/// N1MM Logger+'s broadcast of an FT8 contact (svc-n1mm's fixture `N1MM_FT8`, from
/// ptsmonteiro/loghub's tests) as the message `root`, its timestamps `at`.
fn n1mm_contact(root: &str, at: &str) -> String {
    n1mm_fixtures::N1MM_FT8
        .replace("contactinfo>", &format!("{root}>"))
        .replace("2023-06-30 18:00:30", at)
}

fn n1mm_contacts_are_logged_once_and_deletes_ignored() {
    let (_server, api, cli) = setup("basic");
    let bind = format!("127.0.0.1:{}", free_udp_port());
    let mut listen = Listening::start_on(&cli, "n1mm", &["--bind", &bind]);
    let n1mm = UdpSocket::bind("127.0.0.1:0").unwrap();
    let send = |text: &str| {
        n1mm.send_to(text.as_bytes(), &bind).unwrap();
    };
    // Two minutes ago, as N1MM writes it: 2023-06-30 18:00:30.
    let at = when(120);
    let timestamp = format!(
        "{}-{}-{} {}:{}:{}",
        &at.date[..4],
        &at.date[4..6],
        &at.date[6..],
        &at.time[..2],
        &at.time[2..4],
        &at.time[4..]
    );

    let info = n1mm_contact("contactinfo", &timestamp);
    send(&info);
    let logged = listen.next_event("logged");
    assert_eq!(logged["source"], "N1MM+");
    assert_eq!(logged["id"], "N1MM");
    assert_eq!(logged["callsign"], "EA5EB");
    assert_eq!(logged["band"], "10m");
    assert_eq!(logged["mode"], "FT8");
    assert_eq!(logged["rstSent"], "-08");
    assert_eq!(logged["rstReceived"], "-11");
    let key = logged["idempotencyKey"].as_str().unwrap().to_owned();
    assert!(key.starts_with("n1mm-"), "{logged}");

    // Heard again, and edited in N1MM: duplicates, nothing logged or changed.
    send(&info);
    let duplicate = listen.next_event("duplicate");
    assert_eq!(duplicate["source"], "N1MM+");
    assert_eq!(duplicate["entry"], logged["entry"]);
    assert_eq!(duplicate["idempotencyKey"], key.as_str());
    send(&n1mm_contact("contactreplace", &timestamp));
    let edit = listen.next_event("duplicate");
    assert_eq!(edit["entry"], logged["entry"]);
    assert!(
        edit["message"].as_str().unwrap().contains("not applied"),
        "{edit}"
    );

    // A RadioInfo is a status event, not a contact.
    send(
        r#"<?xml version="1.0" encoding="utf-8"?>
<RadioInfo>
  <app>N1MM</app>
  <StationName>8700K</StationName>
  <RadioNr>1</RadioNr>
  <Freq>2807535</Freq>
  <TXFreq>2807535</TXFreq>
  <Mode>FT8</Mode>
  <OpCall>F4JAW</OpCall>
  <IsRunning>False</IsRunning>
</RadioInfo>"#,
    );
    let status = listen.next_event("status");
    assert_eq!(status["kind"], "RadioInfo");

    // A delete is named and not applied.
    send(&format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<contactdelete>
  <app>N1MM</app>
  <timestamp>{timestamp}</timestamp>
  <call>EA5EB</call>
  <contestnr>0</contestnr>
  <StationName>8700K</StationName>
  <ID>cc186cb34185419db60f4388391bf508</ID>
</contactdelete>"#
    ));
    let ignored = listen.next_event("ignored");
    assert_eq!(ignored["source"], "N1MM+");
    assert_eq!(ignored["callsign"], "EA5EB");
    assert_eq!(ignored["idempotencyKey"], key.as_str());

    send("<contactinfo><call>EA5EB</call>");
    let dropped = listen.next_event("dropped");
    assert!(
        dropped["message"].as_str().unwrap().starts_with("N1MM+: "),
        "{dropped}"
    );

    // The service stores it once, with its call, band and mode.
    let folder = api.monthly(&crate::common::this_month().0, None);
    let stored = || api.all_contacts(&folder);
    eventually("EA5EB stored", || !stored().is_empty());
    let contacts = stored();
    assert_eq!(contacts.len(), 1, "{contacts:#?}");
    assert_eq!(contacts[0]["callsign"], "EA5EB");
    assert_eq!(contacts[0]["band"], "10m");
    assert_eq!(contacts[0]["mode"], "FT8");
    assert_eq!(listen.terminate(), 0);
    assert_eq!(api.qso_count(), 1);
}

#[test]
fn adif_records() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        adif_records_are_logged_once_under_the_import_key,
    );
}

#[test]
fn n1mm_contacts() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        n1mm_contacts_are_logged_once_and_deletes_ignored,
    );
}

#[test]
fn the_same_qso_is_stored_once() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        the_same_qso_reported_three_ways_is_stored_once_and_everything_is_forwarded,
    );
}

#[test]
fn a_field_day_qso_from_wsjtx() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        a_field_day_qso_from_wsjtx_lands_in_the_contest_log_with_its_exchange,
    );
}

#[test]
fn text_mode() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        text_mode_prints_a_line_per_qso_and_names_the_sender_once,
    );
}

#[test]
fn a_port_taken() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        a_port_taken_is_named_with_what_to_do,
    );
}
