//! Artifacts in the transcript: a saved one is a card of its own between rows of steps, a failed
//! one stays a step, the viewer finds the version a card names or the newest of a name, and the
//! chat page's address carries what it shows.

use panelot_protocol::EventFrame;
use panelot_protocol::ThreadId;
use panelot_protocol::decode_event;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::*;
use crate::state::thread_view::Row;

fn view_with(items: Value) -> ThreadView {
    let mut view = ThreadView::new(ThreadId::new("t-1").unwrap());
    let meta = json!({"id": "t-1", "title": "T", "createdAtMs": 1, "updatedAtMs": 2,
        "leafId": null, "revision": 1, "stats": {"turns": 0, "totalTokens": 0, "costUsd": 0.0},
        "scopeOrigins": [], "preset": null, "parentThreadId": null, "folderId": null,
        "tags": [], "pinned": false, "archived": false, "permissionPolicy": null});
    let mut event = json!({"type": "thread.snapshot", "submissionId": "s", "snapshot": {
        "meta": meta, "items": items, "hasEarlier": false, "activeTurn": null,
        "pendingApprovals": [], "pendingInteractions": [], "queuedRuns": [],
        "recoverableRuns": []}});
    event["stream"] = json!({"threadId": "t-1", "epoch": 1, "sequence": 0});
    let frame: EventFrame = decode_event(event).unwrap();
    view.apply(&frame);
    view
}

fn call(node: &str, tool: &str, params: Value, outcome: &str) -> Value {
    json!({"nodeId": node, "parentId": null, "turnId": "turn-1", "createdAtMs": 1,
        "branch": {"index": 1, "count": 1, "previous": null, "next": null},
        "content": {"kind": "tool_call", "itemId": format!("i-{node}"), "toolName": tool,
            "label": tool, "params": params,
            "result": {"ok": outcome == "done", "outcome": outcome, "excerpt": null,
                "target": null, "details": null}}})
}

fn save(node: &str, filename: &str, content: &str, outcome: &str) -> Value {
    call(node, ARTIFACT_CREATE, json!({"filename": filename, "content": content}), outcome)
}

#[test]
fn a_saved_artifact_is_a_card_between_rows_of_steps() {
    let view = view_with(json!([
        call("n1", "read_page", json!({}), "done"),
        save("n2", "report.md", "# One", "done"),
        call("n3", "read_page", json!({}), "done"),
        save("n4", "bad.md", "x", "failed"),
    ]));
    let rows: Vec<Row> = view.rows().iter().filter_map(|key| view.row(key)).collect();
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(matches!(&rows[0], Row::Steps(steps) if steps.len() == 1));
    let Row::Entry(card) = &rows[1] else { panic!("{:?}", rows[1]) };
    let artifact = of_entry(card).unwrap();
    assert_eq!(
        (artifact.filename.as_str(), artifact.kind, artifact.size()),
        ("report.md", ArtifactKind::Markdown, 5)
    );
    // The failed save stays a step, with the read before it.
    assert!(matches!(&rows[2], Row::Steps(steps) if steps.len() == 2));
}

#[test]
fn the_viewer_finds_the_version_a_card_names_or_the_newest_of_a_name() {
    let view = view_with(json!([
        save("n1", "report.md", "# One", "done"),
        save("n2", "report.md", "# Two", "done"),
        save("n3", "report.md", "# Failed", "failed"),
    ]));
    let newest = Shown { name: "report.md".into(), item_id: None };
    assert_eq!(find(&view, &newest).map(|a| a.content), Some("# Two".to_owned()));
    let first = Shown { name: "report.md".into(), item_id: Some("i-n1".into()) };
    assert_eq!(find(&view, &first).map(|a| a.content), Some("# One".to_owned()));
    let other = Shown { name: "other.md".into(), item_id: None };
    assert_eq!(find(&view, &other), None);
}

#[test]
fn the_chat_page_address_carries_what_it_shows() {
    let shown = Shown { name: "a b&c.html".into(), item_id: Some("i-1".into()) };
    assert_eq!(chat_url("t-1", &shown), "chat.html?thread=t-1&artifact=a%20b%26c.html&item=i-1");
    assert_eq!(
        from_query(Some("a b&c.html".into()), Some("i-1".into())),
        Some(shown),
        "what URLSearchParams decodes is what was encoded"
    );
    assert_eq!(from_query(Some(String::new()), None), None);
    assert_eq!(size_text(999), "999 B");
    assert_eq!(size_text(1_500), "1.5 KB");
    assert_eq!(size_text(2_000_000), "2.0 MB");
}
