//! The tools' arguments: each tool's as a type that refuses an unknown or mistyped property,
//! the checks they share (texts, times, keys, paging), the declared contact fields among them,
//! and the shapes of what the tools answer.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::MAX_PAGE;
use super::tools;
use svc_cli::CliError;
use svc_model::{Timestamp, seed};

/// The common declared fields (model::fields) among a tool's arguments, taken out of them and
/// checked as the service checks them. Their input names are their ADIF names in lower case
/// (`gridsquare`, `tx_pwr`), in the snake case of the other inputs.
pub(crate) fn declared_inputs(
    args: &mut Map<String, Value>,
) -> Result<svc_model::Fields, CliError> {
    let mut fields = svc_model::Fields::default();
    for def in tools::declared_inputs() {
        let Some(value) = args.remove(&def.adif.to_ascii_lowercase()) else {
            continue;
        };
        let checked = def
            .text_of(&value)
            .and_then(|text| match text {
                Some(text) => def.check(&text),
                None => Ok(None),
            })
            .map_err(|e| {
                CliError::input(e.message.replace(def.wire, &def.adif.to_ascii_lowercase()))
            })?;
        fields.set(def.field, checked);
    }
    Ok(fields)
}

/// The seed's optional fields a caller of `create_contact` gave (model::seed, in snake_case:
/// `rst_sent`, `sig_info`, …), taken out of `args`, each within the table's length (notes may
/// be empty, as its schema says); null is absent.
pub(crate) fn seed_inputs(
    args: &mut Map<String, Value>,
) -> Result<Vec<(seed::Seed, String)>, CliError> {
    let mut given = Vec::new();
    for field in seed::optional_given() {
        let name = seed::snake_case(field.wire);
        match args.remove(&name) {
            None | Some(Value::Null) => {}
            Some(Value::String(value)) => {
                let min = usize::from(*field != seed::NOTES);
                check_text(&name, &value, min, field.max)?;
                given.push((*field, value));
            }
            Some(_) => return Err(CliError::input(format!("{name} must be a string"))),
        }
    }
    Ok(given)
}

/// An unknown argument of `create_contact`: serde lists the tool's own arguments as what is
/// expected, and the declared fields it takes as well are named after them, so the agent sees
/// every name it could have meant (`gridsquare` for `grid`).
pub(crate) fn name_declared(e: CliError) -> CliError {
    if !e.message.starts_with("unknown field") {
        return e;
    }
    let declared: Vec<String> = seed::optional_given()
        .map(|s| format!("`{}`", seed::snake_case(s.wire)))
        .chain(tools::declared_inputs().map(|d| format!("`{}`", d.adif.to_ascii_lowercase())))
        .collect();
    CliError::input(format!(
        "{}, or one of the contact's fields {}",
        e.message,
        declared.join(", ")
    ))
}

pub(crate) fn parse<T: DeserializeOwned>(args: Map<String, Value>) -> Result<T, CliError> {
    serde_json::from_value(Value::Object(args)).map_err(|e| CliError::input(e.to_string()))
}

pub(crate) fn check_text(field: &str, value: &str, min: usize, max: usize) -> Result<(), CliError> {
    let length = value.chars().count();
    if length < min || length > max {
        return Err(CliError::input(if min == 0 {
            format!("{field} must be at most {max} characters")
        } else {
            format!("{field} must be {min} to {max} characters")
        }));
    }
    Ok(())
}

/// A value within the length its input schema allows, read by the check its command-line flag
/// has; the message names the input.
pub(crate) fn checked<T>(
    field: &str,
    value: &str,
    max: usize,
    check: fn(&str) -> Result<T, String>,
) -> Result<T, CliError> {
    check_text(field, value, 1, max)?;
    check(value).map_err(|e| CliError::input(format!("{field}: {e}")))
}

pub(crate) fn check_optional(
    field: &str,
    value: &Option<String>,
    min: usize,
    max: usize,
) -> Result<(), CliError> {
    value
        .as_deref()
        .map_or(Ok(()), |v| check_text(field, v, min, max))
}

pub(crate) fn check_time(field: &str, value: &str) -> Result<(), CliError> {
    Timestamp::parse(field, value)
        .map(|_| ())
        .map_err(|e| CliError::input(e.message))
}

pub(crate) fn check_key(key: &str) -> Result<(), CliError> {
    check_text("idempotency_key", key, 1, 200)?;
    if key.chars().any(char::is_control) {
        return Err(CliError::input(
            "idempotency_key must hold no control characters",
        ));
    }
    Ok(())
}

pub(crate) fn paging(limit: Option<u32>, cursor: Option<&str>) -> Result<Option<u32>, CliError> {
    if let Some(limit) = limit
        && !(1..=MAX_PAGE).contains(&limit)
    {
        return Err(CliError::input(format!("limit must be 1 to {MAX_PAGE}")));
    }
    if let Some(cursor) = cursor {
        check_text("cursor", cursor, 1, 1500)?;
    }
    Ok(limit)
}

/// Which wire fields of a record an answer keeps, and under what name: the published output
/// schemas refuse any other property.
pub(crate) type Fields = &'static [(&'static str, &'static str)];

/// Every field, as the service names it.
pub(crate) const PASS: Fields = &[];

pub(crate) const FOLDER: Fields = &[
    ("id", "id"),
    ("name", "name"),
    ("autoFolderType", "autoFolderType"),
    ("locationReference", "locationReference"),
    ("locationName", "locationName"),
    ("programId", "programId"),
    ("callsign", "callsign"),
    ("startTime", "startTime"),
    ("endTime", "endTime"),
    ("contactCount", "qsoCount"),
];

