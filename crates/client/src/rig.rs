//! A client of Hamlib's rig control daemon, `rigctld`, over TCP: where the radio is tuned
//! (`f`), its mode (`m`), and QSY commands (`F`, `M`).
//!
//! rigctld answers in one of two forms. The plain form is bare values, one per line
//! (`14074000`; `USB` and `2400`), or `RPRT n` alone for commands without values and for
//! errors. The extended form, asked for with a `+` before the command, echoes the command
//! (`get_freq:`), gives `Key: value` lines and always ends with `RPRT n`. Requests go out in
//! the extended form, whose end is never in doubt; an answer in the plain form is taken as
//! well, and a daemon that refuses the `+` (answering a bare `RPRT`) is spoken to in the plain
//! form for the rest of that connection. Some Hamlib versions add a `VFO` line to the answer
//! (`VFO: VFOA`, or a bare `VFOA` in the plain form); it is skipped.
//!
//! A daemon started with `--vfo` (`-o`) wants the VFO as every command's first argument
//! (`f currVFO`) and waits for it, forever, when it is missing. Hamlib's `\chk_vfo` says which
//! the daemon wants (`1` or `0`); it is asked once on each connection, before the first
//! request, and a daemon that does not know it (`RPRT -n`) wants no VFO.
//!
//! One request at a time on one connection, each under a deadline: whatever the daemon does
//! (answers slowly, never, with garbage, or closes), a request ends within the answer time-out
//! with a value or an error, and the next request starts on a fresh connection after any
//! failure that could have left the stream out of step.

use std::fmt;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use svc_model::mode::{ModeClass, parent};
use svc_model::text::printable;

/// rigctld's port when none is given.
pub const DEFAULT_PORT: u16 = 4532;
/// A daemon on the station's network connects in milliseconds; one that does not connect in
/// two seconds is as good as gone, and the next try comes soon anyway.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// rigctld asks the radio over CAT, at 4800 baud on older radios, and gives up on it by itself
/// (with `RPRT -5`) after its own time-out: two seconds covers a slow radio, not a hung daemon.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(2);
/// rigctld's lines are short (a mode name, a frequency in Hz); a longer one is not rigctld.
const MAX_LINE: usize = 256;
/// An answer has a header, a few values, a VFO and the RPRT line: more is not rigctld either.
const MAX_LINES: usize = 16;
/// Above every amateur allocation; a larger number is a garbled answer, not a frequency.
const MAX_HZ: f64 = 300e9;

/// Where rigctld listens: `HOST:PORT`, or a host alone for port 4532.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RigAddress {
    pub host: String,
    pub port: u16,
}

impl RigAddress {
    /// Reads `HOST:PORT`, `HOST`, `[IPV6]:PORT` or a bare IPv6 address.
    pub fn parse(text: &str) -> Result<RigAddress, String> {
        let text = text.trim();
        let example =
            "give HOST:PORT of rigctld, e.g. localhost:4532 (a host alone means port 4532)";
        if text.is_empty() {
            return Err(format!("the rig address is empty; {example}"));
        }
        if text.contains("://") || text.contains('/') {
            return Err(format!(
                "the rig address {:?} is not a URL; {example}",
                printable(text)
            ));
        }
        let (host, port) = if let Some(rest) = text.strip_prefix('[') {
            let (host, after) = rest.split_once(']').ok_or_else(|| {
                format!(
                    "the rig address {:?} misses its ]; {example}",
                    printable(text)
                )
            })?;
            match after {
                "" => (host, None),
                _ => match after.strip_prefix(':') {
                    Some(port) => (host, Some(port)),
                    None => {
                        return Err(format!(
                            "the rig address {:?} has text after its ]; {example}",
                            printable(text)
                        ));
                    }
                },
            }
        } else if text.matches(':').count() > 1 {
            // Several colons and no brackets: an IPv6 address, whose last group is no port.
            (text, None)
        } else {
            match text.split_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (text, None),
            }
        };
        let host_ok = !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '%'));
        if !host_ok {
            return Err(format!(
                "the rig address {:?} has no usable host; {example}",
                printable(text)
            ));
        }
        let port = match port {
            None => DEFAULT_PORT,
            Some(p) => p.parse::<u16>().ok().filter(|p| *p != 0).ok_or_else(|| {
                format!(
                    "the rig port {:?} is not a port (1-65535); {example}",
                    printable(p)
                )
            })?,
        };
        Ok(RigAddress {
            host: host.to_owned(),
            port,
        })
    }
}

