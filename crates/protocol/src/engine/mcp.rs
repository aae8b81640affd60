//! MCP servers as the settings page edits and shows them: what the user saved (secrets go in,
//! never come back out), what the engine knows of each server now (status, tools), and the last
//! calls made to it.
//!
//! A server's `id` is its slug in tool names (`mcp__{id}__{tool}`): 1 to
//! [`MCP_SERVER_ID_MAX_CHARS`] of `[a-z0-9-]`, starting with a letter or digit, made by the
//! engine from the name when a server is added ([`mcp_server_id`]).

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use super::settings::HeaderInput;

/// Longest server id (what fits in a 64-character tool name with room for the tool's own).
pub const MCP_SERVER_ID_MAX_CHARS: usize = 20;
/// The most servers a profile may hold.
pub const MCP_MAX_SERVERS: usize = 32;
/// Calls remembered per server for the settings page.
pub const MCP_RECENT_CALLS: usize = 50;
/// Default time a tool call may take before it is cancelled at the server.
pub const MCP_DEFAULT_TIMEOUT_MS: u64 = 60_000;

/// How Panelot proves itself to a server.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum McpAuth {
    /// No credentials.
    #[default]
    None,
    /// A bearer token the user pasted (sealed at rest).
    Bearer,
    /// OAuth 2.1 as the MCP authorization spec describes, started from the server's 401.
    Oauth,
}

/// When a server is connected.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum McpConnectMode {
    /// As soon as the engine starts (its tools are known before the first turn).
    #[default]
    Startup,
    /// On first use, or when the user asks.
    Lazy,
}

crate::internally_tagged! {
    #[serde(tag = "state", rename_all = "snake_case")]
    /// Where a server's connection stands.
    #[derive(Serialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
    pub enum McpStatus {
        /// Not connected (switched off, lazy and unused yet, or closed).
        Disconnected,
        /// Connecting or listing tools.
        Connecting,
        /// Connected, with this many tools listed.
        Ready {
            /// Tools in its catalog.
            tools: u32,
        },
        /// The server wants the user to sign in (OAuth) before it answers.
        NeedsAuthorization {
            /// Why, in words.
            reason: String,
            /// The origins (`scheme://host[:port]`) the sign-in fetches from, as far as discovery
            /// learned them: the server's first, then its authorization server's (metadata, token
            /// and registration endpoints). The settings' Sign in asks the browser for host access
            /// to exactly these, inside the click; empty when nothing is known yet.
            #[serde(default)]
            origins: Vec<String>,
        },
        /// The last attempt failed.
        Error {
            /// Why, in words a user can act on.
            reason: String,
        },
    }
}

/// Disconnected.
impl Default for McpStatus {
    fn default() -> Self {
        McpStatus::Disconnected
    }
}

/// A server as the settings form sends it.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpServerInput {
    /// The server to replace; `None` adds one (its id made from `name`).
    pub id: Option<String>,
    /// Display name (1 to 100 characters).
    pub name: String,
    /// The Streamable HTTP endpoint (HTTPS, or HTTP to this machine).
    pub url: String,
    /// How Panelot proves itself.
    pub auth: McpAuth,
    /// The bearer token as typed; `None` keeps the stored one.
    #[serde(default)]
    pub bearer_token: Option<String>,
    /// A pre-registered OAuth client id; without one the client registers itself (RFC 7591).
    #[serde(default)]
    pub oauth_client_id: Option<String>,
    /// Extra headers; `None` keeps the stored ones.
    #[serde(default)]
    pub custom_headers: Option<Vec<HeaderInput>>,
    /// Whether it is used.
    pub enabled: bool,
    /// When it is connected.
    #[serde(default)]
    pub connect: McpConnectMode,
    /// Server tool names the model is not offered.
    #[serde(default)]
    pub disabled_tools: Vec<String>,
    /// Time a call may take (ms); the default when `None`.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// One tool of a server's catalog, as the settings page shows it.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpToolView {
    /// The server's name for it.
    pub name: String,
    /// The name the model calls (`mcp__{server}__{tool}`).
    pub exposed_name: String,
    /// Its title (the name when it has none).
    pub title: String,
    /// What it does, as the server says (untrusted text, shown as text).
    pub description: String,
    /// Whether the model is offered it.
    pub enabled: bool,
}

/// How a call to a server ended.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum McpCallOutcome {
    /// The server answered.
    Ok,
    /// The server answered with an error, or the call failed.
    Error,
    /// Denied by a rule or the user; never sent.
    Denied,
    /// Stopped before the server answered.
    Cancelled,
}

