//! Turns through the engine, end to end in process: scripted model, scripted tools, one port.

use panelot_protocol::AgentEvent;
use panelot_protocol::ApprovalId;
use panelot_protocol::ItemId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::CallOutcome;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::ItemContent;
use panelot_protocol::engine::ItemKind;
use panelot_protocol::engine::ProviderErrorKind;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::StopReason;
use panelot_protocol::engine::ToolLevel;
use panelot_protocol::engine::ToolResultView;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::world::Reply;
use super::world::World;
use crate::env::Clock;
use crate::model::ContentPart;
use crate::model::Message;
use crate::store::NodeBody;
use crate::store::NodeRecord;
use crate::store::Store;
use crate::store::conformance::block_on;

pub(super) fn submit(world: &mut World, thread: &ThreadId, text: &str) -> Vec<AgentEvent> {
    let id = world.submission();
    let msg = json!({"type": "turn.submit", "submissionId": id, "threadId": thread,
        "input": super::world::input(text)});
    world.send(msg).into_iter().map(|f| f.event).collect()
}

pub(super) fn acked(events: &[AgentEvent]) -> bool {
    events.iter().any(|e| matches!(e, AgentEvent::CommandAck(_)))
}

pub(super) fn rejected(events: &[AgentEvent]) -> Option<ErrorCode> {
    events.iter().find_map(|e| match e {
        AgentEvent::CommandRejected(r) => Some(r.code),
        _ => None,
    })
}

pub(super) fn stops(world: &World) -> Vec<StopReason> {
    world.events(|e| match e {
        AgentEvent::TurnComplete(c) => Some(c.stop_reason),
        _ => None,
    })
}

pub(super) fn kinds(path: &[NodeRecord]) -> Vec<&'static str> {
    path.iter()
        .map(|n| match &n.body {
            NodeBody::TurnContext { .. } => "context",
            NodeBody::UserMessage { steered: true, .. } => "steer",
            NodeBody::UserMessage { .. } => "user",
            NodeBody::AssistantMessage { .. } => "assistant",
            NodeBody::ToolCall { .. } => "call",
            NodeBody::ToolResult { ok: true, .. } => "result",
            NodeBody::ToolResult { ok: false, .. } => "error",
            NodeBody::ApprovalDecision { .. } => "decision",
            NodeBody::InteractionResponse { .. } => "answer",
            NodeBody::SystemNotice { .. } => "notice",
            NodeBody::TurnError { .. } => "failure",
        })
        .collect()
}

/// What the tool said and what the engine added, as the model reads them (without fences).
pub(super) fn results(path: &[NodeRecord]) -> Vec<String> {
    path.iter()
        .filter_map(|n| match &n.body {
            NodeBody::ToolResult { content_for_model, engine_note, .. } => Some(
                [Some(content_for_model.as_str()), engine_note.as_deref()]
                    .into_iter()
                    .flatten()
                    .filter(|text| !text.is_empty())
                    .collect::<Vec<_>>()
                    .join("\n\n"),
            ),
            _ => None,
        })
        .collect()
}

fn set_budget(world: &World, tokens: u64) {
    let op = crate::store::WriteOp::PutSetting {
        key: crate::settings::TURN_TOKEN_BUDGET.key().into(),
        value: json!(tokens),
    };
    block_on(world.store.commit(crate::store::UnitOfWork { ops: vec![op] })).unwrap();
}

#[test]
fn a_turn_streams_items_in_order_and_ends_after_its_writes() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::text("Hello there, how can I help?"));
    let events = submit(&mut world, &thread, "Say hello\nplease");
    assert!(acked(&events), "{events:?}");
    world.settle();
    // Title updates are checked below: the title call runs beside the turn; thread lists hear
    // that the thread runs, then that it stopped.
    let names: Vec<&str> = world
        .frames
        .iter()
        .map(|f| f.event.kind().wire_name())
        .filter(|k| *k != "thread.updated" && *k != "activity.updated")
        .collect();
    let running: Vec<u32> = world.events(|e| match e {
        AgentEvent::ActivityUpdated(a) => Some(a.running),
        _ => None,
    });
    assert_eq!(running, [1, 0]);
    let from = names.iter().position(|k| *k == "turn.start").unwrap();
    assert_eq!(
        &names[from..],
        [
            "turn.start",
            "item.start",
            "item.complete",
            "item.start",
            "item.delta",
            "item.complete",
            "token.usage",
            "turn.complete",
        ]
    );
    // The streamed chunks (4 characters each) reached the port merged into one delta.
    let text: Vec<String> = world.events(|e| match e {
        AgentEvent::ItemDelta(d) => d.delta.text.clone(),
        _ => None,
    });
    assert_eq!(text, ["Hello there, how can I help?"]);
    assert_eq!(stops(&world), [StopReason::End]);
    let path = world.path(&thread);
    assert_eq!(kinds(&path), ["user", "context", "assistant"]);
    // The fallback title came at once, the generated one after.
    let titles: Vec<String> = world.events(|e| match e {
        AgentEvent::ThreadUpdated(u) => u.patch.title.clone(),
        _ => None,
    });
    assert_eq!(titles, ["Say hello", "Scripted title"]);
    // Every live event of the thread carries the next cursor (a snapshot carries the current).
    let sequences: Vec<u64> = world
        .frames
        .iter()
        .filter(|f| !matches!(f.event, AgentEvent::ThreadSnapshot(_)))
        .filter_map(|f| f.stream.as_ref().map(|s| s.sequence))
        .collect();
    assert_eq!(sequences, (1..=sequences.len() as u64).collect::<Vec<_>>());
}

#[test]
fn tool_calls_run_and_their_results_go_back_to_the_model() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("Clicked it."));
    submit(&mut world, &thread, "click the button");
    world.settle();
    assert_eq!(world.executions.len(), 1);
    assert_eq!(world.executions[0].call.params, json!({"ref": "e1"}));
    let target = world.executions[0].call.target.as_ref().unwrap();
    assert_eq!(target.tab, 7, "the tab the message was sent from");
    assert_eq!(world.executions[0].acted_on.as_deref(), Some("doc-7-1"), "the judged document");
    let path = world.path(&thread);
    assert_eq!(kinds(&path), ["user", "context", "assistant", "call", "result", "assistant"]);
    // The second request replays the call and its (fenced) result.
    let second = &world.requests[1];
    let Message::Assistant(turn) = &second.messages[1] else { panic!("{second:?}") };
    assert_eq!(turn.tool_calls[0].name, "click");
    let Message::ToolResult { content, is_error: false, .. } = &second.messages[2] else {
        panic!()
    };
    let ContentPart::Text(text) = &content[0] else { panic!() };
    assert!(text.contains("click done on e1") && text.starts_with("<untrusted-content"), "{text}");
    assert_eq!(
        second.tools.len(),
        9,
        "five scripted tools (type_trusted is L2), the two questions, fetch_url and load_tools"
    );
    let completes: Vec<bool> = world.events(|e| match e {
        AgentEvent::ItemComplete(c) if c.result.is_some() => c.result.as_ref().map(|r| r.ok),
        _ => None,
    });
    assert_eq!(completes, [true]);
    assert_eq!(stops(&world), [StopReason::End]);
}

#[test]
fn bad_calls_become_error_results_without_running_anything() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::Tools(vec![
        ("click".into(), "{not json".into()),
        ("click".into(), json!({"ref": 5}).to_string()),
        ("teleport".into(), json!({}).to_string()),
    ]));
    world.script.push_back(Reply::text("I could not."));
    submit(&mut world, &thread, "go");
    world.settle();
    assert!(world.executions.is_empty());
    let results = results(&world.path(&thread));
    assert_eq!(results.len(), 3);
    assert!(results[0].contains("not a valid JSON object"), "{results:?}");
    assert!(results[1].contains("params.ref must be a string"), "{results:?}");
    assert!(results[2].contains("no tool named `teleport`"), "{results:?}");
    assert!(results[2].contains("Several tool calls in a row have failed"), "{results:?}");
}

#[test]
fn five_failures_switch_tools_off_for_one_last_answer() {
    let mut world = World::new();
    let thread = world.create_thread();
    for _ in 0..5 {
        world.script.push_back(Reply::tool("click", json!({"ref": "bad"})));
    }
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    submit(&mut world, &thread, "click");
    world.settle();
    assert_eq!(world.executions.len(), 5, "the sixth call is never run");
    assert!(world.requests[5].tools.is_empty(), "the last call offers no tools");
    assert_eq!(world.requests.len(), 6);
    let results = results(&world.path(&thread));
    assert!(results[4].contains("tools are now switched off"), "{results:?}");
    // Identical failing calls are also flagged as stuck from the third on.
    assert!(results[2].contains("this exact call 3 times in a row"), "{results:?}");
    assert!(!results[1].contains("exact call"), "{results:?}");
    assert_eq!(stops(&world), [StopReason::End]);
}

#[test]
fn a_steer_joins_before_the_next_model_call_never_between_a_call_and_its_result() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("read_page", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("Done, and noted."));
    submit(&mut world, &thread, "read");
    // Run the model call: the tool call is now dispatched and waiting.
    while !world.effects().iter().any(|e| matches!(e, crate::engine::Effect::RunTool { .. })) {
        assert!(world.step(0));
    }
    let turn = world.events(|e| match e {
        AgentEvent::TurnStart(s) => Some(s.turn_id.clone()),
        _ => None,
    })[0]
        .clone();
    let id = world.submission();
    let events = world.send(json!({"type": "turn.steer", "submissionId": id, "threadId": thread,
        "expectedTurnId": turn, "input": super::world::input("also check the footer")}));
    assert!(acked(&events.into_iter().map(|f| f.event).collect::<Vec<_>>()));
    world.settle();
    let path = world.path(&thread);
    assert_eq!(
        kinds(&path),
        ["user", "context", "assistant", "call", "result", "steer", "assistant"]
    );
    let last = world.requests.last().unwrap();
    assert!(matches!(last.messages.last(), Some(Message::User { .. })));
    // A steer for a turn that is not running is refused with the right code.
    let id = world.submission();
    let stale = world.send(json!({"type": "turn.steer", "submissionId": id, "threadId": thread,
        "expectedTurnId": turn, "input": super::world::input("late")}));
    assert_eq!(
        rejected(&stale.into_iter().map(|f| f.event).collect::<Vec<_>>()),
        Some(ErrorCode::NoActiveTurn)
    );
}

