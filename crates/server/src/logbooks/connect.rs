//! Connecting, changing and disconnecting an account's external logbooks: the one place that
//! checks a provider's API key (its shape, then with the provider), seals it and stores it.
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
    /// The account has no logbook with this id.
    NotFound(String),
    Store(StoreError),
}

impl From<StoreError> for LogbookError {
    fn from(e: StoreError) -> LogbookError {
        LogbookError::Store(e)
    }
}

/// The one provider there is, from what a client named.
pub fn provider(text: &str) -> Result<&'static str, LogbookError> {
    if text.trim().eq_ignore_ascii_case("qrz") {
        Ok("qrz")
    } else {
        Err(LogbookError::UnknownProvider(svc_model::ids::truncate(
            text, 20,
        )))
    }
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

/// What to change of a logbook; `None` leaves it as it is.
#[derive(Debug, Default)]
pub struct Changes<'a> {
    pub key: Option<&'a ProviderKey>,
    pub auto_push: Option<bool>,
    pub auto_sync: Option<bool>,
}

/// Changes the account's logbook `id`. A new key is checked with QRZ like a new connection,
/// and ends a pause. Answers the logbook as it is now.
pub async fn change(
    store: &dyn Store,
    logbooks: &Logbooks,
    account_id: &str,
    id: &str,
    changes: Changes<'_>,
) -> Result<LogbookRecord, LogbookError> {
    let not_found = || LogbookError::NotFound(id.to_owned());
    // Before QRZ is asked: another account's id must not cost a call with the key.
    if store.logbook(account_id, id).await?.is_none() {
        return Err(not_found());
    }
    let key = match changes.key {
        Some(key) => Some(LogbookKey {
            callsign: book_callsign(logbooks, key).await?,
            key_sealed: logbooks.secret.seal(id, &key.0),
            key_last4: key.last4(),
        }),
        None => None,
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
    fn qrz_is_the_one_provider() {
        assert_eq!(provider(" QRZ ").unwrap(), "qrz");
        assert!(matches!(
            provider(&"eqsl".repeat(10)),
            Err(LogbookError::UnknownProvider(p)) if p.chars().count() == 21
        ));
    }
}
