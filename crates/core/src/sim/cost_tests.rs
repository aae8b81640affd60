//! What model calls cost and what a model could not be given, through the engine: the cost a
//! backend reports goes into the answer's node, the `token.usage` event and the thread's totals;
//! what it withheld (tools, images) is said once in the run.

use panelot_protocol::AgentEvent;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ItemKind;
use panelot_protocol::engine::StopReason;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::turn_tests::kinds;
use super::turn_tests::stops;
use super::turn_tests::submit;
use super::world::Reply;
use super::world::World;
use crate::model::Withheld;
use crate::store::NodeBody;
use crate::store::Store;
use crate::store::conformance::block_on;

fn answer_costs(world: &World, thread: &ThreadId) -> Vec<Option<f64>> {
    world
        .path(thread)
        .into_iter()
        .filter_map(|n| match n.body {
            NodeBody::AssistantMessage { cost_usd, .. } => Some(cost_usd),
            _ => None,
        })
        .collect()
}

fn usage_costs(world: &World) -> Vec<Option<f64>> {
    world.events(|e| match e {
        AgentEvent::TokenUsage(u) => Some(u.cost_usd),
        _ => None,
    })
}

fn thread_cost(world: &World, thread: &ThreadId) -> f64 {
    block_on(world.store.thread(thread)).unwrap().unwrap().stats.cost_usd
}

#[test]
fn each_call_s_cost_is_stored_announced_and_added_to_the_thread() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.cost_per_call = Some(0.25);
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("Clicked it."));
    submit(&mut world, &thread, "click the button");
    world.settle();
    assert_eq!(answer_costs(&world, &thread), [Some(0.25), Some(0.25)]);
    assert_eq!(usage_costs(&world), [Some(0.25), Some(0.25)]);
    assert_eq!(thread_cost(&world, &thread), 0.5);
    // A second turn adds to the same total; a call without a price adds nothing.
    world.cost_per_call = Some(0.125);
    world.script.push_back(Reply::text("Done."));
    submit(&mut world, &thread, "thanks");
    world.settle();
    assert_eq!(thread_cost(&world, &thread), 0.625);
    world.cost_per_call = None;
    world.script.push_back(Reply::text("Still here."));
    submit(&mut world, &thread, "again");
    world.settle();
    assert_eq!(usage_costs(&world), [Some(0.25), Some(0.25), Some(0.125), None]);
    assert_eq!(thread_cost(&world, &thread), 0.625);
    let meta = block_on(world.store.thread(&thread)).unwrap().unwrap();
    assert_eq!(meta.stats.total_tokens, 4 * 110, "tokens still add up beside the cost");
    // The snapshot a UI opens shows the stored cost of each answer.
    let id = world.submission();
    let costs: Vec<Option<f64>> = world
        .send(json!({"type": "thread.subscribe", "submissionId": id, "threadId": thread}))
        .into_iter()
        .filter_map(|f| match f.event {
            AgentEvent::ThreadSnapshot(s) => Some(s),
            _ => None,
        })
        .flat_map(|s| s.snapshot.items)
        .filter_map(|item| match item.content {
            panelot_protocol::engine::ItemContent::AssistantMessage { cost_usd, .. } => {
                Some(cost_usd)
            }
            _ => None,
        })
        .collect();
    assert_eq!(costs, [Some(0.25), Some(0.25), Some(0.125), None]);
}

#[test]
fn a_model_without_tools_answers_in_words_and_the_run_says_why_once() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.withheld = Withheld { tools: true, ..Withheld::default() };
    // A model that calls a tool it was never offered: the call is not run.
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    submit(&mut world, &thread, "click the button");
    world.settle();
    assert!(world.executions.is_empty());
    let path = world.path(&thread);
    assert_eq!(kinds(&path), ["user", "context", "assistant", "notice"]);
    let NodeBody::SystemNotice { text } = &path[3].body else { panic!("{path:?}") };
    assert!(text.contains("does not use tools"), "{text}");
    let notices: Vec<ItemKind> = world.events(|e| match e {
        AgentEvent::ItemStart(s) if s.kind == ItemKind::SystemNotice => Some(s.kind),
        _ => None,
    });
    assert_eq!(notices.len(), 1, "said live too");
    assert_eq!(stops(&world), [StopReason::End]);
    // Images withheld are counted; the notice comes once a run, not at each call.
    world.withheld = Withheld { images: 2, ..Withheld::default() };
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("Clicked."));
    submit(&mut world, &thread, "look at these");
    world.settle();
    let path = world.path(&thread);
    let notices: Vec<&str> = path
        .iter()
        .filter_map(|n| match &n.body {
            NodeBody::SystemNotice { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices[1].contains("2 attached images were not sent"), "{notices:?}");
    assert_eq!(world.executions.len(), 1, "tools were not withheld this time");
}

#[test]
fn a_model_that_does_not_read_images_has_its_calls_told_so() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("Clicked."));
    submit(&mut world, &thread, "click it");
    world.settle();
    // The screenshot tool went with the call: the model reads images.
    assert!(world.executions[0].call.vision);
    world.withheld = Withheld { screenshot: true, ..Withheld::default() };
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("Clicked."));
    submit(&mut world, &thread, "again");
    world.settle();
    // It did not: `read_page` gets no screenshot it could not see. Nothing is said to the user
    // (nothing of theirs was withheld).
    assert!(!world.executions[1].call.vision);
    let path = world.path(&thread);
    assert!(!path.iter().any(|n| matches!(n.body, NodeBody::SystemNotice { .. })), "{path:?}");
}
