//! Connecting, changing and disconnecting an account's external logbooks: the one place that
//! checks a provider's API key (its shape, then with the provider) or Club Log's or eQSL's login
//! (its shape: neither has a call that checks it without sending a contact), seals the secret
//! and stores it.
//! The API (`api.rs`) and the web page (`server::web::logbooks`) read their requests their own
//! way and word the answers for their readers, but both come here for the rules.

use std::fmt;

use super::Logbooks;
use super::qrz::QrzError;
use svc_model::{IdKind, Timestamp};
use svc_store::{LogbookChange, LogbookKey, LogbookRecord, NewLogbook, Store, StoreError};

/// Why a connection or a change was not made. Nothing was stored.
#[derive(Debug)]
pub enum LogbookError {
    /// Not a provider the service knows; what was given, shortened.
    UnknownProvider(String),
    /// Not shaped like a provider's API key.
    KeyShape,
    /// The provider refused the key; the text says why and what to do.
    KeyRefused(String),
    /// The provider could not be asked about the key; the text says so. Trying again may work.
    Unreachable(String),
    /// A field of a Club Log login (`email`, `password`, `callsign`) is not usable, or the
    /// request mixes up what QRZ and Club Log take; the text says why.
    Invalid {
        field: &'static str,
        message: String,
    },
    /// Club Log cannot be used: the service was started without Club Log's API key.
    NotConfigured(String),
    /// The account has no logbook with this id.
    NotFound(String),
    Store(StoreError),
}

impl From<StoreError> for LogbookError {
    fn from(e: StoreError) -> LogbookError {
        LogbookError::Store(e)
    }
}

/// The provider a client named: `qrz`, `clublog` or `eqsl`.
pub fn provider(text: &str) -> Result<&'static str, LogbookError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "qrz" => Ok("qrz"),
        "clublog" => Ok("clublog"),
        "eqsl" => Ok("eqsl"),
        _ => Err(LogbookError::UnknownProvider(svc_model::ids::truncate(
            text, 20,
        ))),
    }
}

/// What opens a Club Log log: the account's email, an application password made for svc at
/// Club Log (Settings → App Passwords), and the log's callsign. The password is a secret of
/// the user's: `Debug` shows none of it, and it is never answered, not even in part.
pub struct ClubLogLogin {
    pub email: String,
    password: String,
    pub callsign: String,
}

impl fmt::Debug for ClubLogLogin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClubLogLogin")
            .field("email", &self.email)
            .field("callsign", &self.callsign)
            .finish_non_exhaustive()
    }
}

/// A Club Log account's email, trimmed: one line with an `@`, at most 254 characters.
pub fn clublog_email(text: &str) -> Result<String, LogbookError> {
    let email = text.trim();
    let shaped = email.chars().count() <= 254
        && email
            .split_once('@')
            .is_some_and(|(a, b)| !a.is_empty() && !b.is_empty())
        && !email.chars().any(|c| c.is_whitespace() || c.is_control());
    if shaped {
        Ok(email.to_owned())
    } else {
        Err(LogbookError::Invalid {
            field: "email",
            message: "email must be the email address of the Club Log account, as you sign in to Club Log with".into(),
        })
    }
}

/// A login's password, trimmed: one line of 1 to 200 characters; `what` says what it must be
/// when it is not.
fn password_line(text: &str, what: &str) -> Result<String, LogbookError> {
    let password = text.trim();
    if password.is_empty()
        || password.chars().count() > 200
        || password.chars().any(|c| c.is_control())
    {
        return Err(LogbookError::Invalid {
            field: "password",
            message: format!("password must be {what}, one line of at most 200 characters"),
        });
    }
    Ok(password.to_owned())
}

/// A Club Log application password, trimmed: one line of 1 to 200 characters.
pub fn clublog_password(text: &str) -> Result<String, LogbookError> {
    password_line(
        text,
        "an application password made at Club Log (Settings → App Passwords)",
    )
}

impl ClubLogLogin {
    pub fn parse(email: &str, password: &str, callsign: &str) -> Result<Self, LogbookError> {
        let callsign =
            svc_model::callsign::normalize_callsign("callsign", callsign).map_err(|e| {
                LogbookError::Invalid {
                    field: "callsign",
                    message: e.message,
                }
            })?;
        Ok(ClubLogLogin {
            email: clublog_email(email)?,
            password: clublog_password(password)?,
            callsign,
        })
    }
}

