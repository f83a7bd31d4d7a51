//! Contest logs: started once per contest and call while open, joined, ended; their contacts
//! under the contest's own rules (its CONTEST_ID, the exchange sent, its dupes), and where a
//! log stands.

use std::sync::{Arc, Barrier};

use serde_json::{Value, json};

use crate::common::{Api, Server};

fn start(api: &Api, body: Value) -> crate::common::Resp {
    api.post("/v1/contests", body)
}

fn log(
    api: &Api,
    folder: &str,
    call: &str,
    mhz: f64,
    mode: &str,
    extra: Value,
) -> crate::common::Resp {
    let mut body = json!({
        "folderId": folder, "callsign": call, "frequency": mhz, "mode": mode,
        "timeOn": "2026-06-27T18:05:00Z",
    });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    api.post("/v1/contacts", body)
}

fn a_contest_log_is_started_joined_and_ended() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let first = start(
        &api,
        json!({"contestId": "arrl-field-day", "callsign": "w1aw", "exchange": " 2a  ct ",
               "categories": {"power": "low"}, "cabrillo": {"name": "Hiram Maxim"},
               "startTime": "2026-06-27T18:00:00Z"}),
    );
    assert_eq!(first.status, 201, "{}", first.body);
    assert_eq!(first.body["created"], true);
    assert_eq!(first.body["type"], "contest");
    assert_eq!(first.body["contestId"], "ARRL-FD");
    assert_eq!(first.body["exchange"], "2A CT");
    assert_eq!(first.body["categories"], json!({"power": "LOW"}));
    assert_eq!(first.body["cabrillo"], json!({"name": "Hiram Maxim"}));
    assert_eq!(first.body["callsign"], "W1AW");
    assert_eq!(first.body["name"], "W1AW ARRL-FD 2026-06-27");
    let id = first.id();

    // Another operator joins with no exchange, or with the log's, on either day of the
    // weekend; one that sends another is refused rather than joined.
    for join in [
        json!({"contestId": "ARRL-FD", "callsign": "W1AW", "startTime": "2026-06-28T20:00:00Z"}),
        json!({"contestId": "ARRL-FD", "callsign": "W1AW", "exchange": "2A CT", "startTime": "2026-06-27T18:30:00Z"}),
    ] {
        let r = start(&api, join);
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.body["created"], false);
        assert_eq!(r.id(), id);
    }
    let other = start(
        &api,
        json!({"contestId": "ARRL-FD", "callsign": "W1AW", "exchange": "3A CT", "startTime": "2026-06-27T19:00:00Z"}),
    );
    let message = other.expect_error(400, "validation_error");
    assert!(message.contains("sends \"2A CT\""), "{message}");
    assert_eq!(other.body["details"]["field"], "exchange");

    // Another call, another log; a log of another contest, another.
    let portable = start(
        &api,
        json!({"contestId": "ARRL-FD", "callsign": "W1AW/1", "exchange": "1B CT"}),
    );
    assert_eq!(portable.status, 201, "{}", portable.body);
    let ww = start(
        &api,
        json!({"contestId": "CQ-WW-CW", "callsign": "W1AW", "exchange": "5"}),
    );
    assert_eq!(ww.status, 201, "{}", ww.body);
    assert_eq!(ww.body["exchange"], "5");
    let listed = api.get("/v1/contests");
    assert_eq!(listed.status, 200);
    assert_eq!(listed.body["items"].as_array().unwrap().len(), 3);
    assert_eq!(api.folders("contest").len(), 3);

    let ended = api.post(
        &format!("/v1/contests/{id}/end"),
        json!({"endTime": "2026-06-28T21:00:00Z"}),
    );
    assert_eq!(ended.status, 200, "{}", ended.body);
    assert_eq!(ended.body["endTime"], "2026-06-28T21:00:00Z");
    let again = api.post(&format!("/v1/contests/{id}/end"), json!({}));
    let message = again.expect_error(400, "validation_error");
    assert!(message.contains("ended already"), "{message}");
    // The same weekend's start finds it, ended; last year's is another log, and with no log
    // that weekend a start needs the exchange.
    let same = start(
        &api,
        json!({"contestId": "ARRL-FD", "callsign": "W1AW", "startTime": "2026-06-28T21:30:00Z"}),
    );
    assert_eq!(same.status, 200, "{}", same.body);
    assert_eq!(same.id(), id);
    let last_year = start(
        &api,
        json!({"contestId": "ARRL-FD", "callsign": "W1AW", "exchange": "2A CT", "startTime": "2025-06-28T18:00:00Z"}),
    );
    assert_eq!(last_year.status, 201, "{}", last_year.body);
    assert_ne!(last_year.id(), id);
    let nothing = start(
        &api,
        json!({"contestId": "ARRL-FD", "callsign": "W1AW", "startTime": "2026-06-20T18:00:00Z"}),
    );
    let message = nothing.expect_error(400, "validation_error");
    assert!(message.contains("exchange is required"), "{message}");
    assert!(message.contains("2A CT"), "{message}");
    // An activation is no contest log to end.
    let activation = api.activation("US-1234", "W1AW");
    let r = api.post(&format!("/v1/contests/{activation}/end"), json!({}));
    let message = r.expect_error(400, "validation_error");
    assert!(message.contains("not a contest log"), "{message}");
}

