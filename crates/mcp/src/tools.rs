//! The tools `svc mcp` offers: names, input and output schemas and hints. Names, inputs and
//! outputs keep the shapes agents already use with other logbook MCP servers, so a setup made
//! for one of them works here unchanged.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use svc_model::awards::{Award, Service};
use svc_model::fields::{Def, FIELDS, Kind};
use svc_model::seed;

/// What a tool may do, which decides the flag it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    Delete,
}

/// Each tool with the access it needs; the order is the order of `tools/list`.
pub const TOOLS: [(&str, Access); 19] = [
    ("whoami", Access::Read),
    ("list_folders", Access::Read),
    ("list_contacts", Access::Read),
    ("list_activations", Access::Read),
    ("pota_file", Access::Read),
    ("lookup_callsign", Access::Read),
    ("lookup_park", Access::Read),
    ("list_spots", Access::Read),
    ("get_awards", Access::Read),
    ("contest_standing", Access::Read),
    ("contest_cabrillo", Access::Read),
    ("create_contact", Access::Write),
    ("create_activation", Access::Write),
    ("create_folder", Access::Write),
    ("end_activation", Access::Write),
    ("add_activation_park", Access::Write),
    ("start_contest", Access::Write),
    // Not the logbook's, but it tells the world something: given only with --allow-writes.
    ("spot_activation", Access::Write),
    ("delete_contact", Access::Delete),
];

pub fn access(name: &str) -> Option<Access> {
    TOOLS.iter().find(|(n, _)| *n == name).map(|(_, a)| *a)
}

/// The error codes a failure may carry in its structured content: the service's, and
/// `network` for a service that could not be reached.
pub const ERROR_CODES: [&str; 9] = [
    "unauthorized",
    "key_revoked",
    "tier_insufficient",
    "rate_limited",
    "qso_cap_reached",
    "not_found",
    "validation_error",
    "internal",
    "network",
];

pub const LIMIT_REASONS: [&str; 3] = [
    "daily_logbook_budget",
    "lifetime_logbook_budget",
    "logbook_budget",
];

const SCHEMA: &str = "https://json-schema.org/draft/2020-12/schema";

/// An RFC 3339 date-time with seconds and an offset, leap days included.
const DATE_TIME: &str = r"^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|([+-](?:[01]\d|2[0-3]):[0-5]\d)))$";

fn text(min: usize, max: usize) -> Value {
    if min == 0 {
        json!({ "type": "string", "maxLength": max })
    } else {
        json!({ "type": "string", "minLength": min, "maxLength": max })
    }
}

fn described(mut schema: Value, description: &str) -> Value {
    schema["description"] = json!(description);
    schema
}

fn limit() -> Value {
    described(
        json!({ "type": "integer", "minimum": 1, "maximum": 200 }),
        "How many items to return at most (1 to 200; the service's default when left out).",
    )
}

fn cursor() -> Value {
    described(
        text(1, 1500),
        "The cursor of the previous answer, to read the next page.",
    )
}

fn id(description: &str) -> Value {
    described(text(1, 1500), description)
}

fn date_time(description: &str) -> Value {
    described(
        json!({ "type": "string", "format": "date-time", "pattern": DATE_TIME }),
        description,
    )
}

fn idempotency_key() -> Value {
    described(
        json!({
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "pattern": r"^[^\u0000-\u001f\u007f]+$",
        }),
        "A key new for each new change (a UUID): sending the same call again with the same key never makes the change twice, and the answer says replayed.",
    )
}

