//! A LiteLLM proxy in front of the models, answering as it does: a virtual key over its budget
//! is an exhausted quota (the next key at once, never a retry against the same budget), and a
//! proxy without a key database refuses a wrong key with 400 `no_db_connection`, which is the
//! key's fault for failover and for Verify alike. The bodies are the `ProxyException` JSON
//! LiteLLM writes.

use panelot_core::env::AbortSignal;
use panelot_protocol::engine::ConnectionCheckFailure;
use panelot_protocol::engine::ProviderErrorKind;
use panelot_providers::VerifyFailure;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::Reply;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::harness::FakeTimer;
use super::harness::call;
use super::harness::chat_requests;
use super::harness::client;
use super::harness::hello;
use super::harness::keys_sent;
use super::harness::openai_at;

fn over_budget(status: u16) -> Reply {
    Reply::error(
        status,
        json!({"error": {
            "message": "Budget has been exceeded! Current cost: 30.093831, Max budget: 30.0",
            "type": "budget_exceeded", "param": null, "code": status.to_string()}}),
    )
}

fn no_db() -> Value {
    json!({"error": {"message": "No connected db.", "type": "no_db_connection", "param": null,
        "code": "400"}})
}

/// Every status LiteLLM has used for a key over its budget: the next key is tried at once and
/// the call goes on with it; nothing waits.
#[tokio::test]
async fn a_key_over_its_budget_fails_over_to_the_next_key() {
    for status in [422, 429, 400] {
        let server = MockProvider::start();
        server.push(over_budget(status));
        server.push(Reply::text("from the second key"));
        let timer = FakeTimer::new();
        let client = client(&timer, vec![openai_at(&server, &["sk-spent-1111", "sk-fresh-2222"])]);
        let (_, res) = call(&client, "oa", &hello()).await;
        assert_eq!(res.unwrap().turn.text, "from the second key", "{status}");
        assert_eq!(keys_sent(&chat_requests(&server)), ["sk-spent-1111", "sk-fresh-2222"]);
        assert_eq!(timer.backoffs(), Vec::<u64>::new(), "{status}");
    }
}

/// With no other key the call ends after one request, saying what happened and what to do,
/// instead of four attempts against a budget that will not refill.
#[tokio::test]
async fn a_budget_is_not_retried_and_the_message_says_what_to_do() {
    for status in [422, 429] {
        let server = MockProvider::start();
        for _ in 0..4 {
            server.push(over_budget(status));
        }
        let timer = FakeTimer::new();
        let client = client(&timer, vec![openai_at(&server, &["sk-spent-1111"])]);
        let (events, res) = call(&client, "oa", &hello()).await;
        let err = res.unwrap_err();
        assert_eq!(
            (err.kind, err.details.reason.as_deref(), err.details.upstream_code.as_deref()),
            (ProviderErrorKind::RateLimit, Some("quota_exceeded"), Some("budget_exceeded"))
        );
        assert_eq!(
            err.message,
            format!(
                "oa: the credit, quota or budget of the key is used up (HTTP {status}). Add \
                 credit or raise the budget with the provider, or add another key to the \
                 connection."
            )
        );
        assert_eq!(chat_requests(&server).len(), 1, "{status}");
        assert!(events.is_empty(), "no retry announced: {events:?}");
        assert_eq!(timer.backoffs(), Vec::<u64>::new());
    }
}

/// A proxy without a key database: a wrong key is a key problem, so the next key is tried.
#[tokio::test]
async fn a_key_the_proxy_does_not_know_fails_over() {
    let server = MockProvider::start();
    server.push(Reply::error(400, no_db()));
    server.push(Reply::text("the master key works"));
    let timer = FakeTimer::new();
    let client = client(&timer, vec![openai_at(&server, &["sk-wrong-1111", "sk-master-2222"])]);
    let (_, res) = call(&client, "oa", &hello()).await;
    assert_eq!(res.unwrap().turn.text, "the master key works");
    assert_eq!(keys_sent(&chat_requests(&server)), ["sk-wrong-1111", "sk-master-2222"]);
    assert_eq!(timer.backoffs(), Vec::<u64>::new());
}

/// Verify against that proxy reports the key, not a protocol mismatch, whether the listing or
/// the first call is refused.
#[tokio::test]
async fn verify_reports_the_proxys_refusal_as_the_key() {
    let server = MockProvider::start();
    for _ in 0..4 {
        server.push_models_reply(Reply::error(400, no_db()));
    }
    let timer = FakeTimer::new();
    let client = client(&timer, Vec::new());
    let report =
        client.verify(&openai_at(&server, &["sk-wrong-1111"]), None, &AbortSignal::default()).await;
    assert_eq!(
        (report.reachable, report.key_valid, report.failure),
        (true, false, Some(VerifyFailure::InvalidKey))
    );
    let check = report.to_check();
    assert_eq!(check.failure, Some(ConnectionCheckFailure::InvalidKey));
    let diagnosis = check.diagnosis.unwrap_or_default();
    assert!(diagnosis.starts_with("oa: the proxy rejected the API key"), "{diagnosis}");
    assert!(diagnosis.ends_with("The server said: “No connected db.”"), "{diagnosis}");

    // The listing works (it needs no key there) and the call is refused.
    let listing = MockProvider::start();
    listing.set_models(["gpt-proxy"]);
    listing.push(Reply::error(400, no_db()));
    let report = client
        .verify(&openai_at(&listing, &["sk-wrong-1111"]), None, &AbortSignal::default())
        .await;
    assert_eq!(
        (report.reachable, report.key_valid, report.failure),
        (true, false, Some(VerifyFailure::InvalidKey))
    );
    assert_eq!(report.models, Some(vec!["gpt-proxy".to_owned()]));
}
