//! Tests of base URL normalization, drafts, sealing and the stored form.

use pretty_assertions::assert_eq;
use serde_json::json;

use super::BaseUrl;
use super::Connection;
use super::ConnectionDraft;
use super::ConnectionError;
use super::StoredValue;
use super::UrlError;
use super::is_sensitive_header;
use crate::quirks::QuirkFlag;
use crate::quirks::Quirks;
use crate::secret::VaultKey;
use crate::templates::WireFormat;

#[track_caller]
fn check(input: &str, expect: Result<&str, UrlError>) {
    assert_eq!(BaseUrl::parse(input).as_ref().map(BaseUrl::as_str), expect.as_deref(), "{input}");
}

#[test]
fn base_urls_are_normalized() {
    check("https://api.openai.com/v1/", Ok("https://api.openai.com/v1"));
    check("  api.deepseek.com// ", Ok("https://api.deepseek.com"));
    check("HTTPS://API.Example.com/Path/V1", Ok("https://api.example.com/Path/V1"));
    check("http://localhost:11434/v1", Ok("http://localhost:11434/v1"));
    check("http://127.0.0.1:8080", Ok("http://127.0.0.1:8080"));
    check("http://127.1.2.3:8080", Ok("http://127.1.2.3:8080"));
    check("http://[::1]:1234/v1", Ok("http://[::1]:1234/v1"));
    check("https://[2001:db8::1]/v1", Ok("https://[2001:db8::1]/v1"));
}

#[test]
fn unsafe_or_malformed_base_urls_are_refused() {
    check("", Err(UrlError::Empty));
    check("http://api.example.com/v1", Err(UrlError::InsecureRemote));
    check("http://192.168.1.5:11434", Err(UrlError::InsecureRemote));
    check("http://localhost.evil.com", Err(UrlError::InsecureRemote));
    check("ftp://example.com", Err(UrlError::UnsupportedScheme));
    check("javascript://alert(1)", Err(UrlError::UnsupportedScheme));
    check("https://user:sk-secret@example.com", Err(UrlError::Credentials));
    check("https://example.com/v1?key=abc", Err(UrlError::QueryOrFragment));
    check("https:///v1", Err(UrlError::MissingHost));
    check("https://example.com:99999", Err(UrlError::Malformed));
    check("https://exa mple.com", Err(UrlError::Malformed));
    check("https://[::1", Err(UrlError::Malformed));
    // The error never echoes the URL, which may carry credentials.
    let err = BaseUrl::parse("https://user:sk-secret@example.com").unwrap_err();
    assert!(!err.to_string().contains("sk-secret"));
}

fn draft() -> ConnectionDraft {
    ConnectionDraft {
        id: "c1".to_owned(),
        name: "Local".to_owned(),
        kind: Some(WireFormat::OpenAi),
        base_url: "localhost:1234".to_owned(),
        api_keys: vec![" sk-one-1111 ".to_owned(), String::new(), "sk-two-2222".to_owned()],
        custom_headers: vec![
            ("X-Title".to_owned(), "Panelot".to_owned()),
            ("X-Api-Token".to_owned(), "tok-secret-3333".to_owned()),
        ],
        enabled: true,
        quirks: Quirks::default().with(QuirkFlag::NoStreamOptions),
        model_ids: vec![" m1 ".to_owned(), String::new()],
        models: Vec::new(),
    }
}

#[test]
fn a_draft_becomes_a_connection_with_sealed_secrets() {
    let key = VaultKey::from_bytes([9; 32]);
    // No scheme on a loopback host still means https: http must be typed.
    let conn = Connection::from_draft(draft(), &key).unwrap();
    assert_eq!(conn.base_url.as_str(), "https://localhost:1234");
    let keys: Vec<String> = conn.api_keys.iter().map(|k| k.open(&key).unwrap()).collect();
    assert_eq!(keys, ["sk-one-1111", "sk-two-2222"]);
    assert_eq!(conn.custom_headers[0].value, StoredValue::Plain("Panelot".to_owned()));
    assert_eq!(conn.custom_headers[0].name, "x-title");
    let StoredValue::Sealed(token) = &conn.custom_headers[1].value else {
        panic!("a token header is sealed");
    };
    assert_eq!(token.open(&key).unwrap(), "tok-secret-3333");
    assert_eq!(conn.model_ids, ["m1"]);
    assert!(conn.missing_v1_hint());
}

