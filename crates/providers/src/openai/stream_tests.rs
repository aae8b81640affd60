//! Tests of the OpenAI-compatible stream adapter, driven through the SSE decoder.

use panelot_core::model::ModelEvent;
use panelot_core::model::ModelResponse;
use panelot_core::model::ProviderError;
use panelot_core::model::ToolCall;
use panelot_protocol::engine::ProviderErrorKind;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::Usage;
use pretty_assertions::assert_eq;

use super::OpenAiStream;
use crate::quirks::Quirks;
use crate::stream::StreamDecoder;
use crate::tool_ids::ToolCallIds;

/// `data:` lines from JSON chunks (and `[DONE]`).
fn sse(chunks: &[&str]) -> String {
    chunks.iter().map(|chunk| format!("data: {chunk}\n\n")).collect()
}

fn run(body: &str, quirks: Quirks) -> (Vec<ModelEvent>, Result<ModelResponse, ProviderError>) {
    let mut decoder = StreamDecoder::new(OpenAiStream::new(quirks, ToolCallIds::new("gen_")));
    let mut events = Vec::new();
    if let Err(err) = decoder.feed_into(body.as_bytes(), &mut events) {
        return (events, Err(err));
    }
    let res = decoder.finish(&mut events);
    (events, res)
}

fn text(t: &str) -> String {
    format!(
        r#"{{"choices":[{{"index":0,"delta":{{"content":{}}},"finish_reason":null}}]}}"#,
        serde_json::json!(t)
    )
}

fn finish(reason: &str) -> String {
    format!(r#"{{"choices":[{{"index":0,"delta":{{}},"finish_reason":"{reason}"}}]}}"#)
}

#[track_caller]
fn expect_err(body: &str, quirks: Quirks, kind: ProviderErrorKind, needle: &str) {
    let (_, res) = run(body, quirks);
    let err = res.expect_err("should fail");
    assert_eq!(err.kind, kind, "{err:?}");
    // Panelot's conclusion is the message; the provider's words are in the details.
    let said = format!("{} {}", err.message, err.details.upstream_message.unwrap_or_default());
    assert!(said.contains(needle), "{said:?} does not contain {needle:?}");
}

#[test]
fn text_with_usage_and_done() {
    let usage = r#"{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":80}}}"#;
    let body = sse(&[&text("Hel"), &text("lo"), &finish("stop"), usage, "[DONE]"]);
    let (events, res) = run(&body, Quirks::default());
    assert_eq!(
        events,
        vec![ModelEvent::TextDelta("Hel".into()), ModelEvent::TextDelta("lo".into())]
    );
    let res = res.unwrap();
    assert_eq!(res.turn.text, "Hello");
    assert_eq!(res.stop_reason, ProviderStopReason::End);
    // Cached tokens are part of prompt_tokens: the total is 100, not 180.
    assert_eq!(res.usage, Usage { input: 100, output: 7, cache_read: Some(80), cache_write: None });
}

#[test]
fn finish_reasons_map_and_unknown_ones_fail_closed() {
    for (raw, stop) in [
        ("stop", ProviderStopReason::End),
        ("length", ProviderStopReason::MaxTokens),
        ("content_filter", ProviderStopReason::ContentFilter),
    ] {
        let (_, res) = run(&sse(&[&text("x"), &finish(raw), "[DONE]"]), Quirks::default());
        assert_eq!(res.unwrap().stop_reason, stop, "{raw}");
    }
    expect_err(
        &sse(&[&text("x"), &finish("eos_token"), "[DONE]"]),
        Quirks::default(),
        ProviderErrorKind::Protocol,
        "\"eos_token\"",
    );
    expect_err(
        &sse(&[&text("x"), &finish("function_call"), "[DONE]"]),
        Quirks::default(),
        ProviderErrorKind::Protocol,
        "finish reason",
    );
}

#[test]
fn success_needs_both_finish_reason_and_done() {
    expect_err(
        &sse(&[&text("x"), &finish("stop")]),
        Quirks::default(),
        ProviderErrorKind::Network,
        "[DONE]",
    );
    expect_err(
        &sse(&[&text("x"), "[DONE]"]),
        Quirks::default(),
        ProviderErrorKind::Protocol,
        "no finish reason",
    );
    expect_err(
        &sse(&[&text("x")]),
        Quirks::default(),
        ProviderErrorKind::Network,
        "before the response was complete",
    );
    expect_err("", Quirks::default(), ProviderErrorKind::Network, "empty");
}

#[test]
fn reasoning_content_and_reasoning_fields() {
    let body = sse(&[
        r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"think "}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"reasoning":"more"}}]}"#,
        &text("answer"),
        &finish("stop"),
        "[DONE]",
    ]);
    let (events, res) = run(&body, Quirks::default());
    assert_eq!(
        events,
        vec![
            ModelEvent::ReasoningDelta("think ".into()),
            ModelEvent::ReasoningDelta("more".into()),
            ModelEvent::TextDelta("answer".into()),
        ]
    );
    let turn = res.unwrap().turn;
    assert_eq!((turn.reasoning.as_deref(), turn.text.as_str()), (Some("think more"), "answer"));
}

