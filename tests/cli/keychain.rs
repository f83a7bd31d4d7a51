//! The OS keychain for real: each test starts its own D-Bus session bus and gnome-keyring
//! Secret Service in a temp folder, so it can neither touch the user's keychain nor race
//! another test over the `svc-cli`/`default` entry. Without those programs the tests say so
//! loudly, and fail when SVC_TEST_REQUIRE_KEYRING=1 (as CI sets it).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{Cli, setup};
use crate::common::Server;

struct SecretService {
    dir: tempfile::TempDir,
    bus: String,
    dbus: Child,
    keyring: Child,
}

impl Drop for SecretService {
    fn drop(&mut self) {
        let _ = self.keyring.kill();
        let _ = self.keyring.wait();
        let _ = self.dbus.kill();
        let _ = self.dbus.wait();
    }
}

fn installed(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

impl SecretService {
    /// A private bus with an unlocked keyring on it, or `None` (after saying why) where the
    /// programs are missing.
    fn start() -> Option<SecretService> {
        let missing: Vec<&str> = ["dbus-daemon", "gnome-keyring-daemon", "dbus-send"]
            .into_iter()
            .filter(|p| !installed(p))
            .collect();
        if !missing.is_empty() {
            let why = format!(
                "KEYCHAIN TEST NOT RUN: {} not installed (Debian: apt-get install dbus gnome-keyring)",
                missing.join(", ")
            );
            if std::env::var("SVC_TEST_REQUIRE_KEYRING").is_ok_and(|v| v == "1") {
                panic!("{why}, and SVC_TEST_REQUIRE_KEYRING=1 requires it");
            }
            // Straight to the process's stderr: eprintln! would be captured by the test
            // harness and hidden for a passing test.
            let _ = writeln!(std::io::stderr(), "\n!!!!! {why} !!!!!\n");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::set_permissions(&run, std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .unwrap();
        let mut dbus = Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--nopidfile", "--print-address=1"])
            .arg(format!("--address=unix:path={}/bus", dir.path().display()))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start dbus-daemon");
        let mut line = String::new();
        BufReader::new(dbus.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let bus = line.trim().to_owned();
        assert!(bus.starts_with("unix:"), "dbus-daemon printed {line:?}");
        let mut keyring = Command::new("gnome-keyring-daemon")
            .args(["--foreground", "--components=secrets", "--unlock"])
            .env("DBUS_SESSION_BUS_ADDRESS", &bus)
            .env("HOME", dir.path())
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .env("XDG_RUNTIME_DIR", &run)
            .env_remove("DISPLAY")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start gnome-keyring-daemon");
        // --unlock reads the new login keyring's password from stdin, up to its end.
        let mut stdin = keyring.stdin.take().unwrap();
        stdin.write_all(b"test-password").unwrap();
        drop(stdin);
        let service = SecretService {
            dir,
            bus,
            dbus,
            keyring,
        };
        service.wait_for_secrets();
        Some(service)
    }

    fn wait_for_secrets(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let out = Command::new("dbus-send")
                .args([
                    "--session",
                    "--print-reply",
                    "--dest=org.freedesktop.DBus",
                    "/org/freedesktop/DBus",
                    "org.freedesktop.DBus.NameHasOwner",
                    "string:org.freedesktop.secrets",
                ])
                .env("DBUS_SESSION_BUS_ADDRESS", &self.bus)
                .output()
                .unwrap();
            if String::from_utf8_lossy(&out.stdout).contains("boolean true") {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "gnome-keyring never took org.freedesktop.secrets on {} ({})",
                self.bus,
                self.dir.path().display()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Locks the login keyring, as a screen lock or a fresh boot would.
    fn lock(&self) {
        let out = Command::new("dbus-send")
            .args([
                "--session",
                "--print-reply",
                "--dest=org.freedesktop.secrets",
                "/org/freedesktop/secrets",
                "org.freedesktop.Secret.Service.Lock",
                "array:objpath:/org/freedesktop/secrets/collection/login",
            ])
            .env("DBUS_SESSION_BUS_ADDRESS", &self.bus)
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("collection/login"),
            "lock failed: {out:?}"
        );
    }

    /// A client whose keychain is this Secret Service.
    fn client(&self, server: &Server) -> Cli {
        let cli = Cli::new(&server.url);
        cli.set_env("DBUS_SESSION_BUS_ADDRESS", &self.bus);
        cli
    }
}

fn the_keychain_holds_the_key_and_wins_over_the_config_file() {
    let Some(service) = SecretService::start() else {
        return;
    };
    let (server, api, _) = setup("elevated");
    let basic = server.new_key("W1AW", "basic");
    let cli = service.client(&server);
    cli.secret(api.key());
    cli.secret(basic.key());

    let run = cli.run_stdin(&["auth", "set-key"], api.key());
    run.ok();
    assert!(run.stdout.contains("in the keychain"), "{run:?}");
    assert_eq!(run.stderr, "", "no fallback warning: {run:?}");
    assert!(
        !cli.config_file().exists(),
        "the key went to a file as well"
    );
    let status = cli.run(&["auth", "status", "--json"]);
    status.ok();
    assert_eq!(status.json()["source"], "keychain");
    assert_eq!(status.json()["whoami"]["tier"], "elevated");
    cli.run(&["contacts", "list", "--folder", &super::monthly(&api)])
        .ok();

    // A key in the config file comes after the keychain …
    let file = cli.config_file();
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, format!(r#"{{"apiKey": "{}"}}"#, basic.key())).unwrap();
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    assert_eq!(
        cli.run(&["auth", "status", "--json"]).json()["source"],
        "keychain"
    );
    // … unless the keychain is switched off.
    cli.set_env("SVC_NO_KEYRING", "1");
    let off = cli.run(&["auth", "status", "--json"]);
    assert_eq!(off.json()["source"], "config");
    assert_eq!(off.json()["whoami"]["tier"], "basic");
    cli.unset_env("SVC_NO_KEYRING");

    // login overwrites the keychain entry, and clears the stale file copy.
    let login = cli.run_stdin(&["auth", "login"], &format!("{}\n", basic.key()));
    login.ok();
    assert!(login.stdout.contains("stored in the keychain"), "{login:?}");
    assert!(!file.exists(), "the stale key file is left");
    let status = cli.run(&["auth", "status", "--json"]);
    assert_eq!(status.json()["source"], "keychain");
    assert_eq!(status.json()["whoami"]["tier"], "basic");

    // Another user of the same keychain sees the same entry.
    let other = service.client(&server);
    other.secret(basic.key());
    assert_eq!(
        other.run(&["auth", "status", "--json"]).json()["source"],
        "keychain"
    );

    let logout = cli.run(&["auth", "logout"]);
    logout.ok();
    assert!(
        logout
            .stdout
            .starts_with("removed the API key from the keychain"),
        "{logout:?}"
    );
    cli.run(&["auth", "status"])
        .fails(3, "auth status", "unauthorized");
    assert_eq!(api.get("/v1/whoami").status, 200, "logout revoked the key");
}

fn svc_no_keyring_keeps_the_key_out_of_a_working_keychain() {
    let Some(service) = SecretService::start() else {
        return;
    };
    let (server, api, _) = setup("basic");
    let cli = service.client(&server);
    cli.secret(api.key());
    cli.set_env("SVC_NO_KEYRING", "1");
    let run = cli.run(&["auth", "set-key", api.key()]);
    run.ok();
    assert!(run.stderr.contains("SVC_NO_KEYRING=1"), "{run:?}");
    assert!(cli.config_file().exists());
    cli.unset_env("SVC_NO_KEYRING");
    // The keychain itself stayed empty: with the file gone there is no key.
    std::fs::remove_file(cli.config_file()).unwrap();
    cli.run(&["auth", "status"])
        .fails(3, "auth status", "unauthorized");
}

fn a_locked_keychain_reads_empty_so_the_key_goes_to_the_file() {
    let Some(service) = SecretService::start() else {
        return;
    };
    service.lock();
    let (server, api, _) = setup("basic");
    let cli = service.client(&server);
    cli.secret(api.key());
    let run = cli.run_stdin(&["auth", "set-key"], api.key());
    run.ok();
    assert!(
        run.stderr.contains("the keychain is unavailable") && run.stderr.contains("locked"),
        "{run:?}"
    );
    assert!(
        run.stdout
            .contains(&cli.config_file().display().to_string()),
        "{run:?}"
    );
    let status = cli.run(&["auth", "status", "--json"]);
    status.ok();
    assert_eq!(status.json()["source"], "config");
}

fn without_any_keychain_the_key_falls_back_to_the_file_with_a_warning() {
    // No SVC_NO_KEYRING: the client tries the keychain, whose bus does not exist.
    let (server, api, _) = setup("basic");
    let cli = Cli::new(&server.url);
    cli.secret(api.key());
    let run = cli.run_stdin(&["auth", "login"], api.key());
    run.ok();
    let file = cli.config_file();
    assert!(run.stdout.contains(&file.display().to_string()), "{run:?}");
    assert!(
        run.stderr.contains("warning: the keychain is unavailable")
            && run.stderr.contains("(mode 0600)"),
        "{run:?}"
    );
    let status = cli.run(&["auth", "status", "--json", "--verbose"]);
    status.ok();
    assert_eq!(status.json()["source"], "config");
    assert!(
        status.stderr.contains("the keychain is unavailable"),
        "{status:?}"
    );
    let logout = cli.run(&["auth", "logout"]);
    logout.ok();
    assert!(!file.exists());
}

crate::both_backends!(
    the_keychain_holds_the_key_and_wins_over_the_config_file,
    svc_no_keyring_keeps_the_key_out_of_a_working_keychain,
    a_locked_keychain_reads_empty_so_the_key_goes_to_the_file,
    without_any_keychain_the_key_falls_back_to_the_file_with_a_warning,
);

/// The callbook's password goes to the keychain (`svc-cli`, `lookup-qrz`), never to the
/// config file, and `svc lookup disconnect` takes it out again. No service is needed.
#[test]
fn a_callbook_password_lives_in_the_keychain() {
    use crate::common::callbook::FakeCallbook;
    let Some(service) = SecretService::start() else {
        return;
    };
    let fake = FakeCallbook::start();
    fake.add_user("W1AW", "keychain pw", true);
    let cli = Cli::new(&super::closed_port());
    cli.set_env("DBUS_SESSION_BUS_ADDRESS", &service.bus);
    cli.set_env("SVC_QRZ_XML_URL", &fake.qrz_url());
    cli.set_env("SVC_HAMQTH_URL", &fake.hamqth_url());
    cli.secret("keychain pw");
    let connect = |book: &str| {
        let args = [
            "lookup",
            "connect",
            book,
            "--user",
            "W1AW",
            "--password-stdin",
        ];
        let run = cli.run_stdin(&args, "keychain pw\n");
        run.ok();
        assert!(run.stdout.ends_with("stored in the keychain\n"), "{run:?}");
        assert_eq!(run.stderr, "", "no fallback warning: {run:?}");
    };
    connect("qrz");
    let config = std::fs::read_to_string(cli.config_file()).unwrap();
    assert!(config.contains("\"callbook\": \"qrz\""), "{config}");
    assert!(!config.contains("callbookPassword"), "{config}");
    cli.run(&["lookup", "W1AW"]).ok();

    // The keychain skipped, its password is nowhere to be found: say how to fix it.
    cli.set_env("SVC_NO_KEYRING", "1");
    let message = cli
        .run(&["lookup", "W1AW"])
        .fails(3, "lookup", "unauthorized");
    assert!(
        message.contains("svc lookup connect qrz --user W1AW"),
        "{message}"
    );
    cli.unset_env("SVC_NO_KEYRING");

    connect("hamqth");
    assert_eq!(
        cli.run(&["lookup", "OK1VBR", "--json"]).json()["source"],
        "hamqth"
    );
    let run = cli.run(&["lookup", "disconnect"]);
    run.ok();
    assert_eq!(run.stderr, "", "{run:?}");
    assert!(!cli.config_file().exists());
    // Named again in the file by hand, the callbook finds no password left in the keychain.
    std::fs::create_dir_all(cli.config_file().parent().unwrap()).unwrap();
    std::fs::write(
        cli.config_file(),
        r#"{"callbook": "hamqth", "callbookUser": "W1AW"}"#,
    )
    .unwrap();
    let message = cli
        .run(&["lookup", "W1AW"])
        .fails(3, "lookup", "unauthorized");
    assert!(message.contains("the keychain holds none"), "{message}");
}
