//! Activations (docs/API.md, "Activation rules"): one portable operation under a program.

use super::ApiError;
use super::callsign::normalize_callsign;
use super::contact::Contact;
use super::folder::{Folder, FolderRole, FolderType};
use super::mode::PotaMode;
use super::program::{Program, normalize_reference_list};
use super::text::single_line;
use super::time::Timestamp;

/// An activation request as the client sent it; `program` was parsed from a JSON value already.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ActivationInput {
    pub reference: Option<String>,
    pub callsign: Option<String>,
    pub program: Option<Program>,
    pub location_name: Option<String>,
    pub start_time: Option<String>,
}

/// A checked activation: its identity is (program, callsign, reference, UTC start day).
#[derive(Debug, Clone, PartialEq)]
pub struct NewActivation {
    pub program: Program,
    pub callsign: String,
    pub reference: String,
    pub location_name: Option<String>,
    pub start_time: Timestamp,
    pub name: String,
    pub auto_folder_key: String,
}

impl NewActivation {
    pub fn validate(input: &ActivationInput, now: Timestamp) -> Result<NewActivation, ApiError> {
        let program = input.program.unwrap_or(Program::Pota);
        if !program.supports_activations() {
            return Err(ApiError::field(
                "programId",
                format!(
                    "program {} is hunting-only and does not support activations; use pota, or log hunted contacts into the {} monthly folder",
                    program.id(),
                    program.category_name()
                ),
            ));
        }
        let reference = input.reference.as_deref().ok_or_else(|| {
            ApiError::field(
                "locationReference",
                "locationReference is required, e.g. US-1234",
            )
        })?;
        // A two-fer (US-1234,US-5678) is one activation of every park in the list.
        let reference = normalize_reference_list("locationReference", reference)?;
        let callsign = input.callsign.as_deref().ok_or_else(|| {
            ApiError::field(
                "callsign",
                "callsign of the activator is required, e.g. W1AW",
            )
        })?;
        let callsign = normalize_callsign("callsign", callsign)?;
        let location_name = match &input.location_name {
            Some(n) => single_line("locationName", n, 100)?,
            None => None,
        };
        let start_time = match &input.start_time {
            Some(t) => Timestamp::parse_plausible("startTime", t, now)?,
            None => now,
        };
        Ok(NewActivation::named(
            program,
            callsign,
            reference,
            location_name,
            start_time,
        ))
    }

    /// The activation with its name and identity (rule 2) from its parts.
    fn named(
        program: Program,
        callsign: String,
        reference: String,
        location_name: Option<String>,
        start_time: Timestamp,
    ) -> NewActivation {
        let day = start_time.utc_compact_date();
        NewActivation {
            name: format!("{callsign}@{reference}-{day}"),
            auto_folder_key: format!(
                "v1:activation:{}:{callsign}:{reference}:{day}",
                program.id()
            ),
            program,
            callsign,
            reference,
            location_name,
            start_time,
        }
    }

    /// The stored activation `existing` at more parks (`added`: a park or a comma list, as
    /// `locationReference` takes them): its parks, then each of `added` it lacks, in their
    /// order, with the name and identity that list gives (rule 6). `None` when it has every
    /// one already. A folder that is no activation, or a malformed one, is refused.
    pub fn with_parks(existing: &Folder, added: &str) -> Result<Option<NewActivation>, ApiError> {
        let not_one = || {
            ApiError::field(
                "folderId",
                format!(
                    "folder {} ({}) is a {} folder, not an activation; parks are added to activations",
                    existing.id,
                    existing.name,
                    existing.folder_type.as_str()
                ),
            )
        };
        if existing.folder_type != FolderType::Activation {
            return Err(not_one());
        }
        let FolderRole::Activation {
            program,
            reference,
            callsign,
        } = existing.role()?
        else {
            return Err(not_one());
        };
        let added = normalize_reference_list("locationReference", added)?;
        let mut parks: Vec<&str> = reference.split(',').collect();
        for park in added.split(',') {
            if !parks.contains(&park) {
                parks.push(park);
            }
        }
        if parks.len() == reference.split(',').count() {
            return Ok(None);
        }
        let start_time = existing.start_time.ok_or_else(not_one)?;
        Ok(Some(NewActivation::named(
            program,
            callsign,
            parks.join(","),
            existing.location_name.clone(),
            start_time,
        )))
    }

    /// Checks that an existing folder found under this identity really is this activation;
    /// a conflicting or malformed one is refused, never adopted (rule 3).
    pub fn check_existing(&self, existing: &Folder) -> Result<(), ApiError> {
        let conflict = || {
            ApiError::field(
                "locationReference",
                format!(
                    "an existing folder {} ({}) holds this activation's identity but does not match it; it is refused rather than adopted: ask the service operator to repair it",
                    existing.id, existing.name
                ),
            )
        };
        if existing.folder_type != FolderType::Activation {
            return Err(conflict());
        }
        match existing.role()? {
            FolderRole::Activation {
                program,
                reference,
                callsign,
            } if program == self.program
                && reference == self.reference
                && callsign == self.callsign
                && existing.start_time.map(Timestamp::utc_day)
                    == Some(self.start_time.utc_day()) =>
            {
                Ok(())
            }
            _ => Err(conflict()),
        }
    }
}