impl fmt::Display for RigAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// What the radio reads: where it is tuned, in Hz, and its mode as Hamlib names it (`USB`,
/// `PKTUSB`, `CW`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RigState {
    pub hz: u64,
    pub mode: String,
}

/// A change asked of the radio.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RigCommand {
    /// `F <Hz>`
    SetFrequency(u64),
    /// `M <MODE> 0`: the mode in Hamlib's name, with the radio's usual passband for it.
    SetMode(String),
}

/// Why a request to rigctld failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RigError {
    /// No connection to rigctld.
    Connect(String),
    /// rigctld took longer than the answer time-out.
    Timeout,
    /// rigctld closed the connection.
    Closed,
    /// Reading or writing the connection failed.
    Io(String),
    /// The answer is not rigctld's protocol.
    Garbled(String),
    /// rigctld answered `RPRT n` with n ≠ 0: the radio or Hamlib refused.
    Refused(i64),
}

impl RigError {
    /// Whether the connection may be out of step with the daemon (an answer half read, or
    /// still to come), so the next request must start on a fresh one.
    fn breaks_connection(&self) -> bool {
        !matches!(self, RigError::Refused(_))
    }
}

/// Hamlib's error codes (`rig_errcode_e`), as `RPRT -n` gives them.
fn hamlib_error(code: i64) -> &'static str {
    match code.unsigned_abs() {
        1 => "invalid parameter",
        2 => "invalid configuration",
        3 => "out of memory",
        4 => "function not implemented",
        5 => "the radio did not answer in time",
        6 => "input/output error with the radio",
        7 => "internal Hamlib error",
        8 => "protocol error with the radio",
        9 => "command rejected by the radio",
        10 => "argument truncated",
        11 => "function not available",
        12 => "VFO not targetable",
        13 => "error on the radio's bus",
        14 => "collision on the radio's bus",
        15 => "invalid argument",
        16 => "invalid VFO",
        17 => "argument out of range",
        18 => "function deprecated",
        19 => "security error",
        20 => "the radio is not powered on",
        21 => "limit exceeded",
        22 => "access denied",
        _ => "unknown error",
    }
}

impl fmt::Display for RigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RigError::Connect(why) => write!(f, "cannot connect to rigctld ({why})"),
            RigError::Timeout => f.write_str("rigctld did not answer in time"),
            RigError::Closed => f.write_str("rigctld closed the connection"),
            RigError::Io(why) => write!(f, "the connection to rigctld failed ({why})"),
            RigError::Garbled(why) => write!(f, "rigctld's answer makes no sense ({why})"),
            RigError::Refused(code) => {
                write!(f, "rigctld: {} (RPRT {code})", hamlib_error(*code))
            }
        }
    }
}

/// Text from the daemon, as an error message may quote it: no terminal controls, and short.
fn quoted(text: &str) -> String {
    let shown: String = printable(text).chars().take(24).collect();
    format!("{shown:?}")
}

/// The requests this client makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ask {
    Frequency,
    Mode,
    Set,
}

impl Ask {
    /// The values the answer carries, under their extended-form keys.
    fn keys(self) -> &'static [&'static str] {
        match self {
            Ask::Frequency => &["Frequency"],
            Ask::Mode => &["Mode", "Passband"],
            Ask::Set => &[],
        }
    }
}

/// Hamlib's VFO names, which some versions add to an answer.
const VFO_NAMES: &[&str] = &[
    "VFOA", "VFOB", "VFOC", "currVFO", "VFO", "MEM", "Mem", "Main", "Sub", "MainA", "MainB",
    "MainC", "SubA", "SubB", "SubC", "TX", "RX", "None",
];

/// An answer being read, line by line.
#[derive(Debug)]
pub struct Answer {
    ask: Ask,
    /// The header the extended form begins with, e.g. `get_freq`.
    header: &'static str,
    /// `None` until the first line tells the form.
    extended: Option<bool>,
    values: Vec<Option<String>>,
    lines: usize,
}

/// A complete answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// The values, in the order of the request's keys.
    Values(Vec<String>),
    /// `RPRT n`, n ≠ 0; `extended` says whether the daemon answered in the extended form.
    Refused { code: i64, extended: bool },
}

