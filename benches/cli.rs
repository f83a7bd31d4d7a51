//! Client start-up benchmark: spawns the release `svc` binary again and again and prints the
//! median and p90 wall time and the peak RSS of `svc --version`, `svc --help-json` and
//! `svc whoami --json`, the last against a real `svc server start` on loopback.
//!
//! Run with `cargo bench --bench cli`. Timings are printed, never asserted.

use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{BIN, start_server};
/// Runs per command after the warm-up runs (which fill the page cache with the binary).
const RUNS: usize = 300;
const WARM_UP: usize = 20;

/// Wall time and peak RSS (KiB) of one run; the exit status must be success.
// The child is reaped by wait4, which std's Child does not know about.
#[allow(clippy::zombie_processes)]
fn run_once(program: &str, args: &[&str], env: &[(&str, String)]) -> (Duration, i64) {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .env("SVC_NO_KEYRING", "1")
        .env_remove("DBUS_SESSION_BUS_ADDRESS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let started = Instant::now();
    let child = cmd.spawn().expect("spawn svc");
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for this child, which std has not reaped.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = started.elapsed();
    assert_eq!(waited, pid, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{program} {args:?} failed with status {status}"
    );
    (elapsed, usage.ru_maxrss)
}

fn measure(label: &str, program: &str, args: &[&str], env: &[(&str, String)]) {
    for _ in 0..WARM_UP {
        run_once(program, args, env);
    }
    let mut times = Vec::with_capacity(RUNS);
    let mut peak = 0;
    for _ in 0..RUNS {
        let (t, rss) = run_once(program, args, env);
        times.push(t);
        peak = peak.max(rss);
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{label:<22} median {:>6.2} ms   p90 {:>6.2} ms   min {:>6.2} ms   peak RSS {:>5.1} MB",
        ms(times[RUNS / 2]),
        ms(times[RUNS * 9 / 10]),
        ms(times[0]),
        peak as f64 / 1024.0
    );
}

/// How much of `link/startup.order` the binary still has: the list names functions of two
/// builds (release and bench), so a current list finds about half of its names in either.
/// Fewer means it is stale and start-up memory grows back; `link/update-startup-order`
/// writes it again.
fn startup_order() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/link/startup.order");
    let Ok(list) = std::fs::read_to_string(path) else {
        println!("link/startup.order: missing");
        return;
    };
    let listed: Vec<&str> = list.lines().filter(|l| !l.starts_with('#')).collect();
    let Ok(out) = Command::new("nm").args(["--defined-only", BIN]).output() else {
        println!("link/startup.order: not checked (no nm: Debian's binutils)");
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let defined: std::collections::HashSet<&str> =
        text.lines().filter_map(|l| l.split(' ').nth(2)).collect();
    let found = listed.iter().filter(|n| defined.contains(*n)).count();
    println!(
        "link/startup.order: {found} of its {} functions are in this binary",
        listed.len()
    );
}

fn main() -> ExitCode {
    let server = start_server("basic", &["--burst-limit"]);

    println!("svc client start-up, {RUNS} runs each after {WARM_UP} warm-up runs ({BIN})");
    let home = server.dir.path().join("home");
    let env = vec![
        ("HOME", home.display().to_string()),
        ("XDG_CONFIG_HOME", home.join("config").display().to_string()),
    ];
    // What spawning any process costs here, for scale.
    measure("true (spawn baseline)", "true", &[], &env);
    measure("svc --version", BIN, &["--version"], &env);
    measure("svc --help-json", BIN, &["--help-json"], &env);
    let mut with_key = env.clone();
    with_key.push(("SVC_API_KEY", server.key.clone()));
    with_key.push(("SVC_API_BASE", server.url.clone()));
    measure("svc whoami --json", BIN, &["whoami", "--json"], &with_key);

    drop(server);
    // Last: the list and the symbol table grow this process, and a child's peak RSS counts
    // its parent's pages until its exec.
    startup_order();
    ExitCode::SUCCESS
}
