//! Contacts (QSOs), the rules a new one must pass in its destination folder (docs/API.md, contact
//! rules 1–8; the cap and rate limits are enforced by the store), and edits, which must leave a
//! contact that a create would have taken.

use serde::{Deserialize, Serialize};

use super::band::{Frequency, band_for_mhz, read_frequency, read_mhz};
use super::callsign::normalize_callsign;
use super::contest::{Contest, ContestLog};
use super::dxcc::{Dxcc, ENTITY_FIELDS};
use super::fields::{Field, Fields, FieldsPatch};
use super::filing::{Filed, Qso};
use super::folder::{Folder, FolderRole, FolderType};
use super::mode::check_mode;
use super::program::{Program, normalize_reference_list};
use super::seed::{self, Seed};
use super::text::{multi_line, single_line, token};
use super::time::Timestamp;
use super::{ApiError, IdKind};

/// A stored contact as the API returns it. An optional field with no value is left out rather
/// than sent as null, which the published 0.2.0 client's output schemas refuse; it is read back
/// as absent either way, so an older server's nulls still read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Contact {
    pub id: String,
    pub folder_id: String,
    pub callsign: String,
    /// MHz.
    pub frequency: f64,
    pub band: String,
    pub mode: String,
    pub time_on: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rst_sent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rst_received: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sig: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sig_info: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub my_sig: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub my_sig_info: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activation_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub station_callsign: Option<String>,
    /// The fields beyond the seed's (model::fields), on the wire beside the others.
    #[serde(flatten)]
    pub fields: Fields,
    pub created_at: Timestamp,
    /// The first stored contact of the folder with the same duplicate key (rule 7), when that
    /// is another one; absent otherwise. Read from the folder as it is now, so an edit of either
    /// contact moves it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
    /// Where the contact went in the account's external logbooks; absent when nowhere.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub external: Vec<super::ExternalCopy>,
}

/// The optional field of the seed that `seed` declares, in `$contact`: a [`ContactInput`] or a
/// [`ContactPatch`], whose fields have the same names. The one place a seed field's name meets
/// its struct field.
macro_rules! optional_slot {
    ($contact:expr, $seed:expr) => {
        Some(match $seed.wire {
            w if w == seed::RST_SENT.wire => &mut $contact.rst_sent,
            w if w == seed::RST_RECEIVED.wire => &mut $contact.rst_received,
            w if w == seed::NAME.wire => &mut $contact.name,
            w if w == seed::NOTES.wire => &mut $contact.notes,
            w if w == seed::SIG.wire => &mut $contact.sig,
            w if w == seed::SIG_INFO.wire => &mut $contact.sig_info,
            w if w == seed::MY_SIG.wire => &mut $contact.my_sig,
            w if w == seed::MY_SIG_INFO.wire => &mut $contact.my_sig_info,
            w if w == seed::STATION_CALLSIGN.wire => &mut $contact.station_callsign,
            w if w == seed::ACTIVATION_ID.wire => &mut $contact.activation_id,
            _ => return None,
        })
    };
}

/// A new contact, fields still unchecked: the body of `POST /v1/contacts` in both directions.
/// Clients send it, the offline journal keeps it as JSON, and the service reads it (with its
/// own strict reading of each field's type, which names the field at fault) before
/// [`NewContact::validate`] applies the folder's rules.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContactInput {
    pub folder_id: String,
    pub callsign: String,
    /// MHz as the user gave it; the service reads kHz-sized values as kHz.
    pub frequency: f64,
    pub mode: String,
    pub time_on: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rst_sent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rst_received: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sig: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sig_info: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub my_sig: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub my_sig_info: Option<String>,
    /// The own station's callsign when it is not the account's (an import of another
    /// station's log); an activation folder sets it to the activator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub station_callsign: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activation_id: Option<String>,
    /// The fields beyond the seed's (model::fields) and the `adif` map, beside them on the
    /// wire; checked already as they were read.
    #[serde(flatten)]
    pub fields: Fields,
    /// The contact comes from another logger's file (an import): its frequency is MHz
    /// whatever its size, as ADIF's FREQ is, and a mode ADIF does not know is kept as the
    /// logger wrote it. Never on the wire: the service sets it for a batch marked `import`.
    #[serde(skip)]
    pub from_file: bool,
}

impl ContactInput {
    /// What the filing rule reads of this contact.
    pub fn filed(&self) -> Filed<'_> {
        Filed {
            time_on: &self.time_on,
            sig: self.sig.as_deref(),
            my_sig: self.my_sig.as_deref(),
            my_sig_info: self.my_sig_info.as_deref(),
            station_callsign: self.station_callsign.as_deref(),
            contest_id: self.fields.get(Field::ContestId),
        }
    }

    /// The optional text field of the seed that `seed` declares (`None` for the required
    /// ones and the frequency), so that a surface reads or sets each by walking
    /// [`seed::SEED`] rather than naming every field.
    pub fn text_mut(&mut self, seed: &Seed) -> Option<&mut Option<String>> {
        optional_slot!(self, seed)
    }

    /// The contact this input stands for before the service has stored it (a contact waiting
    /// in the journal), with this id and as the service will store it where that is known
    /// without its folder: the band from the frequency, the mode upper-cased. What the service
    /// works out for itself (the activation, the station callsign, duplicates) is left empty
    /// until it is read back.
    pub fn pending(&self, id: &str, logged_at: Timestamp) -> Contact {
        Contact {
            id: id.to_owned(),
            folder_id: self.folder_id.clone(),
            callsign: self.callsign.clone(),
            frequency: self.frequency,
            band: band_for_mhz(self.frequency).unwrap_or("?").to_owned(),
            mode: self.mode.to_ascii_uppercase(),
            time_on: Timestamp::parse("timeOn", &self.time_on).unwrap_or(logged_at),
            rst_sent: self.rst_sent.clone(),
            rst_received: self.rst_received.clone(),
            name: self.name.clone(),
            notes: self.notes.clone(),
            sig: self.sig.clone(),
            sig_info: self.sig_info.clone(),
            my_sig: self.my_sig.clone(),
            my_sig_info: self.my_sig_info.clone(),
            activation_id: None,
            station_callsign: None,
            fields: self.fields.clone(),
            created_at: logged_at,
            duplicate_of: None,
            external: Vec::new(),
        }
    }
}

