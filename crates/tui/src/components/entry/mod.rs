//! The entry form: one contact typed in, checked field by field with the model's rules and
//! turned into requests; the same form fixes a refused contact and edits a stored one. Its
//! state, its keys and its drawing. Pure: the time comes in as `now`.

use chrono::{NaiveTime, Timelike};
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent};
use tui_input::Input;

use svc_client::lookup::Lookup;
use svc_model::ContactInput;
use svc_model::band::{mhz_text, read_frequency};
use svc_model::callsign::normalize_callsign;
use svc_model::contact::dupe_key;

use crate::components::contest::ContestLine;
// The model's declared fields, named apart from the form's own `Field`.
use svc_model::fields::{Field as Declared, Fields};
use svc_model::needed::Wanted;
use svc_model::program::normalize_reference;
use svc_model::report::{Report, default_rst};
use svc_model::text::{multi_line, single_line, token};
use svc_model::{Contact, Folder, FolderType, Program, Timestamp};

mod edit;
mod view;

pub use edit::{Done, EditForm, FixForm, edit_request, send_key};
pub use view::{EntryView, cursor};

/// The entry form's fields, in the order Tab walks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Callsign,
    /// The received exchange, in a contest log: right after the call, as contesters type.
    Exchange,
    Frequency,
    Mode,
    RstSent,
    RstReceived,
    Name,
    /// The worked station's Maidenhead locator, checked as the service checks it.
    Grid,
    Notes,
    /// The worked station's park (park-to-park, or a hunted park) or program reference.
    Park,
    /// Last, so that Shift-Tab from the callsign reaches it at once.
    Time,
}

impl Field {
    pub const ALL: [Field; 11] = [
        Field::Callsign,
        Field::Exchange,
        Field::Frequency,
        Field::Mode,
        Field::RstSent,
        Field::RstReceived,
        Field::Name,
        Field::Grid,
        Field::Notes,
        Field::Park,
        Field::Time,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Field::Callsign => "Callsign",
            Field::Exchange => "Exchange",
            Field::Frequency => "Freq MHz",
            Field::Mode => "Mode",
            Field::RstSent => "RST sent",
            Field::RstReceived => "RST rcvd",
            Field::Name => "Name",
            Field::Grid => "Grid",
            Field::Notes => "Notes",
            Field::Time => "Time UTC",
            Field::Park => "Park",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// What kind of log the form's folder is, for the worked station's reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogKind {
    /// The operator's own log: no program references.
    Custom,
    /// A program's monthly hunting log.
    Hunting(Program),
    /// A POTA activation: a park given is the other activator's (park to park).
    Activation,
    /// A contest log: the form takes the received exchange where the park would be.
    Contest,
}

impl LogKind {
    pub fn of(folder: &Folder) -> LogKind {
        match (
            folder.folder_type,
            folder.program_id.as_deref().and_then(Program::from_id),
        ) {
            (FolderType::Activation, _) => LogKind::Activation,
            (FolderType::Contest, _) => LogKind::Contest,
            (_, Some(program)) => LogKind::Hunting(program),
            _ => LogKind::Custom,
        }
    }

    /// The program whose references the park field takes.
    pub fn program(self) -> Option<Program> {
        match self {
            LogKind::Custom | LogKind::Contest => None,
            LogKind::Hunting(program) => Some(program),
            LogKind::Activation => Some(Program::Pota),
        }
    }
}

#[derive(Debug, Clone)]
pub struct EntryForm {
    /// The folder the contact goes to.
    pub folder_id: String,
    pub folder_name: String,
    pub kind: LogKind,
    /// The contest side of the form, in a contest log.
    pub contest: Option<ContestLine>,
    pub inputs: Vec<Input>,
    pub focus: Field,
    /// The band the frequency lies in, or why it lies in none.
    pub band: Result<&'static str, String>,
    /// The contact this one would duplicate, as a warning line.
    pub duplicate: Option<String>,
    /// Who the typed call is: its entity and zones, as a line.
    pub who: Option<String>,
    /// Known calls holding what is typed, the log's own first.
    pub partials: Vec<String>,
    /// What working the call would bring the log (a new one, a new band …).
    pub wanted: Wanted,
    /// The parks typed, each with its name as far as it is known: `US-0001 Acadia National
    /// Park`.
    pub parks: Option<String>,
    /// The call the callbook was asked about for this contact, and when it was typed so.
    pub asked: Option<String>,
    /// What the callbook said of the call on the form, as a line: where, and from whom.
    pub callbook: Option<String>,
    /// The ended activation the operator said yes to logging into.
    pub ended_ok: Option<String>,
    /// The hunting log the operator said yes to logging a contact without a park into.
    pub no_park_ok: Option<String>,
    /// The fields the operator typed in for this contact: the radio's reading no longer
    /// replaces them.
    typed: [bool; Field::ALL.len()],
    /// The focused field was reached with Tab and holds a value the operator did not type
    /// (kept from the last contact, a default, the radio's): the first character typed
    /// replaces it, an arrow, Home or End starts editing it instead.
    replace_on_type: bool,
    /// The declared fields and `adif` entries of the request the form was filled from that
    /// it has no line for: carried into its requests as they were, so that fixing a refused
    /// contact (logged with `svc contacts create --tx-pwr …`, say) loses none of them.
    carried: Fields,
}

impl EntryForm {
    /// A fresh form for `folder`, keeping the frequency and mode of the last contact.
    pub fn new(folder_id: &str, folder_name: &str, frequency: &str, mode: &str) -> EntryForm {
        let mut form = EntryForm {
            folder_id: folder_id.to_owned(),
            folder_name: folder_name.to_owned(),
            kind: LogKind::Custom,
            contest: None,
            inputs: vec![Input::default(); Field::ALL.len()],
            focus: Field::Callsign,
            band: Err(String::new()),
            duplicate: None,
            who: None,
            partials: Vec::new(),
            wanted: Wanted::default(),
            parks: None,
            asked: None,
            callbook: None,
            ended_ok: None,
            no_park_ok: None,
            typed: [false; Field::ALL.len()],
            replace_on_type: false,
            carried: Fields::default(),
        };
        form.set(Field::Frequency, frequency);
        form.set(Field::Mode, mode);
        form.set(Field::RstSent, default_rst(mode));
        form.set(Field::RstReceived, default_rst(mode));
        form.refresh_band();
        form
    }