impl Answer {
    fn new(ask: Ask, header: &'static str) -> Answer {
        Answer {
            ask,
            header,
            extended: None,
            values: vec![None; ask.keys().len()],
            lines: 0,
        }
    }

    /// The answer to `f`.
    pub fn frequency() -> Answer {
        Answer::new(Ask::Frequency, "get_freq")
    }

    /// The answer to `m`.
    pub fn mode() -> Answer {
        Answer::new(Ask::Mode, "get_mode")
    }

    /// The answer to `F` (`set_freq`) or `M` (`set_mode`).
    fn set(command: &RigCommand) -> Answer {
        let header = match command {
            RigCommand::SetFrequency(_) => "set_freq",
            RigCommand::SetMode(_) => "set_mode",
        };
        Answer::new(Ask::Set, header)
    }

    /// Takes one line (without its newline); the reply once the answer is complete.
    pub fn line(&mut self, line: &str) -> Result<Option<Reply>, RigError> {
        self.lines += 1;
        if self.lines > MAX_LINES {
            return Err(RigError::Garbled(format!("more than {MAX_LINES} lines")));
        }
        let line = line.trim();
        if line.is_empty() {
            return Ok(None);
        }
        if let Some(code) = line.strip_prefix("RPRT") {
            let code: i64 = code
                .trim()
                .parse()
                .map_err(|_| RigError::Garbled(format!("{} is no RPRT code", quoted(line))))?;
            let extended = self.extended == Some(true);
            if code != 0 {
                return Ok(Some(Reply::Refused { code, extended }));
            }
            return self.complete().map(Some);
        }
        if self.extended.is_none() {
            let header = line
                .split_once(':')
                .is_some_and(|(name, _)| name.trim() == self.header);
            self.extended = Some(header);
            if header {
                return Ok(None);
            }
        }
        if let Some((key, value)) = line.split_once(':') {
            let slot = self
                .ask
                .keys()
                .iter()
                .position(|k| k.eq_ignore_ascii_case(key.trim()));
            // Other keys (VFO, and any a newer Hamlib adds) say nothing this client needs.
            if let Some(slot) = slot {
                self.values[slot] = Some(value.trim().to_owned());
            }
        } else if self.extended == Some(true) {
            return Err(RigError::Garbled(format!(
                "{} is no Key: value line",
                quoted(line)
            )));
        } else if !VFO_NAMES.contains(&line) {
            match self.values.iter_mut().find(|v| v.is_none()) {
                Some(slot) => *slot = Some(line.to_owned()),
                None => {
                    return Err(RigError::Garbled(format!(
                        "{} where no value was asked for",
                        quoted(line)
                    )));
                }
            }
        }
        // The plain form has no end marker: it ends with its last value.
        if self.extended == Some(false)
            && !self.values.is_empty()
            && self.values.iter().all(Option::is_some)
        {
            return self.complete().map(Some);
        }
        Ok(None)
    }

    fn complete(&mut self) -> Result<Reply, RigError> {
        let mut values = Vec::with_capacity(self.values.len());
        for (key, value) in self.ask.keys().iter().zip(&mut self.values) {
            let value = value
                .take()
                .ok_or_else(|| RigError::Garbled(format!("an answer without {key}")))?;
            values.push(value);
        }
        Ok(Reply::Values(values))
    }
}

/// The frequency of an `f` answer, in Hz. rigctld prints whole hertz; a fraction (some
/// programs that speak its protocol print `14074000.000000`) is rounded.
pub fn parse_hz(text: &str) -> Result<u64, RigError> {
    let value: f64 = text
        .parse()
        .map_err(|_| RigError::Garbled(format!("frequency {} is not a number", quoted(text))))?;
    if !value.is_finite() || value <= 0.0 || value > MAX_HZ {
        return Err(RigError::Garbled(format!(
            "frequency {} is out of range",
            quoted(text)
        )));
    }
    Ok(value.round() as u64)
}

/// The mode of an `m` answer: a Hamlib mode name such as `USB`, `PKTUSB` or `D-STAR`.
pub fn parse_mode(mode: &str, passband: &str) -> Result<String, RigError> {
    let name_ok = !mode.is_empty()
        && mode.len() <= 16
        && mode
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
    if !name_ok {
        return Err(RigError::Garbled(format!(
            "mode {} is not a mode name",
            quoted(mode)
        )));
    }
    passband
        .parse::<i64>()
        .map_err(|_| RigError::Garbled(format!("passband {} is not a number", quoted(passband))))?;
    Ok(mode.to_ascii_uppercase())
}

