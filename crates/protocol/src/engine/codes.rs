//! Closed vocabularies of the engine protocol: error codes, stop reasons, kinds and states.
//!
//! Each list may grow in a later schema version; a UI built for an older schema hash is asked to
//! reload (`fatal.reload_required`) rather than guess.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// Machine-readable reason of a `command.rejected` or `error` event.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The client speaks another protocol or schema version, or sent a malformed message.
    ProtocolMismatch,
    /// No thread with that id.
    ThreadNotFound,
    /// `expectedTurnId` is not the active turn.
    TurnMismatch,
    /// The active turn does not accept steering (an internal turn).
    TurnNotSteerable,
    /// The command needs an active turn and there is none.
    NoActiveTurn,
    /// The thread's run queue already holds its maximum of entries.
    QueueFull,
    /// The thread's command queue is full; retry later.
    Overloaded,
    /// The work was interrupted.
    Interrupted,
    /// The model provider failed; details travel in the error.
    ProviderError,
    /// No model connection is configured.
    NotConfigured,
    /// The command is invalid: bad fields, a reused id with another payload, a wrong state.
    InvalidCommand,
    /// Something failed inside the engine.
    Internal,
    /// An attached file, or a message's files together, are over their size limit.
    AttachmentTooLarge,
    /// A message names an attachment its thread does not have.
    AttachmentNotFound,
    /// `attachment.put` names an id a stored file already has (in its thread or another):
    /// nothing is stored; the file goes again under a new id.
    AttachmentIdTaken,
}

/// Why a turn ended, as carried by `turn.complete`.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished its answer.
    End,
    /// The answer hit the output token limit and may be truncated.
    MaxTokens,
    /// The provider filtered the answer.
    ContentFilter,
    /// The user interrupted the turn.
    Interrupted,
    /// The turn failed; an `error` event says why.
    Error,
    /// The per-turn token budget was reached; the run is paused.
    BudgetPause,
}

/// Why one model call ended.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum ProviderStopReason {
    /// The model ended its message.
    End,
    /// The model asked for tool calls.
    ToolUse,
    /// Output token limit reached.
    MaxTokens,
    /// Filtered by the provider.
    ContentFilter,
    /// The user stopped the stream; the text is what had arrived (never sent by a provider).
    Interrupted,
}

/// Kind of a streamed item.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// A message the user sent (or steered in).
    UserMessage,
    /// Text of the model.
    AssistantMessage,
    /// Reasoning of the model.
    Reasoning,
    /// One tool call and its result.
    ToolCall,
    /// An approval asked of the user.
    Approval,
    /// A notice shown to the user and never sent to the model.
    SystemNotice,
    /// The failure that ended a turn; never sent to the model.
    TurnError,
}

/// Kind of a turn.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum TurnKind {
    /// A turn started by user input.
    User,
    /// An internal title-generation turn; never steerable.
    Title,
}

/// State of a durable run.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// Admitted and waiting for its turn.
    Queued,
    /// Building context and environment.
    Preparing,
    /// A model call is streaming.
    StreamingModel,
    /// Waiting for the user to decide an approval.
    WaitingApproval,
    /// Waiting for the user to answer an interaction.
    WaitingInteraction,
    /// A tool is running.
    ExecutingTool,
    /// Paused because the turn's token budget is spent.
    PausedBudget,
    /// A write tool was running when the engine stopped; its outcome is unknown.
    PausedUncertain,
    /// The user paused the run from the page (its indicator's Pause, or by taking over the tab
    /// the agent was acting on); it goes on when the user resumes it.
    PausedByUser,
    /// The model stream was cut (interrupt or restart).
    Interrupted,
    /// Ended with an error.
    Failed,
    /// Ended normally.
    Completed,
}

/// How much the agent may do without asking.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum PermissionPolicy {
    /// Ask for every tool call, reads included.
    Always,
    /// Ask for writes (the default).
    Untrusted,
    /// Run writes automatically; deny lists, ask rules and sensitive payloads still ask.
    Auto,
}

/// Families of tools a turn may use.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolLevel {
    /// Tabs and browser data through `chrome.tabs`.
    L0,
    /// The page executor.
    L1,
    /// The Chrome debugger protocol.
    L2,
    /// Tools of MCP servers.
    #[serde(rename = "mcp")]
    Mcp,
    /// Tools built into the engine.
    #[serde(rename = "builtin")]
    Builtin,
}

/// Who or what produced a piece of content.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Provenance {
    /// Typed or chosen by the user.
    User,
    /// Read from a web page.
    Page,
    /// Returned by an MCP server.
    Mcp,
    /// Produced by a built-in tool.
    Tool,
    /// Brought in by a data import.
    Import,
    /// Shipped by a plugin.
    Plugin,
}

/// Whether content may be followed as instructions.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Trust {
    /// The user's own words or assets.
    Trusted,
    /// Data only; fenced before it reaches the model.
    Untrusted,
}
