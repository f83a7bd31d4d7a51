//! Opaque identifiers (`fld_…`, `qso_…`, `key_…`, `req_…`) and the base32 alphabet they share with keys.

use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use super::ApiError;

const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// RFC 4648 base32 without padding, upper case.
pub fn base32(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 8 / 5 + 1);
    let mut buffer: u32 = 0;
    let mut bits = 0;
    for &b in bytes {
        buffer = (buffer << 8) | u32::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(ALPHABET[((buffer >> bits) & 31) as usize] as char);
        }
    }
    if bits > 0 {
        out.push(ALPHABET[((buffer << (5 - bits)) & 31) as usize] as char);
    }
    out
}

/// Inverse of [`base32`]; `None` for any character outside the alphabet.
pub fn base32_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 5 / 8);
    let mut buffer: u32 = 0;
    let mut bits = 0;
    for c in text.bytes() {
        let v = ALPHABET.iter().position(|&a| a == c)? as u32;
        buffer = (buffer << 5) | v;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
        }
    }
    Some(out)
}

pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut buf = [0u8; N];
    // The OS CSPRNG only fails on a broken system, where no key could be made safely anyway.
    getrandom::fill(&mut buf).expect("the operating system's random source failed");
    buf
}

const ID_CHARS: usize = 16;

/// An id's 80 bits: the milliseconds since 1970 it was made in (44 bits, to the year 2527),
/// then a count (36 bits) that starts at random in each millisecond and goes up by one for
/// each further id in it. Ids made later sort later, so an index of them grows at its end:
/// with random ids, a batch of 500 contacts wrote into some 400 pages spread over the whole
/// index, and every one of them again at the next commit.
const TIME_BITS: u32 = 44;
const COUNT_BITS: u32 = 80 - TIME_BITS;

/// The 32 characters of an id in ASCII order, so that ids compare as the numbers they spell.
const SORTED: &[u8; 32] = b"234567abcdefghijklmnopqrstuvwxyz";

/// The last id made by this process, as (millisecond, count).
static LAST: Mutex<(u64, u64)> = Mutex::new((0, 0));

/// The bits of the next id made at `millis`: later than every id this process made before,
/// even when the clock goes back.
fn next_id_bits(millis: u64) -> u128 {
    advance(
        &mut LAST.lock().unwrap_or_else(PoisonError::into_inner),
        millis,
    )
}

/// Moves `last` on to the next id at `millis`; that id's bits.
fn advance(last: &mut (u64, u64), millis: u64) -> u128 {
    let (mut at, mut count) = *last;
    if millis > at {
        at = millis;
        // A random start in the lower half leaves 2^35 ids of room in the millisecond, and
        // another process making ids in the same millisecond almost surely counts elsewhere.
        count = u64::from_be_bytes(random_bytes::<8>()) >> (64 - (COUNT_BITS - 1));
    } else {
        count += 1;
        if count >> COUNT_BITS != 0 {
            at += 1;
            count = 0;
        }
    }
    *last = (at, count);
    (u128::from(at & ((1 << TIME_BITS) - 1)) << COUNT_BITS) | u128::from(count)
}

/// `bits`' low 80 bits in [`SORTED`]'s characters, most significant first.
fn spell_id(bits: u128) -> impl Iterator<Item = char> {
    (0..ID_CHARS)
        .rev()
        .map(move |i| SORTED[((bits >> (5 * i)) & 31) as usize] as char)
}

/// The kinds of identifiers, each with its prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    Folder,
    Contact,
    Key,
    Account,
    Request,
    Logbook,
}

