mod activations;
mod auth;
mod bad_input;
mod contacts;
mod errors;
mod folders;
mod idempotency;
mod limits;