/// A contact that passed every rule of its folder, ready to store.
#[derive(Debug, Clone, PartialEq)]
pub struct NewContact {
    pub folder_id: String,
    pub callsign: String,
    pub frequency: Frequency,
    pub mode: String,
    pub time_on: Timestamp,
    pub rst_sent: Option<String>,
    pub rst_received: Option<String>,
    pub name: Option<String>,
    pub notes: Option<String>,
    pub sig: Option<String>,
    pub sig_info: Option<String>,
    pub my_sig: Option<String>,
    pub my_sig_info: Option<String>,
    pub station_callsign: Option<String>,
    pub activation_id: Option<String>,
    pub fields: Fields,
    /// Set in program folders for contacts with program identity: two contacts of one folder
    /// with the same key are duplicates (rule 7).
    pub dupe_key: Option<String>,
}

/// The rule an optional text field of the seed keeps whatever the rest of the contact says: a
/// report's letters, digits and signs, one line of name or reference, the notes' lines, a
/// program's name, a station's callsign; the value as it is kept (trimmed, a report, program or
/// callsign upper-cased), `None` when blank (a blank station callsign is refused).
/// [`NewContact::validate`] applies it to each, and
/// an import drops a field that breaks it rather than the whole contact. Any other field of
/// the seed has rules of its own and is checked as one line here.
pub fn check_seed_text(field: Seed, raw: &str) -> Result<Option<String>, ApiError> {
    let (wire, max) = (field.wire, field.max);
    if field == seed::RST_SENT || field == seed::RST_RECEIVED {
        token(wire, raw, max, "+-", "599 or -12")
    } else if field == seed::SIG || field == seed::MY_SIG {
        token(wire, raw, max, "-_", "POTA")
    } else if field == seed::NOTES {
        multi_line(wire, raw, max)
    } else if field == seed::STATION_CALLSIGN {
        normalize_callsign(wire, raw).map(Some)
    } else {
        single_line(wire, raw, max)
    }
}

/// The rule a worked station's program and reference keep together: a POTA contact names the
/// worked park or parks (`US-0001,US-0002`), which are returned normalised; any other
/// program's reference is returned as given. [`NewContact::validate`] applies it, and an import
/// drops the two rather than the contact.
pub fn check_worked_reference(
    sig: Option<&str>,
    sig_info: Option<&str>,
) -> Result<Option<String>, ApiError> {
    if sig.and_then(Program::from_sig) != Some(Program::Pota) {
        return Ok(sig_info.map(str::to_owned));
    }
    let info = sig_info.ok_or_else(|| {
        ApiError::field(
            "sigInfo",
            "sig POTA needs sigInfo with the worked park's reference, e.g. US-1234",
        )
    })?;
    normalize_reference_list("sigInfo", info).map(Some)
}

fn opt<T>(
    value: &Option<String>,
    check: impl FnOnce(&str) -> Result<Option<T>, ApiError>,
) -> Result<Option<T>, ApiError> {
    match value {
        Some(v) => check(v),
        None => Ok(None),
    }
}

impl NewContact {
    /// Applies the folder rules to a contact bound for `folder` (already known to be the
    /// requester's and to be `input.folder_id`).
    pub fn validate(
        input: &ContactInput,
        folder: &Folder,
        now: Timestamp,
    ) -> Result<NewContact, ApiError> {
        Self::check(input, None, None, folder, now)
    }

    /// Names `account` (the account's callsign) as the operator of a new contact made on the
    /// air under another call: a club station's (K1CLB, worked by the member W1XYZ), or the
    /// account's own call with a prefix or suffix (W1XYZ/P). POTA and LoTW credit OPERATOR when
    /// a record has it and STATION_CALLSIGN when not, so without it a club activation would
    /// credit the club and not the member. An operator the contact names (a field, or the
    /// `adif` map's OPERATOR as a file wrote it) is kept, and a contact of the account's own
    /// call, or with no station callsign, is left without one, as before. The service applies
    /// it to every create (single, batch, import, an external logbook's import), not to edits,
    /// which change only what they name.
    pub fn credit_operator(&mut self, account: &str) {
        let Some(station) = self.station_callsign.as_deref() else {
            return;
        };
        // The `adif` map's names are upper-case (`check_adif_entry`).
        let named =
            self.fields.get(Field::Operator).is_some() || self.fields.adif.contains_key("OPERATOR");
        if named || station.eq_ignore_ascii_case(account.trim()) {
            return;
        }
        // The account's callsign was checked when the account was made; one that is not a
        // callsign now (an old account) names nobody rather than failing the create.
        if let Ok(Some(operator)) = Field::Operator.def().check(account) {
            self.fields.set(Field::Operator, Some(operator));
        }
    }

