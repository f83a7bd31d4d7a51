//! Where the logbook meets the world: the terminal, the run loop that turns events into
//! actions and draws after each, the journal's keeper, the background tasks (the network,
//! the radio, WSJT-X's datagrams, the link check) and the async runtime. Everything else in
//! the logbook is pure.

pub mod broadcast;
pub mod keeper;
pub mod tasks;
pub mod terminal;
pub mod wsjtx;

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use ratatui::crossterm::event::{Event, EventStream};
use reqwest::Url;
use tokio::net::UdpSocket;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::action::{Action, Effect};
use crate::app::{App, Options, update};
use crate::journal::{JournalSource, Left};
use crate::ui;
use svc_client::rig::Rig;
use svc_client::{Client, ClientError, RetryPolicy};
use svc_model::{ApiKey, Timestamp};
use svc_pota::Pota;

/// How long the logbook waits to open a connection, and for a whole answer: a dead link, or
/// one that accepts and never answers, shows as offline within seconds, not minutes. Nothing
/// typed waits for it either way: contacts go to the journal first.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);
/// The sender's batches of up to 500 contacts may take longer over a slow link than a read.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(15);

/// What the logbook talks to: a client for its reads and one for the journal's sender, and
/// the journal.
pub struct Link {
    pub reads: Client,
    pub sender: Client,
    pub journal: JournalSource,
}

impl Link {
    /// Clients with short time-outs and one attempt per request: the logbook asks again by
    /// itself (the sender backs off and retries; `r` reloads), so a retry inside the client
    /// would only keep `offline` off the screen longer.
    pub fn new(base: Url, key: &ApiKey, journal: JournalSource) -> Result<Link, ClientError> {
        let policy = RetryPolicy {
            transport_attempts: 1,
            ..RetryPolicy::default()
        };
        let reads = Client::new(base.clone(), key)?
            .with_timeouts(CONNECT_TIMEOUT, ANSWER_TIMEOUT)?
            .with_policy(policy.clone());
        let sender = Client::new(base, key)?
            .with_timeouts(CONNECT_TIMEOUT, SEND_TIMEOUT)?
            .with_policy(policy);
        Ok(Link {
            reads,
            sender,
            journal,
        })
    }
}

/// Whether stdin and stdout are both a terminal, as the logbook needs.
pub fn on_terminal() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// What `svc`, `svc tui` and `svc demo` say when they are not on a terminal (exit 2).
pub fn not_a_terminal(command: &str) -> ExitCode {
    let name = if command == "svc" {
        "svc".to_owned()
    } else {
        format!("svc: {command}")
    };
    eprintln!(
        "{name}: the logbook needs a terminal, and stdin or stdout is not one; in scripts use the subcommands (svc help lists them)"
    );
    ExitCode::from(2)
}

/// A key that makes debug builds panic, so the tests can check that a panic gives the
/// terminal back. Release builds have no such key.
#[cfg(debug_assertions)]
fn panic_key() -> Option<char> {
    std::env::var("SVC_TUI_TEST_PANIC_KEY")
        .ok()
        .and_then(|v| v.chars().next())
}

/// POTA's client, at the address given or POTA's own.
fn pota_client(url: Option<Url>) -> std::io::Result<Pota> {
    let url = match url {
        Some(url) => url,
        None => svc_pota::resolve_api_url(None).map_err(std::io::Error::other)?,
    };
    Ok(Pota::new(url))
}

/// Why the logbook could not run.
#[derive(Debug)]
pub enum RunError {
    /// The --wsjtx port could not be listened on (before the screen opened), and what to do.
    Wsjtx(String),
    /// No socket for --broadcast-adif could be opened.
    Broadcast(String),
    Terminal(std::io::Error),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Wsjtx(why) | RunError::Broadcast(why) => f.write_str(why),
            RunError::Terminal(e) => write!(f, "the terminal failed: {e}"),
        }
    }
}

impl From<std::io::Error> for RunError {
    fn from(e: std::io::Error) -> RunError {
        RunError::Terminal(e)
    }
}

/// The socket WSJT-X's messages come to; a port taken is said with what to do about it.
async fn listen_wsjtx(addr: SocketAddr) -> Result<UdpSocket, RunError> {
    UdpSocket::bind(addr).await.map_err(|e| {
        let why = if e.kind() == std::io::ErrorKind::AddrInUse {
            "the port is taken by another program (svc listen, GridTracker, JTAlert, another logger)"
                .to_owned()
        } else {
            e.to_string()
        };
        RunError::Wsjtx(format!(
            "cannot listen for WSJT-X on UDP {addr}: {why}; pick another port with --wsjtx 127.0.0.1:PORT and set WSJT-X's UDP Server to it (or have the other program forward to it)"
        ))
    })
}

