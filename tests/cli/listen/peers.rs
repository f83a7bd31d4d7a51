//! `svc listen` among the station's other programs: beside WSJT-X's own message server
//! (Debian's `udp_daemon`, from the wsjtx package) on one multicast group, in front of it with
//! --forward, passing back what a program behind it sends WSJT-X, and sending what it logs as
//! ADIF records (--broadcast-adif).

use std::net::Ipv4Addr;
use std::process::Command;

use super::*;

const UDP_DAEMON: &str = "/usr/bin/udp_daemon";

/// WSJT-X's own message server on `port` (in `group`, joined on the loopback interface, when
/// given), its stdout read line by line; `None` after saying why when it is not installed (a
/// failure where SVC_TEST_REQUIRE_WSJTX=1, as CI sets it).
struct UdpDaemon {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl UdpDaemon {
    fn start(port: u16, group: Option<&str>) -> Option<UdpDaemon> {
        if !std::path::Path::new(UDP_DAEMON).is_file() {
            let why = "WSJT-X's udp_daemon is not installed (Debian's wsjtx)";
            if std::env::var("SVC_TEST_REQUIRE_WSJTX").is_ok_and(|v| v == "1") {
                panic!("{why}, and SVC_TEST_REQUIRE_WSJTX=1 requires it");
            }
            eprintln!("SKIPPED: {why}; svc listen is not tried beside it");
            return None;
        }
        let mut command = Command::new(UDP_DAEMON);
        command.args(["-p", &port.to_string()]);
        if let Some(group) = group {
            command.args(["-g", group, "-i", "lo"]);
        }
        // A Qt program with no display: it needs none, and says nothing of it this way.
        command.env("QT_QPA_PLATFORM", "offscreen");
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, lines) = channel();
        for out in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(out).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        Some(UdpDaemon {
            child,
            lines,
            seen: Vec::new(),
        })
    }

    /// Waits for a line holding `text`.
    fn says(&mut self, text: &str) {
        let started = Instant::now();
        while !self.seen.iter().any(|line| line.contains(text)) {
            let left = DEADLINE.saturating_sub(started.elapsed());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(_) => panic!(
                    "udp_daemon did not say {text:?} within {DEADLINE:?}; it said: {:#?}",
                    self.seen
                ),
            }
        }
    }
}

impl Drop for UdpDaemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Heartbeat (0), schema 3, as WSJT-X 2.6.1 sends it.
fn heartbeat() -> Vec<u8> {
    let mut q = Qds::header(3, 0, "WSJT-X");
    q.put_u32(3).put_utf8("2.6.1").put_utf8("3a5bc9");
    q.bytes
}

/// A socket that sends to a group out of the loopback interface, as WSJT-X does when its UDP
/// Server is a multicast address and its outgoing interface `lo`.
fn multicast_sender() -> UdpSocket {
    let socket = socket2::Socket::new(
        socket2::Domain::IPV4,
        socket2::Type::DGRAM,
        Some(socket2::Protocol::UDP),
    )
    .unwrap();
    socket.set_multicast_if_v4(&Ipv4Addr::LOCALHOST).unwrap();
    socket
        .bind(
            &"127.0.0.1:0"
                .parse::<std::net::SocketAddr>()
                .unwrap()
                .into(),
        )
        .unwrap();
    socket.into()
}

fn beside_wsjtx_own_server_on_one_multicast_group() {
    let (_server, api, cli) = setup("basic");
    let port = free_udp_port();
    let group = "239.255.0.73";
    let Some(mut daemon) = UdpDaemon::start(port, Some(group)) else {
        return;
    };
    let mut listen = Listening::start(
        &cli,
        &["--bind", &format!("127.0.0.1:{port}"), "--multicast", group],
    );
    let wsjtx = multicast_sender();
    let to = format!("{group}:{port}");
    wsjtx.send_to(&heartbeat(), &to).unwrap();
    let at = when(60);
    wsjtx.send_to(&qso_logged("K1ABC", &at), &to).unwrap();
    // Both heard each datagram: svc logged the QSO, WSJT-X's server read it too.
    assert_eq!(listen.next_event("status")["kind"], "heartbeat");
    let logged = listen.next_after_status("logged");
    assert_eq!(logged["callsign"], "K1ABC");
    daemon.says("Discovered WSJT-X instance: WSJT-X");
    daemon.says("Logged K1ABC grid: FN42");
    eventually("K1ABC stored", || api.qso_count() == 1);
    assert_eq!(listen.terminate(), 0);
}

