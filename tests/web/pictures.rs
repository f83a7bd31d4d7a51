//! The pictures of the log: the map (a point per distinct grid and band, 8- and 10-character
//! grids at their own places, bad grids listed and not plotted, the station's grid, no other
//! account's contacts), the award matrices (the API's numbers) and the charts (bars that count
//! what was logged), each for the signed-in account only.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Browser, Page};
use crate::common::{Api, Server};

/// A signed-up account's browser (signed in) and an API key from its keys page.
fn account(server: &Server, callsign: &str) -> (Browser, Api) {
    let browser = Browser::signed_up(server, callsign);
    let (_, key) = browser.generate("laptop", "elevated");
    (browser, server.api(Some(&key)))
}

/// Stores `contacts` in one batch.
fn seed(api: &Api, contacts: Vec<Value>) {
    let r = api.post("/v1/contacts/batch", json!({ "contacts": contacts }));
    assert_eq!(r.status, 200, "{}", r.body);
    for result in r.body["results"].as_array().unwrap() {
        assert_eq!(result["status"], 201, "{result}");
    }
}

/// A contact in `folder` at `time` with `extra` fields.
fn contact(folder: &str, n: usize, time: &str, band_mhz: f64, mode: &str, extra: Value) -> Value {
    let mut body = json!({
        "folderId": folder,
        "callsign": format!("K{n}ABC"),
        "frequency": band_mhz,
        "mode": mode,
        "timeOn": time,
        "idempotencyKey": format!("pictures-{n}"),
    });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    body
}

/// The map's points: each band's `(x, y)` of every `M x y h0` of its path.
fn points(page: &Page) -> BTreeMap<String, Vec<(f64, f64)>> {
    let mut bands = BTreeMap::new();
    for (at, marker) in page
        .body
        .match_indices("<path class=\"points\" data-band=\"")
    {
        let rest = &page.body[at + marker.len()..];
        let band = rest[..rest.find('"').unwrap()].to_owned();
        let d = &rest[rest.find(" d=\"").unwrap() + 4..];
        let d = &d[..d.find('"').unwrap()];
        let found: Vec<(f64, f64)> = d
            .split('M')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let p = p.strip_suffix("h0").unwrap_or_else(|| panic!("{p}"));
                let (x, y) = p.split_once(' ').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect();
        bands.insert(band, found);
    }
    bands
}

fn near(points: &[(f64, f64)], x: f64, y: f64) -> bool {
    points
        .iter()
        .any(|(px, py)| (px - x).abs() < 0.002 && (py - y).abs() < 0.002)
}

fn pages_ask_a_visitor_to_sign_in_first() {
    let server = Server::start();
    let visitor = Browser::new(&server);
    for page in ["/map", "/awards", "/charts"] {
        assert_eq!(
            visitor.get(page).location(),
            format!("/signin?next={page}"),
            "{page}"
        );
    }
}

