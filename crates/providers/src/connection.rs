//! Connections: the stored configuration of one endpoint (kind, base URL, sealed keys, custom
//! headers, quirks, manual models), as the engine keeps it in a setting.
//!
//! A settings editor produces a [`ConnectionDraft`] with plaintext keys;
//! [`Connection::from_draft`] validates it, normalizes the base URL and seals every key and
//! sensitive header value. The stored [`Connection`] (serde, camelCase) holds no plaintext
//! secret.

mod url;

use serde::Deserialize;
use serde::Serialize;

use crate::capabilities::ModelEntry;
use crate::quirks::QuirkFlag;
use crate::quirks::Quirks;
use crate::secret::SealedSecret;
use crate::secret::SecretError;
use crate::secret::VaultKey;
use crate::templates::WireFormat;

pub use url::BaseUrl;
pub use url::UrlError;

/// One endpoint, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Connection {
    /// Stable id, referenced by presets and threads.
    pub id: String,
    /// Display name.
    pub name: String,
    /// The wire format.
    pub kind: WireFormat,
    /// The normalized base URL.
    pub base_url: BaseUrl,
    /// Keys, sealed, in failover order; empty for endpoints that need none.
    #[serde(default)]
    pub api_keys: Vec<SealedSecret>,
    /// Extra headers sent with every request (after the wire format's own, replacing any of the
    /// same name).
    #[serde(default)]
    pub custom_headers: Vec<CustomHeader>,
    /// Whether the connection is offered and listed.
    pub enabled: bool,
    /// Known deviations of the endpoint, stored as camelCase flag names.
    #[serde(default, with = "quirk_names")]
    pub quirks: Quirks,
    /// Manual model ids: listed instead of asking the endpoint.
    #[serde(default)]
    pub model_ids: Vec<String>,
    /// Manual model entries (capabilities and pricing) that override the built-in table.
    #[serde(default)]
    pub models: Vec<ModelEntry>,
}

/// A custom header, its value sealed when the name marks it sensitive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CustomHeader {
    /// Lowercase header name.
    pub name: String,
    /// The value.
    pub value: StoredValue,
}

/// A stored header value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StoredValue {
    /// Not sensitive: kept as text.
    Plain(String),
    /// Sensitive: sealed.
    Sealed(SealedSecret),
}

/// A connection as the settings editor has it, with plaintext secrets.
#[derive(Clone, PartialEq, Default)]
pub struct ConnectionDraft {
    /// Stable id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// The wire format.
    pub kind: Option<WireFormat>,
    /// The base URL as typed.
    pub base_url: String,
    /// Keys as typed (one per line in the editor); blank entries are dropped.
    pub api_keys: Vec<String>,
    /// Header names and values as typed.
    pub custom_headers: Vec<(String, String)>,
    /// Whether the connection is enabled.
    pub enabled: bool,
    /// Quirks.
    pub quirks: Quirks,
    /// Manual model ids.
    pub model_ids: Vec<String>,
    /// Manual model entries.
    pub models: Vec<ModelEntry>,
}

