//! The logbook's state and how it changes: one [`App`] made of its components (a pane or a
//! dialog each, see [`components`](super::components)), and [`update`], which routes each
//! [`Action`] to the component it is for and runs the flows that span several (opening a
//! folder, logging a contact, what the journal and its sender report, the radio, exports),
//! returning the work to start as [`Effect`]s. Nothing here touches the network, the disk or
//! the clock, so every behaviour can be tested without a terminal.

mod contest;
mod dialogs;
mod entry;
mod loads;
mod map;
mod needed;
mod outbox;
mod radio;
mod spots;
mod wsjtx;

use std::sync::Arc;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::{Action, Effect, Source};
use super::callsigns::Callsigns;
use super::components::activation::{ActivationForm, ActivationKey};
use super::components::activations::ActivationsPane;
use super::components::contacts::{ContactsPane, Mark};
use super::components::contest_start::{ContestForm, ContestKey};
use super::components::entry::{
    Done, EditForm, EntryForm, Field, FixForm, FormKey, edit_request, fault, form_key, send_key,
};
use super::components::folders::{FoldersPane, holds_contacts};
use super::components::outbox::{JournalState, Outbox, contact_row, plural};
use super::components::partials;
use super::components::prompts::{Answer, Prompt};
use super::components::rig::{RigPanel, no_rig};
use super::components::spots::{SpotForm, SpotKey, SpotList, SpotsKey, worked_today};
use super::components::status::{
    Connection, Status, describe, exported, is_key_error, message_rows,
};
use super::components::wsjtx::WsjtxPanel;
use super::journal::{JournalAnswer, JournalCopy, JournalEffect};
use super::list::{FilterKey, ListView, Load};
use super::widgets::{Tone, hhmm, list_heights, short_time};
use svc_client::journal::{Entry, SenderEvent, is_local_folder_id};
use svc_client::lookup::Callbook;
use svc_client::rig::{RigAddress, RigCommand, RigState};
use svc_client::{ClientError, Deleted, EditedContact};
use svc_model::band::mhz_text;
use svc_model::folder::ROOT_NAME;
use svc_model::program::{Program, normalize_reference};
use svc_model::{Contact, Folder, FolderType, Page, Timestamp, Whoami};
use svc_pota::Spot;

/// How long whoami waits before it is asked again while this key's journal is not known.
const WHOAMI_RETRY_MS: i64 = 10_000;

/// The panes, in the order Tab walks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Folders,
    Activations,
    Contacts,
}

impl Pane {
    // As on the screen: the two lists of the top band left to right, then Contacts below.
    const ORDER: [Pane; 3] = [Pane::Folders, Pane::Activations, Pane::Contacts];

    fn next(self, back: bool) -> Pane {
        let i = Pane::ORDER.iter().position(|p| *p == self).unwrap_or(0);
        Pane::ORDER[(i + if back { 2 } else { 1 }) % 3]
    }
}

/// What the message line says while `r` reloads; replaced once every answer is in.
const REFRESHING: &str = "refreshing…";

/// The dialog in front of the panes, which has the keys while it is open.
#[derive(Debug, Clone)]
pub enum Dialog {
    /// The entry form ([`App::entry`]) is shown.
    Entry,
    /// A refused contact opened to be fixed and sent again.
    Fix(Box<FixForm>),
    /// A stored contact opened to be edited on the service (a busted call fixed).
    Edit(Box<EditForm>),
    Activation(ActivationForm),
    /// Starts or joins a contest log.
    Contest(Box<ContestForm>),
    Prompt(Prompt),
    Help,
    /// The hunter's list of POTA spots.
    Spots(Box<SpotList>),
    /// The activator's own spot, before it is sent.
    Spot(Box<SpotForm>),
}

