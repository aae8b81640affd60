//! Stored records with every field set and every variant of every enum they hold, paired with
//! the text earlier builds stored for them.
//!
//! The builders make the domain values; the `fixtures/v0_*.jsonl` files next to the storage
//! format hold, one per line, what the serde derives of the records wrote for exactly those
//! values before records had a format version of their own (version 0). The migration tests
//! decode each line and compare it with its builder's value, so an old record that no longer
//! reads back the same fails a test. The builders are also the table of the round-trip tests.

use panelot_protocol::ApprovalId;
use panelot_protocol::AttachmentId;
use panelot_protocol::ClientId;
use panelot_protocol::ConnectionId;
use panelot_protocol::FolderId;
use panelot_protocol::InteractionId;
use panelot_protocol::ItemId;
use panelot_protocol::ModelId;
use panelot_protocol::PresetId;
use panelot_protocol::RunId;
use panelot_protocol::SubmissionId;
use panelot_protocol::TurnId;
use panelot_protocol::engine::ApprovalElement;
use panelot_protocol::engine::ApprovalFlag;
use panelot_protocol::engine::ApprovalPreview;
use panelot_protocol::engine::ApprovalRequestPayload;
use panelot_protocol::engine::ApprovalTarget;
use panelot_protocol::engine::BrowserContext;
use panelot_protocol::engine::CallOutcome;
use panelot_protocol::engine::ContextBlock;
use panelot_protocol::engine::ContextContent;
use panelot_protocol::engine::ContextKind;
use panelot_protocol::engine::InteractionRequestPayload;
use panelot_protocol::engine::ModelChoice;
use panelot_protocol::engine::ModelPreset;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::PresetParams;
use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::Question;
use panelot_protocol::engine::QuestionOption;
use panelot_protocol::engine::ReasoningEffort;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::StopReason;
use panelot_protocol::engine::TabRef;
use panelot_protocol::engine::TaintSource;
use panelot_protocol::engine::ThreadMeta;
use panelot_protocol::engine::ThreadStats;
use panelot_protocol::engine::ToolLevel;
use panelot_protocol::engine::Trust;
use panelot_protocol::engine::TurnOverrides;
use panelot_protocol::engine::Usage;
use panelot_protocol::engine::UserInput;
use panelot_protocol::engine::WatchCondition;
use serde_json::json;

use super::builders::meta;
use super::builders::node_id;
use super::builders::run;
use super::builders::text_node;
use super::builders::thread_id;
use crate::store::records::NodeBody;
use crate::store::records::NodeRecord;
use crate::store::records::Receipt;
use crate::store::records::ReceiptKey;
use crate::store::runs::ApprovalRecord;
use crate::store::runs::InteractionRecord;
use crate::store::runs::LoopCounters;
use crate::store::runs::RunRecord;
use crate::store::runs::SteerRecord;
use crate::store::runs::ToolCallRecord;
use crate::store::runs::ToolCallStatus;
use crate::taint::TaintLedger;
use crate::target::Destination;
use crate::target::DestinationKind;
use crate::target::ElementTarget;
use crate::target::ResolvedTarget;
use crate::target::RunRoute;

/// Every run state version 0 knew, in declaration order (`paused_by_user` came with version 1).
pub const RUN_STATES: [RunState; 11] = [
    RunState::Queued,
    RunState::Preparing,
    RunState::StreamingModel,
    RunState::WaitingApproval,
    RunState::WaitingInteraction,
    RunState::ExecutingTool,
    RunState::PausedBudget,
    RunState::PausedUncertain,
    RunState::Interrupted,
    RunState::Failed,
    RunState::Completed,
];

const STOP_REASONS: [Option<StopReason>; 7] = [
    None,
    Some(StopReason::End),
    Some(StopReason::MaxTokens),
    Some(StopReason::ContentFilter),
    Some(StopReason::Interrupted),
    Some(StopReason::Error),
    Some(StopReason::BudgetPause),
];

