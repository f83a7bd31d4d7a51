//! The logbook: state updates without a terminal (`state`), every pane and dialog drawn on
//! ratatui's TestBackend against committed snapshots (`render`), and the real `svc` binary in
//! a pseudo-terminal against the real server (`terminal`).

mod callsigns;
mod contest;
mod lookup;
mod needed;
mod offline;
mod outbox;
mod render;
mod rig;
mod spots;
mod state;
pub(crate) mod terminal;
mod wsjtx;

use std::collections::VecDeque;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Value, json};
use svc::client::journal::{Entry, EntryError, EntryRequest, EntryState, Logged};
use svc::client::{ClientError, ServerError};
use svc::model::{Contact, Folder, Timestamp, Whoami};
use svc::tui::action::Source;
use svc::tui::app::Options;
use svc::tui::journal::{JournalAnswer, JournalCopy, JournalEffect};
use svc::tui::{Action, App, Effect, update};

/// The fixed "now" of the state and render tests.
pub const NOW: &str = "2026-11-22T14:05:09Z";

pub fn at(text: &str) -> Timestamp {
    Timestamp::parse("t", text).unwrap()
}

pub const ROOT: &str = "fld_root000000000000";
pub const POTA: &str = "fld_pota000000000000";
pub const MONTH: &str = "fld_month00000000000";
pub const PARK: &str = "fld_park000000000000";
pub const OLD_PARK: &str = "fld_oldpark000000000";

pub fn folder(id: &str, name: &str, kind: &str, parent: Option<&str>, extra: Value) -> Folder {
    let mut record = json!({
        "id": id, "name": name, "type": kind, "parentId": parent,
        "contactCount": 0, "createdAt": "2026-11-01T00:00:00Z",
    });
    for (k, v) in extra.as_object().unwrap() {
        record[k] = v.clone();
    }
    serde_json::from_value(record).unwrap()
}

pub fn folders() -> Vec<Folder> {
    vec![
        folder(ROOT, "All Contacts", "category", None, json!({})),
        folder(
            POTA,
            "POTA",
            "category",
            Some(ROOT),
            json!({"programId": "pota"}),
        ),
        folder(
            "fld_dx00000000000000",
            "DX",
            "category",
            Some(ROOT),
            json!({"programId": "dx"}),
        ),
        folder(
            MONTH,
            "2026-11",
            "monthly",
            Some(ROOT),
            json!({"month": "2026-11", "contactCount": 3}),
        ),
        activation(PARK, "US-1234", "2026-11-22T13:00:00Z", None, 2),
        activation(
            OLD_PARK,
            "K-0001",
            "2026-11-15T09:00:00Z",
            Some("2026-11-15T12:00:00Z"),
            12,
        ),
    ]
}

pub fn activation(id: &str, reference: &str, start: &str, end: Option<&str>, count: i64) -> Folder {
    let day = &start[..10].replace('-', "");
    folder(
        id,
        &format!("W1AW@{reference}-{day}"),
        "activation",
        Some(POTA),
        json!({"programId": "pota", "locationReference": reference, "callsign": "W1AW",
               "startTime": start, "endTime": end, "contactCount": count}),
    )
}

pub fn activations() -> Vec<Folder> {
    folders()
        .into_iter()
        .filter(|f| f.location_reference.is_some())
        .collect()
}

pub fn contact(
    id: &str,
    folder: &str,
    call: &str,
    mhz: f64,
    band: &str,
    mode: &str,
    time: &str,
) -> Contact {
    serde_json::from_value(json!({
        "id": id, "folderId": folder, "callsign": call, "frequency": mhz, "band": band,
        "mode": mode, "timeOn": time, "rstSent": "599", "rstReceived": "599",
        "createdAt": time,
    }))
    .unwrap()
}

pub fn month_contacts() -> Vec<Contact> {
    let mut phone = contact(
        "qso_b",
        MONTH,
        "N0XYZ",
        7.185,
        "40m",
        "SSB",
        "2026-11-22T13:30:00Z",
    );
    phone.rst_sent = Some("59".into());
    phone.rst_received = Some("57".into());
    phone.name = Some("Jo".into());
    phone.notes = Some("portable, QRP".into());
    vec![
        contact(
            "qso_a",
            MONTH,
            "K1ABC",
            14.074,
            "20m",
            "FT8",
            "2026-11-22T14:01:00Z",
        ),
        phone,
        contact(
            "qso_c",
            MONTH,
            "G4ABC",
            21.074,
            "15m",
            "FT8",
            "2026-11-21T18:00:00Z",
        ),
    ]
}

pub fn whoami(count: i64) -> Whoami {
    serde_json::from_value(
        json!({"callsign": "W1AW", "plan": "free", "tier": "elevated",
        "nativeQsoCount": count}),
    )
    .unwrap()
}

