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
//! CRLF or LF, a file whose tags are all HTML-escaped (`&lt;CALL:5&gt;`, as QRZ's logbook
//! download delivers it) decoded before parsing, header fields written without header text,
//! text that is no tag skipped wherever it stands (LoTW's remark in
//! `<MY_STATE:2>WI // Wisconsin`, a `<3` or a lone `<` between fields, as World Radio League's
//! and RUMlog's exports have), lengths counted in UTF-8 bytes (as ADIF says) or in characters
//! (as many loggers write them), and `<EOF>` or `<APP_LoTW_EOF>` at the end. A length that
//! fits no reading, or a field tag without a length, costs its field, named in
//! [`Record::problems`], and not the record.
//!
//! UTF-16 (told by its byte order mark, or by the NUL bytes of its ASCII characters) is
//! decoded to UTF-8 as it streams. Any other ADI file is parsed as its own bytes, and each
//! value is decoded on its own: UTF-8 when it is, else Windows-1252, which older Windows
//! loggers write, and DXKeeper beside UTF-8 in one file; so a length counted in bytes counts
//! the bytes the writer wrote, whichever of the two a record is in. ADX goes through
//! quick-xml, which takes UTF-8 only: there each byte that is no part of UTF-8 is read as
//! Windows-1252.

mod adi;
mod adx;

use std::io::{self, BufRead, Read};

use super::decode::{Decoded, Decoding, Prefixed, encoding, head, read_buffered, value_text};
use super::{FieldProblem, Record};

/// The longest value read; anything longer is a damaged length count, not a real value.
const MAX_VALUE: usize = 1 << 20;
/// The most fields in one record; more means the `<EOR>`s are missing.
const MAX_FIELDS: usize = 1000;
/// How much of the raw file the encoding is told from, at most.
const RAW_SNIFF: usize = 4096;
/// The longest ADI tag (`<NAME:LENGTH:TYPE>`) or XML tag taken as a tag.
const MAX_TAG: usize = 4096;
/// How much of a stray text an error message quotes.
const PREVIEW: usize = 40;
/// How far past a value the reader looks for the next tag, to judge which length count fits.
const LOOKAHEAD: usize = 4096;

/// The encoding of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Tagged text, `<CALL:5>K1ABC ... <EOR>`.
    Adi,
    /// XML, `<ADX><RECORDS><RECORD><CALL>K1ABC</CALL>...`.
    Adx,
}

/// An error that makes the rest of the file unreadable or one record unreadable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message} (at byte {offset})")]
pub struct ReadError {
    /// The 1-based number of the record being read when the error was found; 0 when the
    /// error concerns the header or the file as a whole.
    pub record: u64,
    /// The byte offset in the file where the problem is. It counts the bytes the tags were
    /// read from: the file's own for ADI in UTF-8 or Windows-1252, else the file as decoded to
    /// UTF-8 (UTF-16; ADX with Windows-1252 bytes) and, for an HTML-escaped file, after the
    /// entities were decoded.
    pub offset: u64,
    /// What is wrong and what to fix; it begins with "record N" when `record` is not 0.
    pub message: String,
}

