//! svc's data and config directories on this machine (one reading of XDG for both), and the
//! reference files read from the data directory: the country file (`cty.csv`) and the super
//! check partial list (`MASTER.SCP`). Both ship in the binary; a newer one is used when given
//! with a flag, or when one is put in the data directory, as contesters replace theirs before
//! each contest. The service and the logbook both read them. And the schema of svc's own
//! SQLite files there, the outbox journal and the park cache ([`schema`]).

pub mod schema;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use svc_model::dxcc::Dxcc;
use svc_model::scp::MasterScp;

/// The country file's name in the data directory.
pub const COUNTRY_FILE: &str = "cty.csv";
/// The super check partial list's name in the data directory.
pub const SCP_FILE: &str = "MASTER.SCP";

/// svc's folder in the user's data directory, `$XDG_DATA_HOME/svc` (else
/// `~/.local/share/svc`): the outbox journals, the park cache, the service's default database
/// and the reference files live in it. `None` without `XDG_DATA_HOME` and `HOME`.
pub fn user_data_dir() -> Option<PathBuf> {
    Some(xdg_base("XDG_DATA_HOME", &[".local", "share"])?.join("svc"))
}

/// svc's folder in the user's config directory, `$XDG_CONFIG_HOME/svc` (else
/// `~/.config/svc`), where the config file is. `None` without `XDG_CONFIG_HOME` and `HOME`.
pub fn user_config_dir() -> Option<PathBuf> {
    Some(xdg_base("XDG_CONFIG_HOME", &[".config"])?.join("svc"))
}

/// The base directory the XDG variable `var` names, else `fallback` under `$HOME`.
fn xdg_base(var: &str, fallback: &[&str]) -> Option<PathBuf> {
    std::env::var_os(var)
        .map(PathBuf::from)
        // The XDG spec says a relative value is invalid and must be ignored.
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME").filter(|h| !h.is_empty()).map(|h| {
                fallback
                    .iter()
                    .fold(PathBuf::from(h), |p, part| p.join(part))
            })
        })
}

/// [`user_data_dir`], else `./svc`.
pub fn data_dir() -> PathBuf {
    user_data_dir().unwrap_or_else(|| PathBuf::from("svc"))
}

/// Where a reference file came from, for the line a program prints at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The file named by a flag or its environment variable.
    Given(PathBuf),
    /// The file found in the data directory.
    DataDir(PathBuf),
    /// The copy in the binary.
    Shipped,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Given(path) | Origin::DataDir(path) => write!(f, "{}", path.display()),
            Origin::Shipped => f.write_str("the copy shipped in svc"),
        }
    }
}

/// The text of the file `given`, else of `name` in the data directory when it is there; `None`
/// means the shipped copy. A file given that cannot be read is an error: the user asked for it.
fn text(
    given: Option<&Path>,
    name: &str,
    data_dir: &Path,
) -> Result<Option<(String, Origin)>, String> {
    let (path, origin) = match given {
        Some(path) => (path.to_owned(), Origin::Given(path.to_owned())),
        None => {
            let path = data_dir.join(name);
            if !path.is_file() {
                return Ok(None);
            }
            (path.clone(), Origin::DataDir(path))
        }
    };
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    // Files written on other systems may carry Latin-1 names; nothing in them is worth
    // refusing the file for.
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Ok(Some((text, origin)))
}

/// The country file: `given`, else `cty.csv` in the data directory, else the shipped copy. A
/// malformed file is refused with its line, to be fixed or removed.
pub fn country_file(given: Option<&Path>) -> Result<(Dxcc, Origin), String> {
    match text(given, COUNTRY_FILE, &data_dir())? {
        Some(text) => load_country_file(text),
        None => Ok((Dxcc::shipped(), Origin::Shipped)),
    }
}

/// [`country_file`] with `data_dir` standing for the data directory, to be shared: the
/// shipped copy is parsed once per process, however many services it starts.
pub fn shared_country_file_in(
    given: Option<&Path>,
    data_dir: &Path,
) -> Result<(Arc<Dxcc>, Origin), String> {
    static SHIPPED: OnceLock<Arc<Dxcc>> = OnceLock::new();
    match text(given, COUNTRY_FILE, data_dir)? {
        Some(text) => load_country_file(text).map(|(dxcc, origin)| (Arc::new(dxcc), origin)),
        None => Ok((
            SHIPPED.get_or_init(|| Arc::new(Dxcc::shipped())).clone(),
            Origin::Shipped,
        )),
    }
}

fn load_country_file((text, origin): (String, Origin)) -> Result<(Dxcc, Origin), String> {
    Dxcc::load(&text)
        .map(|dxcc| (dxcc, origin.clone()))
        .map_err(|e| format!("{origin}: {e}; fix the file or remove it to use the shipped copy"))
}

/// The super check partial list: `given`, else `MASTER.SCP` in the data directory, else the
/// shipped copy.
pub fn scp_file(given: Option<&Path>) -> Result<(MasterScp, Origin), String> {
    match text(given, SCP_FILE, &data_dir())? {
        Some((text, origin)) => Ok((MasterScp::load(&text), origin)),
        None => Ok((MasterScp::shipped(), Origin::Shipped)),
    }
}

/// Makes svc's own SQLite file at `path` private to the user before SQLite opens it: created
/// empty with mode 0600 when missing (SQLite then makes its `-wal` and `-shm` with the file's
/// mode), and an existing file and its companions tightened to 0600. The outbox journal holds
/// the operator's log and the park cache where they go: the folder is private already, but the
/// file's own mode is what still guards it when the folder's is loosened or the file copied.
pub fn private_sqlite_file(path: &Path) -> std::io::Result<()> {
    let mut open = std::fs::OpenOptions::new();
    open.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        open.mode(0o600);
        open.open(path)?;
        for suffix in ["", "-wal", "-shm"] {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            let file = Path::new(&name);
            match std::fs::metadata(file) {
                Ok(meta) if meta.permissions().mode() & 0o077 != 0 => {
                    std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600))?;
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
    }
    #[cfg(not(unix))]
    open.open(path)?;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn own_sqlite_files_are_made_and_kept_private() {
        let dir = std::env::temp_dir().join(format!("svc-private-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let new = dir.join("new.db");
        private_sqlite_file(&new).unwrap();
        assert_eq!(mode(&new), 0o600);
        let old = dir.join("old.db");
        for name in ["old.db", "old.db-wal", "old.db-shm"] {
            std::fs::write(dir.join(name), b"").unwrap();
            std::fs::set_permissions(dir.join(name), std::fs::Permissions::from_mode(0o644))
                .unwrap();
        }
        private_sqlite_file(&old).unwrap();
        for name in ["old.db", "old.db-wal", "old.db-shm"] {
            assert_eq!(mode(&dir.join(name)), 0o600, "{name}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
