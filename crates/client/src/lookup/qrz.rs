//! QRZ's XML data service, read as QRZ's XML interface spec describes it. A login
//! (`?username=…&password=…&agent=…`) answers
//! `<QRZDatabase><Session><Key>…</Key><SubExp>…</SubExp>…</Session></QRZDatabase>`; a lookup
//! (`?s=KEY&callsign=…`) answers `<Callsign>` with the record's fields beside `<Session>`.
//! Every error comes as `<Session><Error>…</Error></Session>`: `Not found: CALL`,
//! `Session Timeout` or `Invalid session key` (log in again), `Username/password incorrect`.
//! A login without an XML subscription works, and its lookups hold a partial record with
//! `<Session><Message>` saying so.

use super::xml::{self, Doc};
use super::{LookupError, Record, Reply, Session};

/// How svc names itself to QRZ, which asks every program to.
const AGENT: &str = concat!("svc-", env!("CARGO_PKG_VERSION"));

pub(super) fn login_query<'a>(user: &'a str, password: &'a str) -> Vec<(&'static str, &'a str)> {
    vec![("username", user), ("password", password), ("agent", AGENT)]
}

pub(super) fn lookup_query<'a>(key: &'a str, call: &'a str) -> Vec<(&'static str, &'a str)> {
    vec![("s", key), ("callsign", call)]
}

fn doc(text: &str) -> Result<Doc, LookupError> {
    let doc = xml::read(text)
        .map_err(|e| LookupError::Unavailable(format!("QRZ's answer cannot be read: {e}")))?;
    if doc.root != "qrzdatabase" {
        return Err(LookupError::Unavailable(format!(
            "the answer is not QRZ's XML (its root is <{}>); check --qrz-xml-url",
            doc.root
        )));
    }
    Ok(doc)
}

/// What an answer's `<Error>` means; `None` for an answer without one.
fn error(doc: &Doc) -> Option<Result<Reply, LookupError>> {
    let text = doc.get("session", "error")?;
    let lower = text.to_lowercase();
    Some(
        if lower.contains("session timeout") || lower.contains("invalid session") {
            Ok(Reply::Expired)
        } else if lower.starts_with("not found") {
            Err(LookupError::NotFound(format!("QRZ has no record: {text}")))
        } else if lower.contains("password") || lower.contains("username") {
            Err(LookupError::Refused(format!(
                "QRZ refused the user name or password ({text})"
            )))
        } else {
            Err(LookupError::Service(format!("QRZ answered: {text}")))
        },
    )
}

pub(super) fn read_login(text: &str) -> Result<Session, LookupError> {
    let doc = doc(text)?;
    if let Some(key) = doc.get("session", "key") {
        let note = doc.get("session", "subexp").map(|expiry| {
            if expiry.eq_ignore_ascii_case("non-subscriber") {
                "this QRZ account has no XML subscription: lookups give partial records (name, city and country)".to_owned()
            } else {
                format!("QRZ XML subscription until {expiry}")
            }
        });
        return Ok(Session {
            key: key.to_owned(),
            note,
        });
    }
    match error(&doc) {
        Some(Err(e)) => Err(e),
        Some(Ok(_)) => Err(LookupError::Service(
            "QRZ answered the login with a session error".into(),
        )),
        None => Err(LookupError::Unavailable(
            "QRZ's answer to the login holds neither a session key nor an error".into(),
        )),
    }
}

