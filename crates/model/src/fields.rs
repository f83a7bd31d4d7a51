//! The fields a contact carries beyond the seed's fourteen, declared once.
//!
//! Each line of [`fields!`] below is one field: its name on the wire (lowerCamelCase of its
//! ADIF name), its ADIF name, its `svc contacts create|edit` flag, its kind (what a value must
//! look like and how it is written), whether it is common (a CLI flag and an MCP input), and
//! a line of help. The wire type ([`Fields`]'s serde), the store (one JSON column), the
//! journal (which keeps requests as JSON), the ADIF mapping both ways, the CLI flags and the
//! MCP schemas all walk [`FIELDS`]; adding a field is one line here.
//!
//! Every other ADIF field a contact carries (APP_…, USERDEF fields, standard fields svc does
//! not name) rides in [`Fields::adif`] as read, so an import followed by an export loses
//! nothing.

use std::collections::BTreeMap;
use std::fmt;

use chrono::NaiveDate;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::ApiError;
use super::band::band_lower_edge;
use super::callsign::normalize_callsign;
use super::packed::Packed;
use super::text::{multi_line, single_line};
use super::time::Timestamp;

/// What a field's value must look like, and so how it is checked, stored and written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// One line of text of at most this many characters.
    Text(usize),
    /// Text that may span lines (ADIF's MultilineString), at most this many characters.
    Lines(usize),
    /// Upper-cased text of at most this many characters: references, states, names of
    /// things that ADIF compares without case.
    Upper(usize),
    /// A callsign.
    Call,
    /// A Maidenhead locator of 2, 4, 6 or 8 characters, written `FN31pr`.
    Grid,
    /// A whole number in this range; a JSON number on the wire.
    Integer(i64, i64),
    /// A number in this range, e.g. watts or MHz; a JSON number on the wire.
    Number(f64, f64),
    /// One of these ADIF enumeration values, upper-cased.
    Choice(&'static [&'static str]),
    /// A date: `YYYY-MM-DD` on the wire, `YYYYMMDD` in ADIF.
    Date,
    /// An instant: RFC 3339 UTC on the wire; in ADIF a date field and a time field (the
    /// only such field is time-off: QSO_DATE_OFF and TIME_OFF).
    Instant,
    /// An ADIF band name, e.g. 20m.
    Band,
}

/// One declared field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Def {
    pub field: Field,
    /// Its name on the wire and in the store: the ADIF name in lowerCamelCase.
    pub wire: &'static str,
    /// Its ADIF name.
    pub adif: &'static str,
    /// Its `svc contacts create|edit` flag, without the dashes.
    pub flag: &'static str,
    pub kind: Kind,
    /// Whether `svc contacts create|edit` and the MCP tools take it (the rest are kept and
    /// edited through the API, imports and the `adif` map).
    pub common: bool,
    pub help: &'static str,
}

macro_rules! fields {
    ($($name:ident $wire:literal $adif:literal $flag:literal $kind:expr, $common:literal, $help:literal;)*) => {
        /// A declared field, for typed access: `fields.get(Field::Gridsquare)`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Field { $($name,)* }

        /// Every declared field, in the order they are written.
        pub const FIELDS: &[Def] = &[$(Def {
            field: Field::$name,
            wire: $wire,
            adif: $adif,
            flag: $flag,
            kind: $kind,
            common: $common,
            help: $help,
        },)*];
    };
}

const CONTINENTS: &[&str] = &["NA", "SA", "EU", "AF", "OC", "AS", "AN"];
const QSL_SENT: &[&str] = &["Y", "N", "R", "Q", "I"];
const QSL_RCVD: &[&str] = &["Y", "N", "R", "I", "V"];
const QSL_VIA: &[&str] = &["B", "D", "E", "M"];
const PROPAGATION: &[&str] = &[
    "AS", "AUE", "AUR", "BS", "ECH", "EME", "ES", "F2", "FAI", "GWAVE", "INTERNET", "ION", "IRL",
    "LOS", "MS", "RPT", "RS", "SAT", "TEP", "TR",
];

use Kind::*;

