//! The messages of the logbook's loop: [`Action`]s that reach the state (keys, resizes, the
//! clock, answers of background work) and [`Effect`]s, the work `update` asks of the runtime.
//! Plain data, below every component, so that each can name the work it needs.

use std::sync::Arc;

use ratatui::crossterm::event::KeyEvent;

use super::callsigns::Callsigns;
use super::journal::{JournalAnswer, JournalEffect};
use svc_client::export::Exported;
use svc_client::journal::SenderEvent;
use svc_client::rig::{RigCommand, RigState};
use svc_client::{ClientError, Deleted, EditedContact};
use svc_model::needed::Worked;
use svc_model::{Contact, Folder, Page, Timestamp, Whoami};
use svc_model::{ContactPatch, StationProfile};

/// Contacts asked for per page.
pub const PAGE_SIZE: u32 = 100;
/// Contacts read from the journal's copy of a folder: enough for a day of logging, which the
/// duplicate check and the POTA count look at.
pub const COPY_LIMIT: u32 = 1000;

/// Where a list of contacts came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The journal's copy, read with no network: shown at once, replaced by the service's.
    Copy,
    Service,
}

/// Work for the background: each becomes one task that answers with an [`Action`].
// One per key or answer, moved and dropped at once: boxing the larger variants buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    LoadWhoami,
    /// The account as the logbook counts it now (contacts sent since whoami answered taken
    /// in), kept in the journal: a start with no link shows that count, not an older answer's.
    RememberWhoami(Whoami),
    LoadFolders,
    /// A page of a folder's contacts. The first page is read from the journal's copy first,
    /// and the service's first page is saved there when `save_copy` (an activation's copy is
    /// its whole list, saved by [`Effect::LoadActivationContacts`]).
    LoadContacts {
        folder_id: String,
        cursor: Option<String>,
        generation: u64,
        save_copy: bool,
    },
    LoadActivations,
    /// Every contact of an activation folder, to count the valid ones: the copy first, then
    /// the service's, saved as the copy.
    LoadActivationContacts {
        folder_id: String,
    },
    /// Remembers in the journal which folder is open, to open it again at the next start.
    SaveOpenFolder {
        folder_id: String,
    },
    EditContact {
        id: String,
        request: ContactPatch,
    },
    DeleteContact {
        id: String,
    },
    EndActivation {
        id: String,
    },
    /// The newest contacts of the open contest log, for the ones other logbooks stored.
    PollContacts {
        folder_id: String,
    },
    /// A contest log started, or the one of this contest, call and weekend joined.
    StartContest(Box<svc_client::contests::NewContestRequest>),
    /// A block of serial numbers of a contest log for this station.
    ReserveSerials {
        folder_id: String,
        count: u32,
    },
    /// Writes a folder as ADIF (an activation as its POTA file) into the working directory.
    /// The callbook's record of a call (the journal's cache first).
    LookUp {
        call: String,
    },
    /// The names of these parks, from the park cache or POTA.
    NameParks(Vec<String>),
    /// POTA's spot list, for the hunter's list.
    LoadSpots,
    /// The activator's own spot, sent once.
    Spot(svc_pota::NewSpot),
    Export {
        folder: Folder,
        callsign: String,
    },
    /// Done on the journal before the next frame is drawn (a local commit takes about a
    /// millisecond), so what the screen shows as logged is on disk.
    Journal(JournalEffect),
    /// For the radio, through the rig poller's connection to rigctld.
    Rig(RigCommand),
    /// The link is back: the journal's sender goes at once rather than at the end of the
    /// back-off it took while the link was down (up to 30 s). Answers nothing.
    SendNow,
    /// The log the journal holds, read into what working a call would bring it
    /// ([`svc_model::needed::Worked`]), judged with the country file read at start.
    ReadWorked(Shared<Callsigns>),
    /// Every folder's contacts copied from the service into the journal, so that what a call
    /// would bring is judged against the whole log, not only the folders shown here.
    CopyWholeLog,
    /// The account's station profiles, for the own grid on the map.
    LoadStations,
}

/// Something read once and shared (the country file): an effect that carries it is equal to
/// another carrying the same one.
#[derive(Debug)]
pub struct Shared<T>(pub Arc<T>);

// By hand: a derive would ask the shared thing itself to be Clone.
impl<T> Clone for Shared<T> {
    fn clone(&self) -> Shared<T> {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Shared<T>) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

// As for Effect: one per event, never stored.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Action {
    Key(KeyEvent),
    /// The country file and super check partial list were read; a file given or found in the
    /// data directory that could not be is why the shipped copy is used instead.
    CallsignsLoaded {
        callsigns: std::sync::Arc<crate::callsigns::Callsigns>,
        warning: Option<String>,
    },
    Resize(u16, u16),
    Tick(Timestamp),
    WhoamiLoaded(Result<Whoami, ClientError>),
    FoldersLoaded(Result<Vec<Folder>, ClientError>),
    ContactsLoaded {
        folder_id: String,
        generation: u64,
        source: Source,
        result: Result<Page<Contact>, ClientError>,
    },
    ActivationsLoaded(Result<Vec<Folder>, ClientError>),
    ActivationContactsLoaded {
        folder_id: String,
        source: Source,
        result: Result<Vec<Contact>, ClientError>,
    },
    ContactEdited {
        id: String,
        result: Result<EditedContact, ClientError>,
    },
    ContactDeleted {
        id: String,
        result: Result<Deleted, ClientError>,
    },
    ActivationEnded {
        id: String,
        result: Result<Folder, ClientError>,
    },
    ContactsPolled {
        folder_id: String,
        result: Result<Page<Contact>, ClientError>,
    },
    ContestStarted(Result<svc_client::FolderCreated, ClientError>),
    SerialsReserved {
        folder_id: String,
        result: Result<svc_model::contest::SerialBlock, ClientError>,
    },
    /// The callbook's answer for `call`, with its age in days when it came from the cache.
    LookedUp {
        call: String,
        result: Result<(svc_client::lookup::Lookup, Option<i64>), String>,
    },
    /// A park's name, once known.
    ParkNamed {
        reference: String,
        name: String,
    },
    SpotsLoaded(Result<Vec<svc_pota::Spot>, String>),
    Spotted(Result<svc_pota::Spot, String>),
    Exported {
        name: String,
        result: Result<Exported, String>,
    },
    Journal(JournalAnswer),
    /// What the journal's background sender reports.
    Sender(SenderEvent),
    /// A reading of the radio by the rig poller, or why it failed.
    RigRead(Result<RigState, String>),
    /// Whether the service could be reached just now (the runtime asks every 2 s).
    LinkProbed(Result<(), ClientError>),
    /// A message from WSJT-X (JTDX, MSHV), heard on the --wsjtx port.
    Wsjtx(svc_wsjtx::Message),
    /// What became of an [`Effect::Rig`].
    RigSent {
        command: RigCommand,
        result: Result<(), String>,
    },
    /// The answer to [`Effect::ReadWorked`]; why not, when the journal could not be read.
    WorkedRead(Result<Box<Worked>, String>),
    /// The answer to [`Effect::CopyWholeLog`].
    WholeLogCopied(Result<(), String>),
    /// The answer to [`Effect::LoadStations`].
    StationsLoaded(Result<Vec<StationProfile>, String>),
}
