//! POTA beside the logbook: `svc parks show|import`, `svc spot` and `svc spots` against the POTA
//! stand-in (tests/common/pota.rs), and with no POTA at all.

use serde::Deserialize;
use serde_json::{Value, json};

use super::{Cli, closed_port, setup};
use crate::common::pota::{FakePota, Mode};

/// A user with no key and no service, who reaches POTA at `pota`.
fn user(pota: &str) -> Cli {
    let cli = Cli::new(&closed_port());
    cli.set_env("SVC_POTA_API_URL", pota);
    cli
}

/// How many times the stand-in was asked for a park.
pub fn park_requests(pota: &FakePota) -> usize {
    pota.seen()
        .iter()
        .filter(|s| s.path.starts_with("/park/"))
        .count()
}

/// Moves every cached park `days` into the past.
pub fn age_cache(cli: &Cli, days: i64) {
    use sqlx::Connection;
    let path = cli.data_dir().join("svc").join("parks.sqlite");
    crate::common::block_on(async move {
        let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        sqlx::query("UPDATE parks SET fetched_at = fetched_at - $1")
            .bind(days * 86_400_000)
            .execute(&mut conn)
            .await
            .unwrap();
    });
}

#[test]
fn a_park_comes_from_pota_then_from_the_cache() {
    let pota = FakePota::start();
    let cli = user(&pota.url());
    let run = cli.run(&["parks", "show", "us-0001"]);
    run.ok();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[..5],
        [
            "Reference: US-0001",
            "Name: Acadia National Park",
            "Location: US-ME",
            "Grid: FN54vh",
            "Position: 44.31, -68.2034",
        ],
        "{run:?}"
    );
    assert!(lines[5].starts_with("Source: POTA, fetched "), "{run:?}");
    assert!(lines[5].ends_with(" UTC (today)"), "{run:?}");
    assert_eq!(park_requests(&pota), 1);

    // Fresh in the cache: POTA is not asked again.
    let run = cli.run(&["parks", "show", "US-0001", "--json"]);
    run.ok();
    let shown = run.json();
    assert_eq!(shown["source"], "cache");
    assert_eq!(shown["reference"], "US-0001");
    assert_eq!(shown["name"], "Acadia National Park");
    assert_eq!(shown["location"], "US-ME");
    assert_eq!(shown["grid"], "FN54vh");
    assert_eq!(shown["latitude"], 44.31);
    assert!(
        shown["fetchedAt"].as_str().unwrap().ends_with('Z'),
        "{shown}"
    );
    assert_eq!(park_requests(&pota), 1);

    // A sparse record: grid4 when grid6 is blank, numbers given as strings.
    let run = cli.run(&["parks", "show", "VE-0123", "--json"]);
    run.ok();
    assert_eq!(run.json()["grid"], "FN05");
    assert_eq!(run.json()["longitude"], -78.36);
    assert_eq!(run.json()["source"], "api");

    // Old, and POTA gone: the cache answers, saying how old it is and why.
    drop(pota);
    age_cache(&cli, 40);
    let run = cli.run(&["parks", "show", "US-0001"]);
    run.ok();
    assert!(
        run.stdout.contains("Source: cache, fetched ") && run.stdout.contains("(40 days ago)"),
        "{run:?}"
    );
    assert!(
        run.stderr
            .starts_with("svc: warning: no answer from POTA at ")
            && run
                .stderr
                .contains("showing the park as cached 40 days ago"),
        "{run:?}"
    );
    let run = cli.run(&["parks", "show", "US-0001", "--json"]);
    assert_eq!(run.json()["source"], "cache");

    // Old, and POTA back: it is asked again, and the cache is fresh from then on.
    let pota = FakePota::start();
    cli.set_env("SVC_POTA_API_URL", &pota.url());
    let run = cli.run(&["parks", "show", "US-0001", "--json"]);
    run.ok();
    assert_eq!(run.json()["source"], "api");
    assert_eq!(run.stderr, "");
    assert_eq!(park_requests(&pota), 1);
    assert_eq!(
        cli.run(&["parks", "show", "US-0001", "--json"]).json()["source"],
        "cache"
    );
    assert_eq!(park_requests(&pota), 1);
}

