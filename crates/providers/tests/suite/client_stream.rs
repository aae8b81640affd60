//! `ProviderClient` streaming over real loopback HTTP against the mock provider: both wire
//! formats, retries and their backoff schedule, no retry after delivered events, stalls,
//! aborts and hostile answers.

use panelot_core::env::AbortSignal;
use panelot_core::model::ModelBackend;
use panelot_core::model::ModelEvent;
use panelot_protocol::engine::ProviderErrorKind;
use panelot_protocol::engine::ProviderStopReason;
use panelot_providers::ClientConfig;
use panelot_providers::WireFormat;
use panelot_testkit::mock_provider::Gate;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::Reply;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::harness::FakeTimer;
use super::harness::anthropic_at;
use super::harness::call;
use super::harness::chat_requests;
use super::harness::client;
use super::harness::client_with;
use super::harness::connection;
use super::harness::hello;
use super::harness::openai_at;

fn reason(err: &panelot_core::model::ProviderError) -> Option<&str> {
    err.details.reason.as_deref()
}

#[tokio::test]
async fn an_openai_stream_delivers_events_and_the_response() {
    let server = MockProvider::start();
    server.push(Reply::reasoning("Think.").then_text("Hello there"));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![openai_at(&server, &["sk-test-key-1"])]);
    let (events, res) = call(&client, "oa", &hello()).await;
    let response = res.unwrap();
    assert_eq!(
        events,
        vec![
            ModelEvent::ReasoningDelta("Think.".to_owned()),
            ModelEvent::TextDelta("Hello there".to_owned())
        ]
    );
    assert_eq!(response.turn.text, "Hello there");
    assert_eq!(response.stop_reason, ProviderStopReason::End);
    let requests = chat_requests(&server);
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].header("authorization"), Some("Bearer sk-test-key-1"));
    assert_eq!(requests[0].json.as_ref().unwrap()["model"], json!("mock-model"));
    assert_eq!(timer.backoffs(), Vec::<u64>::new());
}

#[tokio::test]
async fn an_anthropic_tool_call_streams_with_its_headers() {
    let server = MockProvider::start();
    server.push(Reply::tool_call("click", json!({"ref": "e1"})).with_id("toolu_1"));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![anthropic_at(&server, &["ak-test-key-1"])]);
    let (events, res) = call(&client, "an", &hello()).await;
    let response = res.unwrap();
    assert_eq!(response.stop_reason, ProviderStopReason::ToolUse);
    assert_eq!(response.turn.tool_calls[0].id, "toolu_1");
    assert_eq!(response.turn.tool_calls[0].arguments, r#"{"ref":"e1"}"#);
    assert!(
        matches!(&events[0], ModelEvent::ToolCallStarted { index: 0, name } if name == "click")
    );
    let requests = chat_requests(&server);
    assert_eq!(requests[0].path, "/v1/messages");
    assert_eq!(requests[0].header("x-api-key"), Some("ak-test-key-1"));
    assert_eq!(requests[0].header("anthropic-version"), Some("2023-06-01"));
    assert!(server.violations().is_empty());
}

#[tokio::test]
async fn server_errors_back_off_one_two_four_seconds_with_jitter_then_succeed() {
    let server = MockProvider::start();
    for _ in 0..3 {
        server.push(Reply::error(500, json!({"error": {"message": "boom"}})));
    }
    server.push(Reply::text("finally"));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![openai_at(&server, &["sk-k1"])]);
    let (_, res) = call(&client, "oa", &hello()).await;
    assert_eq!(res.unwrap().turn.text, "finally");
    assert_eq!(chat_requests(&server).len(), 4);
    let backoffs = timer.backoffs();
    assert_eq!(backoffs.len(), 3, "{backoffs:?}");
    for (delay, full) in backoffs.iter().zip([1_000, 2_000, 4_000]) {
        assert!((full / 2..=full).contains(delay), "{backoffs:?}");
    }
}

#[tokio::test]
async fn at_most_four_attempts_are_made() {
    let server = MockProvider::start();
    for _ in 0..6 {
        server.push(Reply::error(503, json!({"error": {"message": "overloaded"}})));
    }
    let timer = FakeTimer::new();
    let client = client(&timer, vec![openai_at(&server, &["sk-k1"])]);
    let (_, res) = call(&client, "oa", &hello()).await;
    let err = res.unwrap_err();
    assert_eq!((err.kind, err.details.status), (ProviderErrorKind::Overloaded, Some(503)));
    assert_eq!(chat_requests(&server).len(), 4);
    assert_eq!(timer.backoffs().len(), 3);
    assert_eq!(server.pending_replies(), 2);
}

