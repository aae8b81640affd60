//! Diagnosis of failed calls: an HTTP status and body (or an error object inside a stream)
//! become a classified [`ProviderError`] with a safe upstream summary; `retry-after` parsing.
//!
//! The error's message is Panelot's conclusion with the status ("the server rejected the API key
//! (HTTP 401)"); what the provider said goes to `details.upstream_message` only, so a page that
//! shows both never shows the provider's sentence twice. The client adds the connection's name
//! and what to check (`crate::error::for_connection`).
//!
//! Upstream text is sanitised (control characters stripped, at most 2,000 characters) and
//! redacted (the connection's keys and anything shaped like a key); header values other than the
//! request id are never read into an error.
//!
//! Proxies answer in their own ways, and the classification knows the common ones. A LiteLLM
//! proxy refuses a virtual key over its budget with `type: "budget_exceeded"` and a status that
//! changed between releases (400, then 429, 422 in current ones): whatever the status, that is an
//! exhausted quota (the next key is tried, the same one is never retried: a budget does not refill
//! within a backoff). A LiteLLM proxy without a key database answers any key but its master key
//! with 400 `no_db_connection`: that is a rejected key, not a malformed request.

use panelot_core::model::ProviderError;
use panelot_protocol::engine::ProviderDetails;
use panelot_protocol::engine::ProviderErrorKind;
use serde_json::Value;

use crate::error::ErrorReason;
use crate::error::MAX_UPSTREAM_CHARS;
use crate::error::redact;
use crate::error::sanitize;
use crate::http_date::parse_http_date;

/// Bodies larger than this are not parsed as JSON, only scanned as text.
const MAX_JSON_BODY: usize = 1024 * 1024;
/// How much of a text body is looked at.
const MAX_TEXT_BODY: usize = 64 * 1024;

/// A non-success HTTP answer.
#[derive(Debug, Clone, Copy)]
pub struct HttpFailure<'a> {
    /// The status code.
    pub status: u16,
    /// Response headers (names in any case).
    pub headers: &'a [(String, String)],
    /// The body, or as much of it as was read.
    pub body: &'a [u8],
    /// The connection's keys and secret header values, redacted wherever they appear.
    pub secrets: &'a [&'a str],
}

/// Classifies a failed HTTP call, checking in this order and taking the first that matches: 401;
/// 403; 402 or quota (budget) wording; a proxy's rejected key; 404 endpoint or model; 429;
/// 503/529; context length; model not found; other 4xx; other 5xx.
pub fn classify_http_error(failure: &HttpFailure<'_>) -> ProviderError {
    let upstream = parse_body(failure.body);
    let request_id = header(failure.headers, "x-request-id")
        .or_else(|| header(failure.headers, "request-id"))
        .map(str::to_owned)
        .or_else(|| upstream.request_id.clone());
    build(Some(failure.status), upstream, request_id, failure.secrets)
}

/// Classifies an error reported inside a stream (`{"error": …}` or an `error` event); the value
/// is the whole event payload.
pub(crate) fn classify_stream_error(payload: &Value) -> ProviderError {
    let upstream = parse_json(payload);
    build(None, upstream, None, &[])
}

/// The delay the server asked for, in milliseconds: `retry-after-ms`, else `retry-after` in
/// seconds or as an HTTP-date (relative to `now_unix_ms`, never negative).
pub fn retry_after_ms(headers: &[(String, String)], now_unix_ms: u64) -> Option<u64> {
    if let Some(ms) = header(headers, "retry-after-ms").and_then(parse_seconds_like) {
        return Some(ms);
    }
    let value = header(headers, "retry-after")?;
    if let Some(seconds) = parse_seconds_like(value) {
        return Some(seconds.saturating_mul(1000));
    }
    parse_http_date(value).map(|at| at.saturating_sub(now_unix_ms))
}

/// A non-negative decimal number, rounded up (`1.5` → 2).
fn parse_seconds_like(value: &str) -> Option<u64> {
    let value = value.trim();
    let (int, frac) = value.split_once('.').unwrap_or((value, ""));
    if int.is_empty()
        || int.len() > 12
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole: u64 = int.parse().ok()?;
    Some(if frac.bytes().any(|b| b != b'0') { whole + 1 } else { whole })
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, value)| value.as_str())
}

/// What the provider said about the failure.
#[derive(Debug, Default, Clone, PartialEq)]
struct Upstream {
    kind: Option<String>,
    code: Option<String>,
    message: Option<String>,
    request_id: Option<String>,
}

fn parse_body(body: &[u8]) -> Upstream {
    if body.len() <= MAX_JSON_BODY
        && let Ok(value) = serde_json::from_slice::<Value>(body)
    {
        return parse_json(&value);
    }
    let text = String::from_utf8_lossy(&body[..body.len().min(MAX_TEXT_BODY)]);
    let message = if looks_like_html(&text) { html_summary(&text) } else { text.into_owned() };
    Upstream { message: Some(message), ..Upstream::default() }
}

