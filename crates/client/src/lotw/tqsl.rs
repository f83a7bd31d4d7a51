//! TQSL, ARRL's program that signs a log with the user's LoTW certificate and uploads it: the
//! one way a QSO reaches LoTW. `svc lotw upload` writes the contacts not yet sent as an ADIF
//! file, runs `tqsl` in batch mode on it and reads what it answered ([`judge`]).
//!
//! TQSL's command line and exit codes are its help's "Command Line Interface" page
//! (Debian: /usr/share/TrustedQSL/help/tqslapp/cmdline.htm): `-q` batch mode, status on
//! stderr, its last line `Final Status: Description(Code)`; `-d` no date-range dialog; `-u`
//! upload; `-a compliant` leave out, silently, QSOs already uploaded or out of the date range;
//! `-l` the station location, which holds the station's details (grid, zones, DXCC).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use svc_adif::{Format, Writer};
use svc_model::Contact;

/// The program's name, looked up on PATH.
const PROGRAM: &str = "tqsl";

/// What installing TQSL takes, for the message of a machine without it.
const INSTALL: &str = "on Debian or Ubuntu: sudo apt install trustedqsl; elsewhere, from ARRL's TQSL download page, https://www.arrl.org/tqsl-download";

/// The fields of a contact's ADIF record the upload file keeps: what TQSL signs. The station's
/// own details come from TQSL's station location, so none of the MY_ fields go.
const SIGNED: &[&str] = &[
    "CALL",
    "QSO_DATE",
    "TIME_ON",
    "BAND",
    "FREQ",
    "MODE",
    "SUBMODE",
    "PROP_MODE",
    "SAT_NAME",
    "BAND_RX",
    "FREQ_RX",
    "STATION_CALLSIGN",
];

/// Words of TQSL's output that say an upload (or the signing before it) failed, whatever its
/// exit code: TQSL 2.6 exits 8 ("No QSOs written") when no certificate of the station
/// location's callsign is installed, after "Signing aborted", as it does when every QSO was
/// uploaded before; some versions exit 0 when LoTW could not be reached. A QSO TQSL cannot sign
/// is left out with its error "on line N", and LoTW does not have it either.
const FAILURE_WORDS: &[&str] = &[
    "signing aborted",
    "signing cancelled",
    "no valid callsign certificate",
    "unable to upload",
    "couldn't upload",
    "upload was rejected",
    "unexpected response",
    "unable to connect",
    "upload cancelled",
    " on line ",
];

/// Why an upload through TQSL failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TqslError {
    /// `tqsl` is not on PATH.
    #[error("{0}")]
    Missing(String),
    /// No station location was named and TQSL has no single one to take.
    #[error("{0}")]
    NoLocation(String),
    /// TQSL ran and did not upload; its exit code, when it exited.
    #[error("{message}")]
    Failed { code: Option<i32>, message: String },
    /// The upload file could not be written, or TQSL not started.
    #[error("{0}")]
    Io(String),
}

/// What each of TQSL's exit codes means, as its help names them.
pub fn meaning(code: i32) -> &'static str {
    match code {
        0 => "success",
        1 => "cancelled",
        2 => "rejected by LoTW",
        3 => "unexpected response from the LoTW server",
        4 => "TQSL error",
        5 => "TQSL library error",
        6 => "unable to open the input file",
        7 => "unable to open the output file",
        8 => "no QSOs written: all were already uploaded",
        9 => "some QSOs were already uploaded and left out",
        10 => "command syntax error (an unknown station location, say)",
        11 => "LoTW connection error: no network, or LoTW is unreachable",
        12 => "unknown",
        13 => "TQSL's duplicates database is locked",
        _ => "not one of TQSL's exit codes",
    }
}

/// `tqsl` on PATH.
pub fn find() -> Result<PathBuf, TqslError> {
    let missing = || {
        TqslError::Missing(format!(
            "TQSL (the {PROGRAM} program) is not installed or not on PATH; it signs and uploads to LoTW with your certificate: install it ({INSTALL}), set up your callsign certificate and station location in it, then run svc lotw upload again"
        ))
    };
    let path = std::env::var_os("PATH").ok_or_else(missing)?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(PROGRAM))
        .find(|p| is_executable(p))
        .ok_or_else(missing)
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// TQSL's folder: `$TQSLDIR`, else `~/.tqsl`, as TQSL finds it.
fn tqsl_dir() -> Option<PathBuf> {
    match std::env::var_os("TQSLDIR") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".tqsl")),
    }
}

