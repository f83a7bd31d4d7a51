//! `svc demo`: the service in this process on a demo database in the user's data directory
//! (kept between runs), a demo account, and the logbook on it. Nothing else to set up.
//!
//! The demo key is made for each run and held in memory only: the store keeps only a key's
//! hash, so a key of an earlier run could not be used again, and writing one to the keychain
//! or the config file would replace the user's own. It is revoked when the demo ends. So the
//! demo's journal is a file beside its database rather than one found by the key, which would
//! make a new journal on every run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cli::GlobalArgs;
use crate::client::{Client, NewFolderRequest};
use crate::logbook::{LogbookArgs, logbook_options};
use crate::model::{ApiKey, Plan, Tier, Timestamp};
use crate::server::{self, AppState};
use crate::store::{self, Limits};
use crate::tui;

/// The demo account's callsign: the placeholder hams use for "no callsign".
pub const DEMO_CALLSIGN: &str = "N0CALL";

pub fn run(global: &GlobalArgs, args: LogbookArgs) -> ExitCode {
    if !tui::on_terminal() {
        return tui::not_a_terminal("demo");
    }
    let color = !global.no_color && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let options = match logbook_options(args, color) {
        Ok(options) => tui::Options {
            label: Some("demo".into()),
            ..options
        },
        Err(e) => return crate::cli::report("demo", false, &e),
    };
    let path = crate::datafiles::data_dir().join("demo.db");
    let journal = crate::datafiles::data_dir().join("demo-journal.db");
    let runtime = match tui::runtime("demo") {
        Ok(r) => r,
        Err(code) => return code,
    };
    let result = runtime.block_on(demo(&path, journal, options));
    runtime.shutdown_background();
    match result {
        Ok(left) => {
            if let Some(message) = left.message() {
                println!("{message}");
            }
            println!("svc demo: the demo logbook is kept in {}", path.display());
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("svc: demo: {message}");
            eprintln!("svc demo: the demo database is {}", path.display());
            ExitCode::FAILURE
        }
    }
}

async fn demo(path: &Path, journal: PathBuf, options: tui::Options) -> Result<tui::Left, String> {
    let store = store::open(&format!("sqlite://{}", path.display()))
        .await
        .map_err(|e| format!("cannot open the demo database {}: {e}", path.display()))?;
    let account = match store
        .account_by_callsign(DEMO_CALLSIGN)
        .await
        .map_err(|e| e.to_string())?
    {
        Some(account) => account,
        None => store
            .create_account(DEMO_CALLSIGN, Plan::Free, None)
            .await
            .map_err(|e| e.to_string())?,
    };
    let key = ApiKey::generate();
    let record = store
        .create_key(&account.id, "svc demo", Tier::Elevated, &key)
        .await
        .map_err(|e| e.to_string())?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("cannot listen on the loopback address: {e}"))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let state = AppState {
        store: store.clone(),
        limits: Limits::default(),
        web: Default::default(),
        logbooks: None,
        dxcc: std::sync::Arc::new(crate::model::dxcc::Dxcc::shipped()),
        // The demo's pages are not used (its account has no password): no park cache.
        parks: None,
    };
    let service = tokio::spawn(server::serve(listener, state, Default::default(), async {
        let _ = stopped.await;
    }));
    let base = crate::client::parse_api_base(&format!("http://{addr}"))?;
    let client = Client::new(base.clone(), &key).map_err(|e| e.to_string())?;
    // This month's log, so a first contact can be logged right away.
    let month = NewFolderRequest::Monthly {
        month: Timestamp::now().utc_month(),
        program_id: None,
    };
    client
        .create_folder(&month)
        .await
        .map_err(|e| format!("cannot make this month's log: {e}"))?;
    let link =
        tui::Link::new(base, &key, tui::JournalSource::File(journal)).map_err(|e| e.to_string())?;
    let ran = tui::run(link, options).await;
    let _ = stop.send(());
    let _ = service.await;
    store
        .revoke_key(&record.id, "user", Timestamp::now())
        .await
        .map_err(|e| format!("cannot revoke the demo key: {e}"))?;
    ran.map_err(|e| format!("local_error: {e}"))
}
