//! The tests' own PostgreSQL cluster when `SVC_TEST_POSTGRES_URL` names none: made with
//! `initdb` in a temporary folder and started with `pg_ctl` on a free loopback port, once per
//! test process. Statics are never dropped, so a watchdog process stops the cluster and removes
//! its folder once the test process is gone, however it ended (a panic, a kill).

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::OnceLock;

/// The cluster's admin URL, the cluster started on the first call.
pub fn url() -> Result<&'static str, String> {
    static CLUSTER: OnceLock<Result<Cluster, String>> = OnceLock::new();
    match CLUSTER.get_or_init(start) {
        Ok(cluster) => Ok(&cluster.url),
        Err(e) => Err(e.clone()),
    }
}

struct Cluster {
    url: String,
    /// The watchdog waits for the end of this pipe, which only the kernel closes: when the
    /// test process exits.
    _watchdog: ChildStdin,
}

/// User `postgres` of `initdb -U` may connect without a password.
const SUPERUSER: &str = "postgres";

fn start() -> Result<Cluster, String> {
    let bin = binaries()?;
    let owner = owner()?;
    let mut dir = tempfile::Builder::new();
    dir.prefix("svc-test-postgres-");
    // In memory where there is a tmpfs: each test's database is a few hundred files made
    // and removed again, which costs a disk's file system more than the tests' queries.
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        dir.tempdir_in(shm)
    } else {
        dir.tempdir()
    }
    .map_err(|e| format!("cannot make the cluster's temporary folder: {e}"))?
    .keep();
    if let Some((uid, gid)) = owner {
        std::os::unix::fs::chown(&dir, Some(uid), Some(gid))
            .map_err(|e| format!("cannot give {} to user postgres: {e}", dir.display()))?;
    }
    let data = dir.join("data");
    let log = dir.join("log");

    // Spawned before initdb so that a cluster made only in part is removed too. In its own
    // process group, so that a Ctrl-C of the tests does not stop it before it cleans up.
    let watchdog = command(Path::new("sh"), owner, &dir)
        .arg("-c")
        .arg(r#"cat >/dev/null; "$1" -D "$2/data" stop -m immediate; rm -rf "$2""#)
        .arg("sh")
        .arg(bin.join("pg_ctl"))
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start the cluster's watchdog: {e}"))?
        .stdin
        .take()
        .expect("the watchdog's stdin");

    run(command(&bin.join("initdb"), owner, &dir)
        .arg("-D")
        .arg(&data)
        .args(["-U", SUPERUSER, "-A", "trust", "-E", "UTF8", "--locale=C"])
        .arg("--no-sync"))?;
    let socket_dir = dir.display().to_string().replace('\'', "''");
    // Durability is not wanted of a cluster deleted at exit. Each test's server pools up to 16
    // connections and as many tests run at once as there are cores, so a machine of many cores
    // would pass the default of 100.
    let settings = format!(
        "listen_addresses = '127.0.0.1'\n\
         unix_socket_directories = '{socket_dir}'\n\
         fsync = off\n\
         synchronous_commit = off\n\
         full_page_writes = off\n\
         max_connections = 500\n"
    );
    std::fs::OpenOptions::new()
        .append(true)
        .open(data.join("postgresql.conf"))
        .and_then(|mut conf| std::io::Write::write_all(&mut conf, settings.as_bytes()))
        .map_err(|e| format!("cannot configure the cluster in {}: {e}", data.display()))?;

    // The port is free when picked but another process may take it before PostgreSQL binds it.
    let mut attempts = 5;
    loop {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map_err(|e| format!("cannot find a free port on 127.0.0.1: {e}"))?
            .port();
        // pg_ctl appends, and an earlier attempt's bind failure must not be taken for this one's.
        let _ = std::fs::remove_file(&log);
        let started = run(command(&bin.join("pg_ctl"), owner, &dir)
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(&log)
            .args(["-w", "-t", "60", "-o", &format!("-p {port}"), "start"])
            // Not the tests' process group, so that a Ctrl-C leaves the stopping to the watchdog.
            .process_group(0));
        let server_log = std::fs::read_to_string(&log).unwrap_or_default();
        match started {
            Ok(()) => {
                return Ok(Cluster {
                    url: format!("postgres://{SUPERUSER}@127.0.0.1:{port}/postgres"),
                    _watchdog: watchdog,
                });
            }
            Err(_) if attempts > 1 && server_log.contains("Address already in use") => {
                attempts -= 1
            }
            Err(e) => return Err(format!("{e}\nserver log:\n{server_log}")),
        }
    }
}

/// The folder of `initdb`, `pg_ctl` and `postgres`: on PATH, else Debian's of the highest
/// version.
fn binaries() -> Result<PathBuf, String> {
    let on_path = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default();
    let mut debian: Vec<(Vec<u32>, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry
                .file_name()
                .to_str()?
                .split('.')
                .map(|n| n.parse().ok())
                .collect::<Option<Vec<u32>>>()?;
            Some((version, entry.path().join("bin")))
        })
        .collect();
    debian.sort_by(|a, b| b.0.cmp(&a.0));
    on_path
        .into_iter()
        .chain(debian.into_iter().map(|(_, bin)| bin))
        .find(|dir| {
            ["initdb", "pg_ctl", "postgres"].iter().all(|name| {
                std::fs::metadata(dir.join(name))
                    .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            })
        })
        .ok_or_else(|| {
            "no PostgreSQL server (initdb, pg_ctl, postgres) on PATH or in \
             /usr/lib/postgresql/<version>/bin for the tests to start one: install PostgreSQL \
             (Debian: apt-get install postgresql), or point SVC_TEST_POSTGRES_URL at a server \
             where the user may create databases"
                .to_owned()
        })
}

/// The user and group to run the cluster as: `initdb` and `pg_ctl` refuse root, so as root
/// user `postgres` (which Debian's package makes); else the tests' own.
fn owner() -> Result<Option<(u32, u32)>, String> {
    // SAFETY: geteuid cannot fail; getpwnam's result is read before any other passwd call.
    unsafe {
        if libc::geteuid() != 0 {
            return Ok(None);
        }
        let user = libc::getpwnam(c"postgres".as_ptr());
        if user.is_null() {
            return Err(
                "the tests run as root, which initdb refuses, and there is no user \
                        postgres to run the cluster as: install PostgreSQL (Debian: apt-get \
                        install postgresql makes the user), or point SVC_TEST_POSTGRES_URL at \
                        a server where the user may create databases"
                    .to_owned(),
            );
        }
        Ok(Some(((*user).pw_uid, (*user).pw_gid)))
    }
}

fn command(program: &Path, owner: Option<(u32, u32)>, dir: &Path) -> Command {
    let mut command = Command::new(program);
    // The tests' working directory may be closed to user postgres.
    command.current_dir(dir);
    if let Some((uid, gid)) = owner {
        command.uid(uid).gid(gid);
    }
    command
}

fn run(command: &mut Command) -> Result<(), String> {
    let what = format!("{command:?}");
    let output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}
