//! Outgoing HTTP, for every part of svc that asks another service on the user's behalf (the
//! `/v1/` client, POTA): one way to set up a reqwest client and one way to say what went wrong
//! on the wire. Below `client` and `pota` alike, so that neither needs the other for it.

use std::time::Duration;

use reqwest::Url;

/// A client for the service at `base`: svc's user agent, `connect` to open a connection,
/// `answer` for a whole request, and no redirects. The error is the message to show.
pub fn http_client(
    base: &Url,
    connect: Duration,
    answer: Duration,
) -> Result<reqwest::Client, String> {
    let mut builder = reqwest::Client::builder()
        .user_agent(concat!("svc/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(connect)
        .timeout(answer)
        // A redirect means the base address is wrong: report it rather than follow it.
        .redirect(reqwest::redirect::Policy::none());
    if base.scheme() == "http" {
        // Nothing here speaks TLS, so skip reading the system's CA store: it is most of
        // the start-up cost of a call.
        builder = builder.tls_certs_only([]);
    }
    builder
        .build()
        .map_err(|e| format!("cannot set up HTTP: {}", transport_message(&e)))
}

/// What went wrong on the wire, in words.
pub fn transport_message(e: &reqwest::Error) -> String {
    // reqwest's own Display says only "error sending request for url"; the cause that tells
    // what to fix (refused, DNS, certificate) is the innermost one.
    if e.is_timeout() {
        return "timed out".into();
    }
    let mut innermost: &dyn std::error::Error = e;
    while let Some(source) = innermost.source() {
        innermost = source;
    }
    innermost.to_string()
}
