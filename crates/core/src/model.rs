//! Provider-neutral model calls: what the agent loop asks of a model and what comes back.
//!
//! `panelot-providers` turns a [`ModelRequest`] into the wire format of an endpoint
//! (OpenAI-compatible `chat/completions` or Anthropic `messages`) and the endpoint's stream back
//! into [`ModelEvent`]s ending in one [`ModelResponse`]. Nothing here knows about HTTP or JSON
//! wire shapes.

use panelot_protocol::engine::ProviderDetails;
use panelot_protocol::engine::ProviderErrorKind;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::Usage;

/// One model call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelRequest {
    /// Model id at the connection.
    pub model: String,
    /// The system prompt, split so providers can cache the stable prefix.
    pub system: SystemPrompt,
    /// The conversation, oldest first.
    pub messages: Vec<Message>,
    /// Tools the model may call; empty sends none.
    pub tools: Vec<ToolSpec>,
    /// Generation parameters; unset fields are never sent.
    pub params: GenParams,
}

/// The system prompt in two parts.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SystemPrompt {
    /// The part that stays the same across calls (kernel): a prompt-cache breakpoint.
    pub stable: String,
    /// The part that may change (instructions, skills, environment).
    pub dynamic: String,
}

/// A message of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// From the user (already fenced where untrusted).
    User {
        /// Text and images.
        content: Vec<ContentPart>,
    },
    /// From the model.
    Assistant(AssistantTurn),
    /// The result of one tool call.
    ToolResult {
        /// The call answered.
        call_id: String,
        /// Result content for the model.
        content: Vec<ContentPart>,
        /// Whether the tool failed.
        is_error: bool,
    },
}

/// What the model said in one call, as replayed in later requests.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AssistantTurn {
    /// Visible text.
    pub text: String,
    /// Reasoning text (OpenAI-compatible `reasoning_content`), replayed on follow-ups.
    pub reasoning: Option<String>,
    /// Tool calls, in order.
    pub tool_calls: Vec<ToolCall>,
    /// Opaque provider blocks that must be replayed verbatim (Anthropic signed and redacted
    /// thinking).
    pub provider_state: Vec<serde_json::Value>,
}

/// A piece of message content.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentPart {
    /// Text.
    Text(String),
    /// An image.
    Image {
        /// MIME type.
        mime: String,
        /// Bytes, base64.
        data_base64: String,
    },
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// Tool name.
    pub name: String,
    /// What it does, when to use it, what to do when it fails.
    pub description: String,
    /// JSON Schema of its parameters.
    pub parameters: serde_json::Value,
}

/// A tool call made by the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// Id the result refers to (unique within the thread; repaired when the provider's is empty
    /// or repeated).
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments as the model sent them; parsed by the loop, where invalid JSON becomes a tool
    /// error for the model rather than a failed turn.
    pub arguments: String,
}

/// How hard a reasoning model should think (the wire type: presets carry it).
pub use panelot_protocol::engine::ReasoningEffort;

/// Generation parameters; `None` means "do not send".
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GenParams {
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Nucleus sampling.
    pub top_p: Option<f64>,
    /// Output token limit.
    pub max_tokens: Option<u32>,
    /// Stop sequences.
    pub stop_sequences: Vec<String>,
    /// Reasoning effort.
    pub reasoning_effort: Option<ReasoningEffort>,
}

/// Something the stream produced, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelEvent {
    /// More visible text.
    TextDelta(String),
    /// More reasoning text.
    ReasoningDelta(String),
    /// A tool call started (its arguments follow as they stream).
    ToolCallStarted {
        /// Position of the call in this response.
        index: u32,
        /// Tool name.
        name: String,
    },
    /// More of a tool call's arguments.
    ToolCallDelta {
        /// Position of the call in this response.
        index: u32,
        /// A fragment of the JSON arguments.
        fragment: String,
    },
    /// The call failed in a way that passes and will be tried again after a wait (what streamed
    /// before the failure, if anything, is discarded by the next attempt).
    Retrying {
        /// The attempt that comes next (2 for the first retry).
        attempt: u32,
        /// How long the client waits before it.
        wait_ms: u64,
        /// What failed, in words.
        message: String,
    },
}

/// The complete result of one model call.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelResponse {
    /// What the model said.
    pub turn: AssistantTurn,
    /// Why the call ended.
    pub stop_reason: ProviderStopReason,
    /// Token counts.
    pub usage: Usage,
    /// What the call cost in US dollars, when the connection has the model's prices.
    pub cost_usd: Option<f64>,
    /// What the request held that the model cannot take and was left out of the call.
    pub withheld: Withheld,
}

/// What was left out of a request because the model does not support it. The backend decides
/// (it holds the connection's model table); the engine tells the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Withheld {
    /// The tools: the model does not use tools, so it could only answer in words.
    pub tools: bool,
    /// How many images: the model does not read images.
    pub images: u32,
    /// The screenshot tool: the model does not read images, so it was not offered. Not told to
    /// the user (nothing of theirs was left out); the engine then keeps screenshots out of the
    /// run's reads (`read_page`'s fallback).
    pub screenshot: bool,
}

impl Withheld {
    /// Whether anything was left out.
    pub fn any(&self) -> bool {
        self.tools || self.images > 0
    }
}

/// A failed model call, classified, with a safe summary (never a key or a header value).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{kind:?}: {message}")]
pub struct ProviderError {
    /// The class of failure.
    pub kind: ProviderErrorKind,
    /// Explanation, safe to show.
    pub message: String,
    /// Sanitised details from the provider.
    pub details: ProviderDetails,
}

impl ProviderError {
    /// The failure of a call whose model names a connection that no longer exists.
    pub fn connection_missing(connection: &str) -> ProviderError {
        ProviderError {
            kind: ProviderErrorKind::Protocol,
            message: format!(
                "the connection {connection:?} of this model no longer exists; choose another \
                 model or add the connection again in settings"
            ),
            details: ProviderDetails {
                reason: Some("connection_unavailable".to_owned()),
                ..ProviderDetails::default()
            },
        }
    }

    /// Whether retrying the same request may succeed.
    pub fn is_retryable(&self) -> bool {
        match self.kind {
            ProviderErrorKind::Network
            | ProviderErrorKind::RateLimit
            | ProviderErrorKind::Overloaded => true,
            ProviderErrorKind::Auth
            | ProviderErrorKind::ContextTooLong
            | ProviderErrorKind::ContentFilter
            | ProviderErrorKind::Protocol => false,
        }
    }
}

/// A boxed, single-threaded future (the engine's futures are `!Send` by design).
pub type LocalFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + 'a>>;

/// Where model calls go: implemented by `panelot-providers` over an `Http` transport (connection
/// lookup, keys with failover, retries), and by scripted models in tests and the simulation.
///
/// The engine itself never awaits a model: the host runs each call the engine asks for with a
/// backend and feeds the events and the outcome back, so a long stream never blocks a port.
pub trait ModelBackend {
    /// Streams one call to `model` at `connection`, handing every event to `on_event` in order,
    /// and returns the complete response. Aborting `abort` ends the call at once with a
    /// [`ProviderError`] of kind `network` whose message says it was aborted.
    fn stream<'a>(
        &'a self,
        connection: &'a str,
        request: &'a ModelRequest,
        on_event: &'a mut dyn FnMut(ModelEvent),
        abort: crate::env::AbortSignal,
    ) -> LocalFuture<'a, Result<ModelResponse, ProviderError>>;
}
