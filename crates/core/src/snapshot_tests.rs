//! Projection of stored nodes into snapshot items: kinds, tool results joined to their calls,
//! engine notes, and the budgets of a large thread.

use panelot_protocol::ItemId;
use panelot_protocol::engine::ApprovalElement;
use panelot_protocol::engine::ApprovalTarget;
use panelot_protocol::engine::CallOutcome;
use panelot_protocol::engine::ItemKind;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::ToolLevel;
use panelot_protocol::engine::Usage;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::store::MemoryStore;
use crate::store::UnitOfWork;
use crate::store::WriteOp;
use crate::store::conformance::block_on;
use crate::store::conformance::meta;
use crate::store::conformance::node_id;
use crate::store::conformance::text_node;
use crate::store::conformance::thread_id;

fn with_body(n: u64, parent: u64, body: NodeBody) -> NodeRecord {
    NodeRecord { body, ..text_node("t", n, Some(parent)) }
}

fn seeded() -> MemoryStore {
    let store = MemoryStore::new();
    let item = ItemId::new("i1").unwrap();
    let mut thread = meta("t", 1);
    thread.leaf_id = Some(node_id(5));
    let ops = vec![
        WriteOp::PutThread(thread),
        WriteOp::AppendNode(text_node("t", 1, None)),
        WriteOp::AppendNode(with_body(
            2,
            1,
            NodeBody::ToolCall {
                item_id: item.clone(),
                call_id: "c1".into(),
                tool_name: "click".into(),
                label: "Click".into(),
                params: json!({"ref": "e1"}),
                level: ToolLevel::L1,
            },
        )),
        WriteOp::AppendNode(with_body(
            3,
            2,
            NodeBody::ToolResult {
                item_id: item,
                call_id: "c1".into(),
                ok: true,
                content_for_model: "clicked".into(),
                details: Some(json!({"effect": "verified"})),
                engine_note: None,
                source: None,
                outcome: CallOutcome::Done,
                target: Some(shop_target()),
            },
        )),
        WriteOp::AppendNode(with_body(
            4,
            3,
            NodeBody::ApprovalDecision { approval_id: "a".into(), decision: "accept".into() },
        )),
        WriteOp::AppendNode(with_body(
            5,
            4,
            NodeBody::AssistantMessage {
                text: "done".into(),
                reasoning: Some("think".into()),
                provider_state: vec![],
                model: "m".into(),
                stop_reason: ProviderStopReason::End,
                usage: Usage::default(),
                cost_usd: None,
            },
        )),
        // A regenerated sibling of the user message, older branch selected.
        WriteOp::AppendNode(NodeRecord { id: node_id(6), seq: 6, ..text_node("t", 6, None) }),
    ];
    block_on(store.commit(UnitOfWork { ops })).unwrap();
    store
}

#[test]
fn projection_hides_audit_nodes_and_merges_tool_results() {
    let store = seeded();
    let view = block_on(load_thread_view(&store, &thread_id("t"))).unwrap();
    let kinds: Vec<ItemKind> = view.items.iter().map(SnapshotItem::kind).collect();
    assert_eq!(
        kinds,
        [
            ItemKind::UserMessage,
            ItemKind::ToolCall,
            ItemKind::Reasoning,
            ItemKind::AssistantMessage
        ]
    );
    let ItemContent::ToolCall { result, .. } = &view.items[1].content else { panic!() };
    assert_eq!(
        result,
        &Some(ToolResultView {
            ok: true,
            outcome: CallOutcome::Done,
            excerpt: Some("clicked".into()),
            target: Some(shop_target()),
            details: Some(json!({"effect": "verified"})),
        })
    );
    assert_eq!((view.items[0].branch.index, view.items[0].branch.count), (1, 2));
    assert_eq!(view.repaired_leaf, None);
}

#[test]
fn a_broken_leaf_is_repaired_on_load() {
    let store = seeded();
    let mut broken = meta("t", 2);
    broken.leaf_id = Some(node_id(404));
    block_on(store.commit(UnitOfWork { ops: vec![WriteOp::PutThread(broken)] })).unwrap();
    let view = block_on(load_thread_view(&store, &thread_id("t"))).unwrap();
    assert_eq!(view.meta.leaf_id, Some(node_id(6)), "highest-seq rooted leaf");
    assert!(view.repaired_leaf.is_some());
    assert_eq!(view.items.len(), 1);
}

#[test]
fn an_unknown_thread_is_not_found() {
    let err = block_on(load_thread_view(&MemoryStore::new(), &thread_id("nope"))).unwrap_err();
    assert_eq!(err, LoadError::NotFound(thread_id("nope")));
}

