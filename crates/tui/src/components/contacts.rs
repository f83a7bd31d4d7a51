//! The Contacts pane: the open folder's contacts newest first, a page at a time, with the
//! journal's waiting contacts of the folder among them (`↑`) and every refused one at the top
//! (`✗`). Its state, paging, the merge of the journal's rows, and its drawing.

use std::collections::{HashMap, HashSet};

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Row, Table, Widget};

use super::outbox::{contact_row, refusal};
use crate::action::Effect;
use crate::list::{ListView, Load};
use crate::widgets::{Tone, View, no_match, placeholder, short_time};
use svc_client::journal::{Entry, EntryRequest, EntryState, is_local_folder_id};
use svc_model::band::mhz_text;
use svc_model::confirm;
use svc_model::fields::Field;
use svc_model::{Contact, Folder, FolderType, NewContact, Page, Timestamp};

/// The next page is asked for when the cursor comes this close to the last loaded contact.
const PREFETCH: usize = 30;

/// A row of the Contacts pane that the service has not stored.
#[derive(Debug, Clone, PartialEq)]
pub enum Mark {
    Waiting,
    /// The service's code and message.
    Refused(String),
}

#[derive(Debug, Clone)]
pub struct ContactsPane {
    pub folder: Option<Folder>,
    /// The names of the open activation's parks, once known, for the title.
    pub park_names: Option<String>,
    pub load: Load,
    /// The folder's contacts newest first, with the journal's waiting contacts of the folder
    /// among them and every refused one at the top; those rows have a [`Mark`] and their
    /// entry's id.
    pub items: Vec<Contact>,
    pub marks: HashMap<String, Mark>,
    /// The items came from the journal's copy, not (yet) from the service.
    pub from_copy: bool,
    /// Where the next page starts; `None` once the last page is in.
    pub cursor: Option<String>,
    /// Tells answers for an earlier opening of a folder from the current one.
    pub generation: u64,
    /// The ids of the rows a read of the service showed (a page, a poll): one of them that a
    /// later poll no longer shows was deleted there. A row this logbook stored since is not
    /// among them, so a poll answered before its store cannot take it away.
    confirmed: HashSet<String>,
    pub view: ListView,
}

fn contact_text(c: &Contact) -> String {
    format!(
        "{} {} {} {} {}",
        c.callsign,
        c.band,
        c.mode,
        c.name.as_deref().unwrap_or(""),
        c.notes.as_deref().unwrap_or("")
    )
}

impl Default for ContactsPane {
    fn default() -> Self {
        ContactsPane {
            folder: None,
            park_names: None,
            load: Load::Idle,
            items: Vec::new(),
            marks: HashMap::new(),
            from_copy: false,
            cursor: None,
            generation: 0,
            confirmed: HashSet::new(),
            view: ListView::default(),
        }
    }
}

impl ContactsPane {
    pub fn selected(&self) -> Option<&Contact> {
        self.items.get(self.view.selected_item()?)
    }

    pub fn refilter(&mut self, height: usize) {
        let items = &self.items;
        self.view.refilter(items.iter().map(contact_text), height);
    }

    fn select(&mut self, id: &str, height: usize) {
        if let Some(i) = self.items.iter().position(|c| c.id == id) {
            self.view.select_item(i, height);
        }
    }

    /// Shows `folder`, emptied, and names the request for its first page.
    pub fn open(&mut self, folder: Folder) -> Effect {
        self.generation += 1;
        self.items.clear();
        self.marks.clear();
        self.confirmed.clear();
        self.from_copy = false;
        self.cursor = None;
        self.view = ListView::default();
        self.load = Load::Loading;
        let effect = Effect::LoadContacts {
            folder_id: folder.id.clone(),
            cursor: None,
            generation: self.generation,
            save_copy: folder.folder_type != FolderType::Activation,
        };
        self.folder = Some(folder);
        effect
    }

