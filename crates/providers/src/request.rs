//! What a request builder produces: a path, headers (secrets marked) and a JSON body.

use std::fmt;

/// An HTTP request for one model call, without the base URL.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderRequest {
    /// Path below the connection's base URL (join with [`join_url`]).
    pub path: &'static str,
    /// Headers to send, credentials included.
    pub headers: Vec<Header>,
    /// The JSON body.
    pub body: serde_json::Value,
}

/// One request header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Lowercase header name.
    pub name: &'static str,
    /// Its value.
    pub value: HeaderValue,
}

/// A header value; secret values never appear in `Debug` output, so requests can be logged.
#[derive(Clone, PartialEq, Eq)]
pub enum HeaderValue {
    /// A value safe to log.
    Plain(String),
    /// A credential.
    Secret(String),
}

impl HeaderValue {
    /// The value to put on the wire.
    pub fn expose(&self) -> &str {
        match self {
            HeaderValue::Plain(value) | HeaderValue::Secret(value) => value,
        }
    }
}

impl fmt::Debug for HeaderValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderValue::Plain(value) => f.debug_tuple("Plain").field(value).finish(),
            HeaderValue::Secret(_) => f.write_str("Secret([redacted])"),
        }
    }
}

impl Header {
    pub(crate) fn plain(name: &'static str, value: &str) -> Header {
        Header { name, value: HeaderValue::Plain(value.to_owned()) }
    }

    pub(crate) fn secret(name: &'static str, value: String) -> Header {
        Header { name, value: HeaderValue::Secret(value) }
    }
}

/// `base` and `path` joined by one slash. A base ending in `/v1` and a path starting with `v1/`
/// share the segment, since users paste Anthropic base URLs both with and without it.
pub fn join_url(base: &str, path: &str) -> String {
    let base = base.trim_end_matches('/');
    let path = path.trim_start_matches('/');
    let path = match path.strip_prefix("v1/") {
        Some(rest) if base.ends_with("/v1") => rest,
        Some(_) | None => path,
    };
    format!("{base}/{path}")
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
