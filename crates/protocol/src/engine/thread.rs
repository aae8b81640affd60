//! Threads as the UI sees them: metadata, the snapshot sent on subscribe, and its items.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use super::codes::ErrorCode;
use super::codes::ItemKind;
use super::codes::PermissionPolicy;
use super::codes::ProviderStopReason;
use super::codes::RunState;
use super::codes::TurnKind;
use super::events::ProviderDetails;
use super::events::ProviderErrorKind;
use super::input::TurnOverrides;
use super::input::UserInput;
use super::requests::ApprovalRequestPayload;
use super::requests::ApprovalTarget;
use super::requests::InteractionRequestPayload;
use super::requests::RunRecoveryState;
use crate::ids::ApprovalId;
use crate::ids::FolderId;
use crate::ids::InteractionId;
use crate::ids::ItemId;
use crate::ids::NodeId;
use crate::ids::PresetId;
use crate::ids::RunId;
use crate::ids::ThreadId;
use crate::ids::TurnId;
use crate::tagged::internally_tagged;

/// Metadata of a thread.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ThreadMeta {
    /// The thread.
    pub id: ThreadId,
    /// Title shown in the thread list.
    pub title: String,
    /// Creation time (ms since the Unix epoch).
    pub created_at_ms: u64,
    /// Last change (ms since the Unix epoch).
    pub updated_at_ms: u64,
    /// The tree cursor: the last node of the selected branch.
    pub leaf_id: Option<NodeId>,
    /// Increases with every change of the metadata.
    pub revision: u64,
    /// Totals over the thread's turns.
    pub stats: ThreadStats,
    /// Origins already touched or approved in this thread.
    pub scope_origins: Vec<String>,
    /// Model preset of the thread.
    pub preset: Option<PresetId>,
    /// Thread this one was forked from.
    pub parent_thread_id: Option<ThreadId>,
    /// Folder holding the thread.
    pub folder_id: Option<FolderId>,
    /// Free tags.
    pub tags: Vec<String>,
    /// Shown at the top of the list.
    pub pinned: bool,
    /// Hidden from the main list.
    pub archived: bool,
    /// Permission policy chosen for the thread, if any.
    pub permission_policy: Option<PermissionPolicy>,
}

/// Totals over a thread's turns.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ThreadStats {
    /// Number of completed turns.
    pub turns: u64,
    /// Tokens spent, input and output.
    pub total_tokens: u64,
    /// Cost in US dollars, when pricing is known.
    pub cost_usd: f64,
}

/// A change to thread metadata; absent fields are left as they are.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ThreadMetaPatch {
    /// New title.
    pub title: Option<String>,
    /// New pinned flag.
    pub pinned: Option<bool>,
    /// New archived flag.
    pub archived: Option<bool>,
    /// New folder; `null` moves the thread out of its folder.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::decode::present"
    )]
    pub folder_id: Option<Option<FolderId>>,
    /// New tags.
    pub tags: Option<Vec<String>>,
    /// New tree cursor.
    pub leaf_id: Option<NodeId>,
    /// New permission policy for the thread.
    pub permission_policy: Option<PermissionPolicy>,
    /// New model preset; `null` takes the thread off its preset.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::decode::present"
    )]
    pub preset: Option<Option<PresetId>>,
}

/// Everything a UI needs to show a thread at once; live events follow it.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ThreadSnapshot {
    /// Thread metadata with its revision.
    pub meta: ThreadMeta,
    /// The selected branch up to the leaf: its latest items (from a turn's start), what a view
    /// shows first; `has_earlier` says whether `thread.loadEarlier` has more.
    pub items: Vec<SnapshotItem>,
    /// Whether the branch has items before `items`.
    pub has_earlier: bool,
    /// The running turn, if any.
    pub active_turn: Option<ActiveTurn>,
    /// Approvals waiting for a decision.
    pub pending_approvals: Vec<PendingApproval>,
    /// Interactions waiting for an answer.
    pub pending_interactions: Vec<PendingInteraction>,
    /// Runs waiting in the queue, in order.
    pub queued_runs: Vec<QueuedRun>,
    /// Runs that need the user to decide how to go on.
    pub recoverable_runs: Vec<RunRecoveryState>,
}