#[test]
fn messages_queue_behind_a_running_turn_up_to_eight() {
    let mut world = World::new();
    let thread = world.create_thread();
    submit(&mut world, &thread, "first");
    for n in 0..8 {
        let events = submit(&mut world, &thread, &format!("queued {n}"));
        assert!(acked(&events), "{events:?}");
    }
    let events = submit(&mut world, &thread, "one too many");
    assert_eq!(rejected(&events), Some(ErrorCode::QueueFull));
    let pending: Vec<u32> = world.events(|e| match e {
        AgentEvent::QueueUpdated(q) => Some(q.pending),
        _ => None,
    });
    assert_eq!(pending, (1..=8).collect::<Vec<_>>());
    world.settle();
    assert_eq!(stops(&world), vec![StopReason::End; 9]);
    let users: Vec<String> = world
        .path(&thread)
        .into_iter()
        .filter_map(|n| match n.body {
            NodeBody::UserMessage { input, .. } => Some(input.text),
            _ => None,
        })
        .collect();
    assert_eq!(users[0], "first");
    assert_eq!(users[8], "queued 7");
}

#[test]
fn interrupt_stops_the_running_tool_answers_its_call_and_starts_the_next_message() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("second turn"));
    submit(&mut world, &thread, "click slowly");
    submit(&mut world, &thread, "then this");
    // Run the model call and resolve the click's target; the click is dispatched, not finished.
    while !world.effects().iter().any(|e| matches!(e, crate::engine::Effect::RunTool { .. })) {
        assert!(world.step(0));
    }
    assert!(world.effects().iter().any(|e| matches!(e, crate::engine::Effect::RunTool { .. })));
    let id = world.submission();
    world.send(json!({"type": "turn.interrupt", "submissionId": id, "threadId": thread}));
    assert!(
        !world.effects().iter().any(|e| matches!(e, crate::engine::Effect::RunTool { .. })),
        "the tool was aborted"
    );
    world.settle();
    assert!(world.executions.is_empty());
    assert_eq!(stops(&world), [StopReason::Interrupted, StopReason::End]);
    let path = world.path(&thread);
    assert_eq!(
        kinds(&path),
        ["user", "context", "assistant", "call", "error", "user", "context", "assistant"]
    );
    // The next request is valid for providers: the interrupted call has its result.
    let last = world.requests.last().unwrap();
    assert!(last.messages.iter().any(|m| matches!(m, Message::ToolResult { is_error: true, .. })));
}

#[test]
fn an_interrupted_answer_keeps_what_was_streamed() {
    let mut world = World::new();
    let thread = world.create_thread();
    submit(&mut world, &thread, "write a poem");
    let call = world.effects().iter().find_map(|e| match e {
        crate::engine::Effect::CallModel { id, .. } => Some(*id),
        _ => None,
    });
    let event = crate::model::ModelEvent::TextDelta("Roses are".into());
    world.input(crate::driver::Input::ModelEvent(call.unwrap(), event));
    let id = world.submission();
    world.send(json!({"type": "turn.interrupt", "submissionId": id, "threadId": thread}));
    world.settle();
    assert_eq!(stops(&world), [StopReason::Interrupted]);
    let path = world.path(&thread);
    assert_eq!(kinds(&path), ["user", "context", "assistant"]);
    // Stored as interrupted, so a reload can say so.
    assert!(matches!(&path[2].body, NodeBody::AssistantMessage { text, stop_reason, .. }
        if text == "Roses are" && *stop_reason == ProviderStopReason::Interrupted));
    // The next call knows what the model had said.
    world.script.push_back(Reply::text("red."));
    submit(&mut world, &thread, "go on");
    world.settle();
    let last = world.requests.last().unwrap();
    assert!(format!("{:?}", last.messages).contains("Roses are"));
}

#[test]
fn without_a_model_a_turn_is_refused_and_nothing_is_written() {
    let mut world = World::new();
    let thread = world.create_thread();
    let op = crate::store::WriteOp::PutSetting {
        key: crate::settings::DEFAULT_MODEL.key().into(),
        value: Value::Null,
    };
    block_on(world.store.commit(crate::store::UnitOfWork { ops: vec![op] })).unwrap();
    let events = submit(&mut world, &thread, "hi");
    assert_eq!(rejected(&events), Some(ErrorCode::NotConfigured));
    assert!(world.store.all_runs().is_empty());
}

#[test]
fn a_resent_submit_replays_its_ack_and_admits_one_run() {
    let mut world = World::new();
    let thread = world.create_thread();
    let msg = json!({"type": "turn.submit", "submissionId": "same", "threadId": thread,
        "input": super::world::input("once")});
    let ack = |frames: Vec<panelot_protocol::EventFrame>| {
        frames.into_iter().find(|f| matches!(f.event, AgentEvent::CommandAck(_))).unwrap().event
    };
    let first = ack(world.send(msg.clone()));
    let again = ack(world.send(msg));
    assert_eq!(first, again);
    world.settle();
    assert_eq!(world.store.all_runs().len(), 1);
    // The same id with another payload is refused and changes nothing.
    let other = world.send(json!({"type": "turn.submit", "submissionId": "same",
        "threadId": thread, "input": super::world::input("twice")}));
    assert_eq!(
        rejected(&other.into_iter().map(|f| f.event).collect::<Vec<_>>()),
        Some(ErrorCode::InvalidCommand)
    );
}

#[test]
fn a_provider_failure_ends_the_turn_with_an_error_event() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::Fail(ProviderErrorKind::Auth));
    submit(&mut world, &thread, "hi");
    world.settle();
    let errors: Vec<(ErrorCode, bool)> = world.events(|e| match e {
        AgentEvent::Error(err) => Some((err.code, err.retryable)),
        _ => None,
    });
    assert_eq!(errors, [(ErrorCode::ProviderError, false)]);
    assert_eq!(stops(&world), [StopReason::Error]);
    assert!(world.store.all_runs().iter().all(|r| r.state == RunState::Failed));
}

#[test]
fn a_turn_s_error_is_kept_with_it_and_shown_after_a_restart() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::Fail(ProviderErrorKind::Auth));
    submit(&mut world, &thread, "hi");
    world.settle();
    let live: Vec<String> = world.events(|e| match e {
        AgentEvent::Error(err) => Some(err.message.clone()),
        _ => None,
    });
    assert_eq!(kinds(&world.path(&thread)), ["user", "context", "failure"]);
    world.restart();
    world.settle();
    let id = world.submission();
    let frames =
        world.send(json!({"type": "thread.subscribe", "submissionId": id, "threadId": thread}));
    let AgentEvent::ThreadSnapshot(snapshot) = &frames[0].event else { panic!("{frames:?}") };
    let items: Vec<&ItemContent> = snapshot.snapshot.items.iter().map(|i| &i.content).collect();
    let [ItemContent::UserMessage { .. }, ItemContent::TurnError { error }] = items[..] else {
        panic!("the message and its error: {items:?}")
    };
    assert_eq!(error.code, ErrorCode::ProviderError);
    assert_eq!(error.error_kind, Some(ProviderErrorKind::Auth));
    assert_eq!(live, std::slice::from_ref(&error.message), "the same words as the live card");
    // The error is not part of what the model reads next.
    submit(&mut world, &thread, "again");
    world.settle();
    let sent = world.requests.iter().map(|r| format!("{r:?}")).find(|r| r.contains("again"));
    let sent = sent.expect("the next turn calls the model");
    assert!(sent.contains("hi") && !sent.contains(&error.message), "{sent}");
}

#[test]
fn a_write_cut_by_a_restart_parks_and_runs_again_only_on_an_explicit_retry() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("done"));
    submit(&mut world, &thread, "click");
    while !world.effects().iter().any(|e| matches!(e, crate::engine::Effect::RunTool { .. })) {
        assert!(world.step(0));
    }
    // The click is dispatched; the worker dies before its result is written.
    world.restart();
    world.settle();
    let run = world.store.all_runs().pop().unwrap();
    assert_eq!(run.state, RunState::PausedUncertain);
    // The reconnecting UI gets the recovery card in its first snapshot.
    let cards: Vec<usize> = world.events(|e| match e {
        AgentEvent::Initialized(i) => i.snapshot.as_ref().map(|s| s.recoverable_runs.len()),
        _ => None,
    });
    assert_eq!(cards.last(), Some(&1));
    // The snapshot offers the card too.
    let id = world.submission();
    let snap =
        world.send(json!({"type": "thread.subscribe", "submissionId": id, "threadId": thread}));
    let AgentEvent::ThreadSnapshot(snapshot) = &snap[0].event else { panic!("{snap:?}") };
    assert_eq!(snapshot.snapshot.recoverable_runs.len(), 1);
    assert_eq!(snapshot.snapshot.recoverable_runs[0].tool_name.as_deref(), Some("click"));
    let id = world.submission();
    world.send(json!({"type": "run.resolveUncertain", "submissionId": id, "threadId": thread,
        "runId": run.id, "resolution": "retry"}));
    world.settle();
    assert_eq!(world.executions.len(), 1, "the retry is the only run after the crash");
    assert_eq!(world.executions[0].call.dispatch, 2, "and it knows it is a second dispatch");
    assert_eq!(stops(&world), [StopReason::End]);
}

