//! The Activations pane: the account's activations, newest first, each with its start, whether
//! it is on the air, and its valid contacts toward POTA's 10 (the model's rule, counted from
//! the copy, the service and the journal's waiting contacts). Its state and drawing.

use std::collections::{HashMap, HashSet};

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Row, Table, Widget};

use super::folders::swap;
use crate::list::{ListView, Load};
use crate::widgets::{Tone, View, short_time};
use svc_client::NewActivationRequest;
use svc_model::activation::{POTA_NEEDED, ValidContact, valid_contacts};
use svc_model::{Contact, Folder, Timestamp};

/// The valid contacts of an activation toward POTA's 10 (the model's rule).
#[derive(Debug, Clone, PartialEq)]
pub struct ActivationStats {
    pub load: Load,
    pub valid: HashSet<ValidContact>,
    /// A contact was logged or refused here since the service was asked: its answer may not
    /// show it yet, so it is added to what is counted, and the service is asked again.
    pub stale: bool,
    /// Contacts logged here that no answer of the service has shown yet. An answer read
    /// before the sender stored one (the copy, or the service itself) arrives after the
    /// journal stopped calling it waiting: it stays counted until the service shows it, or
    /// refuses it.
    pub logged: HashSet<ValidContact>,
}

impl ActivationStats {
    /// Valid contacts on one UTC day.
    pub fn on(&self, day: i64) -> usize {
        self.valid.iter().filter(|k| k.day == day).count()
    }
}

/// The valid count an activation shows: of the day it is on, and of all its days.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meter {
    pub today: usize,
    pub total: usize,
}

#[derive(Debug, Clone)]
pub struct ActivationsPane {
    pub load: Load,
    pub items: Vec<Folder>,
    pub view: ListView,
    pub stats: HashMap<String, ActivationStats>,
    /// The clock, for the day an activation in progress is on.
    pub now: Timestamp,
    /// Parks' names by reference, as POTA (or the park cache) gave them.
    pub park_names: HashMap<String, String>,
    /// Activations added here since the list was last set: an answer to a request made before
    /// they were lacks them ([`take_added`](Self::take_added)).
    added: Vec<String>,
}

/// The Name column shows from this inner width on: on 80 columns the count needs the room.
const NAME_FROM_WIDTH: u16 = 56;

impl ActivationsPane {
    /// The valid counts of the activation `folder_id`, once its contacts are in. Its day is
    /// today while it is in progress, else the day it ended.
    pub fn meter(&self, folder_id: &str) -> Option<Meter> {
        let stats = self
            .stats
            .get(folder_id)
            .filter(|s| s.load == Load::Loaded)?;
        let activation = self.items.iter().find(|a| a.id == folder_id);
        let day = activation
            .and_then(|a| a.end_time)
            .unwrap_or(self.now)
            .utc_day();
        Some(Meter {
            today: stats.on(day),
            total: stats.valid.len(),
        })
    }
}

fn activation_text(f: &Folder) -> String {
    format!(
        "{} {}",
        f.location_reference.as_deref().unwrap_or(""),
        f.name
    )
}

impl ActivationsPane {
    pub fn new(now: Timestamp) -> ActivationsPane {
        ActivationsPane {
            load: Load::Loading,
            items: Vec::new(),
            view: ListView::default(),
            stats: HashMap::new(),
            now,
            park_names: HashMap::new(),
            added: Vec::new(),
        }
    }

    /// The activations added here since the list was last set, forgotten as they are given.
    pub fn take_added(&mut self) -> Vec<String> {
        std::mem::take(&mut self.added)
    }

    pub fn selected(&self) -> Option<&Folder> {
        self.items.get(self.view.selected_item()?)
    }

    pub fn find(&self, id: &str) -> Option<&Folder> {
        self.items.iter().find(|a| a.id == id)
    }

    pub fn refilter(&mut self, height: usize) {
        let items = &self.items;
        self.view
            .refilter(items.iter().map(activation_text), height);
    }

    /// Selects the activation `id` when it is shown.
    pub fn select(&mut self, id: &str, height: usize) {
        if let Some(i) = self.items.iter().position(|a| a.id == id) {
            self.view.select_item(i, height);
        }
    }

