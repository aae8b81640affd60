//! From a 401 to an [`AuthPlan`]: the protected-resource metadata (RFC 9728) says which
//! authorization server guards the MCP server, that server's metadata (RFC 8414, or OpenID
//! Connect Discovery) says where to send the user and the code. Each document is checked
//! before anything is built on it.

use panelot_core::env::AbortSignal;
use panelot_providers::Http;
use serde::Deserialize;
use serde::Serialize;

use super::OAuthError;
use super::Scopes;
use super::Step;
use super::transfer;
use super::uri;
use super::uri::Url;
use crate::BearerChallenge;
use crate::Budgets;

/// The protected-resource metadata (RFC 9728 §2), the fields the flow reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProtectedResourceMetadata {
    /// The resource identifier; must cover the MCP server's canonical URI.
    pub resource: String,
    /// Issuers of the authorization servers that accept this resource (the first is used).
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// Scopes the resource understands (asked for when the challenge names none).
    #[serde(default)]
    pub scopes_supported: Vec<String>,
}

/// An authorization server's metadata (RFC 8414 §2), the fields the flow reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthorizationServerMetadata {
    /// The issuer identifier; equal to the one the document was fetched for.
    pub issuer: String,
    /// Where the browser goes.
    pub authorization_endpoint: String,
    /// Where codes and refresh tokens are exchanged.
    pub token_endpoint: String,
    /// Dynamic client registration (RFC 7591), when offered.
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    /// PKCE methods; must include `S256` (absent means no PKCE, which MCP refuses).
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Scopes the server knows.
    #[serde(default)]
    pub scopes_supported: Vec<String>,
}

/// What discovery found: the resource to ask a token for and the authorization server to ask.
/// Everything in it has been checked (URLs secure, resource and issuer matching, S256 offered).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthPlan {
    /// The canonical URI of the resource tokens are asked for (RFC 8707 `resource`): the
    /// metadata's `resource`, which is the MCP server's URI or a prefix of it.
    pub resource: String,
    /// The protected-resource metadata.
    pub resource_metadata: ProtectedResourceMetadata,
    /// The authorization server's metadata.
    pub server_metadata: AuthorizationServerMetadata,
    /// The scope the challenge asked for, if any.
    pub challenged_scope: Option<String>,
}

impl AuthPlan {
    /// The issuer identifier of the authorization server.
    pub fn issuer(&self) -> &str {
        &self.server_metadata.issuer
    }

    /// The scopes to ask for in a first authorization: the challenge's, else those the
    /// resource metadata lists, else none (the server's default).
    pub fn default_scopes(&self) -> Scopes {
        match &self.challenged_scope {
            Some(scope) => Scopes::parse(scope),
            None => Scopes::from_iter(self.resource_metadata.scopes_supported.iter().cloned()),
        }
    }
}

/// Discovers how to authorize with the MCP server at `server_url`, which answered with
/// `challenge` (the one of [`McpError::Unauthorized`](crate::McpError::Unauthorized), or `None`
/// when it sent none).
///
/// The challenge's `resource_metadata` URL is used alone when present (the MCP specification
/// says clients must use it); otherwise the well-known locations with the server's path and at
/// the root are tried in turn. The authorization-server metadata locations are tried in the
/// order the MCP specification gives (RFC 8414, then OpenID Connect with the path inserted,
/// then appended); a location answering 4xx moves on to the next, anything else wrong stops.
pub async fn discover<H: Http>(
    http: &H,
    budgets: &Budgets,
    server_url: &str,
    challenge: Option<&BearerChallenge>,
    abort: &AbortSignal,
) -> Result<AuthPlan, OAuthError> {
    let limit = budgets.max_auth_document_bytes;
    let (resource_metadata, resource) =
        resource_metadata(http, budgets, server_url, challenge, abort).await?;
    let issuer = resource_metadata
        .authorization_servers
        .first()
        .ok_or(OAuthError::NoAuthorizationServer)?
        .clone();
    let issuer_url = Url::parse_secure(&issuer)?;
    let candidates = uri::authorization_server_metadata_urls(&issuer_url);
    let server_metadata: AuthorizationServerMetadata =
        first_found(http, limit, Step::ServerMetadata, &candidates, abort).await?;
    // RFC 8414 §3.3: the issuer must be the one the document was asked for, character for
    // character; anything else may be a mix-up attack.
    if server_metadata.issuer != issuer {
        return Err(OAuthError::IssuerMismatch { expected: issuer, found: server_metadata.issuer });
    }
    let s256 = server_metadata
        .code_challenge_methods_supported
        .as_ref()
        .is_some_and(|methods| methods.iter().any(|method| method == "S256"));
    if !s256 {
        return Err(OAuthError::NoS256);
    }
    Url::parse_secure(&server_metadata.authorization_endpoint)?;
    Url::parse_secure(&server_metadata.token_endpoint)?;
    if let Some(registration) = &server_metadata.registration_endpoint {
        Url::parse_secure(registration)?;
    }
    Ok(AuthPlan {
        resource,
        resource_metadata,
        server_metadata,
        challenged_scope: challenge.and_then(|challenge| challenge.scope.clone()),
    })
}

