//! A stored node of a thread tree and what it holds.

use panelot_protocol::ItemId;
use panelot_protocol::NodeId;
use panelot_protocol::ThreadId;
use panelot_protocol::TurnId;
use panelot_protocol::engine::CallOutcome;
use panelot_protocol::engine::ProviderDetails;
use panelot_protocol::engine::TurnErrorView;
use panelot_protocol::internally_tagged;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;

use super::codes::StoredCallOutcome;
use super::codes::StoredErrorCode;
use super::codes::StoredPolicy;
use super::codes::StoredProviderErrorKind;
use super::codes::StoredProviderStopReason;
use super::codes::StoredToolLevel;
use super::input::StoredInput;
use super::input::StoredUsage;
use super::requests::StoredApprovalTarget;
use super::version::V1;
use crate::store::format::error::FormatError;
use crate::store::format::error::id;
use crate::store::records::NodeBody;
use crate::store::records::NodeRecord;

/// A stored node of a thread tree.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StoredNode {
    v: V1,
    id: String,
    thread_id: String,
    parent_id: Option<String>,
    seq: u64,
    created_at_ms: u64,
    turn_id: Option<String>,
    body: StoredNodeBody,
}

internally_tagged! {
    #[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase")]
    #[derive(Serialize, Debug)]
    enum StoredNodeBody {
        TurnContext {
            model: String,
            permission_policy: StoredPolicy,
        },
        UserMessage {
            input: StoredInput,
            steered: bool,
        },
        AssistantMessage {
            text: String,
            reasoning: Option<String>,
            provider_state: Vec<Value>,
            model: String,
            stop_reason: StoredProviderStopReason,
            usage: StoredUsage,
            cost_usd: Option<f64>,
        },
        ToolCall {
            item_id: String,
            call_id: String,
            tool_name: String,
            label: String,
            params: Value,
            level: StoredToolLevel,
        },
        ToolResult {
            item_id: String,
            call_id: String,
            ok: bool,
            content_for_model: String,
            details: Option<Value>,
            engine_note: Option<String>,
            source: Option<String>,
            /// Written only when `ok` does not say it (done or failed), as records before it was
            /// stored are read.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            outcome: Option<StoredCallOutcome>,
            #[serde(default)]
            target: Option<StoredApprovalTarget>,
        },
        ApprovalDecision {
            approval_id: String,
            decision: String,
        },
        InteractionResponse {
            interaction_id: String,
            response: Value,
        },
        SystemNotice {
            text: String,
        },
        TurnError {
            error: StoredTurnError,
        },
    }
}

/// The outcome of a tool result whose record does not say it: done or failed, as `ok` says.
fn implied_outcome(ok: bool) -> CallOutcome {
    if ok { CallOutcome::Done } else { CallOutcome::Failed }
}

/// Why a turn failed.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredTurnError {
    code: StoredErrorCode,
    message: String,
    retryable: bool,
    error_kind: Option<StoredProviderErrorKind>,
    provider_details: Option<StoredProviderDetails>,
}

/// What a provider said about its failure, sanitised.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredProviderDetails {
    status: Option<u16>,
    request_id: Option<String>,
    reason: Option<String>,
    upstream_code: Option<String>,
    upstream_message: Option<String>,
}

impl From<&TurnErrorView> for StoredTurnError {
    fn from(it: &TurnErrorView) -> Self {
        StoredTurnError {
            code: it.code.into(),
            message: it.message.clone(),
            retryable: it.retryable,
            error_kind: it.error_kind.map(Into::into),
            provider_details: it.provider_details.as_ref().map(|d| StoredProviderDetails {
                status: d.status,
                request_id: d.request_id.clone(),
                reason: d.reason.clone(),
                upstream_code: d.upstream_code.clone(),
                upstream_message: d.upstream_message.clone(),
            }),
        }
    }
}

impl From<StoredTurnError> for TurnErrorView {
    fn from(it: StoredTurnError) -> Self {
        TurnErrorView {
            code: it.code.into(),
            message: it.message,
            retryable: it.retryable,
            error_kind: it.error_kind.map(Into::into),
            provider_details: it.provider_details.map(|d| ProviderDetails {
                status: d.status,
                request_id: d.request_id,
                reason: d.reason,
                upstream_code: d.upstream_code,
                upstream_message: d.upstream_message,
            }),
        }
    }
}

impl From<&NodeRecord> for StoredNode {
    fn from(node: &NodeRecord) -> Self {
        StoredNode {
            v: V1,
            id: node.id.to_string(),
            thread_id: node.thread_id.to_string(),
            parent_id: node.parent_id.as_ref().map(ToString::to_string),
            seq: node.seq,
            created_at_ms: node.created_at_ms,
            turn_id: node.turn_id.as_ref().map(ToString::to_string),
            body: (&node.body).into(),
        }
    }
}

impl TryFrom<StoredNode> for NodeRecord {
    type Error = FormatError;

