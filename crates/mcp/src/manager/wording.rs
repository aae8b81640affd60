//! A failed connect or listing as a status a user can act on: what happened and, where it
//! helps, what to do.

use panelot_protocol::engine::McpAuth;
use panelot_protocol::engine::McpStatus;
use panelot_providers::HttpError;

use crate::bridge::ServerSpec;
use crate::challenge::BearerChallenge;
use crate::error::McpError;

/// What to do when a sign-in is needed: only the user can, and only from the settings (the
/// module never opens a sign-in window for background work).
pub(crate) const SIGN_IN_FROM_SETTINGS: &str =
    "press Sign in on this server in Panelot's settings (MCP servers)";

/// The status after `err`.
pub(crate) fn status_after(err: &McpError, spec: &ServerSpec) -> McpStatus {
    if spec.auth == McpAuth::Oauth {
        match err {
            McpError::Unauthorized { status: 401, .. } => {
                return McpStatus::NeedsAuthorization {
                    reason: format!("401: the server needs a sign-in; {SIGN_IN_FROM_SETTINGS}"),
                    origins: Vec::new(),
                };
            }
            McpError::Unauthorized { status, challenge: Some(challenge) }
                if challenge.error.as_deref() == Some("insufficient_scope") =>
            {
                let reason = step_up_reason(*status, challenge);
                return McpStatus::NeedsAuthorization { reason, origins: Vec::new() };
            }
            _ => {}
        }
    }
    McpStatus::Error { reason: reason(err, spec) }
}

/// A 403 `insufficient_scope` of an OAuth server in words: the user can grant the permission
/// by signing in again (a step-up), and where.
fn step_up_reason(status: u16, challenge: &BearerChallenge) -> String {
    let scope = challenge.scope.as_deref().unwrap_or("a wider permission");
    format!("{status}: this needs the permission {scope}; {SIGN_IN_FROM_SETTINGS} to grant it")
}

/// `err` in words.
pub(crate) fn reason(err: &McpError, spec: &ServerSpec) -> String {
    let has_token = spec.headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("authorization"));
    match err {
        // Said as the status says it, so whoever reads a failed call (the model, the user)
        // learns that signing in again grants it.
        McpError::Unauthorized { status, challenge: Some(challenge) }
            if spec.auth == McpAuth::Oauth
                && challenge.error.as_deref() == Some("insufficient_scope") =>
        {
            step_up_reason(*status, challenge)
        }
        McpError::Unauthorized { status: 401, .. } => match (spec.auth, has_token) {
            (McpAuth::Oauth, _) => format!("401: sign in again; {SIGN_IN_FROM_SETTINGS}"),
            (_, true) => "401: the server refused the token; check or replace it".to_owned(),
            (_, false) => {
                "401: the server needs a token (add a bearer token, or choose OAuth)".to_owned()
            }
        },
        McpError::Unauthorized { status, challenge } => {
            let scope = challenge.as_ref().and_then(|challenge| challenge.scope.as_deref());
            match scope {
                Some(scope) => format!("{status}: the token lacks permission (it needs {scope})"),
                None => format!("{status}: the token lacks permission"),
            }
        }
        McpError::Transport(HttpError::Network(detail)) => {
            format!("could not reach {} ({detail})", spec.url)
        }
        McpError::Transport(other) => format!("could not reach {} ({other})", spec.url),
        McpError::Aborted => "cancelled".to_owned(),
        McpError::Timeout { ms } => {
            format!("the server did not answer within {} s", ms.div_ceil(1000))
        }
        McpError::Status { status, excerpt } if excerpt.trim().is_empty() => {
            format!("the server answered HTTP {status}; check the URL")
        }
        McpError::Status { status, excerpt } => {
            let excerpt: String = excerpt.trim().chars().take(120).collect();
            format!("the server answered HTTP {status}: {excerpt}")
        }
        McpError::SessionExpired => {
            "the server keeps expiring its session; try again later".to_owned()
        }
        McpError::JsonRpc { message, code } => {
            format!("the server refused the request: {message} (code {code})")
        }
        McpError::UnsupportedVersion { offered } => format!(
            "the server speaks MCP version {offered}, which Panelot does not support \
             (2025-06-18 or 2025-03-26)"
        ),
        McpError::Protocol(detail) => {
            format!("the server's answer is not valid MCP ({detail}); is this an MCP endpoint?")
        }
        McpError::BudgetExceeded { budget, limit } => {
            format!("the server sent too much: {budget} exceeds {limit}")
        }
    }
}
