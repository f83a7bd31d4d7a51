//! `svc mcp`: a real MCP client (rmcp's) drives the built binary over stdio against the real
//! service, as an agent would; `sdk` drives it with the official MCP Python SDK.

mod awards;
mod sdk;

use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, ProtocolVersion, Tool};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::cli::pota::{age_cache, park_requests};
use crate::cli::{Cli, closed_port, monthly, setup};
use crate::common::{block_on, contact, this_month};

type Session = RunningService<RoleClient, ClientConfig>;

fn command(cli: &Cli, flags: &[&str]) -> tokio::process::Command {
    let mut cmd = cli.std_command();
    cmd.arg("mcp").args(flags);
    tokio::process::Command::from(cmd)
}

/// A session with `svc mcp` started with `flags`, over the classic handshake at `version`.
async fn connect_at(cli: &Cli, flags: &[&str], version: ProtocolVersion) -> Session {
    let transport = TokioChildProcess::new(command(cli, flags)).expect("svc mcp starts");
    let mut config = ClientConfig::default();
    config.protocol_version = version;
    config.serve(transport).await.expect("the session opens")
}

async fn connect(cli: &Cli, flags: &[&str]) -> Session {
    connect_at(cli, flags, ProtocolVersion::V_2025_06_18).await
}

async fn call(session: &Session, name: &'static str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    session
        .call_tool(CallToolRequestParams::new(name).with_arguments(args))
        .await
        .expect("tools/call is answered")
}

/// The structured answer of a call that must succeed; it never holds a null.
fn ok(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let value = result
        .structured_content
        .clone()
        .expect("structured content");
    assert!(!has_null(&value), "no nulls in an answer: {value}");
    value
}

/// The structured error of a call that must fail with `code`, and the exit code its text gives.
fn fails(result: &CallToolResult, code: &str) -> (Value, u64) {
    assert_eq!(result.is_error, Some(true), "{result:?}");
    let value = result
        .structured_content
        .clone()
        .expect("structured content");
    assert_eq!(value["error"], code, "{value}");
    assert!(value["message"].as_str().is_some_and(|m| !m.is_empty()));
    let text = result.content[0]
        .as_text()
        .expect("a text block")
        .text
        .clone();
    let text: Value = serde_json::from_str(&text).expect("the text is JSON");
    (value, text["exitCode"].as_u64().expect("an exit code"))
}

/// The text of an answer, read as JSON: the whole answer, where the structured content keeps
/// to the published shape.
fn text_of(result: &CallToolResult) -> Value {
    let text = &result.content[0].as_text().expect("a text block").text;
    serde_json::from_str(text).expect("the text is JSON")
}

/// The structured answer of a call that must succeed, after checking that it holds only the
/// properties the tool's published output shape names, as a client validating it requires.
fn ok_in_shape(tools: &[Tool], name: &str, result: &CallToolResult) -> Value {
    let value = ok(result);
    let tool = tools.iter().find(|t| t.name == name).expect("the tool");
    let schema = Value::Object((**tool.output_schema.as_ref().unwrap()).clone());
    let properties = schema["anyOf"][0]["properties"].as_object().unwrap();
    for key in value.as_object().unwrap().keys() {
        assert!(properties.contains_key(key), "{name}: {key} in {value}");
    }
    value
}

fn has_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().any(has_null),
        Value::Object(map) => map.values().any(has_null),
        _ => false,
    }
}

fn names(tools: &[Tool]) -> Vec<&str> {
    tools.iter().map(|t| t.name.as_ref()).collect()
}

/// Each tool's hints: read-only, destructive, idempotent, open world. The changes are
/// idempotent through their idempotency_key (ending an activation twice is refused), the
/// deletes and the end of an activation are more than additions, and a contact's create and
/// delete go on to the external logbooks the account pushes to; a lookup asks the callbook or
/// POTA. A spot is sent anew at each call: not idempotent.
const HINTS: [(&str, [bool; 4]); 19] = [
    ("whoami", [true, false, true, false]),
    ("list_folders", [true, false, true, false]),
    ("list_contacts", [true, false, true, false]),
    ("list_activations", [true, false, true, false]),
    ("pota_file", [true, false, true, false]),
    ("lookup_callsign", [true, false, true, true]),
    ("lookup_park", [true, false, true, true]),
    ("list_spots", [true, false, true, true]),
    ("get_awards", [true, false, true, false]),
    ("contest_standing", [true, false, true, false]),
    ("contest_cabrillo", [true, false, true, false]),
    ("create_contact", [false, false, true, true]),
    ("create_activation", [false, false, true, false]),
    ("create_folder", [false, false, true, false]),
    ("end_activation", [false, true, true, false]),
    ("add_activation_park", [false, true, true, true]),
    ("start_contest", [false, false, true, false]),
    ("delete_contact", [false, true, true, true]),
    ("spot_activation", [false, false, false, true]),
];

/// The inputs each published tool requires.
const REQUIRED: [(&str, &[&str]); 16] = [
    ("whoami", &[]),
    ("start_contest", &["contest_id"]),
    ("contest_standing", &["contest_log_id"]),
    ("contest_cabrillo", &["contest_log_id"]),
    ("lookup_callsign", &["callsign"]),
    ("lookup_park", &["reference"]),
    ("list_spots", &[]),
    ("get_awards", &["award"]),
    ("spot_activation", &["reference", "frequency", "mode"]),
    (
        "add_activation_park",
        &["activation_id", "location_reference"],
    ),
    ("list_folders", &[]),
    ("list_contacts", &["folder_id"]),
    ("list_activations", &[]),
    (
        "create_contact",
        &[
            "folder_id",
            "callsign",
            "frequency",
            "mode",
            "time_on",
            "idempotency_key",
        ],
    ),
    (
        "create_activation",
        &[
            "callsign",
            "location_reference",
            "start_time",
            "idempotency_key",
        ],
    ),
    (
        "delete_contact",
        &["qso_id", "confirmation", "idempotency_key"],
    ),
];

