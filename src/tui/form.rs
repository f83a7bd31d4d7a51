//! The entry form (one contact) and the activation form: their fields, defaults and the local
//! checks that turn them into requests. Everything here is pure: the time comes in as `now`.

use crate::model::mode::ModeClass;
use chrono::{NaiveTime, Timelike};
use tui_input::Input;

use crate::client::NewActivationRequest;
use crate::client::NewContactRequest;
use crate::model::band::read_frequency;
use crate::model::callsign::normalize_callsign;
use crate::model::contact::dupe_key;
// The model's declared fields, named apart from the form's own `Field`.
use crate::model::fields::{Field as Declared, Fields};
use crate::model::program::{normalize_reference, normalize_reference_list, parse_program_id};
use crate::model::text::{multi_line, single_line, token};
use crate::model::{Contact, Folder, FolderType, Program, Timestamp};

/// The entry form's fields, in the order Tab walks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Callsign,
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
    pub const ALL: [Field; 10] = [
        Field::Callsign,
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

/// How a mode's signal reports are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report {
    /// Phone: readability and strength, `59`.
    Rs,
    /// CW and the keyboard data modes: readability, strength and tone, `599`.
    Rst,
    /// The weak-signal modes (FT8, FT4, …): the signal-to-noise ratio in dB, `-12`, `+05`.
    Db,
}

impl Report {
    /// The report a mode takes, from its class (model::mode); RST for a mode svc does not know.
    pub fn of(mode: &str) -> Option<Report> {
        if mode.trim().is_empty() {
            return None;
        }
        Some(match ModeClass::of(mode) {
            Some(ModeClass::Phone | ModeClass::DigitalVoice) => Report::Rs,
            Some(ModeClass::WeakSignal) => Report::Db,
            Some(ModeClass::Cw | ModeClass::Data) | None => Report::Rst,
        })
    }

    /// Checks a report typed for this kind; the error says what to type.
    pub fn check(self, value: &str) -> Result<(), String> {
        let digits = |text: &str, first: &str, rest: &str| {
            let mut bytes = text.bytes();
            bytes.next().is_some_and(|b| first.as_bytes().contains(&b))
                && bytes.all(|b| rest.as_bytes().contains(&b))
        };
        let ok = match self {
            Report::Rs => value.len() == 2 && digits(value, "12345", "123456789"),
            Report::Rst => value.len() == 3 && digits(value, "12345", "123456789"),
            Report::Db => {
                let number = value.strip_prefix(['+', '-']).unwrap_or(value);
                (1..=2).contains(&number.len())
                    && number.bytes().all(|b| b.is_ascii_digit())
                    && number.parse::<u8>().is_ok_and(|n| n <= 50)
            }
        };
        if ok {
            return Ok(());
        }
        Err(match self {
            Report::Rs => format!("{value:?} is not a phone report: two digits, e.g. 59 or 57"),
            Report::Rst => format!("{value:?} is not an RST report: three digits, e.g. 599 or 579"),
            Report::Db => format!("{value:?} is not a report in dB: e.g. -12 or +05 (-50 to +50)"),
        })
    }
}

/// Phone modes get a two-digit report (59), CW and the keyboard data modes three digits (599);
/// the weak-signal modes none, since their report is measured, not given.
pub fn default_rst(mode: &str) -> &'static str {
    match Report::of(mode) {
        None | Some(Report::Db) => "",
        Some(Report::Rs) => "59",
        Some(Report::Rst) => "599",
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
}

impl LogKind {
    pub fn of(folder: &Folder) -> LogKind {
        match (
            folder.folder_type,
            folder.program_id.as_deref().and_then(Program::from_id),
        ) {
            (FolderType::Activation, _) => LogKind::Activation,
            (_, Some(program)) => LogKind::Hunting(program),
            _ => LogKind::Custom,
        }
    }

