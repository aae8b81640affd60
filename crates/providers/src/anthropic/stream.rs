//! The Anthropic `messages` stream adapter.
//!
//! Events: `message_start`, `content_block_start|delta|stop`, `message_delta`, `message_stop`,
//! `ping` and `error`; unknown event types are ignored, as Anthropic asks of clients. A response
//! is complete only with both a stop reason and `message_stop`.

use std::borrow::Cow;

use panelot_core::model::AssistantTurn;
use panelot_core::model::ModelEvent;
use panelot_core::model::ModelResponse;
use panelot_core::model::ProviderError;
use panelot_core::model::ToolCall;
use panelot_core::model::Withheld;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::Usage;
use serde::Deserialize;
use serde_json::Value;
use serde_json::json;

use crate::diagnose::classify_stream_error;
use crate::error::incomplete;
use crate::error::protocol_error;
use crate::error::quoted;
use crate::error::sanitize;
use crate::sse::SseEvent;
use crate::stream::StreamAdapter;
use crate::tool_ids::ToolCallIds;

const KNOWN_DELTAS: [&str; 4] =
    ["text_delta", "thinking_delta", "signature_delta", "input_json_delta"];

/// More content blocks than this in one response is treated as a broken stream.
const MAX_BLOCKS: usize = 1024;

/// The adapter for one Anthropic call.
#[derive(Debug)]
pub struct AnthropicStream {
    ids: ToolCallIds,
    /// Content blocks by their `index`.
    blocks: Vec<Block>,
    text: String,
    reasoning: String,
    provider_state: Vec<Value>,
    tools: Vec<PendingTool>,
    usage: RawUsage,
    stop_reason: Option<String>,
    started: bool,
    stopped: bool,
}

#[derive(Debug)]
enum Block {
    Text { open: bool },
    Thinking { thinking: String, signature: String, open: bool },
    Redacted { block: Value, open: bool },
    ToolUse { position: usize, open: bool },
}

impl Block {
    fn is_open(&self) -> bool {
        match self {
            Block::Text { open }
            | Block::Thinking { open, .. }
            | Block::Redacted { open, .. }
            | Block::ToolUse { open, .. } => *open,
        }
    }
}

#[derive(Debug)]
struct PendingTool {
    raw_id: String,
    name: String,
    json: String,
    initial_input: Value,
}

#[derive(Debug, Default, Deserialize)]
struct RawUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    index: Option<usize>,
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
    #[serde(default)]
    message: Option<MessageStart>,
    #[serde(default)]
    content_block: Option<Value>,
    #[serde(default)]
    usage: Option<RawUsage>,
}

#[derive(Debug, Deserialize)]
struct MessageStart {
    #[serde(default)]
    usage: Option<RawUsage>,
}

#[derive(Debug, Deserialize)]
struct Delta<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    thinking: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    signature: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    partial_json: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    stop_reason: Option<Cow<'a, str>>,
}

impl AnthropicStream {
    /// An adapter repairing tool-call ids through `ids`.
    pub fn new(ids: ToolCallIds) -> AnthropicStream {
        AnthropicStream {
            ids,
            blocks: Vec::new(),
            text: String::new(),
            reasoning: String::new(),
            provider_state: Vec::new(),
            tools: Vec::new(),
            usage: RawUsage::default(),
            stop_reason: None,
            started: false,
            stopped: false,
        }
    }

    fn merge_usage(&mut self, usage: RawUsage) {
        // `message_delta` usage is cumulative and may repeat or omit the input counts.
        let merge = |old: &mut Option<u64>, new: Option<u64>| {
            if new.is_some() {
                *old = new;
            }
        };
        merge(&mut self.usage.input_tokens, usage.input_tokens);
        merge(&mut self.usage.output_tokens, usage.output_tokens);
        merge(&mut self.usage.cache_creation_input_tokens, usage.cache_creation_input_tokens);
        merge(&mut self.usage.cache_read_input_tokens, usage.cache_read_input_tokens);
    }

