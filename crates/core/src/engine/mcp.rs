//! MCP servers in the engine: the settings commands (`mcp.save`, `mcp.delete`), their catalogs
//! and sign-ins as stored, the tools the model is offered from those catalogs, the answers to a
//! UI's questions about prompts and resources, and a server's questions to the user as MCP's
//! `ElicitResult`. What the client says of each server now is in [`super::mcp_live`].
//!
//! The host runs the client; the engine stores the servers as the vault makes them (secrets
//! sealed), tells the host the whole set whenever it changes
//! ([`super::outbox::Effect::McpConfigure`]), and hears back each server's status and catalog. A catalog is kept in the store as the last good
//! one: after a restart the tools are offered (and a restored call is judged) before the server
//! answers again, and a failed refresh never empties it. A call of an `mcp__` tool is an
//! ordinary `RunTool` effect the host routes to its client.

use panelot_protocol::AgentEvent;
use panelot_protocol::Op;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::ContextBlock;
use panelot_protocol::engine::ContextContent;
use panelot_protocol::engine::ContextKind;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::InteractionResponse;
use panelot_protocol::engine::MCP_MAX_SERVERS;
use panelot_protocol::engine::McpCallOutcome;
use panelot_protocol::engine::McpCallView;
use panelot_protocol::engine::McpDeleteParams;
use panelot_protocol::engine::McpFetch;
use panelot_protocol::engine::McpFetchedEvent;
use panelot_protocol::engine::McpListFailure;
use panelot_protocol::engine::McpListedEvent;
use panelot_protocol::engine::McpPromptArgumentView;
use panelot_protocol::engine::McpPromptView;
use panelot_protocol::engine::McpResourceView;
use panelot_protocol::engine::McpSaveParams;
use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::ToolLevel;
use panelot_protocol::engine::Trust;
use panelot_protocol::engine::is_mcp_server_id;
use panelot_protocol::engine::mcp_server_id;
use serde::Deserialize;
use serde_json::Value;
use serde_json::json;

use super::decision::Decision;
use super::decision::FollowUp;
use super::outbox::McpQuery;
use super::reads::Reads;
use super::setup::Overlay;
use super::setup::settings_changed;
use super::setup::settings_view;
use super::setup::stored_id;
use crate::settings;
use crate::settings::MCP_CATALOGS;
use crate::settings::MCP_CREDENTIALS;
use crate::settings::MCP_SERVERS;
use crate::settings::McpCatalogTool;
use crate::settings::StoredCatalog;
use crate::settings::StoredCredentials;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::UnitOfWork;
use crate::tools::ToolDescriptor;
use crate::tools::ToolEffect;
use crate::tools::ToolRegistry;

/// Longest tool description offered to the model: a server's words are paid on every call.
const DESCRIPTION_MAX_CHARS: usize = 1_000;

/// What the engine reads of a stored server.
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct ServerEntry {
    id: String,
    enabled: bool,
    #[serde(default)]
    disabled_tools: Vec<String>,
}

/// `mcp.save`: sealed by the vault and stored with the receipt; the host is told the new set.
pub(crate) async fn save<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &McpSaveParams,
) -> Result<Decision, StoreError> {
    let Some(vault) = reads.vault else {
        return Ok(Decision::rejected(op, ErrorCode::NotConfigured, "this host has no MCP client"));
    };
    let mut servers = settings::read_or_default(reads.store, MCP_SERVERS).await?;
    let id = match &p.server.id {
        Some(id) if servers.iter().any(|s| stored_id(s) == Some(id.as_str())) => id.clone(),
        Some(id) => {
            let message = format!("MCP server {id} does not exist");
            return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
        }
        None if servers.len() >= MCP_MAX_SERVERS => {
            let message = format!("at most {MCP_MAX_SERVERS} MCP servers can be added");
            return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
        }
        None => free_id(&servers, &p.server.name),
    };
    let existing = servers.iter().position(|s| stored_id(s) == Some(id.as_str()));
    let stored = match vault.store_mcp(&id, &p.server, existing.map(|i| &servers[i])) {
        Ok(stored) => stored,
        Err(message) => return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message)),
    };
    // Another address is another server: the old one's tools and sign-in must not stand for
    // it until it lists its own.
    let moved = existing.is_some_and(|i| servers[i].get("url") != stored.get("url"));
    match existing {
        Some(i) => servers[i] = stored,
        None => servers.push(stored),
    }
    changed(reads, op, servers, moved.then_some(id.as_str())).await
}

