//! Club Log's API, client side (clublog.org's helpdesk articles "How to upload QSOs in
//! real-time", "How to delete QSOs in real-time" and "How to upload logs directly into Club
//! Log"): one form POST per contact to `realtime.php`, one per deleted contact to
//! `delete.php`, and a multipart POST of an ADIF file to `putlogs.php` for a back log.
//!
//! Club Log answers with an HTTP status, and a body meant to be shown to the user:
//! - 200: done. A body saying `QSO Duplicate` means Club Log had the contact already, which is
//!   what was wanted too.
//! - 400: the contact was rejected; sending it again will not help.
//! - 403: the email, application password, callsign or API key was refused. Club Log asks
//!   that nothing more be sent until the user changes them, and blocks the address of a
//!   program that goes on: the caller stops every send of the book.
//! - 404 (delete only): no such contact there; for a delete, as good as deleted.
//! - 500 and the other server errors, or no answer: tried again later.
//!
//! Club Log has no ids for its records: a contact is found by its call, its time on to the
//! second and its band ([`CopyKey`]), and its band by the number [`band_id`] gives it.
//!
//! The application password and the service's API key are passed with each call, never
//! stored here in the clear, and taken out of every error in case Club Log quotes them.

use std::fmt;
use std::time::Duration;

use reqwest::header::CONTENT_TYPE;
use reqwest::{StatusCode, Url};

use super::qrz::cause;
use svc_adif::Record;

/// Where Club Log serves its API.
pub const DEFAULT_URL: &str = "https://clublog.org";

/// How long to wait for a connection to Club Log.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one contact's upload or delete may take in all.
const TOTAL_TIMEOUT: Duration = Duration::from_secs(30);
/// How long an upload of a whole back log may take: a file of thousands of records.
const FILE_TIMEOUT: Duration = Duration::from_secs(300);
/// How much of Club Log's answer an error quotes.
const PREVIEW: usize = 200;

/// A Club Log client at one address, with the service's API key when the operator gave one.
/// Cheap to clone: clones share connections.
#[derive(Clone)]
pub struct ClubLog {
    http: reqwest::Client,
    base: Url,
    api_key: Option<String>,
}

impl fmt::Debug for ClubLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClubLog")
            .field("base", &self.base.as_str())
            .field("api_key", &self.api_key.as_ref().map(|_| "…"))
            .finish_non_exhaustive()
    }
}

/// What opens one Club Log log: the account's email and application password, and the log's
/// callsign. The password is a secret of the user's: `Debug` does not show it.
pub struct Account<'a> {
    pub email: &'a str,
    pub password: &'a str,
    pub callsign: &'a str,
}

impl fmt::Debug for Account<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Account")
            .field("email", &self.email)
            .field("callsign", &self.callsign)
            .finish_non_exhaustive()
    }
}

/// Why a call did not succeed, by what the caller should do about it. Each text is Club
/// Log's answer (shortened), which is meant for the user.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClubLogError {
    /// 403: the credentials or the API key were refused. Send nothing more to the book.
    #[error("Club Log refused access: {0}")]
    Forbidden(String),
    /// 400 (or another refusal): this request will not be taken; sending it again won't help.
    #[error("Club Log rejected it: {0}")]
    Rejected(String),
    /// No answer, or a server error: try again later.
    #[error("Club Log is unavailable: {0}")]
    Unavailable(String),
}

/// The number Club Log's delete takes for a band (`bandid`): the band's wavelength, in metres
/// or for 70cm, 23cm and 13cm in centimetres, as its documentation lists them (160, 80, 60,
/// 40, 30, 20, 17, 15, 12, 10, 6, 4, 2, 70, 23 and 13). `None` for a band it has no number for.
pub fn band_id(band: &str) -> Option<&'static str> {
    const IDS: &[(&str, &str)] = &[
        ("160m", "160"),
        ("80m", "80"),
        ("60m", "60"),
        ("40m", "40"),
        ("30m", "30"),
        ("20m", "20"),
        ("17m", "17"),
        ("15m", "15"),
        ("12m", "12"),
        ("10m", "10"),
        ("6m", "6"),
        ("4m", "4"),
        ("2m", "2"),
        ("70cm", "70"),
        ("23cm", "23"),
        ("13cm", "13"),
    ];
    IDS.iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(band.trim()))
        .map(|(_, id)| *id)
}