    fn block_start(
        &mut self,
        index: usize,
        block: Value,
        out: &mut Vec<ModelEvent>,
    ) -> Result<(), ProviderError> {
        if index != self.blocks.len() || index >= MAX_BLOCKS {
            return Err(protocol_error(format!("content block {index} started out of order")));
        }
        let kind = block.get("type").and_then(Value::as_str).unwrap_or_default();
        let new = match kind {
            "text" => {
                let initial = block.get("text").and_then(Value::as_str).unwrap_or_default();
                if !initial.is_empty() {
                    self.text.push_str(initial);
                    out.push(ModelEvent::TextDelta(initial.to_owned()));
                }
                Block::Text { open: true }
            }
            "thinking" => {
                let thinking =
                    block.get("thinking").and_then(Value::as_str).unwrap_or_default().to_owned();
                if !thinking.is_empty() {
                    self.reasoning.push_str(&thinking);
                    out.push(ModelEvent::ReasoningDelta(thinking.clone()));
                }
                let signature =
                    block.get("signature").and_then(Value::as_str).unwrap_or_default().to_owned();
                Block::Thinking { thinking, signature, open: true }
            }
            "redacted_thinking" => Block::Redacted { block, open: true },
            "tool_use" => {
                let name = block.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
                if name.is_empty() {
                    return Err(protocol_error("a tool call arrived without a name"));
                }
                let position = self.tools.len();
                out.push(ModelEvent::ToolCallStarted {
                    index: position as u32,
                    name: name.clone(),
                });
                self.tools.push(PendingTool {
                    raw_id: block.get("id").and_then(Value::as_str).unwrap_or_default().to_owned(),
                    name,
                    json: String::new(),
                    initial_input: block.get("input").cloned().unwrap_or_else(|| json!({})),
                });
                Block::ToolUse { position, open: true }
            }
            other => {
                return Err(protocol_error(format!(
                    "unsupported content block type {}",
                    quoted(other)
                )));
            }
        };
        self.blocks.push(new);
        Ok(())
    }

    fn block_delta(
        &mut self,
        index: usize,
        delta: Delta<'_>,
        out: &mut Vec<ModelEvent>,
    ) -> Result<(), ProviderError> {
        let Some(block) = self.blocks.get_mut(index).filter(|block| block.is_open()) else {
            return Err(protocol_error(format!(
                "delta for content block {index}, which is not open"
            )));
        };
        let kind = delta.kind.as_deref().unwrap_or_default();
        match (block, kind) {
            (Block::Text { .. }, "text_delta") => {
                if let Some(text) = delta.text.filter(|t| !t.is_empty()) {
                    self.text.push_str(&text);
                    out.push(ModelEvent::TextDelta(text.into_owned()));
                }
            }
            (Block::Thinking { thinking, .. }, "thinking_delta") => {
                if let Some(more) = delta.thinking.filter(|t| !t.is_empty()) {
                    thinking.push_str(&more);
                    self.reasoning.push_str(&more);
                    out.push(ModelEvent::ReasoningDelta(more.into_owned()));
                }
            }
            (Block::Thinking { signature, .. }, "signature_delta") => {
                if let Some(more) = delta.signature {
                    signature.push_str(&more);
                }
            }
            (Block::ToolUse { position, .. }, "input_json_delta") => {
                if let Some(fragment) = delta.partial_json.filter(|f| !f.is_empty()) {
                    let position = *position;
                    if let Some(tool) = self.tools.get_mut(position) {
                        tool.json.push_str(&fragment);
                    }
                    out.push(ModelEvent::ToolCallDelta {
                        index: position as u32,
                        fragment: fragment.into_owned(),
                    });
                }
            }
            // Delta types we do not use (`citations_delta`) or that came after this was written.
            (_, other) if !KNOWN_DELTAS.contains(&other) => {}
            (
                Block::Text { .. }
                | Block::Thinking { .. }
                | Block::Redacted { .. }
                | Block::ToolUse { .. },
                _,
            ) => {
                return Err(protocol_error(format!(
                    "delta {} does not fit content block {index}",
                    quoted(kind)
                )));
            }
        }
        Ok(())
    }

    fn block_stop(&mut self, index: usize) -> Result<(), ProviderError> {
        let Some(block) = self.blocks.get_mut(index).filter(|block| block.is_open()) else {
            return Err(protocol_error(format!(
                "stop for content block {index}, which is not open"
            )));
        };
        match block {
            Block::Text { open } | Block::ToolUse { open, .. } => *open = false,
            Block::Thinking { thinking, signature, open } => {
                *open = false;
                // Kept verbatim for replay: Anthropic checks the signature against the text.
                self.provider_state.push(json!({
                    "type": "thinking",
                    "thinking": std::mem::take(thinking),
                    "signature": std::mem::take(signature),
                }));
            }
            Block::Redacted { block, open } => {
                *open = false;
                self.provider_state.push(std::mem::take(block));
            }
        }
        Ok(())
    }
}