/// `mcp.delete`: the server, its catalog and what is known of it go; the host closes it.
pub(crate) async fn delete<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &McpDeleteParams,
) -> Result<Decision, StoreError> {
    let mut servers = settings::read_or_default(reads.store, MCP_SERVERS).await?;
    let before = servers.len();
    servers.retain(|s| stored_id(s) != Some(p.server_id.as_str()));
    if servers.len() == before {
        let message = format!("MCP server {} does not exist", p.server_id);
        return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
    }
    changed(reads, op, servers, Some(&p.server_id)).await
}

/// Stores `servers` and tells the host; `deleted` is a server whose catalog, sign-in and live
/// state go (deleted, or moved to another address).
async fn changed<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    servers: Vec<Value>,
    deleted: Option<&str>,
) -> Result<Decision, StoreError> {
    let mut unit = UnitOfWork::new();
    unit.push(MCP_SERVERS.write(&servers)?);
    if let Some(deleted) = deleted {
        let mut catalogs = settings::read_or_default(reads.store, MCP_CATALOGS).await?;
        catalogs.retain(|c| c.server != deleted);
        unit.push(MCP_CATALOGS.write(&catalogs)?);
        // Its sign-in goes with it: a server added again under the same id signs in anew.
        let mut credentials = settings::read_or_default(reads.store, MCP_CREDENTIALS).await?;
        credentials.retain(|c| c.server != deleted);
        unit.push(MCP_CREDENTIALS.write(&credentials)?);
    }
    let overlay = Overlay { mcp_servers: Some(&servers), ..Overlay::default() };
    let view = settings_view(reads, overlay).await?;
    let mut decision = settings_changed(unit, op, view);
    decision.then.push(FollowUp::McpChanged(deleted.map(str::to_owned)));
    Ok(decision)
}

/// A server id made from `name` that no stored server has.
fn free_id(servers: &[Value], name: &str) -> String {
    let base = mcp_server_id(name);
    let taken = |id: &str| servers.iter().any(|s| stored_id(s) == Some(id));
    if !taken(&base) {
        return base;
    }
    (2..)
        .map(|n| {
            let suffix = format!("-{n}");
            let keep =
                base.len().min(panelot_protocol::engine::MCP_SERVER_ID_MAX_CHARS - suffix.len());
            format!("{}{suffix}", base[..keep].trim_end_matches('-'))
        })
        .find(|id| !taken(id) && is_mcp_server_id(id))
        .unwrap_or(base)
}

/// Stores `tools` as `server`'s last good catalog; `None` when it is the one stored (or the
/// server is gone).
pub(crate) async fn store_catalog(
    store: &impl Store,
    server: &str,
    tools: Vec<McpCatalogTool>,
) -> Result<Option<UnitOfWork>, StoreError> {
    let servers = settings::read_or_default(store, MCP_SERVERS).await?;
    if !servers.iter().any(|s| stored_id(s) == Some(server)) {
        return Ok(None);
    }
    let mut catalogs = settings::read_or_default(store, MCP_CATALOGS).await?;
    let fresh = StoredCatalog { server: server.to_owned(), tools };
    match catalogs.iter_mut().find(|c| c.server == server) {
        Some(same) if *same == fresh => return Ok(None),
        Some(old) => *old = fresh,
        None => catalogs.push(fresh),
    }
    let mut unit = UnitOfWork::new();
    unit.push(MCP_CATALOGS.write(&catalogs)?);
    Ok(Some(unit))
}

