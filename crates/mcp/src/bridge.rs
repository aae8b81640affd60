//! The JSON bridge between the engine host and the MCP module (`panelot-mcp-worker`), which runs
//! as its own wasm module in the service worker so the engine's wasm stays under its budget and
//! a trap on a hostile server's JSON does not take the engine down.
//!
//! * [`Command`]s go from the engine to the module, one JSON text each, and each gets one
//!   [`Reply`]: `configure` → `{}`, `connect` → `{"status": …}`, `call` → [`CallReply`],
//!   `cancel` → `{}`, `elicitAnswer` → `{}`, `resume` → [`CallReply`]. A command that cannot be read gets
//!   `{"ok": false, "error": {"kind": "badCommand", …}}`, never a panic.
//! * [`Event`]s go from the module to the engine through a callback: server `status`, the tool
//!   `catalog` after every successful listing, and `elicit` when a server asks the user.
//!
//! The module's side is [`crate::manager::McpManager`]. Both sides may use these types: they
//! serialize and deserialize the same shapes.

use panelot_protocol::engine::McpAuth;
use panelot_protocol::engine::McpConnectMode;
use panelot_protocol::engine::McpStatus;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Map;
use serde_json::Value;

use crate::error::McpError;
use crate::model::ElicitResult;
use crate::oauth::Credentials;
use crate::validate::CatalogTool;
use crate::validate::ToolCatalog;

/// The largest command read: a call's arguments or an elicitation answer, with room to spare.
pub const MAX_COMMAND_BYTES: usize = 4 * 1024 * 1024;

/// The time a call may take when the server's spec does not say (the protocol's default).
pub const DEFAULT_TIMEOUT_MS: u64 = panelot_protocol::engine::MCP_DEFAULT_TIMEOUT_MS;

/// What the engine asks of the module.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Command {
    /// The full desired set of servers; the module closes what left or changed and connects
    /// the enabled `startup` ones. Answered with `{}`.
    Configure {
        /// Every configured server, enabled or not.
        servers: Vec<ServerSpec>,
    },
    /// Connect (or retry, or list the tools again) now. Answered with `{"status": …}`. This
    /// is the user's Sign in / Connect in the settings, the only command that may open a
    /// sign-in window: an OAuth server without a usable sign-in, or one a call found lacking a
    /// scope, is signed in to through the host's browser first (an [`Event::Credentials`]
    /// follows).
    Connect {
        /// The server's id.
        server: String,
    },
    /// Call a tool by the name the model used. Answered with a [`CallReply`].
    Call {
        /// The engine's id for this call, for [`Command::Cancel`].
        call_id: String,
        /// `mcp__{server}__{tool}`.
        name: String,
        /// The arguments (a JSON object).
        #[serde(default)]
        arguments: Map<String, Value>,
        /// How long it may take; the server's `timeoutMs` when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
    },
    /// Stop a call: the server is sent `notifications/cancelled`. Answered with `{}`.
    Cancel {
        /// The call's id.
        call_id: String,
    },
    /// The prompts and resources of one server, or of every enabled one. Answered with
    /// [`Reply::Listed`].
    List {
        /// The server; every enabled one when absent.
        #[serde(default)]
        server: Option<String>,
    },
    /// Fills a prompt in. Answered with [`Reply::Fetched`] (a `GetPromptResult`) or an error.
    GetPrompt {
        /// The server.
        server: String,
        /// The prompt.
        name: String,
        /// Its arguments.
        #[serde(default)]
        arguments: Map<String, Value>,
    },
    /// Reads a resource. Answered with [`Reply::Fetched`] (`{contents}`) or an error.
    ReadResource {
        /// The server.
        server: String,
        /// The resource.
        uri: String,
    },
    /// The user's answer to an [`Event::Elicit`] asked before this module started (the worker
    /// was restarted meanwhile): answered in the call's session, then the call's result is
    /// read from its resumed stream. Answered with a [`CallReply`], like [`Command::Call`].
    Resume {
        /// The engine's id for this call, for [`Command::Cancel`].
        call_id: String,
        /// `mcp__{server}__{tool}`.
        name: String,
        /// The [`crate::ResumePoint`] the question came with, as the engine kept it.
        resume: String,
        /// What the user did, and the values when they accepted.
        result: ElicitResult,
    },
    /// The user's answer to an [`Event::Elicit`]. Answered with `{}`.
    ElicitAnswer {
        /// The elicitation's id.
        request_id: String,
        /// What the user did, and the values when they accepted.
        result: ElicitResult,
    },
}

