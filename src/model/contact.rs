//! Contacts (QSOs) and the rules a new one must pass in its destination folder (docs/API.md, contact
//! rules 1–8; the cap and rate limits are enforced by the store).

use serde::{Deserialize, Serialize};

use super::band::{Frequency, read_frequency};
use super::callsign::normalize_callsign;
use super::folder::{Folder, FolderRole};
use super::program::{Program, normalize_reference, normalize_reference_list};
use super::text::{multi_line, single_line, token};
use super::time::Timestamp;
use super::{ApiError, IdKind};

/// A stored contact as the API returns it.
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
    pub rst_sent: Option<String>,
    pub rst_received: Option<String>,
    pub name: Option<String>,
    pub notes: Option<String>,
    pub sig: Option<String>,
    pub sig_info: Option<String>,
    pub my_sig: Option<String>,
    pub my_sig_info: Option<String>,
    pub activation_id: Option<String>,
    pub station_callsign: Option<String>,
    pub created_at: Timestamp,
    /// Where the contact went in the account's external logbooks; absent when nowhere.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub external: Vec<super::ExternalCopy>,
}

/// A contact as the client sent it, fields still unchecked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContactInput {
    pub folder_id: String,
    pub callsign: String,
    pub frequency: f64,
    pub mode: String,
    pub time_on: String,
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
    /// Set in program folders for contacts with program identity: two contacts of one folder
    /// with the same key are duplicates (rule 7).
    pub dupe_key: Option<String>,
}

pub const MAX_NAME: usize = 100;
pub const MAX_NOTES: usize = 2000;

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
        let frequency = read_frequency("frequency", input.frequency)?;
        let mode = token("mode", &input.mode, 20, "-/", "FT8, SSB or CW")?
            .ok_or_else(|| ApiError::field("mode", "mode is required, e.g. FT8, SSB or CW"))?;
        let time_on = Timestamp::parse_plausible("timeOn", &input.time_on, now)?;
        let rst_sent = opt(&input.rst_sent, |v| {
            token("rstSent", v, 10, "+-", "599 or -12")
        })?;
        let rst_received = opt(&input.rst_received, |v| {
            token("rstReceived", v, 10, "+-", "599 or -12")
        })?;
        let name = opt(&input.name, |v| single_line("name", v, MAX_NAME))?;
        let notes = opt(&input.notes, |v| multi_line("notes", v, MAX_NOTES))?;
        let sig = opt(&input.sig, |v| token("sig", v, 20, "-_", "POTA"))?;
        let mut sig_info = opt(&input.sig_info, |v| single_line("sigInfo", v, 100))?;
        let mut my_sig = opt(&input.my_sig, |v| token("mySig", v, 20, "-_", "POTA"))?;
        let mut my_sig_info = opt(&input.my_sig_info, |v| single_line("mySigInfo", v, 100))?;
        let mut station_callsign = opt(&input.station_callsign, |v| {
            normalize_callsign("stationCallsign", v).map(Some)
        })?;
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
        if sig_program == Some(Program::Pota) {
            let info = sig_info.as_deref().ok_or_else(|| {
                ApiError::field(
                    "sigInfo",
                    "sig POTA needs sigInfo with the worked park's reference, e.g. US-1234",
                )
            })?;
            sig_info = Some(normalize_reference_list("sigInfo", info)?);
        }

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
                    && normalize_reference("mySigInfo", v).ok().as_deref()
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
            FolderRole::Root | FolderRole::Category => unreachable!("refused above"),
        };

        let has_program_identity = sig.is_some() || my_sig.is_some();
        let dupe_key = (program_folder && has_program_identity).then(|| {
            format!(
                "{callsign}|{}|{mode}|{}|{}|{}",
                frequency.band,
                sig.as_deref().unwrap_or_default(),
                sig_info.as_deref().unwrap_or_default(),
                time_on.utc_day()
            )
        });

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
            dupe_key,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::folder::FolderType;

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
            ("name", |i| i.name = Some("x".repeat(MAX_NAME + 1))),
            ("sigInfo", |i| i.sig_info = Some("US-1".into())),
        ];
        for (field, change) in cases {
            let mut i = input();
            change(&mut i);
            let err = NewContact::validate(&i, &f, now()).unwrap_err();
            assert_eq!(err.details.unwrap()["field"], field, "{}", err.message);
        }
    }
}
