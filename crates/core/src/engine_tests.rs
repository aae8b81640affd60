//! The router end to end over a memory store: handshake, thread commands, subscriptions with
//! stream cursors, receipts and their replay.

use std::rc::Rc;

use panelot_protocol::ENGINE_PROTOCOL;
use panelot_protocol::ENGINE_SCHEMA_HASH;
use panelot_protocol::EventKind;
use panelot_protocol::NodeId;
use panelot_protocol::engine::ItemContent;
use panelot_protocol::engine::StreamCursor;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::*;
use crate::env::CountingIds;
use crate::env::ManualClock;
use crate::store::MemoryStore;
use crate::store::conformance::block_on;
use crate::store::conformance::meta;
use crate::store::conformance::node_id;
use crate::store::conformance::text_node;
use crate::store::conformance::thread_id;

struct Harness {
    engine: Engine<MemoryStore>,
    clock: Rc<ManualClock>,
}

impl Harness {
    fn new() -> Self {
        let clock = Rc::new(ManualClock::at(1_000));
        let engine =
            Engine::new(MemoryStore::new(), clock.clone(), Rc::new(CountingIds::default()), 7);
        Harness { engine, clock }
    }

    fn send(&mut self, port: PortId, message: Value) -> Outbox {
        block_on(self.engine.on_text(port, &message.to_string()))
    }

    /// Connects and initializes `port` as client `c<port>`.
    fn open(&mut self, port: PortId) {
        self.engine.connect(port);
        let out = self.send(port, json!({"type": "initialize", "submissionId": format!("init-{port}"),
            "protocol": ENGINE_PROTOCOL, "schemaHash": ENGINE_SCHEMA_HASH, "clientId": format!("c{port}")}));
        assert_eq!(kinds(&out.for_port(port)), [EventKind::Initialized]);
    }

    fn create(&mut self, port: PortId, submission: &str) -> ThreadId {
        let out = self.send(port, json!({"type": "thread.create", "submissionId": submission}));
        let frames = out.for_port(port);
        let AgentEvent::CommandAck(ack) = &frames.last().unwrap().event else {
            panic!("{frames:?}")
        };
        ack.thread_id.clone().unwrap()
    }

    fn seed(&self, ops: Vec<WriteOp>) {
        block_on(self.engine.store().commit(UnitOfWork { ops })).unwrap();
    }
}

fn kinds(frames: &[&EventFrame]) -> Vec<EventKind> {
    frames.iter().map(|f| f.event.kind()).collect()
}

fn rejected_code(frames: &[&EventFrame]) -> ErrorCode {
    match &frames.last().unwrap().event {
        AgentEvent::CommandRejected(r) => r.code,
        other => panic!("not rejected: {other:?}"),
    }
}

#[test]
fn ping_is_answered_with_pong() {
    let mut h = Harness::new();
    h.open(1);
    let out = h.send(1, json!({"type": "ping", "submissionId": "p"}));
    let frames = out.for_port(1);
    assert!(
        matches!(&frames[0].event, AgentEvent::Pong(p) if p.submission_id.as_str() == "p"),
        "{frames:?}"
    );
}

#[test]
fn create_is_broadcast_acked_and_listed() {
    let mut h = Harness::new();
    h.open(1);
    h.open(2);
    let out = h.send(1, json!({"type": "thread.create", "submissionId": "c1"}));
    assert_eq!(kinds(&out.for_port(1)), [EventKind::ThreadCreated, EventKind::CommandAck]);
    assert_eq!(
        kinds(&out.for_port(2)),
        [EventKind::ThreadCreated],
        "other UIs learn of it, without the ack"
    );
    let out =
        h.send(2, json!({"type": "thread.list", "submissionId": "l1", "includeArchived": false}));
    let AgentEvent::ThreadListed(list) = &out.for_port(2)[0].event else { panic!() };
    assert_eq!(list.threads.len(), 1);
    assert_eq!(list.threads[0].meta.title, "New chat");
}

#[test]
fn commands_are_idempotent_and_conflicts_leave_the_receipt() {
    let mut h = Harness::new();
    h.open(1);
    let first = h.create(1, "same");
    // A resend after a lost ack replays the stored answer and creates nothing.
    let again = h.create(1, "same");
    assert_eq!(first, again);
    let out =
        h.send(1, json!({"type": "thread.list", "submissionId": "l", "includeArchived": true}));
    let AgentEvent::ThreadListed(list) = &out.for_port(1)[0].event else { panic!() };
    assert_eq!(list.threads.len(), 1);
    // The same id with another type or payload is refused and changes nothing.
    let out = h.send(
        1,
        json!({"type": "thread.delete", "submissionId": "same", "threadId": first.as_str()}),
    );
    assert_eq!(rejected_code(&out.for_port(1)), ErrorCode::InvalidCommand);
    let out =
        h.send(1, json!({"type": "thread.create", "submissionId": "same", "preset": "other"}));
    assert_eq!(rejected_code(&out.for_port(1)), ErrorCode::InvalidCommand);
    assert_eq!(h.create(1, "same"), first, "the original receipt still answers");
    // Another client may use the same submission id.
    h.open(2);
    assert_ne!(h.create(2, "same"), first);
}