fields! {
    Gridsquare "gridsquare" "GRIDSQUARE" "grid" Grid, true, "The worked station's Maidenhead locator, e.g. FN31pr";
    MyGridsquare "myGridsquare" "MY_GRIDSQUARE" "my-grid" Grid, true, "Your own locator, e.g. FN42";
    TxPwr "txPwr" "TX_PWR" "tx-pwr" Number(0.0, 10_000_000.0), true, "Your transmitter power in watts";
    RxPwr "rxPwr" "RX_PWR" "rx-pwr" Number(0.0, 10_000_000.0), false, "The worked station's power in watts";
    TimeOff "timeOff" "TIME_OFF" "time-off" Instant, true, "When the contact ended (RFC 3339 UTC)";
    Operator "operator" "OPERATOR" "operator" Call, true, "Who operated your station, when not the station callsign (a club station worked by a member)";
    Comment "comment" "COMMENT" "comment" Text(2000), true, "A comment about the contact, e.g. the QSL message; notes stay notes";
    Qth "qth" "QTH" "qth" Text(200), true, "The worked station's city or location";
    State "state" "STATE" "state" Upper(20), true, "The worked station's state or province code, e.g. MA";
    Cnty "cnty" "CNTY" "cnty" Text(100), false, "The worked station's county, e.g. MA,Middlesex";
    Country "country" "COUNTRY" "country" Text(100), false, "The worked station's DXCC entity name";
    Dxcc "dxcc" "DXCC" "dxcc" Integer(0, 999), false, "The worked station's DXCC entity number";
    Cqz "cqz" "CQZ" "cqz" Integer(1, 40), false, "The worked station's CQ zone";
    Ituz "ituz" "ITUZ" "ituz" Integer(1, 90), false, "The worked station's ITU zone";
    Cont "cont" "CONT" "cont" Choice(CONTINENTS), false, "The worked station's continent: NA, SA, EU, AF, OC, AS or AN";
    Pfx "pfx" "PFX" "pfx" Upper(20), false, "The worked station's WPX prefix";
    Iota "iota" "IOTA" "iota" Upper(20), false, "The worked station's IOTA reference, e.g. EU-005";
    MyIota "myIota" "MY_IOTA" "my-iota" Upper(20), false, "Your IOTA reference";
    SotaRef "sotaRef" "SOTA_REF" "sota-ref" Upper(40), true, "The worked station's SOTA summit, e.g. W7W/KG-001";
    MySotaRef "mySotaRef" "MY_SOTA_REF" "my-sota-ref" Upper(40), true, "Your SOTA summit";
    WwffRef "wwffRef" "WWFF_REF" "wwff-ref" Upper(40), false, "The worked station's WWFF reference, e.g. KFF-0001";
    MyWwffRef "myWwffRef" "MY_WWFF_REF" "my-wwff-ref" Upper(40), false, "Your WWFF reference";
    SatName "satName" "SAT_NAME" "sat-name" Upper(40), false, "The satellite, e.g. AO-91";
    SatMode "satMode" "SAT_MODE" "sat-mode" Upper(20), false, "The satellite mode, e.g. U/V";
    PropMode "propMode" "PROP_MODE" "prop-mode" Choice(PROPAGATION), false, "The propagation mode, e.g. SAT, EME, ES";
    FreqRx "freqRx" "FREQ_RX" "freq-rx" Number(0.0, 300_000.0), false, "The receive frequency in MHz (split or satellite)";
    BandRx "bandRx" "BAND_RX" "band-rx" Band, false, "The receive band, e.g. 70cm";
    ContestId "contestId" "CONTEST_ID" "contest-id" Upper(60), false, "The contest, e.g. CQ-WW-CW";
    Stx "stx" "STX" "stx" Integer(0, 100_000_000), false, "The serial number you sent";
    Srx "srx" "SRX" "srx" Integer(0, 100_000_000), false, "The serial number you received";
    StxString "stxString" "STX_STRING" "stx-string" Text(100), false, "The exchange you sent";
    SrxString "srxString" "SRX_STRING" "srx-string" Text(100), false, "The exchange you received";
    Class "class" "CLASS" "class" Upper(20), false, "The worked station's contest class, e.g. Field Day's 2A";
    ArrlSect "arrlSect" "ARRL_SECT" "arrl-sect" Upper(20), false, "The worked station's ARRL or RAC section, e.g. CT";
    Check "check" "CHECK" "check" Upper(20), false, "The worked station's Sweepstakes check: the year first licensed, e.g. 72";
    Precedence "precedence" "PRECEDENCE" "precedence" Upper(20), false, "The worked station's Sweepstakes precedence, e.g. A";
    Transmitter "transmitter" "APP_SVC_TRANSMITTER" "transmitter" Integer(0, 1), true, "Which transmitter of a two-transmitter (multi-two) contest station made the contact, 0 or 1: Cabrillo's transmitter id (in ADIF svc's own APP_SVC_TRANSMITTER, as ADIF has none)";
    QslSent "qslSent" "QSL_SENT" "qsl-sent" Choice(QSL_SENT), false, "Paper QSL sent: Y, N, R (requested), Q (queued) or I (ignore)";
    QslRcvd "qslRcvd" "QSL_RCVD" "qsl-rcvd" Choice(QSL_RCVD), false, "Paper QSL received: Y, N, R, I or V";
    QslSdate "qslSdate" "QSLSDATE" "qsl-sdate" Date, false, "When the paper QSL was sent";
    QslRdate "qslRdate" "QSLRDATE" "qsl-rdate" Date, false, "When the paper QSL was received";
    QslSentVia "qslSentVia" "QSL_SENT_VIA" "qsl-sent-via" Choice(QSL_VIA), false, "How the QSL was sent: B (bureau), D (direct), E (electronic) or M (manager)";
    QslRcvdVia "qslRcvdVia" "QSL_RCVD_VIA" "qsl-rcvd-via" Choice(QSL_VIA), false, "How the QSL came: B, D, E or M";
    QslVia "qslVia" "QSL_VIA" "qsl-via" Text(200), false, "The QSL route, e.g. a manager's callsign";
    Qslmsg "qslmsg" "QSLMSG" "qslmsg" Lines(2000), false, "The message for the QSL card";
    LotwQslSent "lotwQslSent" "LOTW_QSL_SENT" "lotw-qsl-sent" Choice(QSL_SENT), false, "Uploaded to LoTW: Y, N, R, Q or I";
    LotwQslRcvd "lotwQslRcvd" "LOTW_QSL_RCVD" "lotw-qsl-rcvd" Choice(QSL_RCVD), false, "Confirmed on LoTW: Y, N, R, I or V";
    LotwQslSdate "lotwQslSdate" "LOTW_QSLSDATE" "lotw-qsl-sdate" Date, false, "When it was uploaded to LoTW";
    LotwQslRdate "lotwQslRdate" "LOTW_QSLRDATE" "lotw-qsl-rdate" Date, false, "When LoTW confirmed it";
    EqslQslSent "eqslQslSent" "EQSL_QSL_SENT" "eqsl-qsl-sent" Choice(QSL_SENT), false, "Sent to eQSL: Y, N, R, Q or I";
    EqslQslRcvd "eqslQslRcvd" "EQSL_QSL_RCVD" "eqsl-qsl-rcvd" Choice(QSL_RCVD), false, "Confirmed on eQSL: Y, N, R, I or V";
    EqslQslSdate "eqslQslSdate" "EQSL_QSLSDATE" "eqsl-qsl-sdate" Date, false, "When it was sent to eQSL";
    EqslQslRdate "eqslQslRdate" "EQSL_QSLRDATE" "eqsl-qsl-rdate" Date, false, "When eQSL confirmed it";
    Rig "rig" "RIG" "rig" Lines(200), false, "The worked station's rig";
    MyRig "myRig" "MY_RIG" "my-rig" Text(200), true, "Your rig";
    MyAntenna "myAntenna" "MY_ANTENNA" "my-antenna" Text(200), true, "Your antenna";
    MyCity "myCity" "MY_CITY" "my-city" Text(200), false, "Your city";
    MyState "myState" "MY_STATE" "my-state" Upper(20), false, "Your state or province code";
    MyCnty "myCnty" "MY_CNTY" "my-cnty" Text(100), false, "Your county";
    MyCountry "myCountry" "MY_COUNTRY" "my-country" Text(100), false, "Your DXCC entity name";
    MyDxcc "myDxcc" "MY_DXCC" "my-dxcc" Integer(0, 999), false, "Your DXCC entity number";
    MyCqZone "myCqZone" "MY_CQ_ZONE" "my-cq-zone" Integer(1, 40), false, "Your CQ zone";
    MyItuZone "myItuZone" "MY_ITU_ZONE" "my-itu-zone" Integer(1, 90), false, "Your ITU zone";
    MyName "myName" "MY_NAME" "my-name" Text(100), false, "Your name";
}

