//! The radio, read through rigctld: the link's state, the data mode its `PKTUSB` stands for,
//! and what the status bar says of it. The poller in the runtime reads the radio every
//! [`POLL`]; the flows that put its readings into the entry form, and send the form's
//! frequency and mode to it (Alt-F, Alt-Shift-M), are the app's.

use std::time::Duration;

use crate::components::entry::{EntryForm, Field};
use crate::widgets::Tone;
use svc_client::rig::{RigAddress, RigCommand, RigState, is_data_mode, logbook_mode, rig_mode_for};
use svc_model::Contact;
use svc_model::band::mhz_text;

/// How often the radio is read: the form keeps up with the tuning knob, and rigctld and the
/// radio's CAT port see two short requests a time.
pub const POLL: Duration = Duration::from_millis(500);

/// The data mode a radio's `PKTUSB` stands for when the operator has worked none yet.
pub const DEFAULT_DATA_MODE: &str = "FT8";

/// Where the link to the radio stands.
#[derive(Debug, Clone, PartialEq)]
pub enum RigLink {
    /// No answer yet.
    Waiting,
    Reading(RigState),
    /// The last request failed, and why; the poller keeps trying.
    Lost(String),
}

/// The radio as the logbook knows it.
#[derive(Debug, Clone)]
pub struct RigPanel {
    pub address: RigAddress,
    pub link: RigLink,
    /// The data mode (FT4, JS8, …) the operator last logged or sent to the radio.
    pub data_mode: Option<String>,
}

impl RigPanel {
    pub fn new(address: RigAddress) -> RigPanel {
        RigPanel {
            address,
            link: RigLink::Waiting,
            data_mode: None,
        }
    }
}

/// MHz of a frequency in Hz, as the form and the status bar write it.
pub fn hz_text(hz: u64) -> String {
    mhz_text(hz as f64 / 1e6)
}

/// The form's frequency in Hz, when it holds one.
pub fn form_hz(form: &EntryForm) -> Option<u64> {
    form.frequency().ok().map(|mhz| (mhz * 1e6).round() as u64)
}

impl RigPanel {
    /// The data mode the radio's `PKTUSB` stands for: the one last logged or sent to the
    /// radio, else the newest in `contacts` (the open folder's), else FT8.
    pub fn data_mode(&self, contacts: &[Contact]) -> String {
        self.data_mode
            .clone()
            .or_else(|| {
                contacts
                    .iter()
                    .find(|c| is_data_mode(&c.mode))
                    .map(|c| c.mode.to_ascii_uppercase())
            })
            .unwrap_or_else(|| DEFAULT_DATA_MODE.to_owned())
    }

    /// The radio's reading as the logbook names it: Hz, the frequency in MHz, and the
    /// logbook's mode for the radio's (`None` for one it has no name for).
    pub fn reading(&self, data_mode: &str) -> Option<(u64, String, Option<String>)> {
        let RigLink::Reading(state) = &self.link else {
            return None;
        };
        Some((
            state.hz,
            hz_text(state.hz),
            logbook_mode(&state.mode, data_mode),
        ))
    }

    /// What the status bar says of the radio, and whether that is a failure: `rig 14.074
    /// FT8`, `rig lost`, or `rig …` before the first answer.
    pub fn label(&self, data_mode: &str) -> (String, bool) {
        match &self.link {
            RigLink::Waiting => ("rig …".to_owned(), false),
            RigLink::Lost(_) => ("rig lost".to_owned(), true),
            RigLink::Reading(state) => {
                let mode =
                    logbook_mode(&state.mode, data_mode).unwrap_or_else(|| state.mode.clone());
                (format!("rig {} {mode}", hz_text(state.hz)), false)
            }
        }
    }

    /// A reading of the radio, or why there is none; what to tell the operator, once per
    /// loss and once the radio is back.
    pub fn read(
        &mut self,
        result: Result<RigState, String>,
        data_mode: &str,
    ) -> Option<(Tone, String)> {
        let was_lost = matches!(self.link, RigLink::Lost(_));
        match result {
            Ok(state) => {
                self.link = RigLink::Reading(state);
                was_lost.then(|| {
                    let (label, _) = self.label(data_mode);
                    (Tone::Success, format!("{label}: the radio answers again"))
                })
            }
            Err(why) => {
                let address = self.address.to_string();
                self.link = RigLink::Lost(why.clone());
                // Once per loss: the poller keeps trying every half second.
                (!was_lost).then(|| {
                    (
                        Tone::Warning,
                        format!(
                            "rig lost: {why} at {address}; the logbook keeps trying, and typing goes on"
                        ),
                    )
                })
            }
        }
    }

