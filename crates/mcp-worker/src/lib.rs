//! Panelot's MCP client as its own wasm module in the service worker (see `panelot_mcp::bridge`).
