//! The few messages svc sends back to WSJT-X: its own heartbeat (so that WSJT-X knows a
//! server listens and which schema it speaks), a replay request (to learn the state of a
//! WSJT-X that was running before svc), and callsign highlights (worked before, new one).
//!
//! Every datagram names schema 2 in its header. It is the schema WSJT-X negotiates down to
//! with a server that names it, and the fields svc sends (text, booleans, colours) are
//! written alike in schemas 2 and 3: sending 3 would gain nothing, and a build that speaks
//! only 2 might not read it. Hence a constant, not a parameter.

use super::message::MAGIC;

/// The schema svc names in what it sends.
pub const SCHEMA: u32 = 2;

const HEARTBEAT: u32 = 0;
const REPLAY: u32 = 7;
const HIGHLIGHT_CALLSIGN: u32 = 13;

/// A colour for [`highlight_callsign`], opaque.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb {
    pub red: u8,
    pub green: u8,
    pub blue: u8,
}

/// Heartbeat (0): svc's id, the highest schema it speaks, its version and revision.
pub fn heartbeat(id: &str, max_schema: u32, version: &str, revision: &str) -> Vec<u8> {
    let mut out = header(HEARTBEAT, id);
    put_u32(&mut out, max_schema);
    put_utf8(&mut out, version);
    put_utf8(&mut out, revision);
    out
}

/// Replay (7): asks the WSJT-X instance `id` to send its band activity again, then its Status.
pub fn replay(id: &str) -> Vec<u8> {
    header(REPLAY, id)
}

/// Highlight Callsign (13): colours `callsign` in WSJT-X's band activity. `None` for a colour
/// sends an invalid QColor, which clears that highlight; `highlight_last` limits it to the
/// last period's decodes.
pub fn highlight_callsign(
    id: &str,
    callsign: &str,
    background: Option<Rgb>,
    foreground: Option<Rgb>,
    highlight_last: bool,
) -> Vec<u8> {
    let mut out = header(HIGHLIGHT_CALLSIGN, id);
    put_utf8(&mut out, callsign);
    put_qcolor(&mut out, background);
    put_qcolor(&mut out, foreground);
    out.push(u8::from(highlight_last));
    out
}

fn header(kind: u32, id: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    put_u32(&mut out, MAGIC);
    put_u32(&mut out, SCHEMA);
    put_u32(&mut out, kind);
    put_utf8(&mut out, id);
    out
}

fn put_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_be_bytes());
}

fn put_u16(out: &mut Vec<u8>, value: u16) {
    out.extend_from_slice(&value.to_be_bytes());
}

/// A QByteArray of UTF-8: its length, then its bytes. A text of 4 GiB or more (which no
/// datagram could carry anyway) is cut short of the length that means null.
fn put_utf8(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    let length = u32::try_from(bytes.len()).map_or(u32::MAX - 1, |n| n.min(u32::MAX - 1));
    put_u32(out, length);
    out.extend_from_slice(&bytes[..length as usize]);
}

/// A QColor as Qt 5's QDataStream writes it: qint8 spec (1 RGB, 0 invalid), then alpha, red,
/// green, blue and a padding word, each 16 bits (an 8-bit value times 0x101). An invalid
/// colour is written as Qt's default QColor is: alpha 0xffff, the rest 0.
fn put_qcolor(out: &mut Vec<u8>, colour: Option<Rgb>) {
    const SPEC_INVALID: u8 = 0;
    const SPEC_RGB: u8 = 1;
    let wide = |value: u8| u16::from(value) * 0x101;
    let (spec, red, green, blue) = match colour {
        Some(c) => (SPEC_RGB, wide(c.red), wide(c.green), wide(c.blue)),
        None => (SPEC_INVALID, 0, 0, 0),
    };
    out.push(spec);
    for word in [u16::MAX, red, green, blue, 0] {
        put_u16(out, word);
    }
}
