//! eQSL.cc's upload, client side (eQSL's "Real-time logging software interface", the
//! document `qslcard/ImportADIF.txt`): one multipart form POST per contact to
//! `qslcard/ImportADIF.cfm`, with the form fields `EQSL_USER` and `EQSL_PSWD` and the ADIF file
//! (a header and one record) as `Filename`.
//!
//! eQSL answers HTTP 200 with an HTML page meant to be read by programs, whatever became of
//! the record; its words decide:
//! - `Result: 1 out of 1 records added`: done.
//! - `Bad record: Duplicate` (with `Result: 0 out of 1 records added`): eQSL had the contact
//!   already, which is what was wanted too.
//! - `Error: No match on eQSL_User/eQSL_Pswd`: the user name or password was refused. Nothing
//!   more is sent to the book until the user gives the password again.
//! - any other `Error:` or `Warning:`, or no record added: the contact was rejected, for the
//!   reason eQSL gives; sending it again will not help.
//! - a server error, no answer, or a page without any of these words (eQSL's maintenance page):
//!   tried again later.
//!
//! eQSL has no call that deletes or replaces an uploaded contact: the caller sends each contact
//! once, and a contact deleted or edited here stays there as it was sent.
//!
//! The Inbox, the cards others sent the account, is read as eQSL's "Inbox downloading
//! procedure" (`qslcard/DownloadInBox.txt`) describes: a GET of `qslcard/DownloadInBox.cfm`
//! with `UserName`, `Password` and `RcvdSince` (`YYYYMMDDHHMM`: cards received on or after it)
//! answers a page that links the ADIF file it built under `downloadedfiles/` ("Your ADIF log
//! file has been built"), which is then fetched; or says `You have no log entries`; or an
//! `Error:` (`Error: No such Username/Password found` for a refused login).
//!
//! The password is passed with each call, never stored here in the clear, and taken out of
//! every error in case eQSL quotes it.

use std::fmt;
use std::time::Duration;

use reqwest::header::CONTENT_TYPE;
use reqwest::{StatusCode, Url};

use super::clublog::{multipart, preview, redact};
use super::qrz::cause;

/// Where eQSL serves its pages.
pub const DEFAULT_URL: &str = "https://www.eqsl.cc";
/// The upload page, under the address.
const IMPORT: &str = "qslcard/ImportADIF.cfm";
/// The Inbox's page, under the address.
const INBOX: &str = "qslcard/DownloadInBox.cfm";

/// How long to wait for a connection to eQSL.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one contact's upload may take in all.
const TOTAL_TIMEOUT: Duration = Duration::from_secs(30);

/// An eQSL client at one address. Cheap to clone: clones share connections.
#[derive(Clone)]
pub struct Eqsl {
    http: reqwest::Client,
    base: Url,
}

impl fmt::Debug for Eqsl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Eqsl")
            .field("base", &self.base.as_str())
            .finish_non_exhaustive()
    }
}

/// Why an upload did not succeed, by what the caller should do about it. Each text is eQSL's
/// own words (shortened, without the page's markup), which are meant for the user.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EqslError {
    /// The user name or password was refused. Send nothing more to the book.
    #[error("eQSL refused the login: {0}")]
    Refused(String),
    /// This contact will not be taken; sending it again won't help.
    #[error("eQSL rejected it: {0}")]
    Rejected(String),
    /// No answer, a server error, or a page that says nothing of the record: try again later.
    #[error("eQSL is unavailable: {0}")]
    Unavailable(String),
}

