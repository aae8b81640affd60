//! Test support for Panelot's end-to-end tests and tools.
//!
//! * [`chromium`]: find and launch Chromium with the built extension on a throwaway profile.
//! * [`cdp`]: a small synchronous Chrome DevTools Protocol client over a WebSocket, enough to
//!   open extension pages, attach to tabs and side panels, evaluate script in them and close
//!   targets.
//! * [`extension_id`]: the extension id fixed by the manifest `key`; [`granted_before`]: a
//!   profile's record of host access the user granted earlier.
//! * [`fixture_site`]: a static site on loopback for the page-executor tests (files from a
//!   directory plus pages added in memory; `localhost` as a second origin).
//! * [`sites`]: many made-up origins (`shop.test`, `evil.test`) on one loopback listener, each
//!   with its own pages, recording every request so a test can tell what reached which server.
//! * [`mock_provider`]: a model-provider server on loopback speaking the OpenAI-compatible and
//!   Anthropic streaming formats, driven by a script of replies and recording every request.
//! * [`mock_mcp`]: an MCP server on loopback speaking Streamable HTTP (JSON or SSE answers,
//!   sessions, elicitation, `list_changed`, cut streams, 401 challenges, spoiled answers).
//!
//! A small hand-written CDP client keeps the test build light on two cores; chromiumoxide would
//! compile its generated protocol crate for the same few calls.

mod extension;

pub mod cdp;
pub mod chromium;
pub mod fixture_site;
pub mod mock_mcp;
pub mod mock_provider;
pub mod sites;

pub use extension::extension_id;
pub use extension::extension_id_from_key;
pub use extension::granted_before;