/// What opens an eQSL account: its user name, which is the account's callsign (eQSL names
/// accounts by callsign), and its password. The password is a secret of the user's: `Debug`
/// shows none of it, and it is never answered, not even in part.
pub struct EqslLogin {
    pub user: String,
    password: String,
}

impl fmt::Debug for EqslLogin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EqslLogin")
            .field("user", &self.user)
            .finish_non_exhaustive()
    }
}

/// An eQSL password, trimmed: one line of 1 to 200 characters.
pub fn eqsl_password(text: &str) -> Result<String, LogbookError> {
    password_line(text, "the password of the eQSL.cc account")
}

impl EqslLogin {
    pub fn parse(user: &str, password: &str) -> Result<Self, LogbookError> {
        let user = svc_model::callsign::normalize_callsign("user", user).map_err(|e| {
            LogbookError::Invalid {
                field: "user",
                message: format!(
                    "user must be the eQSL.cc user name, which is the account's callsign: {}",
                    e.message
                ),
            }
        })?;
        Ok(EqslLogin {
            user,
            password: eqsl_password(password)?,
        })
    }
}

/// Connects the eQSL account `login` names to the account. eQSL has no call that checks a
/// login without sending a contact: a wrong one shows at the first push, which pauses the book
/// with eQSL's words.
pub async fn connect_eqsl(
    store: &dyn Store,
    logbooks: &Logbooks,
    account_id: &str,
    login: &EqslLogin,
    auto_push: bool,
    auto_sync: bool,
) -> Result<LogbookRecord, LogbookError> {
    let id = IdKind::Logbook.generate();
    let new = NewLogbook {
        key_sealed: logbooks.secret.seal(&id, &login.password),
        // Nothing of a password is shown; the callsign is the user name.
        key_last4: String::new(),
        email: None,
        id,
        provider: "eqsl".into(),
        callsign: login.user.clone(),
        auto_push,
        auto_sync,
    };
    Ok(store
        .create_logbook(account_id, &new, Timestamp::now())
        .await?)
}

/// The service's Club Log part, or why it cannot be used.
fn clublog_ready(logbooks: &Logbooks) -> Result<(), LogbookError> {
    if logbooks.clublog.has_api_key() {
        Ok(())
    } else {
        Err(LogbookError::NotConfigured(
            "Club Log is not enabled on this service: its operator must start it with --clublog-api-key (or SVC_CLUBLOG_API_KEY), the API key Club Log's helpdesk gives each program".into(),
        ))
    }
}

/// Connects the Club Log log `login` names to the account. Club Log has no call that checks
/// a login without sending a contact: a wrong one shows at the first push, which pauses the
/// book with Club Log's reason.
pub async fn connect_clublog(
    store: &dyn Store,
    logbooks: &Logbooks,
    account_id: &str,
    login: &ClubLogLogin,
    auto_push: bool,
    auto_sync: bool,
) -> Result<LogbookRecord, LogbookError> {
    clublog_ready(logbooks)?;
    let id = IdKind::Logbook.generate();
    let new = NewLogbook {
        key_sealed: logbooks.secret.seal(&id, &login.password),
        // Nothing of a password is shown; the email names the account instead.
        key_last4: String::new(),
        email: Some(login.email.clone()),
        id,
        provider: "clublog".into(),
        callsign: login.callsign.clone(),
        auto_push,
        auto_sync,
    };
    Ok(store
        .create_logbook(account_id, &new, Timestamp::now())
        .await?)
}

/// A provider's API key as the user gave it, trimmed and of the right shape. A secret of the
/// user's: its `Debug` shows only the last 4 characters, as every page and answer does.
pub struct ProviderKey(String);

impl fmt::Debug for ProviderKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ProviderKey(…{})", self.last4())
    }
}