#[test]
fn think_tags_become_reasoning_only_under_the_quirk() {
    let body = sse(&[
        &text("<thi"),
        &text("nk>plan</th"),
        &text("ink>\n\nDone <"),
        &finish("stop"),
        "[DONE]",
    ]);
    let quirks = Quirks { think_tag_reasoning: true, ..Quirks::default() };
    let (events, res) = run(&body, quirks);
    let turn = res.unwrap().turn;
    assert_eq!((turn.reasoning.as_deref(), turn.text.as_str()), (Some("plan"), "Done <"));
    // The held-back "<" is emitted once the finish reason shows no tag follows.
    assert_eq!(events.last(), Some(&ModelEvent::TextDelta("<".into())));

    let (_, res) = run(&body, Quirks::default());
    assert_eq!(res.unwrap().turn.text, "<think>plan</think>\n\nDone <");
}

fn tool_delta(index: u32, id: Option<&str>, name: Option<&str>, args: &str) -> String {
    let mut call = serde_json::json!({ "index": index, "function": { "arguments": args } });
    if let Some(id) = id {
        call["id"] = id.into();
        call["type"] = "function".into();
    }
    if let Some(name) = name {
        call["function"]["name"] = name.into();
    }
    serde_json::json!({ "choices": [{ "index": 0, "delta": { "tool_calls": [call] } }] })
        .to_string()
}

#[test]
fn tool_calls_are_aggregated_by_index_with_ids_repaired() {
    let body = sse(&[
        &tool_delta(0, Some("call_a"), Some("navigate"), ""),
        &tool_delta(1, Some("call_a"), Some("click"), "{\"ref\":"),
        &tool_delta(0, None, None, "{\"url\":\"x\"}"),
        &tool_delta(1, None, None, "3}"),
        &tool_delta(2, Some(""), Some("read"), "{not json"),
        &finish("tool_calls"),
        "[DONE]",
    ]);
    let (events, res) = run(&body, Quirks::default());
    assert_eq!(
        events,
        vec![
            ModelEvent::ToolCallStarted { index: 0, name: "navigate".into() },
            ModelEvent::ToolCallStarted { index: 1, name: "click".into() },
            ModelEvent::ToolCallDelta { index: 1, fragment: "{\"ref\":".into() },
            ModelEvent::ToolCallDelta { index: 0, fragment: "{\"url\":\"x\"}".into() },
            ModelEvent::ToolCallDelta { index: 1, fragment: "3}".into() },
            ModelEvent::ToolCallStarted { index: 2, name: "read".into() },
            ModelEvent::ToolCallDelta { index: 2, fragment: "{not json".into() },
        ]
    );
    let res = res.unwrap();
    assert_eq!(res.stop_reason, ProviderStopReason::ToolUse);
    assert_eq!(
        res.turn.tool_calls,
        vec![
            ToolCall {
                id: "call_a".into(),
                name: "navigate".into(),
                arguments: "{\"url\":\"x\"}".into()
            },
            ToolCall { id: "gen_0".into(), name: "click".into(), arguments: "{\"ref\":3}".into() },
            // Invalid JSON arguments are passed through: the engine answers with a tool error.
            ToolCall { id: "gen_1".into(), name: "read".into(), arguments: "{not json".into() },
        ]
    );
}

#[test]
fn tool_calls_without_index_and_object_arguments() {
    let body = sse(&[
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c1","function":{"name":"a","arguments":{"x":1}}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c2","function":{"name":"b","arguments":"{}"}}]}}]}"#,
        &finish("tool_calls"),
        "[DONE]",
    ]);
    let calls = run(&body, Quirks::default()).1.unwrap().turn.tool_calls;
    assert_eq!(
        calls,
        vec![
            ToolCall { id: "c1".into(), name: "a".into(), arguments: "{\"x\":1}".into() },
            ToolCall { id: "c2".into(), name: "b".into(), arguments: "{}".into() },
        ]
    );
}