#[test]
fn a_sparse_path_is_read_by_id_and_still_in_order() {
    let store = seeded();
    // n7 hangs off the root after everything else: the path n1 → n7 spans seqs 1..=7.
    let mut thread = meta("t", 3);
    thread.leaf_id = Some(node_id(7));
    let ops = vec![WriteOp::AppendNode(text_node("t", 7, Some(1))), WriteOp::PutThread(thread)];
    block_on(store.commit(UnitOfWork { ops })).unwrap();
    let view = block_on(load_thread_view(&store, &thread_id("t"))).unwrap();
    let nodes: Vec<NodeId> = view.items.iter().map(|i| i.node_id.clone()).collect();
    assert_eq!(nodes, [node_id(1), node_id(7)]);
    assert_eq!((view.items[1].branch.index, view.items[1].branch.count), (2, 2));
}

fn shop_target() -> ApprovalTarget {
    ApprovalTarget {
        tab_id: 3,
        url: "https://shop.test/".into(),
        title: "Shop".into(),
        elements: vec![ApprovalElement {
            role: "link".into(),
            name: "Pricing".into(),
            password: false,
            destination: Some("https://shop.test/pricing".into()),
        }],
    }
}

fn result_body(ok: bool, content: &str, note: Option<&str>, outcome: CallOutcome) -> NodeBody {
    NodeBody::ToolResult {
        item_id: ItemId::new("i1").unwrap(),
        call_id: "c1".into(),
        ok,
        content_for_model: content.into(),
        details: None,
        engine_note: note.map(Into::into),
        source: None,
        outcome,
        target: None,
    }
}

#[test]
fn a_step_shows_what_the_tool_said_or_why_it_did_not_run() {
    let view = |body: &NodeBody| tool_result_view(body).unwrap();
    // What the tool said, without the advice the engine adds for the model.
    let read =
        view(&result_body(true, "heading \"Shop\"", Some("Stop and rethink."), CallOutcome::Done));
    assert_eq!(read.excerpt.as_deref(), Some("heading \"Shop\""));
    // A failure without the model's "Error: " prefix.
    let failed = view(&result_body(false, "Error: stale ref e4", None, CallOutcome::Failed));
    assert_eq!(failed.excerpt.as_deref(), Some("stale ref e4"));
    // A refusal says nothing itself: the engine's note says why.
    let note = "Error: Denied by the user's permissions: deny rule. Do not retry it.";
    let denied = view(&result_body(false, "", Some(note), CallOutcome::Denied));
    assert_eq!(
        denied.excerpt.as_deref(),
        Some("Denied by the user's permissions: deny rule. Do not retry it.")
    );
    assert_eq!(denied.outcome, CallOutcome::Denied);
    // What the model is told to do about it is not the user's news.
    let note =
        "Error: The user declined: not now.\n\nDo not try this call again unless the user asks.";
    let declined = view(&result_body(false, "", Some(note), CallOutcome::Declined));
    assert_eq!(declined.excerpt.as_deref(), Some("The user declined: not now."));
    assert_eq!(view(&result_body(true, "  ", None, CallOutcome::Done)).excerpt, None);
    assert_eq!(tool_result_view(&NodeBody::SystemNotice { text: "x".into() }), None);
}

#[test]
fn a_long_result_is_cut_to_the_excerpt_budget() {
    let long = "é".repeat(EXCERPT_CHARS + 10);
    let view = tool_result_view(&result_body(true, &long, None, CallOutcome::Done)).unwrap();
    let excerpt = view.excerpt.unwrap();
    assert_eq!(excerpt.chars().count(), EXCERPT_CHARS);
    assert!(excerpt.ends_with('…'));
    let exact = "a".repeat(EXCERPT_CHARS);
    let view = tool_result_view(&result_body(true, &exact, None, CallOutcome::Done)).unwrap();
    assert_eq!(view.excerpt.as_deref(), Some(exact.as_str()));
}

#[test]
fn each_result_goes_to_the_call_before_it_and_a_later_one_replaces_it() {
    let call = |n: u64, item: &str| {
        let body = NodeBody::ToolCall {
            item_id: ItemId::new(item).unwrap(),
            call_id: format!("c{n}"),
            tool_name: "click".into(),
            label: "Click".into(),
            params: json!({}),
            level: ToolLevel::L1,
        };
        with_body(n, n - 1, body)
    };
    let result = |n: u64, item: &str, said: &str| {
        let mut body = result_body(true, said, None, CallOutcome::Done);
        if let NodeBody::ToolResult { item_id, .. } = &mut body {
            *item_id = ItemId::new(item).unwrap();
        }
        with_body(n, n - 1, body)
    };
    let records = vec![
        result(1, "i0", "no call of it"),
        call(2, "i1"),
        call(3, "i2"),
        result(4, "i2", "second"),
        result(5, "i1", "first"),
        result(6, "i1", "first, again"),
        call(7, "i3"),
    ];
    let items = project(&ThreadTree::default(), records);
    let said: Vec<Option<String>> = items
        .iter()
        .map(|item| match &item.content {
            ItemContent::ToolCall { result, .. } => result.as_ref().and_then(|r| r.excerpt.clone()),
            _ => panic!("not a call: {item:?}"),
        })
        .collect();
    assert_eq!(said, [Some("first, again".to_owned()), Some("second".to_owned()), None]);
}