const POLICIES: [PermissionPolicy; 3] =
    [PermissionPolicy::Always, PermissionPolicy::Untrusted, PermissionPolicy::Auto];

const TOOL_LEVELS: [ToolLevel; 5] =
    [ToolLevel::L0, ToolLevel::L1, ToolLevel::L2, ToolLevel::Mcp, ToolLevel::Builtin];

/// Stored texts of version 0, one record per line.
pub const V0_RUNS: &str = include_str!("../format/fixtures/v0_runs.jsonl");
/// Stored texts of version 0, one record per line.
pub const V0_NODES: &str = include_str!("../format/fixtures/v0_nodes.jsonl");
/// Stored texts of version 0, one record per line.
pub const V0_THREADS: &str = include_str!("../format/fixtures/v0_threads.jsonl");
/// Stored texts of version 0, one record per line.
pub const V0_RECEIPTS: &str = include_str!("../format/fixtures/v0_receipts.jsonl");

/// The runs of [`V0_RUNS`], line by line: one with every field set, then one per run state
/// that between them hold every stop reason, policy, interaction and reasoning effort.
pub fn runs() -> Vec<RunRecord> {
    let mut runs = vec![full_run()];
    for (idx, state) in RUN_STATES.into_iter().enumerate() {
        let mut record = run(&format!("r{idx}"), "t", idx as u64 + 10, state);
        record.stop_reason = STOP_REASONS[idx % STOP_REASONS.len()];
        record.policy = POLICIES[idx % POLICIES.len()];
        record.resumable = idx.is_multiple_of(2);
        record.interaction = interaction(idx).map(|request| InteractionRecord {
            id: InteractionId::new(format!("q{idx}")).unwrap(),
            tool_index: 0,
            request,
            mcp_resume: None,
        });
        record.preset = effort(idx).map(|effort| ModelPreset {
            params: PresetParams { reasoning_effort: Some(effort), ..PresetParams::default() },
            system_prompt: None,
            permission_policy: None,
            enabled_tool_levels: None,
            ..preset()
        });
        runs.push(record);
    }
    runs
}

/// The nodes of [`V0_NODES`], line by line: every body kind, every permission policy, provider
/// stop reason and tool level, and the optional fields both set and unset.
pub fn nodes() -> Vec<NodeRecord> {
    let mut bodies = Vec::new();
    for permission_policy in POLICIES {
        bodies.push(NodeBody::TurnContext { model: "conn/model".into(), permission_policy });
    }
    bodies.push(NodeBody::UserMessage { input: rich_input(), steered: true });
    bodies.push(NodeBody::UserMessage {
        input: UserInput { text: "plain".into(), ..UserInput::default() },
        steered: false,
    });
    for (idx, stop_reason) in [
        ProviderStopReason::End,
        ProviderStopReason::ToolUse,
        ProviderStopReason::MaxTokens,
        ProviderStopReason::ContentFilter,
        ProviderStopReason::Interrupted,
    ]
    .into_iter()
    .enumerate()
    {
        let full = idx == 0;
        bodies.push(NodeBody::AssistantMessage {
            text: format!("answer {idx} \u{e9}\u{1F600}"),
            reasoning: full.then(|| "thinking".into()),
            provider_state: match full {
                true => vec![json!({"type": "thinking", "signature": "sig", "n": [1, 2.5, null]})],
                false => Vec::new(),
            },
            model: "model".into(),
            stop_reason,
            usage: Usage {
                input: 1200,
                output: 300,
                cache_read: full.then_some(1000),
                cache_write: full.then_some(7),
            },
            cost_usd: full.then_some(0.0125),
        });
    }
    for (idx, level) in TOOL_LEVELS.into_iter().enumerate() {
        bodies.push(NodeBody::ToolCall {
            item_id: ItemId::new(format!("i{idx}")).unwrap(),
            call_id: format!("call_{idx}"),
            tool_name: "click".into(),
            label: "Click".into(),
            params: json!({"ref": "e1", "nested": {"list": [true, "x"]}}),
            level,
        });
    }
    bodies.push(NodeBody::ToolResult {
        item_id: ItemId::new("i1").unwrap(),
        call_id: "call_1".into(),
        ok: true,
        content_for_model: "clicked".into(),
        details: Some(json!({"effect": "verified"})),
        engine_note: Some("Several tool calls in a row have failed.".into()),
        source: Some("https://shop.test/cart".into()),
        outcome: CallOutcome::Done,
        target: None,
    });
    bodies.push(NodeBody::ToolResult {
        item_id: ItemId::new("i2").unwrap(),
        call_id: "call_2".into(),
        ok: false,
        content_for_model: "stale ref".into(),
        details: None,
        engine_note: None,
        source: None,
        outcome: CallOutcome::Failed,
        target: None,
    });
    bodies.push(NodeBody::ApprovalDecision { approval_id: "a1".into(), decision: "accept".into() });
    bodies.push(NodeBody::InteractionResponse {
        interaction_id: "q1".into(),
        response: json!({"q": [1, null, "answer"]}),
    });
    bodies.push(NodeBody::SystemNotice { text: "notice".into() });
    bodies
        .into_iter()
        .enumerate()
        .map(|(idx, body)| {
            let n = idx as u64 + 1;
            let mut node = NodeRecord { body, ..text_node("t", n, (n > 1).then(|| n - 1)) };
            if n == 2 {
                node.turn_id = None;
            }
            node
        })
        .collect()
}