fn parse_json(value: &Value) -> Upstream {
    match value {
        Value::Array(items) => items.first().map(parse_json).unwrap_or_default(),
        Value::String(text) => Upstream { message: Some(text.clone()), ..Upstream::default() },
        Value::Object(map) => {
            let request_id = map.get("request_id").and_then(scalar);
            let mut upstream = match map.get("error") {
                Some(Value::Object(error)) => Upstream {
                    kind: error.get("type").and_then(scalar),
                    code: error
                        .get("code")
                        .and_then(scalar)
                        .or_else(|| error.get("status").and_then(scalar)),
                    message: error.get("message").and_then(scalar),
                    request_id: None,
                },
                Some(Value::String(message)) => Upstream {
                    message: Some(message.clone()),
                    code: map.get("code").and_then(scalar),
                    ..Upstream::default()
                },
                Some(_) | None => match map.get("detail") {
                    Some(detail) => {
                        Upstream { message: Some(detail_text(detail)), ..Upstream::default() }
                    }
                    None => Upstream {
                        kind: map.get("type").and_then(scalar).filter(|t| t != "error"),
                        code: map.get("code").and_then(scalar),
                        message: map
                            .get("message")
                            .and_then(scalar)
                            .or_else(|| map.get("msg").and_then(scalar)),
                        request_id: None,
                    },
                },
            };
            upstream.request_id = request_id;
            upstream
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => Upstream::default(),
    }
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) if !text.is_empty() => Some(text.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(_) | Value::Null | Value::Bool(_) | Value::Array(_) | Value::Object(_) => {
            None
        }
    }
}

/// FastAPI-style `detail`: a string, or validation items with `msg`.
fn detail_text(detail: &Value) -> String {
    match detail {
        Value::String(text) => text.clone(),
        Value::Array(items) => items
            .iter()
            .map(|item| item.get("msg").and_then(scalar).unwrap_or_else(|| item.to_string()))
            .collect::<Vec<_>>()
            .join("; "),
        Value::Object(_) | Value::Null | Value::Bool(_) | Value::Number(_) => detail.to_string(),
    }
}

fn looks_like_html(text: &str) -> bool {
    let head: String = text.trim_start().chars().take(512).collect::<String>().to_ascii_lowercase();
    head.starts_with("<!doctype html")
        || head.starts_with("<html")
        || head.contains("<head")
        || head.contains("<body")
}

/// An HTML error page (proxies, gateways, captive portals) reduced to its title or its text.
fn html_summary(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    if let Some(start) = lower.find("<title")
        && let Some(open_end) = lower[start..].find('>')
        && let Some(close) = lower[start..].find("</title")
        && start + open_end < start + close
    {
        let title = html[start + open_end + 1..start + close].trim();
        if !title.is_empty() {
            return format!("HTML page: {title}");
        }
    }
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    format!("HTML page: {}", text.trim())
}

