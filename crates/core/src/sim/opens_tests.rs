//! `sidebar_open` through the real engine and driver: offered only while the user lets the agent
//! open pages; a page goes to one view of the calling thread at once (`delivered: true`) or
//! waits for one and is handed over exactly once when a view attaches; turning the setting off
//! drops what waits; targets that are not web pages are refused with the reason.

use panelot_protocol::AgentEvent;
use panelot_protocol::ThreadId;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::turn_tests::results;
use super::turn_tests::submit;
use super::world::Reply;
use super::world::World;

fn set_opens(world: &mut World, on: bool) {
    let id = world.submission();
    world.send(json!({"type": "settings.update", "submissionId": id,
        "patch": {"agentOpenTools": on}}));
}

fn attach(world: &mut World, thread: &ThreadId) -> Vec<String> {
    let id = world.submission();
    let frames =
        world.send(json!({"type": "thread.subscribe", "submissionId": id, "threadId": thread}));
    opens_in(frames.into_iter().map(|f| f.event))
}

fn opens_in(events: impl Iterator<Item = AgentEvent>) -> Vec<String> {
    events
        .filter_map(|event| match event {
            AgentEvent::ViewOpen(open) => Some(format!("{} {}", open.target, open.title)),
            _ => None,
        })
        .collect()
}

fn open_call(target: &str) -> Reply {
    Reply::tool("sidebar_open", json!({ "target": target }))
}

fn last_result(world: &World, thread: &ThreadId) -> Value {
    let text = results(&world.path(thread)).pop().unwrap_or_default();
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

#[test]
fn offered_only_while_switched_on_and_refused_when_off() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(open_call("https://docs.example/guide"));
    world.script.push_back(Reply::text("could not"));
    submit(&mut world, &thread, "open the guide");
    world.settle();
    assert!(!world.requests[0].tools.iter().any(|t| t.name == "sidebar_open"));
    assert_eq!(
        last_result(&world, &thread),
        json!(
            "Error: opening pages is switched off in settings (General); ask the user to open it"
        )
    );
    set_opens(&mut world, true);
    world.script.push_back(Reply::text("ok"));
    submit(&mut world, &thread, "hello");
    world.settle();
    assert!(world.requests.last().unwrap().tools.iter().any(|t| t.name == "sidebar_open"));
}

#[test]
fn a_page_goes_to_the_view_of_its_thread_at_once() {
    let mut world = World::new();
    set_opens(&mut world, true);
    let thread = world.create_thread();
    world.script.push_back(open_call("HTTPS://docs.example/guide"));
    world.script.push_back(Reply::text("opened"));
    let before = world.frames.len();
    submit(&mut world, &thread, "open the guide");
    world.settle();
    let sent = opens_in(world.frames[before..].iter().map(|f| f.event.clone()));
    assert_eq!(sent, ["HTTPS://docs.example/guide docs.example"]);
    assert_eq!(
        last_result(&world, &thread),
        json!({"kind": "url", "target": "HTTPS://docs.example/guide", "title": "docs.example",
            "delivered": true})
    );
}

#[test]
fn a_page_for_a_thread_no_view_shows_waits_and_is_handed_over_once() {
    let mut world = World::new();
    set_opens(&mut world, true);
    let background = world.create_thread();
    let shown = world.create_thread();
    world.script.push_back(Reply::tool(
        "sidebar_open",
        json!({"target": "https://docs.example/report", "title": "Report"}),
    ));
    world.script.push_back(Reply::text("queued"));
    let before = world.frames.len();
    submit(&mut world, &background, "open the report");
    world.settle();
    assert!(opens_in(world.frames[before..].iter().map(|f| f.event.clone())).is_empty());
    assert_eq!(last_result(&world, &background)["delivered"], json!(false));
    // Another thread's view gets nothing; the thread's view gets it once, also after a restart.
    assert!(attach(&mut world, &shown).is_empty());
    world.restart();
    assert_eq!(attach(&mut world, &background), ["https://docs.example/report Report"]);
    assert!(attach(&mut world, &background).is_empty(), "a reconnect opens nothing twice");
}

#[test]
fn switching_off_drops_what_waits() {
    let mut world = World::new();
    set_opens(&mut world, true);
    let background = world.create_thread();
    let _shown = world.create_thread();
    world.script.push_back(open_call("https://docs.example/later"));
    world.script.push_back(Reply::text("queued"));
    submit(&mut world, &background, "open it later");
    world.settle();
    set_opens(&mut world, false);
    set_opens(&mut world, true);
    assert!(attach(&mut world, &background).is_empty());
}

#[test]
fn targets_that_are_not_web_pages_are_refused_with_the_reason() {
    let mut world = World::new();
    set_opens(&mut world, true);
    let thread = world.create_thread();
    let cases = [
        (
            "C:\\Users\\ada\\notes.txt",
            "is a local file or folder; opening those needs Panelot's native host",
        ),
        ("C:/Users/ada", "is a local file or folder"),
        ("/home/ada/notes", "is a local file or folder"),
        ("javascript:alert(1)", "`javascript:` targets are not opened"),
        ("file:///etc/passwd", "`file:` targets are not opened"),
        ("vscode://file/x", "`vscode:` targets are not opened"),
    ];
    for (target, reason) in cases {
        world.script.push_back(open_call(target));
        world.script.push_back(Reply::text("no"));
        let before = world.frames.len();
        submit(&mut world, &thread, "open it");
        world.settle();
        let said = last_result(&world, &thread);
        assert!(said.as_str().is_some_and(|s| s.contains(reason)), "{target}: {said}");
        assert!(opens_in(world.frames[before..].iter().map(|f| f.event.clone())).is_empty());
    }
}
