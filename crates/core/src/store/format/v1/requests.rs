//! Stored forms of what a waiting run asked the user: the approval card's request (call, target,
//! flags, preview, taint) and the interactions (questions, user actions, page watches, resumes,
//! MCP forms).

use panelot_protocol::AttachmentId;
use panelot_protocol::engine::ApprovalElement;
use panelot_protocol::engine::ApprovalPreview;
use panelot_protocol::engine::ApprovalRequestPayload;
use panelot_protocol::engine::ApprovalTarget;
use panelot_protocol::engine::InteractionRequestPayload;
use panelot_protocol::engine::Question;
use panelot_protocol::engine::QuestionOption;
use panelot_protocol::engine::TaintSource;
use panelot_protocol::internally_tagged;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;

use super::codes::StoredApprovalFlag;
use super::codes::StoredProvenance;
use super::codes::StoredWatchCondition;
use crate::store::format::error::FormatError;
use crate::store::format::error::id;

/// What an approval card shows.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StoredApprovalRequest {
    tool: String,
    label: String,
    params: Value,
    target_origin: Option<String>,
    target: Option<StoredApprovalTarget>,
    flags: Vec<StoredApprovalFlag>,
    preview: Option<StoredApprovalPreview>,
    deadline_at_ms: u64,
    taint: Vec<StoredTaintSource>,
}

/// Where a call acts: on an approval's card, and with a tool call's result.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StoredApprovalTarget {
    tab_id: u32,
    url: String,
    title: String,
    elements: Vec<StoredApprovalElement>,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredApprovalElement {
    role: String,
    name: String,
    /// Written only when true; absent in records written before it was stored.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    password: bool,
    destination: Option<String>,
}

impl From<&ApprovalTarget> for StoredApprovalTarget {
    fn from(target: &ApprovalTarget) -> Self {
        StoredApprovalTarget {
            tab_id: target.tab_id,
            url: target.url.clone(),
            title: target.title.clone(),
            elements: target
                .elements
                .iter()
                .map(|element| StoredApprovalElement {
                    role: element.role.clone(),
                    name: element.name.clone(),
                    password: element.password,
                    destination: element.destination.clone(),
                })
                .collect(),
        }
    }
}

