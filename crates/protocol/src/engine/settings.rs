//! Settings as the UI edits them: model connections (keys go in, never come back out), the
//! default model, the permission policy and the per-turn token budget.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use super::codes::PermissionPolicy;
use super::codes::ToolLevel;
use super::input::ModelChoice;
use super::mcp::McpServerView;
use crate::ids::ConnectionId;
use crate::ids::PresetId;

/// The wire format of a connection.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionKind {
    /// OpenAI-compatible `chat/completions`.
    Openai,
    /// Anthropic `messages`.
    Anthropic,
}

/// A connection as the settings page may see it: never a key.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectionView {
    /// The connection.
    pub id: ConnectionId,
    /// Display name.
    pub name: String,
    /// Wire format.
    pub kind: ConnectionKind,
    /// Normalized base URL.
    pub base_url: String,
    /// How many keys are stored.
    pub key_count: u32,
    /// Whether it is offered.
    pub enabled: bool,
    /// Model ids to offer.
    pub model_ids: Vec<String>,
    /// Names of the extra headers sent with every request (their values never come back).
    pub header_names: Vec<String>,
    /// Provider quirks switched on (names from [`SettingsView::quirk_names`]).
    pub quirks: Vec<String>,
    /// The prices the user set, by model; a model without one has no known cost.
    pub prices: Vec<ModelPrice>,
}

/// Highest price accepted, in US dollars per million tokens: far above any model's, low enough
/// that a mistyped number is caught.
pub const MAX_PRICE_USD_PER_MILLION: f64 = 10_000.0;

/// What one model of a connection costs, in US dollars per million tokens, as the user set it.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelPrice {
    /// The model id at the connection.
    pub model_id: String,
    /// Input tokens (uncached).
    #[serde(deserialize_with = "price")]
    pub input: f64,
    /// Output tokens.
    #[serde(deserialize_with = "price")]
    pub output: f64,
    /// Input read from the provider's cache; the input price when unset.
    #[serde(default, deserialize_with = "price_opt")]
    pub cache_read: Option<f64>,
    /// Input written to the provider's cache; the input price when unset.
    #[serde(default, deserialize_with = "price_opt")]
    pub cache_write: Option<f64>,
}

/// Whether `usd` is a price: finite, not negative, at most [`MAX_PRICE_USD_PER_MILLION`].
pub fn is_price(usd: f64) -> bool {
    usd.is_finite() && (0.0..=MAX_PRICE_USD_PER_MILLION).contains(&usd)
}

fn price<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let usd = f64::deserialize(deserializer)?;
    match is_price(usd) {
        true => Ok(usd),
        false => Err(serde::de::Error::custom(format!(
            "a price is between 0 and {MAX_PRICE_USD_PER_MILLION} US dollars per million tokens"
        ))),
    }
}

fn price_opt<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    #[derive(Deserialize)]
    struct Price(#[serde(deserialize_with = "price")] f64);
    Ok(Option::<Price>::deserialize(deserializer)?.map(|Price(usd)| usd))
}

/// An extra HTTP header of a connection, as the settings form sends it.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HeaderInput {
    /// Header name.
    pub name: String,
    /// Header value (sealed like a key when the name looks like a credential).
    pub value: String,
}

/// One key of a connection as the settings form sends it: typed now, or one the engine stores,
/// named by its place, so a form can add, remove and reorder keys without ever seeing one.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(untagged)]
pub enum ApiKeyEntry {
    /// A key as typed (JSON: a string).
    Typed(String),
    /// The stored key at this position, from 1 (JSON: `{"saved": 2}`).
    Saved {
        /// Its position in the stored list, from 1.
        saved: u32,
    },
}

/// Reads a string or `{"saved": n}` as serde's untagged form does (other members ignored, the
/// same error when neither fits), through a JSON value: serde buffers an untagged enum in its
/// `Content` tree and compiles a second decoder of each variant against it.
impl<'de> Deserialize<'de> for ApiKeyEntry {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        /// The `Saved` variant's fields.
        #[derive(Deserialize)]
        struct Saved {
            saved: u32,
        }
        match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::String(key) => Ok(ApiKeyEntry::Typed(key)),
            other => match crate::traced::from_value::<Saved>(other) {
                Ok(Saved { saved }) => Ok(ApiKeyEntry::Saved { saved }),
                Err(_) => Err(D::Error::custom(
                    "data did not match any variant of untagged enum ApiKeyEntry",
                )),
            },
        }
    }
}

