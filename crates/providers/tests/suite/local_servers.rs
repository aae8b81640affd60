//! Local model servers (Ollama, LM Studio, llama.cpp) finish tool calls with `"stop"`: through
//! the client, a connection with no quirks at all runs them and passes Verify, so nobody has to
//! know a setting exists. And a connection that names its model still gets the endpoint's
//! list from Verify, for the settings page to offer.

use panelot_core::env::AbortSignal;
use panelot_protocol::engine::ProviderStopReason;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::Reply;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::harness::FakeTimer;
use super::harness::call;
use super::harness::client;
use super::harness::hello;
use super::harness::openai_at;

#[tokio::test]
async fn tool_calls_finished_with_stop_run_without_any_quirk() {
    let server = MockProvider::start();
    server.push(Reply::tool_call("read_page", json!({})).finish("stop"));
    let conn = openai_at(&server, &[]);
    assert_eq!(conn.quirks.flags(), Vec::new());
    let timer = FakeTimer::new();
    let client = client(&timer, vec![conn]);
    let response = call(&client, "oa", &hello()).await.1.unwrap();
    assert_eq!(response.stop_reason, ProviderStopReason::ToolUse);
    assert_eq!(response.turn.tool_calls.len(), 1);
    assert_eq!(response.turn.tool_calls[0].name, "read_page");
}

#[tokio::test]
async fn verify_passes_against_a_server_that_finishes_tool_calls_with_stop() {
    let server = MockProvider::start();
    server.set_models(["qwen3:8b", "llama3.2"]);
    server.push(Reply::text("OK"));
    server.push(Reply::tool_call("echo", json!({"text": "ping"})).finish("stop"));
    server.push(Reply::text("ping"));
    let timer = FakeTimer::new();
    let client = client(&timer, Vec::new());
    // The connection names its model; the report still lists what the server has.
    let mut conn = openai_at(&server, &[]);
    conn.model_ids = vec!["llama3.2".to_owned()];
    let report = client.verify(&conn, None, &AbortSignal::default()).await;
    assert_eq!(
        (report.reachable, report.key_valid, report.streaming, report.tool_use, report.failure),
        (true, true, true, true, None)
    );
    assert_eq!(report.models, Some(vec!["qwen3:8b".to_owned(), "llama3.2".to_owned()]));
    assert_eq!(report.model.as_deref(), Some("llama3.2"));
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}
