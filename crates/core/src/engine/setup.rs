//! Setup commands: read the settings, change the default model, policy and budget, save and delete
//! model connections, add and delete permission rules, save and delete the agent's memory notes.
//! Connections are stored as the host's vault makes them (keys sealed); the engine never sees how,
//! and a view of a connection never carries a key. Every change answers with the whole settings
//! view, as it will be once committed.

use panelot_protocol::AgentEvent;
use panelot_protocol::ConnectionId;
use panelot_protocol::Op;
use panelot_protocol::engine::ConnectionDeleteParams;
use panelot_protocol::engine::ConnectionSaveParams;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::Language;
use panelot_protocol::engine::McpServerView;
use panelot_protocol::engine::McpToolView;
use panelot_protocol::engine::MemoryDeleteParams;
use panelot_protocol::engine::MemoryNoteView;
use panelot_protocol::engine::MemorySaveParams;
use panelot_protocol::engine::ModelChoice;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::PresetView;
use panelot_protocol::engine::RuleAddParams;
use panelot_protocol::engine::RuleDeleteParams;
use panelot_protocol::engine::SettingsStateEvent;
use panelot_protocol::engine::SettingsUpdateParams;
use panelot_protocol::engine::SettingsView;
use serde_json::Value;

use super::approvals::MAX_RULES;
use super::decision::Decision;
use super::decision::ack;
use super::reads::Reads;
use crate::gatekeeper::Rule;
use crate::gatekeeper::RuleSource;
use crate::gatekeeper::RuleVerdict;
use crate::settings;
use crate::settings::MemoryNote;
use crate::settings::StoredAuthor;
use crate::settings::StoredList;
use crate::settings::StoredRule;
use crate::settings::StoredVerdict;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::UnitOfWork;

/// Connections a profile may hold.
const MAX_CONNECTIONS: usize = 64;

/// Values a settings view shows instead of the stored ones: those of a change not yet
/// committed. `None` fields are read from the store.
#[derive(Default)]
pub(crate) struct Overlay<'a> {
    pub(crate) connections: Option<&'a [Value]>,
    pub(crate) default_model: Option<Option<ModelChoice>>,
    pub(crate) policy: Option<PermissionPolicy>,
    pub(crate) budget: Option<Option<u64>>,
    pub(crate) rules: Option<&'a [StoredRule]>,
    pub(crate) presets: Option<&'a [PresetView]>,
    pub(crate) memory: Option<&'a [MemoryNote]>,
    pub(crate) language: Option<Language>,
    pub(crate) agent_open_tools: Option<bool>,
    pub(crate) mcp_servers: Option<&'a [Value]>,
}

/// The `id` of a stored connection.
pub(crate) fn stored_id(stored: &Value) -> Option<&str> {
    stored.get("id").and_then(Value::as_str)
}

/// The stored connection `id`.
pub(crate) async fn connection(store: &impl Store, id: &str) -> Result<Option<Value>, StoreError> {
    let connections = settings::read_or_default(store, settings::CONNECTIONS).await?;
    Ok(connections.into_iter().find(|c| stored_id(c) == Some(id)))
}

