//! The conformance suite every [`Store`] implementation must pass. Each backend's tests call
//! [`run_all`] with a factory of empty stores; IndexedDB runs the same cases in Chromium.

// Test support: failing loudly, and naming the case on stderr, is the point.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic, clippy::print_stderr)]

use std::future::Future;
use std::pin::pin;
use std::task::Context;
use std::task::Poll;
use std::task::Waker;

use panelot_protocol::ClientId;
use panelot_protocol::ItemId;
use panelot_protocol::NodeId;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::CallOutcome;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::ProviderDetails;
use panelot_protocol::engine::ProviderErrorKind;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::ToolLevel;
use panelot_protocol::engine::TurnErrorView;
use panelot_protocol::engine::Usage;
use panelot_protocol::engine::UserInput;
use serde_json::json;

use super::backend::Store;
use super::backend::StoreError;
use super::backend::UnitOfWork;
use super::backend::WriteOp;
use super::records::NodeBody;
use super::records::NodeRecord;
use super::records::Receipt;
use super::records::ReceiptKey;
use super::runs::RunRecord;
use super::runs::ToolCallRecord;
use super::runs::ToolCallStatus;

mod attachments;
mod builders;
pub mod samples;

pub use builders::meta;
pub use builders::node_id;
pub use builders::run;
pub use builders::text_node;
pub use builders::thread_id;

/// The cases, by name.
pub const CASES: [&str; 12] = [
    "empty store",
    "threads and nodes round trip",
    "every node body round trips",
    "integrity rules",
    "units of work are atomic",
    "parent appended in the same unit",
    "delete cascades and keeps receipts",
    "receipts and pruning",
    "settings",
    "runs: open ones in admission order, terminal ones kept out, cascade",
    "every field and variant of every record round trips",
    "attachments: kept by their thread, deleted with it, ids never reused",
];

/// Runs one case by its index in [`CASES`] against `store`, which must be empty.
pub async fn run_case<S: Store>(idx: usize, store: &S) {
    match idx {
        0 => empty_store(store).await,
        1 => threads_and_nodes_round_trip(store).await,
        2 => every_node_body_round_trips(store).await,
        3 => integrity_rules(store).await,
        4 => units_are_atomic(store).await,
        5 => parent_in_same_unit(store).await,
        6 => delete_cascades(store).await,
        7 => receipts_and_pruning(store).await,
        8 => settings(store).await,
        9 => runs(store).await,
        10 => every_record_round_trips(store).await,
        11 => attachments::attachments(store).await,
        _ => panic!("no conformance case {idx}"),
    }
}

/// Runs every case against fresh stores from `make` (a synchronous backend).
pub fn run_all<S: Store>(make: impl Fn() -> S) {
    for (idx, name) in CASES.iter().enumerate() {
        eprintln!("store conformance: {name}");
        block_on(run_case(idx, &make()));
    }
}

/// Drives a store future that never waits (synchronous backends). Panics if it does wait.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    match future.as_mut().poll(&mut cx) {
        Poll::Ready(value) => value,
        Poll::Pending => panic!("a synchronous store future must not wait"),
    }
}

async fn commit<S: Store>(store: &S, ops: Vec<WriteOp>) -> Result<(), StoreError> {
    store.commit(UnitOfWork { ops }).await
}

async fn empty_store<S: Store>(store: &S) {
    assert_eq!(store.thread(&thread_id("t")).await.unwrap(), None);
    assert!(store.threads().await.unwrap().is_empty());
    assert!(store.tree_links(&thread_id("t")).await.unwrap().is_empty());
    assert!(store.nodes(&thread_id("t"), &[node_id(1)]).await.unwrap().is_empty());
}

