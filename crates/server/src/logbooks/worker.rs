//! The worker that sends the queue of external copies: each contact pushed, each deleted one
//! deleted there. It runs in every server process; the database hands each job to one of them
//! at a time (a lease), so nothing is sent twice by two processes and nothing is lost when a
//! process stops mid-job (the lease runs out and another takes it).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::Logbooks;
use super::clublog::{Account, ClubLogError, CopyKey};
use super::eqsl::EqslError;
use super::qrz::{Inserted, Qrz, QrzError};
use super::status;
use crate::contacts::check_contact;
use svc_adif as adif;
use svc_model::confirm::{Confirmation, MAX_CONFIRMATIONS, QslService};
use svc_model::dxcc::Dxcc;
use svc_model::filing::{Filed, Place};
use svc_model::{
    ActivationInput, ContactInput, Folder, NewActivation, NewContact, NewMonthly, Program,
    Timestamp,
};
use svc_store::{
    ExternalAction, ExternalJob, ExternalOutcome, FromBook, ImportJob, Limits, Replacing, Store,
};

/// Jobs taken at a time.
const CLAIM: i64 = 20;
/// Books a process sends to at once; each book gets one request at a time, so that a book
/// that does not answer holds up only itself.
const BOOKS_AT_ONCE: usize = 16;
/// Long enough for the provider's slowest answer; a job of a process that died goes again
/// after it.
const LEASE_MS: i64 = 120_000;
/// How often an idle worker looks for work.
const IDLE: Duration = Duration::from_secs(1);
/// The longest wait before a failing job is tried again.
const MAX_RETRY_MS: i64 = 15 * 60 * 1000;

/// Records asked of a book at a time.
const IMPORT_PAGE: u32 = 100;
/// How often a synced book is read for contacts logged elsewhere.
const IMPORT_EVERY_MS: i64 = 5 * 60 * 1000;

/// Runs the pushes and the imports until the process ends.
pub async fn run(store: Arc<dyn Store>, logbooks: Arc<Logbooks>, limits: Limits, dxcc: Arc<Dxcc>) {
    tokio::join!(
        push_loop(store.clone(), logbooks.clone()),
        import_loop(store, logbooks, limits, dxcc)
    );
}

/// Takes due jobs and sends each book's in a task of its own, one request at a time per book
/// and [`BOOKS_AT_ONCE`] books at once; a book still sending is not given more jobs, so a
/// book that hangs delays its own contacts only.
async fn push_loop(store: Arc<dyn Store>, logbooks: Arc<Logbooks>) {
    let sending: Arc<Mutex<HashSet<String>>> = Arc::default();
    loop {
        let busy: Vec<String> = lock(&sending).iter().cloned().collect();
        if busy.len() >= BOOKS_AT_ONCE {
            tokio::time::sleep(BOOK_WAIT).await;
            continue;
        }
        let now = Timestamp::now();
        let jobs = match store.claim_external(now, LEASE_MS, CLAIM, &busy).await {
            Ok(jobs) => jobs,
            Err(e) => {
                tracing::warn!(error = %e, "external logbooks: cannot read the queue");
                Vec::new()
            }
        };
        if jobs.is_empty() {
            tokio::time::sleep(IDLE).await;
            continue;
        }
        let mut books: HashMap<String, Vec<ExternalJob>> = HashMap::new();
        for job in jobs {
            books.entry(job.logbook_id.clone()).or_default().push(job);
        }
        for (book, jobs) in books {
            lock(&sending).insert(book.clone());
            let (store, logbooks, sending) = (store.clone(), logbooks.clone(), sending.clone());
            // The lease ends at `now + LEASE_MS`; a job not sent by then is another
            // process's to take, so it is left for the lease to run out.
            let until = now.millis() + LEASE_MS - LEASE_MARGIN_MS;
            tokio::spawn(async move {
                let mut jobs = jobs.into_iter();
                while let Some(job) = jobs.next() {
                    if Timestamp::now().millis() >= until {
                        break;
                    }
                    let outcome = send(&logbooks, &job).await;
                    settle(&*store, &job, &outcome).await;
                    if let ExternalOutcome::Paused(reason) = &outcome {
                        // The book refused its key or password: not one more request goes to
                        // it (Club Log blocks an address that goes on), not even for the jobs
                        // taken with this one. They go back to the queue, held by the pause.
                        for job in jobs.by_ref() {
                            settle(&*store, &job, &ExternalOutcome::Paused(reason.clone())).await;
                        }
                        break;
                    }
                }
                lock(&sending).remove(&book);
            });
        }
    }
}

