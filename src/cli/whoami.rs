//! `svc whoami`: the key's account.

use super::output::{self, Format};
use super::{CliError, Ctx};
use crate::model::{FREE_PLAN_CAP, Whoami};

/// Agents are advised to warn from 180 of the free plan's 200 QSOs on (docs/API.md, "Rate limits and the free-plan cap").
pub const CAP_WARNING_AT: i64 = FREE_PLAN_CAP * 9 / 10;

pub fn run(ctx: &Ctx) -> Result<(), CliError> {
    let client = ctx.client()?;
    let me = ctx.block_on(async { Ok(client.whoami().await?) })?;
    warn_near_cap(ctx, &me);
    match ctx.format {
        Format::Json => ctx.print_json(&me),
        _ => ctx.out(&text(&me)),
    }
}

/// The identity lines shared with `auth status`.
pub fn lines(me: &Whoami) -> Vec<(&'static str, String)> {
    let qsos = if me.plan == "free" {
        format!("{} / {FREE_PLAN_CAP}", me.native_qso_count)
    } else {
        me.native_qso_count.to_string()
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
    if me.plan == "free" && me.native_qso_count >= CAP_WARNING_AT {
        let left = (FREE_PLAN_CAP - me.native_qso_count).max(0);
        ctx.warn(&format!(
            "{} of the free plan's {FREE_PLAN_CAP} QSOs are used ({left} left); new contacts fail with qso_cap_reached at {FREE_PLAN_CAP}: delete contacts or upgrade the plan",
            me.native_qso_count
        ));
    }
}
