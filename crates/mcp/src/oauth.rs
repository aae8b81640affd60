//! OAuth 2.1 for MCP servers ("Authorization" in the MCP specification, 2025-06-18), as a
//! small state machine the host drives: this crate does every HTTP exchange and every check,
//! the host does the browser part (`chrome.identity.launchWebAuthFlow`) and the storage.
//!
//! ```text
//! McpError::Unauthorized { challenge }                      (401 from the MCP server)
//!   └─ discover(http, budgets, server_url, challenge)  → AuthPlan
//!        (RFC 9728 protected-resource metadata, RFC 8414 / OIDC authorization-server
//!         metadata; the resource must be the server, the issuer exact, S256 offered)
//!   └─ plan.register(http, budgets, redirect_uri)       → OAuthClient   (RFC 7591, when no
//!        client id is configured; else OAuthClient::preregistered)
//!   └─ plan.authorization_request(&client, random, scopes) → (url, PendingAuthorization)
//!        host: redirect_url = launchWebAuthFlow(url)
//!   └─ pending.finish(http, budgets, clock, redirect_url) → Credentials
//!   └─ credentials.authorization(server_url, clock)      → the `Authorization` header
//!   └─ credentials.refresh(http, budgets, clock)         → Credentials (on expiry or a 401)
//! McpError::Unauthorized { status: 403, challenge: insufficient_scope }
//!   └─ credentials.step_up_scopes(challenge), then a new authorization request
//! ```
//!
//! [`AuthPlan`], [`OAuthClient`], [`PendingAuthorization`] and [`Credentials`] serialize, so the
//! host can keep them across a service-worker restart (a pending authorization outlives the
//! worker while the user is on the consent page). Credentials hold tokens: the host seals them
//! like API keys. They are bound to the canonical resource URI, the issuer and the client id,
//! and refuse to be used for another server or refreshed through another issuer.
//!
//! Every URL is checked (HTTPS, or HTTP on loopback) before anything is sent to it or the
//! browser is sent there, and every answer is read within [`Budgets::max_auth_document_bytes`].

mod authorize;
mod credentials;
mod discovery;
mod registration;
mod transfer;
mod uri;

use panelot_providers::HttpError;

pub use authorize::PendingAuthorization;
pub use authorize::Scopes;
pub use credentials::Credentials;
pub use discovery::AuthPlan;
pub use discovery::AuthorizationServerMetadata;
pub use discovery::ProtectedResourceMetadata;
pub use discovery::discover;
pub use discovery::resource_metadata;
pub use registration::OAuthClient;

#[cfg(doc)]
use crate::Budgets;

/// Random bytes for PKCE verifiers and `state`, from the host (`crypto.getRandomValues` in the
/// service worker, the OS in native hosts). The crate never makes its own randomness, so tests
/// are deterministic.
///
/// Implementor duty: fill `bytes` from a cryptographically secure source; a predictable source
/// lets anyone who sees the authorization URL redeem the code.
pub trait Random {
    /// Fills `bytes`.
    fn fill(&self, bytes: &mut [u8]);
}

/// Which exchange of the flow an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Fetching the protected-resource metadata (RFC 9728).
    ResourceMetadata,
    /// Fetching the authorization server's metadata (RFC 8414 or OpenID Connect Discovery).
    ServerMetadata,
    /// Dynamic client registration (RFC 7591).
    Registration,
    /// The token endpoint (code exchange or refresh).
    Token,
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Step::ResourceMetadata => "the protected-resource metadata",
            Step::ServerMetadata => "the authorization server metadata",
            Step::Registration => "the client registration",
            Step::Token => "the token endpoint",
        })
    }
}

