//! Tests of error classification and `retry-after`.

use panelot_protocol::engine::ProviderDetails;
use panelot_protocol::engine::ProviderErrorKind as K;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::HttpFailure;
use super::classify_http_error;
use super::classify_stream_error;
use super::retry_after_ms;

fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

/// Classifies and returns (kind, reason).
#[track_caller]
fn check(status: u16, body: &str, kind: K, reason: Option<&str>) {
    let err = classify_http_error(&HttpFailure {
        status,
        headers: &[],
        body: body.as_bytes(),
        secrets: &[],
    });
    assert_eq!((err.kind, err.details.reason.as_deref()), (kind, reason), "{status} {body}");
    assert_eq!(err.details.status, Some(status));
}

#[test]
fn classification_order() {
    check(
        401,
        r#"{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}"#,
        K::Auth,
        Some("invalid_key"),
    );
    check(
        403,
        r#"{"error":{"type":"permission_error","message":"no access"}}"#,
        K::Auth,
        Some("permission_denied"),
    );
    check(
        403,
        r#"{"error":{"code":403,"message":"Input was flagged by moderation"}}"#,
        K::ContentFilter,
        None,
    );
    check(
        402,
        r#"{"error":{"code":402,"message":"Insufficient credits"}}"#,
        K::RateLimit,
        Some("quota_exceeded"),
    );
    check(
        429,
        r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
        K::RateLimit,
        Some("quota_exceeded"),
    );
    check(
        404,
        r#"{"error":{"message":"The model `gpt-9` does not exist","code":"model_not_found"}}"#,
        K::Protocol,
        Some("model_not_found"),
    );
    check(
        404,
        "<html><head><title>404 Not Found</title></head><body>nginx</body></html>",
        K::Protocol,
        Some("endpoint_not_found"),
    );
    check(
        429,
        r#"{"error":{"type":"rate_limit_error","message":"slow down"}}"#,
        K::RateLimit,
        None,
    );
    check(
        529,
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        K::Overloaded,
        None,
    );
    check(503, "Service Unavailable", K::Overloaded, None);
    check(
        400,
        r#"{"error":{"message":"This model's maximum context length is 128000 tokens","code":"context_length_exceeded"}}"#,
        K::ContextTooLong,
        None,
    );
    check(
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
        K::ContextTooLong,
        None,
    );
    check(
        400,
        r#"{"error":"model \"llama9\" not found, try pulling it first"}"#,
        K::Protocol,
        Some("model_not_found"),
    );
    check(
        400,
        r#"{"code":"DataInspectionFailed","message":"Input data may contain inappropriate content. data_inspection_failed"}"#,
        K::ContentFilter,
        None,
    );
    check(
        422,
        r#"{"detail":[{"loc":["body","messages"],"msg":"field required","type":"missing"}]}"#,
        K::Protocol,
        Some("invalid_request"),
    );
    check(408, "timeout", K::Network, Some("upstream_error"));
    check(
        500,
        r#"{"error":{"message":"The server had an error","type":"server_error"}}"#,
        K::Network,
        Some("upstream_error"),
    );
    check(
        502,
        "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>",
        K::Network,
        Some("upstream_error"),
    );
    check(302, "", K::Protocol, Some("response_format"));
}