#[test]
fn a_read_cut_by_a_restart_is_replayed() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("read_page", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("read it"));
    submit(&mut world, &thread, "read");
    world.step(0);
    world.step(0);
    world.restart();
    world.settle();
    assert_eq!(world.executions.len(), 1);
    assert_eq!(stops(&world), [StopReason::End]);
    assert_eq!(
        kinds(&world.path(&thread)),
        ["user", "context", "assistant", "call", "result", "assistant"]
    );
}

#[test]
fn a_stream_cut_by_a_restart_is_interrupted_and_resumes_on_request() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::text("after the restart"));
    submit(&mut world, &thread, "write a poem");
    // The model call is out; the worker dies before it ends.
    world.restart();
    let run = world.store.all_runs().pop().unwrap();
    assert_eq!((run.state, run.resumable), (RunState::Interrupted, true));
    let id = world.submission();
    let events = world.send(json!({"type": "run.resume", "submissionId": id, "threadId": thread,
        "runId": run.id}));
    assert!(acked(&events.into_iter().map(|f| f.event).collect::<Vec<_>>()));
    world.settle();
    assert_eq!(stops(&world), [StopReason::End]);
    assert_eq!(kinds(&world.path(&thread)), ["user", "context", "assistant"]);
}

/// The users' messages on the thread's path, in order.
fn user_texts(world: &World, thread: &ThreadId) -> Vec<String> {
    world
        .path(thread)
        .into_iter()
        .filter_map(|n| match n.body {
            NodeBody::UserMessage { input, .. } => Some(input.text),
            _ => None,
        })
        .collect()
}

#[test]
fn a_message_queued_behind_a_turn_a_restart_cut_waits_for_it_and_runs_as_its_own_turn() {
    // The worker died while the model was still naming the turn's read (the UI had seen the
    // call start and queued a message): the cut turn is offered to continue, and the message
    // queued behind it neither closes it nor joins it.
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("read_page", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("read it"));
    world.script.push_back(Reply::text("queued answer"));
    submit(&mut world, &thread, "read");
    let id = world.submission();
    let queued = world.send(json!({"type": "turn.enqueue", "submissionId": id,
        "threadId": thread, "input": super::world::input("and then this")}));
    assert!(acked(&queued.into_iter().map(|f| f.event).collect::<Vec<_>>()));
    world.restart();
    world.settle();
    assert!(world.requests.is_empty(), "nothing runs before the user decides");
    let id = world.submission();
    let snap =
        world.send(json!({"type": "thread.subscribe", "submissionId": id, "threadId": thread}));
    let AgentEvent::ThreadSnapshot(snapshot) = &snap[0].event else { panic!("{snap:?}") };
    let snapshot = &snapshot.snapshot;
    assert_eq!(snapshot.recoverable_runs.len(), 1, "{snapshot:#?}");
    assert_eq!(snapshot.recoverable_runs[0].state, RunState::Interrupted);
    let queue: Vec<&str> = snapshot.queued_runs.iter().map(|q| q.input.text.as_str()).collect();
    assert_eq!(queue, ["and then this"]);
    assert_eq!(user_texts(&world, &thread), ["read"]);
    // The user continues the cut turn: it reads and answers, then the queued message runs.
    let run = snapshot.recoverable_runs[0].run_id.clone();
    let id = world.submission();
    world.send(json!({"type": "run.resume", "submissionId": id, "threadId": thread,
        "runId": run}));
    world.settle();
    assert_eq!(stops(&world), [StopReason::End, StopReason::End]);
    assert_eq!(world.executions.len(), 1);
    assert_eq!(
        kinds(&world.path(&thread)),
        [
            "user",
            "context",
            "assistant",
            "call",
            "result",
            "assistant",
            "user",
            "context",
            "assistant"
        ]
    );
    assert_eq!(user_texts(&world, &thread), ["read", "and then this"]);
    let asked: Vec<bool> =
        world.requests.iter().map(|r| format!("{r:?}").contains("and then this")).collect();
    assert_eq!(asked, [false, false, true], "only the queued turn's call carries the message");
}

#[test]
fn a_new_message_ends_a_cut_turn_in_its_own_unit_and_starts_even_if_the_worker_dies_next() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::text("the new answer"));
    submit(&mut world, &thread, "write a poem");
    world.restart();
    let run = world.store.all_runs().pop().unwrap();
    assert_eq!((run.state, run.resumable), (RunState::Interrupted, true));
    // The user moves on: the message is admitted, and the worker dies before it starts.
    world.crash_at_commit(1);
    let events = submit(&mut world, &thread, "something else");
    assert!(acked(&events), "{events:?}");
    assert!(world.crashed());
    world.restart();
    world.settle();
    let runs = world.store.all_runs();
    let states: Vec<(RunState, bool)> = runs.iter().map(|r| (r.state, r.resumable)).collect();
    assert_eq!(states, [(RunState::Interrupted, false), (RunState::Completed, false)]);
    assert_eq!(user_texts(&world, &thread), ["write a poem", "something else"]);
    assert_eq!(world.requests.len(), 1);
}

#[test]
fn the_token_budget_really_pauses_the_run() {
    let mut world = World::new();
    set_budget(&world, 150);
    let thread = world.create_thread();
    for _ in 0..3 {
        world.script.push_back(Reply::tool("read_page", json!({"ref": "e1"})));
    }
    world.script.push_back(Reply::text("finished"));
    submit(&mut world, &thread, "read a lot");
    world.settle();
    // Each scripted call costs 110 tokens: the second call passes the budget of 150.
    let run = world.store.all_runs().pop().unwrap();
    assert_eq!(run.state, RunState::PausedBudget);
    assert_eq!(world.requests.len(), 2);
    let id = world.submission();
    world.send(
        json!({"type": "run.resume", "submissionId": id, "threadId": thread, "runId": run.id}),
    );
    world.settle();
    assert_eq!(world.requests.len(), 4);
    assert_eq!(stops(&world), [StopReason::End]);
}

#[test]
fn a_new_message_closes_a_budget_paused_run_and_starts() {
    let mut world = World::new();
    set_budget(&world, 50);
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("read_page", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("next turn"));
    submit(&mut world, &thread, "first");
    world.settle();
    submit(&mut world, &thread, "second");
    world.settle();
    assert_eq!(stops(&world), [StopReason::BudgetPause, StopReason::End]);
}

#[test]
fn fork_starts_a_sibling_branch_and_the_snapshot_shows_it() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::text("one"));
    world.script.push_back(Reply::text("two"));
    submit(&mut world, &thread, "original");
    world.settle();
    let user = world.path(&thread)[0].id.clone();
    let id = world.submission();
    world.send(json!({"type": "turn.fork", "submissionId": id, "threadId": thread,
        "siblingOfNodeId": user, "input": super::world::input("edited")}));
    world.settle();
    let path = world.path(&thread);
    assert_eq!(kinds(&path), ["user", "context", "assistant"]);
    let NodeBody::UserMessage { input, .. } = &path[0].body else { panic!() };
    assert_eq!(input.text, "edited");
    let id = world.submission();
    let snap =
        world.send(json!({"type": "thread.subscribe", "submissionId": id, "threadId": thread}));
    let AgentEvent::ThreadSnapshot(snapshot) = &snap[0].event else { panic!() };
    let user_item =
        snapshot.snapshot.items.iter().find(|i| i.kind() == ItemKind::UserMessage).unwrap();
    assert_eq!((user_item.branch.index, user_item.branch.count), (2, 2));
}

#[test]
fn deleting_a_thread_stops_its_run() {
    let mut world = World::new();
    let thread = world.create_thread();
    submit(&mut world, &thread, "long task");
    assert_eq!(world.effects().len(), 1, "the model call (the title call waits for its answer)");
    let id = world.submission();
    world.send(json!({"type": "thread.delete", "submissionId": id, "threadId": thread}));
    assert!(world.effects().is_empty(), "{:?}", world.effects());
    assert!(block_on(world.store.open_runs()).unwrap().is_empty());
}

pub(super) fn ask_first(world: &World) {
    let op = crate::store::WriteOp::PutSetting {
        key: crate::settings::PERMISSION_POLICY.key().into(),
        value: json!("untrusted"),
    };
    block_on(world.store.commit(crate::store::UnitOfWork { ops: vec![op] })).unwrap();
}

pub(super) fn approvals(
    world: &World,
) -> Vec<(panelot_protocol::ApprovalId, panelot_protocol::engine::ApprovalRequestPayload)> {
    world.events(|e| match e {
        AgentEvent::ApprovalRequest(a) => Some((a.approval_id.clone(), a.request.clone())),
        _ => None,
    })
}

pub(super) fn respond(
    world: &mut World,
    approval: &panelot_protocol::ApprovalId,
    decision: Value,
) -> Vec<AgentEvent> {
    let id = world.submission();
    world
        .send(json!({"type": "approval.response", "submissionId": id, "approvalId": approval,
            "decision": decision}))
        .into_iter()
        .map(|f| f.event)
        .collect()
}

