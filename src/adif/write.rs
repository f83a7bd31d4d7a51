//! The ADI writer.
//!
//! Output is plain ADIF 3.1.5 that the strictest consumers (LoTW's TQSL, POTA's upload
//! checker) accept: upper-case tags, lengths in bytes, one record per line so that a person
//! can read and diff an export.

use std::io::{self, Write};

use chrono::{DateTime, Utc};

use super::Record;

/// Writes an ADI file: the header when created, then one line per record.
pub struct Writer<W: Write> {
    out: W,
}

impl<W: Write> Writer<W> {
    /// Writes the header: a first line naming svc (it must not begin with `<`, or readers
    /// would take the file for one without a header), then ADIF_VER, PROGRAMID,
    /// PROGRAMVERSION, CREATED_TIMESTAMP (UTC, from `created`) and `<EOH>`.
    pub fn new(mut out: W, created: DateTime<Utc>) -> io::Result<Self> {
        let version = env!("CARGO_PKG_VERSION");
        writeln!(out, "ADIF export from svc {version}")?;
        for (name, value) in [
            ("ADIF_VER", "3.1.5"),
            ("PROGRAMID", "svc"),
            ("PROGRAMVERSION", version),
            (
                "CREATED_TIMESTAMP",
                &created.format("%Y%m%d %H%M%S").to_string(),
            ),
        ] {
            field(&mut out, name, value)?;
            writeln!(out)?;
        }
        writeln!(out, "<EOH>")?;
        Ok(Writer { out })
    }

    /// One record: each non-empty field as `<NAME:bytes>value`, separated by a space, then
    /// `<EOR>` and a newline. A record with no non-empty field is not written, since readers
    /// would see nothing in it. A field name that would break the tag syntax is refused with
    /// `InvalidInput` before anything of the record is written.
    pub fn record(&mut self, record: &Record) -> io::Result<()> {
        self.out.write_all(&line(record)?)
    }

    /// Flushes and hands the output back.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// One record as the writer writes it, on its own: what an external logbook's API takes for
/// one contact. Empty when the record has no non-empty field.
pub fn record_text(record: &Record) -> io::Result<String> {
    let bytes = line(record)?;
    String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

fn line(record: &Record) -> io::Result<Vec<u8>> {
    let fields: Vec<_> = record
        .fields
        .iter()
        .filter(|(_, value)| !value.is_empty())
        .collect();
    if fields.is_empty() {
        return Ok(Vec::new());
    }
    if let Some((name, _)) = fields.iter().find(|(name, _)| !valid_name(name)) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{name:?} is not an ADIF field name: names are ASCII letters, digits and underscores"
            ),
        ));
    }
    let mut line = Vec::new();
    for (name, value) in fields {
        field(&mut line, name, value)?;
        line.push(b' ');
    }
    line.extend_from_slice(b"<EOR>\n");
    Ok(line)
}

fn field(out: &mut impl Write, name: &str, value: &str) -> io::Result<()> {
    write!(
        out,
        "<{}:{}>{value}",
        name.to_ascii_uppercase(),
        value.len()
    )
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adif::Reader;
    use chrono::TimeZone;

    fn created() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 1, 9, 5, 7).single().unwrap()
    }

    fn sample() -> Record {
        let mut r = Record::default();
        r.push("CALL", "DL1ABC");
        r.push("NAME", "Jürgen");
        r.push("COMMENT", "two\nlines");
        r.push("qth", "Köln");
        r
    }

    #[test]
    fn header_and_records_count_bytes() {
        let mut w = Writer::new(Vec::new(), created()).unwrap();
        w.record(&sample()).unwrap();
        let out = String::from_utf8(w.finish().unwrap()).unwrap();
        let version = env!("CARGO_PKG_VERSION");
        let expected = format!(
            "ADIF export from svc {version}\n\
             <ADIF_VER:5>3.1.5\n\
             <PROGRAMID:3>svc\n\
             <PROGRAMVERSION:{}>{version}\n\
             <CREATED_TIMESTAMP:15>20261101 090507\n\
             <EOH>\n\
             <CALL:6>DL1ABC <NAME:7>Jürgen <COMMENT:9>two\nlines <QTH:5>Köln <EOR>\n",
            version.len()
        );
        assert_eq!(out, expected);
    }

    #[test]
    fn round_trip() {
        let mut w = Writer::new(Vec::new(), created()).unwrap();
        let mut second = Record::default();
        second.push("CALL", "K1ABC");
        second.push("NOTES", "<EOR> in a value & <CALL:3> too");
        w.record(&sample()).unwrap();
        w.record(&Record::default()).unwrap();
        w.record(&second).unwrap();
        let bytes = w.finish().unwrap();
        let reader = Reader::new(bytes.as_slice()).unwrap();
        assert_eq!(reader.header().get("PROGRAMID"), Some("svc"));
        assert_eq!(
            reader.header().get("CREATED_TIMESTAMP"),
            Some("20261101 090507")
        );
        let back: Vec<Record> = reader.map(|r| r.unwrap()).collect();
        assert_eq!(back, [sample(), second]);
    }

    #[test]
    fn names_that_break_tags_are_refused() {
        let mut w = Writer::new(Vec::new(), created()).unwrap();
        for name in ["A:B", "A B", "A>", ""] {
            let record = Record {
                fields: vec![(name.into(), "x".into())],
                ..Record::default()
            };
            let e = w.record(&record).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        }
    }
}
