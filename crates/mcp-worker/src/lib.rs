//! Panelot's MCP client as its own wasm module in the service worker, apart from the engine's:
//! the engine wasm stays under its size budget, the module is only fetched and instantiated
//! once an MCP server is configured, and a trap on a hostile server's JSON kills this module,
//! not the engine.
//!
//! Two exports, driven by `static/mcp_bridge.js` in the extension:
//!
//! * [`mcp_start`]`(onEvent)`: creates the [`McpManager`] (once; a second call only replaces
//!   the callback). `onEvent` receives each [`Event`] as JSON text.
//! * [`mcp_command`]`(json)`: runs one [`panelot_mcp::bridge::Command`] and resolves with the
//!   reply's JSON text. It never rejects for a bad command: that gets a `badCommand` reply.
//!
//! The shapes are documented in `panelot_mcp::bridge`; traffic goes through the browser's
//! `fetch` and `setTimeout` (`panelot-web-fetch`), background work through `spawn_local`.
//!
//! Size: 409,772 bytes after wasm-opt (first build, with OAuth refresh). Being a module of its
//! own it pays again for what the engine already has; most of it is serde_json and the
//! (de)serializers of the MCP and bridge types, about 220 KB before wasm-opt.

#![deny(clippy::print_stdout, clippy::print_stderr)]

use std::cell::RefCell;

use js_sys::Function;
use js_sys::Promise;
use panelot_core::model::LocalFuture;
use panelot_mcp::bridge::ErrorKind;
use panelot_mcp::bridge::Event;
use panelot_mcp::bridge::Reply;
use panelot_mcp::manager::ManagerOptions;
use panelot_mcp::manager::McpManager;
use panelot_mcp::manager::Spawn;
use panelot_web_fetch::BrowserTimer;
use panelot_web_fetch::FetchHttp;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

type Manager = McpManager<FetchHttp, BrowserTimer>;

thread_local! {
    /// The module's one manager, made by `mcp_start`.
    static MANAGER: RefCell<Option<Manager>> = const { RefCell::new(None) };
    /// Where events go; read at each event so `mcp_start` can replace it.
    static ON_EVENT: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Runs background work on the worker's microtask queue.
struct LocalSpawner;

impl Spawn for LocalSpawner {
    fn spawn(&self, task: LocalFuture<'static, ()>) {
        wasm_bindgen_futures::spawn_local(task);
    }
}

/// Sends `event` to the callback as JSON text. A callback that throws loses that event only.
fn emit(event: Event) {
    let callback = ON_EVENT.with(|slot| slot.borrow().clone());
    if let Some(callback) = callback {
        let _ = callback.call1(&JsValue::NULL, &JsValue::from_str(&event.to_json()));
    }
}

/// Starts the module: `on_event` receives every event as JSON text.
#[wasm_bindgen]
pub fn mcp_start(on_event: Function) {
    ON_EVENT.with(|slot| *slot.borrow_mut() = Some(on_event));
    MANAGER.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            *slot = Some(McpManager::new(
                FetchHttp,
                BrowserTimer,
                Box::new(LocalSpawner),
                Box::new(emit),
                ManagerOptions::default(),
            ));
        }
    });
}

/// Runs one command (JSON text); the promise resolves with the reply (JSON text).
#[wasm_bindgen]
pub fn mcp_command(json: String) -> Promise {
    let manager = MANAGER.with(|slot| slot.borrow().clone());
    wasm_bindgen_futures::future_to_promise(async move {
        let reply = match manager {
            Some(manager) => manager.command_json(&json).await,
            None => Reply::error(ErrorKind::NotStarted, "the MCP module was not started").to_json(),
        };
        Ok(JsValue::from_str(&reply))
    })
}
