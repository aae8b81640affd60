//! Tools, prompts and resources: pagination, calls in both answer modes, notifications,
//! elicitation and a resumed stream.

use panelot_core::env::AbortSignal;
use panelot_mcp::Budget;
use panelot_mcp::McpError;
use panelot_mcp::ServerNotification;
use panelot_mcp::model::CallToolResult;
use panelot_mcp::model::Content;
use panelot_mcp::model::ResourceContents;
use panelot_testkit::mock_mcp::Misbehaviour;
use panelot_testkit::mock_mcp::MockMcpConfig;
use panelot_testkit::mock_mcp::ResponseMode;
use pretty_assertions::assert_eq;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use super::harness::another_client;
use super::harness::setup;
use super::harness::setup_with;

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn text(result: &CallToolResult) -> &str {
    match result.content.first() {
        Some(Content::Text { text }) => text,
        other => panic!("expected text, got {other:?}"),
    }
}

#[tokio::test(flavor = "current_thread")]
async fn tools_are_listed_across_pages_with_their_model_names() {
    let config = MockMcpConfig { page_size: 2, generated_tools: 5, ..MockMcpConfig::default() };
    let s = setup(config);
    let (_handle, abort) = AbortSignal::new();
    let catalog = s.client.list_tools(&abort).await.expect("lists");
    let names: Vec<_> = catalog.tools.iter().map(|t| t.exposed_name.as_str()).collect();
    assert_eq!(names.len(), 11);
    assert_eq!(names[..2], ["mcp__mock__echo", "mcp__mock__change_tools"]);
    assert_eq!(names[10], "mcp__mock__gen_4");
    assert!(catalog.rejected.is_empty());
    let cursors: Vec<_> = s
        .mock
        .requests()
        .iter()
        .filter(|r| r.rpc_method() == Some("tools/list"))
        .map(|r| r.body.as_ref().and_then(|b| b.pointer("/params/cursor")).cloned())
        .collect();
    assert_eq!(cursors.len(), 6);
    assert_eq!(cursors[0], None);
    assert_eq!(cursors[5], Some(json!("c10")));
}

#[tokio::test(flavor = "current_thread")]
async fn a_catalog_past_10000_tools_exceeds_the_default_budget() {
    let config =
        MockMcpConfig { page_size: 2_000, generated_tools: 9_995, ..MockMcpConfig::default() };
    let s = setup(config);
    let (_handle, abort) = AbortSignal::new();
    let err = s.client.list_tools(&abort).await.expect_err("too many");
    assert_eq!(err, McpError::BudgetExceeded { budget: Budget::CatalogEntries, limit: 10_000 });
}

#[tokio::test(flavor = "current_thread")]
async fn exactly_10000_tools_fit() {
    let config =
        MockMcpConfig { page_size: 2_500, generated_tools: 9_994, ..MockMcpConfig::default() };
    let s = setup(config);
    let (_handle, abort) = AbortSignal::new();
    let catalog = s.client.list_tools(&abort).await.expect("fits");
    assert_eq!(catalog.tools.len(), 10_000);
}

#[tokio::test(flavor = "current_thread")]
async fn an_endless_cursor_stops_at_the_page_budget() {
    let s = setup(MockMcpConfig::default());
    s.mock.misbehave(Misbehaviour::EndlessCursor);
    let (_handle, abort) = AbortSignal::new();
    let err = s.client.list_tools(&abort).await.expect_err("endless");
    assert_eq!(err, McpError::BudgetExceeded { budget: Budget::Pages, limit: 100 });
    let pages = s.mock.requests().iter().filter(|r| r.rpc_method() == Some("tools/list")).count();
    assert_eq!(pages, 100);
}

#[tokio::test(flavor = "current_thread")]
async fn calls_are_answered_in_json_and_in_sse_mode() {
    for mode in [ResponseMode::Json, ResponseMode::Sse] {
        let s = setup(MockMcpConfig { mode, ..MockMcpConfig::default() });
        let (_handle, abort) = AbortSignal::new();
        let result = s.client.call_tool("echo", args(json!({"text": "héllo"})), &abort).await;
        let result = result.unwrap_or_else(|err| panic!("{mode:?}: {err}"));
        assert_eq!(text(&result), "héllo", "{mode:?}");
        assert!(!result.is_error);
        let call = s.mock.requests().pop().expect("a request");
        assert_eq!(
            call.body.as_ref().map(|b| b["params"].clone()),
            Some(json!({"name": "echo", "arguments": {"text": "héllo"}}))
        );
    }
}