    /// Whether an answer for `folder_id` and `generation` is for the folder open now.
    pub fn is_current(&self, folder_id: &str, generation: u64) -> bool {
        generation == self.generation && self.folder.as_ref().is_some_and(|f| f.id == folder_id)
    }

    /// The journal's rows among the folder's contacts: waiting ones of this folder by time,
    /// refused ones of any folder at the top. The selection stays on its row.
    pub fn merge_pending(&mut self, entries: &[Entry], height: usize) {
        let open = self.folder.as_ref().map(|f| f.id.as_str());
        let pending = entries.iter().any(|e| match e.state {
            EntryState::Refused => true,
            EntryState::Waiting => {
                matches!(&e.request, EntryRequest::Contact(c) if Some(c.folder_id.as_str()) == open)
            }
            _ => false,
        });
        // Nothing of the journal's to show, nor shown: the list stays as it is. A folder of
        // thousands is not rebuilt for every page the service sends.
        if !pending && self.marks.is_empty() {
            self.refilter(height);
            return;
        }
        let selected = self.selected().map(|c| c.id.clone());
        let old = std::mem::take(&mut self.marks);
        let stored: Vec<Contact> = std::mem::take(&mut self.items)
            .into_iter()
            .filter(|c| !old.contains_key(&c.id))
            .collect();
        let open = self.folder.as_ref().map(|f| f.id.clone());
        let mut marks = HashMap::new();
        let mut refused = Vec::new();
        let mut waiting = Vec::new();
        // Latest logged first, so rows of the same minute show in the order they were typed.
        for entry in entries.iter().rev() {
            let Some(row) = contact_row(entry) else {
                continue;
            };
            match entry.state {
                EntryState::Refused => {
                    marks.insert(row.id.clone(), Mark::Refused(refusal(entry)));
                    refused.push(row);
                }
                EntryState::Waiting if open.as_deref() == Some(row.folder_id.as_str()) => {
                    marks.insert(row.id.clone(), Mark::Waiting);
                    waiting.push((row, self.dupe_key_of(entry)));
                }
                _ => {}
            }
        }
        let mut waiting = mark_duplicates(&stored, waiting);
        // Both newest first, merged in one pass: a log of thousands stays quick to update.
        waiting.sort_by_key(|c| std::cmp::Reverse(c.time_on));
        let mut items = Vec::with_capacity(refused.len() + waiting.len() + stored.len());
        items.extend(refused.into_iter().rev());
        let mut waiting = waiting.into_iter().peekable();
        for c in stored {
            while let Some(w) = waiting.next_if(|w| w.time_on >= c.time_on) {
                items.push(w);
            }
            items.push(c);
        }
        items.extend(waiting);
        self.items = items;
        self.marks = marks;
        self.refilter(height);
        if let Some(id) = selected {
            self.select(&id, height);
        }
    }

    /// The duplicate key the service will give a waiting contact of the open folder: the
    /// model's, in a program folder, of a contact with program identity (`None` elsewhere, or
    /// for one the service will refuse).
    fn dupe_key_of(&self, entry: &Entry) -> Option<String> {
        let (EntryRequest::Contact(input), Some(folder)) = (&entry.request, &self.folder) else {
            return None;
        };
        NewContact::validate(input, folder, entry.logged_at)
            .ok()
            .and_then(|c| c.dupe_key)
    }