/// One server as the engine configures it.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerSpec {
    /// Its slug, the `{server}` of its tools' names.
    pub id: String,
    /// The Streamable HTTP endpoint.
    pub url: String,
    /// Headers sent with every request as `[name, value]` pairs, already unsealed (with
    /// `Authorization: Bearer …` for bearer auth). Never printed by `Debug`.
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    /// How Panelot proves itself (decides how a 401 is worded).
    #[serde(default)]
    pub auth: McpAuth,
    /// A pre-registered OAuth client id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth_client_id: Option<String>,
    /// Whether it is used at all.
    pub enabled: bool,
    /// Connect at once or on first use.
    #[serde(default)]
    pub connect: McpConnectMode,
    /// How long one request may take.
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
    /// The OAuth sign-in, as the module sent it in an [`Event::Credentials`] and the engine
    /// stored it: its token goes into `Authorization`, refreshed when it expires or the server
    /// answers 401. Kept as JSON here so a stored sign-in that no longer reads costs only
    /// itself (the server then asks the user to sign in), not the whole `configure`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth_credentials: Option<Value>,
}

impl ServerSpec {
    /// Whether `other` needs a new connection: any change but the sign-in, which the module
    /// swaps in place (a refresh it made itself comes back this way).
    pub fn same_connection(&self, other: &ServerSpec) -> bool {
        ServerSpec { oauth_credentials: None, ..self.clone() }
            == ServerSpec { oauth_credentials: None, ..other.clone() }
    }

    /// The sign-in, when it reads.
    pub fn credentials(&self) -> Option<Credentials> {
        serde_json::from_value(self.oauth_credentials.clone()?).ok()
    }
}

fn default_timeout_ms() -> u64 {
    DEFAULT_TIMEOUT_MS
}

impl std::fmt::Debug for ServerSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Header values may be tokens: only their names are shown.
        let header_names: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("ServerSpec")
            .field("id", &self.id)
            .field("url", &self.url)
            .field("header_names", &header_names)
            .field("auth", &self.auth)
            .field("oauth_client_id", &self.oauth_client_id)
            .field("enabled", &self.enabled)
            .field("connect", &self.connect)
            .field("timeout_ms", &self.timeout_ms)
            .field("signed_in", &self.oauth_credentials.is_some())
            .finish()
    }
}

/// The answer to one command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Reply {
    /// `call`'s answer, and any command's failure.
    Call(CallReply),
    /// `list`'s answer, in the shapes of the engine's `mcp.listed` (`serverId` on each).
    Listed {
        /// Prompts.
        prompts: Vec<Value>,
        /// Resources.
        resources: Vec<Value>,
        /// Servers that could not be listed: `{serverId, reason}`.
        failures: Vec<Value>,
    },
    /// `getPrompt`'s and `readResource`'s answer.
    Fetched(FetchReply),
    /// `connect`'s answer: where the server stands after the attempt.
    Status {
        /// The status.
        status: McpStatus,
    },
    /// `configure`, `cancel` and `elicitAnswer`: `{}`.
    Done {},
}

impl Reply {
    /// A failed command.
    pub fn error(kind: ErrorKind, message: impl Into<String>) -> Reply {
        Reply::Call(CallReply::Err { ok: False, error: BridgeError::new(kind, message) })
    }

    /// The reply as JSON text.
    pub fn to_json(&self) -> String {
        // Serializing these types cannot fail (string keys, no non-finite floats from us);
        // should it, the engine still gets a typed error.
        serde_json::to_string(self).unwrap_or_else(|_| {
            r#"{"ok":false,"error":{"kind":"protocol","message":"the reply could not be written"}}"#
                .to_owned()
        })
    }
}

/// The answer to a `call`: `{"ok": true, "result": …}` or `{"ok": false, "error": …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CallReply {
    /// The server answered (possibly with `isError`, a failure meant for the model).
    Ok {
        /// Always `true`.
        ok: True,
        /// The result.
        result: ToolResult,
    },
    /// The call failed before the server answered it.
    Err {
        /// Always `false`.
        ok: False,
        /// What went wrong.
        error: BridgeError,
    },
}

