//! The `chrome.*` calls of the UI that are not the engine port: host permissions asked inside a
//! user gesture, writes to `chrome.storage` (`early.js` reads what the page needs before the wasm
//! runs), and the JSON and logging helpers the host shares.

use js_sys::JSON;
use js_sys::Object;
use js_sys::Promise;
use js_sys::Reflect;
use leptos::task::spawn_local;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "session"], js_name = set, catch)]
    pub(super) fn session_set(items: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = set, catch)]
    pub(super) fn local_set(items: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "permissions"], js_name = request, catch)]
    fn permissions_request(permissions: &JsValue) -> Result<Promise, JsValue>;
}

/// Asks for host access to `origin` (`chrome.permissions.request({origins})`) inside the current
/// user gesture (an approval's accept, a connection's save), then runs `then` whatever the
/// answer. A refusal is not fatal: the engine re-checks access when a tool runs and reports what
/// is missing itself. Every other permission the extension uses is granted at install.
pub(crate) fn request_origin_then(origin: &str, then: impl FnOnce() + 'static) {
    request_origins_then(&[origin.to_owned()], then);
}

/// [`request_origin_then`] for several origins in one request: Chrome shows one question for
/// them all (a question per origin, asked one after another, would find the gesture spent).
pub(crate) fn request_origins_then(origins: &[String], then: impl FnOnce() + 'static) {
    let patterns: Vec<String> = origins.iter().map(|origin| format!("{origin}/*")).collect();
    let request = serde_json::json!({"origins": patterns});
    match json_value(&request).and_then(|r| permissions_request(&r)) {
        Ok(promise) => spawn_local(async move {
            if let Err(err) = JsFuture::from(promise).await {
                log_error(&format!("{request} was not granted: {err:?}"));
            }
            then();
        }),
        Err(err) => {
            log_error(&format!("cannot ask for {request}: {err:?}"));
            then();
        }
    }
}

/// Asks the user to let the engine reach `origin` (the model server of a connection being
/// saved): without host access the service worker's `fetch` is held to CORS, which most model
/// APIs refuse. Must run inside the click that saves.
pub(crate) fn request_host_access(origin: &str) {
    request_origin_then(origin, || {});
}

pub(super) fn json_value(value: &serde_json::Value) -> Result<JsValue, JsValue> {
    JSON::parse(&value.to_string())
}

pub(super) fn to_json(value: &JsValue) -> serde_json::Value {
    JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default()
}

pub(super) fn storage_set(key: &str, value: &str, set: fn(&JsValue) -> Result<Promise, JsValue>) {
    let items = Object::new();
    if Reflect::set(&items, &JsValue::from_str(key), &JsValue::from_str(value)).is_err() {
        return;
    }
    if let Ok(promise) = set(&items) {
        spawn_local(async move {
            if let Err(err) = JsFuture::from(promise).await {
                log_error(&format!("cannot write chrome.storage: {err:?}"));
            }
        });
    }
}

pub(super) fn random_uuid() -> String {
    web_sys::window()
        .and_then(|w| w.crypto().ok())
        .map(|c| c.random_uuid())
        .unwrap_or_else(|| format!("ui-{}", js_sys::Date::now() as u64))
}

/// Logs to the console; the UI shows user-facing problems itself.
pub(crate) fn log_error(message: &str) {
    web_sys::console::error_1(&JsValue::from_str(&format!("panelot: {message}")));
}