    /// Shows `items`, keeping the selection; gives the activations whose count to ask for:
    /// those still on the air (the ones that matter in the field) and the selected one.
    pub fn set(&mut self, items: Vec<Folder>, height: usize) -> Vec<String> {
        let selected = self.selected().map(|a| a.id.clone());
        self.items = items;
        self.load = Load::Loaded;
        self.refilter(height);
        if let Some(id) = selected {
            self.select(&id, height);
        }
        let mut ids: Vec<String> = self
            .items
            .iter()
            .filter(|a| a.in_progress())
            .map(|a| a.id.clone())
            .collect();
        if let Some(id) = self.unknown_selected()
            && !ids.contains(&id)
        {
            ids.push(id);
        }
        ids
    }

    /// The selected activation, when its count is not known yet.
    pub fn unknown_selected(&self) -> Option<String> {
        self.selected()
            .map(|a| a.id.clone())
            .filter(|id| !self.stats.contains_key(id))
    }

    /// A new activation, first as the service lists them, the selection kept.
    pub fn add(&mut self, folder: Folder, height: usize) {
        let selected = self.selected().map(|a| a.id.clone());
        self.added.push(folder.id.clone());
        self.items.insert(0, folder);
        self.refilter(height);
        if let Some(id) = selected {
            self.select(&id, height);
        }
    }

    /// An activation made with no link exists on the service now: it takes the place of
    /// `local_id`, with its count and the selection. Whether its count must be asked for
    /// again: one under way was asked by the local id, and its answer, which names that id,
    /// finds no activation to count for any more.
    #[must_use]
    pub fn resolve(&mut self, local_id: &str, folder: &Folder, height: usize) -> bool {
        let mut ask_again = false;
        if let Some(mut stats) = self.stats.remove(local_id) {
            if stats.load == Load::Loading {
                stats.load = Load::Idle;
                ask_again = true;
            }
            self.stats.insert(folder.id.clone(), stats);
        }
        let selected = self.selected().map(|a| {
            if a.id == local_id {
                folder.id.clone()
            } else {
                a.id.clone()
            }
        });
        self.items = swap(&self.items, local_id, folder);
        self.refilter(height);
        if let Some(id) = selected {
            self.select(&id, height);
        }
        ask_again
    }

    /// Whether an activation's contacts are to be asked for, to count them: not while an
    /// answer is under way (the count shown so far stays until it comes).
    pub fn load_stats(&mut self, id: &str) -> bool {
        let stats = self
            .stats
            .entry(id.to_owned())
            .or_insert_with(|| ActivationStats {
                load: Load::Idle,
                valid: HashSet::new(),
                stale: false,
                logged: HashSet::new(),
            });
        match stats.load {
            Load::Loading => {
                // The answer under way may be older than what changed: it asks again.
                stats.stale = true;
                return false;
            }
            Load::Loaded => {}
            _ => stats.load = Load::Loading,
        }
        stats.stale = false;
        true
    }

    /// An activation's contacts came (with the journal's `waiting` ones); a failure keeps a
    /// count already known. Whether to ask the service again: its answer was older than a
    /// change here.
    pub fn contacts_loaded(
        &mut self,
        folder_id: &str,
        from_service: bool,
        result: Result<Vec<Contact>, String>,
        waiting: &[Contact],
    ) -> bool {
        let Some(activation) = self.find(folder_id) else {
            return false;
        };
        let before = self.stats.get(folder_id);
        let stale = before.is_some_and(|s| s.stale);
        let mut logged = before.map(|s| s.logged.clone()).unwrap_or_default();
        let stats = match result {
            Ok(contacts) => {
                let answer: HashSet<ValidContact> = valid_contacts(activation, &contacts).collect();
                if from_service {
                    logged.retain(|k| !answer.contains(k));
                }
                let mut valid = answer;
                valid.extend(valid_contacts(activation, waiting));
                valid.extend(logged.iter().cloned());
                // A contact logged since the question may be neither in the answer nor
                // waiting any more (sent in between): kept until the next answer shows it.
                if stale && let Some(before) = before {
                    valid.extend(before.valid.iter().cloned());
                }
                ActivationStats {
                    load: Load::Loaded,
                    valid,
                    stale,
                    logged,
                }
            }
            // A count from the copy stays when the service cannot be reached.
            Err(_) if before.is_some_and(|s| s.load == Load::Loaded) => return false,
            Err(why) => ActivationStats {
                load: Load::Failed(why),
                valid: HashSet::new(),
                stale: false,
                logged,
            },
        };
        self.stats.insert(folder_id.to_owned(), stats);
        stale && from_service
    }

