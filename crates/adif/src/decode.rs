//! The bytes of a file as UTF-8 text, for the reader: its first bytes looked at and served
//! again ([`head`], [`Prefixed`]), its encoding told from them ([`encoding`]: UTF-8, UTF-16
//! with or without a byte order mark, else Windows-1252 at the first byte that is not
//! UTF-8), and the rest decoded as it streams ([`Decoded`]), so memory stays flat.

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
/// told apart later, at the first byte that is not ASCII.
pub(super) fn encoding(head: &[u8]) -> (Decoding, usize) {
    if head.starts_with(b"\xEF\xBB\xBF") {
        return (Decoding::Utf8, 3);
    }
    if head.starts_with(b"\xFF\xFE") {
        return (
            Decoding::Other(encoding_rs::UTF_16LE.new_decoder_without_bom_handling()),
            2,
        );
    }
    if head.starts_with(b"\xFE\xFF") {
        return (
            Decoding::Other(encoding_rs::UTF_16BE.new_decoder_without_bom_handling()),
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
            Decoding::Other(encoding_rs::UTF_16LE.new_decoder_without_bom_handling()),
            0,
        );
    }
    if n >= 2 && even * 4 >= n * 3 && odd * 8 <= n {
        return (
            Decoding::Other(encoding_rs::UTF_16BE.new_decoder_without_bom_handling()),
            0,
        );
    }
    (Decoding::Ascii, 0)
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

/// How the file's bytes become UTF-8.
pub(super) enum Decoding {
    /// No byte above 0x7F yet, so nothing tells UTF-8 from Windows-1252.
    Ascii,
    /// UTF-8; a byte that is no part of valid UTF-8 is read as Windows-1252, so that a stray
    /// byte in an otherwise UTF-8 file costs nothing.
    Utf8,
    /// Windows-1252 (whose first non-ASCII byte was not UTF-8), UTF-16LE or UTF-16BE.
    Other(encoding_rs::Decoder),
}

/// The file decoded to UTF-8 as it streams through, a chunk at a time.
pub(super) struct Decoded<R> {
    raw: Prefixed<R>,
    how: Decoding,
    out: Vec<u8>,
    pos: usize,
    /// A UTF-8 sequence begun at the end of one chunk and finished in the next.
    carry: Vec<u8>,
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
            carry: Vec::new(),
            ended: false,
        }
    }

    /// Whether the text's UTF-8 bytes are the file's own (not decoded from UTF-16 or
    /// Windows-1252), so that a length a writer counted in bytes counts them.
    pub(super) fn keeps_bytes(&self) -> bool {
        !matches!(self.how, Decoding::Other(_))
    }
}

impl<R: BufRead> BufRead for Decoded<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.pos == self.out.len() && !self.ended {
            self.out.clear();
            self.pos = 0;
            let chunk = self.raw.fill_buf()?;
            let last = chunk.is_empty();
            decode(&mut self.how, &mut self.carry, chunk, last, &mut self.out);
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

impl<R: BufRead> Read for Decoded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, buf)
    }
}

/// Appends `input` decoded to `out`; `last` when the file ended, to flush what waits.
fn decode(how: &mut Decoding, carry: &mut Vec<u8>, input: &[u8], last: bool, out: &mut Vec<u8>) {
    match how {
        Decoding::Ascii => match input.iter().position(|b| !b.is_ascii()) {
            None => out.extend_from_slice(input),
            Some(i) => {
                out.extend_from_slice(&input[..i]);
                // The first non-ASCII character decides: valid UTF-8 (or cut off by the end
                // of the chunk) means UTF-8, anything else a Windows code page.
                let utf8 = match std::str::from_utf8(&input[i..]) {
                    Ok(_) => true,
                    Err(e) => e.valid_up_to() > 0 || e.error_len().is_none(),
                };
                *how = if utf8 {
                    Decoding::Utf8
                } else {
                    Decoding::Other(encoding_rs::WINDOWS_1252.new_decoder_without_bom_handling())
                };
                decode(how, carry, &input[i..], last, out);
            }
        },
        Decoding::Utf8 => {
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
        Decoding::Other(decoder) => {
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

fn windows_1252(bytes: &[u8], out: &mut Vec<u8>) {
    let (text, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(bytes);
    out.extend_from_slice(text.as_bytes());
}