    /// A page of the open folder's contacts: from the journal's copy (shown at once), or from
    /// the service (replacing the copy's rows). Whether the service's came.
    pub fn page_loaded(&mut self, from_service: bool, page: Page<Contact>) {
        let folder_id = self
            .folder
            .as_ref()
            .map(|f| f.id.clone())
            .unwrap_or_default();
        if !from_service {
            let marks = &self.marks;
            self.items.retain(|c| marks.contains_key(&c.id));
            self.items.extend(page.items);
            self.from_copy = true;
            if is_local_folder_id(&folder_id) {
                // No more than the copy and the journal exists of it.
                self.load = Load::Loaded;
            }
            return;
        }
        if std::mem::take(&mut self.from_copy) {
            let marks = &self.marks;
            self.items.retain(|c| marks.contains_key(&c.id));
        }
        self.confirmed
            .extend(page.items.iter().map(|c| c.id.clone()));
        // A contact logged here meanwhile may come again in a page. Only the page's ids are
        // looked for, so a page costs the same however many are loaded.
        let ids: HashSet<&str> = page.items.iter().map(|c| c.id.as_str()).collect();
        let again: HashSet<String> = self
            .items
            .iter()
            .filter(|c| ids.contains(c.id.as_str()))
            .map(|c| c.id.clone())
            .collect();
        self.items
            .extend(page.items.into_iter().filter(|c| !again.contains(&c.id)));
        self.cursor = page.cursor;
        self.load = Load::Loaded;
    }

    /// The next page, when the cursor comes near the end of what is loaded, or when the
    /// entry form on this folder (`form_here`) needs contacts of today for its duplicate
    /// check that are not loaded yet.
    pub fn more(&mut self, form_here: bool, now: Timestamp) -> Option<Effect> {
        let (Some(folder), Some(cursor)) = (&self.folder, &self.cursor) else {
            return None;
        };
        if self.load == Load::Loading {
            return None;
        }
        let near_end = self.view.shown.len() <= self.view.selected + PREFETCH;
        // Contacts come newest first: while the oldest loaded is from today, older pages may
        // still hold today's contacts, which the duplicate check must see.
        let form_needs_today = form_here
            && self
                .items
                .last()
                .is_none_or(|c| c.time_on.utc_day() >= now.utc_day());
        if !near_end && !form_needs_today {
            return None;
        }
        let effect = Effect::LoadContacts {
            folder_id: folder.id.clone(),
            cursor: Some(cursor.clone()),
            generation: self.generation,
            save_copy: false,
        };
        self.load = Load::Loading;
        Some(effect)
    }

    /// The whole refusal of the selected row, which its column cuts short.
    pub fn refusal_of_selected(&self) -> Option<String> {
        let c = self.selected()?;
        match self.marks.get(&c.id) {
            Some(Mark::Refused(why)) => Some(format!(
                "{} was refused: {why}; Enter fixes it, Alt-D discards it",
                c.callsign
            )),
            _ => None,
        }
    }

    /// The contacts stored or waiting here (a refused one is not in the log), for the
    /// duplicate check of a form on this folder.
    pub fn logged(&self) -> impl Iterator<Item = &Contact> {
        self.items
            .iter()
            .filter(|c| !matches!(self.marks.get(&c.id), Some(Mark::Refused(_))))
    }

    /// A folder made with no link exists on the service now. Whether it is the one open: its
    /// rows then stay until the service's page replaces them, which this asks for.
    pub fn resolve(&mut self, local_id: &str, folder: &Folder) -> Option<Effect> {
        for c in &mut self.items {
            if c.folder_id == local_id {
                c.folder_id = folder.id.clone();
            }
        }
        if self.folder.as_ref().is_none_or(|f| f.id != local_id) {
            return None;
        }
        self.folder = Some(folder.clone());
        self.from_copy = true;
        self.load = Load::Loading;
        Some(Effect::LoadContacts {
            folder_id: folder.id.clone(),
            cursor: None,
            generation: self.generation,
            save_copy: folder.folder_type != FolderType::Activation,
        })
    }

    /// A contact the service changed, in its row.
    pub fn replace(&mut self, contact: Contact, height: usize) {
        if let Some(row) = self.items.iter_mut().find(|r| r.id == contact.id) {
            *row = contact;
        }
        self.refilter(height);
    }

    /// A contact the service deleted, out of the list.
    pub fn remove(&mut self, id: &str, height: usize) -> Option<Contact> {
        let i = self.items.iter().position(|c| c.id == id)?;
        let gone = self.items.remove(i);
        self.refilter(height);
        Some(gone)
    }

