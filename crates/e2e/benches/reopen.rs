//! Reopening a 1,000-node thread in the real extension, measured from the page (what a UI waits
//! for): connect a port, `initialize` with `subscribe`, until `initialized` with the snapshot
//! arrives. Cold: the service worker was killed first, so this includes starting the worker, the
//! wasm, opening IndexedDB and taking a new epoch. Warm: the worker is running. Medians printed by
//! `cargo xtask bench`.

// A benchmark of a setup it controls: failing loudly is the point.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::print_stdout)]

use std::time::Duration;
use std::time::Instant;

use panelot_e2e::Browser;
use panelot_e2e::Flavor;
use panelot_protocol::ENGINE_PROTOCOL;
use panelot_protocol::ENGINE_SCHEMA_HASH;

const RUNS: usize = 7;
const THREAD: &str = "bench-thread";

fn measure_script() -> String {
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
                clientId: "bench", subscribe: {{ threadId: "{THREAD}" }} }});
        }})"#
    )
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn wait_for_worker_gone(browser: &mut Browser) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let workers = browser.cdp.targets("service_worker").unwrap();
        if !workers
            .iter()
            .any(|t| t["url"].as_str().is_some_and(|u| u.starts_with(&browser.extension_origin)))
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the service worker did not stop");
}

fn main() {
    let mut browser =
        Browser::launch_flavor(Flavor::Test).expect("launch Chromium with the test build");
    let page = browser.open_extension_page("chat.html").expect("open the chat page");
    let seed = format!(
        r#"(async () => {{
            const engine = await import(chrome.runtime.getURL("wasm/engine.js"));
            await engine.default();
            await engine.seedThread("{THREAD}", 1000);
            return true;
        }})()"#
    );
    browser.cdp.evaluate(&page, &seed).expect("seed a 1,000-node thread");
    let script = measure_script();
    let mut items = 0;
    let mut sample = |browser: &mut Browser| {
        let result = browser.cdp.evaluate(&page, &script).expect("reopen the thread");
        items = result["items"].as_i64().unwrap_or(-1);
        result["ms"].as_f64().unwrap()
    };
    // One reopen to start the worker and warm the caches.
    sample(&mut browser);
    let warm: Vec<f64> = (0..RUNS).map(|_| sample(&mut browser)).collect();
    let cold: Vec<f64> = (0..RUNS)
        .map(|_| {
            browser.kill_service_worker().expect("kill the worker");
            wait_for_worker_gone(&mut browser);
            sample(&mut browser)
        })
        .collect();
    println!(
        "extension: reopen 1,000-node thread ({items} items) cold {:>7.1} ms  (worker killed; target <= 150 ms; median of {RUNS})",
        median(cold)
    );
    println!(
        "extension: reopen 1,000-node thread ({items} items) warm {:>7.1} ms  (target <= 30 ms)",
        median(warm)
    );
    print_stages(&mut browser, &page);
}

/// Where a warm load spends its time, measured in the page against the same database.
fn print_stages(browser: &mut Browser, page: &panelot_testkit::cdp::Page) {
    const STAGES: [&str; 7] =
        ["open db", "meta", "links", "tree", "path records", "projection", "encoding"];
    let script = format!(
        r#"(async () => {{
            const engine = await import(chrome.runtime.getURL("wasm/engine.js"));
            await engine.default();
            const runs = [];
            for (let i = 0; i < {RUNS}; i++) runs.push(await engine.profileReopen("{THREAD}"));
            return runs;
        }})()"#
    );
    let runs = browser.cdp.evaluate(page, &script).expect("profile a load");
    let runs = runs.as_array().cloned().unwrap_or_default();
    let stage = |idx: usize| median(runs.iter().filter_map(|r| r[idx].as_f64()).collect());
    let parts: Vec<String> =
        STAGES.iter().enumerate().map(|(idx, name)| format!("{name} {:.1}", stage(idx))).collect();
    println!("extension: warm load stages (ms, medians): {}", parts.join(", "));
}
