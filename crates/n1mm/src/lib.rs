//! N1MM Logger+'s UDP broadcasts (port 12060 by default), so that a contest's contacts reach
//! svc as the operator logs them, without an export to import after the weekend. N1MM sends
//! one XML document per datagram: `<contactinfo>` when a contact is logged, `<contactreplace>`
//! when it is edited, `<contactdelete>` when it is deleted, and radio, application, spot and
//! score broadcasts besides. Nothing here opens a socket: decoding is a function of bytes,
//! which the tests drive with datagrams captured from N1MM and the programs that speak its
//! protocol, and the network side stays with whichever front end listens.
//!
//! [`decode`] reads a datagram, [`contact`] makes of a logged contact the contact the API
//! takes, and [`once_key`] keys it so that a datagram heard twice is stored once.

mod contact;
mod decode;

pub use contact::{ContactError, contact, once_key};
pub use decode::{Broadcast, ContactInfo, DecodeError, decode};
