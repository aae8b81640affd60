//! Long threads in the real chat page, printed by `cargo xtask bench`:
//!
//! * first paint of a stored thread of 1,000 and of 10,000 nodes: from navigation start to the
//!   first frame whose stream shows messages scrolled to its end (the latest ones), with the
//!   worker running; recorded in the page from its first script on, so CDP adds nothing; the
//!   rows in the page then;
//! * scrolling up the 1,000-node thread, 120 px a frame for at most 900 frames, earlier messages
//!   loading on the way: the intervals between frames (16.7 ms is 60 fps) and the rows in the page at the top.

// A benchmark of a setup it controls: failing loudly is the point.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::print_stdout)]

use panelot_e2e::Browser;
use panelot_e2e::Flavor;
use panelot_testkit::cdp::Page;
use serde_json::Value;
use serde_json::json;

const RUNS: usize = 7;
const THREADS: [(&str, u32); 2] = [("bench-long-1k", 1_000), ("bench-long-10k", 10_000)];

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Installed before every document: notes the first frame whose stream has messages and is at
/// its end.
const FIRST_FRAME: &str = r#"
    (() => {
        const check = () => {
            const s = document.querySelector('.stream');
            const messages = s ? s.querySelectorAll('.msg').length : 0;
            if (messages > 0 && s.scrollHeight - s.scrollTop - s.clientHeight < 2) {
                window.__firstFrame = { ms: performance.now(), messages,
                    rows: s.querySelectorAll('.row').length,
                    elements: s.querySelectorAll('*').length };
                return;
            }
            requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
    })();"#;

/// Scrolls the stream up 120 px a frame until it stays at the top or for 900 frames (under the
/// harness's 60 s), and returns the intervals between frames, the rows in the page and the
/// first one.
const SCROLL_UP: &str = r#"
    new Promise((resolve) => {
        const s = document.querySelector('.stream');
        const times = [];
        let still = 0;
        const step = (t) => {
            times.push(t);
            const before = s.scrollTop;
            s.scrollTop = Math.max(0, before - 120);
            // At the top for half a second: everything there is to load has come.
            still = before === 0 ? still + 1 : 0;
            if (still < 30 && times.length < 900) {
                requestAnimationFrame(step);
                return;
            }
            const gaps = times.slice(1).map((t, i) => t - times[i]);
            resolve({ gaps, rows: s.querySelectorAll('.row').length,
                first: s.querySelector('.row')?.dataset.key ?? '' });
        };
        requestAnimationFrame(step);
    })"#;

fn main() {
    for (thread, nodes) in THREADS {
        // A fresh browser for each thread: the sample conversations share node ids.
        let mut browser =
            Browser::launch_flavor(Flavor::Test).expect("launch Chromium with the test build");
        let page = browser.open_extension_page("options.html").expect("open an extension page");
        let seed = format!(
            r#"(async () => {{
                const engine = await import(chrome.runtime.getURL("wasm/engine.js"));
                await engine.default();
                await engine.seedThread("{thread}", {nodes});
                return true;
            }})()"#
        );
        browser.cdp.evaluate(&page, &seed).expect("seed a long thread");
        browser.cdp.call_in(&page.session_id, "Page.enable", json!({})).expect("Page.enable");
        browser
            .cdp
            .call_in(
                &page.session_id,
                "Page.addScriptToEvaluateOnNewDocument",
                json!({"source": FIRST_FRAME}),
            )
            .expect("install the first-frame check");
        browser.set_viewport(&page, 1280, 800).expect("a desktop viewport");
        // One opening to start the worker and warm its caches, then the measured ones.
        open(&mut browser, &page, thread);
        let runs: Vec<Value> = (0..RUNS).map(|_| open(&mut browser, &page, thread)).collect();
        let ms = median(runs.iter().map(|r| r["ms"].as_f64().unwrap()).collect());
        let last = &runs[RUNS - 1];
        println!(
            "ui: first paint of a {nodes}-node thread {ms:>7.1} ms  ({} messages, {} rows, {} elements in the stream; from navigation start; target <= 150 ms; median of {RUNS})",
            last["messages"], last["rows"], last["elements"]
        );
        if nodes == THREADS[0].1 {
            scroll_up(&mut browser, &page, thread);
        }
    }
}

/// Scrolls up through `thread` from its end and prints the frame intervals.
fn scroll_up(browser: &mut Browser, page: &Page, thread: &str) {
    open(browser, page, thread);
    let scrolled = browser.run_js(page, SCROLL_UP);
    let mut gaps: Vec<f64> =
        scrolled["gaps"].as_array().unwrap().iter().filter_map(Value::as_f64).collect();
    gaps.sort_by(f64::total_cmp);
    let at = |q: f64| gaps[((gaps.len() - 1) as f64 * q) as usize];
    let slow = gaps.iter().filter(|g| **g > 20.0).count();
    println!(
        "ui: scrolling up a 1,000-node thread: frame interval median {:.1} ms, p95 {:.1} ms, max {:.1} ms, {slow} of {} frames over 20 ms  (60 fps is 16.7 ms; {} rows in the page at the top, first {})",
        at(0.5),
        at(0.95),
        at(1.0),
        gaps.len(),
        scrolled["rows"],
        scrolled["first"]
    );
}

/// Opens the chat page on `thread` and returns what the first-frame check noted.
fn open(browser: &mut Browser, page: &Page, thread: &str) -> Value {
    let url = format!("{}/chat.html?thread={thread}", browser.extension_origin);
    // The page being left may still answer the first checks.
    browser.run_js(page, "window.__firstFrame = undefined");
    browser.cdp.call_in(&page.session_id, "Page.navigate", json!({"url": url})).expect("navigate");
    browser.wait_ui(page, "window.__firstFrame !== undefined");
    browser.run_js(page, "window.__firstFrame")
}
