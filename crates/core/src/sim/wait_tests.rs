//! Waits through the real engine and driver: `schedule_resume` (the run continues when its time
//! comes, also after a restart) and `watch_page` (resolved to the tab it watches, a watch in the
//! host that is started again after a restart, ended by what it waited for, by its deadline or
//! by the user). A wait is not the user's turn: no "waiting for you" badge, no notification.

use panelot_protocol::AgentEvent;
use panelot_protocol::InteractionId;
use panelot_protocol::engine::StopReason;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::turn_tests::results;
use super::turn_tests::stops;
use super::turn_tests::submit;
use super::world::Reply;
use super::world::World;

const MINUTE_MS: u64 = 60_000;

fn asked(world: &World) -> Vec<InteractionId> {
    world.events(|e| match e {
        AgentEvent::InteractionRequest(r) => Some(r.interaction_id.clone()),
        _ => None,
    })
}

fn waiting_for_user(world: &World) -> Vec<u32> {
    world.events(|e| match e {
        AgentEvent::ActivityUpdated(a) => Some(a.pending_interactions),
        _ => None,
    })
}

#[test]
fn schedule_resume_continues_the_run_when_its_time_comes_even_after_a_restart() {
    let mut world = World::new();
    let thread = world.create_thread();
    let start = crate::env::Clock::now_ms(&*world.clock);
    world.script.push_back(Reply::tool(
        "schedule_resume",
        json!({"delaySeconds": 600, "reason": "check the price again"}),
    ));
    world.script.push_back(Reply::text("The price is still 12 €."));
    submit(&mut world, &thread, "check the price in 10 minutes");
    world.settle();
    assert_eq!(asked(&world).len(), 1);
    assert_eq!(world.requests.len(), 1, "the run waits");
    assert!(world.wakes().contains(&(start + 10 * MINUTE_MS)), "{:?}", world.wakes());
    world.clock.advance(5 * MINUTE_MS);
    world.restart();
    world.settle();
    assert_eq!(world.requests.len(), 1, "not before its time, restart or not");
    world.clock.advance(5 * MINUTE_MS);
    world.flush();
    world.settle();
    assert_eq!(results(&world.path(&thread)), ["It is time to continue: check the price again"]);
    assert_eq!(stops(&world), [StopReason::End]);
    assert!(waiting_for_user(&world).iter().all(|n| *n == 0), "a wait is not the user's turn");
    assert!(world.notices().is_empty(), "{:?}", world.notices());
}

#[test]
fn the_user_continues_a_scheduled_run_now_or_calls_it_off() {
    let mut world = World::new();
    let thread = world.create_thread();
    for (response, said) in [
        (json!({"type": "submit", "value": null}), "The user asked to continue now."),
        (
            json!({"type": "cancel", "note": null}),
            "The user called off the wait; do not schedule it again unless they ask.",
        ),
    ] {
        world
            .script
            .push_back(Reply::tool("schedule_resume", json!({"delaySeconds": 60, "reason": "r"})));
        world.script.push_back(Reply::text("ok"));
        submit(&mut world, &thread, "later");
        world.settle();
        let id = asked(&world).pop().unwrap();
        let submission = world.submission();
        world.send(json!({"type": "interaction.response", "submissionId": submission,
            "interactionId": id, "response": response}));
        world.settle();
        assert_eq!(results(&world.path(&thread)).pop().unwrap(), said);
    }
    assert_eq!(stops(&world), [StopReason::End, StopReason::End]);
}

#[test]
fn watch_page_watches_again_after_a_restart_and_ends_when_the_page_changes() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool(
        "watch_page",
        json!({"condition": "url", "value": "/paid", "timeoutSeconds": 3600}),
    ));
    world.script.push_back(Reply::text("The payment went through."));
    submit(&mut world, &thread, "tell me when the payment is done");
    world.settle();
    let watches = world.watches();
    assert_eq!(watches.len(), 1);
    assert_eq!(watches[0].target.as_ref().map(|t| t.tab), Some(7), "the tab it was judged on");
    world.restart();
    world.settle();
    assert_eq!(world.watches().len(), 1, "the watch is started again");
    world.poll_watches();
    assert_eq!(world.requests.len(), 1, "nothing seen yet");
    world.browser.navigate(7, "https://shop.example/paid");
    world.poll_watches();
    world.settle();
    assert_eq!(
        results(&world.path(&thread)),
        ["The tab's URL contained \"/paid\". Read the page again before acting on it."]
    );
    assert_eq!(stops(&world), [StopReason::End]);
    assert!(world.watches().is_empty());
    assert!(world.notices().is_empty());
}

#[test]
fn a_watch_gives_up_at_its_deadline_and_the_user_can_stop_it() {
    let mut world = World::new();
    let thread = world.create_thread();
    let watch = json!({"condition": "text", "value": "In stock", "timeoutSeconds": 60});
    world.script.push_back(Reply::tool("watch_page", watch.clone()));
    world.script.push_back(Reply::text("still out of stock"));
    submit(&mut world, &thread, "wait for stock");
    world.settle();
    world.clock.advance(MINUTE_MS);
    world.settle();
    assert_eq!(
        results(&world.path(&thread)),
        ["Stopped waiting: the time ran out before the page showed \"In stock\"."]
    );
    assert!(world.watches().is_empty(), "the deadline stops the watch");

    world.script.push_back(Reply::tool("watch_page", watch));
    world.script.push_back(Reply::text("stopped"));
    submit(&mut world, &thread, "wait again");
    world.settle();
    assert_eq!(world.watches().len(), 1);
    let id = asked(&world).pop().unwrap();
    let submission = world.submission();
    world.send(json!({"type": "interaction.response", "submissionId": submission,
        "interactionId": id, "response": {"type": "cancel", "note": null}}));
    world.settle();
    assert!(world.watches().is_empty(), "stopping the wait stops the watch");
    // What the page shows later changes nothing.
    world.browser.tabs.get_mut(&7).unwrap().text = "In stock".into();
    world.poll_watches();
    world.settle();
    assert_eq!(
        results(&world.path(&thread)).pop().unwrap(),
        "The user stopped the wait. Read the page again before acting on it."
    );
    assert_eq!(stops(&world), [StopReason::End, StopReason::End]);
}

#[test]
fn a_watch_is_the_only_call_of_its_answer() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::Tools(vec![
        ("watch_page".into(), json!({"condition": "text", "value": "Paid"}).to_string()),
        ("read_page".into(), "{}".into()),
    ]));
    world.script.push_back(Reply::text("could not"));
    submit(&mut world, &thread, "wait for the payment");
    world.settle();
    let said = results(&world.path(&thread));
    assert!(said[0].contains("must be the only tool call"), "{said:?}");
    assert!(asked(&world).is_empty());
    assert!(world.watches().is_empty());
}
