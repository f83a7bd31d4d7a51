//! A hundred sign-ups at once, each from its own address: the hashing pool makes some wait and
//! turns the rest away, so the server's memory stays bounded and goes back down after.

use std::time::Duration;

use super::{Browser, PASSWORD};
use crate::common::{Server, eventually};

fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    kib / 1024.0
}

#[test]
fn a_burst_of_sign_ups_keeps_memory_bounded() {
    // The server-wide sign-up limit (60 an hour by default) would turn most of the burst away
    // before any hashing, which is what this is about.
    let server = Server::process_with(&["--trust-proxy", "--signup-limit", "1000"]);
    let pid = server.pid();
    // A sign-up first, so the baseline includes what the first one sets up for good.
    let first = Browser::behind_proxy(&server.url, "10.9.9.9");
    assert_eq!(first.sign_up("K9BRS", PASSWORD).location(), "/keys");
    let before = rss_mib(pid);
    let signers: Vec<_> = (0..100)
        .map(|i| {
            let base = server.url.clone();
            std::thread::spawn(move || {
                let browser = Browser::behind_proxy(&base, &format!("10.0.{i}.1"));
                let form = browser.get("/signup");
                assert_eq!(form.status, 200);
                browser.sign_up(&format!("K{}B{i}", i % 10), PASSWORD)
            })
        })
        .collect();
    let mut peak = before;
    while signers.iter().any(|s| !s.is_finished()) {
        peak = peak.max(rss_mib(pid));
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut made = 0;
    for signer in signers {
        let page = signer.join().unwrap();
        match page.status {
            303 => made += 1,
            429 => {
                page.expect(429, "The server is busy");
                assert_eq!(page.header("retry-after"), Some("2"));
            }
            other => panic!("a sign-up answered {other}: {}", page.body),
        }
    }
    assert!(made >= 1, "no sign-up got through");
    // Argon2 takes 19 MiB a hash: a hundred at once unbounded would be nearly 2 GiB.
    assert!(peak <= 150.0, "peak {peak:.1} MiB (from {before:.1} MiB)");
    eventually("the memory of the burst to be given back", || {
        rss_mib(pid) < before + 15.0
    });
    // What was turned away made nothing, and the server still serves.
    assert_eq!(
        server.exec_sql("UPDATE accounts SET plan = plan", &[]),
        made + 1
    );
    let browser = Browser::new(&server);
    assert_eq!(browser.sign_in("K9BRS", PASSWORD).location(), "/log");
}

/// Sign-ups the hashing pool is too busy for cost the server's hourly budget nothing: after a
/// burst of a hundred from a hundred addresses, with one hash a core and none waiting so that
/// most are turned away busy, the budget still makes exactly its number of accounts.
#[test]
fn sign_ups_turned_away_busy_cost_no_budget() {
    const BUDGET: usize = 60;
    let server = Server::process_with(&[
        "--trust-proxy",
        "--signup-limit",
        &BUDGET.to_string(),
        "--hash-queue",
        "0",
    ]);
    let signers: Vec<_> = (0..100)
        .map(|i| {
            let base = server.url.clone();
            std::thread::spawn(move || {
                let browser = Browser::behind_proxy(&base, &format!("10.1.{i}.1"));
                assert_eq!(browser.get("/signup").status, 200);
                browser.sign_up(&format!("K{}C{i}", i % 10), PASSWORD)
            })
        })
        .collect();
    let (mut made, mut busy) = (0, 0);
    for signer in signers {
        let page = signer.join().unwrap();
        match page.status {
            303 => made += 1,
            429 if page.body.contains("The server is busy") => busy += 1,
            other => panic!("a sign-up of the burst answered {other}: {}", page.body),
        }
    }
    assert!(busy > 0, "the pool was never busy ({made} made)");
    assert!(made < BUDGET, "{made} made: the burst was not turned away");
    // The rest of the budget, one at a time, and not one more.
    for i in made..BUDGET {
        let browser = Browser::behind_proxy(&server.url, &format!("10.2.{i}.1"));
        let page = browser.sign_up(&format!("N{}D{i}", i % 10), PASSWORD);
        assert_eq!(
            page.status,
            303,
            "sign-up {} of {BUDGET} after {made} in the burst and {busy} busy: {}",
            i + 1,
            page.body
        );
    }
    let browser = Browser::behind_proxy(&server.url, "10.3.0.1");
    browser
        .sign_up("W9ONE", PASSWORD)
        .expect(429, "Too many sign-ups on this server");
    assert_eq!(
        server.exec_sql("UPDATE accounts SET plan = plan", &[]),
        BUDGET as u64
    );
}