async fn threads_and_nodes_round_trip<S: Store>(store: &S) {
    commit(
        store,
        vec![
            WriteOp::PutThread(meta("a", 10)),
            WriteOp::PutThread(meta("b", 30)),
            WriteOp::PutThread(meta("c", 20)),
            WriteOp::AppendNode(text_node("a", 1, None)),
            WriteOp::AppendNode(text_node("a", 2, Some(1))),
            WriteOp::AppendNode(text_node("a", 5, Some(1))),
            WriteOp::AppendNode(text_node("b", 3, None)),
        ],
    )
    .await
    .unwrap();
    let order: Vec<String> =
        store.threads().await.unwrap().into_iter().map(|t| t.id.to_string()).collect();
    assert_eq!(order, ["b", "c", "a"], "most recently updated first");
    assert_eq!(store.thread(&thread_id("a")).await.unwrap(), Some(meta("a", 10)));

    let links = store.tree_links(&thread_id("a")).await.unwrap();
    let seqs: Vec<u64> = links.iter().map(|l| l.seq).collect();
    assert_eq!(seqs, [1, 2, 5]);
    assert_eq!(links[2].parent_id, Some(node_id(1)));

    // In the order asked, skipping unknown ids and ids of another thread.
    let nodes = store
        .nodes(&thread_id("a"), &[node_id(5), node_id(9), node_id(3), node_id(1)])
        .await
        .unwrap();
    assert_eq!(nodes, vec![text_node("a", 5, Some(1)), text_node("a", 1, None)]);

    let range: Vec<u64> =
        store.node_range(&thread_id("a"), 2, 9).await.unwrap().iter().map(|n| n.seq).collect();
    assert_eq!(range, [2, 5], "seq range, in order, this thread only");
    assert!(store.node_range(&thread_id("a"), 6, 9).await.unwrap().is_empty());
    assert!(store.node_range(&thread_id("a"), 5, 1).await.unwrap().is_empty());

    let mut renamed = meta("a", 40);
    renamed.title = "renamed".into();
    renamed.leaf_id = Some(node_id(5));
    commit(store, vec![WriteOp::PutThread(renamed.clone())]).await.unwrap();
    assert_eq!(store.thread(&thread_id("a")).await.unwrap(), Some(renamed));
}

async fn every_node_body_round_trips<S: Store>(store: &S) {
    let bodies = vec![
        NodeBody::TurnContext { model: "k/m".into(), permission_policy: PermissionPolicy::Auto },
        NodeBody::UserMessage {
            input: UserInput { text: "hi \u{1F600} \"quoted\"".into(), ..Default::default() },
            steered: true,
        },
        NodeBody::AssistantMessage {
            text: "answer".into(),
            reasoning: Some("because".into()),
            provider_state: vec![json!({"type": "thinking", "signature": "sig"})],
            model: "m".into(),
            stop_reason: ProviderStopReason::ToolUse,
            usage: Usage { input: 10, output: 5, cache_read: Some(4), cache_write: None },
            cost_usd: Some(0.25),
        },
        NodeBody::ToolCall {
            item_id: ItemId::new("i1").unwrap(),
            call_id: "call_1".into(),
            tool_name: "click".into(),
            label: "Click".into(),
            params: json!({"ref": "e1"}),
            level: ToolLevel::L1,
        },
        NodeBody::ToolResult {
            item_id: ItemId::new("i1").unwrap(),
            call_id: "call_1".into(),
            ok: false,
            content_for_model: "stale ref".into(),
            details: Some(json!({"code": "stale_ref"})),
            engine_note: Some("Several tool calls in a row have failed.".into()),
            source: Some("https://shop.test/cart".into()),
            outcome: CallOutcome::Failed,
            target: None,
        },
        NodeBody::ApprovalDecision { approval_id: "a1".into(), decision: "accept".into() },
        NodeBody::InteractionResponse {
            interaction_id: "q1".into(),
            response: json!({"q": [1, null]}),
        },
        NodeBody::SystemNotice { text: "notice".into() },
        NodeBody::TurnError { error: turn_error() },
        NodeBody::TurnError {
            error: TurnErrorView {
                code: ErrorCode::Internal,
                message: "The turn stopped.".into(),
                retryable: false,
                error_kind: None,
                provider_details: None,
            },
        },
    ];
    let mut ops = vec![WriteOp::PutThread(meta("t", 1))];
    let mut expected = Vec::new();
    for (i, body) in bodies.into_iter().enumerate() {
        let n = i as u64 + 1;
        let node = NodeRecord { body, ..text_node("t", n, (n > 1).then(|| n - 1)) };
        expected.push(node.clone());
        ops.push(WriteOp::AppendNode(node));
    }
    commit(store, ops).await.unwrap();
    let ids: Vec<NodeId> = expected.iter().map(|n| n.id.clone()).collect();
    assert_eq!(store.nodes(&thread_id("t"), &ids).await.unwrap(), expected);
}

