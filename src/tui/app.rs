//! The logbook's state and how it changes: one [`App`], the [`Action`]s that reach it (keys,
//! resizes, the clock, answers of background requests) and [`update`], which changes the
//! state and names the requests to start as [`Effect`]s. Nothing here touches the network,
//! the disk or the clock, so every behaviour can be tested without a terminal.

use crate::model::band::mhz_text;
use std::collections::{HashMap, HashSet};

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use super::form::{ActivationForm, EntryForm, Field};
use super::journal::{JournalAnswer, JournalEffect};
use super::outbox::{JournalState, Mark, Outbox};
use super::rig::RigPanel;
use crate::client::export::Exported;
use crate::client::journal::{SenderEvent, is_local_folder_id};
use crate::client::rig::{RigAddress, RigCommand, RigState};
use crate::client::{
    ClientError, ContactEditRequest, Deleted, EditedContact, NewActivationRequest,
    NewContactRequest,
};
use crate::model::FieldsPatch;
use crate::model::Program;
use crate::model::activation::{ValidContact, valid_contacts};
// The model's declared fields, named apart from the form's own `Field`.
use crate::model::fields::Field as Declared;
use crate::model::folder::ROOT_NAME;
use crate::model::{Contact, ErrorCode, Folder, FolderType, Page, Timestamp, Whoami};

/// Contacts asked for per page.
pub const PAGE_SIZE: u32 = 100;
/// Contacts read from the journal's copy of a folder: enough for a day of logging, which the
/// duplicate check and the POTA count look at.
pub const COPY_LIMIT: u32 = 1000;
/// The next page is asked for when the cursor comes this close to the last loaded contact.
const PREFETCH: usize = 30;
/// Valid contacts a POTA activation needs.
pub const POTA_NEEDED: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Folders,
    Contacts,
    Activations,
}

impl Pane {
    // As on the screen: the two lists of the top band left to right, then Contacts below.
    const ORDER: [Pane; 3] = [Pane::Folders, Pane::Activations, Pane::Contacts];

    fn next(self, back: bool) -> Pane {
        let i = Pane::ORDER.iter().position(|p| *p == self).unwrap_or(0);
        Pane::ORDER[(i + if back { 2 } else { 1 }) % 3]
    }
}

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

impl ListView {
    /// The index (into the items) of the selected row.
    pub fn selected_item(&self) -> Option<usize> {
        self.shown.get(self.selected).copied()
    }

    fn refilter(&mut self, texts: impl Iterator<Item = String>) {
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
        self.clamp(0);
    }

    /// Keeps the selection in the list and on screen, for a viewport of `height` rows (0: as is).
    fn clamp(&mut self, height: usize) {
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
}

/// One line of the folder tree: the folder's index and its depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeRow {
    pub index: usize,
    pub depth: usize,
}

#[derive(Debug, Clone)]
pub struct FoldersPane {
    pub load: Load,
    pub items: Vec<Folder>,
    /// The tree in display order; the view's indices point into it.
    pub tree: Vec<TreeRow>,
    pub view: ListView,
    /// The folder shown in the contacts pane.
    pub open: Option<String>,
}

#[derive(Debug, Clone)]
pub struct ContactsPane {
    pub folder: Option<Folder>,
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
    pub view: ListView,
}

/// The valid contacts of an activation toward POTA's 10 (the model's rule).
#[derive(Debug, Clone, PartialEq)]
pub struct ActivationStats {
    pub load: Load,
    pub valid: HashSet<ValidContact>,
    /// A contact was logged or refused here since the service was asked: its answer may not
    /// show it yet, so it is added to what is counted, and the service is asked again.
    pub stale: bool,
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
}

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

#[derive(Debug, Clone, PartialEq)]
pub enum Connection {
    Connecting,
    Online,
    Offline,
    KeyRejected,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Info,
    Success,
    Warning,
    Error,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    pub text: String,
    pub tone: Tone,
    /// When it was said: an old message says how old it is.
    pub at: Timestamp,
}

/// The most rows the message line takes, so the panes keep their room at 24 lines.
pub const MESSAGE_ROWS: usize = 4;

/// What the message line says while `r` reloads; replaced once every answer is in.
const REFRESHING: &str = "refreshing…";

#[derive(Debug, Clone)]
pub enum Dialog {
    /// The entry form ([`App::entry`]) is shown.
    Entry,
    /// A refused contact opened to be fixed and sent again.
    Fix(Box<FixForm>),
    /// A stored contact opened to be edited on the service (a busted call fixed).
    Edit(Box<EditForm>),
    /// The entry form's folder is an activation that has ended: y logs into it all the same.
    ConfirmEnded {
        folder_id: String,
        label: String,
    },
    /// Removes a waiting or refused contact from the journal.
    ConfirmDiscard {
        id: String,
        label: String,
    },
    Activation(ActivationForm),
    ConfirmDelete {
        id: String,
        label: String,
    },
    ConfirmEnd {
        id: String,
        label: String,
    },
    /// Which of this month's logs `m` opens: the custom one or a program's hunting log.
    ChooseMonth,
    /// `q` with work in hand (a half-typed contact, entries waiting to go out): y quits.
    ConfirmQuit {
        question: String,
    },
    Help,
}

/// A stored contact in the entry form, to be changed on the service.
#[derive(Debug, Clone)]
pub struct EditForm {
    pub contact_id: String,
    /// The grid the stored contact has: a grid blanked in the form clears it, and a contact
    /// that had none is sent no change of it.
    pub stored_grid: Option<String>,
    pub form: EntryForm,
}

/// A refused journal entry in the entry form.
#[derive(Debug, Clone)]
pub struct FixForm {
    pub entry_id: String,
    /// Why the service refused it.
    pub refusal: String,
    pub form: EntryForm,
}

/// Where a list of contacts came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The journal's copy, read with no network: shown at once, replaced by the service's.
    Copy,
    Service,
}

/// How the logbook was started.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub color: bool,
    /// Shown in the status bar, e.g. `demo`.
    pub label: Option<String>,
    /// rigctld, whose radio the entry form follows.
    pub rig: Option<RigAddress>,
}

pub struct App {
    pub options: Options,
    pub now: Timestamp,
    /// Terminal size, for the pages the movement keys jump and the scroll positions.
    pub size: (u16, u16),
    pub focus: Pane,
    pub me: Option<Whoami>,
    pub me_load: Load,
    pub folders: FoldersPane,
    pub contacts: ContactsPane,
    pub activations: ActivationsPane,
    pub dialog: Option<Dialog>,
    /// Kept while hidden, so a contact that was not logged is never lost by closing the form.
    pub entry: Option<EntryForm>,
    /// Frequency and mode of the last contact logged, for the next form.
    pub last_frequency_mode: Option<(String, String)>,
    pub status: Option<Status>,
    pub connection: Connection,
    pub in_flight: usize,
    pub quit: bool,
    pub journal: JournalState,
    pub outbox: Outbox,
    /// When whoami is asked again while the account's journal is not known yet.
    pub whoami_retry: Option<Timestamp>,
    /// The radio, when the logbook was started with one.
    pub rig: Option<RigPanel>,
}

/// Work for the background: each becomes one task that answers with an [`Action`].
// One per key or answer, moved and dropped at once: boxing the larger variants buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    LoadWhoami,
    LoadFolders,
    /// A page of a folder's contacts. The first page is read from the journal's copy first,
    /// and the service's first page is saved there when `save_copy` (an activation's copy is
    /// its whole list, saved by [`Effect::LoadActivationContacts`]).
    LoadContacts {
        folder_id: String,
        cursor: Option<String>,
        generation: u64,
        save_copy: bool,
    },
    LoadActivations,
    /// Every contact of an activation folder, to count the valid ones: the copy first, then
    /// the service's, saved as the copy.
    LoadActivationContacts {
        folder_id: String,
    },
    /// Remembers in the journal which folder is open, to open it again at the next start.
    SaveOpenFolder {
        folder_id: String,
    },
    EditContact {
        id: String,
        request: ContactEditRequest,
    },
    DeleteContact {
        id: String,
    },
    EndActivation {
        id: String,
    },
    /// Writes a folder as ADIF (an activation as its POTA file) into the working directory.
    Export {
        folder: Folder,
        callsign: String,
    },
    /// Done on the journal before the next frame is drawn (a local commit takes about a
    /// millisecond), so what the screen shows as logged is on disk.
    Journal(JournalEffect),
    /// For the radio, through the rig poller's connection to rigctld.
    Rig(RigCommand),
}