fn the_map_has_a_point_per_grid_and_band_placed_at_the_grid() {
    let server = Server::start();
    let (owner, api) = account(&server, "W1AW");
    let folder = api.monthly("2025-06", None);
    let at = "2025-06-14T12:00:00Z";
    let grid = |g: &str| json!({ "gridsquare": g });
    let raw = |g: &str| json!({ "adif": { "GRIDSQUARE": g } });
    seed(
        &api,
        vec![
            contact(&folder, 1, at, 14.074, "FT8", grid("FN31")),
            contact(&folder, 2, at, 14.075, "FT8", grid("fn31")),
            contact(&folder, 3, at, 14.076, "FT8", grid("FN31")),
            contact(&folder, 4, at, 7.074, "FT8", grid("FN31")),
            contact(&folder, 5, at, 14.074, "FT8", grid("FN31pr")),
            contact(&folder, 6, at, 14.074, "FT8", grid("FN31PR")),
            contact(&folder, 7, at, 14.074, "SSB", grid("JO22")),
            contact(&folder, 8, at, 21.074, "FT8", grid("FN31pr07")),
            // An ADIF file's 10-character grid, which svc keeps as read.
            contact(&folder, 9, at, 21.074, "FT8", raw("FN31pr07ab")),
            // Not locators: listed, escaped, not plotted.
            contact(&folder, 10, at, 14.074, "FT8", raw("XX99zz")),
            contact(&folder, 11, at, 14.074, "FT8", raw("<b>&x")),
            contact(&folder, 12, at, 14.074, "FT8", json!({})),
        ],
    );
    let r = api.send(
        "PUT",
        "/v1/stations/W1AW",
        Some(&json!({ "myGridsquare": "FN42" })),
        &[],
    );
    assert!(r.status == 200 || r.status == 201, "{}", r.body);
    let (other, other_api) = account(&server, "N0OTH");
    let theirs = other_api.monthly("2025-06", None);
    seed(
        &other_api,
        vec![contact(&theirs, 50, at, 14.074, "FT8", grid("PM95"))],
    );

    let page = owner.get("/map");
    page.expect(200, "href=\"/map\" aria-current=\"page\">Map</a>")
        .expect(200, "9 contacts with a grid, in 2 squares");
    let drawn = points(&page);
    // One point per distinct grid and band: FN31 and FN31PR on 20m (each twice or more,
    // either case), JO22 on 20m; FN31 on 40m; FN31PR07 and FN31PR07AB on 15m.
    let counted: BTreeMap<&str, usize> = drawn.iter().map(|(b, p)| (b.as_str(), p.len())).collect();
    assert_eq!(
        counted,
        BTreeMap::from([("15m", 2), ("20m", 3), ("40m", 1)]),
        "{drawn:?}"
    );
    assert_eq!(page.body.matches("h0").count(), 6);
    // FN31's centre, 41.5 N 73 W, is x 107, y 48.5 (x = lon + 180, y = 90 − lat).
    assert!(near(&drawn["20m"], 107.0, 48.5), "{drawn:?}");
    assert!(near(&drawn["40m"], 107.0, 48.5), "{drawn:?}");
    // JO22: 52.5 N, 5 E.
    assert!(near(&drawn["20m"], 185.0, 37.5), "{drawn:?}");
    // FN31pr: 41.729 N, 72.708 W.
    assert!(near(&drawn["20m"], 107.2917, 48.2708), "{drawn:?}");
    // FN31pr07: 41.7396 N, 72.7458 W; FN31pr07ab inside it at 41.7378 N, 72.7498 W.
    assert!(near(&drawn["15m"], 107.2542, 48.2604), "{drawn:?}");
    assert!(near(&drawn["15m"], 107.2502, 48.2622), "{drawn:?}");
    // The bad grids are listed with their contacts, escaped, and nowhere on the map.
    let listed = &page.body[page.body.find("class=\"bad-grids\"").expect("a list")..];
    assert!(
        listed.contains("<code>XX99ZZ</code>: 1 contact<"),
        "{listed}"
    );
    assert!(
        listed.contains("<code>&lt;B&gt;&amp;X</code>: 1 contact<"),
        "{listed}"
    );
    assert!(!page.body.contains("<B>"));
    // The station's grid, FN42's centre (42.5 N, 71 W).
    assert!(
        page.body
            .contains("<g class=\"station\"><path d=\"M109 47.5"),
        "{}",
        page.body
    );
    assert!(page.body.contains("W1AW: your station"));
    // The other account's grid, PM95 (35.5 N, 139 E: x 319, y 54.5), is theirs alone.
    assert!(!page.body.contains("M319 54.5h0"));
    let theirs = other.get("/map");
    assert_eq!(points(&theirs).get("20m").map(Vec::len), Some(1));
    assert!(theirs.body.contains("M319 54.5h0"), "{}", theirs.body);
    assert!(!theirs.body.contains("XX99ZZ"));
}

/// The page's total of one award (`data-worked`, `data-confirmed` of the award's total).
fn page_total(page: &Page) -> (u64, u64) {
    let at = page.body.find("class=\"award-total\"").expect("a total");
    let attr = |name: &str| -> u64 {
        let rest = &page.body[at..];
        let rest = &rest[rest.find(&format!("{name}=\"")).unwrap() + name.len() + 2..];
        rest[..rest.find('"').unwrap()].parse().unwrap()
    };
    (attr("data-worked"), attr("data-confirmed"))
}

/// The page's worked count of each band column.
fn page_band_totals(page: &Page) -> BTreeMap<String, u64> {
    page.body
        .match_indices("data-column=\"")
        .filter_map(|(at, marker)| {
            let rest = &page.body[at + marker.len()..];
            let column = rest[..rest.find('"').unwrap()].to_owned();
            let rest = &rest[rest.find('"').unwrap() + 1..];
            let value = rest.strip_prefix(" data-worked=\"")?;
            Some((column, value[..value.find('"').unwrap()].parse().unwrap()))
        })
        .collect()
}

