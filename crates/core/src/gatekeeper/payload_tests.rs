//! Card, credential and email detection.

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

#[test]
fn luhn() {
    for valid in ["4111111111111111", "5555555555554444", "378282246310005", "79927398713"] {
        assert!(is_luhn_valid(valid), "{valid}");
    }
    for invalid in ["4111111111111112", "1234567812345678", "0000000000000000", "", "41x1"] {
        assert!(!is_luhn_valid(invalid), "{invalid}");
    }
}

#[track_caller]
fn check_card(text: &str, expect: bool) {
    assert_eq!(contains_card(text), expect, "{text:?}");
}

#[test]
fn cards() {
    check_card("4111111111111111", true);
    check_card("card: 4111 1111 1111 1111, exp 12/29", true);
    check_card("4111-1111-1111-1111", true);
    check_card("3782 822463 10005", true);
    check_card("4111 1111 1111 1111 2029", true);
    check_card("order 4222222222222", true);
    check_card("4111111111111112", false);
    check_card("411111111111", false);
    check_card("41111111111111111111111", false);
    check_card("0000 0000 0000 0000", false);
    check_card("4111  1111 1111 1111", false);
    check_card("phone 555-0100", false);
}

#[test]
fn emails() {
    assert!(contains_email("write to a.b+c@example.co.uk today"));
    assert!(contains_email("x@y.io"));
    assert!(!contains_email("@handle"));
    assert!(!contains_email("a@localhost"));
    assert!(!contains_email("a@b.1"));
    assert!(!contains_email("no at sign"));
}

#[test]
fn credential_keys() {
    for key in [
        "password",
        "userPassword",
        "PASSWD",
        "pwd",
        "pass",
        "clientSecret",
        "api_key",
        "apiKey",
        "APIKey",
        "X-API-KEY",
        "x-token",
        "access_token",
        "newpassword",
        "Password",
        "Enter your password",
        "PIN",
        "pin-code",
        "otp",
        "CVV2",
        "cvc",
        "ssn",
        "card_number",
        "cardNumber",
        "Card number",
        "private key",
    ] {
        assert!(is_credential_key(key), "{key}");
    }
    for key in [
        "text",
        "url",
        "user",
        "username",
        "max_tokens",
        "maxTokens",
        "tokenizer",
        "author",
        "spinner",
        "pinned",
        "passenger",
        "bypass",
        "compass",
        "passport",
        "secretary",
        "shipping",
        "",
    ] {
        assert!(!is_credential_key(key), "{key}");
    }
}

#[test]
fn text_typed_into_a_field_labelled_as_a_credential_is_a_credential() {
    let flagged = |params: serde_json::Value| scan(&params).credentials;
    assert_eq!(flagged(json!({"element": "Password", "ref": "e4", "text": "hunter2"})), ["/text"]);
    assert_eq!(flagged(json!({"fieldLabel": "One-time PIN", "value": "1234"})), ["/value"]);
    assert_eq!(flagged(json!({"placeholder": "API key", "values": ["sk-1"]})), ["/values"]);
    assert_eq!(
        flagged(json!({"actions": [{"kind": "type", "params": {"label": "CVV", "text": "123"}}]})),
        ["/actions/0/params/text"]
    );
    // Other labels, empty text, and the label itself are not credentials.
    assert_eq!(flagged(json!({"element": "Search", "text": "hunter2"})), Vec::<String>::new());
    assert_eq!(flagged(json!({"element": "Password", "text": ""})), Vec::<String>::new());
    assert_eq!(flagged(json!({"element": "Password", "ref": "e4"})), Vec::<String>::new());
    assert_eq!(flagged(json!({"max_tokens": 4000, "author": "me"})), Vec::<String>::new());
}

#[test]
fn scan_walks_nested_params() {
    let params = json!({
        "actions": [{"kind": "type", "params": {"text": "4111 1111 1111 1111"}}],
        "form": {"userPassword": "hunter2", "emptyToken": "", "note": "mail me@x.org"},
        "amount": 4111111111111111_u64,
    });
    let expect = PayloadFindings {
        cards: vec!["/actions/0/params/text".to_owned(), "/amount".to_owned()],
        credentials: vec!["/form/userPassword".to_owned()],
        secrets: Vec::new(),
        emails: vec!["/form/note".to_owned()],
    };
    assert_eq!(scan(&params), expect);
}