/// The thread metas of [`V0_THREADS`], line by line: every field set, then the defaults.
pub fn threads() -> Vec<ThreadMeta> {
    let full = ThreadMeta {
        id: thread_id("full"),
        title: "Every \"field\" \u{2713}".into(),
        created_at_ms: 1_700_000_000_000,
        updated_at_ms: 1_700_000_000_500,
        leaf_id: Some(node_id(9)),
        revision: 12,
        stats: ThreadStats { turns: 4, total_tokens: 98_765, cost_usd: 0.125 },
        scope_origins: vec!["https://a.example".into(), "https://b.example".into()],
        preset: Some(PresetId::new("preset-1").unwrap()),
        parent_thread_id: Some(thread_id("origin")),
        folder_id: Some(FolderId::new("folder-1").unwrap()),
        tags: vec!["work".into(), "later".into()],
        pinned: true,
        archived: true,
        permission_policy: Some(PermissionPolicy::Always),
    };
    let mut untrusted = meta("b", 2);
    untrusted.permission_policy = Some(PermissionPolicy::Untrusted);
    let mut auto = meta("c", 3);
    auto.permission_policy = Some(PermissionPolicy::Auto);
    vec![full, meta("a", 1), untrusted, auto]
}

/// The receipts of [`V0_RECEIPTS`], line by line.
pub fn receipts() -> Vec<Receipt> {
    let key = |client: &str, submission: &str| ReceiptKey {
        client_id: ClientId::new(client).unwrap(),
        submission_id: SubmissionId::new(submission).unwrap(),
    };
    vec![
        Receipt {
            key: key("client-1", "sub-1"),
            op_type: "turn.submit".into(),
            fingerprint: "a".repeat(64),
            answer: json!({"type": "command.ack", "submissionId": "sub-1", "runId": "r1"}),
            created_at_ms: 1_700_000_000_000,
            expires_at_ms: 1_700_604_800_000,
        },
        Receipt {
            key: key("client-2", "sub-2"),
            op_type: "thread.delete".into(),
            fingerprint: "b".repeat(64),
            answer: json!({"type": "command.rejected", "code": "thread_not_found"}),
            created_at_ms: 5,
            expires_at_ms: 6,
        },
    ]
}

