//! Promise plumbing for IndexedDB: requests and transactions as futures, keys and records as JS
//! values, and opening the database with its schema.
//!
//! A request's `onsuccess`/`onerror` are set to the resolve/reject functions of a promise, so no
//! Rust closure is allocated (or leaked) per request. Awaiting resumes in a microtask, which keeps
//! the transaction alive between the requests of one unit of work.

use js_sys::Array;
use js_sys::Promise;
use js_sys::Reflect;
use panelot_core::store::StoreError;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;
use wasm_bindgen_futures::JsFuture;
use web_sys::IdbDatabase;
use web_sys::IdbFactory;
use web_sys::IdbIndexParameters;
use web_sys::IdbKeyRange;
use web_sys::IdbObjectStoreParameters;
use web_sys::IdbOpenDbRequest;
use web_sys::IdbRequest;
use web_sys::IdbTransaction;

/// Object stores and indexes. Version 1: threads, trees, nodes, receipts, settings; version 2:
/// runs; version 3: attachments.
pub(crate) const THREADS: &str = "threads";
/// One record per thread: its links, packed (see `idb_store::PackedLinks`).
pub(crate) const TREES: &str = "trees";
pub(crate) const NODES: &str = "nodes";
pub(crate) const NODES_BY_ID: &str = "byId";
pub(crate) const RECEIPTS: &str = "receipts";
pub(crate) const RECEIPTS_BY_EXPIRY: &str = "byExpiry";
pub(crate) const SETTINGS: &str = "settings";
/// Runs by id; `openSeq` is set only on open runs, so its index holds exactly the open runs in
/// admission order (IndexedDB leaves records without the key path out of an index).
pub(crate) const RUNS: &str = "runs";
pub(crate) const RUNS_OPEN: &str = "open";
pub(crate) const RUNS_BY_THREAD: &str = "byThread";
/// The files users attached, by id, with their thread's index (deleted with the thread).
pub(crate) const ATTACHMENTS: &str = "attachments";
pub(crate) const ATTACHMENTS_BY_THREAD: &str = "byThread";
pub(crate) const ALL_STORES: [&str; 7] =
    [THREADS, TREES, NODES, RECEIPTS, SETTINGS, RUNS, ATTACHMENTS];
const SCHEMA_VERSION: u32 = 3;
/// Largest seq a key range needs (JavaScript's largest safe integer).
pub(crate) const MAX_SEQ: f64 = 9_007_199_254_740_991.0;

pub(crate) fn js_err(context: &str, err: JsValue) -> StoreError {
    let detail = err
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| Reflect::get(&err, &"message".into()).ok().and_then(|m| m.as_string()))
        .unwrap_or_else(|| format!("{err:?}"));
    StoreError::Backend(format!("{context}: {detail}"))
}

/// Awaits a request and returns its result.
pub(crate) async fn done(request: IdbRequest) -> Result<JsValue, StoreError> {
    let promise = Promise::new(&mut |resolve, reject| {
        request.set_onsuccess(Some(&resolve));
        request.set_onerror(Some(&reject));
    });
    JsFuture::from(promise).await.map_err(|_| request_error(&request))?;
    request.result().map_err(|err| js_err("reading a request's result", err))
}

fn request_error(request: &IdbRequest) -> StoreError {
    let name = request.error().ok().flatten().map(|e| format!("{}: {}", e.name(), e.message()));
    StoreError::Backend(name.unwrap_or_else(|| "request failed".to_owned()))
}

/// Awaits the end of a transaction: `Ok` once committed.
pub(crate) fn finished(tx: &IdbTransaction) -> JsFuture {
    JsFuture::from(Promise::new(&mut |resolve, reject| {
        tx.set_oncomplete(Some(&resolve));
        tx.set_onerror(Some(&reject));
        tx.set_onabort(Some(&reject));
    }))
}

/// `[threadId, seq]`, the key of links and nodes.
pub(crate) fn seq_key(thread: &str, seq: f64) -> JsValue {
    Array::of2(&thread.into(), &seq.into()).into()
}

/// Keys `[thread, from]..=[thread, to]`.
pub(crate) fn seq_range(thread: &str, from: f64, to: f64) -> Result<IdbKeyRange, StoreError> {
    IdbKeyRange::bound(&seq_key(thread, from), &seq_key(thread, to))
        .map_err(|e| js_err("key range", e))
}

