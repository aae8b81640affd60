//! Integration tests of the testkit servers, one binary (see `suite/`).

// Helpers outside `#[test]` functions are test code too; clippy's test allowances do not reach
// them in an integration-test crate.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod suite;
