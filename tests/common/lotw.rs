//! A stand-in for ARRL's Logbook of The World report (`/lotwuser/lotwreport.adi`), for the
//! `svc lotw` tests. It answers as ARRL's "Downloading QSO and QSL data" documentation
//! describes: a free-text preamble, then ADIF with `APP_LoTW_LASTQSL` and `APP_LoTW_NUMREC`
//! in the header, one record per QSL with remarks after some values (`// QSO Date`), lower-case
//! `<eor>`, and `<APP_LoTW_EOF>` at the end; a wrong login is answered 200 with a web page.
//! The report is written here, field by field, never with svc's ADIF writer. Switches cut the
//! next report short or make its count disagree.
//!
//! Asked `qso_qsl=no&qso_qsorxsince=…`, it answers the report of the QSOs LoTW received since
//! then, confirmed or not, as the same documentation has it: `APP_LoTW_LASTQSORX` in the
//! header, and in each record `APP_LoTW_RXQSO` (when LoTW received it) and `QSL_RCVD` `Y`
//! (with `QSLRDATE` and `APP_LoTW_RXQSL`) or `N`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::routing::get;

use super::served::Served;

/// One QSL LoTW holds: the user's QSO as uploaded and when LoTW matched it.
#[derive(Debug, Clone)]
pub struct Qsl {
    pub owncall: &'static str,
    pub call: &'static str,
    pub band: &'static str,
    pub mode: &'static str,
    /// `YYYYMMDD`, `HHMMSS`.
    pub date: &'static str,
    pub time: &'static str,
    /// When LoTW matched it: `YYYY-MM-DD HH:MM:SS`.
    pub matched: &'static str,
    /// Detail fields as LoTW writes them, e.g. ("STATE", "MA // Massachusetts").
    pub details: Vec<(&'static str, &'static str)>,
}

/// One QSO LoTW received from the user's upload, confirmed or not.
#[derive(Debug, Clone)]
pub struct Received {
    pub owncall: &'static str,
    pub call: &'static str,
    pub band: &'static str,
    pub mode: &'static str,
    /// `YYYYMMDD`, `HHMMSS`.
    pub date: &'static str,
    pub time: &'static str,
    /// When LoTW received it: `YYYY-MM-DD HH:MM:SS`.
    pub rx: String,
    /// When LoTW matched it with the other station's, if it did: `YYYY-MM-DD HH:MM:SS`.
    pub matched: Option<String>,
}

#[derive(Default)]
struct Lotw {
    user: String,
    password: String,
    qsls: Vec<Qsl>,
    received: Vec<Received>,
    /// A report served as it is, in place of one written from `qsls`.
    file: Option<Vec<u8>>,
    cut_next: bool,
    miscount_next: bool,
    cut_next_received: bool,
    seen: Vec<HashMap<String, String>>,
}

type Shared = Arc<Mutex<Lotw>>;

pub struct FakeLotw {
    base: String,
    state: Shared,
    _served: Served,
}

impl FakeLotw {
    pub fn start(user: &str, password: &str) -> FakeLotw {
        let state: Shared = Arc::new(Mutex::new(Lotw {
            user: user.to_owned(),
            password: password.to_owned(),
            ..Lotw::default()
        }));
        let app = Router::new()
            .route("/lotwuser/lotwreport.adi", get(report))
            .with_state(state.clone());
        let served = Served::start(app, "the LoTW stand-in");
        FakeLotw {
            base: format!("http://{}", served.addr),
            state,
            _served: served,
        }
    }

    pub fn url(&self) -> String {
        format!("{}/lotwuser/lotwreport.adi", self.base)
    }

    pub fn add(&self, qsl: Qsl) {
        self.state.lock().unwrap().qsls.push(qsl);
    }

    /// LoTW received this QSO from the user.
    pub fn receive(&self, received: Received) {
        self.state.lock().unwrap().received.push(received);
    }

    /// Every report from now on is `bytes`, as LoTW once wrote them.
    pub fn serve_file(&self, bytes: Vec<u8>) {
        self.state.lock().unwrap().file = Some(bytes);
    }

    /// The next report stops before its end mark, as a dropped connection leaves it.
    pub fn cut_next(&self) {
        self.state.lock().unwrap().cut_next = true;
    }

    /// The next report of what LoTW received stops before its end mark.
    pub fn cut_next_received(&self) {
        self.state.lock().unwrap().cut_next_received = true;
    }

    /// The next report's APP_LoTW_NUMREC is one more than its records.
    pub fn miscount_next(&self) {
        self.state.lock().unwrap().miscount_next = true;
    }

    /// Every request's query so far.
    pub fn seen(&self) -> Vec<HashMap<String, String>> {
        self.state.lock().unwrap().seen.clone()
    }
}

fn field(name: &str, value: &str) -> String {
    format!("<{name}:{}>{value}\n", value.len())
}

/// A value and the remark LoTW writes after it.
fn remarked(name: &str, value: &str, remark: &str) -> String {
    format!("<{name}:{}>{value} // {remark}\n", value.len())
}

