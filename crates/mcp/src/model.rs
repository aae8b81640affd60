//! The MCP messages Panelot uses, typed: the lifecycle (`initialize`), tools, prompts,
//! resources, elicitation and the notifications a server sends. Field names follow the MCP
//! schema (camelCase on the wire). Only what the client reads or writes is typed; unknown fields
//! are ignored, so newer servers still parse.

use serde::Deserialize;
use serde::Serialize;
use serde_json::Map;
use serde_json::Value;

use crate::jsonrpc::RequestId;

/// The protocol version we ask for first.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-06-18";

/// Every version this client speaks, newest first. 2025-03-26 differs from 2025-06-18 only in
/// what we do not use (batching, no `MCP-Protocol-Version` requirement), so both are safe.
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] = &["2025-06-18", "2025-03-26"];

/// A program's name and version (`clientInfo`, `serverInfo`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Implementation {
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// A display name, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// What the server offers, as far as the client cares.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCapabilities {
    /// Tools, and whether the list can change.
    #[serde(default)]
    pub tools: Option<ListChanged>,
    /// Prompts, and whether the list can change.
    #[serde(default)]
    pub prompts: Option<ListChanged>,
    /// Resources, and whether the list can change.
    #[serde(default)]
    pub resources: Option<ResourceCapability>,
}

/// A capability with a `listChanged` flag.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListChanged {
    /// Whether the server sends `notifications/*/list_changed`.
    #[serde(default)]
    pub list_changed: bool,
}

/// The resources capability.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceCapability {
    /// Whether the server supports `resources/subscribe`.
    #[serde(default)]
    pub subscribe: bool,
    /// Whether the server sends `notifications/resources/list_changed`.
    #[serde(default)]
    pub list_changed: bool,
}

/// The `initialize` result.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The version the server chose.
    pub protocol_version: String,
    /// What it offers.
    #[serde(default)]
    pub capabilities: ServerCapabilities,
    /// Who it is.
    pub server_info: Implementation,
    /// Usage hints for the model, if any.
    #[serde(default)]
    pub instructions: Option<String>,
}

/// Hints about a tool's behaviour. Untrusted: the server says them, the gatekeeper decides.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool claims not to change anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool claims it may destroy data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// The tool claims repeated calls have no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool claims it reaches outside the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// One tool as the server lists it (after validation, see [`crate::ToolCatalog`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// The server's name for it.
    pub name: String,
    /// A display name (2025-06-18).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A JSON Schema object for the arguments; passed to the provider as is.
    pub input_schema: Value,
    /// A JSON Schema for `structuredContent`, when declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
}

impl Tool {
    /// The display name: `title`, else `annotations.title`, else the name.
    pub fn display_title(&self) -> &str {
        self.title
            .as_deref()
            .or_else(|| self.annotations.as_ref().and_then(|a| a.title.as_deref()))
            .unwrap_or(&self.name)
    }
}

/// One block of a tool result or a prompt message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64.
    Image {
        /// Base64 bytes.
        data: String,
        /// Its MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// Audio, base64.
    Audio {
        /// Base64 bytes.
        data: String,
        /// Its MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A link to a resource the client may read.
    ResourceLink {
        /// Its URI.
        uri: String,
        /// Its name.
        name: String,
        /// What it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// Its MIME type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
    },
    /// An embedded resource.
    Resource {
        /// Its contents.
        resource: ResourceContents,
    },
    /// A block of a type this client does not know (a newer protocol); kept by kind only.
    #[serde(skip_deserializing)]
    Unsupported {
        /// The `type` the server gave.
        kind: String,
    },
}

/// The contents of a resource: text or base64 bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text contents.
    Text {
        /// The resource's URI.
        uri: String,
        /// Its MIME type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// Binary contents.
    Blob {
        /// The resource's URI.
        uri: String,
        /// Its MIME type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Base64 bytes.
        blob: String,
    },
}

/// The result of `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// The content blocks.
    pub content: Vec<Content>,
    /// Structured output, when the tool declares an output schema.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// The tool failed (the error is in `content`, meant for the model).
    pub is_error: bool,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What to enter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default)]
    pub required: bool,
}