    /// The width of the pane's title before its filter, where the filter's cursor goes.
    pub fn title_len(&self) -> usize {
        let mut len = contacts_title(self).chars().count();
        if self.load == Load::Loading && !self.items.is_empty() {
            len += LOADING_MORE.chars().count();
        }
        len
    }

    /// Contacts of the open folder `folder_id` from a new read of its newest page (another
    /// logbook's on a shared contest log): those not shown yet join, in time order, but one
    /// that is a waiting row of this logbook's stored meanwhile (its sent answer renames the
    /// row); and a row an earlier read showed that this one should and does not was deleted
    /// there (by another logbook), and goes. The page covers every contact newer than its
    /// oldest, and all of them when it is the last. How many rows joined or went.
    pub fn take_new(&mut self, folder_id: &str, page: Page<Contact>) -> usize {
        if self.folder.as_ref().is_none_or(|f| f.id != folder_id) {
            return 0;
        }
        let in_page: HashSet<&str> = page.items.iter().map(|c| c.id.as_str()).collect();
        let whole = page.cursor.is_none();
        let oldest = page.items.last().map(|c| c.time_on);
        let before = self.items.len();
        let (confirmed, marks) = (&self.confirmed, &self.marks);
        // Kept unless the page covers it, a read showed it before, it is no waiting row of
        // this logbook's, and the page does not hold it.
        self.items.retain(|c| {
            let covered = whole || oldest.is_some_and(|o| c.time_on > o);
            !covered
                || !confirmed.contains(&c.id)
                || marks.contains_key(&c.id)
                || in_page.contains(c.id.as_str())
        });
        let gone = before - self.items.len();
        self.confirmed
            .extend(page.items.iter().map(|c| c.id.clone()));
        let shown: HashSet<(&str, Timestamp)> = self
            .items
            .iter()
            .map(|c| (c.callsign.as_str(), c.time_on))
            .collect();
        let ids: HashSet<&str> = self.items.iter().map(|c| c.id.as_str()).collect();
        let new: Vec<Contact> = page
            .items
            .into_iter()
            .filter(|c| {
                !ids.contains(c.id.as_str()) && !shown.contains(&(c.callsign.as_str(), c.time_on))
            })
            .collect();
        let added = new.len();
        if added > 0 {
            self.items.extend(new);
            // Newest first, as the pages come; a sort that keeps the order of equal times.
            self.items.sort_by_key(|c| std::cmp::Reverse(c.time_on));
        }
        added + gone
    }

    /// A waiting row was stored: it keeps its place, as the service's contact now.
    pub fn stored(&mut self, entry_id: &str, qso: String) {
        if self.marks.remove(entry_id).is_none() {
            return;
        }
        // A page read after the service stored it may show it already: one row, not two.
        if self.items.iter().any(|c| c.id == qso) {
            self.items.retain(|c| c.id != entry_id);
        } else if let Some(c) = self.items.iter_mut().find(|c| c.id == entry_id) {
            c.id = qso;
        }
    }
}

const LOADING_MORE: &str = "loading… ";

/// The waiting rows (latest logged first, each with its duplicate key), each that repeats an
/// earlier contact of the folder marked as the service will mark it when it stores it: the
/// duplicate of the first stored contact with its key, else of the first waiting one logged
/// before it. So a dupe says `dupe` on its row as soon as it is logged, link down or not.
fn mark_duplicates(stored: &[Contact], waiting: Vec<(Contact, Option<String>)>) -> Vec<Contact> {
    if waiting.iter().all(|(_, key)| key.is_none()) {
        return waiting.into_iter().map(|(row, _)| row).collect();
    }
    // Stored rows are newest first: the last of a key is its first stored.
    let mut first: HashMap<String, String> = HashMap::new();
    for c in stored.iter().rev() {
        first.entry(c.dupe_key()).or_insert_with(|| c.id.clone());
    }
    let mut rows: Vec<Contact> = waiting
        .into_iter()
        .rev()
        .map(|(mut row, key)| {
            if let Some(key) = key {
                match first.get(&key) {
                    Some(id) => row.duplicate_of = Some(id.clone()),
                    None => {
                        first.insert(key, row.id.clone());
                    }
                }
            }
            row
        })
        .collect();
    rows.reverse();
    rows
}