/// Complete tool calls finished with "stop" (OpenAI with a forced `tool_choice`, Ollama, LM
/// Studio, llama.cpp) are tool use on every connection, with no setting to switch on.
#[test]
fn tool_calls_finished_with_stop_are_tool_use() {
    let body = sse(&[
        &text("Let me look."),
        &tool_delta(0, Some("call_1"), Some("read"), "{\"ref\":"),
        &tool_delta(0, None, None, "\"e1\"}"),
        &finish("stop"),
        "[DONE]",
    ]);
    let res = run(&body, Quirks::default()).1.unwrap();
    assert_eq!(res.stop_reason, ProviderStopReason::ToolUse);
    assert_eq!(res.turn.text, "Let me look.");
    assert_eq!(
        res.turn.tool_calls,
        vec![ToolCall {
            id: "call_1".into(),
            name: "read".into(),
            arguments: "{\"ref\":\"e1\"}".into()
        }]
    );
    // "stop" without calls stays the end of the answer.
    let plain = run(&sse(&[&text("Done."), &finish("stop"), "[DONE]"]), Quirks::default());
    assert_eq!(plain.1.unwrap().stop_reason, ProviderStopReason::End);
}

/// A call cut off by the token limit is never run (its arguments are likely incomplete), nor is
/// one that came with a filtered answer.
#[test]
fn tool_calls_cut_by_the_limit_or_a_filter_are_errors() {
    let body =
        sse(&[&tool_delta(0, Some("call_1"), Some("read"), "{"), &finish("length"), "[DONE]"]);
    expect_err(&body, Quirks::default(), ProviderErrorKind::Protocol, "output token limit");
    let body = sse(&[
        &tool_delta(0, Some("call_1"), Some("read"), "{}"),
        &finish("content_filter"),
        "[DONE]",
    ]);
    expect_err(&body, Quirks::default(), ProviderErrorKind::Protocol, "\"content_filter\"");
}

#[test]
fn inconsistent_tool_use_is_a_protocol_error() {
    expect_err(
        &sse(&[&text("x"), &finish("tool_calls"), "[DONE]"]),
        Quirks::default(),
        ProviderErrorKind::Protocol,
        "without any tool call",
    );
    let nameless = sse(&[&tool_delta(0, Some("c"), None, "{}"), &finish("tool_calls"), "[DONE]"]);
    expect_err(&nameless, Quirks::default(), ProviderErrorKind::Protocol, "without a name");
}

#[test]
fn in_stream_errors_are_classified() {
    let body = sse(&[
        &text("x"),
        r#"{"error":{"message":"The server had an error","type":"server_error"}}"#,
    ]);
    expect_err(&body, Quirks::default(), ProviderErrorKind::Network, "server had an error");
    let body = sse(&[
        r#"{"id":"gen-1","error":{"code":429,"message":"Rate limit exceeded"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}"#,
    ]);
    expect_err(&body, Quirks::default(), ProviderErrorKind::RateLimit, "Rate limit");
    expect_err(
        &sse(&[&text("x"), &finish("error"), "[DONE]"]),
        Quirks::default(),
        ProviderErrorKind::Network,
        "mid-stream",
    );
    expect_err(
        "event: error\ndata: {\"error\":{\"message\":\"boom\"}}\n\n",
        Quirks::default(),
        ProviderErrorKind::Network,
        "boom",
    );
}

#[test]
fn invalid_chunk_json_is_a_protocol_error() {
    expect_err(
        &sse(&["{\"choices\":[{\"delta\":"]),
        Quirks::default(),
        ProviderErrorKind::Protocol,
        "invalid stream chunk",
    );
}

#[test]
fn usage_variants_count_cache_once() {
    let cases = [
        // DeepSeek: prompt = hit + miss.
        (
            r#"{"prompt_tokens":50,"completion_tokens":5,"prompt_cache_hit_tokens":40,"prompt_cache_miss_tokens":10}"#,
            Usage { input: 50, output: 5, cache_read: Some(40), cache_write: None },
        ),
        // Moonshot.
        (
            r#"{"prompt_tokens":30,"completion_tokens":2,"cached_tokens":20}"#,
            Usage { input: 30, output: 2, cache_read: Some(20), cache_write: None },
        ),
        // OpenRouter with cache writes.
        (
            r#"{"prompt_tokens":300,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":100,"cache_write_tokens":150}}"#,
            Usage { input: 300, output: 3, cache_read: Some(100), cache_write: Some(150) },
        ),
        (
            r#"{"prompt_tokens":9,"completion_tokens":1}"#,
            Usage { input: 9, output: 1, cache_read: None, cache_write: None },
        ),
    ];
    for (usage, expect) in cases {
        let chunk = format!(r#"{{"choices":[],"usage":{usage}}}"#);
        let body = sse(&[&text("x"), &finish("stop"), &chunk, "[DONE]"]);
        assert_eq!(run(&body, Quirks::default()).1.unwrap().usage, expect, "{usage}");
    }
}

#[test]
fn events_after_done_are_ignored() {
    let body = sse(&[&text("x"), &finish("stop"), "[DONE]", &text("late")]);
    assert_eq!(run(&body, Quirks::default()).1.unwrap().turn.text, "x");
}
