//! Panelot's native `Store` on SQLite (rusqlite, bundled), for tests, benchmarks and the native
//! host. It implements the engine's store trait and passes the shared conformance suite; both
//! arrive with the engine issue.

#![deny(clippy::print_stdout, clippy::print_stderr)]