/// The registry with the MCP tools of the enabled servers' stored catalogs in place of the ones
/// it had, minus the tools the user switched off.
pub(crate) async fn offer_tools(
    store: &impl Store,
    tools: &mut ToolRegistry,
) -> Result<(), StoreError> {
    let servers = settings::read_or_default(store, MCP_SERVERS).await?;
    let catalogs = settings::read_or_default(store, MCP_CATALOGS).await?;
    let mut offered = Vec::new();
    for server in
        servers.iter().filter_map(|s| panelot_protocol::from_value::<ServerEntry>(s.clone()).ok())
    {
        let Some(catalog) = catalogs.iter().find(|c| c.server == server.id) else { continue };
        if !server.enabled {
            continue;
        }
        for tool in catalog.tools.iter().filter(|t| !server.disabled_tools.contains(&t.name)) {
            if super::mcp_live::server_of(&tool.exposed_name) != Some(server.id.as_str()) {
                continue;
            }
            offered.push(descriptor(tool));
        }
    }
    for err in tools.replace_dynamic(offered) {
        tracing::warn!(%err, "an MCP tool was not offered");
    }
    Ok(())
}

fn descriptor(tool: &McpCatalogTool) -> ToolDescriptor {
    let description = match tool.description.char_indices().nth(DESCRIPTION_MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &tool.description[..cut]),
        None => tool.description.clone(),
    };
    let schema = match &tool.input_schema {
        Value::Object(_) => tool.input_schema.clone(),
        _ => serde_json::json!({"type": "object"}),
    };
    // Every MCP call is judged as a write: a server's own "read-only" hint is its word, not ours.
    let mut descriptor = ToolDescriptor::new(
        &tool.exposed_name,
        &description,
        schema,
        ToolLevel::Mcp,
        ToolEffect::Write,
    );
    descriptor.label = tool.title.clone();
    descriptor
}

/// The stored servers, as the host gets them ([`super::outbox::Effect::McpConfigure`]).
pub(crate) async fn stored_servers(store: &impl Store) -> Result<Vec<Value>, StoreError> {
    settings::read_or_default(store, MCP_SERVERS).await
}

/// What the host is told to run: every stored server and their sign-ins.
pub(crate) async fn configure(store: &impl Store) -> Result<super::outbox::Effect, StoreError> {
    Ok(super::outbox::Effect::McpConfigure {
        servers: stored_servers(store).await?,
        credentials: settings::read_or_default(store, MCP_CREDENTIALS).await?,
    })
}

/// Keeps `server`'s new sign-in in place of its old one; `None` for a server that is gone.
pub(crate) async fn store_credentials(
    store: &impl Store,
    server: &str,
    sealed: Value,
) -> Result<Option<UnitOfWork>, StoreError> {
    let servers = stored_servers(store).await?;
    if !servers.iter().any(|s| stored_id(s) == Some(server)) {
        return Ok(None);
    }
    let mut all = settings::read_or_default(store, MCP_CREDENTIALS).await?;
    all.retain(|c| c.server != server);
    all.push(StoredCredentials { server: server.to_owned(), sealed });
    let mut unit = UnitOfWork::new();
    unit.push(MCP_CREDENTIALS.write(&all)?);
    Ok(Some(unit))
}

/// How a finished MCP call is shown in the server's recent calls.
pub(crate) fn call_view(
    exposed: &str,
    tools: &[StoredCatalog],
    at_ms: u64,
    (outcome, detail): (McpCallOutcome, Option<&str>),
) -> McpCallView {
    let name = tools
        .iter()
        .flat_map(|c| c.tools.iter())
        .find(|t| t.exposed_name == exposed)
        .map_or_else(|| exposed.to_owned(), |t| t.name.clone());
    McpCallView { tool: name, at_ms, outcome, detail: detail.map(str::to_owned) }
}

