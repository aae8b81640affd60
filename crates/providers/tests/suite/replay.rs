//! Replays a response body through a decoder in various chunkings and renders the outcome as
//! text, so transcripts compare as whole values.

use std::fmt::Write;

use panelot_core::model::ModelEvent;
use panelot_core::model::ModelResponse;
use panelot_core::model::ProviderError;
use panelot_providers::Quirks;
use panelot_providers::StreamAdapter;
use panelot_providers::StreamDecoder;
use panelot_providers::ToolCallIds;
use panelot_providers::anthropic::AnthropicStream;
use panelot_providers::openai::OpenAiStream;

/// Which adapter a transcript is for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Wire {
    OpenAi(Quirks),
    Anthropic,
}

impl Wire {
    /// From an expectation header: `wire: openai` and `quirks: a, b`.
    pub(crate) fn parse(wire: &str, quirks: &str) -> Wire {
        let names: Vec<&str> =
            quirks.split(',').map(str::trim).filter(|name| !name.is_empty()).collect();
        let quirks = Quirks::from_names(&names).expect("known quirks");
        match wire {
            "openai" => Wire::OpenAi(quirks),
            "anthropic" => Wire::Anthropic,
            other => panic!("unknown wire {other}"),
        }
    }
}

/// How a body is cut into chunks.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Chunking {
    Whole,
    Bytewise,
    /// Random sizes 1..=64 from a seeded generator.
    Random(u64),
}

/// Decodes `body` and renders events and outcome.
pub(crate) fn replay(wire: Wire, body: &[u8], chunking: Chunking) -> String {
    let ids = ToolCallIds::new("gen_");
    match wire {
        Wire::OpenAi(quirks) => {
            run(StreamDecoder::new(OpenAiStream::new(quirks, ids)), body, chunking)
        }
        Wire::Anthropic => run(StreamDecoder::new(AnthropicStream::new(ids)), body, chunking),
    }
}

fn run<A: StreamAdapter>(mut decoder: StreamDecoder<A>, body: &[u8], chunking: Chunking) -> String {
    let mut events = Vec::new();
    let mut rng = match chunking {
        Chunking::Random(seed) => seed | 1,
        Chunking::Whole | Chunking::Bytewise => 1,
    };
    let mut rest = body;
    let mut failed = None;
    while !rest.is_empty() {
        let n = match chunking {
            Chunking::Whole => rest.len(),
            Chunking::Bytewise => 1,
            Chunking::Random(_) => {
                // xorshift64: deterministic, no dependency.
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                (rng % 64) as usize + 1
            }
        };
        let (chunk, tail) = rest.split_at(n.min(rest.len()));
        rest = tail;
        if let Err(err) = decoder.feed_into(chunk, &mut events) {
            failed = Some(err);
            break;
        }
    }
    let res = match failed {
        Some(err) => Err(err),
        None => decoder.finish(&mut events),
    };
    render(&events, &res)
}

/// The text form of a decoded call.
pub(crate) fn render(events: &[ModelEvent], res: &Result<ModelResponse, ProviderError>) -> String {
    let mut out = String::new();
    for event in events {
        let _ = match event {
            ModelEvent::TextDelta(text) => writeln!(out, "text {text:?}"),
            ModelEvent::ReasoningDelta(text) => writeln!(out, "reasoning {text:?}"),
            ModelEvent::ToolCallStarted { index, name } => {
                writeln!(out, "tool_call_started {index} {name}")
            }
            ModelEvent::ToolCallDelta { index, fragment } => {
                writeln!(out, "tool_call_delta {index} {fragment:?}")
            }
            ModelEvent::Retrying { attempt, wait_ms, message } => {
                writeln!(out, "retrying {attempt} after {wait_ms} ms: {message}")
            }
        };
    }
    let _ = match res {
        Ok(res) => {
            let _ = writeln!(out, "=> ok {:?}", res.stop_reason);
            let u = &res.usage;
            let _ = writeln!(
                out,
                "usage input={} output={} cache_read={:?} cache_write={:?}",
                u.input, u.output, u.cache_read, u.cache_write
            );
            let _ = writeln!(out, "text: {:?}", res.turn.text);
            let _ = writeln!(out, "reasoning: {:?}", res.turn.reasoning);
            for call in &res.turn.tool_calls {
                let _ = writeln!(
                    out,
                    "tool_call id={} name={} arguments={:?}",
                    call.id, call.name, call.arguments
                );
            }
            for state in &res.turn.provider_state {
                let _ = writeln!(out, "provider_state {state}");
            }
            Ok(())
        }
        Err(err) => {
            let _ = writeln!(
                out,
                "=> error {:?} reason={:?} status={:?} upstream_code={:?}",
                err.kind, err.details.reason, err.details.status, err.details.upstream_code
            );
            writeln!(out, "message: {:?}", err.message)
        }
    };
    out
}
