//! Model providers for Panelot: the OpenAI-compatible `chat/completions` and Anthropic
//! `messages` adapters, and the client the engine calls models through.
//!
//! The adapters are pure: bytes of a response body go in, [`ModelEvent`]s and one
//! [`ModelResponse`] (or a classified [`ProviderError`]) come out; a [`ModelRequest`] goes in and
//! a JSON body with its path and headers comes out. The client adds the effects, each behind a
//! small trait the host supplies, so the crate builds for wasm and tests never touch real time:
//!
//! * [`sse`]: incremental Server-Sent-Events framing.
//! * [`openai`] and [`anthropic`]: request builders and stream adapters per wire format.
//! * [`StreamDecoder`]: SSE framing plus an adapter, fed the body chunk by chunk.
//! * [`classify_http_error`] and [`retry_after_ms`]: diagnosis of failed HTTP calls.
//! * [`Quirks`] and [`templates`]: what differs between endpoints of the same wire format.
//!
//! **Tool calls finished with `"stop"`.** OpenAI-compatible servers disagree on how a response
//! with tool calls ends: OpenAI says `"tool_calls"` (but `"stop"` when `tool_choice` forces a
//! function), Ollama, LM Studio and llama.cpp say `"stop"`. The adapter accepts complete tool
//! calls with either, from every endpoint, rather than a template switching a quirk on: a
//! connection typed by hand for a local server then works too, and nobody has to know a setting
//! exists. A call that ended with `"length"` (cut by the token limit) or a filter stays an error,
//! because its arguments may be incomplete. The `toolCallsOnStop` quirk earlier versions stored is
//! read and dropped ([`RETIRED_QUIRKS`]).
//!
//! **Errors a person reads.** Every failure of a connection's call names the connection, says
//! what happened with its HTTP status, and what to check ("Work proxy: the server rejected the
//! API key (HTTP 401). Check the connection's API key in Settings."); what the provider itself
//! said stays in the error's details. Proxies such as LiteLLM are classified by what they mean,
//! not by the status they chose: a budget used up is an exhausted quota, a key refused by a proxy
//! without a key database is a rejected key.
//! * [`Http`] (bytes in and out, abortable) and [`Timer`] (now and sleep): the host's effects.
//! * [`Connection`]: one endpoint as stored (normalized [`BaseUrl`], keys and sensitive header
//!   values sealed as [`SealedSecret`]s under the host's [`VaultKey`]).
//! * [`ProviderClient`]: the engine's [`ModelBackend`]: sticky keys with failover, retries with
//!   backoff, stall timeout, abort; model listing and [`verify`](ProviderClient::verify).
//! * [`capabilities`] and [`cost_usd`]: what a model supports and what a call cost.
//!
//! | feature  | default | what it adds |
//! |----------|---------|--------------|
//! | `native` | off     | `NativeHttp` (reqwest, rustls) and `TokioTimer`; needs a tokio runtime |
//!
//! The extension implements [`Http`] over `fetch` and [`Timer`] over `setTimeout`; a native host
//! constructs the client like this (on a tokio current-thread runtime):
//!
//! ```no_run
//! # async fn host(stored: Vec<panelot_providers::Connection>, request: panelot_core::model::ModelRequest) -> Result<(), Box<dyn std::error::Error>> {
//! use panelot_core::env::AbortSignal;
//! use panelot_core::model::ModelBackend;
//! use panelot_providers::ClientConfig;
//! use panelot_providers::NativeHttp;
//! use panelot_providers::ProviderClient;
//! use panelot_providers::TokioTimer;
//! use panelot_providers::VaultKey;
//!
//! // The host keeps this key apart from the settings that hold the sealed secrets.
//! let vault_key = VaultKey::from_bytes([0; 32]);
//! let config = ClientConfig { jitter_seed: 0x5eed, ..ClientConfig::default() };
//! let client = ProviderClient::new(NativeHttp::new()?, TokioTimer, vault_key, config);
//! client.set_connections(stored);
//! let (_abort_handle, abort) = AbortSignal::new();
//! let mut events = Vec::new();
//! let response = client.stream("openai", &request, &mut |event| events.push(event), abort).await?;
//! # drop(response);
//! # Ok(())
//! # }
//! ```
//!
//! Decoding a body by hand:
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
//! [`ModelBackend`]: panelot_core::model::ModelBackend

#![deny(clippy::print_stdout, clippy::print_stderr)]
// `ProviderError` is the engine's error type (136 bytes). It is returned at most once per model
// call, so its size costs nothing measurable; boxing it would change the contract with
// `panelot-core` for no gain.
#![allow(clippy::result_large_err)]

pub mod anthropic;
mod capabilities;
mod client;
mod connection;
mod diagnose;
mod error;
mod http;
mod http_date;
mod mcp_server;
#[cfg(feature = "native")]
mod native;
pub mod openai;
mod quirks;
mod request;
mod secret;
pub mod sse;
mod stream;
pub mod templates;
mod timer;
mod tool_ids;
mod vault;

pub use capabilities::Capabilities;
pub use capabilities::ModelEntry;
pub use capabilities::Pricing;
pub use capabilities::UNKNOWN_MODEL;
pub use capabilities::builtin_capabilities;
pub use capabilities::capabilities;
pub use capabilities::cost_usd;
pub use capabilities::pricing;
pub use client::ClientConfig;
pub use client::ConnectionModels;
pub use client::ProviderClient;
pub use client::VerifyFailure;
pub use client::VerifyReport;
pub use connection::BaseUrl;
pub use connection::Connection;
pub use connection::ConnectionDraft;
pub use connection::ConnectionError;
pub use connection::CustomHeader;
pub use connection::StoredValue;
pub use connection::UrlError;
pub use connection::is_sensitive_header;
pub use diagnose::HttpFailure;
pub use diagnose::classify_http_error;
pub use diagnose::retry_after_ms;
pub use error::ErrorReason;
pub use http::Http;
pub use http::HttpBody;
pub use http::HttpError;
pub use http::HttpRequest;
pub use http::HttpResponse;
pub use http::Method;
pub use mcp_server::OpenedMcpServer;
pub use mcp_server::StoredMcpServer;
#[cfg(feature = "native")]
pub use native::NativeHttp;
#[cfg(feature = "native")]
pub use native::TokioTimer;
pub use quirks::MaxTokensField;
pub use quirks::QuirkFlag;
pub use quirks::Quirks;
pub use quirks::RETIRED_QUIRKS;
pub use quirks::ThinkingBudgetMode;
pub use quirks::UnknownQuirk;
pub use request::Header;
pub use request::HeaderValue;
pub use request::ProviderRequest;
pub use request::join_url;
pub use secret::SealedSecret;
pub use secret::SecretError;
pub use secret::VaultKey;
pub use stream::StreamAdapter;
pub use stream::StreamDecoder;
pub use templates::WireFormat;
pub use timer::Timer;
pub use timer::Wait;
pub use tool_ids::ToolCallIds;
pub use vault::Vault;
