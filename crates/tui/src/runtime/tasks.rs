//! The background: each network [`Effect`] runs as one tokio task with a shared client and
//! answers with [`Action`]s through the channel, so the screen never waits for the network.
//! With a journal, what the service answers is saved there as the copy for working with no
//! link, and a folder's contacts are read from that copy first, so they show at once.

use std::sync::Arc;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::task::JoinSet;
use tokio::time::MissedTickBehavior;

use crate::action::{Action, COPY_LIMIT, Effect, PAGE_SIZE, Source};
use crate::callsigns::Callsigns;
use crate::components::rig::POLL;
use svc_client::Client;
use svc_client::export;
use svc_client::journal::{Journal, is_local_folder_id};
use svc_client::lookup::Callbook;
use svc_client::rig::{Rig, RigCommand};
use svc_datafiles as datafiles;
use svc_model::dxcc::Dxcc;
use svc_model::scp::MasterScp;
use svc_model::{Page, Timestamp};
use svc_pota::{Parks, Pota};

/// Runs `effect` on a task of `tasks`. Journal effects are not for here: the run loop awaits
/// them itself.
pub fn spawn(
    effect: Effect,
    client: &Arc<Client>,
    outside: &Outside,
    journal: Option<&Journal>,
    tx: &UnboundedSender<Action>,
    tasks: &mut JoinSet<()>,
) {
    let client = client.clone();
    let outside = outside.clone();
    let journal = journal.cloned();
    let tx = tx.clone();
    tasks.spawn(async move {
        perform(&client, &outside, journal.as_ref(), effect, &tx).await;
    });
}

/// The services beside svc's own that the logbook asks: POTA, and the callbook when one is
/// connected.
#[derive(Debug, Clone)]
pub struct Outside {
    pub pota: Pota,
    pub callbook: Option<Arc<Callbook>>,
    /// The park cache, when it could be opened.
    pub parks: Option<Arc<Parks>>,
}

/// A copy that cannot be saved costs only the next start with no link: the screen goes on.
async fn keep<T>(saved: impl std::future::Future<Output = Result<T, impl std::fmt::Debug>>) {
    let _ = saved.await;
}

