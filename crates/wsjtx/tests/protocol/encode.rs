//! What svc sends, byte for byte against datagrams worked out by hand from NetworkMessage.hpp
//! and Qt's QColor stream format, and against the tests' own writer.

use svc_wsjtx::{Message, Rgb, SCHEMA, decode, heartbeat, highlight_callsign, replay};

use super::fixtures::bytes;
use super::qds::Qds;

#[test]
fn a_heartbeat() {
    let expected = concat!(
        "adbccbda", // magic
        "00000002", // schema 2
        "00000000", // Heartbeat
        "00000003",
        "737663",   // id "svc"
        "00000003", // maximum schema 3
        "00000005",
        "302e322e30", // version "0.2.0"
        "00000000",   // revision "", empty rather than null
    );
    assert_eq!(heartbeat("svc", 3, "0.2.0", ""), bytes(expected));
    assert_eq!(SCHEMA, 2);

    let Ok(Message::Heartbeat(h)) = decode(&heartbeat("svc", 3, "0.2.0", "502dc92")) else {
        panic!()
    };
    assert_eq!(h.id, "svc");
    assert_eq!(h.max_schema, Some(3));
    assert_eq!(h.version.as_deref(), Some("0.2.0"));
    assert_eq!(h.revision.as_deref(), Some("502dc92"));
}

#[test]
fn a_replay() {
    let expected = concat!(
        "adbccbda",
        "00000002",
        "00000007", // magic, schema 2, Replay
        "00000006",
        "57534a542d58", // id "WSJT-X"
    );
    assert_eq!(replay("WSJT-X"), bytes(expected));
    assert_eq!(
        decode(&replay("WSJT-X")).unwrap(),
        Message::Other {
            kind: 7,
            id: "WSJT-X".into()
        }
    );
}

#[test]
fn a_highlight_with_colours() {
    let orange = Rgb {
        red: 0xFF,
        green: 0x80,
        blue: 0x00,
    };
    let white = Rgb {
        red: 0xFF,
        green: 0xFF,
        blue: 0xFF,
    };
    let expected = concat!(
        "adbccbda",
        "00000002",
        "0000000d", // magic, schema 2, Highlight Callsign
        "00000006",
        "57534a542d58", // id "WSJT-X"
        "00000005",
        "4b31414243", // callsign "K1ABC"
        // Background: spec 1 (RGB), alpha, red, green, blue each 8 bits times 0x101, pad 0.
        "01",
        "ffff",
        "ffff",
        "8080",
        "0000",
        "0000",
        // Foreground, white.
        "01",
        "ffff",
        "ffff",
        "ffff",
        "ffff",
        "0000",
        "01", // highlight last
    );
    let sent = highlight_callsign("WSJT-X", "K1ABC", Some(orange), Some(white), true);
    assert_eq!(sent, bytes(expected));

    // The tests' writer agrees.
    let mut q = Qds::header(2, 13, "WSJT-X");
    q.put_utf8("K1ABC");
    for (spec, words) in [
        (1, [0xFFFF, 0xFFFF, 0x8080, 0, 0]),
        (1, [0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0]),
    ] {
        q.put_u8(spec);
        for word in words {
            q.put_u16(word);
        }
    }
    q.put_bool(true);
    assert_eq!(sent, q.bytes);
}

#[test]
fn a_highlight_cleared() {
    // None is Qt's invalid QColor, QColor(): spec 0, alpha 0xffff, the rest 0.
    let expected = concat!(
        "adbccbda",
        "00000002",
        "0000000d", // magic, schema 2, Highlight Callsign
        "00000006",
        "57534a542d58", // id "WSJT-X"
        "00000005",
        "4b31414243", // callsign "K1ABC"
        "00",
        "ffff",
        "0000",
        "0000",
        "0000",
        "0000", // background: invalid
        "00",
        "ffff",
        "0000",
        "0000",
        "0000",
        "0000", // foreground: invalid
        "00",   // every period, not the last alone
    );
    assert_eq!(
        highlight_callsign("WSJT-X", "K1ABC", None, None, false),
        bytes(expected)
    );
    let black = Rgb {
        red: 0,
        green: 0,
        blue: 0,
    };
    let mixed = highlight_callsign("WSJT-X", "K1ABC", None, Some(black), false);
    // The header and callsign take 31 bytes, each colour 11, the flag 1.
    assert_eq!(&mixed[31..42], &bytes("00ffff0000000000000000")[..]);
    assert_eq!(&mixed[42..53], &bytes("01ffff0000000000000000")[..]);
    assert_eq!(mixed.len(), 54);
}
