//! The client's config file, `$XDG_CONFIG_HOME/svc/config.json` (else `~/.config/svc/…`):
//! `{"apiKey": …, "apiBase": …, "rig": …, "callbook": …, "callbookUser": …, "lotwUser": …}`. It holds the key (and the callbook's and LoTW's passwords,
//! `callbookPassword`, `lotwPassword`) only where no keychain works, so it must be private: the
//! file 0600 in a 0700 folder.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// The default API base: a service started with `svc server start` on this machine.
pub const DEFAULT_API_BASE: &str = "http://127.0.0.1:8787";

#[derive(Debug, Clone, PartialEq)]
pub enum ConfigError {
    /// The file exists but cannot be read or is not a JSON object.
    Unreadable { path: PathBuf, reason: String },
    /// The file holds a key but others may read it.
    TooOpen { path: PathBuf, mode: u32 },
    /// The file holds the callbook's password but others may read it.
    PasswordTooOpen { path: PathBuf, mode: u32 },
    /// Others may change the file (or replace it, through its directory): its apiBase could
    /// send the key to their host.
    Untrusted { path: PathBuf, mode: u32 },
    /// Another user owns the file, or the link it is reached through: they may change it.
    NotOwned { path: PathBuf, owner: u32 },
    /// Writing or removing failed.
    Write { path: PathBuf, reason: String },
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigError::Unreadable { path, reason } => write!(
                f,
                "the config file {} cannot be used ({reason}); fix it so it is a JSON object such as {{\"apiBase\": \"http://127.0.0.1:8787\"}}, or delete it",
                path.display()
            ),
            ConfigError::TooOpen { path, mode } => write!(
                f,
                "the config file {} holds an API key but its mode is {mode:04o}, so other users may read it; run chmod 600 {} (and consider the key leaked: revoke it and log in with a new one)",
                path.display(),
                path.display()
            ),
            ConfigError::PasswordTooOpen { path, mode } => write!(
                f,
                "the config file {} holds a password (the callbook's or LoTW's) but its mode is {mode:04o}, so other users may read it; run chmod 600 {} (and consider the password leaked: change it and run svc lookup connect or svc lotw connect again)",
                path.display(),
                path.display()
            ),
            ConfigError::Untrusted { path, mode } => write!(
                f,
                "the config file {} (or its directory) can be changed by other users (mode {mode:04o}), so its apiBase could send your key anywhere; run chmod 600 {} and chmod 700 on its directory",
                path.display(),
                path.display()
            ),
            ConfigError::NotOwned { path, owner } => write!(
                f,
                "the config file {} (or the link to it) belongs to another user (uid {owner}), who could point its apiBase anywhere; it is not used: delete it, or copy it to a file of your own",
                path.display()
            ),
            ConfigError::Write { path, reason } => {
                write!(
                    f,
                    "cannot write the config file {}: {reason}",
                    path.display()
                )
            }
        }
    }
}

/// Where the config file lives; `None` without `XDG_CONFIG_HOME` and `HOME`.
pub fn config_path() -> Option<PathBuf> {
    Some(svc_datafiles::user_config_dir()?.join("config.json"))
}

/// The config file's contents; unknown fields are kept when the file is rewritten.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    pub path: PathBuf,
    fields: Map<String, Value>,
    mode: u32,
    /// The directory's mode, without its write bits for others when it is sticky.
    dir_mode: u32,
    /// Another user who owns the file or the link to it (root aside, who could change it
    /// anyway).
    foreign_owner: Option<u32>,
}