fn the_award_pages_totals_are_the_apis() {
    let server = Server::start();
    let (owner, api) = account(&server, "W1AW");
    let folder = api.monthly("2025-06", None);
    let pota = api.monthly("2025-06", Some("pota"));
    let calls = [
        (
            "K1ABC",
            14.074,
            "FT8",
            json!({"state": "MA", "lotwQslRcvd": "Y", "gridsquare": "FN42"}),
        ),
        (
            "W6XYZ",
            7.030,
            "CW",
            json!({"state": "CA", "gridsquare": "CM87"}),
        ),
        ("G4ABC", 14.250, "SSB", json!({"qslRcvd": "Y"})),
        ("JA1XYZ", 21.074, "FT8", json!({"eqslQslRcvd": "Y"})),
        (
            "VE3ABC",
            50.313,
            "FT8",
            json!({"gridsquare": "FN03", "lotwQslRcvd": "Y"}),
        ),
        ("DL1ABC", 144.174, "FT8", json!({"gridsquare": "JO62"})),
        (
            "K2ABC",
            14.062,
            "CW",
            json!({"sig": "POTA", "sigInfo": "US-0001,US-0002"}),
        ),
    ];
    let contacts = calls
        .iter()
        .enumerate()
        .map(|(n, (call, mhz, mode, extra))| {
            let folder = if extra.get("sig").is_some() {
                &pota
            } else {
                &folder
            };
            let mut c = contact(folder, n, "2025-06-14T12:00:00Z", *mhz, mode, extra.clone());
            c["callsign"] = json!(call);
            c
        })
        .collect();
    seed(&api, contacts);
    let activation = api.activation("US-0003", "W1AW");
    seed(
        &api,
        (0..10)
            .map(|n| {
                contact(
                    &activation,
                    100 + n,
                    &format!("2025-06-15T12:{n:02}:00Z"),
                    14.074,
                    "FT8",
                    json!({}),
                )
            })
            .collect(),
    );
    let (other, _) = account(&server, "N0OTH");
    for (award, filters) in [
        ("dxcc", ""),
        ("dxcc", "&band=20m"),
        ("dxcc", "&mode=cw"),
        ("dxcc", "&confirmedBy=eqsl"),
        ("was", ""),
        ("waz", ""),
        ("vucc", ""),
        ("pota-hunter", ""),
        ("pota-activator", ""),
    ] {
        let report = api.get(&format!(
            "/v1/awards/{award}?{}",
            filters.trim_start_matches('&')
        ));
        assert_eq!(report.status, 200, "{}", report.body);
        let page = owner.get(&format!("/awards?award={award}{filters}"));
        assert_eq!(page.status, 200, "{award}{filters}: {}", page.body);
        let mixed = &report.body["totals"]["mixed"];
        let want = (
            mixed["worked"].as_u64().unwrap(),
            mixed["confirmed"].as_u64().unwrap(),
        );
        assert_eq!(page_total(&page), want, "{award}{filters}");
        assert!(
            want.0 > 0,
            "{award}{filters} counts something: {}",
            report.body
        );
        let bands: BTreeMap<String, u64> = report.body["totals"]["bands"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(band, count)| (band.clone(), count["worked"].as_u64().unwrap()))
            .collect();
        assert_eq!(page_band_totals(&page), bands, "{award}{filters}");
        // Another account sees none of it.
        assert_eq!(
            page_total(&other.get(&format!("/awards?award={award}{filters}"))),
            (0, 0)
        );
    }
    // A box ticked a service: two ticked count either, as the API's list of both does.
    let both = owner.get("/awards?award=dxcc&confirmedBy=eqsl&confirmedBy=lotw");
    let report = api.get("/v1/awards/dxcc?confirmedBy=eqsl,lotw");
    let mixed = &report.body["totals"]["mixed"];
    assert_eq!(
        page_total(&both),
        (
            mixed["worked"].as_u64().unwrap(),
            mixed["confirmed"].as_u64().unwrap()
        )
    );
    for (service, ticked) in [
        ("lotw", true),
        ("eqsl", true),
        ("card", false),
        ("qrz", false),
    ] {
        let checkbox = format!("name=\"confirmedBy\" value=\"{service}\" checked");
        assert_eq!(
            both.body.contains(&checkbox),
            ticked,
            "{service}: {}",
            both.body
        );
    }
    owner
        .get("/awards?award=dxcc&confirmedBy=clublog")
        .expect(400, "Club Log");
    owner
        .get("/awards?award=wae")
        .expect(400, "There is no award &quot;wae&quot;");
    owner
        .get("/awards?award=dxcc&band=21m")
        .expect(400, "is not an ADIF band");
}

