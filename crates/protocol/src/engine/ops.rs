//! Ops: commands a UI sends to the engine. Every Op carries a client-chosen `submissionId`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use super::input::TurnOverrides;
use super::input::UserInput;
use super::mcp::McpFetch;
use super::mcp::McpServerInput;
use super::requests::ApprovalDecision;
use super::requests::InteractionResponse;
use super::requests::UncertainResolution;
use super::settings::ConnectionInput;
use super::settings::ModelPreset;
use super::settings::PermissionRuleInput;
use super::settings::SettingsPatch;
use super::settings::memory_key;
use super::settings::memory_value;
use super::thread::ThreadMetaPatch;
use crate::catalog::wire_catalog;
use crate::ids::ApprovalId;
use crate::ids::AttachmentId;
use crate::ids::ClientId;
use crate::ids::ConnectionId;
use crate::ids::FolderId;
use crate::ids::InteractionId;
use crate::ids::NodeId;
use crate::ids::PresetId;
use crate::ids::RunId;
use crate::ids::SubmissionId;
use crate::ids::ThreadId;
use crate::ids::TurnId;

/// Protocol name of the engine port.
pub const ENGINE_PROTOCOL: &str = "panelot/engine-v1";

/// What every Op has.
pub trait OpCommon {
    /// The client-chosen id of this command.
    fn submission_id(&self) -> &SubmissionId;
    /// The thread the command acts on, if it names one.
    fn thread_id(&self) -> Option<&ThreadId>;
}