/// A prompt filled in or a resource read: `{"ok": true, "result": …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FetchReply {
    /// Always `true`.
    pub ok: True,
    /// The server's result.
    pub result: Value,
}

/// A `true` that (de)serializes only as `true`, to tag [`CallReply`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct True;

/// A `false` that (de)serializes only as `false`, to tag [`CallReply`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct False;

macro_rules! bool_literal {
    ($ty:ident, $value:literal) => {
        impl Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_bool($value)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                if bool::deserialize(deserializer)? == $value {
                    Ok($ty)
                } else {
                    Err(serde::de::Error::custom(concat!("expected ", stringify!($value))))
                }
            }
        }
    };
}

bool_literal!(True, true);
bool_literal!(False, false);

/// A tool's result as the server gave it, checked against the budgets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// The MCP content items (`{"type": "text", "text": …}`, `image`, `audio`, `resource_link`,
    /// `resource`; an unknown type as `{"type": "unsupported", "kind": …}`).
    pub content: Vec<Value>,
    /// The tool failed; the error is in `content`, meant for the model.
    pub is_error: bool,
    /// Structured output, when the tool declares an output schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
}

/// Why a command failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{kind:?}: {message}")]
pub struct BridgeError {
    /// What kind of failure, for the engine to act on.
    pub kind: ErrorKind,
    /// What happened, in words a user can act on.
    pub message: String,
}

impl BridgeError {
    /// An error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> BridgeError {
        BridgeError { kind, message: message.into() }
    }
}

/// The kinds of [`BridgeError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ErrorKind {
    /// The command could not be read (not JSON, a wrong shape, too large).
    BadCommand,
    /// The module is not started (`mcp_start` was not called), or its wasm could not be
    /// loaded (the JS shim says so).
    NotStarted,
    /// The module trapped (a bug, or a server's answer it could not survive): every server is
    /// down until the service worker restarts. Written by the JS shim, never by the module.
    Crashed,
    /// No enabled server or no tool of its catalog has this name.
    UnknownTool,
    /// The server could not be connected; the message says why.
    NotConnected,
    /// Another call with this `callId` is under way.
    DuplicateCall,
    /// The call took longer than its timeout; the server was told to stop.
    Timeout,
    /// The engine cancelled the call (or the server was removed); the server was told to stop.
    Cancelled,
    /// The server needs (other) credentials.
    Unauthorized,
    /// The server could not be reached.
    Transport,
    /// The server answered with an unexpected HTTP status.
    Http,
    /// The server refused the request with a JSON-RPC error.
    Rpc,
    /// The server broke the protocol (garbage, a wrong shape, an unsupported version, a
    /// session it keeps expiring).
    Protocol,
    /// The server sent more than a budget allows.
    Budget,
    /// A call cut by a worker restart could not be read on: it may or may not have acted.
    Uncertain,
}

impl ErrorKind {
    /// The kind of a client error (a cancellation is [`ErrorKind::Cancelled`]; the manager
    /// tells a timeout apart itself).
    pub fn of(err: &McpError) -> ErrorKind {
        match err {
            McpError::Transport(_) => ErrorKind::Transport,
            McpError::Aborted => ErrorKind::Cancelled,
            McpError::Timeout { .. } => ErrorKind::Timeout,
            McpError::Unauthorized { .. } => ErrorKind::Unauthorized,
            McpError::Status { .. } => ErrorKind::Http,
            McpError::JsonRpc { .. } => ErrorKind::Rpc,
            McpError::SessionExpired
            | McpError::UnsupportedVersion { .. }
            | McpError::Protocol(_) => ErrorKind::Protocol,
            McpError::BudgetExceeded { .. } => ErrorKind::Budget,
        }
    }
}

