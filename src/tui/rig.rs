//! The radio, read through rigctld: what the logbook knows of it, how its readings fill the
//! entry form, and Alt-F and Alt-Shift-M that send the form's frequency and mode to it. No
//! I/O: the poller in [`super::tasks`] reads the radio every [`POLL`] and answers with
//! [`Action::RigRead`](super::app::Action::RigRead).
//!
//! The form's frequency and mode follow the radio until the operator types in them; from
//! then on they stay as typed for that contact, and follow again once it is logged (or once
//! Alt-F or Alt-Shift-M has put the radio where the form says).

use std::time::Duration;

use super::app::{App, Effect, Tone};
use super::form::{EntryForm, Field};
use crate::client::rig::{
    RigAddress, RigCommand, RigState, is_data_mode, logbook_mode, rig_mode_for,
};
use crate::model::band::mhz_text;

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
fn hz_text(hz: u64) -> String {
    mhz_text(hz as f64 / 1e6)
}

/// The form's frequency in Hz, when it holds one.
fn form_hz(form: &EntryForm) -> Option<u64> {
    form.frequency().ok().map(|mhz| (mhz * 1e6).round() as u64)
}

impl App {
    /// The data mode the radio's `PKTUSB` stands for: the one last logged or sent to the
    /// radio, else the newest in the open folder, else FT8.
    pub fn data_mode(&self) -> String {
        self.rig
            .as_ref()
            .and_then(|r| r.data_mode.clone())
            .or_else(|| {
                self.contacts
                    .items
                    .iter()
                    .find(|c| is_data_mode(&c.mode))
                    .map(|c| c.mode.to_ascii_uppercase())
            })
            .unwrap_or_else(|| DEFAULT_DATA_MODE.to_owned())
    }

    /// The radio's reading as the logbook names it: the frequency in MHz, and the logbook's
    /// mode for the radio's (`None` for one it has no name for).
    fn rig_reading(&self) -> Option<(u64, String, Option<String>)> {
        let RigLink::Reading(state) = &self.rig.as_ref()?.link else {
            return None;
        };
        let mode = logbook_mode(&state.mode, &self.data_mode());
        Some((state.hz, hz_text(state.hz), mode))
    }

    /// What the status bar says of the radio, and whether that is a failure: `rig 14.074
    /// FT8`, `rig lost`, or `rig …` before the first answer.
    pub fn rig_label(&self) -> Option<(String, bool)> {
        let rig = self.rig.as_ref()?;
        Some(match &rig.link {
            RigLink::Waiting => ("rig …".to_owned(), false),
            RigLink::Lost(_) => ("rig lost".to_owned(), true),
            RigLink::Reading(state) => {
                let mode = logbook_mode(&state.mode, &self.data_mode())
                    .unwrap_or_else(|| state.mode.clone());
                (format!("rig {} {mode}", hz_text(state.hz)), false)
            }
        })
    }

    /// A reading of the radio, or why there is none.
    pub(super) fn rig_read(&mut self, result: Result<RigState, String>) -> Vec<Effect> {
        let Some(rig) = &mut self.rig else {
            return vec![];
        };
        let was_lost = matches!(rig.link, RigLink::Lost(_));
        match result {
            Ok(state) => {
                rig.link = RigLink::Reading(state);
                if was_lost && let Some((label, _)) = self.rig_label() {
                    self.say(Tone::Success, format!("{label}: the radio answers again"));
                }
                self.follow_rig();
            }
            Err(why) => {
                let address = rig.address.to_string();
                rig.link = RigLink::Lost(why.clone());
                // Once per loss: the poller keeps trying every half second.
                if !was_lost {
                    self.say(
                        Tone::Warning,
                        format!(
                            "rig lost: {why} at {address}; the logbook keeps trying, and typing goes on"
                        ),
                    );
                }
            }
        }
        vec![]
    }

