//! `ModelRequest` → Anthropic `messages` request.

use panelot_core::model::AssistantTurn;
use panelot_core::model::ContentPart;
use panelot_core::model::Message;
use panelot_core::model::ModelRequest;
use panelot_core::model::ReasoningEffort;
use panelot_core::model::ToolSpec;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use crate::openai::effort_name;
use crate::quirks::Quirks;
use crate::quirks::ThinkingBudgetMode;
use crate::request::Header;
use crate::request::ProviderRequest;

/// Path below the base URL (`https://api.anthropic.com`).
pub const MESSAGES_PATH: &str = "v1/messages";
/// The API version header value.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// `max_tokens` when the parameters set none (the API requires the field).
pub const DEFAULT_MAX_TOKENS: u32 = 8192;
/// Tokens always left for the answer under a manual thinking budget.
const ANSWER_RESERVE: u32 = 1024;
/// The API's smallest thinking budget.
const MIN_THINKING_BUDGET: u32 = 1024;

/// The streaming request for `req`; `api_key` goes into `x-api-key` when present and non-empty.
pub fn build_request(
    req: &ModelRequest,
    quirks: &Quirks,
    api_key: Option<&str>,
) -> ProviderRequest {
    let max_tokens = req.params.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    let mut body = Map::new();
    body.insert("model".into(), req.model.clone().into());
    body.insert("max_tokens".into(), max_tokens.into());
    body.insert("stream".into(), true.into());
    // Automatic caching moves a third breakpoint along the conversation; the system prompt and
    // the tools carry their own.
    body.insert("cache_control".into(), ephemeral());
    let system = system_blocks(req);
    if !system.is_empty() {
        body.insert("system".into(), Value::Array(system));
    }
    body.insert("messages".into(), Value::Array(messages(&req.messages)));
    if !req.tools.is_empty() {
        let n_tools = req.tools.len();
        let tools =
            req.tools.iter().enumerate().map(|(i, spec)| tool(spec, i + 1 == n_tools)).collect();
        body.insert("tools".into(), Value::Array(tools));
        if quirks.no_parallel_tool_calls {
            body.insert(
                "tool_choice".into(),
                json!({ "type": "auto", "disable_parallel_tool_use": true }),
            );
        }
    }
    let thinking = req
        .params
        .reasoning_effort
        .and_then(|effort| thinking(effort, max_tokens, quirks.anthropic_thinking));
    // Thinking refuses a changed temperature and a top_p below 0.95: those are dropped rather
    // than failing the call.
    if let Some(temperature) = req.params.temperature
        && thinking.is_none()
    {
        body.insert("temperature".into(), temperature.into());
    }
    if let Some(top_p) = req.params.top_p
        && (thinking.is_none() || top_p >= 0.95)
    {
        body.insert("top_p".into(), top_p.into());
    }
    if !req.params.stop_sequences.is_empty() {
        body.insert("stop_sequences".into(), req.params.stop_sequences.clone().into());
    }
    if let Some((thinking, output_config)) = thinking {
        body.insert("thinking".into(), thinking);
        if let Some(output_config) = output_config {
            body.insert("output_config".into(), output_config);
        }
    }
    let mut headers = vec![
        Header::plain("content-type", "application/json"),
        Header::plain("accept", "text/event-stream"),
        Header::plain("anthropic-version", ANTHROPIC_VERSION),
        // Required for calls from a browser context (the extension's service worker).
        Header::plain("anthropic-dangerous-direct-browser-access", "true"),
    ];
    if let Some(key) = api_key.filter(|key| !key.is_empty()) {
        headers.push(Header::secret("x-api-key", key.to_owned()));
    }
    ProviderRequest { path: MESSAGES_PATH, headers, body: Value::Object(body) }
}

fn ephemeral() -> Value {
    json!({ "type": "ephemeral" })
}

