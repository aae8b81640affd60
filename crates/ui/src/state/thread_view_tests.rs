//! Tests of the thread view model: snapshot, cursor order, stream building, optimistic messages.

use panelot_protocol::decode_event;
use panelot_protocol::engine::BranchPosition;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::*;

fn thread() -> ThreadId {
    ThreadId::new("t-1").unwrap()
}

fn meta() -> Value {
    json!({"id": "t-1", "title": "Hello", "createdAtMs": 1, "updatedAtMs": 2, "leafId": null,
        "revision": 1, "stats": {"turns": 0, "totalTokens": 0, "costUsd": 0.0},
        "scopeOrigins": [], "preset": null, "parentThreadId": null, "folderId": null, "tags": [],
        "pinned": false, "archived": false, "permissionPolicy": null})
}

fn snapshot(items: Value, active_turn: Value, sequence: u64) -> EventFrame {
    frame(
        json!({"type": "thread.snapshot", "submissionId": "sub-1", "snapshot": {
        "meta": meta(), "items": items, "hasEarlier": false, "activeTurn": active_turn,
        "pendingApprovals": [],
        "pendingInteractions": [], "queuedRuns": [], "recoverableRuns": []}}),
        sequence,
    )
}

/// Decodes a live event with the cursor (epoch 1, `sequence`) through the real decoder.
fn frame(mut event: Value, sequence: u64) -> EventFrame {
    event["stream"] = json!({"threadId": "t-1", "epoch": 1, "sequence": sequence});
    decode_event(event).unwrap()
}

fn item_start(item: &str, kind: &str, sequence: u64) -> EventFrame {
    frame(
        json!({"type": "item.start", "threadId": "t-1", "turnId": "turn-1", "itemId": item,
        "kind": kind, "meta": {"toolName": "read_page", "label": "Read the page",
        "paramsSummary": "tab 3", "level": "L1"}}),
        sequence,
    )
}

fn delta(item: &str, text: &str, sequence: u64) -> EventFrame {
    frame(
        json!({"type": "item.delta", "threadId": "t-1", "itemId": item,
        "delta": {"text": text, "reasoning": null, "toolProgress": null}}),
        sequence,
    )
}

fn texts(view: &ThreadView) -> Vec<String> {
    view.entries()
        .iter()
        .map(|e| match &e.body {
            EntryBody::User { text, send_state, .. } => format!("user({send_state:?}): {text}"),
            EntryBody::Assistant { text, streaming, .. } => {
                format!("assistant(streaming={streaming}): {text}")
            }
            EntryBody::Reasoning { text, .. } => format!("reasoning: {text}"),
            EntryBody::Tool { label, params, result, .. } => {
                let params = params.as_ref().map(Value::to_string).unwrap_or_default();
                format!("tool: {label} [{params}] ok={:?}", result.as_ref().map(|r| r.ok))
            }
            EntryBody::Approval { label, .. } => format!("approval: {label}"),
            EntryBody::Notice { text } => format!("notice: {text}"),
            EntryBody::TurnNote { stop_reason } => format!("note: {stop_reason:?}"),
            EntryBody::Error { message, .. } => format!("error: {message}"),
            EntryBody::Retrying { attempt, wait_ms, .. } => {
                format!("retrying: attempt {attempt} in {wait_ms} ms")
            }
        })
        .collect()
}

fn user_item(node: &str, text: &str) -> Value {
    json!({"nodeId": node, "parentId": null, "turnId": "turn-0", "createdAtMs": 1,
        "branch": {"index": 2, "count": 3}, "content": {"kind": "user_message",
        "input": {"text": text, "attachmentIds": [], "attachedContext": [], "browserContext": null},
        "steered": false}})
}

#[test]
fn events_before_the_snapshot_and_older_than_it_are_dropped() {
    let mut view = ThreadView::new(thread());
    assert_eq!(view.apply(&item_start("i-0", "assistant_message", 1)), Applied::Stale);
    assert_eq!(
        view.apply(&snapshot(json!([user_item("n-1", "hi")]), Value::Null, 5)),
        Applied::Changed
    );
    // Sequence 5 and below are already in the snapshot.
    assert_eq!(view.apply(&item_start("i-1", "assistant_message", 4)), Applied::Stale);
    assert_eq!(view.apply(&item_start("i-1", "assistant_message", 5)), Applied::Stale);
    assert_eq!(view.apply(&item_start("i-1", "assistant_message", 6)), Applied::Changed);
    // A replayed event is dropped too.
    assert_eq!(view.apply(&item_start("i-1", "assistant_message", 6)), Applied::Stale);
    assert_eq!(texts(&view), ["user(Stored): hi", "assistant(streaming=true): "]);
    let branch = view.entries()[0].branch.clone().unwrap();
    assert_eq!((branch.index, branch.count), (2, 3));
    let _: Option<BranchPosition> = Some(branch);
}

