//! `svc server …`: run the service and manage accounts and keys against its database.

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};

use std::sync::Arc;

use super::AppState;
use super::admin::{DbArgs, Fail, PlanArg, account, audit, fail, open};
use super::listen::{self, Connections};
use super::logbooks::Logbooks;
use super::logbooks::clublog::ClubLog;
use super::logbooks::eqsl::Eqsl;
use super::logbooks::qrz::Qrz;
use super::logbooks::secret::Secret;
use super::users::{self, UserCommand};
use svc_model::key::KeyPrefix;
use svc_model::{ApiError, ApiKey, ErrorCode, Tier, Timestamp, text};
use svc_store::{Limits, Store};

#[derive(Debug, Args)]
pub struct ServerArgs {
    #[command(subcommand)]
    command: ServerCommand,
}

// Parsed once per run: the size of `start`'s flags costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum ServerCommand {
    /// Run the HTTP service
    Start(StartArgs),
    /// Run the schema migrations and exit
    Migrate(DbArgs),
    /// Manage accounts
    User {
        #[command(subcommand)]
        command: UserCommand,
    },
    /// Manage API keys
    Key {
        #[command(subcommand)]
        command: KeyCommand,
    },
    /// Copy an SQLite database to a new file while servers write to it; a server started on
    /// the copy is the restore (PostgreSQL: pg_dump)
    Backup {
        /// The new file (never overwritten)
        #[arg(long, value_name = "FILE")]
        to: std::path::PathBuf,
        #[command(flatten)]
        db: DbArgs,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Args)]
