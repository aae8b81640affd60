//! Stored forms of what a user sent and the model settings of a run: the message with its
//! attached context and browser context, per-turn overrides, model choices, presets, and token
//! counts.

use panelot_protocol::AttachmentId;
use panelot_protocol::ConnectionId;
use panelot_protocol::ModelId;
use panelot_protocol::engine::BrowserContext;
use panelot_protocol::engine::ContextBlock;
use panelot_protocol::engine::ContextContent;
use panelot_protocol::engine::ModelChoice;
use panelot_protocol::engine::ModelPreset;
use panelot_protocol::engine::PresetParams;
use panelot_protocol::engine::TabRef;
use panelot_protocol::engine::TurnOverrides;
use panelot_protocol::engine::Usage;
use panelot_protocol::engine::UserInput;
use panelot_protocol::internally_tagged;
use serde::Deserialize;
use serde::Serialize;

use super::codes::StoredContextKind;
use super::codes::StoredPolicy;
use super::codes::StoredProvenance;
use super::codes::StoredReasoningEffort;
use super::codes::StoredToolLevel;
use super::codes::StoredTrust;
use crate::store::format::error::FormatError;
use crate::store::format::error::id;

/// A user's message.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StoredInput {
    text: String,
    attachment_ids: Vec<String>,
    attached_context: Vec<StoredContextBlock>,
    browser_context: Option<StoredBrowserContext>,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredBrowserContext {
    captured_at_ms: u64,
    default_tab: Option<StoredTab>,
    referenced_tabs: Vec<StoredTab>,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredTab {
    tab_id: u32,
    window_id: Option<u32>,
    url: String,
    title: String,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredContextBlock {
    kind: StoredContextKind,
    label: String,
    origin: Option<String>,
    trust: StoredTrust,
    provenance: StoredProvenance,
    source_ref: Option<String>,
    tab: Option<StoredTab>,
    content: StoredContent,
    approx_tokens: Option<u32>,
}

internally_tagged! {
    #[serde(tag = "type", rename_all = "snake_case")]
    #[derive(Serialize, Debug)]
    enum StoredContent {
        Text {
            text: String,
        },
        Image {
            mime: String,
            #[serde(rename = "dataBase64")]
            data_base64: String,
        },
        File {
            #[serde(rename = "attachmentId")]
            attachment_id: String,
            mime: String,
            #[serde(rename = "sizeBytes")]
            size_bytes: u64,
        },
        Empty,
    }
}

/// Settings of one turn.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StoredOverrides {
    model: Option<StoredModelChoice>,
    permission_policy: Option<StoredPolicy>,
    enabled_tool_levels: Option<Vec<StoredToolLevel>>,
}

/// A model at a connection.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StoredModelChoice {
    connection_id: String,
    model_id: String,
}

/// A model preset as a run froze it.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StoredPreset {
    name: String,
    model: StoredModelChoice,
    system_prompt: Option<String>,
    permission_policy: Option<StoredPolicy>,
    enabled_tool_levels: Option<Vec<StoredToolLevel>>,
    params: StoredPresetParams,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredPresetParams {
    temperature: Option<f64>,
    max_tokens: Option<u32>,
    reasoning_effort: Option<StoredReasoningEffort>,
}

/// Token counts of a model call.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StoredUsage {
    input: u64,
    output: u64,
    cache_read: Option<u64>,
    cache_write: Option<u64>,
}

impl From<&UserInput> for StoredInput {
    fn from(it: &UserInput) -> Self {
        StoredInput {
            text: it.text.clone(),
            attachment_ids: it.attachment_ids.iter().map(ToString::to_string).collect(),
            attached_context: it.attached_context.iter().map(Into::into).collect(),
            browser_context: it.browser_context.as_ref().map(Into::into),
        }
    }
}

impl TryFrom<StoredInput> for UserInput {
    type Error = FormatError;

    fn try_from(it: StoredInput) -> Result<Self, FormatError> {
        Ok(UserInput {
            text: it.text,
            attachment_ids: it
                .attachment_ids
                .into_iter()
                .map(|raw| id("attachmentIds", raw, AttachmentId::new))
                .collect::<Result<_, _>>()?,
            attached_context: it
                .attached_context
                .into_iter()
                .map(TryInto::try_into)
                .collect::<Result<_, _>>()?,
            browser_context: it.browser_context.map(Into::into),
        })
    }
}

impl From<&BrowserContext> for StoredBrowserContext {
    fn from(it: &BrowserContext) -> Self {
        StoredBrowserContext {
            captured_at_ms: it.captured_at_ms,
            default_tab: it.default_tab.as_ref().map(Into::into),
            referenced_tabs: it.referenced_tabs.iter().map(Into::into).collect(),
        }
    }
}

