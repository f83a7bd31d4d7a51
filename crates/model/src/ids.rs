//! Opaque identifiers (`fld_…`, `qso_…`, `key_…`, `req_…`) and the base32 alphabet they share with keys.

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

const ID_BYTES: usize = 10;
const ID_CHARS: usize = 16;

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

    pub fn generate(self) -> String {
        let mut id = String::from(self.prefix());
        id.push_str(&base32(&random_bytes::<ID_BYTES>()).to_ascii_lowercase());
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
    fn malformed_ids_are_refused_with_the_expected_shape() {
        assert!(!IdKind::Folder.is_valid("qso_aaaaaaaaaaaaaaaa"));
        assert!(!IdKind::Folder.is_valid("fld_AAAAAAAAAAAAAAAA"));
        assert!(!IdKind::Folder.is_valid("fld_aaaa"));
        let err = IdKind::Contact.parse("qsoId", "x").unwrap_err();
        assert!(err.message.contains("qso_"), "{}", err.message);
    }
}
