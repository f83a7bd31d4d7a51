//! External logbooks (QRZ, Club Log): a connection as the API shows it, and where a contact went
//! (docs/API.md, "External logbooks").

use serde::{Deserialize, Serialize};

use super::Timestamp;

/// A connected external logbook. Its API key is never part of it: only the last 4 characters
/// of a QRZ key, and nothing of a Club Log application password (`key_last4` is empty there,
/// and `email` names the Club Log account instead).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Logbook {
    pub id: String,
    pub provider: String,
    /// The book's owner, as the provider said when the key was given.
    pub callsign: String,
    pub key_last4: String,
    /// A Club Log book's account email; absent for QRZ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    pub auto_push: bool,
    pub auto_sync: bool,
    /// `working`, or `paused` when the provider refused the key.
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Contacts waiting to go, in the book, and refused by it.
    pub waiting: i64,
    pub pushed: i64,
    pub failed: i64,
    pub created_at: Timestamp,
}

/// A contact the automatic sync could not route, waiting for the user: no synced book has its
/// station callsign (`no_book`), or several have (`several_books`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Review {
    /// The contact's id, which names the review too.
    pub id: String,
    pub reason: String,
    pub contact: super::Contact,
    pub created_at: Timestamp,
}

/// One external copy of a contact: waiting, pushed (with the book's id for it), failed, or
/// being deleted there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalCopy {
    pub logbook_id: String,
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_id: Option<String>,
}
