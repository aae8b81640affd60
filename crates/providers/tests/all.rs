//! Integration tests of `panelot-providers`, built as one binary.

// Test helpers outside `#[test]` functions may panic on broken fixtures; `ProviderError` is the
// engine's error type and its size is not ours to change (see the crate root).
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic, clippy::result_large_err)]

mod suite;