async fn integrity_rules<S: Store>(store: &S) {
    commit(
        store,
        vec![
            WriteOp::PutThread(meta("a", 1)),
            WriteOp::PutThread(meta("b", 1)),
            WriteOp::AppendNode(text_node("a", 1, None)),
            WriteOp::AppendNode(text_node("b", 2, None)),
        ],
    )
    .await
    .unwrap();
    let refused = [
        ("unknown thread", text_node("zz", 10, None)),
        ("duplicate id", NodeRecord { seq: 11, ..text_node("a", 1, None) }),
        ("parent in another thread", text_node("a", 12, Some(2))),
        ("missing parent", text_node("a", 13, Some(77))),
        (
            "seq not increasing",
            NodeRecord { id: node_id(14), seq: 1, ..text_node("a", 14, Some(1)) },
        ),
    ];
    for (what, node) in refused {
        let err = commit(store, vec![WriteOp::AppendNode(node)]).await.expect_err(what);
        assert!(matches!(err, StoreError::Integrity(_)), "{what}: {err}");
    }
    assert_eq!(store.tree_links(&thread_id("a")).await.unwrap().len(), 1);
}

async fn units_are_atomic<S: Store>(store: &S) {
    commit(
        store,
        vec![WriteOp::PutThread(meta("a", 1)), WriteOp::AppendNode(text_node("a", 1, None))],
    )
    .await
    .unwrap();
    let mut renamed = meta("a", 2);
    renamed.title = "should not stick".into();
    let err = commit(
        store,
        vec![
            WriteOp::PutThread(renamed),
            WriteOp::AppendNode(text_node("a", 2, Some(1))),
            WriteOp::PutSetting { key: "k".into(), value: json!(1) },
            WriteOp::AppendNode(text_node("a", 3, Some(99))),
        ],
    )
    .await;
    assert!(err.is_err());
    assert_eq!(store.thread(&thread_id("a")).await.unwrap(), Some(meta("a", 1)));
    assert_eq!(store.tree_links(&thread_id("a")).await.unwrap().len(), 1);
    assert_eq!(store.setting("k").await.unwrap(), None);
}

async fn parent_in_same_unit<S: Store>(store: &S) {
    commit(
        store,
        vec![
            WriteOp::PutThread(meta("a", 1)),
            WriteOp::AppendNode(text_node("a", 1, None)),
            WriteOp::AppendNode(text_node("a", 2, Some(1))),
            WriteOp::AppendNode(text_node("a", 3, Some(2))),
        ],
    )
    .await
    .unwrap();
    assert_eq!(store.tree_links(&thread_id("a")).await.unwrap().len(), 3);
}

fn receipt(client: &str, submission: &str, expires_at_ms: u64) -> Receipt {
    Receipt {
        key: ReceiptKey {
            client_id: ClientId::new(client).unwrap(),
            submission_id: SubmissionId::new(submission).unwrap(),
        },
        op_type: "thread.delete".into(),
        fingerprint: "f".repeat(64),
        answer: json!({"type": "command.ack", "submissionId": submission}),
        created_at_ms: 1,
        expires_at_ms,
    }
}

async fn delete_cascades<S: Store>(store: &S) {
    commit(
        store,
        vec![
            WriteOp::PutThread(meta("a", 1)),
            WriteOp::PutThread(meta("b", 1)),
            WriteOp::AppendNode(text_node("a", 1, None)),
            WriteOp::AppendNode(text_node("a", 2, Some(1))),
            WriteOp::AppendNode(text_node("b", 3, None)),
        ],
    )
    .await
    .unwrap();
    let kept = receipt("c", "s1", 100);
    commit(store, vec![WriteOp::DeleteThread(thread_id("a")), WriteOp::PutReceipt(kept.clone())])
        .await
        .unwrap();
    assert_eq!(store.thread(&thread_id("a")).await.unwrap(), None);
    assert!(store.tree_links(&thread_id("a")).await.unwrap().is_empty());
    assert!(store.nodes(&thread_id("a"), &[node_id(1)]).await.unwrap().is_empty());
    assert_eq!(store.tree_links(&thread_id("b")).await.unwrap().len(), 1);
    assert_eq!(store.receipt(&kept.key).await.unwrap(), Some(kept));
    // The deleted ids are free again: a node id is unique only among live nodes.
    commit(
        store,
        vec![WriteOp::PutThread(meta("a", 2)), WriteOp::AppendNode(text_node("a", 1, None))],
    )
    .await
    .unwrap();
}

