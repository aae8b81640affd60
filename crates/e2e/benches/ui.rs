//! UI figures in the real extension, printed by `cargo xtask bench`: time from Esc in the
//! composer to the interrupted state shown (reference target 200 ms) and the size of the UI wasm
//! after wasm-opt (target <= 1.5 MiB). Long threads (first paint, scrolling) are `long_thread`.

// A benchmark of a setup it controls: failing loudly is the point.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::print_stdout)]

use panelot_e2e::Browser;
use panelot_e2e::Flavor;
use panelot_testkit::mock_provider::Gate;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::Reply;
use serde_json::json;

const RUNS: usize = 5;

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() {
    let dir = panelot_e2e::extension_dir(Flavor::Test).expect("the test build");
    let wasm = std::fs::metadata(dir.join("wasm/ui_bg.wasm")).map(|m| m.len()).unwrap_or(0);
    println!(
        "ui: wasm size {:>7.1} KiB ({wasm} bytes after wasm-opt; target <= 1536 KiB)",
        wasm as f64 / 1024.0
    );

    let mut browser =
        Browser::launch_flavor(Flavor::Test).expect("launch Chromium with the test build");
    esc_to_interrupted(&mut browser);
}

/// Esc in the composer while an answer streams, to the interrupted note on screen.
fn esc_to_interrupted(browser: &mut Browser) {
    let server = MockProvider::start();
    let page = browser.open_extension_page("chat.html").expect("open the chat page");
    browser.wait_ui(&page, panelot_e2e::side_panel::sel::READY);
    let steps = json!([
        {"send": {"type": "connection.save", "submissionId": "save", "connection": {
            "id": null, "name": "Mock", "kind": "openai", "baseUrl": format!("{}/v1", server.base_url()),
            "apiKeys": ["sk-bench"], "enabled": true, "modelIds": ["mock-model"],
            "customHeaders": null, "quirks": []}},
         "until": "command.ack"},
    ]);
    let script = panelot_e2e::conversation::script("bench-ui", &steps);
    browser.run_js(&page, &script);
    // A first turn that finishes, so the title request is out of the way of the measured ones.
    server.push(Reply::text("Warm-up answer."));
    server.push(Reply::text("Title"));
    browser.type_into(&page, ".composer textarea", "Warm up").unwrap();
    browser.press(&page, "Enter", &[]).unwrap();
    browser.wait_ui(&page, "[...document.querySelectorAll('.msg.assistant')].some(m => m.textContent.includes('Warm-up answer.'))");
    browser.wait_ui(&page, "!document.querySelector('.composer .stop')");
    let mut samples = Vec::new();
    let mut gates = Vec::new();
    for run in 0..RUNS {
        let gate = Gate::new();
        server.push(Reply::text(format!("Streaming {run}")).then_stall(&gate));
        gates.push(gate);
        browser.type_into(&page, ".composer textarea", &format!("Task {run}")).unwrap();
        browser.press(&page, "Enter", &[]).unwrap();
        browser.wait_ui(
            &page,
            &format!("[...document.querySelectorAll('.msg.assistant')].some(m => m.textContent.includes('Streaming {run}'))"),
        );
        let measure = r#"new Promise((resolve) => {
                const notes = () => document.querySelectorAll('.turn-note').length;
                const before = notes();
                const textarea = document.querySelector('.composer textarea');
                textarea.focus();
                const start = performance.now();
                new MutationObserver((_, observer) => {
                    if (notes() > before && !document.querySelector('.composer .stop')) {
                        observer.disconnect();
                        requestAnimationFrame(() => resolve(performance.now() - start));
                    }
                }).observe(document.querySelector('.panelot'), { childList: true, subtree: true });
                textarea.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
            })"#;
        samples.push(browser.run_js(&page, measure).as_f64().unwrap());
    }
    for gate in &gates {
        gate.release();
    }
    println!(
        "ui: Esc to interrupted shown {:>7.1} ms  (target <= 200 ms; median of {RUNS})",
        median(samples)
    );
}
