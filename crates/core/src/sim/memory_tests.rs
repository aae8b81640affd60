//! Tools loaded on demand and the agent's memory, through the real engine and driver: a group's
//! tools are offered only after `load_tools` worked, a note written in one chat is read in
//! another, a write is judged like any write, and what a note says is fenced as data; the user
//! saves and deletes notes from settings (`memory.save`, `memory.delete`).

use pretty_assertions::assert_eq;
use serde_json::json;

use panelot_protocol::AgentEvent;
use panelot_protocol::EventFrame;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::MemoryNoteView;

use super::turn_tests::acked;
use super::turn_tests::approvals;
use super::turn_tests::ask_first;
use super::turn_tests::rejected;
use super::turn_tests::respond;
use super::turn_tests::results;
use super::turn_tests::submit;
use super::world::Reply;
use super::world::World;
use crate::model::ContentPart;
use crate::model::Message;
use crate::settings::MEMORY;
use crate::settings::MEMORY_MAX_NOTES;
use crate::settings::MemoryNote;
use crate::store::Store;
use crate::store::UnitOfWork;
use crate::store::WriteOp;
use crate::store::conformance::block_on;

fn offered(world: &World, request: usize) -> Vec<String> {
    world.requests[request].tools.iter().map(|t| t.name.clone()).collect()
}

#[test]
fn memory_is_offered_once_loaded_and_a_note_outlives_its_chat() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("load_tools", json!({"group": "memory"})));
    world.script.push_back(Reply::tool(
        "memory_write",
        json!({"key": "shoe size", "value": "EU 42, wide fit"}),
    ));
    world.script.push_back(Reply::text("I will remember."));
    submit(&mut world, &thread, "remember my shoe size: EU 42, wide fit");
    world.settle();
    let first = offered(&world, 0);
    assert!(first.contains(&"load_tools".to_owned()), "{first:?}");
    assert!(!first.iter().any(|name| name.starts_with("memory_")), "not before loading");
    let second = offered(&world, 1);
    assert!(
        second.contains(&"memory_write".to_owned()) && second.contains(&"memory_read".to_owned())
    );
    let notes = block_on(MEMORY.read(&world.store)).unwrap().into_items();
    assert_eq!(notes.len(), 1);
    assert_eq!((notes[0].key.as_str(), notes[0].value.as_str()), ("shoe size", "EU 42, wide fit"));
    // Open settings pages list the agent's note at once.
    let listed: Vec<usize> = world.events(|e| match e {
        panelot_protocol::AgentEvent::SettingsState(s) if s.submission_id.is_none() => {
            Some(s.settings.memory.len())
        }
        _ => None,
    });
    assert_eq!(listed.last(), Some(&1), "{listed:?}");

    // Another chat: loading again, then reading the note, fenced as data.
    let other = world.create_thread();
    world.script.push_back(Reply::tool("load_tools", json!({"group": "memory"})));
    world.script.push_back(Reply::tool("memory_read", json!({"key": "shoe size"})));
    world.script.push_back(Reply::text("EU 42."));
    submit(&mut world, &other, "what is my shoe size?");
    world.settle();
    assert!(!offered(&world, 3).iter().any(|name| name.starts_with("memory_")), "per chat");
    let last = world.requests.last().unwrap();
    let Some(Message::ToolResult { content, .. }) = last.messages.last() else { panic!() };
    let ContentPart::Text(text) = &content[0] else { panic!() };
    assert!(text.starts_with("<untrusted-content") && text.contains("EU 42, wide fit"), "{text}");
    assert_eq!(results(&world.path(&thread)).len(), 2);
}

#[test]
fn a_memory_write_is_judged_like_any_write() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("load_tools", json!({"group": "memory"})));
    world.script.push_back(Reply::tool("memory_write", json!({"key": "k", "value": "v"})));
    world.script.push_back(Reply::text("not saved"));
    submit(&mut world, &thread, "remember v");
    world.settle();
    let asked = approvals(&world);
    assert_eq!(asked.len(), 1, "loading asks nothing; the write asks");
    assert_eq!(asked[0].1.tool, "memory_write");
    respond(&mut world, &asked[0].0, json!({"type": "decline", "note": null}));
    world.settle();
    assert!(
        block_on(MEMORY.read(&world.store)).unwrap().is_empty(),
        "a declined write wrote nothing"
    );
}

fn memory_state(frames: &[EventFrame]) -> Option<Vec<MemoryNoteView>> {
    frames.iter().find_map(|f| match &f.event {
        AgentEvent::SettingsState(s) if s.submission_id.is_none() => {
            Some(s.settings.memory.clone())
        }
        _ => None,
    })
}

fn events(frames: Vec<EventFrame>) -> Vec<AgentEvent> {
    frames.into_iter().map(|f| f.event).collect()
}

