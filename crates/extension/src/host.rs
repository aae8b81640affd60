//! The engine in the service worker: port events, model stream events, tool outcomes and timer
//! ticks are queued and handled one at a time by a single drain loop, each to completion, so a
//! command's effects come before anything sent after it, and the engine is only ever touched by
//! that loop. The effects the engine asks for (model calls, tools) run as their own tasks and
//! feed their results back through the same queue, so a long stream never blocks a port.

use std::cell::Cell;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::collections::VecDeque;
use std::rc::Rc;

use js_sys::Function;
use js_sys::JSON;
use panelot_core::effects::AbortHandle;
use panelot_core::effects::AbortSignal;
use panelot_core::engine::Effect;
use panelot_core::engine::EffectId;
use panelot_core::engine::Engine;
use panelot_core::engine::OpQueue;
use panelot_core::engine::Outbox;
use panelot_core::engine::PortId;
use panelot_core::engine::SETTING_CONNECTIONS;
use panelot_core::engine::Ticket;
use panelot_core::engine::ToolOutcome;
use panelot_core::model::ModelBackend;
use panelot_core::model::ModelEvent;
use panelot_core::model::ModelResponse;
use panelot_core::model::ProviderError;
use panelot_core::store::CachedStore;
use panelot_core::store::Store;
use panelot_core::store::StoreError;
use panelot_protocol::engine::ConnectionCheck;
use panelot_providers::ClientConfig;
use panelot_providers::Connection;
use panelot_providers::ProviderClient;
use panelot_providers::Vault;
use panelot_providers::VaultKey;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::browser_effects::BrowserClock;
use crate::browser_effects::RandomIds;
use crate::fetch_http::BrowserTimer;
use crate::fetch_http::FetchHttp;
use crate::fetch_http::sleep_ms;
use crate::idb_store::IdbStore;

/// The IndexedDB database of the engine.
pub(crate) const DATABASE: &str = "panelot";

#[derive(Debug)]
enum HostEvent {
    Connect(PortId),
    Message(PortId, String, Ticket),
    Disconnect(PortId),
    ModelEvent(EffectId, ModelEvent),
    ModelDone(EffectId, Result<ModelResponse, ProviderError>),
    ToolDone(EffectId, ToolOutcome),
    VerifyDone(EffectId, ConnectionCheck),
    Tick,
}

type Client = ProviderClient<FetchHttp, BrowserTimer>;

struct Inner {
    extension_origin: String,
    post: Function,
    close: Function,
    /// Taken by the drain loop while it runs; nobody else touches the engine.
    engine: RefCell<Option<Engine<CachedStore<IdbStore>>>>,
    queue: RefCell<VecDeque<HostEvent>>,
    draining: Cell<bool>,
    /// A second connection to the database, for the model calls' connection settings.
    settings: IdbStore,
    client: Rc<Client>,
    /// Effects that can still be aborted.
    aborts: RefCell<BTreeMap<EffectId, AbortHandle>>,
    /// The time a tick is already armed for.
    tick_at: Cell<Option<u64>>,
    /// Commands waiting per thread (at most 32; more are refused as `overloaded`).
    op_queue: RefCell<OpQueue>,
}

/// The engine's end of every UI port.
#[wasm_bindgen]
pub struct EngineHost {
    inner: Rc<Inner>,
}

impl std::fmt::Debug for EngineHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineHost").field("origin", &self.inner.extension_origin).finish()
    }
}

fn js_error(err: StoreError) -> JsValue {
    JsValue::from_str(&format!("panelot engine failed to start: {err}"))
}

