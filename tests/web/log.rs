//! The log page: the signed-in account's contacts and no one else's, newest first and a page at
//! a time, every value escaped, and the whole log downloaded as ADI and ADX through the API's
//! streaming export, read back with svc's own ADIF reader.

use serde_json::{Value, json};
use svc::adif::{Reader, Record};

use super::pages::assert_page_headers;
use super::{Browser, PASSWORD};
use crate::common::{Api, Server};

/// A signed-up account, signed in again through the page, and an API key from its keys page.
fn account(server: &Server, callsign: &str) -> (Browser, Api) {
    let signed_up = Browser::signed_up(server, callsign);
    let (_, key) = signed_up.generate("laptop", "elevated");
    let browser = Browser::new(server);
    assert_eq!(browser.sign_in(callsign, PASSWORD).location(), "/log");
    (browser, server.api(Some(&key)))
}

/// A contact of 2025-06-14 at `minute` past 12:00 UTC, in the monthly folder `folder`.
fn contact_at(folder: &str, call: &str, minute: u32) -> Value {
    json!({
        "folderId": folder,
        "callsign": call,
        "frequency": 14.074,
        "mode": "FT8",
        "timeOn": format!("2025-06-14T{:02}:{:02}:00Z", 12 + minute / 60, minute % 60),
        "idempotencyKey": format!("log-{call}-{minute}"),
    })
}

/// Stores `contacts` in one batch.
fn seed(api: &Api, contacts: Vec<Value>) {
    let r = api.post("/v1/contacts/batch", json!({ "contacts": contacts }));
    assert_eq!(r.status, 200, "{}", r.body);
    for result in r.body["results"].as_array().unwrap() {
        assert_eq!(result["status"], 201, "{result}");
    }
}

/// The calls of a log page's rows, in order.
fn calls(page: &super::Page) -> Vec<String> {
    page.body
        .match_indices("<th scope=\"row\" data-label=\"Call\" class=\"call\"><a href=\"/log/")
        .map(|(at, marker)| {
            let rest = &page.body[at + marker.len()..];
            let rest = &rest[rest.find('>').unwrap() + 1..];
            rest[..rest.find('<').unwrap()].to_owned()
        })
        .collect()
}

