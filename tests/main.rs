//! One integration test binary: the real `svc` processes (server, client, logbook), and the
//! logbook's state and drawing without a terminal.

mod architecture;
mod cli;
mod common;
mod docs;
mod mcp;
mod server;
mod surfaces;
mod tui;
mod web;
