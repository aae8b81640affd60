//! AgentEvents: what the engine sends to UIs. Responses echo the `submissionId` of the Op that
//! caused them; broadcasts carry none.
//!
//! At runtime the set of event types is open: a UI ignores a type it does not know, but a known
//! type must pass strict field validation (see [`crate::decode_event`]).

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use super::codes::ErrorCode;
use super::codes::ItemKind;
use super::codes::StopReason;
use super::codes::TurnKind;
use super::input::ContextBlock;
use super::mcp::McpListFailure;
use super::mcp::McpPromptView;
use super::mcp::McpResourceView;
use super::requests::ApprovalRequestPayload;
use super::requests::InteractionRequestPayload;
use super::requests::RunRecoveryState;
use super::settings::ConnectionCheck;
use super::settings::SettingsView;
use super::thread::ItemMeta;
use super::thread::QueuedRun;
use super::thread::SnapshotItem;
use super::thread::ThreadMeta;
use super::thread::ThreadMetaPatch;
use super::thread::ThreadSnapshot;
use super::thread::ThreadSummary;
use super::thread::ToolResultView;
use super::thread::Usage;
use crate::catalog::wire_catalog;
use crate::ids::ApprovalId;
use crate::ids::ConnectionId;
use crate::ids::InteractionId;
use crate::ids::ItemId;
use crate::ids::NodeId;
use crate::ids::RunId;
use crate::ids::SubmissionId;
use crate::ids::ThreadId;
use crate::ids::TurnId;

/// What every event has, for routing.
pub trait EventCommon {
    /// The Op this event answers, if any.
    fn submission_id(&self) -> Option<&SubmissionId>;
    /// The thread this event belongs to, if any; thread events go to that thread's subscribers.
    fn thread_id(&self) -> Option<&ThreadId>;
}

