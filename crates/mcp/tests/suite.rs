//! The integration suite's modules.

mod failures;
mod harness;
mod interop;
mod listen;
mod manager;
mod manager_oauth;
mod oauth;
mod session;
mod tools;
