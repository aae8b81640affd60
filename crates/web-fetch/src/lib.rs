//! The browser's `fetch` as the providers' [`Http`](panelot_providers::Http) and `setTimeout` as
//! their [`Timer`](panelot_providers::Timer), for wasm modules running in a service worker.
//!
//! One crate for both wasm modules of the worker (the engine host in `panelot-extension` and the
//! MCP module in `panelot-mcp-worker`), so they share one implementation instead of two copies.
//! Everything is taken from the global scope, since a service worker has no `window`.

mod fetch_http;
mod wait;

pub use fetch_http::BrowserTimer;
pub use fetch_http::FetchHttp;
pub use fetch_http::FetchInit;
pub use fetch_http::Fetched;
pub use fetch_http::fetch;
pub use wait::sleep;
