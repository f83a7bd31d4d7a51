//! Folders: the All Contacts root, categories, monthly logs and activations.

use serde::{Deserialize, Serialize, Serializer};

use super::callsign::normalize_callsign;
use super::contest::{Contest, ContestLog};
use super::program::{Program, normalize_reference_list};
use super::time::{Timestamp, parse_month};
use super::{ApiError, text};

pub const ROOT_NAME: &str = "All Contacts";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FolderType {
    Activation,
    Category,
    Contest,
    Monthly,
}

impl FolderType {
    pub fn as_str(self) -> &'static str {
        match self {
            FolderType::Activation => "activation",
            FolderType::Category => "category",
            FolderType::Contest => "contest",
            FolderType::Monthly => "monthly",
        }
    }

    pub fn parse(text: &str) -> Option<FolderType> {
        [
            FolderType::Activation,
            FolderType::Category,
            FolderType::Contest,
            FolderType::Monthly,
        ]
        .into_iter()
        .find(|t| t.as_str() == text)
    }
}

/// A folder as stored. Identity fields (`program_id`, `location_reference`, `month`, `callsign`)
/// are kept as stored text and checked where a rule depends on them, so a malformed row is
/// refused rather than guessed at.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Folder {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub folder_type: FolderType,
    #[serde(default)]
    pub parent_id: Option<String>,
    #[serde(default)]
    pub program_id: Option<String>,
    #[serde(default)]
    pub month: Option<String>,
    #[serde(default)]
    pub start_time: Option<Timestamp>,
    #[serde(default)]
    pub end_time: Option<Timestamp>,
    #[serde(default)]
    pub location_reference: Option<String>,
    #[serde(default)]
    pub location_name: Option<String>,
    #[serde(default)]
    pub callsign: Option<String>,
    #[serde(default)]
    pub auto_folder_key: Option<String>,
    /// A contest log's contest, exchange, categories and header; `None` for other folders.
    #[serde(flatten, default)]
    pub contest: Option<ContestLog>,
    pub contact_count: i64,
    pub created_at: Timestamp,
}

/// The wire shape: `autoFolderType` repeats `type` because the published 0.1.1 client shows it,
/// and `qsoCount` repeats `contactCount` because the published 0.2.0 client reads that name. A
/// field with no value is left out, not null, which the 0.2.0 client's output schemas refuse.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FolderWire<'a> {
    id: &'a str,
    name: &'a str,
    #[serde(rename = "type")]
    folder_type: FolderType,
    auto_folder_type: FolderType,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent_id: Option<&'a String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    program_id: Option<&'a String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    month: Option<&'a String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_time: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_time: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    location_reference: Option<&'a String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    location_name: Option<&'a String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    callsign: Option<&'a String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    auto_folder_key: Option<&'a String>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    contest: Option<&'a ContestLog>,
    contact_count: i64,
    qso_count: i64,
    created_at: Timestamp,
}

impl Serialize for Folder {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        FolderWire {
            id: &self.id,
            name: &self.name,
            folder_type: self.folder_type,
            auto_folder_type: self.folder_type,
            parent_id: self.parent_id.as_ref(),
            program_id: self.program_id.as_ref(),
            month: self.month.as_ref(),
            start_time: self.start_time,
            end_time: self.end_time,
            location_reference: self.location_reference.as_ref(),
            location_name: self.location_name.as_ref(),
            callsign: self.callsign.as_ref(),
            auto_folder_key: self.auto_folder_key.as_ref(),
            contest: self.contest.as_ref(),
            contact_count: self.contact_count,
            qso_count: self.contact_count,
            created_at: self.created_at,
        }
        .serialize(s)
    }
}

/// What a folder is, as far as the contact rules care.
#[derive(Debug, Clone, PartialEq)]
pub enum FolderRole {
    Root,
    Category,
    /// A custom monthly log with no program.
    CustomMonthly {
        month: String,
    },
    /// A program's monthly hunting folder.
    HuntingMonthly {
        program: Program,
        month: String,
    },
    /// A valid POTA activation.
    Activation {
        program: Program,
        reference: String,
        callsign: String,
    },
    /// A contest log of a contest this build ships.
    Contest {
        contest: &'static Contest,
        log: ContestLog,
        callsign: String,
    },
}

