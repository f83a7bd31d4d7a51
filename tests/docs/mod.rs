//! The documents that describe the contact's fields are made from the field table
//! (crates/model/src/fields.rs), so they cannot drift from it: each holds a block between marker
//! lines that this test writes out and compares. `SVC_UPDATE_DOCS=1 cargo test docs` rewrites
//! the blocks after a change of the table.

use std::path::{Path, PathBuf};

mod deploy;

use svc::model::fields::{
    Def, FIELDS, Kind, MAX_ADIF_ENTRIES, MAX_ADIF_NAME, MAX_ADIF_VALUE, SEED_ADIF,
};

const BEGIN: &str = "BEGIN generated from crates/model/src/fields.rs";
const END: &str = "END generated from crates/model/src/fields.rs";

fn path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

/// Compares (or, with SVC_UPDATE_DOCS=1, replaces) the lines between the markers of `file`.
fn check_block(file: &str, generated: &str) {
    let p = path(file);
    let text = std::fs::read_to_string(&p).unwrap();
    let start = text
        .find(BEGIN)
        .and_then(|i| text[i..].find('\n').map(|n| i + n + 1))
        .unwrap_or_else(|| panic!("{file} has no line with {BEGIN:?}"));
    let end = text[start..]
        .find(END)
        .and_then(|i| text[..start + i].rfind('\n').map(|n| n + 1))
        .unwrap_or_else(|| panic!("{file} has no line with {END:?} after the first"));
    if text[start..end] == *generated {
        return;
    }
    if std::env::var_os("SVC_UPDATE_DOCS").is_some() {
        let updated = format!("{}{generated}{}", &text[..start], &text[end..]);
        std::fs::write(&p, updated).unwrap();
        return;
    }
    panic!(
        "{file}'s generated block does not follow crates/model/src/fields.rs; run SVC_UPDATE_DOCS=1 cargo test docs and review the change"
    );
}

/// `[Cc][Aa][Ll][Ll]`: a name as an ECMA regex matches it in any case.
fn any_case(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphabetic() {
                format!("[{}{}]", c.to_ascii_uppercase(), c.to_ascii_lowercase())
            } else {
                c.to_string()
            }
        })
        .collect()
}

const ONE_LINE: &str = r"^[^\u0000-\u001f\u007f-\u009f]*$";
const LINES: &str = r"^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*$";
const GRID: &str = "^(?:[A-Ra-r]{2}(?:[0-9]{2}(?:[A-Xa-x]{2}(?:[0-9]{2})?)?)?)?$";

