//! `svc server user …`: the service's operator makes and looks after accounts, against the
//! database, without SQL.

use clap::Subcommand;
use serde::Serialize;

use super::admin::{DbArgs, Fail, PlanArg, account, hash_password_from_stdin, open};
use crate::model::{Plan, Timestamp, callsign::normalize_callsign};

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
    /// Change an account's plan (free: capped at --free-plan-cap QSOs; paid: no cap)
    Set {
        callsign: String,
        #[arg(long, value_enum)]
        plan: PlanArg,
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
            println!(
                "created account {} ({} plan)",
                account.callsign,
                account.plan.as_str()
            );
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
                    "{:<12}  {:<5}  {:>8}  {:<24}  DISABLED",
                    "CALLSIGN", "PLAN", "QSOS", "CREATED"
                );
                for a in accounts {
                    println!(
                        "{:<12}  {:<5}  {:>8}  {:<24}  {}",
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
        UserCommand::Set { callsign, plan, db } => {
            let store = open(&db).await?;
            let account = account(store.as_ref(), &callsign).await?;
            let plan = Plan::from(plan);
            store.set_plan(&account.id, plan).await?;
            println!(
                "{}: plan {} (was {})",
                account.callsign,
                plan.as_str(),
                account.plan.as_str()
            );
        }
        UserCommand::Disable { callsign, db } => {
            let store = open(&db).await?;
            let account = account(store.as_ref(), &callsign).await?;
            store
                .set_disabled(&account.id, Some(Timestamp::now()))
                .await?;
            println!(
                "disabled {}: its keys and sign-ins are refused until svc server user enable {}",
                account.callsign, account.callsign
            );
        }
        UserCommand::Enable { callsign, db } => {
            let store = open(&db).await?;
            let account = account(store.as_ref(), &callsign).await?;
            store.set_disabled(&account.id, None).await?;
            println!("enabled {}", account.callsign);
        }
        UserCommand::Password { callsign, db, .. } => {
            let hash = hash_password_from_stdin()?;
            let store = open(&db).await?;
            let account = account(store.as_ref(), &callsign).await?;
            store.set_password(&account.id, &hash).await?;
            println!(
                "set the web password of {}; its web sessions ended",
                account.callsign
            );
        }
    }
    Ok(())
}
