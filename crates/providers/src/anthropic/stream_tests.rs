//! Tests of the Anthropic stream adapter, driven through the SSE decoder.

use panelot_core::model::ModelEvent;
use panelot_core::model::ModelResponse;
use panelot_core::model::ProviderError;
use panelot_core::model::ToolCall;
use panelot_protocol::engine::ProviderErrorKind;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::Usage;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::AnthropicStream;
use crate::stream::StreamDecoder;
use crate::tool_ids::ToolCallIds;

/// `event:` + `data:` pairs, the event name taken from the payload's `type`.
fn sse(events: &[serde_json::Value]) -> String {
    events
        .iter()
        .map(|ev| format!("event: {}\ndata: {ev}\n\n", ev["type"].as_str().unwrap_or("x")))
        .collect()
}

fn run(body: &str) -> (Vec<ModelEvent>, Result<ModelResponse, ProviderError>) {
    let mut decoder = StreamDecoder::new(AnthropicStream::new(ToolCallIds::new("gen_")));
    let mut events = Vec::new();
    if let Err(err) = decoder.feed_into(body.as_bytes(), &mut events) {
        return (events, Err(err));
    }
    let res = decoder.finish(&mut events);
    (events, res)
}

fn start() -> serde_json::Value {
    json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [],
        "usage": {"input_tokens": 10, "cache_creation_input_tokens": 200, "cache_read_input_tokens": 1000, "output_tokens": 1}}})
}

fn stop(reason: &str, output: u64) -> [serde_json::Value; 2] {
    [
        json!({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": null}, "usage": {"output_tokens": output}}),
        json!({"type": "message_stop"}),
    ]
}

fn text_block(index: u32, text: &str) -> [serde_json::Value; 3] {
    [
        json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}}),
        json!({"type": "content_block_stop", "index": index}),
    ]
}

#[track_caller]
fn expect_err(body: &str, kind: ProviderErrorKind, needle: &str) {
    let err = run(body).1.expect_err("should fail");
    assert_eq!(err.kind, kind, "{err:?}");
    // Panelot's conclusion is the message; the provider's words are in the details.
    let said = format!("{} {}", err.message, err.details.upstream_message.unwrap_or_default());
    assert!(said.contains(needle), "{said:?} does not contain {needle:?}");
}

#[test]
fn thinking_text_and_tool_use_with_usage() {
    let mut events = vec![
        start(),
        json!({"type": "ping"}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me"}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQB"}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "Zz=="}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "redacted_thinking", "data": "ENC"}}),
        json!({"type": "content_block_stop", "index": 1}),
    ];
    events.extend(text_block(2, "Okay."));
    events.extend([
        json!({"type": "content_block_start", "index": 3, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "navigate", "input": {}}}),
        json!({"type": "content_block_delta", "index": 3, "delta": {"type": "input_json_delta", "partial_json": ""}}),
        json!({"type": "content_block_delta", "index": 3, "delta": {"type": "input_json_delta", "partial_json": "{\"url\": "}}),
        json!({"type": "content_block_delta", "index": 3, "delta": {"type": "input_json_delta", "partial_json": "\"x\"}"}}),
        json!({"type": "content_block_stop", "index": 3}),
        json!({"type": "content_block_start", "index": 4, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "wait", "input": {}}}),
        json!({"type": "content_block_stop", "index": 4}),
    ]);
    events.extend(stop("tool_use", 42));
    let (model_events, res) = run(&sse(&events));
    assert_eq!(
        model_events,
        vec![
            ModelEvent::ReasoningDelta("Let me".into()),
            ModelEvent::TextDelta("Okay.".into()),
            ModelEvent::ToolCallStarted { index: 0, name: "navigate".into() },
            ModelEvent::ToolCallDelta { index: 0, fragment: "{\"url\": ".into() },
            ModelEvent::ToolCallDelta { index: 0, fragment: "\"x\"}".into() },
            ModelEvent::ToolCallStarted { index: 1, name: "wait".into() },
        ]
    );
    let res = res.unwrap();
    assert_eq!(res.stop_reason, ProviderStopReason::ToolUse);
    assert_eq!(res.turn.text, "Okay.");
    assert_eq!(res.turn.reasoning.as_deref(), Some("Let me"));
    assert_eq!(
        res.turn.provider_state,
        vec![
            json!({"type": "thinking", "thinking": "Let me", "signature": "EqQBZz=="}),
            json!({"type": "redacted_thinking", "data": "ENC"}),
        ]
    );
    assert_eq!(
        res.turn.tool_calls,
        vec![
            ToolCall {
                id: "toolu_1".into(),
                name: "navigate".into(),
                arguments: "{\"url\": \"x\"}".into()
            },
            // Duplicate id repaired; no input deltas means the start's `{}`.
            ToolCall { id: "gen_0".into(), name: "wait".into(), arguments: "{}".into() },
        ]
    );
    // input = 10 uncached + 1000 read + 200 written, each counted once.
    assert_eq!(
        res.usage,
        Usage { input: 1210, output: 42, cache_read: Some(1000), cache_write: Some(200) }
    );
}