/// LiteLLM proxy answers, as its `ProxyException` writes them (`{"error": {message, type,
/// param, code}}` with the status as a string `code`).
#[test]
fn litellm_proxy_answers() {
    let budget = |code: &str, message: &str| {
        json!({"error": {"message": message, "type": "budget_exceeded", "param": null, "code": code}})
            .to_string()
    };
    let key_budget = "Budget has been exceeded! Current cost: 30.093831, Max budget: 30.0";
    // A virtual key over its budget: 400 in older releases, 429 later, 422 now. Always an
    // exhausted quota, never a malformed request or a passing rate limit.
    for status in [400, 422, 429] {
        check(
            status,
            &budget(&status.to_string(), key_budget),
            K::RateLimit,
            Some("quota_exceeded"),
        );
    }
    // The team's and an end user's budgets, worded differently.
    check(
        400,
        &budget(
            "400",
            "Budget has been exceeded! Team=99c74652-6e33-4dbd-93f3-5b545da15ade Current cost: 12.1, Max budget: 12.0",
        ),
        K::RateLimit,
        Some("quota_exceeded"),
    );
    check(
        400,
        &budget(
            "400",
            "ExceededBudget: End User=ishaan3 over budget. Spend=0.000887, Budget=0.0001",
        ),
        K::RateLimit,
        Some("quota_exceeded"),
    );
    // A proxy behind a proxy: the inner one's budget error passed on without its type.
    check(
        400,
        r#"{"error":{"message":"litellm.BadRequestError: OpenAIException - Budget has been exceeded! Current cost: 14.2, Max budget: 10.0. Received Model Group=llama3-8b
Available Model Group Fallbacks=None","type":null,"param":null,"code":"400"}}"#,
        K::RateLimit,
        Some("quota_exceeded"),
    );
    // Without a key database LiteLLM answers any key but its master key this way: the key.
    check(
        400,
        r#"{"error":{"message":"No connected db.","type":"no_db_connection","param":null,"code":"400"}}"#,
        K::Auth,
        Some("invalid_key"),
    );
    // With a database that is down, the same type comes with 503: the proxy is unavailable.
    check(
        503,
        r#"{"error":{"message":"Service Unavailable, the authentication database is temporarily unreachable. Please retry shortly.","type":"no_db_connection","param":"None","code":"503"}}"#,
        K::Overloaded,
        None,
    );
    check(
        401,
        r#"{"error":{"message":"Authentication Error, Invalid proxy server token passed. Received API Key = sk-...1234, Key Hash (Token) =a1b2c3. Unable to find token in cache or `LiteLLM_VerificationTokenTable`","type":"token_not_found_in_db","param":"key","code":"401"}}"#,
        K::Auth,
        Some("invalid_key"),
    );
    // Its requests-per-minute limit passes: a plain rate limit.
    check(
        429,
        r#"{"error":{"message":"LiteLLM Rate Limit Handler for rate limit type = key. Crossed TPM / RPM / Max Parallel Request Limit. current rpm: 1, rpm limit: 1","type":"None","param":"None","code":"429"}}"#,
        K::RateLimit,
        None,
    );
}

/// The type says more than a `code` that repeats the status; the message names neither.
#[test]
fn a_numeric_code_gives_way_to_the_type() {
    let body = r#"{"error":{"message":"No connected db.","type":"no_db_connection","param":null,"code":"400"}}"#;
    let err = classify_http_error(&HttpFailure {
        status: 400,
        headers: &[],
        body: body.as_bytes(),
        secrets: &[],
    });
    assert_eq!(err.details.upstream_code.as_deref(), Some("no_db_connection"));
    assert_eq!(err.details.upstream_message.as_deref(), Some("No connected db."));
    assert_eq!(
        err.message,
        "the proxy rejected the API key (a LiteLLM proxy without a key database accepts only its \
         master key) (HTTP 400)"
    );
}

/// Anthropic's thinking budget is about tokens, not money.
#[test]
fn a_thinking_budget_is_not_a_quota() {
    check(
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"`max_tokens` must be greater than `thinking.budget_tokens`"}}"#,
        K::Protocol,
        Some("invalid_request"),
    );
}

#[test]
fn invalid_credentials_wording_is_not_quota() {
    check(
        400,
        r#"{"message":"Invalid credentials","code":"InvalidApiKey"}"#,
        K::Protocol,
        Some("invalid_request"),
    );
}

#[test]
fn details_carry_request_id_code_and_sanitised_message() {
    let hdrs = headers(&[
        ("Request-Id", "req_011CSHoEeqs5C35K2UUqR7Fy"),
        ("x-api-key", "sk-ant-api03-secretsecretsecret"),
    ]);
    let body = r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key\u0000 sk-ant-api03-secretsecretsecret\n"}}"#;
    let err = classify_http_error(&HttpFailure {
        status: 401,
        headers: &hdrs,
        body: body.as_bytes(),
        secrets: &[],
    });
    assert_eq!(
        err.details,
        ProviderDetails {
            status: Some(401),
            request_id: Some("req_011CSHoEeqs5C35K2UUqR7Fy".to_owned()),
            reason: Some("invalid_key".to_owned()),
            upstream_code: Some("authentication_error".to_owned()),
            upstream_message: Some("invalid x-api-key [redacted]".to_owned()),
        }
    );
    // The provider's sentence is in the details only, so a page showing both shows it once.
    assert_eq!(err.message, "the server rejected the API key (HTTP 401)");
    assert!(!format!("{err:?}").contains("secretsecret"));
}

