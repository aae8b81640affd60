//! The Panelot engine, host-agnostic and sans-IO: it answers UI sessions, owns threads, runs, the
//! agent loop, approvals and the gatekeeper, and asks its host for every outside effect (model
//! calls, tool calls, target resolutions) through data, so the same engine runs in the service
//! worker, natively and under simulation.
//!
//! * [`engine::Engine`]: the router between the engine's parts (delivery, commands, the run
//!   machine, the open runs, effects in flight); its entry points take one input each and return
//!   an [`engine::Outbox`].
//! * [`driver::Driver`]: the one host driver: a serial queue of inputs, the per-thread op queue,
//!   aborts and ticks around an engine; a host supplies I/O only ([`driver::HostIo`]).
//! * [`session`] and [`handshake`]: one port's protocol state; [`receipts`]: idempotent commands.
//! * [`store`]: the [`store::Store`] trait (reads plus atomic units of work), its records, the
//!   in-memory store, a read cache and the conformance suite every backend passes.
//! * [`settings`]: every stored setting with its type.
//! * [`tree`] and [`snapshot`]: a thread's shape from one range read, paths, branches, and the
//!   projection of stored nodes into snapshot items.
//! * [`runs`]: the run state machine's transitions and what a restart does with each run.
//! * [`tools`]: the tool registry and the one catalog of tools ([`tools::catalog`]).
//! * [`target`]: where a tool call acts, resolved before judgement; the run's route.
//! * [`gatekeeper`]: the pure permission decision; [`taint`]: values seen in untrusted content.
//! * [`context`]: the model's view of a thread, with untrusted content fenced;
//!   [`mcp_result`]: what the model reads of an MCP server's results, prompts and resources.
//! * [`model`]: provider-neutral model requests and streams, implemented by `panelot-providers`;
//!   [`env`]: clock, ids and cancellation; [`combinators`]: race and join without a runtime;
//!   [`sort`]: stable sorting by an integer key, compiled once; [`sorted_map`]: small maps
//!   without a B-tree.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod combinators;
pub mod context;
pub mod driver;
pub mod engine;
pub mod env;
pub mod gatekeeper;
pub mod handshake;
pub mod mcp_result;
pub mod model;
pub mod receipts;
pub mod runs;
pub mod session;
pub mod settings;
#[cfg(test)]
mod sim;
pub mod snapshot;
pub mod sort;
pub mod sorted_map;
pub mod store;
pub mod taint;
pub mod target;
pub mod tools;
pub mod tree;