fn records(text: &str) -> Vec<Record> {
    Reader::new(text.as_bytes())
        .unwrap()
        .collect::<Result<Vec<Record>, _>>()
        .unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn the_log_lists_the_accounts_contacts_newest_first_a_page_at_a_time() {
    let server = Server::start();
    let (owner, api) = account(&server, "W1AW");
    let folder = api.monthly("2025-06", None);
    seed(
        &api,
        (0..55)
            .map(|n| contact_at(&folder, &format!("K{n}ABC"), n))
            .collect(),
    );
    let (_, other_api) = account(&server, "N0OTH");
    let theirs = other_api.monthly("2025-06", None);
    seed(&other_api, vec![contact_at(&theirs, "VE3XYZ", 70)]);

    let first = owner.get("/log");
    first
        .expect(200, "href=\"/log\" aria-current=\"page\">Log</a>")
        .expect(200, ">Online logbooks</a>")
        .expect(
            200,
            "<time datetime=\"2025-06-14T12:54:00Z\">2025-06-14 12:54</time>",
        )
        .expect(200, "Older contacts");
    assert_page_headers(&first, "/log");
    let shown = calls(&first);
    assert_eq!(shown.len(), 50, "{}", first.body);
    assert_eq!(shown[0], "K54ABC", "newest first");
    assert_eq!(shown[49], "K5ABC");
    assert!(!first.body.contains("VE3XYZ"), "another account's contact");
    assert!(!first.body.contains("Newest contacts"));

    let at = first.body.find("href=\"/log?cursor=").unwrap() + "href=\"".len();
    let older = &first.body[at..at + first.body[at..].find('"').unwrap()];
    let second = owner.get(older);
    second.expect(200, "Newest contacts");
    assert_eq!(
        calls(&second),
        ["K4ABC", "K3ABC", "K2ABC", "K1ABC", "K0ABC"],
        "{}",
        second.body
    );
    assert!(!second.body.contains("Older contacts"));

    // A cursor the log did not give out is refused with a page, not a guess.
    owner
        .get("/log?cursor=nonsense")
        .expect(400, "not one the log gave out");
}

fn a_row_shows_the_contacts_fields_and_escapes_them() {
    let server = Server::start();
    let (owner, api) = account(&server, "W1AW");
    let folder = api.monthly("2025-06", Some("pota"));
    let mut hunted = contact_at(&folder, "K9PRK", 1);
    hunted["sig"] = json!("POTA");
    hunted["sigInfo"] = json!("US-0001");
    hunted["rstSent"] = json!("-10");
    hunted["rstReceived"] = json!("-07");
    hunted["name"] = json!("<script>alert(1)</script> & \"Bob\"");
    hunted["notes"] = json!("<img src=x onerror=alert(2)>");
    hunted["lotwQslRcvd"] = json!("Y");
    hunted["qslRcvd"] = json!("Y");
    let mut again = contact_at(&folder, "K9PRK", 2);
    again["frequency"] = json!(14.0745);
    again["sig"] = json!("POTA");
    again["sigInfo"] = json!("US-0001");
    seed(&api, vec![hunted, again]);

    let page = owner.get("/log");
    page.expect(200, "<span class=\"ref\">US-0001</span>")
        .expect(200, ">-10/-07<")
        .expect(200, ">20m<")
        .expect(200, ">FT8<")
        .expect(200, ">14.0745<")
        .expect(200, "class=\"marks\">LQ<")
        .expect(200, "<span class=\"dupe\">dupe</span>")
        .expect(
            200,
            "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Bob&quot;",
        );
    assert!(!page.body.contains("<script>alert"), "{}", page.body);
    assert!(!page.body.contains("<img src=x"), "{}", page.body);
    assert_eq!(
        page.body.matches("<span class=\"dupe\">").count(),
        1,
        "the first of the two is not a dupe: {}",
        page.body
    );
    // Newest first: the first row is the dupe, and its own page says so.
    let at = page.body.find("href=\"/log/qso_").unwrap() + "href=\"".len();
    let dupe = &page.body[at..at + page.body[at..].find('"').unwrap()];
    owner
        .get(dupe)
        .expect(
            200,
            "<span class=\"dupe\">dupe</span> of an earlier contact",
        )
        .expect(200, "value=\"14.0745\"");
}

fn signed_out_visitors_are_sent_to_sign_in_and_back_to_the_log() {
    let server = Server::start();
    Browser::signed_up(&server, "W1AW");
    let visitor = Browser::new(&server);
    assert_eq!(visitor.get("/log").location(), "/signin?next=/log");
    assert_eq!(
        visitor.get("/log/export?format=adi").location(),
        "/signin?next=/log"
    );
    assert_eq!(visitor.get("/").location(), "/log");
    let page = visitor.get("/signin?next=/log");
    let csrf = page.field("csrf");
    let signed_in = visitor.post(
        "/signin",
        &[
            ("csrf", &csrf),
            ("next", "/log"),
            ("callsign", "W1AW"),
            ("password", PASSWORD),
        ],
    );
    assert_eq!(signed_in.location(), "/log");
    visitor.get("/log").expect(200, "No contacts yet");
}

fn the_whole_log_downloads_as_adi_and_adx() {
    let server = Server::start();
    let (owner, api) = account(&server, "W1AW");
    let june = api.monthly("2025-06", None);
    let pota = api.monthly("2025-06", Some("pota"));
    let mut name = contact_at(&june, "K1ABC", 1);
    name["name"] = json!("Bob <b>");
    let mut hunted = contact_at(&pota, "K2ABC", 2);
    hunted["sig"] = json!("POTA");
    hunted["sigInfo"] = json!("US-0001");
    seed(&api, vec![name, hunted]);
    let (_, other_api) = account(&server, "N0OTH");
    let theirs = other_api.monthly("2025-06", None);
    seed(&other_api, vec![contact_at(&theirs, "VE3XYZ", 3)]);

    let page = owner.get("/log");
    page.expect(200, "href=\"/log/export?format=adi\"")
        .expect(200, "href=\"/log/export?format=adx\"");

    let adi = owner.get("/log/export?format=adi");
    assert_eq!(adi.status, 200, "{}", adi.body);
    assert!(
        adi.header("content-disposition")
            .is_some_and(|d| d.contains("W1AW.adi")),
        "{:?}",
        adi.headers
    );
    let read = records(&adi.body);
    let mut calls: Vec<&str> = read.iter().filter_map(|r| r.get("CALL")).collect();
    calls.sort_unstable();
    assert_eq!(calls, ["K1ABC", "K2ABC"], "{}", adi.body);
    let k1 = read
        .iter()
        .find(|r| r.get("CALL") == Some("K1ABC"))
        .unwrap();
    assert_eq!(k1.get("NAME"), Some("Bob <b>"));
    assert_eq!(k1.get("STATION_CALLSIGN"), Some("W1AW"));
    let k2 = read
        .iter()
        .find(|r| r.get("CALL") == Some("K2ABC"))
        .unwrap();
    assert_eq!(k2.get("SIG_INFO"), Some("US-0001"));

    // The same bytes as the API's export, but for the header's creation time.
    let api_adi = api.send("GET", "/v1/adif", None, &[]);
    let api_text = api_adi.body.as_str().unwrap().to_owned();
    assert_eq!(records(&api_text).len(), read.len());

    let adx = owner.get("/log/export?format=adx");
    assert_eq!(adx.status, 200, "{}", adx.body);
    assert!(
        adx.header("content-type")
            .is_some_and(|c| c.starts_with("application/xml")),
        "{:?}",
        adx.headers
    );
    let read = records(&adx.body);
    assert_eq!(read.len(), 2, "{}", adx.body);

    owner
        .get("/log/export?format=csv")
        .expect(400, "adi or adx only");

    // A folder alone, picked from the page's list of folders.
    page.expect(200, &format!("<option value=\"{june}\">"));
    let folder = owner.get(&format!("/log/export?folderId={june}&format=adi"));
    assert_eq!(folder.status, 200, "{}", folder.body);
    let read = records(&folder.body);
    assert_eq!(read.len(), 1, "{}", folder.body);
    assert_eq!(read[0].get("CALL"), Some("K1ABC"));
    // Another account's folder, or an id that is not a folder's: none of this account's.
    for other in [theirs.as_str(), "fld_nonsense"] {
        owner
            .get(&format!("/log/export?folderId={other}&format=adi"))
            .expect(404, "Your log has no such folder");
    }
}

/// Creates one contact through the API; returns its id.
fn create(api: &Api, body: Value) -> String {
    let r = api.post("/v1/contacts", body);
    assert_eq!(r.status, 201, "{}", r.body);
    r.id()
}

/// The stored contact as the API lists it.
fn stored(api: &Api, folder: &str, id: &str) -> Value {
    api.contacts(folder)
        .into_iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no contact {id}"))
}

fn a_contact_is_edited_through_the_apis_rules() {
    let server = Server::start();
    let (owner, api) = account(&server, "W1AW");
    let folder = api.monthly("2025-06", None);
    let mut body = contact_at(&folder, "K1ABC", 1);
    body.as_object_mut().unwrap().remove("idempotencyKey");
    body["name"] = json!("Bob");
    let id = create(&api, body);
    let before = stored(&api, &folder, &id);
    let page_path = format!("/log/{id}");

    let page = owner.get(&page_path);
    page.expect(200, "value=\"K1ABC\"")
        .expect(200, "value=\"2025-06-14T12:01:00Z\"")
        .expect(200, "value=\"Bob\"")
        .expect(200, &format!("href=\"/log/{id}/delete\""));
    assert_page_headers(&page, "a contact");

    // A frequency that is not a number and a mode the API does not know: its own messages,
    // on the form with what was typed, and nothing stored.
    let csrf = page.field("csrf");
    let bad = owner.post(
        &page_path,
        &[
            ("csrf", &csrf),
            ("frequency", "fourteen"),
            ("name", "Robert"),
        ],
    );
    bad.expect(400, "Nothing was changed.")
        .expect(400, "frequency")
        .expect(400, "value=\"fourteen\"");
    let api_says = api.send(
        "PATCH",
        &format!("/v1/contacts/{id}"),
        Some(&json!({ "frequency": "fourteen" })),
        &[],
    );
    assert_eq!(api_says.status, 400, "{}", api_says.body);
    let message = api_says.body["message"].as_str().unwrap();
    let first = message.chars().next().unwrap();
    let escaped = message[first.len_utf8()..]
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;");
    assert!(
        bad.body.contains(&escaped),
        "the API's message {message:?}: {}",
        bad.body
    );
    assert_eq!(stored(&api, &folder, &id), before, "nothing changed");
    owner
        .post(&page_path, &[("csrf", &csrf), ("callsign", "")])
        .expect(400, "Nothing was changed.");
    assert_eq!(stored(&api, &folder, &id), before, "nothing changed");

    // A good edit: the new values, the band following the frequency, and the cleared name.
    let good = owner.post(
        &page_path,
        &[
            ("csrf", &csrf),
            ("callsign", "K1ABC"),
            ("frequency", "7.074"),
            ("name", ""),
            ("notes", "worked again"),
        ],
    );
    assert_eq!(good.location(), format!("{page_path}?notice=saved"));
    let after = stored(&api, &folder, &id);
    assert_eq!(after["frequency"], json!(7.074));
    assert_eq!(after["band"], "40m");
    assert_eq!(after["notes"], "worked again");
    assert!(after.get("name").is_none(), "{after}");
    owner
        .get(good.location())
        .expect(200, "Your changes to the contact are saved.")
        .expect(200, "value=\"7.074\"");
    owner
        .get("/log")
        .expect(200, ">40m<")
        .expect(200, &format!("href=\"/log/{id}\""));
}

fn a_contact_is_deleted_after_a_confirmation() {
    let server = Server::start();
    let (owner, api) = account(&server, "W1AW");
    let folder = api.monthly("2025-06", None);
    let mut body = contact_at(&folder, "K1DEL", 1);
    body.as_object_mut().unwrap().remove("idempotencyKey");
    let id = create(&api, body);
    let confirm = owner.get(&format!("/log/{id}/delete"));
    confirm
        .expect(200, "Delete this contact?")
        .expect(200, &format!("action=\"/log/{id}/delete\""));
    assert_eq!(api.contacts(&folder).len(), 1, "asking deletes nothing");
    let csrf = confirm.field("csrf");

    // Without the token, or with another's, nothing is deleted.
    owner
        .post(&format!("/log/{id}/delete"), &[])
        .expect(403, "nothing was changed");
    owner
        .post(&format!("/log/{id}/delete"), &[("csrf", "forged")])
        .expect(403, "nothing was changed");
    owner
        .post(&format!("/log/{id}"), &[("name", "x")])
        .expect(403, "nothing was changed");
    assert_eq!(api.contacts(&folder).len(), 1);

    let done = owner.post(&format!("/log/{id}/delete"), &[("csrf", &csrf)]);
    assert_eq!(done.location(), "/log?notice=deleted");
    owner
        .get(done.location())
        .expect(200, "The contact is deleted.");
    assert!(api.contacts(&folder).is_empty());
    owner
        .get(&format!("/log/{id}"))
        .expect(404, "Your log has no such contact");
    owner
        .post(&format!("/log/{id}/delete"), &[("csrf", &csrf)])
        .expect(404, "Your log has no such contact");
}

fn another_accounts_contact_is_not_found() {
    let server = Server::start();
    let (owner, _) = account(&server, "W1AW");
    let (_, other_api) = account(&server, "N0OTH");
    let theirs = other_api.monthly("2025-06", None);
    let mut body = contact_at(&theirs, "VE3XYZ", 1);
    body.as_object_mut().unwrap().remove("idempotencyKey");
    let id = create(&other_api, body);
    let csrf = owner.get("/log").field("csrf");
    for path in [format!("/log/{id}"), format!("/log/{id}/delete")] {
        owner.get(&path).expect(404, "Your log has no such contact");
        owner
            .post(&path, &[("csrf", &csrf), ("callsign", "W1XX")])
            .expect(404, "Your log has no such contact");
    }
    owner
        .get("/log/not-an-id")
        .expect(404, "Your log has no such contact");
    assert_eq!(other_api.contacts(&theirs)[0]["callsign"], "VE3XYZ");
}

/// A contact at `time` with `extra` fields, in `folder`.
fn logged(folder: &str, call: &str, mhz: f64, mode: &str, time: &str, extra: Value) -> Value {
    let mut body = json!({
        "folderId": folder,
        "callsign": call,
        "frequency": mhz,
        "mode": mode,
        "timeOn": time,
        "idempotencyKey": format!("search-{call}-{time}"),
    });
    for (name, value) in extra.as_object().unwrap() {
        body[name] = value.clone();
    }
    body
}

/// The calls a search of the log lists on its first page.
fn found(owner: &Browser, query: &str) -> Vec<String> {
    let page = owner.get(&format!("/log?{query}"));
    assert_eq!(page.status, 200, "{query}: {}", page.body);
    calls(&page)
}

fn the_log_is_searched_by_each_part_and_by_several_at_once() {
    let server = Server::start();
    let (owner, api) = account(&server, "W1AW");
    let june = api.monthly("2025-06", None);
    let pota = api.monthly("2025-06", Some("pota"));
    let activated = api.activation("US-0002", "W1AW");
    seed(
        &api,
        vec![
            logged(
                &june,
                "K1ABC",
                14.074,
                "FT8",
                "2025-06-14T12:01:00Z",
                json!({ "gridsquare": "FN31pr", "lotwQslRcvd": "Y" }),
            ),
            logged(
                &pota,
                "K1ABC/P",
                7.03,
                "CW",
                "2025-06-14T12:02:00Z",
                json!({ "sig": "POTA", "sigInfo": "US-0001,US-0002", "qslRcvd": "Y" }),
            ),
            logged(
                &june,
                "K1XYZ",
                14.25,
                "SSB",
                "2025-06-15T12:00:00Z",
                json!({ "gridsquare": "FN42", "eqslQslRcvd": "Y" }),
            ),
            logged(
                &june,
                "VE3/K1ABC",
                14.074,
                "FT8",
                "2025-06-16T00:00:00Z",
                json!({ "gridsquare": "EN82" }),
            ),
            logged(
                &activated,
                "W2AAA",
                14.074,
                "FT8",
                "2025-06-13T23:59:00Z",
                json!({ "mySig": "POTA", "mySigInfo": "US-0002", "gridsquare": "FN31" }),
            ),
        ],
    );
    // Another account's contacts answer every part of the searches below; none is shown.
    let (_, other_api) = account(&server, "N0OTH");
    let theirs = other_api.monthly("2025-06", Some("pota"));
    seed(
        &other_api,
        vec![logged(
            &theirs,
            "K1OTH",
            7.03,
            "CW",
            "2025-06-14T12:03:00Z",
            json!({ "sig": "POTA", "sigInfo": "US-0002", "gridsquare": "FN31pr", "qslRcvd": "Y" }),
        )],
    );

    for (query, expected) in [
        ("", &["VE3/K1ABC", "K1XYZ", "K1ABC/P", "K1ABC", "W2AAA"][..]),
        // The start of the call as logged: a suffix never hides a call, a prefix is typed.
        ("call=K1", &["K1XYZ", "K1ABC/P", "K1ABC"]),
        ("call=k1abc", &["K1ABC/P", "K1ABC"]),
        ("call=K1ABC%2FP", &["K1ABC/P"]),
        ("call=VE3%2F", &["VE3/K1ABC"]),
        ("call=N0", &[]),
        // A park worked or activated; a two-fer is found by either of its parks.
        ("park=US-0002", &["K1ABC/P", "W2AAA"]),
        ("park=us-0001", &["K1ABC/P"]),
        ("park=US-0003", &[]),
        ("grid=fn31", &["K1ABC", "W2AAA"]),
        ("grid=FN", &["K1XYZ", "K1ABC", "W2AAA"]),
        ("grid=FN31PR", &["K1ABC"]),
        ("band=40m", &["K1ABC/P"]),
        ("band=20m", &["VE3/K1ABC", "K1XYZ", "K1ABC", "W2AAA"]),
        ("mode=ft8", &["VE3/K1ABC", "K1ABC", "W2AAA"]),
        // UTC days, both included.
        (
            "from=2025-06-14&to=2025-06-15",
            &["K1XYZ", "K1ABC/P", "K1ABC"],
        ),
        ("from=2025-06-16", &["VE3/K1ABC"]),
        ("to=2025-06-13", &["W2AAA"]),
        // Confirmed as ARRL counts: LoTW or a card; eQSL's is not.
        ("confirmed=yes", &["K1ABC/P", "K1ABC"]),
        ("confirmed=no", &["VE3/K1ABC", "K1XYZ", "W2AAA"]),
        ("call=K1&band=20m&confirmed=no", &["K1XYZ"]),
        ("park=US-0002&mode=CW", &["K1ABC/P"]),
        ("grid=FN&from=2025-06-14", &["K1XYZ", "K1ABC"]),
        (
            "call=&park=&grid=&band=&mode=&from=&to=&confirmed=",
            &["VE3/K1ABC", "K1XYZ", "K1ABC/P", "K1ABC", "W2AAA"],
        ),
    ] {
        assert_eq!(found(&owner, query), expected, "{query}");
    }

    // The search is shown as asked, and an empty answer says so.
    let page = owner.get("/log?call=k1&band=20m&confirmed=no");
    page.expect(200, "name=\"call\" type=\"text\" value=\"k1\"")
        .expect(200, "<option value=\"20m\" selected>")
        .expect(200, "<option value=\"no\" selected>")
        .expect(200, "Show every contact");
    owner
        .get("/log?park=US-0003")
        .expect(200, "No contacts match the search.");
}

fn a_search_pages_with_its_parts_kept() {
    let server = Server::start();
    let (owner, api) = account(&server, "W1AW");
    let folder = api.monthly("2025-06", None);
    // 54 calls that start with K, between 27 that do not (within the key's burst limit).
    seed(
        &api,
        (0..81)
            .map(|n| {
                let call = if n % 3 != 2 {
                    format!("K{n}ABC")
                } else {
                    format!("W{n}ABC")
                };
                contact_at(&folder, &call, n)
            })
            .collect(),
    );
    let first = owner.get("/log?call=K");
    let shown = calls(&first);
    assert_eq!(shown.len(), 50, "{}", first.body);
    assert_eq!(shown[0], "K79ABC");
    assert_eq!(shown[49], "K6ABC");
    let at = first.body.find("href=\"/log?call=K&amp;cursor=").unwrap() + "href=\"".len();
    let older = first.body[at..at + first.body[at..].find('"').unwrap()].replace("&amp;", "&");
    let second = owner.get(&older);
    second
        .expect(200, "href=\"/log?call=K\">Newest contacts</a>")
        .expect(200, "name=\"call\" type=\"text\" value=\"K\"");
    assert_eq!(
        calls(&second),
        ["K4ABC", "K3ABC", "K1ABC", "K0ABC"],
        "{}",
        second.body
    );
    assert!(!second.body.contains("Older contacts"));
}

fn a_bad_search_is_refused_with_what_to_fix_and_escaped() {
    let server = Server::start();
    let (owner, api) = account(&server, "W1AW");
    let folder = api.monthly("2025-06", None);
    seed(&api, vec![contact_at(&folder, "K1ABC", 1)]);
    for (query, says) in [
        ("call=K1%21", "is not the start of a callsign"),
        ("park=Yellowstone", "is not a park reference"),
        ("park=US-0001,US-0002", "one reference at a time"),
        ("grid=ZZ", "is not the start of a Maidenhead locator"),
        ("band=21m", "is not a band"),
        ("mode=FT8%3B", "is not a mode"),
        ("from=14%2F06%2F2025", "write it as year-month-day"),
        ("to=2025-02-30", "write it as year-month-day"),
        ("from=2025-06-15&to=2025-06-14", "is before from"),
        ("confirmed=maybe", "neither yes nor no"),
        (
            "call=KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK",
            "at most 40 characters",
        ),
    ] {
        let page = owner.get(&format!("/log?{query}"));
        page.expect(400, says)
            .expect(400, "Change the search and try again.")
            .expect(400, "Search the log");
        assert!(calls(&page).is_empty(), "{query}: nothing is listed");
    }
    // What was typed comes back in the form and the message, escaped.
    let page = owner.get("/log?call=%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E");
    page.expect(
        400,
        "value=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\"",
    )
    .expect(400, "is not the start of a callsign");
    assert!(!page.body.contains("<script>alert"), "{}", page.body);
    assert!(!page.body.contains("\"><script"), "{}", page.body);
}

crate::both_backends!(
    a_contact_is_edited_through_the_apis_rules,
    a_contact_is_deleted_after_a_confirmation,
    another_accounts_contact_is_not_found,
    the_log_lists_the_accounts_contacts_newest_first_a_page_at_a_time,
    a_row_shows_the_contacts_fields_and_escapes_them,
    signed_out_visitors_are_sent_to_sign_in_and_back_to_the_log,
    the_whole_log_downloads_as_adi_and_adx,
    the_log_is_searched_by_each_part_and_by_several_at_once,
    a_search_pages_with_its_parts_kept,
    a_bad_search_is_refused_with_what_to_fix_and_escaped,
);