/// The logbook's mode for a radio's mode: sideband is SSB, CW reversed or narrow is CW, and the
/// sound-card modes (`PKTUSB`, `DATA-U`, …) are the data mode the operator is working,
/// `data_mode`. `None` for a mode the logbook cannot tell from the radio (D-STAR, WFM, …).
pub fn logbook_mode(rig_mode: &str, data_mode: &str) -> Option<String> {
    let mode = match rig_mode.to_ascii_uppercase().as_str() {
        "USB" | "LSB" => "SSB",
        "CW" | "CWR" | "CWN" => "CW",
        "PKTUSB" | "PKTLSB" | "DATA-U" | "DATA-L" | "DIGU" | "DIGL" => data_mode,
        "FM" | "FMN" => "FM",
        "AM" | "AMN" | "AMS" | "SAM" => "AM",
        "RTTY" | "RTTYR" => "RTTY",
        _ => return None,
    };
    Some(mode.to_owned())
}

/// Whether `mode` is worked through the radio's data mode (FT8, FT4, PSK31, JS8, …): not
/// phone, digital voice or CW (model::mode's classes), nor RTTY, which radios have a mode for.
/// A mode svc does not know is taken for a sound-card mode, as most new modes are.
pub fn is_data_mode(mode: &str) -> bool {
    let mode = mode.trim();
    if mode.is_empty() || mode.eq_ignore_ascii_case("RTTY") || parent(mode) == Some("RTTY") {
        return false;
    }
    !matches!(
        ModeClass::of(mode),
        Some(ModeClass::Phone | ModeClass::DigitalVoice | ModeClass::Cw)
    )
}

/// The radio's mode for the logbook's `mode`, at `hz`: SSB is lower sideband below 10 MHz
/// except on 60 m, as band plans have it. `None` for the digital voice modes, which Hamlib
/// cannot select in one way for every radio.
pub fn rig_mode_for(mode: &str, hz: Option<u64>) -> Option<String> {
    let mode = mode.trim().to_ascii_uppercase();
    let rig = match mode.as_str() {
        "SSB" => {
            let lower =
                hz.is_some_and(|hz| hz < 10_000_000 && !(5_060_000..=5_450_000).contains(&hz));
            if lower { "LSB" } else { "USB" }
        }
        "USB" | "LSB" | "CW" | "AM" | "FM" | "RTTY" => mode.as_str(),
        m if is_data_mode(m) => "PKTUSB",
        _ => return None,
    };
    Some(rig.to_owned())
}

/// The answer to `\chk_vfo`, one line: `1` (the daemon wants a VFO argument) or `0`, after
/// a name in some versions (`CHKVFO 1`, `ChkVFO: 1`); `RPRT -n` from a daemon that does not
/// know the command, which wants none.
pub fn parse_chk_vfo(line: &str) -> Result<bool, RigError> {
    let line = line.trim();
    if line.starts_with("RPRT") {
        return Ok(false);
    }
    match line.rsplit([' ', ':']).next() {
        Some("1") => Ok(true),
        Some("0") => Ok(false),
        _ => Err(RigError::Garbled(format!(
            "{} is no answer to \\chk_vfo",
            quoted(line)
        ))),
    }
}

/// `request` with the current VFO as its first argument, as a daemon started with `--vfo`
/// wants it: `f currVFO`, `F currVFO 14074000`.
pub fn with_vfo(request: &str) -> String {
    match request.split_once(' ') {
        Some((command, arguments)) => format!("{command} currVFO {arguments}"),
        None => format!("{request} currVFO"),
    }
}

/// One connection to rigctld.
struct Link {
    stream: BufReader<TcpStream>,
    /// Requests go out in the extended form until the daemon refuses it.
    extended: bool,
    /// Whether the daemon wants a VFO argument, once `\chk_vfo` said.
    vfo: Option<bool>,
}

impl Link {
    async fn line(&mut self) -> Result<String, RigError> {
        let mut buf = Vec::new();
        let n = (&mut self.stream)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .await
            .map_err(|e| RigError::Io(e.to_string()))?;
        if n == 0 {
            return Err(RigError::Closed);
        }
        if buf.last() != Some(&b'\n') {
            return Err(if n > MAX_LINE {
                RigError::Garbled(format!("a line longer than {MAX_LINE} bytes"))
            } else {
                RigError::Closed
            });
        }
        buf.pop();
        String::from_utf8(buf).map_err(|_| RigError::Garbled("a line that is not text".into()))
    }

