//! Two-phase decoding of untrusted messages: a resource-budget walk, then strict field
//! validation that names the first bad field.

use serde_json::Value;

use crate::budget::Budget;
use crate::budget::BudgetExceeded;
use crate::budget::check_budget;
use crate::budget::check_raw_size;
use crate::content::ContentOp;
use crate::content::ContentRequest;
use crate::content::ContentResponse;
use crate::engine::AgentEvent;
use crate::engine::EventFrame;
use crate::engine::EventKind;
use crate::engine::InteractionResponse;
use crate::engine::Op;
use crate::engine::OpKind;
use crate::engine::StreamCursor;
use crate::traced::TracedError;
use crate::traced::from_value_traced;

/// Why a message was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The text is not JSON.
    #[error("malformed JSON: {0}")]
    Syntax(String),
    /// The message is over a resource budget.
    #[error("message over budget: {0}")]
    Budget(#[from] BudgetExceeded),
    /// The message is not a JSON object.
    #[error("message is not a JSON object")]
    NotAnObject,
    /// The message has no string `type` field.
    #[error("message has no string field `type`")]
    MissingType,
    /// The type is not in the catalog. UIs ignore unknown event types; the engine rejects
    /// unknown Ops.
    #[error("unknown message type {0:?}")]
    UnknownType(String),
    /// A known type with a missing, mistyped or out-of-range field.
    #[error("invalid `{kind}`: at `{path}`: {message}")]
    Field {
        /// The message type.
        kind: String,
        /// Path of the first bad field.
        path: String,
        /// What is wrong.
        message: String,
    },
}

/// The path of a field error that was not traced.
pub(crate) const UNTRACED: &str = "?";

impl DecodeError {
    fn field(kind: &str, path: impl Into<String>, message: impl Into<String>) -> Self {
        DecodeError::Field { kind: kind.to_owned(), path: path.into(), message: message.into() }
    }

    fn from_traced(kind: &str, err: TracedError) -> Self {
        DecodeError::field(kind, err.path, err.error.to_string())
    }
}

/// Deserializes a field that may be absent (`None`, with `#[serde(default)]`), `null`
/// (`Some(None)`: clear it) or a value (`Some(Some(v))`), which plain serde conflates.
pub(crate) fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    serde::Deserialize::deserialize(deserializer).map(Some)
}

/// Parses text into JSON after checking its size against `budget`, then checks the tree.
pub fn parse_budgeted(text: &str, budget: &Budget) -> Result<Value, DecodeError> {
    check_raw_size(text.len(), budget)?;
    let value: Value =
        serde_json::from_str(text).map_err(|err| DecodeError::Syntax(err.to_string()))?;
    check_budget(&value, budget)?;
    Ok(value)
}

/// Splits a message into its `type` string and its other fields.
fn split_type(value: Value) -> Result<(String, Value), DecodeError> {
    let Value::Object(mut fields) = value else {
        return Err(DecodeError::NotAnObject);
    };
    let Some(Value::String(type_name)) = fields.remove("type") else {
        return Err(DecodeError::MissingType);
    };
    Ok((type_name, Value::Object(fields)))
}

/// Decodes an Op from text: budget, then fields.
pub fn decode_op_str(text: &str) -> Result<Op, DecodeError> {
    decode_op(parse_budgeted(text, &Budget::OP)?)
}

/// Decodes an Op: budget walk, catalog lookup, strict fields (a bad one is named by its path),
/// then the bounds of nested values.
pub fn decode_op(value: Value) -> Result<Op, DecodeError> {
    check_budget(&value, &Budget::OP)?;
    let (type_name, fields) = split_type(value)?;
    let kind = OpKind::from_wire_name(&type_name).ok_or(DecodeError::UnknownType(type_name))?;
    let op = Op::decode_fields(kind, fields)
        .map_err(|err| DecodeError::from_traced(kind.wire_name(), err))?;
    if let Op::InteractionResponse(params) = &op {
        check_interaction_value(&params.response)?;
    }
    Ok(op)
}

fn check_interaction_value(response: &InteractionResponse) -> Result<(), DecodeError> {
    let value = match response {
        InteractionResponse::Submit { value }
        | InteractionResponse::Timeout { value: Some(value) } => value,
        InteractionResponse::Cancel { .. } | InteractionResponse::Timeout { value: None } => {
            return Ok(());
        }
    };
    check_budget(value, &Budget::INTERACTION_VALUE).map_err(|err| {
        DecodeError::field(
            OpKind::InteractionResponse.wire_name(),
            "response.value",
            err.to_string(),
        )
    })
}