/// The bars of the chart `id`: label and value of each, in order.
fn bars(page: &Page, id: &str) -> Vec<(String, u64)> {
    let start = page
        .body
        .find(&format!("<figure class=\"chart\" id=\"{id}\">"))
        .unwrap_or_else(|| panic!("no chart {id}: {}", page.body));
    let chart = &page.body[start..];
    let chart = &chart[..chart.find("</figure>").unwrap()];
    chart
        .match_indices("<g class=\"bar\" data-label=\"")
        .map(|(at, marker)| {
            let rest = &chart[at + marker.len()..];
            let label = rest[..rest.find('"').unwrap()].to_owned();
            let rest = &rest[rest.find("data-value=\"").unwrap() + 12..];
            (label, rest[..rest.find('"').unwrap()].parse().unwrap())
        })
        .collect()
}

fn the_charts_bars_count_the_contacts() {
    let server = Server::start();
    let (owner, api) = account(&server, "W1AW");
    let june = api.monthly("2025-06", None);
    let august = api.monthly("2025-08", None);
    let mut contacts = Vec::new();
    for n in 0..5 {
        contacts.push(contact(
            &june,
            n,
            &format!("2025-06-14T0{n}:30:00Z"),
            14.074,
            "FT8",
            json!({}),
        ));
    }
    for n in 5..7 {
        contacts.push(contact(
            &june,
            n,
            "2025-06-20T23:10:00Z",
            7.030,
            "CW",
            json!({}),
        ));
    }
    contacts.push(contact(
        &august,
        7,
        "2025-08-01T04:00:00Z",
        14.250,
        "SSB",
        json!({}),
    ));
    seed(&api, contacts);
    let activation = api.activation("US-0001", "W1AW");
    let active: Vec<Value> = [(12, 1), (12, 4), (12, 9), (12, 25), (12, 29)]
        .iter()
        .enumerate()
        .map(|(i, (h, m))| {
            contact(
                &activation,
                20 + i,
                &format!("2025-09-06T{h}:{m:02}:00Z"),
                14.062,
                "CW",
                json!({}),
            )
        })
        .collect();
    seed(&api, active);

    let page = owner.get("/charts");
    page.expect(200, "href=\"/charts\" aria-current=\"page\">Charts</a>");
    let strings = |bars: &[(&str, u64)]| -> Vec<(String, u64)> {
        bars.iter().map(|(l, v)| (l.to_string(), *v)).collect()
    };
    assert_eq!(
        bars(&page, "chart-1"),
        strings(&[("40m", 2), ("20m", 11)]),
        "per band, low to high"
    );
    assert_eq!(
        bars(&page, "chart-2"),
        strings(&[("CW", 7), ("FT8", 5), ("SSB", 1)]),
        "per mode, most first"
    );
    assert_eq!(
        bars(&page, "chart-3"),
        strings(&[
            ("2025-06", 7),
            ("2025-07", 0),
            ("2025-08", 1),
            ("2025-09", 5)
        ]),
        "per month"
    );
    let hours = bars(&page, "chart-4");
    assert_eq!(hours.len(), 24);
    let expected: BTreeMap<&str, u64> = BTreeMap::from([
        ("00", 1),
        ("01", 1),
        ("02", 1),
        ("03", 1),
        ("04", 2),
        ("12", 5),
        ("23", 2),
    ]);
    for (hour, n) in &hours {
        assert_eq!(
            *n,
            expected.get(hour.as_str()).copied().unwrap_or(0),
            "{hour}"
        );
    }
    // The activation's rate, from the activations page's link.
    let activations = owner.get("/activations");
    let link = format!("/charts?activation={activation}#rate");
    assert!(activations.body.contains(&link), "{}", activations.body);
    let rate = owner.get(&format!("/charts?activation={activation}"));
    assert_eq!(
        bars(&rate, "chart-rate"),
        strings(&[("12:00", 3), ("12:10", 0), ("12:20", 2)])
    );
    // Not another account's activation, nor a folder that is not one.
    let (other, _) = account(&server, "N0OTH");
    other
        .get(&format!("/charts?activation={activation}"))
        .expect(404, "Your log has no such activation");
    owner
        .get(&format!("/charts?activation={june}"))
        .expect(404, "Your log has no such activation");
    let theirs = other.get("/charts");
    assert!(!theirs.body.contains("class=\"bar\""), "{}", theirs.body);
}

crate::both_backends!(
    pages_ask_a_visitor_to_sign_in_first,
    the_map_has_a_point_per_grid_and_band_placed_at_the_grid,
    the_award_pages_totals_are_the_apis,
    the_charts_bars_count_the_contacts,
);
