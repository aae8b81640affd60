//! Test builds only (feature `conformance`): runs the shared store conformance suite against
//! IndexedDB in the browser, one case per call, each on its own fresh database.

use std::cell::RefCell;

use js_sys::Array;
use panelot_core::store::conformance::CASES;
use panelot_core::store::conformance::run_case;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::idb_store::IdbStore;

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The case names, in order.
#[wasm_bindgen(js_name = storeConformanceCases)]
pub fn store_conformance_cases() -> Array {
    CASES.iter().map(|name| JsValue::from(*name)).collect()
}

/// Runs case `idx` on a fresh database. A failed assertion aborts the wasm instance (panics
/// abort in release builds); [`last_panic`] then says what failed.
#[wasm_bindgen(js_name = runStoreConformanceCase)]
pub async fn run_store_conformance_case(idx: u32) -> Result<(), JsValue> {
    std::panic::set_hook(Box::new(|info| {
        LAST_PANIC.with(|slot| *slot.borrow_mut() = Some(info.to_string()));
    }));
    let name = format!("panelot-conformance-{idx}");
    let to_js = |err: panelot_core::store::StoreError| JsValue::from_str(&err.to_string());
    crate::idb_store::delete_database(&name).await.map_err(to_js)?;
    let store = IdbStore::open(&name).await.map_err(to_js)?;
    run_case(idx as usize, &store).await;
    store.close();
    crate::idb_store::delete_database(&name).await.map_err(to_js)
}

/// The message of the last panic, if any.
#[wasm_bindgen(js_name = lastPanic)]
pub fn last_panic() -> Option<String> {
    LAST_PANIC.with(|slot| slot.borrow().clone())
}

/// Writes a sample conversation of `nodes` nodes as thread `thread` into the engine's own
/// database (benchmarks of reopening a large thread).
#[wasm_bindgen(js_name = seedThread)]
pub async fn seed_thread(thread: String, nodes: u32) -> Result<(), JsValue> {
    let to_js = |err: panelot_core::store::StoreError| JsValue::from_str(&err.to_string());
    let store = IdbStore::open(crate::host::DATABASE).await.map_err(to_js)?;
    let (unit, _) =
        panelot_core::store::conformance::sample_conversation(&thread, u64::from(nodes));
    let result = panelot_core::store::Store::commit(&store, unit).await.map_err(to_js);
    store.close();
    result
}

fn now_ms() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .ok()
        .and_then(|p| {
            let now = js_sys::Reflect::get(&p, &"now".into()).ok()?;
            wasm_bindgen::JsCast::dyn_ref::<js_sys::Function>(&now)?.call0(&p).ok()
        })
        .and_then(|v| v.as_f64())
        .unwrap_or_default()
}

/// Times the stages of loading a thread's snapshot from the engine's database (profiling the
/// reopen benchmark): `[open, meta, links, tree, path records, projection, encoding]` in ms.
#[wasm_bindgen(js_name = profileReopen)]
pub async fn profile_reopen(thread: String) -> Result<Array, JsValue> {
    use panelot_core::store::Store;
    let to_js = |err: panelot_core::store::StoreError| JsValue::from_str(&err.to_string());
    let id =
        panelot_protocol::ThreadId::new(thread).map_err(|e| JsValue::from_str(&e.to_string()))?;
    let mut marks = vec![now_ms()];
    let store = IdbStore::open(crate::host::DATABASE).await.map_err(to_js)?;
    marks.push(now_ms());
    let meta = store.thread(&id).await.map_err(to_js)?.ok_or("no such thread")?;
    marks.push(now_ms());
    let links = store.tree_links(&id).await.map_err(to_js)?;
    marks.push(now_ms());
    let tree = panelot_core::tree::ThreadTree::from_links(links);
    let leaf = meta.leaf_id.clone().ok_or("no leaf")?;
    let path = tree.path_to(&leaf).map_err(|e| JsValue::from_str(&e.to_string()))?;
    marks.push(now_ms());
    let first = tree.seq(&path[0]).unwrap_or(0);
    let records = store.node_range(&id, first, u64::MAX >> 11).await.map_err(to_js)?;
    marks.push(now_ms());
    let items = panelot_core::snapshot::project(&tree, records);
    marks.push(now_ms());
    let text = serde_json::to_string(&items).map_err(|e| JsValue::from_str(&e.to_string()))?;
    marks.push(now_ms());
    store.close();
    let stages: Array = marks.windows(2).map(|w| JsValue::from(w[1] - w[0])).collect();
    stages.push(&JsValue::from(text.len() as f64));
    Ok(stages)
}

/// Writes a setting into the engine's own database (end-to-end tests configure a connection and
/// a default model this way until settings have their own commands).
#[wasm_bindgen(js_name = seedSetting)]
pub async fn seed_setting(key: String, json: String) -> Result<(), JsValue> {
    let to_js = |err: panelot_core::store::StoreError| JsValue::from_str(&err.to_string());
    let value: serde_json::Value =
        serde_json::from_str(&json).map_err(|err| JsValue::from_str(&err.to_string()))?;
    let store = IdbStore::open(crate::host::DATABASE).await.map_err(to_js)?;
    let mut unit = panelot_core::store::UnitOfWork::new();
    unit.push(panelot_core::store::WriteOp::PutSetting { key, value });
    let result = panelot_core::store::Store::commit(&store, unit).await.map_err(to_js);
    store.close();
    result
}
