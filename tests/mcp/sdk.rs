//! `svc mcp` as the official MCP Python SDK (PyPI's `mcp`) finds it: `sdk_client.py` beside
//! this file drives the built binary over stdio with the SDK's own client, which checks the
//! handshake, every message and each answer's structured content against the tool's output
//! schema, and prints what it saw; the test checks that against the service.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::cli::{Cli, monthly, setup};
use crate::common::pota::FakePota;
use crate::common::{contact, this_month};

/// The virtual environment's python with the SDK release the test is pinned to; without it
/// the test is skipped, or fails where SVC_TEST_REQUIRE_PYTHON=1 (as CI sets it): CI runs it.
fn sdk() -> Option<std::path::PathBuf> {
    crate::common::python::with(crate::common::python::MCP, "the MCP SDK test")
}

/// The protocol versions `svc mcp` answers an `initialize` with (docs/CLI.md, "svc mcp"; the
/// third, 2026-07-28, has no `initialize`).
const DOCUMENTED: [&str; 2] = ["2025-06-18", "2025-11-25"];

const READ_TOOLS: [&str; 11] = [
    "whoami",
    "list_folders",
    "list_contacts",
    "list_activations",
    "pota_file",
    "lookup_callsign",
    "lookup_park",
    "list_spots",
    "get_awards",
    "contest_standing",
    "contest_cabrillo",
];

const WRITE_TOOLS: [&str; 7] = [
    "create_contact",
    "create_activation",
    "create_folder",
    "end_activation",
    "add_activation_park",
    "start_contest",
    "spot_activation",
];

/// Runs `sdk_client.py` on `sessions`, `svc mcp` getting the environment `cli` gives its
/// commands, and returns its summary.
fn run_sdk(python: &std::path::Path, cli: &Cli, sessions: Value) -> Value {
    let svc = cli.std_command();
    let env: serde_json::Map<String, Value> = svc
        .get_envs()
        .filter_map(|(name, value)| {
            let value = value?.to_str()?;
            Some((name.to_str()?.to_owned(), json!(value)))
        })
        .collect();
    let plan = json!({ "svc": svc.get_program().to_str(), "env": env, "sessions": sessions });
    // The plan, key included, goes on stdin: never on a command line others can read.
    let mut python = Command::new(python)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/mcp/sdk_client.py"
        ))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the virtual environment's python starts");
    let mut stdin = python.stdin.take().unwrap();
    stdin.write_all(plan.to_string().as_bytes()).unwrap();
    drop(stdin);
    let out = python.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the SDK's client failed:\n{stderr}");
    // The SDK warns on stderr of a message it could not take, and passes on svc's stderr:
    // neither has anything to say.
    assert_eq!(stderr, "", "stderr of the SDK or svc mcp");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "the SDK's client printed no summary ({e}):\n{}\n{stderr}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// A call the SDK saw succeed: its arguments fit the input schema, it came back in one text
/// block holding the whole answer, and the SDK checked its structured content against the
/// output schema. Returns the structured content.
fn ok(call: &Value) -> &Value {
    assert!(call.get("rpcError").is_none(), "{call}");
    assert_eq!(call["isError"], false, "{call}");
    assert_eq!(call["inputErrors"], json!([]), "{call}");
    assert_eq!(call["contentTypes"], json!(["text"]), "{call}");
    let structured = &call["structured"];
    for (key, value) in structured.as_object().expect("an object") {
        assert_eq!(&call["text"][key], value, "the text holds {key}: {call}");
    }
    structured
}