    /// [`NewContact::validate`], with the frequency already read when `read` is given (then
    /// `input.frequency` is not looked at), and likewise the mode when `kept_mode` is.
    fn check(
        input: &ContactInput,
        read: Option<Frequency>,
        kept_mode: Option<String>,
        folder: &Folder,
        now: Timestamp,
    ) -> Result<NewContact, ApiError> {
        let role = folder.role()?;
        match role {
            FolderRole::Root => {
                return Err(ApiError::field(
                    "folderId",
                    format!(
                        "{} ({}) is the root container and holds no contacts; log into a monthly or activation folder",
                        folder.name, folder.id
                    ),
                ));
            }
            FolderRole::Category => {
                return Err(ApiError::field(
                    "folderId",
                    format!(
                        "{} ({}) is a category folder and holds no contacts; log into a monthly or activation folder",
                        folder.name, folder.id
                    ),
                ));
            }
            _ => {}
        }

        let callsign = normalize_callsign("callsign", &input.callsign)?;
        let frequency = match read {
            Some(frequency) => frequency,
            None if input.from_file => read_mhz("frequency", input.frequency)?,
            None => read_frequency("frequency", input.frequency)?,
        };
        let mode = match kept_mode {
            Some(mode) => mode,
            None => check_mode("mode", &input.mode, input.from_file)?,
        };
        let time_on = Timestamp::parse_plausible("timeOn", &input.time_on, now)?;
        let text = |f: Seed, v: &Option<String>| opt(v, |v| check_seed_text(f, v));
        let rst_sent = text(seed::RST_SENT, &input.rst_sent)?;
        let mut rst_received = text(seed::RST_RECEIVED, &input.rst_received)?;
        let mut name = text(seed::NAME, &input.name)?;
        let notes = text(seed::NOTES, &input.notes)?;
        let sig = text(seed::SIG, &input.sig)?;
        let sig_info = text(seed::SIG_INFO, &input.sig_info)?;
        let mut my_sig = text(seed::MY_SIG, &input.my_sig)?;
        let mut my_sig_info = text(seed::MY_SIG_INFO, &input.my_sig_info)?;
        let mut station_callsign = text(seed::STATION_CALLSIGN, &input.station_callsign)?;
        let mut activation_id = opt(&input.activation_id, |v| {
            IdKind::Folder.parse("activationId", v).map(Some)
        })?;

        if sig_info.is_some() && sig.is_none() {
            return Err(ApiError::field(
                "sigInfo",
                "sigInfo was given without sig; add sig (e.g. POTA) or drop sigInfo",
            ));
        }
        if my_sig_info.is_some() && my_sig.is_none() {
            return Err(ApiError::field(
                "mySigInfo",
                "mySigInfo was given without mySig; add mySig (e.g. POTA) or drop mySigInfo",
            ));
        }
        let sig_program = sig.as_deref().and_then(Program::from_sig);
        let my_sig_program = my_sig.as_deref().and_then(Program::from_sig);
        let sig_info = check_worked_reference(sig.as_deref(), sig_info.as_deref())?;

        let program_folder = match &role {
            FolderRole::CustomMonthly { month } | FolderRole::HuntingMonthly { month, .. } => {
                let contact_month = time_on.utc_month();
                if &contact_month != month {
                    return Err(ApiError::field(
                        "timeOn",
                        format!(
                            "timeOn {time_on} is in {contact_month} (UTC) but folder {} is the {month} log; log it into the {contact_month} folder",
                            folder.name
                        ),
                    ));
                }
                if activation_id.is_some() {
                    return Err(ApiError::field(
                        "activationId",
                        format!(
                            "folder {} is not an activation; drop activationId",
                            folder.name
                        ),
                    ));
                }
                if let FolderRole::HuntingMonthly { program, .. } = &role {
                    if let Some(s) = &sig
                        && sig_program != Some(*program)
                    {
                        return Err(ApiError::field(
                            "sig",
                            format!(
                                "folder {} is the {} hunting log; sig {s} contradicts it: send sig {} or log into another folder",
                                folder.name,
                                program.category_name(),
                                program.sig()
                            ),
                        ));
                    }
                    if let (Some(s), Some(_)) = (&my_sig, my_sig_program) {
                        return Err(ApiError::field(
                            "mySig",
                            format!(
                                "mySig {s} marks an activation; log it into the activation's folder, not the hunting log {}",
                                folder.name
                            ),
                        ));
                    }
                    true
                } else {
                    for (field, value, program) in [
                        ("sig", &sig, sig_program),
                        ("mySig", &my_sig, my_sig_program),
                    ] {
                        if let (Some(v), Some(p)) = (value, program) {
                            return Err(ApiError::field(
                                field,
                                format!(
                                    "{field} {v} names the {} program; such contacts belong in the program's own folder, not the custom folder {}",
                                    p.category_name(),
                                    folder.name
                                ),
                            ));
                        }
                    }
                    false
                }
            }
            FolderRole::Activation {
                program,
                reference,
                callsign: activator,
            } => {
                if let Some(v) = &my_sig
                    && my_sig_program != Some(*program)
                {
                    return Err(ApiError::field(
                        "mySig",
                        format!(
                            "mySig {v} contradicts activation {}: it is {}; drop mySig or send {}",
                            folder.name,
                            program.sig(),
                            program.sig()
                        ),
                    ));
                }
                if let Some(v) = &my_sig_info
                    && normalize_reference_list("mySigInfo", v).ok().as_deref()
                        != Some(reference.as_str())
                {
                    return Err(ApiError::field(
                        "mySigInfo",
                        format!(
                            "mySigInfo {v} contradicts activation {}: its reference is {reference}; drop mySigInfo or send {reference}",
                            folder.name
                        ),
                    ));
                }
                if let Some(v) = &activation_id
                    && v != &folder.id
                {
                    return Err(ApiError::field(
                        "activationId",
                        format!(
                            "activationId {v} contradicts the destination folder {}; drop activationId",
                            folder.id
                        ),
                    ));
                }
                if let Some(v) = &station_callsign
                    && v != activator
                {
                    return Err(ApiError::field(
                        "stationCallsign",
                        format!(
                            "stationCallsign {v} contradicts activation {}: its activator is {activator}; drop stationCallsign or send {activator}",
                            folder.name
                        ),
                    ));
                }
                my_sig = Some(program.sig().to_owned());
                my_sig_info = Some(reference.clone());
                activation_id = Some(folder.id.clone());
                station_callsign = Some(activator.clone());
                true
            }
            FolderRole::Contest {
                callsign: station, ..
            } => {
                if activation_id.is_some() {
                    return Err(ApiError::field(
                        "activationId",
                        format!(
                            "folder {} is a contest log, not an activation; drop activationId",
                            folder.name
                        ),
                    ));
                }
                if let Some(v) = &station_callsign
                    && v != station
                {
                    return Err(ApiError::field(
                        "stationCallsign",
                        format!(
                            "stationCallsign {v} contradicts contest log {}: it is sent under {station}; drop stationCallsign or send {station}",
                            folder.name
                        ),
                    ));
                }
                station_callsign = Some(station.clone());
                false
            }
            FolderRole::Root | FolderRole::Category => unreachable!("refused above"),
        };

        let mut fields = input.fields.clone();
        let has_program_identity = sig.is_some() || my_sig.is_some();
        let dupe_key = if let FolderRole::Contest { contest, log, .. } = &role {
            contest_fields(
                contest,
                log,
                &folder.name,
                &mode,
                rst_sent.as_deref(),
                &mut fields,
            )?;
            // A received exchange kept as one string alone (WSJT-X's Field Day and RTTY
            // Roundup QSOs, another logger's file) is read into the contest's fields.
            for (adif, value) in exchange_of(contest, &fields) {
                match adif {
                    "RST_RCVD" => rst_received = rst_received.or(Some(value)),
                    "NAME" => name = name.or(Some(value)),
                    other => {
                        if let Some(field) = Field::by_adif(other) {
                            fields.set(field, Some(value));
                        }
                    }
                }
            }
            Some(contest.dupe_key(&callsign, frequency.band, &mode))
        } else {
            (program_folder && has_program_identity).then(|| {
                dupe_key(
                    &callsign,
                    frequency.band,
                    &mode,
                    sig.as_deref(),
                    sig_info.as_deref(),
                    time_on,
                )
            })
        };

        Ok(NewContact {
            folder_id: folder.id.clone(),
            callsign,
            frequency,
            mode,
            time_on,
            rst_sent,
            rst_received,
            name,
            notes,
            sig,
            sig_info,
            my_sig,
            my_sig_info,
            station_callsign,
            activation_id,
            fields,
            dupe_key,
        })
    }
}