    async fn send_line(&mut self, line: &str) -> Result<(), RigError> {
        self.stream
            .get_mut()
            .write_all(line.as_bytes())
            .await
            .map_err(|e| RigError::Io(e.to_string()))
    }

    /// Asks `\chk_vfo` (in the plain form: the extended one has no end line).
    async fn check_vfo(&mut self) -> Result<bool, RigError> {
        self.send_line("\\chk_vfo\n").await?;
        parse_chk_vfo(&self.line().await?)
    }

    async fn exchange(&mut self, request: &str, mut answer: Answer) -> Result<Reply, RigError> {
        let prefix = if self.extended { "+" } else { "" };
        let request = if self.vfo == Some(true) {
            with_vfo(request)
        } else {
            request.to_owned()
        };
        self.send_line(&format!("{prefix}{request}\n")).await?;
        loop {
            let line = self.line().await?;
            if let Some(reply) = answer.line(&line)? {
                return Ok(reply);
            }
        }
    }

    /// Sends `request` and reads its answer; a daemon that refuses the extended form is
    /// asked again, and from then on, in the plain form.
    async fn ask(
        &mut self,
        request: &str,
        answer: impl Fn() -> Answer,
    ) -> Result<Vec<String>, RigError> {
        if self.vfo.is_none() {
            self.vfo = Some(self.check_vfo().await?);
        }
        let mut reply = self.exchange(request, answer()).await?;
        if self.extended
            && matches!(
                reply,
                Reply::Refused {
                    extended: false,
                    ..
                }
            )
        {
            self.extended = false;
            reply = self.exchange(request, answer()).await?;
        }
        match reply {
            Reply::Values(values) => Ok(values),
            Reply::Refused { code, .. } => Err(RigError::Refused(code)),
        }
    }
}

/// rigctld at one address: connects when asked and again after a failure.
pub struct Rig {
    address: RigAddress,
    connect_timeout: Duration,
    answer_timeout: Duration,
    link: Option<Link>,
}

impl Rig {
    pub fn new(address: RigAddress) -> Rig {
        Rig {
            address,
            connect_timeout: CONNECT_TIMEOUT,
            answer_timeout: ANSWER_TIMEOUT,
            link: None,
        }
    }

    pub fn with_timeouts(mut self, connect: Duration, answer: Duration) -> Rig {
        self.connect_timeout = connect;
        self.answer_timeout = answer;
        self
    }

    async fn connect(&self) -> Result<Link, RigError> {
        let address = (self.address.host.as_str(), self.address.port);
        let stream = tokio::time::timeout(self.connect_timeout, TcpStream::connect(address))
            .await
            .map_err(|_| RigError::Connect(format!("{} did not answer", self.address)))?
            .map_err(|e| RigError::Connect(format!("{}: {e}", self.address)))?;
        // Requests are a few bytes each, and a poll waits for every one of them.
        let _ = stream.set_nodelay(true);
        Ok(Link {
            stream: BufReader::new(stream),
            extended: true,
            vfo: None,
        })
    }

    /// One request and its answer within the answer time-out, on the connection (made now
    /// when there is none); a failure that may leave the stream out of step drops it.
    async fn ask(
        &mut self,
        request: &str,
        answer: impl Fn() -> Answer,
    ) -> Result<Vec<String>, RigError> {
        let mut link = match self.link.take() {
            Some(link) => link,
            None => self.connect().await?,
        };
        let result = tokio::time::timeout(self.answer_timeout, link.ask(request, answer))
            .await
            .unwrap_or(Err(RigError::Timeout));
        if result.as_ref().is_ok() || result.as_ref().is_err_and(|e| !e.breaks_connection()) {
            self.link = Some(link);
        }
        result
    }

    /// The radio's frequency and mode (`f`, then `m`).
    pub async fn read(&mut self) -> Result<RigState, RigError> {
        let frequency = self.ask("f", Answer::frequency).await?;
        let hz = parse_hz(&frequency[0])?;
        let mode = self.ask("m", Answer::mode).await?;
        let mode = parse_mode(&mode[0], &mode[1])?;
        Ok(RigState { hz, mode })
    }

