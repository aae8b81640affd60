//! `ModelRequest` → OpenAI-compatible `chat/completions` request.

use panelot_core::model::AssistantTurn;
use panelot_core::model::ContentPart;
use panelot_core::model::GenParams;
use panelot_core::model::Message;
use panelot_core::model::ModelRequest;
use panelot_core::model::ReasoningEffort;
use panelot_core::model::ToolSpec;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use crate::quirks::Quirks;
use crate::request::Header;
use crate::request::ProviderRequest;

/// Path below the base URL (which carries `/v1` for OpenAI-compatible servers).
pub const CHAT_COMPLETIONS_PATH: &str = "chat/completions";

/// The streaming request for `req` at an endpoint with `quirks`; `api_key` goes into an
/// `authorization` header when present and non-empty (local servers need none).
pub fn build_request(
    req: &ModelRequest,
    quirks: &Quirks,
    api_key: Option<&str>,
) -> ProviderRequest {
    let mut body = Map::new();
    body.insert("model".into(), req.model.clone().into());
    body.insert("messages".into(), Value::Array(messages(req, quirks)));
    body.insert("stream".into(), true.into());
    if !quirks.no_stream_options {
        body.insert("stream_options".into(), json!({ "include_usage": true }));
    }
    if !req.tools.is_empty() {
        body.insert("tools".into(), req.tools.iter().map(tool).collect());
        // OpenAI rejects `parallel_tool_calls` on a request without tools.
        if quirks.no_parallel_tool_calls {
            body.insert("parallel_tool_calls".into(), false.into());
        }
    }
    insert_params(&mut body, &req.params, quirks);
    let mut headers = vec![
        Header::plain("content-type", "application/json"),
        Header::plain("accept", "text/event-stream"),
    ];
    if let Some(key) = api_key.filter(|key| !key.is_empty()) {
        headers.push(Header::secret("authorization", format!("Bearer {key}")));
    }
    ProviderRequest { path: CHAT_COMPLETIONS_PATH, headers, body: Value::Object(body) }
}

fn insert_params(body: &mut Map<String, Value>, params: &GenParams, quirks: &Quirks) {
    if let Some(temperature) = params.temperature {
        body.insert("temperature".into(), temperature.into());
    }
    if let Some(top_p) = params.top_p {
        body.insert("top_p".into(), top_p.into());
    }
    if let Some(max_tokens) = params.max_tokens {
        body.insert(quirks.max_tokens_field.field().into(), max_tokens.into());
    }
    if !params.stop_sequences.is_empty() {
        body.insert("stop".into(), params.stop_sequences.clone().into());
    }
    if let Some(effort) = params.reasoning_effort {
        body.insert("reasoning_effort".into(), effort_name(effort).into());
    }
}

pub(crate) fn effort_name(effort: ReasoningEffort) -> &'static str {
    match effort {
        ReasoningEffort::Low => "low",
        ReasoningEffort::Medium => "medium",
        ReasoningEffort::High => "high",
    }
}

fn tool(spec: &ToolSpec) -> Value {
    json!({
        "type": "function",
        "function": { "name": spec.name, "description": spec.description, "parameters": spec.parameters },
    })
}

fn messages(req: &ModelRequest, quirks: &Quirks) -> Vec<Value> {
    let system = [req.system.stable.as_str(), req.system.dynamic.as_str()]
        .into_iter()
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    let mut out = Vec::with_capacity(req.messages.len() + 1);
    // Under `noSystemRole` the system text opens the first user message rather than being a
    // message of its own: templates strict enough to lack a system role usually also insist
    // that user and assistant alternate.
    let mut system_for_user = None;
    if !system.is_empty() {
        if quirks.no_system_role {
            system_for_user = Some(system);
        } else {
            out.push(json!({ "role": "system", "content": system }));
        }
    }
    if let Some(system) = &system_for_user
        && !matches!(req.messages.first(), Some(Message::User { .. }))
    {
        out.push(json!({ "role": "user", "content": system }));
        system_for_user = None;
    }
    // Images in tool results: a `tool` message carries text only, so they follow the run of
    // tool messages in one user message (nothing may come between an assistant's tool calls
    // and their results).
    let mut pending_images: Vec<Value> = Vec::new();
    for message in &req.messages {
        if !matches!(message, Message::ToolResult { .. }) && !pending_images.is_empty() {
            out.push(json!({ "role": "user", "content": std::mem::take(&mut pending_images) }));
        }
        match message {
            Message::User { content } => {
                out.push(json!({ "role": "user", "content": user_content(content, system_for_user.take()) }));
            }
            Message::Assistant(turn) => out.push(assistant(turn, quirks)),
            Message::ToolResult { call_id, content, is_error: _ } => {
                // The format has no error flag: the engine's result text says so itself.
                let mut text = Vec::new();
                for part in content {
                    match part {
                        ContentPart::Text(t) => text.push(t.as_str()),
                        ContentPart::Image { .. } => {
                            if pending_images.is_empty() {
                                pending_images.push(json!({ "type": "text", "text": "Images returned by the tool calls above:" }));
                            }
                            pending_images.push(part_json(part));
                        }
                    }
                }
                out.push(
                    json!({ "role": "tool", "tool_call_id": call_id, "content": text.join("\n") }),
                );
            }
        }
    }
    if !pending_images.is_empty() {
        out.push(json!({ "role": "user", "content": pending_images }));
    }
    out
}

/// A single text part goes as a plain string, which every server accepts; anything else as
/// parts.
fn user_content(content: &[ContentPart], prefix: Option<String>) -> Value {
    match (content, prefix) {
        ([ContentPart::Text(text)], None) => text.as_str().into(),
        ([ContentPart::Text(text)], Some(prefix)) => format!("{prefix}\n\n{text}").into(),
        ([], Some(prefix)) => prefix.into(),
        (parts, prefix) => {
            let mut out: Vec<Value> =
                prefix.map(|p| json!({ "type": "text", "text": p })).into_iter().collect();
            out.extend(parts.iter().map(part_json));
            Value::Array(out)
        }
    }
}

fn part_json(part: &ContentPart) -> Value {
    match part {
        ContentPart::Text(text) => json!({ "type": "text", "text": text }),
        ContentPart::Image { mime, data_base64 } => {
            json!({ "type": "image_url", "image_url": { "url": format!("data:{mime};base64,{data_base64}") } })
        }
    }
}

fn assistant(turn: &AssistantTurn, quirks: &Quirks) -> Value {
    let mut message = Map::new();
    message.insert("role".into(), "assistant".into());
    // `content: null` with tool calls is what OpenAI itself sends back; an empty string
    // without them keeps strict servers happy.
    let content = if turn.text.is_empty() && !turn.tool_calls.is_empty() {
        Value::Null
    } else {
        turn.text.clone().into()
    };
    message.insert("content".into(), content);
    if !turn.tool_calls.is_empty() {
        let calls = turn
            .tool_calls
            .iter()
            .map(|call| json!({ "id": call.id, "type": "function", "function": { "name": call.name, "arguments": call.arguments } }))
            .collect();
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    // DeepSeek (thinking with tools) and Moonshot want the reasoning back; others ignore it.
    if let Some(reasoning) = &turn.reasoning
        && !quirks.no_reasoning_replay
    {
        message.insert("reasoning_content".into(), reasoning.clone().into());
    }
    Value::Object(message)
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
