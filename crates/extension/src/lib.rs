//! The Panelot engine host for the extension's service worker, compiled to wasm.
//!
//! `static/sw.js` registers the `chrome.runtime` listeners synchronously, starts the engine with
//! [`EngineHost::start`] and forwards port events to it; replies go back through the `post` and
//! `close` callbacks it was given. All protocol logic and the driver live in `panelot-core`; this
//! crate moves text between JS and Rust, and supplies the browser's effects:
//! [`idb_store::IdbStore`] (durable state in IndexedDB), the clock and random ids, `fetch` for model calls, and the
//! browser gateway for tools. Test builds with the `conformance` feature export
//! [`conformance_entry`], which runs the shared store conformance suite against IndexedDB in
//! Chromium.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod browser_effects;
#[cfg(feature = "conformance")]
pub mod conformance_entry;
mod fetch_http;
mod gateway;
mod host;
pub mod idb_store;
mod mcp_bridge;
mod wait;

pub use host::EngineHost;