#[test]
fn an_unknown_park_is_not_found() {
    let pota = FakePota::start();
    let cli = user(&pota.url());
    let message = cli
        .run(&["parks", "show", "US-9999"])
        .fails(1, "parks show", "not_found");
    assert!(message.contains("POTA knows no park US-9999"), "{message}");
    let envelope =
        cli.run(&["parks", "show", "US-9999", "--json"])
            .fails_json(1, "parks show", "not_found");
    assert_eq!(envelope["status"], Value::Null);
    // Nothing was cached for it: with no POTA it is a failure to reach POTA.
    drop(pota);
    cli.run(&["parks", "show", "US-9999"])
        .fails(7, "parks show", "transport_error");
    // A reference of the wrong shape is refused before anything is sent.
    let message = cli
        .run(&["parks", "show", "US9999"])
        .fails(2, "parks show", "validation_error");
    assert!(message.contains("e.g. US-1234"), "{message}");
}

#[test]
fn answers_that_are_not_potas_are_reported() {
    let pota = FakePota::start();
    let cli = user(&pota.url());
    pota.set_mode(Mode::Malformed);
    let message =
        cli.run(&["parks", "show", "US-0001"])
            .fails(1, "parks show", "unexpected_response");
    assert!(message.contains("not JSON (<html>"), "{message}");
    cli.run(&["spots"]).fails(1, "spots", "unexpected_response");
    pota.set_mode(Mode::ServerError);
    let message = cli.run(&["spots"]).fails(8, "spots", "pota_error");
    assert_eq!(message, "POTA answered 500: Internal Server Error");
    let envelope =
        cli.run(&["parks", "show", "US-0001", "--json"])
            .fails_json(8, "parks show", "pota_error");
    assert_eq!(envelope["status"], 500);
    // Each failure was one request: nothing is retried.
    assert_eq!(pota.seen().len(), 4);
}

#[test]
fn the_park_list_is_imported_and_answers_with_no_pota_at_all() {
    let cli = user(&closed_port());
    let file = cli.home.path().join("all_parks_ext.csv");
    std::fs::write(
        &file,
        concat!(
            "\u{feff}\"reference\",\"name\",\"active\",\"entityId\",\"locationDesc\",\"latitude\",\"longitude\",\"grid\",\"new\"\r\n",
            "\"US-0001\",\"Acadia National Park\",\"1\",\"291\",\"US-ME\",\"44.31\",\"-68.2034\",\"FN54vh\",\"\"\r\n",
            "\"G-0001\",\"Dartmoor, \"\"the\"\" moor\",\"1\",\"223\",\"GB-ENG\",\"\",\"\",\"IO80\",\"\"\r\n",
            "\"not a park\",\"Somewhere\",\"1\",\"1\",\"US-AK\",\"1\",\"2\",\"AA00aa\",\"\"\r\n",
            "\"K-0001\",\"Acadia (K)\",\"0\",\"291\",\"US-ME\",\"44.31\",\"-68.2034\",\"FN54vh\"\r\n",
        ),
    )
    .unwrap();
    let path = file.display().to_string();
    let run = cli.run(&["parks", "import", &path]);
    run.ok();
    assert_eq!(run.stdout, "imported 3 parks, skipped 1 rows\n");
    assert_eq!(
        run.stderr,
        "svc: row 4: \"not a park\" is not a park reference\n"
    );
    let run = cli.run(&["parks", "import", &path, "--json"]);
    run.ok();
    assert_eq!(run.json(), json!({"imported": 3, "skipped": 1}));
    assert_eq!(run.stderr, "");

    for (reference, name) in [
        ("G-0001", "Dartmoor, \"the\" moor"),
        ("K-0001", "Acadia (K)"),
    ] {
        let run = cli.run(&["parks", "show", reference, "--json"]);
        run.ok();
        let park = run.json();
        assert_eq!(park["name"], name);
        assert_eq!(park["source"], "cache");
    }
    let dartmoor = cli.run(&["parks", "show", "G-0001", "--json"]).json();
    assert_eq!(dartmoor["grid"], "IO80");
    assert_eq!(dartmoor["latitude"], Value::Null);

    // Not the park list, and no file at all: refused, naming the file.
    let other = cli.home.path().join("log.csv");
    std::fs::write(&other, "callsign,frequency\nW1AW,14.074\n").unwrap();
    let message = cli
        .run(&["parks", "import", &other.display().to_string()])
        .fails(2, "parks import", "validation_error");
    assert!(
        message.starts_with(&other.display().to_string())
            && message.contains("no \"reference\" and \"name\" columns"),
        "{message}"
    );
    let missing = cli.home.path().join("missing.csv").display().to_string();
    let message =
        cli.run(&["parks", "import", &missing])
            .fails(2, "parks import", "validation_error");
    assert!(
        message.starts_with(&format!("cannot read {missing}")),
        "{message}"
    );
}

