//! The ADX writer's parts: ADIF 3.1.7 as XML, for loggers that take it.
//!
//! Values are ASCII as in ADI, so that a reader of the plain fields sees the same as from an
//! ADI export; where ADIF has an `_INTL` field for the exact text (names, addresses,
//! comments) a non-ASCII value goes there as well, so nothing of it is lost.

use std::io::{self, Write};

use super::Record;
use super::value::{ascii, check_names, crlf, intl_base};

/// The fields that have an `_INTL` counterpart in ADIF 3.1.
const INTL: &[&str] = &[
    "ADDRESS",
    "COMMENT",
    "COUNTRY",
    "MY_ANTENNA",
    "MY_CITY",
    "MY_COUNTRY",
    "MY_NAME",
    "MY_POSTAL_CODE",
    "MY_RIG",
    "MY_SIG",
    "MY_SIG_INFO",
    "MY_STREET",
    "NAME",
    "NOTES",
    "QSLMSG",
    "QTH",
    "RIG",
    "SIG",
    "SIG_INFO",
];

pub(super) fn start(out: &mut impl Write, header: &[(&str, String)]) -> io::Result<()> {
    writeln!(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
    writeln!(out, "<ADX>")?;
    writeln!(out, "  <HEADER>")?;
    for (name, value) in header {
        writeln!(out, "    <{name}>{}</{name}>", text(value))?;
    }
    writeln!(out, "  </HEADER>")?;
    writeln!(out, "  <RECORDS>")
}

pub(super) fn end(out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "  </RECORDS>")?;
    writeln!(out, "</ADX>")
}

/// One `<RECORD>` on a line; nothing for a record without a non-empty field.
pub(super) fn record(out: &mut impl Write, record: &Record) -> io::Result<()> {
    let fields: Vec<_> = record
        .fields
        .iter()
        .filter(|(_, value)| !value.is_empty())
        .collect();
    if fields.is_empty() {
        return Ok(());
    }
    check_names(fields.iter().map(|(name, _)| name.as_str()))?;
    if let Some((name, _)) = fields
        .iter()
        .find(|(name, _)| !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{name:?} cannot be an ADX element: XML names begin with a letter"),
        ));
    }
    let has = |name: &str| fields.iter().any(|(n, _)| n.eq_ignore_ascii_case(name));
    let mut line = String::from("    <RECORD>");
    for (name, value) in &fields {
        let name = name.to_ascii_uppercase();
        if intl_base(&name).is_some() {
            // An exact text read from another ADX file goes out as it came.
            element(&mut line, &name, &crlf(value));
            continue;
        }
        let plain = ascii(value);
        match name
            .strip_prefix("APP_")
            .and_then(|rest| rest.split_once('_'))
        {
            Some((program, field)) if !program.is_empty() && !field.is_empty() => {
                line.push_str(&format!(
                    "<APP PROGRAMID=\"{}\" FIELDNAME=\"{}\" TYPE=\"S\">{}</APP>",
                    text(program),
                    text(field),
                    text(&plain)
                ));
            }
            _ => element(&mut line, &name, &plain),
        }
        let intl = format!("{name}_INTL");
        if !value.is_ascii() && INTL.contains(&name.as_str()) && !has(&intl) {
            element(&mut line, &intl, &crlf(value));
        }
    }
    line.push_str("</RECORD>\n");
    out.write_all(line.as_bytes())
}

fn element(line: &mut String, name: &str, value: &str) {
    line.push_str(&format!("<{name}>{}</{name}>", text(value)));
}

/// XML text: quick-xml's escaping, and CR as a reference so that XML's line-end
/// normalisation in the reader does not take it away.
fn text(value: &str) -> String {
    quick_xml::escape::escape(value).replace('\r', "&#13;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Format, Reader, Writer};
    use chrono::TimeZone;

    #[test]
    fn adx_keeps_the_exact_text_in_intl_fields_and_reads_back() {
        let created = chrono::Utc
            .with_ymd_and_hms(2026, 11, 1, 9, 5, 7)
            .single()
            .unwrap();
        let mut r = Record::default();
        r.push("CALL", "OZ1AB");
        r.push("NAME", "Søren Ø 🎉");
        r.push("QTH", "東京");
        r.push("NOTES", "a < b & \"c\"\nline 2");
        r.push("APP_N1MM_EXCHANGE1", "5NN");
        r.push("MY_GRIDSQUARE", "JO65");
        let mut read_adx = Record::default();
        read_adx.push("CALL", "K1ABC");
        read_adx.push("NAME", "Zoe");
        read_adx.push("NAME_INTL", "Zoë");
        let mut w = Writer::with_format(Vec::new(), created, Format::Adx).unwrap();
        w.record(&r).unwrap();
        w.record(&Record::default()).unwrap();
        w.record(&read_adx).unwrap();
        let bytes = w.finish().unwrap();
        let xml = String::from_utf8(bytes.clone()).unwrap();
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ADX>\n"));
        assert!(xml.contains("<ADIF_VER>3.1.7</ADIF_VER>"), "{xml}");
        assert!(
            xml.contains("<APP PROGRAMID=\"N1MM\" FIELDNAME=\"EXCHANGE1\" TYPE=\"S\">5NN</APP>")
        );
        assert!(
            xml.contains("<NAME>Soren O tada</NAME><NAME_INTL>Søren Ø 🎉</NAME_INTL>"),
            "{xml}"
        );
        assert_eq!(xml.matches("NAME_INTL>").count(), 4, "{xml}");

        let reader = Reader::new(bytes.as_slice()).unwrap();
        assert_eq!(reader.format(), Format::Adx);
        assert_eq!(reader.header().get("PROGRAMID"), Some("svc"));
        let back: Vec<Record> = reader.map(Result::unwrap).collect();
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].get("NAME_INTL"), Some("Søren Ø 🎉"));
        assert_eq!(back[0].get("QTH_INTL"), Some("東京"));
        assert_eq!(back[0].get("QTH"), Some("Dong Jing"));
        assert_eq!(back[0].get("NOTES"), Some("a < b & \"c\"\r\nline 2"));
        assert_eq!(back[0].get("APP_N1MM_EXCHANGE1"), Some("5NN"));
        assert_eq!(back[0].get("MY_GRIDSQUARE"), Some("JO65"));
        assert_eq!(back[1], read_adx);
    }
}
