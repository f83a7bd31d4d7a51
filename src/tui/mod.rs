//! The logbook: a terminal UI for logging contacts live, at a station or in the field.
//!
//! Elm-style: one [`App`] state, [`Action`]s (keys, resizes, the clock, answers of background
//! requests), [`update`] that changes the state and names the requests to start as
//! [`Effect`]s, and pure drawing in [`ui`]. Every request runs on its own tokio task with a
//! shared [`Client`] and answers through a channel, so the screen keeps up with the keyboard
//! while the network is slow or gone. This module uses only `client` and `model`.

pub mod app;
pub mod form;
pub mod tasks;
pub mod terminal;
pub mod ui;

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use ratatui::crossterm::event::{Event, EventStream};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

pub use app::{Action, App, Effect, Options, update};

use crate::client::Client;
use crate::model::Timestamp;

/// Whether stdin and stdout are both a terminal, as the logbook needs.
pub fn on_terminal() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// What `svc`, `svc tui` and `svc demo` say when they are not on a terminal (exit 2).
pub fn not_a_terminal(command: &str) -> ExitCode {
    eprintln!(
        "svc: {command}: the logbook needs a terminal, and stdin or stdout is not one; in scripts use the subcommands (svc help lists them)"
    );
    ExitCode::from(2)
}

/// A key that makes debug builds panic, so the tests can check that a panic gives the
/// terminal back. Release builds have no such key.
#[cfg(debug_assertions)]
fn panic_key() -> Option<char> {
    std::env::var("SVC_TUI_TEST_PANIC_KEY")
        .ok()
        .and_then(|v| v.chars().next())
}

/// Runs the logbook on this terminal until the user quits.
pub async fn run(client: Client, options: Options) -> std::io::Result<()> {
    let client = Arc::new(client);
    let mut guard = terminal::Guard::enter()?;
    let size = guard.terminal.size()?;
    let (mut app, effects) = App::new(options, Timestamp::now(), (size.width, size.height));
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut tasks = JoinSet::new();
    for effect in effects {
        tasks::spawn(effect, &client, &tx, &mut tasks);
    }
    let mut events = EventStream::new();
    let mut clock = tokio::time::interval(Duration::from_secs(1));
    clock.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    #[cfg(debug_assertions)]
    let panic_key = panic_key();
    while !app.quit {
        guard.terminal.draw(|frame| ui::draw(&app, frame))?;
        let action = tokio::select! {
            event = events.next() => match event {
                Some(Ok(Event::Key(key))) => {
                    #[cfg(debug_assertions)]
                    if let Some(c) = panic_key
                        && key.code == ratatui::crossterm::event::KeyCode::Char(c)
                    {
                        panic!("the test panic key {c:?} was pressed");
                    }
                    Action::Key(key)
                }
                Some(Ok(Event::Resize(w, h))) => Action::Resize(w, h),
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(e),
                // The terminal went away: nothing more can be typed.
                None => break,
            },
            Some(action) = rx.recv() => action,
            _ = clock.tick() => Action::Tick(Timestamp::now()),
        };
        for effect in update(&mut app, action) {
            tasks::spawn(effect, &client, &tx, &mut tasks);
        }
        while tasks.try_join_next().is_some() {}
    }
    // Requests still waiting for a slow service must not hold up quitting.
    tasks.abort_all();
    Ok(())
}

/// The runtime the logbook runs on; when it cannot start, the error is printed for `command`
/// and the exit code returned.
pub fn runtime(command: &str) -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("svc: {command}: local_error: cannot start the async runtime: {e}");
            ExitCode::FAILURE
        })
}

/// Runs the logbook on a runtime of its own and reports a terminal failure.
pub fn run_blocking(client: Client, options: Options) -> ExitCode {
    let runtime = match runtime("tui") {
        Ok(r) => r,
        Err(code) => return code,
    };
    let result = runtime.block_on(run(client, options));
    // A lookup stuck in a blocking thread must not keep the process alive after quitting.
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("svc: tui: local_error: the terminal failed: {e}");
            ExitCode::FAILURE
        }
    }
}