/// ADIF fields svc writes from fields of other names: the seed's, and QSO_DATE_OFF (the date
/// half of `timeOff`). The `adif` map may not hold them, since two values for one field would
/// leave a reader to pick one.
pub const SEED_ADIF: &[&str] = &[
    "CALL",
    "QSO_DATE",
    "TIME_ON",
    "FREQ",
    "BAND",
    "MODE",
    "SUBMODE",
    "RST_SENT",
    "RST_RCVD",
    "NAME",
    "NOTES",
    "SIG",
    "SIG_INFO",
    "MY_SIG",
    "MY_SIG_INFO",
    "POTA_REF",
    "MY_POTA_REF",
    "STATION_CALLSIGN",
    "QSO_DATE_OFF",
];

/// Most entries the `adif` map of one contact takes, and the longest name and value.
pub const MAX_ADIF_ENTRIES: usize = 200;
pub const MAX_ADIF_NAME: usize = 64;
pub const MAX_ADIF_VALUE: usize = 4000;

impl Field {
    pub fn def(self) -> &'static Def {
        &FIELDS[self as usize]
    }

    pub fn by_wire(name: &str) -> Option<Field> {
        FIELDS.iter().find(|d| d.wire == name).map(|d| d.field)
    }

    pub fn by_adif(name: &str) -> Option<Field> {
        FIELDS
            .iter()
            .find(|d| d.adif.eq_ignore_ascii_case(name))
            .map(|d| d.field)
    }
}