async fn receipts_and_pruning<S: Store>(store: &S) {
    let old = receipt("c", "old", 50);
    let fresh = receipt("c", "fresh", 500);
    let other_client = receipt("d", "old", 500);
    commit(
        store,
        vec![
            WriteOp::PutReceipt(old.clone()),
            WriteOp::PutReceipt(fresh.clone()),
            WriteOp::PutReceipt(other_client.clone()),
        ],
    )
    .await
    .unwrap();
    assert_eq!(store.receipt(&old.key).await.unwrap(), Some(old.clone()));
    commit(store, vec![WriteOp::PruneReceipts { now_ms: 100 }]).await.unwrap();
    assert_eq!(store.receipt(&old.key).await.unwrap(), None);
    assert_eq!(store.receipt(&fresh.key).await.unwrap(), Some(fresh));
    assert_eq!(store.receipt(&other_client.key).await.unwrap(), Some(other_client));
}

async fn settings<S: Store>(store: &S) {
    assert_eq!(store.setting("mode").await.unwrap(), None);
    commit(store, vec![WriteOp::PutSetting { key: "mode".into(), value: json!("auto") }])
        .await
        .unwrap();
    commit(store, vec![WriteOp::PutSetting { key: "mode".into(), value: json!({"v": [1, 2]}) }])
        .await
        .unwrap();
    assert_eq!(store.setting("mode").await.unwrap(), Some(json!({"v": [1, 2]})));
}

async fn runs<S: Store>(store: &S) {
    assert!(store.open_runs().await.unwrap().is_empty());
    // A run needs its thread.
    let orphan =
        commit(store, vec![WriteOp::PutRun(Box::new(run("r0", "a", 1, RunState::Queued)))]);
    assert!(matches!(orphan.await, Err(StoreError::Integrity(_))));
    let mut executing = run("r2", "a", 2, RunState::ExecutingTool);
    executing.tools.push(ToolCallRecord {
        node_id: node_id(7),
        item_id: ItemId::new("i7").unwrap(),
        call_id: "call_1".into(),
        tool_name: "click".into(),
        params: json!({"ref": "e1", "nested": [1, {"x": null}]}),
        status: ToolCallStatus::Dispatched,
        dispatches: 1,
        approved: false,
        host_permission_asked: false,
        escalated_from: None,
        target: Some(crate::target::ResolvedTarget {
            tab: 7,
            url: "https://shop.test/cart".into(),
            title: "Cart".into(),
            document_id: Some("doc-1".into()),
            frame_of: Some("https://shop.test/".into()),
            elements: vec![crate::target::ElementTarget {
                element_ref: "e1".into(),
                role: "link".into(),
                name: "Checkout".into(),
                password: false,
                destination: Some(crate::target::Destination {
                    url: "https://shop.test/checkout".into(),
                    kind: crate::target::DestinationKind::Link,
                }),
            }],
        }),
    });
    executing.route.opened(9);
    executing.route.snapshot_taken(9, "doc-9");
    executing.counters.recent_calls = vec!["click:{}".into()];
    let queued = run("r3", "a", 3, RunState::Queued);
    let done = run("r1", "a", 1, RunState::Completed);
    let mut user_interrupted = run("r4", "b", 4, RunState::Interrupted);
    let mut restart_interrupted = run("r5", "b", 5, RunState::Interrupted);
    restart_interrupted.resumable = true;
    user_interrupted.resumable = false;
    commit(
        store,
        vec![
            WriteOp::PutThread(meta("a", 1)),
            WriteOp::PutThread(meta("b", 1)),
            WriteOp::PutRun(Box::new(queued.clone())),
            WriteOp::PutRun(Box::new(done)),
            WriteOp::PutRun(Box::new(executing.clone())),
            WriteOp::PutRun(Box::new(user_interrupted)),
            WriteOp::PutRun(Box::new(restart_interrupted.clone())),
        ],
    )
    .await
    .unwrap();
    assert_eq!(
        store.open_runs().await.unwrap(),
        vec![executing.clone(), queued.clone(), restart_interrupted.clone()]
    );
    // Replacing a run moves it out of the open set when it ends.
    let mut finished = executing;
    finished.state = RunState::Failed;
    commit(store, vec![WriteOp::PutRun(Box::new(finished)), WriteOp::DeleteRun(queued.id)])
        .await
        .unwrap();
    assert_eq!(store.open_runs().await.unwrap(), vec![restart_interrupted.clone()]);
    commit(store, vec![WriteOp::DeleteThread(thread_id("b"))]).await.unwrap();
    assert!(store.open_runs().await.unwrap().is_empty());
}

