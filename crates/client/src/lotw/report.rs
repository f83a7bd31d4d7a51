//! LoTW's confirmations report (`lotwreport.adi`), read whole and checked before any of it is
//! used: ADIF with a header of its own (`APP_LoTW_LASTQSL`, `APP_LoTW_NUMREC`), remarks after
//! values (`<MY_STATE:2>WI // Wisconsin`, which the ADIF reader skips), and `<APP_LoTW_EOF>`
//! at the end. A report without that end mark was cut short; one whose record count is not
//! its header's was not read as LoTW wrote it. Either is refused whole. A wrong password is
//! answered with a web page, not a report.
//!
//! The report of what LoTW received (`qso_qsl=no&qso_qsorxsince=…`) is read the same way: its
//! header has `APP_LoTW_LASTQSORX` instead, and each record `APP_LoTW_RXQSO` (when LoTW
//! received the QSO) and `QSL_RCVD` `Y` or `N`. A confirmed one is a confirmation; one not
//! confirmed is a received item (`received_on`, no `confirmed_on`).

use svc_model::Timestamp;
use svc_model::confirm::{Confirmation, DETAILS};
use svc_model::fields::Field;

use super::LotwError;

/// A report read whole.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// APP_LoTW_LASTQSL: where the next download starts. Absent from a report with no records.
    pub last_qsl: Option<String>,
    /// APP_LoTW_LASTQSORX, of a report of what LoTW received: where the next one starts.
    pub last_qsorx: Option<String>,
    /// The confirmations, and the QSOs LoTW received and has not confirmed, in the report's
    /// order.
    pub confirmations: Vec<Confirmation>,
    /// Records svc cannot use, each with why (a record with no call, say).
    pub skipped: Vec<String>,
}

/// Whether `body` ends with LoTW's end mark, blanks after it allowed.
fn ends_with_eof(body: &[u8]) -> bool {
    const MARK: &[u8] = b"<app_lotw_eof>";
    let trimmed = body.trim_ascii_end();
    trimmed.len() >= MARK.len() && trimmed[trimmed.len() - MARK.len()..].eq_ignore_ascii_case(MARK)
}

/// Reads a downloaded report.
pub fn read(body: &[u8]) -> Result<Report, LotwError> {
    let start = String::from_utf8_lossy(&body[..body.len().min(2048)]).to_ascii_lowercase();
    if !start.contains("<eoh>") && (start.contains("<html") || start.contains("<!doctype")) {
        return Err(if start.contains("password") || start.contains("login") {
            LotwError::Refused(
                "LoTW refused the user name or password (it answered with its login page); run svc lotw connect --user CALL --password-stdin with your LoTW website login".into(),
            )
        } else {
            LotwError::Unavailable(
                "LoTW answered with a web page, not a report; try again later".into(),
            )
        });
    }
    if !ends_with_eof(body) {
        return Err(LotwError::Incomplete(format!(
            "the report from LoTW has no <APP_LoTW_EOF> at its end ({} bytes came): it was cut short, so nothing was changed; run svc lotw sync again",
            body.len()
        )));
    }
    let reader = svc_adif::Reader::new(body).map_err(|e| {
        LotwError::Unavailable(format!("LoTW's answer is not a report LoTW writes ({e})"))
    })?;
    let header = reader.header().clone();
    let mut report = Report {
        last_qsl: header.get("APP_LoTW_LASTQSL").map(str::to_owned),
        last_qsorx: header.get("APP_LoTW_LASTQSORX").map(str::to_owned),
        ..Report::default()
    };
    let declared = match header.get("APP_LoTW_NUMREC") {
        Some(text) => Some(text.parse::<usize>().map_err(|_| {
            LotwError::Incomplete(format!(
                "the report's APP_LoTW_NUMREC {text:?} is not a number; nothing was changed"
            ))
        })?),
        None => None,
    };
    // A report with nothing new is a header and the end mark, which the reader calls a
    // file without records.
    if declared == Some(0) {
        return Ok(report);
    }
    let mut read = 0usize;
    for (number, record) in (1..).zip(reader) {
        let record = match record {
            Ok(record) => record,
            Err(e) if e.record == 0 => {
                return Err(LotwError::Incomplete(format!(
                    "the report from LoTW cannot be read past byte {} ({}); nothing was changed",
                    e.offset, e.message
                )));
            }
            Err(e) => {
                read += 1;
                report
                    .skipped
                    .push(format!("record {number}: {}", e.message));
                continue;
            }
        };
        read += 1;
        match confirmation(&record) {
            Ok(Some(c)) => report.confirmations.push(c),
            Ok(None) => {}
            Err(why) => report.skipped.push(format!("record {number}: {why}")),
        }
    }
    if let Some(declared) = declared
        && declared != read
    {
        return Err(LotwError::Incomplete(format!(
            "the report from LoTW says it holds {declared} records but {read} were read; nothing was changed: run svc lotw sync again"
        )));
    }
    Ok(report)
}

