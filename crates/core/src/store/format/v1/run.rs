//! A stored run: its input and settings as admitted, its steers, tool calls, the approval or
//! interaction it waits for, its loop counters, taint and route.

use panelot_protocol::ApprovalId;
use panelot_protocol::InteractionId;
use panelot_protocol::ItemId;
use panelot_protocol::NodeId;
use panelot_protocol::RunId;
use panelot_protocol::ThreadId;
use panelot_protocol::TurnId;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;

use super::codes::StoredPolicy;
use super::codes::StoredRunState;
use super::codes::StoredStopReason;
use super::codes::StoredToolCallStatus;
use super::input::StoredInput;
use super::input::StoredModelChoice;
use super::input::StoredOverrides;
use super::input::StoredPreset;
use super::requests::StoredApprovalRequest;
use super::requests::StoredInteractionRequest;
use super::version::V1;
use crate::store::format::error::FormatError;
use crate::store::format::error::id;
use crate::store::runs::ApprovalRecord;
use crate::store::runs::InteractionRecord;
use crate::store::runs::LoopCounters;
use crate::store::runs::RunRecord;
use crate::store::runs::SteerRecord;
use crate::store::runs::ToolCallRecord;
use crate::taint::TaintLedger;
use crate::target::ResolvedTarget;
use crate::target::RunRoute;

