//! Tabs and windows: the tabs and windows a message's browser context is chosen from, reading a
//! tab for an attachment, opening the side panel from the chat page, opening the options page,
//! and opening a page the agent asked for beside the chat.

use js_sys::Promise;
use leptos::task::spawn_local;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen_futures::JsFuture;

use super::chrome::json_value;
use super::chrome::log_error;
use super::chrome::to_json;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = query, catch)]
    fn tabs_query(query: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "scripting"], js_name = executeScript, catch)]
    fn scripting_execute(injection: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "sidePanel"], js_name = open, catch)]
    fn side_panel_open(options: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "sidePanel"], js_name = setOptions, catch)]
    fn side_panel_set_options(options: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "windows"], js_name = getCurrent, catch)]
    fn windows_get_current() -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "windows"], js_name = getLastFocused, catch)]
    fn windows_get_last_focused(query: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = create, catch)]
    fn tabs_create(properties: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = openOptionsPage, catch)]
    fn runtime_open_options_page() -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = getCurrent, catch)]
    fn tabs_get_current() -> Result<Promise, JsValue>;
}

/// Opens `url` for the user in a new tab beside this page: right after the chat tab, or in the
/// side panel's window (a panel is no tab). Only `http(s)` URLs: the engine sends no other, and a
/// page must never be made to open an extension or `javascript:` URL.
pub(crate) fn open_beside(url: String) {
    let lower = url.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        log_error(&format!("refused to open {url}: not an http(s) URL"));
        return;
    }
    create_beside(url);
}

/// Opens the chat page at `path` (`chat.html?thread=…&artifact=…`) in a new tab beside this
/// page, as [`open_beside`] places it: how the side panel shows an artifact in the chat page's
/// viewer. Only the chat page.
pub(crate) fn open_chat_beside(path: String) {
    if !path.starts_with("chat.html?") {
        log_error(&format!("refused to open {path}: not the chat page"));
        return;
    }
    create_beside(path);
}

/// Opens `url` (a web page, or a page of the extension by its path) in a new tab beside this
/// page.
fn create_beside(url: String) {
    spawn_local(async move {
        let mut properties = serde_json::json!({"url": url, "active": true});
        let tab = match tabs_get_current() {
            Ok(promise) => JsFuture::from(promise).await.map(|tab| to_json(&tab)).ok(),
            Err(_) => None,
        };
        match tab.filter(|tab| tab["id"].is_u64()) {
            Some(tab) => {
                properties["windowId"] = tab["windowId"].clone();
                properties["openerTabId"] = tab["id"].clone();
                if let Some(index) = tab["index"].as_u64() {
                    properties["index"] = (index + 1).into();
                }
            }
            None => {
                if let Ok(window) = current_window_id().await {
                    properties["windowId"] = window.into();
                }
            }
        }
        let created = json_value(&properties).and_then(|properties| tabs_create(&properties));
        let done = match created {
            Ok(promise) => JsFuture::from(promise).await.map(|_| ()),
            Err(err) => Err(err),
        };
        if let Err(err) = done {
            log_error(&format!("cannot open a page beside the chat: {err:?}"));
        }
    });
}

/// Opens the options page: in a new tab on `section` (`options.html#connect`) when one is named,
/// else Chrome's own way (which brings an open options tab to the front instead of adding one).
/// Works from the side panel too, where `window.open` would need the panel's window.
pub(crate) fn open_settings(section: Option<&str>) {
    let opened = match section {
        Some(section) => json_value(&serde_json::json!({"url": format!("options.html#{section}")}))
            .and_then(|properties| tabs_create(&properties)),
        None => runtime_open_options_page(),
    };
    match opened {
        Ok(promise) => spawn_local(async move {
            if let Err(err) = JsFuture::from(promise).await {
                log_error(&format!("cannot open the options page: {err:?}"));
            }
        }),
        Err(err) => log_error(&format!("cannot open the options page: {err:?}")),
    }
}