/// The protected-resource metadata of the MCP server at `server_url` (the first step of
/// [`discover`]) and the canonical resource it covers the server with.
pub async fn resource_metadata<H: Http>(
    http: &H,
    budgets: &Budgets,
    server_url: &str,
    challenge: Option<&BearerChallenge>,
    abort: &AbortSignal,
) -> Result<(ProtectedResourceMetadata, String), OAuthError> {
    let server = Url::parse_secure(server_url)?;
    if server.had_fragment {
        return Err(OAuthError::InvalidUrl {
            url: uri::shown(server_url),
            reason: "a resource URI has no fragment",
        });
    }
    let candidates = match challenge.and_then(|challenge| challenge.resource_metadata.as_deref()) {
        Some(url) => vec![url.to_owned()],
        None => uri::protected_resource_metadata_urls(&server),
    };
    let limit = budgets.max_auth_document_bytes;
    let metadata: ProtectedResourceMetadata =
        first_found(http, limit, Step::ResourceMetadata, &candidates, abort).await?;
    let resource = covering_resource(&metadata.resource, &server)?;
    Ok((metadata, resource))
}

/// The first candidate's document that exists; 4xx moves on, other failures stop.
async fn first_found<H: Http, T: serde::de::DeserializeOwned>(
    http: &H,
    limit: usize,
    step: Step,
    candidates: &[String],
    abort: &AbortSignal,
) -> Result<T, OAuthError> {
    for candidate in candidates {
        let url = Url::parse_secure(candidate)?;
        let answer = transfer::get(http, limit, step, &url, abort).await?;
        if answer.is_success() {
            return answer.decode(step);
        }
        if !(400..500).contains(&answer.status) {
            return Err(answer.status_error(step));
        }
    }
    Err(OAuthError::NotFound { step })
}

/// The canonical form of the metadata's `resource`, when it covers `server`: the same origin,
/// and the server's path equal to it or below it at a segment boundary. Some servers protect a
/// whole origin with one resource; the MCP SDKs accept that too, and the token is then asked
/// for the resource the authorization server knows.
pub(crate) fn covering_resource(resource: &str, server: &Url) -> Result<String, OAuthError> {
    let mismatch = || OAuthError::ResourceMismatch {
        expected: server.canonical_resource(),
        found: uri::shown(resource),
    };
    let metadata_resource = Url::parse(resource).map_err(|_| mismatch())?;
    if !covers(&metadata_resource, server) {
        return Err(mismatch());
    }
    Ok(metadata_resource.canonical_resource())
}

/// Whether resource `resource` covers the server at `server` (see [`covering_resource`]).
pub(crate) fn covers(resource: &Url, server: &Url) -> bool {
    if resource.had_fragment || resource.origin() != server.origin() {
        return false;
    }
    if resource.query.is_some() {
        return resource.canonical_resource() == server.canonical_resource();
    }
    let prefix = resource.trimmed_path();
    let path = server.trimmed_path();
    path == prefix || path.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
#[path = "discovery_tests.rs"]
mod tests;