async fn report(State(state): State<Shared>, RawQuery(query): RawQuery) -> Vec<u8> {
    let params: HashMap<String, String> =
        form_urlencoded::parse(query.unwrap_or_default().as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
    let mut lotw = state.lock().unwrap();
    lotw.seen.push(params.clone());
    let get = |name: &str| params.get(name).cloned().unwrap_or_default();
    if get("login") != lotw.user || get("password") != lotw.password {
        return "<!DOCTYPE html>\n<html><head><title>Logbook of the World</title></head><body>\
                <p>Username/password incorrect</p><form>Login <input name=\"login\"> \
                Password <input type=\"password\"></form></body></html>\n"
            .into();
    }
    if let Some(file) = &lotw.file {
        return file.clone();
    }
    if get("qso_qsl") == "no" {
        return received_report(&mut lotw, &get("qso_qsorxsince"), &get("qso_owncall"));
    }
    // qso_qslsince: QSLs matched on or after that day or moment; the text compares in order.
    let since = get("qso_qslsince");
    let owncall = get("qso_owncall");
    let qsls: Vec<Qsl> = lotw
        .qsls
        .iter()
        .filter(|q| q.matched >= since.as_str())
        .filter(|q| owncall.is_empty() || q.owncall.eq_ignore_ascii_case(&owncall))
        .cloned()
        .collect();
    let mut text =
        String::from("ARRL Logbook of the World Status Report\nGenerated at 2026-11-12 10:00:00\n");
    text.push_str(&format!("for {}\nQuery:\n    QSL ONLY: YES\n\n", lotw.user));
    text.push_str(&field("PROGRAMID", "LoTW"));
    if let Some(last) = qsls.iter().map(|q| q.matched).max() {
        text.push_str(&field("APP_LoTW_LASTQSL", last));
    }
    let declared = qsls.len() + usize::from(std::mem::take(&mut lotw.miscount_next));
    text.push_str(&field("APP_LoTW_NUMREC", &declared.to_string()));
    text.push_str("\n<eoh>\n");
    for q in &qsls {
        text.push('\n');
        text.push_str(&field("APP_LoTW_OWNCALL", q.owncall));
        text.push_str(&field("STATION_CALLSIGN", q.owncall));
        text.push_str(&field("CALL", q.call));
        text.push_str(&field("BAND", q.band));
        text.push_str(&field("MODE", q.mode));
        text.push_str(&remarked("QSO_DATE", q.date, "QSO Date"));
        text.push_str(&remarked("TIME_ON", q.time, "Time"));
        text.push_str(&remarked(
            "APP_LoTW_RXQSL",
            q.matched,
            "QSL record inserted",
        ));
        text.push_str(&field("QSL_RCVD", "Y"));
        text.push_str(&remarked(
            "QSLRDATE",
            &q.matched[..10].replace('-', ""),
            "QSL Date",
        ));
        for (name, value) in &q.details {
            let (value, remark) = value.split_once(" // ").unwrap_or((value, ""));
            if remark.is_empty() {
                text.push_str(&field(name, value));
            } else {
                text.push_str(&remarked(name, value, remark));
            }
        }
        text.push_str("<eor>\n");
    }
    if std::mem::take(&mut lotw.cut_next) {
        // Cut mid-record, as a dropped connection leaves it.
        let keep = text.len() - text.len() / 4;
        text.truncate(keep);
        return text.into_bytes();
    }
    text.push_str("\n<APP_LoTW_EOF>\n");
    text.into_bytes()
}

/// The report of the QSOs LoTW received since `since` (a day or a moment; the text compares
/// in order).
fn received_report(lotw: &mut Lotw, since: &str, owncall: &str) -> Vec<u8> {
    let records: Vec<Received> = lotw
        .received
        .iter()
        .filter(|r| !since.is_empty() && r.rx.as_str() >= since)
        .filter(|r| owncall.is_empty() || r.owncall.eq_ignore_ascii_case(owncall))
        .cloned()
        .collect();
    let mut text =
        String::from("ARRL Logbook of the World Status Report\nGenerated at 2026-11-28 10:00:00\n");
    text.push_str(&format!(
        "for {}\nQuery:\n    QSL ONLY: NO\n    QSO RX SINCE: {since}\n\n",
        lotw.user
    ));
    text.push_str(&field("PROGRAMID", "LoTW"));
    if let Some(last) = records.iter().map(|r| r.rx.as_str()).max() {
        text.push_str(&field("APP_LoTW_LASTQSORX", last));
    }
    let declared = records.len() + usize::from(std::mem::take(&mut lotw.miscount_next));
    text.push_str(&field("APP_LoTW_NUMREC", &declared.to_string()));
    text.push_str("\n<eoh>\n");
    for r in &records {
        text.push('\n');
        text.push_str(&field("APP_LoTW_OWNCALL", r.owncall));
        text.push_str(&field("STATION_CALLSIGN", r.owncall));
        text.push_str(&field("CALL", r.call));
        text.push_str(&field("BAND", r.band));
        text.push_str(&field("MODE", r.mode));
        text.push_str(&field("APP_LoTW_MODEGROUP", "DATA"));
        text.push_str(&remarked("QSO_DATE", r.date, "QSO Date"));
        text.push_str(&remarked("TIME_ON", r.time, "Time"));
        text.push_str(&remarked(
            "APP_LoTW_RXQSO",
            &r.rx,
            "QSO record inserted/modified at LoTW",
        ));
        match &r.matched {
            Some(matched) => {
                text.push_str(&field("QSL_RCVD", "Y"));
                text.push_str(&remarked(
                    "QSLRDATE",
                    &matched[..10].replace('-', ""),
                    "QSL Date",
                ));
                text.push_str(&remarked(
                    "APP_LoTW_RXQSL",
                    matched,
                    "QSL record matched/modified at LoTW",
                ));
            }
            None => text.push_str(&field("QSL_RCVD", "N")),
        }
        text.push_str("<eor>\n");
    }
    if std::mem::take(&mut lotw.cut_next_received) {
        // The last record's end and the end mark never came.
        let keep = text.len() - 8;
        text.truncate(keep);
        return text.into_bytes();
    }
    text.push_str("\n<APP_LoTW_EOF>\n");
    text.into_bytes()
}
