//! The engine in the service worker: the core's [`Driver`] around the engine, with the browser's
//! I/O. Port events, effect results and timer ticks become driver inputs; the effects the engine
//! asks for (model calls, target resolutions, tool calls, connection checks, highlights) run as
//! their own tasks and push their results back, so a long stream never blocks a port. Everything
//! else (the queues, aborts, ticks) is the driver's, the same one the simulation runs.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Function;
use js_sys::JSON;
use panelot_core::driver::Driver;
use panelot_core::driver::HostIo;
use panelot_core::driver::Input;
use panelot_core::engine::ConnectionVault;
use panelot_core::engine::Effect;
use panelot_core::engine::EffectId;
use panelot_core::engine::Engine;
use panelot_core::engine::PageSignalKind;
use panelot_core::engine::PortId;
use panelot_core::env::AbortSignal;
use panelot_core::model::ModelEvent;
use panelot_core::model::ModelRequest;
use panelot_core::model::ModelResponse;
use panelot_core::model::ProviderError;
use panelot_core::store::CachedStore;
use panelot_core::store::StoreError;
use panelot_core::tools::catalog::MCP_PREFIX;
use panelot_protocol::EventFrame;
use panelot_protocol::engine::ConnectionCheck;
use panelot_protocol::engine::ProviderDetails;
use panelot_protocol::engine::ProviderErrorKind;
use panelot_providers::ClientConfig;
use panelot_providers::Connection;
use panelot_providers::ProviderClient;
use panelot_providers::Vault;
use panelot_providers::VaultKey;
use serde_json::Value;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::browser_effects::BrowserClock;
use crate::browser_effects::RandomIds;
use crate::fetch_http::BrowserTimer;
use crate::fetch_http::FetchHttp;
use crate::idb_store::IdbStore;
use crate::wait::sleep;

/// The IndexedDB database of the engine.
pub(crate) const DATABASE: &str = "panelot";

type Client = ProviderClient<FetchHttp, BrowserTimer>;
type WorkerDriver = Driver<CachedStore<IdbStore>, WorkerIo>;

/// The driver, once it exists: effect tasks push their results through it.
type DriverSlot = Rc<RefCell<Option<WorkerDriver>>>;

/// The service worker's I/O.
struct WorkerIo {
    post: Function,
    close: Function,
    client: Rc<Client>,
    /// Opens the MCP servers' secrets for the MCP client.
    vault: Rc<Vault>,
    driver: DriverSlot,
}

impl HostIo for WorkerIo {
    fn post(&self, port: PortId, frame: EventFrame) {
        // Frames go out as JSON text: one string copy across the port, where an object would be
        // parsed here and structured-cloned field by field (a 1,000-node snapshot is ~500 KB).
        let Ok(text) = frame.to_json() else { return };
        let _ = self.post.call2(&JsValue::NULL, &JsValue::from(port), &JsValue::from_str(&text));
    }

    fn close(&self, port: PortId) {
        let _ = self.close.call1(&JsValue::NULL, &JsValue::from(port));
    }

    fn start(&self, effect: Effect, signal: AbortSignal) {
        let driver = Rc::clone(&self.driver);
        let client = Rc::clone(&self.client);
        let vault = Rc::clone(&self.vault);
        wasm_bindgen_futures::spawn_local(async move {
            if let Some(input) = run_effect(&client, &vault, &driver, effect, signal).await {
                push(&driver, input);
            }
        });
    }

    fn wake_at(&self, at_ms: u64) {
        let driver = Rc::clone(&self.driver);
        let delay = at_ms.saturating_sub(js_sys::Date::now() as u64);
        wasm_bindgen_futures::spawn_local(async move {
            sleep(delay).await;
            push(&driver, Input::Tick);
        });
    }
}

/// Hands `input` to the driver and runs its drain loop unless one is running.
fn push(slot: &DriverSlot, input: Input) {
    let Some(driver) = slot.borrow().clone() else { return };
    if driver.push(input) {
        wasm_bindgen_futures::spawn_local(async move { driver.drain().await });
    }
}

