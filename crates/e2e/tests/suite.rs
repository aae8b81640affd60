//! End-to-end suites.

mod durable_threads;
mod handshake;
mod idb_store;
