//! Panelot's UI pages (side panel, chat, options): a Leptos client-side app in wasm.
//!
//! Logic lives in plain-Rust modules that build and test natively:
//!
//! * [`EngineClient`]: the port protocol as a sans-IO state machine (handshake, outbox resent
//!   after reconnect, heartbeat, backoff, reload-required);
//! * [`ThreadView`] and [`ThreadList`]: view models fed by engine events;
//! * [`markdown`]: model text to safe HTML;
//! * [`composer`], [`settings`] and [`i18n`]: key bindings, the settings form, the catalog.
//!
//! Only `app` (Leptos components) and `host` (the port, timers and `chrome.storage.session`)
//! touch the browser, and they compile for wasm only. Each page's `boot.js` loads the module and
//! calls `start` with the page's entry name.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod client;
pub mod composer;
pub mod i18n;
pub mod markdown;
pub mod settings;
mod thread_list;
mod thread_view;

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod host;

pub use client::ClientError;
pub use client::Connection;
pub use client::Effect;
pub use client::EngineClient;
pub use client::PING_INTERVAL_MS;
pub use client::RECONNECT_INITIAL_MS;
pub use client::RECONNECT_MAX_MS;
pub use client::reconnect_delay_ms;
pub use thread_list::Group;
pub use thread_list::ThreadList;
pub use thread_list::apply_patch;
pub use thread_list::group_of;
pub use thread_view::ActiveTurnView;
pub use thread_view::Applied;
pub use thread_view::Delivery;
pub use thread_view::Entry;
pub use thread_view::EntryBody;
pub use thread_view::EntryKey;
pub use thread_view::ThreadView;
pub use thread_view::summarize_params;

/// Mounts the page `entry` (`sidepanel`, `chat` or `options`) and connects to the engine.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn start(entry: &str) -> Result<(), wasm_bindgen::JsValue> {
    app::start(entry)
}
