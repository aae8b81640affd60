//! Decoding figures, printed as medians of several runs (`cargo xtask bench`).

// A benchmark of fixed, valid inputs: a failure to decode them is a bug to crash on.
#![allow(clippy::expect_used)]

use std::hint::black_box;
use std::time::Instant;

use panelot_protocol::EventFrame;
use panelot_protocol::command_fingerprint;
use panelot_protocol::decode_event_str;
use panelot_protocol::decode_op_str;
use serde_json::json;

const RUNS: usize = 7;

/// Median over `RUNS` runs of the time per iteration, in microseconds.
fn median_micros(iterations: u32, mut work: impl FnMut()) -> f64 {
    let mut samples: Vec<f64> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..iterations {
                work();
            }
            start.elapsed().as_secs_f64() * 1e6 / f64::from(iterations)
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[RUNS / 2]
}

fn main() {
    let text = "lorem ipsum ".repeat(850); // ~10 KiB of input text
    let submit = json!({"type": "turn.submit", "submissionId": "s-1", "threadId": "t-1",
        "input": {"text": text, "attachedContext": [{"kind": "page", "label": "Page",
        "origin": "https://a.example", "trust": "untrusted", "provenance": "page",
        "sourceRef": null, "tab": null, "content": {"type": "text", "text": text},
        "approxTokens": 5000}]}})
    .to_string();
    let op_us = median_micros(2_000, || {
        black_box(decode_op_str(black_box(&submit)).ok());
    });
    let op = decode_op_str(&submit).expect("valid op");
    let fp_us = median_micros(2_000, || {
        black_box(command_fingerprint(black_box(&op)).ok());
    });
    let delta = json!({"type": "item.delta", "threadId": "t-1", "itemId": "i-1",
        "delta": {"text": "Hello, wor"}, "stream": {"threadId": "t-1", "epoch": 1, "sequence": 42}})
    .to_string();
    let delta_us = median_micros(50_000, || {
        black_box(decode_event_str(black_box(&delta)).ok());
    });
    let frame: EventFrame = decode_event_str(&delta).expect("valid event");
    let encode_us = median_micros(50_000, || {
        black_box(frame.to_value().ok());
    });
    println!("protocol: decode turn.submit (2 x 10 KiB text)  {op_us:>8.1} µs  (median of {RUNS})");
    println!("protocol: fingerprint turn.submit                {fp_us:>8.1} µs");
    println!("protocol: decode item.delta with cursor          {delta_us:>8.2} µs");
    println!("protocol: encode item.delta frame                {encode_us:>8.2} µs");
}
