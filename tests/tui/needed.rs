//! What the call typed would bring the log, and the map, in the real `svc` in a
//! pseudo-terminal at 80×24 against the real server: the form says `new one`, `new band` and
//! how often a call was worked, judged against the whole log (a folder never opened here
//! too), and Alt-V shows the world map with the own grid, the log's grids and the call's
//! bearing and distance.

use serde_json::json;

use super::terminal::Tui;
use crate::cli::{monthly, setup};
use crate::common::{contact, this_month};

fn post(api: &crate::common::Api, body: serde_json::Value) {
    let r = api.post("/v1/contacts", body);
    assert_eq!(r.status, 201, "{}", r.body);
}

/// Opens this month's log by filtering Folders to it.
fn open_month(tui: &mut Tui) {
    let month = this_month().0;
    tui.wait_for(&format!("  {month}  "));
    tui.keys("/");
    tui.keys(&month);
    tui.wait_for(&format!("/{month}"));
    tui.keys("\r");
    tui.keys("\r");
}

#[test]
fn the_form_says_what_a_call_would_bring_the_whole_log() {
    let (_server, api, cli) = setup("elevated");
    monthly(&api);
    // Worked in an activation this logbook never opens: only the whole log knows them.
    let activation = api.activation("US-0001", "W1AW");
    post(&api, contact(&activation, "DL1ABC"));
    for mode in ["FT8", "CW"] {
        let mut k1abc = contact(&activation, "K1ABC");
        k1abc["mode"] = json!(mode);
        post(&api, k1abc);
    }
    let mut tui = Tui::start(&cli, &["tui"], &[]);
    tui.wait_for("QSOs 3/200");
    open_month(&mut tui);
    tui.wait_for("No contacts yet");
    tui.keys("ja1abc");
    tui.wait_for("Japan · AS · CQ 25 · ITU 45 · new one");
    // Germany was worked on 20 m (in the activation): 40 m is a new band, FT8 no new mode.
    tui.keys("\x15dl2xyz\t7.074");
    let screen = tui.wait_for("Fed. Rep. of Germany · EU · CQ 14 · ITU 28 · new band");
    assert!(!screen.contains("new one"), "{screen}");
    assert!(!screen.contains("new mode"), "{screen}");
    // Back on the callsign: a call worked twice says so, and SSB is new for the USA.
    tui.keys("\x1b[Z\x15k1abc\t\t\x15ssb");
    tui.wait_for("United States · NA · CQ 5 · ITU 8 · new band · new mode");
    let screen = tui.wait_for("worked 2 times, last ");
    let today = &this_month().1[..10];
    assert!(screen.contains(&format!("last {today} 20m")), "{screen}");
    // Logged here, a call counts at once: no longer a new one.
    tui.keys("\x1b[Z\x1b[Z\x15ja1abc\r");
    tui.wait_for("logged JA1ABC");
    tui.keys("ja1xyz");
    let screen = tui.wait_for("Japan · AS · CQ 25 · ITU 45");
    assert!(!screen.contains("new one"), "{screen}");
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
}

#[test]
fn the_map_shows_the_log_the_own_grid_and_the_calls_bearing_at_80_by_24() {
    let (_server, api, cli) = setup("elevated");
    let folder = monthly(&api);
    let r = api.send(
        "PUT",
        "/v1/stations/W1AW",
        Some(&json!({"myGridsquare": "FN31pr"})),
        &[],
    );
    assert!(r.status == 201 || r.status == 200, "{}", r.body);
    let mut berlin = contact(&folder, "DL1ABC");
    berlin["gridsquare"] = json!("JO62qm");
    post(&api, berlin);
    post(&api, contact(&folder, "K1ABC"));
    let mut tui = Tui::start(&cli, &["tui"], &[]);
    tui.wait_for("QSOs 2/200");
    open_month(&mut tui);
    tui.wait_for("DL1ABC");
    tui.keys("\x1bv");
    let month = this_month().0;
    let screen = tui.wait_for("◆ FN31pr (station profile)");
    assert!(screen.contains("│1 of 2 contacts with a grid"), "{screen}");
    assert!(screen.contains(&format!("Map · {month}")), "{screen}");
    // The world, in braille dots; the panes are gone.
    assert!(
        screen
            .chars()
            .any(|c| ('\u{2801}'..='\u{28ff}').contains(&c)),
        "{screen}"
    );
    assert!(!screen.contains("Activations"), "{screen}");
    // A call typed opens the form above the map, which says where it is from here.
    tui.keys("ja1abc");
    let own = svc::model::locator::place("FN31pr").unwrap();
    let japan = svc::model::dxcc::Dxcc::shipped();
    let japan = japan.resolve("JA1ABC").unwrap();
    let to = svc::model::locator::Place {
        lat: japan.lat,
        lon: japan.lon,
    };
    let heading = format!(
        "✕ JA1ABC Japan · {:03.0}° {:.0} km (entity)",
        svc::model::locator::bearing(own, to),
        svc::model::locator::distance_km(own, to)
    );
    let screen = tui.wait_for(&heading);
    assert!(screen.contains("Log a contact"), "{screen}");
    // With a grid on the form, the bearing is to it.
    tui.keys("\t\t\t\t\t\tPM95vq");
    let tokyo = svc::model::locator::place("PM95vq").unwrap();
    tui.wait_for(&format!(
        "{:03.0}° {:.0} km (grid PM95vq)",
        svc::model::locator::bearing(own, tokyo),
        svc::model::locator::distance_km(own, tokyo)
    ));
    // Esc closes the form, the map stays; Alt-V goes back to the panes.
    tui.close_form();
    tui.wait_for("◆ FN31pr");
    tui.keys("\x1bv");
    tui.wait_until("the panes back", |s| {
        s.contains("Activations") && !s.contains("◆ FN31pr")
    });
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
}