/// Runs the logbook on this terminal until the user quits; says what stays in the journal.
pub async fn run(link: Link, options: Options) -> Result<Left, RunError> {
    // Before the screen opens: a port taken is the likeliest failure, and is said plainly.
    let wsjtx = match options.wsjtx {
        Some(addr) => Some(listen_wsjtx(addr).await?),
        None => None,
    };
    let broadcast = broadcast::Broadcast::bind(options.broadcast_adif.clone())
        .await
        .map_err(RunError::Broadcast)?;
    let highlight = options.highlight;
    let client = Arc::new(link.reads);
    let (sender_tx, mut sender_rx) = mpsc::unbounded_channel();
    let mut keeper = keeper::Keeper::new(link.journal, Arc::new(link.sender), sender_tx);
    let mut guard = terminal::Guard::enter()?;
    let size = guard.terminal.size()?;
    let rig = options.rig.clone();
    let (cty, scp) = (options.cty.clone(), options.scp.clone());
    let pota = pota_client(options.pota.clone())?;
    let outside = tasks::Outside {
        // A cache that cannot be opened costs only the parks' names.
        parks: svc_pota::Parks::open(pota.clone()).await.ok().map(Arc::new),
        pota,
        callbook: options.callbook.clone(),
    };
    let (mut app, effects) = App::new(options, Timestamp::now(), (size.width, size.height));
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut tasks = JoinSet::new();
    // One task owns the connection to rigctld, so that readings and the commands of F and M
    // never interleave on it.
    let rig_commands = rig.map(|address| {
        let (commands, inbox) = mpsc::unbounded_channel();
        tasks.spawn(tasks::poll_rig(Rig::new(address), inbox, tx.clone()));
        commands
    });
    let mut feed = wsjtx::Feed::default();
    if let Some(socket) = wsjtx {
        let fed = highlight.then(|| {
            let (to, fed) = mpsc::unbounded_channel();
            feed = wsjtx::Feed::new(to);
            fed
        });
        tasks.spawn(wsjtx::hear_wsjtx(socket, fed, tx.clone()));
    }
    tasks.spawn(tasks::watch_link(client.clone(), tx.clone()));
    tasks.spawn(tasks::load_callsigns(cty, scp, tx.clone()));
    let mut work = VecDeque::from(effects);
    let mut events = EventStream::new();
    let mut clock = tokio::time::interval(Duration::from_secs(1));
    clock.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    #[cfg(debug_assertions)]
    let panic_key = panic_key();
    loop {
        // Journal work is done here, before the frame that shows its outcome.
        while let Some(effect) = work.pop_front() {
            match effect {
                Effect::Journal(effect) => {
                    let answer = keeper.perform(effect).await;
                    // A contact logged is in the journal now: the colours follow it, and
                    // --broadcast-adif sends it, before the frame that shows it.
                    feed.action(&answer);
                    if let Some((entry, contact)) = wsjtx::logged(&answer) {
                        let account = app.me.as_ref().map(|me| me.callsign.as_str());
                        broadcast
                            .send(contact, entry, account.unwrap_or_default())
                            .await;
                    }
                    work.extend(update(&mut app, answer));
                }
                Effect::Rig(command) => {
                    if let Some(commands) = &rig_commands {
                        let _ = commands.send(command);
                    }
                }
                Effect::SendNow => keeper.send_now(),
                effect => {
                    tasks::spawn(effect, &client, &outside, keeper.journal(), &tx, &mut tasks)
                }
            }
        }
        while tasks.try_join_next().is_some() {}
        if app.quit {
            break;
        }
        guard.terminal.draw(|frame| ui::draw(&app, frame))?;
        let action = tokio::select! {
            event = events.next() => match event {
                Some(Ok(Event::Key(key))) => {
                    #[cfg(debug_assertions)]
                    if let Some(c) = panic_key
                        && key.code == ratatui::crossterm::event::KeyCode::Char(c)
                    {
                        panic!("the test panic key {c:?} was pressed");
                    }
                    // The time of the key: a contact logged with it is timed now, not at
                    // the last tick of the clock.
                    work.extend(update(&mut app, Action::Tick(Timestamp::now())));
                    Action::Key(key)
                }
                Some(Ok(Event::Resize(w, h))) => Action::Resize(w, h),
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(e.into()),
                // The terminal went away: nothing more can be typed.
                None => break,
            },
            Some(action) = rx.recv() => action,
            Some(event) = sender_rx.recv() => Action::Sender(event),
            _ = clock.tick() => Action::Tick(Timestamp::now()),
        };
        // The country file and the log read from the journal are the colouring task's too.
        feed.action(&action);
        work.extend(update(&mut app, action));
    }
    // Requests still waiting for a slow service must not hold up quitting.
    tasks.abort_all();
    drop(guard);
    Ok(keeper.close().await)
}

/// The runtime the logbook runs on; when it cannot start, the error is printed for `command`
/// and the exit code returned.
pub fn runtime(command: &str) -> Result<tokio::runtime::Runtime, ExitCode> {
    // glibc gives each thread that allocates under contention an arena of its own, and each
    // keeps its own free pieces: the logbook's threads allocate little at once, and one arena
    // holds 3.5 MB less with 10,000 contacts paged in (docs/BENCHMARKS.md).
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes a setting of the allocator, under its own lock.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("svc: {command}: local_error: cannot start the async runtime: {e}");
            ExitCode::FAILURE
        })
}

/// Runs the logbook on a runtime of its own, says what stays in the journal once the
/// terminal is back, and reports a terminal failure.
pub fn run_blocking(link: Link, options: Options) -> ExitCode {
    let runtime = match runtime("tui") {
        Ok(r) => r,
        Err(code) => return code,
    };
    let result = runtime.block_on(run(link, options));
    // A lookup stuck in a blocking thread must not keep the process alive after quitting.
    runtime.shutdown_background();
    match result {
        Ok(left) => {
            if let Some(message) = left.message() {
                println!("{message}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("svc: tui: local_error: {e}");
            ExitCode::FAILURE
        }
    }
}
