//! Contest benchmark, for the two figures a contester feels:
//!
//! - **The check a keystroke makes** (`keystroke`): as the call is typed into the entry form,
//!   whether it is a dupe by the contest's rule and which multipliers it would bring
//!   (`svc_model::contest::Tally::judge`), on a log of 10,000 QSOs already made: CQ WW CW
//!   (dupes a band, zones and entities a band, points by where the station is, from the
//!   country file) and Sweepstakes (dupes once, sections). Each of 2,000 calls is typed a
//!   character at a time; every prefix is judged, as the form does at each keystroke.
//! - **A key in the logbook's form** (`form`): the same, as the logbook does it, through
//!   `update` in this process (the contest's judgement of the call, the log's standing, the
//!   entity from the country file, the super check partial list), the form open on a CQ WW
//!   log of 10,000 contacts loaded in the logbook.
//! - **The Cabrillo file** (`cabrillo`): `svc export cabrillo` of a 10,000-QSO CQ WW log, end
//!   to end (the CLI, a `svc server start` with its default limits, the store, the standing
//!   and the file), on SQLite and PostgreSQL (Debian's, stock). The log is imported first
//!   with `svc import adif --auto` from a contest logger's file ([`record`]).
//!
//! Run with `cargo bench --bench contest` (`-- keystroke`, `-- form`, `-- sqlite` or
//! `-- postgres` for one part). Timings are printed, never asserted; it exits non-zero only if an answer is
//! wrong.

use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

mod common;

use common::{BIN, Server, fresh_postgres_database, start_server, start_server_on};
use svc::model::contest::{Contest, Scored, Tally, Whereabouts};
use svc::model::dxcc::Dxcc;

const QSOS: usize = 10_000;
const TYPED: usize = 2_000;
const RUNS: usize = 7;
const BANDS: [(&str, &str); 6] = [
    ("160m", "1.830"),
    ("80m", "3.530"),
    ("40m", "7.030"),
    ("20m", "14.030"),
    ("15m", "21.030"),
    ("10m", "28.030"),
];
/// Prefixes of the world the calls are made of, so that the country file places them on
/// every continent.
const PREFIXES: [&str; 12] = [
    "K", "W", "VE", "DL", "G", "JA", "VK", "PY", "ZS", "UA", "EA", "LU",
];

/// The `n`th call of the log: 12 prefixes, a digit and three letters.
fn call(n: usize) -> String {
    let letter = |i: usize| char::from(b'A' + (i % 26) as u8);
    format!(
        "{}{}{}{}{}",
        PREFIXES[n % PREFIXES.len()],
        n % 10,
        letter(n / 7),
        letter(n / 131),
        letter(n / 1709)
    )
}

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1_000_000.0
}

