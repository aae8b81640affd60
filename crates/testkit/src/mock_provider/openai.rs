//! The OpenAI-compatible `chat/completions` stream: `data: {chat.completion.chunk}` lines, a
//! final chunk with `finish_reason` and `usage`, then `data: [DONE]`.

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

/// A fixed `created` timestamp: transcripts stay byte-for-byte reproducible.
const CREATED: u64 = 1_700_000_000;

/// Renders steps as `chat.completion.chunk`s.
#[derive(Debug)]
pub(super) struct OpenAi {
    context: Context,
    /// Index of the next tool call in this reply (OpenAI aggregates calls by index).
    next_tool_index: usize,
}

impl OpenAi {
    pub(super) fn new(context: Context) -> Self {
        OpenAi { context, next_tool_index: 0 }
    }

    fn chunk(&self, delta: Value) -> Value {
        json!({
            "id": format!("chatcmpl-mock-{}", self.context.request_no),
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": self.context.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": null}],
        })
    }
}

impl Dialect for OpenAi {
    fn open(&mut self, out: &mut Out<'_>, _: Option<Usage>) -> Result<(), Ended> {
        // OpenAI opens every stream with the role and an empty content.
        out.data(&self.chunk(json!({"role": "assistant", "content": ""})))
    }

    fn text(&mut self, out: &mut Out<'_>, text: &str) -> Result<(), Ended> {
        out.data(&self.chunk(json!({"content": text})))
    }

    fn reasoning(&mut self, out: &mut Out<'_>, text: &str, _: Option<&str>) -> Result<(), Ended> {
        // The DeepSeek convention most OpenAI-compatible reasoning servers follow; there is
        // no signature in this format.
        out.data(&self.chunk(json!({"reasoning_content": text})))
    }

    fn redacted_reasoning(&mut self, _: &mut Out<'_>, _: &str) -> Result<(), Ended> {
        // The format has no redacted reasoning: nothing to send.
        Ok(())
    }

    fn tool_call(&mut self, out: &mut Out<'_>, call: &ToolCallStep) -> Result<(), Ended> {
        let index = self.next_tool_index;
        self.next_tool_index += 1;
        let id = match &call.id {
            Some(id) => id.clone(),
            None => format!("call_mock_{}_{index}", self.context.request_no),
        };
        let whole = match call.chunking {
            ArgumentChunking::Fragments => "",
            ArgumentChunking::Whole => call.arguments.as_str(),
        };
        let opening = json!({"tool_calls": [{
            "index": index,
            "id": id,
            "type": "function",
            "function": {"name": call.name, "arguments": whole},
        }]});
        out.data(&self.chunk(opening))?;
        if call.chunking == ArgumentChunking::Whole {
            return Ok(());
        }
        for fragment in fragments(&call.arguments, ARGUMENT_FRAGMENT_BYTES) {
            let delta =
                json!({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]});
            out.data(&self.chunk(delta))?;
        }
        Ok(())
    }

    fn close(
        &mut self,
        out: &mut Out<'_>,
        reason: &str,
        usage: Option<Usage>,
    ) -> Result<(), Ended> {
        let mut last = self.chunk(json!({}));
        last["choices"][0]["finish_reason"] = json!(reason);
        // Usage rides on the finish chunk, as most compatible servers send it; OpenAI itself
        // sends it in one more chunk with empty `choices`, which adapters must accept too.
        if let Some(usage) = usage {
            last["usage"] = json!({
                "prompt_tokens": usage.input,
                "completion_tokens": usage.output,
                "total_tokens": usage.input + usage.output,
                "prompt_tokens_details": {"cached_tokens": usage.cached},
            });
        }
        out.data(&last)?;
        out.write(b"data: [DONE]\n\n")
    }

    fn natural_finish(&self, has_tool_call: ToolCalls) -> &'static str {
        match has_tool_call {
            ToolCalls::Some => "tool_calls",
            ToolCalls::None => "stop",
        }
    }

    fn length_finish(&self) -> &'static str {
        "length"
    }
}