impl From<StoredApprovalTarget> for ApprovalTarget {
    fn from(target: StoredApprovalTarget) -> Self {
        ApprovalTarget {
            tab_id: target.tab_id,
            url: target.url,
            title: target.title,
            elements: target
                .elements
                .into_iter()
                .map(|element| ApprovalElement {
                    role: element.role,
                    name: element.name,
                    password: element.password,
                    destination: element.destination,
                })
                .collect(),
        }
    }
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredApprovalPreview {
    snapshot_line: Option<String>,
    screenshot_attachment_id: Option<String>,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredTaintSource {
    param: String,
    provenance: StoredProvenance,
    source: String,
}

internally_tagged! {
    #[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase")]
    /// What a run asks of the user besides approvals.
    #[derive(Serialize, Debug)]
    pub(crate) enum StoredInteractionRequest {
        AskUser {
            questions: Vec<StoredQuestion>,
        },
        RequestUserAction {
            instruction: String,
            tab_id: Option<u32>,
        },
        WatchPage {
            tab_id: Option<u32>,
            condition: StoredWatchCondition,
            value: String,
            deadline_at_ms: u64,
        },
        ScheduleResume {
            resume_at_ms: u64,
            reason: String,
        },
        McpElicitation {
            server_id: String,
            message: String,
            schema: Value,
        },
    }
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StoredQuestion {
    id: String,
    question: String,
    options: Vec<StoredQuestionOption>,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StoredQuestionOption {
    value: String,
    label: String,
    description: Option<String>,
}

impl From<&ApprovalRequestPayload> for StoredApprovalRequest {
    fn from(it: &ApprovalRequestPayload) -> Self {
        StoredApprovalRequest {
            tool: it.tool.clone(),
            label: it.label.clone(),
            params: it.params.clone(),
            target_origin: it.target_origin.clone(),
            target: it.target.as_ref().map(Into::into),
            flags: it.flags.iter().copied().map(Into::into).collect(),
            preview: it.preview.as_ref().map(|preview| StoredApprovalPreview {
                snapshot_line: preview.snapshot_line.clone(),
                screenshot_attachment_id: preview
                    .screenshot_attachment_id
                    .as_ref()
                    .map(ToString::to_string),
            }),
            deadline_at_ms: it.deadline_at_ms,
            taint: it
                .taint
                .iter()
                .map(|source| StoredTaintSource {
                    param: source.param.clone(),
                    provenance: source.provenance.into(),
                    source: source.source.clone(),
                })
                .collect(),
        }
    }
}

impl TryFrom<StoredApprovalRequest> for ApprovalRequestPayload {
    type Error = FormatError;

    fn try_from(it: StoredApprovalRequest) -> Result<Self, FormatError> {
        let preview = match it.preview {
            Some(preview) => Some(ApprovalPreview {
                snapshot_line: preview.snapshot_line,
                screenshot_attachment_id: preview
                    .screenshot_attachment_id
                    .map(|raw| id("screenshotAttachmentId", raw, AttachmentId::new))
                    .transpose()?,
            }),
            None => None,
        };
        Ok(ApprovalRequestPayload {
            tool: it.tool,
            label: it.label,
            params: it.params,
            target_origin: it.target_origin,
            target: it.target.map(Into::into),
            flags: it.flags.into_iter().map(Into::into).collect(),
            preview,
            deadline_at_ms: it.deadline_at_ms,
            taint: it
                .taint
                .into_iter()
                .map(|source| TaintSource {
                    param: source.param,
                    provenance: source.provenance.into(),
                    source: source.source,
                })
                .collect(),
        })
    }
}

impl From<&InteractionRequestPayload> for StoredInteractionRequest {
    fn from(it: &InteractionRequestPayload) -> Self {
        match it {
            InteractionRequestPayload::AskUser { questions } => StoredInteractionRequest::AskUser {
                questions: questions
                    .iter()
                    .map(|question| StoredQuestion {
                        id: question.id.clone(),
                        question: question.question.clone(),
                        options: question
                            .options
                            .iter()
                            .map(|option| StoredQuestionOption {
                                value: option.value.clone(),
                                label: option.label.clone(),
                                description: option.description.clone(),
                            })
                            .collect(),
                    })
                    .collect(),
            },
            InteractionRequestPayload::RequestUserAction { instruction, tab_id } => {
                StoredInteractionRequest::RequestUserAction {
                    instruction: instruction.clone(),
                    tab_id: *tab_id,
                }
            }
            InteractionRequestPayload::WatchPage { tab_id, condition, value, deadline_at_ms } => {
                StoredInteractionRequest::WatchPage {
                    tab_id: *tab_id,
                    condition: (*condition).into(),
                    value: value.clone(),
                    deadline_at_ms: *deadline_at_ms,
                }
            }
            InteractionRequestPayload::ScheduleResume { resume_at_ms, reason } => {
                StoredInteractionRequest::ScheduleResume {
                    resume_at_ms: *resume_at_ms,
                    reason: reason.clone(),
                }
            }
            InteractionRequestPayload::McpElicitation { server_id, message, schema } => {
                StoredInteractionRequest::McpElicitation {
                    server_id: server_id.clone(),
                    message: message.clone(),
                    schema: schema.clone(),
                }
            }
        }
    }
}

impl From<StoredInteractionRequest> for InteractionRequestPayload {
    fn from(it: StoredInteractionRequest) -> Self {
        match it {
            StoredInteractionRequest::AskUser { questions } => InteractionRequestPayload::AskUser {
                questions: questions
                    .into_iter()
                    .map(|question| Question {
                        id: question.id,
                        question: question.question,
                        options: question
                            .options
                            .into_iter()
                            .map(|option| QuestionOption {
                                value: option.value,
                                label: option.label,
                                description: option.description,
                            })
                            .collect(),
                    })
                    .collect(),
            },
            StoredInteractionRequest::RequestUserAction { instruction, tab_id } => {
                InteractionRequestPayload::RequestUserAction { instruction, tab_id }
            }
            StoredInteractionRequest::WatchPage { tab_id, condition, value, deadline_at_ms } => {
                InteractionRequestPayload::WatchPage {
                    tab_id,
                    condition: condition.into(),
                    value,
                    deadline_at_ms,
                }
            }
            StoredInteractionRequest::ScheduleResume { resume_at_ms, reason } => {
                InteractionRequestPayload::ScheduleResume { resume_at_ms, reason }
            }
            StoredInteractionRequest::McpElicitation { server_id, message, schema } => {
                InteractionRequestPayload::McpElicitation { server_id, message, schema }
            }
        }
    }
}