/// The keystroke check on a log of `contest` holding [`QSOS`] QSOs; `received` gives each
/// QSO's exchange. Returns whether the log counted what it should.
fn keystroke(contest_id: &str, received: impl Fn(usize) -> Vec<(&'static str, String)>) -> bool {
    let contest = Contest::find(contest_id).expect("a shipped contest");
    let dxcc = Dxcc::shipped();
    let place = |call: &str| dxcc.resolve(call).map(Whereabouts::from);
    let own = place("W1AW");
    let mut tally = Tally::new(contest, own);
    let started = Instant::now();
    for n in 0..QSOS {
        let call = call(n);
        let received = received(n);
        tally.add(&Scored {
            callsign: &call,
            band: BANDS[n % BANDS.len()].0,
            mode: "CW",
            received: &received,
            worked: place(&call),
        });
    }
    let built = started.elapsed();
    let mut times = Vec::with_capacity(TYPED * 8);
    let mut dupes = 0;
    for n in 0..TYPED {
        // Half the calls typed are in the log already, half are new.
        let call = call(n * 7 + (n % 2) * QSOS);
        let received = received(n);
        let band = BANDS[(n * 7) % BANDS.len()].0;
        for end in 1..=call.len() {
            let typed = &call[..end];
            let started = Instant::now();
            // The form places the call as it is typed, then judges it.
            let worked = place(typed);
            let brought = tally.judge(&Scored {
                callsign: typed,
                band,
                mode: "CW",
                received: &received,
                worked,
            });
            times.push(started.elapsed());
            if end == call.len() && brought.dupe {
                dupes += 1;
            }
        }
    }
    times.sort();
    println!(
        "keystroke, {contest_id}: a log of {QSOS} QSOs built in {:.0} ms ({} counted, score {}); {} keystrokes judged: p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs; {dupes} of {TYPED} calls dupes",
        built.as_secs_f64() * 1000.0,
        tally.qsos(),
        tally.score(),
        times.len(),
        us(percentile(&times, 0.5)),
        us(percentile(&times, 0.99)),
        us(times[times.len() - 1]),
    );
    tally.qsos() > 0 && dupes > 0 && dupes < TYPED
}

/// The logbook with a CQ WW log of [`QSOS`] contacts open, every page loaded, the country
/// file and partial list read, and the entry form open on it; each key typed into the
/// callsign through `update`, timed.
fn form() -> bool {
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use svc::tui::{Action, App, update};
    let key = |code| Action::Key(KeyEvent::new(code, KeyModifiers::NONE));
    let now = svc::model::Timestamp::parse("now", "2025-11-30T23:00:00Z").unwrap();
    let (mut app, _) = App::new(svc::tui::app::Options::default(), now, (80, 24));
    let folder: svc::model::Folder = serde_json::from_value(serde_json::json!({
        "id": "fld_benchbenchbench1", "name": "BENCH1 CQ-WW-CW 2025-11-29", "type": "contest",
        "parentId": "fld_benchbenchbench0", "callsign": "W1AW", "contestId": "CQ-WW-CW",
        "exchange": "5", "startTime": "2025-11-29T00:00:00Z", "contactCount": QSOS,
        "createdAt": "2025-11-29T00:00:00Z",
    }))
    .unwrap();
    update(
        &mut app,
        Action::WhoamiLoaded(Ok(serde_json::from_value(serde_json::json!({
            "callsign": "W1AW", "plan": "paid", "tier": "elevated", "nativeQsoCount": QSOS,
        }))
        .unwrap())),
    );
    update(&mut app, Action::FoldersLoaded(Ok(vec![folder])));
    update(&mut app, Action::ActivationsLoaded(Ok(vec![])));
    update(&mut app, key(KeyCode::Enter));
    let dxcc = Dxcc::shipped();
    for page in 0..QSOS / 100 {
        let items = (0..100)
            .map(|i| {
                let n = page * 100 + i;
                let call = call(n);
                let (band, freq) = BANDS[n % BANDS.len()];
                let mut c: svc::model::Contact = serde_json::from_value(serde_json::json!({
                    "id": format!("qso_{n:016}"), "folderId": "fld_benchbenchbench1",
                    "callsign": call, "frequency": freq.parse::<f64>().unwrap(), "band": band,
                    "mode": "CW", "rstSent": "599", "rstReceived": "599",
                    "timeOn": svc::model::Timestamp(1_764_374_400_000 + n as i64 * 17_280).to_string(),
                    "cqz": n % 40 + 1, "contestId": "CQ-WW-CW", "stxString": "599 5",
                    "createdAt": "2025-11-29T00:00:00Z",
                }))
                .unwrap();
                dxcc.fill(&call, &mut c.fields);
                c
            })
            .collect();
        let generation = app.contacts.generation;
        update(
            &mut app,
            Action::ContactsLoaded {
                folder_id: "fld_benchbenchbench1".into(),
                generation,
                source: svc::tui::action::Source::Service,
                result: Ok(svc::model::Page {
                    items,
                    cursor: (page + 1 < QSOS / 100).then(|| format!("c{page}")),
                }),
            },
        );
    }
    let callsigns = std::sync::Arc::new(svc::tui::callsigns::Callsigns {
        dxcc: Dxcc::shipped(),
        scp: svc::model::scp::MasterScp::shipped(),
    });
    update(
        &mut app,
        Action::CallsignsLoaded {
            callsigns,
            warning: None,
        },
    );
    app.journal = svc::tui::components::outbox::JournalState::Open;
    update(
        &mut app,
        Action::Key(KeyEvent::new(KeyCode::Char('n'), KeyModifiers::ALT)),
    );
    // The frequency and mode first, as the radio gives them, and a zone in the exchange.
    for c in "\t14\t14.030\tCW".chars() {
        let code = if c == '\t' {
            KeyCode::Tab
        } else {
            KeyCode::Char(c)
        };
        update(&mut app, key(code));
    }
    update(&mut app, key(KeyCode::BackTab));
    update(&mut app, key(KeyCode::BackTab));
    update(&mut app, key(KeyCode::BackTab));
    let mut times = Vec::new();
    let mut dupes = 0;
    for n in 0..TYPED / 4 {
        // Half of them QSOs of the log on 20 m (every sixth is), half calls it has not.
        let call = call((n * 6 + 3) % QSOS + (n % 2) * QSOS);
        for c in call.chars() {
            let started = Instant::now();
            update(&mut app, key(KeyCode::Char(c)));
            times.push(started.elapsed());
        }
        let form = app.entry.as_ref().expect("the form is open");
        let contest = form.contest.as_ref().expect("a contest log's form");
        dupes += usize::from(contest.dupe);
        for _ in call.chars() {
            let started = Instant::now();
            update(&mut app, key(KeyCode::Backspace));
            times.push(started.elapsed());
        }
    }
    times.sort();
    println!(
        "form, CQ-WW-CW: {} keys into the callsign through update(), {QSOS} contacts loaded: p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs; {dupes} of {} calls dupes",
        times.len(),
        us(percentile(&times, 0.5)),
        us(percentile(&times, 0.99)),
        us(times[times.len() - 1]),
        TYPED / 4,
    );
    dupes > 0 && dupes < TYPED / 4
}

/// The `n`th QSO of the CQ WW log as a contest logger's ADIF writes it.
fn record(n: usize) -> String {
    const START_MS: i64 = 1_764_374_400_000; // 2025-11-29T00:00:00Z, CQ WW CW's Saturday
    // Ten thousand QSOs over 48 hours: one every 17 seconds.
    let at = START_MS + n as i64 * 17_280;
    let text = svc::model::Timestamp(at).to_string();
    let (date, time) = (text[..10].replace('-', ""), text[11..19].replace(':', ""));
    let (band, freq) = BANDS[n % BANDS.len()];
    let mut out = String::new();
    let mut field = |name: &str, value: &str| {
        out.push_str(&format!("<{name}:{}>{value} ", value.len()));
    };
    field("CALL", &call(n));
    field("QSO_DATE", &date);
    field("TIME_ON", &time);
    field("BAND", band);
    field("FREQ", freq);
    field("MODE", "CW");
    field("RST_SENT", "599");
    field("RST_RCVD", "599");
    field("CQZ", &(n % 40 + 1).to_string());
    field("CONTEST_ID", "CQ-WW-CW");
    field("STX_STRING", "599 5");
    field("STATION_CALLSIGN", "BENCH1");
    out.push_str("<EOR>\n");
    out
}

fn svc(server: &Server, args: &[&str]) -> (Duration, String) {
    let started = Instant::now();
    let out = Command::new(BIN)
        .args(args)
        .env("SVC_NO_KEYRING", "1")
        .env("SVC_API_BASE", &server.url)
        .env("SVC_API_KEY", &server.key)
        .env("HOME", server.dir.path())
        .env("XDG_DATA_HOME", server.dir.path())
        .env("XDG_CONFIG_HOME", server.dir.path())
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .output()
        .expect("run svc");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (started.elapsed(), String::from_utf8(out.stdout).unwrap())
}

/// Imports the log, then writes its Cabrillo file [`RUNS`] times.
fn cabrillo(name: &str, server: &Server) -> bool {
    let log = server.dir.path().join("cqww.adi");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&log).unwrap());
    writeln!(out, "A contest logger's export\n<ADIF_VER:5>3.1.4\n<EOH>").unwrap();
    for n in 0..QSOS {
        out.write_all(record(n).as_bytes()).unwrap();
    }
    out.flush().unwrap();
    drop(out);
    let (took, _) = svc(
        server,
        &["import", "adif", log.to_str().unwrap(), "--auto", "--quiet"],
    );
    println!(
        "{name}: {QSOS} QSOs imported into a contest log in {:.1} s",
        took.as_secs_f64()
    );
    let (_, listed) = svc(server, &["contest", "list", "--json"]);
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let Some(id) = listed["items"][0]["id"].as_str().map(str::to_owned) else {
        eprintln!("{name}: the import made no contest log: {listed}");
        return false;
    };
    let file = server.dir.path().join("cqww.log");
    let mut times = Vec::with_capacity(RUNS);
    let mut lines = 0;
    for _ in 0..RUNS {
        let (took, _) = svc(
            server,
            &[
                "export",
                "cabrillo",
                &id,
                "--category",
                "power=HIGH",
                "--out",
                file.to_str().unwrap(),
            ],
        );
        times.push(took);
        lines = std::fs::read_to_string(&file)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("QSO:"))
            .count();
    }
    times.sort();
    println!(
        "{name}: svc export cabrillo of {lines} QSOs: median {:.0} ms, max {:.0} ms ({RUNS} runs)",
        percentile(&times, 0.5).as_secs_f64() * 1000.0,
        times[times.len() - 1].as_secs_f64() * 1000.0,
    );
    lines == QSOS
}

fn main() -> std::process::ExitCode {
    let mut right = true;
    if common::wants("keystroke") {
        right &= keystroke("CQ-WW-CW", |n| {
            vec![
                ("RST_RCVD", "599".to_owned()),
                ("CQZ", (n % 40 + 1).to_string()),
            ]
        });
        const SECTIONS: [&str; 8] = ["CT", "EMA", "IL", "SCV", "STX", "WWA", "ONE", "GA"];
        right &= keystroke("ARRL-SS-CW", |n| {
            vec![
                ("SRX", (n + 1).to_string()),
                ("PRECEDENCE", "A".to_owned()),
                ("CHECK", "72".to_owned()),
                ("ARRL_SECT", SECTIONS[n % SECTIONS.len()].to_owned()),
            ]
        });
    }
    if common::wants("form") {
        right &= form();
    }
    if common::wants("sqlite") {
        let server = start_server("elevated", &[]);
        right &= cabrillo("sqlite", &server);
    }
    if common::wants("postgres") {
        let db = fresh_postgres_database("svc_bench_contest");
        let dir = tempfile::tempdir().expect("temp dir");
        let server = start_server_on(dir, &db, "elevated", &[]);
        right &= cabrillo("postgres", &server);
    }
    if right {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
