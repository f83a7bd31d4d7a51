//! The domain shared by the client and the server: ids, folders, contacts, activations,
//! callsign and reference parsing, the band plan and the error codes.

pub mod activation;
pub mod band;
pub mod callsign;
pub mod contact;
pub mod error;
pub mod fields;
pub mod filing;
pub mod folder;
pub mod ids;
pub mod key;
pub mod logbook;
pub mod mode;
pub mod page;
pub mod program;
pub mod text;
pub mod time;

pub use activation::{ActivationInput, NewActivation};
pub use contact::{Contact, ContactInput, ContactPatch, NewContact};
pub use error::{ApiError, ErrorBody, ErrorCode, RateLimitReason};
pub use fields::{Field, Fields, FieldsPatch};
pub use folder::{Folder, FolderType, NewMonthly};
pub use ids::IdKind;
pub use key::{ApiKey, Tier};
pub use logbook::{ExternalCopy, Logbook, Review};
pub use page::Page;
pub use program::Program;
pub use time::Timestamp;

use serde::{Deserialize, Serialize};

/// The identity record of GET /v1/whoami.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Whoami {
    pub callsign: String,
    pub plan: String,
    pub tier: Tier,
    pub native_qso_count: i64,
}

/// The plan of an account.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Plan {
    #[default]
    Free,
    Paid,
}

impl Plan {
    pub fn as_str(self) -> &'static str {
        match self {
            Plan::Free => "free",
            Plan::Paid => "paid",
        }
    }

    pub fn parse(text: &str) -> Option<Plan> {
        match text {
            "free" => Some(Plan::Free),
            "paid" => Some(Plan::Paid),
            _ => None,
        }
    }
}

/// The cap on native QSOs of the free plan.
pub const FREE_PLAN_CAP: i64 = 200;