/// Valid contacts POTA needs on one UTC day for a park's activation to count.
pub const POTA_NEEDED: usize = 10;

/// A contact toward an activation's POTA count: POTA counts each worked callsign once per
/// band and POTA mode on each UTC day (days since the epoch), so an activation that runs past
/// midnight starts again toward 10 there.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ValidContact {
    pub day: i64,
    pub callsign: String,
    pub band: String,
    pub mode: PotaMode,
}

/// The valid contacts among an activation's contacts, from its UTC start day on; a contact
/// before the activation started is not part of it.
pub fn valid_contacts<'a>(
    activation: &Folder,
    contacts: impl IntoIterator<Item = &'a Contact>,
) -> impl Iterator<Item = ValidContact> {
    let first = activation.start_time.map(Timestamp::utc_day);
    contacts
        .into_iter()
        .filter(move |c| first.is_some_and(|first| c.time_on.utc_day() >= first))
        .map(ValidContact::of)
}

impl ValidContact {
    /// What one contact is toward POTA's count; the awards' activated parks count the same way.
    pub fn of(contact: &Contact) -> ValidContact {
        ValidContact::new(
            contact.time_on,
            &contact.callsign,
            &contact.band,
            &contact.mode,
        )
    }

    /// The valid contact of a call worked at `time_on` on `band` in `mode`.
    pub fn new(time_on: Timestamp, callsign: &str, band: &str, mode: &str) -> ValidContact {
        ValidContact {
            day: time_on.utc_day(),
            callsign: callsign.to_owned(),
            band: band.to_owned(),
            mode: PotaMode::of(mode),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> Timestamp {
        Timestamp::parse("now", "2026-11-22T12:00:00Z").unwrap()
    }

    fn input() -> ActivationInput {
        ActivationInput {
            reference: Some("  us-1234 ".into()),
            callsign: Some("w1aw".into()),
            ..Default::default()
        }
    }

    #[test]
    fn normalizes_and_names() {
        let a = NewActivation::validate(&input(), now()).unwrap();
        assert_eq!(a.reference, "US-1234");
        assert_eq!(a.callsign, "W1AW");
        assert_eq!(a.program, Program::Pota);
        assert_eq!(a.name, "W1AW@US-1234-20261122");
        assert_eq!(a.start_time, now());
    }

    /// The folder the store makes of `a`.
    fn stored(a: &NewActivation) -> Folder {
        Folder {
            id: "fld_aaaaaaaaaaaaaaaa".into(),
            name: a.name.clone(),
            folder_type: FolderType::Activation,
            parent_id: Some("fld_bbbbbbbbbbbbbbbb".into()),
            program_id: Some(a.program.id().into()),
            month: None,
            start_time: Some(a.start_time),
            end_time: None,
            location_reference: Some(a.reference.clone()),
            location_name: Some("Test Park".into()),
            callsign: Some(a.callsign.clone()),
            auto_folder_key: Some(a.auto_folder_key.clone()),
            contest: None,
            contact_count: 3,
            created_at: a.start_time,
        }
    }

    #[test]
    fn parks_are_added_after_the_activation_s_own_each_once() {
        let one = stored(&NewActivation::validate(&input(), now()).unwrap());
        let two = NewActivation::with_parks(&one, " us-5678,US-1234 ")
            .unwrap()
            .unwrap();
        assert_eq!(two.reference, "US-1234,US-5678");
        assert_eq!(two.name, "W1AW@US-1234,US-5678-20261122");
        assert_eq!(
            two.auto_folder_key,
            "v1:activation:pota:W1AW:US-1234,US-5678:20261122"
        );
        assert_eq!(two.start_time, now());
        assert_eq!(two.location_name.as_deref(), Some("Test Park"));
        // What it has already changes nothing.
        assert_eq!(
            NewActivation::with_parks(&stored(&two), "US-5678").unwrap(),
            None
        );
        let bad = NewActivation::with_parks(&one, "US5678").unwrap_err();
        assert_eq!(
            bad.details,
            Some(serde_json::json!({ "field": "locationReference" })),
            "{bad:?}"
        );
        let mut monthly = one.clone();
        monthly.folder_type = FolderType::Monthly;
        monthly.month = Some("2026-11".into());
        let err = NewActivation::with_parks(&monthly, "US-5678").unwrap_err();
        assert!(err.message.contains("not an activation"), "{}", err.message);
    }

    #[test]
    fn hunting_only_programs_have_their_own_message() {
        for p in [Program::Dx, Program::Repeaters] {
            let mut i = input();
            i.program = Some(p);
            let err = NewActivation::validate(&i, now()).unwrap_err();
            assert!(
                err.message.contains("does not support activations"),
                "{}",
                err.message
            );
        }
    }

    #[test]
    fn required_fields() {
        let mut i = input();
        i.reference = None;
        assert!(
            NewActivation::validate(&i, now())
                .unwrap_err()
                .message
                .contains("required")
        );
        let mut i = input();
        i.callsign = None;
        assert!(
            NewActivation::validate(&i, now())
                .unwrap_err()
                .message
                .contains("required")
        );
        let mut i = input();
        i.reference = Some("park".into());
        assert!(NewActivation::validate(&i, now()).is_err());
    }
}