// As for Effect: one per event, never stored.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Action {
    Key(KeyEvent),
    Resize(u16, u16),
    Tick(Timestamp),
    WhoamiLoaded(Result<Whoami, ClientError>),
    FoldersLoaded(Result<Vec<Folder>, ClientError>),
    ContactsLoaded {
        folder_id: String,
        generation: u64,
        source: Source,
        result: Result<Page<Contact>, ClientError>,
    },
    ActivationsLoaded(Result<Vec<Folder>, ClientError>),
    ActivationContactsLoaded {
        folder_id: String,
        source: Source,
        result: Result<Vec<Contact>, ClientError>,
    },
    ContactEdited {
        id: String,
        result: Result<EditedContact, ClientError>,
    },
    ContactDeleted {
        id: String,
        result: Result<Deleted, ClientError>,
    },
    ActivationEnded {
        id: String,
        result: Result<Folder, ClientError>,
    },
    Exported {
        name: String,
        result: Result<Exported, String>,
    },
    Journal(JournalAnswer),
    /// What the journal's background sender reports.
    Sender(SenderEvent),
    /// A reading of the radio by the rig poller, or why it failed.
    RigRead(Result<RigState, String>),
    /// Whether the service could be reached just now (the runtime asks every 2 s).
    LinkProbed(Result<(), ClientError>),
    /// What became of an [`Effect::Rig`].
    RigSent {
        command: RigCommand,
        result: Result<(), String>,
    },
}

/// Rows of the panes for a terminal of `size`: (folders and activations, contacts).
pub fn list_heights(size: (u16, u16), message_rows: u16) -> (usize, usize) {
    let screen = ratatui::layout::Rect::new(0, 0, size.0, size.1);
    let areas = super::ui::layout(screen, message_rows);
    (
        areas.folders.height.saturating_sub(2) as usize,
        areas.contacts.height.saturating_sub(3) as usize,
    )
}

