//! The limits a create can hit (the lifetime and daily budgets, the free plan's cap), charged
//! to the account's row in the create's transaction.

use super::*;

/// The limits a create can hit, in the order they are reported when several are
/// (docs/API.md, "Rate limits and the free-plan cap").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Limit {
    Lifetime,
    Daily,
    /// The account's cap, with its native QSO count, which a client shows beside it.
    Cap {
        cap: i64,
        current: i64,
    },
}

impl Limit {
    pub(super) fn api_error(self, now: Timestamp) -> ApiError {
        match self {
            Limit::Lifetime => ApiError::rate_limited(RateLimitReason::LifetimeLogbookBudget, None),
            Limit::Cap { cap, current } => ApiError::new(
                svc_model::ErrorCode::QsoCapReached,
                format!(
                    "the free plan holds {cap} native QSOs and this account has reached that; delete contacts or upgrade the plan"
                ),
            )
            // `limit` repeats `cap` for the published 0.2.0 client, which reads that name.
            .with_details(serde_json::json!({
                "cap": cap,
                "limit": cap,
                "current": current,
            })),
            Limit::Daily => {
                let wait = (now.millis_to_next_utc_day() + 999) / 1000;
                ApiError::rate_limited(RateLimitReason::DailyLogbookBudget, Some(wait as u64))
            }
        }
    }

    pub(super) fn error(self, now: Timestamp) -> StoreError {
        self.api_error(now).into()
    }
}

/// An account's counters as the limits read them, for the UTC day of the read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Counters {
    lifetime_created: i64,
    plan: Plan,
    /// The account's own cap, which replaces the server's.
    own_cap: Option<i64>,
    native_qso_count: i64,
    /// Contacts created on the day of the read.
    today_created: i64,
}

impl Counters {
    pub(super) async fn read(
        conn: &mut AnyConnection,
        account_id: &str,
        now: Timestamp,
    ) -> Result<Counters, sqlx::Error> {
        let row = sqlx::query(
            "SELECT lifetime_created, plan, qso_cap, native_qso_count, daily_day, daily_created \
             FROM accounts WHERE id = $1",
        )
        .bind(account_id)
        .fetch_one(&mut *conn)
        .await?;
        let plan: String = row.try_get("plan")?;
        let today_created = if row.try_get::<i64, _>("daily_day")? == now.utc_day() {
            row.try_get("daily_created")?
        } else {
            0
        };
        Ok(Counters {
            lifetime_created: row.try_get("lifetime_created")?,
            plan: Plan::parse(&plan).ok_or_else(|| decode_err(format!("plan {plan:?}")))?,
            own_cap: row.try_get("qso_cap")?,
            native_qso_count: row.try_get("native_qso_count")?,
            today_created,
        })
    }

    /// The account's cap, if its plan has one.
    pub(super) fn cap(&self, limits: &Limits) -> Option<i64> {
        self.plan.cap(self.own_cap, limits.free_plan_cap)
    }

    /// Whether the day's budget counts these creates for this account.
    pub(super) fn daily_applies(&self, limits: &Limits) -> bool {
        limits.daily_applies && self.plan.budgeted()
    }

    /// How many more contacts every limit admits (0 when one is reached).
    pub(super) fn room(&self, limits: &Limits) -> i64 {
        let cap = self
            .cap(limits)
            .map_or(i64::MAX, |cap| cap - self.native_qso_count);
        let daily = if self.daily_applies(limits) {
            limits.daily_contact_budget - self.today_created
        } else {
            i64::MAX
        };
        let lifetime = if self.plan.budgeted() {
            limits.lifetime_contact_budget - self.lifetime_created
        } else {
            i64::MAX
        };
        lifetime.min(cap).min(daily).max(0)
    }

    /// The counters once `n` more contacts are charged.
    pub(super) fn charged(self, n: i64, limits: &Limits) -> Counters {
        Counters {
            lifetime_created: self.lifetime_created + n,
            native_qso_count: self.native_qso_count + n,
            today_created: self.today_created + if limits.daily_applies { n } else { 0 },
            ..self
        }
    }

