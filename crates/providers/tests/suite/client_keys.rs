//! Keys: sticky use with failover on 401/403/429, sealed secrets that a wrong vault key cannot
//! open, and errors that never contain a key or a header value.

use std::rc::Rc;

use panelot_core::env::AbortSignal;
use panelot_core::model::ProviderError;
use panelot_protocol::engine::ProviderErrorKind;
use panelot_providers::ClientConfig;
use panelot_providers::Connection;
use panelot_providers::ConnectionDraft;
use panelot_providers::NativeHttp;
use panelot_providers::ProviderClient;
use panelot_providers::VaultKey;
use panelot_providers::WireFormat;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::Reply;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::harness::FakeTimer;
use super::harness::anthropic_at;
use super::harness::call;
use super::harness::chat_requests;
use super::harness::client;
use super::harness::hello;
use super::harness::keys_sent;
use super::harness::openai_at;
use super::harness::vault;

#[tokio::test]
async fn a_rejected_key_fails_over_to_the_next_and_stays_sticky() {
    let server = MockProvider::start();
    server.push(Reply::error(401, json!({"error": {"message": "bad key"}})));
    server.push(Reply::error(403, json!({"error": {"message": "not allowed"}})));
    server.push(Reply::text("third key works"));
    server.push(Reply::text("still the third"));
    let timer = FakeTimer::new();
    let client =
        client(&timer, vec![openai_at(&server, &["sk-one-1111", "sk-two-2222", "sk-three-333"])]);
    assert_eq!(call(&client, "oa", &hello()).await.1.unwrap().turn.text, "third key works");
    assert_eq!(call(&client, "oa", &hello()).await.1.unwrap().turn.text, "still the third");
    assert_eq!(
        keys_sent(&chat_requests(&server)),
        ["sk-one-1111", "sk-two-2222", "sk-three-333", "sk-three-333"]
    );
    // Key switches do not wait.
    assert_eq!(timer.backoffs(), Vec::<u64>::new());
}

#[tokio::test]
async fn a_rate_limited_key_switches_before_backing_off() {
    let server = MockProvider::start();
    server.push(Reply::error(429, json!({"error": {"message": "slow"}})).retry_after(20));
    server.push(Reply::error(429, json!({"error": {"message": "slow"}})).retry_after(2));
    server.push(Reply::text("ok"));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![anthropic_at(&server, &["ak-one-1111", "ak-two-2222"])]);
    assert_eq!(call(&client, "an", &hello()).await.1.unwrap().turn.text, "ok");
    assert_eq!(keys_sent(&chat_requests(&server)), ["ak-one-1111", "ak-two-2222", "ak-two-2222"]);
    assert_eq!(timer.backoffs(), vec![2_000]);
}

#[tokio::test]
async fn when_every_key_is_rejected_the_call_fails_with_auth() {
    let server = MockProvider::start();
    for _ in 0..3 {
        server.push(Reply::error(401, json!({"error": {"message": "bad key"}})));
    }
    let timer = FakeTimer::new();
    let client = client(&timer, vec![openai_at(&server, &["sk-one-1111", "sk-two-2222"])]);
    let err = call(&client, "oa", &hello()).await.1.unwrap_err();
    assert_eq!(
        (err.kind, err.details.reason.as_deref()),
        (ProviderErrorKind::Auth, Some("invalid_key"))
    );
    assert_eq!(keys_sent(&chat_requests(&server)), ["sk-one-1111", "sk-two-2222"]);
    assert_eq!(server.pending_replies(), 1);
}

#[tokio::test]
async fn keys_sealed_under_another_vault_key_fail_with_a_typed_error() {
    let server = MockProvider::start();
    let conn = openai_at(&server, &["sk-one-1111"]);
    let timer = FakeTimer::new();
    let http = NativeHttp::new().unwrap();
    let other = VaultKey::from_bytes([7; 32]);
    let client = ProviderClient::new(http, Rc::clone(&timer), other, ClientConfig::default());
    client.set_connections([conn]);
    let err = call(&client, "oa", &hello()).await.1.unwrap_err();
    assert_eq!(
        (err.kind, err.details.reason.as_deref()),
        (ProviderErrorKind::Auth, Some("connection_unavailable"))
    );
    assert!(server.requests().is_empty());
}

const KEY: &str = "sk-panelot-LEAKCHECK-0123456789abcdef";
const HEADER_VALUE: &str = "hv-LEAKCHECK-fedcba9876543210";
const PLAIN_HEADER_VALUE: &str = "plain-LEAKCHECK-title";

