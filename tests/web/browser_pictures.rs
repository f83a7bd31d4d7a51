//! The pictures of the log in a real headless Chromium: the map, the awards and the charts,
//! each drawn (inline SVG, under the pages' content security policy) and fitting a phone and a
//! desktop, with screenshots of both for a person to look at; and an activation's rate reached
//! from its row on the activations page.

use std::time::Duration;

use headless_chrome::browser::tab::Tab;
use headless_chrome::types::Bounds;
use serde_json::json;

use super::browser::{
    assert_fits, chromium_or_say_why, click_and_wait, js, js_bool, launch, path_of, screenshot,
    type_into,
};
use crate::common::{Api, Server};

fn size(tab: &Tab, width: f64, height: f64) {
    tab.set_bounds(Bounds::Normal {
        left: None,
        top: None,
        width: Some(width),
        height: Some(height),
    })
    .unwrap();
}

fn open(tab: &Tab, url: &str) {
    tab.navigate_to(url)
        .unwrap()
        .wait_until_navigated()
        .unwrap();
}

/// A log across the world and the bands, a station profile and an activation.
fn seed(api: &Api) -> String {
    let folder = api.monthly("2025-06", None);
    let grids = [
        ("FN31pr", 14.074),
        ("FN42", 7.074),
        ("EM12", 14.074),
        ("DM79", 21.074),
        ("JO22", 14.074),
        ("IO91wm", 7.030),
        ("PM95", 21.074),
        ("QF56", 14.074),
        ("GG66", 28.074),
        ("KP20", 50.313),
        ("FN31pr07", 144.174),
        ("BL11", 14.074),
    ];
    let mut contacts: Vec<serde_json::Value> = grids
        .iter()
        .enumerate()
        .map(|(n, (grid, mhz))| {
            json!({"folderId": folder, "callsign": format!("K{n}ABC"), "frequency": mhz,
                "mode": if n.is_multiple_of(3) { "CW" } else { "FT8" },
                "timeOn": format!("2025-06-{:02}T{:02}:15:00Z", 1 + n, (n * 5) % 24),
                "gridsquare": grid, "lotwQslRcvd": if n.is_multiple_of(2) { "Y" } else { "N" },
                "idempotencyKey": format!("browser-pictures-{n}")})
        })
        .collect();
    contacts.push(
        json!({"folderId": folder, "callsign": "K99ABC", "frequency": 14.074,
        "mode": "FT8", "timeOn": "2025-06-20T12:00:00Z", "adif": {"GRIDSQUARE": "ZZ99"},
        "idempotencyKey": "browser-pictures-bad"}),
    );
    let r = api.post("/v1/contacts/batch", json!({ "contacts": contacts }));
    assert_eq!(r.status, 200, "{}", r.body);
    for result in r.body["results"].as_array().unwrap() {
        assert_eq!(result["status"], 201, "{result}");
    }
    let r = api.send(
        "PUT",
        "/v1/stations/W1AW",
        Some(&json!({ "myGridsquare": "FN31pr" })),
        &[],
    );
    assert!(r.status == 200 || r.status == 201, "{}", r.body);
    let activation = api.activation("US-0001", "W1AW");
    for n in 0..14 {
        let r = api.post(
            "/v1/contacts",
            json!({"folderId": activation, "callsign": format!("N{n}XYZ"),
                "frequency": 14.062, "mode": "CW",
                "timeOn": format!("2025-09-06T12:{:02}:00Z", n * 3)}),
        );
        assert_eq!(r.status, 201, "{}", r.body);
    }
    activation
}

/// Signs in and draws the map, the awards and the charts on a phone and a desktop.
fn the_pictures_in_a_real_browser() {
    let Some(path) = chromium_or_say_why() else {
        return;
    };
    let server = Server::start();
    let out = crate::common::admin_on(
        &server.db.url,
        &["user", "add", "W1AW", "--password-stdin"],
        Some(super::PASSWORD),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let api = server.new_key("W1AW", "elevated");
    seed(&api);
    let profile = tempfile::tempdir().unwrap();
    let browser = launch(path, profile.path());
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(Duration::from_secs(30));

    open(&tab, &format!("{}/map", server.url));
    assert_eq!(path_of(&tab), "/signin?next=/map");
    type_into(&tab, "#callsign", "w1aw");
    type_into(&tab, "#password", super::PASSWORD);
    click_and_wait(&tab, "form[action='/signin'] button[type='submit']");
    assert_eq!(path_of(&tab), "/map");

    // The map is drawn: land, a band's points and the station, as wide as the page allows.
    let drawn = "(() => { const svg = document.querySelector('.map svg'); \
        const land = svg.querySelector('.land').getBBox(); \
        return svg.getBoundingClientRect().width > 300 && land.width > 300 \
          && svg.querySelectorAll('path.points').length >= 5 \
          && svg.querySelector('.station').getBBox().width > 0; })()";
    let parts = "(() => { const svg = document.querySelector('.map svg'); \
        return JSON.stringify([svg.getBoundingClientRect().width, svg.querySelector('.land').getBBox().width, \
          svg.querySelectorAll('path.points').length, svg.querySelector('.station').getBBox().width]); })()";
    assert!(
        js_bool(&tab, drawn),
        "the map is drawn: {:?}",
        js(&tab, parts)
    );
    assert_eq!(
        js(&tab, "document.querySelectorAll('.bad-grids li').length").as_u64(),
        Some(1)
    );
    assert_fits(&tab, "the map on a phone");
    screenshot(&tab, "map-phone.png");
    size(&tab, 1280.0, 800.0);
    assert_fits(&tab, "the map on a desktop");
    screenshot(&tab, "map-desktop.png");

    open(&tab, &format!("{}/awards?award=dxcc", server.url));
    assert!(
        js(
            &tab,
            "document.querySelectorAll('table.matrix tbody tr').length"
        )
        .as_u64()
        .unwrap()
            >= 1
    );
    assert_fits(&tab, "the awards on a desktop");
    screenshot(&tab, "awards-desktop.png");
    size(&tab, 390.0, 844.0);
    assert_fits(&tab, "the awards on a phone");
    screenshot(&tab, "awards-phone.png");

    open(&tab, &format!("{}/charts", server.url));
    assert_eq!(
        js(
            &tab,
            "document.querySelectorAll('.charts figure.chart').length"
        )
        .as_u64(),
        Some(4)
    );
    let bars =
        "Array.from(document.querySelectorAll('#chart-1 rect')).every(r => r.getBBox().width > 0)";
    assert!(js_bool(&tab, bars), "the bars are drawn");
    assert_fits(&tab, "the charts on a phone");
    screenshot(&tab, "charts-phone.png");
    size(&tab, 1280.0, 800.0);
    assert_fits(&tab, "the charts on a desktop");
    screenshot(&tab, "charts-desktop.png");

    // An activation's rate, from its row on the activations page.
    open(&tab, &format!("{}/activations", server.url));
    click_and_wait(&tab, "table.activations a.rate");
    assert!(path_of(&tab).starts_with("/charts?activation="));
    assert_eq!(
        js(
            &tab,
            "document.querySelectorAll('#chart-rate g.bar').length"
        )
        .as_u64(),
        Some(4)
    );
    size(&tab, 390.0, 844.0);
    assert_fits(&tab, "an activation's rate on a phone");
    screenshot(&tab, "rate-phone.png");
}

crate::both_backends!(the_pictures_in_a_real_browser);