#[test]
fn an_attached_page_is_read_before_the_first_model_call() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::text("I see the cart."));
    let mut input = super::world::input("what is in my cart?");
    input["attachedContext"] = json!([{"kind": "page", "label": "Cart", "origin":
        "https://shop.example", "trust": "untrusted", "provenance": "page", "sourceRef": null,
        "tab": {"tabId": 7, "windowId": 1, "url": "https://shop.example/cart", "title": "Cart"},
        "content": {"type": "empty"}, "approxTokens": null}]);
    let id = world.submission();
    world.send(json!({"type": "turn.submit", "submissionId": id, "threadId": thread,
        "input": input}));
    world.settle();
    // The read ran first, on the attached tab, with no model call before it.
    let reads: Vec<Value> = world.executions.iter().map(|e| e.call.params.clone()).collect();
    assert_eq!(reads, [json!({"tabId": 7})]);
    // The model's first request already carries the page, as a read_page call and its result.
    let first = &world.requests[0];
    let text = format!("{:?}", first.messages);
    assert!(text.contains("read_page done on ?"), "{text}");
    assert_eq!(stops(&world), [StopReason::End]);
    // A message without an attached page is not read.
    world.script.push_back(Reply::text("hi"));
    submit(&mut world, &thread, "hello");
    world.settle();
    assert_eq!(world.executions.len(), 1);
}

#[test]
fn a_site_without_host_access_is_asked_for_once_and_the_call_runs_when_granted() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("read_page", json!({"ref": "locked"})));
    world.script.push_back(Reply::text("read it"));
    submit(&mut world, &thread, "read the locked site");
    world.settle();
    // Even a read under `auto` stops on the question; the failure never reaches the model.
    let asked = approvals(&world);
    assert_eq!(asked.len(), 1);
    let (approval, request) = &asked[0];
    assert_eq!(request.flags, [panelot_protocol::engine::ApprovalFlag::HostPermission]);
    assert_eq!(request.target_origin.as_deref(), Some("https://locked.example"));
    assert!(results(&world.path(&thread)).is_empty());
    respond(&mut world, approval, json!({"type": "accept"}));
    world.settle();
    // The site was asked for while resolving the call's target: the call never ran without
    // access, and runs once, after it was granted.
    let dispatches: Vec<u32> = world.executions.iter().map(|e| e.call.dispatch).collect();
    assert_eq!(dispatches, [1], "the call runs once, after access was granted");
    assert_eq!(results(&world.path(&thread)), ["read_page done on locked"]);
    assert_eq!(stops(&world), [StopReason::End]);
    // Still no access after the answer: the refusal is the result, without a second question.
    world.script.push_back(Reply::tool("read_page", json!({"ref": "sealed"})));
    world.script.push_back(Reply::text("no luck"));
    submit(&mut world, &thread, "read the sealed site");
    world.settle();
    let asked = approvals(&world);
    assert_eq!(asked.len(), 2);
    respond(&mut world, &asked[1].0, json!({"type": "accept"}));
    world.settle();
    assert_eq!(approvals(&world).len(), 2, "asked once per call");
    let last = results(&world.path(&thread)).pop().unwrap();
    assert!(last.starts_with("Error: Panelot has no access"), "{last}");
    // A declined question is the result the model reads; nothing runs again.
    world.script.push_back(Reply::tool("read_page", json!({"ref": "sealed"})));
    world.script.push_back(Reply::text("ok"));
    submit(&mut world, &thread, "once more");
    world.settle();
    let runs = world.executions.len();
    let asked = approvals(&world);
    respond(&mut world, &asked[2].0, json!({"type": "decline", "note": null}));
    world.settle();
    assert_eq!(world.executions.len(), runs);
    let last = results(&world.path(&thread)).pop().unwrap();
    assert!(last.contains("The user declined"), "{last}");
}

#[test]
fn a_write_asks_first_and_runs_once_accepted() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("done"));
    world.script.push_back(Reply::tool("read_page", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("read"));
    submit(&mut world, &thread, "click");
    world.settle();
    assert!(world.executions.is_empty(), "nothing runs before the answer");
    let asked = approvals(&world);
    assert_eq!(asked.len(), 1);
    let (approval, request) = &asked[0];
    assert_eq!(request.tool, "click");
    assert_eq!(request.params, json!({"ref": "e1"}));
    assert_eq!(request.target_origin.as_deref(), Some("https://shop.example"));
    // Every list learns that the thread waits for the user, and `thread.list` says so too.
    let activity = |world: &World| -> Vec<(u32, u32, bool)> {
        world.events(|e| match e {
            AgentEvent::ActivityUpdated(a) => Some((
                a.pending_approvals,
                a.running,
                a.threads.iter().any(|t| t.thread_id == thread && t.pending_approvals == 1),
            )),
            _ => None,
        })
    };
    assert_eq!(activity(&world).last(), Some(&(1, 1, true)));
    let id = world.submission();
    let listed: Vec<u32> = world
        .send(json!({"type": "thread.list", "submissionId": id, "includeArchived": false}))
        .into_iter()
        .filter_map(|f| match f.event {
            AgentEvent::ThreadListed(l) => l.threads.first().map(|t| t.pending_approvals),
            _ => None,
        })
        .collect();
    assert_eq!(listed, [1]);
    assert_eq!(
        request.deadline_at_ms,
        world.clock.now_ms() - crate::engine::COALESCE_MS + crate::engine::APPROVAL_TIMEOUT_MS
    );
    // The card survives a restart, and the answer given after it still counts.
    world.restart();
    let pending: Vec<usize> = world.events(|e| match e {
        AgentEvent::Initialized(i) => i.snapshot.as_ref().map(|s| s.pending_approvals.len()),
        _ => None,
    });
    assert_eq!(pending.last(), Some(&1));
    let answer = respond(&mut world, approval, json!({"type": "accept"}));
    assert!(acked(&answer), "{answer:?}");
    assert!(
        answer
            .iter()
            .any(|e| matches!(e, AgentEvent::ApprovalResolved(r) if r.outcome == "accepted"))
    );
    world.settle();
    assert_eq!(world.executions.len(), 1);
    assert_eq!(activity(&world).last(), Some(&(0, 0, false)), "nothing waits or runs");
    // The origin joined the thread's scope; reads never ask.
    let meta = block_on(world.store.thread(&thread)).unwrap().unwrap();
    assert_eq!(meta.scope_origins, ["https://shop.example"]);
    submit(&mut world, &thread, "read it");
    world.settle();
    assert_eq!(approvals(&world).len(), 1);
    assert_eq!(world.executions.len(), 2);
    // The same answer again from another view (a new submission) is acknowledged and changes
    // nothing; another answer to a decided approval is refused, saying so.
    let again = respond(&mut world, approval, json!({"type": "accept"}));
    assert!(acked(&again), "{again:?}");
    assert!(!again.iter().any(|e| matches!(e, AgentEvent::ApprovalResolved(_))));
    world.settle();
    assert_eq!(world.executions.len(), 2, "a repeated answer runs nothing");
    let late = respond(&mut world, approval, json!({"type": "cancel"}));
    assert_eq!(rejected(&late), Some(ErrorCode::InvalidCommand));
    assert!(
        late.iter().any(|e| matches!(e, AgentEvent::CommandRejected(r)
            if r.message.contains("already answered otherwise"))),
        "{late:?}"
    );
}

#[test]
fn a_decline_goes_back_to_the_model_and_does_not_trip_the_breaker() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    for _ in 0..6 {
        world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    }
    world.script.push_back(Reply::text("ok, I will not"));
    submit(&mut world, &thread, "click");
    for n in 0..6 {
        world.settle();
        let asked = approvals(&world);
        assert_eq!(asked.len(), n + 1);
        respond(&mut world, &asked[n].0, json!({"type": "decline", "note": "not that one"}));
    }
    world.settle();
    assert!(world.executions.is_empty());
    let results = results(&world.path(&thread));
    assert_eq!(results.len(), 6);
    assert!(results[0].contains("declined: not that one"), "{results:?}");
    assert!(results[0].contains("Do not try this call again"), "{results:?}");
    assert!(!results[5].contains("switched off"), "declines are not failures: {results:?}");
    assert!(!world.requests.last().unwrap().tools.is_empty());
    assert_eq!(stops(&world), [StopReason::End]);
}

