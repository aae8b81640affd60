//! The standalone stream: notifications outside any call.

use std::time::Duration;

use panelot_core::env::AbortSignal;
use panelot_mcp::Listened;
use panelot_mcp::McpError;
use panelot_mcp::ServerNotification;
use panelot_testkit::mock_mcp::MockMcpConfig;
use pretty_assertions::assert_eq;
use serde_json::Map;

use super::harness::setup;

#[tokio::test(flavor = "current_thread")]
async fn listen_hands_a_list_changed_outside_any_call_to_the_handler() {
    // JSON answers: the notification can only travel on the standalone stream.
    let s = setup(MockMcpConfig { standalone_stream: true, ..MockMcpConfig::default() });
    let (_handle, abort) = AbortSignal::new();
    s.client.connect(&abort).await.expect("connects");
    let acting = async {
        while s.mock.listeners() == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        s.client.call_tool("change_tools", Map::new(), &abort).await.expect("calls");
        for _ in 0..500 {
            if !s.recorder.notifications.borrow().is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        s.mock.close_listeners();
    };
    let (listened, ()) = tokio::join!(s.client.listen(&abort), acting);
    assert_eq!(listened, Ok(Listened::Ended));
    assert_eq!(*s.recorder.notifications.borrow(), [ServerNotification::ToolsListChanged]);
    let get = s.mock.requests().into_iter().find(|r| r.http_method == "GET").expect("a GET");
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    assert_eq!(get.header("mcp-session-id"), Some("session-1"));
    assert_eq!(get.header("last-event-id"), None);
}

#[tokio::test(flavor = "current_thread")]
async fn listen_reports_a_server_without_a_standalone_stream_and_stops_on_abort() {
    let s = setup(MockMcpConfig::default());
    let (_handle, abort) = AbortSignal::new();
    assert_eq!(s.client.listen(&abort).await, Ok(Listened::NotOffered));

    let open = setup(MockMcpConfig { standalone_stream: true, ..MockMcpConfig::default() });
    let (handle, abort) = AbortSignal::new();
    let stopping = async {
        while open.mock.listeners() == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        handle.abort();
    };
    let (listened, ()) = tokio::join!(open.client.listen(&abort), stopping);
    assert_eq!(listened, Err(McpError::Aborted));
    open.mock.close_listeners();
}