/// A call refused as a tool error with `code`, whose structured content fits the tool's output
/// schema (the SDK checks only successes); returns it and the exit code its text gives.
fn refused<'a>(call: &'a Value, code: &str) -> (&'a Value, u64) {
    assert_eq!(call["isError"], true, "{call}");
    assert_eq!(call["outputErrors"], json!([]), "{call}");
    assert_eq!(call["contentTypes"], json!(["text"]), "{call}");
    let structured = &call["structured"];
    assert_eq!(structured["error"], code, "{call}");
    assert!(
        structured["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{call}"
    );
    (
        structured,
        call["text"]["exitCode"].as_u64().expect("an exit code"),
    )
}

#[test]
fn the_mcp_python_sdk_reads_and_logs_through_svc_mcp() {
    let Some(python) = sdk() else {
        return;
    };
    let (_server, api, cli) = setup("basic");
    let folder = monthly(&api);
    assert_eq!(
        api.post("/v1/contacts", contact(&folder, "K1ABC")).status,
        201
    );
    let pota = FakePota::start();
    cli.set_env("SVC_POTA_API_URL", &pota.url());
    let time_on = this_month().1;
    let log = |callsign: &str, time_on: &str, key: &str| {
        json!({
            "folder_id": folder, "callsign": callsign, "frequency": 14.285, "mode": "SSB",
            "time_on": time_on, "rst_sent": "59", "gridsquare": "FN31pr", "tx_pwr": 100,
            "idempotency_key": key,
        })
    };
    let summary = run_sdk(
        &python,
        &cli,
        json!([
            {
                "flags": [],
                "calls": [
                    ["whoami", {}],
                    ["list_folders", { "type": "monthly" }],
                    ["list_contacts", { "folder_id": folder }],
                    ["lookup_park", { "reference": "us-0001" }],
                    ["list_spots", { "band": "20m" }],
                    ["get_awards", { "award": "dxcc" }],
                    ["create_contact", log("K2DEF", &time_on, "sdk-read-only")],
                ],
            },
            {
                "flags": ["--allow-writes"],
                "calls": [
                    ["create_contact", log("K2DEF", &time_on, "sdk-contact-1")],
                    ["create_contact", log("K3GHI", "yesterday", "sdk-contact-2")],
                    ["log_contact", {}],
                ],
            },
        ]),
    );
    assert!(
        !summary.to_string().contains(api.key()),
        "the key is never shown"
    );
    assert_eq!(
        Some(summary["sdk"].as_str().expect("the SDK's version")),
        crate::common::python::MCP.strip_prefix("mcp==")
    );

    // Every version the SDK knows opens a session, at a version svc says it speaks: the one
    // asked for where it is one of those.
    let negotiated = summary["negotiated"].as_object().unwrap();
    assert!(negotiated.contains_key("2025-11-25"), "{negotiated:?}");
    for (asked, answered) in negotiated {
        let answered = answered.as_str().unwrap();
        assert!(DOCUMENTED.contains(&answered), "{asked} → {answered}");
        if DOCUMENTED.contains(&asked.as_str()) {
            assert_eq!(answered, asked);
        }
    }

    let [read, write] = [&summary["sessions"][0], &summary["sessions"][1]];
    for session in [read, write] {
        assert_eq!(session["protocolVersion"], "2025-11-25");
        assert_eq!(
            session["serverInfo"],
            json!({ "name": "svc", "version": env!("CARGO_PKG_VERSION") })
        );
        assert_eq!(session["schemaErrors"], json!({}), "{session}");
    }
    assert_eq!(read["tools"], json!(READ_TOOLS));
    let all: Vec<&str> = READ_TOOLS.iter().chain(&WRITE_TOOLS).copied().collect();
    assert_eq!(write["tools"], json!(all));

    let calls = read["calls"].as_array().unwrap();
    let me = ok(&calls[0]);
    assert_eq!(
        (&me["callsign"], &me["nativeQsoCount"]),
        (&json!("W1AW"), &json!(1))
    );
    let folders = ok(&calls[1])["items"].as_array().unwrap();
    assert!(folders.iter().any(|f| f["id"] == folder), "{folders:?}");
    let contacts = ok(&calls[2])["items"].as_array().unwrap();
    assert_eq!(contacts.len(), 1);
    assert_eq!(contacts[0]["callsign"], "K1ABC");
    let park = ok(&calls[3]);
    assert_eq!(
        (&park["reference"], &park["name"], &park["source"]),
        (
            &json!("US-0001"),
            &json!("Acadia National Park"),
            &json!("api")
        )
    );
    let spots: Vec<&Value> = ok(&calls[4])["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["activator"])
        .collect();
    assert_eq!(spots, [&json!("W1AW"), &json!("VE3XYZ")]);
    // The one contact, K1ABC, is the USA worked; the answer keeps to the published shape.
    let dxcc = ok(&calls[5]);
    assert_eq!(dxcc["rows"][0]["key"], "291", "{dxcc}");
    assert_eq!(
        dxcc["totals"]["mixed"],
        json!({ "worked": 1, "confirmed": 0 })
    );
    // Not offered without --allow-writes (so no schema of it to check against): refused.
    let off = &calls[6];
    assert_eq!(off["isError"], true, "{off}");
    assert_eq!(off["structured"]["error"], "validation_error", "{off}");
    assert_eq!(off["text"]["exitCode"], 2, "{off}");
    assert!(
        off["structured"]["message"]
            .as_str()
            .unwrap()
            .contains("--allow-writes"),
        "{off}"
    );

    let calls = write["calls"].as_array().unwrap();
    let id = ok(&calls[0])["id"].as_str().expect("the new contact's id");
    // A time the input schema refuses too, refused by svc before anything is sent.
    assert_ne!(calls[1]["inputErrors"], json!([]), "{}", calls[1]);
    let (error, exit) = refused(&calls[1], "validation_error");
    assert!(
        error["message"].as_str().unwrap().contains("time_on"),
        "{error}"
    );
    assert_eq!(exit, 2);
    // A tool that does not exist is a protocol error: invalid params.
    assert_eq!(calls[2]["rpcError"]["code"], -32602, "{}", calls[2]);

    // Stored as sent, and only that one.
    let stored = api.contacts(&folder);
    assert_eq!(stored.len(), 2, "{stored:?}");
    let new = stored.iter().find(|c| c["id"] == id).expect("the contact");
    assert_eq!(new["callsign"], "K2DEF");
    assert_eq!(new["frequency"], 14.285);
    assert_eq!(new["rstSent"], "59");
    assert_eq!(new["gridsquare"], "FN31pr");
    assert_eq!(new["txPwr"], 100.0);
}