/// One stored item on the selected branch.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SnapshotItem {
    /// The stored node.
    pub node_id: NodeId,
    /// Its parent, `None` for the root.
    pub parent_id: Option<NodeId>,
    /// Turn that produced it.
    pub turn_id: Option<TurnId>,
    /// Creation time (ms since the Unix epoch).
    pub created_at_ms: u64,
    /// Position among siblings, for the ‹n/m› switcher.
    pub branch: BranchPosition,
    /// What the item holds.
    pub content: ItemContent,
}

impl SnapshotItem {
    /// The item kind of this content.
    pub fn kind(&self) -> ItemKind {
        self.content.kind()
    }
}

/// Position of a node among its siblings (1-based index), with its neighbours for the ‹n/m›
/// switcher's arrows (`thread.selectBranch` takes a node id).
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BranchPosition {
    /// 1-based index among siblings ordered by creation.
    pub index: u32,
    /// Number of siblings, this one included.
    pub count: u32,
    /// The sibling before this one.
    pub previous: Option<NodeId>,
    /// The sibling after this one.
    pub next: Option<NodeId>,
}

impl BranchPosition {
    /// The position of a node without siblings.
    pub fn only() -> BranchPosition {
        BranchPosition { index: 1, count: 1, previous: None, next: None }
    }
}

internally_tagged! {
    #[serde(tag = "kind", rename_all = "snake_case", rename_all_fields = "camelCase", deny_unknown_fields)]
    /// Content of a stored item, by kind.
    #[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
    pub enum ItemContent {
        /// A user message.
        UserMessage {
            /// The input as sent.
            input: UserInput,
            /// Whether it was steered into a running turn.
            steered: bool,
        },
        /// A model message.
        AssistantMessage {
            /// The text.
            text: String,
            /// Model that wrote it.
            model: Option<String>,
            /// Why the model call ended.
            stop_reason: Option<ProviderStopReason>,
            /// Tokens of the call.
            usage: Option<Usage>,
            /// Cost of the call in US dollars.
            cost_usd: Option<f64>,
        },
        /// Model reasoning.
        Reasoning {
            /// The reasoning text.
            text: String,
        },
        /// A tool call with its result once known.
        ToolCall {
            /// The streamed item.
            item_id: ItemId,
            /// Tool name.
            tool_name: String,
            /// Short label for the card.
            label: String,
            /// Parameters as called.
            params: serde_json::Value,
            /// Result, once the tool finished.
            result: Option<ToolResultView>,
        },
        /// An approval and its decision.
        Approval {
            /// The approval.
            approval_id: ApprovalId,
            /// What was asked.
            request: ApprovalRequestPayload,
            /// Short text of the decision, once made.
            decision: Option<String>,
        },
        /// A notice for the user.
        SystemNotice {
            /// The text.
            text: String,
        },
        /// The failure that ended a turn, kept with it.
        TurnError {
            /// What failed.
            error: TurnErrorView,
        },
    }
}

/// Why a turn failed, as its error card shows it, live (from the `error` event) and after a
/// reload (from the stored item).
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TurnErrorView {
    /// What failed.
    pub code: ErrorCode,
    /// Explanation, safe to show: names the connection and what to check.
    pub message: String,
    /// Whether retrying may help.
    pub retryable: bool,
    /// Provider failure class, for provider errors.
    pub error_kind: Option<ProviderErrorKind>,
    /// Sanitised provider details.
    pub provider_details: Option<ProviderDetails>,
}

impl ItemContent {
    /// The item kind of this content.
    pub fn kind(&self) -> ItemKind {
        match self {
            ItemContent::UserMessage { .. } => ItemKind::UserMessage,
            ItemContent::AssistantMessage { .. } => ItemKind::AssistantMessage,
            ItemContent::Reasoning { .. } => ItemKind::Reasoning,
            ItemContent::ToolCall { .. } => ItemKind::ToolCall,
            ItemContent::Approval { .. } => ItemKind::Approval,
            ItemContent::SystemNotice { .. } => ItemKind::SystemNotice,
            ItemContent::TurnError { .. } => ItemKind::TurnError,
        }
    }
}