#[test]
fn events_of_other_threads_are_ignored() {
    let mut view = ThreadView::new(ThreadId::new("t-2").unwrap());
    assert_eq!(view.apply(&snapshot(json!([]), Value::Null, 1)), Applied::Ignored);
    assert!(!view.loaded());
}

#[test]
fn a_turn_streams_reasoning_text_and_tool_cards_in_arrival_order() {
    let mut view = ThreadView::new(thread());
    view.apply(&snapshot(json!([]), Value::Null, 0));
    let events = [
        frame(
            json!({"type": "turn.start", "threadId": "t-1", "turnId": "turn-1", "runId": "run-1",
            "turnKind": "user", "steerable": true}),
            1,
        ),
        item_start("r-1", "reasoning", 2),
        frame(
            json!({"type": "item.delta", "threadId": "t-1", "itemId": "r-1",
            "delta": {"text": null, "reasoning": "thinking", "toolProgress": null}}),
            3,
        ),
        item_start("tool-1", "tool_call", 4),
        frame(
            json!({"type": "item.complete", "threadId": "t-1", "itemId": "tool-1",
            "nodeId": "n-9", "result": {"ok": true, "outcome": "done", "excerpt": null,
            "target": null, "details": null}}),
            5,
        ),
        item_start("a-1", "assistant_message", 6),
        delta("a-1", "Hel", 7),
        delta("a-1", "lo", 8),
        frame(
            json!({"type": "token.usage", "threadId": "t-1", "turnId": "turn-1",
            "usage": {"input": 10, "output": 2, "cacheRead": null, "cacheWrite": null},
            "costUsd": 0.5}),
            9,
        ),
    ];
    for event in &events {
        assert_eq!(view.apply(event), Applied::Changed, "{event:?}");
    }
    assert!(view.active_turn.as_ref().is_some_and(|t| t.steerable));
    assert_eq!(
        texts(&view),
        [
            "reasoning: thinking",
            "tool: Read the page [] ok=Some(true)",
            "assistant(streaming=true): Hello",
        ]
    );
    view.apply(&frame(
        json!({"type": "turn.complete", "threadId": "t-1", "turnId": "turn-1",
        "stopReason": "max_tokens"}),
        10,
    ));
    assert_eq!(view.active_turn, None);
    assert_eq!(texts(&view)[2..], ["assistant(streaming=false): Hello", "note: MaxTokens"]);
    let EntryBody::Assistant { usage, cost_usd, .. } = &view.entries()[2].body else { panic!() };
    assert_eq!((usage.map(|u| u.output), *cost_usd), (Some(2), Some(0.5)));
}

/// The thread's running cost: the snapshot's total, grown by each priced call announced after
/// it; unknown (not $0) while no call had a price.
#[test]
fn the_thread_s_cost_grows_with_each_priced_call() {
    let mut view = ThreadView::new(thread());
    view.apply(&snapshot(json!([]), Value::Null, 1));
    assert_eq!(view.cost_usd(), None);
    let usage = |cost: Value, sequence| {
        frame(
            json!({"type": "token.usage", "threadId": "t-1", "turnId": "turn-1",
                "usage": {"input": 10, "output": 2, "cacheRead": null, "cacheWrite": null},
                "costUsd": cost}),
            sequence,
        )
    };
    view.apply(&usage(Value::Null, 2));
    assert_eq!(view.cost_usd(), None);
    view.apply(&usage(json!(0.25), 3));
    view.apply(&usage(json!(0.125), 4));
    assert_eq!(view.cost_usd(), Some(0.375));
    assert_eq!(view.meta.as_ref().map(|m| m.stats.total_tokens), Some(36));
}

#[test]
fn a_snapshot_mid_turn_shows_the_streamed_text_so_far() {
    let mut view = ThreadView::new(thread());
    let active = json!({"turnId": "turn-1", "runId": "run-1", "turnKind": "user",
        "steerable": true, "state": "streaming_model", "wasInterrupted": false,
        "streamingItems": [{"itemId": "a-1", "kind": "assistant_message",
            "meta": {"toolName": null, "label": null, "paramsSummary": null, "level": null},
            "text": "Partial"}]});
    view.apply(&snapshot(json!([user_item("n-1", "q")]), active, 3));
    view.apply(&delta("a-1", " answer", 4));
    assert_eq!(texts(&view), ["user(Stored): q", "assistant(streaming=true): Partial answer"]);
}