impl ProviderKey {
    /// One line of 8 to 100 visible ASCII characters: QRZ's keys are `XXXX-XXXX-XXXX-XXXX`,
    /// and anything else pasted (a whole settings line, a stray space inside) is a mistake
    /// better caught before asking QRZ.
    pub fn parse(text: &str) -> Result<ProviderKey, LogbookError> {
        let key = text.trim();
        if key.len() < 8 || key.len() > 100 || !key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(LogbookError::KeyShape);
        }
        Ok(ProviderKey(key.to_owned()))
    }

    pub fn last4(&self) -> String {
        // ASCII only (checked in `parse`), so any byte is a character boundary.
        self.0[self.0.len().saturating_sub(4)..].to_owned()
    }
}

/// Asks QRZ whose book the key opens.
async fn book_callsign(logbooks: &Logbooks, key: &ProviderKey) -> Result<String, LogbookError> {
    match logbooks.qrz.status(&key.0).await {
        // Stored as contacts' station callsigns are, so the sync can match them.
        Ok(book) => Ok(book.callsign.trim().to_ascii_uppercase()),
        Err(QrzError::Auth(reason)) => Err(LogbookError::KeyRefused(format!(
            "QRZ refused this key ({reason}); copy the API key from the logbook's settings at QRZ (a Logbook API key needs a QRZ subscription)"
        ))),
        Err(QrzError::Fail(reason)) => Err(LogbookError::KeyRefused(format!(
            "QRZ did not accept the key: {reason}"
        ))),
        Err(e @ (QrzError::Transport(_) | QrzError::Malformed(_))) => {
            Err(LogbookError::Unreachable(format!(
                "QRZ could not be asked about the key ({e}); try again in a moment"
            )))
        }
    }
}

/// Connects the book `key` opens to the account, once QRZ has said whose it is.
pub async fn connect(
    store: &dyn Store,
    logbooks: &Logbooks,
    account_id: &str,
    key: &ProviderKey,
    auto_push: bool,
    auto_sync: bool,
) -> Result<LogbookRecord, LogbookError> {
    let callsign = book_callsign(logbooks, key).await?;
    let id = IdKind::Logbook.generate();
    let new = NewLogbook {
        key_sealed: logbooks.secret.seal(&id, &key.0),
        key_last4: key.last4(),
        email: None,
        id,
        provider: "qrz".into(),
        callsign,
        auto_push,
        auto_sync,
    };
    Ok(store
        .create_logbook(account_id, &new, Timestamp::now())
        .await?)
}

/// What to change of a logbook; `None` leaves it as it is. `key` is a QRZ book's,
/// `password` a Club Log or eQSL book's, `email` a Club Log book's.
#[derive(Debug, Default)]
pub struct Changes<'a> {
    pub key: Option<&'a ProviderKey>,
    pub password: Option<&'a str>,
    pub email: Option<&'a str>,
    pub auto_push: Option<bool>,
    pub auto_sync: Option<bool>,
}

/// Changes the account's logbook `id`. A new QRZ key is checked with QRZ like a new
/// connection; a new key or Club Log or eQSL password ends a pause. Answers the logbook as it is now.
pub async fn change(
    store: &dyn Store,
    logbooks: &Logbooks,
    account_id: &str,
    id: &str,
    changes: Changes<'_>,
) -> Result<LogbookRecord, LogbookError> {
    let not_found = || LogbookError::NotFound(id.to_owned());
    // Before QRZ is asked: another account's id must not cost a call with the key.
    let Some(book) = store.logbook(account_id, id).await? else {
        return Err(not_found());
    };
    let clublog = book.logbook.provider == "clublog";
    let eqsl = book.logbook.provider == "eqsl";
    let mixed = |field: &'static str, message: &str| {
        Err(LogbookError::Invalid {
            field,
            message: message.to_owned(),
        })
    };
    if clublog && changes.key.is_some() {
        return mixed(
            "apiKey",
            "a Club Log book takes no apiKey: give its application password as password",
        );
    }
    if eqsl && (changes.key.is_some() || changes.email.is_some()) {
        let field = if changes.key.is_some() {
            "apiKey"
        } else {
            "email"
        };
        return mixed(
            field,
            "an eQSL book takes no apiKey or email: give its eQSL password as password",
        );
    }
    if !clublog && !eqsl && (changes.password.is_some() || changes.email.is_some()) {
        let field = if changes.password.is_some() {
            "password"
        } else {
            "email"
        };
        return mixed(
            field,
            "a QRZ book takes no password or email: give its API key as apiKey",
        );
    }
    if clublog && changes.email.is_some() && changes.password.is_none() {
        return mixed(
            "password",
            "a new email needs the application password of that Club Log account with it",
        );
    }
    let key = match (changes.key, changes.password) {
        (Some(key), _) => Some(LogbookKey {
            callsign: book_callsign(logbooks, key).await?,
            key_sealed: logbooks.secret.seal(id, &key.0),
            key_last4: key.last4(),
            email: None,
        }),
        (None, Some(password)) if eqsl => Some(LogbookKey {
            callsign: book.logbook.callsign.clone(),
            key_sealed: logbooks.secret.seal(id, &eqsl_password(password)?),
            key_last4: String::new(),
            email: None,
        }),
        (None, Some(password)) => Some(LogbookKey {
            callsign: book.logbook.callsign.clone(),
            key_sealed: logbooks.secret.seal(id, &clublog_password(password)?),
            key_last4: String::new(),
            email: changes.email.map(clublog_email).transpose()?,
        }),
        (None, None) => None,
    };
    let change = LogbookChange {
        auto_push: changes.auto_push,
        auto_sync: changes.auto_sync,
        key,
    };
    if !store.change_logbook(account_id, id, &change).await? {
        return Err(not_found());
    }
    store.logbook(account_id, id).await?.ok_or_else(not_found)
}

