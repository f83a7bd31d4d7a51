//! The logbook: state updates without a terminal (`state`), every pane and dialog drawn on
//! ratatui's TestBackend against committed snapshots (`render`), and the real `svc` binary in
//! a pseudo-terminal against the real server (`terminal`).

mod render;
mod state;
mod terminal;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Value, json};
use svc::client::{ClientError, ServerError};
use svc::model::{Contact, Folder, Timestamp, Whoami};
use svc::tui::app::Options;
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

/// A logbook at 80×24 before any answer came.
pub fn fresh(color: bool) -> App {
    let (app, effects) = App::new(Options { color, label: None }, at(NOW), (80, 24));
    assert_eq!(
        effects,
        [
            Effect::LoadWhoami,
            Effect::LoadFolders,
            Effect::LoadActivations
        ]
    );
    app
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
        if app.selected_folder().map(|f| f.name.as_str()) == Some(name) {
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
            result: Ok(svc::model::Page {
                items: month_contacts(),
                cursor: None,
            }),
        },
    );
    app
}
