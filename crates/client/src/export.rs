//! Folders out as ADIF: any folder's contacts as a stream of records, and an activation as the
//! file POTA takes for upload. Shared by `svc export adif`, `svc activations export` and the
//! logbook's export key (docs/ADIF-AND-POTA.md, "ADIF").

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::{Client, ClientError, FULL_PAGE};
use svc_adif::{Format, Record, Writer, pota};
use svc_model::{Folder, FolderType, Timestamp};

#[derive(Debug)]
pub enum ExportError {
    Client(ClientError),
    /// A record could not be written to the output.
    Write(std::io::Error),
    /// The file could not be written; the message names it.
    Io(String),
    /// The folder cannot be exported this way; the message says what to do instead.
    Refused(String),
}

impl From<ClientError> for ExportError {
    fn from(e: ClientError) -> Self {
        ExportError::Client(e)
    }
}

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExportError::Client(e) => write!(f, "{e}"),
            ExportError::Write(e) => write!(f, "cannot write the ADIF: {e}"),
            ExportError::Io(m) | ExportError::Refused(m) => f.write_str(m),
        }
    }
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Exported {
    /// The file, when the export went to one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    pub contacts: u64,
    /// ADIF records: more than contacts when a park-to-park contact is split per park.
    pub records: u64,
    /// A two-fer activation's files, one per park (the first is `path`); absent for one file.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<ParkFile>,
}

/// One park's POTA file of a two-fer activation.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ParkFile {
    pub park: String,
    pub path: PathBuf,
    pub records: u64,
}

/// Which contacts of a folder go out: those whose time-on is in `[since, until)`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Window {
    pub since: Option<Timestamp>,
    pub until: Option<Timestamp>,
}

impl Window {
    fn holds(&self, t: Timestamp) -> bool {
        self.since.is_none_or(|s| t >= s) && self.until.is_none_or(|u| t < u)
    }
}

/// Writes one folder's contacts in `window` as records, page by page as the service lists
/// them (newest first), so memory stays flat however large the folder is. Returns the count.
pub async fn write_folder<W: Write>(
    client: &Client,
    folder: &Folder,
    account_callsign: &str,
    window: Window,
    out: &mut Writer<W>,
) -> Result<u64, ExportError> {
    let mut cursor = None;
    let mut written = 0;
    loop {
        let page = client
            .contacts(&folder.id, Some(FULL_PAGE), cursor.as_deref())
            .await?;
        let mut older_than_window = false;
        for contact in &page.items {
            if window.holds(contact.time_on) {
                out.record(&svc_adif::contact::record_for(contact, account_callsign))
                    .map_err(ExportError::Write)?;
                written += 1;
            } else if window.since.is_some_and(|s| contact.time_on < s) {
                older_than_window = true;
            }
        }
        // Newest first: once a page reaches before `since`, later pages are older still.
        match page.cursor {
            Some(next) if !older_than_window => cursor = Some(next),
            _ => return Ok(written),
        }
    }
}

/// Writes POTA's upload file of an activation into `dir`: every contact over all its UTC days,
/// the activator as `STATION_CALLSIGN`, `MY_SIG` POTA and the park as `MY_SIG_INFO`, and one
/// record per worked park of a park-to-park contact. A two-fer gets one file per park, each
/// with every contact, that park as `MY_SIG_INFO`.
pub async fn activation_file(
    client: &Client,
    folder: &Folder,
    account_callsign: &str,
    park_names: &ParkNames,
    dir: &Path,
) -> Result<Exported, ExportError> {
    let parks = pota_files(client, folder, account_callsign).await?;
    let mut files = Vec::new();
    let mut contacts = 0;
    for file in &parks {
        let comment =
            pota::park_comment(&file.park, park_names.get(&file.park).map(String::as_str));
        let exported = to_file_with(
            &dir.join(&file.file_name),
            Format::Adi,
            &comment,
            async |out| {
                for record in &file.records {
                    out.record(record).map_err(ExportError::Write)?;
                }
                Ok(file.records.len() as u64)
            },
        )
        .await?;
        contacts = file.contacts;
        files.push(ParkFile {
            park: file.park.clone(),
            path: exported.path.unwrap_or_default(),
            records: exported.records,
        });
    }
    let first = files.first().cloned();
    Ok(Exported {
        path: first.as_ref().map(|f| f.path.clone()),
        contacts,
        records: files.iter().map(|f| f.records).sum(),
        files: if files.len() > 1 { files } else { Vec::new() },
    })
}