/// The settings as they are now, with what `overlay` holds in place of the stored values (a
/// change about to be committed with the view that announces it).
pub(crate) async fn settings_view<S: Store>(
    reads: &Reads<'_, S>,
    overlay: Overlay<'_>,
) -> Result<SettingsView, StoreError> {
    let store = reads.store;
    let connections = match overlay.connections {
        Some(list) => list.to_vec(),
        None => settings::read_or_default(store, settings::CONNECTIONS).await?,
    };
    let default_model = match overlay.default_model {
        Some(model) => model,
        None => settings::DEFAULT_MODEL.read(store).await?,
    };
    let permission_policy = match overlay.policy {
        Some(policy) => policy,
        None => settings::policy(store).await?,
    };
    let turn_token_budget = match overlay.budget {
        Some(budget) => budget,
        None => settings::token_budget(store).await?,
    };
    let rules = match overlay.rules {
        Some(rules) => rules.to_vec(),
        None => settings::RULES.read(store).await?.into_items(),
    };
    let presets = match overlay.presets {
        Some(presets) => presets.to_vec(),
        None => settings::PRESETS.read(store).await?.into_items(),
    };
    let memory = match overlay.memory {
        Some(notes) => notes.to_vec(),
        None => settings::MEMORY.read(store).await?.into_items(),
    };
    let (views, quirk_names, templates) = match reads.vault {
        Some(vault) => (
            connections.iter().filter_map(|c| vault.view(c)).collect(),
            vault.quirk_names(),
            vault.templates(),
        ),
        None => (Vec::new(), Vec::new(), Vec::new()),
    };
    let language = match overlay.language {
        Some(language) => language,
        None => settings::LANGUAGE.read(store).await?.unwrap_or_default(),
    };
    let agent_open_tools = match overlay.agent_open_tools {
        Some(on) => on,
        None => settings::AGENT_OPEN_TOOLS.read(store).await?.unwrap_or(false),
    };
    let mcp_servers = match overlay.mcp_servers {
        Some(servers) => mcp_views(reads, servers).await?,
        None => {
            mcp_views(reads, &settings::read_or_default(store, settings::MCP_SERVERS).await?)
                .await?
        }
    };
    Ok(SettingsView {
        agent_open_tools,
        connections: views,
        default_model,
        permission_policy,
        turn_token_budget,
        quirk_names,
        rules: rules.iter().map(StoredRule::view).collect(),
        presets,
        memory: memory.iter().map(note_view).collect(),
        language,
        templates,
        mcp_servers,
    })
}

/// The settings page's view of the stored servers, with what is known of each now.
pub(crate) async fn mcp_views<S: Store>(
    reads: &Reads<'_, S>,
    stored: &[Value],
) -> Result<Vec<McpServerView>, StoreError> {
    let Some(vault) = reads.vault else { return Ok(Vec::new()) };
    let catalogs = settings::read_or_default(reads.store, settings::MCP_CATALOGS).await?;
    let mut views = Vec::new();
    for server in stored {
        let Some(mut view) = vault.view_mcp(server) else { continue };
        reads.mcp.fill(&mut view);
        let catalog = catalogs.iter().find(|c| c.server == view.id);
        view.tools = catalog.map_or_else(Vec::new, |c| {
            c.tools
                .iter()
                .map(|t| McpToolView {
                    name: t.name.clone(),
                    exposed_name: t.exposed_name.clone(),
                    title: t.title.clone(),
                    description: t.description.clone(),
                    enabled: !view.disabled_tools.contains(&t.name),
                })
                .collect()
        });
        if view.enabled {
            let chars: usize = catalog
                .iter()
                .flat_map(|c| c.tools.iter())
                .filter(|t| !view.disabled_tools.contains(&t.name))
                .map(settings::McpCatalogTool::offered_chars)
                .sum();
            view.offered_tokens = u32::try_from(chars / 4).unwrap_or(u32::MAX);
        }
        views.push(view);
    }
    Ok(views)
}

/// The decision of a settings change: `unit`, acked, announced with the view after it.
pub(crate) fn settings_changed(unit: UnitOfWork, op: &Op, settings: SettingsView) -> Decision {
    let state = AgentEvent::SettingsState(SettingsStateEvent { submission_id: None, settings });
    Decision { unit, events: vec![state], ..Decision::answer(ack(op, None, None)) }
}

/// `settings.update`.
pub(crate) async fn update<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &SettingsUpdateParams,
) -> Result<Decision, StoreError> {
    let mut unit = UnitOfWork::new();
    if let Some(model) = &p.patch.default_model {
        unit.push(settings::DEFAULT_MODEL.write(model)?);
    }
    if let Some(policy) = &p.patch.permission_policy {
        unit.push(settings::PERMISSION_POLICY.write(policy)?);
    }
    let budget = p.patch.turn_token_budget.map(|b| (b > 0).then_some(b));
    if let Some(budget) = &budget {
        unit.push(settings::TURN_TOKEN_BUDGET.write(budget)?);
    }
    if let Some(language) = &p.patch.language {
        unit.push(settings::LANGUAGE.write(language)?);
    }
    if let Some(on) = p.patch.agent_open_tools {
        unit.push(settings::AGENT_OPEN_TOOLS.write(&on)?);
        if !on {
            // Turned off: what waited for a view is dropped, never opened later.
            let mut pending = settings::PENDING_OPENS.read(reads.store).await?;
            pending.clear();
            unit.push(settings::PENDING_OPENS.write(&pending)?);
        }
    }
    let overlay = Overlay {
        agent_open_tools: p.patch.agent_open_tools,
        default_model: p.patch.default_model.clone().map(Some),
        policy: p.patch.permission_policy,
        budget,
        language: p.patch.language,
        ..Overlay::default()
    };
    let settings = settings_view(reads, overlay).await?;
    Ok(settings_changed(unit, op, settings))
}