/// The frequency in kHz, as the logbook's form takes it, and a two-fer's parks: the first
/// spotted, the other named in the comment, as the logbook's spot does.
#[test]
fn a_spot_takes_khz_and_a_two_fer() {
    let pota = FakePota::start();
    let cli = user(&pota.url());
    let spot = |reference: &str, frequency: &str, comment: &str| {
        cli.run(&[
            "spot",
            "--reference",
            reference,
            "--frequency",
            frequency,
            "--mode",
            "cw",
            "--comment",
            comment,
            "--activator",
            "w1aw",
        ])
    };
    spot("us-0001,us-0002", "7032.5", "QRP").ok();
    assert_eq!(
        pota.posted(),
        [json!({
            "activator": "W1AW", "spotter": "W1AW", "frequency": "7032.5",
            "reference": "US-0001", "mode": "CW", "source": "svc",
            "comments": "2fer with US-0002: QRP"
        })]
    );
    // The parks named count toward the comment's 256 characters: refused before sending.
    let message =
        spot("us-0001,us-0002", "7032.5", &"x".repeat(250)).fails(2, "spot", "validation_error");
    assert!(message.contains("256"), "{message}");
    spot("us-0001", "99", "QRV").fails(2, "spot", "validation_error");
    assert_eq!(pota.posted().len(), 1, "nothing more sent");
}

#[test]
fn a_spot_is_posted_with_exactly_potas_fields() {
    let pota = FakePota::start();
    let cli = user(&pota.url());
    let run = cli.run(&[
        "spot",
        "--reference",
        "us-0001",
        "--frequency",
        "14.285",
        "--mode",
        "ssb",
        "--comment",
        "QRV, 10 W",
        "--activator",
        "w1aw",
    ]);
    run.ok();
    assert_eq!(
        run.stdout,
        "spotted W1AW at US-0001 (Acadia National Park) on 14.285 MHz SSB\n"
    );
    assert_eq!(
        pota.posted(),
        [json!({
            "activator": "W1AW", "spotter": "W1AW", "frequency": "14285",
            "reference": "US-0001", "mode": "SSB", "source": "svc", "comments": "QRV, 10 W"
        })]
    );
    let post = pota
        .seen()
        .into_iter()
        .find(|s| s.method == "POST")
        .unwrap();
    assert_eq!(post.path, "/spot");
    assert_eq!(post.content_type.as_deref(), Some("application/json"));

    // --json: the spot as POTA took it, in MHz; a frequency below the kHz keeps its digits.
    let run = cli.run(&[
        "spot",
        "--reference",
        "K-0001",
        "--frequency",
        "7.0745",
        "--mode",
        "CW",
        "--activator",
        "K1ABC",
        "--json",
    ]);
    run.ok();
    let spot = run.json();
    assert_eq!(pota.posted()[1]["frequency"], "7074.5");
    assert_eq!(pota.posted()[1]["comments"], "");
    assert_eq!(spot["activator"], "K1ABC");
    assert_eq!(spot["frequency"], 7.0745);
    assert_eq!(spot["band"], "40m");
    assert_eq!(spot["mode"], "CW");
    assert_eq!(spot["reference"], "K-0001");
    assert_eq!(spot["spotter"], "K1ABC");
    assert!(spot["spotTime"].as_str().unwrap().ends_with('Z'), "{spot}");

    // Refused before anything is sent.
    for (flag, value, says) in [
        ("--frequency", "99", "not in an amateur band"),
        ("--reference", "US-0001,US0002", "reference"),
        ("--mode", "XYZMODE", "not an ADIF mode"),
    ] {
        let mut args = vec![
            "spot",
            "--reference",
            "US-0001",
            "--frequency",
            "14.285",
            "--mode",
            "SSB",
            "--activator",
            "W1AW",
        ];
        let at = args.iter().position(|a| *a == flag).unwrap();
        args[at + 1] = value;
        let message = cli.run(&args).fails(2, "spot", "validation_error");
        assert!(message.contains(says), "{message}");
    }
    assert_eq!(pota.posted().len(), 2);
}

