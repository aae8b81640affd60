//! Tests of request plumbing.

use pretty_assertions::assert_eq;

use super::HeaderValue;
use super::join_url;

#[test]
fn join_url_normalises_slashes_and_a_shared_v1() {
    assert_eq!(
        join_url("https://api.openai.com/v1/", "chat/completions"),
        "https://api.openai.com/v1/chat/completions"
    );
    assert_eq!(
        join_url("https://api.anthropic.com", "v1/messages"),
        "https://api.anthropic.com/v1/messages"
    );
    assert_eq!(
        join_url("https://api.anthropic.com/v1", "v1/messages"),
        "https://api.anthropic.com/v1/messages"
    );
}

#[test]
fn secret_header_values_are_not_debug_printed() {
    let value = HeaderValue::Secret("sk-ant-secret".to_owned());
    assert_eq!(format!("{value:?}"), "Secret([redacted])");
    assert_eq!(value.expose(), "sk-ant-secret");
}
