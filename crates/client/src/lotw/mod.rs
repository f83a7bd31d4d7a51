//! ARRL's Logbook of The World, from the user's machine: its login kept like the callbook's
//! (the password in the OS keychain, service `svc-cli`, account `lotw`, else the config file's
//! `lotwPassword`), and its confirmations report (`lotwreport.adi`) downloaded and read
//! ([`report`]). The report is checked whole before anything is written: a download cut short,
//! or one whose record count disagrees with its header, changes nothing.

pub mod report;
pub mod tqsl;

use std::time::Duration;

use reqwest::Url;

use crate::config::config_path;

use crate::keystore::{keyring_disabled, load_config, secret_delete, secret_get, secret_set};
use crate::lookup::Password;
use crate::lookup::Place;
use report::Report;

/// Where LoTW's reports are asked for.
pub const DEFAULT_URL: &str = "https://lotw.arrl.org/lotwuser/lotwreport.adi";

/// The keychain account of LoTW's password.
const KEYCHAIN_ACCOUNT: &str = "lotw";

/// How long a report may take: LoTW builds a large one slowly (minutes for a first download
/// of a big log), so only a connection that never opens fails fast.
const CONNECT: Duration = Duration::from_secs(10);
const ANSWER: Duration = Duration::from_secs(30 * 60);

/// Why talking to LoTW failed, by what the user should do about it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LotwError {
    /// No login is stored (or its password is gone): `svc lotw connect`.
    #[error("{0}")]
    NotConnected(String),
    /// LoTW refused the user name or password.
    #[error("{0}")]
    Refused(String),
    /// The report came, but not whole: nothing was written.
    #[error("{0}")]
    Incomplete(String),
    /// No answer, or not LoTW's.
    #[error("{0}")]
    Unavailable(String),
    /// The key store or the config file could not be read or written.
    #[error("{0}")]
    Store(String),
}

impl LotwError {
    /// The same error with the password (and its URL-encoded form) blotted out: an error
    /// may quote the URL the password was sent in.
    fn redact(self, secret: &str) -> LotwError {
        if secret.is_empty() {
            return self;
        }
        let hide = crate::lookup::hider(secret);
        match self {
            LotwError::NotConnected(m) => LotwError::NotConnected(hide(m)),
            LotwError::Refused(m) => LotwError::Refused(hide(m)),
            LotwError::Incomplete(m) => LotwError::Incomplete(hide(m)),
            LotwError::Unavailable(m) => LotwError::Unavailable(hide(m)),
            LotwError::Store(m) => LotwError::Store(hide(m)),
        }
    }
}

fn store_error(e: impl std::fmt::Display) -> LotwError {
    LotwError::Store(e.to_string())
}

/// What a download asks for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    /// Confirmations since this APP_LoTW_LASTQSL (`YYYY-MM-DD HH:MM:SS`); all when `None`.
    /// With `received`, the QSOs LoTW received since this APP_LoTW_LASTQSORX or day.
    pub since: Option<String>,
    /// Only the QSOs of this station callsign (`qso_owncall`).
    pub owncall: Option<String>,
    /// The QSOs LoTW received from the user's uploads, confirmed or not (`qso_qsl=no`,
    /// `qso_qsorxsince`), rather than the confirmations.
    pub received: bool,
}

/// A LoTW login and where to reach it.
#[derive(Debug, Clone)]
pub struct Lotw {
    url: Url,
    user: String,
    password: Password,
    http: reqwest::Client,
}

impl Lotw {
    pub fn new(url: Url, user: &str, password: Password) -> Result<Lotw, LotwError> {
        let http =
            svc_outbound::http_client(&url, CONNECT, ANSWER).map_err(LotwError::Unavailable)?;
        Ok(Lotw {
            url,
            user: user.to_owned(),
            password,
            http,
        })
    }

    /// The stored login, at `url`.
    pub fn stored(url: Url) -> Result<Lotw, LotwError> {
        let (user, password) = stored_login()?;
        Lotw::new(url, &user, password)
    }

    pub fn user(&self) -> &str {
        &self.user
    }