    /// A form holding a contact logged before, to be fixed and logged into `folder`.
    pub fn from_request(folder_id: &str, folder_name: &str, request: &ContactInput) -> EntryForm {
        let mut form = EntryForm::new(
            folder_id,
            folder_name,
            &svc_model::band::mhz_text(request.frequency),
            &request.mode,
        );
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        form.set(Field::Callsign, &request.callsign);
        form.set(Field::RstSent, &text(&request.rst_sent));
        form.set(Field::RstReceived, &text(&request.rst_received));
        form.set(Field::Name, &text(&request.name));
        form.set(
            Field::Grid,
            request.fields.get(Declared::Gridsquare).unwrap_or_default(),
        );
        form.set(Field::Notes, &text(&request.notes));
        // The time it was logged with, whole: the contact keeps its time however late it goes.
        form.set(Field::Time, &request.time_on);
        form.set(Field::Park, &text(&request.sig_info));
        form.set(
            Field::Exchange,
            request.fields.get(Declared::SrxString).unwrap_or_default(),
        );
        form.carried = request.fields.clone();
        form.carried.set(Declared::Gridsquare, None);
        form
    }

    /// Points the form at `folder`: its id, name and kind of log.
    pub fn set_folder(&mut self, folder: &Folder) {
        if self.contest.is_none() || self.folder_id != folder.id {
            self.contest = ContestLine::of(folder);
        }
        self.folder_id = folder.id.clone();
        self.folder_name = folder.name.clone();
        self.kind = LogKind::of(folder);
    }

    /// Whether the form has a line for `field` in its log: the exchange in a contest log,
    /// which has no worked park, and the park elsewhere.
    pub fn shows(&self, field: Field) -> bool {
        match field {
            Field::Exchange => self.contest.is_some(),
            Field::Park => self.contest.is_none(),
            _ => true,
        }
    }

    pub fn value(&self, field: Field) -> &str {
        self.inputs[field.index()].value()
    }

    pub fn input(&self, field: Field) -> &Input {
        &self.inputs[field.index()]
    }

    pub fn set(&mut self, field: Field, value: &str) {
        self.inputs[field.index()] = Input::new(value.to_owned());
    }

    /// A spot picked from the list: its call, frequency, mode (with the mode's reports) and
    /// park, on a form cleared of the contact before.
    pub fn hunt(&mut self, call: &str, mhz: &str, mode: Option<&str>, park: &str) {
        self.clear_for_next();
        self.set(Field::Callsign, call);
        self.set(Field::Frequency, mhz);
        if let Some(mode) = mode {
            self.set(Field::Mode, mode);
            self.set(Field::RstSent, default_rst(mode));
            self.set(Field::RstReceived, default_rst(mode));
        }
        self.set(Field::Park, park);
        self.refresh_band();
        self.focus = Field::Callsign;
    }

    /// The `i`th call of the partial list put on the callsign as if typed, with the cursor
    /// after it; the call, or `None` when the list has no such call.
    pub fn pick_partial(&mut self, i: usize) -> Option<String> {
        let call = self.partials.get(i)?.clone();
        self.set(Field::Callsign, &call);
        self.typed[Field::Callsign.index()] = true;
        if self.focus == Field::Callsign {
            self.replace_on_type = false;
        }
        Some(call)
    }

    pub fn next_field(&mut self) {
        self.step(1);
    }

    pub fn previous_field(&mut self) {
        self.step(Field::ALL.len() - 1);
    }

    /// Moves the focus `by` fields on, round, over the fields the form shows.
    fn step(&mut self, by: usize) {
        let mut i = self.focus.index();
        loop {
            i = (i + by) % Field::ALL.len();
            if self.shows(Field::ALL[i]) {
                break;
            }
        }
        self.focus_on(Field::ALL[i]);
    }

    fn focus_on(&mut self, field: Field) {
        self.focus = field;
        self.replace_on_type = !self.typed[field.index()] && !self.value(field).is_empty();
    }

    /// Whether the next character typed replaces the focused field's value.
    pub fn replaces_on_type(&self) -> bool {
        self.replace_on_type
    }