#[test]
fn each_step_says_what_became_of_its_call_live_and_after_a_reload() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::tool("click", json!({"ref": "e2"})));
    world.script.push_back(Reply::tool("click", json!({"ref": "e3"})));
    submit(&mut world, &thread, "click three times");
    world.settle();
    let asked: Vec<(ApprovalId, Option<ItemId>)> = world.events(|e| match e {
        AgentEvent::ApprovalRequest(a) => Some((a.approval_id.clone(), a.item_id.clone())),
        _ => None,
    });
    respond(&mut world, &asked[0].0, json!({"type": "decline", "note": "not that one"}));
    world.settle();
    let asked: Vec<(ApprovalId, Option<ItemId>)> = world.events(|e| match e {
        AgentEvent::ApprovalRequest(a) => Some((a.approval_id.clone(), a.item_id.clone())),
        _ => None,
    });
    respond(&mut world, &asked[1].0, json!({"type": "accept"}));
    world.settle();
    let asked: Vec<(ApprovalId, Option<ItemId>)> = world.events(|e| match e {
        AgentEvent::ApprovalRequest(a) => Some((a.approval_id.clone(), a.item_id.clone())),
        _ => None,
    });
    assert_eq!(asked.len(), 3);
    respond(&mut world, &asked[2].0, json!({"type": "cancel"}));
    world.settle();
    // Each approval names the step it is about; each call's parameters reach its step.
    let calls: Vec<ItemId> = world.events(|e| match e {
        AgentEvent::ItemStart(s) if s.kind == ItemKind::ToolCall => Some(s.item_id.clone()),
        _ => None,
    });
    let asked_items: Vec<ItemId> = asked.iter().filter_map(|(_, item)| item.clone()).collect();
    assert_eq!(asked_items, calls);
    let params: Vec<(ItemId, Value)> = world.events(|e| match e {
        AgentEvent::ItemDelta(d) => d.delta.tool_params.clone().map(|p| (d.item_id.clone(), p)),
        _ => None,
    });
    let expected: Vec<(ItemId, Value)> = calls
        .iter()
        .cloned()
        .zip([json!({"ref": "e1"}), json!({"ref": "e2"}), json!({"ref": "e3"})])
        .collect();
    assert_eq!(params, expected);
    // Live: declined, done (where it clicked), declined by stopping the turn.
    let live: Vec<ToolResultView> = world.events(|e| match e {
        AgentEvent::ItemComplete(c) => c.result.clone(),
        _ => None,
    });
    let outcomes: Vec<CallOutcome> = live.iter().map(|r| r.outcome).collect();
    assert_eq!(outcomes, [CallOutcome::Declined, CallOutcome::Done, CallOutcome::Declined]);
    let target = live[1].target.as_ref().expect("the step says where it clicked");
    assert_eq!(target.url, "https://shop.example/cart");
    assert_eq!(
        target.elements.iter().map(|e| (e.role.as_str(), e.name.as_str())).collect::<Vec<_>>(),
        [("button", "Button e2")]
    );
    assert!(live[0].excerpt.as_deref() == Some("The user declined: not that one."), "{live:?}");
    // After a reload the steps read the same.
    let id = world.submission();
    let frames =
        world.send(json!({"type": "thread.subscribe", "submissionId": id, "threadId": thread}));
    let snapshot = frames
        .into_iter()
        .find_map(|f| match f.event {
            AgentEvent::ThreadSnapshot(s) => Some(s.snapshot),
            _ => None,
        })
        .unwrap();
    let stored: Vec<ToolResultView> = snapshot
        .items
        .iter()
        .filter_map(|item| match &item.content {
            ItemContent::ToolCall { result, .. } => result.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(stored, live);
}

#[test]
fn a_denied_call_and_a_call_the_turn_never_ran_say_so() {
    let mut world = World::new();
    world.restart();
    let rules = json!([{"id": "no-clicks", "tool": "click", "origin": "*.example",
        "verdict": "deny", "source": "user", "createdAtMs": 1}]);
    let op = crate::store::WriteOp::PutSetting {
        key: crate::settings::RULES.key().into(),
        value: rules,
    };
    block_on(world.store.commit(crate::store::UnitOfWork { ops: vec![op] })).unwrap();
    world.restart();
    ask_first(&world);
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::tool("navigate", json!({"url": "https://shop.example/next"})));
    submit(&mut world, &thread, "click, then go on");
    world.settle();
    assert_eq!(approvals(&world).len(), 1, "the navigation waits for an answer");
    // Stopping the turn leaves it not run.
    let id = world.submission();
    world.send(json!({"type": "turn.interrupt", "submissionId": id, "threadId": thread}));
    world.settle();
    let outcomes: Vec<CallOutcome> = world.events(|e| match e {
        AgentEvent::ItemComplete(c) => c.result.as_ref().map(|r| r.outcome),
        _ => None,
    });
    assert_eq!(outcomes, [CallOutcome::Denied, CallOutcome::NotRun]);
}

#[test]
fn accept_for_session_covers_the_thread_and_accept_for_site_every_thread() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::tool("click", json!({"ref": "e2"})));
    world.script.push_back(Reply::text("done"));
    submit(&mut world, &thread, "click twice");
    world.settle();
    let asked = approvals(&world);
    respond(&mut world, &asked[0].0, json!({"type": "acceptForSession"}));
    world.settle();
    assert_eq!(approvals(&world).len(), 1, "the session grant covers the second click");
    assert_eq!(world.executions.len(), 2);
    // Another thread asks again; accepting for the site makes a rule every thread follows.
    let other = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e3"})));
    world.script.push_back(Reply::text("done"));
    submit(&mut world, &other, "click here too");
    world.settle();
    let asked = approvals(&world);
    assert_eq!(asked.len(), 2);
    respond(&mut world, &asked[1].0, json!({"type": "acceptForSite"}));
    world.settle();
    let third = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e4"})));
    world.script.push_back(Reply::text("done"));
    submit(&mut world, &third, "and here");
    world.settle();
    assert_eq!(approvals(&world).len(), 2);
    assert_eq!(world.executions.len(), 4);
    let rules = block_on(world.store.setting(crate::settings::RULES.key())).unwrap().unwrap();
    assert!(rules.to_string().contains(r#""origin":"https://shop.example""#), "{rules}");
}

#[test]
fn an_unanswered_approval_declines_at_its_deadline_and_cancel_ends_the_turn() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    submit(&mut world, &thread, "click");
    world.settle();
    world.input(crate::driver::Input::Tick);
    let armed = world.wakes().last().copied();
    assert!(armed.is_some_and(|at| at > world.clock.now_ms()), "the deadline is armed");
    world.clock.advance(crate::engine::APPROVAL_TIMEOUT_MS);
    world.input(crate::driver::Input::Tick);
    world.settle();
    let results = results(&world.path(&thread));
    assert!(results[0].contains("no answer within 5 minutes"), "{results:?}");
    let asked = approvals(&world);
    assert_eq!(asked.len(), 2);
    let cancelled = respond(&mut world, &asked[1].0, json!({"type": "cancel"}));
    assert!(acked(&cancelled), "{cancelled:?}");
    world.settle();
    assert!(world.executions.is_empty());
    assert_eq!(stops(&world), [StopReason::Interrupted]);
}

#[test]
fn a_deny_rule_refuses_without_asking_and_the_seeded_rule_stays_deleted() {
    let mut world = World::new();
    // The engine seeded its default rules at start.
    world.restart();
    let seeded = block_on(world.store.setting(crate::settings::RULES.key())).unwrap().unwrap();
    assert!(seeded.to_string().contains("run_javascript"), "{seeded}");
    let rules = json!([{"id": "no-clicks", "tool": "click", "origin": "*.example", "verdict": "deny",
        "source": "user", "createdAtMs": 1}]);
    let op = crate::store::WriteOp::PutSetting {
        key: crate::settings::RULES.key().into(),
        value: rules.clone(),
    };
    block_on(world.store.commit(crate::store::UnitOfWork { ops: vec![op] })).unwrap();
    world.restart();
    let kept = block_on(world.store.setting(crate::settings::RULES.key())).unwrap().unwrap();
    assert_eq!(kept, rules, "a deleted seeded rule is not seeded again");
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("cannot"));
    submit(&mut world, &thread, "click");
    world.settle();
    assert!(world.executions.is_empty());
    assert!(approvals(&world).is_empty());
    let results = results(&world.path(&thread));
    assert!(results[0].contains("denied by rule no-clicks"), "{results:?}");
}

#[test]
fn queued_messages_can_be_edited_and_removed_before_they_start() {
    let mut world = World::new();
    let thread = world.create_thread();
    submit(&mut world, &thread, "running");
    let run_of = |events: &[AgentEvent]| {
        events
            .iter()
            .find_map(|e| match e {
                AgentEvent::CommandAck(a) => a.run_id.clone(),
                _ => None,
            })
            .unwrap()
    };
    let first = run_of(&submit(&mut world, &thread, "queued one"));
    let second = run_of(&submit(&mut world, &thread, "queued two"));
    let id = world.submission();
    let edited = world.send(json!({"type": "queue.update", "submissionId": id, "threadId": thread,
        "runId": first, "input": super::world::input("queued one, edited"), "overrides": null}));
    let revisions: Vec<u64> = edited
        .iter()
        .filter_map(|f| match &f.event {
            AgentEvent::QueueUpdated(q) => Some(q.runs[0].revision),
            _ => None,
        })
        .collect();
    assert_eq!(revisions, [2]);
    let id = world.submission();
    world.send(
        json!({"type": "queue.remove", "submissionId": id, "threadId": thread, "runId": second}),
    );
    // Removing it again is refused: it is no longer waiting.
    let id = world.submission();
    let again = world.send(json!({"type": "queue.remove", "submissionId": id, "threadId": thread,
        "runId": second}));
    assert_eq!(
        rejected(&again.into_iter().map(|f| f.event).collect::<Vec<_>>()),
        Some(ErrorCode::InvalidCommand)
    );
    world.settle();
    let users: Vec<String> = world
        .path(&thread)
        .into_iter()
        .filter_map(|n| match n.body {
            NodeBody::UserMessage { input, .. } => Some(input.text),
            _ => None,
        })
        .collect();
    assert_eq!(users, ["running", "queued one, edited"]);
}

#[test]
fn commands_name_the_right_error() {
    let mut world = World::new();
    let thread = world.create_thread();
    // A thread that does not exist.
    let events = submit(&mut world, &panelot_protocol::ThreadId::new("t-missing").unwrap(), "hi");
    assert_eq!(rejected(&events), Some(ErrorCode::ThreadNotFound));
    // A steer aimed at another turn than the running one.
    submit(&mut world, &thread, "running");
    let id = world.submission();
    let wrong = world.send(json!({"type": "turn.steer", "submissionId": id, "threadId": thread,
        "expectedTurnId": "u-elsewhere", "input": super::world::input("more")}));
    assert_eq!(
        rejected(&wrong.into_iter().map(|f| f.event).collect::<Vec<_>>()),
        Some(ErrorCode::TurnMismatch)
    );
    // Resuming a run that is not parked, or answering an approval nobody asked.
    let id = world.submission();
    let resume = world.send(json!({"type": "run.resume", "submissionId": id, "threadId": thread,
        "runId": "r-nothing"}));
    assert_eq!(
        rejected(&resume.into_iter().map(|f| f.event).collect::<Vec<_>>()),
        Some(ErrorCode::InvalidCommand)
    );
    // An empty message.
    let events = submit(&mut world, &thread, "   ");
    assert_eq!(rejected(&events), Some(ErrorCode::InvalidCommand));
    // Interrupting an idle thread.
    world.settle();
    let id = world.submission();
    let idle =
        world.send(json!({"type": "turn.interrupt", "submissionId": id, "threadId": thread}));
    assert_eq!(
        rejected(&idle.into_iter().map(|f| f.event).collect::<Vec<_>>()),
        Some(ErrorCode::NoActiveTurn)
    );
}

