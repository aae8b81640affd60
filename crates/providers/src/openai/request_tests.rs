//! Tests of the OpenAI-compatible request builder.

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
use crate::quirks::MaxTokensField;
use crate::quirks::Quirks;
use crate::request::HeaderValue;

fn user(text: &str) -> Message {
    Message::User { content: vec![ContentPart::Text(text.to_owned())] }
}

fn request() -> ModelRequest {
    ModelRequest {
        model: "m".into(),
        system: SystemPrompt { stable: "kernel".into(), dynamic: "env".into() },
        messages: vec![
            user("hi"),
            Message::Assistant(AssistantTurn {
                text: String::new(),
                reasoning: Some("why".into()),
                tool_calls: vec![ToolCall {
                    id: "c1".into(),
                    name: "shot".into(),
                    arguments: "{}".into(),
                }],
                provider_state: vec![],
            }),
            Message::ToolResult {
                call_id: "c1".into(),
                content: vec![
                    ContentPart::Text("ok".into()),
                    ContentPart::Image { mime: "image/png".into(), data_base64: "AAA".into() },
                ],
                is_error: false,
            },
        ],
        tools: vec![ToolSpec {
            name: "shot".into(),
            description: "d".into(),
            parameters: json!({"type": "object"}),
        }],
        params: GenParams::default(),
    }
}

#[test]
fn default_body() {
    let built = build_request(&request(), &Quirks::default(), Some("sk-test"));
    assert_eq!(built.path, "chat/completions");
    assert_eq!(
        built.body,
        json!({
            "model": "m",
            "stream": true,
            "stream_options": {"include_usage": true},
            "messages": [
                {"role": "system", "content": "kernel\n\nenv"},
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": null, "reasoning_content": "why",
                 "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "shot", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "ok"},
                {"role": "user", "content": [
                    {"type": "text", "text": "Images returned by the tool calls above:"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA"}},
                ]},
            ],
            "tools": [{"type": "function", "function": {"name": "shot", "description": "d", "parameters": {"type": "object"}}}],
        })
    );
    let auth = built.headers.iter().find(|h| h.name == "authorization").map(|h| h.value.clone());
    assert_eq!(auth, Some(HeaderValue::Secret("Bearer sk-test".into())));
}

#[test]
fn unset_params_are_not_sent_and_set_ones_are() {
    let mut req = request();
    req.tools.clear();
    let body = build_request(&req, &Quirks::default(), None).body;
    for key in [
        "temperature",
        "top_p",
        "max_tokens",
        "max_completion_tokens",
        "stop",
        "reasoning_effort",
        "tools",
        "parallel_tool_calls",
    ] {
        assert!(body.get(key).is_none(), "{key} sent");
    }
    req.params = GenParams {
        temperature: Some(0.5),
        top_p: Some(0.9),
        max_tokens: Some(100),
        stop_sequences: vec!["END".into()],
        reasoning_effort: Some(ReasoningEffort::High),
    };
    let body = build_request(&req, &Quirks::default(), None).body;
    assert_eq!(
        [
            &body["temperature"],
            &body["top_p"],
            &body["max_tokens"],
            &body["stop"],
            &body["reasoning_effort"]
        ],
        [&json!(0.5), &json!(0.9), &json!(100), &json!(["END"]), &json!("high")]
    );
}

#[test]
fn quirks_change_the_body() {
    let mut req = request();
    req.params.max_tokens = Some(64);
    let quirks = Quirks {
        no_stream_options: true,
        no_parallel_tool_calls: true,
        max_tokens_field: MaxTokensField::MaxCompletionTokens,
        no_system_role: true,
        no_reasoning_replay: true,
        ..Quirks::default()
    };
    let built = build_request(&req, &quirks, Some(""));
    let body = &built.body;
    assert!(body.get("stream_options").is_none());
    assert_eq!(body["parallel_tool_calls"], json!(false));
    assert_eq!((body.get("max_tokens"), &body["max_completion_tokens"]), (None, &json!(64)));
    assert_eq!(body["messages"][0], json!({"role": "user", "content": "kernel\n\nenv\n\nhi"}));
    assert!(body["messages"][1].get("reasoning_content").is_none());
    // An empty key sends no authorization header.
    assert!(built.headers.iter().all(|h| h.name != "authorization"));
}

#[test]
fn no_system_role_without_a_leading_user_message_adds_one() {
    let req = ModelRequest {
        system: SystemPrompt { stable: "s".into(), dynamic: String::new() },
        ..request()
    };
    let req = ModelRequest { messages: req.messages[1..].to_vec(), ..req };
    let quirks = Quirks { no_system_role: true, ..Quirks::default() };
    let body = build_request(&req, &quirks, None).body;
    assert_eq!(body["messages"][0], json!({"role": "user", "content": "s"}));
    assert_eq!(body["messages"][1]["role"], json!("assistant"));
}

#[test]
fn multi_part_user_content() {
    let req = ModelRequest {
        messages: vec![Message::User {
            content: vec![
                ContentPart::Text("look".into()),
                ContentPart::Image { mime: "image/jpeg".into(), data_base64: "Zm9v".into() },
            ],
        }],
        ..ModelRequest::default()
    };
    let body = build_request(&req, &Quirks::default(), None).body;
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,Zm9v"}},
        ]}])
    );
}