    /// Tunes the radio or changes its mode.
    pub async fn send(&mut self, command: &RigCommand) -> Result<(), RigError> {
        let request = match command {
            RigCommand::SetFrequency(hz) => format!("F {hz}"),
            RigCommand::SetMode(mode) => format!("M {mode} 0"),
        };
        self.ask(&request, || Answer::set(command)).await.map(drop)
    }
}

/// The rig address from `--rig` (`flag`), else from `rig` in the config file; `None` when
/// neither names one.
pub fn resolve_rig(flag: Option<&str>) -> Result<Option<RigAddress>, String> {
    if let Some(text) = flag {
        return RigAddress::parse(text)
            .map(Some)
            .map_err(|e| format!("--rig: {e}"));
    }
    let configured = super::keystore::configured_rig().map_err(|e| e.to_string())?;
    configured
        .map(|text| RigAddress::parse(&text).map_err(|e| format!("rig in the config file: {e}")))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chk_vfo_says_whether_a_vfo_is_wanted() {
        for (line, wanted) in [
            ("1", true),
            ("0", false),
            ("CHKVFO 1", true),
            ("ChkVFO: 0", false),
            ("RPRT -11", false),
            ("RPRT -4", false),
        ] {
            assert_eq!(parse_chk_vfo(line), Ok(wanted), "{line}");
        }
        assert!(matches!(
            parse_chk_vfo("get_freq:"),
            Err(RigError::Garbled(_))
        ));
        assert_eq!(with_vfo("f"), "f currVFO");
        assert_eq!(with_vfo("F 14074000"), "F currVFO 14074000");
        assert_eq!(with_vfo("M PKTUSB 0"), "M currVFO PKTUSB 0");
    }

    fn feed(mut answer: Answer, text: &str) -> Result<Option<Reply>, RigError> {
        let mut last = Ok(None);
        for line in text.split_inclusive('\n') {
            last = answer.line(line.trim_end_matches('\n'));
            if !matches!(last, Ok(None)) {
                return last;
            }
        }
        last
    }

    fn values(v: &[&str]) -> Result<Option<Reply>, RigError> {
        Ok(Some(Reply::Values(
            v.iter().map(|s| s.to_string()).collect(),
        )))
    }

    #[test]
    fn frequency_in_either_form_with_or_without_a_vfo() {
        for text in [
            "14074000\n",
            "14074000\r\n",
            "VFOA\n14074000\n",
            "get_freq:\nFrequency: 14074000\nRPRT 0\n",
            "get_freq: VFOA\nVFO: VFOA\nFrequency: 14074000\nRPRT 0\n",
            "get_freq:\nFrequency: 14074000\nVFO: VFOB\nRPRT 0\n",
            "Frequency: 14074000\n",
        ] {
            assert_eq!(
                feed(Answer::frequency(), text),
                values(&["14074000"]),
                "{text:?}"
            );
        }
        // The plain form ends with its value: what follows belongs to no answer yet.
        let mut answer = Answer::frequency();
        assert_eq!(answer.line("7074000"), values(&["7074000"]));
    }

    #[test]
    fn mode_and_passband_in_either_form() {
        for text in [
            "USB\n2400\n",
            "get_mode:\nMode: USB\nPassband: 2400\nRPRT 0\n",
            "get_mode: VFOA\nVFO: VFOA\nMode: USB\nPassband: 2400\nRPRT 0\n",
        ] {
            assert_eq!(
                feed(Answer::mode(), text),
                values(&["USB", "2400"]),
                "{text:?}"
            );
        }
        let mut answer = Answer::mode();
        assert_eq!(
            answer.line("PKTUSB"),
            Ok(None),
            "the passband is still to come"
        );
    }

    #[test]
    fn rprt_errors_in_either_form() {
        assert_eq!(
            feed(Answer::frequency(), "RPRT -5\n"),
            Ok(Some(Reply::Refused {
                code: -5,
                extended: false
            }))
        );
        assert_eq!(
            feed(Answer::mode(), "get_mode:\nRPRT -11\n"),
            Ok(Some(Reply::Refused {
                code: -11,
                extended: true
            }))
        );
        assert_eq!(
            feed(
                Answer::set(&RigCommand::SetFrequency(1)),
                "set_freq: 1\nRPRT 0\n"
            ),
            values(&[])
        );
        assert_eq!(
            feed(Answer::set(&RigCommand::SetMode("CW".into())), "RPRT 0\n"),
            values(&[])
        );
        assert_eq!(
            RigError::Refused(-20).to_string(),
            "rigctld: the radio is not powered on (RPRT -20)"
        );
        assert_eq!(
            RigError::Refused(-99).to_string(),
            "rigctld: unknown error (RPRT -99)"
        );
    }

    #[test]
    fn answers_that_are_not_rigctld_are_errors() {
        let garbled = |r: Result<Option<Reply>, RigError>| matches!(r, Err(RigError::Garbled(_)));
        assert!(garbled(feed(Answer::frequency(), "get_freq:\nRPRT 0\n")));
        assert!(garbled(feed(Answer::frequency(), "RPRT zero\n")));
        assert!(garbled(feed(
            Answer::frequency(),
            "get_freq:\nno colon here\n"
        )));
        assert!(garbled(feed(
            Answer::set(&RigCommand::SetFrequency(1)),
            "14074000\n"
        )));
        let endless = "get_freq:\n".to_owned() + &"VFO: VFOA\n".repeat(40);
        assert!(garbled(feed(Answer::frequency(), &endless)));
        for bad in ["abc", "-14074000", "NaN", "inf", "1e300", "0", ""] {
            assert!(parse_hz(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_hz("14074000.4"), Ok(14_074_000));
        assert_eq!(parse_hz("10368100000"), Ok(10_368_100_000));
        for bad in ["", "U SB", "\u{1b}[2J", "ABCDEFGHIJKLMNOPQ", "USB\u{202e}"] {
            assert!(parse_mode(bad, "2400").is_err(), "{bad:?}");
        }
        assert!(parse_mode("USB", "wide").is_err());
        assert_eq!(parse_mode("pktusb", "-1"), Ok("PKTUSB".into()));
        // What an error quotes of the daemon's text cannot drive the terminal.
        let message = parse_hz("\u{1b}[2Jhello").unwrap_err().to_string();
        assert!(!message.contains('\u{1b}'), "{message}");
    }

    #[test]
    fn addresses_with_and_without_a_port() {
        let parse = |t: &str| RigAddress::parse(t).map(|a| a.to_string());
        assert_eq!(parse("localhost"), Ok("localhost:4532".into()));
        assert_eq!(parse(" 192.168.1.20:4533 "), Ok("192.168.1.20:4533".into()));
        assert_eq!(parse("[::1]:4533"), Ok("[::1]:4533".into()));
        assert_eq!(parse("[::1]"), Ok("[::1]:4532".into()));
        assert_eq!(parse("fe80::1"), Ok("[fe80::1]:4532".into()));
        for bad in [
            "",
            "host:0",
            "host:70000",
            "host:x",
            "http://host:4532",
            "a b",
            "[::1",
            "[::1]x",
            ":4532",
        ] {
            assert!(RigAddress::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn modes_between_the_radio_and_the_logbook() {
        assert_eq!(logbook_mode("USB", "FT8").as_deref(), Some("SSB"));
        assert_eq!(logbook_mode("LSB", "FT8").as_deref(), Some("SSB"));
        assert_eq!(logbook_mode("CWR", "FT8").as_deref(), Some("CW"));
        assert_eq!(logbook_mode("PKTUSB", "FT4").as_deref(), Some("FT4"));
        assert_eq!(logbook_mode("DATA-U", "JS8").as_deref(), Some("JS8"));
        assert_eq!(logbook_mode("RTTYR", "FT8").as_deref(), Some("RTTY"));
        assert_eq!(logbook_mode("FM", "FT8").as_deref(), Some("FM"));
        assert_eq!(logbook_mode("AM", "FT8").as_deref(), Some("AM"));
        assert_eq!(logbook_mode("D-STAR", "FT8"), None);
        assert_eq!(rig_mode_for("ssb", Some(7_185_000)).as_deref(), Some("LSB"));
        assert_eq!(rig_mode_for("SSB", Some(5_357_000)).as_deref(), Some("USB"));
        assert_eq!(
            rig_mode_for("SSB", Some(14_285_000)).as_deref(),
            Some("USB")
        );
        assert_eq!(rig_mode_for("FT4", None).as_deref(), Some("PKTUSB"));
        assert_eq!(rig_mode_for("cw", None).as_deref(), Some("CW"));
        assert_eq!(rig_mode_for("DSTAR", None), None);
        assert!(is_data_mode("ft8"));
        assert!(!is_data_mode("SSB"));
        assert!(!is_data_mode(""));
    }
}