/// The tabs `query` (a `chrome.tabs.query` filter) finds, as Chrome reports them.
pub(crate) async fn query_tabs(
    query: &serde_json::Value,
) -> Result<Vec<serde_json::Value>, String> {
    let query = json_value(query).map_err(|e| format!("{e:?}"))?;
    let promise = tabs_query(&query).map_err(|e| format!("{e:?}"))?;
    let tabs = JsFuture::from(promise).await.map_err(|e| format!("{e:?}"))?;
    match to_json(&tabs) {
        serde_json::Value::Array(tabs) => Ok(tabs),
        other => Err(format!("chrome.tabs.query answered {other}")),
    }
}

/// The id of the window this page is in; a side panel is in the window it is the panel of.
pub(crate) async fn current_window_id() -> Result<u32, String> {
    let promise = windows_get_current().map_err(|e| format!("{e:?}"))?;
    let window = JsFuture::from(promise).await.map_err(|e| format!("{e:?}"))?;
    window_id(&to_json(&window)).ok_or_else(|| "the current window has no id".to_owned())
}

/// The id of the last focused window of type `normal` (not a popup, not DevTools); `None` when
/// there is none.
pub(crate) async fn last_focused_normal_window() -> Option<u32> {
    let query = json_value(&serde_json::json!({"windowTypes": ["normal"]})).ok()?;
    let promise = windows_get_last_focused(&query).ok()?;
    // Chrome rejects the call when no window matches.
    let window = JsFuture::from(promise).await.ok()?;
    window_id(&to_json(&window))
}

fn window_id(window: &serde_json::Value) -> Option<u32> {
    window["id"].as_u64().and_then(|id| u32::try_from(id).ok())
}

/// Runs the extension file `file` in the main frame of `tab_id` and returns its completion value.
/// Needs host access to the tab's origin.
pub(crate) async fn run_in_tab(tab_id: u32, file: &str) -> Result<serde_json::Value, String> {
    let injection = json_value(&serde_json::json!({"target": {"tabId": tab_id}, "files": [file]}))
        .map_err(|e| format!("{e:?}"))?;
    let promise = scripting_execute(&injection).map_err(|e| format!("{e:?}"))?;
    let results = JsFuture::from(promise).await.map_err(|e| format!("{e:?}"))?;
    Ok(to_json(&results).get(0).and_then(|r| r.get("result")).cloned().unwrap_or_default())
}

/// Opens the side panel of this page's window on `path`, then runs `then` (the chat page closes
/// itself). `path` stays the panel's default afterwards (resetting it could navigate the panel
/// just opened), so the toolbar icon reopens the same thread. Must run inside a user gesture: `sidePanel.open` is called before any await, with the
/// window id learned when the page started ([`remember_window`]).
pub(crate) fn open_side_panel(path: String, then: impl FnOnce() + 'static) {
    let Some(window_id) = WINDOW_ID.get() else {
        log_error("cannot open the side panel: the window is not known yet");
        return;
    };
    if let Ok(options) = json_value(&serde_json::json!({"path": path})) {
        let _ = side_panel_set_options(&options);
    }
    let opened = json_value(&serde_json::json!({"windowId": window_id}))
        .and_then(|options| side_panel_open(&options));
    match opened {
        Ok(promise) => spawn_local(async move {
            match JsFuture::from(promise).await {
                Ok(_) => then(),
                Err(err) => log_error(&format!("cannot open the side panel: {err:?}")),
            }
        }),
        Err(err) => log_error(&format!("cannot open the side panel: {err:?}")),
    }
}

thread_local! {
    /// The window this page is in, for `sidePanel.open` (which must not wait for it).
    static WINDOW_ID: std::cell::Cell<Option<u32>> = const { std::cell::Cell::new(None) };
}

/// Learns the page's window id, for [`open_side_panel`].
pub(crate) fn remember_window() {
    let Ok(promise) = windows_get_current() else { return };
    spawn_local(async move {
        if let Ok(window) = JsFuture::from(promise).await
            && let Some(id) = window_id(&to_json(&window))
        {
            WINDOW_ID.set(Some(id));
        }
    });
}
