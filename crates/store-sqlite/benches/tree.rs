//! Thread-tree figures on the SQLite store (file-backed, warm page cache), printed as medians of
//! several runs by `cargo xtask bench`:
//! * open a 1,000-node thread to its encoded `initialized` snapshot (3 store reads);
//! * switch branch in that thread, including the new path's records and persisting the cursor;
//! * load a 10,000-node deep path.

// A benchmark of inputs it builds itself: a failure is a bug to crash on.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::Instant;

use panelot_core::snapshot::load_thread_view;
use panelot_core::snapshot::path_items;
use panelot_core::store::CachedStore;
use panelot_core::store::Store;
use panelot_core::store::UnitOfWork;
use panelot_core::store::WriteOp;
use panelot_core::store::conformance::block_on;
use panelot_core::store::conformance::meta;
use panelot_core::store::conformance::node_id;
use panelot_core::store::conformance::sample_conversation;
use panelot_core::store::conformance::text_node;
use panelot_core::store::conformance::thread_id;
use panelot_protocol::AgentEvent;
use panelot_protocol::EventFrame;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::InitializedEvent;
use panelot_protocol::engine::ThreadSnapshot;
use panelot_store_sqlite::SqliteStore;

const RUNS: usize = 9;

fn median_ms(mut work: impl FnMut()) -> f64 {
    let mut samples: Vec<f64> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            work();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[RUNS / 2]
}

fn conversation(path: &std::path::Path) -> (SqliteStore, u64) {
    let store = SqliteStore::open(path).unwrap();
    let (unit, branch_point) = sample_conversation("t", 1_000);
    block_on(store.commit(unit)).unwrap();
    (store, branch_point)
}

fn open_snapshot(store: &SqliteStore) -> usize {
    let view = block_on(load_thread_view(store, &thread_id("t"))).unwrap();
    let snapshot = ThreadSnapshot {
        meta: view.meta,
        items: view.items,
        has_earlier: view.has_earlier,
        active_turn: None,
        pending_approvals: vec![],
        pending_interactions: vec![],
        queued_runs: vec![],
        recoverable_runs: vec![],
    };
    let event = AgentEvent::Initialized(InitializedEvent {
        submission_id: SubmissionId::new("s").unwrap(),
        protocol: panelot_protocol::ENGINE_PROTOCOL.into(),
        schema_hash: panelot_protocol::ENGINE_SCHEMA_HASH.into(),
        snapshot: Some(snapshot),
    });
    EventFrame::new(event).to_json().unwrap().len()
}

fn main() {
    let dir = std::env::temp_dir().join(format!("panelot-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    let (store, branch_point) = conversation(&dir.join("thread.db"));
    let mut bytes = 0;
    let open_ms = median_ms(|| bytes = open_snapshot(&store));

    let view = block_on(load_thread_view(&store, &thread_id("t"))).unwrap();
    let tree = view.tree;
    let sibling = node_id(branch_point);
    let mut items = 0;
    let leaf = tree.default_leaf_under(&sibling).unwrap();
    let path_ms = median_ms(|| {
        let leaf = tree.default_leaf_under(&sibling).unwrap();
        items = block_on(path_items(&store, &thread_id("t"), &tree, &leaf)).unwrap().len();
    });
    let persist_ms = median_ms(|| {
        let mut moved = meta("t", 3);
        moved.leaf_id = Some(leaf.clone());
        block_on(store.commit(UnitOfWork { ops: vec![WriteOp::PutThread(moved)] })).unwrap();
    });
    let switch_ms = path_ms + persist_ms;
    // What the engine does: its reads go through a cache of decoded records (warmed by the
    // first open), so a switch decodes only what it has not seen.
    let cached = CachedStore::new(&store);
    block_on(load_thread_view(&cached, &thread_id("t"))).unwrap();
    let cached_ms = median_ms(|| {
        let leaf = tree.default_leaf_under(&sibling).unwrap();
        items = block_on(path_items(&cached, &thread_id("t"), &tree, &leaf)).unwrap().len();
    }) + persist_ms;

    let deep = SqliteStore::open(&dir.join("deep.db")).unwrap();
    let mut ops = vec![WriteOp::PutThread(meta("t", 1))];
    for n in 1..=10_000u64 {
        ops.push(WriteOp::AppendNode(text_node("t", n, (n > 1).then(|| n - 1))));
    }
    let mut thread = meta("t", 2);
    thread.leaf_id = Some(node_id(10_000));
    ops.push(WriteOp::PutThread(thread));
    block_on(deep.commit(UnitOfWork { ops })).unwrap();
    let mut deep_items = 0;
    let deep_ms = median_ms(|| {
        deep_items = block_on(load_thread_view(&deep, &thread_id("t"))).unwrap().items.len();
    });
    if std::env::var_os("PANELOT_BENCH_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        println!("kept {}", dir.display());
    }

    println!(
        "store-sqlite: open 1,000-node thread to encoded snapshot  {open_ms:>7.2} ms  ({} KiB, target <= 20 ms; median of {RUNS})",
        bytes / 1024
    );
    println!(
        "store-sqlite: branch switch incl. new path ({items} items)   {switch_ms:>7.2} ms  (target <= 5 ms: path {path_ms:.2} ms + cursor write {persist_ms:.2} ms)"
    );
    println!(
        "store-sqlite: branch switch through the engine's cache         {cached_ms:>7.2} ms  (target <= 5 ms)"
    );
    println!("store-sqlite: load 10,000-node deep path ({deep_items} items)    {deep_ms:>7.2} ms");
}