impl Config {
    /// Reads the file; a missing file is an empty config.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let unreadable = |reason: String| ConfigError::Unreadable {
            path: path.to_owned(),
            reason,
        };
        let text = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Config {
                    path: path.to_owned(),
                    ..Config::default()
                });
            }
            Err(e) => return Err(unreadable(e.to_string())),
        };
        let fields = match serde_json::from_slice::<Value>(&text) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return Err(unreadable("it is not a JSON object".into())),
            Err(e) => return Err(unreadable(format!("not valid JSON: {e}"))),
        };
        for name in [
            "apiKey",
            "apiBase",
            "rig",
            "callbook",
            "callbookUser",
            "callbookPassword",
            "lotwUser",
            "lotwPassword",
        ] {
            if fields
                .get(name)
                .is_some_and(|v| !v.is_string() && !v.is_null())
            {
                return Err(unreadable(format!("{name} must be a string")));
            }
        }
        Ok(Config {
            path: path.to_owned(),
            fields,
            foreign_owner: foreign_owner(path),
            mode: file_mode(path),
            // A directory others may write to lets them swap the file; the sticky bit (as on
            // /tmp) stops that for files they do not own.
            dir_mode: path.parent().map_or(0, |dir| {
                let mode = file_mode(dir);
                if mode & 0o1000 != 0 {
                    mode & !0o022
                } else {
                    mode
                }
            }),
        })
    }

    /// Refuses a file another user owns, as ssh refuses such a config.
    fn owned(&self) -> Result<(), ConfigError> {
        match self.foreign_owner {
            Some(owner) => Err(ConfigError::NotOwned {
                path: self.path.clone(),
                owner,
            }),
            None => Ok(()),
        }
    }

    fn text(&self, name: &str) -> Option<&str> {
        self.fields
            .get(name)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }

    /// The API base the file names, refused when others may have put it there.
    pub fn api_base(&self) -> Result<Option<&str>, ConfigError> {
        let Some(base) = self.text("apiBase") else {
            return Ok(None);
        };
        self.owned()?;
        if self.mode & 0o022 != 0 || self.dir_mode & 0o022 != 0 {
            return Err(ConfigError::Untrusted {
                path: self.path.clone(),
                mode: if self.mode & 0o022 != 0 {
                    self.mode
                } else {
                    self.dir_mode
                } & 0o7777,
            });
        }
        Ok(Some(base))
    }

    /// Where the logbook finds rigctld (`HOST:PORT`, or a host for port 4532). Unlike
    /// `apiBase` it is taken from a file others may change: it can only point the logbook at
    /// another radio, never send the key anywhere.
    pub fn rig(&self) -> Option<&str> {
        self.text("rig")
    }

    /// The stored key text, refused when the file is readable by others.
    pub fn api_key(&self) -> Result<Option<&str>, ConfigError> {
        let Some(key) = self.text("apiKey") else {
            return Ok(None);
        };
        self.owned()?;
        if self.mode & 0o077 != 0 {
            return Err(ConfigError::TooOpen {
                path: self.path.clone(),
                mode: self.mode & 0o777,
            });
        }
        Ok(Some(key))
    }

    /// The callbook in use (`qrz` or `hamqth`, as `svc lookup connect` wrote it) and the user
    /// name it logs in with. Like `rig`, it is taken from a file others may change: the
    /// password is never sent anywhere but to the callbook it was stored for.
    pub fn callbook(&self) -> Option<(&str, &str)> {
        Some((self.text("callbook")?, self.text("callbookUser")?))
    }

    /// The callbook's password, kept here only where no keychain works; refused when the file
    /// is readable by others.
    pub fn callbook_password(&self) -> Result<Option<&str>, ConfigError> {
        self.password("callbookPassword")
    }

    /// The LoTW user name `svc lotw connect` stored.
    pub fn lotw_user(&self) -> Option<&str> {
        self.text("lotwUser")
    }

    /// LoTW's password, kept here only where no keychain works; refused as the callbook's is.
    pub fn lotw_password(&self) -> Result<Option<&str>, ConfigError> {
        self.password("lotwPassword")
    }

    /// Names the LoTW login; `password` is written only where no keychain took it.
    pub fn set_lotw(&mut self, user: &str, password: Option<&str>) {
        self.fields
            .insert("lotwUser".into(), Value::String(user.into()));
        match password {
            Some(p) => {
                self.fields
                    .insert("lotwPassword".into(), Value::String(p.into()));
            }
            None => {
                self.fields.remove("lotwPassword");
            }
        }
    }

    /// Forgets the LoTW login; whether there was any.
    pub fn remove_lotw(&mut self) -> bool {
        let mut removed = false;
        for name in ["lotwUser", "lotwPassword"] {
            removed |= self.fields.remove(name).is_some();
        }
        removed
    }

    /// A password kept in the file, refused when the file is readable by others.
    fn password(&self, name: &str) -> Result<Option<&str>, ConfigError> {
        let Some(password) = self
            .fields
            .get(name)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        else {
            return Ok(None);
        };
        self.owned()?;
        if self.mode & 0o077 != 0 {
            return Err(ConfigError::PasswordTooOpen {
                path: self.path.clone(),
                mode: self.mode & 0o777,
            });
        }
        Ok(Some(password))
    }

    /// Names the callbook in use; `password` is written only where no keychain took it.
    pub fn set_callbook(&mut self, callbook: &str, user: &str, password: Option<&str>) {
        self.fields
            .insert("callbook".into(), Value::String(callbook.into()));
        self.fields
            .insert("callbookUser".into(), Value::String(user.into()));
        match password {
            Some(p) => {
                self.fields
                    .insert("callbookPassword".into(), Value::String(p.into()));
            }
            None => {
                self.fields.remove("callbookPassword");
            }
        }
    }

    /// Forgets the callbook; whether there was anything to forget.
    pub fn remove_callbook(&mut self) -> bool {
        let mut removed = false;
        for name in ["callbook", "callbookUser", "callbookPassword"] {
            removed |= self.fields.remove(name).is_some();
        }
        removed
    }

    pub fn set_api_key(&mut self, key: &str) {
        self.fields
            .insert("apiKey".into(), Value::String(key.into()));
    }

    pub fn set_api_base(&mut self, base: &str) {
        self.fields
            .insert("apiBase".into(), Value::String(base.into()));
    }

    pub fn remove_api_key(&mut self) -> bool {
        self.fields.remove("apiKey").is_some()
    }

    /// Writes the file atomically, 0600 in a 0700 folder; removes it when nothing is left.
    pub fn save(&self) -> Result<(), ConfigError> {
        let fail = |reason: String| ConfigError::Write {
            path: self.path.clone(),
            reason,
        };
        if self.fields.is_empty() {
            return match std::fs::remove_file(&self.path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(fail(e.to_string())),
            };
        }
        let dir = self
            .path
            .parent()
            .ok_or_else(|| fail("the path has no folder".into()))?;
        create_private_dir(dir).map_err(|e| fail(e.to_string()))?;
        let mut text = serde_json::to_string_pretty(&Value::Object(self.fields.clone()))
            .map_err(|e| fail(e.to_string()))?;
        text.push('\n');
        let suffix = svc_model::ids::base32(&svc_model::ids::random_bytes::<5>());
        let tmp = dir.join(format!(".config.json.{suffix}"));
        let written =
            write_private(&tmp, text.as_bytes()).and_then(|()| std::fs::rename(&tmp, &self.path));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(fail(e.to_string()));
        }
        Ok(())
    }
}