pub(crate) const CONTEST: Fields = &[
    ("id", "id"),
    ("name", "name"),
    ("contestId", "contestId"),
    ("exchange", "exchange"),
    ("callsign", "callsign"),
    ("startTime", "startTime"),
    ("contactCount", "qsoCount"),
];

pub(crate) const CONTACT: Fields = &[
    ("id", "id"),
    ("folderId", "folderId"),
    ("callsign", "callsign"),
    ("frequency", "frequency"),
    ("mode", "mode"),
    ("timeOn", "timeOn"),
    ("rstSent", "rstSent"),
    ("rstReceived", "rstReceived"),
    ("notes", "notes"),
    ("name", "name"),
    ("sig", "sig"),
    ("sigInfo", "sigInfo"),
    ("mySig", "mySig"),
    ("mySigInfo", "mySigInfo"),
];

/// A record as the answer gives it: its kept fields, an absent value left out rather than
/// null (the service may send either).
pub(crate) fn shape(record: &impl serde::Serialize, fields: Fields) -> Result<Value, CliError> {
    let wire = serde_json::to_value(record)
        .map_err(|e| CliError::local(format!("cannot encode the answer: {e}")))?;
    if fields.is_empty() {
        return Ok(strip_nulls(wire));
    }
    let mut out = Map::new();
    for (from, to) in fields {
        if let Some(value) = wire.get(from).filter(|v| !v.is_null()) {
            out.insert((*to).to_owned(), strip_nulls(value.clone()));
        }
    }
    Ok(Value::Object(out))
}

pub(crate) fn page_of(
    items: &[impl serde::Serialize],
    cursor: Option<String>,
    fields: Fields,
) -> Result<Value, CliError> {
    let items = items
        .iter()
        .map(|item| shape(item, fields))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = json!({ "items": items });
    if let Some(cursor) = cursor {
        out["cursor"] = json!(cursor);
    }
    Ok(out)
}

pub(crate) fn strip_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, strip_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(strip_nulls).collect()),
        other => other,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoArgs {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListFolders {
    pub(crate) limit: Option<u32>,
    pub(crate) cursor: Option<String>,
    #[serde(rename = "type")]
    pub(crate) folder_type: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListContacts {
    pub(crate) folder_id: String,
    pub(crate) limit: Option<u32>,
    pub(crate) cursor: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListActivations {
    pub(crate) limit: Option<u32>,
    pub(crate) cursor: Option<String>,
    pub(crate) in_progress: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateContact {
    pub(crate) folder_id: String,
    pub(crate) callsign: String,
    pub(crate) frequency: f64,
    pub(crate) mode: String,
    pub(crate) time_on: String,
    pub(crate) idempotency_key: String,
    /// In a contest log, the exchange received as typed.
    #[serde(default)]
    pub(crate) exchange: Option<String>,
}

impl CreateContact {
    pub(crate) fn check(&self) -> Result<(), CliError> {
        check_text("folder_id", &self.folder_id, 1, 1500)?;
        check_text("callsign", &self.callsign, 1, seed::CALLSIGN.max)?;
        if !(self.frequency.is_finite() && self.frequency > 0.0) {
            return Err(CliError::input("frequency must be a number of MHz above 0"));
        }
        check_text("mode", &self.mode, 1, seed::MODE.max)?;
        check_time("time_on", &self.time_on)?;
        check_optional("exchange", &self.exchange, 1, 100)?;
        check_key(&self.idempotency_key)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateActivation {
    pub(crate) callsign: String,
    pub(crate) location_reference: String,
    pub(crate) start_time: String,
    pub(crate) idempotency_key: String,
    pub(crate) program_id: Option<String>,
    pub(crate) location_name: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateFolder {
    pub(crate) name: String,
    pub(crate) parent_id: Option<String>,
    pub(crate) idempotency_key: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PotaFileArgs {
    pub(crate) activation_id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LookupCallsign {
    pub(crate) callsign: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LookupPark {
    pub(crate) reference: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListSpots {
    pub(crate) band: Option<String>,
    pub(crate) mode: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GetAwards {
    pub(crate) award: String,
    pub(crate) band: Option<String>,
    pub(crate) mode: Option<String>,
    pub(crate) confirmed_by: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SpotActivation {
    pub(crate) reference: String,
    pub(crate) frequency: f64,
    pub(crate) mode: String,
    pub(crate) comment: Option<String>,
    pub(crate) activator: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EndActivation {
    pub(crate) activation_id: String,
    pub(crate) end_time: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AddActivationPark {
    pub(crate) activation_id: String,
    pub(crate) location_reference: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StartContest {
    pub(crate) contest_id: String,
    pub(crate) exchange: Option<String>,
    pub(crate) callsign: Option<String>,
    #[serde(default)]
    pub(crate) categories: Vec<String>,
    pub(crate) start_time: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ContestLogArgs {
    pub(crate) contest_log_id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ContestCabrillo {
    pub(crate) contest_log_id: String,
    #[serde(default)]
    pub(crate) categories: Vec<String>,
    pub(crate) name: Option<String>,
    pub(crate) email: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeleteContact {
    pub(crate) qso_id: String,
    pub(crate) confirmation: String,
    pub(crate) idempotency_key: String,
}
