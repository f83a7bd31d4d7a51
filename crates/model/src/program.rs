//! Activity programs and their references (POTA park references such as `US-1234`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ApiError;
use super::ids::truncate;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Program {
    Pota,
    Dx,
    Repeaters,
}

impl Program {
    pub const ALL: [Program; 3] = [Program::Pota, Program::Dx, Program::Repeaters];

    /// The program id of the API (`programId`).
    pub fn id(self) -> &'static str {
        match self {
            Program::Pota => "pota",
            Program::Dx => "dx",
            Program::Repeaters => "repeaters",
        }
    }

    /// The value a contact's `sig`/`mySig` carries for this program.
    pub fn sig(self) -> &'static str {
        match self {
            Program::Pota => "POTA",
            Program::Dx => "DX",
            Program::Repeaters => "REPEATER",
        }
    }

    /// Name of the program's category folder.
    pub fn category_name(self) -> &'static str {
        match self {
            Program::Pota => "POTA",
            Program::Dx => "DX",
            Program::Repeaters => "Repeaters",
        }
    }

    pub fn supports_activations(self) -> bool {
        self == Program::Pota
    }

    pub fn from_id(id: &str) -> Option<Program> {
        Self::ALL.into_iter().find(|p| p.id() == id)
    }

    /// The supported program a `sig` value names, compared without case.
    pub fn from_sig(sig: &str) -> Option<Program> {
        Self::ALL
            .into_iter()
            .find(|p| p.sig().eq_ignore_ascii_case(sig.trim()))
    }
}

/// Reads a program id from a JSON body value: absent or null is `None`; anything that is not
/// a supported id is refused with a message saying which ids exist.
pub fn parse_program_value(
    field: &str,
    value: Option<&Value>,
) -> Result<Option<Program>, ApiError> {
    let text = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(ApiError::field(
                field,
                format!(
                    "{field} must be a string such as \"pota\", not {}",
                    json_kind(other)
                ),
            ));
        }
    };
    parse_program_id(field, text).map(Some)
}

pub fn parse_program_id(field: &str, text: &str) -> Result<Program, ApiError> {
    let id = text.trim().to_ascii_lowercase();
    if id.is_empty() {
        return Err(ApiError::field(
            field,
            format!("{field} is empty; use one of pota, dx, repeaters"),
        ));
    }
    Program::from_id(&id).ok_or_else(|| {
        ApiError::field(
            field,
            format!(
                "{field} {:?} is not a known program; use one of pota, dx, repeaters",
                truncate(text, 30)
            ),
        )
    })
}

pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

const MAX_REFERENCE_DIGITS: usize = 6;

/// Trims and upper-cases a location reference and checks its shape as POTA writes them: a
/// prefix of 1 to 3 letters and digits with a letter in it, a hyphen, 1 to 6 digits, and
/// optionally `@` and the location (`US-1234`, `K-0001`, `9A-0012`, `VE-5082@CA-AB`).
pub fn normalize_reference(field: &str, raw: &str) -> Result<String, ApiError> {
    let r = raw.trim().to_ascii_uppercase();
    let (park, location) = match r.split_once('@') {
        Some((park, location)) => (park, Some(location)),
        None => (r.as_str(), None),
    };
    let park_ok = park.split_once('-').is_some_and(|(prefix, digits)| {
        (1..=3).contains(&prefix.len())
            && prefix.bytes().all(|b| b.is_ascii_alphanumeric())
            && prefix.bytes().any(|b| b.is_ascii_alphabetic())
            && (1..=MAX_REFERENCE_DIGITS).contains(&digits.len())
            && digits.bytes().all(|b| b.is_ascii_digit())
    });
    let location_ok = location.is_none_or(|l| {
        l.split_once('-').is_some_and(|(country, area)| {
            (1..=3).contains(&country.len())
                && (1..=3).contains(&area.len())
                && country.bytes().all(|b| b.is_ascii_alphanumeric())
                && area.bytes().all(|b| b.is_ascii_alphanumeric())
        })
    });
    if park_ok && location_ok {
        Ok(r)
    } else {
        Err(ApiError::field(
            field,
            format!(
                "{field} {:?} is not a park reference: a prefix of letters and digits, a hyphen, then digits, optionally @ and the location, e.g. US-1234, 9A-0012 or VE-5082@CA-AB",
                truncate(raw, 30)
            ),
        ))
    }
}

