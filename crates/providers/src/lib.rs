//! Model providers for Panelot: the host-independent core of the OpenAI-compatible
//! `chat/completions` and Anthropic `messages` adapters.
//!
//! Everything here is pure: bytes of a response body go in, [`ModelEvent`]s and one
//! [`ModelResponse`] (or a classified [`ProviderError`]) come out; a [`ModelRequest`] goes in and a
//! JSON body with its path and headers comes out. The HTTP transports (native and `fetch`) build
//! on this and arrive later; nothing here uses threads, files or clocks, so it builds for wasm.
//!
//! * [`sse`]: incremental Server-Sent-Events framing.
//! * [`openai`] and [`anthropic`]: request builders and stream adapters per wire format.
//! * [`StreamDecoder`]: SSE framing plus an adapter, fed the body chunk by chunk.
//! * [`classify_http_error`] and [`retry_after_ms`]: diagnosis of failed HTTP calls.
//! * [`Quirks`] and [`templates`]: what differs between endpoints of the same wire format.
//!
//! ```
//! use panelot_core::model::ModelEvent;
//! use panelot_providers::Quirks;
//! use panelot_providers::StreamDecoder;
//! use panelot_providers::ToolCallIds;
//! use panelot_providers::openai::OpenAiStream;
//!
//! let adapter = OpenAiStream::new(Quirks::default(), ToolCallIds::new("call_t1_"));
//! let mut decoder = StreamDecoder::new(adapter);
//! let mut events = Vec::new();
//! // Chunks may split lines, events and UTF-8 anywhere.
//! decoder.feed_into(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\nda", &mut events)?;
//! decoder.feed_into(b"ta: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", &mut events)?;
//! let response = decoder.finish(&mut events)?;
//! assert_eq!(events, vec![ModelEvent::TextDelta("Hi".to_owned())]);
//! assert_eq!(response.turn.text, "Hi");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`ModelEvent`]: panelot_core::model::ModelEvent
//! [`ModelResponse`]: panelot_core::model::ModelResponse
//! [`ProviderError`]: panelot_core::model::ProviderError
//! [`ModelRequest`]: panelot_core::model::ModelRequest

#![deny(clippy::print_stdout, clippy::print_stderr)]
// `ProviderError` is the engine's error type (136 bytes). It is returned at most once per model
// call, so its size costs nothing measurable; boxing it would change the contract with
// `panelot-core` for no gain.
#![allow(clippy::result_large_err)]

pub mod anthropic;
mod diagnose;
mod error;
mod http_date;
pub mod openai;
mod quirks;
mod request;
pub mod sse;
mod stream;
pub mod templates;
mod tool_ids;

pub use diagnose::HttpFailure;
pub use diagnose::classify_http_error;
pub use diagnose::retry_after_ms;
pub use error::ErrorReason;
pub use quirks::MaxTokensField;
pub use quirks::QuirkFlag;
pub use quirks::Quirks;
pub use quirks::ThinkingBudgetMode;
pub use quirks::UnknownQuirk;
pub use request::Header;
pub use request::HeaderValue;
pub use request::ProviderRequest;
pub use request::join_url;
pub use stream::StreamAdapter;
pub use stream::StreamDecoder;
pub use tool_ids::ToolCallIds;
