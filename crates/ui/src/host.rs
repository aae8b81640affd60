//! The thin wasm layer under [`EngineClient`]: the `chrome.runtime` Port, timers, and
//! `chrome.storage` for the client id and the outbox. It carries out the client's [`Effect`]s and
//! hands delivered events to the app's signals.
//!
//! The page has one thread, so the client and the port live in a thread-local; view closures
//! (which Leptos requires to be `Send`) reach them through the free functions here instead of
//! capturing them.

use std::cell::RefCell;
use std::time::Duration;

use js_sys::Function;
use js_sys::JSON;
use js_sys::Object;
use js_sys::Promise;
use js_sys::Reflect;
use leptos::prelude::set_interval;
use leptos::prelude::set_timeout;
use leptos::task::spawn_local;
use panelot_protocol::ClientId;
use panelot_protocol::Op;
use panelot_protocol::SubmissionId;
use panelot_protocol::ThreadId;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen_futures::JsFuture;

use crate::ClientError;
use crate::Effect;
use crate::EngineClient;
use crate::PING_INTERVAL_MS;
use crate::app::AppState;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = connect, catch)]
    fn runtime_connect(info: &JsValue) -> Result<Port, JsValue>;

    type Port;
    #[wasm_bindgen(method, js_name = postMessage, catch)]
    fn post_message(this: &Port, message: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(method, js_name = disconnect)]
    fn disconnect(this: &Port);
    #[wasm_bindgen(method, getter, js_name = onMessage)]
    fn on_message(this: &Port) -> PortEvent;
    #[wasm_bindgen(method, getter, js_name = onDisconnect)]
    fn on_disconnect(this: &Port) -> PortEvent;

    type PortEvent;
    #[wasm_bindgen(method, js_name = addListener)]
    fn add_listener(this: &PortEvent, listener: &Function);

    #[wasm_bindgen(js_namespace = ["chrome", "storage", "session"], js_name = get, catch)]
    fn session_get(key: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "session"], js_name = set, catch)]
    fn session_set(items: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = get, catch)]
    fn local_get(key: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = set, catch)]
    fn local_set(items: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "permissions"], js_name = request, catch)]
    fn permissions_request(permissions: &JsValue) -> Result<Promise, JsValue>;
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
}

/// Asks Chrome for `request` (`{origins}` or `{permissions}`) inside the current user gesture,
/// then runs `then` with whether it was granted. A refusal is not fatal: the engine re-checks
/// access when a tool runs and reports what is missing itself.
fn request_permissions_then(request: serde_json::Value, then: impl FnOnce(bool) + 'static) {
    match json_value(&request).and_then(|r| permissions_request(&r)) {
        Ok(promise) => spawn_local(async move {
            let granted = match JsFuture::from(promise).await {
                Ok(answer) => answer.as_bool().unwrap_or(false),
                Err(err) => {
                    log_error(&format!("{request} was not granted: {err:?}"));
                    false
                }
            };
            then(granted);
        }),
        Err(err) => {
            log_error(&format!("cannot ask for {request}: {err:?}"));
            then(false);
        }
    }
}

/// Asks for host access to `origin` inside the current user gesture (an approval's accept), then
/// runs `then` whatever the answer.
pub(crate) fn request_origin_then(origin: &str, then: impl FnOnce() + 'static) {
    let request = serde_json::json!({"origins": [format!("{origin}/*")]});
    request_permissions_then(request, move |_| then());
}

/// Asks for the optional `debugger` permission that the trusted-input (L2) tools need, inside
/// the current user gesture; `then` learns whether it was granted.
pub(crate) fn request_debugger_then(then: impl FnOnce(bool) + 'static) {
    request_permissions_then(serde_json::json!({"permissions": ["debugger"]}), then);
}

/// The active tab of the last focused window, as `{id, windowId, url, title}`.
pub(crate) async fn active_tab() -> Result<serde_json::Value, String> {
    let query = json_value(&serde_json::json!({"active": true, "lastFocusedWindow": true}))
        .map_err(|e| format!("{e:?}"))?;
    let promise = tabs_query(&query).map_err(|e| format!("{e:?}"))?;
    let tabs = JsFuture::from(promise).await.map_err(|e| format!("{e:?}"))?;
    let tabs = to_json(&tabs);
    tabs.get(0).cloned().ok_or_else(|| "no active tab".to_owned())
}