pub fn server_error(code: &str, status: u16, message: &str) -> ClientError {
    ClientError::Server(Box::new(ServerError {
        error: code.into(),
        message: message.into(),
        details: None,
        request_id: Some("req_aaaaaaaaaaaaaaaa".into()),
        status,
        retry_after: None,
    }))
}

pub fn offline() -> ClientError {
    ClientError::Transport {
        message: "connection refused".into(),
        attempts: 3,
    }
}

/// A logbook at 80×24 with an empty journal, before the service answered.
pub fn fresh(color: bool) -> App {
    let options = Options {
        color,
        ..Options::default()
    };
    let (mut app, effects) = App::new(options, at(NOW), (80, 24));
    assert_eq!(
        effects,
        [
            Effect::Journal(JournalEffect::Load),
            Effect::LoadWhoami,
            Effect::LoadFolders,
            Effect::LoadActivations
        ]
    );
    let effects = update(
        &mut app,
        Action::Journal(JournalAnswer::Loaded(Ok(JournalCopy::default()))),
    );
    assert!(effects.is_empty(), "{effects:?}");
    app
}

/// Stands in for the journal in state tests: answers journal effects as the real one does
/// (entries waiting, folders local), and hands back the other effects.
#[derive(Default)]
pub struct FakeJournal {
    seq: i64,
    /// Every entry it made, as made.
    pub made: Vec<Entry>,
}

/// An id of the journal's shape for `prefix` (`ent_`, `loc_`): 16 letters of base32.
pub fn journal_id(prefix: &str, n: i64) -> String {
    let letters: String = format!("{n:016}")
        .bytes()
        .map(|b| (b'a' + (b - b'0')) as char)
        .collect();
    format!("{prefix}{letters}")
}

pub fn entry(id: &str, seq: i64, request: EntryRequest) -> Entry {
    Entry {
        id: id.into(),
        seq,
        state: EntryState::Waiting,
        request,
        idempotency_key: format!("KEY{seq}"),
        local_folder_id: None,
        logged_at: at(NOW),
        attempts: 0,
        sent_id: None,
        error: None,
    }
}

impl FakeJournal {
    /// Applies the journal effects among `effects` (and those their answers ask for); returns
    /// the others.
    pub fn run(&mut self, app: &mut App, effects: Vec<Effect>) -> Vec<Effect> {
        let mut others = Vec::new();
        let mut work = VecDeque::from(effects);
        while let Some(effect) = work.pop_front() {
            match effect {
                Effect::Journal(j) => {
                    let answer = self.answer(j);
                    work.extend(update(app, Action::Journal(answer)));
                }
                other => others.push(other),
            }
        }
        others
    }

    /// Presses `code` and runs the journal effects it asks for.
    pub fn press(&mut self, app: &mut App, code: KeyCode) -> Vec<Effect> {
        let effects = press(app, code);
        self.run(app, effects)
    }

    /// Presses Alt and `c` (a command) and runs the journal effects it asks for.
    pub fn alt(&mut self, app: &mut App, c: char) -> Vec<Effect> {
        let effects = alt(app, c);
        self.run(app, effects)
    }

    fn next(&mut self, request: EntryRequest) -> Entry {
        self.seq += 1;
        let mut e = entry(&journal_id("ent_", self.seq), self.seq, request);
        if !matches!(e.request, EntryRequest::Contact(_)) {
            e.local_folder_id = Some(journal_id("loc_", self.seq));
        }
        self.made.push(e.clone());
        e
    }

