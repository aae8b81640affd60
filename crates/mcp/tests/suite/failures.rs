//! What goes wrong: cancellation and timeouts that reach the server, garbage, budgets, auth.

use std::time::Duration;

use panelot_core::env::AbortSignal;
use panelot_mcp::BearerChallenge;
use panelot_mcp::Budget;
use panelot_mcp::McpError;
use panelot_providers::HeaderValue;
use panelot_testkit::mock_mcp::Misbehaviour;
use panelot_testkit::mock_mcp::MockMcp;
use panelot_testkit::mock_mcp::MockMcpConfig;
use panelot_testkit::mock_mcp::ResponseMode;
use pretty_assertions::assert_eq;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use super::harness::setup;
use super::harness::setup_with;

/// The JSON-RPC id of the `tools/call` the mock received.
fn call_id(mock: &MockMcp) -> Value {
    mock.requests()
        .into_iter()
        .find(|r| r.rpc_method() == Some("tools/call"))
        .and_then(|r| r.body.map(|b| b["id"].clone()))
        .expect("the call reached the server")
}

#[tokio::test(flavor = "current_thread")]
async fn an_abort_sends_cancelled_with_the_request_id() {
    for mode in [ResponseMode::Json, ResponseMode::Sse] {
        let s = setup(MockMcpConfig { mode, ..MockMcpConfig::default() });
        let (handle, abort) = AbortSignal::new();
        s.client.connect(&abort).await.expect("connects");
        let aborter = async {
            // Abort once the call is at the server, as a user pressing stop would.
            while !s.mock.requests().iter().any(|r| r.rpc_method() == Some("tools/call")) {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            handle.abort();
        };
        let (outcome, ()) = tokio::join!(s.client.call_tool("slow", Map::new(), &abort), aborter);
        assert_eq!(outcome, Err(McpError::Aborted), "{mode:?}");
        let id = call_id(&s.mock);
        assert!(s.mock.wait_cancelled(&id, Duration::from_secs(5)), "{mode:?}: no cancel for {id}");
        let cancel = s
            .mock
            .requests()
            .into_iter()
            .find(|r| r.rpc_method() == Some("notifications/cancelled"))
            .expect("sent");
        assert_eq!(cancel.header("mcp-session-id"), Some("session-1"));
        assert_eq!(
            cancel.body.map(|b| b["params"]["reason"].clone()),
            Some(json!("cancelled by the user"))
        );
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_timeout_is_typed_and_cancels_at_the_server() {
    let s = setup_with(MockMcpConfig::default(), |config| config.timeout_ms = 300);
    let (_handle, abort) = AbortSignal::new();
    let err = s.client.call_tool("slow", Map::new(), &abort).await.expect_err("times out");
    assert_eq!(err, McpError::Timeout { ms: 300 });
    assert!(s.mock.wait_cancelled(&call_id(&s.mock), Duration::from_secs(5)));
}

#[tokio::test(flavor = "current_thread")]
async fn garbage_is_a_protocol_error() {
    let s = setup(MockMcpConfig::default());
    let (_handle, abort) = AbortSignal::new();
    s.client.connect(&abort).await.expect("connects");
    s.mock.misbehave(Misbehaviour::Garbage);
    let err = s.client.call_tool("echo", Map::new(), &abort).await.expect_err("garbage");
    assert!(matches!(&err, McpError::Protocol(m) if m.contains("not JSON")), "{err}");
    // The session survives one bad answer.
    s.client.ping(&abort).await.expect("pings after");
}

#[tokio::test(flavor = "current_thread")]
async fn an_oversized_message_exceeds_the_message_budget_in_both_modes() {
    for mode in [ResponseMode::Json, ResponseMode::Sse] {
        let s = setup(MockMcpConfig { mode, ..MockMcpConfig::default() });
        let (_handle, abort) = AbortSignal::new();
        s.client.connect(&abort).await.expect("connects");
        s.mock.misbehave(Misbehaviour::Oversized(5 * 1024 * 1024));
        let err = s.client.call_tool("echo", Map::new(), &abort).await.expect_err("too big");
        let limit = 4 * 1024 * 1024;
        assert_eq!(
            err,
            McpError::BudgetExceeded { budget: Budget::MessageBytes, limit },
            "{mode:?}"
        );
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_result_over_1_mib_of_text_exceeds_the_result_budget() {
    let s = setup(MockMcpConfig::default());
    let (_handle, abort) = AbortSignal::new();
    let mib = 1024 * 1024;
    let fits = s.client.call_tool("big", args(json!({"bytes": mib})), &abort).await;
    assert!(fits.is_ok(), "{fits:?}");
    let err = s
        .client
        .call_tool("big", args(json!({"bytes": mib + 1})), &abort)
        .await
        .expect_err("too much");
    assert_eq!(err, McpError::BudgetExceeded { budget: Budget::ResultText, limit: mib });
}

#[tokio::test(flavor = "current_thread")]
async fn a_401_is_unauthorized_with_the_parsed_challenge_and_a_token_gets_through() {
    let config =
        MockMcpConfig { require_token: Some("t0ken".to_owned()), ..MockMcpConfig::default() };
    let s = setup(config.clone());
    let (_handle, abort) = AbortSignal::new();
    let err = s.client.connect(&abort).await.expect_err("needs a token");
    let metadata = s.mock.url().replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    assert_eq!(
        err,
        McpError::Unauthorized {
            status: 401,
            challenge: Some(BearerChallenge {
                resource_metadata: Some(metadata),
                scope: Some("mcp:tools".to_owned()),
                ..BearerChallenge::default()
            }),
        }
    );

    let authorized = setup_with(config, |server| {
        let bearer = HeaderValue::Secret("Bearer t0ken".to_owned());
        server.headers.push(("authorization".to_owned(), bearer));
    });
    authorized.client.ping(&abort).await.expect("the token is sent with every request");
    assert!(
        authorized
            .mock
            .requests()
            .iter()
            .all(|r| r.header("authorization") == Some("Bearer t0ken"))
    );
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}