#[test]
fn tools_list_grows_with_each_permission() {
    let (_server, _api, cli) = setup("elevated");
    block_on(async {
        for (flags, expected) in [
            (
                &[][..],
                &[
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
                ][..],
            ),
            (
                &["--allow-writes"][..],
                &[
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
                    "create_contact",
                    "create_activation",
                    "create_folder",
                    "end_activation",
                    "add_activation_park",
                    "start_contest",
                    "spot_activation",
                ][..],
            ),
            (
                &["--allow-writes", "--allow-deletes"][..],
                &[
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
                    "create_contact",
                    "create_activation",
                    "create_folder",
                    "end_activation",
                    "add_activation_park",
                    "start_contest",
                    "spot_activation",
                    "delete_contact",
                ][..],
            ),
        ] {
            let session = connect(&cli, flags).await;
            let tools = session.list_all_tools().await.unwrap();
            assert_eq!(names(&tools), expected, "{flags:?}");
            for tool in &tools {
                let input = Value::Object((*tool.input_schema).clone());
                assert_eq!(input["type"], "object", "{}", tool.name);
                assert_eq!(input["additionalProperties"], false, "{}", tool.name);
                let output = Value::Object((**tool.output_schema.as_ref().unwrap()).clone());
                assert_eq!(
                    output["anyOf"].as_array().unwrap().len(),
                    2,
                    "{}",
                    tool.name
                );
                let hints = tool.annotations.as_ref().expect("annotations");
                let (_, expected) = HINTS.iter().find(|(n, _)| *n == tool.name).unwrap();
                assert_eq!(
                    [
                        hints.read_only_hint,
                        hints.destructive_hint,
                        hints.idempotent_hint,
                        hints.open_world_hint,
                    ],
                    expected.map(Some),
                    "{}",
                    tool.name
                );
                assert!(tool.description.as_ref().is_some_and(|d| !d.is_empty()));
                if let Some((_, required)) = REQUIRED.iter().find(|(n, _)| *n == tool.name) {
                    let listed: Vec<&str> = input["required"]
                        .as_array()
                        .map(|r| r.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    assert_eq!(listed, *required, "{}", tool.name);
                }
            }
            session.cancel().await.unwrap();
        }
    });
}

#[test]
fn each_protocol_version_negotiates() {
    let (_server, _api, cli) = setup("basic");
    block_on(async {
        for version in [ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25] {
            let session = connect_at(&cli, &[], version.clone()).await;
            let info = session.peer_info().expect("the server's answer");
            assert_eq!(info.protocol_version, version);
            assert_eq!(info.server_info.as_ref().unwrap().name, "svc");
            assert_eq!(session.list_all_tools().await.unwrap().len(), 11);
            session.cancel().await.unwrap();
        }
        let transport = TokioChildProcess::new(command(&cli, &[])).unwrap();
        let session = ClientConfig::default()
            .serve_with_lifecycle(
                transport,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .expect("the 2026-07-28 session opens");
        let info = session.peer_info().expect("the server's answer");
        assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28);
        assert_eq!(info.server_info.as_ref().unwrap().name, "svc");
        let me = ok(&call(&session, "whoami", json!({})).await);
        assert_eq!(me["callsign"], "W1AW");
        session.cancel().await.unwrap();
    });
}

#[test]
fn read_tools_answer_and_fail_with_the_exit_codes_of_the_cli() {
    let (_server, api, cli) = setup("elevated");
    let folder = monthly(&api);
    let mut body = contact(&folder, "K1ABC");
    body["notes"] = json!("first");
    assert_eq!(api.post("/v1/contacts", body).status, 201);
    let activation = api.activation("US-0001", "W1AW");
    block_on(async {
        let session = connect(&cli, &[]).await;
        let me = ok(&call(&session, "whoami", json!({})).await);
        assert_eq!(me["callsign"], "W1AW");
        assert_eq!(me["tier"], "elevated");
        assert_eq!(me["nativeQsoCount"], 1);

        let folders = ok(&call(&session, "list_folders", json!({ "type": "monthly" })).await);
        let listed = folders["items"].as_array().unwrap();
        assert!(listed.iter().any(|f| f["id"] == folder), "{folders}");
        for f in listed {
            for key in f.as_object().unwrap().keys() {
                assert!(
                    [
                        "id",
                        "name",
                        "autoFolderType",
                        "locationReference",
                        "locationName",
                        "programId",
                        "callsign",
                        "startTime",
                        "endTime",
                        "path",
                        "qsoCount"
                    ]
                    .contains(&key.as_str()),
                    "{key} in {f}"
                );
            }
        }

        let contacts = ok(&call(&session, "list_contacts", json!({ "folder_id": folder })).await);
        let items = contacts["items"].as_array().unwrap();
        assert_eq!(items.len(), 1, "{contacts}");
        assert_eq!(items[0]["callsign"], "K1ABC");
        assert_eq!(items[0]["notes"], "first");
        assert!(items[0].get("rstSent").is_none(), "absent, not null");
        assert!(items[0].get("band").is_none(), "only the published fields");

        let page = ok(&call(&session, "list_activations", json!({ "limit": 1 })).await);
        assert_eq!(page["items"][0]["id"], activation.as_str());
        let open = ok(&call(&session, "list_activations", json!({ "in_progress": true })).await);
        assert_eq!(open["items"].as_array().unwrap().len(), 1, "{open}");

        let missing = call(
            &session,
            "list_contacts",
            json!({ "folder_id": "fld_aaaaaaaaaaaaaaaa" }),
        )
        .await;
        let (_, exit) = fails(&missing, "not_found");
        assert_eq!(exit, u64::from(svc::model::ErrorCode::NotFound.exit_code()));
        let (_, exit) = fails(
            &call(&session, "list_folders", json!({ "limit": 0 })).await,
            "validation_error",
        );
        assert_eq!(exit, 2);
        fails(
            &call(&session, "whoami", json!({ "verbose": true })).await,
            "validation_error",
        );
        fails(
            &call(&session, "list_contacts", json!({})).await,
            "validation_error",
        );
        session.cancel().await.unwrap();
    });

    // A key the service does not know, and a service that cannot be reached.
    let stranger = Cli::new(&cli.base);
    stranger.set_env("SVC_API_KEY", "svc_live_ABCDEFGHIJKLMNOPQRSTUVWX");
    let nowhere = Cli::new(&closed_port());
    nowhere.set_env("SVC_API_KEY", api.key());
    block_on(async {
        let session = connect(&stranger, &[]).await;
        let (_, exit) = fails(&call(&session, "whoami", json!({})).await, "unauthorized");
        assert_eq!(exit, 3);
        session.cancel().await.unwrap();
        let session = connect(&nowhere, &[]).await;
        let result = call(&session, "whoami", json!({})).await;
        let (_, exit) = fails(&result, "network");
        assert_eq!(exit, 7);
        let text = &result.content[0].as_text().unwrap().text;
        assert!(!text.contains(api.key()), "the key is never shown");
        session.cancel().await.unwrap();
    });
}

#[test]
fn verbose_shows_the_attempts_on_stderr_and_never_the_key() {
    let (_server, api, cli) = setup("basic");
    let stderr = block_on(async {
        let (transport, stderr) = TokioChildProcess::builder(command(&cli, &["--verbose"]))
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("svc mcp starts");
        let session = ClientConfig::default().serve(transport).await.unwrap();
        ok(&call(&session, "whoami", json!({})).await);
        session.cancel().await.unwrap();
        let mut text = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut stderr.unwrap(), &mut text)
            .await
            .unwrap();
        text
    });
    assert!(stderr.contains("GET"), "{stderr}");
    assert!(stderr.contains("/v1/whoami"), "{stderr}");
    assert!(!stderr.contains(api.key()), "{stderr}");
}

