//! Long threads in the real chat page, printed by `cargo xtask bench`:
//!
//! * first paint of a stored thread of 1,000 and of 10,000 nodes: from navigation start to the
//!   first frame whose stream shows messages scrolled to its end (the latest ones), with the
//!   worker running; recorded in the page from its first script on, so CDP adds nothing; the
//!   rows in the page then, each run's figure, and the median time of each step on the way
//!   (the wasm fetched and compiled, `chrome.storage` read, the engine port's first message and
//!   answer, the page mounted, the first message in the DOM);
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
/// its end, and the steps on the way there (`steps`, ms from navigation start, the first of each
/// name), from wrappers of the calls the page makes: `fetch`, the `WebAssembly` compile and
/// instantiate calls, `chrome.storage` reads, the engine port (opened, first message posted,
/// first answer); the page mounted and the first message in the DOM; the navigation's own
/// timings.
const FIRST_FRAME: &str = r#"
    (() => {
        const steps = {};
        const step = (name) => { if (!(name in steps)) steps[name] = performance.now(); };
        step('document');
        const wasm = WebAssembly;
        for (const name of ['instantiateStreaming', 'instantiate', 'compileStreaming']) {
            const original = wasm[name];
            if (!original) continue;
            wasm[name] = function (...args) {
                step(name + ' start');
                const result = original.apply(this, args);
                result.then(() => step(name + ' end'));
                return result;
            };
        }
        const fetch = globalThis.fetch;
        globalThis.fetch = function (input, ...rest) {
            const file = String(input.url ?? input).split('/').pop();
            step('fetch ' + file);
            const result = fetch.call(this, input, ...rest);
            result.then(() => step('fetched ' + file));
            return result;
        };
        for (const area of ['local', 'session']) {
            const storage = globalThis.chrome?.storage?.[area];
            if (!storage) continue;
            const get = storage.get;
            storage.get = function (...args) {
                step('storage.' + area + '.get');
                const result = get.apply(this, args);
                result?.then?.(() => step('storage.' + area + '.get answered'));
                return result;
            };
        }
        const runtime = globalThis.chrome?.runtime;
        const connect = runtime?.connect;
        if (connect) {
            runtime.connect = function (...args) {
                step('connect');
                const port = connect.apply(this, args);
                const post = port.postMessage.bind(port);
                port.postMessage = (message) => { step('first post'); post(message); };
                port.onMessage.addListener(() => step('first answer'));
                return port;
            };
        }
        new MutationObserver(() => {
            if (document.body?.querySelector(':scope > :not(.sprite)')) step('mounted');
            if (document.querySelector('.stream .msg')) step('message in the DOM');
        }).observe(document, { childList: true, subtree: true });
        document.addEventListener('DOMContentLoaded', () => step('DOMContentLoaded'));
        const check = () => {
            const s = document.querySelector('.stream');
            const messages = s ? s.querySelectorAll('.msg').length : 0;
            if (messages > 0 && s.scrollHeight - s.scrollTop - s.clientHeight < 2) {
                const [nav] = performance.getEntriesByType('navigation');
                for (const name of ['fetchStart', 'responseStart', 'responseEnd', 'domInteractive']) {
                    steps['navigation ' + name] = nav?.[name];
                }
                window.__firstFrame = { ms: performance.now(), messages,
                    rows: s.querySelectorAll('.row').length,
                    elements: s.querySelectorAll('*').length, steps };
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
    // `cargo bench --bench long_thread -- 1k` measures the threads whose name has `1k`.
    let filter: Option<String> = std::env::args().skip(1).find(|arg| !arg.starts_with("--"));
    let threads = THREADS
        .into_iter()
        .filter(|(name, _)| filter.as_ref().is_none_or(|f| name.contains(f.as_str())));
    for (thread, nodes) in threads {
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
        let mut each: Vec<f64> = runs.iter().map(|r| r["ms"].as_f64().unwrap()).collect();
        each.sort_by(f64::total_cmp);
        let ms = median(each.clone());
        print_steps(&runs);
        let each: Vec<String> = each.iter().map(|ms| format!("{ms:.0}")).collect();
        println!("      runs (ms): {}", each.join(", "));
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

/// Prints the median time of each step noted by `FIRST_FRAME`, in order.
fn print_steps(runs: &[Value]) {
    let mut names: Vec<String> = runs
        .iter()
        .filter_map(|r| r["steps"].as_object())
        .flat_map(|s| s.keys().cloned())
        .collect();
    names.sort();
    names.dedup();
    let mut steps: Vec<(f64, String)> = names
        .into_iter()
        .map(|name| {
            let times: Vec<f64> = runs.iter().filter_map(|r| r["steps"][&name].as_f64()).collect();
            (median(times), name)
        })
        .collect();
    steps.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (ms, name) in steps {
        println!("      {ms:>7.1} ms  {name}");
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
