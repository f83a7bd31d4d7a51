//! Callsign benchmark: what the logbook will pay to show who a call is while it is typed.
//! Cold loads of the shipped `cty.csv` and `MASTER.SCP` (each and together), `Dxcc::resolve`
//! over 10,000 mixed calls, and the cost of one keystroke (`resolve` and `partial`, limit 20)
//! for every prefix of 1,000 calls typed letter by letter, against the first 30,000 calls of
//! the shipped MASTER.SCP and against all of it. Targets: the loads 50 ms together, a
//! keystroke 1 ms at p99.
//!
//! Run with `cargo bench --bench callsign`. Timings are printed, never asserted.

use std::hint::black_box;
use std::time::{Duration, Instant};

use svc::model::dxcc::Dxcc;
use svc::model::scp::MasterScp;

const LOADS: usize = 20;
const RESOLVES: usize = 10_000;
const TYPED: usize = 1_000;
const LIMIT: usize = 20;
const SMALL_SCP: usize = 30_000;

const SHIPPED_SCP: &str = include_str!("../crates/model/data/MASTER.SCP");

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// The value at `q` (0 to 1) of sorted times.
fn at(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn time<T>(f: impl FnOnce() -> T) -> Duration {
    let started = Instant::now();
    black_box(f());
    started.elapsed()
}

fn loads(label: &str, mut load: impl FnMut()) {
    let mut times: Vec<Duration> = (0..LOADS).map(|_| time(&mut load)).collect();
    times.sort();
    println!(
        "load {label:<22} n={LOADS}  median {:>6.2} ms  max {:>6.2} ms",
        ms(at(&times, 0.5)),
        ms(times[LOADS - 1]),
    );
}

/// Calls of the shipped list in file order, every n-th so that they spread over it.
fn sample(count: usize) -> Vec<String> {
    let calls: Vec<&str> = SHIPPED_SCP
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect();
    let step = calls.len() / count;
    calls
        .into_iter()
        .step_by(step)
        .take(count)
        .map(str::to_owned)
        .collect()
}

fn main() {
    println!("callsign lookups: cty.csv and MASTER.SCP as shipped in crates/model/data/");
    loads("cty.csv", || {
        black_box(Dxcc::shipped());
    });
    loads("MASTER.SCP", || {
        black_box(MasterScp::shipped());
    });
    loads("both", || {
        black_box((Dxcc::shipped(), MasterScp::shipped()));
    });

    let dxcc = Dxcc::shipped();
    // Calls as a log holds them: plain, portable, mobile at sea, lower-case, a call area moved.
    let mixed: Vec<String> = sample(RESOLVES)
        .into_iter()
        .enumerate()
        .map(|(i, call)| match i % 10 {
            1 => format!("{call}/P"),
            2 => format!("KH6/{call}"),
            3 => format!("{call}/KH6"),
            4 => format!("{call}/MM"),
            5 => call.to_ascii_lowercase(),
            6 => format!("{call}/6"),
            _ => call,
        })
        .collect();
    for call in &mixed {
        black_box(dxcc.resolve(call));
    }
    let mut times: Vec<Duration> = mixed
        .iter()
        .map(|call| time(|| dxcc.resolve(call)))
        .collect();
    let unknown = mixed.iter().filter(|c| dxcc.resolve(c).is_none()).count();
    times.sort();
    println!(
        "resolve, {RESOLVES} mixed calls ({unknown} without entity): median {:.2} µs  p99 {:.2} µs  max {:.2} µs",
        us(at(&times, 0.5)),
        us(at(&times, 0.99)),
        us(times[RESOLVES - 1]),
    );

    let small_text: String = SHIPPED_SCP
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(SMALL_SCP)
        .map(|l| format!("{l}\n"))
        .collect();
    let typed = sample(TYPED);
    for (label, scp) in [
        ("first 30,000 calls", MasterScp::load(&small_text)),
        ("whole file", MasterScp::shipped()),
    ] {
        let mut times = Vec::new();
        let mut shown = 0;
        for call in &typed {
            for end in 1..=call.len() {
                let text = &call[..end];
                times.push(time(|| {
                    shown += scp.partial(text, LIMIT).len();
                    (dxcc.resolve(text), shown)
                }));
            }
        }
        times.sort();
        println!(
            "keystroke, resolve + partial (limit {LIMIT}), {label} ({} calls), {} keystrokes: p50 {:.1} µs  p99 {:.1} µs  max {:.1} µs  ({:.1} calls shown a keystroke)",
            scp.len(),
            times.len(),
            us(at(&times, 0.5)),
            us(at(&times, 0.99)),
            us(times[times.len() - 1]),
            shown as f64 / times.len() as f64,
        );
    }
}
