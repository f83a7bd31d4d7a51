//! What the `svc server …` commands share: the database flag, opening the store, failures
//! with their exit codes, finding an account, reading a password.

use std::io::Read;

use clap::{Args, ValueEnum};

use svc_model::{ApiError, ErrorCode, Plan, callsign::normalize_callsign};
use svc_store::{Account, Store, StoreError};

#[derive(Debug, Args)]
pub struct DbArgs {
    /// Database URL: sqlite://PATH (default: svc.db in the user's data directory)
    #[arg(long, env = "SVC_DATABASE_URL", value_name = "URL")]
    pub database: Option<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PlanArg {
    /// Capped at --free-plan-cap native QSOs, or the account's own cap
    Free,
    /// No cap; the daily and lifetime budgets apply
    Paid,
    /// No cap and no budgets; the request rates still apply
    Unlimited,
}

impl From<PlanArg> for Plan {
    fn from(plan: PlanArg) -> Plan {
        match plan {
            PlanArg::Free => Plan::Free,
            PlanArg::Paid => Plan::Paid,
            PlanArg::Unlimited => Plan::Unlimited,
        }
    }
}

/// The audit line of a change an admin command made, on stderr in the log's format: who ran
/// it (the login behind sudo, else the user), the command and what changed. Never a secret.
pub fn audit(command: &str, change: &str) {
    let operator = ["SUDO_USER", "USER", "LOGNAME"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
        .unwrap_or_else(|| "unknown".to_owned());
    tracing::info!(target: "svc::audit", %operator, command, "{change}");
}

/// A failure of an admin command: the message and the exit code.
pub struct Fail {
    pub code: Option<ErrorCode>,
    pub message: String,
}

impl Fail {
    /// The line on stderr that reports it for `command` (`server start`, `server user add`, …).
    pub fn line(&self, command: &str) -> String {
        match self.code {
            Some(code) => format!("svc: {command}: {code}: {}", self.message),
            None => format!("svc: {command}: {}", self.message),
        }
    }
}

impl From<ApiError> for Fail {
    fn from(e: ApiError) -> Self {
        Fail {
            code: Some(e.code),
            message: e.message,
        }
    }
}

impl From<StoreError> for Fail {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Api(e) => e.into(),
            StoreError::Db(e) => Fail {
                code: None,
                message: format!("database: {e}"),
            },
        }
    }
}

pub fn fail(message: impl Into<String>) -> Fail {
    Fail {
        code: None,
        message: message.into(),
    }
}

fn default_database() -> String {
    format!(
        "sqlite://{}",
        svc_datafiles::data_dir().join("svc.db").display()
    )
}

impl DbArgs {
    /// The database's URL: the flag's, else svc.db in the data directory.
    pub fn url(&self) -> String {
        self.database.clone().unwrap_or_else(default_database)
    }
}

pub async fn open(db: &DbArgs) -> Result<std::sync::Arc<dyn Store>, Fail> {
    let url = db.url();
    svc_store::open(&url).await.map_err(|e| match e {
        StoreError::Api(e) => e.into(),
        StoreError::Db(e) => fail(format!("cannot open database {url}: {e}")),
    })
}

/// Reads a password for the web pages from stdin (its first line) and hashes it.
pub fn hash_password_from_stdin() -> Result<String, Fail> {
    use argon2::password_hash::PasswordHasher;
    let mut password = String::new();
    std::io::stdin()
        .read_to_string(&mut password)
        .map_err(|e| fail(format!("cannot read the password from stdin: {e}")))?;
    let password = password.trim_end_matches(['\n', '\r']);
    if password.chars().count() < 8 {
        return Err(ApiError::validation("the password must have at least 8 characters").into());
    }
    argon2::Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| fail(format!("cannot hash the password: {e}")))
}

/// The account of `callsign`, or a `not_found` that says how to make it.
pub async fn account(store: &dyn Store, callsign: &str) -> Result<Account, Fail> {
    let callsign = normalize_callsign("callsign", callsign)?;
    Ok(store.account_by_callsign(&callsign).await?.ok_or_else(|| {
        ApiError::not_found(format!(
            "no account {callsign}; create it with svc server user add {callsign}"
        ))
    })?)
}
