//! The lifecycle: initialize, version negotiation, session headers, renewal, close.

use panelot_core::env::AbortSignal;
use panelot_mcp::McpError;
use panelot_testkit::mock_mcp::Misbehaviour;
use panelot_testkit::mock_mcp::MockMcpConfig;
use panelot_testkit::mock_mcp::ResponseMode;
use pretty_assertions::assert_eq;
use serde_json::Map;
use serde_json::json;

use super::harness::setup;

#[tokio::test(flavor = "current_thread")]
async fn initialize_negotiates_the_version_and_later_requests_carry_session_and_version() {
    let s = setup(MockMcpConfig::default());
    let (_handle, abort) = AbortSignal::new();
    let info = s.client.connect(&abort).await.expect("connects");
    assert_eq!(info.protocol_version, "2025-06-18");
    assert_eq!(info.server_info.name, "panelot-mock-mcp");
    assert!(info.capabilities.tools.is_some_and(|tools| tools.list_changed));
    s.client.ping(&abort).await.expect("pings");

    let requests = s.mock.requests();
    let methods: Vec<_> = requests.iter().map(|r| r.rpc_method().unwrap_or("-")).collect();
    assert_eq!(methods, ["initialize", "notifications/initialized", "ping"]);
    let init = &requests[0];
    assert_eq!(init.header("accept"), Some("application/json, text/event-stream"));
    assert_eq!(init.header("mcp-session-id"), None);
    let params = &init.body.as_ref().expect("a JSON body")["params"];
    assert_eq!(params["protocolVersion"], "2025-06-18");
    assert_eq!(params["capabilities"], json!({"elicitation": {}}));
    for later in &requests[1..] {
        assert_eq!(later.header("mcp-session-id"), Some("session-1"));
        assert_eq!(later.header("mcp-protocol-version"), Some("2025-06-18"));
    }
}

#[tokio::test(flavor = "current_thread")]
async fn the_older_2025_03_26_is_accepted_and_sent_back_in_the_header() {
    let config = MockMcpConfig {
        protocol_version: Some("2025-03-26".to_owned()),
        ..MockMcpConfig::default()
    };
    let s = setup(config);
    let (_handle, abort) = AbortSignal::new();
    s.client.ping(&abort).await.expect("pings");
    assert_eq!(s.client.protocol_version().as_deref(), Some("2025-03-26"));
    let last = s.mock.requests().pop().expect("requests were made");
    assert_eq!(last.header("mcp-protocol-version"), Some("2025-03-26"));
}

#[tokio::test(flavor = "current_thread")]
async fn an_unknown_version_is_refused_and_the_session_deleted() {
    let config = MockMcpConfig {
        protocol_version: Some("2099-01-01".to_owned()),
        ..MockMcpConfig::default()
    };
    let s = setup(config);
    let (_handle, abort) = AbortSignal::new();
    let err = s.client.connect(&abort).await.expect_err("refuses the version");
    assert_eq!(err, McpError::UnsupportedVersion { offered: "2099-01-01".to_owned() });
    let methods: Vec<_> = s.mock.requests().iter().map(|r| r.http_method.clone()).collect();
    assert_eq!(methods, ["POST", "DELETE"]);
    assert_eq!(s.client.protocol_version(), None);
}

#[tokio::test(flavor = "current_thread")]
async fn an_expired_session_is_renewed_once_and_the_request_retried() {
    let s = setup(MockMcpConfig { mode: ResponseMode::Sse, ..MockMcpConfig::default() });
    let (_handle, abort) = AbortSignal::new();
    s.client.connect(&abort).await.expect("connects");
    s.mock.expire_sessions();
    let args = json!({"text": "still here"}).as_object().cloned().unwrap_or_default();
    let result = s.client.call_tool("echo", args, &abort).await.expect("calls after renewal");
    assert_eq!(serde_json::to_value(&result.content).expect("serializes")[0]["text"], "still here");
    let calls: Vec<_> = s
        .mock
        .requests()
        .iter()
        .map(|r| {
            (
                r.rpc_method().unwrap_or("-").to_owned(),
                r.header("mcp-session-id").map(str::to_owned),
            )
        })
        .collect();
    let session = |id: &str| Some(id.to_owned());
    assert_eq!(
        calls,
        [
            ("initialize".to_owned(), None),
            ("notifications/initialized".to_owned(), session("session-1")),
            ("tools/call".to_owned(), session("session-1")),
            ("initialize".to_owned(), None),
            ("notifications/initialized".to_owned(), session("session-2")),
            ("tools/call".to_owned(), session("session-2")),
        ]
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_session_that_keeps_expiring_is_an_error_after_one_renewal() {
    let s = setup(MockMcpConfig::default());
    let (_handle, abort) = AbortSignal::new();
    s.client.connect(&abort).await.expect("connects");
    s.mock.misbehave(Misbehaviour::ExpireEverySession);
    let err = s.client.call_tool("echo", Map::new(), &abort).await.expect_err("gives up");
    assert_eq!(err, McpError::SessionExpired);
    let initializes =
        s.mock.requests().iter().filter(|r| r.rpc_method() == Some("initialize")).count();
    assert_eq!(initializes, 2, "one renewal, not a loop");
}

#[tokio::test(flavor = "current_thread")]
async fn close_deletes_the_session_and_the_next_call_opens_another() {
    let s = setup(MockMcpConfig::default());
    let (_handle, abort) = AbortSignal::new();
    s.client.connect(&abort).await.expect("connects");
    s.client.close().await.expect("closes");
    let delete = s.mock.requests().pop().expect("a request");
    assert_eq!(delete.http_method, "DELETE");
    assert_eq!(delete.header("mcp-session-id"), Some("session-1"));
    s.client.ping(&abort).await.expect("pings in a new session");
    assert_eq!(
        s.mock
            .requests()
            .pop()
            .and_then(|r| r.header("mcp-session-id").map(str::to_owned))
            .as_deref(),
        Some("session-2")
    );
}

#[tokio::test(flavor = "current_thread")]
async fn operations_started_together_share_one_initialize() {
    let s = setup(MockMcpConfig { mode: ResponseMode::Sse, ..MockMcpConfig::default() });
    let (_handle, abort) = AbortSignal::new();
    let (ping, tools, again) =
        tokio::join!(s.client.ping(&abort), s.client.list_tools(&abort), s.client.ping(&abort));
    assert_eq!((ping, again), (Ok(()), Ok(())));
    assert!(tools.is_ok(), "{tools:?}");
    let initializes =
        s.mock.requests().iter().filter(|r| r.rpc_method() == Some("initialize")).count();
    assert_eq!(initializes, 1);
}

#[tokio::test(flavor = "current_thread")]
async fn a_wrong_endpoint_is_a_status_error_with_the_body_excerpt() {
    let s = super::harness::setup_with(MockMcpConfig::default(), |server| server.url.push('x'));
    let (_handle, abort) = AbortSignal::new();
    let err = s.client.connect(&abort).await.expect_err("no such endpoint");
    assert_eq!(err, McpError::Status { status: 404, excerpt: "no such endpoint".to_owned() });
}