    /// Applies a key to the focused field, which then counts as typed.
    pub fn edit(&mut self, event: &ratatui::crossterm::event::Event) -> bool {
        use ratatui::crossterm::event::{Event, KeyCode, KeyModifiers};
        use tui_input::backend::crossterm::EventHandler;
        let old_mode = self.value(Field::Mode).to_owned();
        if std::mem::take(&mut self.replace_on_type)
            && let Event::Key(key) = event
            && let KeyCode::Char(_) = key.code
            && !key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            self.set(self.focus, "");
        }
        let changed = self.inputs[self.focus.index()]
            .handle_event(event)
            .is_some_and(|c| c.value);
        if changed {
            self.typed[self.focus.index()] = true;
            self.changed(self.focus, &old_mode);
        }
        changed
    }

    /// Whether the operator typed in `field` since the form was last cleared.
    pub fn typed(&self, field: Field) -> bool {
        self.typed[field.index()]
    }

    /// Lets the radio's reading replace `field` again.
    pub fn untype(&mut self, field: Field) {
        self.typed[field.index()] = false;
    }

    /// Puts what the radio reads in `field` as typing would, without counting as typed.
    pub fn take_from_rig(&mut self, field: Field, value: &str) {
        let old_mode = self.value(Field::Mode).to_owned();
        self.set(field, value);
        self.changed(field, &old_mode);
    }

    /// What follows a change of `field`: the band follows the frequency, and a change of mode
    /// moves RST reports that still hold the old mode's default to the new one; reports typed
    /// by hand are left alone.
    fn changed(&mut self, field: Field, old_mode: &str) {
        match field {
            Field::Mode => {
                let (old, new) = (default_rst(old_mode), default_rst(self.value(Field::Mode)));
                for field in [Field::RstSent, Field::RstReceived] {
                    if self.value(field) == old {
                        self.set(field, new);
                    }
                }
            }
            Field::Frequency => self.refresh_band(),
            _ => {}
        }
    }

    fn refresh_band(&mut self) {
        let text = self.value(Field::Frequency).trim();
        self.band = if text.is_empty() {
            Err(String::new())
        } else {
            parse_number(text)
                .ok_or_else(|| "not a number".to_owned())
                .and_then(|v| {
                    read_frequency("frequency", v)
                        .map(|f| f.band)
                        .map_err(|_| "not in an amateur band".to_owned())
                })
        };
    }

    /// Clears the form for the next contact: frequency and mode stay (and follow the radio
    /// again), the reports go back to the mode's default, the cursor goes to the callsign.
    /// What belongs to this contact alone goes: call, name, grid, notes, time and park.
    /// A contact of this form is in the journal: the form clears for the next, keeping its
    /// frequency and mode as the service will store them (14074 becomes 14.074, ft8 FT8).
    pub fn logged(&mut self, row: &Contact) {
        if let Some(contest) = &mut self.contest
            && row.folder_id == self.folder_id
        {
            contest.sent(row.fields.get(Declared::Stx));
        }
        self.clear_for_next();
        self.set(Field::Frequency, &mhz_text(row.frequency));
        self.set(Field::Mode, &row.mode);
    }

    /// The radio's frequency (MHz) and mode, where the operator has not typed them; whether
    /// the form changed.
    pub fn follow(&mut self, mhz: &str, mode: Option<&str>) -> bool {
        let mut changed = false;
        if !self.typed(Field::Frequency) && self.value(Field::Frequency) != mhz {
            self.take_from_rig(Field::Frequency, mhz);
            changed = true;
        }
        if let Some(mode) = mode
            && !self.typed(Field::Mode)
            && self.value(Field::Mode) != mode
        {
            self.take_from_rig(Field::Mode, mode);
            changed = true;
        }
        changed
    }

    /// A folder made with no link exists on the service now: the form logs into it.
    pub fn resolve(&mut self, local_id: &str, folder: &Folder) {
        if self.folder_id == local_id {
            self.folder_id = folder.id.clone();
            self.folder_name = folder.name.clone();
        }
        // A yes given while the folder had its local id holds for it under its new one.
        for agreed in [&mut self.ended_ok, &mut self.no_park_ok] {
            if agreed.as_deref() == Some(local_id) {
                *agreed = Some(folder.id.clone());
            }
        }
    }

    /// What the form holds that is not logged: the callsign (empty when only other text is
    /// typed), or `None` when nothing is.
    pub fn unlogged(&self) -> Option<String> {
        let call = self.value(Field::Callsign).trim().to_owned();
        let other = [
            Field::Exchange,
            Field::Name,
            Field::Grid,
            Field::Notes,
            Field::Park,
        ]
        .iter()
        .any(|f| !self.value(*f).trim().is_empty());
        (!call.is_empty() || other).then_some(call)
    }

    pub fn clear_for_next(&mut self) {
        self.typed = [false; Field::ALL.len()];
        self.carried = Fields::default();
        let mode = self.value(Field::Mode).to_owned();
        for field in [
            Field::Callsign,
            Field::Exchange,
            Field::Name,
            Field::Grid,
            Field::Notes,
            Field::Time,
            Field::Park,
        ] {
            self.set(field, "");
        }
        self.set(Field::RstSent, default_rst(&mode));
        self.set(Field::RstReceived, default_rst(&mode));
        self.focus = Field::Callsign;
        self.replace_on_type = false;
        self.duplicate = None;
        self.wanted = Wanted::default();
        self.parks = None;
        self.asked = None;
        self.callbook = None;
    }