fn leaky_connection(base_url: &str) -> Connection {
    let draft = ConnectionDraft {
        id: "leak".to_owned(),
        name: "leak".to_owned(),
        kind: Some(WireFormat::OpenAi),
        base_url: base_url.to_owned(),
        api_keys: vec![KEY.to_owned()],
        custom_headers: vec![
            ("x-proxy-token".to_owned(), HEADER_VALUE.to_owned()),
            ("x-title".to_owned(), PLAIN_HEADER_VALUE.to_owned()),
        ],
        enabled: true,
        ..ConnectionDraft::default()
    };
    Connection::from_draft(draft, &vault()).unwrap()
}

#[track_caller]
fn assert_no_secret(err: &ProviderError) {
    let rendered =
        [err.to_string(), format!("{err:?}"), serde_json::to_string(&err.details).unwrap()];
    for text in rendered {
        for secret in [KEY, "LEAKCHECK", HEADER_VALUE, PLAIN_HEADER_VALUE] {
            assert!(!text.contains(secret), "{secret} leaked into {text}");
        }
    }
}

#[tokio::test]
async fn errors_never_contain_keys_or_header_values() {
    let server = MockProvider::start();
    let echo = format!(
        "Incorrect API key provided: {KEY}. Header was {HEADER_VALUE}, title {PLAIN_HEADER_VALUE}."
    );
    server.push(Reply::error(401, json!({"error": {"message": echo, "code": KEY}})));
    for _ in 0..4 {
        server
            .push(Reply::error(500, format!("upstream failed for Bearer {KEY} ({HEADER_VALUE})")));
    }
    server.push(Reply::raw_response(format!("garbage {KEY}\r\n\r\n").into_bytes()));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![leaky_connection(&format!("{}/v1", server.base_url()))]);
    let auth = call(&client, "leak", &hello()).await.1.unwrap_err();
    assert_eq!(auth.kind, ProviderErrorKind::Auth);
    assert_no_secret(&auth);
    let upstream = call(&client, "leak", &hello()).await.1.unwrap_err();
    assert_eq!(upstream.details.status, Some(500));
    assert_no_secret(&upstream);
    let raw = call(&client, "leak", &hello()).await.1.unwrap_err();
    assert_no_secret(&raw);
    // The headers did reach the server.
    let first = &chat_requests(&server)[0];
    assert_eq!(first.header("x-proxy-token"), Some(HEADER_VALUE));
    assert_eq!(first.header("authorization"), Some(format!("Bearer {KEY}").as_str()));
}

#[tokio::test]
async fn network_errors_and_listings_never_contain_keys_either() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let conn = leaky_connection(&format!("http://127.0.0.1:{port}/v1"));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![conn.clone()]);
    let err = call(&client, "leak", &hello()).await.1.unwrap_err();
    assert_eq!(err.kind, ProviderErrorKind::Network);
    assert_no_secret(&err);
    let err = client.list_models("leak", &AbortSignal::default()).await.unwrap_err();
    assert_no_secret(&err);
    let report = client.verify(&conn, None, &AbortSignal::default()).await;
    assert!(!format!("{report:?}").contains("LEAKCHECK"));
    // Nor does the stored connection's Debug output.
    assert!(!format!("{conn:?}").contains(KEY));
    assert!(!format!("{conn:?}").contains(HEADER_VALUE));
}

#[tokio::test]
async fn the_sticky_key_survives_a_settings_reload_unless_the_keys_changed() {
    let server = MockProvider::start();
    server.push(Reply::error(401, json!({"error": {"message": "bad key"}})));
    for text in ["a", "b", "c"] {
        server.push(Reply::text(text));
    }
    let conn = openai_at(&server, &["sk-one-1111", "sk-two-2222"]);
    let timer = FakeTimer::new();
    let client = client(&timer, vec![conn.clone()]);
    call(&client, "oa", &hello()).await.1.unwrap();
    client.set_connections([conn]);
    call(&client, "oa", &hello()).await.1.unwrap();
    // Keys entered again (sealed anew) count as a change: start from the first.
    client.set_connections([openai_at(&server, &["sk-one-1111", "sk-two-2222"])]);
    call(&client, "oa", &hello()).await.1.unwrap();
    assert_eq!(
        keys_sent(&chat_requests(&server)),
        ["sk-one-1111", "sk-two-2222", "sk-two-2222", "sk-one-1111"]
    );
}
