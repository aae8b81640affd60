//! Tests of the stream's rows: tool calls grouped into steps with true states, answers without
//! text left out, usage once per turn, a retry shown until the answer resumes, and the same rows
//! live and after a reload.

use panelot_protocol::EventFrame;
use panelot_protocol::ThreadId;
use panelot_protocol::decode_event;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::*;
use crate::i18n::Lang;

fn frame(mut event: Value, sequence: u64) -> EventFrame {
    event["stream"] = json!({"threadId": "t-1", "epoch": 1, "sequence": sequence});
    decode_event(event).unwrap()
}

fn view_with(items: Value) -> ThreadView {
    let mut view = ThreadView::new(ThreadId::new("t-1").unwrap());
    let meta = json!({"id": "t-1", "title": "T", "createdAtMs": 1, "updatedAtMs": 2,
        "leafId": null, "revision": 1, "stats": {"turns": 0, "totalTokens": 0, "costUsd": 0.0},
        "scopeOrigins": [], "preset": null, "parentThreadId": null, "folderId": null,
        "tags": [], "pinned": false, "archived": false, "permissionPolicy": null});
    view.apply(&frame(
        json!({"type": "thread.snapshot", "submissionId": "s", "snapshot": {"meta": meta,
            "items": items, "hasEarlier": false, "activeTurn": null, "pendingApprovals": [],
            "pendingInteractions": [], "queuedRuns": [], "recoverableRuns": []}}),
        0,
    ));
    view
}

/// Applies `events` in order, each with the next cursor.
fn play(view: &mut ThreadView, events: Vec<Value>) {
    for event in events {
        let next = view.cursor.map_or(1, |(_, sequence)| sequence + 1);
        view.apply(&frame(event, next));
    }
}

fn start(item: &str, kind: &str, tool: Option<&str>) -> Value {
    json!({"type": "item.start", "threadId": "t-1", "turnId": "turn-1", "itemId": item,
        "kind": kind, "meta": {"toolName": tool, "label": tool, "paramsSummary": null,
        "level": null}})
}

fn params(item: &str, params: Value) -> Value {
    json!({"type": "item.delta", "threadId": "t-1", "itemId": item, "delta": {"text": null,
        "reasoning": null, "toolProgress": null, "toolParams": params}})
}

fn result(outcome: &str, excerpt: Option<&str>) -> Value {
    json!({"ok": outcome == "done", "outcome": outcome, "excerpt": excerpt,
        "target": {"tabId": 3, "url": "https://devconf.example/register", "title": "Register",
        "elements": [{"role": "textbox", "name": "Full name", "password": false,
        "destination": null}]}, "details": {"elapsedMs": 12}})
}

fn complete(item: &str, node: &str, result: Option<Value>) -> Value {
    json!({"type": "item.complete", "threadId": "t-1", "itemId": item, "nodeId": node,
        "result": result})
}

fn usage(input: u64, output: u64) -> Value {
    json!({"type": "token.usage", "threadId": "t-1", "turnId": "turn-1",
        "usage": {"input": input, "output": output, "cacheRead": null, "cacheWrite": null},
        "costUsd": null})
}

/// What a row of steps says: each step's line and state.
fn lines(view: &ThreadView, key: &EntryKey) -> Vec<(String, StepStatus)> {
    match view.row(key) {
        Some(Row::Steps(steps)) => steps.iter().map(|s| (s.sentence(Lang::En), s.status)).collect(),
        other => panic!("not a row of steps: {other:?}"),
    }
}

fn live_turn() -> ThreadView {
    let mut view = view_with(json!([]));
    play(
        &mut view,
        vec![
            json!({"type": "turn.start", "threadId": "t-1", "turnId": "turn-1", "runId": "run-1",
                "turnKind": "user", "steerable": true}),
            start("a-1", "assistant_message", None),
            complete("a-1", "n-1", None),
            start("c-1", "tool_call", Some("read_page")),
            start("c-2", "tool_call", Some("type")),
            usage(100, 10),
            params("c-1", json!({})),
            params("c-2", json!({"ref": "e2", "text": "Ada Lovelace"})),
            complete("c-1", "n-2", Some(result("done", Some("textbox \"Full name\" [e2]")))),
            json!({"type": "approval.request", "threadId": "t-1", "turnId": "turn-1",
                "approvalId": "ap-1", "itemId": "c-2", "request": {"tool": "type",
                "label": "Type", "params": {"ref": "e2", "text": "Ada Lovelace"},
                "targetOrigin": "https://devconf.example", "target": null, "flags": [],
                "preview": null, "deadlineAtMs": 9, "taint": []}}),
        ],
    );
    view
}

