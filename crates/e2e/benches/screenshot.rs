//! `screenshot` through the engine and the service worker's gateway in headless Chromium: for
//! the viewport, one element (by ref, below the fold) and the whole page of a documentation-style
//! page, the median time of the call in the gateway (attach, capture, detach), the PNG's size
//! and the input tokens the image costs a vision model (the gateway's estimate). Printed by
//! `cargo xtask bench`.

// A benchmark of a setup it controls: failing loudly is the point.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::print_stdout)]

use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;

use panelot_e2e::conversation::Approvals;
use panelot_e2e::scenario::Scenario;
use panelot_e2e::scenario::results_of;
use panelot_testkit::mock_provider::Reply;
use serde_json::Value;
use serde_json::json;

const RUNS: usize = 7;

/// What each call asks for, in turn (alternating, so the engine's loop guard sees no repeats).
const SHOTS: [(&str, &str); 3] =
    [("viewport", "{}"), ("element", r#"{"ref": "e1"}"#), ("full page", r#"{"fullPage": true}"#)];

fn page() -> String {
    let mut body = String::from("<h1>Guide</h1>");
    for section in 1..=12 {
        body.push_str(&format!("<h2>Section {section}</h2>"));
        for _ in 0..3 {
            body.push_str(
                "<p>Panelot reads pages as text and, for a model that reads images, as pictures \
                 of the viewport, an element or the whole page. This paragraph is filler of the \
                 length a documentation page has.</p>",
            );
        }
        body.push_str("<table><tr><th>Option</th><th>Default</th></tr><tr><td>depth</td><td>3</td></tr></table>");
    }
    body.push_str("<button id=\"end\">Subscribe to the guide</button>");
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Guide</title>\
         <style>body {{ font: 16px sans-serif; max-width: 900px; margin: 0 auto; }}</style></head><body>{body}</body></html>"
    )
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() {
    let mut s = Scenario::start("/guide.html", &page());
    let calls = AtomicUsize::new(0);
    s.server.set_responder(move |_| {
        let n = calls.fetch_add(1, Ordering::Relaxed);
        // The first call only injects the executor for the element's box: not counted.
        Some(match n {
            0 => Reply::tool_call("read_page", json!({})),
            n if n <= 3 * RUNS => {
                let (_, params) = SHOTS[(n - 1) % 3];
                Reply::tool_call("screenshot", serde_json::from_str::<Value>(params).unwrap())
            }
            _ => Reply::text("seen"),
        })
    });
    let levels = json!({"enabledToolLevels": ["L0", "L1", "L2", "builtin"]});
    let events = s.send_turn("Show me the guide", json!([]), levels, Approvals::Accept);
    s.server.clear_responder();
    let cards = results_of(&events);
    assert_eq!(cards.len(), 1 + 3 * RUNS, "{cards:#?}");
    for (kind, (name, _)) in SHOTS.iter().enumerate() {
        let shots: Vec<&Value> = cards[1..].iter().skip(kind).step_by(3).copied().collect();
        assert!(shots.iter().all(|c| c["ok"] == true), "{name}: {shots:#?}");
        let details = |field: &str| -> Vec<f64> {
            shots.iter().map(|c| c["details"][field].as_f64().expect(field)).collect()
        };
        let d = &shots[0]["details"];
        println!(
            "screenshot: {name} {:.1} ms in the gateway (median of {RUNS}), {}×{} px, {:.0} KB PNG, about {} image tokens",
            median(details("elapsedMs")),
            d["width"],
            d["height"],
            median(details("bytes")) / 1024.0,
            d["imageTokens"],
        );
    }
}
