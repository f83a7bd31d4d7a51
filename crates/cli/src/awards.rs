//! `svc awards AWARD`: where the log stands with DXCC, WAS, WAZ, VUCC or POTA's hunter and
//! activator awards, as the service reckons it (`GET /v1/awards/{award}`): the matrix of rows
//! and band columns with their W (worked) and C (confirmed) marks, and the totals.

use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};

use super::output::{self, Cell, Format};
use super::{CliError, Ctx};
use svc_model::awards::{
    Award, CLASSES, Count, Mark, ModeFilter, Query, Report, Row, Service, Totals, class_name,
};

#[derive(Debug, Args)]
pub struct AwardsArgs {
    /// The award
    #[arg(
        value_name = "AWARD",
        value_parser = PossibleValuesParser::new(Award::ALL.map(Award::id))
            .try_map(|id| Award::parse(&id).ok_or("not an award"))
    )]
    award: Award,
    /// Only contacts on this band, e.g. 20m, or SAT for satellite contacts
    #[arg(long, value_name = "BAND", value_parser = band)]
    band: Option<String>,
    /// Only contacts of this class (cw, phone, data) or this mode (e.g. FT8)
    #[arg(long, value_name = "MODE", value_parser = mode)]
    mode: Option<ModeFilter>,
    /// The QSL services whose confirmations count, a comma list of lotw, eqsl, card and qrz [default: lotw,card]
    #[arg(long, value_name = "SERVICES", value_parser = services)]
    confirmed_by: Option<Services>,
}

/// `--confirmed-by`'s list as one value: clap would read a bare `Vec` as the flag given
/// several times.
#[derive(Debug, Clone)]
struct Services(Vec<Service>);

fn band(text: &str) -> Result<String, String> {
    Query::parse(Some(text), None, None)
        .map(|q| q.band.unwrap_or_default())
        .map_err(|e| e.message)
}

fn mode(text: &str) -> Result<ModeFilter, String> {
    ModeFilter::parse("--mode", text).map_err(|e| e.message)
}

fn services(text: &str) -> Result<Services, String> {
    Service::parse_list("--confirmed-by", text)
        .map(Services)
        .map_err(|e| e.message)
}

pub fn run(ctx: &Ctx, args: AwardsArgs) -> Result<(), CliError> {
    let query = Query {
        band: args.band,
        mode: args.mode,
        confirmed_by: args
            .confirmed_by
            .map_or_else(|| Service::DEFAULT.to_vec(), |s| s.0),
    };
    let client = ctx.client()?;
    let report = ctx.block_on(async { Ok(client.award(args.award, &query).await?) })?;
    match ctx.format {
        Format::Text => ctx.say(&text(&report, ctx.color)),
        _ => ctx.print_json(&report),
    }
}

fn title(award: Award) -> &'static str {
    match award {
        Award::Dxcc => "DXCC",
        Award::Was => "WAS",
        Award::Waz => "WAZ",
        Award::Vucc => "VUCC",
        Award::PotaHunter => "POTA hunter",
        Award::PotaActivator => "POTA activator",
    }
}

fn mark(mark: Option<&Mark>) -> Cell {
    match mark {
        Some(Mark::C) => Cell::green("C"),
        Some(Mark::W) => Cell::from("W"),
        None => Cell::from("-"),
    }
}

/// The matrix: one line a row, its mixed mark, a column a band, a column a mode class; then
/// the totals as worked/confirmed.
fn matrix(report: &Report, rows: &[Row], totals: &Totals, color: bool) -> String {
    let classes = CLASSES.map(class_name);
    let mut headers = vec!["KEY", "NAME", "MIXED"];
    headers.extend(report.columns.iter().map(String::as_str));
    let upper: Vec<String> = classes.iter().map(|c| c.to_ascii_uppercase()).collect();
    headers.extend(upper.iter().map(String::as_str));
    let mut lines: Vec<Vec<Cell>> = rows
        .iter()
        .map(|row| {
            let mut cells = vec![
                Cell::from(row.key.as_str()),
                Cell::from(output::or_dash(&row.name)),
                mark(Some(&row.mixed)),
            ];
            cells.extend(report.columns.iter().map(|c| mark(row.bands.get(c))));
            cells.extend(classes.iter().map(|c| mark(row.modes.get(*c))));
            cells
        })
        .collect();
    let count = |c: Option<&Count>| {
        let c = c.copied().unwrap_or_default();
        Cell::from(format!("{}/{}", c.worked, c.confirmed))
    };
    let mut last = vec![
        Cell::from("TOTAL"),
        Cell::from("worked/confirmed"),
        count(Some(&totals.mixed)),
    ];
    last.extend(report.columns.iter().map(|c| count(totals.bands.get(c))));
    last.extend(classes.iter().map(|c| count(totals.modes.get(*c))));
    lines.push(last);
    output::table(&headers, lines, color)
}

fn text(report: &Report, color: bool) -> String {
    let services: Vec<&str> = report.confirmed_by.iter().map(|s| s.id()).collect();
    let mut text = format!(
        "{}: {} worked, {} confirmed",
        title(report.award),
        report.totals.mixed.worked,
        report.totals.mixed.confirmed
    );
    if let Some(available) = report.available {
        text.push_str(&format!(" of {available}"));
    }
    text.push_str(&format!(" (confirmed by {}", services.join(", ")));
    for (what, value) in [("band", &report.band), ("mode", &report.mode)] {
        if let Some(value) = value {
            text.push_str(&format!("; {what} {value}"));
        }
    }
    text.push_str(")\n");
    if report.rows.is_empty() {
        text.push_str("nothing worked toward it yet\n");
    } else {
        text.push_str(&matrix(report, &report.rows, &report.totals, color));
    }
    if let Some(deleted) = report.deleted.as_ref().filter(|d| !d.rows.is_empty()) {
        text.push_str(&format!(
            "\ndeleted entities, counted apart: {} worked, {} confirmed\n",
            deleted.totals.mixed.worked, deleted.totals.mixed.confirmed
        ));
        text.push_str(&matrix(report, &deleted.rows, &deleted.totals, color));
    }
    text
}
