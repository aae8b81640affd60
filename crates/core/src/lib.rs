//! The Panelot engine, host-agnostic: it answers UI sessions over a transport and (as it grows)
//! owns threads, runs, the agent loop and the gatekeeper. Every outside effect goes through a
//! trait so the same engine runs in the service worker, natively and under simulation.
//!
//! Today it holds the session handshake ([`handshake`]) and the per-port session state machine
//! ([`session`]), which every host drives the same way.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod effects;
pub mod engine;
pub mod handshake;
pub mod model;
pub mod receipts;
pub mod session;
pub mod snapshot;
pub mod store;
pub mod tree;
