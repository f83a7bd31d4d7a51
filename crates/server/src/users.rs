//! `svc server user …`: the service's operator makes and looks after accounts, against the
//! database, without SQL.

use clap::Subcommand;
use serde::Serialize;

use super::admin::{DbArgs, Fail, PlanArg, account, audit, hash_password_from_stdin, open};
use svc_model::ApiError;
use svc_model::{Plan, Timestamp, callsign::normalize_callsign};

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Create an account with its All Contacts root and program categories
    Add {
        /// The account's callsign
        callsign: String,
        #[arg(long, value_enum, default_value = "free")]
        plan: PlanArg,
        /// Read a password for the web pages from stdin
        #[arg(long)]
        password_stdin: bool,
        #[command(flatten)]
        db: DbArgs,
    },
    /// List the accounts: callsign, plan, QSOs held, created, disabled
    List {
        /// Print a JSON array
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Change an account's plan or its own cap: free (capped at --cap, else the server's
    /// --free-plan-cap), paid (no cap; the budgets apply) or unlimited (no cap, no budgets)
    Set {
        callsign: String,
        /// The new plan; without --cap, a free account goes back to the server's cap
        #[arg(long, value_enum, required_unless_present = "cap")]
        plan: Option<PlanArg>,
        /// The account's own cap on native QSOs (a plan with a cap only: free)
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(0..=1_000_000_000))]
        cap: Option<i64>,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Refuse the account's keys and web sign-ins until it is enabled; nothing is deleted
    Disable {
        callsign: String,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Let a disabled account's keys and sign-ins work again
    Enable {
        callsign: String,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Set the account's web password, read from stdin; its web sessions end
    Password {
        callsign: String,
        /// Read the new password from stdin (its first line; at least 8 characters)
        #[arg(long, required = true)]
        password_stdin: bool,
        #[command(flatten)]
        db: DbArgs,
    },
}

impl UserCommand {
    pub fn name(&self) -> &'static str {
        match self {
            UserCommand::Add { .. } => "server user add",
            UserCommand::List { .. } => "server user list",
            UserCommand::Set { .. } => "server user set",
            UserCommand::Disable { .. } => "server user disable",
            UserCommand::Enable { .. } => "server user enable",
            UserCommand::Password { .. } => "server user password",
        }
    }
}

/// An account as `svc server user list --json` prints it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Listed {
    callsign: String,
    plan: &'static str,
    /// The account's own cap; absent when the plan has none or the server's applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    qso_cap: Option<i64>,
    native_qso_count: i64,
    created_at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    disabled_at: Option<Timestamp>,
}

pub async fn run(command: UserCommand) -> Result<(), Fail> {
    match command {
        UserCommand::Add {
            callsign,
            plan,
            password_stdin,
            db,
        } => {
            let callsign = normalize_callsign("callsign", &callsign)?;
            let password_hash = if password_stdin {
                Some(hash_password_from_stdin()?)
            } else {
                None
            };
            let store = open(&db).await?;
            let account = store
                .create_account(&callsign, plan.into(), password_hash.as_deref())
                .await?;
            let change = format!(
                "created account {} ({} plan)",
                account.callsign,
                account.plan.as_str()
            );
            audit("server user add", &change);
            println!("{change}");
        }
        UserCommand::List { json, db } => {
            let store = open(&db).await?;
            let accounts: Vec<Listed> = store
                .list_accounts()
                .await?
                .into_iter()
                .map(|a| Listed {
                    callsign: a.callsign,
                    plan: a.plan.as_str(),
                    qso_cap: a.qso_cap,
                    native_qso_count: a.native_qso_count,
                    created_at: a.created_at,
                    disabled_at: a.disabled_at,
                })
                .collect();
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&accounts).unwrap_or_default()
                );
            } else {
                println!(
                    "{:<12}  {:<9}  {:>8}  {:>8}  {:<24}  DISABLED",
                    "CALLSIGN", "PLAN", "CAP", "QSOS", "CREATED"
                );
                for a in accounts {
                    let cap = match (a.plan, a.qso_cap) {
                        (_, Some(cap)) => cap.to_string(),
                        ("free", None) => "server".to_owned(),
                        _ => "-".to_owned(),
                    };
                    println!(
                        "{:<12}  {:<9}  {cap:>8}  {:>8}  {:<24}  {}",
                        a.callsign,
                        a.plan,
                        a.native_qso_count,
                        a.created_at.to_string(),
                        a.disabled_at
                            .map_or_else(|| "-".to_owned(), |t| t.to_string())
                    );
                }
            }
        }
        UserCommand::Set {
            callsign,
            plan,
            cap,
            db,
        } => {
            let store = open(&db).await?;
            let account = account(store.as_ref(), &callsign).await?;
            let plan = plan.map_or(account.plan, Plan::from);
            if cap.is_some() && !plan.capped() {
                return Err(ApiError::field(
                    "cap",
                    format!(
                        "the {} plan has no cap; --cap applies to the free plan",
                        plan.as_str()
                    ),
                )
                .into());
            }
            store.set_plan(&account.id, plan, cap).await?;
            let change = format!(
                "{}: {} (was {})",
                account.callsign,
                describe(plan, cap),
                describe(account.plan, account.qso_cap)
            );
            audit("server user set", &change);
            println!("{change}");
        }
        UserCommand::Disable { callsign, db } => {
            let store = open(&db).await?;
            let account = account(store.as_ref(), &callsign).await?;
            store
                .set_disabled(&account.id, Some(Timestamp::now()))
                .await?;
            audit(
                "server user disable",
                &format!("disabled {}", account.callsign),
            );
            println!(
                "disabled {}: its keys and sign-ins are refused until svc server user enable {}",
                account.callsign, account.callsign
            );
        }
        UserCommand::Enable { callsign, db } => {
            let store = open(&db).await?;
            let account = account(store.as_ref(), &callsign).await?;
            store.set_disabled(&account.id, None).await?;
            let change = format!("enabled {}", account.callsign);
            audit("server user enable", &change);
            println!("{change}");
        }
        UserCommand::Password { callsign, db, .. } => {
            let hash = hash_password_from_stdin()?;
            let store = open(&db).await?;
            let account = account(store.as_ref(), &callsign).await?;
            store.set_password(&account.id, &hash).await?;
            audit(
                "server user password",
                &format!("set the web password of {}", account.callsign),
            );
            println!(
                "set the web password of {}; its web sessions ended",
                account.callsign
            );
        }
    }
    Ok(())
}

/// A plan with its cap, as the set command reports it.
fn describe(plan: Plan, own_cap: Option<i64>) -> String {
    match (plan.capped(), own_cap) {
        (true, Some(cap)) => format!("plan {}, cap {cap}", plan.as_str()),
        (true, None) => format!("plan {}, the server's cap", plan.as_str()),
        (false, _) => format!("plan {}", plan.as_str()),
    }
}