/// A comment is one line for hunters: too long, or with a control or a mark that reorders
/// text, it is refused as a usage error naming the fix, and nothing reaches POTA.
#[test]
fn a_bad_spot_comment_is_refused_before_anything_is_sent() {
    let pota = FakePota::start();
    let cli = user(&pota.url());
    let long = "x".repeat(257);
    for (comment, says) in [
        (long.as_str(), "longer than 256 characters; shorten it"),
        ("2fer US-\u{202e}EM", "bidi marks"),
        ("QRV\u{200f}", "bidi marks"),
        ("QRV\u{1b}[2J", "control characters; remove them"),
        ("   ", "must not be empty"),
    ] {
        let run = cli.run(&[
            "spot",
            "--reference",
            "US-0001",
            "--frequency",
            "14.285",
            "--mode",
            "SSB",
            "--activator",
            "W1AW",
            "--comment",
            comment,
        ]);
        assert_eq!(run.code, 2, "{comment:?}: {run:?}");
        assert!(run.stderr.contains("--comment"), "{run:?}");
        assert!(run.stderr.contains(says), "{comment:?}: {run:?}");
        assert!(!run.stderr.contains('\u{202e}'), "{run:?}");
    }
    let fits = "y".repeat(256);
    cli.run(&[
        "spot",
        "--reference",
        "US-0001",
        "--frequency",
        "14.285",
        "--mode",
        "SSB",
        "--activator",
        "W1AW",
        "--comment",
        &fits,
    ])
    .ok();
    assert_eq!(pota.posted().len(), 1);
    assert_eq!(pota.posted()[0]["comments"], fits.as_str());
}

#[test]
fn a_failed_spot_is_reported_and_never_sent_again() {
    let pota = FakePota::start();
    let cli = user(&pota.url());
    let spot = [
        "spot",
        "--reference",
        "US-0001",
        "--frequency",
        "14.285",
        "--mode",
        "SSB",
        "--comment",
        "first-try-comment",
        "--activator",
        "W1AW",
    ];
    pota.set_mode(Mode::ServerError);
    let message = cli.run(&spot).fails(8, "spot", "pota_error");
    assert_eq!(message, "POTA answered 500: Internal Server Error");
    assert_eq!(pota.posted().len(), 1, "one attempt, no retry");

    // POTA is well again; nothing svc does later sends the failed spot.
    pota.set_mode(Mode::Normal);
    cli.run(&["spots"]).ok();
    cli.run(&["parks", "show", "US-0001"]).ok();
    assert_eq!(pota.posted().len(), 1);
    // Nor was it kept anywhere to be sent.
    let mut dirs = vec![cli.home.path().to_owned()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            if entry.path().is_dir() {
                dirs.push(entry.path());
            } else {
                let bytes = std::fs::read(entry.path()).unwrap();
                assert!(
                    !String::from_utf8_lossy(&bytes).contains("first-try-comment"),
                    "{} keeps the failed spot",
                    entry.path().display()
                );
            }
        }
    }

    // No POTA at all: the spot was not sent, and the message says it is not kept.
    cli.set_env("SVC_POTA_API_URL", &closed_port());
    let message = cli.run(&spot).fails(7, "spot", "transport_error");
    assert!(
        message.contains("the spot was not sent") && message.contains("does not send it again"),
        "{message}"
    );
}