/// A recent call to a server.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpCallView {
    /// The server's tool name.
    pub tool: String,
    /// When it ended (ms since the Unix epoch).
    pub at_ms: u64,
    /// How it ended.
    pub outcome: McpCallOutcome,
    /// The error, in words, when it failed.
    pub detail: Option<String>,
}

/// A server as the settings page may see it: never a secret.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpServerView {
    /// Its id, the `{server}` of its tools' names.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Its endpoint.
    pub url: String,
    /// How Panelot proves itself.
    pub auth: McpAuth,
    /// Whether a bearer token is stored.
    pub has_bearer_token: bool,
    /// The pre-registered OAuth client id, if any.
    pub oauth_client_id: Option<String>,
    /// Names of the extra headers (their values never come back).
    pub header_names: Vec<String>,
    /// Whether it is used.
    pub enabled: bool,
    /// When it is connected.
    pub connect: McpConnectMode,
    /// Server tool names the model is not offered.
    pub disabled_tools: Vec<String>,
    /// Time a call may take (ms).
    pub timeout_ms: u64,
    /// Where its connection stands now.
    pub status: McpStatus,
    /// Its catalog as last listed (kept when a refresh fails).
    pub tools: Vec<McpToolView>,
    /// The last calls, newest first (at most [`MCP_RECENT_CALLS`]).
    pub recent_calls: Vec<McpCallView>,
    /// About how many tokens its offered tools add to every model call (their specs' characters
    /// / 4); 0 when it offers none. Switching tools off is how a user keeps the cost down.
    #[serde(default)]
    pub offered_tokens: u32,
}

/// One entry of a pasted `mcpServers` snippet (Claude Code, Cursor, VS Code).
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum McpImportEntry {
    /// A remote server Panelot can add.
    Remote {
        /// The server as the form would send it.
        server: McpServerInput,
    },
    /// A local server started by a command: it needs Panelot's native host.
    NeedsNativeHost {
        /// Its name in the snippet.
        name: String,
        /// The command it runs.
        command: String,
    },
    /// An entry that could not be read.
    Invalid {
        /// Its name in the snippet.
        name: String,
        /// Why, in words.
        reason: String,
    },
}

/// Why a pasted snippet could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpImportError {
    /// Not JSON.
    #[error("this is not JSON: {0}")]
    NotJson(String),
    /// JSON without servers in it.
    #[error(
        "no servers found: expected an object of servers, or one under \"mcpServers\" or \"servers\""
    )]
    NoServers,
    /// Too large to be a settings snippet.
    #[error("the snippet is larger than {MCP_IMPORT_MAX_BYTES} bytes")]
    TooLarge,
}

/// Largest snippet read.
pub const MCP_IMPORT_MAX_BYTES: usize = 256 * 1024;

/// Reads a pasted `mcpServers` snippet: `{"mcpServers": {...}}` (Claude Code, Cursor),
/// `{"servers": {...}}` (VS Code) or the inner object alone. Remote entries (`url`, or
/// `serverUrl`; `type` of `http`, `streamable-http`, `sse` or absent) become servers to add,
/// their `headers` kept; an `Authorization: Bearer …` header becomes the bearer token. Entries
/// with a `command` are reported as needing the native host.
pub fn parse_mcp_import(text: &str) -> Result<Vec<McpImportEntry>, McpImportError> {
    use serde_json::Value;
    if text.len() > MCP_IMPORT_MAX_BYTES {
        return Err(McpImportError::TooLarge);
    }
    let root: Value =
        serde_json::from_str(text.trim()).map_err(|e| McpImportError::NotJson(e.to_string()))?;
    let servers = ["mcpServers", "servers", "mcp_servers"]
        .iter()
        .find_map(|key| root.get(key))
        .unwrap_or(&root);
    let Value::Object(servers) = servers else { return Err(McpImportError::NoServers) };
    if servers.is_empty() || servers.values().any(|v| !v.is_object()) {
        return Err(McpImportError::NoServers);
    }
    Ok(servers.iter().map(|(name, entry)| import_entry(name, entry)).collect())
}

