//! Datagrams to broadcasts, read liberally.
//!
//! N1MM Logger+ is not the only program that speaks this protocol: QARTest, Log4OM and
//! RUMlogNG send `<contactinfo>` too, each with its own subset of elements, its own case and
//! its own whitespace, and N1MM itself has added elements over the years. So nothing here
//! insists on a schema: an element is found by its name in any case, an element we do not
//! know is kept rather than refused, and an empty element is the same as a missing one
//! (N1MM writes every element, most of them empty). What is refused is what no reader could
//! use: bytes that are not XML, a document cut short (UDP datagrams arrive whole or not at
//! all, so a truncated one is a sender's bug worth a log line), and a contact without the
//! two things that make it one, the call and the time.
//!
//! Every element is kept as read, in [`ContactInfo`], so that a caller who needs something
//! the mapping to a contact leaves out still has it.

use quick_xml::Reader;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::Event;

/// One decoded N1MM broadcast.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Broadcast {
    /// `<contactinfo>`: a contact was logged.
    Contact(ContactInfo),
    /// `<contactreplace>`: a logged contact was edited; `info` holds it as it is now (its
    /// `oldcall` and `oldtimestamp` what it was), and its `id` is the one it was logged with.
    Replace(ContactInfo),
    /// `<contactdelete>`: a logged contact was deleted. N1MM names it by its `ID` (recent
    /// versions) and by its call and timestamp; `info` holds whatever else the datagram had.
    Delete {
        id: Option<String>,
        info: ContactInfo,
    },
    /// Any other broadcast (`RadioInfo`, `AppInfo`, `spot`, `dynamicresults`, …), by the
    /// name of its root element as written: callers that log contacts ignore it.
    Other { root: String },
}

/// Why a datagram is not a broadcast a caller can use; short, for a log line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("empty datagram")]
    Empty,
    #[error("not XML: the datagram starts with {0:?}")]
    NotXml(String),
    #[error("malformed XML at byte {at}: {reason}")]
    Malformed { at: u64, reason: String },
    #[error("truncated: <{root}> is not closed")]
    Truncated { root: String },
    #[error("no root element, only a declaration or comments")]
    NoRoot,
    #[error("<{root}> has no call")]
    NoCall { root: String },
    #[error("<{root}> has no timestamp")]
    NoTimestamp { root: String },
    #[error("<contactdelete> names no contact: no ID, and no call with a timestamp")]
    NoContact,
}

