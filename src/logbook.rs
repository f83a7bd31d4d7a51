//! The logbook's flags (`svc`, `svc tui` and `svc demo` take the same ones) and opening the
//! logbook with the key and the service the commands use.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::Args;

use crate::cli::{self, CliError, GlobalArgs};

/// WSJT-X's own default for its UDP Server.
const WSJTX_DEFAULT: &str = "127.0.0.1:2237";

/// `--wsjtx`'s and `--broadcast-adif`'s address; a value that is none may be the command
/// that was meant to follow a bare `--wsjtx`.
fn udp_address(text: &str) -> Result<SocketAddr, String> {
    cli::input::udp_address(text).map_err(|e| {
        format!("{e}; --wsjtx alone means {WSJTX_DEFAULT}, last or before another flag")
    })
}

/// The logbook's own flags.
#[derive(Debug, Clone, Default, Args)]
pub struct LogbookArgs {
    /// Follow the radio through Hamlib's rigctld at HOST:PORT (a host alone: port 4532); F and M send the form's frequency and mode to it [default: rig in the config file]
    #[arg(long, value_name = "HOST:PORT")]
    pub rig: Option<String>,
    /// Hear WSJT-X (JTDX, MSHV) on this UDP address, as set in its Settings → Reporting → UDP Server: each QSO it logs is logged into the open log (else its month's), and the status bar shows what it is doing [default when given alone: 127.0.0.1:2237]
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = WSJTX_DEFAULT, value_parser = udp_address)]
    pub wsjtx: Option<SocketAddr>,
    /// With --wsjtx: do not colour the calls WSJT-X decodes by what working them would bring the log (a new DXCC entity, a new band, a dupe): JTAlert or another program does
    #[arg(long)]
    pub no_highlight: bool,
    /// Send each contact logged here (typed or WSJT-X's) as an ADIF record, one a datagram, to this UDP address too (GridTracker and the like); repeat it for several
    #[arg(long, value_name = "ADDR", value_parser = udp_address)]
    pub broadcast_adif: Vec<SocketAddr>,
    /// Read the country file (AD1C's cty.csv) the form shows a call's entity and zones from [default: cty.csv in the data directory, else the copy shipped in svc]
    #[arg(long, env = "SVC_CTY", value_name = "FILE")]
    pub cty: Option<std::path::PathBuf>,
    /// Read the super check partial list (MASTER.SCP) the form shows partial matches from [default: MASTER.SCP in the data directory, else the copy shipped in svc]
    #[arg(long, env = "SVC_SCP", value_name = "FILE")]
    pub scp: Option<std::path::PathBuf>,
    /// POTA's API address, for spots (Alt-S, Alt-Shift-S) [default: https://api.pota.app]
    #[arg(long, env = "SVC_POTA_API_URL", value_name = "URL")]
    pub pota_api_url: Option<String>,
    /// QRZ's XML service, for the callbook connected with svc lookup connect [default: https://xmldata.qrz.com/xml/current/]
    #[arg(long, env = "SVC_QRZ_XML_URL", value_name = "URL")]
    pub qrz_xml_url: Option<String>,
    /// HamQTH's XML service, for the callbook connected with svc lookup connect [default: https://www.hamqth.com/xml.php]
    #[arg(long, env = "SVC_HAMQTH_URL", value_name = "URL")]
    pub hamqth_url: Option<String>,
    /// Who is at the keyboard, when not the station's own call: each contact typed here is logged with this OPERATOR (a club's call worked by a member, a multi-op contest station), which Cabrillo's OPERATORS lists
    #[arg(long, env = "SVC_OPERATOR", value_name = "CALL", value_parser = cli::input::callsign)]
    pub operator: Option<String>,
    /// Which transmitter of a two-transmitter (multi-two) contest station this logbook logs for, 0 or 1: each contact typed here carries it, and the Cabrillo file's QSO lines end with it
    #[arg(long, env = "SVC_TRANSMITTER", value_name = "0|1", value_parser = clap::value_parser!(u8).range(0..=1))]
    pub transmitter: Option<u8>,
}