#[wasm_bindgen]
impl EngineHost {
    /// Opens the store and returns the host; `epoch` is this worker's stream epoch (taken by
    /// the worker script from `chrome.storage.session`). `extension_origin` is
    /// `chrome-extension://<id>/`; `post(portId, message)` and `close(portId)` act on ports.
    ///
    /// `vault_key` (32 bytes, kept in `chrome.storage.local`, apart from the database) opens the
    /// connections' sealed keys. Recovery of the stored runs starts at once.
    pub async fn start(
        extension_origin: String,
        post: Function,
        close: Function,
        vault_key: Vec<u8>,
        epoch: u64,
    ) -> Result<EngineHost, JsValue> {
        let key: [u8; 32] = vault_key
            .try_into()
            .map_err(|_| JsValue::from_str("panelot engine: the vault key must be 32 bytes"))?;
        let store = IdbStore::open(DATABASE).await.map_err(js_error)?;
        let settings = IdbStore::open(DATABASE).await.map_err(js_error)?;
        // The engine is the only writer of threads, so its reads can be cached.
        let store = CachedStore::new(store);
        let mut engine = Engine::new(store, Rc::new(BrowserClock), Rc::new(RandomIds), epoch)
            .with_tools(crate::gateway::tool_registry())
            .with_vault(Rc::new(Vault::new(VaultKey::from_bytes(key))));
        let recovered = engine.start().await.map_err(js_error)?;
        let config = ClientConfig {
            jitter_seed: js_sys::Math::random().to_bits(),
            ..ClientConfig::default()
        };
        let client =
            ProviderClient::new(FetchHttp, BrowserTimer, VaultKey::from_bytes(key), config);
        let inner = Rc::new(Inner {
            extension_origin,
            post,
            close,
            engine: RefCell::new(Some(engine)),
            queue: RefCell::new(VecDeque::new()),
            draining: Cell::new(false),
            settings,
            client: Rc::new(client),
            aborts: RefCell::new(BTreeMap::new()),
            tick_at: Cell::new(None),
            op_queue: RefCell::new(OpQueue::new()),
        });
        deliver(&inner, recovered);
        Ok(EngineHost { inner })
    }

    /// A port connected. Only the extension's own pages may talk to the engine: a port from a
    /// content script in a web page is closed at once.
    #[wasm_bindgen(js_name = onConnect)]
    pub fn on_connect(&self, port_id: u32, sender_url: &str) {
        if !sender_url.starts_with(&self.inner.extension_origin) {
            let _ = self.inner.close.call1(&JsValue::NULL, &JsValue::from(port_id));
            return;
        }
        self.enqueue(HostEvent::Connect(port_id));
    }

    /// A message arrived on a port.
    #[wasm_bindgen(js_name = onMessage)]
    pub fn on_message(&self, port_id: u32, message: &JsValue) {
        // Clients send JSON text; a structured-cloned object is accepted too. Text is the
        // budgeted boundary into Rust.
        let text = message.as_string().unwrap_or_else(|| {
            JSON::stringify(message).ok().and_then(|s| s.as_string()).unwrap_or_default()
        });
        let admitted = self.inner.op_queue.borrow_mut().admit(&text);
        match admitted {
            Ok(ticket) => self.enqueue(HostEvent::Message(port_id, text, ticket)),
            Err(refused) => {
                let outbox = Outbox { sends: vec![(port_id, *refused)], ..Outbox::default() };
                deliver(&self.inner, outbox);
            }
        }
    }

    /// A port went away.
    #[wasm_bindgen(js_name = onDisconnect)]
    pub fn on_disconnect(&self, port_id: u32) {
        self.enqueue(HostEvent::Disconnect(port_id));
    }
}

impl EngineHost {
    fn enqueue(&self, event: HostEvent) {
        enqueue(&self.inner, event);
    }
}

fn enqueue(inner: &Rc<Inner>, event: HostEvent) {
    inner.queue.borrow_mut().push_back(event);
    if inner.draining.replace(true) {
        return;
    }
    wasm_bindgen_futures::spawn_local(drain(Rc::clone(inner)));
}

async fn drain(inner: Rc<Inner>) {
    let inner = &inner;
    let Some(mut engine) = inner.engine.borrow_mut().take() else {
        inner.draining.set(false);
        return;
    };
    loop {
        let next = inner.queue.borrow_mut().pop_front();
        let Some(event) = next else { break };
        let outbox = match event {
            HostEvent::Connect(port) => {
                engine.connect(port);
                Outbox::default()
            }
            HostEvent::Message(port, text, ticket) => {
                let outbox = engine.on_text(port, &text).await;
                inner.op_queue.borrow_mut().done(ticket);
                outbox
            }
            HostEvent::Disconnect(port) => {
                engine.disconnect(port);
                Outbox::default()
            }
            HostEvent::ModelEvent(id, event) => engine.on_model_event(id, event).await,
            HostEvent::ModelDone(id, result) => engine.on_model_done(id, result).await,
            HostEvent::ToolDone(id, outcome) => engine.on_tool_done(id, outcome).await,
            HostEvent::VerifyDone(id, report) => engine.on_verify_done(id, report),
            HostEvent::Tick => {
                inner.tick_at.set(None);
                engine.on_tick().await
            }
        };
        deliver(inner, outbox);
    }
    *inner.engine.borrow_mut() = Some(engine);
    inner.draining.set(false);
}

