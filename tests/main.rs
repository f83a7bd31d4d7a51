//! One integration test binary: every test talks to the real `svc` process.

mod cli;
mod common;
mod server;
mod web;
