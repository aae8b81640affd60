//! Tests of error sanitising and redaction.

use pretty_assertions::assert_eq;

use super::redact;
use super::sanitize;

#[test]
fn sanitize_strips_controls_and_collapses_whitespace() {
    assert_eq!(sanitize("  bad\u{0}\u{7}\r\n\tkey \u{202E}here  ", 100), "bad key here");
}

#[test]
fn sanitize_caps_characters_not_bytes() {
    let text = "é".repeat(3000);
    let out = sanitize(&text, 2000);
    assert_eq!(out.chars().count(), 2000);
}

#[test]
fn redact_removes_given_secrets_and_key_shapes() {
    let text = "Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwxyz. Your other key XyZ12345secret too; Bearer abcdefgh12 ok";
    assert_eq!(
        redact(text, &["XyZ12345secret"]),
        "Incorrect API key provided: [redacted]. Your other key [redacted] too; Bearer [redacted] ok"
    );
}

#[test]
fn redact_keeps_model_ids_and_request_ids() {
    let text =
        "model Meta-Llama-3.1-405B-Instruct-Turbo-Preview not found (req_011CSHoEeqs5C35K2UUqR7Fy)";
    assert_eq!(redact(text, &[]), text);
}

#[test]
fn redact_catches_long_unbroken_tokens() {
    assert_eq!(redact("key a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4e5f6 bad", &[]), "key [redacted] bad");
}