#[test]
fn given_secrets_never_appear_even_when_not_key_shaped() {
    let body = r#"{"message":"bad header value hunter2hunter2 for X-Custom","code":"bad"}"#;
    let err = classify_http_error(&HttpFailure {
        status: 400,
        headers: &[],
        body: body.as_bytes(),
        secrets: &["hunter2hunter2"],
    });
    assert!(!format!("{err:?}").contains("hunter2hunter2"), "{err:?}");
}

#[test]
fn body_shapes() {
    let cases = [
        (r#"{"error":{"message":"m1","type":"t1","code":"c1"}}"#, Some("c1"), Some("m1")),
        (r#"{"message":"m2","code":"c2","request_id":"r"}"#, Some("c2"), Some("m2")),
        (r#"{"detail":"m3"}"#, None, Some("m3")),
        (
            r#"[{"error":{"code":400,"message":"m4","status":"INVALID_ARGUMENT"}}]"#,
            Some("400"),
            Some("m4"),
        ),
        ("plain text m5", None, Some("plain text m5")),
        (
            "<html><head><title>Just a moment...</title></head></html>",
            None,
            Some("HTML page: Just a moment..."),
        ),
        ("", None, None),
    ];
    for (body, code, message) in cases {
        let err = classify_http_error(&HttpFailure {
            status: 400,
            headers: &[],
            body: body.as_bytes(),
            secrets: &[],
        });
        assert_eq!(
            (err.details.upstream_code.as_deref(), err.details.upstream_message.as_deref()),
            (code, message),
            "{body}"
        );
    }
}

#[test]
fn upstream_message_is_capped_at_2000_chars() {
    let body = format!(r#"{{"message":"{}"}}"#, "xy".repeat(5000));
    let err = classify_http_error(&HttpFailure {
        status: 400,
        headers: &[],
        body: body.as_bytes(),
        secrets: &[],
    });
    let message = err.details.upstream_message.unwrap_or_default();
    assert_eq!(message.chars().count(), 2000);
    assert!(err.message.chars().count() < 400);
}

#[test]
fn huge_garbage_bodies_are_bounded() {
    let body = vec![0xFFu8; 10 * 1024 * 1024];
    let err =
        classify_http_error(&HttpFailure { status: 500, headers: &[], body: &body, secrets: &[] });
    assert_eq!(err.kind, K::Network);
    assert!(err.details.upstream_message.unwrap_or_default().chars().count() <= 2000);
}

#[test]
fn stream_errors_are_classified_without_a_status() {
    let cases = [
        (
            json!({"error": {"message": "The server had an error", "type": "server_error"}}),
            K::Network,
        ),
        (
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
            K::Overloaded,
        ),
        (json!({"error": {"code": 429, "message": "Provider returned error"}}), K::RateLimit),
        (
            json!({"error": {"code": "context_length_exceeded", "message": "too long"}}),
            K::ContextTooLong,
        ),
        (json!({"error": "something broke"}), K::Network),
        (json!({"error": {"message": "max 500 tokens per chunk"}}), K::Network),
    ];
    for (payload, kind) in cases {
        let err = classify_stream_error(&payload);
        assert_eq!(err.kind, kind, "{payload}");
        assert_eq!(err.details.status, None);
    }
}

#[test]
fn retry_after_forms() {
    const NOW: u64 = 1_445_412_480_000; // Wed, 21 Oct 2015 07:28:00 GMT
    assert_eq!(retry_after_ms(&headers(&[("Retry-After", "120")]), NOW), Some(120_000));
    assert_eq!(retry_after_ms(&headers(&[("retry-after", "1.5")]), NOW), Some(2_000));
    assert_eq!(
        retry_after_ms(&headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:30 GMT")]), NOW),
        Some(30_000)
    );
    assert_eq!(
        retry_after_ms(&headers(&[("retry-after", "Wed, 21 Oct 2015 07:00:00 GMT")]), NOW),
        Some(0)
    );
    assert_eq!(
        retry_after_ms(&headers(&[("retry-after-ms", "250"), ("retry-after", "9")]), NOW),
        Some(250)
    );
    assert_eq!(retry_after_ms(&headers(&[("retry-after", "-1")]), NOW), None);
    assert_eq!(retry_after_ms(&headers(&[("retry-after", "soon")]), NOW), None);
    assert_eq!(retry_after_ms(&[], NOW), None);
}