fn bad_starts_say_what_to_fix_and_make_nothing() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    for (body, field, says) in [
        (
            json!({"callsign": "W1AW", "exchange": "2A CT"}),
            "contestId",
            "contestId is required",
        ),
        (
            json!({"contestId": "CQ-WW", "callsign": "W1AW", "exchange": "5"}),
            "contestId",
            "not one svc knows",
        ),
        (
            json!({"contestId": "ARRL-FD", "exchange": "2A CT"}),
            "callsign",
            "callsign is required",
        ),
        (
            json!({"contestId": "ARRL-FD", "callsign": "W1AW", "exchange": "2G CT"}),
            "exchange",
            "class \"2G\"",
        ),
        (
            json!({"contestId": "ARRL-FD", "callsign": "W1AW", "exchange": "2A"}),
            "exchange",
            "class, section",
        ),
        (
            json!({"contestId": "CQ-WW-CW", "callsign": "W1AW", "exchange": "41"}),
            "exchange",
            "CQ zone",
        ),
        (
            json!({"contestId": "ARRL-FD", "callsign": "W1AW", "exchange": "2A CT", "categories": {"power": "MEDIUM"}}),
            "categories",
            "HIGH, LOW, QRP",
        ),
        (
            json!({"contestId": "ARRL-FD", "callsign": "W1AW", "exchange": "2A CT", "categories": {"colour": "RED"}}),
            "categories",
            "names no Cabrillo category",
        ),
        (
            json!({"contestId": "ARRL-FD", "callsign": "W1AW", "exchange": "2A CT", "categories": ["LOW"]}),
            "categories",
            "object of strings",
        ),
        (
            json!({"contestId": "ARRL-FD", "callsign": "W1AW", "exchange": "2A CT", "cabrillo": {"soapbox": "x"}}),
            "cabrillo",
            "not a header line",
        ),
        (
            json!({"contestId": "ARRL-FD", "callsign": "W1AW", "exchange": "2A CT", "extra": 1}),
            "extra",
            "extra",
        ),
    ] {
        let r = start(&api, body.clone());
        let message = r.expect_error(400, "validation_error");
        assert_eq!(r.body["details"]["field"], field, "{body}: {}", r.body);
        assert!(message.contains(says), "{body}: {message}");
    }
    assert!(api.folders("contest").is_empty());
    let r = api.post("/v1/folders", json!({"type": "contest", "name": "FD"}));
    let message = r.expect_error(400, "validation_error");
    assert!(message.contains("POST /v1/contests"), "{message}");
}