fn input(properties: Value, required: &[&str]) -> Value {
    let mut schema = json!({
        "$schema": SCHEMA,
        "type": "object",
        "properties": properties,
        "additionalProperties": false,
    });
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

fn error_schema() -> Value {
    object(
        json!({
            "error": { "type": "string", "enum": ERROR_CODES },
            "message": { "type": "string" },
            "status": { "type": "number" },
            "requestId": { "type": "string" },
            "retryAfter": { "type": "string" },
            "details": {
                "type": "object",
                "properties": {
                    "resetSeconds": { "type": "number" },
                    "retryAfterSeconds": { "type": "number" },
                    "limit": { "type": "number" },
                    "current": { "type": "number" },
                    "supportRequired": { "type": "boolean", "const": true },
                    "required": { "type": "string", "const": "elevated" },
                    "reason": { "type": "string", "enum": LIMIT_REASONS },
                },
                "additionalProperties": false,
            },
        }),
        &["error", "message"],
    )
}

/// A success shape or the error shape: a tool's answer is one or the other.
fn output(success: Value) -> Value {
    json!({
        "$schema": SCHEMA,
        "anyOf": [success, error_schema()],
        "type": "object",
    })
}

fn page(item: Value) -> Value {
    object(
        json!({
            "items": { "type": "array", "maxItems": 200, "items": item },
            "cursor": { "type": "string" },
        }),
        &["items"],
    )
}

fn string() -> Value {
    json!({ "type": "string" })
}

fn folder_item() -> Value {
    object(
        json!({
            "id": string(),
            "name": string(),
            "autoFolderType": string(),
            "locationReference": string(),
            "locationName": string(),
            "programId": string(),
            "callsign": string(),
            "startTime": { "type": ["string", "null"] },
            "endTime": { "type": ["string", "null"] },
            "path": { "type": "array", "maxItems": 50, "items": string() },
            "qsoCount": { "type": "number" },
        }),
        &["id"],
    )
}

/// The declared fields (model::fields) a contact-logging tool takes: the common ones.
pub fn declared_inputs() -> impl Iterator<Item = &'static Def> {
    FIELDS.iter().filter(|d| d.common)
}

/// A tool's input properties with the declared fields added, each as its kind is given.
fn with_declared(mut properties: Value) -> Value {
    for def in declared_inputs() {
        let schema = match def.kind {
            Kind::Integer(lo, hi) => json!({ "type": "integer", "minimum": lo, "maximum": hi }),
            Kind::Number(lo, hi) => json!({ "type": "number", "minimum": lo, "maximum": hi }),
            Kind::Text(max) | Kind::Lines(max) | Kind::Upper(max) => text(1, max),
            Kind::Instant => date_time(def.help),
            Kind::Choice(values) => json!({ "type": "string", "enum": values }),
            Kind::Grid | Kind::Call | Kind::Date | Kind::Band => text(1, 20),
        };
        properties[def.adif.to_ascii_lowercase()] = described(schema, def.help);
    }
    properties
}

fn contact_item() -> Value {
    let mut properties =
        json!({ "frequency": { "type": "number" }, "imported": { "type": "boolean" } });
    for key in CONTACT_TEXT_KEYS {
        properties[key] = string();
    }
    properties["confirmed"] = described(
        string(),
        "The QSL services that confirmed it, a letter each: L LoTW, E eQSL, C QRZ.com, Q a card; absent when none",
    );
    object(properties, &["id"])
}

/// The text fields of a listed contact, in their wire names.
pub const CONTACT_TEXT_KEYS: [&str; 13] = [
    "id",
    "folderId",
    "callsign",
    "mode",
    "timeOn",
    "rstSent",
    "rstReceived",
    "notes",
    "name",
    "sig",
    "sigInfo",
    "mySig",
    "mySigInfo",
];

/// A spot as `svc spots --json` gives it.
fn spot_item() -> Value {
    object(
        json!({
            "activator": string(),
            "frequency": described(json!({ "type": "number" }), "In MHz."),
            "band": string(),
            "mode": string(),
            "reference": string(),
            "parkName": string(),
            "location": string(),
            "spotTime": date_time("When the spot was made."),
            "spotter": string(),
            "comments": string(),
        }),
        &["activator", "frequency", "reference"],
    )
}

/// A park reference as `svc parks show` and `svc spot` take it: one park.
fn one_park(description: &str) -> Value {
    described(text(1, 64), description)
}

fn folder_created() -> Value {
    object(
        json!({
            "id": string(),
            "name": string(),
            "autoFolderKey": string(),
            "created": { "type": "boolean" },
        }),
        &["id", "name", "autoFolderKey", "created"],
    )
}

