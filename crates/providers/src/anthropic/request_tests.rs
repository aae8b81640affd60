//! Tests of the Anthropic request builder.

use panelot_core::model::AssistantTurn;
use panelot_core::model::ContentPart;
use panelot_core::model::GenParams;
use panelot_core::model::Message;
use panelot_core::model::ModelRequest;
use panelot_core::model::ReasoningEffort;
use panelot_core::model::SystemPrompt;
use panelot_core::model::ToolCall;
use panelot_core::model::ToolSpec;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::build_request;
use crate::quirks::Quirks;
use crate::quirks::ThinkingBudgetMode;
use crate::request::HeaderValue;

fn request() -> ModelRequest {
    let tool = |name: &str| ToolSpec {
        name: name.into(),
        description: "d".into(),
        parameters: json!({"type": "object"}),
    };
    ModelRequest {
        model: "claude".into(),
        system: SystemPrompt { stable: "kernel".into(), dynamic: "env".into() },
        messages: vec![
            Message::User { content: vec![ContentPart::Text("hi".into())] },
            Message::Assistant(AssistantTurn {
                text: "Sure.".into(),
                reasoning: Some("plan".into()),
                tool_calls: vec![
                    ToolCall { id: "t1".into(), name: "a".into(), arguments: "{\"x\":1}".into() },
                    ToolCall { id: "t2".into(), name: "b".into(), arguments: "{broken".into() },
                ],
                provider_state: vec![
                    json!({"type": "thinking", "thinking": "plan", "signature": "sig"}),
                ],
            }),
            Message::ToolResult {
                call_id: "t1".into(),
                content: vec![ContentPart::Text("done".into())],
                is_error: false,
            },
            Message::ToolResult {
                call_id: "t2".into(),
                content: vec![ContentPart::Image {
                    mime: "image/png".into(),
                    data_base64: "AAA".into(),
                }],
                is_error: true,
            },
        ],
        tools: vec![tool("a"), tool("b")],
        params: GenParams::default(),
    }
}

#[test]
fn default_body_and_headers() {
    let built = build_request(&request(), &Quirks::default(), Some("sk-ant-key"));
    assert_eq!(built.path, "v1/messages");
    assert_eq!(
        built.body,
        json!({
            "model": "claude",
            "max_tokens": 8192,
            "stream": true,
            "cache_control": {"type": "ephemeral"},
            "system": [
                {"type": "text", "text": "kernel", "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": "env"},
            ],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "plan", "signature": "sig"},
                    {"type": "text", "text": "Sure."},
                    {"type": "tool_use", "id": "t1", "name": "a", "input": {"x": 1}},
                    {"type": "tool_use", "id": "t2", "name": "b", "input": {}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "done"}]},
                    {"type": "tool_result", "tool_use_id": "t2", "is_error": true, "content": [
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAA"}},
                    ]},
                ]},
            ],
            "tools": [
                {"name": "a", "description": "d", "input_schema": {"type": "object"}},
                {"name": "b", "description": "d", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}},
            ],
        })
    );
    let headers: Vec<(&str, HeaderValue)> =
        built.headers.iter().map(|h| (h.name, h.value.clone())).collect();
    assert_eq!(
        headers,
        vec![
            ("content-type", HeaderValue::Plain("application/json".into())),
            ("accept", HeaderValue::Plain("text/event-stream".into())),
            ("anthropic-version", HeaderValue::Plain("2023-06-01".into())),
            ("anthropic-dangerous-direct-browser-access", HeaderValue::Plain("true".into())),
            ("x-api-key", HeaderValue::Secret("sk-ant-key".into())),
        ]
    );
    assert!(!format!("{built:?}").contains("sk-ant-key"));
}

#[test]
fn adaptive_thinking_drops_temperature() {
    let mut req = request();
    req.params = GenParams {
        temperature: Some(0.2),
        top_p: Some(0.5),
        reasoning_effort: Some(ReasoningEffort::Medium),
        ..GenParams::default()
    };
    let body = build_request(&req, &Quirks::default(), None).body;
    assert_eq!(
        (&body["thinking"], &body["output_config"]),
        (&json!({"type": "adaptive"}), &json!({"effort": "medium"}))
    );
    assert!(body.get("temperature").is_none() && body.get("top_p").is_none());
}

#[test]
fn manual_budgets_leave_room_for_the_answer() {
    let quirks = Quirks { anthropic_thinking: ThinkingBudgetMode::Manual, ..Quirks::default() };
    let cases = [
        (ReasoningEffort::Low, None, Some(2048)),
        (ReasoningEffort::Medium, None, Some(7168)),
        (ReasoningEffort::High, Some(32000), Some(16384)),
        (ReasoningEffort::High, Some(4096), Some(3072)),
        (ReasoningEffort::Low, Some(1500), None),
    ];
    for (effort, max_tokens, budget) in cases {
        let mut req = request();
        req.params = GenParams {
            max_tokens,
            reasoning_effort: Some(effort),
            temperature: Some(0.3),
            ..GenParams::default()
        };
        let body = build_request(&req, &quirks, None).body;
        let expect = budget.map(|budget| json!({"type": "enabled", "budget_tokens": budget}));
        assert_eq!(body.get("thinking"), expect.as_ref(), "{effort:?} {max_tokens:?}");
        assert!(body.get("output_config").is_none());
        // Without thinking, temperature goes through.
        assert_eq!(body.get("temperature").is_some(), budget.is_none());
    }
}

#[test]
fn unset_params_are_not_sent_and_quirks_apply() {
    let mut req = request();
    let body = build_request(&req, &Quirks::default(), None).body;
    for key in
        ["temperature", "top_p", "stop_sequences", "thinking", "output_config", "tool_choice"]
    {
        assert!(body.get(key).is_none(), "{key} sent");
    }
    req.params = GenParams {
        max_tokens: Some(100),
        stop_sequences: vec!["X".into()],
        temperature: Some(1.0),
        ..GenParams::default()
    };
    let quirks = Quirks { no_parallel_tool_calls: true, ..Quirks::default() };
    let body = build_request(&req, &quirks, None).body;
    assert_eq!(
        [&body["max_tokens"], &body["stop_sequences"], &body["temperature"], &body["tool_choice"]],
        [
            &json!(100),
            &json!(["X"]),
            &json!(1.0),
            &json!({"type": "auto", "disable_parallel_tool_use": true})
        ]
    );
}

#[test]
fn empty_parts_and_empty_assistant_turns_are_dropped() {
    let req = ModelRequest {
        messages: vec![
            Message::User {
                content: vec![ContentPart::Text(String::new()), ContentPart::Text("a".into())],
            },
            Message::Assistant(AssistantTurn::default()),
            Message::User { content: vec![ContentPart::Text("b".into())] },
        ],
        ..ModelRequest::default()
    };
    let body = build_request(&req, &Quirks::default(), None).body;
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}])
    );
    assert!(body.get("system").is_none());
}