#[test]
fn a_destination_taken_from_a_page_asks_even_in_auto_and_the_card_says_where_it_came_from() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("read_page", json!({"ref": "lure"})));
    world
        .script
        .push_back(Reply::tool("navigate", json!({"url": "https://evil.example/login?next=cart"})));
    world.script.push_back(Reply::tool("navigate", json!({"url": "https://docs.example/start"})));
    world.script.push_back(Reply::text("done"));
    submit(&mut world, &thread, "read the page, then open https://docs.example/start");
    world.settle();
    let asked = approvals(&world);
    assert_eq!(asked.len(), 1, "only the planted link asks");
    let (approval, request) = &asked[0];
    assert_eq!(request.params["url"], "https://evil.example/login?next=cart");
    assert!(request.flags.contains(&panelot_protocol::engine::ApprovalFlag::TaintedInput));
    assert_eq!(request.taint.len(), 1);
    assert_eq!(request.taint[0].param, "url");
    assert_eq!(request.taint[0].provenance, panelot_protocol::engine::Provenance::Page);
    assert_eq!(request.taint[0].source, "https://shop.example");
    respond(&mut world, approval, json!({"type": "decline", "note": "that is not the site"}));
    world.settle();
    // The user's own URL went through without a question (policy auto).
    let navigations: Vec<Value> = world
        .executions
        .iter()
        .filter(|e| e.call.tool == "navigate")
        .map(|e| e.call.params["url"].clone())
        .collect();
    assert_eq!(navigations, [json!("https://docs.example/start")]);
}

