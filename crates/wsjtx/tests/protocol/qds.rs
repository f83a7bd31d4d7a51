//! A QDataStream writer of the tests' own, big-endian as WSJT-X's streams are, and the
//! messages of NetworkMessage.hpp's tables written with it. Each message marks where its
//! optional fields begin, so a test can cut it where an older sender would have stopped.

pub const MAGIC: u32 = 0xADBC_CBDA;

/// 2026-11-07, as a Julian day.
pub const DAY: i64 = 2_461_352;
/// 15:10:05.250 and 15:11:30.000, in ms after midnight.
pub const TIME_ON_MS: u32 = 54_605_250;
pub const TIME_OFF_MS: u32 = 54_690_000;

/// How a QDateTime is meant, as the stream writes it.
#[derive(Clone, Copy)]
pub enum Spec<'a> {
    Local,
    Utc,
    Offset(i32),
    Zone(&'a str),
}

#[derive(Debug, Clone, Default)]
pub struct Qds {
    pub bytes: Vec<u8>,
    /// Where each optional field begins: a sender may stop at any of these.
    pub marks: Vec<usize>,
}

impl Qds {
    pub fn header(schema: u32, kind: u32, id: &str) -> Qds {
        let mut q = Qds::default();
        q.put_u32(MAGIC).put_u32(schema).put_u32(kind).put_utf8(id);
        q
    }

    /// The next field is optional: the message may end here.
    pub fn mark(&mut self) -> &mut Self {
        self.marks.push(self.bytes.len());
        self
    }

    pub fn put_u8(&mut self, value: u8) -> &mut Self {
        self.bytes.push(value);
        self
    }

    pub fn put_bool(&mut self, value: bool) -> &mut Self {
        self.put_u8(u8::from(value))
    }

    pub fn put_u16(&mut self, value: u16) -> &mut Self {
        self.bytes.extend(value.to_be_bytes());
        self
    }

    pub fn put_u32(&mut self, value: u32) -> &mut Self {
        self.bytes.extend(value.to_be_bytes());
        self
    }

    pub fn put_i32(&mut self, value: i32) -> &mut Self {
        self.bytes.extend(value.to_be_bytes());
        self
    }

    pub fn put_u64(&mut self, value: u64) -> &mut Self {
        self.bytes.extend(value.to_be_bytes());
        self
    }

    pub fn put_i64(&mut self, value: i64) -> &mut Self {
        self.bytes.extend(value.to_be_bytes());
        self
    }

    pub fn put_f64(&mut self, value: f64) -> &mut Self {
        self.bytes.extend(value.to_be_bytes());
        self
    }

    /// NetworkMessage.hpp's utf8: a QByteArray, its length in bytes then the bytes.
    pub fn put_utf8(&mut self, text: &str) -> &mut Self {
        self.put_bytes(text.as_bytes())
    }

    pub fn put_bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.put_u32(bytes.len() as u32);
        self.bytes.extend_from_slice(bytes);
        self
    }

    /// A null QByteArray or QString: the length 0xffffffff and nothing after it.
    pub fn put_null(&mut self) -> &mut Self {
        self.put_u32(u32::MAX)
    }

    /// A QString: its length in bytes, then UTF-16 big-endian.
    pub fn put_qstring(&mut self, text: &str) -> &mut Self {
        let units: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        self.put_bytes(&units)
    }

    pub fn put_qtime(&mut self, ms: u32) -> &mut Self {
        self.put_u32(ms)
    }

    /// A QDateTime as Qt 5.2 on writes it: qint64 Julian day, quint32 ms, qint8 spec, then
    /// the offset or the zone.
    pub fn put_qdatetime(&mut self, julian_day: i64, ms: u32, spec: Spec) -> &mut Self {
        self.put_i64(julian_day).put_u32(ms);
        match spec {
            Spec::Local => self.put_u8(0),
            Spec::Utc => self.put_u8(1),
            Spec::Offset(seconds) => self.put_u8(2).put_i32(seconds),
            Spec::Zone(id) => self.put_u8(3).put_qstring(id),
        }
    }

    /// A null QDateTime, as Qt 5 writes `QDateTime()`: the null day, the null time, local.
    pub fn put_null_qdatetime(&mut self) -> &mut Self {
        self.put_i64(i64::MIN).put_u32(u32::MAX).put_u8(0)
    }
}

/// Heartbeat (0) with every field.
pub fn heartbeat() -> Qds {
    let mut q = Qds::header(3, 0, "WSJT-X");
    q.mark().put_u32(3);
    q.mark().put_utf8("2.6.1");
    q.mark().put_utf8("3a5bc9");
    q
}

/// Status (1) with every field, as WSJT-X 2.6 sends it while working K1ABC.
pub fn status() -> Qds {
    let mut q = Qds::header(2, 1, "WSJT-X");
    q.put_u64(14_074_000)
        .put_utf8("FT8")
        .put_utf8("K1ABC")
        .put_utf8("-12")
        .put_utf8("FT8")
        .put_bool(true)
        .put_bool(false)
        .put_bool(true)
        .put_u32(1200)
        .put_u32(1450)
        .put_utf8("W1AW")
        .put_utf8("FN31pr")
        .put_utf8("FN42");
    q.mark().put_bool(false);
    q.mark().put_utf8("");
    q.mark().put_bool(false);
    q.mark().put_u8(0);
    q.mark().put_u32(u32::MAX);
    q.mark().put_u32(15);
    q.mark().put_utf8("Default");
    q.mark().put_utf8("K1ABC W1AW FN31");
    q
}

/// Decode (2) of "CQ K1ABC FN42".
pub fn decode() -> Qds {
    let mut q = Qds::header(2, 2, "WSJT-X");
    q.put_bool(true)
        .put_qtime(54_600_000)
        .put_i32(-7)
        .put_f64(0.2)
        .put_u32(1234)
        .put_utf8("~")
        .put_utf8("CQ K1ABC FN42");
    q.mark().put_bool(false);
    q.mark().put_bool(true);
    q
}

/// QSO Logged (5) with every field: K1ABC worked in FT4 from 15:10:05.250 to 15:11:30 UTC.
pub fn qso_logged() -> Qds {
    let mut q = Qds::header(2, 5, "WSJT-X");
    q.put_qdatetime(DAY, TIME_OFF_MS, Spec::Utc)
        .put_utf8("k1abc")
        .put_utf8("FN42")
        .put_u64(14_081_250)
        .put_utf8("FT4")
        .put_utf8("-10")
        .put_utf8("-12")
        .put_utf8("100W")
        .put_utf8("tnx fer QSO")
        .put_utf8("Jürgen")
        .put_qdatetime(DAY, TIME_ON_MS, Spec::Utc);
    q.mark().put_utf8("W1AW");
    q.mark().put_utf8("W1AW/P");
    q.mark().put_utf8("FN31pr");
    q.mark().put_utf8("1A EMA");
    q.mark().put_utf8("2B NH");
    q.mark().put_utf8("ES");
    q
}

/// What JTDX and newer versions append after the fields svc knows.
pub fn jtdx_tail(q: &mut Qds) -> &mut Qds {
    q.put_utf8("JTDX 2.2.159")
        .put_u32(42)
        .put_bool(true)
        .put_qdatetime(DAY, 0, Spec::Utc)
}