impl Def {
    /// Checks a value given as text (a flag, a form, an ADIF file, a JSON string) and gives
    /// it in its stored form; blank is `None`. The error names the wire field and says what
    /// a value looks like.
    pub fn check(&self, raw: &str) -> Result<Option<String>, ApiError> {
        let name = self.wire;
        let value = raw.trim();
        if value.is_empty() {
            return Ok(None);
        }
        let bad = |what: String| Err(ApiError::field(name, format!("{name} {what}")));
        match self.kind {
            Text(max) => single_line(name, value, max),
            Lines(max) => multi_line(name, value, max),
            Upper(max) => Ok(single_line(name, value, max)?.map(|v| v.to_uppercase())),
            Call => normalize_callsign(name, value).map(Some),
            Grid => match grid(value) {
                Some(g) => Ok(Some(g)),
                None => bad(format!(
                    "{value:?} is not a Maidenhead locator: 2, 4, 6 or 8 characters, e.g. FN31 or FN31pr"
                )),
            },
            Integer(lo, hi) => match value.parse::<i64>() {
                Ok(n) if (lo..=hi).contains(&n) => Ok(Some(n.to_string())),
                _ => bad(format!("{value:?} is not a whole number from {lo} to {hi}")),
            },
            Number(lo, hi) => match value.parse::<f64>() {
                Ok(n) if n.is_finite() && (lo..=hi).contains(&n) => Ok(Some(number_text(n))),
                _ => bad(format!("{value:?} is not a number from {lo} to {hi}")),
            },
            Choice(values) => {
                let upper = value.to_ascii_uppercase();
                if values.contains(&upper.as_str()) {
                    Ok(Some(upper))
                } else {
                    bad(format!("{value:?} is not one of {}", values.join(", ")))
                }
            }
            Date => {
                let parsed = NaiveDate::parse_from_str(value, "%Y-%m-%d")
                    .or_else(|_| NaiveDate::parse_from_str(value, "%Y%m%d"));
                match parsed {
                    Ok(d) => Ok(Some(d.format("%Y-%m-%d").to_string())),
                    Err(_) => bad(format!("{value:?} is not a date; write YYYY-MM-DD")),
                }
            }
            Instant => {
                let at = Timestamp::parse(name, value)?;
                Ok(Some(at.to_string()))
            }
            Band => match band_lower_edge(value) {
                Some(_) => Ok(Some(value.to_ascii_lowercase())),
                None => bad(format!("{value:?} is not a band, e.g. 20m or 70cm")),
            },
        }
    }

    /// A stored value as JSON: numbers as numbers, the rest as strings.
    pub fn json(&self, stored: &str) -> Value {
        match self.kind {
            Integer(..) => stored
                .parse::<i64>()
                .map_or_else(|_| Value::from(stored), Value::from),
            Number(..) => stored
                .parse::<f64>()
                .map_or_else(|_| Value::from(stored), Value::from),
            _ => Value::from(stored),
        }
    }

    /// What a value given as JSON says, as text for [`Def::check`]: a string, or a number for
    /// the numeric kinds; `Ok(None)` for null.
    pub fn text_of(&self, value: &Value) -> Result<Option<String>, ApiError> {
        let numeric = matches!(self.kind, Integer(..) | Number(..));
        match value {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s.clone())),
            // A whole number may come as 12.0 from a client that has only floats.
            Value::Number(n) if numeric => Ok(Some(match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => i.to_string(),
                (None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.0}"),
                _ => n.to_string(),
            })),
            _ => {
                let want = if numeric { "a number" } else { "a string" };
                Err(ApiError::field(
                    self.wire,
                    format!("{} must be {want} (or null)", self.wire),
                ))
            }
        }
    }
}

/// A locator in its usual case (`FN31pr07`): field letters upper, subsquare letters lower.
pub fn grid(raw: &str) -> Option<String> {
    let b = raw.trim().as_bytes();
    if !matches!(b.len(), 2 | 4 | 6 | 8) {
        return None;
    }
    let mut out = String::with_capacity(b.len());
    for (i, c) in b.iter().enumerate() {
        let ok = match i {
            0 | 1 => matches!(c.to_ascii_uppercase(), b'A'..=b'R'),
            2 | 3 | 6 | 7 => c.is_ascii_digit(),
            _ => matches!(c.to_ascii_lowercase(), b'a'..=b'x'),
        };
        if !ok {
            return None;
        }
        out.push(char::from(if i < 2 {
            c.to_ascii_uppercase()
        } else {
            c.to_ascii_lowercase()
        }));
    }
    Some(out)
}