/// The answer of get_awards: `svc_model::awards::Report` on the wire.
fn award_report() -> Value {
    let mark = json!({ "type": "string", "enum": ["W", "C"] });
    let count = object(
        json!({ "worked": { "type": "number" }, "confirmed": { "type": "number" } }),
        &["worked", "confirmed"],
    );
    let by_column = |value: &Value| json!({ "type": "object", "additionalProperties": value });
    let row = object(
        json!({
            "key": string(),
            "name": string(),
            "mixed": mark,
            "bands": by_column(&mark),
            "modes": by_column(&mark),
        }),
        &["key", "mixed", "bands", "modes"],
    );
    let totals = object(
        json!({ "mixed": count, "bands": by_column(&count), "modes": by_column(&count) }),
        &["mixed", "bands", "modes"],
    );
    let rows = json!({ "type": "array", "items": row });
    object(
        json!({
            "award": { "type": "string", "enum": Award::ALL.map(Award::id) },
            "band": string(),
            "mode": string(),
            "confirmedBy": {
                "type": "array",
                "items": { "type": "string", "enum": Service::ALL.map(Service::id) },
            },
            "available": { "type": "number" },
            "columns": { "type": "array", "items": string() },
            "rows": rows,
            "totals": totals,
            "deleted": object(json!({ "rows": rows, "totals": totals }), &["rows", "totals"]),
        }),
        &["award", "confirmedBy", "columns", "rows", "totals"],
    )
}

/// The hints of a tool that only reads the logbook: it changes nothing, so a call made again
/// is harmless.
fn reads() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}

/// The hints of a tool that asks an outside service (the callbook, POTA) and changes nothing
/// of the logbook but a cache of the answers.
fn asks_outside() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(true)
}

/// The hints of a tool that changes the logbook. `destructive`: it may change or remove what
/// is there, not only add to it. Every such tool is idempotent: the same call made again (its
/// idempotency_key included) changes nothing more. `open_world`: the change goes on to the
/// external logbooks (QRZ) the account pushes to.
fn writes(destructive: bool, open_world: bool) -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(false)
        .destructive(destructive)
        .idempotent(true)
        .open_world(open_world)
}

/// The hints of a tool that tells an outside service (POTA) something new: it adds and removes
/// nothing of what is there, but each call is sent anew, since it has no idempotency_key.
fn tells_outside() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(false)
        .destructive(false)
        .idempotent(false)
        .open_world(true)
}

fn as_object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn tool(
    name: &str,
    title: &str,
    description: &'static str,
    (input_schema, output_schema): (Value, Value),
    annotations: ToolAnnotations,
) -> Tool {
    Tool::new(name.to_owned(), description, as_object(input_schema))
        .with_title(title)
        .with_raw_output_schema(as_object(output_schema))
        .with_annotations(annotations)
}

/// A park reference as POTA writes it, the only shape the service takes where it wants one
/// (model::program::normalize_reference); a literal, so that descriptions can `concat!` it.
macro_rules! park_shape {
    () => {
        "a prefix of 1 to 3 letters and digits with a letter in it, a hyphen and 1 to 6 digits, optionally @ and the location (US-1234, 9A-0012, VE-5082@CA-AB), in any case; a two-fer lists its parks with commas (US-1234,US-5678)"
    };
}

/// The properties a tool's success answer may hold: those its published output shape names.
pub fn answer_properties(name: &str) -> Vec<String> {
    describe(name)
        .and_then(|tool| tool.output_schema)
        .and_then(|schema| {
            let success = schema.get("anyOf")?.get(0)?.get("properties")?;
            Some(success.as_object()?.keys().cloned().collect())
        })
        .unwrap_or_default()
}