#[test]
fn writes_need_the_flag_and_a_retry_is_replayed() {
    let (_server, api, cli) = setup("elevated");
    let folder = monthly(&api);
    let new_contact = json!({
        "folder_id": folder,
        "callsign": "K1ABC",
        "frequency": 14.074,
        "mode": "FT8",
        "time_on": this_month().1,
        "rst_sent": "-10",
        "idempotency_key": "mcp-test-contact-1",
    });
    block_on(async {
        let session = connect(&cli, &[]).await;
        let (_, exit) = fails(
            &call(&session, "create_contact", new_contact.clone()).await,
            "validation_error",
        );
        assert_eq!(exit, 2);
        session.cancel().await.unwrap();
    });
    assert!(api.contacts(&folder).is_empty(), "nothing was logged");
    block_on(async {
        let session = connect(&cli, &["--allow-writes"]).await;
        let first = ok(&call(&session, "create_contact", new_contact.clone()).await);
        assert!(first.get("replayed").is_none(), "{first}");
        let again = ok(&call(&session, "create_contact", new_contact.clone()).await);
        assert_eq!(again["id"], first["id"]);
        assert_eq!(again["replayed"], true);

        let mut bad = new_contact.clone();
        bad["time_on"] = json!("yesterday");
        bad["idempotency_key"] = json!("mcp-test-contact-2");
        fails(
            &call(&session, "create_contact", bad).await,
            "validation_error",
        );
        let mut stray = new_contact.clone();
        stray["band"] = json!("20m");
        fails(
            &call(&session, "create_contact", stray).await,
            "validation_error",
        );
        // A field name mistyped: the names it could have meant include the contact's fields.
        let mut typo = new_contact.clone();
        typo["grid"] = json!("FN31pr");
        let (error, _) = fails(
            &call(&session, "create_contact", typo).await,
            "validation_error",
        );
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("`grid`") && message.contains("`gridsquare`"),
            "{message}"
        );

        let activation = json!({
            "callsign": "W1AW",
            "location_reference": "US-0002",
            "start_time": this_month().1,
            "idempotency_key": "mcp-test-activation-1",
        });
        let made = ok(&call(&session, "create_activation", activation.clone()).await);
        assert_eq!(made["created"], true, "{made}");
        assert!(
            made["autoFolderKey"]
                .as_str()
                .is_some_and(|k| !k.is_empty()),
            "{made}"
        );
        let mut unknown = activation.clone();
        unknown["location_reference"] = json!("");
        fails(
            &call(&session, "create_activation", unknown).await,
            "validation_error",
        );

        let two_fer = ok(&call(
            &session,
            "add_activation_park",
            json!({ "activation_id": made["id"], "location_reference": "us-5678" }),
        )
        .await);
        assert_eq!(two_fer["id"], made["id"]);
        assert_eq!(two_fer["locationReference"], "US-0002,US-5678", "{two_fer}");
        assert!(
            two_fer["name"]
                .as_str()
                .is_some_and(|n| n.contains("@US-0002,US-5678-")),
            "{two_fer}"
        );
        fails(
            &call(
                &session,
                "add_activation_park",
                json!({ "activation_id": made["id"], "location_reference": "park" }),
            )
            .await,
            "validation_error",
        );

        let ended = ok(&call(
            &session,
            "end_activation",
            json!({ "activation_id": made["id"] }),
        )
        .await);
        assert_eq!(ended["id"], made["id"]);
        assert!(ended["endTime"].is_string(), "{ended}");
        fails(
            &call(
                &session,
                "end_activation",
                json!({ "activation_id": "fld_aaaaaaaaaaaaaaaa" }),
            )
            .await,
            "not_found",
        );

        let category = ok(&call(
            &session,
            "create_folder",
            json!({ "name": "Contests", "idempotency_key": "mcp-test-folder-1" }),
        )
        .await);
        assert_eq!(category["name"], "Contests");
        fails(
            &call(
                &session,
                "create_folder",
                json!({ "name": "", "idempotency_key": "k" }),
            )
            .await,
            "validation_error",
        );
        session.cancel().await.unwrap();
    });
    assert_eq!(
        api.contacts(&folder).len(),
        1,
        "the retry stored nothing more"
    );
}