/// The records of [`samples`], with every field set and every enum variant somewhere, read
/// back as they were written.
async fn every_record_round_trips<S: Store>(store: &S) {
    let mut ops: Vec<WriteOp> = samples::threads().into_iter().map(WriteOp::PutThread).collect();
    ops.push(WriteOp::PutThread(meta("t", 1)));
    ops.extend(samples::nodes().into_iter().map(WriteOp::AppendNode));
    ops.extend(samples::runs().into_iter().map(|run| WriteOp::PutRun(Box::new(run))));
    ops.extend(samples::receipts().into_iter().map(WriteOp::PutReceipt));
    commit(store, ops).await.unwrap();
    for meta in samples::threads() {
        assert_eq!(store.thread(&meta.id).await.unwrap(), Some(meta));
    }
    assert_eq!(store.node_range(&thread_id("t"), 0, 1 << 40).await.unwrap(), samples::nodes());
    let mut open: Vec<RunRecord> =
        samples::runs().into_iter().filter(|run| !run.is_terminal()).collect();
    open.sort_by_key(|run| run.seq);
    assert_eq!(store.open_runs().await.unwrap(), open);
    for receipt in samples::receipts() {
        assert_eq!(store.receipt(&receipt.key).await.unwrap(), Some(receipt));
    }
}

/// A realistic conversation for benchmarks: turns of user message, tool call, tool result and
/// answer, with a regenerated answer (a sibling) every ten turns. Returns the unit that writes it
/// (thread `thread` with its leaf at the last node) and the first node that has a sibling.
pub fn sample_conversation(thread: &str, n_nodes: u64) -> (UnitOfWork, u64) {
    let mut ops = vec![WriteOp::PutThread(meta(thread, 1))];
    let mut parent: Option<u64> = None;
    let mut n = 0;
    let mut branch_point = 0;
    while n < n_nodes {
        n += 1;
        ops.push(WriteOp::AppendNode(NodeRecord {
            body: sample_body(n),
            ..text_node(thread, n, parent)
        }));
        if n % 40 == 4 && n + 1 < n_nodes {
            n += 1;
            ops.push(WriteOp::AppendNode(NodeRecord {
                body: sample_body(4),
                ..text_node(thread, n, parent)
            }));
            if branch_point == 0 {
                branch_point = n;
            }
        }
        parent = Some(n);
    }
    let mut last = meta(thread, 2);
    last.leaf_id = Some(node_id(n));
    ops.push(WriteOp::PutThread(last));
    (UnitOfWork { ops }, branch_point)
}

fn sample_body(n: u64) -> NodeBody {
    match n % 4 {
        1 => NodeBody::UserMessage {
            input: UserInput {
                text: "Please check the order page and summarise it.".into(),
                ..Default::default()
            },
            steered: false,
        },
        2 => NodeBody::ToolCall {
            item_id: ItemId::new(format!("i{n}")).unwrap(),
            call_id: format!("c{n}"),
            tool_name: "click".into(),
            label: "Click".into(),
            params: json!({"ref": "e12", "element": "Submit button"}),
            level: ToolLevel::L1,
        },
        3 => NodeBody::ToolResult {
            item_id: ItemId::new(format!("i{}", n - 1)).unwrap(),
            call_id: format!("c{}", n - 1),
            ok: true,
            content_for_model: "clicked; the page now shows the order summary. ".repeat(20),
            details: Some(json!({"effect": "verified", "durationMs": 412})),
            engine_note: None,
            source: None,
            outcome: CallOutcome::Done,
            target: None,
        },
        _ => NodeBody::AssistantMessage {
            text: "Here is what I found on the page. ".repeat(30),
            reasoning: Some("The user wants the summary.".into()),
            provider_state: vec![],
            model: "m".into(),
            stop_reason: ProviderStopReason::End,
            usage: Usage { input: 1200, output: 300, cache_read: Some(1000), cache_write: None },
            cost_usd: Some(0.001),
        },
    }
}

/// A provider failure with every field set, as a turn's error card keeps it.
pub fn turn_error() -> TurnErrorView {
    TurnErrorView {
        code: ErrorCode::ProviderError,
        message: "Work (api.example.test) refused the key: HTTP 401. Check the key.".into(),
        retryable: false,
        error_kind: Some(ProviderErrorKind::Auth),
        provider_details: Some(ProviderDetails {
            status: Some(401),
            request_id: Some("req_1".into()),
            reason: Some("invalid_key".into()),
            upstream_code: Some("invalid_api_key".into()),
            upstream_message: Some("Incorrect API key provided".into()),
        }),
    }
}
