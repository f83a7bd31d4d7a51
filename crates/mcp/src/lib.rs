//! `svc mcp`: the logbook's tools for AI agents, served over MCP on stdin and stdout. It uses
//! the key and service the other commands use, through the typed client, and POTA as `svc parks`
//! and `svc spots` do; changes (a spot on POTA among them) need `--allow-writes`, deletes
//! `--allow-deletes`, so an agent gets only what it was given.

mod args;
mod stdio;
pub mod tools;

use clap::Args;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

use std::borrow::Cow;
use std::sync::Arc;

use std::process::ExitCode;

use svc_cli::lookup::CallbookUrls;
use svc_cli::parks::PotaArgs;
use svc_cli::spots::{account_callsign, callsign_client};
use svc_cli::{CliError, Ctx, GlobalArgs, input};
use svc_client::contests::{CabrilloRequest, NewContestRequest};
use svc_client::export;
use svc_client::journal::Journal;
use svc_client::lookup::{Callbook, Urls};
use svc_client::{Client, NewActivationRequest, NewFolderRequest};
use svc_model::ContactInput;
use svc_model::awards::{Award, Query};
use svc_model::band::read_mhz;
use svc_model::ids::truncate;
use svc_model::text::SPOT_COMMENT_MAX_CHARS;
use svc_model::{ErrorCode, Folder, FolderType, IdKind};
use svc_pota::{NewSpot, Parks, Pota, Spot, SpotFilter};

use args::*;
use tools::Access;

#[derive(Debug, Clone, Args)]
pub struct McpArgs {
    /// Offer the tools that log contacts, start and end activations, make folders and spot
    /// activations on POTA
    #[arg(long)]
    pub allow_writes: bool,
    /// Offer delete_contact, which deletes a contact for good
    #[arg(long)]
    pub allow_deletes: bool,
    /// Where lookup_callsign finds the callbooks
    #[command(flatten)]
    pub callbooks: CallbookUrls,
    /// Where lookup_park, list_spots and spot_activation find POTA
    #[command(flatten)]
    pub pota: PotaArgs,
}

/// Serves until the agent closes stdin.
/// `svc mcp`: serves until the agent closes stdin; a failure to start is reported as every
/// command's is.
pub fn run(global: &GlobalArgs, args: &McpArgs) -> ExitCode {
    svc_cli::run_with(global, "mcp".into(), |ctx| serve(ctx, args))
}

fn serve(ctx: &Ctx, args: &McpArgs) -> Result<(), CliError> {
    let base = ctx.api_base()?;
    let key = ctx.key()?;
    let client = ctx.client_for(base.clone(), &key.key)?;
    let urls = args.callbooks.urls()?;
    let pota = args.pota.client(ctx)?;
    let callsign_client = callsign_client(ctx, base.clone(), &key.key)?;
    ctx.block_on(async move {
        let server = McpServer {
            client,
            writes: args.allow_writes,
            deletes: args.allow_deletes,
            urls,
            callbook: tokio::sync::Mutex::new(None),
            pota,
            parks: tokio::sync::OnceCell::new(),
            callsign_client,
            // The callbook's answers are cached where the key's journal is; with none here,
            // lookups go on uncached.
            journal: Journal::find(&base, &key.key).await.ok().flatten(),
        };
        let (read, write, writer) = stdio::guarded(tokio::io::stdin(), tokio::io::stdout());
        let running = server
            .serve((read, write))
            .await
            .map_err(|e| CliError::local(format!("MCP session did not start: {e}")))?;
        running
            .waiting()
            .await
            .map_err(|e| CliError::local(format!("MCP session failed: {e}")))?;
        // The session's last answers are on their way to stdout until the writer ends.
        let _ = writer.await;
        Ok(())
    })
}

struct McpServer {
    client: Client,
    writes: bool,
    deletes: bool,
    urls: Urls,
    /// The connected callbook once a lookup needed it: kept, so its session serves the
    /// lookups that follow.
    callbook: tokio::sync::Mutex<Option<Arc<Callbook>>>,
    journal: Option<Journal>,
    pota: Pota,
    /// The park cache, opened by the first lookup_park (a session that looks up no park makes
    /// no file), and again by the next one when it could not be.
    parks: tokio::sync::OnceCell<Parks>,
    /// Asks the service for the spot's default activator with POTA's patience, as `svc spot`.
    callsign_client: Client,
}