/// The description of one tool, as `tools/list` shows it.
pub fn describe(name: &str) -> Option<Tool> {
    Some(match name {
        "whoami" => tool(
            name,
            "Who am I",
            "The account the key belongs to: callsign, plan, tier and how many contacts it holds.",
            (
                input(json!({}), &[]),
                output(object(
                    json!({
                        "callsign": string(),
                        "plan": { "type": "string", "enum": ["free", "paid"] },
                        "tier": { "type": "string", "enum": ["basic", "elevated"] },
                        "nativeQsoCount": { "type": "number" },
                    }),
                    &["callsign", "plan", "tier", "nativeQsoCount"],
                )),
            ),
            reads(),
        ),
        "list_folders" => tool(
            name,
            "List folders",
            "One page of the account's folders (the All Contacts root, categories, monthly logs, activations) in the order they were made, oldest first, so All Contacts and the program categories (POTA, DX, Repeaters) lead; pass the answer's cursor to read on.",
            (
                input(
                    json!({
                        "limit": limit(),
                        "cursor": cursor(),
                        "type": described(
                            json!({ "type": "string", "enum": ["activation", "category", "contest", "monthly"] }),
                            "Only folders of this type.",
                        ),
                    }),
                    &[],
                ),
                output(page(folder_item())),
            ),
            reads(),
        ),
        "list_contacts" => tool(
            name,
            "List contacts",
            "One page of the contacts (QSOs) of a folder, latest time_on first; a category's page holds the contacts of every folder below it. Pass the answer's cursor to read on.",
            (
                input(
                    json!({
                        "folder_id": id("The folder's id, as list_folders or list_activations give it."),
                        "limit": limit(),
                        "cursor": cursor(),
                    }),
                    &["folder_id"],
                ),
                output(page(contact_item())),
            ),
            reads(),
        ),
        "list_activations" => tool(
            name,
            "List activations",
            "One page of the account's POTA activations (portable operations), latest start first; pass the answer's cursor to read on. With in_progress only those not ended: the tool reads on through the service's pages until it has limit of them or the list ends.",
            (
                input(
                    json!({
                        "limit": limit(),
                        "cursor": cursor(),
                        "in_progress": described(
                            json!({ "type": "boolean" }),
                            "Only the activations that have not ended.",
                        ),
                    }),
                    &[],
                ),
                output(page(folder_item())),
            ),
            reads(),
        ),
        "create_contact" => tool(
            name,
            "Log a contact",
            concat!(
                "Logs one contact (QSO) in a monthly, activation or contest log folder (a category holds none); a monthly folder takes only contacts of its UTC month. ",
                "Safe to repeat with the same idempotency_key: the contact is stored once and the answer says replayed. ",
                "A duplicate (in an activation folder, or with sig in a hunting folder: the same callsign, band, mode, sig, sig_info and UTC day as a contact already there) is stored all the same, and the answer's text names the first as duplicateOf. ",
                "sig POTA needs sig_info with the worked park's reference: ",
                park_shape!(),
                "; any other reference is refused. ",
                "It goes on to the account's external logbooks (QRZ) that push new contacts automatically.",
            ),
            (
                input(
                    with_declared(json!({
                        "folder_id": text(1, 1500),
                        "callsign": text(1, seed::CALLSIGN.max),
                        "frequency": described(
                            json!({ "type": "number", "exclusiveMinimum": 0 }),
                            "In MHz within an amateur band, e.g. 14.074; a value that is a band's frequency in kHz, such as 14074, is read as kHz.",
                        ),
                        "mode": text(1, seed::MODE.max),
                        "time_on": date_time("When the contact began, in UTC or with an offset, e.g. 2026-11-22T14:05:00Z; not before 1900 nor more than a day ahead."),
                        "idempotency_key": idempotency_key(),
                        "rst_sent": text(1, seed::RST_SENT.max),
                        "rst_received": text(1, seed::RST_RECEIVED.max),
                        "notes": text(0, seed::NOTES.max),
                        "name": described(text(1, seed::NAME.max), "The other operator's name."),
                        "sig": described(text(1, seed::SIG.max), "The worked station's program, e.g. POTA."),
                        "sig_info": described(
                            text(1, seed::SIG_INFO.max),
                            concat!(
                                "The worked station's reference; with sig POTA the park: ",
                                park_shape!(),
                                ". Needs sig.",
                            ),
                        ),
                        "my_sig": described(
                            text(1, seed::MY_SIG.max),
                            "Your own program; in an activation folder it is the activation's (POTA), and another is refused.",
                        ),
                        "my_sig_info": described(
                            text(1, seed::MY_SIG_INFO.max),
                            "Your own reference; in an activation folder it is the activation's park, and another is refused. Needs my_sig.",
                        ),
                        "exchange": described(
                            text(1, 100),
                            "In a contest log: the exchange received, as contesters type it, e.g. \"3A EMA\" for Field Day, \"14\" or \"579 14\" for CQ WW (the report, left out, is 599, or 59 on phone); the log's contest reads it into the contact's fields and srxString, and what it does not read is refused.",
                        ),
                    })),
                    &[
                        "folder_id",
                        "callsign",
                        "frequency",
                        "mode",
                        "time_on",
                        "idempotency_key",
                    ],
                ),
                output(object(
                    json!({ "id": string(), "replayed": { "type": "boolean" } }),
                    &["id"],
                )),
            ),
            writes(false, true),
        ),
        "create_activation" => tool(
            name,
            "Start an activation",
            "Finds or makes the POTA activation folder of an activator (callsign) at a park, or the parks of a two-fer, on the UTC day of start_time; created says whether it is new. Sending the same call again with the same idempotency_key makes nothing more, and the answer's text says replayed.",
            (
                input(
                    json!({
                        "callsign": described(text(1, 32), "The activator's callsign, e.g. W1AW."),
                        "location_reference": described(
                            text(1, 64),
                            concat!(
                                "The POTA park reference: ",
                                park_shape!(),
                                ". Anything else is refused, a SOTA summit (W7W/KG-001) among them.",
                            ),
                        ),
                        "program_id": described(
                            text(1, 64),
                            "The program: pota, in any case, the default and the only one with activations; dx and repeaters are hunting-only and refused, as is any other.",
                        ),
                        "location_name": described(text(1, 256), "A label for the place: one line of at most 100 characters."),
                        "start_time": date_time("When the activation began, e.g. 2026-11-22T14:00:00Z; its UTC day is the activation's. Not before 1900 nor more than a day ahead."),
                        "idempotency_key": idempotency_key(),
                    }),
                    &[
                        "callsign",
                        "location_reference",
                        "start_time",
                        "idempotency_key",
                    ],
                ),
                output(folder_created()),
            ),
            writes(false, false),
        ),
        "create_folder" => tool(
            name,
            "Make a folder",
            "Makes a category folder named name under parent_id, a category found by its id or by its name, or under All Contacts when parent_id is left out. Every call with a new idempotency_key makes a new category, even beside one of the same name; sending the same call again with the same key makes nothing more, and the answer's text says replayed.",
            (
                input(
                    json!({
                        "name": described(text(1, seed::NAME.max), "The new category's name: one line of at most 100 characters."),
                        "parent_id": described(
                            text(1, 1500),
                            "The category to make it in: its id (fld_...), or its name, matched without regard to case among the account's categories (All Contacts and POTA included); a name no category has, or that several have, is refused.",
                        ),
                        "idempotency_key": idempotency_key(),
                    }),
                    &["name", "idempotency_key"],
                ),
                output(object(
                    json!({ "id": string(), "name": string(), "created": { "type": "boolean" } }),
                    &["id", "name", "created"],
                )),
            ),
            writes(false, false),
        ),
        "pota_file" => tool(
            name,
            "An activation's POTA file",
            "The ADIF file POTA takes for an activation's upload, with the name POTA expects (CALL@PARK-YYYYMMDD.adi): every contact over all its UTC days, one record per worked park. Save adif under fileName and upload it. A two-fer (parks US-1234,US-5678) has one file per park in files, each to upload; the top-level file is the first park's.",
            (
                input(
                    json!({ "activation_id": id("The activation's folder id.") }),
                    &["activation_id"],
                ),
                output(object(
                    json!({
                        "fileName": string(),
                        "adif": string(),
                        "contacts": { "type": "number" },
                        "records": { "type": "number" },
                        "files": {
                            "type": "array",
                            "items": object(
                                json!({
                                    "park": string(),
                                    "fileName": string(),
                                    "adif": string(),
                                    "records": { "type": "number" },
                                }),
                                &["park", "fileName", "adif", "records"],
                            ),
                        },
                    }),
                    &["fileName", "adif", "contacts", "records"],
                )),
            ),
            reads(),
        ),
        "lookup_callsign" => tool(
            name,
            "Look up a callsign",
            "Who a station is, from the callbook connected with svc lookup connect (QRZ's XML service or HamQTH): name, QTH, state, grid, country, DXCC entity, CQ and ITU zones, continent. Answers are cached for 30 days, and an older one stands in when the callbook cannot be reached (cached true); fields the callbook does not give are left out, and note says what it added, such as that a QRZ account without an XML subscription gets a partial record. With no callbook connected it fails with unauthorized.",
            (
                input(
                    json!({
                        "callsign": described(text(1, 32), "The call to look up, e.g. W1AW or VE3/W1AW/P."),
                    }),
                    &["callsign"],
                ),
                output(object(
                    json!({
                        "callsign": string(),
                        "name": string(),
                        "qth": string(),
                        "state": string(),
                        "grid": string(),
                        "country": string(),
                        "dxcc": { "type": "integer" },
                        "cqZone": { "type": "integer" },
                        "ituZone": { "type": "integer" },
                        "continent": { "type": "string", "enum": ["AF", "AN", "AS", "EU", "NA", "OC", "SA"] },
                        "source": { "type": "string", "enum": ["qrz", "hamqth"] },
                        "fetchedAt": date_time("When the callbook gave this answer."),
                        "note": string(),
                        "cached": { "type": "boolean" },
                    }),
                    &["callsign", "source", "fetchedAt", "cached"],
                )),
            ),
            asks_outside(),
        ),
        "lookup_park" => tool(
            name,
            "Look up a park",
            "A POTA park by its reference, as svc parks show gives it: name, location (POTA's location code, e.g. US-ME), grid and position, with source (cache or api) and fetchedAt. The park cache answers while its copy is younger than 30 days, else POTA is asked and the cache keeps the answer; when POTA cannot be reached an older copy answers (source cache), and the answer's text says why in unreachable. A reference POTA does not know fails with not_found, no answer from POTA and no copy with network.",
            (
                input(
                    json!({
                        "reference": one_park("One park, e.g. US-0001 or VE-5082@CA-AB (the location is left out), in any case."),
                    }),
                    &["reference"],
                ),
                output(object(
                    json!({
                        "reference": string(),
                        "name": string(),
                        "location": string(),
                        "grid": string(),
                        "latitude": { "type": "number" },
                        "longitude": { "type": "number" },
                        "source": { "type": "string", "enum": ["api", "cache"] },
                        "fetchedAt": date_time("When POTA gave this answer, or the park list holding it was imported."),
                    }),
                    &["reference", "name", "source", "fetchedAt"],
                )),
            ),
            asks_outside(),
        ),
        "list_spots" => tool(
            name,
            "List POTA spots",
            "The POTA activators on the air now, newest spot first, read from POTA at each call, as svc spots gives them: activator, frequency in MHz and its band, mode, park reference and name, location, spot time, spotter, comments. A spot with no activator, park or frequency, or one POTA marked invalid, is left out.",
            (
                input(
                    json!({
                        "band": described(text(1, 8), "Only spots on this band, e.g. 20m or 2m, in any case."),
                        "mode": described(
                            text(1, 32),
                            "Only spots of this class, cw, phone (SSB, AM, FM and digital voice) or data (every other mode), or of this one mode, e.g. FT8.",
                        ),
                    }),
                    &[],
                ),
                output(object(
                    json!({ "items": { "type": "array", "items": spot_item() } }),
                    &["items"],
                )),
            ),
            asks_outside(),
        ),
        "get_awards" => tool(
            name,
            "Award progress",
            "Where the account's log stands with an award, as svc awards and GET /v1/awards/{award} give it: the rows (DXCC entity, US state, CQ zone, VUCC grid square, POTA park) each with its mark, W worked or C confirmed, overall (mixed), per band column (satellite contacts are the column SAT, never their band) and per mode class (cw, phone, data), and the totals of worked and confirmed rows. DXCC lists deleted entities apart, never in a total; contacts with no entity (/MM) count for nothing. Confirmed means confirmed by one of confirmed_by (default lotw and card, as ARRL counts). pota-activator counts a park activated where 10 valid contacts were made from it on one UTC day, and has no confirmations.",
            (
                input(
                    json!({
                        "award": described(
                            json!({ "type": "string", "enum": Award::ALL.map(Award::id) }),
                            "The award.",
                        ),
                        "band": described(text(1, 8), "Only contacts on this band, e.g. 20m, or SAT for satellite contacts."),
                        "mode": described(
                            text(1, 32),
                            "Only contacts of this class, cw, phone (SSB, AM, FM and digital voice) or data (every other mode), or of this one mode, e.g. FT8 (a mode takes its submodes).",
                        ),
                        "confirmed_by": described(
                            json!({
                                "type": "array",
                                "minItems": 1,
                                "items": { "type": "string", "enum": Service::ALL.map(Service::id) },
                            }),
                            "The QSL services whose confirmations count; lotw and card when left out.",
                        ),
                    }),
                    &["award"],
                ),
                output(award_report()),
            ),
            reads(),
        ),
        "spot_activation" => tool(
            name,
            "Spot an activation on POTA",
            "Posts one spot to POTA for hunters to see: the activator is on frequency (MHz, in an amateur band; POTA is sent kHz) in mode at the park, as svc spot does. The activator, who is also the spotter, is the key's account callsign unless given. It is sent once, when called: never retried and never kept to send later, since a late spot sends hunters to a frequency the activator has left; calling again posts another spot. The answer is the spot as POTA took it. No answer from POTA fails with network, saying whether the spot surely was not sent or may have arrived (list_spots shows whether it did).",
            (
                input(
                    json!({
                        "reference": one_park("One park, e.g. US-0001, in any case; a two-fer spots the first and names the others in the comment."),
                        "frequency": described(
                            json!({ "type": "number", "exclusiveMinimum": 0 }),
                            "In MHz within an amateur band, e.g. 14.285.",
                        ),
                        "mode": described(text(1, 32), "An ADIF mode or submode, e.g. SSB, CW or FT8."),
                        "comment": described(text(1, svc_model::text::SPOT_COMMENT_MAX_CHARS), "A comment for hunters, one line, e.g. QRV or QSY 7.185."),
                        "activator": described(
                            text(1, 32),
                            "The activator's callsign, e.g. W1AW; the key's account callsign when left out.",
                        ),
                    }),
                    &["reference", "frequency", "mode"],
                ),
                output(spot_item()),
            ),
            tells_outside(),
        ),
        "end_activation" => tool(
            name,
            "End an activation",
            "Marks an activation as ended, now or at end_time; it cannot be undone. An activation ends once: ending it again is refused and changes nothing, as are an end_time before its start and a folder that is not an activation.",
            (
                input(
                    json!({
                        "activation_id": id("The activation's folder id."),
                        "end_time": date_time("When it ended; now when left out. Not before the activation's start nor more than a day ahead."),
                    }),
                    &["activation_id"],
                ),
                output(folder_item()),
            ),
            writes(true, false),
        ),
        "add_activation_park" => tool(
            name,
            "Add a park to an activation",
            "Makes an activation a two-fer (or more): each park of location_reference it lacks is added after its own, its name takes the new list, and every contact of it counts for every park from then on (mySigInfo). A park it has already changes nothing, so the same call again is harmless. Needs an elevated key, since it changes the activation's contacts. Refused, changing nothing, when another activation of that activator and day is at these parks already.",
            (
                input(
                    json!({
                        "activation_id": id("The activation's folder id."),
                        "location_reference": described(
                            text(1, 64),
                            concat!("The park or parks to add: ", park_shape!(), "."),
                        ),
                    }),
                    &["activation_id", "location_reference"],
                ),
                output(folder_item()),
            ),
            writes(true, true),
        ),
        "start_contest" => tool(
            name,
            "Start or join a contest log",
            "Starts the station's log of a contest (a folder of type contest, which create_contact logs into: each contact gets the contest's CONTEST_ID, the exchange it sent with its stx serial number, and the contest's own dupe check), or joins the log of that contest, callsign and contest weekend when there is one, as a second operator does. exchange is what the station sends beyond the serial number and report, a word a field, e.g. \"2A CT\" for Field Day or \"5\" (the CQ zone) for CQ WW; it is needed to start a log, and when given to join one it must be the log's. contest_id is the contest's id or ADIF CONTEST_ID: ARRL-FD, WFD, CQ-WW-CW, CQ-WW-SSB, CQ-WW-RTTY, CQ-WPX-CW, CQ-WPX-SSB, ARRL-DX-CW, ARRL-DX-SSB, ARRL-SS-CW, ARRL-SS-SSB, NAQP-CW, NAQP-SSB, ARRL-10, ARRL-RTTY or SERIAL.",
            (
                input(
                    json!({
                        "contest_id": described(text(1, 60), "The contest, e.g. ARRL-FD."),
                        "exchange": described(text(0, 100), "What the station sends beyond the serial number and report, e.g. 2A CT."),
                        "callsign": described(text(1, 32), "The call the log is sent under; the key's account callsign when left out."),
                        "categories": {
                            "type": "array",
                            "maxItems": 9,
                            "items": text(1, 40),
                            "description": "Cabrillo categories, kind=VALUE or the value alone: power=LOW, SINGLE-OP, ASSISTED.",
                        },
                        "start_time": date_time("When the log starts; now when left out."),
                    }),
                    &["contest_id"],
                ),
                output(object(
                    json!({
                        "id": string(),
                        "name": string(),
                        "contestId": string(),
                        "exchange": string(),
                        "callsign": string(),
                        "startTime": string(),
                        "qsoCount": { "type": "number" },
                        "created": { "type": "boolean" },
                    }),
                    &["id", "name", "contestId", "created"],
                )),
            ),
            writes(false, false),
        ),
        "contest_standing" => tool(
            name,
            "Where a contest log stands",
            "A contest log's QSOs (duplicates by the contest's rule not counted), dupes, QSO points, multipliers and claimed score, its contacts by band, and who made them, as the service counts them from every contact of the log.",
            (
                input(
                    json!({ "contest_log_id": id("The contest log's folder id (start_contest's id, or list_folders with type contest).") }),
                    &["contest_log_id"],
                ),
                output(object(
                    json!({
                        "id": string(),
                        "name": string(),
                        "contestId": string(),
                        "exchange": string(),
                        "qsos": { "type": "number" },
                        "dupes": { "type": "number" },
                        "points": { "type": "number" },
                        "multipliers": { "type": "number" },
                        "score": { "type": "number" },
                        "bands": { "type": "object", "additionalProperties": { "type": "number" } },
                        "operators": { "type": "array", "items": string() },
                    }),
                    &["id", "qsos", "dupes", "points", "multipliers", "score"],
                )),
            ),
            reads(),
        ),
        "contest_cabrillo" => tool(
            name,
            "A contest log's Cabrillo file",
            "The Cabrillo 3.0 file a contest's log checkers take for a contest log: the header with the categories and CLAIMED-SCORE, and a QSO line a contact with both exchanges in full. Save cabrillo under fileName and submit it. Refused, saying what to give, without a power category (categories power=LOW, HIGH or QRP) or when a contact lacks part of an exchange (it names them).",
            (
                input(
                    json!({
                        "contest_log_id": id("The contest log's folder id."),
                        "categories": {
                            "type": "array",
                            "maxItems": 9,
                            "items": text(1, 40),
                            "description": "Cabrillo categories over the log's, kind=VALUE or the value alone: power=LOW.",
                        },
                        "name": described(text(0, 75), "The operator's name for the header."),
                        "email": described(text(0, 100), "The operator's email for the header."),
                    }),
                    &["contest_log_id"],
                ),
                output(object(
                    json!({
                        "fileName": string(),
                        "cabrillo": string(),
                        "qsos": { "type": "number" },
                    }),
                    &["fileName", "cabrillo", "qsos"],
                )),
            ),
            reads(),
        ),
        "delete_contact" => tool(
            name,
            "Delete a contact",
            "Deletes one contact for good, from the external logbooks (QRZ) it was pushed to as well. Needs an elevated key. confirmation must read exactly DELETE followed by a space and the qso_id. Sending the same call again with the same idempotency_key answers success with replayed, for 30 days, rather than not_found.",
            (
                input(
                    json!({
                        "qso_id": text(1, 1500),
                        "confirmation": text(0, 1510),
                        "idempotency_key": idempotency_key(),
                    }),
                    &["qso_id", "confirmation", "idempotency_key"],
                ),
                output(object(
                    json!({
                        "success": { "type": "boolean", "const": true },
                        "replayed": { "type": "boolean" },
                    }),
                    &["success"],
                )),
            ),
            writes(true, true),
        ),
        _ => return None,
    })
}