/// The day of a LoTW time (`YYYY-MM-DD HH:MM:SS`).
fn day(at: &str) -> &str {
    at.get(..10).unwrap_or(at)
}

/// One record as a confirmation, or as a QSO LoTW received (QSL_RCVD not Y, with
/// APP_LoTW_RXQSO); `None` for a record that says neither.
fn confirmation(record: &svc_adif::Record) -> Result<Option<Confirmation>, String> {
    let received_on = if record
        .get("QSL_RCVD")
        .is_some_and(|r| !r.eq_ignore_ascii_case("Y"))
    {
        match record.get("APP_LoTW_RXQSO") {
            Some(at) => Some(day(at).to_owned()),
            None => return Ok(None),
        }
    } else {
        None
    };
    let imported = svc_adif::contact::imported(record)?;
    let contact = imported.contact;
    let band = record
        .get("BAND")
        .map(str::to_owned)
        .or_else(|| svc_model::band::band_for_mhz(contact.frequency).map(str::to_owned))
        .ok_or("it has no BAND")?;
    let station_callsign = record
        .get("STATION_CALLSIGN")
        .or_else(|| record.get("APP_LoTW_OWNCALL"))
        .map(str::to_owned)
        .or(contact.station_callsign)
        .ok_or("it names no station callsign (STATION_CALLSIGN or APP_LoTW_OWNCALL)")?;
    let time_on = Timestamp::parse("TIME_ON", &contact.time_on).map_err(|e| e.message)?;
    // LoTW writes QSLRDATE on each confirmation; without it, the day LoTW matched the QSO.
    let confirmed_on = match received_on {
        Some(_) => None,
        None => Some(
            record
                .get("QSLRDATE")
                .or_else(|| record.get("APP_LoTW_RXQSL").map(day))
                .ok_or("it has no QSLRDATE")?
                .to_owned(),
        ),
    };
    let details = DETAILS
        .iter()
        .filter_map(|f| {
            let value = contact.fields.get(*f)?;
            Some((f.def().wire.to_owned(), value.to_owned()))
        })
        .collect();
    Ok(Some(Confirmation {
        callsign: contact.callsign,
        band,
        mode: contact.mode,
        time_on,
        station_callsign,
        prop_mode: contact.fields.get(Field::PropMode).map(str::to_owned),
        sat_name: contact.fields.get(Field::SatName).map(str::to_owned),
        confirmed_on,
        received_on,
        details,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "ARRL Logbook of the World Status Report\nGenerated at 2026-11-12 10:00:00\n\
        <PROGRAMID:4>LoTW\n<APP_LoTW_LASTQSL:19>2026-11-10 18:00:00\n";

    fn record(call: &str) -> String {
        format!(
            "<APP_LoTW_OWNCALL:4>W9XX\n<STATION_CALLSIGN:4>W9XX\n<CALL:{}>{call}\n<BAND:3>20M\n\
             <FREQ:8>14.07400\n<MODE:3>FT8\n<QSO_DATE:8>20261101 // QSO Date\n\
             <TIME_ON:6>120030 // Time\n<QSL_RCVD:1>Y\n<QSLRDATE:8>20261102\n<DXCC:3>291\n\
             <STATE:2>MA // Massachusetts\n<GRIDSQUARE:4>FN42\n<eor>\n",
            call.len()
        )
    }

    fn report(n: usize, records: &[String], eof: bool) -> Vec<u8> {
        let mut text = format!(
            "{HEAD}<APP_LoTW_NUMREC:{}>{n}\n<eoh>\n",
            n.to_string().len()
        );
        for r in records {
            text.push_str(r);
        }
        if eof {
            text.push_str("<APP_LoTW_EOF>\n");
        }
        text.into_bytes()
    }

    #[test]
    fn a_whole_report_gives_its_confirmations_and_where_the_next_starts() {
        let r = read(&report(2, &[record("K1ABC"), record("DL1AB")], true)).unwrap();
        assert_eq!(r.last_qsl.as_deref(), Some("2026-11-10 18:00:00"));
        assert_eq!(r.confirmations.len(), 2);
        let c = &r.confirmations[0];
        assert_eq!(
            (c.callsign.as_str(), c.band.as_str(), c.mode.as_str()),
            ("K1ABC", "20M", "FT8")
        );
        assert_eq!(c.station_callsign, "W9XX");
        assert_eq!(c.time_on.to_string(), "2026-11-01T12:00:30Z");
        assert_eq!(c.confirmed_on.as_deref(), Some("20261102"));
        assert_eq!(c.details.get("state").map(String::as_str), Some("MA"));
        assert_eq!(c.details.get("dxcc").map(String::as_str), Some("291"));
        assert!(r.skipped.is_empty(), "{:?}", r.skipped);
    }

    #[test]
    fn a_received_report_gives_received_qsos_and_its_confirmations() {
        let unconfirmed = record("DL1AB")
            .replace("<QSL_RCVD:1>Y\n<QSLRDATE:8>20261102\n", "<QSL_RCVD:1>N\n")
            .replace(
                "<eor>",
                "<APP_LoTW_RXQSO:19>2026-11-03 09:00:00 // QSO record inserted/modified at LoTW\n<eor>",
            );
        let text = String::from_utf8(report(2, &[record("K1ABC"), unconfirmed], true))
            .unwrap()
            .replace(
                "<APP_LoTW_LASTQSL:19>2026-11-10 18:00:00",
                "<APP_LoTW_LASTQSORX:19>2026-11-03 09:00:00",
            );
        let r = read(text.as_bytes()).unwrap();
        assert_eq!(r.last_qsorx.as_deref(), Some("2026-11-03 09:00:00"));
        assert_eq!(r.last_qsl, None);
        let dates: Vec<_> = r
            .confirmations
            .iter()
            .map(|c| (c.confirmed_on.as_deref(), c.received_on.as_deref()))
            .collect();
        assert_eq!(
            dates,
            [(Some("20261102"), None), (None, Some("2026-11-03"))]
        );
    }

    #[test]
    fn a_report_cut_short_or_miscounted_is_refused() {
        let cut = read(&report(2, &[record("K1ABC"), record("DL1AB")], false)).unwrap_err();
        assert!(
            matches!(cut, LotwError::Incomplete(ref m) if m.contains("APP_LoTW_EOF")),
            "{cut}"
        );
        let miscounted = read(&report(3, &[record("K1ABC"), record("DL1AB")], true)).unwrap_err();
        assert!(
            matches!(miscounted, LotwError::Incomplete(ref m) if m.contains("holds 3 records but 2")),
            "{miscounted}"
        );
    }

    #[test]
    fn the_login_page_is_a_refused_password() {
        let page = b"<!DOCTYPE html><html><body>Username/password incorrect. Login</body></html>";
        assert!(matches!(read(page), Err(LotwError::Refused(_))));
    }

    #[test]
    fn an_empty_report_is_whole() {
        let text = "ARRL Logbook of the World Status Report\n<PROGRAMID:4>LoTW\n\
                    <APP_LoTW_NUMREC:1>0\n<eoh>\n<APP_LoTW_EOF>\n";
        let r = read(text.as_bytes()).unwrap();
        assert!(r.confirmations.is_empty() && r.last_qsl.is_none());
    }
}