impl McpServer {
    fn allowed(&self, access: Access) -> bool {
        match access {
            Access::Read => true,
            Access::Write => self.writes,
            Access::Delete => self.deletes,
        }
    }

    /// The connected callbook; not kept while none is, so a `svc lookup connect` made
    /// meanwhile is found by the next call.
    async fn callbook(&self) -> Result<Arc<Callbook>, CliError> {
        let mut slot = self.callbook.lock().await;
        if let Some(callbook) = slot.as_ref() {
            return Ok(callbook.clone());
        }
        let callbook = Arc::new(Callbook::configured(&self.urls)?);
        *slot = Some(callbook.clone());
        Ok(callbook)
    }

    async fn parks(&self) -> Result<&Parks, CliError> {
        Ok(self
            .parks
            .get_or_try_init(|| Parks::open(self.pota.clone()))
            .await?)
    }

    async fn dispatch(&self, name: &str, args: Map<String, Value>) -> Result<Value, CliError> {
        let client = &self.client;
        match name {
            "whoami" => {
                let _: NoArgs = parse(args)?;
                // The published output schema admits the four fields, plan free or paid.
                shape(&client.whoami().await?.published(), PASS)
            }
            "list_folders" => {
                let a: ListFolders = parse(args)?;
                let paging = paging(a.limit, a.cursor.as_deref())?;
                let folder_type = a
                    .folder_type
                    .as_deref()
                    .map(|t| {
                        FolderType::parse(t).ok_or_else(|| {
                            CliError::input("type must be activation, category, contest or monthly")
                        })
                    })
                    .transpose()?;
                let page = client
                    .folders(folder_type, paging, a.cursor.as_deref())
                    .await?;
                page_of(&page.items, page.cursor, FOLDER)
            }
            "list_contacts" => {
                let a: ListContacts = parse(args)?;
                check_text("folder_id", &a.folder_id, 1, 1500)?;
                let paging = paging(a.limit, a.cursor.as_deref())?;
                let page = client
                    .contacts(&a.folder_id, paging, a.cursor.as_deref())
                    .await?;
                let mut out = page_of(&page.items, page.cursor, CONTACT)?;
                // Which QSL services confirmed each contact, as the CLI's QSL column says.
                if let Some(items) = out["items"].as_array_mut() {
                    for (item, contact) in items.iter_mut().zip(&page.items) {
                        let marks = svc_model::confirm::marks(&contact.fields);
                        if !marks.is_empty() {
                            item["confirmed"] = json!(marks);
                        }
                    }
                }
                Ok(out)
            }
            "list_activations" => {
                let a: ListActivations = parse(args)?;
                let limit = paging(a.limit, a.cursor.as_deref())?;
                let in_progress = a.in_progress.unwrap_or(false);
                if !in_progress {
                    let page = client
                        .activations(false, limit, a.cursor.as_deref())
                        .await?;
                    return page_of(&page.items, page.cursor, FOLDER);
                }
                // The service's limit bounds the folders it scans, so a page of those in
                // progress may be empty with more behind it: read on until the end or a full page.
                let wanted = limit.unwrap_or(MAX_PAGE) as usize;
                let mut items = Vec::new();
                let mut cursor = a.cursor;
                loop {
                    let ask = (wanted - items.len()) as u32;
                    let page = client
                        .activations(true, Some(ask), cursor.as_deref())
                        .await?;
                    items.extend(page.items);
                    cursor = page.cursor;
                    if cursor.is_none() || items.len() >= wanted {
                        return page_of(&items, cursor, FOLDER);
                    }
                }
            }
            "create_contact" => {
                let mut args = args;
                let fields = declared_inputs(&mut args)?;
                let given = seed_inputs(&mut args)?;
                let a: CreateContact = parse(args).map_err(name_declared)?;
                a.check()?;
                let mut request = ContactInput {
                    folder_id: a.folder_id,
                    callsign: a.callsign,
                    frequency: a.frequency,
                    mode: a.mode,
                    time_on: a.time_on,
                    fields,
                    ..ContactInput::default()
                };
                for (seed, value) in given {
                    if let Some(slot) = request.text_mut(&seed) {
                        *slot = Some(value);
                    }
                }
                if let Some(typed) = &a.exchange {
                    let Some(contest) = client.contest_of(&request.folder_id).await? else {
                        return Err(CliError::not_found(format!(
                            "exchange is for a contact of a contest log, and {} is no contest log of this account's; drop exchange, or log into the contest log (start_contest gives its id)",
                            request.folder_id
                        )));
                    };
                    svc_model::received::put_received(contest, typed, &mut request)
                        .map_err(|e| CliError::input(format!("exchange: {}", e.message)))?;
                }
                let created = client
                    .create_contact_keyed(&request, &a.idempotency_key)
                    .await?;
                let mut out = json!({ "id": created.id });
                if created.replayed {
                    out["replayed"] = json!(true);
                }
                // Stored all the same, as the service does; only the text carries it, since
                // the published shape has no room for it (see `success`).
                if let Some(first) = created.duplicate_of {
                    out["duplicateOf"] = json!(first);
                }
                Ok(out)
            }
            "create_activation" => {
                let a: CreateActivation = parse(args)?;
                check_text("callsign", &a.callsign, 1, 32)?;
                check_text("location_reference", &a.location_reference, 1, 64)?;
                check_optional("program_id", &a.program_id, 1, 64)?;
                check_optional("location_name", &a.location_name, 1, 256)?;
                check_time("start_time", &a.start_time)?;
                check_key(&a.idempotency_key)?;
                let request = NewActivationRequest {
                    location_reference: a.location_reference,
                    callsign: a.callsign,
                    program_id: a.program_id,
                    location_name: a.location_name,
                    start_time: Some(a.start_time),
                };
                let made = client
                    .create_activation_keyed(&request, &a.idempotency_key)
                    .await?;
                let out = json!({
                    "id": made.folder.id,
                    "name": made.folder.name,
                    "autoFolderKey": made.folder.auto_folder_key.unwrap_or_default(),
                    "created": made.created,
                });
                Ok(replayed(out, made.replayed))
            }
            "create_folder" => {
                let a: CreateFolder = parse(args)?;
                check_text("name", &a.name, 1, 256)?;
                check_optional("parent_id", &a.parent_id, 1, 1500)?;
                check_key(&a.idempotency_key)?;
                let parent_id = match a.parent_id {
                    Some(parent) => Some(self.category(&parent).await?),
                    None => None,
                };
                let request = NewFolderRequest::Category {
                    name: a.name,
                    parent_id,
                };
                let made = client
                    .create_folder_keyed(&request, &a.idempotency_key)
                    .await?;
                let out = json!({
                    "id": made.folder.id,
                    "name": made.folder.name,
                    "created": made.created,
                });
                Ok(replayed(out, made.replayed))
            }
            "pota_file" => {
                let a: PotaFileArgs = parse(args)?;
                check_text("activation_id", &a.activation_id, 1, 1500)?;
                let activation = client
                    .all_activations(false)
                    .await?
                    .into_iter()
                    .find(|f| f.id == a.activation_id)
                    .ok_or_else(|| {
                        CliError::not_found(format!(
                            "no activation {}; list_activations names them",
                            a.activation_id
                        ))
                    })?;
                let me = client.whoami().await?;
                let names = match &activation.location_reference {
                    Some(references) => svc_pota::cached_names(references).await,
                    None => Default::default(),
                };
                let files = export::activation_text(client, &activation, &me.callsign, &names)
                    .await
                    .map_err(|e| CliError::local(e.to_string()))?;
                let Some(file) = files.first() else {
                    return Err(CliError::local("the activation names no park"));
                };
                let mut out = json!({
                    "fileName": file.file_name,
                    "adif": file.adif,
                    "contacts": file.contacts,
                    "records": file.records,
                });
                // A two-fer: one file per park, as POTA credits each park from its own file.
                if files.len() > 1 {
                    out["files"] = files
                        .iter()
                        .map(|f| {
                            json!({
                                "park": f.park,
                                "fileName": f.file_name,
                                "adif": f.adif,
                                "records": f.records,
                            })
                        })
                        .collect();
                }
                Ok(out)
            }
            "lookup_callsign" => {
                let a: LookupCallsign = parse(args)?;
                check_text("callsign", &a.callsign, 1, 32)?;
                let callbook = self.callbook().await?;
                let answer = callbook
                    .lookup_cached(self.journal.as_ref(), &a.callsign, false)
                    .await?;
                let mut out = shape(&answer.lookup, PASS)?;
                out["cached"] = json!(answer.cached);
                // Only the text carries why the cache stood in: the shape has no room for it.
                if let Some(why) = answer.unreachable {
                    out["unreachable"] = json!(why);
                }
                Ok(out)
            }
            "lookup_park" => {
                let a: LookupPark = parse(args)?;
                let reference = checked("reference", &a.reference, 64, input::park)?;
                let answer = self.parks().await?.lookup(&reference).await?;
                let mut out = shape(&answer, PASS)?;
                // As `svc parks show` warns: only the text carries why the cache stood in.
                if let Some(why) = &answer.refresh_error {
                    out["unreachable"] = json!(why.to_string());
                }
                Ok(out)
            }
            "list_spots" => {
                let a: ListSpots = parse(args)?;
                let filter = SpotFilter {
                    band: a
                        .band
                        .as_deref()
                        .map(|b| checked("band", b, 8, input::band))
                        .transpose()?,
                    mode: a
                        .mode
                        .as_deref()
                        .map(|m| checked("mode", m, 32, input::mode_filter))
                        .transpose()?,
                };
                let spots: Vec<Spot> = self
                    .pota
                    .spots()
                    .await?
                    .into_iter()
                    .filter(|s| filter.matches(s))
                    .collect();
                page_of(&spots, None, PASS)
            }
            "get_awards" => {
                let a: GetAwards = parse(args)?;
                let award = checked("award", &a.award, 32, |id| {
                    Award::parse(id).ok_or_else(|| format!("not an award; one of {}", Award::ids()))
                })?;
                let band = a
                    .band
                    .as_deref()
                    .map(|b| checked("band", b, 8, |b| Ok(b.to_owned())))
                    .transpose()?;
                let mode = a
                    .mode
                    .as_deref()
                    .map(|m| checked("mode", m, 32, |m| Ok(m.to_owned())))
                    .transpose()?;
                let services = a.confirmed_by.map(|s| s.join(","));
                // The model's reading of the service's own parameters, so that a bad one is
                // refused here in the service's words, before any request.
                let query = Query::parse(band.as_deref(), mode.as_deref(), services.as_deref())
                    .map_err(|e| CliError::input(e.message))?;
                shape(&client.award(award, &query).await?, PASS)
            }
            "spot_activation" => {
                let a: SpotActivation = parse(args)?;
                // Every input is checked before the account is asked for its callsign, so a
                // spot refused is refused at once.
                let reference = checked("reference", &a.reference, 64, input::park)?;
                let frequency = read_mhz("frequency", a.frequency)
                    .map_err(|e| CliError::input(e.message))?
                    .mhz;
                let mode = checked("mode", &a.mode, 32, input::mode)?;
                let comments = a
                    .comment
                    .as_deref()
                    .map(|c| checked("comment", c, SPOT_COMMENT_MAX_CHARS, input::spot_comment))
                    .transpose()?;
                let activator = match a.activator.as_deref() {
                    Some(call) => checked("activator", call, 32, input::callsign)?,
                    None => account_callsign(self.journal.as_ref(), &self.callsign_client).await?,
                };
                let spot = NewSpot {
                    spotter: activator.clone(),
                    activator,
                    frequency,
                    reference,
                    mode,
                    comments,
                };
                // Once: Pota::spot never sends it again, and neither does this tool.
                shape(&self.pota.spot(&spot).await?, PASS)
            }
            "end_activation" => {
                let a: EndActivation = parse(args)?;
                check_text("activation_id", &a.activation_id, 1, 1500)?;
                if let Some(end) = &a.end_time {
                    check_time("end_time", end)?;
                }
                let folder = client
                    .end_activation(&a.activation_id, a.end_time.as_deref())
                    .await?;
                shape(&folder, FOLDER)
            }
            "add_activation_park" => {
                let a: AddActivationPark = parse(args)?;
                check_text("activation_id", &a.activation_id, 1, 1500)?;
                check_text("location_reference", &a.location_reference, 1, 64)?;
                let folder = client
                    .add_parks(&a.activation_id, &a.location_reference)
                    .await?;
                shape(&folder, FOLDER)
            }
            "start_contest" => {
                let a: StartContest = parse(args)?;
                check_text("contest_id", &a.contest_id, 1, 60)?;
                if let Some(exchange) = &a.exchange {
                    check_text("exchange", exchange, 0, 100)?;
                }
                if let Some(start) = &a.start_time {
                    check_time("start_time", start)?;
                }
                let callsign = match a.callsign.as_deref() {
                    Some(call) => checked("callsign", call, 32, input::callsign)?,
                    None => account_callsign(self.journal.as_ref(), &self.callsign_client).await?,
                };
                let created = client
                    .start_contest(&NewContestRequest {
                        contest_id: a.contest_id,
                        callsign,
                        exchange: a.exchange,
                        categories: svc_cli::contest::categories(&a.categories)?,
                        start_time: a.start_time,
                        ..NewContestRequest::default()
                    })
                    .await?;
                let mut out = shape(&created.folder, CONTEST)?;
                out["created"] = json!(created.created);
                Ok(out)
            }
            "contest_standing" => {
                let a: ContestLogArgs = parse(args)?;
                check_text("contest_log_id", &a.contest_log_id, 1, 1500)?;
                let shown = client.contest(&a.contest_log_id).await?;
                let mut out = shape(&shown.folder, CONTEST)?;
                if let (Value::Object(out), Value::Object(standing)) =
                    (&mut out, strip_nulls(shown.standing))
                {
                    out.extend(standing);
                }
                Ok(out)
            }
            "contest_cabrillo" => {
                let a: ContestCabrillo = parse(args)?;
                check_text("contest_log_id", &a.contest_log_id, 1, 1500)?;
                let mut header = std::collections::BTreeMap::new();
                for (tag, value, max) in [("name", &a.name, 75), ("email", &a.email, 100)] {
                    if let Some(value) = value {
                        check_text(tag, value, 0, max)?;
                        header.insert(tag.to_owned(), value.clone());
                    }
                }
                let request = CabrilloRequest {
                    categories: svc_cli::contest::categories(&a.categories)?
                        .into_iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect(),
                    header,
                    soapbox: None,
                };
                let text = client.cabrillo(&a.contest_log_id, &request).await?;
                // Named as the service names it, from the file's own header lines: no second
                // request, which would count the whole log again.
                let tag = |name: &str| {
                    text.lines()
                        .find_map(|l| l.strip_prefix(name))
                        .map(|v| v.trim().replace('/', "_"))
                        .unwrap_or_default()
                };
                let (call, contest) = (tag("CALLSIGN:"), tag("CONTEST:"));
                Ok(json!({
                    "fileName": format!("{call}-{contest}.log"),
                    "qsos": text.lines().filter(|l| l.starts_with("QSO:")).count(),
                    "cabrillo": text,
                }))
            }
            "delete_contact" => {
                let a: DeleteContact = parse(args)?;
                check_text("qso_id", &a.qso_id, 1, 1500)?;
                check_key(&a.idempotency_key)?;
                let expected = format!("DELETE {}", a.qso_id);
                if a.confirmation != expected {
                    return Err(CliError::input(format!(
                        "confirmation must read exactly \"{expected}\"; nothing was deleted"
                    )));
                }
                // The service answers a delete sent again with the same key as it answered
                // the first, so an agent that lost the answer learns the delete was made.
                let deleted = client
                    .delete_contact_keyed(&a.qso_id, &a.idempotency_key)
                    .await?;
                let mut out = json!({ "success": true });
                if deleted.replayed {
                    out["replayed"] = json!(true);
                }
                Ok(out)
            }
            _ => Err(CliError::input(format!("there is no tool {name}"))),
        }
    }