/// Runs the extension file `file` in the main frame of `tab_id` and returns its completion value.
/// Needs host access to the tab's origin.
pub(crate) async fn run_in_tab(tab_id: u64, file: &str) -> Result<serde_json::Value, String> {
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
            && let Some(id) = to_json(&window)["id"].as_u64().and_then(|id| u32::try_from(id).ok())
        {
            WINDOW_ID.set(Some(id));
        }
    });
}

fn json_value(value: &serde_json::Value) -> Result<JsValue, JsValue> {
    JSON::parse(&value.to_string())
}

fn to_json(value: &JsValue) -> serde_json::Value {
    JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default()
}

/// Asks the user to let the engine reach `origin` (the model server of a connection being
/// saved): without host access the service worker's `fetch` is held to CORS, which most model
/// APIs refuse. Must run inside the click that saves.
pub(crate) fn request_host_access(origin: &str) {
    request_origin_then(origin, || {});
}

/// `chrome.storage.local` key of the persistent client id (receipts live 7 days, across browser
/// restarts, so the id must outlive the session).
const CLIENT_ID_KEY: &str = "panelot.clientId";

/// The open port with its listeners; dropping it drops the listeners.
struct OpenPort {
    port: Port,
    _on_message: Closure<dyn FnMut(JsValue)>,
    _on_disconnect: Closure<dyn FnMut()>,
}

struct Host {
    client: EngineClient,
    port: Option<OpenPort>,
    /// Increases with every port, so late callbacks of an old port are ignored.
    generation: u64,
    /// `chrome.storage.session` key of this page's outbox: one per page, so that the side panel
    /// and a chat tab do not overwrite each other's.
    outbox_key: String,
    state: AppState,
}

thread_local! {
    static HOST: RefCell<Option<Host>> = const { RefCell::new(None) };
}

/// Loads the client id and the saved outbox, then connects and starts the heartbeat.
pub(crate) fn start(outbox_key: String, subscribe: Option<ThreadId>, state: AppState) {
    spawn_local(async move {
        let Some(client_id) = load_client_id().await else {
            log_error("cannot make a client id");
            return;
        };
        let prefix = random_uuid();
        let client = EngineClient::new(client_id.clone(), &prefix)
            .or_else(|_| EngineClient::new(client_id, "ui"));
        let Ok(mut client) = client else {
            log_error("cannot build the engine client");
            return;
        };
        if let Some(saved) =
            storage_get(session_get(&outbox_key), &outbox_key).await.and_then(|v| v.as_string())
        {
            client.restore_outbox(&saved);
        }
        if let Some(thread_id) = subscribe {
            client.subscribe(thread_id);
        }
        HOST.with_borrow_mut(|host| {
            *host = Some(Host { client, port: None, generation: 0, outbox_key, state });
        });
        connect();
        set_interval(
            || {
                let effects = with_client(EngineClient::heartbeat).unwrap_or_default();
                run(effects);
            },
            Duration::from_millis(u64::from(PING_INTERVAL_MS)),
        );
    });
}

/// Sends an Op built with a fresh submission id; see [`EngineClient::send`].
pub(crate) fn send(build: impl FnOnce(SubmissionId) -> Op) -> Result<SubmissionId, ClientError> {
    let result =
        with_client(|client| client.send(build)).unwrap_or(Err(ClientError::ReloadRequired));
    let (submission_id, effects) = result?;
    run(effects);
    Ok(submission_id)
}

/// Follows `thread_id`, now and after every reconnect.
pub(crate) fn subscribe(thread_id: ThreadId) {
    let effects = with_client(|client| client.subscribe(thread_id)).unwrap_or_default();
    run(effects);
}

fn with_client<R>(f: impl FnOnce(&mut EngineClient) -> R) -> Option<R> {
    HOST.with_borrow_mut(|host| host.as_mut().map(|host| f(&mut host.client)))
}