#[tokio::test]
async fn retry_after_is_honoured_when_longer_than_the_backoff() {
    let server = MockProvider::start();
    server.push(Reply::error(429, json!({"error": {"message": "slow down"}})).retry_after(9));
    server.push(Reply::text("ok"));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![openai_at(&server, &["sk-only"])]);
    let (_, res) = call(&client, "oa", &hello()).await;
    assert_eq!(res.unwrap().turn.text, "ok");
    assert_eq!(timer.backoffs(), vec![9_000]);
}

#[tokio::test]
async fn a_retry_after_beyond_the_limit_fails_the_call_at_once() {
    let server = MockProvider::start();
    server.push(Reply::error(429, json!({"error": {"message": "later"}})).retry_after(3_600));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![openai_at(&server, &["sk-only"])]);
    let (_, res) = call(&client, "oa", &hello()).await;
    assert_eq!(res.unwrap_err().kind, ProviderErrorKind::RateLimit);
    assert_eq!(timer.backoffs(), Vec::<u64>::new());
}

#[tokio::test]
async fn a_stream_that_delivered_events_is_never_retried() {
    let server = MockProvider::start();
    server.push(Reply::text("Half an ans").truncated());
    server.push(Reply::text("never requested"));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![openai_at(&server, &["sk-k1"])]);
    let (events, res) = call(&client, "oa", &hello()).await;
    let err = res.unwrap_err();
    assert_eq!(reason(&err), Some("incomplete_response"));
    assert_eq!(events, vec![ModelEvent::TextDelta("Half an ans".to_owned())]);
    assert_eq!(server.pending_replies(), 1);
    assert_eq!(timer.backoffs(), Vec::<u64>::new());
}

#[tokio::test]
async fn an_empty_stream_before_any_event_is_retried() {
    let server = MockProvider::start();
    server.push(Reply::garbage(Vec::new()));
    server.push(Reply::text("second time"));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![anthropic_at(&server, &["ak-k1"])]);
    let (events, res) = call(&client, "an", &hello()).await;
    assert_eq!(res.unwrap().turn.text, "second time");
    // The retry is announced before the wait, naming the connection and what failed.
    let wait_ms = timer.backoffs()[0];
    assert_eq!(
        events,
        vec![
            ModelEvent::Retrying {
                attempt: 2,
                wait_ms,
                message: "an: the response was empty".to_owned(),
            },
            ModelEvent::TextDelta("second time".to_owned()),
        ]
    );
    assert_eq!(timer.backoffs().len(), 1);
}

#[tokio::test]
async fn an_html_error_page_is_classified_not_parsed() {
    let server = MockProvider::start();
    server.push(Reply::html_error(404));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![openai_at(&server, &["sk-k1"])]);
    let (_, res) = call(&client, "oa", &hello()).await;
    let err = res.unwrap_err();
    assert_eq!((err.kind, reason(&err)), (ProviderErrorKind::Protocol, Some("endpoint_not_found")));
    assert_eq!(err.details.upstream_message.as_deref(), Some("HTML page: 404 Not Found"));
    assert!(
        err.message.starts_with("oa: there is no API at this address (HTTP 404)."),
        "{}",
        err.message
    );
    assert_eq!(chat_requests(&server).len(), 1);
}

#[tokio::test]
async fn an_html_page_with_status_200_is_a_protocol_error() {
    let server = MockProvider::start();
    server.push(Reply::html_error(200));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![openai_at(&server, &["sk-k1"])]);
    let (events, res) = call(&client, "oa", &hello()).await;
    let err = res.unwrap_err();
    assert_eq!((err.kind, reason(&err)), (ProviderErrorKind::Protocol, Some("response_format")));
    let base_url = format!("{}/v1", server.base_url());
    assert_eq!(
        err.message,
        format!(
            "oa: the server answered with text/html instead of an event stream. Check that the \
             server at {base_url} speaks the connection's kind (OpenAI-compatible or Anthropic)."
        )
    );
    assert_eq!(err.details.upstream_message.as_deref(), Some("HTML page: 200 OK"));
    assert!(events.is_empty());
    assert_eq!(chat_requests(&server).len(), 1);
}

