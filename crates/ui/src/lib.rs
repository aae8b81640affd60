//! Panelot's UI pages (side panel, full-page chat, options): a Leptos client-side app in wasm.
//!
//! Each page's `early.js` starts compiling the module and reading `chrome.storage`; its `boot.js`
//! then calls [`start`] with the page's entry name and what was read. The
//! crate is in four layers; only the first builds natively, the rest is wasm only:
//!
//! | module       | what it holds                                                             |
//! |--------------|---------------------------------------------------------------------------|
//! | [`state`]    | plain-Rust logic, unit tested natively: the engine client (a sans-IO state machine of the port protocol), the thread list and thread view models, the composer's keys and per-turn choices, attachments, the tab a message is about, the options page's forms |
//! | [`i18n`], [`markdown`], [`icons`] | the message catalog (English, Simplified Chinese); model text to safe HTML; the icons of the sprite |
//! | `host`       | the browser under the app: the `chrome.runtime` port driving the engine client, timers, `chrome.storage`, and the `chrome.*` calls the views make (permissions, tabs, scripting, side panel). It takes callbacks and knows nothing of the app's state |
//! | `contexts`   | the app's reactive state, split by concern and provided through Leptos context (`provide_*` / `use_*`): page, engine, thread list, open thread, composer, settings, notices; the turn commands; the router of engine events |
//! | `views`      | the Leptos components, one concern per file: page shell, thread list, thread pane, message stream, cards, composer, options page sections |
//! | `boot`       | mounts a page: provides the contexts, starts the host with the router |

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod i18n;
pub mod icons;
pub mod markdown;
pub mod state;

#[cfg(target_arch = "wasm32")]
mod boot;
#[cfg(target_arch = "wasm32")]
mod contexts;
#[cfg(target_arch = "wasm32")]
mod host;
#[cfg(target_arch = "wasm32")]
mod views;

/// Mounts the page `entry` (`sidepanel`, `chat` or `options`) and connects to the engine.
/// `stored` is what `early.js` read: `[chrome.storage.local items, chrome.storage.session
/// items]`.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn start(entry: &str, stored: wasm_bindgen::JsValue) -> Result<(), wasm_bindgen::JsValue> {
    boot::start(entry, &stored)
}
