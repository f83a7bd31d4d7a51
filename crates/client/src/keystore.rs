//! Where the client finds and keeps its API key (docs/CLI.md, "Keys"): `SVC_API_KEY`;
//! the OS keychain (service `svc-cli`, account `default`) unless `SVC_NO_KEYRING=1`; the
//! config file; else no key.

use std::path::PathBuf;

use super::config::{Config, ConfigError, config_path};
use svc_model::ApiKey;

pub const KEYCHAIN_SERVICE: &str = "svc-cli";
pub const KEYCHAIN_ACCOUNT: &str = "default";
pub const ENV_KEY: &str = "SVC_API_KEY";
pub const ENV_NO_KEYRING: &str = "SVC_NO_KEYRING";
/// What to do when no key is found anywhere.
pub const NO_KEY: &str = "no API key: run svc auth login (or svc auth set-key), or set SVC_API_KEY";

/// Where a key came from; the names are those of `svc auth status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySource {
    Env,
    Keychain,
    Config,
}

impl KeySource {
    pub fn as_str(self) -> &'static str {
        match self {
            KeySource::Env => "env",
            KeySource::Keychain => "keychain",
            KeySource::Config => "config",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum KeyError {
    /// A key was found but is not of the shape `svc_live_` + 24 base32 characters.
    Malformed {
        source: KeySource,
        fix: String,
    },
    Config(ConfigError),
    /// Neither the keychain nor the config file could take the key.
    NoStore(String),
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyError::Malformed { source, fix } => write!(
                f,
                "the API key from {} is malformed: a key is svc_live_ (or htx_live_) followed by 24 characters A-Z and 2-7; {fix}",
                match source {
                    KeySource::Env => "SVC_API_KEY",
                    KeySource::Keychain => "the keychain",
                    KeySource::Config => "the config file",
                }
            ),
            KeyError::Config(e) => e.fmt(f),
            KeyError::NoStore(reason) => f.write_str(reason),
        }
    }
}

impl From<ConfigError> for KeyError {
    fn from(e: ConfigError) -> Self {
        KeyError::Config(e)
    }
}

/// A key and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundKey {
    pub key: ApiKey,
    pub source: KeySource,
}

pub fn keyring_disabled() -> bool {
    std::env::var(ENV_NO_KEYRING).is_ok_and(|v| matches!(v.trim(), "1" | "true" | "yes"))
}

/// The keychain entry of `account` under the service `svc-cli`.
fn entry_of(account: &str) -> keyring::Result<keyring::Entry> {
    // The Secret Service alone, named explicitly: the kernel keyutils cache of the
    // "persistent" store answers "no entry" where it is broken, which would hide a stored key.
    #[cfg(target_os = "linux")]
    {
        let credential = keyring::secret_service::SsCredential::new_with_target(
            None,
            KEYCHAIN_SERVICE,
            account,
        )?;
        Ok(keyring::Entry::new_with_credential(Box::new(credential)))
    }
    #[cfg(not(target_os = "linux"))]
    {
        keyring::Entry::new(KEYCHAIN_SERVICE, account)
    }
}

fn entry() -> keyring::Result<keyring::Entry> {
    entry_of(KEYCHAIN_ACCOUNT)
}

fn keychain_get() -> Result<Option<String>, String> {
    secret_get(KEYCHAIN_ACCOUNT)
}

