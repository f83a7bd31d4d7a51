//! A streaming reader for ADI and ADX files.
//!
//! Logs are imported from files other programs wrote, some of them large (a contest station's
//! lifetime log runs to tens of megabytes) and some of them damaged, so the reader:
//!
//! - never holds more than one record in memory: input is read through `BufRead` in chunks, a
//!   value may be at most 1 MiB and a record at most 1000 fields;
//! - reports a damaged record as an error naming the record and what to fix, then resumes at
//!   the next `<EOR>` (ADX: `</RECORD>`) so that the good records after it still import;
//! - stops for good (the iterator returns `None` afterwards) only when the rest of the file
//!   cannot be read: an I/O error, or a file that ends inside a record. A file that is empty,
//!   binary or not ADIF at all is refused by [`Reader::new`] already.
//!
//! ADI is what ADIF 3.1 specifies, with the leniencies real files need: tags in any case,
//! CRLF or LF, a value that is not UTF-8 taken as ISO-8859-1 (older loggers write Latin-1),
//! a file whose tags are all HTML-escaped (`&lt;CALL:5&gt;`, as QRZ's logbook download
//! delivers it) decoded before parsing, and header fields written without header text.

use std::io::{self, BufRead, Read};

use super::Record;

/// The longest value read; anything longer is a damaged length count, not a real value.
const MAX_VALUE: usize = 1 << 20;
/// The most fields in one record; more means the `<EOR>`s are missing.
const MAX_FIELDS: usize = 1000;
/// How far the format is looked for before the file is called "not ADIF".
const SNIFF_LIMIT: usize = 64 * 1024;
/// The longest ADI tag (`<NAME:LENGTH:TYPE>`) or XML tag taken as a tag.
const MAX_TAG: usize = 4096;
/// How much of a stray text an error message quotes.
const PREVIEW: usize = 40;

/// The encoding of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Tagged text, `<CALL:5>K1ABC ... <EOR>`.
    Adi,
    /// XML, `<ADX><RECORDS><RECORD><CALL>K1ABC</CALL>...`.
    Adx,
}

/// An error that makes the rest of the file unreadable or one record unreadable.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadError {
    /// The 1-based number of the record being read when the error was found; 0 when the
    /// error concerns the header or the file as a whole.
    pub record: u64,
    /// The byte offset in the file where the problem is. For an HTML-escaped file it counts
    /// the bytes after the entities were decoded, since that is the text the tags are in.
    pub offset: u64,
    /// What is wrong and what to fix; it begins with "record N" when `record` is not 0.
    pub message: String,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.offset)
    }
}

impl std::error::Error for ReadError {}

/// Reads the records of an ADI or ADX file one at a time; see the module docs for what it
/// accepts and how it recovers from a damaged record.
pub struct Reader<R: BufRead> {
    input: Input<R>,
    format: Format,
    header: Record,
    /// The number of the record being read: records completed or given up on, plus one.
    number: u64,
    /// Whether any record or record error was returned, to tell "no records" apart.
    returned: bool,
    /// Items to return before reading on: the first record of a header-less ADI file (read
    /// ahead to find a header written without header text), "no records" found while
    /// reading the header, or an I/O error met while resynchronising.
    queued: Vec<Result<Record, ReadError>>,
    done: bool,
}

/// Why reading a record stopped.
enum Fail {
    /// This record is unreadable; `resync` says whether to skip to its end marker, which is
    /// not needed when the marker was already read.
    Record { error: ReadError, resync: bool },
    /// The rest of the file is unreadable.
    Fatal(ReadError),
}

impl From<IoFail> for Fail {
    fn from(e: IoFail) -> Fail {
        Fail::Fatal(e.0)
    }
}

/// An I/O error turned into a [`ReadError`] at the offset where it happened.
struct IoFail(ReadError);