/// A number in shortest form: "100", "14.074", "0.5".
pub fn number_text(n: f64) -> String {
    let text = format!("{n:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Checks one entry of the `adif` map: an ADIF field name (letters, digits, underscores)
/// that is not one svc writes from its own fields, and a value ADIF can carry.
pub fn check_adif_entry(name: &str, value: &str) -> Result<(String, String), ApiError> {
    let upper = name.trim().to_ascii_uppercase();
    let valid = !upper.is_empty()
        && upper.len() <= MAX_ADIF_NAME
        && upper
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !valid {
        return Err(ApiError::field(
            "adif",
            format!(
                "adif: {:?} is not an ADIF field name: letters, digits and underscores, at most {MAX_ADIF_NAME}",
                super::ids::truncate(name, 40)
            ),
        ));
    }
    if SEED_ADIF.contains(&upper.as_str()) {
        return Err(ApiError::field(
            "adif",
            format!(
                "adif: {upper} is written from the contact's own fields; send it as the field it is (callsign, frequency, mode, timeOn, notes, …), not in adif"
            ),
        ));
    }
    if value.chars().count() > MAX_ADIF_VALUE {
        return Err(ApiError::field(
            "adif",
            format!("adif: {upper} is longer than {MAX_ADIF_VALUE} characters; shorten it"),
        ));
    }
    if value
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        return Err(ApiError::field(
            "adif",
            format!("adif: {upper} contains control characters; remove them"),
        ));
    }
    Ok((upper, value.to_owned()))
}

/// The declared fields a contact has, in their stored form, and its other ADIF fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fields {
    /// The values, sorted by field, each field once. A few values a contact, kept for
    /// thousands of contacts at once (a logbook's pages, an import's batch): packed, a quarter
    /// of the memory of a list of owned strings, and a search in it no slower.
    values: Packed<Field>,
    /// Every other ADIF field as read, by upper-case ADIF name.
    pub adif: BTreeMap<String, String>,
    /// The log this contact came from had its band and no frequency: `frequency` is the
    /// band's lower edge, and an export writes BAND alone, as it was. `bandOnly` on the wire.
    pub band_only: bool,
}

impl Fields {
    fn find(&self, field: Field) -> Result<usize, usize> {
        self.values.search(|_, f| f.cmp(&field))
    }

    pub fn get(&self, field: Field) -> Option<&str> {
        self.find(field).ok().map(|i| self.values.get(i).0)
    }

    /// Sets a value already in its stored form ([`Def::check`]); `None` removes it. Packs
    /// the values again: they are set once as a contact is read, and read many times.
    pub fn set(&mut self, field: Field, value: Option<String>) {
        let found = self.find(field);
        if found.is_err() && value.is_none() {
            return;
        }
        let mut values: Vec<(&str, Field)> = self.values.iter().collect();
        match (found, value.as_deref()) {
            (Ok(i), Some(v)) => values[i].0 = v,
            (Err(i), Some(v)) => values.insert(i, (v, field)),
            (Ok(i), None) => {
                values.remove(i);
            }
            (Err(_), None) => {}
        }
        self.values = Packed::new(values);
    }

    /// Fields of `values`, each already in its stored form and named once, packed once: for a
    /// reader that has many contacts' values at hand (the awards' read of a whole log).
    pub fn of_values<'a>(values: impl IntoIterator<Item = (Field, &'a str)>) -> Fields {
        let mut values: Vec<(Field, &str)> = values.into_iter().collect();
        values.sort_by_key(|(field, _)| *field);
        Fields {
            values: Packed::new(values.into_iter().map(|(f, v)| (v, f))),
            ..Fields::default()
        }
    }

    /// The declared fields that have a value, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static Def, &str)> {
        self.values.iter().map(|(v, f)| (f.def(), v))
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty() && self.adif.is_empty() && !self.band_only
    }

    /// Reads the declared fields and `adif` from a JSON object (a request body), checking
    /// each; `take` hands out each wire name's value once, so the caller can refuse what is
    /// left as unknown.
    pub fn from_json(mut take: impl FnMut(&str) -> Option<Value>) -> Result<Fields, ApiError> {
        let mut fields = Fields::default();
        for def in FIELDS {
            if let Some(value) = take(def.wire)
                && let Some(text) = def.text_of(&value)?
            {
                fields.set(def.field, def.check(&text)?);
            }
        }
        if let Some(adif) = take("adif") {
            fields.adif = adif_map(&adif)?
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| (k, v)))
                .collect();
        }
        fields.band_only = match take("bandOnly") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => false,
            Some(Value::Bool(true)) => true,
            Some(_) => {
                return Err(ApiError::field(
                    "bandOnly",
                    "bandOnly must be true or false: true when the log had the band and no frequency",
                ));
            }
        };
        fields.check_adif_clash()?;
        Ok(fields)
    }

    /// An `adif` map entry may not stand for a declared field the contact also has: a file
    /// would then carry two values for one field.
    pub fn check_adif_clash(&self) -> Result<(), ApiError> {
        for name in self.adif.keys() {
            if let Some(field) = Field::by_adif(name)
                && self.find(field).is_ok()
            {
                let wire = field.def().wire;
                return Err(ApiError::field(
                    "adif",
                    format!("adif: {name} is also given as {wire}; send it once, as {wire}"),
                ));
            }
        }
        Ok(())
    }
}

