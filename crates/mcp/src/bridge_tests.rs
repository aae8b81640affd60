//! The bridge's JSON shapes, as the engine host writes and reads them.

use panelot_protocol::engine::McpAuth;
use panelot_protocol::engine::McpConnectMode;
use panelot_protocol::engine::McpStatus;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::model::ElicitAction;

#[test]
fn commands_read_from_the_documented_json() {
    let configure = decode_command(
        r#"{"type":"configure","servers":[{"id":"docs","url":"https://mcp.example/mcp",
            "headers":[["Authorization","Bearer t0ken"]],"auth":"bearer","enabled":true,
            "connect":"lazy","timeoutMs":5000}]}"#,
    );
    let Ok(Command::Configure { servers }) = configure else { panic!("{configure:?}") };
    assert_eq!(servers.len(), 1);
    let spec = &servers[0];
    assert_eq!(spec.headers, [("Authorization".to_owned(), "Bearer t0ken".to_owned())]);
    assert_eq!(
        (spec.auth, spec.connect, spec.timeout_ms),
        (McpAuth::Bearer, McpConnectMode::Lazy, 5000)
    );
    assert!(!format!("{spec:?}").contains("t0ken"), "Debug must not print header values");

    let minimal =
        decode_command(r#"{"type":"configure","servers":[{"id":"a","url":"u","enabled":false}]}"#);
    let Ok(Command::Configure { servers }) = minimal else { panic!("{minimal:?}") };
    assert_eq!(servers[0].timeout_ms, DEFAULT_TIMEOUT_MS);
    assert_eq!(servers[0].connect, McpConnectMode::Startup);

    assert_eq!(
        decode_command(
            r#"{"type":"call","callId":"c1","name":"mcp__docs__echo","arguments":{"text":"hi"},"timeoutMs":10}"#
        ),
        Ok(Command::Call {
            call_id: "c1".to_owned(),
            name: "mcp__docs__echo".to_owned(),
            arguments: json!({"text": "hi"}).as_object().cloned().unwrap_or_default(),
            timeout_ms: Some(10),
        })
    );
    assert_eq!(
        decode_command(r#"{"type":"connect","server":"docs"}"#),
        Ok(Command::Connect { server: "docs".to_owned() })
    );
    assert_eq!(
        decode_command(r#"{"type":"cancel","callId":"c1"}"#),
        Ok(Command::Cancel { call_id: "c1".to_owned() })
    );
    assert_eq!(
        decode_command(r#"{"type":"elicitAnswer","requestId":"e1","result":{"action":"decline"}}"#),
        Ok(Command::ElicitAnswer {
            request_id: "e1".to_owned(),
            result: ElicitResult { action: ElicitAction::Decline, content: None },
        })
    );
}

#[test]
fn bad_commands_are_typed_errors() {
    for bad in [
        "",
        "not json",
        "[]",
        r#"{"type":"launch"}"#,
        r#"{"type":"call","callId":"c","name":"x","arguments":[1]}"#,
        r#"{"type":"connect"}"#,
    ] {
        let err = decode_command(bad).expect_err(bad);
        assert_eq!(err.kind, ErrorKind::BadCommand, "{bad}");
    }
    let huge = format!(r#"{{"type":"connect","server":"{}"}}"#, "x".repeat(MAX_COMMAND_BYTES));
    assert_eq!(decode_command(&huge).map_err(|err| err.kind), Err(ErrorKind::BadCommand));
}

#[test]
fn replies_and_events_have_the_documented_shapes() {
    let ok = Reply::Call(CallReply::Ok {
        ok: True,
        result: ToolResult {
            content: vec![json!({"type": "text", "text": "hi"})],
            is_error: false,
            structured_content: None,
        },
    });
    assert_eq!(
        ok.to_json(),
        r#"{"ok":true,"result":{"content":[{"text":"hi","type":"text"}],"isError":false}}"#
    );
    assert_eq!(
        Reply::error(ErrorKind::UnknownTool, "no").to_json(),
        r#"{"ok":false,"error":{"kind":"unknownTool","message":"no"}}"#
    );
    assert_eq!(Reply::Done {}.to_json(), "{}");
    let status = Reply::Status { status: McpStatus::Ready { tools: 2 } };
    assert_eq!(status.to_json(), r#"{"status":{"state":"ready","tools":2}}"#);
    for reply in [ok, Reply::error(ErrorKind::Timeout, "slow"), status, Reply::Done {}] {
        let back: Reply = serde_json::from_str(&reply.to_json()).expect("reads back");
        assert_eq!(back, reply);
    }

    let event = Event::Status { server: "docs".to_owned(), status: McpStatus::Connecting };
    assert_eq!(
        event.to_json(),
        r#"{"type":"status","server":"docs","status":{"state":"connecting"}}"#
    );
    let elicit = Event::Elicit {
        request_id: "e1".to_owned(),
        server: "docs".to_owned(),
        message: "Name?".to_owned(),
        schema: json!({"type": "object"}),
        resume: None,
    };
    assert_eq!(
        elicit.to_json(),
        r#"{"type":"elicit","requestId":"e1","server":"docs","message":"Name?","schema":{"type":"object"}}"#
    );
    let resumable = Event::Elicit {
        request_id: "e1".to_owned(),
        server: "docs".to_owned(),
        message: "Name?".to_owned(),
        schema: json!({"type": "object"}),
        resume: Some("{}".to_owned()),
    };
    assert!(resumable.to_json().ends_with(r#""resume":"{}"}"#), "{}", resumable.to_json());
}
