//! A turn end to end in Chromium: a connection saved through the engine's settings commands, then
//! the engine in the service worker calls the mock provider over `fetch` with the key it sealed,
//! streams the answer to a port, and stores it in IndexedDB; a worker killed in the middle of a
//! stream leaves a run that recovery marks interrupted and `run.resume` finishes.

use panelot_e2e::Browser;
use panelot_protocol::AgentEvent;
use panelot_protocol::EventFrame;
use panelot_protocol::decode_event;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::StopReason;
use panelot_testkit::mock_provider::Gate;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::Reply;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

/// Configures the engine as the settings page does: a connection to the mock server (saved
/// through the engine, which seals its key) and no questions before writes.
fn configure(browser: &mut Browser, page: &panelot_testkit::cdp::Page, base_url: &str) {
    let frames = converse(
        browser,
        page,
        json!([
            {"send": {"type": "connection.save", "submissionId": "save", "connection": {
                "id": null, "name": "Mock", "kind": "openai", "baseUrl": format!("{base_url}/v1"),
                "apiKeys": ["sk-e2e-secret"], "enabled": true, "modelIds": ["mock-model"],
                "customHeaders": null, "quirks": []}},
             "until": "command.ack"},
            {"send": {"type": "settings.update", "submissionId": "policy",
                "patch": {"permissionPolicy": "auto"}}, "until": "command.ack"},
            {"send": {"type": "settings.get", "submissionId": "get"}, "until": "settings.state"},
        ]),
    );
    let settings = frames
        .iter()
        .rev()
        .find_map(|f| match &f.event {
            AgentEvent::SettingsState(s) => Some(s.settings.clone()),
            _ => None,
        })
        .expect("the settings");
    assert_eq!(settings.connections.len(), 1, "{settings:?}");
    assert_eq!(settings.connections[0].key_count, 1);
    assert_eq!(settings.default_model.as_ref().map(|m| m.model_id.as_str()), Some("mock-model"));
}

/// Runs a conversation on one port: initialize, then `steps` in order, each sent once the
/// previous one's `until` event type arrived (with `$thread` replaced by the created thread).
fn converse(
    browser: &mut Browser,
    page: &panelot_testkit::cdp::Page,
    steps: Value,
) -> Vec<EventFrame> {
    let script = panelot_e2e::conversation::script("e2e-turns", &steps);
    let result = browser.cdp.evaluate(page, &script).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(result["how"], "complete", "{result}\n{}", browser.log_tail());
    result["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            decode_event(e["event"].clone()).unwrap_or_else(|err| panic!("engine sent {e}: {err}"))
        })
        .collect()
}

fn streamed_text(frames: &[EventFrame]) -> String {
    frames
        .iter()
        .filter_map(|f| match &f.event {
            AgentEvent::ItemDelta(d) => d.delta.text.clone(),
            _ => None,
        })
        .collect()
}

#[test]
fn a_turn_streams_from_the_provider_and_survives_a_killed_worker() {
    let server = MockProvider::start();
    // The title call and the turn's call may reach the server in either order: same answer.
    server.push(Reply::text("Hello from the mock provider."));
    server.push(Reply::text("Hello from the mock provider."));
    let mut browser = Browser::launch().expect("launch Chromium");
    let page = browser.open_extension_page("options.html").expect("open an extension page");
    configure(&mut browser, &page, &server.base_url());

    let frames = converse(
        &mut browser,
        &page,
        json!([
            {"send": {"type": "thread.create", "submissionId": "create"}, "until": "command.ack"},
            {"send": {"type": "thread.subscribe", "submissionId": "sub", "threadId": "$thread"},
             "until": "thread.snapshot"},
            {"send": {"type": "turn.submit", "submissionId": "submit", "threadId": "$thread",
                "input": {"text": "Say hello"}}, "until": "turn.complete"},
        ]),
    );
    assert_eq!(streamed_text(&frames), "Hello from the mock provider.");
    let stops: Vec<StopReason> = frames
        .iter()
        .filter_map(|f| match &f.event {
            AgentEvent::TurnComplete(c) => Some(c.stop_reason),
            _ => None,
        })
        .collect();
    assert_eq!(stops, [StopReason::End]);
    let chat =
        server.requests().into_iter().filter(|r| r.path.ends_with("/chat/completions")).count();
    assert!(chat >= 1, "the provider was called");
    assert!(server.violations().is_empty(), "{:?}", server.violations());

    // A second turn whose stream never ends: kill the worker in the middle of it.
    let gate = Gate::new();
    server.push(Reply::text("Half an ans").then_stall(&gate));
    let frames = converse(
        &mut browser,
        &page,
        json!([
            {"send": {"type": "thread.subscribe", "submissionId": "sub-1b", "threadId": "$thread"},
             "until": "thread.snapshot"},
            {"send": {"type": "turn.submit", "submissionId": "submit-2", "threadId": "$thread",
                "input": {"text": "Tell me more"}}, "until": "item.delta"},
        ]),
    );
    assert!(frames.iter().any(|f| matches!(f.event, AgentEvent::TurnStart(_))));
    browser.kill_service_worker().expect("kill the worker");

    // The new worker recovers the cut stream as an interrupted run, offered in the snapshot.
    let frames = converse(
        &mut browser,
        &page,
        json!([
            {"send": {"type": "thread.subscribe", "submissionId": "sub-2", "threadId": "$thread"},
             "until": "thread.snapshot"},
        ]),
    );
    let snapshot = frames
        .iter()
        .find_map(|f| match &f.event {
            AgentEvent::ThreadSnapshot(s) => Some(s.snapshot.clone()),
            _ => None,
        })
        .expect("a snapshot");
    assert_eq!(snapshot.recoverable_runs.len(), 1, "{snapshot:#?}");
    let run = &snapshot.recoverable_runs[0];
    assert_eq!(run.state, RunState::Interrupted);
    server.push(Reply::text("The rest of the answer."));
    let frames = converse(
        &mut browser,
        &page,
        json!([
            {"send": {"type": "thread.subscribe", "submissionId": "sub-3", "threadId": "$thread"},
             "until": "thread.snapshot"},
            {"send": {"type": "run.resume", "submissionId": "resume", "threadId": "$thread",
                "runId": run.run_id.as_str()}, "until": "turn.complete"},
        ]),
    );
    assert_eq!(streamed_text(&frames), "The rest of the answer.");
    // The stalled connection of the killed worker may go now.
    gate.release();
}