struct StartArgs {
    /// Address to listen on (port 0 picks a free port; the address is printed on stdout)
    #[arg(
        long,
        env = "SVC_BIND",
        default_value = "127.0.0.1:8787",
        value_name = "ADDR"
    )]
    bind: String,
    #[command(flatten)]
    db: DbArgs,
    /// Requests per key per minute
    #[arg(long, env = "SVC_BURST_LIMIT", default_value_t = Limits::default().burst_per_minute)]
    burst_limit: u32,
    /// Import batches (of up to 500 contacts) per key per minute, counted apart from the burst
    /// limit
    #[arg(long, env = "SVC_IMPORT_LIMIT", default_value_t = Limits::default().import_batches_per_minute)]
    import_limit: u32,
    /// Contacts an account may create per UTC day
    #[arg(long, env = "SVC_DAILY_CONTACT_BUDGET", default_value_t = Limits::default().daily_contact_budget)]
    daily_contact_budget: i64,
    /// Contacts an account may create in its lifetime
    #[arg(long, env = "SVC_LIFETIME_CONTACT_BUDGET", default_value_t = Limits::default().lifetime_contact_budget)]
    lifetime_contact_budget: i64,
    /// Native QSOs a free-plan account may hold
    #[arg(long, env = "SVC_FREE_PLAN_CAP", default_value_t = Limits::default().free_plan_cap)]
    free_plan_cap: i64,
    /// Log line format on stderr
    #[arg(long, env = "SVC_LOG_FORMAT", value_enum, default_value = "text")]
    log_format: LogFormat,
    /// The address users open the web pages at, e.g. https://log.example.org; with https the
    /// session cookie is always Secure, and form posts must come from this origin
    #[arg(long, env = "SVC_PUBLIC_URL", value_name = "URL")]
    public_url: Option<String>,
    /// Behind a reverse proxy: take the client address for the sign-in limits from the last
    /// X-Forwarded-For entry
    #[arg(long, env = "SVC_TRUST_PROXY")]
    trust_proxy: bool,
    /// The plan of accounts made on the sign-up page
    #[arg(long, env = "SVC_DEFAULT_PLAN", value_enum, default_value = "free")]
    default_plan: PlanArg,
    /// Accounts the sign-up page makes per hour for the whole server, from every address
    /// together (besides 10 per address and per callsign in 15 minutes); 0 closes sign-up
    #[arg(long, env = "SVC_SIGNUP_LIMIT", value_name = "N", default_value_t = super::web::DEFAULT_SIGNUPS_PER_HOUR)]
    signup_limit: u32,
    /// Password hashes (of sign-ups and sign-ins on the web pages) that may wait per core
    /// while one a core runs, each taking 19 MiB as it runs; one more is answered 429 at once,
    /// counted against no limit. The first service a process starts sets it
    #[arg(long, env = "SVC_HASH_QUEUE", value_name = "N", default_value_t = super::hashing::DEFAULT_WAITING_PER_CORE as u64, value_parser = clap::value_parser!(u64).range(0..=1024))]
    hash_queue: u64,
    /// A file holding the secret (at least 32 bytes) that seals external logbooks' API keys;
    /// without it, external logbooks are off
    #[arg(long, env = "SVC_SECRET_FILE", value_name = "PATH")]
    secret_file: Option<std::path::PathBuf>,
    /// The secret the keys were sealed with before --secret-file: at start every key is sealed
    /// again with the new one (docs/LOGBOOKS.md, "Rotating the secret")
    #[arg(
        long,
        env = "SVC_PREVIOUS_SECRET_FILE",
        value_name = "PATH",
        requires = "secret_file"
    )]
    previous_secret_file: Option<std::path::PathBuf>,
    /// Seconds a client has to send a request's head, from connecting or from the previous
    /// answer (so also how long an idle kept-alive connection stays open)
    #[arg(long, env = "SVC_HEADER_TIMEOUT", value_name = "SECS", default_value_t = Connections::default().header_timeout.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    header_timeout: u64,
    /// Seconds a client has to send a request's body, from the end of its head
    #[arg(long, env = "SVC_BODY_TIMEOUT", value_name = "SECS", default_value_t = Connections::default().body_timeout.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    body_timeout: u64,
    /// Seconds without a byte either way after which a connection is closed
    #[arg(long, env = "SVC_IDLE_TIMEOUT", value_name = "SECS", default_value_t = Connections::default().idle_timeout.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    idle_timeout: u64,
    /// Connections served at once; one more is answered rate_limited and closed (lowered to
    /// fit the open-files limit)
    #[arg(long, env = "SVC_MAX_CONNECTIONS", value_name = "N", default_value_t = Connections::default().max_connections as u64, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_connections: u64,
    /// Connections served at once from one client address [default: an eighth of
    /// --max-connections]; not applied with --trust-proxy, where every connection is the
    /// proxy's
    #[arg(long, env = "SVC_MAX_CONNECTIONS_PER_ADDRESS", value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_connections_per_address: Option<u64>,
    /// Seconds a shutdown (SIGTERM, Ctrl-C) waits for requests in flight before it closes
    /// the connections left
    #[arg(long, env = "SVC_SHUTDOWN_DRAIN", value_name = "SECS", default_value_t = Connections::default().drain.as_secs())]
    shutdown_drain: u64,
    /// Also serve Prometheus metrics at GET /metrics on this address (port 0 picks a free
    /// port; the address is printed on stdout after the service's) [default: off]. It asks for
    /// no key: bind it to loopback or a private network
    #[arg(long, env = "SVC_METRICS_BIND", value_name = "ADDR")]
    metrics_bind: Option<String>,
    /// The QRZ Logbook API's address
    #[arg(long, env = "SVC_QRZ_API_URL", value_name = "URL", default_value = super::logbooks::qrz::DEFAULT_API_URL)]
    qrz_api_url: String,
    /// Club Log's address: realtime.php, delete.php and putlogs.php are under it
    #[arg(long, env = "SVC_CLUBLOG_URL", value_name = "URL", default_value = super::logbooks::clublog::DEFAULT_URL)]
    clublog_url: String,
    /// The service's Club Log API key (Club Log's helpdesk gives one to each program); without
    /// it no Club Log book can be connected. Prefer the environment variable: a flag is seen
    /// in the process list
    #[arg(
        long,
        env = "SVC_CLUBLOG_API_KEY",
        value_name = "KEY",
        hide_env_values = true
    )]
    clublog_api_key: Option<String>,
    /// eQSL.cc's address: qslcard/ImportADIF.cfm is under it
    #[arg(long, env = "SVC_EQSL_URL", value_name = "URL", default_value = super::logbooks::eqsl::DEFAULT_URL)]
    eqsl_url: String,
    /// The country file (AD1C's cty.csv) contacts' DXCC entity and zones are filled from
    /// [default: cty.csv in the data directory when there is one, else the copy shipped in svc]
    #[arg(long, env = "SVC_CTY", value_name = "FILE")]
    cty: Option<std::path::PathBuf>,
    /// POTA's API, which the pages name parks from (kept in parks.sqlite in the data
    /// directory) [default: https://api.pota.app]
    #[arg(long, env = "SVC_POTA_API_URL", value_name = "URL")]
    pota_api_url: Option<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum PrefixArg {
    Svc,
    Htx,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum TierArg {
    Basic,
    Elevated,
}

#[derive(Debug, Subcommand)]
enum KeyCommand {
    /// Create an API key; prints the plaintext key alone on stdout, the only time it is shown
    Create {
        /// Callsign of the account that owns the key
        callsign: String,
        /// A name for the key
        #[arg(long)]
        name: String,
        #[arg(long, value_enum)]
        tier: TierArg,
        /// The key's prefix: svc (svc_live_…) or htx (htx_live_…, the shape the published
        /// Hamtrax client stores)
        #[arg(long, value_enum, default_value = "svc")]
        prefix: PrefixArg,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Revoke a key by its id (key_…) or its keyPrefix (svc_live_XXX)
    Revoke {
        key: String,
        #[command(flatten)]
        db: DbArgs,
    },
    /// List an account's keys (never their plaintext or hash)
    List {
        callsign: String,
        /// Print a JSON array
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        db: DbArgs,
    },
}

impl ServerCommand {
    fn name(&self) -> &'static str {
        match self {
            ServerCommand::Start(_) => "server start",
            ServerCommand::Migrate(_) => "server migrate",
            ServerCommand::Backup { .. } => "server backup",
            ServerCommand::User { command } => command.name(),
            ServerCommand::Key {
                command: KeyCommand::Create { .. },
            } => "server key create",
            ServerCommand::Key {
                command: KeyCommand::Revoke { .. },
            } => "server key revoke",
            ServerCommand::Key {
                command: KeyCommand::List { .. },
            } => "server key list",
        }
    }
}

pub fn run(args: ServerArgs) -> ExitCode {
    let name = args.command.name();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("svc: {name}: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    // `start` sets up its log with its --log-format; the admin commands log their audit
    // lines in the format SVC_LOG_FORMAT names, as the server it serves would.
    if !matches!(args.command, ServerCommand::Start(_)) {
        init_logging(match std::env::var("SVC_LOG_FORMAT").as_deref() {
            Ok("json") => LogFormat::Json,
            _ => LogFormat::Text,
        });
    }
    match runtime.block_on(execute(args.command)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("{}", f.line(name));
            ExitCode::from(f.code.map_or(1, ErrorCode::exit_code))
        }
    }
}

async fn execute(command: ServerCommand) -> Result<(), Fail> {
    match command {
        ServerCommand::Start(args) => start(args).await,
        ServerCommand::Migrate(db) => {
            open(&db).await?;
            println!("migrations applied");
            Ok(())
        }
        ServerCommand::User { command } => users::run(command).await,
        ServerCommand::Key { command } => key_command(command).await,
        ServerCommand::Backup { to, db } => {
            let copy = svc_store::backup(&db.url(), &to).await?;
            println!(
                "backed up to {}: {} accounts, {} contacts, schema {}, {} bytes",
                to.display(),
                copy.accounts,
                copy.contacts,
                copy.schema,
                copy.bytes
            );
            Ok(())
        }
    }
}

fn show_time(t: Option<Timestamp>) -> String {
    t.map_or_else(|| "-".to_owned(), |t| t.to_string())
}

async fn key_command(command: KeyCommand) -> Result<(), Fail> {
    match command {
        KeyCommand::Create {
            callsign,
            name,
            tier,
            prefix,
            db,
        } => {
            let name = text::single_line("name", &name, 100)?
                .ok_or_else(|| ApiError::field("name", "--name must not be empty"))?;
            let store = open(&db).await?;
            let account = account(store.as_ref(), &callsign).await?.id;
            let tier = match tier {
                TierArg::Basic => Tier::Basic,
                TierArg::Elevated => Tier::Elevated,
            };
            let key = ApiKey::generate_with(match prefix {
                PrefixArg::Svc => KeyPrefix::Svc,
                PrefixArg::Htx => KeyPrefix::Htx,
            });
            let record = store.create_key(&account, &name, tier, &key).await?;
            audit(
                "server key create",
                &format!(
                    "created key {} ({}, {}) of {}",
                    record.id,
                    record.key_prefix,
                    tier.as_str(),
                    record.callsign
                ),
            );
            let mut out = std::io::stdout().lock();
            writeln!(out, "{}", key.expose())
                .map_err(|e| fail(format!("cannot write the key: {e}")))?;
            Ok(())
        }
        KeyCommand::Revoke { key, db } => {
            let store = open(&db).await?;
            let matches = store.find_keys(key.trim()).await?;
            let record = match matches.as_slice() {
                [] => {
                    return Err(
                        ApiError::not_found(format!("no key with id or prefix {key}")).into(),
                    );
                }
                [one] => one,
                many => {
                    let ids: Vec<_> = many
                        .iter()
                        .map(|k| format!("{} ({}, {})", k.id, k.callsign, k.name))
                        .collect();
                    return Err(ApiError::validation(format!(
                        "{key} matches {} keys: {}; revoke by key id",
                        many.len(),
                        ids.join(", ")
                    ))
                    .into());
                }
            };
            // The operator revokes on the owner's behalf: the API knows only the reason `user`.
            if !store
                .revoke_key(&record.id, "user", Timestamp::now())
                .await?
            {
                return Err(
                    ApiError::validation(format!("key {} was revoked already", record.id)).into(),
                );
            }
            let change = format!(
                "revoked {} ({}, {} of {})",
                record.id, record.key_prefix, record.name, record.callsign
            );
            audit("server key revoke", &change);
            println!("{change}");
            Ok(())
        }
        KeyCommand::List { callsign, json, db } => {
            let store = open(&db).await?;
            let account = account(store.as_ref(), &callsign).await?.id;
            let keys = store.list_keys(&account).await?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&keys).unwrap_or_default()
                );
            } else {
                println!(
                    "{:<20}  {:<12}  {:<8}  {:<20}  {:<24}  {:<24}  REVOKED",
                    "ID", "PREFIX", "TIER", "NAME", "CREATED", "LAST USED"
                );
                for k in keys {
                    let revoked = match (k.revoked_at, &k.revoked_reason) {
                        (Some(at), Some(reason)) => format!("{at} ({reason})"),
                        (Some(at), None) => at.to_string(),
                        _ => "-".to_owned(),
                    };
                    println!(
                        "{:<20}  {:<12}  {:<8}  {:<20}  {:<24}  {:<24}  {revoked}",
                        k.id,
                        k.key_prefix,
                        k.tier.as_str(),
                        k.name,
                        k.created_at.to_string(),
                        show_time(k.last_used_at)
                    );
                }
            }
            Ok(())
        }
    }
}

fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("SVC_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,sqlx=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.with_ansi(false).init(),
        LogFormat::Json => builder.json().init(),
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}

/// Seals every logbook key sealed with `previous` again with `secret`; keys `secret` opens
/// already are left as they are, so a restart with both files changes nothing more.
async fn reseal(store: &dyn Store, previous: &Secret, secret: &Secret) -> Result<(), Fail> {
    let mut moved = 0;
    for (id, sealed) in store.sealed_keys().await? {
        if secret.open(&id, &sealed).is_some() {
            continue;
        }
        match previous.open(&id, &sealed) {
            Some(key) => {
                store.reseal_key(&id, &secret.seal(&id, &key)).await?;
                moved += 1;
            }
            None => tracing::warn!(logbook = %id, "neither secret opens this logbook's key"),
        }
    }
    tracing::info!(moved, "logbook keys sealed with the new secret");
    Ok(())
}

/// Descriptors kept for the database, the log and the rest beside the client connections.
const RESERVED_FILES: u64 = 128;

/// The connection limits of the flags; the cap is lowered where the open-files limit, raised as
/// far as it goes, could not hold it.
fn connection_limits(args: &StartArgs) -> Connections {
    let secs = std::time::Duration::from_secs;
    let mut cap = args.max_connections;
    #[cfg(unix)]
    match listen::raise_open_files_limit() {
        Ok(files) if files < cap + RESERVED_FILES => {
            let fits = files.saturating_sub(RESERVED_FILES).max(1);
            tracing::warn!(
                open_files = files,
                max_connections = fits,
                "the open-files limit is too low for --max-connections; serving fewer at once (raise it with ulimit -n or LimitNOFILE=)"
            );
            cap = fits;
        }
        Ok(_) => {}
        Err(error) => tracing::warn!(%error, "cannot read the open-files limit"),
    }
    Connections {
        header_timeout: secs(args.header_timeout),
        body_timeout: secs(args.body_timeout),
        idle_timeout: secs(args.idle_timeout),
        max_connections: cap as usize,
        per_address: (!args.trust_proxy).then(|| {
            args.max_connections_per_address
                .map_or((cap as usize / listen::PER_ADDRESS_SHARE).max(1), |n| {
                    n as usize
                })
        }),
        drain: secs(args.shutdown_drain),
    }
}

