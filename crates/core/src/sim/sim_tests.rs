//! The simulation: many seeded schedules of UI commands, model answers and tool results, with the
//! store crashing at a random unit-of-work boundary and the engine restarting over it; after each
//! seed the world is driven to rest and the invariants are checked.
//!
//! `PANELOT_SIM_SEEDS=N` runs N seeds (default below); `PANELOT_SIM_SEED=S` replays one. A failure
//! names its seed.

use std::collections::BTreeMap;
use std::collections::BTreeSet;

use panelot_protocol::AgentEvent;
use panelot_protocol::RunId;
use panelot_protocol::ThreadId;
use panelot_protocol::TurnId;
use panelot_protocol::engine::ProviderErrorKind;
use panelot_protocol::engine::RunState;
use serde_json::json;

use super::world::Reply;
use super::world::World;
use crate::store::NodeBody;
use crate::store::Store;
use crate::store::conformance::block_on;

/// Seeds per `cargo test` run: enough to cover every crash point of the usual schedules, few
/// enough to keep the suite quick.
const DEFAULT_SEEDS: u64 = 300;

/// SplitMix64: small, fast and good enough to pick schedules.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// What the UI was told was accepted.
#[derive(Default)]
struct Accepted {
    /// Acked messages (submit or steer): their text.
    texts: Vec<String>,
    /// Acked explicit retries, per run.
    retries: BTreeMap<RunId, u32>,
    /// Runs the engine acked.
    runs: BTreeSet<RunId>,
    /// Runs a command of the user may have ended before their answer: the one a `turn.interrupt`
    /// or a cancelled approval ended, and the parked ones a new message moved on from.
    ended_by_user: BTreeSet<RunId>,
}

fn random_reply(rng: &mut Rng) -> Reply {
    let target = ["e1", "e2", "bad", "pay", "redirect", "e1"][rng.below(6) as usize];
    match rng.below(10) {
        0..=2 => Reply::tool("click", json!({"ref": target})),
        3..=5 => Reply::tool("read_page", json!({"ref": target})),
        6 => Reply::Tools(vec![
            ("read_page".into(), json!({"ref": "e1"}).to_string()),
            ("click".into(), json!({"ref": target}).to_string()),
        ]),
        7 if rng.chance(50) => Reply::tool(
            "ask_user",
            json!({"questions": [{"question": "Which one?", "options": []}]}),
        ),
        7 => Reply::Fail(ProviderErrorKind::Overloaded),
        _ => Reply::text("All done here."),
    }
}

fn ack_run(frames: &[panelot_protocol::EventFrame]) -> Option<RunId> {
    frames.iter().find_map(|f| match &f.event {
        AgentEvent::CommandAck(ack) => ack.run_id.clone(),
        _ => None,
    })
}

/// The turn running in `thread` as the UI saw it (started, not completed).
fn running_turn(world: &World) -> Option<TurnId> {
    let mut open: Vec<TurnId> = Vec::new();
    for frame in &world.frames {
        match &frame.event {
            AgentEvent::TurnStart(s) => open.push(s.turn_id.clone()),
            AgentEvent::TurnComplete(c) => open.retain(|t| t != &c.turn_id),
            _ => {}
        }
    }
    open.pop()
}

/// The stored runs waiting for the user to continue them.
fn parked_runs(world: &World) -> Vec<RunId> {
    block_on(world.store.open_runs())
        .unwrap()
        .into_iter()
        .filter(|r| r.is_parked())
        .map(|r| r.id)
        .collect()
}

fn act(world: &mut World, thread: &ThreadId, rng: &mut Rng, accepted: &mut Accepted, n: u64) {
    match rng.below(12) {
        0 | 1 => {
            let text = format!("message {n}");
            let id = world.submission();
            let parked = parked_runs(world);
            let frames = world.send(json!({"type": "turn.submit", "submissionId": id,
                "threadId": thread, "input": super::world::input(text.as_str())}));
            if let Some(run) = ack_run(&frames) {
                accepted.runs.insert(run);
                accepted.texts.push(text);
                accepted.ended_by_user.extend(parked);
            }
        }
        2 => {
            if let Some(turn) = running_turn(world) {
                let text = format!("steer {n}");
                let id = world.submission();
                let frames = world.send(json!({"type": "turn.steer", "submissionId": id,
                    "threadId": thread, "expectedTurnId": turn, "input": super::world::input(text.as_str())}));
                if ack_run(&frames).is_some() {
                    accepted.texts.push(text);
                }
            }
        }
        3 if rng.chance(30) => {
            let id = world.submission();
            let frames = world
                .send(json!({"type": "turn.interrupt", "submissionId": id, "threadId": thread}));
            accepted.ended_by_user.extend(ack_run(&frames));
        }
        4 => world.flush(),
        // The browser moves under the engine: between a call's judgement and its dispatch, or
        // while its approval waits.
        5 if rng.chance(40) => {
            let url =
                ["https://shop.example/other", "https://shop.example/cart"][rng.below(2) as usize];
            world.browser.navigate(7, url);
        }
        6 if rng.chance(30) => {
            let tab = world.browser.open("https://news.example/");
            if rng.chance(50) {
                world.browser.tabs.remove(&tab);
            }
        }
        _ => {
            let pick = rng.below(4) as usize;
            world.step(pick);
        }
    }
}