impl LogbookArgs {
    /// These flags given after the subcommand, else those given before it.
    pub fn or(self, before: LogbookArgs) -> LogbookArgs {
        LogbookArgs {
            rig: self.rig.or(before.rig),
            wsjtx: self.wsjtx.or(before.wsjtx),
            no_highlight: self.no_highlight || before.no_highlight,
            broadcast_adif: if self.broadcast_adif.is_empty() {
                before.broadcast_adif
            } else {
                self.broadcast_adif
            },
            cty: self.cty.or(before.cty),
            scp: self.scp.or(before.scp),
            pota_api_url: self.pota_api_url.or(before.pota_api_url),
            qrz_xml_url: self.qrz_xml_url.or(before.qrz_xml_url),
            hamqth_url: self.hamqth_url.or(before.hamqth_url),
            operator: self.operator.or(before.operator),
            transmitter: self.transmitter.or(before.transmitter),
        }
    }
}

/// The callbook connected with `svc lookup connect`, at the address the flags give; none when
/// none is connected or its password cannot be read (the logbook then looks nothing up). A
/// malformed address is an error.
fn connected_callbook(
    args: &LogbookArgs,
) -> Result<Option<std::sync::Arc<crate::client::lookup::Callbook>>, String> {
    use crate::client::lookup::{self, Callbook, Urls};
    let mut urls = Urls::default();
    if let Some(text) = &args.qrz_xml_url {
        urls.qrz = lookup::parse_url(text).map_err(|e| format!("--qrz-xml-url: {e}"))?;
    }
    if let Some(text) = &args.hamqth_url {
        urls.hamqth = lookup::parse_url(text).map_err(|e| format!("--hamqth-url: {e}"))?;
    }
    Ok(Callbook::configured(&urls).ok().map(std::sync::Arc::new))
}

/// The logbook's options from its flags (`svc`, `svc tui`, `svc demo`), each checked before
/// the screen opens.
pub fn logbook_options(args: LogbookArgs, color: bool) -> Result<crate::tui::Options, CliError> {
    let rig = crate::client::rig::resolve_rig(args.rig.as_deref()).map_err(CliError::input)?;
    let pota = match args.pota_api_url.as_deref() {
        None => None,
        Some(text) => Some(
            crate::pota::resolve_api_url(Some(text)).map_err(|e| CliError::input(e.to_string()))?,
        ),
    };
    let callbook = connected_callbook(&args).map_err(CliError::input)?;
    Ok(crate::tui::Options {
        color,
        label: None,
        rig,
        wsjtx: args.wsjtx,
        highlight: !args.no_highlight,
        broadcast_adif: args.broadcast_adif,
        cty: args.cty,
        scp: args.scp,
        pota,
        callbook,
        operator: args.operator,
        transmitter: args.transmitter,
    })
}

/// `svc` and `svc tui`: the logbook with the key and API base the commands use.
pub fn open_logbook(global: &GlobalArgs, command: &str, args: LogbookArgs) -> ExitCode {
    if !crate::tui::on_terminal() {
        return crate::tui::not_a_terminal(command);
    }
    let ctx = cli::Ctx::new(global, "tui".into());
    let options = match logbook_options(args, ctx.color) {
        Ok(options) => options,
        Err(e) => return cli::report("tui", false, &e),
    };
    // Not ctx.client(): its --verbose lines on stderr would scribble over the screen.
    let link = ctx.api_base().and_then(|base| {
        let found = ctx.key()?;
        let journal = crate::tui::JournalSource::Account {
            base: base.clone(),
            key: found.key.clone(),
        };
        Ok(crate::tui::Link::new(base, &found.key, journal)?)
    });
    match link {
        Ok(link) => crate::tui::run_blocking(link, options),
        Err(e) => cli::report("tui", false, &e),
    }
}