/// The `adif` object of a body: names to a string, or to null (which an edit reads as
/// "remove"), each entry checked.
pub fn adif_map(value: &Value) -> Result<BTreeMap<String, Option<String>>, ApiError> {
    let object = match value {
        Value::Null => return Ok(BTreeMap::new()),
        Value::Object(o) => o,
        _ => {
            return Err(ApiError::field(
                "adif",
                "adif must be an object of ADIF field names to text, e.g. {\"APP_N1MM_EXCHANGE1\": \"599\"}",
            ));
        }
    };
    if object.len() > MAX_ADIF_ENTRIES {
        return Err(ApiError::field(
            "adif",
            format!(
                "adif has {} entries; a contact carries at most {MAX_ADIF_ENTRIES}",
                object.len()
            ),
        ));
    }
    let mut out = BTreeMap::new();
    for (name, value) in object {
        let value = match value {
            Value::Null => None,
            Value::String(s) if s.trim().is_empty() => None,
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => {
                return Err(ApiError::field(
                    "adif",
                    format!("adif: the value of {name:?} must be a string"),
                ));
            }
        };
        let (name, value) = match value {
            Some(v) => {
                let (n, v) = check_adif_entry(name, &v)?;
                (n, Some(v))
            }
            None => (check_adif_entry(name, "")?.0, None),
        };
        out.insert(name, value);
    }
    Ok(out)
}

impl Serialize for Fields {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let extra = usize::from(!self.adif.is_empty()) + usize::from(self.band_only);
        let mut map = serializer.serialize_map(Some(self.values.len() + extra))?;
        for (def, value) in self.iter() {
            map.serialize_entry(def.wire, &def.json(value))?;
        }
        if !self.adif.is_empty() {
            map.serialize_entry("adif", &self.adif)?;
        }
        if self.band_only {
            map.serialize_entry("bandOnly", &true)?;
        }
        map.end()
    }
}

/// Reads what a server (or the store, or the journal) wrote without checking it again: the
/// server checked it on the way in, and a client must still read a newer server's fields it
/// does not know (they are skipped).
impl<'de> Deserialize<'de> for Fields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldsVisitor;
        impl<'de> Visitor<'de> for FieldsVisitor {
            type Value = Fields;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a contact's fields")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
                let mut fields = Fields::default();
                // Packed once at the end: a `set` a field packs them all again, and a page of
                // a logbook or an export reads thousands of contacts' fields.
                let mut values: Vec<(Field, Option<String>)> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "adif" {
                        let adif: Option<BTreeMap<String, String>> = map.next_value()?;
                        fields.adif = adif.unwrap_or_default();
                    } else if key == "bandOnly" {
                        fields.band_only = map.next_value::<Option<bool>>()?.unwrap_or(false);
                    } else if let Some(field) = Field::by_wire(&key) {
                        let value: Value = map.next_value()?;
                        let text = match value {
                            Value::Null => None,
                            Value::String(s) => Some(s),
                            Value::Number(n) => Some(match n.as_i64() {
                                Some(i) => i.to_string(),
                                None => number_text(n.as_f64().unwrap_or_default()),
                            }),
                            other => {
                                return Err(de::Error::custom(format!(
                                    "{key}: expected a string or a number, got {other}"
                                )));
                            }
                        };
                        values.push((field, text));
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                // In declaration order; of a field named twice, the last value stands, as
                // `set` one after the other would leave it.
                values.sort_by_key(|(field, _)| *field);
                values.dedup_by(|later, earlier| {
                    let same = later.0 == earlier.0;
                    if same {
                        std::mem::swap(&mut later.1, &mut earlier.1);
                    }
                    same
                });
                fields.values = Packed::new(
                    values
                        .iter()
                        .filter_map(|(field, text)| Some((text.as_deref()?, *field))),
                );
                Ok(fields)
            }
        }
        deserializer.deserialize_map(FieldsVisitor)
    }
}

/// An edit of the declared fields and the `adif` map: `Some(None)` clears a field, an `adif`
/// entry set to `None` is removed, and what is not named stays.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldsPatch {
    pub values: BTreeMap<Field, Option<String>>,
    pub adif: BTreeMap<String, Option<String>>,
    /// The edit named `adif`, if only as `{}` or null: it names a field, and changes nothing
    /// of it.
    pub names_adif: bool,
    /// `bandOnly` set (true) or cleared (false or null).
    pub band_only: Option<bool>,
}