/// Declares an event payload struct and its [`EventCommon`] impl.
macro_rules! event_payloads {
    ($(
        $(#[$doc:meta])*
        struct $Name:ident { $( $(#[$fdoc:meta])* $field:ident : $ty:ty, )* }
        submission: $sub:tt; thread: $thread:tt;
    )*) => {$(
        $(#[$doc])*
        #[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        pub struct $Name {
            $( $(#[$fdoc])* pub $field: $ty, )*
        }

        impl EventCommon for $Name {
            fn submission_id(&self) -> Option<&SubmissionId> {
                event_payloads!(@opt self $sub submission_id)
            }
            fn thread_id(&self) -> Option<&ThreadId> {
                event_payloads!(@opt self $thread thread_id)
            }
        }
    )*};
    (@opt $self:ident none $field:ident) => { None };
    (@opt $self:ident required $field:ident) => { Some(&$self.$field) };
    (@opt $self:ident optional $field:ident) => { $self.$field.as_ref() };
    (@opt $self:ident meta $field:ident) => { Some(&$self.thread.id) };
    (@opt $self:ident snapshot $field:ident) => { Some(&$self.snapshot.meta.id) };
}

event_payloads! {
    /// The session is open; carries the subscribed thread's snapshot when one was asked for.
    struct InitializedEvent {
        /// The `initialize` answered.
        submission_id: SubmissionId,
        /// The engine protocol name.
        protocol: String,
        /// The engine schema hash.
        schema_hash: String,
        /// Snapshot of the subscribed thread.
        snapshot: Option<ThreadSnapshot>,
    }
    submission: required; thread: none;

    /// The UI was built for another protocol or schema; it must reload. The port is closed after
    /// this event. This envelope stays parseable across versions: it echoes the client's protocol.
    struct FatalReloadRequiredEvent {
        /// The `initialize` answered, echoed as sent.
        submission_id: String,
        /// The protocol the client sent.
        protocol: String,
        /// The schema hash the engine speaks.
        schema_hash: String,
        /// Explanation for the user.
        message: String,
    }
    submission: none; thread: none;

    /// The command was accepted and its domain decision is durable.
    struct CommandAckEvent {
        /// The command.
        submission_id: SubmissionId,
        /// Thread it acted on.
        thread_id: Option<ThreadId>,
        /// Run it created or changed.
        run_id: Option<RunId>,
        /// Revision after the change.
        revision: Option<u64>,
    }
    submission: required; thread: optional;

    /// The command was refused; nothing changed.
    struct CommandRejectedEvent {
        /// The command.
        submission_id: SubmissionId,
        /// Why.
        code: ErrorCode,
        /// Explanation.
        message: String,
    }
    submission: required; thread: none;

    /// Answer to `ping`.
    struct PongEvent {
        /// The ping.
        submission_id: SubmissionId,
    }
    submission: required; thread: none;

    /// Something failed, often a model call.
    struct ErrorEvent {
        /// The command it relates to.
        submission_id: Option<SubmissionId>,
        /// The thread it relates to.
        thread_id: Option<ThreadId>,
        /// What failed.
        code: ErrorCode,
        /// Explanation, safe to show (never keys or header values).
        message: String,
        /// Whether retrying may help.
        retryable: bool,
        /// Provider failure class, for provider errors.
        error_kind: Option<ProviderErrorKind>,
        /// Sanitised provider details.
        provider_details: Option<ProviderDetails>,
    }
    submission: optional; thread: optional;

    /// A thread was created.
    struct ThreadCreatedEvent {
        /// The `thread.create` that made it, for its sender.
        submission_id: Option<SubmissionId>,
        /// The new thread.
        thread: ThreadMeta,
    }
    submission: optional; thread: meta;

    /// A thread was forked into a new one.
    struct ThreadForkedEvent {
        /// The `thread.fork` that made it, for its sender.
        submission_id: Option<SubmissionId>,
        /// The new thread.
        thread: ThreadMeta,
        /// The thread it came from.
        from_thread_id: ThreadId,
        /// Last node carried over.
        at_node_id: NodeId,
    }
    submission: optional; thread: meta;

    /// A thread's state, answering `thread.subscribe`; live events for it follow, never before.
    struct ThreadSnapshotEvent {
        /// The `thread.subscribe` answered.
        submission_id: SubmissionId,
        /// The thread's state.
        snapshot: ThreadSnapshot,
    }
    submission: required; thread: snapshot;

    /// Earlier items of a thread's selected branch, answering `thread.loadEarlier`.
    struct ThreadEarlierEvent {
        /// The `thread.loadEarlier` answered.
        submission_id: SubmissionId,
        /// The thread.
        thread_id: ThreadId,
        /// The items just before the one asked about, oldest first.
        items: Vec<SnapshotItem>,
        /// Whether the branch has items before these.
        has_earlier: bool,
    }
    submission: required; thread: required;

    /// The thread list.
    struct ThreadListedEvent {
        /// The `thread.list` answered.
        submission_id: SubmissionId,
        /// Threads, most recently updated first.
        threads: Vec<ThreadSummary>,
    }
    submission: required; thread: none;

    /// A turn started.
    struct TurnStartEvent {
        /// The thread.
        thread_id: ThreadId,
        /// The turn.
        turn_id: TurnId,
        /// Its run.
        run_id: RunId,
        /// Kind of turn.
        turn_kind: TurnKind,
        /// Whether input may be steered into it.
        steerable: bool,
    }
    submission: none; thread: required;

    /// A turn ended; sent after every write of the turn is durable.
    struct TurnCompleteEvent {
        /// The thread.
        thread_id: ThreadId,
        /// The turn.
        turn_id: TurnId,
        /// Why it ended.
        stop_reason: StopReason,
    }
    submission: none; thread: required;

    /// A model call failed in a way that passes (a rate limit, an overloaded or unreachable
    /// endpoint) and is tried again: shown while it waits, never stored.
    struct TurnRetryingEvent {
        /// The thread.
        thread_id: ThreadId,
        /// The turn.
        turn_id: TurnId,
        /// The attempt that comes next (2 for the first retry).
        attempt: u32,
        /// How long it waits before that attempt.
        wait_ms: u64,
        /// What failed, in words, naming the connection.
        message: String,
    }
    submission: none; thread: required;

    /// Tokens and cost of a model call.
    struct TokenUsageEvent {
        /// The thread.
        thread_id: ThreadId,
        /// The turn.
        turn_id: TurnId,
        /// Token counts.
        usage: Usage,
        /// Cost in US dollars, when pricing is known.
        cost_usd: Option<f64>,
    }
    submission: none; thread: required;

    /// An item started.
    struct ItemStartEvent {
        /// The thread.
        thread_id: ThreadId,
        /// The turn.
        turn_id: TurnId,
        /// The item.
        item_id: ItemId,
        /// Its kind.
        kind: ItemKind,
        /// Card metadata.
        meta: ItemMeta,
    }
    submission: none; thread: required;

    /// More of an item (merged over 16 ms per item).
    struct ItemDeltaEvent {
        /// The thread.
        thread_id: ThreadId,
        /// The item.
        item_id: ItemId,
        /// The increment.
        delta: ItemDelta,
    }
    submission: none; thread: required;

    /// An item completed.
    struct ItemCompleteEvent {
        /// The thread.
        thread_id: ThreadId,
        /// The item.
        item_id: ItemId,
        /// The stored node, once written.
        node_id: Option<NodeId>,
        /// Result, for tool calls.
        result: Option<ToolResultView>,
    }
    submission: none; thread: required;

    /// The engine asks the user to approve a tool call.
    struct ApprovalRequestEvent {
        /// The thread.
        thread_id: ThreadId,
        /// The turn.
        turn_id: TurnId,
        /// The approval.
        approval_id: ApprovalId,
        /// The tool-call item it is about.
        item_id: Option<ItemId>,
        /// What is asked.
        request: ApprovalRequestPayload,
    }
    submission: none; thread: required;

    /// An approval was decided (here or in another UI) or expired.
    struct ApprovalResolvedEvent {
        /// The thread.
        thread_id: ThreadId,
        /// The approval.
        approval_id: ApprovalId,
        /// Short text of the outcome.
        outcome: String,
    }
    submission: none; thread: required;

    /// The engine asks the user a question or to do something.
    struct InteractionRequestEvent {
        /// The thread.
        thread_id: ThreadId,
        /// The turn.
        turn_id: TurnId,
        /// The interaction.
        interaction_id: InteractionId,
        /// The tool-call item it belongs to.
        item_id: Option<ItemId>,
        /// What is asked.
        request: InteractionRequestPayload,
    }
    submission: none; thread: required;

    /// An interaction was answered (here or in another UI) or expired.
    struct InteractionResolvedEvent {
        /// The thread.
        thread_id: ThreadId,
        /// The interaction.
        interaction_id: InteractionId,
    }
    submission: none; thread: required;

    /// A thread was deleted.
    struct ThreadDeletedEvent {
        /// The thread.
        thread_id: ThreadId,
    }
    submission: none; thread: required;

    /// Thread metadata changed.
    struct ThreadUpdatedEvent {
        /// The thread.
        thread_id: ThreadId,
        /// Revision after the change.
        revision: u64,
        /// What changed.
        patch: ThreadMetaPatch,
    }
    submission: none; thread: required;

    /// The run queue of a thread changed.
    struct QueueUpdatedEvent {
        /// The thread.
        thread_id: ThreadId,
        /// Number of queued runs.
        pending: u32,
        /// The queued runs, in order.
        runs: Vec<QueuedRun>,
    }
    submission: none; thread: required;

    /// A run stopped and needs the user to choose how to go on.
    struct RunRecoveryRequiredEvent {
        /// The thread.
        thread_id: ThreadId,
        /// The run and its choices.
        run: RunRecoveryState,
    }
    submission: none; thread: required;

    /// Tabs the agent touched in a thread (audit and routing, never permission).
    struct TabsUpdatedEvent {
        /// The thread.
        thread_id: ThreadId,
        /// The tabs.
        tabs: Vec<TouchedTab>,
        /// The tab tools use by default now.
        default_tab_id: Option<u32>,
    }
    submission: none; thread: required;

    /// The settings, answering `settings.get` (with its id) or after any change (to every UI).
    struct SettingsStateEvent {
        /// The `settings.get` answered, when this is an answer.
        submission_id: Option<SubmissionId>,
        /// The settings.
        settings: SettingsView,
    }
    submission: optional; thread: none;

    /// The prompts and resources of the MCP servers, answering `mcp.list`.
    struct McpListedEvent {
        /// The `mcp.list` answered.
        submission_id: SubmissionId,
        /// Every prompt, server by server.
        prompts: Vec<McpPromptView>,
        /// Every resource, server by server.
        resources: Vec<McpResourceView>,
        /// Servers that could not be listed.
        failures: Vec<McpListFailure>,
    }
    submission: required; thread: none;

    /// A prompt or resource of an MCP server as a context block (untrusted, MCP provenance),
    /// answering `mcp.fetch`; a failure is a `command.rejected`.
    struct McpFetchedEvent {
        /// The `mcp.fetch` answered.
        submission_id: SubmissionId,
        /// The block to attach to the message.
        block: ContextBlock,
    }
    submission: required; thread: none;

    /// What checking a connection found, answering `connection.verify`.
    struct ConnectionVerifiedEvent {
        /// The `connection.verify` answered.
        submission_id: SubmissionId,
        /// The connection.
        connection_id: ConnectionId,
        /// The findings.
        report: ConnectionCheck,
    }
    submission: required; thread: none;

    /// The agent opens something beside a view of its thread (`sidebar_open`): sent to one
    /// view of the thread, once.
    struct ViewOpenEvent {
        /// The thread whose agent asked.
        thread_id: ThreadId,
        /// What is opened.
        kind: OpenKind,
        /// The URL (for `url`), or the artifact's filename (for `artifact`).
        target: String,
        /// The title to show.
        title: String,
    }
    submission: none; thread: required;

    /// Activity across all threads, for list badges.
    struct ActivityUpdatedEvent {
        /// Threads with a running turn.
        running: u32,
        /// Approvals waiting, all threads.
        pending_approvals: u32,
        /// Interactions waiting, all threads.
        pending_interactions: u32,
        /// Per-thread activity, only threads with some.
        threads: Vec<ThreadActivity>,
    }
    submission: none; thread: none;
}

/// An increment of an item.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ItemDelta {
    /// More text.
    pub text: Option<String>,
    /// More reasoning.
    pub reasoning: Option<String>,
    /// Progress of a tool.
    pub tool_progress: Option<serde_json::Value>,
    /// The complete parameters of a tool call, once the model's answer holds them.
    pub tool_params: Option<serde_json::Value>,
}

/// Class of a provider failure.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum ProviderErrorKind {
    /// Key missing, invalid or without permission.
    Auth,
    /// Too many requests or quota.
    RateLimit,
    /// The provider is overloaded.
    Overloaded,
    /// The context is longer than the model accepts.
    ContextTooLong,
    /// The provider filtered the content.
    ContentFilter,
    /// The endpoint could not be reached.
    Network,
    /// The answer broke the wire format.
    Protocol,
}

/// Sanitised details of a provider failure.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderDetails {
    /// HTTP status.
    pub status: Option<u16>,
    /// Provider request id.
    pub request_id: Option<String>,
    /// Finer reason (`invalid_key`, `model_not_found`, ...).
    pub reason: Option<String>,
    /// The provider's error code.
    pub upstream_code: Option<String>,
    /// The provider's message, without control characters, at most 2,000 characters.
    pub upstream_message: Option<String>,
}

/// A tab the agent touched.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TouchedTab {
    /// `chrome.tabs` id.
    pub tab_id: u32,
    /// Current URL.
    pub url: String,
    /// Current title.
    pub title: String,
    /// What the agent did with it.
    pub role: TabRole,
}

/// What the agent did with a tab.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TabRole {
    /// Read only.
    Read,
    /// Written to.
    Driven,
    /// Opened by the agent.
    Created,
    /// Closed by the agent or the user.
    Closed,
}

/// What `sidebar_open` opens.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum OpenKind {
    /// A web page, in a browser tab beside the view.
    Url,
    /// An artifact of the thread (by its filename: the newest of that name on the thread's
    /// branch), in the chat page's viewer.
    Artifact,
}

