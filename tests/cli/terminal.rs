//! What happens on a terminal: the delete confirmation and the hidden key prompt. `script`
//! (util-linux) gives the command a pseudo-terminal; the answer is typed only once the prompt
//! is on the screen, as a person would.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::{Cli, monthly, setup};
use crate::common::contact;

/// Runs `svc args` on a pseudo-terminal, types `answer` after `prompt` shows, and returns the
/// exit code and everything the terminal showed. `None` where `script` is missing.
fn on_terminal(cli: &Cli, args: &[&str], prompt: &str, answer: &str) -> Option<(i32, String)> {
    if Command::new("script").arg("--version").output().is_err() {
        let _ = writeln!(
            std::io::stderr(),
            "\n!!!!! TERMINAL TEST NOT RUN: `script` (util-linux) is not installed !!!!!\n"
        );
        return None;
    }
    let svc = cli.std_command();
    let mut line = format!("'{}'", svc.get_program().to_string_lossy());
    for arg in args {
        line.push_str(&format!(" '{arg}'"));
    }
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &line, "/dev/null"]);
    for (k, v) in svc.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut screen = String::new();
    while !screen.contains(prompt) {
        let chunk = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no prompt {prompt:?}; the screen shows {screen:?}"));
        screen.push_str(&String::from_utf8_lossy(&chunk));
    }
    // The prompt is drawn just before the terminal's echo is switched off; type at a
    // person's pace, not in the same microsecond.
    std::thread::sleep(Duration::from_millis(300));
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(answer.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let status = child.wait().unwrap();
    drop(stdin);
    while let Ok(chunk) = rx.recv_timeout(Duration::from_secs(5)) {
        screen.push_str(&String::from_utf8_lossy(&chunk));
    }
    Some((status.code().unwrap_or(-1), screen))
}

fn delete_asks_on_a_terminal_and_only_yes_deletes() {
    let (_server, api, cli) = setup("elevated");
    let folder = monthly(&api);
    let id = api.post("/v1/contacts", contact(&folder, "K1ABC")).id();
    let prompt = format!("Delete contact {id}? [y/N]");
    let Some((code, screen)) = on_terminal(&cli, &["contacts", "delete", &id], &prompt, "n\n")
    else {
        return;
    };
    assert_eq!(code, 1, "{screen}");
    assert!(screen.contains("cancelled"), "{screen}");
    assert_eq!(api.contacts(&folder).len(), 1);

    let (code, screen) = on_terminal(&cli, &["contacts", "delete", &id], &prompt, "y\n").unwrap();
    assert_eq!(code, 0, "{screen}");
    assert!(
        screen.contains(&format!("deleted contact {id}")),
        "{screen}"
    );
    assert!(api.contacts(&folder).is_empty());
}

fn login_reads_the_key_from_a_hidden_prompt() {
    let (server, api, _) = setup("basic");
    let cli = Cli::new(&server.url);
    cli.set_env("SVC_NO_KEYRING", "1");
    let Some((code, screen)) = on_terminal(
        &cli,
        &["auth", "login"],
        "API key (input hidden):",
        &format!("{}\n", api.key()),
    ) else {
        return;
    };
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("logged in as W1AW (basic key"), "{screen}");
    assert!(!screen.contains(api.key()), "the key was echoed: {screen}");
    cli.secret(api.key());
    cli.run(&["whoami"]).ok();
}

crate::both_backends!(
    delete_asks_on_a_terminal_and_only_yes_deletes,
    login_reads_the_key_from_a_hidden_prompt,
);