/// A run with every field set (and an approval and an interaction at once, which the engine
/// never has, so both are on record).
pub fn full_run() -> RunRecord {
    // As builds before phrase matching recorded "see https://evil.test/x and mail
    // bob@evil.test" from a page, a token from an MCP server and a user's URL.
    let taint: TaintLedger = serde_json::from_value(json!({
        "entries": [
            {"value": "https://evil.test/x", "provenance": "page", "source": "https://mail.test"},
            {"value": "evil.test", "provenance": "page", "source": "https://mail.test"},
            {"value": "bob@evil.test", "provenance": "page", "source": "https://mail.test"},
            {"value": "abcdefgh12345678", "provenance": "mcp", "source": "mcp:web"}
        ],
        "userValues": ["https://news.test", "news.test"]
    }))
    .expect("a version-0 ledger");
    let mut route = RunRoute::default();
    route.opened(9);
    route.block(4);
    route.snapshot_taken(9, "doc-9");
    route.move_to(11);
    RunRecord {
        id: RunId::new("run-full").unwrap(),
        thread_id: thread_id("t"),
        turn_id: TurnId::new("turn-full").unwrap(),
        seq: 42,
        state: RunState::WaitingApproval,
        resumable: true,
        input: rich_input(),
        overrides: Some(TurnOverrides {
            model: Some(model_choice("other", "big")),
            permission_policy: Some(PermissionPolicy::Always),
            enabled_tool_levels: Some(TOOL_LEVELS.to_vec()),
        }),
        sibling_of: Some(node_id(3)),
        revision: 3,
        model: model_choice("conn", "model"),
        policy: PermissionPolicy::Auto,
        token_budget: Some(50_000),
        preset: Some(preset()),
        steers: vec![SteerRecord {
            node_id: node_id(30),
            input: UserInput { text: "also check the price".into(), ..UserInput::default() },
        }],
        tools: vec![
            ToolCallRecord {
                node_id: node_id(31),
                item_id: ItemId::new("i31").unwrap(),
                call_id: "call_a".into(),
                tool_name: "read_page".into(),
                params: serde_json::Value::Null,
                status: ToolCallStatus::Done,
                dispatches: 1,
                approved: false,
                host_permission_asked: false,
                escalated_from: None,
                target: None,
            },
            ToolCallRecord {
                node_id: node_id(32),
                item_id: ItemId::new("i32").unwrap(),
                call_id: "call_b".into(),
                tool_name: "type".into(),
                params: json!({"ref": "e5", "text": "hunter2", "submit": true}),
                status: ToolCallStatus::Dispatched,
                dispatches: 2,
                approved: true,
                host_permission_asked: true,
                escalated_from: None,
                target: Some(ResolvedTarget {
                    tab: 9,
                    url: "https://shop.test/login".into(),
                    title: "Log in".into(),
                    document_id: Some("doc-9".into()),
                    frame_of: None,
                    elements: vec![
                        ElementTarget {
                            element_ref: "e5".into(),
                            role: "textbox".into(),
                            name: "Password".into(),
                            password: true,
                            destination: Some(Destination {
                                url: "https://shop.test/session".into(),
                                kind: DestinationKind::FormSubmit,
                            }),
                        },
                        ElementTarget {
                            element_ref: "e6".into(),
                            role: "link".into(),
                            name: "Help".into(),
                            password: false,
                            destination: Some(Destination {
                                url: "https://help.test/".into(),
                                kind: DestinationKind::Link,
                            }),
                        },
                    ],
                }),
            },
            ToolCallRecord {
                node_id: node_id(33),
                item_id: ItemId::new("i33").unwrap(),
                call_id: "call_c".into(),
                tool_name: "list_tabs".into(),
                params: json!({}),
                status: ToolCallStatus::Pending,
                dispatches: 0,
                approved: false,
                host_permission_asked: false,
                escalated_from: None,
                target: Some(ResolvedTarget {
                    tab: 2,
                    url: "chrome://settings".into(),
                    title: "Settings".into(),
                    document_id: None,
                    elements: Vec::new(),
                    frame_of: None,
                }),
            },
        ],
        approval: Some(ApprovalRecord {
            id: ApprovalId::new("ap-1").unwrap(),
            tool_index: 1,
            request: ApprovalRequestPayload {
                tool: "type".into(),
                label: "Type".into(),
                params: json!({"ref": "e5", "text": "hunter2"}),
                target_origin: Some("https://shop.test".into()),
                target: Some(ApprovalTarget {
                    tab_id: 9,
                    url: "https://shop.test/login".into(),
                    title: "Log in".into(),
                    elements: vec![
                        ApprovalElement {
                            role: "textbox".into(),
                            name: "Password".into(),
                            password: false,
                            destination: Some("https://shop.test/session".into()),
                        },
                        ApprovalElement {
                            role: "button".into(),
                            name: "Go".into(),
                            password: false,
                            destination: None,
                        },
                    ],
                }),
                flags: vec![
                    ApprovalFlag::SensitivePayload,
                    ApprovalFlag::EscalationL2,
                    ApprovalFlag::HostPermission,
                    ApprovalFlag::TaintedInput,
                    ApprovalFlag::InternationalizedHost,
                ],
                preview: Some(ApprovalPreview {
                    snapshot_line: Some("textbox \"Password\" [e5]".into()),
                    screenshot_attachment_id: Some(AttachmentId::new("shot-1").unwrap()),
                }),
                deadline_at_ms: 1_700_000_300_000,
                taint: vec![
                    TaintSource {
                        param: "text".into(),
                        provenance: Provenance::Page,
                        source: "https://mail.test".into(),
                    },
                    TaintSource {
                        param: "ref".into(),
                        provenance: Provenance::Mcp,
                        source: "mcp:web".into(),
                    },
                ],
            },
        }),
        interaction: Some(InteractionRecord {
            id: InteractionId::new("q-1").unwrap(),
            tool_index: 2,
            request: InteractionRequestPayload::AskUser {
                questions: vec![Question {
                    id: "size".into(),
                    question: "Which size?".into(),
                    options: vec![
                        QuestionOption {
                            value: "m".into(),
                            label: "Medium".into(),
                            description: Some("fits most".into()),
                        },
                        QuestionOption {
                            value: "l".into(),
                            label: "Large".into(),
                            description: None,
                        },
                    ],
                }],
            },
            mcp_resume: None,
        }),
        counters: LoopCounters {
            model_calls: 7,
            consecutive_failures: 2,
            tools_disabled: true,
            blind: false,
            recent_calls: vec!["click:{\"ref\":\"e1\"}".into(), "type:{}".into()],
            tokens_used: 123_456,
            budget_allowance: 100_000,
        },
        taint,
        route,
        stop_reason: Some(StopReason::BudgetPause),
        note: Some("paused: the token budget is spent".into()),
        pause: None,
        created_at_ms: 1_700_000_000_000,
        updated_at_ms: 1_700_000_000_999,
    }
}