impl FieldsPatch {
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
            && self.adif.is_empty()
            && !self.names_adif
            && self.band_only.is_none()
    }

    /// Reads a PATCH body's declared fields (null or blank clears) and `adif` entries.
    pub fn from_json(mut take: impl FnMut(&str) -> Option<Value>) -> Result<Self, ApiError> {
        let mut patch = FieldsPatch::default();
        for def in FIELDS {
            if let Some(value) = take(def.wire) {
                let checked = match def.text_of(&value)? {
                    Some(text) => def.check(&text)?,
                    None => None,
                };
                patch.values.insert(def.field, checked);
            }
        }
        if let Some(adif) = take("adif") {
            patch.adif = adif_map(&adif)?;
            patch.names_adif = true;
        }
        patch.band_only = match take("bandOnly") {
            None => None,
            Some(Value::Null) | Some(Value::Bool(false)) => Some(false),
            Some(Value::Bool(true)) => Some(true),
            Some(_) => {
                return Err(ApiError::field(
                    "bandOnly",
                    "bandOnly must be true, false or null",
                ));
            }
        };
        Ok(patch)
    }

    /// The stored fields with the edit applied, checked as a create checks them.
    pub fn apply(&self, stored: &Fields) -> Result<Fields, ApiError> {
        let mut out = stored.clone();
        if let Some(band_only) = self.band_only {
            out.band_only = band_only;
        }
        for (field, value) in &self.values {
            out.set(*field, value.clone());
        }
        for (name, value) in &self.adif {
            match value {
                Some(v) => {
                    out.adif.insert(name.clone(), v.clone());
                }
                None => {
                    out.adif.remove(name);
                }
            }
        }
        if out.adif.len() > MAX_ADIF_ENTRIES {
            return Err(ApiError::field(
                "adif",
                format!("adif would have more than {MAX_ADIF_ENTRIES} entries; remove some"),
            ));
        }
        out.check_adif_clash()?;
        Ok(out)
    }
}

impl Serialize for FieldsPatch {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let extra = usize::from(!self.adif.is_empty()) + usize::from(self.band_only.is_some());
        let mut map = serializer.serialize_map(Some(self.values.len() + extra))?;
        for (field, value) in &self.values {
            let def = field.def();
            map.serialize_entry(def.wire, &value.as_deref().map(|v| def.json(v)))?;
        }
        if !self.adif.is_empty() {
            map.serialize_entry("adif", &self.adif)?;
        }
        if let Some(band_only) = self.band_only {
            map.serialize_entry("bandOnly", &band_only)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn camel(adif: &str) -> String {
        let lower = adif.to_ascii_lowercase();
        let mut out = String::new();
        let mut up = false;
        for c in lower.chars() {
            if c == '_' {
                up = true;
            } else if up {
                out.push(c.to_ascii_uppercase());
                up = false;
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn fields_read_back_in_declaration_order_the_last_value_standing() {
        let read: Fields = serde_json::from_str(
            r#"{"txPwr": 5, "gridsquare": "FN31", "comment": "x", "gridsquare": "FN42",
                "comment": null, "later": 1, "adif": {"APP_X": "y"}}"#,
        )
        .unwrap();
        let mut set = Fields::default();
        set.set(Field::Gridsquare, Some("FN42".into()));
        set.set(Field::TxPwr, Some("5".into()));
        set.adif.insert("APP_X".into(), "y".into());
        assert_eq!(read, set);
        assert_eq!(read.get(Field::Comment), None);
    }

    #[test]
    fn the_table_is_consistent() {
        for (i, def) in FIELDS.iter().enumerate() {
            assert_eq!(def.field as usize, i, "{}", def.wire);
            // Wire names follow the ADIF name, but for the QSL dates, whose ADIF names
            // (QSLSDATE) run two words together, and svc's own application fields, named
            // on the wire without the APP_SVC_ that ADIF needs.
            if let Some(own) = def.adif.strip_prefix("APP_SVC_") {
                assert_eq!(def.wire, camel(own), "{}", def.adif);
            } else if !def.adif.contains("QSLSDATE") && !def.adif.contains("QSLRDATE") {
                assert_eq!(def.wire, camel(def.adif), "{}", def.adif);
            }
            assert!(
                def.flag
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{}",
                def.flag
            );
            assert!(!SEED_ADIF.contains(&def.adif), "{}", def.adif);
            assert_eq!(Field::by_wire(def.wire), Some(def.field));
            assert_eq!(Field::by_adif(def.adif), Some(def.field));
        }
        let mut flags: Vec<_> = FIELDS.iter().map(|d| d.flag).collect();
        flags.sort();
        flags.dedup();
        assert_eq!(flags.len(), FIELDS.len(), "flags are unique");
    }

    #[test]
    fn values_are_checked_and_normalised_by_kind() {
        let check = |f: Field, v: &str| f.def().check(v);
        assert_eq!(
            check(Field::Gridsquare, "fn31PR").unwrap().as_deref(),
            Some("FN31pr")
        );
        assert_eq!(
            check(Field::Gridsquare, "jo22").unwrap().as_deref(),
            Some("JO22")
        );
        assert!(check(Field::Gridsquare, "FN3").is_err());
        assert!(check(Field::Gridsquare, "ZZ99").is_err());
        assert_eq!(
            check(Field::TxPwr, "100.0").unwrap().as_deref(),
            Some("100")
        );
        assert!(check(Field::TxPwr, "-5").is_err());
        assert_eq!(check(Field::Cqz, "05").unwrap().as_deref(), Some("5"));
        assert!(check(Field::Cqz, "41").is_err());
        assert_eq!(check(Field::Cont, "eu").unwrap().as_deref(), Some("EU"));
        assert!(check(Field::Cont, "XX").is_err());
        assert_eq!(
            check(Field::QslSdate, "20261101").unwrap().as_deref(),
            Some("2026-11-01")
        );
        assert!(check(Field::QslSdate, "2026-13-01").is_err());
        assert_eq!(
            check(Field::TimeOff, "2026-11-01T12:05:00Z")
                .unwrap()
                .as_deref(),
            Some("2026-11-01T12:05:00Z")
        );
        assert_eq!(
            check(Field::Operator, " w1aw ").unwrap().as_deref(),
            Some("W1AW")
        );
        assert_eq!(check(Field::Qth, "  ").unwrap(), None);
        assert_eq!(
            check(Field::BandRx, "70CM").unwrap().as_deref(),
            Some("70cm")
        );
        let err = check(Field::Ituz, "x").unwrap_err();
        assert_eq!(err.details.unwrap()["field"], "ituz");
    }

    #[test]
    fn fields_go_out_typed_and_come_back() {
        let mut f = Fields::default();
        f.set(Field::Gridsquare, Some("FN31pr".into()));
        f.set(Field::TxPwr, Some("5".into()));
        f.set(Field::Dxcc, Some("291".into()));
        f.adif.insert("APP_N1MM_ID".into(), "abc".into());
        let json = serde_json::to_value(&f).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"gridsquare": "FN31pr", "txPwr": 5.0, "dxcc": 291, "adif": {"APP_N1MM_ID": "abc"}})
        );
        let mut with_unknown = json.clone();
        with_unknown["aFieldOfLater"] = Value::from(1);
        assert_eq!(serde_json::from_value::<Fields>(with_unknown).unwrap(), f);
        assert_eq!(
            serde_json::to_value(Fields::default()).unwrap(),
            serde_json::json!({})
        );
    }

