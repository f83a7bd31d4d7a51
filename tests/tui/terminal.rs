//! The real `svc` binary in a pseudo-terminal against the real server.
