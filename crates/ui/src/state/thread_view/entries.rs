//! Entries of the message stream and how stored items and live events build them.

use panelot_protocol::ItemId;
use panelot_protocol::NodeId;
use panelot_protocol::SubmissionId;
use panelot_protocol::TurnId;
use panelot_protocol::engine::BranchPosition;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::ItemContent;
use panelot_protocol::engine::ItemDelta;
use panelot_protocol::engine::ItemKind;
use panelot_protocol::engine::ItemMeta;
use panelot_protocol::engine::ProviderDetails;
use panelot_protocol::engine::ProviderErrorKind;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::SnapshotItem;
use panelot_protocol::engine::StopReason;
use panelot_protocol::engine::ToolResultView;
use panelot_protocol::engine::Usage;

/// One entry of the message stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Stable identity for keyed rendering.
    pub key: EntryKey,
    /// The turn that produced it.
    pub turn_id: Option<TurnId>,
    /// The stored node, once written.
    pub node_id: Option<NodeId>,
    /// Position among siblings, for the ‹n/m› switcher.
    pub branch: Option<BranchPosition>,
    /// What it shows.
    pub body: EntryBody,
}

/// Identity of an entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntryKey {
    /// A stored node from a snapshot.
    Node(NodeId),
    /// The reasoning of a stored answer, shown before the answer (a node of its own key, so
    /// each is a row of its own after a reload as it is live).
    Reasoning(NodeId),
    /// A live item.
    Item(ItemId),
    /// A user message not yet confirmed, by the command that sends it.
    Optimistic(SubmissionId),
    /// A note or error made by the view, numbered in arrival order.
    Local(u64),
}

impl EntryKey {
    /// The key as text, unique among a view's keys: a row's `data-key`, a step's `<details>`.
    pub fn text(&self) -> String {
        match self {
            EntryKey::Node(id) => format!("n-{id}"),
            EntryKey::Reasoning(id) => format!("r-{id}"),
            EntryKey::Item(id) => format!("i-{id}"),
            EntryKey::Optimistic(id) => format!("o-{id}"),
            EntryKey::Local(n) => format!("l-{n}"),
        }
    }
}

/// The content of an entry.
#[derive(Debug, Clone, PartialEq)]
pub enum EntryBody {
    /// A user message.
    User {
        /// The text.
        text: String,
        /// Steered into a running turn.
        steered: bool,
        /// Whether the engine has it.
        send_state: SendState,
        /// The files attached to it.
        files: Vec<crate::state::files::FileChip>,
    },
    /// Text of the model.
    Assistant {
        /// The text so far.
        text: String,
        /// More may follow.
        streaming: bool,
        /// Why the model call ended.
        stop_reason: Option<ProviderStopReason>,
        /// Token counts.
        usage: Option<Usage>,
        /// Cost in US dollars.
        cost_usd: Option<f64>,
    },
    /// Reasoning of the model (collapsible).
    Reasoning {
        /// The text so far.
        text: String,
        /// More may follow.
        streaming: bool,
    },
    /// A tool call.
    Tool {
        /// The call's item (an approval names it).
        item_id: ItemId,
        /// Tool name.
        tool_name: String,
        /// The tool's label.
        label: String,
        /// The parameters, once the model's answer holds them.
        params: Option<serde_json::Value>,
        /// The latest progress report.
        progress: Option<serde_json::Value>,
        /// The result, once finished.
        result: Option<ToolResultView>,
    },
    /// An approval that was asked (and its decision, once made).
    Approval {
        /// Card label.
        label: String,
        /// Short decision text.
        decision: Option<String>,
    },
    /// A notice from the engine.
    Notice {
        /// The text.
        text: String,
    },
    /// How a turn ended, when the user should know (max tokens, filtered, interrupted).
    TurnNote {
        /// The stop reason.
        stop_reason: StopReason,
    },
    /// A failure with what to do next.
    Error {
        /// What failed.
        code: ErrorCode,
        /// Explanation.
        message: String,
        /// Whether retrying may help.
        retryable: bool,
        /// Provider failure class.
        error_kind: Option<ProviderErrorKind>,
        /// Provider diagnosis.
        provider_details: Option<ProviderDetails>,
    },
    /// A model call failed and is tried again after a wait (shown until the answer resumes or
    /// the turn ends).
    Retrying {
        /// The attempt that comes next (2 for the first retry).
        attempt: u32,
        /// How long it waits first.
        wait_ms: u64,
        /// What failed, naming the connection.
        message: String,
    },
}

/// Whether the engine has a user message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendState {
    /// Sent, not yet acknowledged.
    Sending,
    /// Acknowledged; the stored item has not arrived yet.
    Accepted,
    /// Part of the thread.
    Stored,
}