    /// A value the contact carries with no line of the form: the callbook's state, or one
    /// of the refused contact being fixed.
    pub fn carried(&self, field: Declared) -> Option<&str> {
        self.carried.get(field)
    }

    /// The callbook's answer for `call`, when it is still the call on the form: the name and
    /// grid where the operator typed none, the QTH, state and country kept with the contact
    /// where it has none, and a line saying where the station is and whose answer it is
    /// (with its age when it came from the cache). Nothing typed is ever replaced.
    pub fn looked_up(&mut self, call: &str, found: &Lookup, cached_days: Option<i64>) {
        let typed_call = self.value(Field::Callsign).trim().to_ascii_uppercase();
        if typed_call != call {
            return;
        }
        for (field, value) in [(Field::Name, &found.name), (Field::Grid, &found.grid)] {
            if let Some(value) = value
                && !self.typed(field)
                && self.value(field).trim().is_empty()
            {
                self.set(field, value);
                // The operator is in that field, about to type: the first key typed
                // replaces the callbook's value, as it does a value kept from before.
                if self.focus == field {
                    self.replace_on_type = true;
                }
            }
        }
        for (field, value) in [
            (Declared::Qth, &found.qth),
            (Declared::State, &found.state),
            (Declared::Country, &found.country),
        ] {
            // Kept only in the form the service takes: a callbook's odd value never refuses
            // a contact.
            if let Some(value) = value
                && self.carried.get(field).is_none()
                && let Ok(Some(stored)) = field.def().check(value)
            {
                self.carried.set(field, Some(stored));
            }
        }
        let place = [found.qth.as_deref(), found.state.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", ");
        let age = match cached_days {
            Some(0) => ", cached today".to_owned(),
            Some(days) => format!(", cached {days} d ago"),
            None => String::new(),
        };
        let from = format!("{}{age}", found.source.title());
        self.callbook = Some(if place.is_empty() {
            format!("({from})")
        } else {
            format!("{place} ({from})")
        });
    }

    /// Checks every field and builds the request, timed `now` unless a time was typed.
    /// The error names the field to fix.
    pub fn request(&self, now: Timestamp) -> Result<ContactInput, (Field, String)> {
        let callsign = normalize_callsign("callsign", self.value(Field::Callsign))
            .map_err(|e| (Field::Callsign, e.message))?;
        let frequency = self.frequency().map_err(|m| (Field::Frequency, m))?;
        let mode = token(
            "mode",
            self.value(Field::Mode),
            svc_model::seed::MODE.max,
            "-/",
            "FT8, SSB or CW",
        )
        .map_err(|e| (Field::Mode, e.message))?
        .ok_or((
            Field::Mode,
            "mode is required, e.g. FT8, SSB or CW".to_owned(),
        ))?;
        let rst = |field: Field, name: &str| {
            let value = token(
                name,
                self.value(field),
                svc_model::seed::RST_SENT.max,
                "+-",
                "599 or -12",
            )
            .map_err(|e| (field, e.message))?;
            if let (Some(value), Some(report)) = (&value, Report::of(&mode)) {
                report
                    .check(value)
                    .map_err(|why| (field, format!("{name} {why} for {mode}")))?;
            }
            Ok(value)
        };
        let rst_sent = rst(Field::RstSent, "RST sent")?;
        let rst_received = rst(Field::RstReceived, "RST received")?;
        let name = single_line("name", self.value(Field::Name), svc_model::seed::NAME.max)
            .map_err(|e| (Field::Name, e.message))?;
        // The model's rule, the one the service applies: a grid the form lets through is one
        // the service stores, written as hams write it (FN31pr).
        let grid = Declared::Gridsquare
            .def()
            .check(self.value(Field::Grid))
            .map_err(|e| (Field::Grid, e.message))?;
        let notes = multi_line(
            "notes",
            self.value(Field::Notes),
            svc_model::seed::NOTES.max,
        )
        .map_err(|e| (Field::Notes, e.message))?;
        let time_on = time_on(self.value(Field::Time), now).map_err(|m| (Field::Time, m))?;
        let (sig, sig_info) = match self.references()? {
            (_, refs) if refs.is_empty() => (None, None),
            (program, refs) => (Some(program.sig().to_owned()), Some(refs.join(","))),
        };
        let mut fields = self.carried.clone();
        fields.set(Declared::Gridsquare, grid);
        let mut input = ContactInput {
            folder_id: self.folder_id.clone(),
            callsign,
            frequency,
            mode,
            time_on: time_on.to_string(),
            rst_sent,
            rst_received,
            name,
            notes,
            sig,
            sig_info,
            fields,
            ..ContactInput::default()
        };
        if let Some(contest) = &self.contest {
            contest
                .fill(&mut input, self.value(Field::Exchange))
                .map_err(|m| (Field::Exchange, m))?;
        }
        Ok(input)
    }

