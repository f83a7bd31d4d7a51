//! The flows of the radio: its readings into the entry form where the operator has not
//! typed, and the form's frequency and mode sent to it (Alt-F, Alt-Shift-M).

use super::{App, Effect, Tone};
use crate::client::rig::{RigCommand, RigState, rig_mode_for};
use crate::tui::components::entry::Field;
use crate::tui::components::rig::{form_hz, hz_text};

impl App {
    /// The radio's reading as the logbook names it, with the data mode `PKTUSB` stands for.
    fn rig_reading(&self) -> Option<(u64, String, Option<String>)> {
        let rig = self.rig.as_ref()?;
        rig.reading(&rig.data_mode(&self.contacts.items))
    }

    /// A reading of the radio, or why there is none.
    pub(super) fn rig_read(&mut self, result: Result<RigState, String>) -> Vec<Effect> {
        let Some(rig) = &mut self.rig else {
            return vec![];
        };
        let data_mode = rig.data_mode(&self.contacts.items);
        let reading = result.is_ok();
        if let Some((tone, text)) = rig.read(result, &data_mode) {
            self.say(tone, text);
        }
        if reading {
            self.follow_rig();
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
        if let Some(rig) = &mut self.rig {
            rig.mode_used(mode);
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