async fn settle(store: &dyn Store, job: &ExternalJob, outcome: &ExternalOutcome) {
    if let Err(e) = store.settle_external(job, outcome, Timestamp::now()).await {
        tracing::warn!(error = %e, logbook = %job.logbook_id, "external logbooks: cannot record a result");
    }
}

/// How long the claimer waits while every book slot is sending.
const BOOK_WAIT: Duration = Duration::from_millis(200);
/// Time a job may still need once started: an edit's two requests (a delete, then the
/// replacement) at the provider's time-out of 30 s each, and then some.
const LEASE_MARGIN_MS: i64 = 70_000;

fn lock(set: &Mutex<HashSet<String>>) -> std::sync::MutexGuard<'_, HashSet<String>> {
    set.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The wait before try `attempts + 1`: 2 s, doubling, at most 15 minutes.
fn retry_after(attempts: i64) -> Duration {
    let ms = 2_000i64.saturating_mul(1 << attempts.clamp(1, 20).saturating_sub(1));
    Duration::from_millis(ms.min(MAX_RETRY_MS) as u64)
}

async fn send(logbooks: &Logbooks, job: &ExternalJob) -> ExternalOutcome {
    let Some(key) = logbooks.secret.open(&job.logbook_id, &job.key_sealed) else {
        return ExternalOutcome::Paused(
            "the service cannot open this logbook's key (its secret changed); give the key again"
                .into(),
        );
    };
    match job.provider.as_str() {
        "clublog" => return send_clublog(logbooks, job, &key).await,
        "eqsl" => return send_eqsl(logbooks, job, &key).await,
        _ => {}
    }
    let answer = match &job.action {
        ExternalAction::Push {
            contact,
            account_callsign,
            replacing,
        } => {
            let record = adif::contact::record_for(contact, account_callsign);
            let text = match adif::record_text(&record) {
                Ok(text) => text,
                Err(e) => return ExternalOutcome::Refused(format!("cannot write its ADIF: {e}")),
            };
            let sent = match replacing {
                None => logbooks.qrz.insert(&key, &text).await,
                Some(old) => replace(&logbooks.qrz, &key, old, &text).await,
            };
            sent.map(|inserted| match inserted {
                Inserted::New { log_id } | Inserted::Replaced { log_id } => {
                    ExternalOutcome::Pushed {
                        log_id: Some(log_id),
                    }
                }
                // The book has it already: that is what was wanted.
                Inserted::Duplicate => ExternalOutcome::Pushed { log_id: None },
            })
        }
        ExternalAction::Delete { log_id } => logbooks
            .qrz
            .delete(&key, std::slice::from_ref(log_id))
            .await
            .map(|_| ExternalOutcome::Deleted),
    };
    match answer {
        Ok(outcome) => outcome,
        Err(QrzError::Auth(reason)) => ExternalOutcome::Paused(format!(
            "QRZ refused the key ({reason}); give a new key to go on"
        )),
        Err(QrzError::Fail(reason)) => match job.action {
            ExternalAction::Push { .. } => ExternalOutcome::Refused(format!("QRZ: {reason}")),
            // A copy QRZ no longer has, or will not delete: nothing more to do here.
            ExternalAction::Delete { .. } => ExternalOutcome::Deleted,
        },
        Err(e @ (QrzError::Transport(_) | QrzError::Malformed(_))) => retry(job, e.to_string()),
    }
}

/// Tried again after the queue's backoff.
fn retry(job: &ExternalJob, error: String) -> ExternalOutcome {
    ExternalOutcome::Retry {
        error,
        due: Timestamp(Timestamp::now().millis() + retry_after(job.attempts).as_millis() as i64),
    }
}

/// Why a Club Log book is paused after a 403, and what to do: shown as the book's
/// `pausedReason`.
pub fn clublog_paused_reason(id: &str, said: &str) -> String {
    format!(
        "Club Log refused access ({said}); nothing more is sent to this book until its application password is given again (svc logbooks set {id} --password, or PATCH /v1/logbooks/{id} with password): Club Log blocks an address that goes on sending refused requests"
    )
}

