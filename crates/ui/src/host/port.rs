//! The port to the engine: the `chrome.runtime` Port under the [`EngineClient`], its timers
//! (heartbeat, reconnect backoff), and `chrome.storage` for the client id and the outbox (read by
//! `early.js` before the wasm runs, written here). It carries out the client's [`ClientEffect`]s
//! and hands those that concern the app to a callback.
//!
//! The page has one thread, so the client and the port live in a thread-local; view closures
//! (which Leptos requires to be `Send`) reach them through the free functions here instead of
//! capturing them.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use js_sys::Function;
use js_sys::JSON;
use js_sys::Reflect;
use leptos::prelude::set_interval;
use leptos::prelude::set_timeout;
use panelot_protocol::ClientId;
use panelot_protocol::Op;
use panelot_protocol::SubmissionId;
use panelot_protocol::ThreadId;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;

use super::chrome::local_set;
use super::chrome::log_error;
use super::chrome::random_uuid;
use super::chrome::session_set;
use super::chrome::storage_set;
use crate::state::client::CLIENT_ID_KEY;
use crate::state::client::ClientEffect;
use crate::state::client::ClientError;
use crate::state::client::EngineClient;
use crate::state::client::PING_INTERVAL_MS;

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
}

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
    /// Where the client's effects for the app go (events, status, answers).
    on_effect: Rc<dyn Fn(ClientEffect)>,
}

thread_local! {
    static HOST: RefCell<Option<Host>> = const { RefCell::new(None) };
}

/// What `early.js` read from `chrome.storage` for the port while the wasm loaded.
pub(crate) struct Stored {
    /// The persistent client id, if one is stored.
    client_id: Option<ClientId>,
    /// This page's saved outbox (JSON text).
    outbox: Option<String>,
}

impl Stored {
    /// Takes the client id and the outbox under `outbox_key` from `stored`, `[local items, session
    /// items]`; what is missing or not text counts as nothing stored.
    pub(crate) fn read(stored: &JsValue, outbox_key: &str) -> Stored {
        let text = |area: u32, key: &str| {
            let items = Reflect::get_u32(stored, area).ok()?;
            Reflect::get(&items, &JsValue::from_str(key)).ok()?.as_string()
        };
        Stored {
            client_id: text(0, CLIENT_ID_KEY).and_then(|raw| ClientId::new(raw).ok()),
            outbox: text(1, outbox_key),
        }
    }
}

/// Connects with the client id and the outbox `stored` (both read before the wasm ran, so the
/// `initialize` goes out at once) and starts the heartbeat. `on_effect` receives the effects that
/// concern the app: status changes, delivered events, answers to commands and malformed input;
/// the port carries out the rest itself.
pub(crate) fn start(
    outbox_key: String,
    subscribe: Option<ThreadId>,
    stored: Stored,
    on_effect: impl Fn(ClientEffect) + 'static,
) {
    let on_effect: Rc<dyn Fn(ClientEffect)> = Rc::new(on_effect);
    let Some(client_id) = stored.client_id.or_else(new_client_id) else {
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
    if let Some(saved) = stored.outbox {
        client.restore_outbox(&saved);
    }
    if let Some(thread_id) = subscribe {
        client.subscribe(thread_id);
    }
    HOST.with_borrow_mut(|host| {
        *host = Some(Host { client, port: None, generation: 0, outbox_key, on_effect });
    });
    connect();
    set_interval(
        || {
            let effects = with_client(EngineClient::heartbeat).unwrap_or_default();
            run(effects);
        },
        Duration::from_millis(u64::from(PING_INTERVAL_MS)),
    );
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
fn run(effects: Vec<ClientEffect>) {
    for effect in effects {
        match effect {
            ClientEffect::Send(text) => {
                let sent = HOST.with_borrow(|host| {
                    let port = host.as_ref().and_then(|h| h.port.as_ref())?;
                    Some(port.port.post_message(&JsValue::from_str(&text)))
                });
                if let Some(Err(err)) = sent {
                    // The port is gone; its disconnect listener reconnects and the outbox resends.
                    log_error(&format!("cannot post to the engine: {err:?}"));
                }
            }
            ClientEffect::SaveOutbox(text) => {
                let key = HOST.with_borrow(|host| host.as_ref().map(|h| h.outbox_key.clone()));
                if let Some(key) = key {
                    storage_set(&key, &text, session_set);
                }
            }
            ClientEffect::ReconnectAfter(ms) => {
                set_timeout(connect, Duration::from_millis(u64::from(ms)))
            }
            ClientEffect::Status(_)
            | ClientEffect::Deliver(_)
            | ClientEffect::Acked { .. }
            | ClientEffect::Rejected { .. }
            | ClientEffect::Malformed(_) => {
                // Cloned out of the borrow: the app's handler may send, which borrows again.
                let on_effect = HOST.with_borrow(|host| host.as_ref().map(|h| h.on_effect.clone()));
                if let Some(on_effect) = on_effect {
                    on_effect(effect);
                }
            }
        }
    }
}

/// A new persistent client id, stored for the next pages.
fn new_client_id() -> Option<ClientId> {
    let fresh = random_uuid();
    storage_set(CLIENT_ID_KEY, &fresh, local_set);
    // `randomUUID` always gives a valid id; should `crypto` be missing, a per-page id still
    // lets the session open (receipts then only dedupe within this page's life).
    ClientId::new(fresh).ok()
}