/// Answers every parked run the way a user might.
fn resolve_parked(world: &mut World, thread: &ThreadId, rng: &mut Rng, accepted: &mut Accepted) {
    let parked: Vec<(RunId, RunState)> = block_on(world.store.open_runs())
        .unwrap()
        .into_iter()
        .filter(|r| r.is_parked())
        .map(|r| (r.id, r.state))
        .collect();
    let waiting: Vec<(panelot_protocol::ApprovalId, RunId)> = block_on(world.store.open_runs())
        .unwrap()
        .into_iter()
        .filter_map(|r| r.approval.map(|a| (a.id, r.id)))
        .collect();
    let questions: Vec<panelot_protocol::InteractionId> = block_on(world.store.open_runs())
        .unwrap()
        .into_iter()
        .filter_map(|r| r.interaction.map(|i| i.id))
        .collect();
    for question in questions {
        let response = if rng.chance(70) {
            json!({"type": "submit", "value": "the first"})
        } else {
            json!({"type": "cancel", "note": null})
        };
        let id = world.submission();
        world.send(json!({"type": "interaction.response", "submissionId": id,
            "interactionId": question, "response": response}));
    }
    for (approval, run) in waiting {
        let decision = match rng.below(5) {
            0 => json!({"type": "acceptForSession"}),
            1 => json!({"type": "decline", "note": "no"}),
            2 => json!({"type": "cancel"}),
            _ => json!({"type": "accept"}),
        };
        let cancel = decision["type"] == "cancel";
        let id = world.submission();
        let frames = world.send(json!({"type": "approval.response", "submissionId": id,
            "approvalId": approval, "decision": decision}));
        if cancel && ack_run(&frames).is_some() {
            accepted.ended_by_user.insert(run);
        }
    }
    for (run, state) in parked {
        let id = world.submission();
        let message = match state {
            RunState::PausedUncertain => {
                let resolution = ["retry", "mark_done", "fail"][rng.below(3) as usize];
                json!({"type": "run.resolveUncertain", "submissionId": id, "threadId": thread,
                    "runId": run, "resolution": resolution})
            }
            _ => {
                json!({"type": "run.resume", "submissionId": id, "threadId": thread, "runId": run})
            }
        };
        let retry = message["resolution"] == "retry";
        let frames = world.send(message);
        if retry && ack_run(&frames).is_some() {
            *accepted.retries.entry(run).or_default() += 1;
        }
    }
}

fn run_seed(seed: u64) {
    let mut rng = Rng(seed);
    let mut world = World::new();
    if rng.chance(50) {
        let op = crate::store::WriteOp::PutSetting {
            key: crate::settings::PERMISSION_POLICY.key().into(),
            value: json!("untrusted"),
        };
        block_on(world.store.commit(crate::store::UnitOfWork { ops: vec![op] })).unwrap();
    }
    let thread = world.create_thread();
    for _ in 0..40 {
        world.script.push_back(random_reply(&mut rng));
    }
    let mut accepted = Accepted::default();
    let crash_in = rng.below(30);
    let mut crashes = 0;
    for n in 0..60 {
        if n == crash_in || (crashes == 0 && rng.chance(3)) {
            world.crash_at_commit(rng.below(3) as u32);
        }
        act(&mut world, &thread, &mut rng, &mut accepted, n);
        if world.crashed() {
            crashes += 1;
            world.restart();
        }
        if rng.chance(10) {
            resolve_parked(&mut world, &thread, &mut rng, &mut accepted);
        }
    }
    // Drive to rest: no more crashes; every parked run gets an answer.
    for _ in 0..50 {
        world.settle();
        resolve_parked(&mut world, &thread, &mut rng, &mut accepted);
        world.settle();
        if block_on(world.store.open_runs()).unwrap().is_empty() {
            break;
        }
    }
    check_invariants(&world, &thread, &accepted);
}

