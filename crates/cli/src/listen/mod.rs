//! `svc listen wsjtx`: a station computer with no terminal open logs each QSO that WSJT-X (or
//! JTDX, MSHV) reports over UDP. Each QSO Logged becomes a contact committed to the outbox
//! under its `svc_wsjtx::once_key`, before the outbox's sender delivers it, so the same QSO
//! reported again (a restart, its Logged ADIF, a re-send) is stored once; a Logged ADIF is
//! logged only when no QSO Logged held its key (programs that send only Logged ADIF).
//!
//! `svc listen adif` and `svc listen n1mm` share the socket, signals, forwarding, outbox,
//! sender, folder rule and events: each is a function from a datagram to what it asks of the
//! listener ([`Heard`]). An ADIF record is keyed as `svc import adif` keys it (its
//! `svc_adif::contact::idempotency_key` and its folder), so importing the file later stores it
//! once; an N1MM+ contact under `svc_n1mm::once_key` (its contact ID).

mod adif;
mod n1mm;
mod socket;
mod wsjtx;

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use serde_json::{Value, json};
use tokio::net::UdpSocket;
use tokio::sync::Notify;
use tokio::sync::mpsc::{Sender, UnboundedReceiver, channel, unbounded_channel};

use super::output::Format;
use super::{CliError, Ctx, input, outbox};
use svc_client::journal::{
    Entry, EntryRequest, Journal, JournalError, Logged, SenderEvent, is_local_folder_id,
};
use svc_model::band::band_for_mhz;
use svc_model::{ContactInput, Timestamp};

/// WSJT-X's own default for its UDP Server.
pub const DEFAULT_BIND: &str = "127.0.0.1:2237";
/// The port svc listens on for plain ADIF (WSJT-X's default is taken by `svc listen wsjtx`).
pub const ADIF_BIND: &str = "127.0.0.1:2333";
/// N1MM Logger+'s own default for its broadcasts.
pub const N1MM_BIND: &str = "127.0.0.1:12060";
/// How long a record waits for the service to make its monthly log, so that its key names the
/// folder an import would name.
const FOLDER_WAIT: Duration = Duration::from_secs(3);
/// The largest UDP datagram.
const MAX_DATAGRAM: usize = 65_536;
/// Datagrams received and not yet acted on, at most: 20 seconds of QSO Logged at 1,000 a
/// second, far beyond what a station sends; beyond it the socket waits, and the kernel's
/// buffer holds or drops.
const QUEUE: usize = 20_000;

#[derive(Debug, Subcommand)]
pub enum ListenCommand {
    /// Log each QSO WSJT-X, JTDX or MSHV reports over UDP, as the operator logs it; runs until
    /// SIGINT or SIGTERM
    Wsjtx(WsjtxArgs),
    /// Log each ADIF record sent over UDP (one or more a datagram: WSJT-X's secondary UDP
    /// server, JS8Call, …); runs until SIGINT or SIGTERM
    Adif(AdifArgs),
    /// Log each contact N1MM Logger+ broadcasts over UDP as it is logged; runs until SIGINT or
    /// SIGTERM
    N1mm(N1mmArgs),
}

impl ListenCommand {
    pub fn name(&self) -> &'static str {
        match self {
            ListenCommand::Wsjtx(_) => "wsjtx",
            ListenCommand::Adif(_) => "adif",
            ListenCommand::N1mm(_) => "n1mm",
        }
    }
}

#[derive(Debug, Args)]
pub struct WsjtxArgs {
    /// The UDP address to listen on: WSJT-X's Settings → Reporting → UDP Server and its port
    #[arg(long, value_name = "ADDR", default_value = DEFAULT_BIND, value_parser = input::udp_address)]
    bind: SocketAddr,
    /// Do not colour WSJT-X's decodes (new entity, new band, dupe): JTAlert or another
    /// program does
    #[arg(long)]
    no_highlight: bool,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Debug, Args)]