/// A contest log's contact carries its contest's ADIF CONTEST_ID and the exchange it sent
/// (STX_STRING): the log's, with the contact's serial number (STX) and report. A contact that
/// names another contest is refused; one that brings its own sent exchange (an imported log)
/// keeps it.
fn contest_fields(
    contest: &Contest,
    log: &ContestLog,
    folder: &str,
    mode: &str,
    rst_sent: Option<&str>,
    fields: &mut Fields,
) -> Result<(), ApiError> {
    match fields.get(Field::ContestId) {
        Some(given) if Contest::find(given).is_none_or(|c| c.id != contest.id) => {
            return Err(ApiError::field(
                "contestId",
                format!(
                    "contestId {given} contradicts contest log {folder}, a {} log ({}); drop contestId or log into another folder",
                    contest.name, contest.adif
                ),
            ));
        }
        Some(_) => {}
        None => fields.set(Field::ContestId, Some(contest.adif.clone())),
    }
    if fields.get(Field::StxString).is_none()
        && let Some(sent) =
            contest.sent_exchange(&log.exchange, fields.get(Field::Stx), rst_sent, mode)
    {
        fields.set(Field::StxString, Some(sent));
    }
    Ok(())
}

/// The received exchange a contest contact keeps as one string (SRX_STRING), read into the
/// contest's fields, when it has none of the fields that are not every contact's (the report
/// and name are, and fill only where empty); nothing when the string is not the exchange.
fn exchange_of(contest: &'static Contest, fields: &Fields) -> Vec<(&'static str, String)> {
    let Some(typed) = fields.get(Field::SrxString) else {
        return Vec::new();
    };
    let has_any = contest
        .exchange
        .iter()
        .filter_map(|f| Field::by_adif(&f.field))
        .any(|f| fields.get(f).is_some());
    if has_any {
        return Vec::new();
    }
    contest.read_exchange(typed).unwrap_or_default()
}

/// The duplicate key (docs/API.md, "Duplicates"): two contacts with the same key are one
/// contact logged twice. It is the worked callsign, band, mode, worked program and reference,
/// and UTC day, each as a stored contact holds it (upper-case callsign, mode and program). The
/// service keys the contacts of program folders that carry program identity; the logbook's
/// form warns with the same key in every log.
pub fn dupe_key(
    callsign: &str,
    band: &str,
    mode: &str,
    sig: Option<&str>,
    sig_info: Option<&str>,
    time_on: Timestamp,
) -> String {
    format!(
        "{callsign}|{band}|{mode}|{}|{}|{}",
        sig.unwrap_or_default(),
        sig_info.unwrap_or_default(),
        time_on.utc_day()
    )
}

impl Contact {
    /// The QSO this contact is, whatever park it was logged at ([`Qso`]).
    pub fn qso(&self) -> Qso {
        Qso::new(&self.callsign, &self.band, &self.mode, self.time_on)
    }

    /// This stored contact's [`dupe_key`], whatever its folder.
    pub fn dupe_key(&self) -> String {
        dupe_key(
            &self.callsign,
            &self.band,
            &self.mode,
            self.sig.as_deref(),
            self.sig_info.as_deref(),
            self.time_on,
        )
    }
}

impl Contact {
    /// The stored contact as a create would send it: its folder and the fields it was given
    /// (what the service worked out, the station callsign and the activation among them,
    /// stays behind).
    pub fn input(&self) -> ContactInput {
        ContactInput {
            folder_id: self.folder_id.clone(),
            callsign: self.callsign.clone(),
            frequency: self.frequency,
            mode: self.mode.clone(),
            time_on: self.time_on.to_string(),
            rst_sent: self.rst_sent.clone(),
            rst_received: self.rst_received.clone(),
            name: self.name.clone(),
            notes: self.notes.clone(),
            sig: self.sig.clone(),
            sig_info: self.sig_info.clone(),
            my_sig: self.my_sig.clone(),
            my_sig_info: self.my_sig_info.clone(),
            station_callsign: None,
            activation_id: None,
            fields: self.fields.clone(),
            from_file: false,
        }
    }
}

/// An edit of a stored contact, fields still unchecked: the body of `PATCH /v1/contacts/{id}`
/// as clients send it (only the fields to change; a cleared field is sent as null). `None` leaves a
/// field as stored; for an optional field `Some(None)` clears it. `folder_id` and
/// `activation_id` follow the contact's folder, which an edit cannot change: they may only
/// repeat what is stored.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContactPatch {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folder_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callsign: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frequency: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_on: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rst_sent: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rst_received: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sig: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sig_info: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub my_sig: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub my_sig_info: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub station_callsign: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activation_id: Option<Option<String>>,
    #[serde(flatten)]
    pub fields: FieldsPatch,
    /// The entity fields of the callsign the edit gives: set by the service from its country
    /// file ([`ContactPatch::follow_call`]), never read from a body. Applied only if the call
    /// really changes, since the stored ones were the old call's, and as a create fills them:
    /// an entity field the edit names wins, and one naming another entity's `dxcc` leaves
    /// the others empty rather than mixed; `None` clears a field the new call has no value for.
    #[serde(skip)]
    pub entity: Option<Vec<(Field, Option<String>)>>,
}

/// Whether a patched optional field asks to clear it: null, empty or blank, as a create reads
/// those.
fn clears(value: &Option<Option<String>>) -> bool {
    matches!(value, Some(v) if v.as_deref().is_none_or(|s| s.trim().is_empty()))
}

impl ContactPatch {
    /// Whether the patch names no field at all.
    pub fn is_empty(&self) -> bool {
        *self == ContactPatch::default()
    }