#[test]
fn the_stored_form_is_camel_case_and_holds_no_plaintext_secret() {
    let key = VaultKey::from_bytes([9; 32]);
    let conn = Connection::from_draft(draft(), &key).unwrap();
    let stored = serde_json::to_value(&conn).unwrap();
    let text = stored.to_string();
    for secret in ["sk-one-1111", "sk-two-2222", "tok-secret-3333"] {
        assert!(!text.contains(secret), "{text}");
    }
    assert_eq!(stored["kind"], json!("openai"));
    assert_eq!(stored["baseUrl"], json!("https://localhost:1234"));
    assert_eq!(stored["quirks"], json!(["noStreamOptions"]));
    assert_eq!(stored["modelIds"], json!(["m1"]));
    assert_eq!(
        stored["customHeaders"][0],
        json!({"name": "x-title", "value": {"plain": "Panelot"}})
    );
    let back: Connection = serde_json::from_value(stored).unwrap();
    assert_eq!(back, conn);
}

#[test]
fn stored_connections_are_validated_when_read() {
    let minimal = json!({"id": "a", "name": "A", "kind": "anthropic", "baseUrl": "https://api.anthropic.com/", "enabled": false});
    let conn: Connection = serde_json::from_value(minimal).unwrap();
    assert_eq!(conn.base_url.as_str(), "https://api.anthropic.com");
    assert!(!conn.missing_v1_hint());
    for bad in [
        json!({"id": "a", "name": "A", "kind": "gemini", "baseUrl": "https://x.com", "enabled": true}),
        json!({"id": "a", "name": "A", "kind": "openai", "baseUrl": "http://x.com", "enabled": true}),
        json!({"id": "a", "name": "A", "kind": "openai", "baseUrl": "https://x.com", "enabled": true, "quirks": ["noSuchQuirk"]}),
        json!({"id": "a", "name": "A", "kind": "openai", "baseUrl": "https://x.com", "enabled": true, "apiKeys": ["sk-plaintext"]}),
        json!({"id": "a", "name": "A", "kind": "openai", "baseUrl": "https://x.com", "enabled": true, "extra": 1}),
    ] {
        assert!(serde_json::from_value::<Connection>(bad.clone()).is_err(), "{bad}");
    }
}

#[test]
fn bad_drafts_fail_without_echoing_secrets() {
    let key = VaultKey::from_bytes([1; 32]);
    let with = |f: fn(&mut ConnectionDraft)| {
        let mut d = draft();
        f(&mut d);
        Connection::from_draft(d, &key).unwrap_err()
    };
    assert_eq!(with(|d| d.id = " ".to_owned()), ConnectionError::MissingId);
    assert_eq!(with(|d| d.kind = None), ConnectionError::MissingKind);
    assert_eq!(
        with(|d| d.base_url = "http://example.com".to_owned()),
        ConnectionError::Url(UrlError::InsecureRemote)
    );
    assert_eq!(with(|d| d.api_keys = vec!["sk-a b".to_owned()]), ConnectionError::Key(1));
    assert_eq!(
        with(|d| d.custom_headers = vec![("Host".to_owned(), "x".to_owned())]),
        ConnectionError::HeaderName("host".to_owned())
    );
    let err =
        with(|d| d.custom_headers = vec![("x-token".to_owned(), "tok-evil\r\nx: 1".to_owned())]);
    assert_eq!(err, ConnectionError::HeaderValue("x-token".to_owned()));
    assert!(!err.to_string().contains("tok-evil"));
}

#[test]
fn a_draft_debug_hides_keys_and_header_values() {
    let text = format!("{:?}", draft());
    for secret in ["sk-one-1111", "tok-secret-3333", "Panelot"] {
        assert!(!text.contains(secret), "{text}");
    }
}

#[test]
fn sensitive_header_names() {
    for name in ["Authorization", "x-api-key", "X-Auth-Token", "cookie", "api-secret"] {
        assert!(is_sensitive_header(name), "{name}");
    }
    for name in ["x-title", "http-referer", "openai-organization", "anthropic-beta"] {
        assert!(!is_sensitive_header(name), "{name}");
    }
}