/// A connection as the settings form sends it.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectionInput {
    /// The connection to replace; `None` adds one.
    pub id: Option<ConnectionId>,
    /// Display name.
    pub name: String,
    /// Wire format.
    pub kind: ConnectionKind,
    /// Base URL as typed (HTTPS, or HTTP to this machine).
    pub base_url: String,
    /// Keys in failover order; `None` keeps the stored ones.
    pub api_keys: Option<Vec<ApiKeyEntry>>,
    /// Whether it is offered.
    pub enabled: bool,
    /// Model ids to offer.
    pub model_ids: Vec<String>,
    /// Extra headers; `None` keeps the stored ones.
    pub custom_headers: Option<Vec<HeaderInput>>,
    /// Provider quirks to switch on (names from [`SettingsView::quirk_names`]).
    pub quirks: Vec<String>,
    /// Model prices, at most one per model; `None` keeps the stored ones.
    #[serde(default)]
    pub prices: Option<Vec<ModelPrice>>,
}

/// Everything the settings page shows.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsView {
    /// Model connections.
    pub connections: Vec<ConnectionView>,
    /// Model of turns that name none.
    pub default_model: Option<ModelChoice>,
    /// Global permission policy.
    pub permission_policy: PermissionPolicy,
    /// Tokens a turn may spend before it pauses; `None` is unlimited.
    pub turn_token_budget: Option<u64>,
    /// Every provider quirk a connection can switch on, for the form.
    pub quirk_names: Vec<String>,
    /// Permission rules, most specific first as the gatekeeper weighs them.
    pub rules: Vec<PermissionRuleView>,
    /// Model presets, in the order they were made.
    pub presets: Vec<PresetView>,
    /// The agent's memory: notes kept across chats, in the order they were first saved.
    #[serde(default)]
    pub memory: Vec<MemoryNoteView>,
    /// The language of every page.
    pub language: Language,
    /// The endpoints Panelot knows, for the connection form (they pre-fill it).
    pub templates: Vec<ConnectionTemplateView>,
    /// Whether the agent may open pages next to the chat that asked (`sidebar_open`); off
    /// unless the user turns it on.
    pub agent_open_tools: bool,
    /// MCP servers, in the order they were added, with what the engine knows of each now.
    #[serde(default)]
    pub mcp_servers: Vec<McpServerView>,
}

/// Longest key of a memory note, in characters, once trimmed.
pub const MEMORY_KEY_MAX_CHARS: usize = 100;
/// Longest memory note, in characters.
pub const MEMORY_VALUE_MAX_CHARS: usize = 4_000;
/// The most notes the memory keeps; a new one past it is refused until one is deleted.
pub const MEMORY_MAX_NOTES: usize = 100;

/// A note of the agent's memory, as the settings page shows it.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MemoryNoteView {
    /// What it is saved under.
    pub key: String,
    /// The note.
    pub value: String,
    /// When it was last written (ms since the Unix epoch).
    pub updated_at_ms: u64,
}

/// Why a memory key or note is refused, if it is: the key is checked as trimmed.
pub fn memory_key_problem(key: &str) -> Option<String> {
    let chars = key.trim().chars().count();
    match chars {
        0 => Some("a note needs a key".to_owned()),
        1..=MEMORY_KEY_MAX_CHARS => None,
        _ => Some(format!("a key is at most {MEMORY_KEY_MAX_CHARS} characters ({chars} given)")),
    }
}

/// Why the text of a memory note is refused, if it is.
pub fn memory_value_problem(value: &str) -> Option<String> {
    let chars = value.chars().count();
    match chars {
        _ if value.trim().is_empty() => Some("a note needs some text".to_owned()),
        1..=MEMORY_VALUE_MAX_CHARS => None,
        _ => Some(format!("a note is at most {MEMORY_VALUE_MAX_CHARS} characters ({chars} given)")),
    }
}

/// Decodes a memory key, trimmed, refusing an empty or overlong one.
pub(crate) fn memory_key<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<String, D::Error> {
    let key = String::deserialize(deserializer)?;
    match memory_key_problem(&key) {
        None => Ok(key.trim().to_owned()),
        Some(problem) => Err(serde::de::Error::custom(problem)),
    }
}

/// Decodes the text of a memory note, refusing an empty or overlong one.
pub(crate) fn memory_value<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<String, D::Error> {
    let value = String::deserialize(deserializer)?;
    match memory_value_problem(&value) {
        None => Ok(value),
        Some(problem) => Err(serde::de::Error::custom(problem)),
    }
}

/// The language of the UI pages, one choice shared by all of them.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Language {
    /// The browser's language, when it is one of the others; else English.
    #[default]
    #[serde(rename = "system")]
    System,
    /// English.
    #[serde(rename = "en")]
    English,
    /// Simplified Chinese.
    #[serde(rename = "zh-CN")]
    SimplifiedChinese,
}