fn check_invariants(world: &World, thread: &ThreadId, accepted: &Accepted) {
    let runs = world.store.all_runs();
    // The engine's open runs mirror the store's: none at rest.
    assert!(world.with_engine(|engine| engine.open_runs().is_empty()), "the engine holds runs");
    // Every run reaches exactly one terminal state, written once.
    assert!(runs.iter().all(|r| r.is_terminal()), "open runs at rest: {runs:#?}");
    assert!(
        world.crash.terminal_rewrites.borrow().is_empty(),
        "a terminal run was written again: {:?}",
        world.crash.terminal_rewrites.borrow()
    );
    let mut completes: BTreeMap<TurnId, u32> = BTreeMap::new();
    for turn in world.events(|e| match e {
        AgentEvent::TurnComplete(c) => Some(c.turn_id.clone()),
        _ => None,
    }) {
        *completes.entry(turn).or_default() += 1;
    }
    assert!(completes.values().all(|n| *n == 1), "turn.complete repeated: {completes:?}");
    // A turn ends before its answer only when the user said so: a restart that cuts it leaves
    // it to be continued, even with messages queued behind it.
    for run in &runs {
        if run.state == RunState::Interrupted && !run.resumable {
            assert!(accepted.ended_by_user.contains(&run.id), "run {} was ended unasked", run.id);
        }
    }
    // No accepted input is lost.
    let stored: BTreeSet<RunId> = runs.iter().map(|r| r.id.clone()).collect();
    for run in &accepted.runs {
        assert!(stored.contains(run), "acked run {run} is gone");
    }
    let links = block_on(world.store.tree_links(thread)).unwrap();
    let max = links.iter().map(|l| l.seq).max().unwrap_or(0);
    let nodes = block_on(world.store.node_range(thread, 0, max)).unwrap();
    let texts: BTreeSet<String> = nodes
        .iter()
        .filter_map(|n| match &n.body {
            NodeBody::UserMessage { input, .. } => Some(input.text.clone()),
            _ => None,
        })
        .collect();
    for text in &accepted.texts {
        assert!(texts.contains(text), "accepted message {text:?} is not in the thread");
    }
    // Every call acted on the target it was judged for: a target the browser resolved, on the
    // document it was resolved in; a page that changed meanwhile was not acted on.
    for execution in &world.executions {
        let Some(target) = &execution.call.target else {
            panic!("{} was dispatched without a judged target", execution.call.tool)
        };
        assert!(world.resolved.contains(target), "an unresolved target {target:?}");
        if let Some(acted_on) = &execution.acted_on {
            assert_eq!(Some(acted_on), target.document_id.as_ref(), "acted on another document");
        }
    }
    // No write acts on a sensitive page, however the tab got there (a script sent it there
    // after a click, or between a call's judgement and its dispatch).
    for execution in &world.executions {
        let on_sensitive =
            execution.call.target.as_ref().is_some_and(|t| t.url.contains("paypal.com"));
        let wrote = execution.acted_on.is_some() && execution.call.tool == "click";
        assert!(!(on_sensitive && wrote), "a click ran on a sensitive page: {execution:?}");
    }
    // A link to a sensitive origin is never followed.
    assert!(
        world
            .executions
            .iter()
            .all(|e| e.call.tool != "click" || e.call.params.get("ref") != Some(&json!("pay"))),
        "a click leading to a sensitive origin ran"
    );
    // No write runs twice without an explicit retry.
    let mut clicks: BTreeMap<(RunId, String), u32> = BTreeMap::new();
    for execution in &world.executions {
        if execution.call.tool == "click" {
            *clicks
                .entry((execution.call.run_id.clone(), execution.call.call_id.clone()))
                .or_default() += 1;
        }
    }
    for ((run, call), count) in &clicks {
        let allowed = 1 + accepted.retries.get(run).copied().unwrap_or(0);
        assert!(*count <= allowed, "click {call} of {run} ran {count} times, {allowed} allowed");
    }
    // The tree is valid and every call on the selected path has exactly one result.
    let view = block_on(crate::snapshot::load_thread_view(&*world.store, thread)).unwrap();
    assert_eq!(view.repaired_leaf, None);
    let path = world.path(thread);
    let mut open_calls: Vec<String> = Vec::new();
    for node in &path {
        match &node.body {
            NodeBody::ToolCall { call_id, .. } => open_calls.push(call_id.clone()),
            NodeBody::ToolResult { call_id, .. } => {
                let at = open_calls.iter().position(|c| c == call_id);
                assert!(at.is_some(), "result for unknown call {call_id}");
                open_calls.retain(|c| c != call_id);
            }
            NodeBody::AssistantMessage { .. } | NodeBody::UserMessage { .. } => {
                assert!(open_calls.is_empty(), "calls {open_calls:?} have no result");
            }
            _ => {}
        }
    }
    assert!(open_calls.is_empty(), "calls {open_calls:?} have no result");
    // Receipts agree with the domain: an acked run exists.
    for receipt in world.store.all_receipts() {
        if let Some(run) = receipt.answer.get("runId").and_then(|r| r.as_str()) {
            assert!(
                runs.iter().any(|r| r.id.as_str() == run),
                "receipt {:?} names run {run}, which does not exist",
                receipt.key
            );
        }
    }
}

fn seeds() -> Vec<u64> {
    if let Some(seed) = std::env::var("PANELOT_SIM_SEED").ok().and_then(|s| s.parse().ok()) {
        return vec![seed];
    }
    let count = std::env::var("PANELOT_SIM_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SEEDS);
    (1..=count).collect()
}

#[test]
fn simulation_keeps_every_invariant_across_crashes() {
    let seeds = seeds();
    for seed in &seeds {
        let result = std::panic::catch_unwind(|| run_seed(*seed));
        if let Err(panic) = result {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            panic!("simulation seed {seed} failed (replay: PANELOT_SIM_SEED={seed}): {message}");
        }
    }
    eprintln!("simulation: {} seeds passed", seeds.len());
}