#[test]
fn a_delete_needs_the_flag_and_the_exact_confirmation() {
    let (_server, api, cli) = setup("elevated");
    let folder = monthly(&api);
    let id = api.post("/v1/contacts", contact(&folder, "K1ABC")).id();
    block_on(async {
        let session = connect(&cli, &["--allow-writes"]).await;
        let args = json!({ "qso_id": id, "confirmation": format!("DELETE {id}"), "idempotency_key": "mcp-del-0" });
        fails(
            &call(&session, "delete_contact", args).await,
            "validation_error",
        );
        session.cancel().await.unwrap();

        let session = connect(&cli, &["--allow-deletes"]).await;
        for wrong in [
            format!("delete {id}"),
            "DELETE".to_owned(),
            format!("DELETE {id} "),
        ] {
            let args =
                json!({ "qso_id": id, "confirmation": wrong, "idempotency_key": "mcp-del-1" });
            fails(
                &call(&session, "delete_contact", args).await,
                "validation_error",
            );
        }
        session.cancel().await.unwrap();
    });
    assert_eq!(api.contacts(&folder).len(), 1, "nothing was deleted");
    block_on(async {
        let session = connect(&cli, &["--allow-deletes"]).await;
        let args = json!({ "qso_id": id, "confirmation": format!("DELETE {id}"), "idempotency_key": "mcp-del-2" });
        let deleted = ok(&call(&session, "delete_contact", args.clone()).await);
        assert_eq!(deleted, json!({ "success": true }));
        // The same call again, as after a lost answer, from a new session (the service keeps
        // the key): replayed, not not_found.
        session.cancel().await.unwrap();
        let session = connect(&cli, &["--allow-deletes"]).await;
        let again = ok(&call(&session, "delete_contact", args.clone()).await);
        assert_eq!(again, json!({ "success": true, "replayed": true }));
        let other = json!({ "qso_id": "qso_aaaaaaaaaaaaaaaa", "confirmation": "DELETE qso_aaaaaaaaaaaaaaaa", "idempotency_key": "mcp-del-2" });
        fails(
            &call(&session, "delete_contact", other).await,
            "validation_error",
        );
        let args = json!({ "qso_id": id, "confirmation": format!("DELETE {id}"), "idempotency_key": "mcp-del-3" });
        fails(&call(&session, "delete_contact", args).await, "not_found");
        session.cancel().await.unwrap();
    });
    assert!(api.contacts(&folder).is_empty());
}

#[test]
fn pota_file_gives_an_activations_upload_file() {
    let (_server, api, cli) = setup("elevated");
    let park = api
        .post(
            "/v1/activations",
            json!({ "locationReference": "US-1234", "callsign": "W1AW" }),
        )
        .id();
    let (_, time_on) = crate::common::this_month();
    for (call, sig_info) in [("K1ABC", None), ("K2DEF", Some("US-4321,US-5678"))] {
        let mut body = json!({ "folderId": park, "callsign": call, "frequency": 14.285,
                               "mode": "SSB", "timeOn": time_on });
        if let Some(parks) = sig_info {
            body["sig"] = json!("POTA");
            body["sigInfo"] = json!(parks);
        }
        assert_eq!(api.post("/v1/contacts", body).status, 201);
    }
    block_on(async {
        let session = connect(&cli, &[]).await;
        let file = ok(&call(&session, "pota_file", json!({ "activation_id": park })).await);
        let day = &time_on[..10].replace('-', "");
        assert_eq!(file["fileName"], format!("W1AW@US-1234-{day}.adi"));
        assert_eq!(file["contacts"], 2);
        assert_eq!(file["records"], 3, "one record per worked park");
        let adif = file["adif"].as_str().unwrap();
        assert!(adif.contains("<CALL:5>K2DEF"), "{adif}");
        assert!(adif.contains("<MY_SIG_INFO:7>US-1234"), "{adif}");
        fails(
            &call(
                &session,
                "pota_file",
                json!({ "activation_id": "fld_aaaaaaaaaaaaaaaa" }),
            )
            .await,
            "not_found",
        );
        session.cancel().await.unwrap();
    });
}

