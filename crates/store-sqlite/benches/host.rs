//! Events per second through the engine host with 16 ms coalescing, on the SQLite store: a turn
//! streams 20,000 text deltas (as a fast model does, ~1 ms apart) to one subscribed port; the
//! figure is deltas handled per second, with the frames actually sent to the port and their
//! merge ratio. Medians of several runs, printed by `cargo xtask bench`.

// A benchmark of inputs it builds itself: a failure is a bug to crash on.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::print_stdout)]

use std::rc::Rc;
use std::time::Instant;

use panelot_core::engine::Effect;
use panelot_core::engine::Engine;
use panelot_core::engine::TITLE_PROMPT;
use panelot_core::env::CountingIds;
use panelot_core::env::ManualClock;
use panelot_core::model::AssistantTurn;
use panelot_core::model::ModelEvent;
use panelot_core::model::ModelResponse;
use panelot_core::model::Withheld;
use panelot_core::settings::CONNECTIONS;
use panelot_core::settings::DEFAULT_MODEL;
use panelot_core::store::Store;
use panelot_core::store::UnitOfWork;
use panelot_core::store::WriteOp;
use panelot_core::store::conformance::block_on;
use panelot_protocol::AgentEvent;
use panelot_protocol::ENGINE_PROTOCOL;
use panelot_protocol::ENGINE_SCHEMA_HASH;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::Usage;
use panelot_store_sqlite::SqliteStore;
use serde_json::json;

const RUNS: usize = 5;
const DELTAS: usize = 20_000;

struct Figures {
    deltas_per_s: f64,
    frames: usize,
}

fn one_run() -> Figures {
    let dir = std::env::temp_dir().join(format!("panelot-host-bench-{}", std::process::id()));
    let _ = std::fs::remove_file(&dir);
    let store = SqliteStore::open(&dir).unwrap();
    let mut unit = UnitOfWork::new();
    // The default model and its connection: a model call carries the stored connection, and a
    // turn whose connection is gone fails before it calls the model.
    unit.push(WriteOp::PutSetting {
        key: CONNECTIONS.key().into(),
        value: json!([{"id": "c", "name": "bench", "kind": "openai",
            "baseUrl": "https://bench.example/v1", "keys": [], "enabled": true, "modelIds": ["m"]}]),
    });
    unit.push(WriteOp::PutSetting {
        key: DEFAULT_MODEL.key().into(),
        value: json!({"connectionId": "c", "modelId": "m"}),
    });
    block_on(store.commit(unit)).unwrap();
    let clock = Rc::new(ManualClock::at(1_000));
    let mut engine = Engine::new(store, clock.clone(), Rc::new(CountingIds::default()), 1);
    block_on(engine.start()).unwrap();
    engine.connect(1);
    let send = |engine: &mut Engine<SqliteStore>, message: serde_json::Value| {
        block_on(engine.on_text(1, &message.to_string()))
    };
    send(
        &mut engine,
        json!({"type": "initialize", "submissionId": "i", "protocol": ENGINE_PROTOCOL,
        "schemaHash": ENGINE_SCHEMA_HASH, "clientId": "bench"}),
    );
    let created = send(&mut engine, json!({"type": "thread.create", "submissionId": "c"}));
    let thread = created
        .sends
        .iter()
        .find_map(|(_, f)| match &f.event {
            AgentEvent::CommandAck(a) => a.thread_id.clone(),
            _ => None,
        })
        .unwrap();
    send(&mut engine, json!({"type": "thread.subscribe", "submissionId": "s", "threadId": thread}));
    let out = send(
        &mut engine,
        json!({"type": "turn.submit", "submissionId": "t", "threadId": thread,
        "input": {"text": "go"}}),
    );
    let call = out
        .effects
        .iter()
        .find_map(|e| match e {
            // The turn's call, not the title's beside it.
            Effect::CallModel { id, request, .. } if request.system.stable != TITLE_PROMPT => {
                Some(*id)
            }
            _ => None,
        })
        .unwrap();
    let start = Instant::now();
    let mut frames = 0;
    for n in 0..DELTAS {
        clock.advance(1);
        let out = block_on(engine.on_model_event(call, ModelEvent::TextDelta(format!("w{n} "))));
        frames += out.sends.len();
        if out.wake_at_ms.is_some_and(|at| at <= 1_000 + n as u64 + 1) {
            frames += block_on(engine.on_tick()).sends.len();
        }
    }
    let response = ModelResponse {
        turn: AssistantTurn { text: "done".into(), ..AssistantTurn::default() },
        stop_reason: ProviderStopReason::End,
        usage: Usage::default(),
        cost_usd: None,
        withheld: Withheld::default(),
    };
    frames += block_on(engine.on_model_done(call, Ok(response))).sends.len();
    let elapsed = start.elapsed().as_secs_f64();
    let _ = std::fs::remove_file(&dir);
    Figures { deltas_per_s: DELTAS as f64 / elapsed, frames }
}

fn main() {
    let mut runs: Vec<Figures> = (0..RUNS).map(|_| one_run()).collect();
    runs.sort_by(|a, b| a.deltas_per_s.total_cmp(&b.deltas_per_s));
    let median = &runs[RUNS / 2];
    println!(
        "host: {DELTAS} streamed deltas at {:.0} deltas/s (median of {RUNS}); {} frames sent, {:.1} deltas per frame",
        median.deltas_per_s,
        median.frames,
        DELTAS as f64 / median.frames as f64
    );
}