#[test]
fn an_optimistic_message_is_confirmed_by_its_live_item_and_rolled_back_on_rejection() {
    let mut view = ThreadView::new(thread());
    view.apply(&snapshot(json!([]), Value::Null, 0));
    let first = SubmissionId::new("s-1").unwrap();
    let second = SubmissionId::new("s-2").unwrap();
    view.add_optimistic(first.clone(), "keep me", false);
    view.add_optimistic(second.clone(), "refused", false);
    assert_eq!(texts(&view), ["user(Sending): keep me", "user(Sending): refused"]);

    view.confirm(&first);
    assert_eq!(view.roll_back(&second), Some("refused".to_owned()));
    assert_eq!(texts(&view), ["user(Accepted): keep me"]);

    // The engine's own user item takes the optimistic entry's place instead of doubling it.
    view.apply(&item_start("u-1", "user_message", 1));
    assert_eq!(texts(&view), ["user(Stored): keep me"]);
    assert_eq!(view.entries()[0].key, EntryKey::Item(ItemId::new("u-1").unwrap()));
}

#[test]
fn a_new_snapshot_keeps_unconfirmed_messages_only() {
    let mut view = ThreadView::new(thread());
    view.apply(&snapshot(json!([]), Value::Null, 0));
    view.add_optimistic(SubmissionId::new("s-1").unwrap(), "accepted", false);
    view.confirm(&SubmissionId::new("s-1").unwrap());
    view.add_optimistic(SubmissionId::new("s-2").unwrap(), "in flight", false);
    view.apply(&snapshot(json!([user_item("n-1", "accepted")]), Value::Null, 4));
    assert_eq!(texts(&view), ["user(Stored): accepted", "user(Sending): in flight"]);
}

#[test]
fn approvals_queue_and_errors() {
    let mut view = ThreadView::new(thread());
    view.apply(&snapshot(json!([]), Value::Null, 0));
    view.apply(&frame(
        json!({"type": "approval.request", "threadId": "t-1", "turnId": "turn-1",
        "approvalId": "ap-1", "request": {"tool": "click", "label": "Click Buy",
        "params": {"ref": 3}, "targetOrigin": "https://shop.example", "flags": [],
        "preview": null, "deadlineAtMs": 99, "taint": []}}),
        1,
    ));
    assert_eq!(view.approvals.len(), 1);
    view.apply(&frame(
        json!({"type": "approval.resolved", "threadId": "t-1",
        "approvalId": "ap-1", "outcome": "accepted"}),
        2,
    ));
    assert!(view.approvals.is_empty());

    view.apply(&frame(
        json!({"type": "queue.updated", "threadId": "t-1", "pending": 1,
        "runs": [{"runId": "run-2", "input": {"text": "later", "attachmentIds": [],
        "attachedContext": [], "browserContext": null}, "overrides": null, "revision": 1}]}),
        3,
    ));
    assert_eq!(view.queue.len(), 1);

    view.apply(&frame(
        json!({"type": "error", "submissionId": null, "threadId": "t-1",
        "code": "provider_error", "message": "invalid key", "retryable": false,
        "errorKind": "auth", "providerDetails": null}),
        4,
    ));
    assert_eq!(texts(&view), ["error: invalid key"]);
}

#[test]
fn rows_find_their_entries_after_a_rollback_moves_them() {
    let mut view = ThreadView::new(thread());
    view.apply(&snapshot(json!([]), Value::Null, 0));
    let refused = SubmissionId::new("s-1").unwrap();
    view.add_optimistic(refused.clone(), "refused", false);
    view.apply(&item_start("a-1", "assistant_message", 1));
    view.roll_back(&refused);
    view.apply(&delta("a-1", "still here", 2));
    let key = EntryKey::Item(ItemId::new("a-1").unwrap());
    assert!(
        matches!(&view.entry(&key).unwrap().body, EntryBody::Assistant { text, .. } if text == "still here")
    );
    assert_eq!(view.entry(&EntryKey::Optimistic(refused)), None);
}

