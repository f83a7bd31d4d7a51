//! `svc whoami`: the key's account.

use super::output::{self, Format};
use super::{CliError, Ctx};
use svc_model::Whoami;

pub fn run(ctx: &Ctx) -> Result<(), CliError> {
    let client = ctx.client()?;
    let me = ctx.block_on(async { Ok(client.whoami().await?) })?;
    warn_near_cap(ctx, &me);
    match ctx.format {
        // The identity record as published clients print it; the plan's own name and the cap
        // are in the text.
        Format::Json => ctx.print_json(&me.published()),
        _ => ctx.out(&text(&me)),
    }
}

/// The identity lines shared with `auth status`.
pub fn lines(me: &Whoami) -> Vec<(&'static str, String)> {
    let qsos = match me.cap() {
        Some(cap) => format!("{} / {cap}", me.native_qso_count),
        None => me.native_qso_count.to_string(),
    };
    vec![
        ("Callsign", me.callsign.clone()),
        ("Plan", me.plan.clone()),
        ("Tier", me.tier.as_str().to_owned()),
        ("QSOs", qsos),
    ]
}

fn text(me: &Whoami) -> String {
    output::fields(&lines(me))
}

pub fn warn_near_cap(ctx: &Ctx, me: &Whoami) {
    if let Some(cap) = me.cap().filter(|_| me.near_cap()) {
        let left = (cap - me.native_qso_count).max(0);
        ctx.warn(&format!(
            "{} of the free plan's {cap} QSOs are used ({left} left); new contacts fail with qso_cap_reached at {cap}: delete contacts or upgrade the plan",
            me.native_qso_count
        ));
    }
}