/// Carries out one effect; its answers go to `tx` (the receiver is gone only when the
/// logbook is closing).
pub async fn perform(
    client: &Client,
    outside: &Outside,
    journal: Option<&Journal>,
    effect: Effect,
    tx: &UnboundedSender<Action>,
) {
    let send = |action: Action| {
        let _ = tx.send(action);
    };
    match effect {
        // POTA's, not the service's: one attempt each, a spot never sent again by itself.
        // The journal's answer when it is fresh, else the callbook's (kept there); an old
        // cached one stands in when the callbook cannot be reached.
        Effect::LookUp { call } => {
            let Some(callbook) = &outside.callbook else {
                return;
            };
            let result = callbook
                .lookup_cached(journal, &call, false)
                .await
                .map(|answer| {
                    let days = answer
                        .cached
                        .then(|| answer.lookup.age().as_secs() as i64 / 86_400);
                    (answer.lookup, days)
                })
                .map_err(|e| e.to_string());
            send(Action::LookedUp { call, result });
        }
        // The cache first (POTA's list imported, or parks asked before), else POTA; a park
        // whose name cannot be had now keeps its reference alone.
        Effect::NameParks(references) => {
            let Some(parks) = &outside.parks else {
                return;
            };
            for reference in references {
                if let Some(name) = parks.name(&reference).await {
                    send(Action::ParkNamed { reference, name });
                }
            }
        }
        // Read in the background: a log of 100,000 contacts takes a while, and typing goes on.
        Effect::ReadWorked(callsigns) => {
            let Some(j) = journal else {
                return;
            };
            let result = j
                .worked(&callsigns.0.dxcc)
                .await
                .map(Box::new)
                .map_err(|e| e.to_string());
            send(Action::WorkedRead(result));
        }
        Effect::CopyWholeLog => {
            let Some(j) = journal else {
                return;
            };
            send(Action::WholeLogCopied(j.copy_whole_log(client).await));
        }
        Effect::LoadStations => {
            let result = client.stations().await.map_err(|e| e.to_string());
            send(Action::StationsLoaded(result));
        }
        Effect::LoadSpots => {
            let result = outside.pota.spots().await.map_err(|e| e.to_string());
            send(Action::SpotsLoaded(result));
        }
        Effect::Spot(spot) => {
            let result = outside.pota.spot(&spot).await.map_err(|e| e.to_string());
            send(Action::Spotted(result));
        }
        Effect::RememberWhoami(me) => {
            if let Some(j) = journal {
                keep(j.save_whoami(&me)).await;
            }
        }
        Effect::LoadWhoami => {
            let result = client.whoami().await;
            if let (Some(j), Ok(me)) = (journal, &result) {
                keep(j.save_whoami(me)).await;
            }
            send(Action::WhoamiLoaded(result));
        }
        Effect::LoadFolders => {
            let result = client.all_folders(None).await;
            if let (Some(j), Ok(folders)) = (journal, &result) {
                keep(j.save_folders(folders)).await;
            }
            send(Action::FoldersLoaded(result));
        }
        Effect::LoadActivations => {
            let result = client.all_activations(false).await;
            if let (Some(j), Ok(activations)) = (journal, &result) {
                keep(j.save_activations(activations)).await;
            }
            send(Action::ActivationsLoaded(result));
        }
        Effect::LoadContacts {
            folder_id,
            cursor,
            generation,
            save_copy,
        } => {
            let first = cursor.is_none();
            if first && let Some(j) = journal {
                let copy = j.cached_contacts(&folder_id, COPY_LIMIT).await;
                if let Ok(items) = copy {
                    send(Action::ContactsLoaded {
                        folder_id: folder_id.clone(),
                        generation,
                        source: Source::Copy,
                        result: Ok(Page {
                            items,
                            cursor: None,
                        }),
                    });
                }
            }
            // Not on the service yet: the copy (empty) and the journal are all there is.
            if is_local_folder_id(&folder_id) {
                return;
            }
            // Before asking: what the sender writes into the copy meanwhile is newer.
            let asked_at = Timestamp::now();
            let result = client
                .contacts(&folder_id, Some(PAGE_SIZE), cursor.as_deref())
                .await;
            if save_copy && let (Some(j), Ok(page)) = (journal, &result) {
                // A first page with no next one is the whole list.
                let whole = first && page.cursor.is_none();
                keep(j.save_contacts(&folder_id, &page.items, asked_at, whole)).await;
            }
            send(Action::ContactsLoaded {
                folder_id,
                generation,
                source: Source::Service,
                result,
            });
        }
        Effect::LoadActivationContacts { folder_id } => {
            if let Some(j) = journal
                && let Ok(copy) = j.cached_contacts(&folder_id, COPY_LIMIT).await
            {
                send(Action::ActivationContactsLoaded {
                    folder_id: folder_id.clone(),
                    source: Source::Copy,
                    result: Ok(copy),
                });
            }
            if is_local_folder_id(&folder_id) {
                return;
            }
            let asked_at = Timestamp::now();
            let result = client.all_contacts(&folder_id).await;
            if let (Some(j), Ok(contacts)) = (journal, &result) {
                keep(j.save_contacts(&folder_id, contacts, asked_at, true)).await;
            }
            send(Action::ActivationContactsLoaded {
                folder_id,
                source: Source::Service,
                result,
            });
        }
        Effect::SaveOpenFolder { folder_id } => {
            if let Some(j) = journal {
                keep(j.save_open_folder(Some(&folder_id))).await;
            }
        }
        // What the service confirms goes into the copy as it happens: the copy is the log a
        // start with no link shows.
        Effect::EditContact { id, request } => {
            let result = client.edit_contact(&id, &request).await;
            if let (Some(j), Ok(edited)) = (journal, &result) {
                keep(j.remember_contact(&edited.contact)).await;
            }
            send(Action::ContactEdited { id, result });
        }
        Effect::DeleteContact { id } => {
            let result = client.delete_contact(&id).await;
            if let (Some(j), Ok(_)) = (journal, &result) {
                keep(j.forget_contact(&id)).await;
            }
            send(Action::ContactDeleted { id, result });
        }
        Effect::EndActivation { id } => {
            let result = client.end_activation(&id, None).await;
            send(Action::ActivationEnded { id, result });
        }
        Effect::PollContacts { folder_id } => {
            // The newest page: a contest's other logbooks log a few a minute each.
            let result = client.contacts(&folder_id, Some(50), None).await;
            send(Action::ContactsPolled { folder_id, result });
        }
        Effect::StartContest(request) => {
            send(Action::ContestStarted(client.start_contest(&request).await));
        }
        Effect::ReserveSerials { folder_id, count } => {
            let result = client.reserve_serials(&folder_id, count).await;
            send(Action::SerialsReserved { folder_id, result });
        }
        Effect::Export { folder, callsign } => {
            let result = match std::env::current_dir() {
                Ok(dir) => {
                    // The parks' names for the files' headers, as far as they can be had.
                    let names = match (&outside.parks, &folder.location_reference) {
                        (Some(parks), Some(references)) => parks.names(references, true).await,
                        _ => Default::default(),
                    };
                    export::folder_file(client, &folder, &callsign, &names, &dir)
                        .await
                        .map_err(|e| e.to_string())
                }
                Err(e) => Err(format!("cannot find the working directory: {e}")),
            };
            send(Action::Exported {
                name: folder.name,
                result,
            });
        }
        // The run loop hands these to the journal and to the rig poller.
        Effect::Journal(_) | Effect::Rig(_) | Effect::SendNow => {}
    }
}