#[cfg(unix)]
fn file_mode(path: &Path) -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).map_or(0, |m| m.mode())
}

/// The owner of `path`, or of the symlink it is, when that is neither this user nor root.
#[cfg(unix)]
fn foreign_owner(path: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    [std::fs::symlink_metadata(path), std::fs::metadata(path)]
        .into_iter()
        .flatten()
        .map(|m| m.uid())
        .find(|&uid| uid != me && uid != 0)
}

#[cfg(not(unix))]
fn foreign_owner(_: &Path) -> Option<u32> {
    None
}

#[cfg(not(unix))]
fn file_mode(_: &Path) -> u32 {
    0o600
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    if !dir.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    // The folder is ours (svc/): tighten it even if it was made looser by hand.
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(unix)]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(not(unix))]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::File::create(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn save_writes_a_private_file_and_keeps_other_fields() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc").join("config.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, r#"{"apiBase": "http://example.test:1", "theme": 3}"#).unwrap();
        let mut config = Config::load(&path).unwrap();
        config.set_api_key("svc_live_ABCDEFGHIJKLMNOPQRSTUVWX");
        config.save().unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let dir_mode = std::fs::metadata(path.parent().unwrap())
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(dir_mode, 0o700);
        let again = Config::load(&path).unwrap();
        assert_eq!(again.api_base().unwrap(), Some("http://example.test:1"));
        assert_eq!(
            again.api_key(),
            Ok(Some("svc_live_ABCDEFGHIJKLMNOPQRSTUVWX"))
        );
        assert_eq!(again.fields["theme"], 3);
        assert_eq!(again.rig(), None);
        std::fs::write(&path, r#"{"rig": " shack-pi:4533 "}"#).unwrap();
        assert_eq!(Config::load(&path).unwrap().rig(), Some("shack-pi:4533"));
    }

    #[test]
    fn a_readable_key_file_is_refused_and_an_empty_config_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        std::fs::write(&path, r#"{"apiKey": "svc_live_ABCDEFGHIJKLMNOPQRSTUVWX"}"#).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let mut config = Config::load(&path).unwrap();
        let err = config.api_key().unwrap_err();
        assert!(err.to_string().contains("chmod 600"), "{err}");
        assert!(config.remove_api_key());
        config.save().unwrap();
        assert!(!path.exists());
    }

    #[test]
    fn the_callbook_is_named_and_its_password_kept_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc").join("config.json");
        let mut config = Config::load(&path).unwrap();
        assert_eq!(config.callbook(), None);
        config.set_callbook("qrz", "W1AW", Some(" pass word "));
        config.set_api_base("http://example.test:1");
        config.save().unwrap();
        let mut again = Config::load(&path).unwrap();
        assert_eq!(again.callbook(), Some(("qrz", "W1AW")));
        assert_eq!(
            again.callbook_password(),
            Ok(Some(" pass word ")),
            "as typed"
        );
        // Stored in the keychain the next time: the file's copy goes.
        again.set_callbook("hamqth", "ok1vbr", None);
        assert_eq!(again.callbook_password(), Ok(None));
        again.set_callbook("qrz", "W1AW", Some("pw"));
        again.save().unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let mut open = Config::load(&path).unwrap();
        let err = open.callbook_password().unwrap_err();
        assert!(err.to_string().contains("chmod 600"), "{err}");
        assert!(open.remove_callbook());
        assert!(!open.remove_callbook());
        assert_eq!(open.callbook(), None);
    }

    #[test]
    fn malformed_files_say_how_to_fix_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        for bad in [
            "{",
            "[1]",
            r#"{"apiKey": 5}"#,
            r#"{"rig": 4532}"#,
            r#"{"callbookPassword": true}"#,
        ] {
            std::fs::write(&path, bad).unwrap();
            let err = Config::load(&path).unwrap_err();
            assert!(err.to_string().contains("or delete it"), "{bad}: {err}");
        }
    }
}