pub struct AdifArgs {
    /// The UDP address to listen on, where the other program sends its ADIF records
    #[arg(long, value_name = "ADDR", default_value = ADIF_BIND, value_parser = input::udp_address)]
    bind: SocketAddr,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Debug, Args)]
pub struct N1mmArgs {
    /// The UDP address to listen on: N1MM+'s Config → Configure Ports… → Broadcast Data →
    /// Contacts
    #[arg(long, value_name = "ADDR", default_value = N1MM_BIND, value_parser = input::udp_address)]
    bind: SocketAddr,
    #[command(flatten)]
    common: CommonArgs,
}

/// The flags every `svc listen` takes beside --bind.
#[derive(Debug, Args)]
pub struct CommonArgs {
    /// Log into this folder (fld_…) [default: the monthly log of each QSO's month, found or
    /// made]
    #[arg(long, value_parser = input::folder_id, value_name = "ID", conflicts_with = "month")]
    folder: Option<String>,
    /// Log into this month's log (YYYY-MM), found or made
    #[arg(long, value_parser = input::month, value_name = "YYYY-MM")]
    month: Option<String>,
    /// Re-send every datagram received, unchanged, to this UDP address too (GridTracker,
    /// JTAlert); repeat it for several
    #[arg(long, value_name = "ADDR", value_parser = input::udp_address)]
    forward: Vec<SocketAddr>,
    /// Join this multicast group on --bind's port instead (the address the other program
    /// sends to, e.g. 224.0.0.73), so that GridTracker, JTAlert and other loggers hear the
    /// same datagrams beside svc
    #[arg(long, value_name = "GROUP", value_parser = socket::group)]
    multicast: Option<IpAddr>,
    /// The network interface to join the group on, by name or address [default: the
    /// loopback interface]
    #[arg(long, value_name = "IF", value_parser = socket::interface, requires = "multicast")]
    interface: Option<socket::Interface>,
    /// Send each contact logged here as an ADIF record (one a datagram) to this UDP address
    /// too (GridTracker and the like); repeat it for several
    #[arg(long, value_name = "ADDR", value_parser = input::udp_address)]
    broadcast_adif: Vec<SocketAddr>,
}

pub fn run(ctx: &Ctx, command: ListenCommand) -> Result<(), CliError> {
    match command {
        ListenCommand::Wsjtx(args) => {
            let protocol = Protocol::Wsjtx {
                highlight: !args.no_highlight,
            };
            listen(ctx, protocol, args.bind, args.common)
        }
        ListenCommand::Adif(args) => listen(ctx, Protocol::Adif, args.bind, args.common),
        ListenCommand::N1mm(args) => listen(ctx, Protocol::N1mm, args.bind, args.common),
    }
}

/// What `svc listen` hears.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Protocol {
    /// With `highlight`, decodes are coloured in WSJT-X.
    Wsjtx {
        highlight: bool,
    },
    Adif,
    N1mm,
}