    /// An edit that gives the required fields `input`'s values and each optional seed field of
    /// `optional` its value in `input`, clearing the ones `input` lacks: a form's whole contact
    /// as an edit, where `optional` are the lines the form has (what it does not show stays as
    /// stored).
    pub fn replacing(mut input: ContactInput, optional: &[Seed]) -> ContactPatch {
        let mut patch = ContactPatch::default();
        for seed in optional {
            if let (Some(slot), Some(value)) = (patch.text_mut(seed), input.text_mut(seed)) {
                *slot = Some(value.take());
            }
        }
        ContactPatch {
            callsign: Some(input.callsign),
            frequency: Some(input.frequency),
            mode: Some(input.mode),
            time_on: Some(input.time_on),
            ..patch
        }
    }

    /// The optional text field of the seed that `seed` declares, as [`ContactInput::text_mut`]
    /// gives it: `Some(None)` in it clears the field.
    pub fn text_mut(&mut self, seed: &Seed) -> Option<&mut Option<Option<String>>> {
        optional_slot!(self, seed)
    }

    /// Makes an edit of the callsign take the new call's entity fields (from `dxcc`) with it,
    /// as a create fills them: see [`ContactPatch::entity`].
    pub fn follow_call(&mut self, dxcc: &Dxcc) {
        if let Some(call) = &self.callsign {
            self.entity = Some(match dxcc.values(call) {
                Some(values) => values.map(|(field, value)| (field, Some(value))).to_vec(),
                None => ENTITY_FIELDS.map(|field| (field, None)).to_vec(),
            });
        }
    }