/// A stored run.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StoredRun {
    v: V1,
    id: String,
    thread_id: String,
    turn_id: String,
    seq: u64,
    state: StoredRunState,
    resumable: bool,
    input: StoredInput,
    overrides: Option<StoredOverrides>,
    sibling_of: Option<String>,
    revision: u64,
    model: StoredModelChoice,
    policy: StoredPolicy,
    token_budget: Option<u64>,
    preset: Option<StoredPreset>,
    steers: Vec<StoredSteer>,
    tools: Vec<StoredToolCall>,
    approval: Option<StoredApproval>,
    interaction: Option<StoredInteraction>,
    counters: StoredCounters,
    taint: TaintLedger,
    route: RunRoute,
    stop_reason: Option<StoredStopReason>,
    note: Option<String>,
    /// Left out when unset, so a run never paused is stored as before the field came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pause: Option<String>,
    created_at_ms: u64,
    updated_at_ms: u64,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredSteer {
    node_id: String,
    input: StoredInput,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredToolCall {
    node_id: String,
    item_id: String,
    call_id: String,
    tool_name: String,
    params: Value,
    status: StoredToolCallStatus,
    dispatches: u32,
    approved: bool,
    host_permission_asked: bool,
    target: Option<ResolvedTarget>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    escalated_from: Option<String>,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredApproval {
    id: String,
    tool_index: u64,
    request: StoredApprovalRequest,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredInteraction {
    id: String,
    tool_index: u64,
    request: StoredInteractionRequest,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mcp_resume: Option<String>,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredCounters {
    model_calls: u32,
    consecutive_failures: u32,
    tools_disabled: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    blind: bool,
    recent_calls: Vec<String>,
    tokens_used: u64,
    budget_allowance: u64,
}

impl From<&RunRecord> for StoredRun {
    fn from(run: &RunRecord) -> Self {
        StoredRun {
            v: V1,
            id: run.id.to_string(),
            thread_id: run.thread_id.to_string(),
            turn_id: run.turn_id.to_string(),
            seq: run.seq,
            state: run.state.into(),
            resumable: run.resumable,
            input: (&run.input).into(),
            overrides: run.overrides.as_ref().map(Into::into),
            sibling_of: run.sibling_of.as_ref().map(ToString::to_string),
            revision: run.revision,
            model: (&run.model).into(),
            policy: run.policy.into(),
            token_budget: run.token_budget,
            preset: run.preset.as_ref().map(Into::into),
            steers: run
                .steers
                .iter()
                .map(|steer| StoredSteer {
                    node_id: steer.node_id.to_string(),
                    input: (&steer.input).into(),
                })
                .collect(),
            tools: run.tools.iter().map(Into::into).collect(),
            approval: run.approval.as_ref().map(|approval| StoredApproval {
                id: approval.id.to_string(),
                tool_index: approval.tool_index as u64,
                request: (&approval.request).into(),
            }),
            interaction: run.interaction.as_ref().map(|interaction| StoredInteraction {
                id: interaction.id.to_string(),
                tool_index: interaction.tool_index as u64,
                request: (&interaction.request).into(),
                mcp_resume: interaction.mcp_resume.clone(),
            }),
            counters: StoredCounters {
                model_calls: run.counters.model_calls,
                consecutive_failures: run.counters.consecutive_failures,
                tools_disabled: run.counters.tools_disabled,
                blind: run.counters.blind,
                recent_calls: run.counters.recent_calls.clone(),
                tokens_used: run.counters.tokens_used,
                budget_allowance: run.counters.budget_allowance,
            },
            taint: run.taint.clone(),
            route: run.route.clone(),
            stop_reason: run.stop_reason.map(Into::into),
            note: run.note.clone(),
            pause: run.pause.clone(),
            created_at_ms: run.created_at_ms,
            updated_at_ms: run.updated_at_ms,
        }
    }
}

impl TryFrom<StoredRun> for RunRecord {
    type Error = FormatError;

    fn try_from(run: StoredRun) -> Result<Self, FormatError> {
        Ok(RunRecord {
            id: id("id", run.id, RunId::new)?,
            thread_id: id("threadId", run.thread_id, ThreadId::new)?,
            turn_id: id("turnId", run.turn_id, TurnId::new)?,
            seq: run.seq,
            state: run.state.into(),
            resumable: run.resumable,
            input: run.input.try_into()?,
            overrides: run.overrides.map(TryInto::try_into).transpose()?,
            sibling_of: run.sibling_of.map(|raw| id("siblingOf", raw, NodeId::new)).transpose()?,
            revision: run.revision,
            model: run.model.try_into()?,
            policy: run.policy.into(),
            token_budget: run.token_budget,
            preset: run.preset.map(TryInto::try_into).transpose()?,
            steers: run
                .steers
                .into_iter()
                .map(|steer| {
                    Ok(SteerRecord {
                        node_id: id("steers.nodeId", steer.node_id, NodeId::new)?,
                        input: steer.input.try_into()?,
                    })
                })
                .collect::<Result<_, FormatError>>()?,
            tools: run.tools.into_iter().map(TryInto::try_into).collect::<Result<_, _>>()?,
            approval: match run.approval {
                Some(approval) => Some(ApprovalRecord {
                    id: id("approval.id", approval.id, ApprovalId::new)?,
                    tool_index: index("approval.toolIndex", approval.tool_index)?,
                    request: approval.request.try_into()?,
                }),
                None => None,
            },
            interaction: match run.interaction {
                Some(interaction) => Some(InteractionRecord {
                    id: id("interaction.id", interaction.id, InteractionId::new)?,
                    tool_index: index("interaction.toolIndex", interaction.tool_index)?,
                    request: interaction.request.into(),
                    mcp_resume: interaction.mcp_resume,
                }),
                None => None,
            },
            counters: LoopCounters {
                model_calls: run.counters.model_calls,
                consecutive_failures: run.counters.consecutive_failures,
                tools_disabled: run.counters.tools_disabled,
                blind: run.counters.blind,
                recent_calls: run.counters.recent_calls,
                tokens_used: run.counters.tokens_used,
                budget_allowance: run.counters.budget_allowance,
            },
            taint: run.taint,
            route: run.route,
            stop_reason: run.stop_reason.map(Into::into),
            note: run.note,
            pause: run.pause,
            created_at_ms: run.created_at_ms,
            updated_at_ms: run.updated_at_ms,
        })
    }
}

impl From<&ToolCallRecord> for StoredToolCall {
    fn from(tool: &ToolCallRecord) -> Self {
        StoredToolCall {
            node_id: tool.node_id.to_string(),
            item_id: tool.item_id.to_string(),
            call_id: tool.call_id.clone(),
            tool_name: tool.tool_name.clone(),
            params: tool.params.clone(),
            status: tool.status.into(),
            dispatches: tool.dispatches,
            approved: tool.approved,
            host_permission_asked: tool.host_permission_asked,
            target: tool.target.clone(),
            escalated_from: tool.escalated_from.clone(),
        }
    }
}

impl TryFrom<StoredToolCall> for ToolCallRecord {
    type Error = FormatError;

    fn try_from(tool: StoredToolCall) -> Result<Self, FormatError> {
        Ok(ToolCallRecord {
            node_id: id("tools.nodeId", tool.node_id, NodeId::new)?,
            item_id: id("tools.itemId", tool.item_id, ItemId::new)?,
            call_id: tool.call_id,
            tool_name: tool.tool_name,
            params: tool.params,
            status: tool.status.into(),
            dispatches: tool.dispatches,
            approved: tool.approved,
            host_permission_asked: tool.host_permission_asked,
            target: tool.target,
            escalated_from: tool.escalated_from,
        })
    }
}

/// A stored index into the run's tool calls (stored as a number wider than a wasm `usize`).
fn index(field: &'static str, raw: u64) -> Result<usize, FormatError> {
    usize::try_from(raw).map_err(|_| FormatError::TooLarge { field, value: raw })
}