/// Why a draft is not a valid connection. Never contains a key or a header value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConnectionError {
    /// The id is empty.
    #[error("the connection needs an id")]
    MissingId,
    /// No wire format was chosen.
    #[error("choose the kind of endpoint (OpenAI-compatible or Anthropic)")]
    MissingKind,
    /// The base URL is not usable.
    #[error("base URL: {0}")]
    Url(#[from] UrlError),
    /// A header name is not a valid HTTP token, or is one the transport sets itself.
    #[error("header name {0:?} is not allowed")]
    HeaderName(String),
    /// A header value contains a line break or another control character.
    #[error("the value of header {0} contains control characters")]
    HeaderValue(String),
    /// A key contains whitespace or control characters.
    #[error("API key {0} contains spaces or control characters")]
    Key(usize),
    /// Sealing failed.
    #[error("cannot seal a secret: {0}")]
    Secret(#[from] SecretError),
}

/// Headers the transport owns: a custom value would corrupt the request.
const RESERVED_HEADERS: [&str; 6] =
    ["host", "content-length", "transfer-encoding", "connection", "upgrade", "te"];

impl Connection {
    /// Validates `draft`, normalizes its URL and seals its secrets under `key`.
    pub fn from_draft(
        draft: ConnectionDraft,
        key: &VaultKey,
    ) -> Result<Connection, ConnectionError> {
        let id = draft.id.trim().to_owned();
        if id.is_empty() {
            return Err(ConnectionError::MissingId);
        }
        let kind = draft.kind.ok_or(ConnectionError::MissingKind)?;
        let base_url = BaseUrl::parse(&draft.base_url)?;
        let api_keys = seal_keys(&draft.api_keys, key)?;
        let custom_headers = draft
            .custom_headers
            .iter()
            .map(|(name, value)| CustomHeader::new(name, value, key))
            .collect::<Result<Vec<_>, _>>()?;
        let model_ids = draft
            .model_ids
            .iter()
            .map(|id| id.trim())
            .filter(|id| !id.is_empty())
            .map(str::to_owned)
            .collect();
        Ok(Connection {
            id,
            name: draft.name.trim().to_owned(),
            kind,
            base_url,
            api_keys,
            custom_headers,
            enabled: draft.enabled,
            quirks: draft.quirks,
            model_ids,
            models: draft.models,
        })
    }

    /// Whether an OpenAI-compatible base URL lacks the `/v1` most servers need: a hint for the
    /// editor, never applied silently.
    pub fn missing_v1_hint(&self) -> bool {
        self.kind == WireFormat::OpenAi && !self.base_url.has_version_segment()
    }
}

impl CustomHeader {
    /// A header with a validated name; the value is sealed when [`is_sensitive_header`] says
    /// so.
    pub fn new(name: &str, value: &str, key: &VaultKey) -> Result<CustomHeader, ConnectionError> {
        let name = name.trim().to_ascii_lowercase();
        let is_token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
        if name.is_empty()
            || !name.bytes().all(is_token)
            || RESERVED_HEADERS.contains(&name.as_str())
        {
            return Err(ConnectionError::HeaderName(name));
        }
        let value = value.trim();
        if value.chars().any(|c| c.is_control() && c != '\t') {
            return Err(ConnectionError::HeaderValue(name));
        }
        let value = if is_sensitive_header(&name) {
            StoredValue::Sealed(SealedSecret::seal(key, value)?)
        } else {
            StoredValue::Plain(value.to_owned())
        };
        Ok(CustomHeader { name, value })
    }
}

/// Whether a header probably carries a credential: its value is then sealed at rest and
/// redacted from errors.
pub fn is_sensitive_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["auth", "key", "token", "secret", "cookie", "session", "password", "signature"]
        .iter()
        .any(|needle| name.contains(needle))
}

fn seal_keys(keys: &[String], key: &VaultKey) -> Result<Vec<SealedSecret>, ConnectionError> {
    let mut sealed = Vec::new();
    let mut seen = Vec::new();
    for (idx, api_key) in keys.iter().map(|k| k.trim()).filter(|k| !k.is_empty()).enumerate() {
        if api_key.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(ConnectionError::Key(idx + 1));
        }
        // A key pasted twice would only repeat a failing attempt.
        if seen.contains(&api_key) {
            continue;
        }
        seen.push(api_key);
        sealed.push(SealedSecret::seal(key, api_key)?);
    }
    Ok(sealed)
}

/// `Quirks` stored as a list of flag names. An unknown name fails the whole connection rather
/// than being dropped, so a setting written by a newer version is never silently rewritten
/// without it; a retired one (which switches nothing any more) is dropped.
mod quirk_names {
    use serde::Deserialize;
    use serde::Deserializer;
    use serde::Serializer;

    use super::QuirkFlag;
    use super::Quirks;

    pub(super) fn serialize<S: Serializer>(
        quirks: &Quirks,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(quirks.flags().into_iter().map(QuirkFlag::name))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Quirks, D::Error> {
        let names = Vec::<String>::deserialize(deserializer)?;
        Quirks::from_names(&names).map_err(serde::de::Error::custom)
    }
}

impl std::fmt::Debug for ConnectionDraft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Plaintext keys and header values stay out of logs.
        let header_names: Vec<&str> = self.custom_headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("ConnectionDraft")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("base_url", &self.base_url)
            .field("n_api_keys", &self.api_keys.len())
            .field("custom_header_names", &header_names)
            .field("enabled", &self.enabled)
            .field("quirks", &self.quirks)
            .field("model_ids", &self.model_ids)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
#[path = "connection_tests.rs"]
mod tests;