/// An activation's POTA file held in memory, for a caller that keeps it itself (an agent).
#[derive(Debug, Clone, PartialEq)]
pub struct PotaFile {
    pub park: String,
    pub file_name: String,
    pub adif: String,
    pub contacts: u64,
    pub records: u64,
}

/// The POTA files [`activation_file`] writes, as text: one, or one per park of a two-fer.
pub async fn activation_text(
    client: &Client,
    folder: &Folder,
    account_callsign: &str,
    park_names: &ParkNames,
) -> Result<Vec<PotaFile>, ExportError> {
    let mut texts = Vec::new();
    for file in pota_files(client, folder, account_callsign).await? {
        let comment =
            pota::park_comment(&file.park, park_names.get(&file.park).map(String::as_str));
        let mut out = Writer::with_comment(Vec::new(), chrono::Utc::now(), Format::Adi, &comment)
            .map_err(ExportError::Write)?;
        for record in &file.records {
            out.record(record).map_err(ExportError::Write)?;
        }
        let bytes = out.finish().map_err(ExportError::Write)?;
        texts.push(PotaFile {
            park: file.park,
            file_name: file.file_name,
            adif: String::from_utf8_lossy(&bytes).into_owned(),
            contacts: file.contacts,
            records: file.records.len() as u64,
        });
    }
    Ok(texts)
}

/// Parks' names by reference, for the line of a POTA file's header that names its park.
pub type ParkNames = std::collections::HashMap<String, String>;

/// One park's upload file of an activation, with how many contacts it holds.
struct ParkRecords {
    park: String,
    file_name: String,
    records: Vec<Record>,
    contacts: u64,
}

/// The records of an activation's POTA files, a file a park, from its contacts on the service.
async fn pota_files(
    client: &Client,
    folder: &Folder,
    account_callsign: &str,
) -> Result<Vec<ParkRecords>, ExportError> {
    pota::file_names(folder).map_err(ExportError::Refused)?;
    let contacts = client.all_contacts(&folder.id).await?;
    let files = pota::files(folder, &contacts, account_callsign).map_err(ExportError::Refused)?;
    Ok(files
        .into_iter()
        .map(|file| ParkRecords {
            park: file.park,
            file_name: file.file_name,
            records: file.records,
            contacts: contacts.len() as u64,
        })
        .collect())
}

/// Writes any folder into `dir` under [`pota::folder_file_name`]: an activation as its POTA file,
/// other folders as they are listed.
pub async fn folder_file(
    client: &Client,
    folder: &Folder,
    account_callsign: &str,
    park_names: &ParkNames,
    dir: &Path,
) -> Result<Exported, ExportError> {
    if folder.folder_type == FolderType::Activation {
        return activation_file(client, folder, account_callsign, park_names, dir).await;
    }
    to_file(
        &dir.join(pota::folder_file_name(folder)),
        Format::Adi,
        async |out| write_folder(client, folder, account_callsign, Window::default(), out).await,
    )
    .await
}

/// Counts the records of svc's own ADIF as it goes by, a chunk at a time: each ADI record
/// ends its line with `<EOR>` (a line break inside a value is written CRLF, so `<EOR>` and a
/// bare LF never follow each other inside one), and each ADX record with `</RECORD>` (values
/// are escaped).
struct RecordCount {
    end: &'static [u8],
    /// The last bytes of the chunk before, where an end could have begun.
    tail: Vec<u8>,
    count: u64,
}

impl RecordCount {
    fn new(format: Format) -> Self {
        RecordCount {
            end: match format {
                Format::Adi => b"<EOR>\n",
                Format::Adx => b"</RECORD>",
            },
            tail: Vec::new(),
            count: 0,
        }
    }

    fn feed(&mut self, chunk: &[u8]) {
        let end = self.end;
        // An end across the seam begins in the tail and ends in the chunk's first bytes; the
        // tail is shorter than an end, so nothing is counted twice, and the chunk itself is
        // searched where it is rather than copied behind the tail.
        let mut seam = std::mem::take(&mut self.tail);
        let before = seam.len();
        seam.extend_from_slice(&chunk[..chunk.len().min(end.len() - 1)]);
        self.count += seam
            .windows(end.len())
            .take(before)
            .filter(|w| *w == end)
            .count() as u64;
        self.count += chunk.windows(end.len()).filter(|w| *w == end).count() as u64;
        // The last bytes so far, where the next end could begin.
        let keep = end.len() - 1;
        self.tail = match chunk.len().checked_sub(keep) {
            Some(from) => chunk[from..].to_vec(),
            None => seam.split_off(seam.len() - seam.len().min(keep)),
        };
    }
}

