//! Panelot's MCP client: remote Model Context Protocol servers over Streamable HTTP, written
//! against the providers' [`Http`](panelot_providers::Http) and
//! [`Timer`](panelot_providers::Timer) traits so the same code runs natively (reqwest, in tests)
//! and in the service worker (`fetch`).
//!
//! * [`McpClient`]: one server's session (`initialize` with version negotiation,
//!   `Mcp-Session-Id`, renewal after a 404, `DELETE` on [`close`](McpClient::close)), tools,
//!   prompts, resources and ping; server requests (ping, form-mode elicitation through the
//!   host's [`ServerHandler`]) and notifications read from SSE answers; a timeout and an abort
//!   that send `notifications/cancelled`; cut SSE answers resumed with `Last-Event-ID`; the
//!   standalone `GET` stream ([`McpClient::listen`]) for notifications outside calls.
//! * [`Budgets`] and [`ToolCatalog`]: nothing from a server reaches the caller unchecked.
//!   Messages are capped in bytes as they are read, catalogs in entries and pages, results in
//!   text; a malformed tool is rejected on its own with a reason instead of failing the list.
//! * [`names`]: the `mcp__{server}__{tool}` names models see (64 characters, escaping rule).
//! * [`McpError`]: typed failures; [`McpError::Unauthorized`] carries the parsed
//!   `WWW-Authenticate` [`BearerChallenge`] (`resource_metadata`, `scope`) OAuth starts from.
//! * [`oauth`]: OAuth 2.1 as the MCP authorization specification requires (resource and
//!   authorization-server metadata discovery, dynamic registration, PKCE, token exchange,
//!   refresh, step-up), as a state machine the host drives around the browser step.
//!
//! Protocol versions 2025-06-18 (asked for) and 2025-03-26 are spoken; a server answering
//! anything else is refused with [`McpError::UnsupportedVersion`] after its session is deleted.
//!
//! **Why not `rmcp`.** The official Rust SDK's `model` module compiles for
//! wasm32-unknown-unknown with `default-features = false` (rmcp 3.11, which still pulls tokio,
//! tokio-util, futures, chrono, sha2 and the unicode tables), but it is heavy. Measured as
//! size-tuned cdylibs (`opt-level = "z"`, LTO, one codegen unit, `panic = "abort"`; code and data
//! sections, names and debug sections left out):
//!
//! | probe | code + data |
//! |-------|-------------|
//! | parse and re-serialize one `serde_json::Value` (baseline) | 38,364 B |
//! | the same over rmcp's `ServerJsonRpcMessage` (types only, no client) | 617,768 B |
//! | this whole client (catalog, call, prompts, resources, close over a canned `Http`), after `wasm-bindgen` 0.2.100 | 222,185 B |
//!
//! The last figure still counts the runtime pieces (wasm-bindgen, js-sys, allocator, core's
//! combinators) the service worker already has, so this crate adds at most about 184 KB where
//! rmcp's types alone add about 580 KB, more than a third of the worker's 1.5 MiB budget, which
//! it already exceeds. rmcp's HTTP transport also needs reqwest or its own tokio tasks, not our
//! `fetch`-backed `Http`. So this crate types only the messages Panelot uses ([`model`],
//! [`jsonrpc`]), against the MCP schema of 2025-06-18.
//!
//! **How it plugs in (next steps).** The extension host keeps one `McpClient` per enabled
//! server (over its `fetch` `Http` and `setTimeout` `Timer`) and runs [`McpClient::listen`] in
//! the background for each, reopening it with backoff. The catalog's tools are offered as
//! [`CatalogTool::exposed_name`]s; a model's call of an `mcp__…` tool (gatekeeper category MCP,
//! `panelot_core::tools::catalog::MCP_PREFIX`, judged as a write) becomes an engine effect the
//! host runs with [`McpClient::call_tool`] under the run's abort signal, after
//! [`ToolCatalog::get`] maps the exposed name back to the server's; the result is fenced with
//! MCP provenance and tainted. A [`ServerNotification::ToolsListChanged`] reaching the
//! [`ServerHandler`] triggers [`McpClient::list_tools`], keeping the last good catalog when that
//! fails. [`ServerHandler::elicit`] becomes a durable interaction card. An
//! [`McpError::Unauthorized`] starts OAuth ([`oauth`]) from its [`BearerChallenge`]; the token
//! then reaches the client through [`McpClient::set_authorization`].
//!
//! * [`bridge`] and [`manager`]: the client runs as its own wasm module in the service worker
//!   (`panelot-mcp-worker`), loaded only when a server is configured. The engine host sends it
//!   JSON [`bridge::Command`]s and gets [`bridge::Event`]s back; [`manager::McpManager`] keeps
//!   one client per enabled server with its status, connects at startup or lazily, listens with
//!   backoff, refreshes catalogs and tracks calls for cancellation.
//!
//! Not here: URLs are checked by the settings (HTTPS, or HTTP on loopback).

pub mod bridge;
pub mod jsonrpc;
pub mod manager;
pub mod model;
pub mod names;
pub mod oauth;

mod challenge;
mod client;
mod error;
mod validate;

pub use challenge::BearerChallenge;
pub use challenge::parse_bearer_challenge;
pub use client::Listened;
pub use client::McpClient;
pub use client::ResumePoint;
pub use client::ServerConfig;
pub use client::ServerHandler;
pub use error::Budget;
pub use error::McpError;
pub use model::ServerNotification;
pub use validate::Budgets;
pub use validate::CatalogTool;
pub use validate::Rejected;
pub use validate::ToolCatalog;