    /// The program whose references the park field takes.
    fn program(self) -> Option<Program> {
        match self {
            LogKind::Custom => None,
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
    pub inputs: Vec<Input>,
    pub focus: Field,
    /// The band the frequency lies in, or why it lies in none.
    pub band: Result<&'static str, String>,
    /// The contact this one would duplicate, as a warning line.
    pub duplicate: Option<String>,
    /// The ended activation the operator said yes to logging into.
    pub ended_ok: Option<String>,
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
            inputs: vec![Input::default(); Field::ALL.len()],
            focus: Field::Callsign,
            band: Err(String::new()),
            duplicate: None,
            ended_ok: None,
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
    pub fn from_request(
        folder_id: &str,
        folder_name: &str,
        request: &NewContactRequest,
    ) -> EntryForm {
        let mut form = EntryForm::new(
            folder_id,
            folder_name,
            &crate::model::band::mhz_text(request.frequency),
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
        form.carried = request.fields.clone();
        form.carried.set(Declared::Gridsquare, None);
        form
    }

    /// Points the form at `folder`: its id, name and kind of log.
    pub fn set_folder(&mut self, folder: &Folder) {
        self.folder_id = folder.id.clone();
        self.folder_name = folder.name.clone();
        self.kind = LogKind::of(folder);
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

    pub fn next_field(&mut self) {
        let i = (self.focus.index() + 1) % Field::ALL.len();
        self.focus_on(Field::ALL[i]);
    }

    pub fn previous_field(&mut self) {
        let i = (self.focus.index() + Field::ALL.len() - 1) % Field::ALL.len();
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
    pub fn clear_for_next(&mut self) {
        self.typed = [false; Field::ALL.len()];
        self.carried = Fields::default();
        let mode = self.value(Field::Mode).to_owned();
        for field in [
            Field::Callsign,
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
    }

    /// Checks every field and builds the request, timed `now` unless a time was typed.
    /// The error names the field to fix.
    pub fn request(&self, now: Timestamp) -> Result<NewContactRequest, (Field, String)> {
        let callsign = normalize_callsign("callsign", self.value(Field::Callsign))
            .map_err(|e| (Field::Callsign, e.message))?;
        let frequency = self.frequency().map_err(|m| (Field::Frequency, m))?;
        let mode = token("mode", self.value(Field::Mode), 20, "-/", "FT8, SSB or CW")
            .map_err(|e| (Field::Mode, e.message))?
            .ok_or((
                Field::Mode,
                "mode is required, e.g. FT8, SSB or CW".to_owned(),
            ))?;
        let rst = |field: Field, name: &str| {
            let value = token(name, self.value(field), 10, "+-", "599 or -12")
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
        let name = single_line(
            "name",
            self.value(Field::Name),
            crate::model::contact::MAX_NAME,
        )
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
            crate::model::contact::MAX_NOTES,
        )
        .map_err(|e| (Field::Notes, e.message))?;
        let time_on = time_on(self.value(Field::Time), now).map_err(|m| (Field::Time, m))?;
        let (sig, sig_info) = match self.references()? {
            (_, refs) if refs.is_empty() => (None, None),
            (program, refs) => (Some(program.sig().to_owned()), Some(refs.join(","))),
        };
        let mut fields = self.carried.clone();
        fields.set(Declared::Gridsquare, grid);
        Ok(NewContactRequest {
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
            my_sig: None,
            my_sig_info: None,
            station_callsign: None,
            fields,
        })
    }

    /// The contacts Enter logs: one per park for POTA, since POTA credits one park a record
    /// (a park-to-park contact with a two-fer is two contacts), else the one of [`request`].
    ///
    /// [`request`]: EntryForm::request
    pub fn requests(&self, now: Timestamp) -> Result<Vec<NewContactRequest>, (Field, String)> {
        let request = self.request(now)?;
        let (program, refs) = self.references()?;
        if program != Program::Pota || refs.len() < 2 {
            return Ok(vec![request]);
        }
        Ok(refs
            .into_iter()
            .map(|park| NewContactRequest {
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
        contacts.into_iter().find(|c| keys.contains(&c.dupe_key()))
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

/// The fields of the activation form, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActivationField {
    Reference,
    Callsign,
    Program,
}

impl ActivationField {
    pub const ALL: [ActivationField; 3] = [
        ActivationField::Reference,
        ActivationField::Callsign,
        ActivationField::Program,
    ];

    pub fn label(self) -> &'static str {
        match self {
            ActivationField::Reference => "Reference",
            ActivationField::Callsign => "Callsign",
            ActivationField::Program => "Program",
        }
    }
}

#[derive(Debug, Clone)]
pub struct ActivationForm {
    pub inputs: Vec<Input>,
    pub focus: ActivationField,
}

impl ActivationForm {
    pub fn new(callsign: &str) -> ActivationForm {
        ActivationForm {
            inputs: vec![
                Input::default(),
                Input::new(callsign.to_owned()),
                Input::new("pota".to_owned()),
            ],
            focus: ActivationField::Reference,
        }
    }

    /// Fills in the activator's callsign if none was typed yet.
    pub fn default_callsign(&mut self, callsign: &str) {
        let field = &mut self.inputs[ActivationField::Callsign as usize];
        if field.value().is_empty() {
            *field = Input::new(callsign.to_owned());
        }
    }

    pub fn value(&self, field: ActivationField) -> &str {
        self.inputs[field as usize].value()
    }

    pub fn input(&self, field: ActivationField) -> &Input {
        &self.inputs[field as usize]
    }

    pub fn next_field(&mut self, back: bool) {
        let n = ActivationField::ALL.len();
        let i = self.focus as usize + if back { n - 1 } else { 1 };
        self.focus = ActivationField::ALL[i % n];
    }

    pub fn edit(&mut self, event: &ratatui::crossterm::event::Event) {
        use tui_input::backend::crossterm::EventHandler;
        self.inputs[self.focus as usize].handle_event(event);
    }

    pub fn request(&self) -> Result<NewActivationRequest, (ActivationField, String)> {
        // A two-fer names its parks with commas (US-0001,US-0002): one activation of each.
        let reference =
            normalize_reference_list("reference", self.value(ActivationField::Reference))
                .map_err(|e| (ActivationField::Reference, e.message))?;
        let callsign = normalize_callsign("callsign", self.value(ActivationField::Callsign))
            .map_err(|e| (ActivationField::Callsign, e.message))?;
        let program = parse_program_id("program", self.value(ActivationField::Program))
            .map_err(|e| (ActivationField::Program, e.message))?;
        if !program.supports_activations() {
            return Err((
                ActivationField::Program,
                format!(
                    "program {} is hunting-only and does not support activations; use pota",
                    program.id()
                ),
            ));
        }
        Ok(NewActivationRequest {
            location_reference: reference,
            callsign,
            program_id: Some(program.id().to_owned()),
            location_name: None,
            start_time: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

    #[test]
    fn reports_are_checked_for_the_mode() {
        assert_eq!(Report::of("ssb"), Some(Report::Rs));
        assert_eq!(Report::of("CW"), Some(Report::Rst));
        assert_eq!(Report::of("FT8"), Some(Report::Db));
        assert_eq!(Report::of(""), None);
        for ok in ["59", "57", "11"] {
            assert!(Report::Rs.check(ok).is_ok(), "{ok}");
        }
        for bad in ["599", "5", "69", "50", "5a"] {
            assert!(Report::Rs.check(bad).is_err(), "{bad}");
        }
        for ok in ["599", "579", "339"] {
            assert!(Report::Rst.check(ok).is_ok(), "{ok}");
        }
        for bad in ["59", "5999", "699", "-12"] {
            assert!(Report::Rst.check(bad).is_err(), "{bad}");
        }
        for ok in ["-12", "+05", "0", "-3", "+50"] {
            assert!(Report::Db.check(ok).is_ok(), "{ok}");
        }
        for bad in ["599", "-51", "--1", "+", "12dB"] {
            assert!(Report::Db.check(bad).is_err(), "{bad}");
        }
    }

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
    fn activation_requests_refuse_hunting_programs() {
        let mut form = ActivationForm::new("W1AW");
        assert_eq!(form.request().unwrap_err().0, ActivationField::Reference);
        form.inputs[0] = Input::new("us-1234".into());
        assert_eq!(form.request().unwrap().location_reference, "US-1234");
        form.inputs[2] = Input::new("dx".into());
        let (field, message) = form.request().unwrap_err();
        assert_eq!(field, ActivationField::Program);
        assert!(message.contains("hunting-only"));
    }
}