/// How the logbook was started.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub color: bool,
    /// Shown in the status bar, e.g. `demo`.
    pub label: Option<String>,
    /// rigctld, whose radio the entry form follows.
    pub rig: Option<RigAddress>,
    /// Where to hear WSJT-X's UDP messages, whose logged QSOs are logged here.
    pub wsjtx: Option<std::net::SocketAddr>,
    /// Whether the calls WSJT-X decodes are coloured in it by what working them would bring
    /// the log (not with --no-highlight).
    pub highlight: bool,
    /// Where each contact logged here goes as an ADIF record (--broadcast-adif).
    pub broadcast_adif: Vec<std::net::SocketAddr>,
    /// A country file to read instead of the one in the data directory or shipped.
    pub cty: Option<std::path::PathBuf>,
    /// A super check partial list to read instead of the one in the data directory or shipped.
    pub scp: Option<std::path::PathBuf>,
    /// POTA's API, for spots, when not POTA's own address.
    pub pota: Option<reqwest::Url>,
    /// The callbook connected with `svc lookup connect`, when there is one.
    pub callbook: Option<Arc<Callbook>>,
    /// Who is at the keyboard (`--operator`): the OPERATOR of each contact typed here.
    pub operator: Option<String>,
    /// Which transmitter of a multi-two station this logbook logs for (`--transmitter`):
    /// each contact typed here carries it, for the Cabrillo file's QSO lines.
    pub transmitter: Option<u8>,
}

impl Options {
    /// Who is at the keyboard (`--operator`) and which transmitter this logbook logs for
    /// (`--transmitter`), on a contact logged here, unless it names them already (a fix, or
    /// WSJT-X's operator).
    pub fn stamp_station(&self, request: &mut svc_model::ContactInput) {
        let station = [
            (svc_model::Field::Operator, self.operator.clone()),
            (
                svc_model::Field::Transmitter,
                self.transmitter.map(|t| t.to_string()),
            ),
        ];
        for (field, value) in station {
            if let Some(value) = value
                && request.fields.get(field).is_none()
            {
                request.fields.set(field, Some(value));
            }
        }
    }
}

/// Whether a call is whole enough to look up: a callsign with a digit and a letter after it
/// in one of its parts (`K1A`, `VE3/W1AW`), not a prefix alone (`K1`, `DL`).
fn complete_call(call: &str) -> bool {
    svc_model::callsign::normalize_callsign("callsign", call).is_ok()
        && call.split('/').any(|part| {
            part.len() >= 3
                && part.char_indices().any(|(i, c)| {
                    c.is_ascii_digit() && part[i + 1..].chars().any(|c| c.is_ascii_alphabetic())
                })
        })
}

pub struct App {
    pub options: Options,
    pub now: Timestamp,
    /// Terminal size, for the pages the movement keys jump and the scroll positions.
    pub size: (u16, u16),
    pub focus: Pane,
    pub me: Option<Whoami>,
    pub me_load: Load,
    /// Contacts stored or deleted here (each changes `me`'s count by one), and how many had
    /// been when whoami was last asked: its answer may not hold the ones since.
    count_changes: u64,
    whoami_asked_at: u64,
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
    /// WSJT-X, when the logbook was started to hear it.
    pub wsjtx: Option<WsjtxPanel>,
    /// The country file and super check partial list, once read (just after start).
    pub callsigns: Option<Arc<Callsigns>>,
    /// A spot picked in the spot list, to log once the POTA hunting log is open.
    pub hunt: Option<Spot>,
    /// When the last key was pressed: the callbook is asked once typing pauses.
    pub last_key: Timestamp,
    /// Parks whose names were asked for already.
    pub parks_asked: std::collections::HashSet<String>,
    /// The log the journal holds, as the form judges what a call would bring it.
    pub judge: needed::Judge,
    /// Whether the map is shown in place of the panes.
    pub map: bool,
    /// The account's station profiles, read the first time the map is shown (`None` before).
    pub stations: Option<Vec<svc_model::StationProfile>>,
}