#[test]
fn the_activator_is_the_accounts_callsign() {
    let pota = FakePota::start();
    let (_server, _api, cli) = setup("basic");
    cli.set_env("SVC_POTA_API_URL", &pota.url());
    let spot = [
        "spot",
        "--reference",
        "US-0001",
        "--frequency",
        "14.285",
        "--mode",
        "SSB",
    ];
    cli.run(&spot).ok();
    let posted = pota.posted();
    assert_eq!(posted[0]["activator"], "W1AW");
    assert_eq!(posted[0]["spotter"], "W1AW");

    // With no key there is no account to ask: --activator is required.
    let keyless = user(&pota.url());
    let message = keyless.run(&spot).fails(2, "spot", "validation_error");
    assert!(message.starts_with("give --activator CALL"), "{message}");
    assert_eq!(pota.posted().len(), 1);
}

/// A spot of `svc spots --json`, read strictly: a field of another name fails the test.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ListedSpot {
    activator: String,
    frequency: f64,
    band: Option<String>,
    mode: Option<String>,
    reference: String,
    park_name: Option<String>,
    location: Option<String>,
    spot_time: Option<String>,
    spotter: Option<String>,
    comments: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Spots {
    items: Vec<ListedSpot>,
}

#[test]
fn spots_are_listed_newest_first_and_filtered() {
    let pota = FakePota::start();
    let cli = user(&pota.url());
    let run = cli.run(&["spots"]);
    run.ok();
    assert_eq!(
        run.stdout,
        concat!(
            "UTC    ACTIVATOR  MHZ      MODE  PARK     NAME                       SPOTTER  COMMENT\n",
            "12:05  K2ABC      7.0325   CW    US-1234  Some State Park            RBN      RBN 12 dB 22 WPM\n",
            "12:00  W1AW       14.285   SSB   US-0001  Acadia National Park       K1ABC    QRV\n",
            "11:50  VE3XYZ     14.074   FT8   VE-0123  Algonquin Provincial Park  VE3XYZ   \n",
            "11:40  N0CALL     146.520  FM    US-0002  -                          N0CALL   \n",
        )
    );
    assert_eq!(run.stderr, "svc: 4 spots\n");

    let calls = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["spots", "--json"];
        all.extend(args);
        let run = cli.run(&all);
        run.ok();
        let spots: Spots = serde_json::from_str(&run.stdout).unwrap();
        spots.items.into_iter().map(|s| s.activator).collect()
    };
    assert_eq!(calls(&["--band", "20M"]), ["W1AW", "VE3XYZ"]);
    assert_eq!(calls(&["--mode", "cw"]), ["K2ABC"]);
    assert_eq!(calls(&["--mode", "phone"]), ["W1AW", "N0CALL"]);
    assert_eq!(calls(&["--mode", "data"]), ["VE3XYZ"]);
    assert_eq!(calls(&["--mode", "ft8", "--band", "20m"]), ["VE3XYZ"]);
    assert!(calls(&["--band", "40m", "--mode", "phone"]).is_empty());

    let run = cli.run(&["spots", "--json", "--band", "20m"]);
    let spots: Spots = serde_json::from_str(&run.stdout).unwrap();
    let w1aw = &spots.items[0];
    assert_eq!(
        (w1aw.frequency, w1aw.band.as_deref(), w1aw.mode.as_deref()),
        (14.285, Some("20m"), Some("SSB"))
    );
    assert_eq!(w1aw.reference, "US-0001");
    assert_eq!(w1aw.park_name.as_deref(), Some("Acadia National Park"));
    assert_eq!(w1aw.location.as_deref(), Some("US-ME"));
    assert_eq!(w1aw.spot_time.as_deref(), Some("2026-11-27T12:00:00Z"));
    assert_eq!(w1aw.spotter.as_deref(), Some("K1ABC"));
    assert_eq!(w1aw.comments.as_deref(), Some("QRV"));
    // A blank comment is no comment.
    assert_eq!(spots.items[1].comments, None);

    let run = cli.run(&["spots", "--ndjson", "--mode", "phone"]);
    run.ok();
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["frequency"], 146.52);
    assert_eq!(lines[1]["band"], "2m");

    for (flag, value) in [("--band", "11m"), ("--mode", "<b>")] {
        cli.run(&["spots", flag, value])
            .fails(2, "spots", "validation_error");
    }
}