/// A plain object from (name, value) pairs.
pub(crate) fn object(fields: &[(&str, JsValue)]) -> Result<JsValue, StoreError> {
    let obj = js_sys::Object::new();
    for (name, value) in fields {
        Reflect::set(&obj, &(*name).into(), value).map_err(|e| js_err("building a record", e))?;
    }
    Ok(obj.into())
}

/// A string field of a stored object.
pub(crate) fn text_field(value: &JsValue, name: &str) -> Result<String, StoreError> {
    Reflect::get(value, &name.into())
        .ok()
        .and_then(|v| v.as_string())
        .ok_or_else(|| StoreError::Corrupt(format!("stored record has no string `{name}`")))
}

/// The global `indexedDB`, in a page or a service worker (where there is no `window`).
pub(crate) fn factory() -> Result<IdbFactory, StoreError> {
    Reflect::get(&js_sys::global(), &"indexedDB".into())
        .ok()
        .and_then(|f| f.dyn_into::<IdbFactory>().ok())
        .ok_or_else(|| StoreError::Backend("IndexedDB is not available here".to_owned()))
}

/// Opens (creating or upgrading) the database `name`.
pub(crate) async fn open(name: &str) -> Result<IdbDatabase, StoreError> {
    let request: IdbOpenDbRequest = factory()?
        .open_with_u32(name, SCHEMA_VERSION)
        .map_err(|e| js_err("opening IndexedDB", e))?;
    let upgrade_target = request.clone();
    // Runs at most once per open; `once_into_js` frees it after the call.
    let on_upgrade = Closure::once_into_js(move |event: web_sys::IdbVersionChangeEvent| {
        if let Ok(db) = upgrade_target.result().and_then(|r| r.dyn_into::<IdbDatabase>()) {
            let _ = upgrade_schema(&db, event.old_version() as u32);
        }
    });
    request.set_onupgradeneeded(Some(on_upgrade.unchecked_ref()));
    let db = done(request.into()).await?;
    db.dyn_into::<IdbDatabase>().map_err(|e| js_err("opening IndexedDB", e))
}

fn keyed(path: JsValue) -> IdbObjectStoreParameters {
    let params = IdbObjectStoreParameters::new();
    params.set_key_path(&path);
    params
}

/// Each version's step, applied from the database's version up (append only).
fn upgrade_schema(db: &IdbDatabase, old_version: u32) -> Result<(), JsValue> {
    if old_version < 1 {
        create_version_1(db)?;
    }
    if old_version < 2 {
        let runs = db.create_object_store_with_optional_parameters(RUNS, &keyed("id".into()))?;
        runs.create_index_with_str(RUNS_OPEN, "openSeq")?;
        runs.create_index_with_str(RUNS_BY_THREAD, "threadId")?;
    }
    if old_version < 3 {
        let attachments =
            db.create_object_store_with_optional_parameters(ATTACHMENTS, &keyed("id".into()))?;
        attachments.create_index_with_str(ATTACHMENTS_BY_THREAD, "threadId")?;
    }
    Ok(())
}

fn create_version_1(db: &IdbDatabase) -> Result<(), JsValue> {
    let by_thread_seq: JsValue = Array::of2(&"threadId".into(), &"seq".into()).into();
    db.create_object_store_with_optional_parameters(THREADS, &keyed("id".into()))?;
    db.create_object_store_with_optional_parameters(TREES, &keyed("threadId".into()))?;
    let nodes = db.create_object_store_with_optional_parameters(NODES, &keyed(by_thread_seq))?;
    let unique = IdbIndexParameters::new();
    unique.set_unique(true);
    nodes.create_index_with_str_and_optional_parameters(NODES_BY_ID, "id", &unique)?;
    let receipt_key: JsValue = Array::of2(&"clientId".into(), &"submissionId".into()).into();
    let receipts =
        db.create_object_store_with_optional_parameters(RECEIPTS, &keyed(receipt_key))?;
    receipts.create_index_with_str(RECEIPTS_BY_EXPIRY, "expiresAtMs")?;
    db.create_object_store_with_optional_parameters(SETTINGS, &keyed("key".into()))?;
    Ok(())
}

/// Deletes the database `name` (test isolation).
pub(crate) async fn delete(name: &str) -> Result<(), StoreError> {
    let request = factory()?.delete_database(name).map_err(|e| js_err("deleting IndexedDB", e))?;
    done(request.into()).await.map(|_| ())
}