/// One job for a Club Log book: a contact to realtime.php (an edited one's old copy deleted
/// first, as Club Log cannot replace a record in place), a deleted one to delete.php. The
/// copy's log id is how Club Log finds the record again ([`CopyKey`]).
async fn send_clublog(logbooks: &Logbooks, job: &ExternalJob, password: &str) -> ExternalOutcome {
    let clublog = &logbooks.clublog;
    let account = Account {
        email: job.email.as_deref().unwrap_or_default(),
        password,
        callsign: &job.book_callsign,
    };
    let answer = match &job.action {
        ExternalAction::Push {
            contact,
            account_callsign,
            replacing,
        } => {
            let record = adif::contact::record_for(contact, account_callsign);
            let Some(key) = CopyKey::of(&record) else {
                return ExternalOutcome::Refused("it has no call, date, time or band".into());
            };
            let text = match adif::record_text(&record) {
                Ok(text) => text,
                Err(e) => return ExternalOutcome::Refused(format!("cannot write its ADIF: {e}")),
            };
            let old = replacing
                .as_ref()
                .and_then(|r| r.log_id.as_deref())
                .and_then(CopyKey::parse);
            let deleted = match &old {
                // A copy Club Log no longer has, or will not delete, leaves nothing to replace.
                Some(old) => match clublog.delete(&account, old).await {
                    Ok(()) | Err(ClubLogError::Rejected(_)) => Ok(()),
                    Err(e) => Err(e),
                },
                None => Ok(()),
            };
            match deleted {
                // Club Log's duplicate is the contact there already: pushed all the same.
                Ok(()) => clublog
                    .upload(&account, &text)
                    .await
                    .map(|()| ExternalOutcome::Pushed {
                        log_id: Some(key.log_id()),
                    }),
                Err(e) => Err(e),
            }
        }
        ExternalAction::Delete { log_id } => match CopyKey::parse(log_id) {
            Some(key) => clublog
                .delete(&account, &key)
                .await
                .map(|()| ExternalOutcome::Deleted),
            None => Ok(ExternalOutcome::Deleted),
        },
    };
    match answer {
        Ok(outcome) => outcome,
        Err(ClubLogError::Forbidden(said)) => {
            ExternalOutcome::Paused(clublog_paused_reason(&job.logbook_id, &said))
        }
        Err(ClubLogError::Rejected(said)) => match job.action {
            ExternalAction::Push { .. } => ExternalOutcome::Refused(format!("Club Log: {said}")),
            // A delete Club Log will not do cannot be helped by asking again.
            ExternalAction::Delete { .. } => ExternalOutcome::Deleted,
        },
        Err(e @ ClubLogError::Unavailable(_)) => retry(job, e.to_string()),
    }
}

/// Why an eQSL book is paused after eQSL refused its login, and what to do: shown as the
/// book's `pausedReason`.
fn eqsl_paused_reason(id: &str, said: &str) -> String {
    format!(
        "eQSL refused the login ({said}); nothing more is sent to this book until its eQSL password is given again (svc logbooks set {id} --password, or PATCH /v1/logbooks/{id} with password)"
    )
}

/// One job for an eQSL book: a new contact to ImportADIF.cfm, as an ADI file of one record.
/// eQSL can neither delete nor replace what it was sent, so nothing is sent for a deleted
/// contact or for an edit of one eQSL has: its copy there stays as it was sent. The copy
/// keeps no log id (eQSL gives none), so a deleted contact's copy is simply forgotten; an
/// edited one comes here as a replacement, and settles as pushed without a request.
async fn send_eqsl(logbooks: &Logbooks, job: &ExternalJob, password: &str) -> ExternalOutcome {
    let (contact, account_callsign) = match &job.action {
        ExternalAction::Push {
            replacing: Some(_), ..
        } => return ExternalOutcome::Pushed { log_id: None },
        ExternalAction::Delete { .. } => return ExternalOutcome::Deleted,
        ExternalAction::Push {
            contact,
            account_callsign,
            replacing: None,
        } => (contact, account_callsign),
    };
    let record = adif::contact::record_for(contact, account_callsign);
    let file = match adif_file(&record) {
        Ok(file) => file,
        Err(e) => return ExternalOutcome::Refused(format!("cannot write its ADIF: {e}")),
    };
    match logbooks
        .eqsl
        .upload(&job.book_callsign, password, &file)
        .await
    {
        Ok(()) => ExternalOutcome::SentToEqsl,
        Err(EqslError::Refused(said)) => {
            ExternalOutcome::Paused(eqsl_paused_reason(&job.logbook_id, &said))
        }
        Err(EqslError::Rejected(said)) => ExternalOutcome::Refused(format!("eQSL: {said}")),
        Err(e @ EqslError::Unavailable(_)) => retry(job, e.to_string()),
    }
}