    /// Downloads the confirmations report and reads it whole. `progress` is told the bytes
    /// received so far as they come.
    pub async fn report(
        &self,
        query: &Query,
        mut progress: impl FnMut(u64),
    ) -> Result<Report, LotwError> {
        let secret = self.password.expose().to_owned();
        // Without a start LoTW sends only what is new since the last download by any
        // program; `1900-01-01` asks for everything.
        let since = query.since.clone().unwrap_or_else(|| "1900-01-01".into());
        let mut params = vec![
            ("login", self.user.clone()),
            ("password", secret.clone()),
            ("qso_query", "1".into()),
            ("qso_mydetail", "yes".into()),
        ];
        if query.received {
            params.extend([("qso_qsl", "no".into()), ("qso_qsorxsince", since)]);
        } else {
            params.extend([
                ("qso_qsl", "yes".into()),
                ("qso_qsldetail", "yes".into()),
                ("qso_qslsince", since),
            ]);
        }
        if let Some(owncall) = &query.owncall {
            params.push(("qso_owncall", owncall.clone()));
        }
        let fetched = async {
            let mut response = self
                .http
                .get(self.url.clone())
                .query(&params)
                .send()
                .await
                .map_err(|e| {
                    LotwError::Unavailable(format!(
                        "LoTW could not be reached ({}); try again later",
                        svc_outbound::transport_message(&e)
                    ))
                })?;
            let status = response.status();
            if !status.is_success() {
                return Err(LotwError::Unavailable(format!(
                    "LoTW answered HTTP {status}; try again later"
                )));
            }
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(|e| {
                LotwError::Incomplete(format!(
                    "the report from LoTW was cut short after {} bytes ({}); nothing was changed: run svc lotw sync again",
                    body.len(),
                    svc_outbound::transport_message(&e)
                ))
            })? {
                body.extend_from_slice(&chunk);
                progress(body.len() as u64);
            }
            report::read(&body)
        }
        .await;
        fetched.map_err(|e| e.redact(&secret))
    }
}

/// The stored login: the user from the config file, the password from the keychain, else
/// the config file.
fn stored_login() -> Result<(String, Password), LotwError> {
    let config = load_config().map_err(store_error)?;
    let Some(user) = config.as_ref().and_then(|c| c.lotw_user()) else {
        return Err(LotwError::NotConnected(
            "no LoTW login is stored: run svc lotw connect --user CALL --password-stdin".into(),
        ));
    };
    let user = user.to_owned();
    let mut keychain = String::new();
    if !keyring_disabled() {
        match secret_get(KEYCHAIN_ACCOUNT) {
            Ok(Some(password)) => return Ok((user, Password::new(password))),
            Ok(None) => keychain = "the keychain holds none; ".into(),
            Err(e) => keychain = format!("the keychain is unavailable ({e}); "),
        }
    }
    if let Some(config) = &config
        && let Some(password) = config.lotw_password().map_err(store_error)?
    {
        return Ok((user, Password::new(password)));
    }
    Err(LotwError::NotConnected(format!(
        "the LoTW password is missing ({keychain}the config file holds none): run svc lotw connect --user {user} --password-stdin again"
    )))
}

/// Stores the LoTW login, replacing any earlier one: the password in the keychain when a
/// write there works, else in the config file.
pub fn store_login(user: &str, password: &Password) -> Result<Place, LotwError> {
    let path = config_path().ok_or_else(|| {
        LotwError::Store(
            "there is no config file to keep the LoTW login in: set HOME or XDG_CONFIG_HOME".into(),
        )
    })?;
    let mut config = crate::config::Config::load(&path).map_err(store_error)?;
    let why = if keyring_disabled() {
        Some("SVC_NO_KEYRING=1 is set".to_owned())
    } else {
        // A locked keyring reads as empty but refuses writes, so only a write tells.
        secret_set(KEYCHAIN_ACCOUNT, password.expose())
            .err()
            .map(|e| format!("the keychain is unavailable ({e})"))
    };
    config.set_lotw(user, why.is_some().then(|| password.expose()));
    config.save().map_err(store_error)?;
    Ok(match why {
        None => Place::Keychain,
        Some(why) => Place::Config { path, why },
    })
}

/// Forgets the LoTW login; the user name it had, if any.
pub fn forget_login() -> Result<Option<String>, LotwError> {
    if !keyring_disabled() {
        // A keychain that cannot be reached holds nothing this could remove.
        let _ = secret_delete(KEYCHAIN_ACCOUNT);
    }
    let Some(path) = config_path() else {
        return Ok(None);
    };
    let mut config = crate::config::Config::load(&path).map_err(store_error)?;
    let user = config.lotw_user().map(str::to_owned);
    if config.remove_lotw() {
        config.save().map_err(store_error)?;
    }
    Ok(user)
}

/// Where each sync's downloads reached, and how this machine's uploads went:
/// `$XDG_DATA_HOME/svc/lotw-marks.json`. State, not a setting, so it is kept beside the
/// journals rather than in the config file. Its keys are the sync scopes (the LoTW login, the
/// account and the station callsign asked for, space-separated), each [`ScopeMarks`] (an
/// older file's plain string is its `lastQsl`), and `uploads`, [`UploadMarks`] by account.
fn marks_path() -> Result<std::path::PathBuf, LotwError> {
    svc_datafiles::user_data_dir()
        .map(|dir| dir.join("lotw-marks.json"))
        .ok_or_else(|| {
            LotwError::Store("there is no data folder to keep LoTW's marks in: set HOME".into())
        })
}

