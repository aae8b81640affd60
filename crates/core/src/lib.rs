//! The Panelot engine, host-agnostic: it answers UI sessions over a transport and (as it grows)
//! owns threads, runs, the agent loop and the gatekeeper. Every outside effect goes through a
//! trait so the same engine runs in the service worker, natively and under simulation.
//!
//! * [`engine::Engine`]: ports, sessions ([`session`], [`handshake`]), subscriptions and
//!   delivery with stream cursors, and the thread commands, idempotent through [`receipts`].
//! * [`store`]: the [`store::Store`] trait (reads plus atomic units of work), its records, the
//!   in-memory store and the conformance suite every backend passes.
//! * [`tree`] and [`snapshot`]: a thread's shape from one range read, paths, branches, and the
//!   projection of stored nodes into snapshot items.
//! * [`model`]: provider-neutral model requests and streams, implemented by
//!   `panelot-providers`; [`effects`]: clock and ids.
//!
//! Not yet here: turns, runs and recovery, the agent loop, tools and the gatekeeper.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod context;
pub mod effects;
pub mod engine;
pub mod gatekeeper;
pub mod handshake;
pub mod model;
pub mod receipts;
pub mod runs;
pub mod session;
#[cfg(test)]
mod sim;
pub mod snapshot;
pub mod store;
pub mod taint;
pub mod tools;
pub mod tree;