fn deliver(inner: &Rc<Inner>, outbox: Outbox) {
    // Frames go out as JSON text: one string copy across the port, where an object would be
    // parsed here and structured-cloned field by field (a 1,000-node snapshot is ~500 KB).
    for (port, frame) in outbox.sends {
        let Ok(text) = frame.to_json() else { continue };
        let _ = inner.post.call2(&JsValue::NULL, &JsValue::from(port), &JsValue::from_str(&text));
    }
    for port in outbox.closes {
        let _ = inner.close.call1(&JsValue::NULL, &JsValue::from(port));
    }
    for effect in outbox.effects {
        start_effect(inner, effect);
    }
    if let Some(at) = outbox.wake_at_ms {
        arm_tick(inner, at);
    }
}

/// Calls the engine's `on_tick` at `at` (one timer, moved earlier when needed).
fn arm_tick(inner: &Rc<Inner>, at: u64) {
    if inner.tick_at.get().is_some_and(|armed| armed <= at) {
        return;
    }
    inner.tick_at.set(Some(at));
    let delay = at.saturating_sub(js_sys::Date::now() as u64);
    let inner = Rc::clone(inner);
    wasm_bindgen_futures::spawn_local(async move {
        sleep_ms(delay).await;
        if inner.tick_at.get() == Some(at) {
            enqueue(&inner, HostEvent::Tick);
        }
    });
}

fn start_effect(inner: &Rc<Inner>, effect: Effect) {
    match effect {
        Effect::CallModel { id, connection, request } => {
            let (handle, signal) = AbortSignal::new();
            inner.aborts.borrow_mut().insert(id, handle);
            let inner = Rc::clone(inner);
            wasm_bindgen_futures::spawn_local(async move {
                let result = call_model(&inner, id, &connection, &request, signal).await;
                inner.aborts.borrow_mut().remove(&id);
                enqueue(&inner, HostEvent::ModelDone(id, result));
            });
        }
        Effect::RunTool { id, call } => {
            let (handle, signal) = AbortSignal::new();
            inner.aborts.borrow_mut().insert(id, handle);
            let inner = Rc::clone(inner);
            wasm_bindgen_futures::spawn_local(async move {
                let outcome = crate::gateway::run_tool(&call, signal).await;
                inner.aborts.borrow_mut().remove(&id);
                enqueue(&inner, HostEvent::ToolDone(id, outcome));
            });
        }
        Effect::VerifyConnection { id, connection, model } => {
            let (handle, signal) = AbortSignal::new();
            inner.aborts.borrow_mut().insert(id, handle);
            let inner = Rc::clone(inner);
            wasm_bindgen_futures::spawn_local(async move {
                let report = verify(&inner, &connection, model.as_deref(), &signal).await;
                inner.aborts.borrow_mut().remove(&id);
                enqueue(&inner, HostEvent::VerifyDone(id, report));
            });
        }
        Effect::Abort { id } => {
            if let Some(handle) = inner.aborts.borrow_mut().remove(&id) {
                handle.abort();
            }
        }
    }
}

/// The stored connections, read at each use so a change in settings applies to the next call.
async fn stored_connections(inner: &Inner) -> Vec<Connection> {
    let stored = inner.settings.setting(SETTING_CONNECTIONS).await.ok().flatten();
    stored.and_then(|value| serde_json::from_value(value).ok()).unwrap_or_default()
}

async fn verify(
    inner: &Inner,
    connection: &str,
    model: Option<&str>,
    signal: &AbortSignal,
) -> ConnectionCheck {
    let stored = stored_connections(inner).await;
    match stored.into_iter().find(|c| c.id == connection) {
        Some(conn) => inner.client.verify(&conn, model, signal).await.to_check(),
        None => ConnectionCheck {
            reachable: false,
            key_valid: false,
            streaming: false,
            tool_use: false,
            models: None,
            model: None,
            failure: None,
            diagnosis: Some(format!("connection {connection} was deleted")),
        },
    }
}

async fn call_model(
    inner: &Rc<Inner>,
    id: EffectId,
    connection: &str,
    request: &panelot_core::model::ModelRequest,
    signal: AbortSignal,
) -> Result<ModelResponse, ProviderError> {
    inner.client.set_connections(stored_connections(inner).await);
    let events = Rc::clone(inner);
    let mut on_event = move |event: ModelEvent| enqueue(&events, HostEvent::ModelEvent(id, event));
    inner.client.stream(connection, request, &mut on_event, signal).await
}