/// Drops the pages that lie wholly inside `text`, part of the binary, from the process's
/// memory: they are the file's, unchanged, and read from it again should they be touched.
#[cfg(target_os = "linux")]
fn release_pages(text: &'static str) {
    // SAFETY: sysconf has no preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
    let start = text.as_ptr() as usize;
    let first = start.div_ceil(page) * page;
    let last = (start + text.len()) / page * page;
    if last > first {
        // SAFETY: the range is whole pages of a read-only part of the binary that hold this
        // text alone; MADV_DONTNEED on a private file mapping only unmaps pages, which come
        // back from the file, as they were, if touched again. A failure changes nothing.
        unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                last - first,
                libc::MADV_DONTNEED,
            );
        }
    }
}

/// How often the link is checked, and how long its answer may take: a link that stalls shows
/// `offline` within the sum, 4.5 s.
pub const PROBE_EVERY: std::time::Duration = std::time::Duration::from_secs(2);
pub const PROBE_WITHIN: std::time::Duration = std::time::Duration::from_millis(2500);

/// Reads the country file and the super check partial list (a flag's, else the data
/// directory's, else the shipped copies) off the event loop: tens of milliseconds that the
/// first frame does not wait for. A file that cannot be read is said, and the shipped copy used.
pub async fn load_callsigns(
    cty: Option<std::path::PathBuf>,
    scp: Option<std::path::PathBuf>,
    tx: UnboundedSender<Action>,
) {
    let loaded = tokio::task::spawn_blocking(move || {
        let mut warnings = Vec::new();
        let dxcc = datafiles::country_file(cty.as_deref()).unwrap_or_else(|why| {
            warnings.push(why);
            (Dxcc::shipped(), datafiles::Origin::Shipped)
        });
        let scp = datafiles::scp_file(scp.as_deref()).unwrap_or_else(|why| {
            warnings.push(why);
            (MasterScp::shipped(), datafiles::Origin::Shipped)
        });
        let callsigns = Callsigns {
            dxcc: dxcc.0,
            scp: scp.0,
        };
        let warning = (!warnings.is_empty())
            .then(|| format!("{}; the shipped copy is used", warnings.join("; ")));
        // Reading the files left megabytes of small pieces free in the allocator's arena:
        // they go back to the system.
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: malloc_trim only hands free memory of the allocator's arenas back.
        unsafe {
            libc::malloc_trim(0);
        }
        // The shipped files' text in the binary is read this once: its 0.8 MB of pages go
        // back too.
        #[cfg(target_os = "linux")]
        for text in [svc_model::dxcc::SHIPPED, svc_model::scp::SHIPPED] {
            release_pages(text);
        }
        (callsigns, warning)
    })
    .await;
    if let Ok((callsigns, warning)) = loaded {
        let _ = tx.send(Action::CallsignsLoaded {
            callsigns: Arc::new(callsigns),
            warning,
        });
    }
}

/// Asks the service every [`PROBE_EVERY`] whether it can be reached, for the connection shown
/// in the status bar: the other requests come only now and then, and a stalled one takes its
/// full time-out to fail. Ends when the logbook closes.
pub async fn watch_link(client: Arc<Client>, tx: UnboundedSender<Action>) {
    let mut tick = tokio::time::interval(PROBE_EVERY);
    tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let result = client.reachable(PROBE_WITHIN).await;
        if tx.send(Action::LinkProbed(result)).is_err() {
            return;
        }
    }
}

/// Reads the radio every [`POLL`] and carries out the commands of Alt-F and Alt-Shift-M, one request at
/// a time on one connection, until the logbook closes. A failure is reported and the next
/// tick tries again, on a fresh connection when the old one may be out of step.
pub async fn poll_rig(
    mut rig: Rig,
    mut commands: UnboundedReceiver<RigCommand>,
    tx: UnboundedSender<Action>,
) {
    let mut tick = tokio::time::interval(POLL);
    tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        let action = tokio::select! {
            // A change the operator asked for goes before the next reading, which then shows it.
            biased;
            command = commands.recv() => {
                let Some(command) = command else { return };
                let result = rig.send(&command).await.map_err(|e| e.to_string());
                Action::RigSent { command, result }
            }
            _ = tick.tick() => Action::RigRead(rig.read().await.map_err(|e| e.to_string())),
        };
        if tx.send(action).is_err() {
            return;
        }
    }
}