impl Eqsl {
    pub fn new(base: Url) -> Result<Eqsl, String> {
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!("svc/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(TOTAL_TIMEOUT)
            // A redirect means the address is wrong: report it rather than post the password
            // elsewhere.
            .redirect(reqwest::redirect::Policy::none());
        if base.scheme() == "http" {
            // Only a test's stand-in speaks plain HTTP; skip loading the system's CA store.
            builder = builder.tls_certs_only([]);
        }
        let http = builder
            .build()
            .map_err(|e| format!("cannot set up HTTP for eQSL: {}", cause(&e)))?;
        Ok(Eqsl { http, base })
    }

    /// One contact (an ADI file of one record) into the account `user` names. A contact eQSL
    /// has already is a success too: it is there, which is what was wanted.
    pub async fn upload(
        &self,
        user: &str,
        password: &str,
        adif_file: &str,
    ) -> Result<(), EqslError> {
        let secrets = [password];
        let url = self
            .base
            .join(IMPORT)
            .map_err(|e| EqslError::Unavailable(format!("the eQSL address: {e}")))?;
        let (content_type, body) = multipart(
            &[("EQSL_USER", user), ("EQSL_PSWD", password)],
            "Filename",
            adif_file,
        );
        let response = self
            .http
            .post(url)
            .header(CONTENT_TYPE, content_type)
            .body(body)
            .send()
            .await
            .map_err(|e| EqslError::Unavailable(redact(&cause(&e), &secrets)))?;
        let status = response.status();
        let page = response
            .text()
            .await
            .map_err(|e| EqslError::Unavailable(redact(&cause(&e), &secrets)))?;
        verdict(status, &redact(&text_of(&page), &secrets))
    }

    /// The cards of the account `user` received on or after `since` (`YYYYMMDDHHMM`; the whole
    /// Inbox without it), as eQSL's ADIF records.
    pub async fn inbox(
        &self,
        user: &str,
        password: &str,
        since: Option<&str>,
    ) -> Result<Vec<svc_adif::Record>, EqslError> {
        let secrets = [password];
        let mut url = self
            .base
            .join(INBOX)
            .map_err(|e| EqslError::Unavailable(format!("the eQSL address: {e}")))?;
        {
            let mut query = url.query_pairs_mut();
            query.append_pair("UserName", user);
            query.append_pair("Password", password);
            if let Some(since) = since {
                query.append_pair("RcvdSince", since);
            }
        }
        let page = self.get_text(url.clone(), &secrets).await?;
        let text = redact(&text_of(&page), &secrets);
        if text
            .to_ascii_lowercase()
            .contains("you have no log entries")
        {
            return Ok(Vec::new());
        }
        if let Some(error) = line_from(&text, "Error:") {
            // eQSL's words for a login it does not know; another error (a parameter it
            // refuses) is no reason to stop using the login.
            let lower = error.to_ascii_lowercase();
            let login = lower.contains("username/password") || lower.contains("no such callsign");
            return Err(if login {
                EqslError::Refused(error)
            } else {
                EqslError::Rejected(error)
            });
        }
        // The file is eQSL's, under its own address: a link elsewhere is not followed.
        let file = adi_link(&page)
            .and_then(|href| url.join(&href).ok())
            .filter(|file| file.origin() == self.base.origin())
            .ok_or_else(|| {
                EqslError::Unavailable(format!(
                    "eQSL answered a page without its Inbox file: {}",
                    preview(&text)
                ))
            })?;
        let adif = self.get_text(file, &secrets).await?;
        let reader = svc_adif::Reader::new(adif.as_bytes())
            .map_err(|e| EqslError::Unavailable(format!("eQSL's Inbox file: {e}")))?;
        // A record the reader cannot make out is one card fewer, not the Inbox lost.
        Ok(reader.filter_map(Result::ok).collect())
    }

    /// A GET's body; a status other than success is eQSL being unavailable. The address holds
    /// the password (eQSL takes it in the query), so no error names it.
    async fn get_text(&self, url: Url, secrets: &[&str]) -> Result<String, EqslError> {
        let failed =
            |e: reqwest::Error| EqslError::Unavailable(redact(&cause(&e.without_url()), secrets));
        let response = self.http.get(url).send().await.map_err(failed)?;
        let status = response.status();
        let body = response.text().await.map_err(failed)?;
        if status.is_success() {
            Ok(body)
        } else {
            Err(EqslError::Unavailable(format!("HTTP {}", status.as_u16())))
        }
    }
}

/// The first link of a page to an `.adi` file, as written in it (eQSL writes it relative to
/// the page).
fn adi_link(page: &str) -> Option<String> {
    let lower = page.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find("href=") {
        let start = from + at + "href=".len();
        let rest = &page[start..];
        let (quote, rest) = match rest.chars().next()? {
            q @ ('"' | '\'') => (Some(q), &rest[1..]),
            _ => (None, rest),
        };
        let end = rest
            .find(|c: char| {
                Some(c) == quote || (quote.is_none() && (c.is_whitespace() || c == '>'))
            })
            .unwrap_or(rest.len());
        let href = &rest[..end];
        if href.to_ascii_lowercase().ends_with(".adi") {
            return Some(href.to_owned());
        }
        from = start;
    }
    None
}

/// An HTML page's text: its tags taken out and its white space run together, so that eQSL's
/// words read as one line.
fn text_of(page: &str) -> String {
    let mut text = String::with_capacity(page.len());
    let mut in_tag = false;
    for c in page.chars() {
        match c {
            '<' => {
                in_tag = true;
                text.push(' ');
            }
            '>' if in_tag => in_tag = false,
            _ if in_tag => {}
            _ => text.push(c),
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The words from `marker` (found case-insensitively) on, up to the next of eQSL's markers:
/// one of its lines.
fn line_from(text: &str, marker: &str) -> Option<String> {
    // ASCII lowering keeps every byte offset, so an offset in `lower` is one in `text`.
    let lower = text.to_ascii_lowercase();
    let at = lower.find(&marker.to_ascii_lowercase())?;
    let rest = &lower[at + marker.len()..];
    let end = ["result:", "error:", "warning:", "caution:"]
        .iter()
        .filter_map(|m| rest.find(m))
        .min()
        .map_or(text.len(), |e| at + marker.len() + e);
    Some(preview(text[at..end].trim()))
}

/// How many records `Result: N out of M records added` says were added.
fn added(text: &str) -> Option<u64> {
    let line = line_from(text, "Result:")?;
    line["Result:".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// eQSL's answer as an error, unless it is a success.
fn verdict(status: StatusCode, text: &str) -> Result<(), EqslError> {
    if !status.is_success() {
        let said = if text.is_empty() {
            String::new()
        } else {
            format!(": {}", preview(text))
        };
        return Err(EqslError::Unavailable(format!(
            "HTTP {}{said}",
            status.as_u16()
        )));
    }
    let lower = text.to_ascii_lowercase();
    if lower.contains("no match on eqsl_user/eqsl_pswd") {
        return Err(EqslError::Refused(
            line_from(text, "Error:").unwrap_or_else(|| preview(text)),
        ));
    }
    if added(text).is_some_and(|n| n >= 1) || lower.contains("bad record: duplicate") {
        return Ok(());
    }
    let reason = line_from(text, "Error:")
        .or_else(|| line_from(text, "Warning:"))
        .or_else(|| line_from(text, "Result:"));
    match reason {
        Some(reason) => Err(EqslError::Rejected(reason)),
        None => Err(EqslError::Unavailable(format!(
            "eQSL answered a page that says nothing of the record: {}",
            preview(text)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: StatusCode = StatusCode::OK;

    #[test]
    fn eqsls_pages_sort_into_what_to_do() {
        let page = "<HTML><BODY>\r\nResult: 1 out of 1 records added<BR>\r\n</BODY></HTML>";
        assert_eq!(verdict(OK, &text_of(page)), Ok(()));
        let duplicate = "<HTML><BODY>Warning: Y=2013 M=08 D=11 F6ARS 15M JT65 Bad record: \
             Duplicate<BR>Result: 0 out of 1 records added<BR></BODY></HTML>";
        assert_eq!(verdict(OK, &text_of(duplicate)), Ok(()));
        let refused = "<HTML><BODY>Error: No match on eQSL_User/eQSL_Pswd<BR></BODY></HTML>";
        assert_eq!(
            verdict(OK, &text_of(refused)),
            Err(EqslError::Refused(
                "Error: No match on eQSL_User/eQSL_Pswd".into()
            ))
        );
        let bad = "<HTML>Warning: Y=2026 M=11 D=28 K1ABC 20M XYZ Bad record: Invalid mode<BR>\
             Result: 0 out of 1 records added</HTML>";
        assert_eq!(
            verdict(OK, &text_of(bad)),
            Err(EqslError::Rejected(
                "Warning: Y=2026 M=11 D=28 K1ABC 20M XYZ Bad record: Invalid mode".into()
            ))
        );
        assert_eq!(
            verdict(OK, &text_of("Result: 0 out of 0 records added")),
            Err(EqslError::Rejected(
                "Result: 0 out of 0 records added".into()
            ))
        );
        assert!(matches!(
            verdict(StatusCode::SERVICE_UNAVAILABLE, ""),
            Err(EqslError::Unavailable(t)) if t == "HTTP 503"
        ));
        assert!(matches!(
            verdict(OK, "Down for maintenance"),
            Err(EqslError::Unavailable(_))
        ));
    }

    #[test]
    fn the_inbox_file_is_found_by_its_link() {
        let page = "<HTML><BODY><H3>Your ADIF log file has been built</H3>\r\n\
             <A HREF=\"../downloadedfiles/a1b2c3.adi\">.ADI file</A><BR>\r\n\
             <A HREF=\"../downloadedfiles/a1b2c3.txt\">.TXT file</A></BODY></HTML>";
        assert_eq!(
            adi_link(page).as_deref(),
            Some("../downloadedfiles/a1b2c3.adi")
        );
        assert_eq!(adi_link("<a href=x.adi>f</a>").as_deref(), Some("x.adi"));
        assert_eq!(adi_link("<H3>You have no log entries</H3>"), None);
        assert_eq!(adi_link("<a href=\"x.txt\">f</a><a href="), None);
    }

    #[test]
    fn a_page_is_read_as_its_words() {
        assert_eq!(
            text_of("<html>\n<b>Result:</b>  2 out of\n2 records added<br></html>"),
            "Result: 2 out of 2 records added"
        );
        assert_eq!(added("Result: 2 out of 2 records added"), Some(2));
        assert_eq!(added("nothing"), None);
    }
}