impl<R: BufRead> Reader<R> {
    /// Sniffs the format from the first bytes (ADX when the first non-blank bytes are `<?xml`
    /// or `<ADX`; a UTF-8 byte order mark is skipped) and reads the header if any.
    ///
    /// Fails, with `record` 0, for a file that is empty, binary or holds no ADIF tag, and for
    /// a header that does not end with `<EOH>` (ADX: that is not well formed).
    pub fn new(input: R) -> Result<Self, ReadError> {
        let (input, format) = sniff(input)?;
        let mut reader = Reader {
            input,
            format,
            header: Record::default(),
            number: 1,
            returned: false,
            queued: Vec::new(),
            done: false,
        };
        match format {
            Format::Adi => reader.adi_start()?,
            Format::Adx => reader.adx_start()?,
        }
        Ok(reader)
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// The header fields (ADIF_VER, PROGRAMID, ...); empty when the file has no header.
    pub fn header(&self) -> &Record {
        &self.header
    }

    fn io(&self, e: io::Error) -> IoFail {
        IoFail(ReadError {
            record: self.number,
            offset: self.input.offset,
            message: format!("record {}: the file could not be read: {e}", self.number),
        })
    }

    /// An I/O error before the first record, which concerns the whole file.
    fn header_io(&self, e: io::Error) -> ReadError {
        ReadError {
            record: 0,
            offset: self.input.offset,
            message: format!("the file could not be read: {e}"),
        }
    }

    fn record_error(&self, offset: u64, detail: impl std::fmt::Display) -> ReadError {
        ReadError {
            record: self.number,
            offset,
            message: format!("record {}: {detail}", self.number),
        }
    }

    fn bad(&self, offset: u64, detail: impl std::fmt::Display) -> Fail {
        Fail::Record {
            error: self.record_error(offset, detail),
            resync: true,
        }
    }

    fn no_records(&self) -> ReadError {
        ReadError {
            record: 0,
            offset: self.input.offset,
            message: match self.format {
                Format::Adi => "no records: the file ends before any record; ADIF records are fields ending with <EOR>".into(),
                Format::Adx => "no records: the file has no <RECORD> inside <RECORDS>".into(),
            },
        }
    }

    // ---- ADI ----

    fn adi_start(&mut self) -> Result<(), ReadError> {
        let first = self.input.skip_blank().map_err(|e| self.header_io(e))?;
        if first == Some(b'<') {
            // No header text, but some programs still write header fields and <EOH> here:
            // read the first record now so that those fields are the header before
            // `header()` can be asked for.
            if let Some(first) = self.next_item(true) {
                self.queued.insert(0, first);
            }
            Ok(())
        } else {
            self.adi_header()
        }
    }

    /// Collects the fields of the header; its free text is skipped.
    fn adi_header(&mut self) -> Result<(), ReadError> {
        let whole = |offset: u64, message: String| ReadError {
            record: 0,
            offset,
            message,
        };
        let no_eoh = "the header (the text before the first record) has no <EOH>; add <EOH> after the header's last field";
        loop {
            let found = self.input.skip_until(b'<').map_err(|e| self.header_io(e))?;
            if !found {
                return Err(whole(self.input.offset, no_eoh.into()));
            }
            let at = self.input.offset;
            match self.input.adi_tag().map_err(|e| self.header_io(e))? {
                None => return Err(whole(at, no_eoh.into())),
                Some(Tag::Eoh) => return Ok(()),
                Some(Tag::Eor) => {
                    return Err(whole(
                        at,
                        format!("header: <EOR> comes before <EOH>; {no_eoh}"),
                    ));
                }
                Some(Tag::Field { name, len }) => {
                    if len > MAX_VALUE as u64 {
                        return Err(whole(
                            at,
                            format!(
                                "header: field {name} claims {len} bytes; values are at most 1 MiB, so its length count is wrong"
                            ),
                        ));
                    }
                    let mut value = Vec::new();
                    let got = self
                        .input
                        .read_n(len as usize, &mut value)
                        .map_err(|e| self.header_io(e))?;
                    if got < len as usize {
                        return Err(whole(
                            self.input.offset,
                            format!(
                                "header: field {name} has length {len} but the file ends {got} bytes into its value"
                            ),
                        ));
                    }
                    if self.header.fields.len() >= MAX_FIELDS {
                        return Err(whole(
                            at,
                            format!("header: more than {MAX_FIELDS} fields; {no_eoh}"),
                        ));
                    }
                    self.header.push(&name, text(value));
                }
                // Header text is free-form: a stray `<` or `<b>` in it is not an error.
                Some(Tag::NoLength(_) | Tag::Bad(_)) => {}
            }
        }
    }

    /// Reads one ADI record. `Ok(None)` is the end of the file between records.
    /// `allow_eoh` lets an `<EOH>` turn the fields read so far into the header.
    fn adi_record(&mut self, allow_eoh: bool) -> Result<Option<Record>, Fail> {
        let mut record = Record::default();
        let mut fields = 0usize;
        // The last field read, for naming the field whose length count is probably wrong.
        let mut last: Option<(String, u64, String)> = None;
        loop {
            let next = self.input.skip_blank().map_err(|e| self.io(e))?;
            let at = self.input.offset;
            match next {
                None if fields == 0 => return Ok(None),
                None => {
                    return Err(Fail::Fatal(ReadError {
                        record: self.number,
                        offset: at,
                        message: match last {
                            Some((name, _, _)) => format!(
                                "record {} is truncated: it has no <EOR>; the file ends after its field {name}",
                                self.number
                            ),
                            None => format!("record {} is truncated: it has no <EOR>", self.number),
                        },
                    }));
                }
                Some(b'<') => {}
                Some(_) => {
                    let mut stray = Vec::new();
                    self.input
                        .read_until(|b| b == b'<', PREVIEW, &mut stray)
                        .map_err(|e| self.io(e))?;
                    let stray = preview(&text(stray));
                    return Err(self.bad(
                        at,
                        match &last {
                            Some((name, len, value)) if value.contains('<') => format!(
                                "text {stray:?} follows the value of {name} ({:?}), which runs into the next tag: its length {len} is probably too long; the count must be the value's length in bytes",
                                preview(value)
                            ),
                            Some((name, len, value)) => format!(
                                "text {stray:?} follows the value of {name} ({:?}): its length {len} is probably too short; the count must be the value's length in bytes",
                                preview(value)
                            ),
                            None => format!(
                                "text {stray:?} where a tag should begin; ADIF fields look like <CALL:5>K1ABC"
                            ),
                        },
                    ));
                }
            }
            let tag = match self.input.adi_tag().map_err(|e| self.io(e))? {
                Some(tag) => tag,
                None => {
                    return Err(Fail::Fatal(ReadError {
                        record: self.number,
                        offset: at,
                        message: format!(
                            "record {} is truncated: the file ends inside a tag",
                            self.number
                        ),
                    }));
                }
            };
            match tag {
                Tag::Eor if fields == 0 => {}
                Tag::Eor => return Ok(Some(record)),
                Tag::Eoh if allow_eoh && self.header.fields.is_empty() => {
                    self.header = std::mem::take(&mut record);
                    fields = 0;
                    last = None;
                }
                Tag::Eoh => {
                    return Err(self.bad(
                        at,
                        "<EOH> among the records; a file has one header, at its start",
                    ));
                }
                Tag::NoLength(name) => {
                    let mut after = Vec::new();
                    self.input
                        .read_until(|b| b == b'<', PREVIEW, &mut after)
                        .map_err(|e| self.io(e))?;
                    let after = text(after);
                    let value = after.trim();
                    let example = if value.is_empty() || after.len() >= PREVIEW {
                        format!("<{name}:5>K1ABC")
                    } else {
                        format!("<{name}:{}>{value}", value.len())
                    };
                    return Err(self.bad(
                        at,
                        format!("tag <{name}> has no length; ADIF writes {example}"),
                    ));
                }
                Tag::Bad(raw) => {
                    return Err(self.bad(
                        at,
                        format!(
                            "{:?} is not an ADIF tag; tags look like <CALL:5> or <EOR>",
                            preview(&format!("<{raw}"))
                        ),
                    ));
                }
                Tag::Field { name, len } => {
                    fields += 1;
                    if fields > MAX_FIELDS {
                        return Err(self.bad(
                            at,
                            format!("more than {MAX_FIELDS} fields; is the <EOR> between two records missing?"),
                        ));
                    }
                    if len > MAX_VALUE as u64 {
                        return Err(self.bad(
                            at,
                            format!("field {name} claims {len} bytes; values are at most 1 MiB, so its length count is wrong"),
                        ));
                    }
                    let mut value = Vec::new();
                    let got = self
                        .input
                        .read_n(len as usize, &mut value)
                        .map_err(|e| self.io(e))?;
                    if got < len as usize {
                        return Err(Fail::Fatal(ReadError {
                            record: self.number,
                            offset: self.input.offset,
                            message: format!(
                                "record {} is truncated: field {name} has length {len} but the file ends {got} bytes into its value",
                                self.number
                            ),
                        }));
                    }
                    if let Some(p) = swallowed_eor(&value) {
                        // The count swallowed the end of the record: hand the <EOR> and what
                        // follows back, so the next record is read from where it begins.
                        self.input.unread(&value[p..]);
                        return Err(self.bad(
                            at,
                            format!("field {name} has length {len} but only {p} bytes remain before <EOR>; the count must be the value's length in bytes"),
                        ));
                    }
                    let value = text(value);
                    record.push(&name, value.clone());
                    last = Some((name, len, value));
                }
            }
        }
    }

    /// Turns a failure into the error to return, skipping to the end of the damaged record
    /// (or marking the reader done) so that the next call reads on from a record boundary.
    fn settle(&mut self, fail: Fail) -> ReadError {
        match fail {
            Fail::Fatal(e) => {
                self.done = true;
                e
            }
            Fail::Record { error, resync } => {
                if resync {
                    let end: &[u8] = match self.format {
                        Format::Adi => b"<eor>",
                        Format::Adx => b"</record>",
                    };
                    match self.input.skip_past(end) {
                        Ok(true) => {}
                        Ok(false) => self.done = true,
                        Err(e) => {
                            let io = self.io(e).0;
                            self.queued.push(Err(io));
                            self.done = true;
                        }
                    }
                }
                self.number += 1;
                error
            }
        }
    }

    // ---- ADX ----

    /// Reads up to `<RECORDS>`, collecting the `<HEADER>`.
    fn adx_start(&mut self) -> Result<(), ReadError> {
        let whole = |offset: u64, message: String| ReadError {
            record: 0,
            offset,
            message,
        };
        let fail = |this: &Self, f: XmlFail| match f {
            XmlFail::Io(e) => this.header_io(e),
            XmlFail::Bad(at, m) | XmlFail::EndedRecord(at, m) => {
                whole(at, format!("not a well-formed ADX file: {m}"))
            }
        };
        loop {
            let at = self.input.offset;
            match self.xml_event().map_err(|f| fail(self, f))? {
                Xml::Text(t) if t.trim().is_empty() => {}
                Xml::Start { name, empty, .. } if name.eq_ignore_ascii_case("ADX") => {
                    if empty {
                        self.queued.push(Err(self.no_records()));
                        self.done = true;
                        return Ok(());
                    }
                    break;
                }
                Xml::Start { name, .. } => {
                    return Err(whole(
                        at,
                        format!("not an ADX file: its root element is <{name}>, not <ADX>"),
                    ));
                }
                Xml::Eof => {
                    return Err(whole(at, "not an ADX file: it has no <ADX> element".into()));
                }
                _ => {
                    return Err(whole(
                        at,
                        "not an ADX file: it has content before the <ADX> element".into(),
                    ));
                }
            }
        }
        loop {
            let at = self.input.offset;
            match self.xml_event().map_err(|f| fail(self, f))? {
                Xml::Start { name, empty, .. } if name.eq_ignore_ascii_case("HEADER") => {
                    if !empty {
                        self.adx_header().map_err(|f| fail(self, f))?;
                    }
                }
                Xml::Start { name, empty, .. } if name.eq_ignore_ascii_case("RECORDS") => {
                    if empty {
                        break;
                    }
                    return Ok(());
                }
                Xml::Start { name, empty, .. } => {
                    if !empty {
                        self.skip_element(&name).map_err(|f| fail(self, f))?;
                    }
                }
                Xml::Eof | Xml::End(_) => break,
                Xml::Text(t) if t.trim().is_empty() => {}
                Xml::Text(t) => {
                    return Err(whole(
                        at,
                        format!(
                            "not a well-formed ADX file: text {:?} directly inside <ADX>",
                            preview(&t)
                        ),
                    ));
                }
            }
        }
        self.queued.push(Err(self.no_records()));
        self.done = true;
        Ok(())
    }

    fn adx_header(&mut self) -> Result<(), XmlFail> {
        loop {
            let at = self.input.offset;
            match self.xml_event()? {
                Xml::Text(t) if t.trim().is_empty() => {}
                Xml::Start { name, attrs, empty } => {
                    // ADI numbers user-defined fields in the header (USERDEF1); ADX says the
                    // number in an attribute.
                    let field = if name.eq_ignore_ascii_case("USERDEF") {
                        format!("USERDEF{}", attr(&attrs, "FIELDID").unwrap_or_default())
                    } else {
                        name.clone()
                    };
                    if !empty {
                        let value = self.xml_content(&name)?.ok_or_else(|| {
                            XmlFail::Bad(at, "the file ends inside <HEADER>".into())
                        })?;
                        if self.header.fields.len() >= MAX_FIELDS {
                            return Err(XmlFail::Bad(at, "the header has too many fields".into()));
                        }
                        self.header.push(&field, value);
                    }
                }
                Xml::End(name) if name.eq_ignore_ascii_case("HEADER") => return Ok(()),
                Xml::End(name) => {
                    return Err(XmlFail::Bad(at, format!("</{name}> inside <HEADER>")));
                }
                Xml::Text(t) => {
                    return Err(XmlFail::Bad(
                        at,
                        format!("text {:?} directly inside <HEADER>", preview(&t)),
                    ));
                }
                Xml::Eof => return Err(XmlFail::Bad(at, "the file ends inside <HEADER>".into())),
            }
        }
    }

    /// Reads one ADX record; `Ok(None)` is the end of the records.
    fn adx_record(&mut self) -> Result<Option<Record>, Fail> {
        // Find the next <RECORD>. Malformed XML here is outside any record, so reading on
        // from it rather than from the next </RECORD> keeps the record that follows.
        loop {
            let at = self.input.offset;
            let event = self.xml_event().map_err(|f| match self.xml_fail(f) {
                Fail::Record { error, .. } => Fail::Record {
                    error,
                    resync: false,
                },
                fatal => fatal,
            })?;
            match event {
                Xml::Text(t) if t.trim().is_empty() => {}
                Xml::Text(t) => {
                    return Err(Fail::Record {
                        error: self.record_error(
                            at,
                            format!(
                                "text {:?} between records; values belong in field elements such as <CALL>K1ABC</CALL>",
                                preview(&t)
                            ),
                        ),
                        resync: false,
                    });
                }
                Xml::Start { name, empty, .. } if name.eq_ignore_ascii_case("RECORD") => {
                    if !empty {
                        break;
                    }
                }
                Xml::Start { name, empty, .. } => {
                    if !empty {
                        self.skip_element(&name).map_err(|f| self.xml_fail(f))?;
                    }
                    return Err(Fail::Record {
                        error: self
                            .record_error(at, format!("<{name}> where a <RECORD> should be")),
                        resync: false,
                    });
                }
                Xml::End(name)
                    if name.eq_ignore_ascii_case("RECORDS") || name.eq_ignore_ascii_case("ADX") =>
                {
                    return Ok(None);
                }
                Xml::End(_) => {}
                Xml::Eof => return Ok(None),
            }
        }
        let mut record = Record::default();
        let mut fields = 0usize;
        loop {
            let at = self.input.offset;
            match self.xml_event().map_err(|f| self.xml_fail(f))? {
                Xml::Text(t) if t.trim().is_empty() => {}
                Xml::Text(t) => {
                    return Err(self.bad(
                        at,
                        format!(
                            "text {:?} directly inside <RECORD>; values belong in field elements such as <CALL>K1ABC</CALL>",
                            preview(&t)
                        ),
                    ));
                }
                Xml::Start { name, attrs, empty } => {
                    fields += 1;
                    if fields > MAX_FIELDS {
                        return Err(self.bad(
                            at,
                            format!("more than {MAX_FIELDS} fields; is a </RECORD> missing?"),
                        ));
                    }
                    let field = if name.eq_ignore_ascii_case("APP") {
                        match (attr(&attrs, "PROGRAMID"), attr(&attrs, "FIELDNAME")) {
                            (Some(p), Some(f)) => format!("APP_{p}_{f}"),
                            _ => {
                                return Err(self.bad(
                                    at,
                                    "<APP> needs PROGRAMID and FIELDNAME attributes, e.g. <APP PROGRAMID=\"N1MM\" FIELDNAME=\"EXCHANGE1\" TYPE=\"S\">",
                                ));
                            }
                        }
                    } else if name.eq_ignore_ascii_case("USERDEF") {
                        match attr(&attrs, "FIELDNAME") {
                            Some(f) => f.to_owned(),
                            None => {
                                return Err(self.bad(
                                    at,
                                    "<USERDEF> needs a FIELDNAME attribute, e.g. <USERDEF FIELDNAME=\"EPC\">",
                                ));
                            }
                        }
                    } else {
                        name.clone()
                    };
                    if empty {
                        continue;
                    }
                    match self.xml_content(&name) {
                        Ok(Some(value)) => record.push(&field, value),
                        Ok(None) => return Err(Fail::Fatal(self.adx_truncated(at))),
                        Err(XmlFail::EndedRecord(at, m)) => {
                            // The record's end tag is read already: skipping to the next one
                            // would lose the next record.
                            return Err(Fail::Record {
                                error: self.record_error(at, m),
                                resync: false,
                            });
                        }
                        Err(f) => return Err(self.xml_fail(f)),
                    }
                }
                Xml::End(name) if name.eq_ignore_ascii_case("RECORD") => return Ok(Some(record)),
                Xml::End(name) => {
                    return Err(self.bad(
                        at,
                        format!("</{name}> inside <RECORD>, which it does not close"),
                    ));
                }
                Xml::Eof => return Err(Fail::Fatal(self.adx_truncated(at))),
            }
        }
    }

    fn adx_truncated(&self, offset: u64) -> ReadError {
        ReadError {
            record: self.number,
            offset,
            message: format!("record {} is truncated: it has no </RECORD>", self.number),
        }
    }

    fn xml_fail(&self, f: XmlFail) -> Fail {
        match f {
            XmlFail::Io(e) => self.io(e).into(),
            XmlFail::Bad(at, m) | XmlFail::EndedRecord(at, m) => self.bad(at, m),
        }
    }

    /// The text inside an element whose start tag was just read, up to its end tag; `None`
    /// when the file ends first.
    fn xml_content(&mut self, name: &str) -> Result<Option<String>, XmlFail> {
        let mut value = String::new();
        loop {
            let at = self.input.offset;
            match self.xml_event()? {
                Xml::Text(t) => {
                    if value.len() + t.len() > MAX_VALUE {
                        return Err(XmlFail::Bad(at, format!("<{name}> holds more than 1 MiB")));
                    }
                    value.push_str(&t);
                }
                Xml::End(end) if end.eq_ignore_ascii_case(name) => return Ok(Some(value)),
                Xml::End(end) => {
                    let message =
                        format!("<{name}> is closed by </{end}>; write <{name}>value</{name}>");
                    return Err(if end.eq_ignore_ascii_case("RECORD") {
                        XmlFail::EndedRecord(at, message)
                    } else {
                        XmlFail::Bad(at, message)
                    });
                }
                Xml::Start { name: inner, .. } => {
                    return Err(XmlFail::Bad(
                        at,
                        format!("<{name}> holds an element <{inner}>; field values are plain text"),
                    ));
                }
                Xml::Eof => return Ok(None),
            }
        }
    }

    /// Skips the rest of an element whose start tag was just read.
    fn skip_element(&mut self, name: &str) -> Result<(), XmlFail> {
        let mut depth = 0usize;
        loop {
            let at = self.input.offset;
            match self.xml_event()? {
                Xml::Start { empty: false, .. } => depth += 1,
                Xml::End(_) if depth > 0 => depth -= 1,
                Xml::End(_) => return Ok(()),
                Xml::Eof => {
                    return Err(XmlFail::Bad(at, format!("the file ends inside <{name}>")));
                }
                Xml::Start { .. } | Xml::Text(_) => {}
            }
        }
    }

    /// The next XML event; comments, processing instructions and DOCTYPE are skipped,
    /// CDATA is text.
    fn xml_event(&mut self) -> Result<Xml, XmlFail> {
        loop {
            let at = self.input.offset;
            let Some(first) = self.input.peek()? else {
                return Ok(Xml::Eof);
            };
            if first != b'<' {
                let mut raw = Vec::new();
                if self
                    .input
                    .read_until(|b| b == b'<', MAX_VALUE + 1, &mut raw)?
                    == Until::Limit
                {
                    return Err(XmlFail::Bad(at, "a value holds more than 1 MiB".into()));
                }
                return Ok(Xml::Text(unescape(&text(raw))));
            }
            self.input.advance(1);
            match self.input.peek()? {
                Some(b'?') => {
                    if !self.input.skip_past(b"?>")? {
                        return Ok(Xml::Eof);
                    }
                }
                Some(b'!') => {
                    self.input.advance(1);
                    let mut opening = Vec::new();
                    self.input.read_n(2, &mut opening)?;
                    if opening == b"--" {
                        if !self.input.skip_past(b"-->")? {
                            return Ok(Xml::Eof);
                        }
                        continue;
                    }
                    self.input.read_n(5, &mut opening)?;
                    if opening == b"[CDATA[" {
                        let mut raw = Vec::new();
                        match self.input.read_through(b"]]>", MAX_VALUE, &mut raw)? {
                            Until::Found => return Ok(Xml::Text(text(raw))),
                            Until::Eof => return Ok(Xml::Eof),
                            Until::Limit => {
                                return Err(XmlFail::Bad(
                                    at,
                                    "a CDATA section holds more than 1 MiB".into(),
                                ));
                            }
                        }
                    }
                    if !opening.contains(&b'>') && !self.input.skip_past(b">")? {
                        return Ok(Xml::Eof);
                    }
                }
                Some(b'/') => {
                    self.input.advance(1);
                    let mut raw = Vec::new();
                    match self.input.read_until(|b| b == b'>', MAX_TAG, &mut raw)? {
                        Until::Found => self.input.advance(1),
                        Until::Eof => return Ok(Xml::Eof),
                        Until::Limit => {
                            return Err(XmlFail::Bad(at, "an end tag is not closed by '>'".into()));
                        }
                    }
                    return Ok(Xml::End(text(raw).trim().to_owned()));
                }
                Some(_) => return self.xml_start_tag(at),
                None => return Ok(Xml::Eof),
            }
        }
    }

    /// A start tag after its `<`: `NAME ATTR="value" ...>` or `.../>`.
    fn xml_start_tag(&mut self, at: u64) -> Result<Xml, XmlFail> {
        // Attribute values may hold '>', so the end of the tag is the first '>' outside quotes.
        let mut raw = Vec::new();
        let mut quote: Option<u8> = None;
        loop {
            let Some(b) = self.input.peek()? else {
                return Ok(Xml::Eof);
            };
            self.input.advance(1);
            match quote {
                Some(q) if b == q => quote = None,
                Some(_) => {}
                None if b == b'"' || b == b'\'' => quote = Some(b),
                None if b == b'>' => break,
                None if b == b'<' => {
                    return Err(XmlFail::Bad(
                        at,
                        format!(
                            "tag {:?} is not closed by '>'",
                            preview(&format!("<{}", text(raw)))
                        ),
                    ));
                }
                None => {}
            }
            raw.push(b);
            if raw.len() > MAX_TAG {
                return Err(XmlFail::Bad(at, "a tag is longer than 4 KiB".into()));
            }
        }
        let raw = text(raw);
        let (body, empty) = match raw.trim_end().strip_suffix('/') {
            Some(body) => (body, true),
            None => (raw.as_str(), false),
        };
        let body = body.trim();
        let name_end = body
            .find(|c: char| c.is_ascii_whitespace())
            .unwrap_or(body.len());
        let name = &body[..name_end];
        if name.is_empty() {
            return Err(XmlFail::Bad(at, "a tag without a name".into()));
        }
        let attrs = parse_attrs(&body[name_end..]).ok_or_else(|| {
            XmlFail::Bad(
                at,
                format!("malformed attributes in <{name}>; write NAME=\"value\""),
            )
        })?;
        Ok(Xml::Start {
            name: name.to_owned(),
            attrs,
            empty,
        })
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<Record, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if !self.queued.is_empty() {
            return Some(self.queued.remove(0));
        }
        self.next_item(false)
    }
}

impl<R: BufRead> Reader<R> {
    /// The next record or record error; `allow_eoh` as for [`Reader::adi_record`].
    fn next_item(&mut self, allow_eoh: bool) -> Option<Result<Record, ReadError>> {
        loop {
            if self.done {
                return None;
            }
            let read = match self.format {
                Format::Adi => self.adi_record(allow_eoh),
                Format::Adx => self.adx_record(),
            };
            match read {
                // A record without fields (`<EOR><EOR>`, `<RECORD/>`) is nothing to import.
                Ok(Some(record)) if record.fields.is_empty() => {}
                Ok(Some(record)) => {
                    self.number += 1;
                    self.returned = true;
                    return Some(Ok(record));
                }
                Ok(None) => {
                    self.done = true;
                    return (!self.returned).then(|| Err(self.no_records()));
                }
                Err(fail) => {
                    self.returned = true;
                    let error = self.settle(fail);
                    return Some(Err(error));
                }
            }
        }
    }
}

// ---- the format, from the first bytes ----

fn sniff<R: BufRead>(mut raw: R) -> Result<(Input<R>, Format), ReadError> {
    let whole = |message: String| ReadError {
        record: 0,
        offset: 0,
        message,
    };
    let mut head = Vec::new();
    let mut eof = false;
    let mut sniffed = Sniffed::default();
    while head.len() < SNIFF_LIMIT {
        let chunk = match raw.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(whole(format!("the file could not be read: {e}"))),
        };
        if chunk.is_empty() {
            eof = true;
            break;
        }
        let n = chunk.len().min(SNIFF_LIMIT - head.len());
        head.extend_from_slice(&chunk[..n]);
        raw.consume(n);
        if sniffed.enough(&head) {
            break;
        }
    }
    // Windows loggers offer "Unicode" exports, which are UTF-16; ADIF is a byte format.
    if head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF") {
        return Err(whole(
            "not readable: the file is UTF-16 text; export or save it again as UTF-8 (or ANSI)"
                .into(),
        ));
    }
    let bom = if head.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let body = &head[bom..];
    if body.iter().all(|&b| is_blank(b)) && eof {
        return Err(whole("the file is empty".into()));
    }
    let lt = body.iter().position(|&b| b == b'<');
    let escaped = find_escaped_lt(body);
    let entities = match (lt, escaped) {
        (None, Some(_)) => true,
        (Some(l), Some(e)) => e < l,
        _ => false,
    };
    let first_tag = if entities { escaped } else { lt };
    let before = &body[..first_tag.unwrap_or(body.len()).min(4096)];
    if before.contains(&0) {
        return Err(whole(
            "not an ADIF file: it holds binary data (NUL bytes) before the first tag; export the log as ADIF (.adi or .adx)".into(),
        ));
    }
    if looks_binary(before) {
        return Err(whole(
            "not an ADIF file: its first bytes are not text; export the log as ADIF (.adi or .adx)"
                .into(),
        ));
    }
    let Some(first_tag) = first_tag else {
        return Err(whole(format!(
            "not an ADIF file: there is no ADIF tag such as <CALL:5>K1ABC in its first {} bytes",
            body.len()
        )));
    };
    let start = body.iter().position(|&b| !is_blank(b)).unwrap_or(0);
    // A failed download often saves the site's error or login page instead of the log.
    if starts_with_ci(&body[start..], b"<html") || starts_with_ci(&body[start..], b"<!doc") {
        return Err(whole(
            "not an ADIF file: it is a web page (HTML); download the log again, as ADIF".into(),
        ));
    }
    let format = if !entities
        && start == first_tag
        && (starts_with_ci(&body[start..], b"<?xml") || starts_with_ci(&body[start..], b"<adx"))
    {
        Format::Adx
    } else {
        Format::Adi
    };
    let prefixed = Prefixed {
        head,
        pos: bom,
        rest: raw,
    };
    let src = if entities {
        Source::Unescaped(Unescaped {
            inner: prefixed,
            out: Vec::new(),
            pos: 0,
            pending: Vec::new(),
        })
    } else {
        Source::Plain(prefixed)
    };
    Ok((
        Input {
            src,
            back: Vec::new(),
            back_pos: 0,
            offset: bom as u64,
        },
        format,
    ))
}