/// Disconnects the account's logbook `id`.
pub async fn disconnect(store: &dyn Store, account_id: &str, id: &str) -> Result<(), LogbookError> {
    if store.delete_logbook(account_id, id).await? {
        Ok(())
    } else {
        Err(LogbookError::NotFound(id.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clublog_login_is_checked_for_shape_and_its_password_never_printed() {
        let login = ClubLogLogin::parse(" op@example.org ", " s3cret-app-pass\n", "g7vjr").unwrap();
        assert_eq!(login.email, "op@example.org");
        assert_eq!(login.callsign, "G7VJR");
        let shown = format!("{login:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        for (email, password, field) in [
            ("no-at-sign", "pass", "email"),
            ("a b@example.org", "pass", "email"),
            ("op@example.org", "  ", "password"),
            ("op@example.org", "two\nlines", "password"),
        ] {
            assert!(
                matches!(
                    ClubLogLogin::parse(email, password, "G7VJR"),
                    Err(LogbookError::Invalid { field: f, .. }) if f == field
                ),
                "{email:?} {password:?}"
            );
        }
    }

    #[test]
    fn keys_are_checked_for_shape_and_never_printed() {
        let key = ProviderKey::parse("  A1B2-C3D4-E5F6-7788\n").unwrap();
        assert_eq!(key.last4(), "7788");
        assert_eq!(format!("{key:?}"), "ProviderKey(…7788)");
        for bad in [
            "short",
            "",
            "A1B2 C3D4 E5F6",
            "Ä1B2-C3D4-E5F6",
            &"x".repeat(101),
        ] {
            assert!(
                matches!(ProviderKey::parse(bad), Err(LogbookError::KeyShape)),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn an_eqsl_login_is_a_callsign_and_a_password_never_printed() {
        let login = EqslLogin::parse(" w1aw ", " s3cret\n").unwrap();
        assert_eq!(login.user, "W1AW");
        assert!(!format!("{login:?}").contains("s3cret"));
        for (user, password, field) in [
            ("not a call", "pass", "user"),
            ("", "pass", "user"),
            ("W1AW", " ", "password"),
            ("W1AW", "two\nlines", "password"),
        ] {
            assert!(
                matches!(
                    EqslLogin::parse(user, password),
                    Err(LogbookError::Invalid { field: f, .. }) if f == field
                ),
                "{user:?} {password:?}"
            );
        }
    }

    #[test]
    fn the_providers_are_qrz_clublog_and_eqsl() {
        assert_eq!(provider(" QRZ ").unwrap(), "qrz");
        assert_eq!(provider("ClubLog").unwrap(), "clublog");
        assert_eq!(provider("eQSL").unwrap(), "eqsl");
        assert!(matches!(
            provider(&"lotw".repeat(10)),
            Err(LogbookError::UnknownProvider(p)) if p.chars().count() == 21
        ));
    }
}
