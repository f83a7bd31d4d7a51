//! POTA spots: spotting the open activation, the list of activators, and hunting one.

use super::*;

impl App {
    /// Alt-S: a spot of the activation open in Contacts, on the form's frequency and mode
    /// (the radio's, when the form follows one), after a comment. Never with no link: a spot
    /// is not kept for later, since a late one misleads hunters.
    pub(super) fn self_spot(&mut self) -> Vec<Effect> {
        let Some(activation) = self
            .contacts
            .folder
            .clone()
            .filter(|f| f.folder_type == FolderType::Activation && f.in_progress())
        else {
            self.say(
                Tone::Warning,
                "Alt-S spots your activation: open the activation you are on the air in (Alt-A starts one)",
            );
            return vec![];
        };
        if self.connection == Connection::Offline {
            self.say(
                Tone::Warning,
                "no link: not spotted, and not later either, since a late spot misleads hunters",
            );
            return vec![];
        }
        let (frequency, mode) = match &self.entry {
            Some(form) => (
                form.value(Field::Frequency).to_owned(),
                form.value(Field::Mode).to_owned(),
            ),
            None => self.last_frequency_mode.clone().unwrap_or_default(),
        };
        let account = self.me.as_ref().map(|m| m.callsign.as_str());
        match SpotForm::of_activation(&activation, &frequency, &mode, account) {
            Ok(form) => self.dialog = Some(Dialog::Spot(Box::new(form))),
            Err(why) => self.say(Tone::Warning, why),
        }
        vec![]
    }

    /// Alt-Shift-S: the activators on the air, read from POTA now and every 30 s while open;
    /// those worked today in the open log marked.
    pub(super) fn open_spots(&mut self) -> Vec<Effect> {
        let worked = worked_today(self.contacts.logged(), self.now);
        self.dialog = Some(Dialog::Spots(Box::new(SpotList::new(self.now, worked))));
        vec![Effect::LoadSpots]
    }

    /// The open spot list's marks follow the open log: its page may come after the list opened
    /// (the log read again when the link came back), with contacts worked today.
    pub(super) fn mark_worked_spots(&mut self) {
        if let Some(Dialog::Spots(list)) = &mut self.dialog {
            list.worked = worked_today(self.contacts.logged(), self.now);
        }
    }

    /// Enter on a spot: this month's POTA hunting log opens (made if missing, as Alt-M P
    /// makes it), and the form with the spot's call, frequency, mode and park once it is.
    pub(super) fn hunt(&mut self, spot: Spot) -> Vec<Effect> {
        if let Some(why) = self.journal.cannot_log() {
            self.say(Tone::Warning, why);
            return vec![];
        }
        self.hunt = Some(spot);
        vec![Effect::Journal(JournalEffect::LogMonthly {
            month: self.now.utc_month(),
            program: Some(Program::Pota),
        })]
    }

    /// The hunting log is open: the spot goes into the form, and the radio to its frequency
    /// and mode when there is one.
    pub(super) fn hunt_in(&mut self, spot: Spot) -> Vec<Effect> {
        let mut effects = self.open_entry();
        let Some(form) = &mut self.entry else {
            return effects;
        };
        form.hunt(
            &spot.activator,
            &mhz_text(spot.frequency),
            spot.mode.as_deref(),
            &spot.reference,
        );
        // The spot names its park: no need to ask POTA again.
        if let Some(name) = &spot.park_name {
            self.activations
                .park_names
                .entry(spot.reference.clone())
                .or_insert_with(|| name.clone());
        }
        self.check_callsign();
        effects.extend(self.name_form_parks());
        self.say(
            Tone::Info,
            format!(
                "hunting {} at {} on {}: Enter logs it",
                spot.activator,
                spot.reference,
                mhz_text(spot.frequency)
            ),
        );
        if self.rig.is_some() {
            effects.extend(self.send_to_rig(Field::Frequency));
            effects.extend(self.send_to_rig(Field::Mode));
        }
        effects
    }
}