impl Folder {
    fn malformed(&self, what: &str) -> ApiError {
        ApiError::field(
            "folderId",
            format!(
                "folder {} ({}) has a malformed identity ({what}); it is refused rather than guessed at: log into another folder or ask the service operator to repair it",
                self.id, self.name
            ),
        )
    }

    fn stored_program(&self) -> Result<Option<Program>, ApiError> {
        match &self.program_id {
            None => Ok(None),
            Some(id) => Program::from_id(id)
                .map(Some)
                .ok_or_else(|| self.malformed(&format!("unknown program {id:?}"))),
        }
    }

    /// Classifies the folder, checking every identity field a rule depends on.
    pub fn role(&self) -> Result<FolderRole, ApiError> {
        match self.folder_type {
            FolderType::Category if self.parent_id.is_none() => Ok(FolderRole::Root),
            FolderType::Category => Ok(FolderRole::Category),
            FolderType::Monthly => {
                let month = self.month.as_deref().unwrap_or_default();
                let month = parse_month("month", month)
                    .map_err(|_| self.malformed(&format!("month {month:?} is not YYYY-MM")))?;
                match self.stored_program()? {
                    None => Ok(FolderRole::CustomMonthly { month }),
                    Some(program) => Ok(FolderRole::HuntingMonthly { program, month }),
                }
            }
            FolderType::Activation => {
                let program = self
                    .stored_program()?
                    .ok_or_else(|| self.malformed("no program"))?;
                if !program.supports_activations() {
                    return Err(self.malformed(&format!(
                        "program {} does not support activations",
                        program.id()
                    )));
                }
                let stored_ref = self.location_reference.as_deref().unwrap_or_default();
                match normalize_reference_list("locationReference", stored_ref) {
                    Ok(r) if r == stored_ref => {}
                    _ => return Err(self.malformed(&format!("reference {stored_ref:?}"))),
                }
                let stored_call = self.callsign.as_deref().unwrap_or_default();
                match normalize_callsign("callsign", stored_call) {
                    Ok(c) if c == stored_call => {}
                    _ => return Err(self.malformed(&format!("callsign {stored_call:?}"))),
                }
                if self.start_time.is_none() {
                    return Err(self.malformed("no start time"));
                }
                Ok(FolderRole::Activation {
                    program,
                    reference: stored_ref.to_owned(),
                    callsign: stored_call.to_owned(),
                })
            }
            FolderType::Contest => {
                let log = self
                    .contest
                    .clone()
                    .ok_or_else(|| self.malformed("no contest"))?;
                let contest = log.contest().ok_or_else(|| {
                    self.malformed(&format!(
                        "contest {:?} is not one this svc knows",
                        log.contest_id
                    ))
                })?;
                let stored_call = self.callsign.as_deref().unwrap_or_default();
                match normalize_callsign("callsign", stored_call) {
                    Ok(c) if c == stored_call => {}
                    _ => return Err(self.malformed(&format!("callsign {stored_call:?}"))),
                }
                Ok(FolderRole::Contest {
                    contest,
                    log,
                    callsign: stored_call.to_owned(),
                })
            }
        }
    }

    /// An activation or a contest log that has not ended.
    pub fn in_progress(&self) -> bool {
        matches!(
            self.folder_type,
            FolderType::Activation | FolderType::Contest
        ) && self.end_time.is_none()
    }
}

/// A request to find or create a monthly folder.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMonthly {
    pub program: Option<Program>,
    pub month: String,
    pub name: String,
    /// Unique per account: what makes two requests ask for the same folder.
    pub identity_key: String,
    pub auto_folder_key: Option<String>,
}