    /// A contact was logged in `mode`: a data mode is what `PKTUSB` stands for from now on.
    pub fn mode_used(&mut self, mode: &str) {
        if is_data_mode(mode) {
            self.data_mode = Some(mode.trim().to_ascii_uppercase());
        }
    }

    /// Alt-F (`field` the frequency) or Alt-Shift-M (the mode): the command that puts the
    /// radio where the entry form says, and what the message line says meanwhile; or why
    /// nothing is sent.
    pub fn command(
        &mut self,
        field: Field,
        form: Option<&EntryForm>,
        contacts: &[Contact],
    ) -> Result<(RigCommand, String), (Tone, String)> {
        let Some(form) = form else {
            let (key, what) = keys(field);
            return Err((
                Tone::Warning,
                format!(
                    "{key} sends the entry form's {what} to the radio: type it in the entry form, then {key}"
                ),
            ));
        };
        if field == Field::Frequency {
            return match form.frequency() {
                Ok(mhz) => {
                    let hz = (mhz * 1e6).round() as u64;
                    Ok((
                        RigCommand::SetFrequency(hz),
                        format!("tuning the radio to {} MHz…", hz_text(hz)),
                    ))
                }
                Err(why) => Err((Tone::Error, format!("not sent to the radio: {why}"))),
            };
        }
        let mode = form.value(Field::Mode).trim().to_ascii_uppercase();
        if mode.is_empty() {
            return Err((
                Tone::Warning,
                "the form has no mode to send: type one there (FT8, SSB, CW), then Alt-Shift-M"
                    .to_owned(),
            ));
        }
        // The sideband depends on where the radio will be: the form's frequency, else its own.
        let reading = self.reading(&self.data_mode(contacts)).map(|(hz, _, _)| hz);
        let Some(rig_mode) = rig_mode_for(&mode, form_hz(form).or(reading)) else {
            return Err((
                Tone::Warning,
                format!("rigctld has no mode that is {mode} on every radio: set it on the radio"),
            ));
        };
        self.mode_used(&mode);
        let text = format!("setting the radio to {rig_mode} for {mode}…");
        Ok((RigCommand::SetMode(rig_mode), text))
    }

    /// What became of a command: what to say, and, once the radio is where the form says, the
    /// form's field follows the radio again.
    pub fn sent(
        &self,
        command: &RigCommand,
        result: Result<(), String>,
        form: Option<&mut EntryForm>,
        contacts: &[Contact],
    ) -> (Tone, String) {
        let (field, what, done) = match command {
            RigCommand::SetFrequency(hz) => {
                let mhz = hz_text(*hz);
                (
                    Field::Frequency,
                    format!("{mhz} MHz"),
                    format!("the radio is on {mhz} MHz"),
                )
            }
            RigCommand::SetMode(mode) => {
                (Field::Mode, mode.clone(), format!("the radio is in {mode}"))
            }
        };
        if let Err(why) = result {
            return (Tone::Error, format!("the radio did not take {what}: {why}"));
        }
        let reading = self.reading(&self.data_mode(contacts)).map(|(hz, _, _)| hz);
        if let Some(form) = form {
            let hz = form_hz(form);
            let there = match command {
                RigCommand::SetFrequency(sent) => hz == Some(*sent),
                RigCommand::SetMode(sent) => {
                    rig_mode_for(form.value(Field::Mode), hz.or(reading)).as_ref() == Some(sent)
                }
            };
            if there {
                form.untype(field);
            }
        }
        (Tone::Success, done)
    }
}

/// The keys that send a field to the radio, and the field's name.
fn keys(field: Field) -> (&'static str, &'static str) {
    match field {
        Field::Frequency => ("Alt-F", "frequency"),
        _ => ("Alt-Shift-M", "mode"),
    }
}

/// Why a field cannot go to the radio when the logbook has none.
pub fn no_rig(field: Field) -> String {
    let (key, what) = keys(field);
    format!(
        "{key} sends the entry form's {what} to the radio: start svc with --rig HOST:PORT of rigctld, or set rig in the config file"
    )
}
