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
    for key in ["password", "userPassword", "PASSWD", "pwd", "clientSecret", "api_key", "X-Token"] {
        assert!(is_credential_key(key), "{key}");
    }
    for key in ["text", "url", "pass", "user"] {
        assert!(!is_credential_key(key), "{key}");
    }
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
        emails: vec!["/form/note".to_owned()],
    };
    assert_eq!(scan(&params), expect);
}
