//! Highlight Callsign: `svc listen wsjtx` colours each call WSJT-X decodes by what working it
//! would bring the log (a new entity, a new band, a dupe), sends it back to the address the
//! decode came from, changes it as the log and the band change, and does so from the
//! journal's copy of the log with the service down. The highlights are read by a parser of
//! this test's own, from NetworkMessage.hpp's layout of message 13.

use std::collections::HashMap;

use super::*;

/// NetworkMessage.hpp's QColor as QDataStream writes it: spec (0 invalid), alpha, red, green,
/// blue, padding; `None` for an invalid (clearing) colour.
pub type Colour = Option<(u16, u16, u16)>;

/// A Highlight Callsign (13): the instance it is for, the call, background, foreground.
#[derive(Debug, Clone, PartialEq)]
pub struct Highlight {
    pub id: String,
    pub call: String,
    pub background: Colour,
    pub foreground: Colour,
}

/// The test's own reading of a datagram, field by field.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> &'a [u8] {
        let slice = &self.bytes[self.at..self.at + n];
        self.at += n;
        slice
    }

    fn u32(&mut self) -> u32 {
        u32::from_be_bytes(self.take(4).try_into().unwrap())
    }

    fn utf8(&mut self) -> String {
        let n = self.u32() as usize;
        String::from_utf8(self.take(n).to_vec()).unwrap()
    }

    fn colour(&mut self) -> Colour {
        let spec = self.take(1)[0];
        let words: Vec<u16> = (0..5)
            .map(|_| u16::from_be_bytes(self.take(2).try_into().unwrap()))
            .collect();
        (spec != 0).then(|| (words[1], words[2], words[3]))
    }
}

pub fn read_highlight(bytes: &[u8]) -> Highlight {
    let mut c = Cursor { bytes, at: 0 };
    assert_eq!(c.u32(), 0xADBC_CBDA, "magic");
    assert!(matches!(c.u32(), 2 | 3), "schema");
    assert_eq!(c.u32(), 13, "Highlight Callsign");
    let highlight = Highlight {
        id: c.utf8(),
        call: c.utf8(),
        background: c.colour(),
        foreground: c.colour(),
    };
    let _highlight_last = c.take(1);
    assert_eq!(c.at, bytes.len(), "nothing after Highlight last");
    highlight
}

/// The colours docs/CLI.md gives, as QColor's 16-bit words.
fn wide(red: u8, green: u8, blue: u8) -> Colour {
    Some((
        u16::from(red) * 0x101,
        u16::from(green) * 0x101,
        u16::from(blue) * 0x101,
    ))
}
pub fn new_entity() -> (Colour, Colour) {
    (wide(0xD0, 0x20, 0x20), wide(0xFF, 0xFF, 0xFF))
}
pub fn new_band() -> (Colour, Colour) {
    (wide(0xFF, 0xA5, 0x00), wide(0, 0, 0))
}
pub fn dupe() -> (Colour, Colour) {
    (wide(0xD8, 0xD8, 0xD8), wide(0x70, 0x70, 0x70))
}
pub const CLEARED: (Colour, Colour) = (None, None);

/// Status (1), schema 2: WSJT-X on `hz` in FT8.
pub fn status(hz: u64) -> Vec<u8> {
    let mut q = Qds::header(2, 1, "WSJT-X");
    q.put_u64(hz)
        .put_utf8("FT8")
        .put_utf8("")
        .put_utf8("")
        .put_utf8("FT8")
        .put_bool(true)
        .put_bool(false)
        .put_bool(false)
        .put_u32(1500)
        .put_u32(1500)
        .put_utf8("W1AW")
        .put_utf8("FN31")
        .put_utf8("");
    q.bytes
}

/// Decode (2), schema 2: `message` heard now.
pub fn decode(message: &str) -> Vec<u8> {
    let mut q = Qds::header(2, 2, "WSJT-X");
    q.put_bool(true)
        .put_qtime(3_600_000)
        .put_i32(-12)
        .put_f64(0.2)
        .put_u32(1200)
        .put_utf8("~")
        .put_utf8(message)
        .put_bool(false)
        .put_bool(false);
    q.bytes
}

/// A WSJT-X of the test's: it sends to svc and reads the highlights svc sends back.
pub struct Wsjtx {
    socket: UdpSocket,
    to: String,
    /// The last colours each call was given.
    shown: HashMap<String, (Colour, Colour)>,
}

impl Wsjtx {
    pub fn new(to: &str) -> Wsjtx {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        socket
            .set_read_timeout(Some(Duration::from_millis(250)))
            .unwrap();
        Wsjtx {
            socket,
            to: to.to_owned(),
            shown: HashMap::new(),
        }
    }

    pub fn send(&self, datagram: &[u8]) {
        self.socket.send_to(datagram, &self.to).unwrap();
    }

