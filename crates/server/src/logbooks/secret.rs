//! The server's secret, which seals the external logbooks' API keys at rest
//! (ChaCha20-Poly1305; docs/LOGBOOKS.md, "Rotating the secret", says how to rotate it).

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use sha2::{Digest, Sha256};

use svc_model::ids::random_bytes;

/// A secret shorter than this is refused: it would be guessable.
const MIN_SECRET_BYTES: usize = 32;
const NONCE_BYTES: usize = 12;

/// The key that seals and opens logbook keys. Never printed.
#[derive(Clone)]
pub struct Secret {
    key: Key,
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

impl Secret {
    /// A secret from its text (a file's content, trimmed): at least 32 bytes, e.g. from
    /// `head -c 48 /dev/urandom | base64`.
    pub fn from_text(text: &str) -> Result<Secret, String> {
        let text = text.trim();
        if text.len() < MIN_SECRET_BYTES {
            return Err(format!(
                "the secret is {} bytes; it must be at least {MIN_SECRET_BYTES} (e.g. head -c 48 /dev/urandom | base64)",
                text.len()
            ));
        }
        let digest = Sha256::new()
            .chain_update(b"svc logbook keys v1\n")
            .chain_update(text.as_bytes())
            .finalize();
        Ok(Secret {
            key: Key::from(<[u8; 32]>::from(digest)),
        })
    }

    pub fn read_file(path: &std::path::Path) -> Result<Secret, String> {
        use std::os::unix::fs::MetadataExt;
        // Whoever reads the secret opens every logbook key: a file others may read is said
        // loudly at every start (not refused, so that a service upgraded in place still
        // starts). A file its group may read is fine when that group is the server's own
        // (docs/DEPLOY.md's root:svc 0640): only the service reads it then.
        if let Ok(meta) = std::fs::metadata(path) {
            let others = meta.mode() & 0o007 != 0;
            let group = meta.mode() & 0o070 != 0 && !in_group(meta.gid());
            if others || group {
                tracing::warn!(
                    "the secret file {} may be read by other users (mode {:o}): whoever reads it opens every logbook key; run chmod 600 {}, or chmod 640 with the server's group",
                    path.display(),
                    meta.mode() & 0o777,
                    path.display()
                );
            }
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the secret file {}: {e}", path.display()))?;
        Secret::from_text(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Seals `plaintext` for the logbook `id`: a sealed key moved to another logbook's row
    /// does not open there.
    pub fn seal(&self, id: &str, plaintext: &str) -> Vec<u8> {
        let nonce = random_bytes::<NONCE_BYTES>();
        let cipher = ChaCha20Poly1305::new(&self.key);
        let payload = Payload {
            msg: plaintext.as_bytes(),
            aad: id.as_bytes(),
        };
        // Encryption fails only for messages of gigabytes; a key is a few dozen bytes.
        let sealed = cipher
            .encrypt(&Nonce::from(nonce), payload)
            .unwrap_or_default();
        let mut out = nonce.to_vec();
        out.extend(sealed);
        out
    }

    /// The key sealed for logbook `id`, or `None` when this secret did not seal it.
    pub fn open(&self, id: &str, sealed: &[u8]) -> Option<String> {
        if sealed.len() <= NONCE_BYTES {
            return None;
        }
        let (nonce, body) = sealed.split_at(NONCE_BYTES);
        let cipher = ChaCha20Poly1305::new(&self.key);
        let plain = cipher
            .decrypt(
                &Nonce::from(<[u8; NONCE_BYTES]>::try_from(nonce).ok()?),
                Payload {
                    msg: body,
                    aad: id.as_bytes(),
                },
            )
            .ok()?;
        String::from_utf8(plain).ok()
    }
}

/// Whether the server runs with group `gid`, as its own group or a supplementary one.
fn in_group(gid: u32) -> bool {
    // SAFETY: getegid has no preconditions and cannot fail.
    if unsafe { libc::getegid() } == gid {
        return true;
    }
    let mut groups = vec![0 as libc::gid_t; 256];
    // SAFETY: the buffer holds `groups.len()` entries, the most getgroups writes; it answers
    // how many it wrote, or -1 (for more groups than that), which counts as none.
    let n = unsafe { libc::getgroups(groups.len() as libc::c_int, groups.as_mut_ptr()) };
    groups.truncate(usize::try_from(n).unwrap_or(0));
    groups.contains(&gid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_key_opens_with_its_secret_and_logbook_only() {
        let secret = Secret::from_text("correct horse battery staple, 32+ bytes long").unwrap();
        let sealed = secret.seal("lbk_a", "ABCD-1234-EFGH-5678");
        assert!(!sealed.windows(4).any(|w| w == b"ABCD"), "not in the clear");
        assert_eq!(
            secret.open("lbk_a", &sealed).as_deref(),
            Some("ABCD-1234-EFGH-5678")
        );
        assert_eq!(secret.open("lbk_b", &sealed), None, "bound to its logbook");
        let other = Secret::from_text("another secret that is long enough, too!").unwrap();
        assert_eq!(other.open("lbk_a", &sealed), None);
        assert_ne!(
            sealed,
            secret.seal("lbk_a", "ABCD-1234-EFGH-5678"),
            "fresh nonce"
        );
        assert!(
            Secret::from_text("short")
                .unwrap_err()
                .contains("at least 32")
        );
        assert_eq!(format!("{secret:?}"), "Secret(…)");
    }
}