/// The contacts pane's title: the folder, and how many of its contacts are loaded (waiting
/// ones included, refused ones not: they are not in the log).
fn contacts_title(pane: &ContactsPane) -> String {
    let refused = pane
        .marks
        .values()
        .filter(|m| matches!(m, Mark::Refused(_)))
        .count();
    match &pane.folder {
        None => " Contacts ".to_owned(),
        Some(f) => {
            let loaded = pane.items.len() - refused;
            let count = if pane.cursor.is_some() {
                format!("{loaded} of {}", f.contact_count.max(loaded as i64))
            } else {
                loaded.to_string()
            };
            let copy = if pane.from_copy { " (saved copy)" } else { "" };
            match &pane.park_names {
                Some(parks) => format!(" Contacts · {} · {parks} · {count}{copy} ", f.name),
                None => format!(" Contacts · {} · {count}{copy} ", f.name),
            }
        }
    }
}

/// The first column: `↑` waits to be sent, `✗` was refused.
/// Mark, UTC, Call, MHz, Band, Mode, S, R, Name, Notes.
/// The QSL column: a letter for each confirmation, `LECQ` at most.
const QSL_WIDTH: u16 = 4;

const CONTACT_WIDTHS: [Constraint; 10] = [
    Constraint::Length(1),
    Constraint::Length(11),
    Constraint::Length(10),
    Constraint::Length(9),
    Constraint::Length(6),
    Constraint::Length(5),
    Constraint::Length(4),
    Constraint::Length(4),
    Constraint::Length(12),
    Constraint::Fill(1),
];

/// The Country column shows from this inner width on: on 80 columns the notes need the room.
const COUNTRY_FROM_WIDTH: u16 = 100;
const COUNTRY_WIDTH: u16 = 16;

/// With a Park column (theirs, of a park-to-park contact) after Mode, when a contact shown has
/// one: reports and the name give it room, so the notes (and `dupe`) still show on 80 columns.
const CONTACT_WIDTHS_WITH_PARK: [Constraint; 11] = [
    Constraint::Length(1),
    Constraint::Length(11),
    Constraint::Length(10),
    Constraint::Length(9),
    Constraint::Length(6),
    Constraint::Length(5),
    Constraint::Length(8),
    Constraint::Length(3),
    Constraint::Length(3),
    Constraint::Length(8),
    Constraint::Fill(1),
];

