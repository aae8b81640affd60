//! The tool registry: what each tool is (name, schema, level, effects, how to recover it, how far
//! its results can be trusted), built once by the host and read by the agent loop.
//!
//! The engine runs only its own tools (questions, memory, `load_tools`, `sidebar_open`); every
//! other one it asks the host to run (an effect), so browser tools, MCP tools and scripted test
//! tools all look the same here. [`catalog`] is the one table of known tools: the gatekeeper
//! classifies by it and [`registry`] offers its rows.

pub mod catalog;
mod descriptor;
mod schema;

pub use catalog::registry;
pub use descriptor::*;
pub use schema::validate_params;
