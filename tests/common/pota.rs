//! A stand-in for POTA's public API for the tests: parks and spots in memory, served by axum on a
//! free loopback port from a thread and runtime of its own, with switches that make it fail the
//! ways the real one can. It answers as POTA does: a park as its JSON record and an unknown
//! reference as `null` with 200, the spot list as an array with frequencies as kHz strings and
//! times in UTC without a zone, and a posted spot with the whole list, the new spot first.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::served::Served;

/// How the stand-in answers every request from now on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    /// As POTA does when all is well.
    Normal,
    /// HTTP 500 with a page of text.
    ServerError,
    /// HTTP 400 with a line of text, as POTA refuses a request it will not take.
    Refused,
    /// 200 with an HTML page instead of JSON, as a captive portal or a proxy gives.
    Malformed,
    /// Reads the request and never answers.
    Stall,
}

/// One request as the stand-in saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub content_type: Option<String>,
    pub body: String,
}

struct Pota {
    mode: Mode,
    parks: HashMap<String, Value>,
    /// Newest first, as POTA lists them.
    spots: Vec<Value>,
    next_spot: u64,
    seen: Vec<Seen>,
}

type Shared = Arc<Mutex<Pota>>;

pub struct FakePota {
    url: String,
    state: Shared,
    _served: Served,
}

/// A park as POTA's `/park/{reference}` answers it: its name and its type apart (the park
/// list and the spots give `Acadia National Park`).
fn acadia() -> Value {
    json!({
        "parkId": 1, "reference": "US-0001", "name": "Acadia",
        "latitude": 44.31, "longitude": -68.2034, "grid4": "FN54", "grid6": "FN54vh",
        "parktypeId": 6, "active": 1, "parkComments": null, "accessibility": null,
        "sensitivity": null, "accessMethods": "Automobile,Boat,Foot",
        "activationMethods": "Automobile,Foot", "agencies": null, "agencyURLs": null,
        "parkURLs": null, "website": "https://www.nps.gov/acad/index.htm",
        "createdByAdmin": null, "parktypeDesc": "National Park", "locationDesc": "US-ME",
        "locationName": "Maine", "entityId": 291, "entityName": "United States Of America",
        "referencePrefix": "US", "entityDeleted": 0, "firstActivator": "KC1AKE",
        "firstActivationDate": "2018-06-19"
    })
}

/// A sparser record, its numbers written as strings.
fn algonquin() -> Value {
    json!({
        "parkId": "2", "reference": "VE-0123", "name": "Algonquin Provincial Park",
        "latitude": "45.58", "longitude": "-78.36", "grid4": "FN05", "grid6": "",
        "locationDesc": "CA-ON", "active": "1"
    })
}

/// The spot list the stand-in starts with, as POTA writes one.
fn first_spots() -> Vec<Value> {
    vec![
        json!({"spotId": 1002, "activator": "K2ABC", "frequency": "7032.5", "mode": "CW",
            "reference": "US-1234", "name": "Some State Park", "locationDesc": "US-NY",
            "spotTime": "2026-11-27T12:05:00", "spotter": "RBN", "comments": "RBN 12 dB 22 WPM",
            "source": "RBN", "invalid": null, "parkName": null, "grid4": "FN13",
            "grid6": "FN13sa", "latitude": 43.1, "longitude": -76.5, "count": 4, "expire": 1500}),
        json!({"spotId": 1001, "activator": "W1AW", "frequency": "14285", "mode": "SSB",
            "reference": "US-0001", "name": "Acadia National Park", "locationDesc": "US-ME",
            "spotTime": "2026-11-27T12:00:00", "spotter": "K1ABC", "comments": "QRV",
            "source": "Web", "invalid": null, "count": 2, "expire": 1200}),
        json!({"spotId": 1000, "activator": "VE3XYZ", "frequency": 14074, "mode": "FT8",
            "reference": "VE-0123", "name": "Algonquin Provincial Park",
            "locationDesc": "CA-ON", "spotTime": "2026-11-27T11:50:00", "spotter": "VE3XYZ",
            "comments": "", "source": "Ham2K Portable Logger"}),
        json!({"spotId": 999, "activator": "N0CALL", "frequency": "146520.0", "mode": "FM",
            "reference": "US-0002", "spotTime": "2026-11-27T11:40:00", "spotter": "N0CALL"}),
        // A spot POTA took back, and one no hunter could use.
        json!({"spotId": 998, "activator": "K9BAD", "frequency": "14300", "mode": "SSB",
            "reference": "US-0003", "spotTime": "2026-11-27T12:10:00", "invalid": true}),
        json!({"spotId": 997, "activator": "K9NOF", "frequency": "", "mode": "SSB",
            "reference": "US-0004", "spotTime": "2026-11-27T12:11:00"}),
    ]
}

