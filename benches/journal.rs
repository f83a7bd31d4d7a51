//! Offline journal benchmark: contacts logged into a journal with no link, then drained by
//! `push` (batches of 500 with their idempotency keys) to a real `svc server start` on SQLite
//! over loopback, the path `svc outbox push` and the logbook's sender take.
//!
//! Run with `cargo bench --bench journal`. Timings are printed, never asserted; it exits
//! non-zero only if a contact is missing or stored twice.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use svc::client::journal::{Journal, push};
use svc::client::{Client, NewFolderRequest};
use svc::model::ContactInput;
use svc::model::{ApiKey, Timestamp};

mod common;

use common::{BIN, start_server};
const WARM_UP: usize = 1_000;
const CONTACTS: usize = 10_000;

/// CPU time (user + system) of a process so far, from /proc.
fn cpu(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum();
    // SAFETY: sysconf only reads a configuration value.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_millis(ticks * 1000 / per_second)
}

fn contact(folder: &str, i: usize, time_on: &str) -> ContactInput {
    ContactInput {
        folder_id: folder.to_owned(),
        callsign: format!("K{i}BM"),
        frequency: 14.074,
        mode: "FT8".into(),
        time_on: time_on.to_owned(),
        rst_sent: Some("-10".into()),
        rst_received: Some("-12".into()),
        ..ContactInput::default()
    }
}

/// Logs `count` contacts one by one, each committed durably as the logbook does; prints the
/// rate and the latency of one log.
async fn log(journal: &Journal, folder: &str, first: usize, count: usize, label: &str) {
    let time_on = Timestamp::now().to_string();
    let mut times = Vec::with_capacity(count);
    let started = Instant::now();
    for i in first..first + count {
        let t = Instant::now();
        journal
            .log_contact(contact(folder, i, &time_on))
            .await
            .expect("log a contact");
        times.push(t.elapsed());
    }
    let wall = started.elapsed();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{label:<8} log {count:>6} contacts: {:>7.0} /s   one log p50 {:.2} ms  p99 {:.2} ms  max {:.2} ms",
        count as f64 / wall.as_secs_f64(),
        ms(times[count / 2]),
        ms(times[count * 99 / 100]),
        ms(times[count - 1]),
    );
}

/// Drains the journal and prints the rate and where the CPU went.
async fn drain(journal: &Journal, client: &Client, server_pid: u32, count: usize, label: &str) {
    let server_before = cpu(server_pid);
    let self_before = cpu(std::process::id());
    let started = Instant::now();
    let report = push(journal, client).await.expect("push");
    let wall = started.elapsed();
    let server = cpu(server_pid) - server_before;
    let own = cpu(std::process::id()) - self_before;
    assert!(report.stopped.is_none(), "{:?}", report.stopped);
    assert_eq!(report.sent.len(), count, "every contact sent");
    assert_eq!(report.waiting, 0);
    println!(
        "{label:<8} push {count:>6} contacts: {:>7.0} /s   {:.2} s, {} requests   CPU: server {:.2} s, journal+client {:.2} s",
        count as f64 / wall.as_secs_f64(),
        wall.as_secs_f64(),
        report.requests,
        server.as_secs_f64(),
        own.as_secs_f64(),
    );
}

fn main() -> ExitCode {
    let server = start_server(
        "basic",
        &[
            "--burst-limit",
            "--daily-contact-budget",
            "--lifetime-contact-budget",
        ],
    );
    println!(
        "journal drain to svc server start on SQLite ({BIN}): {WARM_UP} warm-up, then {CONTACTS}"
    );

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let failed = runtime.block_on(async {
        let key = ApiKey::parse(&server.key).expect("a key");
        // The sender's client, as `svc outbox push` makes it.
        let client = Client::new(server.url.parse().expect("a URL"), &key)
            .and_then(|c| c.with_timeouts(Duration::from_secs(3), Duration::from_secs(10)))
            .expect("a client");
        let folder = client
            .create_folder(&NewFolderRequest::Monthly {
                month: Timestamp::now().utc_month(),
                program_id: None,
            })
            .await
            .expect("a monthly folder")
            .folder
            .id;
        let journal = Journal::open_path(&server.dir.path().join("journal.db"))
            .await
            .expect("the journal");
        log(&journal, &folder, 0, WARM_UP, "warm-up").await;
        drain(
            &journal,
            &client,
            server.service.child.id(),
            WARM_UP,
            "warm-up",
        )
        .await;
        log(&journal, &folder, WARM_UP, CONTACTS, "measured").await;
        drain(
            &journal,
            &client,
            server.service.child.id(),
            CONTACTS,
            "measured",
        )
        .await;
        let stored = client.whoami().await.expect("whoami").native_qso_count;
        let expected = (WARM_UP + CONTACTS) as i64;
        if stored != expected {
            eprintln!("the service holds {stored} contacts, not {expected}");
            return true;
        }
        false
    });
    drop(server);
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