impl Widget for View<'_, ContactsPane> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let pane = self.state;
        let mut title = vec![Span::raw(contacts_title(pane))];
        if pane.load == Load::Loading && !pane.items.is_empty() {
            title.push(Span::styled(LOADING_MORE, self.theme.dim()));
        }
        let inner = self.frame(title, &pane.view, area, buf);
        if pane.folder.is_none() && pane.items.is_empty() {
            placeholder(
                inner,
                buf,
                "No folder open: select one in Folders and press Enter (m opens this month's log).",
                self.theme.dim(),
            );
            return;
        }
        if pane.items.is_empty() {
            let text = match &pane.load {
                Load::Failed(why) => format!("Contacts did not load: {why}"),
                Load::Loaded | Load::Idle => {
                    "No contacts yet: type a callsign to log one.".to_owned()
                }
                Load::Loading => "Loading contacts…".to_owned(),
            };
            placeholder(inner, buf, &text, self.theme.dim());
            return;
        }
        if let Some(text) = no_match(&pane.view) {
            placeholder(inner, buf, &text, self.theme.dim());
            return;
        }
        // Of the rows on screen only: a frame's cost must not grow with the folder.
        let visible = || {
            pane.view
                .shown
                .iter()
                .skip(pane.view.offset)
                .take(inner.height.saturating_sub(1) as usize)
        };
        let parks = visible().any(|&i| pane.items[i].sig_info.is_some());
        // The worked station's country, where the pane has room for it beside the notes.
        let countries = inner.width >= COUNTRY_FROM_WIDTH
            && visible().any(|&i| pane.items[i].fields.get(Field::Country).is_some());
        // The confirmations (LoTW, eQSL, QRZ, a card), where a contact on screen has one.
        let qsls = visible().any(|&i| !confirm::marks(&pane.items[i].fields).is_empty());
        let mut titles = vec![
            "", "UTC", "Call", "MHz", "Band", "Mode", "S", "R", "Name", "Notes",
        ];
        if parks {
            titles.insert(6, "Park");
        }
        if qsls {
            titles.insert(titles.len() - 2, "QSL");
        }
        if countries {
            titles.insert(titles.len() - 1, "Country");
        }
        let header = Row::new(titles).style(self.theme.header());
        let rows = pane
            .view
            .shown
            .iter()
            .enumerate()
            .skip(pane.view.offset)
            .take(inner.height.saturating_sub(1) as usize)
            .map(|(i, index)| {
                let c = &pane.items[*index];
                let style = self.row_style(i, &pane.view);
                let note = first_line(c.notes.as_deref().unwrap_or(""));
                // A duplicate (same call, band, mode, program and UTC day as an earlier one of
                // the folder) says so before its notes.
                let notes = match &c.duplicate_of {
                    Some(_) => Cell::from(Line::from(vec![
                        Span::styled("dupe ", self.theme.tone(Tone::Warning)),
                        Span::raw(note),
                    ])),
                    None => Cell::from(note),
                };
                let (mark, notes) = match pane.marks.get(&c.id) {
                    None => (self.external_mark(c), notes),
                    Some(Mark::Waiting) => (Cell::from("↑"), notes),
                    Some(Mark::Refused(why)) => (
                        Cell::from(Span::styled("✗", self.theme.tone(Tone::Error))),
                        Cell::from(Span::styled(why.as_str(), self.theme.tone(Tone::Error))),
                    ),
                };
                let mut cells = vec![
                    mark,
                    Cell::from(short_time(c.time_on)),
                    Cell::from(c.callsign.as_str()),
                    Cell::from(Line::from(mhz_text(c.frequency)).alignment(Alignment::Right)),
                    Cell::from(c.band.as_str()),
                    Cell::from(c.mode.as_str()),
                    Cell::from(c.rst_sent.as_deref().unwrap_or("")),
                    Cell::from(c.rst_received.as_deref().unwrap_or("")),
                    Cell::from(c.name.as_deref().unwrap_or("")),
                    notes,
                ];
                if parks {
                    cells.insert(6, Cell::from(c.sig_info.as_deref().unwrap_or("")));
                }
                if qsls {
                    let marks = confirm::marks(&c.fields);
                    cells.insert(
                        cells.len() - 2,
                        Cell::from(Span::styled(marks, self.theme.tone(Tone::Success))),
                    );
                }
                if countries {
                    let country = c.fields.get(Field::Country).unwrap_or("");
                    cells.insert(cells.len() - 1, Cell::from(country));
                }
                Row::new(cells).style(style)
            });
        let mut widths = if parks {
            CONTACT_WIDTHS_WITH_PARK.to_vec()
        } else {
            CONTACT_WIDTHS.to_vec()
        };
        if qsls {
            widths.insert(widths.len() - 2, Constraint::Length(QSL_WIDTH));
        }
        if countries {
            widths.insert(widths.len() - 1, Constraint::Length(COUNTRY_WIDTH));
        }
        let table = Table::new(rows, widths);
        table.header(header).render(inner, buf);
    }
}