fn build(
    status: Option<u16>,
    upstream: Upstream,
    request_id: Option<String>,
    secrets: &[&str],
) -> ProviderError {
    let clean = |text: &str| {
        // Redact before capping, so the cap never cuts a secret into a prefix that escapes redaction.
        let text = sanitize(&redact(&sanitize(text, MAX_TEXT_BODY), secrets), MAX_UPSTREAM_CHARS);
        (!text.is_empty()).then_some(text)
    };
    let kind_text = upstream.kind.as_deref().and_then(clean);
    let code = upstream.code.as_deref().and_then(clean);
    let message = upstream.message.as_deref().and_then(clean);
    let wording = [kind_text.as_deref(), code.as_deref(), message.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    // In a stream there is no status: infer one from the error type or code.
    let code_wording = [kind_text.as_deref(), code.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    let effective = status.or_else(|| infer_status(&code_wording, &wording));
    let (kind, reason, conclusion) = classify(effective, &wording);
    // LiteLLM and OpenRouter repeat the status as `code`; their `type` says more.
    let numeric = |code: &str| code.bytes().all(|b| b.is_ascii_digit());
    let upstream_code = match (code, kind_text) {
        (Some(code), Some(kind_text)) if numeric(&code) => Some(kind_text),
        (Some(code), _) => Some(code),
        (None, kind_text) => kind_text,
    };
    let text = match status {
        Some(status) => format!("{conclusion} (HTTP {status})"),
        None => format!("{conclusion} (reported while streaming)"),
    };
    ProviderError {
        kind,
        message: text,
        details: ProviderDetails {
            status,
            request_id: request_id.map(|id| sanitize(&id, 200)).filter(|id| !id.is_empty()),
            reason: reason.map(|reason| reason.as_str().to_owned()),
            upstream_code,
            upstream_message: message,
        },
    }
}

type Classified = (ProviderErrorKind, Option<ErrorReason>, &'static str);

fn classify(status: Option<u16>, wording: &str) -> Classified {
    use ErrorReason as R;
    use ProviderErrorKind as K;
    let has = |needles: &[&str]| needles.iter().any(|needle| wording.contains(needle));
    // "credits", not "credit": "invalid credentials" is not about money. Budgets by their
    // phrases only: "budget_tokens" is Anthropic's thinking budget, not money.
    let quota = has(&[
        "quota",
        "insufficient_balance",
        "insufficient balance",
        "credits",
        "insufficient credit",
        "billing",
        "arrearage",
        "payment required",
        "budget_exceeded",
        "budget has been exceeded",
        "exceededbudget",
        "exceeded budget",
        "over budget",
    ]);
    // LiteLLM without a key database: any key but the master key.
    let proxy_key = has(&["no_db_connection"]);
    let context = has(&[
        "context_length",
        "context length",
        "context window",
        "context size",
        "prompt is too long",
        "input is too long",
        "too many tokens",
        "reduce the length",
    ]);
    let model_missing = has(&[
        "model_not_found",
        "model not found",
        "no such model",
        "unknown model",
        "invalid model",
    ]) || (wording.contains("model")
        && has(&["not found", "does not exist", "not exist", "not available"]));
    let filtered = has(&[
        "content_filter",
        "content_policy",
        "content management policy",
        "data_inspection_failed",
        "moderation",
        "flagged",
    ]);
    match status {
        Some(401) => (K::Auth, Some(R::InvalidKey), "the server rejected the API key"),
        Some(403) if filtered => (K::ContentFilter, None, "the provider flagged the content"),
        Some(403) => (K::Auth, Some(R::PermissionDenied), "the key is not allowed to do this"),
        Some(402) => (K::RateLimit, Some(R::QuotaExceeded), QUOTA),
        _ if quota && !context => (K::RateLimit, Some(R::QuotaExceeded), QUOTA),
        Some(400..=499) if proxy_key => (
            K::Auth,
            Some(R::InvalidKey),
            "the proxy rejected the API key (a LiteLLM proxy without a key database accepts only \
             its master key)",
        ),
        Some(404) if model_missing => {
            (K::Protocol, Some(R::ModelNotFound), "the server does not know this model")
        }
        Some(404) => (K::Protocol, Some(R::EndpointNotFound), "there is no API at this address"),
        Some(429) => (K::RateLimit, None, "the provider is limiting the rate of requests"),
        Some(503 | 529) => (K::Overloaded, None, "the provider is overloaded"),
        _ if context => {
            (K::ContextTooLong, None, "the conversation is longer than the model accepts")
        }
        _ if model_missing => {
            (K::Protocol, Some(R::ModelNotFound), "the server does not know this model")
        }
        _ if filtered => (K::ContentFilter, None, "the provider filtered the content"),
        Some(408) => (K::Network, Some(R::UpstreamError), "the request timed out"),
        Some(400..=499) => (K::Protocol, Some(R::InvalidRequest), "the server refused the request"),
        Some(500..=599) | None => {
            (K::Network, Some(R::UpstreamError), "the provider failed on its side")
        }
        Some(_) => {
            (K::Protocol, Some(R::ResponseFormat), "the server answered with an unexpected status")
        }
    }
}

/// The conclusion of an exhausted quota, whatever said it.
const QUOTA: &str = "the credit, quota or budget of the key is used up";

/// Error types and codes of OpenAI, Anthropic and OpenRouter mapped to the status they stand
/// for (OpenRouter puts the HTTP status itself in `code`); failing that, unmistakable phrases of
/// the message. Numbers inside messages are never read as statuses.
fn infer_status(code_wording: &str, wording: &str) -> Option<u16> {
    if let Some(number) = code_wording.split_whitespace().find_map(|word| word.parse::<u16>().ok())
        && (400..=599).contains(&number)
    {
        return Some(number);
    }
    let table: [(&str, u16); 12] = [
        ("authentication", 401),
        ("invalid_api_key", 401),
        ("permission", 403),
        ("billing", 402),
        ("not_found", 404),
        ("rate_limit", 429),
        ("overloaded", 529),
        ("timeout", 408),
        ("request_too_large", 413),
        ("invalid_request", 400),
        ("server_error", 500),
        ("api_error", 500),
    ];
    if let Some(&(_, status)) = table.iter().find(|(needle, _)| code_wording.contains(needle)) {
        return Some(status);
    }
    let phrases: [(&str, u16); 3] =
        [("rate limit", 429), ("too many requests", 429), ("overloaded", 529)];
    phrases.iter().find(|(needle, _)| wording.contains(needle)).map(|&(_, status)| status)
}

#[cfg(test)]
#[path = "diagnose_tests.rs"]
mod tests;