    /// The id of the category `parent` names: an id as given (the service says whether it is
    /// a category of the account), else the one category of the account with that name,
    /// compared without regard to case.
    async fn category(&self, parent: &str) -> Result<String, CliError> {
        if IdKind::Folder.is_valid(parent) {
            return Ok(parent.to_owned());
        }
        let wanted = parent.trim().to_lowercase();
        let named: Vec<Folder> = self
            .client
            .all_folders(Some(FolderType::Category))
            .await?
            .into_iter()
            .filter(|f| f.name.to_lowercase() == wanted)
            .collect();
        match named.as_slice() {
            [one] => Ok(one.id.clone()),
            [] => Err(CliError::not_found(format!(
                "no category is named {:?}; give parent_id as a category's id or name (list_folders with type category lists them)",
                truncate(parent, 100)
            ))),
            several => {
                let ids: Vec<&str> = several.iter().map(|f| f.id.as_str()).collect();
                Err(CliError::input(format!(
                    "{} categories are named {:?} ({}); give parent_id as the id of the one meant",
                    several.len(),
                    truncate(parent, 100),
                    ids.join(", ")
                )))
            }
        }
    }
}

/// A find-or-make answer with `replayed` when the service answered a call it had carried out
/// already. Only the text carries it: the published shapes of these answers have no room for
/// it (see `success`).
fn replayed(mut out: Value, replayed: bool) -> Value {
    if replayed {
        out["replayed"] = json!(true);
    }
    out
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("svc", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "A logbook of amateur-radio contacts. Read with whoami and the list_ tools, \
                 ask the connected callbook who a station is with lookup_callsign, a POTA park \
                 by its reference with lookup_park, and who is on the air from a park now with \
                 list_spots; the tools that change the logbook, and spot_activation, which \
                 posts a spot to POTA, appear only when svc mcp was started with \
                 --allow-writes or --allow-deletes.",
            )
    }

    /// The revisions whose tools have output schemas and structured content, as every answer
    /// here has: 2025-06-18 on. Asked for an older one, `initialize` answers the newest of these
    /// that has an `initialize`, for the client to go on with or leave, rather than agreeing to
    /// a revision that does not describe the answers it would get.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(PROTOCOL_VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = tools::TOOLS
            .iter()
            .filter(|(_, access)| self.allowed(*access))
            .filter_map(|(name, _)| tools::describe(name))
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools::access(name)
            .filter(|access| self.allowed(*access))
            .and_then(|_| tools::describe(name))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        let Some(access) = tools::access(name) else {
            return Err(ErrorData::invalid_params(
                format!("there is no tool {name}"),
                None,
            ));
        };
        let outcome = if self.allowed(access) {
            self.dispatch(name, request.arguments.unwrap_or_default())
                .await
        } else {
            let flag = match access {
                Access::Delete => "--allow-deletes",
                _ => "--allow-writes",
            };
            Err(CliError::input(format!(
                "{name} is off: svc mcp was started without {flag}"
            )))
        };
        Ok(match outcome {
            Ok(value) => success(name, value),
            Err(e) => failure(&e),
        }
        .into())
    }
}