#[tokio::test(flavor = "current_thread")]
async fn an_unknown_tool_is_a_typed_json_rpc_error() {
    let s = setup(MockMcpConfig::default());
    let (_handle, abort) = AbortSignal::new();
    let err = s.client.call_tool("nope", Map::new(), &abort).await.expect_err("unknown");
    assert_eq!(err, McpError::JsonRpc { code: -32602, message: "Unknown tool: nope".to_owned() });
}

#[tokio::test(flavor = "current_thread")]
async fn list_changed_reaches_the_handler_before_the_answer_and_the_new_tool_is_listed() {
    let s = setup(MockMcpConfig { mode: ResponseMode::Sse, ..MockMcpConfig::default() });
    let (_handle, abort) = AbortSignal::new();
    let before = s.client.list_tools(&abort).await.expect("lists");
    assert!(before.get("mcp__mock__added_later").is_none());
    let result = s.client.call_tool("change_tools", Map::new(), &abort).await.expect("calls");
    assert_eq!(text(&result), "changed");
    assert_eq!(*s.recorder.notifications.borrow(), [ServerNotification::ToolsListChanged]);
    let after = s.client.list_tools(&abort).await.expect("lists again");
    assert!(after.get("mcp__mock__added_later").is_some());
}

#[tokio::test(flavor = "current_thread")]
async fn an_elicitation_is_answered_through_the_handler_in_the_same_session() {
    let s = setup(MockMcpConfig { mode: ResponseMode::Sse, ..MockMcpConfig::default() });
    let (_handle, abort) = AbortSignal::new();
    let result = s.client.call_tool("ask", Map::new(), &abort).await.expect("calls");
    let asked = s.recorder.elicitations.borrow();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].message, "What is your name?");
    // The tool answers with the client's JSON-RPC response to its elicitation.
    let answer: Value = serde_json::from_str(text(&result)).expect("the mock echoes JSON");
    assert_eq!(answer["id"], "elicit-1");
    assert_eq!(answer["result"], json!({"action": "accept", "content": {"name": "Ada"}}));
    let posted = s
        .mock
        .requests()
        .into_iter()
        .find(|r| r.body.as_ref().is_some_and(|b| b["id"] == "elicit-1"));
    assert_eq!(
        posted.and_then(|r| r.header("mcp-session-id").map(str::to_owned)).as_deref(),
        Some("session-1")
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_question_asked_of_a_lost_client_is_answered_and_its_call_read_on_by_a_new_one() {
    let s = setup(MockMcpConfig { mode: ResponseMode::Sse, ..MockMcpConfig::default() });
    // The user takes longer than the module lives: the worker stops while the card shows.
    s.recorder.elicit_delay_ms.set(60_000);
    let (_handle, abort) = AbortSignal::new();
    let asked = async {
        while s.recorder.resume_points.borrow().is_empty() {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    };
    tokio::select! {
        _ = s.client.call_tool("ask", Map::new(), &abort) => panic!("the call cannot end unanswered"),
        () = asked => {}
    }
    let point = s.recorder.resume_points.borrow()[0].clone().expect("the stream had event ids");
    assert_eq!(point.session.as_deref(), Some("session-1"));
    assert_eq!(point.question, panelot_mcp::jsonrpc::RequestId::String("elicit-1".into()));
    // The point travels as text through the engine's store and back.
    let point = panelot_mcp::ResumePoint::parse(&point.to_text()).expect("reads back");
    drop(s.client);

    let (client, _) = another_client(&s.mock);
    let content = json!({"name": "Grace"}).as_object().cloned();
    let answer = panelot_mcp::model::ElicitResult {
        action: panelot_mcp::model::ElicitAction::Accept,
        content,
    };
    let result = client.resume_call(&point, answer, &abort).await.expect("reads on");
    let echoed: Value = serde_json::from_str(text(&result)).expect("the mock echoes JSON");
    assert_eq!(echoed["id"], "elicit-1");
    assert_eq!(echoed["result"], json!({"action": "accept", "content": {"name": "Grace"}}));
    assert_eq!(s.mock.resumed(), 1, "read from the resumed stream");
    assert!(s.mock.cancelled().is_empty());
    let initializes =
        s.mock.requests().iter().filter(|r| r.rpc_method() == Some("initialize")).count();
    assert_eq!(initializes, 1, "the call's session is used, not a new one");

    // A session the server forgot cannot be read on: a typed error, not a hang.
    s.mock.expire_sessions();
    let answer = panelot_mcp::model::ElicitResult {
        action: panelot_mcp::model::ElicitAction::Decline,
        content: None,
    };
    let lost = client.resume_call(&point, answer, &abort).await;
    assert!(lost.is_err(), "{lost:?}");
}

#[tokio::test(flavor = "current_thread")]
async fn the_timeout_waits_while_the_user_answers_an_elicitation() {
    let config = MockMcpConfig { mode: ResponseMode::Sse, ..MockMcpConfig::default() };
    let s = setup_with(config, |server| server.timeout_ms = 300);
    s.recorder.elicit_delay_ms.set(800);
    let (_handle, abort) = AbortSignal::new();
    let result = s.client.call_tool("ask", Map::new(), &abort).await.expect("not timed out");
    assert!(text(&result).contains("Ada"), "{result:?}");
    assert!(s.mock.cancelled().is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn a_cut_stream_is_resumed_with_last_event_id() {
    let s = setup(MockMcpConfig::default());
    let (_handle, abort) = AbortSignal::new();
    let result = s.client.call_tool("cut", Map::new(), &abort).await.expect("resumes");
    assert_eq!(text(&result), "after the cut");
    assert_eq!(s.mock.resumed(), 1);
    let get = s.mock.requests().into_iter().find(|r| r.http_method == "GET").expect("a GET");
    assert!(get.header("last-event-id").is_some_and(|id| id.starts_with("cut-")), "{get:?}");
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    assert_eq!(get.header("mcp-session-id"), Some("session-1"));
    // The notification before the cut was delivered.
    assert!(matches!(s.recorder.notifications.borrow()[..], [ServerNotification::Log { .. }]));
}

#[tokio::test(flavor = "current_thread")]
async fn a_stream_that_ends_early_without_event_ids_is_a_protocol_error() {
    let s = setup(MockMcpConfig::default());
    let (_handle, abort) = AbortSignal::new();
    s.client.connect(&abort).await.expect("connects");
    s.mock.misbehave(Misbehaviour::EarlyEnd);
    let err = s.client.call_tool("echo", Map::new(), &abort).await.expect_err("ends early");
    assert!(
        matches!(&err, McpError::Protocol(m) if m.contains("ended before the answer")),
        "{err}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn prompts_and_resources_round_trip() {
    let s =
        setup_with(MockMcpConfig { mode: ResponseMode::Sse, ..MockMcpConfig::default() }, |_| {});
    let (_handle, abort) = AbortSignal::new();
    let prompts = s.client.list_prompts(&abort).await.expect("lists prompts");
    assert_eq!(prompts.len(), 1);
    assert!(prompts[0].arguments[0].required);
    let prompt =
        s.client.get_prompt("greet", args(json!({"who": "Ada"})), &abort).await.expect("gets");
    assert_eq!(prompt.messages[0].content, Content::Text { text: "Say hello to Ada.".to_owned() });
    let resources = s.client.list_resources(&abort).await.expect("lists resources");
    assert_eq!(resources[0].uri, "mem://readme");
    let read = s.client.read_resource("mem://readme", &abort).await.expect("reads");
    assert_eq!(
        read,
        [ResourceContents::Text {
            uri: "mem://readme".to_owned(),
            mime_type: Some("text/plain".to_owned()),
            text: "Read me.".to_owned()
        }]
    );
}
