//! The Python packages some tests check svc against (independent readers of its output, the
//! official MCP SDK), pinned: installed from PyPI on first use into a virtual environment of
//! the tests' own under target/, which those tests then run. Once per test process, behind a
//! lock (a file lock too, for test processes that run at once). Made with
//! `--system-site-packages`, so that a pinned package the machine has already is used as it is.
//!
//! Without python3's venv module (Debian: apt-get install python3-venv) or PyPI, the tests that
//! need a package are skipped with a line that says so, or fail where SVC_TEST_REQUIRE_PYTHON=1
//! (as CI sets it).

use std::collections::BTreeSet;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The ADIF reader of PyPI's `adif-io`.
pub const ADIF_IO: &str = "adif-io==0.6.1";
/// Prometheus's own Python client, whose parser reads the metrics.
pub const PROMETHEUS_CLIENT: &str = "prometheus-client==0.26.0";
/// The official MCP Python SDK.
pub const MCP: &str = "mcp==1.30.0";
/// A Cabrillo parser, which reads the contest logs svc writes.
pub const CABRILLO: &str = "cabrillo==0.3.0";

/// The virtual environment's python with `package` (one of the pins above) installed; `None`
/// after saying why the test that asked does not run, or a panic where
/// SVC_TEST_REQUIRE_PYTHON=1.
pub fn with(package: &str, test: &str) -> Option<PathBuf> {
    match installed(package) {
        Ok(python) => Some(python),
        Err(why) => {
            if std::env::var("SVC_TEST_REQUIRE_PYTHON").is_ok_and(|v| v == "1") {
                panic!("{test} needs {package}: {why}; SVC_TEST_REQUIRE_PYTHON=1 requires it");
            }
            // Straight to the process's stderr: eprintln! would be captured and hidden.
            let _ = writeln!(
                std::io::stderr(),
                "skipped: {test} needs Python's {package}: {why}"
            );
            None
        }
    }
}

fn installed(package: &str) -> Result<PathBuf, String> {
    static READY: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let mut ready = READY.lock().unwrap_or_else(|e| e.into_inner());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python");
    let python = dir.join("bin").join("python");
    if ready.contains(package) {
        return Ok(python);
    }
    std::fs::create_dir_all(dir.parent().unwrap())
        .map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    // Held until the end of this function: another test process installs nothing meanwhile.
    let lock = std::fs::File::create(dir.with_extension("lock"))
        .map_err(|e| format!("cannot make the virtual environment's lock: {e}"))?;
    // SAFETY: flock only locks the file this descriptor is open on; the file outlives the call.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(format!(
            "cannot lock the virtual environment: {}",
            std::io::Error::last_os_error()
        ));
    }
    if !python.is_file() {
        run(Command::new("python3")
            .args(["-m", "venv", "--system-site-packages"])
            .arg(&dir))
        .map_err(|e| {
            format!(
                "cannot make a virtual environment in {} with python3 -m venv (Debian: apt-get \
                 install python3-venv): {e}",
                dir.display()
            )
        })?;
    }
    let (name, version) = package.split_once("==").expect("a pinned package");
    let has = Command::new(&python)
        .args([
            "-c",
            &format!("import importlib.metadata as m; print(m.version({name:?}))"),
        ])
        .output()
        .is_ok_and(|out| {
            out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == version
        });
    if !has {
        run(Command::new(&python).args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            package,
        ]))
        .map_err(|e| {
            format!(
                "cannot install it from PyPI into {} (remove that folder to have it made \
                 again): {e}",
                dir.display()
            )
        })?;
    }
    ready.insert(package.to_owned());
    Ok(python)
}

fn run(command: &mut Command) -> Result<(), String> {
    let out = command.output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}
