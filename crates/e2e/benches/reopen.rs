//! Reopening a long thread in the real extension, measured from a page (what a UI waits for):
//! connect a port, `initialize` with `subscribe`, until `initialized` with the snapshot arrives.
//! Cold: the service worker was stopped first, so this includes starting the worker, the wasm,
//! opening IndexedDB and taking a new epoch. Warm: the worker is running. Threads of 1,000 and
//! 10,000 nodes; medians printed by `cargo xtask bench`. The snapshot holds the end of the
//! selected path (`snapshot::WINDOW_NODES` nodes, what a view shows first), not the whole path.
//!
//! The samples are taken from an extension document that runs no client of its own (the
//! extension's `manifest.json`, which has the extension's origin and `chrome.runtime` but no
//! script): a UI page reconnects when its worker stops, which would start the worker again
//! before the cold sample and keep a stopped worker from staying stopped.

// A benchmark of a setup it controls: failing loudly is the point.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::print_stdout)]

use std::time::Duration;
use std::time::Instant;

use panelot_e2e::Browser;
use panelot_e2e::Flavor;
use panelot_protocol::ENGINE_PROTOCOL;
use panelot_protocol::ENGINE_SCHEMA_HASH;
use panelot_testkit::cdp::Page;

const RUNS: usize = 7;
/// Targets of the 1,000-node thread (ms); the 10,000-node thread should stay within twice these.
const COLD_TARGET_MS: f64 = 100.0;
const WARM_TARGET_MS: f64 = 10.0;

fn main() {
    // One browser (a fresh profile) per thread: the sample conversations share node ids.
    for (thread, nodes) in [("bench-thread-1k", 1_000), ("bench-thread-10k", 10_000)] {
        let mut browser =
            Browser::launch_flavor(Flavor::Test).expect("launch Chromium with the test build");
        let page =
            browser.open_extension_page("manifest.json").expect("open a page without a client");
        seed(&mut browser, &page, thread, nodes);
        let (items, warm, cold) = measure(&mut browser, &page, thread);
        let factor = if nodes > 1_000 { 2.0 } else { 1.0 };
        println!(
            "extension: reopen {nodes:>6}-node thread ({items} items) cold {cold:>7.1} ms  (worker stopped; target <= {:.0} ms; median of {RUNS})",
            COLD_TARGET_MS * factor
        );
        println!(
            "extension: reopen {nodes:>6}-node thread ({items} items) warm {warm:>7.1} ms  (target <= {:.0} ms; median of {RUNS})",
            WARM_TARGET_MS * factor
        );
        print_stages(&mut browser, &page, thread);
    }
}

/// Writes a sample conversation of `nodes` nodes into the engine's database.
fn seed(browser: &mut Browser, page: &Page, thread: &str, nodes: u32) {
    let seed = format!(
        r#"(async () => {{
            const engine = await import(chrome.runtime.getURL("wasm/engine.js"));
            await engine.default();
            try {{ await engine.seedThread("{thread}", {nodes}); }}
            catch (e) {{ return "failed: " + String(e) + " " + engine.lastPanic?.(); }}
            return true;
        }})()"#
    );
    let res = browser.cdp.evaluate(page, &seed).expect("seed a thread");
    assert_eq!(res, serde_json::json!(true), "seeding {thread}");
}

/// `(items in the snapshot, warm median, cold median)` in ms.
fn measure(browser: &mut Browser, page: &Page, thread: &str) -> (i64, f64, f64) {
    let script = measure_script(thread);
    let mut items = 0;
    let mut sample = |browser: &mut Browser| {
        let result = browser.cdp.evaluate(page, &script).expect("reopen the thread");
        items = result["items"].as_i64().unwrap_or(-1);
        result["ms"].as_f64().unwrap()
    };
    // One reopen to start the worker and warm its caches.
    sample(browser);
    let warm: Vec<f64> = (0..RUNS).map(|_| sample(browser)).collect();
    let cold: Vec<f64> = (0..RUNS)
        .map(|_| {
            stop_worker(browser);
            sample(browser)
        })
        .collect();
    (items, median(warm), median(cold))
}

fn measure_script(thread: &str) -> String {
    format!(
        r#"new Promise((resolve, reject) => {{
            const start = performance.now();
            const port = chrome.runtime.connect({{ name: "panelot-bench" }});
            port.onMessage.addListener((m) => {{
                if (typeof m === "string") m = JSON.parse(m);
                if (m.type !== "initialized") return;
                const ms = performance.now() - start;
                const items = m.snapshot ? m.snapshot.items.length : -1;
                port.disconnect();
                resolve({{ ms, items }});
            }});
            port.onDisconnect.addListener(() => reject(new Error("disconnected")));
            port.postMessage({{ type: "initialize", submissionId: crypto.randomUUID(),
                protocol: "{ENGINE_PROTOCOL}", schemaHash: "{ENGINE_SCHEMA_HASH}",
                clientId: "bench", subscribe: {{ threadId: "{thread}" }} }});
        }})"#
    )
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Stops the extension's service worker and waits until it is gone. Nothing keeps it alive (the
/// measuring page has no client and each sample disconnects its port), so one close is enough;
/// a close that races the worker's own start is repeated.
fn stop_worker(browser: &mut Browser) {
    for _ in 0..5 {
        if !worker_running(browser) {
            return;
        }
        // It may stop between the look and the close: that is what we want.
        let _ = browser.kill_service_worker();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if !worker_running(browser) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    panic!("the service worker did not stop after 5 closes\n{}", browser.log_tail());
}

fn worker_running(browser: &mut Browser) -> bool {
    let workers = browser.cdp.targets("service_worker").unwrap();
    workers
        .iter()
        .any(|t| t["url"].as_str().is_some_and(|u| u.starts_with(&browser.extension_origin)))
}

/// Where a warm load spends its time, measured in the page against the same database.
fn print_stages(browser: &mut Browser, page: &Page, thread: &str) {
    const STAGES: [&str; 7] =
        ["open db", "meta", "links", "tree", "path records", "projection", "encoding"];
    let script = format!(
        r#"(async () => {{
            const engine = await import(chrome.runtime.getURL("wasm/engine.js"));
            await engine.default();
            const runs = [];
            for (let i = 0; i < {RUNS}; i++) runs.push(await engine.profileReopen("{thread}"));
            return runs;
        }})()"#
    );
    let runs = browser.cdp.evaluate(page, &script).expect("profile a load");
    let runs = runs.as_array().cloned().unwrap_or_default();
    let stage = |idx: usize| median(runs.iter().filter_map(|r| r[idx].as_f64()).collect());
    let parts: Vec<String> =
        STAGES.iter().enumerate().map(|(idx, name)| format!("{name} {:.1}", stage(idx))).collect();
    println!(
        "extension: {thread}: in-page load of the whole path, stages (ms, medians): {}",
        parts.join(", ")
    );
}