/// `connection.save`: sealed by the vault, stored with the receipt; a first connection with a
/// model becomes the default model, so a new user can chat at once.
pub(crate) async fn save_connection<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &ConnectionSaveParams,
) -> Result<Decision, StoreError> {
    let Some(vault) = reads.vault else {
        return Ok(Decision::rejected(
            op,
            ErrorCode::NotConfigured,
            "this host stores no connections",
        ));
    };
    let mut connections = settings::read_or_default(reads.store, settings::CONNECTIONS).await?;
    let id = match &p.connection.id {
        Some(id) => id.clone(),
        None => reads.env.id("c", ConnectionId::new)?,
    };
    let at = connections.iter().position(|c| stored_id(c) == Some(id.as_str()));
    if at.is_none() && connections.len() >= MAX_CONNECTIONS {
        let message = format!("at most {MAX_CONNECTIONS} connections can be stored");
        return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
    }
    let stored = match vault.store(&id, &p.connection, at.map(|i| &connections[i])) {
        Ok(stored) => stored,
        Err(message) => return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message)),
    };
    match at {
        Some(i) => connections[i] = stored,
        None => connections.push(stored),
    }
    let mut unit = UnitOfWork::new();
    unit.push(settings::CONNECTIONS.write(&connections)?);
    let mut default_model = None;
    if settings::DEFAULT_MODEL.read(reads.store).await?.is_none()
        && let Some(model) = p.connection.model_ids.first()
        && let Ok(model_id) = panelot_protocol::ModelId::new(model.clone())
    {
        let choice = ModelChoice { connection_id: id.clone(), model_id };
        unit.push(settings::DEFAULT_MODEL.write(&choice)?);
        default_model = Some(Some(choice));
    }
    let overlay = Overlay { connections: Some(&connections), default_model, ..Overlay::default() };
    let settings = settings_view(reads, overlay).await?;
    Ok(settings_changed(unit, op, settings))
}

/// `connection.delete`.
pub(crate) async fn delete_connection<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &ConnectionDeleteParams,
) -> Result<Decision, StoreError> {
    let mut connections = settings::read_or_default(reads.store, settings::CONNECTIONS).await?;
    let before = connections.len();
    connections.retain(|c| stored_id(c) != Some(p.connection_id.as_str()));
    if connections.len() == before {
        let message = format!("connection {} does not exist", p.connection_id);
        return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
    }
    let mut unit = UnitOfWork::new();
    unit.push(settings::CONNECTIONS.write(&connections)?);
    let overlay = Overlay { connections: Some(&connections), ..Overlay::default() };
    let settings = settings_view(reads, overlay).await?;
    Ok(settings_changed(unit, op, settings))
}

/// `rule.add`: a rule the user wrote, checked by the gatekeeper's own parser.
pub(crate) async fn add_rule<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &RuleAddParams,
) -> Result<Decision, StoreError> {
    let now = reads.env.now_ms();
    let rule = StoredRule {
        id: reads.env.ids.new_id("rule"),
        tool: p.rule.tool.trim().to_owned(),
        origin: p.rule.origin.trim().to_owned(),
        verdict: StoredVerdict::from(p.rule.verdict),
        source: StoredAuthor::User,
        created_at_ms: now,
    };
    let verdict = match rule.verdict {
        StoredVerdict::Allow => RuleVerdict::Allow,
        StoredVerdict::Ask => RuleVerdict::Ask,
        StoredVerdict::Deny => RuleVerdict::Deny,
    };
    if let Err(err) =
        Rule::parse(&rule.id, &rule.tool, &rule.origin, verdict, RuleSource::User, now)
    {
        let message = format!("the rule is not valid: {err}");
        return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
    }
    let mut rules = settings::RULES.read(reads.store).await?;
    if rules.len() >= MAX_RULES {
        let message = format!("at most {MAX_RULES} rules can be stored");
        return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
    }
    rules.push(rule);
    rules_changed(reads, op, rules).await
}