/// `thinking` (and `output_config`) for an effort, or `None` when no budget fits.
fn thinking(
    effort: ReasoningEffort,
    max_tokens: u32,
    mode: ThinkingBudgetMode,
) -> Option<(Value, Option<Value>)> {
    match mode {
        ThinkingBudgetMode::Adaptive => {
            Some((json!({ "type": "adaptive" }), Some(json!({ "effort": effort_name(effort) }))))
        }
        ThinkingBudgetMode::Manual => {
            let wanted = match effort {
                ReasoningEffort::Low => 2048,
                ReasoningEffort::Medium => 8192,
                ReasoningEffort::High => 16384,
            };
            let budget = wanted.min(max_tokens.saturating_sub(ANSWER_RESERVE));
            (budget >= MIN_THINKING_BUDGET)
                .then(|| (json!({ "type": "enabled", "budget_tokens": budget }), None))
        }
    }
}

fn system_blocks(req: &ModelRequest) -> Vec<Value> {
    let mut blocks = Vec::new();
    if !req.system.stable.is_empty() {
        blocks.push(
            json!({ "type": "text", "text": req.system.stable, "cache_control": ephemeral() }),
        );
    }
    if !req.system.dynamic.is_empty() {
        blocks.push(json!({ "type": "text", "text": req.system.dynamic }));
    }
    blocks
}

fn tool(spec: &ToolSpec, last: bool) -> Value {
    let mut tool = json!({ "name": spec.name, "description": spec.description, "input_schema": spec.parameters });
    if last {
        tool["cache_control"] = ephemeral();
    }
    tool
}

/// Messages with user-side content (user text and tool results) merged per turn, since the API
/// wants every tool result of an assistant turn in the one user message that follows it.
fn messages(messages: &[Message]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::with_capacity(messages.len());
    let mut user_blocks: Vec<Value> = Vec::new();
    for message in messages {
        match message {
            Message::User { content } => user_blocks.extend(content.iter().filter_map(part_block)),
            Message::ToolResult { call_id, content, is_error } => {
                let mut result = json!({
                    "type": "tool_result",
                    "tool_use_id": call_id,
                    "content": content.iter().filter_map(part_block).collect::<Vec<_>>(),
                });
                if *is_error {
                    result["is_error"] = true.into();
                }
                user_blocks.push(result);
            }
            Message::Assistant(turn) => {
                let blocks = assistant_blocks(turn);
                // The API refuses empty content: an empty turn is left out and the user content
                // around it stays one message.
                if blocks.is_empty() {
                    continue;
                }
                if !user_blocks.is_empty() {
                    out.push(
                        json!({ "role": "user", "content": std::mem::take(&mut user_blocks) }),
                    );
                }
                out.push(json!({ "role": "assistant", "content": blocks }));
            }
        }
    }
    if !user_blocks.is_empty() {
        out.push(json!({ "role": "user", "content": user_blocks }));
    }
    out
}

/// Signed and redacted thinking first, verbatim (the API checks signatures and wants thinking
/// before tool use), then text, then tool calls. Reasoning without a signed block (from an
/// OpenAI-compatible model earlier in the thread) cannot be replayed here and is left out.
fn assistant_blocks(turn: &AssistantTurn) -> Vec<Value> {
    let mut blocks = turn.provider_state.clone();
    if !turn.text.is_empty() {
        blocks.push(json!({ "type": "text", "text": turn.text }));
    }
    for call in &turn.tool_calls {
        // `input` must be an object; arguments that were not one already went back to the model
        // as a tool error, so an empty object loses nothing it needs.
        let input = match serde_json::from_str::<Value>(&call.arguments) {
            Ok(value @ Value::Object(_)) => value,
            Ok(_) | Err(_) => json!({}),
        };
        blocks
            .push(json!({ "type": "tool_use", "id": call.id, "name": call.name, "input": input }));
    }
    blocks
}

/// Empty text blocks are refused by the API, so they are dropped.
fn part_block(part: &ContentPart) -> Option<Value> {
    match part {
        ContentPart::Text(text) if text.is_empty() => None,
        ContentPart::Text(text) => Some(json!({ "type": "text", "text": text })),
        ContentPart::Image { mime, data_base64 } => Some(
            json!({ "type": "image", "source": { "type": "base64", "media_type": mime, "data": data_base64 } }),
        ),
    }
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
