//! The account page's station profiles: set, changed and removed through the page with the
//! API's rules and messages, listed for their account alone, and filling the MY_* fields of
//! the contacts logged under their callsign afterwards.

use serde_json::json;

use super::Browser;
use super::pages::assert_page_headers;
use crate::common::Server;

const PROFILE: [(&str, &str); 6] = [
    ("myGridsquare", "fn31PR"),
    ("myState", "ct"),
    ("myCnty", "Hartford"),
    ("myRig", "IC-7300 <b>"),
    ("myAntenna", "EFHW"),
    ("txPwr", "100"),
];

fn station_profiles_are_set_changed_and_removed_on_the_account_page() {
    let server = Server::start();
    let browser = Browser::signed_up(&server, "W1AW");
    let page = browser.get("/account");
    page.expect(200, "No station profile yet")
        .expect(200, "value=\"W1AW\"");
    assert_page_headers(&page, "/account");

    let mut fields = vec![("callsign", "w1aw")];
    fields.extend(PROFILE);
    let saved = browser.submit("/account", "/account/stations", &fields);
    assert_eq!(saved.location(), "/account?notice=station-saved");
    let page = browser.get("/account?notice=station-saved");
    page.expect(200, "The station profile is saved")
        .expect(200, "FN31pr")
        .expect(200, "CT")
        .expect(200, "IC-7300 &lt;b&gt;");
    assert!(!page.body.contains("IC-7300 <b>"), "escaped: {}", page.body);

    // What the API lists is what the page set, and a contact logged now takes it.
    let (_, key) = browser.generate("laptop", "basic");
    let api = server.api(Some(&key));
    let listed = api.get("/v1/stations");
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert_eq!(listed.body["items"][0]["callsign"], "W1AW");
    assert_eq!(listed.body["items"][0]["myGridsquare"], "FN31pr");
    let folder = api.monthly("2025-06", None);
    let r = api.post(
        "/v1/contacts",
        json!({ "folderId": folder, "callsign": "K1ABC", "frequency": 14.074, "mode": "FT8",
                "timeOn": "2025-06-14T12:00:00Z" }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let stored = api.all_contacts(&folder).remove(0);
    assert_eq!(stored["myGridsquare"], "FN31pr", "{stored}");
    assert_eq!(stored["myState"], "CT", "{stored}");

    // A bad value is refused with the model's message, the form keeps what was typed, and
    // the stored profile is as it was.
    let refused = browser.submit(
        "/account",
        "/account/stations",
        &[
            ("callsign", "W1AW"),
            ("myGridsquare", "ZZ99"),
            ("txPwr", "lots"),
        ],
    );
    refused.expect(400, "Nothing was changed");
    assert!(refused.body.contains("value=\"ZZ99\""), "{}", refused.body);
    assert_eq!(
        api.get("/v1/stations").body["items"][0]["myGridsquare"],
        "FN31pr"
    );
    browser
        .submit("/account", "/account/stations", &[("callsign", "W1AW/<x>")])
        .expect(400, "Nothing was changed");
    browser
        .submit("/account", "/account/stations", &[("callsign", "W1AW/P")])
        .expect(400, "has no value");

    // Change fills the form from the stored profile; saving replaces it whole.
    let change = browser.get("/account?station=W1AW");
    change
        .expect(200, "value=\"Hartford\"")
        .expect(200, "value=\"100\"");
    browser.submit(
        "/account",
        "/account/stations",
        &[("callsign", "W1AW/P"), ("myGridsquare", "FN42")],
    );
    let page = browser.get("/account");
    page.expect(200, "W1AW/P").expect(200, "FN42");

    // Another account sees none of it.
    Browser::signed_up(&server, "K1OTH")
        .get("/account")
        .expect(200, "No station profile yet");

    let removed = browser.submit(
        "/account",
        "/account/stations/delete",
        &[("callsign", "W1AW/P")],
    );
    assert_eq!(removed.location(), "/account?notice=station-deleted");
    let items = api.get("/v1/stations").body["items"].clone();
    assert_eq!(items.as_array().map(Vec::len), Some(1), "{items}");
    browser
        .submit(
            "/account",
            "/account/stations/delete",
            &[("callsign", "W1AW/P")],
        )
        .expect(404, "no such station profile");
}

crate::both_backends!(station_profiles_are_set_changed_and_removed_on_the_account_page);