/// A user message with every kind of attached context, trust and provenance.
pub fn rich_input() -> UserInput {
    let tab = |tab_id: u32| TabRef {
        tab_id,
        window_id: tab_id.is_multiple_of(2).then_some(1),
        url: format!("https://site.test/{tab_id}"),
        title: format!("Tab {tab_id}"),
    };
    let kinds = [
        (ContextKind::Page, Provenance::Page, Trust::Untrusted),
        (ContextKind::Selection, Provenance::User, Trust::Trusted),
        (ContextKind::Screenshot, Provenance::Tool, Trust::Untrusted),
        (ContextKind::Tab, Provenance::Page, Trust::Untrusted),
        (ContextKind::McpResource, Provenance::Mcp, Trust::Untrusted),
        (ContextKind::File, Provenance::Import, Trust::Trusted),
        (ContextKind::Skill, Provenance::Plugin, Trust::Trusted),
    ];
    let attached_context = kinds
        .into_iter()
        .enumerate()
        .map(|(idx, (kind, provenance, trust))| {
            let full = idx.is_multiple_of(2);
            ContextBlock {
                kind,
                label: format!("block {idx}"),
                origin: full.then(|| "https://site.test".into()),
                trust,
                provenance,
                source_ref: full.then(|| format!("https://site.test/{idx}")),
                tab: full.then(|| tab(idx as u32)),
                content: match kind {
                    ContextKind::Screenshot => ContextContent::Image {
                        mime: "image/png".into(),
                        data_base64: "iVBORw0KGgo=".into(),
                    },
                    ContextKind::Tab => ContextContent::Empty,
                    ContextKind::Page
                    | ContextKind::Selection
                    | ContextKind::McpResource
                    | ContextKind::McpPrompt
                    | ContextKind::File
                    | ContextKind::Skill => ContextContent::Text { text: format!("text {idx}") },
                },
                approx_tokens: full.then_some(120),
            }
        })
        .collect();
    UserInput {
        text: "Book the \"cheapest\" flight \u{2708}\n\tplease".into(),
        attachment_ids: vec![
            AttachmentId::new("att-1").unwrap(),
            AttachmentId::new("att-2").unwrap(),
        ],
        attached_context,
        browser_context: Some(BrowserContext {
            captured_at_ms: 1_700_000_000_000,
            default_tab: Some(tab(4)),
            referenced_tabs: vec![tab(5), tab(6)],
        }),
    }
}

