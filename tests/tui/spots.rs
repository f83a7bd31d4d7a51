//! POTA spots in the real `svc` in a pseudo-terminal, against the POTA stand-in: the hunter's
//! list (Alt-Shift-S) filtered and turned into a contact, the parks typed in the form named,
//! and the activator's own spot (Alt-S), sent once as POTA takes it and never again after a
//! failure.

use serde_json::json;

use super::terminal::Tui;
use crate::cli::setup;
use crate::common::pota::{FakePota, Mode};

#[test]
fn a_spot_from_the_list_becomes_a_hunter_contact() {
    let (_server, api, cli) = setup("elevated");
    let pota = FakePota::start();
    cli.set_env("SVC_POTA_API_URL", &pota.url());
    let mut tui = Tui::start(&cli, &["tui"], &[]);
    tui.wait_for("QSOs 0/200");
    tui.keys("\x1bS");
    tui.wait_for("POTA spots");
    tui.wait_for("Acadia National Park");
    // K9BAD was taken back by POTA and K9NOF has no frequency: neither is listed.
    let screen = tui.wait_for("VE3XYZ");
    assert!(
        !screen.contains("K9BAD") && !screen.contains("K9NOF"),
        "{screen}"
    );
    // Typing filters: the 20 m phone spots.
    tui.keys("20m ssb");
    let screen = tui.wait_until("the filter applied", |s| {
        s.contains("filter: 20m ssb") && !s.contains("VE3XYZ")
    });
    assert!(
        screen.contains("W1AW") && !screen.contains("K2ABC"),
        "{screen}"
    );
    tui.keys("\r");
    tui.wait_for("hunting W1AW at US-0001 on 14.285");
    let screen = tui.wait_for("Callsign  W1AW");
    assert!(
        screen.contains("14.285") && screen.contains("SSB"),
        "{screen}"
    );
    assert!(screen.contains("Park      US-0001"), "{screen}");
    tui.keys("\r");
    tui.wait_for("logged W1AW 20m SSB");
    tui.wait_for("0 waiting");
    let folder = api.monthly(&crate::common::this_month().0, Some("pota"));
    let stored = api.all_contacts(&folder);
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(
        json!([
            stored[0]["callsign"],
            stored[0]["sig"],
            stored[0]["sigInfo"],
            stored[0]["mode"]
        ]),
        json!(["W1AW", "POTA", "US-0001", "SSB"])
    );
    // Worked today: marked in the list.
    tui.close_form();
    tui.keys("\x1bS");
    tui.wait_for("POTA spots");
    tui.wait_until("W1AW marked worked", |s| {
        s.lines().any(|l| l.contains("W1AW") && l.contains('✓'))
    });
    // Esc alone, apart from the next key, so the two are not read as Alt and that key.
    std::thread::sleep(std::time::Duration::from_millis(100));
    tui.keys("\x1b");
    tui.wait_until("the list closed", |s| !s.contains("POTA spots"));
    std::thread::sleep(std::time::Duration::from_millis(100));
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
}

#[test]
fn the_parks_typed_in_the_hunting_log_are_named() {
    let (_server, _api, cli) = setup("elevated");
    let pota = FakePota::start();
    cli.set_env("SVC_POTA_API_URL", &pota.url());
    let mut tui = Tui::start(&cli, &["tui"], &[]);
    tui.wait_for("QSOs 0/200");
    tui.keys("\x1bm");
    tui.wait_for("p  POTA hunting");
    tui.keys("p");
    tui.wait_for("opened the POTA");
    tui.keys("\x1bn");
    tui.wait_for("Log a contact");
    // Shift-Tab twice: from the callsign back past the time to the park.
    tui.keys("k1abc\x1b[Z\x1b[Zus-0001,ve-0123");
    tui.wait_for("US-0001 Acadia National Park · VE-0123 Algonquin Provincial Park");
    // A reference on its way (US-0, US-00, US-000) asks POTA nothing.
    let asked: Vec<String> = pota
        .seen()
        .into_iter()
        .filter(|s| s.path.starts_with("/park/"))
        .map(|s| s.path)
        .collect();
    assert_eq!(asked, ["/park/US-0001", "/park/VE-0123"]);
    tui.close_form();
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
}

#[test]
fn an_activator_spots_once_and_a_failed_spot_is_not_sent_again() {
    let (_server, _api, cli) = setup("elevated");
    let pota = FakePota::start();
    cli.set_env("SVC_POTA_API_URL", &pota.url());
    let mut tui = Tui::start(&cli, &["tui"], &[]);
    tui.wait_for("QSOs 0/200");
    tui.wait_for("No activations");
    tui.keys("\x1ba");
    tui.wait_for("Start an activation");
    tui.keys("us-0001, us-0002\r");
    tui.wait_for("activation US-0001,US-0002 started");
    tui.keys("k1aa\t14.285\tssb\r");
    tui.wait_for("logged K1AA");
    // From the form: its frequency and mode, the first park, the second in the comment.
    tui.keys("\x1bs");
    tui.wait_for("Spot W1AW at US-0001 on 14.285 SSB");
    tui.wait_for("2fer with US-0002");
    tui.keys(" QRT 15z\r");
    tui.wait_for("spotted W1AW at US-0001 on 14.285 SSB");
    assert_eq!(
        pota.posted(),
        [json!({
            "activator": "W1AW", "spotter": "W1AW", "frequency": "14285",
            "reference": "US-0001", "mode": "SSB", "source": "svc",
            "comments": "2fer with US-0002 QRT 15z",
        })]
    );
    // POTA fails: said, and not sent again by itself.
    pota.set_mode(Mode::ServerError);
    tui.keys("\x1bs");
    tui.wait_for("Spot W1AW at US-0001");
    tui.keys("\r");
    tui.wait_for("not spotted:");
    assert_eq!(pota.posted().len(), 2);
    std::thread::sleep(std::time::Duration::from_secs(3));
    assert_eq!(pota.posted().len(), 2, "a failed spot is never sent later");
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
}

/// With no link, Alt-S sends nothing and keeps nothing to send: a late spot misleads hunters.
#[test]
fn no_spot_with_no_link() {
    use svc::tui::components::status::Connection;
    use svc::tui::{Action, Effect, update};
    let mut app = super::loaded();
    super::open(&mut app, "W1AW@US-1234-20261122");
    update(
        &mut app,
        Action::Sender(svc::client::journal::SenderEvent::Offline(
            "no route".into(),
        )),
    );
    assert_eq!(app.connection, Connection::Offline);
    let effects = super::alt(&mut app, 's');
    assert!(
        !effects.iter().any(|e| matches!(e, Effect::Spot(_))),
        "{effects:?}"
    );
    assert!(app.dialog.is_none());
    let text = &app.status.as_ref().unwrap().text;
    assert!(text.starts_with("no link: not spotted"), "{text}");
}
