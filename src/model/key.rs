//! API keys: `svc_live_` + 24 base32 characters, stored only as a SHA-256 hash.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::ids::{base32, random_bytes};

pub const KEY_PREFIX: &str = "svc_live_";
pub const KEY_BODY_CHARS: usize = 24;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Basic,
    Elevated,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Basic => "basic",
            Tier::Elevated => "elevated",
        }
    }

    pub fn parse(text: &str) -> Option<Tier> {
        match text {
            "basic" => Some(Tier::Basic),
            "elevated" => Some(Tier::Elevated),
            _ => None,
        }
    }
}

/// A plaintext key. Its `Debug` never shows the secret, so it cannot leak through a log line.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ApiKey({}…)", self.prefix())
    }
}

impl ApiKey {
    /// A new key from the operating system's CSPRNG: 15 bytes are exactly 24 base32 characters.
    pub fn generate() -> ApiKey {
        ApiKey(format!("{KEY_PREFIX}{}", base32(&random_bytes::<15>())))
    }

    /// Accepts only the exact shape the service issues.
    pub fn parse(text: &str) -> Option<ApiKey> {
        let body = text.strip_prefix(KEY_PREFIX)?;
        let well_formed = body.len() == KEY_BODY_CHARS
            && body.bytes().all(|b| matches!(b, b'A'..=b'Z' | b'2'..=b'7'));
        well_formed.then(|| ApiKey(text.to_owned()))
    }

    /// `svc_live_` and the first 3 characters of the secret part: safe to display.
    pub fn prefix(&self) -> String {
        self.0[..KEY_PREFIX.len() + 3].to_owned()
    }

    pub fn hash(&self) -> [u8; 32] {
        Sha256::digest(self.0.as_bytes()).into()
    }

    /// The plaintext, for the one place it is shown (creation) and the Authorization header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_parse_and_have_a_short_prefix() {
        let key = ApiKey::generate();
        assert_eq!(key.expose().len(), KEY_PREFIX.len() + KEY_BODY_CHARS);
        assert_eq!(ApiKey::parse(key.expose()), Some(key.clone()));
        assert_eq!(key.prefix().len(), KEY_PREFIX.len() + 3);
        assert!(!format!("{key:?}").contains(&key.expose()[KEY_PREFIX.len() + 3..]));
        assert_ne!(ApiKey::generate(), key);
    }

    #[test]
    fn malformed_keys_are_refused() {
        for bad in [
            "",
            "svc_live_",
            "svc_live_ABCDEFGHIJKLMNOPQRSTUVW",
            "svc_live_ABCDEFGHIJKLMNOPQRSTUVWXY",
            "svc_live_abcdefghijklmnopqrstuvwx",
            "svc_live_ABCDEFGHIJKLMNOPQRSTUVW1",
            "svc_test_ABCDEFGHIJKLMNOPQRSTUVWX",
        ] {
            assert!(ApiKey::parse(bad).is_none(), "{bad}");
        }
        assert!(ApiKey::parse("svc_live_ABCDEFGHIJKLMNOPQRSTUVWX").is_some());
    }
}