pub(super) fn entry_from_item(item: &SnapshotItem) -> Entry {
    let body = match &item.content {
        ItemContent::UserMessage { input, steered } => EntryBody::User {
            text: input.text.clone(),
            steered: *steered,
            send_state: SendState::Stored,
            files: crate::state::files::chips_of(input),
        },
        ItemContent::AssistantMessage { text, stop_reason, usage, cost_usd, .. } => {
            EntryBody::Assistant {
                text: text.clone(),
                streaming: false,
                stop_reason: *stop_reason,
                usage: *usage,
                cost_usd: *cost_usd,
            }
        }
        ItemContent::Reasoning { text } => {
            EntryBody::Reasoning { text: text.clone(), streaming: false }
        }
        ItemContent::ToolCall { item_id, tool_name, label, params, result } => EntryBody::Tool {
            item_id: item_id.clone(),
            tool_name: tool_name.clone(),
            label: label.clone(),
            params: (!params.is_null()).then(|| params.clone()),
            progress: None,
            result: result.clone(),
        },
        ItemContent::Approval { request, decision, .. } => {
            EntryBody::Approval { label: request.label.clone(), decision: decision.clone() }
        }
        ItemContent::SystemNotice { text } => EntryBody::Notice { text: text.clone() },
        ItemContent::TurnError { error } => EntryBody::Error {
            code: error.code,
            message: error.message.clone(),
            retryable: error.retryable,
            error_kind: error.error_kind,
            provider_details: error.provider_details.clone(),
        },
    };
    let key = match item.content {
        ItemContent::Reasoning { .. } => EntryKey::Reasoning(item.node_id.clone()),
        _ => EntryKey::Node(item.node_id.clone()),
    };
    Entry {
        key,
        turn_id: item.turn_id.clone(),
        node_id: Some(item.node_id.clone()),
        branch: Some(item.branch.clone()),
        body,
    }
}

pub(super) fn live_entry(
    item_id: ItemId,
    turn_id: &TurnId,
    kind: ItemKind,
    meta: &ItemMeta,
) -> Entry {
    let body = match kind {
        ItemKind::UserMessage => EntryBody::User {
            text: String::new(),
            steered: false,
            send_state: SendState::Stored,
            files: Vec::new(),
        },
        ItemKind::AssistantMessage => EntryBody::Assistant {
            text: String::new(),
            streaming: true,
            stop_reason: None,
            usage: None,
            cost_usd: None,
        },
        ItemKind::Reasoning => EntryBody::Reasoning { text: String::new(), streaming: true },
        ItemKind::ToolCall => EntryBody::Tool {
            item_id: item_id.clone(),
            tool_name: meta.tool_name.clone().unwrap_or_default(),
            label: meta.label.clone().or_else(|| meta.tool_name.clone()).unwrap_or_default(),
            params: None,
            progress: None,
            result: None,
        },
        ItemKind::Approval => {
            EntryBody::Approval { label: meta.label.clone().unwrap_or_default(), decision: None }
        }
        // The engine announces a turn's error with the `error` event, never as a live item.
        ItemKind::SystemNotice | ItemKind::TurnError => EntryBody::Notice { text: String::new() },
    };
    Entry {
        key: EntryKey::Item(item_id),
        turn_id: Some(turn_id.clone()),
        node_id: None,
        branch: None,
        body,
    }
}

pub(super) fn append_text(body: &mut EntryBody, more: &str) {
    match body {
        EntryBody::User { text, .. }
        | EntryBody::Assistant { text, .. }
        | EntryBody::Reasoning { text, .. }
        | EntryBody::Notice { text } => text.push_str(more),
        EntryBody::Tool { .. }
        | EntryBody::Approval { .. }
        | EntryBody::TurnNote { .. }
        | EntryBody::Error { .. }
        | EntryBody::Retrying { .. } => {}
    }
}

pub(super) fn apply_delta(body: &mut EntryBody, delta: &ItemDelta) {
    if let Some(more) = &delta.text {
        append_text(body, more);
    }
    if let (Some(more), EntryBody::Reasoning { text, .. }) = (&delta.reasoning, &mut *body) {
        text.push_str(more);
    }
    if let EntryBody::Tool { progress, params, .. } = body {
        if let Some(value) = &delta.tool_progress {
            *progress = Some(value.clone());
        }
        if let Some(value) = &delta.tool_params {
            *params = Some(value.clone());
        }
    }
}

pub(super) fn complete(body: &mut EntryBody, tool_result: Option<&ToolResultView>) {
    match body {
        EntryBody::Assistant { streaming, .. } | EntryBody::Reasoning { streaming, .. } => {
            *streaming = false;
        }
        EntryBody::Tool { result, .. } => {
            if let Some(tool_result) = tool_result {
                *result = Some(tool_result.clone());
            }
        }
        EntryBody::User { .. }
        | EntryBody::Approval { .. }
        | EntryBody::Notice { .. }
        | EntryBody::TurnNote { .. }
        | EntryBody::Error { .. }
        | EntryBody::Retrying { .. } => {}
    }
}

/// The note a stored answer gets when its model call ended early (as the live turn showed it).
pub(super) fn turn_note(reason: ProviderStopReason) -> Option<StopReason> {
    match reason {
        ProviderStopReason::MaxTokens => Some(StopReason::MaxTokens),
        ProviderStopReason::ContentFilter => Some(StopReason::ContentFilter),
        ProviderStopReason::Interrupted => Some(StopReason::Interrupted),
        ProviderStopReason::End | ProviderStopReason::ToolUse => None,
    }
}
