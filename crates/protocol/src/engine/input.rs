//! What a user sends: text, attached context blocks and the browser context of the moment.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use super::codes::PermissionPolicy;
use super::codes::Provenance;
use super::codes::ToolLevel;
use super::codes::Trust;
use crate::ids::AttachmentId;
use crate::ids::ConnectionId;
use crate::ids::ModelId;
use crate::tagged::internally_tagged;

/// Most bytes of one attached file (5 MB).
pub const ATTACHMENT_MAX_BYTES: u64 = 5_000_000;

/// Most bytes of the files of one message together (10 MB).
pub const MESSAGE_ATTACHMENTS_MAX_BYTES: u64 = 10_000_000;

/// Most files of one message.
pub const MESSAGE_ATTACHMENTS_MAX: usize = 10;

/// One message of the user with everything attached to it.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UserInput {
    /// The typed text.
    pub text: String,
    /// Files stored with the thread (`attachment.put`), by id. The engine adds a `file` block
    /// of each to `attachedContext` when it admits the message (a UI sends none itself).
    #[serde(default)]
    pub attachment_ids: Vec<AttachmentId>,
    /// Pages, selections, tabs and other blocks attached as context.
    #[serde(default)]
    pub attached_context: Vec<ContextBlock>,
    /// Tabs as they were when the message was sent.
    pub browser_context: Option<BrowserContext>,
}

/// The browser as the user saw it when sending: the default tab of the turn and referenced tabs.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BrowserContext {
    /// When the context was captured (ms since the Unix epoch).
    pub captured_at_ms: u64,
    /// The tab tools use when they name none.
    pub default_tab: Option<TabRef>,
    /// Tabs mentioned in the message; they keep their own ids and never change the default.
    #[serde(default)]
    pub referenced_tabs: Vec<TabRef>,
}

/// A browser tab as seen at one moment.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TabRef {
    /// `chrome.tabs` id.
    pub tab_id: u32,
    /// Window holding the tab.
    pub window_id: Option<u32>,
    /// URL of the tab.
    pub url: String,
    /// Title of the tab.
    pub title: String,
}

/// Kinds of context the user can attach.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum ContextKind {
    /// Text of a page.
    Page,
    /// The selection in a page.
    Selection,
    /// A screenshot.
    Screenshot,
    /// A tab reference without content.
    Tab,
    /// A resource of an MCP server.
    McpResource,
    /// A prompt of an MCP server, filled in.
    McpPrompt,
    /// A file.
    File,
    /// The body of a skill.
    Skill,
}

/// A piece of context attached to a message.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextBlock {
    /// What the block holds.
    pub kind: ContextKind,
    /// Short label shown on the chip.
    pub label: String,
    /// Origin the content came from, when it came from the web.
    pub origin: Option<String>,
    /// Whether the content may be followed as instructions.
    pub trust: Trust,
    /// Who produced the content.
    pub provenance: Provenance,
    /// Where the content can be found again (a URL, a resource URI).
    pub source_ref: Option<String>,
    /// The tab the content was read from.
    pub tab: Option<TabRef>,
    /// The content itself.
    pub content: ContextContent,
    /// Estimated token count.
    pub approx_tokens: Option<u32>,
}

internally_tagged! {
    #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
    /// Content of a context block.
    #[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
    pub enum ContextContent {
        /// Plain text or Markdown.
        Text {
            /// The text.
            text: String,
        },
        /// An image.
        Image {
            /// MIME type such as `image/png`.
            mime: String,
            /// Image bytes, base64.
            #[serde(rename = "dataBase64")]
            data_base64: String,
        },
        /// A file stored with the thread; its bytes stay in the store (the block's label is its
        /// name).
        File {
            /// The attachment.
            #[serde(rename = "attachmentId")]
            attachment_id: AttachmentId,
            /// Its MIME type.
            mime: String,
            /// Its size.
            #[serde(rename = "sizeBytes")]
            size_bytes: u64,
        },
        /// No content (a bare tab reference).
        Empty,
    }
}

/// Settings that apply to one turn only.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TurnOverrides {
    /// Model to use instead of the thread's.
    pub model: Option<ModelChoice>,
    /// Permission policy for this turn.
    pub permission_policy: Option<PermissionPolicy>,
    /// Tool families this turn may use.
    pub enabled_tool_levels: Option<Vec<ToolLevel>>,
}

/// A model at a connection.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelChoice {
    /// The connection.
    pub connection_id: ConnectionId,
    /// The model id at that connection.
    pub model_id: ModelId,
}
