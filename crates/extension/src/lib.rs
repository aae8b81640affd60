//! The Panelot engine host for the extension's service worker, compiled to wasm.
//!
//! `static/sw.js` registers the `chrome.runtime` listeners synchronously and forwards port events
//! to [`EngineHost`]; replies go back through the `post` and `close` callbacks it was given. All
//! protocol logic lives in `panelot-core`; this crate only moves text between JS and Rust.
//! [`idb_store::IdbStore`] is the engine's durable store on IndexedDB (test builds with the
//! `conformance` feature can run the shared store conformance suite against it in Chromium).

#![deny(clippy::print_stdout, clippy::print_stderr)]

#[cfg(feature = "conformance")]
pub mod conformance_entry;
pub mod idb_store;

use std::collections::BTreeMap;

use js_sys::Function;
use js_sys::JSON;
use panelot_core::session::Reply;
use panelot_core::session::Session;
use panelot_core::session::answer_without_engine;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

/// The engine's end of every UI port.
#[wasm_bindgen]
#[derive(Debug)]
pub struct EngineHost {
    extension_origin: String,
    sessions: BTreeMap<u32, Session>,
    post: Function,
    close: Function,
}

#[wasm_bindgen]
impl EngineHost {
    /// `extension_origin` is `chrome-extension://<id>/`; `post(portId, message)` and
    /// `close(portId)` act on ports.
    #[wasm_bindgen(constructor)]
    pub fn new(extension_origin: String, post: Function, close: Function) -> EngineHost {
        EngineHost { extension_origin, sessions: BTreeMap::new(), post, close }
    }

    /// A port connected. Only the extension's own pages may talk to the engine: a port from a
    /// content script in a web page is closed at once.
    #[wasm_bindgen(js_name = onConnect)]
    pub fn on_connect(&mut self, port_id: u32, sender_url: &str) {
        if !sender_url.starts_with(&self.extension_origin) {
            self.close_port(port_id);
            return;
        }
        self.sessions.insert(port_id, Session::default());
    }

    /// A message arrived on a port.
    #[wasm_bindgen(js_name = onMessage)]
    pub fn on_message(&mut self, port_id: u32, message: &JsValue) {
        let Some(session) = self.sessions.get_mut(&port_id) else {
            return;
        };
        // Ports carry structured-cloned JSON; text is the budgeted boundary into Rust.
        let text = JSON::stringify(message).ok().and_then(|s| s.as_string()).unwrap_or_default();
        let reply = answer_without_engine(session.on_text(&text));
        self.send(port_id, reply);
    }

    /// A port went away.
    #[wasm_bindgen(js_name = onDisconnect)]
    pub fn on_disconnect(&mut self, port_id: u32) {
        self.sessions.remove(&port_id);
    }
}

impl EngineHost {
    fn send(&mut self, port_id: u32, reply: Reply) {
        for frame in reply.frames {
            let Ok(text) = frame.to_json() else {
                continue;
            };
            if let Ok(message) = JSON::parse(&text) {
                let _ = self.post.call2(&JsValue::NULL, &JsValue::from(port_id), &message);
            }
        }
        if reply.close {
            self.close_port(port_id);
        }
    }

    fn close_port(&mut self, port_id: u32) {
        self.sessions.remove(&port_id);
        let _ = self.close.call1(&JsValue::NULL, &JsValue::from(port_id));
    }
}
