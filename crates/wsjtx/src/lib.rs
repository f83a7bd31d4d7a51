//! WSJT-X's UDP message protocol, which WSJT-X, JTDX and MSHV speak to loggers, so that a
//! contact made in FT8 or FT4 reaches svc the moment the operator logs it, without a file to
//! import. Nothing here opens a socket: decoding and encoding are functions of bytes, which
//! the tests drive with real captured datagrams and with datagrams of their own, and the
//! network side stays with whichever front end listens.
//!
//! [`decode`] reads what WSJT-X sends, [`heartbeat`], [`replay`] and [`highlight_callsign`]
//! write what svc sends back, and [`contact`] makes of a logged QSO the contact the API
//! takes, with [`once_key`] to send it safely more than once; [`highlight`] keeps the colours
//! svc gives the calls WSJT-X decodes.

mod contact;
pub mod highlight;
mod message;
mod read;
mod time;
mod write;

pub use contact::{ContactError, contact, mode_name, once_key, once_key_for, once_key_of};
pub use message::{Decode, Heartbeat, MAGIC, Message, QsoLogged, Status, decode};
pub use read::{DecodeError, Fault};
pub use time::{QDateTime, TimeError, TimeSpec, UNIX_EPOCH_JULIAN_DAY};
pub use write::{Rgb, SCHEMA, heartbeat, highlight_callsign, replay};