/// A prompt template the server offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prompt {
    /// Its name.
    pub name: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Vec<PromptArgument>,
}

/// Who speaks a prompt message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptMessage {
    /// Its speaker.
    pub role: Role,
    /// Its content.
    pub content: Content,
}

/// The result of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GetPromptResult {
    /// A description of the filled prompt.
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
}

/// A resource the server offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// Its URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// An `elicitation/create` request (form mode): a message and a flat schema of fields.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequest {
    /// What the server asks, to show the user.
    pub message: String,
    /// A JSON Schema object of primitive properties.
    pub requested_schema: Value,
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted with content.
    Accept,
    /// Explicitly refused.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// The result of an elicitation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values (with [`ElicitAction::Accept`] only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

impl ElicitResult {
    /// A refusal.
    pub fn decline() -> ElicitResult {
        ElicitResult { action: ElicitAction::Decline, content: None }
    }
}

/// A notification from the server, as the client hands it on.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerNotification {
    /// `notifications/tools/list_changed`: list the tools again.
    ToolsListChanged,
    /// `notifications/prompts/list_changed`.
    PromptsListChanged,
    /// `notifications/resources/list_changed`.
    ResourcesListChanged,
    /// `notifications/resources/updated`.
    ResourceUpdated {
        /// The resource that changed.
        uri: String,
    },
    /// `notifications/progress` for one of our requests.
    Progress {
        /// The token we gave (we give none yet; servers may still send).
        token: Value,
        /// Progress so far.
        progress: f64,
        /// The total, when known.
        total: Option<f64>,
    },
    /// `notifications/message`: a log line.
    Log {
        /// Its level (`info`, `error`, ...).
        level: String,
        /// Its data.
        data: Value,
    },
    /// `notifications/cancelled`: the server gave up one of its own requests.
    Cancelled {
        /// The server's request id.
        request_id: RequestId,
    },
    /// Any other method (kept by name, params dropped).
    Other {
        /// The method.
        method: String,
    },
}

impl ServerNotification {
    /// Reads a notification; params that do not match the method make it [`Self::Other`].
    pub fn parse(method: &str, params: Option<Value>) -> ServerNotification {
        #[derive(Deserialize)]
        struct Updated {
            uri: String,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct ProgressParams {
            progress_token: Value,
            progress: f64,
            #[serde(default)]
            total: Option<f64>,
        }
        #[derive(Deserialize)]
        struct LogParams {
            level: String,
            #[serde(default)]
            data: Value,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct CancelledParams {
            request_id: RequestId,
        }
        fn read<T: for<'de> Deserialize<'de>>(params: Option<Value>) -> Option<T> {
            serde_json::from_value(params.unwrap_or(Value::Null)).ok()
        }
        let other = || ServerNotification::Other { method: method.to_owned() };
        match method {
            "notifications/tools/list_changed" => ServerNotification::ToolsListChanged,
            "notifications/prompts/list_changed" => ServerNotification::PromptsListChanged,
            "notifications/resources/list_changed" => ServerNotification::ResourcesListChanged,
            "notifications/resources/updated" => read::<Updated>(params)
                .map_or_else(other, |p| ServerNotification::ResourceUpdated { uri: p.uri }),
            "notifications/progress" => read::<ProgressParams>(params).map_or_else(other, |p| {
                ServerNotification::Progress {
                    token: p.progress_token,
                    progress: p.progress,
                    total: p.total,
                }
            }),
            "notifications/message" => read::<LogParams>(params)
                .map_or_else(other, |p| ServerNotification::Log { level: p.level, data: p.data }),
            "notifications/cancelled" => read::<CancelledParams>(params)
                .map_or_else(other, |p| ServerNotification::Cancelled { request_id: p.request_id }),
            _ => other(),
        }
    }
}