#[test]
fn tool_calls_are_one_row_of_steps_with_true_states() {
    let mut view = live_turn();
    let first = EntryKey::Item(panelot_protocol::ItemId::new("c-1").unwrap());
    // The answer without text is no row; the two calls are one.
    assert_eq!(view.rows(), std::slice::from_ref(&first));
    assert_eq!(
        lines(&view, &first),
        [
            ("Read the page on devconf.example".to_owned(), StepStatus::Done),
            (
                "Type “Ada Lovelace” into an element on devconf.example".to_owned(),
                StepStatus::Waiting
            ),
        ]
    );
    play(
        &mut view,
        vec![
            json!({"type": "approval.resolved", "threadId": "t-1", "approvalId": "ap-1",
                "outcome": "declined"}),
            complete("c-2", "n-3", Some(result("declined", Some("The user declined.")))),
        ],
    );
    assert_eq!(
        lines(&view, &first),
        [
            ("Read the page on devconf.example".to_owned(), StepStatus::Done),
            (
                "Type “Ada Lovelace” into textbox “Full name” on devconf.example".to_owned(),
                StepStatus::Declined
            ),
        ]
    );
}

#[test]
fn a_turn_shows_its_usage_once_on_its_last_answer_when_it_ends() {
    let mut view = live_turn();
    play(
        &mut view,
        vec![
            complete("c-2", "n-3", Some(result("declined", None))),
            start("a-2", "assistant_message", None),
            json!({"type": "item.delta", "threadId": "t-1", "itemId": "a-2", "delta": {
                "text": "I did not type it.", "reasoning": null, "toolProgress": null}}),
            complete("a-2", "n-4", None),
            usage(50, 5),
        ],
    );
    let answer = EntryKey::Item(panelot_protocol::ItemId::new("a-2").unwrap());
    let usage_of = |view: &ThreadView| match view.row(&answer) {
        Some(Row::Entry(entry)) => match entry.body {
            EntryBody::Assistant { usage, .. } => usage,
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    };
    assert_eq!(usage_of(&view), None, "not while the turn runs");
    play(
        &mut view,
        vec![json!({"type": "turn.complete", "threadId": "t-1", "turnId": "turn-1",
            "stopReason": "end"})],
    );
    let total = usage_of(&view).unwrap();
    assert_eq!((total.input, total.output), (150, 15));
    assert_eq!(view.rows().len(), 2);
}

#[test]
fn a_reloaded_turn_reads_as_it_did_live() {
    let mut live = live_turn();
    play(
        &mut live,
        vec![
            json!({"type": "approval.resolved", "threadId": "t-1", "approvalId": "ap-1",
                "outcome": "declined"}),
            complete("c-2", "n-3", Some(result("declined", Some("The user declined.")))),
            json!({"type": "turn.complete", "threadId": "t-1", "turnId": "turn-1",
                "stopReason": "end"}),
        ],
    );
    let item = |node: &str, content: Value| {
        json!({"nodeId": node, "parentId": null, "turnId": "turn-1", "createdAtMs": 1,
            "branch": {"index": 1, "count": 1, "previous": null, "next": null},
            "content": content})
    };
    let reloaded = view_with(json!([
        item(
            "n-1",
            json!({"kind": "assistant_message", "text": "", "model": "m",
            "stopReason": "tool_use", "usage": {"input": 100, "output": 10, "cacheRead": null,
            "cacheWrite": null}, "costUsd": null})
        ),
        item(
            "n-2",
            json!({"kind": "tool_call", "itemId": "c-1", "toolName": "read_page",
            "label": "read_page", "params": {},
            "result": result("done", Some("textbox \"Full name\" [e2]"))})
        ),
        item(
            "n-3",
            json!({"kind": "tool_call", "itemId": "c-2", "toolName": "type",
            "label": "type", "params": {"ref": "e2", "text": "Ada Lovelace"},
            "result": result("declined", Some("The user declined."))})
        ),
    ]));
    let live_key = live.rows()[0].clone();
    let stored_key = reloaded.rows()[0].clone();
    assert_eq!(reloaded.rows().len(), 1);
    assert_eq!(lines(&live, &live_key), lines(&reloaded, &stored_key));
    let excerpts = |view: &ThreadView, key: &EntryKey| match view.row(key) {
        Some(Row::Steps(steps)) => steps.into_iter().map(|s| s.excerpt).collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    assert_eq!(excerpts(&live, &live_key), excerpts(&reloaded, &stored_key));
}

#[test]
fn a_retry_shows_until_the_answer_resumes_and_drops_what_streamed_before() {
    let mut view = view_with(json!([]));
    play(
        &mut view,
        vec![
            json!({"type": "turn.start", "threadId": "t-1", "turnId": "turn-1", "runId": "run-1",
                "turnKind": "user", "steerable": true}),
            start("a-1", "assistant_message", None),
            json!({"type": "item.delta", "threadId": "t-1", "itemId": "a-1", "delta": {
                "text": "Hal", "reasoning": null, "toolProgress": null}}),
            json!({"type": "item.complete", "threadId": "t-1", "itemId": "a-1", "nodeId": null,
                "result": null}),
            json!({"type": "turn.retrying", "threadId": "t-1", "turnId": "turn-1",
                "attempt": 2, "waitMs": 2000, "message": "Mock: the provider failed (HTTP 500)."}),
        ],
    );
    let bodies: Vec<EntryBody> = view.entries().iter().map(|e| e.body.clone()).collect();
    assert_eq!(
        bodies,
        [EntryBody::Retrying {
            attempt: 2,
            wait_ms: 2000,
            message: "Mock: the provider failed (HTTP 500).".into()
        }]
    );
    play(&mut view, vec![start("a-2", "assistant_message", None)]);
    assert!(
        !view.entries().iter().any(|e| matches!(e.body, EntryBody::Retrying { .. })),
        "{:?}",
        view.entries()
    );
    // A turn that fails for good after a retry says so once, without the retry.
    play(
        &mut view,
        vec![json!({"type": "turn.retrying", "threadId": "t-1", "turnId": "turn-1",
            "attempt": 3, "waitMs": 4000, "message": "again"})],
    );
    play(
        &mut view,
        vec![json!({"type": "error", "submissionId": null, "threadId": "t-1",
            "code": "provider_error", "message": "Mock failed.", "retryable": true,
            "errorKind": "overloaded", "providerDetails": null})],
    );
    let kinds: Vec<&str> = view
        .entries()
        .iter()
        .map(|e| match e.body {
            EntryBody::Retrying { .. } => "retrying",
            EntryBody::Error { .. } => "error",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["error"]);
}

#[test]
fn a_stored_answer_and_its_reasoning_are_two_rows_as_they_are_live() {
    // A stored answer with its reasoning: two items of node n-1. Each is a row of its own (the
    // reasoning first), as the live items are, and each row shows its own entry.
    let item = |node: &str, content: Value| {
        json!({"nodeId": node, "parentId": null, "turnId": "turn-1", "createdAtMs": 1,
            "branch": {"index": 1, "count": 1, "previous": null, "next": null},
            "content": content})
    };
    let view = view_with(json!([
        item("n-1", json!({"kind": "reasoning", "text": "Thinking."})),
        item(
            "n-1",
            json!({"kind": "assistant_message", "text": "Hello.", "model": "m",
            "stopReason": "end", "usage": null, "costUsd": null})
        ),
    ]));
    let node = panelot_protocol::NodeId::new("n-1").unwrap();
    let keys = view.rows();
    assert_eq!(keys, [EntryKey::Reasoning(node.clone()), EntryKey::Node(node)]);
    let bodies: Vec<EntryBody> = keys
        .iter()
        .map(|key| match view.row(key) {
            Some(Row::Entry(entry)) => entry.body,
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(matches!(&bodies[0], EntryBody::Reasoning { text, .. } if text == "Thinking."));
    assert!(matches!(&bodies[1], EntryBody::Assistant { text, .. } if text == "Hello."));
    assert_ne!(keys[0].text(), keys[1].text(), "each row has its own data-key");
}
