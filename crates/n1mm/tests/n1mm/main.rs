//! svc-n1mm against real datagrams captured from N1MM Logger+ and the programs that speak
//! its protocol (`fixtures.rs`), and against datagrams written here by hand from N1MM's
//! documentation ("External UDP Broadcasts").

mod contact;
mod decode;
mod fixtures;
mod robustness;