/// Copies a `GET /v1/adif` answer into `out` as it comes; returns the records it held.
pub async fn download(
    mut response: reqwest::Response,
    format: Format,
    out: &mut impl Write,
) -> Result<u64, ExportError> {
    let mut count = RecordCount::new(format);
    loop {
        let chunk = response.chunk().await.map_err(|e| {
            ExportError::Client(ClientError::Transport {
                message: format!("the export was cut off: {e}"),
                attempts: 1,
            })
        })?;
        let Some(chunk) = chunk else {
            return Ok(count.count);
        };
        count.feed(&chunk);
        out.write_all(&chunk).map_err(ExportError::Write)?;
    }
}

/// [`download`] into the file `path`, which takes the name only when whole.
pub async fn download_to_file(
    response: reqwest::Response,
    format: Format,
    path: &Path,
) -> Result<Exported, ExportError> {
    let records = atomic_file(path, async |file| download(response, format, file).await).await?;
    Ok(Exported {
        path: Some(path.to_owned()),
        contacts: records,
        records,
        files: Vec::new(),
    })
}

/// Writes the ADIF file `path` in `format`: `write` adds the records (and returns how many)
/// to a file that takes the name only when whole, so an interrupted export never leaves a
/// short file under the real name.
pub async fn to_file(
    path: &Path,
    format: Format,
    write: impl AsyncFnOnce(&mut Writer<&mut BufWriter<File>>) -> Result<u64, ExportError>,
) -> Result<Exported, ExportError> {
    to_file_with(path, format, "", write).await
}

/// [`to_file`] with a line of header text (ADI) saying what the file is.
async fn to_file_with(
    path: &Path,
    format: Format,
    comment: &str,
    write: impl AsyncFnOnce(&mut Writer<&mut BufWriter<File>>) -> Result<u64, ExportError>,
) -> Result<Exported, ExportError> {
    let records = atomic_file(path, async |file| {
        let mut out = Writer::with_comment(file, chrono::Utc::now(), format, comment)
            .map_err(ExportError::Write)?;
        let records = write(&mut out).await?;
        out.finish().map_err(ExportError::Write)?;
        Ok(records)
    })
    .await?;
    Ok(Exported {
        path: Some(path.to_owned()),
        contacts: records,
        records,
        files: Vec::new(),
    })
}

/// Writes `text` to the file `path`, which takes the name only when whole and on disk.
pub async fn text_to_file(path: &Path, text: &str) -> Result<(), ExportError> {
    atomic_file(path, async |file| {
        file.write_all(text.as_bytes())
            .map_err(ExportError::Write)?;
        Ok(0)
    })
    .await
    .map(|_| ())
}

/// Writes `path` through `write` into a file beside it that takes the name only when whole
/// and on disk, so an interrupted export never leaves a short file under the real name.
async fn atomic_file(
    path: &Path,
    write: impl AsyncFnOnce(&mut BufWriter<File>) -> Result<u64, ExportError>,
) -> Result<u64, ExportError> {
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(".part");
    let tmp = path.with_file_name(name);
    let failed = |at: &Path, e: std::io::Error| {
        ExportError::Io(format!("cannot write {}: {e}", at.display()))
    };
    let result = async {
        let file = File::create(&tmp).map_err(|e| failed(&tmp, e))?;
        let mut out = BufWriter::new(file);
        let records = write(&mut out).await.map_err(|e| match e {
            ExportError::Write(e) => failed(&tmp, e),
            other => other,
        })?;
        let file = out.into_inner().map_err(|e| failed(&tmp, e.into_error()))?;
        file.sync_all().map_err(|e| failed(&tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| failed(path, e))?;
        Ok(records)
    }
    .await;
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_counted_however_the_stream_is_cut() {
        let text = b"ADIF export\n<EOH>\n<CALL:2>K1 <EOR>\n<CALL:5>A<EOR> <EOR>\n<EOR>\n<EOR>\n";
        for size in 1..=text.len() {
            let mut count = RecordCount::new(Format::Adi);
            for chunk in text.chunks(size) {
                count.feed(chunk);
            }
            assert_eq!(count.count, 4, "chunks of {size}");
        }
    }
}
