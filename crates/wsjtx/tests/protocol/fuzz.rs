//! Nothing a datagram holds makes the decoder panic: every prefix of every fixture and of the
//! tests' own messages, random bytes, random bodies behind a good header, and fixtures with
//! bytes changed at random. The generator is a fixed xorshift, so a failure repeats.

use svc_wsjtx::{Message, contact, decode, once_key};

use super::fixtures;
use super::qds::{self, Qds};

/// Marsaglia's xorshift64.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// Decodes, and for a QSO Logged also makes its contact and key, which must not panic either;
/// says whether the datagram decoded.
fn survives(datagram: &[u8]) -> bool {
    match decode(datagram) {
        Ok(Message::QsoLogged(q)) => {
            let _ = contact(&q, "fld_01").map_err(|e| e.to_string());
            let _ = once_key(&q);
            true
        }
        Ok(_) => true,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            false
        }
    }
}

fn ours() -> Vec<Vec<u8>> {
    let mut tail = qds::qso_logged();
    qds::jtdx_tail(&mut tail);
    [
        qds::heartbeat(),
        qds::status(),
        qds::decode(),
        qds::qso_logged(),
        tail,
    ]
    .into_iter()
    .map(|q| q.bytes)
    .collect()
}

#[test]
fn every_prefix_of_every_datagram() {
    let all: Vec<Vec<u8>> = fixtures::all()
        .into_iter()
        .map(|(_, bytes)| bytes)
        .chain(ours())
        .collect();
    for datagram in &all {
        for end in 0..=datagram.len() {
            survives(&datagram[..end]);
        }
        assert!(decode(datagram).is_ok());
    }
}

#[test]
fn random_bytes() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..3000 {
        let n = rng.below(300);
        survives(&rng.bytes(n));
    }
}

#[test]
fn random_bodies_behind_a_good_header() {
    let mut rng = XorShift(0xD1B5_4A32_D192_ED03);
    for _ in 0..4000 {
        // Mostly the kinds svc decodes, some others.
        let kind = rng.below(16) as u32;
        let schema = 1 + rng.below(3) as u32;
        let mut q = Qds::header(schema, kind, "WSJT-X");
        let n = rng.below(200);
        q.bytes.extend(rng.bytes(n));
        survives(&q.bytes);
    }
}

#[test]
fn fixtures_with_bytes_changed() {
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    let all: Vec<Vec<u8>> = fixtures::all()
        .into_iter()
        .map(|(_, bytes)| bytes)
        .chain(ours())
        .collect();
    let mut decoded = 0;
    for round in 0..6000 {
        let mut datagram = all[round % all.len()].clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(datagram.len());
            // Lengths and spec bytes are where the damage is interesting: favour 0x00 and
            // 0xff, which make lengths huge or null and times null.
            datagram[at] = match rng.below(3) {
                0 => 0x00,
                1 => 0xFF,
                _ => rng.next() as u8,
            };
        }
        decoded += usize::from(survives(&datagram));
    }
    // Both ways are taken: damage that still decodes, damage that is refused.
    assert!((100..5900).contains(&decoded), "{decoded} of 6000 decoded");
}