impl App {
    /// A new logbook and the requests that fill it.
    pub fn new(options: Options, now: Timestamp, size: (u16, u16)) -> (App, Vec<Effect>) {
        let rig = options.rig.clone().map(RigPanel::new);
        let wsjtx = options.wsjtx.map(WsjtxPanel::new);
        let mut app = App {
            options,
            now,
            size,
            focus: Pane::Folders,
            me: None,
            me_load: Load::Loading,
            count_changes: 0,
            whoami_asked_at: 0,
            folders: FoldersPane::default(),
            contacts: ContactsPane::default(),
            activations: ActivationsPane::new(now),
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
            wsjtx,
            callsigns: None,
            hunt: None,
            last_key: now,
            parks_asked: Default::default(),
            judge: Default::default(),
            map: false,
            stations: None,
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

    fn say(&mut self, tone: Tone, text: impl Into<String>) {
        self.status = Some(Status {
            text: text.into(),
            tone,
            at: self.now,
        });
    }

    /// Records the outcome of a request: whether the service answered, and a failure's text.
    fn answered<T>(&mut self, result: &Result<T, ClientError>) -> Option<String> {
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

    /// Rows of (the folders and activations panes, the contacts pane) on this screen.
    fn heights(&self) -> (usize, usize) {
        list_heights(self.size, self.message_rows(self.size.0))
    }

    /// Rows the message line takes at this width: the newest message is shown whole.
    pub fn message_rows(&self, width: u16) -> u16 {
        message_rows(self.status.as_ref(), width)
    }

    /// The radio's part of the status bar, and whether it is a failure.
    pub fn rig_label(&self) -> Option<(String, bool)> {
        let rig = self.rig.as_ref()?;
        Some(rig.label(&rig.data_mode(&self.contacts.items)))
    }

    /// WSJT-X's part of the status bar, and whether it is a failure.
    pub fn wsjtx_label(&self) -> Option<(String, bool)> {
        Some(self.wsjtx.as_ref()?.label(self.now))
    }

    /// Whether a log is open in Contacts: a folder that takes contacts. Letters and digits
    /// then type a callsign, and the commands take Alt.
    pub fn log_open(&self) -> bool {
        self.contacts.folder.as_ref().is_some_and(holds_contacts)
    }

    fn view(&mut self, pane: Pane) -> &mut ListView {
        match pane {
            Pane::Folders => &mut self.folders.view,
            Pane::Contacts => &mut self.contacts.view,
            Pane::Activations => &mut self.activations.view,
        }
    }

    /// Shows a pane's rows again after its items or filter changed.
    fn refilter(&mut self, pane: Pane) {
        let (side, contacts) = self.heights();
        match pane {
            Pane::Folders => self.folders.refilter(side),
            Pane::Contacts => self.contacts.refilter(contacts),
            Pane::Activations => self.activations.refilter(side),
        }
    }

    fn merge_pending(&mut self) {
        let height = self.heights().1;
        self.contacts.merge_pending(&self.outbox.entries, height);
    }

    /// Shows `items` as the folder tree, keeping the selection and the open folder.
    fn set_folders(&mut self, items: Vec<Folder>) {
        let height = self.heights().0;
        self.folders.set(items, height);
        if let Some(open) = &self.contacts.folder
            && let Some(fresh) = self.folders.find(&open.id)
        {
            self.contacts.folder = Some(fresh.clone());
        }
    }

    fn select_folder(&mut self, id: &str) {
        let height = self.heights().0;
        self.folders.select(id, height);
    }

    fn select_activation(&mut self, id: &str) {
        let height = self.heights().0;
        self.activations.select(id, height);
    }

    /// Shows `items` as the activations, and asks for the counts and park names it needs.
    fn set_activations(&mut self, items: Vec<Folder>) -> Vec<Effect> {
        let height = self.heights().0;
        let ids = self.activations.set(items, height);
        let mut effects: Vec<Effect> = ids.into_iter().flat_map(|id| self.load_stats(id)).collect();
        effects.extend(self.name_parks());
        effects
    }

    /// Asks once for the names of the parks of the activations listed.
    fn name_parks(&mut self) -> Vec<Effect> {
        let mut references = Vec::new();
        for a in &self.activations.items {
            for park in a.location_reference.as_deref().unwrap_or("").split(',') {
                if !park.is_empty() && self.parks_asked.insert(park.to_owned()) {
                    references.push(park.to_owned());
                }
            }
        }
        if references.is_empty() {
            vec![]
        } else {
            vec![Effect::NameParks(references)]
        }
    }

    /// The open activation's park names, for the Contacts title, as far as they are known.
    fn title_parks(&mut self) {
        let names = self.contacts.folder.as_ref().and_then(|f| {
            let parks: Vec<&str> = f
                .location_reference
                .as_deref()?
                .split(',')
                .filter_map(|p| self.activations.park_names.get(p).map(String::as_str))
                .collect();
            (!parks.is_empty()).then(|| parks.join(" + "))
        });
        self.contacts.park_names = names;
    }

    /// Asks for an activation's contacts to count them, unless that is under way.
    fn load_stats(&mut self, id: String) -> Vec<Effect> {
        if !self.activations.load_stats(&id) {
            return vec![];
        }
        if !is_local_folder_id(&id) {
            self.in_flight += 1;
        }
        vec![Effect::LoadActivationContacts { folder_id: id }]
    }

    /// Opens `folder` in the contacts pane and asks for its first page; a folder newly open
    /// is remembered, to open again at the next start.
    fn open_folder(&mut self, folder: Folder) -> Vec<Effect> {
        let changed = self.folders.open.as_deref() != Some(folder.id.as_str());
        self.folders.open = Some(folder.id.clone());
        let folder_id = folder.id.clone();
        // A folder logged here with no link exists only in the journal: nothing to ask.
        if !is_local_folder_id(&folder.id) {
            self.in_flight += 1;
        }
        let mut effects = vec![self.contacts.open(folder)];
        self.title_parks();
        self.merge_pending();
        if changed {
            effects.push(Effect::SaveOpenFolder { folder_id });
        }
        effects
    }

    /// The next page of contacts, when the cursor nears the end of what is loaded or the
    /// entry form's duplicate check needs more of today.
    fn more_contacts(&mut self) -> Vec<Effect> {
        let form_here = matches!(
            (&self.entry, &self.contacts.folder),
            (Some(e), Some(f)) if e.folder_id == f.id
        );
        match self.contacts.more(form_here, self.now) {
            Some(effect) => {
                self.in_flight += 1;
                vec![effect]
            }
            None => vec![],
        }
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

    /// What quitting asks first, if anything would be left half done.
    fn quit_question(&self) -> Option<String> {
        let mut parts = Vec::new();
        match self.entry.as_ref().and_then(EntryForm::unlogged) {
            Some(call) if !call.is_empty() => {
                parts.push(format!("{call} is typed in the form and not logged"));
            }
            Some(_) => parts.push("the form holds text not logged".to_owned()),
            None => {}
        }
        let waiting = self.outbox.counts.waiting;
        if waiting > 0 {
            parts.push(format!(
                "{waiting} waiting to go out (kept in the journal for next time)"
            ));
        }
        (!parts.is_empty()).then(|| format!("Quit? {}.", parts.join("; ")))
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
            self.check_callsign();
        }
        effects
    }

    fn filtering(&self) -> bool {
        match self.focus {
            Pane::Folders => self.folders.view.filtering(),
            Pane::Contacts => self.contacts.view.filtering(),
            Pane::Activations => self.activations.view.filtering(),
        }
    }

    fn key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if key.kind == KeyEventKind::Release {
            return vec![];
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let typing = matches!(
            self.dialog,
            Some(
                Dialog::Entry
                    | Dialog::Fix(_)
                    | Dialog::Edit(_)
                    | Dialog::Activation(_)
                    | Dialog::Contest(_)
            )
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
                && !matches!(self.dialog, Some(Dialog::Prompt(Prompt::Quit { .. })))
                && let Some(question) = self.quit_question()
            {
                self.dialog = Some(Dialog::Prompt(Prompt::Quit { question }));
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
                KeyCode::Char('s') => return self.self_spot(),
                KeyCode::Char('v') => return self.toggle_map(),
                KeyCode::Char('S') => return self.open_spots(),
                _ => {}
            }
        }
        if self.dialog.is_some() {
            return self.dialog_key(key);
        }
        if self.filtering() {
            return self.filter_key(key);
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
                let pane = self.focus;
                if self.view(pane).clear_filter() {
                    self.refilter(pane);
                } else if self.map {
                    // Esc goes back to the lists, as it closes whatever is in front.
                    self.map = false;
                }
                vec![]
            }
            KeyCode::Enter => self.enter(),
            _ => self.move_key(key),
        }
    }

    /// The main screen's commands, by their letter (see [`App::command`]).
    fn command_key(&mut self, c: char, key: KeyEvent) -> Vec<Effect> {
        let alt = key.modifiers.contains(KeyModifiers::ALT);
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
            'c' => {
                let call = self
                    .me
                    .as_ref()
                    .map(|m| m.callsign.clone())
                    .unwrap_or_default();
                self.dialog = Some(Dialog::Contest(Box::new(ContestForm::new(&call))));
                vec![]
            }
            'm' => {
                if let Some(why) = self.journal.cannot_log() {
                    self.say(Tone::Warning, why);
                    return vec![];
                }
                self.dialog = Some(Dialog::Prompt(Prompt::Month));
                vec![]
            }
            '/' => {
                let pane = self.focus;
                self.view(pane).start_filter();
                self.refilter(pane);
                vec![]
            }
            'd' => {
                self.delete_key();
                vec![]
            }
            'x' => self.export_key(),
            'F' => self.send_to_rig(Field::Frequency),
            'f' if alt => self.send_to_rig(Field::Frequency),
            'M' => self.send_to_rig(Field::Mode),
            's' => self.self_spot(),
            'S' => self.open_spots(),
            'v' => self.toggle_map(),
            'e' if self.focus == Pane::Contacts => self.open_edit(),
            'e' => {
                self.end_key();
                vec![]
            }
            _ => self.move_key(key),
        }
    }

    /// The whole screen, as the last resize gave it.
    fn screen(&self) -> ratatui::layout::Rect {
        ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1)
    }