pub(super) fn read_lookup(text: &str) -> Result<Reply, LookupError> {
    let doc = doc(text)?;
    if doc.get("callsign", "call").is_some() {
        let field = |name: &str| doc.get("callsign", name);
        let name = [field("fname"), field("name")]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        return Ok(Reply::Found(Box::new(Record {
            name: Some(name),
            qth: field("addr2").map(str::to_owned),
            state: field("state").map(str::to_owned),
            // `land` is the DXCC entity the station is in; `country` is its mailing
            // address's, which can be another.
            country: field("land").or(field("country")).map(str::to_owned),
            grid: field("grid").map(str::to_owned),
            dxcc: field("dxcc").map(str::to_owned),
            cq_zone: field("cqzone").map(str::to_owned),
            itu_zone: field("ituzone").map(str::to_owned),
            // QRZ's record names no continent.
            continent: None,
            note: doc
                .get("session", "message")
                .map(|m| format!("QRZ says: {m}")),
        })));
    }
    error(&doc).unwrap_or_else(|| {
        Err(LookupError::Unavailable(
            "QRZ's answer holds neither a record nor an error".into(),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const W1AW: &str = r#"<?xml version="1.0" encoding="utf-8" ?>
<QRZDatabase version="1.34" xmlns="http://xmldata.qrz.com">
<Callsign>
<call>W1AW</call>
<fname>Hiram Percy</fname>
<name>Maxim</name>
<addr1>225 Main St</addr1>
<addr2>Newington</addr2>
<state>CT</state>
<country>Canada</country>
<land>United States</land>
<grid>FN31pr</grid>
<dxcc>291</dxcc>
<cqzone>5</cqzone>
<ituzone>8</ituzone>
</Callsign>
<Session>
<Key>2331uf894c4bd29f3923f3bacf02c532d7bd9</Key>
<Count>123</Count>
<SubExp>Wed Jan 13 13:59:00 2027</SubExp>
<GMTime>Mon Oct 12 22:33:56 2026</GMTime>
</Session>
</QRZDatabase>"#;

    fn session(inner: &str) -> String {
        format!(
            r#"<?xml version="1.0" ?><QRZDatabase version="1.34" xmlns="http://xmldata.qrz.com"><Session>{inner}<GMTime>Mon Oct 12 22:33:56 2026</GMTime></Session></QRZDatabase>"#
        )
    }

    #[test]
    fn a_login_gives_the_key_and_what_the_subscription_is() {
        let s = read_login(&session(
            "<Key>abc123</Key><Count>5</Count><SubExp>Wed Jan 13 13:59:00 2027</SubExp>",
        ))
        .unwrap();
        assert_eq!(s.key, "abc123");
        assert_eq!(
            s.note.as_deref(),
            Some("QRZ XML subscription until Wed Jan 13 13:59:00 2027")
        );
        let s = read_login(&session("<Key>k</Key><SubExp>non-subscriber</SubExp>")).unwrap();
        assert!(s.note.unwrap().contains("no XML subscription"));
        let e = read_login(&session("<Error>Username/password incorrect</Error>")).unwrap_err();
        assert!(matches!(e, LookupError::Refused(_)), "{e:?}");
        assert!(e.to_string().contains("Username/password incorrect"));
        let e = read_login(&session("<Error>Account suspended</Error>")).unwrap_err();
        assert!(matches!(e, LookupError::Service(_)), "{e:?}");
        let e = read_login(&session("<Count>5</Count>")).unwrap_err();
        assert!(matches!(e, LookupError::Unavailable(_)), "{e:?}");
    }

    #[test]
    fn a_record_keeps_every_field_the_lookup_needs() {
        let Reply::Found(r) = read_lookup(W1AW).unwrap() else {
            panic!("a record")
        };
        assert_eq!(r.name.as_deref(), Some("Hiram Percy Maxim"));
        assert_eq!(r.qth.as_deref(), Some("Newington"));
        assert_eq!(r.state.as_deref(), Some("CT"));
        assert_eq!(r.country.as_deref(), Some("United States"), "land wins");
        assert_eq!(r.grid.as_deref(), Some("FN31pr"));
        assert_eq!(r.dxcc.as_deref(), Some("291"));
        assert_eq!(r.cq_zone.as_deref(), Some("5"));
        assert_eq!(r.itu_zone.as_deref(), Some("8"));
        assert_eq!(r.continent, None);
        assert_eq!(r.note, None);
    }

    #[test]
    fn a_partial_record_carries_qrzs_message() {
        let text = r#"<QRZDatabase version="1.34"><Callsign><call>W1AW</call><fname>Hiram</fname><addr2>Newington</addr2><country>United States</country></Callsign><Session><Key>k</Key><SubExp>non-subscriber</SubExp><Message>A subscription is required to access the complete record.</Message></Session></QRZDatabase>"#;
        let Reply::Found(r) = read_lookup(text).unwrap() else {
            panic!("a record")
        };
        assert_eq!(r.name.as_deref(), Some("Hiram"));
        assert_eq!(r.country.as_deref(), Some("United States"));
        assert_eq!(r.grid, None);
        assert!(r.note.unwrap().contains("A subscription is required"));
    }

    #[test]
    fn errors_say_what_to_do() {
        assert!(matches!(
            read_lookup(&session("<Error>Not found: W1XYZ</Error>")),
            Err(LookupError::NotFound(_))
        ));
        for expired in ["Session Timeout", "Invalid session key"] {
            assert!(matches!(
                read_lookup(&session(&format!("<Error>{expired}</Error>"))),
                Ok(Reply::Expired)
            ));
        }
        assert!(matches!(
            read_lookup(&session("<Error>Username/password incorrect</Error>")),
            Err(LookupError::Refused(_))
        ));
        for bad in [
            "<html><body>Bad gateway</body></html>",
            "<QRZDatabase><Callsign><call>W1AW",
            "<HamQTH><search><callsign>w1aw</callsign></search></HamQTH>",
            &session("<Key>k</Key>"),
        ] {
            let e = read_lookup(bad).map(|_| ()).unwrap_err();
            assert!(matches!(e, LookupError::Unavailable(_)), "{bad}: {e:?}");
        }
    }
}
