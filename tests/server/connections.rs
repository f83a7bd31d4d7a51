//! The connection layer of the real process (docs/API.md, "Connections"): slow and idle
//! sockets are closed, a body that never comes is refused, connections past the cap get the
//! envelope, requests hyper cannot parse get the envelope, a shutdown does not wait on a
//! half-sent request, and the open-files limit is raised.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;

use crate::common::{Server, eventually};

fn connect(server: &Server) -> TcpStream {
    let addr = server.url.trim_start_matches("http://");
    let stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    stream
}

/// Reads until the server closes the connection (or a minute passes, which fails).
fn read_to_close(stream: &mut TcpStream) -> Vec<u8> {
    let mut all = Vec::new();
    match stream.read_to_end(&mut all) {
        Ok(_) => all,
        // A reset after the answer is a close too.
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => all,
        Err(e) => panic!("the server kept the connection open: {e}"),
    }
}

/// Reads one answer with a Content-Length body: its status, headers and JSON body.
fn read_answer(stream: &mut TcpStream) -> (u16, String, Value) {
    let mut raw = Vec::new();
    let mut byte = [0u8; 1];
    while !raw.ends_with(b"\r\n\r\n") {
        assert_eq!(stream.read(&mut byte).expect("an answer"), 1, "{raw:?}");
        raw.push(byte[0]);
    }
    let head = String::from_utf8(raw).unwrap();
    let length: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length: ")
                .map(str::to_owned)
        })
        .expect("content-length")
        .trim()
        .parse()
        .unwrap();
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).unwrap();
    let status = head[9..12].parse().unwrap();
    (
        status,
        head,
        serde_json::from_slice(&body).unwrap_or(Value::Null),
    )
}

/// Sends raw bytes on a new connection and reads the answer.
fn exchange(server: &Server, request: &[u8]) -> (u16, String, Value) {
    let mut stream = connect(server);
    stream.write_all(request).unwrap();
    read_answer(&mut stream)
}

/// Asserts the envelope with its code, and the same request id in the header and the body.
fn assert_envelope(answer: &(u16, String, Value), status: u16, code: &str) -> String {
    let (got, head, body) = answer;
    assert_eq!(*got, status, "{head}{body}");
    assert_eq!(body["error"], code, "{body}");
    let id = body["requestId"].as_str().expect("requestId");
    assert!(id.starts_with("req_"), "{id}");
    assert!(
        head.to_ascii_lowercase()
            .contains(&format!("x-request-id: {id}")),
        "{head}"
    );
    body["message"].as_str().unwrap().to_owned()
}

fn whoami_works(server: &Server, api: &crate::common::Api) {
    assert_eq!(api.get("/v1/whoami").status, 200, "{}", server.logs());
}

#[test]
fn idle_and_half_sent_heads_are_closed() {
    let server = Server::start_with(&["--header-timeout", "1"]);
    let api = server.account("W1AW", "basic");
    let mut silent: Vec<TcpStream> = (0..20).map(|_| connect(&server)).collect();
    let mut halves: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut s = connect(&server);
            s.write_all(b"GET /v1/whoami HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                .unwrap();
            s
        })
        .collect();
    for stream in silent.iter_mut().chain(halves.iter_mut()) {
        // Closed without an answer: no request ever arrived.
        assert!(read_to_close(stream).is_empty());
    }
    // A kept-alive connection is closed too once it idles past the limit.
    let mut kept = connect(&server);
    kept.write_all(
        format!(
            "GET /v1/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\r\n",
            api.key()
        )
        .as_bytes(),
    )
    .unwrap();
    assert_eq!(read_answer(&mut kept).0, 200);
    assert!(read_to_close(&mut kept).is_empty());
    whoami_works(&server, &api);
}

#[test]
fn a_body_that_never_comes_is_refused() {
    let server = Server::start_with(&["--body-timeout", "1"]);
    let api = server.account("W1AW", "basic");
    let head = |length: &str| {
        format!(
            "POST /v1/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n",
            api.key()
        )
    };
    // Announced too large: refused at once, nothing read.
    let answer = exchange(&server, head("10737418240").as_bytes());
    let message = assert_envelope(&answer, 400, "validation_error");
    assert!(message.contains("larger than 64 KiB"), "{message}");
    // Announced small but never finished: refused when the body time runs out.
    let mut request = head("100").into_bytes();
    request.extend_from_slice(b"{\"callsign\":");
    let answer = exchange(&server, &request);
    let message = assert_envelope(&answer, 400, "validation_error");
    assert!(message.contains("did not arrive within 1 s"), "{message}");
    whoami_works(&server, &api);
}