/// Result of a tool as shown in the UI.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolResultView {
    /// Whether the tool succeeded.
    pub ok: bool,
    /// What became of the call.
    pub outcome: CallOutcome,
    /// What the tool said (the page snapshot, the evidence of an action), or why the call did
    /// not run; at most [`EXCERPT_CHARS`] characters, ending in `…` when cut. Page-written text:
    /// shown as data.
    pub excerpt: Option<String>,
    /// The page and elements the call acted on, as resolved before judgement.
    pub target: Option<ApprovalTarget>,
    /// Rich details for the UI (evidence, attachments); never sent to the model.
    pub details: Option<serde_json::Value>,
}

/// Longest [`ToolResultView::excerpt`], in characters.
pub const EXCERPT_CHARS: usize = 4_000;

/// What became of a tool call.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum CallOutcome {
    /// It ran and worked.
    Done,
    /// It ran and failed, or its call was invalid.
    Failed,
    /// The user declined it (or left its approval unanswered until the deadline).
    Declined,
    /// The user's permissions refused it: a rule, a sensitive site, a page it must not touch.
    Denied,
    /// The turn ended before it ran.
    NotRun,
    /// The turn ended while it ran: whether it acted is unknown.
    Unknown,
}

/// Token counts of a model call.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Usage {
    /// Input tokens in total, cache reads and writes included.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from the provider's cache.
    pub cache_read: Option<u64>,
    /// Input tokens written to the provider's cache.
    pub cache_write: Option<u64>,
}

/// The turn that is running.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ActiveTurn {
    /// The turn.
    pub turn_id: TurnId,
    /// Its run.
    pub run_id: RunId,
    /// Kind of the turn.
    pub turn_kind: TurnKind,
    /// Whether input may be steered into it.
    pub steerable: bool,
    /// State of its run.
    pub state: RunState,
    /// Items of the turn that are still streaming.
    pub streaming_items: Vec<StreamingItem>,
    /// Whether the turn was cut by a restart.
    pub was_interrupted: bool,
}

/// An item whose stream has started and not completed, with the text so far.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StreamingItem {
    /// The item.
    pub item_id: ItemId,
    /// Its kind.
    pub kind: ItemKind,
    /// Card metadata.
    pub meta: ItemMeta,
    /// Text streamed so far.
    pub text: String,
}

/// Metadata shown on an item's card.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ItemMeta {
    /// Tool name, for tool calls.
    pub tool_name: Option<String>,
    /// Short label.
    pub label: Option<String>,
    /// One-line summary of the parameters.
    pub params_summary: Option<String>,
    /// Tool level, for tool calls.
    pub level: Option<super::codes::ToolLevel>,
}

/// An approval waiting for a decision.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PendingApproval {
    /// The approval.
    pub approval_id: ApprovalId,
    /// The turn that asked.
    pub turn_id: TurnId,
    /// The tool-call item it is about.
    pub item_id: Option<ItemId>,
    /// What is asked.
    pub request: ApprovalRequestPayload,
}

/// An interaction waiting for an answer.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PendingInteraction {
    /// The interaction.
    pub interaction_id: InteractionId,
    /// The turn that asked.
    pub turn_id: TurnId,
    /// What is asked.
    pub request: InteractionRequestPayload,
}

/// A run waiting in the queue.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QueuedRun {
    /// The run.
    pub run_id: RunId,
    /// Its input.
    pub input: UserInput,
    /// Its own overrides, kept from the composer that queued it.
    pub overrides: Option<TurnOverrides>,
    /// Increases with every edit.
    pub revision: u64,
}

/// One line of the thread list.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ThreadSummary {
    /// The thread.
    pub meta: ThreadMeta,
    /// Whether a turn is running.
    pub running: bool,
    /// Approvals waiting.
    pub pending_approvals: u32,
    /// Interactions waiting.
    pub pending_interactions: u32,
}
