//! `svc listen wsjtx`: a station computer with no terminal open logs each QSO that WSJT-X (or
//! JTDX, MSHV) reports over UDP. Each QSO Logged becomes a contact committed to the outbox
//! under its `svc_wsjtx::once_key`, before the outbox's sender delivers it, so the same QSO
//! reported again (a restart, its Logged ADIF, a re-send) is stored once; a Logged ADIF is
//! logged only when no QSO Logged held its key (programs that send only Logged ADIF).

use std::collections::HashSet;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;

use clap::{Args, Subcommand};
use serde_json::{Value, json};
use tokio::net::UdpSocket;
use tokio::sync::Notify;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use super::output::Format;
use super::{CliError, Ctx, input, outbox};
use svc_client::journal::{Entry, EntryRequest, Journal, JournalError, Logged, SenderEvent};
use svc_model::band::band_for_mhz;
use svc_model::{ContactInput, Timestamp};
use svc_wsjtx::{Message, QsoLogged};

/// WSJT-X's own default for its UDP Server.
pub const DEFAULT_BIND: &str = "127.0.0.1:2237";
/// The largest UDP datagram.
const MAX_DATAGRAM: usize = 65_536;

#[derive(Debug, Subcommand)]
pub enum ListenCommand {
    /// Log each QSO WSJT-X, JTDX or MSHV reports over UDP, as the operator logs it; runs until
    /// SIGINT or SIGTERM
    Wsjtx(WsjtxArgs),
}

impl ListenCommand {
    pub fn name(&self) -> &'static str {
        match self {
            ListenCommand::Wsjtx(_) => "wsjtx",
        }
    }
}

#[derive(Debug, Args)]
pub struct WsjtxArgs {
    /// The UDP address to listen on: WSJT-X's Settings → Reporting → UDP Server and its port
    #[arg(long, value_name = "ADDR", default_value = DEFAULT_BIND, value_parser = socket_addr)]
    bind: SocketAddr,
    /// Log into this folder (fld_…) [default: the monthly log of each QSO's month, found or
    /// made]
    #[arg(long, value_parser = input::folder_id, value_name = "ID", conflicts_with = "month")]
    folder: Option<String>,
    /// Log into this month's log (YYYY-MM), found or made
    #[arg(long, value_parser = input::month, value_name = "YYYY-MM")]
    month: Option<String>,
    /// Re-send every datagram received, unchanged, to this UDP address too (GridTracker,
    /// JTAlert); repeat it for several
    #[arg(long, value_name = "ADDR", value_parser = socket_addr)]
    forward: Vec<SocketAddr>,
}

/// `HOST:PORT`: an IP address, or a name resolved once now.
fn socket_addr(text: &str) -> Result<SocketAddr, String> {
    let text = text.trim();
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    text.to_socket_addrs()
        .ok()
        .and_then(|mut addrs| addrs.next())
        .ok_or_else(|| {
            format!("{text:?} is not a UDP address: give HOST:PORT, e.g. 127.0.0.1:2237")
        })
}

pub fn run(ctx: &Ctx, command: ListenCommand) -> Result<(), CliError> {
    match command {
        ListenCommand::Wsjtx(args) => wsjtx(ctx, args),
    }
}

/// The failure of binding `addr`, with what to do about it.
fn bind_error(addr: SocketAddr, e: &std::io::Error) -> CliError {
    let why = if e.kind() == std::io::ErrorKind::AddrInUse {
        "the port is taken (by another logger, GridTracker or JTAlert, or another svc listen)"
            .to_owned()
    } else {
        e.to_string()
    };
    CliError::local(format!(
        "cannot listen on UDP {addr}: {why}; give another port with --bind 127.0.0.1:PORT and set WSJT-X's UDP Server to it, or have the other program forward to svc (or use WSJT-X's multicast address for both)"
    ))
}

