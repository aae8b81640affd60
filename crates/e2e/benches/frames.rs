//! `read_page` of a page with two cross-origin iframes (a payment form and a chat widget, each
//! on an origin of its own), through the engine and the service worker's gateway in headless
//! Chromium: the median time of the call in the gateway (the page's snapshot, the frames found
//! and each read by its own executor, stitched under its iframe's line), the tokens of the
//! result (o200k), and how many of the page's interactive elements are listed with a ref, those
//! in the frames with a ref of their frame. Printed by `cargo xtask bench`.

// A benchmark of a setup it controls: failing loudly is the point.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::print_stdout)]

use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;

use panelot_e2e::conversation::Approvals;
use panelot_e2e::scenario::Scenario;
use panelot_e2e::scenario::converse;
use panelot_e2e::scenario::results_of;
use panelot_e2e::scenario::tool_results;
use panelot_testkit::mock_provider::Reply;
use serde_json::json;

const RUNS: usize = 9;

/// Two links and two buttons on the page, five controls in the payment frame, four in the chat
/// frame.
const PAGE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Checkout</title></head>
<body>
<h1>Checkout</h1>
<nav><a href="/cart">Cart</a> <a href="/help">Help</a></nav>
<button>Apply coupon</button> <button>Back</button>
<iframe id="pay" title="Payment" width="400" height="260"></iframe>
<iframe id="chat" title="Chat" width="300" height="260"></iframe>
<p id="status">waiting</p>
<script>
document.getElementById("pay").src = "http://pay.test:" + location.port + "/pay.html";
document.getElementById("chat").src = "http://chat.test:" + location.port + "/chat.html";
let up = 0;
addEventListener("message", (e) => { if (e.data === "up" && ++up === 2) document.getElementById("status").textContent = "frames up"; });
</script>
</body></html>"#;

const PAY: &str = r#"<!doctype html><html lang="en"><head><title>Pay</title></head><body>
<form><label>Name on card <input></label><label>Card number <input inputmode="numeric"></label>
<label>Expiry <input placeholder="MM/YY"></label><label>CVC <input></label>
<button type="submit">Pay 42.00</button></form>
<script>parent.postMessage("up", "*");</script></body></html>"#;

const CHAT: &str = r#"<!doctype html><html lang="en"><head><title>Chat</title></head><body>
<h2>Need help?</h2><p>Our team answers in minutes.</p>
<textarea aria-label="Message"></textarea><button>Send</button>
<button>Attach a file</button><a href="/faq">FAQ</a>
<script>parent.postMessage("up", "*");</script></body></html>"#;

/// The page's four controls and its two iframes (whose refs read one frame alone).
const TOP_REFS: usize = 6;
const INTERACTIVE_FRAMES: usize = 9;

/// The `n`th read of a turn (the default budget, less one token a call: the engine stops a
/// model that repeats the same call), or the end of the turn.
fn read_or_stop(n: usize) -> Reply {
    if n <= RUNS {
        Reply::tool_call("read_page", json!({"maxTokens": 3000 - n}))
    } else {
        Reply::text("read")
    }
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() {
    let mut s = Scenario::start_on_test_host("shop.test", "/checkout.html", PAGE);
    s.site.add_page("/pay.html", PAY);
    s.site.add_page("/chat.html", CHAT);
    s.h.eval_in_tab(s.tab, "location.reload(); return true;").unwrap();
    let ready = "return new Promise((done) => { const t = setInterval(() => { \
        if (document.getElementById('status')?.textContent === 'frames up') { clearInterval(t); done(true); } }, 20); \
        setTimeout(() => done(false), 5000); });";
    let up = (0..6).any(|_| s.h.eval_in_tab(s.tab, ready).is_ok_and(|v| v == json!(true)));
    assert!(up, "the frames did not load");
    // The first read also injects the executors and compiles their code: not counted.
    s.server.set_responder(|request| {
        let n = tool_results(request).len();
        Some(read_or_stop(n))
    });
    let events = s.send_turn("Read the page", json!([]), json!(null), Approvals::Accept);
    s.server.clear_responder();
    let cards = results_of(&events);
    assert_eq!(cards.len(), RUNS + 1);
    let times: Vec<f64> = cards[1..]
        .iter()
        .map(|card| card["details"]["elapsedMs"].as_f64().expect("the gateway's time"))
        .collect();
    let results = s.tool_results();
    let text = results.last().and_then(|r| r.last()).cloned().unwrap();
    let bpe = tiktoken_rs::o200k_base().expect("the o200k tokenizer");
    let tokens = bpe.encode_ordinary(&text).len();
    let top_refs = text.matches("[e").count();
    let frame_refs = text.matches("[f").count();
    println!(
        "frames: read_page of a page with two cross-origin iframes {:.1} ms in the gateway (median of {RUNS}, first read {:.1} ms), {tokens} tokens (o200k); refs {top_refs}/{TOP_REFS} on the page, {frame_refs}/{INTERACTIVE_FRAMES} in the frames {}",
        median(times),
        cards[0]["details"]["elapsedMs"].as_f64().unwrap_or(f64::NAN),
        if top_refs == TOP_REFS && frame_refs == INTERACTIVE_FRAMES { "ok" } else { "MISMATCH" },
    );
    if std::env::var_os("PANELOT_BENCH_SHOW").is_some() {
        println!("{text}");
    }

    // The same page without its frames: what reading them costs.
    s.h.eval_in_tab(
        s.tab,
        "document.querySelectorAll('iframe').forEach((f) => f.remove()); return true;",
    )
    .unwrap();
    // Counted by the responder: earlier turns' results may be left out of a request.
    let calls = AtomicUsize::new(0);
    s.server.set_responder(move |_| Some(read_or_stop(calls.fetch_add(1, Ordering::Relaxed))));
    // `send_turn`'s submission ids are taken: a resend would replay the first turn's receipt.
    let input = json!({"text": "Read the page again", "browserContext": s.browser_context()});
    let events = converse(
        &mut s.h,
        json!([
            {"send": {"type": "thread.subscribe", "submissionId": "sub-3", "threadId": "$thread"},
             "until": "thread.snapshot"},
            {"send": {"type": "turn.submit", "submissionId": "turn-3", "threadId": "$thread",
                "input": input},
             "until": "turn.complete"},
        ]),
    );
    s.server.clear_responder();
    let cards = results_of(&events);
    let times: Vec<f64> = cards[1..]
        .iter()
        .map(|card| card["details"]["elapsedMs"].as_f64().expect("the gateway's time"))
        .collect();
    let results = s.tool_results();
    let text = results.last().and_then(|r| r.last()).cloned().unwrap();
    println!(
        "frames: read_page of the same page with its iframes removed {:.1} ms in the gateway (median of {RUNS}), {} tokens (o200k)",
        median(times),
        bpe.encode_ordinary(&text).len(),
    );
}
