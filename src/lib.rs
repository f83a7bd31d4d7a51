//! `svc`: a logbook for amateur-radio contacts. The library holds the domain (`model`), the
//! storage (`store`) and the HTTP service (`server`); the binary wires them to the command line.

pub mod cmd;
pub mod model;
pub mod server;
pub mod store;
