//! Tools loaded on demand and the agent's memory, through the real engine and driver: a group's
//! tools are offered only after `load_tools` worked, a note written in one chat is read in
//! another, a write is judged like any write, and what a note says is fenced as data.

use pretty_assertions::assert_eq;
use serde_json::json;

use super::turn_tests::approvals;
use super::turn_tests::ask_first;
use super::turn_tests::respond;
use super::turn_tests::results;
use super::turn_tests::submit;
use super::world::Reply;
use super::world::World;
use crate::model::ContentPart;
use crate::model::Message;
use crate::settings::MEMORY;
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