    // POTA spots: the activator's own (Alt-S) and the hunter's list (Alt-Shift-S).

    /// Alt-D: the selected contact deleted, or a journal entry discarded, after `y`.
    fn delete_key(&mut self) {
        if self.focus != Pane::Contacts {
            self.say(
                Tone::Warning,
                "Alt-D deletes a contact: Tab to Contacts and select it first",
            );
            return;
        }
        let prompt = match self.contacts.selected() {
            Some(c) if self.contacts.marks.contains_key(&c.id) => Prompt::Discard {
                id: c.id.clone(),
                label: format!("{} at {}", c.callsign, short_time(c.time_on)),
            },
            Some(c) => Prompt::Delete {
                id: c.id.clone(),
                label: format!(
                    "{} {} {} at {}",
                    c.callsign,
                    c.band,
                    c.mode,
                    short_time(c.time_on)
                ),
            },
            None => {
                self.say(Tone::Warning, "no contact selected");
                return;
            }
        };
        self.dialog = Some(Dialog::Prompt(prompt));
    }

    /// Alt-E in Activations: the selected activation ended, after `y`.
    fn end_key(&mut self) {
        if self.focus != Pane::Activations {
            self.say(
                Tone::Warning,
                "Alt-E edits the selected contact (in Contacts) or ends the selected activation (in Activations)",
            );
            return;
        }
        match self.activations.selected() {
            Some(a) if a.in_progress() => {
                let label = a
                    .location_reference
                    .clone()
                    .unwrap_or_else(|| a.name.clone());
                self.dialog = Some(Dialog::Prompt(Prompt::End {
                    id: a.id.clone(),
                    label,
                }));
            }
            Some(a) => {
                let name = a.name.clone();
                self.say(Tone::Warning, format!("{name} has ended already"));
            }
            None => self.say(Tone::Warning, "no activation selected"),
        }
    }