const PROTOCOL_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

/// The largest page the service gives.
const MAX_PAGE: u32 = 200;

/// A success as a tool result. The structured content keeps to the tool's published output
/// shape, which refuses any property it does not name, so it holds only those; the text is
/// the whole answer, so that what the shape has no room for (`replayed` of create_activation
/// and create_folder, `duplicateOf` of create_contact) still reaches the agent.
fn success(name: &str, answer: Value) -> CallToolResult {
    let text = answer.to_string();
    let published = tools::answer_properties(name);
    let structured = match answer {
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .filter(|(key, _)| published.iter().any(|p| p == key))
                .collect(),
        ),
        other => other,
    };
    let mut result = CallToolResult::structured(structured);
    result.content = vec![ContentBlock::text(text)];
    result
}

/// A failure as a tool error: the structured content keeps to the published error shape,
/// the text adds the exit code `svc` would give and every detail the service sent.
fn failure(e: &CliError) -> CallToolResult {
    let error = match e.error.as_str() {
        "transport_error" => "network",
        code if tools::ERROR_CODES.contains(&code) => code,
        // A failure of a kind of its own (POTA refusing a spot) keeps what its exit code says
        // of it: an input to correct, or a limit to wait out.
        _ => [ErrorCode::ValidationError, ErrorCode::RateLimited]
            .into_iter()
            .find(|code| code.exit_code() == e.exit)
            .map_or("internal", ErrorCode::as_str),
    };
    let mut structured = json!({ "error": error, "message": e.message });
    let mut text = structured.clone();
    text["exitCode"] = json!(e.exit);
    if let Some(answer) = e.answer.as_deref() {
        for out in [&mut structured, &mut text] {
            if let Some(status) = answer.status {
                out["status"] = json!(status);
            }
            if let Some(id) = &answer.request_id {
                out["requestId"] = json!(id);
            }
            if let Some(seconds) = answer.retry_after {
                out["retryAfter"] = json!(seconds.to_string());
            }
        }
        if let Some(Value::Object(details)) = &answer.details {
            let kept: Map<String, Value> = details
                .iter()
                .filter(|(k, v)| known_detail(k, v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if !kept.is_empty() {
                structured["details"] = Value::Object(kept);
            }
            text["details"] = strip_nulls(Value::Object(details.clone()));
        }
    }
    let mut result = CallToolResult::structured_error(structured);
    result.content = vec![ContentBlock::text(text.to_string())];
    result
}

fn known_detail(key: &str, value: &Value) -> bool {
    match key {
        "reason" => value
            .as_str()
            .is_some_and(|r| tools::LIMIT_REASONS.contains(&r)),
        "supportRequired" => value == &Value::Bool(true),
        "required" => value == "elevated",
        "resetSeconds" | "retryAfterSeconds" | "limit" | "current" => value.is_number(),
        _ => false,
    }
}