/// The names of TQSL's station locations, from its `station_data` file.
fn locations(station_data: &str) -> Vec<String> {
    station_data
        .split("<StationData")
        .skip(1)
        .filter_map(|tag| {
            let tag = &tag[..tag.find('>')?];
            let (_, rest) = tag.split_once("name=\"")?;
            let name = &rest[..rest.find('"')?];
            Some(
                name.replace("&quot;", "\"")
                    .replace("&apos;", "'")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&amp;", "&"),
            )
        })
        .collect()
}

/// The station location to sign with when none is named: TQSL's only one. TQSL itself asks
/// in a dialog when it is not told, which a batch run cannot answer.
pub fn default_location() -> Result<String, TqslError> {
    let file = tqsl_dir().map(|dir| dir.join("station_data"));
    let text = file
        .as_ref()
        .and_then(|f| std::fs::read_to_string(f).ok())
        .unwrap_or_default();
    let mut names = locations(&text);
    match names.len() {
        1 => Ok(names.remove(0)),
        0 => Err(TqslError::NoLocation(
            "TQSL has no station location: add one in TQSL (Station Locations, Create New Station Location) with your callsign certificate, then run svc lotw upload --station-location NAME".into(),
        )),
        n => Err(TqslError::NoLocation(format!(
            "TQSL has {n} station locations ({}): name the one to sign with, svc lotw upload --station-location NAME",
            names.join(", ")
        ))),
    }
}

/// Writes the contacts into an upload file in a folder of its own, has TQSL sign and upload
/// it, and judges TQSL's answer; the folder goes when this returns.
pub fn sign_and_upload(
    program: &Path,
    location: &str,
    contacts: &[Contact],
    account_callsign: &str,
) -> Result<Uploaded, TqslError> {
    let dir = tempfile::Builder::new()
        .prefix("svc-lotw-")
        .tempdir()
        .map_err(|e| TqslError::Io(format!("cannot make a folder for TQSL's file: {e}")))?;
    let file = dir.path().join("svc-lotw-upload.adi");
    write_file(&file, contacts, account_callsign)?;
    upload(program, location, &file)
}

/// Writes the upload file: a record per contact with what TQSL signs (svc's own ADIF writer,
/// the fields as every export writes them).
fn write_file(path: &Path, contacts: &[Contact], account_callsign: &str) -> Result<(), TqslError> {
    let fail = |e: std::io::Error| TqslError::Io(format!("cannot write {}: {e}", path.display()));
    let file = std::fs::File::create(path).map_err(fail)?;
    let mut out = Writer::with_format(
        std::io::BufWriter::new(file),
        chrono::Utc::now(),
        Format::Adi,
    )
    .map_err(fail)?;
    for contact in contacts {
        let mut record = svc_adif::Record::default();
        for (name, value) in svc_adif::contact::fields_for(contact, account_callsign) {
            if SIGNED.contains(&name) {
                record.push(name, value.into_owned());
            }
        }
        out.record(&record).map_err(fail)?;
    }
    let mut file = out.finish().map_err(fail)?;
    std::io::Write::flush(&mut file).map_err(fail)
}

/// How an upload TQSL accepted went: its exit code, 0, 8 or 9.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Uploaded {
    pub code: i32,
}

/// Runs `tqsl -q -d -u -a compliant -l LOCATION FILE` and judges what it answered.
fn upload(program: &Path, location: &str, file: &Path) -> Result<Uploaded, TqslError> {
    let output = Command::new(program)
        .args(["-q", "-d", "-u", "-a", "compliant", "-l", location])
        .arg(file)
        // TQSL has no use for svc's key, and a program need not hold what it cannot use.
        .env_remove("SVC_API_KEY")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| TqslError::Io(format!("cannot run {}: {e}", program.display())))?;
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    judge(output.status.code(), &text)
}