#[test]
fn receipts_expire_after_seven_days() {
    let mut h = Harness::new();
    h.open(1);
    let first = h.create(1, "s");
    h.clock.advance(crate::store::RECEIPT_TTL_MS + 1);
    assert_ne!(h.create(1, "s"), first, "an expired receipt no longer answers");
}

#[test]
fn updates_are_validated_and_broadcast() {
    let mut h = Harness::new();
    h.open(1);
    h.open(2);
    let id = h.create(1, "c");
    let rename = |sub: &str, title: &str, rev: u64| {
        json!({"type": "thread.update", "submissionId": sub, "threadId": id.as_str(),
               "patch": {"title": title, "pinned": true}, "expectedRevision": rev})
    };
    let out = h.send(1, rename("u1", "  Groceries  ", 1));
    assert_eq!(kinds(&out.for_port(2)), [EventKind::ThreadUpdated]);
    let AgentEvent::CommandAck(ack) = &out.for_port(1)[1].event else { panic!() };
    assert_eq!(ack.revision, Some(2));
    assert_eq!(
        rejected_code(&h.send(1, rename("u2", "Stale", 1)).for_port(1)),
        ErrorCode::InvalidCommand
    );
    assert_eq!(
        rejected_code(&h.send(1, rename("u3", "   ", 2)).for_port(1)),
        ErrorCode::InvalidCommand
    );
    let leaf = json!({"type": "thread.update", "submissionId": "u4", "threadId": id.as_str(),
                      "patch": {"leafId": "n1"}});
    assert_eq!(rejected_code(&h.send(1, leaf).for_port(1)), ErrorCode::InvalidCommand);
    let stored = block_on(h.engine.store().thread(&id)).unwrap().unwrap();
    assert_eq!((stored.title.as_str(), stored.pinned, stored.revision), ("Groceries", true, 2));
}

/// n1 ─ n2 ─ n3
///    └ n4 ─ n5   (leaf n5)
fn branched(h: &Harness) -> ThreadId {
    let mut thread = meta("t", 1);
    thread.leaf_id = Some(node_id(5));
    h.seed(vec![
        WriteOp::PutThread(thread),
        WriteOp::AppendNode(text_node("t", 1, None)),
        WriteOp::AppendNode(text_node("t", 2, Some(1))),
        WriteOp::AppendNode(text_node("t", 3, Some(2))),
        WriteOp::AppendNode(text_node("t", 4, Some(1))),
        WriteOp::AppendNode(text_node("t", 5, Some(4))),
    ]);
    thread_id("t")
}

fn snapshot_nodes(frame: &EventFrame) -> Vec<NodeId> {
    let snapshot = match &frame.event {
        AgentEvent::ThreadSnapshot(s) => &s.snapshot,
        AgentEvent::Initialized(i) => i.snapshot.as_ref().unwrap(),
        other => panic!("{other:?}"),
    };
    snapshot.items.iter().map(|i| i.node_id.clone()).collect()
}

#[test]
fn initialize_can_subscribe_and_carries_the_cursor() {
    let mut h = Harness::new();
    let id = branched(&h);
    h.engine.connect(1);
    let out = h.send(
        1,
        json!({"type": "initialize", "submissionId": "i", "protocol": ENGINE_PROTOCOL,
        "schemaHash": ENGINE_SCHEMA_HASH, "clientId": "c", "subscribe": {"threadId": id.as_str()}}),
    );
    let frames = out.for_port(1);
    assert_eq!(snapshot_nodes(frames[0]), [node_id(1), node_id(4), node_id(5)]);
    assert_eq!(frames[0].stream, Some(StreamCursor { thread_id: id, epoch: 7, sequence: 0 }));
}

#[test]
fn a_subscribe_right_after_select_branch_sees_the_new_branch() {
    let mut h = Harness::new();
    let id = branched(&h);
    h.open(1);
    h.open(2);
    h.send(2, json!({"type": "thread.subscribe", "submissionId": "s0", "threadId": id.as_str()}));
    let out = h.send(1, json!({"type": "thread.selectBranch", "submissionId": "b", "threadId": id.as_str(), "nodeId": "n2"}));
    assert_eq!(kinds(&out.for_port(1)), [EventKind::ThreadUpdated, EventKind::CommandAck]);
    let update = out.for_port(2)[0];
    assert_eq!(
        update.stream.as_ref().map(|c| c.sequence),
        Some(1),
        "live events carry the thread cursor"
    );
    let out = h
        .send(1, json!({"type": "thread.subscribe", "submissionId": "s", "threadId": id.as_str()}));
    let frame = out.for_port(1)[0];
    assert_eq!(
        snapshot_nodes(frame),
        [node_id(1), node_id(2), node_id(3)],
        "deepest default descendant of n2"
    );
    assert_eq!(
        frame.stream.as_ref().map(|c| c.sequence),
        Some(2),
        "the snapshot is current at the last event"
    );
    let bad = json!({"type": "thread.selectBranch", "submissionId": "b2", "threadId": id.as_str(), "nodeId": "n99"});
    assert_eq!(rejected_code(&h.send(1, bad).for_port(1)), ErrorCode::InvalidCommand);
}