    /// Reads highlights until each call in `want` shows its colours (a call absent from what
    /// was shown counts as cleared).
    pub fn shows(&mut self, want: &[(&str, (Colour, Colour))]) {
        let started = Instant::now();
        let mut buffer = [0u8; 2048];
        loop {
            let wrong: Vec<_> = want
                .iter()
                .filter(|(call, colours)| {
                    self.shown.get(*call).copied().unwrap_or(CLEARED) != *colours
                })
                .collect();
            if wrong.is_empty() {
                return;
            }
            assert!(
                started.elapsed() < DEADLINE,
                "not shown within {DEADLINE:?}: {wrong:?}; shown: {:?}",
                self.shown
            );
            if let Ok((n, _)) = self.socket.recv_from(&mut buffer) {
                let highlight = read_highlight(&buffer[..n]);
                assert_eq!(highlight.id, "WSJT-X", "{highlight:?}");
                self.shown
                    .insert(highlight.call, (highlight.background, highlight.foreground));
            }
        }
    }
}

fn decoded_calls_are_coloured_by_what_they_bring_the_log() {
    let (server, api, cli) = setup("basic");
    // K1ABC worked today on 20 m FT8; nothing else in the log.
    let folder = monthly(&api);
    let stored = api.post("/v1/contacts", contact(&folder, "K1ABC"));
    assert_eq!(stored.status, 201, "{}", stored.body);

    let bind = format!("127.0.0.1:{}", free_udp_port());
    let mut listen = Listening::start(&cli, &["--bind", &bind]);
    let mut wsjtx = Wsjtx::new(&bind);
    wsjtx.send(&status(14_074_000));
    for message in [
        "CQ JA1ZZZ PM95",
        "CQ K1ABC FN42",
        "CQ K2XYZ FN20",
        "JA1ZZZ DL1ABC JO62",
    ] {
        wsjtx.send(&decode(message));
    }
    // JA and DL never worked; K1ABC worked today here; K2XYZ's entity (the USA) on 20 m.
    wsjtx.shows(&[
        ("JA1ZZZ", new_entity()),
        ("DL1ABC", new_entity()),
        ("K1ABC", dupe()),
        ("K2XYZ", CLEARED),
    ]);

    // JA1ZZZ worked: a dupe now.
    wsjtx.send(&qso_logged("JA1ZZZ", &when(30)));
    listen.next_after_status("logged");
    wsjtx.shows(&[("JA1ZZZ", dupe()), ("DL1ABC", new_entity())]);

    // To 40 m: no dupe there, and the USA and Japan were worked on 20 m only.
    wsjtx.send(&status(7_074_000));
    wsjtx.shows(&[
        ("JA1ZZZ", new_band()),
        ("K1ABC", new_band()),
        ("K2XYZ", new_band()),
        ("DL1ABC", new_entity()),
    ]);
    eventually("JA1ZZZ stored", || api.qso_count() == 2);

    // WSJT-X started anew (the same id from another address) shows no colours: it is told
    // again what it decodes.
    let mut restarted = Wsjtx::new(&bind);
    restarted.send(&status(7_074_000));
    restarted.send(&decode("CQ DL1ABC JO62"));
    restarted.shows(&[("DL1ABC", new_entity())]);
    assert_eq!(listen.terminate(), 0);

    // The service gone: the journal's copy of the log is the judge.
    drop(server);
    let listen = Listening::start(&cli, &["--bind", &bind]);
    let mut wsjtx = Wsjtx::new(&bind);
    wsjtx.send(&status(14_074_000));
    wsjtx.send(&decode("CQ K1ABC FN42"));
    wsjtx.send(&decode("CQ JA1ZZZ PM95"));
    wsjtx.send(&decode("CQ VK2ABC QF56"));
    wsjtx.shows(&[
        ("K1ABC", dupe()),
        ("JA1ZZZ", dupe()),
        ("VK2ABC", new_entity()),
    ]);
    assert_eq!(listen.terminate(), 0);
}

fn no_highlight_sends_nothing_back() {
    let (_server, _api, cli) = setup("basic");
    let bind = format!("127.0.0.1:{}", free_udp_port());
    let mut listen = Listening::start(&cli, &["--bind", &bind, "--no-highlight"]);
    let wsjtx = Wsjtx::new(&bind);
    wsjtx.send(&status(14_074_000));
    wsjtx.send(&decode("CQ JA1ZZZ PM95"));
    // Heard (its status events came), and nothing answered.
    assert_eq!(listen.next_event("status")["kind"], "status");
    assert_eq!(listen.next_event("status")["kind"], "decode");
    let mut buffer = [0u8; 2048];
    wsjtx
        .socket
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    assert!(
        wsjtx.socket.recv_from(&mut buffer).is_err(),
        "a datagram came back with --no-highlight"
    );
    assert_eq!(listen.terminate(), 0);
}

#[test]
fn decoded_calls_are_coloured() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        decoded_calls_are_coloured_by_what_they_bring_the_log,
    );
}

#[test]
fn no_highlight() {
    crate::common::on(
        crate::common::Backend::Sqlite,
        no_highlight_sends_nothing_back,
    );
}