    fn try_from(node: StoredNode) -> Result<Self, FormatError> {
        Ok(NodeRecord {
            id: id("id", node.id, NodeId::new)?,
            thread_id: id("threadId", node.thread_id, ThreadId::new)?,
            parent_id: node.parent_id.map(|raw| id("parentId", raw, NodeId::new)).transpose()?,
            seq: node.seq,
            created_at_ms: node.created_at_ms,
            turn_id: node.turn_id.map(|raw| id("turnId", raw, TurnId::new)).transpose()?,
            body: node.body.try_into()?,
        })
    }
}

impl From<&NodeBody> for StoredNodeBody {
    fn from(body: &NodeBody) -> Self {
        match body {
            NodeBody::TurnContext { model, permission_policy } => StoredNodeBody::TurnContext {
                model: model.clone(),
                permission_policy: (*permission_policy).into(),
            },
            NodeBody::UserMessage { input, steered } => {
                StoredNodeBody::UserMessage { input: input.into(), steered: *steered }
            }
            NodeBody::AssistantMessage {
                text,
                reasoning,
                provider_state,
                model,
                stop_reason,
                usage,
                cost_usd,
            } => StoredNodeBody::AssistantMessage {
                text: text.clone(),
                reasoning: reasoning.clone(),
                provider_state: provider_state.clone(),
                model: model.clone(),
                stop_reason: (*stop_reason).into(),
                usage: usage.into(),
                cost_usd: *cost_usd,
            },
            NodeBody::ToolCall { item_id, call_id, tool_name, label, params, level } => {
                StoredNodeBody::ToolCall {
                    item_id: item_id.to_string(),
                    call_id: call_id.clone(),
                    tool_name: tool_name.clone(),
                    label: label.clone(),
                    params: params.clone(),
                    level: (*level).into(),
                }
            }
            NodeBody::ToolResult {
                item_id,
                call_id,
                ok,
                content_for_model,
                details,
                engine_note,
                source,
                outcome,
                target,
            } => StoredNodeBody::ToolResult {
                item_id: item_id.to_string(),
                call_id: call_id.clone(),
                ok: *ok,
                content_for_model: content_for_model.clone(),
                details: details.clone(),
                engine_note: engine_note.clone(),
                source: source.clone(),
                outcome: (*outcome != implied_outcome(*ok)).then(|| (*outcome).into()),
                target: target.as_ref().map(Into::into),
            },
            NodeBody::ApprovalDecision { approval_id, decision } => {
                StoredNodeBody::ApprovalDecision {
                    approval_id: approval_id.clone(),
                    decision: decision.clone(),
                }
            }
            NodeBody::InteractionResponse { interaction_id, response } => {
                StoredNodeBody::InteractionResponse {
                    interaction_id: interaction_id.clone(),
                    response: response.clone(),
                }
            }
            NodeBody::SystemNotice { text } => StoredNodeBody::SystemNotice { text: text.clone() },
            NodeBody::TurnError { error } => StoredNodeBody::TurnError { error: error.into() },
        }
    }
}

impl TryFrom<StoredNodeBody> for NodeBody {
    type Error = FormatError;

    fn try_from(body: StoredNodeBody) -> Result<Self, FormatError> {
        Ok(match body {
            StoredNodeBody::TurnContext { model, permission_policy } => {
                NodeBody::TurnContext { model, permission_policy: permission_policy.into() }
            }
            StoredNodeBody::UserMessage { input, steered } => {
                NodeBody::UserMessage { input: input.try_into()?, steered }
            }
            StoredNodeBody::AssistantMessage {
                text,
                reasoning,
                provider_state,
                model,
                stop_reason,
                usage,
                cost_usd,
            } => NodeBody::AssistantMessage {
                text,
                reasoning,
                provider_state,
                model,
                stop_reason: stop_reason.into(),
                usage: usage.into(),
                cost_usd,
            },
            StoredNodeBody::ToolCall { item_id, call_id, tool_name, label, params, level } => {
                NodeBody::ToolCall {
                    item_id: id("body.itemId", item_id, ItemId::new)?,
                    call_id,
                    tool_name,
                    label,
                    params,
                    level: level.into(),
                }
            }
            StoredNodeBody::ToolResult {
                item_id,
                call_id,
                ok,
                content_for_model,
                details,
                engine_note,
                source,
                outcome,
                target,
            } => NodeBody::ToolResult {
                item_id: id("body.itemId", item_id, ItemId::new)?,
                call_id,
                ok,
                content_for_model,
                details,
                engine_note,
                source,
                outcome: outcome.map_or(implied_outcome(ok), Into::into),
                target: target.map(Into::into),
            },
            StoredNodeBody::ApprovalDecision { approval_id, decision } => {
                NodeBody::ApprovalDecision { approval_id, decision }
            }
            StoredNodeBody::InteractionResponse { interaction_id, response } => {
                NodeBody::InteractionResponse { interaction_id, response }
            }
            StoredNodeBody::SystemNotice { text } => NodeBody::SystemNotice { text },
            StoredNodeBody::TurnError { error } => NodeBody::TurnError { error: error.into() },
        })
    }
}
