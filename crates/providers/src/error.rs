//! Construction of [`ProviderError`]s: the finer reasons, the sanitising of upstream text, and
//! the sentence a person reads.
//!
//! Every error this crate returns is built here, so the rules (control characters stripped, text
//! capped, secrets redacted) hold in one place. The client hands every error of a connection
//! through [`for_connection`], so its message names the connection and says what to check:
//! "Work proxy: the server rejected the API key (HTTP 401). Check the connection's API key in
//! Settings." The words of the provider (or of the browser, for a transport failure) stay in
//! `details.upstream_message`, shown apart from the message.

use panelot_core::model::ProviderError;
use panelot_protocol::engine::ProviderDetails;
use panelot_protocol::engine::ProviderErrorKind;

/// Upstream text is cut to this many characters.
pub(crate) const MAX_UPSTREAM_CHARS: usize = 2_000;

/// The finer reason of a failure, sent as `details.reason`. This list may grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorReason {
    /// The key was rejected (401).
    InvalidKey,
    /// The key lacks permission (403).
    PermissionDenied,
    /// Credits or quota are exhausted.
    QuotaExceeded,
    /// The URL does not lead to the API (404 that is not about the model).
    EndpointNotFound,
    /// The model id is unknown to the endpoint.
    ModelNotFound,
    /// The endpoint refused the request as malformed (other 4xx).
    InvalidRequest,
    /// The endpoint failed on its side (5xx or an in-stream server error).
    UpstreamError,
    /// The answer broke the wire format.
    ResponseFormat,
    /// The stream ended before the response was complete.
    IncompleteResponse,
    /// The endpoint could not be reached (connection refused, DNS, TLS).
    Unreachable,
    /// The endpoint sent nothing for longer than the stall timeout.
    Stalled,
    /// The engine aborted the call.
    Aborted,
    /// The connection is unknown, disabled, or its stored keys cannot be opened.
    ConnectionUnavailable,
}

impl ErrorReason {
    /// Every reason.
    pub const ALL: [ErrorReason; 13] = [
        ErrorReason::InvalidKey,
        ErrorReason::PermissionDenied,
        ErrorReason::QuotaExceeded,
        ErrorReason::EndpointNotFound,
        ErrorReason::ModelNotFound,
        ErrorReason::InvalidRequest,
        ErrorReason::UpstreamError,
        ErrorReason::ResponseFormat,
        ErrorReason::IncompleteResponse,
        ErrorReason::Unreachable,
        ErrorReason::Stalled,
        ErrorReason::Aborted,
        ErrorReason::ConnectionUnavailable,
    ];

    /// The reason spelled `text` on the wire.
    pub fn parse(text: &str) -> Option<ErrorReason> {
        ErrorReason::ALL.into_iter().find(|reason| reason.as_str() == text)
    }

    /// The wire spelling (`snake_case`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorReason::InvalidKey => "invalid_key",
            ErrorReason::PermissionDenied => "permission_denied",
            ErrorReason::QuotaExceeded => "quota_exceeded",
            ErrorReason::EndpointNotFound => "endpoint_not_found",
            ErrorReason::ModelNotFound => "model_not_found",
            ErrorReason::InvalidRequest => "invalid_request",
            ErrorReason::UpstreamError => "upstream_error",
            ErrorReason::ResponseFormat => "response_format",
            ErrorReason::IncompleteResponse => "incomplete_response",
            ErrorReason::Unreachable => "unreachable",
            ErrorReason::Stalled => "stalled",
            ErrorReason::Aborted => "aborted",
            ErrorReason::ConnectionUnavailable => "connection_unavailable",
        }
    }
}

/// `err` of the connection named `name` at `base_url`, as a person reads it: the connection's
/// name, what happened, and what to check.
pub(crate) fn for_connection(mut err: ProviderError, name: &str, base_url: &str) -> ProviderError {
    let reason = err.details.reason.as_deref().and_then(ErrorReason::parse);
    let advice = advice(err.kind, reason, base_url);
    err.message = match advice {
        Some(advice) => format!("{name}: {}. {advice}", err.message),
        None => format!("{name}: {}.", err.message),
    };
    err
}

