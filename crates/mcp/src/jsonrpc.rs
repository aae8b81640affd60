//! JSON-RPC 2.0 framing as MCP uses it: ids, the four kinds of message, and their
//! classification from untrusted JSON into [`Incoming`] with a protocol error for anything else.

use serde::Deserialize;
use serde::Serialize;
use serde_json::Map;
use serde_json::Value;

/// A request id: MCP allows a string or an integer (never null).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id (ours are always integers).
    Number(i64),
    /// A string id (servers may use these for their requests).
    String(String),
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// The error member of a JSON-RPC error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcError {
    /// The error code (`-32601` method not found, `-32602` invalid params, ...).
    pub code: i64,
    /// The server's message.
    pub message: String,
    /// Extra data the server attached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// JSON-RPC code: the method does not exist (or is not offered to this peer).
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC code: the params are wrong.
pub const INVALID_PARAMS: i64 = -32602;

/// One message from a server, classified.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A request the client must answer (`ping`, `elicitation/create`, ...).
    Request {
        /// Its id, echoed in the answer.
        id: RequestId,
        /// The method.
        method: String,
        /// Its params (`None` when absent).
        params: Option<Value>,
    },
    /// A notification (`notifications/tools/list_changed`, ...).
    Notification {
        /// The method.
        method: String,
        /// Its params (`None` when absent).
        params: Option<Value>,
    },
    /// A successful response.
    Response {
        /// The id of the request it answers.
        id: RequestId,
        /// The result.
        result: Value,
    },
    /// An error response; the id is absent when the server could not read the request's.
    Error {
        /// The id of the request it answers, if the server knew it.
        id: Option<RequestId>,
        /// The error.
        error: JsonRpcError,
    },
}

/// Classifies one parsed JSON value as a JSON-RPC 2.0 message; the error says what is wrong in
/// words (it ends up in a protocol-violation error, never shows server text beyond names).
pub fn classify(value: Value) -> Result<Incoming, String> {
    let Value::Object(mut object) = value else {
        return Err("a message is not a JSON object".to_owned());
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err("a message lacks \"jsonrpc\": \"2.0\"".to_owned());
    }
    let id = match object.remove("id") {
        None | Some(Value::Null) => None,
        Some(value) => Some(parse_id(value)?),
    };
    if let Some(method) = object.remove("method") {
        let Value::String(method) = method else {
            return Err("a message's method is not a string".to_owned());
        };
        let params = object.remove("params");
        return Ok(match id {
            Some(id) => Incoming::Request { id, method, params },
            None => Incoming::Notification { method, params },
        });
    }
    if let Some(result) = object.remove("result") {
        let id = id.ok_or_else(|| "a response has no id".to_owned())?;
        return Ok(Incoming::Response { id, result });
    }
    if let Some(error) = object.remove("error") {
        let error: JsonRpcError = serde_json::from_value(error)
            .map_err(|_| "an error response's error is not {code, message}".to_owned())?;
        return Ok(Incoming::Error { id, error });
    }
    Err("a message is neither a request, a notification nor a response".to_owned())
}

fn parse_id(value: Value) -> Result<RequestId, String> {
    match value {
        Value::String(id) => Ok(RequestId::String(id)),
        Value::Number(n) => {
            n.as_i64().map(RequestId::Number).ok_or_else(|| "a message id is not an integer".into())
        }
        _ => Err("a message id is neither a string nor an integer".to_owned()),
    }
}

/// The JSON of a request.
pub fn request(id: &RequestId, method: &str, params: Option<Value>) -> Value {
    let mut object = envelope();
    object.insert("id".to_owned(), serde_json::to_value(id).unwrap_or(Value::Null));
    object.insert("method".to_owned(), Value::String(method.to_owned()));
    if let Some(params) = params {
        object.insert("params".to_owned(), params);
    }
    Value::Object(object)
}

/// The JSON of a notification.
pub fn notification(method: &str, params: Option<Value>) -> Value {
    let mut object = envelope();
    object.insert("method".to_owned(), Value::String(method.to_owned()));
    if let Some(params) = params {
        object.insert("params".to_owned(), params);
    }
    Value::Object(object)
}

/// The JSON of our answer to a server's request.
pub fn response(id: &RequestId, outcome: Result<Value, JsonRpcError>) -> Value {
    let mut object = envelope();
    object.insert("id".to_owned(), serde_json::to_value(id).unwrap_or(Value::Null));
    match outcome {
        Ok(result) => object.insert("result".to_owned(), result),
        Err(error) => {
            object.insert("error".to_owned(), serde_json::to_value(error).unwrap_or(Value::Null))
        }
    };
    Value::Object(object)
}

fn envelope() -> Map<String, Value> {
    let mut object = Map::new();
    object.insert("jsonrpc".to_owned(), Value::String("2.0".to_owned()));
    object
}