/// The failure of binding `addr` (or joining `group` on its port), with what to do about it.
fn bind_error(
    protocol: Protocol,
    addr: SocketAddr,
    group: Option<IpAddr>,
    failed: &socket::BindError,
) -> CliError {
    let e = &failed.error;
    if let Some(group) = group {
        let step = if failed.joining {
            format!("cannot join the multicast group {group}")
        } else {
            format!("cannot listen on UDP port {}", addr.port())
        };
        return CliError::local(format!(
            "{step}: {e}; check --multicast and --interface (the interface's name, e.g. lo, or its address; the loopback interface when none is given)"
        ));
    }
    let taken = e.kind() == std::io::ErrorKind::AddrInUse;
    let why = match (
        protocol,
        taken.then(|| socket::holder(addr.port())).flatten(),
    ) {
        (_, Some(holder)) => format!("the port is taken by {holder}"),
        (Protocol::Wsjtx { .. }, None) if taken => {
            "the port is taken (by another logger, GridTracker or JTAlert, or another svc listen)"
                .to_owned()
        }
        _ if taken => "the port is taken (by another program, or another svc listen)".to_owned(),
        _ => e.to_string(),
    };
    let what = match protocol {
        Protocol::Wsjtx { .. } => {
            "set WSJT-X's UDP Server to it, or have the other program forward to svc; or set WSJT-X's UDP Server to a multicast group (e.g. 224.0.0.73) and give it here with --multicast, so that both hear it"
        }
        Protocol::Adif => "send the ADIF records there, or have the other program forward to svc",
        Protocol::N1mm => {
            "add it to N1MM+'s Broadcast Data → Contacts (several addresses may be given there)"
        }
    };
    CliError::local(format!(
        "cannot listen on UDP {addr}: {why}; give another port with --bind 127.0.0.1:PORT and {what}"
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

/// The loop every protocol shares: the socket, the forwards, the signals, the outbox and its
/// sender; each datagram goes to the protocol's reading of it.
fn listen(
    ctx: &Ctx,
    protocol: Protocol,
    bind: SocketAddr,
    args: CommonArgs,
) -> Result<(), CliError> {
    let base = ctx.api_base()?;
    let key = ctx.key()?;
    // The outbox's sender, the socket's reader and the log's copy run on worker threads, so
    // that a push the sender is encoding or settling never holds up the QSO that comes next.
    ctx.block_on_with_workers(async {
        // The port first: a taken one is the likeliest failure, and needs no service to tell.
        let socket = socket::open(bind, args.multicast, args.interface.as_ref())
            .await
            .map_err(|e| bind_error(protocol, bind, args.multicast, &e))?;
        let bound = match args.multicast {
            Some(group) => {
                SocketAddr::new(group, socket.local_addr().map_or(bind.port(), |a| a.port()))
            }
            None => socket.local_addr().unwrap_or(bind),
        };
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
        let client = Arc::new(client);
        let wake = Arc::new(Notify::new());
        let (events, mut received) = unbounded_channel();
        let sender = svc_client::journal::spawn_sender(
            journal.clone(),
            client.clone(),
            wake.clone(),
            events,
        );
        let (colours, copied) = match protocol {
            Protocol::Wsjtx { highlight: true } => {
                let (colours, copied) = wsjtx::Colours::start(&journal, client).await?;
                (Some(colours), Some(copied))
            }
            _ => (None, None),
        };
        // Reading the country file and the log for the colours peaks at a few megabytes,
        // which a station computer's `svc listen` would otherwise hold for days.
        svc_client::give_back_freed_memory();
        let mut copied = copied;
        let mut listener = Listener {
            ctx,
            protocol,
            account: journal
                .snapshot()
                .await?
                .whoami
                .map(|me| me.callsign)
                .unwrap_or_default(),
            journal,
            wake,
            folder: args.folder,
            month: args.month,
            heard: HashSet::new(),
            senders: HashMap::new(),
            monthly: HashMap::new(),
            unmade: Vec::new(),
            colours,
            broadcast_adif: args.broadcast_adif,
            outgoing: Vec::new(),
        };
        listener.listening(bound, &args.forward)?;
        let socket = Arc::new(socket);
        let forwarder = forwarder.map(Arc::new);
        // One task takes each datagram off the socket the moment it comes and forwards it,
        // whatever the outbox's disk is doing: a burst waits here, in order, not in the
        // kernel's buffer, which drops what it cannot hold.
        let (queue, mut datagrams) = channel(QUEUE);
        let reader = tokio::spawn(receive(
            socket.clone(),
            forwarder.clone(),
            args.forward.clone(),
            queue,
        ));
        let mut answer = vec![0u8; MAX_DATAGRAM];
        let result = loop {
            let step = tokio::select! {
                () = stop.wait() => {
                    // What was received before the signal is logged before the end.
                    reader.abort();
                    let mut result = Ok(());
                    while let Ok((datagram, from)) = datagrams.try_recv() {
                        result = listener.datagram(&datagram, from).await;
                        if result.is_err() {
                            break;
                        }
                    }
                    break result;
                }
                Some((datagram, from)) = datagrams.recv() => {
                    listener.datagram(&datagram, from).await
                }
                // What a program behind svc sends back to WSJT-X, to the address it had the
                // datagram from.
                Some(Ok((length, from))) = async {
                    Some(forwarder.as_ref()?.recv_from(&mut answer).await)
                } => {
                    if args.forward.contains(&from) && matches!(protocol, Protocol::Wsjtx { .. }) {
                        listener.answered(&answer[..length]);
                    }
                    Ok(())
                }
                Some(event) = received.recv() => listener.sender_event(event),
                Some(copy) = async { copied.as_mut()?.recv().await } => {
                    copied = None;
                    listener.log_copied(copy).await
                }
            };
            // Highlights answer the WSJT-X that sent the decode from the address it sent to,
            // where it listens for them; ADIF records go from the same socket. A send that
            // fails (nobody listening) costs nothing logged.
            for (to, datagram) in listener.outgoing.drain(..) {
                let _ = socket.send_to(&datagram, to).await;
            }
            if let Err(e) = step {
                break Err(e);
            }
        };
        reader.abort();
        // What was logged is in the journal already; whatever the sender had not delivered
        // goes at the next listen, svc outbox push or the logbook.
        sender.abort();
        drain(&mut received);
        result
    })
}

/// Takes each datagram off the socket, forwards it unchanged, and queues it for the listener.
async fn receive(
    socket: Arc<UdpSocket>,
    forwarder: Option<Arc<UdpSocket>>,
    forward: Vec<SocketAddr>,
    queue: Sender<(Vec<u8>, SocketAddr)>,
) {
    let mut buffer = vec![0u8; MAX_DATAGRAM];
    loop {
        let Ok((length, from)) = socket.recv_from(&mut buffer).await else {
            // An ICMP error of an earlier send: nothing to log, keep listening.
            continue;
        };
        let datagram = buffer[..length].to_vec();
        if let Some(out) = &forwarder {
            for to in &forward {
                // A forward that fails (nobody listening) is not the log's business: the
                // datagram was received and is acted on.
                let _ = out.send_to(&datagram, to).await;
            }
        }
        if queue.send((datagram, from)).await.is_err() {
            return;
        }
    }
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
    Adif,
    N1mm,
}

impl Source {
    fn as_str(self) -> &'static str {
        match self {
            Source::QsoLogged => "QSO Logged",
            Source::LoggedAdif => "Logged ADIF",
            Source::Adif => "ADIF",
            Source::N1mm => "N1MM+",
        }
    }
}

/// The idempotency key a contact is logged under.
enum Key {
    /// This key, whatever the folder.
    Fixed(String),
    /// This key, `:` and the folder the contact goes into, as `svc import adif` keys a record.
    InFolder(String),
}

/// What one datagram asks of the listener: a protocol's reading of it.
enum Heard {
    /// A contact to log once under its key; `edit` when the sender edited one it sent before
    /// (not applied when the key is held).
    Contact {
        contact: Box<ContactInput>,
        key: Key,
        id: String,
        source: Source,
        edit: bool,
    },
    /// Nothing to log, and why.
    Dropped { id: Option<String>, message: String },
    /// A request svc does not carry out (N1MM's deletes).
    Ignored {
        id: String,
        source: Source,
        callsign: Option<String>,
        key: String,
        message: String,
    },
    /// Any other message: a status event with --json, nothing in text.
    Status {
        id: String,
        source: Source,
        kind: String,
    },
}

struct Listener<'a> {
    ctx: &'a Ctx,
    protocol: Protocol,
    /// The account's callsign, the ADIF records' STATION_CALLSIGN where a contact names none.
    account: String,
    journal: Journal,
    wake: Arc<Notify>,
    folder: Option<String>,
    month: Option<String>,
    /// The senders' ids heard so far.
    heard: HashSet<String>,
    /// Where each WSJT-X instance (by id) sends from.
    senders: HashMap<String, SocketAddr>,
    /// The service's monthly log of each month (`YYYY-MM`) found so far.
    monthly: HashMap<String, String>,
    /// The local folders (`loc_…`) the service had not made within [`FOLDER_WAIT`]: records
    /// keyed with them are found again once they are made.
    unmade: Vec<String>,
    /// What WSJT-X's decodes are coloured from (`svc listen wsjtx` without --no-highlight).
    colours: Option<wsjtx::Colours>,
    /// Where each contact logged goes as an ADIF record.
    broadcast_adif: Vec<SocketAddr>,
    /// Datagrams to send once this one is dealt with.
    outgoing: Vec<(SocketAddr, Vec<u8>)>,
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
        let (program, what) = match self.protocol {
            Protocol::Wsjtx { .. } => ("WSJT-X", "each QSO logged there"),
            Protocol::Adif => ("ADIF records", "each record sent there"),
            Protocol::N1mm => ("N1MM Logger+", "each contact logged there"),
        };
        self.ctx.info(&format!(
            "listening for {program} on UDP {bound}; {what} is logged here (Ctrl-C ends)"
        ));
        Ok(())
    }

    async fn datagram(&mut self, datagram: &[u8], from: SocketAddr) -> Result<(), CliError> {
        let from = Origin {
            from,
            bytes: datagram.len(),
        };
        let heard = match self.protocol {
            Protocol::Wsjtx { .. } => return self.wsjtx(datagram, from).await,
            Protocol::Adif => adif::read(datagram),
            Protocol::N1mm => n1mm::read(datagram),
        };
        for heard in heard {
            self.act(heard, from).await?;
        }
        Ok(())
    }

    /// Carries out what a protocol read in a datagram.
    async fn act(&mut self, heard: Heard, from: Origin) -> Result<(), CliError> {
        match heard {
            Heard::Contact {
                contact,
                key,
                id,
                source,
                edit,
            } => self.log(*contact, key, &id, source, from, edit).await,
            Heard::Dropped { id, message } => self.dropped(from, id.as_deref(), &message),
            Heard::Ignored {
                id,
                source,
                callsign,
                key,
                message,
            } => {
                if self.json() {
                    return self.event(&json!({
                        "event": "ignored",
                        "id": id,
                        "source": source.as_str(),
                        "callsign": callsign,
                        "idempotencyKey": key,
                        "message": message,
                    }));
                }
                let what = callsign.unwrap_or_else(|| "a contact".into());
                self.ctx.say(&format!(
                    "ignored {}'s delete of {what} (deletes are not applied)\n",
                    source.as_str()
                ))
            }
            Heard::Status { id, source, kind } if self.json() => self.event(&json!({
                "event": "status",
                "id": id,
                "source": source.as_str(),
                "kind": kind,
            })),
            Heard::Status { .. } => Ok(()),
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

    /// The folder a contact goes into: --folder, else the monthly log of --month or of the
    /// contact's own month (a monthly log holds only its month's contacts).
    async fn folder_for(&mut self, contact: &ContactInput) -> Result<String, JournalError> {
        if let Some(folder) = &self.folder {
            return Ok(folder.clone());
        }
        let month = match &self.month {
            Some(month) => month.clone(),
            None => Timestamp::parse("timeOn", &contact.time_on)
                .map_err(|e| JournalError::Invalid(e.message))?
                .utc_month(),
        };
        if let Some(folder) = self.monthly.get(&month) {
            return Ok(folder.clone());
        }
        let (entry, folder) = self.journal.log_monthly(&month, None).await?;
        if entry.is_some() {
            self.wake.notify_one();
        }
        // A log the service made is that month's for the rest of the run: a burst of QSOs
        // asks the journal once. A local one is asked again, until it is made.
        if !is_local_folder_id(&folder.id) {
            self.monthly.insert(month, folder.id.clone());
        }
        Ok(folder.id)
    }

    /// The folder a contact keyed with its folder goes into: a monthly log the service has
    /// not made yet is waited for a little, so that the key names the folder an import of the
    /// same record would (with no link, the local one).
    async fn made(&mut self, folder: String) -> Result<String, JournalError> {
        if !is_local_folder_id(&folder) || self.unmade.contains(&folder) {
            return Ok(folder);
        }
        self.wake.notify_one();
        let started = Instant::now();
        loop {
            if let Some(made) = self.journal.made_folder(&folder).await? {
                return Ok(made.id);
            }
            if started.elapsed() >= FOLDER_WAIT {
                self.unmade.push(folder.clone());
                return Ok(folder);
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// The entry holding `base` keyed with `folder`, or with a local folder made into it.
    async fn held_in(&self, base: &str, folder: &str) -> Result<Option<Entry>, JournalError> {
        if let Some(held) = self
            .journal
            .logged_under(&format!("{base}:{folder}"))
            .await?
        {
            return Ok(Some(held));
        }
        for local in &self.unmade {
            let made = self.journal.made_folder(local).await?;
            if made.is_some_and(|made| made.id == folder)
                && let Some(held) = self
                    .journal
                    .logged_under(&format!("{base}:{local}"))
                    .await?
            {
                return Ok(Some(held));
            }
        }
        Ok(None)
    }

    async fn log(
        &mut self,
        mut contact: ContactInput,
        key: Key,
        id: &str,
        source: Source,
        from: Origin,
        edit: bool,
    ) -> Result<(), CliError> {
        let logged = match key {
            // A key held already needs no folder: nothing is logged.
            Key::Fixed(key) => match self.journal.logged_under(&key).await? {
                Some(held) => Ok(Logged::Already(held)),
                None => match self.folder_for(&contact).await {
                    Ok(folder) => {
                        contact.folder_id = folder;
                        self.journal.log_contact_once(contact.clone(), &key).await
                    }
                    Err(e) => Err(e),
                },
            },
            Key::InFolder(base) => {
                let folder = match self.folder_for(&contact).await {
                    Ok(folder) => self.made(folder).await,
                    Err(e) => Err(e),
                };
                match folder {
                    Ok(folder) => match self.held_in(&base, &folder).await? {
                        Some(held) => Ok(Logged::Already(held)),
                        None => {
                            let key = format!("{base}:{folder}");
                            contact.folder_id = folder;
                            self.journal.log_contact_once(contact.clone(), &key).await
                        }
                    },
                    Err(e) => Err(e),
                }
            }
        };
        match logged {
            Ok(Logged::New(entry)) => {
                self.wake.notify_one();
                self.broadcast(&contact, &entry);
                if let Some(colours) = &mut self.colours {
                    self.outgoing.extend(colours.logged(&contact));
                }
                self.logged(&contact, &entry, id, source)
            }
            Ok(Logged::Already(held)) => self.duplicate(&contact, &held, id, source, edit),
            // A contact the journal cannot take (no frequency, a callsign missing) is dropped,
            // as a malformed datagram is; a journal that cannot write stops the command.
            Err(JournalError::Invalid(message)) => {
                self.dropped(from, Some(id), &format!("{}: {message}", source.as_str()))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The contact as one ADIF record to each --broadcast-adif address, as the service will
    /// store it.
    fn broadcast(&mut self, contact: &ContactInput, entry: &Entry) {
        if self.broadcast_adif.is_empty() {
            return;
        }
        if let Some(text) = svc_adif::logged_record_text(contact, &entry.id, &self.account) {
            for to in &self.broadcast_adif {
                self.outgoing.push((*to, text.clone().into_bytes()));
            }
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
        edit: bool,
    ) -> Result<(), CliError> {
        if self.json() {
            let mut event = json!({
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
            });
            if edit {
                event["message"] = json!(
                    "an edit of a contact logged already: not applied (svc does not edit from N1MM+ yet; edit it in svc)"
                );
            }
            return self.event(&event);
        }
        let note = if edit {
            "already logged; the edit is not applied"
        } else {
            "already logged"
        };
        self.ctx.say(&format!(
            "duplicate {} {} {} ({note})\n",
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
