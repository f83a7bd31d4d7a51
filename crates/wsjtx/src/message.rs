//! The messages a logger hears from WSJT-X, as NetworkMessage.hpp in WSJT-X's source defines
//! them.
//!
//! Only what svc acts on, or may soon show, is decoded; every other type is named and left,
//! as the protocol asks of a receiver. The protocol grows by appending fields, so each message
//! reads as far as its table goes and ignores the rest (newer versions, JTDX and WSJT-X
//! improved append fields of their own), and the fields older senders stop before are
//! `Option`s rather than errors.

use super::read::{DecodeError, Reader};
use super::time::QDateTime;

/// The first four bytes of every datagram.
pub const MAGIC: u32 = 0xADBC_CBDA;

const HEARTBEAT: u32 = 0;
const STATUS: u32 = 1;
const DECODE: u32 = 2;
const CLEAR: u32 = 3;
const QSO_LOGGED: u32 = 5;
const CLOSE: u32 = 6;
const LOGGED_ADIF: u32 = 12;

/// One datagram's message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Heartbeat(Heartbeat),
    Status(Status),
    Decode(Decode),
    /// The band activity window was cleared (or WSJT-X is closing).
    Clear {
        id: String,
        /// Which window, in a Clear sent *to* WSJT-X; WSJT-X's own leave it out.
        window: Option<u8>,
    },
    QsoLogged(QsoLogged),
    /// The sender is closing.
    Close {
        id: String,
    },
    /// The logged QSO as an ADIF file of one record (header included), sent beside
    /// [`Message::QsoLogged`] when the user enables it.
    LoggedAdif {
        id: String,
        adif: String,
    },
    /// A type svc does not act on; callers ignore it.
    Other {
        kind: u32,
        id: String,
    },
}

impl Message {
    /// The sender's id (WSJT-X's instance name, "WSJT-X" or "WSJT-X - rig").
    pub fn id(&self) -> &str {
        match self {
            Message::Heartbeat(m) => &m.id,
            Message::Status(m) => &m.id,
            Message::Decode(m) => &m.id,
            Message::QsoLogged(m) => &m.id,
            Message::Clear { id, .. }
            | Message::Close { id }
            | Message::LoggedAdif { id, .. }
            | Message::Other { id, .. } => id,
        }
    }
}

/// Sent every 15 seconds while the sender runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Heartbeat {
    pub id: String,
    /// The highest schema the sender speaks; absent from senders older than schema 3, which
    /// speak 2.
    pub max_schema: Option<u32>,
    pub version: Option<String>,
    pub revision: Option<String>,
}

/// WSJT-X's state, sent whenever it changes. The fields after `dx_grid` are absent from
/// older senders.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Status {
    pub id: String,
    /// Hz.
    pub dial_frequency: u64,
    pub mode: String,
    pub dx_call: String,
    pub report: String,
    pub tx_mode: String,
    pub tx_enabled: bool,
    pub transmitting: bool,
    pub decoding: bool,
    /// The receive and transmit audio offsets, Hz.
    pub rx_df: u32,
    pub tx_df: u32,
    pub de_call: String,
    pub de_grid: String,
    pub dx_grid: String,
    pub tx_watchdog: Option<bool>,
    pub sub_mode: Option<String>,
    pub fast_mode: Option<bool>,
    /// 0 none, 1 NA VHF, 2 EU VHF, 3 Field Day, 4 RTTY RU, 5 WW Digi, 6 Fox, 7 Hound, 8 ARRL
    /// Digi.
    pub special_operation_mode: Option<u8>,
    /// Hz; `u32::MAX` when it does not apply.
    pub frequency_tolerance: Option<u32>,
    /// Seconds; `u32::MAX` when it does not apply.
    pub tr_period: Option<u32>,
    pub configuration_name: Option<String>,
    pub tx_message: Option<String>,
}

/// One decoded transmission.
#[derive(Debug, Clone, PartialEq)]
pub struct Decode {
    pub id: String,
    /// False when sent again in answer to a Replay.
    pub new: bool,
    /// Milliseconds since midnight UTC; `None` when null.
    pub time: Option<u32>,
    /// dB.
    pub snr: i32,
    /// Seconds.
    pub delta_time: f64,
    /// Hz.
    pub delta_frequency: u32,
    pub mode: String,
    pub message: String,
    pub low_confidence: Option<bool>,
    /// Decoded from a recording, not from the air.
    pub off_air: Option<bool>,
}

/// A QSO the user logged in the Log QSO dialog. The fields after `time_on` are absent from
/// older senders (JTDX stops after `my_grid`). Empty text means the dialog's field was empty.
#[derive(Debug, Clone, PartialEq)]
pub struct QsoLogged {
    pub id: String,
    /// `None` when the datagram carried a null date-time.
    pub time_off: Option<QDateTime>,
    pub dx_call: String,
    pub dx_grid: String,
    /// The transmit frequency (dial plus audio offset), Hz.
    pub tx_frequency: u64,
    pub mode: String,
    pub report_sent: String,
    pub report_received: String,
    /// As the user typed it: "100", "5W".
    pub tx_power: String,
    pub comments: String,
    pub name: String,
    /// `None` when the datagram carried a null date-time.
    pub time_on: Option<QDateTime>,
    pub operator_call: Option<String>,
    pub my_call: Option<String>,
    pub my_grid: Option<String>,
    pub exchange_sent: Option<String>,
    pub exchange_received: Option<String>,
    /// ADIF's PROP_MODE.
    pub propagation_mode: Option<String>,
}