#[test]
fn the_user_saves_replaces_and_deletes_notes_from_settings() {
    let mut world = World::new();
    let id = world.submission();
    let saved = world.send(json!({"type": "memory.save", "submissionId": id,
        "key": "  home  ", "value": "12 Main Street"}));
    // Acked, and every settings page is sent the notes as stored.
    assert!(acked(&events(saved.clone())), "{saved:?}");
    let notes = memory_state(&saved).unwrap();
    assert_eq!(
        notes,
        vec![MemoryNoteView {
            key: "home".into(),
            value: "12 Main Street".into(),
            updated_at_ms: 1_000_000
        }]
    );
    // A save under the same key replaces the note in place.
    world.clock.advance(5);
    let id = world.submission();
    world.send(json!({"type": "memory.save", "submissionId": id, "key": "work",
        "value": "Harbour Road"}));
    let id = world.submission();
    let replaced = world.send(json!({"type": "memory.save", "submissionId": id, "key": "home",
        "value": "14 Main Street"}));
    let notes = memory_state(&replaced).unwrap();
    let listed: Vec<(&str, &str, u64)> =
        notes.iter().map(|n| (n.key.as_str(), n.value.as_str(), n.updated_at_ms)).collect();
    assert_eq!(
        listed,
        vec![("home", "14 Main Street", 1_000_005), ("work", "Harbour Road", 1_000_005)]
    );
    assert_eq!(block_on(MEMORY.read(&world.store)).unwrap().len(), 2);

    // What the user wrote is still fenced when the model reads it.
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("load_tools", json!({"group": "memory"})));
    world.script.push_back(Reply::tool("memory_read", json!({"key": "home"})));
    world.script.push_back(Reply::text("14 Main Street."));
    submit(&mut world, &thread, "where do I live?");
    world.settle();
    let last = world.requests.last().unwrap();
    let Some(Message::ToolResult { content, .. }) = last.messages.last() else { panic!() };
    let ContentPart::Text(text) = &content[0] else { panic!() };
    assert!(text.starts_with("<untrusted-content") && text.contains("14 Main Street"), "{text}");

    let id = world.submission();
    let deleted = world.send(json!({"type": "memory.delete", "submissionId": id, "key": "home"}));
    let keys: Vec<String> = memory_state(&deleted).unwrap().into_iter().map(|n| n.key).collect();
    assert_eq!(keys, vec!["work".to_owned()]);
    let id = world.submission();
    let missing = world.send(json!({"type": "memory.delete", "submissionId": id, "key": "home"}));
    assert_eq!(rejected(&events(missing)), Some(ErrorCode::InvalidCommand));

    // What the model writes is listed with the user's notes, after a restart too.
    world
        .script
        .push_back(Reply::tool("memory_write", json!({"key": "shoe size", "value": "EU 42"})));
    world.script.push_back(Reply::text("Noted."));
    submit(&mut world, &thread, "remember my shoe size: EU 42");
    world.settle();
    world.restart();
    let id = world.submission();
    let got = world.send(json!({"type": "settings.get", "submissionId": id}));
    let settings = got
        .iter()
        .find_map(|f| match &f.event {
            AgentEvent::SettingsState(s) => Some(s.settings.clone()),
            _ => None,
        })
        .unwrap();
    let keys: Vec<&str> = settings.memory.iter().map(|n| n.key.as_str()).collect();
    assert_eq!(keys, vec!["work", "shoe size"]);
}

#[test]
fn a_full_memory_refuses_a_new_note_but_replaces_one() {
    let mut world = World::new();
    let full: Vec<MemoryNote> = (0..MEMORY_MAX_NOTES)
        .map(|n| MemoryNote { key: format!("k{n}"), value: "v".into(), updated_at_ms: 1 })
        .collect();
    let mut unit = UnitOfWork::new();
    unit.push(WriteOp::PutSetting {
        key: MEMORY.key().into(),
        value: serde_json::to_value(&full).unwrap(),
    });
    block_on(world.store.commit(unit)).unwrap();
    let id = world.submission();
    let refused = events(world.send(json!({"type": "memory.save", "submissionId": id,
        "key": "one more", "value": "x"})));
    assert_eq!(rejected(&refused), Some(ErrorCode::InvalidCommand));
    let message = refused
        .iter()
        .find_map(|e| match e {
            AgentEvent::CommandRejected(r) => Some(r.message.clone()),
            _ => None,
        })
        .unwrap();
    assert!(message.contains("full (100 notes)"), "{message}");
    assert_eq!(block_on(MEMORY.read(&world.store)).unwrap().len(), MEMORY_MAX_NOTES);
    let id = world.submission();
    let replaced = world.send(json!({"type": "memory.save", "submissionId": id, "key": "k7",
        "value": "new"}));
    let notes = memory_state(&replaced).unwrap();
    assert_eq!(notes.len(), MEMORY_MAX_NOTES);
    assert_eq!(notes[7].value, "new");
}

#[test]
fn saving_a_note_keeps_records_this_version_cannot_read() {
    let mut world = World::new();
    let mut unit = UnitOfWork::new();
    unit.push(WriteOp::PutSetting { key: MEMORY.key().into(), value: json!([{"v2": 1}]) });
    block_on(world.store.commit(unit)).unwrap();
    let id = world.submission();
    world.send(json!({"type": "memory.save", "submissionId": id, "key": "a", "value": "b"}));
    let stored = block_on(world.store.setting(MEMORY.key())).unwrap().unwrap();
    assert_eq!(stored, json!([{"key": "a", "value": "b", "updatedAtMs": 1_000_000}, {"v2": 1}]));
}