#[test]
fn ask_user_waits_for_the_answer_across_a_restart_and_hands_it_to_the_model() {
    let mut world = World::new();
    let thread = world.create_thread();
    let questions = json!({"questions": [{"question": "Which size?", "options": ["M", "L"]}]});
    world.script.push_back(Reply::tool("ask_user", questions));
    world.script.push_back(Reply::text("Ordering size L."));
    submit(&mut world, &thread, "order the shirt");
    world.settle();
    let asked: Vec<panelot_protocol::InteractionId> = world.events(|e| match e {
        AgentEvent::InteractionRequest(r) => Some(r.interaction_id.clone()),
        _ => None,
    });
    assert_eq!(asked.len(), 1);
    world.restart();
    let pending: Vec<usize> = world.events(|e| match e {
        AgentEvent::Initialized(i) => i.snapshot.as_ref().map(|s| s.pending_interactions.len()),
        _ => None,
    });
    assert_eq!(pending.last(), Some(&1));
    let id = world.submission();
    let answered = world.send(json!({"type": "interaction.response", "submissionId": id,
        "interactionId": asked[0], "response": {"type": "submit", "value": {"q1": "L"}}}));
    assert!(answered.iter().any(|f| matches!(f.event, AgentEvent::InteractionResolved(_))));
    world.settle();
    let answers = results(&world.path(&thread));
    assert_eq!(answers, [r#"The user answered: {"q1":"L"}"#]);
    assert_eq!(stops(&world), [StopReason::End]);
    // The same answer from another view after a restart is acknowledged, and nothing is
    // answered twice.
    world.restart();
    let id = world.submission();
    let again = world.send(json!({"type": "interaction.response", "submissionId": id,
        "interactionId": asked[0], "response": {"type": "submit", "value": {"q1": "L"}}}));
    let again: Vec<AgentEvent> = again.into_iter().map(|f| f.event).collect();
    assert!(acked(&again), "{again:?}");
    world.settle();
    assert_eq!(results(&world.path(&thread)).len(), 1);
    // A question mixed with another call is refused, and the other call still runs.
    world.script.push_back(Reply::Tools(vec![
        ("ask_user".into(), json!({"questions": [{"question": "?", "options": []}]}).to_string()),
        ("read_page".into(), json!({"ref": "e1"}).to_string()),
    ]));
    world.script.push_back(Reply::text("ok"));
    submit(&mut world, &thread, "again");
    world.settle();
    let results = results(&world.path(&thread));
    assert!(results[1].contains("must be the only tool call"), "{results:?}");
    assert_eq!(world.executions.len(), 1);
}

#[test]
fn request_user_action_hands_the_step_over_and_resumes_once_done_even_after_a_restart() {
    let mut world = World::new();
    let thread = world.create_thread();
    let instruction = json!({"instruction": "Sign in to shop.example, then press Done."});
    world.script.push_back(Reply::tool("request_user_action", instruction));
    world.script.push_back(Reply::text("Signed in; your order shipped."));
    submit(&mut world, &thread, "check my order");
    world.settle();
    let asked: Vec<panelot_protocol::InteractionId> = world.events(|e| match e {
        AgentEvent::InteractionRequest(r) => Some(r.interaction_id.clone()),
        _ => None,
    });
    assert_eq!(asked.len(), 1);
    assert_eq!(world.requests.len(), 1, "the model waits for the user");
    world.restart();
    world.settle();
    assert_eq!(world.requests.len(), 1, "a restart does not answer for the user");
    let id = world.submission();
    world.send(json!({"type": "interaction.response", "submissionId": id,
        "interactionId": asked[0], "response": {"type": "submit", "value": {"done": true}}}));
    world.settle();
    assert_eq!(
        results(&world.path(&thread)),
        ["The user says the step is done. The page may have changed: read it again before \
          acting on it."]
    );
    assert_eq!(stops(&world), [StopReason::End]);
}

/// A vault for tests: "seals" a key by keeping only its length.
struct LengthVault;

impl crate::engine::ConnectionVault for LengthVault {
    fn store(
        &self,
        id: &panelot_protocol::ConnectionId,
        input: &panelot_protocol::engine::ConnectionInput,
        existing: Option<&Value>,
    ) -> Result<Value, String> {
        if !input.base_url.starts_with("https://") {
            return Err("the base URL must use HTTPS".into());
        }
        use panelot_protocol::engine::ApiKeyEntry;
        let keys = match &input.api_keys {
            Some(keys) => json!(
                keys.iter()
                    .map(|k| match k {
                        ApiKeyEntry::Typed(key) => json!(key.len()),
                        ApiKeyEntry::Saved { saved } => existing
                            .map_or(Value::Null, |e| e["keys"][*saved as usize - 1].clone()),
                    })
                    .collect::<Vec<_>>()
            ),
            None => existing.map_or(json!([]), |e| e["keys"].clone()),
        };
        Ok(json!({"id": id, "name": input.name, "kind": input.kind, "baseUrl": input.base_url,
            "keys": keys, "enabled": input.enabled, "modelIds": input.model_ids}))
    }

    fn view(&self, stored: &Value) -> Option<panelot_protocol::engine::ConnectionView> {
        Some(panelot_protocol::engine::ConnectionView {
            id: panelot_protocol::ConnectionId::new(stored["id"].as_str()?).ok()?,
            name: stored["name"].as_str()?.to_owned(),
            kind: serde_json::from_value(stored["kind"].clone()).ok()?,
            base_url: stored["baseUrl"].as_str()?.to_owned(),
            key_count: stored["keys"].as_array()?.len() as u32,
            enabled: stored["enabled"].as_bool()?,
            model_ids: serde_json::from_value(stored["modelIds"].clone()).ok()?,
            header_names: Vec::new(),
            quirks: Vec::new(),
            prices: Vec::new(),
        })
    }

    fn quirk_names(&self) -> Vec<String> {
        vec!["noSystemRole".into()]
    }

    fn templates(&self) -> Vec<panelot_protocol::engine::ConnectionTemplateView> {
        vec![panelot_protocol::engine::ConnectionTemplateView {
            id: "local".into(),
            name: "Local".into(),
            kind: "openai".into(),
            base_url: "http://127.0.0.1:8080/v1".into(),
            quirks: vec!["noSystemRole".into()],
            key_required: false,
        }]
    }
}

#[test]
fn settings_save_connections_through_the_vault_and_the_first_model_becomes_the_default() {
    let mut world = World::new();
    let op = crate::store::WriteOp::PutSetting {
        key: crate::settings::DEFAULT_MODEL.key().into(),
        value: Value::Null,
    };
    block_on(world.store.commit(crate::store::UnitOfWork { ops: vec![op] })).unwrap();
    world.vault(std::rc::Rc::new(LengthVault));
    let state = settings_of;
    let id = world.submission();
    let empty = state(world.send(json!({"type": "settings.get", "submissionId": id})));
    assert!(empty.connections.is_empty() && empty.default_model.is_none());
    let id = world.submission();
    let saved = world.send(json!({"type": "connection.save", "submissionId": id, "connection": {
        "id": null, "name": "Cloud", "kind": "openai", "baseUrl": "https://api.example/v1",
        "apiKeys": ["sk-one", "sk-two-long"], "enabled": true, "modelIds": ["gpt-x"],
        "quirks": []}}));
    let settings = state(saved);
    assert_eq!(settings.quirk_names, ["noSystemRole"]);
    assert_eq!(settings.connections.len(), 1);
    assert_eq!(settings.connections[0].key_count, 2);
    let connection = settings.connections[0].id.clone();
    assert_eq!(settings.default_model.as_ref().map(|m| m.model_id.as_str()), Some("gpt-x"));
    let stored =
        block_on(world.store.setting(crate::settings::CONNECTIONS.key())).unwrap().unwrap();
    assert!(!stored.to_string().contains("sk-one"), "keys never stored in clear: {stored}");
    // A refused form changes nothing.
    let id = world.submission();
    let bad = world.send(json!({"type": "connection.save", "submissionId": id, "connection": {
        "id": null, "name": "Plain", "kind": "openai", "baseUrl": "http://remote.example",
        "apiKeys": null, "enabled": true, "modelIds": [], "quirks": []}}));
    assert_eq!(
        rejected(&bad.into_iter().map(|f| f.event).collect::<Vec<_>>()),
        Some(ErrorCode::InvalidCommand)
    );
    // The default model now lets a turn run; policy and budget update too.
    let thread = world.create_thread();
    world.script.push_back(Reply::text("hi"));
    assert!(acked(&submit(&mut world, &thread, "hello")));
    let id = world.submission();
    let updated = state(world.send(json!({"type": "settings.update", "submissionId": id,
        "patch": {"permissionPolicy": "always", "turnTokenBudget": 1000}})));
    assert_eq!(updated.turn_token_budget, Some(1000));
    let id = world.submission();
    let gone = state(world.send(json!({"type": "connection.delete", "submissionId": id,
        "connectionId": connection})));
    assert!(gone.connections.is_empty());
}

#[test]
fn a_connection_check_runs_as_an_effect_and_answers_only_the_asking_port() {
    let mut world = World::new();
    world.vault(std::rc::Rc::new(LengthVault));
    let id = world.submission();
    let saved = world.send(json!({"type": "connection.save", "submissionId": id, "connection": {
        "id": "c-cloud", "name": "Cloud", "kind": "openai", "baseUrl": "https://api.example/v1",
        "apiKeys": ["sk-one"], "enabled": true, "modelIds": ["gpt-x"], "quirks": []}}));
    assert!(acked(&saved.into_iter().map(|f| f.event).collect::<Vec<_>>()));
    // An unknown connection is refused at once, with no effect started.
    let id = world.submission();
    let missing = world.send(json!({"type": "connection.verify", "submissionId": id,
        "connectionId": "c-none", "model": null}));
    let missing: Vec<AgentEvent> = missing.into_iter().map(|f| f.event).collect();
    assert_eq!(rejected(&missing), Some(ErrorCode::InvalidCommand));
    let id = world.submission();
    let asked = world.send(json!({"type": "connection.verify", "submissionId": id,
        "connectionId": "c-cloud", "model": "gpt-x"}));
    assert!(asked.is_empty(), "the answer waits for the check: {asked:?}");
    let before = world.frames.len();
    world.settle();
    let report = world.frames[before..]
        .iter()
        .find_map(|f| match &f.event {
            AgentEvent::ConnectionVerified(v) => Some(v.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(report.submission_id.as_str(), id);
    assert_eq!(report.connection_id.as_str(), "c-cloud");
    assert_eq!(report.report.model.as_deref(), Some("gpt-x"));
    assert_eq!(
        report.report.failure,
        Some(panelot_protocol::engine::ConnectionCheckFailure::NoToolUse)
    );
    // Nothing about a check is stored: no receipt, no setting.
    let stored = block_on(world.store.setting(crate::settings::CONNECTIONS.key())).unwrap();
    assert!(!stored.unwrap().to_string().contains("gpt-x-model"));
}

#[test]
fn a_thread_renamed_before_its_title_is_generated_keeps_the_users_name() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::text("hi"));
    submit(&mut world, &thread, "first message");
    let id = world.submission();
    world.send(json!({"type": "thread.update", "submissionId": id, "threadId": thread,
        "patch": {"title": "Mine"}, "expectedRevision": null}));
    world.settle();
    let meta = block_on(world.store.thread(&thread)).unwrap().unwrap();
    assert_eq!(meta.title, "Mine");
}

#[test]
fn rules_are_added_checked_enforced_and_a_deleted_seeded_rule_stays_deleted() {
    let mut world = World::new();
    // Starting the engine seeds the default rules.
    world.restart();
    let state = |frames: Vec<panelot_protocol::EventFrame>| {
        frames.into_iter().find_map(|f| match f.event {
            AgentEvent::SettingsState(s) => Some(s.settings),
            _ => None,
        })
    };
    let id = world.submission();
    let settings = state(world.send(json!({"type": "settings.get", "submissionId": id}))).unwrap();
    let seeded = "seed-deny-run-javascript";
    assert!(settings.rules.iter().any(|r| r.id == seeded), "{:?}", settings.rules);
    // A pattern the gatekeeper cannot read is refused with its reason; nothing is stored.
    let id = world.submission();
    let bad = world.send(json!({"type": "rule.add", "submissionId": id, "rule":
        {"tool": "category:nope", "origin": "*", "verdict": "deny"}}));
    let bad: Vec<AgentEvent> = bad.into_iter().map(|f| f.event).collect();
    assert_eq!(rejected(&bad), Some(ErrorCode::InvalidCommand));
    let id = world.submission();
    let added = state(world.send(json!({"type": "rule.add", "submissionId": id, "rule":
        {"tool": "click", "origin": "https://shop.example", "verdict": "deny"}})))
    .unwrap();
    let rule = added.rules.iter().find(|r| r.tool == "click").unwrap();
    assert_eq!(
        (rule.origin.as_str(), rule.verdict, rule.source),
        (
            "https://shop.example",
            panelot_protocol::engine::PermissionVerdict::Deny,
            panelot_protocol::engine::RuleAuthor::User
        )
    );
    // The new rule holds at once: the click is refused and never runs.
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("could not"));
    submit(&mut world, &thread, "click it");
    world.settle();
    assert!(world.executions.is_empty());
    assert!(
        results(&world.path(&thread))[0].contains("Denied"),
        "{:?}",
        results(&world.path(&thread))
    );
    // Deleting the seeded rule survives a restart (seeding does not bring it back).
    let id = world.submission();
    let left = state(world.send(json!({"type": "rule.delete", "submissionId": id,
        "ruleId": seeded})))
    .unwrap();
    assert!(left.rules.iter().all(|r| r.id != seeded));
    world.restart();
    let id = world.submission();
    let settings = state(world.send(json!({"type": "settings.get", "submissionId": id}))).unwrap();
    assert!(settings.rules.iter().all(|r| r.id != seeded));
    assert!(settings.rules.iter().any(|r| r.tool == "click"));
    let id = world.submission();
    let missing = world.send(json!({"type": "rule.delete", "submissionId": id, "ruleId": seeded}));
    let missing: Vec<AgentEvent> = missing.into_iter().map(|f| f.event).collect();
    assert_eq!(rejected(&missing), Some(ErrorCode::InvalidCommand));
}

fn settings_of(
    frames: Vec<panelot_protocol::EventFrame>,
) -> panelot_protocol::engine::SettingsView {
    frames
        .into_iter()
        .find_map(|f| match f.event {
            AgentEvent::SettingsState(s) => Some(s.settings),
            _ => None,
        })
        .unwrap()
}

#[test]
fn a_threads_preset_gives_its_model_instructions_tools_params_and_policy() {
    let mut world = World::new();
    world.vault(std::rc::Rc::new(LengthVault));
    let id = world.submission();
    world.send(json!({"type": "connection.save", "submissionId": id, "connection": {
        "id": "c-cloud", "name": "Cloud", "kind": "openai", "baseUrl": "https://api.example/v1",
        "apiKeys": ["sk-one"], "enabled": true, "modelIds": ["gpt-x"], "quirks": []}}));
    let preset = json!({"name": "  Careful  ", "model": {"connectionId": "c-cloud",
        "modelId": "gpt-y"}, "systemPrompt": "Answer in French.", "permissionPolicy": "untrusted",
        "enabledToolLevels": ["L1", "L1"], "params": {"temperature": 0.3, "maxTokens": 900}});
    // Refused: a connection that does not exist, an empty name, a temperature out of range.
    for (field, bad) in [
        ("model", json!({"connectionId": "c-none", "modelId": "m"})),
        ("name", json!(" ")),
        ("params", json!({"temperature": 3.0})),
    ] {
        let mut preset = preset.clone();
        preset[field] = bad;
        let id = world.submission();
        let refused: Vec<AgentEvent> = world
            .send(json!({"type": "preset.save", "submissionId": id, "presetId": null,
                "preset": preset}))
            .into_iter()
            .map(|f| f.event)
            .collect();
        assert_eq!(rejected(&refused), Some(ErrorCode::InvalidCommand), "{field}");
    }
    let id = world.submission();
    let settings = settings_of(world.send(json!({"type": "preset.save", "submissionId": id,
        "presetId": null, "preset": preset})));
    assert_eq!(settings.presets.len(), 1);
    let stored = &settings.presets[0];
    assert_eq!(stored.preset.name, "Careful");
    assert_eq!(stored.preset.enabled_tool_levels.as_deref(), Some(&[ToolLevel::L1][..]));
    let preset_id = stored.id.clone();

    // A thread cannot be made with, or moved to, a preset that does not exist.
    let id = world.submission();
    let created: Vec<AgentEvent> = world
        .send(json!({"type": "thread.create", "submissionId": id, "preset": "p-none"}))
        .into_iter()
        .map(|f| f.event)
        .collect();
    assert_eq!(rejected(&created), Some(ErrorCode::InvalidCommand));
    let thread = world.create_thread();
    let id = world.submission();
    world.send(json!({"type": "thread.update", "submissionId": id, "threadId": thread,
        "patch": {"preset": preset_id}, "expectedRevision": null}));

    // The preset's policy (untrusted) is above the global one (auto): the write asks.
    let global = block_on(world.store.setting(crate::settings::PERMISSION_POLICY.key()));
    assert_eq!(global.unwrap(), Some(json!("auto")));
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("fait"));
    submit(&mut world, &thread, "click it");
    world.settle();
    let asked = approvals(&world);
    assert_eq!(asked.len(), 1, "the preset's policy asks for the write");
    respond(&mut world, &asked[0].0, json!({"type": "accept"}));
    world.settle();
    let request = &world.requests[0];
    assert_eq!(request.model, "gpt-y");
    assert!(request.system.dynamic.starts_with("# Instructions from the user\nAnswer in French."));
    assert_eq!(request.params.temperature, Some(0.3));
    assert_eq!(request.params.max_tokens, Some(900));
    let mut offered: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
    offered.sort_unstable();
    assert_eq!(offered, ["click", "read_page", "type"], "only the preset's tool families");

    // The thread's own policy is above its preset's: the next write runs without a question.
    let id = world.submission();
    world.send(json!({"type": "thread.update", "submissionId": id, "threadId": thread,
        "patch": {"permissionPolicy": "auto"}, "expectedRevision": null}));
    world.script.push_back(Reply::tool("click", json!({"ref": "e2"})));
    world.script.push_back(Reply::text("encore"));
    submit(&mut world, &thread, "again");
    world.settle();
    assert_eq!(approvals(&world).len(), 1, "no new question");
    assert_eq!(world.executions.len(), 2);

    // Deleted, the preset no longer applies: the default model, no instructions, every tool.
    let id = world.submission();
    let settings = settings_of(world.send(json!({"type": "preset.delete", "submissionId": id,
        "presetId": preset_id})));
    assert!(settings.presets.is_empty());
    world.script.push_back(Reply::text("ok"));
    let before = world.requests.len();
    submit(&mut world, &thread, "plain");
    world.settle();
    let request = &world.requests[before];
    assert_eq!(request.model, "scripted");
    assert!(!request.system.dynamic.contains("French"));
    assert_eq!(request.params.temperature, None);
    assert!(request.tools.iter().any(|t| t.name == "navigate"));
}

#[test]
fn the_language_is_one_setting_and_templates_come_with_the_settings() {
    let mut world = World::new();
    world.vault(std::rc::Rc::new(LengthVault));
    let id = world.submission();
    let settings = settings_of(world.send(json!({"type": "settings.get", "submissionId": id})));
    assert_eq!(settings.language, panelot_protocol::engine::Language::System);
    assert_eq!(settings.templates[0].id, "local");
    let id = world.submission();
    let changed = settings_of(world.send(json!({"type": "settings.update", "submissionId": id,
        "patch": {"language": "zh-CN"}})));
    assert_eq!(changed.language, panelot_protocol::engine::Language::SimplifiedChinese);
    world.restart();
    let id = world.submission();
    let kept = settings_of(world.send(json!({"type": "settings.get", "submissionId": id})));
    assert_eq!(kept.language, panelot_protocol::engine::Language::SimplifiedChinese);
}

#[test]
fn a_retried_model_call_is_shown_and_what_streamed_before_it_is_dropped() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::text("Second try works."));
    submit(&mut world, &thread, "hello");
    let call = world.effects().iter().find_map(|e| match e {
        crate::engine::Effect::CallModel { id, .. } => Some(*id),
        _ => None,
    });
    let call = call.unwrap();
    world.input(crate::driver::Input::ModelEvent(
        call,
        crate::model::ModelEvent::TextDelta("Hal".into()),
    ));
    let retrying = crate::model::ModelEvent::Retrying {
        attempt: 2,
        wait_ms: 2_000,
        message: "Mock is overloaded".into(),
    };
    world.input(crate::driver::Input::ModelEvent(call, retrying));
    let shown: Vec<(u32, u64)> = world.events(|e| match e {
        AgentEvent::TurnRetrying(r) => Some((r.attempt, r.wait_ms)),
        _ => None,
    });
    assert_eq!(shown, [(2, 2_000)]);
    world.settle();
    let path = world.path(&thread);
    assert!(matches!(&path[2].body, NodeBody::AssistantMessage { text, .. }
        if text == "Second try works."));
}