/// An answer to a server's question as MCP's `ElicitResult`: a submitted form accepts with its
/// values, anything else declines (the user said no) or cancels (nobody answered).
pub(crate) fn elicit_result(response: &InteractionResponse) -> Value {
    match response {
        InteractionResponse::Submit { value } => json!({"action": "accept", "content": value}),
        InteractionResponse::Cancel { .. } => json!({"action": "decline"}),
        InteractionResponse::Timeout { .. } => json!({"action": "cancel"}),
    }
}

// The list is read field by field rather than through serde: the module is ours and already
// checked what the servers sent, and derived decoders for these types cost the engine's wasm
// kilobytes it does not have.

/// The entries of `answer[key]` that `read` makes sense of.
fn listed<T>(answer: &Value, key: &str, read: impl Fn(&Value) -> Option<T>) -> Vec<T> {
    answer.get(key).and_then(Value::as_array).into_iter().flatten().filter_map(read).collect()
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn prompt_view(p: &Value) -> Option<McpPromptView> {
    let name = text(p, "name")?;
    Some(McpPromptView {
        server_id: text(p, "serverId")?,
        title: text(p, "title").unwrap_or_else(|| name.clone()),
        name,
        description: text(p, "description"),
        arguments: listed(p, "arguments", |a| {
            Some(McpPromptArgumentView {
                name: text(a, "name")?,
                description: text(a, "description"),
                required: a.get("required").and_then(Value::as_bool).unwrap_or(false),
            })
        }),
    })
}

fn resource_view(r: &Value) -> Option<McpResourceView> {
    let name = text(r, "name")?;
    Some(McpResourceView {
        server_id: text(r, "serverId")?,
        uri: text(r, "uri")?,
        title: text(r, "title").unwrap_or_else(|| name.clone()),
        name,
        description: text(r, "description"),
        mime_type: text(r, "mimeType"),
    })
}

/// The event answering a query from the host's answer; `Err` is the refusal's words.
pub(crate) fn answered(
    submission_id: SubmissionId,
    query: &McpQuery,
    answer: Result<Value, String>,
) -> Result<AgentEvent, String> {
    let answer = answer?;
    match query {
        McpQuery::List { .. } => Ok(AgentEvent::McpListed(McpListedEvent {
            submission_id,
            prompts: listed(&answer, "prompts", prompt_view),
            resources: listed(&answer, "resources", resource_view),
            failures: listed(&answer, "failures", |f| {
                Some(McpListFailure { server_id: text(f, "serverId")?, reason: text(f, "reason")? })
            }),
        })),
        McpQuery::Fetch { server, fetch } => {
            if answer.get("ok").and_then(Value::as_bool) != Some(true) {
                let error = answer.get("error").and_then(|e| e.get("message"));
                return Err(error
                    .and_then(Value::as_str)
                    .unwrap_or("the server failed")
                    .to_owned());
            }
            let result = answer.get("result").cloned().unwrap_or(Value::Null);
            let (kind, label, source, text) = match fetch {
                McpFetch::Prompt { name, .. } => (
                    ContextKind::McpPrompt,
                    format!("/{server}:{name}"),
                    format!("mcp://{server}/prompts/{name}"),
                    crate::mcp_result::render_prompt(&result),
                ),
                McpFetch::Resource { uri } => (
                    ContextKind::McpResource,
                    uri.clone(),
                    uri.clone(),
                    crate::mcp_result::render_resource(&result),
                ),
            };
            let approx_tokens = u32::try_from(text.len() / 4).ok();
            Ok(AgentEvent::McpFetched(McpFetchedEvent {
                submission_id,
                block: ContextBlock {
                    kind,
                    label,
                    origin: Some(format!("mcp:{server}")),
                    // Server text: fenced as data whatever a UI later marks it.
                    trust: Trust::Untrusted,
                    provenance: Provenance::Mcp,
                    source_ref: Some(source),
                    tab: None,
                    content: ContextContent::Text { text },
                    approx_tokens,
                },
            }))
        }
    }
}