/// How far sniffing has looked, so that each chunk is searched once however small the
/// chunks are.
#[derive(Default)]
struct Sniffed {
    searched: usize,
    lt: Option<usize>,
}

impl Sniffed {
    /// Whether `head` decides the format: it holds the first `<` and the four bytes after
    /// it, or an `&lt;` before any `<`.
    fn enough(&mut self, head: &[u8]) -> bool {
        if self.lt.is_none() {
            // Look again at the last three bytes: an `&lt;` may straddle two chunks.
            let from = self.searched.saturating_sub(3);
            if find_escaped_lt(&head[from..]).is_some() {
                return true;
            }
            self.lt = head[self.searched..]
                .iter()
                .position(|&b| b == b'<')
                .map(|p| p + self.searched);
            self.searched = head.len();
        }
        self.lt.is_some_and(|p| head.len() >= p + 5)
    }
}

fn find_escaped_lt(bytes: &[u8]) -> Option<usize> {
    bytes.windows(4).position(|w| w == b"&lt;")
}

/// Text has few control characters and is mostly valid UTF-8; ISO-8859-1 text still passes
/// because its accented letters are a small part of it.
fn looks_binary(bytes: &[u8]) -> bool {
    let mut odd = 0usize;
    for chunk in bytes.utf8_chunks() {
        odd += chunk.invalid().len();
        odd += chunk
            .valid()
            .bytes()
            .filter(|&b| (b < 0x20 && !is_blank(b)) || b == 0x7F)
            .count();
    }
    odd * 4 > bytes.len()
}