    /// The contacts Enter logs: one per park for POTA, since POTA credits one park a record
    /// (a park-to-park contact with a two-fer is two contacts), else the one of [`request`].
    ///
    /// [`request`]: EntryForm::request
    pub fn requests(&self, now: Timestamp) -> Result<Vec<ContactInput>, (Field, String)> {
        let request = self.request(now)?;
        let (program, refs) = self.references()?;
        if program != Program::Pota || refs.len() < 2 {
            return Ok(vec![request]);
        }
        Ok(refs
            .into_iter()
            .map(|park| ContactInput {
                sig_info: Some(park),
                ..request.clone()
            })
            .collect())
    }

    /// The references typed in the park field, checked for the log's program: parks for POTA
    /// (several separated by commas, each once), free text for the others.
    fn references(&self) -> Result<(Program, Vec<String>), (Field, String)> {
        let text = self.value(Field::Park).trim();
        let Some(program) = self.kind.program() else {
            return if text.is_empty() {
                Ok((Program::Pota, Vec::new()))
            } else {
                Err((
                    Field::Park,
                    format!(
                        "{} is your own log and takes no program references; log a park into the POTA hunting log (m then p) or into an activation",
                        self.folder_name
                    ),
                ))
            };
        };
        if text.is_empty() {
            return Ok((program, Vec::new()));
        }
        if program != Program::Pota {
            let reference = single_line("reference", text, 100)
                .map_err(|e| (Field::Park, e.message))?
                .unwrap_or_default();
            return Ok((program, vec![reference]));
        }
        let mut parks: Vec<String> = Vec::new();
        for part in text.split(',').filter(|p| !p.trim().is_empty()) {
            let park = normalize_reference("park", part).map_err(|e| (Field::Park, e.message))?;
            if !parks.contains(&park) {
                parks.push(park);
            }
        }
        Ok((program, parks))
    }

    /// The frequency in MHz (a kHz value is converted, as the server would).
    pub fn frequency(&self) -> Result<f64, String> {
        let text = self.value(Field::Frequency).trim();
        if text.is_empty() {
            return Err("frequency is required, in MHz, e.g. 14.074".into());
        }
        let value = parse_number(text)
            .ok_or_else(|| format!("frequency {text:?} is not a number; type MHz, e.g. 14.074"))?;
        read_frequency("frequency", value)
            .map(|f| f.mhz)
            .map_err(|e| e.message)
    }

    /// The contact in `contacts` that this one would duplicate: the same duplicate key, the
    /// service's (`model::contact::dupe_key`: callsign, band, mode, worked park and UTC day of
    /// the typed time, else of `now`). A two-fer hunted is one contact a park, so any of its
    /// parks already logged is a duplicate.
    pub fn find_duplicate<'a>(
        &self,
        contacts: impl IntoIterator<Item = &'a Contact>,
        now: Timestamp,
    ) -> Option<&'a Contact> {
        let call = self.value(Field::Callsign).trim().to_ascii_uppercase();
        let band = *self.band.as_ref().ok()?;
        let mode = self.value(Field::Mode).trim().to_ascii_uppercase();
        if call.is_empty() || mode.is_empty() {
            return None;
        }
        let time = time_on(self.value(Field::Time), now).unwrap_or(now);
        let (program, parks) = self.references().ok()?;
        let sig = (!parks.is_empty()).then(|| program.sig());
        let keys: Vec<String> = if parks.is_empty() {
            vec![dupe_key(&call, band, &mode, None, None, time)]
        } else {
            parks
                .iter()
                .map(|park| dupe_key(&call, band, &mode, sig, Some(park), time))
                .collect()
        };
        // The callsign is part of the key: the others are passed over without building
        // theirs, so a keystroke stays cheap in a folder of thousands.
        contacts
            .into_iter()
            .filter(|c| c.callsign.eq_ignore_ascii_case(&call))
            .find(|c| keys.contains(&c.dupe_key()))
    }
}

/// A number typed by a person: a decimal comma is read as a point.
fn parse_number(text: &str) -> Option<f64> {
    text.trim()
        .replace(',', ".")
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
}

/// The time-on: `now` when empty; `HHMM`, `HH:MM` or `HH:MM:SS` in UTC; or a whole ISO 8601
/// time with its offset. A time of day later than `now` is read as yesterday's: an operator
/// typing contacts from paper after midnight UTC means the evening that just ended, never a
/// time still to come. A whole time in the future is refused, since no contact has happened
/// there yet.
pub fn time_on(text: &str, now: Timestamp) -> Result<Timestamp, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(now);
    }
    let clock = if text.len() == 4 && text.bytes().all(|b| b.is_ascii_digit()) {
        NaiveTime::parse_from_str(text, "%H%M").ok()
    } else {
        NaiveTime::parse_from_str(text, "%H:%M:%S")
            .or_else(|_| NaiveTime::parse_from_str(text, "%H:%M"))
            .ok()
    };
    if let Some(clock) = clock {
        let today = now.utc_date();
        let at = |day: chrono::NaiveDate| {
            day.and_hms_opt(clock.hour(), clock.minute(), clock.second())
                .map(|t| Timestamp(t.and_utc().timestamp_millis()))
        };
        return match at(today) {
            Some(t) if t <= now => Ok(t),
            Some(_) => today
                .pred_opt()
                .and_then(at)
                .ok_or_else(|| format!("time {text:?} is not a time of day")),
            None => Err(format!("time {text:?} is not a time of day")),
        };
    }
    let at = Timestamp::parse("time", text).map_err(|_| {
        format!(
            "time {text:?} is not a time: type HH:MM (UTC; later than now means yesterday), a full time such as 2026-11-22T14:05:00Z, or leave it empty for now"
        )
    })?;
    if at > now {
        return Err(format!(
            "time {text:?} is in the future (it is {} UTC now): a contact is logged once it has happened; leave the time empty for now",
            now.to_string().get(..16).unwrap_or("").replace('T', " ")
        ));
    }
    Ok(at)
}