/// How Club Log finds its copy of a contact, since it gives none an id: the call, the time on
/// (`YYYY-MM-DD HH:MM:SS`, UTC) and the band, as the record sent said them. Kept as the copy's
/// log id, `CALL|YYYY-MM-DD HH:MM:SS|band`, so that a contact deleted or edited here later can
/// be deleted there by what Club Log was given, whatever the contact says by then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyKey {
    pub call: String,
    pub datetime: String,
    pub band: String,
}

impl CopyKey {
    /// The key of a record as it is sent; `None` when it lacks a call, a date, a time or a
    /// band (svc's records always have them).
    pub fn of(record: &Record) -> Option<CopyKey> {
        let date = record.get("QSO_DATE")?;
        let time = record.get("TIME_ON")?;
        if date.len() != 8 || !(time.len() == 4 || time.len() == 6) || !date.is_ascii() {
            return None;
        }
        let time = format!("{time:0<6}");
        if !time.is_ascii() {
            return None;
        }
        Some(CopyKey {
            call: record.get("CALL")?.trim().to_ascii_uppercase(),
            datetime: format!(
                "{}-{}-{} {}:{}:{}",
                &date[..4],
                &date[4..6],
                &date[6..],
                &time[..2],
                &time[2..4],
                &time[4..]
            ),
            band: record.get("BAND")?.trim().to_ascii_lowercase(),
        })
    }

    pub fn log_id(&self) -> String {
        format!("{}|{}|{}", self.call, self.datetime, self.band)
    }

    /// A key from a copy's log id; `None` for one not written by [`CopyKey::log_id`].
    pub fn parse(log_id: &str) -> Option<CopyKey> {
        // From the right: the time and band hold no `|`, and neither does a callsign.
        let mut parts = log_id.rsplitn(3, '|');
        let band = parts.next()?;
        let datetime = parts.next()?;
        let call = parts.next()?;
        (!call.is_empty() && datetime.len() == 19 && !band.is_empty()).then(|| CopyKey {
            call: call.to_owned(),
            datetime: datetime.to_owned(),
            band: band.to_owned(),
        })
    }
}

