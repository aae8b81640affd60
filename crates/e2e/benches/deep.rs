//! `read_page` and `read_page_deep` of a checkout page with two cross-origin iframes (a payment
//! form and a chat widget, each on an origin of its own) and a closed shadow root (a cart widget
//! with a button and a field), through the engine and the service worker's gateway in headless
//! Chromium with L2 on: the median time of each call in the gateway, the tokens of its result
//! (o200k), and how many of the page's 15 interactive elements are listed with a ref (the L1
//! snapshot cannot see into the closed shadow root). Printed by `cargo xtask bench`.

// A benchmark of a setup it controls: failing loudly is the point.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::print_stdout)]

use panelot_e2e::conversation::Approvals;
use panelot_e2e::scenario::Scenario;
use panelot_e2e::scenario::results_of;
use panelot_e2e::scenario::tool_results;
use panelot_testkit::mock_provider::Reply;
use serde_json::Value;
use serde_json::json;

/// Timed reads of each tool (after one that warms up).
const RUNS: usize = 9;

/// Two links and two buttons on the page, a button and a field in the closed shadow root, five
/// controls in the payment frame, four in the chat frame.
const PAGE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Checkout</title></head>
<body>
<h1>Checkout</h1>
<nav><a href="/cart">Cart</a> <a href="/help">Help</a></nav>
<button>Apply coupon</button> <button>Back</button>
<div id="widget"></div>
<iframe id="pay" title="Payment" width="400" height="260"></iframe>
<iframe id="chat" title="Chat" width="300" height="260"></iframe>
<p id="status">waiting</p>
<script>
const shadow = document.getElementById("widget").attachShadow({mode: "closed"});
shadow.innerHTML = '<button>Save for later</button> <input aria-label="Gift note">';
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

/// The page's interactive elements by name; the last two of the top page's are in the closed
/// shadow root.
const INTERACTIVE: [&str; 15] = [
    "Cart",
    "Help",
    "Apply coupon",
    "Back",
    "Save for later",
    "Gift note",
    "Name on card",
    "Card number",
    "Expiry",
    "CVC",
    "Pay 42.00",
    "Message",
    "Send",
    "Attach a file",
    "FAQ",
];

/// How many of [`INTERACTIVE`] have a line with their name and a ref (`[e…]`, `[f…e…]`, `[d…]`).
fn reachable(text: &str) -> usize {
    let has_ref = |line: &str| {
        line.match_indices('[').any(|(at, _)| {
            let rest = &line[at + 1..];
            let rest = rest
                .strip_prefix('f')
                .map_or(rest, |r| r.trim_start_matches(|c: char| c.is_ascii_digit()));
            (rest.starts_with('e') || rest.starts_with('d'))
                && rest[1..].starts_with(|c: char| c.is_ascii_digit())
        })
    };
    INTERACTIVE
        .iter()
        .filter(|name| {
            let quoted = format!("\"{name}\"");
            text.lines().any(|line| line.contains(&quoted) && has_ref(line))
        })
        .count()
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
    // Each tool RUNS + 1 times, the first of each not counted; the budget one token less each
    // call (the engine stops a model that repeats the same call).
    let per = RUNS + 1;
    s.server.set_responder(move |request| {
        let n = tool_results(request).len();
        let budget = json!({"maxTokens": 3000 - n});
        Some(match n {
            n if n < per => Reply::tool_call("read_page", budget),
            n if n < 2 * per => Reply::tool_call("read_page_deep", budget),
            _ => Reply::text("read"),
        })
    });
    let overrides = json!({"enabledToolLevels": ["L0", "L1", "L2", "builtin"]});
    let events = s.send_turn("Read the page", json!([]), overrides, Approvals::Accept);
    s.server.clear_responder();
    let cards = results_of(&events);
    assert_eq!(cards.len(), 2 * per, "{cards:#?}");
    let times = |cards: &[&Value]| -> Vec<f64> {
        cards
            .iter()
            .map(|card| card["details"]["elapsedMs"].as_f64().expect("the gateway's time"))
            .collect()
    };
    let results = s.tool_results();
    let last = results.last().cloned().unwrap();
    let bpe = tiktoken_rs::o200k_base().expect("the o200k tokenizer");
    for (at, tool) in [(0, "read_page"), (per, "read_page_deep")] {
        let text = &last[at + per - 1];
        let shown = cards[at]["details"]["elapsedMs"].as_f64().unwrap_or(f64::NAN);
        let count = reachable(text);
        println!(
            "deep: {tool} of a page with two cross-origin iframes and a closed shadow root {:.1} ms in the gateway (median of {RUNS}, first {shown:.1} ms), {} tokens (o200k), interactive elements reachable by ref {count}/{}",
            median(times(&cards[at + 1..at + per])),
            bpe.encode_ordinary(text).len(),
            INTERACTIVE.len(),
        );
        if std::env::var_os("PANELOT_BENCH_SHOW").is_some() {
            println!("{text}");
        }
    }
}