    /// Keys while a pane's filter is being typed.
    fn filter_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let pane = self.focus;
        let kept = self.view(pane).filter_key(key) == FilterKey::Kept;
        self.refilter(pane);
        if kept && let Some(warning) = self.view(pane).no_match_warning() {
            self.say(Tone::Warning, warning);
        }
        match pane {
            Pane::Contacts => self.more_contacts(),
            _ => vec![],
        }
    }

    /// The movement keys in the focused pane (`j` `k` `g` `G` too while no log is open).
    fn move_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let (side, contacts) = self.heights();
        let letters = !self.log_open();
        let pane = self.focus;
        let height = if pane == Pane::Contacts {
            contacts
        } else {
            side
        };
        if !self.view(pane).move_key(&key, height, letters) {
            return vec![];
        }
        match pane {
            Pane::Contacts => {
                if let Some(text) = self.contacts.refusal_of_selected() {
                    self.say(Tone::Error, text);
                }
                self.more_contacts()
            }
            Pane::Activations => match self.activations.unknown_selected() {
                Some(id) => self.load_stats(id),
                None => vec![],
            },
            Pane::Folders => vec![],
        }
    }

    fn enter(&mut self) -> Vec<Effect> {
        match self.focus {
            Pane::Folders => match self.folders.selected().cloned() {
                Some(f) => self.open_folder(f),
                None => vec![],
            },
            Pane::Activations => match self.activations.selected().cloned() {
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

    fn resized(&mut self, w: u16, h: u16) -> Vec<Effect> {
        self.size = (w, h);
        for pane in Pane::ORDER {
            self.refilter(pane);
        }
        self.more_contacts()
    }

    // The journal's flows: what its answers and its sender's reports change across the panes.

    // The radio's flows: its readings into the entry form where the operator has not typed,
    // and the form's frequency and mode sent to it.

    /// Alt-X: the selected activation's POTA files (in Activations), the selected log (in
    /// Folders; a category means the open folder) or the open folder, written as ADIF into
    /// the working directory by a background task.
    fn export_key(&mut self) -> Vec<Effect> {
        let folder = match self.focus {
            Pane::Activations => self.activations.selected(),
            Pane::Folders => self
                .folders
                .selected()
                .filter(|f| f.folder_type != FolderType::Category)
                .or(self.contacts.folder.as_ref()),
            Pane::Contacts => self.contacts.folder.as_ref(),
        };
        let Some(folder) = folder.cloned() else {
            self.say(
                Tone::Warning,
                "Alt-X exports: select an activation or a log, or open a folder first",
            );
            return vec![];
        };
        if is_local_folder_id(&folder.id) {
            self.say(
                Tone::Warning,
                format!(
                    "{} is not on the service yet; Alt-X exports it once the journal has sent it",
                    folder.name
                ),
            );
            return vec![];
        }
        let Some(callsign) = self.me.as_ref().map(|me| me.callsign.clone()) else {
            self.say(
                Tone::Warning,
                "the account has not loaded yet; try Alt-X again",
            );
            return vec![];
        };
        self.say(Tone::Info, format!("exporting {}…", folder.name));
        vec![Effect::Export { folder, callsign }]
    }
}

/// Applies one action to the state and returns the background work it asks for.
pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    let mut effects = route(app, action);
    // The whole log copied into the journal as soon as the link and the log read allow.
    effects.extend(app.copy_whole_log());
    // What the account's count was changed here by before whoami was asked: an answer that
    // comes after a later change is asked again (see `whoami_loaded`).
    if effects.iter().any(|e| matches!(e, Effect::LoadWhoami)) {
        app.whoami_asked_at = app.count_changes;
    }
    effects
}

fn route(app: &mut App, action: Action) -> Vec<Effect> {
    match action {
        Action::Key(key) => {
            app.last_key = app.now;
            app.key(key)
        }
        Action::Resize(w, h) => app.resized(w, h),
        Action::CallsignsLoaded { callsigns, warning } => {
            app.callsigns = Some(callsigns);
            if let Some(warning) = warning {
                app.say(Tone::Warning, warning);
            }
            app.check_callsign();
            app.ask_worked()
        }
        Action::Tick(now) => {
            // WSJT-X gone quiet: the who-lines stop following the call it was working.
            let went_lost = app
                .wsjtx
                .as_ref()
                .is_some_and(|w| w.lost(now) && !w.lost(app.now));
            app.now = now;
            if went_lost {
                app.check_callsign();
            }
            app.activations.now = now;
            let mut effects = app.ask_whoami_again();
            effects.extend(app.ask_callbook(true));
            effects.extend(app.poll_contest());
            // An open spot list is read again every 30 s: spots go stale in minutes.
            if let Some(Dialog::Spots(list)) = &mut app.dialog
                && list.due(now)
            {
                list.asked(now);
                effects.push(Effect::LoadSpots);
            }
            effects
        }
        Action::WhoamiLoaded(result) => app.whoami_loaded(result),
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
            app.contact_edited(id, result);
            vec![]
        }
        Action::ContactDeleted { id, result } => {
            app.contact_deleted(id, result);
            vec![]
        }
        Action::ContestStarted(result) => app.contest_started(result),
        Action::SerialsReserved { folder_id, result } => app.serials_reserved(&folder_id, result),
        Action::ContactsPolled { folder_id, result } => app.contest_polled(&folder_id, result),
        Action::ActivationEnded { id, result } => {
            app.activation_ended(id, result);
            vec![]
        }
        Action::LookedUp { call, result } => {
            match result {
                Ok((found, cached_days)) => {
                    if let Some(form) = &mut app.entry {
                        form.looked_up(&call, &found, cached_days);
                    }
                    // The state it gave may be one the log needs.
                    app.check_callsign();
                }
                // Said once, dimmed in the form's place: a lookup is a help, never a fault.
                Err(why) => {
                    if let Some(form) = &mut app.entry
                        && form
                            .value(Field::Callsign)
                            .trim()
                            .eq_ignore_ascii_case(&call)
                    {
                        form.callbook = Some(why);
                    }
                }
            }
            vec![]
        }
        Action::ParkNamed { reference, name } => {
            app.activations.park_names.insert(reference, name);
            app.title_parks();
            app.name_form_parks()
        }
        Action::SpotsLoaded(result) => {
            let height = super::components::spots::list_height(app.screen());
            if let Some(Dialog::Spots(list)) = &mut app.dialog {
                list.loaded(result, height);
            }
            vec![]
        }
        Action::Spotted(result) => {
            match result {
                Ok(spot) => app.say(
                    Tone::Success,
                    format!(
                        "spotted {} at {} on {} {}: hunters see it now",
                        spot.activator,
                        spot.reference,
                        mhz_text(spot.frequency),
                        spot.mode.unwrap_or_default()
                    ),
                ),
                Err(why) => app.say(Tone::Error, format!("not spotted: {why}")),
            }
            vec![]
        }
        Action::Exported { name, result } => {
            let (tone, text) = exported(&name, result);
            app.say(tone, text);
            vec![]
        }
        Action::Journal(answer) => {
            app.took_logged(&answer);
            let mut effects = app.journal_answer(answer);
            effects.extend(app.ask_worked());
            effects
        }
        Action::WorkedRead(result) => app.worked_read(result),
        Action::WholeLogCopied(result) => app.whole_log_copied(result),
        Action::StationsLoaded(result) => {
            app.stations_loaded(result);
            vec![]
        }
        Action::Sender(event) => app.sender_event(event),
        Action::RigRead(result) => app.rig_read(result),
        Action::Wsjtx(message) => app.wsjtx_heard(message),
        Action::LinkProbed(result) => app.link_probed(result),
        Action::RigSent { command, result } => {
            app.rig_sent(command, result);
            vec![]
        }
    }
}