impl From<StoredBrowserContext> for BrowserContext {
    fn from(it: StoredBrowserContext) -> Self {
        BrowserContext {
            captured_at_ms: it.captured_at_ms,
            default_tab: it.default_tab.map(Into::into),
            referenced_tabs: it.referenced_tabs.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<&TabRef> for StoredTab {
    fn from(it: &TabRef) -> Self {
        StoredTab {
            tab_id: it.tab_id,
            window_id: it.window_id,
            url: it.url.clone(),
            title: it.title.clone(),
        }
    }
}

impl From<StoredTab> for TabRef {
    fn from(it: StoredTab) -> Self {
        TabRef { tab_id: it.tab_id, window_id: it.window_id, url: it.url, title: it.title }
    }
}

impl From<&ContextBlock> for StoredContextBlock {
    fn from(it: &ContextBlock) -> Self {
        StoredContextBlock {
            kind: it.kind.into(),
            label: it.label.clone(),
            origin: it.origin.clone(),
            trust: it.trust.into(),
            provenance: it.provenance.into(),
            source_ref: it.source_ref.clone(),
            tab: it.tab.as_ref().map(Into::into),
            content: (&it.content).into(),
            approx_tokens: it.approx_tokens,
        }
    }
}

impl TryFrom<StoredContextBlock> for ContextBlock {
    type Error = FormatError;

    fn try_from(it: StoredContextBlock) -> Result<Self, FormatError> {
        Ok(ContextBlock {
            kind: it.kind.into(),
            label: it.label,
            origin: it.origin,
            trust: it.trust.into(),
            provenance: it.provenance.into(),
            source_ref: it.source_ref,
            tab: it.tab.map(Into::into),
            content: it.content.try_into()?,
            approx_tokens: it.approx_tokens,
        })
    }
}

impl From<&ContextContent> for StoredContent {
    fn from(it: &ContextContent) -> Self {
        match it {
            ContextContent::Text { text } => StoredContent::Text { text: text.clone() },
            ContextContent::Image { mime, data_base64 } => {
                StoredContent::Image { mime: mime.clone(), data_base64: data_base64.clone() }
            }
            ContextContent::File { attachment_id, mime, size_bytes } => StoredContent::File {
                attachment_id: attachment_id.to_string(),
                mime: mime.clone(),
                size_bytes: *size_bytes,
            },
            ContextContent::Empty => StoredContent::Empty,
        }
    }
}

impl TryFrom<StoredContent> for ContextContent {
    type Error = FormatError;

    fn try_from(it: StoredContent) -> Result<Self, FormatError> {
        Ok(match it {
            StoredContent::Text { text } => ContextContent::Text { text },
            StoredContent::Image { mime, data_base64 } => {
                ContextContent::Image { mime, data_base64 }
            }
            StoredContent::File { attachment_id, mime, size_bytes } => ContextContent::File {
                attachment_id: id("attachmentId", attachment_id, AttachmentId::new)?,
                mime,
                size_bytes,
            },
            StoredContent::Empty => ContextContent::Empty,
        })
    }
}

impl From<&TurnOverrides> for StoredOverrides {
    fn from(it: &TurnOverrides) -> Self {
        StoredOverrides {
            model: it.model.as_ref().map(Into::into),
            permission_policy: it.permission_policy.map(Into::into),
            enabled_tool_levels: levels_to_stored(it.enabled_tool_levels.as_deref()),
        }
    }
}

impl TryFrom<StoredOverrides> for TurnOverrides {
    type Error = FormatError;

    fn try_from(it: StoredOverrides) -> Result<Self, FormatError> {
        Ok(TurnOverrides {
            model: it.model.map(TryInto::try_into).transpose()?,
            permission_policy: it.permission_policy.map(Into::into),
            enabled_tool_levels: levels_from_stored(it.enabled_tool_levels),
        })
    }
}

impl From<&ModelChoice> for StoredModelChoice {
    fn from(it: &ModelChoice) -> Self {
        StoredModelChoice {
            connection_id: it.connection_id.to_string(),
            model_id: it.model_id.to_string(),
        }
    }
}

impl TryFrom<StoredModelChoice> for ModelChoice {
    type Error = FormatError;

    fn try_from(it: StoredModelChoice) -> Result<Self, FormatError> {
        Ok(ModelChoice {
            connection_id: id("connectionId", it.connection_id, ConnectionId::new)?,
            model_id: id("modelId", it.model_id, ModelId::new)?,
        })
    }
}

impl From<&ModelPreset> for StoredPreset {
    fn from(it: &ModelPreset) -> Self {
        StoredPreset {
            name: it.name.clone(),
            model: (&it.model).into(),
            system_prompt: it.system_prompt.clone(),
            permission_policy: it.permission_policy.map(Into::into),
            enabled_tool_levels: levels_to_stored(it.enabled_tool_levels.as_deref()),
            params: StoredPresetParams {
                temperature: it.params.temperature,
                max_tokens: it.params.max_tokens,
                reasoning_effort: it.params.reasoning_effort.map(Into::into),
            },
        }
    }
}

impl TryFrom<StoredPreset> for ModelPreset {
    type Error = FormatError;

    fn try_from(it: StoredPreset) -> Result<Self, FormatError> {
        Ok(ModelPreset {
            name: it.name,
            model: it.model.try_into()?,
            system_prompt: it.system_prompt,
            permission_policy: it.permission_policy.map(Into::into),
            enabled_tool_levels: levels_from_stored(it.enabled_tool_levels),
            params: PresetParams {
                temperature: it.params.temperature,
                max_tokens: it.params.max_tokens,
                reasoning_effort: it.params.reasoning_effort.map(Into::into),
            },
        })
    }
}

impl From<&Usage> for StoredUsage {
    fn from(it: &Usage) -> Self {
        StoredUsage {
            input: it.input,
            output: it.output,
            cache_read: it.cache_read,
            cache_write: it.cache_write,
        }
    }
}

impl From<StoredUsage> for Usage {
    fn from(it: StoredUsage) -> Self {
        Usage {
            input: it.input,
            output: it.output,
            cache_read: it.cache_read,
            cache_write: it.cache_write,
        }
    }
}

fn levels_to_stored(
    levels: Option<&[panelot_protocol::engine::ToolLevel]>,
) -> Option<Vec<StoredToolLevel>> {
    levels.map(|levels| levels.iter().copied().map(Into::into).collect())
}

fn levels_from_stored(
    levels: Option<Vec<StoredToolLevel>>,
) -> Option<Vec<panelot_protocol::engine::ToolLevel>> {
    levels.map(|levels| levels.into_iter().map(Into::into).collect())
}
