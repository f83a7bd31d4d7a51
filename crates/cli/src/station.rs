//! `svc station set|list|delete`: the account's station profiles, whose grid, state, county,
//! rig, antenna and power fill the MY_* fields of the contacts logged under their callsign.
//! Changes need an elevated key.

use clap::{Args, Subcommand};
use serde_json::{Map, Value};

use super::output::{self, Cell, Format};
use super::{CliError, Ctx};
use svc_model::station::PROFILE_FIELDS;
use svc_model::{Field, Page, StationProfile};

#[derive(Debug, Subcommand)]
pub enum StationCommand {
    /// Create or replace a station profile: new contacts of its callsign that lack these
    /// fields get them (a value left out is no longer in the profile)
    Set(SetArgs),
    /// List the account's station profiles
    List,
    /// Delete a station profile; contacts already logged keep what it gave them
    Delete(DeleteArgs),
}

impl StationCommand {
    pub fn name(&self) -> &'static str {
        match self {
            StationCommand::Set(_) => "set",
            StationCommand::List => "list",
            StationCommand::Delete(_) => "delete",
        }
    }
}

#[derive(Debug, Args)]
pub struct SetArgs {
    /// The station callsign the profile is for [default: the account's callsign]
    #[arg(value_name = "CALLSIGN")]
    callsign: Option<String>,
    /// Your own Maidenhead locator (MY_GRIDSQUARE), e.g. FN42
    #[arg(long, value_name = "GRID")]
    grid: Option<String>,
    /// Your state or province code (MY_STATE), e.g. MA
    #[arg(long, value_name = "STATE")]
    state: Option<String>,
    /// Your county (MY_CNTY)
    #[arg(long, value_name = "COUNTY")]
    county: Option<String>,
    /// Your rig (MY_RIG)
    #[arg(long, value_name = "RIG")]
    rig: Option<String>,
    /// Your antenna (MY_ANTENNA)
    #[arg(long, value_name = "ANTENNA")]
    antenna: Option<String>,
    /// Your transmitter power in watts (TX_PWR)
    #[arg(long, value_name = "WATTS")]
    power: Option<String>,
}

#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// The station callsign whose profile goes
    #[arg(value_name = "CALLSIGN")]
    callsign: String,
}

pub fn run(ctx: &Ctx, command: StationCommand) -> Result<(), CliError> {
    match command {
        StationCommand::Set(args) => set(ctx, args),
        StationCommand::List => list(ctx),
        StationCommand::Delete(args) => delete(ctx, args),
    }
}

fn set(ctx: &Ctx, args: SetArgs) -> Result<(), CliError> {
    let given = [
        (Field::MyGridsquare, &args.grid, "--grid"),
        (Field::MyState, &args.state, "--state"),
        (Field::MyCnty, &args.county, "--county"),
        (Field::MyRig, &args.rig, "--rig"),
        (Field::MyAntenna, &args.antenna, "--antenna"),
        (Field::TxPwr, &args.power, "--power"),
    ];
    // Each value is checked here as the service checks it, so a bad one is named by its flag
    // before anything is sent.
    let mut values = Map::new();
    for (field, value, flag) in given {
        let Some(value) = value else { continue };
        match field.def().check(value) {
            Ok(Some(stored)) => {
                values.insert(field.def().wire.into(), Value::from(stored));
            }
            Ok(None) => {}
            Err(e) => return Err(CliError::input(format!("{flag}: {}", e.message))),
        }
    }
    if values.is_empty() {
        return Err(CliError::input(
            "give at least one of --grid, --state, --county, --rig, --antenna, --power",
        ));
    }
    // Numbers go as numbers: the service's txPwr is a JSON number.
    if let Some(Value::String(watts)) = values.get(Field::TxPwr.def().wire)
        && let Ok(n) = watts.parse::<f64>()
    {
        values.insert(Field::TxPwr.def().wire.into(), Value::from(n));
    }
    let client = ctx.client()?;
    let profile = ctx.block_on(async {
        let callsign = match &args.callsign {
            Some(c) => c.clone(),
            None => client.whoami().await?.callsign,
        };
        Ok(client.put_station(&callsign, &values).await?)
    })?;
    match ctx.format {
        Format::Json => ctx.print_json(&profile),
        _ => ctx.say(&format!(
            "station profile of {} set: {}\n",
            profile.callsign,
            summary(&profile)
        )),
    }
}

fn summary(p: &StationProfile) -> String {
    PROFILE_FIELDS
        .iter()
        .filter_map(|f| Some(format!("{} {}", f.def().adif, p.get(*f)?)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn list(ctx: &Ctx) -> Result<(), CliError> {
    let client = ctx.client()?;
    let items = ctx.block_on(async { Ok(client.stations().await?) })?;
    if items.is_empty() {
        ctx.info("no station profile yet; svc station set --grid FN42 --state MA makes one");
    }
    ctx.print_list(
        &Page {
            items,
            cursor: None,
        },
        |items| table(ctx, items),
    )
}

fn table(ctx: &Ctx, items: &[StationProfile]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let rows = items
        .iter()
        .map(|p| {
            let mut row = vec![Cell::from(p.callsign.as_str())];
            row.extend(
                PROFILE_FIELDS
                    .iter()
                    .map(|f| Cell::from(p.get(*f).unwrap_or("-"))),
            );
            row
        })
        .collect();
    output::table(
        &[
            "CALLSIGN", "GRID", "STATE", "COUNTY", "RIG", "ANTENNA", "POWER",
        ],
        rows,
        ctx.color,
    )
}

fn delete(ctx: &Ctx, args: DeleteArgs) -> Result<(), CliError> {
    let client = ctx.client()?;
    let answer = ctx.block_on(async { Ok(client.delete_station(&args.callsign).await?) })?;
    match ctx.format {
        Format::Json => ctx.print_json(&answer),
        _ => ctx.say(&format!(
            "deleted the station profile of {}; contacts already logged keep their fields\n",
            args.callsign.to_uppercase()
        )),
    }
}