#[test]
fn connections_past_the_cap_are_refused_in_the_envelope() {
    let server = Server::start_with(&[
        "--max-connections",
        "4",
        "--max-connections-per-address",
        "10",
    ]);
    let api = server.account("W1AW", "basic");
    let held: Vec<TcpStream> = (0..4).map(|_| connect(&server)).collect();
    let answer = exchange(
        &server,
        b"GET /v1/whoami HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    let message = assert_envelope(&answer, 429, "rate_limited");
    assert!(message.contains("4 connections"), "{message}");
    assert!(answer.1.to_ascii_lowercase().contains("retry-after: 1"));
    drop(held);
    eventually("a request once the held connections closed", || {
        api.get("/v1/whoami").status == 200
    });
}

/// A connection to `server` from the loopback address `from` (127.0.0.2: another client).
fn connect_from(server: &Server, from: &str) -> TcpStream {
    let addr: std::net::SocketAddr = server.url.trim_start_matches("http://").parse().unwrap();
    let socket = crate::common::block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
        socket.connect(addr).await.unwrap().into_std().unwrap()
    });
    socket.set_nonblocking(false).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    socket
}

/// One address holding its share of the connections gets `429` for more; another address is
/// served all the same, and the first is served again once it closes some.
#[test]
fn one_address_cannot_hold_every_connection() {
    let server = Server::start_with(&[
        "--max-connections",
        "40",
        "--max-connections-per-address",
        "3",
    ]);
    let api = server.account("W1AW", "basic");
    let held: Vec<TcpStream> = (0..3).map(|_| connect(&server)).collect();
    let answer = exchange(
        &server,
        b"GET /v1/whoami HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    let message = assert_envelope(&answer, 429, "rate_limited");
    assert!(
        message.contains("this address has 3 connections open"),
        "{message}"
    );
    let request = format!(
        "GET /v1/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n",
        api.key()
    );
    let mut other = connect_from(&server, "127.0.0.2");
    other.write_all(request.as_bytes()).unwrap();
    let (status, head, body) = read_answer(&mut other);
    assert_eq!(status, 200, "{head}{body}");
    assert_eq!(body["callsign"], "W1AW");
    drop(held);
    eventually("served again once its connections closed", || {
        api.get("/v1/whoami").status == 200
    });
}

#[test]
fn requests_hyper_cannot_read_get_the_envelope() {
    let server = Server::start();
    let api = server.account("W1AW", "basic");
    let big = format!(
        "GET /v1/whoami HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(40 * 1024)
    );
    let cases: [(&str, &[u8], &str); 4] = [
        (
            "a raw non-ASCII byte in the query",
            b"GET /v1/whoami?call=\xff HTTP/1.1\r\nHost: x\r\n\r\n",
            "malformed",
        ),
        (
            "NUL in a header",
            b"GET /v1/whoami HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n",
            "malformed",
        ),
        (
            "a folded header line",
            b"GET /v1/whoami HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n",
            "malformed",
        ),
        ("a head over 32 KiB", big.as_bytes(), "larger than 32 KiB"),
    ];
    for (what, request, says) in cases {
        let answer = exchange(&server, request);
        let message = assert_envelope(&answer, 400, "validation_error");
        assert!(message.contains(says), "{what}: {message}");
    }
    whoami_works(&server, &api);
}

#[test]
fn a_shutdown_does_not_wait_on_a_half_sent_request() {
    let mut server = Server::process_with(&["--header-timeout", "300", "--shutdown-drain", "1"]);
    let api = server.account("W1AW", "basic");
    let mut half = connect(&server);
    half.write_all(b"POST /v1/contacts HTTP/1.1\r\nHost: x\r\nContent-Le")
        .unwrap();
    // Connections are accepted in the order they came: one answered after it means the half
    // one is being served, not still waiting in the listen queue when the signal comes.
    whoami_works(&server, &api);
    // terminate fails unless the process exits within a minute, well before the 300 s the
    // head could still take.
    let (status, _) = server.terminate();
    assert!(status.success(), "{status:?}\n{}", server.logs());
    assert!(read_to_close(&mut half).is_empty());
    assert!(
        server.logs().contains("closing the connections still open"),
        "{}",
        server.logs()
    );
}

#[test]
fn the_open_files_limit_is_raised_so_idle_sockets_do_not_starve_requests() {
    let server = Server::start_with_open_files(&[], 256, 4096);
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", server.pid())).unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    let soft: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(soft[3], "4096", "{line}");
    let api = server.account("W1AW", "basic");
    let _idle: Vec<TcpStream> = (0..300).map(|_| connect(&server)).collect();
    whoami_works(&server, &api);
}