    fn answer(&mut self, effect: JournalEffect) -> JournalAnswer {
        match effect {
            JournalEffect::Load | JournalEffect::Open { .. } => {
                JournalAnswer::Loaded(Ok(JournalCopy::default()))
            }
            JournalEffect::LogContact(request) => JournalAnswer::Logged {
                result: Ok(self.next(EntryRequest::Contact(request))),
                made: None,
            },
            // Held under its key: the entry made with it, else a new one.
            JournalEffect::LogContactOnce {
                mut request,
                key,
                month,
                echo,
            } => {
                if let Some(held) = self.made.iter().find(|e| e.idempotency_key == key) {
                    return JournalAnswer::LoggedOnce {
                        result: Ok(Logged::Already(held.clone())),
                        made: None,
                        monthly: None,
                        echo,
                    };
                }
                let monthly = month.map(|month| {
                    let JournalAnswer::FolderLogged(Ok(logged)) =
                        self.answer(JournalEffect::LogMonthly {
                            month,
                            program: None,
                        })
                    else {
                        unreachable!("the fake journal makes every month's log")
                    };
                    request.folder_id = logged.1.id.clone();
                    logged
                });
                let mut e = self.next(EntryRequest::Contact(request));
                e.idempotency_key = key;
                if let Some(last) = self.made.last_mut() {
                    last.idempotency_key = e.idempotency_key.clone();
                }
                JournalAnswer::LoggedOnce {
                    result: Ok(Logged::New(e)),
                    made: None,
                    monthly,
                    echo,
                }
            }
            JournalEffect::LogActivation(request) => {
                let start = request.start_time.clone().unwrap();
                let reference = request.location_reference.clone();
                let e = self.next(EntryRequest::Activation(request));
                let local = e.local_folder_id.clone().unwrap();
                let folder = activation(&local, &reference, &start, None, 0);
                JournalAnswer::FolderLogged(Ok((Some(e), folder)))
            }
            JournalEffect::LogMonthly { month, program } => {
                let program_id = program.map(|p| p.id().to_owned());
                // The same log again: the same local folder and its waiting entry.
                let known = self.made.iter().find(|e| {
                    matches!(&e.request, EntryRequest::Monthly { month: m, program_id: p }
                        if *m == month && *p == program_id)
                });
                let e = match known {
                    Some(e) => e.clone(),
                    None => self.next(EntryRequest::Monthly {
                        month: month.clone(),
                        program_id: program_id.clone(),
                    }),
                };
                let local = e.local_folder_id.clone().unwrap();
                let name = match program {
                    Some(p) => format!("{} {month}", p.category_name()),
                    None => month.clone(),
                };
                let folder = folder(
                    &local,
                    &name,
                    "monthly",
                    Some(ROOT),
                    json!({"month": month, "programId": program_id}),
                );
                JournalAnswer::FolderLogged(Ok((Some(e), folder)))
            }
            JournalEffect::Retry { id, request } => {
                let mut e = entry(&id, 0, EntryRequest::Contact(request));
                e.idempotency_key = "KEYNEW".into();
                JournalAnswer::Retried(Ok(e))
            }
            JournalEffect::Discard { id } => JournalAnswer::Discarded {
                id,
                result: Ok(true),
            },
        }
    }
}

/// `entry` as the sender reports it stored, with the contact's new id.
pub fn sent(mut entry: Entry, id: &str) -> Entry {
    entry.state = EntryState::Sent;
    entry.sent_id = Some(id.into());
    entry
}

/// `entry` as the sender reports it refused.
pub fn refused(mut entry: Entry, code: &str, message: &str) -> Entry {
    entry.state = EntryState::Refused;
    entry.error = Some(EntryError {
        status: 400,
        code: code.into(),
        message: message.into(),
        details: None,
    });
    entry
}

/// A logbook whose account, folders and activations came in, with the activation's count.
pub fn loaded() -> App {
    let mut app = fresh(true);
    update(&mut app, Action::WhoamiLoaded(Ok(whoami(12))));
    update(&mut app, Action::FoldersLoaded(Ok(folders())));
    let effects = update(&mut app, Action::ActivationsLoaded(Ok(activations())));
    assert!(effects.contains(&Effect::LoadActivationContacts {
        folder_id: PARK.into()
    }));
    let park = vec![
        contact(
            "qso_p1",
            PARK,
            "K2AA",
            14.285,
            "20m",
            "SSB",
            "2026-11-22T13:10:00Z",
        ),
        contact(
            "qso_p2",
            PARK,
            "K3BB",
            14.285,
            "20m",
            "SSB",
            "2026-11-22T13:12:00Z",
        ),
    ];
    update(
        &mut app,
        Action::ActivationContactsLoaded {
            folder_id: PARK.into(),
            source: Source::Service,
            result: Ok(park),
        },
    );
    app
}

pub fn key(code: KeyCode) -> Action {
    Action::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

pub fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(app, key(code))
}

/// Alt and a letter: a command of the main screen, whether a log is open or not.
pub fn alt(app: &mut App, c: char) -> Vec<Effect> {
    update(
        app,
        Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT)),
    )
}

pub fn typed(app: &mut App, text: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for c in text.chars() {
        effects.extend(press(app, KeyCode::Char(c)));
    }
    effects
}

/// Selects the folder named `name` in the tree with the arrow keys and opens it.
pub fn open(app: &mut App, name: &str) -> Vec<Effect> {
    press(app, KeyCode::Home);
    for _ in 0..app.folders.tree.len() {
        if app.folders.selected().map(|f| f.name.as_str()) == Some(name) {
            return press(app, KeyCode::Enter);
        }
        press(app, KeyCode::Down);
    }
    panic!("no folder {name}");
}

/// The month folder open with its three contacts loaded (one page, no more).
pub fn month_open() -> App {
    let mut app = loaded();
    let effects = open(&mut app, "2026-11");
    let Some(Effect::LoadContacts { generation, .. }) = effects.first() else {
        panic!("{effects:?}")
    };
    let generation = *generation;
    update(
        &mut app,
        Action::ContactsLoaded {
            folder_id: MONTH.into(),
            generation,
            source: Source::Service,
            result: Ok(svc::model::Page {
                items: month_contacts(),
                cursor: None,
            }),
        },
    );
    app
}
