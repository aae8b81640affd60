//! Artifacts over plain data: a saved name is found at its newest version, a call that failed
//! saved nothing, names are checked before a call is judged, and what the model is told.

use panelot_protocol::ItemId;
use panelot_protocol::engine::CallOutcome;
use panelot_protocol::engine::ToolLevel;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::engine::outbox::ToolStatus;
use crate::store::NodeBody;
use crate::store::conformance::text_node;

fn said(outcome: &ToolOutcome) -> String {
    match &outcome.status {
        ToolStatus::Done { content } => content.clone(),
        ToolStatus::Failed { message, .. } => format!("Error: {message}"),
    }
}

fn call(call_id: &str, filename: &str, content: &str) -> NodeRecord {
    record(NodeBody::ToolCall {
        item_id: ItemId::new(format!("i-{call_id}")).unwrap(),
        call_id: call_id.to_owned(),
        tool_name: catalog::ARTIFACT_CREATE.to_owned(),
        label: "artifact".to_owned(),
        params: json!({ "filename": filename, "content": content }),
        level: ToolLevel::Builtin,
    })
}

fn result(call_id: &str, ok: bool) -> NodeRecord {
    record(NodeBody::ToolResult {
        item_id: ItemId::new(format!("i-{call_id}")).unwrap(),
        call_id: call_id.to_owned(),
        ok,
        content_for_model: String::new(),
        details: None,
        engine_note: None,
        source: None,
        outcome: if ok { CallOutcome::Done } else { CallOutcome::Failed },
        target: None,
    })
}

fn record(body: NodeBody) -> NodeRecord {
    NodeRecord { body, ..text_node("t", 1, None) }
}

#[test]
fn the_newest_saved_version_of_a_name_is_the_one_found() {
    let path = [
        call("c1", "a.md", "# one"),
        result("c1", true),
        call("c2", "b.csv", "x,y"),
        result("c2", true),
        call("c3", "a.md", "# two"),
        result("c3", true),
        call("c4", "a.md", "# failed"),
        result("c4", false),
        call("c5", "a.md", "# running"),
    ];
    assert_eq!(latest(&path, "a.md").map(|a| a.content), Some("# two".to_owned()));
    assert_eq!(latest(&path, "b.csv").map(|a| a.content), Some("x,y".to_owned()));
    assert_eq!(latest(&path, "c.md"), None);
    assert_eq!(
        missing(&path, "c.md"),
        "this chat has no artifact named \"c.md\"; it has: a.md, b.csv"
    );
    assert_eq!(missing(&[], "c.md"), "this chat has no artifact named \"c.md\" (it has none yet)");
}

#[test]
fn saving_a_name_again_says_it_is_a_new_version() {
    let content = "a".repeat(1_500);
    let args = json!({ "filename": "notes.md", "content": content });
    assert_eq!(
        said(&create(&[call("c1", "notes.md", "")], &args)),
        "Saved the artifact \"notes.md\" (Markdown, 1.5 KB). The user sees it as a card in the \
         chat, where they can open and download it."
    );
    let path = [call("c1", "notes.md", "# one"), result("c1", true), call("c2", "notes.md", "")];
    let second = said(&create(&path, &json!({ "filename": "notes.md", "content": "x" })));
    assert!(
        second.starts_with(
            "Saved version 2 of the artifact \"notes.md\" (Markdown, 1 bytes); downloads and \
             opens by this name now take this version."
        ),
        "{second}"
    );
    let html =
        said(&create(&[], &json!({"filename": "r.txt", "mime": "text/html", "content": ""})));
    assert!(html.contains("(HTML, 0 bytes)"), "{html}");
    assert_eq!(
        said(&create(&[], &json!({ "filename": "../etc/x", "content": "x" }))),
        "Error: \"../etc/x\" names a folder; give a file name without / or \\"
    );
}

#[test]
fn calls_that_cannot_work_are_refused_before_they_are_judged() {
    let refused = |tool: &str, args: serde_json::Value| check(tool, &args).err();
    assert_eq!(refused("artifact_create", json!({"filename": "a.md", "content": ""})), None);
    assert!(refused("artifact_create", json!({"filename": "a\nb.md", "content": ""})).is_some());
    assert_eq!(refused("download", json!({"url": "https://a.example/f.pdf"})), None);
    assert_eq!(refused("download", json!({"artifact": "a.md", "filename": "copy.md"})), None);
    assert_eq!(
        refused("download", json!({})),
        Some(
            "download needs url (an http(s) URL) or artifact (the filename of an artifact of \
             this chat)"
                .to_owned()
        )
    );
    assert_eq!(
        refused("download", json!({"url": "https://a.example/", "artifact": "a.md"})),
        Some("give download either url or artifact, not both".to_owned())
    );
    assert_eq!(
        refused("download", json!({"url": "file:///etc/passwd"})),
        Some("download saves http:// and https:// URLs only".to_owned())
    );
    assert_eq!(
        refused("download", json!({"url": "https://a.example/", "filename": "C:x.exe"})),
        Some("filename: a filename cannot hold `:`".to_owned())
    );
    assert_eq!(refused("memory_write", json!({})), None);
}
