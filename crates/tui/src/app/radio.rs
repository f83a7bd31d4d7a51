//! The radio: what rigctld reads into the form, and what the form sends to it.

use super::*;

impl App {
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
        let Some(rig) = &self.rig else { return };
        let Some((_, mhz, mode)) = rig.reading(&rig.data_mode(&self.contacts.items)) else {
            return;
        };
        // Another band or mode may make the callsign a duplicate, or no longer one.
        if let Some(form) = &mut self.entry
            && form.follow(&mhz, mode.as_deref())
        {
            self.check_callsign();
        }
    }

    /// Alt-F or Alt-Shift-M: the entry form's frequency or mode to the radio.
    pub(super) fn send_to_rig(&mut self, field: Field) -> Vec<Effect> {
        let Some(rig) = &mut self.rig else {
            self.say(Tone::Warning, no_rig(field));
            return vec![];
        };
        match rig.command(field, self.entry.as_ref(), &self.contacts.items) {
            Ok((command, text)) => {
                self.say(Tone::Info, text);
                vec![Effect::Rig(command)]
            }
            Err((tone, text)) => {
                self.say(tone, text);
                vec![]
            }
        }
    }

    pub(super) fn rig_sent(&mut self, command: RigCommand, result: Result<(), String>) {
        let Some(rig) = &self.rig else { return };
        let (tone, text) = rig.sent(&command, result, self.entry.as_mut(), &self.contacts.items);
        self.say(tone, text);
    }
}
