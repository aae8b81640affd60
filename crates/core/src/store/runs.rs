//! The durable record of a run: one turn of the agent loop, from admission to its terminal
//! state. Everything the loop needs to go on after a restart is here or in the thread's nodes;
//! recovery ([`crate::runs::recovery`]) is a pure function of these records.

use panelot_protocol::ApprovalId;
use panelot_protocol::InteractionId;
use panelot_protocol::ItemId;
use panelot_protocol::NodeId;
use panelot_protocol::RunId;
use panelot_protocol::ThreadId;
use panelot_protocol::TurnId;
use panelot_protocol::engine::ApprovalRequestPayload;
use panelot_protocol::engine::InteractionRequestPayload;
use panelot_protocol::engine::ModelChoice;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::StopReason;
use panelot_protocol::engine::TurnOverrides;
use panelot_protocol::engine::UserInput;

/// A run of the agent loop.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    /// The run.
    pub id: RunId,
    /// Its thread.
    pub thread_id: ThreadId,
    /// The turn it runs.
    pub turn_id: TurnId,
    /// Admission order within the engine (queue order).
    pub seq: u64,
    /// Where the loop is.
    pub state: RunState,
    /// Whether a parked run may be continued (`interrupted` by a restart) rather than being
    /// final (`interrupted` by the user).
    pub resumable: bool,
    /// The message that started it.
    pub input: UserInput,
    /// Its own overrides, kept from the composer.
    pub overrides: Option<TurnOverrides>,
    /// For `turn.fork`: the node whose parent the message attaches to (as its new sibling).
    /// `None` appends at the thread's leaf when the run starts.
    pub sibling_of: Option<NodeId>,
    /// Edits of a queued run.
    pub revision: u64,
    /// Model of the run, frozen at admission.
    pub model: ModelChoice,
    /// Permission policy of the run, frozen at admission.
    pub policy: PermissionPolicy,
    /// Tokens the turn may spend before it pauses; `None` is unlimited.
    pub token_budget: Option<u64>,
    /// The thread's model preset as it was at admission: its instructions, tool families and
    /// generation parameters apply to every model call of the run.
    pub preset: Option<panelot_protocol::engine::ModelPreset>,
    /// Steers acknowledged and not yet in the thread, in admission order.
    pub steers: Vec<SteerRecord>,
    /// Tool calls of the last model answer, in order, with their progress.
    pub tools: Vec<ToolCallRecord>,
    /// The approval the run waits for.
    pub approval: Option<ApprovalRecord>,
    /// The question to the user the run waits for.
    pub interaction: Option<InteractionRecord>,
    /// Loop bookkeeping that must survive a restart.
    pub counters: LoopCounters,
    /// Values the model has seen in page and MCP content on the thread's path (rebuilt when the
    /// run starts) and during the run, so using one as a destination or typed text asks first.
    pub taint: crate::taint::TaintLedger,
    /// Where the run works: its tab, the tabs its actions opened or carried somewhere denied,
    /// and the document whose refs each tab's calls use.
    pub route: crate::target::RunRoute,
    /// Why the run ended, once terminal.
    pub stop_reason: Option<StopReason>,
    /// Why the run stopped or failed, for the user.
    pub note: Option<String>,
    /// The user asked from the page that the run pause (its indicator's Pause, or taking over
    /// the tab it acts on), with what the paused run tells them. A call already running
    /// finishes; the run pauses before its next call (`paused_by_user`).
    pub pause: Option<String>,
    /// Creation time (ms since the Unix epoch).
    pub created_at_ms: u64,
    /// Last change (ms since the Unix epoch).
    pub updated_at_ms: u64,
}

impl RunRecord {
    /// Whether the run will never change again.
    pub fn is_terminal(&self) -> bool {
        match self.state {
            RunState::Completed | RunState::Failed => true,
            RunState::Interrupted => !self.resumable,
            RunState::Queued
            | RunState::Preparing
            | RunState::StreamingModel
            | RunState::WaitingApproval
            | RunState::WaitingInteraction
            | RunState::ExecutingTool
            | RunState::PausedBudget
            | RunState::PausedUncertain
            | RunState::PausedByUser => false,
        }
    }