impl IdKind {
    pub fn prefix(self) -> &'static str {
        match self {
            IdKind::Folder => "fld_",
            IdKind::Contact => "qso_",
            IdKind::Key => "key_",
            IdKind::Account => "acc_",
            IdKind::Request => "req_",
            IdKind::Logbook => "lbk_",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            IdKind::Folder => "folder id",
            IdKind::Contact => "contact id",
            IdKind::Key => "key id",
            IdKind::Account => "account id",
            IdKind::Request => "request id",
            IdKind::Logbook => "logbook id",
        }
    }

    /// A new id, later than every other this process made (see [`TIME_BITS`]).
    pub fn generate(self) -> String {
        let millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let mut id = String::with_capacity(self.prefix().len() + ID_CHARS);
        id.push_str(self.prefix());
        id.extend(spell_id(next_id_bits(millis)));
        id
    }

    pub fn is_valid(self, text: &str) -> bool {
        text.strip_prefix(self.prefix()).is_some_and(|rest| {
            rest.len() == ID_CHARS && rest.bytes().all(|b| matches!(b, b'a'..=b'z' | b'2'..=b'7'))
        })
    }

    /// Checks the shape of an id given by a client; `field` names where it came from.
    pub fn parse(self, field: &str, text: &str) -> Result<String, ApiError> {
        if self.is_valid(text) {
            Ok(text.to_owned())
        } else {
            Err(ApiError::field(
                field,
                format!(
                    "{field} {:?} is not a {}: expected {} followed by {ID_CHARS} characters a-z or 2-7",
                    truncate(text, 40),
                    self.noun(),
                    self.prefix()
                ),
            ))
        }
    }
}

/// Shortens client text quoted back in an error message.
pub fn truncate(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        text.to_owned()
    } else {
        let mut out: String = text.chars().take(max_chars).collect();
        out.push('…');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base32_matches_rfc4648_vectors() {
        assert_eq!(base32(b""), "");
        assert_eq!(base32(b"f"), "MY");
        assert_eq!(base32(b"fo"), "MZXQ");
        assert_eq!(base32(b"foo"), "MZXW6");
        assert_eq!(base32(b"foob"), "MZXW6YQ");
        assert_eq!(base32(b"fooba"), "MZXW6YTB");
        assert_eq!(base32(b"foobar"), "MZXW6YTBOI");
        assert_eq!(base32_decode("MZXW6YTBOI").unwrap(), b"foobar");
        assert_eq!(base32_decode("MZ1"), None);
    }

    #[test]
    fn generated_ids_have_their_shape() {
        for kind in [IdKind::Folder, IdKind::Contact, IdKind::Key] {
            let id = kind.generate();
            assert!(kind.is_valid(&id), "{id}");
            assert_eq!(id.len(), kind.prefix().len() + ID_CHARS);
        }
        assert_ne!(IdKind::Folder.generate(), IdKind::Folder.generate());
    }

    #[test]
    fn ids_sort_in_the_order_they_were_made() {
        let ids: Vec<String> = (0..10_000).map(|_| IdKind::Contact.generate()).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids out of order");
        // Even when the clock goes back, or a millisecond's count runs out.
        let at = 1 << 40;
        let mut last = (0, 0);
        let first = advance(&mut last, at);
        assert!(advance(&mut last, at - 5_000) > first);
        let mut full = (at, (1 << COUNT_BITS) - 1);
        assert_eq!(advance(&mut full, at), u128::from(at + 1) << COUNT_BITS);
    }

    #[test]
    fn an_id_spells_its_time_first() {
        let bits = (u128::from(0x123_4567_89ab_u64) << COUNT_BITS) | 7;
        let spelled: String = spell_id(bits).collect();
        assert_eq!(spelled.len(), ID_CHARS);
        assert!(spelled.ends_with('b'), "{spelled}");
        let later: String = spell_id(bits + (1 << COUNT_BITS)).collect();
        assert!(
            later > spelled && later[..8] == spelled[..8],
            "{spelled} {later}"
        );
        // The characters' order is the digits' order.
        assert!(SORTED.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn malformed_ids_are_refused_with_the_expected_shape() {
        assert!(!IdKind::Folder.is_valid("qso_aaaaaaaaaaaaaaaa"));
        assert!(!IdKind::Folder.is_valid("fld_AAAAAAAAAAAAAAAA"));
        assert!(!IdKind::Folder.is_valid("fld_aaaa"));
        let err = IdKind::Contact.parse("qsoId", "x").unwrap_err();
        assert!(err.message.contains("qso_"), "{}", err.message);
    }
}