#[tokio::test]
async fn ten_megabytes_of_garbage_is_a_typed_error() {
    let server = MockProvider::start();
    let garbage: Vec<u8> =
        (0..10 * 1024 * 1024u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect();
    for _ in 0..4 {
        server.push(Reply::garbage(garbage.clone()));
    }
    let timer = FakeTimer::new();
    let client = client(&timer, vec![openai_at(&server, &["sk-k1"])]);
    let (_, res) = call(&client, "oa", &hello()).await;
    assert!(res.is_err());
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_on_every_attempt() {
    let server = MockProvider::start();
    let gate = Gate::new();
    for _ in 0..4 {
        server.push(Reply::stall(&gate));
    }
    let timer = FakeTimer::with_real_timeouts();
    let config = ClientConfig { stall_timeout_ms: 500, ..ClientConfig::default() };
    let client = client_with(&timer, config, vec![openai_at(&server, &["sk-k1"])]);
    let (_, res) = call(&client, "oa", &hello()).await;
    let err = res.unwrap_err();
    assert_eq!((err.kind, reason(&err)), (ProviderErrorKind::Network, Some("stalled")));
    assert_eq!(timer.backoffs().len(), 3);
}

#[tokio::test]
async fn a_stream_that_stalls_after_an_event_times_out_without_retry() {
    let server = MockProvider::start();
    let gate = Gate::new();
    server.push(Reply::text("Hel").then_stall(&gate).then_text("lo"));
    let timer = FakeTimer::with_real_timeouts();
    let config = ClientConfig { stall_timeout_ms: 500, ..ClientConfig::default() };
    let client = client_with(&timer, config, vec![openai_at(&server, &["sk-k1"])]);
    let (events, res) = call(&client, "oa", &hello()).await;
    assert_eq!(reason(&res.unwrap_err()), Some("stalled"));
    assert_eq!(events, vec![ModelEvent::TextDelta("Hel".to_owned())]);
    assert_eq!(chat_requests(&server).len(), 1);
}

#[tokio::test]
async fn abort_ends_a_stalled_stream_at_once_and_closes_the_connection() {
    let server = MockProvider::start();
    let gate = Gate::new();
    server.push(Reply::text("Hel").then_stall(&gate).then_text("lo"));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![openai_at(&server, &["sk-k1"])]);
    let (handle, signal) = AbortSignal::new();
    let mut events = Vec::new();
    // Abort as soon as the first event arrives: the stall would otherwise never end.
    let mut on_event = |event| {
        events.push(event);
        handle.abort();
    };
    let res = client.stream("oa", &hello(), &mut on_event, signal).await;
    let err = res.unwrap_err();
    assert_eq!((err.kind, reason(&err)), (ProviderErrorKind::Network, Some("aborted")));
    assert!(err.message.contains("aborted"), "{}", err.message);
    assert_eq!(events, vec![ModelEvent::TextDelta("Hel".to_owned())]);
    // The transport closes the socket on its runtime, so wait without blocking the runtime.
    for _ in 0..1_000 {
        if server.open_connections() == 0 {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the aborted stream's connection stayed open");
}

#[tokio::test]
async fn an_unreachable_endpoint_is_a_network_error_after_retries() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let conn = connection("dead", WireFormat::OpenAi, &format!("http://127.0.0.1:{port}/v1"), &[]);
    let timer = FakeTimer::new();
    let client = client(&timer, vec![conn]);
    let (_, res) = call(&client, "dead", &hello()).await;
    let err = res.unwrap_err();
    assert_eq!((err.kind, reason(&err)), (ProviderErrorKind::Network, Some("unreachable")));
    assert_eq!(timer.backoffs().len(), 3);
}

#[tokio::test]
async fn unknown_and_disabled_connections_fail_without_a_request() {
    let server = MockProvider::start();
    let mut disabled = openai_at(&server, &[]);
    disabled.enabled = false;
    let timer = FakeTimer::new();
    let client = client(&timer, vec![disabled]);
    for id in ["oa", "nope"] {
        let (_, res) = call(&client, id, &hello()).await;
        assert_eq!(reason(&res.unwrap_err()), Some("connection_unavailable"), "{id}");
    }
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_call_aborted_before_it_starts_sends_nothing() {
    let server = MockProvider::start();
    server.push(Reply::text("unused"));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![openai_at(&server, &["sk-k1"])]);
    let (handle, signal) = AbortSignal::new();
    handle.abort();
    let mut on_event = |_| {};
    let err = client.stream("oa", &hello(), &mut on_event, signal).await.unwrap_err();
    assert_eq!(reason(&err), Some("aborted"));
    assert_eq!(server.pending_replies(), 1);
}
