//! Qt's QDataStream read one named field at a time.
//!
//! Datagrams come from whatever program is pointed at svc's port: WSJT-X, JTDX and MSHV, which
//! bend the format in small ways, older versions that stop early, and anything else that
//! happens to send UDP there. So every field is read by name, and a refusal says which field
//! of which message failed and at which byte: the log line is all a user has to find the
//! sender that misbehaves. A length the datagram states is checked against what is left
//! before anything is taken or allocated, so no input can panic or exhaust memory.

use super::time::{QDateTime, TimeSpec};

/// Why a datagram could not be decoded, short enough for a log line: "QSO Logged: truncated
/// in field 'Report sent' at byte 87".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("not a WSJT-X datagram: it starts {found:#010x}, not the magic number 0xadbccbda")]
    Magic { found: u32 },
    #[error("WSJT-X schema {found} is not one svc reads (1 to 3)")]
    Schema { found: u32 },
    /// A field of the header (`message` is "header") or of a message (its name, as
    /// NetworkMessage.hpp names it: "QSO Logged").
    #[error("{message}: {fault} in field '{field}' at byte {at}")]
    Field {
        message: String,
        /// The field, named as NetworkMessage.hpp's tables name it.
        field: &'static str,
        /// Where the field starts, counted from the datagram's first byte.
        at: usize,
        fault: Fault,
    },
}

/// What was wrong with one field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    #[error("truncated")]
    Truncated,
    #[error("a length of {length} bytes that runs past the end ({left} left)")]
    PastEnd { length: u32, left: usize },
    #[error("text that is not UTF-8")]
    NotUtf8,
    #[error("a time-zone name that is not UTF-16")]
    NotUtf16,
    #[error("an impossible time of day ({0} ms after midnight)")]
    TimeOfDay(u32),
    #[error("an impossible date-time ({0})")]
    DateTime(String),
}

/// A QByteArray's or QString's length that means null rather than a length.
const NULL: u32 = u32::MAX;
/// QDate's null day (Qt 5 writes its Julian day as a qint64, null as the smallest).
const NULL_DAY: i64 = i64::MIN;
const DAY_MS: u32 = 86_400_000;
/// The Julian days of 0001-01-01 and 9999-12-31: a date outside them is a damaged datagram,
/// not a contact.
const FIRST_DAY: i64 = 1_721_426;
const LAST_DAY: i64 = 5_373_484;
/// The largest offset from UTC taken, in seconds: no zone lies farther than 14 hours, and
/// ISO 8601 stops at 18.
const MAX_OFFSET: i32 = 18 * 3600;