fn folder_text(f: &Folder) -> String {
    format!("{} {}", f.name, f.folder_type.as_str())
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

fn activation_text(f: &Folder) -> String {
    format!(
        "{} {}",
        f.location_reference.as_deref().unwrap_or(""),
        f.name
    )
}

/// Whether contacts can be logged into the folder: not the root, not a category.
pub fn holds_contacts(f: &Folder) -> bool {
    f.folder_type != FolderType::Category
}

/// The folders as a tree: children under their parent in list order; folders whose parent is
/// unknown are shown at the top level.
pub fn build_tree(items: &[Folder]) -> Vec<TreeRow> {
    let ids: HashSet<&str> = items.iter().map(|f| f.id.as_str()).collect();
    let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut roots = Vec::new();
    for (i, f) in items.iter().enumerate() {
        match f
            .parent_id
            .as_deref()
            .filter(|p| ids.contains(p) && *p != f.id)
        {
            Some(parent) => children.entry(parent).or_default().push(i),
            None => roots.push(i),
        }
    }
    let mut rows = Vec::with_capacity(items.len());
    let mut seen = HashSet::new();
    // Folders in a cycle of damaged data are reached from no root: they start a tree of
    // their own after the others, so every folder shows once and nothing loops.
    for start in roots.into_iter().chain(0..items.len()) {
        let mut stack = vec![(start, 0)];
        while let Some((i, depth)) = stack.pop() {
            if !seen.insert(i) {
                continue;
            }
            rows.push(TreeRow { index: i, depth });
            if let Some(kids) = children.get(items[i].id.as_str()) {
                stack.extend(kids.iter().rev().map(|k| (*k, depth + 1)));
            }
        }
    }
    rows
}

/// A failure as the status line says it: the server's code and message, and what to do.
pub fn describe(e: &ClientError) -> String {
    match e {
        ClientError::Transport { message, attempts } => format!(
            "no answer from the service after {attempts} attempt{} ({message}); check the network, then press r",
            if *attempts == 1 { "" } else { "s" }
        ),
        ClientError::Server(s) => {
            let hint = match s.code() {
                Some(ErrorCode::Unauthorized | ErrorCode::KeyRevoked) => {
                    "; run svc auth login with a working key, then start svc again"
                }
                Some(ErrorCode::TierInsufficient) => "; then run svc auth login with it",
                _ => "",
            };
            // The service's own message may say it already.
            let hint = if s.message.contains("svc auth login") {
                ""
            } else {
                hint
            };
            format!("{}: {}{hint}", s.error, s.message)
        }
        ClientError::Unexpected { message, .. } => format!("unexpected_response: {message}"),
    }
}

fn is_key_error(e: &ClientError) -> bool {
    matches!(e, ClientError::Server(s)
        if matches!(s.code(), Some(ErrorCode::Unauthorized | ErrorCode::KeyRevoked)))
}

impl App {
    /// A new logbook and the requests that fill it.
    pub fn new(options: Options, now: Timestamp, size: (u16, u16)) -> (App, Vec<Effect>) {
        let rig = options.rig.clone().map(RigPanel::new);
        let mut app = App {
            options,
            now,
            size,
            focus: Pane::Folders,
            me: None,
            me_load: Load::Loading,
            folders: FoldersPane {
                load: Load::Loading,
                items: Vec::new(),
                tree: Vec::new(),
                view: ListView::default(),
                open: None,
            },
            contacts: ContactsPane {
                folder: None,
                load: Load::Idle,
                items: Vec::new(),
                marks: HashMap::new(),
                from_copy: false,
                cursor: None,
                generation: 0,
                view: ListView::default(),
            },
            activations: ActivationsPane {
                load: Load::Loading,
                items: Vec::new(),
                view: ListView::default(),
                stats: HashMap::new(),
                now,
            },
            dialog: None,
            entry: None,
            last_frequency_mode: None,
            status: None,
            connection: Connection::Connecting,
            in_flight: 0,
            quit: false,
            journal: JournalState::Opening,
            outbox: Outbox::default(),
            whoami_retry: None,
            rig,
        };
        let mut effects = vec![Effect::Journal(JournalEffect::Load)];
        let loads = [
            Effect::LoadWhoami,
            Effect::LoadFolders,
            Effect::LoadActivations,
        ];
        app.in_flight = loads.len();
        effects.extend(loads);
        (app, effects)
    }

    pub(super) fn say(&mut self, tone: Tone, text: impl Into<String>) {
        self.status = Some(Status {
            text: text.into(),
            tone,
            at: self.now,
        });
    }

    /// Records the outcome of a request: whether the service answered, and a failure's text.
    pub(super) fn answered<T>(&mut self, result: &Result<T, ClientError>) -> Option<String> {
        self.in_flight = self.in_flight.saturating_sub(1);
        if self.in_flight == 0 && self.status.as_ref().is_some_and(|s| s.text == REFRESHING) {
            self.say(Tone::Info, "refreshed");
        }
        match result {
            Ok(_) => {
                if self.connection != Connection::KeyRejected {
                    self.connection = Connection::Online;
                }
                None
            }
            Err(e) => {
                self.connection = match e {
                    ClientError::Transport { .. } => Connection::Offline,
                    e if is_key_error(e) => Connection::KeyRejected,
                    _ => Connection::Online,
                };
                let text = describe(e);
                self.say(Tone::Error, text.clone());
                Some(text)
            }
        }
    }

    pub(super) fn heights(&self) -> (usize, usize) {
        list_heights(self.size, self.message_rows(self.size.0))
    }

    /// Rows the message line takes: as many as the newest message needs to be read whole at
    /// this width (up to [`MESSAGE_ROWS`]), so an error's reason is never cut off.
    pub fn message_rows(&self, width: u16) -> u16 {
        match &self.status {
            Some(s) => super::ui::message_lines(&s.text, width)
                .len()
                .clamp(1, MESSAGE_ROWS) as u16,
            None => 1,
        }
    }

    /// `e` in Contacts: the selected stored contact in the form, to be changed on the service.
    fn open_edit(&mut self) -> Vec<Effect> {
        let Some(contact) = self.selected_contact().cloned() else {
            self.say(Tone::Warning, "no contact selected");
            return vec![];
        };
        if self.contacts.marks.contains_key(&contact.id) {
            self.say(
                Tone::Warning,
                "this contact is still in the journal: Enter on a ✗ one fixes it, a ↑ one goes out as it is",
            );
            return vec![];
        }
        if self.connection == Connection::Offline {
            self.say(
                Tone::Warning,
                "editing a stored contact needs the service: wait for the link (Alt-R tries now)",
            );
            return vec![];
        }
        let request = NewContactRequest {
            folder_id: contact.folder_id.clone(),
            callsign: contact.callsign.clone(),
            frequency: contact.frequency,
            mode: contact.mode.clone(),
            time_on: contact.time_on.to_string(),
            rst_sent: contact.rst_sent.clone(),
            rst_received: contact.rst_received.clone(),
            name: contact.name.clone(),
            notes: contact.notes.clone(),
            sig: contact.sig.clone(),
            sig_info: contact.sig_info.clone(),
            my_sig: None,
            my_sig_info: None,
            station_callsign: None,
            fields: contact.fields.clone(),
        };
        let mut form = EntryForm::from_request(&contact.folder_id, &contact.folder_id, &request);
        if let Some(folder) = self
            .folders
            .items
            .iter()
            .chain(self.contacts.folder.iter())
            .find(|f| f.id == contact.folder_id)
        {
            form.set_folder(folder);
        }
        self.dialog = Some(Dialog::Edit(Box::new(EditForm {
            contact_id: contact.id,
            stored_grid: contact.fields.get(Declared::Gridsquare).map(str::to_owned),
            form,
        })));
        vec![]
    }

    /// The activation of today that `request` names, when the list holds it.
    fn todays_activation(&self, request: &NewActivationRequest) -> Option<Folder> {
        let today = self.now.utc_day();
        self.activations
            .items
            .iter()
            .find(|a| {
                a.location_reference.as_deref() == Some(request.location_reference.as_str())
                    && a.callsign.as_deref() == Some(request.callsign.as_str())
                    && a.program_id.as_deref() == request.program_id.as_deref()
                    && a.start_time.map(Timestamp::utc_day) == Some(today)
            })
            .cloned()
    }

    /// The valid counts of the activation `folder_id`, once its contacts are in.
    pub fn meter(&self, folder_id: &str) -> Option<Meter> {
        self.activations.meter(folder_id)
    }

    pub fn selected_folder(&self) -> Option<&Folder> {
        let row = self.folders.view.selected_item()?;
        self.folders.items.get(self.folders.tree.get(row)?.index)
    }

    pub fn selected_contact(&self) -> Option<&Contact> {
        self.contacts.items.get(self.contacts.view.selected_item()?)
    }

    pub fn selected_activation(&self) -> Option<&Folder> {
        self.activations
            .items
            .get(self.activations.view.selected_item()?)
    }

    pub(super) fn refilter_folders(&mut self) {
        let texts: Vec<String> = self
            .folders
            .tree
            .iter()
            .map(|r| folder_text(&self.folders.items[r.index]))
            .collect();
        self.folders.view.refilter(texts.into_iter());
        let h = self.heights().0;
        self.folders.view.clamp(h);
    }

    pub(super) fn refilter_contacts(&mut self) {
        let items = &self.contacts.items;
        self.contacts.view.refilter(items.iter().map(contact_text));
        let h = self.heights().1;
        self.contacts.view.clamp(h);
    }

    pub(super) fn refilter_activations(&mut self) {
        let items = &self.activations.items;
        self.activations
            .view
            .refilter(items.iter().map(activation_text));
        let h = self.heights().0;
        self.activations.view.clamp(h);
    }

    /// Opens `folder` in the contacts pane and asks for its first page.
    pub(super) fn open_folder(&mut self, folder: Folder) -> Vec<Effect> {
        let changed = self.folders.open.as_deref() != Some(folder.id.as_str());
        self.folders.open = Some(folder.id.clone());
        self.contacts.generation += 1;
        self.contacts.items.clear();
        self.contacts.marks.clear();
        self.contacts.from_copy = false;
        self.contacts.cursor = None;
        self.contacts.view = ListView::default();
        self.contacts.load = Load::Loading;
        let folder_id = folder.id.clone();
        let effect = Effect::LoadContacts {
            folder_id: folder.id.clone(),
            cursor: None,
            generation: self.contacts.generation,
            save_copy: folder.folder_type != FolderType::Activation,
        };
        // A folder logged here with no link exists only in the journal: nothing to ask.
        if !is_local_folder_id(&folder.id) {
            self.in_flight += 1;
        }
        self.contacts.folder = Some(folder);
        self.merge_pending();
        let mut effects = vec![effect];
        if changed {
            effects.push(Effect::SaveOpenFolder { folder_id });
        }
        effects
    }

    /// Asks for the next page when the cursor is near the end of what is loaded, or when the
    /// entry form's duplicate check needs contacts of today that are not loaded yet.
    fn more_contacts(&mut self) -> Vec<Effect> {
        let (Some(folder), Some(cursor)) = (&self.contacts.folder, &self.contacts.cursor) else {
            return vec![];
        };
        if self.contacts.load == Load::Loading {
            return vec![];
        }
        let near_end = self.contacts.view.shown.len() <= self.contacts.view.selected + PREFETCH;
        // Contacts come newest first: while the oldest loaded is from today, older pages may
        // still hold today's contacts, which the duplicate check must see.
        let form_needs_today = matches!(&self.entry, Some(e) if e.folder_id == folder.id)
            && self
                .contacts
                .items
                .last()
                .is_none_or(|c| c.time_on.utc_day() >= self.now.utc_day());
        if !near_end && !form_needs_today {
            return vec![];
        }
        self.contacts.load = Load::Loading;
        self.in_flight += 1;
        vec![Effect::LoadContacts {
            folder_id: folder.id.clone(),
            cursor: Some(cursor.clone()),
            generation: self.contacts.generation,
            save_copy: false,
        }]
    }

    fn refresh(&mut self) -> Vec<Effect> {
        let mut effects = vec![
            Effect::LoadWhoami,
            Effect::LoadFolders,
            Effect::LoadActivations,
        ];
        self.me_load = Load::Loading;
        self.folders.load = Load::Loading;
        self.activations.load = Load::Loading;
        self.in_flight += effects.len();
        if let Some(folder) = self.contacts.folder.clone() {
            effects.extend(self.open_folder(folder));
        }
        self.say(Tone::Info, REFRESHING);
        effects
    }

    fn open_entry(&mut self) -> Vec<Effect> {
        if let Some(why) = self.journal.cannot_log() {
            self.say(Tone::Warning, why);
            return vec![];
        }
        let Some(folder) = self.contacts.folder.clone() else {
            self.say(
                Tone::Warning,
                "open a folder first: select it in Folders and press Enter (m makes this month's log)",
            );
            return vec![];
        };
        if !holds_contacts(&folder) {
            let what = if folder.parent_id.is_none() && folder.name == ROOT_NAME {
                "the root container"
            } else {
                "a category folder"
            };
            self.say(
                Tone::Warning,
                format!(
                    "{} is {what} and holds no contacts; open a monthly or activation folder (m makes this month's log)",
                    folder.name
                ),
            );
            return vec![];
        }
        let (frequency, mode) = self
            .last_frequency_mode
            .clone()
            .or_else(|| {
                self.contacts
                    .items
                    .first()
                    .map(|c| (mhz_text(c.frequency), c.mode.clone()))
            })
            .unwrap_or_default();
        match &mut self.entry {
            // The form reopens on the callsign, whatever field was last used: what is typed
            // next is a call far more often than anything else.
            Some(form) if form.folder_id == folder.id => form.focus = Field::Callsign,
            // Typed text follows the user to the newly opened folder.
            Some(form) => {
                form.set_folder(&folder);
                form.focus = Field::Callsign;
            }
            None => {
                let mut form = EntryForm::new(&folder.id, &folder.name, &frequency, &mode);
                form.set_folder(&folder);
                self.entry = Some(form);
                self.follow_rig();
            }
        }
        if let Some(label) = self.ended_activation(&folder.id) {
            self.say(
                Tone::Warning,
                format!("{label} has ended; Enter asks before logging into it"),
            );
        }
        self.dialog = Some(Dialog::Entry);
        self.check_duplicate();
        self.more_contacts()
    }

    pub(super) fn check_duplicate(&mut self) {
        let Some(form) = &self.entry else { return };
        let same_folder = self
            .contacts
            .folder
            .as_ref()
            .is_some_and(|f| f.id == form.folder_id);
        let marks = &self.contacts.marks;
        // Stored and waiting contacts count alike; a refused one is not in the log.
        let logged = self
            .contacts
            .items
            .iter()
            .filter(|c| !matches!(marks.get(&c.id), Some(Mark::Refused(_))));
        let duplicate = same_folder
            .then(|| form.find_duplicate(logged, self.now))
            .flatten()
            .map(|c| {
                format!(
                    "duplicate: {} {} {} logged today at {} UTC; Enter logs it anyway",
                    c.callsign,
                    c.band,
                    c.mode,
                    hhmm(c.time_on)
                )
            });
        if let Some(form) = &mut self.entry {
            form.duplicate = duplicate;
        }
    }

    /// The label of the folder `id` when it is an activation that has ended.
    fn ended_activation(&self, id: &str) -> Option<String> {
        self.activations
            .items
            .iter()
            .chain(self.folders.items.iter())
            .find(|f| f.id == id)
            .filter(|f| f.folder_type == FolderType::Activation && !f.in_progress())
            .map(|f| {
                f.location_reference
                    .clone()
                    .unwrap_or_else(|| f.name.clone())
            })
    }

    /// Checks the form and hands the contact to the journal. An ended activation is asked
    /// about once per form and folder: logging into it from paper afterwards is common, and a
    /// question on every contact would be noise.
    fn submit_entry(&mut self) -> Vec<Effect> {
        let now = self.now;
        let ended = self.entry.as_ref().and_then(|f| {
            self.ended_activation(&f.folder_id)
                .map(|l| (f.folder_id.clone(), l))
        });
        let Some(form) = &mut self.entry else {
            return vec![];
        };
        let requests = match form.requests(now) {
            Ok(requests) => requests,
            Err((field, message)) => {
                self.say(Tone::Error, fault(field, &message));
                return vec![];
            }
        };
        if let Some((folder_id, label)) = ended
            && form.ended_ok.as_deref() != Some(folder_id.as_str())
        {
            self.dialog = Some(Dialog::ConfirmEnded { folder_id, label });
            return vec![];
        }
        requests
            .into_iter()
            .map(|request| Effect::Journal(JournalEffect::LogContact(request)))
            .collect()
    }

    /// The contact a stored or waiting row stands for, for the activation count.
    pub(super) fn count_toward_activation(&mut self, contact: &Contact) {
        if let Some(activation) = self
            .activations
            .items
            .iter()
            .find(|a| a.id == contact.folder_id)
            && let Some(stats) = self.activations.stats.get_mut(&activation.id)
        {
            stats.valid.extend(valid_contacts(activation, [contact]));
            stats.stale = true;
        }
    }

    fn dialog_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(dialog) = self.dialog.take() else {
            return vec![];
        };
        match dialog {
            Dialog::Help => {
                // Any key closes the help; q and Ctrl-C were handled before.
                vec![]
            }
            Dialog::ConfirmDelete { id, label } => {
                if key.code == KeyCode::Char('y') {
                    self.say(Tone::Info, format!("deleting {label}…"));
                    self.in_flight += 1;
                    vec![Effect::DeleteContact { id }]
                } else {
                    self.say(Tone::Info, format!("kept {label}"));
                    vec![]
                }
            }
            Dialog::ConfirmEnded { folder_id, label } => {
                self.dialog = Some(Dialog::Entry);
                if key.code == KeyCode::Char('y') {
                    if let Some(form) = &mut self.entry {
                        form.ended_ok = Some(folder_id);
                    }
                    self.submit_entry()
                } else {
                    self.say(
                        Tone::Info,
                        format!("not logged into {label}, which has ended; the form keeps it"),
                    );
                    vec![]
                }
            }
            Dialog::ConfirmDiscard { id, label } => {
                if key.code == KeyCode::Char('y') {
                    vec![Effect::Journal(JournalEffect::Discard { id })]
                } else {
                    self.say(Tone::Info, format!("kept {label} in the journal"));
                    vec![]
                }
            }
            Dialog::Edit(mut edit) => match form_key(&mut edit.form, key) {
                FormKey::Close => {
                    self.say(Tone::Info, "the contact stays as it was");
                    vec![]
                }
                FormKey::Submit => match edit.form.request(self.now) {
                    Ok(request) => {
                        let id = edit.contact_id.clone();
                        self.say(Tone::Info, format!("saving {}…", request.callsign));
                        let request = edit_request(request, edit.stored_grid.as_deref());
                        // Open until the service answers: a refusal leaves the text to fix.
                        self.dialog = Some(Dialog::Edit(edit));
                        self.in_flight += 1;
                        vec![Effect::EditContact { id, request }]
                    }
                    Err((field, message)) => {
                        self.say(Tone::Error, fault(field, &message));
                        self.dialog = Some(Dialog::Edit(edit));
                        vec![]
                    }
                },
                FormKey::Edited(_) | FormKey::Stay => {
                    self.dialog = Some(Dialog::Edit(edit));
                    vec![]
                }
            },
            Dialog::Fix(mut fix) => match form_key(&mut fix.form, key) {
                FormKey::Close => {
                    self.say(Tone::Info, "the refused contact stays as it was");
                    vec![]
                }
                FormKey::Submit => match fix.form.request(self.now) {
                    Ok(request) => {
                        let id = fix.entry_id.clone();
                        // Open until the journal has it: a failure leaves the text to fix.
                        self.dialog = Some(Dialog::Fix(fix));
                        vec![Effect::Journal(JournalEffect::Retry { id, request })]
                    }
                    Err((field, message)) => {
                        self.say(Tone::Error, fault(field, &message));
                        self.dialog = Some(Dialog::Fix(fix));
                        vec![]
                    }
                },
                FormKey::Edited(_) | FormKey::Stay => {
                    self.dialog = Some(Dialog::Fix(fix));
                    vec![]
                }
            },
            Dialog::ChooseMonth => {
                let program = match key.code {
                    KeyCode::Char('m') | KeyCode::Enter => None,
                    KeyCode::Char('p') => Some(Program::Pota),
                    KeyCode::Char('d') => Some(Program::Dx),
                    KeyCode::Char('r') => Some(Program::Repeaters),
                    _ => return vec![],
                };
                // Through the journal with a link or without: it finds the log in its copy,
                // or makes a local one that the sender creates on the service.
                vec![Effect::Journal(JournalEffect::LogMonthly {
                    month: self.now.utc_month(),
                    program,
                })]
            }
            Dialog::ConfirmQuit { .. } => {
                if key.code == KeyCode::Char('y') {
                    self.quit = true;
                } else {
                    self.say(Tone::Info, "svc goes on");
                }
                vec![]
            }
            Dialog::ConfirmEnd { id, label } => {
                if key.code == KeyCode::Char('y') {
                    self.say(Tone::Info, format!("ending activation {label}…"));
                    self.in_flight += 1;
                    vec![Effect::EndActivation { id }]
                } else {
                    self.say(Tone::Info, format!("activation {label} goes on"));
                    vec![]
                }
            }
            Dialog::Activation(mut form) => {
                let effects = match key.code {
                    KeyCode::Esc => return vec![],
                    KeyCode::Tab | KeyCode::Down => {
                        form.next_field(false);
                        vec![]
                    }
                    KeyCode::BackTab | KeyCode::Up => {
                        form.next_field(true);
                        vec![]
                    }
                    KeyCode::Enter => match form.request() {
                        // One activation per program, callsign, park and UTC day: the one of
                        // today is opened as it is, ended or not, rather than logged again.
                        Ok(request) if let Some(known) = self.todays_activation(&request) => {
                            return self.folder_logged(None, known);
                        }
                        Ok(mut request) => {
                            // The activation starts now, whenever the service hears of it.
                            request.start_time = Some(self.now.to_string());
                            vec![Effect::Journal(JournalEffect::LogActivation(request))]
                        }
                        Err((field, message)) => {
                            form.focus = field;
                            self.say(Tone::Error, message);
                            vec![]
                        }
                    },
                    _ => {
                        form.edit(&Event::Key(key));
                        vec![]
                    }
                };
                self.dialog = Some(Dialog::Activation(form));
                effects
            }
            Dialog::Entry => {
                let Some(form) = &mut self.entry else {
                    return vec![];
                };
                self.dialog = Some(Dialog::Entry);
                // Alt-W wipes the contact being typed, as in N1MM+: call, name, grid, notes,
                // park and time, the reports back to the mode's; frequency and mode stay.
                if key.code == KeyCode::Char('w') && key.modifiers.contains(KeyModifiers::ALT) {
                    form.clear_for_next();
                    self.say(Tone::Info, "the form is cleared for a new contact");
                    return vec![];
                }
                match form_key(form, key) {
                    FormKey::Close => {
                        self.dialog = None;
                        vec![]
                    }
                    FormKey::Submit => self.submit_entry(),
                    FormKey::Edited(field) => {
                        // The fields of the duplicate key.
                        if matches!(
                            field,
                            Field::Callsign
                                | Field::Frequency
                                | Field::Mode
                                | Field::Time
                                | Field::Park
                        ) {
                            self.check_duplicate();
                        }
                        vec![]
                    }
                    FormKey::Stay => vec![],
                }
            }
        }
    }

    /// Keys while a pane's filter is being typed.
    fn filter_key(&mut self, key: KeyEvent) {
        let pane = self.focus;
        let view = match pane {
            Pane::Folders => &mut self.folders.view,
            Pane::Contacts => &mut self.contacts.view,
            Pane::Activations => &mut self.activations.view,
        };
        let Some(input) = &mut view.filter_input else {
            return;
        };
        match key.code {
            KeyCode::Esc => {
                view.filter_input = None;
                view.filter.clear();
            }
            KeyCode::Enter => {
                view.filter_input = None;
                view.selected = 0;
                view.offset = 0;
            }
            _ => {
                input.handle_event(&Event::Key(key));
                view.filter = input.value().to_owned();
            }
        }
        match pane {
            Pane::Folders => self.refilter_folders(),
            Pane::Contacts => self.refilter_contacts(),
            Pane::Activations => self.refilter_activations(),
        }
        if key.code == KeyCode::Enter {
            let view = match pane {
                Pane::Folders => &self.folders.view,
                Pane::Contacts => &self.contacts.view,
                Pane::Activations => &self.activations.view,
            };
            if view.shown.is_empty() {
                let filter = view.filter.clone();
                self.say(
                    Tone::Warning,
                    format!("nothing matches {filter:?}; / and Esc clear the filter"),
                );
            }
        }
    }

    fn move_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let (side, contacts) = self.heights();
        let (view, height) = match self.focus {
            Pane::Folders => (&mut self.folders.view, side),
            Pane::Contacts => (&mut self.contacts.view, contacts),
            Pane::Activations => (&mut self.activations.view, side),
        };
        let page = height.max(1) as isize;
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => view.step(-1, height),
            KeyCode::Down | KeyCode::Char('j') => view.step(1, height),
            KeyCode::PageUp => view.step(-page, height),
            KeyCode::PageDown => view.step(page, height),
            KeyCode::Home | KeyCode::Char('g') => view.go(0, height),
            KeyCode::End | KeyCode::Char('G') => view.go(isize::MAX, height),
            _ => {}
        }
        match self.focus {
            Pane::Contacts => {
                self.tell_refusal();
                self.more_contacts()
            }
            Pane::Activations => self.activation_stats(),
            Pane::Folders => vec![],
        }
    }

    /// Asks for the contacts of the selected activation when its count is not known yet.
    fn activation_stats(&mut self) -> Vec<Effect> {
        let Some(a) = self.selected_activation() else {
            return vec![];
        };
        let id = a.id.clone();
        if self.activations.stats.contains_key(&id) {
            return vec![];
        }
        self.load_stats(id)
    }

    /// What `q` asks before quitting, if anything would be left half done.
    fn quit_question(&self) -> Option<String> {
        let typed = self.entry.as_ref().and_then(|form| {
            let call = form.value(Field::Callsign).trim().to_owned();
            let other = [Field::Name, Field::Grid, Field::Notes, Field::Park]
                .iter()
                .any(|f| !form.value(*f).trim().is_empty());
            (!call.is_empty() || other).then_some(call)
        });
        let waiting = self.outbox.counts.waiting;
        let mut parts = Vec::new();
        match typed {
            Some(call) if !call.is_empty() => {
                parts.push(format!("{call} is typed in the form and not logged"));
            }
            Some(_) => parts.push("the form holds text not logged".to_owned()),
            None => {}
        }
        if waiting > 0 {
            parts.push(format!(
                "{waiting} waiting to go out (kept in the journal for next time)"
            ));
        }
        (!parts.is_empty()).then(|| format!("Quit? {}.", parts.join("; ")))
    }

    /// Whether a log is open in Contacts: a folder that takes contacts. Letters and digits
    /// then type a callsign, and the commands take Alt.
    pub fn log_open(&self) -> bool {
        self.contacts.folder.as_ref().is_some_and(holds_contacts)
    }

    /// The command a key names: Alt and a letter anywhere, or the plain letter while no log is
    /// open (with one open, plain letters are a callsign's).
    fn command(&self, key: &KeyEvent) -> Option<char> {
        let KeyCode::Char(c) = key.code else {
            return None;
        };
        if key.modifiers.contains(KeyModifiers::CONTROL) {
            return None;
        }
        if key.modifiers.contains(KeyModifiers::ALT) {
            return Some(c);
        }
        (!self.log_open() || !c.is_ascii_alphanumeric()).then_some(c)
    }

    /// A letter or digit typed with a log open and the form closed: the form opens on the
    /// callsign with it, whatever pane has focus, so a call typed after Esc is never taken as
    /// commands.
    fn start_typing(&mut self, key: KeyEvent) -> Vec<Effect> {
        let effects = self.open_entry();
        if matches!(self.dialog, Some(Dialog::Entry))
            && let Some(form) = &mut self.entry
            && let FormKey::Edited(_) = form_key(form, key)
        {
            self.check_duplicate();
        }
        effects
    }

    fn key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if key.kind == KeyEventKind::Release {
            return vec![];
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let typing = matches!(
            self.dialog,
            Some(Dialog::Entry | Dialog::Fix(_) | Dialog::Edit(_) | Dialog::Activation(_))
        );
        let quit_key = (ctrl && key.code == KeyCode::Char('c'))
            || (key.code == KeyCode::Char('q')
                && !ctrl
                && (alt || (!typing && !self.filtering() && !self.log_open())));
        if quit_key {
            // A key that quits must not drop a half-typed contact, nor leave with contacts
            // still to send without a word: it asks then. Ctrl-C is meant; it quits. Nothing
            // entered is only in memory: the journal holds it, and what it holds is told once
            // the terminal is back.
            if !ctrl
                && !matches!(self.dialog, Some(Dialog::ConfirmQuit { .. }))
                && let Some(question) = self.quit_question()
            {
                self.dialog = Some(Dialog::ConfirmQuit { question });
                return vec![];
            }
            self.quit = true;
            return vec![];
        }
        // The radio's keys work in the entry form too, where plain letters are text.
        if alt && matches!(self.dialog, Some(Dialog::Entry)) {
            match key.code {
                KeyCode::Char('f' | 'F') => return self.send_to_rig(Field::Frequency),
                KeyCode::Char('M') => return self.send_to_rig(Field::Mode),
                _ => {}
            }
        }
        if self.dialog.is_some() {
            return self.dialog_key(key);
        }
        if self.filtering() {
            self.filter_key(key);
            return match self.focus {
                Pane::Contacts => self.more_contacts(),
                _ => vec![],
            };
        }
        if let KeyCode::Char(c) = key.code
            && !ctrl
            && !alt
            && c.is_ascii_alphanumeric()
            && self.log_open()
        {
            return self.start_typing(key);
        }
        if let Some(c) = self.command(&key) {
            return self.command_key(c, key);
        }
        match key.code {
            KeyCode::Tab => {
                self.focus = self.focus.next(false);
                vec![]
            }
            KeyCode::BackTab => {
                self.focus = self.focus.next(true);
                vec![]
            }
            KeyCode::Esc => {
                let view = match self.focus {
                    Pane::Folders => &mut self.folders.view,
                    Pane::Contacts => &mut self.contacts.view,
                    Pane::Activations => &mut self.activations.view,
                };
                if view.filter.is_empty() {
                    return vec![];
                }
                view.filter.clear();
                match self.focus {
                    Pane::Folders => self.refilter_folders(),
                    Pane::Contacts => self.refilter_contacts(),
                    Pane::Activations => self.refilter_activations(),
                }
                vec![]
            }
            KeyCode::Enter => self.enter(),
            KeyCode::Up
            | KeyCode::Down
            | KeyCode::PageUp
            | KeyCode::PageDown
            | KeyCode::Home
            | KeyCode::End => self.move_key(key),
            _ => vec![],
        }
    }

    /// The main screen's commands, by their letter (see [`App::command`]).
    fn command_key(&mut self, c: char, key: KeyEvent) -> Vec<Effect> {
        match c {
            '?' => {
                self.dialog = Some(Dialog::Help);
                vec![]
            }
            'r' => self.refresh(),
            'n' => self.open_entry(),
            'a' => {
                if let Some(why) = self.journal.cannot_log() {
                    self.say(Tone::Warning, why);
                    return vec![];
                }
                let call = self
                    .me
                    .as_ref()
                    .map(|m| m.callsign.clone())
                    .unwrap_or_default();
                self.dialog = Some(Dialog::Activation(ActivationForm::new(&call)));
                vec![]
            }
            'm' => {
                if let Some(why) = self.journal.cannot_log() {
                    self.say(Tone::Warning, why);
                    return vec![];
                }
                self.dialog = Some(Dialog::ChooseMonth);
                vec![]
            }
            '/' => {
                let view = match self.focus {
                    Pane::Folders => &mut self.folders.view,
                    Pane::Contacts => &mut self.contacts.view,
                    Pane::Activations => &mut self.activations.view,
                };
                // A new filter replaces the one that applies, rather than adding to it.
                view.filter_input = Some(Input::default());
                view.filter.clear();
                match self.focus {
                    Pane::Folders => self.refilter_folders(),
                    Pane::Contacts => self.refilter_contacts(),
                    Pane::Activations => self.refilter_activations(),
                }
                vec![]
            }
            'd' => {
                if self.focus != Pane::Contacts {
                    self.say(
                        Tone::Warning,
                        "Alt-D deletes a contact: Tab to Contacts and select it first",
                    );
                    return vec![];
                }
                match self.selected_contact() {
                    Some(c) if self.contacts.marks.contains_key(&c.id) => {
                        let label = format!("{} at {}", c.callsign, short_time(c.time_on));
                        self.dialog = Some(Dialog::ConfirmDiscard {
                            id: c.id.clone(),
                            label,
                        });
                    }
                    Some(c) => {
                        let label = format!(
                            "{} {} {} at {}",
                            c.callsign,
                            c.band,
                            c.mode,
                            short_time(c.time_on)
                        );
                        self.dialog = Some(Dialog::ConfirmDelete {
                            id: c.id.clone(),
                            label,
                        });
                    }
                    None => self.say(Tone::Warning, "no contact selected"),
                }
                vec![]
            }
            'x' => self.export_key(),
            'F' | 'f' if key.modifiers.contains(KeyModifiers::ALT) || c == 'F' => {
                self.send_to_rig(Field::Frequency)
            }
            'M' => self.send_to_rig(Field::Mode),
            'e' if self.focus == Pane::Contacts => self.open_edit(),
            'e' => {
                if self.focus != Pane::Activations {
                    self.say(
                        Tone::Warning,
                        "Alt-E edits the selected contact (in Contacts) or ends the selected activation (in Activations)",
                    );
                    return vec![];
                }
                match self.selected_activation() {
                    Some(a) if a.in_progress() => {
                        let label = a
                            .location_reference
                            .clone()
                            .unwrap_or_else(|| a.name.clone());
                        self.dialog = Some(Dialog::ConfirmEnd {
                            id: a.id.clone(),
                            label,
                        });
                    }
                    Some(a) => {
                        let name = a.name.clone();
                        self.say(Tone::Warning, format!("{name} has ended already"));
                    }
                    None => self.say(Tone::Warning, "no activation selected"),
                }
                vec![]
            }
            'j' | 'k' | 'g' | 'G' => self.move_key(key),
            _ => vec![],
        }
    }

    fn filtering(&self) -> bool {
        let view = match self.focus {
            Pane::Folders => &self.folders.view,
            Pane::Contacts => &self.contacts.view,
            Pane::Activations => &self.activations.view,
        };
        view.filter_input.is_some()
    }

    fn enter(&mut self) -> Vec<Effect> {
        match self.focus {
            Pane::Folders => match self.selected_folder().cloned() {
                Some(f) => self.open_folder(f),
                None => vec![],
            },
            Pane::Activations => match self.selected_activation().cloned() {
                Some(a) => {
                    // The same folder as in the tree: select it there too.
                    self.select_folder(&a.id);
                    self.open_folder(a)
                }
                None => vec![],
            },
            Pane::Contacts => {
                self.open_pending();
                vec![]
            }
        }
    }

    fn folders_loaded(&mut self, result: Result<Vec<Folder>, ClientError>) -> Vec<Effect> {
        let failure = self.answered(&result);
        match result {
            Ok(items) => self.set_folders(with_local(items, &self.folders.items)),
            // What the copy showed stays on screen.
            Err(_) if self.folders.load == Load::Loaded => {}
            Err(_) => self.folders.load = Load::Failed(failure.unwrap_or_default()),
        }
        vec![]
    }

    /// Shows `items` as the folder tree, keeping the selection and the open folder.
    pub(super) fn set_folders(&mut self, items: Vec<Folder>) {
        let selected = self.selected_folder().map(|f| f.id.clone());
        self.folders.items = items;
        self.folders.tree = build_tree(&self.folders.items);
        self.folders.load = Load::Loaded;
        self.refilter_folders();
        if let Some(id) = selected {
            self.select_folder(&id);
        }
        if let Some(open) = &self.contacts.folder
            && let Some(fresh) = self.folders.items.iter().find(|f| f.id == open.id)
        {
            self.contacts.folder = Some(fresh.clone());
        }
    }

    pub(super) fn select_folder(&mut self, id: &str) {
        let row = self
            .folders
            .tree
            .iter()
            .position(|r| self.folders.items[r.index].id == id);
        if let Some(p) = row.and_then(|r| self.folders.view.shown.iter().position(|i| *i == r)) {
            self.folders.view.selected = p;
            let h = self.heights().0;
            self.folders.view.clamp(h);
        }
    }

    fn contacts_loaded(
        &mut self,
        folder_id: String,
        generation: u64,
        source: Source,
        result: Result<Page<Contact>, ClientError>,
    ) -> Vec<Effect> {
        let failure = match source {
            Source::Service => self.answered(&result),
            Source::Copy => None,
        };
        let current = generation == self.contacts.generation
            && self
                .contacts
                .folder
                .as_ref()
                .is_some_and(|f| f.id == folder_id);
        if !current {
            return vec![];
        }
        match (source, result) {
            (Source::Copy, Ok(page)) => {
                let marks = &self.contacts.marks;
                self.contacts.items.retain(|c| marks.contains_key(&c.id));
                self.contacts.items.extend(page.items);
                self.contacts.from_copy = true;
                if is_local_folder_id(&folder_id) {
                    // No more than the copy and the journal exists of it.
                    self.contacts.load = Load::Loaded;
                }
                self.merge_pending();
                self.check_duplicate();
                vec![]
            }
            (Source::Service, Ok(page)) => {
                if std::mem::take(&mut self.contacts.from_copy) {
                    let marks = &self.contacts.marks;
                    self.contacts.items.retain(|c| marks.contains_key(&c.id));
                }
                let known: HashSet<String> =
                    self.contacts.items.iter().map(|c| c.id.clone()).collect();
                // A contact logged here meanwhile may come again in a page.
                self.contacts
                    .items
                    .extend(page.items.into_iter().filter(|c| !known.contains(&c.id)));
                self.contacts.cursor = page.cursor;
                self.contacts.load = Load::Loaded;
                self.merge_pending();
                self.check_duplicate();
                self.more_contacts()
            }
            (Source::Copy, Err(_)) => vec![],
            (Source::Service, Err(_)) => {
                self.contacts.load = Load::Failed(failure.unwrap_or_default());
                vec![]
            }
        }
    }

    fn activations_loaded(&mut self, result: Result<Vec<Folder>, ClientError>) -> Vec<Effect> {
        let failure = self.answered(&result);
        match result {
            Ok(items) => self.set_activations(with_local(items, &self.activations.items)),
            Err(_) if self.activations.load == Load::Loaded => vec![],
            Err(_) => {
                self.activations.load = Load::Failed(failure.unwrap_or_default());
                vec![]
            }
        }
    }

    /// Shows `items` as the activations, and asks for the counts of those still on the air:
    /// the ones that matter in the field.
    pub(super) fn set_activations(&mut self, items: Vec<Folder>) -> Vec<Effect> {
        let selected = self.selected_activation().map(|a| a.id.clone());
        self.activations.items = items;
        self.activations.load = Load::Loaded;
        self.refilter_activations();
        if let Some(id) = selected
            && let Some(i) = self.activations.items.iter().position(|a| a.id == id)
            && let Some(p) = self.activations.view.shown.iter().position(|s| *s == i)
        {
            self.activations.view.selected = p;
        }
        let mut effects = Vec::new();
        let live: Vec<String> = self
            .activations
            .items
            .iter()
            .filter(|a| a.in_progress())
            .map(|a| a.id.clone())
            .collect();
        for id in live {
            effects.extend(self.load_stats(id));
        }
        effects.extend(self.activation_stats());
        effects
    }

    /// Asks for an activation's contacts to count them, unless that is under way; the count
    /// shown so far stays until the answer.
    pub(super) fn load_stats(&mut self, id: String) -> Vec<Effect> {
        let stats = self
            .activations
            .stats
            .entry(id.clone())
            .or_insert_with(|| ActivationStats {
                load: Load::Idle,
                valid: HashSet::new(),
                stale: false,
            });
        match stats.load {
            Load::Loading => {
                // The answer under way may be older than what changed: it asks again.
                stats.stale = true;
                return vec![];
            }
            Load::Loaded => {}
            _ => stats.load = Load::Loading,
        }
        stats.stale = false;
        if !is_local_folder_id(&id) {
            self.in_flight += 1;
        }
        vec![Effect::LoadActivationContacts { folder_id: id }]
    }

    fn activation_contacts_loaded(
        &mut self,
        folder_id: String,
        source: Source,
        result: Result<Vec<Contact>, ClientError>,
    ) -> Vec<Effect> {
        let failure = match source {
            Source::Service => self.answered(&result),
            Source::Copy => None,
        };
        let Some(activation) = self.activations.items.iter().find(|a| a.id == folder_id) else {
            return vec![];
        };
        let before = self.activations.stats.get(&folder_id);
        let stale = before.is_some_and(|s| s.stale);
        let stats = match result {
            Ok(contacts) => {
                let waiting = self.outbox.waiting_in(&folder_id);
                let mut valid: HashSet<ValidContact> =
                    valid_contacts(activation, contacts.iter().chain(&waiting)).collect();
                // A contact logged since the question may be neither in the answer nor
                // waiting any more (sent in between): kept until the next answer shows it.
                if stale && let Some(before) = before {
                    valid.extend(before.valid.iter().cloned());
                }
                ActivationStats {
                    load: Load::Loaded,
                    valid,
                    stale,
                }
            }
            // A count from the copy stays when the service cannot be reached.
            Err(_)
                if self
                    .activations
                    .stats
                    .get(&folder_id)
                    .is_some_and(|s| s.load == Load::Loaded) =>
            {
                return vec![];
            }
            Err(_) => ActivationStats {
                load: Load::Failed(failure.unwrap_or_default()),
                valid: HashSet::new(),
                stale: false,
            },
        };
        self.activations.stats.insert(folder_id.clone(), stats);
        // The service's answer was older than a change here: it is asked again.
        if stale && source == Source::Service {
            return self.load_stats(folder_id);
        }
        vec![]
    }
}