impl View<'_, ContactsPane> {
    /// Where a stored contact went in the account's external logbooks (QRZ): `!` refused by
    /// one, `…` waiting for one, `✓` in all of them; nothing when it goes to none.
    fn external_mark(&self, c: &svc_model::Contact) -> Cell<'static> {
        let states = || c.external.iter().map(|e| e.state.as_str());
        if states().any(|s| s == "failed") {
            Cell::from(Span::styled("!", self.theme.tone(Tone::Error)))
        } else if states().any(|s| s == "waiting") {
            Cell::from(Span::styled("…", self.theme.dim()))
        } else if states().any(|s| s == "pushed") {
            Cell::from(Span::styled("✓", self.theme.tone(Tone::Success)))
        } else {
            Cell::from("")
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    const FOLDER: &str = "fld_aaaaaaaaaaaaaaaa";

    fn contact(id: &str, call: &str, minute: u32) -> Contact {
        let at = format!("2026-11-28T12:{minute:02}:00Z");
        serde_json::from_value(serde_json::json!({
            "id": id, "folderId": FOLDER, "callsign": call, "frequency": 14.025,
            "band": "20m", "mode": "CW", "timeOn": at, "createdAt": at,
        }))
        .unwrap()
    }

    fn page(items: Vec<Contact>, more: bool) -> Page<Contact> {
        Page {
            items,
            cursor: more.then(|| "next".to_owned()),
        }
    }

    fn calls(pane: &ContactsPane) -> Vec<&str> {
        pane.items.iter().map(|c| c.callsign.as_str()).collect()
    }

    #[test]
    fn a_poll_takes_away_what_another_logbook_deleted_and_nothing_else() {
        let mut pane = ContactsPane::default();
        let folder: Folder = serde_json::from_value(serde_json::json!({
            "id": FOLDER, "name": "W1AW CQ-WW-CW", "type": "contest", "parentId": null,
            "contactCount": 3, "createdAt": "2026-11-28T00:00:00Z",
        }))
        .unwrap();
        let _ = pane.open(folder);
        let (a, b, c) = (
            contact("qso_a", "K1AAA", 30),
            contact("qso_b", "K1BBB", 20),
            contact("qso_c", "K1CCC", 10),
        );
        pane.page_loaded(true, page(vec![a.clone(), b.clone(), c.clone()], false));
        // Stored here after that read: no read of the service has shown it yet.
        pane.items.insert(0, contact("qso_d", "K1DDD", 40));
        // A read of the newest page only (more follow) covers what is newer than its oldest:
        // B, deleted by another logbook, goes; D, stored here since, stays.
        let e = contact("qso_e", "K1EEE", 35);
        let newest = vec![e.clone(), a.clone(), c.clone()];
        assert_eq!(
            pane.take_new(FOLDER, page(newest, true)),
            2,
            "E joined, B went"
        );
        assert_eq!(calls(&pane), ["K1DDD", "K1EEE", "K1AAA", "K1CCC"]);
        // A page that reaches back less far leaves what is older than it: C stays.
        assert_eq!(
            pane.take_new(FOLDER, page(vec![e.clone(), a.clone()], true)),
            0
        );
        assert_eq!(calls(&pane), ["K1DDD", "K1EEE", "K1AAA", "K1CCC"]);
        // The whole log read: C is gone, and D, never shown by a read, stays.
        assert_eq!(pane.take_new(FOLDER, page(vec![e, a], false)), 1);
        assert_eq!(calls(&pane), ["K1DDD", "K1EEE", "K1AAA"]);
        // Another folder's answer changes nothing.
        assert_eq!(
            pane.take_new("fld_bbbbbbbbbbbbbbbb", page(vec![], false)),
            0
        );
        assert_eq!(pane.items.len(), 3);
    }
}
