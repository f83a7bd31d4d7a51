//! The logbook's panes and dialogs, one module each: its state, its keys, its drawing and
//! where its cursor goes. None knows the others; the app routes between them.

pub mod activation;
pub mod activations;
pub mod contacts;
pub mod contest;
pub mod contest_start;
pub mod entry;
pub mod folders;
pub mod help;
pub mod map;
pub mod needed;
pub mod outbox;
pub mod partials;
pub mod prompts;
pub mod rig;
pub mod spots;
pub mod status;
pub mod wsjtx;
