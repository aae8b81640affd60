//! The integration suite's modules.

mod failures;
mod harness;
mod interop;
mod session;
mod tools;