#[test]
fn an_agent_starts_a_contest_log_and_gets_its_standing_and_cabrillo() {
    let (_server, api, cli) = setup("elevated");
    let log = block_on(async {
        let session = connect(&cli, &["--allow-writes"]).await;
        let tools = session.list_all_tools().await.unwrap();
        let started = call(
            &session,
            "start_contest",
            json!({ "contest_id": "arrl-fd", "exchange": "2a ct", "categories": ["LOW"] }),
        )
        .await;
        let log = ok_in_shape(&tools, "start_contest", &started);
        assert_eq!(log["contestId"], "ARRL-FD", "{log}");
        assert_eq!(log["exchange"], "2A CT");
        assert_eq!(log["callsign"], "W1AW");
        assert_eq!(log["created"], true);
        let joined = ok(&call(
            &session,
            "start_contest",
            json!({ "contest_id": "ARRL-FD" }),
        )
        .await);
        assert_eq!(joined["id"], log["id"]);
        assert_eq!(joined["created"], false);
        fails(
            &call(
                &session,
                "start_contest",
                json!({ "contest_id": "CQ-WW-CW" }),
            )
            .await,
            "validation_error",
        );
        fails(
            &call(
                &session,
                "start_contest",
                json!({ "contest_id": "ARRL-FD", "categories": ["MEDIUM"] }),
            )
            .await,
            "validation_error",
        );
        // A contact with its exchange as typed, which the log's contest reads; one it does
        // not read is refused and nothing is stored.
        let (_, time_on) = crate::common::this_month();
        let contact = |exchange: &str, key: &str| {
            json!({ "folder_id": log["id"], "callsign": "W9XYZ", "frequency": 21.025,
                    "mode": "CW", "time_on": time_on, "idempotency_key": key,
                    "exchange": exchange })
        };
        let made = call(&session, "create_contact", contact("1d wi", "mcp-fd-1")).await;
        ok_in_shape(&tools, "create_contact", &made);
        fails(
            &call(&session, "create_contact", contact("2g ct", "mcp-fd-2")).await,
            "validation_error",
        );
        session.cancel().await.unwrap();
        log
    });
    let id = log["id"].as_str().unwrap();
    let stored = api.all_contacts(id);
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(stored[0]["class"], "1D", "{stored:?}");
    assert_eq!(stored[0]["arrlSect"], "WI", "{stored:?}");
    assert_eq!(stored[0]["srxString"], "1D WI", "{stored:?}");
    let (_, time_on) = crate::common::this_month();
    for (call_sign, mhz, mode) in [
        ("K1ABC", 14.025, "CW"),
        ("K1ABC", 14.030, "CW"),
        ("N2XYZ", 7.200, "SSB"),
    ] {
        let r = api.post(
            "/v1/contacts",
            json!({ "folderId": id, "callsign": call_sign, "frequency": mhz, "mode": mode,
                    "timeOn": time_on, "class": "3A", "arrlSect": "EMA" }),
        );
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let monthly = api.monthly(&time_on[..7], None);
    block_on(async {
        let session = connect(&cli, &[]).await;
        let tools = session.list_all_tools().await.unwrap();
        let standing = call(
            &session,
            "contest_standing",
            json!({ "contest_log_id": id }),
        )
        .await;
        let standing = ok_in_shape(&tools, "contest_standing", &standing);
        assert_eq!(standing["qsos"], 3, "{standing}");
        assert_eq!(standing["dupes"], 1);
        assert_eq!(standing["score"], 5);
        assert_eq!(standing["bands"], json!({ "15m": 1, "20m": 2, "40m": 1 }));
        let file = call(
            &session,
            "contest_cabrillo",
            json!({ "contest_log_id": id, "name": "Hiram Maxim" }),
        )
        .await;
        let file = ok_in_shape(&tools, "contest_cabrillo", &file);
        assert_eq!(file["fileName"], "W1AW-ARRL-FD.log");
        assert_eq!(file["qsos"], 4);
        let text = file["cabrillo"].as_str().unwrap();
        assert!(text.starts_with("START-OF-LOG: 3.0\r\n"), "{text}");
        assert!(
            text.contains("CATEGORY-POWER: LOW\r\n") && text.contains("NAME: Hiram Maxim\r\n"),
            "{text}"
        );
        // The standing of a folder that is no contest log is refused.
        fails(
            &call(
                &session,
                "contest_standing",
                json!({ "contest_log_id": monthly }),
            )
            .await,
            "validation_error",
        );
        session.cancel().await.unwrap();
    });
}

#[test]
fn find_or_make_tools_say_replayed_in_their_text() {
    let (_server, api, cli) = setup("elevated");
    block_on(async {
        let session = connect(&cli, &["--allow-writes"]).await;
        let tools = session.list_all_tools().await.unwrap();
        let activation = json!({
            "callsign": "W1AW",
            "location_reference": "us-0003",
            "start_time": this_month().1,
            "idempotency_key": "mcp-replay-activation",
        });
        let category = json!({ "name": "Sprints", "idempotency_key": "mcp-replay-folder" });
        for (tool, args) in [
            ("create_activation", activation),
            ("create_folder", category),
        ] {
            let first = call(&session, tool, args.clone()).await;
            let made = ok_in_shape(&tools, tool, &first);
            assert_eq!(made["created"], true, "{made}");
            assert!(text_of(&first).get("replayed").is_none(), "{first:?}");
            // The same call again, as after a lost answer: the first answer, said to be one.
            let again = call(&session, tool, args).await;
            assert_eq!(ok_in_shape(&tools, tool, &again), made);
            let text = text_of(&again);
            assert_eq!(text["replayed"], true, "{again:?}");
            assert_eq!(text["id"], made["id"]);
        }
        // Another key for the same activation finds it: not a replay.
        let found = call(
            &session,
            "create_activation",
            json!({
                "callsign": "W1AW",
                "location_reference": "US-0003",
                "start_time": this_month().1,
                "idempotency_key": "mcp-replay-activation-2",
            }),
        )
        .await;
        assert_eq!(ok(&found)["created"], false);
        assert!(text_of(&found).get("replayed").is_none(), "{found:?}");
        session.cancel().await.unwrap();
    });
    let sprints: Vec<Value> = api
        .folders("category")
        .into_iter()
        .filter(|f| f["name"] == "Sprints")
        .collect();
    assert_eq!(sprints.len(), 1, "the replay made no second category");
}

#[test]
fn create_folder_finds_its_parent_category_by_name() {
    let (_server, api, cli) = setup("elevated");
    // A custom monthly folder is named by its month: a folder, but not a category.
    monthly(&api);
    let month = this_month().0;
    let category = |name: &str| {
        let r = api.post("/v1/folders", json!({ "type": "category", "name": name }));
        assert_eq!(r.status, 201, "{}", r.body);
        r.id()
    };
    let contests = category("Contests");
    let pota = api.folder_named("POTA");
    let (first, second) = (category("Field Day"), category("field day"));
    let made = block_on(async {
        let session = connect(&cli, &["--allow-writes"]).await;
        let tools = session.list_all_tools().await.unwrap();
        let make = |name: &str, parent: &str, key: &str| json!({ "name": name, "parent_id": parent, "idempotency_key": key });
        let mut made = Vec::new();
        for (parent, expected, key) in [
            ("cONTESTS", &contests, "mcp-parent-1"),
            ("  Contests ", &contests, "mcp-parent-2"),
            ("pota", &pota, "mcp-parent-3"),
            (contests.as_str(), &contests, "mcp-parent-4"),
        ] {
            let answer = ok_in_shape(
                &tools,
                "create_folder",
                &call(&session, "create_folder", make("CQ WW", parent, key)).await,
            );
            made.push((parent.to_owned(), answer["id"].clone(), expected.clone()));
        }

        // No category of that name: a monthly folder's name is not one.
        for parent in ["Nothing like it", month.as_str()] {
            let (error, exit) = fails(
                &call(&session, "create_folder", make("X", parent, "mcp-parent-5")).await,
                "not_found",
            );
            assert_eq!(exit, 1);
            assert!(
                error["message"].as_str().unwrap().contains("no category"),
                "{error}"
            );
        }
        // Two of that name, whatever their case: which one is meant is not guessed.
        let (error, exit) = fails(
            &call(
                &session,
                "create_folder",
                make("X", "FIELD DAY", "mcp-parent-6"),
            )
            .await,
            "validation_error",
        );
        assert_eq!(exit, 2);
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains(&first) && message.contains(&second),
            "{message}"
        );
        session.cancel().await.unwrap();
        made
    });
    let categories = api.folders("category");
    for (parent, id, expected) in made {
        let folder = categories.iter().find(|f| f["id"] == id).unwrap();
        assert_eq!(folder["parentId"], expected.as_str(), "{parent}");
    }
    assert!(
        !categories.iter().any(|f| f["name"] == "X"),
        "nothing was made for a parent not found"
    );
}

