//! `svc`: a logbook for amateur-radio contacts. The library holds the domain (`model`), the
//! storage (`store`), POTA's parks and spots (`pota`), the HTTP service (`server`), the typed
//! HTTP client (`client`), the command-line client (`cli`), the MCP server for agents (`mcp`),
//! the terminal UI (`tui`), WSJT-X's UDP protocol (`wsjtx`), `svc demo` (`demo`), the data
//! directory's files (`datafiles`) and the set-up of outgoing HTTP (`outbound`); the binary
//! wires them to the command line.

pub use svc_adif as adif;
pub use svc_cli as cli;
pub use svc_client as client;
pub mod cmd;
pub use svc_datafiles as datafiles;
pub mod demo;
pub mod logbook;
pub use svc_mcp as mcp;
pub use svc_model as model;
pub use svc_outbound as outbound;
pub use svc_pota as pota;
pub use svc_server as server;
pub use svc_store as store;
pub use svc_tui as tui;
pub use svc_wsjtx as wsjtx;
