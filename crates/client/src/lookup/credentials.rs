//! Which callbook is connected, and its login. The callbook and the user name are in the
//! config file (`callbook`, `callbookUser`); the password is in the OS keychain (service
//! `svc-cli`, account `lookup-qrz` or `lookup-hamqth`), as the API key is, unless
//! `SVC_NO_KEYRING=1` or no keychain works: then in the config file (`callbookPassword`, the
//! file 0600). One callbook at a time: connecting one forgets the other.

use std::path::PathBuf;

use super::{LookupError, Password, Service};
use crate::config::{Config, config_path};
use crate::keystore::{keyring_disabled, load_config, secret_delete, secret_get, secret_set};

/// The connected callbook and the user name it logs in with.
#[derive(Debug, Clone, PartialEq)]
pub struct Connected {
    pub service: Service,
    pub user: String,
}

/// Where `store` put the password.
#[derive(Debug, Clone, PartialEq)]
pub enum Place {
    Keychain,
    /// The config file, with the reason the keychain was not used.
    Config {
        path: PathBuf,
        why: String,
    },
}

/// What `forget` took away.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Forgotten {
    /// The callbook that was connected, if the config file named one.
    pub connected: Option<Connected>,
    /// Why the keychain could not be cleared, when it could not.
    pub keychain_error: Option<String>,
}

fn account(service: Service) -> String {
    format!("lookup-{}", service.as_str())
}

fn store_error(e: impl std::fmt::Display) -> LookupError {
    LookupError::Store(e.to_string())
}

fn connected_in(config: &Config) -> Result<Option<Connected>, LookupError> {
    let Some((name, user)) = config.callbook() else {
        return Ok(None);
    };
    let service = Service::parse(name).ok_or_else(|| {
        LookupError::Store(format!(
            "the config file {} names the callbook {name:?}, which this svc does not know; run svc lookup connect qrz|hamqth again",
            config.path.display()
        ))
    })?;
    Ok(Some(Connected {
        service,
        user: user.to_owned(),
    }))
}

/// The connected callbook, if any (no network).
pub fn connected() -> Result<Option<Connected>, LookupError> {
    match load_config().map_err(store_error)? {
        Some(config) => connected_in(&config),
        None => Ok(None),
    }
}

/// The stored password of the connected callbook: the keychain's, else the config file's.
pub(super) fn password(connected: &Connected) -> Result<Password, LookupError> {
    let mut keychain = String::new();
    if !keyring_disabled() {
        match secret_get(&account(connected.service)) {
            Ok(Some(password)) => return Ok(Password::new(password)),
            Ok(None) => keychain = "the keychain holds none".into(),
            Err(e) => keychain = format!("the keychain is unavailable ({e})"),
        }
    }
    if let Some(config) = load_config().map_err(store_error)?
        && let Some(password) = config.callbook_password().map_err(store_error)?
    {
        return Ok(Password::new(password));
    }
    let service = connected.service;
    Err(LookupError::NotConnected(format!(
        "the {} password is missing ({}the config file holds none): run svc lookup connect {} --user {} --password-stdin again",
        service.title(),
        if keychain.is_empty() {
            String::new()
        } else {
            format!("{keychain}; ")
        },
        service.as_str(),
        connected.user
    )))
}

/// Stores the login of `service` as the connected callbook, replacing any other: the
/// password in the keychain when a write there works, else in the config file.
pub fn store(service: Service, user: &str, password: &Password) -> Result<Place, LookupError> {
    let path = config_path().ok_or_else(|| {
        LookupError::Store(
            "there is no config file to name the callbook in: set HOME or XDG_CONFIG_HOME".into(),
        )
    })?;
    // A file that does not parse is left alone rather than overwritten.
    let mut config = Config::load(&path).map_err(store_error)?;
    let why = if keyring_disabled() {
        Some("SVC_NO_KEYRING=1 is set".to_owned())
    } else {
        // Only one callbook is connected: the other's password must not linger.
        for other in Service::ALL.into_iter().filter(|s| *s != service) {
            let _ = secret_delete(&account(other));
        }
        // A locked keyring reads as empty but refuses writes, so only a write tells.
        secret_set(&account(service), password.expose())
            .err()
            .map(|e| format!("the keychain is unavailable ({e})"))
    };
    let in_file = why.is_some().then(|| password.expose());
    config.set_callbook(service.as_str(), user, in_file);
    config.save().map_err(store_error)?;
    Ok(match why {
        None => Place::Keychain,
        Some(why) => Place::Config { path, why },
    })
}

/// Forgets the connected callbook: its password in the keychain (unless skipped) and the
/// config file's fields.
pub fn forget() -> Result<Forgotten, LookupError> {
    let mut forgotten = Forgotten::default();
    if !keyring_disabled() {
        for service in Service::ALL {
            if let Err(e) = secret_delete(&account(service)) {
                forgotten.keychain_error = Some(e);
            }
        }
    }
    if let Some(path) = config_path() {
        let mut config = Config::load(&path).map_err(store_error)?;
        // An unknown callbook name is forgotten all the same.
        forgotten.connected = connected_in(&config).ok().flatten();
        if config.remove_callbook() {
            config.save().map_err(store_error)?;
        }
    }
    Ok(forgotten)
}
