//! End-to-end suites.

mod adversarial;
mod debugger;
mod dialogs;
mod durable_threads;
mod executor;
mod gateway;
mod handover;
mod handshake;
mod idb_store;
mod mcp_calls;
mod mcp_oauth;
mod notifications;
mod opens;
mod turns;
mod ui_activity;
mod ui_artifacts;
mod ui_attach;
mod ui_design;
mod ui_long_thread;
mod ui_mcp;
mod ui_mcp_composer;
mod ui_memory;
mod ui_options;
mod ui_pages;
mod ui_turns;
mod waits;