/// A fresh list from the service, with the folders logged here that it does not know yet.
fn with_local(mut items: Vec<Folder>, shown: &[Folder]) -> Vec<Folder> {
    items.extend(shown.iter().filter(|f| is_local_folder_id(&f.id)).cloned());
    items
}

/// A form's fault as the message line says it: the field's label, then what to fix. The
/// cursor stays where the operator is typing.
fn fault(field: Field, message: &str) -> String {
    format!("{}: {message}", field.label())
}

/// What a key did in an entry form.
enum FormKey {
    Close,
    Submit,
    /// The focus moved, or a key changed nothing.
    Stay,
    /// The text of this field changed.
    Edited(Field),
}

/// Every field of the form, as an edit: an empty optional field clears it on the service.
/// Of the declared fields only the grid has a line in the form, so only the grid is named:
/// the stored contact's others (power, QTH, QSL state, …) stay as they are.
fn edit_request(request: NewContactRequest, stored_grid: Option<&str>) -> ContactEditRequest {
    let grid = request.fields.get(Declared::Gridsquare).map(str::to_owned);
    let mut fields = FieldsPatch::default();
    if grid.is_some() || stored_grid.is_some() {
        fields.values.insert(Declared::Gridsquare, grid);
    }
    ContactEditRequest {
        callsign: Some(request.callsign),
        frequency: Some(request.frequency),
        mode: Some(request.mode),
        time_on: Some(request.time_on),
        rst_sent: Some(request.rst_sent),
        rst_received: Some(request.rst_received),
        name: Some(request.name),
        notes: Some(request.notes),
        sig: Some(request.sig),
        sig_info: Some(request.sig_info),
        fields,
        ..ContactEditRequest::default()
    }
}

