//! The keys of the dialogs in front of the panes, and what each answer means: the entry form
//! (and its fix and edit forms), the spot list and spot form, the activation and contest
//! dialogs, and the yes-or-no prompts.

use super::*;

impl App {
    /// A key while a dialog is open: the dialog's own, then what its answer means.
    pub(super) fn dialog_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(dialog) = self.dialog.take() else {
            return vec![];
        };
        match dialog {
            // Any key closes the help; quitting was handled before.
            Dialog::Help => vec![],
            Dialog::Spots(mut list) => {
                let height = crate::components::spots::list_height(self.screen());
                match list.key(key, height) {
                    SpotsKey::Close => vec![],
                    SpotsKey::Stay => {
                        self.dialog = Some(Dialog::Spots(list));
                        vec![]
                    }
                    SpotsKey::Hunt(spot) => self.hunt(*spot),
                }
            }
            Dialog::Spot(mut form) => match form.key(key) {
                SpotKey::Cancel => {
                    self.say(Tone::Info, "not spotted");
                    vec![]
                }
                SpotKey::Stay => {
                    self.dialog = Some(Dialog::Spot(form));
                    vec![]
                }
                SpotKey::Send(spot) => {
                    self.say(
                        Tone::Info,
                        format!("spotting {} at {}…", spot.activator, spot.reference),
                    );
                    vec![Effect::Spot(spot)]
                }
            },
            Dialog::Prompt(prompt) => {
                let answer = prompt.answer(&key);
                self.prompt_answered(prompt, answer)
            }
            Dialog::Edit(mut edit) => match send_key(&mut edit.form, key, self.now) {
                Done::Close => {
                    self.say(Tone::Info, "the contact stays as it was");
                    vec![]
                }
                Done::Send(request) => {
                    let id = edit.contact_id.clone();
                    self.say(Tone::Info, format!("saving {}…", request.callsign));
                    let request = edit_request(request, edit.stored_grid.as_deref());
                    // Open until the service answers: a refusal leaves the text to fix.
                    self.dialog = Some(Dialog::Edit(edit));
                    self.in_flight += 1;
                    vec![Effect::EditContact { id, request }]
                }
                done => {
                    if let Done::Fault(text) = done {
                        self.say(Tone::Error, text);
                    }
                    self.dialog = Some(Dialog::Edit(edit));
                    vec![]
                }
            },
            Dialog::Fix(mut fix) => match send_key(&mut fix.form, key, self.now) {
                Done::Close => {
                    self.say(Tone::Info, "the refused contact stays as it was");
                    vec![]
                }
                Done::Send(request) => {
                    let id = fix.entry_id.clone();
                    // Open until the journal has it: a failure leaves the text to fix.
                    self.dialog = Some(Dialog::Fix(fix));
                    vec![Effect::Journal(JournalEffect::Retry { id, request })]
                }
                done => {
                    if let Done::Fault(text) = done {
                        self.say(Tone::Error, text);
                    }
                    self.dialog = Some(Dialog::Fix(fix));
                    vec![]
                }
            },
            Dialog::Activation(mut form) => match form.key(key) {
                ActivationKey::Cancel => vec![],
                // One activation per program, callsign, park and UTC day: the one of today
                // is opened as it is, ended or not, rather than logged again.
                ActivationKey::Submit(request)
                    if let Some(known) = self.activations.todays(&request) =>
                {
                    self.folder_logged(None, known)
                }
                ActivationKey::Submit(mut request) => {
                    // The activation starts now, whenever the service hears of it.
                    request.start_time = Some(self.now.to_string());
                    self.dialog = Some(Dialog::Activation(form));
                    vec![Effect::Journal(JournalEffect::LogActivation(request))]
                }
                ActivationKey::Fault(message) => {
                    self.say(Tone::Error, message);
                    self.dialog = Some(Dialog::Activation(form));
                    vec![]
                }
                ActivationKey::Stay => {
                    self.dialog = Some(Dialog::Activation(form));
                    vec![]
                }
            },
            Dialog::Contest(form) => self.contest_form_key(form, key),
            Dialog::Entry => {
                self.dialog = Some(Dialog::Entry);
                let Some(form) = &mut self.entry else {
                    return vec![];
                };
                // Alt-W wipes the contact being typed, as in N1MM+: call, name, grid, notes,
                // park and time, the reports back to the mode's; frequency and mode stay.
                if key.code == KeyCode::Char('w') && key.modifiers.contains(KeyModifiers::ALT) {
                    form.clear_for_next();
                    self.say(Tone::Info, "the form is cleared for a new contact");
                    return vec![];
                }
                if let Some(i) = partials::picked(&key) {
                    return self.pick_partial(i);
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
                                | Field::Exchange
                                | Field::Frequency
                                | Field::Mode
                                | Field::Time
                                | Field::Park
                        ) {
                            self.check_callsign();
                        }
                        let mut effects = self.ask_callbook(false);
                        if field == Field::Park {
                            effects.extend(self.name_form_parks());
                        }
                        effects
                    }
                    // Tab off the callsign: the call is complete, the callbook is asked now.
                    FormKey::Stay => self.ask_callbook(false),
                }
            }
        }
    }

    /// What a prompt's answer does.
    fn prompt_answered(&mut self, prompt: Prompt, answer: Answer) -> Vec<Effect> {
        let yes = answer == Answer::Yes;
        match prompt {
            Prompt::Delete { id, label } if yes => {
                self.say(Tone::Info, format!("deleting {label}…"));
                self.in_flight += 1;
                vec![Effect::DeleteContact { id }]
            }
            Prompt::Delete { label, .. } => {
                self.say(Tone::Info, format!("kept {label}"));
                vec![]
            }
            Prompt::Ended { label } => self.log_anyway(
                yes,
                format!("not logged into {label}, which has ended; the form keeps it"),
                |form| form.ended_ok = Some(form.folder_id.clone()),
            ),
            Prompt::NoPark { label } => self.log_anyway(
                yes,
                format!("not logged into {label}: type the park worked, the form keeps the rest"),
                |form| form.no_park_ok = Some(form.folder_id.clone()),
            ),
            Prompt::Discard { id, .. } if yes => {
                vec![Effect::Journal(JournalEffect::Discard { id })]
            }
            Prompt::Discard { label, .. } => {
                self.say(Tone::Info, format!("kept {label} in the journal"));
                vec![]
            }
            Prompt::End { id, label } if yes => {
                self.say(Tone::Info, format!("ending activation {label}…"));
                self.in_flight += 1;
                vec![Effect::EndActivation { id }]
            }
            Prompt::End { label, .. } => {
                self.say(Tone::Info, format!("activation {label} goes on"));
                vec![]
            }
            Prompt::Quit { .. } => {
                if yes {
                    self.quit = true;
                } else {
                    self.say(Tone::Info, "svc goes on");
                }
                vec![]
            }
            // Through the journal with a link or without: it finds the log in its copy, or
            // makes a local one that the sender creates on the service.
            Prompt::Month => match answer {
                Answer::Month(program) => vec![Effect::Journal(JournalEffect::LogMonthly {
                    month: self.now.utc_month(),
                    program,
                })],
                _ => vec![],
            },
        }
    }
}
