//! `svc`: a logbook for amateur-radio contacts. The library holds the domain (`model`), the
//! storage (`store`), POTA's parks and spots (`pota`), the HTTP service (`server`), the typed
//! HTTP client (`client`), the command-line client (`cli`), the MCP server for agents (`mcp`),
//! the terminal UI (`tui`), `svc demo` (`demo`), the data directory's files (`datafiles`) and
//! the set-up of outgoing HTTP (`outbound`); the binary wires them to the command line.

pub mod adif;
pub mod cli;
pub mod client;
pub mod cmd;
pub mod datafiles;
pub mod demo;
pub mod mcp;
pub use svc_model as model;
pub mod outbound;
pub mod pota;
pub mod server;
pub mod store;
pub mod tui;
