//! Notifications through the real engine and driver: a thread that needs the user while no view
//! follows it asks for them with a notification, which is taken back once it is answered; a
//! thread a view shows asks in the view only.

use panelot_protocol::AgentEvent;
use panelot_protocol::ApprovalId;
use panelot_protocol::ThreadId;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::turn_tests::approvals;
use super::turn_tests::ask_first;
use super::turn_tests::respond;
use super::turn_tests::submit;
use super::world::Reply;
use super::world::World;
use crate::engine::Effect;

/// (thread, message) of each notification; `None` for one taken back.
fn notices(world: &World) -> Vec<(String, Option<String>)> {
    world
        .notices()
        .into_iter()
        .filter_map(|effect| match effect {
            Effect::Notify { thread_id, notice } => {
                Some((thread_id.to_string(), notice.map(|n| n.message)))
            }
            _ => None,
        })
        .collect()
}

/// Opens `thread` in the one view (what clicking its notification does) and returns the
/// approval its card shows.
fn open_card(world: &mut World, thread: &ThreadId) -> ApprovalId {
    let id = world.submission();
    let opened =
        world.send(json!({"type": "thread.subscribe", "submissionId": id, "threadId": thread}));
    opened
        .into_iter()
        .find_map(|frame| match frame.event {
            AgentEvent::ThreadSnapshot(s) => {
                s.snapshot.pending_approvals.first().map(|a| a.approval_id.clone())
            }
            _ => None,
        })
        .expect("the card in the opened thread")
}

#[test]
fn a_thread_no_view_follows_notifies_when_it_needs_the_user_and_takes_it_back() {
    let mut world = World::new();
    ask_first(&world);
    let background = world.create_thread();
    // The one view now follows another thread.
    let shown = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("done"));
    submit(&mut world, &background, "click it");
    world.settle();
    let asked = Some("Panelot asks before it acts on https://shop.example.".to_owned());
    assert_eq!(notices(&world), [(background.to_string(), asked.clone())]);
    // Opening the thread (what clicking the notification does) shows the card there.
    let approval = open_card(&mut world, &background);
    respond(&mut world, &approval, json!({"type": "accept"}));
    world.settle();
    assert_eq!(
        notices(&world),
        [(background.to_string(), asked), (background.to_string(), None)],
        "answered: taken back"
    );
    // The thread the view shows asks there only.
    let id = world.submission();
    world.send(json!({"type": "thread.subscribe", "submissionId": id, "threadId": shown}));
    world.script.push_back(Reply::tool("click", json!({"ref": "e2"})));
    world.script.push_back(Reply::text("done"));
    submit(&mut world, &shown, "click the other");
    world.settle();
    assert_eq!(approvals(&world).len(), 1, "the view saw this card live");
    assert_eq!(notices(&world).len(), 2, "no notification for a thread a view shows");
}

#[test]
fn a_long_turn_that_ends_while_no_view_follows_its_thread_says_so() {
    let mut world = World::new();
    ask_first(&world);
    let background = world.create_thread();
    let shown = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("done"));
    submit(&mut world, &background, "click it");
    world.settle();
    // The user comes back two minutes later and answers from the thread, then looks away.
    world.clock.advance(120_000);
    let approval = open_card(&mut world, &background);
    let id = world.submission();
    world.send(json!({"type": "thread.subscribe", "submissionId": id, "threadId": shown}));
    respond(&mut world, &approval, json!({"type": "accept"}));
    world.settle();
    let said = notices(&world);
    assert_eq!(
        said.last(),
        Some(&(background.to_string(), Some("Panelot finished this task.".to_owned()))),
        "{said:?}"
    );
    // A short turn in a thread a view shows ends quietly.
    let before = notices(&world).len();
    world.script.push_back(Reply::text("hi"));
    submit(&mut world, &shown, "hello");
    world.settle();
    assert_eq!(notices(&world).len(), before);
}