fn model_choice(connection: &str, model: &str) -> ModelChoice {
    ModelChoice {
        connection_id: ConnectionId::new(connection).unwrap(),
        model_id: ModelId::new(model).unwrap(),
    }
}

fn preset() -> ModelPreset {
    ModelPreset {
        name: "Careful shopper".into(),
        model: model_choice("conn", "model"),
        system_prompt: Some("Compare prices first.".into()),
        permission_policy: Some(PermissionPolicy::Untrusted),
        enabled_tool_levels: Some(vec![ToolLevel::L0, ToolLevel::L1]),
        params: PresetParams {
            temperature: Some(0.7),
            max_tokens: Some(4096),
            reasoning_effort: Some(ReasoningEffort::High),
        },
    }
}

fn interaction(idx: usize) -> Option<InteractionRequestPayload> {
    let watch = |condition| InteractionRequestPayload::WatchPage {
        tab_id: Some(3),
        condition,
        value: "Order confirmed".into(),
        deadline_at_ms: 1_700_000_600_000,
    };
    match idx {
        1 => Some(InteractionRequestPayload::RequestUserAction {
            instruction: "Sign in, then continue.".into(),
            tab_id: Some(3),
        }),
        2 => Some(watch(WatchCondition::Text)),
        3 => Some(watch(WatchCondition::TextGone)),
        4 => Some(InteractionRequestPayload::WatchPage {
            tab_id: None,
            condition: WatchCondition::Url,
            value: "https://shop.test/done".into(),
            deadline_at_ms: 9,
        }),
        5 => Some(InteractionRequestPayload::ScheduleResume {
            resume_at_ms: 1_700_000_900_000,
            reason: "the sale starts at noon".into(),
        }),
        6 => Some(InteractionRequestPayload::McpElicitation {
            server_id: "mcp-1".into(),
            message: "Your account id?".into(),
            schema: json!({"type": "object", "properties": {"id": {"type": "string"}}}),
        }),
        7 => Some(InteractionRequestPayload::RequestUserAction {
            instruction: "Solve the captcha.".into(),
            tab_id: None,
        }),
        _ => None,
    }
}

fn effort(idx: usize) -> Option<ReasoningEffort> {
    match idx {
        8 => Some(ReasoningEffort::Low),
        9 => Some(ReasoningEffort::Medium),
        _ => None,
    }
}
