//! The records a store keeps, as the engine works with them. They have no serialization of
//! their own: backends that keep text store them through the versioned storage format
//! (`encode_node`, `decode_node`, ...), so a change here that should reach disk is a change of
//! that format.

use panelot_protocol::AttachmentId;
use panelot_protocol::ClientId;
use panelot_protocol::ItemId;
use panelot_protocol::NodeId;
use panelot_protocol::SubmissionId;
use panelot_protocol::ThreadId;
use panelot_protocol::TurnId;
use panelot_protocol::engine::ApprovalTarget;
use panelot_protocol::engine::CallOutcome;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::ToolLevel;
use panelot_protocol::engine::TurnErrorView;
use panelot_protocol::engine::Usage;
use panelot_protocol::engine::UserInput;

/// How long a command receipt answers replays.
pub const RECEIPT_TTL_MS: u64 = 7 * 24 * 60 * 60 * 1000;

/// A node's place in its thread's tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeLink {
    /// The node.
    pub id: NodeId,
    /// Its parent; `None` for a root.
    pub parent_id: Option<NodeId>,
    /// Position in the thread's append order.
    pub seq: u64,
}

/// A stored node of a thread tree. Nodes are append-only; children are derived from parents.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeRecord {
    /// The node.
    pub id: NodeId,
    /// Its thread.
    pub thread_id: ThreadId,
    /// Its parent; `None` for a root.
    pub parent_id: Option<NodeId>,
    /// Position in the thread's append order, increasing.
    pub seq: u64,
    /// Creation time (ms since the Unix epoch).
    pub created_at_ms: u64,
    /// Turn that wrote it.
    pub turn_id: Option<TurnId>,
    /// What it holds.
    pub body: NodeBody,
}

impl NodeRecord {
    /// The node's link.
    pub fn link(&self) -> NodeLink {
        NodeLink { id: self.id.clone(), parent_id: self.parent_id.clone(), seq: self.seq }
    }
}

/// What a node holds.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeBody {
    /// Settings frozen for the turn; never sent to the model, never shown as an item.
    TurnContext {
        /// Model used, as `connection/model`.
        model: String,
        /// Permission policy in force.
        permission_policy: PermissionPolicy,
    },
    /// A user message.
    UserMessage {
        /// The input.
        input: UserInput,
        /// Whether it was steered into a running turn.
        steered: bool,
    },
    /// A model message, written once when its stream ends.
    AssistantMessage {
        /// Visible text.
        text: String,
        /// Reasoning text, replayed to providers that want it.
        reasoning: Option<String>,
        /// Opaque provider blocks replayed verbatim.
        provider_state: Vec<serde_json::Value>,
        /// Model that wrote it.
        model: String,
        /// Why the call ended.
        stop_reason: ProviderStopReason,
        /// Tokens.
        usage: Usage,
        /// Cost in US dollars, when known.
        cost_usd: Option<f64>,
    },
    /// A tool call.
    ToolCall {
        /// The streamed item.
        item_id: ItemId,
        /// Provider call id.
        call_id: String,
        /// Tool name.
        tool_name: String,
        /// Label for the card.
        label: String,
        /// Parameters.
        params: serde_json::Value,
        /// Tool level.
        level: ToolLevel,
    },
    /// A tool's result.
    ToolResult {
        /// The tool-call item.
        item_id: ItemId,
        /// Provider call id.
        call_id: String,
        /// Whether it succeeded.
        ok: bool,
        /// What the tool said, for the model (fenced as its provenance says).
        content_for_model: String,
        /// Rich details for the UI.
        details: Option<serde_json::Value>,
        /// What the engine says about the call (a refusal, a safety net's advice), outside
        /// any fence: it is not page content, whatever the tool reads.
        engine_note: Option<String>,
        /// The URL the content was read from (the page of a page tool): where its values count
        /// as coming from when the thread's taint is rebuilt.
        source: Option<String>,
        /// What became of the call (done, failed, declined, denied, not run).
        outcome: CallOutcome,
        /// Where the call acted, as it was judged: what its step names.
        target: Option<ApprovalTarget>,
    },
    /// A decision on an approval (audit).
    ApprovalDecision {
        /// The approval.
        approval_id: String,
        /// Short text of the decision.
        decision: String,
    },
    /// An answer to an interaction (audit).
    InteractionResponse {
        /// The interaction.
        interaction_id: String,
        /// The answer.
        response: serde_json::Value,
    },
    /// A notice for the user, never sent to the model.
    SystemNotice {
        /// The text.
        text: String,
    },
    /// The failure that ended a turn, kept so its card (and Retry) outlive a reload; never
    /// sent to the model.
    TurnError {
        /// What failed.
        error: TurnErrorView,
    },
}

/// A file the user attached, stored with its thread (and deleted with it).
#[derive(Debug, Clone, PartialEq)]
pub struct AttachmentRecord {
    /// The attachment.
    pub id: AttachmentId,
    /// Its thread.
    pub thread_id: ThreadId,
    /// The file's name.
    pub name: String,
    /// Its MIME type.
    pub mime: String,
    /// Its size in bytes (of the decoded data).
    pub size_bytes: u64,
    /// When it was stored (ms since the Unix epoch).
    pub created_at_ms: u64,
    /// The bytes, base64 (as they travel and as text stores keep them).
    pub data_base64: String,
}

/// Identity of a command: who sent it, its id, and its type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReceiptKey {
    /// The client.
    pub client_id: ClientId,
    /// The command's id.
    pub submission_id: SubmissionId,
}

/// The durable answer of a command, replayed when the same command arrives again.
#[derive(Debug, Clone, PartialEq)]
pub struct Receipt {
    /// Its key.
    pub key: ReceiptKey,
    /// The command type (`turn.submit`, ...); the same id with another type is refused.
    pub op_type: String,
    /// SHA-256 of the canonical payload; the same id with another payload is refused.
    pub fingerprint: String,
    /// The terminal answer, as a JSON event (`command.ack` or `command.rejected`).
    pub answer: serde_json::Value,
    /// When it was written (ms since the Unix epoch).
    pub created_at_ms: u64,
    /// When it stops answering replays.
    pub expires_at_ms: u64,
}