/// The code of TQSL's last `Final Status: Description(Code)` line, if it wrote one.
fn final_status(output: &str) -> Option<i32> {
    let line = output.lines().rev().find(|l| l.contains("Final Status:"))?;
    let inner = line.trim_end().strip_suffix(')')?;
    inner[inner.rfind('(')? + 1..].trim().parse().ok()
}

/// What TQSL said, without the toolkit's warnings: its last few lines, for a message.
fn said(output: &str) -> String {
    let lines: Vec<&str> = output
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with("(tqsl:")
                && !l.contains("Gtk-WARNING")
                && !l.contains("Pango-CRITICAL")
        })
        .collect();
    let from = lines.len().saturating_sub(6);
    lines[from..].join(" / ")
}

/// Whether TQSL uploaded: its exit code 0, 8 or 9 (LoTW has every QSO of the file: uploaded
/// now, or before), the `Final Status` it wrote agreeing, and none of [`FAILURE_WORDS`] in its
/// output. Anything else is a failure that names TQSL's code and what it said.
pub fn judge(code: Option<i32>, output: &str) -> Result<Uploaded, TqslError> {
    let accepted = |c: i32| matches!(c, 0 | 8 | 9);
    let told = said(output);
    let Some(code) = code else {
        return Err(TqslError::Failed {
            code: None,
            message: format!(
                "TQSL was ended by a signal before it finished; nothing was marked sent (TQSL said: {told})"
            ),
        });
    };
    let status = final_status(output);
    let worst = match status {
        Some(s) if accepted(code) && !accepted(s) => s,
        _ => code,
    };
    if !accepted(worst) {
        return Err(TqslError::Failed {
            code: Some(worst),
            message: format!(
                "TQSL failed with exit code {worst}, {}; nothing was marked sent (TQSL said: {told})",
                meaning(worst)
            ),
        });
    }
    let lower = output.to_lowercase();
    if let Some(word) = FAILURE_WORDS.iter().find(|w| lower.contains(**w)) {
        return Err(TqslError::Failed {
            code: Some(code),
            message: format!(
                "TQSL exited {code} ({}) but said the upload failed (\"{}\"); nothing was marked sent (TQSL said: {told})",
                meaning(code),
                word.trim()
            ),
        });
    }
    Ok(Uploaded { code })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tqsl_s_answers_are_judged() {
        assert_eq!(
            judge(
                Some(0),
                "Attempting to upload 2 QSOs\nFinal Status: Success(0)\n"
            ),
            Ok(Uploaded { code: 0 })
        );
        assert_eq!(judge(Some(9), ""), Ok(Uploaded { code: 9 }));
        // TQSL 2.6.5 with a station location and no certificate, as it ran headless.
        let no_cert = "TQSL Version 2.6.5 [unknown]\nThere are no valid callsign certificates for callsign W1AW in entity -NONE-.\nSigning aborted.\nNo records to upload\nFinal Status: No QSOs written(8)\n";
        let Err(TqslError::Failed { code, message }) = judge(Some(8), no_cert) else {
            panic!("an aborted signing is no upload");
        };
        assert_eq!(code, Some(8));
        assert!(message.contains("signing aborted"), "{message}");
        // An exit code that says success with a Final Status that does not.
        let Err(TqslError::Failed { code, message }) =
            judge(Some(0), "Final Status: LoTW Connection Failed(11)\n")
        else {
            panic!("a connection failure is no upload");
        };
        assert_eq!(code, Some(11));
        assert!(message.contains("LoTW connection error"), "{message}");
        let Err(TqslError::Failed { code, .. }) = judge(Some(10), "") else {
            panic!("10 is a failure");
        };
        assert_eq!(code, Some(10));
        assert!(matches!(
            judge(None, ""),
            Err(TqslError::Failed { code: None, .. })
        ));
    }

    #[test]
    fn station_locations_are_read_from_tqsl_s_file() {
        let text = r#"<?xml version="1.0"?>
<StationDataFile>
  <StationData name="Home &amp; away"><CALL>W1AW</CALL></StationData>
  <StationData name="Portable"><CALL>W1AW/P</CALL></StationData>
</StationDataFile>"#;
        assert_eq!(locations(text), ["Home & away", "Portable"]);
        assert!(locations("").is_empty());
        assert!(locations("<StationData name=\"cut").is_empty());
    }
}
