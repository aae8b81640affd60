//! The Anthropic `messages` stream: `message_start`, `ping`, content blocks (`content_block_start`,
//! `content_block_delta`*, `content_block_stop`), `message_delta` with the stop reason and
//! output usage, `message_stop`. Each event is `event: <type>` plus `data: <json>`.

use serde_json::Value;
use serde_json::json;

use super::reply::ARGUMENT_FRAGMENT_BYTES;
use super::reply::ArgumentChunking;
use super::reply::ToolCallStep;
use super::reply::Usage;
use super::reply::fragments;
use super::sse::Context;
use super::sse::Dialect;
use super::sse::Ended;
use super::sse::Out;
use super::sse::ToolCalls;

/// The signature of a thinking block when the script sets none.
const DEFAULT_SIGNATURE: &str = "mock-signature";

/// Renders steps as Anthropic stream events.
#[derive(Debug)]
pub(super) struct Anthropic {
    context: Context,
    /// Usage for `message_start` (input side) and `message_delta` (output side), set by `open`.
    usage: Usage,
    /// The content block currently open, if any.
    open_block: Option<Block>,
    /// Index of the next content block.
    next_block_index: usize,
    /// Number of tool calls so far, for made-up ids.
    n_tool_calls: usize,
}

#[derive(Debug)]
enum Block {
    Text,
    /// A thinking block and the signature sent when it closes.
    Thinking {
        signature: Option<String>,
    },
    ToolUse,
}

impl Anthropic {
    pub(super) fn new(context: Context) -> Self {
        Anthropic {
            context,
            usage: Usage::default(),
            open_block: None,
            next_block_index: 0,
            n_tool_calls: 0,
        }
    }

    /// Closes the open block (sending a thinking block's signature first).
    fn close_block(&mut self, out: &mut Out<'_>) -> Result<(), Ended> {
        let Some(block) = self.open_block.take() else {
            return Ok(());
        };
        let index = self.next_block_index - 1;
        if let Block::Thinking { signature } = block {
            let signature = signature.as_deref().unwrap_or(DEFAULT_SIGNATURE);
            let delta = json!({"type": "signature_delta", "signature": signature});
            out.event("content_block_delta", &block_delta(index, delta))?;
        }
        out.event("content_block_stop", &json!({"type": "content_block_stop", "index": index}))
    }

    /// Closes the open block and starts a new one described by `content_block`.
    fn start_block(
        &mut self,
        out: &mut Out<'_>,
        block: Option<Block>,
        content_block: Value,
    ) -> Result<usize, Ended> {
        self.close_block(out)?;
        let index = self.next_block_index;
        self.next_block_index += 1;
        let start =
            json!({"type": "content_block_start", "index": index, "content_block": content_block});
        out.event("content_block_start", &start)?;
        self.open_block = block;
        Ok(index)
    }

    fn delta(&mut self, out: &mut Out<'_>, delta: Value) -> Result<(), Ended> {
        out.event("content_block_delta", &block_delta(self.next_block_index - 1, delta))
    }
}

fn block_delta(index: usize, delta: Value) -> Value {
    json!({"type": "content_block_delta", "index": index, "delta": delta})
}

impl Dialect for Anthropic {
    fn open(&mut self, out: &mut Out<'_>, usage: Option<Usage>) -> Result<(), Ended> {
        // Without scripted usage the format still requires the fields: report zeros.
        self.usage = usage.unwrap_or_default();
        let message = json!({
            "id": format!("msg_mock_{}", self.context.request_no),
            "type": "message",
            "role": "assistant",
            "model": self.context.model,
            "content": [],
            "stop_reason": null,
            "stop_sequence": null,
            "usage": {
                "input_tokens": self.usage.input,
                "output_tokens": 0,
                "cache_read_input_tokens": self.usage.cached,
                "cache_creation_input_tokens": self.usage.cache_write,
            },
        });
        out.event("message_start", &json!({"type": "message_start", "message": message}))?;
        // The real API pings early in every stream; adapters must skip it.
        out.event("ping", &json!({"type": "ping"}))
    }

    fn text(&mut self, out: &mut Out<'_>, text: &str) -> Result<(), Ended> {
        if !matches!(self.open_block, Some(Block::Text)) {
            self.start_block(out, Some(Block::Text), json!({"type": "text", "text": ""}))?;
        }
        self.delta(out, json!({"type": "text_delta", "text": text}))
    }

    fn reasoning(
        &mut self,
        out: &mut Out<'_>,
        text: &str,
        signature: Option<&str>,
    ) -> Result<(), Ended> {
        if !matches!(self.open_block, Some(Block::Thinking { .. })) {
            let block = Block::Thinking { signature: None };
            self.start_block(out, Some(block), json!({"type": "thinking", "thinking": ""}))?;
        }
        if let (Some(new), Some(Block::Thinking { signature })) = (signature, &mut self.open_block)
        {
            *signature = Some(new.to_owned());
        }
        self.delta(out, json!({"type": "thinking_delta", "thinking": text}))
    }

    fn redacted_reasoning(&mut self, out: &mut Out<'_>, data: &str) -> Result<(), Ended> {
        // A redacted block arrives whole in its start event and has no deltas.
        self.start_block(out, None, json!({"type": "redacted_thinking", "data": data}))?;
        let index = self.next_block_index - 1;
        out.event("content_block_stop", &json!({"type": "content_block_stop", "index": index}))
    }

    fn tool_call(&mut self, out: &mut Out<'_>, call: &ToolCallStep) -> Result<(), Ended> {
        let id = match &call.id {
            Some(id) => id.clone(),
            None => format!("toolu_mock_{}_{}", self.context.request_no, self.n_tool_calls),
        };
        self.n_tool_calls += 1;
        let start = json!({"type": "tool_use", "id": id, "name": call.name, "input": {}});
        self.start_block(out, Some(Block::ToolUse), start)?;
        let pieces = match call.chunking {
            ArgumentChunking::Fragments => fragments(&call.arguments, ARGUMENT_FRAGMENT_BYTES),
            ArgumentChunking::Whole => vec![call.arguments.as_str()],
        };
        for piece in pieces {
            self.delta(out, json!({"type": "input_json_delta", "partial_json": piece}))?;
        }
        Ok(())
    }

    fn close(&mut self, out: &mut Out<'_>, reason: &str, _: Option<Usage>) -> Result<(), Ended> {
        self.close_block(out)?;
        let message_delta = json!({
            "type": "message_delta",
            "delta": {"stop_reason": reason, "stop_sequence": null},
            "usage": {"output_tokens": self.usage.output},
        });
        out.event("message_delta", &message_delta)?;
        out.event("message_stop", &json!({"type": "message_stop"}))
    }

    fn natural_finish(&self, has_tool_call: ToolCalls) -> &'static str {
        match has_tool_call {
            ToolCalls::Some => "tool_use",
            ToolCalls::None => "end_turn",
        }
    }

    fn length_finish(&self) -> &'static str {
        "max_tokens"
    }
}