impl FakePota {
    pub fn start() -> FakePota {
        let parks = [acadia(), algonquin()]
            .into_iter()
            .map(|p| (p["reference"].as_str().unwrap().to_owned(), p))
            .collect();
        let state: Shared = Arc::new(Mutex::new(Pota {
            mode: Mode::Normal,
            parks,
            spots: first_spots(),
            next_spot: 2000,
            seen: Vec::new(),
        }));
        let app = Router::new()
            .route("/park/{reference}", get(park))
            .route("/spot/activator", get(spots))
            // POTA's website posts to /spot; some loggers add a slash, and both work.
            .route("/spot", post(new_spot))
            .route("/spot/", post(new_spot))
            .fallback(unknown)
            .with_state(state.clone());
        let served = Served::start(app, "the POTA stand-in");
        FakePota {
            url: format!("http://{}", served.addr),
            state,
            _served: served,
        }
    }

    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// Adds a park, or replaces the one of its `reference`, as POTA's record of it.
    pub fn add_park(&self, park: Value) {
        let reference = park["reference"].as_str().expect("a reference").to_owned();
        self.state.lock().unwrap().parks.insert(reference, park);
    }

    pub fn set_mode(&self, mode: Mode) {
        self.state.lock().unwrap().mode = mode;
    }

    /// Every request so far, whatever the mode made of it.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }

    /// The bodies of every spot posted so far, as JSON (`Null` for one that was not JSON).
    pub fn posted(&self) -> Vec<Value> {
        self.seen()
            .into_iter()
            .filter(|s| s.method == "POST")
            .map(|s| serde_json::from_str(&s.body).unwrap_or(Value::Null))
            .collect()
    }
}

/// Records the request and answers as the mode says; `None` when the answer is POTA's own.
async fn failure(
    state: &Shared,
    method: &str,
    path: String,
    content_type: Option<String>,
    body: String,
) -> Option<Response> {
    let mode = {
        let mut pota = state.lock().unwrap();
        pota.seen.push(Seen {
            method: method.to_owned(),
            path,
            content_type,
            body,
        });
        pota.mode
    };
    match mode {
        Mode::Normal => None,
        Mode::Stall => std::future::pending().await,
        Mode::ServerError => {
            Some((StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error").into_response())
        }
        Mode::Refused => Some((StatusCode::BAD_REQUEST, "Invalid spot").into_response()),
        Mode::Malformed => Some(
            (
                [(CONTENT_TYPE, "text/html")],
                "<html><body><h1>Sign in to the network</h1></body></html>",
            )
                .into_response(),
        ),
    }
}

fn json_answer(value: &Value) -> Response {
    ([(CONTENT_TYPE, "application/json")], value.to_string()).into_response()
}

async fn park(State(state): State<Shared>, Path(reference): Path<String>) -> Response {
    let path = format!("/park/{reference}");
    if let Some(answer) = failure(&state, "GET", path, None, String::new()).await {
        return answer;
    }
    let pota = state.lock().unwrap();
    json_answer(pota.parks.get(&reference).unwrap_or(&Value::Null))
}

async fn spots(State(state): State<Shared>) -> Response {
    if let Some(answer) =
        failure(&state, "GET", "/spot/activator".into(), None, String::new()).await
    {
        return answer;
    }
    json_answer(&Value::Array(state.lock().unwrap().spots.clone()))
}

async fn new_spot(
    State(state): State<Shared>,
    uri: axum::http::Uri,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Response {
    let content_type = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let text = String::from_utf8_lossy(&body).into_owned();
    if let Some(answer) = failure(
        &state,
        "POST",
        uri.path().to_owned(),
        content_type,
        text.clone(),
    )
    .await
    {
        return answer;
    }
    let Ok(sent) = serde_json::from_str::<Value>(&text) else {
        return (StatusCode::BAD_REQUEST, "Invalid JSON").into_response();
    };
    let field = |name: &str| {
        sent.get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    if ["activator", "spotter", "frequency", "reference", "mode"]
        .iter()
        .any(|name| field(name).is_empty())
    {
        return (StatusCode::BAD_REQUEST, "Missing required fields").into_response();
    }
    let mut pota = state.lock().unwrap();
    let park = pota
        .parks
        .get(&field("reference"))
        .cloned()
        .unwrap_or(Value::Null);
    pota.next_spot += 1;
    let spot = json!({
        "spotId": pota.next_spot,
        "activator": field("activator"),
        "frequency": field("frequency"),
        "mode": field("mode"),
        "reference": field("reference"),
        "parkName": null,
        "spotTime": chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S").to_string(),
        "spotter": field("spotter"),
        "comments": field("comments"),
        "source": field("source"),
        "invalid": null,
        // A spot names the park as POTA shows it, its type with it.
        "name": match park["parktypeDesc"].as_str() {
            Some(kind) => json!(format!("{} {kind}", park["name"].as_str().unwrap_or_default())),
            None => park["name"].clone(),
        },
        "locationDesc": park["locationDesc"],
        "grid4": park["grid4"],
        "grid6": park["grid6"],
        "latitude": park["latitude"],
        "longitude": park["longitude"],
        "count": 1,
        "expire": 1800,
    });
    pota.spots.insert(0, spot);
    json_answer(&Value::Array(pota.spots.clone()))
}

async fn unknown(
    State(state): State<Shared>,
    method: axum::http::Method,
    uri: axum::http::Uri,
) -> Response {
    let _ = failure(
        &state,
        method.as_str(),
        uri.path().to_owned(),
        None,
        String::new(),
    )
    .await;
    (StatusCode::NOT_FOUND, "Not Found").into_response()
}