/// SIGINT or SIGTERM, whichever comes first.
struct Stop {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl Stop {
    fn new() -> Result<Stop, CliError> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let fail = |e: std::io::Error| CliError::local(format!("cannot catch signals: {e}"));
            Ok(Stop {
                interrupt: signal(SignalKind::interrupt()).map_err(fail)?,
                terminate: signal(SignalKind::terminate()).map_err(fail)?,
            })
        }
        #[cfg(not(unix))]
        Ok(Stop {})
    }

    async fn wait(&mut self) {
        #[cfg(unix)]
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn wsjtx(ctx: &Ctx, args: WsjtxArgs) -> Result<(), CliError> {
    let base = ctx.api_base()?;
    let key = ctx.key()?;
    ctx.block_on(async {
        // The port first: a taken one is the likeliest failure, and needs no service to tell.
        let socket = UdpSocket::bind(args.bind)
            .await
            .map_err(|e| bind_error(args.bind, &e))?;
        let bound = socket.local_addr().unwrap_or(args.bind);
        let forwarder = if args.forward.is_empty() {
            None
        } else {
            let any: SocketAddr = if args.forward[0].is_ipv4() {
                "0.0.0.0:0".parse().expect("an address")
            } else {
                "[::]:0".parse().expect("an address")
            };
            Some(UdpSocket::bind(any).await.map_err(|e| {
                CliError::local(format!("cannot open a UDP socket to forward from: {e}"))
            })?)
        };
        let mut stop = Stop::new()?;
        let (journal, client) = outbox::open(ctx, base, &key.key).await?;
        let wake = Arc::new(Notify::new());
        let (events, mut received) = unbounded_channel();
        let sender = svc_client::journal::spawn_sender(
            journal.clone(),
            Arc::new(client),
            wake.clone(),
            events,
        );
        let mut listener = Listener {
            ctx,
            journal,
            wake,
            folder: args.folder,
            month: args.month,
            heard: HashSet::new(),
        };
        listener.listening(bound, &args.forward)?;
        let mut buffer = vec![0u8; MAX_DATAGRAM];
        let result = loop {
            let step = tokio::select! {
                () = stop.wait() => break Ok(()),
                got = socket.recv_from(&mut buffer) => match got {
                    Ok((length, from)) => {
                        let datagram = &buffer[..length];
                        if let Some(out) = &forwarder {
                            for to in &args.forward {
                                // A forward that fails (nobody listening) is not the log's
                                // business: the datagram was received and is acted on.
                                let _ = out.send_to(datagram, to).await;
                            }
                        }
                        listener.datagram(datagram, from).await
                    }
                    // An ICMP error of an earlier send, or a datagram larger than the buffer:
                    // nothing to log, keep listening.
                    Err(_) => Ok(()),
                },
                Some(event) = received.recv() => listener.sender_event(event),
            };
            if let Err(e) = step {
                break Err(e);
            }
        };
        // What was logged is in the journal already; whatever the sender had not delivered
        // goes at the next listen, svc outbox push or the logbook.
        sender.abort();
        drain(&mut received);
        result
    })
}

fn drain(received: &mut UnboundedReceiver<SenderEvent>) {
    while received.try_recv().is_ok() {}
}

/// The datagram a message came in, for the dropped events.
#[derive(Clone, Copy)]
struct Origin {
    from: SocketAddr,
    bytes: usize,
}

/// Which message a contact came from, for the events.
#[derive(Clone, Copy)]
enum Source {
    QsoLogged,
    LoggedAdif,
}

impl Source {
    fn as_str(self) -> &'static str {
        match self {
            Source::QsoLogged => "QSO Logged",
            Source::LoggedAdif => "Logged ADIF",
        }
    }
}

struct Listener<'a> {
    ctx: &'a Ctx,
    journal: Journal,
    wake: Arc<Notify>,
    folder: Option<String>,
    month: Option<String>,
    /// The senders' ids heard so far.
    heard: HashSet<String>,
}

fn band(mhz: f64) -> &'static str {
    band_for_mhz(mhz).unwrap_or("?")
}