/// Declares an Op's params struct with its `submissionId` and the [`OpCommon`] impl.
macro_rules! op_params {
    ($(
        $(#[$doc:meta])*
        struct $Name:ident { $( $(#[$fdoc:meta])* $field:ident : $ty:ty, )* }
        thread: $thread:tt;
    )*) => {$(
        $(#[$doc])*
        #[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        pub struct $Name {
            /// Client-chosen id of this command.
            pub submission_id: SubmissionId,
            $( $(#[$fdoc])* pub $field: $ty, )*
        }

        impl OpCommon for $Name {
            fn submission_id(&self) -> &SubmissionId {
                &self.submission_id
            }
            fn thread_id(&self) -> Option<&ThreadId> {
                op_params!(@thread self $thread)
            }
        }
    )*};
    (@thread $self:ident none) => { None };
    (@thread $self:ident thread_id) => { Some(&$self.thread_id) };
    (@thread $self:ident subscribe) => { $self.subscribe.as_ref().map(|s| &s.thread_id) };
}

op_params! {
    /// Opens a session: protocol and schema must match, or the engine answers
    /// `fatal.reload_required` and closes the port.
    struct InitializeParams {
        /// Must be [`ENGINE_PROTOCOL`].
        protocol: String,
        /// Must be the engine schema hash the UI was built with.
        schema_hash: String,
        /// Persistent id of the UI client.
        client_id: ClientId,
        /// Subscribe to a thread at once; `initialized` then carries its snapshot.
        subscribe: Option<SubscribeTarget>,
    }
    thread: subscribe;

    /// Creates a thread.
    struct ThreadCreateParams {
        /// Model preset for the thread.
        preset: Option<PresetId>,
        /// Folder for the thread.
        folder_id: Option<FolderId>,
    }
    thread: none;

    /// Lists threads for the thread list.
    struct ThreadListParams {
        /// Include archived threads.
        include_archived: bool,
    }
    thread: none;

    /// Subscribes this port to a thread: a snapshot, then live events.
    struct ThreadSubscribeParams {
        /// The thread.
        thread_id: ThreadId,
    }
    thread: thread_id;

    /// Asks for the items of the selected branch before `before_node_id` (a snapshot carries the
    /// latest ones; a view loads the rest as the user scrolls back).
    struct ThreadLoadEarlierParams {
        /// The thread.
        thread_id: ThreadId,
        /// The first item the view has; the answer ends just before it.
        before_node_id: NodeId,
        /// Most stored nodes to read (`None`: the engine's page size; at most 1,000).
        limit: Option<u32>,
    }
    thread: thread_id;

    /// Changes thread metadata (rename, pin, archive, move).
    struct ThreadUpdateParams {
        /// The thread.
        thread_id: ThreadId,
        /// The change.
        patch: ThreadMetaPatch,
        /// Revision the client saw; a stale one is rejected.
        expected_revision: Option<u64>,
    }
    thread: thread_id;

    /// Deletes a thread with everything in it.
    struct ThreadDeleteParams {
        /// The thread.
        thread_id: ThreadId,
    }
    thread: thread_id;

    /// Creates a new thread holding the path of this one up to `atNodeId`.
    struct ThreadForkParams {
        /// The thread to fork.
        thread_id: ThreadId,
        /// Last node to carry over.
        at_node_id: NodeId,
    }
    thread: thread_id;

    /// Moves the tree cursor to the deepest default descendant of `nodeId`.
    struct ThreadSelectBranchParams {
        /// The thread.
        thread_id: ThreadId,
        /// A node of the thread.
        node_id: NodeId,
    }
    thread: thread_id;

    /// Stores a file the user attached, with the thread, under an id the UI chose; a message
    /// then names it in `attachmentIds`. Commands of a thread run in the order sent, so the
    /// message may follow at once. At most [`ATTACHMENT_MAX_BYTES`](super::input::ATTACHMENT_MAX_BYTES)
    /// bytes, refused with `attachment_too_large`.
    struct AttachmentPutParams {
        /// The thread.
        thread_id: ThreadId,
        /// The id the file is stored under (new; a UI makes it unique, `att-` and a UUID).
        attachment_id: AttachmentId,
        /// The file's name (1 to 255 characters, no folders).
        name: String,
        /// Its MIME type as the browser gave it (`application/octet-stream` when unknown).
        mime: String,
        /// The bytes, base64.
        data_base64: String,
    }
    thread: thread_id;

    /// Sends a message; queued if a turn is running.
    struct TurnSubmitParams {
        /// The thread.
        thread_id: ThreadId,
        /// The message.
        input: UserInput,
        /// Settings for this turn.
        overrides: Option<TurnOverrides>,
    }
    thread: thread_id;

    /// Sends a message as a new sibling of a node (edit and resend, regenerate).
    struct TurnForkParams {
        /// The thread.
        thread_id: ThreadId,
        /// The node whose sibling the new message becomes.
        sibling_of_node_id: NodeId,
        /// The message.
        input: UserInput,
        /// Settings for this turn.
        overrides: Option<TurnOverrides>,
    }
    thread: thread_id;

    /// Adds input to the running turn, applied before its next model call.
    struct TurnSteerParams {
        /// The thread.
        thread_id: ThreadId,
        /// Must be the active turn.
        expected_turn_id: TurnId,
        /// The message.
        input: UserInput,
    }
    thread: thread_id;

    /// Queues a message to run as a later turn.
    struct TurnEnqueueParams {
        /// The thread.
        thread_id: ThreadId,
        /// The message.
        input: UserInput,
        /// Settings for that turn.
        overrides: Option<TurnOverrides>,
    }
    thread: thread_id;

    /// Stops the running turn: the model stream and the running tool.
    struct TurnInterruptParams {
        /// The thread.
        thread_id: ThreadId,
    }
    thread: thread_id;

    /// Edits a queued message.
    struct QueueUpdateParams {
        /// The thread.
        thread_id: ThreadId,
        /// The queued run.
        run_id: RunId,
        /// New message.
        input: UserInput,
        /// New settings.
        overrides: Option<TurnOverrides>,
    }
    thread: thread_id;

    /// Removes a queued message.
    struct QueueRemoveParams {
        /// The thread.
        thread_id: ThreadId,
        /// The queued run.
        run_id: RunId,
    }
    thread: thread_id;

    /// Continues an interrupted or budget-paused run.
    struct RunResumeParams {
        /// The thread.
        thread_id: ThreadId,
        /// The run.
        run_id: RunId,
    }
    thread: thread_id;

    /// Decides how to go on with a write whose outcome is unknown.
    struct RunResolveUncertainParams {
        /// The thread.
        thread_id: ThreadId,
        /// The run.
        run_id: RunId,
        /// The decision.
        resolution: UncertainResolution,
    }
    thread: thread_id;

    /// Answers an approval.
    struct ApprovalResponseParams {
        /// The approval.
        approval_id: ApprovalId,
        /// The decision.
        decision: ApprovalDecision,
    }
    thread: none;

    /// Answers an interaction.
    struct InteractionResponseParams {
        /// The interaction.
        interaction_id: InteractionId,
        /// The answer.
        response: InteractionResponse,
    }
    thread: none;

    /// Asks for the settings (answered with `settings.state`).
    struct SettingsGetParams {}
    thread: none;

    /// Changes the default model, permission policy or token budget.
    struct SettingsUpdateParams {
        /// The change.
        patch: SettingsPatch,
    }
    thread: none;

    /// Adds or replaces a model connection; its keys are sealed before they are stored.
    struct ConnectionSaveParams {
        /// The connection.
        connection: ConnectionInput,
    }
    thread: none;

    /// Deletes a model connection.
    struct ConnectionDeleteParams {
        /// The connection.
        connection_id: ConnectionId,
    }
    thread: none;

    /// Adds a permission rule (made by the user).
    struct RuleAddParams {
        /// The rule.
        rule: PermissionRuleInput,
    }
    thread: none;

    /// Deletes a permission rule; a deleted seeded rule stays deleted.
    struct RuleDeleteParams {
        /// The rule.
        rule_id: String,
    }
    thread: none;

    /// Adds or replaces a model preset.
    struct PresetSaveParams {
        /// The preset to replace; `None` adds one.
        preset_id: Option<PresetId>,
        /// The preset.
        preset: ModelPreset,
    }
    thread: none;

    /// Deletes a model preset; its threads fall back to the defaults.
    struct PresetDeleteParams {
        /// The preset.
        preset_id: PresetId,
    }
    thread: none;

    /// Adds a note to the agent's memory, or replaces the one saved under its key (written by
    /// the user; refused past [`MEMORY_MAX_NOTES`](super::settings::MEMORY_MAX_NOTES)).
    struct MemorySaveParams {
        /// What it is saved under (trimmed; 1 to 100 characters).
        #[serde(deserialize_with = "memory_key")]
        key: String,
        /// The note (1 to 4,000 characters).
        #[serde(deserialize_with = "memory_value")]
        value: String,
    }
    thread: none;

    /// Deletes the note of the agent's memory saved under a key.
    struct MemoryDeleteParams {
        /// Its key (trimmed).
        #[serde(deserialize_with = "memory_key")]
        key: String,
    }
    thread: none;

    /// Checks a stored connection: lists its models, streams once and does one tool round trip
    /// (answered with `connection.verified`; nothing is stored).
    struct ConnectionVerifyParams {
        /// The connection.
        connection_id: ConnectionId,
        /// Model to try; the first listed one when absent.
        model: Option<String>,
    }
    thread: none;

    /// Adds or replaces an MCP server; its secrets are sealed before they are stored.
    struct McpSaveParams {
        /// The server.
        server: McpServerInput,
    }
    thread: none;

    /// Deletes an MCP server (its stored sign-in goes with it).
    struct McpDeleteParams {
        /// The server.
        server_id: String,
    }
    thread: none;

    /// Connects an MCP server now (again after an error; signs in when it needs it).
    struct McpConnectParams {
        /// The server.
        server_id: String,
    }
    thread: none;

    /// Lists the prompts and resources of the ready MCP servers (answered with `mcp.listed`).
    struct McpListParams {
        /// Only this server; every enabled one when absent.
        #[serde(default)]
        server_id: Option<String>,
    }
    thread: none;

    /// Gets a prompt or reads a resource of an MCP server, as a context block to attach to a
    /// message (answered with `mcp.fetched`).
    struct McpFetchParams {
        /// The server.
        server_id: String,
        /// What to get.
        fetch: McpFetch,
    }
    thread: none;

    /// Heartbeat; also keeps the service worker alive.
    struct PingParams {}
    thread: none;
}

/// Thread to subscribe to during `initialize`.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SubscribeTarget {
    /// The thread.
    pub thread_id: ThreadId,
}

wire_catalog! {
    /// A command from a UI to the engine.
    enum Op;
    /// The closed catalog of Op types.
    kind OpKind;
    common OpCommon;

    /// Session handshake.
    "initialize" => Initialize(InitializeParams),
    /// Create a thread.
    "thread.create" => ThreadCreate(ThreadCreateParams),
    /// List threads.
    "thread.list" => ThreadList(ThreadListParams),
    /// Subscribe to a thread.
    "thread.subscribe" => ThreadSubscribe(ThreadSubscribeParams),
    /// Load earlier items of a thread.
    "thread.loadEarlier" => ThreadLoadEarlier(ThreadLoadEarlierParams),
    /// Change thread metadata.
    "thread.update" => ThreadUpdate(ThreadUpdateParams),
    /// Delete a thread.
    "thread.delete" => ThreadDelete(ThreadDeleteParams),
    /// Fork a thread into a new one.
    "thread.fork" => ThreadFork(ThreadForkParams),
    /// Switch branch.
    "thread.selectBranch" => ThreadSelectBranch(ThreadSelectBranchParams),
    /// Store an attached file.
    "attachment.put" => AttachmentPut(AttachmentPutParams),
    /// Send a message.
    "turn.submit" => TurnSubmit(TurnSubmitParams),
    /// Send a message as a sibling.
    "turn.fork" => TurnFork(TurnForkParams),
    /// Steer the running turn.
    "turn.steer" => TurnSteer(TurnSteerParams),
    /// Queue a message.
    "turn.enqueue" => TurnEnqueue(TurnEnqueueParams),
    /// Interrupt the running turn.
    "turn.interrupt" => TurnInterrupt(TurnInterruptParams),
    /// Edit a queued message.
    "queue.update" => QueueUpdate(QueueUpdateParams),
    /// Remove a queued message.
    "queue.remove" => QueueRemove(QueueRemoveParams),
    /// Resume a run.
    "run.resume" => RunResume(RunResumeParams),
    /// Resolve an uncertain write.
    "run.resolveUncertain" => RunResolveUncertain(RunResolveUncertainParams),
    /// Answer an approval.
    "approval.response" => ApprovalResponse(ApprovalResponseParams),
    /// Answer an interaction.
    "interaction.response" => InteractionResponse(InteractionResponseParams),
    /// Read settings.
    "settings.get" => SettingsGet(SettingsGetParams),
    /// Change settings.
    "settings.update" => SettingsUpdate(SettingsUpdateParams),
    /// Save a connection.
    "connection.save" => ConnectionSave(ConnectionSaveParams),
    /// Delete a connection.
    "connection.delete" => ConnectionDelete(ConnectionDeleteParams),
    /// Check a connection.
    "connection.verify" => ConnectionVerify(ConnectionVerifyParams),
    /// Add a permission rule.
    "rule.add" => RuleAdd(RuleAddParams),
    /// Delete a permission rule.
    "rule.delete" => RuleDelete(RuleDeleteParams),
    /// Save a model preset.
    "preset.save" => PresetSave(PresetSaveParams),
    /// Delete a model preset.
    "preset.delete" => PresetDelete(PresetDeleteParams),
    /// Save a memory note.
    "memory.save" => MemorySave(MemorySaveParams),
    /// Delete a memory note.
    "memory.delete" => MemoryDelete(MemoryDeleteParams),
    /// Save an MCP server.
    "mcp.save" => McpSave(McpSaveParams),
    /// Delete an MCP server.
    "mcp.delete" => McpDelete(McpDeleteParams),
    /// Connect an MCP server now.
    "mcp.connect" => McpConnect(McpConnectParams),
    /// List MCP prompts and resources.
    "mcp.list" => McpList(McpListParams),
    /// Get an MCP prompt or resource.
    "mcp.fetch" => McpFetch(McpFetchParams),
    /// Heartbeat.
    "ping" => Ping(PingParams),
}

/// How the engine treats an Op kind with respect to command receipts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpClass {
    /// Session control flow (`initialize`, `thread.subscribe`, `thread.list`, `ping`): no receipt.
    Control,
    /// A command: idempotent through a durable receipt keyed by client, submission and type.
    Command,
}

impl OpKind {
    /// Whether this kind creates a command receipt.
    pub const fn class(self) -> OpClass {
        match self {
            OpKind::Initialize
            | OpKind::ThreadSubscribe
            | OpKind::ThreadLoadEarlier
            | OpKind::ThreadList
            | OpKind::SettingsGet
            | OpKind::ConnectionVerify
            | OpKind::McpConnect
            | OpKind::McpList
            | OpKind::McpFetch
            | OpKind::Ping => OpClass::Control,
            OpKind::ThreadCreate
            | OpKind::ThreadUpdate
            | OpKind::ThreadDelete
            | OpKind::ThreadFork
            | OpKind::ThreadSelectBranch
            | OpKind::AttachmentPut
            | OpKind::TurnSubmit
            | OpKind::TurnFork
            | OpKind::TurnSteer
            | OpKind::TurnEnqueue
            | OpKind::TurnInterrupt
            | OpKind::QueueUpdate
            | OpKind::QueueRemove
            | OpKind::RunResume
            | OpKind::RunResolveUncertain
            | OpKind::ApprovalResponse
            | OpKind::InteractionResponse
            | OpKind::SettingsUpdate
            | OpKind::ConnectionSave
            | OpKind::ConnectionDelete
            | OpKind::RuleAdd
            | OpKind::RuleDelete
            | OpKind::PresetSave
            | OpKind::PresetDelete
            | OpKind::MemorySave
            | OpKind::MemoryDelete
            | OpKind::McpSave
            | OpKind::McpDelete => OpClass::Command,
        }
    }
}

impl Op {
    /// The client-chosen id of this command.
    pub fn submission_id(&self) -> &SubmissionId {
        self.common().submission_id()
    }
}