/// An ADI file of one record, with its header: eQSL takes a file, not a lone record.
fn adif_file(record: &adif::Record) -> std::io::Result<String> {
    let mut writer = adif::Writer::new(Vec::new(), chrono::Utc::now())?;
    writer.record(record)?;
    String::from_utf8(writer.finish()?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// Sends an edited contact over the book's copy of it. The copy is deleted by its log id
/// first: QRZ's `REPLACE` finds the copy to overwrite by call, band, mode and time, so a
/// corrected callsign alone would add a record and leave the wrong one. `REPLACE` then
/// overwrites a record of the book that already matches the corrected contact.
async fn replace(qrz: &Qrz, key: &str, old: &Replacing, adif: &str) -> Result<Inserted, QrzError> {
    if let Some(log_id) = &old.log_id {
        match qrz.delete(key, std::slice::from_ref(log_id)).await {
            // A copy the book no longer has (deleted there, or by an earlier try of this job)
            // is as good as deleted.
            Ok(_) | Err(QrzError::Fail(_)) => {}
            Err(e) => return Err(e),
        }
    }
    qrz.replace(key, adif).await
}

async fn import_loop(
    store: Arc<dyn Store>,
    logbooks: Arc<Logbooks>,
    limits: Limits,
    dxcc: Arc<Dxcc>,
) {
    let limits = limits.for_import();
    loop {
        let job = match store.claim_import(Timestamp::now(), LEASE_MS).await {
            Ok(job) => job,
            Err(e) => {
                tracing::warn!(error = %e, "external logbooks: cannot look for imports");
                None
            }
        };
        let Some(job) = job else {
            tokio::time::sleep(IDLE).await;
            continue;
        };
        let error = if job.provider == "eqsl" {
            import_eqsl(&store, &logbooks, &job).await.err()
        } else {
            import(&store, &logbooks, &limits, &dxcc, &job).await.err()
        };
        if let Some(e) = &error {
            tracing::warn!(logbook = %job.logbook_id, error = %e, "external logbooks: import stopped");
        }
        let next = Timestamp(Timestamp::now().millis() + IMPORT_EVERY_MS);
        if let Err(e) = store
            .finish_import(&job.logbook_id, next, error.as_deref())
            .await
        {
            tracing::warn!(error = %e, "external logbooks: cannot record an import");
        }
    }
}

/// Reads the book's Inbox from where the last read stopped (its `RcvdSince`) and writes each
/// card into the contact it confirms (eQSL's received flag and date); a card that confirms no
/// contact here changes nothing. The next read starts at the minute this one began: eQSL
/// counts `RcvdSince` inclusively, and a card read twice confirms nothing new.
async fn import_eqsl(
    store: &Arc<dyn Store>,
    logbooks: &Logbooks,
    job: &ImportJob,
) -> Result<(), String> {
    let password = logbooks
        .secret
        .open(&job.logbook_id, &job.key_sealed)
        .ok_or(
            "the service cannot open this logbook's password (its secret changed); give the password again",
        )?;
    let began = Timestamp::now();
    let records = match logbooks
        .eqsl
        .inbox(&job.book_callsign, &password, job.after.as_deref())
        .await
    {
        Ok(records) => records,
        Err(EqslError::Refused(said)) => {
            // As a refused upload does: nothing more goes to eQSL with this login.
            let reason = eqsl_paused_reason(&job.logbook_id, &said);
            store
                .pause_logbook(&job.logbook_id, &reason)
                .await
                .map_err(|e| e.to_string())?;
            return Err(reason);
        }
        Err(e) => return Err(format!("reading the eQSL Inbox: {e}")),
    };
    let today = began.utc_compact_date();
    let mut unread = 0u64;
    let mut cards = Vec::with_capacity(records.len());
    for (at, record) in records.iter().enumerate() {
        match card(record, &job.book_callsign, &today).and_then(|c| c.checked(at).ok()) {
            Some(card) => cards.push(card),
            None => unread += 1,
        }
    }
    // A first read brings the whole Inbox: written as a request of the API would be, at most
    // MAX_CONFIRMATIONS in a transaction.
    for chunk in cards.chunks(MAX_CONFIRMATIONS) {
        store
            .confirm_contacts(
                &job.account_id,
                &job.callsign,
                chunk.to_vec(),
                QslService::Eqsl,
            )
            .await
            .map_err(|e| e.to_string())?;
    }
    store
        .set_import_after(&job.logbook_id, &began.utc_date_minute())
        .await
        .map_err(|e| e.to_string())?;
    if unread > 0 {
        return Err(format!(
            "{unread} cards from the eQSL Inbox could not be read (no call, band, mode, date or time)"
        ));
    }
    Ok(())
}

/// One card of eQSL's Inbox as the confirmation of a QSO of the book's: the sender is the
/// worked station, the book's callsign the log's; its date received is eQSL's QSLRDATE, else
/// the day it was read. `None` for a card without a call, band, mode, date or time.
fn card(record: &adif::Record, book_callsign: &str, today: &str) -> Option<Confirmation> {
    let date = record.get("QSO_DATE")?.trim();
    let time = record.get("TIME_ON")?.trim();
    if date.len() != 8
        || !(time.len() == 4 || time.len() == 6)
        || !date.is_ascii()
        || !time.is_ascii()
    {
        return None;
    }
    let time = format!("{time:0<6}");
    let at = format!(
        "{}-{}-{}T{}:{}:{}Z",
        &date[..4],
        &date[4..6],
        &date[6..],
        &time[..2],
        &time[2..4],
        &time[4..]
    );
    let mode = record
        .get("SUBMODE")
        .filter(|m| !m.trim().is_empty())
        .or_else(|| record.get("MODE"))?;
    Some(Confirmation {
        callsign: record.get("CALL")?.to_owned(),
        band: record.get("BAND")?.to_owned(),
        mode: mode.to_owned(),
        time_on: Timestamp::parse("timeOn", &at).ok()?,
        station_callsign: book_callsign.to_owned(),
        prop_mode: record.get("PROP_MODE").map(str::to_owned),
        sat_name: record.get("SAT_NAME").map(str::to_owned),
        confirmed_on: Some(
            record
                .get("QSLRDATE")
                .or_else(|| record.get("EQSL_QSLRDATE"))
                .unwrap_or(today)
                .to_owned(),
        ),
        received_on: None,
        details: Default::default(),
    })
}

/// Reads the book from where the last import stopped, page by page, and files each page.
async fn import(
    store: &Arc<dyn Store>,
    logbooks: &Logbooks,
    limits: &Limits,
    dxcc: &Dxcc,
    job: &ImportJob,
) -> Result<(), String> {
    let key = logbooks
        .secret
        .open(&job.logbook_id, &job.key_sealed)
        .ok_or(
            "the service cannot open this logbook's key (its secret changed); give the key again",
        )?;
    let began = Timestamp::now();
    let mut after = job.after.clone();
    let mut folders: HashMap<Place, Folder> = HashMap::new();
    let mut unfiled = 0u64;
    loop {
        let page = logbooks
            .qrz
            .fetch(&key, after.as_deref(), IMPORT_PAGE, None)
            .await
            .map_err(|e| format!("reading from QRZ: {e}"))?;
        let full = page.records.len() as u32 >= IMPORT_PAGE;
        let now = Timestamp::now();
        let mut items = Vec::with_capacity(page.records.len());
        for (log_id, record) in &page.records {
            match filed(store, job, record, now, &mut folders, dxcc).await {
                Ok(contact) => items.push(FromBook {
                    log_id: log_id.clone(),
                    contact,
                }),
                Err(_) => unfiled += 1,
            }
        }
        let done = store
            .import_page(job, &items, page.last_log_id.as_deref(), limits, now)
            .await
            .map_err(|e| e.to_string())?;
        if let Some(stopped) = done.stopped {
            return Err(stopped);
        }
        // A record sent from here comes back with QRZ's status: the first read of a book
        // brings every copy's.
        store
            .book_statuses(job, &status::of_page(&page.records), None)
            .await
            .map_err(|e| e.to_string())?;
        match page.last_log_id {
            Some(last) if full => after = Some(last),
            _ => break,
        }
    }
    status::refresh(store.as_ref(), &logbooks.qrz, &key, job, began).await?;
    if unfiled > 0 {
        return Err(format!(
            "{unfiled} records from QRZ could not be filed (no date, time, call, mode or a frequency in a band)"
        ));
    }
    Ok(())
}

/// A record from the book as a contact of the folder the model's filing rule gives it (as
/// `svc import adif --auto` files it): an activator's record into its activation, found or made;
/// the others into the monthly log of their UTC month.
async fn filed(
    store: &Arc<dyn Store>,
    job: &ImportJob,
    record: &adif::Record,
    now: Timestamp,
    folders: &mut HashMap<Place, Folder>,
    dxcc: &Dxcc,
) -> Result<NewContact, String> {
    let c = adif::contact::imported(record)?.contact;
    let filed = c.filed();
    // A book's contest QSOs go to the monthly log: a contest log is started by its station,
    // with the exchange it sends, which a book's record does not always say.
    let filed = Filed {
        contest_id: None,
        ..filed
    };
    let mut place = Place::of(&filed, Some(&job.callsign));
    let activation = match &place {
        Place::Activation {
            callsign, parks, ..
        } => NewActivation::validate(
            &ActivationInput {
                reference: Some(parks.clone()),
                callsign: Some(callsign.clone()),
                program: Some(Program::Pota),
                location_name: None,
                start_time: Some(c.time_on.clone()),
            },
            now,
        )
        .ok(),
        Place::Contest { .. } | Place::Monthly { .. } => None,
    };
    // An activation the record cannot make (a park POTA would not know) leaves the contact in
    // its monthly log rather than out of the account.
    if matches!(place, Place::Activation { .. }) && activation.is_none() {
        place = Place::of(
            &Filed {
                my_sig: None,
                ..filed
            },
            None,
        );
    }
    let folder = match folders.get(&place) {
        Some(folder) => folder.clone(),
        None => {
            let made = match (&activation, &place) {
                (Some(activation), _) => {
                    store
                        .find_or_create_activation(&job.account_id, activation, now, None)
                        .await
                }
                (None, Place::Monthly { month, program }) => {
                    let monthly = NewMonthly::new(*program, month.clone());
                    store
                        .find_or_create_monthly(&job.account_id, &monthly, now, None)
                        .await
                }
                // Filed by its month above.
                (None, Place::Activation { .. } | Place::Contest { .. }) => {
                    return Err(place.describe());
                }
            };
            let folder = made.map_err(|e| e.to_string())?.into_parts().0.folder;
            folders.insert(place.clone(), folder.clone());
            folder
        }
    };
    // A monthly log takes no park of the operator's own: a record of another program's
    // activation keeps its MY_SIG only when it names no program of svc's.
    let own = matches!(place, Place::Monthly { .. })
        && c.my_sig.as_deref().and_then(Program::from_sig).is_some();
    let input = ContactInput {
        folder_id: folder.id.clone(),
        my_sig: if own { None } else { c.my_sig },
        my_sig_info: if own { None } else { c.my_sig_info },
        ..c
    };
    // An external logbook's contacts are imports: they keep what the book says.
    check_contact(&input, Some(&folder), now, dxcc, &job.callsign, &[]).map_err(|e| e.message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_eqsl_card_is_the_confirmation_of_the_books_qso() {
        let mut record = adif::Record::default();
        for (name, value) in [
            ("CALL", "K1ABC"),
            ("QSO_DATE", "20261101"),
            ("TIME_ON", "1205"),
            ("BAND", "20M"),
            ("MODE", "MFSK"),
            ("SUBMODE", "FT4"),
        ] {
            record.set(name, value);
        }
        let c = card(&record, "W1AW", "20261128").unwrap();
        assert_eq!(c.callsign, "K1ABC");
        assert_eq!(c.station_callsign, "W1AW", "the book's QSO");
        assert_eq!(c.mode, "FT4", "the submode, when there is one");
        assert_eq!(c.time_on.to_string(), "2026-11-01T12:05:00Z");
        assert_eq!(
            c.confirmed_on.as_deref(),
            Some("20261128"),
            "no QSLRDATE: the day it was read"
        );
        record.set("QSLRDATE", "20261102");
        assert_eq!(
            card(&record, "W1AW", "20261128").unwrap().confirmed_on,
            Some("20261102".into())
        );
        record.set("TIME_ON", "12");
        assert_eq!(card(&record, "W1AW", "20261128"), None);
    }

    #[test]
    fn retries_wait_longer_each_time_up_to_fifteen_minutes() {
        assert_eq!(retry_after(1), Duration::from_secs(2));
        assert_eq!(retry_after(2), Duration::from_secs(4));
        assert_eq!(retry_after(5), Duration::from_secs(32));
        assert_eq!(retry_after(40), Duration::from_secs(900));
        assert_eq!(retry_after(0), Duration::from_secs(2));
    }
}