#[test]
fn a_duplicate_contact_is_named_in_the_text() {
    let (_server, api, cli) = setup("elevated");
    let park = api.activation("US-1234", "W1AW");
    let (_, time_on) = this_month();
    block_on(async {
        let session = connect(&cli, &["--allow-writes"]).await;
        let tools = session.list_all_tools().await.unwrap();
        let log = |key: &str| {
            json!({
                "folder_id": park,
                "callsign": "K1ABC",
                "frequency": 14.285,
                "mode": "SSB",
                "time_on": time_on,
                "idempotency_key": key,
            })
        };
        let first = call(&session, "create_contact", log("mcp-dupe-1")).await;
        let first_id = ok_in_shape(&tools, "create_contact", &first)["id"].clone();
        assert!(text_of(&first).get("duplicateOf").is_none(), "{first:?}");

        let second = call(&session, "create_contact", log("mcp-dupe-2")).await;
        let stored = ok_in_shape(&tools, "create_contact", &second);
        assert_ne!(stored["id"], first_id, "stored all the same");
        let text = text_of(&second);
        assert_eq!(text["duplicateOf"], first_id, "{second:?}");
        assert_eq!(text["id"], stored["id"]);

        // Its replay says so again, as the service first answered.
        let again = call(&session, "create_contact", log("mcp-dupe-2")).await;
        let text = text_of(&again);
        assert_eq!(
            (&text["duplicateOf"], &text["replayed"]),
            (&first_id, &json!(true))
        );
        session.cancel().await.unwrap();
    });
    assert_eq!(api.contacts(&park).len(), 2);
}

#[test]
fn lookup_callsign_asks_the_connected_callbook_and_keeps_its_session() {
    use crate::common::callbook::{Book, FakeCallbook};
    let (_server, _api, cli) = setup("basic");
    let fake = FakeCallbook::start();
    fake.add_user("W1AW", "pw pw", true);
    cli.set_env("SVC_NO_KEYRING", "1");
    cli.set_env("SVC_QRZ_XML_URL", &fake.qrz_url());
    cli.secret("pw pw");
    // The key's journal, where the answers are cached.
    cli.run(&["outbox", "list"]).ok();
    block_on(async {
        let session = connect(&cli, &[]).await;
        let tools = session.list_all_tools().await.unwrap();
        let result = call(&session, "lookup_callsign", json!({ "callsign": "W1AW" })).await;
        let (error, exit) = fails(&result, "unauthorized");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("svc lookup connect"),
            "{error}"
        );
        assert_eq!(exit, 3);

        // Connected meanwhile: the same session finds it.
        cli.run_stdin(
            &[
                "lookup",
                "connect",
                "qrz",
                "--user",
                "W1AW",
                "--password-stdin",
            ],
            "pw pw",
        )
        .ok();
        fake.expire_sessions_after(1);
        let l = ok_in_shape(
            &tools,
            "lookup_callsign",
            &call(&session, "lookup_callsign", json!({ "callsign": "w1aw" })).await,
        );
        assert_eq!(l["callsign"], "W1AW");
        assert_eq!(l["name"], "Hiram Percy Maxim");
        assert_eq!(l["grid"], "FN31pr");
        assert_eq!(l["dxcc"], 291);
        assert_eq!(l["cqZone"], 5);
        assert_eq!(l["ituZone"], 8);
        assert_eq!(l["source"], "qrz");
        assert_eq!(l["cached"], false);
        assert!(l.get("continent").is_none(), "absent, not null: {l}");
        // Its session expired after one lookup: one new login serves the next.
        let unknown = call(&session, "lookup_callsign", json!({ "callsign": "W1XYZ" })).await;
        let (_, exit) = fails(&unknown, "not_found");
        assert_eq!(exit, 1);
        assert_eq!(
            fake.logins(Book::Qrz),
            3,
            "connect, first lookup, after expiry"
        );
        // Asked again: the cache answers, the callbook is not asked.
        let asked = fake.seen().len();
        let again = ok(&call(&session, "lookup_callsign", json!({ "callsign": "W1AW" })).await);
        assert_eq!(again["cached"], true);
        assert_eq!(again["name"], "Hiram Percy Maxim");
        assert_eq!(fake.seen().len(), asked);
        fails(
            &call(&session, "lookup_callsign", json!({ "callsign": "" })).await,
            "validation_error",
        );
        fails(
            &call(
                &session,
                "lookup_callsign",
                json!({ "callsign": "no such" }),
            )
            .await,
            "validation_error",
        );
        session.cancel().await.unwrap();
    });
}

#[test]
fn lookup_park_asks_pota_once_then_answers_from_the_cache() {
    use crate::common::pota::FakePota;
    let (_server, _api, cli) = setup("basic");
    let pota = FakePota::start();
    cli.set_env("SVC_POTA_API_URL", &pota.url());
    block_on(async {
        let session = connect(&cli, &[]).await;
        let tools = session.list_all_tools().await.unwrap();
        let lookup = |reference: &str| json!({ "reference": reference });
        let park = ok_in_shape(
            &tools,
            "lookup_park",
            &call(&session, "lookup_park", lookup("us-0001")).await,
        );
        assert_eq!(park["reference"], "US-0001");
        assert_eq!(park["name"], "Acadia National Park");
        assert_eq!(park["location"], "US-ME");
        assert_eq!(park["grid"], "FN54vh");
        assert_eq!(park["latitude"], 44.31);
        assert_eq!(park["longitude"], -68.2034);
        assert_eq!(park["source"], "api");
        assert!(
            park["fetchedAt"].as_str().is_some_and(|t| t.ends_with('Z')),
            "{park}"
        );
        assert_eq!(park_requests(&pota), 1);
        assert_eq!(pota.seen()[0].path, "/park/US-0001");

        // Asked again: the cache answers, POTA is not asked.
        let again = ok(&call(&session, "lookup_park", lookup("US-0001")).await);
        assert_eq!(again["source"], "cache");
        assert_eq!(again["fetchedAt"], park["fetchedAt"]);
        assert_eq!(again["name"], park["name"]);
        assert_eq!(park_requests(&pota), 1);
        // The very answer of svc parks show --json, from the same cache.
        let shown = cli.run(&["parks", "show", "US-0001", "--json"]);
        shown.ok();
        assert_eq!(shown.json(), again);

        // A reference POTA does not know (it answers null).
        let (error, exit) = fails(
            &call(&session, "lookup_park", lookup("US-9999")).await,
            "not_found",
        );
        assert_eq!(exit, 1);
        assert!(
            error["message"].as_str().unwrap().contains("US-9999"),
            "{error}"
        );
        assert_eq!(park_requests(&pota), 2);
        // Refused as the command line refuses it, with nothing asked.
        for bad in ["US1", "US-0001,US-0002", ""] {
            let (_, exit) = fails(
                &call(&session, "lookup_park", lookup(bad)).await,
                "validation_error",
            );
            assert_eq!(exit, 2, "{bad}");
        }
        fails(
            &call(&session, "lookup_park", json!({ "park": "US-0001" })).await,
            "validation_error",
        );
        assert_eq!(park_requests(&pota), 2);
        session.cancel().await.unwrap();
    });

    // POTA gone: the cached park still answers, an old copy saying in its text why it was not
    // asked for again; one never cached cannot be had.
    drop(pota);
    block_on(async {
        let session = connect(&cli, &[]).await;
        let cached = ok(&call(&session, "lookup_park", json!({ "reference": "US-0001" })).await);
        assert_eq!(cached["source"], "cache");
        assert_eq!(cached["name"], "Acadia National Park");
        let (error, exit) = fails(
            &call(&session, "lookup_park", json!({ "reference": "VE-0123" })).await,
            "network",
        );
        assert_eq!(exit, 7);
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("no answer from POTA"),
            "{error}"
        );
        session.cancel().await.unwrap();
    });
    age_cache(&cli, 40);
    block_on(async {
        let session = connect(&cli, &[]).await;
        let old = call(&session, "lookup_park", json!({ "reference": "US-0001" })).await;
        assert_eq!(ok(&old)["source"], "cache");
        assert!(ok(&old).get("unreachable").is_none(), "only in the text");
        assert!(
            text_of(&old)["unreachable"]
                .as_str()
                .is_some_and(|why| why.contains("no answer from POTA")),
            "{old:?}"
        );
        session.cancel().await.unwrap();
    });
}

