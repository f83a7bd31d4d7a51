//! The logbook: a terminal UI for logging contacts live, at a station or in the field.
//!
//! Elm-style. [`app`] holds the state as one component per pane and dialog
//! ([`components`]), routes [`Action`]s (keys, resizes, the clock, answers of background
//! work) to them and runs the flows that span several; [`update`] returns the work to start
//! as [`Effect`]s. [`ui`] draws the screen from the state, each component drawing itself.
//! [`runtime`](mod@runtime) is the only part that touches the terminal, the network, the disk and the
//! clock: every request runs on its own task and answers through a channel, so the screen
//! keeps up with the keyboard while the network is slow or gone. This module uses only
//! `client`, `model`, `pota`, `datafiles`, and `wsjtx` and `adif` for WSJT-X's messages.

pub mod action;
pub mod app;
pub mod callsigns;
pub mod components;
pub mod journal;
pub mod list;
pub mod runtime;
pub mod ui;
pub mod widgets;

pub use action::{Action, Effect};
pub use app::{App, Options, update};
pub use journal::{JournalSource, Left};
pub use runtime::{
    ANSWER_TIMEOUT, CONNECT_TIMEOUT, Link, RunError, SEND_TIMEOUT, not_a_terminal, on_terminal,
    run, run_blocking, runtime,
};
