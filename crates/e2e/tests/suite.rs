//! End-to-end suites.

mod handshake;
mod idb_store;