pub fn normalize_reference_list(field: &str, raw: &str) -> Result<String, ApiError> {
    raw.split(',')
        .map(|part| normalize_reference(field, part))
        .collect::<Result<Vec<_>, _>>()
        .map(|refs| refs.join(","))
}

/// How a spot names the parks of an activation: POTA's spot holds one park, so a two-fer
/// (`US-0001,US-0002`) spots its first and names the others at the start of the comment, as
/// activators write it (`2fer with US-0002`), before the comment given, if any.
pub fn spot_parks(references: &str, comment: Option<&str>) -> (String, Option<String>) {
    let (park, others) = match references.split_once(',') {
        Some((first, rest)) => (
            first,
            Some(format!("2fer with {}", rest.replace(',', ", "))),
        ),
        None => (references, None),
    };
    let comment = match (others, comment.filter(|c| !c.trim().is_empty())) {
        (Some(others), Some(comment)) => Some(format!("{others}: {comment}")),
        (Some(others), None) => Some(others),
        (None, comment) => comment.map(str::to_owned),
    };
    (park.to_owned(), comment)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_two_fers_spot_names_its_other_parks_in_the_comment() {
        assert_eq!(
            spot_parks("US-0001", Some("QRP")),
            ("US-0001".into(), Some("QRP".into()))
        );
        assert_eq!(
            spot_parks("US-0001,US-0002,US-0003", None),
            ("US-0001".into(), Some("2fer with US-0002, US-0003".into()))
        );
        assert_eq!(
            spot_parks("US-0001,US-0002", Some("CQ on the hour")),
            (
                "US-0001".into(),
                Some("2fer with US-0002: CQ on the hour".into())
            )
        );
    }

    #[test]
    fn references_are_trimmed_uppercased_and_checked() {
        assert_eq!(normalize_reference("r", "  us-1234 ").unwrap(), "US-1234");
        assert_eq!(normalize_reference("r", "K-0001").unwrap(), "K-0001");
        assert_eq!(
            normalize_reference("r", "gbr-123456").unwrap(),
            "GBR-123456"
        );
        for bad in [
            "",
            "US1234",
            "USAA-1234",
            "-1234",
            "US-",
            "US-12a4",
            "12-1234",
            "US-1234@",
            "US-1234@CA",
            "US-1234@C A-B",
            "US-1234567",
            "ÜS-1234",
        ] {
            assert!(normalize_reference("r", bad).is_err(), "{bad}");
        }
        for (given, stored) in [
            ("9a-0012", "9A-0012"),
            ("ve-5082@ca-ab", "VE-5082@CA-AB"),
            ("U1-1234", "U1-1234"),
        ] {
            assert_eq!(normalize_reference("r", given).unwrap(), stored);
        }
        assert_eq!(
            normalize_reference_list("s", "us-1, US-2").unwrap(),
            "US-1,US-2"
        );
        assert!(normalize_reference_list("s", "US-1,").is_err());
    }

    #[test]
    fn program_values() {
        assert_eq!(parse_program_value("p", None).unwrap(), None);
        assert_eq!(
            parse_program_value("p", Some(&json!(" POTA "))).unwrap(),
            Some(Program::Pota)
        );
        assert_eq!(
            parse_program_value("p", Some(&json!("dx"))).unwrap(),
            Some(Program::Dx)
        );
        let empty = parse_program_value("p", Some(&json!(""))).unwrap_err();
        assert!(empty.message.contains("empty"));
        let unknown = parse_program_value("p", Some(&json!("sota"))).unwrap_err();
        assert!(unknown.message.contains("not a known program"));
        let number = parse_program_value("p", Some(&json!(7))).unwrap_err();
        assert!(number.message.contains("must be a string"));
        assert_eq!(Program::from_sig("repeater"), Some(Program::Repeaters));
        assert_eq!(Program::from_sig("SOTA"), None);
    }
}
