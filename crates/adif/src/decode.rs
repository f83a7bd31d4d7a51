//! The bytes of a file as the reader takes them: its first bytes looked at and served again
//! ([`head`], [`Prefixed`]), UTF-16 told from them ([`encoding`], with or without a byte order
//! mark) and decoded to UTF-8 as it streams ([`Decoded`]), so memory stays flat. Any other
//! file is read as its own bytes, and each value becomes text on its own ([`value_text`]):
//! UTF-8 when it is, else Windows-1252, because DXKeeper writes records of both kinds into
//! one file. ADX's XML parser takes UTF-8 only; [`Decoded::lenient`] gives it that.

use std::io::{self, BufRead, Read};

/// How far the format is looked for before the file is called "not ADIF".
const SNIFF_LIMIT: usize = 64 * 1024;

/// Reads the start of `input` until `enough` says it decides something (or `SNIFF_LIMIT`
/// bytes or the end), keeping it to be read again; the flag is whether the input ended.
pub(super) fn head<R: BufRead>(
    mut input: R,
    mut enough: impl FnMut(&[u8]) -> bool,
) -> io::Result<(Prefixed<R>, bool)> {
    let mut head = Vec::new();
    let mut eof = false;
    while head.len() < SNIFF_LIMIT {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            eof = true;
            break;
        }
        let n = chunk.len().min(SNIFF_LIMIT - head.len());
        head.extend_from_slice(&chunk[..n]);
        input.consume(n);
        if enough(&head) {
            break;
        }
    }
    Ok((
        Prefixed {
            head,
            pos: 0,
            rest: input,
        },
        eof,
    ))
}

/// The encoding a file's first bytes show, and how many bytes of byte order mark to skip.
/// UTF-16 is told by its byte order mark or, without one, by the NUL byte that every ASCII
/// character has in it (Ham Radio Deluxe writes its ADX so); UTF-8 and Windows-1252 are
/// told apart value by value ([`value_text`]).
pub(super) fn encoding(head: &[u8]) -> (Decoding, usize) {
    if head.starts_with(b"\xEF\xBB\xBF") {
        return (Decoding::Bytes, 3);
    }
    if head.starts_with(b"\xFF\xFE") {
        return (
            Decoding::Utf16(encoding_rs::UTF_16LE.new_decoder_without_bom_handling()),
            2,
        );
    }
    if head.starts_with(b"\xFE\xFF") {
        return (
            Decoding::Utf16(encoding_rs::UTF_16BE.new_decoder_without_bom_handling()),
            2,
        );
    }
    let pairs = &head[..head.len().min(512) & !1];
    let n = pairs.len() / 2;
    let zeros = |parity: usize| {
        pairs
            .iter()
            .skip(parity)
            .step_by(2)
            .filter(|&&b| b == 0)
            .count()
    };
    let (even, odd) = (zeros(0), zeros(1));
    if n >= 2 && odd * 4 >= n * 3 && even * 8 <= n {
        return (
            Decoding::Utf16(encoding_rs::UTF_16LE.new_decoder_without_bom_handling()),
            0,
        );
    }
    if n >= 2 && even * 4 >= n * 3 && odd * 8 <= n {
        return (
            Decoding::Utf16(encoding_rs::UTF_16BE.new_decoder_without_bom_handling()),
            0,
        );
    }
    (Decoding::Bytes, 0)
}

/// The bytes read while sniffing, served again before the rest of the input.
pub(super) struct Prefixed<R> {
    pub(super) head: Vec<u8>,
    pub(super) pos: usize,
    pub(super) rest: R,
}

impl<R: BufRead> Read for Prefixed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, buf)
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

/// `Read` for a reader whose own buffer is the way in: copies what `fill_buf` holds.
pub(super) fn read_buffered(reader: &mut impl BufRead, buf: &mut [u8]) -> io::Result<usize> {
    let n = {
        let chunk = reader.fill_buf()?;
        let n = chunk.len().min(buf.len());
        buf[..n].copy_from_slice(&chunk[..n]);
        n
    };
    reader.consume(n);
    Ok(n)
}

/// How the file's bytes become what the reader parses.
pub(super) enum Decoding {
    /// As they are: ASCII, UTF-8 or Windows-1252, which [`value_text`] tells apart for each
    /// value, so that a length a writer counted in bytes counts the file's own bytes.
    Bytes,
    /// UTF-8 for ADX's XML parser, which refuses anything else: valid UTF-8 passes, and each
    /// byte that is no part of it is read as Windows-1252, so that a Windows logger's stray
    /// byte costs nothing. It holds a UTF-8 sequence begun at the end of one chunk and
    /// finished in the next.
    Lenient(Vec<u8>),
    /// UTF-16LE or UTF-16BE, decoded to UTF-8.
    Utf16(encoding_rs::Decoder),
}

