//! The engine's own tools over plain data: notes saved, replaced, deleted, listed and capped;
//! groups loaded only by calls that worked.

use panelot_protocol::ItemId;
use panelot_protocol::engine::ToolLevel;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::engine::outbox::ToolStatus;
use crate::store::NodeBody;
use crate::store::conformance::text_node;

fn text(outcome: &ToolOutcome) -> String {
    match &outcome.status {
        ToolStatus::Done { content } => content.clone(),
        ToolStatus::Failed { message, .. } => format!("Error: {message}"),
    }
}

#[test]
fn notes_are_saved_replaced_deleted_and_listed() {
    let mut notes = Vec::new();
    assert_eq!(text(&write(&mut notes, "editor", "Prefers vim", 1)), "Saved the note \"editor\".");
    let long = "x".repeat(200);
    assert_eq!(text(&write(&mut notes, "size", &long, 2)), "Saved the note \"size\".");
    assert_eq!(
        text(&write(&mut notes, "editor", "Prefers helix", 3)),
        "Replaced the note \"editor\"."
    );
    assert_eq!(notes[0].updated_at_ms, 3);
    assert_eq!(text(&read(&notes, Some("editor"))), "Prefers helix");
    assert_eq!(
        text(&read(&notes, None)),
        format!("2 notes:\n- editor: Prefers helix\n- size: {}…", "x".repeat(80))
    );
    assert!(
        text(&read(&notes, Some("shoe"))).starts_with("No note is saved under \"shoe\". 2 notes:")
    );
    assert_eq!(text(&write(&mut notes, "size", "", 4)), "Deleted the note \"size\".");
    assert_eq!(text(&write(&mut notes, "size", "", 5)), "No note is saved under \"size\".");
    assert_eq!(notes.len(), 1);
    assert_eq!(text(&write(&mut notes, "", "x", 6)), "Error: a note needs a key");
}

#[test]
fn a_full_memory_refuses_new_notes_but_replaces_old_ones() {
    let mut notes = Vec::new();
    for n in 0..MEMORY_MAX_NOTES {
        assert!(write(&mut notes, &format!("k{n}"), "v", 1).is_ok());
    }
    let full = write(&mut notes, "one more", "v", 2);
    assert_eq!(text(&full), "Error: the memory is full (100 notes): replace or delete one first");
    assert!(write(&mut notes, "k7", "new", 3).is_ok());
    assert_eq!(notes.len(), MEMORY_MAX_NOTES);
}

#[test]
fn load_names_the_tools_of_a_group() {
    assert_eq!(
        text(&load("memory")),
        "Loaded memory: memory_read, memory_write. They are offered from your next step on in \
         this chat."
    );
    assert_eq!(text(&load("opens")), "Error: there is no tool group named `opens`");
}

fn call(call_id: &str, group: &str) -> NodeRecord {
    record(NodeBody::ToolCall {
        item_id: ItemId::new(format!("i-{call_id}")).unwrap(),
        call_id: call_id.to_owned(),
        tool_name: LOAD_TOOLS.to_owned(),
        label: "load tools".to_owned(),
        params: json!({ "group": group }),
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
        outcome: panelot_protocol::engine::CallOutcome::Done,
        target: None,
    })
}

fn record(body: NodeBody) -> NodeRecord {
    NodeRecord { body, ..text_node("t", 1, None) }
}

#[test]
fn a_group_is_loaded_once_its_call_worked() {
    assert_eq!(loaded_groups(&[call("c1", "memory")]), [], "no result yet");
    assert_eq!(loaded_groups(&[call("c1", "memory"), result("c1", false)]), []);
    assert_eq!(loaded_groups(&[call("c1", "nothing"), result("c1", true)]), []);
    let twice =
        [call("c1", "memory"), result("c1", true), call("c2", "memory"), result("c2", true)];
    assert_eq!(loaded_groups(&twice), [ToolGroup::Memory]);
}