fn form_key(form: &mut EntryForm, key: KeyEvent) -> FormKey {
    match key.code {
        KeyCode::Esc => FormKey::Close,
        KeyCode::Enter => FormKey::Submit,
        KeyCode::Tab | KeyCode::Down => {
            form.next_field();
            FormKey::Stay
        }
        KeyCode::BackTab | KeyCode::Up => {
            form.previous_field();
            FormKey::Stay
        }
        _ => {
            let focus = form.focus;
            if form.edit(&Event::Key(key)) {
                FormKey::Edited(focus)
            } else {
                FormKey::Stay
            }
        }
    }
}

/// Applies one action to the state and returns the background work it asks for.
pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    match action {
        Action::Key(key) => app.key(key),
        Action::Resize(w, h) => {
            app.size = (w, h);
            app.refilter_folders();
            app.refilter_contacts();
            app.refilter_activations();
            app.more_contacts()
        }
        Action::Tick(now) => {
            app.now = now;
            app.activations.now = now;
            app.ask_whoami_again()
        }
        Action::WhoamiLoaded(result) => {
            let failure = app.answered(&result);
            match result {
                Ok(me) => {
                    // The activation form opened before the account was known.
                    if let Some(Dialog::Activation(form)) = &mut app.dialog {
                        form.default_callsign(&me.callsign);
                    }
                    let callsign = me.callsign.clone();
                    app.me = Some(me);
                    app.me_load = Load::Loaded;
                    if app.journal == JournalState::Missing {
                        app.journal = JournalState::Opening;
                        return vec![Effect::Journal(JournalEffect::Open { callsign })];
                    }
                }
                Err(_) => {
                    app.me_load = Load::Failed(failure.unwrap_or_default());
                    app.whoami_retry = Some(app.now);
                }
            }
            vec![]
        }
        Action::FoldersLoaded(result) => app.folders_loaded(result),
        Action::ContactsLoaded {
            folder_id,
            generation,
            source,
            result,
        } => app.contacts_loaded(folder_id, generation, source, result),
        Action::ActivationsLoaded(result) => app.activations_loaded(result),
        Action::ActivationContactsLoaded {
            folder_id,
            source,
            result,
        } => app.activation_contacts_loaded(folder_id, source, result),
        Action::ContactEdited { id, result } => {
            if app.answered(&result).is_none()
                && let Ok(edited) = result
            {
                let c = edited.contact;
                app.say(
                    Tone::Success,
                    format!("edited {} {} {}", c.callsign, c.band, c.mode),
                );
                if matches!(&app.dialog, Some(Dialog::Edit(e)) if e.contact_id == id) {
                    app.dialog = None;
                }
                if let Some(row) = app.contacts.items.iter_mut().find(|r| r.id == id) {
                    *row = c;
                }
                app.refilter_contacts();
            }
            vec![]
        }
        Action::ContactDeleted { id, result } => {
            if app.answered(&result).is_none() {
                if let Some(i) = app.contacts.items.iter().position(|c| c.id == id) {
                    let gone = app.contacts.items.remove(i);
                    app.refilter_contacts();
                    app.say(
                        Tone::Success,
                        format!("deleted {} {} {}", gone.callsign, gone.band, gone.mode),
                    );
                    app.count_contact(&gone.folder_id, -1);
                } else {
                    app.say(Tone::Success, format!("deleted contact {id}"));
                }
                if let Some(me) = &mut app.me {
                    me.native_qso_count = (me.native_qso_count - 1).max(0);
                }
            }
            vec![]
        }
        Action::ActivationEnded { id, result } => {
            if app.answered(&result).is_none()
                && let Ok(folder) = result
            {
                app.say(Tone::Success, format!("ended activation {}", folder.name));
                for f in app
                    .activations
                    .items
                    .iter_mut()
                    .chain(app.folders.items.iter_mut())
                    .chain(app.contacts.folder.iter_mut())
                {
                    if f.id == id {
                        f.end_time = folder.end_time;
                    }
                }
            }
            vec![]
        }
        Action::Exported { name, result } => {
            app.exported(&name, result);
            vec![]
        }
        Action::Journal(answer) => app.journal_answer(answer),
        Action::Sender(event) => app.sender_event(event),
        Action::RigRead(result) => app.rig_read(result),
        Action::LinkProbed(result) => app.link_probed(result),
        Action::RigSent { command, result } => {
            app.rig_sent(command, result);
            vec![]
        }
    }
}