    /// The first limit that admits no more contacts.
    pub(super) fn reached(&self, limits: &Limits) -> Limit {
        let cap = self.cap(limits);
        if self.plan.budgeted() && self.lifetime_created >= limits.lifetime_contact_budget {
            Limit::Lifetime
        } else if self.daily_applies(limits) && self.today_created >= limits.daily_contact_budget {
            Limit::Daily
        } else if let Some(cap) = cap.filter(|&cap| self.native_qso_count >= cap) {
            Limit::Cap {
                cap,
                current: self.native_qso_count,
            }
        } else {
            // No limit is reached: the charge was refused for a reason the counters no
            // longer show (another create took the last place); the day's budget is the one
            // that resets.
            Limit::Daily
        }
    }
}

/// The error for a create that [`charge_account!`] refused: the first limit the account's
/// counters have reached.
pub(super) async fn limit_reached(
    conn: &mut AnyConnection,
    account_id: &str,
    limits: &Limits,
    now: Timestamp,
) -> StoreError {
    match Counters::read(conn, account_id, now).await {
        Ok(counters) => counters.reached(limits).error(now),
        Err(e) => StoreError::Db(e),
    }
}

/// Charges one contact to the account's limits, or refuses it with the limit it hits.
pub(super) async fn admit(
    conn: &mut AnyConnection,
    account_id: &str,
    limits: &Limits,
    now: Timestamp,
) -> StoreResult<()> {
    let charged = sqlx::query(charge_account!())
        .bind(account_id)
        .bind(limits.lifetime_contact_budget)
        .bind(limits.free_plan_cap)
        .bind(now.utc_day())
        .bind(limits.daily_contact_budget)
        .execute(&mut *conn)
        .await?
        .rows_affected();
    if charged == 1 {
        Ok(())
    } else {
        Err(limit_reached(conn, account_id, limits, now).await)
    }
}

/// The request and import windows' counts of [`Store`].
impl SqlStore {
    pub(super) async fn count_import(
        &self,
        key_id: &str,
        now: Timestamp,
        window_ms: i64,
    ) -> StoreResult<i64> {
        let window_start = now.millis() - now.millis().rem_euclid(window_ms);
        let key_id = key_id.to_owned();
        self.count(move |tx| {
            Box::pin(async move {
                // The burst window gives the request back only when it is still the window
                // that counted it.
                let count = sqlx::query_scalar(
                    "UPDATE key_usage SET \
                       count = CASE WHEN window_start = $2 THEN count - 1 ELSE count END, \
                       import_count = CASE WHEN import_window_start = $2 \
                         THEN import_count + 1 ELSE 1 END, \
                       import_window_start = $2 \
                     WHERE key_id = $1 RETURNING import_count",
                )
                .bind(&key_id)
                .bind(window_start)
                .fetch_optional(&mut *tx)
                .await?;
                Ok(count.unwrap_or(1))
            })
        })
        .await
    }

    pub(super) async fn count_requests(
        &self,
        key_id: &str,
        n: i64,
        now: Timestamp,
        window_ms: i64,
    ) -> StoreResult<i64> {
        let window_start = now.millis() - now.millis().rem_euclid(window_ms);
        let key_id = key_id.to_owned();
        self.count(move |tx| {
            Box::pin(async move {
                let count = sqlx::query_scalar(concat!(
                    "INSERT INTO key_usage (key_id, window_start, count, last_used_at) \
                     VALUES ($1, $2, $3, $4) ON CONFLICT (key_id) DO UPDATE SET ",
                    count_in_window!(),
                    " RETURNING count"
                ))
                .bind(&key_id)
                .bind(window_start)
                .bind(n)
                .bind(now.millis())
                .fetch_one(&mut *tx)
                .await?;
                Ok(count)
            })
        })
        .await
    }
}
