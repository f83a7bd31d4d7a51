//! The ADI and ADX writers.
//!
//! ADI output is plain ADIF 3.1.7 that the strictest consumers (LoTW's TQSL, POTA's upload
//! checker) accept: upper-case tags, one record per line so that a person can read and diff an
//! export, and values in ASCII, as ADIF's String type is. Loggers disagree on whether a length
//! counts bytes or characters, and only ASCII makes both counts the same, so non-ASCII text
//! is transliterated ("Jürgen" → "Jurgen"). Line breaks in a value are written as CRLF, as
//! ADIF's MultilineString wants.
//!
//! ADX output (see [`super::adx`]) keeps the exact text besides, in the `_INTL` fields ADIF
//! has for that.

use std::io::{self, Write};

use chrono::{DateTime, Utc};

use super::value::{ascii, check_names, intl_base};
use super::{Format, Record, adx, contact};
use svc_model::Contact;

/// Writes an ADI or ADX file: the header when created, then one record at a time, and for
/// ADX the closing tags on [`Writer::finish`].
pub struct Writer<W: Write> {
    out: W,
    format: Format,
}

impl<W: Write> Writer<W> {
    /// An ADI file. Writes the header: a first line naming svc (it must not begin with `<`,
    /// or readers would take the file for one without a header), then ADIF_VER, PROGRAMID,
    /// PROGRAMVERSION, CREATED_TIMESTAMP (UTC, from `created`) and `<EOH>`.
    pub fn new(out: W, created: DateTime<Utc>) -> io::Result<Self> {
        Self::with_format(out, created, Format::Adi)
    }

    /// An ADI or ADX file, its header written.
    pub fn with_format(out: W, created: DateTime<Utc>, format: Format) -> io::Result<Self> {
        Self::with_comment(out, created, format, "")
    }

    /// [`Writer::with_format`] with a line of the ADI header's text saying what the file is
    /// (`POTA US-0001 Acadia National Park`), for people who open it; in ASCII, its `<` and
    /// `>` as brackets and its line breaks as spaces, since readers take a `<` there for the
    /// header's first field. ADX has no such text: the comment is left out.
    pub fn with_comment(
        mut out: W,
        created: DateTime<Utc>,
        format: Format,
        comment: &str,
    ) -> io::Result<Self> {
        let header = header(created);
        match format {
            Format::Adi => {
                writeln!(out, "ADIF export from svc {}", env!("CARGO_PKG_VERSION"))?;
                // ASCII like the rest of the file: a park's name with accents reads the same
                // in every program.
                let plain: String = comment
                    .trim()
                    .chars()
                    .map(|c| if c.is_control() { ' ' } else { c })
                    .collect();
                let comment: String = deunicode::deunicode(&plain)
                    .chars()
                    .map(|c| match c {
                        '<' => '(',
                        '>' => ')',
                        c => c,
                    })
                    .collect();
                if !comment.is_empty() {
                    writeln!(out, "{comment}")?;
                }
                for (name, value) in &header {
                    field(&mut out, name, value)?;
                    writeln!(out)?;
                }
                writeln!(out, "<EOH>")?;
            }
            Format::Adx => adx::start(&mut out, &header)?,
        }
        Ok(Writer { out, format })
    }

    /// One record. ADI: each non-empty field as `<NAME:length>value`, separated by a space,
    /// then `<EOR>` and a newline. A record with no non-empty field is not written, since
    /// readers would see nothing in it. A field name that would break the tag syntax is
    /// refused with `InvalidInput` before anything of the record is written.
    pub fn record(&mut self, record: &Record) -> io::Result<()> {
        match self.format {
            Format::Adi => write_line(&mut self.out, record),
            Format::Adx => adx::record(&mut self.out, record),
        }
    }