/// What the module tells the engine on its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Event {
    /// A server's connection changed.
    Status {
        /// The server's id.
        server: String,
        /// Where it stands now.
        status: McpStatus,
    },
    /// A server's tools, after every successful listing (at connect, after
    /// `notifications/tools/list_changed`, on `connect`). A failed listing sends none: the
    /// last good catalog stays, and the failure shows in the status.
    Catalog {
        /// The server's id.
        server: String,
        /// The usable tools, in the server's order.
        tools: Vec<CatalogEntry>,
        /// The tools left out, with why.
        rejected: Vec<RejectedEntry>,
    },
    /// A server asks the user (form-mode elicitation). Its request waits for
    /// [`Command::ElicitAnswer`] with this `requestId`, or until the call that caused it ends.
    Elicit {
        /// The id to answer with.
        request_id: String,
        /// The server's id.
        server: String,
        /// What the server asks (untrusted text).
        message: String,
        /// A JSON Schema object of primitive fields.
        schema: Value,
        /// Where the call stands ([`crate::ResumePoint`] as text), when its server's stream can
        /// be resumed: the engine keeps it with the card, so an answer given after a worker
        /// restart still reaches the server ([`Command::Resume`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resume: Option<String>,
    },
    /// The module signed in (on `connect`) or signed in again (refreshed an expired or refused
    /// OAuth token): the engine seals and keeps these in place of the old ones, and sends them
    /// back as the server's `oauthCredentials`. With a rotating refresh token the old one is already spent.
    Credentials {
        /// The server's id.
        server: String,
        /// The new sign-in (tokens inside: never logged).
        credentials: Credentials,
    },
    /// The module trapped; pending commands were answered with [`ErrorKind::Crashed`] and
    /// later ones will be too, until the service worker restarts. Sent by the JS shim, never by
    /// the module.
    Crashed {
        /// What the trap said.
        message: String,
    },
}

impl Event {
    /// The event as JSON text.
    pub fn to_json(&self) -> String {
        // As for replies: these types always serialize; an empty object is ignored upstream.
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_owned())
    }
}

/// One usable tool of a catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogEntry {
    /// `mcp__{server}__{tool}`, the name the model calls.
    pub exposed_name: String,
    /// The server's name for it.
    pub name: String,
    /// Its display title (the name when it has none).
    pub title: String,
    /// What it does (possibly cut; empty when the server gave none). Untrusted.
    pub description: String,
    /// A JSON Schema object for the arguments.
    pub input_schema: Value,
    /// The server claims it changes nothing (`readOnlyHint`); a hint, never a permission.
    pub read_only: bool,
}

/// A tool left out of a catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RejectedEntry {
    /// Its name as sent.
    pub name: String,
    /// Why, in words.
    pub reason: String,
}

impl From<&CatalogTool> for CatalogEntry {
    fn from(entry: &CatalogTool) -> CatalogEntry {
        let tool = &entry.tool;
        CatalogEntry {
            exposed_name: entry.exposed_name.clone(),
            name: tool.name.clone(),
            title: tool.display_title().to_owned(),
            description: tool.description.clone().unwrap_or_default(),
            input_schema: tool.input_schema.clone(),
            read_only: tool
                .annotations
                .as_ref()
                .and_then(|annotations| annotations.read_only_hint)
                .unwrap_or(false),
        }
    }
}

impl Event {
    /// The `catalog` event of `server`.
    pub fn catalog(server: &str, catalog: &ToolCatalog) -> Event {
        Event::Catalog {
            server: server.to_owned(),
            tools: catalog.tools.iter().map(CatalogEntry::from).collect(),
            rejected: catalog
                .rejected
                .iter()
                .map(|rejected| RejectedEntry {
                    name: rejected.name.clone(),
                    reason: rejected.reason.clone(),
                })
                .collect(),
        }
    }
}

/// Reads a command, within [`MAX_COMMAND_BYTES`].
pub fn decode_command(json: &str) -> Result<Command, BridgeError> {
    if json.len() > MAX_COMMAND_BYTES {
        return Err(BridgeError::new(
            ErrorKind::BadCommand,
            format!("the command has {} bytes, more than {MAX_COMMAND_BYTES}", json.len()),
        ));
    }
    serde_json::from_str(json).map_err(|err| {
        // serde's message may quote a value; cut it so a stray secret is not echoed whole.
        let message: String = err.to_string().chars().take(200).collect();
        BridgeError::new(ErrorKind::BadCommand, format!("the command is not valid: {message}"))
    })
}

#[cfg(test)]
#[path = "bridge_tests.rs"]
mod tests;
