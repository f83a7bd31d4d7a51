//! The activations page: the signed-in account's activations and no one else's, newest first and
//! a page at a time, each park named from the service's park cache once POTA (the stand-in,
//! tests/common/pota.rs) has been asked in the background, never waiting on POTA, and every
//! name escaped.

use serde_json::json;

use super::pages::assert_page_headers;
use super::{Browser, PASSWORD};
use crate::common::pota::{FakePota, Mode};
use crate::common::{Api, Server, eventually};

/// An activation of `reference` by `callsign` that started at `start`: fixed days, so that a
/// test run across midnight UTC counts as the page does.
fn activation_at(api: &Api, reference: &str, callsign: &str, start: &str) -> String {
    let r = api.post(
        "/v1/activations",
        json!({ "locationReference": reference, "callsign": callsign, "startTime": start }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    r.id()
}

/// Logs `call` on 20m FT8 into the activation at `time`.
fn log(api: &Api, folder: &str, call: &str, time: &str) {
    let r = api.post(
        "/v1/contacts",
        json!({ "folderId": folder, "callsign": call, "frequency": 14.074, "mode": "FT8", "timeOn": time }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
}

/// A signed-up account and an API key it generated on its keys page.
fn account(server: &Server, callsign: &str) -> (Browser, Api) {
    let browser = Browser::signed_up(server, callsign);
    let (_, key) = browser.generate("laptop", "basic");
    (browser, server.api(Some(&key)))
}

/// A page's text as a reader sees it: the markup gone, the entities left as they are.
fn text(body: &str) -> String {
    let mut text = String::with_capacity(body.len());
    let mut in_tag = false;
    for c in body.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text
}

/// Requests POTA's stand-in had for the park `reference`.
fn asked_for(pota: &FakePota, reference: &str) -> usize {
    let path = format!("/park/{reference}");
    pota.seen().iter().filter(|s| s.path == path).count()
}

fn the_page_lists_the_accounts_activations_with_their_parks() {
    let pota = FakePota::start();
    let server = Server::start_with(&["--pota-api-url", &pota.url()]);
    let (owner, api) = account(&server, "W1AW");
    // A two-fer with ten valid contacts and one more of the same call, band and mode.
    let two_fer = activation_at(&api, "US-0001,VE-0123", "W1AW", "2025-06-14T12:00:00Z");
    for n in 0..10 {
        log(
            &api,
            &two_fer,
            &format!("K{n}ABC"),
            &format!("2025-06-14T12:{:02}:00Z", n + 1),
        );
    }
    log(&api, &two_fer, "K0ABC", "2025-06-14T12:30:00Z");
    // An older one, ended, short of 10, of a park POTA does not know.
    let short = activation_at(&api, "US-0002", "W1AW/P", "2025-06-13T15:00:00Z");
    for call in ["N1AA", "N2BB", "N3CC"] {
        log(&api, &short, call, "2025-06-13T15:10:00Z");
    }
    let r = api.post(
        &format!("/v1/activations/{short}/end"),
        json!({ "endTime": "2025-06-13T16:00:00Z" }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let (other, other_api) = account(&server, "K1ABC");
    activation_at(&other_api, "US-0003", "K1ABC", "2025-06-15T09:00:00Z");

    let page = owner.get("/activations");
    page.expect(200, "class=\"ref\">US-0001</a>")
        .expect(200, "class=\"ref\">VE-0123</a>")
        .expect(200, "class=\"ref\">US-0002</a>")
        .expect(200, "W1AW/P")
        .expect(200, "class=\"number\">11<")
        .expect(200, "10 of 10, reached")
        .expect(200, "3 of 10")
        .expect(200, "in progress")
        .expect(200, "to <time datetime=\"2025-06-13T16:00:00Z\">")
        .expect(200, "href=\"/activations\" aria-current=\"page\"");
    assert_page_headers(&page, "/activations");
    assert!(
        page.body.find("US-0001") < page.body.find("US-0002"),
        "newest first: {}",
        page.body
    );
    assert!(
        !page.body.contains("US-0003") && !page.body.contains("K1ABC"),
        "another account's activation: {}",
        page.body
    );

    // The names come from POTA in the background; a later view shows them.
    eventually("the park names on the page", || {
        let text = text(&owner.get("/activations").body);
        text.contains("US-0001 Acadia National Park, US-ME")
            && text.contains("VE-0123 Algonquin Provincial Park, CA-ON")
    });
    // A park POTA does not know keeps its reference alone, and is not asked for again on
    // every view; a park in the cache is not asked for again at all.
    eventually("POTA asked for US-0002", || {
        asked_for(&pota, "US-0002") == 1
    });
    for _ in 0..3 {
        owner
            .get("/activations")
            .expect(200, "class=\"ref\">US-0002</a></li>");
    }
    assert_eq!(asked_for(&pota, "US-0002"), 1);
    assert_eq!(asked_for(&pota, "US-0001"), 1);
    assert_eq!(asked_for(&pota, "VE-0123"), 1);

    let theirs = other.get("/activations");
    theirs.expect(200, "US-0003");
    assert!(!theirs.body.contains("US-0001"), "{}", theirs.body);
}

fn an_activation_over_midnight_counts_each_utc_day() {
    let server = Server::start();
    let (owner, api) = account(&server, "W1AW");
    let folder = activation_at(&api, "US-0001", "W1AW", "2025-06-14T22:00:00Z");
    for n in 0..10 {
        log(
            &api,
            &folder,
            &format!("K{n}ABC"),
            &format!("2025-06-14T23:{:02}:00Z", n * 5),
        );
    }
    // After midnight the same calls count again, on their own day.
    for n in 0..3 {
        log(
            &api,
            &folder,
            &format!("K{n}ABC"),
            &format!("2025-06-15T00:{:02}:00Z", n * 5),
        );
    }
    owner
        .get("/activations")
        .expect(200, "class=\"number\">13<")
        .expect(
            200,
            "2025-06-14: <span class=\"reached\">10 of 10, reached</span>",
        )
        .expect(200, "2025-06-15: <span class=\"short\">3 of 10</span>");
}

fn with_pota_down_the_page_shows_the_references_at_once() {
    let pota = FakePota::start();
    pota.set_mode(Mode::Stall);
    let server = Server::process_with(&["--pota-api-url", &pota.url()]);
    let (owner, api) = account(&server, "W1AW");
    activation_at(&api, "US-0001", "W1AW", "2025-06-14T12:00:00Z");

    let page = owner.get("/activations");
    page.expect(200, "class=\"ref\">US-0001</a></li>");
    assert!(!page.body.contains("Acadia"), "{}", page.body);
    // The page came while its park's request to POTA was unanswered: that request fails only
    // at the POTA client's time-out, and says so in the log.
    assert!(
        !server.logs().contains("no park from POTA"),
        "the page waited for POTA: {}",
        server.logs()
    );
    eventually("POTA asked for US-0001", || {
        asked_for(&pota, "US-0001") == 1
    });
    eventually("the request to POTA given up", || {
        server.logs().contains("no park from POTA")
    });

    // POTA back: a park whose asking failed is left alone for a while, whatever the views.
    pota.set_mode(Mode::Normal);
    for _ in 0..3 {
        let page = owner.get("/activations");
        page.expect(200, "class=\"ref\">US-0001</a></li>");
        assert!(!page.body.contains("Acadia"), "{}", page.body);
    }
    assert_eq!(asked_for(&pota, "US-0001"), 1);
}

fn a_park_name_from_pota_is_escaped() {
    let pota = FakePota::start();
    pota.add_park(json!({
        "reference": "US-6666", "name": "<script>alert(1)</script> & \"Park\" 'x'",
        "locationDesc": "<b>US-XX</b>", "grid4": "FN54"
    }));
    let server = Server::start_with(&["--pota-api-url", &pota.url()]);
    let (owner, api) = account(&server, "W1AW");
    activation_at(&api, "US-6666", "W1AW", "2025-06-14T12:00:00Z");
    let escaped = "US-6666 &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Park&quot; &#39;x&#39;, &lt;b&gt;US-XX&lt;/b&gt;";
    eventually("the park's name on the page", || {
        text(&owner.get("/activations").body).contains(escaped)
    });
    let body = owner.get("/activations").body;
    assert!(
        !body.contains("<script>alert") && !body.contains("<b>US-XX"),
        "{body}"
    );
}

fn signed_out_visitors_are_sent_to_sign_in_and_back() {
    let server = Server::start();
    let visitor = Browser::new(&server);
    let page = visitor.get("/activations");
    assert_eq!(page.location(), "/signin?next=/activations");
    assert_page_headers(&page, "/activations signed out");

    let out = crate::common::admin_on(
        &server.db.url,
        &["user", "add", "W1AW", "--password-stdin"],
        Some(PASSWORD),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let form = visitor.get("/signin?next=/activations");
    let page = visitor.post(
        "/signin",
        &[
            ("csrf", &form.field("csrf")),
            ("next", &form.field("next")),
            ("callsign", "W1AW"),
            ("password", PASSWORD),
        ],
    );
    assert_eq!(page.location(), "/activations");
    visitor
        .get("/activations")
        .expect(200, "No activations yet");
}

/// A contact of 20m SSB at `time` worked from a park to `parks` (a park-to-park contact).
fn log_p2p(api: &Api, folder: &str, call: &str, time: &str, parks: &str) {
    let r = api.post(
        "/v1/contacts",
        json!({ "folderId": folder, "callsign": call, "frequency": 14.285, "mode": "SSB",
                "timeOn": time, "sig": "POTA", "sigInfo": parks }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
}

fn an_activations_page_lists_its_contacts_and_gives_each_parks_pota_file() {
    let server = Server::start();
    let (owner, api) = account(&server, "W1AW");
    let two_fer = activation_at(&api, "US-0001,US-0002", "W1AW/P", "2025-06-14T12:00:00Z");
    for n in 0..3 {
        log(
            &api,
            &two_fer,
            &format!("K{n}ABC"),
            &format!("2025-06-14T12:0{n}:00Z"),
        );
    }
    // A park-to-park contact with a two-fer of its own: a record per park worked.
    log_p2p(
        &api,
        &two_fer,
        "N1PTP",
        "2025-06-14T12:05:00Z",
        "US-0003,US-0004",
    );
    let (other, _) = account(&server, "K1OTH");

    let list = owner.get("/activations");
    list.expect(200, &format!("href=\"/activations/{two_fer}\""));
    let page = owner.get(&format!("/activations/{two_fer}"));
    page.expect(200, "K0ABC")
        .expect(200, "K2ABC")
        .expect(200, "US-0003,US-0004")
        .expect(200, "4 of 10")
        .expect(200, "W1AW_P@US-0001-20250614.adi")
        .expect(200, "W1AW_P@US-0002-20250614.adi")
        .expect(200, "href=\"/activations\" aria-current=\"page\"");
    assert_page_headers(&page, "an activation");

    for park in ["US-0001", "US-0002"] {
        let file = owner.get(&format!("/activations/{two_fer}/pota/{park}"));
        assert_eq!(file.status, 200, "{}", file.body);
        assert_eq!(
            file.header("content-disposition"),
            Some(format!("attachment; filename=\"W1AW_P@{park}-20250614.adi\"").as_str())
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pota.adi");
        std::fs::write(&path, &file.body).unwrap();
        let Some(read) = crate::cli::adif_io::read_by_adif_io(&path) else {
            continue;
        };
        let calls: Vec<&str> = read.iter().map(|r| r["CALL"].as_str()).collect();
        assert_eq!(
            calls,
            ["K0ABC", "K1ABC", "K2ABC", "N1PTP", "N1PTP"],
            "{}",
            file.body
        );
        for record in &read {
            assert_eq!(record["MY_SIG_INFO"], park, "{record:?}");
            assert_eq!(record["STATION_CALLSIGN"], "W1AW/P", "{record:?}");
        }
        let worked: Vec<&str> = read[3..].iter().map(|r| r["SIG_INFO"].as_str()).collect();
        assert_eq!(worked, ["US-0003", "US-0004"]);
    }
    owner
        .get(&format!("/activations/{two_fer}/pota/US-0009"))
        .expect(404, "no such park");
    // Another account's activation, and a folder that is not an activation, are not found.
    other
        .get(&format!("/activations/{two_fer}"))
        .expect(404, "no such activation");
    other
        .get(&format!("/activations/{two_fer}/pota/US-0001"))
        .expect(404, "no such activation");
    let monthly = api.monthly("2025-06", None);
    owner
        .get(&format!("/activations/{monthly}"))
        .expect(404, "no such activation");
}

fn a_long_list_comes_a_page_at_a_time() {
    let server = Server::start();
    let (owner, api) = account(&server, "W1AW");
    for n in 1..=26 {
        activation_at(
            &api,
            &format!("US-{n:04}"),
            "W1AW",
            &format!("2025-06-14T10:{n:02}:00Z"),
        );
    }
    let refs = |page: &super::Page| page.body.matches("class=\"ref\">").count();
    let first = owner.get("/activations");
    first
        .expect(200, ">US-0026<")
        .expect(200, "Older activations");
    assert_eq!(refs(&first), 25, "{}", first.body);
    assert!(!first.body.contains(">US-0001<"), "{}", first.body);
    assert!(!first.body.contains("Newest activations"), "{}", first.body);

    let at = first.body.find("href=\"/activations?cursor=").unwrap() + "href=\"".len();
    let older = &first.body[at..at + first.body[at..].find('"').unwrap()];
    let second = owner.get(older);
    second
        .expect(200, ">US-0001<")
        .expect(200, "Newest activations");
    assert_eq!(refs(&second), 1, "{}", second.body);
    assert!(
        !second.body.contains("Older activations"),
        "{}",
        second.body
    );

    // A cursor the list did not give out is refused with a page, not a guess.
    owner
        .get("/activations?cursor=nonsense")
        .expect(400, "not one the list gave out");
}

crate::both_backends!(
    the_page_lists_the_accounts_activations_with_their_parks,
    an_activation_over_midnight_counts_each_utc_day,
    with_pota_down_the_page_shows_the_references_at_once,
    a_park_name_from_pota_is_escaped,
    signed_out_visitors_are_sent_to_sign_in_and_back,
    a_long_list_comes_a_page_at_a_time,
    an_activations_page_lists_its_contacts_and_gives_each_parks_pota_file,
);