/// Reads the records of an ADI or ADX file one at a time; see the module docs for what it
/// accepts and how it recovers from a damaged record.
pub struct Reader<R: BufRead> {
    body: Body<R>,
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
    /// Sniffs the encoding and then the format from the first bytes (ADX when the first
    /// non-blank text is `<?xml` or `<ADX`; a byte order mark is skipped) and reads the header
    /// if any.
    ///
    /// Fails, with `record` 0, for a file that is empty, binary or holds no ADIF tag, and for
    /// a header that does not end with `<EOH>` (ADX: that is not well formed).
    pub fn new(input: R) -> Result<Self, ReadError> {
        let (input, format) = sniff(input)?;
        let body = match format {
            Format::Adi => Body::Adi(input),
            Format::Adx => {
                let mut xml = quick_xml::Reader::from_reader(input);
                let config = xml.config_mut();
                // Mismatched and stray end tags are reported by the record reader, which
                // can name the field; a lone `&` is text, as loggers write it.
                config.check_end_names = false;
                config.allow_unmatched_ends = true;
                config.allow_dangling_amp = true;
                Body::Adx(xml, Vec::new())
            }
        };
        let mut reader = Reader {
            body,
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

    /// The input, for ADI; for ADX the one under the XML parser.
    fn input(&mut self) -> &mut Input<R> {
        match &mut self.body {
            Body::Adi(input) => input,
            Body::Adx(xml, _) => xml.get_mut(),
        }
    }

    /// Bytes of the decoded file read so far.
    fn offset(&self) -> u64 {
        match &self.body {
            Body::Adi(input) => input.offset,
            Body::Adx(xml, _) => xml.get_ref().offset,
        }
    }

    fn io(&self, e: io::Error) -> IoFail {
        IoFail(ReadError {
            record: self.number,
            offset: self.offset(),
            message: format!("record {}: the file could not be read: {e}", self.number),
        })
    }

    /// An I/O error before the first record, which concerns the whole file.
    fn header_io(&self, e: io::Error) -> ReadError {
        ReadError {
            record: 0,
            offset: self.offset(),
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
            offset: self.offset(),
            message: match self.format {
                Format::Adi => "no records: the file ends before any record; ADIF records are fields ending with <EOR>".into(),
                Format::Adx => "no records: the file has no <RECORD> inside <RECORDS>".into(),
            },
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
                    let skipped = match self.format {
                        Format::Adi => self.input().skip_past(b"<eor>"),
                        Format::Adx => self.skip_record(),
                    };
                    match skipped {
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
                // A record without fields (`<EOR><EOR>`, `<RECORD/>`) is nothing to import;
                // one whose every field was lost is returned, to say what was lost.
                Ok(Some(record)) if record.fields.is_empty() && record.problems.is_empty() => {}
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

fn sniff<R: BufRead>(raw: R) -> Result<(Input<R>, Format), ReadError> {
    let whole = |message: String| ReadError {
        record: 0,
        offset: 0,
        message,
    };
    let read_failed = |e: io::Error| whole(format!("the file could not be read: {e}"));
    // The encoding first, from the raw bytes: the tags the format is told by are in it.
    let (mut raw, eof) = head(raw, |head| {
        head.len() >= RAW_SNIFF
            || head
                .iter()
                .position(|&b| b == b'<')
                .is_some_and(|p| head.len() >= p + 8)
    })
    .map_err(read_failed)?;
    let (how, skip) = encoding(&raw.head);
    if matches!(how, Decoding::Bytes) {
        // Only a file that is not UTF-16 can be told binary by its bytes.
        let end = raw
            .head
            .iter()
            .position(|&b| b == b'<')
            .into_iter()
            .chain(find_escaped_lt(&raw.head))
            .min()
            .unwrap_or(raw.head.len());
        let before = &raw.head[skip..end.max(skip)];
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
    }
    raw.pos = skip;
    if eof && raw.head[skip..].iter().all(|&b| is_blank(b)) {
        return Err(whole("the file is empty".into()));
    }
    let decoded = Decoded::new(raw, how);
    let mut sniffed = Sniffed::default();
    let (mut decoded, eof) = head(decoded, |head| sniffed.enough(head)).map_err(read_failed)?;
    let body = &decoded.head[..];
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
    if format == Format::Adx {
        let read = &decoded.head[decoded.pos..];
        decoded.head = decoded.rest.lenient(read);
        decoded.pos = 0;
    }
    let src = if entities {
        Source::Unescaped(Unescaped {
            inner: decoded,
            out: Vec::new(),
            pos: 0,
            pending: Vec::new(),
        })
    } else {
        Source::Plain(decoded)
    };
    Ok((
        Input {
            src,
            back: Vec::new(),
            back_pos: 0,
            offset: skip as u64,
            markup_run: 0,
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
    // An <EOH> counts as much: a header value whose count runs over it (Cloudlog's
    // `<PROGRAMVERSION:22>Version 0.1`) would otherwise take the header's end with it.
    [b"<eor>", b"<eoh>"]
        .iter()
        .filter_map(|end| {
            let mut from = 0;
            while let Some(p) = find_ci(&value[from..], *end).map(|p| p + from) {
                let rest = &value[p + 5..];
                match rest.iter().find(|&&b| !is_blank(b)) {
                    None | Some(b'<') => return Some(p),
                    Some(_) => from = p + 5,
                }
            }
            None
        })
        .min()
}

/// Where `needle` (ASCII) first occurs in `hay`, compared without case.
fn find_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
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
pub fn unescape(s: &str) -> String {
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

fn attr<'a>(attrs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.trim())
        .filter(|v| !v.is_empty())
}

/// How well a value reading fits; greater is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Fit {
    /// Text follows the value before the next tag.
    Text,
    /// A blank, then text.
    Remark,
    /// Only blanks up to the next tag, or the end of the file.
    Clean,
}

/// Why a value reading cannot be the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Misfit {
    PastEnd,
    SplitsCharacter,
    IntoTag,
    TakesEor,
}

impl Misfit {
    fn says(self) -> &'static str {
        match self {
            Misfit::PastEnd => "runs past the end of the file",
            Misfit::SplitsCharacter => "ends inside a character",
            Misfit::IntoTag => "runs into the next tag",
            Misfit::TakesEor => "takes in the <EOR> or <EOH> that ends the record or header",
        }
    }
}

/// How the value `buf[..end]` fits, `buf` holding what follows up to the next `<` (`stop`
/// says whether that `<` or the end of the file was reached); `complete` is false when the
/// file ended before `end`.
fn fit(buf: &[u8], end: usize, stop: Until, complete: bool) -> Result<Fit, Misfit> {
    if !complete || end > buf.len() {
        return Err(Misfit::PastEnd);
    }
    if buf.get(end).is_some_and(|&b| continuation(b)) {
        return Err(Misfit::SplitsCharacter);
    }
    let (value, after) = buf.split_at(end);
    if swallowed_eor(value).is_some() {
        return Err(Misfit::TakesEor);
    }
    if let Some(open) = value.iter().rposition(|&b| b == b'<')
        && !value[open..].contains(&b'>')
        && let Some(close) = after.iter().position(|&b| b == b'>' || b == b'<')
        && after[close] == b'>'
    {
        let mut tag = value[open + 1..].to_vec();
        tag.extend_from_slice(&after[..close]);
        if matches!(parse_tag(&tag), Tag::Field { .. } | Tag::Eor | Tag::Eoh) {
            return Err(Misfit::IntoTag);
        }
    }
    let text_after = after
        .iter()
        .position(|&b| b == b'<')
        .map_or(after, |p| &after[..p]);
    let blank = text_after.iter().all(|&b| is_blank(b));
    let reached = after.contains(&b'<') || stop != Until::Limit;
    Ok(match text_after.first() {
        _ if blank && reached => Fit::Clean,
        Some(&b) if is_blank(b) => Fit::Remark,
        _ => Fit::Text,
    })
}

/// Where a value of `len` characters ends in `buf` when each bare LF counts as the CRLF it was;
/// `utf8` when a character is UTF-8's, else each byte is one.
fn crlf_counted_end(buf: &[u8], len: usize, utf8: bool) -> Option<usize> {
    let mut count = 0;
    let mut bare_lf = false;
    for (i, &b) in buf.iter().enumerate() {
        if utf8 && continuation(b) {
            continue;
        }
        if count == len {
            return bare_lf.then_some(i);
        }
        let bare = b == b'\n' && (i == 0 || buf[i - 1] != b'\r');
        bare_lf |= bare;
        count += if bare { 2 } else { 1 };
        if count > len {
            return None;
        }
    }
    (count == len && bare_lf).then_some(buf.len())
}

fn continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// Whether a tag's name is one a field could have (letters, digits and underscores, beginning
/// with a letter), so that `<CALL>` is taken for a field written without its length and `<3>`
/// for text.
fn field_name(name: &str) -> bool {
    name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `<EOF>` and LoTW's `<APP_LoTW_EOF>`, which end a file rather than a record.
fn end_of_file(name: &str) -> bool {
    name.eq_ignore_ascii_case("EOF") || name.eq_ignore_ascii_case("APP_LOTW_EOF")
}

/// A field value as read.
enum Value {
    /// Read, perhaps with a remark on it.
    Read {
        text: String,
        problem: Option<FieldProblem>,
    },
    /// Its length fits no reading; the field is left out.
    Lost(FieldProblem),
    /// The file ends before the value does, however its length is counted; `got` bytes of
    /// it were there.
    PastEnd { got: usize },
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
    /// Not a tag: a `<` in text.
    Bad,
}

/// The parts of an ADI tag's text (between `<` and `>`).
fn parse_tag(raw: &[u8]) -> Tag {
    let Ok(s) = std::str::from_utf8(raw) else {
        return Tag::Bad;
    };
    let mut parts = s.split(':');
    let name = parts.next().unwrap_or_default().trim();
    let valid_name = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_graphic() && !matches!(b, b'<' | b'>' | b',' | b'{' | b'}'));
    if !valid_name {
        return Tag::Bad;
    }
    let len = parts.next();
    let kind = parts.next();
    // The data type indicator (`<QSO_DATE:8:D>`) adds nothing the value does not say.
    if parts.next().is_some() || kind.is_some_and(|k| k.contains(char::is_whitespace)) {
        return Tag::Bad;
    }
    match len {
        None if name.eq_ignore_ascii_case("EOR") => Tag::Eor,
        None if name.eq_ignore_ascii_case("EOH") => Tag::Eoh,
        None => Tag::NoLength(name.to_owned()),
        Some(len) => {
            let len = len.trim();
            if len.is_empty() || !len.bytes().all(|b| b.is_ascii_digit()) {
                return Tag::Bad;
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

#[derive(Debug, Clone, Copy, PartialEq)]
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
    /// A reference to an entity XML does not define (`&xxe;`): ADX defines none of its own,
    /// and svc expands none a DOCTYPE declares, so the value it stands in cannot be read.
    Undefined(String),
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
        read_buffered(self, buf)
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

/// The file as UTF-8, its first bytes read while sniffing served again.
type Text<R> = Prefixed<Decoded<R>>;

/// The input as the format's parser reads it.
enum Body<R> {
    Adi(Input<R>),
    Adx(quick_xml::Reader<Input<R>>, Vec<u8>),
}

enum Source<R> {
    Plain(Text<R>),
    Unescaped(Unescaped<Text<R>>),
}

/// The input as the parsers see it: the (decoded) bytes, the offset of the next one, and
/// bytes handed back to be read again.
struct Input<R> {
    src: Source<R>,
    back: Vec<u8>,
    back_pos: usize,
    offset: u64,
    /// Bytes read since the last `<` or `>`, to stop the XML parser from buffering a value
    /// without end.
    markup_run: usize,
}

/// Longer than any tag or value: a run of this many bytes without `<` or `>` in an XML file
/// is a damaged file the XML parser would otherwise hold whole.
const MAX_MARKUP_RUN: usize = MAX_VALUE + MAX_TAG;

impl<R: BufRead> BufRead for Input<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.markup_run > MAX_MARKUP_RUN {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "more than 1 MiB without a tag; values are at most 1 MiB",
            ));
        }
        self.chunk()
    }

    fn consume(&mut self, n: usize) {
        let run = match self.chunk() {
            Ok(chunk) => match chunk[..n.min(chunk.len())]
                .iter()
                .rposition(|&b| b == b'<' || b == b'>')
            {
                Some(p) => n - p - 1,
                None => self.markup_run + n,
            },
            Err(_) => self.markup_run + n,
        };
        self.markup_run = run;
        self.advance(n);
    }
}

impl<R: BufRead> Read for Input<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, buf)
    }
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

    /// Whether a length may count bytes: not in a file decoded from UTF-16, where the bytes
    /// of the UTF-8 text are no count any writer made.
    fn counts_bytes(&self) -> bool {
        let decoded = match &self.src {
            Source::Plain(p) => &p.rest,
            Source::Unescaped(u) => &u.inner.rest,
        };
        decoded.keeps_bytes()
    }

    /// Moves `len` characters (fewer at the end of the file) into `out`; false when the file
    /// ends first.
    fn read_chars(&mut self, len: usize, out: &mut Vec<u8>) -> io::Result<bool> {
        let mut chars = 0;
        while chars < len {
            let from = out.len();
            if self.read_n(len - chars, out)? == 0 {
                return Ok(false);
            }
            chars += out[from..].iter().filter(|&&b| !continuation(b)).count();
        }
        while let Some(b) = self.peek()? {
            if !continuation(b) {
                break;
            }
            out.push(b);
            self.advance(1);
        }
        Ok(true)
    }

    /// Reads the value of field `name`, whose tag says `len`, after its tag. Writers count
    /// either UTF-8 bytes (as ADIF says) or characters, so both readings are tried: one that
    /// would end inside a tag, take in the `<EOR>`, run past the end or split a character
    /// does not fit; of two that fit, the one followed by nothing but blanks up to the next
    /// tag wins, then the one followed by a blank, then the count in bytes.
    fn adi_value(&mut self, name: &str, len: u64) -> io::Result<Value> {
        let name = name.to_ascii_uppercase();
        let dropped = |why: String| {
            Value::Lost(FieldProblem {
                message: format!("{name}: length {len} {why}; the field was dropped"),
                field: name.clone(),
            })
        };
        let Ok(len) = usize::try_from(len) else {
            return Ok(dropped("is too large to be a value's length".into()));
        };
        if len > MAX_VALUE {
            return Ok(dropped(
                "is over 1 MiB, longer than any value, so the count is wrong".into(),
            ));
        }
        let mut buf = Vec::new();
        let all_chars = self.read_chars(len, &mut buf)?;
        let mut chars_end = buf.len();
        // Characters were counted as UTF-8's. A value that is not UTF-8 is Windows-1252
        // (`value_text`), a character a byte: its count in characters is its count in bytes.
        if all_chars && chars_end > len && std::str::from_utf8(&buf[..chars_end]).is_err() {
            chars_end = len;
        }
        let ahead = buf.len() + LOOKAHEAD;
        let stop = self.read_until(|b| b == b'<', ahead, &mut buf)?;
        let by_chars = fit(&buf, chars_end, stop, all_chars);
        let by_bytes = if self.counts_bytes() && (len != chars_end || !all_chars) {
            Some(fit(&buf, len, stop, len <= buf.len()))
        } else {
            None
        };
        let chosen = match (&by_bytes, &by_chars) {
            (Some(Ok(b)), Ok(c)) => Some(if c > b { chars_end } else { len }),
            (Some(Ok(_)), Err(_)) => Some(len),
            (_, Ok(_)) => Some(chars_end),
            (Some(Err(_)) | None, Err(_)) => None,
        };
        let chosen = chosen.or_else(|| {
            // A file whose CRLF line breaks became LF on the way (a git checkout, an FTP text
            // transfer) keeps the counts made with CRLF: one short for each line break. The
            // count is of UTF-8's characters, or of bytes where those make no UTF-8.
            let end = crlf_counted_end(&buf, len, true)
                .filter(|&end| std::str::from_utf8(&buf[..end]).is_ok())
                .or_else(|| crlf_counted_end(&buf, len, false))?;
            (fit(&buf, end, stop, true) == Ok(Fit::Clean)).then_some(end)
        });
        let Some(end) = chosen else {
            let past_end = |f: &Result<Fit, Misfit>| matches!(f, Err(Misfit::PastEnd));
            if past_end(&by_chars) && by_bytes.as_ref().is_none_or(past_end) {
                return Ok(Value::PastEnd {
                    got: buf.len().min(len),
                });
            }
            // Reading on after the tag: what was taken for the value is skipped as text
            // up to the tag that follows.
            self.unread(&buf);
            let why = match (by_bytes, by_chars) {
                (Some(Err(b)), Err(c)) if b != c => format!(
                    "does not fit: counted in bytes it {}, counted in characters it {}",
                    b.says(),
                    c.says()
                ),
                (_, Err(c)) => c.says().to_owned(),
                // Unreachable by `chosen`, but a message is cheaper than a panic.
                _ => "does not fit".to_owned(),
            };
            return Ok(dropped(why));
        };
        let trailing: Vec<u8> = buf[end..]
            .iter()
            .copied()
            .take_while(|&b| b != b'<')
            .take(PREVIEW)
            .collect();
        self.unread(&buf[end..]);
        buf.truncate(end);
        let value = value_text(buf);
        // A remark after a value is set off by a blank; text right after it means the count
        // is probably too short, which the import should be able to say.
        let problem = match trailing.first() {
            Some(&b) if !is_blank(b) => Some(FieldProblem {
                message: format!(
                    "{name}: length {len} leaves {:?} before the next tag; the value was kept as {:?}",
                    preview(&value_text(trailing.clone())),
                    preview(&value)
                ),
                field: name.clone(),
            }),
            _ => None,
        };
        Ok(Value::Read {
            text: value,
            problem,
        })
    }

    /// Reads an ADI tag at a `<`; `None` when the file ends inside it.
    fn adi_tag(&mut self) -> io::Result<Option<Tag>> {
        self.advance(1);
        let mut raw = Vec::new();
        match self.read_until(|b| b == b'>' || b == b'<', MAX_TAG, &mut raw)? {
            Until::Eof => Ok(None),
            Until::Limit => Ok(Some(Tag::Bad)),
            Until::Found => {
                if self.peek()? == Some(b'<') {
                    // Another tag begins before this one closed.
                    return Ok(Some(Tag::Bad));
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
        // The files other loggers wrote, kept at the workspace's root for the integration
        // tests too.
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/adif")
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
    fn loggers_quirks_in_fixture_files() {
        let (header, recs) = records("lotw.adi");
        assert_eq!(header.get("PROGRAMID"), Some("LoTW"));
        assert_eq!(recs.len(), 2, "<APP_LoTW_EOF> is no record");
        assert_eq!(recs[0].get("MY_STATE"), Some("WI"));
        assert_eq!(recs[0].get("QSO_DATE"), Some("20261101"));
        assert_eq!(recs[0].get("APP_LOTW_RXQSL"), Some("2026-11-02 08:00:00"));

        let (_, recs) = records("windows1252.adi");
        assert_eq!(recs[0].get("NAME"), Some("O\u{2019}Brien"));
        assert_eq!(recs[0].get("QTH"), Some("Dún Laoghaire"));

        let (_, recs) = records("chars.adi");
        let names: Vec<_> = recs.iter().map(|r| r.get("NAME").unwrap()).collect();
        assert_eq!(names, ["Søren Ø", "山田 太郎", "Paweł 🎉"]);
        assert_eq!(recs[2].get("QTH"), Some("Łódź"));

        let reader = open(corpus("hrd_utf16.adx")).unwrap();
        assert_eq!(reader.format(), Format::Adx);
        assert_eq!(reader.header().get("PROGRAMID"), Some("HRD Logbook"));
        let (_, recs) = records("hrd_utf16.adx");
        assert_eq!(recs[0].get("NAME_INTL"), Some("Paweł"));
        assert_eq!(recs[0].get("APP_HRD_AWARD"), Some("WAE & DXCC"));

        for name in ["lotw.adi", "windows1252.adi", "chars.adi", "hrd_utf16.adx"] {
            let (_, recs) = records(name);
            assert!(
                recs.iter().all(|r| r.problems.is_empty()),
                "{name}: {recs:?}"
            );
        }
    }

    #[test]
    fn sloppy_fixture_files_lose_no_record() {
        // Written for these tests after what RUMlog, DXKeeper and Ham Radio Deluxe write.
        let (header, recs) = records("stray_lt.adi");
        assert_eq!(header.get("PROGRAMID"), Some("RUMlogNG"));
        let calls: Vec<_> = recs.iter().map(|r| r.get("CALL").unwrap()).collect();
        assert_eq!(calls, ["M6MAU", "OR75USL", "DH5LA", "K1AB", "W1XY"]);
        assert!(recs.iter().all(|r| r.get("TIME_ON").is_some()));
        assert_eq!(recs[0].get("COMMENT"), Some("great op!"));
        assert_eq!(recs[1].get("QSL_VIA"), Some("ON4GDA"));
        assert_eq!(recs[2].get("RST_SENT"), Some("59"));

        let (_, recs) = records("dxkeeper_mixed.adi");
        let names: Vec<_> = recs.iter().map(|r| r.get("NAME").unwrap()).collect();
        assert_eq!(names, ["Müller", "Müller", "O\u{2019}Brien"]);
        assert_eq!(recs[0].get("QTH"), Some("Köln"));
        assert_eq!(recs[1].get("QTH"), Some("Köln"));

        // The reader keeps control characters: what a contact can take is the import's call.
        let (_, recs) = records("hrd_control.adx");
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].get("NAME"), Some("J\u{1b}rgen"));
        assert_eq!(recs[1].get("NAME"), Some("Pawe\u{3}"));

        for name in ["stray_lt.adi", "dxkeeper_mixed.adi", "hrd_control.adx"] {
            let (_, recs) = records(name);
            assert!(
                recs.iter().all(|r| r.problems.is_empty()),
                "{name}: {recs:?}"
            );
        }
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
    fn a_wrong_length_costs_its_field_not_the_record() {
        let (_, items) = read_all(corpus("wrong_length.adi"));
        let recs: Vec<&Record> = items.iter().map(|i| i.as_ref().unwrap()).collect();
        let calls: Vec<_> = recs.iter().map(|r| r.get("CALL").unwrap_or("-")).collect();
        assert_eq!(calls, ["K1ABC", "W2BAD", "W9XYZ", "-", "K5BAD", "N0AA"]);
        let problems = |i: usize| -> Vec<&str> {
            recs[i]
                .problems
                .iter()
                .map(|p| p.message.as_str())
                .collect()
        };
        // Too long, swallowing the <EOR>: the record keeps its other fields.
        assert_eq!(
            problems(1),
            [
                "COMMENT: length 40 takes in the <EOR> or <EOH> that ends the record or header; the field was dropped"
            ]
        );
        assert_eq!(recs[1].get("MODE"), Some("CW"));
        assert_eq!(recs[1].get("COMMENT"), None);
        // Too long, running into the next tag, which is still read.
        assert_eq!(
            problems(3),
            ["CALL: length 8 runs into the next tag; the field was dropped"]
        );
        assert_eq!(recs[3].problems[0].field, "CALL");
        assert_eq!(recs[3].get("GRIDSQUARE"), Some("EM73"));
        // Too short: the value is its length, and the text left over is named.
        assert_eq!(recs[4].get("NAME"), Some("Rob"));
        assert_eq!(
            problems(4),
            ["NAME: length 3 leaves \"ert\" before the next tag; the value was kept as \"Rob\""]
        );
        assert!(recs[0].problems.is_empty() && recs[5].problems.is_empty());
    }

    #[test]
    fn text_after_values_and_between_records_is_skipped() {
        let lotw = b"ARRL Logbook of the World Status Report\n<PROGRAMID:4>LoTW\n<eoh>\n\
            <APP_LoTW_OWNCALL:4>W9XX\n<CALL:5>K1ABC\n<MY_STATE:2>WI // Wisconsin\n\
            <APP_LoTW_RXQSL:19>2023-01-01 00:00:00 // QSL record inserted\n<eor>\n\
            // between records\n<CALL:4>N0AA <eor>\n";
        let (header, items) = read_all(lotw.to_vec());
        assert_eq!(header.get("PROGRAMID"), Some("LoTW"));
        let recs: Vec<Record> = items.into_iter().map(Result::unwrap).collect();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].get("MY_STATE"), Some("WI"));
        assert_eq!(recs[0].get("APP_LOTW_RXQSL"), Some("2023-01-01 00:00:00"));
        assert!(recs[0].problems.is_empty(), "{:?}", recs[0].problems);
        assert_eq!(recs[1].get("CALL"), Some("N0AA"));
    }

    #[test]
    fn utf8_lengths_counted_in_characters() {
        // QRZ.com, Log4OM, HAMRS, N1MM+ and others count characters.
        let file = "<CALL:6>DL1ABC <NAME:12>Jürgen Øster <QTH:4>Köln <COMMENT:3>日本語 <EOR>\n\
            <CALL:4>N0AA <NAME:4>Zoë!<EOR>\n";
        let (_, items) = read_all(file.as_bytes().to_vec());
        let recs: Vec<Record> = items.into_iter().map(Result::unwrap).collect();
        assert_eq!(recs[0].get("NAME"), Some("Jürgen Øster"));
        assert_eq!(recs[0].get("QTH"), Some("Köln"));
        assert_eq!(recs[0].get("COMMENT"), Some("日本語"));
        assert!(recs[0].problems.is_empty(), "{:?}", recs[0].problems);
        assert_eq!(recs[1].get("NAME"), Some("Zoë!"));
    }

    #[test]
    fn utf8_lengths_counted_in_bytes() {
        // DXKeeper, Logger32 and HRD count bytes, as ADIF says.
        let file = "<CALL:6>DL1ABC <NAME:14>Jürgen Øster <QTH:5>Köln <COMMENT:9>日本語 <EOR>\n\
            <NAME:5>Zoë!<CALL:4>N0AA<EOR>\n";
        let (_, items) = read_all(file.as_bytes().to_vec());
        let recs: Vec<Record> = items.into_iter().map(Result::unwrap).collect();
        assert_eq!(recs[0].get("NAME"), Some("Jürgen Øster"));
        assert_eq!(recs[0].get("QTH"), Some("Köln"));
        assert_eq!(recs[0].get("COMMENT"), Some("日本語"));
        assert!(recs[0].problems.is_empty(), "{:?}", recs[0].problems);
        assert_eq!(recs[1].get("NAME"), Some("Zoë!"));
        // Both readings fit; the one after which only blanks come wins.
        let (_, items) = read_all("<CALL:4>N0AA <NAME:5>Zoë S <EOR>".as_bytes().to_vec());
        assert_eq!(items[0].as_ref().unwrap().get("NAME"), Some("Zoë S"));
        let (_, items) = read_all("<CALL:4>N0AA <NAME:4>Zoë <EOR>".as_bytes().to_vec());
        assert_eq!(items[0].as_ref().unwrap().get("NAME"), Some("Zoë"));
    }

    #[test]
    fn a_length_that_fits_neither_way_costs_one_field() {
        // 40 neither as bytes nor as characters: it runs into <CALL:4>.
        let file = "<NAME:3>Søren<ADDRESS:40>Nørregade 1, København<CALL:5>OZ1AB <EOR>\n\
            <CALL:4>N0AA <NAME:2>Ø <EOR>";
        let (_, items) = read_all(file.as_bytes().to_vec());
        let recs: Vec<Record> = items.into_iter().map(Result::unwrap).collect();
        assert_eq!(recs[0].get("CALL"), Some("OZ1AB"));
        assert_eq!(recs[0].get("ADDRESS"), None);
        let messages: Vec<_> = recs[0].problems.iter().map(|p| &p.message).collect();
        assert_eq!(
            messages,
            [
                "NAME: length 3 leaves \"ren\" before the next tag; the value was kept as \"Sø\"",
                "ADDRESS: length 40 runs into the next tag; the field was dropped"
            ]
        );
        assert_eq!(recs[1].get("NAME"), Some("Ø"));
        // Counted in bytes, 1 splits the Ø, so it counts characters.
        let (_, items) = read_all("<CALL:4>N0AA <NAME:1>Ø<EOR>".as_bytes().to_vec());
        let r = items[0].as_ref().unwrap();
        assert_eq!(r.get("CALL"), Some("N0AA"));
        assert_eq!(r.get("NAME"), Some("Ø"));
        let (_, items) = read_all("<CALL:4>N0AA <NAME:8>Ø<EOR>\n".as_bytes().to_vec());
        let r = items[0].as_ref().unwrap();
        assert_eq!(r.get("CALL"), Some("N0AA"));
        assert_eq!(
            r.problems[0].message,
            "NAME: length 8 does not fit: counted in bytes it takes in the <EOR> or <EOH> that ends the record or header, counted in characters it runs past the end of the file; the field was dropped"
        );
    }

    #[test]
    fn windows_1252_files() {
        let mut bytes = b"DXKeeper export\n<EOH>\n<CALL:5>EI1AB <NAME:7>O".to_vec();
        bytes.push(0x92);
        bytes.extend_from_slice(b"Brien <QTH:6>K");
        bytes.push(0xF6);
        bytes.extend_from_slice(b"ln 1 <EOR>\n");
        let (_, items) = read_all(bytes);
        let r = items[0].as_ref().unwrap();
        assert_eq!(r.get("NAME"), Some("O\u{2019}Brien"));
        assert_eq!(r.get("QTH"), Some("Köln 1"));
        assert!(r.problems.is_empty(), "{:?}", r.problems);
    }

    #[test]
    fn each_value_is_utf8_or_windows_1252_on_its_own() {
        // DXKeeper writes records of both kinds into one file, its lengths counting bytes.
        // The Windows-1252 record comes first, where it used to decide the whole file.
        let mut file =
            b"DXKeeper\n<EOH>\n<CALL:5>DL1AB <NAME:6>M\xFCller <QTH:4>K\xF6ln <EOR>\n".to_vec();
        file.extend_from_slice("<CALL:5>DL2CD <NAME:7>Müller <QTH:5>Köln <EOR>\n".as_bytes());
        file.extend_from_slice(b"<CALL:5>DL3EF <NAME:6>M\xFCller<EOR>\n");
        // Characters counted, as QRZ.com and Log4OM count them.
        file.extend_from_slice("<CALL:5>DL4GH <NAME:6>Müller<EOR>\n".as_bytes());
        // Windows-1252 bytes that UTF-8 would take for a character's continuation bytes
        // (’, ©, ±) count one character each.
        file.extend_from_slice(b"<CALL:5>EI1AB <NAME:7>O\x92Brien<COMMENT:8>\xA9 2026 \xB1<EOR>\n");
        let (_, items) = read_all(file);
        let recs: Vec<Record> = items.into_iter().map(Result::unwrap).collect();
        let names: Vec<_> = recs.iter().map(|r| r.get("NAME").unwrap()).collect();
        assert_eq!(
            names,
            ["Müller", "Müller", "Müller", "Müller", "O\u{2019}Brien"]
        );
        assert_eq!(recs[0].get("QTH"), Some("Köln"));
        assert_eq!(recs[1].get("QTH"), Some("Köln"));
        assert_eq!(recs[4].get("COMMENT"), Some("© 2026 ±"));
        assert!(recs.iter().all(|r| r.problems.is_empty()), "{recs:?}");

        // A multi-line Windows-1252 value counted with CRLF whose line breaks became LF.
        let (_, items) = read_all(b"<CALL:4>N0AA <ADDRESS:13>\xA92 Road\nTown<EOR>".to_vec());
        let r = items[0].as_ref().unwrap();
        assert_eq!(r.get("ADDRESS"), Some("©2 Road\nTown"));
        assert!(r.problems.is_empty(), "{:?}", r.problems);

        // UTF-16 is decoded as a whole, as before: its lengths count characters.
        let (_, items) = read_all(utf16("<CALL:5>DL1AB <NAME:6>Müller <EOR>", false, true));
        assert_eq!(items[0].as_ref().unwrap().get("NAME"), Some("Müller"));

        // ADX, which the XML parser takes as UTF-8: a byte that is no part of it is
        // Windows-1252's.
        let mut adx =
            b"<?xml version=\"1.0\"?><ADX><RECORDS><RECORD><NAME>M\xFCller</NAME></RECORD>"
                .to_vec();
        adx.extend_from_slice("<RECORD><NAME>Müller</NAME></RECORD></RECORDS></ADX>".as_bytes());
        // In small chunks, and whole (then every byte was read while the format was told).
        let whole = Reader::new(adx.as_slice()).unwrap().collect::<Vec<_>>();
        for items in [read_all(adx.clone()).1, whole] {
            let names: Vec<_> = items
                .iter()
                .map(|i| i.as_ref().unwrap().get("NAME").unwrap())
                .collect();
            assert_eq!(names, ["Müller", "Müller"]);
        }
    }

    fn utf16(text: &str, big_endian: bool, bom: bool) -> Vec<u8> {
        let mut out = Vec::new();
        let units = bom.then_some(0xFEFF).into_iter().chain(text.encode_utf16());
        for unit in units {
            let bytes = if big_endian {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            };
            out.extend_from_slice(&bytes);
        }
        out
    }

    #[test]
    fn utf16_files_with_and_without_bom() {
        let adx = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\r\n<ADX><HEADER><PROGRAMID>HRD Logbook</PROGRAMID></HEADER>\
            <RECORDS><RECORD><CALL>SP5ABC</CALL><NAME>Paweł 🎉</NAME></RECORD></RECORDS></ADX>";
        let adi = "HRD\r\n<EOH>\r\n<CALL:6>SP5ABC <NAME:7>Paweł 🎉 <EOR>\r\n";
        for (big_endian, bom) in [(false, true), (false, false), (true, true), (true, false)] {
            for (text, format) in [(adx, Format::Adx), (adi, Format::Adi)] {
                let reader = open(utf16(text, big_endian, bom)).unwrap();
                assert_eq!(reader.format(), format);
                let recs: Vec<Record> = reader.map(Result::unwrap).collect();
                assert_eq!(recs.len(), 1, "{text}");
                assert_eq!(recs[0].get("CALL"), Some("SP5ABC"));
                assert_eq!(recs[0].get("NAME"), Some("Paweł 🎉"));
            }
        }
    }

    #[test]
    fn utf8_bom() {
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice("<?xml version=\"1.0\"?><ADX><RECORDS><RECORD><NAME>Åsa</NAME></RECORD></RECORDS></ADX>".as_bytes());
        let (_, items) = read_all(bytes);
        assert_eq!(items[0].as_ref().unwrap().get("NAME"), Some("Åsa"));
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice("<NAME:3>Åsa <EOR>".as_bytes());
        let (_, items) = read_all(bytes);
        assert_eq!(items[0].as_ref().unwrap().get("NAME"), Some("Åsa"));
    }

    #[test]
    fn adx_app_userdef_intl_cdata_and_entities() {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ADX><HEADER><ADIF_VER>3.1.7</ADIF_VER></HEADER><RECORDS>\n\
            <RECORD><CALL>OZ1AB</CALL><NAME>Soren</NAME><NAME_INTL>Søren</NAME_INTL>\
            <COMMENT_INTL><![CDATA[<b>Hej</b> & tak]]></COMMENT_INTL>\
            <APP PROGRAMID=\"N1MM\" FIELDNAME=\"EXCHANGE1\" TYPE=\"S\">5NN &amp; 14</APP>\
            <USERDEF FIELDNAME=\"SweaterSize\">M</USERDEF>\
            <NOTES>a &lt;b&gt; &#x263A; &#66; Tom & Jerry\r\nline 2</NOTES><QTH>near &unknown;</QTH></RECORD>\n\
            </RECORDS></ADX>";
        let (_, items) = read_all(xml.as_bytes().to_vec());
        let r = items[0].as_ref().unwrap();
        assert_eq!(r.get("NAME"), Some("Soren"));
        assert_eq!(r.get("NAME_INTL"), Some("Søren"));
        assert_eq!(r.get("COMMENT_INTL"), Some("<b>Hej</b> & tak"));
        assert_eq!(r.get("APP_N1MM_EXCHANGE1"), Some("5NN & 14"));
        assert_eq!(r.get("SWEATERSIZE"), Some("M"));
        assert_eq!(
            r.get("NOTES"),
            Some("a <b> \u{263A} B Tom & Jerry\r\nline 2")
        );
        // An entity XML does not define is never kept as its text: the field is named.
        assert_eq!(r.get("QTH"), None);
        assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
        assert_eq!(r.problems[0].field, "QTH");
        assert!(
            r.problems[0]
                .message
                .starts_with("QTH: &unknown; is not an entity ADX defines"),
            "{}",
            r.problems[0].message
        );
    }

    #[test]
    fn end_of_file_marks_are_no_records() {
        for end in [
            "<EOF>",
            "<eof>",
            "<APP_LoTW_EOF>",
            "<app_lotw_eof>\n",
            "<APP_LoTW_EOF:0>",
        ] {
            let file = format!("x\n<EOH>\n<CALL:4>N0AA <EOR>\n\n{end}");
            let (_, items) = read_all(file.into_bytes());
            assert_eq!(items.len(), 1, "{end}");
            assert!(items[0].is_ok(), "{end}");
        }
        let (_, items) = read_all(b"<CALL:4>N0AA <EOR>\n<APP_LoTW_EOF><EOR>".to_vec());
        assert_eq!(items.len(), 1);
        assert!(items[0].is_ok());
    }

    #[test]
    fn counts_made_with_crlf_fit_values_whose_line_breaks_became_lf() {
        let file = b"<CALL:4>N0AA <ADDRESS:36>123 My Street\nMy Town\nMy Post Code\n<EOR>";
        let (_, items) = read_all(file.to_vec());
        let r = items[0].as_ref().unwrap();
        assert_eq!(
            r.get("ADDRESS"),
            Some("123 My Street\nMy Town\nMy Post Code")
        );
        assert!(r.problems.is_empty(), "{:?}", r.problems);
    }

    #[test]
    fn crlf_and_cr_in_values_are_kept() {
        let (_, items) = read_all(b"<CALL:4>N0AA <NOTES:12>one\r\ntwo\rend <EOR>\r\n".to_vec());
        let r = items[0].as_ref().unwrap();
        assert_eq!(r.get("NOTES"), Some("one\r\ntwo\rend"));
    }

    #[test]
    fn a_tag_without_length_costs_its_field() {
        let (_, items) = read_all(corpus("no_length.adi"));
        let recs: Vec<Record> = items.into_iter().map(Result::unwrap).collect();
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[1].get("CALL"), None);
        assert_eq!(
            recs[1].get("TIME_ON"),
            Some("090100"),
            "the rest of the record"
        );
        assert_eq!(recs[1].problems.len(), 1);
        assert_eq!(recs[1].problems[0].field, "CALL");
        assert_eq!(
            recs[1].problems[0].message,
            "CALL: tag <CALL> has no length; the field was dropped (ADIF writes <CALL:5>K1ABC)"
        );
        assert_eq!(recs[2].get("CALL"), Some("N0AA"));
        assert!(recs[0].problems.is_empty() && recs[2].problems.is_empty());
        // A record whose every field was lost is still returned, to say so.
        let (_, items) = read_all(b"<CALL>K1ABC <EOR><CALL:4>N0AA <EOR>".to_vec());
        assert_eq!(items.len(), 2);
        let lost = items[0].as_ref().unwrap();
        assert!(lost.fields.is_empty());
        assert_eq!(lost.problems[0].field, "CALL");
        // A run of them is bounded as fields are.
        let mut many = b"<CALL:4>N0AA ".to_vec();
        many.extend(b"<B>".repeat(MAX_FIELDS));
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
    fn a_lt_that_starts_no_tag_is_text() {
        // What World Radio League's and RUMlog's exports are reported to have between fields:
        // a heart, an arrow, a lone `<`, a `<` at a line's end, one just before a tag, and a
        // `<` then a tag-like run with a space or a second colon. None costs a record.
        let file = "ADIF Export from RumLogNG by DL2RUM\n<PROGRAMID:8>RUMlogNG <EOH>\n\
            <call:5>K1ABC <qso_date:8>20261101 <3 great op <time_on:6>120000 <eor>\n\
            <call:4>N0AA < <qso_date:8>20261101 <time_on:4>1201 <-- <eor>\n\
            <call:4>W1AW <comment:6>73 <3 <qso_date:8>20261101 <time_on:4>1202 <<eor>\n\
            <call:5>W9XYZ <3> <a b> <x:y:z:w> <:5> <qso_date:8>20261101<time_on:4>1203 <\n\
            <eor>\n\
            <call:4>K2AB <qso_date:8>20261101 <time_on:4>1204 <eor>\n<3";
        let (header, items) = read_all(file.as_bytes().to_vec());
        assert_eq!(header.get("PROGRAMID"), Some("RUMlogNG"));
        let recs: Vec<Record> = items.into_iter().map(Result::unwrap).collect();
        let calls: Vec<_> = recs.iter().map(|r| r.get("CALL").unwrap()).collect();
        assert_eq!(calls, ["K1ABC", "N0AA", "W1AW", "W9XYZ", "K2AB"]);
        for r in &recs {
            assert_eq!(r.get("QSO_DATE"), Some("20261101"), "{r:?}");
            assert!(r.get("TIME_ON").is_some(), "{r:?}");
            assert!(r.problems.is_empty(), "{r:?}");
        }
        assert_eq!(recs[2].get("COMMENT"), Some("73 <3"));
        // A `<` inside a value is the value's.
        let (_, items) = read_all(b"<CALL:4>N0AA <COMMENT:9>I <3 CW! <EOR>".to_vec());
        assert_eq!(items[0].as_ref().unwrap().get("COMMENT"), Some("I <3 CW!"));
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
        // Text after the last record is a remark, like text between records.
        bytes.extend_from_slice(b"end of log\n");
        let (_, items) = read_all(bytes);
        assert_eq!(items.len(), 2);
        assert!(items.iter().all(|i| i.is_ok()));
    }

    #[test]
    fn memory_guards() {
        let (_, items) = read_all(b"<CALL:4>N0AA<NOTES:2000000>x<EOR><CALL:4>W1AW<EOR>".to_vec());
        let first = items[0].as_ref().unwrap();
        assert_eq!(first.get("CALL"), Some("N0AA"));
        assert!(first.problems[0].message.contains("1 MiB"), "{first:?}");
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
        let (_, items) = read_all(b"<CALL:4>N0AA<EOR>\n<CALL:5>K1ABC <EOH> <EOR>".to_vec());
        let e = items[1].as_ref().unwrap_err();
        assert_eq!(e.offset, 32);
        assert_eq!(
            e.to_string(),
            "record 2: <EOH> among the records; a file has one header, at its start (at byte 32)"
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