#[test]
fn a_long_thread_opens_with_its_latest_turns_and_pages_back_to_the_first() {
    let mut world = World::new();
    let thread = world.create_thread();
    // 70 turns of 4 stored nodes each (message, context, call... answer): past one window.
    for n in 0..70 {
        world.script.push_back(Reply::text(&format!("answer {n}")));
        submit(&mut world, &thread, &format!("question {n}"));
        world.settle();
    }
    let id = world.submission();
    let frames = world.send(json!({"type": "thread.subscribe", "submissionId": id,
        "threadId": thread}));
    let snapshot = frames
        .into_iter()
        .find_map(|f| match f.event {
            AgentEvent::ThreadSnapshot(s) => Some(s.snapshot),
            _ => None,
        })
        .unwrap();
    assert!(snapshot.has_earlier);
    assert!(snapshot.items.len() < 140, "a window, not the whole path: {}", snapshot.items.len());
    let text_of = |item: &panelot_protocol::engine::SnapshotItem| match &item.content {
        panelot_protocol::engine::ItemContent::UserMessage { input, .. } => input.text.clone(),
        panelot_protocol::engine::ItemContent::AssistantMessage { text, .. } => text.clone(),
        other => format!("{other:?}"),
    };
    assert!(text_of(&snapshot.items[0]).starts_with("question "), "starts at a turn");
    assert_eq!(text_of(snapshot.items.last().unwrap()), "answer 69");
    // Page back to the first message; every message comes exactly once, in order.
    let mut all: Vec<String> = snapshot.items.iter().map(text_of).collect();
    let mut first = snapshot.items[0].node_id.clone();
    let mut more = snapshot.has_earlier;
    while more {
        let id = world.submission();
        let frames = world.send(json!({"type": "thread.loadEarlier", "submissionId": id,
            "threadId": thread, "beforeNodeId": first, "limit": 50}));
        let page = frames
            .into_iter()
            .find_map(|f| match f.event {
                AgentEvent::ThreadEarlier(e) => Some(e),
                _ => None,
            })
            .unwrap();
        assert!(!page.items.is_empty());
        first = page.items[0].node_id.clone();
        more = page.has_earlier;
        let mut texts: Vec<String> = page.items.iter().map(text_of).collect();
        texts.append(&mut all);
        all = texts;
    }
    let expected: Vec<String> =
        (0..70).flat_map(|n| [format!("question {n}"), format!("answer {n}")]).collect();
    assert_eq!(all, expected);
    // A node that is not on the selected branch is refused.
    let id = world.submission();
    let refused: Vec<AgentEvent> = world
        .send(json!({"type": "thread.loadEarlier", "submissionId": id, "threadId": thread,
            "beforeNodeId": "n-nowhere", "limit": null}))
        .into_iter()
        .map(|f| f.event)
        .collect();
    assert_eq!(rejected(&refused), Some(ErrorCode::InvalidCommand));
}

#[test]
fn saving_rules_and_presets_keeps_the_records_another_version_wrote() {
    let mut world = World::new();
    world.restart();
    // Records this version cannot read: a verdict and a preset shape from a newer build.
    let newer_rule = json!({"id": "r-new", "tool": "click", "origin": "*", "verdict": "sandbox",
        "source": "user", "createdAtMs": 1});
    let newer_preset = json!({"id": "p-new", "preset": {"name": "Future", "routing": "auto"}});
    let seeded = block_on(world.store.setting(crate::settings::RULES.key())).unwrap().unwrap();
    let mut rules = seeded.as_array().unwrap().clone();
    rules.push(newer_rule.clone());
    let ops = vec![
        crate::store::WriteOp::PutSetting {
            key: crate::settings::RULES.key().into(),
            value: Value::Array(rules),
        },
        crate::store::WriteOp::PutSetting {
            key: crate::settings::PRESETS.key().into(),
            value: json!([newer_preset]),
        },
    ];
    block_on(world.store.commit(crate::store::UnitOfWork { ops })).unwrap();
    let id = world.submission();
    let settings = settings_of(world.send(json!({"type": "rule.add", "submissionId": id, "rule":
        {"tool": "type", "origin": "https://shop.example", "verdict": "ask"}})));
    assert!(settings.rules.iter().all(|r| r.id != "r-new"), "not shown: it cannot be applied");
    assert!(settings.rules.iter().any(|r| r.tool == "type"));
    world.vault(std::rc::Rc::new(LengthVault));
    let id = world.submission();
    world.send(json!({"type": "connection.save", "submissionId": id, "connection": {
        "id": "c-cloud", "name": "Cloud", "kind": "openai", "baseUrl": "https://api.example/v1",
        "apiKeys": ["sk-one"], "enabled": true, "modelIds": ["gpt-x"], "quirks": []}}));
    let id = world.submission();
    let settings = settings_of(world.send(json!({"type": "preset.save", "submissionId": id,
        "presetId": null, "preset": {"name": "Today", "model": {"connectionId": "c-cloud",
        "modelId": "gpt-x"}, "systemPrompt": null, "permissionPolicy": null,
        "enabledToolLevels": null, "params": {}}})));
    assert_eq!(settings.presets.len(), 1);
    let stored = |key: &str| block_on(world.store.setting(key)).unwrap().unwrap();
    let rules = stored(crate::settings::RULES.key());
    assert!(rules.as_array().unwrap().contains(&newer_rule), "{rules}");
    assert_eq!(rules.as_array().unwrap().len(), 3, "the seeded rule, the new one, the newer one");
    let presets = stored(crate::settings::PRESETS.key());
    assert!(presets.as_array().unwrap().contains(&newer_preset), "{presets}");
    assert_eq!(presets.as_array().unwrap().len(), 2);
}
