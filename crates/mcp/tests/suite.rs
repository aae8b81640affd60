//! The integration suite's modules.

mod failures;
mod harness;
mod session;
mod tools;