#[test]
fn stop_reasons_map() {
    for (raw, stop_reason) in [
        ("end_turn", ProviderStopReason::End),
        ("stop_sequence", ProviderStopReason::End),
        ("max_tokens", ProviderStopReason::MaxTokens),
        ("model_context_window_exceeded", ProviderStopReason::MaxTokens),
        ("refusal", ProviderStopReason::ContentFilter),
    ] {
        let mut events = vec![start()];
        events.extend(text_block(0, "hi"));
        events.extend(stop(raw, 1));
        assert_eq!(run(&sse(&events)).1.unwrap().stop_reason, stop_reason, "{raw}");
    }
}

#[test]
fn pause_turn_and_unknown_stop_reasons_fail() {
    let mut events = vec![start()];
    events.extend(text_block(0, "hi"));
    let mut paused = events.clone();
    paused.extend(stop("pause_turn", 1));
    expect_err(&sse(&paused), ProviderErrorKind::Protocol, "pause_turn");
    events.extend(stop("compaction", 1));
    expect_err(&sse(&events), ProviderErrorKind::Protocol, "\"compaction\"");
}

#[test]
fn success_needs_stop_reason_and_message_stop() {
    let mut events = vec![start()];
    events.extend(text_block(0, "hi"));
    expect_err(&sse(&events), ProviderErrorKind::Network, "before the response was complete");
    let mut no_stop = events.clone();
    no_stop.push(stop("end_turn", 1)[0].clone());
    expect_err(&sse(&no_stop), ProviderErrorKind::Network, "before the response was complete");
    let mut no_reason = events.clone();
    no_reason.push(json!({"type": "message_stop"}));
    expect_err(&sse(&no_reason), ProviderErrorKind::Protocol, "without a stop reason");
    expect_err("", ProviderErrorKind::Network, "empty");
}

#[test]
fn tool_use_with_end_turn_is_a_protocol_error() {
    let mut events = vec![
        start(),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "x", "input": {}}}),
        json!({"type": "content_block_stop", "index": 0}),
    ];
    events.extend(stop("end_turn", 1));
    expect_err(&sse(&events), ProviderErrorKind::Protocol, "\"end_turn\"");
    let mut events = vec![start()];
    events.extend(text_block(0, "hi"));
    events.extend(stop("tool_use", 1));
    expect_err(&sse(&events), ProviderErrorKind::Protocol, "without any tool call");
}

#[test]
fn error_events_are_classified() {
    let body = sse(&[
        start(),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    ]);
    expect_err(&body, ProviderErrorKind::Overloaded, "Overloaded");
    let body = sse(&[
        start(),
        json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}),
    ]);
    expect_err(&body, ProviderErrorKind::RateLimit, "slow");
}

#[test]
fn malformed_block_sequences_are_protocol_errors() {
    let delta_without_start = sse(&[
        start(),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}}),
    ]);
    expect_err(&delta_without_start, ProviderErrorKind::Protocol, "not open");
    let wrong_delta = sse(&[
        start(),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{"}}),
    ]);
    expect_err(&wrong_delta, ProviderErrorKind::Protocol, "does not fit");
    let unknown_block = sse(&[
        start(),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "server_tool_use"}}),
    ]);
    expect_err(&unknown_block, ProviderErrorKind::Protocol, "\"server_tool_use\"");
    let mut unclosed = vec![
        start(),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    ];
    unclosed.extend(stop("end_turn", 1));
    expect_err(&sse(&unclosed), ProviderErrorKind::Protocol, "never ended");
}

#[test]
fn unknown_events_and_delta_types_are_ignored() {
    let mut events = vec![start(), json!({"type": "future_event", "x": 1})];
    events.extend([
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": {}}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}}),
        json!({"type": "content_block_stop", "index": 0}),
    ]);
    events.extend(stop("end_turn", 1));
    assert_eq!(run(&sse(&events)).1.unwrap().turn.text, "ok");
}
