//! Nothing panics, whatever arrives on the port: every prefix of every real datagram, the
//! datagrams with bytes flipped, and pseudo-random bytes, each decoded and, when it is a
//! contact, made into one and keyed.

use svc_n1mm::{Broadcast, contact, decode, once_key};

use super::fixtures;

/// Marsaglia's xorshift64: a fixed seed, so a failure repeats.
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
}

/// Decodes and goes as far as the datagram allows; a panic fails the test.
fn survive(datagram: &[u8]) {
    match decode(datagram) {
        Ok(Broadcast::Contact(info) | Broadcast::Replace(info)) => {
            let _ = contact(&info, "fld_1");
            let _ = once_key(&info);
        }
        Ok(Broadcast::Delete { info, .. }) => {
            let _ = once_key(&info);
        }
        Ok(Broadcast::Other { .. }) => {}
        Err(e) => assert!(e.to_string().chars().count() < 200, "{e}"),
    }
}

#[test]
fn every_prefix_of_every_fixture() {
    for fixture in fixtures::ALL {
        let bytes = fixture.as_bytes();
        for end in 0..bytes.len() {
            survive(&bytes[..end]);
            // A prefix of a real datagram is never a contact: it is cut short.
            if end + 2 < bytes.len() {
                assert!(
                    !matches!(decode(&bytes[..end]), Ok(Broadcast::Contact(_))),
                    "{:?}",
                    String::from_utf8_lossy(&bytes[..end])
                );
            }
        }
        survive(bytes);
    }
}

#[test]
fn fixtures_with_bytes_changed() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    const ODD: &[u8] = b"<>/&;![]?=\"' \r\n\x00\xff\xc3#x";
    for fixture in fixtures::ALL {
        for _ in 0..500 {
            let mut bytes = fixture.as_bytes().to_vec();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bytes.len());
                bytes[at] = if rng.below(2) == 0 {
                    ODD[rng.below(ODD.len())]
                } else {
                    rng.next() as u8
                };
            }
            survive(&bytes);
        }
    }
}

#[test]
fn random_bytes() {
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    // Mostly markup, so that the decoder gets past its first byte.
    const ALPHABET: &[u8] =
        b"<>/ contactinfocallmodetimestampIDtxfreqband01234-: &amp;#x;<![CDATA[]]>?\xef\xbb\xbf";
    for round in 0..4000 {
        let len = rng.below(300);
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                if round % 2 == 0 {
                    rng.next() as u8
                } else {
                    ALPHABET[rng.below(ALPHABET.len())]
                }
            })
            .collect();
        survive(&bytes);
        let mut framed = b"<contactinfo>".to_vec();
        framed.extend_from_slice(&bytes);
        framed.extend_from_slice(b"</contactinfo>");
        survive(&framed);
    }
}