    /// A contact logged here counts at once toward its activation, if it has one shown.
    pub fn count(&mut self, contact: &Contact) {
        if let Some(activation) = self.items.iter().find(|a| a.id == contact.folder_id)
            && let Some(stats) = self.stats.get_mut(&activation.id)
        {
            let keys: Vec<ValidContact> = valid_contacts(activation, [contact]).collect();
            stats.valid.extend(keys.iter().cloned());
            stats.logged.extend(keys);
            stats.stale = true;
        }
    }

    /// A contact logged here was refused: it no longer counts once the count is made again.
    /// Whether its activation has a count to make again.
    pub fn refused(&mut self, contact: &Contact) -> bool {
        let Some(activation) = self.items.iter().find(|a| a.id == contact.folder_id) else {
            return false;
        };
        let Some(stats) = self.stats.get_mut(&activation.id) else {
            return false;
        };
        for key in valid_contacts(activation, [contact]) {
            stats.logged.remove(&key);
        }
        true
    }

    /// The activation of today that `request` names, when the list holds it.
    pub fn todays(&self, request: &NewActivationRequest) -> Option<Folder> {
        let today = self.now.utc_day();
        self.items
            .iter()
            .find(|a| {
                a.location_reference.as_deref() == Some(request.location_reference.as_str())
                    && a.callsign.as_deref() == Some(request.callsign.as_str())
                    && a.program_id.as_deref() == request.program_id.as_deref()
                    && a.start_time.map(Timestamp::utc_day) == Some(today)
            })
            .cloned()
    }
}

/// The Start column's width: `11-28 19:40`.
const TIME_WIDTH: u16 = 11;
/// The state column's width: `in progress`.
const STATE_WIDTH: u16 = 11;

/// The state column's width where `in progress` does not fit: `on air`.
const SHORT_STATE_WIDTH: u16 = 6;

/// The widths of the columns that give way in `inner` columns: the park, the state and the
/// count. The count keeps every digit (`13/10` read as `3/10` would say the activation is not
/// valid yet); `in progress` gives way to `on air` first, then the park is cut.
fn column_widths(inner: u16, labels: &[String], counts: &[Span], named: bool) -> (u16, u16, u16) {
    let widest = |texts: &mut dyn Iterator<Item = usize>| texts.max().unwrap_or(0) as u16;
    // `10/10`, so that the column does not move as the count grows.
    let count = widest(&mut counts.iter().map(|c| c.width())).max(5);
    let label = widest(&mut labels.iter().map(|l| l.chars().count())).max(8);
    let gaps = if named { 4 } else { 3 };
    let state = if label + TIME_WIDTH + STATE_WIDTH + count + gaps <= inner {
        STATE_WIDTH
    } else {
        SHORT_STATE_WIDTH
    };
    let room = inner.saturating_sub(TIME_WIDTH + state + count + gaps);
    (label.min(room).max(4), state, count)
}