#[test]
fn questions_to_the_user_show_until_answered() {
    let mut view = ThreadView::new(thread());
    view.apply(&snapshot(json!([]), Value::Null, 1));
    let ask = frame(
        json!({"type": "interaction.request", "threadId": "t-1", "turnId": "turn-1",
        "interactionId": "q-1", "itemId": null, "request": {"type": "ask_user", "questions": [
        {"id": "size", "question": "Which size?", "options": [
        {"value": "m", "label": "M", "description": null}]}]}}),
        2,
    );
    assert_eq!(view.apply(&ask), Applied::Changed);
    assert_eq!(view.interactions.len(), 1);
    // A replay of the same request does not add a second card.
    view.apply(&frame(serde_json::to_value(&ask.event).unwrap(), 3));
    assert_eq!(view.interactions.len(), 1);
    let resolved = frame(
        json!({"type": "interaction.resolved", "threadId": "t-1", "interactionId": "q-1"}),
        4,
    );
    view.apply(&resolved);
    assert!(view.interactions.is_empty());
}

fn assistant_item(node: &str, text: &str) -> Value {
    json!({"nodeId": node, "parentId": null, "turnId": "turn-0", "createdAtMs": 1,
        "branch": {"index": 1, "count": 1}, "content": {"kind": "assistant_message",
        "text": text, "stopReason": "end", "usage": null, "costUsd": null, "model": null}})
}

#[test]
fn an_edit_replaces_the_branch_at_once_and_asks_for_a_snapshot_when_its_turn_completes() {
    let mut view = ThreadView::new(thread());
    let items = json!([user_item("n-1", "first"), assistant_item("n-2", "answer")]);
    view.apply(&snapshot(items, Value::Null, 1));
    let answer = EntryKey::Node(NodeId::new("n-2").unwrap());
    // Regenerating the answer resends the message that started its turn.
    assert_eq!(
        view.resend_source(&answer),
        Some(Resend {
            node_id: NodeId::new("n-1").unwrap(),
            text: "first".to_owned(),
            files: Vec::new()
        })
    );

    let sent = SubmissionId::new("s-1").unwrap();
    view.fork(&NodeId::new("n-1").unwrap(), sent, "edited");
    assert_eq!(texts(&view), ["user(Sending): edited"]);
    assert!(!view.take_refresh());

    view.apply(&item_start("u-1", "user_message", 2));
    // Another turn's end does not count; the fork's own does, once.
    view.apply(&frame(
        json!({"type": "turn.complete", "threadId": "t-1", "turnId": "turn-9", "stopReason": "end"}),
        3,
    ));
    assert!(!view.take_refresh());
    view.apply(&frame(
        json!({"type": "turn.complete", "threadId": "t-1", "turnId": "turn-1", "stopReason": "end"}),
        4,
    ));
    assert!(view.take_refresh());
    assert!(!view.take_refresh());
}

#[test]
fn a_refused_fork_asks_for_the_old_branch_back() {
    let mut view = ThreadView::new(thread());
    view.apply(&snapshot(json!([user_item("n-1", "first")]), Value::Null, 1));
    let sent = SubmissionId::new("s-1").unwrap();
    view.fork(&NodeId::new("n-1").unwrap(), sent.clone(), "edited");
    assert_eq!(view.roll_back(&sent), Some("edited".to_owned()));
    assert!(view.take_refresh());
}

#[test]
fn nothing_to_resend_before_the_message_is_stored() {
    let mut view = ThreadView::new(thread());
    view.apply(&snapshot(json!([]), Value::Null, 0));
    view.add_optimistic(SubmissionId::new("s-1").unwrap(), "hi", false);
    view.apply(&item_start("u-1", "user_message", 1));
    view.apply(&item_start("a-1", "assistant_message", 2));
    assert_eq!(view.resend_source(&EntryKey::Item(ItemId::new("a-1").unwrap())), None);
    view.apply(&frame(
        json!({"type": "item.complete", "threadId": "t-1", "itemId": "u-1", "nodeId": "n-5",
            "result": null}),
        3,
    ));
    assert_eq!(
        view.resend_source(&EntryKey::Item(ItemId::new("a-1").unwrap())),
        Some(Resend {
            node_id: NodeId::new("n-5").unwrap(),
            text: "hi".to_owned(),
            files: Vec::new()
        })
    );
}

#[test]
fn a_message_sent_from_another_page_asks_for_a_snapshot_to_show_its_text() {
    let mut view = ThreadView::new(thread());
    view.apply(&snapshot(json!([]), Value::Null, 0));
    view.apply(&item_start("u-1", "user_message", 1));
    assert!(view.take_refresh());
    view.add_optimistic(SubmissionId::new("s-1").unwrap(), "mine", false);
    view.apply(&item_start("u-2", "user_message", 2));
    assert!(!view.take_refresh(), "its own message is adopted, not refetched");
}

