//! API keys: `svc_live_` (or `htx_live_`, which the published Hamtrax client stores) + 24
//! base32 characters, stored only as a SHA-256 hash.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::ids::{base32, random_bytes};

pub const KEY_PREFIX: &str = "svc_live_";
pub const KEY_BODY_CHARS: usize = 24;

/// The prefixes a key may have. They are of one length, so a key's displayed prefix is the
/// same number of characters whichever it has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum KeyPrefix {
    /// `svc_live_`, svc's own.
    #[default]
    Svc,
    /// `htx_live_`: the published Hamtrax client accepts only keys of this shape.
    Htx,
}

impl KeyPrefix {
    pub const ALL: [KeyPrefix; 2] = [KeyPrefix::Svc, KeyPrefix::Htx];

    pub fn as_str(self) -> &'static str {
        match self {
            KeyPrefix::Svc => KEY_PREFIX,
            KeyPrefix::Htx => "htx_live_",
        }
    }
}

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
        ApiKey::generate_with(KeyPrefix::Svc)
    }

    pub fn generate_with(prefix: KeyPrefix) -> ApiKey {
        ApiKey(format!(
            "{}{}",
            prefix.as_str(),
            base32(&random_bytes::<15>())
        ))
    }

    /// Accepts only the exact shapes the service issues.
    pub fn parse(text: &str) -> Option<ApiKey> {
        let body = KeyPrefix::ALL
            .iter()
            .find_map(|p| text.strip_prefix(p.as_str()))?;
        let well_formed = body.len() == KEY_BODY_CHARS
            && body.bytes().all(|b| matches!(b, b'A'..=b'Z' | b'2'..=b'7'));
        well_formed.then(|| ApiKey(text.to_owned()))
    }

    /// `svc_live_` (or `htx_live_`) and the first 3 characters of the secret part: safe to
    /// display.
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
    fn a_hamtrax_shaped_key_is_made_parsed_and_shown_as_one() {
        let key = ApiKey::generate_with(KeyPrefix::Htx);
        assert!(key.expose().starts_with("htx_live_"));
        assert_eq!(ApiKey::parse(key.expose()), Some(key.clone()));
        assert_eq!(key.prefix().len(), 12);
        assert_ne!(
            ApiKey::parse(key.expose()).unwrap().hash(),
            ApiKey::generate().hash()
        );
        assert!(ApiKey::parse("htx_test_ABCDEFGHIJKLMNOPQRSTUVWX").is_none());
        assert!(ApiKey::parse("htx_live_ABCDEFGHIJKLMNOPQRSTUVW").is_none());
    }

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
