//! The user in the page the agent acts on: a takeover (a real key or mouse press there) or the
//! page indicator's Pause lets the running write finish, keeps the answer's other calls from
//! running, and parks the run as `paused_by_user` before its next model call, with a notice;
//! Resume goes on with the next model call. The indicator's Stop ends the turn as the panel's
//! stop does. Signals about a tab the run never wrote to, or a run not at work, change nothing.

use panelot_protocol::AgentEvent;
use panelot_protocol::RunId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::RecoveryOption;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::StopReason;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::turn_tests::acked;
use super::turn_tests::approvals;
use super::turn_tests::ask_first;
use super::turn_tests::respond;
use super::turn_tests::results;
use super::turn_tests::stops;
use super::turn_tests::submit;
use super::world::Reply;
use super::world::World;
use crate::driver::Input;
use crate::engine::Effect;
use crate::engine::IndicatorState;
use crate::engine::PageSignal;
use crate::engine::PageSignalKind;

/// The tab the world's pages are in.
const SHOP_TAB: u32 = 7;

fn clicks(world: &World) -> Vec<String> {
    world
        .executions
        .iter()
        .filter(|e| e.call.tool == "click" && e.acted_on.is_some())
        .map(|e| e.call.params["ref"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Runs effects until a tool call is running (dispatched, its outcome not back).
fn until_a_tool_runs(world: &mut World) {
    while !world.effects().iter().any(|e| matches!(e, Effect::RunTool { .. })) {
        assert!(world.step(0), "no tool call started");
    }
}

fn the_run(world: &World) -> crate::store::RunRecord {
    world.store.all_runs().pop().unwrap()
}

fn signal(world: &mut World, run: &RunId, tab: u32, kind: PageSignalKind) {
    world.input(Input::Page(PageSignal { tab, run_id: run.clone(), kind }));
}

fn resume(world: &mut World, thread: &ThreadId, run: &RunId) -> Vec<AgentEvent> {
    let id = world.submission();
    let msg = json!({"type": "run.resume", "submissionId": id, "threadId": thread, "runId": run});
    world.send(msg).into_iter().map(|f| f.event).collect()
}

/// The recovery cards the thread's views were sent, oldest first.
fn cards(world: &World) -> Vec<(RunState, String, Vec<RecoveryOption>)> {
    world.events(|e| match e {
        AgentEvent::RunRecoveryRequired(r) => {
            Some((r.run.state, r.run.reason.clone(), r.run.options.clone()))
        }
        _ => None,
    })
}

fn indicators(world: &World) -> Vec<(Vec<u32>, IndicatorState)> {
    world
        .indicators()
        .into_iter()
        .filter_map(|e| match e {
            Effect::Indicator { tabs, state, .. } => Some((tabs, state)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_takeover_lets_the_running_write_finish_then_pauses_and_resume_goes_on() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::Tools(vec![
        ("click".into(), json!({"ref": "e1"}).to_string()),
        ("click".into(), json!({"ref": "e2"}).to_string()),
    ]));
    world.script.push_back(Reply::text("done after the user"));
    submit(&mut world, &thread, "click both");
    until_a_tool_runs(&mut world);
    let running: Vec<bool> = world
        .effects()
        .iter()
        .filter_map(|e| match e {
            Effect::RunTool { call, .. } => Some(call.indicator),
            _ => None,
        })
        .collect();
    assert_eq!(running, [true], "a write shows the page indicator");
    let run = the_run(&world).id;

    // The user presses a key in the page while the first click runs.
    signal(&mut world, &run, SHOP_TAB, PageSignalKind::TookOver);
    world.settle();
    assert_eq!(clicks(&world), ["e1"], "the running click finished; the second never ran");
    assert_eq!(world.requests.len(), 1, "no model call after the takeover");
    let parked = the_run(&world);
    assert_eq!(parked.state, RunState::PausedByUser);
    let notice = "You took over in \u{201c}Shop\u{201d}. Resume when done.";
    assert_eq!(
        cards(&world),
        [(RunState::PausedByUser, notice.to_owned(), vec![RecoveryOption::Continue])]
    );
    assert_eq!(indicators(&world), [(vec![SHOP_TAB], IndicatorState::Paused)]);
    let said = results(&world.path(&thread));
    assert_eq!(said[0], "click done on e1");
    assert!(said[1].starts_with("Not run: the user paused the run"), "{said:?}");
    assert!(stops(&world).is_empty(), "the turn is paused, not over");

    // A paused run survives a restart as it is.
    world.restart();
    assert_eq!(the_run(&world).state, RunState::PausedByUser);

    assert!(acked(&resume(&mut world, &thread, &run)));
    world.settle();
    assert_eq!(world.requests.len(), 2);
    assert_eq!(stops(&world), [StopReason::End]);
    assert_eq!(clicks(&world), ["e1"]);
    assert_eq!(
        indicators(&world).last(),
        Some(&(vec![SHOP_TAB], IndicatorState::Gone)),
        "the indicator goes with the turn"
    );
}

#[test]
fn pause_during_the_model_answer_keeps_its_calls_from_running() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::tool("click", json!({"ref": "e2"})));
    world.script.push_back(Reply::text("finished"));
    submit(&mut world, &thread, "click twice");
    until_a_tool_runs(&mut world);
    // The first click ends; the second model call is under way.
    assert!(world.step(0));
    assert!(world.effects().iter().any(|e| matches!(e, Effect::CallModel { .. })));
    let run = the_run(&world).id;
    signal(&mut world, &run, SHOP_TAB, PageSignalKind::Pause);
    world.settle();
    assert_eq!(clicks(&world), ["e1"]);
    assert_eq!(world.requests.len(), 2);
    let notice = "You paused it from \u{201c}Shop\u{201d}. Resume when you are ready.";
    assert_eq!(the_run(&world).state, RunState::PausedByUser);
    assert_eq!(the_run(&world).note.as_deref(), Some(notice));
    assert!(acked(&resume(&mut world, &thread, &run)));
    world.settle();
    assert_eq!(stops(&world), [StopReason::End]);
    // The model read that its second click did not run, and answered.
    let said = results(&world.path(&thread));
    assert!(said[1].starts_with("Not run: the user paused the run"), "{said:?}");
}

#[test]
fn the_page_stop_ends_the_turn_as_the_panels_stop_does() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("never said"));
    submit(&mut world, &thread, "click");
    until_a_tool_runs(&mut world);
    let run = the_run(&world).id;
    signal(&mut world, &run, SHOP_TAB, PageSignalKind::Stop);
    world.settle();
    assert_eq!(stops(&world), [StopReason::Interrupted]);
    assert_eq!(world.requests.len(), 1);
    assert_eq!(the_run(&world).state, RunState::Interrupted);
    assert_eq!(indicators(&world), [(vec![SHOP_TAB], IndicatorState::Gone)]);
}

#[test]
fn signals_about_a_tab_the_run_never_wrote_to_or_a_run_not_at_work_change_nothing() {
    let mut world = World::new();
    let thread = world.create_thread();
    let other = world.browser.open("https://docs.example/guide");
    world.script.push_back(Reply::tool("read_page", json!({"ref": "e1"})));
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("done"));
    submit(&mut world, &thread, "read, then click");
    until_a_tool_runs(&mut world);
    let reading: Vec<bool> = world
        .effects()
        .iter()
        .filter_map(|e| match e {
            Effect::RunTool { call, .. } => Some(call.indicator),
            _ => None,
        })
        .collect();
    assert_eq!(reading, [false], "a read of a tab not written to shows no indicator");
    let run = the_run(&world).id;
    // Only read so far: the user's keys in that page are theirs.
    signal(&mut world, &run, SHOP_TAB, PageSignalKind::TookOver);
    // A tab the run never acted on, and a run that does not exist.
    signal(&mut world, &run, other, PageSignalKind::Stop);
    let stranger = RunId::new("r-elsewhere").unwrap();
    signal(&mut world, &stranger, SHOP_TAB, PageSignalKind::Stop);
    world.settle();
    assert_eq!(clicks(&world), ["e1"]);
    assert_eq!(stops(&world), [StopReason::End]);
    // The turn is over: its indicator's buttons no longer do anything.
    signal(&mut world, &run, SHOP_TAB, PageSignalKind::Stop);
    signal(&mut world, &run, SHOP_TAB, PageSignalKind::TookOver);
    world.settle();
    assert_eq!(the_run(&world).state, RunState::Completed);
    assert_eq!(stops(&world), [StopReason::End]);
}

#[test]
fn a_takeover_while_the_run_waits_for_an_answer_is_not_a_pause_and_the_bar_says_so() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::tool("click", json!({"ref": "e2"})));
    world.script.push_back(Reply::text("done"));
    submit(&mut world, &thread, "click twice");
    world.settle();
    let (first, _) = approvals(&world).pop().expect("the first click is asked");
    respond(&mut world, &first, json!({"type": "accept"}));
    world.settle();
    // The first click wrote to the shop's tab; the second waits for the user's answer.
    assert_eq!(clicks(&world), ["e1"]);
    let run = the_run(&world);
    assert_eq!(run.state, RunState::WaitingApproval);
    signal(&mut world, &run.id, SHOP_TAB, PageSignalKind::TookOver);
    world.settle();
    assert_eq!(the_run(&world).pause, None, "the page is the user's while they are asked");
    assert_eq!(indicators(&world), [(vec![SHOP_TAB], IndicatorState::Working)]);
    let (second, _) = approvals(&world).pop().expect("the second click is asked");
    respond(&mut world, &second, json!({"type": "accept"}));
    world.settle();
    assert_eq!(clicks(&world), ["e1", "e2"]);
    assert_eq!(stops(&world), [StopReason::End]);
}