macro_rules! elements {
    ($($(#[$doc:meta])* $field:ident $name:literal,)*) => {
        /// The elements of a `<contactinfo>`, `<contactreplace>` or `<contactdelete>`, as
        /// read: text, trimmed, entities resolved; `None` for an element that was missing or
        /// empty. The elements N1MM documents have a field each; every other one is in
        /// [`ContactInfo::other`], so nothing read is lost.
        #[derive(Debug, Clone, Default, PartialEq, Eq)]
        pub struct ContactInfo {
            $($(#[$doc])* pub $field: Option<String>,)*
            /// Every other element with content, in the order read, under its name as
            /// written (`CabrilloString`, QARTest's `logger`, a second `call`, …).
            pub other: Vec<(String, String)>,
        }

        impl ContactInfo {
            /// The field an element fills, by its name in lower case.
            fn slot(&mut self, lower: &str) -> Option<&mut Option<String>> {
                match lower {
                    $($name => Some(&mut self.$field),)*
                    _ => None,
                }
            }

            /// The value of the element `name`, in any case, whether it has a field or not.
            pub fn get(&self, name: &str) -> Option<&str> {
                match name.to_ascii_lowercase().as_str() {
                    $($name => self.$field.as_deref(),)*
                    _ => self
                        .other
                        .iter()
                        .find(|(n, _)| n.eq_ignore_ascii_case(name))
                        .map(|(_, v)| v.as_str()),
                }
            }
        }
    };
}

elements! {
    /// The sending program, e.g. `N1MM`.
    app "app",
    /// N1MM's name for the contest or log, e.g. `CQWWCW`, `FD`, `DX` (general logging).
    contestname "contestname",
    /// The contest's number in N1MM's database.
    contestnr "contestnr",
    /// When the contact was logged, UTC, e.g. `2020-01-17 16:43:38`.
    timestamp "timestamp",
    /// The station's own call.
    mycall "mycall",
    /// The band in MHz, e.g. `3.5`, `14`, `144`.
    band "band",
    /// The receive frequency in tens of Hz (`1420000` is 14.200 MHz).
    rxfreq "rxfreq",
    /// The transmit frequency in tens of Hz.
    txfreq "txfreq",
    /// Who operated.
    operator "operator",
    /// The mode as N1MM names it: `CW`, `USB`, `LSB`, `RTTY`, `FT8`, …
    mode "mode",
    /// The worked station's call.
    call "call",
    countryprefix "countryprefix",
    wpxprefix "wpxprefix",
    stationprefix "stationprefix",
    continent "continent",
    /// The report sent.
    snt "snt",
    /// The serial number sent.
    sntnr "sntnr",
    /// The report received.
    rcv "rcv",
    /// The serial number received.
    rcvnr "rcvnr",
    gridsquare "gridsquare",
    exchange1 "exchange1",
    section "section",
    comment "comment",
    qth "qth",
    name "name",
    power "power",
    misctext "misctext",
    /// The worked station's zone (CQ, or ITU in the IARU contest); `0` when unknown.
    zone "zone",
    /// Sweepstakes' precedence.
    prec "prec",
    /// Sweepstakes' check.
    ck "ck",
    ismultiplier1 "ismultiplier1",
    ismultiplier2 "ismultiplier2",
    ismultiplier3 "ismultiplier3",
    points "points",
    radionr "radionr",
    run1run2 "run1run2",
    rover_location "roverlocation",
    radio_interfaced "radiointerfaced",
    networked_comp_nr "networkedcompnr",
    /// `True` on the computer that logged the contact, `False` where it is passed on.
    is_original "isoriginal",
    net_bios_name "netbiosname",
    is_run_qso "isrunqso",
    station_name "stationname",
    /// N1MM's identifier of the contact (a GUID), the same in its logging, edits and
    /// deletion.
    id "id",
    is_claimed_qso "isclaimedqso",
    /// In a replace: the call before the edit.
    oldcall "oldcall",
    /// In a replace: the timestamp before the edit.
    oldtimestamp "oldtimestamp",
}

impl ContactInfo {
    /// Keeps one element's text: in its field the first time, in `other` after that.
    fn keep(&mut self, name: &str, value: String) {
        if let Some(slot) = self.slot(&name.to_ascii_lowercase())
            && slot.is_none()
        {
            *slot = Some(value);
            return;
        }
        self.other.push((name.to_owned(), value));
    }
}

/// Decodes one UDP datagram of N1MM Logger+'s broadcasts. A UTF-8 byte-order mark and
/// whitespace before the document are skipped; bytes that are not UTF-8 (N1MM declares
/// utf-8) are read as U+FFFD rather than refused, and what follows the root element is
/// ignored.
pub fn decode(datagram: &[u8]) -> Result<Broadcast, DecodeError> {
    let bytes = datagram.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(datagram);
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_start();
    if text.is_empty() {
        return Err(DecodeError::Empty);
    }
    if !text.starts_with('<') {
        return Err(DecodeError::NotXml(clip(text, 16)));
    }
    let (root, info) = read(text)?;
    let lower = root.to_ascii_lowercase();
    match lower.as_str() {
        "contactinfo" | "contactreplace" => {
            if info.call.is_none() {
                return Err(DecodeError::NoCall { root: lower });
            }
            if info.timestamp.is_none() {
                return Err(DecodeError::NoTimestamp { root: lower });
            }
            Ok(if lower == "contactinfo" {
                Broadcast::Contact(info)
            } else {
                Broadcast::Replace(info)
            })
        }
        "contactdelete" => {
            if info.id.is_none() && (info.call.is_none() || info.timestamp.is_none()) {
                return Err(DecodeError::NoContact);
            }
            Ok(Broadcast::Delete {
                id: info.id.clone(),
                info,
            })
        }
        _ => Ok(Broadcast::Other { root }),
    }
}

/// The root element's name and its children's text. Only the children's own text counts:
/// N1MM nests nothing in a contact, and what another sender might nest is skipped.
fn read(text: &str) -> Result<(String, ContactInfo), DecodeError> {
    let mut reader = Reader::from_str(text);
    let mut root: Option<String> = None;
    let mut info = ContactInfo::default();
    // Depth below the root: 0 between the root's children, 1 inside a child.
    let mut depth = 0usize;
    let mut child = String::new();
    let mut value = String::new();
    loop {
        let event = reader.read_event().map_err(|e| DecodeError::Malformed {
            at: reader.error_position(),
            reason: clip(&e.to_string(), 80),
        })?;
        let Some(root_name) = &root else {
            match event {
                Event::Start(tag) => root = Some(tag.name().as_ref().to_owned()),
                Event::Empty(tag) => return Ok((tag.name().as_ref().to_owned(), info)),
                Event::Text(t) if t.trim().is_empty() => {}
                Event::Text(t) => return Err(DecodeError::NotXml(clip(&t, 16))),
                Event::CData(_) | Event::GeneralRef(_) => {
                    return Err(DecodeError::NotXml(clip(text, 16)));
                }
                Event::Eof => return Err(DecodeError::NoRoot),
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => {}
                Event::End(_) => return Err(DecodeError::NoRoot),
            }
            continue;
        };
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    child = tag.name().as_ref().to_owned();
                    value.clear();
                }
                depth += 1;
            }
            Event::End(_) if depth == 0 => return Ok((root_name.clone(), info)),
            Event::End(_) => {
                depth -= 1;
                if depth == 0 {
                    let trimmed = value.trim();
                    if !trimmed.is_empty() {
                        info.keep(&child, trimmed.to_owned());
                    }
                }
            }
            Event::Text(t) if depth == 1 => value.push_str(&t.xml10_content()),
            Event::CData(t) if depth == 1 => value.push_str(&t.xml10_content()),
            Event::GeneralRef(r) if depth == 1 => match r.resolve_char_ref() {
                Ok(Some(c)) => value.push(c),
                _ => match resolve_predefined_entity(&r) {
                    Some(s) => value.push_str(s),
                    None => {
                        value.push('&');
                        value.push_str(&r);
                        value.push(';');
                    }
                },
            },
            Event::Eof => {
                return Err(DecodeError::Truncated {
                    root: clip(root_name, 40),
                });
            }
            // An empty element is an absent value; text between children is layout.
            _ => {}
        }
    }
}

/// At most `max` characters of `text`, for an error message.
fn clip(text: &str, max: usize) -> String {
    let mut out: String = text.chars().take(max).collect();
    if text.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}