/// Decodes an event frame from text.
pub fn decode_event_str(text: &str) -> Result<EventFrame, DecodeError> {
    decode_event(parse_budgeted(text, &Budget::EVENT)?)
}

/// Decodes an event frame: budget walk, optional `stream` cursor, catalog lookup, strict fields.
/// An unknown type is [`DecodeError::UnknownType`], which UIs ignore.
pub fn decode_event(value: Value) -> Result<EventFrame, DecodeError> {
    check_budget(&value, &Budget::EVENT)?;
    let (type_name, fields) = split_type(value)?;
    let kind = EventKind::from_wire_name(&type_name).ok_or(DecodeError::UnknownType(type_name))?;
    let Value::Object(mut fields) = fields else {
        return Err(DecodeError::NotAnObject);
    };
    let stream = match fields.remove("stream") {
        None => None,
        Some(raw) => Some(from_value_traced::<StreamCursor>(raw).map_err(|err| {
            let inner = DecodeError::from_traced(kind.wire_name(), err);
            prefix_path(inner, "stream")
        })?),
    };
    // Events come from the engine the UI was built with (the schema hash is checked at
    // `initialize`), so a bad one is a bug to log, not input to explain: tracing its path would
    // add a second copy of every event decoder to the UI's wasm.
    let event = AgentEvent::decode_fields_untraced(kind, Value::Object(fields))
        .map_err(|err| DecodeError::field(kind.wire_name(), UNTRACED, err.to_string()))?;
    Ok(EventFrame { event, stream })
}

fn prefix_path(err: DecodeError, prefix: &str) -> DecodeError {
    match err {
        DecodeError::Field { kind, path, message } => {
            let path = if path == "." { prefix.to_owned() } else { format!("{prefix}.{path}") };
            DecodeError::Field { kind, path, message }
        }
        other => other,
    }
}

impl EventFrame {
    /// The frame as JSON text, written directly (no intermediate value tree): the event's object
    /// with `stream` added as its last member when present.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        let mut text = serde_json::to_string(&self.event)?;
        if let Some(stream) = &self.stream {
            // An event always serializes to a JSON object, so its text ends with `}`.
            if text.ends_with('}') {
                text.pop();
                let separator = if text.ends_with('{') { "" } else { "," };
                text.push_str(separator);
                text.push_str("\"stream\":");
                text.push_str(&serde_json::to_string(stream)?);
                text.push('}');
            }
        }
        Ok(text)
    }

    /// The frame as a JSON object: the event's fields, plus `stream` when present.
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        let mut value = crate::text_value::to_value(&self.event)?;
        if let (Some(stream), Value::Object(fields)) = (&self.stream, &mut value) {
            fields.insert("stream".to_owned(), crate::text_value::to_value(stream)?);
        }
        Ok(value)
    }
}

/// Decodes a page-executor request: budget, strict fields, then parameter ranges.
pub fn decode_content_request(value: Value) -> Result<ContentRequest, DecodeError> {
    check_budget(&value, &Budget::CONTENT)?;
    let request: ContentRequest =
        from_value_traced(value).map_err(|err| DecodeError::from_traced("content.request", err))?;
    if let ContentOp::Execute { call } = &request.op {
        call.check_ranges().map_err(|err| {
            DecodeError::field("content.request", format!("op.call.{}", err.path), err.problem)
        })?;
    }
    Ok(request)
}

/// Decodes a page-executor response: budget, then strict fields.
pub fn decode_content_response(value: Value) -> Result<ContentResponse, DecodeError> {
    check_budget(&value, &Budget::CONTENT)?;
    from_value_traced(value).map_err(|err| DecodeError::from_traced("content.response", err))
}

/// The few fields of an `initialize` that every protocol version shares, read leniently so that
/// a client of another version can still be told to reload.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InitializeProbe {
    /// The client's submission id, as sent (may be empty).
    pub submission_id: String,
    /// The client's protocol name.
    pub protocol: String,
    /// The client's schema hash.
    pub schema_hash: String,
}

/// Reads the version fields of something that claims to be an `initialize`.
pub fn probe_initialize(value: &Value) -> Option<InitializeProbe> {
    let fields = value.as_object()?;
    if fields.get("type")?.as_str()? != OpKind::Initialize.wire_name() {
        return None;
    }
    let text = |key: &str| fields.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    Some(InitializeProbe {
        submission_id: text("submissionId"),
        protocol: text("protocol"),
        schema_hash: text("schemaHash"),
    })
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
