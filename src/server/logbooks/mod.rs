//! The protocols of other logbooks that the service sends users' contacts to. Each module
//! speaks one service's API and nothing more: what to send when, and what is kept of the
//! answers, is for its callers to decide.

pub mod qrz;
