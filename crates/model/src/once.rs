//! Idempotency keys made from what a contact says, for contacts that reach svc from another
//! program (a file's record, a datagram of WSJT-X or N1MM+): the same contact, sent again or
//! read again, gets the same key, and the service stores it once.

use sha2::{Digest, Sha256};

/// `prefix` and the hex SHA-256 of `version` and `parts`. The version keeps a change of
/// what a kind of key covers from meeting keys made before it; each part is length-prefixed,
/// and an absent part apart from an empty one, so that no two lists of parts hash alike.
pub fn content_key(prefix: &str, version: &[u8], parts: &[Option<String>]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(version);
    for part in parts {
        match part {
            Some(text) => {
                hasher.update([1u8]);
                hasher.update((text.len() as u64).to_be_bytes());
                hasher.update(text.as_bytes());
            }
            None => hasher.update([0u8]),
        }
    }
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut key = String::with_capacity(prefix.len() + 64);
    key.push_str(prefix);
    for byte in hasher.finalize() {
        key.push(char::from(HEX[usize::from(byte >> 4)]));
        key.push(char::from(HEX[usize::from(byte & 0xF)]));
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_told_apart() {
        let key = |parts: &[Option<&str>]| {
            let parts: Vec<Option<String>> = parts.iter().map(|p| p.map(str::to_owned)).collect();
            content_key("x-", b"v1", &parts)
        };
        let ab = key(&[Some("a"), Some("b")]);
        assert!(ab.starts_with("x-") && ab.len() == 66);
        assert_ne!(ab, key(&[Some("ab"), Some("")]));
        assert_ne!(key(&[None]), key(&[Some("")]));
        assert_ne!(
            ab,
            content_key("x-", b"v2", &[Some("a".into()), Some("b".into())])
        );
        assert_eq!(ab, key(&[Some("a"), Some("b")]));
    }
}
