//! The engine in the service worker: port events are queued and handled one at a time by a
//! single drain loop, each to completion, so a command's effects come before anything sent after
//! it, and the engine is only ever touched by that loop.

use std::cell::Cell;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use js_sys::Function;
use js_sys::JSON;
use panelot_core::engine::Engine;
use panelot_core::engine::Outbox;
use panelot_core::engine::PortId;
use panelot_core::store::Store;
use panelot_core::store::StoreError;
use panelot_core::store::UnitOfWork;
use panelot_core::store::WriteOp;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::browser_effects::BrowserClock;
use crate::browser_effects::RandomIds;
use crate::idb_store::IdbStore;

/// The IndexedDB database of the engine.
pub(crate) const DATABASE: &str = "panelot";
/// Setting holding the last stream epoch; each worker start takes the next one.
const EPOCH_SETTING: &str = "streamEpoch";

#[derive(Debug)]
enum PortEvent {
    Connect(PortId),
    Message(PortId, String),
    Disconnect(PortId),
}

struct Inner {
    extension_origin: String,
    post: Function,
    close: Function,
    /// Taken by the drain loop while it runs; nobody else touches the engine.
    engine: RefCell<Option<Engine<IdbStore>>>,
    queue: RefCell<VecDeque<PortEvent>>,
    draining: Cell<bool>,
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

/// Takes the next stream epoch, durably, so events of this worker's life are never confused with
/// those of an earlier one.
async fn next_epoch(store: &IdbStore) -> Result<u64, StoreError> {
    let last = store.setting(EPOCH_SETTING).await?.and_then(|v| v.as_u64()).unwrap_or(0);
    let epoch = last + 1;
    let mut unit = UnitOfWork::new();
    unit.push(WriteOp::PutSetting { key: EPOCH_SETTING.to_owned(), value: epoch.into() });
    store.commit(unit).await?;
    Ok(epoch)
}

#[wasm_bindgen]
impl EngineHost {
    /// Opens the store, takes a new stream epoch and returns the host. `extension_origin` is
    /// `chrome-extension://<id>/`; `post(portId, message)` and `close(portId)` act on ports.
    pub async fn start(
        extension_origin: String,
        post: Function,
        close: Function,
    ) -> Result<EngineHost, JsValue> {
        let store = IdbStore::open(DATABASE).await.map_err(js_error)?;
        let epoch = next_epoch(&store).await.map_err(js_error)?;
        let engine = Engine::new(store, Rc::new(BrowserClock), Rc::new(RandomIds), epoch);
        let inner = Inner {
            extension_origin,
            post,
            close,
            engine: RefCell::new(Some(engine)),
            queue: RefCell::new(VecDeque::new()),
            draining: Cell::new(false),
        };
        Ok(EngineHost { inner: Rc::new(inner) })
    }

    /// A port connected. Only the extension's own pages may talk to the engine: a port from a
    /// content script in a web page is closed at once.
    #[wasm_bindgen(js_name = onConnect)]
    pub fn on_connect(&self, port_id: u32, sender_url: &str) {
        if !sender_url.starts_with(&self.inner.extension_origin) {
            let _ = self.inner.close.call1(&JsValue::NULL, &JsValue::from(port_id));
            return;
        }
        self.enqueue(PortEvent::Connect(port_id));
    }

    /// A message arrived on a port.
    #[wasm_bindgen(js_name = onMessage)]
    pub fn on_message(&self, port_id: u32, message: &JsValue) {
        // Ports carry structured-cloned JSON; text is the budgeted boundary into Rust.
        let text = JSON::stringify(message).ok().and_then(|s| s.as_string()).unwrap_or_default();
        self.enqueue(PortEvent::Message(port_id, text));
    }

    /// A port went away.
    #[wasm_bindgen(js_name = onDisconnect)]
    pub fn on_disconnect(&self, port_id: u32) {
        self.enqueue(PortEvent::Disconnect(port_id));
    }
}

impl EngineHost {
    fn enqueue(&self, event: PortEvent) {
        self.inner.queue.borrow_mut().push_back(event);
        if self.inner.draining.replace(true) {
            return;
        }
        let inner = Rc::clone(&self.inner);
        wasm_bindgen_futures::spawn_local(drain(inner));
    }
}

async fn drain(inner: Rc<Inner>) {
    let Some(mut engine) = inner.engine.borrow_mut().take() else {
        inner.draining.set(false);
        return;
    };
    loop {
        let next = inner.queue.borrow_mut().pop_front();
        let Some(event) = next else { break };
        let outbox = match event {
            PortEvent::Connect(port) => {
                engine.connect(port);
                Outbox::default()
            }
            PortEvent::Message(port, text) => engine.on_text(port, &text).await,
            PortEvent::Disconnect(port) => {
                engine.disconnect(port);
                Outbox::default()
            }
        };
        deliver(&inner, outbox);
    }
    *inner.engine.borrow_mut() = Some(engine);
    inner.draining.set(false);
}

fn deliver(inner: &Inner, outbox: Outbox) {
    for (port, frame) in outbox.sends {
        let Ok(text) = frame.to_json() else { continue };
        if let Ok(message) = JSON::parse(&text) {
            let _ = inner.post.call2(&JsValue::NULL, &JsValue::from(port), &message);
        }
    }
    for port in outbox.closes {
        let _ = inner.close.call1(&JsValue::NULL, &JsValue::from(port));
    }
}
