//! The OpenAI-compatible `chat/completions` stream adapter.
//!
//! Each `data:` event is a `chat.completion.chunk`; the stream ends with `data: [DONE]`. A
//! response counts as complete only with both a finish reason and `[DONE]`.

use std::borrow::Cow;

use panelot_core::model::AssistantTurn;
use panelot_core::model::ModelEvent;
use panelot_core::model::ModelResponse;
use panelot_core::model::ProviderError;
use panelot_core::model::ToolCall;
use panelot_core::model::Withheld;
use panelot_protocol::engine::ProviderErrorKind;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::Usage;

use super::think::Channel;
use super::think::ThinkSplitter;
use super::wire::Chunk;
use super::wire::RawUsage;
use super::wire::ToolCallDelta;
use crate::diagnose::classify_stream_error;
use crate::error::ErrorReason;
use crate::error::error;
use crate::error::incomplete;
use crate::error::protocol_error;
use crate::error::quoted;
use crate::error::sanitize;
use crate::quirks::Quirks;
use crate::sse::SseEvent;
use crate::stream::StreamAdapter;
use crate::tool_ids::ToolCallIds;

/// More tool calls than this in one response is treated as a broken stream.
const MAX_TOOL_CALLS: usize = 256;

/// The adapter for one OpenAI-compatible call.
#[derive(Debug)]
pub struct OpenAiStream {
    ids: ToolCallIds,
    text: String,
    reasoning: String,
    think: Option<ThinkSplitter>,
    calls: Vec<PendingCall>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
    done: bool,
    /// Any chunk arrived (so an early end is a cut answer, not an empty one).
    started: bool,
}

#[derive(Debug)]
struct PendingCall {
    raw_index: Option<u32>,
    raw_id: String,
    name: String,
    arguments: String,
    started: bool,
}

impl OpenAiStream {
    /// An adapter for a call made with `quirks`, repairing tool-call ids through `ids`.
    pub fn new(quirks: Quirks, ids: ToolCallIds) -> OpenAiStream {
        OpenAiStream {
            think: quirks.think_tag_reasoning.then(ThinkSplitter::new),
            ids,
            text: String::new(),
            reasoning: String::new(),
            calls: Vec::new(),
            finish_reason: None,
            usage: None,
            done: false,
            started: false,
        }
    }