/// `rule.delete`. A seeded rule deleted here stays deleted: seeding runs once per profile.
pub(crate) async fn delete_rule<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &RuleDeleteParams,
) -> Result<Decision, StoreError> {
    let mut rules = settings::RULES.read(reads.store).await?;
    let before = rules.len();
    rules.retain(|rule| rule.id != p.rule_id);
    if rules.len() == before {
        let message = format!("rule {} does not exist", p.rule_id);
        return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
    }
    rules_changed(reads, op, rules).await
}

async fn rules_changed<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    rules: StoredList<StoredRule>,
) -> Result<Decision, StoreError> {
    let mut unit = UnitOfWork::new();
    unit.push(settings::RULES.write(&rules)?);
    let overlay = Overlay { rules: Some(&rules), ..Overlay::default() };
    let settings = settings_view(reads, overlay).await?;
    Ok(settings_changed(unit, op, settings))
}

/// The unit that seeds the default rules, once per profile; `None` when they were seeded.
pub(crate) async fn seed_rules(store: &impl Store) -> Result<Option<UnitOfWork>, StoreError> {
    if settings::RULES_SEEDED.read(store).await?.is_some() {
        return Ok(None);
    }
    let mut rules = settings::RULES.read(store).await?;
    for seed in settings::seeded_rules() {
        if !rules.iter().any(|r| r.id == seed.id) {
            rules.push(seed);
        }
    }
    let mut unit = UnitOfWork::new();
    unit.push(settings::RULES.write(&rules)?);
    unit.push(settings::RULES_SEEDED.write(&true)?);
    Ok(Some(unit))
}

/// `memory.save`: a note the user wrote, added or put in place of the one under its key (the
/// decoder checked the key and the text). Stored like the model's notes: `memory_read` fences
/// every note as data whoever wrote it.
pub(crate) async fn save_memory<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &MemorySaveParams,
) -> Result<Decision, StoreError> {
    let mut notes = settings::MEMORY.read(reads.store).await?;
    let now = reads.env.now_ms();
    if settings::put_note(&mut notes, &p.key, &p.value, now) == settings::NotePut::Full {
        let message = format!(
            "the memory is full ({} notes): delete one before adding another",
            settings::MEMORY_MAX_NOTES
        );
        return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
    }
    memory_changed(reads, op, notes).await
}

/// `memory.delete`.
pub(crate) async fn delete_memory<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &MemoryDeleteParams,
) -> Result<Decision, StoreError> {
    let mut notes = settings::MEMORY.read(reads.store).await?;
    if !settings::remove_note(&mut notes, &p.key) {
        let message = format!("no note is saved under \"{}\"", p.key);
        return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
    }
    memory_changed(reads, op, notes).await
}

async fn memory_changed<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    notes: StoredList<MemoryNote>,
) -> Result<Decision, StoreError> {
    let mut unit = UnitOfWork::new();
    unit.push(settings::MEMORY.write(&notes)?);
    let overlay = Overlay { memory: Some(&notes), ..Overlay::default() };
    let settings = settings_view(reads, overlay).await?;
    Ok(settings_changed(unit, op, settings))
}

/// A note as the settings page shows it.
fn note_view(note: &MemoryNote) -> MemoryNoteView {
    MemoryNoteView {
        key: note.key.clone(),
        value: note.value.clone(),
        updated_at_ms: note.updated_at_ms,
    }
}

// The engine keeps the limit the settings page is told of.
const _: () = assert!(settings::MEMORY_MAX_NOTES == panelot_protocol::engine::MEMORY_MAX_NOTES);