fn contacts_of_a_contest_log_take_its_rules() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let fd = start(
        &api,
        json!({"contestId": "ARRL-FD", "callsign": "W1AW", "exchange": "2A CT"}),
    )
    .id();
    let first = log(
        &api,
        &fd,
        "K1ABC",
        14.025,
        "CW",
        json!({"class": "3a", "arrlSect": "ema"}),
    );
    assert_eq!(first.status, 201, "{}", first.body);
    assert!(first.body["duplicateOf"].is_null());
    // Field Day's dupes are once a band and mode: CW again on 20 m is one, phone is not.
    let again = log(&api, &fd, "k1abc", 14.030, "CW", json!({}));
    assert_eq!(again.body["duplicateOf"], first.id());
    let phone = log(
        &api,
        &fd,
        "K1ABC",
        14.250,
        "SSB",
        json!({"class": "3A", "arrlSect": "EMA"}),
    );
    assert!(phone.body["duplicateOf"].is_null(), "{}", phone.body);
    let forty = log(
        &api,
        &fd,
        "K1ABC",
        7.030,
        "CW",
        json!({"class": "3A", "arrlSect": "EMA"}),
    );
    assert!(forty.body["duplicateOf"].is_null(), "{}", forty.body);
    // A data contact is its own mode class too.
    let data = log(
        &api,
        &fd,
        "K1ABC",
        14.074,
        "FT8",
        json!({"class": "3A", "arrlSect": "EMA"}),
    );
    assert!(data.body["duplicateOf"].is_null(), "{}", data.body);

    let stored = api.all_contacts(&fd);
    let first_stored = stored
        .iter()
        .find(|c| c["id"] == first.id().as_str())
        .unwrap();
    assert_eq!(first_stored["contestId"], "ARRL-FIELD-DAY");
    assert_eq!(first_stored["stxString"], "2A CT");
    assert_eq!(first_stored["class"], "3A");
    assert_eq!(first_stored["arrlSect"], "EMA");
    assert_eq!(first_stored["stationCallsign"], "W1AW");

    for (extra, field) in [
        (json!({"contestId": "CQ-WW-CW"}), "contestId"),
        (json!({"stationCallsign": "K9ZZZ"}), "stationCallsign"),
        (json!({"activationId": fd.clone()}), "activationId"),
    ] {
        let r = log(&api, &fd, "N0CALL", 14.025, "CW", extra.clone());
        r.expect_error(400, "validation_error");
        assert_eq!(r.body["details"]["field"], field, "{extra}: {}", r.body);
    }
    // The contest's own ADIF id or its Cabrillo name is the same contest.
    let named = log(
        &api,
        &fd,
        "N0CALL",
        14.025,
        "CW",
        json!({"contestId": "ARRL-FD", "class": "1E", "arrlSect": "MN"}),
    );
    assert_eq!(named.status, 201, "{}", named.body);

    let shown = api.get(&format!("/v1/contests/{fd}"));
    assert_eq!(shown.status, 200, "{}", shown.body);
    let standing = &shown.body["standing"];
    // Six contacts, one a dupe: CW and data score 2, phone 1.
    assert_eq!(standing["qsos"], 5, "{standing}");
    assert_eq!(standing["dupes"], 1);
    assert_eq!(standing["points"], 2 + 1 + 2 + 2 + 2);
    assert_eq!(standing["score"], 9);
    assert_eq!(standing["bands"], json!({"20m": 5, "40m": 1}));
    assert_eq!(standing["operators"], json!(["W1AW"]));

    // Serial numbers: Sweepstakes sends the contact's own with the log's exchange, and its
    // dupes are once in the contest, whatever the band.
    let ss = start(
        &api,
        json!({"contestId": "ARRL-SS-CW", "callsign": "W1AW", "exchange": "a 72 ct"}),
    );
    assert_eq!(ss.body["exchange"], "A 72 CT");
    let ss = ss.id();
    let one = log(
        &api,
        &ss,
        "K9ZO",
        14.030,
        "CW",
        json!({"stx": 1, "srx": 12, "precedence": "B", "check": "69", "arrlSect": "IL"}),
    );
    let two = log(&api, &ss, "K9ZO", 7.030, "CW", json!({"stx": 2}));
    assert_eq!(two.body["duplicateOf"], one.id());
    let c = api.all_contacts(&ss);
    let sent: Vec<&str> = c.iter().map(|c| c["stxString"].as_str().unwrap()).collect();
    assert!(
        sent.contains(&"1 A 72 CT") && sent.contains(&"2 A 72 CT"),
        "{sent:?}"
    );
    // CQ WW: once a band, whatever the mode, and the report sent is the contact's own.
    let ww = start(
        &api,
        json!({"contestId": "CQ-WW-CW", "callsign": "W1AW", "exchange": "5"}),
    )
    .id();
    let a = log(
        &api,
        &ww,
        "DL1ABC",
        14.025,
        "CW",
        json!({"rstSent": "579", "cqz": 14}),
    );
    let b = log(&api, &ww, "DL1ABC", 14.250, "SSB", json!({}));
    assert_eq!(b.body["duplicateOf"], a.id());
    let c = api.all_contacts(&ww);
    let a_stored = c.iter().find(|c| c["id"] == a.id().as_str()).unwrap();
    assert_eq!(a_stored["stxString"], "579 5");
    let b_stored = c.iter().find(|c| c["id"] == b.id().as_str()).unwrap();
    assert_eq!(b_stored["stxString"], "59 5");
}