#[test]
fn a_queued_message_that_starts_shows_its_text_without_a_new_snapshot() {
    let mut view = ThreadView::new(thread());
    view.apply(&snapshot(json!([]), Value::Null, 0));
    view.apply(&frame(
        json!({"type": "queue.updated", "threadId": "t-1", "pending": 1,
        "runs": [{"runId": "run-2", "input": {"text": "later", "attachmentIds": [],
        "attachedContext": [], "browserContext": null}, "overrides": null, "revision": 1}]}),
        1,
    ));
    view.apply(&frame(
        json!({"type": "turn.start", "threadId": "t-1", "turnId": "turn-1", "runId": "run-2",
        "turnKind": "user", "steerable": true}),
        2,
    ));
    view.apply(&item_start("u-2", "user_message", 3));
    assert_eq!(texts(&view), ["user(Stored): later"]);
    assert!(view.queue.is_empty());
    // A reload would drop what the view shows of earlier turns (an interrupted answer's note).
    assert!(!view.take_refresh());
}

#[test]
fn a_stored_answer_that_ended_early_keeps_its_note_after_a_reload() {
    let answer = |node: &str, text: &str, stop: &str| {
        json!({"nodeId": node, "parentId": null, "turnId": "turn-0", "createdAtMs": 1,
            "branch": {"index": 1, "count": 1}, "content": {"kind": "assistant_message",
            "text": text, "model": "m", "stopReason": stop, "usage": null, "costUsd": null}})
    };
    let items = json!([
        user_item("n-1", "write a poem"),
        answer("n-2", "Roses are", "interrupted"),
        user_item("n-3", "longer"),
        answer("n-4", "Once upon", "max_tokens"),
        user_item("n-5", "thanks"),
        answer("n-6", "You are welcome.", "end")
    ]);
    let mut view = ThreadView::new(thread());
    view.apply(&snapshot(items, Value::Null, 3));
    assert_eq!(
        texts(&view),
        [
            "user(Stored): write a poem",
            "assistant(streaming=false): Roses are",
            "note: Interrupted",
            "user(Stored): longer",
            "assistant(streaming=false): Once upon",
            "note: MaxTokens",
            "user(Stored): thanks",
            "assistant(streaming=false): You are welcome.",
        ]
    );
}

#[test]
fn a_stored_turn_error_shows_as_the_live_card_did_and_can_be_retried() {
    let mut view = ThreadView::new(thread());
    let user = json!({"nodeId": "n-1", "parentId": null, "turnId": "turn-1", "createdAtMs": 1,
        "branch": {"index": 1, "count": 1, "previous": null, "next": null},
        "content": {"kind": "user_message", "input": {"text": "hi", "attachmentIds": [],
            "attachedContext": [], "browserContext": null}, "steered": false}});
    let error = json!({"nodeId": "n-2", "parentId": "n-1", "turnId": "turn-1", "createdAtMs": 2,
        "branch": {"index": 1, "count": 1, "previous": null, "next": null},
        "content": {"kind": "turn_error", "error": {"code": "provider_error",
            "message": "Work refused the key (HTTP 401): check the key.", "retryable": false,
            "errorKind": "auth", "providerDetails": {"status": 401, "requestId": null,
            "reason": "invalid_key", "upstreamCode": null, "upstreamMessage": null}}}});
    view.apply(&snapshot(json!([user, error]), Value::Null, 0));
    assert_eq!(
        texts(&view),
        ["user(Stored): hi", "error: Work refused the key (HTTP 401): check the key."]
    );
    let key = EntryKey::Node(NodeId::new("n-2").unwrap());
    let EntryBody::Error { code, retryable, provider_details, .. } =
        &view.entry(&key).unwrap().body
    else {
        panic!("an error card")
    };
    assert_eq!((*code, *retryable), (panelot_protocol::engine::ErrorCode::ProviderError, false));
    assert_eq!(provider_details.as_ref().and_then(|d| d.status), Some(401));
    let resend = view.resend_source(&key).expect("Retry sends the message again");
    assert_eq!((resend.node_id.to_string(), resend.text), ("n-1".to_owned(), "hi".to_owned()));
}

fn turn_start(sequence: u64) -> EventFrame {
    frame(
        json!({"type": "turn.start", "threadId": "t-1", "turnId": "turn-1", "runId": "r-1",
            "turnKind": "user", "steerable": true}),
        sequence,
    )
}

