//! The WSJT-X protocol against datagrams real programs sent (`fixtures`) and against datagrams
//! of the tests' own making (`qds`: a QDataStream writer written from NetworkMessage.hpp's
//! tables and Qt's stream format, not from the crate's encoders, so that a misreading of the
//! tables in the crate is not repeated by the tests that check it).

mod contact;
mod decode;
mod encode;
mod fixtures;
mod fuzz;
mod qds;
