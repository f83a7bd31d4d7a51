//! The terminal while the logbook runs: raw mode, the alternate screen, a hidden cursor, and
//! the way back to exactly how it was, on a normal exit and after a panic alike.

use std::io::{Stdout, stdout};
use std::sync::Once;

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::cursor::{Hide, Show};
use ratatui::crossterm::execute;
use ratatui::crossterm::style::ResetColor;
use ratatui::crossterm::terminal::{
    Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};

pub type Tty = Terminal<CrosstermBackend<Stdout>>;

/// The terminal in the logbook's modes; dropping it gives the terminal back.
pub struct Guard {
    pub terminal: Tty,
}

impl Guard {
    pub fn enter() -> std::io::Result<Guard> {
        install_panic_hook();
        enable_raw_mode()?;
        // Cleared by a plain escape sequence: ratatui's clear() asks the terminal where the
        // cursor is and waits for the answer, which a slow link may not give in time.
        let entered = execute!(stdout(), EnterAlternateScreen, Clear(ClearType::All), Hide)
            .and_then(|()| Terminal::new(CrosstermBackend::new(stdout())));
        entered
            .map(|terminal| Guard { terminal })
            .inspect_err(|_| restore())
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// Leaves the alternate screen, shows the cursor and switches raw mode off. Safe to call
/// more than once, and from the panic hook.
pub fn restore() {
    let _ = execute!(stdout(), ResetColor, LeaveAlternateScreen, Show);
    let _ = disable_raw_mode();
}

/// Restores the terminal before the panic message is printed, so the message is readable
/// and the shell is usable afterwards.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}