/// Runs one effect to its end; the input that reports it.
async fn run_effect(
    client: &Client,
    vault: &Vault,
    driver: &DriverSlot,
    effect: Effect,
    signal: AbortSignal,
) -> Option<Input> {
    match effect {
        Effect::CallModel { id, connection, request } => {
            let result = call_model(client, driver, id, connection, &request, &signal).await;
            Some(Input::ModelDone(id, result))
        }
        Effect::ResolveTarget { id, request } => {
            let resolved = crate::gateway::resolve(&request, &signal).await;
            Some(Input::TargetResolved(id, resolved))
        }
        Effect::RunTool { id, call } if call.tool.starts_with(MCP_PREFIX) => {
            Some(Input::ToolDone(id, crate::mcp_bridge::call(&call, signal).await))
        }
        Effect::RunTool { id, call } => {
            let outcome = crate::gateway::run_tool(&call, signal).await;
            Some(Input::ToolDone(id, outcome))
        }
        Effect::VerifyConnection { id, connection, model } => {
            let report = match decode_connection(connection) {
                Ok(conn) => client.verify(&conn, model.as_deref(), &signal).await.to_check(),
                Err(message) => unreadable_connection(message),
            };
            Some(Input::VerifyDone(id, report))
        }
        Effect::Highlight { tab, document_id, element_ref } => {
            crate::gateway::highlight(tab, document_id, element_ref).await;
            None
        }
        Effect::Notify { thread_id, notice } => {
            crate::gateway::notify(&thread_id, notice).await;
            None
        }
        Effect::Indicator { run_id, tabs, state } => {
            crate::gateway::update_indicator(&run_id, &tabs, state).await;
            None
        }
        Effect::McpConfigure { servers, credentials } => {
            let push = |input| push(driver, input);
            crate::mcp_bridge::configure(vault, servers, credentials, push).await;
            None
        }
        Effect::McpQuery { id, query } => {
            Some(Input::McpAnswered(id, crate::mcp_bridge::query(&query).await))
        }
        Effect::McpElicitAnswer { request_id, result } => {
            crate::mcp_bridge::answer(&request_id, result).await;
            None
        }
        Effect::McpConnect { server } => {
            crate::mcp_bridge::connect(&server, |input| push(driver, input)).await;
            None
        }
        // The driver handles aborts itself.
        Effect::Abort { .. } => None,
    }
}

fn decode_connection(connection: Value) -> Result<Connection, String> {
    panelot_protocol::from_value::<Connection>(connection)
        .map_err(|err| format!("the stored connection cannot be read: {err}"))
}

fn unreadable_connection(message: String) -> ConnectionCheck {
    ConnectionCheck {
        reachable: false,
        key_valid: false,
        streaming: false,
        tool_use: false,
        models: None,
        model: None,
        failure: None,
        diagnosis: Some(message),
    }
}

async fn call_model(
    client: &Client,
    driver: &DriverSlot,
    id: EffectId,
    connection: Value,
    request: &ModelRequest,
    signal: &AbortSignal,
) -> Result<ModelResponse, ProviderError> {
    let conn = decode_connection(connection).map_err(|message| ProviderError {
        kind: ProviderErrorKind::Protocol,
        message,
        details: ProviderDetails::default(),
    })?;
    if !conn.enabled {
        return Err(ProviderError {
            kind: ProviderErrorKind::Protocol,
            message: format!("the connection \"{}\" is switched off in settings", conn.name),
            details: ProviderDetails::default(),
        });
    }
    let events = Rc::clone(driver);
    let mut on_event = move |event: ModelEvent| push(&events, Input::ModelEvent(id, event));
    client.stream_with(&conn, request, &mut on_event, signal).await
}

/// The engine's end of every UI port.
#[wasm_bindgen]
pub struct EngineHost {
    extension_origin: String,
    driver: DriverSlot,
    close: Function,
}

impl std::fmt::Debug for EngineHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineHost").field("origin", &self.extension_origin).finish()
    }
}

fn js_error(err: StoreError) -> JsValue {
    JsValue::from_str(&format!("panelot engine failed to start: {err}"))
}