/// `text` in `width` columns: cut, with `…` for what is left out.
fn fit(text: &str, width: u16) -> String {
    let width = usize::from(width);
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let kept: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// An activation's parks as its row shows them: the park, or a two-fer's first park and how
/// many more (`US-0001+1`); the Contacts title names them all.
pub fn park_label(reference: &str) -> String {
    match reference.split_once(',') {
        Some((first, rest)) => format!("{first}+{}", rest.split(',').count()),
        None => reference.to_owned(),
    }
}

impl Widget for View<'_, ActivationsPane> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let pane = self.state;
        let inner = self.frame(vec![Span::raw(" Activations ")], &pane.view, area, buf);
        if self.placeholder(
            &pane.view,
            (pane.items.is_empty(), &pane.load),
            ("Activations", "No activations: Alt-A starts one."),
            inner,
            buf,
        ) {
            return;
        }
        let named = inner.width >= NAME_FROM_WIDTH && !pane.park_names.is_empty();
        let shown: Vec<(usize, &Folder)> = pane
            .view
            .shown
            .iter()
            .enumerate()
            .skip(pane.view.offset)
            .take(inner.height as usize)
            .map(|(i, index)| (i, &pane.items[*index]))
            .collect();
        let counts: Vec<Span> = shown
            .iter()
            .map(|(_, a)| match (pane.meter(&a.id), pane.stats.get(&a.id)) {
                (Some(meter), _) => {
                    let n = meter.today;
                    let tone = if n >= POTA_NEEDED {
                        Tone::Success
                    } else {
                        Tone::Info
                    };
                    Span::styled(format!("{n}/{POTA_NEEDED}"), self.theme.tone(tone))
                }
                (None, Some(s)) if s.load == Load::Loading => Span::raw("…"),
                (None, Some(_)) => Span::raw("?"),
                (None, None) => Span::raw(""),
            })
            .collect();
        let labels: Vec<String> = shown
            .iter()
            .map(|(_, a)| park_label(a.location_reference.as_deref().unwrap_or("")))
            .collect();
        let (label_width, state_width, count_width) =
            column_widths(inner.width, &labels, &counts, named);
        let rows = shown
            .iter()
            .zip(counts)
            .zip(&labels)
            .map(|(((i, a), count), label)| {
                let state = if a.in_progress() {
                    let words = if state_width < STATE_WIDTH {
                        "on air"
                    } else {
                        "in progress"
                    };
                    Span::styled(words, self.theme.tone(Tone::Success))
                } else {
                    Span::styled("ended", self.theme.dim())
                };
                let style = self.row_style(*i, &pane.view);
                let reference = a.location_reference.as_deref().unwrap_or("");
                let mut cells = vec![
                    Cell::from(fit(label, label_width)),
                    Cell::from(a.start_time.map(short_time).unwrap_or_default()),
                    Cell::from(state),
                    Cell::from(Line::from(count).alignment(Alignment::Right)),
                ];
                if named {
                    let first = reference.split(',').next().unwrap_or("");
                    let name = pane.park_names.get(first).cloned().unwrap_or_default();
                    cells.insert(1, Cell::from(name));
                }
                Row::new(cells).style(style)
            });
        let mut widths = vec![
            Constraint::Length(label_width),
            Constraint::Length(TIME_WIDTH),
            Constraint::Length(state_width),
            Constraint::Min(count_width),
        ];
        if named {
            widths.insert(1, Constraint::Fill(1));
            widths[4] = Constraint::Length(count_width);
        }
        Table::new(rows, widths).render(inner, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_count_keeps_every_digit_and_the_park_gives_way() {
        let labels = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let counts = |c: &[&'static str]| c.iter().map(|s| Span::raw(*s)).collect::<Vec<_>>();
        // Wide enough for all of it.
        assert_eq!(
            column_widths(60, &labels(&["US-0001"]), &counts(&["13/10"]), false),
            (8, STATE_WIDTH, 5)
        );
        // The Activations pane at 80 columns (38 inside): a two-fer and a count of two digits
        // fit whole once `in progress` is `on air`.
        let (label, state, count) =
            column_widths(38, &labels(&["US-0001+1"]), &counts(&["13/10"]), false);
        assert_eq!((label, state, count), (9, SHORT_STATE_WIDTH, 5));
        // Narrower still: the park is cut, never the count.
        let (label, _, count) =
            column_widths(30, &labels(&["US-0001+1"]), &counts(&["100/10"]), false);
        assert_eq!(count, 6);
        assert_eq!(label, 30 - TIME_WIDTH - SHORT_STATE_WIDTH - 6 - 3);
        assert_eq!(fit("US-0001+1", 4), "US-…");
        assert_eq!(fit("US-0001", 8), "US-0001");
    }
}