/// A failed OAuth step. None of the messages contains a token, a code or a verifier.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OAuthError {
    /// A URL (configured, from a challenge, from metadata or from the browser) is not an
    /// absolute HTTP(S) URL we can use.
    #[error("invalid URL {url:?}: {reason}")]
    InvalidUrl {
        /// The URL (cut).
        url: String,
        /// Why.
        reason: &'static str,
    },
    /// Plain HTTP to a host that is not loopback.
    #[error("refusing plain HTTP to {url:?}: only loopback may skip TLS")]
    InsecureUrl {
        /// The URL (cut).
        url: String,
    },
    /// The request got no answer.
    #[error("OAuth transport failed: {0}")]
    Transport(HttpError),
    /// The caller aborted.
    #[error("the OAuth request was cancelled")]
    Aborted,
    /// An unexpected HTTP status.
    #[error("{step} answered HTTP {status}: {excerpt}")]
    Status {
        /// Which exchange.
        step: Step,
        /// The status.
        status: u16,
        /// The start of the body, control characters replaced.
        excerpt: String,
    },
    /// No candidate location had the document (every one answered 4xx).
    #[error("{step} was not found at any well-known location")]
    NotFound {
        /// Which document.
        step: Step,
    },
    /// The answer is not the JSON document it should be.
    #[error("{step} is malformed: {reason}")]
    Malformed {
        /// Which exchange.
        step: Step,
        /// What is wrong.
        reason: String,
    },
    /// The answer is larger than the budget.
    #[error("{step} is larger than {limit} bytes")]
    TooLarge {
        /// Which exchange.
        step: Step,
        /// The budget.
        limit: usize,
    },
    /// The protected-resource metadata describes another resource than the MCP server.
    #[error("the resource metadata names {found:?}, not the MCP server {expected:?}")]
    ResourceMismatch {
        /// The server's canonical URI.
        expected: String,
        /// The metadata's `resource`.
        found: String,
    },
    /// The authorization server's metadata names another issuer than the one it was fetched
    /// for (RFC 8414 §3.3: a mix-up attack or a misconfiguration).
    #[error("the authorization server metadata names issuer {found:?}, not {expected:?}")]
    IssuerMismatch {
        /// The issuer the metadata was fetched for.
        expected: String,
        /// The metadata's `issuer`.
        found: String,
    },
    /// The authorization server does not offer PKCE with S256, which MCP requires.
    #[error("the authorization server does not advertise PKCE with S256")]
    NoS256,
    /// The protected-resource metadata lists no authorization server.
    #[error("the resource metadata lists no authorization server")]
    NoAuthorizationServer,
    /// No client id is configured and the server offers no dynamic registration.
    #[error("no client id is configured and the authorization server offers no registration")]
    NoRegistration,
    /// The browser came back to another address than the redirect URI.
    #[error("the browser came back to an address other than the redirect URI")]
    RedirectMismatch,
    /// The `state` of the redirect is not ours (a forged or crossed authorization).
    #[error("the authorization response's state does not match the request")]
    StateMismatch,
    /// The authorization server said no (`error` in the redirect: `access_denied`, ...).
    #[error("the authorization was refused: {error}{}", description_suffix(.description))]
    Denied {
        /// The `error` code.
        error: String,
        /// `error_description`, if any (cut).
        description: Option<String>,
    },
    /// The redirect carried neither a code nor an error.
    #[error("the authorization response has no code")]
    NoCode,
    /// The token endpoint refused the grant (`invalid_grant` means sign in again).
    #[error("the token endpoint refused: {error}{}", description_suffix(.description))]
    TokenRefused {
        /// The OAuth `error` code.
        error: String,
        /// `error_description`, if any (cut).
        description: Option<String>,
    },
    /// The credentials have no refresh token: only a new authorization helps.
    #[error("the credentials cannot be refreshed (no refresh token)")]
    NoRefreshToken,
    /// The access token has expired; refresh first.
    #[error("the access token has expired")]
    Expired,
    /// Credentials or a client were used with another resource or issuer than they are for.
    #[error("credentials for {bound:?} cannot be used with {asked:?}")]
    WrongBinding {
        /// What they are bound to.
        bound: String,
        /// What they were asked for.
        asked: String,
    },
}

impl OAuthError {
    /// Whether only a new authorization in the browser can help (as opposed to a retry later
    /// or a configuration change): the host then asks the user.
    pub fn needs_user(&self) -> bool {
        match self {
            OAuthError::Denied { .. }
            | OAuthError::NoRefreshToken
            | OAuthError::StateMismatch
            | OAuthError::NoCode
            | OAuthError::RedirectMismatch => true,
            OAuthError::TokenRefused { error, .. } => error == "invalid_grant",
            OAuthError::InvalidUrl { .. }
            | OAuthError::InsecureUrl { .. }
            | OAuthError::Transport(_)
            | OAuthError::Aborted
            | OAuthError::Status { .. }
            | OAuthError::NotFound { .. }
            | OAuthError::Malformed { .. }
            | OAuthError::TooLarge { .. }
            | OAuthError::ResourceMismatch { .. }
            | OAuthError::IssuerMismatch { .. }
            | OAuthError::NoS256
            | OAuthError::NoAuthorizationServer
            | OAuthError::NoRegistration
            | OAuthError::Expired
            | OAuthError::WrongBinding { .. } => false,
        }
    }
}

fn description_suffix(description: &Option<String>) -> String {
    description.as_ref().map(|text| format!(" ({text})")).unwrap_or_default()
}

impl From<HttpError> for OAuthError {
    fn from(err: HttpError) -> Self {
        match err {
            HttpError::Aborted => OAuthError::Aborted,
            other => OAuthError::Transport(other),
        }
    }
}