fn the_rtty_roundup_reads_the_exchange_wsjtx_keeps_as_one_string() {
    let s = Server::start();
    let api = s.account("W1AW", "basic");
    let ru = start(
        &api,
        json!({"contestId": "ARRL-RTTY", "callsign": "W1AW", "exchange": "ct"}),
    );
    assert_eq!(ru.body["exchange"], "CT", "{}", ru.body);
    let ru = ru.id();
    // As WSJT-X's RTTY Roundup mode logs them: the exchange received as one string.
    for (call, received) in [
        ("K1ABC", "579 MA"),
        ("DL1ABC", "599 0012"),
        ("K1ABC", "599 MA"),
    ] {
        let r = log(
            &api,
            &ru,
            call,
            14.080,
            "FT8",
            json!({"srxString": received}),
        );
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let shown = api.get(&format!("/v1/contests/{ru}"));
    let standing = &shown.body["standing"];
    // K1ABC twice on 20 m is a dupe; a point a QSO; MA and Germany are the multipliers.
    assert_eq!(standing["qsos"], 2, "{standing}");
    assert_eq!(standing["dupes"], 1);
    assert_eq!(standing["multipliers"], 2);
    assert_eq!(standing["score"], 4);
    let file = api.get(&format!("/v1/contests/{ru}/cabrillo?categories=LOW"));
    assert_eq!(file.status, 200, "{}", file.body);
    let text = file.body.as_str().unwrap_or_default();
    assert!(text.contains("CONTEST: ARRL-RTTY\r\n"), "{text}");
    assert!(text.contains(" 599 CT DL1ABC        599 12\r\n"), "{text}");
}

fn an_edit_follows_the_contest_s_dupe_rule() {
    let s = Server::start();
    let api = s.account("W1AW", "elevated");
    let fd = start(
        &api,
        json!({"contestId": "ARRL-FD", "callsign": "W1AW", "exchange": "2A CT"}),
    )
    .id();
    let first = log(&api, &fd, "K1ABC", 14.025, "CW", json!({}));
    let other = log(&api, &fd, "K1ABC", 7.025, "CW", json!({}));
    assert!(other.body["duplicateOf"].is_null());
    // Edited onto the first's band, it is its dupe.
    let edited = api.send(
        "PATCH",
        &format!("/v1/contacts/{}", other.id()),
        Some(&json!({"frequency": 14.027})),
        &[],
    );
    assert_eq!(edited.status, 200, "{}", edited.body);
    assert_eq!(edited.body["duplicateOf"], first.id());
}

fn two_stations_starting_at_once_make_one_log() {
    let s = Server::start_with(&["--burst-limit", "1000"]);
    let api = s.account("W1AW", "basic");
    let n = 12;
    let barrier = Arc::new(Barrier::new(n));
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let api = api.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                let r = start(
                    &api,
                    json!({"contestId": "WFD", "callsign": "W1AW", "exchange": "1O CT"}),
                );
                (r.status, r.body["created"].as_bool(), r.id())
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let created = results.iter().filter(|(_, c, _)| *c == Some(true)).count();
    assert_eq!(created, 1, "{results:?}");
    assert!(
        results.iter().all(|(_, _, id)| id == &results[0].2),
        "{results:?}"
    );
    assert_eq!(api.folders("contest").len(), 1);
}

fn stations_take_serial_numbers_no_other_station_is_given() {
    let s = Server::start_with(&["--burst-limit", "1000"]);
    let api = s.account("W1AW", "basic");
    let ss = start(
        &api,
        json!({"contestId": "ARRL-SS-CW", "callsign": "W1AW", "exchange": "A 72 CT"}),
    )
    .id();
    // Two contacts sent 1 and 2 before any block was taken (a log imported with its numbers):
    // the first block starts after them.
    for (n, call) in [(1, "K9ZO"), (2, "N6XX")] {
        let r = log(&api, &ss, call, 14.030, "CW", json!({"stx": n}));
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let first = api.post(&format!("/v1/contests/{ss}/serials"), json!({"count": 20}));
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(first.body, json!({"first": 3, "last": 22}));
    // Stations asking at once get blocks that never overlap.
    let n = 10;
    let barrier = Arc::new(Barrier::new(n));
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let (api, barrier, ss) = (api.clone(), barrier.clone(), ss.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let r = api.post(&format!("/v1/contests/{ss}/serials"), json!({"count": 5}));
                assert_eq!(r.status, 200, "{}", r.body);
                (
                    r.body["first"].as_u64().unwrap(),
                    r.body["last"].as_u64().unwrap(),
                )
            })
        })
        .collect();
    let mut blocks: Vec<(u64, u64)> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    blocks.sort();
    assert_eq!(blocks.first().unwrap().0, 23, "{blocks:?}");
    for pair in blocks.windows(2) {
        assert_eq!(pair[0].1 + 1, pair[1].0, "{blocks:?}");
    }
    assert!(blocks.iter().all(|(a, b)| b - a == 4), "{blocks:?}");
    // A request sent again with its key gets the same block, not another.
    let key = [("Idempotency-Key", "serials-once")];
    let body = json!({"count": 3});
    let once = api.send(
        "POST",
        &format!("/v1/contests/{ss}/serials"),
        Some(&body),
        &key,
    );
    let again = api.send(
        "POST",
        &format!("/v1/contests/{ss}/serials"),
        Some(&body),
        &key,
    );
    assert_eq!(once.body["first"], again.body["first"], "{}", again.body);
    assert_eq!(again.body["replayed"], true);
    // Bad counts and folders that are no contest log are refused.
    for bad in [
        json!({}),
        json!({"count": 0}),
        json!({"count": 501}),
        json!({"count": 2.5}),
    ] {
        let r = api.post(&format!("/v1/contests/{ss}/serials"), bad.clone());
        r.expect_error(400, "validation_error");
        assert_eq!(r.body["details"]["field"], "count", "{bad}: {}", r.body);
    }
    let month = api.monthly("2026-11", None);
    let r = api.post(
        &format!("/v1/contests/{month}/serials"),
        json!({"count": 5}),
    );
    let message = r.expect_error(400, "validation_error");
    assert!(message.contains("not a contest log"), "{message}");
    let r = api.post(
        "/v1/contests/fld_aaaaaaaaaaaaaaaa/serials",
        json!({"count": 5}),
    );
    r.expect_error(404, "not_found");
}

crate::both_backends!(
    the_rtty_roundup_reads_the_exchange_wsjtx_keeps_as_one_string,
    stations_take_serial_numbers_no_other_station_is_given,
    a_contest_log_is_started_joined_and_ended,
    bad_starts_say_what_to_fix_and_make_nothing,
    contacts_of_a_contest_log_take_its_rules,
    an_edit_follows_the_contest_s_dupe_rule,
    two_stations_starting_at_once_make_one_log,
);