/// The datagram and how far it has been read.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    /// Always at most `bytes.len()`.
    at: usize,
    /// The schema the header names: schema 1 (Qt 5.0's stream) wrote date-times otherwise.
    schema: u32,
    /// The message being read, for errors.
    message: String,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader {
            bytes,
            at: 0,
            schema: 3,
            message: "header".to_owned(),
        }
    }

    pub(crate) fn set_schema(&mut self, schema: u32) {
        self.schema = schema;
    }

    pub(crate) fn set_message(&mut self, message: String) {
        self.message = message;
    }

    /// A field that older senders leave out: `None` when the datagram ends where it would
    /// start. A field begun and cut short is an error all the same.
    pub(crate) fn optional<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Option<T>, DecodeError> {
        if self.at == self.bytes.len() {
            Ok(None)
        } else {
            read(self).map(Some)
        }
    }

    pub(crate) fn u8(&mut self, field: &'static str) -> Result<u8, DecodeError> {
        self.field(field, |r| Ok(r.array::<1>()?[0]))
    }

    /// Qt writes 0 or 1; any other byte reads as true, as Qt reads it.
    pub(crate) fn bool(&mut self, field: &'static str) -> Result<bool, DecodeError> {
        self.field(field, |r| Ok(r.array::<1>()?[0] != 0))
    }

    pub(crate) fn u32(&mut self, field: &'static str) -> Result<u32, DecodeError> {
        self.field(field, Self::raw_u32)
    }

    pub(crate) fn i32(&mut self, field: &'static str) -> Result<i32, DecodeError> {
        self.field(field, |r| Ok(i32::from_be_bytes(r.array()?)))
    }

    pub(crate) fn u64(&mut self, field: &'static str) -> Result<u64, DecodeError> {
        self.field(field, |r| Ok(u64::from_be_bytes(r.array()?)))
    }

    pub(crate) fn f64(&mut self, field: &'static str) -> Result<f64, DecodeError> {
        self.field(field, |r| Ok(f64::from_be_bytes(r.array()?)))
    }

    /// NetworkMessage.hpp's utf8: a QByteArray of UTF-8. Null reads as empty, as WSJT-X
    /// itself treats it.
    pub(crate) fn utf8(&mut self, field: &'static str) -> Result<String, DecodeError> {
        self.field(field, |r| {
            let bytes = r.byte_array()?.unwrap_or_default();
            std::str::from_utf8(bytes)
                .map(str::to_owned)
                .map_err(|_| Fault::NotUtf8)
        })
    }

    /// A QTime: milliseconds since midnight, `None` when null.
    pub(crate) fn qtime(&mut self, field: &'static str) -> Result<Option<u32>, DecodeError> {
        self.field(field, |r| match r.raw_u32()? {
            NULL => Ok(None),
            ms if ms < DAY_MS => Ok(Some(ms)),
            ms => Err(Fault::TimeOfDay(ms)),
        })
    }

    /// A QDateTime, `None` when null (a null date or time).
    pub(crate) fn qdatetime(
        &mut self,
        field: &'static str,
    ) -> Result<Option<QDateTime>, DecodeError> {
        self.field(field, Self::raw_qdatetime)
    }

    /// Reads a field, naming it and where it starts in an error.
    fn field<T>(
        &mut self,
        field: &'static str,
        read: impl FnOnce(&mut Self) -> Result<T, Fault>,
    ) -> Result<T, DecodeError> {
        let at = self.at;
        read(self).map_err(|fault| DecodeError::Field {
            message: self.message.clone(),
            field,
            at,
            fault,
        })
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Fault> {
        let rest = &self.bytes[self.at..];
        let taken = rest.get(..n).ok_or(Fault::Truncated)?;
        self.at += n;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Fault> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn raw_u32(&mut self) -> Result<u32, Fault> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    /// A quint32 length and that many bytes; `None` for null.
    fn byte_array(&mut self) -> Result<Option<&'a [u8]>, Fault> {
        let length = self.raw_u32()?;
        if length == NULL {
            return Ok(None);
        }
        let left = self.bytes.len() - self.at;
        match usize::try_from(length) {
            Ok(n) if n <= left => self.take(n).map(Some),
            _ => Err(Fault::PastEnd { length, left }),
        }
    }

    /// A QString: a quint32 length in bytes and UTF-16 big-endian; null reads as empty.
    fn qstring(&mut self) -> Result<String, Fault> {
        let bytes = self.byte_array()?.unwrap_or_default();
        if !bytes.len().is_multiple_of(2) {
            return Err(Fault::NotUtf16);
        }
        let units = bytes
            .chunks_exact(2)
            .map(|pair| u16::from_be_bytes([pair[0], pair[1]]));
        char::decode_utf16(units)
            .collect::<Result<String, _>>()
            .map_err(|_| Fault::NotUtf16)
    }

    /// QDataStream's QDateTime (Qt 5.2 on): qint64 Julian day, quint32 ms since midnight,
    /// qint8 time spec, then a qint32 offset (spec 2) or the zone (spec 3). Schema 1 was Qt
    /// 5.0's stream, which wrote the UTC day and time and the spec alone, nothing after it.
    fn raw_qdatetime(&mut self) -> Result<Option<QDateTime>, Fault> {
        let julian_day = i64::from_be_bytes(self.array()?);
        let ms = self.raw_u32()?;
        let spec = self.array::<1>()?[0];
        let spec = match (self.schema, spec) {
            (1, 0..=3) => TimeSpec::Utc,
            (_, 0) => TimeSpec::Local,
            (_, 1) => TimeSpec::Utc,
            (_, 2) => TimeSpec::Offset(i32::from_be_bytes(self.array()?)),
            (_, 3) => TimeSpec::Zone(self.zone()?),
            (_, other) => {
                return Err(Fault::DateTime(format!(
                    "time spec {other}, none of 0 to 3"
                )));
            }
        };
        if julian_day == NULL_DAY || ms == NULL {
            return Ok(None);
        }
        if !(FIRST_DAY..=LAST_DAY).contains(&julian_day) {
            return Err(Fault::DateTime(format!(
                "Julian day {julian_day}, outside the years 1 to 9999"
            )));
        }
        if ms >= DAY_MS {
            return Err(Fault::DateTime(format!(
                "{ms} ms after midnight, past the day's end"
            )));
        }
        if let TimeSpec::Offset(offset) = spec
            && !(-MAX_OFFSET..=MAX_OFFSET).contains(&offset)
        {
            return Err(Fault::DateTime(format!(
                "{offset} s from UTC, more than 18 hours"
            )));
        }
        Ok(Some(QDateTime {
            julian_day,
            ms,
            spec,
        }))
    }

    /// QDataStream's QTimeZone: its IANA id as a QString, or for a zone made from an offset
    /// "OffsetFromUtc" followed by its id, offset, name, abbreviation, territory and comment
    /// (Qt's QUtcTimeZonePrivate::serialize). Only the id is kept: svc refuses zones anyway.
    fn zone(&mut self) -> Result<String, Fault> {
        let id = self.qstring()?;
        if id != "OffsetFromUtc" {
            return Ok(id);
        }
        let id = self.qstring()?;
        self.array::<4>()?;
        self.qstring()?;
        self.qstring()?;
        self.array::<4>()?;
        self.qstring()?;
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_length_past_the_end_is_named_with_what_is_left() {
        let bytes = [0, 0, 0, 9, b'a', b'b'];
        let err = Reader::new(&bytes).utf8("Name").unwrap_err();
        assert_eq!(
            err.to_string(),
            "header: a length of 9 bytes that runs past the end (2 left) in field 'Name' at byte 0"
        );
    }

    #[test]
    fn null_and_empty_text_both_read_empty() {
        let bytes = [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0];
        let mut r = Reader::new(&bytes);
        assert_eq!(r.utf8("a").unwrap(), "");
        assert_eq!(r.utf8("b").unwrap(), "");
        assert_eq!(r.optional(|r| r.u8("c")).unwrap(), None);
    }

    #[test]
    fn a_zone_made_from_an_offset_is_read_whole() {
        let qstring = |text: &str| {
            let units: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
            let mut out = (units.len() as u32).to_be_bytes().to_vec();
            out.extend(units);
            out
        };
        let mut bytes = 2_440_588_i64.to_be_bytes().to_vec();
        bytes.extend(0_u32.to_be_bytes());
        bytes.push(3);
        bytes.extend(qstring("OffsetFromUtc"));
        bytes.extend(qstring("UTC+02:00"));
        bytes.extend(7200_i32.to_be_bytes());
        bytes.extend(qstring("UTC+02:00"));
        bytes.extend(qstring("UTC+02:00"));
        bytes.extend(0_i32.to_be_bytes());
        bytes.extend([0xFF; 4]);
        bytes.push(1);
        let mut r = Reader::new(&bytes);
        let at = r.qdatetime("Date & Time On").unwrap().unwrap();
        assert_eq!(at.spec, TimeSpec::Zone("UTC+02:00".into()));
        assert!(r.bool("after").unwrap(), "the whole zone was consumed");
    }
}