/// The message type's name as NetworkMessage.hpp gives it, for errors.
fn name(kind: u32) -> String {
    match kind {
        HEARTBEAT => "Heartbeat".into(),
        STATUS => "Status".into(),
        DECODE => "Decode".into(),
        CLEAR => "Clear".into(),
        QSO_LOGGED => "QSO Logged".into(),
        CLOSE => "Close".into(),
        LOGGED_ADIF => "Logged ADIF".into(),
        other => format!("message type {other}"),
    }
}

/// Decodes one datagram. Never panics; an `Err` says what was wrong and where, and a type
/// svc does not act on is [`Message::Other`], not an error.
pub fn decode(datagram: &[u8]) -> Result<Message, DecodeError> {
    let mut r = Reader::new(datagram);
    let magic = r.u32("Magic number")?;
    if magic != MAGIC {
        return Err(DecodeError::Magic { found: magic });
    }
    let schema = r.u32("Schema")?;
    if !(1..=3).contains(&schema) {
        return Err(DecodeError::Schema { found: schema });
    }
    r.set_schema(schema);
    let kind = r.u32("Message type")?;
    r.set_message(name(kind));
    let id = r.utf8("Id")?;
    Ok(match kind {
        HEARTBEAT => Message::Heartbeat(Heartbeat {
            id,
            max_schema: r.optional(|r| r.u32("Maximum schema number"))?,
            version: r.optional(|r| r.utf8("version"))?,
            revision: r.optional(|r| r.utf8("revision"))?,
        }),
        STATUS => Message::Status(status(&mut r, id)?),
        DECODE => Message::Decode(Decode {
            id,
            new: r.bool("New")?,
            time: r.qtime("Time")?,
            snr: r.i32("snr")?,
            delta_time: r.f64("Delta time (S)")?,
            delta_frequency: r.u32("Delta frequency (Hz)")?,
            mode: r.utf8("Mode")?,
            message: r.utf8("Message")?,
            low_confidence: r.optional(|r| r.bool("Low confidence"))?,
            off_air: r.optional(|r| r.bool("Off air"))?,
        }),
        CLEAR => Message::Clear {
            id,
            window: r.optional(|r| r.u8("Window"))?,
        },
        QSO_LOGGED => Message::QsoLogged(qso_logged(&mut r, id)?),
        CLOSE => Message::Close { id },
        LOGGED_ADIF => Message::LoggedAdif {
            id,
            adif: r.utf8("ADIF text")?,
        },
        kind => Message::Other { kind, id },
    })
}

fn status(r: &mut Reader, id: String) -> Result<Status, DecodeError> {
    Ok(Status {
        id,
        dial_frequency: r.u64("Dial Frequency (Hz)")?,
        mode: r.utf8("Mode")?,
        dx_call: r.utf8("DX call")?,
        report: r.utf8("Report")?,
        tx_mode: r.utf8("Tx Mode")?,
        tx_enabled: r.bool("Tx Enabled")?,
        transmitting: r.bool("Transmitting")?,
        decoding: r.bool("Decoding")?,
        rx_df: r.u32("Rx DF")?,
        tx_df: r.u32("Tx DF")?,
        de_call: r.utf8("DE call")?,
        de_grid: r.utf8("DE grid")?,
        dx_grid: r.utf8("DX grid")?,
        tx_watchdog: r.optional(|r| r.bool("Tx Watchdog"))?,
        sub_mode: r.optional(|r| r.utf8("Sub-mode"))?,
        fast_mode: r.optional(|r| r.bool("Fast mode"))?,
        special_operation_mode: r.optional(|r| r.u8("Special Operation Mode"))?,
        frequency_tolerance: r.optional(|r| r.u32("Frequency Tolerance"))?,
        tr_period: r.optional(|r| r.u32("T/R Period"))?,
        configuration_name: r.optional(|r| r.utf8("Configuration Name"))?,
        tx_message: r.optional(|r| r.utf8("Tx Message"))?,
    })
}

fn qso_logged(r: &mut Reader, id: String) -> Result<QsoLogged, DecodeError> {
    Ok(QsoLogged {
        id,
        time_off: r.qdatetime("Date & Time Off")?,
        dx_call: r.utf8("DX call")?,
        dx_grid: r.utf8("DX grid")?,
        tx_frequency: r.u64("Tx frequency (Hz)")?,
        mode: r.utf8("Mode")?,
        report_sent: r.utf8("Report sent")?,
        report_received: r.utf8("Report received")?,
        tx_power: r.utf8("Tx power")?,
        comments: r.utf8("Comments")?,
        name: r.utf8("Name")?,
        time_on: r.qdatetime("Date & Time On")?,
        operator_call: r.optional(|r| r.utf8("Operator call"))?,
        my_call: r.optional(|r| r.utf8("My call"))?,
        my_grid: r.optional(|r| r.utf8("My grid"))?,
        exchange_sent: r.optional(|r| r.utf8("Exchange sent"))?,
        exchange_received: r.optional(|r| r.utf8("Exchange received"))?,
        propagation_mode: r.optional(|r| r.utf8("ADIF Propagation mode"))?,
    })
}