/// The park cache in `data_dir`, one per machine (it is only a cache); a service that cannot
/// open it runs without, and its pages show references alone.
async fn park_names(
    pota: svc_pota::Pota,
    data_dir: &std::path::Path,
) -> Option<Arc<super::parks::ParkNames>> {
    let path = data_dir.join(svc_pota::CACHE_FILE);
    match svc_pota::Parks::open_path(&path, pota).await {
        Ok(parks) => Some(super::parks::ParkNames::new(parks)),
        Err(error) => {
            tracing::warn!(%error, "no park cache: the pages show park references without names");
            None
        }
    }
}

/// What a service started by [`serve_flags`] hands its caller once it listens.
pub struct Ready {
    /// The service's address.
    pub addr: std::net::SocketAddr,
    /// The metrics' address, with `--metrics-bind`.
    pub metrics: Option<std::net::SocketAddr>,
    /// The store the service serves from.
    pub store: Arc<dyn Store>,
}

/// `server start`'s flags alone, for [`serve_flags`].
#[derive(clap::Parser)]
#[command(name = "svc server start")]
struct StartFlags {
    #[command(flatten)]
    args: StartArgs,
}

/// What `svc server start FLAGS…` serves, in the caller's runtime, for a program that runs the
/// service beside other work (the tests): the flags are parsed as the command parses them,
/// with their defaults and `SVC_*` variables, and the service is built from them the same way;
/// `data_dir` stands for the data directory (the country file, the park cache). Unlike the
/// command it sets up no log, prints nothing and waits for no signal: `ready` is handed the
/// addresses and the store once both listen, and the service stops when `shutdown` completes.
/// A failure to start is the message the command would print.
pub async fn serve_flags<I, T>(
    flags: I,
    data_dir: &std::path::Path,
    ready: impl FnOnce(Ready),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), String>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    use clap::Parser;
    let flags = StartFlags::try_parse_from(
        std::iter::once("svc server start".into()).chain(flags.into_iter().map(Into::into)),
    )
    .map_err(|e| e.to_string())?;
    serve_args(flags.args, data_dir, ready, shutdown)
        .await
        .map_err(|f| f.line("server start"))
}