/// Activity of one thread.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ThreadActivity {
    /// The thread.
    pub thread_id: ThreadId,
    /// Whether a turn is running.
    pub running: bool,
    /// Approvals waiting.
    pub pending_approvals: u32,
    /// Interactions waiting.
    pub pending_interactions: u32,
}

wire_catalog! {
    /// An event from the engine to UIs.
    enum AgentEvent;
    /// The closed catalog of known event types.
    kind EventKind;
    common EventCommon;

    /// Session opened.
    "initialized" => Initialized(InitializedEvent),
    /// Reload required; the port closes.
    "fatal.reload_required" => FatalReloadRequired(FatalReloadRequiredEvent),
    /// Command accepted.
    "command.ack" => CommandAck(CommandAckEvent),
    /// Command refused.
    "command.rejected" => CommandRejected(CommandRejectedEvent),
    /// Heartbeat answer.
    "pong" => Pong(PongEvent),
    /// A failure.
    "error" => Error(ErrorEvent),
    /// Thread created.
    "thread.created" => ThreadCreated(ThreadCreatedEvent),
    /// Thread forked.
    "thread.forked" => ThreadForked(ThreadForkedEvent),
    /// Thread snapshot.
    "thread.snapshot" => ThreadSnapshot(ThreadSnapshotEvent),
    /// Earlier items of a thread.
    "thread.earlier" => ThreadEarlier(ThreadEarlierEvent),
    /// Thread list.
    "thread.listed" => ThreadListed(ThreadListedEvent),
    /// Turn started.
    "turn.start" => TurnStart(TurnStartEvent),
    /// Turn ended.
    "turn.complete" => TurnComplete(TurnCompleteEvent),
    /// A model call is tried again.
    "turn.retrying" => TurnRetrying(TurnRetryingEvent),
    /// Token usage.
    "token.usage" => TokenUsage(TokenUsageEvent),
    /// Item started.
    "item.start" => ItemStart(ItemStartEvent),
    /// Item increment.
    "item.delta" => ItemDelta(ItemDeltaEvent),
    /// Item completed.
    "item.complete" => ItemComplete(ItemCompleteEvent),
    /// Approval asked.
    "approval.request" => ApprovalRequest(ApprovalRequestEvent),
    /// Approval decided.
    "approval.resolved" => ApprovalResolved(ApprovalResolvedEvent),
    /// Interaction asked.
    "interaction.request" => InteractionRequest(InteractionRequestEvent),
    /// Interaction answered.
    "interaction.resolved" => InteractionResolved(InteractionResolvedEvent),
    /// Thread deleted.
    "thread.deleted" => ThreadDeleted(ThreadDeletedEvent),
    /// Thread metadata changed.
    "thread.updated" => ThreadUpdated(ThreadUpdatedEvent),
    /// Queue changed.
    "queue.updated" => QueueUpdated(QueueUpdatedEvent),
    /// A run needs recovery.
    "run.recovery_required" => RunRecoveryRequired(RunRecoveryRequiredEvent),
    /// Touched tabs changed.
    "tabs.updated" => TabsUpdated(TabsUpdatedEvent),
    /// Cross-thread activity changed.
    "activity.updated" => ActivityUpdated(ActivityUpdatedEvent),
    /// The agent opens a page beside a view of its thread.
    "view.open" => ViewOpen(ViewOpenEvent),
    /// Settings.
    "settings.state" => SettingsState(SettingsStateEvent),
    /// Connection check.
    "connection.verified" => ConnectionVerified(ConnectionVerifiedEvent),
    /// MCP prompts and resources.
    "mcp.listed" => McpListed(McpListedEvent),
    /// An MCP prompt or resource.
    "mcp.fetched" => McpFetched(McpFetchedEvent),
}

