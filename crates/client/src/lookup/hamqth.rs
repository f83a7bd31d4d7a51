//! HamQTH's free XML service. A login (`?u=USER&p=PASS`) answers
//! `<HamQTH><session><session_id>…</session_id></session></HamQTH>`; a lookup
//! (`?id=SESSION&callsign=…&prg=svc`) answers `<HamQTH><search>…</search></HamQTH>` with the
//! record's fields. Errors come as `<session><error>…</error></session>`:
//! `Session does not exist or expired` (log in again), `Callsign not found`,
//! `Wrong user name or password`.

use super::xml::{self, Doc};
use super::{LookupError, Record, Reply, Session};

/// How svc names itself to HamQTH, which asks every program to.
const PROGRAM: &str = "svc";

pub(super) fn login_query<'a>(user: &'a str, password: &'a str) -> Vec<(&'static str, &'a str)> {
    vec![("u", user), ("p", password)]
}

pub(super) fn lookup_query<'a>(key: &'a str, call: &'a str) -> Vec<(&'static str, &'a str)> {
    vec![("id", key), ("callsign", call), ("prg", PROGRAM)]
}

fn doc(text: &str) -> Result<Doc, LookupError> {
    let doc = xml::read(text)
        .map_err(|e| LookupError::Unavailable(format!("HamQTH's answer cannot be read: {e}")))?;
    if doc.root != "hamqth" {
        return Err(LookupError::Unavailable(format!(
            "the answer is not HamQTH's XML (its root is <{}>); check --hamqth-url",
            doc.root
        )));
    }
    Ok(doc)
}

/// What an answer's `<error>` means; `None` for an answer without one.
fn error(doc: &Doc) -> Option<Result<Reply, LookupError>> {
    let text = doc.get("session", "error")?;
    let lower = text.to_lowercase();
    Some(if lower.contains("session") && lower.contains("expired") {
        Ok(Reply::Expired)
    } else if lower.contains("not found") {
        Err(LookupError::NotFound(format!(
            "HamQTH has no record: {text}"
        )))
    } else if lower.contains("password") || lower.contains("user name") {
        Err(LookupError::Refused(format!(
            "HamQTH refused the user name or password ({text})"
        )))
    } else {
        Err(LookupError::Service(format!("HamQTH answered: {text}")))
    })
}

pub(super) fn read_login(text: &str) -> Result<Session, LookupError> {
    let doc = doc(text)?;
    if let Some(key) = doc.get("session", "session_id") {
        return Ok(Session {
            key: key.to_owned(),
            note: None,
        });
    }
    match error(&doc) {
        Some(Err(e)) => Err(e),
        Some(Ok(_)) => Err(LookupError::Service(
            "HamQTH answered the login with a session error".into(),
        )),
        None => Err(LookupError::Unavailable(
            "HamQTH's answer to the login holds neither a session id nor an error".into(),
        )),
    }
}

pub(super) fn read_lookup(text: &str) -> Result<Reply, LookupError> {
    let doc = doc(text)?;
    if doc.get("search", "callsign").is_some() {
        let field = |name: &str| doc.get("search", name).map(str::to_owned);
        return Ok(Reply::Found(Box::new(Record {
            // The nickname is what the operator goes by on the air, as a logger's name field
            // wants it; the address name is the full one.
            name: field("nick").or_else(|| field("adr_name")),
            qth: field("qth").or_else(|| field("adr_city")),
            state: field("us_state"),
            country: field("country"),
            grid: field("grid"),
            dxcc: field("adif"),
            cq_zone: field("cq"),
            itu_zone: field("itu"),
            continent: field("continent"),
            note: None,
        })));
    }
    error(&doc).unwrap_or_else(|| {
        Err(LookupError::Unavailable(
            "HamQTH's answer holds neither a record nor an error".into(),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK1VBR: &str = r#"<?xml version="1.0"?>
<HamQTH version="2.8" xmlns="https://www.hamqth.com">
<search>
<callsign>ok1vbr</callsign>
<nick>Petr</nick>
<qth>Neratovice</qth>
<country>Czech Republic</country>
<adif>503</adif>
<itu>28</itu>
<cq>15</cq>
<grid>jo70gg</grid>
<adr_name>Petr Hlozek</adr_name>
<adr_city>Neratovice</adr_city>
<continent>EU</continent>
</search>
</HamQTH>"#;

    fn session(inner: &str) -> String {
        format!(
            r#"<?xml version="1.0"?><HamQTH version="2.8" xmlns="https://www.hamqth.com"><session>{inner}</session></HamQTH>"#
        )
    }

    #[test]
    fn a_login_gives_the_session_id() {
        let s = read_login(&session(
            "<session_id>09b0ae90050be03c452ad235a1f2915ad684393c</session_id>",
        ))
        .unwrap();
        assert_eq!(s.key, "09b0ae90050be03c452ad235a1f2915ad684393c");
        assert_eq!(s.note, None);
        let e = read_login(&session("<error>Wrong user name or password</error>")).unwrap_err();
        assert!(matches!(e, LookupError::Refused(_)), "{e:?}");
    }

    #[test]
    fn a_record_keeps_every_field_the_lookup_needs() {
        let Reply::Found(r) = read_lookup(OK1VBR).unwrap() else {
            panic!("a record")
        };
        assert_eq!(r.name.as_deref(), Some("Petr"));
        assert_eq!(r.qth.as_deref(), Some("Neratovice"));
        assert_eq!(r.state, None);
        assert_eq!(r.country.as_deref(), Some("Czech Republic"));
        assert_eq!(r.grid.as_deref(), Some("jo70gg"));
        assert_eq!(r.dxcc.as_deref(), Some("503"));
        assert_eq!(r.cq_zone.as_deref(), Some("15"));
        assert_eq!(r.itu_zone.as_deref(), Some("28"));
        assert_eq!(r.continent.as_deref(), Some("EU"));
        // No nickname: the name of the address.
        let text = OK1VBR.replace("<nick>Petr</nick>", "");
        let Reply::Found(r) = read_lookup(&text).unwrap() else {
            panic!("a record")
        };
        assert_eq!(r.name.as_deref(), Some("Petr Hlozek"));
    }

    #[test]
    fn errors_say_what_to_do() {
        assert!(matches!(
            read_lookup(&session("<error>Session does not exist or expired</error>")),
            Ok(Reply::Expired)
        ));
        assert!(matches!(
            read_lookup(&session("<error>Callsign not found</error>")),
            Err(LookupError::NotFound(_))
        ));
        assert!(matches!(
            read_lookup(&session("<error>Wrong user name or password</error>")),
            Err(LookupError::Refused(_))
        ));
        assert!(matches!(
            read_lookup(&session("<error>Too many requests</error>")),
            Err(LookupError::Service(_))
        ));
        for bad in [
            "<QRZDatabase><Session><Error>Not found: X</Error></Session></QRZDatabase>",
            "<HamQTH><search><callsign>ok1vbr",
            &session(""),
            "not xml at all",
        ] {
            let e = read_lookup(bad).map(|_| ()).unwrap_err();
            assert!(matches!(e, LookupError::Unavailable(_)), "{bad}: {e:?}");
        }
    }
}