async fn start(args: StartArgs) -> Result<(), Fail> {
    init_logging(args.log_format);
    super::hashing::return_memory_after_use();
    let data_dir = svc_datafiles::data_dir();
    let ready = |ready: Ready| {
        hand_back_start_up_memory();
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "listening on http://{}", ready.addr);
        if let Some(addr) = &ready.metrics {
            let _ = writeln!(out, "metrics listening on http://{addr}");
        }
        let _ = out.flush();
    };
    serve_args(args, &data_dir, ready, shutdown_signal()).await?;
    tracing::info!("svc server stopped");
    Ok(())
}

/// Gives the system back the heap pages that start-up used and freed, most of them the
/// scratch of parsing the country file (about 2.5 MB at its peak, of which the tables kept
/// are about 0.5 MB): glibc keeps freed pages that lie below live blocks, so an idle server
/// held them for good.
fn hand_back_start_up_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only gives free pages of the allocator's heap back to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The service of `args` until `shutdown`: [`start`] and [`serve_flags`] alike.
async fn serve_args(
    args: StartArgs,
    data_dir: &std::path::Path,
    ready: impl FnOnce(Ready),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Fail> {
    super::hashing::set_waiting_per_core(args.hash_queue as usize);
    let mut web = super::web::WebConfig {
        public_origin: None,
        trust_proxy: args.trust_proxy,
        signup_plan: args.default_plan.into(),
        signups_per_hour: args.signup_limit,
    };
    if let Some(url) = &args.public_url {
        web = web.with_public_url(url).map_err(ApiError::validation)?;
    }
    let limits = Limits {
        burst_per_minute: args.burst_limit,
        import_batches_per_minute: args.import_limit,
        daily_contact_budget: args.daily_contact_budget,
        lifetime_contact_budget: args.lifetime_contact_budget,
        free_plan_cap: args.free_plan_cap,
        daily_applies: true,
    };
    let (dxcc, country_file) =
        svc_datafiles::shared_country_file_in(args.cty.as_deref(), data_dir).map_err(fail)?;
    let pota = svc_pota::resolve_api_url(args.pota_api_url.as_deref())
        .map(svc_pota::Pota::new)
        .map_err(|e| ApiError::validation(e.to_string()))?;
    let parks = park_names(pota, data_dir).await;
    let store = open(&args.db).await?;
    let logbooks = match &args.secret_file {
        None => None,
        Some(path) => {
            let secret = Secret::read_file(path).map_err(ApiError::validation)?;
            if let Some(previous) = &args.previous_secret_file {
                let previous = Secret::read_file(previous).map_err(ApiError::validation)?;
                reseal(store.as_ref(), &previous, &secret).await?;
            }
            let url = reqwest::Url::parse(&args.qrz_api_url).map_err(|e| {
                ApiError::validation(format!("--qrz-api-url {:?}: {e}", args.qrz_api_url))
            })?;
            let qrz = Qrz::new(url).map_err(|e| fail(e.to_string()))?;
            let url = reqwest::Url::parse(&args.clublog_url).map_err(|e| {
                ApiError::validation(format!("--clublog-url {:?}: {e}", args.clublog_url))
            })?;
            let clublog = ClubLog::new(url, args.clublog_api_key.clone()).map_err(fail)?;
            let url = reqwest::Url::parse(&args.eqsl_url).map_err(|e| {
                ApiError::validation(format!("--eqsl-url {:?}: {e}", args.eqsl_url))
            })?;
            let eqsl = Eqsl::new(url).map_err(fail)?;
            Some(Arc::new(Logbooks {
                qrz,
                clublog,
                eqsl,
                secret,
            }))
        }
    };
    let connections = connection_limits(&args);
    let listener = tokio::net::TcpListener::bind(&args.bind)
        .await
        .map_err(|e| fail(format!("cannot listen on {}: {e}", args.bind)))?;
    let addr = listener
        .local_addr()
        .map_err(|e| fail(format!("cannot read the bound address: {e}")))?;
    let metrics = match &args.metrics_bind {
        None => None,
        Some(bind) => {
            let listener = tokio::net::TcpListener::bind(bind)
                .await
                .map_err(|e| fail(format!("cannot listen on {bind} for metrics: {e}")))?;
            let addr = listener
                .local_addr()
                .map_err(|e| fail(format!("cannot read the metrics address: {e}")))?;
            // /metrics asks for no key: on an address others reach, anyone there reads the
            // service's traffic, accounts and errors.
            if !addr.ip().is_loopback() {
                tracing::warn!(
                    %addr,
                    "the metrics on --metrics-bind are readable by anyone who can reach this address, with no key; bind them to loopback (127.0.0.1) or a private network, or firewall the port"
                );
            }
            Some((listener, addr))
        }
    };
    ready(Ready {
        addr,
        metrics: metrics.as_ref().map(|(_, addr)| *addr),
        store: store.clone(),
    });
    tracing::info!(%addr, ?limits, ?connections, %country_file, "svc server started");
    let state = AppState {
        store,
        limits,
        web,
        logbooks,
        dxcc,
        parks,
    };
    let metrics = metrics.map(|(l, _)| tokio::spawn(super::metrics::serve(l, state.store.clone())));
    let served = super::serve(listener, state, connections, shutdown).await;
    if let Some(metrics) = metrics {
        metrics.abort();
    }
    served.map_err(|e| fail(format!("server failed: {e}")))
}