    /// The stored contact with the patch applied, checked by the rules of its folder exactly
    /// as a create is, so that an edit never leaves a contact a create would have refused.
    pub fn apply(
        &self,
        stored: &Contact,
        folder: &Folder,
        now: Timestamp,
    ) -> Result<NewContact, ApiError> {
        if let Some(id) = &self.folder_id
            && id != &stored.folder_id
        {
            return Err(ApiError::field(
                "folderId",
                format!(
                    "folderId cannot be changed: {} stays in folder {} ({}); to move it, create it in the other folder and delete this one",
                    stored.id, folder.name, folder.id
                ),
            ));
        }
        if folder.folder_type == FolderType::Activation {
            // The activation sets these (rule 5); clearing them would make a contact the
            // folder's rules never produce, and silently setting them again would answer
            // something other than what was asked.
            for (field, value) in [
                ("mySig", &self.my_sig),
                ("mySigInfo", &self.my_sig_info),
                ("stationCallsign", &self.station_callsign),
                ("activationId", &self.activation_id),
            ] {
                if clears(value) {
                    return Err(ApiError::field(
                        field,
                        format!(
                            "{field} is set by activation {} and cannot be cleared; leave {field} out",
                            folder.name
                        ),
                    ));
                }
            }
        }
        // Null, empty and blank clear every optional field alike, so a client need not know
        // that a create refuses a blank stationCallsign or activationId instead of dropping it.
        let pick = |patched: &Option<Option<String>>, kept: &Option<String>| match patched {
            Some(value) => value.clone().filter(|v| !v.trim().is_empty()),
            None => kept.clone(),
        };
        let input = ContactInput {
            folder_id: stored.folder_id.clone(),
            callsign: self
                .callsign
                .clone()
                .unwrap_or_else(|| stored.callsign.clone()),
            frequency: self.frequency.unwrap_or(stored.frequency),
            mode: self.mode.clone().unwrap_or_else(|| stored.mode.clone()),
            time_on: self
                .time_on
                .clone()
                .unwrap_or_else(|| stored.time_on.to_string()),
            rst_sent: pick(&self.rst_sent, &stored.rst_sent),
            rst_received: pick(&self.rst_received, &stored.rst_received),
            name: pick(&self.name, &stored.name),
            notes: pick(&self.notes, &stored.notes),
            sig: pick(&self.sig, &stored.sig),
            sig_info: pick(&self.sig_info, &stored.sig_info),
            my_sig: pick(&self.my_sig, &stored.my_sig),
            my_sig_info: pick(&self.my_sig_info, &stored.my_sig_info),
            station_callsign: pick(&self.station_callsign, &stored.station_callsign),
            activation_id: pick(&self.activation_id, &stored.activation_id),
            fields: {
                let mut fields = self.fields.apply(&stored.fields)?;
                // A frequency given now is known: the contact is no longer band-only.
                fields.band_only &= self.frequency.is_none();
                if let (Some(entity), Some(call)) = (&self.entity, &self.callsign)
                    && !call.trim().eq_ignore_ascii_case(stored.callsign.trim())
                {
                    let named = |field: &Field| self.fields.values.contains_key(field);
                    let given = self.fields.values.get(&Field::Dxcc).cloned().flatten();
                    let ours = entity.iter().find(|(f, _)| *f == Field::Dxcc);
                    let same = given.is_none() || ours.is_some_and(|(_, v)| *v == given);
                    for (field, value) in entity.iter().filter(|(f, _)| !named(f)) {
                        fields.set(*field, value.clone().filter(|_| same));
                    }
                }
                fields
            },
            from_file: false,
        };
        // A stored frequency is not read again: a few stored MHz values (3500, 10100–10150,
        // 144000–148000) would read as kHz the second time and move to another band.
        let kept = match self.frequency {
            Some(_) => None,
            None => band_for_mhz(stored.frequency).map(|band| Frequency {
                mhz: stored.frequency,
                band,
            }),
        };
        // Nor is a stored mode: an imported one ADIF does not know stays as the file had it,
        // and an edit of another field must not be refused for it.
        let kept_mode = self.mode.is_none().then(|| stored.mode.clone());
        NewContact::check(&input, kept, kept_mode, folder, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::folder::FolderType;

    fn now() -> Timestamp {
        Timestamp::parse("now", "2026-11-22T12:00:00Z").unwrap()
    }

    fn folder(folder_type: FolderType, program: Option<&str>, month: Option<&str>) -> Folder {
        Folder {
            id: "fld_aaaaaaaaaaaaaaaa".into(),
            name: "test".into(),
            folder_type,
            parent_id: Some("fld_rrrrrrrrrrrrrrrr".into()),
            program_id: program.map(Into::into),
            month: month.map(Into::into),
            start_time: None,
            end_time: None,
            location_reference: None,
            location_name: None,
            callsign: None,
            auto_folder_key: None,
            contest: None,
            contact_count: 0,
            created_at: Timestamp(0),
        }
    }

    fn activation() -> Folder {
        let mut f = folder(FolderType::Activation, Some("pota"), None);
        f.location_reference = Some("US-1234".into());
        f.callsign = Some("W1AW".into());
        f.start_time = Some(now());
        f
    }

    fn input() -> ContactInput {
        ContactInput {
            folder_id: "fld_aaaaaaaaaaaaaaaa".into(),
            callsign: "k1abc".into(),
            frequency: 14074.0,
            mode: "ft8".into(),
            time_on: "2026-11-22T10:00:00Z".into(),
            ..Default::default()
        }
    }

    #[test]
    fn custom_monthly_normalizes_and_has_no_dupe_key() {
        let f = folder(FolderType::Monthly, None, Some("2026-11"));
        let c = NewContact::validate(&input(), &f, now()).unwrap();
        assert_eq!(c.callsign, "K1ABC");
        assert_eq!(c.frequency.mhz, 14.074);
        assert_eq!(c.frequency.band, "20m");
        assert_eq!(c.mode, "FT8");
        assert_eq!(c.dupe_key, None);
    }

    #[test]
    fn containers_refuse_contacts() {
        let mut root = folder(FolderType::Category, None, None);
        root.parent_id = None;
        assert!(
            NewContact::validate(&input(), &root, now())
                .unwrap_err()
                .message
                .contains("root")
        );
        let cat = folder(FolderType::Category, None, None);
        assert!(
            NewContact::validate(&input(), &cat, now())
                .unwrap_err()
                .message
                .contains("category")
        );
    }

    #[test]
    fn month_must_match() {
        let f = folder(FolderType::Monthly, None, Some("2026-10"));
        let err = NewContact::validate(&input(), &f, now()).unwrap_err();
        assert!(err.message.contains("2026-11"), "{}", err.message);
    }

    #[test]
    fn custom_folder_refuses_program_tagged_contacts() {
        let f = folder(FolderType::Monthly, None, Some("2026-11"));
        for (sig, my_sig) in [
            (Some("POTA"), None),
            (None, Some("pota")),
            (Some("DX"), None),
            (Some("repeater"), None),
        ] {
            let mut i = input();
            i.sig = sig.map(Into::into);
            i.sig_info = sig.map(|_| "US-1".into());
            i.my_sig = my_sig.map(Into::into);
            i.my_sig_info = my_sig.map(|_| "US-1".into());
            assert!(
                NewContact::validate(&i, &f, now()).is_err(),
                "{sig:?} {my_sig:?}"
            );
        }
        let mut other = input();
        other.sig = Some("SOTA".into());
        other.sig_info = Some("W1/HA-001".into());
        assert!(NewContact::validate(&other, &f, now()).is_ok());
    }

    #[test]
    fn hunting_folder_checks_the_program_and_keys_duplicates() {
        let f = folder(FolderType::Monthly, Some("pota"), Some("2026-11"));
        let plain = NewContact::validate(&input(), &f, now()).unwrap();
        assert_eq!(
            plain.dupe_key, None,
            "no program identity, no duplicate detection"
        );
        let mut i = input();
        i.sig = Some("pota".into());
        i.sig_info = Some(" us-1234 ".into());
        let c = NewContact::validate(&i, &f, now()).unwrap();
        assert_eq!(c.sig_info.as_deref(), Some("US-1234"));
        assert!(
            c.dupe_key
                .as_deref()
                .unwrap()
                .starts_with("K1ABC|20m|FT8|POTA|US-1234|")
        );
        i.sig = Some("DX".into());
        assert!(NewContact::validate(&i, &f, now()).is_err());
        let mut no_info = input();
        no_info.sig = Some("POTA".into());
        assert!(NewContact::validate(&no_info, &f, now()).is_err());
    }

    #[test]
    fn activation_fills_and_refuses_contradictions() {
        let f = activation();
        let c = NewContact::validate(&input(), &f, now()).unwrap();
        assert_eq!(c.my_sig.as_deref(), Some("POTA"));
        assert_eq!(c.my_sig_info.as_deref(), Some("US-1234"));
        assert_eq!(c.activation_id.as_deref(), Some(f.id.as_str()));
        assert_eq!(c.station_callsign.as_deref(), Some("W1AW"));
        assert!(c.dupe_key.is_some());

        let mut same = input();
        same.my_sig = Some("pota".into());
        same.my_sig_info = Some("us-1234".into());
        assert!(NewContact::validate(&same, &f, now()).is_ok());

        for (field, change) in [
            (
                "mySig",
                (|i: &mut ContactInput| i.my_sig = Some("DX".into())) as fn(&mut ContactInput),
            ),
            ("mySigInfo", |i| {
                i.my_sig = Some("POTA".into());
                i.my_sig_info = Some("US-9999".into())
            }),
            ("activationId", |i| {
                i.activation_id = Some("fld_zzzzzzzzzzzzzzzz".into())
            }),
            ("stationCallsign", |i| {
                i.station_callsign = Some("N0CALL".into())
            }),
        ] {
            let mut i = input();
            change(&mut i);
            let err = NewContact::validate(&i, &f, now()).unwrap_err();
            assert_eq!(err.details.unwrap()["field"], field);
        }
    }

    #[test]
    fn malformed_activation_is_refused() {
        let mut f = activation();
        f.location_reference = Some("garbage".into());
        assert!(
            NewContact::validate(&input(), &f, now())
                .unwrap_err()
                .message
                .contains("malformed")
        );
    }

    #[test]
    fn bad_fields_name_themselves() {
        let f = folder(FolderType::Monthly, None, Some("2026-11"));
        type Change = fn(&mut ContactInput);
        let cases: [(&str, Change); 7] = [
            ("callsign", |i| i.callsign = "??".into()),
            ("frequency", |i| i.frequency = 27.185),
            ("mode", |i| i.mode = " ".into()),
            ("timeOn", |i| i.time_on = "noon".into()),
            ("rstSent", |i| i.rst_sent = Some("5 9".into())),
            ("name", |i| i.name = Some("x".repeat(seed::NAME.max + 1))),
            ("sigInfo", |i| i.sig_info = Some("US-1".into())),
        ];
        for (field, change) in cases {
            let mut i = input();
            change(&mut i);
            let err = NewContact::validate(&i, &f, now()).unwrap_err();
            assert_eq!(err.details.unwrap()["field"], field, "{}", err.message);
        }
    }

    fn stored(c: &NewContact) -> Contact {
        Contact {
            id: "qso_aaaaaaaaaaaaaaaa".into(),
            folder_id: c.folder_id.clone(),
            callsign: c.callsign.clone(),
            frequency: c.frequency.mhz,
            band: c.frequency.band.into(),
            mode: c.mode.clone(),
            time_on: c.time_on,
            rst_sent: c.rst_sent.clone(),
            rst_received: c.rst_received.clone(),
            name: c.name.clone(),
            notes: c.notes.clone(),
            sig: c.sig.clone(),
            sig_info: c.sig_info.clone(),
            my_sig: c.my_sig.clone(),
            my_sig_info: c.my_sig_info.clone(),
            activation_id: c.activation_id.clone(),
            station_callsign: c.station_callsign.clone(),
            fields: c.fields.clone(),
            created_at: Timestamp(0),
            duplicate_of: None,
            external: Vec::new(),
        }
    }

    #[test]
    fn a_stored_contact_has_the_key_it_was_stored_with() {
        let hunting = folder(FolderType::Monthly, Some("pota"), Some("2026-11"));
        let mut i = input();
        i.sig = Some("pota".into());
        i.sig_info = Some("us-0001".into());
        for (f, i) in [(hunting, i), (activation(), input())] {
            let c = NewContact::validate(&i, &f, now()).unwrap();
            assert_eq!(Some(stored(&c).dupe_key()), c.dupe_key, "{c:?}");
        }
    }

    #[test]
    fn potas_count_is_per_callsign_band_pota_mode_and_day() {
        use crate::activation::valid_contacts;
        let a = activation();
        let at = |call: &str, mhz: f64, mode: &str, time: &str| {
            let mut i = input();
            i.callsign = call.into();
            i.frequency = mhz;
            i.mode = mode.into();
            i.time_on = time.into();
            stored(&NewContact::validate(&i, &a, now()).unwrap())
        };
        let contacts = [
            at("K1ABC", 14.074, "FT8", "2026-11-22T12:00:00Z"),
            // FT4 is data as FT8 is: the same contact for POTA.
            at("K1ABC", 14.080, "FT4", "2026-11-22T12:01:00Z"),
            at("K1ABC", 14.062, "CW", "2026-11-22T12:02:00Z"),
            at("K1ABC", 14.250, "SSB", "2026-11-22T12:03:00Z"),
            at("K1ABC", 14.236, "DIGITALVOICE", "2026-11-22T12:04:00Z"),
            at("K1ABC", 7.074, "FT8", "2026-11-22T12:05:00Z"),
            // Past midnight UTC the count starts again.
            at("K1ABC", 14.074, "FT8", "2026-11-23T00:01:00Z"),
        ];
        let valid: std::collections::HashSet<_> = valid_contacts(&a, &contacts).collect();
        assert_eq!(valid.len(), 5, "{valid:?}");
        assert_eq!(valid.iter().filter(|v| v.day == now().utc_day()).count(), 4);
        // Before the activation started: not part of it.
        let mut early = contacts[0].clone();
        early.time_on = Timestamp::parse("t", "2026-11-21T23:00:00Z").unwrap();
        assert_eq!(valid_contacts(&a, [&early]).count(), 0);
    }

    #[test]
    fn a_field_with_no_value_is_left_out_and_an_older_servers_null_still_reads() {
        let f = folder(FolderType::Monthly, Some("pota"), Some("2026-11"));
        let contact = stored(&NewContact::validate(&input(), &f, now()).unwrap());
        let mut json = serde_json::to_value(&contact).unwrap();
        let fields = json.as_object().unwrap();
        assert!(fields.values().all(|v| !v.is_null()), "{json}");
        assert!(!fields.contains_key("notes"), "{json}");
        assert_eq!(
            serde_json::from_value::<Contact>(json.clone()).unwrap(),
            contact
        );
        for field in ["rstSent", "notes", "activationId", "duplicateOf"] {
            json[field] = serde_json::Value::Null;
        }
        assert_eq!(serde_json::from_value::<Contact>(json).unwrap(), contact);
    }

    #[test]
    fn an_edit_keeps_what_it_does_not_name_and_is_checked_like_a_create() {
        let f = folder(FolderType::Monthly, Some("pota"), Some("2026-11"));
        let mut i = input();
        i.sig = Some("POTA".into());
        i.sig_info = Some("US-1234".into());
        i.notes = Some("busted".into());
        let before = stored(&NewContact::validate(&i, &f, now()).unwrap());
        let patch = ContactPatch {
            callsign: Some(" k1abd ".into()),
            notes: Some(None),
            station_callsign: Some(Some(" ".into())),
            ..Default::default()
        };
        let after = patch.apply(&before, &f, now()).unwrap();
        assert_eq!(after.callsign, "K1ABD");
        assert_eq!(after.notes, None);
        assert_eq!(after.station_callsign, None);
        assert_eq!(after.sig_info.as_deref(), Some("US-1234"));
        assert_eq!(after.time_on, before.time_on);
        assert!(
            after
                .dupe_key
                .unwrap()
                .starts_with("K1ABD|20m|FT8|POTA|US-1234|")
        );

        type Case = (&'static str, fn(&mut ContactPatch));
        let refused: [Case; 5] = [
            ("timeOn", |p| {
                p.time_on = Some("2026-10-31T23:59:00Z".into())
            }),
            ("sig", |p| p.sig = Some(Some("DX".into()))),
            ("sigInfo", |p| p.sig = Some(None)),
            ("callsign", |p| p.callsign = Some("??".into())),
            ("folderId", |p| {
                p.folder_id = Some("fld_zzzzzzzzzzzzzzzz".into())
            }),
        ];
        for (field, change) in refused {
            let mut patch = ContactPatch::default();
            change(&mut patch);
            let err = patch.apply(&before, &f, now()).unwrap_err();
            assert_eq!(err.details.unwrap()["field"], field, "{}", err.message);
        }
        let same_folder = ContactPatch {
            folder_id: Some(f.id.clone()),
            ..Default::default()
        };
        assert!(same_folder.apply(&before, &f, now()).is_ok());
    }

    #[test]
    fn an_edit_does_not_read_the_stored_frequency_again() {
        let f = folder(FolderType::Monthly, None, Some("2026-11"));
        let mut i = input();
        i.frequency = 3_500_000.0;
        let before = stored(&NewContact::validate(&i, &f, now()).unwrap());
        assert_eq!((before.frequency, before.band.as_str()), (3500.0, "9cm"));
        let patch = ContactPatch {
            name: Some(Some("Ann".into())),
            ..Default::default()
        };
        let after = patch.apply(&before, &f, now()).unwrap();
        assert_eq!((after.frequency.mhz, after.frequency.band), (3500.0, "9cm"));
        let retuned = ContactPatch {
            frequency: Some(3500.0),
            ..Default::default()
        };
        let after = retuned.apply(&before, &f, now()).unwrap();
        assert_eq!(after.frequency.band, "80m");
    }

    #[test]
    fn an_edit_keeps_an_imported_mode_adif_does_not_know() {
        let f = folder(FolderType::Monthly, None, Some("2026-11"));
        let mut i = input();
        i.mode = "xyzmode".into();
        assert!(
            NewContact::validate(&i, &f, now()).is_err(),
            "refused on the API"
        );
        i.from_file = true;
        i.frequency = 14.074;
        let before = stored(&NewContact::validate(&i, &f, now()).unwrap());
        assert_eq!(before.mode, "XYZMODE", "kept from a file");
        let patch = ContactPatch {
            name: Some(Some("Ann".into())),
            ..Default::default()
        };
        assert_eq!(patch.apply(&before, &f, now()).unwrap().mode, "XYZMODE");
        let remode = ContactPatch {
            mode: Some("abcmode".into()),
            ..Default::default()
        };
        assert!(
            remode.apply(&before, &f, now()).is_err(),
            "a new mode is checked"
        );
    }

    #[test]
    fn an_edit_in_an_activation_keeps_its_identity() {
        let f = activation();
        let before = stored(&NewContact::validate(&input(), &f, now()).unwrap());
        for field in ["mySig", "mySigInfo", "stationCallsign", "activationId"] {
            let mut patch = ContactPatch::default();
            let cleared = Some(None);
            match field {
                "mySig" => patch.my_sig = cleared,
                "mySigInfo" => patch.my_sig_info = Some(Some(" ".into())),
                "stationCallsign" => patch.station_callsign = cleared,
                _ => patch.activation_id = cleared,
            }
            let err = patch.apply(&before, &f, now()).unwrap_err();
            assert_eq!(err.details.unwrap()["field"], field, "{}", err.message);
            assert!(err.message.contains("cannot be cleared"), "{}", err.message);
        }
        let other = ContactPatch {
            station_callsign: Some(Some("N0CALL".into())),
            ..Default::default()
        };
        assert!(other.apply(&before, &f, now()).is_err());
        let same = ContactPatch {
            my_sig_info: Some(Some("us-1234".into())),
            callsign: Some("K2ABC".into()),
            ..Default::default()
        };
        let after = same.apply(&before, &f, now()).unwrap();
        assert_eq!(after.activation_id.as_deref(), Some(f.id.as_str()));
        assert_eq!(after.station_callsign.as_deref(), Some("W1AW"));
    }

    #[test]
    fn another_station_call_credits_the_account_as_operator() {
        let club = activation(); // activated as W1AW
        let credited = |f: &Folder, i: &ContactInput, account: &str| {
            let mut c = NewContact::validate(i, f, now()).unwrap();
            c.credit_operator(account);
            c.fields.get(Field::Operator).map(str::to_owned)
        };
        assert_eq!(credited(&club, &input(), "w1xyz").as_deref(), Some("W1XYZ"));
        // The account's own call, in an activation or as a station callsign, names nobody.
        assert_eq!(credited(&club, &input(), "W1AW"), None);
        let monthly = folder(FolderType::Monthly, None, Some("2026-11"));
        assert_eq!(credited(&monthly, &input(), "W1XYZ"), None);
        let mut own = input();
        own.station_callsign = Some("w1xyz".into());
        assert_eq!(credited(&monthly, &own, "W1XYZ"), None);
        let mut portable = input();
        portable.station_callsign = Some("W1XYZ/P".into());
        assert_eq!(
            credited(&monthly, &portable, "W1XYZ").as_deref(),
            Some("W1XYZ")
        );
        // An operator the contact names is kept, as a field or as a file wrote it.
        let mut named = input();
        named.fields.set(Field::Operator, Some("K2OP".into()));
        assert_eq!(credited(&club, &named, "W1XYZ").as_deref(), Some("K2OP"));
        let mut as_read = input();
        as_read
            .fields
            .adif
            .insert("OPERATOR".into(), "K2OP (guest)".into());
        let mut c = NewContact::validate(&as_read, &club, now()).unwrap();
        c.credit_operator("W1XYZ");
        assert_eq!(c.fields.get(Field::Operator), None);
        assert_eq!(c.fields.adif["OPERATOR"], "K2OP (guest)");
    }

    #[test]
    fn a_station_profile_fills_what_the_contact_lacks() {
        use crate::station::StationProfile;
        let body = serde_json::json!({"myGridsquare": "FN42", "myState": "MA", "txPwr": 5});
        let home = StationProfile::read("W1XYZ", body.as_object().unwrap()).unwrap();
        let profiles = [home];
        let monthly = folder(FolderType::Monthly, None, Some("2026-11"));
        let applied = |i: &ContactInput| {
            let mut c = NewContact::validate(i, &monthly, now()).unwrap();
            c.apply_station(&profiles, "W1XYZ");
            c.fields
        };
        let filled = applied(&input());
        assert_eq!(filled.get(Field::MyGridsquare), Some("FN42"));
        assert_eq!(filled.get(Field::MyState), Some("MA"));
        assert_eq!(filled.get(Field::TxPwr), Some("5"));
        assert_eq!(filled.get(Field::MyRig), None);
        // What the contact gives stays.
        let mut own = input();
        own.fields.set(Field::MyGridsquare, Some("FN31".into()));
        assert_eq!(applied(&own).get(Field::MyGridsquare), Some("FN31"));
        // A station callsign with no profile of its own takes none.
        let mut portable = input();
        portable.station_callsign = Some("W1XYZ/P".into());
        assert_eq!(applied(&portable).get(Field::MyGridsquare), None);
        let mut named = input();
        named.station_callsign = Some("w1xyz".into());
        assert_eq!(applied(&named).get(Field::MyState), Some("MA"));
    }
}