/// Blank between fields: ASCII white space, and Ctrl-Z, which DOS-era loggers put at the end.
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0B | 0x0C | 0x1A)
}

fn starts_with_ci(bytes: &[u8], prefix: &[u8]) -> bool {
    bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// Where a value holds an `<EOR>` that a too-long length count swallowed: one followed by
/// nothing but blanks and tags. A value may legitimately hold the text `<EOR>`; it is then
/// followed by other text.
fn swallowed_eor(value: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(p) = find_ci(&value[from..], b"<eor>").map(|p| p + from) {
        let rest = &value[p + 5..];
        match rest.iter().find(|&&b| !is_blank(b)) {
            None | Some(b'<') => return Some(p),
            Some(_) => from = p + 5,
        }
    }
    None
}

/// Where `needle` (ASCII) first occurs in `hay`, compared without case.
fn find_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

/// Values are UTF-8 when they decode as such; otherwise they were written by a logger that
/// uses ISO-8859-1, whose bytes are the first 256 code points.
fn text(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => e.into_bytes().iter().map(|&b| char::from(b)).collect(),
    }
}

/// At most `PREVIEW` characters of `s`, for quoting in a message.
fn preview(s: &str) -> String {
    let s = s.trim();
    match s.char_indices().nth(PREVIEW) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// The character an entity name (between `&` and `;`) stands for: the five of XML and HTML's
/// numeric ones.
fn entity(name: &[u8]) -> Option<char> {
    match name {
        b"lt" => Some('<'),
        b"gt" => Some('>'),
        b"amp" => Some('&'),
        b"quot" => Some('"'),
        b"apos" => Some('\''),
        [b'#', b'x' | b'X', hex @ ..] => std::str::from_utf8(hex)
            .ok()
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .and_then(char::from_u32),
        [b'#', dec @ ..] => std::str::from_utf8(dec)
            .ok()
            .and_then(|d| d.parse::<u32>().ok())
            .and_then(char::from_u32),
        _ => None,
    }
}

/// Decodes the entities of XML text; an `&` that starts no known entity stays as it is.
pub(crate) fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let decoded = rest[1..]
            .find(';')
            .filter(|&semi| semi <= 10)
            .and_then(|semi| entity(&rest.as_bytes()[1..=semi]).map(|c| (c, semi + 2)));
        match decoded {
            Some((c, used)) => {
                out.push(c);
                rest = &rest[used..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `NAME="value" NAME='value' ...`; `None` when malformed.
fn parse_attrs(mut s: &str) -> Option<Vec<(String, String)>> {
    let mut attrs = Vec::new();
    loop {
        s = s.trim_start();
        if s.is_empty() {
            return Some(attrs);
        }
        let eq = s.find('=')?;
        let name = s[..eq].trim();
        if name.is_empty() || name.contains(|c: char| c.is_ascii_whitespace()) {
            return None;
        }
        s = s[eq + 1..].trim_start();
        let quote = s.chars().next().filter(|&c| c == '"' || c == '\'')?;
        let close = s[1..].find(quote)?;
        attrs.push((name.to_owned(), unescape(&s[1..=close])));
        s = &s[close + 2..];
    }
}

fn attr<'a>(attrs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.trim())
        .filter(|v| !v.is_empty())
}

// ---- ADI tags ----

enum Tag {
    Eor,
    Eoh,
    Field {
        name: String,
        len: u64,
    },
    /// `<CALL>`: a field name without a length.
    NoLength(String),
    /// Not a tag; the text after the `<`.
    Bad(String),
}

/// The parts of an ADI tag's text (between `<` and `>`).
fn parse_tag(raw: &[u8]) -> Tag {
    let bad = || Tag::Bad(text(raw.to_vec()));
    let Ok(s) = std::str::from_utf8(raw) else {
        return bad();
    };
    let mut parts = s.split(':');
    let name = parts.next().unwrap_or_default().trim();
    let valid_name = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_graphic() && !matches!(b, b'<' | b'>' | b',' | b'{' | b'}'));
    if !valid_name {
        return bad();
    }
    let len = parts.next();
    let kind = parts.next();
    // The data type indicator (`<QSO_DATE:8:D>`) adds nothing the value does not say.
    if parts.next().is_some() || kind.is_some_and(|k| k.contains(char::is_whitespace)) {
        return bad();
    }
    match len {
        None if name.eq_ignore_ascii_case("EOR") => Tag::Eor,
        None if name.eq_ignore_ascii_case("EOH") => Tag::Eoh,
        None => Tag::NoLength(name.to_owned()),
        Some(len) => {
            let len = len.trim();
            if len.is_empty() || !len.bytes().all(|b| b.is_ascii_digit()) {
                return bad();
            }
            Tag::Field {
                name: name.to_owned(),
                // Digits only, so the parse fails only on overflow: a count that big is as
                // wrong as one of u64::MAX.
                len: len.parse().unwrap_or(u64::MAX),
            }
        }
    }
}

// ---- bytes ----

#[derive(Debug, PartialEq)]
enum Until {
    Found,
    Eof,
    Limit,
}

enum Xml {
    Start {
        name: String,
        attrs: Vec<(String, String)>,
        empty: bool,
    },
    End(String),
    Text(String),
    Eof,
}

enum XmlFail {
    Io(io::Error),
    /// Malformed XML at an offset.
    Bad(u64, String),
    /// Malformed XML whose last event was the `</RECORD>` ending the record.
    EndedRecord(u64, String),
}

impl From<io::Error> for XmlFail {
    fn from(e: io::Error) -> XmlFail {
        XmlFail::Io(e)
    }
}

/// The bytes read while sniffing, served again before the rest of the input.
struct Prefixed<R> {
    head: Vec<u8>,
    pos: usize,
    rest: R,
}

impl<R: BufRead> Read for Prefixed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = {
            let chunk = self.fill_buf()?;
            let n = chunk.len().min(buf.len());
            buf[..n].copy_from_slice(&chunk[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Prefixed<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos < self.head.len() {
            Ok(&self.head[self.pos..])
        } else {
            self.rest.fill_buf()
        }
    }

    fn consume(&mut self, n: usize) {
        if self.pos < self.head.len() {
            self.pos = (self.pos + n).min(self.head.len());
            if self.pos == self.head.len() {
                self.head = Vec::new();
                self.pos = 0;
            }
        } else {
            self.rest.consume(n);
        }
    }
}

/// Decodes HTML entities as the bytes stream through, for files whose every `<` and `>` is
/// escaped. An `&` that starts no known entity passes through unchanged.
struct Unescaped<R> {
    inner: R,
    out: Vec<u8>,
    pos: usize,
    /// An entity begun at the end of one chunk and finished in the next.
    pending: Vec<u8>,
}

impl<R: BufRead> Unescaped<R> {
    /// Entities are short; a longer run after `&` is text.
    const MAX_ENTITY: usize = 12;

    fn push(&mut self, b: u8) {
        if self.pending.is_empty() {
            if b == b'&' {
                self.pending.push(b);
            } else {
                self.out.push(b);
            }
            return;
        }
        if b == b';' {
            let decoded = entity(&self.pending[1..]);
            match decoded {
                Some(c) => {
                    let mut utf8 = [0u8; 4];
                    self.out
                        .extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
                }
                None => {
                    self.out.extend_from_slice(&self.pending);
                    self.out.push(b);
                }
            }
            self.pending.clear();
        } else if (b.is_ascii_alphanumeric() || b == b'#') && self.pending.len() < Self::MAX_ENTITY
        {
            self.pending.push(b);
        } else {
            self.out.append(&mut self.pending);
            self.push(b);
        }
    }
}

impl<R: BufRead> Read for Unescaped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = {
            let chunk = self.fill_buf()?;
            let n = chunk.len().min(buf.len());
            buf[..n].copy_from_slice(&chunk[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Unescaped<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.pos == self.out.len() {
            self.out.clear();
            self.pos = 0;
            let chunk = self.inner.fill_buf()?.to_vec();
            if chunk.is_empty() {
                let rest = std::mem::take(&mut self.pending);
                self.out.extend_from_slice(&rest);
                break;
            }
            self.inner.consume(chunk.len());
            for b in chunk {
                self.push(b);
            }
        }
        Ok(&self.out[self.pos..])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.out.len());
    }
}

enum Source<R> {
    Plain(Prefixed<R>),
    Unescaped(Unescaped<Prefixed<R>>),
}

/// The input as the parsers see it: the (decoded) bytes, the offset of the next one, and
/// bytes handed back to be read again.
struct Input<R> {
    src: Source<R>,
    back: Vec<u8>,
    back_pos: usize,
    offset: u64,
}

impl<R: BufRead> Input<R> {
    fn chunk(&mut self) -> io::Result<&[u8]> {
        if self.back_pos < self.back.len() {
            return Ok(&self.back[self.back_pos..]);
        }
        loop {
            let read = match &mut self.src {
                Source::Plain(p) => p.fill_buf(),
                Source::Unescaped(u) => u.fill_buf(),
            };
            match read {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // Borrowing `self.src` again returns the same, already filled buffer.
                Ok(_) => break,
                Err(e) => return Err(e),
            }
        }
        match &mut self.src {
            Source::Plain(p) => p.fill_buf(),
            Source::Unescaped(u) => u.fill_buf(),
        }
    }

    /// Consumes `n` bytes of the current chunk.
    fn advance(&mut self, n: usize) {
        self.offset += n as u64;
        if self.back_pos < self.back.len() {
            self.back_pos += n;
            if self.back_pos >= self.back.len() {
                self.back.clear();
                self.back_pos = 0;
            }
        } else {
            match &mut self.src {
                Source::Plain(p) => p.consume(n),
                Source::Unescaped(u) => u.consume(n),
            }
        }
    }

    fn unread(&mut self, bytes: &[u8]) {
        let mut back = bytes.to_vec();
        back.extend_from_slice(&self.back[self.back_pos..]);
        self.back = back;
        self.back_pos = 0;
        self.offset -= bytes.len() as u64;
    }

    fn peek(&mut self) -> io::Result<Option<u8>> {
        Ok(self.chunk()?.first().copied())
    }

    /// Skips blank bytes; returns the next byte, not consumed.
    fn skip_blank(&mut self) -> io::Result<Option<u8>> {
        loop {
            let chunk = self.chunk()?;
            if chunk.is_empty() {
                return Ok(None);
            }
            let len = chunk.len();
            let found = chunk
                .iter()
                .position(|&b| !is_blank(b))
                .map(|i| (i, chunk[i]));
            match found {
                Some((i, b)) => {
                    self.advance(i);
                    return Ok(Some(b));
                }
                None => self.advance(len),
            }
        }
    }

    /// Skips to the next `stop` byte, not consumed; false at the end of the file.
    fn skip_until(&mut self, stop: u8) -> io::Result<bool> {
        loop {
            let chunk = self.chunk()?;
            if chunk.is_empty() {
                return Ok(false);
            }
            let len = chunk.len();
            match chunk.iter().position(|&b| b == stop) {
                Some(i) => {
                    self.advance(i);
                    return Ok(true);
                }
                None => self.advance(len),
            }
        }
    }

    /// Moves bytes into `out` up to the first one that `stop` accepts (not consumed), or
    /// until `out` holds `max` bytes.
    fn read_until(
        &mut self,
        stop: impl Fn(u8) -> bool,
        max: usize,
        out: &mut Vec<u8>,
    ) -> io::Result<Until> {
        loop {
            if out.len() >= max {
                return Ok(Until::Limit);
            }
            let chunk = self.chunk()?;
            if chunk.is_empty() {
                return Ok(Until::Eof);
            }
            let room = max - out.len();
            let (n, found) = match chunk.iter().take(room).position(|&b| stop(b)) {
                Some(i) => (i, true),
                None => (chunk.len().min(room), false),
            };
            out.extend_from_slice(&chunk[..n]);
            self.advance(n);
            if found {
                return Ok(Until::Found);
            }
        }
    }

    /// Moves `n` bytes (fewer at the end of the file) into `out`; returns how many.
    fn read_n(&mut self, n: usize, out: &mut Vec<u8>) -> io::Result<usize> {
        let mut got = 0;
        while got < n {
            let chunk = self.chunk()?;
            if chunk.is_empty() {
                break;
            }
            let take = chunk.len().min(n - got);
            out.extend_from_slice(&chunk[..take]);
            self.advance(take);
            got += take;
        }
        Ok(got)
    }

    /// Moves bytes into `out` up to and including `end`, then drops `end` from `out`; stops
    /// when `out` would exceed `max`.
    fn read_through(&mut self, end: &[u8], max: usize, out: &mut Vec<u8>) -> io::Result<Until> {
        loop {
            let Some(b) = self.peek()? else {
                return Ok(Until::Eof);
            };
            self.advance(1);
            out.push(b);
            if out.ends_with(end) {
                out.truncate(out.len() - end.len());
                return Ok(Until::Found);
            }
            if out.len() > max + end.len() {
                return Ok(Until::Limit);
            }
        }
    }

    /// Skips past the next `pattern` (lower-case ASCII, matched without case); false at the
    /// end of the file.
    fn skip_past(&mut self, pattern: &[u8]) -> io::Result<bool> {
        let mut window: Vec<u8> = Vec::with_capacity(pattern.len());
        loop {
            let chunk = self.chunk()?;
            if chunk.is_empty() {
                return Ok(false);
            }
            let mut used = 0;
            let mut found = false;
            for &b in chunk {
                used += 1;
                if window.len() == pattern.len() {
                    window.remove(0);
                }
                window.push(b.to_ascii_lowercase());
                if window == pattern {
                    found = true;
                    break;
                }
            }
            self.advance(used);
            if found {
                return Ok(true);
            }
        }
    }

    /// Reads an ADI tag at a `<`; `None` when the file ends inside it.
    fn adi_tag(&mut self) -> io::Result<Option<Tag>> {
        self.advance(1);
        let mut raw = Vec::new();
        match self.read_until(|b| b == b'>' || b == b'<', MAX_TAG, &mut raw)? {
            Until::Eof => Ok(None),
            Until::Limit => Ok(Some(Tag::Bad(text(raw)))),
            Until::Found => {
                if self.peek()? == Some(b'<') {
                    // Another tag begins before this one closed.
                    return Ok(Some(Tag::Bad(text(raw))));
                }
                self.advance(1);
                Ok(Some(parse_tag(&raw)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Cursor};
    use std::path::PathBuf;

    fn corpus(name: &str) -> Vec<u8> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/adif")
            .join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Reads through a tiny buffer so that every chunk boundary case is exercised.
    fn open(bytes: Vec<u8>) -> Result<Reader<BufReader<Cursor<Vec<u8>>>>, ReadError> {
        Reader::new(BufReader::with_capacity(7, Cursor::new(bytes)))
    }

    fn read_all(bytes: Vec<u8>) -> (Record, Vec<Result<Record, ReadError>>) {
        let reader = open(bytes).unwrap();
        let header = reader.header().clone();
        (header, reader.collect())
    }

    fn records(name: &str) -> (Record, Vec<Record>) {
        let (header, items) = read_all(corpus(name));
        let records = items
            .into_iter()
            .map(|r| r.unwrap_or_else(|e| panic!("{name}: {e}")))
            .collect();
        (header, records)
    }

    #[test]
    fn wsjtx_log() {
        let reader = open(corpus("wsjtx.adi")).unwrap();
        assert_eq!(reader.format(), Format::Adi);
        assert_eq!(reader.header().get("PROGRAMID"), Some("WSJT-X"));
        assert_eq!(reader.header().get("ADIF_VER"), Some("3.1.0"));
        let (_, recs) = records("wsjtx.adi");
        assert_eq!(recs.len(), 4);
        assert_eq!(recs[0].get("CALL"), Some("K1ABC"));
        assert_eq!(recs[0].get("FREQ"), Some("14.075123"));
        assert_eq!(recs[0].fields[0].0, "CALL", "names are upper-cased");
        let ft4 = recs
            .iter()
            .find(|r| r.get("SUBMODE") == Some("FT4"))
            .unwrap();
        assert_eq!(ft4.get("MODE"), Some("MFSK"));
    }

    #[test]
    fn n1mm_log_with_crlf_and_upper_case_tags() {
        let bytes = corpus("n1mm.adi");
        assert!(bytes.windows(2).any(|w| w == b"\r\n"));
        let (header, recs) = records("n1mm.adi");
        assert_eq!(header.get("PROGRAMID"), Some("N1MM Logger+"));
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].get("CONTEST_ID"), Some("CQ-WW-CW"));
        assert_eq!(recs[0].get("FREQ"), Some("7.02500"));
        assert_eq!(recs[0].get("MODE"), Some("CW"));
        assert!(recs[0].get("APP_N1MM_EXCHANGE1").is_some());
        assert!(
            recs.iter()
                .all(|r| !r.fields.iter().any(|(_, v)| v.contains('\r')))
        );
    }

    #[test]
    fn qrz_download_is_entity_decoded() {
        let (header, recs) = records("qrz.adi");
        assert_eq!(header.get("PROGRAMID"), Some("QRZLogbook"));
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].get("CALL"), Some("K1ABC"));
        assert_eq!(recs[0].get("APP_QRZLOG_LOGID"), Some("1234567801"));
        let comment = recs.iter().find_map(|r| r.get("COMMENT")).unwrap();
        assert_eq!(comment, "Tom & Jerry's \"club\" <3");
        assert_eq!(recs[2].get("NAME"), Some("Zoë"));
    }

    #[test]
    fn adx_file() {
        let reader = open(corpus("log.adx")).unwrap();
        assert_eq!(reader.format(), Format::Adx);
        assert_eq!(reader.header().get("ADIF_VER"), Some("3.1.4"));
        assert_eq!(reader.header().get("USERDEF1"), Some("EPC"));
        let (_, recs) = records("log.adx");
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].get("APP_MONOLOG_COMPRESSION"), Some("off"));
        assert_eq!(recs[0].get("EPC"), Some("32123"));
        assert_eq!(recs[1].get("COMMENT"), Some("Fish & <chips>"));
        assert_eq!(recs[1].get("NAME"), Some("Ångström"));
        assert_eq!(recs[2].get("NOTES"), Some("raw <cdata> & text"));
    }

    #[test]
    fn lower_case_tags_and_lf() {
        let (header, recs) = records("lowercase.adi");
        assert_eq!(header.get("programid"), Some("MiniLog"));
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[1].get("call"), Some("W9XYZ"));
        assert_eq!(recs[1].fields[0].0, "CALL");
    }

    #[test]
    fn utf8_lengths_count_bytes() {
        let (_, recs) = records("utf8.adi");
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].get("NAME"), Some("Jürgen Øster"));
        assert_eq!(recs[0].get("QTH"), Some("Köln"));
        assert_eq!(recs[1].get("NAME"), Some("José 日本"));
    }

    #[test]
    fn header_less_file() {
        let (header, recs) = records("noheader.adi");
        assert!(header.fields.is_empty());
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].get("CALL"), Some("K1ABC"));
    }

    #[test]
    fn park_to_park_record() {
        let (_, recs) = records("p2p.adi");
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].get("SIG_INFO"), Some("US-0001,US-0002"));
        assert_eq!(recs[0].get("MY_POTA_REF"), Some("US-1234"));
    }

    #[test]
    fn header_fields_without_header_text_are_the_header() {
        let (header, items) =
            read_all(b"<ADIF_VER:5>3.1.4 <PROGRAMID:4>Test <EOH>\n<CALL:4>N0AA <EOR>\n".to_vec());
        assert_eq!(header.get("PROGRAMID"), Some("Test"));
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].as_ref().unwrap().fields.len(), 1);
    }

    #[test]
    fn latin1_values_are_read_as_iso_8859_1() {
        let mut bytes = b"<CALL:5>DL1AB <NAME:6>J".to_vec();
        bytes.extend_from_slice(&[0xFC]); // ü in ISO-8859-1
        bytes.extend_from_slice(b"rgen <EOR>\n");
        let (_, items) = read_all(bytes);
        assert_eq!(items[0].as_ref().unwrap().get("NAME"), Some("Jürgen"));
    }

    fn only_error(items: &[Result<Record, ReadError>]) -> &ReadError {
        let errors: Vec<_> = items.iter().filter_map(|i| i.as_ref().err()).collect();
        assert_eq!(errors.len(), 1, "{items:?}");
        errors[0]
    }

    #[test]
    fn truncated_file() {
        let (_, items) = read_all(corpus("truncated.adi"));
        assert_eq!(items.len(), 3);
        assert!(items[0].is_ok() && items[1].is_ok());
        let e = only_error(&items);
        assert_eq!(e.record, 3);
        assert!(
            e.message
                .starts_with("record 3 is truncated: it has no <EOR>"),
            "{e}"
        );
    }

    #[test]
    fn wrong_lengths_name_the_field_and_the_next_record_still_reads() {
        let (_, items) = read_all(corpus("wrong_length.adi"));
        let calls: Vec<_> = items
            .iter()
            .filter_map(|i| i.as_ref().ok())
            .map(|r| r.get("CALL").unwrap_or_default().to_owned())
            .collect();
        assert_eq!(calls, ["K1ABC", "W9XYZ", "N0AA"]);
        let errors: Vec<_> = items.iter().filter_map(|i| i.as_ref().err()).collect();
        assert_eq!(errors.len(), 3, "{errors:?}");
        // Too long, swallowing the <EOR>.
        assert_eq!(errors[0].record, 2);
        assert!(
            errors[0]
                .message
                .contains("field COMMENT has length 40 but only 12 bytes remain before <EOR>"),
            "{}",
            errors[0]
        );
        // Too long, swallowing the start of the next tag.
        assert_eq!(errors[1].record, 4);
        assert!(errors[1].message.contains("CALL"), "{}", errors[1]);
        assert!(errors[1].message.contains("too long"), "{}", errors[1]);
        // Too short, leaving text before the next tag.
        assert_eq!(errors[2].record, 5);
        assert!(errors[2].message.contains("value of NAME"), "{}", errors[2]);
        assert!(errors[2].message.contains("too short"), "{}", errors[2]);
        assert_eq!(items.len(), 6);
        assert_eq!(items[5].as_ref().unwrap().get("CALL"), Some("N0AA"));
    }

    #[test]
    fn tag_without_length() {
        let (_, items) = read_all(corpus("no_length.adi"));
        let e = only_error(&items);
        assert_eq!(e.record, 2);
        assert_eq!(
            e.message,
            "record 2: tag <CALL> has no length; ADIF writes <CALL:5>K1ABC"
        );
        assert_eq!(items.iter().filter(|i| i.is_ok()).count(), 2);
    }

    #[test]
    fn junk_and_empty_files_are_refused() {
        let e = open(corpus("junk.bin")).err().unwrap();
        assert_eq!(e.record, 0);
        assert!(e.message.starts_with("not an ADIF file"), "{e}");
        let e = open(corpus("empty.adi")).err().unwrap();
        assert_eq!(e.message, "the file is empty");
        let e = open(b"  \r\n".to_vec()).err().unwrap();
        assert_eq!(e.message, "the file is empty");
        let e = open(b"Just some notes about my station.\n".to_vec())
            .err()
            .unwrap();
        assert!(e.message.starts_with("not an ADIF file"), "{e}");
        let e = open(b"\xFF\xFE<\0C\0A\0L\0L\0".to_vec()).err().unwrap();
        assert!(e.message.contains("UTF-16"), "{e}");
        for page in [
            "<!DOCTYPE html><html></html>",
            "\n<HTML><body>Log in</body></HTML>",
        ] {
            let e = open(page.as_bytes().to_vec()).err().unwrap();
            assert!(e.message.contains("web page"), "{e}");
        }
    }

    #[test]
    fn files_without_records() {
        for bytes in [
            b"Exported by nothing\n<ADIF_VER:5>3.1.0\n<EOH>\n\n".to_vec(),
            b"<?xml version=\"1.0\"?><ADX><HEADER></HEADER><RECORDS></RECORDS></ADX>".to_vec(),
            b"<ADX><HEADER><PROGRAMID>x</PROGRAMID></HEADER></ADX>".to_vec(),
        ] {
            let (_, items) = read_all(bytes);
            assert_eq!(items.len(), 1);
            let e = items[0].as_ref().unwrap_err();
            assert!(e.message.starts_with("no records"), "{e}");
        }
        let e = open(b"A header without end\n<ADIF_VER:5>3.1.0\n<CALL:4>N0AA<EOR>".to_vec())
            .err()
            .unwrap();
        assert!(e.message.contains("<EOH>"), "{e}");
    }

    #[test]
    fn bom_blank_records_and_trailing_text() {
        let mut bytes =
            b"\xEF\xBB\xBF\r\n<call:4>N0AA<eor><EOR>\r\n<CALL:4>W1AW<EOR>\r\n\r\n\x1a".to_vec();
        let (_, items) = read_all(bytes.clone());
        assert_eq!(items.len(), 2);
        assert!(items.iter().all(|i| i.is_ok()));
        bytes.extend_from_slice(b"end of log\n");
        let (_, items) = read_all(bytes);
        assert_eq!(items.len(), 3);
        assert_eq!(items[2].as_ref().unwrap_err().record, 3);
    }

    #[test]
    fn memory_guards() {
        let (_, items) = read_all(b"<CALL:4>N0AA<NOTES:2000000>x<EOR><CALL:4>W1AW<EOR>".to_vec());
        assert!(items[0].as_ref().unwrap_err().message.contains("1 MiB"));
        assert_eq!(items[1].as_ref().unwrap().get("CALL"), Some("W1AW"));
        let mut many = Vec::new();
        for i in 0..1001 {
            many.extend_from_slice(format!("<F{i}:1>x").as_bytes());
        }
        many.extend_from_slice(b"<EOR><CALL:4>W1AW<EOR>");
        let (_, items) = read_all(many);
        assert!(
            items[0]
                .as_ref()
                .unwrap_err()
                .message
                .contains("1000 fields")
        );
        assert_eq!(items[1].as_ref().unwrap().get("CALL"), Some("W1AW"));
    }

    #[test]
    fn a_length_past_the_end_stops_reading() {
        let (_, items) = read_all(b"<CALL:4>N0AA<EOR><CALL:40>W1AW".to_vec());
        assert_eq!(items.len(), 2);
        let e = items[1].as_ref().unwrap_err();
        assert_eq!(e.record, 2);
        assert!(e.message.contains("truncated"), "{e}");
    }

    #[test]
    fn bad_adx_records_are_skipped() {
        let xml = "<?xml version=\"1.0\"?>\n<ADX><RECORDS>\
            <RECORD><CALL>N0AA</CALL></RECORD>\
            <RECORD><CALL>K1ABC<B>x</B></CALL><NAME>x</NAME></RECORD>\
            <RECORD><APP FIELDNAME=\"X\">1</APP></RECORD>\
            <RECORD><CALL>W9XYZ</RECORD>\
            <FOO x=></FOO>\
            <RECORD><CALL>W1AW</CALL></RECORD>\
            <RECORD><CALL>K2AB";
        let (_, items) = read_all(xml.as_bytes().to_vec());
        let summary: Vec<String> = items
            .iter()
            .map(|i| match i {
                Ok(r) => r.get("CALL").unwrap_or_default().to_owned(),
                Err(e) => format!("error {}", e.record),
            })
            .collect();
        assert_eq!(
            summary,
            [
                "N0AA", "error 2", "error 3", "error 4", "error 5", "W1AW", "error 7"
            ]
        );
        let messages: Vec<_> = items.iter().filter_map(|i| i.as_ref().err()).collect();
        assert!(messages[1].message.contains("PROGRAMID"), "{}", messages[1]);
        assert!(messages[3].message.contains("<FOO>"), "{}", messages[3]);
        assert!(messages[4].message.contains("truncated"), "{}", messages[4]);
    }

    #[test]
    fn errors_display_their_offset() {
        let (_, items) = read_all(b"<CALL:5>K1ABC <CALL>K1ABC <EOR>".to_vec());
        let e = items[0].as_ref().unwrap_err();
        assert_eq!(e.offset, 14);
        assert_eq!(
            e.to_string(),
            "record 1: tag <CALL> has no length; ADIF writes <CALL:5>K1ABC (at byte 14)"
        );
    }

    /// Fails every read, like a disk or a network share going away.
    struct Broken;

    impl Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("device gone"))
        }
    }

    #[test]
    fn an_io_error_is_reported_once_and_ends_reading() {
        let good = Cursor::new(b"<CALL:4>N0AA<EOR>\n<CALL:4>W1AW<EOR>\n<CALL:5>K1".to_vec());
        let reader = Reader::new(BufReader::with_capacity(8, good.chain(Broken))).unwrap();
        let items: Vec<_> = reader.collect();
        assert_eq!(items.len(), 3);
        let e = items[2].as_ref().unwrap_err();
        assert_eq!(e.record, 3);
        assert!(e.message.contains("could not be read: device gone"), "{e}");
        let e = Reader::new(BufReader::new(Broken)).err().unwrap();
        assert_eq!(e.record, 0);
        assert!(e.message.contains("device gone"), "{e}");
    }

    /// Generates a header-less ADI file of `total` bytes of whole records, without ever
    /// holding it.
    struct Generated {
        record: Vec<u8>,
        pos: usize,
        left: usize,
    }

    impl Read for Generated {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.left).min(self.record.len() - self.pos);
            buf[..n].copy_from_slice(&self.record[self.pos..self.pos + n]);
            self.pos = (self.pos + n) % self.record.len();
            self.left -= n;
            Ok(n)
        }
    }

    #[test]
    fn a_50_mb_file_streams() {
        let notes = "x".repeat(4000);
        let record = format!(
            "<CALL:5>K1ABC <QSO_DATE:8>20261101 <TIME_ON:6>120030 <FREQ:6>14.074 <MODE:3>FT8 <NOTES:{}>{notes} <EOR>\n",
            notes.len()
        )
        .into_bytes();
        let count = 50 * 1024 * 1024 / record.len();
        let input = Generated {
            left: count * record.len(),
            record,
            pos: 0,
        };
        let reader = Reader::new(BufReader::with_capacity(512, input)).unwrap();
        let mut read = 0;
        for item in reader {
            assert!(item.is_ok());
            read += 1;
        }
        assert_eq!(read, count);
    }
}