/// A known endpoint that pre-fills a new connection.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectionTemplateView {
    /// Stable id (`openai`, `ollama`, `custom`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Wire format: `openai` or `anthropic`.
    pub kind: String,
    /// Default base URL; empty for a custom endpoint.
    pub base_url: String,
    /// The quirks it switches on, by name.
    pub quirks: Vec<String>,
    /// Whether calls need a key (hosted APIs) or usually go without (local servers).
    pub key_required: bool,
}

/// How long a reasoning model thinks before it answers.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningEffort {
    /// Short.
    Low,
    /// Medium.
    Medium,
    /// Long.
    High,
}

/// Generation parameters a preset sends; unset ones are never sent.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PresetParams {
    /// Sampling temperature, 0 to 2.
    pub temperature: Option<f64>,
    /// Output token limit of one model call.
    pub max_tokens: Option<u32>,
    /// Reasoning effort (dropped by providers whose models do not reason).
    pub reasoning_effort: Option<ReasoningEffort>,
}

/// A model preset: a named model with its own instructions and defaults. A thread made with
/// it uses them unless the turn says otherwise.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelPreset {
    /// Display name (1 to 100 characters).
    pub name: String,
    /// The model it calls.
    pub model: ModelChoice,
    /// Instructions added to the system prompt, after the kernel's.
    pub system_prompt: Option<String>,
    /// Permission policy of its threads (below the thread's own and the turn's).
    pub permission_policy: Option<PermissionPolicy>,
    /// Tool families its turns may use; `None` is the default set.
    pub enabled_tool_levels: Option<Vec<ToolLevel>>,
    /// Generation parameters.
    pub params: PresetParams,
}

/// A stored model preset.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PresetView {
    /// Stable id, named by threads.
    pub id: PresetId,
    /// The preset.
    pub preset: ModelPreset,
}

/// What a permission rule decides for the calls it matches.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PermissionVerdict {
    /// Runs without asking.
    Allow,
    /// Always asks (a session grant cannot silence it).
    Ask,
    /// Never runs.
    Deny,
}

/// Who made a permission rule.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RuleAuthor {
    /// Written in settings (or seeded for every profile).
    User,
    /// "Accept for this site" on an approval.
    Approval,
    /// A plugin.
    Plugin,
}

/// A permission rule as the settings page shows it.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PermissionRuleView {
    /// Stable id.
    pub id: String,
    /// Tool pattern: `*`, a name, `prefix*` or `category:X`.
    pub tool: String,
    /// Origin pattern: `*`, an exact origin or `*.domain`.
    pub origin: String,
    /// What it decides.
    pub verdict: PermissionVerdict,
    /// Who made it.
    pub source: RuleAuthor,
    /// When it was made (ms since the Unix epoch).
    pub created_at_ms: u64,
}

/// A permission rule as the settings form sends it.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PermissionRuleInput {
    /// Tool pattern: `*`, a name, `prefix*` or `category:X`.
    pub tool: String,
    /// Origin pattern: `*`, an exact origin or `*.domain`.
    pub origin: String,
    /// What it decides.
    pub verdict: PermissionVerdict,
}

/// Why checking a connection failed.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionCheckFailure {
    /// The key was rejected.
    InvalidKey,
    /// The endpoint could not be reached or did not answer in time.
    Unreachable,
    /// No model was given and none could be listed.
    NoModel,
    /// The endpoint answered, but not in the expected wire format.
    ProtocolMismatch,
    /// The model did not call the test tool or did not answer its result.
    NoToolUse,
}

/// What checking a connection found (shown, never stored).
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectionCheck {
    /// The endpoint answered over HTTP.
    pub reachable: bool,
    /// The key was accepted.
    pub key_valid: bool,
    /// A streamed call completed.
    pub streaming: bool,
    /// The model called the test tool and answered its result.
    pub tool_use: bool,
    /// The listed models, when listing worked.
    pub models: Option<Vec<String>>,
    /// The model the calls used.
    pub model: Option<String>,
    /// The first failure.
    pub failure: Option<ConnectionCheckFailure>,
    /// The provider's diagnosis of that failure, in words.
    pub diagnosis: Option<String>,
}

/// A change of settings; absent fields stay as they are.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsPatch {
    /// New default model.
    pub default_model: Option<ModelChoice>,
    /// New permission policy.
    pub permission_policy: Option<PermissionPolicy>,
    /// New token budget (0 removes it).
    pub turn_token_budget: Option<u64>,
    /// New language of every page.
    pub language: Option<Language>,
    /// Let the agent open pages next to the chat (or stop it).
    pub agent_open_tools: Option<bool>,
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
