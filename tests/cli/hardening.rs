//! The client against a hostile or misconfigured world: escape sequences in a server's words,
//! credentials in the API base, a base copied with its `/v1`, and a config file others may
//! change.

use std::os::unix::fs::PermissionsExt;

use super::{Cli, canned_server, setup};

const KEY: &str = "svc_live_ABCDEFGHIJKLMNOPQRSTUVWX";

/// A server's error message with a title change, a screen clear and a bidi override: shown,
/// never obeyed.
#[test]
fn a_hostile_servers_words_reach_the_terminal_harmless() {
    let body = r#"{"error":"validation_error\u001b[2J","message":"bad\u001b]0;pwned\u0007 \u001b[2Jthing \u202eevil","requestId":"req_\u001b[31m"}"#;
    let (url, _) = canned_server(vec![(400, vec![], body.to_owned())]);
    let cli = Cli::new(&url);
    cli.set_env("SVC_API_KEY", KEY);
    let run = cli.run(&["whoami"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(!run.stderr.contains('\u{1b}'), "{:?}", run.stderr);
    assert!(!run.stderr.contains('\u{7}'), "{:?}", run.stderr);
    assert!(!run.stderr.contains('\u{202e}'), "{:?}", run.stderr);
    assert!(run.stderr.contains("bad"), "{:?}", run.stderr);
    assert!(run.stderr.contains("evil"), "{:?}", run.stderr);
}

#[test]
fn an_api_base_with_credentials_is_refused_and_one_with_v1_works() {
    let (server, _api, cli) = setup("elevated");
    let with_creds = server.url.replace("http://", "http://user:secretpw@");
    let run = cli.run(&["whoami", "--api-base", &with_creds]);
    let msg = run.fails(2, "whoami", "validation_error");
    assert!(msg.contains("user name or password"), "{msg}");
    assert!(!run.stderr.contains("secretpw"), "{run:?}");
    for base in [format!("{}/v1", server.url), format!("{}/v1/", server.url)] {
        let run = cli.run(&["whoami", "--json", "--api-base", &base]);
        run.ok();
        assert_eq!(run.json()["callsign"], "W1AW", "{base}");
    }
}

#[test]
fn a_config_file_others_may_change_is_not_obeyed() {
    let (server, _api, cli) = setup("elevated");
    let dir = cli.config_dir().join("svc");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let file = cli.config_file();
    // An attacker's host (here: a port nothing listens on).
    std::fs::write(&file, r#"{"apiBase": "http://127.0.0.1:9"}"#).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
    // An empty --api-base stands for none: the config file's apiBase is next.
    let from_config = ["whoami", "--api-base", ""];
    let run = cli.run(&from_config);
    let msg = run.fails(2, "whoami", "validation_error");
    assert!(msg.contains("can be changed by other users"), "{msg}");
    // A private file is obeyed; an open directory is refused as the file is.
    std::fs::write(&file, format!(r#"{{"apiBase": "{}"}}"#, server.url)).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    cli.run(&from_config).ok();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    cli.run(&from_config).fails(2, "whoami", "validation_error");
}

/// A config file (or a link to one) that another user owns is not obeyed: they could point its
/// apiBase anywhere. Making such a file takes root, which the suite has on CI.
#[test]
fn a_config_file_of_another_user_is_not_obeyed() {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!(
            "a_config_file_of_another_user_is_not_obeyed: needs root to give a file away; not run"
        );
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs the suite as root; this test must run there"
        );
        return;
    }
    let (server, _api, cli) = setup("elevated");
    let dir = cli.config_dir().join("svc");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let file = cli.config_file();
    std::fs::write(&file, format!(r#"{{"apiBase": "{}"}}"#, server.url)).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let from_config = ["whoami", "--api-base", ""];
    cli.run(&from_config).ok();
    std::os::unix::fs::chown(&file, Some(65534), Some(65534)).unwrap();
    let msg = cli
        .run(&from_config)
        .fails(2, "whoami", "validation_error")
        .to_owned();
    assert!(msg.contains("belongs to another user (uid 65534)"), "{msg}");
    // A link of another user's to a file of one's own is refused the same.
    let own = dir.join("own.json");
    std::fs::write(&own, format!(r#"{{"apiBase": "{}"}}"#, server.url)).unwrap();
    std::fs::set_permissions(&own, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink(&own, &file).unwrap();
    cli.run(&from_config).ok();
    std::os::unix::fs::lchown(&file, Some(65534), Some(65534)).unwrap();
    cli.run(&from_config).fails(2, "whoami", "validation_error");
}

/// Notes over the documented 2000 characters are refused before anything is sent, naming the
/// flag, instead of being answered as an oversized body.
#[test]
fn notes_over_the_limit_are_refused_before_sending() {
    let (_server, api, cli) = setup("elevated");
    let folder = super::monthly(&api);
    let (_, time_on) = crate::common::this_month();
    let long = "x".repeat(70_000);
    let run = cli.run(&[
        "contacts",
        "create",
        "--folder",
        &folder,
        "--callsign",
        "K1ABC",
        "--frequency",
        "14.074",
        "--mode",
        "FT8",
        "--time-on",
        &time_on,
        "--notes",
        &long,
    ]);
    let msg = run.fails(2, "contacts create", "validation_error");
    assert!(msg.contains("--notes") && msg.contains("2000"), "{msg}");
    let listed = api.get(&format!("/v1/folders/{folder}/contacts"));
    assert_eq!(listed.body["items"].as_array().unwrap().len(), 0);
}

/// A confirmation line built from the service's answer (a folder's name) is as harmless as an
/// error message.
#[test]
fn a_hostile_servers_names_in_confirmations_are_harmless() {
    let body = r#"{"id":"fld_6bd4d7ppqfy6hdvp","name":"2026-11\u001b]0;pwned\u0007\u001b[2J","type":"monthly","parentId":"fld_tnpun2ykr2hlk7pu","programId":null,"month":"2026-11","startTime":null,"endTime":null,"locationReference":null,"locationName":null,"callsign":null,"autoFolderKey":"v1:monthly:2026-11","autoFolderType":"monthly","contactCount":0,"createdAt":"2026-11-22T11:28:42.958Z","created":true}"#;
    let (url, _) = canned_server(vec![(201, vec![], body.to_owned())]);
    let cli = Cli::new(&url);
    cli.set_env("SVC_API_KEY", KEY);
    let run = cli.run(&[
        "folders", "create", "--type", "monthly", "--month", "2026-11",
    ]);
    run.ok();
    assert!(run.stdout.contains("2026-11"), "{run:?}");
    assert!(!run.stdout.contains('\u{1b}'), "{:?}", run.stdout);
    assert!(!run.stdout.contains('\u{7}'), "{:?}", run.stdout);
}

#[test]
fn an_unknown_command_is_named_once() {
    let run = Cli::new("http://127.0.0.1:9").run(&["bogus"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.starts_with("svc: validation_error: "),
        "{:?}",
        run.stderr
    );
}

/// A loopback server that answers every request with 200 and a body without end (chunked, of
/// spaces), and counts the bytes it got out before the client hung up.
fn endless_server() -> (String, std::sync::Arc<std::sync::atomic::AtomicU64>) {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::atomic::{AtomicU64, Ordering};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let sent = std::sync::Arc::new(AtomicU64::new(0));
    let counter = sent.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let counter = counter.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream);
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                    line.clear();
                }
                let mut stream = reader.into_inner();
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
                if stream.write_all(head.as_bytes()).is_err() {
                    return;
                }
                let chunk = format!("{:x}\r\n{}\r\n", 1 << 20, " ".repeat(1 << 20));
                while stream.write_all(chunk.as_bytes()).is_ok() {
                    counter.fetch_add(1 << 20, Ordering::Relaxed);
                }
            });
        }
    });
    (url, sent)
}

/// An answer without end (3 GB took the client to 3.1 GB before): the client reads at most
/// 16 MiB of it, says why, and its memory stays under 50 MB.
#[test]
fn an_endless_answer_is_cut_off_with_memory_flat() {
    let (url, sent) = endless_server();
    let cli = Cli::new(&url);
    cli.set_env("SVC_API_KEY", KEY);
    let mut cmd = cli.std_command();
    cmd.arg("whoami");
    let (status, peak_kib, stderr) = super::run_measured(cmd);
    assert_eq!(status, Some(1), "{stderr}");
    assert!(stderr.contains("larger than 16 MiB"), "{stderr}");
    assert!(stderr.contains("--api-base"), "{stderr}");
    assert!(peak_kib < 50 * 1000, "peak RSS {peak_kib} KiB");
    let sent = sent.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        sent < 512 << 20,
        "{sent} bytes sent before the client hung up"
    );
}

/// `--json` output and the JSON error envelope carry a server's bidi override and C1 control
/// (U+009B, a one-character ESC [) as `\u` escapes: the same text to a JSON reader, nothing
/// for a terminal to obey.
#[test]
fn json_output_escapes_what_a_terminal_would_obey() {
    let whoami =
        r#"{"callsign":"W1AW\u202e\u009b31m","plan":"free","tier":"basic","nativeQsoCount":0}"#;
    let refusal = r#"{"error":"validation_error","message":"bad","details":{"field":"x\u202ey\u009b"},"requestId":"req_1"}"#;
    let (url, _) = canned_server(vec![
        (200, vec![], whoami.to_owned()),
        (400, vec![], refusal.to_owned()),
    ]);
    let cli = Cli::new(&url);
    cli.set_env("SVC_API_KEY", KEY);
    let run = cli.run(&["whoami", "--json"]);
    assert_eq!(run.code, 0, "{run:?}");
    for c in ['\u{202e}', '\u{9b}'] {
        assert!(!run.stdout.contains(c), "{:?}", run.stdout);
    }
    assert!(run.stdout.contains(r"\u202e\u009b31m"), "{:?}", run.stdout);
    assert_eq!(run.json()["callsign"], "W1AW\u{202e}\u{9b}31m");
    let run = cli.run(&["whoami", "--json"]);
    assert_eq!(run.code, 2, "{run:?}");
    for c in ['\u{202e}', '\u{9b}'] {
        assert!(!run.stderr.contains(c), "{:?}", run.stderr);
    }
    let envelope: serde_json::Value = serde_json::from_str(run.stderr.trim()).unwrap();
    assert_eq!(envelope["details"]["field"], "x\u{202e}y\u{9b}");
}

/// The outbox journal and the park cache are the user's alone: made 0600, their SQLite
/// companions too, and a file left readable by others is tightened when next opened.
#[test]
fn the_journal_and_park_cache_files_are_private() {
    let pota = crate::common::pota::FakePota::start();
    let (_server, _api, cli) = setup("basic");
    cli.set_env("SVC_POTA_API_URL", &pota.url());
    cli.run(&["outbox", "list"]).ok();
    cli.run(&["parks", "show", "US-0001"]).ok();
    let svc = cli.data_dir().join("svc");
    let files = || {
        let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(svc.join("journal"))
            .unwrap()
            .chain(std::fs::read_dir(&svc).unwrap())
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        files
    };
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let made = files();
    for wanted in ["index.db", "-W1AW.db", "parks.sqlite"] {
        assert!(
            made.iter().any(|p| p.to_string_lossy().ends_with(wanted)),
            "no {wanted} in {made:?}"
        );
    }
    for file in &made {
        assert_eq!(mode(file), 0o600, "{}", file.display());
    }

    for file in &made {
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    cli.run(&["outbox", "list"]).ok();
    cli.run(&["parks", "show", "US-0001"]).ok();
    for file in files() {
        assert_eq!(mode(&file), 0o600, "{} after a run", file.display());
    }
}