/// The file as the reader parses it, a chunk at a time, UTF-16 decoded to UTF-8 as it streams
/// through.
pub(super) struct Decoded<R> {
    raw: Prefixed<R>,
    how: Decoding,
    out: Vec<u8>,
    pos: usize,
    ended: bool,
}

impl<R> Decoded<R> {
    /// `raw` decoded as `how` says, from where its reading stands.
    pub(super) fn new(raw: Prefixed<R>, how: Decoding) -> Self {
        Decoded {
            raw,
            how,
            out: Vec::new(),
            pos: 0,
            ended: false,
        }
    }

    /// Whether the bytes parsed are the file's own (not decoded from UTF-16), so that a
    /// length a writer counted in bytes counts them.
    pub(super) fn keeps_bytes(&self) -> bool {
        matches!(self.how, Decoding::Bytes)
    }

    /// Turns a file read as its own bytes into [`Decoding::Lenient`]'s UTF-8, once its format
    /// is known to be ADX: the rest as it streams, and `head`, the bytes already read from
    /// here, which are returned so. Any other file is left as it is.
    pub(super) fn lenient(&mut self, head: &[u8]) -> Vec<u8> {
        if !matches!(self.how, Decoding::Bytes) {
            return head.to_vec();
        }
        let mut carry = Vec::new();
        let mut text = Vec::with_capacity(head.len());
        lenient_utf8(&mut carry, head, false, &mut text);
        // What this layer holds still follows the head; at the end of the file nothing
        // follows it, and a sequence cut off there is flushed now.
        let mut out = Vec::with_capacity(self.out.len() - self.pos);
        lenient_utf8(&mut carry, &self.out[self.pos..], self.ended, &mut out);
        self.out = out;
        self.pos = 0;
        self.how = Decoding::Lenient(carry);
        text
    }
}

impl<R: BufRead> BufRead for Decoded<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.pos == self.out.len() && !self.ended {
            self.out.clear();
            self.pos = 0;
            let chunk = self.raw.fill_buf()?;
            let last = chunk.is_empty();
            decode(&mut self.how, chunk, last, &mut self.out);
            let n = chunk.len();
            self.raw.consume(n);
            self.ended = last;
        }
        Ok(&self.out[self.pos..])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.out.len());
    }
}

/// Appends `input` to `out` as the reader parses it; `last` when the file ended, to flush what
/// waits. A file's own bytes are copied, not lent from the layer below: the parser asks for
/// the next bytes far more often than a chunk runs out, and `out` answers that at once.
fn decode(how: &mut Decoding, input: &[u8], last: bool, out: &mut Vec<u8>) {
    match how {
        Decoding::Bytes => out.extend_from_slice(input),
        Decoding::Lenient(carry) => lenient_utf8(carry, input, last, out),
        Decoding::Utf16(decoder) => {
            let from = out.len();
            let room = decoder
                .max_utf8_buffer_length(input.len())
                .unwrap_or(input.len().saturating_mul(3).saturating_add(16));
            out.resize(from + room, 0);
            let (_, _, written, _) = decoder.decode_to_utf8(input, &mut out[from..], last);
            out.truncate(from + written);
        }
    }
}

impl<R: BufRead> Read for Decoded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, buf)
    }
}

/// A value's bytes as text: UTF-8 when they are valid UTF-8, else Windows-1252, each value
/// judged alone (DXKeeper writes records of both kinds into one file). Text of another
/// encoding is seldom valid UTF-8 once it has a byte above 0x7F, so the test rarely errs, and
/// a pure-ASCII or UTF-8 value costs only the check that its `String` needs anyway.
pub(super) fn value_text(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let (text, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(e.as_bytes());
            text.into_owned()
        }
    }
}

/// Appends `input` to `out` as UTF-8, each byte that is no part of valid UTF-8 read as
/// Windows-1252; `last` when the file ended, to flush what waits in `carry`.
fn lenient_utf8(carry: &mut Vec<u8>, input: &[u8], last: bool, out: &mut Vec<u8>) {
    let mut bytes = std::mem::take(carry);
    bytes.extend_from_slice(input);
    let mut rest = &bytes[..];
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.extend_from_slice(s.as_bytes());
                break;
            }
            Err(e) => {
                let good = e.valid_up_to();
                out.extend_from_slice(&rest[..good]);
                match e.error_len() {
                    Some(n) => {
                        windows_1252(&rest[good..good + n], out);
                        rest = &rest[good + n..];
                    }
                    None if last => {
                        windows_1252(&rest[good..], out);
                        break;
                    }
                    None => {
                        carry.extend_from_slice(&rest[good..]);
                        break;
                    }
                }
            }
        }
    }
}

fn windows_1252(bytes: &[u8], out: &mut Vec<u8>) {
    let (text, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(bytes);
    out.extend_from_slice(text.as_bytes());
}
