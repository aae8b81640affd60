//! The IndexedDB store passes the same conformance suite as the memory and SQLite stores, run in
//! Chromium against real IndexedDB (test build of the engine wasm, loaded in an extension page).

use panelot_e2e::Browser;
use panelot_e2e::Flavor;
use serde_json::Value;

// A failed assertion in wasm aborts inside a microtask and never settles the case's promise, so
// the runner also watches for the panic message the test build records.
const RUN_ALL: &str = r#"(async () => {
    const engine = await import(chrome.runtime.getURL("wasm/engine.js"));
    await engine.default();
    const names = engine.storeConformanceCases();
    const results = [];
    for (let i = 0; i < names.length; i++) {
        const finished = engine.runStoreConformanceCase(i).then(
            () => ({ ok: true }),
            (err) => ({ ok: false, error: String(err) }),
        );
        let timer;
        const panicked = new Promise((resolve) => {
            timer = setInterval(() => {
                const panic = engine.lastPanic();
                if (panic) resolve({ ok: false, panic });
            }, 20);
        });
        const outcome = await Promise.race([finished, panicked]);
        clearInterval(timer);
        results.push({ name: names[i], ...outcome });
        if (!outcome.ok) break;
    }
    return results;
})()"#;

#[test]
fn indexeddb_store_passes_the_conformance_suite_in_chromium() {
    let mut browser =
        Browser::launch_flavor(Flavor::Test).expect("launch Chromium with the test build");
    let page = browser.open_extension_page("options.html").expect("open an extension page");
    let results = browser
        .cdp
        .evaluate(&page, RUN_ALL)
        .unwrap_or_else(|err| panic!("{err}\n{}", browser.log_tail()));
    let results = results.as_array().cloned().unwrap_or_default();
    let failed: Vec<&Value> = results.iter().filter(|r| r["ok"] != Value::Bool(true)).collect();
    assert!(failed.is_empty(), "IndexedDB conformance failed: {failed:#?}");
    assert_eq!(
        results.len(),
        panelot_core::store::conformance::CASES.len(),
        "every case ran: {results:?}"
    );
}