/// `HH:MM` of the UTC time.
pub fn hhmm(t: Timestamp) -> String {
    let s = t.to_string();
    s.get(11..16).unwrap_or("").to_owned()
}

/// `MM-DD HH:MM` of the UTC time.
pub fn short_time(t: Timestamp) -> String {
    let s = t.to_string();
    format!(
        "{} {}",
        s.get(5..10).unwrap_or(""),
        s.get(11..16).unwrap_or("")
    )
}

/// The QSO counter of the status bar and whether it is in the warning range.
pub fn qso_counter(me: &Whoami) -> (String, bool) {
    match me.cap() {
        Some(cap) => (format!("QSOs {}/{cap}", me.native_qso_count), me.near_cap()),
        None => (format!("QSOs {}", me.native_qso_count), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(id: &str, parent: Option<&str>) -> Folder {
        serde_json::from_value(serde_json::json!({
            "id": id, "name": id, "type": "category", "parentId": parent,
            "contactCount": 0, "createdAt": "2026-11-01T00:00:00Z",
        }))
        .unwrap()
    }

    #[test]
    fn damaged_trees_still_show_every_folder_once() {
        // An orphan (parent unknown) goes to the top; a cycle does not loop.
        let items = vec![
            folder("fld_a", None),
            folder("fld_b", Some("fld_gone")),
            folder("fld_c", Some("fld_d")),
            folder("fld_d", Some("fld_c")),
            folder("fld_e", Some("fld_e")),
        ];
        let tree = build_tree(&items);
        let shown: Vec<usize> = tree.iter().map(|r| r.index).collect();
        assert_eq!(shown, [0, 1, 4, 2, 3]);
        let with_root = vec![folder("fld_r", None), folder("fld_x", Some("fld_r"))];
        assert_eq!(
            build_tree(&with_root),
            [
                TreeRow { index: 0, depth: 0 },
                TreeRow { index: 1, depth: 1 }
            ]
        );
    }

    #[test]
    fn an_edit_names_the_grid_only_when_there_is_one_or_was_one() {
        let mut request: NewContactRequest = serde_json::from_value(serde_json::json!({
            "folderId": "fld_x", "callsign": "K1ABC", "frequency": 14.074, "mode": "FT8",
            "timeOn": "2026-11-22T14:05:00Z",
        }))
        .unwrap();
        let grid =
            |edit: &ContactEditRequest| edit.fields.values.get(&Declared::Gridsquare).cloned();
        assert_eq!(
            grid(&edit_request(request.clone(), None)),
            None,
            "none then, none now"
        );
        assert_eq!(
            grid(&edit_request(request.clone(), Some("FN31pr"))),
            Some(None),
            "blanked: cleared"
        );
        request
            .fields
            .set(Declared::Gridsquare, Some("FN42".into()));
        // A field the form has no line for is never named: the stored one stays.
        request.fields.set(Declared::TxPwr, Some("5".into()));
        let edit = edit_request(request, Some("FN31pr"));
        assert_eq!(grid(&edit), Some(Some("FN42".into())));
        assert_eq!(edit.fields.values.len(), 1, "{edit:?}");
    }

    #[test]
    fn failures_say_what_to_do_once() {
        let server = |code: &str, message: &str| {
            ClientError::Server(Box::new(crate::client::ServerError {
                error: code.into(),
                message: message.into(),
                details: None,
                request_id: None,
                status: 401,
                retry_after: None,
            }))
        };
        let text = describe(&server("unauthorized", "the API key is not recognized"));
        assert_eq!(
            text,
            "unauthorized: the API key is not recognized; run svc auth login with a working key, then start svc again"
        );
        let text = describe(&server("key_revoked", "revoked; run svc auth login"));
        assert_eq!(text.matches("svc auth login").count(), 1, "{text}");
        let text = describe(&ClientError::Transport {
            message: "timed out".into(),
            attempts: 1,
        });
        assert!(text.starts_with("no answer from the service after 1 attempt (timed out)"));
    }
}