    /// One contact's record, [`contact::record_for`]'s, written as [`Writer::record`] writes
    /// it; in ADI without making the record first.
    pub fn contact(&mut self, contact: &Contact, account_callsign: &str) -> io::Result<()> {
        match self.format {
            Format::Adi => {
                let fields = contact::fields_for(contact, account_callsign);
                let pairs: Vec<(&str, &str)> = fields.iter().map(|(n, v)| (*n, &**v)).collect();
                write_pairs(&mut self.out, &pairs)
            }
            Format::Adx => adx::record(
                &mut self.out,
                &contact::record_for(contact, account_callsign),
            ),
        }
    }

    /// Ends the file, flushes and hands the output back.
    pub fn finish(mut self) -> io::Result<W> {
        if self.format == Format::Adx {
            adx::end(&mut self.out)?;
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

impl Writer<Vec<u8>> {
    /// What was written since the last take, for a caller that sends a file in pieces as it
    /// is made (a streamed download). The next piece starts with the room of this one, since
    /// pieces are alike: growing into it again copied each piece several times.
    pub fn take_written(&mut self) -> Vec<u8> {
        let room = self.out.capacity();
        std::mem::replace(&mut self.out, Vec::with_capacity(room))
    }
}

fn header(created: DateTime<Utc>) -> [(&'static str, String); 4] {
    [
        ("ADIF_VER", "3.1.7".to_owned()),
        ("PROGRAMID", "svc".to_owned()),
        ("PROGRAMVERSION", env!("CARGO_PKG_VERSION").to_owned()),
        (
            "CREATED_TIMESTAMP",
            created.format("%Y%m%d %H%M%S").to_string(),
        ),
    ]
}

/// One record as the ADI writer writes it, on its own: what an external logbook's API takes
/// for one contact. Empty when the record has no non-empty field.
pub fn record_text(record: &Record) -> io::Result<String> {
    let bytes = line(record)?;
    String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// A contact just logged (`id` its journal entry's), as one ADI record on its own, as the
/// service will store it: what `--broadcast-adif` sends GridTracker and the like, one a
/// datagram. `None` for a record the writer cannot write (none today): the contact is logged
/// all the same.
pub fn logged_record_text(
    contact: &svc_model::ContactInput,
    id: &str,
    account_callsign: &str,
) -> Option<String> {
    let contact = contact.pending(id, svc_model::Timestamp::now());
    record_text(&crate::contact::record_for(&contact, account_callsign)).ok()
}

/// The fields of a record as ADI carries them: no `_INTL` field, which ADI does not allow,
/// but its text transliterated into the plain field when the record has no plain one.
fn adi_fields<'a>(
    fields: &'a [(&'a str, &'a str)],
) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
    let has = |name: &str| fields.iter().any(|(n, _)| n.eq_ignore_ascii_case(name));
    fields
        .iter()
        .filter(|(_, value)| !value.is_empty())
        .filter_map(move |&(name, value)| match intl_base(name) {
            Some(base) if !has(base) => Some((base, value)),
            Some(_) => None,
            None => Some((name, value)),
        })
}

fn line(record: &Record) -> io::Result<Vec<u8>> {
    let mut line = Vec::new();
    write_line(&mut line, record)?;
    Ok(line)
}

fn write_line(out: &mut impl Write, record: &Record) -> io::Result<()> {
    let pairs: Vec<(&str, &str)> = record
        .fields
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    write_pairs(out, &pairs)
}

/// Writes a record's line to `out` field by field (an export writes 100,000 records, and
/// making each line and copying it was a good part of its time); nothing when a field name
/// is refused, since the names are checked first.
fn write_pairs(out: &mut impl Write, fields: &[(&str, &str)]) -> io::Result<()> {
    if adi_fields(fields).next().is_none() {
        return Ok(());
    }
    check_names(adi_fields(fields).map(|(name, _)| name))?;
    for (name, value) in adi_fields(fields) {
        field(out, name, &ascii(value))?;
        out.write_all(b" ")?;
    }
    out.write_all(b"<EOR>\n")
}

fn field(out: &mut impl Write, name: &str, value: &str) -> io::Result<()> {
    out.write_all(b"<")?;
    // Names are upper-case already but for a record made by hand: no copy for the others.
    if name.bytes().any(|b| b.is_ascii_lowercase()) {
        out.write_all(name.to_ascii_uppercase().as_bytes())?;
    } else {
        out.write_all(name.as_bytes())?;
    }
    // The length's digits by hand: `write!` goes through the formatting machinery, a few
    // per cent of an export for the 20-odd fields of each of its records.
    let (mut digits, mut at, mut n) = ([0u8; 20], 20, value.len());
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.write_all(b":")?;
    out.write_all(&digits[at..])?;
    out.write_all(b">")?;
    out.write_all(value.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reader;
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
    fn header_and_records_are_ascii_with_crlf_in_values() {
        let mut w = Writer::new(Vec::new(), created()).unwrap();
        w.record(&sample()).unwrap();
        let out = String::from_utf8(w.finish().unwrap()).unwrap();
        let version = env!("CARGO_PKG_VERSION");
        let expected = format!(
            "ADIF export from svc {version}\n\
             <ADIF_VER:5>3.1.7\n\
             <PROGRAMID:3>svc\n\
             <PROGRAMVERSION:{}>{version}\n\
             <CREATED_TIMESTAMP:15>20261101 090507\n\
             <EOH>\n\
             <CALL:6>DL1ABC <NAME:6>Jurgen <COMMENT:10>two\r\nlines <QTH:4>Koln <EOR>\n",
            version.len()
        );
        assert_eq!(out, expected);
    }

    #[test]
    fn a_comment_is_a_header_line_that_readers_pass_over() {
        let mut w = Writer::with_comment(
            Vec::new(),
            created(),
            Format::Adi,
            "POTA DE-0042 Nationalpark Königssee <EOH>\nx",
        )
        .unwrap();
        w.record(&sample()).unwrap();
        let out = String::from_utf8(w.finish().unwrap()).unwrap();
        let version = env!("CARGO_PKG_VERSION");
        assert!(
            out.starts_with(&format!(
                "ADIF export from svc {version}\nPOTA DE-0042 Nationalpark Konigssee (EOH) x\n<ADIF_VER:5>"
            )),
            "{out}"
        );
        let reader = crate::read::Reader::new(std::io::Cursor::new(out.as_bytes())).unwrap();
        assert_eq!(reader.header().get("PROGRAMID"), Some("svc"));
        let records: Vec<_> = reader.collect::<Result<_, _>>().unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].get("CALL"), Some("DL1ABC"));
    }

    #[test]
    fn non_ascii_is_transliterated_and_intl_fields_are_left_out() {
        let mut r = Record::default();
        r.push("CALL", "OZ1AB");
        r.push("NAME", "Søren Ø");
        r.push("NAME_INTL", "Søren Ø");
        r.push("QTH_INTL", "Århus");
        r.push("NOTES", "one\rtwo\r\nthree\n");
        assert_eq!(
            record_text(&r).unwrap(),
            "<CALL:5>OZ1AB <NAME:7>Soren O <QTH:5>Arhus <NOTES:17>one\r\ntwo\r\nthree\r\n <EOR>\n"
        );
        assert!(record_text(&r).unwrap().is_ascii());
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
        let mut ascii = Record::default();
        ascii.push("CALL", "DL1ABC");
        ascii.push("NAME", "Jurgen");
        ascii.push("COMMENT", "two\r\nlines");
        ascii.push("QTH", "Koln");
        assert_eq!(back, [ascii, second]);
    }

    #[test]
    fn names_that_break_tags_are_refused() {
        for format in [Format::Adi, Format::Adx] {
            let mut w = Writer::with_format(Vec::new(), created(), format).unwrap();
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
}