#[test]
fn list_spots_filters_as_svc_spots_does() {
    use crate::common::pota::{FakePota, Mode};
    let (_server, _api, cli) = setup("basic");
    let pota = FakePota::start();
    let activators = |answer: &Value| -> Vec<String> {
        answer["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["activator"].as_str().unwrap().to_owned())
            .collect()
    };
    block_on(async {
        // POTA's address by the flag, which wins over SVC_POTA_API_URL (the closed port here).
        let session = connect(&cli, &["--pota-api-url", &pota.url()]).await;
        let tools = session.list_all_tools().await.unwrap();
        let all = ok_in_shape(
            &tools,
            "list_spots",
            &call(&session, "list_spots", json!({})).await,
        );
        // The spot POTA marked invalid, and the one with no frequency, are left out.
        assert_eq!(activators(&all), ["K2ABC", "W1AW", "VE3XYZ", "N0CALL"]);
        let w1aw = &all["items"][1];
        assert_eq!(w1aw["frequency"], 14.285);
        assert_eq!(w1aw["band"], "20m");
        assert_eq!(w1aw["mode"], "SSB");
        assert_eq!(w1aw["reference"], "US-0001");
        assert_eq!(w1aw["parkName"], "Acadia National Park");
        assert_eq!(w1aw["location"], "US-ME");
        assert_eq!(w1aw["spotter"], "K1ABC");
        assert_eq!(w1aw["comments"], "QRV");
        assert!(
            w1aw["spotTime"]
                .as_str()
                .is_some_and(|t| t.starts_with("2026-11-27T12:00:00")),
            "{w1aw}"
        );
        // The very answer of svc spots --json.
        let listed = cli.run(&["spots", "--json", "--pota-api-url", &pota.url()]);
        listed.ok();
        assert_eq!(listed.json(), all);

        for (filter, expected) in [
            (json!({ "band": "20m" }), &["W1AW", "VE3XYZ"][..]),
            (json!({ "mode": "cw" }), &["K2ABC"][..]),
            (json!({ "mode": "Phone" }), &["W1AW", "N0CALL"][..]),
            (json!({ "mode": "data" }), &["VE3XYZ"][..]),
            (json!({ "band": "20M", "mode": "ft8" }), &["VE3XYZ"][..]),
            (json!({ "band": "2m", "mode": "cw" }), &[][..]),
        ] {
            let answer = ok(&call(&session, "list_spots", filter.clone()).await);
            assert_eq!(activators(&answer), expected, "{filter}");
        }
        let asked = pota.seen().len();
        for bad in [
            json!({ "band": "11m" }),
            json!({ "mode": "<b>" }),
            json!({ "park": "US-0001" }),
        ] {
            let (_, exit) = fails(&call(&session, "list_spots", bad).await, "validation_error");
            assert_eq!(exit, 2);
        }
        assert_eq!(pota.seen().len(), asked, "nothing asked for a bad filter");

        // POTA failing: its 500, and a page that is not POTA's.
        pota.set_mode(Mode::ServerError);
        let (error, exit) = fails(&call(&session, "list_spots", json!({})).await, "internal");
        assert_eq!((error["status"].as_u64(), exit), (Some(500), 8));
        pota.set_mode(Mode::Malformed);
        let (error, _) = fails(&call(&session, "list_spots", json!({})).await, "internal");
        assert!(
            error["message"].as_str().unwrap().contains("not JSON"),
            "{error}"
        );
        session.cancel().await.unwrap();
    });
}

#[test]
fn spot_activation_needs_writes_and_is_sent_once_with_potas_fields() {
    use crate::common::pota::{FakePota, Mode};
    let (_server, _api, cli) = setup("basic");
    let pota = FakePota::start();
    cli.set_env("SVC_POTA_API_URL", &pota.url());
    let spot = json!({
        "reference": "us-0001",
        "frequency": 14.285,
        "mode": "ssb",
        "comment": " QRV, 100 W ",
    });
    block_on(async {
        let session = connect(&cli, &[]).await;
        let (error, exit) = fails(
            &call(&session, "spot_activation", spot.clone()).await,
            "validation_error",
        );
        assert_eq!(exit, 2);
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("--allow-writes"),
            "{error}"
        );
        session.cancel().await.unwrap();
    });
    assert!(
        pota.posted().is_empty(),
        "a read-only session sends nothing"
    );

    block_on(async {
        let session = connect(&cli, &["--allow-writes"]).await;
        let tools = session.list_all_tools().await.unwrap();
        // The activator is the key's account, W1AW.
        let sent = ok_in_shape(
            &tools,
            "spot_activation",
            &call(&session, "spot_activation", spot.clone()).await,
        );
        assert_eq!(
            pota.posted(),
            [json!({
                "activator": "W1AW", "spotter": "W1AW", "frequency": "14285",
                "reference": "US-0001", "mode": "SSB", "source": "svc", "comments": "QRV, 100 W"
            })]
        );
        let post = pota
            .seen()
            .into_iter()
            .find(|s| s.method == "POST")
            .unwrap();
        assert_eq!(post.path, "/spot");
        assert_eq!(post.content_type.as_deref(), Some("application/json"));
        // The spot as POTA took it, from its answer.
        assert_eq!(sent["activator"], "W1AW");
        assert_eq!(sent["spotter"], "W1AW");
        assert_eq!(sent["frequency"], 14.285);
        assert_eq!(sent["band"], "20m");
        assert_eq!(sent["mode"], "SSB");
        assert_eq!(sent["reference"], "US-0001");
        assert_eq!(sent["parkName"], "Acadia National Park");
        assert_eq!(sent["comments"], "QRV, 100 W");
        assert!(sent["spotTime"].is_string(), "{sent}");

        // Another activator, no comment.
        let other = json!({ "reference": "VE-0123", "frequency": 7.0325, "mode": "CW", "activator": "ve3/k1abc" });
        let sent = ok(&call(&session, "spot_activation", other).await);
        assert_eq!(sent["activator"], "VE3/K1ABC");
        assert_eq!(
            pota.posted()[1],
            json!({
                "activator": "VE3/K1ABC", "spotter": "VE3/K1ABC", "frequency": "7032.5",
                "reference": "VE-0123", "mode": "CW", "source": "svc", "comments": ""
            })
        );

        // Refused before anything is sent.
        let with = |key: &str, value: Value| {
            let mut args = spot.clone();
            args[key] = value;
            args
        };
        for bad in [
            with("frequency", json!(14285)),
            with("frequency", json!(-1)),
            with("mode", json!("XYZMODE")),
            with("reference", json!("US-0001,US-0002")),
            with("reference", json!("W7W/KG-001")),
            with("comment", json!("a\nb")),
            with("comment", json!("  ")),
            with("comment", json!("x".repeat(257))),
            with("comment", json!("2fer US-\u{202e}EM")),
            with("comment", json!("QRV\u{2066} 5 W")),
            with("activator", json!("not a call")),
            with("band", json!("20m")),
            json!({ "reference": "US-0001", "mode": "SSB" }),
        ] {
            let (_, exit) = fails(
                &call(&session, "spot_activation", bad.clone()).await,
                "validation_error",
            );
            assert_eq!(exit, 2, "{bad}");
        }
        assert_eq!(pota.posted().len(), 2, "nothing more was sent");

        // POTA refusing it: reported with POTA's status, as an input to correct for a 4xx
        // (the command line's exit 2), and not sent again.
        pota.set_mode(Mode::Refused);
        let (error, exit) = fails(
            &call(&session, "spot_activation", spot.clone()).await,
            "validation_error",
        );
        assert_eq!((error["status"].as_u64(), exit), (Some(400), 2));
        assert!(
            error["message"].as_str().unwrap().contains("Invalid spot"),
            "{error}"
        );
        assert_eq!(pota.posted().len(), 3);
        pota.set_mode(Mode::ServerError);
        let (error, exit) = fails(
            &call(&session, "spot_activation", spot.clone()).await,
            "internal",
        );
        assert_eq!((error["status"].as_u64(), exit), (Some(500), 8));
        assert_eq!(pota.posted().len(), 4);

        // No answer (POTA took the request and never answered): network, and one attempt.
        pota.set_mode(Mode::Stall);
        let (error, exit) = fails(
            &call(&session, "spot_activation", spot.clone()).await,
            "network",
        );
        assert_eq!(exit, 7);
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("may or may not have reached POTA"),
            "{message}"
        );
        assert_eq!(pota.posted().len(), 5);
        // POTA back: the next call sends nothing kept from before.
        pota.set_mode(Mode::Normal);
        ok(&call(&session, "list_spots", json!({})).await);
        session.cancel().await.unwrap();
    });
    assert_eq!(
        pota.posted().len(),
        5,
        "the stalled spot was never sent again"
    );

    // No POTA at all (the closed port): the spot surely was not sent.
    cli.unset_env("SVC_POTA_API_URL");
    block_on(async {
        let session = connect(&cli, &["--allow-writes"]).await;
        let (error, exit) = fails(&call(&session, "spot_activation", spot).await, "network");
        assert_eq!(exit, 7);
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("the spot was not sent"),
            "{error}"
        );
        session.cancel().await.unwrap();
    });
    assert_eq!(pota.posted().len(), 5);
}