fn yaml_list(values: &[&str]) -> String {
    values
        .iter()
        .map(|v| format!("\"{v}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

fn bands() -> Vec<&'static str> {
    svc::model::band::BAND_NAMES.to_vec()
}

/// A declared field's schema in a request: its value, or null (absent; cleared in an edit).
fn input_schema(def: &Def) -> String {
    let d = def.help.replace('"', "'");
    match def.kind {
        Kind::Text(max) | Kind::Upper(max) => format!(
            "{{type: [string, \"null\"], maxLength: {max}, pattern: '{ONE_LINE}', description: \"{d}\"}}"
        ),
        Kind::Lines(max) => format!(
            "{{type: [string, \"null\"], maxLength: {max}, pattern: '{LINES}', description: \"{d}\"}}"
        ),
        Kind::Call => format!(
            "{{anyOf: [{{$ref: \"#/components/schemas/Callsign\"}}, {{type: \"null\"}}], description: \"{d}\"}}"
        ),
        Kind::Grid => {
            format!("{{type: [string, \"null\"], pattern: '{GRID}', description: \"{d}\"}}")
        }
        Kind::Integer(lo, hi) => format!(
            "{{type: [integer, \"null\"], minimum: {lo}, maximum: {hi}, description: \"{d}\"}}"
        ),
        Kind::Number(lo, hi) => format!(
            "{{type: [number, \"null\"], minimum: {lo}, maximum: {hi}, description: \"{d}\"}}"
        ),
        Kind::Choice(values) => {
            format!(
                "{{enum: [{}, null], description: \"{d}\"}}",
                yaml_list(values)
            )
        }
        Kind::Date => format!("{{type: [string, \"null\"], format: date, description: \"{d}\"}}"),
        Kind::Instant => format!(
            "{{anyOf: [{{$ref: \"#/components/schemas/InputTime\"}}, {{type: \"null\"}}], description: \"{d}\"}}"
        ),
        Kind::Band => format!(
            "{{enum: [{}, null], description: \"{d}\"}}",
            yaml_list(&bands())
        ),
    }
}

/// A declared field's schema in an answer.
fn output_schema(def: &Def) -> String {
    let d = def.help.replace('"', "'");
    match def.kind {
        Kind::Integer(..) => format!("{{type: integer, description: \"{d}\"}}"),
        Kind::Number(..) => format!("{{type: number, description: \"{d}\"}}"),
        Kind::Choice(values) => format!("{{enum: [{}], description: \"{d}\"}}", yaml_list(values)),
        Kind::Date => format!("{{type: string, format: date, description: \"{d}\"}}"),
        Kind::Instant => {
            format!("{{$ref: \"#/components/schemas/Timestamp\", description: \"{d}\"}}")
        }
        Kind::Band => format!("{{enum: [{}], description: \"{d}\"}}", yaml_list(&bands())),
        _ => format!("{{type: string, description: \"{d}\"}}"),
    }
}

fn openapi_block() -> String {
    let mut out = String::new();
    // The modes a create or an edit takes (an import keeps others as the file had them).
    let modes: Vec<&str> = svc::model::mode::MODES
        .iter()
        .copied()
        .chain(svc::model::mode::SUBMODES.iter().map(|(s, _)| *s))
        .collect();
    out.push_str(&format!(
        "    Mode:\n      type: string\n      description: An ADIF mode or submode (ADIF 3.1.6's enumerations and FT2), in any case, stored upper-cased; an import (`POST /v1/contacts/batch` with `import`) also keeps a mode ADIF does not know, as the file had it.\n      enum: [{}]\n",
        yaml_list(&modes)
    ));
    out.push_str("    DeclaredFields:\n      type: object\n      description: The fields beyond the seed's, each absent when it has no value (docs/API.md, \"Fields\").\n      properties:\n");
    for def in FIELDS {
        out.push_str(&format!("        {}: {}\n", def.wire, output_schema(def)));
    }
    out.push_str("        adif:\n          type: object\n          description: Every other ADIF field of the contact, by upper-case ADIF name, as read.\n          additionalProperties: {type: string}\n");
    out.push_str("        bandOnly: {type: boolean, const: true, description: \"The log had the band and no frequency; frequency is the band's lower edge.\"}\n");
    out.push_str("    DeclaredFieldInputs:\n      type: object\n      description: The fields beyond the seed's in a create or an edit; null or blank is absent (cleared, in an edit).\n      properties:\n");
    for def in FIELDS {
        out.push_str(&format!("        {}: {}\n", def.wire, input_schema(def)));
    }
    out.push_str("        bandOnly: {type: [boolean, \"null\"], description: \"true when the log had the band and no frequency (send the band's lower edge as frequency).\"}\n");
    // The adif map may not hold what svc writes from its own fields; the schema also keeps
    // out the declared fields' ADIF names, which the server takes only when the declared
    // field itself is absent (a value kept as read).
    let reserved: Vec<String> = SEED_ADIF
        .iter()
        .copied()
        .chain(FIELDS.iter().map(|d| d.adif))
        .map(any_case)
        .collect();
    out.push_str(&format!(
        "        adif:\n          type: [object, \"null\"]\n          description: Other ADIF fields to keep (an edit merges them; null removes one).\n          maxProperties: {MAX_ADIF_ENTRIES}\n          propertyNames:\n            pattern: '^[A-Za-z0-9_]{{1,{MAX_ADIF_NAME}}}$'\n            not: {{pattern: '^(?:{})$'}}\n          additionalProperties: {{type: [string, \"null\"], maxLength: {MAX_ADIF_VALUE}, pattern: '{LINES}'}}\n",
        reserved.join("|")
    ));
    out
}

fn kind_text(def: &Def) -> String {
    match def.kind {
        Kind::Text(max) => format!("text, one line, ≤ {max}"),
        Kind::Lines(max) => format!("text, lines, ≤ {max}"),
        Kind::Upper(max) => format!("text, upper-cased, ≤ {max}"),
        Kind::Call => "callsign".into(),
        Kind::Grid => "locator, 2/4/6/8 (`FN31pr`)".into(),
        Kind::Integer(lo, hi) => format!("integer {lo}–{hi}"),
        Kind::Number(lo, hi) => format!("number {lo}–{hi}"),
        Kind::Choice(values) => values.join(", "),
        Kind::Date => "date `YYYY-MM-DD` (ADIF `YYYYMMDD`)".into(),
        Kind::Instant => "time, UTC (ADIF QSO_DATE_OFF + TIME_OFF)".into(),
        Kind::Band => "band name, e.g. `70cm`".into(),
    }
}

fn markdown_table() -> String {
    let mut out = String::from(
        "| Field | ADIF | Value | `svc contacts` flag | What |\n|---|---|---|---|---|\n",
    );
    for def in FIELDS {
        let flag = if def.common {
            format!("`--{}`", def.flag)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            def.wire,
            def.adif,
            kind_text(def),
            flag,
            def.help
        ));
    }
    out
}

#[test]
fn openapi_declares_every_field_as_the_table_does() {
    check_block("docs/openapi.yaml", &openapi_block());
}

#[test]
fn api_md_and_cli_guide_list_every_field() {
    check_block("docs/API.md", &markdown_table());
    check_block("docs/CLI-GUIDE.md", &markdown_table());
}

/// The flags of `svc contacts create|edit` that the table gives.
fn flags_table() -> String {
    let mut out = String::from("| flag | |\n|---|---|\n");
    for def in FIELDS.iter().filter(|d| d.common) {
        out.push_str(&format!(
            "| `--{} {}` | {} ({}; `{}` on the wire) |\n",
            def.flag,
            svc::cli::fields::value_name(def),
            def.help,
            kind_text(def),
            def.wire
        ));
    }
    out
}

#[test]
fn cli_md_lists_the_field_flags() {
    check_block("docs/CLI.md", &flags_table());
}

/// The commands of the tree that take no subcommand, as `svc contacts edit`; the `server`
/// ones are left out, as CLI.md's `svc server` section sends the reader to API.md for them.
fn client_commands(cmd: &clap::Command, path: &str, out: &mut Vec<String>) {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("{path} {}", sub.get_name());
        if name == "svc server" {
            continue;
        }
        if sub.has_subcommands() {
            client_commands(sub, &name, out);
        } else {
            out.push(name);
        }
    }
}

#[test]
fn cli_md_documents_every_command() {
    let text = std::fs::read_to_string(path("docs/CLI.md")).unwrap();
    // A section, `### svc contacts edit` (or one heading for several, `### svc, svc tui`), and
    // a row of the overview table, whose first cell starts with the command.
    let headings: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .collect();
    let rows: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(" |").next())
        .collect();
    let mut commands = Vec::new();
    client_commands(&svc::cmd::command(), "svc", &mut commands);
    assert!(
        commands.contains(&"svc contacts edit".to_owned()),
        "{commands:?}"
    );
    for command in &commands {
        assert!(
            headings
                .iter()
                .any(|h| h.split(", ").any(|name| name == command)),
            "docs/CLI.md has no section ### {command}"
        );
        let quoted = format!("`{command}");
        assert!(
            rows.iter().any(|cell| cell
                .split(", ")
                .any(|c| c == format!("{quoted}`") || c.starts_with(&format!("{quoted} ")))),
            "docs/CLI.md's overview has no row for {command}"
        );
    }
}