/// The key of the uploads' marks; a scope always holds spaces, so none is this.
const UPLOADS: &str = "uploads";

/// Where the downloads of one scope reached, each once a report was written whole.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopeMarks {
    /// APP_LoTW_LASTQSL: where the next download of confirmations starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_qsl: Option<String>,
    /// APP_LoTW_LASTQSORX: where the next download of what LoTW received starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_qsorx: Option<String>,
}

/// How the uploads of one account from this machine went.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UploadMarks {
    /// The day (YYYY-MM-DD) of the first upload through TQSL: what LoTW received is asked
    /// for from then on, until a download of it gives its own mark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_on: Option<String>,
    /// The last upload's failure; gone once an upload succeeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<UploadFailure>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UploadFailure {
    /// When it failed (RFC 3339, UTC).
    pub at: String,
    /// Why, as svc said it (TQSL's words; TQSL is never given a password).
    pub error: String,
    /// The contacts that were due and did not reach LoTW.
    pub not_sent: usize,
}

type Marks = serde_json::Map<String, serde_json::Value>;

fn read_marks(path: &std::path::Path) -> Result<Marks, LotwError> {
    match std::fs::read(path) {
        Ok(bytes) => match serde_json::from_slice(&bytes) {
            Ok(serde_json::Value::Object(marks)) => Ok(marks),
            // A damaged file costs a full download, never a skipped confirmation.
            _ => Ok(Marks::new()),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Marks::new()),
        Err(e) => Err(LotwError::Store(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

fn scope_of(marks: &Marks, scope: &str) -> ScopeMarks {
    match marks.get(scope) {
        Some(serde_json::Value::String(last)) => ScopeMarks {
            last_qsl: Some(last.clone()),
            last_qsorx: None,
        },
        Some(value) => serde_json::from_value(value.clone()).unwrap_or_default(),
        None => ScopeMarks::default(),
    }
}

fn uploads_of(marks: &Marks, account: &str) -> UploadMarks {
    marks
        .get(UPLOADS)
        .and_then(|u| u.get(account))
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default()
}

/// Reads the marks, lets `change` change them, and writes them back.
fn update_marks(change: impl FnOnce(&mut Marks)) -> Result<(), LotwError> {
    let path = marks_path()?;
    let mut marks = read_marks(&path)?;
    change(&mut marks);
    let fail =
        |e: std::io::Error| LotwError::Store(format!("cannot write {}: {e}", path.display()));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let text = serde_json::to_vec_pretty(&marks).unwrap_or_default();
    // Written aside and renamed, so a crash leaves the old marks or the new, never half.
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(fail)
}

/// Where the downloads of `scope` reached.
pub fn scope_marks(scope: &str) -> Result<ScopeMarks, LotwError> {
    Ok(scope_of(&read_marks(&marks_path()?)?, scope))
}

/// Records where the downloads of `scope` reached, once their reports were written whole.
pub fn set_scope_marks(scope: &str, marks: &ScopeMarks) -> Result<(), LotwError> {
    let value = serde_json::to_value(marks).unwrap_or_default();
    update_marks(|all| {
        all.insert(scope.into(), value);
    })
}

/// How the uploads of `account` from this machine went.
pub fn upload_marks(account: &str) -> Result<UploadMarks, LotwError> {
    Ok(uploads_of(&read_marks(&marks_path()?)?, account))
}

/// Records an upload of `account`'s contacts: the first day one was tried, and its failure,
/// or none when it went through.
pub fn record_upload(
    account: &str,
    today: &str,
    failed: Option<UploadFailure>,
) -> Result<(), LotwError> {
    update_marks(|all| {
        let mut marks = uploads_of(all, account);
        marks.first_on.get_or_insert_with(|| today.to_owned());
        marks.failed = failed;
        let uploads = all
            .entry(UPLOADS)
            .or_insert_with(|| serde_json::Value::Object(Marks::new()));
        if !uploads.is_object() {
            *uploads = serde_json::Value::Object(Marks::new());
        }
        if let Some(uploads) = uploads.as_object_mut() {
            uploads.insert(
                account.into(),
                serde_json::to_value(&marks).unwrap_or_default(),
            );
        }
    })
}

/// Reads an address given for LoTW.
pub fn parse_url(text: &str) -> Result<Url, String> {
    crate::lookup::parse_url(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_is_blotted_out_of_errors_plain_and_url_encoded() {
        let e = LotwError::Unavailable(
            "GET https://lotw/report?login=W1AW&password=p%20w%26x failed: p w&x".into(),
        );
        let text = e.redact("p w&x").to_string();
        assert!(
            !text.contains("p w&x") && !text.contains("p%20w%26x"),
            "{text}"
        );
        assert_eq!(text.matches("***").count(), 2, "{text}");
    }
}