/// A line that is no JSON-RPC message (bytes that are not UTF-8, nesting 100,000 deep, a line
/// of 100 MB) is answered with JSON-RPC's Parse error, so the client waits for nothing, and the
/// session goes on: the handshake and a request after them are answered.
#[test]
fn a_line_that_is_not_json_is_answered_with_a_parse_error() {
    use std::io::{BufRead, Write};
    use std::process::Stdio;
    let (_server, _api, cli) = setup("basic");
    let mut child = cli
        .std_command()
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (lines, answers) = std::sync::mpsc::channel::<String>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if lines.send(line).is_err() {
                return;
            }
        }
    });
    let next = || {
        let line = answers
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("an answer from svc mcp");
        serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("{e}: {line:.200}"))
    };
    let parse_error = |answer: Value, says: &str| {
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        assert_eq!(answer["id"], Value::Null, "{answer}");
        assert_eq!(answer["error"]["code"], -32700, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("Parse error: "), "{message}");
        assert!(message.contains(says), "{message}");
    };

    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}\n")
        .unwrap();
    parse_error(next(), "not UTF-8");
    let deep = format!("{}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    stdin.write_all(deep.as_bytes()).unwrap();
    parse_error(next(), "recursion limit");
    let chunk = vec![b' '; 1 << 20];
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"")
        .unwrap();
    for _ in 0..100 {
        stdin.write_all(&chunk).unwrap();
    }
    stdin.write_all(b"\"}\n").unwrap();
    parse_error(next(), "longer than 4 MiB");

    // The session is as good as new.
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"}
        }
    });
    writeln!(stdin, "{initialize}").unwrap();
    let answer = next();
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(answer["result"]["serverInfo"]["name"], "svc", "{answer}");
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    writeln!(stdin, "not json").unwrap();
    parse_error(next(), "not JSON");
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    )
    .unwrap();
    let answer = next();
    assert_eq!(answer["id"], 2, "{answer}");
    assert!(
        answer["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{answer}"
    );
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