#[test]
fn a_stalled_pota_ends_in_a_time_out() {
    let pota = FakePota::start();
    let cli = user(&pota.url());
    pota.set_mode(Mode::Stall);
    let message = cli.run(&["spots"]).fails(7, "spots", "transport_error");
    assert!(message.contains("(timed out)"), "{message}");
    let message = cli
        .run(&[
            "spot",
            "--reference",
            "US-0001",
            "--frequency",
            "14.285",
            "--mode",
            "SSB",
            "--activator",
            "W1AW",
        ])
        .fails(7, "spot", "transport_error");
    assert!(
        message.contains("(timed out)") && message.contains("may or may not have reached POTA"),
        "{message}"
    );
    assert_eq!(pota.posted().len(), 1);
}

/// POTA's words are kept and shown without what a terminal or page would obey, and bounded: a
/// park whose location reorders itself (`US-\u202eEM` shows as `US-ME`), with escape
/// sequences in its name and 200,000 characters of it, reaches the screen, the JSON and the
/// cache cleaned and cut.
#[test]
fn a_hostile_parks_words_are_cleaned_and_bounded() {
    let pota = FakePota::start();
    let cli = user(&pota.url());
    let name = format!(
        "Evil\u{202e}kraP \u{1b}]0;pwned\u{7}\u{9b}31m{}",
        "N".repeat(200_000)
    );
    pota.add_park(json!({
        "reference": "US-9999", "name": name, "locationDesc": "US-\u{202e}EM\u{2066}",
        "grid6": "FN\u{200f}54", "latitude": 44.0, "longitude": -68.0,
    }));
    let clean = |text: &str, max: usize| {
        assert!(
            text.chars().count() <= max,
            "{} chars",
            text.chars().count()
        );
        assert!(
            !text.chars().any(|c| c.is_control()
                || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')),
            "{:?}",
            &text[..60.min(text.len())]
        );
    };
    let run = cli.run(&["parks", "show", "US-9999", "--json"]);
    run.ok();
    let shown = run.json();
    let shown_name = shown["name"].as_str().unwrap();
    clean(shown_name, 200);
    assert!(
        shown_name.starts_with("EvilkraP ]0;pwned31mNNN"),
        "{shown_name:.40}"
    );
    assert_eq!(shown["location"], "US-EM");
    assert_eq!(shown["grid"], "FN54");

    // What was kept is the cleaned text, and the text output shows it so.
    let path = cli.data_dir().join("svc").join("parks.sqlite");
    let (cached_name, cached_location): (String, String) = crate::common::block_on(async move {
        use sqlx::Connection;
        let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        sqlx::query_as("SELECT name, location FROM parks WHERE reference = 'US-9999'")
            .fetch_one(&mut conn)
            .await
            .unwrap()
    });
    clean(&cached_name, 200);
    assert_eq!(cached_location, "US-EM");
    let run = cli.run(&["parks", "show", "US-9999"]);
    run.ok();
    assert!(run.stdout.contains("Location: US-EM\n"), "{run:?}");
    clean(&run.stdout.replace('\n', " "), 1000);

    // The spot list names the park from POTA's answer: cleaned the same way.
    cli.run(&[
        "spot",
        "--reference",
        "US-9999",
        "--frequency",
        "14.285",
        "--mode",
        "SSB",
        "--activator",
        "W1AW",
    ])
    .ok();
    let run = cli.run(&["spots", "--json"]);
    run.ok();
    let spot = &run.json()["items"][0];
    clean(spot["parkName"].as_str().unwrap(), 200);
    assert_eq!(spot["location"], "US-EM");
    let run = cli.run(&["spots"]);
    run.ok();
    clean(&run.stdout.replace('\n', " "), 2000);
}
