//! `svc spot` and `svc spots`: an activator's own spot on POTA, and the activators on the air
//! now. Neither goes through the service; `spot` asks it only for the account's callsign.

use std::time::Duration;

use clap::Args;
use reqwest::Url;

use super::output::{self, Cell, Format};
use super::parks::PotaArgs;
use super::{CliError, Ctx, input};
use svc_client::journal::Journal;
use svc_client::{Client, RetryPolicy};
use svc_model::band::mhz_text;
use svc_model::program::spot_parks;
use svc_model::{ApiKey, Page};
use svc_pota::{ModeFilter, NewSpot, Spot, SpotFilter};

/// The account's callsign is asked for with POTA's patience, not the service's: the spot waits.
const WHOAMI_CONNECT: Duration = Duration::from_secs(3);
const WHOAMI_ANSWER: Duration = Duration::from_secs(5);

#[derive(Debug, Args)]
pub struct SpotArgs {
    /// The park, e.g. US-0001, or a two-fer's parks, e.g. US-0001,US-0002 (the first is
    /// spotted, the others named at the start of the comment: "2fer with US-0002")
    #[arg(long, value_parser = input::reference, value_name = "REF[,REF…]")]
    reference: String,
    /// The frequency in MHz or kHz, e.g. 14.285 or 14285, as the logbook reads it
    #[arg(long, value_parser = input::mhz_in_band, value_name = "FREQ")]
    frequency: f64,
    /// The mode, e.g. SSB, CW or FT8
    #[arg(long, value_parser = input::mode, value_name = "MODE")]
    mode: String,
    /// A comment for hunters, one line of at most 256 characters, e.g. "QRV, 10 W"
    #[arg(long, value_parser = input::spot_comment, value_name = "TEXT")]
    comment: Option<String>,
    /// The activator, who is also the spotter [default: the account's callsign]
    #[arg(long, value_parser = input::callsign, value_name = "CALL")]
    activator: Option<String>,
    #[command(flatten)]
    pota: PotaArgs,
}

#[derive(Debug, Args)]
pub struct SpotsArgs {
    /// Only spots on this band, e.g. 20m
    #[arg(long, value_parser = input::band, value_name = "BAND")]
    band: Option<&'static str>,
    /// Only spots of this class (cw, phone, data) or this mode (e.g. FT8)
    #[arg(long, value_parser = input::mode_filter, value_name = "MODE")]
    mode: Option<ModeFilter>,
    #[command(flatten)]
    pota: PotaArgs,
}

/// A client for `GET /v1/whoami` with POTA's patience, not the service's: the spot waits on it.
pub fn callsign_client(ctx: &Ctx, base: Url, key: &ApiKey) -> Result<Client, CliError> {
    Ok(ctx
        .client_for(base, key)?
        .with_timeouts(WHOAMI_CONNECT, WHOAMI_ANSWER)?
        .with_policy(RetryPolicy {
            transport_attempts: 1,
            ..RetryPolicy::default()
        }))
}

/// The account's callsign, a spot's activator when none is given: from the outbox's copy of the
/// account when there is one, which needs no link (a spot from a park often has none to the
/// service), else from `GET /v1/whoami` through `client` (a [`callsign_client`]).
pub async fn account_callsign(
    journal: Option<&Journal>,
    client: &Client,
) -> Result<String, CliError> {
    if let Some(journal) = journal
        && let Ok(snapshot) = journal.snapshot().await
        && let Some(me) = snapshot.whoami
    {
        return Ok(me.callsign);
    }
    Ok(client.whoami().await?.callsign)
}

/// The configured key's account callsign; with no key, the flag to give instead.
async fn own_callsign(ctx: &Ctx) -> Result<String, CliError> {
    let Some(found) = ctx.key_if_any()? else {
        return Err(CliError::input(
            "give --activator CALL: no API key is configured, so svc cannot take the account's callsign (svc auth login configures one)",
        ));
    };
    let base = ctx.api_base()?;
    let journal = Journal::find(&base, &found.key).await.ok().flatten();
    let client = callsign_client(ctx, base, &found.key)?;
    account_callsign(journal.as_ref(), &client).await
}

pub fn spot(ctx: &Ctx, args: SpotArgs) -> Result<(), CliError> {
    let pota = args.pota.client(ctx)?;
    let spot = ctx.block_on(async {
        let activator = match args.activator {
            Some(call) => call,
            None => own_callsign(ctx).await?,
        };
        let (reference, comments) = spot_parks(&args.reference, args.comment.as_deref());
        // The parks named can make the comment too long: said before anything is sent.
        let comments = comments
            .map(|c| input::spot_comment(&c))
            .transpose()
            .map_err(|e| CliError::input(format!("--comment: {e}")))?;
        let new = NewSpot {
            spotter: activator.clone(),
            activator,
            frequency: args.frequency,
            reference,
            mode: args.mode,
            comments,
        };
        Ok(pota.spot(&new).await?)
    })?;
    match ctx.format {
        Format::Json => ctx.print_json(&spot),
        _ => {
            let park = match &spot.park_name {
                Some(name) => format!("{} ({name})", spot.reference),
                None => spot.reference.clone(),
            };
            ctx.say(&format!(
                "spotted {} at {park} on {} MHz {}\n",
                spot.activator,
                mhz_text(spot.frequency),
                spot.mode.as_deref().unwrap_or_default()
            ))
        }
    }
}

pub fn list(ctx: &Ctx, args: SpotsArgs) -> Result<(), CliError> {
    let pota = args.pota.client(ctx)?;
    let all = ctx.block_on(async { Ok(pota.spots().await?) })?;
    let filter = SpotFilter {
        band: args.band,
        mode: args.mode,
    };
    let total = all.len();
    let items: Vec<Spot> = all.into_iter().filter(|s| filter.matches(s)).collect();
    let shown = if items.len() == total {
        format!("{total} spots")
    } else {
        format!("{} of {total} spots", items.len())
    };
    ctx.info(&shown);
    ctx.print_list(
        &Page {
            items,
            cursor: None,
        },
        |items| table(ctx, items),
    )
}

fn table(ctx: &Ctx, items: &[Spot]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let dash = |v: &Option<String>| output::or_dash(v);
    let rows = items
        .iter()
        .map(|s| {
            let time = s
                .spot_time
                .and_then(|t| chrono::DateTime::from_timestamp_millis(t.millis()));
            vec![
                Cell::from(time.map_or_else(|| "-".into(), |t| t.format("%H:%M").to_string())),
                Cell::from(s.activator.as_str()),
                Cell::from(mhz_text(s.frequency)),
                Cell::from(dash(&s.mode)),
                Cell::from(s.reference.as_str()),
                Cell::from(dash(&s.park_name)),
                Cell::from(dash(&s.spotter)),
                Cell::from(s.comments.clone().unwrap_or_default()),
            ]
        })
        .collect();
    output::table(
        &[
            "UTC",
            "ACTIVATOR",
            "MHZ",
            "MODE",
            "PARK",
            "NAME",
            "SPOTTER",
            "COMMENT",
        ],
        rows,
        ctx.color,
    )
}
