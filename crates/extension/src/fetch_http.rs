//! The browser `fetch` [`Http`](panelot_providers::Http) and `setTimeout`
//! [`Timer`](panelot_providers::Timer), now in `panelot-web-fetch` (shared with the MCP module);
//! re-exported under their old paths so the host and gateways keep their imports.

pub(crate) use panelot_web_fetch::BrowserTimer;
pub(crate) use panelot_web_fetch::FetchHttp;
pub(crate) use panelot_web_fetch::FetchInit;
pub(crate) use panelot_web_fetch::fetch;