/// Which UIs an event reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// Only to the port whose Op caused it.
    Reply,
    /// To every port subscribed to the event's thread.
    Thread,
    /// To every port.
    Everyone,
}

impl EventKind {
    /// Which UIs events of this kind reach.
    pub const fn audience(self) -> Audience {
        match self {
            EventKind::Initialized
            | EventKind::FatalReloadRequired
            | EventKind::CommandAck
            | EventKind::CommandRejected
            | EventKind::Pong
            | EventKind::ThreadSnapshot
            | EventKind::ThreadEarlier
            | EventKind::ThreadListed
            | EventKind::ConnectionVerified
            | EventKind::McpListed
            | EventKind::McpFetched
            // One view opens it, or every view of the thread would open a tab.
            | EventKind::ViewOpen => Audience::Reply,
            EventKind::Error
            | EventKind::TurnStart
            | EventKind::TurnComplete
            | EventKind::TurnRetrying
            | EventKind::TokenUsage
            | EventKind::ItemStart
            | EventKind::ItemDelta
            | EventKind::ItemComplete
            | EventKind::ApprovalRequest
            | EventKind::ApprovalResolved
            | EventKind::InteractionRequest
            | EventKind::InteractionResolved
            | EventKind::QueueUpdated
            | EventKind::RunRecoveryRequired
            | EventKind::TabsUpdated => Audience::Thread,
            EventKind::ThreadCreated
            | EventKind::ThreadForked
            | EventKind::ThreadDeleted
            // Thread lists in every UI show titles and pins.
            | EventKind::ThreadUpdated
            | EventKind::ActivityUpdated
            // Every settings page shows the same settings.
            | EventKind::SettingsState => Audience::Everyone,
        }
    }
}

/// Position of an event in a thread's live stream. The epoch is the service-worker generation;
/// the sequence increases per thread within an epoch. A client drops live events that are not
/// newer than its snapshot.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StreamCursor {
    /// The thread.
    pub thread_id: ThreadId,
    /// Service-worker generation.
    pub epoch: u64,
    /// Position within the thread's stream in this epoch.
    pub sequence: u64,
}

/// An event as sent on a port: the event's fields plus an optional `stream` cursor.
#[derive(Debug, Clone, PartialEq)]
pub struct EventFrame {
    /// The event.
    pub event: AgentEvent,
    /// Its place in the thread's stream, for thread events.
    pub stream: Option<StreamCursor>,
}

impl EventFrame {
    /// A frame without a stream cursor.
    pub fn new(event: AgentEvent) -> Self {
        Self { event, stream: None }
    }
}
