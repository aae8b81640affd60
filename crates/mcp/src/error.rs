//! What can go wrong talking to an MCP server, typed so the engine can tell a server to
//! re-authorize from one that is down, one that broke the protocol, and one that is too big.

use panelot_providers::HttpError;

use crate::challenge::BearerChallenge;

/// A failed MCP operation.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum McpError {
    /// The request got no answer (connection refused, cut, invalid URL).
    #[error("MCP transport failed: {0}")]
    Transport(HttpError),
    /// The caller aborted; for a request, `notifications/cancelled` was sent.
    #[error("the MCP request was cancelled")]
    Aborted,
    /// The server did not answer in time; `notifications/cancelled` was sent.
    #[error("the MCP server did not answer within {ms} ms")]
    Timeout {
        /// The timeout.
        ms: u64,
    },
    /// The server needs (other) credentials: 401, or 403 with a Bearer challenge
    /// (`insufficient_scope` asks for a step-up).
    #[error("the MCP server needs authorization (HTTP {status})")]
    Unauthorized {
        /// 401 or 403.
        status: u16,
        /// The parsed `WWW-Authenticate: Bearer` challenge, if the server sent one.
        challenge: Option<BearerChallenge>,
    },
    /// The server answered with another unexpected HTTP status.
    #[error("the MCP server answered HTTP {status}: {excerpt}")]
    Status {
        /// The status.
        status: u16,
        /// The start of the body, for the person reading the error.
        excerpt: String,
    },
    /// The session expired (404) and a fresh one expired again at once.
    #[error("the MCP session expired and could not be renewed")]
    SessionExpired,
    /// The server answered the request with a JSON-RPC error.
    #[error("the MCP server refused the request: {message} (code {code})")]
    JsonRpc {
        /// The error code.
        code: i64,
        /// The server's message (capped).
        message: String,
    },
    /// The server offered a protocol version this client does not speak.
    #[error("the MCP server speaks protocol version {offered:?}, which Panelot does not support")]
    UnsupportedVersion {
        /// What the server answered.
        offered: String,
    },
    /// The server broke the protocol (garbage, wrong shapes, a stream that ends early).
    #[error("the MCP server broke the protocol: {0}")]
    Protocol(String),
    /// The server sent more than a budget allows.
    #[error("the MCP server sent too much: {budget} exceeds {limit}")]
    BudgetExceeded {
        /// Which budget.
        budget: Budget,
        /// Its limit.
        limit: usize,
    },
}

/// The budgets a server's messages are held to (see [`crate::Budgets`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// Bytes of one JSON-RPC message.
    MessageBytes,
    /// Bytes of text in one result.
    ResultText,
    /// Entries of one catalog (tools, prompts or resources) across pages.
    CatalogEntries,
    /// Pages of one listing.
    Pages,
}

impl std::fmt::Display for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Budget::MessageBytes => "the bytes of one message",
            Budget::ResultText => "the text of one result",
            Budget::CatalogEntries => "the entries of a catalog",
            Budget::Pages => "the pages of a listing",
        })
    }
}

impl From<HttpError> for McpError {
    fn from(err: HttpError) -> Self {
        match err {
            HttpError::Aborted => McpError::Aborted,
            other => McpError::Transport(other),
        }
    }
}
