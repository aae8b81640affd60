//! SSE + adapter throughput on large synthetic streams in each wire format, printed as MB/s
//! (median of several runs), plus heap allocations per model event (`cargo xtask bench`).

// A counting global allocator needs `unsafe impl GlobalAlloc`; it only forwards to `System`.
#![allow(unsafe_code)]
// A benchmark of fixed, valid inputs: a failure to decode them is a bug to crash on.
#![allow(clippy::expect_used, clippy::print_stdout)]

use std::alloc::GlobalAlloc;
use std::alloc::Layout;
use std::alloc::System;
use std::hint::black_box;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;
use std::time::Instant;

use panelot_core::model::ModelEvent;
use panelot_providers::Quirks;
use panelot_providers::StreamAdapter;
use panelot_providers::StreamDecoder;
use panelot_providers::ToolCallIds;
use panelot_providers::anthropic::AnthropicStream;
use panelot_providers::openai::OpenAiStream;

const RUNS: usize = 7;
/// Bytes handed to the decoder per call, about what a network read yields.
const READ_SIZE: usize = 16 * 1024;
/// Size of each synthetic stream.
const TARGET_BYTES: usize = 32 * 1024 * 1024;

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call forwards unchanged to the system allocator; the counter is a relaxed atomic.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// An OpenAI-style stream: text deltas of a few words (as gpt-4o sends them), then a tool call
/// with streamed arguments, a finish chunk, usage and `[DONE]`.
fn openai_body() -> Vec<u8> {
    let mut body = String::new();
    let head = r#"{"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1736400000,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_6b68a8204b","choices":[{"index":0,"delta":"#;
    let words = [
        "The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".\n",
        " Über", " naïve",
    ];
    let mut i = 0;
    while body.len() < TARGET_BYTES {
        let word = words[i % words.len()];
        body.push_str(&format!("data: {head}{{\"content\":\"{}\"}},\"logprobs\":null,\"finish_reason\":null}}],\"usage\":null}}\n\n", word.replace('\n', "\\n")));
        i += 1;
    }
    body.push_str(&format!("data: {head}{{\"tool_calls\":[{{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{{\"name\":\"navigate\",\"arguments\":\"\"}}}}]}},\"finish_reason\":null}}]}}\n\n"));
    for _ in 0..100 {
        body.push_str(&format!("data: {head}{{\"tool_calls\":[{{\"index\":0,\"function\":{{\"arguments\":\"{{\\\"a\\\":1}}\"}}}}]}},\"finish_reason\":null}}]}}\n\n"));
    }
    body.push_str(&format!("data: {head}{{}},\"finish_reason\":\"tool_calls\"}}]}}\n\n"));
    body.push_str("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,\"prompt_tokens_details\":{\"cached_tokens\":2}}}\n\ndata: [DONE]\n\n");
    body.into_bytes()
}

/// An Anthropic-style stream: one long text block of small `text_delta` events.
fn anthropic_body() -> Vec<u8> {
    let mut body = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n\
         event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    );
    let words =
        ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", "."];
    let mut i = 0;
    while body.len() < TARGET_BYTES {
        let word = words[i % words.len()];
        body.push_str(&format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{word}\"}}}}\n\n"));
        i += 1;
    }
    body.push_str(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    );
    body.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":99}}\n\n");
    body.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    body.into_bytes()
}

/// Decodes `body` once; returns the number of model events.
fn decode<A: StreamAdapter>(adapter: A, body: &[u8]) -> usize {
    let mut decoder = StreamDecoder::new(adapter);
    // The consumer drains events after every read, as the engine does.
    let mut events: Vec<ModelEvent> = Vec::with_capacity(1024);
    let mut n_events = 0;
    for chunk in body.chunks(READ_SIZE) {
        decoder.feed_into(chunk, &mut events).expect("valid stream");
        n_events += events.len();
        black_box(&events);
        events.clear();
    }
    let res = decoder.finish(&mut events).expect("complete stream");
    black_box(res);
    n_events + events.len()
}

fn report(label: &str, body: &[u8], mut run: impl FnMut() -> usize) {
    let mut seconds: Vec<f64> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            black_box(run());
            start.elapsed().as_secs_f64()
        })
        .collect();
    seconds.sort_by(f64::total_cmp);
    let median = seconds[RUNS / 2];
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let n_events = run();
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    let mb = body.len() as f64 / 1e6;
    println!(
        "{label}: {:.1} MB in {:.1} ms (median of {RUNS}) = {:.0} MB/s; {n_events} events, {:.2} allocations per event",
        mb,
        median * 1e3,
        mb / median,
        allocations as f64 / n_events as f64
    );
}

fn main() {
    let openai = openai_body();
    report("openai  sse+adapter", &openai, || {
        decode(OpenAiStream::new(Quirks::default(), ToolCallIds::new("g")), &openai)
    });
    let quirks = Quirks { think_tag_reasoning: true, ..Quirks::default() };
    report("openai  +thinkTags ", &openai, || {
        decode(OpenAiStream::new(quirks, ToolCallIds::new("g")), &openai)
    });
    let anthropic = anthropic_body();
    report("anthropic sse+adapter", &anthropic, || {
        decode(AnthropicStream::new(ToolCallIds::new("g")), &anthropic)
    });
}
