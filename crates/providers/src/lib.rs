//! Model providers for Panelot: streaming adapters for OpenAI-compatible `chat/completions` and
//! Anthropic `messages`, over the engine's `Http` trait, with key failover, retries and error
//! diagnosis. The adapters arrive with the provider issue; this crate fixes their place in the
//! dependency graph (`panelot-protocol` ← here, never the other way).

#![deny(clippy::print_stdout, clippy::print_stderr)]