impl Listener<'_> {
    fn json(&self) -> bool {
        self.ctx.format != Format::Text
    }

    fn event(&self, value: &Value) -> Result<(), CliError> {
        self.ctx.print_json(value)
    }

    fn listening(&self, bound: SocketAddr, forward: &[SocketAddr]) -> Result<(), CliError> {
        if self.json() {
            let forward: Vec<String> = forward.iter().map(ToString::to_string).collect();
            return self.event(&json!({
                "event": "listening",
                "address": bound.to_string(),
                "forward": forward,
                "folderId": self.folder,
                "month": self.month,
            }));
        }
        self.ctx.info(&format!(
            "listening for WSJT-X on UDP {bound}; each QSO logged there is logged here (Ctrl-C ends)"
        ));
        Ok(())
    }

    /// The first message of a sender names it once; with --json every message is a status
    /// event.
    fn hear(&mut self, id: &str, version: Option<&str>, status: Value) -> Result<(), CliError> {
        let first = self.heard.insert(id.to_owned());
        if self.json() {
            let mut event = json!({ "event": "status", "id": id, "first": first });
            if let (Value::Object(event), Value::Object(status)) = (&mut event, status) {
                event.extend(status);
            }
            return self.event(&event);
        }
        if first {
            let line = match version {
                Some(version) if !version.is_empty() => format!("hearing WSJT-X {id} {version}\n"),
                _ => format!("hearing WSJT-X {id}\n"),
            };
            return self.ctx.say(&line);
        }
        Ok(())
    }

    async fn datagram(&mut self, datagram: &[u8], from: SocketAddr) -> Result<(), CliError> {
        let from = Origin {
            from,
            bytes: datagram.len(),
        };
        let message = match svc_wsjtx::decode(datagram) {
            Ok(message) => message,
            Err(e) => return self.dropped(from, None, &e.to_string()),
        };
        match message {
            Message::QsoLogged(qso) => {
                if !self.heard.contains(&qso.id) {
                    self.hear(&qso.id, None, json!({ "kind": "qso logged" }))?;
                }
                self.qso_logged(&qso, from).await
            }
            Message::LoggedAdif { id, adif } => {
                if !self.heard.contains(&id) {
                    self.hear(&id, None, json!({ "kind": "logged adif" }))?;
                }
                self.logged_adif(&id, &adif, from).await
            }
            Message::Heartbeat(h) => self.hear(
                &h.id,
                h.version.as_deref(),
                json!({
                    "kind": "heartbeat",
                    "maxSchema": h.max_schema,
                    "version": h.version,
                    "revision": h.revision,
                }),
            ),
            Message::Status(s) => self.hear(
                &s.id,
                None,
                json!({
                    "kind": "status",
                    "dialFrequency": s.dial_frequency,
                    "mode": s.mode,
                    "dxCall": s.dx_call,
                    "transmitting": s.transmitting,
                    "decoding": s.decoding,
                }),
            ),
            Message::Decode(d) => self.hear(
                &d.id,
                None,
                json!({
                    "kind": "decode",
                    "snr": d.snr,
                    "mode": d.mode,
                    "message": d.message,
                }),
            ),
            Message::Clear { id, .. } => self.hear(&id, None, json!({ "kind": "clear" })),
            Message::Close { id } => self.hear(&id, None, json!({ "kind": "close" })),
            Message::Other { kind, id } => {
                self.hear(&id, None, json!({ "kind": "other", "type": kind }))
            }
        }
    }

    fn dropped(&self, origin: Origin, id: Option<&str>, message: &str) -> Result<(), CliError> {
        let from = origin.from;
        if self.json() {
            return self.event(&json!({
                "event": "dropped",
                "from": from.to_string(),
                "id": id,
                "bytes": origin.bytes,
                "message": message,
            }));
        }
        self.ctx
            .say(&format!("dropped a datagram from {from}: {message}\n"))
    }

    async fn qso_logged(&mut self, qso: &QsoLogged, from: Origin) -> Result<(), CliError> {
        let key = svc_wsjtx::once_key(qso);
        match svc_wsjtx::contact(qso, "") {
            Ok(contact) => {
                self.log(contact, &key, &qso.id, Source::QsoLogged, from)
                    .await
            }
            Err(e) => self.dropped(from, Some(&qso.id), &e.to_string()),
        }
    }

    async fn logged_adif(&mut self, id: &str, adif: &str, from: Origin) -> Result<(), CliError> {
        let reader = match svc_adif::Reader::new(adif.as_bytes()) {
            Ok(reader) => reader,
            Err(e) => {
                return self.dropped(from, Some(id), &format!("Logged ADIF: {e}"));
            }
        };
        for record in reader {
            let imported = match record {
                Ok(record) => svc_adif::contact::imported(&record),
                Err(e) => Err(e.to_string()),
            };
            match imported {
                Ok(imported) => {
                    let contact = imported.contact;
                    let time_on = Timestamp::parse("timeOn", &contact.time_on).ok();
                    let key = svc_wsjtx::once_key_for(
                        &contact.callsign,
                        time_on,
                        contact.frequency,
                        &contact.mode,
                    );
                    self.log(contact, &key, id, Source::LoggedAdif, from)
                        .await?;
                }
                Err(message) => {
                    self.dropped(from, Some(id), &format!("Logged ADIF: {message}"))?;
                }
            }
        }
        Ok(())
    }

    /// The folder a contact goes into: --folder, else the monthly log of --month or of the
    /// contact's own month (a monthly log holds only its month's contacts).
    async fn folder_for(&self, contact: &ContactInput) -> Result<String, JournalError> {
        if let Some(folder) = &self.folder {
            return Ok(folder.clone());
        }
        let month = match &self.month {
            Some(month) => month.clone(),
            None => Timestamp::parse("timeOn", &contact.time_on)
                .map_err(|e| JournalError::Invalid(e.message))?
                .utc_month(),
        };
        let (entry, folder) = self.journal.log_monthly(&month, None).await?;
        if entry.is_some() {
            self.wake.notify_one();
        }
        Ok(folder.id)
    }

    async fn log(
        &mut self,
        mut contact: ContactInput,
        key: &str,
        id: &str,
        source: Source,
        from: Origin,
    ) -> Result<(), CliError> {
        // A key held already needs no folder: nothing is logged.
        let logged = match self.journal.logged_under(key).await? {
            Some(held) => Ok(Logged::Already(held)),
            None => match self.folder_for(&contact).await {
                Ok(folder) => {
                    contact.folder_id = folder;
                    self.journal.log_contact_once(contact.clone(), key).await
                }
                Err(e) => Err(e),
            },
        };
        match logged {
            Ok(Logged::New(entry)) => {
                self.wake.notify_one();
                self.logged(&contact, &entry, id, source)
            }
            Ok(Logged::Already(held)) => self.duplicate(&contact, &held, id, source),
            // A contact the journal cannot take (no frequency, a callsign missing) is dropped,
            // as a malformed datagram is; a journal that cannot write stops the command.
            Err(JournalError::Invalid(message)) => {
                self.dropped(from, Some(id), &format!("{}: {message}", source.as_str()))
            }
            Err(e) => Err(e.into()),
        }
    }

    fn logged(
        &self,
        contact: &ContactInput,
        entry: &Entry,
        id: &str,
        source: Source,
    ) -> Result<(), CliError> {
        if self.json() {
            return self.event(&json!({
                "event": "logged",
                "id": id,
                "source": source.as_str(),
                "entry": entry.id,
                "idempotencyKey": entry.idempotency_key,
                "folderId": contact.folder_id,
                "callsign": contact.callsign,
                "frequency": contact.frequency,
                "band": band_for_mhz(contact.frequency),
                "mode": contact.mode,
                "timeOn": contact.time_on,
                "rstSent": contact.rst_sent,
                "rstReceived": contact.rst_received,
            }));
        }
        let report = |r: &Option<String>| r.clone().unwrap_or_else(|| "-".into());
        self.ctx.say(&format!(
            "logged {} {} {} {}/{} ({id})\n",
            contact.callsign,
            band(contact.frequency),
            contact.mode,
            report(&contact.rst_sent),
            report(&contact.rst_received),
        ))
    }

    fn duplicate(
        &self,
        contact: &ContactInput,
        held: &Entry,
        id: &str,
        source: Source,
    ) -> Result<(), CliError> {
        if self.json() {
            return self.event(&json!({
                "event": "duplicate",
                "id": id,
                "source": source.as_str(),
                "entry": held.id,
                "state": held.state,
                "idempotencyKey": held.idempotency_key,
                "callsign": contact.callsign,
                "band": band_for_mhz(contact.frequency),
                "mode": contact.mode,
                "timeOn": contact.time_on,
            }));
        }
        self.ctx.say(&format!(
            "duplicate {} {} {} (already logged)\n",
            contact.callsign,
            band(contact.frequency),
            contact.mode,
        ))
    }

    /// What the outbox's sender did: contacts stored and refused, the link lost and back.
    fn sender_event(&self, event: SenderEvent) -> Result<(), CliError> {
        let contacts = |entries: Vec<Entry>| {
            entries
                .into_iter()
                .filter_map(|e| match &e.request {
                    EntryRequest::Contact(c) => Some((c.callsign.clone(), e)),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        match event {
            SenderEvent::Sent(entries) if self.json() => {
                for (callsign, entry) in contacts(entries) {
                    self.event(&json!({
                        "event": "sent",
                        "entry": entry.id,
                        "contactId": entry.sent_id,
                        "callsign": callsign,
                    }))?;
                }
            }
            SenderEvent::Refused(entries) => {
                for (callsign, entry) in contacts(entries) {
                    let error = entry.error.as_ref();
                    if self.json() {
                        self.event(&json!({
                            "event": "refused",
                            "entry": entry.id,
                            "callsign": callsign,
                            "error": error,
                        }))?;
                    } else {
                        self.ctx.warn(&format!(
                            "the service refused {callsign} ({}): {}; it waits in the outbox (svc outbox list)",
                            entry.id,
                            error.map_or("no reason given", |e| e.message.as_str())
                        ));
                    }
                }
            }
            SenderEvent::Offline(message) if self.json() => {
                self.event(&json!({ "event": "offline", "message": message }))?;
            }
            SenderEvent::Offline(message) => self.ctx.warn(&format!(
                "the service cannot be reached ({message}); contacts wait in the outbox and go when it answers"
            )),
            SenderEvent::Online if self.json() => {
                self.event(&json!({ "event": "online" }))?;
            }
            SenderEvent::Held(e) => {
                let message = CliError::from(e).message;
                if self.json() {
                    self.event(&json!({ "event": "held", "message": message }))?;
                } else {
                    self.ctx.warn(&format!(
                        "the service did not store what waits ({message}); it stays in the outbox and goes later"
                    ));
                }
            }
            SenderEvent::Failed(message) if self.json() => {
                self.event(&json!({ "event": "failed", "message": message }))?;
            }
            SenderEvent::Failed(message) => self.ctx.warn(&message),
            _ => {}
        }
        Ok(())
    }
}