/// A form's fault as the message line says it: the field's label, then what to fix. The
/// cursor stays where the operator is typing.
pub fn fault(field: Field, message: &str) -> String {
    format!("{}: {message}", field.label())
}

/// What a key did in an entry form.
pub enum FormKey {
    Close,
    Submit,
    /// The focus moved, or a key changed nothing.
    Stay,
    /// The text of this field changed.
    Edited(Field),
}

pub fn form_key(form: &mut EntryForm, key: KeyEvent) -> FormKey {
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

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
    use svc_model::ContactPatch;

    #[test]
    fn a_report_reached_with_tab_is_typed_over_and_checked_for_the_mode() {
        let key = |c: KeyCode| Event::Key(KeyEvent::new(c, KeyModifiers::NONE));
        let mut form = EntryForm::new("fld_aaaaaaaaaaaaaaaa", "2026-11", "14.285", "SSB");
        form.set(Field::Callsign, "K1ABC");
        for _ in 0..3 {
            form.next_field();
        }
        assert_eq!(form.focus, Field::RstSent);
        assert_eq!(form.value(Field::RstSent), "59");
        form.edit(&key(KeyCode::Char('5')));
        form.edit(&key(KeyCode::Char('7')));
        assert_eq!(form.value(Field::RstSent), "57", "not 5957");
        let now = Timestamp::parse("t", "2026-11-22T14:05:00Z").unwrap();
        assert_eq!(form.request(now).unwrap().rst_sent.as_deref(), Some("57"));
        // End, then typing, adds to the value instead.
        form.next_field();
        form.edit(&key(KeyCode::End));
        form.edit(&key(KeyCode::Char('9')));
        assert_eq!(form.value(Field::RstReceived), "599");
        let (field, why) = form.request(now).unwrap_err();
        assert_eq!(field, Field::RstReceived);
        assert!(why.contains("two digits") && why.contains("SSB"), "{why}");
    }

    fn now() -> Timestamp {
        Timestamp::parse("now", "2026-11-22T14:05:09Z").unwrap()
    }

    fn typed(form: &mut EntryForm, text: &str) {
        for c in text.chars() {
            form.edit(&Event::Key(KeyEvent::new(
                KeyCode::Char(c),
                KeyModifiers::NONE,
            )));
        }
    }

    #[test]
    fn a_yes_given_to_a_folder_made_with_no_link_holds_once_it_reaches_the_service() {
        let mut form = EntryForm::new("local-1", "POTA 2026-11", "14.074", "FT8");
        form.no_park_ok = Some(form.folder_id.clone());
        form.ended_ok = Some("local-other".into());
        let real: Folder = serde_json::from_value(serde_json::json!({
            "id": "fld_aaaaaaaaaaaaaaaa", "name": "POTA 2026-11", "type": "monthly",
            "contactCount": 0, "createdAt": "2026-11-01T00:00:00Z",
        }))
        .unwrap();
        form.resolve("local-1", &real);
        assert_eq!(form.folder_id, "fld_aaaaaaaaaaaaaaaa");
        assert_eq!(form.no_park_ok.as_deref(), Some("fld_aaaaaaaaaaaaaaaa"));
        assert_eq!(
            form.ended_ok.as_deref(),
            Some("local-other"),
            "another folder's yes"
        );
    }

    #[test]
    fn a_callbook_answer_fills_only_what_the_operator_left_alone() {
        use svc_client::lookup::{Lookup, Service};
        let found = Lookup {
            callsign: "W1AW".into(),
            name: Some("Hiram Percy Maxim".into()),
            qth: Some("Newington".into()),
            state: Some("ct".into()),
            grid: Some("FN31pr".into()),
            country: Some("United States".into()),
            dxcc: Some(291),
            cq_zone: Some(5),
            itu_zone: Some(8),
            continent: None,
            source: Service::Qrz,
            fetched_at: now(),
            note: None,
        };
        let mut form = EntryForm::new("fld_x", "x", "14.074", "FT8");
        typed(&mut form, "w1aw");
        // The operator is in Grid and typed it; Name is where the cursor goes next.
        form.focus = Field::Grid;
        typed(&mut form, "FN42");
        form.focus = Field::Name;
        // An answer for another call than the form's: nothing.
        form.looked_up("K1ABC", &found, None);
        assert_eq!(form.value(Field::Name), "");
        form.looked_up("W1AW", &found, Some(3));
        assert_eq!(form.value(Field::Name), "Hiram Percy Maxim");
        assert_eq!(form.value(Field::Grid), "FN42", "typed: kept");
        assert_eq!(
            form.callbook.as_deref(),
            Some("Newington, ct (QRZ, cached 3 d ago)")
        );
        // In the field the answer filled, the first key replaces it.
        typed(&mut form, "Jo");
        assert_eq!(form.value(Field::Name), "Jo");
        let request = form.request(now()).unwrap();
        assert_eq!(request.fields.get(Declared::Qth), Some("Newington"));
        assert_eq!(request.fields.get(Declared::State), Some("CT"));
        assert_eq!(request.fields.get(Declared::Country), Some("United States"));
        assert_eq!(request.fields.get(Declared::Gridsquare), Some("FN42"));
    }

    #[test]
    fn reports_follow_the_mode_until_typed_by_hand() {
        let mut form = EntryForm::new("fld_x", "x", "", "");
        form.focus = Field::Mode;
        typed(&mut form, "SSB");
        assert_eq!(form.value(Field::RstSent), "59");
        assert_eq!(form.value(Field::RstReceived), "59");
        form.set(Field::RstReceived, "57");
        for _ in 0..3 {
            form.edit(&Event::Key(KeyEvent::new(
                KeyCode::Backspace,
                KeyModifiers::NONE,
            )));
        }
        typed(&mut form, "CW");
        assert_eq!(form.value(Field::RstSent), "599");
        assert_eq!(form.value(Field::RstReceived), "57");
    }

    #[test]
    fn only_typing_counts_as_typed_and_the_next_contact_starts_afresh() {
        let mut form = EntryForm::new("fld_x", "x", "14.074", "FT8");
        form.take_from_rig(Field::Frequency, "7.185");
        form.take_from_rig(Field::Mode, "SSB");
        assert_eq!(form.band, Ok("40m"), "the band follows the radio too");
        assert_eq!(
            form.value(Field::RstSent),
            "59",
            "so do reports left at the default"
        );
        assert!(!form.typed(Field::Frequency) && !form.typed(Field::Mode));
        form.focus = Field::Frequency;
        form.edit(&Event::Key(KeyEvent::new(
            KeyCode::Right,
            KeyModifiers::NONE,
        )));
        assert!(
            !form.typed(Field::Frequency),
            "moving the cursor types nothing"
        );
        typed(&mut form, "5");
        assert!(form.typed(Field::Frequency) && !form.typed(Field::Mode));
        form.untype(Field::Frequency);
        assert!(!form.typed(Field::Frequency));
        form.focus = Field::Mode;
        typed(&mut form, "X");
        assert!(form.typed(Field::Mode));
        form.clear_for_next();
        assert!(
            !form.typed(Field::Mode),
            "a logged contact lets the radio in again"
        );
    }

    #[test]
    fn the_band_follows_the_frequency_in_mhz_or_khz() {
        let mut form = EntryForm::new("fld_x", "x", "", "FT8");
        form.focus = Field::Frequency;
        typed(&mut form, "14074");
        assert_eq!(form.band, Ok("20m"));
        assert_eq!(form.frequency(), Ok(14.074));
        form.set(Field::Frequency, "");
        typed(&mut form, "27.185");
        assert_eq!(form.band, Err("not in an amateur band".to_owned()));
        assert!(
            form.frequency()
                .unwrap_err()
                .contains("not in an amateur band")
        );
    }

    #[test]
    fn times_of_day_are_today_in_utc_or_yesterday_when_later_than_now() {
        assert_eq!(time_on("", now()), Ok(now()));
        assert_eq!(
            time_on("1400", now()).unwrap().to_string(),
            "2026-11-22T14:00:00Z"
        );
        assert_eq!(
            time_on("09:30", now()).unwrap().to_string(),
            "2026-11-22T09:30:00Z"
        );
        // The minute of now is today; anything later is the evening before.
        assert_eq!(
            time_on("14:05", now()).unwrap().to_string(),
            "2026-11-22T14:05:00Z"
        );
        assert_eq!(
            time_on("14:05:10", now()).unwrap().to_string(),
            "2026-11-21T14:05:10Z"
        );
        assert_eq!(
            time_on("2350", now()).unwrap().to_string(),
            "2026-11-21T23:50:00Z"
        );
        // Just after midnight UTC, from paper: 23:58 is the day that just ended, across a
        // month and a year.
        let new_year = Timestamp::parse("now", "2027-01-01T00:03:00Z").unwrap();
        assert_eq!(
            time_on("23:58", new_year).unwrap().to_string(),
            "2026-12-31T23:58:00Z"
        );
        assert_eq!(
            time_on("0001", new_year).unwrap().to_string(),
            "2027-01-01T00:01:00Z"
        );
        assert_eq!(
            time_on("2026-11-21T23:59:00Z", now()).unwrap().to_string(),
            "2026-11-21T23:59:00Z"
        );
        for bad in ["25:00", "noon", "2026-11-22T14:05:00", "1460"] {
            assert!(time_on(bad, now()).unwrap_err().contains("HH:MM"), "{bad}");
        }
    }

    #[test]
    fn a_whole_time_in_the_future_is_refused() {
        assert_eq!(
            time_on("2026-11-22T14:05:09Z", now()).unwrap(),
            now(),
            "now itself is no future"
        );
        for ahead in [
            "2026-11-22T14:05:10Z",
            "2026-11-23T09:00:00Z",
            "2026-11-22T15:00:00+00:30",
        ] {
            let message = time_on(ahead, now()).unwrap_err();
            assert!(message.contains("is in the future"), "{ahead}: {message}");
            assert!(message.contains("2026-11-22 14:05 UTC now"), "{message}");
        }
        // An offset that puts it in the past is fine.
        assert_eq!(
            time_on("2026-11-22T15:00:00+01:00", now())
                .unwrap()
                .to_string(),
            "2026-11-22T14:00:00Z"
        );
    }

    #[test]
    fn a_request_is_built_only_from_good_fields() {
        let mut form = EntryForm::new("fld_x", "x", "7.074", "ft8");
        assert_eq!(form.request(now()).unwrap_err().0, Field::Callsign);
        form.set(Field::Callsign, "k1abc");
        let request = form.request(now()).unwrap();
        assert_eq!(request.callsign, "K1ABC");
        assert_eq!(request.frequency, 7.074);
        assert_eq!(request.mode, "FT8");
        assert_eq!(request.rst_sent, None, "FT8 has no made-up report");
        assert_eq!(request.time_on, "2026-11-22T14:05:09Z");
        form.set(Field::Frequency, "abc");
        let (field, message) = form.request(now()).unwrap_err();
        assert_eq!(field, Field::Frequency);
        assert!(message.contains("not a number"), "{message}");
    }

    #[test]
    fn the_grid_is_checked_by_the_models_rule_and_written_as_hams_write_it() {
        let mut form = EntryForm::new("fld_x", "x", "14.074", "FT8");
        form.set(Field::Callsign, "k1abc");
        assert_eq!(
            form.request(now())
                .unwrap()
                .fields
                .get(Declared::Gridsquare),
            None,
            "no grid typed, none sent"
        );
        form.set(Field::Grid, " fn31PR ");
        let request = form.request(now()).unwrap();
        assert_eq!(request.fields.get(Declared::Gridsquare), Some("FN31pr"));
        assert_eq!(
            serde_json::to_value(&request).unwrap()["gridsquare"],
            "FN31pr",
            "on the wire beside the contact's own fields"
        );
        for bad in ["FN3", "ZZ99", "FN31pr0", "grid"] {
            form.set(Field::Grid, bad);
            let (field, why) = form.request(now()).unwrap_err();
            assert_eq!(field, Field::Grid, "{bad}");
            assert!(
                why.contains("gridsquare") && why.contains("Maidenhead"),
                "{bad}: {why}"
            );
        }
    }

    #[test]
    fn the_grid_sits_after_the_name_and_goes_with_the_worked_station() {
        let position = |f: Field| Field::ALL.iter().position(|g| *g == f);
        assert_eq!(
            position(Field::Grid),
            Some(position(Field::Name).unwrap() + 1)
        );
        assert_eq!(
            Field::ALL.last(),
            Some(&Field::Time),
            "Shift-Tab reaches the time"
        );
        let mut form = EntryForm::new("fld_x", "x", "14.074", "FT8");
        form.focus = Field::Grid;
        typed(&mut form, "FN31");
        form.clear_for_next();
        assert_eq!(form.value(Field::Grid), "");
        assert_eq!(form.value(Field::Frequency), "14.074");
    }

    #[test]
    fn a_request_goes_through_the_form_and_back_with_its_grid_and_other_fields() {
        let mut form = EntryForm::new("fld_x", "x", "7.185", "SSB");
        form.set(Field::Callsign, "n0xyz");
        form.set(Field::Name, "Jo");
        form.set(Field::Grid, "jo22");
        let mut request = form.request(now()).unwrap();
        // A field the form has no line for, as `svc contacts create --tx-pwr 5` journals it.
        request.fields.set(Declared::TxPwr, Some("5".into()));
        let again = EntryForm::from_request("fld_x", "x", &request);
        assert_eq!(again.value(Field::Grid), "JO22");
        assert_eq!(again.value(Field::Name), "Jo");
        assert_eq!(again.request(now()).unwrap(), request, "nothing lost");
        // Blanked in the form, the grid goes; the power stays.
        let mut blanked = again.clone();
        blanked.set(Field::Grid, "");
        let fields = blanked.request(now()).unwrap().fields;
        assert_eq!(fields.get(Declared::Gridsquare), None);
        assert_eq!(fields.get(Declared::TxPwr), Some("5"));
        // The next contact carries nothing of this one.
        blanked.clear_for_next();
        blanked.set(Field::Callsign, "k1abc");
        assert!(blanked.request(now()).unwrap().fields.is_empty());
    }

    #[test]
    fn an_edit_names_the_grid_only_when_there_is_one_or_was_one() {
        let mut request: ContactInput = serde_json::from_value(serde_json::json!({
            "folderId": "fld_x", "callsign": "K1ABC", "frequency": 14.074, "mode": "FT8",
            "timeOn": "2026-11-22T14:05:00Z",
        }))
        .unwrap();
        let grid = |edit: &ContactPatch| edit.fields.values.get(&Declared::Gridsquare).cloned();
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
}
