//! External logbooks (QRZ.com's Logbook API, Club Log's API, eQSL.cc's upload): connections, the durable queue of pushes and
//! deletes that triggers fill in each contact's own transaction, and the worker that sends
//! it (docs/API.md, "External logbooks").

pub mod api;
pub mod clublog;
pub mod connect;
pub mod eqsl;
pub mod qrz;
pub mod secret;
pub mod status;
pub mod worker;

use clublog::ClubLog;
use eqsl::Eqsl;
use qrz::Qrz;
use secret::Secret;

/// What the service needs to talk to external logbooks.
#[derive(Debug, Clone)]
pub struct Logbooks {
    pub qrz: Qrz,
    pub clublog: ClubLog,
    pub eqsl: Eqsl,
    pub secret: Secret,
}
