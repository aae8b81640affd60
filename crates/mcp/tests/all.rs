//! Integration tests of `panelot-mcp` against the testkit's mock MCP server over loopback HTTP,
//! built as one binary.

// Test helpers may panic on broken fixtures.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod suite;