impl ClubLog {
    pub fn new(base: Url, api_key: Option<String>) -> Result<ClubLog, String> {
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!("svc/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(CONNECT_TIMEOUT)
            // A redirect means the address is wrong: report it rather than post the password
            // elsewhere.
            .redirect(reqwest::redirect::Policy::none());
        if base.scheme() == "http" {
            // Only a test's stand-in speaks plain HTTP; skip loading the system's CA store.
            builder = builder.tls_certs_only([]);
        }
        let http = builder
            .build()
            .map_err(|e| format!("cannot set up HTTP for Club Log: {}", cause(&e)))?;
        let api_key = api_key
            .map(|k| k.trim().to_owned())
            .filter(|k| !k.is_empty());
        Ok(ClubLog {
            http,
            base,
            api_key,
        })
    }

    /// Whether the operator gave the service Club Log's API key: without it nothing can be
    /// sent to Club Log.
    pub fn has_api_key(&self) -> bool {
        self.api_key.is_some()
    }

    /// One contact (one ADI record, as text) into the log. A contact the log has already is
    /// a success too: it is there, which is what was wanted.
    pub async fn upload(&self, account: &Account<'_>, adif: &str) -> Result<(), ClubLogError> {
        let (status, body) = self
            .form("realtime.php", account, &[("adif", adif)])
            .await?;
        // Club Log's documented answer for a contact it has is 200 "QSO Duplicate"; taken as
        // one from a 400 too, in case a duplicate is ever answered as a rejection.
        let duplicate = (status.is_success() || status == StatusCode::BAD_REQUEST)
            && body.to_ascii_lowercase().contains("qso duplicate");
        if duplicate {
            return Ok(());
        }
        refusal(status, &body)
    }

    /// Deletes the log's copy that `key` finds. A copy Club Log does not have (404), or one on
    /// a band it has no number for, is as good as deleted.
    pub async fn delete(&self, account: &Account<'_>, key: &CopyKey) -> Result<(), ClubLogError> {
        let Some(band) = band_id(&key.band) else {
            return Ok(());
        };
        let fields = [
            ("dxcall", key.call.as_str()),
            ("datetime", key.datetime.as_str()),
            ("bandid", band),
        ];
        let (status, body) = self.form("delete.php", account, &fields).await?;
        if status == StatusCode::NOT_FOUND {
            return Ok(());
        }
        refusal(status, &body)
    }

    /// An ADI file of many contacts, merged into the log (`clear` = 0): Club Log queues it
    /// and reads it within minutes. Club Log's answer on success, for the user.
    pub async fn upload_file(
        &self,
        account: &Account<'_>,
        adif_file: &str,
    ) -> Result<String, ClubLogError> {
        let (status, body) = self
            .post("putlogs.php", account, &[("clear", "0")], Some(adif_file))
            .await?;
        refusal(status, &body)?;
        Ok(body)
    }

    /// Form-encoded: the account's fields, `fields` and the API key posted to `path`.
    async fn form(
        &self,
        path: &str,
        account: &Account<'_>,
        fields: &[(&str, &str)],
    ) -> Result<(StatusCode, String), ClubLogError> {
        self.post(path, account, fields, None).await
    }

    /// Posts the account's fields, `fields` and the API key to `path`: form-encoded, or as
    /// multipart with `file` when there is one. The status and the body, trimmed, shortened
    /// and with the secrets taken out.
    async fn post(
        &self,
        path: &str,
        account: &Account<'_>,
        fields: &[(&str, &str)],
        file: Option<&str>,
    ) -> Result<(StatusCode, String), ClubLogError> {
        let api_key = self.api_key.as_deref().ok_or_else(|| {
            ClubLogError::Unavailable(
                "the service has no Club Log API key: its operator starts it with --clublog-api-key"
                    .into(),
            )
        })?;
        let url = self
            .base
            .join(path)
            .map_err(|e| ClubLogError::Unavailable(format!("the Club Log address: {e}")))?;
        let mut all = vec![
            ("email", account.email),
            ("password", account.password),
            ("callsign", account.callsign),
            ("api", api_key),
        ];
        all.extend_from_slice(fields);
        let secrets = [account.password, api_key];
        let request = self.http.post(url);
        let request = match file {
            None => {
                // The serializer is not Send: it is gone before the first await.
                let body = {
                    let mut form = form_urlencoded::Serializer::new(String::new());
                    for (name, value) in &all {
                        form.append_pair(name, value);
                    }
                    form.finish()
                };
                request
                    .timeout(TOTAL_TIMEOUT)
                    .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
                    .body(body)
            }
            Some(file) => {
                let (content_type, body) = multipart(&all, "file", file);
                request
                    .timeout(FILE_TIMEOUT)
                    .header(CONTENT_TYPE, content_type)
                    .body(body)
            }
        };
        let response = request
            .send()
            .await
            .map_err(|e| ClubLogError::Unavailable(redact(&cause(&e), &secrets)))?;
        let status = response.status();
        let body = response
            .text()
            .await
            .map_err(|e| ClubLogError::Unavailable(redact(&cause(&e), &secrets)))?;
        Ok((status, redact(&preview(body.trim()), &secrets)))
    }
}

/// A `multipart/form-data` body of `fields` and the ADI file as the field `file_field`, and its
/// content type. The boundary is random, so no text of the file can end a part early.
pub(super) fn multipart(fields: &[(&str, &str)], file_field: &str, file: &str) -> (String, String) {
    let boundary: String = svc_model::ids::random_bytes::<16>()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let boundary = format!("svc-{boundary}");
    let mut body = String::with_capacity(file.len() + 1024);
    for (name, value) in fields {
        body.push_str(&format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
        ));
    }
    // Club Log and eQSL read the file's type from its name: an .adi.
    body.push_str(&format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"{file_field}\"; filename=\"svc.adi\"\r\n\
         Content-Type: application/octet-stream\r\n\r\n{file}\r\n--{boundary}--\r\n"
    ));
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// `text` with each secret blotted out: Club Log (and eQSL) may quote what it was sent.
pub(super) fn redact(text: &str, secrets: &[&str]) -> String {
    secrets
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .fold(text.to_owned(), |text, secret| text.replace(secret, "***"))
}