fn connect() {
    let generation = HOST.with_borrow_mut(|host| {
        host.as_mut().map(|host| {
            host.generation += 1;
            host.generation
        })
    });
    let Some(generation) = generation else { return };
    let port = match JSON::parse(r#"{"name":"panelot-ui"}"#).and_then(|info| runtime_connect(&info))
    {
        Ok(port) => port,
        Err(err) => {
            log_error(&format!("cannot connect to the engine: {err:?}"));
            let effects = with_client(EngineClient::closed).unwrap_or_default();
            run(effects);
            return;
        }
    };
    let on_message = Closure::<dyn FnMut(JsValue)>::new(move |message: JsValue| {
        if current_generation() != Some(generation) {
            return;
        }
        // The engine sends JSON text (an object from an older worker is read too).
        let text = message.as_string().unwrap_or_else(|| {
            JSON::stringify(&message).ok().and_then(|s| s.as_string()).unwrap_or_default()
        });
        let effects = with_client(|client| client.received(&text)).unwrap_or_default();
        run(effects);
    });
    let on_disconnect = Closure::<dyn FnMut()>::new(move || {
        if current_generation() != Some(generation) {
            return;
        }
        HOST.with_borrow_mut(|host| {
            if let Some(host) = host {
                host.port = None;
            }
        });
        let effects = with_client(EngineClient::closed).unwrap_or_default();
        run(effects);
    });
    port.on_message().add_listener(on_message.as_ref().unchecked_ref());
    port.on_disconnect().add_listener(on_disconnect.as_ref().unchecked_ref());
    let effects = HOST.with_borrow_mut(|host| {
        let Some(host) = host else { return Vec::new() };
        if let Some(old) = host.port.take() {
            old.port.disconnect();
        }
        host.port = Some(OpenPort { port, _on_message: on_message, _on_disconnect: on_disconnect });
        host.client.opened()
    });
    run(effects);
}

fn current_generation() -> Option<u64> {
    HOST.with_borrow(|host| host.as_ref().map(|h| h.generation))
}

/// Carries out the client's effects. The host is borrowed only briefly for each, so signal
/// updates (and anything they trigger) never run inside a borrow.
fn run(effects: Vec<Effect>) {
    for effect in effects {
        match effect {
            Effect::Send(text) => {
                let sent = HOST.with_borrow(|host| {
                    let port = host.as_ref().and_then(|h| h.port.as_ref())?;
                    Some(port.port.post_message(&JsValue::from_str(&text)))
                });
                if let Some(Err(err)) = sent {
                    // The port is gone; its disconnect listener reconnects and the outbox resends.
                    log_error(&format!("cannot post to the engine: {err:?}"));
                }
            }
            Effect::SaveOutbox(text) => {
                let key = HOST.with_borrow(|host| host.as_ref().map(|h| h.outbox_key.clone()));
                if let Some(key) = key {
                    storage_set(&key, &text, session_set);
                }
            }
            Effect::ReconnectAfter(ms) => {
                set_timeout(connect, Duration::from_millis(u64::from(ms)))
            }
            other => {
                let state = HOST.with_borrow(|host| host.as_ref().map(|h| h.state));
                if let Some(state) = state {
                    state.handle(other);
                }
            }
        }
    }
}

async fn load_client_id() -> Option<ClientId> {
    let stored =
        storage_get(local_get(CLIENT_ID_KEY), CLIENT_ID_KEY).await.and_then(|v| v.as_string());
    if let Some(id) = stored.and_then(|raw| ClientId::new(raw).ok()) {
        return Some(id);
    }
    let fresh = random_uuid();
    storage_set(CLIENT_ID_KEY, &fresh, local_set);
    // `randomUUID` always gives a valid id; should `crypto` be missing, a per-page id still
    // lets the session open (receipts then only dedupe within this page's life).
    ClientId::new(fresh).ok()
}

/// Reads one key; `None` when absent or when `chrome.storage` is unavailable.
async fn storage_get(promise: Result<Promise, JsValue>, key: &str) -> Option<JsValue> {
    let result = JsFuture::from(promise.ok()?).await.ok()?;
    Reflect::get(&result, &JsValue::from_str(key)).ok().filter(|v| !v.is_undefined())
}

fn storage_set(key: &str, value: &str, set: fn(&JsValue) -> Result<Promise, JsValue>) {
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

fn random_uuid() -> String {
    web_sys::window()
        .and_then(|w| w.crypto().ok())
        .map(|c| c.random_uuid())
        .unwrap_or_else(|| format!("ui-{}", js_sys::Date::now() as u64))
}

/// Logs to the console; the UI shows user-facing problems itself.
pub(crate) fn log_error(message: &str) {
    web_sys::console::error_1(&JsValue::from_str(&format!("panelot: {message}")));
}