/// What to check after a failure, as a sentence; `None` when there is nothing to check (the
/// user stopped the call).
fn advice(kind: ProviderErrorKind, reason: Option<ErrorReason>, base_url: &str) -> Option<String> {
    use ErrorReason as R;
    let text = match reason {
        Some(R::InvalidKey) => "Check the connection's API key in Settings.",
        Some(R::PermissionDenied) => "Check that this key may use the model, or add another key.",
        Some(R::QuotaExceeded) => {
            "Add credit or raise the budget with the provider, or add another key to the \
             connection."
        }
        Some(R::EndpointNotFound) => {
            return Some(format!("Check the connection's base URL ({base_url}) in Settings."));
        }
        Some(R::ModelNotFound) => "Pick a model the server lists, in the connection's settings.",
        Some(R::InvalidRequest) => {
            "If it happens again, check the connection's kind and its advanced settings."
        }
        Some(R::UpstreamError) => "The provider had a problem; try again in a moment.",
        Some(R::ResponseFormat) => {
            return Some(format!(
                "Check that the server at {base_url} speaks the connection's kind \
                 (OpenAI-compatible or Anthropic)."
            ));
        }
        Some(R::IncompleteResponse) => {
            "The answer broke off; try again, and check the network if it keeps happening."
        }
        Some(R::Unreachable) => {
            return Some(format!(
                "Check that the server is running and that the base URL ({base_url}) is right."
            ));
        }
        Some(R::Stalled) => "The server may be busy or still loading the model; try again.",
        Some(R::Aborted) => return None,
        Some(R::ConnectionUnavailable) => "Open the connection in Settings and check it.",
        None => match kind {
            ProviderErrorKind::RateLimit => "Wait a moment, or add another key to the connection.",
            ProviderErrorKind::Overloaded => "Try again in a moment.",
            ProviderErrorKind::ContextTooLong => {
                "Start a new chat, or remove attachments from this one."
            }
            ProviderErrorKind::ContentFilter => "Rephrase the request.",
            ProviderErrorKind::Auth => "Check the connection's API key in Settings.",
            ProviderErrorKind::Network | ProviderErrorKind::Protocol => return None,
        },
    };
    Some(text.to_owned())
}

/// A failure of the wire format (non-retryable).
pub(crate) fn protocol_error(message: impl Into<String>) -> ProviderError {
    error(ProviderErrorKind::Protocol, ErrorReason::ResponseFormat, message.into())
}

/// A stream that ended early: retryable, as a cut connection is.
pub(crate) fn incomplete(message: impl Into<String>) -> ProviderError {
    error(ProviderErrorKind::Network, ErrorReason::IncompleteResponse, message.into())
}

pub(crate) fn error(
    kind: ProviderErrorKind,
    reason: ErrorReason,
    message: String,
) -> ProviderError {
    ProviderError {
        kind,
        message,
        details: ProviderDetails {
            reason: Some(reason.as_str().to_owned()),
            ..ProviderDetails::default()
        },
    }
}

/// Text from outside made safe to show: control characters removed (line breaks and tabs
/// become spaces), whitespace runs collapsed, at most `max_chars` characters.
pub(crate) fn sanitize(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars));
    let mut n_chars = 0;
    let mut last_space = true;
    for c in text.chars() {
        if n_chars >= max_chars {
            break;
        }
        let c = if c.is_whitespace() { ' ' } else { c };
        if c.is_control() || is_invisible_format(c) {
            continue;
        }
        if c == ' ' {
            if last_space {
                continue;
            }
            last_space = true;
        } else {
            last_space = false;
        }
        out.push(c);
        n_chars += 1;
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out
}

/// Bidirectional overrides and zero-width characters can disguise text shown to the user.
fn is_invisible_format(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// A short, quoted rendering of an unexpected wire value for an error message.
pub(crate) fn quoted(value: &str) -> String {
    format!("\"{}\"", sanitize(value, 64))
}

/// Replaces every occurrence of each secret (and anything shaped like an API key) in `text`.
pub(crate) fn redact(text: &str, secrets: &[&str]) -> String {
    let mut out = text.to_owned();
    for secret in secrets {
        // Very short "secrets" would shred ordinary words; real keys are long.
        if secret.len() >= 8 {
            out = out.replace(secret, "[redacted]");
        }
    }
    redact_key_shapes(&out)
}

/// Tokens that look like keys (`sk-…`, `AIza…`, long letter-digit runs, whatever follows
/// `Bearer`) are replaced: an upstream message may echo the key it rejected, and a key of another
/// connection must not leak either.
fn redact_key_shapes(text: &str) -> String {
    let is_token_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    let mut out = String::with_capacity(text.len());
    let mut after_bearer = false;
    let mut rest = text;
    while !rest.is_empty() {
        let start = rest.find(is_token_char).unwrap_or(rest.len());
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest.find(|c: char| !is_token_char(c)).unwrap_or(rest.len());
        let (token, tail) = rest.split_at(end);
        rest = tail;
        if token.is_empty() {
            continue;
        }
        // A sentence's final period is not part of the token.
        let core = token.trim_end_matches('.');
        if (after_bearer && core.len() >= 8) || looks_like_key(core) {
            out.push_str("[redacted]");
            out.push_str(&token[core.len()..]);
        } else {
            out.push_str(token);
        }
        after_bearer = core.eq_ignore_ascii_case("bearer");
    }
    out
}

/// Hyphenated words are left alone (model ids, UUIDs, request ids) unless they carry a known key
/// prefix; long unbroken mixes of letters and digits are treated as keys.
fn looks_like_key(token: &str) -> bool {
    (token.starts_with("sk-") && token.len() >= 20)
        || (token.starts_with("AIza") && token.len() >= 30)
        || (token.len() >= 32
            && token.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            && token.chars().any(|c| c.is_ascii_digit())
            && token.chars().any(|c| c.is_ascii_alphabetic()))
}

#[cfg(test)]
#[path = "error_tests.rs"]
mod tests;
