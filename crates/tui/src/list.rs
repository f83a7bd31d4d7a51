//! What every list pane shares: where its data stands, and its cursor, scroll position and
//! text filter.

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

/// Where a pane's data stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Load {
    Idle,
    Loading,
    Loaded,
    Failed(String),
}

/// A list's cursor, scroll position and text filter. `shown` holds the indices of the items
/// that pass the filter, in order.
#[derive(Debug, Clone, Default)]
pub struct ListView {
    pub selected: usize,
    pub offset: usize,
    pub filter: String,
    /// The filter being typed, while `/` is active.
    pub filter_input: Option<Input>,
    pub shown: Vec<usize>,
}

/// What a key did to a list's filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterKey {
    /// The filter was typed in or dropped.
    Changed,
    /// Enter: the filter is kept and the first match selected.
    Kept,
}

impl ListView {
    /// The index (into the items) of the selected row.
    pub fn selected_item(&self) -> Option<usize> {
        self.shown.get(self.selected).copied()
    }

    /// Whether the filter is being typed: keys are its text then.
    pub fn filtering(&self) -> bool {
        self.filter_input.is_some()
    }

    /// Shows the items whose text holds the filter, keeping the selected one selected.
    pub fn refilter(&mut self, texts: impl Iterator<Item = String>, height: usize) {
        let needle = self.filter.trim().to_lowercase();
        let keep = self.selected_item();
        self.shown = texts
            .enumerate()
            .filter(|(_, t)| needle.is_empty() || t.to_lowercase().contains(&needle))
            .map(|(i, _)| i)
            .collect();
        self.selected = keep
            .and_then(|k| self.shown.iter().position(|i| *i == k))
            .unwrap_or(0);
        self.clamp(height);
    }

    /// Selects the item `index` when it is shown.
    pub fn select_item(&mut self, index: usize, height: usize) -> bool {
        match self.shown.iter().position(|i| *i == index) {
            Some(p) => {
                self.selected = p;
                self.clamp(height);
                true
            }
            None => false,
        }
    }

    /// Keeps the selection in the list and on screen, for a viewport of `height` rows (0: as is).
    pub fn clamp(&mut self, height: usize) {
        if self.shown.is_empty() {
            self.selected = 0;
            self.offset = 0;
            return;
        }
        self.selected = self.selected.min(self.shown.len() - 1);
        if height == 0 {
            return;
        }
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
        self.offset = self.offset.min(self.shown.len().saturating_sub(height));
    }

    fn go(&mut self, to: isize, height: usize) {
        let last = self.shown.len().saturating_sub(1) as isize;
        self.selected = to.clamp(0, last.max(0)) as usize;
        self.clamp(height);
    }

    fn step(&mut self, by: isize, height: usize) {
        self.go(self.selected as isize + by, height);
    }

    /// The movement keys, in a viewport of `height` rows; `letters` lets `j` `k` `g` `G` move
    /// too (while no log is open, when letters are no callsign). Whether the key moved.
    pub fn move_key(&mut self, key: &KeyEvent, height: usize, letters: bool) -> bool {
        let page = height.max(1) as isize;
        match key.code {
            KeyCode::Up => self.step(-1, height),
            KeyCode::Down => self.step(1, height),
            KeyCode::PageUp => self.step(-page, height),
            KeyCode::PageDown => self.step(page, height),
            KeyCode::Home => self.go(0, height),
            KeyCode::End => self.go(isize::MAX, height),
            KeyCode::Char('k') if letters => self.step(-1, height),
            KeyCode::Char('j') if letters => self.step(1, height),
            KeyCode::Char('g') if letters => self.go(0, height),
            KeyCode::Char('G') if letters => self.go(isize::MAX, height),
            _ => return false,
        }
        true
    }

    /// `/`: a new filter, which replaces the one that applies rather than adding to it.
    pub fn start_filter(&mut self) {
        self.filter_input = Some(Input::default());
        self.filter.clear();
    }

    /// Esc on the list: drops a kept filter; whether there was one.
    pub fn clear_filter(&mut self) -> bool {
        if self.filter.is_empty() {
            return false;
        }
        self.filter.clear();
        true
    }

    /// A key while the filter is typed; the pane shows the matches again afterwards.
    pub fn filter_key(&mut self, key: KeyEvent) -> FilterKey {
        let Some(input) = &mut self.filter_input else {
            return FilterKey::Changed;
        };
        match key.code {
            KeyCode::Esc => {
                self.filter_input = None;
                self.filter.clear();
                FilterKey::Changed
            }
            KeyCode::Enter => {
                self.filter_input = None;
                self.selected = 0;
                self.offset = 0;
                FilterKey::Kept
            }
            _ => {
                input.handle_event(&Event::Key(key));
                self.filter = input.value().to_owned();
                FilterKey::Changed
            }
        }
    }

    /// What the message line says when a kept filter matches nothing.
    pub fn no_match_warning(&self) -> Option<String> {
        self.shown.is_empty().then(|| {
            format!(
                "nothing matches {:?}; / and Esc clear the filter",
                self.filter
            )
        })
    }
}
