//! Panelot's UI pages (side panel, chat, options) in wasm.
//!
//! Each page's `boot.js` loads this module and calls [`start`] with the page's entry name. Today
//! the page shell connects to the engine, performs the `initialize` handshake and shows the
//! engine status; the Leptos app grows from here.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod engine_port;
mod status;

use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

/// Mounts the page `entry` (`sidepanel`, `chat` or `options`) and connects to the engine.
#[wasm_bindgen]
pub fn start(entry: &str) -> Result<(), JsValue> {
    let status = status::mount(entry)?;
    engine_port::connect(status)
}