    /// Whether the run waits for the user to say how to go on.
    pub fn is_parked(&self) -> bool {
        match self.state {
            RunState::PausedBudget | RunState::PausedUncertain | RunState::PausedByUser => true,
            RunState::Interrupted => self.resumable,
            RunState::Queued
            | RunState::Preparing
            | RunState::StreamingModel
            | RunState::WaitingApproval
            | RunState::WaitingInteraction
            | RunState::ExecutingTool
            | RunState::Completed
            | RunState::Failed => false,
        }
    }

    /// Whether the run is doing (or waiting on) work of the loop right now.
    pub fn is_active(&self) -> bool {
        !self.is_terminal() && !self.is_parked() && self.state != RunState::Queued
    }
}

/// A steer accepted into a running turn.
#[derive(Debug, Clone, PartialEq)]
pub struct SteerRecord {
    /// Id of the user-message node it becomes.
    pub node_id: NodeId,
    /// The message.
    pub input: UserInput,
}

/// A tool call of the current step.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallRecord {
    /// The stored tool-call node.
    pub node_id: NodeId,
    /// The streamed item.
    pub item_id: ItemId,
    /// Provider call id.
    pub call_id: String,
    /// Tool name.
    pub tool_name: String,
    /// Parameters as parsed (`null` when they did not parse).
    pub params: serde_json::Value,
    /// Where the call is.
    pub status: ToolCallStatus,
    /// How many times the call was dispatched (a write is dispatched twice only on an explicit
    /// retry).
    pub dispatches: u32,
    /// The user approved this very call; it is still re-checked at dispatch (a deny rule added
    /// meanwhile wins).
    pub approved: bool,
    /// The host said it lacks access to the call's site and the user was asked for it once;
    /// a second refusal is the call's result.
    pub host_permission_asked: bool,
    /// Where the call was resolved to act and was judged; the dispatch carries it and the host
    /// refuses to act anywhere else.
    pub target: Option<crate::target::ResolvedTarget>,
    /// The call was escalated once by the engine (`type` that did not register, run again as
    /// `type_trusted`): what the first attempt said, told to the model with the second's result.
    pub escalated_from: Option<String>,
}

/// Progress of one tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolCallStatus {
    /// Not dispatched yet.
    Pending,
    /// Dispatched; its result is not written.
    Dispatched,
    /// Its result node is written.
    Done,
}

/// An approval the run waits for.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRecord {
    /// The approval.
    pub id: ApprovalId,
    /// Index of the call in [`RunRecord::tools`].
    pub tool_index: usize,
    /// What the card shows.
    pub request: ApprovalRequestPayload,
}

/// A question to the user the run waits for.
#[derive(Debug, Clone, PartialEq)]
pub struct InteractionRecord {
    /// The interaction.
    pub id: InteractionId,
    /// Index of the call in [`RunRecord::tools`].
    pub tool_index: usize,
    /// What is asked.
    pub request: InteractionRequestPayload,
    /// For an MCP server's question: where its call stood, as the host's MCP client said
    /// (opaque here), when the server's stream can be resumed. With it, the card outlives a
    /// worker restart and the answer still reaches the server; without, the restart parks
    /// the call as uncertain. Never sent to a view: it names the server's session.
    pub mcp_resume: Option<String>,
}

/// Counters of the loop's safety nets.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LoopCounters {
    /// Model calls made.
    pub model_calls: u32,
    /// Tool failures in a row (denials do not count).
    pub consecutive_failures: u32,
    /// Tools are off: the next model call is the last, without tools.
    pub tools_disabled: bool,
    /// The model does not read images (its calls go without the screenshot tool): the run's
    /// reads never fall back to a screenshot it could not see.
    pub blind: bool,
    /// Fingerprints (tool + params) of the last calls, newest last, at most 6.
    pub recent_calls: Vec<String>,
    /// Tokens spent by the turn (input + output of every call).
    pub tokens_used: u64,
    /// Tokens the turn may spend before it pauses next: the budget, raised by one budget at
    /// each `run.resume`.
    pub budget_allowance: u64,
}
