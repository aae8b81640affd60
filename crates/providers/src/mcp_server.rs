//! MCP servers as the engine stores them: the bearer token and sensitive header values sealed
//! like API keys, everything else as the settings form sent it, validated. The host opens a
//! stored server ([`OpenedMcpServer`]) only to hand it to its MCP client.

use panelot_protocol::engine::MCP_DEFAULT_TIMEOUT_MS;
use panelot_protocol::engine::McpAuth;
use panelot_protocol::engine::McpConnectMode;
use panelot_protocol::engine::McpServerInput;
use panelot_protocol::engine::McpServerView;
use panelot_protocol::engine::McpStatus;
use serde::Deserialize;
use serde::Serialize;

use crate::connection::BaseUrl;
use crate::connection::CustomHeader;
use crate::connection::StoredValue;
use crate::secret::SealedSecret;
use crate::secret::VaultKey;

/// Longest display name.
const NAME_MAX_CHARS: usize = 100;
/// Shortest and longest call timeout the form may set (1 s to 10 min).
const TIMEOUT_RANGE_MS: std::ops::RangeInclusive<u64> = 1_000..=600_000;
/// Most tools a server may have switched off.
const MAX_DISABLED_TOOLS: usize = 10_000;

/// A stored MCP server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredMcpServer {
    /// Its id (the `{server}` of `mcp__{server}__{tool}`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Normalized endpoint.
    pub url: BaseUrl,
    /// How Panelot proves itself.
    pub auth: McpAuth,
    /// The bearer token, sealed.
    #[serde(default)]
    pub bearer: Option<SealedSecret>,
    /// A pre-registered OAuth client id.
    #[serde(default)]
    pub oauth_client_id: Option<String>,
    /// Extra headers, sensitive values sealed.
    #[serde(default)]
    pub headers: Vec<CustomHeader>,
    /// Whether it is used.
    pub enabled: bool,
    /// When it is connected.
    #[serde(default)]
    pub connect: McpConnectMode,
    /// Server tool names the model is not offered.
    #[serde(default)]
    pub disabled_tools: Vec<String>,
    /// Time a call may take (ms).
    pub timeout_ms: u64,
}

/// A stored server opened for the MCP client: secrets in plain text. Its `Debug` shows header
/// names only.
#[derive(Clone, PartialEq)]
pub struct OpenedMcpServer {
    /// The stored server.
    pub server: StoredMcpServer,
    /// Every header to send: the extra ones, then `Authorization: Bearer …` for bearer auth.
    pub headers: Vec<(String, String)>,
}

impl std::fmt::Debug for OpenedMcpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("OpenedMcpServer")
            .field("id", &self.server.id)
            .field("header_names", &names)
            .finish_non_exhaustive()
    }
}

impl StoredMcpServer {
    /// Validates `input` and seals its secrets; `existing` is the server it replaces (its token
    /// and headers kept when the form sends none). The error is shown to the user and never
    /// contains a secret.
    pub fn from_input(
        id: &str,
        input: &McpServerInput,
        existing: Option<&StoredMcpServer>,
        key: &VaultKey,
    ) -> Result<StoredMcpServer, String> {
        let name = input.name.trim();
        if name.is_empty() || name.chars().count() > NAME_MAX_CHARS {
            return Err(format!("a server needs a name of 1 to {NAME_MAX_CHARS} characters"));
        }
        let url = BaseUrl::parse(&input.url).map_err(|e| e.to_string())?;
        let bearer = match input.bearer_token.as_deref().map(str::trim) {
            Some("") | None => existing.and_then(|s| s.bearer.clone()),
            Some(token) if token.chars().any(char::is_control) => {
                return Err("the token contains control characters".to_owned());
            }
            Some(token) => Some(SealedSecret::seal(key, token).map_err(|e| e.to_string())?),
        };
        if input.auth == McpAuth::Bearer && bearer.is_none() {
            return Err("bearer sign-in needs a token".to_owned());
        }
        let headers = match &input.custom_headers {
            Some(headers) => headers
                .iter()
                .map(|h| CustomHeader::new(&h.name, &h.value, key).map_err(|e| e.to_string()))
                .collect::<Result<Vec<_>, _>>()?,
            None => existing.map(|s| s.headers.clone()).unwrap_or_default(),
        };
        if input.auth != McpAuth::None && headers.iter().any(|h| h.name == "authorization") {
            return Err("put the token in the token field, not in a header".to_owned());
        }
        let timeout_ms = input.timeout_ms.unwrap_or(MCP_DEFAULT_TIMEOUT_MS);
        if !TIMEOUT_RANGE_MS.contains(&timeout_ms) {
            return Err("a call timeout is between 1 second and 10 minutes".to_owned());
        }
        if input.disabled_tools.len() > MAX_DISABLED_TOOLS {
            return Err("too many tools switched off".to_owned());
        }
        let client_id = input.oauth_client_id.as_deref().map(str::trim).filter(|c| !c.is_empty());
        Ok(StoredMcpServer {
            id: id.to_owned(),
            name: name.to_owned(),
            url,
            auth: input.auth,
            // A token of another auth mode is dropped: switching to OAuth forgets it.
            bearer: bearer.filter(|_| input.auth == McpAuth::Bearer),
            oauth_client_id: client_id.map(str::to_owned),
            headers,
            enabled: input.enabled,
            connect: input.connect,
            disabled_tools: input.disabled_tools.clone(),
            timeout_ms,
        })
    }

    /// What the settings page may see; the engine fills in status, tools and calls.
    pub fn view(&self) -> McpServerView {
        McpServerView {
            id: self.id.clone(),
            name: self.name.clone(),
            url: self.url.as_str().to_owned(),
            auth: self.auth,
            has_bearer_token: self.bearer.is_some(),
            oauth_client_id: self.oauth_client_id.clone(),
            header_names: self.headers.iter().map(|h| h.name.clone()).collect(),
            enabled: self.enabled,
            connect: self.connect,
            disabled_tools: self.disabled_tools.clone(),
            timeout_ms: self.timeout_ms,
            status: McpStatus::Disconnected,
            tools: Vec::new(),
            recent_calls: Vec::new(),
            offered_tokens: 0,
        }
    }

    /// Opens the secrets for the MCP client; a secret another key sealed is an error.
    pub fn open(&self, key: &VaultKey) -> Result<OpenedMcpServer, String> {
        let mut headers = Vec::new();
        for header in &self.headers {
            let value = match &header.value {
                StoredValue::Plain(value) => value.clone(),
                StoredValue::Sealed(sealed) => sealed.open(key).map_err(|e| e.to_string())?,
            };
            headers.push((header.name.clone(), value));
        }
        if let (McpAuth::Bearer, Some(bearer)) = (self.auth, &self.bearer) {
            let token = bearer.open(key).map_err(|e| e.to_string())?;
            headers.push(("authorization".to_owned(), format!("Bearer {token}")));
        }
        Ok(OpenedMcpServer { server: self.clone(), headers })
    }
}

#[cfg(test)]
#[path = "mcp_server_tests.rs"]
mod tests;