fn in_front_of_wsjtx_own_server_with_forward() {
    let (_server, _api, cli) = setup("basic");
    let behind = free_udp_port();
    let Some(mut daemon) = UdpDaemon::start(behind, None) else {
        return;
    };
    let bind = format!("127.0.0.1:{}", free_udp_port());
    let forward = format!("127.0.0.1:{behind}");
    let mut listen = Listening::start(&cli, &["--bind", &bind, "--forward", &forward]);
    let wsjtx = UdpSocket::bind("127.0.0.1:0").unwrap();
    wsjtx.send_to(&heartbeat(), &bind).unwrap();
    wsjtx
        .send_to(&qso_logged("DL1ABC", &when(60)), &bind)
        .unwrap();
    listen.next_event("status");
    assert_eq!(listen.next_after_status("logged")["callsign"], "DL1ABC");
    daemon.says("Discovered WSJT-X instance: WSJT-X");
    daemon.says("Logged DL1ABC grid: FN42");
    assert_eq!(listen.terminate(), 0);
}

fn what_a_program_behind_sends_back_reaches_wsjtx() {
    let (_server, _api, cli) = setup("basic");
    // A program behind svc (GridTracker): it answers the address its datagrams came from.
    let behind = UdpSocket::bind("127.0.0.1:0").unwrap();
    behind
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let bind = format!("127.0.0.1:{}", free_udp_port());
    let forward = behind.local_addr().unwrap().to_string();
    let mut listen = Listening::start(
        &cli,
        &["--bind", &bind, "--forward", &forward, "--no-highlight"],
    );
    let wsjtx = UdpSocket::bind("127.0.0.1:0").unwrap();
    wsjtx
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    wsjtx.send_to(&heartbeat(), &bind).unwrap();
    listen.next_event("status");
    let mut buffer = [0u8; 2048];
    let (n, svc) = behind.recv_from(&mut buffer).unwrap();
    assert_eq!(&buffer[..n], &heartbeat()[..], "forwarded unchanged");
    // Halt Tx (8), schema 2, for the instance "WSJT-X": auto-only false.
    let mut halt = Qds::header(2, 8, "WSJT-X");
    halt.put_bool(false);
    behind.send_to(&halt.bytes, svc).unwrap();
    let (n, from) = wsjtx.recv_from(&mut buffer).unwrap();
    assert_eq!(&buffer[..n], &halt.bytes[..], "passed back unchanged");
    assert_eq!(from.to_string(), bind, "from the address WSJT-X sends to");
    // A datagram from anywhere else is not passed on.
    let stranger = UdpSocket::bind("127.0.0.1:0").unwrap();
    stranger.send_to(&halt.bytes, svc).unwrap();
    wsjtx
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    assert!(wsjtx.recv_from(&mut buffer).is_err());
    assert_eq!(listen.terminate(), 0);
}

fn each_contact_logged_goes_out_as_an_adif_record() {
    let (_server, _api, cli) = setup("basic");
    let tracker = UdpSocket::bind("127.0.0.1:0").unwrap();
    tracker
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let bind = format!("127.0.0.1:{}", free_udp_port());
    let to = tracker.local_addr().unwrap().to_string();
    let mut listen = Listening::start(&cli, &["--bind", &bind, "--broadcast-adif", &to]);
    let wsjtx = UdpSocket::bind("127.0.0.1:0").unwrap();
    let at = when(60);
    wsjtx.send_to(&qso_logged("JA1ZZZ", &at), &bind).unwrap();
    listen.next_after_status("logged");
    let mut buffer = [0u8; 4096];
    let (n, _) = tracker.recv_from(&mut buffer).unwrap();
    let record = String::from_utf8(buffer[..n].to_vec()).unwrap();
    let upper = record.to_ascii_uppercase();
    for field in [
        "<CALL:6>JA1ZZZ".to_owned(),
        "<MODE:3>FT8".to_owned(),
        "<BAND:3>20M".to_owned(),
        format!("<QSO_DATE:8>{}", at.date),
        format!("<TIME_ON:6>{}", at.time),
        "<RST_SENT:3>-12".to_owned(),
        "<STATION_CALLSIGN:4>W1AW".to_owned(),
    ] {
        assert!(upper.contains(&field), "{field} not in {record:?}");
    }
    assert!(upper.trim_end().ends_with("<EOR>"), "{record:?}");
    assert_eq!(upper.matches("<EOR>").count(), 1, "one record a datagram");
    // The same QSO again is logged once, and sent once.
    wsjtx.send_to(&qso_logged("JA1ZZZ", &at), &bind).unwrap();
    listen.next_after_status("duplicate");
    tracker
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    assert!(tracker.recv_from(&mut buffer).is_err());
    assert_eq!(listen.terminate(), 0);
}