    fn on_chunk(
        &mut self,
        chunk: Chunk<'_>,
        out: &mut Vec<ModelEvent>,
    ) -> Result<(), ProviderError> {
        self.started = true;
        if let Some(raw) = chunk.usage {
            self.usage = Some(map_usage(&raw));
        }
        // We never ask for several choices (`n`); a server that sends them anyway is read for the
        // first only.
        let Some(choice) =
            chunk.choices.into_iter().flatten().find(|choice| choice.index.unwrap_or(0) == 0)
        else {
            return Ok(());
        };
        if let Some(raw) = &choice.usage {
            self.usage = Some(map_usage(raw));
        }
        if let Some(delta) = choice.delta {
            // DeepSeek, vLLM and llama.cpp say `reasoning_content`; OpenRouter, Ollama and newer vLLM
            // say `reasoning`.
            let reasoning = delta
                .reasoning_content
                .filter(|r| !r.is_empty())
                .or(delta.reasoning.filter(|r| !r.is_empty()));
            if let Some(reasoning) = reasoning {
                self.reasoning.push_str(&reasoning);
                out.push(ModelEvent::ReasoningDelta(reasoning.into_owned()));
            }
            for content in
                [delta.content, delta.refusal].into_iter().flatten().filter(|c| !c.is_empty())
            {
                self.push_text(content, out);
            }
            for call in delta.tool_calls.into_iter().flatten() {
                self.on_tool_call(call, out)?;
            }
        }
        if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty())
            && self.finish_reason.is_none()
        {
            self.flush_think(out);
            self.finish_reason = Some(reason.into_owned());
        }
        Ok(())
    }

    fn push_text(&mut self, content: Cow<'_, str>, out: &mut Vec<ModelEvent>) {
        let Some(think) = &mut self.think else {
            self.text.push_str(&content);
            out.push(ModelEvent::TextDelta(content.into_owned()));
            return;
        };
        let (text, reasoning) = (&mut self.text, &mut self.reasoning);
        think
            .push(&content, &mut |channel, piece| emit_piece(channel, piece, text, reasoning, out));
    }

    fn flush_think(&mut self, out: &mut Vec<ModelEvent>) {
        if let Some(think) = &mut self.think {
            let (text, reasoning) = (&mut self.text, &mut self.reasoning);
            think.flush(&mut |channel, piece| emit_piece(channel, piece, text, reasoning, out));
        }
    }

    fn on_tool_call(
        &mut self,
        delta: ToolCallDelta<'_>,
        out: &mut Vec<ModelEvent>,
    ) -> Result<(), ProviderError> {
        let id = delta.id.as_deref().unwrap_or("");
        let (name, arguments) = match delta.function {
            Some(function) => (function.name, function.arguments.map(|args| args.0)),
            None => (None, None),
        };
        let position = match delta.index {
            Some(raw) => self.calls.iter().position(|call| call.raw_index == Some(raw)),
            // Servers that omit `index` send each call whole: a delta continues the last call
            // only when it names neither a new id nor a second name.
            None => self.calls.last().and_then(|last| {
                let continues = last.raw_index.is_none()
                    && (id.is_empty() || id == last.raw_id)
                    && (name.as_deref().is_none_or(str::is_empty) || last.name.is_empty());
                continues.then_some(self.calls.len() - 1)
            }),
        };
        let position = match position {
            Some(position) => position,
            None => {
                if self.calls.len() >= MAX_TOOL_CALLS {
                    return Err(protocol_error(format!(
                        "more than {MAX_TOOL_CALLS} tool calls in one response"
                    )));
                }
                self.calls.push(PendingCall {
                    raw_index: delta.index,
                    raw_id: String::new(),
                    name: String::new(),
                    arguments: String::new(),
                    started: false,
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[position];
        if call.raw_id.is_empty() && !id.is_empty() {
            call.raw_id = id.to_owned();
        }
        // Some servers repeat the full name in every delta: the first one wins.
        if let Some(name) = name.filter(|n| !n.is_empty())
            && call.name.is_empty()
        {
            call.name = name.into_owned();
        }
        let index = position as u32;
        if let Some(fragment) = arguments.filter(|a| !a.is_empty()) {
            call.arguments.push_str(&fragment);
            if call.started {
                out.push(ModelEvent::ToolCallDelta { index, fragment: fragment.into_owned() });
            }
        }
        if !call.started && !call.name.is_empty() {
            call.started = true;
            out.push(ModelEvent::ToolCallStarted { index, name: call.name.clone() });
            if !call.arguments.is_empty() {
                out.push(ModelEvent::ToolCallDelta { index, fragment: call.arguments.clone() });
            }
        }
        Ok(())
    }
}

fn emit_piece(
    channel: Channel,
    piece: &str,
    text: &mut String,
    reasoning: &mut String,
    out: &mut Vec<ModelEvent>,
) {
    match channel {
        Channel::Text => {
            text.push_str(piece);
            out.push(ModelEvent::TextDelta(piece.to_owned()));
        }
        Channel::Reasoning => {
            reasoning.push_str(piece);
            out.push(ModelEvent::ReasoningDelta(piece.to_owned()));
        }
    }
}

impl StreamAdapter for OpenAiStream {
    fn on_event(
        &mut self,
        event: &SseEvent,
        out: &mut Vec<ModelEvent>,
    ) -> Result<(), ProviderError> {
        if self.done {
            // Nothing may follow `[DONE]`; servers that send keep-alives after it are ignored.
            return Ok(());
        }
        let data = event.data.trim();
        if event.kind() == "error" {
            let payload = serde_json::from_str(data)
                .unwrap_or_else(|_| serde_json::Value::String(data.to_owned()));
            return Err(classify_stream_error(&payload));
        }
        if data == "[DONE]" {
            self.done = true;
            self.flush_think(out);
            return Ok(());
        }
        let chunk: Chunk<'_> = match serde_json::from_str(data) {
            Ok(chunk) => chunk,
            Err(err) => {
                return Err(protocol_error(format!(
                    "invalid stream chunk: {}",
                    sanitize(&err.to_string(), 200)
                )));
            }
        };
        if let Some(err) = &chunk.error
            && !err.is_null()
        {
            return Err(classify_stream_error(&serde_json::json!({ "error": err })));
        }
        self.on_chunk(chunk, out)
    }

    fn finish(mut self) -> Result<ModelResponse, ProviderError> {
        let mut sink = Vec::new();
        self.flush_think(&mut sink);
        let Some(reason) = self.finish_reason.take() else {
            return Err(match (self.done, self.started) {
                (true, _) => protocol_error("the stream ended with [DONE] but no finish reason"),
                (false, true) => incomplete("the stream ended before the response was complete"),
                (false, false) => incomplete("the response was empty"),
            });
        };
        if !self.done {
            return Err(incomplete("the stream ended without [DONE]"));
        }
        let stop_reason = match reason.as_str() {
            "stop" => ProviderStopReason::End,
            "tool_calls" => ProviderStopReason::ToolUse,
            "length" => ProviderStopReason::MaxTokens,
            "content_filter" => ProviderStopReason::ContentFilter,
            // OpenRouter ends a call that failed mid-stream this way, with the error before it.
            "error" => {
                return Err(error(
                    ProviderErrorKind::Network,
                    ErrorReason::UpstreamError,
                    "the provider reported an error mid-stream".to_owned(),
                ));
            }
            other => {
                return Err(protocol_error(format!("unknown finish reason {}", quoted(other))));
            }
        };
        let stop_reason = self.check_tool_calls(stop_reason, &reason)?;
        let tool_calls = std::mem::take(&mut self.calls)
            .into_iter()
            .map(|call| ToolCall {
                id: self.ids.assign(&call.raw_id),
                name: call.name,
                arguments: call.arguments,
            })
            .collect();
        Ok(ModelResponse {
            turn: AssistantTurn {
                text: self.text,
                reasoning: (!self.reasoning.is_empty()).then_some(self.reasoning),
                tool_calls,
                provider_state: Vec::new(),
            },
            stop_reason,
            usage: self.usage.unwrap_or_default(),
            // The client prices the call and says what it withheld: it knows the connection.
            cost_usd: None,
            withheld: Withheld::default(),
        })
    }
}

impl OpenAiStream {
    /// Tool calls and the stop reason must agree, with one exception: complete tool calls that
    /// end with `"stop"` are tool use. OpenAI itself finishes that way when `tool_choice` names a
    /// function, and Ollama, LM Studio, llama.cpp and other local servers always do; rejecting
    /// them would make every tool call of those servers fail unless the user knew to switch a
    /// setting on. A call cut by the token limit (`"length"`) or a filter stays an error.
    fn check_tool_calls(
        &self,
        stop_reason: ProviderStopReason,
        raw: &str,
    ) -> Result<ProviderStopReason, ProviderError> {
        if self.calls.iter().any(|call| call.name.is_empty()) {
            return Err(protocol_error("a tool call arrived without a name"));
        }
        match (stop_reason, self.calls.is_empty()) {
            (ProviderStopReason::ToolUse | ProviderStopReason::End, false) => {
                Ok(ProviderStopReason::ToolUse)
            }
            (ProviderStopReason::ToolUse, true) => {
                Err(protocol_error("finish reason \"tool_calls\" without any tool call"))
            }
            // Not retried: the same request would be cut at the same place.
            (ProviderStopReason::MaxTokens, false) => Err(protocol_error(
                "the answer reached the output token limit in the middle of a tool call",
            )),
            (ProviderStopReason::ContentFilter | ProviderStopReason::Interrupted, false) => Err(
                protocol_error(format!("tool calls arrived with finish reason {}", quoted(raw))),
            ),
            (
                ProviderStopReason::End
                | ProviderStopReason::MaxTokens
                | ProviderStopReason::ContentFilter
                | ProviderStopReason::Interrupted,
                true,
            ) => Ok(stop_reason),
        }
    }
}

/// OpenAI-style usage: `prompt_tokens` already includes cached tokens; DeepSeek and Moonshot name
/// the cached part differently. `input` is the total, counted once.
fn map_usage(raw: &RawUsage) -> Usage {
    let details = raw.prompt_tokens_details.as_ref();
    let cache_read =
        details.and_then(|d| d.cached_tokens).or(raw.prompt_cache_hit_tokens).or(raw.cached_tokens);
    let cache_write = details.and_then(|d| d.cache_write_tokens);
    let prompt = raw.prompt_tokens.unwrap_or(0);
    // A server that reports cache tokens outside `prompt_tokens` still gets a total that
    // contains them, once.
    let cached_total = cache_read.unwrap_or(0).saturating_add(cache_write.unwrap_or(0));
    Usage {
        input: prompt.max(cached_total),
        output: raw.completion_tokens.unwrap_or(0),
        cache_read,
        cache_write,
    }
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
