//! Panelot's wire protocols, the one source of truth for every message that crosses a context
//! boundary.
//!
//! * [`engine`]: `panelot/engine-v1`, Ops from UIs ([`Op`]) and events to them ([`AgentEvent`],
//!   sent as an [`EventFrame`] with an optional stream cursor).
//! * [`origin`]: [`Origin`] and [`OriginPattern`], the one origin parser of the workspace
//!   (homographs of sensitive hosts included).
//! * [`content`]: `panelot/content-v1`, requests to the TypeScript page executor and its results;
//!   exported to TypeScript with ts-rs.
//! * [`artifact`]: documents the agent saves in a thread, as the engine and the UI both read
//!   them (their kind, download type, which names can name a file); no wire type.
//!
//! Untrusted input is decoded in two phases: a [`Budget`] walk over the JSON tree, then strict
//! field validation that names the first bad field ([`decode_op`], [`decode_event`],
//! [`decode_content_request`], [`decode_content_response`]). Catalogs ([`OpKind`], [`EventKind`])
//! are generated from one table, so every `match` on them is exhaustive. [`command_fingerprint`]
//! keys idempotent command receipts; [`ENGINE_SCHEMA_HASH`] and [`CONTENT_SCHEMA_HASH`] are
//! derived from the type definitions.
//!
//! ```
//! use panelot_protocol::{decode_op_str, Op, OpKind};
//! let op = decode_op_str(r#"{"type":"ping","submissionId":"s-1"}"#)?;
//! assert_eq!(op.kind(), OpKind::Ping);
//! assert_eq!(op.submission_id().as_str(), "s-1");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod artifact;
mod budget;
mod canonical;
mod catalog;
pub mod content;
mod decode;
pub mod engine;
mod fingerprint;
mod ids;
pub mod origin;
mod schema_hash;
mod schema_hashes;
mod tagged;
mod text_value;
mod traced;

pub use budget::Budget;
pub use budget::BudgetExceeded;
pub use budget::BudgetLimit;
pub use budget::check_budget;
pub use canonical::canonical_json;
pub use canonical::sha256_hex;
pub use decode::DecodeError;
pub use decode::InitializeProbe;
pub use decode::decode_content_request;
pub use decode::decode_content_response;
pub use decode::decode_event;
pub use decode::decode_event_str;
pub use decode::decode_op;
pub use decode::decode_op_str;
pub use decode::parse_budgeted;
pub use decode::probe_initialize;
pub use engine::AgentEvent;
pub use engine::ENGINE_PROTOCOL;
pub use engine::EventFrame;
pub use engine::EventKind;
pub use engine::Op;
pub use engine::OpKind;
pub use fingerprint::command_fingerprint;
pub use ids::*;
pub use origin::Origin;
pub use origin::OriginError;
pub use origin::OriginPattern;
pub use origin::Scheme;
pub use schema_hash::compute_content_schema_hash;
pub use schema_hash::compute_engine_schema_hash;
pub use schema_hash::content_schema_document;
pub use schema_hash::engine_schema_document;
pub use schema_hashes::CONTENT_SCHEMA_HASH;
pub use schema_hashes::ENGINE_SCHEMA_HASH;
/// Used by [`internally_tagged!`]; not an API of its own.
#[doc(hidden)]
pub use tagged::untag as __untag;
pub use text_value::to_value;
pub use traced::TracedError;
pub use traced::from_value;
pub use traced::from_value_traced;