#[test]
fn fork_carries_the_path_up_to_the_node() {
    let mut h = Harness::new();
    let id = branched(&h);
    h.open(1);
    let out = h.send(1, json!({"type": "thread.fork", "submissionId": "f", "threadId": id.as_str(), "atNodeId": "n4"}));
    let frames = out.for_port(1);
    assert_eq!(kinds(&frames), [EventKind::ThreadForked, EventKind::CommandAck]);
    let AgentEvent::ThreadForked(forked) = &frames[0].event else { panic!() };
    assert_eq!(forked.thread.parent_thread_id, Some(id));
    let fork = forked.thread.id.clone();
    let out = h.send(
        1,
        json!({"type": "thread.subscribe", "submissionId": "s", "threadId": fork.as_str()}),
    );
    let AgentEvent::ThreadSnapshot(snap) = &out.for_port(1)[0].event else { panic!() };
    let texts: Vec<String> = snap
        .snapshot
        .items
        .iter()
        .map(|i| match &i.content {
            ItemContent::UserMessage { input, .. } => input.text.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(texts, ["message 1", "message 4"]);
    assert!(snap.snapshot.items.iter().all(|i| i.node_id != node_id(1)), "copies get new ids");
}

#[test]
fn delete_cascades_broadcasts_and_replays() {
    let mut h = Harness::new();
    let id = branched(&h);
    h.open(1);
    h.open(2);
    h.send(2, json!({"type": "thread.subscribe", "submissionId": "s", "threadId": id.as_str()}));
    let delete = json!({"type": "thread.delete", "submissionId": "d", "threadId": id.as_str()});
    let out = h.send(1, delete.clone());
    assert_eq!(kinds(&out.for_port(1)), [EventKind::ThreadDeleted, EventKind::CommandAck]);
    assert_eq!(kinds(&out.for_port(2)), [EventKind::ThreadDeleted]);
    assert!(block_on(h.engine.store().tree_links(&id)).unwrap().is_empty());
    // The ack was lost; the resend gets the same answer from the kept receipt.
    assert_eq!(kinds(&h.send(1, delete).for_port(1)), [EventKind::CommandAck]);
    let out = h.send(
        1,
        json!({"type": "thread.subscribe", "submissionId": "s2", "threadId": id.as_str()}),
    );
    assert_eq!(rejected_code(&out.for_port(1)), ErrorCode::ThreadNotFound);
    let other = json!({"type": "thread.delete", "submissionId": "d2", "threadId": "ghost"});
    assert_eq!(rejected_code(&h.send(1, other).for_port(1)), ErrorCode::ThreadNotFound);
}

#[test]
fn a_broken_leaf_is_repaired_with_a_notice_on_subscribe() {
    let mut h = Harness::new();
    let id = branched(&h);
    let mut broken = meta("t", 2);
    broken.leaf_id = Some(node_id(404));
    h.seed(vec![WriteOp::PutThread(broken)]);
    h.open(1);
    let out = h
        .send(1, json!({"type": "thread.subscribe", "submissionId": "s", "threadId": id.as_str()}));
    let AgentEvent::ThreadSnapshot(snap) = &out.for_port(1)[0].event else { panic!() };
    let last = snap.snapshot.items.last().unwrap();
    assert!(
        matches!(&last.content, ItemContent::SystemNotice { text } if text.contains("n404")),
        "{last:?}"
    );
    let stored = block_on(h.engine.store().thread(&id)).unwrap().unwrap();
    assert_eq!(stored.leaf_id.as_ref(), Some(&last.node_id), "the repaired cursor is persisted");
}

#[test]
fn turns_are_refused_explicitly_until_the_agent_loop_lands() {
    let mut h = Harness::new();
    h.open(1);
    let id = h.create(1, "c");
    let out = h.send(
        1,
        json!({"type": "turn.submit", "submissionId": "t", "threadId": id.as_str(),
        "input": {"text": "hello"}}),
    );
    assert_eq!(rejected_code(&out.for_port(1)), ErrorCode::NotConfigured);
    // A refusal of the moment is not the command's final word: no receipt keeps it.
    let key = crate::store::ReceiptKey {
        client_id: panelot_protocol::ClientId::new("c1").unwrap(),
        submission_id: panelot_protocol::SubmissionId::new("t").unwrap(),
    };
    assert_eq!(block_on(h.engine.store().receipt(&key)).unwrap(), None);
    // A domain refusal is: a resend gets the same answer.
    let ghost = json!({"type": "thread.delete", "submissionId": "g", "threadId": "ghost"});
    assert_eq!(rejected_code(&h.send(1, ghost).for_port(1)), ErrorCode::ThreadNotFound);
    let key = crate::store::ReceiptKey {
        submission_id: panelot_protocol::SubmissionId::new("g").unwrap(),
        ..key
    };
    assert!(block_on(h.engine.store().receipt(&key)).unwrap().is_some());
}