fn a_bad_group_or_interface_is_named() {
    let (_server, _api, cli) = setup("basic");
    let out = cli.run(&["listen", "wsjtx", "--multicast", "10.0.0.1"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("is not a multicast group"), "{out:?}");
    let out = cli.run(&[
        "listen",
        "wsjtx",
        "--bind",
        &format!("127.0.0.1:{}", free_udp_port()),
        "--multicast",
        "239.255.0.74",
        "--interface",
        "nosuchif0",
    ]);
    let message = out.fails(1, "listen wsjtx", "local_error");
    assert!(
        message.contains("cannot join the multicast group 239.255.0.74"),
        "{message}"
    );
    assert!(message.contains("nosuchif0"), "{message}");
}

/// WSJT-X itself, headless (Qt's offscreen platform), its UDP Server set to `port` in a
/// settings file of its own; `None` as for [`UdpDaemon::start`].
fn real_wsjtx(home: &std::path::Path, port: u16) -> Option<Child> {
    if !std::path::Path::new("/usr/bin/wsjtx").is_file() {
        let why = "WSJT-X is not installed (Debian's wsjtx)";
        if std::env::var("SVC_TEST_REQUIRE_WSJTX").is_ok_and(|v| v == "1") {
            panic!("{why}, and SVC_TEST_REQUIRE_WSJTX=1 requires it");
        }
        eprintln!("SKIPPED: {why}; svc listen does not hear the real one");
        return None;
    }
    let config = home.join(".config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("WSJT-X.ini"),
        format!(
            "[Configuration]\nUDPServer=127.0.0.1\nUDPServerPort={port}\nAcceptUDPRequests=true\nMyCall=W1AW\nMyGrid=FN31\n"
        ),
    )
    .unwrap();
    let runtime = home.join("runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    Some(
        Command::new("/usr/bin/wsjtx")
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", &config)
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("QT_QPA_PLATFORM", "offscreen")
            .current_dir(home)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

fn the_real_wsjtx_is_heard() {
    let (_server, _api, cli) = setup("basic");
    let port = free_udp_port();
    let mut listen = Listening::start(&cli, &["--bind", &format!("127.0.0.1:{port}")]);
    let home = tempfile::tempdir().unwrap();
    let Some(mut wsjtx) = real_wsjtx(home.path(), port) else {
        return;
    };
    // Its heartbeat names its version; its Status, its mode. Nothing it sends is dropped.
    let (mut heartbeat, mut status) = (None, None);
    while heartbeat.is_none() || status.is_none() {
        let event = listen.next_event("status");
        assert_eq!(event["id"], "WSJT-X", "{event}");
        match event["kind"].as_str() {
            Some("heartbeat") => heartbeat = Some(event),
            Some("status") => status = Some(event),
            _ => {}
        }
    }
    // Ended as a desktop ends it, so that it removes its shared memory and its jt9.
    unsafe { libc::kill(wsjtx.id() as libc::pid_t, libc::SIGTERM) };
    let asked = Instant::now();
    while wsjtx.try_wait().unwrap().is_none() {
        if asked.elapsed() > DEADLINE {
            let _ = wsjtx.kill();
            let _ = wsjtx.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let (heartbeat, status) = (heartbeat.unwrap(), status.unwrap());
    assert!(
        heartbeat["version"]
            .as_str()
            .is_some_and(|v| v.starts_with("2.")),
        "{heartbeat}"
    );
    assert_eq!(heartbeat["maxSchema"], 3, "{heartbeat}");
    assert_eq!(status["mode"], "FT8", "{status}");
    assert_eq!(listen.terminate(), 0);
}

#[test]
fn hears_the_real_wsjtx() {
    crate::common::on(crate::common::Backend::Sqlite, the_real_wsjtx_is_heard);
}

#[test]
fn beside_udp_daemon_on_a_multicast_group() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        beside_wsjtx_own_server_on_one_multicast_group,
    );
}

#[test]
fn forwarding_to_udp_daemon() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        in_front_of_wsjtx_own_server_with_forward,
    );
}

#[test]
fn answers_from_behind_are_passed_back() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        what_a_program_behind_sends_back_reaches_wsjtx,
    );
}

#[test]
fn broadcast_adif() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        each_contact_logged_goes_out_as_an_adif_record,
    );
}

#[test]
fn a_bad_multicast_group() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        a_bad_group_or_interface_is_named,
    );
}