impl StreamAdapter for AnthropicStream {
    fn on_event(
        &mut self,
        event: &SseEvent,
        out: &mut Vec<ModelEvent>,
    ) -> Result<(), ProviderError> {
        if self.stopped {
            return Ok(());
        }
        let data = event.data.trim();
        let parsed: Event<'_> = match serde_json::from_str(data) {
            Ok(parsed) => parsed,
            Err(_) if event.kind() == "error" => {
                return Err(classify_stream_error(&Value::String(data.to_owned())));
            }
            Err(err) => {
                return Err(protocol_error(format!(
                    "invalid stream event: {}",
                    sanitize(&err.to_string(), 200)
                )));
            }
        };
        let index = parsed.index.unwrap_or(0);
        match parsed.kind.as_ref() {
            "message_start" => {
                self.started = true;
                if let Some(usage) = parsed.message.and_then(|message| message.usage) {
                    self.merge_usage(usage);
                }
            }
            "content_block_start" => {
                let block = parsed.content_block.unwrap_or(Value::Null);
                self.block_start(index, block, out)?;
            }
            "content_block_delta" => {
                let Some(delta) = parsed.delta else {
                    return Err(protocol_error("content_block_delta without a delta"));
                };
                self.block_delta(index, delta, out)?;
            }
            "content_block_stop" => self.block_stop(index)?,
            "message_delta" => {
                if let Some(reason) = parsed.delta.and_then(|delta| delta.stop_reason) {
                    self.stop_reason = Some(reason.into_owned());
                }
                if let Some(usage) = parsed.usage {
                    self.merge_usage(usage);
                }
            }
            "message_stop" => self.stopped = true,
            "error" => {
                let payload: Value = serde_json::from_str(data).unwrap_or(Value::Null);
                return Err(classify_stream_error(&payload));
            }
            // `ping` and event types added after this was written.
            _ => {}
        }
        Ok(())
    }

    fn finish(mut self) -> Result<ModelResponse, ProviderError> {
        if !self.started {
            return Err(incomplete("the response was empty"));
        }
        if !self.stopped {
            return Err(incomplete("the stream ended before the response was complete"));
        }
        let Some(raw) = self.stop_reason.take() else {
            return Err(protocol_error("the message stopped without a stop reason"));
        };
        if let Some(index) = self.blocks.iter().position(Block::is_open) {
            return Err(protocol_error(format!("content block {index} never ended")));
        }
        let stop_reason = match raw.as_str() {
            "end_turn" | "stop_sequence" => ProviderStopReason::End,
            "tool_use" => ProviderStopReason::ToolUse,
            "max_tokens" | "model_context_window_exceeded" => ProviderStopReason::MaxTokens,
            "refusal" => ProviderStopReason::ContentFilter,
            "pause_turn" => {
                return Err(protocol_error(
                    "stop reason \"pause_turn\" (a paused server-tool turn) is not supported",
                ));
            }
            other => return Err(protocol_error(format!("unknown stop reason {}", quoted(other)))),
        };
        match (stop_reason, self.tools.is_empty()) {
            (ProviderStopReason::ToolUse, true) => {
                return Err(protocol_error("stop reason \"tool_use\" without any tool call"));
            }
            (
                ProviderStopReason::End
                | ProviderStopReason::MaxTokens
                | ProviderStopReason::ContentFilter
                | ProviderStopReason::Interrupted,
                false,
            ) => {
                return Err(protocol_error(format!(
                    "tool calls arrived with stop reason {}",
                    quoted(&raw)
                )));
            }
            (ProviderStopReason::ToolUse, false)
            | (
                ProviderStopReason::End
                | ProviderStopReason::MaxTokens
                | ProviderStopReason::ContentFilter
                | ProviderStopReason::Interrupted,
                true,
            ) => {}
        }
        let tool_calls = std::mem::take(&mut self.tools)
            .into_iter()
            .map(|tool| ToolCall {
                id: self.ids.assign(&tool.raw_id),
                name: tool.name,
                // No input deltas means the input came whole in the start event (`{}` usually).
                arguments: if tool.json.is_empty() {
                    tool.initial_input.to_string()
                } else {
                    tool.json
                },
            })
            .collect();
        let usage = &self.usage;
        let cache_read = usage.cache_read_input_tokens;
        let cache_write = usage.cache_creation_input_tokens;
        // Anthropic's `input_tokens` excludes cache reads and writes; ours is the total.
        let input = usage
            .input_tokens
            .unwrap_or(0)
            .saturating_add(cache_read.unwrap_or(0))
            .saturating_add(cache_write.unwrap_or(0));
        Ok(ModelResponse {
            turn: AssistantTurn {
                text: self.text,
                reasoning: (!self.reasoning.is_empty()).then_some(self.reasoning),
                tool_calls,
                provider_state: self.provider_state,
            },
            stop_reason,
            usage: Usage {
                input,
                output: usage.output_tokens.unwrap_or(0),
                cache_read,
                cache_write,
            },
            // The client prices the call and says what it withheld: it knows the connection.
            cost_usd: None,
            withheld: Withheld::default(),
        })
    }
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