fn import_entry(name: &str, entry: &serde_json::Value) -> McpImportEntry {
    use serde_json::Value;
    let text = |key: &str| entry.get(key).and_then(Value::as_str).map(str::trim);
    let invalid =
        |reason: &str| McpImportEntry::Invalid { name: name.to_owned(), reason: reason.to_owned() };
    if let Some(command) = text("command") {
        return McpImportEntry::NeedsNativeHost {
            name: name.to_owned(),
            command: command.to_owned(),
        };
    }
    let Some(url) = text("url").or_else(|| text("serverUrl")).filter(|u| !u.is_empty()) else {
        return invalid("it has neither a url nor a command");
    };
    match text("type").or_else(|| text("transport")) {
        None | Some("http" | "streamable-http" | "streamableHttp" | "sse") => {}
        Some(other) => return invalid(&format!("transport \"{other}\" is not supported")),
    }
    let mut bearer_token = None;
    let mut headers = Vec::new();
    if let Some(Value::Object(map)) = entry.get("headers") {
        for (header, value) in map {
            let Some(value) = value.as_str() else {
                return invalid(&format!("header \"{header}\" is not text"));
            };
            let bearer = value.strip_prefix("Bearer ").or_else(|| value.strip_prefix("bearer "));
            match (header.eq_ignore_ascii_case("authorization"), bearer) {
                (true, Some(token)) => bearer_token = Some(token.trim().to_owned()),
                _ => headers.push(HeaderInput { name: header.clone(), value: value.to_owned() }),
            }
        }
    }
    let disabled = entry.get("disabled").and_then(Value::as_bool).unwrap_or(false);
    let auth = if bearer_token.is_some() { McpAuth::Bearer } else { McpAuth::None };
    McpImportEntry::Remote {
        server: McpServerInput {
            id: None,
            name: name.to_owned(),
            url: url.to_owned(),
            auth,
            bearer_token,
            oauth_client_id: None,
            custom_headers: Some(headers),
            enabled: !disabled,
            connect: McpConnectMode::Startup,
            disabled_tools: Vec::new(),
            timeout_ms: None,
        },
    }
}

/// A server id made from a display name: lowercase ASCII letters and digits kept, every run of
/// anything else one `-`, cut to [`MCP_SERVER_ID_MAX_CHARS`]; `server` when nothing is left.
/// The engine appends `-2`, `-3`… when the id is taken.
pub fn mcp_server_id(name: &str) -> String {
    let mut id = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        match c {
            'a'..='z' | '0'..='9' => id.push(c),
            _ if !id.is_empty() && !id.ends_with('-') => id.push('-'),
            _ => {}
        }
    }
    id.truncate(MCP_SERVER_ID_MAX_CHARS);
    let id = id.trim_end_matches('-');
    if id.is_empty() { "server".to_owned() } else { id.to_owned() }
}

/// Whether `id` is a server id: 1 to [`MCP_SERVER_ID_MAX_CHARS`] of `[a-z0-9-]`, starting with
/// a letter or digit.
pub fn is_mcp_server_id(id: &str) -> bool {
    (1..=MCP_SERVER_ID_MAX_CHARS).contains(&id.len())
        && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !id.starts_with('-')
}

/// An argument of an MCP prompt.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpPromptArgumentView {
    /// Its name.
    pub name: String,
    /// What it is for (server text).
    pub description: Option<String>,
    /// Whether the prompt needs it.
    pub required: bool,
}

/// A prompt a server offers, as the composer lists it (`/server:prompt`).
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpPromptView {
    /// The server.
    pub server_id: String,
    /// The prompt's name.
    pub name: String,
    /// Its title (the name when it has none).
    pub title: String,
    /// What it does (server text).
    pub description: Option<String>,
    /// Its arguments, asked for in a small form.
    pub arguments: Vec<McpPromptArgumentView>,
}

/// A resource a server offers, as the composer lists it.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpResourceView {
    /// The server.
    pub server_id: String,
    /// Its URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// Its title (the name when it has none).
    pub title: String,
    /// What it holds (server text).
    pub description: Option<String>,
    /// Its MIME type, when the server says.
    pub mime_type: Option<String>,
}

/// A server that could not be listed, and why.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpListFailure {
    /// The server.
    pub server_id: String,
    /// Why, in words.
    pub reason: String,
}

crate::internally_tagged! {
    #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
    /// What `mcp.fetch` gets: a prompt with its arguments, or a resource.
    #[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
    pub enum McpFetch {
        /// A prompt, filled in.
        Prompt {
            /// Its name.
            name: String,
            /// Its arguments by name.
            #[serde(default)]
            arguments: std::collections::BTreeMap<String, String>,
        },
        /// A resource, read.
        Resource {
            /// Its URI.
            uri: String,
        },
    }
}

#[cfg(test)]
#[path = "mcp_tests.rs"]
mod tests;