    #[test]
    fn a_body_is_checked_and_the_adif_map_refuses_seed_fields_and_clashes() {
        let body = serde_json::json!({"gridsquare": "fn31", "cqz": 5, "stx": 12.0, "adif": {"app_x_y": "1"}});
        let mut o = body.as_object().unwrap().clone();
        let f = Fields::from_json(|k| o.remove(k)).unwrap();
        assert_eq!(f.get(Field::Gridsquare), Some("FN31"));
        assert_eq!(f.get(Field::Cqz), Some("5"));
        assert_eq!(
            f.get(Field::Stx),
            Some("12"),
            "a whole number sent as a float"
        );
        assert_eq!(f.adif.get("APP_X_Y").map(String::as_str), Some("1"));
        assert!(o.is_empty());

        for bad in [
            serde_json::json!({"cqz": "five"}),
            serde_json::json!({"gridsquare": 5}),
            serde_json::json!({"adif": {"CALL": "W1AW"}}),
            serde_json::json!({"adif": {"BAD NAME": "x"}}),
            serde_json::json!({"adif": ["x"]}),
            serde_json::json!({"gridsquare": "FN31", "adif": {"GRIDSQUARE": "FN31"}}),
        ] {
            let mut o = bad.as_object().unwrap().clone();
            assert!(Fields::from_json(|k| o.remove(k)).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_patch_sets_clears_and_merges() {
        let mut stored = Fields::default();
        stored.set(Field::Qth, Some("Boston".into()));
        stored.set(Field::State, Some("MA".into()));
        stored.adif.insert("APP_A".into(), "1".into());
        stored.adif.insert("APP_B".into(), "2".into());
        let body = serde_json::json!({"qth": null, "gridsquare": "FN42", "adif": {"APP_A": null, "APP_C": "3"}});
        let mut o = body.as_object().unwrap().clone();
        let patch = FieldsPatch::from_json(|k| o.remove(k)).unwrap();
        let out = patch.apply(&stored).unwrap();
        assert_eq!(out.get(Field::Qth), None);
        assert_eq!(out.get(Field::State), Some("MA"));
        assert_eq!(out.get(Field::Gridsquare), Some("FN42"));
        assert_eq!(
            out.adif.keys().cloned().collect::<Vec<_>>(),
            ["APP_B", "APP_C"]
        );
        assert_eq!(serde_json::to_value(&patch).unwrap(), body);

        let mut o = serde_json::json!({"adif": {}}).as_object().unwrap().clone();
        let named = FieldsPatch::from_json(|k| o.remove(k)).unwrap();
        assert!(!named.is_empty(), "an edit naming only adif names a field");
        assert_eq!(named.apply(&stored).unwrap(), stored);
    }
}