#[wasm_bindgen]
impl EngineHost {
    /// Opens the store and returns the host; `epoch` is this worker's stream epoch and
    /// `browser_session` names this browser session (both taken by the worker script from
    /// `chrome.storage.session`, which lives as long as the browser). `extension_origin` is
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
        browser_session: String,
    ) -> Result<EngineHost, JsValue> {
        let key: [u8; 32] = vault_key
            .try_into()
            .map_err(|_| JsValue::from_str("panelot engine: the vault key must be 32 bytes"))?;
        // The engine is the only writer of threads, so its reads can be cached.
        let store = CachedStore::new(IdbStore::open(DATABASE).await.map_err(js_error)?);
        let vault = Rc::new(Vault::new(VaultKey::from_bytes(key)));
        let engine = Engine::new(store, Rc::new(BrowserClock), Rc::new(RandomIds), epoch)
            .with_tools(crate::gateway::tool_registry())
            .with_vault(Rc::clone(&vault) as Rc<dyn ConnectionVault>)
            .with_browser_session(browser_session);
        let config = ClientConfig {
            jitter_seed: js_sys::Math::random().to_bits(),
            ..ClientConfig::default()
        };
        let client =
            ProviderClient::new(FetchHttp, BrowserTimer, VaultKey::from_bytes(key), config);
        let slot: DriverSlot = Rc::new(RefCell::new(None));
        let io = WorkerIo {
            post,
            close: close.clone(),
            client: Rc::new(client),
            vault: Rc::clone(&vault),
            driver: Rc::clone(&slot),
        };
        let driver = Driver::new(engine, io);
        *slot.borrow_mut() = Some(driver.clone());
        let events = Rc::clone(&slot);
        crate::mcp_bridge::listen(vault, move |input| push(&events, input));
        driver.start().await.map_err(js_error)?;
        Ok(EngineHost { extension_origin, driver: slot, close })
    }

    /// A port connected. Only the extension's own pages may talk to the engine: a port from a
    /// content script in a web page is closed at once.
    #[wasm_bindgen(js_name = onConnect)]
    pub fn on_connect(&self, port_id: u32, sender_url: &str) {
        if !sender_url.starts_with(&self.extension_origin) {
            let _ = self.close.call1(&JsValue::NULL, &JsValue::from(port_id));
            return;
        }
        push(&self.driver, Input::Connect(port_id));
    }

    /// A message arrived on a port.
    #[wasm_bindgen(js_name = onMessage)]
    pub fn on_message(&self, port_id: u32, message: &JsValue) {
        // Clients send JSON text; a structured-cloned object is accepted too. Text is the
        // budgeted boundary into Rust.
        let text = message.as_string().unwrap_or_else(|| {
            JSON::stringify(message).ok().and_then(|s| s.as_string()).unwrap_or_default()
        });
        push(&self.driver, Input::Message(port_id, text));
    }

    /// A port went away.
    #[wasm_bindgen(js_name = onDisconnect)]
    pub fn on_disconnect(&self, port_id: u32) {
        push(&self.driver, Input::Disconnect(port_id));
    }

    /// A page indicator's message (`chrome.runtime.onMessage`): its Pause or Stop, or the user
    /// taking over the tab. Taken only from this extension's script in a tab's top frame; a
    /// takeover heard while the agent's own debugger input may have caused it is dropped.
    #[wasm_bindgen(js_name = onPageSignal)]
    pub fn on_page_signal(
        &self,
        kind: &str,
        run: &str,
        sender_id: &str,
        tab_id: Option<u32>,
        frame_id: i32,
        sender_url: &str,
    ) {
        let sender = crate::gateway::Sender {
            extension_id: sender_id,
            tab: tab_id,
            frame: i64::from(frame_id),
            url: sender_url,
        };
        let Some(signal) = crate::gateway::page_signal(kind, run, &sender, &self.extension_origin)
        else {
            return;
        };
        if signal.kind == PageSignalKind::TookOver && crate::gateway::own_input_on(signal.tab) {
            return;
        }
        push(&self.driver, Input::Page(signal));
    }

    /// The user took back the extension's access to sites (`chrome.permissions.onRemoved`):
    /// "accept for this session" grants on them end.
    #[wasm_bindgen(js_name = onPermissionsRemoved)]
    pub fn on_permissions_removed(&self, origins: Vec<String>) {
        // Host permissions come as match patterns (`https://shop.test/*`): their origin part.
        let origins = origins
            .iter()
            .map(|pattern| pattern.trim_end_matches("/*").trim_end_matches('/').to_owned())
            .collect();
        push(&self.driver, Input::HostAccessRemoved(origins));
    }
}