fn parked(state: &str, sequence: u64) -> EventFrame {
    frame(
        json!({"type": "run.recovery_required", "threadId": "t-1", "run": {"runId": "r-1",
            "state": state, "reason": "You paused it from “Shop”. Resume when you are ready.",
            "toolName": null, "toolParams": null, "options": ["continue"]}}),
        sequence,
    )
}

/// #19: a run the user paused (or its budget, or a stop it may continue from) no longer runs:
/// the engine refuses a steer into it and takes a new message as a new turn that ends it, so
/// the composer sends instead of steering, and offers no stop. A write of unknown outcome
/// holds new messages in the queue until the user decides.
#[test]
fn a_parked_run_leaves_the_composer_sending_not_steering() {
    let mut view = ThreadView::new(thread());
    view.apply(&snapshot(json!([]), Value::Null, 1));
    assert_eq!(view.composer_mode(), ComposerMode::Idle);
    view.apply(&turn_start(2));
    assert_eq!(view.composer_mode(), ComposerMode::Running);
    view.apply(&parked("paused_by_user", 3));
    assert_eq!(view.active_turn, None);
    assert_eq!(view.composer_mode(), ComposerMode::Paused);
    for (sequence, (state, mode)) in [
        ("paused_budget", ComposerMode::Paused),
        ("interrupted", ComposerMode::Paused),
        ("paused_uncertain", ComposerMode::Undecided),
    ]
    .into_iter()
    .enumerate()
    {
        view.apply(&parked(state, 4 + sequence as u64));
        assert_eq!(view.composer_mode(), mode, "{state}");
    }
}

/// #19: Resume takes the card away at once; the engine's answer asks for a snapshot, which
/// shows the run at work again (the engine sends no new `turn.start` for it). A refused choice
/// asks for one too, which brings the card back.
#[test]
fn a_recovery_choice_takes_the_card_away_and_its_answer_asks_for_a_snapshot() {
    let mut view = ThreadView::new(thread());
    view.apply(&snapshot(json!([]), Value::Null, 1));
    view.apply(&turn_start(2));
    view.apply(&parked("paused_by_user", 3));
    let resume = SubmissionId::new("s-resume").unwrap();
    view.recovering(&RunId::new("r-1").unwrap(), resume.clone());
    assert!(view.recovery.is_empty());
    assert!(!view.take_refresh());
    view.confirm(&SubmissionId::new("s-other").unwrap());
    assert!(!view.take_refresh(), "another command's answer");
    view.confirm(&resume);
    assert!(view.take_refresh());

    view.apply(&parked("paused_by_user", 4));
    let again = SubmissionId::new("s-again").unwrap();
    view.recovering(&RunId::new("r-1").unwrap(), again.clone());
    assert_eq!(view.roll_back(&again), None);
    assert!(view.take_refresh(), "refused: the snapshot brings the card back");
}

/// #19: regenerating an answer sends its message again with the message's files.
#[test]
fn a_resend_names_the_files_of_the_message() {
    let mut view = ThreadView::new(thread());
    let mut user = user_item("n-1", "see my notes");
    use panelot_protocol::engine::ContextBlock;
    use panelot_protocol::engine::ContextContent;
    use panelot_protocol::engine::ContextKind;
    let file = ContextBlock {
        kind: ContextKind::File,
        label: "notes.txt".to_owned(),
        origin: None,
        trust: panelot_protocol::engine::Trust::Trusted,
        provenance: panelot_protocol::engine::Provenance::User,
        source_ref: None,
        tab: None,
        content: ContextContent::File {
            attachment_id: panelot_protocol::AttachmentId::new("att-1").unwrap(),
            mime: "text/plain".to_owned(),
            size_bytes: 11,
        },
        approx_tokens: None,
    };
    user["content"]["input"]["attachedContext"] = json!([serde_json::to_value(file).unwrap()]);
    view.apply(&snapshot(json!([user, assistant_item("n-2", "answer")]), Value::Null, 1));
    let resend = view.resend_source(&EntryKey::Node(NodeId::new("n-2").unwrap())).unwrap();
    let files = vec![crate::state::files::FileChip {
        id: "att-1".to_owned(),
        name: "notes.txt".to_owned(),
        size_bytes: 11,
    }];
    assert_eq!(
        resend,
        Resend { node_id: NodeId::new("n-1").unwrap(), text: "see my notes".to_owned(), files }
    );
}