impl NewMonthly {
    pub fn new(program: Option<Program>, month: String) -> NewMonthly {
        match program {
            Some(p) => NewMonthly {
                name: format!("{} {month}", p.category_name()),
                identity_key: format!("v1:monthly:{}:{month}", p.id()),
                auto_folder_key: Some(format!("v1:monthly:{}:{month}", p.id())),
                program,
                month,
            },
            None => NewMonthly {
                name: month.clone(),
                identity_key: format!("custom:monthly:{month}"),
                auto_folder_key: None,
                program,
                month,
            },
        }
    }
}

/// Checks a category name given by a client.
pub fn category_name(raw: &str) -> Result<String, ApiError> {
    let name = text::single_line("name", raw, 100)?
        .ok_or_else(|| ApiError::field("name", "name is required for a category folder"))?;
    Ok(name)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn folder(folder_type: FolderType) -> Folder {
        Folder {
            id: "fld_aaaaaaaaaaaaaaaa".into(),
            name: "x".into(),
            folder_type,
            parent_id: Some("fld_bbbbbbbbbbbbbbbb".into()),
            program_id: None,
            month: None,
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

    #[test]
    fn roles() {
        let mut root = folder(FolderType::Category);
        root.parent_id = None;
        assert_eq!(root.role().unwrap(), FolderRole::Root);
        assert_eq!(
            folder(FolderType::Category).role().unwrap(),
            FolderRole::Category
        );

        let mut monthly = folder(FolderType::Monthly);
        monthly.month = Some("2026-11".into());
        assert!(matches!(
            monthly.role().unwrap(),
            FolderRole::CustomMonthly { .. }
        ));
        monthly.program_id = Some("dx".into());
        assert!(matches!(
            monthly.role().unwrap(),
            FolderRole::HuntingMonthly {
                program: Program::Dx,
                ..
            }
        ));
        monthly.program_id = Some("sota".into());
        assert!(monthly.role().unwrap_err().message.contains("malformed"));
        monthly.program_id = None;
        monthly.month = Some("2026-13".into());
        assert!(monthly.role().is_err());
    }

    #[test]
    fn activation_identity_is_checked() {
        let mut act = folder(FolderType::Activation);
        act.program_id = Some("pota".into());
        act.location_reference = Some("US-1234".into());
        act.callsign = Some("W1AW".into());
        act.start_time = Some(Timestamp(0));
        assert!(matches!(act.role().unwrap(), FolderRole::Activation { .. }));
        for broken in [
            |f: &mut Folder| f.program_id = Some("dx".into()),
            |f: &mut Folder| f.program_id = None,
            |f: &mut Folder| f.location_reference = Some("us-1234".into()),
            |f: &mut Folder| f.location_reference = Some("PARK".into()),
            |f: &mut Folder| f.callsign = None,
        ] {
            let mut bad = act.clone();
            broken(&mut bad);
            assert!(bad.role().unwrap_err().message.contains("malformed"));
        }
    }

    #[test]
    fn wire_shape_repeats_the_type_and_the_count_and_leaves_out_what_is_not_there() {
        let mut counted = folder(FolderType::Monthly);
        counted.contact_count = 7;
        let json = serde_json::to_value(&counted).unwrap();
        assert_eq!(json["type"], "monthly");
        assert_eq!(json["autoFolderType"], "monthly");
        assert_eq!(json["contactCount"], 7);
        assert_eq!(json["qsoCount"], 7);
        assert!(json.get("endTime").is_none(), "{json}");
        assert!(json.as_object().unwrap().values().all(|v| !v.is_null()));
        let back: Folder = serde_json::from_value(json).unwrap();
        assert_eq!(back, counted);
    }

    #[test]
    fn an_older_servers_nulls_still_read() {
        let json = serde_json::json!({
            "id": "fld_aaaaaaaaaaaaaaaa", "name": "x", "type": "monthly",
            "autoFolderType": "monthly", "parentId": "fld_bbbbbbbbbbbbbbbb", "programId": null,
            "month": null, "startTime": null, "endTime": null, "locationReference": null,
            "locationName": null, "callsign": null, "autoFolderKey": null, "contactCount": 0,
            "createdAt": "1970-01-01T00:00:00Z",
        });
        let back: Folder = serde_json::from_value(json).unwrap();
        assert_eq!(back, folder(FolderType::Monthly));
    }
}