/// The secret the keychain holds for `account`; `Ok(None)` when it holds none.
pub(crate) fn secret_get(account: &str) -> Result<Option<String>, String> {
    match entry_of(account).and_then(|e| e.get_password()) {
        Ok(text) => Ok(Some(text)),
        Err(keyring::Error::NoEntry) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// Writes the secret of `account` to the keychain; the error says why it could not.
pub(crate) fn secret_set(account: &str, secret: &str) -> Result<(), String> {
    entry_of(account)
        .and_then(|e| e.set_password(secret))
        .map_err(|e| e.to_string())
}

/// Removes the secret of `account` from the keychain; none there is not an error.
pub(crate) fn secret_delete(account: &str) -> Result<(), String> {
    match entry_of(account).and_then(|e| e.delete_credential()) {
        Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

pub(crate) fn load_config() -> Result<Option<Config>, ConfigError> {
    config_path().map(|p| Config::load(&p)).transpose()
}

/// Finds the key in the order of docs/CLI.md, "Keys". `Ok(None)`: no key anywhere.
pub fn resolve(notes: &mut Vec<String>) -> Result<Option<FoundKey>, KeyError> {
    if let Ok(text) = std::env::var(ENV_KEY) {
        let text = text.trim();
        if !text.is_empty() {
            let key = ApiKey::parse(text).ok_or_else(|| KeyError::Malformed {
                source: KeySource::Env,
                fix: "fix or unset SVC_API_KEY".into(),
            })?;
            return Ok(Some(FoundKey {
                key,
                source: KeySource::Env,
            }));
        }
    }
    if keyring_disabled() {
        notes.push("the keychain is skipped: SVC_NO_KEYRING=1".into());
    } else {
        match keychain_get() {
            Ok(Some(text)) => {
                let key = ApiKey::parse(text.trim()).ok_or_else(|| KeyError::Malformed {
                    source: KeySource::Keychain,
                    fix: "store a good one with svc auth login, or remove it with svc auth logout"
                        .into(),
                })?;
                return Ok(Some(FoundKey {
                    key,
                    source: KeySource::Keychain,
                }));
            }
            Ok(None) => notes.push("the keychain holds no svc key".into()),
            Err(e) => notes.push(format!("the keychain is unavailable: {e}")),
        }
    }
    let Some(config) = load_config()? else {
        notes.push("no config file: neither XDG_CONFIG_HOME nor HOME is set".into());
        return Ok(None);
    };
    match config.api_key()? {
        Some(text) => {
            let key = ApiKey::parse(text).ok_or_else(|| KeyError::Malformed {
                source: KeySource::Config,
                fix: format!(
                    "store a good one with svc auth login, or remove it with svc auth logout (file {})",
                    config.path.display()
                ),
            })?;
            Ok(Some(FoundKey {
                key,
                source: KeySource::Config,
            }))
        }
        None => {
            notes.push(format!("{} holds no key", config.path.display()));
            Ok(None)
        }
    }
}

/// Where `store` put the key.
#[derive(Debug, Clone, PartialEq)]
pub enum Stored {
    Keychain,
    /// The config file, with the reason the keychain was not used.
    Config {
        path: PathBuf,
        why: String,
    },
}

/// Stores the key, replacing any earlier one: in the keychain when a write there works,
/// else in the config file.
pub fn store(key: &ApiKey) -> Result<Stored, KeyError> {
    let why = if keyring_disabled() {
        "SVC_NO_KEYRING=1 is set".to_owned()
    } else {
        // A locked keyring reads as empty but refuses writes, so only a write tells whether it works.
        match entry().and_then(|e| e.set_password(key.expose())) {
            Ok(()) => {
                // A key left in the file from an earlier fallback would come back if the
                // keychain went away later.
                if let Some(mut config) = load_config().ok().flatten()
                    && config.remove_api_key()
                {
                    config.save()?;
                }
                return Ok(Stored::Keychain);
            }
            Err(e) => format!("the keychain is unavailable ({e})"),
        }
    };
    let path = config_path().ok_or_else(|| {
        KeyError::NoStore(format!(
            "{why}, and there is no config file to fall back on: set HOME or XDG_CONFIG_HOME, or pass the key in SVC_API_KEY"
        ))
    })?;
    // A file that does not parse is left alone rather than overwritten; a too-open one is
    // rewritten 0600 by `save`.
    let mut config = Config::load(&path)?;
    config.set_api_key(key.expose());
    config.save()?;
    Ok(Stored::Config { path, why })
}

/// Writes `base` as `apiBase` into the config file (made 0600 in a 0700 folder), so that the
/// next commands talk to the service a login checked the key with; returns the file.
pub fn store_api_base(base: &str) -> Result<PathBuf, KeyError> {
    let path = config_path().ok_or_else(|| {
        KeyError::NoStore(
            "there is no config file to keep the API base in: set HOME or XDG_CONFIG_HOME, or give --api-base to each command".into(),
        )
    })?;
    let mut config = Config::load(&path)?;
    config.set_api_base(base);
    config.save()?;
    Ok(path)
}

/// What `remove` took away.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Removed {
    pub keychain: bool,
    pub config: Option<PathBuf>,
    /// Why the keychain could not be cleared, when it could not.
    pub keychain_error: Option<String>,
}

/// Removes the key from the keychain (unless skipped) and from the config file.
pub fn remove() -> Result<Removed, KeyError> {
    let mut removed = Removed::default();
    if !keyring_disabled() {
        match entry().and_then(|e| e.delete_credential()) {
            Ok(()) => removed.keychain = true,
            Err(keyring::Error::NoEntry) => {}
            Err(e) => removed.keychain_error = Some(e.to_string()),
        }
    }
    if let Some(path) = config_path() {
        let mut config = Config::load(&path)?;
        if config.remove_api_key() {
            config.save()?;
            removed.config = Some(path);
        }
    }
    Ok(removed)
}

/// The rig address from the config file, if it sets one.
pub fn configured_rig() -> Result<Option<String>, ConfigError> {
    Ok(load_config()?.and_then(|c| c.rig().map(str::to_owned)))
}

/// The API base from the config file, if it sets one.
pub fn configured_api_base() -> Result<Option<String>, ConfigError> {
    match load_config()? {
        Some(config) => Ok(config.api_base()?.map(str::to_owned)),
        None => Ok(None),
    }
}