    /// Puts the radio's frequency and mode in the entry form, where the operator has not
    /// typed them.
    pub(super) fn follow_rig(&mut self) {
        let Some((_, mhz, mode)) = self.rig_reading() else {
            return;
        };
        let Some(form) = &mut self.entry else {
            return;
        };
        let mut changed = false;
        if !form.typed(Field::Frequency) && form.value(Field::Frequency) != mhz {
            form.take_from_rig(Field::Frequency, &mhz);
            changed = true;
        }
        if let Some(mode) = mode
            && !form.typed(Field::Mode)
            && form.value(Field::Mode) != mode
        {
            form.take_from_rig(Field::Mode, &mode);
            changed = true;
        }
        if changed {
            // Another band or mode may make the callsign a duplicate, or no longer one.
            self.check_duplicate();
        }
    }

    /// A contact was logged in `mode`: a data mode is what `PKTUSB` stands for from now on.
    pub(super) fn mode_used(&mut self, mode: &str) {
        if let Some(rig) = &mut self.rig
            && is_data_mode(mode)
        {
            rig.data_mode = Some(mode.trim().to_ascii_uppercase());
        }
    }

    /// Alt-F (`field` the frequency) or Alt-Shift-M (the mode): sends the entry form's value to the
    /// radio, for a change of frequency or mode typed in the logbook.
    pub(super) fn send_to_rig(&mut self, field: Field) -> Vec<Effect> {
        let (key, what) = match field {
            Field::Frequency => ("Alt-F", "frequency"),
            _ => ("Alt-Shift-M", "mode"),
        };
        if self.rig.is_none() {
            self.say(
                Tone::Warning,
                format!(
                    "{key} sends the entry form's {what} to the radio: start svc with --rig HOST:PORT of rigctld, or set rig in the config file"
                ),
            );
            return vec![];
        }
        let Some(form) = &self.entry else {
            self.say(
                Tone::Warning,
                format!(
                    "{key} sends the entry form's {what} to the radio: type it in the entry form, then {key}"
                ),
            );
            return vec![];
        };
        if field == Field::Frequency {
            return match form.frequency() {
                Ok(mhz) => {
                    let hz = (mhz * 1e6).round() as u64;
                    self.say(
                        Tone::Info,
                        format!("tuning the radio to {} MHz…", hz_text(hz)),
                    );
                    vec![Effect::Rig(RigCommand::SetFrequency(hz))]
                }
                Err(why) => {
                    self.say(Tone::Error, format!("not sent to the radio: {why}"));
                    vec![]
                }
            };
        }
        let mode = form.value(Field::Mode).trim().to_ascii_uppercase();
        if mode.is_empty() {
            self.say(
                Tone::Warning,
                "the form has no mode to send: type one there (FT8, SSB, CW), then Alt-Shift-M",
            );
            return vec![];
        }
        // The sideband depends on where the radio will be: the form's frequency, else its own.
        let hz = form_hz(form).or(self.rig_reading().map(|(hz, _, _)| hz));
        let Some(rig_mode) = rig_mode_for(&mode, hz) else {
            self.say(
                Tone::Warning,
                format!("rigctld has no mode that is {mode} on every radio: set it on the radio"),
            );
            return vec![];
        };
        self.mode_used(&mode);
        self.say(
            Tone::Info,
            format!("setting the radio to {rig_mode} for {mode}…"),
        );
        vec![Effect::Rig(RigCommand::SetMode(rig_mode))]
    }

    /// What became of Alt-F or Alt-Shift-M. Once the radio is where the form says, the form's field
    /// follows the radio again.
    pub(super) fn rig_sent(&mut self, command: RigCommand, result: Result<(), String>) {
        let (field, what, done) = match &command {
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
            self.say(Tone::Error, format!("the radio did not take {what}: {why}"));
            return;
        }
        let reading = self.rig_reading().map(|(hz, _, _)| hz);
        if let Some(form) = &mut self.entry {
            let hz = form_hz(form);
            let there = match &command {
                RigCommand::SetFrequency(sent) => hz == Some(*sent),
                RigCommand::SetMode(sent) => {
                    rig_mode_for(form.value(Field::Mode), hz.or(reading)).as_ref() == Some(sent)
                }
            };
            if there {
                form.untype(field);
            }
        }
        self.say(Tone::Success, done);
    }
}