pub(super) fn preview(text: &str) -> String {
    match text.char_indices().nth(PREVIEW) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// Club Log's answer as an error, unless it is a success.
fn refusal(status: StatusCode, body: &str) -> Result<(), ClubLogError> {
    let said = |fallback: &str| {
        if body.is_empty() {
            format!("HTTP {}: {fallback}", status.as_u16())
        } else {
            body.to_owned()
        }
    };
    if status.is_success() {
        Ok(())
    } else if status == StatusCode::FORBIDDEN || status == StatusCode::UNAUTHORIZED {
        Err(ClubLogError::Forbidden(said(
            "the email, application password or callsign was refused",
        )))
    } else if status.is_server_error()
        || status.is_redirection()
        || status == StatusCode::TOO_MANY_REQUESTS
        || status == StatusCode::REQUEST_TIMEOUT
    {
        Err(ClubLogError::Unavailable(format!(
            "HTTP {}{}",
            status.as_u16(),
            if body.is_empty() {
                String::new()
            } else {
                format!(": {body}")
            }
        )))
    } else {
        Err(ClubLogError::Rejected(said("rejected")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_get_club_logs_numbers_and_others_none() {
        assert_eq!(band_id("20m"), Some("20"));
        assert_eq!(band_id("40M"), Some("40"));
        assert_eq!(band_id("80m"), Some("80"));
        assert_eq!(band_id("70cm"), Some("70"));
        assert_eq!(band_id("23cm"), Some("23"));
        assert_eq!(band_id("630m"), None);
        assert_eq!(band_id("1.25m"), None);
    }

    #[test]
    fn a_copy_is_found_by_call_time_and_band() {
        let mut record = Record::default();
        record.set("CALL", "k1abc");
        record.set("QSO_DATE", "20261128");
        record.set("TIME_ON", "0705");
        record.set("BAND", "20M");
        let key = CopyKey::of(&record).unwrap();
        assert_eq!(key.datetime, "2026-11-28 07:05:00");
        assert_eq!(key.log_id(), "K1ABC|2026-11-28 07:05:00|20m");
        assert_eq!(CopyKey::parse(&key.log_id()), Some(key));
        // QRZ's log ids, or anything else, are not Club Log keys.
        assert_eq!(CopyKey::parse("1300000001"), None);
        record.set("TIME_ON", "7");
        assert_eq!(CopyKey::of(&record), None);
    }

    #[test]
    fn secrets_are_taken_out_of_what_club_log_says() {
        let said = redact("bad password hunter2 for key abc", &["hunter2", "abc", " "]);
        assert_eq!(said, "bad password *** for key ***");
    }

    #[test]
    fn statuses_sort_into_what_to_do() {
        assert_eq!(refusal(StatusCode::OK, "QSO OK"), Ok(()));
        assert!(matches!(
            refusal(StatusCode::FORBIDDEN, "Access denied"),
            Err(ClubLogError::Forbidden(t)) if t == "Access denied"
        ));
        assert!(matches!(
            refusal(StatusCode::BAD_REQUEST, "QSO Rejected: bad"),
            Err(ClubLogError::Rejected(t)) if t == "QSO Rejected: bad"
        ));
        assert!(matches!(
            refusal(StatusCode::INTERNAL_SERVER_ERROR, ""),
            Err(ClubLogError::Unavailable(t)) if t == "HTTP 500"
        ));
    }
}
